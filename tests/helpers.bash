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
