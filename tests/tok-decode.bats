#!/usr/bin/env bats
# tok-decode: usage, files, framing, decoders, streaming, golden files.

load helpers
load tok_fixtures

@test "tok-decode: usage" {
	run -2 --separate-stderr tok-decode --bogus
	[[ $stderr == *usage:* ]]
	[ -z "$output" ]
	run -0 --separate-stderr tok-decode -h
	[[ $output == usage:* ]]
	run -0 tok-decode --version
	[ -n "$output" ]
}

@test "tok-decode: a missing file is named, the others still decoded" {
	echo "116 257" >a
	run -1 --separate-stderr tok-decode -m bl nosuch a
	[[ $stderr == *nosuch* ]]
	[ "$output" = "the" ]
	run -1 --separate-stderr tok-decode --tokenizer nosuch.json a
	[[ $stderr == *nosuch.json* ]]
}

@test "tok-decode: stdin, - and a file give the same text" {
	echo "263 116 257 258" >ids
	run -0 tok-decode -m bl --skip-special ids
	[ "$output" = "the the" ]
	run -0 tok-decode -m bl --skip-special - <ids
	[ "$output" = "the the" ]
	run -0 tok-decode -m bl --skip-special <ids
	[ "$output" = "the the" ]
	run -0 tok-decode -m bl <ids
	[ "$output" = "<|endoftext|>the the" ]
}

@test "tok-decode: record separators, -0, -n, --pieces, --ids=u32" {
	run -0 bash -c 'printf "116 257\n\n258\n" | tok-decode -m bl | od -An -c | tr -s " "'
	[ "$output" = " t h e \n \n t h e \n" ]
	run -0 bash -c 'printf "116 257\n258\n" | tok-decode -m bl -0 | od -An -c | tr -s " "'
	[ "$output" = " t h e \0 t h e \0" ]
	run -0 bash -c 'printf "116 257\n258\n" | tok-decode -m bl -n'
	[ "$output" = "the the" ]
	# -n: one text, one id per record: no Strip at each record, and a
	# character split across records comes out whole
	run -0 bash -c 'printf "1\n264\n264\n233\n154\n168\n" | tok-decode -m sp -n --skip-special'
	[ "$output" = "ab ab日" ]
	run -0 bash -c 'printf "1\n264\n264\n" | tok-decode -m sp --skip-special'
	[ "$output" = $'\nab\nab' ]
	run -0 bash -c 'printf "258 32 259\n10 92\n" | tok-decode -m bl --pieces'
	[ "${lines[0]}" = "Ġthe Ġ in" ]
	[ "${lines[1]}" = 'Ċ \\' ]
	run -0 bash -c 'tok-encode -m bl --ids=u32 -e "the" -e "" -e " in" | tok-decode -m bl --ids=u32 --skip-special'
	[ "$output" = $'the\n\n in' ]
	# a record without its final newline still ends at the end of input
	run -0 bash -c 'printf "116 257" | tok-decode -m bl'
	[ "$output" = "the" ]
}

@test "tok-decode: -l keeps each record's text to one line, newlines and backslashes escaped" {
	# 10 is a newline, 92 a backslash: without -l the first record's
	# text takes two lines
	printf '116 257 10 92\n\n258 10\n' >ids
	run -0 tok-decode -m bl -l ids
	mapfile -t l <<<"$output"	# $lines leaves out the empty ones
	[ "${#l[@]}" -eq 3 ]
	[ "${l[0]}" = 'the\n\\' ]
	[ "${l[1]}" = '' ]
	[ "${l[2]}" = ' the\n' ]
	[ "$(tok-decode -m bl --lines <ids | wc -l)" -eq 3 ]
	# printf %b gives the text back
	[ "$(printf '%b' "${l[0]}")" = "$(printf '116 257 10 92\n' | tok-decode -m bl)" ]
	# the last of -0, -l and -n wins
	run -0 bash -c 'tok-decode -m bl -0 -l ids | od -An -c | tr -s " "'
	[ "$output" = " t h e \\ n \\ \\ \n \n t h e \\ n \n" ]
	run -0 bash -c 'tok-decode -m bl -l -0 ids | od -An -c | tr -s " "'
	[ "$output" = " t h e \n \\ \0 \0 t h e \n \0" ]
}

@test "tok-decode: -l after llm-gen -P: one line per prompt, in input order" {
	# echoed prompts holding newlines (13 is the built-in model's), of
	# different lengths, so that records end at different steps
	printf '1 403 13 425\n1 13 13\n\n1 403 427 289 13 403\n1 289 13\n' >p
	run -1 --separate-stderr bash -c 'set -o pipefail; llm-gen -e -k -P 3 -n 6 --temp 0 <p | tok-decode -l'
	mapfile -t l <<<"$output"
	[ "${#l[@]}" -eq 5 ]
	[ -z "${l[2]}" ]
	[[ $stderr == *"record 3: empty prompt"* ]]
	for i in 1 2 4 5; do
		want=$(sed -n "${i}p" p | llm-gen -e -n 6 --temp 0 | tok-decode -l)
		[ "${l[i - 1]}" = "$want" ]
		[[ $want == *'\n'* ]]
	done
}

@test "tok-decode: an id outside the vocabulary names it and its record" {
	run -1 --separate-stderr bash -c 'printf "116\n116 267\n" | tok-decode -m bl'
	[[ $stderr == *"record 2"*"267"* ]]
	run -1 --separate-stderr bash -c 'printf "116 x\n" | tok-decode -m bl'
	[[ $stderr == *"record 1"* ]]
	run -1 --separate-stderr bash -c 'printf "99999999999\n" | tok-decode -m bl'
	[[ $stderr == *"record 1"* ]]
	run -1 --separate-stderr bash -c 'printf "\002\000\000\000\001\000\000\000" | tok-decode -m bl --ids=u32'
	[[ $stderr == *truncated* ]]
}

@test "tok-decode: SentencePiece decoders: Replace, ByteFallback, Fuse, Strip, Metaspace" {
	run -0 bash -c 'echo "1 264 264" | tok-decode -m sp'
	[ "$output" = "<s> ab ab" ]
	run -0 bash -c 'echo "1 264 264" | tok-decode -m sp --skip-special'
	[ "$output" = "ab ab" ]
	run -0 bash -c 'echo "259 233 154 168 259 102" | tok-decode -m sp'
	[ "$output" = "日 c" ]
	# a special token ends a byte run; a long run stays whole
	run -0 bash -c 'echo "260 233 154 168 1 260" | tok-decode -m sp'
	[ "$output" = "a日<s>a" ]
	run -0 bash -c 'for i in $(seq 40); do printf "233 154 168 "; done; echo'
	run -0 bash -c "echo '$output' | tok-decode -m sp"
	[ "$output" = "日日日日日日日日日日日日日日日日日日日日日日日日日日日日日日日日日日日日日日日日" ]
	# an invalid byte run becomes one U+FFFD per byte
	run -0 bash -c 'echo "260 233 154 260" | tok-decode -m sp'
	[ "$output" = "a��a" ]
	FX_NORMALIZER=null FX_PRE='{"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always", "split": true}' FX_DECODER='{"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always", "split": true}' fx_sentencepiece meta
	run -0 bash -c 'echo "264 264 259 261" | tok-decode -m meta'
	[ "$output" = "ab ab b" ]	# Metaspace drops ▁ in the first token
}

@test "tok-decode: a Replace decoder with a Regex pattern, token by token" {
	# ▁ or an a before b: "▁a" -> " a", "ab" -> " b", "a" alone stays
	FX_DECODER='{"type": "Sequence", "decoders": [{"type": "Replace", "pattern": {"Regex": "a(?=b)|\u2581"}, "content": " "}, {"type": "ByteFallback"}, {"type": "Fuse"}, {"type": "Strip", "content": " ", "start": 1, "stop": 0}]}' fx_sentencepiece rdec
	run -0 bash -c 'echo "262 263 260" | tok-decode -m rdec'
	[ "$output" = "a ba" ]
	FX_DECODER='{"type": "Replace", "pattern": {"Regex": "(?<=a)b"}, "content": " "}' fx_sentencepiece rbad
	run -1 --separate-stderr tok-decode -m rbad </dev/null
	[[ $stderr == *"decoder Replace regex (?<=a)b: "* ]]
}

@test "tok-decode: text leaves id by id, not at the end of the line" {
	coproc DEC { tok-decode -m bl; }
	pid=$DEC_PID	# bash unsets DEC_PID once the coprocess has ended
	printf '116 ' >&"${DEC[1]}"
	read -r -N 1 -t 20 c <&"${DEC[0]}"
	[ "$c" = t ]
	printf '257 258' >&"${DEC[1]}"	# 258 is not complete before a space
	read -r -N 2 -t 20 c <&"${DEC[0]}"
	[ "$c" = "he" ]
	printf ' 195 169 ' >&"${DEC[1]}"	# é in two tokens
	read -r -N 6 -t 20 c <&"${DEC[0]}"
	[ "$c" = " theé" ]
	printf '\n' >&"${DEC[1]}"
	read -r -N 1 -t 20 c <&"${DEC[0]}"
	[ "$c" = $'\n' ]
	eval "exec ${DEC[1]}>&-"
	wait "$pid"
}

@test "tok-decode: a closed pipe ends it quietly" {
	run -0 bash -c 'yes "116 257" | tok-decode -m bl 2>err | head -c1; echo " ${PIPESTATUS[1]}"; cat err'
	[ "$output" = "t 141" ]
}

@test "tok-decode: SmolLM2 golden ids decode to their text" {
	need_shared
	"$TOOLS/tokgold" ids "$GOLD/smollm2.jsonl" >ids
	# HuggingFace drops the bytes SmolLM2 has no token for (two texts
	# hold some); everything else comes back
	"$TOOLS/tokgold" text "$GOLD/smollm2.jsonl" | tr -d '\004\006\023\024\026\035' >want
	tok-decode --tokenizer "$SMOL" -0 <ids >got
	cmp want got
	[ "$(tr -cd '\000' <got | wc -c)" -eq 2674 ]
}

@test "tok-decode: stories260K golden ids decode to their text" {
	need_shared
	"$TOOLS/tokgold" ids "$GOLD/stories260K.jsonl" >ids
	"$TOOLS/tokgold" text "$GOLD/stories260K.jsonl" >want
	tok-decode --tokenizer "$STORIES" -0 <ids >got
	cmp want got
	[ "$(tr -cd '\000' <got | wc -c)" -eq 460 ]
}

@test "tok-decode: a Metaspace decoder whose replacement is not one character is refused" {
	for r in '' 'ab'; do
		FX_DECODER="{\"type\": \"Metaspace\", \"replacement\": \"$r\", \"prepend_scheme\": \"always\", \"split\": true}" \
		    fx_sentencepiece msp
		run -1 --separate-stderr timeout 10 tok-decode -m msp <<<"1 260 261"
		[[ $stderr == *"Metaspace decoder: replacement '$r' is not one character"* ]]
	done
}
