#!/usr/bin/env bats
# tok-train: the program around lib/tok/tok_train.c (whose trainer
# test_tok_train checks case by case), its presets read back by
# tok-encode and tok-decode and by a model made with the tokenizer, and
# the vocabulary and merges beside HuggingFace tokenizers' own trainer
# (the npm package tokenizers, tests/tok-train-check.mjs) on corpora of
# several megabytes in several scripts (tests/tok-train-corpus.mjs).

load helpers

NODE_PREFIX=${PIPELM_NODE_PREFIX:-$BATS_TEST_DIRNAME}

setup() {
	cd "$BATS_TEST_TMPDIR"
	printf 'the cat sat on the mat\nthe dog sat on the log\n' >small.txt
	printf 'a rat, a bat; the hat! 12 34\n' >>small.txt
	# enough distinct words for a few thousand merges
	awk 'BEGIN { for (i = 0; i < 40000; i++) print i * 7919 % 100003, "w" i % 977 }' >big.txt
}

# A byte-level template like SmolLM2's, without vocabulary or added tokens
bl_template() {
	cat >"$1" <<-'EOF'
	{"version": "1.0", "added_tokens": [], "normalizer": null,
	 "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": true},
	 "post_processor": null,
	 "decoder": {"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true, "use_regex": true},
	 "model": {"type": "BPE", "dropout": null, "unk_token": null, "continuing_subword_prefix": null,
	  "end_of_word_suffix": null, "fuse_unk": false, "byte_fallback": false, "ignore_merges": false,
	  "vocab": {}, "merges": []}}
	EOF
}

need_tokenizers() {
	need_cmd node
	[ -r "$NODE_PREFIX/node_modules/tokenizers/package.json" ] ||
		skip "tokenizers not installed under $NODE_PREFIX/node_modules (npm install --prefix tests)"
}

# corpus FILE BYTES SEED
corpus() {
	need_cmd node
	node "$BATS_TEST_DIRNAME/tok-train-corpus.mjs" "$2" "$3" >"$1"
}

@test "tok-train: usage" {
	run -2 --separate-stderr tok-train --bogus
	[[ $stderr == *usage:* ]]
	[ -z "$output" ]
	run -2 --separate-stderr tok-train --byte-level --sentencepiece
	[[ $stderr == *exclude* ]]
	run -2 --separate-stderr tok-train -n 0
	[[ $stderr == *"vocabulary size"* ]]
	run -0 tok-train --help
	[[ $output == *--max-token-length* ]]
}

@test "tok-train: a missing file is named" {
	run -1 --separate-stderr tok-train nosuch.txt
	[[ $stderr == *nosuch.txt* ]]
	[ -z "$output" ]
}

@test "tok-train: stdin, - and a file give the same tokenizer" {
	tok-train -n 300 small.txt >a.json
	tok-train -n 300 <small.txt >b.json
	tok-train -n 300 - <small.txt >c.json
	cmp a.json b.json
	cmp a.json c.json
}

@test "tok-train: byte-level by default: special token, 256 bytes, merges" {
	run -0 tok-train -n 300 small.txt
	[[ $output == *'"content": "<|endoftext|>"'* ]]
	[[ $output == *'"<|endoftext|>": 0,'* ]]
	[[ $output == *'"Ġthe": '* ]]
	[[ $output == *'["Ġ", "the"]'* ]]
	# 1 special + 256 bytes + 28 merges (then no pair is left)
	[ "$(grep -c '^      \[' <<<"$output")" -eq 28 ]
	[ "$(grep -c '^      "' <<<"$output")" -eq 285 ]
}

@test "tok-train: the same tokenizer whatever the threads" {
	tok-train -t 1 -n 2000 big.txt small.txt >1.json
	tok-train -t 2 -n 2000 big.txt small.txt >2.json
	tok-train -t 5 -n 2000 big.txt small.txt >5.json
	cmp 1.json 2.json
	cmp 1.json 5.json
}

@test "tok-train: -o writes tokenizer.json and tokenizer_config.json, round trip" {
	run -0 tok-train -n 320 -o out small.txt
	[ -z "$output" ]
	[ -s out/tokenizer.json ]
	grep -q '"bos_token": "<|endoftext|>"' out/tokenizer_config.json
	grep -q '"0": {"content": "<|endoftext|>"' out/tokenizer_config.json
	# bytes never seen come back too: the alphabet has all 256
	printf 'the cat \xff\x00 日本 sat' >in.bin
	tok-encode -m out <in.bin | tok-decode -n -m out >back.bin
	cmp in.bin back.bin
	run -0 tok-encode -m out -e 'the cat sat'
	[ "$(wc -w <<<"$output")" -lt 11 ]
}

@test "tok-train: --sentencepiece: Llama 2's pipeline, byte fallback" {
	run -0 tok-train --sentencepiece -n 300 -o sp small.txt
	grep -q '"<0x0A>": 13' sp/tokenizer.json
	grep -q '"byte_fallback": true' sp/tokenizer.json
	grep -q '"unk_token": "<unk>"' sp/tokenizer.json
	grep -q '"<s>": {"id": "<s>", "ids": \[1\]' sp/tokenizer.json
	grep -q '"▁the": ' sp/tokenizer.json
	printf 'the cat Zürich sat' >in.txt
	tok-encode -m sp <in.txt >ids
	[ "$(cut -d' ' -f1 ids)" = 1 ]	# the template's BOS
	tok-decode -n --skip-special -m sp <ids >back.txt
	cmp in.txt back.txt
}

@test "tok-train: --like keeps the pipeline, the special tokens, the template's ids" {
	. "$BATS_TEST_DIRNAME/tok_fixtures.bash"
	fx_bytelevel fx
	run -0 tok-train --like fx/tokenizer.json -n 400 -o like small.txt
	# its special added tokens first, in order; the non-special ones not
	grep -q '"<|endoftext|>": 0,' like/tokenizer.json
	grep -q '"<mask>": 1,' like/tokenizer.json
	! grep -q '"\[x\]"' like/tokenizer.json
	grep -q '"ids": \[0\]' like/tokenizer.json
	grep -q '"type": "Digits"' like/tokenizer.json
	run -0 tok-encode -m like -e 'the cat 12'
	[ "${output%% *}" = 0 ]
	# Digits cut each digit alone: no merge of two digits
	! grep -q '\["1", "2"\]' like/tokenizer.json
}

@test "tok-train: the trainer's options reach it" {
	# strictly under 3 characters: "Ġt" and "he" are not joined
	run -0 tok-train -n 1000 --max-token-length 3 small.txt
	grep -q '"Ġt": ' <<<"$output"
	grep -q '"he": ' <<<"$output"
	! grep -q '"Ġthe"' <<<"$output"
	! grep -q '"the"' <<<"$output"
	run -0 tok-train -n 1000 --min-frequency 100 small.txt
	[[ $output == *'"merges": []'* ]]
	# special tokens in order, a repeat once, one that is a character too
	run -0 tok-train -n 1000 -s '<a>' -s '<b>' -s '<a>' -s t -o sp small.txt
	[ "$(grep -c '"special": true' sp/tokenizer.json)" -eq 3 ]
	grep -q '"<a>": 0,' sp/tokenizer.json
	grep -q '"<b>": 1,' sp/tokenizer.json
	grep -q '"t": 2,' sp/tokenizer.json
	grep -q '"2": {"content": "t"' sp/tokenizer_config.json
}

@test "tok-train: prefix, suffix, alphabet options" {
	bl_template t.json
	run -0 tok-train --like t.json -n 1000 --continuing-subword-prefix '##' \
		--end-of-word-suffix '</w>' small.txt
	[[ $output == *'"continuing_subword_prefix": "##"'* ]]
	[[ $output == *'"end_of_word_suffix": "</w>"'* ]]
	[[ $output == *'"##a": '* ]]
	[[ $output == *'"##t</w>": '* ]]
	[[ $output == *'"Ġthe</w>": '* ]]
	run -0 tok-train --like t.json -n 1000 --initial-alphabet 'Ωq' small.txt
	[[ $output == *'"Ω": '* ]]
	run -0 tok-train --like t.json -n 1000 --limit-alphabet 5 small.txt
	# the five most frequent characters: Ġ t a e h
	[[ $output == *'"vocab": {
      "a": 0,
      "e": 1,
      "h": 2,
      "t": 3,
      "Ġ": 4,'* ]]
}

@test "tok-train: -n gives the vocabulary size, a smaller one a prefix" {
	tok-train -n 3000 big.txt >big.json
	tok-train -n 1000 big.txt >small.json
	[ "$(grep -c '^      "' small.json)" -eq 1000 ]
	[ "$(grep -c '^      "' big.json)" -eq 3000 ]
	grep '^      \[' small.json | sed '$s/,$//' >m.small
	grep '^      \[' big.json | head -n "$(wc -l <m.small)" | sed '$s/,$//' >m.big
	cmp m.small m.big
}

@test "tok-train: bad input gets a message, and -o is left as it was" {
	mkdir out
	echo keep >out/tokenizer.json
	printf 'good line\nbad \xff line\n' >bad.txt
	run -1 --separate-stderr tok-train -o out bad.txt
	[[ $stderr == *"bad.txt: line 2: not UTF-8"* ]]
	[ "$(cat out/tokenizer.json)" = keep ]
	run -1 --separate-stderr tok-train </dev/null
	[[ $stderr == *"no words"* ]]
	run -1 --separate-stderr tok-train -n 100 small.txt
	[[ $stderr == *"vocabulary size 100 is below"* ]]
	run -1 --separate-stderr tok-train --like nosuch.json small.txt
	[[ $stderr == *nosuch.json* ]]
	echo '{"pre_tokenizer": {"type": "Bogus"}}' >weird.json
	run -1 --separate-stderr tok-train --like weird.json small.txt
	[[ $stderr == *"unsupported pre_tokenizer: Bogus"* ]]
}

@test "tok-train: the reader closing early" {
	run --separate-stderr bash -c 'tok-train -n 5000 big.txt | head -c1 >/dev/null; echo "${PIPESTATUS[0]}"'
	[ "$output" = 141 ]
	[ -z "$stderr" ]
}

@test "tok-train: a progress meter on a terminal only" {
	need_tty
	run -0 script -qec "tok-train -n 2000 -o tk big.txt" /dev/null
	last=$(printf '%s' "$output" | tr '\r' '\n' | grep -a 'merges, ' | tail -n 1)
	[[ $last == "tok-train: "[0-9]*"/"[0-9]*" merges, "*"/s, "*" s left"* ]]
	[[ $output == *"big.txt: "*" MB read"* ]]
	run -0 --separate-stderr tok-train -n 2000 -o tk2 big.txt
	[ -z "$stderr" ]
	cmp tk/tokenizer.json tk2/tokenizer.json
}

@test "tok-train: a model made with the trained tokenizer runs" {
	tok-train -n 600 -o tk big.txt
	mkmodel m --vocab 600 --tokenizer tk/tokenizer.json
	cp tk/tokenizer_config.json m/
	run -0 llm-text -m m -n 5 --seed 1 w12 34
	[[ $output == "w12 34"?* ]]
}

@test "tok-train: beside tokenizers' trainer (byte-level, several scripts, MBs)" {
	need_tokenizers
	bl_template t.json
	corpus c1.txt 3000000 1
	corpus c2.txt 2000000 2
	tok-train --like t.json -o mine c1.txt c2.txt
	run -0 env PIPELM_NODE_PREFIX="$NODE_PREFIX" node "$BATS_TEST_DIRNAME/tok-train-check.mjs" \
		t.json mine/tokenizer.json c1.txt c2.txt
	echo "$output"
	[[ $output == *": identical" ]]
	tok-train --like t.json -n 5000 -o small c1.txt c2.txt
	run -0 env PIPELM_NODE_PREFIX="$NODE_PREFIX" node "$BATS_TEST_DIRNAME/tok-train-check.mjs" \
		--prefix t.json small/tokenizer.json c1.txt c2.txt
	echo "$output"
	[[ $output == *": a prefix" ]]
}

@test "tok-train: beside tokenizers' trainer (NFKC and Metaspace)" {
	need_tokenizers
	bl_template t.json
	jsed t.json -e 's/"normalizer": null/"normalizer": {"type": "NFKC"}/' \
		-e 's/"pre_tokenizer": {[^}]*}/"pre_tokenizer": {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": true}/'
	grep -q Metaspace t.json
	corpus c.txt 3000000 3
	tok-train --like t.json -o mine c.txt
	run -0 env PIPELM_NODE_PREFIX="$NODE_PREFIX" node "$BATS_TEST_DIRNAME/tok-train-check.mjs" \
		t.json mine/tokenizer.json c.txt
	echo "$output"
	[[ $output == *": identical" ]]
}

@test "tok-train: beside tokenizers' trainer (SmolLM2's pipeline: Digits, ByteLevel)" {
	need_shared
	need_tokenizers
	need_cmd python3
	python3 - "$SHARED/models/smollm2-tokenizer/tokenizer.json" <<-'EOF'
	import json, sys
	t = json.load(open(sys.argv[1]))
	t["added_tokens"] = []
	t["model"]["vocab"], t["model"]["merges"] = {}, []
	json.dump(t, open("t.json", "w"))
	EOF
	corpus c.txt 2000000 4
	tok-train --like t.json -n 8000 -o mine c.txt
	run -0 env PIPELM_NODE_PREFIX="$NODE_PREFIX" node "$BATS_TEST_DIRNAME/tok-train-check.mjs" \
		--prefix t.json mine/tokenizer.json c.txt
	echo "$output"
	[[ $output == *": a prefix" ]]
}

@test "tok-train: tokenizers.js encodes with the trained tokenizers as tok-encode does" {
	need_cmd node
	[ -r "$NODE_PREFIX/node_modules/@huggingface/tokenizers/package.json" ] ||
		skip "@huggingface/tokenizers not installed under $NODE_PREFIX/node_modules (npm install --prefix tests)"
	corpus c.txt 1000000 5
	tok-train -n 3000 -o bl c.txt
	tok-train --sentencepiece -n 3000 -o sp c.txt
	for d in bl sp; do
		run --separate-stderr env PIPELM_BIN="$BIN" PIPELM_NODE_PREFIX="$NODE_PREFIX" \
			node "$BATS_TEST_DIRNAME/tok-check.mjs" $d/tokenizer.json 500
		echo "$d: $output"
		[ "$status" -eq 0 ]
		[[ $output == *", 0 differences" ]]
	done
}
