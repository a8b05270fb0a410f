#!/usr/bin/env bats
# Interrupted at random points, a program that writes a file or a folder
# leaves either the old one or the new one, never a part: llm-quant's
# folder, llm-logits -o.  SIGINT, SIGTERM and SIGHUP also remove the
# temporaries (lib/base/cleanup.h); SIGKILL cannot, and leaves the hidden
# temporary beside the target.
load helpers

setup() {
	T=$BATS_TEST_TMPDIR
	env --default-signal true 2>/dev/null ||
		skip "env --default-signal (coreutils 8.31) is needed"
}

# sums DIR: a line per file of DIR (hidden ones too), its name and sha256.
sums() {
	(cd "$1" && find . -type f | LC_ALL=C sort | xargs -r sha256sum)
}

# hit SIG SECONDS CMD ...: start CMD with the signals' default actions (a
# background job of a script ignores SIGINT), send SIG after SECONDS;
# the command may have ended by then.  Its standard input is the
# caller's (not the /dev/null of a background job).
hit() {
	local sig=$1 t=$2 pid
	shift 2
	env --default-signal "$@" <&0 2>/dev/null &
	pid=$!
	sleep "$t"
	kill -"$sig" "$pid" 2>/dev/null || true
	wait "$pid" || true
}

# timed CMD ...: run CMD, print how long it took in seconds.
timed() {
	local t0 t1
	t0=$(date +%s%N)
	"$@" >/dev/null
	t1=$(date +%s%N)
	echo $(((t1 - t0) / 1000000)) | awk '{ printf "%.3f", $1 / 1000 }'
}

# A point in [0, $1) seconds, at random.
somewhen() {
	awk -v d="$1" -v r="$RANDOM" 'BEGIN { printf "%.3f", d * r / 32768 }'
}

@test "interrupt: llm-quant leaves no folder or the whole one, and no temporary but after SIGKILL" {
	mkmodel "$T/f" --hidden 256 --layers 2 --heads 4 --inter 512 --vocab 16384 --dtype bf16
	d=$(timed llm-quant "$T/f" "$T/ref")
	sums "$T/ref" >"$T/new"
	for sig in INT TERM HUP KILL; do
		for i in 1 2 3; do
			rm -rf "$T/q"
			hit $sig "$(somewhen "$d")" llm-quant "$T/f" "$T/q"
			if [ -e "$T/q" ]; then
				sums "$T/q" | cmp - "$T/new"
			fi
			if [ $sig = KILL ]; then
				rm -rf "$T"/.q.tmp.*
			else
				[ -z "$(ls -A "$T" | grep tmp)" ]
			fi
		done
	done
}

@test "interrupt: llm-quant -f over a folder leaves the old files or the new ones" {
	mkmodel "$T/f" --hidden 256 --layers 2 --heads 4 --inter 512 --vocab 16384 --dtype bf16
	llm-quant "$T/f" "$T/ref"
	sums "$T/ref" >"$T/new"
	d=$(timed llm-quant --asym -g 64 "$T/f" "$T/old")
	sums "$T/old" >"$T/before"
	for sig in INT TERM HUP; do
		for i in 1 2; do
			rm -rf "$T/q"
			cp -r "$T/old" "$T/q"
			hit $sig "$(somewhen "$d")" llm-quant -f "$T/f" "$T/q"
			sums "$T/q" >"$T/now"
			cmp "$T/now" "$T/before" || cmp "$T/now" "$T/new"
			[ -z "$(ls -A "$T" | grep tmp)" ]
		done
	done
	# and uninterrupted, the new files
	llm-quant -f "$T/f" "$T/q"
	sums "$T/q" | cmp - "$T/new"
}

@test "interrupt: llm-logits -o leaves the old file or the new one, and no temporary but after SIGKILL" {
	mkmodel "$T/m" --hidden 128 --layers 4 --heads 4 --inter 256 --vocab 16384 --ctx 512 --dtype bf16
	ids=$(seq 1 500 | tr '\n' ' ')
	echo old >"$T/out.npy"
	d=$(timed llm-logits -m "$T/m" -t 1 -a -f npy -o "$T/new.npy" <<<"$ids")
	for sig in INT TERM HUP KILL; do
		for i in 1 2 3 4; do
			hit $sig "$(somewhen "$d")" llm-logits -m "$T/m" -t 1 -a -f npy \
			    -o "$T/out.npy" <<<"$ids"
			[ "$(cat "$T/out.npy")" = old ] || cmp "$T/out.npy" "$T/new.npy"
			echo old >"$T/out.npy"
			if [ $sig = KILL ]; then
				rm -f "$T"/.out.npy.tmp.*
			else
				[ -z "$(ls -A "$T" | grep tmp)" ]
			fi
		done
	done
}
