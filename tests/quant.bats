#!/usr/bin/env bats
# 4-bit weights: compressed-tensors pack-quantized folders read in place,
# llm-quant that writes them, --quant q4, the refusals (lib/kern/quant.h).

load helpers

IDS='1 5 9 2 6 5 3 5 8 9 7 9 3 2 3 8 4 6 2 6 4 3 3 8 3 2 7 9 5'

setup() {
	T=$BATS_TEST_TMPDIR
}

# exact DIR REF: exact4 within 3e-5, the bound the F32 kernels of two
# tables keep between them on the same folder (1e-5 and 6e-7 on
# mkmodel's: the logits reach 15); not prefill against one token at a
# time, which for W_Q4 agree to float32 rounding only (kern.h): the
# 4-bit decode sums in integers over activations kept to 2^-23.
exact() {
	exact4 "$1" "$2" 3e-5
}

@test "quant: a pack-quantized folder equals its dequantized F32 folder (every table, 1 and 2 threads)" {
	mkmodel "$T/f" --dtype bf16
	llm-quant "$T/f" "$T/q"
	"$TOOLS/q4deq" "$T/q" "$T/d"
	exact "$T/q" "$T/d"
	# and it is not the float model
	llm-logits -m "$T/f" --all -f npy -o "$T/f.npy" <<<"$IDS"
	run -1 npycmp -a 1e-3 -r 1e-4 "$T/q1.npy" "$T/f.npy"
}

@test "quant: asymmetric, channel, group 64, F16 and F32 sources, untied and kept heads" {
	mkmodel "$T/f16" --dtype f16 --untied --hidden 96 --inter 200
	mkmodel "$T/f32" --dtype f32
	llm-quant --asym "$T/f16" "$T/a"
	llm-quant --channel "$T/f32" "$T/c"
	llm-quant -g 64 --asym --keep-head "$T/f32" "$T/k"
	grep -q '"symmetric": false' "$T/a/config.json"
	grep -q '"strategy": "channel"' "$T/c/config.json"
	grep -q '"ignore": \["lm_head"\]' "$T/k/config.json"
	for m in a c k; do
		"$TOOLS/q4deq" "$T/$m" "$T/$m.d"
		exact "$T/$m" "$T/$m.d"
	done
	run -0 st-inspect "$T/a"
	[[ $output == *"model.layers.0.mlp.down_proj.weight_zero_point	I32	[12,7]"* ]]
	[[ $output == *"model.layers.0.self_attn.q_proj.weight_scale	F16	[96,3]"* ]]
}

@test "quant: a Phi-3 folder's fused qkv_proj and gate_up_proj split as the float ones do" {
	need_shared
	M=$SHARED/models/arch-phi3
	llm-quant "$M" "$T/q"
	llm-quant --asym "$M" "$T/a"
	for m in q a; do
		"$TOOLS/q4deq" "$T/$m" "$T/$m.d"
		exact "$T/$m" "$T/$m.d"
	done
	# the symmetric folder is what --quant q4 makes of the float model
	llm-logits -m "$T/q" --all -f npy -o "$T/q.npy" <<<"$IDS"
	llm-logits -m "$M" --quant q4 --all -f npy -o "$T/l.npy" <<<"$IDS"
	cmp "$T/q.npy" "$T/l.npy"
}

@test "quant: llm-quant writes what compressed-tensors writes" {
	mkmodel "$T/f" --dtype bf16
	llm-quant "$T/f" "$T/q"
	run -0 st-inspect "$T/q"
	# the tied embedding stays BF16, lm_head is its own 4-bit copy
	[[ $output == *"model.embed_tokens.weight	BF16	[512,64]"* ]]
	[[ $output == *"lm_head.weight_packed	I32	[512,8]"* ]]
	[[ $output == *"lm_head.weight_scale	BF16	[512,2]"* ]]
	[[ $output == *"model.layers.1.mlp.down_proj.weight_packed	I32	[64,20]"* ]]
	[[ $output == *"model.layers.1.mlp.down_proj.weight_shape	I32	[2]"* ]]
	[[ $output != *"q_proj.weight	BF16"* ]]
	grep -q '"tie_word_embeddings": false' "$T/q/config.json"
	grep -q '"format": "pack-quantized"' "$T/q/config.json"
	[ -e "$T/q/tokenizer.json" ]
	# one word: element j at bits 4 (j % 8), q + 8
	run -0 st-inspect -d model.layers.0.self_attn.k_proj.weight_shape "$T/q"
	[[ $output == *32*64* ]]
	run -2 --separate-stderr llm-quant -g 12 "$T/f" "$T/x"
	[[ $stderr == *"invalid group size '12'"* ]]
	run -1 --separate-stderr llm-quant "$T/q" "$T/x"
	[[ $stderr == *"quantized already"* ]]
	run -2 --separate-stderr llm-quant "$T/f"
	[[ $stderr == *usage:* ]]
}

# sums DIR: a line per file of DIR (hidden ones too), its name and sha256.
sums() {
	(cd "$1" && find . -type f | LC_ALL=C sort | xargs -r sha256sum)
}

@test "quant: a destination that is the source or inside it is refused, the source untouched" {
	mkmodel "$T/s" --dtype bf16
	sums "$T/s" >"$T/before"
	for d in "$T/s" "$T/s/" "$T/s/." "$T/s/inner" "$T/s/inner/"; do
		run -1 --separate-stderr llm-quant -f "$T/s" "$d"
		[[ $stderr == *"$d: "*"the source folder"* ]]
	done
	# through a link to it too
	ln -s "$T/s" "$T/link"
	run -1 --separate-stderr llm-quant "$T/s" "$T/link/q"
	[[ $stderr == *"lies inside the source folder"* ]]
	sums "$T/s" | cmp - "$T/before"
	[ ! -e "$T/s/inner" ]
	[ -z "$(ls -A "$T" | grep tmp)" ]
}

@test "quant: an existing destination is refused without -f, written into with it" {
	mkmodel "$T/f" --dtype bf16
	mkdir "$T/q"
	echo mine >"$T/q/notes.txt"
	run -1 --separate-stderr llm-quant "$T/f" "$T/q"
	[[ $stderr == *"$T/q: exists (-f writes into it)"* ]]
	[ "$(ls -A "$T/q")" = notes.txt ]
	: >"$T/file"
	run -1 --separate-stderr llm-quant -f "$T/f" "$T/file"
	[[ $stderr == *"exists and is not a folder"* ]]
	llm-quant "$T/f" "$T/new"
	llm-quant --force "$T/f" "$T/q"
	# the files llm-quant writes replaced, the others kept, nothing else
	[ "$(cat "$T/q/notes.txt")" = mine ]
	rm "$T/q/notes.txt"
	diff <(sums "$T/new") <(sums "$T/q")
	# and again over a quantized folder of other options
	llm-quant -f --asym -g 64 "$T/f" "$T/q"
	run -1 cmp "$T/q/model.safetensors" "$T/new/model.safetensors"
	llm-quant -f "$T/f" "$T/q"
	diff <(sums "$T/new") <(sums "$T/q")
	[ -z "$(ls -A "$T" | grep tmp)" ]
	[ -z "$(ls -A "$T/q" | grep tmp)" ]
}

@test "quant: a run that fails leaves no destination and no temporary folder" {
	mkmodel "$T/f" --dtype bf16
	llm-quant "$T/f" "$T/q"
	run -1 --separate-stderr llm-quant "$T/q" "$T/again"
	[[ $stderr == *"quantized already"* ]]
	[ ! -e "$T/again" ]
	# integer weights are refused once the folder is begun
	mkmodel "$T/bad" --dtype bf16
	sed -i 's/"BF16"/"I16" /' "$T/bad/model.safetensors"
	run -1 --separate-stderr llm-quant "$T/bad" "$T/b"
	[[ $stderr == *"dtype I16: llm-quant takes F32, F16 or BF16 weights"* ]]
	[ ! -e "$T/b" ]
	[ -z "$(ls -A "$T" | grep tmp)" ]
}

@test "quant: llm-quant takes ORG/NAME from the HuggingFace cache, as -m does" {
	mkmodel "$T/f" --dtype bf16
	export HF_HUB_CACHE=$T/hub
	mkdir -p "$HF_HUB_CACHE/models--org--tiny/snapshots/abc" "$HF_HUB_CACHE/models--org--tiny/refs"
	cp "$T/f"/* "$HF_HUB_CACHE/models--org--tiny/snapshots/abc/"
	echo abc >"$HF_HUB_CACHE/models--org--tiny/refs/main"
	llm-quant org/tiny "$T/q"
	llm-quant "$T/f" "$T/q2"
	cmp "$T/q/model.safetensors" "$T/q2/model.safetensors"
	run -1 --separate-stderr llm-quant org/nosuch "$T/q3"
	[[ $stderr == *"org/nosuch"* ]]
	[ ! -e "$T/q3" ]
}

@test "quant: a GGUF source is refused by name (its blocks are llama.cpp's quantization), nothing written" {
	mkmodel "$T/f" --dtype bf16
	"$TOOLS/mkgguf" "$T/f" "$T/f.gguf"
	run -1 --separate-stderr llm-quant "$T/f.gguf" "$T/q"
	[[ $stderr == "llm-quant: $T/f.gguf: a GGUF file: llm-quant converts a float safetensors model; the programs run a GGUF file as it is (-m $T/f.gguf)" ]]
	[ -z "$output" ]
	[ ! -e "$T/q" ]
	# and by its repository's quant, as -m names it
	local s=$T/hub/models--org--tiny-GGUF/snapshots/abc
	mkdir -p "$s"
	cp "$T/f.gguf" "$s/tiny-BF16.gguf"
	HF_HUB_CACHE=$T/hub run -1 --separate-stderr llm-quant org/tiny-GGUF:BF16 "$T/q"
	[[ $stderr == *"$s/tiny-BF16.gguf: a GGUF file:"*"(-m org/tiny-GGUF:BF16)" ]]
	[ ! -e "$T/q" ]
}

@test "quant: st-inspect lists a 4-bit weight as one, and counts its bytes per token" {
	mkmodel "$T/f" --dtype bf16
	llm-quant "$T/f" "$T/q"
	llm-quant --asym -g 64 --keep-head "$T/f" "$T/a"
	run -0 st-inspect "$T/q"
	[[ $output == *"quantized:"*"lm_head.weight	int4	[512,64]	group 32	symmetric	scale BF16	18432"* ]]
	[[ $output == *"model.layers.1.mlp.down_proj.weight	int4	[64,160]	group 32	symmetric	scale BF16	5760"* ]]
	[ "$(grep -c '	int4	' <<<"$output")" -eq 15 ]
	# one row of the (untied) BF16 table, the 4-bit weights, the norms
	packed=$(( (512*8 + 2*(64*8 + 32*8 + 32*8 + 64*8 + 160*8 + 160*8 + 64*20))*4 ))
	scales=$(( (512*2 + 2*(64*2 + 32*2 + 32*2 + 64*2 + 160*2 + 160*2 + 64*5))*2 ))
	grep -qx "bytes_per_token: $(( packed + scales + 64*2 + 5*64*2 ))" <<<"$output"
	# logical parameters: those of the float model plus the untied head
	run -0 st-inspect "$T/f"
	p=$(sed -n 's/^parameters: //p' <<<"$output" | tail -1)
	run -0 st-inspect "$T/q"
	grep -qx "parameters: $(( p + 512*64 ))" <<<"$output"
	run -0 st-inspect "$T/a"
	[[ $output == *"model.layers.0.self_attn.q_proj.weight	int4	[64,64]	group 64	asymmetric	scale BF16	"* ]]
	[[ $output != *"lm_head.weight	int4"* ]]
	run -0 st-inspect -j "$T/q"
	[[ $output == *'"quantized": ['*'{"name": "lm_head.weight", "bits": 4, "shape": [512,64], "group": 32, "symmetric": true, "scale_dtype": "BF16", "bytes": 18432}'* ]]
}

@test "quant: --quant q4 is 4-bit weights at load, thread-count independent" {
	mkmodel "$T/f" --dtype bf16
	for t in 1 2; do
		llm-logits -m "$T/f" -t $t --quant q4 --all -f npy -o "$T/q$t.npy" <<<"$IDS"
	done
	cmp "$T/q1.npy" "$T/q2.npy"
	# the weights llm-quant's defaults write, to the bit
	llm-quant "$T/f" "$T/q"
	llm-logits -m "$T/q" --all -f npy -o "$T/l.npy" <<<"$IDS"
	cmp "$T/q1.npy" "$T/l.npy"
	# 4-bit rounding: near, not equal (llm-logits(1) has the figures)
	llm-logits -m "$T/f" --all -f npy -o "$T/f.npy" <<<"$IDS"
	run -0 npycmp -g -a 10 -r 0.6 "$T/q1.npy" "$T/f.npy"
	run -1 npycmp -g -a 1e-2 -r 1e-2 "$T/q1.npy" "$T/f.npy"
	run -0 --separate-stderr llm-logits -m "$T/f" --quant q4 --timing -f top <<<"1 2 3"
	[[ $stderr == *"mode q4"* ]]
	# a 4-bit folder takes no mode
	run -1 --separate-stderr llm-logits -m "$T/q" --quant q8_0 <<<"1"
	[[ $stderr == *"4-bit already"* ]]
}

# qcfg DIR JSON: DIR's config.json with its quantization_config replaced.
qcfg() {
	sed 's/"quantization_config": {/"quantization_config": '"$2"', "old": {/' \
	    "$1/config.json" >"$1/config.json.new" && mv "$1/config.json.new" "$1/config.json"
}

@test "quant: what is not supported is refused by name, before the weights" {
	mkmodel "$T/f" --dtype bf16
	llm-quant "$T/f" "$T/q0"
	w='"weights": {"num_bits": 4, "type": "int", "symmetric": true, "strategy": "group", "group_size": 32}'
	g='"targets": ["Linear"]'
	check() {
		rm -rf "$T/q"
		cp -r "$T/q0" "$T/q"
		qcfg "$T/q" "$1"
		run -1 --separate-stderr llm-logits -m "$T/q" <<<"1"
		echo "$stderr"
		[[ $stderr == *"$2"* ]]
	}
	check '{"quant_method": "bitsandbytes", "load_in_4bit": true}' "quantization method 'bitsandbytes' is not supported"
	check '{"quant_method": "hqq"}' "quantization method 'hqq'"
	# gptq and awq are tests/gptq.bats'
	check '{"quant_method": "gptq", "bits": 3, "group_size": 32}' "gptq 3-bit weights are not supported"
	check '{"quant_method": "compressed-tensors", "format": "naive-quantized"}' "format 'naive-quantized' is not supported"
	check '{"quant_method": "compressed-tensors", "format": "pack-quantized", "config_groups": {"g": {'"$g"', "weights": {"num_bits": 8, "type": "int", "symmetric": true, "strategy": "channel"}}}}' "8-bit weights are not supported"
	check '{"quant_method": "compressed-tensors", "format": "pack-quantized", "config_groups": {"g": {'"$g"', "weights": {"num_bits": 4, "type": "float", "symmetric": true, "strategy": "group", "group_size": 32}}}}' "weights of type 'float'"
	check '{"quant_method": "compressed-tensors", "format": "pack-quantized", "config_groups": {"g": {'"$g"', '"$w"', "input_activations": {"num_bits": 8}}}}' "quantizes the activations"
	check '{"quant_method": "compressed-tensors", "format": "pack-quantized", "config_groups": {"g": {'"$g"', "weights": {"num_bits": 4, "type": "int", "symmetric": true, "strategy": "group", "group_size": 32, "actorder": "group"}}}}' "act-order (actorder 'group')"
	check '{"quant_method": "compressed-tensors", "format": "pack-quantized", "config_groups": {"g": {'"$g"', "weights": {"num_bits": 4, "type": "int", "symmetric": true, "strategy": "tensor"}}}}' "strategy 'tensor' is not supported"
	check '{"quant_method": "compressed-tensors", "format": "pack-quantized", "kv_cache_scheme": {"num_bits": 8}, "config_groups": {"g": {'"$g"', '"$w"'}}}' "KV cache quantization"
	check '{"quant_method": "compressed-tensors", "format": "pack-quantized", "config_groups": {}}' "no config_groups"
	check '"int4"' "quantization_config is not an object"
	# a group size that does not match the scales
	check '{"quant_method": "compressed-tensors", "format": "pack-quantized", "config_groups": {"g": {'"$g"', "weights": {"num_bits": 4, "type": "int", "symmetric": true, "strategy": "group", "group_size": 16}}}}' "no group_size of the config gives that"
	# tensors that do not fit the config
	rm -rf "$T/q"
	cp -r "$T/q0" "$T/q"
	jsed "$T/q/config.json" 's/"intermediate_size": 160/"intermediate_size": 168/'
	run -1 --separate-stderr llm-logits -m "$T/q" <<<"1"
	[[ $stderr == *"gate_proj.weight_packed' has shape [160,8], expected [168, 8]"* ]]
	# a folder without its packed tensors
	rm -rf "$T/q"
	mkdir "$T/q"
	cp "$T/q0/config.json" "$T/q"
	"$TOOLS/mkmodel" --dtype bf16 "$T/plain" >/dev/null
	cp "$T/plain/model.safetensors" "$T/q"
	run -1 --separate-stderr llm-logits -m "$T/q" <<<"1"
	[[ $stderr == *"missing tensor 'model.layers.0.self_attn.q_proj.weight'"* ||
	    $stderr == *"missing tensor"* ]]
}
