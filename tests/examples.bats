#!/usr/bin/env bats
# examples/: each script runs as it is on the built-in stories260K model.
load helpers

setup() {
	M=$BATS_TEST_DIRNAME/../share/pipelm/stories260K
	EX=$BATS_TEST_DIRNAME/../examples
	cd "$BATS_TEST_TMPDIR"
}

# ./ssh, a stand-in for ssh HOST [--] COMMAND: COMMAND run here, the
# host noted in hosts.log
stand_in_ssh() {
	cat >ssh <<-'EOF'
	#!/bin/sh
	while [ $# -gt 0 ]; do case $1 in -[oplF]) shift 2 ;; -*) shift ;; *) break ;; esac; done
	echo "$1" >>hosts.log
	shift
	[ "${1:-}" = -- ] && shift
	# sshd sets SHELL from the password file; parallel's remote worker
	# runs the command with it, and prints nothing when it is unset
	export SHELL=/bin/sh
	exec sh -c "$*"
	EOF
	chmod +x ssh
}

# wrap/llm-gen: llm-gen, each run's arguments noted in a line of ./runs
noted_llm_gen() {
	mkdir wrap
	printf '#!/bin/sh\necho "$*" >>"%s/runs"\nexec "%s/llm-gen" "$@"\n' "$PWD" "$BIN" >wrap/llm-gen
	chmod +x wrap/llm-gen
}

@test "examples: generate.sh tells the story" {
	run -0 --separate-stderr "$EX/generate.sh" "$M"
	[[ $output == ", there was a little girl named Lily"* ]]
}

@test "examples: loop.sh gives what llm-gen gives" {
	run -0 --separate-stderr "$EX/loop.sh" "$M" "Tim"
	want=$(echo Tim | tok-encode -m "$M" | llm-gen -m "$M" -n 32 --seed 7 --temp 0.8 | tok-decode -m "$M")
	[ "$output" = "$want" ]
}

@test "examples: the scripts find the programs in ../bin without PATH" {
	run -0 --separate-stderr env -i PATH=/usr/bin:/bin HOME="$BATS_TEST_TMPDIR" sh "$EX/generate.sh"
	[[ $output == ", there was a little girl named Lily"* ]]
}

@test "examples: batch.sh labels results in input order, reports and counts failures" {
	long=$(printf 'a %.0s' $(seq 600))
	run -1 --separate-stderr "$EX/batch.sh" -n 8 "$M" <<-EOF
	Once upon a time

	The dog
	$long
	Lily
	EOF
	[ "${#lines[@]}" -eq 3 ]
	[ "${lines[0]}" = "$(printf '1\t')$(printf 'Once upon a time' | tok-encode -m "$M" | llm-gen -m "$M" -n 8 --temp 0 | tok-decode -m "$M")" ]
	[[ ${lines[1]} == "3	"* ]]
	[[ ${lines[2]} == "5	"* ]]
	[[ $stderr == *"batch.sh: prompt 2: empty prompt"* ]]
	[[ $stderr == *"batch.sh: prompt 4: prompt of 602 tokens exceeds the context"* ]]
	[[ $stderr == *"2 of 5 prompts failed"* ]]
	[ "$(grep -c . <<<"$stderr")" -eq 3 ]
	# nothing of llm-gen -v's account (the meter's), failures or not
	[[ $stderr != *"seed "* ]]
	[[ $stderr != *"kernels"* ]]
	[[ $stderr != *" ids, stop:"* ]]
}

@test "examples: batch.sh runs one llm-gen -P, a result a line (tok-decode -l)" {
	noted_llm_gen
	# 'The dog' goes on past a newline (id 13) within 50 ids
	printf 'The dog\nLily\n' >p.txt
	PATH=$PWD/wrap:$PATH run -0 --separate-stderr "$EX/batch.sh" -j 4 -n 50 "$M" <p.txt
	[ "$(wc -l <runs)" -eq 1 ]
	[[ $(cat runs) == *"-P 4"* ]]
	[ "${#lines[@]}" -eq 2 ]
	want=$(printf 'The dog' | tok-encode -m "$M" | llm-gen -m "$M" -n 50 --temp 0 | tok-decode -m "$M" -l)
	[[ $want == *'\n'* ]]
	[ "${lines[0]}" = "$(printf '1\t')$want" ]
	[[ ${lines[1]} == "2	"* ]]
}

@test "examples: batch.sh shows records done and tokens/s on a terminal" {
	need_tty
	printf 'Once upon a time\nThe dog\n' >p.txt
	run -0 script -qec "sh '$EX/batch.sh' -n 4 '$M' <p.txt >out.txt" /dev/null
	[[ $output == *"2/2 records"*"tokens/s"* ]]
	[ "$(wc -l <out.txt)" -eq 2 ]
	# the tokens llm-gen -v counts (8) over at least a second: not 0.0
	last=$(printf '%s' "$output" | tr '\r' '\n' | grep 'records, ' | tail -1)
	[[ $last == "2/2 records, "*" tokens/s" ]]
	[[ $last != *" 0.0 tokens/s" ]]
}

@test "examples: parallel.sh over two hosts (a local stand-in for ssh)" {
	need_cmd parallel
	stand_in_ssh
	long=$(printf 'a %.0s' $(seq 600))
	printf 'Once upon a time\n\nThe dog\n%s\nLily' "$long" >p.txt
	PARALLEL_SSH=$PWD/ssh run -1 --separate-stderr "$EX/parallel.sh" -S 1/h1,1/h2 -j 2 -b 2 -n 6 "$M" <p.txt
	[ "${#lines[@]}" -eq 3 ]
	for i in 1 3 5; do
		p=$(sed -n "${i}p" p.txt)
		want=$(printf '%s' "$p" | tok-encode -m "$M" | llm-gen -m "$M" -n 6 --temp 0 | tok-decode -m "$M")
		printf '%s\t%s\n' "$i" "$want"
	done >want.txt
	[ "$output" = "$(cat want.txt)" ]
	# each failure with its prompt's number, its host and its cause,
	# then counted (an empty prompt is not sent)
	[[ $stderr == *"parallel.sh: prompt 2: empty prompt"* ]]
	[[ $stderr == *"parallel.sh: prompt 4 failed on h"?": prompt of 602 tokens exceeds the context"* ]]
	[[ $stderr == *"2 of 5 prompts failed"* ]]
	[ "$(grep -c . <<<"$stderr")" -eq 3 ]
	[[ $stderr != *"prompt 1 failed"* && $stderr != *"prompt 3 failed"* ]]
	grep -qx h1 hosts.log
	grep -qx h2 hosts.log
	# the hosts from a file (--slf), the model by its repo id in the
	# hosts' HuggingFace cache (the stand-in's hosts share this one), all
	# prompts good: status 0
	printf '1/h3\n1/h4\n' >hosts.txt
	sed -n '1p;3p;5p' p.txt >good.txt
	c=0123456789abcdef0123456789abcdef01234567
	mkdir -p hub/models--org--stories/snapshots hub/models--org--stories/refs
	cp -R "$M" hub/models--org--stories/snapshots/$c
	printf '%s' $c >hub/models--org--stories/refs/main
	HF_HUB_CACHE=$PWD/hub PARALLEL_SSH=$PWD/ssh run -0 --separate-stderr "$EX/parallel.sh" --slf hosts.txt -j 2 -b 2 -n 6 org/stories <good.txt
	[ "$output" = "$(sed '2s/^3/2/; 3s/^5/3/' want.txt)" ]
	[ -z "$stderr" ]
	grep -qx h3 hosts.log
	grep -qx h4 hosts.log
}

@test "examples: parallel.sh runs a block of prompts a job, one llm-gen -P each, a result a line" {
	need_cmd parallel
	stand_in_ssh
	noted_llm_gen
	# 'The dog' goes on past a newline (id 13) within 50 ids
	printf 'The dog\nLily\nOnce upon a time\n' >p.txt
	PATH=$PWD/wrap:$PATH PARALLEL_SSH=$PWD/ssh run -0 --separate-stderr "$EX/parallel.sh" -S 1/h1,1/h2 -P 3 -b 2 -n 50 "$M" <p.txt
	[ "${#lines[@]}" -eq 3 ]
	# two blocks: two llm-gen -P 3
	[ "$(wc -l <runs)" -eq 2 ]
	[ "$(grep -c -- '-P 3 ' runs)" -eq 2 ]
	want=$(printf 'The dog' | tok-encode -m "$M" | llm-gen -m "$M" -n 50 --temp 0 | tok-decode -m "$M" -l)
	[[ $want == *'\n'* ]]
	[ "${lines[0]}" = "$(printf '1\t')$want" ]
	[[ ${lines[1]} == "2	"* && ${lines[2]} == "3	"* ]]
	[ -z "$stderr" ]
}

@test "examples: parallel.sh -T sends the model folder to each host" {
	need_cmd parallel
	need_cmd rsync
	# a stand-in ssh whose hosts are folders of their own: a command, and
	# parallel's rsync, run in H/HOST, where the model must arrive
	cat >ssh <<-'EOF'
	#!/bin/sh
	while [ $# -gt 0 ]; do case $1 in -[oplF]) shift 2 ;; -*) shift ;; *) break ;; esac; done
	h=$1
	shift
	[ "${1:-}" = -- ] && shift
	mkdir -p "$H/$h" && cd "$H/$h" || exit 255
	echo "$h" >>"$H/hosts.log"
	export SHELL=/bin/sh HOME="$H/$h"
	exec sh -c "$*"
	EOF
	chmod +x ssh
	export H=$PWD/hosts
	mkdir -p here "$H"
	cp -R "$M" here/m
	printf 'Once upon a time\nThe dog\n' >p.txt
	cd here
	PARALLEL_SSH=$BATS_TEST_TMPDIR/ssh run -0 --separate-stderr "$EX/parallel.sh" -S 1/h1,1/h2 -T -j 2 -b 1 -n 6 m <../p.txt
	[ "${lines[0]}" = "$(printf '1\t')$(printf 'Once upon a time' | tok-encode -m "$M" | llm-gen -m "$M" -n 6 --temp 0 | tok-decode -m "$M")" ]
	[ "${lines[1]}" = "$(printf '2\t')$(printf 'The dog' | tok-encode -m "$M" | llm-gen -m "$M" -n 6 --temp 0 | tok-decode -m "$M")" ]
	for h in h1 h2; do
		cmp "$H/$h/m/model.safetensors" "$M/model.safetensors"
		cmp "$H/$h/m/tokenizer.json" "$M/tokenizer.json"
	done
	run -2 --separate-stderr "$EX/parallel.sh" -T "$PWD/m" <../p.txt
	[[ $stderr == *"-T wants a folder path relative to here"* ]]
}

@test "examples: parallel.sh shows records done and tokens/s on a terminal" {
	need_cmd parallel
	need_tty
	printf 'Once upon a time\n\nThe dog\n' >p.txt
	run -1 script -qec "sh '$EX/parallel.sh' -n 4 '$M' <p.txt >out.txt" /dev/null
	# the last state of the meter: all done, the 8 tokens of the two
	# good prompts counted
	last=$(printf '%s' "$output" | tr '\r' '\n' | grep -a 'records, ' | tail -n 1)
	[[ $last == "3/3 records, 8 tokens, "[0-9]*.[0-9]" tokens/s"* ]]
	[[ $output == *"parallel.sh: prompt 2: empty prompt"* ]]
	[[ $output != *"llm-gen: model"* && $output != *"llm-gen: seed"* && $output != *" ids, stop"* ]]
	[ "$(cut -f1 out.txt)" = "$(printf '1\n3')" ]
}

# chat.sh driven through a pseudo-terminal by script(1): the turns typed
# in, its output (the echo of the typing, the replies, llm-gen -v's
# account of each turn) without carriage returns in $output
chat() {
	local input=$1
	shift
	printf '%s' "$input" >typed
	run -0 script -qec "sh '$EX/chat.sh' $* <typed" /dev/null
	output=$(tr -d '\r' <<<"$output")
}

# the greedy reply of at most $3 ids llm-gen gives to the whole prompt $2
# (ids) of model $1, as text after the prompt's, cut at $4
reply() {
	local r pre all
	r=$(llm-gen -m "$1" -n "$3" --temp 0 ${4:+--stop-text "$4"} "${@:5}" <<<"$2")
	pre=$(tok-decode -m "$1" -n --skip-special <<<"$2"; printf x)
	all=$(tok-decode -m "$1" -n --skip-special <<<"$2 $r"; printf x)
	all=${all#"${pre%x}"} all=${all%x}
	[ -z "$4" ] || all=${all%%"$4"*}
	printf '%s' "$all"
}

@test "examples: chat.sh on the built-in model: turns, the KV cache reused where the prompt grew, /reset, /temp" {
	need_tty
	chat $'Hi there\nTell me a story\n/reset\nHi there\n/temp 0.5\n/seed 3\nHi there\n/quit\nNot read\n' \
	    -v -m "'$M'" -n 20 -- --temp 0
	nl=$'\n'
	t1="User: Hi there${nl}Assistant:"
	r1=$(reply "$M" "$(tok-encode -m "$M" -e "$t1")" 20 $'\nUser:')
	t2="$t1$r1${nl}User: Tell me a story${nl}Assistant:"
	r2=$(reply "$M" "$(tok-encode -m "$M" -e "$t2")" 20 $'\nUser:')
	[ -n "$r1" ] && [ -n "$r2" ]
	[[ $output == *"${nl}${r1# }${nl}"*"${nl}${r2# }${nl}"*"${nl}${r1# }${nl}"* ]]
	# turn 2 fed only its new ids (and the last of turn 1): the prompt's
	# positions and those of the reply before its last id were kept
	n1=$(tok-encode -m "$M" -e "$t1" | wc -w)
	n2=$(tok-encode -m "$M" -e "$t2" | wc -w)
	[[ $output == *"record 1: 0 positions kept, $n1 fed, 20 ids"* ]]
	[[ $output == *"record 2: $((n1 + 19)) positions kept, $((n2 - n1 - 19)) fed, 20 ids"* ]]
	# /reset, /temp and /seed start llm-gen afresh: record 1 each time
	[ "$(grep -c 'record 1: 0 positions kept' <<<"$output")" -eq 3 ]
	[[ $output == *"seed 3"* ]]
	# /quit leaves: the line after it is not a turn
	[ "$(grep -c 'record 2: ' <<<"$output")" -eq 1 ]
	# the sampled reply of the last turn (the conversation kept) is
	# llm-gen's with that temperature and seed
	t3="$t1$r1${nl}User: Hi there${nl}Assistant:"
	r3=$(reply "$M" "$(tok-encode -m "$M" -e "$t3")" 20 $'\nUser:' --temp 0.5 --seed 3)
	[ "$r3" != "$r1" ]
	[[ $output == *"${nl}${r3# }${nl}> "* ]]
}

@test "examples: chat.sh with a chat template: SmolLM2-Instruct's, and one that rewrites history" {
	need_tty
	need_shared
	G=$SHARED/models/tiny-gqa-bf16
	chat $'Hi there\nWhat now?\n/quit\n' -v -m "'$G'" -n 8 -- --temp 0
	c1='[{"role": "user", "content": "Hi there"}]'
	p1=$(echo "$c1" | tok-encode -m "$G" --chat)
	r1=$(reply "$G" "$p1" 8)
	[[ $output == *"$r1"* ]]
	n1=$(wc -w <<<"$p1")
	[[ $output == *"record 1: 0 positions kept, $n1 fed, 8 ids"* ]]
	[[ $output == *"record 2: $((n1 + 7)) positions kept, "* ]]
	# a template that numbers the turns first: the prompt did not only
	# grow, so llm-gen starts again with all of it
	cp -r "$M" m
	printf '%s' '{{ messages|length }}{% for m in messages %} {{ m.role }}: {{ m.content }}{% endfor %} assistant:' >m/chat_template.jinja
	chat $'Hi there\nWhat now?\n/quit\n' -v -m m -n 8 -- --temp 0
	[ "$(grep -c 'record 1: 0 positions kept' <<<"$output")" -eq 2 ]
	[[ $output != *"record 2"* ]]
}

@test "examples: lens.sh names the layer where the answer appears" {
	run -0 --separate-stderr "$EX/lens.sh" "$M"
	[[ $output == "Lily from layer "[0-4]" of the lens (p "* ]]
}

@test "examples: the README's FIFO loop, as written, gives llm-gen's text on one line and leaves nothing behind" {
	R=$BATS_TEST_DIRNAME/../README.md
	snippet=$(sed -n '/^    d=\$(mktemp -d) && mkfifo/,/^    rm -r "\$d"/p' "$R" | sed 's/^    //')
	[[ $snippet == *"mkfifo"*"tok-decode -n"*"rm -r"* ]]
	mkdir here
	cd here
	run -0 --separate-stderr env TMPDIR="$BATS_TEST_TMPDIR" bash -c "$snippet"
	want=$(tok-encode <<<'Once upon a time' | llm-gen -n 32 --seed 7 | tok-decode)
	[ "$output" = "$want" ]
	[ "${#lines[@]}" -eq 1 ]
	[ -z "$(ls -A)" ]
	[ -z "$(find "$BATS_TEST_TMPDIR" -type p)" ]
	# the sections that name the programs bare say how to put bin/ on
	# the PATH first
	p=$(grep -n '^    export PATH="$PWD/bin:$PATH"$' "$R" | cut -d: -f1)
	b=$(grep -n '^    echo .* | tok-encode' "$R" | head -n 1 | cut -d: -f1)
	[ -n "$p" ] && [ -n "$b" ] && [ "$p" -lt "$b" ]
}

@test "examples: the README maps llama.cpp's flags to pipelm's, and those flags work" {
	R=$BATS_TEST_DIRNAME/../README.md
	grep -q '^## Coming from llama.cpp' "$R"
	for f in '`-c N`, `--ctx-size N`' '`-s N`, `--seed N`' '`-n N`, `--n-predict N`, `-n -1`' \
	    '`--no-display-prompt`' '`-r TEXT`, `--reverse-prompt TEXT`' '`-f FILE`'; do
		grep -qF "| $f" "$R" || { echo "no row for $f"; false; }
	done
	want=$(llm-text -n 8 --temp 0 -c 64 Once upon a time)
	run -0 llm-text --n-predict 8 --temperature 0 --ctx-size 64 -p 'Once upon a time'
	[ "$output" = "$want" ]
}
