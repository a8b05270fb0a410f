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
top=$(cd "$here/.." && pwd)
bin=${PIPELM_BIN:-$top/bin}
tools=${PIPELM_TOOLS:-$top/build/rel}
out=${BENCH_DIR:-$top/build/bench}
reps=${BENCH_REPS:-3}
n=${BENCH_SCORE_N:-2000}
par=${BENCH_SCORE_P:-16}
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

model=${BENCH_SCORE_MODEL:-}
if [ -z "$model" ]; then
	model=$out/smollm2-135m-bf16
	[ -r "$model/config.json" ] ||
	    "$tools/mkmodel" --preset smollm2-135m --dtype bf16 "$model" >/dev/null
fi
vocab=$(sed -n 's/.*"vocab_size": *\([0-9]*\).*/\1/p' "$model/config.json" | head -1)
[ -n "$vocab" ] || vocab=32000

awk -v n="$n" -v v="$vocab" 'BEGIN { srand(23)
    for (i = 0; i < n; i++) { k = 8 + int(rand() * 33); s = ""
        for (j = 0; j < k; j++) s = s (j ? " " : "") int(rand() * v)
        print s } }' >"$tmp/in"
tokens=$(awk '{ t += NF - 1 } END { print t }' "$tmp/in")
split -n l/2 "$tmp/in" "$tmp/half."

now() { date +%s.%N; }

# run NAME COMMAND: time COMMAND (its output to $tmp/NAME.out) reps
# times; the seconds, one a line, into $tmp/NAME.t
run() {
	name=$1
	shift
	: >"$tmp/$name.t"
	i=0
	while [ $i -lt "$reps" ]; do
		t0=$(now)
		"$@" >"$tmp/$name.out"
		t1=$(now)
		echo "$t1 - $t0" | bc -l >>"$tmp/$name.t"
		i=$((i + 1))
	done
}

# two processes, one thread each, on the halves of the input, their
# outputs put back in order
xargs2() {
	printf '%s\n' "$tmp"/half.a? | xargs -P 2 -I{} sh -c \
	    '"$0" -m "$1" -t 1 <"$2" >"$2.out"' "$bin/llm-score" "$model" {}
	cat "$tmp"/half.a?.out
}

# row LABEL NAME: median (min-max) seconds and tokens/s of run NAME
row() {
	sort -g "$tmp/$2.t" | awk -v l="$1" -v tok="$tokens" -v base="$3" '
	    { t[NR] = $1 } END { m = t[int((NR + 1) / 2)]
	      printf "| %s | %.2f (%.2f-%.2f) | %.0f | %s |\n", l, m, t[1], t[NR],
	        tok / m, base ? sprintf("%.2fx", base / m) : "1.00x" }'
}

median() { sort -g "$tmp/$1.t" | awk '{ t[NR] = $1 } END { print t[int((NR + 1) / 2)] }'; }

for t in 1 2; do
	run "p1t$t" "$bin/llm-score" -m "$model" -t $t <"$tmp/in"
	run "pNt$t" "$bin/llm-score" -m "$model" -t $t -P "$par" <"$tmp/in"
	cmp -s "$tmp/p1t$t.out" "$tmp/pNt$t.out" ||
	    { echo "score.sh: -P $par wrote other bytes than -P 1" >&2; exit 1; }
done
run xargs xargs2
cmp -s "$tmp/p1t1.out" "$tmp/xargs.out" ||
    { echo "score.sh: xargs -P 2 wrote other bytes than -P 1" >&2; exit 1; }

b1=$(median p1t1)
{
	echo "## llm-score: $n sentences of 8-40 ids, $tokens tokens scored"
	echo
	echo "model $model, kernels ${PIPELM_KERNEL:-native}, $reps repetitions: median (min-max)"
	echo
	echo "| run | seconds | tokens/s | vs -P 1, 1 thread |"
	echo "|---|---|---|---|"
	row "-P 1, 1 thread" p1t1 "$b1"
	row "-P $par, 1 thread" pNt1 "$b1"
	row "-P 1, 2 threads" p1t2 "$b1"
	row "-P $par, 2 threads" pNt2 "$b1"
	row "xargs -P 2, 1 thread each" xargs "$b1"
} | tee "$out/score.md"
