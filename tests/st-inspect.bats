#!/usr/bin/env bats
# st-inspect: listings, stats and dumps checked against values read with
# od(1) straight from the files, and malformed safetensors files made here
# with printf (no stored blobs).

load helpers

setup() {
	T=$BATS_TEST_TMPDIR
}

# le64 N: the 8-byte little-endian N as printf escapes.
le64() {
	local n=$1 i s=
	for i in 0 1 2 3 4 5 6 7; do
		s+=$(printf '\\%03o' $((n & 255)))
		n=$((n >> 8))
	done
	printf '%s' "$s"
}

# mkst FILE HEADER [DATABYTES [LENGTH-ESCAPES]]: a safetensors file with
# that header text, DATABYTES bytes of data (default 0) and, if given, a
# raw 8-byte length field instead of the header's length.
mkst() {
	printf "${4:-$(le64 ${#2})}" >"$1"
	printf '%s' "$2" >>"$1"
	head -c "${3:-0}" /dev/zero >>"$1"
}

# bad FILE WORDS [NAMED]: st-inspect FILE fails with exit 1, nothing on
# stdout and a one-line message naming NAMED (default FILE) and containing
# WORDS.
bad() {
	run -1 --separate-stderr st-inspect "$1"
	[ -z "$output" ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ $stderr == "st-inspect: "*"${3:-$1}"* ]]
	[[ $stderr == *"$2"* ]] || { echo "stderr: $stderr"; false; }
	run -1 --separate-stderr st-inspect --check "$1"
	[ -z "$output" ]
}

tiny() {	# a small random model folder in $T/$1, extra mkmodel options after
	local d=$1
	shift
	"$TOOLS/mkmodel" "$@" "$T/$d"
}

@test "usage: unknown option, two operands, bad format" {
	run -2 --separate-stderr st-inspect --bogus x
	[ -z "$output" ]
	[[ $stderr == *usage:* ]]
	run -2 --separate-stderr st-inspect a b
	[[ $stderr == *usage:* ]]
	run -2 --separate-stderr st-inspect -d x -f f64 y
	[[ $stderr == *usage:* ]]
	run -2 --separate-stderr st-inspect -e '(' y
	[[ $stderr == *"regular expression"* ]]
	run -2 --separate-stderr st-inspect ''
	[[ $stderr == *usage:* ]]
}

@test "--help and --version" {
	run -0 --separate-stderr st-inspect --help
	[[ $output == usage:* ]]
	run -0 st-inspect --version
	[[ $output == *pipelm* ]]
}

@test "a missing file" {
	run -1 --separate-stderr st-inspect "$T/nope.safetensors"
	[[ $stderr == "st-inspect: $T/nope.safetensors: No such file or directory" ]]
}

@test "- is standard input, if it is a file" {
	tiny m
	run -0 st-inspect -s "$T/m/model.safetensors"
	want=$output
	run -0 st-inspect -s - <"$T/m/model.safetensors"
	[ "$output" = "$want" ]
	run -1 --separate-stderr bash -c "cat '$T/m/model.safetensors' | st-inspect -"
	[[ $stderr == *"not a regular file"* ]]
}

@test "PIPELM_MODEL is the default operand" {
	tiny m
	run -0 st-inspect "$T/m"
	want=$output
	PIPELM_MODEL=$T/m run -0 st-inspect
	[ "$output" = "$want" ]
}

@test "tiny model: listing, totals and config summary" {
	tiny m --layers 3 --hidden 32 --heads 4 --kv-heads 2 --inter 48 --vocab 300
	run -0 --separate-stderr st-inspect "$T/m"
	[ -z "$stderr" ]
	# 9 per layer, embedding, final norm (tied: no lm_head)
	[ "$(printf '%s\n' "$output" | grep -c $'\t')" -eq 29 ]
	[[ $output == *$'model.embed_tokens.weight\tBF16\t[300,32]\t19200\t'* ]]
	[[ $output == *$'model.layers.2.self_attn.k_proj.weight\tBF16\t[16,32]\t1024\t'* ]]
	[[ $output == *$'model.layers.0.mlp.down_proj.weight\tBF16\t[32,48]\t3072\t'* ]]
	# parameters: 300*32 + 32 + 3 * (2*32 + 32*32*2 + 16*32*2 + 48*32*3)
	p=$((300*32 + 32 + 3 * (2*32 + 32*32*2 + 16*32*2 + 48*32*3)))
	grep -qx "parameters: $p" <<<"$output"
	grep -qx "bytes: $((2 * p))" <<<"$output"
	grep -qx "bytes BF16: $((2 * p))" <<<"$output"
	grep -qx "tensors: 29" <<<"$output"
	grep -qx "architecture: LlamaForCausalLM" <<<"$output"
	grep -qx "layers: 3" <<<"$output"
	grep -qx "head_dim: 8" <<<"$output"
	grep -qx "kv_heads: 2" <<<"$output"
	# tied: every byte is read per token (the embedding as lm_head)
	grep -qx "bytes_per_token: $((2 * p))" <<<"$output"
	# 2 (K and V) * layers * kv_heads * head_dim * 4 bytes
	grep -qx "kv_bytes_per_token: $((2 * 3 * 2 * 8 * 4))" <<<"$output"
}

@test "untied model: lm_head counted, embedding table is one row per token" {
	tiny m --untied --dtype f16 --vocab 400
	run -0 st-inspect "$T/m"
	grep -q $'^lm_head.weight\tF16\t\\[400,64\\]\t51200\t' <<<"$output"
	total=$(sed -n 's/^bytes: //p' <<<"$output")
	grep -qx "bytes_per_token: $((total - 51200 + 128))" <<<"$output"
}

@test "offsets are where od finds the values (F32, raw dump)" {
	tiny m --dtype f32
	f=$T/m/model.safetensors
	line=$(st-inspect "$f" | grep '^model.norm.weight')
	off=$(cut -f5 <<<"$line")
	n=$(cut -f4 <<<"$line")
	st-inspect -d model.norm.weight -f f32 "$f" >"$T/raw"
	tail -c +$((off + 1)) "$f" | head -c "$n" | cmp - "$T/raw"
}

@test "--dump values match od on stories260K (F32)" {
	need_shared
	f=$SHARED/models/stories260K/model.safetensors
	line=$(st-inspect "$f" | grep '^model.embed_tokens.weight')
	[[ $line == $'model.embed_tokens.weight\tF32\t[512,64]\t131072\t'* ]]
	off=$(cut -f5 <<<"$line")
	od -A n -v -t f4 -j "$off" -N 131072 "$f" | tr -s ' ' '\n' | sed '/^$/d' >"$T/od"
	st-inspect -d model.embed_tokens.weight "$SHARED/models/stories260K" >"$T/dump"
	[ "$(wc -l <"$T/dump")" -eq 32768 ]
	# od prints %.7g-ish; compare numerically
	paste "$T/od" "$T/dump" | awk '{ d = $1 - $2; if (d < 0) d = -d; a = $1 < 0 ? -$1 : $1
		if (d > 1e-6 * a + 1e-12) { print NR ": " $0; bad = 1 } } END { exit bad }'
	head -n 3 "$T/dump" | paste -sd' ' | grep -qx -- '-0.294748783 0.561895609 0.175422534'
}

@test "--stats match awk over the od values (stories260K embedding)" {
	need_shared
	f=$SHARED/models/stories260K/model.safetensors
	od -A n -v -t f4 -j 4864 -N 131072 "$f" | tr -s ' ' '\n' | sed '/^$/d' |
	    awk 'NR == 1 { mn = mx = $1 } { s += $1; q += $1 * $1; if ($1 < mn) mn = $1; if ($1 > mx) mx = $1 }
		END { m = s / NR; printf "%.6g %.6g %.6g %.6g\n", mn, mx, m, sqrt(q / NR - m * m) }' >"$T/want"
	st-inspect -s -e '^model\.embed' "$f" | head -n1 |
	    awk -F'\t' '{ printf "%.6g %.6g %.6g %.6g\n", $6, $7, $8, $9; if ($10 != 0 || $11 != 0) exit 1 }' >"$T/got"
	cat "$T/want" "$T/got"
	cmp "$T/want" "$T/got"
}

@test "BF16 copy of stories260K dumps the F32 values rounded to bfloat16" {
	need_shared
	st-inspect -d model.layers.1.mlp.up_proj.weight "$SHARED/models/stories260K" >"$T/f32"
	st-inspect -d model.layers.1.mlp.up_proj.weight "$SHARED/models/stories260K-bf16" >"$T/bf16"
	paste "$T/f32" "$T/bf16" | awk '{ d = $1 - $2; if (d < 0) d = -d; a = $1 < 0 ? -$1 : $1
		if (d > a / 256) bad = 1 } END { exit bad }'
	! cmp -s "$T/f32" "$T/bf16"
}

@test "shared models: tensor counts and config summaries" {
	need_shared
	run -0 st-inspect "$SHARED/models/stories260K"
	grep -qx "tensors: 47" <<<"$output"
	grep -qx "parameters: 260032" <<<"$output"
	grep -qx "kv_bytes_per_token: $((2 * 5 * 4 * 8 * 4))" <<<"$output"
	run -0 st-inspect --check "$SHARED/models/tiny-mqa-f32-bias"
	[ -z "$output" ]
	run -0 st-inspect -e 'bias$' "$SHARED/models/tiny-mqa-f32-bias"
	grep -qx "tensors: 6" <<<"$output"
}

@test "--stats: normal weights have the distribution mkmodel promises" {
	tiny m -s 3 --hidden 128 --inter 256 --layers 1
	run -0 st-inspect -s -e 'embed|q_proj|norm.weight$' "$T/m"
	# embedding sd 0.5, layers sd 0.125, norms mean 1 sd 0.1
	awk -F'\t' '/embed/ { ok += ($9 > 0.49 && $9 < 0.51 && $8 > -0.01 && $8 < 0.01) }
		/q_proj/ { ok += ($9 > 0.12 && $9 < 0.13) }
		/^model.norm/ { ok += ($8 > 0.97 && $8 < 1.03 && $9 > 0.08 && $9 < 0.12) }
		END { exit ok != 3 }' <<<"$output"
}

@test "--stats is the same with 1 and 2 threads" {
	tiny m
	run -0 st-inspect -s -t 1 "$T/m"
	one=$output
	run -0 st-inspect -s -t 2 "$T/m"
	[ "$output" = "$one" ]
}

@test "--json is one valid document with the same numbers" {
	need_cmd jq
	tiny m
	st-inspect -s --json "$T/m" >"$T/j"
	[ "$(jq '.tensors | length' "$T/j")" -eq 20 ]
	[ "$(jq '.totals.parameters' "$T/j")" = "$(st-inspect "$T/m" | sed -n 's/^parameters: //p' | head -n1)" ]
	[ "$(jq -r '.config.architecture' "$T/j")" = LlamaForCausalLM ]
	[ "$(jq '.tensors[0].nan' "$T/j")" = 0 ]
	[ "$(jq -r '.tensors[] | select(.name == "model.norm.weight") | .shape | @csv' "$T/j")" = 64 ]
}

@test "-e filters tensors and totals" {
	tiny m
	run -0 st-inspect -e 'layers\.1\..*_proj' "$T/m"
	grep -qx "tensors: 7" <<<"$output"
	run -0 st-inspect -e 'nothing-matches' "$T/m"
	grep -qx "tensors: 0" <<<"$output"
}

@test "--dump of a missing tensor" {
	tiny m
	run -1 --separate-stderr st-inspect -d model.nope "$T/m"
	[[ $stderr == *"no tensor model.nope"* ]]
}

@test "-f f32 refuses a terminal" {
	need_tty
	tiny m
	run script -qec "$BIN/st-inspect -d model.norm.weight -f f32 $T/m" /dev/null
	[ "$status" -eq 1 ]
	[[ $output == *"st-inspect: "*terminal* ]]
}

@test "sharded model reads the same as the single file" {
	tiny one -s 5 --untied
	tiny three -s 5 --untied --shards 3
	[ -f "$T/three/model-00003-of-00003.safetensors" ]
	[ ! -e "$T/three/model.safetensors" ]
	run -0 st-inspect "$T/three"
	[ "$(cut -f6 <<<"$output" | grep -c safetensors)" -eq 21 ]
	[ "$(cut -f6 <<<"$output" | sort -u | grep -c safetensors)" -eq 3 ]
	diff <(st-inspect -s "$T/one" | cut -f1-4,6-) <(st-inspect -s "$T/three" | cut -f1-4,6-11)
	cmp <(st-inspect -d lm_head.weight "$T/one") <(st-inspect -d lm_head.weight "$T/three/model.safetensors.index.json")
}

@test "mkmodel is deterministic and the seed matters" {
	tiny a -s 1
	tiny b -s 1
	tiny c -s 2
	cmp "$T/a/model.safetensors" "$T/b/model.safetensors"
	! cmp -s "$T/a/model.safetensors" "$T/c/model.safetensors"
	cmp <("$TOOLS/mkmodel" -t 1 -s 1 "$T/d" && cat "$T/d/model.safetensors") "$T/a/model.safetensors"
}

@test "a closed pipe ends quietly" {
	tiny m --layers 8
	run -0 bash -c "st-inspect -d model.embed_tokens.weight '$T/m' | head -c1 >/dev/null; echo \${PIPESTATUS[0]}"
	[ "$output" = 141 ]
}

# ---- malformed safetensors: exit 1, a message naming the problem ----

T1='"t":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}'

@test "malformed: empty file, short file, directory, fifo" {
	: >"$T/empty"
	bad "$T/empty" "too short"
	printf '1234567' >"$T/seven"
	bad "$T/seven" "too short"
	mkdir "$T/dir"
	bad "$T/dir" "no model.safetensors"
	mkfifo "$T/fifo"
	bad "$T/fifo" "not a regular file"
}

@test "malformed: header length past EOF, 2^63, over the limit, zero" {
	mkst "$T/a" "{$T1}" 8 "$(le64 1000)"
	bad "$T/a" "past the end of the file"
	mkst "$T/b" "{$T1}" 8 '\0\0\0\0\0\0\0\200'
	bad "$T/b" "too large"
	mkst "$T/c" "{$T1}" 8 "$(le64 $((200 << 20)))"
	bad "$T/c" "too large"
	mkst "$T/d" "{$T1}" 8 "$(le64 0)"
	bad "$T/d" "not a JSON object"
	mkst "$T/e" '\377\377\377\377\377\377\377\377' 0 '\377\377\377\377\377\377\377\377'
	bad "$T/e" "too large"
}

@test "malformed: header JSON" {
	mkst "$T/a" '{"t":' 0
	bad "$T/a" "header: line 1"
	mkst "$T/b" '[1,2]' 0
	bad "$T/b" "not a JSON object"
	mkst "$T/c" "{$T1} x" 8
	bad "$T/c" "header:"
	mkst "$T/d" "{$T1,\"u\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[8,12],}}" 12
	bad "$T/d" "header:"
	mkst "$T/e" "{\"t\":$(printf '[%.0s' {1..600})$(printf ']%.0s' {1..600})}" 0
	bad "$T/e" "header:"
	mkst "$T/f" '{"t":"\ud800"}' 0
	bad "$T/f" "header:"
}

@test "malformed: dtype unknown, unsupported, missing, not a string" {
	mkst "$T/a" '{"t":{"dtype":"F17","shape":[2],"data_offsets":[0,8]}}' 8
	bad "$T/a" "unknown dtype 'F17'"
	mkst "$T/b" '{"t":{"dtype":"F4","shape":[2],"data_offsets":[0,1]}}' 1
	bad "$T/b" "unsupported dtype F4"
	mkst "$T/c" '{"t":{"shape":[2],"data_offsets":[0,8]}}' 8
	bad "$T/c" "tensor t: no dtype"
	mkst "$T/d" '{"t":{"dtype":4,"shape":[2],"data_offsets":[0,8]}}' 8
	bad "$T/d" "dtype is not a string"
	mkst "$T/e" '{"t":{"dtype":"f32","shape":[2],"data_offsets":[0,8]}}' 8
	bad "$T/e" "unknown dtype 'f32'"
}

@test "malformed: shapes" {
	mkst "$T/a" '{"t":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}}' 8
	bad "$T/a" "dimension 0 is -2, not a non-negative integer"
	mkst "$T/b" '{"t":{"dtype":"F32","shape":[2, 1.5],"data_offsets":[0,12]}}' 12
	bad "$T/b" "dimension 1 is 1.5, not a non-negative integer"
	mkst "$T/c" '{"t":{"dtype":"F32","shape":["2"],"data_offsets":[0,8]}}' 8
	bad "$T/c" "dimension 0 is a string, not"
	# integral floats too: the format (serde's usize) has only integers
	mkst "$T/k" '{"t":{"dtype":"F32","shape":[2.0],"data_offsets":[0,8]}}' 8
	bad "$T/k" "dimension 0 is 2.0, not a non-negative integer"
	mkst "$T/l" '{"t":{"dtype":"F32","shape":[2e0],"data_offsets":[0,8]}}' 8
	bad "$T/l" "dimension 0 is 2e0, not"
	mkst "$T/m" '{"t":{"dtype":"F32","shape":[-0, 2],"data_offsets":[0,0]}}' 0
	bad "$T/m" "dimension 0 is -0, not"
	mkst "$T/d" '{"t":{"dtype":"F32","shape":2,"data_offsets":[0,8]}}' 8
	bad "$T/d" "shape is not an array"
	mkst "$T/e" '{"t":{"dtype":"F32","data_offsets":[0,8]}}' 8
	bad "$T/e" "no shape"
	mkst "$T/f" '{"t":{"dtype":"U8","shape":[1,1,1,1,1,1,1,1,1],"data_offsets":[0,1]}}' 1
	bad "$T/f" "9 dimensions"
	mkst "$T/g" '{"t":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,8]}}' 8
	bad "$T/g" "overflows"
	mkst "$T/h" '{"t":{"dtype":"F64","shape":[1152921504606846976,16],"data_offsets":[0,8]}}' 8
	bad "$T/h" "overflows"
	mkst "$T/i" '{"t":{"dtype":"F32","shape":[99999999999999999999],"data_offsets":[0,8]}}' 8
	bad "$T/i" "dimension 0"
	mkst "$T/j" '{"t":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}}' 8
	bad "$T/j" "shape [3] of F32 is 12 bytes but data_offsets [0,8] hold 8"
}

@test "malformed: data_offsets" {
	mkst "$T/a" '{"t":{"dtype":"F32","shape":[2]}}' 8
	bad "$T/a" "no data_offsets"
	mkst "$T/b" '{"t":{"dtype":"F32","shape":[2],"data_offsets":[0,8,16]}}' 16
	bad "$T/b" "not an array of two integers"
	mkst "$T/c" '{"t":{"dtype":"F32","shape":[2],"data_offsets":[8,0]}}' 8
	bad "$T/c" "reversed"
	mkst "$T/d" '{"t":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}' 7
	bad "$T/d" "past the end of the data (7 bytes)"
	mkst "$T/e" '{"t":{"dtype":"F32","shape":[2],"data_offsets":[-8,0]}}' 8
	bad "$T/e" "data_offsets[0] is -8, not a non-negative integer"
	mkst "$T/f" '{"t":{"dtype":"U8","shape":[1],"data_offsets":[18446744073709551615,0]}}' 8
	bad "$T/f" "data_offsets[0] is 18446744073709551615, not"
	mkst "$T/i" '{"t":{"dtype":"F32","shape":[2],"data_offsets":[0,8.0]}}' 8
	bad "$T/i" "data_offsets[1] is 8.0, not"
	mkst "$T/g" '{"t":{"dtype":"U8","shape":[0],"data_offsets":[9223372036854775807,9223372036854775807]}}' 8
	bad "$T/g" "past the end of the data"
	mkst "$T/h" '{"t":{"dtype":"F32","shape":[2],"data_offsets":"0,8"}}' 8
	bad "$T/h" "not an array of two integers"
}

@test "malformed: overlapping tensors, duplicate names, entries" {
	mkst "$T/a" '{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}}' 12
	bad "$T/a" "tensors a and b overlap"
	mkst "$T/b" '{"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]},"b":{"dtype":"U8","shape":[0],"data_offsets":[4,4]},"c":{"dtype":"I32","shape":[1],"data_offsets":[8,12]}}' 16
	bad "$T/b" "tensors a and b overlap"
	mkst "$T/c" '{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"a":{"dtype":"F32","shape":[2],"data_offsets":[8,16]}}' 16
	bad "$T/c" "duplicate tensor name a"
	mkst "$T/d" '{"a":[1,2]}' 0
	bad "$T/d" "tensor a: array instead of an object"
	mkst "$T/e" '{"a\u0000b":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}' 8
	bad "$T/e" "holds a NUL"
	mkst "$T/f" '{"":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}' 8
	bad "$T/f" "empty"
}

@test "malformed: bytes between, before or after the tensors (safetensors refuses them)" {
	mkst "$T/a" '{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[1],"data_offsets":[12,16]}}' 16
	bad "$T/a" "tensor b: 4 bytes before its data that no tensor holds"
	mkst "$T/b" '{"a":{"dtype":"F32","shape":[2],"data_offsets":[5,13]}}' 13
	bad "$T/b" "tensor a: 5 bytes before its data that no tensor holds"
	mkst "$T/c" '{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}' 11
	bad "$T/c" "3 bytes after the last tensor's data"
	mkst "$T/d" '{}' 1
	bad "$T/d" "1 bytes after the last tensor's data"
}

@test "malformed: __metadata__" {
	mkst "$T/a" "{\"__metadata__\":{\"format\":1},$T1}" 8
	bad "$T/a" "__metadata__: format is a number, not a string"
	mkst "$T/b" "{\"__metadata__\":[\"pt\"],$T1}" 8
	bad "$T/b" "__metadata__ is not an object"
	mkst "$T/c" "{\"__metadata__\":{},\"__metadata__\":{},$T1}" 8
	bad "$T/c" "duplicate __metadata__"
}

@test "well-formed edge cases are accepted" {
	# empty header, scalar, zero-size tensors, all dtypes, metadata
	mkst "$T/a" '{}' 0
	run -0 st-inspect "$T/a"
	grep -qx "tensors: 0" <<<"$output"
	mkst "$T/b" '{"__metadata__":{"k":"v"},"s":{"dtype":"F64","shape":[],"data_offsets":[0,8]},"z":{"dtype":"BF16","shape":[0,5],"data_offsets":[8,8]},"g":{"dtype":"I16","shape":[2],"data_offsets":[8,12]}}' 12
	run -0 st-inspect -s "$T/b"
	[[ $output == *$'s\tF64\t[]\t8\t'* ]]
	[[ $output == *$'z\tBF16\t[0,5]\t0\t'* ]]
	for d in F64:8 F32:4 F16:2 BF16:2 I64:8 I32:4 I16:2 I8:1 U8:1 BOOL:1 F8_E4M3:1 F8_E5M2:1 U64:8 U32:4 U16:2 C64:8; do
		mkst "$T/c" "{\"t\":{\"dtype\":\"${d%:*}\",\"shape\":[3],\"data_offsets\":[0,$((3 * ${d#*:}))]}}" $((3 * ${d#*:}))
		run -0 st-inspect -s "$T/c"
		[[ $output == *$'t\t'"${d%:*}"$'\t[3]\t'"$((3 * ${d#*:}))"$'\t'*$'\t0\t0\t0\t0\t0\t0'* ]]
	done
	# E8M0 has no zero: byte 0 is 2^-127
	mkst "$T/d" '{"t":{"dtype":"F8_E8M0","shape":[1],"data_offsets":[0,1]}}' 1
	run -0 st-inspect -d t "$T/d"
	[ "$output" = 5.87747175e-39 ]
}

@test "malformed: sharded index" {
	tiny m --shards 2
	m=$T/m/model.safetensors.index.json
	cp "$m" "$T/idx"
	sed 's/"weight_map"/"weights"/' "$T/idx" >"$m"
	bad "$m" "no weight_map"
	sed 's/model-00002-of-00002/model-00009-of-00002/' "$T/idx" >"$m"
	bad "$m" "model-00009-of-00002.safetensors: No such file" "$T/m/"
	sed 's/model-00002-of-00002.safetensors/..\/m\/model-00002-of-00002.safetensors/' "$T/idx" >"$m"
	bad "$m" "bad file name"
	sed 's/"model.norm.weight"/"model.gone.weight"/' "$T/idx" >"$m"
	bad "$m" "tensor model.gone.weight not found"
	# a tensor listed with the wrong shard
	grep -q '"model.embed_tokens.weight": "model-00001-of-00002.safetensors"' "$T/idx"
	sed '/"model.embed_tokens.weight"/s/00001-of/00002-of/' "$T/idx" >"$m"
	bad "$m" "tensor model.embed_tokens.weight is in"
	# listed twice; not listed
	{ sed '$d' "$T/idx" | sed '$d'; printf ',\n"model.norm.weight": "model-00002-of-00002.safetensors"\n}\n}\n'; } >"$m"
	bad "$m" "tensor model.norm.weight listed twice"
	grep -q '"model.layers.1.input_layernorm.weight": "model-00002-of-00002.safetensors",' "$T/idx"
	grep -v '"model.layers.1.input_layernorm.weight"' "$T/idx" >"$m"
	bad "$m" "tensor model.layers.1.input_layernorm.weight of $T/m/model-00002-of-00002.safetensors not listed"
	printf '{"weight_map": {}}' >"$m"
	bad "$m" "weight_map is empty"
	printf '{"weight_map": {"a": 1}}' >"$m"
	bad "$m" "file name is not a string"
	printf '[]' >"$m"
	bad "$m" "not a JSON object"
	# the same tensor in two shards
	cp "$T/m/model-00001-of-00002.safetensors" "$T/m/model-00003-of-00002.safetensors"
	{ sed '$d' "$T/idx" | sed '$d'; printf ',\n"zz": "model-00003-of-00002.safetensors"\n}\n}\n'; } >"$m"
	bad "$m" "is in both"
}

# ---- malformed config.json ----

# badcfg KEYVALUE WORDS: a model folder whose config.json has KEYVALUE
# replaced or added fails naming the key.
badcfg() {
	rm -rf "$T/c"
	"$TOOLS/mkmodel" "$T/c"
	sed "s/^{/{ $1,/" "$T/c/config.json" >"$T/cfg" && mv "$T/cfg" "$T/c/config.json"
	run -1 --separate-stderr st-inspect "$T/c"
	[ -z "$output" ]
	[[ $stderr == "st-inspect: $T/c/config.json: "*"$2"* ]] || { echo "stderr: $stderr"; false; }
}

@test "malformed config.json" {
	tiny m
	printf '{"hidden_size": 64,' >"$T/m/config.json"
	run -1 --separate-stderr st-inspect "$T/m"
	[[ $stderr == "st-inspect: $T/m/config.json: line 1"* ]]
	rm "$T/m/config.json"
	# no config.json: only the tensors, no summary
	run -0 st-inspect "$T/m"
	! grep -q architecture <<<"$output"
	echo '[]' >"$T/m/config.json"
	run -1 --separate-stderr st-inspect "$T/m"
	[[ $stderr == *"array instead of an object"* ]]
}

@test "malformed config.json: values" {
	# json_get takes the first of duplicate keys, so the value put first wins
	badcfg '"hidden_size": 0' "hidden_size: 0 is not an integer"
	badcfg '"hidden_size": "64"' "hidden_size: string instead of an integer"
	badcfg '"hidden_size": 64.5' "hidden_size: 64.5 is not an integer"
	badcfg '"num_hidden_layers": -1' "num_hidden_layers"
	badcfg '"num_attention_heads": 5, "head_dim": null' "hidden_size 64 is not a multiple of num_attention_heads 5"
	badcfg '"num_key_value_heads": 3' "num_key_value_heads 3 does not divide num_attention_heads 4"
	badcfg '"head_dim": 7' "head_dim 7 is odd"
	badcfg '"rms_norm_eps": 0' "rms_norm_eps: 0 is not a positive"
	badcfg '"rope_theta": "big"' "rope_theta: string instead of a number"
	badcfg '"rope_theta": 1e999' "rope_theta"
	badcfg '"tie_word_embeddings": 1' "tie_word_embeddings: number instead of true or false"
	badcfg '"eos_token_id": 512' "eos_token_id 512 is not below vocab_size 512"
	badcfg '"eos_token_id": [1, "2"]' "eos_token_id: item 1"
	badcfg '"eos_token_id": {}' "eos_token_id: object instead"
	badcfg '"bos_token_id": -1' "bos_token_id"
	badcfg '"hidden_act": "gelu"' "hidden_act: 'gelu' not supported"
	badcfg '"model_type": "bert"' "model_type: 'bert' not supported"
	badcfg '"rope_scaling": {"rope_type": "dynamic", "factor": 2}' "rope_scaling: rope_type 'dynamic' not supported"
	badcfg '"rope_scaling": {"rope_type": "llama3", "factor": 8}' "no low_freq_factor"
	badcfg '"rope_scaling": {"rope_type": "llama3", "factor": 8, "low_freq_factor": 4, "high_freq_factor": 1, "original_max_position_embeddings": 8192}' "high_freq_factor must be greater"
	badcfg '"rope_scaling": 3' "rope_scaling: number instead of an object"
	badcfg '"architectures": "LlamaForCausalLM"' "architectures: string instead of a list"
	badcfg '"vocab_size": 99999999999' "vocab_size"
}

@test "config.json: llama3 rope_scaling and generation_config.json are accepted" {
	tiny m
	sed 's/"rope_scaling": null/"rope_scaling": {"rope_type": "llama3", "factor": 32.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0, "original_max_position_embeddings": 8192}/' "$T/m/config.json" >"$T/cfg"
	mv "$T/cfg" "$T/m/config.json"
	echo '{"bos_token_id": 1, "eos_token_id": [2, 3]}' >"$T/m/generation_config.json"
	run -0 st-inspect --check "$T/m"
	echo '{"eos_token_id": 600}' >"$T/m/generation_config.json"
	run -1 --separate-stderr st-inspect --check "$T/m"
	[[ $stderr == *"generation_config.json: eos_token_id 600"* ]]
}

@test "ORG/NAME is found in the HuggingFace cache" {
	tiny m
	hub=$T/hub/models--acme--tiny
	mkdir -p "$hub/snapshots/abc123" "$hub/refs" "$hub/snapshots/old"
	cp "$T/m"/* "$hub/snapshots/abc123/"
	echo abc123 >"$hub/refs/main"
	HF_HUB_CACHE=$T/hub run -0 st-inspect acme/tiny
	grep -qx "layers: 2" <<<"$output"
	HF_HOME=$T HF_HUB_CACHE= run -0 st-inspect --check acme/tiny
	HOME=$T/home run -1 --separate-stderr st-inspect acme/tiny
	[[ $stderr == *"acme/tiny: not in the HuggingFace cache ($T/home/.cache/huggingface/hub)"* ]]
	# no refs/main: the newest snapshot
	rm "$hub/refs/main"
	touch -d '2020-01-01' "$hub/snapshots/old"
	HF_HUB_CACHE=$T/hub run -0 st-inspect --check acme/tiny
}

@test "a real model (PIPELM_TEST_MODEL) checks, and SmolLM2-135M has its known counts" {
	need_model
	run -0 st-inspect --check "$PIPELM_TEST_MODEL"
	[ -z "$output" ]
	run -0 st-inspect -s "$PIPELM_TEST_MODEL"
	# no NaN or Inf in any tensor
	! awk -F'\t' 'NF >= 11 && ($10 != 0 || $11 != 0)' <<<"$output" | grep -q .
	if grep -qx "hidden_size: 576" <<<"$output" && grep -qx "layers: 30" <<<"$output"; then
		grep -qx "tensors: 272" <<<"$output"
		grep -qx "parameters: 134515008" <<<"$output"
	fi
}
