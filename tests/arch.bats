#!/usr/bin/env bats
# The architectures beyond Llama (issue 10): ../shared's arch-* models
# against their reference logits (transformers' modeling classes in
# float32), every position, session mode, threads; refusals by name.
load helpers

ARCHS="arch-llama arch-llama-linear arch-llama-yarn arch-qwen2 arch-qwen3
arch-mistral arch-smollm3 arch-gemma3 arch-gemma2 arch-phi3 arch-phi3-longrope"

# cfg NAME MEMBER: a copy of ../shared's model NAME with the JSON
# member "KEY": VALUE in its config.json (the one-line member of that
# key, if any, removed), in $BATS_TEST_TMPDIR/NAME.
cfg() {
	local d=$BATS_TEST_TMPDIR/$1 key=${2%%:*}
	mkdir -p "$d"
	ln -sf "$SHARED/models/$1/model.safetensors" "$d/"
	grep -vF "$key:" "$SHARED/models/$1/config.json" | sed '$d' |
	    sed '$s/,*$/,/' >"$d/config.json"
	printf '  %s\n}\n' "$2" >>"$d/config.json"
}

@test "arch: every position (--all) of the arch-* models matches the golden logits" {
	need_shared
	for m in $ARCHS; do
		llm-logits -m "$SHARED/models/$m" --all -f npy -o "$BATS_TEST_TMPDIR/$m.npy" \
		    <"$SHARED/golden/logits/$m.ids"
		run -0 npycmp -a 1e-4 -r 1e-5 "$BATS_TEST_TMPDIR/$m.npy" "$SHARED/golden/logits/$m.npy"
		echo "$m: $output"
		[[ $output == *"argmax-mismatch 0"* ]]
	done
}

@test "arch: session mode (one id per record, the decode path) matches the golden logits" {
	need_shared
	for m in $ARCHS; do
		tr ' ' '\n' <"$SHARED/golden/logits/$m.ids" |
		    llm-logits -m "$SHARED/models/$m" -s -f npy -o "$BATS_TEST_TMPDIR/$m.npy"
		run -0 npycmp -a 1e-4 -r 1e-5 "$BATS_TEST_TMPDIR/$m.npy" "$SHARED/golden/logits/$m.npy"
		echo "$m: $output"
		[[ $output == *"argmax-mismatch 0"* ]]
	done
}

@test "arch: -t 1 and -t 2 give the same bytes, --all and session" {
	need_shared
	local t=$BATS_TEST_TMPDIR
	for m in $ARCHS; do
		for n in 1 2; do
			llm-logits -t $n -m "$SHARED/models/$m" --all <"$SHARED/golden/logits/$m.ids" >"$t/a$n"
			tr ' ' '\n' <"$SHARED/golden/logits/$m.ids" |
			    llm-logits -t $n -m "$SHARED/models/$m" -s >"$t/s$n"
		done
		cmp "$t/a1" "$t/a2"
		cmp "$t/s1" "$t/s2"
	done
}

@test "arch: the kernel tables agree with the golden logits (windows, soft-caps, q/k norms)" {
	need_shared
	for k in portable avx2 avx512; do
		PIPELM_KERNEL=$k llm-logits --version >/dev/null 2>&1 || continue
		for m in arch-mistral arch-gemma2 arch-gemma3 arch-qwen3 arch-phi3-longrope; do
			PIPELM_KERNEL=$k llm-logits -m "$SHARED/models/$m" --all -f npy \
			    -o "$BATS_TEST_TMPDIR/$m.npy" <"$SHARED/golden/logits/$m.ids" || continue
			run -0 npycmp -a 1e-4 -r 1e-5 "$BATS_TEST_TMPDIR/$m.npy" "$SHARED/golden/logits/$m.npy"
		done
	done
}

@test "arch: Qwen2's window counts only with use_sliding_window (then from max_window_layers)" {
	need_shared
	# the window is off: a small one changes nothing
	cfg arch-qwen2 '"sliding_window": 4'
	llm-logits -m "$BATS_TEST_TMPDIR/arch-qwen2" --all -f npy -o "$BATS_TEST_TMPDIR/off.npy" \
	    <"$SHARED/golden/logits/arch-qwen2.ids"
	run -0 npycmp -a 1e-4 -r 1e-5 "$BATS_TEST_TMPDIR/off.npy" "$SHARED/golden/logits/arch-qwen2.npy"
	# on from layer 1 (layer_types left out, so max_window_layers decides)
	d=$BATS_TEST_TMPDIR/arch-qwen2
	sed 's/"use_sliding_window": false/"use_sliding_window": true/; s/"max_window_layers": 3/"max_window_layers": 1/; /layer_types/,/\]/d' \
	    "$SHARED/models/arch-qwen2/config.json" | sed 's/"sliding_window": 32768/"sliding_window": 4/' >"$d/config.json"
	llm-logits -m "$d" --all -f npy -o "$BATS_TEST_TMPDIR/on.npy" <"$SHARED/golden/logits/arch-qwen2.ids"
	run -1 npycmp -a 1e-4 -r 1e-5 "$BATS_TEST_TMPDIR/on.npy" "$SHARED/golden/logits/arch-qwen2.npy"
	run -0 st-inspect "$d"
	[[ $output == *"window 4 on 2 of 3 layers"* ]]
}

@test "arch: st-inspect names the architecture and its features" {
	need_shared
	run -0 st-inspect "$SHARED/models/arch-gemma2"
	[[ $output == *Gemma2ForCausalLM* ]]
	[[ $output == *"window 8"* && $output == *soft-cap* ]]
	run -0 st-inspect "$SHARED/models/arch-phi3-longrope"
	[[ $output == *Phi3ForCausalLM* && $output == *longrope* ]]
	run -0 st-inspect "$SHARED/models/arch-llama-yarn"
	[[ $output == *yarn* ]]
	run -0 st-inspect "$SHARED/models/arch-qwen3"
	[[ $output == *q/k-norm* ]]
}

@test "arch: st-inspect's bytes a token reads: fused tensors once, a tied head whole, windows in the KV cache" {
	need_shared
	local b
	# Phi-3, untied: every tensor (qkv_proj and gate_up_proj once) but
	# the embedding table, of which one row (2048 x 64 BF16)
	run -0 st-inspect "$SHARED/models/arch-phi3"
	b=$(sed -n 's/^bytes: //p' <<<"$output")
	grep -qx "bytes_per_token: $((b - 2048 * 64 * 2 + 64 * 2))" <<<"$output"
	# Gemma 3, tied: the table is read whole as the head
	run -0 st-inspect "$SHARED/models/arch-gemma3"
	b=$(sed -n 's/^bytes: //p' <<<"$output")
	grep -qx "bytes_per_token: $b" <<<"$output"
	# K and V, 2 kv heads x head_dim 32 x 4 bytes a position: the full
	# layer over the context of 32768, the three sliding ones over 8
	grep -qx "kv_bytes_per_token: $((4 * 2 * 2 * 32 * 4))" <<<"$output"
	grep -qx "kv_bytes_read_at_context: $(((32768 + 3 * 8) * 2 * 2 * 32 * 4))" <<<"$output"
	# Gemma 2: two of four layers over a window of 8 (context 8192)
	run -0 st-inspect "$SHARED/models/arch-gemma2"
	grep -qx "kv_bytes_read_at_context: $(((2 * 8192 + 2 * 8) * 2 * 2 * 16 * 4))" <<<"$output"
	# Mistral: every layer windowed; Llama: none
	run -0 st-inspect "$SHARED/models/arch-mistral"
	grep -qx "kv_bytes_read_at_context: $((2 * 8 * 2 * 2 * 16 * 4))" <<<"$output"
	run -0 st-inspect "$SHARED/models/arch-llama"
	grep -qx "kv_bytes_read_at_context: $((2 * 4096 * 2 * 2 * 16 * 4))" <<<"$output"
}

@test "arch: what is outside the architectures is refused by name before any work" {
	need_shared
	cfg arch-llama '"rope_scaling": {"rope_type": "dynamic", "factor": 2.0}'
	run -1 --separate-stderr llm-logits -m "$BATS_TEST_TMPDIR/arch-llama" <<<"1 2"
	[[ $stderr == *"rope_scaling: rope_type 'dynamic' not supported"* ]]
	[ -z "$output" ]
	cfg arch-gemma3 '"use_bidirectional_attention": true'
	run -1 --separate-stderr llm-logits -m "$BATS_TEST_TMPDIR/arch-gemma3" <<<"1 2"
	[[ $stderr == *use_bidirectional_attention* ]]
	cfg arch-gemma2 '"hidden_activation": "relu"'
	run -1 --separate-stderr llm-logits -m "$BATS_TEST_TMPDIR/arch-gemma2" <<<"1 2"
	[[ $stderr == *"hidden_activation: 'relu' not supported"* ]]
	cfg arch-qwen3 '"rope_parameters": {"rope_type": "ntk", "rope_theta": 10000.0}'
	run -1 --separate-stderr llm-logits -m "$BATS_TEST_TMPDIR/arch-qwen3" <<<"1 2"
	[[ $stderr == *"rope_parameters: rope_type 'ntk' not supported"* ]]
	d=$BATS_TEST_TMPDIR/other
	mkdir -p "$d"
	sed 's/Qwen2ForCausalLM/Qwen2MoeForCausalLM/; s/"qwen2"/"qwen2_moe"/' \
	    "$SHARED/models/arch-qwen2/config.json" >"$d/config.json"
	run -1 --separate-stderr llm-logits -m "$d" <<<"1 2"
	[[ $stderr == *"model_type: 'qwen2_moe' not supported"* ]]
	sed 's/LlamaForCausalLM/LlamaForSequenceClassification/' \
	    "$SHARED/models/arch-llama/config.json" >"$d/config.json"
	run -1 --separate-stderr llm-logits -m "$d" <<<"1 2"
	[[ $stderr == *"architectures: 'LlamaForSequenceClassification' not supported"* ]]
	[ -z "$output" ]
}

@test "arch: rope_parameters (transformers v5) reads as rope_theta + rope_scaling" {
	need_shared
	d=$BATS_TEST_TMPDIR/v5
	mkdir -p "$d"
	ln -sf "$SHARED/models/arch-llama-yarn/model.safetensors" "$d/"
	sed '/"rope_theta"/d; s/"rope_scaling": {/"rope_parameters": {"rope_theta": 100000.0,/' \
	    "$SHARED/models/arch-llama-yarn/config.json" >"$d/config.json"
	llm-logits -m "$d" --all -f npy -o "$BATS_TEST_TMPDIR/v5.npy" <"$SHARED/golden/logits/arch-llama-yarn.ids"
	run -0 npycmp -a 1e-4 -r 1e-5 "$BATS_TEST_TMPDIR/v5.npy" "$SHARED/golden/logits/arch-llama-yarn.npy"
	# Phi-3's longrope: the original context inside, no factor (its
	# ratio to max_position_embeddings gives the attention factor)
	d=$BATS_TEST_TMPDIR/phi
	mkdir -p "$d"
	ln -sf "$SHARED/models/arch-phi3-longrope/model.safetensors" "$d/"
	sed '/"rope_theta"/d; /^  "original_max_position_embeddings"/d; s/"rope_scaling": {/"rope_parameters": {"rope_theta": 10000.0, "original_max_position_embeddings": 4096,/' \
	    "$SHARED/models/arch-phi3-longrope/config.json" >"$d/config.json"
	! grep -q '^  "original_max_position_embeddings"' "$d/config.json"
	llm-logits -m "$d" --all -f npy -o "$BATS_TEST_TMPDIR/phi.npy" <"$SHARED/golden/logits/arch-phi3-longrope.ids"
	run -0 npycmp -a 1e-4 -r 1e-5 "$BATS_TEST_TMPDIR/phi.npy" "$SHARED/golden/logits/arch-phi3-longrope.npy"
	# Phi3Config's earlier name of longrope
	cfg arch-phi3-longrope '"rope_theta": 10000.0'
	sed -i 's/"type": "longrope"/"type": "su"/' "$BATS_TEST_TMPDIR/arch-phi3-longrope/config.json"
	grep -q '"type": "su"' "$BATS_TEST_TMPDIR/arch-phi3-longrope/config.json"
	llm-logits -m "$BATS_TEST_TMPDIR/arch-phi3-longrope" --all -f npy -o "$BATS_TEST_TMPDIR/su.npy" \
	    <"$SHARED/golden/logits/arch-phi3-longrope.ids"
	run -0 npycmp -a 1e-4 -r 1e-5 "$BATS_TEST_TMPDIR/su.npy" "$SHARED/golden/logits/arch-phi3-longrope.npy"
	# Gemma 3's form: one per layer type
	d=$BATS_TEST_TMPDIR/g3
	mkdir -p "$d"
	ln -sf "$SHARED/models/arch-gemma3/model.safetensors" "$d/"
	sed '/"rope_theta"/d; /"rope_local_base_freq"/d; s/"rope_scaling": null/"rope_parameters": {"full_attention": {"rope_type": "default", "rope_theta": 1000000.0}, "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0}}/' \
	    "$SHARED/models/arch-gemma3/config.json" >"$d/config.json"
	llm-logits -m "$d" --all -f npy -o "$BATS_TEST_TMPDIR/g3.npy" <"$SHARED/golden/logits/arch-gemma3.ids"
	run -0 npycmp -a 1e-4 -r 1e-5 "$BATS_TEST_TMPDIR/g3.npy" "$SHARED/golden/logits/arch-gemma3.npy"
}

@test "arch: a Gemma3ForConditionalGeneration folder runs its text model" {
	need_shared
	need_cmd python3
	d=$BATS_TEST_TMPDIR/mm
	mkdir -p "$d"
	# the text config nested, the tensors renamed as the multimodal
	# checkpoints name them (model.language_model.*)
	python3 - "$SHARED/models/arch-gemma3" "$d" <<-'EOF'
	import json, struct, sys
	src, dst = sys.argv[1], sys.argv[2]
	c = json.load(open(src + "/config.json"))
	del c["architectures"]
	json.dump({"architectures": ["Gemma3ForConditionalGeneration"],
	           "model_type": "gemma3", "text_config": c,
	           "vision_config": {"model_type": "siglip_vision_model"}},
	          open(dst + "/config.json", "w"))
	b = open(src + "/model.safetensors", "rb").read()
	n = struct.unpack("<Q", b[:8])[0]
	h = json.loads(b[8:8 + n])
	h = {(k.replace("model.", "model.language_model.", 1) if k.startswith("model.") else k): v
	     for k, v in h.items()}
	# and a vision tower's tensor, which the text model does not read
	end = len(b) - 8 - n
	h["vision_tower.vision_model.post_layernorm.weight"] = {
	    "dtype": "F32", "shape": [4], "data_offsets": [end, end + 16]}
	hb = json.dumps(h).encode()
	hb += b" " * (-len(hb) % 8)
	open(dst + "/model.safetensors", "wb").write(struct.pack("<Q", len(hb)) + hb + b[8 + n:] + bytes(16))
	EOF
	llm-logits -m "$d" --all -f npy -o "$BATS_TEST_TMPDIR/mm.npy" <"$SHARED/golden/logits/arch-gemma3.ids"
	run -0 npycmp -a 1e-4 -r 1e-5 "$BATS_TEST_TMPDIR/mm.npy" "$SHARED/golden/logits/arch-gemma3.npy"
	# st-inspect counts the text model's bytes (those of arch-gemma3),
	# not the vision tower's
	run -0 st-inspect "$SHARED/models/arch-gemma3"
	b=$(grep '^bytes_per_token: ' <<<"$output")
	run -0 st-inspect "$d"
	[[ $output == *Gemma3ForConditionalGeneration* ]]
	grep -qx "$b" <<<"$output"
}

@test "arch: mkmodel's qwen3-0.6b and gemma3-1b presets write models that run" {
	for p in qwen3-0.6b gemma3-1b; do
		"$TOOLS/mkmodel" --preset $p --layers 2 --hidden 256 --inter 512 --vocab 1024 \
		    "$BATS_TEST_TMPDIR/$p" >/dev/null
		run -0 st-inspect "$BATS_TEST_TMPDIR/$p"
		[[ $output == *q/k-norm* ]]
		echo 1 2 3 | llm-logits -m "$BATS_TEST_TMPDIR/$p" --all -t 1 >"$BATS_TEST_TMPDIR/a"
		echo 1 2 3 | llm-logits -m "$BATS_TEST_TMPDIR/$p" --all -t 2 >"$BATS_TEST_TMPDIR/b"
		cmp "$BATS_TEST_TMPDIR/a" "$BATS_TEST_TMPDIR/b"
	done
	run -0 st-inspect "$BATS_TEST_TMPDIR/gemma3-1b"
	[[ $output == *Gemma3ForCausalLM* && $output == *"window 512 on 2 of 2 layers"* ]]
	grep -q '"head_dim": 256' "$BATS_TEST_TMPDIR/gemma3-1b/config.json"
}

@test "arch: Gemma 3's sliding layers turn by rope_parameters' sliding_attention, attention factor and llama3 too" {
	need_shared
	# g3 NAME TYPE ROPE: arch-gemma3 with every layer of TYPE and a
	# window past the 32 ids (so sliding and full attend alike), its
	# rope_parameters ROPE
	g3() {
		local d=$BATS_TEST_TMPDIR/$1
		mkdir -p "$d"
		ln -sf "$SHARED/models/arch-gemma3/model.safetensors" "$d/"
		sed "/\"rope_theta\"/d; /\"rope_local_base_freq\"/d; s/\"sliding_window\": 8/\"sliding_window\": 64/; s/\"rope_scaling\": null/\"rope_parameters\": $3/; /layer_types/,/\]/c\\  \"layer_types\": [\"$2\", \"$2\", \"$2\", \"$2\"]," \
		    "$SHARED/models/arch-gemma3/config.json" >"$d/config.json"
		llm-logits -m "$d" --all -f text <"$SHARED/golden/logits/arch-gemma3.ids" >"$d.txt"
	}
	local D='{"rope_type": "default", "rope_theta": 1000000.0}' r
	for r in '{"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 8, "rope_theta": 10000.0}' \
	    '{"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0, "original_max_position_embeddings": 16, "rope_theta": 10000.0}'; do
		g3 s sliding_attention "{\"full_attention\": $D, \"sliding_attention\": $r}"
		g3 f full_attention "{\"full_attention\": $r, \"sliding_attention\": $D}"
		g3 n full_attention "{\"full_attention\": $D, \"sliding_attention\": $D}"
		cmp "$BATS_TEST_TMPDIR/s.txt" "$BATS_TEST_TMPDIR/f.txt"
		! cmp -s "$BATS_TEST_TMPDIR/s.txt" "$BATS_TEST_TMPDIR/n.txt"
	done
}
