/* kern_q4_avx2.c: the W_Q4 entries of the AVX2 table (kern.h).
 *
 * The integer path of kern_q4.c with 8 lanes: a chunk of 16 words is
 * two halves of 8 words, one ymm of packed words each.  Per half and
 * digit, vpmaddubsw of the low nibbles with the even plane and of the
 * high nibbles with the odd plane, vpaddw, vpmaddwd make the word sums
 * P (no saturation: a pair is at most 2 * 15 * 128); L = (Pa 2^16 +
 * Pb 2^8 + Pc) + z nsx wraps as the portable's uint32 sum does (any
 * order of a sum mod 2^32 is the same); then the one FMA of (float)L by
 * scale * 2^-k into the half's accumulator.  Lane l of the two halves'
 * accumulators is lane l and l + 8 of the portable's 16, and the two
 * added then reduced by hsum is sum16's tree, so every output is the
 * portable's, bit for bit.  Words past the row's end add fma(0, 0, acc)
 * there, which leaves acc as it is (acc is never -0: it starts +0, and
 * a sum is -0 only of two -0), so a half past the end is skipped and a
 * partial one loads its words masked with scale 0.  Decode reads MR
 * rows from MR parts of the range far apart.  Prefill is the float
 * path, as in the AVX-512 table (kern.h): rows dequantized into panels
 * once, then the F32 matmul. */
#if defined(__x86_64__)

#include <immintrin.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kern/kern.h"
#include "kern/kern_avx2_int.h"

extern const struct kern kern_avx2;	/* its F32 matmul */

#ifndef MR
#define MR 4	/* rows per block of the decode, far apart */
#endif
#ifndef PFD
#define PFD 1024	/* bytes ahead each decode row's words are prefetched */
#endif

/* How a row's scales map to words: one per row, one per half (groups
 * of 64k), groups of 32 (two per half), any multiple of 8 (word by
 * word, the slow path). */
enum { GM_ROW, GM_WIDE, GM_32, GM_ANY };

/* ---- the activations ---- */

/* The low bytes of the 32 int32 of v0..v3, de-interleaved: even
 * elements to *e, odd ones to *o (16 bytes each, in order). */
INLINE void
split8(int8_t *e, int8_t *o, __m256i v0, __m256i v1, __m256i v2, __m256i v3)
{
	const __m256i lb = _mm256_set1_epi32(255);
	/* in each lane: its even bytes, then its odd ones */
	const __m256i sh = _mm256_setr_epi8(0, 2, 4, 6, 8, 10, 12, 14,
	    1, 3, 5, 7, 9, 11, 13, 15, 0, 2, 4, 6, 8, 10, 12, 14,
	    1, 3, 5, 7, 9, 11, 13, 15);
	__m256i p;
	__m128i a, b;

	/* lane 0: elements 0-3, 8-11, 16-19, 24-27; lane 1: 4-7, ... */
	p = _mm256_packus_epi16(_mm256_packus_epi32(_mm256_and_si256(v0, lb),
	    _mm256_and_si256(v1, lb)), _mm256_packus_epi32(_mm256_and_si256(
	    v2, lb), _mm256_and_si256(v3, lb)));
	p = _mm256_shuffle_epi8(p, sh);
	a = _mm256_castsi256_si128(p);
	b = _mm256_extracti128_si256(p, 1);
	/* lane 0's pairs of even elements alternate with lane 1's */
	_mm_storeu_si128((__m128i *)e, _mm_unpacklo_epi16(a, b));
	_mm_storeu_si128((__m128i *)o, _mm_unpackhi_epi16(a, b));
}

/* Block b of x[0..n) into v[4] (zero past n, never a load past x[n -
 * 1]); the bits of its largest magnitude, at least 0x7f800000 if one is
 * not finite. */
INLINE uint32_t
blockmax(__m256 v[4], const float *x, int n, int b)
{
	const __m256i ab = _mm256_set1_epi32(0x7fffffff);
	__m256i m;
	__m128i t;
	int i, e;

	if ((e = n - 32 * b) >= 32)
		for (i = 0; i < 4; i++)
			v[i] = _mm256_loadu_ps(x + 32 * b + 8 * i);
	else
		for (i = 0; i < 4; i++) {
			m = _mm256_cmpgt_epi32(_mm256_set1_epi32(e - 8 * i),
			    _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
			v[i] = e > 8 * i ? _mm256_maskload_ps(x + 32 * b +
			    8 * i, m) : _mm256_setzero_ps();
		}
	/* |x| as integers order as the floats, and NaN above inf */
	m = _mm256_max_epi32(_mm256_max_epi32(_mm256_and_si256(
	    _mm256_castps_si256(v[0]), ab), _mm256_and_si256(
	    _mm256_castps_si256(v[1]), ab)), _mm256_max_epi32(
	    _mm256_and_si256(_mm256_castps_si256(v[2]), ab),
	    _mm256_and_si256(_mm256_castps_si256(v[3]), ab)));
	t = _mm_max_epi32(_mm256_castsi256_si128(m),
	    _mm256_extracti128_si256(m, 1));
	t = _mm_max_epi32(t, _mm_shuffle_epi32(t, 0x4e));
	t = _mm_max_epi32(t, _mm_shuffle_epi32(t, 0xb1));
	return (uint32_t)_mm_cvtsi128_si32(t);
}

/* Block bb of chunk c: minus each word's sum of X[4], and the scale ef
 * of its four words. */
INLINE void
blocksum(struct kern_q4x *c, int bb, const __m256i X[4], float ef)
{
	__m256i s = _mm256_hadd_epi32(_mm256_hadd_epi32(X[0], X[1]),
	    _mm256_hadd_epi32(X[2], X[3]));
	__m128i t = _mm_sub_epi32(_mm_setzero_si128(), _mm_add_epi32(
	    _mm256_castsi256_si128(s), _mm256_extracti128_si256(s, 1)));

	_mm_storeu_si128((__m128i *)(c->nsx + 4 * bb), t);
	_mm_storeu_ps(c->ef + 4 * bb, _mm_set1_ps(ef));
}

int
kern_q4_avx2_prep(struct kern_q4x *xc, const float *x, int n)
{
	const __m256i h = _mm256_set1_epi32(128);
	__m256i X[4];
	__m256 v[4], p;
	int b, i, k, nb = (n + 31) / 32;
	uint32_t mb;
	float mx, ef;

	if (n % 128)
		memset(xc + n / 128, 0, sizeof *xc);
	for (b = 0; b < nb; b++) {
		struct kern_q4x *c = xc + b / 4;
		int bb = b % 4;

		if ((mb = blockmax(v, x, n, b)) >= 0x7f800000)
			return -1;
		memcpy(&mx, &mb, sizeof mx);
		k = kern_q4_xk(mx);
		/* 2^k and 2^-k: both normal (kern_q4_xk's range) */
		p = _mm256_castsi256_ps(_mm256_set1_epi32((127 + k) << 23));
		mb = (uint32_t)(127 - k) << 23;
		memcpy(&ef, &mb, sizeof ef);
		for (i = 0; i < 4; i++)
			X[i] = _mm256_cvtps_epi32(_mm256_mul_ps(v[i], p));
		blocksum(c, bb, X, ef);
		/* X = a 2^16 + b 2^8 + c, digits in [-128, 127]: c is X's
		 * low byte, X1 = (X - c) / 2^8 = (X + 128) >> 8, ... */
		split8(c->d[0][0] + 16 * bb, c->d[0][1] + 16 * bb, X[0], X[1],
		    X[2], X[3]);
		for (i = 0; i < 4; i++)
			X[i] = _mm256_srai_epi32(_mm256_add_epi32(X[i], h), 8);
		split8(c->d[1][0] + 16 * bb, c->d[1][1] + 16 * bb, X[0], X[1],
		    X[2], X[3]);
		for (i = 0; i < 4; i++)
			X[i] = _mm256_srai_epi32(_mm256_add_epi32(X[i], h), 8);
		split8(c->d[2][0] + 16 * bb, c->d[2][1] + 16 * bb, X[0], X[1],
		    X[2], X[3]);
	}
	return 0;
}

/* kern_q4_prep8's bytes, a block of 32 at once (dx = max / 127, X =
 * nearest-even(x / dx) by vcvtps2dq, clamped as the portable code). */
int
kern_q4_avx2_prep8(struct kern_q4x *xc, const float *x, int n)
{
	const __m256i lo = _mm256_set1_epi32(-127), hi = _mm256_set1_epi32(127);
	__m256i X[4];
	__m256 v[4], s;
	int b, i, nb = (n + 31) / 32;
	uint32_t mb;
	float d, id;

	memset(xc, 0, (size_t)KERN_Q4_NC(n) * sizeof *xc);
	for (b = 0; b < nb; b++) {
		struct kern_q4x *c = xc + b / 4;

		if ((mb = blockmax(v, x, n, b)) >= 0x7f800000)
			return -1;
		memcpy(&d, &mb, sizeof d);
		d /= 127.0f;
		id = d > 0 ? 1.0f / d : 0.0f;
		s = _mm256_set1_ps(id);
		for (i = 0; i < 4; i++)
			X[i] = _mm256_min_epi32(hi, _mm256_max_epi32(lo,
			    _mm256_cvtps_epi32(_mm256_mul_ps(v[i], s))));
		blocksum(c, b % 4, X, d);
		split8(c->d[0][0] + 16 * (b % 4), c->d[0][1] + 16 * (b % 4),
		    X[0], X[1], X[2], X[3]);
	}
	return 0;
}

/* A symmetric matrix's z nsx (z = 8) in place of nsx, once per token
 * rather than once per row. */
static void
zsym(struct kern_q4x *xc, int n)
{
	int c, i;

	for (c = 0; c < KERN_Q4_NC(n); c++)
		for (i = 0; i < 16; i += 8)
			_mm256_store_si256((__m256i *)(xc[c].nsx + i),
			    _mm256_slli_epi32(_mm256_load_si256((const __m256i *)
			    (xc[c].nsx + i)), 3));
}

/* ---- one row against one token ---- */

INLINE float
scale1(enum wtype st, const void *s, size_t i)
{
	uint16_t h;
	uint32_t u;
	float f;

	switch (st) {
	case W_F16:
		memcpy(&h, (const uint16_t *)s + i, sizeof h);
		return _cvtsh_ss(h);
	case W_BF16:
		memcpy(&h, (const uint16_t *)s + i, sizeof h);
		u = (uint32_t)h << 16;
		memcpy(&f, &u, sizeof f);
		return f;
	default:
		memcpy(&f, (const float *)s + i, sizeof f);
		return f;
	}
}

/* What a half of row r needs from the row, words W0 .. W0 + 7: the
 * nibbles, the scales and zero points word by word. */
struct half {
	__m256i lo, hi;	/* the low and high nibbles of the words' bytes */
	__m256 s;	/* the words' scales (0 past the row) */
	__m256i z;	/* their zero points (asymmetric only) */
};

/* A row's words, scales and zero points (the row's share of them). */
struct rowp {
	const uint32_t *q;
	const void *s;		/* the row's first scale */
	const uint32_t *z;	/* its 8 rows' first zero points, or NULL */
	__m128i zs;		/* the shift of its zero points: 4 (r % 8) */
};

INLINE void
rowp(struct rowp *p, const struct kern_q4 *m, int r)
{
	p->q = m->q + (size_t)r * m->wpr;
	p->s = (const char *)m->s + (size_t)r * wtype_rowsize(m->st, m->ng);
	p->z = m->z ? m->z + (size_t)(r / 8) * m->ng : NULL;
	p->zs = _mm_cvtsi32_si128(4 * (r % 8));
}

/* The group of each half of a row (GM_WIDE), once per call: no division
 * in the loops. */
static void
gtab(uint16_t *gt, const struct kern_q4 *m)
{
	int h;

	for (h = 0; h < (m->wpr + 7) / 8; h++)
		gt[h] = (uint16_t)(m->ng == 1 ? 0 : h * 64 / m->group);
}

/* The scales and zero points of words W0 .. W0 + nw - 1, word by word,
 * 0 beyond. */
static void
szany(struct half *hf, const struct kern_q4 *m, const struct rowp *rp, int W0,
    int nw)
{
	float s[8] = { 0 };
	int32_t z[8] = { 0 }, i, g;

	for (i = 0; i < nw; i++) {
		g = m->ng == 1 ? 0 : (W0 + i) * 8 / m->group;
		s[i] = scale1(m->st, rp->s, (size_t)g);
		if (rp->z)
			z[i] = (int32_t)(rp->z[g] >> _mm_cvtsi128_si32(rp->zs) & 15);
	}
	hf->s = _mm256_loadu_ps(s);
	hf->z = _mm256_loadu_si256((const __m256i *)z);
}

/* The half at words W0 .. W0 + 7, all in the row. */
INLINE void
hload(struct half *hf, int gm, enum wtype st, int asym,
    const struct kern_q4 *m, const struct rowp *rp, const uint16_t *gt,
    int W0)
{
	const __m256i nib = _mm256_set1_epi8(15);
	const __m256i dup = _mm256_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1);
	__m256i u = _mm256_loadu_si256((const __m256i *)(rp->q + W0)), v;
	int g;

	hf->lo = _mm256_and_si256(u, nib);
	hf->hi = _mm256_and_si256(_mm256_srli_epi16(u, 4), nib);
	switch (gm) {
	case GM_ROW:
	case GM_WIDE:
		g = gm == GM_ROW ? 0 : gt[W0 / 8];
		hf->s = _mm256_set1_ps(scale1(st, rp->s, (size_t)g));
		if (asym)
			hf->z = _mm256_set1_epi32((int)(_mm_cvtsi128_si32(
			    _mm_srl_epi32(_mm_cvtsi32_si128((int)rp->z[g]),
			    rp->zs)) & 15));
		break;
	case GM_32:
		/* groups W0 / 4 and W0 / 4 + 1, four words each */
		g = W0 / 4;
		if (st == W_BF16) {
			uint32_t b;

			memcpy(&b, (const uint16_t *)rp->s + g, sizeof b);
			hf->s = _mm256_castsi256_ps(_mm256_shuffle_epi8(
			    _mm256_set1_epi32((int)b), _mm256_setr_epi8(
			    -1, -1, 0, 1, -1, -1, 0, 1, -1, -1, 0, 1, -1, -1, 0, 1,
			    -1, -1, 2, 3, -1, -1, 2, 3, -1, -1, 2, 3, -1, -1, 2, 3)));
		} else if (st == W_F16) {
			uint32_t b;

			memcpy(&b, (const uint16_t *)rp->s + g, sizeof b);
			hf->s = _mm256_cvtph_ps(_mm_shuffle_epi8(_mm_set1_epi32(
			    (int)b), _mm_setr_epi8(0, 1, 0, 1, 0, 1, 0, 1, 2, 3, 2,
			    3, 2, 3, 2, 3)));
		} else {
			hf->s = _mm256_permutevar8x32_ps(_mm256_castps128_ps256(
			    _mm_castsi128_ps(_mm_loadl_epi64((const __m128i *)
			    ((const float *)rp->s + g)))), dup);
		}
		if (asym) {
			v = _mm256_castsi128_si256(_mm_loadl_epi64((const __m128i *)
			    (rp->z + g)));
			hf->z = _mm256_and_si256(_mm256_srl_epi32(
			    _mm256_permutevar8x32_epi32(v, dup), rp->zs),
			    _mm256_set1_epi32(15));
		}
		break;
	default:
		szany(hf, m, rp, W0, 8);
		break;
	}
}

/* The half at words W0 .. W0 + nw - 1, nw < 8, the row's end: masked. */
static void
hpart(struct half *hf, const struct kern_q4 *m, const struct rowp *rp, int W0,
    int nw)
{
	const __m256i nib = _mm256_set1_epi8(15);
	__m256i u = _mm256_maskload_epi32((const int *)(rp->q + W0),
	    _mm256_cmpgt_epi32(_mm256_set1_epi32(nw),
	    _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7)));

	hf->lo = _mm256_and_si256(u, nib);
	hf->hi = _mm256_and_si256(_mm256_srli_epi16(u, 4), nib);
	szany(hf, m, rp, W0, nw);
}

/* acc + (float)L * (scale * 2^-k) for the half hf against half h of
 * the chunk xc (kern.h's L, word by word); symmetric, xc's nsx are
 * z nsx already (zsym). */
INLINE __m256
hdot(int nd, __m256 acc, const struct half *hf, int asym,
    const struct kern_q4x *xc, int h)
{
	const __m256i one = _mm256_set1_epi16(1), k256 = _mm256_set1_epi16(256);
	__m256i p0, p1, p2, L, nsx;

#define D(c, p) _mm256_load_si256((const __m256i *)(xc->d[c][p] + 32 * h))
	p0 = _mm256_add_epi16(_mm256_maddubs_epi16(hf->lo, D(0, 0)),
	    _mm256_maddubs_epi16(hf->hi, D(0, 1)));
	if (nd == 1) {	/* --int8-act: digit c alone */
		L = _mm256_madd_epi16(p0, one);
		nsx = _mm256_load_si256((const __m256i *)xc->nsx + h);
		L = _mm256_add_epi32(L, asym ? _mm256_mullo_epi32(hf->z, nsx) :
		    nsx);
		return _mm256_fmadd_ps(_mm256_cvtepi32_ps(L), _mm256_mul_ps(
		    hf->s, _mm256_load_ps(xc->ef + 8 * h)), acc);
	}
	p1 = _mm256_add_epi16(_mm256_maddubs_epi16(hf->lo, D(1, 0)),
	    _mm256_maddubs_epi16(hf->hi, D(1, 1)));
	p2 = _mm256_add_epi16(_mm256_maddubs_epi16(hf->lo, D(2, 0)),
	    _mm256_maddubs_epi16(hf->hi, D(2, 1)));
#undef D
	L = _mm256_slli_epi32(_mm256_add_epi32(_mm256_madd_epi16(p2, k256),
	    _mm256_madd_epi16(p1, one)), 8);
	L = _mm256_add_epi32(L, _mm256_madd_epi16(p0, one));
	nsx = _mm256_load_si256((const __m256i *)xc->nsx + h);
	L = _mm256_add_epi32(L, asym ? _mm256_mullo_epi32(hf->z, nsx) : nsx);
	return _mm256_fmadd_ps(_mm256_cvtepi32_ps(L), _mm256_mul_ps(hf->s,
	    _mm256_load_ps(xc->ef + 8 * h)), acc);
}

/* ---- decode ---- */

/* out[r + i rs] for i < R against the token's chunks xc. */
INLINE void
vblock(int nd, int R, int gm, enum wtype st, int asym, float *out,
    const struct kern_q4 *m, const uint16_t *gt, const struct kern_q4x *xc,
    int r, int rs)
{
	__m256 a0[MR], a1[MR];
	struct rowp rp[MR];
	struct half hf;
	int i, c, W, wpr = m->wpr;

	UNROLL
	for (i = 0; i < R; i++) {
		a0[i] = a1[i] = _mm256_setzero_ps();
		rowp(rp + i, m, r + i * rs);
	}
	for (c = 0, W = 0; W + 16 <= wpr; c++, W += 16)
		UNROLL
		for (i = 0; i < R; i++) {
#if PFD
			/* a line per 16 words; past the tensor a prefetch is
			 * harmless where a pointer would not be */
			_mm_prefetch((const char *)((uintptr_t)(rp[i].q + W) +
			    PFD), _MM_HINT_T0);
#endif
			hload(&hf, gm, st, asym, m, rp + i, gt, W);
			a0[i] = hdot(nd, a0[i], &hf, asym, xc + c, 0);
			hload(&hf, gm, st, asym, m, rp + i, gt, W + 8);
			a1[i] = hdot(nd, a1[i], &hf, asym, xc + c, 1);
		}
	if (W + 8 <= wpr) {
		UNROLL
		for (i = 0; i < R; i++) {
			hload(&hf, gm, st, asym, m, rp + i, gt, W);
			a0[i] = hdot(nd, a0[i], &hf, asym, xc + c, 0);
		}
		W += 8;
	}
	if (W < wpr)
		for (i = 0; i < R; i++) {
			hpart(&hf, m, rp + i, W, wpr - W);
			if (W % 16)
				a1[i] = hdot(nd, a1[i], &hf, asym, xc + c, 1);
			else
				a0[i] = hdot(nd, a0[i], &hf, asym, xc + c, 0);
		}
	UNROLL
	for (i = 0; i < R; i++)
		out[r + i * rs] = hsum(_mm256_add_ps(a0[i], a1[i]));
}

/* Rows [r0, r1), MR a block from MR parts of the range far apart. */
INLINE void
vrows(int nd, int gm, enum wtype st, int asym, float *out, const struct kern_q4 *m,
    const struct kern_q4x *xc, int r0, int r1)
{
	uint16_t gt[KERN_Q4_MAXN / 64];
	int h = (r1 - r0) / MR, r;

	if (gm == GM_WIDE)
		gtab(gt, m);
	for (r = r0; r < r0 + h; r++)
		vblock(nd, MR, gm, st, asym, out, m, gt, xc, r, h);
	for (r = r0 + MR * h; r < r1; r++)
		vblock(nd, 1, gm, st, asym, out, m, gt, xc, r, 1);
}

static int
gmode(const struct kern_q4 *m)
{
	if (m->ng == 1)
		return GM_ROW;
	if (m->group % 64 == 0)
		return GM_WIDE;
	return m->group == 32 ? GM_32 : GM_ANY;
}

static void
vdispatch(int nd, float *out, const struct kern_q4 *m, const struct kern_q4x *xc,
    int r0, int r1)
{
	int gm = gmode(m), a = m->z != NULL;

	if (gm == GM_32) {
		if (m->st == W_BF16 && !a)
			vrows(nd, GM_32, W_BF16, 0, out, m, xc, r0, r1);
		else if (m->st == W_BF16)
			vrows(nd, GM_32, W_BF16, 1, out, m, xc, r0, r1);
		else if (m->st == W_F16 && !a)
			vrows(nd, GM_32, W_F16, 0, out, m, xc, r0, r1);
		else if (m->st == W_F16)
			vrows(nd, GM_32, W_F16, 1, out, m, xc, r0, r1);
		else if (!a)
			vrows(nd, GM_32, W_F32, 0, out, m, xc, r0, r1);
		else
			vrows(nd, GM_32, W_F32, 1, out, m, xc, r0, r1);
	} else if (gm == GM_ANY) {
		if (a)
			vrows(nd, GM_ANY, m->st, 1, out, m, xc, r0, r1);
		else
			vrows(nd, GM_ANY, m->st, 0, out, m, xc, r0, r1);
	} else if (gm == GM_ROW) {
		if (a)
			vrows(nd, GM_ROW, m->st, 1, out, m, xc, r0, r1);
		else
			vrows(nd, GM_ROW, m->st, 0, out, m, xc, r0, r1);
	} else {
		if (a)
			vrows(nd, GM_WIDE, m->st, 1, out, m, xc, r0, r1);
		else
			vrows(nd, GM_WIDE, m->st, 0, out, m, xc, r0, r1);
	}
}

void
kern_q4_avx2_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	struct kern_q4x xc[KERN_Q4_NC(KERN_Q4_MAXN)];
	int r;

	if (!kern_q4_int(w, n) || kern_q4_avx2_prep(xc, x, n) < 0) {
		for (r = r0; r < r1; r++)
			out[r] = kern_q4_fdot(w, r, x, n);
		return;
	}
	if (!((const struct kern_q4 *)w)->z)
		zsym(xc, n);
	vdispatch(3, out, w, xc, r0, r1);
}

/* --int8-act: one digit an activation (kern_q4_prep8). */
void
kern_q4i_avx2_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	struct kern_q4x xc[KERN_Q4_NC(KERN_Q4_MAXN)];
	int r;

	if (!kern_q4_int(w, n) || kern_q4_avx2_prep8(xc, x, n) < 0) {
		for (r = r0; r < r1; r++)
			out[r] = kern_q4_fdot(w, r, x, n);
		return;
	}
	if (!((const struct kern_q4 *)w)->z)
		zsym(xc, n);
	vdispatch(1, out, w, xc, r0, r1);
}

/* Row r against TT tokens (chunks xs[j], output o[j][r]), each half of
 * the row loaded once for all of them; per row and token the steps of
 * vblock, so each token's bits are its matvec's: --int8-act's prefill
 * (nd 1) and W_Q4's decode rows of a batch (nd 3, matvecs). */
#define QT 3	/* tokens a pass */
INLINE void
tblock(int nd, int TT, int gm, enum wtype st, int asym, const struct kern_q4 *m,
    const uint16_t *gt, const struct kern_q4x *const *xs, float *const *o,
    int r)
{
	__m256 a0[QT], a1[QT];
	struct rowp rp;
	struct half h0, h1;
	int j, c, W, wpr = m->wpr;

	rowp(&rp, m, r);
	UNROLL
	for (j = 0; j < TT; j++)
		a0[j] = a1[j] = _mm256_setzero_ps();
	for (c = 0, W = 0; W + 16 <= wpr; c++, W += 16) {
		hload(&h0, gm, st, asym, m, &rp, gt, W);
		hload(&h1, gm, st, asym, m, &rp, gt, W + 8);
		UNROLL
		for (j = 0; j < TT; j++) {
			a0[j] = hdot(nd, a0[j], &h0, asym, xs[j] + c, 0);
			a1[j] = hdot(nd, a1[j], &h1, asym, xs[j] + c, 1);
		}
	}
	if (W + 8 <= wpr) {
		hload(&h0, gm, st, asym, m, &rp, gt, W);
		UNROLL
		for (j = 0; j < TT; j++)
			a0[j] = hdot(nd, a0[j], &h0, asym, xs[j] + c, 0);
		W += 8;
	}
	if (W < wpr) {
		hpart(&h0, m, &rp, W, wpr - W);
		for (j = 0; j < TT; j++)
			if (W % 16)
				a1[j] = hdot(nd, a1[j], &h0, asym, xs[j] + c, 1);
			else
				a0[j] = hdot(nd, a0[j], &h0, asym, xs[j] + c, 0);
	}
	UNROLL
	for (j = 0; j < TT; j++)
		o[j][r] = hsum(_mm256_add_ps(a0[j], a1[j]));
}

/* Rows [r0, r1) against the nt tokens xs (outputs o). */
INLINE void
trows(int nd, int gm, enum wtype st, int asym, const struct kern_q4 *m,
    const struct kern_q4x *const *xs, float *const *o, int nt, int r0,
    int r1)
{
	uint16_t gt[KERN_Q4_MAXN / 64];
	int r, j, p0, p1, P = KERN_Q4_TPANEL / (m->wpr * 4);

	if (gm == GM_WIDE)
		gtab(gt, m);
	P = P < 1 ? 1 : P;
	for (p0 = r0; p0 < r1; p0 = p1) {
		p1 = r1 - p0 > P ? p0 + P : r1;
		for (j = 0; j + QT <= nt; j += QT)
			for (r = p0; r < p1; r++)
				tblock(nd, QT, gm, st, asym, m, gt, xs + j,
				    o + j, r);
		for (r = p0; r < p1; r++)
			if (nt - j == 2)
				tblock(nd, 2, gm, st, asym, m, gt, xs + j,
				    o + j, r);
			else if (nt - j == 1)
				tblock(nd, 1, gm, st, asym, m, gt, xs + j,
				    o + j, r);
	}
}

INLINE void
tdispatch(int nd, const struct kern_q4 *m, const struct kern_q4x *const *xs,
    float *const *o, int nt, int r0, int r1)
{
	int gm = gmode(m), a = m->z != NULL;

	if (gm == GM_32 && m->st == W_BF16 && !a)	/* --quant q4's */
		trows(nd, GM_32, W_BF16, 0, m, xs, o, nt, r0, r1);
	else if (gm == GM_32 && m->st == W_BF16)
		trows(nd, GM_32, W_BF16, 1, m, xs, o, nt, r0, r1);
	else if (gm == GM_32)
		trows(nd, GM_32, m->st, a, m, xs, o, nt, r0, r1);
	else if (gm == GM_WIDE && !a)
		trows(nd, GM_WIDE, m->st, 0, m, xs, o, nt, r0, r1);
	else if (gm == GM_WIDE)
		trows(nd, GM_WIDE, m->st, 1, m, xs, o, nt, r0, r1);
	else if (gm == GM_ROW)
		trows(nd, GM_ROW, m->st, a, m, xs, o, nt, r0, r1);
	else
		trows(nd, GM_ANY, m->st, a, m, xs, o, nt, r0, r1);
}

#define TB 64	/* tokens prepared at a time */

/* T tokens, each row's words read once for up to TB of them, in blocks
 * of TB prepared once (on the heap: a pool thread's stack may be
 * small) by prep; a token whose prep fails (a non-finite activation)
 * takes matvec's (mv's) float path, as it would alone. */
static void
many(int nd, float *out, int ldo, const void *w, const float *x, int ldx,
    int n, int T, int r0, int r1,
    int (*prep)(struct kern_q4x *xc, const float *x, int n),
    kern_matvec_fn *mv)
{
	const struct kern_q4 *m = w;
	const struct kern_q4x *xs[TB];
	float *o[TB];
	struct kern_q4x *xc = NULL;
	int nc = KERN_Q4_NC(n), t0, t1, t, nt;

	if (kern_q4_int(m, n))
		xc = aligned_alloc(64, (size_t)(T < TB ? T : TB) * nc *
		    sizeof *xc);
	if (!xc) {
		for (t = 0; t < T; t++)
			mv(out + (size_t)t * ldo, w, x + (size_t)t * ldx, n,
			    r0, r1);
		return;
	}
	for (t0 = 0; t0 < T; t0 = t1) {
		t1 = T - t0 > TB ? t0 + TB : T;
		for (nt = 0, t = t0; t < t1; t++) {
			struct kern_q4x *h = xc + (size_t)nt * nc;

			if (prep(h, x + (size_t)t * ldx, n) < 0) {
				mv(out + (size_t)t * ldo, w, x + (size_t)t *
				    ldx, n, r0, r1);
				continue;
			}
			if (!m->z)
				zsym(h, n);
			xs[nt] = h;
			o[nt++] = out + (size_t)t * ldo;
		}
		tdispatch(nd, m, xs, o, nt, r0, r1);
	}
	free(xc);
}

void
kern_q4i_avx2_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	many(1, out, ldo, w, x, ldx, n, T, r0, r1, kern_q4_avx2_prep8,
	    kern_q4i_avx2_matvec);
}

void
kern_q4_avx2_matvecs(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	many(3, out, ldo, w, x, ldx, n, T, r0, r1, kern_q4_avx2_prep,
	    kern_q4_avx2_matvec);
}

/* ---- prefill: the float path (kern_q4_panels) ---- */

/* Row r of m dequantized into o, exactly as kern_q4_row: n weights,
 * then the rest of the last word (the panel's next row or its slack). */
static void
deqrow(float *o, const struct kern_q4 *m, int r, int n)
{
	const __m256i sh = _mm256_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28);
	const uint32_t *q = m->q + (size_t)r * m->wpr;
	__m256 s = _mm256_setzero_ps(), z = s;
	int W, g = -1, gw;

	(void)n;
	for (W = 0; W < m->wpr; W++) {
		gw = m->ng == 1 ? 0 : W * 8 / m->group;
		if (gw != g) {
			g = gw;
			s = _mm256_set1_ps(kern_q4_scale(m, r, g));
			z = _mm256_set1_ps(m->z ? (float)(m->z[(size_t)(r / 8) *
			    m->ng + g] >> 4 * (r % 8) & 15) : 8.0f);
		}
		_mm256_storeu_ps(o + 8 * W, _mm256_mul_ps(_mm256_sub_ps(
		    _mm256_cvtepi32_ps(_mm256_and_si256(_mm256_srlv_epi32(
		    _mm256_set1_epi32((int)q[W]), sh), _mm256_set1_epi32(15))), z),
		    s));
	}
}

void
kern_q4_avx2_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	const struct kern_q4 *m = w;

	if (m->group % 8 && m->ng > 1)	/* words across groups */
		kern_q4_matmul(out, ldo, w, x, ldx, n, T, r0, r1);
	else
		kern_q4_panels(out, ldo, m, x, ldx, n, T, r0, r1, deqrow,
		    kern_avx2.matmul[W_F32]);
}

#endif
