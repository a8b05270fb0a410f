#!/bin/sh
# bench/extgen.sh BIN... : decode measured from outside, as issue 16 asks:
# the wall time of llm-gen -n 129 minus that of -n 1 (a one-token
# prompt; the difference is 128 decode steps, load and first token
# cancelled) for each build (bin/ folders), beside llama-bench -p 0 -n
# 128 on the same weights as GGUF, in each of REPS (4) repetitions.
# MODEL (build/bench/smollm2-135m-bf16; its .gguf beside it), THREADS
# (2), LLAMA_BENCH (build/peer/llama-bench); PIPELM_KERNEL is passed on.
# Prints one line a run: the build (or "llama.cpp") and tokens/s.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
model=${MODEL:-$top/build/bench/smollm2-135m-bf16}
peer=${LLAMA_BENCH:-$top/build/peer/llama-bench}
thr=${THREADS:-2}
[ $# -ge 1 ] || { echo "usage: bench/extgen.sh bin..." >&2; exit 2; }
now() { date +%s.%N; }
gen() {	# bin n: seconds
	a=$(now)
	echo 1 | "$1/llm-gen" -m "$model" -t "$thr" --ignore-eos --temp 0 \
	    -n "$2" >/dev/null
	b=$(now)
	echo "$a $b" | awk '{ print $2 - $1 }'
}
i=0
while [ "$i" -lt "${REPS:-4}" ]; do
	for b; do
		s1=$(gen "$b" 1)
		s129=$(gen "$b" 129)
		echo "$b $(echo "$s1 $s129" | awk '{ printf "%.1f", 128 / ($2 - $1) }')"
	done
	if [ -x "$peer" ] && [ -r "$model.gguf" ]; then
		echo "llama.cpp $("$peer" -m "$model.gguf" -t "$thr" -p 0 -n 128 \
		    -r 1 -o csv 2>/dev/null | awk -F, 'NR == 1 { next }
		    { v = $(NF - 1); gsub(/"/, "", v); print v }')"
	fi
	i=$((i + 1))
done
