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

# 32-bit words of a file, one per line (hex): words FILE [OFFSET COUNT]
words() {
	if [ $# -gt 1 ]; then
		od -A n -v -w4 -t x4 -j "$2" -N $(($3 * 4)) "$1"
	else
		od -A n -v -w4 -t x4 "$1"
	fi
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
		# GGUF row r, within a head of 16: 2i + j <- HF row 8j + i
		run -0 awk -v rows="$3" 'NR == FNR { w[NR - 1] = $1; next }
		    { r = int((FNR - 1) / 64); c = (FNR - 1) % 64
		      b = int(r / 16) * 16; x = r % 16
		      s = b + (x % 2) * 8 + int(x / 2)
		      if ($1 != w[s * 64 + c]) bad++; n++ }
		    END { print n, bad + 0 }' "$T/w" "$T/g"
		[ "$output" = "$(($3 * 64)) 0" ]
		! cmp -s "$T/w" "$T/g"
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

@test "mkgguf -q: a Q8_0 block is the F16 scale max|x|/127 and x/scale rounded" {
	"$MK" -qv "$T/m" "$T/q.gguf" >"$T/list"
	off=$(offset token_embd.weight)
	h=$(od -A n -t u2 -j "$off" -N 2 "$T/q.gguf")
	od -A n -v -w1 -t d1 -j $((off + 2)) -N 32 "$T/q.gguf" >"$T/q"
	st-inspect -d model.embed_tokens.weight "$T/m" | head -n 32 >"$T/x"
	run -0 awk -v h="$h" 'NR == FNR { q[NR] = $1; next }
	    { x[FNR] = $1; a = $1 < 0 ? -$1 : $1; if (a > m) m = a }
	    END {
		e = int(h / 1024) % 32; f = h % 1024
		d = e ? (1 + f / 1024) * 2 ^ (e - 15) : f / 1024 * 2 ^ -14
		if (h >= 32768) d = -d
		if (d <= 0 || (d - m / 127) ^ 2 > (m / 127 / 1000) ^ 2) { print "scale", d, m / 127; exit }
		for (i = 1; i <= 32; i++) {
			if (q[i] > 127 || q[i] < -127) { print "range", i; exit }
			t = x[i] / d - q[i]
			if (t > 0.51 || t < -0.51) { print "value", i, x[i], q[i] * d; exit }
			if (q[i] == 127 || q[i] == -127) top++
		}
		print top ? "ok" : "no 127"
	    }' "$T/q" "$T/x"
	[ "$output" = ok ]
}
