#!/bin/sh
# bench/tok.sh: tokenizer speed.  Encoding rate of English prose (Debian's
# GPL-3 text repeated to about 5 MB) on one core, and the time to load the
# SmolLM2 tokenizer (tok-encode of an empty argument: process start and
# load), best of several runs, as wall time and as CPU time (user + system,
# which other load on the machine does not inflate).  Figures go to stdout.
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
if [ ! -x /usr/bin/time ]; then
	echo "bench/tok.sh: skipped: no /usr/bin/time (Debian package time)" >&2
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
i=0
while [ $i -lt 150 ]; do cat "$text"; i=$((i + 1)); done >"$tmp/in"
bytes=$(wc -c <"$tmp/in")
one=
command -v taskset >/dev/null 2>&1 && one="taskset -c 0"

# best wall and CPU seconds of N runs of a command (stdin from $tmp/stdin)
best() {
	n=$1; shift
	k=0
	while [ $k -lt "$n" ]; do
		/usr/bin/time -f "%e %U %S" -o "$tmp/t" "$@" <"$tmp/stdin" >/dev/null
		cat "$tmp/t"
		k=$((k + 1))
	done | awk '{ c = $2 + $3; if (NR == 1 || $1 < w) w = $1; if (NR == 1 || c < cpu) cpu = c }
	    END { print w, cpu }'
}

: >"$tmp/stdin"
load=$(best 20 $one "$bin/tok-encode" --tokenizer "$tok" -e "")
cp "$tmp/in" "$tmp/stdin"
enc=$(best 5 $one "$bin/tok-encode" --tokenizer "$tok")
ntok=$("$bin/tok-encode" --tokenizer "$tok" --count <"$tmp/in")
echo "$load $enc" | awk -v b="$bytes" -v n="$ntok" '{
	printf "tok-encode: load (process start + tokenizer.json): %.0f ms wall, %.0f ms CPU\n", $1 * 1000, $2 * 1000
	printf "tok-encode: %.2f MB of English prose, %d tokens: %.0f ms wall, %.0f ms CPU: %.1f MB/s (CPU)\n",
	    b / 1e6, n, $3 * 1000, $4 * 1000, b / 1e6 / $4
}'
