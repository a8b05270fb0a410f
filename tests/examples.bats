#!/usr/bin/env bats
# examples/: each script runs as it is on the built-in stories260K model.
load helpers

setup() {
	M=$BATS_TEST_DIRNAME/../share/pipelm/stories260K
	EX=$BATS_TEST_DIRNAME/../examples
}

@test "examples: generate.sh tells the story" {
	run -0 --separate-stderr "$EX/generate.sh" "$M"
	[[ $output == ", there was a little girl named Lily"* ]]
}

@test "examples: loop.sh gives what llm-gen gives" {
	run -0 --separate-stderr "$EX/loop.sh" "$M" "Tim"
	want=$(echo Tim | tok-encode -m "$M" | llm-gen -m "$M" -n 32 --seed 7 --temp 0.8 | tok-decode -m "$M")
	[ "$output" = "$want" ]
}

@test "examples: batch.sh writes one continuation per prompt" {
	run -0 --separate-stderr "$EX/batch.sh" "$M" <<-EOF
	Once upon a time
	The dog
	Lily
	EOF
	[ "${#lines[@]}" -eq 3 ]
	alone=$(echo 'The dog' | tok-encode -m "$M" | llm-gen -m "$M" -n 32 --temp 0 | tok-decode -m "$M")
	printf '%s\n' "${lines[@]}" | grep -Fxq -- "$alone"
}
