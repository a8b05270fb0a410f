#!/usr/bin/env bats
# ggml's block types end to end: a GGUF file of each type (tools/mkgguf
# -t) through llm-logits against the F32 GGUF of the same weights
# dequantized (mkgguf -D -t): the float32 forward of the weights the
# blocks hold, to 1e-5 relative, and the same bits for any --threads.

load helpers

setup() {
	T=$BATS_TEST_TMPDIR
	MK=$TOOLS/mkgguf
	# hidden 256: rows of whole K-quant superblocks (ffn_down's, 96,
	# take llama-quantize's fallback types)
	"$TOOLS/mkmodel" -s 6 --dtype f32 --hidden 256 --layers 2 --heads 4 \
	    --kv-heads 2 --inter 96 --vocab 300 --ctx 128 --untied "$T/m" >/dev/null
	echo "1 7 42 299 3 18 250 5 9 100 11 77" >"$T/ids"
}

# skip where llm-logits takes no GGUF model (the weight source of issue 27)
need_gguf() {
	echo 1 | llm-logits -m "$1" >/dev/null 2>&1 ||
	    skip "llm-logits reads no GGUF file here"
}

@test "ggml types: llm-logits of each type equals the float32 forward of its dequantized weights" {
	for ty in q8_0 q4_0 q4_1 q5_0 q5_1 q2_K q3_K q4_K q5_K q6_K iq4_nl iq4_xs; do
		"$MK" -t "$ty" "$T/m" "$T/q.gguf"
		"$MK" -D -t "$ty" "$T/m" "$T/d.gguf"
		need_gguf "$T/d.gguf"
		llm-logits -m "$T/d.gguf" --all -f npy -o "$T/d.npy" <"$T/ids"
		for th in 1 2; do
			llm-logits -m "$T/q.gguf" -t $th --all -f npy \
			    -o "$T/q$th.npy" <"$T/ids"
		done
		cmp "$T/q1.npy" "$T/q2.npy"
		run -0 npycmp -a 1e-6 -r 1e-5 "$T/q1.npy" "$T/d.npy"
		echo "$ty: $output"
		[[ $output == *"argmax-mismatch 0"* ]]
		# decode's matvec (a position a call) as prefill's matmul; the
		# factored decode (kern.h: Q2_K, Q4_K, Q5_K, Q6_K and the
		# 32-weight blocks but IQ4_NL) sums in another order,
		# off the F32 path's bits by as much as the portable and
		# AVX-512 tables' F32 kernels are off each other (maxabs about
		# 1e-5 here), so only npycmp's default absolute bound
		tr ' ' '\n' <"$T/ids" |
		    llm-logits -m "$T/q.gguf" -s -f npy -o "$T/s.npy"
		run -0 npycmp -r 1e-5 "$T/s.npy" "$T/d.npy"
		# and not the logits of another type's weights (the check
		# can fail)
		if [ "$ty" = q4_K ]; then
			run -1 npycmp -a 1e-6 -r 1e-5 "$T/q1.npy" "$T/prev.npy"
		fi
		cp "$T/d.npy" "$T/prev.npy"
	done
}

@test "ggml types: llama-quantize's files, every type it writes pipelm runs, equal the float32 forward of llama.cpp's dequantization" {
	local lq=${PIPELM_PEER:-$BATS_TEST_DIRNAME/../build/peer}/llama-quantize ty
	[ -x "$lq" ] || skip "llama.cpp's llama-quantize not built (make peer)"
	"$MK" "$T/m" "$T/f.gguf"
	need_gguf "$T/f.gguf"
	# llama.cpp's own mixtures (Q4_K_M's Q6_K layers, the output head
	# in Q6_K, ffn_down's rows of 96 in its fallback types); Q2_K_S and
	# the IQ1-IQ3 types want an importance matrix
	for ty in Q4_0 Q4_1 Q5_0 Q5_1 Q8_0 Q2_K Q3_K_S Q3_K_M Q3_K_L Q4_K_S \
	    Q4_K_M Q5_K_S Q5_K_M Q6_K IQ4_NL IQ4_XS F16 BF16; do
		"$lq" "$T/f.gguf" "$T/q.gguf" $ty >"$T/log" 2>&1 ||
			{ cat "$T/log"; false; }
		# the weights as llama.cpp's dequantization gives them
		"$lq" --allow-requantize "$T/q.gguf" "$T/d.gguf" F32 >"$T/log" 2>&1 ||
			{ cat "$T/log"; false; }
		llm-logits -m "$T/d.gguf" --all -f npy -o "$T/d.npy" <"$T/ids"
		for th in 1 2; do
			llm-logits -m "$T/q.gguf" -t $th --all -f npy \
			    -o "$T/q$th.npy" <"$T/ids"
		done
		cmp "$T/q1.npy" "$T/q2.npy"
		run -0 npycmp -a 1e-6 -r 1e-5 "$T/q1.npy" "$T/d.npy"
		echo "$ty: $output"
		[[ $output == *"argmax-mismatch 0"* ]]
		# and not the logits of the float weights (the check can fail)
		if [ $ty = Q4_0 ]; then
			llm-logits -m "$T/f.gguf" --all -f npy -o "$T/f.npy" <"$T/ids"
			run -1 npycmp -a 1e-6 -r 1e-5 "$T/q1.npy" "$T/f.npy"
		fi
	done
}
