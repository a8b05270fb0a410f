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
#   - when llama.cpp's llama-bench is built (make peer, bench/peer.sh):
#     the same model as GGUF (tools/mkgguf; BF16 and Q8_0), prefill 128
#     and decode 128 after 128 by llama-bench, run in each repetition
#     right after pipelm's runs with the same thread count, beside
#     pipelm's exact, --bf16-act and --quant q8_0 modes;
#   - a row per shape of BENCH_SHAPES (mkmodel presets, random BF16,
#     written once under build/bench/): prefill 128 and decode 128 after
#     128 for 1 and 2 threads, decode against that shape's bandwidth
#     floor, llama-bench beside it on the same weights (mkgguf).
# Several repetitions of each figure: median (min-max).  The table goes to
# stdout and to build/bench/results.md.
#
# Environment: BENCH_REPS (5), BENCH_BUDGET (seconds for the model runs,
# 420: repetitions are cut to fit, and the table says so), BENCH_DIR
# (build/bench), CC (cc), PIPELM_BIN (bin), PIPELM_TOOLS (build/rel),
# PIPELM_KERNEL (passed on to the programs), LLAMA_BENCH (the peer:
# build/peer/llama-bench; "none" to leave it out), BENCH_SHAPES (the
# presets of the shape rows, "qwen3-0.6b gemma3-1b"; "none" for none:
# they take about 4 minutes a repetition on 2 cores, cut to fit what is
# left of BENCH_BUDGET after the main runs, one repetition at least).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
bin=${PIPELM_BIN:-$top/bin}
tools=${PIPELM_TOOLS:-$top/build/rel}
out=${BENCH_DIR:-$top/build/bench}
reps=${BENCH_REPS:-5}
budget=${BENCH_BUDGET:-420}
cc=${CC:-cc}
model=$out/smollm2-135m-bf16
peer=${LLAMA_BENCH:-$top/build/peer/llama-bench}
shapes=${BENCH_SHAPES:-qwen3-0.6b gemma3-1b}
[ "$shapes" != none ] || shapes=
me=bench/run.sh

say() { printf '%s: %s\n' "$me" "$*" >&2; }
fail() { say "$*"; exit 1; }

case $reps in ''|*[!0-9]*|0) fail "BENCH_REPS: $reps: not a positive number" ;; esac
case $budget in ''|*[!0-9]*) fail "BENCH_BUDGET: $budget: not a number" ;; esac
for p in llm-gen llm-logits st-inspect tok-encode; do
	[ -x "$bin/$p" ] || fail "$bin/$p: not built (run make first)"
done
[ -x "$tools/mkmodel" ] || fail "$tools/mkmodel: not built (run make first)"

mkdir -p "$out"
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

# ---- the model ----
if [ -r "$model/config.json" ] && [ -r "$model/model.safetensors" ]; then
	say "model: $model (present)"
else
	say "model: writing $model (SmolLM2-135M shape, random BF16)"
	rm -rf "$model.tmp"
	mkdir -p "$model.tmp"
	"$tools/mkmodel" -s 1 --preset smollm2-135m --dtype bf16 "$model.tmp" ||
		fail "mkmodel failed"
	rm -rf "$model"
	mv "$model.tmp" "$model"
fi
# The weights in 2 MiB page-cache folios, as the first read through
# pipelm's mapping leaves them (file_map, lib/util.h): drop what an earlier
# write or read cached in small pages, then read them once.
if dd if="$model/model.safetensors" iflag=nocache count=0 2>/dev/null; then
	"$bin/st-inspect" --stats "$model" >/dev/null ||
		fail "st-inspect --stats $model failed"
else
	say "dd cannot drop the page cache here: the weights stay in whatever pages the cache has"
fi
"$bin/st-inspect" "$model" >"$tmp/inspect" || fail "st-inspect $model failed"
cfg() { sed -n "s/^$1: //p" "$tmp/inspect" | tail -n 1; }
vocab=$(cfg vocab)
hid=$(cfg hidden_size)
inter=$(cfg intermediate_size)
layers=$(cfg layers)
heads=$(cfg heads)
kvh=$(cfg kv_heads)
hdim=$(cfg head_dim)
wbytes=$(cfg bytes_per_token)
[ -n "$vocab" ] && [ -n "$wbytes" ] && [ -n "$hdim" ] ||
	fail "st-inspect $model: no config summary"
# FLOPs per token, the issue's measure: 2 x the parameters of every matrix
# a token goes through (q, k, v, o, gate, up, down per layer, and lm_head)
gflop=$(awk -v h="$hid" -v i="$inter" -v l="$layers" -v nh="$heads" \
    -v kv="$kvh" -v d="$hdim" -v v="$vocab" 'BEGIN {
	q = nh * d; k = kv * d
	printf "%.4f", 2 * (l * (h * (q + 2 * k) + q * h + 3 * h * i) + v * h) / 1e9 }')

# ---- the shape models (and their GGUF copies, below) ----
for sh in $shapes; do
	m=$out/$sh-bf16
	[ -r "$m/config.json" ] && [ -r "$m/model.safetensors" ] && continue
	say "model: writing $m ($sh shape, random BF16)"
	rm -rf "$m.tmp"
	mkdir -p "$m.tmp"
	"$tools/mkmodel" -s 1 --preset "$sh" --dtype bf16 "$m.tmp" ||
		fail "mkmodel --preset $sh failed"
	rm -rf "$m"
	mv "$m.tmp" "$m"
done

# ---- the peer: the model as GGUF for llama.cpp ----
if [ "$peer" != none ] && [ -x "$peer" ]; then
	for q in bf16 q8_0; do
		g=$out/smollm2-135m-$q.gguf
		[ -s "$g" ] && [ "$g" -nt "$model/model.safetensors" ] &&
		    [ "$g" -nt "$tools/mkgguf" ] && continue
		say "writing $g for llama.cpp"
		"$tools/mkgguf" $([ $q = q8_0 ] && echo -q) "$model" "$g.tmp" ||
			{ rm -f "$g.tmp"; fail "mkgguf failed"; }
		mv "$g.tmp" "$g"
	done
	for sh in $shapes; do
		m=$out/$sh-bf16
		g=$m.gguf
		[ -s "$g" ] && [ "$g" -nt "$m/model.safetensors" ] &&
		    [ "$g" -nt "$tools/mkgguf" ] && continue
		say "writing $g for llama.cpp"
		"$tools/mkgguf" "$m" "$g.tmp" ||
			{ rm -f "$g.tmp"; fail "mkgguf $m failed"; }
		mv "$g.tmp" "$g"
	done
	"$peer" --help >/dev/null 2>&1 || fail "$peer --help failed"
	peerdir=$(dirname "$peer")
else
	[ "$peer" = none ] || say "no llama.cpp beside pipelm: $peer not built (make peer)"
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
roof1=$(head -n 1 "$tmp/roof1")
roof2=$(head -n 1 "$tmp/roof2")

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

# value of a --timing line: num FILE PATTERN (sed, \(..\) around the number)
num() { sed -n "s#.*$2.*#\1#p" "$1" | tail -n 1; }
F='\([0-9.][0-9.]*\)'
# add a figure: put NAME THREADS VALUE
# (a figure missing from a program's output is said, not hidden)
put() {
	if [ -n "$3" ]; then
		echo "$3" >>"$tmp/v.$1.$2"
	else
		say "no '$1' figure ($2 threads): has the --timing format changed? $(tr '\n' ' ' <"$tmp/err")"
	fi
}

run_logits() {	# threads prompt-file tag
	"$bin/llm-logits" -m "$model" -t "$1" --timing <"$2" >/dev/null \
	    2>"$tmp/err" || fail "llm-logits -t $1 failed: $(cat "$tmp/err")"
	put "load" "$1" "$(num "$tmp/err" "load $F ms")"
	put "cold_$3" "$1" "$(num "$tmp/err" "decode 1 tokens,.* $F ms/token")"
	put "prefill_$3" "$1" "$(num "$tmp/err" "prefill [0-9]* tokens, $F tokens/s")"
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
	put rss "$1" "$(kv maxrss_kb "$line" | awk '{ printf "%.1f", $1 / 1024 }')"
	put share "$1" "$(awk -v c="$(kv cpu_ms "$line")" -v w="$(kv wall_ms "$line")" \
	    -v t="$1" 'BEGIN { printf "%.2f", c / (w * t) }')"
}

# pipelm's fast modes, for the comparison with llama.cpp
run_fast() {	# threads
	"$bin/llm-logits" -m "$model" -t "$1" --bf16-act --timing <"$tmp/w128" \
	    >/dev/null 2>"$tmp/err" || fail "llm-logits --bf16-act -t $1 failed: $(cat "$tmp/err")"
	put bprefill "$1" "$(num "$tmp/err" "prefill [0-9]* tokens, $F tokens/s")"
	for m in "bdecode --bf16-act" "qdecode --quant q8_0"; do
		set -- "$1" $m
		"$bin/llm-gen" -m "$model" -t "$1" $3 ${4:-} --timing --ignore-eos \
		    -n 128 --temp 0 <"$tmp/p128" >/dev/null 2>"$tmp/err" ||
			fail "llm-gen $3 ${4:-} -t $1 failed: $(cat "$tmp/err")"
		put "$2" "$1" "$(num "$tmp/err" "decode [0-9]* tokens, $F tokens/s")"
	done
}

# llama-bench on the GGUF copies: prefill 128 (pp128) and decode 128
# tokens after a 128-token context (tg128 at depth 128), one repetition
# each (it warms up first); the tokens/s of its CSV output, the next to
# last column (counted from the end: a quoted field may hold a comma).
# A failure leaves llama.cpp out of the rest of the run, not pipelm.
run_peer() {	# threads
	for q in bf16 q8_0; do
		for w in "lprefill_$q -p 128 -n 0" "ldecode_$q -p 0 -n 128 -d 128"; do
			set -- "$1" $w
			if ! "$peer" -m "$out/smollm2-135m-$q.gguf" -t "$1" -r 1 \
			    -o csv $3 $4 $5 $6 ${7:-} ${8:-} >"$tmp/csv" 2>"$tmp/err"; then
				say "llama-bench -t $1 $3 $4 $5 $6 failed, left out from here: $(tail -n 3 "$tmp/err")"
				peer=none
				return
			fi
			put "$2" "$1" "$(awk -F, 'NR == 1 { ok = $(NF - 1) == "avg_ts"; next }
			    ok { v = $(NF - 1); gsub(/"/, "", v); print v }' "$tmp/csv")"
		done
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
		if [ "$peer" != none ]; then
			say "repetition $r/$nrep, $t thread(s): pipelm's fast modes, llama.cpp"
			run_fast $t
			run_peer $t
		fi
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
med() { [ -s "$tmp/v.$1.$2" ] && sort -g "$tmp/v.$1.$2" |
	awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }' || echo 0; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a > 0 && b > 0) printf "%.0f%%\n", 100 * a / b; else print "-" }'; }

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

{
echo "## pipelm benchmark, $(date -u '+%Y-%m-%d %H:%M UTC')"
echo
echo "- machine: $cpu, $ncpu cores ($isa), Linux $(uname -r)"
echo "- kernels: $kern${PIPELM_KERNEL:+ (PIPELM_KERNEL=$PIPELM_KERNEL)}; commit $(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo '?')"
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
row "prefill 128 / roof" "$(ratio "$(med prefill_128 1)" "$rt1")" "$(ratio "$(med prefill_128 2)" "$rt2")"
row "prefill 512, tokens/s (warm)" "$(cell prefill_512 1)" "$(cell prefill_512 2)"
row "prefill 512 / prefill 128" "$(p512r 1)" "$(p512r 2)"
row "llm-gen: prefill 128 incl. first touch, tokens/s" "$(cell gprefill 1)" "$(cell gprefill 2)"
row "llm-gen: first id from exec, ms" "$(cell first 1)" "$(cell first 2)"
row "decode 128 after 128, tokens/s" "$(cell decode 1)" "$(cell decode 2)"
row "decode, ms/token" "$(cell msdecode 1)" "$(cell msdecode 2)"
row "decode / floor" "$(ratio "$(med decode 1)" "$fl1")" "$(ratio "$(med decode 2)" "$fl2")"
row "read bandwidth around each llm-gen run, GB/s (best of 5 before, 5 after)" "$(cell pbw 1)" "$(cell pbw 2)"
row "decode step / floor of that bandwidth, % (each run paired)" "$(cell pratio 1 100)" "$(cell pratio 2 100)"
row "first decode step, ms" "$(cell step1 1)" "$(cell step1 2)"
row "steady decode (steps 2-127), tokens/s" "$(cell steady 1)" "$(cell steady 2)"
row "decode step, ms (median of steps 2-127)" "$(cell stepmed 1)" "$(cell stepmed 2)"
row "peak RSS, MB (llm-gen, default context)" "$(cell rss 1)" "$(cell rss 2)"
row "CPU share (CPU time / wall / threads, llm-gen)" "$(cell share 1)" "$(cell share 2)"
if [ -s "$tmp/v.ldecode_bf16.1" ] || [ -s "$tmp/v.ldecode_bf16.2" ]; then
peerv=$(sed -n 's/.*"tag": "\(.*\)".*/\1/p' "$peerdir/llama.cpp/llama.cpp.info.json" 2>/dev/null || :)
echo
echo "Beside llama.cpp ${peerv:-(version unknown)}, llama-bench built for this CPU (make peer), on the same weights as GGUF (tools/mkgguf); run in every repetition right after pipelm's runs, tokens/s:"
echo
row "" "1 thread" "2 threads"
row "---" "---" "---"
row "prefill 128: pipelm exact (float32 activations)" "$(cell prefill_128 1)" "$(cell prefill_128 2)"
row "prefill 128: pipelm --bf16-act" "$(cell bprefill 1)" "$(cell bprefill 2)"
row "prefill 128: llama.cpp BF16 (BF16 activations)" "$(cell lprefill_bf16 1)" "$(cell lprefill_bf16 2)"
row "prefill 128: pipelm --bf16-act / llama.cpp BF16" "$(ratio "$(med bprefill 1)" "$(med lprefill_bf16 1)")" "$(ratio "$(med bprefill 2)" "$(med lprefill_bf16 2)")"
row "prefill 128: pipelm exact / llama.cpp BF16" "$(ratio "$(med prefill_128 1)" "$(med lprefill_bf16 1)")" "$(ratio "$(med prefill_128 2)" "$(med lprefill_bf16 2)")"
row "decode 128 after 128: pipelm exact" "$(cell decode 1)" "$(cell decode 2)"
row "decode 128 after 128: pipelm --bf16-act" "$(cell bdecode 1)" "$(cell bdecode 2)"
row "decode 128 after 128: llama.cpp BF16" "$(cell ldecode_bf16 1)" "$(cell ldecode_bf16 2)"
row "decode: pipelm exact / llama.cpp BF16" "$(ratio "$(med decode 1)" "$(med ldecode_bf16 1)")" "$(ratio "$(med decode 2)" "$(med ldecode_bf16 2)")"
row "decode: llama.cpp BF16 / floor" "$(ratio "$(med ldecode_bf16 1)" "$fl1")" "$(ratio "$(med ldecode_bf16 2)" "$fl2")"
row "prefill 128: llama.cpp Q8_0" "$(cell lprefill_q8_0 1)" "$(cell lprefill_q8_0 2)"
row "decode 128 after 128: pipelm --quant q8_0" "$(cell qdecode 1)" "$(cell qdecode 2)"
row "decode 128 after 128: llama.cpp Q8_0" "$(cell ldecode_q8_0 1)" "$(cell ldecode_q8_0 2)"
row "decode: pipelm q8_0 / llama.cpp Q8_0" "$(ratio "$(med qdecode 1)" "$(med ldecode_q8_0 1)")" "$(ratio "$(med qdecode 2)" "$(med ldecode_q8_0 2)")"
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
		    "$(ratio "$(med "sdecode_$sh" $t)" "$fl")" \
		    "$(ratio "$(med "sldecode_$sh" $t)" "$fl")"
	done
done
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
cp "$tmp/results.md" "$out/results.md"
cat "$out/results.md"
say "written $out/results.md"
