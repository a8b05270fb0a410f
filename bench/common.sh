# shellcheck shell=sh disable=SC2154
# bench/common.sh: what the bench scripts share, sourced by them
# (. "$here/common.sh", here their folder).  It sets top (the tree),
# bin (PIPELM_BIN, else top/bin), tools (PIPELM_TOOLS, else
# top/build/rel) and out (BENCH_DIR, else top/build/bench); its
# functions use me (the script's name in messages) and, where they say
# so, shared and reps.  Plain sh.

top=$(cd "$here/.." && pwd)
bin=${PIPELM_BIN:-$top/bin}
tools=${PIPELM_TOOLS:-$top/build/rel}
out=${BENCH_DIR:-$top/build/bench}

say() { printf '%s: %s\n' "$me" "$*" >&2; }
fail() { say "$*"; exit 1; }

# ---- the arguments, checked before anything runs ----
# posint NAME VALUE: fail unless VALUE is a positive number
posint() {
	case $2 in ''|*[!0-9]*|0) fail "$1: $2: not a positive number" ;; esac
}
# zero_one NAME VALUE: fail unless VALUE is 0 or 1
zero_one() {
	case $2 in 0|1) ;; *) fail "$1: $2: not 0 or 1" ;; esac
}
# need_bin PROG ...: fail unless each is built in $bin
need_bin() {
	for p; do
		[ -x "$bin/$p" ] || fail "$bin/$p: not built (run make first)"
	done
}
# need_tools PROG ...: fail unless each is built in $tools
need_tools() {
	for p; do
		[ -x "$tools/$p" ] || fail "$tools/$p: not built (run make tools first)"
	done
}

# workdir [PARENT]: tmp=, a new directory (in PARENT, else the system's),
# removed at the end of the run
workdir() {
	tmp=$(mktemp -d ${1:+"$1/run.XXXXXX"})
	trap 'rm -rf "$tmp"' EXIT
	trap 'exit 130' INT TERM
}

# ---- figures: each a line of $tmp/v.NAME.THREADS (tmp: workdir's) ----
F='\([0-9.][0-9.]*\)'
# num FILE PATTERN: the last match's \1 (PATTERN: a sed one, F for the
# number)
num() { sed -n "s#.*$2.*#\1#p" "$1" | tail -n 1; }
# put NAME THREADS VALUE: add a figure; a missing one is said, with what
# the program wrote to $tmp/err, not hidden
put() {
	if [ -n "$3" ]; then
		echo "$3" >>"$tmp/v.$1.$2"
	else
		say "no '$1' figure ($2 threads): $(tr '\n' ' ' <"$tmp/err")"
	fi
}
# med NAME THREADS: the median of the figures; nothing where there are none
med() {
	[ -s "$tmp/v.$1.$2" ] || return 0
	sort -g "$tmp/v.$1.$2" | awk '{ v[NR] = $1 } END {
		print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
# ratio A B THREADS: median A / median B as "1.23x", "-" if either is missing
ratio() {
	awk -v a="$(med "$1" "$3")" -v b="$(med "$2" "$3")" \
	    'BEGIN { if (a > 0 && b > 0) printf "%.2fx", a / b; else print "-" }'
}
# lb NAME THREADS GGUF ARGS...: llama-bench's tokens/s (the next to last
# CSV column) as figure NAME, or its ms a token where lb_unit is "ms";
# peer is llama-bench, "none" to leave it out.  A failure leaves
# llama.cpp out from here, not pipelm.
lb() {
	pn=$1 pt=$2 pg=$3
	shift 3
	[ "$peer" != none ] || return 0
	if ! "$peer" -m "$pg" -t "$pt" -r 1 -o csv "$@" >"$tmp/csv" 2>"$tmp/err"; then
		say "llama-bench -m $pg -t $pt $* failed, left out from here: $(tail -n 3 "$tmp/err")"
		peer=none
		return 0
	fi
	put "$pn" "$pt" "$(awk -F, -v u="${lb_unit:-}" '
	    NR == 1 { ok = $(NF - 1) == "avg_ts"; next }
	    ok { v = $(NF - 1); gsub(/"/, "", v)
		print u == "ms" ? sprintf("%.2f", 1000 / v) : v }' "$tmp/csv")"
}

# ---- models and prompts ----
# warm DIR|FILE ...: the weights in 2 MiB page-cache folios, as the
# first read through pipelm's mapping leaves them (file_map,
# lib/base/util.h): drop what an earlier write or read cached in small
# pages, then read them once (st-inspect --stats).  Pages cached small
# stay small (the kernel does not merge them), and a decode over them
# reads slower, the most at 2 threads (bench/NOTES.md, "Huge folios in
# the page cache"); after a day of other work part of a folder's cache
# was found small again (2026-12-05: 184 of 262 MB mapped in 2 MiB).
warm() {	# (sh has no locals: its variables are named not to clobber a caller's)
	for warm_w; do
		if [ -d "$warm_w" ]; then set -- "$warm_w"/*.safetensors; else set -- "$warm_w"; fi
		for warm_f; do
			if ! dd if="$warm_f" iflag=nocache count=0 2>/dev/null; then
				say "dd cannot drop the page cache here: $warm_f stays in whatever pages the cache has"
				return 0
			fi
		done
		"$bin/st-inspect" --stats "$warm_w" >/dev/null ||
			fail "st-inspect --stats $warm_w failed"
	done
}
# prompt SEED VOCAB [N]: one record of N ids (32) below VOCAB, from SEED
# (Park-Miller, as bench/run.sh)
prompt() {
	awk -v seed="$1" -v v="$2" -v n="${3:-32}" 'BEGIN { x = seed
		for (i = 0; i < n; i++) {
			x = (x * 16807) % 2147483647
			printf "%s%d", i ? " " : "", x % v
		}
		printf "\n" }'
}
# golden_models: the names of $shared's models that have golden ids,
# each after a space
golden_models() {
	for m in "$shared"/models/arch-*; do
		[ -r "$m/config.json" ] && [ -r "$shared/golden/logits/${m##*/}.ids" ] &&
			printf ' %s' "${m##*/}"
	done
	:
}
# golden_ids NAME: its golden ids ($shared), as one record
golden_ids() {
	tr '\n' ' ' <"$shared/golden/logits/$1.ids"
	echo
}
# model_ids NAME DIR: src= the folder of a golden model or of the
# built-in stories260K, and DIR/ids its prompt: the golden ids
# (stories260K without $shared: 32 ids of seed 7).  1 for another name.
model_ids() {
	case $1 in
	stories260K)
		src=$top/share/pipelm/stories260K
		if [ -r "$shared/golden/logits/stories260K.ids" ]; then
			golden_ids stories260K >"$2/ids"
		else
			prompt 7 512 >"$2/ids"
		fi ;;
	random-*) return 1 ;;
	*)
		src=$shared/models/$1
		golden_ids "$1" >"$2/ids" ;;
	esac
}
# mkrandom PRESET DIR [SEED [MKMODEL-OPTION ...]]: a random BF16 model of
# PRESET's shape (mkmodel -s SEED, 1) in DIR, unless there is one;
# renamed into place when complete
mkrandom() {
	[ ! -r "$2/config.json" ] || return 0
	mp=$1 md=$2 ms=${3:-1}
	shift 2
	[ $# -eq 0 ] || shift
	say "model: writing $md ($mp shape, random BF16)"
	rm -rf "$md.tmp"
	"$tools/mkmodel" -s "$ms" --preset "$mp" --dtype bf16 "$@" "$md.tmp" >/dev/null ||
		{ rm -rf "$md.tmp"; fail "mkmodel --preset $mp failed"; }
	mv "$md.tmp" "$md"
}

# ---- timing ----
now() { date +%s.%N; }
# timed NAME COMMAND ...: run COMMAND $reps times, its output to
# $tmp/NAME.out, its seconds one a line to $tmp/NAME.t
timed() {
	tn=$1
	shift
	: >"$tmp/$tn.t"
	ti=0
	while [ "$ti" -lt "$reps" ]; do
		t0=$(now)
		"$@" >"$tmp/$tn.out"
		t1=$(now)
		echo "$t1 - $t0" | bc -l >>"$tmp/$tn.t"
		ti=$((ti + 1))
	done
}
# median NAME: the median seconds of timed NAME
median() {
	sort -g "$tmp/$1.t" | awk '{ t[NR] = $1 } END { print t[int((NR + 1) / 2)] }'
}
# row LABEL NAME COUNT BASE: a table row of timed NAME: median (min-max)
# seconds, COUNT a second, BASE seconds / its median
row() {
	sort -g "$tmp/$2.t" | awk -v l="$1" -v c="$3" -v base="$4" '
	    { t[NR] = $1 } END { m = t[int((NR + 1) / 2)]
	      printf "| %s | %.2f (%.2f-%.2f) | %.0f | %s |\n", l, m, t[1], t[NR],
	        c / m, base ? sprintf("%.2fx", base / m) : "1.00x" }'
}

# llama_probe LLAMA_DIR CC CXX: bench/llama-logits.c built into $tmp
# against the static libraries `make peer` leaves in LLAMA_DIR
# (logerr.sh, kverr.sh): peer its path (none when LLAMA_DIR is none or
# it cannot be built, said), peerv llama.cpp's tag.
llama_probe() {
	peer=none peerv=
	if [ "$1" != none ] && [ -x "$1/llama-quantize" ] &&
	    [ -r "$1/llama.cpp/build/src/libllama.a" ]; then
		l=$1/llama.cpp
		say "building the llama.cpp probe (bench/llama-logits.c)"
		if $2 -std=c11 -O2 -I"$l/include" -I"$l/ggml/include" \
		    -c "$here/llama-logits.c" -o "$tmp/ll.o" 2>"$tmp/err" &&
		    $3 -o "$tmp/llama-logits" "$tmp/ll.o" "$l/build/src/libllama.a" \
		    "$l/build/ggml/src/libggml.a" "$l/build/ggml/src/libggml-cpu.a" \
		    "$l/build/ggml/src/libggml-base.a" -fopenmp -lpthread -lm 2>>"$tmp/err"; then
			peer=$tmp/llama-logits
			peerv=$(sed -n 's/.*"tag": "\(.*\)".*/\1/p' "$l/llama.cpp.info.json" 2>/dev/null || :)
		else
			say "cannot build the probe, llama.cpp left out: $(tail -n 3 "$tmp/err")"
		fi
	elif [ "$1" != none ]; then
		say "no llama.cpp in $1 (make peer): llama.cpp left out"
	fi
}
