/* test_regex.c: lib/tok/regex.c, the engine of tokenizer.json Split patterns.
 * The expected matches are Oniguruma's (the engine HuggingFace tokenizers
 * uses, through the onig crate: Ruby syntax, UTF-8), as libonig 6.9.8's
 * onig_search gives them in find_iter's loop (tests/regex-onig compares
 * the two engines on random text as well); the cases on ill-formed UTF-8,
 * which Oniguruma is never given, follow regex.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/tok/regex.h"
#include "../../lib/base/util.h"
#include "test.h"

/* pattern, text, every find_iter match as "start-end ..." */
static const struct { const char *pat, *in, *want; } cases[] = {
	{ "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+",
	    "Hello world! It's 2024,   ok?\x0a\x0a  done", "0-5 5-11 11-12 12-15 15-17 17-22 22-23 23-25 25-28 28-29 29-32 32-37" },
	{ "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+",
	    "I'LL say 'Ve  \xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e \xd9\xa1\xd9\xa2\xd9\xa3 !!", "0-1 1-2 2-4 4-8 8-10 10-12 12-13 13-23 23-30 30-33" },
	{ "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
	    "I'LL pay 1234567 dollars.\x0d\x0a\x0a  Done  ", "0-1 1-4 4-8 8-9 9-12 12-15 15-16 16-24 24-28 28-29 29-34 34-36" },
	{ "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
	    "x'\xc5\xbf 'Re $foo ...\x0a\x09 bar", "0-1 1-4 4-6 6-8 8-10 10-13 13-18 18-19 19-23" },
	{ "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
	    "I'LL pay 1234567 dollars.\x0d\x0a\x0a  Done  ", "0-1 1-4 4-8 8-9 9-10 10-11 11-12 12-13 13-14 14-15 15-16 16-24 24-28 28-29 29-34 34-36" },
	{ "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
	    "HelloWorld it's JSONParser 12345 a/b//\x0a", "0-5 5-10 10-15 15-26 26-27 27-30 30-32 32-34 34-36 36-39" },
	{ "\\p{N}{1,3}",
	    "12345 x \xd9\xa1\xd9\xa2\xd9\xa3\xd9\xa4 \xc2\xb2\xc2\xb3", "0-3 3-5 8-14 14-16 17-21" },
	{ "[\xe4\xb8\x80-\xe9\xbe\xa5\xe3\x81\x80-\xe3\x82\x9f\xe3\x82\xa0-\xe3\x83\xbf]+",
	    "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\xe3\x81\xa8\xe3\x82\xab\xe3\x82\xbf\xe3\x82\xab\xe3\x83\x8a""abc\xe6\xbc\xa2\xe5\xad\x97", "0-24 27-33" },
	{ "[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\\r\\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| ?[\\p{P}\\p{S}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
	    "#include <stdio.h> caf\xc3\xa9 e\xcc\x81 $x\x0a\x0a", "0-8 8-10 10-15 15-17 17-18 18-24 24-28 28-30 30-31 31-33" },
	{ " ?[^(\\s|[.,!?\xe2\x80\xa6\xe3\x80\x82\xef\xbc\x8c\xe3\x80\x81\xe0\xa5\xa4\xdb\x94\xd8\x8c])]+",
	    "Hello, world! \xe4\xbd\xa0\xe5\xa5\xbd\xe3\x80\x82 (a|b)", "0-5 6-12 13-20 25-26 27-28" },
	{ "\\w+",
	    "ab_1 \xc3\xa9\xc2\xb2 \xc2\xbd x", "0-4 5-9 10-12 13-14" },
	{ "[\\w]+",
	    "ab_1 \xc3\xa9\xc2\xb2 \xc2\xbd x", "0-4 5-7 13-14" },
	{ "\\W+",
	    "ab_1 \xc3\xa9\xc2\xb2 \xc2\xbd x", "4-5 9-10 12-13" },
	{ "\\d+",
	    "12 \xd9\xa1\xd9\xa2 \xc2\xb2 x", "0-2 3-7" },
	{ "\\D+",
	    "12 \xd9\xa1\xd9\xa2 \xc2\xb2 x", "2-3 7-12" },
	{ "\\s+",
	    "a \x09\xc2\xa0\xe3\x80\x80""b\xc2\x85", "1-8 9-11" },
	{ "\\S+",
	    "a \x09\xc2\xa0\xe3\x80\x80""b\xc2\x85", "0-1 8-9" },
	{ "\\h+",
	    "0fA9g", "0-4" },
	{ ".",
	    "a\x0a""b", "0-1 2-3" },
	{ "(?m).+",
	    "a\x0a""b", "0-3" },
	{ "\\t|\\n|\\r|\\f|\\v",
	    "\x09\x0a\x0d\x0c\x0b", "0-1 1-2 2-3 3-4 4-5" },
	{ "\\x{3042}|\\u00e9|\\x41|\\xc3\\xa9|\\101|\\cA|\\e",
	    "\xe3\x81\x82\xc3\xa9""A\x01\x1b", "0-3 3-5 5-6 6-7 7-8" },
	{ "\\b",
	    "ab cd", "0-0 2-2 3-3 5-5" },
	{ "\\B",
	    "ab cd", "1-1 4-4" },
	{ "\\b\\w+\\b",
	    "ab, cd\xc2\xb2", "0-2 4-8" },
	{ "^\\w",
	    "ab\x0a""cd\x0a", "0-1 3-4" },
	{ "\\w$",
	    "ab\x0a""cd\x0a", "1-2 4-5" },
	{ "^",
	    "a\x0a", "0-0" },
	{ "$",
	    "a\x0a""b", "1-1 3-3" },
	{ "\\A.",
	    "ab", "0-1" },
	{ ".\\z",
	    "ab\x0a", "" },
	{ "\\Z",
	    "a\x0a", "1-1 2-2" },
	{ "\\G\\w",
	    "ab cd", "0-1 1-2" },
	{ "[^a-z]+",
	    "abC1d", "2-4" },
	{ "[a-z&&[^aeiou]]+",
	    "abcdefg", "1-4 5-7" },
	{ "[\\w&&\\D]+",
	    "ab12c", "0-2 4-5" },
	{ "[]a]+",
	    "a]b", "0-2" },
	{ "[^]a]",
	    "a]b", "2-3" },
	{ "[a-]+",
	    "a-b", "0-2" },
	{ "[[a-c][x-z]]+",
	    "abxdz", "0-3 4-5" },
	{ "[^[^a]]",
	    "ab", "0-1" },
	{ "[\\s\\d]+",
	    "a1 2b", "1-4" },
	{ "[^\\S\\n]+",
	    "a \x09\x0a""b", "1-3" },
	{ "\\p{Lu}\\p{Ll}*",
	    "HelloWorld \xc3\x89T\xc3\x89", "0-5 5-10 11-13 13-14 14-16" },
	{ "\\p{^L}+",
	    "ab12cd", "2-4" },
	{ "\\P{N}+",
	    "ab12cd", "0-2 4-6" },
	{ "\\P{^N}+",
	    "ab12cd", "2-4" },
	{ "\\p{Letter}+",
	    "abc1", "0-3" },
	{ "\\p{ uppercase letter }",
	    "aBc", "1-2" },
	{ "\\p{Pd}|\\p{Ps}|\\p{Pe}",
	    "-(a)", "0-1 1-2 3-4" },
	{ "\\p{Sc}|\\p{Sm}|\\p{So}",
	    "$+\xc2\xa9\xe2\x82\xac", "0-1 1-2 2-4 4-7" },
	{ "\\p{Cc}+",
	    "a\x09\x01""b", "1-3" },
	{ "\\p{Nl}|\\p{No}",
	    "\xe2\x85\xab\xc2\xbd""1", "0-3 3-5" },
	{ "\\p{Mn}",
	    "e\xcc\x81", "1-3" },
	{ "\\p{Lo}+",
	    "\xe6\x97\xa5\xe6\x9c\xac""a", "0-6" },
	{ "\\p{Zs}",
	    "a b\xc2\xa0""c\x09""d", "1-2 3-5" },
	{ "\\p{LC}+",
	    "aB\xc7\x85\xe6\x97\xa5", "0-4" },
	{ "\\p{Any}",
	    "a\x0a", "0-1 1-2" },
	{ "(?i)[a-z]+",
	    "HeLLo", "0-5" },
	{ "(?i)[^k]",
	    "kK\xe2\x84\xaax", "5-6" },
	{ "(?i)hello|world",
	    "HELLO World", "0-5 6-11" },
	{ "(?i:'s|'t|'ll)",
	    "'S 'T 'Ll '\xc5\xbf", "0-2 3-5 6-9 10-13" },
	{ "(?i)\\x{212a}",
	    "kK", "0-1 1-2" },
	{ "(?i)stra",
	    "STRA", "0-4" },
	{ "a(?i)b|c",
	    "aB C", "0-2" },
	{ "(?i)a(?-i)b",
	    "AB Ab", "3-5" },
	{ "(?i)\\p{Lu}",
	    "aA", "1-2" },
	{ "a*",
	    "baaa", "0-0 1-4" },
	{ "(|a)*",
	    "aa", "0-0 1-1 2-2" },
	{ "(a|)*b",
	    "aab", "0-3" },
	{ "(a*)*",
	    "aa", "0-2" },
	{ "(a|b)*?b",
	    "aabab", "0-3 3-5" },
	{ "x{2,3}",
	    "xxxxxxx", "0-3 3-6" },
	{ "\\p{N}{2,}",
	    "1 12 123", "2-4 5-8" },
	{ "\\p{L}{,2}",
	    "abc", "0-2 2-3" },
	{ "\\w{3,1}",
	    "abcd", "0-3 3-4" },
	{ "[a-z]+?",
	    "abc", "0-1 1-2 2-3" },
	{ "(?:\\w\\s?){2,4}?",
	    "ab cd", "0-3 3-5" },
	{ "(?:ll|l)+",
	    "lll", "0-3" },
	{ "\\w++",
	    "ab cd", "0-2 3-5" },
	{ "\\s?+\\S",
	    " a  b", "0-2 3-5" },
	{ "\\p{L}*+a",
	    "aaa", "" },
	{ "\\s+(?!\\S)",
	    "a   b  ", "1-3 5-7" },
	{ "\\w+(?=\\s)",
	    "ab cd", "0-2" },
	{ "(?=\\w*\\d)\\w+",
	    "ab c1", "3-5" },
	{ "(?x) \\w + # word",
	    "ab cd", "0-2 3-5" },
	{ "(?<w>\\w+)\\s",
	    "ab cd", "0-3" },
	{ "(?#c)a|b",
	    "ab", "0-1 1-2" },
	{ "e{",
	    "e{", "0-2" },
	{ "a{,2}",
	    "aaa", "0-2 2-3" },
	{ "(?i)[\\p{Lu}]", "aA", "0-1 1-2" },
	{ "(?i)[^\\p{Lu}]", "aA", "" },
	{ "(?i)[^a-z]", "\xe2\x84\xaa", "" },
	{ "a{2}?", "aaa", "0-2 3-3" },
	{ "a{1,2}?", "aa", "0-1 1-2" },
	{ "\\303\\251", "\xc3\xa9", "0-2" },
	/* Split patterns of other tokenizer.json files: Kimi (\\p{Han}, &&),
	 * Qwen3.5, LLaDA (possessive), Cohere2 (a lookahead with a loop),
	 * Laguna, DeepSeek-Coder-V2 (two), zeta */
	{ "[\\p{Han}]+|[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}&&[^\\p{Han}]]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}&&[^\\p{Han}]]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}&&[^\\p{Han}]]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}&&[^\\p{Han}]]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
	    "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\xe3\x81\xa8HelloWorld's \xe4\xb8\xad\xe6\x96\x87""abc 1234\x0a", "0-9 9-17 17-24 24-25 25-31 31-34 34-35 35-38 38-39 39-40" },
	{ "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?[\\p{L}\\p{M}]+|\\p{N}| ?[^\\s\\p{L}\\p{M}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
	    "na\xc3\xafve cafe\xcc\x81 \xc3\x9cn\xc3\xaf""c\xc3\xb6""d\xc3\xa9 42!!\x0a\x0a", "0-6 6-13 13-25 25-26 26-27 27-28 28-32" },
	{ "'(?i:[sdmt]|ll|ve|re)|[^\\r\\n\\p{L}\\p{N}]?+\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]++[\\r\\n]*|\\s*[\\r\\n]|\\s+(?!\\S)|\\s+",
	    "It'LL be ok: x=1234;\x0d\x0a  y", "0-2 2-5 5-8 8-11 11-12 12-14 14-15 15-16 16-17 17-18 18-19 19-22 22-23 23-25" },
	{ "\\d{1,3}(?=(?:\\d{3})*\\b)",
	    "1234567 12 123456", "0-1 1-4 4-7 8-10 11-14 14-17" },
	{ "(?:\\r?\\n)+(?!\\r?\\n)",
	    "a\x0a\x0d\x0a\x0a""b\x0d\x0a""c", "1-5 6-8" },
	{ "\\s+$",
	    "code  \x0a  \x0a", "4-10" },
	{ "\\s?[A-Za-z\xc2\xb5\xc3\x80-\xc3\x96\xc3\x98-\xc3\xb6\xc3\xb8-\xc6\xba\xc6\xbc-\xc6\xbf\xc7\x84-\xca\x93\xca\x95-\xca\xaf\xcd\xb0-\xcd\xb3\xcd\xb6\xcd\xb7\xcd\xbb-\xcd\xbd\xcd\xbf\xce\x86\xce\x88-\xce\x8a\xce\x8c\xce\x8e-\xce\xa1\xce\xa3-\xcf\xb5\xcf\xb7-\xd2\x81\xd2\x8a-\xd4\xaf\xd4\xb1-\xd5\x96\xe1\x82\xa0-\xe1\x83\x85\xe1\x8e\xa0-\xe1\x8f\xb5\xe1\x8f\xb8-\xe1\x8f\xbd\xe1\xb2\x90-\xe1\xb2\xba\xe1\xb2\xbd-\xe1\xb2\xbf\xe1\xb4\x80-\xe1\xb4\xab\xe1\xb5\xab-\xe1\xb5\xb7\xe1\xb5\xb9-\xe1\xb6\x9a\xe1\xb8\x80-\xe1\xbc\x95\xe1\xbc\x98-\xe1\xbc\x9d\xe1\xbc\xa0-\xe1\xbd\x85\xe1\xbd\x88-\xe1\xbd\x8d\xe1\xbd\x90-\xe1\xbd\x97\xe1\xbd\x99\xe1\xbd\x9b\xe1\xbd\x9d\xe1\xbd\x9f-\xe1\xbd\xbd\xe1\xbe\x80-\xe1\xbe\xb4\xe1\xbe\xb6-\xe1\xbe\xbc\xe1\xbe\xbe\xe1\xbf\x82-\xe1\xbf\x84\xe1\xbf\x86-\xe1\xbf\x8c\xe1\xbf\x90-\xe1\xbf\x93\xe1\xbf\x96-\xe1\xbf\x9b\xe1\xbf\xa0-\xe1\xbf\xac\xe1\xbf\xb2-\xe1\xbf\xb4\xe1\xbf\xb6-\xe1\xbf\xbc\xe2\x84\x82\xe2\x84\x87\xe2\x84\x8a-\xe2\x84\x93\xe2\x84\x95\xe2\x84\x99-\xe2\x84\x9d\xe2\x84\xa4\xe2\x84\xa6\xe2\x84\xa8\xe2\x84\xaa-\xe2\x84\xad\xe2\x84\xaf-\xe2\x84\xb4\xe2\x84\xb9\xe2\x84\xbc-\xe2\x84\xbf\xe2\x85\x85-\xe2\x85\x89\xe2\x85\x8e\xe2\x86\x83\xe2\x86\x84\xe2\xb0\x80-\xe2\xb1\xbb\xe2\xb1\xbe-\xe2\xb3\xa4\xe2\xb3\xab-\xe2\xb3\xae\xe2\xb3\xb2\xe2\xb3\xb3\xea\x99\x80-\xea\x99\xad\xea\x9a\x80-\xea\x9a\x9b\xea\x9c\xa2-\xea\x9d\xaf\xea\x9d\xb1-\xea\x9e\x87\xea\x9e\x8b-\xea\x9e\x8e\xea\xad\xb0-\xea\xae\xbf\xef\xac\x80-\xef\xac\x86\xef\xac\x93-\xef\xac\x97\xef\xbc\xa1-\xef\xbc\xba\xef\xbd\x81-\xef\xbd\x9a\xf0\x90\x90\x80-\xf0\x90\x91\x8f\xf0\x90\x92\xb0-\xf0\x90\x93\x93\xf0\x90\x93\x98-\xf0\x90\x93\xbb\xf0\x90\xb2\x80-\xf0\x90\xb2\xb2\xf0\x90\xb3\x80-\xf0\x90\xb3\xb2\xf0\x91\xa2\xa0-\xf0\x91\xa3\x9f\xf0\x9e\xa4\x80-\xf0\x9e\xa5\x83]+",
	    "Hello \xe2\x84\xa6mega Stra\xc3\x9f""e \xef\xbd\x86\xef\xbd\x95\xef\xbd\x8c\xef\xbd\x8c \xe1\xbd\xbd\xcf\x8e", "0-5 5-13 13-21 21-34 34-40" },
	{ "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\x0d\x0a\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1}| ?[^\\s\\p{L}\\p{N}\x0d\x0a]+|\\s*[\x0d\x0a]+|\\s+(?!\\S)|\\s+",
	    "x!!\x0d\x0a""12", "0-1 1-3 3-5 5-6 6-7" },
	/* an iteration that matched empty ends its loop (Oniguruma's empty
	 * check), also when a lazy or optional part inside could go on */
	{ "(?:\\wA|a?|..)+", "xABA 1aa", "0-4 5-5 6-8" },
	{ "(?:(?:\\wA|a?){1,2}?|..)+", "xABA 1aa", "0-4 5-5 6-8" },
	{ "(?:a|(?:b?)*?)+c", "abbc", "0-4" },
	/* ill-formed UTF-8: a byte of no class (regex.h) */
	{ ".", "a\xff\x80" "b", "0-1 1-2 2-3 3-4" },
	{ "[^a]", "a\xff", "1-2" },
	{ "\\p{L}|\\p{C}|\\p{Cn}|\\w|\\s|\\d", "\xff\xc3", "" },
	{ "\\W\\S\\D\\P{L}\\H", "\xff\xff\xff\xff\xff", "0-5" },
	{ "(?i)\xc5\xbf", "\xc5", "" },
	{ " ?[^\\s\\p{L}\\p{N}]+", "a \xe9\xff!b", "1-5" },
	{ "\\b", "a\xff", "0-0 1-1" },
	{ "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
	    "ab\xc3(cd \xf0\x9f\x98", "0-2 2-4 4-6 6-10" },
};

static void
spans(struct re *re, const char *s, size_t n, char *out, size_t cap)
{
	struct re_iter it = { 0 };
	size_t a, b, k = 0;

	out[0] = 0;
	while (re_next(re, s, n, &it, &a, &b) && k + 48 < cap)
		k += snprintf(out + k, cap - k, "%s%zu-%zu", k ? " " : "", a, b);
}

static void
test_cases(void)
{
	char got[4096], err[200];
	size_t i;

	for (i = 0; i < LEN(cases); i++) {
		struct re *re;
		if (re_compile(&re, cases[i].pat, strlen(cases[i].pat), err, sizeof err) < 0) {
			fprintf(stderr, "case %zu: %s: %s\n", i, cases[i].pat, err);
			fails++;
			continue;
		}
		spans(re, cases[i].in, strlen(cases[i].in), got, sizeof got);
		if (strcmp(got, cases[i].want)) {
			fprintf(stderr, "case %zu: %s: want \"%s\", got \"%s\"\n",
			    i, cases[i].pat, cases[i].want, got);
			fails++;
		}
		re_free(re);
	}
}

/* re_search itself: the start offset, and ^ \b \G seeing text before it */
static void
test_search(void)
{
	struct re *re;
	char err[200];
	size_t a = 9, b = 9;

	CHECK(re_compile(&re, "^b|\\Gc|\\bd", 10, err, sizeof err) == 0);
	CHECK(re_search(re, "ab", 2, 1, &a, &b) == 0);
	CHECK(re_search(re, "a\nb", 3, 1, &a, &b) == 1 && a == 2 && b == 3);
	CHECK(re_search(re, "xcc", 3, 2, &a, &b) == 1 && a == 2 && b == 3);
	CHECK(re_search(re, "xd d", 4, 1, &a, &b) == 1 && a == 3 && b == 4);
	CHECK(re_search(re, "b", 1, 2, &a, &b) == 0);
	re_free(re);
	CHECK(re_compile(&re, "", 0, err, sizeof err) == 0);
	CHECK(re_search(re, "", 0, 0, &a, &b) == 1 && a == 0 && b == 0);
	re_free(re);
}

/* Malformed or refused patterns: a message with the byte offset. */
static void
test_errors(void)
{
	static const struct { const char *pat, *msg; } bad[] = {
		{ "(a", "end pattern with unmatched parenthesis at offset 0" },
		{ "a)", "unmatched close parenthesis at offset 1" },
		{ "ab[c", "premature end of char-class at offset 2" },
		{ "*a", "target of repeat operator is not specified at offset 0" },
		{ "a|+", "target of repeat operator is not specified at offset 2" },
		{ "\\p{Foo}", "invalid character property name {Foo} at offset 0" },
		{ "[b-a]", "empty range in char class at offset 2" },
		{ "[\\w-z]", "unmatched range specifier in char-class at offset 3" },
		{ "a{100001}", "too big number for repeat range at offset 1" },
		{ "(?<=a)b", "lookbehind is not supported at offset 0" },
		{ "(?>a)", "atomic groups are not supported at offset 0" },
		{ "(a)\\1", "backreferences are not supported at offset 3" },
		{ "(?z)", "undefined group option at offset 0" },
		{ "(?)", "undefined group option at offset 0" },
		{ "\\303", "invalid code point value at offset 0" },
		{ "a\\", "end pattern at escape at offset 1" },
		{ "\\x80", "invalid code point value at offset 0" },
		{ "\\x{110000}", "invalid code point value at offset 0" },
		{ "ab\xff", "invalid UTF-8 in pattern at offset 2" },
		{ "(?:ab)++", "possessive quantifiers are only supported on a single character at offset 6" },
		{ "[[:alpha:]]", "POSIX bracket expressions are not supported at offset 1" },
		{ "\\K", "unsupported escape \\K at offset 0" },
		{ "^*", "target of repeat operator is invalid at offset 1" },
		{ "(?:a|\\b)+", "target of repeat operator is invalid at offset 8" },
		{ "(?=a)?", "target of repeat operator is invalid at offset 5" },
	};
	char err[200];
	struct re *re;
	size_t i;

	for (i = 0; i < LEN(bad); i++) {
		if (re_compile(&re, bad[i].pat, strlen(bad[i].pat), err, sizeof err) == 0) {
			fprintf(stderr, "%s: compiled\n", bad[i].pat);
			re_free(re);
			fails++;
		} else if (strcmp(err, bad[i].msg)) {
			fprintf(stderr, "%s: want \"%s\", got \"%s\"\n", bad[i].pat, bad[i].msg, err);
			fails++;
		}
	}
	/* a small buffer truncates, and no buffer is fine */
	CHECK(re_compile(&re, "(", 1, err, 4) < 0 && !strcmp(err, "end"));
	CHECK(re_compile(&re, "(", 1, NULL, 0) < 0);
}

/* Hostile patterns: refused at compile time, or a search whose steps grow
 * with the text, not exponentially (backtracking takes 2^n steps on most
 * of these). */
static void
test_bounds(void)
{
	static const char *hostile[] = {
		"(a*)*b", "(a|a)*b", "(a|aa)*c", "((a*)*)*b", "(?:a{1,10}){1,10}b",
		"(\\w+\\s?)*$", "(a?){30}a{30}", "(?:(?:a+)+)+b",
	};
	/* unbounded lookaheads, once per position they would be quadratic:
	 * their tables take linear steps (issue 31: a(?=[^z]*z) over 80000
	 * a's took 45 s), find_iter's searches included */
	static const char *looks[] = { "(?=(a*)*b)a", "(?:(?!a*b)a)*b", "\\s+(?!\\S)|a",
		"a(?=[^z]*z)", "a(?=(?![^z]*y)[^z]*z)" };
	char err[200], *s, *deep;
	size_t n, i, depth = 10000, a, b;
	struct re *re;

	n = 5000;
	s = malloc(n);
	deep = malloc(2 * depth + 1);
	CHECK(s && deep);
	if (!s || !deep)
		return;
	memset(s, 'a', n);
	for (i = 0; i < LEN(hostile); i++) {
		unsigned long long steps;
		struct re_iter it = { 0 };
		if (re_compile(&re, hostile[i], strlen(hostile[i]), err, sizeof err) < 0) {
			fprintf(stderr, "%s: %s\n", hostile[i], err);
			fails++;
			continue;
		}
		/* one search over the whole text, and find_iter over a tenth */
		re_search(re, s, n, 0, &a, &b);
		steps = re_steps(re);
		if (steps > 2000ull * n) {
			fprintf(stderr, "%s: %llu steps on %zu bytes\n", hostile[i], steps, n);
			fails++;
		}
		while (re_next(re, s, n / 10, &it, &a, &b))
			;
		if (re_steps(re) - steps > 2000ull * (n / 10) * (n / 10)) {
			fprintf(stderr, "%s: find_iter %llu steps\n", hostile[i], re_steps(re) - steps);
			fails++;
		}
		re_free(re);
	}
	for (i = 0; i < LEN(looks); i++) {
		struct re_iter it = { 0 };
		unsigned long long steps;
		size_t k = 0;
		if (re_compile(&re, looks[i], strlen(looks[i]), err, sizeof err) < 0) {
			fprintf(stderr, "%s: %s\n", looks[i], err);
			fails++;
			continue;
		}
		steps = re_steps(re);
		re_search(re, s, n, 0, &a, &b);
		while (re_next(re, s, n, &it, &a, &b))
			k++;
		if (re_steps(re) - steps > 200ull * n) {
			fprintf(stderr, "%s: %llu steps on %zu bytes\n", looks[i], re_steps(re) - steps, n);
			fails++;
		}
		/* a's only: the lookaheads of the last two never hold */
		CHECK(i < 3 || k == 0);
		re_free(re);
	}
	/* the tables give the scans' answers: a z at the end */
	CHECK(re_compile(&re, "a(?=[^z]*z)|b", 11, err, sizeof err) == 0);
	if (re) {
		struct re_iter it = { 0 };
		size_t k = 0;
		s[n - 1] = 'z';
		while (re_next(re, s, n, &it, &a, &b))
			k += b == a + 1 && s[a] == 'a';
		CHECK(k == n - 1);
		s[n - 1] = 'a';
		/* a new text at the same place, searched from 0 again */
		CHECK(re_search(re, s, n, 0, &a, &b) == 0);
		re_free(re);
	}
	/* closures as long as the program: compiled and run in bounded steps */
	CHECK(re_compile(&re, "(?:a?){20000}b", 14, err, sizeof err) == 0);
	if (re) {
		unsigned long long c = re_steps(re);
		CHECK(c < 4000000);
		CHECK(re_search(re, s, 200, 0, &a, &b) == 0);
		CHECK(re_steps(re) - c < 300ull * 20000 * 200);
		re_free(re);
	}
	/* 10000 nested groups and nested counted repetition: refused */
	for (i = 0; i < depth; i++)
		deep[i] = '(', deep[2 * depth - i] = ')';
	deep[depth] = 'a';
	CHECK(re_compile(&re, deep, 2 * depth + 1, err, sizeof err) < 0);
	CHECK(!strcmp(err, "groups nested too deeply at offset 200"));
	memset(deep, '[', depth);
	CHECK(re_compile(&re, deep, depth, err, sizeof err) < 0);
	CHECK(!strcmp(err, "classes nested too deeply at offset 200"));
	CHECK(re_compile(&re, "((a{100}){100}){100}", 20, err, sizeof err) < 0);
	CHECK(!strncmp(err, "pattern too large", 17));
	CHECK(re_compile(&re, "(a{1000}){100}", 14, err, sizeof err) < 0);
	CHECK(re_compile(&re, "(a{100}){100}", 13, err, sizeof err) == 0);
	if (re) {
		memset(s, 'a', n);
		CHECK(re_search(re, s, n, 0, &a, &b) == 0);
		CHECK(re_search(re, s, n, 0, &a, &b) == 0);
		re_free(re);
	}
	free(deep);
	free(s);
}

/* Any byte string as a pattern: compiled or refused with a message, and
 * a compiled one searches a text to its end (ASan build: no bad access). */
static void
test_garbage(void)
{
	static const char alpha[] = "ab()[]{}|*+?^$.\\-&:=!<>#,0123pPxuwsdSbBAzZGi\xc3\xa9\xff";
	unsigned long long x = 88172645463325252ull;
	char pat[24], err[200];
	const char *text = "ab12 (cd) [x]\n\xc3\xa9\xff{3}";
	size_t t, i, n, a, b;

	for (t = 0; t < 20000; t++) {
		struct re *re;
		struct re_iter it = { 0 };
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		n = 1 + x % sizeof pat;
		for (i = 0; i < n; i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			pat[i] = alpha[x % (sizeof alpha - 1)];
		}
		if (re_compile(&re, pat, n, err, sizeof err) < 0) {
			if (!err[0] || !strstr(err, "offset"))
				if (strncmp(err, "pattern too large", 17)) {
					fprintf(stderr, "%.*s: message \"%s\"\n", (int)n, pat, err);
					fails++;
				}
			continue;
		}
		while (re_next(re, text, strlen(text), &it, &a, &b))
			CHECK(a <= b && b <= strlen(text));
		re_free(re);
	}
}

/* Quantifiers one after another are no nesting; one on another is. */
static void
test_depth(void)
{
	char pat[3 * 300 + 1], err[200];
	struct re *re;
	size_t i;

	for (i = 0; i < 300; i++)
		memcpy(pat + 2 * i, "a*", 2);
	CHECK(re_compile(&re, pat, 600, err, sizeof err) == 0);
	re_free(re);
	memset(pat + 1, '*', 299);
	CHECK(re_compile(&re, pat, 300, err, sizeof err) < 0);
	CHECK(!strcmp(err, "quantifiers nested too deeply at offset 201"));
}

int
main(void)
{
	argv0 = "test_regex";
	test_cases();
	test_search();
	test_errors();
	test_bounds();
	test_garbage();
	test_depth();
	return test_end("test_regex");
}
