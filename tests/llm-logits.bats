#!/usr/bin/env bats
# llm-logits: token records in, logits frames out.
load helpers

setup_file() {
	local d=$BATS_FILE_TMPDIR
	export GQA=$d/gqa F16=$d/f16 F32B=$d/f32b
	"$TOOLS/mkmodel" -s 1 --dtype bf16 --hidden 64 --layers 2 --heads 4 \
	    --kv-heads 2 --inter 96 --vocab 300 --ctx 64 "$GQA" >/dev/null
	"$TOOLS/mkmodel" -s 2 --dtype f16 --hidden 48 --layers 2 --heads 4 \
	    --kv-heads 4 --head-dim 16 --inter 80 --vocab 280 --ctx 64 --untied "$F16" >/dev/null
	"$TOOLS/mkmodel" -s 3 --dtype f32 --hidden 32 --layers 3 --heads 4 \
	    --kv-heads 1 --inter 64 --vocab 260 --ctx 64 --bias --rope-theta 10000 "$F32B" >/dev/null
}

@test "llm-logits: usage, help and version" {
	run -2 --separate-stderr llm-logits --bogus
	[[ $stderr == *usage:* ]]
	[ -z "$output" ]
	run -2 --separate-stderr llm-logits -m "$GQA" -f pdf
	[[ $stderr == *pdf* ]]
	run -2 --separate-stderr llm-logits -m "$GQA" --top 0
	run -2 --separate-stderr llm-logits -m "$GQA" -t 0
	run -0 llm-logits --help
	[[ $output == usage:* ]]
	run -0 llm-logits --version
	[[ $output == *pipelm* ]]
}

@test "llm-logits: an empty model name, a missing model, a missing input file" {
	run -1 --separate-stderr llm-logits -m '' -f text </dev/null
	[[ $stderr == *"model name is empty"* ]]
	run -1 --separate-stderr llm-logits -m "$BATS_TEST_TMPDIR/none" -f text </dev/null
	[[ $stderr == *none* ]]
	run -1 --separate-stderr llm-logits -m "$GQA" -f text "$BATS_TEST_TMPDIR/nofile"
	[[ $stderr == *nofile* ]]
	PIPELM_MODEL=$GQA run -0 llm-logits -f text <<<"1 2"
	[ "${#lines[@]}" -eq 1 ]
}

@test "llm-logits: stdin, - and a file give the same frames" {
	echo "5 6 7" >"$BATS_TEST_TMPDIR/ids"
	a=$(llm-logits -m "$GQA" -f text <"$BATS_TEST_TMPDIR/ids")
	b=$(llm-logits -m "$GQA" -f text - <"$BATS_TEST_TMPDIR/ids")
	c=$(llm-logits -m "$GQA" -f text "$BATS_TEST_TMPDIR/ids")
	[ "$a" = "$b" ] && [ "$a" = "$c" ]
}

@test "llm-logits: text frames have vocab numbers, one line per record" {
	run -0 --separate-stderr llm-logits -m "$GQA" -f text <<-EOF
	1 2 3
	4
	EOF
	[ "${#lines[@]}" -eq 2 ]
	[ "$(echo "${lines[0]}" | wc -w)" -eq 300 ]
	run -0 --separate-stderr llm-logits -m "$GQA" -f text --all <<<"1 2 3"
	[ "${#lines[@]}" -eq 3 ]
}

@test "llm-logits: bin frames: header fields and size" {
	llm-logits -m "$GQA" --all <<-EOF >"$BATS_TEST_TMPDIR/f"
	9 8
	7
	EOF
	[ "$(wc -c <"$BATS_TEST_TMPDIR/f")" -eq $((3 * (32 + 4 * 300))) ]
	# frame 3: magic, version 1, flags 0, vocab 300, record 2, position 0, token 7
	run -0 od -A n -t u4 -j $((2 * 1232 + 4)) -N 28 "$BATS_TEST_TMPDIR/f"
	[ "$(echo $output)" = "1 300 2 0 7 0 0" ]
	run -0 od -A n -c -j $((2 * 1232)) -N 4 "$BATS_TEST_TMPDIR/f"
	[ "$(echo $output)" = "P L G T" ]
	# frame 2: record 1, position 1, token 8
	run -0 od -A n -t u4 -j $((1232 + 8)) -N 16 "$BATS_TEST_TMPDIR/f"
	[ "$(echo $output)" = "300 1 1 8" ]
}

@test "llm-logits: binary frames are refused on a terminal" {
	need_tty
	# script runs the command with $SHELL, which may be sh: no bash syntax
	run script -qec "echo 1 2 | $BIN/llm-logits -m $GQA" /dev/null
	[ "$status" -eq 1 ]
	[[ $output == *"llm-logits: "*terminal* ]]
}

@test "llm-logits: top frames agree with the text frames' argmax" {
	text=$(llm-logits -m "$F16" -f text <<<"3 1 4 1 5")
	best=$(echo "$text" | tr ' ' '\n' | awk '{ if (NR == 1 || $1 > m) { m = $1; i = NR - 1 } } END { print i }')
	run -0 llm-logits -m "$F16" -f top --top 3 <<<"3 1 4 1 5"
	set -- $output
	[ $# -eq 3 ]
	[ "${1%%:*}" = "$best" ]
}

@test "llm-logits: an output that is also an input is refused, the input untouched" {
	mkdir "$BATS_TEST_TMPDIR/o" && cd "$BATS_TEST_TMPDIR/o"
	printf '1 2\n3 4\n' >pp.txt
	cp pp.txt orig
	run -1 --separate-stderr llm-logits -m "$GQA" -f top -o pp.txt pp.txt
	[ "$stderr" = "llm-logits: pp.txt: the output is also an input" ]
	cmp pp.txt orig
	ln pp.txt hard
	run -1 --separate-stderr llm-logits -m "$GQA" -f top -o hard - <pp.txt
	cmp pp.txt orig
	# stdout appended to an input would be read as it grows
	run -1 --separate-stderr bash -c "llm-logits -m '$GQA' -f top pp.txt >>pp.txt"
	[[ $stderr == *"pp.txt: the output is also an input" ]]
	run -1 --separate-stderr bash -c "llm-gen -m '$GQA' -n 1 <pp.txt >>pp.txt"
	[[ $stderr == *"<stdin>: the output is also an input" ]]
	cmp pp.txt orig
	[ "$(ls -A)" = "$(printf 'hard\norig\npp.txt')" ]
}

@test "llm-logits: -o FILE appears only when the run succeeds; a failed run leaves the old file" {
	mkdir "$BATS_TEST_TMPDIR/o" && cd "$BATS_TEST_TMPDIR/o"
	llm-logits -m "$GQA" -f npy --all -o a.npy <<<"1 2 3"
	cp a.npy old.npy
	chmod 640 a.npy
	for bad in "1 2\n3 300\n" "1 x\n" "\n"; do
		run -1 bash -c "printf '$bad' | llm-logits -m '$GQA' -f npy -o a.npy"
		cmp a.npy old.npy
	done
	run -1 llm-logits -m "$GQA" -f npy -o a.npy - nosuch <<<"1 2"
	cmp a.npy old.npy
	run -1 llm-logits -m "$GQA" -f text -o new.txt nosuch
	[ ! -e new.txt ]
	[ "$(ls -A)" = "$(printf 'a.npy\nold.npy')" ]	# no temporary file left
	# a run that succeeds replaces it, keeping its mode
	llm-logits -m "$GQA" -f npy -o a.npy <<<"4 5"
	! cmp -s a.npy old.npy
	[ "$(stat -c %a a.npy)" = 640 ]
	run -1 --separate-stderr llm-logits -m "$GQA" -f npy -o nodir/a.npy <<<"1"
	[[ $stderr == *nodir/a.npy* ]]
	# not a regular file: written in place
	[ "$(llm-logits -m "$GQA" -f top -o /dev/stdout <<<"1 2" | wc -l)" -eq 1 ]
}

@test "llm-logits: npy needs a seekable output; -o writes a file" {
	run -1 --separate-stderr bash -c "set -o pipefail; llm-logits -m '$GQA' -f npy <<<'1 2' | cat"
	[[ $stderr == *seek* ]]
	run -0 llm-logits -m "$GQA" -f npy --all -o "$BATS_TEST_TMPDIR/a.npy" <<<"1 2 3"
	run -0 npycmp "$BATS_TEST_TMPDIR/a.npy" "$BATS_TEST_TMPDIR/a.npy"
	[[ $output == *"rows 3 cols 300"* ]]
}

@test "llm-logits: session mode equals one batched record" {
	for m in "$GQA" "$F16" "$F32B"; do
		llm-logits -m "$m" --all -f npy -o "$BATS_TEST_TMPDIR/batch.npy" <<<"1 5 9 2 6 5 3 5 8 9"
		printf '1\n5\n9 2\n6\n5 3 5\n8\n9\n' |
		    llm-logits -m "$m" -s -f npy -o "$BATS_TEST_TMPDIR/s.npy"
		# session frames are the last position of each record: 1 2 4 5 8 9 10
		llm-logits -m "$m" -f npy -o "$BATS_TEST_TMPDIR/p.npy" <<-EOF
		1
		1 5
		1 5 9 2
		1 5 9 2 6
		1 5 9 2 6 5 3 5
		1 5 9 2 6 5 3 5 8
		1 5 9 2 6 5 3 5 8 9
		EOF
		run -0 npycmp -r 1e-5 "$BATS_TEST_TMPDIR/s.npy" "$BATS_TEST_TMPDIR/p.npy"
	done
}

@test "llm-logits: one token per record in session mode equals --all" {
	for m in "$GQA" "$F32B"; do
		llm-logits -m "$m" --all -f npy -o "$BATS_TEST_TMPDIR/batch.npy" <<<"1 5 9 2 6 5 3"
		printf '1\n5\n9\n2\n6\n5\n3\n' | llm-logits -m "$m" -s -f npy -o "$BATS_TEST_TMPDIR/s.npy"
		run -0 npycmp -r 1e-5 "$BATS_TEST_TMPDIR/s.npy" "$BATS_TEST_TMPDIR/batch.npy"
	done
}

@test "llm-logits: output is bit-identical for 1 and 2 threads" {
	for m in "$GQA" "$F16" "$F32B"; do
		for t in 1 2 3; do
			printf '1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17\n4 2\n' |
			    llm-logits -m "$m" -t $t --all -f text >"$BATS_TEST_TMPDIR/t$t"
			printf '1 2 3\n4\n5\n' | llm-logits -m "$m" -t $t -s -f text >>"$BATS_TEST_TMPDIR/t$t"
		done
		cmp "$BATS_TEST_TMPDIR/t1" "$BATS_TEST_TMPDIR/t2"
		cmp "$BATS_TEST_TMPDIR/t1" "$BATS_TEST_TMPDIR/t3"
	done
}

@test "llm-logits: records longer than one prefill batch" {
	ids=$(seq 1 300 | awk '{ printf "%s%d", (NR > 1 ? " " : ""), $1 % 250 }')
	llm-logits -m "$GQA" --ctx 320 -f text <<<"$ids" >"$BATS_TEST_TMPDIR/one"
	llm-logits -m "$GQA" --ctx 320 -f text --all <<<"$ids" | tail -n 1 >"$BATS_TEST_TMPDIR/all"
	cmp "$BATS_TEST_TMPDIR/one" "$BATS_TEST_TMPDIR/all"
	[ "$(llm-logits -m "$GQA" --ctx 320 -f text --all <<<"$ids" | wc -l)" -eq 300 ]
}

@test "llm-logits: ids outside the vocabulary and bad records" {
	run -1 --separate-stderr llm-logits -m "$GQA" -f text <<<"1 300"
	[[ $stderr == *300* && $stderr == *vocabulary* ]]
	run -1 --separate-stderr llm-logits -m "$GQA" -f text <<<"1 x"
	[[ $stderr == *"record 1"* ]]
	run -1 --separate-stderr llm-logits -m "$GQA" -f text <<<""
	[[ $stderr == *empty* ]]
}

@test "llm-logits: a record longer than the context" {
	run -1 --separate-stderr llm-logits -m "$GQA" --ctx 4 -f text <<<"1 2 3 4 5"
	[[ $stderr == *context* ]]
	run -1 --separate-stderr llm-logits -m "$GQA" --ctx 4 -s -f text <<-EOF
	1 2 3
	4
	5
	EOF
	[[ $stderr == *context* ]]
	[ "${#lines[@]}" -eq 2 ]
}

@test "llm-logits: mis-shaped, missing and unsupported weights are named" {
	cp -r "$GQA" "$BATS_TEST_TMPDIR/m"
	c=$BATS_TEST_TMPDIR/m/config.json
	jsed "$c" 's/"num_hidden_layers": *2/"num_hidden_layers": 3/'
	run -1 --separate-stderr llm-logits -m "$BATS_TEST_TMPDIR/m" -f text <<<"1"
	[[ $stderr == *"model.layers.2.input_layernorm.weight"* ]]
	cp "$GQA/config.json" "$c"
	jsed "$c" 's/"intermediate_size": *96/"intermediate_size": 100/'
	run -1 --separate-stderr llm-logits -m "$BATS_TEST_TMPDIR/m" -f text <<<"1"
	[[ $stderr == *"gate_proj.weight"*"[96, 64]"*"[100, 64]"* ]]
	cp "$GQA/config.json" "$c"
	jsed "$c" 's/LlamaForCausalLM/GPT2LMHeadModel/'
	run -1 --separate-stderr llm-logits -m "$BATS_TEST_TMPDIR/m" -f text <<<"1"
	[[ $stderr == *GPT2LMHeadModel* ]]
	# an integer dtype where a float matrix belongs (same element size)
	cp -r "$F32B" "$BATS_TEST_TMPDIR/i"
	perl -0777 -pi -e 's/"F32"/"I32"/' "$BATS_TEST_TMPDIR/i/model.safetensors"
	run -1 --separate-stderr llm-logits -m "$BATS_TEST_TMPDIR/i" -f text <<<"1"
	[[ $stderr == *I32* ]]
	# one more byte of header shifts every float32 off its alignment
	cp -r "$F32B" "$BATS_TEST_TMPDIR/u"
	perl -0777 -e 'my $d = <STDIN>; my $n = unpack("Q<", substr($d, 0, 8));
	    substr($d, 8 + $n, 0) = " "; substr($d, 0, 8) = pack("Q<", $n + 1); print $d' \
	    <"$F32B/model.safetensors" >"$BATS_TEST_TMPDIR/u/model.safetensors"
	run -1 --separate-stderr llm-logits -m "$BATS_TEST_TMPDIR/u" -f text <<<"1"
	[[ $stderr == *aligned* ]]
}

@test "llm-logits: a closed pipe ends it quietly" {
	run -0 --separate-stderr bash -c 'yes "1 2 3" | llm-logits -m "$GQA" -f text | head -c 1 >/dev/null; echo ${PIPESTATUS[1]}'
	[ "$output" = 141 ]
	[ -z "$stderr" ]
}

@test "llm-logits: --timing reports load, prefill and decode" {
	run -0 --separate-stderr llm-logits -m "$GQA" -s --timing -f top <<-EOF
	1 2 3
	4
	EOF
	[[ $stderr == *load* && $stderr == *prefill* && $stderr == *"ms/token"* ]]
}

@test "llm-logits: golden logits of the shared models" {
	need_shared
	for m in stories260K stories260K-bf16 tiny-gqa-bf16 tiny-mha-f16-untied tiny-mqa-f32-bias; do
		llm-logits -m "$SHARED/models/$m" --all -f npy -o "$BATS_TEST_TMPDIR/$m.npy" \
		    <"$SHARED/golden/logits/$m.ids"
		run -0 npycmp -a 1e-4 -r 1e-5 "$BATS_TEST_TMPDIR/$m.npy" "$SHARED/golden/logits/$m.npy"
		echo "$m: $output"
	done
}

# The bf16-act kernels run here unless the CPU lacks AVX512-BF16 or
# $PIPELM_KERNEL names a table without them.
has_bf16act() {
	grep -qw avx512_bf16 /proc/cpuinfo 2>/dev/null &&
	    [ -z "${PIPELM_KERNEL:-}" -o "${PIPELM_KERNEL:-}" = avx512 ]
}

need_bf16act() {
	has_bf16act || skip "no AVX512-BF16 kernels on this cpu or table"
}

@test "llm-logits: --timing names the mode; --bf16-act falls back where it cannot run" {
	run -0 --separate-stderr llm-logits -m "$GQA" --timing -f top <<<"1 2 3"
	[[ $stderr == *"mode exact"* ]]
	run -0 --separate-stderr llm-logits -m "$GQA" --bf16-act --timing -f top <<<"1 2 3"
	if has_bf16act; then
		[[ $stderr == *"mode bf16-act"* ]]
	else
		[[ $stderr == *"mode exact (bf16-act asked"* ]]
	fi
}

@test "llm-logits: --bf16-act is bit-identical for 1, 2 and 3 threads and differs from exact" {
	need_bf16act
	for m in "$GQA" "$F16" "$F32B"; do
		for t in 1 2 3; do
			printf '1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17\n4 2\n' |
			    llm-logits -m "$m" -t $t --bf16-act --all -f text >"$BATS_TEST_TMPDIR/t$t"
			printf '1 2 3\n4\n5\n' | llm-logits -m "$m" -t $t --bf16-act -s -f text >>"$BATS_TEST_TMPDIR/t$t"
		done
		cmp "$BATS_TEST_TMPDIR/t1" "$BATS_TEST_TMPDIR/t2"
		cmp "$BATS_TEST_TMPDIR/t1" "$BATS_TEST_TMPDIR/t3"
		printf '1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17\n4 2\n' |
		    llm-logits -m "$m" --all -f text >"$BATS_TEST_TMPDIR/exact"
		! cmp -s "$BATS_TEST_TMPDIR/t1" "$BATS_TEST_TMPDIR/exact"
	done
}

@test "llm-logits: --bf16-act golden logits within 1e-2 (BF16 weights), 2e-2 (F16, F32)" {
	need_shared
	need_bf16act
	for m in stories260K stories260K-bf16 tiny-gqa-bf16 tiny-mha-f16-untied tiny-mqa-f32-bias; do
		tol=1e-2
		[[ $m == *bf16* ]] || tol=2e-2
		llm-logits -m "$SHARED/models/$m" --bf16-act --all -f npy \
		    -o "$BATS_TEST_TMPDIR/$m.npy" <"$SHARED/golden/logits/$m.ids"
		run -0 npycmp -a 1 -r $tol "$BATS_TEST_TMPDIR/$m.npy" "$SHARED/golden/logits/$m.npy"
		echo "$m: $output"
		# not the exact path
		run -1 npycmp -a 1e-4 -r 1e-5 "$BATS_TEST_TMPDIR/$m.npy" "$SHARED/golden/logits/$m.npy"
	done
}

@test "llm-logits: --quant q8_0 is bit-identical for 1, 2 and 3 threads and says so" {
	for m in "$GQA" "$F16" "$F32B"; do
		for t in 1 2 3; do
			printf '1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17\n4 2\n' |
			    llm-logits -m "$m" -t $t --quant q8_0 --all -f text >"$BATS_TEST_TMPDIR/t$t"
			printf '1 2 3\n4\n5\n' | llm-logits -m "$m" -t $t --quant q8_0 -s -f text >>"$BATS_TEST_TMPDIR/t$t"
		done
		cmp "$BATS_TEST_TMPDIR/t1" "$BATS_TEST_TMPDIR/t2"
		cmp "$BATS_TEST_TMPDIR/t1" "$BATS_TEST_TMPDIR/t3"
	done
	run -0 --separate-stderr llm-logits -m "$GQA" --quant q8_0 --timing -f top <<<"1 2 3"
	[[ $stderr == *"mode q8_0"* ]]
	run -2 --separate-stderr llm-logits -m "$GQA" --quant q4_0 <<<"1 2 3"
	[[ $stderr == *"invalid --quant 'q4_0'"* ]]
	run -2 --separate-stderr llm-logits -m "$GQA" --quant q8_0 --bf16-act <<<"1 2 3"
	[[ $stderr == *"exclude each other"* ]]
}

@test "llm-logits: --int8-act is bit-identical for 1, 2 and 3 threads, prefill or not, and says its mode" {
	for m in "$GQA" "$F16" "$F32B"; do
		for q in q8_0 q4; do
			for t in 1 2 3; do
				printf '1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17\n4 2\n' |
				    llm-logits -m "$m" -t $t --quant $q --int8-act --all -f text >"$BATS_TEST_TMPDIR/t$t"
				printf '1 2 3\n4\n5\n' | llm-logits -m "$m" -t $t --quant $q --int8-act -s -f text >>"$BATS_TEST_TMPDIR/t$t"
			done
			cmp "$BATS_TEST_TMPDIR/t1" "$BATS_TEST_TMPDIR/t2"
			cmp "$BATS_TEST_TMPDIR/t1" "$BATS_TEST_TMPDIR/t3"
			# int8 activations change the logits
			printf '1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17\n4 2\n' |
			    llm-logits -m "$m" -t 2 --quant $q --all -f text >"$BATS_TEST_TMPDIR/q"
			! cmp -s "$BATS_TEST_TMPDIR/q" <(head -n 19 "$BATS_TEST_TMPDIR/t1")
		done
	done
	run -0 --separate-stderr llm-logits -m "$GQA" --quant q8_0 --int8-act --timing -f top <<<"1 2 3"
	[[ $stderr == *"mode q8_0+int8-act"* ]]
	run -0 --separate-stderr llm-logits -m "$GQA" --int8-act --quant q4 -v -f top <<<"1 2 3"
	[[ $stderr == *"mode q4+int8-act"* ]]
}

@test "llm-logits: --int8-act refused where it does not apply: float weights alone, --bf16-act, GPTQ" {
	run -1 --separate-stderr llm-logits -m "$GQA" --int8-act <<<"1 2 3"
	[[ $stderr == *"--int8-act takes quantized weights: --quant q8_0, --quant q4, a 4-bit model or a GGUF file of block types (this one's are bf16)"* ]]
	[ -z "$output" ]
	run -2 --separate-stderr llm-logits -m "$GQA" --int8-act --bf16-act <<<"1 2 3"
	[[ $stderr == *"--bf16-act and --int8-act exclude each other"* ]]
	run -2 --separate-stderr llm-logits -m "$GQA" --bf16-act --int8-act --quant q8_0 <<<"1 2 3"
	[[ $stderr == *"exclude each other"* ]]
	"$TOOLS/mkgptq" "$GQA" "$BATS_TEST_TMPDIR/gq" "$BATS_TEST_TMPDIR/gqd" >/dev/null
	run -1 --separate-stderr llm-logits -m "$BATS_TEST_TMPDIR/gq" --int8-act <<<"1 2 3"
	[[ $stderr == *"--int8-act has no kernels for gptq4 weights"* ]]
}

@test "llm-logits: --int8-act on a 4-bit folder equals --quant q4 --int8-act, its float head kept" {
	llm-quant "$GQA" "$BATS_TEST_TMPDIR/q4" >/dev/null
	printf '1 2 3 4 5 6 7 8 9\n4 2\n' |
	    llm-logits -m "$GQA" --quant q4 --int8-act --all -f text >"$BATS_TEST_TMPDIR/a"
	printf '1 2 3 4 5 6 7 8 9\n4 2\n' |
	    llm-logits -m "$BATS_TEST_TMPDIR/q4" --int8-act --all -f text >"$BATS_TEST_TMPDIR/b"
	cmp "$BATS_TEST_TMPDIR/a" "$BATS_TEST_TMPDIR/b"
	run -0 --separate-stderr llm-logits -m "$BATS_TEST_TMPDIR/q4" --int8-act -v -f top <<<"1 2 3"
	[[ $stderr == *"mode int8-act"* ]]
	# --keep-head: the BF16 head stays float, the rest takes int8
	llm-quant --keep-head "$GQA" "$BATS_TEST_TMPDIR/q4h" >/dev/null
	printf '1 2 3 4 5 6 7 8 9\n' |
	    llm-logits -m "$BATS_TEST_TMPDIR/q4h" --int8-act --all -f text >"$BATS_TEST_TMPDIR/c"
	printf '1 2 3 4 5 6 7 8 9\n' |
	    llm-logits -m "$BATS_TEST_TMPDIR/q4h" --all -f text >"$BATS_TEST_TMPDIR/d"
	! cmp -s "$BATS_TEST_TMPDIR/c" "$BATS_TEST_TMPDIR/d"
}

@test "llm-logits: --quant q8_0 --int8-act golden logits within 5e-2, --quant q4 --int8-act near --quant q4" {
	need_shared
	for m in stories260K stories260K-bf16 tiny-gqa-bf16 tiny-mha-f16-untied \
	    tiny-mqa-f32-bias; do
		llm-logits -m "$SHARED/models/$m" --quant q8_0 --int8-act --all -f npy \
		    -o "$BATS_TEST_TMPDIR/$m.npy" <"$SHARED/golden/logits/$m.ids"
		run -0 npycmp -g -a 1 -r 5e-2 "$BATS_TEST_TMPDIR/$m.npy" "$SHARED/golden/logits/$m.npy"
		echo "$m: $output"
		run -1 npycmp -a 1e-2 -r 1e-3 "$BATS_TEST_TMPDIR/$m.npy" "$SHARED/golden/logits/$m.npy"
		# int8 activations on 4-bit weights: near the 4-bit path (the
		# bound, not the argmax: 4-bit logits have close top pairs)
		llm-logits -m "$SHARED/models/$m" --quant q4 --all -f npy \
		    -o "$BATS_TEST_TMPDIR/q4.npy" <"$SHARED/golden/logits/$m.ids"
		llm-logits -m "$SHARED/models/$m" --quant q4 --int8-act --all -f npy \
		    -o "$BATS_TEST_TMPDIR/q4i.npy" <"$SHARED/golden/logits/$m.ids"
		run -0 npycmp -g -a 1 -r 5e-2 "$BATS_TEST_TMPDIR/q4i.npy" "$BATS_TEST_TMPDIR/q4.npy"
		echo "$m q4: $output"
	done
}

@test "llm-logits: --quant q8_0 golden logits within 3e-2 (all five models)" {
	need_shared
	for m in stories260K stories260K-bf16 tiny-gqa-bf16 tiny-mha-f16-untied \
	    tiny-mqa-f32-bias; do
		llm-logits -m "$SHARED/models/$m" --quant q8_0 --all -f npy \
		    -o "$BATS_TEST_TMPDIR/$m.npy" <"$SHARED/golden/logits/$m.ids"
		# the bound, not the argmax: tiny-mqa-f32-bias has one row
		# whose top two logits differ by less than the rounding
		run -0 npycmp -g -a 1 -r 3e-2 "$BATS_TEST_TMPDIR/$m.npy" "$SHARED/golden/logits/$m.npy"
		echo "$m: $output"
		run -1 npycmp -a 1e-2 -r 1e-3 "$BATS_TEST_TMPDIR/$m.npy" "$SHARED/golden/logits/$m.npy"
	done
}
