#!/usr/bin/env bats
# llm-gen -P N (lib/stream/gen.h): records in flight together, their
# passes batched; each record's output is what -P 1 gives it, in input
# order, whatever N, the threads or the other records.
load helpers

setup_file() {
	local d=$BATS_FILE_TMPDIR i
	export BF16=$d/bf16 F16=$d/f16 F32=$d/f32 RECS=$d/recs LONG=$d/long
	"$TOOLS/mkmodel" -s 21 --dtype bf16 --hidden 64 --layers 2 --heads 4 \
	    --kv-heads 2 --inter 96 --vocab 300 --ctx 512 "$BF16" >/dev/null
	"$TOOLS/mkmodel" -s 22 --dtype f16 --hidden 48 --layers 2 --heads 4 \
	    --kv-heads 4 --head-dim 16 --inter 80 --vocab 280 --ctx 512 --untied "$F16" >/dev/null
	"$TOOLS/mkmodel" -s 23 --dtype f32 --hidden 64 --layers 3 --heads 4 \
	    --kv-heads 1 --inter 64 --vocab 260 --ctx 512 --bias "$F32" >/dev/null
	# prompts of 1 to 40 ids, so that records end at different steps
	for i in 1 7 3 40 2 19 5 11 1 28; do
		seq 1 "$i" | awk -v s="$i" '{ printf "%s%d", (NR > 1 ? " " : ""), ($1 * 37 + s * 11) % 250 + 3 } END { print "" }'
	done >"$RECS"
	# beside short ones, prompts longer than a pass (256 ids: cut into
	# pieces beside the others' decode steps) and of 257 (a lone last id)
	{
		head -3 "$RECS"
		seq 1 300 | awk '{ printf "%s%d", (NR > 1 ? " " : ""), ($1 * 7) % 250 + 3 } END { print "" }'
		seq 1 257 | awk '{ printf "%s%d", (NR > 1 ? " " : ""), ($1 * 13) % 250 + 3 } END { print "" }'
		tail -2 "$RECS"
	} >"$LONG"
}

# same ARGS...: llm-gen ARGS gives the same output and status with -P 3,
# with -P 8 on 2 threads and with -P 1 as without -P.
same() {
	local want rc grc got p in=$BATS_TEST_TMPDIR/same.in
	cat >"$in"
	rc=0
	want=$(llm-gen "$@" <"$in" 2>/dev/null) || rc=$?
	for p in "-P 1" "-P 3" "-P 8 -t 2"; do
		grc=0
		got=$(llm-gen $p "$@" <"$in" 2>/dev/null) || grc=$?
		[ $grc = $rc ] || { echo "llm-gen $p $*: status differs"; return 1; }
		[ "$got" = "$want" ] || { echo "llm-gen $p $*: output differs"; return 1; }
	done
}

@test "parallel: -P N, --parallel=N and their refusals" {
	run -2 --separate-stderr llm-gen -m "$BF16" -P 0 </dev/null
	[[ $stderr == *"-P"* ]]
	run -2 --separate-stderr llm-gen -m "$BF16" --parallel=193 </dev/null
	run -2 --separate-stderr llm-gen -m "$BF16" -P x </dev/null
	run -2 --separate-stderr llm-gen -m "$BF16" -P 2 -s </dev/null
	[[ $stderr == *"-s and -P cannot go together"* ]]
	[ -z "$output" ]
	run -0 llm-gen --help
	[[ $output == *--parallel=N* ]]
	run -0 llm-gen -m "$BF16" --parallel=2 -n 3 --temp 0 <"$RECS"
	[ "${#lines[@]}" = 10 ]
}

@test "parallel: each record as -P 1 gives it, greedy and sampled, every weight type and mode" {
	local m q
	for m in "$BF16" "$F16" "$F32"; do
		for q in "" "--quant q8_0" "--quant q4"; do
			same -m "$m" $q -c 128 -n 9 --temp 0 <"$RECS"
			same -m "$m" $q -c 128 -n 12 --temp 0.9 --seed 5 --stop 17 <"$RECS"
		done
	done
	# --bf16-act where the CPU has it (else the exact path, said)
	same -m "$BF16" --bf16-act -n 6 --temp 0.7 --seed 2 <"$RECS"
}

@test "parallel: a 4-bit folder (compressed-tensors) and GPTQ, as -P 1" {
	llm-quant "$BF16" "$BATS_TEST_TMPDIR/q" >/dev/null 2>&1
	same -m "$BATS_TEST_TMPDIR/q" -n 8 --temp 0.8 --seed 3 <"$RECS"
	"$TOOLS/mkgptq" "$BF16" "$BATS_TEST_TMPDIR/g" "$BATS_TEST_TMPDIR/g.d" >/dev/null
	same -m "$BATS_TEST_TMPDIR/g" -n 8 --temp 0 <"$RECS"
}

@test "parallel: GGUF files of the factored decode, as -P 1" {
	local f ty
	# hidden 256 and inter 512: rows of whole superblocks, which the
	# K types' decode sums in its own order, as the 32-weight blocks'
	# (kern.h, wtypes' mvdiff): a batch's one-id passes must take
	# matvec as -P 1 does
	"$TOOLS/mkmodel" -s 21 --dtype f32 --hidden 256 --layers 2 --heads 4 \
	    --kv-heads 2 --inter 512 --vocab 300 --ctx 512 "$BATS_TEST_TMPDIR/m" >/dev/null
	for ty in q2_K q4_K q5_K q6_K q4_0 q5_0 q8_0; do
		f=$BATS_TEST_TMPDIR/$ty.gguf
		"$TOOLS/mkgguf" -t "$ty" "$BATS_TEST_TMPDIR/m" "$f"
		same -m "$f" -n 9 --temp 0 <"$RECS"
		same -m "$f" -n 9 --temp 0.9 --seed 5 <"$RECS"
		# llm-logits -P: the logits themselves, byte for byte
		llm-logits -m "$f" <"$RECS" >"$BATS_TEST_TMPDIR/l1"
		llm-logits -m "$f" -P 4 <"$RECS" >"$BATS_TEST_TMPDIR/l4"
		llm-logits -m "$f" -P 3 -t 2 <"$RECS" >"$BATS_TEST_TMPDIR/l3"
		cmp "$BATS_TEST_TMPDIR/l1" "$BATS_TEST_TMPDIR/l4"
		cmp "$BATS_TEST_TMPDIR/l1" "$BATS_TEST_TMPDIR/l3"
	done
}

@test "parallel: llama.cpp's numeric classes (--bf16-act, --int8-act on --quant and GGUF blocks), as -P 1" {
	local q f ty
	# each mode's decode rows of a batch go through its matmul, T
	# tokens a pass (kern.h: those bits are matvec's); greedy, sampled
	# and llm-logits -P's logits byte for byte
	for q in "--bf16-act" "--quant q8_0 --int8-act" "--quant q4 --int8-act"; do
		same -m "$BF16" $q -c 128 -n 9 --temp 0 <"$RECS"
		same -m "$F32" $q -n 12 --temp 0.9 --seed 5 <"$RECS"
		same -m "$BF16" $q -n 20 --temp 0.8 --seed 9 <"$LONG"
		llm-logits -m "$F16" $q <"$RECS" >"$BATS_TEST_TMPDIR/l1"
		llm-logits -m "$F16" $q -P 4 <"$RECS" >"$BATS_TEST_TMPDIR/l4"
		llm-logits -m "$F16" $q -P 3 -t 2 <"$RECS" >"$BATS_TEST_TMPDIR/l3"
		cmp "$BATS_TEST_TMPDIR/l1" "$BATS_TEST_TMPDIR/l4"
		cmp "$BATS_TEST_TMPDIR/l1" "$BATS_TEST_TMPDIR/l3"
	done
	# GGUF blocks with --int8-act (hidden 256: whole superblocks)
	"$TOOLS/mkmodel" -s 24 --dtype f32 --hidden 256 --layers 2 --heads 4 \
	    --kv-heads 2 --inter 512 --vocab 300 --ctx 512 "$BATS_TEST_TMPDIR/m" >/dev/null
	for ty in q8_0 q4_0 q5_0 q6_K; do
		f=$BATS_TEST_TMPDIR/$ty.gguf
		"$TOOLS/mkgguf" -t "$ty" "$BATS_TEST_TMPDIR/m" "$f"
		same -m "$f" --int8-act -n 9 --temp 0 <"$RECS"
		same -m "$f" --int8-act -n 9 --temp 0.9 --seed 5 <"$RECS"
		llm-logits -m "$f" --int8-act <"$RECS" >"$BATS_TEST_TMPDIR/l1"
		llm-logits -m "$f" --int8-act -P 3 -t 2 <"$RECS" >"$BATS_TEST_TMPDIR/l3"
		cmp "$BATS_TEST_TMPDIR/l1" "$BATS_TEST_TMPDIR/l3"
	done
}

@test "parallel: prompts longer than a pass beside short ones, echo, u32" {
	same -m "$BF16" -n 20 --temp 0.8 --seed 9 <"$LONG"
	same -m "$F32" -e -n 5 --temp 0 <"$LONG"
	printf 'Once upon a time\nThe cat\nOne day\n' | tok-encode -l --ids=u32 \
	    >"$BATS_TEST_TMPDIR/u"
	llm-gen --ids=u32 -e -n 7 --seed 4 <"$BATS_TEST_TMPDIR/u" >"$BATS_TEST_TMPDIR/a"
	llm-gen --ids=u32 -e -n 7 --seed 4 -P 2 <"$BATS_TEST_TMPDIR/u" >"$BATS_TEST_TMPDIR/b"
	[ -s "$BATS_TEST_TMPDIR/a" ]
	cmp "$BATS_TEST_TMPDIR/a" "$BATS_TEST_TMPDIR/b"
}

@test "parallel: every architecture of ../shared's models, 1 and 2 threads" {
	need_shared
	local a
	for a in arch-llama arch-llama-linear arch-llama-yarn arch-qwen2 arch-qwen3 \
	    arch-mistral arch-smollm3 arch-gemma3 arch-gemma2 arch-phi3 arch-phi3-longrope; do
		same -m "$SHARED/models/$a" -c 512 -n 10 --temp 0.9 --seed 1 <"$RECS"
		same -m "$SHARED/models/$a" -c 512 -n 10 --temp 0 <"$LONG"
	done
}

@test "parallel: the built-in model's stories end at EOS and at stop text at different steps" {
	local p
	p=$(printf 'Once upon a time\nThe cat\nOne day, a little girl named Lily\nHe\nThe sun\n' | tok-encode -l)
	same --temp 0.8 --seed 7 <<<"$p"
	same --temp 0 -n 60 --stop-text ' the' --stop-text '.' <<<"$p"
	# the records do end at different steps: -v says how many ids
	run -0 --separate-stderr llm-gen -v -P 5 --temp 0.8 --seed 7 <<<"$p"
	[ "${#lines[@]}" = 5 ]
	[[ $stderr == *"stop: eos"* ]]
	[[ $stderr == *"KV cache peak"* ]]
}

@test "parallel: several decode steps past 64 keys in one pass (each its key ranges' own scratch)" {
	# a layer's attention is one dispatch for all parts (seq_sched.c):
	# each decode part's key ranges (more than ATTN_MINCHUNK keys) go to
	# its own place; the built-in model's attention shows where they do
	# not (a random model's output barely depends on it)
	local i
	for i in 100 120 90 70; do
		seq 1 "$i" | awk -v s="$i" '{ printf "%s%d", (NR > 1 ? " " : ""), ($1 * s) % 500 + 3 } END { print "" }'
	done >"$BATS_TEST_TMPDIR/p"
	same -n 24 --temp 1 --seed 9 --ignore-eos <"$BATS_TEST_TMPDIR/p"
	same -n 24 --temp 0 --ignore-eos --kv-type bf16 <"$BATS_TEST_TMPDIR/p"
	same -n 24 --temp 0 --ignore-eos --kv-type q8_0 <"$BATS_TEST_TMPDIR/p"
}

@test "parallel: a batch where records fail midway, with and without -k" {
	local bad=$BATS_TEST_TMPDIR/bad
	{ head -4 "$RECS"; echo; echo "1 2 999"; head -5 "$RECS" | tail -3
	  seq 1 600 | awk '{ printf "%d ", $1 % 250 + 3 }'; echo; tail -2 "$RECS"; } >"$bad"
	same -m "$BF16" -n 7 --temp 0 <"$bad"
	same -m "$BF16" -k -n 7 --temp 0.5 --seed 3 <"$bad"
	run -1 --separate-stderr llm-gen -m "$BF16" -P 4 -k -n 7 <"$bad"
	[ "$(printf '%s\n' "$output" | wc -l)" = 12 ]	# 3 of them empty
	[ "${#lines[@]}" = 9 ]
	[[ $stderr == *"record 5: empty prompt"* ]]
	[[ $stderr == *"record 6: token id 999"* ]]
	[[ $stderr == *"record 10: prompt of 600 tokens exceeds the context of 512"* ]]
	[[ $stderr == *"3 of 12 records failed"* ]]
	# without -k: the records before the first bad one, and no more
	run -1 --separate-stderr llm-gen -m "$BF16" -P 4 -n 7 <"$bad"
	[ "${#lines[@]}" = 4 ]
	[[ $stderr == *"record 5: empty prompt"* ]]
	[[ $stderr != *"record 6"* ]]
}

@test "parallel: more records in flight than the output ring's first 16 (-P 40), llm-gen, llm-score, llm-logits" {
	# lib/stream/order.c grows its ring of records begun at 16, 32, ...:
	# each record's stream writes where it was opened, so the entries
	# must not move (they did, and -P 64 lost records); and W_Q4's
	# decode rows of 40 records in one pass of the weights (matvecs:
	# panels of rows against blocks of tokens)
	local in=$BATS_TEST_TMPDIR/in p q
	for i in $(seq 1 40); do
		seq 1 $((i % 7 + 2)) | awk -v s="$i" '{ printf "%s%d", (NR > 1 ? " " : ""), ($1 * 31 + s * 17) % 250 + 3 } END { print "" }'
	done >"$in"
	for q in "" "--quant q4"; do
		llm-gen -m "$BF16" $q -n 5 --temp 0.8 --seed 3 -P 1 <"$in" >"$BATS_TEST_TMPDIR/g1"
		[ "$(wc -l <"$BATS_TEST_TMPDIR/g1")" = 40 ]
		for p in "-P 17" "-P 40" "-P 40 -t 2"; do
			llm-gen -m "$BF16" $q -n 5 --temp 0.8 --seed 3 $p <"$in" >"$BATS_TEST_TMPDIR/g"
			cmp "$BATS_TEST_TMPDIR/g1" "$BATS_TEST_TMPDIR/g"
		done
	done
	llm-score -m "$BF16" -P 1 <"$in" >"$BATS_TEST_TMPDIR/s1"
	llm-score -m "$BF16" -P 40 <"$in" >"$BATS_TEST_TMPDIR/s"
	cmp "$BATS_TEST_TMPDIR/s1" "$BATS_TEST_TMPDIR/s"
	llm-logits -m "$BF16" -P 1 -f bin <"$in" >"$BATS_TEST_TMPDIR/l1"
	llm-logits -m "$BF16" -P 40 -f bin <"$in" >"$BATS_TEST_TMPDIR/l"
	cmp "$BATS_TEST_TMPDIR/l1" "$BATS_TEST_TMPDIR/l"
}
