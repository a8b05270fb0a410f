#!/usr/bin/env bats
# --keep-going, the same in every program that runs a batch of records
# (lib/stream/batch.h): a bad record is said with its number, its output
# record left empty, the next ones run, and the count of failures ends
# the run with status 1.  Without it the first bad record ends the run.
load helpers

setup() {
	M=$BATS_TEST_DIRNAME/../share/pipelm/stories260K
	T=$BATS_TEST_TMPDIR
	long=$(printf '5 %.0s' $(seq 600))
	# 1 and 6 good; 2 empty, 3 malformed, 4 an id outside the vocabulary
	# (512), 5 longer than the context (512)
	printf '1 403 407\n\n1 x 3\n1 900 2\n%s\n1 285 280\n' "$long" >"$T/in"
}

# alone PROG ARG ...: PROG's output for records 1 and 6 of $T/in, each
# run alone.
alone() {
	sed -n 1p "$T/in" | "$@"
	sed -n 6p "$T/in" | "$@"
}

# Check $output and $stderr of a run over $T/in: records $1 failed (said
# with their numbers), of 6; the output lines of the failed ones empty,
# the others equal to $T/want's lines.
kept() {
	local i n=0
	for i in $1; do
		[[ $stderr == *"<stdin>: record $i"* ]]
		n=$((n + 1))
	done
	[[ $stderr == *"$n of 6 records failed"* ]]
	[ "${#lines[@]}" -eq 6 ] || [ "$(printf '%s\n' "$output" | wc -l)" -eq 6 ]
	n=1
	for i in 1 2 3 4 5 6; do
		if [[ " $1 " == *" $i "* ]]; then
			[ -z "$(printf '%s\n' "$output" | sed -n ${i}p)" ]
		else
			[ "$(printf '%s\n' "$output" | sed -n ${i}p)" = "$(sed -n ${n}p "$T/want")" ]
			n=$((n + 1))
		fi
	done
}

@test "batch: llm-gen -k generates every good prompt, an empty record for each bad one" {
	alone llm-gen -m "$M" -n 4 --temp 0 >"$T/want"
	run -1 --separate-stderr llm-gen -m "$M" -n 4 --temp 0 --keep-going <"$T/in"
	kept "2 3 4 5"
	[[ $stderr == *"record 2: empty prompt"* ]]
	[[ $stderr == *"record 3: invalid character 'x'"* ]]
	[[ $stderr == *"record 4: token id 900 not in the vocabulary"* ]]
	[[ $stderr == *"record 5: prompt of 600 tokens exceeds the context"* ]]
	# without it, the first bad record ends the run
	run -1 --separate-stderr llm-gen -m "$M" -n 4 --temp 0 <"$T/in"
	[ "$output" = "$(sed -n 1p "$T/want")" ]
	[[ $stderr != *"records failed"* ]]
	# all good: no count, status 0
	run -0 --separate-stderr llm-gen -k -m "$M" -n 4 --temp 0 <<<"1 403 407"
	[ -z "$stderr" ]
}

@test "batch: llm-gen -k in u32 framing: a count of 0 for the bad record" {
	u32() { printf "$(printf '\\x%02x\\x%02x\\x00\\x00' $(($1 % 256)) $(($1 / 256)))"; }
	{ u32 3; u32 1; u32 403; u32 407; u32 2; u32 1; u32 900; u32 2; u32 1; u32 285; } >"$T/u"
	llm-gen -m "$M" -n 3 --temp 0 --ids=u32 -k <"$T/u" >"$T/out" 2>"$T/err" && false
	grep -q 'record 2: token id 900' "$T/err"
	grep -q '1 of 3 records failed' "$T/err"
	# 4 + 12, 4, 4 + 12 bytes
	[ "$(wc -c <"$T/out")" -eq 36 ]
	[ "$(od -An -tu4 -j16 -N4 "$T/out" | tr -d ' ')" = 0 ]
}

@test "batch: llm-logits -k, an empty line a bad record in text and top frames, none in bin and npy" {
	alone llm-logits -m "$M" -f top --top 3 >"$T/want"
	run -1 --separate-stderr llm-logits -m "$M" -f top --top 3 -k <"$T/in"
	kept "2 3 4 5"
	[[ $stderr == *"record 2 is empty"* ]]
	[[ $stderr == *"record 5: sequence of 600 positions exceeds the context"* ]]
	run -1 --separate-stderr llm-logits -m "$M" -f top --top 3 <"$T/in"
	[ "$output" = "$(sed -n 1p "$T/want")" ]
	# -o: with -k the file is written, the good records' frames in it
	alone llm-logits -m "$M" -f bin >"$T/bin"
	run -1 llm-logits -m "$M" -k -o "$T/k.bin" <"$T/in"
	[ "$(wc -c <"$T/k.bin")" -eq $((2 * (32 + 4 * 512))) ]
	# the records' numbers in the headers: 1 and 6
	[ "$(od -An -tu4 -j12 -N4 "$T/k.bin" | tr -d ' ')" = 1 ]
	[ "$(od -An -tu4 -j$((32 + 2048 + 12)) -N4 "$T/k.bin" | tr -d ' ')" = 6 ]
	run -1 llm-logits -m "$M" -o "$T/nok.bin" <"$T/in"
	[ ! -e "$T/nok.bin" ]
}

@test "batch: llm-score -k, an empty line a bad record; never 0 0 nan" {
	printf '1 403 407\n\n1 x 3\n1 900 2\n7\n1 285 280\n' >"$T/in"
	alone llm-score -m "$M" >"$T/want"
	run -1 --separate-stderr llm-score -m "$M" -k <"$T/in"
	kept "2 3 4 5"
	[[ $stderr == *"record 2 is empty: no token to score"* ]]
	[[ $stderr == *"record 5: 1 token, none to score"* ]]
	[[ $output != *nan* ]]
	run -1 --separate-stderr llm-score -m "$M" <<<""
	[ -z "$output" ]
	[[ $stderr == *"record 1 is empty"* ]]
	run -1 --separate-stderr llm-score -m "$M" --from 3 <<<"1 403 407"
	[ -z "$output" ]
	[[ $stderr == *"3 tokens, none to score (--from 3)"* ]]
	# --per-token: no line for a bad record
	run -1 --separate-stderr llm-score -m "$M" -k --per-token <"$T/in"
	[ "${#lines[@]}" -eq 4 ]
	[[ ${lines[3]} == "6	"* ]]
}

@test "batch: tok-decode -k ends a bad record at the bad id and goes on" {
	printf '1 403 407\n403 9999 407\n\n1 x 3\n403 407\n' >"$T/in"
	run -1 --separate-stderr tok-decode -m "$M" -k <"$T/in"
	[ "$output" = "$(printf '<s> Once upon\nOnce\n\n<s>\nOnce upon')" ]
	[[ $stderr == *"record 2: token id 9999 not in the vocabulary"* ]]
	[[ $stderr == *"record 4: invalid character 'x'"* ]]
	[[ $stderr == *"2 of 5 records failed"* ]]
	run -1 --separate-stderr tok-decode -m "$M" <"$T/in"
	[ "$output" = "$(printf '<s> Once upon\nOnce')" ]
}

@test "batch: every batch program documents -k, --keep-going" {
	for p in tok-encode tok-decode llm-logits llm-gen llm-score; do
		run -0 "$p" --help
		[[ $output == *"-k, --keep-going"* ]]
		grep -q 'keep\\-going' "$BATS_TEST_DIRNAME/../man/$p.1"
	done
	grep -q 'keep\\-going' "$BATS_TEST_DIRNAME/../man/pipelm-formats.5"
}
