#!/bin/sh
# bench/gguf.sh: GGUF files as they are, pipelm beside llama.cpp on the
# same files (issue 27's benchmark; `make bench-gguf`, and the GGUF rows
# of `make bench`, which runs it after bench/run.sh's own).  For each
# model (the SmolLM2-135M and Llama-3.2-1B shapes, random BF16, written
# once under BENCH_DIR as bench/run.sh writes them, and their BF16 GGUF
# by tools/mkgguf), llama.cpp's own llama-quantize writes the files of
# each type (Q4_K_M, Q4_0, Q6_K, Q8_0: its mixtures, the output head in
# Q6_K, rows not whole superblocks falling back); on each file, for 1 and
# 2 threads: prefill of 128 ids (llm-logits, warm: a one-id record
# first) and decode of 128 ids after a 32-id prompt (llm-gen --ignore-eos
# --temp 0), each in float32 and with --int8-act (activations rounded to
# int8 per block, integer products: llama.cpp's own class on these
# files), beside llama-bench -p 128 -n 0 and -p 0 -n 128 -d 32 on the
# file, run right after pipelm's with the same thread count; the ratios
# pipelm / llama.cpp, of each.  Cells: median (min-max) of the repetitions.
# Without llama.cpp (make peer) there are no such files: said, and
# nothing run (exit 0).  The table goes to stdout and to
# BENCH_DIR/gguf.md.
#
# Environment: PIPELM_BIN (bin), PIPELM_TOOLS (build/rel), BENCH_DIR
# (build/bench), BENCH_REPS (3), BENCH_1B (1; 0 leaves the 1B shape out),
# PIPELM_KERNEL (passed on), LLAMA_DIR (build/peer: llama-quantize and
# llama-bench; LLAMA_BENCH and LLAMA_QUANTIZE name them one by one),
# BENCH_GGUF_TYPES (llama-quantize's type names, "Q4_K_M Q4_0 Q6_K
# Q8_0"), BENCH_GGUF_MODELS (mkmodel presets or model folders, "smollm2-135m
# llama3.2-1b": a folder's files are written under BENCH_DIR by its
# name).  Takes, on 2 idle cores, about 5 minutes a repetition of both
# shapes without the --int8-act runs (294 s, bench/NOTES.md 2026-12-02
# 22:22 UTC), which add pipelm's share of that again, and the files once
# (about 8 GB for the 1B shape, shared with bench/run.sh's).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"	# top, bin, tools, out; say, fail, ...
reps=${BENCH_REPS:-3}
do1b=${BENCH_1B:-1}
ldir=${LLAMA_DIR:-$top/build/peer}
peer=${LLAMA_BENCH:-$ldir/llama-bench}
lquant=${LLAMA_QUANTIZE:-$ldir/llama-quantize}
types=${BENCH_GGUF_TYPES:-Q4_K_M Q4_0 Q6_K Q8_0}
models=${BENCH_GGUF_MODELS:-smollm2-135m llama3.2-1b}
me=bench/gguf.sh

# the arguments, before anything runs
posint BENCH_REPS "$reps"
zero_one BENCH_1B "$do1b"
[ -n "$types" ] || fail "BENCH_GGUF_TYPES: empty"
for q in $types; do
	# the types pipelm runs that llama-quantize writes without an
	# importance matrix
	case $q in
	Q4_0|Q4_1|Q5_0|Q5_1|Q8_0|Q2_K|Q3_K_S|Q3_K_M|Q3_K_L|Q4_K_S|Q4_K_M|\
	Q5_K_S|Q5_K_M|Q6_K|IQ4_NL|IQ4_XS|BF16|F16) ;;
	*) fail "BENCH_GGUF_TYPES: $q: not a llama-quantize type pipelm runs (Q4_K_M, Q4_0, Q6_K, Q8_0, Q5_K_M, IQ4_XS, ...)" ;;
	esac
done
[ "$do1b" = 1 ] || models=$(echo $models | tr ' ' '\n' | grep -vx 'llama3.2-1b' | tr '\n' ' ')
[ -n "$(echo $models)" ] || fail "BENCH_GGUF_MODELS: no model"
need_bin llm-gen llm-logits st-inspect
need_tools mkmodel mkgguf
if ! [ -x "$lquant" ] || ! [ -x "$peer" ]; then
	say "no llama.cpp ($lquant, $peer: make peer): no llama-quantize files to run, the GGUF rows left out"
	exit 0
fi

mkdir -p "$out"
workdir
tstart=$(date +%s)

# ---- the files, written once (renamed into place when complete) ----
# name of a model word: a preset's as bench/run.sh names its folder, a
# folder's own
mname() { case $1 in */*) basename "$1" ;; *) echo "$1-bf16" ;; esac; }
mdir() { case $1 in */*) echo "$1" ;; *) echo "$out/$1-bf16" ;; esac; }
mkm() {	# word
	d=$(mdir "$1")
	[ -r "$d/config.json" ] && return 0
	case $1 in */*) fail "$1: no config.json" ;; esac
	mkrandom "$1" "$d"
}
mkgg() {	# folder out.gguf
	[ -s "$2" ] && [ "$2" -nt "$1/config.json" ] && [ "$2" -nt "$tools/mkgguf" ] &&
		return 0
	say "writing $2 (mkgguf)"
	"$tools/mkgguf" "$1" "$2.tmp" || { rm -f "$2.tmp"; fail "mkgguf $1 failed"; }
	mv "$2.tmp" "$2"
}
# the file names bench/run.sh gives Q4_0 and Q4_K_M (the same bytes);
# Q8_0 is "lq8_0", llama-quantize's, not mkgguf -q's
gfile() {	# base TYPE
	t=$(echo "$2" | tr '[:upper:]' '[:lower:]')
	[ "$t" != q8_0 ] || t=lq8_0
	echo "$out/$1-$t.gguf"
}
mklq() {	# bf16.gguf out.gguf TYPE
	[ -s "$2" ] && [ "$2" -nt "$1" ] && return 0
	say "writing $2 (llama-quantize $3)"
	"$lquant" "$1" "$2.tmp" "$3" >"$tmp/lqlog" 2>&1 ||
		{ rm -f "$2.tmp"; fail "llama-quantize $1 $3 failed: $(tail -n 3 "$tmp/lqlog")"; }
	mv "$2.tmp" "$2"
}
for w in $models; do
	mkm "$w"
	b=$(mname "$w")
	mkgg "$(mdir "$w")" "$out/$b.gguf"
	for q in $types; do
		mklq "$out/$b.gguf" "$(gfile "${b%-bf16}" "$q")" "$q"
		warm "$(gfile "${b%-bf16}" "$q")"
	done
done

# ---- prompts: random ids below each vocabulary, fixed seed (prompt,
# bench/common.sh) ----
# pipelm's prefill and decode of a file, as prefix v ("" float, "i"
# --int8-act) of the figures
pre() {	# base gguf tag threads v [--int8-act]
	"$bin/llm-logits" -m "$2" -t "$4" --timing ${6:-} <"$tmp/w128.$1" \
	    >/dev/null 2>"$tmp/err" ||
		fail "llm-logits -m $2 -t $4 ${6:+$6 }failed: $(cat "$tmp/err")"
	put "${5}p.$3" "$4" "$(num "$tmp/err" "prefill [0-9]* tokens, $F tokens/s")"
}
dec() {	# base gguf tag threads v [--int8-act]
	"$bin/llm-gen" -m "$2" -t "$4" --timing --ignore-eos -n 128 --temp 0 \
	    ${6:-} <"$tmp/p32.$1" >/dev/null 2>"$tmp/err" ||
		fail "llm-gen -m $2 -t $4 ${6:+$6 }failed: $(cat "$tmp/err")"
	put "${5}d.$3" "$4" "$(num "$tmp/err" "decode [0-9]* tokens, $F tokens/s")"
}
run() {	# base gguf tag threads
	pre "$@" ""
	pre "$@" i --int8-act
	lb "lp.$3" "$4" "$2" -p 128 -n 0
	dec "$@" ""
	dec "$@" i --int8-act
	lb "ld.$3" "$4" "$2" -p 0 -n 128 -d 32
}
for w in $models; do
	b=$(mname "$w")
	v=$(sed -n 's/.*"vocab_size": *\([0-9]*\).*/\1/p' "$(mdir "$w")/config.json")
	[ -n "$v" ] || fail "$(mdir "$w")/config.json: no vocab_size"
	prompt 4242 "$v" >"$tmp/p32.$b"
	{ echo 1; prompt 12345 "$v" 128; } >"$tmp/w128.$b"
done

t0=$(date +%s)
r=1
while [ "$r" -le "$reps" ]; do
	for w in $models; do
		b=$(mname "$w")
		for q in $types; do
			for t in 1 2; do
				say "repetition $r/$reps: $b $q, $t thread(s)"
				run "$b" "$(gfile "${b%-bf16}" "$q")" "$b.$q" $t
			done
		done
	done
	[ $r -ne 1 ] || say "one repetition took $(( $(date +%s) - t0 )) s"
	r=$((r + 1))
done

# median (min-max) of a figure; "-" where there is none
cell() {
	[ -s "$tmp/v.$1.$2" ] || { echo -; return; }
	sort -g "$tmp/v.$1.$2" | awk '{ v[NR] = $1 } END {
		m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		if (NR == 1) printf "%.1f", m
		else printf "%.1f (%.1f-%.1f)", m, v[1], v[NR] }'
}
peerv=$(sed -n 's/.*"tag": "\(.*\)".*/\1/p' "$ldir/llama.cpp/llama.cpp.info.json" 2>/dev/null || :)
b=$(mname "$(echo $models | cut -d' ' -f1)")
kern=$("$bin/llm-gen" -v -m "$(gfile "${b%-bf16}" "$(echo $types | cut -d' ' -f1)")" \
    </dev/null 2>&1 | sed -n 's/.*kernels \([^,]*\),.*/\1/p' | head -n 1)
{
echo "## GGUF files, pipelm beside llama.cpp, $(date -u '+%Y-%m-%d %H:%M UTC') (bench/gguf.sh)"
echo
echo "- pipelm's ${kern:-?} kernels$(git -C "$top" rev-parse --short HEAD 2>/dev/null | sed 's/^/, commit /'); llama.cpp ${peerv:-(version unknown)} ($peer); load average after: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')"
echo "- the files: llama-quantize's own from mkgguf's BF16 GGUF of each random BF16 model; $reps repetition(s), $(( $(date +%s) - tstart )) s in all; cells median (min-max), tokens/s; ratio pipelm / llama.cpp"
echo
echo "| model | file | threads | prefill 128 pipelm | --int8-act | llama.cpp | ratio | ratio --int8-act | decode 128 after 32 pipelm | --int8-act | llama.cpp | ratio | ratio --int8-act |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
for w in $models; do
	b=$(mname "$w")
	for q in $types; do
		for t in 1 2; do
			k=$b.$q
			printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' \
			    "${b%-bf16}" "$q" "$t" "$(cell "p.$k" $t)" \
			    "$(cell "ip.$k" $t)" "$(cell "lp.$k" $t)" \
			    "$(ratio "p.$k" "lp.$k" $t)" \
			    "$(ratio "ip.$k" "lp.$k" $t)" \
			    "$(cell "d.$k" $t)" "$(cell "id.$k" $t)" \
			    "$(cell "ld.$k" $t)" "$(ratio "d.$k" "ld.$k" $t)" \
			    "$(ratio "id.$k" "ld.$k" $t)"
		done
	done
done
} >"$tmp/gguf.md"
cp "$tmp/gguf.md" "$out/gguf.md"
cat "$out/gguf.md"
say "written $out/gguf.md"
