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

# offset of a tensor's data in the GGUF file, from the -v listing
offset() {
	awk -v n="$1" '$1 == n { print $4 }' "$T/list"
}

@test "mkgguf: usage and refusals" {
	run -2 --separate-stderr "$MK"
	[[ $stderr == *usage:* ]]
	run -2 --separate-stderr "$MK" -x "$T/m" "$T/o.gguf"
	[[ $stderr == *usage:* ]]
	"$TOOLS/mkmodel" --bias "$T/b" >/dev/null
	run -1 --separate-stderr "$MK" "$T/b" "$T/o.gguf"
	[[ $stderr == *biases* ]]
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
	! grep -q "^output.weight" "$T/list"	# tied: llama.cpp uses token_embd
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
