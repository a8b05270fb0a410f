/* test_json.c: a JSONTestSuite-style set of documents the parser must
 * accept (y_) and must reject (n_), after Nicolas Seriot's JSONTestSuite
 * (github.com/nst/JSONTestSuite, test_parsing/), plus the decoded values
 * and the position in error messages. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../lib/base/json.h"
#include "../../lib/base/util.h"
#include "test.h"



/* Documents as C strings (no NUL inside unless the length says so). */
static const char *const yes[] = {
	"[]", "{}", "[1]", "[-0]", "[-0.0]", "[0e1]", "[1E22]", "[1e-2]",
	"[1E+2]", "[0.5]", "[-123.456e-78]", "[123e65]",
	"[1.5e+10]", "123", "-1", "\"str\"", "true", "false", "null",
	" [1] ", "\t\n\r [1]\n", "[true,false,null]", "[[], {}, [[]]]",
	"{\"a\":[]}", "{\"a\":1,\"a\":2}", "{\"\":0}", "[\"\"]",
	"[\"\\u0000\"]", "[\"\\ud83d\\ude00\"]", "[\"\\u00e9\"]",
	"[\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"]", "[\"\\uFFFF\"]", "[\"\\uDBFF\\uDFFF\"]",
	"[\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"]", "[\" \x7f\"]",
	"{\"a\" : { \"b\" : [ 1 , 2 ] } }", "[1,[2,[3,[4,[5]]]]]",
	"[-9223372036854775808]", "[99999999999999999999999999999]",
	"[1e400]", "[\"a\\u0041\"]", "{\"k\":\"\\u002F\"}",
};

static const char *const no[] = {
	"", " ", "[", "]", "{", "}", "[1,]", "[,1]", "[,]", "{\"a\":1,}",
	"{,}", "{a:1}", "{'a':1}", "['a']", "[01]", "[-01]", "[1.]", "[.1]",
	"[+1]", "[1e]", "[1e+]", "[-]", "[0x10]", "[NaN]", "[Infinity]",
	"[-Infinity]", "[1 2]", "{\"a\" 1}", "{\"a\":1 \"b\":2}",
	"[true false]", "tru", "nul", "fals", "True", "[1]x", "[1]]", "{}}",
	"[][]", "\"abc", "[\"abc]", "[\"a\nb\"]", "[\"\t\"]", "[\"\x01\"]",
	"[\"\\a\"]", "[\"\\x41\"]", "[\"\\u12\"]", "[\"\\u12G4\"]",
	"[\"\\\"]", "[\"\\", "{\"a\":}", "{:1}", "{\"a\"}", "{1:1}",
	"{null:1}", "[\"a\",,]", "[1,,2]", "/* c */ []", "[] // c",
	"[\"\\ud800\"]", "[\"\\udc00\\ud800\"]", "[\"\\ud800\\u0041\"]",
	"[1e1.5]", "[- 1]", "[1.0e]", "[\xef\xbb\xbf]", "\xef\xbb\xbf[]",
	"[\"\\U0041\"]", "nulll", "[null,]", "{\"a\":1}{", "[1,2,3",
	"{\"a\":[1,2}", "[{]}", "\"\\u0000",
};

static int
parses(const char *s, size_t n)
{
	struct json_doc d = { 0 };
	char err[128];
	int r = json_parse(&d, s, n, err, sizeof(err));

	if (r < 0 && !*err) {
		fprintf(stderr, "no error message for '%s'\n", s);
		fails++;
	}
	json_free(&d);
	return r == 0;
}

static void
test_accept_reject(void)
{
	size_t i;

	for (i = 0; i < LEN(yes); i++)
		if (!parses(yes[i], strlen(yes[i]))) {
			fprintf(stderr, "must accept: '%s'\n", yes[i]);
			fails++;
		}
	for (i = 0; i < LEN(no); i++)
		if (parses(no[i], strlen(no[i]))) {
			fprintf(stderr, "must reject: '%s'\n", no[i]);
			fails++;
		}
	/* a NUL byte outside a string */
	CHECK(!parses("[1]\0", 4));
	CHECK(!parses("[1,\0 2]", 7));
	/* a raw NUL inside a string is a control character */
	CHECK(!parses("[\"a\0b\"]", 7));
}

static void
test_depth(void)
{
	size_t n = 100000, i;
	char *s = malloc(2 * n + 1);

	/* shallow nesting is fine; very deep nesting is an error, not a
	 * stack overflow */
	for (i = 0; i < 100; i++)
		s[i] = '[', s[200 - 1 - i] = ']';
	CHECK(parses(s, 200));
	for (i = 0; i < n; i++)
		s[i] = '[', s[2 * n - 1 - i] = ']';
	CHECK(!parses(s, 2 * n));
	for (i = 0; i < n; i++)
		s[2 * i] = '{', s[2 * i + 1] = '"';
	CHECK(!parses(s, 2 * n));
	for (i = 0; i < JSON_MAXDEPTH + 1; i++)
		s[i] = '[', s[2 * (JSON_MAXDEPTH + 1) - 1 - i] = ']';
	CHECK(!parses(s, 2 * (JSON_MAXDEPTH + 1)));
	free(s);
}

static void
test_values(void)
{
	static const char doc[] = "{\"s\": \"a\\u00e9\\ud83d\\ude00\\u0000z\","
	    " \"i\": [2.0, 1e3, 1.5, -0, 9223372036854775807, "
	    "9223372036854775808, -7], \"f\": 1e-2, \"t\": true, \"n\": null,"
	    " \"k\": 1, \"k\": 2, \"esc\": \"\\\"\\\\\\/\\b\\f\\n\\r\\t\"}";
	struct json_doc d = { 0 };
	const struct json *j, *i;
	char err[128];
	long long v;
	double x;

	CHECK(json_parse(&d, doc, strlen(doc), err, sizeof(err)) == 0);
	if (!d.root)
		return;
	CHECK(d.root->type == JSON_OBJECT);
	j = json_get(d.root, "s");
	CHECK(j && j->type == JSON_STRING && j->len == 9 &&
	    !memcmp(j->u.str, "a\xc3\xa9\xf0\x9f\x98\x80\0z", 9));
	i = json_get(d.root, "i");
	CHECK(i && i->type == JSON_ARRAY && i->len == 7);
	if (i && i->len == 7) {
		/* integer literals only, as serde's usize and Python's
		 * int take them: not 2.0, not 1e3, no sign on 0 where
		 * negatives are out of range */
		CHECK(json_int(&i->u.items[0], 0, 10, &v) < 0);
		CHECK(json_int(&i->u.items[1], 0, 1000, &v) < 0);
		CHECK(json_int(&i->u.items[2], 0, 10, &v) < 0);
		CHECK(json_int(&i->u.items[3], 0, 10, &v) < 0);
		CHECK(json_int(&i->u.items[3], -1, 10, &v) == 0 && v == 0);
		CHECK(json_int(&i->u.items[4], 0, 9223372036854775807LL, &v) == 0 &&
		    v == 9223372036854775807LL);
		CHECK(json_int(&i->u.items[5], 0, 9223372036854775807LL, &v) < 0);
		CHECK(json_int(&i->u.items[6], -7, -7, &v) == 0 && v == -7);
		CHECK(json_int(&i->u.items[6], 0, 10, &v) < 0);
	}
	CHECK(json_num(json_get(d.root, "f"), &x) == 0 && x == 0.01);
	CHECK(json_num(json_get(d.root, "s"), &x) < 0);
	CHECK(json_int(json_get(d.root, "s"), 0, 1, &v) < 0);
	CHECK(json_bool(json_get(d.root, "t")) == 1);
	CHECK(json_bool(json_get(d.root, "n")) < 0);
	CHECK(json_get(d.root, "n")->type == JSON_NULL);
	CHECK(json_get(d.root, "missing") == NULL);
	CHECK(json_get(i, "x") == NULL);
	CHECK(json_int(json_get(d.root, "k"), 0, 9, &v) == 0 && v == 1);
	j = json_get(d.root, "esc");
	CHECK(j && j->len == 8 && !strcmp(j->u.str, "\"\\/\b\f\n\r\t"));
	CHECK(json_str(j) == j->u.str);
	CHECK(json_str(i) == NULL && json_str(NULL) == NULL);
	CHECK(!strcmp(json_typename(JSON_OBJECT), "object"));
	json_free(&d);
	json_free(&d);		/* a freed document is a zeroed one */
}

static void
test_error_position(void)
{
	static const char doc[] = "{\"a\": [1,\n  2,\n  ]}";
	struct json_doc d = { 0 };
	char err[128] = "";

	CHECK(json_parse(&d, doc, strlen(doc), err, sizeof(err)) < 0);
	CHECK(strstr(err, "line 3") != NULL);
	json_free(&d);
	/* a tiny buffer is still NUL-terminated */
	memset(err, 'x', sizeof(err));
	CHECK(json_parse(&d, "[", 1, err, 8) < 0);
	CHECK(memchr(err, 0, 8) != NULL);
	json_free(&d);
}

static void
test_load(void)
{
	struct json_doc d = { 0 };
	char path[] = "/tmp/test_json_XXXXXX";
	FILE *f;
	int fd = mkstemp(path);

	CHECK(fd >= 0);
	f = fdopen(fd, "w");
	fputs("{\"x\": [1, 2]}\n", f);
	fclose(f);
	CHECK(json_load(&d, path) == 0);
	CHECK(d.root && json_get(d.root, "x")->len == 2);
	json_free(&d);
	CHECK(json_load(&d, "/nonexistent/x.json") < 0);
	json_free(&d);
	unlink(path);
}

/* A hook that reads "v" of the root's "o" as strings (their bytes
 * summed) or integers, leaves everything else to the parser, and notes
 * the object's end. */
struct hk {
	int ends, ints, strs, bytes;
};

static int
hook_member(void *ctx, struct json_in *in, const char *key, size_t n)
{
	struct hk *h = ctx;
	struct json_iter it = { 0 };
	const char *s;
	size_t len;
	long long v;
	int r;

	if (!key) {
		h->ends++;
		return 0;
	}
	if (n != 1 || key[0] != 'v' || json_in_peek(in) != '[')
		return 0;
	while ((r = json_in_item(in, &it)) == 1) {
		if (json_in_peek(in) == '"') {
			if (json_in_str(in, &s, &len) < 0)
				return -1;
			h->strs++, h->bytes += len;
		} else if ((r = json_in_int(in, 0, 100, &v)) < 0) {
			return -1;
		} else if (r) {
			return json_in_fail(in, "not an int");
		} else {
			h->ints++;
		}
	}
	return r < 0 ? -1 : 1;
}

/* s fails to parse with hook; the message in err */
static int
hookfail(const char *s, const struct json_hook *hook, char *err, size_t n)
{
	struct json_doc d = { 0 };
	int r = json_parse_hook(&d, s, strlen(s), hook, err, n);

	json_free(&d);
	return r < 0;
}

static void
test_hook(void)
{
	static const char doc[] = "{\"o\": {\"a\": 1, \"v\": [1, \"x\\u00e9\", 22,"
	    " \"\\ud83d\\ude00\"], \"b\": [2]}, \"v\": [3], \"o\": {\"v\": [4]}}";
	struct hk h = { 0 };
	struct json_hook hook = { "o", hook_member, &h };
	struct json_doc d = { 0 };
	const struct json *o;
	char err[128] = "";

	CHECK(json_parse_hook(&d, doc, strlen(doc), &hook, err, sizeof(err)) == 0);
	/* the first "o" only, its "v" left out of the tree */
	EQ(h.ints, 2);
	EQ(h.strs, 2);
	EQ(h.bytes, 3 + 4);
	EQ(h.ends, 1);
	o = json_get(d.root, "o");
	CHECK(o && o->len == 2 && json_get(o, "a") && json_get(o, "b") && !json_get(o, "v"));
	CHECK(json_get(d.root, "v") && json_get(d.root, "v")->len == 1);
	json_free(&d);

	/* the hook's errors and the parser's, with their place */
	memset(&h, 0, sizeof h);
	CHECK(hookfail("{\"o\": {\"v\": [1,\n -1]}}", &hook, err, sizeof err));
	CHECK(strstr(err, "line 2, column 4: not an int") != NULL);
	CHECK(hookfail("{\"o\": {\"v\": [1,]}}", &hook, err, sizeof err));
	CHECK(strstr(err, "unexpected character ']'") != NULL);
	CHECK(hookfail("{\"o\": {\"v\": [1 2]}}", &hook, err, sizeof err));
	CHECK(strstr(err, "expected ',' or ']' in array") != NULL);
	CHECK(hookfail("{\"o\": {\"v\": [\"a", &hook, err, sizeof err));
	CHECK(strstr(err, "unterminated string") != NULL);
	CHECK(hookfail("{\"o\": {\"v\": [\"\\ud800\"]}}", &hook, err, sizeof err));
	CHECK(strstr(err, "without its low half") != NULL);
	CHECK(hookfail("{\"o\": {\"v\": [", &hook, err, sizeof err));
	CHECK(strstr(err, "unexpected end of input") != NULL);
	json_free(&d);
}

/* The fast calls with the general ones behind them, as tok_read.c has
 * them: "w" an object of ints, "m" an array of strings or pairs */
struct hf {
	int fast, slow, sum, bytes;
};

static int
fast_member(void *ctx, struct json_in *in, const char *key, size_t n)
{
	struct hf *h = ctx;
	struct json_iter it = { 0 };
	const char *s[2];
	size_t len[2];
	long long v;
	struct json j;
	int r, f;

	if (!key || n != 1 || (key[0] != 'w' && key[0] != 'm'))
		return 0;
	for (;;) {
		if (key[0] == 'w') {
			if ((f = json_in_member_int(in, &it, s, len, 100, &v)) == 0) {
				if ((r = json_in_member(in, &it, s, len)) != 1)
					break;
				h->bytes += len[0];
				if ((r = json_in_int(in, 0, 100, &v)) < 0)
					return -1;
				if (r)
					return json_in_fail(in, "not an int");
				h->slow++, h->sum += v;
			} else {
				h->fast++, h->sum += v, h->bytes += len[0];
			}
			continue;
		}
		if ((f = json_in_item_strs(in, &it, s, len)) == 0) {
			if ((r = json_in_item(in, &it)) != 1)
				break;
			if (json_in_value(in, &j) < 0)
				return -1;
			h->slow++;
		} else {
			h->fast += f;
			h->bytes += len[0] + (f == 2 ? len[1] : 0);
		}
	}
	return r < 0 ? -1 : 1;
}

static void
test_hook_fast(void)
{
	static const char *bad[][2] = {
		{ "{\"o\": {\"w\": {\"a\": 1,\n \"b\": 101}}}", "line 2, column 10: not an int" },
		{ "{\"o\": {\"w\": {\"a\": 1, \"b\": 2", "unterminated object" },
		{ "{\"o\": {\"w\": {\"a\": 1, \"b\" 2}}}", "expected ':' after object key" },
		{ "{\"o\": {\"w\": {\"a\": 1, \"b\\q\": 2}}}", "invalid escape" },
		{ "{\"o\": {\"m\": [\"a b\", [\"x\", \"y\"], [\"p\",\n \"q\\ud800\"]]}}",
		    "line 2, column 10: high surrogate" },
		{ "{\"o\": {\"m\": [\"a b\", [\"x\", \"y\"],]}}", "unexpected character ']'" },
		{ "{\"o\": {\"m\": [\"a b\", \"\xc0\xaf\"]}}", "invalid UTF-8" },
		{ "{\"o\": {\"m\": [\"a b\", [\"x\", \"y\"", "unterminated array" },
	};
	struct hf h = { 0 };
	struct json_hook hook = { "o", fast_member, &h };
	char err[128] = "";
	size_t i;

	/* "a" and "a b" are the first (the general calls'), then "bc", the
	 * UTF-8 "é", ["xy", "z"] and "r" fast; "\u00e9", "\n", ["p", 1]
	 * and ["q"] not */
	memset(&h, 0, sizeof h);
	CHECK(hookfail("{\"o\": {\"w\": {\"a\": 1,\n  \"bc\" : 2, \"\\u00e9\": 3,"
	    " \"\xc3\xa9\": 40}, \"m\": [\"a b\",\n      [\n        \"xy\",\n"
	    "        \"z\"\n      ], \"\\n\", [\"p\", 1], [\"q\"], \"r\"]}}", &hook, err, sizeof err) == 0);
	EQ(h.fast, 2 + 2 + 1);
	EQ(h.slow, 2 + 4);
	EQ(h.sum, 1 + 2 + 3 + 40);
	EQ(h.bytes, 1 + 2 + 2 + 2 + 3 + 1);
	for (i = 0; i < sizeof bad / sizeof *bad; i++) {
		memset(&h, 0, sizeof h);
		CHECK(hookfail(bad[i][0], &hook, err, sizeof err));
		CHECK(strstr(err, bad[i][1]) != NULL);
		if (!strstr(err, bad[i][1]))
			fprintf(stderr, "case %zu: %s\n", i, err);
	}
}

int
main(void)
{
	argv0 = "test_json";
	test_hook();
	test_hook_fast();
	test_accept_reject();
	test_depth();
	test_values();
	test_error_position();
	test_load();
	return test_end("test_json");
}
