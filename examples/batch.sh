#!/bin/sh
# Batch generation on this machine: one continuation per line of input,
# JOBS prompts at a time (xargs -P), the processes sharing the mapped
# weights.  Each result comes out in input order, every line of it
# labelled with its prompt's line number and a tab; a prompt that fails
# (an empty line, one longer than the context) is reported on stderr with
# its line number, the others go on, and the count of failures ends the
# run (exit 1 if there were any).  On a terminal, stderr shows the
# records done and the tokens generated per second.
#   examples/batch.sh [-j JOBS] [-n TOKENS] [MODEL] < prompts.txt
# MODEL: a folder or repo id; default $PIPELM_MODEL, else the built-in one.
set -eu
command -v llm-gen >/dev/null || PATH=$(cd "$(dirname "$0")" && pwd)/../bin:$PATH
jobs=2 ntok=32
while getopts j:n: o; do
	case $o in
	j) jobs=$OPTARG ;;
	n) ntok=$OPTARG ;;
	*) echo "usage: $0 [-j jobs] [-n tokens] [model] < prompts" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 0 ] || export PIPELM_MODEL="$1"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT INT TERM

# the prompts, one file each (a last line without its newline counts)
total=0
while IFS= read -r line || [ -n "$line" ]; do
	total=$((total + 1))
	printf '%s' "$line" >"$dir/$total.in"
done
[ "$total" -gt 0 ] || exit 0

# progress: records done and tokens/s, from llm-gen -v's account
progress() {
	start=$(date +%s) last=
	while :; do
		[ ! -e "$dir/all" ] || last=1
		done=$(cat "$dir"/*.rc 2>/dev/null | wc -l)
		cat "$dir"/*.err 2>/dev/null | awk -v done="$done" -v total="$total" \
		    -v t=$(($(date +%s) - start)) '
		    /^llm-gen: .*record [0-9]+: [0-9]+ ids, stop:/ {
			n = $0; sub(/ ids, stop:.*/, "", n); sub(/.* /, "", n)
			tok += n }
		    END { printf "\r%d/%d records, %.1f tokens/s", done, total,
			tok / (t < 1 ? 1 : t) }' >&2
		[ -z "$last" ] || break
		sleep 1
	done
	echo >&2
}
if [ -t 2 ]; then progress & meter=$!; fi

seq 1 "$total" | xargs -P "$jobs" -I{} sh -c \
	'llm-text -v --no-echo -t 1 -n "$2" --temp 0 -f "$1/$0.in" \
	    >"$1/$0.out" 2>"$1/$0.err"; echo $? >"$1/$0.rc"' {} "$dir" "$ntok"
touch "$dir/all"
[ -z "${meter:-}" ] || wait "$meter"

failed=0 i=0
while [ "$i" -lt "$total" ]; do
	i=$((i + 1))
	if [ "$(cat "$dir/$i.rc")" = 0 ]; then
		awk -v n="$i" '{ print n "\t" $0 } END { if (!NR) print n "\t" }' "$dir/$i.out"
	else
		failed=$((failed + 1))
		# less llm-gen -v's account: its model line, seed, prompt line
		grep -Ev '^llm-gen: (model .*, kernels |seed [0-9]+$|.*record [0-9]+: [0-9]+ ids, stop:)' "$dir/$i.err" |
			sed "s/^/batch.sh: prompt $i: /" >&2
	fi
done
if [ "$failed" -gt 0 ]; then
	echo "batch.sh: $failed of $total prompts failed" >&2
	exit 1
fi
