#!/usr/bin/env bats
# llm-text: the front end, on the built-in model.
load helpers

setup() {
	M=$BATS_TEST_DIRNAME/../share/pipelm/stories260K
	cd "$BATS_TEST_TMPDIR"
}

@test "llm-text: the prompt and its continuation, as the pipeline gives them" {
	want=$(printf 'Once upon a time' | tok-encode -m "$M" |
	    llm-gen -e -m "$M" -n 16 --temp 0 | tok-decode -m "$M" --skip-special)
	run -0 --separate-stderr llm-text -n 16 --temp 0 Once upon a time
	[ "$output" = "$want" ]
	[[ $output == "Once upon a time, there was a little girl named Lily"* ]]
	[ -z "$stderr" ]
	run -0 llm-text -n 16 --temp 0 -p 'Once upon a time'
	[ "$output" = "$want" ]
	run -0 sh -c "echo 'Once upon a time' | llm-text -n 16 --temp 0"
	[ "$output" = "$want" ]
	printf 'Once upon a time' >p.txt
	run -0 llm-text -n 16 --temp 0 -f p.txt
	[ "$output" = "$want" ]
}

@test "llm-text: --no-echo, -m, llama.cpp's names, sampling with a seed" {
	want=$(printf 'The dog' | tok-encode -m "$M" |
	    llm-gen -m "$M" -n 10 --temp 0.8 --seed 7 | tok-decode -m "$M" --skip-special)
	run -0 llm-text --no-echo -m "$M" -n 10 --temp 0.8 --seed 7 The dog
	[ "$output" = "$want" ]
	run -0 llm-text --no-echo --n-predict 10 --temperature 0.8 --seed 7 --prompt 'The dog'
	[ "$output" = "$want" ]
	run -0 llm-text --no-echo -c 64 --ctx-size 64 -n 10 --temp 0.8 --seed 7 The dog
	[ "$output" = "$want" ]
	# each alias takes effect, not only parses
	run -1 --separate-stderr llm-text --ctx-size 4 -n 2 'Once upon a time there was a dog'
	[[ $stderr == *"exceeds the context of 4"* ]]
	run -0 llm-text --no-echo --n-predict 3 --temp 0 The dog
	[ "$output" = "$(printf 'The dog' | tok-encode -m "$M" | llm-gen -m "$M" -n 3 --temp 0 | tok-decode -m "$M" --skip-special)" ]
	run -0 llm-text --no-echo -n 24 --temperature 0 --repeat-penalty 1.5 The dog
	[ "$output" != "$(llm-text --no-echo -n 24 --temp 0 The dog)" ]
	[ "$output" = "$(printf 'The dog' | tok-encode -m "$M" | llm-gen -m "$M" -n 24 --temp 0 --repeat-penalty 1.5 | tok-decode -m "$M" --skip-special)" ]
}

@test "llm-text: generation_config.json's defaults, as HuggingFace generate() reads them" {
	cp -R "$M" g
	greedy=$(llm-text -n 12 --temp 0 The dog)
	# the test can fail: this seed samples something else
	[ "$(llm-text -n 12 --seed 2 The dog)" != "$greedy" ]
	printf '{"bos_token_id": 1, "eos_token_id": 2, "do_sample": false, "temperature": 0.1}' >g/generation_config.json
	for s in 1 2 3; do
		run -0 llm-text -m g -n 12 --seed $s The dog
		[ "$output" = "$greedy" ]
	done
	# an option given wins
	run -0 llm-text -m g -n 12 --seed 2 --temp 1 The dog
	[ "$output" = "$(llm-text -n 12 --seed 2 The dog)" ]
	printf '{"bos_token_id": 1, "eos_token_id": 2, "do_sample": true, "temperature": 0.7, "top_k": 5, "max_new_tokens": 6}' >g/generation_config.json
	run -0 llm-text -m g --seed 4 The dog
	[ "$output" = "$(llm-text --temp 0.7 --top-k 5 -n 6 --seed 4 The dog)" ]
}

@test "llm-text: usage errors before anything runs" {
	run -2 --separate-stderr llm-text --temp abc x
	[[ $stderr == *"invalid --temp 'abc'"* ]]
	[ -z "$output" ]
	run -2 --separate-stderr llm-text -p x y
	[[ $stderr == *usage:* ]]
	run -2 --separate-stderr llm-text --bogus x
	run -1 --separate-stderr llm-text </dev/null
	[[ $stderr == *"empty prompt"* ]]
	run -1 --separate-stderr llm-text -m "$BATS_TEST_TMPDIR/none" x
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ $stderr == *none* ]]
	run -0 llm-text --help
	[[ $output == *--n-predict* ]]
	[[ $output == *--no-echo* ]]
}

@test "llm-text: a failing stage fails the command" {
	# a prompt longer than the context: llm-gen refuses it
	run -1 --separate-stderr llm-text --ctx 4 -n 2 'Once upon a time there was a dog'
	[[ $stderr == *context* ]]
}

@test "llm-text: a closed output pipe ends it quietly" {
	# SIGPIPE (141) when the text outgrows what the pipe had taken before
	# head left, 0 when it did not: either way, not a word on stderr
	run --separate-stderr bash -c 'llm-text -n 400 --ignore-eos --temp 0 Once | head -c 10; exit ${PIPESTATUS[0]}'
	[ "$status" -eq 141 ] || [ "$status" -eq 0 ]
	[ "$output" = "Once upon " ]
	[ -z "$stderr" ]
}
