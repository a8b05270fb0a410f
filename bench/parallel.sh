#!/bin/sh
# bench/parallel.sh: what `make bench-parallel` runs (after `make`).
# Many prompts, a continuation each, the ways pipelm offers on one
# machine, on the same prompts file and model: one process a prompt,
# two at a time (xargs -P 2, one thread each, the weights shared through
# the page cache), the same under GNU parallel (-j 2 -k, as
# examples/parallel.sh runs it on each host; skipped if parallel is not
# installed), and one process for all (tok-encode -l | llm-gen -P N |
# tok-decode -l, examples/batch.sh) on 1 and 2 threads, beside -P 1.
# Each prompt's continuation is BENCH_PARALLEL_NEW ids (64), greedy,
# --ignore-eos, so that every way does the same work.  It reports, it
# never fails on a figure (it fails if a way writes other bytes than
# -P 1).
#
# The model: SmolLM2-135M's shape, random BF16 with SmolLM2's tokenizer
# (../shared/models/smollm2-tokenizer; mkmodel, written once under
# build/bench/), or BENCH_PARALLEL_MODEL (a folder with its tokenizer:
# share/pipelm/stories260K checks the script in seconds).  The prompts:
# BENCH_PARALLEL_N (64) lines of 4 to 16 words, deterministic.  Several
# repetitions (BENCH_REPS, 3): median (min-max) seconds and generated
# ids a second.  The table goes to stdout and to build/bench/parallel.md.
#
# Environment: BENCH_REPS, BENCH_DIR (build/bench), BENCH_PARALLEL_N,
# BENCH_PARALLEL_NEW, BENCH_PARALLEL_MODEL, BENCH_PARALLEL_P (16),
# PIPELM_BIN (bin), PIPELM_TOOLS (build/rel).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"	# top, bin, tools, out; say, fail, ...
reps=${BENCH_REPS:-3}
n=${BENCH_PARALLEL_N:-64}
new=${BENCH_PARALLEL_NEW:-64}
par=${BENCH_PARALLEL_P:-16}
me=bench/parallel.sh
posint BENCH_REPS "$reps"
posint BENCH_PARALLEL_N "$n"
posint BENCH_PARALLEL_NEW "$new"
posint BENCH_PARALLEL_P "$par"
need_bin tok-encode llm-gen tok-decode
mkdir -p "$out"
workdir

model=${BENCH_PARALLEL_MODEL:-}
if [ -z "$model" ]; then
	tokjson=$top/../shared/models/smollm2-tokenizer/tokenizer.json
	[ -r "$tokjson" ] || fail "$tokjson: not found (set BENCH_PARALLEL_MODEL to a model folder with its tokenizer)"
	model=$out/smollm2-135m-bf16-tok
	mkrandom smollm2-135m "$model" 1 --tokenizer "$tokjson"
fi

awk -v n="$n" 'BEGIN { srand(23)
    split("once upon a time there was little girl dog who liked to play " \
	"in the park with her ball one day sun and tree big red happy said " \
	"went home friend cat saw", w, " ")
    for (i = 0; i < n; i++) { k = 4 + int(rand() * 13); s = ""
	for (j = 0; j < k; j++) s = s (j ? " " : "") w[1 + int(rand() * 41)]
	print s } }' >"$tmp/in"

gen="$bin/llm-gen -m $model -n $new --temp 0 --ignore-eos"
enc="$bin/tok-encode -m $model -l"
dec="$bin/tok-decode -m $model -l"

# the prompts two at a time (xargs -P 2), the outputs put back in order
xargs2() {
	seq 1 "$n" | xargs -P 2 -I{} sh -c "$(cat <<-EOF
		sed -n "{}p" '$tmp/in' | $enc | $gen -t 1 | $dec >'$tmp/{}.out'
		EOF
	)"
	i=1
	while [ "$i" -le "$n" ]; do cat "$tmp/$i.out"; i=$((i + 1)); done
}

# the same under GNU parallel, which keeps the order itself (-k)
parallel2() {
	parallel --will-cite -k -j 2 -a "$tmp/in" "printf '%s\n' {} | $enc | $gen -t 1 | $dec"
}

batch() {	# THREADS P: one process for all
	$enc "$tmp/in" | $gen -t "$1" -P "$2" | $dec
}

timed p1 batch 1 1
same() {	# NAME: its output is -P 1's
	cmp -s "$tmp/p1.out" "$tmp/$1.out" ||
	    fail "$2 wrote other bytes than -P 1"
}
timed xargs xargs2
same xargs "xargs -P 2"
if command -v parallel >/dev/null; then
	timed gnu parallel2
	same gnu "parallel -j 2"
fi
timed pNt1 batch 1 "$par"
same pNt1 "-P $par"
timed pNt2 batch 2 "$par"
same pNt2 "-P $par, 2 threads"

ids=$((n * new))
b1=$(median p1)
{
	echo "## llm-gen: $n prompts, $new ids each ($ids generated)"
	echo
	echo "model $model, kernels ${PIPELM_KERNEL:-native}, $reps repetitions: median (min-max)"
	echo
	echo "| run | seconds | ids/s | vs -P 1, 1 thread |"
	echo "|---|---|---|---|"
	row "-P 1, 1 thread (one process)" p1 "$ids" "$b1"
	row "xargs -P 2, a process a prompt, 1 thread each" xargs "$ids" "$b1"
	if command -v parallel >/dev/null; then
		row "GNU parallel -j 2 -k, a process a prompt, 1 thread each" gnu "$ids" "$b1"
	fi
	row "-P $par, 1 thread (one process)" pNt1 "$ids" "$b1"
	row "-P $par, 2 threads (one process)" pNt2 "$ids" "$b1"
} | tee "$out/parallel.md"
