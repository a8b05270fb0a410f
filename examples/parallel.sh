#!/bin/sh
# Batch generation over many hosts with GNU parallel: one continuation per
# line of input.  The prompts go to the hosts in blocks (-b, 32 lines),
# each block run on one host by one llm-gen -P N (-P, 8: each pass of the
# weights serves N prompts there); the results are written in input
# order, one line each (tok-decode -l: a newline in a text written as \n,
# a backslash as \\), labelled with the prompt's line number and a tab.
# A prompt that fails is reported with its line number (and host) and
# counted; the run ends with the count (exit 1 if any failed).  On a
# terminal, stderr shows the records done, the tokens generated and the
# tokens per second, from llm-gen -v's account of each.
#   examples/parallel.sh [-S HOSTS | --slf FILE] [-j JOBS] [-P N] [-b LINES]
#                        [-n TOKENS] [-T] MODEL < prompts
# HOSTS and FILE are parallel's (-S 2/host1,host2, ':' for this machine;
# JOBS, 1, is the blocks run at once on a host without a count of its
# own); each host needs pipelm on its PATH and MODEL: a repo id found in
# its HuggingFace cache (llm-fetch MODEL there first), or a folder path
# that exists on every host.  With -T and a relative folder path,
# parallel copies the folder to each host first (--basefile, over rsync).
# $PARALLEL_SSH is the ssh parallel uses (a stand-in in the tests).
set -eu
command -v llm-gen >/dev/null || PATH=$(cd "$(dirname "$0")" && pwd)/../bin:$PATH
usage="usage: $0 [-S hosts | --slf file] [-j jobs] [-P n] [-b lines] [-n tokens] [-T] model < prompts"
hosts='' jobs=1 par=8 block=32 ntok=32 transfer=''
while [ $# -gt 0 ]; do
	case $1 in
	-S|--sshlogin) hosts="$hosts -S $2"; shift 2 ;;
	--slf|--sshloginfile) hosts="$hosts --slf $2"; shift 2 ;;
	-j) jobs=$2; shift 2 ;;
	-P) par=$2; shift 2 ;;
	-b) block=$2; shift 2 ;;
	-n) ntok=$2; shift 2 ;;
	-T) transfer=1; shift ;;
	-*) echo "$usage" >&2; exit 2 ;;
	*) break ;;
	esac
done
[ $# -eq 1 ] || { echo "$usage" >&2; exit 2; }
case $block in ''|*[!0-9]*|0) echo "$0: -b $block: not a positive number" >&2; exit 2 ;; esac
model=$1
[ -n "$hosts" ] || hosts="-S :"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT INT TERM
log=$dir/log
cat >"$dir/in"
total=$(awk 'END { print NR }' "$dir/in")
[ "$total" -gt 0 ] || exit 0
# The non-empty prompts are sent ($dir/sent), $dir/map their line
# numbers; an empty one fails here (tok-encode -l would make it a BOS).
awk -v map="$dir/map" -v bad="$dir/failed" -v sent="$dir/sent" '
	$0 == "" { print NR >bad; print "parallel.sh: prompt " NR ": empty prompt" >"/dev/stderr"; next }
	{ print NR >map; print >sent }' "$dir/in"
touch "$dir/map" "$dir/sent" "$dir/failed"
set -- --will-cite --pipe -N "$block" -k -j "$jobs" --joblog "$log" --tagstring '{#}'
if [ -n "$transfer" ]; then
	case $model in
	/*) echo "$0: -T wants a folder path relative to here" >&2; exit 2 ;;
	esac
	set -- "$@" --basefile "$model"
fi
tty=0 verbose=''
[ ! -t 2 ] || tty=1 verbose=1
# The jobs' stderr, each line tagged with its block's number, through a
# filter: llm-gen -k's failures said with their prompt's number (and
# noted, with the block, in $dir/failed.b), llm-gen -v's account (asked
# for on a terminal only) counted for the meter and dropped, the rest
# passed on.  srand() returns the previous seed, the time of day once
# seeded so.  $hosts is split into words on purpose: "-S a -S b"
# shellcheck disable=SC2086
{ parallel "$@" $hosts "tok-encode -l -m '$model' |
	llm-gen ${verbose:+-v} -k -P $par -n $ntok --temp 0 -m '$model' |
	tok-decode -l -m '$model'" <"$dir/sent" >"$dir/out"; echo $? >"$dir/status"; } 2>&1 |
	awk -v tty="$tty" -v total="$total" -v b="$block" -v map="$dir/map" \
	    -v failed="$dir/failed.b" -v n0="$(wc -l <"$dir/failed")" '
	function meter() {
		if (!tty) return
		srand(); t = srand() - t0
		printf "\r%d/%d records, %d tokens, %.1f tokens/s\033[K", n, total, tok,
		    tok / (t < 1 ? 1 : t)
	}
	BEGIN { while ((getline l <map) > 0) no[++m] = l
		n = n0; srand(); t0 = srand(); meter() }
	{
		seq = $0; sub(/\t.*/, "", seq); msg = $0; sub(/^[^\t]*\t/, "", msg)
		if (msg ~ /^llm-gen: (model |seed [0-9]+$|batch of |KV cache peak |[0-9]+ of [0-9]+ records failed$)/) {
			meter(); next
		}
		if (msg ~ /^llm-gen: .*: record [0-9]+: /) {
			k = msg; sub(/^llm-gen: .*: record /, "", k); sub(/:.*/, "", k)
			sub(/^llm-gen: .*: record [0-9]+: /, "", msg)
			p = no[(seq - 1) * b + k]
			if (msg ~ /^[0-9]+ ids, stop:/) {
				split(msg, w, " "); tok += w[1]; n++; meter(); next
			}
			if (msg !~ /^context of [0-9]+ positions is full$/) {
				print seq "\t" p "\t" msg >failed; n++; meter(); next
			}
			msg = "prompt " p ": " msg
		}
		if (tty) printf "\r\033[K"
		print "parallel.sh: " msg
		meter()
		fflush()
	}
	END { if (tty) { n = total; meter(); printf "\n" } }' >&2
touch "$dir/failed.b"
# the hosts of the blocks (the job log: Seq Host Starttime JobRuntime
# Send Receive Exitval Signal Command), the failures said with theirs;
# the results labelled, those of the failed prompts left out; the
# prompts of a block that gave no line for them (a job that failed, a
# host that could not be reached) said and counted too
awk -F '\t' -v b="$block" -v map="$dir/map" -v joblog="$log" -v bad="$dir/failed" \
    -v failb="$dir/failed.b" -v total="$total" '
	BEGIN {
		while ((getline l <map) > 0) no[++m] = l
		while ((getline l <bad) > 0) { gone[l] = 1; nf++ }
		getline l <joblog
		while ((getline l <joblog) > 0) {
			split(l, f, "\t"); host[f[1]] = f[2]; ex[f[1]] = f[7]; sig[f[1]] = f[8]
		}
		while ((getline l <failb) > 0) {
			split(l, f, "\t")
			msg = l; sub(/^[^\t]*\t[^\t]*\t/, "", msg)
			printf "parallel.sh: prompt %d failed on %s: %s\n", f[2], host[f[1]], msg >"/dev/stderr"
			gone[f[2]] = 1; nf++
		}
	}
	{
		seq = $1; sub(/^[^\t]*\t/, "")
		k = ++got[seq]; p = no[(seq - 1) * b + k]
		if (p && !(p in gone)) print p "\t" $0
		seen[p] = 1
	}
	END {
		for (i = 1; i <= m; i++) {
			p = no[i]; s = int((i - 1) / b) + 1
			if ((p in seen) || (p in gone)) continue
			printf "parallel.sh: prompt %d failed on %s (exit %d, signal %d)\n",
			    p, host[s], ex[s], sig[s] >"/dev/stderr"
			nf++
		}
		if (nf) printf "parallel.sh: %d of %d prompts failed\n", nf, total >"/dev/stderr"
		exit nf > 0
	}' "$dir/out" || exit 1
[ "$(cat "$dir/status" 2>/dev/null)" = 0 ] || [ ! -s "$dir/sent" ] || exit 1
