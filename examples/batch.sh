#!/bin/sh
# Batch generation on this machine: one continuation per line of input,
# up to JOBS prompts at a time in one llm-gen (-P JOBS: each pass of the
# weights serves them all, where xargs -P would run a process a prompt,
# each reading all the weights for each of its ids).  Each result is one
# line, in input order, labelled with its prompt's line number and a
# tab, a newline in its text written as \n and a backslash as \\
# (tok-decode -l; printf %b gives the text back).  A prompt that fails
# (an empty line, one longer than the context) is reported on stderr
# with its line number, the others go on (llm-gen -k), and the count of
# failures ends the run (exit 1 if there were any).  On a terminal,
# stderr shows the records done and the tokens generated per second.
#   examples/batch.sh [-j JOBS] [-n TOKENS] [MODEL] < prompts.txt
# MODEL: a folder or repo id; default $PIPELM_MODEL, else the built-in one.
set -eu
command -v llm-gen >/dev/null || PATH=$(cd "$(dirname "$0")" && pwd)/../bin:$PATH
jobs=8 ntok=32
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

# the prompts (a last line without its newline counts, as tok-encode -l
# takes it)
cat >"$dir/in"
total=$(awk 'END { print NR }' "$dir/in")
[ "$total" -gt 0 ] || exit 0
tty=''
[ ! -t 2 ] || tty=1

# llm-gen's stderr through a filter: each failure said with its prompt's
# number (and noted in $dir/failed), llm-gen -v's account (asked for on
# a terminal only) counted for the meter and dropped.  srand() returns
# the previous seed, the time of day once seeded so.
# An empty line is an empty record (not a BOS alone), which llm-gen
# refuses: an empty prompt.
{ { tok-encode -l "$dir/in" |
    awk 'NR == FNR { e[FNR] = $0 == ""; next } { print e[FNR] ? "" : $0 }' "$dir/in" - |
    llm-gen ${tty:+-v} -k -P "$jobs" -n "$ntok" --temp 0; echo $? >"$dir/status"; } |
    tok-decode -l >"$dir/out"; } 2>&1 |
awk -v tty="${tty:-0}" -v total="$total" -v failed="$dir/failed" '
	function meter() {
		if (!tty) return
		srand(); t = srand() - t0
		printf "\r%d/%d records, %.1f tokens/s", n, total,
		    tok / (t < 1 ? 1 : t)
	}
	BEGIN { srand(); t0 = srand(); meter() }
	/^llm-gen: (model |seed [0-9]+$|batch of |KV cache peak |[0-9]+ of [0-9]+ records failed$)/ { next }
	/^llm-gen: .*: record [0-9]+: / {
		no = $0; sub(/^llm-gen: .*: record /, "", no); sub(/:.*/, "", no)
		msg = $0; sub(/^llm-gen: .*: record [0-9]+: /, "", msg)
		if (msg ~ /^[0-9]+ ids, stop:/) {
			split(msg, w, " "); tok += w[1]; n++; meter(); next
		}
		if (tty) printf "\r\033[K"
		print "batch.sh: prompt " no ": " msg
		if (msg !~ /^context of [0-9]+ positions is full$/) {
			print no >failed; n++
		}
		meter(); fflush(); next
	}
	{ if (tty) printf "\r\033[K"; print; meter(); fflush() }
	END { if (tty) { n = total; meter(); printf "\n" } }' >&2

# the results labelled, those of the failed prompts left out
touch "$dir/failed"
awk -v failed="$dir/failed" 'BEGIN { while ((getline l <failed) > 0) bad[l] = 1 }
    !(NR in bad) { print NR "\t" $0 }' "$dir/out"
nf=$(wc -l <"$dir/failed")
if [ "$nf" -gt 0 ]; then
	echo "batch.sh: $nf of $total prompts failed" >&2
	exit 1
fi
[ "$(cat "$dir/status" 2>/dev/null)" = 0 ] || exit 1
