/* kern_q4_avx2.c: the W_Q4 entries of the AVX2 table (kern.h).
 *
 * One packed word is 8 weights, one 8-lane vector: broadcast, shifted
 * by 0, 4, ..., 28 and masked, the nibbles become floats q, and the
 * weight (q - z) * scale is exact in float32 (q - z an integer in
 * [-15, 15], the scale BF16 or F16; an F32 scale rounds once, as in the
 * portable code); then one FMA into the row's accumulator, element i in
 * lane i % 8, in order, reduced by kern_avx2.c's tree, so each output
 * is the F32 kernel's on the dequantized row, bit for bit, whatever the
 * row range or the token count.  Decode (matvec) works from the packed
 * words, 4 rows a block; prefill (matmul) dequantizes panels of rows
 * once and runs the F32 matmul over them.  Groups that are not a
 * multiple of 8 weights go to the portable kernels. */
#if defined(__x86_64__)

#include <immintrin.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kern.h"
#include "kern_avx2_int.h"

#define MR 4	/* rows per block */
#define KC 256	/* weights per dequantized chunk (a multiple of 8) */
#define TB 64	/* tokens per block of the prefill */
#define PANEL 65536	/* floats of a dequantized panel (256 KiB) */

extern const struct kern kern_avx2;	/* its F32 matmul */

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
sz(const struct kern_q4 *m, int r, int g, __m256 *s, __m256 *z)
{
	*s = _mm256_set1_ps(scale(m, (size_t)r * m->ng + g));
	*z = _mm256_set1_ps(m->z ? (float)(m->z[(size_t)(r / 8) * m->ng + g] >>
	    4 * (r % 8) & 15) : 8.0f);
}

/* The 8 weights of one word, exactly. */
INLINE __m256
deq8(uint32_t w, __m256 z, __m256 s)
{
	const __m256i sh = _mm256_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28);
	__m256i v = _mm256_and_si256(_mm256_srlv_epi32(
	    _mm256_set1_epi32((int)w), sh), _mm256_set1_epi32(15));

	return _mm256_mul_ps(_mm256_sub_ps(_mm256_cvtepi32_ps(v), z), s);
}

/* The first m < 8 lanes of v, the others +0 (as a zero-padded load of
 * float weights would give). */
INLINE __m256
keep(__m256 v, int m)
{
	const __m256i idx = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);

	return _mm256_and_ps(v, _mm256_castsi256_ps(_mm256_cmpgt_epi32(
	    _mm256_set1_epi32(m), idx)));
}

/* Scales g0 .. g0 + 7 of row r (those that exist) into o, widened. */
INLINE void
scales(float *o, const struct kern_q4 *m, int r, int g0)
{
	size_t es = m->st == W_F32 ? 4 : 2;
	const char *p = (const char *)m->s + ((size_t)r * m->ng + g0) * es;
	int c = m->ng - g0 < 8 ? m->ng - g0 : 8;
	uint16_t h[8] = { 0 };
	__m128i v;

	switch (m->st) {
	case W_F16:
		memcpy(h, p, (size_t)c * es);
		v = _mm_loadu_si128((const __m128i *)h);
		_mm256_storeu_ps(o, _mm256_cvtph_ps(v));
		break;
	case W_BF16:
		memcpy(h, p, (size_t)c * es);
		v = _mm_loadu_si128((const __m128i *)h);
		_mm256_storeu_ps(o, _mm256_castsi256_ps(_mm256_slli_epi32(
		    _mm256_cvtepu16_epi32(v), 16)));
		break;
	default:
		memcpy(o, p, (size_t)c * es);
		break;
	}
}

/* The 8 weights of the word at p for the decode: with 16-bit scales
 * (f16) q s - z s by one FMA, exact like (q - z) s (q s and z s are
 * exact in float32, and so is their difference), which saves the
 * vsubps; F32 scales (f16 0) round q s, so they keep (q - z) s. */
INLINE __m256
deq8v(const uint32_t *p, __m256 z, __m256 s, __m256 zs, int f16)
{
	const __m256i sh = _mm256_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28);
	__m256 q = _mm256_cvtepi32_ps(_mm256_and_si256(_mm256_srlv_epi32(
	    _mm256_set1_epi32((int)*p), sh), _mm256_set1_epi32(15)));

	if (f16)
		return _mm256_fmsub_ps(q, s, zs);
	return _mm256_mul_ps(_mm256_sub_ps(q, z), s);
}

/* out[r + i*rs] = dot(W[r + i*rs], x), i < R: the scales widened 8
 * groups at a time, a symmetric matrix's zero point a constant. */
INLINE void
vblock(int R, int f16, float *out, const struct kern_q4 *m, const float *x,
    int n, int r, int rs)
{
	__m256 acc[MR], s[MR], z[MR], zs[MR], xv;
	const uint32_t *q[MR];
	float sb[MR][8];
	int i, k, g, e, ri;

	UNROLL
	for (i = 0; i < R; i++) {
		acc[i] = _mm256_setzero_ps();
		q[i] = m->q + (size_t)(r + i * rs) * m->wpr;
		z[i] = _mm256_set1_ps(8.0f);
	}
	for (k = 0, g = 0; k < n; g++) {
		e = k + m->group < n ? k + m->group : n;
		if (g % 8 == 0)
			UNROLL
			for (i = 0; i < R; i++)
				scales(sb[i], m, r + i * rs, g);
		UNROLL
		for (i = 0; i < R; i++) {
			ri = r + i * rs;
			s[i] = _mm256_set1_ps(sb[i][g % 8]);
			if (m->z)
				z[i] = _mm256_set1_ps((float)(m->z[(size_t)(ri / 8) *
				    m->ng + g] >> 4 * (ri % 8) & 15));
			zs[i] = _mm256_mul_ps(z[i], s[i]);
		}
		for (; k + 8 <= e; k += 8) {
			xv = _mm256_loadu_ps(x + k);
			UNROLL
			for (i = 0; i < R; i++)
				acc[i] = _mm256_fmadd_ps(deq8v(q[i] + k / 8, z[i],
				    s[i], zs[i], f16), xv, acc[i]);
		}
		if (k < e) {
			xv = xloadm(x + k, e - k);
			UNROLL
			for (i = 0; i < R; i++)
				acc[i] = _mm256_fmadd_ps(keep(deq8(q[i][k / 8],
				    z[i], s[i]), e - k), xv, acc[i]);
			k = e;
		}
	}
	UNROLL
	for (i = 0; i < R; i++)
		out[r + i * rs] = hsum(acc[i]);
}

/* Rows [r0, r1), MR a block from MR parts of the range far apart (MR
 * streams, as the AVX-512 decode). */
INLINE void
vrows(int f16, float *out, const struct kern_q4 *m, const float *x, int n,
    int r0, int r1)
{
	int h = (r1 - r0) / MR, r;

	for (r = r0; r < r0 + h; r++)
		vblock(MR, f16, out, m, x, n, r, h);
	for (r = r0 + MR * h; r < r1; r++)
		vblock(1, f16, out, m, x, n, r, 1);
}

void
kern_q4_avx2_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	const struct kern_q4 *m = w;

	if (m->group % 8)
		kern_q4_matvec(out, w, x, n, r0, r1);
	else if (m->st != W_F32)
		vrows(1, out, m, x, n, r0, r1);
	else
		vrows(0, out, m, x, n, r0, r1);
}

/* Weights [k0, k0 + c) of row r into o (c rounded up to 8, padding +0). */
INLINE void
deqchunk(float *o, const struct kern_q4 *m, int r, int k0, int c)
{
	const uint32_t *q = m->q + (size_t)r * m->wpr;
	__m256 s = _mm256_setzero_ps(), z = s;
	int k, g = -1;

	for (k = k0; k < k0 + c; k += 8) {
		if (k / m->group != g) {
			g = k / m->group;
			sz(m, r, g, &s, &z);
		}
		if (k0 + c - k >= 8)
			_mm256_storeu_ps(o + k - k0, deq8(q[k / 8], z, s));
		else
			_mm256_storeu_ps(o + k - k0, keep(deq8(q[k / 8], z, s),
			    k0 + c - k));
	}
}

/* Rows [r, r + R) against tokens [0, T) of x, T <= TB. */
INLINE void
mblock(int R, float *out, int ldo, const struct kern_q4 *m, const float *x,
    int ldx, int n, int T, int r)
{
	__m256 acc[MR][TB], a[MR], xv;
	float wb[MR][KC];
	int i, j, k, k0, c;

	for (i = 0; i < R; i++)
		for (j = 0; j < T; j++)
			acc[i][j] = _mm256_setzero_ps();
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
			for (k = 0; k + 8 <= c; k += 8) {
				xv = _mm256_loadu_ps(xj + k);
				UNROLL
				for (i = 0; i < R; i++)
					a[i] = _mm256_fmadd_ps(
					    _mm256_loadu_ps(wb[i] + k), xv, a[i]);
			}
			if (k < c) {
				xv = xloadm(xj + k, c - k);
				UNROLL
				for (i = 0; i < R; i++)
					a[i] = _mm256_fmadd_ps(
					    _mm256_loadu_ps(wb[i] + k), xv, a[i]);
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

/* Prefill: rows in panels of up to PANEL floats dequantized once into
 * L2, each then multiplied by the table's F32 matmul over all T tokens:
 * the F32 kernel's register blocks and bits, the dequantization once per
 * T tokens.  Rows too long for a panel of MR (or no memory for one): the
 * blocks above, up to TB tokens a chunk of MR rows. */
void
kern_q4_avx2_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	const struct kern_q4 *m = w;
	float *wb;
	int P = PANEL / (n > 0 ? n : 1) / MR * MR, t0, tn, r, p0, p1;

	if (m->group % 8) {
		kern_q4_matmul(out, ldo, w, x, ldx, n, T, r0, r1);
		return;
	}
	/* on the heap: a pool thread's stack may be small (musl: 128 KiB);
	 * without it, the blocks below */
	if (P > r1 - r0)
		P = r1 - r0;
	if (P > 0 && (wb = malloc(((size_t)P * n + 16) * sizeof(*wb)))) {
		for (p0 = r0; p0 < r1; p0 = p1) {
			p1 = r1 - p0 > P ? p0 + P : r1;
			for (r = p0; r < p1; r++)
				deqchunk(wb + (size_t)(r - p0) * n, m, r, 0, n);
			kern_avx2.matmul[W_F32](out + p0, ldo, wb, x, ldx, n, T,
			    0, p1 - p0);
		}
		free(wb);
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
