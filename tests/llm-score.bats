#!/usr/bin/env bats
# llm-score: log-probabilities, checked against log_softmax of llm-logits'
# own rows computed in double by awk, on the built-in model.
load helpers

setup() {
	M=$BATS_TEST_DIRNAME/../share/pipelm/stories260K
	cd "$BATS_TEST_TMPDIR"
}

# ref RECORD FIRST: the per-token lines llm-score must give for the ids
# RECORD (one window), scoring positions FIRST on, from llm-logits --all
# -f text and log_softmax in awk: position, id, logprob, rank
ref() {
	echo "$1" | llm-logits -m "$M" --all -f text | awk -v ids="$1" -v first="$2" '
	    BEGIN { n = split(ids, id, " ") }
	    { p = NR - 1; if (p + 1 < first || p + 2 > n) next
	      m = $1; for (i = 2; i <= NF; i++) if ($i > m) m = $i
	      s = 0; for (i = 1; i <= NF; i++) s += exp($i - m)
	      t = id[p + 2]; x = $(t + 1); r = 1
	      for (i = 1; i <= NF; i++) r += ($i > x)
	      printf "%d %d %.12g %d\n", p + 1, t, x - m - log(s), r }'
}

# same FILE1 FILE2: the lines agree, log-probabilities to 1e-6
same() {
	paste "$1" "$2" | awk '{ if ($1 != $5 || $2 != $6 || $4 != $8) bad++
	    d = $3 - $7; if (d < 0) d = -d; if (d > 1e-6) bad++ }
	    END { exit bad > 0 || NR == 0 }'
}

@test "llm-score: --per-token equals log_softmax of llm-logits' rows" {
	ids=$(printf 'Once upon a time, there was a little girl named Lily.' | tok-encode -m "$M")
	ref "$ids" 1 >want
	echo "$ids" | llm-score -m "$M" --per-token | cut -f 2-5 | tr '\t' ' ' >got
	[ "$(wc -l <got)" -eq $(($(echo "$ids" | wc -w) - 1)) ]
	same got want
	cut -f 1 -d ' ' got | head -1 | grep -qx 1
}

@test "llm-score: the record line is the count, the sum and exp(-mean)" {
	ids=$(printf 'Once upon a time, there was a little girl named Lily.' | tok-encode -m "$M")
	echo "$ids" | llm-score -m "$M" --per-token >tok
	run -0 sh -c "echo '$ids' | llm-score -m '$M'"
	echo "$output" | awk -F '\t' -v n="$(wc -l <tok)" \
	    -v s="$(awk -F '\t' '{ s += $4 } END { printf "%.12g", s }' tok)" '
	    { d = $2 - s; if (d < 0) d = -d
	      e = $3 - exp(-s / n); if (e < 0) e = -e
	      exit !($1 == n && d < 1e-5 && e < 1e-5 * $3 && $3 > 1 && $3 < 10) }'
}

@test "llm-score: --top K appends the likeliest ids, best first" {
	run -0 sh -c "echo '1 403 407' | llm-score -m '$M' --per-token --top 3"
	[ "${#lines[@]}" -eq 2 ]
	echo "${lines[0]}" | awk -F '\t' '{ split($6, a, ":"); split($7, b, ":"); split($8, c, ":")
	    exit !(NF == 8 && a[2] >= b[2] && b[2] >= c[2] && ($5 != 1 || a[1] == $3)) }'
	# the pairs' log-probabilities: the pair at the token's rank holds the
	# token's own, and a token ranked past K is no likelier than the K-th
	ids=$(printf 'Once upon a time, there was a little girl named Lily.' | tok-encode -m "$M")
	echo "$ids" | llm-score -m "$M" --per-token --top 4 | awk -F '\t' '
	    { if (NF != 9) bad++; split($($5 < 4 ? 5 + $5 : 9), p, ":")
	      if ($5 <= 4 && p[2] != $4) bad++; if ($5 > 4 && p[2] < $4) bad++ }
	    END { exit bad > 0 || NR < 10 }'
}

@test "llm-score: --from scores the tail only" {
	ids=$(printf 'Once upon a time, there was a little girl named Lily.' | tok-encode -m "$M")
	echo "$ids" | llm-score -m "$M" --per-token | awk -F '\t' '$2 >= 6' >want
	echo "$ids" | llm-score -m "$M" --per-token --from 6 >got
	cmp got want
	run -0 sh -c "echo '$ids' | llm-score -m '$M' --from 6"
	[ "$(cut -f 1 <<<"$output")" -eq "$(wc -l <want)" ]
}

@test "llm-score: a record longer than the context is scored window by window" {
	ids=$(printf 'Once upon a time, there was a little girl named Lily. She loved to play outside in the sun.' | tok-encode -m "$M")
	n=$(echo "$ids" | wc -w)
	[ "$n" -gt 24 ]
	echo "$ids" | llm-score -m "$M" --ctx 16 --stride 8 --per-token |
	    cut -f 2-5 | tr '\t' ' ' >got
	# windows [0,16) scoring 1..15, [8,24) scoring 16..23, [16,32) ...
	: >want
	b=0 prev=0
	while :; do
		e=$((b + 16)); [ "$e" -le "$n" ] || e=$n
		w=$(echo "$ids" | cut -d ' ' -f $((b + 1))-$e)
		first=$((prev > b + 1 ? prev : b + 1))
		ref "$w" $((first - b)) | awk -v b="$b" '{ $1 += b; print }' >>want
		[ "$e" -lt "$n" ] || break
		prev=$e b=$((b + 8))
	done
	[ "$(wc -l <got)" -eq $((n - 1)) ]
	same got want
}

@test "llm-score: --from over windows: the same tokens, each with its window's context" {
	ids=$(printf 'Once upon a time, there was a little girl named Lily. She loved to play outside in the sun.' | tok-encode -m "$M")
	n=$(echo "$ids" | wc -w)
	# positions 12 (in the first window), 20 (the second's)
	for f in 12 20; do
		echo "$ids" | llm-score -m "$M" --ctx 16 --stride 8 --per-token |
		    awk -F '\t' -v f="$f" '$2 >= f' >want
		echo "$ids" | llm-score -m "$M" --ctx 16 --stride 8 --per-token --from "$f" >got
		cmp got want
		[ "$(echo "$ids" | llm-score -m "$M" --ctx 16 --stride 8 --from "$f" | cut -f 1)" -eq "$(wc -l <want)" ]
	done
	# past the end: nothing to score, said, not 0 0 nan
	run -1 --separate-stderr sh -c "echo '$ids' | llm-score -m '$M' --ctx 16 --stride 8 --per-token --from $n"
	[ -z "$output" ]
	run -1 --separate-stderr sh -c "echo '$ids' | llm-score -m '$M' --from $n"
	[ -z "$output" ]
	[[ $stderr == *"record 1: $n tokens, none to score (--from $n)"* ]]
}

@test "llm-score: the same result on any thread count" {
	ids=$(printf 'Once upon a time, there was a little girl named Lily.' | tok-encode -m "$M")
	a=$(echo "$ids" | llm-score -m "$M" --per-token --top 5 -t 1)
	b=$(echo "$ids" | llm-score -m "$M" --per-token --top 5 -t 2)
	[ "$a" = "$b" ]
}

@test "llm-score: records with nothing to score are bad records, not 0 0 nan" {
	run -1 --separate-stderr sh -c "printf '\n1\n1 2\n' | llm-score -m '$M'"
	[ -z "$output" ]
	[[ $stderr == *"<stdin>: record 1 is empty: no token to score"* ]]
	run -1 --separate-stderr sh -c "printf '1\n1 2\n' | llm-score -m '$M'"
	[ -z "$output" ]
	[[ $stderr == *"<stdin>: record 1: 1 token, none to score (the first is context only"* ]]
	# -k: an empty line each, the good record scored
	run -1 --separate-stderr sh -c "printf '\n1\n1 2\n' | llm-score -k -m '$M'"
	[ "$output" = "$(printf '\n\n'; printf '1 2\n' | llm-score -m "$M")" ]
	[[ $output != *nan* ]]
	[[ $stderr == *"2 of 3 records failed"* ]]
}

@test "llm-score: errors" {
	run -2 --separate-stderr llm-score -m "$M" --top 3
	[[ $stderr == *"--top goes with --per-token"* ]]
	run -2 --separate-stderr llm-score -m "$M" --ctx 16 --stride 17 </dev/null
	[[ $stderr == *stride* ]]
	run -1 --separate-stderr sh -c "echo '1 512' | llm-score -m '$M'"
	[[ $stderr == *"token id 512 not in the vocabulary"* ]]
	# one NaN in the final norm makes every logit NaN
	cp -R "$M" nan
	off=$(st-inspect nan | awk '$1 == "model.norm.weight" { print $5 }')
	printf '\000\000\300\177' | dd of=nan/model.safetensors bs=1 seek="$off" conv=notrunc 2>/dev/null
	run -1 --separate-stderr sh -c "echo '1 403 407' | llm-score -m nan"
	[[ $stderr == *"record 1: position 0: logit 0 is nan"* ]]
	run -0 llm-score --help
	[[ $output == *--stride* ]]
}

@test "llm-score: log_softmax of the reference logits of ../shared/golden" {
	need_shared
	for f in "$SHARED"/golden/logits/*.ids; do
		name=$(basename "$f" .ids)
		[ -d "$SHARED/models/$name" ] || continue
		# the other architectures, once pipelm runs them
		case $name in arch-*)
			llm-score -m "$SHARED/models/$name" </dev/null 2>/dev/null || continue ;;
		esac
		ids=$(cat "$f")
		vocab=$(grep -o '"vocab_size": *[0-9]*' "$SHARED/models/$name/config.json" | grep -o '[0-9]*$')
		# the reference rows as text, from the .npy (128-byte header)
		od -A n -t f4 -v -j 128 "$SHARED/golden/logits/$name.npy" |
		    tr -s ' \n' '\n\n' | grep . |
		    awk -v v="$vocab" -v ids="$ids" '
		    BEGIN { n = split(ids, id, " ") }
		    { x[(NR - 1) % v] = $1 }
		    (NR % v) == 0 { p = NR / v - 1; if (p + 2 > n) next
		      m = x[0]; for (i = 1; i < v; i++) if (x[i] > m) m = x[i]
		      s = 0; for (i = 0; i < v; i++) s += exp(x[i] - m)
		      t = id[p + 2]
		      printf "%d %d %.12g\n", p + 1, t, x[t] - m - log(s) }' >want
		echo "$ids" | llm-score -m "$SHARED/models/$name" --per-token |
		    cut -f 2-4 | tr '\t' ' ' >got
		[ -s want ]
		paste got want | awk -v name="$name" '{ d = $3 - $6; if (d < 0) d = -d
		    if ($1 != $4 || $2 != $5 || d > 2e-5) { print name, $0; bad++ } }
		    END { exit bad > 0 }'
		# and the record's perplexity, exp(-mean) of the reference's
		echo "$ids" | llm-score -m "$SHARED/models/$name" |
		    awk -F '\t' -v name="$name" -v n="$(wc -l <want)" \
		    -v s="$(awk '{ s += $3 } END { printf "%.17g", s }' want)" '
		    { p = exp(-s / n); d = $3 - p; if (d < 0) d = -d
		      if ($1 != n || d > 2e-5 * p) { print name, $0, n, s, p; exit 1 } }'
	done
}
