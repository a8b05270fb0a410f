#!/usr/bin/env bats
# llm-sample: logits frames in, one id per frame out.
load helpers

# A little-endian u32.
le32() {
	local v=$(($1))
	printf "\\x$(printf %02x $((v & 255)))\\x$(printf %02x $((v >> 8 & 255)))"
	printf "\\x$(printf %02x $((v >> 16 & 255)))\\x$(printf %02x $((v >> 24 & 255)))"
}

# A binary frame: binframe VOCAB HEX... with each logit's float32 bits in
# hex (1.0 = 0x3f800000, 2.0 = 0x40000000, 3.0 = 0x40400000, 0 = 0).
binframe() {
	local v=$1 h
	shift
	printf 'PLGT\001\000\000\000'
	le32 "$v"; le32 7; le32 3; le32 42; le32 0; le32 0
	for h; do le32 "$h"; done
}

@test "llm-sample: usage, help and version" {
	run -2 --separate-stderr llm-sample --bogus
	[[ $stderr == *usage:* ]]
	[ -z "$output" ]
	run -0 --separate-stderr llm-sample -h
	[[ $output == usage:* ]]
	run -0 --separate-stderr llm-sample --version
	[[ $output == *pipelm* ]]
}

@test "llm-sample: bad option values are usage errors" {
	run -2 --separate-stderr llm-sample --temp -1
	[[ $stderr == *--temp* ]]
	run -2 --separate-stderr llm-sample --top-p 0
	[[ $stderr == *top-p* ]]
	run -2 --separate-stderr llm-sample --top-k x
	run -2 --separate-stderr llm-sample --min-p 1.5
	run -2 --separate-stderr llm-sample --repeat-last-n -2
	run -2 --separate-stderr llm-sample --seed -1
	run -2 --separate-stderr llm-sample --ids=u16
	run -2 --separate-stderr llm-sample -n -2
}

@test "llm-sample: a missing file is named" {
	run -1 --separate-stderr llm-sample "$BATS_TEST_TMPDIR/nope"
	[[ $stderr == *nope* ]]
	[ -z "$output" ]
}

@test "llm-sample: file operands in turn, each with its own format, a missing one skipped" {
	printf '0 5 1 0\n' >"$BATS_TEST_TMPDIR/t"
	binframe 4 0 0 0 0x3f800000 >"$BATS_TEST_TMPDIR/b"
	run -1 --separate-stderr llm-sample --temp 0 "$BATS_TEST_TMPDIR/t" \
	    "$BATS_TEST_TMPDIR/nope" "$BATS_TEST_TMPDIR/b" - </dev/null
	[ "$output" = "$(printf '1\n3')" ]
	[[ $stderr == *"llm-sample: $BATS_TEST_TMPDIR/nope: No such file"* ]]
	printf '1 2\n' >"$BATS_TEST_TMPDIR/v"
	run -1 --separate-stderr llm-sample --temp 0 "$BATS_TEST_TMPDIR/t" "$BATS_TEST_TMPDIR/v"
	[[ $stderr == *vocab* ]]
}

@test "llm-sample: greedy on text frames: argmax, lowest id on ties" {
	run -0 --separate-stderr llm-sample --temp 0 <<-EOF
	1 2 3 2
	0 0 9 0
	5 1 1 1
	-1 -1 -2 -3
	0.5 0.25 0.5000001 0.5
	EOF
	[ "$output" = "$(printf '2\n2\n0\n0\n2')" ]
	[ -z "$stderr" ]
}

@test "llm-sample: stdin, - and a file give the same ids" {
	printf '1 2 3\n3 2 1\n0 1 0\n' > "$BATS_TEST_TMPDIR/f"
	run -0 llm-sample --seed 5 --temp 1 "$BATS_TEST_TMPDIR/f"
	a=$output
	run -0 llm-sample --seed 5 --temp 1 - < "$BATS_TEST_TMPDIR/f"
	[ "$output" = "$a" ]
	run -0 llm-sample --seed 5 --temp 1 < "$BATS_TEST_TMPDIR/f"
	[ "$output" = "$a" ]
}

@test "llm-sample: binary frames, told apart from text by the magic" {
	{
		binframe 4 0x3f800000 0x40400000 0x40000000 0
		binframe 4 0 0 0 0x3f800000
	} > "$BATS_TEST_TMPDIR/b"
	run -0 --separate-stderr llm-sample --temp 0 "$BATS_TEST_TMPDIR/b"
	[ "$output" = "$(printf '1\n3')" ]
}

@test "llm-sample: the random stream is the one the man page specifies" {
	# seed 7: xoshiro256** seeded by splitmix64 draws u = 0.7006, 0.2788,
	# 0.8396; on two equal logits id 1 is picked when u >= 0.5.
	run -0 llm-sample --seed 7 <<-EOF
	0 0
	0 0
	0 0
	EOF
	[ "$output" = "$(printf '1\n0\n1')" ]
	# one draw per id at temperature 0 as well: the stream stays in step
	run -0 llm-sample --seed 7 <<-EOF
	5 0
	0 0
	0 0
	EOF
	[ "$output" = "$(printf '0\n0\n1')" ]
}

@test "llm-sample: seeded runs are reproducible, seeds differ" {
	for i in $(seq 40); do echo '0 0.1 0.2 0.3 0.4 0.5 0.6 0.7'; done > "$BATS_TEST_TMPDIR/f"
	run -0 llm-sample --seed 11 --temp 0.9 --top-k 6 --top-p 0.9 "$BATS_TEST_TMPDIR/f"
	a=$output
	[ "$(wc -l <<< "$a")" -eq 40 ]
	run -0 llm-sample --seed 11 --temp 0.9 --top-k 6 --top-p 0.9 "$BATS_TEST_TMPDIR/f"
	[ "$output" = "$a" ]
	run -0 llm-sample --seed 12 --temp 0.9 --top-k 6 --top-p 0.9 "$BATS_TEST_TMPDIR/f"
	[ "$output" != "$a" ]
	# top-k 6 never picks ids 0 and 1
	! grep -qx '[01]' <<< "$a"
}

@test "llm-sample: -v prints the seed drawn from the system, and it replays" {
	printf '1 2 3 4 5 6 7 8\n%.0s' {1..30} >"$BATS_TEST_TMPDIR/f"
	# 16 drawn seeds: about half are above 2^63-1, which --seed must take
	for i in {1..16}; do
		run -0 --separate-stderr llm-sample -v "$BATS_TEST_TMPDIR/f"
		[[ $stderr =~ seed\ ([0-9]+) ]]
		s=${BASH_REMATCH[1]}
		a=$output
		run -0 llm-sample --seed "$s" "$BATS_TEST_TMPDIR/f"
		[ "$output" = "$a" ]
	done
	run -0 llm-sample --seed 18446744073709551615 "$BATS_TEST_TMPDIR/f"
	run -2 --separate-stderr llm-sample --seed 18446744073709551616
	[[ $stderr == *"--seed '18446744073709551616': too large"* ]]
	run -2 --separate-stderr llm-sample --seed -1
	run -2 --separate-stderr llm-sample --seed ' 1'
}

@test "llm-sample: repetition penalty over the ids it has written" {
	# 2 / 2 < 1.9, and 1.9 / 2 < 1
	printf '2 1.9 0\n2 1.9 0\n2 1.9 0\n2 1.9 0\n' > "$BATS_TEST_TMPDIR/f"
	run -0 llm-sample --temp 0 "$BATS_TEST_TMPDIR/f"
	[ "$(echo $output)" = "0 0 0 0" ]
	run -0 llm-sample --temp 0 --repeat-penalty 2 "$BATS_TEST_TMPDIR/f"
	[ "$(echo $output)" = "0 1 0 0" ]
	run -0 llm-sample --temp 0 --repeat-penalty 2 --repeat-last-n 1 "$BATS_TEST_TMPDIR/f"
	[ "$(echo $output)" = "0 1 0 1" ]
	run -0 llm-sample --temp 0 --repeat-penalty 2 --repeat-last-n 0 "$BATS_TEST_TMPDIR/f"
	[ "$(echo $output)" = "0 0 0 0" ]
}

@test "llm-sample: -n and --stop end the stream after that id" {
	printf '1 2 3\n3 2 1\n1 3 2\n3 2 1\n' > "$BATS_TEST_TMPDIR/f"
	run -0 llm-sample --temp 0 -n 2 "$BATS_TEST_TMPDIR/f"
	[ "$output" = "$(printf '2\n0')" ]
	run -0 llm-sample --temp 0 -n 0 "$BATS_TEST_TMPDIR/f"
	[ -z "$output" ]
	run -0 llm-sample --temp 0 --stop 7 --stop 1 "$BATS_TEST_TMPDIR/f"
	[ "$output" = "$(printf '2\n0\n1')" ]
	run -0 --separate-stderr llm-sample -v --temp 0 --stop 0 "$BATS_TEST_TMPDIR/f"
	[ "$output" = "$(printf '2\n0')" ]
	[[ $stderr == *"stop (stop id) after 2 ids"* ]]
}

@test "llm-sample: the model's EOS ids stop it unless --ignore-eos" {
	m=$BATS_TEST_DIRNAME/../share/pipelm/stories260K	# eos_token_id 2, 512 tokens
	# three frames 512 wide, the largest logit at 3, then 2, then 0
	awk 'BEGIN { split("3 2 0", w); for (f = 1; f <= 3; f++) {
		for (i = 0; i < 512; i++) printf "%s%d", i ? " " : "", i == w[f]; print "" } }' \
	    > "$BATS_TEST_TMPDIR/f"
	run -0 llm-sample -m "$m" --temp 0 "$BATS_TEST_TMPDIR/f"
	[ "$output" = "$(printf '3\n2')" ]
	run -0 llm-sample -m "$m" --temp 0 --ignore-eos "$BATS_TEST_TMPDIR/f"
	[ "$output" = "$(printf '3\n2\n0')" ]
	PIPELM_MODEL=$m run -0 llm-sample --temp 0 "$BATS_TEST_TMPDIR/f"
	[ "$output" = "$(printf '3\n2')" ]
	run -1 --separate-stderr llm-sample -m "$BATS_TEST_TMPDIR/nomodel" "$BATS_TEST_TMPDIR/f"
	[[ $stderr == *nomodel* ]]
	# a GGUF file's (its metadata's eos id, its vocabulary's width)
	"$TOOLS/mkgguf" "$m" "$BATS_TEST_TMPDIR/s.gguf"
	run -0 llm-sample -m "$BATS_TEST_TMPDIR/s.gguf" --temp 0 "$BATS_TEST_TMPDIR/f"
	[ "$output" = "$(printf '3\n2')" ]
	printf '0 1 0\n' >"$BATS_TEST_TMPDIR/narrow"
	run -1 --separate-stderr llm-sample -m "$BATS_TEST_TMPDIR/s.gguf" "$BATS_TEST_TMPDIR/narrow"
	[[ $stderr == *"narrow: frame 1: 3 logits, the model has 512 tokens"* ]]
}

@test "llm-sample: frames as wide as the named model's vocabulary, else an error" {
	m=$BATS_TEST_DIRNAME/../share/pipelm/stories260K	# 512 tokens
	# 1000 logits, the largest at 900: not a token of the model
	awk 'BEGIN { for (i = 0; i < 1000; i++) printf "%s%d", i ? " " : "", i == 900; print "" }' \
	    > "$BATS_TEST_TMPDIR/wide"
	run -0 llm-sample --temp 0 "$BATS_TEST_TMPDIR/wide"
	[ "$output" = 900 ]
	run -1 --separate-stderr llm-sample -m "$m" --temp 0 "$BATS_TEST_TMPDIR/wide"
	[ -z "$output" ]
	[[ $stderr == *"wide: frame 1: 1000 logits, the model has 512 tokens"* ]]
	printf '0 1 0\n' > "$BATS_TEST_TMPDIR/narrow"
	PIPELM_MODEL=$m run -1 --separate-stderr llm-sample --temp 0 "$BATS_TEST_TMPDIR/narrow"
	[[ $stderr == *"narrow: frame 1: 3 logits, the model has 512 tokens"* ]]
}

@test "llm-sample: --ids=u32 writes binary records" {
	run -0 bash -c "printf '1 2 3\n' | llm-sample --temp 0 --ids=u32 | od -An -tu4"
	[ "$(echo $output)" = "1 2" ]
}

@test "llm-sample: malformed frames are errors that say what is wrong" {
	run -1 --separate-stderr llm-sample <<< 'hello'
	[[ $stderr == *"bad magic"* ]]
	run -1 --separate-stderr llm-sample --temp 0 <<< $'1 2 3\n1 2'
	[ "$output" = 2 ]
	[[ $stderr == *"frame 2: vocab changed from 3 to 2"* ]]
	run -1 --separate-stderr llm-sample <<< '1 nan 3'
	[[ $stderr == *"frame 1: id 1: logit not finite"* ]]
	run -1 --separate-stderr llm-sample <<< '1 x 3'
	[[ $stderr == *"not a number"* ]]
	run -1 --separate-stderr llm-sample < <(printf '1 2 3')
	[[ $stderr == *truncated* ]]

	binframe 2 0 0x3f800000 > "$BATS_TEST_TMPDIR/b"
	head -c 39 "$BATS_TEST_TMPDIR/b" > "$BATS_TEST_TMPDIR/t"
	run -1 --separate-stderr llm-sample "$BATS_TEST_TMPDIR/t"
	[[ $stderr == *"$BATS_TEST_TMPDIR/t: frame 1: truncated"* ]]
	{ cat "$BATS_TEST_TMPDIR/b"; printf 'PLGX'; head -c 36 /dev/zero; } > "$BATS_TEST_TMPDIR/t"
	run -1 --separate-stderr llm-sample --temp 0 "$BATS_TEST_TMPDIR/t"
	[ "$output" = 1 ]
	[[ $stderr == *"frame 2: bad magic"* ]]
	{ cat "$BATS_TEST_TMPDIR/b"; binframe 3 0 0 0; } > "$BATS_TEST_TMPDIR/t"
	run -1 --separate-stderr llm-sample "$BATS_TEST_TMPDIR/t"
	[[ $stderr == *"vocab changed from 2 to 3"* ]]
	binframe 2 0x7fc00000 0 > "$BATS_TEST_TMPDIR/t"
	run -1 --separate-stderr llm-sample "$BATS_TEST_TMPDIR/t"
	[[ $stderr == *"id 0: logit not finite"* ]]
}

@test "llm-sample: empty input gives no ids" {
	run -0 --separate-stderr llm-sample < /dev/null
	[ -z "$output" ]
	[ -z "$stderr" ]
}

@test "llm-sample: a feedback loop through a FIFO (ids flushed, no read-ahead)" {
	need_cmd timeout
	cd "$BATS_TEST_TMPDIR"
	mkfifo loop
	# a stand-in for llm-logits -s: each id record yields a frame whose
	# argmax is id + 1 (mod 8), flushed at once
	run -0 timeout 60 bash -c 'echo 0 | cat - loop |
	    while read -r id; do
		f=; for i in 0 1 2 3 4 5 6 7; do f+="$(( i == (id + 1) % 8 )) "; done
		echo "$f"
	    done | llm-sample --temp 0 -n 10 | tee loop'
	[ "$(echo $output)" = "1 2 3 4 5 6 7 0 1 2" ]
}

@test "llm-sample: a closed pipe downstream ends it quietly" {
	cd "$BATS_TEST_TMPDIR"
	run -0 bash -c 'yes "1 2 3" | llm-sample 2>err | head -c1 >out; echo "${PIPESTATUS[1]}"'
	[ "$output" = 141 ]
	[ "$(cat out)" = 2 ] || [ "$(cat out)" = 1 ] || [ "$(cat out)" = 0 ]
	[ ! -s err ]
}

@test "llm-sample: the FIFO loop with llm-logits -s gives the golden greedy ids" {
	need_shared
	command -v llm-logits >/dev/null || skip "llm-logits not built"
	need_cmd timeout
	cd "$BATS_TEST_TMPDIR"
	mkfifo loop
	m=$SHARED/models/stories260K
	# golden/generate: greedy continuations from a float32 reference
	grep -o '"prompt_ids": *\[[0-9, ]*\]' "$SHARED/golden/generate/stories260K.jsonl" |
	    sed 's/.*\[//; s/\]//; s/,/ /g; s/  */ /g' > prompts
	grep -o '"greedy_ids": *\[[0-9, ]*\]' "$SHARED/golden/generate/stories260K.jsonl" |
	    sed 's/.*\[//; s/\]//; s/,/ /g; s/  */ /g' > gold
	[ -s prompts ] && [ "$(wc -l < prompts)" -eq "$(wc -l < gold)" ]
	while read -r p <&3 && read -r g <&4; do
		run -0 timeout 120 bash -c "echo '$p' | cat - loop |
		    llm-logits -s -t 1 -m '$m' | llm-sample --temp 0 -n 64 --ignore-eos | tee loop"
		[ "$(echo $output)" = "$g" ]
	done 3< prompts 4< gold
}

@test "llm-sample: --stop-text stops the llm-logits -s loop where llm-gen --stop-text stops" {
	M=$BATS_TEST_DIRNAME/../share/pipelm/stories260K
	want=$(tok-encode -m "$M" -e 'Once upon a time' | llm-gen -m "$M" -n 40 --temp 0 --stop-text Lily)
	[[ $(tok-decode -m "$M" <<<"$want") == *Lily ]]
	cd "$BATS_TEST_TMPDIR"
	mkfifo loop
	run -0 --separate-stderr timeout 60 bash -c "tok-encode -m '$M' -e 'Once upon a time' | cat - loop |
	    llm-logits -m '$M' -s | llm-sample -v -m '$M' -n 40 --temp 0 --stop-text Lily | tee loop"
	[ "$(echo $output)" = "$want" ]
	[[ $stderr == *'stop (text "Lily") after'* ]]
	run -2 --separate-stderr env -u PIPELM_MODEL llm-sample --stop-text Lily </dev/null
	[[ $stderr == *"needs the model's tokenizer"* ]]
}

@test "llm-sample: a top-k list (llm-logits -f top) is refused with what to give instead" {
	run -1 --separate-stderr sh -c "printf '3:1.5 0:0.25\n' | llm-sample"
	[ "$stderr" = "llm-sample: <stdin>: frame 1: id:logit pairs are a top-k list (llm-logits -f top), not a frame of every logit: use -f bin or -f text" ]
	[ -z "$output" ]
}
