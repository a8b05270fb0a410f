#!/bin/sh
# Batch generation over many hosts with GNU parallel: one continuation per
# line of input, each prompt run by llm-text on one of the hosts, the
# results written in input order (parallel -k), every line of a result
# labelled with its prompt's line number and a tab.  A prompt that fails
# is reported with its line number and host and counted; the run ends
# with the count (exit 1 if any failed).  On a terminal, stderr shows the
# records done (written out, in input order), the tokens generated and
# the tokens per second, from llm-gen -v's account of each.
#   examples/parallel.sh [-S HOSTS | --slf FILE] [-j JOBS] [-n TOKENS] MODEL < prompts
# HOSTS and FILE are parallel's (-S 2/host1,host2, ':' for this machine);
# each host needs pipelm on its PATH and MODEL: a repo id found in its
# HuggingFace cache (llm-fetch MODEL there first), or a folder path that
# exists on every host.  With -T and a relative folder path, parallel
# copies the folder to each host first (--basefile, over rsync).
# $PARALLEL_SSH is the ssh parallel uses (a stand-in in the tests).
set -eu
command -v llm-gen >/dev/null || PATH=$(cd "$(dirname "$0")" && pwd)/../bin:$PATH
hosts='' jobs=1 ntok=32 transfer=''
while [ $# -gt 0 ]; do
	case $1 in
	-S|--sshlogin) hosts="$hosts -S $2"; shift 2 ;;
	--slf|--sshloginfile) hosts="$hosts --slf $2"; shift 2 ;;
	-j) jobs=$2; shift 2 ;;
	-n) ntok=$2; shift 2 ;;
	-T) transfer=1; shift ;;
	-*) echo "usage: $0 [-S hosts | --slf file] [-j jobs] [-n tokens] [-T] model < prompts" >&2; exit 2 ;;
	*) break ;;
	esac
done
[ $# -eq 1 ] || { echo "usage: $0 [-S hosts | --slf file] [-j jobs] [-n tokens] [-T] model < prompts" >&2; exit 2; }
model=$1
[ -n "$hosts" ] || hosts="-S :"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT INT TERM
log=$dir/log
cat >"$dir/in"
total=$(wc -l <"$dir/in")
[ -z "$(tail -c 1 "$dir/in")" ] || total=$((total + 1))
set -- --will-cite -k -j "$jobs" --joblog "$log" --tagstring '{#}' -a "$dir/in"
if [ -n "$transfer" ]; then
	case $model in
	/*) echo "$0: -T wants a folder path relative to here" >&2; exit 2 ;;
	esac
	set -- "$@" --basefile "$model"
fi
tty=0 verbose=''
[ ! -t 2 ] || tty=1 verbose=1
# The jobs' stderr, each line tagged with its prompt's number, through a
# filter: llm-gen -v's lines (asked for on a terminal only) counted for
# the meter and dropped, the rest (the failures' messages) passed on.
# srand() returns the previous seed, the time of day once seeded so.
# $hosts is split into words on purpose: "-S a -S b"
# shellcheck disable=SC2086
{ { parallel "$@" $hosts llm-text ${verbose:+-v} --no-echo \
	-t 1 -n "$ntok" --temp 0 -m "$model" -p {}; echo $? >"$dir/status"; } 2>&1 >&3 3>&- |
	awk -v tty="$tty" -v total="$total" '
	function meter() {
		if (!tty) return
		srand(); t = srand() - t0
		printf "\r%d/%d records, %d tokens, %.1f tokens/s\033[K", n, total, tok,
		    tok / (t < 1 ? 1 : t)
	}
	BEGIN { srand(); t0 = srand(); meter() }
	{
		tag = $0; sub(/\t.*/, "", tag)
		if (tag ~ /^[0-9]+$/ && !(tag in seen)) { seen[tag] = 1; n++ }
		if ($0 ~ /^[0-9]+\tllm-gen: <stdin>: record [0-9]+: [0-9]+ ids/) {
			split($0, w, " "); tok += w[6]
		} else if ($0 !~ /^[0-9]+\tllm-gen: (model |seed )/) {
			if (tty) printf "\r\033[K"
			print
		}
		meter()
		fflush()
	}
	END { if (tty) { n = total; meter(); printf "\n" } }' >&2; } 3>&1
status=$(cat "$dir/status" 2>/dev/null) || status=1
# the job log: Seq Host Starttime JobRuntime Send Receive Exitval Signal Command
awk -F '\t' 'NR > 1 && ($7 != 0 || $8 != 0) {
	printf "parallel.sh: prompt %d failed on %s (exit %d, signal %d)\n", $1, $2, $7, $8
	n++ }
    NR > 1 { total++ }
    END { if (n) printf "parallel.sh: %d of %d prompts failed\n", n, total }' "$log" >&2
[ "$status" -eq 0 ] || exit 1
