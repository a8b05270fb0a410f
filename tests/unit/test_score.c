/* test_score.c: log_softmax in double and the rank of score.h against
 * plain long double sums, and the scoring windows against a line-by-line
 * transcription of the loop of HuggingFace's perplexity guide
 * ("Perplexity of fixed-length models"), over every small record length,
 * context and stride. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/stream/score.h"
#include "test.h"

static unsigned long long rs = 88172645463325252ULL;

static double
urand(void)			/* uniform in [0, 1) */
{
	rs ^= rs << 13, rs ^= rs >> 7, rs ^= rs << 17;
	return (double)(rs >> 11) / 9007199254740992.0;
}

/* log(sum(exp(x))) in long double, shifted by the largest */
static long double
lse_ref(const float *x, size_t n)
{
	long double m = x[0], s = 0;
	size_t i;

	for (i = 1; i < n; i++)
		m = x[i] > m ? x[i] : m;
	for (i = 0; i < n; i++)
		s += expl((long double)x[i] - m);
	return m + logl(s);
}

static void
test_lse(void)
{
	static const float spread[] = { 1, 30, 1000, 1e30f };
	size_t n = 49152, i, k, at;
	float *x = malloc(n * sizeof(*x));
	double lse, lp, sum;

	for (k = 0; k < LEN(spread); k++) {
		for (i = 0; i < n; i++)
			x[i] = (float)((2 * urand() - 1) * spread[k]);
		CHECK(score_lse(x, n, &lse, &at) == 0);
		NEAR(lse, (double)lse_ref(x, n), 1e-13);
		/* the probabilities it gives sum to 1 */
		for (sum = 0, i = 0; i < n; i++)
			sum += exp((double)x[i] - lse);
		NEAR(sum, 1, 1e-12);
	}
	/* one logit far above the rest: log-probability 0, the others
	 * their distance below it, with no overflow */
	x[0] = FLT_MAX, x[1] = -FLT_MAX, x[2] = FLT_MAX / 2;
	CHECK(score_lse(x, 3, &lse, &at) == 0);
	CHECK(lse == (double)FLT_MAX);
	lp = (double)x[2] - lse;
	CHECK(lp == -(double)FLT_MAX / 2);
	/* every logit equal: each log(1/n) */
	for (i = 0; i < 1000; i++)
		x[i] = -7.5f;
	CHECK(score_lse(x, 1000, &lse, &at) == 0);
	NEAR(x[0] - lse, -log(1000.0), 1e-15);
	/* a logit that is not finite is named by its index */
	x[3] = INFINITY;
	CHECK(score_lse(x, 1000, &lse, &at) == -1);
	EQ(at, 3);
	x[3] = 0, x[999] = NAN;
	CHECK(score_lse(x, 1000, &lse, &at) == -1);
	EQ(at, 999);
	x[999] = -INFINITY;
	CHECK(score_lse(x, 1000, &lse, &at) == -1);
	free(x);
}

static void
test_rank(void)
{
	static const float x[] = { 1, 2, 2, 3, -1, 2 };

	/* 1 + the entries strictly greater: ties share the rank */
	EQ(score_rank(x, LEN(x), 3), 1);
	EQ(score_rank(x, LEN(x), 1), 2);
	EQ(score_rank(x, LEN(x), 2), 2);
	EQ(score_rank(x, LEN(x), 5), 2);
	EQ(score_rank(x, LEN(x), 0), 5);
	EQ(score_rank(x, LEN(x), 4), 6);
}

/* The guide's loop, for a record of n tokens, windows of ctx, stride s:
 *
 *	for begin_loc in range(0, seq_len, stride):
 *	    end_loc = min(begin_loc + max_length, seq_len)
 *	    trg_len = end_loc - prev_end_loc
 *	    input_ids = encodings.input_ids[:, begin_loc:end_loc]
 *	    target_ids[:, :-trg_len] = -100
 *	    ... model(input_ids, labels=target_ids) ...
 *	    prev_end_loc = end_loc
 *	    if end_loc == seq_len: break
 *
 * with the model's shift of the labels: a window's first position is
 * never a target.  Its windows into b[], e[], their first target into
 * f[]; the count. */
static size_t
guide(size_t n, size_t ctx, size_t s, size_t *b, size_t *e, size_t *f)
{
	size_t begin, end, prev = 0, trg, k = 0;

	for (begin = 0; begin < n; begin += s) {
		end = begin + ctx < n ? begin + ctx : n;
		trg = end - prev;
		b[k] = begin, e[k] = end;
		f[k] = end - trg > begin ? end - trg : begin + 1;
		k++;
		prev = end;
		if (end == n)
			break;
	}
	return k;
}

static void
test_windows(void)
{
	size_t b[80], e[80], f[80], n, ctx, s, k, nk, scored, last;
	struct score_win w;

	for (n = 0; n <= 70; n++)
		for (ctx = 1; ctx <= 24; ctx++)
			for (s = 1; s <= ctx; s++) {
				nk = guide(n, ctx, s, b, e, f);
				memset(&w, 0, sizeof(w));
				scored = 0, last = 0;
				for (k = 0; score_window(&w, n, ctx, s); k++) {
					CHECKF(k < nk && w.begin == b[k] &&
					    w.end == e[k] && w.first == f[k],
					    "n %zu ctx %zu stride %zu: window %zu is "
					    "[%zu, %zu) from %zu", n, ctx, s, k,
					    w.begin, w.end, w.first);
					CHECK(w.end - w.begin <= ctx);
					/* in order, each token once */
					CHECK(w.first >= last);
					if (w.end > w.first)
						scored += w.end - w.first, last = w.end;
				}
				/* a record of fewer than 2 tokens: nothing to run */
				EQ(k, n < 2 ? 0 : nk);
				/* a window's first token is never scored; with
				 * windows that overlap, every other one is */
				if (s < ctx && n >= 2)
					EQ(scored, n - 1);
				else if (n >= 2)
					EQ(scored, n - 1 - (n - 1) / ctx);
			}
}

int
main(void)
{
	test_lse();
	test_rank();
	test_windows();
	return test_end("test_score");
}
