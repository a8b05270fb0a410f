#!/usr/bin/env bats
# The Python package installed as the README says, into a virtual
# environment with no network (pip install ./python: its own build
# backend, the standard library only), then used from elsewhere.  The
# package's calls against the programs are tests/python (unittest, run by
# make test).

load helpers

need_venv() {
	need_cmd python3
	[ -r "$TOOLS/libpipelm.so" ] || skip "no libpipelm.so in $TOOLS (the sanitizer build makes none)"
	python3 -m venv "$BATS_TEST_TMPDIR/venv" >/dev/null 2>&1 ||
		skip "python3 -m venv does not work here (python3-venv)"
	[ -x "$BATS_TEST_TMPDIR/venv/bin/pip" ] || skip "no pip in the virtual environment (python3-pip)"
}

@test "python: pip install ./python offline, then generate as llm-gen" {
	need_venv
	PIP_NO_INDEX=1 PIPELM_LIB=$TOOLS/libpipelm.so \
	    run "$BATS_TEST_TMPDIR/venv/bin/pip" install --no-cache-dir \
	    "$BATS_TEST_DIRNAME/../python"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	cd "$BATS_TEST_TMPDIR"
	run -0 env -u PIPELM_LIB "$BATS_TEST_TMPDIR/venv/bin/python" -c '
import pipelm, sys
print(pipelm.library_path)
m = pipelm.Model()
ids = m.tokenize("Once upon a time")
print(" ".join(map(str, m.generate(ids, max_new=16, seed=5))))
try:
    m.logits([1, 100000])
except pipelm.Error as e:
    print("error:", e)
'
	[[ ${lines[0]} == "$BATS_TEST_TMPDIR/venv/"*"/site-packages/pipelm/libpipelm.so" ]]
	want=$(tok-encode -e 'Once upon a time' | llm-gen -n 16 --seed 5)
	[ "${lines[1]}" = "$want" ]
	[[ ${lines[2]} == "error: "*100000* ]]
}
