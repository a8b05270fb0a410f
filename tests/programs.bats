#!/usr/bin/env bats
# What every program does alike: --help and --version to stdout, and a
# failed write of them an error; a full disk stops a run with a message;
# PIPELM_THREADS is checked as -t is; one fault, one message.
load helpers

# every C program of cmd/ (a new one is checked without an edit here)
PROGS=$(cd "$BATS_TEST_DIRNAME/../cmd" && for f in *.c; do printf '%s ' "${f%.c}"; done)

setup_file() {
	export M=$BATS_FILE_TMPDIR/m
	"$TOOLS/mkmodel" -s 1 --dtype f32 --hidden 32 --layers 1 --heads 2 \
	    --kv-heads 1 --inter 48 --vocab 300 --ctx 64 "$M" >/dev/null
}

need_full() {
	[ -w /dev/full ] || skip "no /dev/full here"
}

@test "programs: --help and --version go to stdout with status 0, a failed write is status 1" {
	need_full
	[[ " $PROGS " == *" tok-encode "* && " $PROGS " == *" llm-gen "* ]]
	for p in $PROGS; do
		run -0 --separate-stderr $p --help
		[[ $output == usage:* ]] && [ -z "$stderr" ]
		run -0 --separate-stderr $p --version
		[[ $output == *pipelm* ]] && [ -z "$stderr" ]
		for o in --help --version; do
			run -1 --separate-stderr bash -c "$p $o >/dev/full"
			[ "$stderr" = "$p: <stdout>: write error: No space left on device" ] ||
				{ echo "$p $o: $stderr"; false; }
		done
	done
}

@test "programs: a full disk stops every program with a message and status 1" {
	need_full
	printf '1 2 3\n' >"$BATS_TEST_TMPDIR/ids"
	printf '0 1 2\n' >"$BATS_TEST_TMPDIR/frames"
	for c in "tok-encode -m $M <<<hello" "tok-decode -m $M <ids" \
	    "llm-logits -m $M -f text <ids" "llm-logits -m $M -f top <ids" \
	    "llm-gen -m $M -n 4 <ids" "llm-sample <frames" "st-inspect $M" \
	    "llm-logits -m $M <ids" "llm-score -m $M <ids" "llm-text -m $M -n 2 hi"; do
		# one form for every program: prog: file: write error: reason
		run -1 --separate-stderr bash -c "cd '$BATS_TEST_TMPDIR' && $c >/dev/full"
		[[ $stderr == *": <stdout>: write error: No space left on device" ]] ||
			{ echo "$c: $stderr"; false; }
		[ "$(printf '%s\n' "$stderr" | wc -l)" -eq 1 ]
	done
	# endless input: the first failed flush ends the run
	for c in "tok-encode -l -m $M" "tok-decode -m $M" "llm-gen -m $M -n 1"; do
		run -1 --separate-stderr bash -c "yes 1 | timeout 60 $c >/dev/full"
		[[ $stderr == *"<stdout>: write error: No space left on device" ]]
	done
}

@test "programs: PIPELM_THREADS is checked like -t, and -t overrides it" {
	for v in abc 0 1025 -1 1x; do
		for c in "llm-logits -m $M -f text" "llm-gen -m $M -n 1" "st-inspect $M"; do
			PIPELM_THREADS=$v run -2 --separate-stderr $c </dev/null
			[[ $stderr == *"invalid PIPELM_THREADS '$v'"* ]] ||
				{ echo "$c: $stderr"; false; }
		done
		PIPELM_THREADS=$v run -0 llm-logits -m "$M" -t 1 -f top <<<"1 2"
	done
	PIPELM_THREADS=2 run -0 llm-logits -m "$M" -f top <<<"1 2"
	PIPELM_THREADS= run -0 llm-logits -m "$M" -f top <<<"1 2"
	run -2 --separate-stderr llm-logits -m "$M" -t 0
	[[ $stderr == *"invalid thread count '0'"* ]]
	run -2 --separate-stderr st-inspect -t 0 "$M"
	[[ $stderr == *"invalid thread count '0'"* ]]
}

@test "programs: an id outside the vocabulary is one message naming input, record and id" {
	for p in "llm-logits -m $M -f top" "llm-gen -m $M -n 1" "tok-decode -m $M"; do
		run -1 --separate-stderr bash -c "printf '1 2\n3 300\n' | $p"
		[ "${stderr#*: }" = "<stdin>: record 2: token id 300 not in the vocabulary (300 tokens)" ] ||
			{ echo "$p: $stderr"; false; }
	done
}

@test "programs: --help has a line for every option the man page lists, errors give the short usage" {
	for p in $PROGS; do
		run -0 $p --help
		help=$output
		# every long option of the page's option list, e.g. "Fl \-top\-k"
		for o in $(sed -n 's/^\.It //p' "$BATS_TEST_DIRNAME/../man/$p.1" |
		    grep -o 'Fl \\-[a-z0-9\\-]*' | sed 's/^Fl /-/; s/\\//g' | sort -u); do
			[[ $help == *"  $o"[=\ ]* || $help == *", $o"[=\ ]* ]] ||
				{ echo "$p --help lacks $o"; false; }
		done
		run -2 --separate-stderr $p --bogus
		[[ $stderr == *usage:* ]] && [[ $stderr != *--version* ]]
	done
}

@test "programs: a number is digits with an optional minus, nothing else, in every option" {
	for v in ' 5' '+5' '5 ' '0x5' '5e0' ''; do
		for c in "llm-logits --top" "llm-gen -n" "llm-sample --top-k" \
		    "llm-gen --seed" "st-inspect -t" "llm-logits -t" "llm-gen --ctx"; do
			run -2 --separate-stderr $c "$v"
			[[ $stderr == *"'$v': not a number"* ]] ||
				{ echo "$c '$v': $stderr"; false; }
		done
		PIPELM_THREADS=$v run -0 llm-logits -m "$M" -t 1 -f top <<<"1"
	done
}

@test "programs: --help names each option once and every --quant; the pages no one architecture" {
	local p dup
	for p in $PROGS; do
		dup=$($p --help | grep -oE '^  (-[a-zA-Z0-9], )?--[a-z0-9-]+' | sort | uniq -d)
		[ -z "$dup" ] || { echo "$p --help: twice: $dup"; false; }
	done
	for p in llm-gen llm-logits llm-score llm-text; do
		run -0 $p --help
		[[ $output == *"q8_0|q4"* ]] || { echo "$p: no --quant q4"; false; }
	done
	run -1 grep -l 'LLaMA model' "$BATS_TEST_DIRNAME"/../man/*
}
