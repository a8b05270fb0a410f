#!/usr/bin/env bats
# bench/probe.c, the measuring helper of `make bench` (bench/run.sh builds
# it the same way).  The figures themselves are not tested: only that the
# probe measures what it says and reads a program's ids as run.sh needs.

load helpers

setup_file() {
	need_cmd "${CC:-cc}"
	"${CC:-cc}" -std=c11 -O2 -Wall -Wextra -Werror -pthread \
	    -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE \
	    -o "$BATS_FILE_TMPDIR/probe" "$BATS_TEST_DIRNAME/../bench/probe.c" -lm
}

setup() {
	P=$BATS_FILE_TMPDIR/probe
}

@test "probe: usage" {
	run -2 --separate-stderr "$P" bogus
	[[ $stderr == *usage:* ]]
	[ -z "$output" ]
	run -0 "$P" --help
	[[ $output == *usage:* ]]
	run -2 --separate-stderr "$P" bw -t 0
	[[ $stderr == *threads* ]]
}

@test "probe run: counts and times the ids, passes the exit status on" {
	run -0 --separate-stderr "$P" run sh -c 'printf "5 17"; sleep 0.05; printf " 3\n"'
	[[ $output == *" ids=3 "* ]]
	[[ $output == status=0* ]]
	# the third id came after the sleep
	step=$(printf '%s\n' "$output" | tr ' ' '\n' | sed -n 's/^step1_ms=//p')
	awk -v s="$step" 'BEGIN { exit !(s == 0) }'
	last=$(printf '%s\n' "$output" | tr ' ' '\n' | sed -n 's/^steady_median_ms=//p')
	awk -v s="$last" 'BEGIN { exit !(s >= 40) }'
	run -3 --separate-stderr "$P" run sh -c 'echo 1; exit 3'
	[[ $output == "status=3 "*" ids=1 "* ]]
}

@test "probe run: peak RSS of the child" {
	run -0 --separate-stderr "$P" run true
	rss=$(printf '%s\n' "$output" | tr ' ' '\n' | sed -n 's/^maxrss_kb=//p')
	[ "$rss" -gt 0 ]
}

@test "probe run: a command that does not exist" {
	run -127 --separate-stderr "$P" run /nonexistent/prog
	[[ $stderr == *"exec /nonexistent/prog"* ]]
}

@test "probe bw and roof: positive figures, file mode reads the file" {
	run -0 --separate-stderr "$P" bw -t 2 -r 2 -m 8
	[[ $output == *"threads=2 reps=2 mib=8.0 "* ]]
	g=$(printf '%s\n' "$output" | tr ' ' '\n' | sed -n 's/^best_gbs=//p')
	awk -v g="$g" 'BEGIN { exit !(g > 0) }'
	head -c 1048576 /dev/zero >"$BATS_TEST_TMPDIR/f"
	run -0 --separate-stderr "$P" bw -r 1 -f "$BATS_TEST_TMPDIR/f"
	[[ $output == *"mib=1.0 "* ]]
	run -1 --separate-stderr "$P" bw -f "$BATS_TEST_TMPDIR/none"
	[[ $stderr == *"No such file"* ]]
	run -0 --separate-stderr "$P" roof -r 1
	g=$(printf '%s\n' "$output" | head -n 1 | tr ' ' '\n' | sed -n 's/^cpu_gflops=//p')
	awk -v g="$g" 'BEGIN { exit !(g > 0) }'
}

@test "run.sh: BENCH_KERNEL and BENCH_1B are checked before anything runs" {
	BENCH_DIR=$BATS_TEST_TMPDIR/b BENCH_KERNEL=avx3 \
	    run -1 --separate-stderr "$BATS_TEST_DIRNAME/../bench/run.sh"
	[[ $stderr == *"BENCH_KERNEL: avx3: not native or avx2"* ]]
	BENCH_DIR=$BATS_TEST_TMPDIR/b BENCH_1B=2 \
	    run -1 --separate-stderr "$BATS_TEST_DIRNAME/../bench/run.sh"
	[[ $stderr == *"BENCH_1B: 2: not 0 or 1"* ]]
	[ ! -e "$BATS_TEST_TMPDIR/b" ]
}

@test "logerr.sh: the 4-bit and int8-activation forms against the reference, q4 and the folder bit for bit" {
	need_shared
	[ -r "$SHARED/golden/logits/arch-llama.ids" ] || skip "no arch-llama in ../shared"
	LOGERR_MODELS=arch-llama LLAMA_DIR=none LOGERR_DIR=$BATS_TEST_TMPDIR/w \
	    PIPELM_BIN=$BIN PIPELM_TOOLS=$TOOLS \
	    run -0 --separate-stderr "$BATS_TEST_DIRNAME/../bench/logerr.sh"
	row=$(printf '%s\n' "$output" | grep '^| arch-llama |' | head -n 1)
	[[ $row == *"(= q4, bit for bit)"* ]]
	# llama.cpp left out: its three cells empty
	[[ $row == *"| - | - | - |" ]]
	# the q4 cell: five figures, an error well above float rounding
	q4=$(printf '%s\n' "$row" | awk -F' [|] ' '{ print $2 }')
	printf '%s\n' "$q4" | awk -F' / ' 'NF != 5 || $2 < 1e-3 { exit 1 }'
	# the integer-activation table: q4 --int8-act and the folder's bit
	# for bit, llama.cpp's Q8_0 and Q4_0 cells empty, and int8
	# activations further from the reference than int16 ones
	row8=$(printf '%s\n' "$output" | grep '^| arch-llama |' | sed -n 2p)
	[[ $row8 == *"(the folder's: the same bits)"* ]]
	[[ $row8 == *"| - |"*"| - |" ]]
	printf '%s\n' "$row8" | awk -F' [|] ' '{ split($2, a, " / "); split($3, b, " / ")
	    if (b[2] <= a[2] || b[2] > 0.5) exit 1 }'
	# the work directory is left empty
	[ -z "$(ls "$BATS_TEST_TMPDIR/w")" ]
}

@test "depth.sh: its numbers checked first; on a small model, every row, llama.cpp left out when absent" {
	local d=$BATS_TEST_TMPDIR/b
	BENCH_DIR=$d BENCH_DEPTH=x run -1 --separate-stderr "$BATS_TEST_DIRNAME/../bench/depth.sh"
	[[ $stderr == *"BENCH_DEPTH: x: not a positive number"* ]]
	mkdir -p "$d"
	"$TOOLS/mkmodel" -s 3 --dtype bf16 --hidden 64 --layers 2 --heads 4 \
	    --kv-heads 2 --inter 96 --vocab 300 --ctx 200 "$d/smollm2-135m-bf16" >/dev/null
	BENCH_DIR=$d BENCH_DEPTH=197 BENCH_DEPTH_N=4 run -1 --separate-stderr \
	    "$BATS_TEST_DIRNAME/../bench/depth.sh"
	[[ $stderr == *"past the model's 200 positions"* ]]
	BENCH_DIR=$d BENCH_REPS=1 BENCH_DEPTH=160 BENCH_DEPTH_N=4 BENCH_DEPTH_PREFILL=16 \
	    LLAMA_BENCH=none PIPELM_BIN=$BIN run -0 --separate-stderr \
	    "$BATS_TEST_DIRNAME/../bench/depth.sh"
	[[ $stderr == *"llama.cpp left out"* ]]
	for r in "prefill 16, pipelm exact, tokens/s" "decode 4 after 160, pipelm f32 KV" \
	    "after 160 / after 128, bf16 KV (goal 1.5x)" \
	    "after 160 / after 128, f16 KV (goal 1.5x)"; do
		line=$(grep -F "| $r |" <<<"$output") || { echo "no row: $r"; false; }
		[[ $line != *"| - |"* ]] || { echo "empty: $line"; false; }
	done
}

@test "common.sh: warm reads a folder and a file, its callers' variables left alone" {
	local d=$BATS_TEST_TMPDIR/m
	"$TOOLS/mkmodel" -s 3 --dtype bf16 --hidden 64 --layers 1 --heads 4 \
	    --kv-heads 2 --inter 96 --vocab 300 --ctx 64 "$d" >/dev/null
	# sh has no locals: a loop variable of warm's named w once took
	# batch.sh's w (the weights a row) and zeroed its roof column
	run -0 --separate-stderr sh -c '
	    here=$1 bin=$2 me=t; . "$here/common.sh"
	    w=keep f=keep d=keep; warm "$3" "$3/model.safetensors"
	    echo "$w $f $d"' sh "$BATS_TEST_DIRNAME/../bench" "$BIN" "$d"
	[ "$output" = "keep keep keep" ]
}

@test "gguf.sh: its settings checked first; without llama.cpp said and left out; on a small model, every row beside llama.cpp" {
	local d=$BATS_TEST_TMPDIR/b peer=${PIPELM_PEER:-$BATS_TEST_DIRNAME/../build/peer}
	local g=$BATS_TEST_DIRNAME/../bench/gguf.sh
	BENCH_DIR=$d BENCH_REPS=0 run -1 --separate-stderr "$g"
	[[ $stderr == *"BENCH_REPS: 0: not a positive number"* ]]
	BENCH_DIR=$d BENCH_1B=2 run -1 --separate-stderr "$g"
	[[ $stderr == *"BENCH_1B: 2: not 0 or 1"* ]]
	BENCH_DIR=$d BENCH_GGUF_TYPES="Q4_K_M IQ2_XXS" run -1 --separate-stderr "$g"
	[[ $stderr == *"BENCH_GGUF_TYPES: IQ2_XXS: not a llama-quantize type pipelm runs"* ]]
	BENCH_DIR=$d BENCH_GGUF_MODELS=llama3.2-1b BENCH_1B=0 run -1 --separate-stderr "$g"
	[[ $stderr == *"BENCH_GGUF_MODELS: no model"* ]]
	[ ! -e "$d" ]
	BENCH_DIR=$d LLAMA_DIR=$BATS_TEST_TMPDIR/none PIPELM_BIN=$BIN \
	    run -0 --separate-stderr "$g"
	[[ $stderr == *"no llama.cpp"*"the GGUF rows left out"* ]]
	[ -z "$output" ]
	[ -x "$peer/llama-bench" ] && [ -x "$peer/llama-quantize" ] ||
		skip "llama.cpp not built (make peer): the run left out"
	"$TOOLS/mkmodel" -s 3 --dtype bf16 --hidden 256 --layers 1 --heads 4 \
	    --kv-heads 2 --inter 256 --vocab 300 --ctx 200 "$BATS_TEST_TMPDIR/tiny" >/dev/null
	BENCH_DIR=$d BENCH_REPS=1 BENCH_GGUF_TYPES="Q4_K_M Q8_0" \
	    BENCH_GGUF_MODELS=$BATS_TEST_TMPDIR/tiny LLAMA_DIR=$peer \
	    PIPELM_BIN=$BIN run -0 --separate-stderr "$g"
	for r in "tiny | Q4_K_M | 1" "tiny | Q4_K_M | 2" "tiny | Q8_0 | 1" "tiny | Q8_0 | 2"; do
		line=$(grep -F "| $r |" <<<"$output") || { echo "no row: $r"; false; }
		[[ $line != *"| - |"* ]] || { echo "empty: $line"; false; }
		[[ $line == *x\ \|*x\ \| ]] || { echo "no ratio: $line"; false; }
	done
	cmp <(echo "$output") "$d/gguf.md"
	# llama-quantize's own file, its mixture (the tied head in Q6_K)
	"$BIN/st-inspect" "$d/tiny-q4_k_m.gguf" | grep -q '^token_embd.weight	q6_K'
	"$BIN/st-inspect" "$d/tiny-q4_k_m.gguf" | grep -q '^blk.0.attn_q.weight	q4_K'
}

@test "parallel.sh: its numbers checked first; on the built-in model every way, the same lines as -P 1" {
	local d=$BATS_TEST_TMPDIR/b p=$BATS_TEST_DIRNAME/../bench/parallel.sh
	BENCH_DIR=$d BENCH_PARALLEL_P=x run -1 --separate-stderr "$p"
	[[ $stderr == *"BENCH_PARALLEL_P: x: not a positive number"* ]]
	[ ! -e "$d" ]
	BENCH_DIR=$d BENCH_REPS=1 BENCH_PARALLEL_N=5 BENCH_PARALLEL_NEW=6 \
	    BENCH_PARALLEL_P=3 BENCH_PARALLEL_MODEL=$BATS_TEST_DIRNAME/../share/pipelm/stories260K \
	    PIPELM_BIN=$BIN run -0 --separate-stderr "$p"
	[[ ${lines[0]} == "## llm-gen: 5 prompts, 6 ids each (30 generated)" ]]
	for r in "-P 1, 1 thread" "xargs -P 2, a process a prompt" "-P 3, 1 thread" "-P 3, 2 threads"; do
		grep -qF "| $r" <<<"$output" || { echo "no row: $r"; false; }
	done
	! command -v parallel >/dev/null || grep -qF "| GNU parallel -j 2 -k" <<<"$output"
	cmp <(echo "$output") "$d/parallel.md"
}
