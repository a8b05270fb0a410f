#!/usr/bin/env bats
# The built-in model (share/pipelm/stories260K): what a fresh clone, with
# no ../shared, no HuggingFace cache and no PIPELM_MODEL, runs.
load helpers

setup() {
	T=$BATS_TEST_TMPDIR
	B=$BATS_TEST_DIRNAME/../share/pipelm/stories260K
	cd "$BATS_TEST_TMPDIR"
}

@test "builtin: a fresh environment writes English from the README's pipeline" {
	run -0 --separate-stderr env -i PATH=/usr/bin:/bin HOME="$T" sh -c \
	    "echo 'Once upon a time' | '$BIN/tok-encode' | '$BIN/llm-gen' -n 40 --temp 0 | '$BIN/tok-decode'"
	[[ $output == ", there was a little girl named Lily. She loved to play outside"* ]]
	[ -z "$stderr" ]
	# the README's quick start as it is (sampled: a story, whatever it
	# is), and its one-command form
	run -0 --separate-stderr env -i PATH=/usr/bin:/bin HOME="$T" sh -c \
	    "echo 'Once upon a time' | '$BIN/tok-encode' | '$BIN/llm-gen' -e -n 40 | '$BIN/tok-decode' --skip-special"
	[[ $output == "Once upon a time"?* ]]
	[ -z "$stderr" ]
	run -0 --separate-stderr env -i PATH=/usr/bin:/bin HOME="$T" "$BIN/llm-text" -n 40 Once upon a time
	[[ $output == "Once upon a time"?* ]]
	[ -z "$stderr" ]
}

@test "builtin: no -m and an empty PIPELM_MODEL mean the built-in model" {
	want=$(echo 'The dog' | tok-encode -m "$B" | llm-logits -m "$B" -f top --top 3)
	run -0 sh -c "echo 'The dog' | tok-encode | llm-logits -f top --top 3"
	[ "$output" = "$want" ]
	run -0 sh -c "echo 'The dog' | PIPELM_MODEL= tok-encode | PIPELM_MODEL= llm-logits -f top --top 3"
	[ "$output" = "$want" ]
	run -0 st-inspect
	[[ $output == *model.embed_tokens.weight* ]]
}

@test "builtin: found beside an installed program (PREFIX/share/pipelm)" {
	mkdir -p "$T/prefix/bin" "$T/prefix/share/pipelm"
	cp "$BIN/tok-encode" "$T/prefix/bin/"
	cp -R "$B" "$T/prefix/share/pipelm/"
	want=$(tok-encode -m "$B" -e 'Once upon a time')
	run -0 "$T/prefix/bin/tok-encode" -e 'Once upon a time'
	[ "$output" = "$want" ]
}

@test "builtin: a program that finds no built-in model says how to name one" {
	[ ! -d /usr/local/share/pipelm/stories260K ] || skip "a built-in model is installed in /usr/local"
	mkdir -p "$T/bin"
	cp "$BIN/tok-encode" "$T/bin/"
	run -1 --separate-stderr "$T/bin/tok-encode" -e x
	[[ $stderr == *"use -m or set PIPELM_MODEL"* ]]
	[[ $stderr == *stories260K* ]]
}

@test "builtin: -v says the built-in model was used; without -v, not a word" {
	run -0 --separate-stderr sh -c "echo 'The dog' | tok-encode -v | llm-gen -v -n 2 --temp 0"
	[[ $stderr == *"tok-encode: tokenizer "*"stories260K/tokenizer.json (the built-in model's)"* ]]
	[[ $stderr == *"llm-gen: model "*"stories260K (the built-in model), kernels "* ]]
	run -0 --separate-stderr sh -c "echo 1 403 | llm-logits -v -f top --top 1"
	[[ $stderr == *"(the built-in model)"* ]]
	run -0 --separate-stderr sh -c "echo 1 403 | llm-logits -v -m '$B' -f top --top 1"
	[[ $stderr != *"built-in"* ]]
	[[ $stderr == *"model $B, kernels"* ]]
	run -0 --separate-stderr sh -c "echo 'The dog' | tok-encode | llm-gen -n 2 --temp 0 | tok-decode"
	[ -z "$stderr" ]
}

@test "builtin: a folder with only a tokenizer serves tok-encode and tok-decode" {
	mkdir tokonly
	cp "$B/tokenizer.json" "$B/tokenizer_config.json" tokonly/
	want=$(tok-encode -m "$B" -e 'Once upon a time')
	run -0 tok-encode -m tokonly -e 'Once upon a time'
	[ "$output" = "$want" ]
	run -0 sh -c "echo '$want' | tok-decode -m tokonly"
	[ "$output" = "<s> Once upon a time" ]
	run -1 --separate-stderr sh -c "echo '$want' | llm-logits -m tokonly"
	[[ $stderr == *"tokonly: no config.json"* ]]
	mkdir empty
	run -1 --separate-stderr tok-encode -m empty -e x
	[[ $stderr == *"empty: no tokenizer.json"* ]]
}

@test "builtin: bin/ named by an absolute path links no share/ into share/" {
	need_cmd make
	R=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
	run -0 make -n -B -C "$R" BINDIR="$R/bin" "$R/bin/tok-encode"
	[[ $output != *"ln -s"* ]]
	run -0 make -n -B -C "$R" BINDIR=./bin ./bin/tok-encode
	[[ $output != *"ln -s"* ]]
	run -0 make -n -B -C "$R" O=build/x BINDIR=build/x/bin build/x/bin/tok-encode
	[[ $output == *"ln -sfn $R/share build/x/bin/../share"* ]]
	[ ! -e "$R/share/share" ]
	# an O of one's own takes the programs with it, away from bin/
	run -0 make -n -B -C "$R" O=build/y build/y/bin/tok-encode
	[[ $output == *"-o build/y/bin/tok-encode "* ]]
}

@test "builtin: make builds the programs only; the tools come with test, bench and make tools" {
	need_cmd make
	R=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
	# the plain build's paths, not those of a make test SAN=1 around us:
	# make hands its command line down in MAKEFLAGS and in the environment
	export MAKEFLAGS= MFLAGS=
	unset SAN FUZZ STATIC O BINDIR
	run -0 make -n -B -C "$R"
	[[ $output == *"-o bin/llm-gen cmd/llm-gen.c"* ]]
	[[ $output != *tools/* ]]
	for t in tools test bench logerr; do
		run -0 make -n -B -C "$R" "$t"
		[[ $output == *"tools/mkmodel.c"* ]] || { echo "make $t: no mkmodel"; false; }
	done
}

@test "builtin: make check's tests/setup installs what is missing on a fresh Debian, or names it" {
	R=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
	# a machine with nothing but apt-get (and sudo, for a run as a user)
	mkdir stub
	printf '#!/bin/bash\necho "apt-get $*" >>"%s"\n' "$T/apt.log" >stub/apt-get
	printf '#!/bin/bash\n[ "$1" = -n ] && shift\n"$@"\n' >stub/sudo
	chmod +x stub/apt-get stub/sudo
	run -1 --separate-stderr env -i PATH="$T/stub" HOME="$T" /bin/bash "$R/tests/setup"
	[[ $stderr == "tests/setup: installing gcc make bats groff bsdutils "*" parallel "*" libonig-dev libclang-rt-dev (apt-get)"* ]]
	grep -q '^apt-get update' "$T/apt.log"
	grep -q '^apt-get install -y -qq gcc make bats groff bsdutils ' "$T/apt.log"
	# the stub installed nothing: what is still missing is named
	[[ $stderr == *"tests/setup: make check cannot run without: gcc make bats groff bsdutils (Debian packages)" ]]
	# no apt-get: the packages are named
	rm stub/apt-get
	run -1 --separate-stderr env -i PATH="$T/stub" HOME="$T" /bin/bash "$R/tests/setup"
	[[ $stderr == "tests/setup: cannot install packages here (apt-get as root or with sudo -n): on Debian: apt-get install gcc make bats groff bsdutils "* ]]
	# and the Makefile runs it before the tests
	run -0 make -n -C "$R" check
	[[ $output == *"then tests/setup; fi"* ]]
}
