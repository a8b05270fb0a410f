/* sample.c: the sampler and the stop conditions (see sample.h).
 *
 * The order of the steps and their rules follow HuggingFace transformers,
 * src/transformers/generation/logits_process.py:
 * RepetitionPenaltyLogitsProcessor, TemperatureLogitsWarper,
 * TopKLogitsWarper, TopPLogitsWarper, MinPLogitsWarper, as
 * GenerationMixin._get_logits_processor() chains them. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "stream/sample.h"
#include "base/util.h"
#include "kern/kern.h"

/* ---- random stream ---- */

/* splitmix64 and xoshiro256** by Blackman and Vigna,
 * https://prng.di.unimi.it/ (public domain reference code). */
static uint64_t
splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t
rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static uint64_t
xoshiro(uint64_t s[4])
{
	uint64_t r = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return r;
}

double
sampler_draw(struct sampler *s)
{
	return (double)(xoshiro(s->rng) >> 11) * 0x1p-53;
}

uint64_t
sampler_seed_system(void)
{
	uint64_t x = 0, t;
	int fd;

	if (getrandom(&x, sizeof(x), 0) == (ssize_t)sizeof(x))
		return x;
	if ((fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC)) >= 0) {
		ssize_t n = read(fd, &x, sizeof(x));

		close(fd);
		if (n == (ssize_t)sizeof(x))
			return x;
	}
	t = (uint64_t)time(NULL) ^ (uint64_t)getpid() << 32;
	return splitmix64(&t);
}

/* ---- ordering and selection ---- */

/* Is id a better than id b: larger x, ties lower id first. */
static int
better(const float *x, int a, int b)
{
	return x[a] > x[b] || (x[a] == x[b] && a < b);
}

/* Sift idx[i] down a heap of n whose root is the worst element. */
static void
sift_worst(int *idx, size_t n, size_t i, const float *x)
{
	size_t c;
	int v = idx[i];

	while ((c = 2 * i + 1) < n) {
		if (c + 1 < n && better(x, idx[c], idx[c + 1]))
			c++;
		if (!better(x, v, idx[c]))
			break;
		idx[i] = idx[c];
		i = c;
	}
	idx[i] = v;
}

/* Sort idx[0..n) best first (heapsort: O(n log n) whatever the data). */
static void
sort_best(int *idx, size_t n, const float *x)
{
	size_t i;
	int t;

	for (i = n / 2; i-- > 0; )
		sift_worst(idx, n, i, x);
	while (n > 1) {
		t = idx[0];	/* the worst goes to the end */
		idx[0] = idx[--n];
		idx[n] = t;
		sift_worst(idx, n, 0, x);
	}
}

/* Sort idx[0..n) best first, as sort_best, in O(n): a stable LSD radix
 * sort on the float bits (3 passes of 11 bits) of ids given in increasing
 * order, so equal logits keep the lower id first.  keys holds 2n. */
static void
radix_best(int *idx, size_t n, const float *x, uint64_t *keys)
{
	static const int shift[3] = { 32, 43, 54 };
	uint64_t *a = keys, *b = keys + n, *t;
	size_t cnt[2048], i, sum, c;
	uint32_t u;
	float f;
	int pass;

	for (i = 0; i < n; i++) {
		f = x[idx[i]] == 0 ? 0.0f : x[idx[i]];	/* -0 ties with +0 */
		memcpy(&u, &f, 4);
		u = u & 0x80000000u ? ~u : u | 0x80000000u;	/* ascending */
		a[i] = (uint64_t)~u << 32 | (uint32_t)idx[i];	/* descending */
	}
	for (pass = 0; pass < 3; pass++) {
		memset(cnt, 0, sizeof(cnt));
		for (i = 0; i < n; i++)
			cnt[a[i] >> shift[pass] & 2047]++;
		for (i = sum = 0; i < 2048; i++) {
			c = cnt[i];
			cnt[i] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			b[cnt[a[i] >> shift[pass] & 2047]++] = a[i];
		t = a, a = b, b = t;
	}
	for (i = 0; i < n; i++)
		idx[i] = (int)(uint32_t)a[i];
}

size_t
sample_top(int *idx, const float *x, size_t n, size_t k)
{
	size_t i;

	if (k > n)
		k = n;
	if (k == 0)
		return 0;
	for (i = 0; i < k; i++)
		idx[i] = (int)i;
	for (i = k / 2; i-- > 0; )
		sift_worst(idx, k, i, x);
	for (i = k; i < n; i++)
		if (better(x, (int)i, idx[0])) {
			idx[0] = (int)i;
			sift_worst(idx, k, 0, x);
		}
	sort_best(idx, k, x);
	return k;
}

/* ---- sampler ---- */

void
sampler_defaults(struct sampler_opts *o)
{
	o->temp = 1.0f;
	o->top_k = 50;
	o->top_p = 1.0f;
	o->min_p = 0.0f;
	o->repeat_penalty = 1.0f;
	o->repeat_last_n = 64;
	o->seed = 0;
}

int
sampler_init(struct sampler *s, const struct sampler_opts *o, int vocab)
{
	memset(s, 0, sizeof(*s));
	if (!(o->temp >= 0) || !isfinite(o->temp))
		return error("temperature %g: not a finite number >= 0",
		    (double)o->temp);
	if (o->top_k < 0)
		return error("top-k %d: negative", o->top_k);
	if (!(o->top_p > 0 && o->top_p <= 1))
		return error("top-p %g: not in (0, 1]", (double)o->top_p);
	if (!(o->min_p >= 0 && o->min_p <= 1))
		return error("min-p %g: not in [0, 1]", (double)o->min_p);
	if (!(o->repeat_penalty > 0) || !isfinite(o->repeat_penalty))
		return error("repeat penalty %g: not a finite number > 0",
		    (double)o->repeat_penalty);
	if (o->repeat_last_n < -1)
		return error("repeat-last-n %d: less than -1", o->repeat_last_n);
	if (vocab < 1)
		return error("vocab %d: not positive", vocab);
	s->o = *o;
	s->vocab = vocab;
	sampler_reset(s);
	if (!(s->p = xreallocarray(NULL, (size_t)vocab, sizeof(*s->p))) ||
	    !(s->idx = xreallocarray(NULL, (size_t)vocab, sizeof(*s->idx))) ||
	    !(s->seen = xcalloc((size_t)vocab, 1)) ||
	    !(s->keys = xreallocarray(NULL, 2 * (size_t)vocab, sizeof(*s->keys)))) {
		sampler_free(s);
		return -1;
	}
	return 0;
}

void
sampler_reset(struct sampler *s)
{
	uint64_t x = s->o.seed;
	int i;

	for (i = 0; i < 4; i++)
		s->rng[i] = splitmix64(&x);
}

void
sampler_free(struct sampler *s)
{
	free(s->p);
	free(s->idx);
	free(s->seen);
	free(s->keys);
	s->keys = NULL;
	s->p = NULL;
	s->idx = NULL;
	s->seen = NULL;
}

/* RepetitionPenaltyLogitsProcessor over the distinct ids of the last n. */
static void
penalize(struct sampler *s, float *x, const int *hist, size_t nhist)
{
	float pen = s->o.repeat_penalty;
	size_t i, n = nhist;
	int id;

	if (pen == 1.0f || s->o.repeat_last_n == 0)
		return;
	if (s->o.repeat_last_n > 0 && (size_t)s->o.repeat_last_n < n)
		n = (size_t)s->o.repeat_last_n;
	hist += nhist - n;
	for (i = 0; i < n; i++) {
		id = hist[i];
		if (id < 0 || id >= s->vocab || s->seen[id])
			continue;
		s->seen[id] = 1;
		x[id] = x[id] < 0 ? x[id] * pen : x[id] / pen;
	}
	for (i = 0; i < n; i++)
		if (hist[i] >= 0 && hist[i] < s->vocab)
			s->seen[hist[i]] = 0;
}

int
sampler_next(struct sampler *s, float *x, const int *hist, size_t nhist)
{
	const struct sampler_opts *o = &s->o;
	size_t i, m, k, n = (size_t)s->vocab;
	int *idx = s->idx, sorted = 0, best;
	double *p = s->p, u, sum, mass, cut, t;
	float thr;

	penalize(s, x, hist, nhist);
	u = sampler_draw(s);	/* one draw per call, greedy or not */
	if ((best = kern.argmax(x, s->vocab)) < 0) {
		s->bad = -1 - best;
		return -1;
	}
	if (o->temp == 0)
		return best;

	/* top-k: the k best, and every id tied with the k-th (a heap for a
	 * small k, else a sort of everything) */
	if (o->top_k > 0 && (size_t)o->top_k < n) {
		if ((size_t)o->top_k <= 64 || (size_t)o->top_k < n / 64) {
			m = sample_top(idx, x, n, (size_t)o->top_k);
		} else {
			for (i = 0; i < n; i++)
				idx[i] = (int)i;
			radix_best(idx, n, x, s->keys);
			m = (size_t)o->top_k;
		}
		thr = x[idx[m - 1]];
		for (i = (size_t)idx[m - 1] + 1; i < n; i++)
			if (x[i] == thr)
				idx[m++] = (int)i;
		sorted = 1;
	} else {
		for (i = 0; i < n; i++)
			idx[i] = (int)i;
		m = n;
	}

	/* softmax of x / temp over the candidates, in double */
	memset(p, 0, n * sizeof(*p));
	sum = 0;
	for (i = 0; i < m; i++) {
		t = expf((float)(((double)x[idx[i]] - x[best]) / o->temp));
		p[idx[i]] = t;
		sum += t;
	}
	for (i = 0; i < m; i++)
		p[idx[i]] /= sum;

	/* top-p: best first, keep an id while the mass before it is < top_p.
	 * Unless sorted, ids below (1 - top_p) / (m - 1) cannot be kept
	 * (all of them together would hold less than 1 - top_p), so only
	 * the others are sorted. */
	if (o->top_p < 1.0f && m > 1) {
		if (!sorted) {
			cut = (1.0 - o->top_p) / (double)(m - 1);
			for (i = k = 0; i < m; i++)
				if (p[idx[i]] >= cut || idx[i] == best)
					idx[k++] = idx[i];
				else
					p[idx[i]] = 0;
			m = k;
			radix_best(idx, m, x, s->keys);	/* idx ascending */
			sorted = 1;
		}
		mass = 0;
		for (i = 0; i < m; i++) {
			if (i > 0 && mass >= o->top_p)
				break;
			mass += p[idx[i]];
		}
		for (k = i; k < m; k++)
			p[idx[k]] = 0;
		m = i;
	}

	/* min-p: keep p >= min_p * (the largest p), the best always kept */
	if (o->min_p > 0) {
		cut = o->min_p * p[best];
		for (i = 0; i < m; i++)
			if (p[idx[i]] < cut)
				p[idx[i]] = 0;
	}

	/* the draw: walk the kept ids in increasing id order */
	sum = 0;
	for (i = 0; i < n; i++)
		sum += p[i];
	u *= sum;
	mass = 0;
	for (i = 0; i < n; i++) {
		if (p[i] == 0)
			continue;
		mass += p[i];
		best = (int)i;
		if (mass > u)
			break;
	}
	return best;
}

/* ---- stop conditions ---- */

void
stop_init(struct stop *st)
{
	memset(st, 0, sizeof(*st));
	st->max_new = -1;
}

static int
add(int **a, size_t *n, int id)
{
	int *p;

	if (!(p = xreallocarray(*a, *n + 1, sizeof(**a))))
		return -1;
	p[(*n)++] = id;
	*a = p;
	return 0;
}

int
stop_add_id(struct stop *st, int id)
{
	return add(&st->ids, &st->n_ids, id);
}

int
stop_add_eos(struct stop *st, int id)
{
	return add(&st->eos, &st->n_eos, id);
}

void
stop_reset(struct stop *st)
{
	st->n = 0;
}

int
stop_none(const struct stop *st)
{
	return st->max_new == 0;
}

static int
member(const int *a, size_t n, int id)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (a[i] == id)
			return 1;
	return 0;
}

enum stop_why
stop_check(struct stop *st, int id)
{
	st->n++;
	if (member(st->ids, st->n_ids, id))
		return STOP_ID;
	if (!st->ignore_eos && member(st->eos, st->n_eos, id))
		return STOP_EOS;
	if (st->max_new >= 0 && st->n >= st->max_new)
		return STOP_MAX;
	return STOP_NONE;
}

const char *
stop_name(enum stop_why why)
{
	switch (why) {
	case STOP_MAX: return "max-new";
	case STOP_ID: return "stop id";
	case STOP_EOS: return "eos";
	case STOP_TEXT: return "stop text";
	default: return "none";
	}
}

void
stop_free(struct stop *st)
{
	free(st->ids);
	free(st->eos);
	st->ids = st->eos = NULL;
	st->n_ids = st->n_eos = 0;
}
