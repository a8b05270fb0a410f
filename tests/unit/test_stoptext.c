/* test_stoptext.c: stop strings over a byte stream (split across feeds,
 * overlapping candidates, the one ending first) and over a byte-level
 * tokenizer's streaming decoder (a character held back, special tokens,
 * the prompt not counted). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../lib/stream/stoptext.h"
#include "../../lib/tok/tok.h"
#include "test.h"

/* feed s a byte at a time... or as cut by '|': the feed that matched
 * (0-based), -1 for none */
static int
feeds(struct stoptext *st, const char *s)
{
	int k = 0, r;
	const char *e;

	stoptext_reset(st);
	for (;; k++) {
		e = strchr(s, '|');
		r = stoptext_feed(st, s, e ? (size_t)(e - s) : strlen(s));
		CHECK(r >= 0);
		if (r > 0)
			return k;
		if (!e)
			return -1;
		s = e + 1;
	}
}

static void
test_bytes(void)
{
	struct stoptext st = { 0 };

	EQ(stoptext_add(&st, ""), -1);
	CHECK(stoptext_add(&st, "User:") == 0);
	EQ(feeds(&st, "Hello"), -1);	/* no string: nothing */
	EQ(feeds(&st, "Hi|\nUs|er|:|x"), 3);	/* split across feeds */
	EQ(st.hit, 0);
	EQ(st.hitend, 8);	/* "Hi\nUser:" */
	EQ(feeds(&st, "U|s|e|r|:"), 4);
	EQ(feeds(&st, "x\nUser:y"), 0);	/* within one feed */
	EQ(feeds(&st, "Use|r|"), -1);
	EQ(feeds(&st, "UUser|:"), 1);	/* a false start before */
	/* matched once: a later feed does not match the same occurrence */
	EQ(feeds(&st, "User:|abc"), 0);
	CHECK(stoptext_feed(&st, "d", 1) == 0);
	stoptext_free(&st);

	/* overlapping candidates: the one that ends first, then the first
	 * added */
	CHECK(stoptext_add(&st, "abcd") == 0);
	CHECK(stoptext_add(&st, "bc") == 0);
	CHECK(stoptext_add(&st, "aab") == 0);
	EQ(feeds(&st, "xabcd"), 0);
	EQ(st.hit, 1);		/* "bc" ends before "abcd" */
	EQ(st.hitend, 4);
	EQ(feeds(&st, "xa|a|bcd"), 2);
	EQ(st.hit, 2);		/* "aab", in a feed of its own */
	EQ(feeds(&st, "ab|cd"), 1);
	EQ(st.hit, 1);
	stoptext_free(&st);
	CHECK(stoptext_add(&st, "ab") == 0);
	CHECK(stoptext_add(&st, "xab") == 0);
	EQ(feeds(&st, "xab"), 0);
	EQ(st.hit, 0);		/* same end: the first added */
	{
		char b[32];

		CHECK(!strcmp(stoptext_hitname(&st, b, sizeof b), "text \"ab\""));
		CHECK(stoptext_add(&st, "\nUser:\x01\"") == 0);
		EQ(feeds(&st, "a\nUser:\x01\""), 0);
		CHECK(!strcmp(stoptext_hitname(&st, b, sizeof b),
		    "text \"\\nUser:\\x01\\\"\""));
		CHECK(!strcmp(stoptext_hitname(&st, b, 16), "text \"\\n...\""));
	}
	/* a string longer than the window's tail still matches whole */
	CHECK(stoptext_add(&st, "0123456789") == 0);
	EQ(feeds(&st, "01234|5678|9"), 2);
	EQ(st.hit, 3);
	stoptext_free(&st);
}

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

/* A byte-level tokenizer: ids 0-255 the bytes, 256 "Ġthe", 257 "<|end|>"
 * (special) */
static int
mktok(struct tok *t)
{
	char path[] = "/tmp/test_stoptextXXXXXX";
	int fd = mkstemp(path), i, r;
	FILE *f;

	if (fd < 0 || !(f = fdopen(fd, "w")))
		return -1;
	fputs("{\"added_tokens\": [{\"id\": 257, \"content\": \"<|end|>\", "
	    "\"special\": true}],\n\"pre_tokenizer\": {\"type\": \"ByteLevel\", "
	    "\"add_prefix_space\": false}, \"decoder\": {\"type\": \"ByteLevel\"},\n"
	    "\"model\": {\"type\": \"BPE\", \"vocab\": {", f);
	for (i = 0; i < 256; i++)
		fprintf(f, "%s\"\\u%04x\": %d", i ? ", " : "", b2u(i), i);
	fputs(", \"\\u0120the\": 256, \"<|end|>\": 257}, \"merges\": []}}\n", f);
	fclose(f);
	r = tok_load(t, path);
	unlink(path);
	return r;
}

/* push ids[0..n) after the prompt: the index of the id that stopped, -1 */
static int
pushes(struct stoptext *st, const struct tok *t, const int *prompt,
    size_t np, const int *ids, size_t n)
{
	size_t i;
	int r;

	CHECK(stoptext_start(st, t, prompt, np) == 0);
	for (i = 0; i < n; i++) {
		CHECK((r = stoptext_push(st, ids[i])) >= 0);
		if (r > 0)
			return (int)i;
	}
	return -1;
}

static void
test_tok(void)
{
	struct stoptext st = { 0 };
	struct tok t = { 0 };
	/* "é" is c3 a9: the decoder holds c3 back until a9 comes */
	static const int e_acute[] = { 'x', 0xc3, 0xa9, '!', 'y' };
	static const int the[] = { 'a', 256, 'n' };
	static const int special[] = { 'o', 'k', 257, 'z' };
	static const int prompt[] = { 'S', 't', 'o' };
	static const int cont[] = { 'p', 'S', 't', 'o', 'p' };

	if (mktok(&t) < 0) {
		fails++;
		return;
	}
	CHECK(stoptext_add(&st, "\xc3\xa9") == 0);
	EQ(pushes(&st, &t, NULL, 0, e_acute, 5), 2);	/* the id completing é */
	stoptext_free(&st);
	CHECK(stoptext_add(&st, "x\xc3") == 0);	/* bytes, not characters */
	EQ(pushes(&st, &t, NULL, 0, e_acute, 5), 2);	/* c3 was held back */
	stoptext_free(&st);
	CHECK(stoptext_add(&st, "a th") == 0);	/* inside a token: Ġ is a space */
	EQ(pushes(&st, &t, NULL, 0, the, 3), 1);
	stoptext_free(&st);
	CHECK(stoptext_add(&st, "<|end|>") == 0);	/* special tokens' text counts */
	EQ(pushes(&st, &t, NULL, 0, special, 4), 2);
	stoptext_free(&st);
	/* the prompt is not the continuation: "Stop" only at its second
	 * writing, though "Sto" + "p" reads "Stop" */
	CHECK(stoptext_add(&st, "Stop") == 0);
	EQ(pushes(&st, &t, prompt, 3, cont, 5), 4);
	EQ(st.hitend, 5);
	EQ(pushes(&st, &t, prompt, 3, cont, 4), -1);
	stoptext_free(&st);
	tok_free(&t);
}

int
main(void)
{
	test_bytes();
	test_tok();
	return test_end("stoptext");
}
