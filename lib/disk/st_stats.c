/* st_stats.c: min, max, mean, std and NaN/Inf counts of tensors, in
 * fixed-size chunks so that threads can share the work and the result
 * does not depend on how many there are. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kern/pool.h"
#include "kern/kern.h"
#include "disk/st.h"
#include "base/util.h"

#define BLOCK 1024		/* elements converted to double at a time */
#define CHUNK (1u << 20)	/* elements per work item */

static void
stats_init(struct st_stats *s)
{
	memset(s, 0, sizeof(*s));
	s->min = s->max = s->mean = s->std = NAN;
}

void
st_stats_merge(struct st_stats *a, const struct st_stats *b)
{
	double n, d;

	a->nan += b->nan;
	a->inf += b->inf;
	if (!b->n)
		return;
	if (!a->n) {
		size_t nan = a->nan, inf = a->inf;

		*a = *b;
		a->nan = nan;
		a->inf = inf;
		return;
	}
	n = (double)a->n + (double)b->n;
	d = b->mean - a->mean;
	a->m2 += b->m2 + d * d * (double)a->n * (double)b->n / n;
	a->mean += d * (double)b->n / n;
	a->n += b->n;
	if (b->min < a->min)
		a->min = b->min;
	if (b->max > a->max)
		a->max = b->max;
	a->std = sqrt(a->m2 / (double)a->n);
}

/* Elements [i0, i0+n) of t as doubles (n <= BLOCK). */
static void
load(const struct st_tensor *t, size_t i0, size_t n, double *x)
{
	const unsigned char *p = (const unsigned char *)t->data +
	    i0 * st_dtype_size(t->dtype);
	size_t i;

	switch (t->dtype) {
	case ST_BF16:
		for (i = 0; i < n; i++) {
			uint16_t h = (uint16_t)(p[2 * i] | p[2 * i + 1] << 8);
			x[i] = conv_bf16_to_f32(h);
		}
		break;
	case ST_F16:
		for (i = 0; i < n; i++) {
			uint16_t h = (uint16_t)(p[2 * i] | p[2 * i + 1] << 8);
			x[i] = conv_f16_to_f32(h);
		}
		break;
	case ST_F32:
		for (i = 0; i < n; i++) {
			float f;
			memcpy(&f, p + 4 * i, 4);
			x[i] = f;
		}
		break;
	default:
		for (i = 0; i < n; i++)
			x[i] = st_elem(t, i0 + i);
	}
}

/* Fold the finite values x[0..n) into s: sums of x - K and (x - K)^2 with
 * K = x[0] (shifted data keep the one-pass variance accurate), in
 * explicit lanes the compiler can vectorize. */
static void
fold(struct st_stats *s, const float *x, size_t n)
{
	enum { L = 8 };
	double s1[L] = { 0 }, s2[L] = { 0 }, K = x[0], a = 0, b = 0, d;
	float lo[L], hi[L], mn, mx;
	struct st_stats bs;
	size_t i, j;

	for (j = 0; j < L; j++)
		lo[j] = hi[j] = x[0];
	for (i = 0; i + L <= n; i += L)
		for (j = 0; j < L; j++) {
			d = (double)x[i + j] - K;
			s1[j] += d;
			s2[j] += d * d;
			lo[j] = x[i + j] < lo[j] ? x[i + j] : lo[j];
			hi[j] = x[i + j] > hi[j] ? x[i + j] : hi[j];
		}
	for (; i < n; i++) {
		d = (double)x[i] - K;
		s1[0] += d;
		s2[0] += d * d;
		lo[0] = x[i] < lo[0] ? x[i] : lo[0];
		hi[0] = x[i] > hi[0] ? x[i] : hi[0];
	}
	mn = lo[0], mx = hi[0];
	for (j = 0; j < L; j++) {
		a += s1[j];
		b += s2[j];
		mn = lo[j] < mn ? lo[j] : mn;
		mx = hi[j] > mx ? hi[j] : mx;
	}
	stats_init(&bs);
	bs.n = n;
	bs.min = mn;
	bs.max = mx;
	bs.mean = K + a / (double)n;
	bs.m2 = b - a * a / (double)n;
	if (bs.m2 < 0)
		bs.m2 = 0;
	bs.std = sqrt(bs.m2 / (double)n);
	st_stats_merge(s, &bs);
}

/* Elements [i0, i0+n) of a F32, F16 or BF16 tensor as floats. */
static void
loadf(const struct st_tensor *t, size_t i0, size_t n, float *x)
{
	const unsigned char *p = (const unsigned char *)t->data +
	    i0 * st_dtype_size(t->dtype);
	uint16_t h[BLOCK];
	uint32_t u;
	size_t i;

	if (t->dtype == ST_F32) {
		memcpy(x, p, 4 * n);
		return;
	}
	memcpy(h, p, 2 * n);
	if (t->dtype == ST_BF16)
		for (i = 0; i < n; i++) {
			u = (uint32_t)h[i] << 16;
			memcpy(&x[i], &u, 4);
		}
	else
		for (i = 0; i < n; i++)
			x[i] = conv_f16_to_f32(h[i]);
}

void
st_stats_range(const struct st_tensor *t, size_t i0, size_t i1,
    struct st_stats *s)
{
	float x[BLOCK];
	double y[BLOCK];
	size_t i, n, k, bad;
	int fast = t->dtype == ST_F32 || t->dtype == ST_F16 ||
	    t->dtype == ST_BF16;

	stats_init(s);
	for (; i0 < i1; i0 += n) {
		n = i1 - i0 < BLOCK ? i1 - i0 : BLOCK;
		if (fast)
			loadf(t, i0, n, x);
		else
			load(t, i0, n, y);
		bad = 0;
		if (fast)
			for (i = 0; i < n; i++)
				bad += !(fabsf(x[i]) <= FLT_MAX);
		else
			for (i = 0; i < n; i++)
				bad += !isfinite(y[i]);
		k = n;
		if (bad || !fast) {	/* rare: keep the finite ones */
			for (i = k = 0; i < n; i++) {
				double v = fast ? x[i] : y[i];

				if (isnan(v))
					s->nan++;
				else if (isinf(v))
					s->inf++;
				else
					x[k++] = (float)v;
			}
			/* F64 and 64-bit integers lose digits in float:
			 * fold them one by one in double instead */
			if (!fast) {
				for (i = 0; i < n; i++)
					if (isfinite(y[i])) {
						struct st_stats one;

						stats_init(&one);
						one.n = 1;
						one.min = one.max = one.mean = y[i];
						one.m2 = one.std = 0;
						st_stats_merge(s, &one);
					}
				continue;
			}
		}
		if (k)
			fold(s, x, k);
	}
}

struct item {
	const struct st_tensor *t;
	size_t i0, i1, tensor;
	struct st_stats s;
};

static void
work(void *ctx, int a, int b)
{
	struct item *it = ctx;

	for (; a < b; a++)
		st_stats_range(it[a].t, it[a].i0, it[a].i1, &it[a].s);
}

int
st_stats(struct pool *p, const struct st_tensor *const *t, size_t n,
    struct st_stats *out)
{
	struct item *it;
	size_t i, k = 0, nit = 0, j;

	for (i = 0; i < n; i++) {
		size_t c = t[i]->nel / CHUNK + (t[i]->nel % CHUNK != 0);
		nit += c ? c : 1;
	}
	if (nit > INT32_MAX)
		return error("too many tensors");
	if (!(it = xcalloc(nit, sizeof(*it))))
		return -1;
	for (i = 0; i < n; i++) {
		j = 0;
		do {
			it[k].t = t[i];
			it[k].tensor = i;
			it[k].i0 = j;
			it[k].i1 = t[i]->nel - j > CHUNK ? j + CHUNK : t[i]->nel;
			k++;
			j += CHUNK;
		} while (j < t[i]->nel);
	}
	pool_for(p, (int)nit, 1, work, it);
	for (i = 0; i < n; i++)
		stats_init(&out[i]);
	for (k = 0; k < nit; k++)
		st_stats_merge(&out[it[k].tensor], &it[k].s);
	free(it);
	return 0;
}
