#!/usr/bin/env bats
# examples/: each script runs as it is on the built-in stories260K model.
load helpers

setup() {
	M=$BATS_TEST_DIRNAME/../share/pipelm/stories260K
	EX=$BATS_TEST_DIRNAME/../examples
	cd "$BATS_TEST_TMPDIR"
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

@test "examples: the scripts find the programs in ../bin without PATH" {
	run -0 --separate-stderr env -i PATH=/usr/bin:/bin HOME="$BATS_TEST_TMPDIR" sh "$EX/generate.sh"
	[[ $output == ", there was a little girl named Lily"* ]]
}

@test "examples: batch.sh labels results in input order, reports and counts failures" {
	long=$(printf 'a %.0s' $(seq 600))
	run -1 --separate-stderr "$EX/batch.sh" -n 8 "$M" <<-EOF
	Once upon a time

	The dog
	$long
	Lily
	EOF
	[ "${#lines[@]}" -eq 3 ]
	[ "${lines[0]}" = "$(printf '1\t')$(printf 'Once upon a time' | tok-encode -m "$M" | llm-gen -m "$M" -n 8 --temp 0 | tok-decode -m "$M")" ]
	[[ ${lines[1]} == "3	"* ]]
	[[ ${lines[2]} == "5	"* ]]
	[[ $stderr == *"prompt 2: llm-text: empty prompt"* ]]
	[[ $stderr == *"prompt 4: llm-gen: <stdin>: record 1: prompt of 602 tokens exceeds the context"* ]]
	[[ $stderr == *"2 of 5 prompts failed"* ]]
	[[ $stderr != *"seed "* ]]
}

@test "examples: batch.sh shows records done and tokens/s on a terminal" {
	need_tty
	printf 'Once upon a time\nThe dog\n' >p.txt
	run -0 script -qec "sh '$EX/batch.sh' -n 4 '$M' <p.txt >out.txt" /dev/null
	[[ $output == *"2/2 records"*"tokens/s"* ]]
	[ "$(wc -l <out.txt)" -eq 2 ]
}

@test "examples: parallel.sh over two hosts (a local stand-in for ssh)" {
	need_cmd parallel
	cat >ssh <<-'EOF'
	#!/bin/sh
	# ssh HOST [--] COMMAND: run COMMAND here, noting the host
	while [ $# -gt 0 ]; do case $1 in -[oplF]) shift 2 ;; -*) shift ;; *) break ;; esac; done
	echo "$1" >>hosts.log
	shift
	[ "${1:-}" = -- ] && shift
	exec sh -c "$*"
	EOF
	chmod +x ssh
	printf 'Once upon a time\n\nThe dog\nLily\n' >p.txt
	PARALLEL_SSH=$PWD/ssh run -1 --separate-stderr "$EX/parallel.sh" -S 1/h1,1/h2 -j 2 -n 6 "$M" <p.txt
	[ "${#lines[@]}" -eq 3 ]
	[ "${lines[0]}" = "$(printf '1\t')$(printf 'Once upon a time' | tok-encode -m "$M" | llm-gen -m "$M" -n 6 --temp 0 | tok-decode -m "$M")" ]
	[[ ${lines[1]} == "3	"* ]]
	[[ ${lines[2]} == "4	"* ]]
	[[ $stderr == *"prompt 2 failed on h"* ]]
	[[ $stderr == *"1 of 4 prompts failed"* ]]
	grep -qx h1 hosts.log
	grep -qx h2 hosts.log
}
