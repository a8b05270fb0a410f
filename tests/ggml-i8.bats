#!/usr/bin/env bats
# --int8-act on a GGUF file's block types (kern.h, "--int8-act on ggml's
# types"): files of each type written by tools/mkgguf -t, their logits
# beside the float path's on the same file (the activations in int8 per
# 32 or per 256 change them: within 15% RMS a row on these random
# weights, where --quant q8_0 --int8-act is 4-5%), the same bits for
# any --threads, decode as prefill and llm-gen -P N as -P 1; a type
# without kernels refused by name.

load helpers

setup() {
	T=$BATS_TEST_TMPDIR
	MK=$TOOLS/mkgguf
	# hidden 256: rows of whole K-quant superblocks
	"$TOOLS/mkmodel" -s 6 --dtype f32 --hidden 256 --layers 2 --heads 4 \
	    --kv-heads 2 --inter 512 --vocab 300 --ctx 128 --untied "$T/m" >/dev/null
	echo "1 7 42 299 3 18 250 5 9 100 11 77" >"$T/ids"
}

# The checks of type $1's file: --int8-act near the float path's
# logits (not its bits), the same for 1 and 2 threads, decode (-s, 2
# threads) as prefill.
int8_checks() {
	"$MK" -t "$1" "$T/m" "$T/q.gguf"
	llm-logits -m "$T/q.gguf" --all -f npy -o "$T/f.npy" <"$T/ids"
	for th in 1 2; do
		llm-logits -m "$T/q.gguf" -t $th --int8-act --all -f npy \
		    -o "$T/i$th.npy" <"$T/ids"
	done
	cmp "$T/i1.npy" "$T/i2.npy"
	! cmp -s "$T/i1.npy" "$T/f.npy" || false
	run -0 npycmp -g -a 2 -r 0.15 "$T/i1.npy" "$T/f.npy"
	echo "$1: $output"
	tr ' ' '\n' <"$T/ids" |
	    llm-logits -m "$T/q.gguf" -t 2 --int8-act -s -f npy -o "$T/s.npy"
	cmp "$T/s.npy" "$T/i1.npy"
}

@test "ggml-i8: each type's --int8-act logits near the float path's, the same for any --threads, decode as prefill" {
	for ty in q8_0 q4_0 q5_0 q4_K q6_K; do
		int8_checks "$ty"
	done
}

@test "ggml-i8: the AVX2 table's packed superblocks: the same for any --threads, decode as prefill" {
	# PIPELM_KERNEL=avx2 reads Q4_K and Q6_K packed by 16 rows (kern.h);
	# another table's logits differ in their float steps, not compared
	PIPELM_KERNEL=avx2 llm-logits --version >/dev/null 2>&1 ||
	    skip "this CPU has no AVX2"
	export PIPELM_KERNEL=avx2
	int8_checks q4_K
	int8_checks q6_K
}

@test "ggml-i8: -v names the mode; a type without kernels is refused by name" {
	"$MK" -t q4_K "$T/m" "$T/q.gguf"
	run -0 --separate-stderr llm-logits -m "$T/q.gguf" --int8-act -v -f top <<<"1 2 3"
	[[ $stderr == *"int8-act"* ]]
	for ty in q4_1 q3_K iq4_nl; do
		"$MK" -t "$ty" "$T/m" "$T/r.gguf"
		run -1 --separate-stderr llm-logits -m "$T/r.gguf" --int8-act <<<"1 2 3"
		[[ $stderr == *"--int8-act has no kernels for ${ty}"* ]]
		[ -z "$output" ]
	done
}

@test "ggml-i8: llm-gen -P N --int8-act gives each record what -P 1 gives it" {
	"$MK" -t q4_K "$T/m" "$T/q.gguf"
	printf '1 2 3\n7 8\n42 5 9 11\n3\n250 1\n' >"$T/in"
	llm-gen -m "$T/q.gguf" --int8-act -n 8 --seed 3 --temp 0.8 -P 1 <"$T/in" >"$T/p1"
	for p in "-P 3" "-P 8 -t 2"; do
		llm-gen -m "$T/q.gguf" --int8-act -n 8 --seed 3 --temp 0.8 $p <"$T/in" >"$T/pn"
		cmp "$T/p1" "$T/pn"
	done
	[ "$(wc -l <"$T/p1")" -eq 5 ]
}
