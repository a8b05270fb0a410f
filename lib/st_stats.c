/* st_stats.c: min, max, mean, std and NaN/Inf counts of tensors, in
 * fixed-size chunks so that threads can share the work and the result
 * does not depend on how many there are. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pool.h"
#include "st.h"
#include "util.h"

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
			x[i] = st_bf16_to_f32(h);
		}
		break;
	case ST_F16:
		for (i = 0; i < n; i++) {
			uint16_t h = (uint16_t)(p[2 * i] | p[2 * i + 1] << 8);
			x[i] = st_f16_to_f32(h);
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

void
st_stats_range(const struct st_tensor *t, size_t i0, size_t i1,
    struct st_stats *s)
{
	double x[BLOCK];
	size_t i, n;

	stats_init(s);
	for (; i0 < i1; i0 += n) {
		struct st_stats b;
		double sum = 0, m2 = 0, mn = INFINITY, mx = -INFINITY, mean;
		size_t k = 0;

		n = i1 - i0 < BLOCK ? i1 - i0 : BLOCK;
		load(t, i0, n, x);
		/* two passes over the block, in cache: sum, then deviations */
		for (i = 0; i < n; i++) {
			if (!isfinite(x[i])) {
				if (isnan(x[i]))
					s->nan++;
				else
					s->inf++;
				continue;
			}
			x[k++] = x[i];
		}
		for (i = 0; i < k; i++) {
			sum += x[i];
			mn = x[i] < mn ? x[i] : mn;
			mx = x[i] > mx ? x[i] : mx;
		}
		if (!k)
			continue;
		mean = sum / (double)k;
		for (i = 0; i < k; i++)
			m2 += (x[i] - mean) * (x[i] - mean);
		stats_init(&b);
		b.n = k;
		b.min = mn;
		b.max = mx;
		b.mean = mean;
		b.m2 = m2;
		b.std = sqrt(m2 / (double)k);
		st_stats_merge(s, &b);
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
	if (!(it = calloc(nit ? nit : 1, sizeof(*it))))
		return error("out of memory");
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
