/* test_tok_train: the BPE trainer (lib/tok/tok_train.c) on word counts.
 * The first two cases are tokenizers' own (trainer.rs, mod tests:
 * test_train, bpe_test_max_token_length_direct_assert) with their
 * expected vocabularies; the others were worked out by hand from
 * trainer.rs and word.rs, as each comment says. */
#include <stdlib.h>
#include <string.h>

#include "../../lib/base/json.h"
#include "../../lib/tok/tok_train.h"
#include "test.h"

struct wc {
	const char *w;
	uint64_t n;
};

static void
words(struct tok_train_words *w, const struct wc *v, size_t n)
{
	size_t i;

	memset(w, 0, sizeof *w);
	for (i = 0; i < n; i++)
		CHECK(tok_train_words_add(w, v[i].w, strlen(v[i].w), v[i].n) == 0);
}

/* the vocabulary, "tok tok ..." by id; the merges, "a b|a b|..." */
static char *
vocab_str(const struct tok_train_model *m)
{
	struct buf b = { 0 };
	size_t i;

	for (i = 0; i < m->vocab.n; i++) {
		if (i)
			buf_addc(&b, ' ');
		buf_adds(&b, tok_train_words_str(&m->vocab, i));
	}
	buf_addc(&b, 0);
	return b.s;
}

static char *
merges_str(const struct tok_train_model *m)
{
	struct buf b = { 0 };
	size_t i;

	for (i = 0; i < m->nmerges; i++)
		buf_printf(&b, "%s%s %s", i ? "|" : "",
		    tok_train_words_str(&m->vocab, m->merges[i][0]),
		    tok_train_words_str(&m->vocab, m->merges[i][1]));
	buf_addc(&b, 0);
	return b.s;
}

/* train v with o; compare vocabulary and merges */
#define TRAIN(v, o, evocab, emerges) train(__LINE__, v, LEN(v), o, evocab, emerges)
static void
train(int line, const struct wc *v, size_t n, const struct tok_train_opt *o,
    const char *evocab, const char *emerges)
{
	struct tok_train_words w;
	struct tok_train_model m;
	char *sv, *sm;

	words(&w, v, n);
	if (tok_train_run(&w, o, &m) < 0) {
		test_fail(__FILE__, line, "tok_train_run failed");
		tok_train_words_free(&w);
		return;
	}
	sv = vocab_str(&m), sm = merges_str(&m);
	CHECKF(!strcmp(sv, evocab), "line %d: vocab\n  got      %s\n  expected %s", line, sv, evocab);
	if (emerges)
		CHECKF(!strcmp(sm, emerges), "line %d: merges\n  got      %s\n  expected %s", line, sm, emerges);
	free(sv), free(sm);
	tok_train_model_free(&m);
	tok_train_words_free(&w);
}

/* trainer.rs test_train: min_frequency 2; merges re, a re, i s */
static void
test_rust_train(void)
{
	static const struct wc v[] = {
		{ "roses", 1 }, { "are", 2 }, { "red", 1 }, { "voilets", 1 },
		{ "blue", 1 }, { "BERT", 1 }, { "is", 2 }, { "big", 1 },
		{ "and", 1 }, { "so", 1 }, { "GPT-2", 1 },
	};
	struct tok_train_opt o = { .vocab_size = 30000, .min_frequency = 2 };

	TRAIN(v, &o, "- 2 B E G P R T a b d e g i l n o r s t u v re are is",
	    "r e|a re|i s");
}

/* trainer.rs bpe_test_max_token_length_direct_assert: max_token_length
 * 2, the expected ids listed there */
static void
test_rust_maxlen(void)
{
	static const struct wc v[] = {
		{ "sin", 2 }, { "Sin", 2 }, { "Lon", 2 }, { "Ano", 2 },
		{ "짧은한", 2 }, { "긴한글", 2 }, { "短字符", 2 }, { "长字符", 2 },
		{ "短い文", 2 }, { "長い文", 2 }, { "so", 2 }, { "GP", 2 },
	};
	struct tok_train_opt o = { .vocab_size = 30000, .max_token_length = 2 };

	TRAIN(v, &o, "A G L P S i n o s い 字 文 短 符 長 长 글 긴 은 짧 한 "
	    "in い文 字符 An GP Lo so 긴한 은한", NULL);
}

/* max_token_length is compared strictly (word.rs: len + len < max): at 3,
 * "abc" (ab and c, 2 + 1) is not made; at 4 it is.  A first pair is
 * counted whatever its length (count_pairs does not look). */
static void
test_maxlen_strict(void)
{
	static const struct wc v[] = { { "abc", 1 } };
	struct tok_train_opt o = { .vocab_size = 30000, .max_token_length = 3 };

	TRAIN(v, &o, "a b c ab", "a b");
	o.max_token_length = 4;
	TRAIN(v, &o, "a b c ab abc", "a b|ab c");
	o.max_token_length = 1;
	TRAIN(v, &o, "a b c ab", "a b");
}

/* equal counts: the smaller pair of ids first (a=0 b=1 c=2 d=3); a
 * higher count first */
static void
test_tiebreak(void)
{
	static const struct wc v1[] = { { "cd", 1 }, { "ab", 1 } };
	static const struct wc v2[] = { { "ab", 1 }, { "cd", 2 } };
	struct tok_train_opt o = { .vocab_size = 30000 };

	TRAIN(v1, &o, "a b c d ab cd", "a b|c d");
	TRAIN(v2, &o, "a b c d cd ab", "c d|a b");
	o.vocab_size = 5;
	TRAIN(v1, &o, "a b c d ab", "a b");
}

/* "abc": (a,b) and (b,c) count 1, (a,b) first; merging it takes (b,c)
 * to 0 and makes (ab,c) 1.  The queue's (b,c) entry (1) comes before
 * (ab,c) (1, a larger pair) and is found stale: re-queued at 0, so
 * (ab,c) is merged, and the 0 ends training.  Without the check "bc"
 * would be merged. */
static void
test_stale(void)
{
	static const struct wc v[] = { { "abc", 1 } };
	struct tok_train_opt o = { .vocab_size = 30000 };

	TRAIN(v, &o, "a b c ab abc", "a b|ab c");
}

/* min_frequency: (a,b) seen 3 times, (c,d) 2: with 3 only "ab" */
static void
test_min_frequency(void)
{
	static const struct wc v[] = { { "ab", 3 }, { "cd", 2 } };
	struct tok_train_opt o = { .vocab_size = 30000, .min_frequency = 3 };

	TRAIN(v, &o, "a b c d ab", "a b");
}

/* limit_alphabet 2 over a:2 b:1 c:2 cuts b; "aab" is then a a (b left
 * out), "cc" c c; (a,a) and (c,c) tie, a's first.  The initial alphabet
 * is kept whatever the limit: z (never seen) stays and b goes. */
static void
test_alphabet(void)
{
	static const struct wc v[] = { { "aab", 1 }, { "cc", 1 } };
	static const struct wc v2[] = { { "aab", 1 } };
	static const uint32_t z[] = { 'z' };
	struct tok_train_opt o = { .vocab_size = 30000, .has_limit = 1, .limit_alphabet = 2 };

	TRAIN(v, &o, "a c aa cc", "a a|c c");
	o.alphabet = z, o.nalphabet = 1;
	TRAIN(v2, &o, "a z aa", "a a");
	/* without a limit the initial alphabet adds to what is seen */
	o.has_limit = 0;
	TRAIN(v2, &o, "a b z aa aab", "a a|aa b");
}

/* special tokens first (one that is a character takes its place in the
 * alphabet), then plain tokens, then the alphabet */
static void
test_special(void)
{
	static const struct wc v[] = { { "ab", 1 } };
	static const char *const sp[] = { "<s>", "b" };
	static const char *const pl[] = { "<0x00>" };
	struct tok_train_opt o = { .vocab_size = 30000, .special = sp, .nspecial = 2,
	    .plain = pl, .nplain = 1 };

	TRAIN(v, &o, "<s> b <0x00> a ab", "a b");
}

/* continuing_subword_prefix "##": b after a is "##b" (added as met), and
 * a merge drops the prefix of its second half: "a" + "##b" = "ab".
 * end_of_word_suffix "</w>": the last character gets it; "ab" comes
 * before "b" (words in byte order), so b</w> is id 2 */
static void
test_prefix_suffix(void)
{
	static const struct wc v[] = { { "ab", 2 } };
	static const struct wc v2[] = { { "b", 1 }, { "ab", 1 } };
	static const struct wc v3[] = { { "abc", 1 } };
	struct tok_train_opt o = { .vocab_size = 30000, .prefix = "##" };

	TRAIN(v, &o, "a b ##b ab", "a ##b");
	/* "abc": a ##b ##c; (a,##b) first, then (ab,##c) = "abc" */
	TRAIN(v3, &o, "a b c ##b ##c ab abc", "a ##b|ab ##c");
	o.prefix = NULL, o.suffix = "</w>";
	TRAIN(v2, &o, "a b b</w> ab</w>", "a b</w>");
}

/* the result does not depend on the order words were counted in: "ab"
 * is met first either way, so @b is 4 and @a 5 */
static void
test_order(void)
{
	static const struct wc v1[] = { { "xa", 1 }, { "ya", 1 }, { "ab", 3 } };
	static const struct wc v2[] = { { "ab", 3 }, { "ya", 1 }, { "xa", 1 } };
	struct tok_train_opt o = { .vocab_size = 30000, .prefix = "@" };

	TRAIN(v1, &o, "a b x y @b @a ab xa ya", "a @b|x @a|y @a");
	TRAIN(v2, &o, "a b x y @b @a ab xa ya", "a @b|x @a|y @a");
}

/* the word table: counts added, tables merged, lookups */
static void
test_words(void)
{
	struct tok_train_words a = { 0 }, b = { 0 };
	char s[16];
	long i;
	int k;

	for (k = 0; k < 5000; k++) {
		snprintf(s, sizeof s, "w%d", k % 1000);
		CHECK(tok_train_words_add(&a, s, strlen(s), 1) == 0);
	}
	CHECK(tok_train_words_add(&b, "w7", 2, 10) == 0);
	CHECK(tok_train_words_add(&b, "new", 3, 1) == 0);
	CHECK(tok_train_words_merge(&a, &b) == 0);
	EQ(a.n, 1001);
	i = tok_train_words_find(&a, "w7", 2);
	CHECK(i >= 0);
	if (i >= 0)
		EQ(a.e[i].val, 15);
	EQ(tok_train_words_find(&a, "w1000", 5), -1);
	CHECK(tok_train_words_find(&a, "new", 3) >= 0);
	tok_train_words_free(&a);
	tok_train_words_free(&b);
}

int
main(void)
{
	argv0 = "test_tok_train";
	test_rust_train();
	test_rust_maxlen();
	test_maxlen_strict();
	test_tiebreak();
	test_stale();
	test_min_frequency();
	test_alphabet();
	test_special();
	test_prefix_suffix();
	test_order();
	test_words();
	return test_end("test_tok_train");
}
