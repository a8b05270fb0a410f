#!/usr/bin/env bats
# The checkout's layout as README.md's "Layout" section states it: lib/
# in folders, one a row of its table, data flowing one way down the
# rows; every lib/ file in a module of its folder's row; a folder
# including only itself and the folders above it; no module reaching
# back to one that reaches it (no loops, inside a folder or across);
# lib/ never ending the process; one unit-test harness; nothing stray
# in the tree.
load helpers

ROOT=$BATS_TEST_DIRNAME/..

# "row folder module" for each module named in the Layout table, rows
# numbered from the top.
rooms() {
	awk '/^## Layout/ { on = 1; next } on && /^## / { exit }
	    on && /^\| `[a-z]+\/`/ {
		row++
		split($0, col, "|")
		d = col[2]
		gsub(/[ `\/]/, "", d)
		s = col[3]
		while (match(s, /`[a-z][a-z0-9_]*`/)) {
			print row, d, substr(s, RSTART + 1, RLENGTH - 2)
			s = substr(s, RSTART + RLENGTH)
		}
	    }' "$ROOT/README.md"
}

# The row of folder $1.
row_of_dir() {
	awk -v d="$1" '$2 == d { print $1; exit }' "$BATS_TEST_TMPDIR/rooms"
}

# Whether base name $2 (less .c/.h) is in a module of folder $1's row:
# one of its modules is the name or a prefix of it ending at "_".
in_row() {
	awk -v d="$1" -v f="$2" '$2 == d { n = length($3)
	    if (substr(f, 1, n) == $3 && (length(f) == n ||
	        substr(f, n + 1, 1) == "_")) ok = 1 }
	    END { exit !ok }' "$BATS_TEST_TMPDIR/rooms"
}

# The module of folder $1's file stem $2: NAME_int.h is NAME's private
# header; a file is in the module of the longest stem with a header in
# its folder (kern_avx2.c is kern's, seq_sched.c seq's), else its own.
module() {
	local d=$1 s=${2%_int} p
	p=$s
	while :; do
		[ -f "$ROOT/lib/$d/$p.h" ] && { echo "$d/$p"; return; }
		[[ $p == *_* ]] || break
		p=${p%_*}
	done
	echo "$d/$s"
}

# "A B" for each module A whose files include a header of module B.
edges() {
	local f d b s a id is
	for f in "$ROOT"/lib/*/*.[ch]; do
		d=$(basename "$(dirname "$f")")
		b=$(basename "$f")
		s=${b%.?}
		a=$(module "$d" "$s")
		sed -n 's/^#include "\([a-z]*\)\/\([a-z0-9_]*\)\.h".*/\1 \2/p' "$f" |
		while read -r id is; do
			is=$(module "$id" "$is")
			[ "$is" = "$a" ] || echo "$a $is"
		done
	done | sort -u
}

setup() {
	rooms >"$BATS_TEST_TMPDIR/rooms"
}

@test "layout: the README's table names folders in rows" {
	[ "$(cut -d' ' -f2 "$BATS_TEST_TMPDIR/rooms" | sort -u | wc -l)" -ge 8 ]
	grep -q ' base util$' "$BATS_TEST_TMPDIR/rooms"
	grep -q ' model seq$' "$BATS_TEST_TMPDIR/rooms"
}

@test "layout: lib/ holds folders only, each a row of the README's table" {
	local f bad=
	for f in "$ROOT"/lib/*; do
		if [ -d "$f" ]; then
			[ -n "$(row_of_dir "$(basename "$f")")" ] || bad="$bad $(basename "$f")/"
		else
			bad="$bad $(basename "$f")"
		fi
	done
	[ -z "$bad" ] || { echo "not a folder of README's Layout:$bad"; false; }
}

@test "layout: every lib/ file is in a module of its folder's row" {
	local f d b bad=
	for f in "$ROOT"/lib/*/*.[ch]; do
		d=$(basename "$(dirname "$f")")
		b=$(basename "$f")
		in_row "$d" "${b%.?}" || bad="$bad $d/$b"
	done
	[ -z "$bad" ] || { echo "not in its row of README's Layout:$bad"; false; }
}

@test "layout: a folder includes only itself and the folders above it" {
	local f d r inc ir bad=
	for f in "$ROOT"/lib/*/*.[ch]; do
		d=$(basename "$(dirname "$f")")
		r=$(row_of_dir "$d")
		[ -n "$r" ] || continue	# the tests above name it
		while read -r inc; do
			case $inc in
			*/*)	ir=$(row_of_dir "${inc%%/*}")
				[ -n "$ir" ] && [ "$ir" -le "$r" ] ||
				    bad="$bad $d/$(basename "$f")->$inc" ;;
			*)	bad="$bad $d/$(basename "$f")->$inc(no folder)" ;;
			esac
		done < <(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f")
	done
	[ -z "$bad" ] || { echo "includes from a lower row or without a folder:$bad"; false; }
}

@test "layout: no module reaches back to one that reaches it" {
	need_cmd tsort
	edges >"$BATS_TEST_TMPDIR/edges"
	[ -s "$BATS_TEST_TMPDIR/edges" ]
	run tsort "$BATS_TEST_TMPDIR/edges"
	[ "$status" -eq 0 ] || { echo "a loop of includes:"; echo "$output" | grep 'tsort: [a-z]*/'; false; }
}

@test "layout: the loop check sees a loop (a reverse include added)" {
	need_cmd tsort
	edges >"$BATS_TEST_TMPDIR/edges"
	# seq includes model: model including seq back would be a loop
	grep -qx 'model/seq model/model' "$BATS_TEST_TMPDIR/edges"
	echo 'model/model model/seq' >>"$BATS_TEST_TMPDIR/edges"
	run tsort "$BATS_TEST_TMPDIR/edges"
	[ "$status" -ne 0 ]
}

@test "layout: lib/ never ends the process (the exiting helpers are cmd/'s)" {
	# st_guard's handler of SIGBUS (a model file cut short under its
	# mapping, which would kill the process anyway) only names the file
	run sh -c "grep -nE '(^|[^a-z_.>])(exit|_exit|abort|die|edie|emalloc|ecalloc|ereallocarray|estrdup|estrtonum|estrtod|efflush|version)[[:space:]]*\\(' '$ROOT'/lib/*/*.c |
	    grep -v '^$ROOT/lib/base/util.c:' | grep -v '^$ROOT/lib/disk/st_guard.c:[0-9]*:[[:space:]]*_exit(1);'"
	[ -z "$output" ] || { echo "$output"; false; }
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
	local top=" .ci .gitattributes .gitignore LICENSE Makefile README.md bench cmd examples lib man python share tests tools "
	local e bad=
	for e in $output; do
		[[ $top == *" $e "* ]] || bad="$bad $e"
	done
	[ -z "$bad" ] || { echo "not in the Layout:$bad"; false; }
	run -0 sh -c "git -C '$ROOT' ls-files share | grep -v '^share/pipelm/' || true"
	[ -z "$output" ]
}
