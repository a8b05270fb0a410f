/* regex-onig: lib/tok/regex.c against Oniguruma itself, a developer and CI
 * oracle (built only where pkg-config finds oniguruma; never linked into
 * lib/ or the programs).  Patterns are compiled the way HuggingFace
 * tokenizers does through the onig crate (Regex::new: ONIG_SYNTAX_RUBY,
 * ONIG_OPTION_NONE, UTF-8) and every find_iter match is compared.
 *
 * usage: regex-onig [-n strings] [-r patterns] [-s seed]
 *                                        the built-in patterns (and random ones)
 *        regex-onig -p pattern text ...      show both engines' matches */
#include <oniguruma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/tok/regex.h"
#include "../../lib/base/unicode.h"
#include "pats.h"

/* pieces the random strings are made of: scripts, digits of several
 * kinds, spaces of several kinds, marks, contractions, case oddities;
 * all assigned before Unicode 14, which libonig 6.9.8 has */
static const char *pieces[] = {
	"a", "b", "Z", "x", "hello", "World", "THE", "s", "t", "re", "ll", "d",
	"0", "7", "42", "2024", "3.14", "\xd9\xa3", "\xe0\xa5\xa8", "\xef\xbc\x95",
	"\xc2\xb2", "\xc2\xbd", "\xe2\x85\xab",
	" ", " ", " ", "  ", "\t", "\n", "\r\n", "\r", "\n\n", "\v", "\f",
	"\xc2\xa0", "\xe2\x80\x83", "\xe3\x80\x80", "\xc2\x85", "\xe2\x80\xa8",
	"'", "'s", "'S", "'t", "'re", "'RE", "'ve", "'m", "'ll", "'LL", "'d",
	"'\xc5\xbf", "\xe2\x84\xaa", "\xc5\xbf",
	".", ",", "!", "?", "-", "_", "(", ")", "[", "]", "{", "}", "/", "\\",
	"\"", "#", "$", "%", "&", "*", "+", "=", "<", ">", "@", "^", "`", "|", "~",
	":", ";", "...", "\xe2\x80\xa6", "\xe3\x80\x82", "\xef\xbc\x8c", "\xc2\xbf",
	"\xc3\xa9", "\xc3\x9c", "na\xc3\xafve", "\xc3\x9f", "stra\xc3\x9f\x65",
	"\xce\xb1\xce\xb2\xce\xb3", "\xce\xa9", "\xd0\x9f\xd1\x80\xd0\xb8",
	"\xe6\x97\xa5\xe6\x9c\xac", "\xe8\xaa\x9e", "\xe3\x81\x82", "\xe3\x82\xab",
	"\xe4\xb8\x80", "\xe9\xbe\xa5", "\xe3\x82\xa0",
	"\xd8\xb9\xd8\xb1\xd8\xa8", "\xe0\xa4\xb9\xe0\xa4\xbf",
	"e\xcc\x81", "\xcc\x88", "\xe2\x80\x8d",
	"\xf0\x9f\x9a\x80", "\xf0\x9f\x98\x80", "\xe2\x9c\x93", "\xe2\x82\xac",
	"\xc2\xa9", "\xe2\x88\x9e", "\xef\xb8\x8f", "\xf0\x9d\x9c\x88",
	"\xc7\x85", "\xe1\xba\x9e",
};

static unsigned long long rng = 88172645463325252ull;

static unsigned
rnd(unsigned n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng % n);
}

static size_t
randstr(char *buf, size_t cap)
{
	size_t n = 0, k = 1 + rnd(24), i;

	for (i = 0; i < k; i++) {
		const char *p = pieces[rnd(sizeof pieces / sizeof pieces[0])];
		size_t l = strlen(p);
		if (n + l >= cap)
			break;
		memcpy(buf + n, p, l);
		n += l;
	}
	buf[n] = 0;
	return n;
}

/* find_iter as rust-onig's FindMatches: spans into out, their count, or
 * -1 when Oniguruma gives up (its retry limit: backtracking gone
 * exponential; the onig crate panics there) */
static long
onig_all(regex_t *r, const char *str, size_t n, size_t *out, size_t max)
{
	const UChar *s = (const UChar *)str;
	OnigRegion *rg = onig_region_new();
	size_t last = 0, k = 0;
	long lme = -1;
	uint32_t c;
	int rc;

	while (last <= n && k < max) {
		onig_region_clear(rg);
		rc = onig_search(r, s, s + n, s + last, s + n, rg, ONIG_OPTION_NONE);
		if (rc == ONIG_MISMATCH)
			break;
		if (rc < 0) {
			onig_region_free(rg, 1);
			return -1;
		}
		size_t a = (size_t)rg->beg[0], b = (size_t)rg->end[0];
		if (a == b && lme == (long)b) {
			last += last < n ? uni_decode(s + last, n - last, &c) : 1;
			continue;
		}
		last = b;
		lme = (long)b;
		out[k++] = a;
		out[k++] = b;
	}
	onig_region_free(rg, 1);
	return (long)k;
}

static size_t
re_all(struct re *re, const char *s, size_t n, size_t *out, size_t max)
{
	struct re_iter it = { 0 };
	size_t k = 0, a, b;

	while (k < max && re_next(re, s, n, &it, &a, &b)) {
		out[k++] = a;
		out[k++] = b;
	}
	return k;
}

static void
show(const char *what, const size_t *v, size_t k)
{
	size_t i;

	printf("  %s:", what);
	for (i = 0; i < k; i += 2)
		printf(" [%zu,%zu)", v[i], v[i + 1]);
	printf("\n");
}

static void
quote(const char *s, size_t n)
{
	size_t i;

	putchar('"');
	for (i = 0; i < n; i++) {
		unsigned char c = s[i];
		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			printf("\\x%02x", c);
		else
			putchar(c);
	}
	putchar('"');
}

static int
compile2(const char *pat, regex_t **r, struct re **re)
{
	OnigErrorInfo ei;
	char err[200];
	UChar msg[ONIG_MAX_ERROR_MESSAGE_LEN];
	int rc = onig_new(r, (const UChar *)pat, (const UChar *)pat + strlen(pat),
	    ONIG_OPTION_NONE, ONIG_ENCODING_UTF8, ONIG_SYNTAX_RUBY, &ei);
	int mine = re_compile(re, pat, strlen(pat), err, sizeof err);

	if (rc != ONIG_NORMAL) {
		onig_error_code_to_str(msg, rc, &ei);
		if (mine == 0) {
			printf("FAIL %s: oniguruma refuses (%s), regex.c compiles\n", pat, msg);
			re_free(*re);
			return -1;
		}
		return 1;	/* both refuse */
	}
	if (mine < 0) {
		printf("FAIL %s: regex.c refuses (%s)\n", pat, err);
		onig_free(*r);
		return -1;
	}
	return 0;
}

/* ---- random patterns over a small alphabet ---- */

static void
put(char **p, const char *s)
{
	size_t n = strlen(s);

	memcpy(*p, s, n);
	*p += n;
}

static void ralt(char **p, int depth);

static void
ratom(char **p, int depth, int *single)
{
	static const char *one[] = {
		"a", "b", "A", " ", "1", "\xc3\xa9", ".", "[ab]", "[^a]", "[a-c]", "\\w",
		"\\s", "\\d", "\\S", "\\W", "\\p{L}", "\\p{N}", "\\p{Lu}", "[^\\s\\p{L}]",
		"[\\p{L}\\d]", "\\x{17f}", "[\\w&&[^b]]", "\\p{Han}", "[^\\p{Latin}]",
	};
	static const char *zero[] = { "^", "$", "\\b", "\\B", "\\A", "\\z", "\\Z" };
	static const char *open[] = { "(", "(?:", "(?i:", "(?=", "(?!" };
	unsigned r = rnd(10);

	*single = 0;
	if (depth < 3 && r < 3) {
		put(p, open[rnd(sizeof open / sizeof open[0])]);
		ralt(p, depth + 1);
		put(p, ")");
	} else if (r < 4) {
		put(p, zero[rnd(sizeof zero / sizeof zero[0])]);
		*single = -1;
	} else {
		put(p, one[rnd(sizeof one / sizeof one[0])]);
		*single = 1;
	}
}

/* Counted repetition of a group is left out: when the group can match
 * empty, Oniguruma's result depends on how it compiled it (regex.h). */
static void
rpiece(char **p, int depth)
{
	static const char *q[] = {
		"", "", "", "*", "+", "?", "*?", "+?", "??", "{0,2}", "{1,3}?", "{2}", "{,2}",
		"{2,}",
	};
	static const char *poss[] = { "*+", "++", "?+" };
	int single;

	ratom(p, depth, &single);
	if (!rnd(4) && single <= 0)
		single = 0;	/* an anchor quantified: refused by both */
	else if (single < 0)
		return;
	if (single && !rnd(8))
		put(p, poss[rnd(3)]);
	else
		put(p, q[rnd(single ? sizeof q / sizeof q[0] : 9)]);
}

static void
ralt(char **p, int depth)
{
	unsigned n = 1 + rnd(3), i, k;

	for (i = 0; i < n; i++) {
		if (i)
			put(p, "|");
		for (k = 1 + rnd(3); k > 0; k--)
			rpiece(p, depth);
	}
}

static size_t
rtext(char *buf)
{
	static const char *ch[] = { "a", "b", "A", " ", "1", "\xc3\xa9", "\n", "\xc5\xbf", "B" };
	size_t n = 0, k = rnd(13), i;

	for (i = 0; i < k; i++) {
		const char *c = ch[rnd(sizeof ch / sizeof ch[0])];
		/* two U+017F fold to "ss", which Oniguruma matches as U+00DF
		 * in a class under (?i): a multi-character fold (regex.h) */
		if (n >= 2 && !memcmp(buf + n - 2, "\xc5\xbf", 2) && !strcmp(c, "\xc5\xbf"))
			continue;
		memcpy(buf + n, c, strlen(c));
		n += strlen(c);
	}
	buf[n] = 0;
	return n;
}

#define MAXS 4096

/* npat random patterns, each on 200 random texts */
static int
randpats(long npat)
{
	static size_t a[MAXS], b[MAXS];
	char pat[4096], *p, text[64];
	long i, t, bad = 0, cmp = 0, both = 0;

	for (i = 0; i < npat; i++) {
		regex_t *r;
		struct re *re;
		int k;
		p = pat;
		ralt(&p, 0);
		*p = 0;
		if ((k = compile2(pat, &r, &re)) < 0) {
			bad++;
			continue;
		}
		if (k) {
			both++;
			continue;
		}
		for (t = 0; t < 200; t++) {
			size_t n = rtext(text);
			long ka = onig_all(r, text, n, a, MAXS);
			size_t kb = re_all(re, text, n, b, MAXS);
			if (ka < 0)
				continue;
			cmp++;
			if ((size_t)ka == kb && !memcmp(a, b, kb * sizeof *a))
				continue;
			printf("FAIL %s on ", pat);
			quote(text, n);
			printf("\n");
			show("onig", a, (size_t)ka);
			show("re  ", b, kb);
			bad++;
			break;
		}
		onig_free(r);
		re_free(re);
	}
	printf("regex-onig: %ld random patterns (%ld refused by both), %ld comparisons, "
	    "%ld patterns differ\n", npat, both, cmp, bad);
	return bad != 0;
}

int
main(int argc, char **argv)
{
	OnigEncoding enc[1] = { ONIG_ENCODING_UTF8 };
	static size_t a[MAXS], b[MAXS];
	static char buf[2048];
	long nstr = 3000, nrand = 0, i, fails = 0, cmp = 0, gaveup = 0, j;
	int k;

	onig_initialize(enc, 1);
	if (argc > 2 && !strcmp(argv[1], "-p")) {
		regex_t *r;
		struct re *re;
		if (compile2(argv[2], &r, &re))
			return 1;
		for (k = 3; k < argc; k++) {
			size_t n = strlen(argv[k]);
			long ka = onig_all(r, argv[k], n, a, MAXS);
			size_t kb = re_all(re, argv[k], n, b, MAXS);
			quote(argv[k], n);
			if (ka < 0) {
				printf(" (Oniguruma gave up)\n");
				show("re  ", b, kb);
				continue;
			}
			printf("%s\n", (size_t)ka == kb && !memcmp(a, b, kb * sizeof *a) ? "" : " DIFFER");
			show("onig", a, (size_t)ka);
			show("re  ", b, kb);
		}
		onig_free(r);
		re_free(re);
		onig_end();
		return 0;
	}
	for (k = 1; k + 1 < argc; k += 2) {
		if (!strcmp(argv[k], "-r"))
			nrand = atol(argv[k + 1]);
		else if (!strcmp(argv[k], "-n"))
			nstr = atol(argv[k + 1]);
		else if (!strcmp(argv[k], "-s"))
			rng = strtoull(argv[k + 1], NULL, 10) | 1;
	}
	for (j = 0; pats[j]; j++) {
		regex_t *r;
		struct re *re;
		long bad = 0;
		if ((k = compile2(pats[j], &r, &re)) < 0) {
			fails++;
			continue;
		}
		if (k)
			continue;
		for (i = 0; i < nstr; i++) {
			size_t n = randstr(buf, sizeof buf);
			long ka = onig_all(r, buf, n, a, MAXS);
			size_t kb = re_all(re, buf, n, b, MAXS);
			if (ka < 0) {
				gaveup++;
				continue;
			}
			cmp++;
			if ((size_t)ka == kb && !memcmp(a, b, kb * sizeof *a))
				continue;
			if (bad++ < 3) {
				printf("FAIL %s on ", pats[j]);
				quote(buf, n);
				printf("\n");
				show("onig", a, (size_t)ka);
				show("re  ", b, kb);
			}
		}
		fails += bad != 0;
		onig_free(r);
		re_free(re);
	}
	printf("regex-onig: %ld patterns, %ld comparisons (%ld more where Oniguruma "
	    "gave up), %ld patterns differ\n", j, cmp, gaveup, fails);
	if (nrand && randpats(nrand))
		fails++;
	onig_end();
	return fails != 0;
}
