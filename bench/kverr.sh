#!/bin/sh
# bench/kverr.sh: how far a 16-bit or Q8_0 KV cache (--kv-type bf16, f16,
# q8_0) puts the logits from the float32 cache's, as bench/logerr.sh
# measures the 4-bit forms: every position's logits over a prompt, against pipelm's
# exact forward pass (--kv-type f32).  The models: ../shared's golden
# ones (the arch-* models over their golden ids), the built-in
# stories260K, and a random SmolLM2-135M-shaped BF16 model (mkmodel seed
# 1) over KVERR_LEN random ids (256): the longer the prompt, the more
# rounded keys each position reads.  Figures, per cell: the largest
# absolute difference of a logit / the RMS difference over every logit /
# the worst position's ||a - b|| / ||b|| / the mean KL(f32 || form) of the
# softmaxes / positions whose argmax agrees.  The peer: llama.cpp's
# -ctk q8_0 -ctv q8_0 against its F32 caches (bench/llama-logits.c -k,
# flash attention on in both) on mkgguf's GGUF of the same model.  The
# table goes to stdout; no figure fails the run.
#
# Environment: PIPELM_BIN (bin), PIPELM_TOOLS (build/rel), SHARED
# (../shared), LLAMA_DIR (build/peer, as bench/logerr.sh; none: no
# peer), CC (cc), CXX (c++), KVERR_DIR (build/kverr, its files removed at the end),
# KVERR_LEN (256), KVERR_MODELS (names, default all; the random one is
# random-135m).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"	# top, bin, tools, out; say, fail, ...
shared=${SHARED:-$top/../shared}
work=${KVERR_DIR:-$top/build/kverr}
len=${KVERR_LEN:-256}
me=bench/kverr.sh

posint KVERR_LEN "$len"
need_bin llm-logits
need_tools mkmodel mkgguf
mkdir -p "$work"
workdir "$work"
llama_probe "${LLAMA_DIR:-$top/build/peer}" "${CC:-cc}" "${CXX:-c++}"

# reference frames and another's (bench/lcmp.awk, as logerr.sh), the
# worst position's KL left out
lcmp() {	# ref other -> "maxabs / rms / rel / kl / top1/n"
	paste -d '\n' "$1" "$2" | awk -f "$here/lcmp.awk" |
	    awk '$1 == "-" { print; next }
	    { print $1 " / " $2 " / " $3 " / " $4 " / " $6 }'
}
models=${KVERR_MODELS:-}
[ -n "$models" ] || models="$(golden_models) stories260K random-135m"
say "models:$models"
echo "## 16-bit and Q8_0 KV caches: logit error, $(date -u '+%Y-%m-%d %H:%M UTC') (bench/kverr.sh)"
echo
echo "Against --kv-type f32 (exact), every position of the prompt; each cell: max |logit difference| / RMS difference / worst position's ||a - b|| / ||b|| / mean KL(f32 || form) / positions whose argmax agrees."
echo
echo "| model | positions | --kv-type bf16 | --kv-type f16 | --kv-type q8_0 | llama.cpp q8_0 KV${peerv:+ ($peerv)} |"
echo "| --- | --- | --- | --- | --- | --- |"
for name in $models; do
	d=$tmp/m
	rm -rf "$d"
	mkdir -p "$d"
	case $name in
	random-135m)
		src=$work/random-135m
		mkrandom smollm2-135m "$src"
		prompt 1 49152 "$len" >"$d/ids" ;;
	stories260K)
		src=$top/share/pipelm/stories260K
		prompt 7 512 "$len" >"$d/ids" ;;
	*)
		src=$shared/models/$name
		golden_ids "$name" >"$d/ids" ;;
	esac
	[ -r "$src/config.json" ] || fail "$src: no model"
	lg() { "$bin/llm-logits" -a -f text -t 2 -m "$src" --kv-type "$1" <"$d/ids" >"$d/$1"; }
	lg f32 || fail "$name: llm-logits --kv-type f32 failed"
	lg bf16 || fail "$name: llm-logits --kv-type bf16 failed"
	lg f16 || fail "$name: llm-logits --kv-type f16 failed"
	lg q8_0 || fail "$name: llm-logits --kv-type q8_0 failed"
	pc=-
	if [ "$peer" != none ]; then
		pc="fails (mkgguf or llama.cpp)"
		if "$tools/mkgguf" "$src" "$d/g.gguf" >/dev/null 2>&1 &&
		    "$peer" -t 2 -k f32 "$d/g.gguf" <"$d/ids" >"$d/lf32" 2>/dev/null &&
		    "$peer" -t 2 -k q8_0 "$d/g.gguf" <"$d/ids" >"$d/lq8" 2>/dev/null; then
			pc=$(lcmp "$d/lf32" "$d/lq8")
		fi
	fi
	echo "| $name | $(wc -w <"$d/ids") | $(lcmp "$d/f32" "$d/bf16") | $(lcmp "$d/f32" "$d/f16") | $(lcmp "$d/f32" "$d/q8_0") | $pc |"
	rm -f "$d/f32" "$d/bf16" "$d/f16" "$d/q8_0" "$d/g.gguf" "$d/lf32" "$d/lq8"
done
