#!/bin/sh
# bench/tok.sh: tokenizer speed.  Encoding rate of English prose (Debian's
# GPL-3 text repeated to about 5 MB) on one core, and the time to load the
# SmolLM2 tokenizer (tok-encode of an empty argument: process start and
# load), best of several runs.  Figures go to stdout.
#
# usage: bench/tok.sh [tokenizer.json]   (default: ../shared's SmolLM2)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
bin=${PIPELM_BIN:-$here/../bin}
tok=${1:-$here/../../shared/models/smollm2-tokenizer/tokenizer.json}
text=/usr/share/common-licenses/GPL-3
if [ ! -r "$tok" ]; then
	echo "bench/tok.sh: skipped: no $tok (give a tokenizer.json)" >&2
	exit 0
fi
if [ ! -r "$text" ]; then
	echo "bench/tok.sh: skipped: no $text" >&2
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
i=0
while [ $i -lt 150 ]; do cat "$text"; i=$((i + 1)); done >"$tmp/in"
bytes=$(wc -c <"$tmp/in")
one=
command -v taskset >/dev/null 2>&1 && one="taskset -c 0"

# best wall time in ms of N runs of a command
best() {
	n=$1; shift
	b=
	k=0
	while [ $k -lt "$n" ]; do
		t0=$(date +%s%N)
		"$@" >/dev/null
		t1=$(date +%s%N)
		t=$(( (t1 - t0) / 1000 ))
		if [ -z "$b" ] || [ $t -lt $b ]; then b=$t; fi
		k=$((k + 1))
	done
	echo "$b"
}

load=$(best 20 $one "$bin/tok-encode" --tokenizer "$tok" "")
enc=$(best 5 sh -c "$one \"$bin/tok-encode\" --tokenizer \"$tok\" <\"$tmp/in\"")
ntok=$("$bin/tok-encode" --tokenizer "$tok" --count <"$tmp/in")
awk -v b="$bytes" -v l="$load" -v e="$enc" -v n="$ntok" 'BEGIN {
	printf "tok-encode: load (process start + tokenizer.json): %.1f ms\n", l / 1000
	printf "tok-encode: %.2f MB of English prose, %d tokens, %.1f ms: %.1f MB/s (%.1f MB/s less the load)\n",
	    b / 1e6, n, e / 1000, b / e, b / (e - l)
}'
