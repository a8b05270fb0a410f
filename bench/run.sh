#!/bin/sh
# bench/run.sh: what `make bench` runs (after `make`).  It reports, it
# never fails on a figure:
#   - the machine: read bandwidth (streaming sum) and float32 FMA roof,
#     measured by bench/probe.c (built here with $CC -O2);
#   - on a SmolLM2-135M-shaped random BF16 model (written once by
#     mkmodel under build/bench/): for 1 and 2 threads, load time,
#     prefill of 128 and 512 tokens, decode of 128 tokens after a
#     128-token prompt, first-token time, peak RSS; decode as a share of
#     the bandwidth floor, prefill as a share of the FMA roof;
#   - the proportional set size of two llm-gen processes on one model;
#   - the tokenizer figures of bench/tok.sh;
#   - the long-context rows of bench/depth.sh: prefill 512 and decode
#     after BENCH_DEPTH (4096; 0: none) positions, f32 and bf16 KV cache,
#     beside llama-bench -d, repetitions as the main runs';
#   - when llama.cpp's llama-bench is built (make peer, bench/peer.sh):
#     the same model as GGUF (tools/mkgguf; BF16, F32 and Q8_0, and Q4_0 and
#     Q4_K_M from the BF16 one by llama.cpp's llama-quantize), prefill 128
#     and decode 128 after 128 by llama-bench, run in each repetition
#     right after pipelm's runs with the same thread count, beside
#     pipelm's exact, --bf16-act, --quant q8_0 and --quant q4 modes
#     (these two also with --int8-act, beside llama.cpp's Q8_0 and Q4_0)
#     and pipelm -m FILE.gguf --int8-act on llama.cpp's own Q8_0, Q4_0 and
#     Q4_K_M files, prefill 128 and decode 128, beside it
#     and the 4-bit folder llm-quant writes (cached under build/bench/);
#     pipelm's fast modes and 4-bit rows run without llama.cpp too;
#   - the Llama-3.2-1B shape (mkmodel --preset llama3.2-1b, random BF16;
#     its llm-quant folder, its GGUFs in BF16, Q8_0, Q4_0 and Q4_K_M, all
#     written once under build/bench/, about 9 GB): prefill 128 and decode
#     128 after 128 for 1 and 2 threads, pipelm exact, --quant q8_0,
#     --quant q4 (each also with --int8-act) and the 4-bit folder beside
#     llama.cpp in the four types;
#   - the GGUF rows of bench/gguf.sh (BENCH_GGUF=0 leaves them out):
#     llama-quantize's files read in place beside llama.cpp;
#   - a row per shape of BENCH_SHAPES (mkmodel presets, random BF16,
#     written once under build/bench/): prefill 128 and decode 128 after
#     128 for 1 and 2 threads, decode against that shape's bandwidth
#     floor, llama-bench beside it on the same weights (mkgguf).
# Several repetitions of each figure: median (min-max).  The table goes to
# stdout and to build/bench/results.md; it names the kernel table pipelm
# ran and the llama.cpp build beside it.
#
# Environment: BENCH_REPS (5), BENCH_BUDGET (seconds for the model runs,
# 420: repetitions are cut to fit, and the table says so), BENCH_DIR
# (build/bench), CC (cc), PIPELM_BIN (bin), PIPELM_TOOLS (build/rel),
# PIPELM_KERNEL (passed on to the programs), LLAMA_BENCH (the peer:
# build/peer/llama-bench; "none" to leave it out), BENCH_SHAPES (the
# presets of the shape rows, "qwen3-0.6b gemma3-1b"; "none" for none:
# they take about 4 minutes a repetition on 2 cores, cut to fit what is
# left of BENCH_BUDGET after the main runs, one repetition at least),
# BENCH_1B (1; 0 leaves the 1B rows out: cut like the shapes, one
# repetition at least), BENCH_KERNEL (the kernel table: "native", the
# default, is pipelm's own choice beside llama.cpp built for this CPU;
# "avx2" sets PIPELM_KERNEL=avx2 and takes the AVX2-only llama.cpp of
# build/peer-avx2 (make peer-avx2) as the peer, or on a CPU with
# AVX-VNNI the one of build/peer-avxvnni (make peer-avxvnni), and the
# AVX2 FMA roof), LLAMA_QUANTIZE (beside LLAMA_BENCH: llama-quantize).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"	# top, bin, tools, out; say, fail, warm, ...
reps=${BENCH_REPS:-5}
budget=${BENCH_BUDGET:-420}
cc=${CC:-cc}
model=$out/smollm2-135m-bf16
model4=$out/smollm2-135m-q4
m1b=$out/llama3.2-1b-bf16
m1b4=$out/llama3.2-1b-q4
shapes=${BENCH_SHAPES:-qwen3-0.6b gemma3-1b}
[ "$shapes" != none ] || shapes=
do1b=${BENCH_1B:-1}
bkern=${BENCH_KERNEL:-native}
me=bench/run.sh
# the Python row (bench/python.py) where python3 and libpipelm.so are
pylib=$tools/libpipelm.so
{ command -v python3 >/dev/null && [ -r "$pylib" ]; } || pylib=

case $bkern in
native) peer=${LLAMA_BENCH:-$top/build/peer/llama-bench} ;;
avx2)
	# the AVX2 llama.cpp is the fair peer of pipelm's AVX2 table: the
	# native build would use AVX-512 on this machine; where the CPU has
	# AVX-VNNI pipelm's AVX2 table takes it, and so does the peer
	# (build/peer-avxvnni, make peer-avxvnni)
	export PIPELM_KERNEL=avx2
	if grep -qw avx_vnni /proc/cpuinfo 2>/dev/null; then
		peer=${LLAMA_BENCH:-$top/build/peer-avxvnni/llama-bench}
	else
		peer=${LLAMA_BENCH:-$top/build/peer-avx2/llama-bench}
	fi ;;
*) fail "BENCH_KERNEL: $bkern: not native or avx2" ;;
esac
case $do1b in 0|1) ;; *) fail "BENCH_1B: $do1b: not 0 or 1" ;; esac

case $reps in ''|*[!0-9]*|0) fail "BENCH_REPS: $reps: not a positive number" ;; esac
case $budget in ''|*[!0-9]*) fail "BENCH_BUDGET: $budget: not a number" ;; esac
for p in llm-gen llm-logits st-inspect tok-encode; do
	[ -x "$bin/$p" ] || fail "$bin/$p: not built (run make first)"
done
[ -x "$tools/mkmodel" ] || fail "$tools/mkmodel: not built (run make tools first)"
[ -x "$bin/llm-quant" ] || fail "$bin/llm-quant: not built (run make first)"

mkdir -p "$out"
tstart=$(date +%s)
tmp=$(mktemp -d)
pids=
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null || :; done
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- the probe ----
say "building $out/probe"
$cc -std=c11 -O2 -Wall -Wextra -pthread -D_POSIX_C_SOURCE=200809L \
    -D_DEFAULT_SOURCE -o "$out/probe" "$here/probe.c" -lm ||
	fail "cannot build bench/probe.c with $cc"
probe=$out/probe

# ---- the models, written once (a folder is renamed into place only
# when complete, so an interrupted run leaves none half written) ----
mkm() {	# preset dir
	if [ -r "$2/config.json" ] && [ -r "$2/model.safetensors" ]; then
		say "model: $2 (present)"
		return 0
	fi
	say "model: writing $2 ($1 shape, random BF16)"
	rm -rf "$2.tmp"
	mkdir -p "$2.tmp"
	"$tools/mkmodel" -s 1 --preset "$1" --dtype bf16 "$2.tmp" ||
		{ rm -rf "$2.tmp"; fail "mkmodel --preset $1 failed"; }
	rm -rf "$2"
	mv "$2.tmp" "$2"
}
# the 4-bit folder of a model (llm-quant's defaults: group 32, lm_head in
# 4 bits), again when the model or llm-quant is newer
mkq4() {	# src dst
	[ -r "$2/config.json" ] && [ "$2/model.safetensors" -nt "$1/model.safetensors" ] &&
	    [ "$2/model.safetensors" -nt "$bin/llm-quant" ] && return 0
	say "model: writing $2 (llm-quant $1)"
	rm -rf "$2.tmp" "$2"
	"$bin/llm-quant" "$1" "$2.tmp" >/dev/null 2>"$tmp/err" ||
		{ rm -rf "$2.tmp"; fail "llm-quant $1 failed: $(cat "$tmp/err")"; }
	mv "$2.tmp" "$2"
}
mkm smollm2-135m "$model"
mkq4 "$model" "$model4"
warm "$model"
warm "$model4"
"$bin/st-inspect" "$model" >"$tmp/inspect" || fail "st-inspect $model failed"
cfg() { sed -n "s/^$1: //p" "$tmp/inspect" | tail -n 1; }
# FLOPs per token, the issue's measure: 2 x the parameters of every matrix
# a token goes through (q, k, v, o, gate, up, down per layer, and lm_head)
gflops() {	# after st-inspect into $tmp/inspect
	awk -v h="$(cfg hidden_size)" -v i="$(cfg intermediate_size)" \
	    -v l="$(cfg layers)" -v nh="$(cfg heads)" -v kv="$(cfg kv_heads)" \
	    -v d="$(cfg head_dim)" -v v="$(cfg vocab)" 'BEGIN {
		q = nh * d; k = kv * d
		printf "%.4f", 2 * (l * (h * (q + 2 * k) + q * h + 3 * h * i) + v * h) / 1e9 }'
}
vocab=$(cfg vocab)
hdim=$(cfg head_dim)
wbytes=$(cfg bytes_per_token)
[ -n "$vocab" ] && [ -n "$wbytes" ] && [ -n "$hdim" ] ||
	fail "st-inspect $model: no config summary"
gflop=$(gflops)
"$bin/st-inspect" "$model4" >"$tmp/inspect" || fail "st-inspect $model4 failed"
wbytes4=$(cfg bytes_per_token)

for sh in $shapes; do
	mkm "$sh" "$out/$sh-bf16"
done
if [ "$do1b" = 1 ]; then
	mkm llama3.2-1b "$m1b"
	mkq4 "$m1b" "$m1b4"
	"$bin/st-inspect" "$m1b" >"$tmp/inspect" || fail "st-inspect $m1b failed"
	wb1b=$(cfg bytes_per_token)
	gflop1b=$(gflops)
	"$bin/st-inspect" "$m1b4" >"$tmp/inspect" || fail "st-inspect $m1b4 failed"
	wb1b4=$(cfg bytes_per_token)
fi

# ---- the peer: the model as GGUF for llama.cpp ----
mkgg() {	# model out.gguf [-q]
	[ -s "$2" ] && [ "$2" -nt "$1/model.safetensors" ] &&
	    [ "$2" -nt "$tools/mkgguf" ] && return 0
	say "writing $2 for llama.cpp"
	"$tools/mkgguf" ${3:-} "$1" "$2.tmp" ||
		{ rm -f "$2.tmp"; fail "mkgguf $1 failed"; }
	mv "$2.tmp" "$2"
}
# llama.cpp's own 4-bit types, by its llama-quantize from the BF16 GGUF
# (its defaults: the output head in Q6_K, Q4_K_M's mixture; rows whose
# length is not a multiple of 256 fall back from the K types to Q5_0/Q8_0)
mklq() {	# bf16.gguf out.gguf TYPE
	[ -s "$2" ] && [ "$2" -nt "$1" ] && return 0
	say "writing $2 (llama-quantize $3)"
	"$lquant" "$1" "$2.tmp" "$3" >"$tmp/lqlog" 2>&1 ||
		{ rm -f "$2.tmp"; fail "llama-quantize $1 $3 failed: $(tail -n 3 "$tmp/lqlog")"; }
	mv "$2.tmp" "$2"
}
lquant=none
if [ "$peer" != none ] && [ -x "$peer" ]; then
	peerdir=$(dirname "$peer")
	lquant=${LLAMA_QUANTIZE:-$peerdir/llama-quantize}
	[ -x "$lquant" ] || { say "no $lquant: llama.cpp's 4-bit rows left out"; lquant=none; }
	mkgg "$model" "$out/smollm2-135m-bf16.gguf"
	mkgg "$model" "$out/smollm2-135m-q8_0.gguf" -q
	mkgg "$model" "$out/smollm2-135m-f32.gguf" -F
	for sh in $shapes; do
		mkgg "$out/$sh-bf16" "$out/$sh-bf16.gguf"
	done
	if [ "$do1b" = 1 ]; then
		mkgg "$m1b" "$out/llama3.2-1b-bf16.gguf"
		mkgg "$m1b" "$out/llama3.2-1b-q8_0.gguf" -q
		mkgg "$m1b" "$out/llama3.2-1b-f32.gguf" -F
	fi
	if [ "$lquant" != none ]; then
		for b in smollm2-135m $([ "$do1b" = 1 ] && echo llama3.2-1b); do
			mklq "$out/$b-bf16.gguf" "$out/$b-q4_0.gguf" Q4_0
			mklq "$out/$b-bf16.gguf" "$out/$b-q4_k_m.gguf" Q4_K_M
		done
	fi
	"$peer" --help >/dev/null 2>&1 || fail "$peer --help failed"
else
	[ "$peer" = none ] || say "no llama.cpp beside pipelm: $peer not built (make $(basename "$(dirname "$peer")"))"
	peer=none
fi

# ---- the machine ----
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)
[ -n "$cpu" ] || cpu=$(uname -m)
# a VM may hide the model name: family and model say which core it is
fam=$(sed -n 's/^cpu family[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)
mod=$(sed -n 's/^model[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)
[ -z "$fam" ] || cpu="$cpu (family $fam, model $mod)"
ncpu=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo "?")
flags=$(sed -n 's/^flags[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)
isa=
for f in avx2 fma f16c avx512f avx512_bf16 avx512_vnni; do
	case " $flags " in *" $f "*) isa="$isa${isa:+ }$f" ;; esac
done
"$bin/llm-gen" -v -m "$model" </dev/null 2>"$tmp/kern" ||
	fail "llm-gen -m $model failed: $(cat "$tmp/kern")"
kern=$(sed -n 's/.*kernels \([^,]*\),.*/\1/p' "$tmp/kern" | head -n 1)
load0=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo "?")
say "machine: $cpu, $ncpu cores, kernels $kern, load average $load0"

# key=value from a probe line
kv() { printf '%s\n' "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }

say "read bandwidth (sum over 256 MiB, 20 repetitions)"
bw1=$("$probe" bw -t 1 -r 20 -m 256)
bw2=$("$probe" bw -t 2 -r 20 -m 256)
bwf=$("$probe" bw -t 1 -r 3 -f "$model/model.safetensors")
say "  $bw1"
say "  $bw2"
say "  weights file: $bwf"
say "float32 FMA roof"
"$probe" roof -t 1 >"$tmp/roof1"
"$probe" roof -t 2 >"$tmp/roof2"
sed "s|^|$me:   |" "$tmp/roof1" "$tmp/roof2" >&2
# the widest ISA's roof; AVX2's when pipelm runs its AVX2 table
if [ "$bkern" = avx2 ] && grep -q '^isa=avx2 ' "$tmp/roof1"; then
	roof1=$(grep '^isa=avx2 ' "$tmp/roof1" | head -n 1)
	roof2=$(grep '^isa=avx2 ' "$tmp/roof2" | head -n 1)
else
	roof1=$(head -n 1 "$tmp/roof1")
	roof2=$(head -n 1 "$tmp/roof2")
fi

# ---- prompts: random ids below the vocab, fixed seed (Park-Miller,
# exact in awk's doubles, so every awk writes the same ids) ----
prompt() {
	awk -v n="$1" -v seed="$2" -v v="$vocab" 'BEGIN {
		x = seed
		for (i = 0; i < n; i++) {
			x = (x * 16807) % 2147483647
			printf "%s%d", i ? " " : "", x % v
		}
		printf "\n" }'
}
prompt 128 12345 >"$tmp/p128"
prompt 512 54321 >"$tmp/p512"
prompt 8 777 >"$tmp/p8"
# a one-token record first: llm-logits counts it as decode, and it pays the
# first touch of the weights, so the prefill figure after it is warm
{ echo 1; cat "$tmp/p128"; } >"$tmp/w128"
{ echo 1; cat "$tmp/p512"; } >"$tmp/w512"

run_logits() {	# threads prompt-file tag
	"$bin/llm-logits" -m "$model" -t "$1" --timing <"$2" >/dev/null \
	    2>"$tmp/err" || fail "llm-logits -t $1 failed: $(cat "$tmp/err")"
	put "load" "$1" "$(num "$tmp/err" "load $F ms")"
	put "cold_$3" "$1" "$(num "$tmp/err" "decode 1 tokens,.* $F ms/token")"
	put "prefill_$3" "$1" "$(num "$tmp/err" "prefill [0-9]* tokens, $F tokens/s")"
}

# the same 128 ids through Python (bench/python.py: Model.generate over
# libpipelm.so), right after llm-gen's run, paired with it: the decode
# rate from the first id to the last against llm-gen's
run_py() {	# threads
	[ -n "$pylib" ] || return 0
	pyline=$(python3 "$here/python.py" "$pylib" "$model" "$1" \
	    "$tmp/p128" 2>"$tmp/pyerr") ||
		fail "bench/python.py -t $1 failed: $(cat "$tmp/pyerr")"
	put pydecode "$1" "$(kv decode_tps "$pyline")"
	put pyratio "$1" "$(awk -v p="$(kv decode_tps "$pyline")" \
	    -v g="$(num "$tmp/err" "decode [0-9]* tokens, $F tokens/s")" \
	    'BEGIN { if (p > 0 && g > 0) printf "%.3f", p / g }')"
}

run_gen() {	# threads
	# the bandwidth right before and after the run (the better of the
	# two): the host's share of memory bandwidth for these cores changes
	# from minute to minute, so the paired ratio is the steadier figure
	pbw=$("$probe" bw -t "$1" -r 5 -m 256) || fail "probe bw -t $1 failed"
	line=$("$probe" run "$bin/llm-gen" -m "$model" -t "$1" --timing \
	    --ignore-eos -n 128 --temp 0 <"$tmp/p128" 2>"$tmp/err") ||
		fail "llm-gen -t $1 failed: $(cat "$tmp/err")"
	put gload "$1" "$(num "$tmp/err" "load $F ms")"
	put gprefill "$1" "$(num "$tmp/err" "prefill [0-9]* tokens, $F tokens/s")"
	put decode "$1" "$(num "$tmp/err" "decode [0-9]* tokens, $F tokens/s")"
	put msdecode "$1" "$(num "$tmp/err" "tokens/s, $F ms/token")"
	put first "$1" "$(kv first_ms "$line")"
	put step1 "$1" "$(kv step1_ms "$line")"
	put steady "$1" "$(kv steady_tps "$line")"
	put stepmed "$1" "$(kv steady_median_ms "$line")"
	pbw2=$("$probe" bw -t "$1" -r 5 -m 256) || fail "probe bw -t $1 failed"
	[ "$(awk -v a="$(kv best_gbs "$pbw2")" -v b="$(kv best_gbs "$pbw")" \
	    'BEGIN { print (a > b) }')" = 1 ] && pbw=$pbw2
	put pbw "$1" "$(kv best_gbs "$pbw")"
	put pratio "$1" "$(awk -v ms="$(kv steady_median_ms "$line")" \
	    -v b="$(kv best_gbs "$pbw")" -v w="$wbytes" \
	    'BEGIN { if (ms > 0 && b > 0) printf "%.3f", w / (ms * 1e-3) / (b * 1e9) }')"
	run_py "$1"
	put rss "$1" "$(kv maxrss_kb "$line" | awk '{ printf "%.1f", $1 / 1024 }')"
	put share "$1" "$(awk -v c="$(kv cpu_ms "$line")" -v w="$(kv wall_ms "$line")" \
	    -v t="$1" 'BEGIN { printf "%.2f", c / (w * t) }')"
}

# prefill 128 (warm) of a model in a mode: pf NAME THREADS MODEL [FLAG ...]
pf() {
	pn=$1 pt=$2 pm=$3
	shift 3
	"$bin/llm-logits" -m "$pm" -t "$pt" "$@" --timing <"$tmp/w128" \
	    >/dev/null 2>"$tmp/err" ||
		fail "llm-logits -m $pm -t $pt $* failed: $(cat "$tmp/err")"
	put "$pn" "$pt" "$(num "$tmp/err" "prefill [0-9]* tokens, $F tokens/s")"
}
# decode 128 after 128 of a model in a mode: pd NAME THREADS MODEL [FLAG ...]
pd() {
	pn=$1 pt=$2 pm=$3
	shift 3
	"$bin/llm-gen" -m "$pm" -t "$pt" "$@" --timing --ignore-eos \
	    -n 128 --temp 0 <"$tmp/p128" >/dev/null 2>"$tmp/err" ||
		fail "llm-gen -m $pm -t $pt $* failed: $(cat "$tmp/err")"
	put "$pn" "$pt" "$(num "$tmp/err" "decode [0-9]* tokens, $F tokens/s")"
}

# pipelm's fast modes and 4-bit weights, for the comparison with llama.cpp
run_fast() {	# threads
	pf bprefill "$1" "$model" --bf16-act
	pf q4prefill "$1" "$model" --quant q4
	pf f4prefill "$1" "$model4"
	pd bdecode "$1" "$model" --bf16-act
	pd qdecode "$1" "$model" --quant q8_0
	pd q4decode "$1" "$model" --quant q4
	pd f4decode "$1" "$model4"
	pf qprefill "$1" "$model" --quant q8_0
	pf i8prefill "$1" "$model" --quant q8_0 --int8-act
	pd i8decode "$1" "$model" --quant q8_0 --int8-act
	pf i4prefill "$1" "$model" --quant q4 --int8-act
	pd i4decode "$1" "$model" --quant q4 --int8-act
}

# llama-bench on the GGUF copies: prefill 128 (pp128) and decode 128
# tokens after a 128-token context (tg128 at depth 128), one repetition
# each (it warms up first); the tokens/s of its CSV output, the next to
# last column (counted from the end: a quoted field may hold a comma).
# the GGUF types llama.cpp runs: BF16, F32 (the exact mode's class:
# float32 products) and Q8_0 (mkgguf), its own 4-bit ones when
# llama-quantize is there
ltypes="bf16 f32 q8_0"
[ "$lquant" = none ] || ltypes="$ltypes q4_0 q4_k_m"
run_peer() {	# threads [NAME-PREFIX MODEL-BASE]
	for q in $ltypes; do
		lb "${2:-}lprefill_$q" "$1" "$out/${3:-smollm2-135m}-$q.gguf" -p 128 -n 0
		lb "${2:-}ldecode_$q" "$1" "$out/${3:-smollm2-135m}-$q.gguf" -p 0 -n 128 -d 128
		# pipelm's --int8-act on the same file (its block types)
		case $q in bf16 | f32) continue ;; esac
		pf "${2:-}gi8prefill_$q" "$1" "$out/${3:-smollm2-135m}-$q.gguf" --int8-act
		pd "${2:-}gi8decode_$q" "$1" "$out/${3:-smollm2-135m}-$q.gguf" --int8-act
	done
}

# ---- the model runs: repetition outside, threads inside, so that a
# disturbance spreads over both columns ----
t0=$(date +%s)
r=1
nrep=$reps
while [ "$r" -le "$nrep" ]; do
	for t in 1 2; do
		say "repetition $r/$nrep, $t thread(s): prefill 128, prefill 512, decode 128"
		run_logits $t "$tmp/w128" 128
		run_logits $t "$tmp/w512" 512
		run_gen $t
		say "repetition $r/$nrep, $t thread(s): pipelm's fast modes and 4-bit weights$([ "$peer" = none ] || echo ", llama.cpp")"
		run_fast $t
		[ "$peer" = none ] || run_peer $t
	done
	if [ $r -eq 1 ]; then
		el=$(( $(date +%s) - t0 ))
		fit=$(( budget / (el > 0 ? el : 1) ))
		[ $fit -ge 1 ] || fit=1
		if [ "$fit" -lt "$nrep" ]; then
			say "one repetition took ${el} s: $fit of $nrep fit in BENCH_BUDGET=$budget s"
			nrep=$fit
		fi
	fi
	r=$((r + 1))
done

# ---- the shape rows: pipelm's exact mode beside llama.cpp BF16 on each
# shape; repetitions cut to what is left of the budget ----
run_shape() {	# preset threads
	m=$out/$1-bf16
	"$bin/llm-logits" -m "$m" -t "$2" --timing <"$tmp/w128" >/dev/null \
	    2>"$tmp/err" || fail "llm-logits -m $m -t $2 failed: $(cat "$tmp/err")"
	put "sprefill_$1" "$2" "$(num "$tmp/err" "prefill [0-9]* tokens, $F tokens/s")"
	pbw=$("$probe" bw -t "$2" -r 5 -m 256) || fail "probe bw -t $2 failed"
	"$bin/llm-gen" -m "$m" -t "$2" --timing --ignore-eos -n 128 --temp 0 \
	    <"$tmp/p128" >/dev/null 2>"$tmp/err" ||
		fail "llm-gen -m $m -t $2 failed: $(cat "$tmp/err")"
	put "sdecode_$1" "$2" "$(num "$tmp/err" "decode [0-9]* tokens, $F tokens/s")"
	put "sbw_$1" "$2" "$(kv best_gbs "$pbw")"
	[ "$peer" != none ] || return 0
	for w in "slprefill_$1 -p 128 -n 0" "sldecode_$1 -p 0 -n 128 -d 128"; do
		set -- "$1" "$2" $w
		if ! "$peer" -m "$m.gguf" -t "$2" -r 1 -o csv $4 $5 $6 $7 \
		    ${8:-} ${9:-} >"$tmp/csv" 2>"$tmp/err"; then
			say "llama-bench -m $m.gguf -t $2 $4 $5 $6 $7 failed, left out from here: $(tail -n 3 "$tmp/err")"
			peer=none
			return 0
		fi
		put "$3" "$2" "$(awk -F, 'NR == 1 { ok = $(NF - 1) == "avg_ts"; next }
		    ok { v = $(NF - 1); gsub(/"/, "", v); print v }' "$tmp/csv")"
	done
}
ts0=$(date +%s)
r=1
nsrep=$nrep
while [ -n "$shapes" ] && [ "$r" -le "$nsrep" ]; do
	for sh in $shapes; do
		for t in 1 2; do
			say "shape $sh, repetition $r/$nsrep, $t thread(s): prefill 128, decode 128"
			run_shape "$sh" $t
		done
	done
	if [ $r -eq 1 ]; then
		el=$(( $(date +%s) - ts0 ))
		left=$(( budget - (ts0 - t0) ))
		fit=$(( left / (el > 0 ? el : 1) ))
		[ $fit -ge 1 ] || fit=1
		if [ "$fit" -lt "$nsrep" ]; then
			say "one repetition of the shapes took ${el} s: $fit of $nsrep fit in what is left of BENCH_BUDGET"
			nsrep=$fit
		fi
		say "the shape rows took ${el} s a repetition"
	fi
	r=$((r + 1))
done

# ---- the 1B rows: pipelm exact, q8_0, q4 and the 4-bit folder beside
# llama.cpp's four types, the bandwidth measured before the exact decode;
# repetitions cut to what is left of the budget ----
run_1b() {	# threads
	pbw=$("$probe" bw -t "$1" -r 5 -m 256) || fail "probe bw -t $1 failed"
	put b1bw "$1" "$(kv best_gbs "$pbw")"
	pf b1p_exact "$1" "$m1b"
	pd b1d_exact "$1" "$m1b"
	pf b1p_q8 "$1" "$m1b" --quant q8_0
	pd b1d_q8 "$1" "$m1b" --quant q8_0
	pf b1p_q4 "$1" "$m1b" --quant q4
	pd b1d_q4 "$1" "$m1b" --quant q4
	pf b1p_i8 "$1" "$m1b" --quant q8_0 --int8-act
	pd b1d_i8 "$1" "$m1b" --quant q8_0 --int8-act
	pf b1p_i4 "$1" "$m1b" --quant q4 --int8-act
	pd b1d_i4 "$1" "$m1b" --quant q4 --int8-act
	pf b1p_f4 "$1" "$m1b4"
	pd b1d_f4 "$1" "$m1b4"
	[ "$peer" = none ] || run_peer "$1" b1 llama3.2-1b
}
tb0=$(date +%s)
# in 2 MiB folios right before their runs: the GGUFs written and read since
# may have pushed them out of the page cache
if [ "$do1b" = 1 ]; then
	warm "$m1b"
	warm "$m1b4"
fi
r=1
nbrep=$nrep
while [ "$do1b" = 1 ] && [ "$r" -le "$nbrep" ]; do
	for t in 1 2; do
		say "1B shape, repetition $r/$nbrep, $t thread(s): prefill 128, decode 128, exact, q8_0, q4, 4-bit folder, q8_0 and q4 --int8-act$([ "$peer" = none ] || echo ", llama.cpp $ltypes")"
		run_1b $t
	done
	if [ $r -eq 1 ]; then
		el=$(( $(date +%s) - tb0 ))
		left=$(( budget - (tb0 - t0) ))
		fit=$(( left / (el > 0 ? el : 1) ))
		[ $fit -ge 1 ] || fit=1
		if [ "$fit" -lt "$nbrep" ]; then
			say "one repetition of the 1B rows took ${el} s: $fit of $nbrep fit in what is left of BENCH_BUDGET"
			nbrep=$fit
		fi
		say "the 1B rows took ${el} s a repetition"
	fi
	r=$((r + 1))
done
tb1=$(date +%s)

# ---- two concurrent processes on one model: proportional set size ----
say "two concurrent llm-gen processes: Pss"
: >"$tmp/ga"	# exist before the loop below reads them
: >"$tmp/gb"
"$bin/llm-gen" -m "$model" -t 1 --ignore-eos -n 100000 --temp 0 <"$tmp/p8" \
    >"$tmp/ga" 2>"$tmp/ea" &
pa=$!
"$bin/llm-gen" -m "$model" -t 1 --ignore-eos -n 100000 --temp 0 <"$tmp/p8" \
    >"$tmp/gb" 2>"$tmp/eb" &
pb=$!
pids="$pa $pb"
# both past their prompt and two decode steps: every weight touched
k=0
while [ "$(wc -w <"$tmp/ga")" -lt 3 ] || [ "$(wc -w <"$tmp/gb")" -lt 3 ]; do
	kill -0 $pa 2>/dev/null && kill -0 $pb 2>/dev/null || break
	k=$((k + 1))
	[ $k -lt 6000 ] || break	# 10 minutes: something is wrong
	sleep 0.1
done
pss() {	# pid -> "rss pss pss_file pss_anon file_pmd" in MB
	awk '/^Rss:/ { r = $2 } /^Pss:/ { p = $2 } /^Pss_File:/ { f = $2 }
	    /^Pss_Anon:/ { a = $2 } /^FilePmdMapped:/ { h = $2 }
	    END { if (p == "") exit 1
		printf "%.1f %.1f %s %s %s\n", r / 1024, p / 1024,
		    f == "" ? "-" : sprintf("%.1f", f / 1024),
		    a == "" ? "-" : sprintf("%.1f", a / 1024),
		    h == "" ? "-" : sprintf("%.1f", h / 1024) }' "/proc/$1/smaps_rollup" 2>/dev/null
}
pssa=$(pss $pa) || pssa=
pssb=$(pss $pb) || pssb=
kill $pa $pb 2>/dev/null || :
wait $pa 2>/dev/null || :
wait $pb 2>/dev/null || :
pids=
[ -n "$pssa" ] && [ -n "$pssb" ] ||
	say "could not read /proc/PID/smaps_rollup of the running processes"

# ---- tokenizer ----
say "tokenizer (bench/tok.sh)"
PIPELM_BIN=$bin "$here/tok.sh" >"$tmp/tok" 2>"$tmp/tokerr" ||
	say "bench/tok.sh failed: $(cat "$tmp/tokerr")"
load1=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo "?")

# ---- the table ----
# median (min-max) of a figure: cell NAME THREADS [scale]
cell() {
	f=$tmp/v.$1.$2
	[ -s "$f" ] || { echo "-"; return; }
	sort -g "$f" | awk -v s="${3:-1}" '{ v[NR] = $1 * s }
	END {
		m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		d = m >= 100 ? 0 : m >= 10 ? 1 : 2
		if (NR == 1) printf "%.*f\n", d, m
		else printf "%.*f (%.*f-%.*f)\n", d, m, d, v[1], d, v[NR] }'
}
# pct A B: A / B in percent, "-" if either is missing
pct() { awk -v a="$1" -v b="$2" 'BEGIN { if (a > 0 && b > 0) printf "%.0f%%\n", 100 * a / b; else print "-" }'; }

gbs1=$(kv best_gbs "$bw1"); gbs2=$(kv best_gbs "$bw2")
fl1=$(awk -v b="$gbs1" -v w="$wbytes" 'BEGIN { printf "%.1f", b * 1e9 / w }')
fl2=$(awk -v b="$gbs2" -v w="$wbytes" 'BEGIN { printf "%.1f", b * 1e9 / w }')
# the roof: per CPU second of the widest ISA (all threads together), so
# that other processes on the cores do not lower it
rf1=$(kv cpu_gflops "$roof1"); rf2=$(kv cpu_gflops "$roof2")
rt1=$(awk -v g="$rf1" -v f="$gflop" 'BEGIN { printf "%.0f", g / f }')
rt2=$(awk -v g="$rf2" -v f="$gflop" 'BEGIN { printf "%.0f", g / f }')
p512r() { awk -v a="$(med prefill_512 "$1")" -v b="$(med prefill_128 "$1")" \
    'BEGIN { if (b > 0) printf "%.2f\n", a / b; else print "-" }'; }
row() { printf '| %s | %s | %s |\n' "$1" "$2" "$3"; }
# which llama.cpp ran: its version and how it was built (bench/peer.sh
# leaves the native build's cache in llama.cpp/build, the AVX2 one's in
# build)
peerv=
peerb=
if [ "$peer" != none ] || [ -n "${peerdir:-}" ]; then
	for f in "$peerdir/llama.cpp/llama.cpp.info.json" "$peerdir/llama.cpp.info.json"; do
		[ -z "$peerv" ] && [ -r "$f" ] && peerv=$(sed -n 's/.*"tag": "\(.*\)".*/\1/p' "$f")
	done
	for f in "$peerdir/llama.cpp/build/CMakeCache.txt" "$peerdir/build/CMakeCache.txt"; do
		[ -z "$peerb" ] && [ -r "$f" ] || continue
		if grep -q '^GGML_NATIVE:BOOL=ON' "$f"; then
			peerb="built for this CPU (GGML_NATIVE, make peer)"
		elif grep -q '^GGML_AVX2:BOOL=ON' "$f" && grep -q '^GGML_AVX512:BOOL=OFF' "$f"; then
			if grep -q '^GGML_AVX_VNNI:BOOL=ON' "$f"; then
				peerb="built for AVX2 with AVX-VNNI, without AVX-512 (GGML_NATIVE off, make peer-avxvnni)"
			else
				peerb="built for AVX2 without AVX-512 and AVX-VNNI (GGML_NATIVE off, make peer-avx2)"
			fi
		fi
	done
	peerv="llama.cpp ${peerv:-(version unknown)}, $peerdir/llama-bench ${peerb:-(build flags unknown)}"
fi
# decode floor of some bytes a token at the bandwidth of a figure
floor() { awk -v b="$(med "$1" "$2")" -v w="$3" 'BEGIN { if (w > 0 && b > 0) printf "%.1f", b * 1e9 / w; else print 0 }'; }
tend=$(date +%s)

{
echo "## pipelm benchmark, $(date -u '+%Y-%m-%d %H:%M UTC')"
echo
echo "- machine: $cpu, $ncpu cores ($isa), Linux $(uname -r)"
echo "- kernels: pipelm's $kern table${PIPELM_KERNEL:+ (PIPELM_KERNEL=$PIPELM_KERNEL)} (BENCH_KERNEL=$bkern); commit $(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo '?')"
echo "- beside: ${peerv:-no llama.cpp}"
echo "- run time: $((tend - tstart)) s in all: models, GGUFs and the machine probes ready after $((t0 - tstart)) s, the 135M runs $((ts0 - t0)) s, the shape rows $((tb0 - ts0)) s, the 1B rows $((tb1 - tb0)) s"
echo "- load average before/after: $load0 / $load1 (other processes on the cores lower every wall-time figure)"
echo "- model: SmolLM2-135M shape, random BF16 (mkmodel), $(awk -v w="$wbytes" 'BEGIN { printf "%.1f", w / 1e6 }') MB of weights read per generated token, $gflop GFLOP per token (2 x matrix parameters incl. lm_head)"
echo "- repetitions: $nrep; cells are median (min-max); prompts are random ids, fixed seed"
echo
row "" "1 thread" "2 threads"
row "---" "---" "---"
row "read bandwidth, GB/s (best of 20; median)" "$gbs1; $(kv median_gbs "$bw1")" "$gbs2; $(kv median_gbs "$bw2")"
row "float32 FMA roof, GFLOP/s ($(kv isa "$roof1"), per CPU second)" "$rf1" "$rf2"
row "decode floor, tokens/s (weights / bandwidth)" "$fl1" "$fl2"
row "prefill roof, tokens/s (roof / GFLOP per token)" "$rt1" "$rt2"
row "load, ms (model ready)" "$(cell load 1)" "$(cell load 2)"
row "first forward after load, ms (1 token, cold pages)" "$(cell cold_128 1)" "$(cell cold_128 2)"
row "prefill 128, tokens/s (warm)" "$(cell prefill_128 1)" "$(cell prefill_128 2)"
row "prefill 128 / roof" "$(pct "$(med prefill_128 1)" "$rt1")" "$(pct "$(med prefill_128 2)" "$rt2")"
row "prefill 512, tokens/s (warm)" "$(cell prefill_512 1)" "$(cell prefill_512 2)"
row "prefill 512 / prefill 128" "$(p512r 1)" "$(p512r 2)"
row "llm-gen: prefill 128 incl. first touch, tokens/s" "$(cell gprefill 1)" "$(cell gprefill 2)"
row "llm-gen: first id from exec, ms" "$(cell first 1)" "$(cell first 2)"
row "decode 128 after 128, tokens/s" "$(cell decode 1)" "$(cell decode 2)"
row "decode, ms/token" "$(cell msdecode 1)" "$(cell msdecode 2)"
row "decode / floor" "$(pct "$(med decode 1)" "$fl1")" "$(pct "$(med decode 2)" "$fl2")"
row "read bandwidth around each llm-gen run, GB/s (best of 5 before, 5 after)" "$(cell pbw 1)" "$(cell pbw 2)"
row "decode step / floor of that bandwidth, % (each run paired)" "$(cell pratio 1 100)" "$(cell pratio 2 100)"
row "first decode step, ms" "$(cell step1 1)" "$(cell step1 2)"
row "steady decode (steps 2-127), tokens/s" "$(cell steady 1)" "$(cell steady 2)"
row "decode step, ms (median of steps 2-127)" "$(cell stepmed 1)" "$(cell stepmed 2)"
[ -z "$pylib" ] || {
row "decode 128 after 128 through Python (Model.generate), tokens/s" "$(cell pydecode 1)" "$(cell pydecode 2)"
row "Python / llm-gen decode rate, % (each run paired)" "$(cell pyratio 1 100)" "$(cell pyratio 2 100)"
}
row "peak RSS, MB (llm-gen, default context)" "$(cell rss 1)" "$(cell rss 2)"
row "CPU share (CPU time / wall / threads, llm-gen)" "$(cell share 1)" "$(cell share 2)"
fl41=$(awk -v b="$gbs1" -v w="$wbytes4" 'BEGIN { printf "%.1f", b * 1e9 / w }')
fl42=$(awk -v b="$gbs2" -v w="$wbytes4" 'BEGIN { printf "%.1f", b * 1e9 / w }')
echo
echo "pipelm's fast modes and 4-bit weights (--quant q4 at load, private; the llm-quant folder, mapped: group 32, lm_head in 4 bits, $(awk -v w="$wbytes4" 'BEGIN { printf "%.1f", w / 1e6 }') MB a token), tokens/s:"
echo
row "" "1 thread" "2 threads"
row "---" "---" "---"
row "prefill 128: pipelm --quant q4" "$(cell q4prefill 1)" "$(cell q4prefill 2)"
row "prefill 128: pipelm 4-bit folder" "$(cell f4prefill 1)" "$(cell f4prefill 2)"
row "prefill 128: pipelm --quant q4 / FMA roof" "$(pct "$(med q4prefill 1)" "$rt1")" "$(pct "$(med q4prefill 2)" "$rt2")"
row "prefill 128: pipelm 4-bit folder / FMA roof" "$(pct "$(med f4prefill 1)" "$rt1")" "$(pct "$(med f4prefill 2)" "$rt2")"
row "decode 128 after 128: pipelm --quant q4" "$(cell q4decode 1)" "$(cell q4decode 2)"
row "decode 128 after 128: pipelm 4-bit folder" "$(cell f4decode 1)" "$(cell f4decode 2)"
row "decode floor of the 4-bit bytes, tokens/s" "$fl41" "$fl42"
row "decode: pipelm --quant q4 / that floor" "$(pct "$(med q4decode 1)" "$fl41")" "$(pct "$(med q4decode 2)" "$fl42")"
row "prefill 128: pipelm --quant q8_0 --int8-act" "$(cell i8prefill 1)" "$(cell i8prefill 2)"
row "prefill 128: pipelm --quant q4 --int8-act" "$(cell i4prefill 1)" "$(cell i4prefill 2)"
row "decode 128 after 128: pipelm --quant q8_0 --int8-act" "$(cell i8decode 1)" "$(cell i8decode 2)"
row "decode 128 after 128: pipelm --quant q4 --int8-act" "$(cell i4decode 1)" "$(cell i4decode 2)"
row "decode: pipelm 4-bit folder / that floor" "$(pct "$(med f4decode 1)" "$fl41")" "$(pct "$(med f4decode 2)" "$fl42")"
if [ -s "$tmp/v.ldecode_bf16.1" ] || [ -s "$tmp/v.ldecode_bf16.2" ]; then
echo
echo "Beside $peerv, on the same weights as GGUF (tools/mkgguf; Q4_0 and Q4_K_M by its llama-quantize from the BF16 GGUF); run in every repetition right after pipelm's runs, tokens/s:"
echo
row "" "1 thread" "2 threads"
row "---" "---" "---"
row "prefill 128: pipelm exact (float32 activations)" "$(cell prefill_128 1)" "$(cell prefill_128 2)"
row "prefill 128: pipelm --bf16-act" "$(cell bprefill 1)" "$(cell bprefill 2)"
row "prefill 128: llama.cpp BF16 (BF16 activations)" "$(cell lprefill_bf16 1)" "$(cell lprefill_bf16 2)"
row "prefill 128: pipelm --bf16-act / llama.cpp BF16" "$(pct "$(med bprefill 1)" "$(med lprefill_bf16 1)")" "$(pct "$(med bprefill 2)" "$(med lprefill_bf16 2)")"
row "prefill 128: pipelm exact / llama.cpp BF16" "$(pct "$(med prefill_128 1)" "$(med lprefill_bf16 1)")" "$(pct "$(med prefill_128 2)" "$(med lprefill_bf16 2)")"
row "prefill 128: llama.cpp F32 (float32 products, the exact mode's class)" "$(cell lprefill_f32 1)" "$(cell lprefill_f32 2)"
row "prefill 128: pipelm exact / llama.cpp F32" "$(pct "$(med prefill_128 1)" "$(med lprefill_f32 1)")" "$(pct "$(med prefill_128 2)" "$(med lprefill_f32 2)")"
row "decode 128 after 128: pipelm exact" "$(cell decode 1)" "$(cell decode 2)"
row "decode 128 after 128: pipelm --bf16-act" "$(cell bdecode 1)" "$(cell bdecode 2)"
row "decode 128 after 128: llama.cpp BF16" "$(cell ldecode_bf16 1)" "$(cell ldecode_bf16 2)"
row "decode: pipelm exact / llama.cpp BF16" "$(pct "$(med decode 1)" "$(med ldecode_bf16 1)")" "$(pct "$(med decode 2)" "$(med ldecode_bf16 2)")"
row "decode: llama.cpp BF16 / floor" "$(pct "$(med ldecode_bf16 1)" "$fl1")" "$(pct "$(med ldecode_bf16 2)" "$fl2")"
row "decode 128 after 128: llama.cpp F32 (twice the bytes)" "$(cell ldecode_f32 1)" "$(cell ldecode_f32 2)"
row "prefill 128: pipelm --quant q8_0 (int16 activations)" "$(cell qprefill 1)" "$(cell qprefill 2)"
row "prefill 128: pipelm --quant q8_0 --int8-act" "$(cell i8prefill 1)" "$(cell i8prefill 2)"
row "prefill 128: llama.cpp Q8_0" "$(cell lprefill_q8_0 1)" "$(cell lprefill_q8_0 2)"
row "prefill 128: pipelm q8_0 --int8-act / llama.cpp Q8_0" "$(pct "$(med i8prefill 1)" "$(med lprefill_q8_0 1)")" "$(pct "$(med i8prefill 2)" "$(med lprefill_q8_0 2)")"
row "decode 128 after 128: pipelm --quant q8_0 --int8-act" "$(cell i8decode 1)" "$(cell i8decode 2)"
row "decode: pipelm q8_0 --int8-act / llama.cpp Q8_0" "$(pct "$(med i8decode 1)" "$(med ldecode_q8_0 1)")" "$(pct "$(med i8decode 2)" "$(med ldecode_q8_0 2)")"
row "decode 128 after 128: pipelm --quant q8_0" "$(cell qdecode 1)" "$(cell qdecode 2)"
row "decode 128 after 128: llama.cpp Q8_0" "$(cell ldecode_q8_0 1)" "$(cell ldecode_q8_0 2)"
row "decode: pipelm q8_0 / llama.cpp Q8_0" "$(pct "$(med qdecode 1)" "$(med ldecode_q8_0 1)")" "$(pct "$(med qdecode 2)" "$(med ldecode_q8_0 2)")"
if [ "$lquant" != none ]; then
row "prefill 128: pipelm --quant q4" "$(cell q4prefill 1)" "$(cell q4prefill 2)"
row "prefill 128: llama.cpp Q4_0" "$(cell lprefill_q4_0 1)" "$(cell lprefill_q4_0 2)"
row "prefill 128: llama.cpp Q4_K_M" "$(cell lprefill_q4_k_m 1)" "$(cell lprefill_q4_k_m 2)"
row "prefill 128: pipelm --quant q4 --int8-act" "$(cell i4prefill 1)" "$(cell i4prefill 2)"
row "prefill 128: pipelm q4 --int8-act / llama.cpp Q4_0" "$(pct "$(med i4prefill 1)" "$(med lprefill_q4_0 1)")" "$(pct "$(med i4prefill 2)" "$(med lprefill_q4_0 2)")"
row "decode 128 after 128: pipelm --quant q4 --int8-act" "$(cell i4decode 1)" "$(cell i4decode 2)"
row "decode: pipelm q4 --int8-act / llama.cpp Q4_0" "$(pct "$(med i4decode 1)" "$(med ldecode_q4_0 1)")" "$(pct "$(med i4decode 2)" "$(med ldecode_q4_0 2)")"
row "decode 128 after 128: pipelm --quant q4" "$(cell q4decode 1)" "$(cell q4decode 2)"
row "decode 128 after 128: pipelm 4-bit folder" "$(cell f4decode 1)" "$(cell f4decode 2)"
row "decode 128 after 128: llama.cpp Q4_0" "$(cell ldecode_q4_0 1)" "$(cell ldecode_q4_0 2)"
row "decode 128 after 128: llama.cpp Q4_K_M" "$(cell ldecode_q4_k_m 1)" "$(cell ldecode_q4_k_m 2)"
row "decode: pipelm q4 / llama.cpp Q4_0" "$(pct "$(med q4decode 1)" "$(med ldecode_q4_0 1)")" "$(pct "$(med q4decode 2)" "$(med ldecode_q4_0 2)")"
row "decode: pipelm q4 / llama.cpp Q4_K_M" "$(pct "$(med q4decode 1)" "$(med ldecode_q4_k_m 1)")" "$(pct "$(med q4decode 2)" "$(med ldecode_q4_k_m 2)")"
fi
# pipelm -m FILE.gguf --int8-act beside llama.cpp on the same file
for q in $ltypes; do
	case $q in bf16 | f32) continue ;; esac
	Q=$(echo "$q" | tr a-z A-Z)
	row "prefill 128: pipelm -m $Q.gguf --int8-act" "$(cell gi8prefill_$q 1)" "$(cell gi8prefill_$q 2)"
	row "prefill 128: pipelm $Q.gguf --int8-act / llama.cpp $Q" "$(pct "$(med gi8prefill_$q 1)" "$(med lprefill_$q 1)")" "$(pct "$(med gi8prefill_$q 2)" "$(med lprefill_$q 2)")"
	row "decode 128 after 128: pipelm -m $Q.gguf --int8-act" "$(cell gi8decode_$q 1)" "$(cell gi8decode_$q 2)"
	row "decode: pipelm $Q.gguf --int8-act / llama.cpp $Q" "$(pct "$(med gi8decode_$q 1)" "$(med ldecode_$q 1)")" "$(pct "$(med gi8decode_$q 2)" "$(med ldecode_$q 2)")"
done
fi
if [ -n "$shapes" ]; then
echo
echo "Other shapes (random BF16, mkmodel --preset; the GGUF by mkgguf for llama.cpp BF16), $nsrep repetition(s), tokens/s; floor: weights read per token / the read bandwidth measured right before each decode run (best of 5):"
echo
echo "| shape | threads | weights MB/token | prefill 128 pipelm | prefill 128 llama.cpp | decode 128 after 128 pipelm | decode llama.cpp | decode floor | pipelm / floor | llama.cpp / floor |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
for sh in $shapes; do
	wb=$("$bin/st-inspect" "$out/$sh-bf16" | sed -n 's/^bytes_per_token: //p' | tail -n 1)
	for t in 1 2; do
		fl=$(awk -v b="$(med "sbw_$sh" $t)" -v w="$wb" 'BEGIN { if (w > 0) printf "%.1f", b * 1e9 / w }')
		printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$sh" $t \
		    "$(awk -v w="$wb" 'BEGIN { printf "%.0f", w / 1e6 }')" \
		    "$(cell "sprefill_$sh" $t)" "$(cell "slprefill_$sh" $t)" \
		    "$(cell "sdecode_$sh" $t)" "$(cell "sldecode_$sh" $t)" "$fl" \
		    "$(pct "$(med "sdecode_$sh" $t)" "$fl")" \
		    "$(pct "$(med "sldecode_$sh" $t)" "$fl")"
	done
done
fi
if [ "$do1b" = 1 ]; then
rb1=$(awk -v g="$rf1" -v f="$gflop1b" 'BEGIN { printf "%.0f", g / f }')
rb2=$(awk -v g="$rf2" -v f="$gflop1b" 'BEGIN { printf "%.0f", g / f }')
echo
echo "Llama-3.2-1B shape (mkmodel --preset llama3.2-1b, random BF16, tied; $(awk -v w="$wb1b" 'BEGIN { printf "%.0f", w / 1e6 }') MB a token in BF16, $(awk -v w="$wb1b4" 'BEGIN { printf "%.0f", w / 1e6 }') MB in pipelm's 4 bits; $gflop1b GFLOP a token, prefill roof $rb1 and $rb2 tokens/s), $nbrep repetition(s), tokens/s; the floors: those bytes over the read bandwidth measured before each repetition's runs (best of 5)$([ "$peer" = none ] && [ ! -s "$tmp/v.b1ldecode_bf16.1" ] || echo "; llama.cpp as above, on mkgguf's BF16, F32 and Q8_0 GGUFs and llama-quantize's Q4_0 and Q4_K_M"):"
echo
echo "| weights | prefill 128, 1 thread | 2 threads | prefill / roof, 1; 2 | decode 128 after 128, 1 thread | 2 threads | decode / floor, 1; 2 |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
b1row() {	# label prefill-name decode-name bytes-a-token-or-0
	printf '| %s | %s | %s | %s; %s | %s | %s | %s |\n' "$1" \
	    "$(cell "$2" 1)" "$(cell "$2" 2)" \
	    "$(pct "$(med "$2" 1)" "$rb1")" "$(pct "$(med "$2" 2)" "$rb2")" \
	    "$(cell "$3" 1)" "$(cell "$3" 2)" \
	    "$([ "$4" = 0 ] && echo - || ratio "$(med "$3" 1)" "$(floor b1bw 1 "$4")"); $([ "$4" = 0 ] && echo - || ratio "$(med "$3" 2)" "$(floor b1bw 2 "$4")")"
}
b1row "pipelm exact (BF16, float32 activations)" b1p_exact b1d_exact "$wb1b"
b1row "pipelm --quant q8_0" b1p_q8 b1d_q8 0
b1row "pipelm --quant q4" b1p_q4 b1d_q4 "$wb1b4"
b1row "pipelm --quant q8_0 --int8-act" b1p_i8 b1d_i8 0
b1row "pipelm --quant q4 --int8-act" b1p_i4 b1d_i4 "$wb1b4"
b1row "pipelm 4-bit folder (llm-quant)" b1p_f4 b1d_f4 "$wb1b4"
if [ -s "$tmp/v.b1ldecode_bf16.1" ] || [ -s "$tmp/v.b1ldecode_bf16.2" ]; then
b1row "llama.cpp BF16" b1lprefill_bf16 b1ldecode_bf16 "$wb1b"
b1row "llama.cpp F32 (float32 products; twice the bytes)" b1lprefill_f32 b1ldecode_f32 0
b1row "llama.cpp Q8_0" b1lprefill_q8_0 b1ldecode_q8_0 0
b1row "llama.cpp Q4_0" b1lprefill_q4_0 b1ldecode_q4_0 0
b1row "llama.cpp Q4_K_M" b1lprefill_q4_k_m b1ldecode_q4_k_m 0
fi
echo
echo "decode floor, tokens/s: BF16 $(floor b1bw 1 "$wb1b") and $(floor b1bw 2 "$wb1b"), 4 bits $(floor b1bw 1 "$wb1b4") and $(floor b1bw 2 "$wb1b4") (1 and 2 threads; read bandwidth $(cell b1bw 1) and $(cell b1bw 2) GB/s)"
fi
echo
echo "Two llm-gen processes on one model, each while decoding (MB):"
echo
echo "| process | Rss | Pss | Pss file | Pss anon | file in 2 MiB mappings |"
echo "| --- | --- | --- | --- | --- | --- |"
[ -n "$pssa" ] && echo "$pssa" | awk '{ printf "| first | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5 }'
[ -n "$pssb" ] && echo "$pssb" | awk '{ printf "| second | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5 }'
echo
echo "Weights file mapped as the loader maps it: first touch $(kv touch_ms "$bwf") ms, then $(kv best_gbs "$bwf") GB/s (1 thread)."
echo
echo "Tokenizer (bench/tok.sh):"
echo
sed 's/^/    /' "$tmp/tok" "$tmp/tokerr"
} >"$tmp/results.md"
# the long-context rows (bench/depth.sh): BENCH_DEPTH positions, 0 for none
if [ "${BENCH_DEPTH:-4096}" != 0 ]; then
	say "the long-context rows (bench/depth.sh)"
	{ echo; BENCH_REPS=$nrep LLAMA_BENCH=$peer PIPELM_BIN=$bin PIPELM_TOOLS=$tools \
	    BENCH_DIR=$out "$here/depth.sh"; } >>"$tmp/results.md" ||
		say "bench/depth.sh failed: its rows left out"
fi
# the GGUF files' rows (bench/gguf.sh): llama-quantize's Q4_K_M, Q4_0,
# Q6_K and Q8_0 files read in place, beside llama.cpp; BENCH_GGUF=0: none
if [ "${BENCH_GGUF:-1}" != 0 ]; then
	say "the GGUF rows (bench/gguf.sh)"
	{ echo; BENCH_REPS=$nrep BENCH_1B=$do1b LLAMA_BENCH=$peer \
	    LLAMA_QUANTIZE=$lquant PIPELM_BIN=$bin PIPELM_TOOLS=$tools \
	    BENCH_DIR=$out "$here/gguf.sh"; } >>"$tmp/results.md" ||
		say "bench/gguf.sh failed: its rows left out"
fi
cp "$tmp/results.md" "$out/results.md"
cat "$out/results.md"
say "written $out/results.md"
