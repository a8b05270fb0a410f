/* test_tok.c: UTF-8, character classes, NFC/NFKC, the hand scanners and
 * Split's behaviors over a scanner (through lib/tok/tok_int.h), the
 * pre-tokenizers (seen through whole-word tokens of a made-up
 * vocabulary), BPE merge order and the streaming decoder's hold-back of
 * split characters.  Expected values follow the Unicode 15 data and
 * HuggingFace tokenizers' rules, worked out by hand; the Split folds are
 * the cases of tokenizers' normalizer.rs test of split. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../lib/base/json.h"
#include "../../lib/tok/tok.h"
#include "../../lib/tok/tok_int.h"
#include "../../lib/base/unicode.h"
#include "../../lib/base/util.h"
#include "test.h"


static void
test_utf8(void)
{
	uint32_t cp;
	unsigned char o[4];

	EQ(uni_decode((const unsigned char *)"a", 1, &cp), 1); EQ(cp, 'a');
	EQ(uni_decode((const unsigned char *)"\xc3\xa9", 2, &cp), 2); EQ(cp, 0xe9);
	EQ(uni_decode((const unsigned char *)"\xe2\x82\xac", 3, &cp), 3); EQ(cp, 0x20ac);
	EQ(uni_decode((const unsigned char *)"\xf0\x9f\x9a\x80", 4, &cp), 4); EQ(cp, 0x1f680);
	/* ill-formed: overlong, surrogate, past U+10FFFF, truncated, stray */
	EQ(uni_decode((const unsigned char *)"\xc0\x80", 2, &cp), 1); EQ(cp, UNI_BAD(0xc0));
	EQ(uni_decode((const unsigned char *)"\xe0\x80\x80", 3, &cp), 1); EQ(cp, UNI_BAD(0xe0));
	EQ(uni_decode((const unsigned char *)"\xed\xa0\x80", 3, &cp), 1); EQ(cp, UNI_BAD(0xed));
	EQ(uni_decode((const unsigned char *)"\xf4\x90\x80\x80", 4, &cp), 1); EQ(cp, UNI_BAD(0xf4));
	EQ(uni_decode((const unsigned char *)"\xe2\x82", 2, &cp), 1); EQ(cp, UNI_BAD(0xe2));
	EQ(uni_decode((const unsigned char *)"\x80", 1, &cp), 1); EQ(cp, UNI_BAD(0x80));
	EQ(uni_encode(0x1f680, o), 4); CHECK(!memcmp(o, "\xf0\x9f\x9a\x80", 4));
	EQ(uni_encode(UNI_BAD(0xff), o), 1); EQ(o[0], 0xff);
}

static void
test_class(void)
{
	EQ(uni_class('a'), UNI_L | UNI_ALPHA);
	EQ(uni_class('7'), UNI_N);
	EQ(uni_class(0x661) & UNI_N, UNI_N);	/* ARABIC-INDIC DIGIT ONE, Nd */
	EQ(uni_class(0x216b) & UNI_N, UNI_N);	/* ROMAN NUMERAL TWELVE, Nl */
	EQ(uni_class(0xbd) & UNI_N, UNI_N);	/* VULGAR FRACTION ONE HALF, No */
	EQ(uni_class(' '), UNI_WS);
	EQ(uni_class(0xa0), UNI_WS);		/* NO-BREAK SPACE */
	EQ(uni_class(0x3000), UNI_WS);
	EQ(uni_class(0x2028), UNI_WS);
	EQ(uni_class(0x200b), 0);		/* ZERO WIDTH SPACE is Cf */
	EQ(uni_class(0x301) & UNI_M, UNI_M);
	EQ(uni_class('!'), 0);
	EQ(uni_class(0x65e5), UNI_L | UNI_ALPHA);	/* 日 */
	EQ(uni_class(0x10ffff), 0);
	EQ(uni_class(UNI_BAD(0x80)), 0);
	EQ(uni_ccc_of(0x301), 230);
	EQ(uni_ccc_of(0x323), 220);
	EQ(uni_ccc_of('a'), 0);
}

static void
norm(const char *in, int compat, const char *want)
{
	size_t n;
	char *r = uni_normalize(in, strlen(in), compat, &n);

	CHECK(r != NULL);
	if (r && (n != strlen(want) || memcmp(r, want, n))) {
		fails++;
		fprintf(stderr, "normalize(%s, %d) = %.*s, expected %s\n", in, compat,
		    (int)n, r, want);
	}
	free(r);
}

static void
test_normalize(void)
{
	norm("e\xcc\x81", 0, "\xc3\xa9");			/* e + U+0301 -> é */
	norm("\xc3\xa9", 0, "\xc3\xa9");
	norm("\xe1\xb8\x8b\xcc\xa3", 0, "\xe1\xb8\x8d\xcc\x87");	/* ḋ + dot below -> ḍ + dot above */
	norm("\xe1\x84\x80\xe1\x85\xa1\xe1\x86\xa8", 0, "\xea\xb0\x81");	/* Hangul LVT */
	norm("\xef\xac\x81", 0, "\xef\xac\x81");		/* ﬁ stays under NFC */
	norm("\xef\xac\x81", 1, "fi");			/* and not under NFKC */
	norm("\xe2\x91\xa0", 1, "1");			/* ① */
	norm("\xc2\xa0", 1, " ");
	norm("a\xffz\xcc\x81", 0, "a\xff\xc5\xba");	/* ill-formed bytes kept */
	norm("", 0, "");
}

/* The matches of sc in s, one after another from the end of the last,
 * as "a|b|c". */
static void
matches(const struct tok_scan *sc, const char *s, const char *want)
{
	char got[256];
	size_t n = strlen(s), at = 0, ms, me, k = 0;

	got[0] = 0;
	while (k < sizeof got - 64 && sc->find(sc->st, s, n, at, &ms, &me)) {
		k += snprintf(got + k, sizeof got - k, "%s%.*s", k ? "|" : "",
		    (int)(me - ms), s + ms);
		if (me == at && ms == me)
			break;
		at = me;
	}
	CHECKF(!strcmp(got, want), "matches in \"%s\": \"%s\", expected \"%s\"", s, got, want);
}

static void
test_scanners(void)
{
	static const char *llama3 = "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+"
	    "|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
	static const char *qwen2 = "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+"
	    "|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
	struct tok_ld L = { NULL, "test", NULL, 0, NULL };
	struct tok_scan sc;
	struct json_doc doc = { 0 };
	char err[64];
	static const char lit[] = "{\"String\": \"--\"}";

	CHECK(tok_scan_regex(&L, "Split", TOK_RE_GPT2, strlen(TOK_RE_GPT2), &sc) == 0);
	matches(&sc, "Hello world's  !!\n\n x12", "Hello| world|'s| | !!|\n\n| x|12");
	matches(&sc, "x'S \xff!\xcc\x81", "x|'|S| \xff!\xcc\x81");	/* case-sensitive; a mark is "other" */
	tok_scan_free(&sc);
	CHECK(tok_scan_regex(&L, "Split", llama3, strlen(llama3), &sc) == 0);
	matches(&sc, "Hello 1234 world\n\n  x", "Hello| |123|4| world|\n\n| | x");
	matches(&sc, "x'S a,\nb \r\n", "x|'S| a|,\n|b| \r\n");
	tok_scan_free(&sc);
	CHECK(tok_scan_regex(&L, "Split", qwen2, strlen(qwen2), &sc) == 0);
	matches(&sc, "ab 123", "ab| |1|2|3");
	tok_scan_free(&sc);
	CHECK(tok_scan_regex(&L, "Split", TOK_RE_NUMERIC, strlen(TOK_RE_NUMERIC), &sc) == 0);
	/* ², Arabic-indic three, Roman twelve: No, Nd, Nl */
	matches(&sc, "a1b\xc2\xb2\xd9\xa3 \xe2\x85\xab!", "1|\xc2\xb2|\xd9\xa3|\xe2\x85\xab");
	matches(&sc, "none", "");
	tok_scan_free(&sc);
	CHECK(json_parse(&doc, lit, strlen(lit), err, sizeof err) == 0);
	CHECK(tok_scan_pattern(&L, "Split", doc.root, &sc) == 0);
	matches(&sc, "a--b---c-", "--|--");
	tok_scan_free(&sc);
	json_free(&doc);
}

/* tok_split's pieces as "a|b|c" */
struct collect {
	struct tok_next next;
	char s[256];
	size_t n;
};

static int
collect(struct tok_next *nx, const char *s, size_t n, int first)
{
	struct collect *c = (struct collect *)nx;

	(void)first;
	if (n && c->n + n + 2 < sizeof c->s)
		c->n += snprintf(c->s + c->n, sizeof c->s - c->n, "%s%.*s",
		    c->n ? "|" : "", (int)n, s);
	return 0;
}

static void
split(const struct tok_scan *sc, int behavior, int invert, const char *s, const char *want)
{
	struct collect c = { { collect }, "", 0 };

	CHECK(tok_split(sc, behavior, invert, s, strlen(s), 1, &c.next) == 0);
	CHECKF(!strcmp(c.s, want), "split(%d, %d) of \"%s\": \"%s\", expected \"%s\"",
	    behavior, invert, s, c.s, want);
}

/* an empty match before each 'b', like (?=b) */
static int
find_beforeb(const void *st, const char *s, size_t n, size_t start, size_t *ms, size_t *me)
{
	const char *f = start < n ? memchr(s + start, 'b', n - start) : NULL;

	(void)st;
	if (!f)
		return 0;
	*ms = *me = f - s;
	return 1;
}

static void
test_split(void)
{
	static const char lit[] = "{\"String\": \"-\"}";
	struct tok_ld L = { NULL, "test", NULL, 0, NULL };
	struct json_doc doc = { 0 };
	struct tok_scan sc, empty = { find_beforeb, NULL, NULL };
	char err[64];
	const char *s = "The-final--countdown";

	CHECK(json_parse(&doc, lit, strlen(lit), err, sizeof err) == 0);
	CHECK(tok_scan_pattern(&L, "Split", doc.root, &sc) == 0);
	split(&sc, SPLIT_REMOVED, 0, s, "The|final|countdown");
	split(&sc, SPLIT_ISOLATED, 0, s, "The|-|final|-|-|countdown");
	split(&sc, SPLIT_PREVIOUS, 0, s, "The-|final-|-|countdown");
	split(&sc, SPLIT_NEXT, 0, s, "The|-final|-|-countdown");
	split(&sc, SPLIT_CONTIGUOUS, 0, s, "The|-|final|--|countdown");
	/* invert: the parts between the matches are the matches */
	split(&sc, SPLIT_REMOVED, 1, s, "-|-|-");
	split(&sc, SPLIT_ISOLATED, 1, s, "The|-|final|-|-|countdown");
	split(&sc, SPLIT_PREVIOUS, 1, s, "The|-final|-|-countdown");
	split(&sc, SPLIT_NEXT, 1, s, "The-|final-|-|countdown");
	split(&sc, SPLIT_CONTIGUOUS, 1, s, "The|-|final|--|countdown");
	/* matches at the ends */
	split(&sc, SPLIT_PREVIOUS, 0, "-a-", "-|a-");
	split(&sc, SPLIT_NEXT, 0, "-a-", "-a|-");
	split(&sc, SPLIT_REMOVED, 0, "---", "");
	tok_scan_free(&sc);
	json_free(&doc);
	/* empty matches: none again where the last one ended (rust-onig) */
	split(&empty, SPLIT_ISOLATED, 0, "abab", "a|ba|b");
	split(&empty, SPLIT_REMOVED, 0, "abab", "a|ba|b");
	split(&empty, SPLIT_CONTIGUOUS, 0, "bb", "b|b");
}

/* GPT-2's bytes_to_unicode, written out */
static unsigned
b2u(unsigned b)
{
	unsigned n = 0, c;

	if ((b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255))
		return b;
	for (c = 0; c < b; c++)
		if (!((c >= 33 && c <= 126) || (c >= 161 && c <= 172) || (c >= 174 && c <= 255)))
			n++;
	return 256 + n;
}

/* A byte-level tokenizer: token b is byte b, then the given whole words
 * (ids 256...) in byte-level spelling; ignore_merges makes a piece equal
 * to a word come out as that word's id, which shows where the
 * pre-tokenizer cut. */
static int
mktok(struct tok *t, const char *pre, const char **words, int nwords, const char *merges)
{
	char path[] = "/tmp/test_tokXXXXXX";
	int fd = mkstemp(path), i, r;
	FILE *f;

	if (fd < 0 || !(f = fdopen(fd, "w")))
		return -1;
	fprintf(f, "{\"pre_tokenizer\": %s, \"decoder\": {\"type\": \"ByteLevel\"},\n"
	    "\"model\": {\"type\": \"BPE\", \"ignore_merges\": true, \"vocab\": {", pre);
	for (i = 0; i < 256; i++)
		fprintf(f, "%s\"\\u%04x\": %d", i ? ", " : "", b2u(i), i);
	for (i = 0; i < nwords; i++) {
		const unsigned char *w = (const unsigned char *)words[i];
		fputs(", \"", f);
		for (; *w; w++)
			fprintf(f, "\\u%04x", b2u(*w));
		fprintf(f, "\": %d", 256 + i);
	}
	fprintf(f, "}, \"merges\": [%s]}}\n", merges ? merges : "");
	fclose(f);
	r = tok_load(t, path);
	unlink(path);
	return r;
}

/* encode s and compare with the ids in want (terminated by -1) */
static void
enc(struct tok *t, const char *s, const int *want)
{
	struct tok_ids ids = { 0 };
	size_t i, n = 0;

	while (want[n] >= 0)
		n++;
	CHECK(tok_encode(t, s, strlen(s), 0, &ids) == 0);
	for (i = 0; i < n && i < ids.n && ids.v[i] == want[i]; i++)
		;
	if (i != n || ids.n != n) {
		fails++;
		fprintf(stderr, "encode \"%s\":", s);
		for (i = 0; i < ids.n; i++)
			fprintf(stderr, " %d", ids.v[i]);
		fprintf(stderr, ", expected");
		for (i = 0; i < n; i++)
			fprintf(stderr, " %d", want[i]);
		fputc('\n', stderr);
	}
	free(ids.v);
}

static void
test_gpt2(void)
{
	static const char *w[] = { "Hello", " world", "'s", " !!", "\n\n", " 12" };
	struct tok t;

	if (mktok(&t, "{\"type\": \"ByteLevel\", \"add_prefix_space\": false}", w, LEN(w), NULL) < 0) {
		fails++;
		return;
	}
	/* Hello| world|'s| | !!  (\s+(?!\S) leaves one space to " !!") */
	enc(&t, "Hello world's  !!", (int[]){ 256, 257, 258, ' ', 259, -1 });
	enc(&t, "\n\nHello", (int[]){ 10, 10, 256, -1 });	/* a run before \\S splits */
	enc(&t, "Hello\n\n", (int[]){ 256, 260, -1 });
	enc(&t, "x 12", (int[]){ 'x', 261, -1 });
	enc(&t, "x'S", (int[]){ 'x', '\'', 'S', -1 });	/* case-sensitive */
	/* invalid UTF-8 is "other", like punctuation: " \xff!!" one piece */
	enc(&t, " !!\xff", (int[]){ ' ', '!', '!', 0xff, -1 });
	tok_free(&t);
}

static void
test_llama3(void)
{
	static const char *w[] = { "Hello", "123", " world", "\n\n", " x", "'S", ",\n" };
	struct tok t;

	if (mktok(&t, "{\"type\": \"Sequence\", \"pretokenizers\": [{\"type\": \"Split\", "
	    "\"pattern\": {\"Regex\": \"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\\\r\\\\n\\\\p{L}\\\\p{N}]?\\\\p{L}+"
	    "|\\\\p{N}{1,3}| ?[^\\\\s\\\\p{L}\\\\p{N}]+[\\\\r\\\\n]*|\\\\s*[\\\\r\\\\n]+|\\\\s+(?!\\\\S)|\\\\s+\"}, "
	    "\"behavior\": \"Isolated\", \"invert\": false}, {\"type\": \"ByteLevel\", "
	    "\"add_prefix_space\": false, \"use_regex\": false}]}", w, LEN(w), NULL) < 0) {
		fails++;
		return;
	}
	enc(&t, "Hello 1234 world\n\n  x", (int[]){ 256, ' ', 257, '4', 258, 259, ' ', 260, -1 });
	enc(&t, "x'S", (int[]){ 'x', 261, -1 });		/* caseless */
	enc(&t, "a,\nb", (int[]){ 'a', 262, 'b', -1 });	/* [\r\n]* after punctuation */
	tok_free(&t);
}

static void
test_merges(void)
{
	/* "a a a": merges take the lowest rank, leftmost first */
	static const char *w[] = { "aa", "aaa" };
	struct tok t;

	if (mktok(&t, "null", w, LEN(w), "\"a a\", \"aa a\"") < 0) {
		fails++;
		return;
	}
	/* ignore_merges: a whole word in the vocabulary is taken as it is */
	enc(&t, "aaa", (int[]){ 257, -1 });
	enc(&t, "aaaa", (int[]){ 256, 256, -1 });	/* aa aa: rank 0 twice */
	enc(&t, "aaaaa", (int[]){ 256, 257, -1 });	/* aa aa a -> aa aaa */
	tok_free(&t);
}

static void
test_decode_hold(void)
{
	struct tok t;
	struct tok_dec d = { 0 };
	struct tok_buf out = { 0 };

	if (mktok(&t, "{\"type\": \"ByteLevel\"}", NULL, 0, NULL) < 0) {
		fails++;
		return;
	}
	tok_dec_start(&d, &t, 0);
	CHECK(tok_dec_push(&d, 'a', &out) == 0);
	EQ(out.n, 1);
	CHECK(tok_dec_push(&d, 0xe6, &out) == 0);	/* 日 = e6 97 a5 */
	CHECK(tok_dec_push(&d, 0x97, &out) == 0);
	EQ(out.n, 1);					/* held back */
	CHECK(tok_dec_push(&d, 0xa5, &out) == 0);
	EQ(out.n, 4);
	CHECK(!memcmp(out.p, "a\xe6\x97\xa5", 4));
	CHECK(tok_dec_push(&d, 0xc3, &out) == 0);
	EQ(out.n, 4);
	CHECK(tok_dec_end(&d, &out) == 0);		/* the end lets it go */
	EQ(out.n, 5);
	CHECK(tok_dec_push(&d, 256, &out) == -1);	/* not a token */
	CHECK(tok_dec_push(&d, -1, &out) == -1);
	tok_dec_free(&d);
	free(out.p);
	tok_free(&t);
}

/* SentencePiece-style text is one word, which BPE cuts before U+2581
 * where no token joins the character before it to it.  Here "b\u2581"
 * does: the merge of rank 0 is made across every such place, where a cut
 * would have made "\u2581a" (rank 1).  "c" joins none: the cut before
 * "\u2581\u2581a" changes nothing. */
static void
test_spcut(void)
{
	static const char json[] = "{\"normalizer\": {\"type\": \"Replace\", "
	    "\"pattern\": {\"String\": \" \"}, \"content\": \"\\u2581\"},\n"
	    "\"model\": {\"type\": \"BPE\", \"vocab\": {\"\\u2581\": 0, \"a\": 1, "
	    "\"b\": 2, \"b\\u2581\": 3, \"\\u2581a\": 4, \"\\u2581\\u2581\": 5, \"c\": 6},\n"
	    "\"merges\": [\"b \\u2581\", \"\\u2581 a\", \"\\u2581 \\u2581\"]}}\n";
	static const int shortw[] = { 1, 3, 1, 2, -1 };
	char path[] = "/tmp/test_tokXXXXXX", text[128] = "";
	int fd = mkstemp(path), want[64], i, n = 0;
	struct tok t;

	CHECK(fd >= 0 && write(fd, json, sizeof json - 1) == (ssize_t)sizeof json - 1);
	close(fd);
	CHECK(tok_load(&t, path) == 0);
	unlink(path);
	enc(&t, "ab ab", shortw);
	for (i = 0; i < 20; i++) {	/* past the length words are cut from */
		strcat(text, "ab ");
		want[n++] = 1, want[n++] = 3;
	}
	strcat(text, "c  a");
	want[n++] = 6, want[n++] = 0, want[n++] = 4, want[n] = -1;
	enc(&t, text, want);
	tok_free(&t);
}

/* Load the tokenizer.json text json into t: tok_load's result, and what
 * it said on stderr in msg. */
static int
loadstr(struct tok *t, const char *json, size_t n, char *msg, size_t msglen)
{
	char path[] = "/tmp/test_tokXXXXXX";
	FILE *err = tmpfile();
	int fd = mkstemp(path), saved = dup(2), r;
	size_t k = 0;

	if (fd < 0 || !err || saved < 0 || write(fd, json, n) != (ssize_t)n) {
		fails++;
		return -2;
	}
	close(fd);
	fflush(stderr);
	dup2(fileno(err), 2);
	r = tok_load(t, path);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	unlink(path);
	rewind(err);
	if (msglen) {
		k = fread(msg, 1, msglen - 1, err);
		msg[k] = 0;
	}
	fclose(err);
	return r;
}

/* tok_load of json fails saying want */
static void
refuse(const char *json, const char *want)
{
	struct tok t;
	char msg[512];

	CHECKF(loadstr(&t, json, strlen(json), msg, sizeof msg) < 0 && strstr(msg, want),
	    "%s: \"%s\", expected \"%s\"", json, msg, want);
	tok_free(&t);
}

/* The vocab and merges reader (tok_read.c): escapes and surrogate pairs
 * in vocab keys and in merges of both forms, merges before vocab, the
 * first of duplicate keys, what the tree's reader refused and where it
 * said so, and every prefix of a file refused as truncated. */
static void
test_reader(void)
{
	static const char vocab[] = "\"vocab\": {\"a\": 0, \"\\\"\": 1, \"b\": 2, \"\\\"b\": 3, "
	    "\"a\\\"b\": 4, \"\\ud83d\\ude00\": 5, \"\\ud83d\\ude00a\": 6, \"\\u0061\": 7, "
	    "\"c\\n\\u00e9\": 8, \"c\": 9, \"\\n\\u00e9\": 10}";
	static const char merges[] = "\"merges\": [\"\\\" b\", [\"a\", \"\\\"b\"], "
	    "[\"\\ud83d\\ude00\", \"\\u0061\"], \"c \\n\\u00e9\"]";
	char json[1024], msg[512];
	struct tok t;
	size_t len, n, i;
	const char *s;
	int order;

	for (order = 0; order < 2; order++) {
		snprintf(json, sizeof json, "{\"model\": {\"type\": \"BPE\", %s,\n%s}}",
		    order ? merges : vocab, order ? vocab : merges);
		CHECKF(loadstr(&t, json, strlen(json), msg, sizeof msg) == 0, "%s", msg);
		s = tok_piece(&t, 4, &n);
		CHECK(s && n == 3 && !memcmp(s, "a\"b", 3));
		s = tok_piece(&t, 6, &n);
		CHECK(s && n == 5 && !memcmp(s, "\xf0\x9f\x98\x80" "a", 5));
		s = tok_piece(&t, 8, &n);
		CHECK(s && n == 4 && !memcmp(s, "c\n\xc3\xa9", 4));
		/* a " b -> a "b -> a"b; the surrogate pair's character and
		 * a; "a" twice (ids 0 and 7): the lower id is the token */
		enc(&t, "a\"b", (int[]){ 4, -1 });
		enc(&t, "\xf0\x9f\x98\x80" "a", (int[]){ 6, -1 });
		enc(&t, "a", (int[]){ 0, -1 });
		tok_free(&t);
	}

	/* the first vocab and the first model are read, the others only
	 * parsed */
	snprintf(json, sizeof json, "{\"model\": {%s, %s, \"vocab\": {\"zz\": 0}, "
	    "\"merges\": [\"zz zz\"]}, \"model\": {\"vocab\": [1]}}", vocab, merges);
	CHECKF(loadstr(&t, json, strlen(json), msg, sizeof msg) == 0, "%s", msg);
	enc(&t, "a\"b", (int[]){ 4, -1 });
	tok_free(&t);
	refuse("{\"model\": {\"vocab\": [], \"vocab\": {\"a\": 0}, \"merges\": []}}", "model: no vocab");
	refuse("{\"model\": {\"vocab\": {\"a\": 0}, \"merges\": {}}}", "model: no merges");
	refuse("{\"model\": {\"merges\": []}}", "model: no vocab");

	/* what the tree's reader said, in the same order */
	refuse("{\"model\": {\"vocab\": {\"a\": 0, \"b\": 1.0, \"c\": -1}, \"merges\": [5]}}",
	    "vocab: bad id for token 1");
	refuse("{\"model\": {\"vocab\": {\"a\": 0, \"b\": 0}, \"merges\": []}}",
	    "vocab: id 0 used twice");
	refuse("{\"model\": {\"vocab\": {\"a\": 0, \"b\": 1}, \"merges\": [\"a b\"]}}",
	    "merge 0: token not in the vocabulary");
	refuse("{\"model\": {\"vocab\": {\"a\": 0, \"b\": 1, \"ab\": 2}, \"merges\": "
	    "[\"a b\", \"a x\", [\"a\"]]}}", "merge 1: token not in the vocabulary");
	refuse("{\"model\": {\"vocab\": {\"a\": 0, \"b\": 1, \"ab\": 2}, \"merges\": "
	    "[\"a b\", [\"a\", \"b\", \"c\"], \"a x\"]}}", "merge 1: not \"a b\" or [\"a\", \"b\"]");
	refuse("{\"model\": {\"vocab\": {\"a\": 0}, \"merges\": [\"a b c\"]}}",
	    "merge 0: not \"a b\" or [\"a\", \"b\"]");
	/* byte-level: merges of strings outside the alphabet (a space) are
	 * never reached and skipped, the others must name tokens */
	s = "{\"pre_tokenizer\": {\"type\": \"ByteLevel\"}, \"model\": {\"vocab\": "
	    "{\"a\": 0, \"b\": 1, \"ab\": 2}, \"merges\": [[\"a\", \" x\"], \"a b\"]}}";
	CHECKF(loadstr(&t, s, strlen(s), msg, sizeof msg) == 0, "%s", msg);
	tok_free(&t);
	refuse("{\"pre_tokenizer\": {\"type\": \"ByteLevel\"}, \"model\": {\"vocab\": "
	    "{\"a\": 0, \"b\": 1}, \"merges\": [[\"a\", \" x\"], \"a b\"]}}", "merge 1: token not");
	/* the parser's messages, with their place */
	refuse("{\"model\": {\"vocab\": {\"a\": 0,\n \"\\ud83d\": 1}}}",
	    "line 2, column 9: high surrogate \\ud83d without its low half");
	refuse("{\"model\": {\"vocab\": {\"\\x\": 0}}}", "invalid escape '\\x'");
	refuse("{\"model\": {\"vocab\": {\"\xff\": 0}}}", "invalid UTF-8 in string");
	refuse("{\"model\": {\"vocab\": {\"a\": 0}, \"merges\": [\"\\udc00 a\"]}}", "lone low surrogate");
	refuse("{\"model\": {\"vocab\": {\"a\": 0,}}}", "expected a string key in object");
	refuse("{\"model\": {\"vocab\": {\"a\": 0 \"b\": 1}}}", "expected ',' or '}' in object");
	refuse("{\"model\": {\"vocab\": {\"a\" 0}}}", "expected ':' after object key");
	refuse("{\"model\": {\"vocab\": {\"a\": 0}, \"merges\": [\"a a\",]}}", "unexpected character ']'");

	/* every prefix of a good file is refused, naming the file */
	snprintf(json, sizeof json, "{\"model\": {\"type\": \"BPE\", %s,\n%s}}\n", merges, vocab);
	len = strlen(json);
	for (i = 0; i + 1 < len; i++) {
		int r = loadstr(&t, json, i, msg, sizeof msg);
		CHECKF(r == -1 && strstr(msg, "/tmp/test_tok"), "prefix %zu: %d \"%s\"", i, r, msg);
		tok_free(&t);
	}
}

int
main(void)
{
	argv0 = "test_tok";
	test_reader();
	test_utf8();
	test_class();
	test_normalize();
	test_scanners();
	test_split();
	test_gpt2();
	test_llama3();
	test_merges();
	test_decode_hold();
	test_spcut();
	return test_end("test_tok");
}
