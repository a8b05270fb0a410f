#!/usr/bin/env bats
# lib/tok/regex.c against Oniguruma (tests/regex-onig), where libonig is here.

load helpers

@test "regex: the same matches as Oniguruma on tokenizer patterns, random patterns and random text" {
	[ -x "$TOOLS/regex-onig" ] || skip "regex-onig not built (needs libonig-dev and pkg-config)"
	run "$TOOLS/regex-onig" -n 2000 -r 2000 -s 7
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *", 0 patterns differ"*", 0 patterns differ"* ]]
}

@test "regex: regex-onig -p shows both engines' matches" {
	[ -x "$TOOLS/regex-onig" ] || skip "regex-onig not built (needs libonig-dev and pkg-config)"
	run "$TOOLS/regex-onig" -p '\w+' 'ab cd'
	[ "$status" -eq 0 ]
	[[ "$output" != *DIFFER* ]]
	[[ "$output" == *"onig: [0,2) [3,5)"* ]]
}
