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
