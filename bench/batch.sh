#!/bin/sh
# bench/batch.sh: llm-gen -P N beside llama.cpp's llama-batched-bench
# (make bench-batch).  N records of 32 random ids each, 64 ids generated
# greedily (--ignore-eos), on the 135M shape (random BF16, as bench/run.sh
# makes it) and its GGUF (tools/mkgguf), for N in BENCH_NPL (1 4 16) and
# 1 and 2 threads.  pipelm's aggregate decode rate is N * 63 ids over the
# time of the -n 64 run less that of the -n 1 run (the load and the
# prompts cancel out); llama.cpp's is llama-batched-bench's S_TG for
# -npp 32 -ntg 64 -npl N.  Run with nothing else on the machine.
set -eu

me=batch.sh
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
bin=${PIPELM_BIN:-$top/bin}
tools=${PIPELM_TOOLS:-$top/build/rel}
dir=${BENCH_DIR:-$top/build/bench}
npl=${BENCH_NPL:-1 4 16}
peer=${LLAMA_BATCHED_BENCH:-$top/build/peer/llama-batched-bench}

say() { printf '%s: %s\n' "$me" "$*" >&2; }
fail() { say "$*"; exit 1; }

[ -x "$tools/mkmodel" ] && [ -x "$tools/mkgguf" ] ||
	fail "$tools: mkmodel, mkgguf not built (run make tools first)"
mkdir -p "$dir"
m=$dir/smollm2-135m
if [ ! -r "$m/config.json" ]; then
	say "model: writing $m (random BF16)"
	rm -rf "$m.tmp" && mkdir -p "$m.tmp"
	"$tools/mkmodel" -s 1 --preset smollm2-135m --dtype bf16 "$m.tmp" >/dev/null
	mv "$m.tmp" "$m"
fi
[ -r "$m.gguf" ] && [ "$m.gguf" -nt "$m/model.safetensors" ] ||
	"$tools/mkgguf" "$m" "$m.gguf" >/dev/null
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT

now() { date +%s.%N; }
# run N THREADS MAXNEW: seconds of llm-gen -P N over $tmp/in.N
run() {
	t0=$(now)
	"$bin/llm-gen" -m "$m" -t "$2" -P "$1" -n "$3" --temp 0 \
	    --ignore-eos <"$tmp/in.$1" >/dev/null
	t1=$(now)
	echo "$t0 $t1" | awk '{ printf "%.4f", $2 - $1 }'
}

echo "| threads | N | pipelm decode ids/s | pipelm x its N=1 | llama.cpp S_TG | pipelm / llama.cpp |"
echo "|---|---|---|---|---|---|"
for t in 1 2; do
	base=
	for n in $npl; do
		awk -v n="$n" 'BEGIN { srand(n); for (i = 0; i < n; i++) {
		    s = ""; for (j = 0; j < 32; j++) s = s (j ? " " : "") int(1 + rand() * 40000)
		    print s } }' >"$tmp/in.$n"
		run "$n" "$t" 1 >/dev/null	# warm the page cache
		a=$(run "$n" "$t" 1)
		b=$(run "$n" "$t" 64)
		tps=$(echo "$a $b $n" | awk '{ printf "%.1f", $3 * 63 / ($2 - $1) }')
		[ -n "$base" ] || base=$tps
		ll=-
		if [ -x "$peer" ]; then
			ll=$("$peer" -m "$m.gguf" -c $((n * 96 + 64)) -npp 32 -ntg 64 \
			    -npl "$n" -t "$t" 2>/dev/null | awk -F'|' '$2 + 0 == 32 {
			    gsub(/ /, "", $9); print $9 }')
		fi
		echo "$tps $base $ll" | awk -v t="$t" -v n="$n" '{
		    r = $3 == "-" || $3 == "" ? "-" : sprintf("%.2fx", $1 / $3)
		    printf "| %d | %d | %s | %.2fx | %s | %s |\n", t, n, $1,
		    $1 / $2, $3 == "" ? "-" : $3, r }'
	done
done
