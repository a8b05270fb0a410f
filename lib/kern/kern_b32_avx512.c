/* kern_b32_avx512.c: the AVX-512 table's decode of ggml's 32-weight
 * blocks, factored (kern.h's "factored decode of the 32-weight blocks").
 *
 * Q4_0, Q4_1, Q5_0, Q5_1: a block's 16 quant bytes zero-extended to 16
 * int32 lanes, the low nibble and the high one masked in place (the
 * fifth bits set into them by a masked or, qh the mask), widened and
 * FMA'd against the activations prepared once a call (prep16: the high
 * halves scaled by 2^-4, exact): a block is one widening, 2 masks, 2
 * conversions and 2 FMAs, no table lookup.  The lanes' sum meets the
 * block's scale once, and the offset term once: Q4_0's -8 and Q5_0's
 * -16 folded into the prepared sums of x, Q4_1's and Q5_1's min times
 * them.  ggml's Q8_0: 16 bytes sign-extended, converted and FMA'd
 * against x as it lies, the scale once a block.  (A layout of 4 blocks
 * to a zmm, fields masked in place as kern_b32_avx2.c's, read the
 * blocks by two loads and word permutes: fewer instructions, slower
 * from memory; not kept, bench/NOTES.md.) */
#if defined(__x86_64__)

#include <immintrin.h>
#include <stdint.h>
#include <string.h>

#include "kern/kern.h"
#include "kern/kern_avx512_int.h"
#include "kern/kern_ggml_int.h"
#include "kern/kern_dec_int.h"

/* Activations of the nibble blocks as their lanes meet them: block
 * b's byte l (16 int32 lanes, one byte each) holds elements l (low
 * nibble, masked in place) and l + 16 (high: masked in place, so x
 * times 2^-4), and xs[16b + l] is f times their sum. */
static void
prep16(float *xp, float *xs, const float *x, int nb, float f)
{
	int b, l;

	for (b = 0; b < nb; b++, x += 32, xp += 32, xs += 16)
		for (l = 0; l < 16; l++) {
			xp[l] = x[l];
			xp[16 + l] = x[16 + l] * 0.0625f;
			xs[l] = f * (x[l] + x[16 + l]);
		}
}

INLINE __m512
cvt(__m512i v)
{
	return _mm512_cvtepi32_ps(v);
}

/* The half at p in every lane. */
INLINE __m512
h16(const uint8_t *p)
{
	uint16_t h;

	memcpy(&h, p, 2);
	return _mm512_cvtph_ps(_mm256_set1_epi16((short)h));
}

/* Where type t's block keeps its quants (qo), its fifth bits (ho; 0:
 * none) and, for the types with a min, the min at 2; f: the offset's
 * factor of the prepared sums (Q4_0's -8, Q5_0's -16; 1 for a min). */
INLINE int
nib_qo(enum wtype t)
{
	return t == W_Q4_0 ? 2 : t == W_Q4_1 ? 4 : t == W_Q5_0 ? 6 : 8;
}

INLINE int
nib_ho(enum wtype t)
{
	return t == W_Q5_0 ? 2 : t == W_Q5_1 ? 4 : 0;
}

INLINE int
nib_min(enum wtype t)
{
	return t == W_Q4_1 || t == W_Q5_1;
}

INLINE float
nib_f(enum wtype t)
{
	return t == W_Q4_0 ? -8 : t == W_Q5_0 ? -16 : 1;
}

/* The sums of R rows (kdec_rows_fn), t one of Q4_0, Q4_1, Q5_0, Q5_1:
 * the fifth bit of element l (< 16: bit 4 of lane l) and of l + 16 (bit 8, in
 * place as its nibble) set by a masked or, the bits the mask */
INLINE void
nib_rows(enum wtype t, int R, float *sum, const uint8_t **p,
    const float *xp, const float *xs, int n)
{
	const int by = wtypes[t].bytes, qo = nib_qo(t), ho = nib_ho(t);
	const __m512i m0 = _mm512_set1_epi32(0xf), m1 = _mm512_set1_epi32(0xf0),
	    b0 = _mm512_set1_epi32(0x10), b1 = _mm512_set1_epi32(0x100);
	__m512 tot[KDEC_R], a, xsv, x0, x1;
	__m512i v, f0, f1;
	uint16_t h0, h1;
	size_t o;
	int nb = n / 32, b, i;

	UNROLL
	for (i = 0; i < R; i++)
		tot[i] = _mm512_setzero_ps();
	for (b = 0, o = 0; b < nb; b++, o += (size_t)by) {
		x0 = _mm512_loadu_ps(xp + 32 * b);
		x1 = _mm512_loadu_ps(xp + 32 * b + 16);
		xsv = _mm512_loadu_ps(xs + 16 * b);
		UNROLL
		for (i = 0; i < R; i++) {
			v = _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)
			    (p[i] + o + qo)));
			f0 = _mm512_and_si512(v, m0);
			f1 = _mm512_and_si512(v, m1);
			if (ho) {
				memcpy(&h0, p[i] + o + ho, 2);
				memcpy(&h1, p[i] + o + ho + 2, 2);
				f0 = _mm512_mask_or_epi32(f0, h0, f0, b0);
				f1 = _mm512_mask_or_epi32(f1, h1, f1, b1);
			}
			/* no min: the sum starts at the offset times the
			 * lanes' x */
			a = nib_min(t) ? _mm512_mul_ps(cvt(f0), x0) :
			    _mm512_fmadd_ps(cvt(f0), x0, xsv);
			a = _mm512_fmadd_ps(cvt(f1), x1, a);
			tot[i] = _mm512_fmadd_ps(a, h16(p[i] + o), tot[i]);
			if (nib_min(t))
				tot[i] = _mm512_fmadd_ps(h16(p[i] + o + 2), xsv,
				    tot[i]);
		}
	}
	UNROLL
	for (i = 0; i < R; i++)
		sum[i] = hsum(tot[i]);
}

/* ggml's Q8_0, the sums of R rows (x as it lies: no xs): d sum q x a
 * block */
INLINE void
q8_rows(enum wtype t, int R, float *sum, const uint8_t **p, const float *x,
    const float *xs, int n)
{
	__m512 tot[KDEC_R], a;
	int nb = n / 32, b, i;

	(void)t, (void)xs;

	UNROLL
	for (i = 0; i < R; i++)
		tot[i] = _mm512_setzero_ps();
	for (b = 0; b < nb; b++, x += 32) {
		UNROLL
		for (i = 0; i < R; i++) {
			a = _mm512_mul_ps(cvt(_mm512_cvtepi8_epi32(_mm_loadu_si128(
			    (const __m128i *)(p[i] + 2)))), _mm512_loadu_ps(x));
			a = _mm512_fmadd_ps(cvt(_mm512_cvtepi8_epi32(_mm_loadu_si128(
			    (const __m128i *)(p[i] + 18)))), _mm512_loadu_ps(x + 16),
			    a);
			tot[i] = _mm512_fmadd_ps(a, h16(p[i]), tot[i]);
			p[i] += 34;
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
	prep16(xp, xs, x, nb, nib_f(t));
}

void
kern_gq8_0_avx512_b32(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	kdec_matvec(W_GQ8_0, 32, NULL, q8_rows, kern_gq8_0_avx512_matvec, out,
	    w, x, n, r0, r1);
}

void
kern_q4_0_avx512_b32(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	kdec_matvec(W_Q4_0, 32, prep, nib_rows, kern_q4_0_avx512_matvec, out,
	    w, x, n, r0, r1);
}

void
kern_q4_1_avx512_b32(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	kdec_matvec(W_Q4_1, 32, prep, nib_rows, kern_q4_1_avx512_matvec, out,
	    w, x, n, r0, r1);
}

void
kern_q5_0_avx512_b32(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	kdec_matvec(W_Q5_0, 32, prep, nib_rows, kern_q5_0_avx512_matvec, out,
	    w, x, n, r0, r1);
}

void
kern_q5_1_avx512_b32(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	kdec_matvec(W_Q5_1, 32, prep, nib_rows, kern_q5_1_avx512_matvec, out,
	    w, x, n, r0, r1);
}

#endif
