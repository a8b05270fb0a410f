#!/usr/bin/env bats
# mkgguf: the GGUF copy of a model that `make bench` gives llama.cpp.

load helpers

setup() {
	T=$BATS_TEST_TMPDIR
	MK=$TOOLS/mkgguf
	# hidden 64, 4 heads of 16, 2 KV heads, separate lm_head, F32
	"$TOOLS/mkmodel" -s 3 --dtype f32 --hidden 64 --layers 2 --heads 4 \
	    --kv-heads 2 --inter 96 --vocab 300 --ctx 128 --untied "$T/m" >/dev/null
}

# W-byte words of a file (W: 4, or 2 for BF16), one per line in hex:
# words FILE [OFFSET COUNT]
W=4
words() {
	if [ $# -gt 1 ]; then
		od -A n -v -w$W -t x$W -j "$2" -N $(($3 * W)) "$1"
	else
		od -A n -v -w$W -t x$W "$1"
	fi
}

# perm_ok HF GGUF ROWS: the word files hold ROWS rows of 64, GGUF row r
# of a head of 16 rows being HF row 2i + j <- 8j + i, and they differ
perm_ok() {
	[ "$(awk 'NR == FNR { w[NR - 1] = $1; next }
	    { r = int((FNR - 1) / 64); c = (FNR - 1) % 64
	      b = int(r / 16) * 16; x = r % 16
	      s = b + (x % 2) * 8 + int(x / 2)
	      if ($1 != w[s * 64 + c]) bad++; n++ }
	    END { print n, bad + 0 }' "$1" "$2")" = "$(($3 * 64)) 0" ] &&
	    ! cmp -s "$1" "$2"
}

# ggufkv FILE: the metadata of a GGUF file, "key<TAB>value" a line (arrays
# of numbers or bools: their values joined by commas; of strings: their
# count in brackets), then "tensors<TAB>N"
ggufkv() {
	head -c 400000 "$1" | od -A n -v -t u1 -w1 | awk '
	{ b[n++] = $1 }
	function u(p, k,   v, i) { v = 0; for (i = k - 1; i >= 0; i--) v = v * 256 + b[p + i]; return v }
	function f32(p,   v, s, e, m) {
		v = u(p, 4); s = v >= 2^31 ? -1 : 1; v %= 2^31
		e = int(v / 2^23); m = v % 2^23
		if (e == 0) return s * m * 2^-149
		return s * (1 + m / 2^23) * 2^(e - 127)
	}
	function sv(p,   l, i, s) { l = u(p, 8); s = ""
		for (i = 0; i < l; i++) s = s sprintf("%c", b[p + 8 + i]); P = p + 8 + l; return s }
	function val(t, p) {	# the value of type t at p, P after it
		if (t == 4 || t == 5) { P = p + 4; return u(p, 4) }
		if (t == 6) { P = p + 4; return sprintf("%.9g", f32(p)) }
		if (t == 7 || t == 0) { P = p + 1; return b[p] }
		if (t == 8) return sv(p)
		print "type", t > "/dev/stderr"; exit 1
	}
	END {
		nt = u(8, 8); nk = u(16, 8); p = 24
		for (k = 0; k < nk; k++) {
			key = sv(p); p = P; t = u(p, 4); p += 4
			if (t == 9) {
				et = u(p, 4); cnt = u(p + 4, 8); p += 12; s = ""
				for (i = 0; i < cnt; i++) { v = val(et, p); p = P
					if (et != 8) s = s (i ? "," : "") v }
				if (et == 8 || cnt > 64) s = "[" cnt "]"
				print key "\t" s
			} else { v = val(t, p); p = P; print key "\t" v }
		}
		print "tensors\t" nt
	}'
}

# offset of a tensor's data in the GGUF file, from the -v listing
offset() {
	awk -v n="$1" '$1 == n { print $4 }' "$T/list"
}

@test "mkgguf: usage and refusals" {
	run -2 --separate-stderr "$MK"
	[[ $stderr == *usage:* ]]
	run -2 --separate-stderr "$MK" -x "$T/m" "$T/o.gguf"
	[[ $stderr == *usage:* ]]
	# Gemma 2 in llama.cpp always ties its head
	need_shared
	cp -r "$SHARED/models/arch-gemma2" "$T/g2"
	sed 's/"tie_word_embeddings": true/"tie_word_embeddings": false/' \
	    "$SHARED/models/arch-gemma2/config.json" >"$T/g2/config.json"
	run -1 --separate-stderr "$MK" "$T/g2" "$T/o.gguf"
	[[ $stderr == *"no separate lm_head"* ]]
	rm "$T/m/model.safetensors"
	run -1 --separate-stderr "$MK" "$T/m" "$T/o.gguf"
	[[ $stderr == *safetensors* ]]
}

@test "mkgguf: header, names, shapes; the data as in the safetensors file" {
	run -0 "$MK" -v "$T/m" "$T/m.gguf"
	echo "$output" >"$T/list"
	[ "$(od -A n -c -N 4 "$T/m.gguf" | tr -d ' ')" = GGUF ]
	# version 3, then 3 + 9 x 2 tensors and 20 metadata entries (u64)
	[ "$(od -A n -t u4 -j 4 -N 20 "$T/m.gguf" | xargs)" = "3 21 0 20 0" ]
	[ "$(wc -l <"$T/list")" -eq 21 ]
	grep -qx "token_embd.weight	f32	64,300	[0-9]*" "$T/list"
	grep -qx "blk.1.attn_k.weight	f32	64,32	[0-9]*" "$T/list"
	grep -qx "blk.1.ffn_down.weight	f32	96,64	[0-9]*" "$T/list"
	grep -qx "output.weight	f32	64,300	[0-9]*" "$T/list"
	awk '$4 % 32 { exit 1 }' "$T/list"
	# unchanged tensors, byte for byte
	for p in "token_embd model.embed_tokens" "output lm_head" \
	    "blk.1.ffn_up model.layers.1.mlp.up_proj" \
	    "blk.0.attn_v model.layers.0.self_attn.v_proj"; do
		set -- $p
		st-inspect -d "$2.weight" -f f32 "$T/m" >"$T/want"
		cmp <(words "$T/want") \
		    <(words "$T/m.gguf" "$(offset "$1.weight")" $(($(wc -c <"$T/want") / 4)))
	done
}

@test "mkgguf: q and k rows reordered for llama.cpp's RoPE, v not" {
	"$MK" -v "$T/m" "$T/m.gguf" >"$T/list"
	for p in "attn_q q_proj 64" "attn_k k_proj 32"; do
		set -- $p
		st-inspect -d "model.layers.1.self_attn.$2.weight" -f f32 "$T/m" >"$T/want"
		words "$T/want" >"$T/w"
		words "$T/m.gguf" "$(offset "blk.1.$1.weight")" $(($3 * 64)) >"$T/g"
		perm_ok "$T/w" "$T/g" "$3"
	done
}

@test "mkgguf -q: Q8_0 matrices, F32 norms, sizes add up" {
	run -0 "$MK" -qv "$T/m" "$T/q.gguf"
	echo "$output" >"$T/list"
	[ "$(grep -c '	q8_0	' "$T/list")" -eq 16 ]
	[ "$(grep -c '	f32	' "$T/list")" -eq 5 ]
	grep -q "^blk.0.ffn_norm.weight	f32	64	" "$T/list"
	# the last tensor (blk.1.ffn_down, 64 rows of 96) ends the file:
	# 3 blocks of 34 bytes a row, padded to 32
	last=$(tail -n 1 "$T/list" | cut -f4)
	[ "$(tail -n 1 "$T/list" | cut -f1)" = blk.1.ffn_down.weight ]
	[ "$(wc -c <"$T/q.gguf")" -eq $((last + (64 * 3 * 34 + 31) / 32 * 32)) ]
}

@test "mkgguf -q: Q8_0 blocks: F16 scale max|x|/127 rounded to nearest even, q = x/scale rounded" {
	"$MK" -qv "$T/m" "$T/q.gguf" >"$T/list"
	off=$(offset token_embd.weight)
	st-inspect -d model.embed_tokens.weight "$T/m" | head -n 256 >"$T/x"
	for b in 0 1 2 3 4 5 6 7; do
		od -A n -t u2 -j $((off + b * 34)) -N 2 "$T/q.gguf"
		od -A n -v -w1 -t d1 -j $((off + b * 34 + 2)) -N 32 "$T/q.gguf"
	done | xargs -n 1 >"$T/q"
	run -0 awk 'NR == FNR { q[NR - 1] = $1; next } { x[FNR - 1] = $1 }
	    function half(d,   e, f, i, r) {	# the F16 bits of d > 0
		if (d < 2 ^ -14) { f = d * 2 ^ 24; e = -15 }
		else {
			e = 0
			while (2 ^ e > d) e--
			while (2 ^ (e + 1) <= d) e++
			f = (d / 2 ^ e - 1) * 1024
		}
		i = int(f); r = f - i
		if (r > 0.5 || (r == 0.5 && i % 2)) i++
		return (e + 15) * 1024 + i	# a carry into e is right too
	    }
	    END {
		for (b = 0; b < 8; b++) {
			m = 0
			for (k = 0; k < 32; k++) {
				a = x[32 * b + k]; a = a < 0 ? -a : a
				if (a > m) m = a
			}
			h = q[33 * b]
			if (h != half(m / 127)) { print "block", b, "scale", h, half(m / 127); exit }
			top = 0
			for (k = 0; k < 32; k++) {
				v = q[33 * b + 1 + k]; t = x[32 * b + k] * 127 / m - v
				if (t > 0.500001 || t < -0.500001) { print "block", b, "value", k, t; exit }
				if (v == 127 || v == -127) top++
			}
			if (!top) { print "block", b, "no 127"; exit }
		}
		print "ok"
	    }' "$T/q" "$T/x"
	[ "$output" = ok ]
}

@test "mkgguf: BF16 weights are copied as they are, q and k rows reordered" {
	"$TOOLS/mkmodel" -s 4 --dtype bf16 --hidden 64 --layers 1 --heads 4 \
	    --kv-heads 2 --inter 96 --vocab 300 --ctx 128 "$T/b" >/dev/null
	run -0 "$MK" -v "$T/b" "$T/b.gguf"
	echo "$output" >"$T/list"
	grep -qx "token_embd.weight	bf16	64,300	[0-9]*" "$T/list"
	grep -qx "output_norm.weight	f32	64	[0-9]*" "$T/list"
	run ! grep -q "^output.weight" "$T/list"	# tied: llama.cpp uses token_embd
	st-inspect "$T/b" >"$T/st"
	W=2
	# st-inspect's last column: the data's offset in the safetensors file
	stoff() { awk -v n="$1" '$1 == n { print $NF }' "$T/st"; }
	for p in "token_embd model.embed_tokens 300" "blk.0.ffn_gate model.layers.0.mlp.gate_proj 96"; do
		set -- $p
		cmp <(words "$T/b/model.safetensors" "$(stoff "$2.weight")" $(($3 * 64))) \
		    <(words "$T/b.gguf" "$(offset "$1.weight")" $(($3 * 64)))
	done
	for p in "attn_q q_proj 64" "attn_k k_proj 32"; do
		set -- $p
		words "$T/b/model.safetensors" \
		    "$(stoff "model.layers.0.self_attn.$2.weight")" $(($3 * 64)) >"$T/w"
		words "$T/b.gguf" "$(offset "blk.0.$1.weight")" $(($3 * 64)) >"$T/g"
		perm_ok "$T/w" "$T/g" "$3"
	done
}

@test "mkgguf: shapes that contradict config.json are refused before writing" {
	sed 's/"intermediate_size": 96/"intermediate_size": 128/' "$T/m/config.json" >"$T/c"
	mv "$T/c" "$T/m/config.json"
	grep -q '"intermediate_size": 128' "$T/m/config.json"
	run -1 --separate-stderr "$MK" "$T/m" "$T/o.gguf"
	[[ $stderr == *"mlp.gate_proj.weight has shape [96,64], expected [128,64]"* ]]
	[ ! -e "$T/o.gguf" ]
}

@test "mkgguf: a pipe gets the same bytes as a file" {
	"$MK" "$T/m" "$T/f.gguf"
	"$MK" "$T/m" /dev/stdout | cat >"$T/p.gguf"
	cmp "$T/f.gguf" "$T/p.gguf"
}

@test "mkgguf: Llama's biases as F32 vectors, q's and k's reordered as their rows" {
	"$TOOLS/mkmodel" -s 5 --dtype f32 --bias --hidden 64 --layers 1 \
	    --heads 4 --kv-heads 2 --inter 96 --vocab 300 "$T/b" >/dev/null
	run -0 "$MK" -v "$T/b" "$T/b.gguf"
	echo "$output" >"$T/list"
	for t in attn_q.bias,64 attn_k.bias,32 attn_v.bias,32; do
		grep -q "^blk.0.${t%,*}	f32	${t#*,}	" "$T/list"
	done
	# a bias is a column: the reorder of q's 64 rows, one word each
	st-inspect -d model.layers.0.self_attn.q_proj.bias -f f32 "$T/b" >"$T/want"
	words "$T/want" >"$T/w"
	words "$T/b.gguf" "$(offset blk.0.attn_q.bias)" 64 >"$T/g"
	[ "$(awk 'NR == FNR { w[NR - 1] = $1; next }
	    { r = FNR - 1; b = int(r / 16) * 16; x = r % 16
	      if ($1 != w[b + (x % 2) * 8 + int(x / 2)]) bad++ }
	    END { print bad + 0 }' "$T/w" "$T/g")" = 0 ]
	run ! cmp -s "$T/w" "$T/g"
	st-inspect -d model.layers.0.self_attn.v_proj.bias -f f32 "$T/b" >"$T/want"
	cmp <(words "$T/want") <(words "$T/b.gguf" "$(offset blk.0.attn_v.bias)" 32)
}

# conv NAME: mkgguf ../shared's arch-NAME into $T/NAME.gguf, its tensor
# list in $T/list, its metadata in $T/kv
conv() {
	need_shared
	"$MK" -v "$SHARED/models/arch-$1" "$T/$1.gguf" >"$T/list"
	ggufkv "$T/$1.gguf" >"$T/kv"
	st-inspect "$SHARED/models/arch-$1" >"$T/st"
}

# kv KEY VALUE: the metadata holds it
kv() {
	grep -qx "$1	$2" "$T/kv" || { grep "^${1%%.*}" "$T/kv"; false; }
}

# same GGUF HF ROWSxCOLS: a BF16 tensor copied byte for byte
same() {
	local o s n=$(($3))
	o=$(offset "$1")
	s=$(awk -v n="$2" '$1 == n { print $NF }' "$T/st")
	[ -n "$o" ] && [ -n "$s" ]
	W=2
	cmp <(words "$M/model.safetensors" "$s" "$n") <(words "$G" "$o" "$n")
}

# plus1 GGUF HF N: an F32 norm is 1 + the BF16 one (both as F32 words)
plus1() {
	st-inspect -d "$2" -f f32 "$M" >"$T/want"
	W=4
	paste <(words "$T/want") <(words "$G" "$(offset "$1")" "$3") |
	    while read -r w g; do
		printf '%d %d\n' "0x$w" "0x$g"
	done >"$T/pair"
	[ "$(awk 'function f(v,  s, e, m) { s = v >= 2^31 ? -1 : 1; v %= 2^31
		e = int(v / 2^23); m = v % 2^23
		return s * (1 + m / 2^23) * 2^(e - 127) }
	    { d = f($2) - (f($1) + 1); if (d < 0) d = -d
	      if (d > 1e-6) bad++; n++ }
	    END { print n, bad + 0 }' "$T/pair")" = "$3 0" ]
}

@test "mkgguf: Qwen2: arch qwen2, q/k/v biases, no reorder" {
	conv qwen2
	M=$SHARED/models/arch-qwen2 G=$T/qwen2.gguf
	kv general.architecture qwen2
	kv qwen2.attention.head_count_kv 2
	kv qwen2.rope.freq_base 1000000
	kv qwen2.block_count 3
	kv tensors 39
	run ! grep -q sliding "$T/kv"	# use_sliding_window false
	grep -q "^blk.2.attn_k.bias	f32	32	" "$T/list"
	same blk.1.attn_q.weight model.layers.1.self_attn.q_proj.weight 64*64
	same blk.1.attn_k.weight model.layers.1.self_attn.k_proj.weight 32*64
}

@test "mkgguf: Qwen3: arch qwen3, q/k norms, head_dim 32, tied, no reorder" {
	conv qwen3
	M=$SHARED/models/arch-qwen3 G=$T/qwen3.gguf
	kv general.architecture qwen3
	kv qwen3.attention.key_length 32
	kv qwen3.rope.dimension_count 32
	run ! grep -q "^output.weight" "$T/list"
	grep -q "^blk.0.attn_q_norm.weight	f32	32	" "$T/list"
	grep -q "^blk.0.attn_q.weight	bf16	64,128	" "$T/list"
	same blk.2.attn_q.weight model.layers.2.self_attn.q_proj.weight 128*64
	same blk.2.attn_output.weight model.layers.2.self_attn.o_proj.weight 64*128
}

@test "mkgguf: SmolLM3: arch smollm3, q and k reordered (a LlamaModel converter)" {
	conv smollm3
	M=$SHARED/models/arch-smollm3 G=$T/smollm3.gguf
	kv general.architecture smollm3
	kv smollm3.block_count 4
	st="$M/model.safetensors"
	stoff() { awk -v n="$1" '$1 == n { print $NF }' "$T/st"; }
	W=2
	words "$st" "$(stoff model.layers.3.self_attn.q_proj.weight)" $((64 * 64)) >"$T/w"
	words "$G" "$(offset blk.3.attn_q.weight)" $((64 * 64)) >"$T/g"
	perm_ok "$T/w" "$T/g" 64
	same blk.3.attn_v.weight model.layers.3.self_attn.v_proj.weight 32*64
}

@test "mkgguf: Mistral: arch llama, q and k reordered, no window key (llama.cpp ignores it)" {
	conv mistral
	kv general.architecture llama
	run ! grep -q sliding "$T/kv"
	M=$SHARED/models/arch-mistral G=$T/mistral.gguf
	same blk.0.ffn_down.weight model.layers.0.mlp.down_proj.weight 64*160
	run ! same blk.0.attn_k.weight model.layers.0.self_attn.k_proj.weight 32*64
}

@test "mkgguf: Gemma 2: norms 1 + w, post-norms, soft-caps, window and its pattern" {
	conv gemma2
	M=$SHARED/models/arch-gemma2 G=$T/gemma2.gguf
	kv general.architecture gemma2
	kv gemma2.attn_logit_softcapping 50
	kv gemma2.final_logit_softcapping 30
	kv gemma2.attention.sliding_window 8
	kv gemma2.attention.sliding_window_pattern 1,0,1,0
	for t in post_attention_norm ffn_norm post_ffw_norm; do
		grep -q "^blk.3.$t.weight	f32	64	" "$T/list"
	done
	plus1 blk.1.post_attention_norm.weight model.layers.1.post_attention_layernorm.weight 64
	plus1 blk.1.ffn_norm.weight model.layers.1.pre_feedforward_layernorm.weight 64
	plus1 output_norm.weight model.norm.weight 64
	same blk.0.attn_q.weight model.layers.0.self_attn.q_proj.weight 64*64
}

@test "mkgguf: Gemma 3: q/k norms 1 + w, the local rope base, layer_types as the pattern" {
	conv gemma3
	M=$SHARED/models/arch-gemma3 G=$T/gemma3.gguf
	kv general.architecture gemma3
	kv gemma3.rope.freq_base 1000000
	kv gemma3.rope.freq_base_swa 10000
	kv gemma3.attention.sliding_window_pattern 1,1,0,1
	run ! grep -q softcap "$T/kv"
	plus1 blk.2.attn_k_norm.weight model.layers.2.self_attn.k_norm.weight 32
	plus1 blk.2.attn_norm.weight model.layers.2.input_layernorm.weight 64
	same blk.2.attn_k.weight model.layers.2.self_attn.k_proj.weight 64*64
}

@test "mkgguf: Phi-3: fused qkv and gate_up copied whole; longrope's factors and attn_factor" {
	conv phi3
	M=$SHARED/models/arch-phi3 G=$T/phi3.gguf
	kv general.architecture phi3
	kv phi3.rope.scaling.original_context_length 4096
	run ! grep -q "rope_factors\|attn_factor" "$T/kv" "$T/list"
	grep -q "^blk.1.attn_qkv.weight	bf16	64,192	" "$T/list"
	grep -q "^blk.1.ffn_up.weight	bf16	64,320	" "$T/list"
	same blk.1.attn_qkv.weight model.layers.1.self_attn.qkv_proj.weight 192*64
	same blk.1.ffn_up.weight model.layers.1.mlp.gate_up_proj.weight 320*64
	conv phi3-longrope
	G=$T/phi3-longrope.gguf
	# sqrt(1 + ln(131072 / 4096) / ln 4096), in F32
	kv phi3.rope.scaling.attn_factor 1.19023812
	grep -q "^rope_factors_long.weight	f32	8	" "$T/list"
	W=4
	# short_factor[0], 2.6395 in F32
	[ "$(words "$G" "$(offset rope_factors_short.weight)" 1 | tr -d ' ')" = 4028ed91 ]
}

@test "mkgguf: Llama's rope scaling: linear and yarn keys; llama3 as rope_freqs" {
	conv llama-linear
	kv llama.rope.scaling.type linear
	kv llama.rope.scaling.factor 4
	conv llama-yarn
	kv llama.rope.scaling.type yarn
	kv llama.rope.scaling.original_context_length 4096
	"$TOOLS/mkmodel" -s 6 --hidden 64 --layers 1 --heads 4 --kv-heads 2 \
	    --inter 96 --vocab 300 "$T/l3" >/dev/null
	sed 's/"rope_scaling": null/"rope_scaling": {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0, "original_max_position_embeddings": 64}/' \
	    "$T/l3/config.json" >"$T/c" && mv "$T/c" "$T/l3/config.json"
	grep -q llama3 "$T/l3/config.json"
	"$MK" -v "$T/l3" "$T/l3.gguf" >"$T/list"
	grep -q "^rope_freqs.weight	f32	8	" "$T/list"
	# head_dim 16, theta 10000: wavelengths 2 pi 10000^(i/8) against
	# 64/4 and 64/1: 1 for i = 0 (6.3), the factor 8 from i = 3 (199) on,
	# smoothed between
	W=4
	words "$T/l3.gguf" "$(offset rope_freqs.weight)" 8 | tr -d ' ' >"$T/g"
	[ "$(sed -n 1p "$T/g")" = 3f800000 ]
	sed -n 2,3p "$T/g" >"$T/g23"
	run ! grep -qx 3f800000 "$T/g23"
	[ "$(sed -n 4p "$T/g")" = 41000000 ]
	[ "$(sed -n 8p "$T/g")" = 41000000 ]
}

@test "mkgguf -F: BF16 matrices widened to F32 exactly, norms still 1 + w; -F with -q refused" {
	need_shared
	M=$SHARED/models/arch-gemma3
	run -2 --separate-stderr "$MK" -F -q "$M" "$T/o.gguf"
	[[ $stderr == *usage:* ]]
	"$MK" -Fv "$M" "$T/f.gguf" >"$T/list"
	run ! grep -q "	bf16	" "$T/list"
	grep -q "^blk.1.attn_q.weight	f32	64,128	" "$T/list"
	st-inspect -d model.layers.1.self_attn.q_proj.weight -f f32 "$M" >"$T/want"
	W=4
	cmp <(words "$T/want") <(words "$T/f.gguf" "$(offset blk.1.attn_q.weight)" $((128 * 64)))
	[ "$(ggufkv "$T/f.gguf" | grep '^general.file_type')" = "general.file_type	0" ]
	G=$T/f.gguf plus1 blk.1.ffn_norm.weight model.layers.1.pre_feedforward_layernorm.weight 64
}

# ggufti FILE: "name type offset bytes" for each tensor of a GGUF file
# (the offset from the file's start; bytes from ggml's block sizes of the
# types mkgguf writes)
ggufti() {
	od -A n -v -t u1 -w1 "$1" | awk '
	{ b[n++] = $1 }
	function u(p, k,   v, i) { v = 0; for (i = k - 1; i >= 0; i--) v = v * 256 + b[p + i]; return v }
	function sv(p,   l, i, s) { l = u(p, 8); s = ""
		for (i = 0; i < l; i++) s = s sprintf("%c", b[p + 8 + i]); P = p + 8 + l; return s }
	function skip(t, p,   c, i, et) {	# P past the value of type t at p
		if (t == 8) { sv(p); return }
		if (t == 9) { et = u(p, 4); c = u(p + 4, 8); P = p + 12
			for (i = 0; i < c; i++) skip(et, P); return }
		P = p + (t <= 1 || t == 7 ? 1 : t <= 3 ? 2 : t <= 6 ? 4 : 8)
	}
	END {
		split("0 1 2 3 6 7 8 10 11 12 13 14 20 23 30", ty, " ")
		split("1 1 32 32 32 32 32 256 256 256 256 256 32 256 1", bl, " ")
		split("4 2 18 20 22 24 34 84 110 144 176 210 18 136 2", by, " ")
		for (i in ty) { B[ty[i]] = bl[i]; Y[ty[i]] = by[i] }
		nt = u(8, 8); nk = u(16, 8); p = 24
		for (k = 0; k < nk; k++) { sv(p); p = P; skip(u(p, 4), p + 4); p = P }
		for (k = 0; k < nt; k++) {
			name[k] = sv(p); p = P; nd = u(p, 4); p += 4; ne = 1
			for (i = 0; i < nd; i++) { ne *= u(p, 8); p += 8 }
			t[k] = u(p, 4); off[k] = u(p + 4, 8); p += 12
			sz[k] = ne / B[t[k]] * Y[t[k]]
		}
		base = int((p + 31) / 32) * 32
		for (k = 0; k < nt; k++) print name[k], t[k], base + off[k], sz[k]
	}'
}

@test "mkgguf -t: ggml's block types, the fallback of rows not whole superblocks, refusals" {
	# hidden 256, inter 96: ffn_down's rows (96) are no whole block of
	# 256 but of 32
	"$TOOLS/mkmodel" -s 4 --dtype f32 --hidden 256 --layers 1 --heads 4 \
	    --kv-heads 2 --inter 96 --vocab 300 --ctx 128 --untied "$T/k" >/dev/null
	for ty in q4_K:q5_0 q5_K:q5_1 q6_K:q8_0 q2_K:q4_0 q3_K:q4_0 iq4_xs:iq4_nl \
	    Q4_0:q4_0 q8_0:q8_0 iq4_nl:iq4_nl q4_1:q4_1 q5_1:q5_1; do
		run -0 "$MK" -v -t "${ty%:*}" "$T/k" "$T/t.gguf"
		echo "$output" >"$T/list"
		[ "$(grep -c '	f32	' "$T/list")" -eq 3 ]
		want=$(echo "${ty%:*}" | tr A-Z a-z | sed 's/_k$/_K/')
		grep -q "^blk.0.ffn_down.weight	${ty#*:}	96,256	" "$T/list"
		grep -q "^blk.0.attn_q.weight	$want	256,256	" "$T/list"
		grep -q "^token_embd.weight	$want	256,300	" "$T/list"
		# the sizes: the last tensor ends the file
		ggufti "$T/t.gguf" | tail -n 1 >"$T/last"
		read -r _ _ o b <"$T/last"
		[ "$(wc -c <"$T/t.gguf")" -eq $(((o + b + 31) / 32 * 32)) ]
	done
	run -2 --separate-stderr "$MK" -t q4_2 "$T/k" "$T/t.gguf"
	[[ $stderr == *"-t q4_2: not a ggml block type"* ]]
	run -2 --separate-stderr "$MK" -t f16 "$T/k" "$T/t.gguf"
	# rows of 64 are no whole block of 256 nor of 32 for q8_0's fallback:
	# hidden 64, inter 96 has rows of 64, which q4_K takes as q5_0
	run -0 "$MK" -v -t q4_K "$T/m" "$T/t.gguf"
	[ "$(grep -c '	q5_0	' <<<"$output")" -eq 16 ]
	"$TOOLS/mkmodel" -s 4 --dtype f32 --hidden 48 --layers 1 --heads 4 \
	    --kv-heads 2 --inter 96 --vocab 300 --ctx 128 "$T/o" >/dev/null
	run -1 --separate-stderr "$MK" -t q4_0 "$T/o" "$T/t.gguf"
	[[ $stderr == *"not a multiple of 32 (q4_0)"* ]]
}

@test "mkgguf -t: the blocks llama-quantize --pure writes, byte for byte, every type" {
	LQ=${PIPELM_PEER:-$BATS_TEST_DIRNAME/../build/peer}/llama-quantize
	[ -x "$LQ" ] || skip "llama.cpp's llama-quantize not built (make peer)"
	"$TOOLS/mkmodel" -s 5 --dtype f32 --hidden 256 --layers 1 --heads 4 \
	    --kv-heads 2 --inter 512 --vocab 300 --ctx 128 --untied "$T/k" >/dev/null
	"$MK" -F "$T/k" "$T/f.gguf"
	for ty in Q4_0 Q4_1 Q5_0 Q5_1 Q8_0 Q2_K Q3_K Q4_K Q5_K Q6_K IQ4_NL IQ4_XS; do
		"$LQ" --pure "$T/f.gguf" "$T/l.gguf" "$ty" >/dev/null 2>&1
		"$MK" -t "$ty" "$T/k" "$T/p.gguf"
		ggufti "$T/p.gguf" | sort >"$T/p"
		ggufti "$T/l.gguf" | sort >"$T/l"
		[ "$(wc -l <"$T/p")" -eq 12 ]
		# the same tensors, types and sizes, in llama-quantize's order
		[ "$(cut -d' ' -f1,2,4 "$T/p")" = "$(cut -d' ' -f1,2,4 "$T/l")" ]
		join "$T/p" "$T/l" | while read -r name _ po pb _ lo _; do
			cmp -n "$pb" -i "$po:$lo" "$T/p.gguf" "$T/l.gguf" ||
			    { echo "$ty: $name differs"; exit 1; }
		done
		# and dequantized as llama.cpp does, bit for bit (its F32
		# requantization widens the blocks with ggml's to_float)
		"$LQ" --allow-requantize "$T/l.gguf" "$T/f2.gguf" F32 >/dev/null 2>&1
		ggufti "$T/f2.gguf" | sort >"$T/f"
		join "$T/l" "$T/f" | while read -r name lt lo lb _ fo fb; do
			[ "$lt" != 0 ] || continue
			tail -c +$((lo + 1)) "$T/l.gguf" | head -c "$lb" |
			    "$TOOLS/ggmldeq" "$ty" >"$T/d"
			[ "$(wc -c <"$T/d")" -eq "$fb" ]
			cmp -n "$fb" -i "0:$fo" "$T/d" "$T/f2.gguf" ||
			    { echo "$ty: $name dequantized otherwise"; exit 1; }
		done
	done
}
