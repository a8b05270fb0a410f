#!/usr/bin/env bats
# GPTQ and AWQ int4 checkpoints read in place (lib/kern/gptq.h): the logits
# of folders written by tools/mkgptq against those of their dequantized
# F32 twins, st-inspect's logical weights, the refusals.

load helpers

IDS='1 5 9 2 6 5 3 5 8 9 7 9 3 2 3 8 4 6 2 6 4 3 3 8 3 2 7 9 5'

setup() {
	T=$BATS_TEST_TMPDIR
}

mkgptq() {
	"$TOOLS/mkgptq" "$@"
}

# exact DIR REF: as exact4, prefill byte-identical to one token at a
# time too; the F32 tables differ from each other by as much as 1e-4 on
# these logits.
exact() {
	exact4 "$1" "$2" 1e-4 same
}

@test "gptq: GPTQ folders equal their dequantized F32 folders (every table, 1 and 2 threads)" {
	mkmodel "$T/f" --dtype bf16 --hidden 128 --inter 256
	# Qwen2.5-GPTQ-Int4's settings: symmetric, group 128, v1 zeros, g_idx
	mkgptq "$T/f" "$T/g" "$T/d"
	grep -q '"quant_method": "gptq"' "$T/g/config.json"
	! grep -q quantization_config "$T/d/config.json"
	exact "$T/g" "$T/d"
	# and it is 4 bits, not the float model
	llm-logits -m "$T/f" --all -f npy -o "$T/f.npy" <<<"$IDS"
	run -1 npycmp -a 1e-3 -r 1e-4 "$T/q1.npy" "$T/f.npy"
}

@test "gptq: asymmetric, groups 32 and 64 and whole rows, v2 zeros, BF16 and F32 scales, biases, a 4-bit lm_head" {
	mkmodel "$T/f" --dtype f16 --untied --hidden 96 --inter 200 --bias
	mkgptq --asym -g 32 --head "$T/f" "$T/a" "$T/a.d"
	mkgptq --asym -g 64 --v2 --scale bf16 --no-gidx "$T/f" "$T/b" "$T/b.d"
	mkgptq -g -1 --scale f32 --head "$T/f" "$T/c" "$T/c.d"
	grep -q '"checkpoint_format": "gptq_v2"' "$T/b/config.json"
	for m in a b c; do
		exact "$T/$m" "$T/$m.d"
	done
	run -0 st-inspect "$T/a"
	[[ $output == *"model.layers.0.self_attn.q_proj.bias	F16	[96]"* ]]
	[[ $output == *"lm_head.qweight	I32	[12,512]"* ]]
	[[ $output == *"model.layers.0.mlp.down_proj.qzeros	I32	[7,12]"* ]]
	[[ $output == *"model.layers.0.mlp.down_proj.g_idx	I32	[200]"* ]]
}

@test "gptq: AWQ GEMM folders equal their dequantized F32 folders" {
	mkmodel "$T/f" --dtype bf16 --hidden 128 --inter 256 --untied
	mkgptq --awq --asym "$T/f" "$T/a" "$T/a.d"
	mkgptq --awq --asym -g 32 --head "$T/f" "$T/b" "$T/b.d"
	mkgptq --awq -g 64 "$T/f" "$T/c" "$T/c.d"
	grep -q '"quant_method": "awq"' "$T/a/config.json"
	for m in a b c; do
		exact "$T/$m" "$T/$m.d"
	done
	run -0 st-inspect "$T/b"
	# qweight [in, out / 8]
	[[ $output == *"model.layers.0.mlp.down_proj.qweight	I32	[256,16]"* ]]
	[[ $output == *"model.layers.0.mlp.down_proj.weight	int4	[128,256]	group 32	awq	scale F16	"* ]]
}

@test "gptq: st-inspect lists a GPTQ weight as one, and counts its bytes per token" {
	mkmodel "$T/f" --dtype bf16
	mkgptq -g 32 "$T/f" "$T/g" "$T/d"
	run -0 st-inspect "$T/g"
	# qweight [in/8, out] I32, qzeros [groups, out/8] I32, scales F16
	[[ $output == *"model.layers.0.self_attn.q_proj.qweight	I32	[8,64]"* ]]
	[[ $output == *"quantized:"*"model.layers.1.mlp.down_proj.weight	int4	[64,160]	group 32	gptq	scale F16	5920"* ]]
	[[ $output == *"model.layers.0.self_attn.k_proj.weight	int4	[32,64]	group 32	gptq	scale F16	1184"* ]]
	[ "$(grep -c '	int4	' <<<"$output")" -eq 14 ]
	# the 4-bit weights, the (tied) BF16 table, the norms; not g_idx
	grep -qx "bytes_per_token: $(( 2 * (2*2368 + 2*1184 + 3*5920) + 512*64*2 + 5*64*2 ))" <<<"$output"
	# logical parameters: those of the float model
	run -0 st-inspect "$T/f"
	p=$(sed -n 's/^parameters: //p' <<<"$output" | tail -1)
	run -0 st-inspect "$T/g"
	grep -qx "parameters: $p" <<<"$output"
	run -0 st-inspect -j "$T/g"
	[[ $output == *'{"name": "model.layers.1.mlp.down_proj.weight", "bits": 4, "shape": [64,160], "group": 32, "format": "gptq", "scale_dtype": "F16", "bytes": 5920}'* ]]
	# --timing counts the same bytes
	run -0 --separate-stderr llm-logits -m "$T/g" --timing -f top <<<"1 2"
	[[ $stderr == *"mode exact"* ]]
}

# qcfg DIR JSON: DIR's quantization_config replaced by JSON.
qcfg() {
	sed 's/"quantization_config": {.*}}$/"quantization_config": '"$2"'}/' \
	    "$1/config.json" >"$1/config.json.new" && mv "$1/config.json.new" "$1/config.json"
}

@test "gptq: what is not supported is refused by name, before the weights" {
	mkmodel "$T/f" --dtype bf16
	mkgptq -g 32 "$T/f" "$T/g0" "$T/d"
	check() {
		rm -rf "$T/g"
		cp -r "$T/g0" "$T/g"
		qcfg "$T/g" "$1"
		grep -qF "$1" "$T/g/config.json"
		run -1 --separate-stderr llm-logits -m "$T/g" <<<"1"
		echo "$stderr"
		[[ $stderr == *"$2"* ]]
	}
	g='"quant_method": "gptq", "group_size": 32'
	check "{$g, \"bits\": 3}" "gptq 3-bit weights are not supported (4 only)"
	check "{$g, \"bits\": 8}" "gptq 8-bit weights are not supported (4 only)"
	check "{\"quant_method\": \"awq\", \"w_bit\": 8, \"q_group_size\": 32}" "awq 8-bit weights"
	check "{$g, \"bits\": 4, \"desc_act\": true}" "act-order (desc_act true) is not supported"
	check "{$g, \"bits\": 4, \"act_bits\": 8}" "8-bit activations (act_bits) are not supported"
	check "{$g, \"bits\": 4, \"checkpoint_format\": \"marlin\"}" "checkpoint_format 'marlin' is not supported"
	check "{$g, \"bits\": 4, \"dynamic\": {\"-:.*down\": {}}}" "per-module overrides (dynamic)"
	check "{\"quant_method\": \"gptq\", \"bits\": 4, \"group_size\": 12}" "group_size 12 is not a multiple of 8"
	check "{\"quant_method\": \"gptq\", \"bits\": 4}" "without a valid group_size"
	check "{\"quant_method\": \"awq\", \"bits\": 4, \"group_size\": 32, \"version\": \"gemv\"}" "AWQ version 'gemv' is not supported (gemm only)"
	# an act-order g_idx in a desc_act false folder
	mkgptq -g 32 --perm-gidx "$T/f" "$T/p" "$T/d"
	run -1 --separate-stderr llm-logits -m "$T/p" <<<"1"
	[[ $stderr == *"q_proj.g_idx' maps input 0 to group 1, not 0: act-order (a permuted g_idx) is not supported"* ]]
	# tensors that do not fit the config
	rm -rf "$T/g"
	cp -r "$T/g0" "$T/g"
	jsed "$T/g/config.json" 's/"intermediate_size": 160/"intermediate_size": 168/'
	run -1 --separate-stderr llm-logits -m "$T/g" <<<"1"
	[[ $stderr == *"gate_proj.qweight' has shape [8,160], expected [8, 168]"* ]]
	# the wrong group size for the scales
	rm -rf "$T/g"
	cp -r "$T/g0" "$T/g"
	jsed "$T/g/config.json" 's/"group_size": 32/"group_size": 64/'
	run -1 --separate-stderr llm-logits -m "$T/g" <<<"1"
	[[ $stderr == *"q_proj.scales' has shape [2,64], expected [1, 64]"* ]]
	# a missing tensor (its name changed in the header, same length)
	rm -rf "$T/g"
	cp -r "$T/g0" "$T/g"
	LC_ALL=C sed -i 's/layers\.0\.self_attn\.q_proj\.qzeros/layers.0.self_attn.q_proj.qzeroX/' \
	    "$T/g/model.safetensors"
	run -1 --separate-stderr llm-logits -m "$T/g" <<<"1"
	[[ $stderr == *"missing tensor 'model.layers.0.self_attn.q_proj.qzeros'"* ]]
	LC_ALL=C sed -i 's/layers\.0\.self_attn\.q_proj\.qweight/layers.0.self_attn.q_proj.qweighX/' \
	    "$T/g/model.safetensors"
	run -1 --separate-stderr llm-logits -m "$T/g" <<<"1"
	[[ $stderr == *"missing tensor 'model.layers.0.self_attn.q_proj.qweight'"* ]]
	# a 4-bit folder takes no mode
	run -1 --separate-stderr llm-logits -m "$T/g0" --quant q8_0 <<<"1"
	[[ $stderr == *"4-bit already"* ]]
}

@test "gptq: a fused GPTQ matrix (Phi-3's qkv_proj) is refused by name" {
	need_shared
	mkgptq "$SHARED/models/arch-phi3" "$T/g" "$T/d"
	run -1 --separate-stderr llm-logits -m "$T/g" <<<"1"
	[[ $stderr == *"'model.layers.0.self_attn.qkv_proj' is a fused GPTQ matrix: pipelm does not split"* ]]
}
