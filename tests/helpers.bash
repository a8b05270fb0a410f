# Shared by every bats suite: `load helpers`.
bats_require_minimum_version 1.5.0	# for run -N and --separate-stderr

# make test points these at the build under test (plain or sanitizer).
BIN=${PIPELM_BIN:-$BATS_TEST_DIRNAME/../bin}
TOOLS=${PIPELM_TOOLS:-$BATS_TEST_DIRNAME/../build/rel}
PATH="$BIN:$PATH"
export LC_ALL=C
unset PIPELM_MODEL
SHARED=$BATS_TEST_DIRNAME/../../shared
DATA=$BATS_TEST_DIRNAME/data

# Skip, saying why, where the shared test assets are absent (a fresh clone).
need_shared() {
	[ -d "$SHARED/models" ] || skip "../shared not present"
}

# Skip unless a real HuggingFace model folder is given.
need_model() {
	[ -r "${PIPELM_TEST_MODEL:-/nonexistent}/config.json" ] || skip "set PIPELM_TEST_MODEL to run this"
}

need_cmd() {
	command -v "$1" >/dev/null || skip "$1 not installed"
}

# need_tty: script(1) can give a command a terminal for its output.  In a
# container without /dev/pts, script fails with a message of its own that
# must not be taken for the program's.
need_tty() {
	need_cmd script
	script -qec 'test -t 1' /dev/null >/dev/null 2>&1 ||
		skip "script(1) cannot open a pseudo-terminal here"
}

# mkmodel DIR [option ...]: a random-weight LLaMA folder from the project's
# own tool (see tools/mkmodel.c).
mkmodel() {
	"$TOOLS/mkmodel" "$@" >/dev/null
}

# npycmp GOT WANT [option ...]: compare float32 .npy arrays (tools/npycmp.c).
npycmp() {
	"$TOOLS/npycmp" "$@"
}

# Edit a JSON file in place with a sed expression (test fixtures).
jsed() {
	local f=$1
	shift
	sed "$@" "$f" >"$f.new" && mv "$f.new" "$f"
}

# The kernel tables this CPU runs that can load model DIR.
kern_tables() {
	local k
	for k in portable avx2 avx512; do
		PIPELM_KERNEL=$k llm-logits -m "$1" -f top <<<"1" >/dev/null 2>&1 &&
		    echo $k
	done
}

# exact4 DIR REF ABSTOL [same]: the 4-bit folder DIR's logits over $IDS
# equal REF's (its dequantized F32 folder) to float32 rounding, within
# ABSTOL and 2e-6 relative, under every table; byte-identical for 1 and
# 2 threads, prefill (--all) and one token at a time (-s) each; with
# "same", prefill byte-identical to one token at a time too.  Files in
# $T.
exact4() {
	local k t
	for k in $(kern_tables "$2"); do
		for t in 1 2; do
			PIPELM_KERNEL=$k llm-logits -m "$1" -t $t --all -f npy \
			    -o "$T/q$t.npy" <<<"$IDS"
			tr ' ' '\n' <<<"$IDS" | PIPELM_KERNEL=$k llm-logits -m "$1" \
			    -t $t -s -f npy -o "$T/s$t.npy"
		done
		cmp "$T/q1.npy" "$T/q2.npy"
		cmp "$T/s1.npy" "$T/s2.npy"
		[ "${4:-}" != same ] || cmp "$T/q1.npy" "$T/s1.npy"
		PIPELM_KERNEL=$k llm-logits -m "$2" --all -f npy -o "$T/d.npy" <<<"$IDS"
		run -0 npycmp -a "$3" -r 2e-6 "$T/q1.npy" "$T/d.npy"
		echo "$k: $output"
	done
}
