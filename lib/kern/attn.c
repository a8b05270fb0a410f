/* attn.c: portable tiled attention, the finishing steps, table choice.
 *
 * The portable tile goes row by row: for each block of ATTN_BLOCK keys
 * the scores, a new running max, the rescale of the running sums, then
 * the weighted values (after "Online normalizer calculation for
 * softmax", Milakov and Gimelshein 2018, as FlashAttention uses it). */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "kern/attn.h"
#include "kern/conv.h"
#include "kern/kern.h"

#if defined(__x86_64__)
extern const struct attn_kern attn_avx2;
extern const struct attn_kern attn_avx512;
#endif

static float
dot(const float *a, const void *b, int n, enum wtype t)
{
	float s[4] = { 0 };
	int i;

	for (i = 0; i + 4 <= n; i += 4) {
		s[0] += a[i] * attn_kvload(b, i, t);
		s[1] += a[i + 1] * attn_kvload(b, i + 1, t);
		s[2] += a[i + 2] * attn_kvload(b, i + 2, t);
		s[3] += a[i + 3] * attn_kvload(b, i + 3, t);
	}
	for (; i < n; i++)
		s[0] += a[i] * attn_kvload(b, i, t);
	return (s[0] + s[1]) + (s[2] + s[3]);
}

/* Query rows up to this many columns are quantized once a row for a
 * Q8_0 cache; longer ones a block at a time for each key (the same
 * bits: a block's quantization is its own 32 values'). */
#define Q8HD 256

/* The score of query row q (hd floats; qq: it quantized, or NULL) and
 * row r of the Q8_0 key group g: attn_q8gscore, a block of the query
 * quantized at a time when qq is NULL (the same bits). */
static float
q8dot(const float *q, const unsigned char *qq, const void *g, int r, int hd)
{
	unsigned char qb[34];
	int n = attn_kvrow(W_GQ8_0, hd), i;
	float s = 0, p;

	if (qq)
		return attn_q8gscore(qq, g, r, n);
	for (i = 0; i < hd; i += 32) {
		attn_kvstore(qb, q + i, hd - i < 32 ? hd - i : 32, W_GQ8_0);
		p = attn_q8gblock(qb, g, r, n, i / 32);
		s = s + p;
	}
	return s;
}

/* Where row j of tile a's keys (v 0) or values (v 1) starts: the row,
 * or for a Q8_0 cache its group (*r the row in it). */
static const void *
rowat(const struct attn_tile *a, int v, int j, int *r)
{
	if (a->kvt != W_GQ8_0) {
		*r = 0;
		return attn_at(a, v, j);
	}
	*r = j % ATTN_Q8G;
	return attn_at(a, v, j - *r);
}

/* One query row over keys [p0, p1) (p1 already cut causally). */
static void
row(float *acc, float *ml, const float *q, const struct attn_tile *a,
    int p0, int p1)
{
	float s[ATTN_BLOCK], m = -INFINITY, l = 0, bm, alpha, p;
	int hd = a->hd, n = attn_kvrow(a->kvt, hd), jb, j0, j1, j, i, r;
	const void *k;
	unsigned char qb[Q8HD / 32 * 34], *qq = NULL;

	if (a->kvt == W_GQ8_0 && hd <= Q8HD)
		attn_kvstore(qq = qb, q, hd, W_GQ8_0);
	memset(acc, 0, hd * sizeof(float));
	for (jb = p0 - p0 % ATTN_BLOCK; jb < p1; jb += ATTN_BLOCK) {
		j0 = jb > p0 ? jb : p0;
		j1 = jb + ATTN_BLOCK < p1 ? jb + ATTN_BLOCK : p1;
		bm = m;
		for (j = j0; j < j1; j++) {
			k = rowat(a, 0, j, &r);
			s[j - jb] = a->scale * (a->kvt == W_GQ8_0 ? q8dot(q, qq,
			    k, r, hd) : dot(q, k, hd, a->kvt));
			if (a->softcap)
				attn_softcap(s + (j - jb), 1, a->softcap);
			if (s[j - jb] > bm)
				bm = s[j - jb];
		}
		if (bm > m) {		/* rescale what was summed so far */
			alpha = expf(m - bm);
			for (i = 0; i < hd; i++)
				acc[i] *= alpha;
			l *= alpha;
			m = bm;
		}
		for (j = j0; j < j1; j++) {
			const void *v = rowat(a, 1, j, &r);

			p = expf(s[j - jb] - m);
			l += p;
			for (i = 0; i < hd; i++)
				acc[i] += p * attn_kvget(v, r, i, n, a->kvt);
		}
	}
	ml[0] = m;
	ml[1] = l;
}

static void
part(float *acc, int lda, float *ml, const struct attn_tile *a)
{
	int t, h, end;

	if (a->ahead)	/* the next tile's keys at once: a row goes all of them */
		attn_prefetch(a->ahead, a->ahead->p0, a->ahead->p1);
	for (t = 0; t < a->T; t++) {
		end = a->pos0 + t + 1 < a->p1 ? a->pos0 + t + 1 : a->p1;
		for (h = 0; h < a->nh; h++)
			row(acc + (size_t)t * lda + h * a->hd,
			    ml + 2 * (t * a->nh + h),
			    a->q + (size_t)t * a->ldq + h * a->hd, a,
			    attn_start(a, t), end);
	}
}

const struct attn_kern attn_portable = { "portable", part };

void
attn_kvstore(void *dst, const float *x, int n, enum wtype t)
{
	int i, j;

	kern.from_f32[t](dst, x, n);
	for (i = 0; t == W_GQ8_0 && i < n; i += 32)
		for (j = i; j < n && j < i + 32; j++)
			if (!isfinite(x[j])) {
				memcpy((char *)dst + i / 32 * 34,
				    &(uint16_t){ 0x7e00 }, 2);	/* f16 NaN */
				break;
			}
}

void
attn_kvput(void *g, int r, const float *x, int n, enum wtype t)
{
	unsigned char b[34];
	int row = attn_kvrow(t, n), i;

	if (t != W_GQ8_0) {
		attn_kvstore((char *)g + attn_kvbytes(t, (size_t)r * row), x, n,
		    t);
		return;
	}
	for (i = 0; i < row; i += 32) {	/* a block at a time, scattered */
		attn_kvstore(b, x + i, n - i < 32 ? n - i : 32, W_GQ8_0);
		memcpy((char *)g + 2 * (ATTN_Q8G * (i / 32) + r), b, 2);
		memcpy((char *)g + (size_t)(r + 1) * row + i, b + 2, 32);
	}
}

int
attn_kvparse(const char *name)
{
	static const enum wtype t[] = { W_F32, W_BF16, W_F16, W_GQ8_0 };
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(*t); i++)
		if (!strcmp(attn_kvname(t[i]), name))
			return t[i];
	return -1;
}

/* q8_0 is ggml's Q8_0 (W_GQ8_0, "q8_0-ggml" as a weight type): the
 * name llama.cpp's -ctk gives it */
const char *
attn_kvname(enum wtype t)
{
	if (t == W_GQ8_0)
		return "q8_0";
	if (t == W_F32 || t == W_BF16 || t == W_F16)
		return wtypes[t].name;
	return NULL;
}

const struct attn_kern *
attn_find(const char *kname)
{
#if defined(__x86_64__)
	if (kname && !strcmp(kname, "avx512"))
		return &attn_avx512;
	if (kname && !strcmp(kname, "avx2"))
		return &attn_avx2;
#endif
	(void)kname;
	return &attn_portable;
}

void
attn_norm(float *acc, int lda, const float *ml, int hd, int nh, int T)
{
	float inv, *o;
	int t, h, i;

	for (t = 0; t < T; t++)
		for (h = 0; h < nh; h++) {
			inv = ml[2 * (t * nh + h) + 1];
			inv = inv > 0 ? 1 / inv : 0;
			o = acc + (size_t)t * lda + h * hd;
			for (i = 0; i < hd; i++)
				o[i] *= inv;
		}
}

/* out += w * x over n floats, 8 at a time in a straight line that the
 * compiler makes vector operations (-O2's SLP: a scalar loop here was
 * 4 instructions a float, serial after a decode's 2-thread dispatch);
 * each element the same multiply and add as one at a time. */
static void
axpy(float *restrict out, const float *restrict x, float w, int n)
{
	int i, k;

	for (i = 0; i + 8 <= n; i += 8)
#pragma GCC unroll 8
		for (k = 0; k < 8; k++)
			out[i + k] += w * x[i + k];
	for (; i < n; i++)
		out[i] += w * x[i];
}

void
attn_merge(float *out, const float *accs, size_t lda, const float *mls,
    size_t ldm, int n, int hd)
{
	float m = -INFINITY, l = 0, w;
	int c, i;

	for (c = 0; c < n; c++)
		if (mls[c * ldm + 1] > 0 && mls[c * ldm] > m)
			m = mls[c * ldm];
	memset(out, 0, hd * sizeof(float));
	for (c = 0; c < n; c++) {
		if (!(mls[c * ldm + 1] > 0))
			continue;
		w = expf(mls[c * ldm] - m);
		l += w * mls[c * ldm + 1];
		axpy(out, accs + c * lda, w, hd);
	}
	w = l > 0 ? 1 / l : 0;
	for (i = 0; i < hd; i++)
		out[i] *= w;
}

/* Where attn_touch's loads go, so that they are made (one per
 * thread: no two threads write the same variable). */
static _Thread_local volatile unsigned touch_sink;

/* Read one byte of every line of the tile's keys and values, K and V
 * side by side in address order, one KV block's run at a time.  In
 * decode the cache comes from memory (the weights have pushed it out
 * since the last token), and part's own order, eight keys at a time a
 * column apart, is one the hardware prefetcher does not follow, where
 * two sequential streams it does: the tile then comes in at memory
 * speed and part finds it in cache (bench/NOTES.md, "Decode
 * attention: the tile read in order").  Software prefetch alone does
 * not: a core keeps too few lines of it in flight. */
void
attn_touch(const struct attn_tile *a)
{
	const unsigned char *k, *v;
	unsigned s = 0;
	size_t n, o;
	int p, q;

	for (p = a->p0; p < a->p1; p = q) {
		q = (p / a->kvb + 1) * a->kvb;
		q = q < a->p1 ? q : a->p1;
		k = (const unsigned char *)attn_at(a, 0, p);
		v = (const unsigned char *)attn_at(a, 1, p);
		n = attn_kvbytes(a->kvt, (size_t)(q - p) * a->ldkv);
		for (o = 0; o < n; o += 64)
			s += k[o] + v[o];
		s += k[n - 1] + v[n - 1];	/* a last line begun past o */
	}
	touch_sink = s;
}
