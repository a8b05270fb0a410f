#!/usr/bin/env bats
# GGUF files as models: -m file.gguf and -m ORG/NAME:QUANT in the
# programs that take a model; the logits of tools/mkgguf's copy of a
# folder equal the folder's (exactly where llama.cpp's converter does
# not reorder q and k, to float32 rounding where it does); malformed
# files refused with a message naming the file.

load helpers

IDS='5 17 1 99 250 3 42 8 77 123 64 9 31 200 11 2'

setup() {
	T=$BATS_TEST_TMPDIR
	MK=$TOOLS/mkgguf
}

# same GGUF DIR [IDS]: llm-logits --all of the GGUF file and of the
# folder agree: byte for byte with "exact" as $4, else to 1e-5 relative
# with every argmax equal; and the GGUF's are the same for 1 and 2
# threads.
same() {
	local ids=${3:-$IDS}
	llm-logits -m "$1" -t 1 --all -f npy -o "$T/g1.npy" <<<"$ids"
	llm-logits -m "$1" -t 2 --all -f npy -o "$T/g2.npy" <<<"$ids"
	llm-logits -m "$2" --all -f npy -o "$T/s.npy" <<<"$ids"
	cmp "$T/g1.npy" "$T/g2.npy"
	npycmp -r 1e-5 "$T/g1.npy" "$T/s.npy"
	[ "${4:-}" != exact ] || cmp "$T/g1.npy" "$T/s.npy"
}

@test "gguf: random llama folders (F32, F16, BF16; tied, untied, biases) as GGUF give their logits" {
	local dt
	for dt in f32 f16 bf16; do
		mkmodel -s 7 --dtype $dt --hidden 64 --layers 2 --heads 4 \
		    --kv-heads 2 --inter 96 --vocab 300 --ctx 64 --untied "$T/m"
		"$MK" "$T/m" "$T/m.gguf"
		same "$T/m.gguf" "$T/m"
		"$MK" -F "$T/m" "$T/m.gguf"
		same "$T/m.gguf" "$T/m"
		rm -rf "$T/m"
	done
	mkmodel -s 8 --dtype f32 --hidden 64 --layers 2 --heads 4 --kv-heads 1 \
	    --inter 96 --vocab 300 --ctx 64 --tied --bias "$T/b"
	"$MK" "$T/b" "$T/b.gguf"
	same "$T/b.gguf" "$T/b"
}

@test "gguf: every architecture of the golden models, exactly where q and k are not reordered" {
	need_shared
	local a d fl
	for d in "$SHARED"/models/arch-*; do
		a=${d##*/arch-}
		for fl in -F ""; do
			"$MK" $fl "$d" "$T/$a.gguf"
			case $a in
			llama*|smollm3) same "$T/$a.gguf" "$d" ;;
			# the converter writes no window for Mistral (llama.cpp
			# runs it without): the same within its 8 positions
			mistral) same "$T/$a.gguf" "$d" "${IDS% 77*}" ;;
			*) same "$T/$a.gguf" "$d" "$IDS" exact ;;
			esac
		done
	done
}

@test "gguf: Llama 3's rope scaling as the rope_freqs tensor gives the folder's logits" {
	mkmodel -s 6 --dtype f32 --hidden 64 --layers 2 --heads 4 --kv-heads 2 \
	    --inter 96 --vocab 300 --ctx 64 "$T/l"
	cp -r "$T/l" "$T/l3"
	sed 's/"rope_scaling": null/"rope_scaling": {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0, "original_max_position_embeddings": 16}/' \
	    "$T/l/config.json" >"$T/l3/config.json"
	grep -q llama3 "$T/l3/config.json"
	"$MK" -v "$T/l3" "$T/l3.gguf" >"$T/list"
	grep -q '^rope_freqs.weight' "$T/list"
	same "$T/l3.gguf" "$T/l3"
	# the scaling changes the logits (the test can fail): not the
	# unscaled folder's
	llm-logits -m "$T/l" --all -f npy -o "$T/u.npy" <<<"$IDS"
	run -1 npycmp -r 1e-5 "$T/g1.npy" "$T/u.npy"
}

@test "gguf: a GGUF file alone runs the token-id programs" {
	need_shared
	mkdir "$T/only"
	"$MK" "$SHARED/models/arch-qwen3" "$T/only/model.gguf"
	run -0 --separate-stderr llm-gen -m "$T/only/model.gguf" -n 5 --seed 1 <<<"$IDS"
	[ "$(wc -w <<<"$output")" -eq 5 ]
	run -0 --separate-stderr llm-score -m "$T/only/model.gguf" <<<"$IDS"
	cmp <(llm-gen -m "$SHARED/models/arch-qwen3" -n 5 --seed 1 <<<"$IDS") \
	    <(llm-gen -m "$T/only/model.gguf" -n 5 --seed 1 <<<"$IDS")
}

@test "gguf: -m ORG/NAME:QUANT picks the cached repository's GGUF file by its quant, as llama.cpp's -hf" {
	need_shared
	local s=$T/hub/models--org--tiny-GGUF/snapshots/abc123
	mkdir -p "$s/sub" "$T/hub/models--org--tiny-GGUF/refs"
	echo abc123 >"$T/hub/models--org--tiny-GGUF/refs/main"
	"$MK" -F "$SHARED/models/arch-qwen2" "$s/tiny-F32.gguf"
	"$MK" "$SHARED/models/arch-qwen2" "$s/sub/tiny-BF16.gguf"
	cp "$s/tiny-F32.gguf" "$s/tiny-F32-mmproj.gguf"
	export HF_HUB_CACHE=$T/hub
	llm-logits -m org/tiny-GGUF:f32 --all -f npy -o "$T/a.npy" <<<"$IDS"
	llm-logits -m "$s/tiny-F32.gguf" --all -f npy -o "$T/b.npy" <<<"$IDS"
	cmp "$T/a.npy" "$T/b.npy"
	llm-logits -m org/tiny-GGUF:BF16 --all -f npy -o "$T/c.npy" <<<"$IDS"
	llm-logits -m "$SHARED/models/arch-qwen2" --all -f npy -o "$T/d.npy" <<<"$IDS"
	cmp "$T/c.npy" "$T/d.npy"
	run -1 --separate-stderr llm-logits -m org/tiny-GGUF:Q4_K_M <<<"$IDS"
	[[ $stderr == *"org/tiny-GGUF:Q4_K_M: no GGUF file for Q4_K_M in org/tiny-GGUF (it has "*"tiny-F32.gguf"* ]]
	run -1 --separate-stderr llm-logits -m org/other:Q8_0 <<<"$IDS"
	[[ $stderr == *"org/other: not in the HuggingFace cache"* ]]
}

@test "gguf: malformed and unsupported files are refused with a message naming the file" {
	need_shared
	"$MK" "$SHARED/models/arch-qwen3" "$T/q.gguf"
	head -c -100 "$T/q.gguf" >"$T/short.gguf"
	run -1 --separate-stderr llm-logits -m "$T/short.gguf" <<<"$IDS"
	[[ $stderr == *"short.gguf: tensor "*"past the end of the data section"* ]]
	head -c 1000 "$T/q.gguf" >"$T/cut.gguf"
	run -1 --separate-stderr llm-logits -m "$T/cut.gguf" <<<"$IDS"
	[[ $stderr == *"cut.gguf: "*"past the end of the file"* ]]
	sed 's/qwen3/qwenx/g' "$T/q.gguf" >"$T/arch.gguf"
	run -1 --separate-stderr llm-logits -m "$T/arch.gguf" <<<"$IDS"
	[[ $stderr == *"arch.gguf: general.architecture 'qwenx' not supported (pipelm runs llama, qwen2, qwen3, smollm3, gemma2, gemma3, phi3)"* ]]
	sed 's/blk\.1\.ffn_down/blk.1.ffn_dowx/' "$T/q.gguf" >"$T/name.gguf"
	run -1 --separate-stderr llm-logits -m "$T/name.gguf" <<<"$IDS"
	[[ $stderr == *"name.gguf: missing tensor 'blk.1.ffn_down.weight'"* ]]
	printf 'GGUF\1\0\0\0' >"$T/v1.gguf"; head -c 100 /dev/zero >>"$T/v1.gguf"
	run -1 --separate-stderr llm-logits -m "$T/v1.gguf" <<<"$IDS"
	[[ $stderr == *"v1.gguf: GGUF version 1"* ]]
	[ -z "$output" ]
}

@test "gguf: a matrix of a block type pipelm does not run yet is refused by its name" {
	need_cmd python3
	# a Q3_K matrix relabelled IQ3_S (the same 110-byte blocks of 256):
	# a valid file of a type with no kernels
	"$TOOLS/mkmodel" -s 3 --dtype f32 --hidden 256 --layers 1 --heads 4 \
	    --kv-heads 2 --inter 512 --vocab 300 --ctx 64 "$T/m" >/dev/null
	"$MK" -t q3_K "$T/m" "$T/q.gguf"
	python3 - "$T/q.gguf" <<-'EOF'
	import struct, sys
	p = sys.argv[1]
	b = bytearray(open(p, "rb").read())
	name = b"blk.0.ffn_down.weight"
	i = b.index(struct.pack("<Q", len(name)) + name) + 8 + len(name)
	j = i + 4 + 8 * struct.unpack_from("<I", b, i)[0]
	assert struct.unpack_from("<I", b, j)[0] == 11	# Q3_K
	struct.pack_into("<I", b, j, 21)		# IQ3_S
	open(p, "wb").write(b)
	EOF
	run -0 llm-logits -m "$T/m" <<<"1 2 3"
	run -1 --separate-stderr llm-logits -m "$T/q.gguf" <<<"1 2 3"
	[[ $stderr == *"q.gguf: tensor 'blk.0.ffn_down.weight' is of ggml type iq3_s, which pipelm does not run yet"* ]]
}

@test "gguf: st-inspect lists a GGUF file's metadata, tensors, bytes a token; types pipelm does not run said" {
	need_shared
	"$MK" "$SHARED/models/arch-qwen3" "$T/q.gguf"
	run -0 --separate-stderr st-inspect "$T/q.gguf"
	[[ $output == *$'general.architecture\tstr\t"qwen3"'* ]]
	[[ $output == *$'qwen3.block_count\tu32\t3'* ]]
	[[ $output == *$'tokenizer.ggml.tokens\tarr[str,2048]\t["'*'... (2040 more)]'* ]]
	[[ $output == *$'blk.0.attn_q.weight\tbf16\t[128,64]\t16384\t'* ]]
	[[ $output == *$'tensors: '* && $output == *$'bytes_per_token: '* ]]
	[ -z "$stderr" ]
	st-inspect -j "$T/q.gguf" | python3 -c 'import json, sys; d = json.load(sys.stdin); assert d["version"] == 3 and d["tensors"]'
	run -0 st-inspect -c "$T/q.gguf"
	[ -z "$output" ]
	"$MK" -q "$SHARED/models/arch-qwen3" "$T/q8.gguf"
	run -0 --separate-stderr st-inspect -e 'attn_q\.' "$T/q8.gguf"
	[[ $output == *$'blk.2.attn_q.weight\tq8_0\t[128,64]\t8704\t'* ]]
	if ! llm-logits -m "$T/q8.gguf" <<<"1" >/dev/null 2>&1; then
		[[ $stderr == *"q8.gguf: tensors of ggml types pipelm does not run yet: q8_0 ("* ]]
	fi
	head -c 500 "$T/q.gguf" >"$T/cut.gguf"
	run -1 --separate-stderr st-inspect "$T/cut.gguf"
	[[ $stderr == *"cut.gguf: "*"past the end of the file"* ]]
}
