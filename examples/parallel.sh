#!/bin/sh
# Batch generation over many hosts with GNU parallel: one continuation per
# line of input, each prompt run by llm-text on one of the hosts, the
# results written in input order (parallel -k), every line of a result
# labelled with its prompt's line number and a tab.  A prompt that fails
# is reported with its line number and host and counted; the run ends
# with the count (exit 1 if any failed).  On a terminal, parallel's
# progress bar shows the records done.
#   examples/parallel.sh [-S HOSTS | --slf FILE] [-j JOBS] [-n TOKENS] MODEL < prompts
# HOSTS and FILE are parallel's (-S 2/host1,host2, ':' for this machine);
# each host needs pipelm on its PATH and MODEL: a repo id found in its
# HuggingFace cache (llm-fetch MODEL there first), or a folder path that
# exists on every host.  With -T and a relative folder path, parallel
# copies the folder to each host first (--basefile, over rsync).
# $PARALLEL_SSH is the ssh parallel uses (a stand-in in the tests).
set -eu
command -v llm-gen >/dev/null || PATH=$(cd "$(dirname "$0")" && pwd)/../bin:$PATH
hosts= jobs=1 ntok=32 transfer=
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
log=$(mktemp)
trap 'rm -f "$log"' EXIT INT TERM
set -- --will-cite -k -j "$jobs" --joblog "$log" --tagstring '{#}'
if [ -n "$transfer" ]; then
	case $model in
	/*) echo "$0: -T wants a folder path relative to here" >&2; exit 2 ;;
	esac
	set -- "$@" --basefile "$model"
fi
[ ! -t 2 ] || set -- "$@" --bar
status=0
# $hosts is split into words on purpose: "-S a -S b"
# shellcheck disable=SC2086
parallel "$@" $hosts llm-text --no-echo -t 1 -n "$ntok" --temp 0 -m "$model" -p {} || status=$?
# the job log: Seq Host Starttime JobRuntime Send Receive Exitval Signal Command
awk -F '\t' 'NR > 1 && ($7 != 0 || $8 != 0) {
	printf "parallel.sh: prompt %d failed on %s (exit %d, signal %d)\n", $1, $2, $7, $8
	n++ }
    NR > 1 { total++ }
    END { if (n) printf "parallel.sh: %d of %d prompts failed\n", n, total }' "$log" >&2
[ "$status" -eq 0 ] || exit 1
