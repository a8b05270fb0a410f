#!/usr/bin/env bats
# llm-gen: prompts in, continuations out; and the llm-logits | llm-sample loop.
load helpers

setup_file() {
	local d=$BATS_FILE_TMPDIR
	export GQA=$d/gqa F16=$d/f16 F32B=$d/f32b
	"$TOOLS/mkmodel" -s 11 --dtype bf16 --hidden 64 --layers 2 --heads 4 \
	    --kv-heads 2 --inter 96 --vocab 300 --ctx 128 "$GQA" >/dev/null
	"$TOOLS/mkmodel" -s 12 --dtype f16 --hidden 48 --layers 2 --heads 4 \
	    --kv-heads 4 --head-dim 16 --inter 80 --vocab 280 --ctx 128 --untied "$F16" >/dev/null
	"$TOOLS/mkmodel" -s 13 --dtype f32 --hidden 32 --layers 3 --heads 4 \
	    --kv-heads 1 --inter 64 --vocab 260 --ctx 128 --bias "$F32B" >/dev/null
}

@test "llm-gen: usage, help and version" {
	run -2 --separate-stderr llm-gen --bogus
	[[ $stderr == *usage:* ]]
	[ -z "$output" ]
	run -2 --separate-stderr llm-gen -m "$GQA" --temp -1
	[[ $stderr == *temp* ]]
	run -2 --separate-stderr llm-gen -m "$GQA" --top-p 2
	run -2 --separate-stderr llm-gen -m "$GQA" -n x
	run -0 llm-gen --help
	[[ $output == usage:* ]]
	run -0 llm-gen --version
	[[ $output == *pipelm* ]]
}

@test "llm-gen: a missing model and a missing file are named" {
	run -1 --separate-stderr llm-gen -m "$BATS_TEST_TMPDIR/none" </dev/null
	[[ $stderr == *none* ]]
	run -1 --separate-stderr llm-gen -m "$GQA" "$BATS_TEST_TMPDIR/nofile"
	[[ $stderr == *nofile* ]]
}

@test "llm-gen: one record per prompt, -n ids each; --echo keeps the prompt" {
	run -0 --separate-stderr llm-gen -m "$GQA" -n 5 --temp 0 <<-EOF
	1 2 3
	7
	EOF
	[ "${#lines[@]}" -eq 2 ]
	[ "$(echo "${lines[0]}" | wc -w)" -eq 5 ]
	[ "$(echo "${lines[1]}" | wc -w)" -eq 5 ]
	first=${lines[0]}
	run -0 --separate-stderr llm-gen -m "$GQA" -n 5 --temp 0 --echo <<<"1 2 3"
	[ "$output" = "1 2 3 $first" ]
	run -0 --separate-stderr llm-gen -m "$GQA" -n 0 <<<"1 2 3"
	[ "$output" = "" ]
	run -1 --separate-stderr llm-gen -m "$GQA" <<<""
	[[ $stderr == *empty* ]]
}

@test "llm-gen: stdin, - and a file agree; u32 records in and out" {
	printf '4 5 6\n9\n' >"$BATS_TEST_TMPDIR/p"
	a=$(llm-gen -m "$F16" -n 6 --temp 0 <"$BATS_TEST_TMPDIR/p")
	b=$(llm-gen -m "$F16" -n 6 --temp 0 - <"$BATS_TEST_TMPDIR/p")
	c=$(llm-gen -m "$F16" -n 6 --temp 0 "$BATS_TEST_TMPDIR/p")
	[ "$a" = "$b" ] && [ "$a" = "$c" ]
	# u32: count then ids, little-endian
	printf '\3\0\0\0\4\0\0\0\5\0\0\0\6\0\0\0\1\0\0\0\11\0\0\0' |
	    llm-gen -m "$F16" -n 6 --temp 0 --ids=u32 >"$BATS_TEST_TMPDIR/u"
	[ "$(od -A n -t u4 "$BATS_TEST_TMPDIR/u" | tr -s ' \n' ' ' | sed 's/^ //; s/ $//')" = \
	  "$(echo "$a" | awk '{ printf "%s%d %s", (NR > 1 ? " " : ""), NF, $0 }')" ]
}

@test "llm-gen: --stop ids and EOS end a continuation (the id is written)" {
	ref=$(llm-gen -m "$GQA" -n 12 --temp 0 --ignore-eos <<<"1 2 3")
	set -- $ref
	run -0 llm-gen -m "$GQA" -n 12 --temp 0 --ignore-eos --stop "$4" <<<"1 2 3"
	[ "$output" = "$(echo $ref | awk -v s="$4" '{ for (i = 1; i <= NF; i++) { printf "%s%s", (i > 1 ? " " : ""), $i; if ($i == s) break } }')" ]
	# the model's eos_token_id (a list here) stops it unless --ignore-eos
	cp -r "$GQA" "$BATS_TEST_TMPDIR/m"
	jsed "$BATS_TEST_TMPDIR/m/config.json" "s/\"eos_token_id\": *[0-9]*/\"eos_token_id\": [299, $3]/"
	run -0 llm-gen -m "$BATS_TEST_TMPDIR/m" -n 12 --temp 0 <<<"1 2 3"
	[ "$output" = "$(echo $ref | awk -v s="$3" '{ for (i = 1; i <= NF; i++) { printf "%s%s", (i > 1 ? " " : ""), $i; if ($i == s) break } }')" ]
	run -0 llm-gen -m "$BATS_TEST_TMPDIR/m" -n 12 --temp 0 --ignore-eos <<<"1 2 3"
	[ "$output" = "$ref" ]
}

@test "llm-gen: the context limit stops with a message" {
	run -0 --separate-stderr llm-gen -m "$GQA" --ctx 8 -n 100 --temp 0 <<<"1 2 3 4"
	[ "$(echo "$output" | wc -w)" -eq 5 ]
	[[ $stderr == *context* ]]
	run -1 --separate-stderr llm-gen -m "$GQA" --ctx 3 -n 1 <<<"1 2 3 4"
	[[ $stderr == *context* ]]
}

@test "llm-gen: the KV cache gives what recomputing every step gives" {
	for m in "$GQA" "$F16" "$F32B"; do
		got=$(llm-gen -m "$m" -n 12 --temp 0 --ignore-eos <<<"3 1 4 1 5")
		seq="3 1 4 1 5" want=""
		for i in $(seq 12); do
			id=$(llm-logits -m "$m" -f top --top 1 <<<"$seq")
			id=${id%%:*}
			seq="$seq $id" want="$want${want:+ }$id"
		done
		[ "$got" = "$want" ]
	done
}

@test "llm-gen: bit-identical for 1 and 2 threads" {
	a=$(llm-gen -m "$F32B" -t 1 -n 20 --seed 5 --temp 0.9 <<<"1 2 3")
	b=$(llm-gen -m "$F32B" -t 2 -n 20 --seed 5 --temp 0.9 <<<"1 2 3")
	[ "$a" = "$b" ]
}

# loop MODEL SAMPLE-OPTIONS...: the FIFO loop of DESIGN.md
loop() {
	local m=$1 fifo=$BATS_TEST_TMPDIR/loop
	shift
	rm -f "$fifo"
	mkfifo "$fifo"
	echo "5 17 42" | cat - "$fifo" | llm-logits -m "$m" -s |
	    llm-sample -m "$m" "$@" | tee "$fifo" | tr '\n' ' ' | sed 's/ $//'
}

@test "llm-gen: equals the llm-logits -s | llm-sample FIFO loop" {
	for m in "$GQA" "$F32B"; do
		run -0 loop "$m" -n 16 --temp 0 --ignore-eos
		[ "$output" = "$(llm-gen -m "$m" -n 16 --temp 0 --ignore-eos <<<"5 17 42")" ]
		run -0 loop "$m" -n 16 --seed 7 --temp 0.8 --top-k 40 --top-p 0.9 --ignore-eos
		want=$(llm-gen -m "$m" -n 16 --seed 7 --temp 0.8 --top-k 40 --top-p 0.9 --ignore-eos <<<"5 17 42")
		[ "$output" = "$want" ]
		run -0 loop "$m" -n 16 --seed 9 --temp 1.5 --min-p 0.05 --ignore-eos
		want=$(llm-gen -m "$m" -n 16 --seed 9 --temp 1.5 --min-p 0.05 --ignore-eos <<<"5 17 42")
		[ "$output" = "$want" ]
	done
}

@test "llm-gen: a seed printed by -v replays the run, the whole u64 range" {
	for i in {1..8}; do
		run -0 --separate-stderr llm-gen -v -m "$GQA" -n 8 --temp 1 <<<"1 2"
		[[ $stderr =~ seed\ ([0-9]+) ]]
		a=$output
		run -0 llm-gen -m "$GQA" -n 8 --temp 1 --seed "${BASH_REMATCH[1]}" <<<"1 2"
		[ "$output" = "$a" ]
	done
	run -0 llm-gen -m "$GQA" -n 2 --seed 18446744073709551615 <<<"1 2"
}

@test "llm-gen: seeded sampling is reproducible and the seed matters" {
	a=$(llm-gen -m "$GQA" -n 24 --seed 1 --temp 1 <<<"1 2")
	b=$(llm-gen -m "$GQA" -n 24 --seed 1 --temp 1 <<<"1 2")
	c=$(llm-gen -m "$GQA" -n 24 --seed 2 --temp 1 <<<"1 2")
	[ "$a" = "$b" ]
	[ "$a" != "$c" ]
	run -0 --separate-stderr llm-gen -v -m "$GQA" -n 1 <<<"1"
	[[ $stderr == *seed* ]]
}

@test "llm-gen: batch prompts equal separate runs, also with xargs -P 2" {
	printf '1 2 3\n40 41\n7 7 7 7\n' >"$BATS_TEST_TMPDIR/prompts"
	llm-gen -m "$GQA" -n 8 --temp 0 <"$BATS_TEST_TMPDIR/prompts" >"$BATS_TEST_TMPDIR/batch"
	while read -r p; do
		llm-gen -m "$GQA" -n 8 --temp 0 <<<"$p"
	done <"$BATS_TEST_TMPDIR/prompts" >"$BATS_TEST_TMPDIR/alone"
	cmp "$BATS_TEST_TMPDIR/batch" "$BATS_TEST_TMPDIR/alone"
	# sampled too: each prompt starts the seeded stream afresh
	llm-gen -m "$GQA" -n 8 --seed 3 --temp 0.9 <"$BATS_TEST_TMPDIR/prompts" >"$BATS_TEST_TMPDIR/batch"
	while read -r p; do
		llm-gen -m "$GQA" -n 8 --seed 3 --temp 0.9 <<<"$p"
	done <"$BATS_TEST_TMPDIR/prompts" | cmp - "$BATS_TEST_TMPDIR/batch"
	export GQA
	xargs -P 2 -I{} sh -c 'echo "{}" | llm-gen -m "$GQA" -n 8 --temp 0 >"$0/out.$(echo {} | tr " " _)"' \
	    "$BATS_TEST_TMPDIR" <"$BATS_TEST_TMPDIR/prompts"
	while read -r p; do cat "$BATS_TEST_TMPDIR/out.$(echo $p | tr ' ' _)"; done \
	    <"$BATS_TEST_TMPDIR/prompts" | cmp - "$BATS_TEST_TMPDIR/alone"
}

@test "llm-gen: the weights are mapped from the file, not copied" {
	fifo=$BATS_TEST_TMPDIR/in
	mkfifo "$fifo"
	llm-gen -m "$GQA" -n 1 <"$fifo" >/dev/null &
	pid=$!
	exec 5>"$fifo"
	echo "1 2" >&5
	# the model is loaded before the first record is answered
	for i in $(seq 100); do grep -q model.safetensors /proc/$pid/maps && break; sleep 0.05; done
	run grep model.safetensors /proc/$pid/maps
	exec 5>&-
	wait $pid
	[[ $output == *model.safetensors* ]]
}

@test "llm-gen: a closed pipe ends it quietly" {
	run -0 --separate-stderr bash -c 'yes "1 2 3" | llm-gen -m "$GQA" -n 50 | head -c 20 >/dev/null; echo ${PIPESTATUS[1]}'
	[ "$output" = 141 ]
	[ -z "$stderr" ]
}

@test "llm-gen: --timing reports prefill and decode speed" {
	# greedy: a random seed may draw the end of text first, and then
	# there is no decode step to report
	run -0 --separate-stderr llm-gen -m "$GQA" -n 4 --temp 0 --timing <<<"1 2 3"
	[ "$(wc -w <<<"$output")" -eq 4 ]
	[[ $stderr == *prefill*tokens/s* && $stderr == *decode*ms/token* ]]
}

@test "llm-gen: greedy continuations of stories260K equal the reference" {
	need_shared
	f=$SHARED/golden/generate/stories260K.jsonl
	sed 's/.*"prompt_ids": \[\([^]]*\)\].*/\1/; s/,/ /g' "$f" >"$BATS_TEST_TMPDIR/prompts"
	sed 's/.*"greedy_ids": \[\([^]]*\)\].*/\1/; s/,/ /g' "$f" >"$BATS_TEST_TMPDIR/want"
	[ -s "$BATS_TEST_TMPDIR/want" ]
	llm-gen -m "$SHARED/models/stories260K" -n 64 --temp 0 <"$BATS_TEST_TMPDIR/prompts" >"$BATS_TEST_TMPDIR/got"
	cmp "$BATS_TEST_TMPDIR/got" "$BATS_TEST_TMPDIR/want"
}

@test "llm-gen: the plain pipeline tells the stories260K story" {
	need_shared
	M=$SHARED/models/stories260K
	run -0 bash -c "echo 'Once upon a time' | tok-encode -m $M | llm-gen -m $M -n 30 --temp 0 | tok-decode -m $M"
	[[ $output == ", there was a little girl named Lily"* ]]
}

@test "llm-gen: --bf16-act is bit-identical for 1 and 2 threads; -v names the mode" {
	a=$(llm-gen -m "$GQA" -t 1 -n 20 --seed 5 --temp 0.9 --bf16-act <<<"1 2 3")
	b=$(llm-gen -m "$GQA" -t 2 -n 20 --seed 5 --temp 0.9 --bf16-act <<<"1 2 3")
	[ "$a" = "$b" ]
	run -0 --separate-stderr llm-gen -m "$GQA" -n 2 -v --bf16-act <<<"1 2 3"
	[[ $stderr == *"mode bf16-act"* || $stderr == *"mode exact (no AVX512-BF16"* ]]
}

# teacher MODE-OPTION...: run the stories260K golden continuations
# teacher-forced through llm-logits --all, exact and with the options;
# print "steps N checked C wrong W" where C counts the steps whose exact
# top-2 margin exceeds 0.1 and W those among them where the fast mode's
# argmax is not the reference id.
teacher() {
	local f=$SHARED/golden/generate/stories260K.jsonl d=$BATS_TEST_TMPDIR
	local M=$SHARED/models/stories260K p g np
	: >"$d/all"
	while IFS= read -r line; do
		p=$(sed 's/.*"prompt_ids": \[\([^]]*\)\].*/\1/; s/,/ /g' <<<"$line")
		g=$(sed 's/.*"greedy_ids": \[\([^]]*\)\].*/\1/; s/,/ /g' <<<"$line")
		np=$(wc -w <<<"$p")
		echo "$p ${g% *}" | llm-logits -m "$M" --all -f top --top 2 |
		    tail -n +"$np" >"$d/e"
		echo "$p ${g% *}" | llm-logits -m "$M" --all -f top --top 2 "$@" |
		    tail -n +"$np" >"$d/f"
		tr ' ' '\n' <<<"$g" | paste -d ' ' - "$d/e" "$d/f" >>"$d/all"
	done <"$f"
	awk '{ split($2, a, ":"); split($3, b, ":"); split($4, c, ":")
		n++; if (a[1] != $1) bad++
		if (a[2] - b[2] > 0.1) { chk++; if (c[1] != $1) wrong++ } }
	    END { printf "steps %d checked %d wrong %d exact-wrong %d\n",
		n, chk, wrong, bad }' "$d/all"
}

@test "llm-gen: --quant q8_0 and --bf16-act keep the golden greedy ids where the margin exceeds 0.1" {
	need_shared
	run -0 teacher --quant q8_0
	echo "q8_0: $output"
	[[ $output == "steps 192 checked "*" wrong 0 exact-wrong 0" ]]
	[[ $output != *"checked 0 "* ]]
	run -0 teacher --bf16-act
	echo "bf16-act: $output"
	[[ $output == "steps 192 checked "*" wrong 0 exact-wrong 0" ]]
}

@test "llm-gen: --quant q8_0 --int8-act keeps the golden greedy ids where the margin exceeds 0.1" {
	need_shared
	run -0 teacher --quant q8_0 --int8-act
	echo "q8_0 int8-act: $output"
	[[ $output == "steps 192 checked "*" wrong 0 exact-wrong 0" ]]
	[[ $output != *"checked 0 "* ]]
}

@test "llm-gen: --int8-act is bit-identical for 1 and 2 threads; -v names the mode" {
	for q in q8_0 q4; do
		a=$(llm-gen -m "$GQA" -t 1 -n 20 --seed 5 --temp 0.9 --quant $q --int8-act <<<"1 2 3")
		b=$(llm-gen -m "$GQA" -t 2 -n 20 --seed 5 --temp 0.9 --quant $q --int8-act <<<"1 2 3")
		[ -n "$a" ] && [ "$a" = "$b" ]
		run -0 --separate-stderr llm-gen -m "$GQA" -n 2 -v --quant $q --int8-act <<<"1 2 3"
		[[ $stderr == *"mode $q+int8-act"* ]]
	done
	run -1 --separate-stderr llm-gen -m "$GQA" -n 2 --int8-act <<<"1 2 3"
	[[ $stderr == *"--int8-act takes quantized weights"* ]]
}

@test "llm-gen: generation_config.json's sampling values are the defaults, the options override them" {
	B=$BATS_TEST_DIRNAME/../share/pipelm/stories260K
	g=$BATS_TEST_TMPDIR/g
	cp -R "$B" "$g"
	greedy=$(echo 1 403 | llm-gen -m "$B" -n 12 --temp 0)
	printf '{"bos_token_id": 1, "eos_token_id": 2, "do_sample": false, "temperature": 0.1}' >"$g/generation_config.json"
	for s in 1 2 3; do
		run -0 sh -c "echo 1 403 | llm-gen -m $g -n 12 --seed $s"
		[ "$output" = "$greedy" ]
	done
	# --temp given: sampling after all
	a=$(echo 1 403 | llm-gen -m "$B" -n 12 --temp 0.9 --seed 5)
	run -0 sh -c "echo 1 403 | llm-gen -m $g -n 12 --temp 0.9 --seed 5"
	[ "$output" = "$a" ]
	printf '{"bos_token_id": 1, "eos_token_id": 2, "do_sample": true, "temperature": 0.7, "top_k": 5, "top_p": 0.9, "repetition_penalty": 1.2, "max_new_tokens": 9}' >"$g/generation_config.json"
	want=$(echo 1 403 | llm-gen -m "$B" --temp 0.7 --top-k 5 --top-p 0.9 --repeat-penalty 1.2 -n 9 --seed 5)
	run -0 sh -c "echo 1 403 | llm-gen -m $g --seed 5"
	[ "$output" = "$want" ]
	[ "$(echo "$output" | wc -w)" -le 9 ]
	# the FIFO loop's sampler takes the same defaults from -m
	run -0 sh -c "echo 1 403 | llm-logits -m $g -s | llm-sample -m $g --seed 5"
	[ "$(echo $output)" = "$(echo "$want" | cut -d' ' -f 1)" ]
	printf '{"top_p": 1.5}' >"$g/generation_config.json"
	run -1 --separate-stderr sh -c "echo 1 403 | llm-gen -m $g -n 2"
	[[ $stderr == *"top_p: not a number in [0, 1]"* ]]
}

# the ids of $1 up to and including the first that is $2
upto() {
	echo $1 | awk -v s="$2" '{ for (i = 1; i <= NF; i++) { printf "%s%s", (i > 1 ? " " : ""), $i; if ($i == s) break } }'
}

@test "llm-gen: generation_config.json's eos_token_id list stops at each of its ids, over config.json's" {
	ref=$(llm-gen -m "$GQA" -n 12 --temp 0 --ignore-eos <<<"1 2 3")
	set -- $ref
	cp -r "$GQA" "$BATS_TEST_TMPDIR/m"
	# config.json's own eos would stop at the second id: the list replaces it
	jsed "$BATS_TEST_TMPDIR/m/config.json" "s/\"eos_token_id\": *[0-9]*/\"eos_token_id\": $2/"
	printf '{"eos_token_id": [299, %s, 298]}' "$5" >"$BATS_TEST_TMPDIR/m/generation_config.json"
	run -0 llm-gen -m "$BATS_TEST_TMPDIR/m" -n 12 --temp 0 <<<"1 2 3"
	[ "$output" = "$(upto "$ref" "$5")" ]
	printf '{"eos_token_id": [299, 298, %s]}' "$7" >"$BATS_TEST_TMPDIR/m/generation_config.json"
	run -0 llm-gen -m "$BATS_TEST_TMPDIR/m" -n 12 --temp 0 <<<"1 2 3"
	[ "$output" = "$(upto "$ref" "$7")" ]
}

@test "llm-gen: --stop-text stops at the id completing the string in the continuation, that id written" {
	p=$(tok-encode -e 'Once upon a time')
	ref=$(llm-gen -n 40 --temp 0 --ignore-eos <<<"$p")
	text=$(tok-decode <<<"$ref")
	[[ $text == *Lily*park* ]]
	run -0 --separate-stderr llm-gen -v -n 40 --temp 0 --ignore-eos --stop-text Lily <<<"$p"
	[[ $stderr == *'stop: text "Lily"'* ]]
	[[ $ref == "$output "* ]]
	[[ $(tok-decode <<<"$output") == *Lily ]]
	# the id before it does not complete it: the output is the shortest
	[[ $(tok-decode <<<"${output% *}") != *Lily* ]]
	# split within a token ("ark" of " park"), two strings: the first to end
	run -0 llm-gen -n 40 --temp 0 --ignore-eos --stop-text 'n the par' --stop-text 'zzz' <<<"$p"
	[[ $(tok-decode <<<"$output") == *"n the par"* ]]
	[[ $(tok-decode <<<"${output% *}") != *"n the par"* ]]
	# the prompt does not count: "upon" is only there
	[[ $text != *upon* ]]
	run -0 llm-gen -n 40 --temp 0 --ignore-eos --stop-text upon <<<"$p"
	[ "$output" = "$ref" ]
	# llm-text passes it on
	run -0 llm-text -n 40 --temp 0 --ignore-eos --stop-text Lily 'Once upon a time'
	[[ $output == *Lily ]]
	run -2 --separate-stderr llm-gen --stop-text '' <<<"$p"
	[[ $stderr == *stop-text* ]]
	# it needs the model's tokenizer, and says so before any work
	mkdir "$BATS_TEST_TMPDIR/nt"
	cp "$GQA/config.json" "$GQA/model.safetensors" "$BATS_TEST_TMPDIR/nt"
	run -1 --separate-stderr llm-gen -m "$BATS_TEST_TMPDIR/nt" --stop-text Lily <<<"1 2 3"
	[[ $stderr == *"nt: no tokenizer.json"* ]]
	[ -z "$output" ]
}

@test "llm-gen -s: records extend one sequence, only their ids are fed, as the whole prompt would give" {
	a=$(llm-gen -m "$GQA" -n 5 --temp 0 --ignore-eos <<<"1 2 3")
	b=$(llm-gen -m "$GQA" -n 5 --temp 0 --ignore-eos <<<"1 2 3 $a 7 8")
	c=$(llm-gen -m "$GQA" -n 4 --temp 0 --ignore-eos <<<"1 2 3 $a 7 8 $b")
	run -0 --separate-stderr llm-gen -m "$GQA" -s -v -n 5 --temp 0 --ignore-eos <<<$'1 2 3\n7 8'
	[ "$output" = "$a"$'\n'"$b" ]
	# record 2 ran the last id of record 1 and its own two
	[[ $stderr == *"record 1: 0 positions kept, 3 fed, 5 ids"* ]]
	[[ $stderr == *"record 2: 7 positions kept, 3 fed, 5 ids"* ]]
	# an empty record continues where the sequence is; -e echoes the record
	ten=$(llm-gen -m "$GQA" -n 10 --temp 0 --ignore-eos <<<"1 2 3")
	run -0 llm-gen -m "$GQA" -s -e -n 5 --temp 0 --ignore-eos <<<$'1 2 3\n'
	[ "$output" = "1 2 3 $(cut -d' ' -f1-5 <<<"$ten")"$'\n'"$(cut -d' ' -f6-10 <<<"$ten")" ]
	run -1 --separate-stderr llm-gen -m "$GQA" -s -n 2 <<<$'\n1 2'
	[[ $stderr == *"empty prompt"* ]]
	run -1 --separate-stderr llm-gen -m "$GQA" -s --ctx 12 -n 4 --temp 0 --ignore-eos <<<$'1 2 3\n4 5 6\n7 8 9'
	[[ $stderr == *"record 3: session of"*context* ]]
}

@test "llm-gen: llama.cpp's spellings: -c and --ctx-size for --ctx, -n -1 and --n-predict, --temperature" {
	want=$(llm-gen -m "$GQA" --ctx 8 --temp 0 --ignore-eos <<<"1 2 3" 2>/dev/null)
	[ "$(wc -w <<<"$want")" -ge 5 ]
	for o in "-c 8" "--ctx-size 8" "-c 8 -n -1" "--ctx=8 --n-predict=-1"; do
		run -0 --separate-stderr llm-gen -m "$GQA" $o --temperature 0 --ignore-eos <<<"1 2 3"
		[ "$output" = "$want" ] || { echo "$o: $output"; false; }
	done
	# -n -1 overrides a generation_config.json max_new_tokens
	cp -R "$GQA" "$BATS_TEST_TMPDIR/g"
	echo '{"max_new_tokens": 2}' >"$BATS_TEST_TMPDIR/g/generation_config.json"
	run -0 llm-gen -m "$BATS_TEST_TMPDIR/g" -c 8 --temp 0 --ignore-eos <<<"1 2 3"
	[ "$(wc -w <<<"$output")" -eq 2 ]
	run -0 --separate-stderr llm-gen -m "$BATS_TEST_TMPDIR/g" -c 8 -n -1 --temp 0 --ignore-eos <<<"1 2 3"
	[ "$output" = "$want" ]
	run -2 --separate-stderr llm-gen -m "$GQA" -n -2
	[[ $stderr == *"invalid -n '-2'"* ]]
	# the other programs with a context
	for p in "llm-logits -f top" llm-score; do
		want=$($p -m "$GQA" --ctx 3 <<<"1 2 3")
		run -0 $p -m "$GQA" -c 3 <<<"1 2 3"
		[ "$output" = "$want" ] || { echo "$p: $output"; false; }
		run -0 $p -m "$GQA" --ctx-size 3 <<<"1 2 3"
		[ "$output" = "$want" ]
	done
	run -1 --separate-stderr llm-logits -m "$GQA" -c 2 <<<"1 2 3"
	[[ $stderr == *"context of 2"* ]]
}

@test "llm-gen: -s is --session here; llama.cpp's -s 42 is told where the seed goes" {
	run -1 --separate-stderr llm-gen -m "$GQA" -s 42 </dev/null
	[ "$stderr" = "llm-gen: 42: no such file (-s is --session here: the seed is --seed 42)" ]
	[ -z "$output" ]
	# a file named 42 is a file
	cd "$BATS_TEST_TMPDIR"
	echo "1 2" >42
	run -0 --separate-stderr llm-gen -m "$GQA" -s -n 1 --temp 0 42
	[ "$(wc -w <<<"$output")" -eq 1 ]
}

@test "llm-gen: -t past the CPUs and --ctx past max_position_embeddings are said, the ids the same" {
	local cpus
	cpus=$(getconf _NPROCESSORS_ONLN)
	want=$(llm-gen -m "$GQA" -n 4 --temp 0 -t 1 <<<"1 2 3")
	run -0 --separate-stderr llm-gen -m "$GQA" -n 4 --temp 0 -t "$((cpus + 1))" <<<"1 2 3"
	[ "$output" = "$want" ]
	[ "$stderr" = "llm-gen: $((cpus + 1)) threads on $cpus CPU$([ "$cpus" -eq 1 ] || echo s): slower than -t $cpus (the results are the same)" ]
	run -0 --separate-stderr llm-gen -m "$GQA" -n 4 --temp 0 -t "$cpus" <<<"1 2 3"
	[ -z "$stderr" ]
	run -0 --separate-stderr llm-gen -m "$GQA" -n 4 --temp 0 -t 1 --ctx 129 <<<"1 2 3"
	[ "$output" = "$want" ]
	[[ $stderr == "llm-gen: --ctx 129 is past the 128 positions the model was made for (max_position_embeddings)"* ]]
	run -0 --separate-stderr llm-gen -m "$GQA" -n 4 --temp 0 -t 1 --ctx 128 <<<"1 2 3"
	[ -z "$stderr" ]
	# and "1 thread"
	run -0 --separate-stderr llm-gen -v -m "$GQA" -n 1 -t 1 <<<"1 2 3"
	[[ $stderr == *", 1 thread, mode exact"* ]]
	run -0 --separate-stderr llm-gen --timing -m "$GQA" -n 1 -t 1 <<<"1 2 3"
	[[ $stderr == *", 1 thread, load "* ]]
}

@test "llm-gen: --kv-type bf16, f16 and q8_0: the KV cache gives what recomputing gives, threads agree, -v sizes it" {
	local t m got want seq id
	for t in bf16 f16 q8_0; do
		for m in "$GQA" "$F32B"; do
			got=$(llm-gen -m "$m" --kv-type "$t" -n 8 --temp 0 --ignore-eos <<<"3 1 4 1 5")
			seq="3 1 4 1 5" want=""
			for i in $(seq 8); do
				id=$(llm-logits -m "$m" --kv-type "$t" -f top --top 1 <<<"$seq")
				id=${id%%:*}
				seq="$seq $id" want="$want${want:+ }$id"
			done
			[ "$got" = "$want" ]
		done
		a=$(llm-gen -m "$F16" --kv-type "$t" -t 1 -n 20 --seed 5 --temp 0.9 <<<"1 2 3")
		b=$(llm-gen -m "$F16" --kv-type "$t" -t 2 -n 20 --seed 5 --temp 0.9 <<<"1 2 3")
		[ "$a" = "$b" ]
	done
	# the rounding is felt: bf16's logits are not f32's
	a=$(llm-logits -m "$GQA" -f text <<<"3 1 4 1 5 9 2 6" | md5sum)
	b=$(llm-logits -m "$GQA" --kv-type bf16 -f text <<<"3 1 4 1 5 9 2 6" | md5sum)
	[ "$a" != "$b" ]
	c=$(llm-logits -m "$GQA" --kv-type f32 -f text <<<"3 1 4 1 5 9 2 6" | md5sum)
	[ "$a" = "$c" ]
	# and q8_0's quantization: neither f32's nor bf16's; threads agree
	c=$(llm-logits -m "$GQA" --kv-type q8_0 -t 1 -f text <<<"3 1 4 1 5 9 2 6" | md5sum)
	[ "$a" != "$c" ] && [ "$b" != "$c" ]
	d=$(llm-logits -m "$GQA" --kv-type q8_0 -t 2 -f text <<<"3 1 4 1 5 9 2 6" | md5sum)
	[ "$c" = "$d" ]
	# GQA: 2 layers, K and V, 2 KV heads of 16: 512 bytes a position
	run -0 --separate-stderr llm-gen -v -m "$GQA" -n 1 <<<"1 2 3"
	[[ $stderr == *"context 128 positions (max_position_embeddings 128), KV cache f32: 64.0 KiB when full, 512 bytes a position"* ]]
	run -0 --separate-stderr llm-gen -v -m "$GQA" --kv-type f16 -c 64 -n 1 <<<"1 2 3"
	[[ $stderr == *"context 64 positions (max_position_embeddings 128), KV cache f16: 16.0 KiB when full, 256 bytes a position"* ]]
	# q8_0: heads of 16 padded to a block of 32, 34 bytes: 272 a position
	run -0 --separate-stderr llm-gen -v -m "$GQA" --kv-type q8_0 -c 64 -n 1 <<<"1 2 3"
	[[ $stderr == *"context 64 positions (max_position_embeddings 128), KV cache q8_0: 17.0 KiB when full, 272 bytes a position"* ]]
	run -2 --separate-stderr llm-gen -m "$GQA" --kv-type q4_0 <<<"1 2 3"
	[[ $stderr == *"invalid --kv-type 'q4_0' (f32, bf16, f16, q8_0)"* ]]
	run -2 --separate-stderr llm-logits -m "$GQA" --kv-type q8_0-ggml <<<"1 2 3"
	[[ $stderr == *"invalid --kv-type 'q8_0-ggml' (f32, bf16, f16, q8_0)"* ]]
}
