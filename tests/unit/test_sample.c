/* test_sample.c: the sampler against hand-computed cases and a brute-force
 * reference; the random stream against a reference implementation. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/stream/sample.h"
#include "../../lib/base/util.h"
#include "test.h"



static struct sampler_opts
opts(float temp, int top_k, float top_p, float min_p)
{
	struct sampler_opts o;

	sampler_defaults(&o);
	o.temp = temp;
	o.top_k = top_k;
	o.top_p = top_p;
	o.min_p = min_p;
	o.seed = 7;
	return o;
}

/* The id the draw u picks from probabilities p[0..n) (0 = removed):
 * the rule of sample.h, written the plain way. */
static int
pick(double u, const double *p, int n)
{
	double sum = 0, c = 0;
	int i, last = -1;

	for (i = 0; i < n; i++)
		sum += p[i];
	for (i = 0; i < n; i++) {
		if (p[i] == 0)
			continue;
		c += p[i];
		last = i;
		if (c > u * sum)
			break;
	}
	return last;
}

/* The next draw of s without advancing it. */
static double
peek(const struct sampler *s)
{
	struct sampler t = *s;

	return sampler_draw(&t);
}

/* xoshiro256** seeded by splitmix64(7): values from an independent
 * Python transcription of the reference code. */
static void
test_rng(void)
{
	struct sampler_opts o = opts(1, 0, 1, 0);
	struct sampler s;

	CHECK(sampler_init(&s, &o, 4) == 0);
	CHECK(sampler_draw(&s) == (double)(0xb358faf74ef9765aULL >> 11) * 0x1p-53);
	CHECK(sampler_draw(&s) == (double)(0x475c3d964f482cd2ULL >> 11) * 0x1p-53);
	CHECK(fabs(sampler_draw(&s) - 0.8396274618764198) < 1e-16);
	sampler_reset(&s);
	CHECK(sampler_draw(&s) == (double)(0xb358faf74ef9765aULL >> 11) * 0x1p-53);
	sampler_free(&s);
}

static void
test_top(void)
{
	float x[] = { 1, 3, 2, 3, 2, -1, 3 };
	int idx[LEN(x)];

	EQ(sample_top(idx, x, LEN(x), 4), 4);
	EQ(idx[0], 1); EQ(idx[1], 3); EQ(idx[2], 6); EQ(idx[3], 2);
	EQ(sample_top(idx, x, LEN(x), 100), 7);
	EQ(idx[4], 4); EQ(idx[5], 0); EQ(idx[6], 5);
	EQ(sample_top(idx, x, LEN(x), 1), 1);
	EQ(idx[0], 1);
}

/* Greedy: argmax, lowest id on ties, and one draw per call all the same. */
static void
test_greedy(void)
{
	struct sampler_opts o = opts(0, 0, 1, 0);
	struct sampler s, r;
	float x[] = { 0.5f, 2, -1, 2 };
	int i;

	CHECK(sampler_init(&s, &o, 4) == 0);
	CHECK(sampler_init(&r, &o, 4) == 0);
	for (i = 0; i < 3; i++) {
		EQ(sampler_next(&s, x, NULL, 0), 1);
		sampler_draw(&r);
	}
	CHECK(sampler_draw(&s) == sampler_draw(&r));
	sampler_free(&s);
	sampler_free(&r);
}

/* Greedy over every length to 70 with coarse values (ties within a lane
 * and across the eight), against the first index of the largest; a
 * non-finite logit anywhere reported at its index. */
static void
test_greedy_lanes(void)
{
	struct sampler_opts o = opts(0, 0, 1, 0);
	struct sampler s;
	float x[70];
	unsigned v = 12345;
	int n, i, want, trial;

	for (n = 1; n <= 70; n++)
		for (trial = 0; trial < 20; trial++) {
			CHECK(sampler_init(&s, &o, n) == 0);
			for (i = 0, want = 0; i < n; i++) {
				v = v * 1103515245u + 12345u;
				x[i] = (float)(v >> 16 & 7) - 20.0f;
				if (x[i] > x[want])
					want = i;
			}
			EQ(sampler_next(&s, x, NULL, 0), want);
			i = (int)(v >> 8) % n;
			x[i] = trial % 2 ? NAN : -INFINITY;
			EQ(sampler_next(&s, x, NULL, 0), -1);
			EQ(s.bad, i);
			sampler_free(&s);
		}
}

/* HF RepetitionPenaltyLogitsProcessor: < 0 multiplied, else divided, over
 * the distinct ids of the last repeat_last_n. */
static void
test_penalty(void)
{
	struct sampler_opts o = opts(0, 0, 1, 0);
	struct sampler s;
	float x[3];
	int h1[] = { 0, 0, 0 }, h2[] = { 0, 2 };

	o.repeat_penalty = 2;
	CHECK(sampler_init(&s, &o, 3) == 0);
	memcpy(x, (float[]){ 2, 1.5f, -1 }, sizeof(x));
	EQ(sampler_next(&s, x, h1, 3), 1);
	CHECK(x[0] == 1 && x[1] == 1.5f && x[2] == -1);	/* once, not thrice */
	memcpy(x, (float[]){ 2, 1.5f, -1 }, sizeof(x));
	EQ(sampler_next(&s, x, h2, 2), 1);
	CHECK(x[0] == 1 && x[2] == -2);
	sampler_free(&s);

	o.repeat_last_n = 1;
	CHECK(sampler_init(&s, &o, 3) == 0);
	memcpy(x, (float[]){ 2, 1.5f, -1 }, sizeof(x));
	EQ(sampler_next(&s, x, h2, 2), 0);
	CHECK(x[0] == 2 && x[2] == -2);
	sampler_free(&s);

	o.repeat_last_n = 0;
	CHECK(sampler_init(&s, &o, 3) == 0);
	memcpy(x, (float[]){ 2, 1.5f, -1 }, sizeof(x));
	EQ(sampler_next(&s, x, h2, 2), 0);
	CHECK(x[0] == 2 && x[2] == -1);
	sampler_free(&s);
}

/* Run n draws of s on logits x and check each against pick() on the
 * expected distribution p. */
static void
check_dist(struct sampler *s, const float *x, const double *p, int n,
    int draws, int line)
{
	float buf[16];
	int i, id, want, bad = 0;

	for (i = 0; i < draws; i++) {
		memcpy(buf, x, n * sizeof(float));
		want = pick(peek(s), p, n);
		id = sampler_next(s, buf, NULL, 0);
		if (id != want && !bad++)
			fprintf(stderr, "line %d: draw %d: id %d, expected %d\n",
			    line, i, id, want);
	}
	if (bad)
		fails++;
}

/* Hand-computed cases: p = 0.5, 0.3, 0.15, 0.05 as logits log(p). */
static void
test_filters(void)
{
	float x[4];
	double p[4];
	struct sampler_opts o;
	struct sampler s;
	int i;
	const double q[] = { 0.5, 0.3, 0.15, 0.05 };

	for (i = 0; i < 4; i++)
		x[i] = (float)log(q[i]);

	/* plain softmax: the distribution itself */
	o = opts(1, 0, 1, 0);
	CHECK(sampler_init(&s, &o, 4) == 0);
	check_dist(&s, x, q, 4, 1000, __LINE__);
	sampler_free(&s);

	/* top-k 2: 0.5 and 0.3 */
	o = opts(1, 2, 1, 0);
	CHECK(sampler_init(&s, &o, 4) == 0);
	memcpy(p, (double[]){ 0.5, 0.3, 0, 0 }, sizeof(p));
	check_dist(&s, x, p, 4, 1000, __LINE__);
	sampler_free(&s);

	/* top-p 0.75: 0.5 is kept (0 before it), 0.3 (0.5 before it), 0.15
	 * is not (0.8 >= 0.75); HF: ascending cumsum 0.05 0.2 0.5 1 <= 0.25 */
	o = opts(1, 0, 0.75f, 0);
	CHECK(sampler_init(&s, &o, 4) == 0);
	check_dist(&s, x, p, 4, 1000, __LINE__);
	sampler_free(&s);

	/* top-p 0.85: 0.15 is kept too */
	o = opts(1, 0, 0.85f, 0);
	CHECK(sampler_init(&s, &o, 4) == 0);
	memcpy(p, (double[]){ 0.5, 0.3, 0.15, 0 }, sizeof(p));
	check_dist(&s, x, p, 4, 1000, __LINE__);
	sampler_free(&s);

	/* top-p tiny: only the best */
	o = opts(1, 0, 0.01f, 0);
	CHECK(sampler_init(&s, &o, 4) == 0);
	memcpy(p, (double[]){ 1, 0, 0, 0 }, sizeof(p));
	check_dist(&s, x, p, 4, 100, __LINE__);
	sampler_free(&s);

	/* min-p 0.2: cut at 0.1, so 0.05 goes */
	o = opts(1, 0, 1, 0.2f);
	CHECK(sampler_init(&s, &o, 4) == 0);
	memcpy(p, (double[]){ 0.5, 0.3, 0.15, 0 }, sizeof(p));
	check_dist(&s, x, p, 4, 1000, __LINE__);
	sampler_free(&s);

	/* min-p 0.5: cut at 0.25 */
	o = opts(1, 0, 1, 0.5f);
	CHECK(sampler_init(&s, &o, 4) == 0);
	memcpy(p, (double[]){ 0.5, 0.3, 0, 0 }, sizeof(p));
	check_dist(&s, x, p, 4, 1000, __LINE__);
	sampler_free(&s);

	/* temperature 0.5 squares the odds: 0.25 .09 .0225 .0025 */
	o = opts(0.5f, 0, 1, 0);
	CHECK(sampler_init(&s, &o, 4) == 0);
	memcpy(p, (double[]){ 0.25, 0.09, 0.0225, 0.0025 }, sizeof(p));
	check_dist(&s, x, p, 4, 1000, __LINE__);
	sampler_free(&s);

	/* top-k 3 then top-p 0.7 on the renormalised 0.5/0.95 .3/.95:
	 * 0.526 kept, then 0.526 < 0.7 so 0.316 kept, then 0.842 >= 0.7 */
	o = opts(1, 3, 0.7f, 0);
	CHECK(sampler_init(&s, &o, 4) == 0);
	memcpy(p, (double[]){ 0.5, 0.3, 0, 0 }, sizeof(p));
	check_dist(&s, x, p, 4, 1000, __LINE__);
	sampler_free(&s);
}

/* top-k keeps every id tied with the k-th (HF: scores < k-th removed). */
static void
test_topk_ties(void)
{
	float x[] = { 1, 3, 2, 3, 2 };
	double p[5] = { 0 };
	struct sampler_opts o = opts(1, 3, 1, 0);
	struct sampler s;
	int i;

	for (i = 1; i < 5; i++)
		p[i] = exp(x[i]);
	CHECK(sampler_init(&s, &o, 5) == 0);
	check_dist(&s, x, p, 5, 2000, __LINE__);
	sampler_free(&s);
}

/* The empirical frequencies of 100,000 draws are within 0.005 of the
 * softmax (about 3 standard deviations of the worst case); the seed is
 * fixed, so this is deterministic. */
static void
test_frequency(void)
{
	float x[] = { 0, 1, 2, 0.5f, -3 }, buf[5];
	double q[5], sum = 0;
	long cnt[5] = { 0 };
	struct sampler_opts o = opts(1, 0, 1, 0);
	struct sampler s;
	int i, n = 100000;

	for (i = 0; i < 5; i++)
		sum += q[i] = exp(x[i]);
	o.seed = 12345;
	CHECK(sampler_init(&s, &o, 5) == 0);
	for (i = 0; i < n; i++) {
		memcpy(buf, x, sizeof(x));
		cnt[sampler_next(&s, buf, NULL, 0)]++;
	}
	for (i = 0; i < 5; i++)
		if (fabs((double)cnt[i] / n - q[i] / sum) > 0.005) {
			fprintf(stderr, "id %d: frequency %g, softmax %g\n", i,
			    (double)cnt[i] / n, q[i] / sum);
			fails++;
		}
	sampler_free(&s);
}

/* A brute-force reference: full sort, the filters as HF states them. */
static int
ref_next(const struct sampler_opts *o, const float *x, int n, double u)
{
	int *idx = malloc(n * sizeof(int)), i, j, t, k, m;
	double *p = calloc(n, sizeof(double)), sum = 0, mass;

	for (i = 0; i < n; i++)
		idx[i] = i;
	for (i = 1; i < n; i++)	/* insertion sort, best first, ties by id */
		for (j = i; j > 0 && (x[idx[j]] > x[idx[j - 1]] ||
		    (x[idx[j]] == x[idx[j - 1]] && idx[j] < idx[j - 1])); j--) {
			t = idx[j]; idx[j] = idx[j - 1]; idx[j - 1] = t;
		}
	m = n;
	if (o->top_k > 0 && o->top_k < n) {
		for (k = o->top_k; k < n && x[idx[k]] == x[idx[o->top_k - 1]]; k++)
			;
		m = k;
	}
	for (i = 0; i < m; i++)
		sum += p[idx[i]] = exp(((double)x[idx[i]] - x[idx[0]]) / o->temp);
	for (i = 0; i < m; i++)
		p[idx[i]] /= sum;
	if (o->top_p < 1) {
		for (mass = 0, i = 0; i < m; i++) {
			if (i > 0 && mass >= o->top_p)
				break;
			mass += p[idx[i]];
		}
		for (k = i; k < m; k++)
			p[idx[k]] = 0;
		m = i;
	}
	for (i = 0; i < m; i++)
		if (p[idx[i]] < o->min_p * p[idx[0]])
			p[idx[i]] = 0;
	i = pick(u, p, n);
	free(idx);
	free(p);
	return i;
}

static void
test_reference(void)
{
	enum { N = 700 };
	static float x[N], buf[N];
	struct sampler_opts o;
	struct sampler s;
	unsigned r = 1;
	int trial, i, id, want, bad = 0;

	for (trial = 0; trial < 300; trial++) {
		o = opts(0.3f + (trial % 7) * 0.2f, (int[]){ 0, 1, 5, 40, 699, 1000 }[trial % 6],
		    (float[]){ 1, 0.9f, 0.5f, 0.99f, 0.1f }[trial % 5],
		    (float[]){ 0, 0, 0.05f, 0.3f }[trial % 4]);
		o.seed = trial;
		CHECK(sampler_init(&s, &o, N) == 0);
		for (i = 0; i < N; i++) {
			r = r * 1103515245 + 12345;
			/* coarse values, so that ties happen */
			x[i] = (float)((r >> 16) % 200) / 16 - 6;
		}
		memcpy(buf, x, sizeof(x));
		want = ref_next(&o, x, N, peek(&s));
		id = sampler_next(&s, buf, NULL, 0);
		if (id != want && !bad++)
			fprintf(stderr, "trial %d: id %d, reference %d\n", trial,
			    id, want);
		sampler_free(&s);
	}
	if (bad)
		fails++;
}

static void
test_opts(void)
{
	struct sampler_opts o;
	struct sampler s;

	fprintf(stderr, "(expect six messages)\n");
	o = opts(-1, 0, 1, 0);
	CHECK(sampler_init(&s, &o, 4) < 0);
	o = opts(1, -1, 1, 0);
	CHECK(sampler_init(&s, &o, 4) < 0);
	o = opts(1, 0, 0, 0);
	CHECK(sampler_init(&s, &o, 4) < 0);
	o = opts(1, 0, 1.5f, 0);
	CHECK(sampler_init(&s, &o, 4) < 0);
	o = opts(1, 0, 1, 2);
	CHECK(sampler_init(&s, &o, 4) < 0);
	o = opts(1, 0, 1, 0);
	o.repeat_penalty = 0;
	CHECK(sampler_init(&s, &o, 4) < 0);
	sampler_free(&s);
}

static void
test_stop(void)
{
	struct stop st;

	stop_init(&st);
	CHECK(!stop_none(&st));
	EQ(stop_check(&st, 5), STOP_NONE);
	st.max_new = 3;
	CHECK(stop_add_id(&st, 9) == 0);
	CHECK(stop_add_eos(&st, 2) == 0);
	CHECK(stop_add_eos(&st, 9) == 0);
	EQ(stop_check(&st, 5), STOP_NONE);
	EQ(stop_check(&st, 5), STOP_MAX);
	stop_reset(&st);
	EQ(stop_check(&st, 9), STOP_ID);
	EQ(stop_check(&st, 2), STOP_EOS);
	st.ignore_eos = 1;
	stop_reset(&st);
	EQ(stop_check(&st, 2), STOP_NONE);
	EQ(stop_check(&st, 9), STOP_ID);
	EQ(stop_check(&st, 2), STOP_MAX);
	st.max_new = 0;
	CHECK(stop_none(&st));
	CHECK(!strcmp(stop_name(STOP_EOS), "eos"));
	stop_free(&st);
}

int
main(int argc, char *argv[])
{
	(void)argc;
	argv0 = argv[0];
	test_rng();
	test_top();
	test_greedy();
	test_greedy_lanes();
	test_penalty();
	test_filters();
	test_topk_ties();
	test_frequency();
	test_reference();
	test_opts();
	test_stop();
	return test_end("test_sample");
}
