#!/usr/bin/env bats
# Faults a running program meets from outside: the files it maps, the
# streams it writes.
load helpers

setup() {
	M=$BATS_TEST_DIRNAME/../share/pipelm/stories260K
	cd "$BATS_TEST_TMPDIR"
}

@test "faults: a weights file truncated under a running llm-gen is named, exit 1" {
	cp -R "$M" m
	mkfifo in
	llm-gen -m m -n 5 --temp 0 <in >out 2>err &
	pid=$!
	exec 5>in
	# the model is loaded (its first record runs) before the cut
	echo 1 403 >&5
	for i in $(seq 100); do [ "$(wc -l <out)" -ge 1 ] && break; sleep 0.1; done
	truncate -s 8192 m/model.safetensors
	echo 1 403 >&5
	exec 5>&-
	st=0
	wait "$pid" || st=$?
	[ "$st" -eq 1 ]
	grep -q 'm/model.safetensors: the file shrank while in use' err
}

@test "faults: a weights file replaced by rename under a running program changes nothing" {
	cp -R "$M" m
	want=$(echo 1 403 | llm-gen -m "$M" -n 5 --temp 0)
	mkfifo in
	llm-gen -m m -n 5 --temp 0 <in >out &
	pid=$!
	exec 5>in
	echo 1 403 >&5
	for i in $(seq 100); do [ "$(wc -l <out)" -ge 1 ] && break; sleep 0.1; done
	head -c 8192 "$M/model.safetensors" >new && mv new m/model.safetensors
	echo 1 403 >&5
	exec 5>&-
	wait "$pid"
	[ "$(sed -n 2p out)" = "$want" ]
}

@test "faults: an address-space limit the model does not fit in is named, exit 1" {
	[[ $BIN != */san/* ]] || skip "ASan reserves more address space than the limit"
	mkmodel --hidden 256 --layers 4 --heads 4 --kv-heads 2 --inter 512 --vocab 32000 --dtype f32 m
	run --separate-stderr bash -c 'ulimit -v 30000; echo 1 2 | llm-gen -m m -n 2 --temp 0'
	[ "$status" -eq 1 ]
	[[ $stderr == *"m/model.safetensors: mmap: Cannot allocate memory"* ]]
}

@test "faults: eight llm-gen processes at once on one model give what one at a time gives" {
	for s in 1 2 3 4 5 6 7 8; do
		echo 1 403 407 | llm-gen -m "$M" -t 1 -n 24 --seed "$s" >"seq.$s"
	done
	for s in 1 2 3 4 5 6 7 8; do
		echo 1 403 407 | llm-gen -m "$M" -t 1 -n 24 --seed "$s" >"par.$s" &
	done
	wait
	for s in 1 2 3 4 5 6 7 8; do cmp "seq.$s" "par.$s"; done
	# and they differ from each other: the seeds were used
	! cmp -s seq.1 seq.2
}

@test "faults: a NaN weight stops every program with a message, never a plausible result" {
	cp -R "$M" nan
	off=$(st-inspect nan | awk '$1 == "model.norm.weight" { print $5 }')
	printf '\000\000\300\177' | dd of=nan/model.safetensors bs=1 seek="$off" conv=notrunc 2>/dev/null
	for f in bin text top; do
		run -1 --separate-stderr sh -c "echo 1 403 | llm-logits -m nan -f $f"
		[ -z "$output" ]
		[[ $stderr == *"record 1: position 1: logit 0 is nan"* ]]
	done
	echo keep >keep.npy
	run -1 --separate-stderr sh -c "echo 1 403 | llm-logits -m nan -f npy -o keep.npy"
	[ "$(cat keep.npy)" = keep ]
	for t in 0 0.8; do
		run -1 --separate-stderr sh -c "echo 1 403 | llm-gen -m nan -n 3 --temp $t"
		[ -z "$output" ]
		[[ $stderr == *"record 1: position 1: logit 0 is nan"* ]]
	done
	run -1 --separate-stderr sh -c "echo 1 403 | llm-score -m nan"
	[[ $stderr == *"logit 0 is nan"* ]]
	run -1 --separate-stderr st-inspect --check nan
	[ "$stderr" = "st-inspect: nan/model.safetensors: tensor 'model.norm.weight': 1 NaN and 0 infinite values" ]
	run -0 st-inspect --check "$M"
}

# The readers of ids and of logits frames meet short reads: a writer that
# gives a byte (or 7: a float and a u32 cut across) per write, with a
# pause for the reader to wake up to each.
@test "faults: short reads from a slow writer change nothing (tok-decode, llm-logits, llm-gen, llm-sample)" {
	T=$TOOLS/trickle
	printf '1 403 407\n1 261 378 432\n383 286\n' >ids
	tok-encode -m "$M" --ids=u32 -l <<-'EOF' >ids.u32
	Once upon a time
	there was
	EOF
	tok-decode -m "$M" <ids >want
	"$T" -d 300 <ids | tok-decode -m "$M" >got
	cmp want got
	tok-decode -m "$M" --ids=u32 <ids.u32 >want
	"$T" -d 300 <ids.u32 | tok-decode -m "$M" --ids=u32 >got
	cmp want got
	[ "$(wc -l <got)" -eq 2 ]
	llm-logits -m "$M" <ids >want.bin
	"$T" -d 300 <ids | llm-logits -m "$M" >got.bin
	cmp want.bin got.bin
	"$T" -b 3 -d 300 <ids.u32 | llm-logits -m "$M" --ids=u32 -f top >got
	llm-logits -m "$M" --ids=u32 -f top <ids.u32 | cmp - got
	llm-gen -m "$M" -n 6 --temp 0 <ids >want
	"$T" -d 300 <ids | llm-gen -m "$M" -n 6 --temp 0 >got
	cmp want got
	[ "$(wc -l <got)" -eq 3 ]
	llm-sample --temp 0.8 --seed 7 <want.bin >want
	"$T" -b 7 -d 50 <want.bin | llm-sample --temp 0.8 --seed 7 >got
	cmp want got
	[ "$(wc -l <got)" -eq 3 ]
}

# Our programs install no signal handler a read could return EINTR for
# (only SIGBUS's, which exits): a stopped and continued reader resumes its
# read, and the signals whose default is to be ignored (SIGWINCH, SIGCHLD,
# SIGURG) are not even delivered.  Sent while the reader waits on a slow
# pipe, none of them may change a byte or lose a record.
@test "faults: stop, continue and ignored signals during reads change nothing" {
	T=$TOOLS/trickle
	printf '1 403 407\n1 261 378 432\n383 286\n' >ids
	for p in "tok-decode -m $M" "llm-gen -m $M -n 6 --temp 0" "llm-logits -m $M -f top"; do
		$p <ids >want
		"$T" -d 20000 <ids | $p >got &
		pid=$!
		for i in 1 2 3 4 5 6 7 8 9 10; do
			sleep 0.05
			kill -STOP "$pid" 2>/dev/null || break
			sleep 0.05
			kill -CONT "$pid" 2>/dev/null || break
			kill -WINCH "$pid" 2>/dev/null || break
			kill -CHLD "$pid" 2>/dev/null || break
			kill -URG "$pid" 2>/dev/null || break
		done
		wait "$pid"
		cmp want got
	done
	llm-logits -m "$M" <ids >frames
	llm-sample --temp 0 <frames >want
	"$T" -b 512 -d 20000 <frames | llm-sample --temp 0 >got &
	pid=$!
	for i in 1 2 3 4 5 6 7 8 9 10; do
		sleep 0.05
		kill -STOP "$pid" 2>/dev/null || break
		sleep 0.05
		kill -CONT "$pid" 2>/dev/null || break
		kill -WINCH "$pid" 2>/dev/null || break
	done
	wait "$pid"
	cmp want got
}

# tok-encode -l holds one line at a time: 40 MB of lines through an
# address space of 20 MB, the program and its tokenizer being what fits.
@test "faults: tok-encode -l streams an input larger than its address-space limit" {
	[[ $BIN != */san/* ]] || skip "ASan reserves more address space than the limit"
	run -0 --separate-stderr bash -c "ulimit -v 20000; yes 'Once upon a time, there was a little girl named Lily.' |
	    head -c 40000000 | tok-encode -m '$M' -l | sed -n '1p;\$='"
	[ "${lines[0]}" = "$(echo 'Once upon a time, there was a little girl named Lily.' | tok-encode -m "$M")" ]
	[ "${lines[1]}" -eq 740741 ]
}
