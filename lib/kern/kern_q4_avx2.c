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
#include "kern/kern_q4_avx2_int.h"

extern const struct kern kern_avx2;	/* its F32 matmul */

#ifndef MR
#define MR 4	/* rows per block of the decode, far apart */
#endif
#ifndef PFD
#define PFD 1024	/* bytes ahead each decode row's words are prefetched */
#endif

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
	zsym(xc, n);	/* 8 nsx whatever the matrix (hdot) */
	vdispatch(1, out, w, xc, r0, r1);
}

void
kern_q4i_avx2_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	many(1, out, ldo, w, x, ldx, n, T, r0, r1, kern_q4_avx2_prep8,
	    kern_q4i_avx2_matvec);
}

/* kern.h's xprep of W_Q4I: 8 nsx, as many() makes them (hdot). */
void
kern_q4i_avx2_xprep(void *xp, const float *x, int ldx, int n, int T,
    int t0, int t1)
{
	(void)T;
	kern_q4_xprep(xp, x, ldx, n, t0, t1, kern_q4_avx2_prep8, 1);
}

void
kern_q4i_avx2_matmulx(float *out, int ldo, const void *w, const void *xp,
    const float *x, int ldx, int n, int T, int r0, int r1)
{
	manyx(out, ldo, w, xp, x, ldx, n, T, r0, r1, kern_q4i_avx2_matvec);
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
