#!/usr/bin/env bats
# mkmodel: the random model folders the other suites and the benchmarks use.

load helpers

setup() {
	T=$BATS_TEST_TMPDIR
	MK=$TOOLS/mkmodel
}

@test "mkmodel: usage errors" {
	run -2 --separate-stderr "$MK"
	[[ $stderr == *usage:* ]]
	run -2 --separate-stderr "$MK" --dtype f8 "$T/m"
	[[ $stderr == *"invalid dtype 'f8'"* ]]
	run -2 --separate-stderr "$MK" --preset huge "$T/m"
	[[ $stderr == *"invalid preset"* ]]
	run -2 --separate-stderr "$MK" --heads 5 "$T/m"
	[[ $stderr == *"--head-dim"* ]]
	run -2 --separate-stderr "$MK" --heads 4 --kv-heads 3 "$T/m"
	[[ $stderr == *"kv-heads must divide heads"* ]]
	run -2 --separate-stderr "$MK" --vocab 100 "$T/m"
	[[ $stderr == *"needs --tokenizer"* ]]
	run -2 --separate-stderr "$MK" --layers x "$T/m"
	[[ $stderr == *layers* ]]
	[ ! -e "$T/m" ]
	run -0 "$MK" --help
	[[ $output == usage:* ]]
}

@test "mkmodel: an unwritable folder is an error" {
	run -1 --separate-stderr "$MK" /proc/nope/m
	[[ $stderr == *"/proc/nope/m"* ]]
}

@test "mkmodel: Llama-3.2-1B shapes (one layer, a small vocabulary)" {
	"$MK" --preset llama3.2-1b --layers 1 --vocab 512 "$T/m"
	run -0 st-inspect "$T/m"
	layer=$((2*2048 + 2048*2048*2 + 512*2048*2 + 8192*2048*3))
	grep -qx "parameters: $((512*2048 + 2048 + layer))" <<<"$output"
	grep -qx "heads: 32" <<<"$output"
	grep -qx "kv_heads: 8" <<<"$output"
	grep -qx "head_dim: 64" <<<"$output"
	grep -qx "tied: 1" <<<"$output"
	grep -q '"rope_theta": 500000' "$T/m/config.json"
}

@test "mkmodel: SmolLM2-135M shapes (one layer; 30 give 134,515,008 parameters)" {
	"$MK" --preset smollm2-135m --layers 1 "$T/m"
	run -0 st-inspect "$T/m"
	layer=$((2*576 + 576*576*2 + 192*576*2 + 1536*576*3))
	grep -qx "parameters: $((49152*576 + 576 + layer))" <<<"$output"
	[ $((49152*576 + 576 + 30 * layer)) -eq 134515008 ]
	grep -qx "heads: 9" <<<"$output"
	grep -qx "kv_heads: 3" <<<"$output"
	grep -qx "head_dim: 64" <<<"$output"
	grep -qx "context: 8192" <<<"$output"
	grep -q '"rope_theta": 100000,' "$T/m/config.json"
	grep -q '"torch_dtype": "bfloat16"' "$T/m/config.json"
}

@test "mkmodel: dtypes, biases, head_dim" {
	"$MK" --dtype f32 --bias --heads 4 --kv-heads 1 --head-dim 8 "$T/m"
	run -0 st-inspect "$T/m"
	grep -q $'^model.layers.1.self_attn.q_proj.bias\tF32\t\\[32\\]' <<<"$output"
	grep -q $'^model.layers.1.self_attn.k_proj.bias\tF32\t\\[8\\]' <<<"$output"
	grep -q $'^model.layers.0.self_attn.o_proj.weight\tF32\t\\[64,32\\]' <<<"$output"
	! grep -q 'o_proj.bias' <<<"$output"
	grep -qx "head_dim: 8" <<<"$output"
	grep -q '"attention_bias": true' "$T/m/config.json"
	"$MK" --dtype f16 "$T/h"
	run -0 st-inspect "$T/h"
	grep -qx "bytes F16: $(sed -n 's/^bytes: //p' <<<"$output")" <<<"$output"
}

@test "mkmodel: --tokenizer is copied as is" {
	need_shared
	"$MK" --vocab 49152 --tokenizer "$SHARED/models/smollm2-tokenizer/tokenizer.json" "$T/m"
	cmp "$SHARED/models/smollm2-tokenizer/tokenizer.json" "$T/m/tokenizer.json"
}

@test "mkmodel: the generated tokenizer encodes and decodes" {
	"$MK" --vocab 600 "$T/m"
	text='the cat sat on the mat, "quoted" \ back-slashed'
	run -0 tok-encode -m "$T/m" -e "$text"
	ids=$output
	# merges apply: fewer ids than bytes, all below the vocab size
	[ "$(wc -w <<<"$ids")" -lt "${#text}" ]
	for i in $ids; do [ "$i" -lt 600 ]; done
	run -0 bash -c "tok-encode -m '$T/m' -e '$text' | tok-decode -m '$T/m'"
	[ "$output" = "$text" ]
}

@test "mkmodel: llm-logits runs on the folder" {
	"$MK" --vocab 300 "$T/m"
	run -0 bash -c "echo '5 6 7' | llm-logits -m '$T/m' -f text"
	[ "$(wc -w <<<"$output")" -eq 300 ]
}
