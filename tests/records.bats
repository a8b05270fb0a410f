#!/usr/bin/env bats
# The text framing of token records, as every reader takes it: the same
# odd input gives the same ids, or the same error, in tok-decode,
# llm-logits and llm-gen (one tokenizer of the text, rec_lex; see
# pipelm-formats(5)).
load helpers

setup_file() {
	export M=$BATS_FILE_TMPDIR/m
	"$TOOLS/mkmodel" -s 1 --dtype f32 --hidden 32 --layers 1 --heads 2 \
	    --kv-heads 1 --inter 48 --vocab 300 --ctx 64 "$M" >/dev/null
}

# readers INPUT: every reader's output for printf INPUT, one line each
readers() {
	printf -- "$1" | tok-decode -m "$M" --pieces &&
	printf -- "$1" | llm-logits -m "$M" -f top --top 2 &&
	printf -- "$1" | llm-gen -m "$M" -n 2 --temp 0 -e
}

@test "records: blanks, tabs and CRLF line ends read as single spaces" {
	run -0 readers '5 17 42\n'
	want=$output
	for odd in '5\t17 42\r\n' '  5   17\t\t42  \n' '5 17 42' '5 17 42\r' \
	    '5 17 42\r\n' '005 17 042\n'; do
		run -0 readers "$odd"
		[ "$output" = "$want" ] || { echo "input '$odd': $output"; false; }
	done
}

@test "records: the same bad input is the same error in every reader" {
	for bad in '5\r17\n' '5,17\n' '-5\n' '5 17\n\001\n' '2147483648\n' \
	    '5 0x11\n' '5\r \n' '5\f17\n'; do
		msg=
		for p in "tok-decode -m $M" "llm-logits -m $M -f top" \
		    "llm-gen -m $M -n 1 --temp 0"; do
			run -1 --separate-stderr bash -c "printf -- '$bad' | $p"
			got=${stderr#*: }
			[ -n "$got" ]
			[ -z "$msg" ] || [ "$got" = "$msg" ] ||
				{ echo "input '$bad': $p: '$got' vs '$msg'"; false; }
			msg=$got
		done
		[[ $msg == "<stdin>: record "* ]]
	done
}

@test "records: the error names the file and the record" {
	printf '1 2\n3 x\n' >"$BATS_TEST_TMPDIR/r"
	for p in "tok-decode -m $M" "llm-logits -m $M -f top" "llm-gen -m $M -n 1"; do
		run -1 --separate-stderr $p "$BATS_TEST_TMPDIR/r"
		[[ $stderr == *"$BATS_TEST_TMPDIR/r: record 2: invalid character 'x' in token ids"* ]]
		# text given where ids are read: the programs that make ids
		# and take text are named
		[[ $stderr == *"(text? tok-encode makes ids of it; llm-text takes text)" ]]
	done
	printf '1 2\n3 ,\n' >"$BATS_TEST_TMPDIR/r"
	run -1 --separate-stderr llm-gen -m "$M" -n 1 "$BATS_TEST_TMPDIR/r"
	[[ $stderr == *"record 2: invalid character ',' in token ids" ]]
}

@test "records: u32 framing refuses the same counts and truncations everywhere" {
	for bad in '\001\000\000\020' '\002\000\000\000\001\000\000\000' \
	    '\001\000\000\000\000\000\000\200' '\001\000'; do
		msg=
		for p in "tok-decode -m $M --ids=u32" "llm-logits -m $M -f top --ids=u32" \
		    "llm-gen -m $M -n 1 --temp 0 --ids=u32"; do
			run -1 --separate-stderr bash -c "printf -- '$bad' | $p"
			got=${stderr#*: }
			[ -z "$msg" ] || [ "$got" = "$msg" ] ||
				{ echo "input '$bad': $p: '$got' vs '$msg'"; false; }
			msg=$got
		done
	done
}

@test "records: --ids takes text or u32, with one message in every program" {
	for p in tok-encode tok-decode llm-logits llm-gen llm-sample; do
		run -2 --separate-stderr $p --ids=u16
		[ "$stderr" = "$p: invalid --ids 'u16' (text or u32)" ]
	done
}
