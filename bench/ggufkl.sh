#!/bin/sh
# bench/ggufkl.sh: pipelm's logits of a GGUF file beside llama.cpp's of the
# same file (`make ggufkl`).  For each model (../shared's golden ones,
# the built-in stories260K and random BF16 ones of the SmolLM2-135M and
# Llama-3.2-1B shapes),
# tools/mkgguf writes its GGUF (its own dtype) and llama.cpp's
# llama-quantize quantizes that to each type of GGUFKL_TYPES (Q8_0, Q4_0,
# Q4_K_M, Q6_K: its own mixtures and fallbacks); on each file, over the
# model's prompt (every position):
#   - pipelm (llm-logits -a) against llama.cpp (bench/llama-logits.c, as
#     bench/logerr.sh builds it: F32 KV cache, flash attention off, the
#     prompt as one batch): positions whose argmax agrees, the mean and
#     largest KL(pipelm || llama.cpp) of the softmaxes, the worst
#     position's ||llama.cpp - pipelm|| / ||pipelm||.  pipelm computes the float32 forward of
#     the weights the blocks hold; llama.cpp rounds the activations to
#     the weights' type (BF16, F16) or to Q8_0/Q8_K blocks for the
#     quantized types: that is most of the distance;
#   - pipelm on the file against pipelm on the F32 GGUF llama-quantize
#     --allow-requantize writes from it (llama.cpp's own dequantization):
#     the worst position's relative difference, which issue 27 bounds by
#     1e-5.
# Plain shell and awk; no figure fails the run; the table goes to stdout.
#
# Environment: PIPELM_BIN (bin), PIPELM_TOOLS (build/rel), SHARED
# (../shared), LLAMA_DIR (build/peer: llama-quantize and llama.cpp/ with
# its include/ and build/ for the probe), CC (cc), CXX (c++), GGUFKL_DIR
# (the work directory, build/ggufkl), GGUFKL_MODELS (names, default all;
# the random ones are random-135m and random-1b), GGUFKL_TYPES ("Q8_0
# Q4_0 Q4_K_M Q6_K").
set -eu

here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"	# top, bin, tools, out; say, fail, ...
shared=${SHARED:-$top/../shared}
ldir=${LLAMA_DIR:-$top/build/peer}
cc=${CC:-cc}
cxx=${CXX:-c++}
work=${GGUFKL_DIR:-$top/build/ggufkl}
types=${GGUFKL_TYPES:-Q8_0 Q4_0 Q4_K_M Q6_K}
me=bench/ggufkl.sh

need_bin llm-logits
need_tools mkmodel mkgguf
l=$ldir/llama.cpp
if ! [ -x "$ldir/llama-quantize" ] || ! [ -r "$l/build/src/libllama.a" ]; then
	say "no llama.cpp in $ldir (make peer): nothing to compare"
	exit 0
fi
mkdir -p "$work"
workdir "$work"

say "building the llama.cpp probe (bench/llama-logits.c)"
$cc -std=c11 -O2 -I"$l/include" -I"$l/ggml/include" \
    -c "$here/llama-logits.c" -o "$tmp/ll.o" 2>"$tmp/err" &&
    $cxx -o "$tmp/llama-logits" "$tmp/ll.o" "$l/build/src/libllama.a" \
    "$l/build/ggml/src/libggml.a" "$l/build/ggml/src/libggml-cpu.a" \
    "$l/build/ggml/src/libggml-base.a" -fopenmp -lpthread -lm 2>>"$tmp/err" ||
	fail "cannot build the probe: $(tail -n 3 "$tmp/err")"
peer=$tmp/llama-logits
peerv=$(sed -n 's/.*"tag": "\(.*\)".*/\1/p' "$l/llama.cpp.info.json" 2>/dev/null || :)

lcmp() { paste -d '\n' "$1" "$2" | awk -f "$here/lcmp.awk"; }
# the types llama-quantize gave the matrices: "12 q5_0, 3 q8_0"
census() {
	sed -n 's/.*converting to \([a-zA-Z0-9_]*\) .*/\1/p' "$1" | sort | uniq -c |
	    awk '{ printf "%s%d %s", (NR > 1 ? ", " : ""), $1, $2 }'
}

models=${GGUFKL_MODELS:-}
if [ -z "$models" ]; then
	models=$(golden_models)
	[ -n "$models" ] || say "no golden models in $shared/models: only the built-in and random ones"
	models="$models stories260K random-135m random-1b"
fi
say "models:$models; types: $types"

echo "## GGUF files: pipelm's logits beside llama.cpp's, $(date -u '+%Y-%m-%d %H:%M UTC') (bench/ggufkl.sh)"
echo
echo "Every position of each model's prompt; llama.cpp ${peerv:-(version unknown)} through bench/llama-logits.c (F32 KV cache). Cells: positions whose argmax agrees / mean KL(pipelm || llama.cpp) / largest KL / worst position's ||llama.cpp - pipelm|| / ||pipelm||; last column: pipelm on the file against pipelm on llama.cpp's F32 dequantization of it, the worst position's relative difference (issue 27: 1e-5)."
echo
echo "| model | file | argmax agree | mean KL | max KL | rel. difference | = its F32 dequantization |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
for name in $models; do
	d=$tmp/m
	rm -rf "$d"
	mkdir -p "$d"
	case $name in
	random-135m)
		src=$d/model
		mkrandom smollm2-135m "$src"
		prompt 1 49152 >"$d/ids" ;;
	random-1b)
		# rows of 2048 and 8192: whole superblocks, the K types as
		# they are (the 135M shape's 576 falls back)
		src=$d/model
		mkrandom llama3.2-1b "$src"
		prompt 1 128256 >"$d/ids" ;;
	*)
		model_ids "$name" "$d" ;;
	esac
	[ -r "$src/config.json" ] || fail "$src: no model"
	if ! "$tools/mkgguf" "$src" "$d/g.gguf" 2>"$tmp/err"; then
		say "$name: mkgguf failed, left out: $(tail -n 2 "$tmp/err")"
		continue
	fi
	dt=$("$bin/st-inspect" "$d/g.gguf" 2>/dev/null |
	    awk -F'\t' '$1 ~ /^blk\.0\.attn_output\.weight$/ { print toupper($2) }')
	fb=
	for q in "as written" $types; do
		if [ "$q" = "as written" ]; then
			f=$d/g.gguf
			label="${dt:-mkgguf} (mkgguf)"
		else
			f=$d/$q.gguf
			label=$q
			if ! "$ldir/llama-quantize" "$d/g.gguf" "$f" "$q" >"$d/$q.log" 2>&1; then
				say "$name: llama-quantize $q failed: $(tail -n 2 "$d/$q.log")"
				continue
			fi
			fb="$fb${fb:+; }$q: $(census "$d/$q.log")"
		fi
		if ! "$bin/llm-logits" -a -f text -t 2 -m "$f" <"$d/ids" >"$d/p" 2>"$tmp/err"; then
			say "$name $q: llm-logits failed: $(tail -n 2 "$tmp/err")"
			echo "| $name | $label | pipelm fails | | | | |"
			continue
		fi
		c=-
		if "$peer" -t 2 "$f" <"$d/ids" >"$d/l" 2>"$tmp/err"; then
			c=$(lcmp "$d/p" "$d/l")
		else
			say "$name $q: llama.cpp failed: $(tail -n 2 "$tmp/err")"
		fi
		deq=-
		if [ "$q" != "as written" ] &&
		    "$ldir/llama-quantize" --allow-requantize "$f" "$d/d.gguf" F32 \
		    >"$d/d.log" 2>&1 &&
		    "$bin/llm-logits" -a -f text -t 2 -m "$d/d.gguf" <"$d/ids" \
		    >"$d/dq" 2>"$tmp/err"; then
			deq=$(lcmp "$d/dq" "$d/p" | awk '{ print $3 }')
		fi
		say "$name $q: $c; dequantized: $deq"
		echo "$c" | awk -v n="$name" -v q="$label" -v dq="$deq" '
		    $0 == "-" { printf "| %s | %s | - | - | - | - | %s |\n", n, q, dq; next }
		    { printf "| %s | %s | %s | %s | %s | %s | %s |\n", n, q, $6, $4, $5, $3, dq }'
	done
	[ -z "$fb" ] || echo "- $name: $fb" >>"$tmp/types"
done
if [ -s "$tmp/types" ]; then
	echo
	echo "The matrices' types in llama-quantize's files (the output head in Q6_K, Q4_K_M's Q6_K layers; rows not a multiple of 256 fall back from the K types):"
	echo
	cat "$tmp/types"
fi
