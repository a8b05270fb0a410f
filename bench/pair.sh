#!/bin/sh
# bench/pair.sh BEFORE AFTER [REPS]: two builds of pipelm side by side on
# the bench model (build/bench/smollm2-135m-bf16, written by mkmodel if
# absent), for a change that must not move speed.  BEFORE and AFTER are
# bin/ folders.  In each repetition both run, in alternating order (AB,
# BA, ...), prefill of 128 tokens (llm-logits --timing, warm) and decode
# of 128 after 128 (llm-gen --timing) on 1 and 2 threads; the figures of a
# pair were taken within seconds of each other, so their ratio is steadier
# than either.  Prints each figure's median for both and the median
# after/before ratio with how many pairs were faster after.
set -eu
[ $# -ge 2 ] || { echo "usage: bench/pair.sh before-bin after-bin [reps]" >&2; exit 2; }
a=$1 b=$2 reps=${3:-6}
top=$(cd "$(dirname "$0")/.." && pwd)
model=$top/build/bench/smollm2-135m-bf16
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ ! -r "$model/model.safetensors" ]; then
	mkdir -p "$model.tmp"
	"$top/build/rel/mkmodel" -s 1 --preset smollm2-135m --dtype bf16 "$model.tmp" >/dev/null
	mv "$model.tmp" "$model"
fi
vocab=$(sed -n 's/.*"vocab_size": *\([0-9]*\).*/\1/p' "$model/config.json")
awk -v v="$vocab" 'BEGIN { x = 12345; printf "1\n"
	for (i = 0; i < 128; i++) { x = (x * 16807) % 2147483647; printf "%s%d", i ? " " : "", x % v }
	printf "\n" }' >"$tmp/w128"
tail -n 1 "$tmp/w128" >"$tmp/p128"
F='\([0-9.][0-9.]*\)'
num() { sed -n "s#.*$2.*#\1#p" "$1" | tail -n 1; }

one() {	# bin tag threads
	"$1/llm-logits" -m "$model" -t "$3" --timing <"$tmp/w128" >/dev/null 2>"$tmp/err"
	num "$tmp/err" "prefill [0-9]* tokens, $F tokens/s" >>"$tmp/prefill$3.$2"
	"$1/llm-gen" -m "$model" -t "$3" --timing --ignore-eos -n 128 --temp 0 \
	    <"$tmp/p128" >/dev/null 2>"$tmp/err"
	num "$tmp/err" "decode [0-9]* tokens, $F tokens/s" >>"$tmp/decode$3.$2"
}
i=0
while [ "$i" -lt "$reps" ]; do
	for t in 1 2; do
		if [ $((i % 2)) -eq 0 ]; then one "$a" a "$t"; one "$b" b "$t"
		else one "$b" b "$t"; one "$a" a "$t"; fi
	done
	i=$((i + 1))
done
med() { sort -g "$1" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
printf '%-22s %10s %10s %8s %s\n' figure before after ratio "after faster"
for f in prefill1 prefill2 decode1 decode2; do
	paste "$tmp/$f.a" "$tmp/$f.b" | awk '{ print $2 / $1 }' >"$tmp/$f.r"
	printf '%-22s %10s %10s %8.3f %d of %d\n' "$f (tokens/s)" "$(med "$tmp/$f.a")" \
	    "$(med "$tmp/$f.b")" "$(med "$tmp/$f.r")" \
	    "$(awk '$1 > 1' "$tmp/$f.r" | wc -l)" "$(wc -l <"$tmp/$f.r")"
done
