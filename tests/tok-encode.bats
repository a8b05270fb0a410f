#!/usr/bin/env bats
# tok-encode: usage, files, records, the fixtures' ids (worked out by hand
# from HuggingFace tokenizers' rules), round trips, and the golden files.

load helpers
load tok_fixtures

@test "tok-encode: usage" {
	run -2 --separate-stderr tok-encode --bogus
	[[ $stderr == *usage:* ]]
	[ -z "$output" ]
	run -0 --separate-stderr tok-encode --help
	[[ $output == usage:* ]]
	run -0 tok-encode --version
	[ -n "$output" ]
	run -2 --separate-stderr tok-encode -m bl --tokenizer bl/tokenizer.json x
	[[ $stderr == *exclude* ]]
	run -2 --separate-stderr tok-encode -m bl --ids=bogus x
	[[ $stderr == *bogus* ]]
}

@test "tok-encode: a missing tokenizer is named" {
	run -1 --separate-stderr tok-encode --tokenizer nosuch.json x
	[[ $stderr == *nosuch.json* ]]
	mkdir empty
	echo '{}' >empty/config.json
	run -1 --separate-stderr tok-encode -m empty x
	[[ $stderr == *tokenizer.json* ]]
	run -1 --separate-stderr tok-encode -m '' x
	[[ $stderr == *"model name is empty"* ]]
	# a tokenizer that fails to load, with -e texts already taken: exit 1
	# and the message alone (under ASan, nothing leaked either)
	mkdir broken
	printf '{' >broken/tokenizer.json
	run -1 --separate-stderr tok-encode -m broken -e x -e y
	[[ $stderr == *"broken/tokenizer.json: line 1"* ]]
	[[ $stderr != *leak* ]]
	[ -z "$output" ]
}

@test "tok-encode: -m DIR, \$PIPELM_MODEL and --tokenizer agree; stdin and arguments too" {
	run -0 tok-encode -m bl -e " the in"
	[ "$output" = "263 258 32 259" ]
	run -0 tok-encode --tokenizer bl/tokenizer.json -e " the in"
	[ "$output" = "263 258 32 259" ]
	PIPELM_MODEL=bl run -0 tok-encode -e " the in"
	[ "$output" = "263 258 32 259" ]
	run -0 bash -c 'printf " the in" | tok-encode -m bl'
	[ "$output" = "263 258 32 259" ]
}

@test "tok-encode: file operands, each a record; - and none are stdin; a missing file skipped" {
	printf ' the in\n' >f1
	printf 'the\n the' >f2
	run -0 tok-encode -m bl --no-bos f1 f2
	[ "$output" = "$(printf '258 32 259\n116 257 10 258')" ]
	run -0 tok-encode -m bl --no-bos - f2 <f1
	[ "$output" = "$(printf '258 32 259\n116 257 10 258')" ]
	run -0 tok-encode -m bl --no-bos -l f2 f1
	[ "$output" = "$(printf '116 257\n258\n258 32 259')" ]
	run -1 --separate-stderr tok-encode -m bl --no-bos f1 nosuch f1
	# as cat(1) says it: prog: file: reason
	[ "$stderr" = "tok-encode: nosuch: No such file or directory" ]
	[ "$output" = "$(printf '258 32 259\n258 32 259')" ]
	# a file named like text is a file: no silent encoding of its name
	run -1 --separate-stderr tok-encode -m bl p.txt
	[[ $stderr == *"tok-encode: p.txt: No such file"* ]]
	[ -z "$output" ]
	run -2 --separate-stderr tok-encode -m bl -e the f1
	[[ $stderr == *"-e and file operands exclude each other"* ]]
	run -0 tok-encode -m bl --no-bos --text=the -e ' the'
	[ "$output" = "$(printf '116 257\n258')" ]
}

@test "tok-encode: byte-level BPE, Digits, added tokens (lstrip, rstrip, single_word)" {
	run -0 tok-encode -m bl -e "the" -e " the" -e "in 12" -e "a <mask>" -e "a[x]" -e " [x] " -e "<r>  b" -e $'\xff\xfe' -e "a<|endoftext|>b"
	[ "${lines[0]}" = "263 116 257" ]
	[ "${lines[1]}" = "263 258" ]
	[ "${lines[2]}" = "263 259 32 49 50" ]
	[ "${lines[3]}" = "263 97 264" ]		# lstrip takes the space
	[ "${lines[4]}" = "263 97 91 120 93" ]	# not a single word
	[ "${lines[5]}" = "263 32 265 32" ]
	[ "${lines[6]}" = "263 266 98" ]		# rstrip takes both spaces
	[ "${lines[7]}" = "263 255 254" ]		# invalid UTF-8: its own bytes
	[ "${lines[8]}" = "263 97 263 98" ]
}

@test "tok-encode: --bos, --no-bos, --no-special, --count, --pieces" {
	run -0 tok-encode -m bl --no-bos -e "the"
	[ "$output" = "116 257" ]
	run -0 tok-encode -m bl --bos -e "the"
	[ "$output" = "263 116 257" ]
	run -0 tok-encode -m bl --no-bos --no-special -e "<|endoftext|>"
	[ "$output" = "60 124 101 110 100 111 102 116 101 120 116 124 62" ]
	run -0 tok-encode -m bl --count -e "the" -e " the" -e ""
	[ "$output" = $'3\n2\n1' ]
	run -0 tok-encode -m bl --no-bos --pieces -e " the in" -e $'a\n\\'
	[ "${lines[0]}" = 'Ġthe Ġ in' ]
	[ "${lines[1]}" = 'a Ċ \\' ]
	run -0 tok-encode -m sp --pieces -e "ab c"
	[ "$output" = '<s> ▁ab ▁ <0x63>' ]
}

@test "tok-encode: -l, -0 and --ids=u32 framing" {
	run -0 bash -c 'printf "the\n the\n\nin" | tok-encode -m bl --no-bos -l'
	[ "$output" = $'116 257\n258\n\n259' ]
	run -0 bash -c 'printf "the\0 the\0" | tok-encode -m bl --no-bos -0'
	[ "$output" = $'116 257\n258' ]
	run -0 bash -c 'printf "a\nb" | tok-encode -m bl --no-bos'
	[ "$output" = "97 10 98" ]
	# the whole input's final newline ends the record
	run -0 bash -c 'printf "a\n\n" | tok-encode -m bl --no-bos'
	[ "$output" = "97 10" ]
	run -0 bash -c 'echo the | tok-encode -m bl --no-bos'
	[ "$output" = "116 257" ]
	run -0 bash -c 'tok-encode -m bl --no-bos --ids=u32 -e "the" -e "" | od -An -tu4 | tr -s " \n" " "'
	[ "$output" = " 2 116 257 0 " ]
}

@test "tok-encode: -l answers each line as it comes" {
	coproc ENC { tok-encode -m bl --no-bos -l; }
	pid=$ENC_PID	# bash unsets ENC_PID once the coprocess has ended
	printf 'the\n' >&"${ENC[1]}"
	read -r -t 20 line <&"${ENC[0]}"
	[ "$line" = "116 257" ]
	printf ' the\n' >&"${ENC[1]}"
	read -r -t 20 line <&"${ENC[0]}"
	[ "$line" = "258" ]
	eval "exec ${ENC[1]}>&-"
	wait "$pid"
}

@test "tok-encode: SentencePiece BPE: Prepend, Replace, byte fallback, unk" {
	run -0 tok-encode -m sp -e "ab ab" -e "c" -e "é" -e "日" -e ""
	[ "${lines[0]}" = "1 264 264" ]
	[ "${lines[1]}" = "1 259 102" ]
	[ "${lines[2]}" = "1 259 265" ]
	[ "${lines[3]}" = "1 259 233 154 168" ]
	[ "${lines[4]}" = "1" ]
	FX_BYTE_FALLBACK=false fx_sentencepiece unk
	run -0 tok-encode -m unk --no-bos -e "ccab" -e "c ab"
	[ "${lines[0]}" = "259 0 263" ]		# fuse_unk: one <unk> for "cc"
	[ "${lines[1]}" = "259 0 264" ]
}

@test "tok-encode: Metaspace, Split and NFKC pre-tokenization" {
	FX_NORMALIZER=null FX_PRE='{"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always", "split": true}' fx_sentencepiece meta
	run -0 tok-encode -m meta --no-bos -e "ab ab" -e "a  b" -e " ab"
	[ "${lines[0]}" = "264 264" ]
	[ "${lines[1]}" = "262 259 259 261" ]	# ▁a ▁ ▁b
	[ "${lines[2]}" = "264" ]		# the space is the prefix
	FX_NORMALIZER=null FX_PRE='{"type": "Split", "pattern": {"String": " "}, "behavior": "Removed", "invert": false}' fx_sentencepiece split
	run -0 tok-encode -m split --no-bos -e "ab  ab"
	[ "$output" = "263 263" ]
	FX_NORMALIZER=null FX_PRE='{"type": "Split", "pattern": {"String": "b"}, "behavior": "MergedWithPrevious", "invert": false}' fx_sentencepiece split2
	run -0 tok-encode -m split2 --no-bos -e "abab"
	[ "$output" = "263 263" ]
	FX_NORMALIZER='{"type": "NFKC"}' fx_bytelevel nfkc
	run -0 tok-encode -m nfkc --no-bos -e $'\xef\xac\x81' -e $'e\xcc\x81'	# ﬁ, e + U+0301
	[ "${lines[0]}" = "102 105" ]
	[ "${lines[1]}" = "195 169" ]
}

@test "tok-encode: a Replace normalizer with a Regex pattern" {
	local pre='{"type": "Prepend", "prepend": "\u2581"}, {"type": "Replace", "pattern": {"String": " "}, "content": "\u2581"}'
	# "abb bab" -> "aa aaa" -> "▁aa▁aaa": ▁a a ▁a a a
	FX_NORMALIZER='{"type": "Sequence", "normalizers": [{"type": "Replace", "pattern": {"Regex": "b+"}, "content": "a"}, '"$pre"']}' fx_sentencepiece rnorm
	run -0 tok-encode -m rnorm --no-bos -e "abb bab"
	[ "$output" = "262 260 262 260 260" ]
	# as Oniguruma's find_iter in tokenizers (not JavaScript's replace):
	# no empty match where the last match ended, so "aca" -> "bcb"
	FX_NORMALIZER='{"type": "Sequence", "normalizers": [{"type": "Replace", "pattern": {"Regex": "a*"}, "content": "b"}, '"$pre"']}' fx_sentencepiece rempty
	run -0 tok-encode -m rempty --no-bos -e "aca"
	[ "$output" = "259 261 102 261" ]	# ▁ b <0x63> b
	run -0 tok-encode -m rempty --no-bos -e ""	# no match in "": not "b"
	[ "$output" = "" ]
	FX_NORMALIZER='{"type": "Replace", "pattern": {"Regex": "(?<=a)b"}, "content": "a"}' fx_sentencepiece rbad
	run -1 --separate-stderr tok-encode -m rbad -e x
	[[ $stderr == *"normalizer Replace regex (?<=a)b: "*"offset"* ]]
}

@test "tok-encode: a normalized text grows to 64 times its length and 4 KiB, no more" {
	local a59 r
	a59=$(printf 'a%.0s' $(seq 59))
	r='{"type": "Replace", "pattern": {"String": "a"}, "content": "'$a59'"}'
	# 1 byte, then 59, then 3481: within the cap (64 + 4096)
	FX_NORMALIZER='{"type": "Sequence", "normalizers": ['"$r, $r"']}' fx_bytelevel grow2
	run -0 --separate-stderr tok-encode -m grow2 --no-bos -e a
	[ "$(wc -w <<<"$output")" -eq 3481 ]
	# a third step would make 205379 bytes (each step multiplying, 40 of
	# them took 5.6 GB before failing)
	FX_NORMALIZER='{"type": "Sequence", "normalizers": ['"$r, $r, $r"']}' fx_bytelevel grow3
	run -1 --separate-stderr tok-encode -m grow3 --no-bos -e a
	[ -z "$output" ]
	[[ $stderr == *"a normalized text grew past 4160 bytes, the limit for its input"* ]]
}

@test "tok-encode: an unsupported component is named" {
	sed 's/"normalizer": null/"normalizer": {"type": "Lowercase"}/' bl/tokenizer.json >lc.json
	run -1 --separate-stderr tok-encode --tokenizer lc.json x
	[[ $stderr == *"unsupported normalizer: Lowercase"* ]]
	sed 's/"type": "BPE"/"type": "WordPiece"/' bl/tokenizer.json >wp.json
	run -1 --separate-stderr tok-encode --tokenizer wp.json x
	[[ $stderr == *"unsupported model: WordPiece"* ]]
	sed 's/"type": "Digits", "individual_digits": true/"type": "Split", "pattern": {"Regex": "(?<=a)b"}, "behavior": "Isolated", "invert": false/' bl/tokenizer.json >re.json
	run -1 --separate-stderr tok-encode --tokenizer re.json -e x
	[[ $stderr == *"pre_tokenizer Split regex (?<=a)b: "*"offset"* ]]
	printf '{"model": {"vocab": {"a": 0}, "merges": ["a b"]}}' >bad.json
	run -1 --separate-stderr tok-encode --tokenizer bad.json x
	[[ $stderr == *"merge 0"* ]]
	printf '{"model": ' >trunc.json
	run -1 --separate-stderr tok-encode --tokenizer trunc.json x
	[[ $stderr == *trunc.json* ]]
}

@test "tok-encode: bytes the vocabulary lacks are dropped with a warning" {
	# a byte-level vocabulary without byte 0x04, like SmolLM2's
	sed 's/"\\u0104": 4, //' bl/tokenizer.json >hole.json
	run -0 --separate-stderr tok-encode --tokenizer hole.json --no-bos -e $'a\x04b'
	[ "$output" = "97 98" ]
	[[ $stderr == *"record 1: 1 bytes have no token"* ]]
}

@test "tok-encode | tok-decode: random byte strings round-trip (byte-level fixture)" {
	randbytes 1 3000 40 >in
	tok-encode -m bl -l <in | tok-decode -m bl --skip-special >out
	cmp in out
	# whole input as one record, NUL and newlines inside; it ends with a
	# newline, which tok-decode puts back, or without, with -n
	randbytes 2 200 200 | tr 'x' '\000' >in2
	tok-encode -m bl <in2 | tok-decode -m bl --skip-special >out2
	cmp in2 out2
	head -c -1 in2 >in3
	tok-encode -m bl <in3 | tok-decode -m bl -n --skip-special >out3
	cmp in3 out3
}

@test "tok-encode | tok-decode: random byte strings round-trip (SentencePiece fixture)" {
	# on valid UTF-8 (ByteFallback decodes invalid UTF-8 to U+FFFD, as
	# tokenizers does); Strip takes back just the space Prepend added
	randbytes 3 2000 40 | iconv -c -f UTF-8 -t UTF-8 >in
	[ "$(wc -l <in)" -eq 2000 ]
	tok-encode -m sp -l <in | tok-decode -m sp --skip-special >out
	cmp in out
}

@test "tok-encode: a closed pipe ends it quietly" {
	run -0 bash -c 'yes "the the the" | tok-encode -m bl -l 2>err | head -c1; echo " ${PIPESTATUS[1]}"; cat err'
	[ "$output" = "2 141" ]
}

@test "tok-encode: SmolLM2 golden ids, 100%" {
	need_shared
	"$TOOLS/tokgold" text "$GOLD/smollm2.jsonl" >texts
	"$TOOLS/tokgold" ids "$GOLD/smollm2.jsonl" >want
	[ "$(wc -l <want)" -eq 2674 ]
	tok-encode --tokenizer "$SMOL" -0 <texts >got 2>err
	diff want got
}

@test "tok-encode: stories260K golden ids, 100%" {
	need_shared
	"$TOOLS/tokgold" text "$GOLD/stories260K.jsonl" >texts
	"$TOOLS/tokgold" ids "$GOLD/stories260K.jsonl" >want
	[ "$(wc -l <want)" -eq 460 ]
	tok-encode --tokenizer "$STORIES" --no-bos -0 <texts >got
	diff want got
	# the post-processor adds BOS by default
	run -0 tok-encode --tokenizer "$STORIES" -e "Once upon a time"
	[[ $output == "1 "* ]]
}

@test "tok-encode: SmolLM2 known ids and round trip of random bytes" {
	need_shared
	run -0 tok-encode -m "$SHARED/models/smollm2-tokenizer" -e "The cat sat on the" -e "Once upon a time"
	[ "${lines[0]}" = "504 2644 2643 335 260" ]
	[ "${lines[1]}" = "6403 1980 253 655" ]
	# every byte SmolLM2's vocabulary has round-trips (it lacks 21 bytes:
	# 0x04 0x06 0x13 0x14 0x16 0x1d 0xc0 0xc1 0xf1-0xff)
	randbytes 4 3000 40 4,6,19,20,22,29,192,193,241,242,243,244,245,246,247,248,249,250,251,252,253,254,255 >in
	tok-encode --tokenizer "$SMOL" -l <in | tok-decode --tokenizer "$SMOL" >out
	cmp in out
}

@test "tok-encode: a TemplateProcessing id outside the vocabulary is refused at load" {
	sed -i 's/"ids": \[263\]/"ids": [99999]/' bl/tokenizer.json
	run -1 --separate-stderr tok-encode -m bl --pieces -e hi
	[[ $stderr == *"TemplateProcessing: <|endoftext|>: id 99999 is not in the vocabulary"* ]]
	[ -z "$output" ]
}

@test "tok-encode: a Split regex no hand scanner knows runs on the regex engine" {
	# [a-z]+ isolated before ByteLevel: " an" is cut into " " and "an",
	# so the merge into "Ġan" the plain fixture makes cannot happen
	run -0 tok-encode -m bl --no-bos --pieces -e 'the an'
	[ "$output" = "t he Ġan" ]
	sed 's/"type": "Digits", "individual_digits": true/"type": "Split", "pattern": {"Regex": "[a-z]+"}, "behavior": "Isolated", "invert": false/' bl/tokenizer.json >re.json
	run -0 tok-encode --tokenizer re.json --no-bos --pieces -e 'the an'
	[ "$output" = "t he Ġ an" ]
	# the same by a pattern only the engine reads
	sed 's/"type": "Digits", "individual_digits": true/"type": "Split", "pattern": {"Regex": "(?i:[A-Z])+"}, "behavior": "Isolated", "invert": false/' bl/tokenizer.json >re2.json
	run -0 tok-encode --tokenizer re2.json --no-bos --pieces -e 'the an'
	[ "$output" = "t he Ġ an" ]
}

@test "tok-encode: empty continuing_subword_prefix and end_of_word_suffix, dropout 0, are the plain BPE" {
	want=$(tok-encode -m bl --no-bos -e 'the an in')
	sed 's/"dropout": null/"dropout": 0.0/; s/"continuing_subword_prefix": null/"continuing_subword_prefix": ""/; s/"end_of_word_suffix": null/"end_of_word_suffix": ""/' bl/tokenizer.json >q.json
	run -0 tok-encode --tokenizer q.json --no-bos -e 'the an in'
	[ "$output" = "$want" ]
	for o in '"dropout": 0.1' '"continuing_subword_prefix": "##"' '"end_of_word_suffix": "</w>"'; do
		k=${o%%:*}
		sed "s|$k: [a-z0-9.]*|$o|" bl/tokenizer.json >o.json
		run -1 --separate-stderr tok-encode --tokenizer o.json -e x
		[[ $stderr == *"unsupported model option: ${k//\"/}"* ]]
	done
}
