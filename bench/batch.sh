#!/bin/sh
# bench/batch.sh: llm-gen -P N beside llama.cpp's llama-batched-bench
# (make bench-batch).  N records of 32 random ids each, 64 ids generated
# greedily (--ignore-eos), on the 135M shape and (BENCH_1B=1, the
# default) the Llama-3.2-1B shape (random BF16, as bench/run.sh makes
# them) and their GGUFs (tools/mkgguf; -q for Q8_0; llama-quantize's
# Q4_0 beside --quant q4), for N in BENCH_NPL (1 4 16 64), 1 and 2
# threads, in the modes of BENCH_MODES ("exact exact-f32 q8_0 q4 bf16-act
# q8_0-int8 q4-int8": BF16 weights, --quant q8_0, --quant q4 with
# float32 activations, exact beside the BF16 GGUF and exact-f32, the same
# runs (made once when both are asked) beside the weights as F32 (mkgguf
# -F: float32 products on both sides), then llama.cpp's own numeric classes (bench/NOTES.md,
# issue 28): --bf16-act beside the BF16 GGUF (both round the activations
# to bf16), --quant q8_0 --int8-act and --quant q4 --int8-act beside
# Q8_0 and Q4_0 (both put them in int8), their KV cache F16 on both
# sides (BENCH_INT8_KV, f16: llama-batched-bench's cache is F16 in every
# mode; f32 keeps pipelm's exact one)).  pipelm's aggregate decode rate is N * 63 ids
# over the time of the -n 64 run less that of the -n 1 run (the load
# and the prompts cancel out; with BENCH_REPS=R, the fastest of R runs
# of each, alternating: one run of each is at the mercy of a noisy
# neighbour, as the difference of two); llama.cpp's is llama-batched-bench's S_TG
# for -npp 32 -ntg 64 -npl N, the best of R runs too.  Beside them: the fraction of the float32
# FMA roof (bench/probe.c roof, the widest ISA; AVX2's with
# PIPELM_KERNEL=avx2) that the decode rows' real FLOPs make (2 per
# weight of every matrix and the output one, a row), and at the largest
# N each one's peak RSS (probe run).  Then the
# time to first token of a record arriving while 15 others decode
# (BENCH_TTFT=1, the default): 15 records decoding 256 ids each, the
# 16th written 2 s after them, its prompt filling the context (-c 300, a
# 299-id prompt) so that its first id ends it and -v says so at once;
# beside the same record alone.  Run with nothing else on the machine:
# about 75 minutes on 2 cores with the 1B shape and the seven modes, 13
# without the 1B shape.
# BENCH_DIR (build/bench), PIPELM_BIN, PIPELM_TOOLS, CC as bench/run.sh;
# BENCH_THREADS ("1 2"); BENCH_REPS (1); BENCH_PRESET (smollm2-135m;
# tiny checks the script in seconds).
set -eu

me=batch.sh
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"	# top, bin, tools, out; say, fail, ...
dir=${BENCH_DIR:-$top/build/bench}
npl=${BENCH_NPL:-1 4 16 64}
modes=${BENCH_MODES:-exact exact-f32 q8_0 q4 bf16-act q8_0-int8 q4-int8}
do1b=${BENCH_1B:-1}
dottft=${BENCH_TTFT:-1}
threads=${BENCH_THREADS:-1 2}
reps=${BENCH_REPS:-1}
int8kv=${BENCH_INT8_KV:-f16}
case $int8kv in f32) int8kv= ;; *) int8kv=" --kv-type $int8kv" ;; esac
peer=${LLAMA_BATCHED_BENCH:-$top/build/peer/llama-batched-bench}
quantize=${LLAMA_QUANTIZE:-$top/build/peer/llama-quantize}
cc=${CC:-cc}

need_tools mkmodel mkgguf
need_bin llm-gen st-inspect
mkdir -p "$dir"
workdir
probe=$tmp/probe
$cc -std=c11 -O2 -Wall -Wextra -pthread -D_POSIX_C_SOURCE=200809L \
    -D_DEFAULT_SOURCE -o "$probe" "$here/probe.c" -lm ||
	fail "cannot build bench/probe.c with $cc"

# mk PRESET DIR: the random BF16 model and its GGUFs, written once
mk() {
	if [ ! -r "$2/config.json" ]; then
		say "model: writing $2 (random BF16)"
		rm -rf "$2.tmp" && mkdir -p "$2.tmp"
		"$tools/mkmodel" -s 1 --preset "$1" --dtype bf16 "$2.tmp" >/dev/null
		mv "$2.tmp" "$2"
	fi
	[ -r "$2.gguf" ] && [ "$2.gguf" -nt "$2/model.safetensors" ] ||
		"$tools/mkgguf" "$2" "$2.gguf" >/dev/null
	case " $modes " in *" exact-f32 "*)
		[ -r "$2-F32.gguf" ] && [ "$2-F32.gguf" -nt "$2/model.safetensors" ] ||
			"$tools/mkgguf" -F "$2" "$2-F32.gguf" >/dev/null ;;
	esac
	case " $modes " in *" q8_0 "* | *" q8_0-int8 "*)
		[ -r "$2-Q8_0.gguf" ] && [ "$2-Q8_0.gguf" -nt "$2/model.safetensors" ] ||
			"$tools/mkgguf" -q "$2" "$2-Q8_0.gguf" >/dev/null ;;
	esac
	case " $modes " in *" q4 "* | *" q4-int8 "*)
		if [ -x "$quantize" ] && { [ ! -r "$2-Q4_0.gguf" ] ||
		    [ "$2.gguf" -nt "$2-Q4_0.gguf" ]; }; then
			"$quantize" "$2.gguf" "$2-Q4_0.gguf" Q4_0 >/dev/null 2>&1 ||
				say "llama-quantize Q4_0 of $2.gguf failed"
		fi ;;
	esac
}

# vocab M: its vocabulary's size
vocab() { tr -d ' \n' <"$1/config.json" | tr ',{}' '\n\n\n' | sed -n 's/^"vocab_size"://p'; }

# weights M: the multiply-adds of a decode row (every matrix, the output)
weights() {
	tr -d ' \n' <"$1/config.json" | tr ',{}' '\n\n\n' | awk -F: '
	    { gsub(/"/, "", $1); v[$1] = $2 }
	    END { d = v["hidden_size"]; h = v["num_attention_heads"]
		kv = v["num_key_value_heads"]; kv = kv ? kv : h
		hd = v["head_dim"] ? v["head_dim"] : d / h
		l = v["num_hidden_layers"]; f = v["intermediate_size"]
		w = l * (2 * d * h * hd + 2 * d * kv * hd + 3 * d * f)
		printf "%.0f\n", w + v["vocab_size"] * d }'
}

# GNU time gives the peer's peak RSS (probe run takes the child's stdout)
timer=
[ ! -x /usr/bin/time ] || timer="/usr/bin/time -f maxrss_kb=%M -o $tmp/rss"

kv() { printf '%s\n' "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }

# run MODEL N THREADS MAXNEW MODEOPTS: a probe run line of llm-gen -P N
run() {
	"$probe" run "$bin/llm-gen" -m "$1" -t "$3" -P "$2" -n "$4" --temp 0 \
	    --ignore-eos $5 <"$tmp/in.$2" 2>/dev/null | tail -n 1
}

# fastest LINE LINE: the probe line of the shorter wall time (the first
# may be empty)
fastest() {
	if [ -n "$1" ] && awk -v a="$(kv wall_ms "$1")" -v b="$(kv wall_ms "$2")" \
	    'BEGIN { exit !(a <= b) }'; then
		echo "$1"
	else
		echo "$2"
	fi
}

# the widest ISA's roof; AVX2's when pipelm runs its AVX2 table
# (PIPELM_KERNEL=avx2: half the AVX-512 one)
roofisa() {	# THREADS
	"$probe" roof -t "$1" | awk -v k="${PIPELM_KERNEL:-}" '
	    NR == 1 { first = $0 }
	    k == "avx2" && /^isa=avx2 / { print; found = 1; exit }
	    END { if (!found) print first }'
}
roof1=$(roofisa 1)
roof2=$(roofisa 2)
say "FMA roof: 1 thread $(kv best_gflops "$roof1") GFLOP/s, 2 threads $(kv best_gflops "$roof2") ($(kv isa "$roof1"))"

table() {	# NAME MODEL
	name=$1 m=$2 w=$(weights "$2")
	warm "$m"
	for g in "$m".gguf "$m"-*.gguf; do	# llama.cpp maps its files too
		[ ! -r "$g" ] || warm "$g"
	done
	for mode in $modes; do
		case $mode in
		exact) opt='' g=$m.gguf ;;
		exact-f32) opt='' g=$m-F32.gguf ;;
		q8_0) opt="--quant q8_0" g=$m-Q8_0.gguf ;;
		q4) opt="--quant q4" g=$m-Q4_0.gguf ;;
		bf16-act) opt="--bf16-act" g=$m.gguf ;;
		q8_0-int8) opt="--quant q8_0 --int8-act$int8kv" g=$m-Q8_0.gguf ;;
		q4-int8) opt="--quant q4 --int8-act$int8kv" g=$m-Q4_0.gguf ;;
		*) fail "BENCH_MODES: $mode: not exact, exact-f32, q8_0, q4, bf16-act, q8_0-int8 or q4-int8" ;;
		esac
		echo
		case $mode in	# the roof column stays float32 FMAs
		bf16-act) roofnote="; FMA roof: float32's, vdpbf16ps's is 2x" ;;
		*-int8) roofnote="; FMA roof: float32's, vpdpbusd's is 4x" ;;
		*) roofnote= ;;
		esac
		echo "$name, $mode (${opt:-BF16 weights}; llama.cpp: $(basename "$g")$roofnote)"
		echo
		echo "| threads | N | pipelm decode ids/s | x its N=1 | FMA roof | llama.cpp S_TG | pipelm / llama.cpp | peak RSS pipelm / llama.cpp MiB |"
		echo "|---|---|---|---|---|---|---|---|"
		for t in $threads; do
			base=
			roof=$(kv best_gflops "$(eval echo \$roof$t)")
			last=$(echo $npl | awk '{ print $NF }')
			for n in $npl; do
				awk -v n="$n" -v V="$(vocab "$m")" 'BEGIN { srand(n); for (i = 0; i < n; i++) {
				    s = ""; for (j = 0; j < 32; j++) s = s (j ? " " : "") int(1 + rand() * (V - 2))
				    print s } }' >"$tmp/in.$n"
				# pipelm's runs of these options, once (exact and
				# exact-f32 differ only in llama.cpp's file)
				seen=$tmp/runs.$(echo "$m $opt $t $n" | tr -c 'A-Za-z0-9\n' _)
				if [ -r "$seen" ]; then
					{ read -r a; read -r b; } <"$seen"
				else
					run "$m" "$n" "$t" 1 "$opt" >/dev/null	# warm the page cache
					a= b= r=0
					while [ "$r" -lt "$reps" ]; do
						a=$(fastest "$a" "$(run "$m" "$n" "$t" 1 "$opt")")
						b=$(fastest "$b" "$(run "$m" "$n" "$t" 64 "$opt")")
						r=$((r + 1))
					done
					printf '%s\n%s\n' "$a" "$b" >"$seen"
				fi
				tps=$(echo "$(kv wall_ms "$a") $(kv wall_ms "$b") $n" |
				    awk '{ printf "%.1f", $3 * 63 / ($2 - $1) * 1000 }')
				[ -n "$base" ] || base=$tps
				ll=- rss="$(kv maxrss_kb "$b")" lrss=-
				r=0
				while [ -x "$peer" ] && [ -r "$g" ] && [ "$r" -lt "$reps" ]; do
					rm -f "$tmp/rss"
					$timer "$peer" -m "$g" -c $((n * 96 + 64)) -npp 32 \
					    -ntg 64 -npl "$n" -t "$t" >"$tmp/peer" 2>/dev/null || true
					v=$(awk -F'|' '$2 + 0 == 32 { gsub(/ /, "", $9); print $9 }' "$tmp/peer")
					# the fastest of the repetitions, as pipelm's
					if [ -n "$v" ] && { [ "$ll" = - ] || awk -v a="$v" \
					    -v b="$ll" 'BEGIN { exit !(a > b) }'; }; then
						ll=$v
						lrss=$(sed -n 's/^maxrss_kb=//p' "$tmp/rss" 2>/dev/null)
					fi
					r=$((r + 1))
				done
				[ "$n" = "$last" ] || rss=- lrss=-
				echo "$tps $base ${ll:--} $w $roof $rss $lrss" | awk -v t="$t" -v n="$n" '{
				    r = $3 == "-" ? "-" : sprintf("%.2fx", $1 / $3)
				    m = $6 == "-" ? "-" : sprintf("%.0f / %s", $6 / 1024,
					$7 == "-" || $7 == "" ? "-" : sprintf("%.0f", $7 / 1024))
				    f = 100 * 2 * $4 * $1 / ($5 * 1e9)	# under 10%: 2 digits
				    f = sprintf(f >= 10 ? "%.0f%%" : "%.2g%%", f)
				    printf "| %d | %d | %s | %.2fx | %s | %s | %s | %s |\n", t, n,
				    $1, $1 / $2, f, $3, r, m }'
			done
		done
	done
}

# ttft MODEL THREADS OTHERS: seconds from the 16th record's arrival to
# llm-gen -v's line that its first id ended it (context full), with
# OTHERS records decoding beside it
ttft() {
	awk -v V="$(vocab "$1")" 'BEGIN { srand(7); for (i = 0; i < 15; i++) { s = ""
	    for (j = 0; j < 32; j++) s = s (j ? " " : "") int(1 + rand() * (V - 2))
	    print s } }' >"$tmp/others"
	awk -v V="$(vocab "$1")" 'BEGIN { srand(8); s = ""; for (j = 0; j < 299; j++)
	    s = s (j ? " " : "") int(1 + rand() * (V - 2)); print s }' >"$tmp/x"
	rm -f "$tmp/t0" "$tmp/t1"
	{ [ "$3" = 0 ] || cat "$tmp/others"; sleep 2; date +%s.%N >"$tmp/t0"
	  cat "$tmp/x"; } |
	"$bin/llm-gen" -v -m "$1" -t "$2" -P 16 -c 300 -n 256 --temp 0 \
	    --ignore-eos 2>&1 >/dev/null | while IFS= read -r l; do
		case $l in
		*"context of 300 positions is full"*) [ -e "$tmp/t1" ] ||
			date +%s.%N >"$tmp/t1" ;;
		esac
	done
	[ -r "$tmp/t1" ] || { echo -; return; }
	echo "$(cat "$tmp/t0") $(cat "$tmp/t1")" | awk '{ printf "%.3f", $2 - $1 }'
}

preset=${BENCH_PRESET:-smollm2-135m}	# tiny: a check of this script
mk "$preset" "$dir/$preset"
echo "## llm-gen -P N beside llama-batched-bench ($(date -u '+%Y-%m-%d %H:%M UTC'))"
table "$preset shape" "$dir/$preset"
if [ "$do1b" = 1 ]; then
	mk llama3.2-1b "$dir/llama3.2-1b"
	table "1B shape" "$dir/llama3.2-1b"
fi
if [ "$dottft" = 1 ]; then
	echo
	echo "Time to first token of a 299-id prompt ($preset shape, exact), seconds"
	echo
	echo "| threads | alone | while 15 others decode |"
	echo "|---|---|---|"
	for t in $threads; do
		echo "| $t | $(ttft "$dir/$preset" "$t" 0) | $(ttft "$dir/$preset" "$t" 15) |"
	done
fi
