#!/usr/bin/env bats
# The checkout's layout as README.md's "Layout" section states it: every
# lib/ file in a module of its table, each module including only its own
# row and the rows above it, one unit-test harness, nothing stray in the
# tree.
load helpers

ROOT=$BATS_TEST_DIRNAME/..

# "row module" for each module named in the Layout table, rows numbered
# from the top.
rooms() {
	awk '/^## Layout/ { on = 1; next } on && /^## / { exit }
	    on && /^\| / && !/^\| room/ && !/^\|---/ {
		row++
		split($0, col, "|")
		s = col[3]
		while (match(s, /`[a-z][a-z0-9_]*`/)) {
			print row, substr(s, RSTART + 1, RLENGTH - 2)
			s = substr(s, RSTART + RLENGTH)
		}
	    }' "$ROOT/README.md"
}

# The row of lib file base name $1 (less .c/.h): its longest module
# prefix, ending at the end of the name or at an underscore.
row_of() {
	awk -v f="$1" '{ n = length($2)
	    if (substr(f, 1, n) == $2 && (length(f) == n ||
	        substr(f, n + 1, 1) == "_") && n > best) { best = n; r = $1 } }
	    END { if (best) print r }' "$BATS_TEST_TMPDIR/rooms"
}

setup() {
	rooms >"$BATS_TEST_TMPDIR/rooms"
}

@test "layout: the README's table names modules in rows" {
	[ "$(cut -d' ' -f1 "$BATS_TEST_TMPDIR/rooms" | sort -u | wc -l)" -ge 8 ]
	grep -q ' util$' "$BATS_TEST_TMPDIR/rooms"
	grep -q ' model$' "$BATS_TEST_TMPDIR/rooms"
}

@test "layout: every lib/ file is in a module of the README's table" {
	local f b bad=
	for f in "$ROOT"/lib/*.[ch]; do
		b=$(basename "$f")
		b=${b%.?}
		[ -n "$(row_of "$b")" ] || bad="$bad $b"
	done
	[ -z "$bad" ] || { echo "not in README's Layout:$bad"; false; }
}

@test "layout: a module includes only its own row and the rows above it" {
	local f b r inc ir bad=
	for f in "$ROOT"/lib/*.[ch]; do
		b=$(basename "$f")
		b=${b%.?}
		r=$(row_of "$b")
		[ -n "$r" ] || continue	# the test above names it
		for inc in $(sed -n 's/^#include "\([a-z0-9_]*\)\.h".*/\1/p' "$f"); do
			ir=$(row_of "$inc")
			[ -n "$ir" ] && [ "$ir" -le "$r" ] || bad="$bad $b->$inc"
		done
	done
	[ -z "$bad" ] || { echo "includes from a lower row:$bad"; false; }
}

@test "layout: every unit test uses the one harness, tests/unit/test.h" {
	local f bad=
	for f in "$ROOT"/tests/unit/test_*.c; do
		grep -q '^#include "test.h"' "$f" &&
		    ! grep -qE '^#define (CHECK|EQ|NEAR)\b|^static int fails\b' "$f" ||
		    bad="$bad $(basename "$f")"
	done
	[ -z "$bad" ] || { echo "own harness:$bad"; false; }
}

@test "layout: git tracks only what the Layout lists at the top and in share/" {
	need_cmd git
	git -C "$ROOT" rev-parse --git-dir >/dev/null 2>&1 || skip "not a git checkout"
	run -0 sh -c "git -C '$ROOT' ls-files | cut -d/ -f1 | sort -u"
	local top=" .ci .gitattributes .gitignore LICENSE Makefile README.md bench cmd examples lib man share tests tools "
	local e bad=
	for e in $output; do
		[[ $top == *" $e "* ]] || bad="$bad $e"
	done
	[ -z "$bad" ] || { echo "not in the Layout:$bad"; false; }
	run -0 sh -c "git -C '$ROOT' ls-files share | grep -v '^share/pipelm/' || true"
	[ -z "$output" ]
}
