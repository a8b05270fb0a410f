#!/usr/bin/env bats
# llm-score -P N and llm-logits -P N (issue 23): up to N records at once,
# their rows in passes shared with the others' (lib/stream/runs), the
# output in input order, each record's bytes those of -P 1 whatever N
# and the threads; the failures as -P 1 has them.
load helpers

setup_file() {
	local d=$BATS_FILE_TMPDIR
	export BF16=$d/bf16 F16=$d/f16 F32=$d/f32 GPTQ=$d/gptq
	"$TOOLS/mkmodel" -s 21 --dtype bf16 --hidden 64 --layers 2 --heads 4 \
	    --kv-heads 2 --inter 96 --vocab 300 --ctx 320 "$BF16" >/dev/null
	"$TOOLS/mkmodel" -s 22 --dtype f16 --hidden 48 --layers 2 --heads 4 \
	    --kv-heads 4 --head-dim 16 --inter 80 --vocab 280 --ctx 320 \
	    --untied "$F16" >/dev/null
	"$TOOLS/mkmodel" -s 23 --dtype f32 --hidden 32 --layers 3 --heads 4 \
	    --kv-heads 1 --inter 64 --vocab 260 --ctx 320 --bias "$F32" >/dev/null
	"$TOOLS/mkmodel" -s 24 --dtype bf16 --hidden 128 --inter 256 \
	    --vocab 300 --ctx 320 "$d/f" >/dev/null
	"$TOOLS/mkgptq" "$d/f" "$GPTQ" "$d/gptq.d" >/dev/null
}

setup() {
	M=$BATS_TEST_DIRNAME/../share/pipelm/stories260K
	T=$BATS_TEST_TMPDIR
}

# recs VOCAB LEN ...: a record of LEN random ids below VOCAB for each LEN
# (0: an empty record), into $T/in.
recs() {
	local v=$1
	shift
	awk -v v="$v" -v lens="$*" 'BEGIN { srand(7); n = split(lens, L, " ")
	    for (i = 1; i <= n; i++) { s = ""
	        for (j = 0; j < L[i]; j++) s = s (j ? " " : "") int(rand() * v)
	        print s } }' >"$T/in"
}

# psame PROG ARG ...: PROG ARG ... over $T/in with -P 3 and -P 8, on 1
# and 2 threads, writes what -P 1 on 1 thread writes: its standard output
# byte for byte, its messages and its status.
psame() {
	local s1=0 s t p
	"$@" -t 1 -P 1 <"$T/in" >"$T/o1" 2>"$T/e1" || s1=$?
	[ -s "$T/o1" ] || { echo "no output: $*"; cat "$T/e1"; return 1; }
	for t in 1 2; do
		for p in 3 8; do
			s=0
			"$@" -t $t -P $p <"$T/in" >"$T/o" 2>"$T/e" || s=$?
			if [ "$s" != "$s1" ] || ! cmp -s "$T/o" "$T/o1" ||
			    ! cmp -s "$T/e" "$T/e1"; then
				echo "-P $p -t $t differs from -P 1: $* (status $s, $s1)"
				diff "$T/e" "$T/e1"
				return 1
			fi
		done
	done
}

# Every way llm-score and llm-logits are run over $T/in on model $1
# (extra options after it): each -P equal to -P 1.
every() {
	local m=$1
	shift
	psame llm-score -m "$m" "$@" -k --per-token --top 2
	psame llm-score -m "$m" "$@" -k
	psame llm-logits -m "$m" "$@" -k --all -f bin
	psame llm-logits -m "$m" "$@" -k -f top
}

@test "batch-score: -P N writes what -P 1 writes on every arch-* model (windows, soft-caps, q/k norms, sliding windows)" {
	need_shared
	local a
	# lengths that end at different passes: a lone id (refused by
	# llm-score), two, one past a pass of 256
	recs 2048 40 2 17 1 3 70 9 257 2 33
	for a in "$SHARED"/models/arch-*; do
		every "$a"
	done
	# windows of llm-score: a context of 32, strides of 16 and 7
	psame llm-score -m "$SHARED/models/arch-llama" --ctx 32 --stride 16 --per-token
	psame llm-score -m "$SHARED/models/arch-gemma2" --ctx 32 --stride 7 --from 3
}

@test "batch-score: -P N writes what -P 1 writes: BF16, F16, F32, GPTQ, --quant q8_0 and q4" {
	recs 260 40 2 258 17 3 70 9 257 2 33 5
	every "$BF16"
	every "$F16"
	every "$F32"
	every "$GPTQ"
	every "$BF16" --quant q8_0
	every "$F16" --quant q4
	every "$F32" --quant q4
}

@test "batch-score: -P N with a 16-bit or Q8_0 KV cache (--kv-type) writes what -P 1 writes" {
	recs 260 40 2 258 17 3 70 9
	every "$BF16" --kv-type bf16
	every "$F16" --kv-type f16
	every "$F32" --kv-type q8_0
	# the blocks of the pool hold the rounded keys: not f32's logits
	llm-logits -m "$BF16" -t 1 -P 3 --all -f bin <"$T/in" >"$T/a"
	llm-logits -m "$BF16" -t 1 -P 3 --all -f bin --kv-type bf16 <"$T/in" >"$T/b"
	! cmp -s "$T/a" "$T/b"
}

@test "batch-score: longrope past its original context: each window turns as its run alone does" {
	need_shared
	local d=$T/phi3
	mkdir "$d"
	ln -s "$SHARED"/models/arch-phi3-longrope/*.safetensors "$d/"
	cp "$SHARED"/models/arch-phi3-longrope/*.json "$d/"
	jsed "$d/config.json" 's/"original_max_position_embeddings": 4096/"original_max_position_embeddings": 48/'
	grep -q '"original_max_position_embeddings": 48' "$d/config.json"
	recs 2048 30 60 47 49 90 2 120
	every "$d"
	psame llm-score -m "$d" --ctx 64 --stride 20 --per-token
	psame llm-score -m "$d" --from 40 --per-token -k
}

@test "batch-score: every frame format in input order, records finishing out of order, over several files" {
	local f a
	# the long first record is the last to finish
	recs 512 300 3 5 2 12 4 30 2 7
	for f in bin text top; do
		for a in "" --all; do
			psame llm-logits -m "$M" -f $f $a
		done
	done
	# npy, to a file and to a seekable standard output: one array
	for a in "" --all; do
		llm-logits -m "$M" $a -f npy -o "$T/1.npy" <"$T/in"
		llm-logits -m "$M" $a -f npy -P 4 -o "$T/4.npy" <"$T/in"
		llm-logits -m "$M" $a -f npy -P 6 -t 2 <"$T/in" >"$T/6.npy"
		cmp "$T/1.npy" "$T/4.npy"
		cmp "$T/1.npy" "$T/6.npy"
	done
	# records numbered across files, as one at a time
	cp "$T/in" "$T/a"
	head -3 "$T/in" >"$T/b"
	llm-score -m "$M" --per-token "$T/a" - "$T/b" <"$T/b" >"$T/want"
	llm-score -m "$M" --per-token -P 5 "$T/a" - "$T/b" <"$T/b" >"$T/got"
	cmp "$T/got" "$T/want"
	llm-logits -m "$M" -f bin -P 5 "$T/a" - "$T/b" <"$T/b" | cmp - <(llm-logits -m "$M" -f bin "$T/a" - "$T/b" <"$T/b")
}

@test "batch-score: many records, more than the slots hold, the first long" {
	recs 512 500 $(seq 2 40) $(seq 40 -1 2)
	psame llm-score -m "$M" --per-token
	psame llm-logits -m "$M" -f text
}

@test "batch-score: bad records midway, with -k and without, as -P 1 has them" {
	local k
	# 1, 2, 5, 8 good; 3 empty, 4 an id outside the vocabulary (512), 6
	# malformed, 7 longer than llm-logits' context (64), 8 long: still
	# running when the bad ones are met
	printf '%s\n' "1 403 407" "1 285 280 300" "" "1 900 2" "1 2 3 4" \
	    "1 x 2" "$(printf '5 %.0s' $(seq 70))" "$(printf '7 %.0s' $(seq 60))" \
	    "1 2" >"$T/in"
	for k in -k ""; do
		psame llm-score -m "$M" --ctx 64 $k
		psame llm-score -m "$M" --ctx 64 --per-token $k
		psame llm-logits -m "$M" --ctx 64 -f text $k
		psame llm-logits -m "$M" --ctx 64 -f top --all $k
		psame llm-logits -m "$M" --ctx 64 -f bin $k
	done
	# said with their numbers, the others go on
	run -1 --separate-stderr llm-score -m "$M" --ctx 64 -k -P 4 <"$T/in"
	[[ $stderr == *"record 3 is empty"* ]]
	[[ $stderr == *"record 4: token id 900"* ]]
	[[ $stderr == *"record 6: invalid character"* ]]
	[[ $stderr == *"3 of 9 records failed"* ]]
	[ "${#lines[@]}" -eq 6 ]
	[ -z "$(printf '%s\n' "$output" | sed -n 3p)" ]
	# without -k: the records before the first bad one, then status 1
	run -1 --separate-stderr llm-logits -m "$M" --ctx 64 -f top -P 4 <"$T/in"
	[ "${#lines[@]}" -eq 2 ]
	[[ $stderr == *"record 3 is empty"* ]]
	[[ $stderr != *"record 4"* ]]
}

@test "batch-score: -P 1 is the run of one record at a time" {
	recs 512 20 2 9 40 3
	llm-score -m "$M" --per-token <"$T/in" >"$T/a"
	llm-score -m "$M" --per-token -P 1 <"$T/in" | cmp - "$T/a"
	llm-logits -m "$M" --all -f bin <"$T/in" >"$T/a"
	llm-logits -m "$M" --all -f bin --parallel=1 <"$T/in" | cmp - "$T/a"
	llm-score -m "$M" --parallel 6 --per-token <"$T/in" | cmp - <(llm-score -m "$M" --per-token <"$T/in")
}

@test "batch-score: -P's bounds, -s with -P refused" {
	run -2 --separate-stderr llm-score -P 0 </dev/null
	[[ $stderr == *"-P"* ]]
	run -2 --separate-stderr llm-logits -P 257 </dev/null
	[[ $stderr == *"1 to 256"* ]]
	run -2 --separate-stderr llm-score --parallel=x </dev/null
	run -2 --separate-stderr llm-logits -s -P 2 -f text <<<"1 2"
	[[ $stderr == *"-s and -P"* ]]
	[ -z "$output" ]
	run -0 llm-logits -s -P 1 -f top <<<"1 2"
}

@test "batch-score: -v says the peak KV memory, --timing the passes" {
	recs 512 20 2 9 40 3
	run -0 --separate-stderr llm-score -m "$M" -v -P 4 <"$T/in"
	[[ $stderr == *"KV cache peak "*" blocks of 64 positions, "*MiB* ]]
	[[ $stderr != *passes* ]]
	run -0 --separate-stderr llm-logits -m "$M" --timing -P 4 -f top <"$T/in"
	[[ $stderr == *"batch of 4: "*passes*rows* ]]
}

@test "batch-score: a reader closing early ends -P quietly" {
	yes '1 403 407 261' | head -3000 >"$T/in"
	run bash -c 'llm-score -m "$0" -P 8 <"$1" 2>"$2" | head -c1 >/dev/null
	    echo "${PIPESTATUS[0]}"; cat "$2"' "$M" "$T/in" "$T/e1"
	[ "$output" = 141 ]
	run bash -c 'llm-logits -m "$0" -P 8 -f text <"$1" 2>"$2" | head -c1 >/dev/null
	    echo "${PIPESTATUS[0]}"; cat "$2"' "$M" "$T/in" "$T/e2"
	[ "$output" = 141 ]
}

@test "batch-score: -P in the man pages and --help" {
	local p
	for p in llm-score llm-logits; do
		run -0 $p --help
		[[ $output == *"-P, --parallel=N"* ]]
		grep -q 'Fl P Ar n , Fl \\-parallel' "$BATS_TEST_DIRNAME/../man/$p.1"
	done
}
