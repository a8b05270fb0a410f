#!/usr/bin/env bats
# llm-trace: token records in, the per-layer table, dumps and pictures out.
# The dumps against a reference forward pass of every architecture are
# tests/unit/test_model.c's (test_taps); here the program around them.
load helpers

setup_file() {
	local d=$BATS_FILE_TMPDIR
	export GQA=$d/gqa F16=$d/f16 F32B=$d/f32b IDS=$d/ids
	"$TOOLS/mkmodel" -s 1 --dtype bf16 --hidden 64 --layers 3 --heads 4 \
	    --kv-heads 2 --inter 96 --vocab 300 --ctx 64 "$GQA" >/dev/null
	"$TOOLS/mkmodel" -s 2 --dtype f16 --hidden 48 --layers 2 --heads 4 \
	    --kv-heads 4 --head-dim 16 --inter 80 --vocab 280 --ctx 64 --untied "$F16" >/dev/null
	"$TOOLS/mkmodel" -s 3 --dtype f32 --hidden 32 --layers 3 --heads 4 \
	    --kv-heads 1 --inter 64 --vocab 260 --ctx 64 --bias --rope-theta 10000 "$F32B" >/dev/null
	echo "5 9 22 7 100 3 250" >"$IDS"
}

check() {
	python3 "$BATS_TEST_DIRNAME/trace-check.py" "$@"
}

@test "llm-trace: usage, help and version" {
	run -2 --separate-stderr llm-trace --bogus
	[[ $stderr == *usage:* ]]
	[ -z "$output" ]
	run -2 --separate-stderr llm-trace -m "$GQA" --dump resid_pre
	[[ $stderr == *"needs -o"* ]]
	run -2 --separate-stderr llm-trace -m "$GQA" -o x.npz
	[[ $stderr == *"needs --dump"* ]]
	run -2 --separate-stderr llm-trace -m "$GQA" --dump resid,q -o x.npz
	[[ $stderr == *"'resid'"* ]]
	run -2 --separate-stderr llm-trace -m "$GQA" --layers 2-1
	[[ $stderr == *--layers* ]]
	run -2 --separate-stderr llm-trace -m "$GQA" --layers 3 <"$IDS"
	[[ $stderr == *"layers 0 to 2"* ]]
	run -2 --separate-stderr llm-trace -m "$GQA" --head 1.0
	[[ $stderr == *"needs --svg"* ]]
	run -2 --separate-stderr llm-trace -m "$GQA" --svg x.svg --head 1.4 <"$IDS"
	[[ $stderr == *"heads 0 to 3"* ]]
	run -2 --separate-stderr llm-trace -m "$GQA" --svg x.svg --head 1
	[[ $stderr == *--head* ]]
	run -0 llm-trace --help
	[[ $output == usage:* ]]
	[[ $output == *--dump* ]]
	run -0 llm-trace --version
	[[ $output == *pipelm* ]]
}

@test "llm-trace: a missing model, a missing input file, an id outside the vocabulary" {
	run -1 --separate-stderr llm-trace -m "$BATS_TEST_TMPDIR/none" </dev/null
	[[ $stderr == *none* ]]
	run -1 --separate-stderr llm-trace -m "$GQA" "$BATS_TEST_TMPDIR/nofile"
	[[ $stderr == *nofile* ]]
	run -1 --separate-stderr llm-trace -m "$GQA" <<<"1 300"
	[[ $stderr == *300* ]]
}

@test "llm-trace: the table: its header, a line per record, position and layer" {
	run -0 --separate-stderr llm-trace -m "$GQA" <"$IDS"
	[ "${lines[0]}" = "$(printf 'record\tpos\tlayer\tid\trms_resid_pre\trms_attn_out\trms_mlp_out\trms_resid_post\tattn_entropy\tlens_id\tlens_p')" ]
	[ "${#lines[@]}" -eq $((1 + 7 * 3)) ]
	[ "${lines[1]%%	0.*}" = "$(printf '1\t0\t0\t5')" ]
	# the next layer's stream is this one's output
	[ "$(cut -f8 <<<"${lines[1]}")" = "$(cut -f5 <<<"${lines[2]}")" ]
	# position 0 attends to itself alone: entropy 0
	[ "$(cut -f9 <<<"${lines[1]}")" = 0 ]
	# two records (the empty one traces nothing), --layers
	run -0 llm-trace -m "$GQA" --layers 1- < <(printf '1 2 3\n\n4 5\n')
	[ "${#lines[@]}" -eq $((1 + 5 * 2)) ]
	[ "$(cut -f1-3 <<<"${lines[10]}")" = "$(printf '3\t1\t2')" ]
	run -0 llm-trace -m "$GQA" --layers 1 <"$IDS"
	[ "${#lines[@]}" -eq 8 ]
	[ "$(cut -f3 <<<"${lines[7]}")" = 1 ]
}

@test "llm-trace: stdin, - and a named file give the same table" {
	a=$(llm-trace -m "$GQA" <"$IDS")
	b=$(llm-trace -m "$GQA" - <"$IDS")
	c=$(llm-trace -m "$GQA" "$IDS")
	[ "$a" = "$b" ]
	[ "$a" = "$c" ]
}

@test "llm-trace: the table recomputed from the dumps (a folder, an .npz, an .npy)" {
	need_cmd python3
	local d=$BATS_TEST_TMPDIR
	for m in "$GQA" "$F16" "$F32B"; do
		llm-trace -m "$m" --dump all -o "$d/dir" <"$IDS" >"$d/tab"
		run -0 check table "$d/dir" "$d/tab"
		llm-trace -m "$m" --dump all -o "$d/all.npz" <"$IDS" >/dev/null
		run -0 check same "$d/all.npz" "$d/dir"
		rm -r "$d/dir"
	done
	run -0 check shapes "$d/all.npz"
	[[ $output == *"blocks.2.attn.hook_pattern 4x7x7"* ]]
	[[ $output == *"blocks.0.attn.hook_k 7x1x8"* ]]
	[[ $output == *"ln_final.hook_normalized 7x32"* ]]
	llm-trace -m "$GQA" --layers 1 --dump resid_post -o "$d/one.npy" <"$IDS" >/dev/null
	run -0 check shapes "$d/one.npy"
	[ "$output" = "one 7x64" ]
	run -1 --separate-stderr llm-trace -m "$GQA" --dump resid_post -o "$d/two.npy" <"$IDS"
	[[ $stderr == *"3 arrays"* ]]
	[ ! -e "$d/two.npy" ]
	# TransformerLens's names too
	llm-trace -m "$GQA" --layers 0 --dump hook_resid_pre,attn.hook_q,ln_final.hook_normalized \
	    -o "$d/tl.npz" <"$IDS" >/dev/null
	run -0 check shapes "$d/tl.npz"
	[ "${#lines[@]}" -eq 3 ]
}

@test "llm-trace: the last layer's lens is llm-logits' logits, in every weight type and mode" {
	need_cmd python3
	local d=$BATS_TEST_TMPDIR
	for m in "$GQA" "$F16" "$F32B"; do
		L=$(grep -o '"num_hidden_layers": *[0-9]*' "$m/config.json" | grep -o '[0-9]*$')
		for mode in "" --quant=q8_0 --quant=q4; do
			llm-trace -m "$m" $mode --layers $((L - 1)) --dump lens -o "$d/lens.npy" \
			    <"$IDS" >/dev/null
			llm-logits -m "$m" $mode -a -f text <"$IDS" >"$d/logits"
			run -0 check lens "$d/lens.npy" "$d/logits"
		done
	done
}

@test "llm-trace: the same dumps and table whatever --threads is" {
	local d=$BATS_TEST_TMPDIR
	llm-trace -m "$GQA" -t 1 --dump all -o "$d/t1.npz" <"$IDS" >"$d/t1"
	llm-trace -m "$GQA" -t 2 --dump all -o "$d/t2.npz" <"$IDS" >"$d/t2"
	cmp "$d/t1.npz" "$d/t2.npz"
	cmp "$d/t1" "$d/t2"
}

@test "llm-trace: a session's decode steps dump what one prefill does" {
	need_cmd python3
	local d=$BATS_TEST_TMPDIR
	llm-trace -m "$GQA" --dump all -o "$d/pre.npz" <"$IDS" >"$d/pre"
	tr ' ' '\n' <"$IDS" | llm-trace -m "$GQA" -s --dump all -o "$d/dec.npz" >"$d/dec"
	run -0 check same "$d/dec.npz" "$d/pre.npz"
	# the same positions and layers, figures to the table's digits
	[ "$(cut -f2-4 "$d/pre")" = "$(cut -f2-4 "$d/dec")" ]
}

@test "llm-trace: the SVG is valid XML with one lens cell per layer and position" {
	local d=$BATS_TEST_TMPDIR
	llm-trace -m "$GQA" --svg "$d/a.svg" --head 1.2 < <(cat "$IDS" "$IDS") >/dev/null
	if command -v xmllint >/dev/null; then
		xmllint --noout "$d/a.svg"
	else
		python3 -c 'import sys, xml.dom.minidom as m; m.parse(sys.argv[1])' "$d/a.svg"
	fi
	[ "$(grep -c 'class="cell"' "$d/a.svg")" -eq $((3 * 7)) ]
	# the head's pattern: the causal triangle of the first record
	[ "$(grep -c 'class="att"' "$d/a.svg")" -eq $((7 * 8 / 2)) ]
	# a folder without a tokenizer: the ids are the labels
	cp -r "$GQA" "$d/notok"
	rm "$d/notok/tokenizer.json"
	llm-trace -m "$d/notok" --svg "$d/n.svg" <"$IDS" >/dev/null
	grep -q 'font-weight="bold">250</text>' "$d/n.svg"
	# the built-in model's pieces, escaped as XML wants
	run -0 llm-trace --svg "$d/b.svg" <<<"1 403 407 261 1 60 62 38"
	python3 -c 'import sys, xml.dom.minidom as m; m.parse(sys.argv[1])' "$d/b.svg"
	[ "$(grep -c 'class="cell"' "$d/b.svg")" -eq $((5 * 8)) ]
	grep -q '&lt;' "$d/b.svg"
}

@test "llm-trace: a GGUF file's own tokenizer labels the pictures" {
	local d=$BATS_TEST_TMPDIR ids="1 403 407 261 1 60 62 38"
	mkdir "$d/g"
	"$TOOLS/mkgguf" "$BATS_TEST_DIRNAME/../share/pipelm/stories260K" "$d/g/s.gguf"
	llm-trace -m "$d/g/s.gguf" --svg "$d/g.svg" <<<"$ids" >/dev/null
	llm-trace --svg "$d/b.svg" <<<"$ids" >/dev/null
	grep -q 'font-weight="bold">▁Once</text>' "$d/g.svg"
	cmp <(grep -o 'font-weight="bold">[^<]*<' "$d/g.svg") \
	    <(grep -o 'font-weight="bold">[^<]*<' "$d/b.svg")
}

@test "llm-trace: a reader closing early ends it quietly" {
	run -0 bash -c 'yes "1 2 3" | head -n 200 | llm-trace -m "$GQA" | head -c1 >/dev/null; echo "${PIPESTATUS[2]}"'
	[ "$output" = 141 ]
}
