#!/bin/sh
# A conversation over the filters: each turn the whole history is rendered
# again (tok-encode --chat, the model's chat template) and only the ids
# beyond what llm-gen -s (session mode) has already run are sent to it, so
# its KV cache is reused wherever the rendered prompt only grew; where it
# did not (the template rewrote history, a reply re-encodes differently),
# llm-gen is restarted with the whole prompt.
#   examples/chat.sh [-v] [-m MODEL] [-s SYSTEM] [-n N] [-- llm-gen option ...]
# Lines are your turns; commands:
#   /temp T   sampling temperature (0: greedy)     /seed S   the seed
#   /reset    forget the conversation              /quit     leave (or EOF)
# /temp and /seed restart llm-gen, so the next turn feeds the whole
# conversation again.  A model without a chat template (the built-in
# stories260K) gets a plain one: "User: ...", "Assistant: ..." lines, the
# reply stopped at "\nUser:" (llm-gen --stop-text).  -v shows llm-gen's
# account of each turn on stderr: "N positions kept, M fed".
set -eu
command -v llm-gen >/dev/null || PATH=$(cd "$(dirname "$0")" && pwd)/../bin:$PATH

verbose= model= system= maxnew=256
while getopts vm:s:n: c; do
	case $c in
	v) verbose=-v ;;
	m) model=$OPTARG ;;
	s) system=$OPTARG ;;
	n) maxnew=$OPTARG ;;
	*) echo "usage: $0 [-v] [-m model] [-s system] [-n max-new] [-- llm-gen option ...]" >&2
	   exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ -z "$model" ] || export PIPELM_MODEL="$model"

dir=$(mktemp -d)
pid=
trap 'stop; rm -rf "$dir"' EXIT
trap 'exit 130' INT TERM
mkfifo "$dir/in" "$dir/out"

# A JSON string of stdin (bytes; control characters escaped).
json_str() {
	LC_ALL=C awk 'BEGIN { for (i = 1; i < 32; i++) m[sprintf("%c", i)] = sprintf("\\u%04x", i)
		m["\""] = "\\\""; m["\\"] = "\\\\"; printf "\"" }
	{ o = ""; for (i = 1; i <= length($0); i++) { c = substr($0, i, 1); o = o ((c in m) ? m[c] : c) }
	  printf "%s%s", (NR > 1 ? "\\n" : ""), o }
	END { printf "\"" }'
}

if echo '[{"role": "user", "content": "x"}]' | tok-encode --chat --render >/dev/null 2>&1; then
	plain=
else
	plain=1
	set -- --stop-text "
User:" "$@"
fi

temp= seed= fed= msgs= text=
reset() {
	msgs= text=
	[ -z "$system" ] || {
		msgs="{\"role\": \"system\", \"content\": $(printf '%s' "$system" | json_str)}"
		text="$system
"
	}
}

# llm-gen -s reading records from fd 3, writing them to fd 4
start() {
	llm-gen -s $verbose -n "$maxnew" "$@" ${temp:+--temp "$temp"} \
	    ${seed:+--seed "$seed"} <"$dir/in" >"$dir/out" &
	pid=$!
	exec 3>"$dir/in" 4<"$dir/out"
	fed=
}
stop() {
	[ -n "$pid" ] || return 0
	exec 3>&- 4<&-
	wait "$pid" || :
	pid=
}

# the text of ids $1, an x after it (kept by $(...), unlike newlines)
decode() {
	printf '%s\n' "$1" | tok-decode -n --skip-special
	printf x
}

reset
start "$@"
while :; do
	printf '> '
	IFS= read -r line || { echo; break; }
	case $line in
	/quit) break ;;
	/reset) reset; stop; start "$@"; continue ;;
	/temp\ *|/seed\ *)
		case ${line#/* } in
		''|*[!0-9.]*) echo "${line%% *}: not a number" >&2; continue ;;
		esac
		case $line in
		/temp*) temp=${line#/temp } ;;
		*) seed=${line#/seed } ;;
		esac
		stop; start "$@"; continue ;;
	/*) echo "commands: /temp T, /seed S, /reset, /quit" >&2; continue ;;
	'') continue ;;
	esac
	# the whole conversation, rendered as it is now
	if [ -n "$plain" ]; then
		text="${text}User: $line
"
		ids=$(tok-encode -e "${text}Assistant:")
	else
		u="{\"role\": \"user\", \"content\": $(printf '%s' "$line" | json_str)}"
		msgs="${msgs:+$msgs, }$u"
		ids=$(echo "[$msgs]" | tok-encode --chat)
	fi
	case $ids in
	"$fed "*) [ -n "$fed" ] && new=${ids#"$fed "} || new=$ids ;;
	*) [ -z "$fed" ] || { stop; start "$@"; }; new=$ids ;;
	esac
	printf '%s\n' "$new" >&3
	IFS= read -r reply <&4 || { echo "llm-gen failed" >&2; exit 1; }
	fed="$ids${reply:+ $reply}"
	# the reply's text as it reads after the prompt (a record's first
	# token may decode differently: Metaspace drops its space)
	pre=$(decode "$ids") all=$(decode "$fed")
	said=${all#"${pre%x}"} said=${said%x}
	if [ -n "$plain" ]; then
		said=${said%%"
User:"*}
		text="${text}Assistant:$said
"
	else
		msgs="$msgs, {\"role\": \"assistant\", \"content\": $(printf '%s' "$said" | json_str)}"
	fi
	printf '%s\n' "${said# }"
done
