/* test_regex_scan.c: lib/tok/regex.c against the hand-written scanners of
 * lib/tok/tok_scan.c (scan_gpt2, scan_llama3), which stand for the GPT-2,
 * Llama 3 and Qwen2 Split patterns: the same splits on the golden texts
 * of ../shared/golden/tokenizer (skipped without ../shared) and on
 * random strings, ill-formed UTF-8 included.  The scanners are static,
 * so this file includes tok_scan.c itself; its other definitions take the
 * place of libcore's copy at link time. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/tok/tok_scan.c"

#include "../../lib/base/json.h"
#include "../../lib/tok/regex.h"
#include "../../lib/base/util.h"
#include "test.h"

static const struct {
	const char *name, *pat;
	int kind;		/* 0: scan_gpt2; else scan_llama3's maxdigits */
} pats[] = {
	{ "gpt2", "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+", 0 },
	{ "llama3", "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+", 3 },
	{ "qwen2", "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+", 1 },
};

/* The splits must be equal: the scanner's pieces tile the text, and so
 * must the engine's matches. */
static int
same(struct re *re, int kind, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	struct re_iter it = { 0 };
	size_t i = 0, a, b, e;

	while (re_next(re, s, n, &it, &a, &b)) {
		if (i >= n)
			return 0;
		e = kind ? scan_llama3(u, n, i, kind) : scan_gpt2(u, n, i);
		if (a != i || b != e)
			return 0;
		i = e;
	}
	return i == n;
}

static void
report(const char *name, const char *s, size_t n)
{
	size_t i;

	fprintf(stderr, "%s: splits differ on \"", name);
	for (i = 0; i < n; i++) {
		unsigned char c = s[i];
		if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\')
			fprintf(stderr, "\\x%02x", c);
		else
			fputc(c, stderr);
	}
	fprintf(stderr, "\"\n");
	fails++;
}

static const char *pieces[] = {
	"a", "Zx", "hello", " ", "  ", "\t", "\n", "\r\n", "\r", "\xc2\xa0",
	"\xe3\x80\x80", "'", "'s", "'S", "'re", "'LL", "'\xc5\xbf", "'x", "0", "12",
	"12345", "\xd9\xa3", "\xc2\xbd", ".", "!?", "$", "/", "\xc3\xa9",
	"\xe6\x97\xa5\xe6\x9c\xac", "e\xcc\x81", "\xf0\x9f\x9a\x80", "\xe2\x80\xa8",
	"\xff", "\x80", "\xc3", "\xe6\x97", "\xed\xa0\x80", "\xf4\x90\x80\x80",
};

static void
test_random(struct re *re, size_t k)
{
	static char buf[1024];
	unsigned long long x = 0x9e3779b97f4a7c15ull;
	int t;

	for (t = 0; t < 20000; t++) {
		size_t n = 0, m, i;
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		m = 1 + x % 16;
		for (i = 0; i < m; i++) {
			const char *p;
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			p = pieces[x % LEN(pieces)];
			memcpy(buf + n, p, strlen(p));
			n += strlen(p);
		}
		if (!same(re, pats[k].kind, buf, n)) {
			report(pats[k].name, buf, n);
			return;
		}
	}
}

/* every "text" of every golden file */
static int
test_golden(struct re *re, size_t k)
{
	const char *dir = "../shared/golden/tokenizer";
	struct dirent *d;
	DIR *dp;
	int ntext = 0;

	if (!(dp = opendir(dir)))
		return -1;
	while ((d = readdir(dp))) {
		char path[512], *line = NULL, err[128];
		size_t cap = 0;
		ssize_t len;
		FILE *f;
		if (!strstr(d->d_name, ".jsonl"))
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, d->d_name);
		if (!(f = fopen(path, "r")))
			continue;
		while ((len = getline(&line, &cap, f)) > 0) {
			struct json_doc doc = { 0 };
			const struct json *t;
			if (json_parse(&doc, line, (size_t)len, err, sizeof err) == 0 &&
			    (t = json_get(doc.root, "text")) && t->type == JSON_STRING) {
				ntext++;
				if (!same(re, pats[k].kind, t->u.str, t->len))
					report(pats[k].name, t->u.str, t->len);
			}
			json_free(&doc);
		}
		free(line);
		fclose(f);
	}
	closedir(dp);
	return ntext;
}

int
main(void)
{
	char err[200];
	size_t k;
	int ng = 0;

	argv0 = "test_regex_scan";
	for (k = 0; k < LEN(pats); k++) {
		struct re *re;
		if (re_compile(&re, pats[k].pat, strlen(pats[k].pat), err, sizeof err) < 0) {
			fprintf(stderr, "%s: %s\n", pats[k].name, err);
			fails++;
			continue;
		}
		test_random(re, k);
		ng = test_golden(re, k);
		re_free(re);
	}
	if (ng < 0)
		printf("test_regex_scan: ../shared/golden/tokenizer absent, golden texts skipped\n");
	else if (ng == 0)
		fails++, fprintf(stderr, "test_regex_scan: no golden texts read\n");
	return test_end("test_regex_scan");
}
