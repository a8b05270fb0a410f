/* kern_q4_avx512.c: the W_Q4 entries of the AVX-512 table (kern.h).
 *
 * Two packed words are 16 weights, one 16-lane vector: spread (word 0
 * to lanes 0-7, word 1 to 8-15), shifted by 0, 4, ..., 28 and masked,
 * the nibbles become floats, minus the zero point (exact: small
 * integers), times the group's scale (exact for BF16 and F16 scales;
 * for F32 the one rounding of the portable code), then one FMA into the
 * row's accumulator, element i in lane i % 16, in order, reduced by
 * kern_avx512.c's tree.  Decode (matvec) does that
 * straight from the packed words, 4 rows at a time; prefill (matmul)
 * dequantizes a chunk of 4 rows once into L1 and runs every token of a
 * block over it.  Both perform the same operations on each output, so
 * they agree bit for bit, whatever the row range or the token count.
 * Groups that are not a multiple of 16 weights go to the portable
 * kernels. */
#if defined(__x86_64__)

#include <immintrin.h>
#include <stdint.h>
#include <string.h>

#include "kern.h"
#include "kern_avx512_int.h"

#define MR 4	/* rows per block */
#define KC 256	/* weights per dequantized chunk (a multiple of 16) */
#define TB 64	/* tokens per block of the prefill */

/* The first m < 16 floats of x, the other lanes 0. */
INLINE __m512
xloadm(const float *x, int m)
{
	return _mm512_maskz_loadu_ps((__mmask16)((1u << m) - 1), x);
}

INLINE float
scale(const struct kern_q4 *m, size_t i)
{
	uint16_t h;
	uint32_t u;
	float f;

	switch (m->st) {
	case W_F16:
		memcpy(&h, (const uint16_t *)m->s + i, sizeof h);
		return _cvtsh_ss(h);
	case W_BF16:
		memcpy(&h, (const uint16_t *)m->s + i, sizeof h);
		u = (uint32_t)h << 16;
		memcpy(&f, &u, sizeof f);
		return f;
	default:
		memcpy(&f, (const float *)m->s + i, sizeof f);
		return f;
	}
}

/* The group's scale and zero point of row r as vectors. */
INLINE void
sz(const struct kern_q4 *m, int r, int g, __m512 *s, __m512 *z)
{
	*s = _mm512_set1_ps(scale(m, (size_t)r * m->ng + g));
	*z = _mm512_set1_ps(m->z ? (float)(m->z[(size_t)(r / 8) * m->ng + g] >>
	    4 * (r % 8) & 15) : 8.0f);
}

/* The 16 weights of words q[0], q[1], exactly; only q[0] is read when
 * m <= 8, and lanes m and up are +0 (as a zero-filled load of float
 * weights gives). */
INLINE __m512
deq16(const uint32_t *q, __m512 z, __m512 s, int m)
{
	const __m512i sh = _mm512_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28,
	    0, 4, 8, 12, 16, 20, 24, 28);
	const __m512i idx = _mm512_setr_epi32(0, 0, 0, 0, 0, 0, 0, 0,
	    1, 1, 1, 1, 1, 1, 1, 1);
	__m128i w = m > 8 ? _mm_loadl_epi64((const __m128i *)q) :
	    _mm_cvtsi32_si128((int)q[0]);
	__m512i v = _mm512_and_si512(_mm512_srlv_epi32(_mm512_permutexvar_epi32(
	    idx, _mm512_castsi128_si512(w)), sh), _mm512_set1_epi32(15));
	__m512 f = _mm512_mul_ps(_mm512_sub_ps(_mm512_cvtepi32_ps(v), z), s);

	return m >= 16 ? f : _mm512_maskz_mov_ps((__mmask16)((1u << m) - 1), f);
}

/* Scales g0 .. g0 + 15 of row r (those that exist) into o, widened. */
INLINE void
scales(float *o, const struct kern_q4 *m, int r, int g0)
{
	const void *p = (const char *)m->s + ((size_t)r * m->ng + g0) *
	    (m->st == W_F32 ? 4 : 2);
	int c = m->ng - g0 < 16 ? m->ng - g0 : 16;
	__mmask16 k = (__mmask16)((1u << c) - 1);
	__m256i h;

	switch (m->st) {
	case W_F16:
		h = _mm256_maskz_loadu_epi16(k, p);
		_mm512_storeu_ps(o, _mm512_cvtph_ps(h));
		break;
	case W_BF16:
		h = _mm256_maskz_loadu_epi16(k, p);
		_mm512_storeu_ps(o, _mm512_castsi512_ps(_mm512_slli_epi32(
		    _mm512_cvtepu16_epi32(h), 16)));
		break;
	default:
		_mm512_storeu_ps(o, _mm512_maskz_loadu_ps(k, p));
		break;
	}
}

/* out[r + i] = dot(W[r + i], x), i < R: the scales widened 16 groups
 * at a time, a symmetric matrix's zero point a constant. */
INLINE void
vblock(int R, float *out, const struct kern_q4 *m, const float *x, int n,
    int r)
{
	__m512 acc[MR], s[MR], z[MR], xv;
	const uint32_t *q[MR];
	float sb[MR][16];
	int i, k, g, e;

	UNROLL
	for (i = 0; i < R; i++) {
		acc[i] = _mm512_setzero_ps();
		q[i] = m->q + (size_t)(r + i) * m->wpr;
		z[i] = _mm512_set1_ps(8.0f);
	}
	for (k = 0, g = 0; k < n; g++) {
		e = k + m->group < n ? k + m->group : n;
		if (g % 16 == 0)
			UNROLL
			for (i = 0; i < R; i++)
				scales(sb[i], m, r + i, g);
		UNROLL
		for (i = 0; i < R; i++) {
			s[i] = _mm512_set1_ps(sb[i][g % 16]);
			if (m->z)
				z[i] = _mm512_set1_ps((float)(m->z[(size_t)((r + i) / 8) *
				    m->ng + g] >> 4 * ((r + i) % 8) & 15));
		}
		for (; k + 16 <= e; k += 16) {
			xv = _mm512_loadu_ps(x + k);
			UNROLL
			for (i = 0; i < R; i++)
				acc[i] = _mm512_fmadd_ps(deq16(q[i] + k / 8,
				    z[i], s[i], 16), xv, acc[i]);
		}
		if (k < e) {
			xv = xloadm(x + k, e - k);
			UNROLL
			for (i = 0; i < R; i++)
				acc[i] = _mm512_fmadd_ps(deq16(q[i] + k / 8,
				    z[i], s[i], e - k), xv, acc[i]);
			k = e;
		}
	}
	UNROLL
	for (i = 0; i < R; i++)
		out[r + i] = hsum(acc[i]);
}

void
kern_q4_avx512_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	const struct kern_q4 *m = w;
	int r;

	if (m->group % 16) {
		kern_q4_matvec(out, w, x, n, r0, r1);
		return;
	}
	for (r = r0; r + MR <= r1; r += MR)
		vblock(MR, out, m, x, n, r);
	for (; r < r1; r++)
		vblock(1, out, m, x, n, r);
}

/* Weights [k0, k0 + c) of row r into o (c rounded up to 16, padding
 * +0); k0 is a multiple of 16. */
INLINE void
deqchunk(float *o, const struct kern_q4 *m, int r, int k0, int c)
{
	const uint32_t *q = m->q + (size_t)r * m->wpr;
	__m512 s = _mm512_setzero_ps(), z = s;
	int k, g = -1;

	for (k = k0; k < k0 + c; k += 16) {
		if (k / m->group != g) {
			g = k / m->group;
			sz(m, r, g, &s, &z);
		}
		_mm512_storeu_ps(o + k - k0, deq16(q + k / 8, z, s,
		    k0 + c - k < 16 ? k0 + c - k : 16));
	}
}

/* Rows [r, r + R) against tokens [0, T) of x, T <= TB. */
INLINE void
mblock(int R, float *out, int ldo, const struct kern_q4 *m, const float *x,
    int ldx, int n, int T, int r)
{
	__m512 acc[MR][TB], a[MR], xv;
	float wb[MR][KC];
	int i, j, k, k0, c;

	for (i = 0; i < R; i++)
		for (j = 0; j < T; j++)
			acc[i][j] = _mm512_setzero_ps();
	for (k0 = 0; k0 < n; k0 += KC) {
		c = n - k0 < KC ? n - k0 : KC;
		UNROLL
		for (i = 0; i < R; i++)
			deqchunk(wb[i], m, r + i, k0, c);
		for (j = 0; j < T; j++) {
			const float *xj = x + (size_t)j * ldx + k0;

			UNROLL
			for (i = 0; i < R; i++)
				a[i] = acc[i][j];
			for (k = 0; k + 16 <= c; k += 16) {
				xv = _mm512_loadu_ps(xj + k);
				UNROLL
				for (i = 0; i < R; i++)
					a[i] = _mm512_fmadd_ps(
					    _mm512_loadu_ps(wb[i] + k), xv, a[i]);
			}
			if (k < c) {
				xv = xloadm(xj + k, c - k);
				UNROLL
				for (i = 0; i < R; i++)
					a[i] = _mm512_fmadd_ps(
					    _mm512_loadu_ps(wb[i] + k), xv, a[i]);
			}
			UNROLL
			for (i = 0; i < R; i++)
				acc[i][j] = a[i];
		}
	}
	for (i = 0; i < R; i++)
		for (j = 0; j < T; j++)
			out[(size_t)j * ldo + r + i] = hsum(acc[i][j]);
}

void
kern_q4_avx512_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	const struct kern_q4 *m = w;
	int t0, tn, r;

	if (m->group % 16) {
		kern_q4_matmul(out, ldo, w, x, ldx, n, T, r0, r1);
		return;
	}
	for (t0 = 0; t0 < T; t0 += TB) {
		const float *xt = x + (size_t)t0 * ldx;
		float *ot = out + (size_t)t0 * ldo;

		tn = T - t0 < TB ? T - t0 : TB;
		for (r = r0; r + MR <= r1; r += MR)
			mblock(MR, ot, ldo, m, xt, ldx, n, tn, r);
		for (; r < r1; r++)
			mblock(1, ot, ldo, m, xt, ldx, n, tn, r);
	}
}

#endif
