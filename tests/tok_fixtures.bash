# Small tokenizer.json fixtures for tok-encode.bats and tok-decode.bats, so
# the suites run on a fresh clone without ../shared.  Expected ids in the
# tests were worked out by hand from HuggingFace tokenizers' semantics.

# bytelevel DIR: a GPT-2-style byte-level BPE in DIR/tokenizer.json (and a
# config.json, so DIR works with -m).  Token b (0..255) is byte b; then
#   256 Ġt  257 he  258 Ġthe  259 in  260 Ġa  261 an  262 Ġan
#   263 <|endoftext|> (special, the BOS)  264 <mask> (special, lstrip)
#   265 [x] (single_word)  266 <r> (rstrip)
fx_bytelevel() {
	local d=$1 b cp sep=""
	mkdir -p "$d"
	echo '{"bos_token_id": 263}' >"$d/config.json"
	{
		printf '{"version": "1.0", "added_tokens": [\n'
		printf '{"id": 263, "content": "<|endoftext|>", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true},\n'
		printf '{"id": 264, "content": "<mask>", "single_word": false, "lstrip": true, "rstrip": false, "normalized": false, "special": true},\n'
		printf '{"id": 265, "content": "[x]", "single_word": true, "lstrip": false, "rstrip": false, "normalized": false, "special": false},\n'
		printf '{"id": 266, "content": "<r>", "single_word": false, "lstrip": false, "rstrip": true, "normalized": false, "special": false}],\n'
		printf '"normalizer": %s,\n' "${FX_NORMALIZER:-null}"
		printf '"pre_tokenizer": {"type": "Sequence", "pretokenizers": [{"type": "Digits", "individual_digits": true}, {"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": true}]},\n'
		printf '"post_processor": {"type": "TemplateProcessing", "single": [{"SpecialToken": {"id": "<|endoftext|>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}], "pair": [], "special_tokens": {"<|endoftext|>": {"id": "<|endoftext|>", "ids": [263], "tokens": ["<|endoftext|>"]}}},\n'
		printf '"decoder": {"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true, "use_regex": true},\n'
		printf '"model": {"type": "BPE", "dropout": null, "unk_token": null, "continuing_subword_prefix": null, "end_of_word_suffix": null, "fuse_unk": false, "byte_fallback": false, "ignore_merges": false, "vocab": {'
		# GPT-2's bytes_to_unicode
		local n=0
		for b in $(seq 0 255); do
			if { [ "$b" -ge 33 ] && [ "$b" -le 126 ]; } ||
			   { [ "$b" -ge 161 ] && [ "$b" -le 172 ]; } ||
			   { [ "$b" -ge 174 ] && [ "$b" -le 255 ]; }; then
				cp=$b
			else
				cp=$((256 + n)); n=$((n + 1))
			fi
			case $b in
			34) printf '%s"\\"": %d' "$sep" "$b" ;;
			92) printf '%s"\\\\": %d' "$sep" "$b" ;;
			*) printf '%s"\\u%04x": %d' "$sep" "$cp" "$b" ;;
			esac
			sep=", "
		done
		printf ', "\\u0120t": 256, "he": 257, "\\u0120the": 258, "in": 259, "\\u0120a": 260, "an": 261, "\\u0120an": 262, "<|endoftext|>": 263},\n'
		printf '"merges": ["\\u0120 t", "h e", "\\u0120t he", ["i", "n"], "\\u0120 a", "a n", "\\u0120a n"]}}\n'
	} >"$d/tokenizer.json"
}

# sentencepiece DIR: a Llama-2-style BPE with byte fallback.
#   0 <unk>  1 <s>  2 </s>  3..258 <0x00>..<0xFF>  259 ▁  260 a  261 b
#   262 ▁a  263 ab  264 ▁ab  265 é
# FX_PRE / FX_NORMALIZER / FX_DECODER / FX_BYTE_FALLBACK change the parts.
fx_sentencepiece() {
	local d=$1 b
	local norm='{"type": "Sequence", "normalizers": [{"type": "Prepend", "prepend": "\u2581"}, {"type": "Replace", "pattern": {"String": " "}, "content": "\u2581"}]}'
	local dec='{"type": "Sequence", "decoders": [{"type": "Replace", "pattern": {"String": "\u2581"}, "content": " "}, {"type": "ByteFallback"}, {"type": "Fuse"}, {"type": "Strip", "content": " ", "start": 1, "stop": 0}]}'
	mkdir -p "$d"
	echo '{"bos_token_id": 1}' >"$d/config.json"
	{
		printf '{"version": "1.0", "added_tokens": [\n'
		printf '{"id": 0, "content": "<unk>", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true},\n'
		printf '{"id": 1, "content": "<s>", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true},\n'
		printf '{"id": 2, "content": "</s>", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true}],\n'
		printf '"normalizer": %s,\n' "${FX_NORMALIZER:-$norm}"
		printf '"pre_tokenizer": %s,\n' "${FX_PRE:-null}"
		printf '"post_processor": {"type": "TemplateProcessing", "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}], "pair": [], "special_tokens": {"<s>": {"id": "<s>", "ids": [1], "tokens": ["<s>"]}}},\n'
		printf '"decoder": %s,\n' "${FX_DECODER:-$dec}"
		printf '"model": {"type": "BPE", "dropout": null, "unk_token": "<unk>", "continuing_subword_prefix": null, "end_of_word_suffix": null, "fuse_unk": true, "byte_fallback": %s, "ignore_merges": false, "vocab": {' "${FX_BYTE_FALLBACK:-true}"
		printf '"<unk>": 0, "<s>": 1, "</s>": 2'
		for b in $(seq 0 255); do
			printf ', "<0x%02X>": %d' "$b" $((b + 3))
		done
		printf ', "\\u2581": 259, "a": 260, "b": 261, "\\u2581a": 262, "ab": 263, "\\u2581ab": 264, "\\u00e9": 265},\n'
		printf '"merges": ["\\u2581 a", "a b", "\\u2581a b"]}}\n'
	} >"$d/tokenizer.json"
}

# randbytes SEED N MAXLEN [EXCLUDE]: N random byte strings, one per line
# (no newline inside; NUL and invalid UTF-8 included), bytes in EXCLUDE
# (decimal, comma-separated) left out.
randbytes() {
	awk -v seed="$1" -v n="$2" -v max="$3" -v ex="${4:-}" 'BEGIN {
		srand(seed)
		k = split(ex, e, ",")
		for (i = 1; i <= k; i++) skip[e[i]] = 1
		skip[10] = 1
		for (i = 0; i < n; i++) {
			len = int(rand() * (max + 1))
			for (j = 0; j < len; j++) {
				# favour ASCII and UTF-8 lead/continuation bytes
				r = rand()
				if (r < 0.4) b = 32 + int(rand() * 95)
				else if (r < 0.5) b = 32
				else b = int(rand() * 256)
				if (b in skip) continue
				printf "%c", b
			}
			printf "\n"
		}
	}'
}

# The setup both tokenizer suites use: the two fixtures made once per file,
# a fresh copy in each test's directory, and the shared assets' paths.
setup_file() {
	fx_bytelevel "$BATS_FILE_TMPDIR/bl"
	fx_sentencepiece "$BATS_FILE_TMPDIR/sp"
}

setup() {
	cd "$BATS_TEST_TMPDIR"
	cp -R "$BATS_FILE_TMPDIR/bl" "$BATS_FILE_TMPDIR/sp" .
	SMOL=$SHARED/models/smollm2-tokenizer/tokenizer.json
	STORIES=$SHARED/models/stories260K/tokenizer.json
	GOLD=$SHARED/golden/tokenizer
}
