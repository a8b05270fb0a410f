#!/bin/sh
# bench/floor.sh MODEL BYTES BIN... [-- LLM-GEN-OPTIONS]: decode of 128
# tokens after 128 on MODEL, as a share of the paired bandwidth floor,
# for one or more builds (bin/ folders) run side by side.  BYTES is what
# one decode step reads (st-inspect's bytes_per_token for the exact mode;
# "q8_0" for params * 36 / 32, the Q8_0 row size).  In each repetition
# every build runs on every thread count of THREADS ("1 2"), the order
# of the builds alternating; the read bandwidth (bench/probe.c, best of
# 5 over 256 MiB, the better of right before and right after) pairs
# each run, as bench/run.sh does.  Prints, per build and thread count,
# the medians of decode tokens/s (llm-gen --timing), the steady step
# (probe run), the bandwidth, and the step's share of that run's floor;
# then each run's figures in build/bench/floor.log.  REPS (3) repetitions;
# PIPELM_KERNEL is passed on.
set -eu
[ $# -ge 3 ] || { echo "usage: bench/floor.sh model bytes bin... [-- llm-gen-options]" >&2; exit 2; }
top=$(cd "$(dirname "$0")/.." && pwd)
model=$1 bytes=$2
shift 2
bins=
while [ $# -gt 0 ] && [ "$1" != -- ]; do bins="$bins $1"; shift; done
[ $# -gt 0 ] && shift
opts="$*"
reps=${REPS:-3} threads=${THREADS:-1 2}
probe=$top/build/bench/probe
log=$top/build/bench/floor.log
mkdir -p "$top/build/bench"
[ -x "$probe" ] || cc -std=c11 -O2 -pthread -D_POSIX_C_SOURCE=200809L \
    -D_DEFAULT_SOURCE -o "$probe" "$top/bench/probe.c" -lm
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
first=${bins# }
first=${first%% *}
if [ "$bytes" = q8_0 ]; then
	bytes=$("$first/st-inspect" "$model" | awk '/^parameters:/ { printf "%.0f", $2 * 36 / 32; exit }')
fi
vocab=$(sed -n 's/.*"vocab_size": *\([0-9]*\).*/\1/p' "$model/config.json")
awk -v v="$vocab" 'BEGIN { x = 12345; for (i = 0; i < 128; i++) {
	x = (x * 16807) % 2147483647; printf "%s%d", i ? " " : "", x % v }
	printf "\n" }' >"$tmp/p128"
kv() { printf '%s\n' "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
bw() { kv best_gbs "$("$probe" bw -t "$1" -r 5 -m 256)"; }

one() {	# bin index threads
	b0=$(bw "$3")
	line=$("$probe" run "$1/llm-gen" -m "$model" -t "$3" --timing \
	    --ignore-eos -n 128 --temp 0 $opts <"$tmp/p128" 2>"$tmp/err")
	b1=$(bw "$3")
	tps=$(sed -n 's/.*decode [0-9]* tokens, \([0-9.]*\) tokens\/s.*/\1/p' "$tmp/err" | tail -n 1)
	ms=$(kv steady_median_ms "$line")
	awk -v a="$b0" -v b="$b1" -v ms="$ms" -v w="$bytes" -v tps="$tps" \
	    -v tag="$2 $3" 'BEGIN { g = a > b ? a : b
		printf "%s %s %s %.2f %.3f\n", tag, tps, ms, g, w / (ms * 1e-3) / (g * 1e9) }' \
	    >>"$tmp/runs"
}
# the first touch of the weights (the page cache) outside the figures
echo 1 | "$first/llm-gen" -m "$model" -n 1 $opts >/dev/null
i=0
while [ "$i" -lt "$reps" ]; do
	for t in $threads; do
		set -- $bins
		k=1 order=
		for b; do order="$order $k"; k=$((k + 1)); done
		[ $((i % 2)) -eq 1 ] && order=$(echo $order | tr ' ' '\n' | sort -rn | tr '\n' ' ')
		for k in $order; do
			eval "b=\${$k}"
			one "$b" "$k" "$t"
		done
	done
	i=$((i + 1))
done
med() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
printf '%-40s %3s %9s %9s %8s %7s\n' build threads tokens/s step_ms GB/s floor%
set -- $bins
k=1
for b; do
	for t in $threads; do
		f() { awk -v k="$k" -v t="$t" -v c="$1" '$1 == k && $2 == t { print $c }' "$tmp/runs" | med; }
		printf '%-40s %3s %9s %9s %8s %7.1f\n' "$b" "$t" "$(f 3)" "$(f 4)" "$(f 5)" \
		    "$(f 6 | awk '{ print $1 * 100 }')"
	done
	k=$((k + 1))
done
{ date -u; echo "$model $bytes $opts PIPELM_KERNEL=${PIPELM_KERNEL:-}"; echo "$bins"; cat "$tmp/runs"; } >>"$log"
