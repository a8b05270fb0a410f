/* tok_scan.c: scanners, the pattern finders of Split (see tok_int.h).
 *
 * Which scanner a pattern gets is decided here and only here: a String
 * pattern is a literal; a Regex is looked up by its exact text among the
 * regexes real checkpoints carry, which have hand-written scanners (the
 * GPT-2, Llama 3 and Qwen2 pre-tokenizer regexes and \p{N}), proven
 * equal to the engine on them (tests/unit/test_regex_scan.c); any other
 * regex is compiled by the engine of lib/tok/regex.h (Oniguruma's syntax and
 * leftmost-first matches, in bounded time), which refuses, with the
 * offset, what it does not support. */
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "tok/regex.h"
#include "tok/tok_int.h"
#include "base/util.h"

#define OTHER(c) (!((c) & (UNI_L | UNI_N | UNI_WS)))

/* run of characters whose class has any bit of want (or, if other, of
 * none of L, N, WS) from i: its end */
static size_t
run(const unsigned char *s, size_t n, size_t i, unsigned want, int other)
{
	size_t len;

	while (i < n) {
		unsigned c = tok_cls(s, n, i, &len);
		if (other ? !OTHER(c) : !(c & want))
			break;
		i += len;
	}
	return i;
}

/* \s+(?!\S)|\s+ from i, s[i] white space */
static size_t
spaces(const unsigned char *s, size_t n, size_t i)
{
	size_t j = i, last = i, len;

	while (j < n && (tok_cls(s, n, j, &len) & UNI_WS))
		last = j, j += len;
	if (j == n || last == i)
		return j;
	return last;	/* leave one space for the next word */
}

static int
lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c + 32 : c;
}

/* 's|'t|'re|'ve|'m|'ll|'d, optionally caseless (ſ folds to s): end or i */
static size_t
contraction(const unsigned char *s, size_t n, size_t i, int caseless)
{
	int a, b;

	if (i + 1 >= n || s[i] != '\'')
		return i;
	a = caseless ? lower(s[i + 1]) : s[i + 1];
	b = i + 2 < n ? (caseless ? lower(s[i + 2]) : s[i + 2]) : 0;
	if (a == 's' || a == 't' || a == 'm' || a == 'd')
		return i + 2;
	if ((a == 'r' && b == 'e') || (a == 'v' && b == 'e') || (a == 'l' && b == 'l'))
		return i + 3;
	if (caseless && s[i + 1] == 0xc5 && b == 0xbf)
		return i + 3;
	return i;
}

/* GPT-2: 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
 * from i < n: the end of the match, which starts at i (every character
 * is a letter, a number, white space or none of them) */
static size_t
scan_gpt2(const unsigned char *s, size_t n, size_t i)
{
	size_t j, len, e;
	unsigned c;

	if ((e = contraction(s, n, i, 0)) > i)
		return e;
	j = i;
	if (s[i] == ' ' && i + 1 < n)
		j++;
	c = tok_cls(s, n, j, &len);
	if (c & UNI_L)
		return run(s, n, j + len, UNI_L, 0);
	if (c & UNI_N)
		return run(s, n, j + len, UNI_N, 0);
	if (OTHER(c))
		return run(s, n, j + len, 0, 1);
	return spaces(s, n, i);
}

/* Llama 3 (maxdigits 3) and Qwen2 (1), the same way:
 * (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}|
 *  ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+ */
static size_t
scan_llama3(const unsigned char *s, size_t n, size_t i, int maxdigits)
{
	size_t j, len, len2, e, last;
	unsigned c, c2;
	int k;

	if ((e = contraction(s, n, i, 1)) > i)
		return e;
	c = tok_cls(s, n, i, &len);
	if (c & UNI_L)
		return run(s, n, i + len, UNI_L, 0);
	if (!(c & UNI_N) && s[i] != '\r' && s[i] != '\n' && i + len < n &&
	    (tok_cls(s, n, i + len, &len2) & UNI_L))
		return run(s, n, i + len + len2, UNI_L, 0);
	if (c & UNI_N) {
		for (j = i + len, k = 1; k < maxdigits && j < n; k++) {
			if (!(tok_cls(s, n, j, &len2) & UNI_N))
				break;
			j += len2;
		}
		return j;
	}
	j = i;
	if (s[i] == ' ' && i + 1 < n)
		j++, c2 = tok_cls(s, n, j, &len2);
	else
		c2 = c, len2 = len;
	if (OTHER(c2)) {
		j = run(s, n, j + len2, 0, 1);
		while (j < n && (s[j] == '\r' || s[j] == '\n'))
			j++;
		return j;
	}
	/* white space: \s*[\r\n]+ ends after the last \r or \n of the run */
	for (j = i, last = n + 1; j < n; j += len) {
		if (!(tok_cls(s, n, j, &len) & UNI_WS))
			break;
		if (s[j] == '\r' || s[j] == '\n')
			last = j;
	}
	if (last <= n)
		return last + 1;
	return spaces(s, n, i);
}

/* ---- find functions ---- */

static int
find_gpt2(const void *st, const char *s, size_t n, size_t start, size_t *ms, size_t *me)
{
	(void)st;
	if (start >= n)
		return 0;
	*ms = start;
	*me = scan_gpt2((const unsigned char *)s, n, start);
	return 1;
}

static int
find_llama3(const void *st, const char *s, size_t n, size_t start, size_t *ms, size_t *me)
{
	(void)st;
	if (start >= n)
		return 0;
	*ms = start;
	*me = scan_llama3((const unsigned char *)s, n, start, 3);
	return 1;
}

static int
find_qwen2(const void *st, const char *s, size_t n, size_t start, size_t *ms, size_t *me)
{
	(void)st;
	if (start >= n)
		return 0;
	*ms = start;
	*me = scan_llama3((const unsigned char *)s, n, start, 1);
	return 1;
}

/* \p{N}: the next numeric character */
static int
find_numeric(const void *st, const char *s, size_t n, size_t start, size_t *ms, size_t *me)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i, len;

	(void)st;
	for (i = start; i < n; i += len) {
		if (u[i] < 0x80) {	/* the ASCII numbers are the digits */
			len = 1;
			if ((unsigned)u[i] - '0' < 10)
				break;
		} else if (tok_cls(u, n, i, &len) & UNI_N) {
			break;
		}
	}
	if (i >= n)
		return 0;
	*ms = i, *me = i + len;
	return 1;
}

struct literal {
	size_t n;
	char s[];
};

static int
find_literal(const void *st, const char *s, size_t n, size_t start, size_t *ms, size_t *me)
{
	const struct literal *l = st;
	const char *f;

	if (start > n || n - start < l->n || !(f = tok_find(s + start, n - start, l->s, l->n)))
		return 0;
	*ms = f - s, *me = *ms + l->n;
	return 1;
}

/* The regexes with hand scanners, by their exact text. */
static const struct {
	const char *re;
	int (*find)(const void *, const char *, size_t, size_t, size_t *, size_t *);
} known[] = {
	{ TOK_RE_GPT2, find_gpt2 },
	{ "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+", find_llama3 },
	{ "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+", find_qwen2 },
	{ TOK_RE_NUMERIC, find_numeric },
};

/* The engine as a scanner: its scratch memory is the tokenizer's, used
 * by one thread at a time (as struct tok is). */
static int
find_re(const void *st, const char *s, size_t n, size_t start, size_t *ms,
    size_t *me)
{
	return re_search((struct re *)st, s, n, start, ms, me);
}

static void
free_re(void *st)
{
	re_free(st);
}

int
tok_scan_regex(struct tok_ld *L, const char *what, const char *re, size_t n, struct tok_scan *sc)
{
	struct re *r;
	char err[160];
	size_t i;

	memset(sc, 0, sizeof *sc);
	for (i = 0; i < LEN(known); i++)
		if (strlen(known[i].re) == n && !memcmp(re, known[i].re, n)) {
			sc->find = known[i].find;
			return 0;
		}
	if (re_compile(&r, re, n, err, sizeof err) < 0)
		return error("%s: %s regex %.*s: %s", L->path, what, (int)n, re,
		    err);
	sc->find = find_re, sc->st = r, sc->free = free_re;
	return 0;
}

int
tok_scan_pattern(struct tok_ld *L, const char *what, const struct json *pattern, struct tok_scan *sc)
{
	const struct json *re = json_get(pattern, "Regex");
	struct literal *l;
	char *lit;
	size_t n;

	memset(sc, 0, sizeof *sc);
	if (json_str(re))
		return tok_scan_regex(L, what, re->u.str, re->len, sc);
	if (!json_get(pattern, "String"))
		return error("%s: %s: bad pattern", L->path, what);
	if (tok_getstr(L, pattern, "String", 1, &lit, &n) < 0)
		return -1;
	if (!n || !(l = xmalloc(sizeof *l + n))) {
		free(lit);
		return n ? -1 : error("%s: %s: empty pattern", L->path, what);
	}
	l->n = n;
	memcpy(l->s, lit, n);
	free(lit);
	sc->find = find_literal, sc->st = l, sc->free = free;
	return 0;
}

int
tok_replace(const struct tok_scan *sc, const char *s, size_t n, const char *b,
    size_t bn, struct tok_buf *out)
{
	size_t at = 0, end = 0, ms, me;
	uint32_t cp;
	int any = 0;

	out->n = 0;
	if (!n)		/* tokenizers' find_matches: no match in "" */
		return 0;
	while (at <= n && sc->find(sc->st, s, n, at, &ms, &me)) {
		/* as rust-onig's find_iter: no empty match where the last
		 * one ended; search again a character on */
		if (ms == me && any && me == end) {
			at += at < n ? uni_decode((const unsigned char *)s + at, n - at, &cp) : 1;
			continue;
		}
		if (tok_buf_add(out, s + end, ms - end) < 0 || tok_buf_add(out, b, bn) < 0)
			return -1;
		at = end = me, any = 1;
	}
	if (!any)
		return 0;
	return tok_buf_add(out, s + end, n - end) < 0 ? -1 : 1;
}

void
tok_scan_free(struct tok_scan *sc)
{
	if (sc->free)
		sc->free(sc->st);
	memset(sc, 0, sizeof *sc);
}
