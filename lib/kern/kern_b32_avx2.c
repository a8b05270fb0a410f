/* kern_b32_avx2.c: the AVX2 table's decode of ggml's 32-weight blocks,
 * factored (kern.h): kern_b32_avx512.c's scheme in 8 lanes.  Q4_0 and
 * Q4_1: a pair of blocks' 32 quant bytes in one ymm (two 16-byte
 * loads), 8 lanes of 8 nibbles masked in place, widened and FMA'd
 * against the activations prepared once a call (prep8);
 * the lanes' sums meet their block's scale once (lanes 0-3 the first
 * block's, 4-7 the second's), the offset term once (Q4_0's -8 in the
 * prepared sums, Q4_1's min times them).  ggml's Q8_0: 8 bytes
 * sign-extended, converted and FMA'd against x as it lies, the scale
 * once a block. */
#if defined(__x86_64__)

#include <immintrin.h>
#include <stdint.h>
#include <string.h>

#include "kern/kern.h"
#include "kern/kern_avx2_int.h"
#include "kern/kern_ggml_int.h"
#include "kern/kern_dec_int.h"

INLINE __m256
cvt(__m256i v)
{
	return _mm256_cvtepi32_ps(v);
}

/* The half at p in 4 lanes' halves. */
INLINE __m128i
h4(const uint8_t *p)
{
	uint16_t h;

	memcpy(&h, p, 2);
	return _mm_set1_epi16((short)h);
}

/* Activations as the lanes meet them: a pair of blocks' quant bytes
 * (16 a block) lies in 8 int32 lanes, lane L bytes 4 (L % 4) + j of
 * block L / 4, byte j holding the block's elements 4 (L % 4) + j (low
 * nibble) and that + 16 (high).  Field k = 2j + hi sits at bit 4k of
 * the lane, masked in place (the top one shifted down): its activation
 * is xp[64 G + 8 k + L] of pair G, scaled by 2^-4k (k < 7; exact).
 * xs[8 G + L] is f times the sum of lane L's 8 activations (f = -8:
 * Q4_0's offset, exact; 1: Q4_1's min multiplies it).  The lanes of a
 * missing second block (nb odd) are zeros. */
static void
prep8(float *xp, float *xs, const float *x, int nb, float f)
{
	int G, k, L, g, e, ng = (nb + 1) / 2;
	float v;

	for (G = 0; G < ng; G++)
		for (L = 0; L < 8; L++) {
			g = 2 * G + L / 4;
			xs[8 * G + L] = 0;
			for (k = 0; k < 8; k++) {
				e = 32 * g + 16 * (k % 2) + 4 * (L % 4) + k / 2;
				v = g < nb ? x[e] : 0;
				xp[64 * G + 8 * k + L] = v * (k < 7 ?
				    gp2(4 * k) : 1);
				xs[8 * G + L] += v;
			}
			xs[8 * G + L] *= f;
		}
}

/* Field k (< 7) of the lanes v, in place. */
#define F4(v, k) cvt(_mm256_and_si256(v, _mm256_set1_epi32(0xf << 4 * (k))))

/* One group of nk (1 or 2) blocks at q of R rows into tot: Q4_0 (t) or
 * Q4_1. */
INLINE void
nib_group(enum wtype t, int R, int nk, __m256 *tot, const uint8_t **p,
    const float *xb, const float *xs)
{
	const int by = wtypes[t].bytes, qo = t == W_Q4_0 ? 2 : 4;
	__m256 a0, a1, xsv = _mm256_loadu_ps(xs);
	__m128i z = _mm_setzero_si128();
	__m256i v;
	int i;

	UNROLL
	for (i = 0; i < R; i++) {
		const uint8_t *q = p[i];

		v = _mm256_set_m128i(nk == 2 ? _mm_loadu_si128((const __m128i *)
		    (q + by + qo)) : z, _mm_loadu_si128((const __m128i *)(q +
		    qo)));
		/* Q4_0: the sum starts at -8 times the lanes' x */
		a0 = t == W_Q4_0 ? _mm256_fmadd_ps(F4(v, 0), _mm256_loadu_ps(xb),
		    xsv) : _mm256_mul_ps(F4(v, 0), _mm256_loadu_ps(xb));
		a1 = _mm256_mul_ps(F4(v, 1), _mm256_loadu_ps(xb + 8));
		a0 = _mm256_fmadd_ps(F4(v, 2), _mm256_loadu_ps(xb + 16), a0);
		a1 = _mm256_fmadd_ps(F4(v, 3), _mm256_loadu_ps(xb + 24), a1);
		a0 = _mm256_fmadd_ps(F4(v, 4), _mm256_loadu_ps(xb + 32), a0);
		a1 = _mm256_fmadd_ps(F4(v, 5), _mm256_loadu_ps(xb + 40), a1);
		a0 = _mm256_fmadd_ps(F4(v, 6), _mm256_loadu_ps(xb + 48), a0);
		a1 = _mm256_fmadd_ps(cvt(_mm256_srli_epi32(v, 28)),
		    _mm256_loadu_ps(xb + 56), a1);
		tot[i] = _mm256_fmadd_ps(_mm256_add_ps(a0, a1), _mm256_cvtph_ps(
		    _mm_unpacklo_epi64(h4(q), nk == 2 ? h4(q + by) : z)), tot[i]);
		if (t == W_Q4_1)
			tot[i] = _mm256_fmadd_ps(_mm256_cvtph_ps(_mm_unpacklo_epi64(
			    h4(q + 2), nk == 2 ? h4(q + by + 2) : z)), xsv, tot[i]);
		p[i] += 2 * by;
	}
}

/* The sums of R rows (kdec_rows_fn) */
INLINE void
nib_rows(enum wtype t, int R, float *sum, const uint8_t **p,
    const float *xp, const float *xs, int n)
{
	__m256 tot[KDEC_R];
	int nb = n / 32, G, i;

	UNROLL
	for (i = 0; i < R; i++)
		tot[i] = _mm256_setzero_ps();
	for (G = 0; G < nb / 2; G++)
		nib_group(t, R, 2, tot, p, xp + 64 * G, xs + 8 * G);
	if (nb % 2)
		nib_group(t, R, 1, tot, p, xp + 64 * G, xs + 8 * G);
	UNROLL
	for (i = 0; i < R; i++)
		sum[i] = hsum(tot[i]);
}

/* ggml's Q8_0, the sums of R rows (x as it lies: no xs): d sum q x a
 * block (the rows' bytes at one offset o from their starts: one index
 * for all) */
INLINE void
q8_rows(enum wtype t, int R, float *sum, const uint8_t **p, const float *x,
    const float *xs, int n)
{
	__m256 tot[KDEC_R], a;
	size_t o;
	int nb = n / 32, b, i, k;

	(void)t, (void)xs;

	UNROLL
	for (i = 0; i < R; i++)
		tot[i] = _mm256_setzero_ps();
	for (b = 0, o = 0; b < nb; b++, x += 32, o += 34) {
		UNROLL
		for (i = 0; i < R; i++) {
			a = _mm256_setzero_ps();
			UNROLL
			for (k = 0; k < 32; k += 8)
				a = _mm256_fmadd_ps(cvt(_mm256_cvtepi8_epi32(
				    _mm_loadl_epi64((const __m128i *)(p[i] + o + 2 +
				    k)))), _mm256_loadu_ps(x + k), a);
			tot[i] = _mm256_fmadd_ps(a, _mm256_cvtph_ps(h4(p[i] + o)),
			    tot[i]);
		}
	}
	UNROLL
	for (i = 0; i < R; i++)
		sum[i] = hsum(tot[i]);
}

/* ---- the entries (kern_dec_int.h: rows too long for the buffers of x
 * or not whole blocks take the fused kernel; Q8_0 takes x as it lies) */

INLINE void
prep(enum wtype t, float *xp, float *xs, const float *x, int nb)
{
	prep8(xp, xs, x, nb, t == W_Q4_0 ? -8 : 1);
}

void
kern_gq8_0_avx2_b32(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	kdec_matvec(W_GQ8_0, 32, NULL, q8_rows, kern_gq8_0_avx2_matvec, out,
	    w, x, n, r0, r1);
}

void
kern_q4_0_avx2_b32(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	kdec_matvec(W_Q4_0, 32, prep, nib_rows, kern_q4_0_avx2_matvec, out,
	    w, x, n, r0, r1);
}

void
kern_q4_1_avx2_b32(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	kdec_matvec(W_Q4_1, 32, prep, nib_rows, kern_q4_1_avx2_matvec, out,
	    w, x, n, r0, r1);
}

#endif
