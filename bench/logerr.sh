#!/bin/sh
# bench/logerr.sh: how far 4-bit weights put the logits from the float
# model's, pipelm's forms beside llama.cpp's.  For each model, over a fixed
# prompt (every position's logits), against the float32 reference (pipelm's
# exact forward pass on the float weights):
#   - pipelm --quant q4 (quantized at load) and the folder `llm-quant`
#     writes (group 32, round to nearest, lm_head in 4 bits), which must
#     agree bit for bit;
#   - llama.cpp Q4_0 and Q4_K_M, by its own llama-quantize from mkgguf's
#     GGUF of the same weights (BF16 for a BF16 model), and llama.cpp on
#     mkgguf -F's F32 GGUF: its own distance from the reference with no
#     quantization at all.
# A second table holds the integer-activation forms against the same
# reference: pipelm --quant q8_0 (int16 activations), --quant q8_0
# --int8-act and --quant q4 --int8-act (activations in int8 per block of
# 32), beside llama.cpp's Q8_0 (mkgguf -q's GGUF of the same weights) and
# Q4_0, whose matrix products round the activations to int8 (Q8_0 blocks)
# too.  A third table: pipelm -m FILE.gguf --int8-act on llama.cpp's own
# Q8_0, Q4_0 and Q4_K_M files beside llama.cpp on the same files.
# llama.cpp's logits come from bench/llama-logits.c, built here against the
# libllama of `make peer` (F32 KV cache, flash attention off, the prompt as
# one batch).  The models: ../shared's golden ones with float weights (the
# arch-* models, their golden ids) and the built-in stories260K (trained,
# F32), and two random SmolLM2-135M-shaped BF16 models (mkmodel seeds 1
# and 2, 32 random ids).  Figures: the largest absolute difference of a
# logit, the RMS difference over every logit, the worst position's
# ||a - b|| / ||b||, the mean (and largest) KL divergence of the softmax
# from the reference's, and at how many positions the argmax agrees.  The
# table goes to stdout.  Plain shell and awk; no figure fails the run.
#
# Environment: PIPELM_BIN (bin), PIPELM_TOOLS (build/rel), SHARED
# (../shared), LLAMA_DIR (build/peer: llama-quantize, and llama.cpp/ with
# its include/ and build/ for the probe; "none" leaves llama.cpp out),
# CC (cc), CXX (c++, to link the probe), LOGERR_DIR (the work directory,
# build/logerr: its files are removed at the end), LOGERR_MODELS (names
# of the models, default all; the random ones are random-135m-s1 and -s2).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"	# top, bin, tools, out; say, fail, ...
shared=${SHARED:-$top/../shared}
ldir=${LLAMA_DIR:-$top/build/peer}
cc=${CC:-cc}
cxx=${CXX:-c++}
work=${LOGERR_DIR:-$top/build/logerr}
me=bench/logerr.sh

need_bin llm-logits llm-quant
need_tools mkmodel mkgguf
mkdir -p "$work"
workdir "$work"

# ---- llama.cpp: the probe (common.sh) ----
llama_probe "$ldir" "$cc" "$cxx"

# ---- the comparison: reference frames and another's, interleaved ----
lcmp() {	# ref other -> "maxabs rms rel kl maxkl top1/n"
	paste -d '\n' "$1" "$2" | awk -f "$here/lcmp.awk"
}
# a cell: max abs / RMS / rel / KL / top-1
cell() {
	case $1 in
	-) echo - ;;
	fail*) echo "fails (exit status ${1#fail })" ;;
	*) echo "$1" | awk '{ printf "%s / %s / %s / %s / %s", $1, $2, $3, $4, $6 }' ;;
	esac
}
# the types llama-quantize gave the matrices: "12 q5_0, 3 q8_0"
census() {
	sed -n 's/.*converting to \([a-zA-Z0-9_]*\) .*/\1/p' "$1" | sort | uniq -c |
	    awk '{ printf "%s%d %s", (NR > 1 ? ", " : ""), $1, $2 }'
}

# ---- the models ----
models=${LOGERR_MODELS:-}
if [ -z "$models" ]; then
	models=$(golden_models)
	[ -n "$models" ] || say "no golden models in $shared/models: only the built-in and random ones"
	models="$models stories260K random-135m-s1 random-135m-s2"
fi

say "models:$models"
{
echo "## 4-bit logit error, $(date -u '+%Y-%m-%d %H:%M UTC') (bench/logerr.sh)"
echo
echo "Against the float32 reference (pipelm exact on the float weights), every position of the prompt; each cell: max |logit difference| / RMS difference / worst position's ||a - b|| / ||b|| / mean KL(reference || form) / positions whose argmax agrees.${peerv:+ llama.cpp $peerv.}"
echo
echo "| model | pipelm --quant q4 | llm-quant folder | llm-quant --keep-head | llama.cpp Q4_0 | llama.cpp Q4_K_M | llama.cpp F32 (no quantization) |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
} >"$tmp/table"
for name in $models; do
	d=$tmp/m
	rm -rf "$d" "$d.q4" "$d.q4h"
	mkdir -p "$d"
	case $name in
	random-135m-s*)
		src=$d/model
		mkrandom smollm2-135m "$src" "${name#random-135m-s}"
		prompt "${name#random-135m-s}" 49152 >"$d/ids" ;;
	*)
		model_ids "$name" "$d" ;;
	esac
	[ -r "$src/config.json" ] || fail "$src: no model"
	say "$name: pipelm"
	lg() { "$bin/llm-logits" -a -f text -t 2 -m "$@" <"$d/ids"; }
	# a form's figures, or "fail STATUS": a form that fails is reported
	# in its cell, the others still measured
	form() {	# out model [flag]
		fo=$1
		shift
		if lg "$@" >"$fo" 2>"$tmp/err"; then
			lcmp "$d/ref" "$fo"
		else
			echo "fail $?"
			say "$name: llm-logits -m $* failed: $(tail -n 2 "$tmp/err")"
			echo x >"$fo"
		fi
	}
	lg "$src" >"$d/ref" || fail "llm-logits -m $src failed"
	rq4=$(form "$d/q4" "$src" --quant q4)
	"$bin/llm-quant" "$src" "$d.q4" >/dev/null || fail "llm-quant $src failed"
	rf4=$(form "$d/f4" "$d.q4")
	"$bin/llm-quant" --keep-head "$src" "$d.q4h" >/dev/null ||
		fail "llm-quant --keep-head $src failed"
	rh4=$(form "$d/h4" "$d.q4h")
	r8=$(form "$d/q8" "$src" --quant q8_0)
	r8i=$(form "$d/q8i" "$src" --quant q8_0 --int8-act)
	r4i=$(form "$d/q4i" "$src" --quant q4 --int8-act)
	rf4i=$(form "$d/f4i" "$d.q4" --int8-act)
	same8=$(cmp -s "$d/q4i" "$d/f4i" && echo yes || echo no)
	same=$(cmp -s "$d/q4" "$d/f4" && echo yes || echo no)
	r40=-
	r4k=-
	r80=-
	rg8=-
	rg40=-
	rg4k=-
	rf=-
	fb=
	if [ "$peer" != none ]; then
		say "$name: llama.cpp"
		if "$tools/mkgguf" "$src" "$d/g.gguf" 2>"$tmp/err" &&
		    "$tools/mkgguf" -F "$src" "$d/f.gguf" 2>>"$tmp/err"; then
			"$peer" -t 2 "$d/f.gguf" <"$d/ids" >"$d/lf" 2>"$tmp/err" &&
				rf=$(lcmp "$d/ref" "$d/lf") ||
				say "$name: llama.cpp F32 failed: $(tail -n 2 "$tmp/err")"
			# mkgguf -q takes rows of whole blocks; else
			# llama-quantize, which keeps such a matrix in F16
			if ! "$tools/mkgguf" -q "$src" "$d/q8.gguf" 2>"$tmp/err"; then
				say "$name: $(tail -n 1 "$tmp/err"): Q8_0 by llama-quantize"
				"$ldir/llama-quantize" "$d/g.gguf" "$d/q8.gguf" Q8_0 \
				    >"$d/Q8_0.log" 2>&1 &&
					fb="$fb${fb:+; }Q8_0: $(census "$d/Q8_0.log")"
			fi
			if [ -r "$d/q8.gguf" ] &&
			    "$peer" -t 2 "$d/q8.gguf" <"$d/ids" >"$d/l8" 2>"$tmp/err"; then
				r80=$(lcmp "$d/ref" "$d/l8")
				rg8=$(form "$d/g8" "$d/q8.gguf" --int8-act)
			else
				say "$name: llama.cpp Q8_0 failed: $(tail -n 2 "$tmp/err")"
			fi
			for q in Q4_0 Q4_K_M; do
				if ! "$ldir/llama-quantize" "$d/g.gguf" "$d/$q.gguf" $q \
				    >"$d/$q.log" 2>&1; then
					say "$name: llama-quantize $q failed: $(tail -n 2 "$d/$q.log")"
					continue
				fi
				# the K types need rows of 256: shorter ones fall back
				fb="$fb${fb:+; }$q: $(census "$d/$q.log")"
				if "$peer" -t 2 "$d/$q.gguf" <"$d/ids" >"$d/l$q" 2>"$tmp/err"; then
					r=$(lcmp "$d/ref" "$d/l$q")
				else
					say "$name: llama.cpp $q failed: $(tail -n 2 "$tmp/err")"
					r=-
				fi
				if [ $q = Q4_0 ]; then r40=$r; else r4k=$r; fi
				# pipelm --int8-act on llama.cpp's own file
				r=$(form "$d/g$q" "$d/$q.gguf" --int8-act)
				if [ $q = Q4_0 ]; then rg40=$r; else rg4k=$r; fi
			done
		else
			say "$name: mkgguf failed: $(tail -n 2 "$tmp/err")"
		fi
	fi
	say "$name: q4 $rq4; folder $rf4 (bit-identical: $same); keep-head $rh4; Q4_0 $r40; Q4_K_M $r4k; F32 $rf${fb:+; $fb}"
	printf '| %s | %s | %s%s | %s | %s | %s | %s |\n' "$name" "$(cell "$rq4")" \
	    "$(cell "$rf4")" "$([ $same = yes ] && echo " (= q4, bit for bit)")" \
	    "$(cell "$rh4")" "$(cell "$r40")" "$(cell "$r4k")" "$(cell "$rf")" >>"$tmp/table"
	[ -z "$fb" ] || echo "- $name: $fb" >>"$tmp/types"
	say "$name: q8_0 $r8; q8_0 int8-act $r8i; Q8_0 $r80; q4 int8-act $r4i; folder int8-act $rf4i (bit-identical: $same8)"
	printf '| %s | %s | %s | %s | %s%s | %s |\n' "$name" "$(cell "$r8")" \
	    "$(cell "$r8i")" "$(cell "$r80")" "$(cell "$r4i")" \
	    "$([ $same8 = yes ] && echo " (the folder's: the same bits)")" \
	    "$(cell "$r40")" >>"$tmp/table8"
	printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$name" "$(cell "$rg8")" \
	    "$(cell "$r80")" "$(cell "$rg40")" "$(cell "$r40")" "$(cell "$rg4k")" \
	    "$(cell "$r4k")" >>"$tmp/tablegg"
done
cat "$tmp/table"
echo
echo "Integer activations (--int8-act), against the same reference, each cell as above: pipelm with int16 activations (--quant q8_0) and int8 ones (--int8-act) beside llama.cpp, whose Q8_0 and Q4_0 products take int8 activations (Q8_0 blocks of 32) too; llama.cpp Q8_0 is mkgguf -q's GGUF (the embedding table in Q8_0 too)."
echo
echo "| model | pipelm --quant q8_0 | pipelm --quant q8_0 --int8-act | llama.cpp Q8_0 | pipelm --quant q4 --int8-act | llama.cpp Q4_0 |"
echo "| --- | --- | --- | --- | --- | --- |"
cat "$tmp/table8"
if [ -s "$tmp/tablegg" ]; then
	echo
	echo "llama.cpp's own GGUF files (those of the columns above) read by pipelm with --int8-act (its integer kernels for their block types, the K-quants' activations per 256 as llama.cpp's Q8_K), beside llama.cpp on the same file; a cell \"fail\" where a file holds a type --int8-act has no kernels for."
	echo
	echo "| model | pipelm Q8_0.gguf --int8-act | llama.cpp Q8_0 | pipelm Q4_0.gguf --int8-act | llama.cpp Q4_0 | pipelm Q4_K_M.gguf --int8-act | llama.cpp Q4_K_M |"
	echo "| --- | --- | --- | --- | --- | --- | --- |"
	cat "$tmp/tablegg"
fi
if [ -s "$tmp/types" ]; then
	echo
	echo "The matrices' types in llama.cpp's files (llama-quantize's choices: the output head in Q6_K, Q4_K_M's Q6_K layers; where a row is not a multiple of 256 the K types fall back to Q5_0 and Q8_0):"
	echo
	cat "$tmp/types"
fi
