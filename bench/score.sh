#!/bin/sh
# bench/score.sh: what `make bench-score` runs (after `make`).  Scoring
# thousands of short sentences, the analysis job of issue 23, three ways
# on one model: llm-score one record at a time (-P 1), llm-score -P 16
# (the records' rows in shared passes), and two llm-score processes side
# by side on halves of the input (xargs -P 2, one thread each, the
# weights shared through the page cache); llm-score on 1 and 2 threads.
# It reports, it never fails on a figure (it fails if -P 16 or the
# processes write other bytes than -P 1).
#
# The model: SmolLM2-135M's shape, random BF16 (mkmodel, written once
# under build/bench/, as bench/run.sh's), or BENCH_SCORE_MODEL.  The
# sentences: BENCH_SCORE_N (2000) records of 8 to 40 random ids,
# deterministic.  Several repetitions (BENCH_REPS, 3): median (min-max)
# seconds and scored tokens a second.  The table goes to stdout and to
# build/bench/score.md.
#
# Environment: BENCH_REPS, BENCH_DIR (build/bench), BENCH_SCORE_N,
# BENCH_SCORE_MODEL, BENCH_SCORE_P (16), PIPELM_BIN (bin), PIPELM_TOOLS
# (build/rel).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"	# top, bin, tools, out; say, fail, ...
reps=${BENCH_REPS:-3}
n=${BENCH_SCORE_N:-2000}
par=${BENCH_SCORE_P:-16}
me=bench/score.sh
mkdir -p "$out"
workdir

model=${BENCH_SCORE_MODEL:-}
if [ -z "$model" ]; then
	model=$out/smollm2-135m-bf16
	mkrandom smollm2-135m "$model"
fi
vocab=$(sed -n 's/.*"vocab_size": *\([0-9]*\).*/\1/p' "$model/config.json" | head -1)
[ -n "$vocab" ] || vocab=32000

awk -v n="$n" -v v="$vocab" 'BEGIN { srand(23)
    for (i = 0; i < n; i++) { k = 8 + int(rand() * 33); s = ""
        for (j = 0; j < k; j++) s = s (j ? " " : "") int(rand() * v)
        print s } }' >"$tmp/in"
tokens=$(awk '{ t += NF - 1 } END { print t }' "$tmp/in")
split -n l/2 "$tmp/in" "$tmp/half."

# score THREADS P: llm-score on all the sentences (the input
# redirected at each repetition)
score() {
	"$bin/llm-score" -m "$model" -t "$1" -P "$2" <"$tmp/in"
}

# two processes, one thread each, on the halves of the input, their
# outputs put back in order
xargs2() {
	printf '%s\n' "$tmp"/half.a? | xargs -P 2 -I{} sh -c \
	    '"$0" -m "$1" -t 1 <"$2" >"$2.out"' "$bin/llm-score" "$model" {}
	cat "$tmp"/half.a?.out
}

for t in 1 2; do
	timed "p1t$t" score "$t" 1
	timed "pNt$t" score "$t" "$par"
	cmp -s "$tmp/p1t$t.out" "$tmp/pNt$t.out" ||
	    fail "-P $par wrote other bytes than -P 1"
done
timed xargs xargs2
cmp -s "$tmp/p1t1.out" "$tmp/xargs.out" ||
    fail "xargs -P 2 wrote other bytes than -P 1"

b1=$(median p1t1)
{
	echo "## llm-score: $n sentences of 8-40 ids, $tokens tokens scored"
	echo
	echo "model $model, kernels ${PIPELM_KERNEL:-native}, $reps repetitions: median (min-max)"
	echo
	echo "| run | seconds | tokens/s | vs -P 1, 1 thread |"
	echo "|---|---|---|---|"
	row "-P 1, 1 thread" p1t1 "$tokens" "$b1"
	row "-P $par, 1 thread" pNt1 "$tokens" "$b1"
	row "-P 1, 2 threads" p1t2 "$tokens" "$b1"
	row "-P $par, 2 threads" pNt2 "$tokens" "$b1"
	row "xargs -P 2, 1 thread each" xargs "$tokens" "$b1"
} | tee "$out/score.md"
