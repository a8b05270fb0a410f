/* kern_kq_avx2.c: the AVX2 table's factored decode of ggml's K blocks
 * (Q4_K, Q5_K, Q6_K; kern.h): kern_kq_avx512.c's scheme in 8 lanes.  Each
 * register of 32 quant bytes is 8 int32 lanes; a field of them masked
 * in place is widened to float exactly and multiplied by the activation
 * that weight meets, put once a call in the lanes' order and scaled by
 * 2^-shift (exact); each register's lanes then belong to one or two
 * sub-blocks, whose scales multiply the sums once, and the offsets
 * (Q4_K's and Q5_K's mins, Q6_K's -32) meet the sums of the activations over each
 * sub-block, also made once a call. */
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

/* ---- Q4_K ----
 *
 * Register u < 4 of a block is quant bytes 32u .. 32u + 31: lane L
 * bytes 4L + j, element 4L + j of the sub-blocks 2u (low nibbles) and
 * 2u + 1 (high).  Field k = 2j + hi, at bit 4k: prepared activation
 * 8 (8u + k) + L of the block, times 2^-4k (k < 7; the top field is
 * shifted down, times 1). */
/* A block's sums of x over its 8 sub-blocks of 32 (Q4_K's and Q5_K's
 * mins meet them). */
static void
sums32(float *xs, const float *x)
{
	int j;

	for (j = 0; j < 8; j++)
		xs[j] = hsum(_mm256_add_ps(_mm256_add_ps(_mm256_loadu_ps(x +
		    32 * j), _mm256_loadu_ps(x + 32 * j + 8)), _mm256_add_ps(
		    _mm256_loadu_ps(x + 32 * j + 16), _mm256_loadu_ps(x + 32 * j +
		    24))));
}

static void
prep_q4_k(float *xp, float *xs, const float *x, int nb)
{
	int b, u, k, L;
	float s;

	for (b = 0; b < nb; b++, x += 256, xp += 256, xs += 8) {
		for (u = 0; u < 4; u++)
			for (k = 0; k < 8; k++) {
				s = k < 7 ? gp2(4 * k) : 1;
				for (L = 0; L < 8; L++)
					xp[8 * (8 * u + k) + L] = x[32 * (2 * u +
					    k % 2) + 4 * L + k / 2] * s;
			}
		sums32(xs, x);
	}
}

/* A Q4_K or Q5_K block q's d * sc_j into sc[j]; returned, dmin * mn_j
 * in lane j. */
INLINE __m256
k4dm(const uint8_t *q, float *sc)
{
	__m128i k4 = k4scales(q + 4);
	__m256 dm;
	uint32_t u;

	memcpy(&u, q, 4);	/* d and dmin, widened together */
	dm = _mm256_castps128_ps256(_mm_cvtph_ps(_mm_cvtsi32_si128((int)u)));
	_mm256_store_ps(sc, _mm256_mul_ps(_mm256_permutevar8x32_ps(dm,
	    _mm256_setzero_si256()), cvt(_mm256_cvtepu8_epi32(k4))));
	return _mm256_mul_ps(_mm256_permutevar8x32_ps(dm, _mm256_set1_epi32(1)),
	    cvt(_mm256_cvtepu8_epi32(_mm_srli_si128(k4, 8))));
}

/* Field k of the quants v, widened. */
#define F4(v, k) cvt(_mm256_and_si256(v, _mm256_set1_epi32(0xf << 4 * (k))))

INLINE void
q4_k_rows(int R, float *sum, const uint8_t **p, const float *xp,
    const float *xs, int nb)
{
	_Alignas(32) float sc[8];
	__m256 tot[KDEC_R], mn[KDEC_R], a0, a1;
	__m256i v;
	const float *xb;
	int b, i, u;

	UNROLL
	for (i = 0; i < R; i++) {
		tot[i] = _mm256_setzero_ps();
		mn[i] = _mm256_setzero_ps();
	}
	for (b = 0; b < nb; b++) {
		UNROLL
		for (i = 0; i < R; i++) {
			const uint8_t *q = p[i];

			mn[i] = _mm256_fmadd_ps(k4dm(q, sc), _mm256_loadu_ps(xs +
			    8 * b), mn[i]);
			UNROLL
			for (u = 0; u < 4; u++) {
				xb = xp + 256 * b + 64 * u;
				v = _mm256_loadu_si256((const __m256i *)(q + 16 +
				    32 * u));
				a0 = _mm256_mul_ps(F4(v, 0), _mm256_loadu_ps(xb));
				a1 = _mm256_mul_ps(F4(v, 1), _mm256_loadu_ps(xb +
				    8));
				a0 = _mm256_fmadd_ps(F4(v, 2), _mm256_loadu_ps(xb +
				    16), a0);
				a1 = _mm256_fmadd_ps(F4(v, 3), _mm256_loadu_ps(xb +
				    24), a1);
				a0 = _mm256_fmadd_ps(F4(v, 4), _mm256_loadu_ps(xb +
				    32), a0);
				a1 = _mm256_fmadd_ps(F4(v, 5), _mm256_loadu_ps(xb +
				    40), a1);
				a0 = _mm256_fmadd_ps(F4(v, 6), _mm256_loadu_ps(xb +
				    48), a0);
				a1 = _mm256_fmadd_ps(cvt(_mm256_srli_epi32(v, 28)),
				    _mm256_loadu_ps(xb + 56), a1);
				tot[i] = _mm256_fmadd_ps(a0, _mm256_broadcast_ss(sc +
				    2 * u), tot[i]);
				tot[i] = _mm256_fmadd_ps(a1, _mm256_broadcast_ss(sc +
				    2 * u + 1), tot[i]);
			}
			p[i] += 144;
		}
	}
	UNROLL
	for (i = 0; i < R; i++)
		sum[i] = hsum(_mm256_sub_ps(tot[i], mn[i]));
}

/* ---- Q6_K ----
 *
 * Half h of a block gives four registers of 6-bit q in bytes, g < 4:
 * byte l of register g is element 128h + 32g + l (ql's nibbles with
 * qh's 2 bits, as ggml's dequantize_row_q6_K pairs them).  Lane L bytes
 * 4L + j: sub-block 8h + 2g + L / 4; field j at bit 8j: prepared
 * activation 128h + 32g + 8j + L of the block, times 2^-8j (j < 3; the
 * top byte is shifted down).  order_bytes puts a block's x so for any 8
 * registers of q in bytes, byte l of register g element 32g + l (Q5_K's
 * too). */
static void
order_bytes(float *xp, const float *x)
{
	int g, j, L;
	float s;

	for (g = 0; g < 8; g++)		/* 128h + 32g as one */
		for (j = 0; j < 4; j++) {
			s = j < 3 ? gp2(8 * j) : 1;
			for (L = 0; L < 8; L++)
				xp[32 * g + 8 * j + L] = x[32 * g + 4 * L + j] * s;
		}
}

static void
prep_q6_k(float *xp, float *xs, const float *x, int nb)
{
	int b, j;

	for (b = 0; b < nb; b++, x += 256, xp += 256, xs += 16) {
		order_bytes(xp, x);
		for (j = 0; j < 16; j++)
			xs[j] = hsum(_mm256_add_ps(_mm256_loadu_ps(x + 16 * j),
			    _mm256_loadu_ps(x + 16 * j + 8)));
	}
}

/* The sum over one register of q bytes (32 weights) against xb. */
INLINE __m256
q6dot(__m256i q, const float *xb)
{
	__m256 a;

	a = _mm256_mul_ps(cvt(_mm256_and_si256(q, _mm256_set1_epi32(0xff))),
	    _mm256_loadu_ps(xb));
	a = _mm256_fmadd_ps(cvt(_mm256_and_si256(q, _mm256_set1_epi32(
	    0xff00))), _mm256_loadu_ps(xb + 8), a);
	a = _mm256_fmadd_ps(cvt(_mm256_and_si256(q, _mm256_set1_epi32(
	    0xff0000))), _mm256_loadu_ps(xb + 16), a);
	return _mm256_fmadd_ps(cvt(_mm256_srli_epi32(q, 24)),
	    _mm256_loadu_ps(xb + 24), a);
}

INLINE void
q6_k_rows(int R, float *sum, const uint8_t **p, const float *xp,
    const float *xs, int nb)
{
	const __m256i m4 = _mm256_set1_epi8(15), m30 = _mm256_set1_epi8(0x30);
	__m256 tot[KDEC_R], mn[KDEC_R], d, ds0, ds1, s;
	__m256i A, B, H;
	const float *xb;
	int b, i, h, g;

	UNROLL
	for (i = 0; i < R; i++) {
		tot[i] = _mm256_setzero_ps();
		mn[i] = _mm256_setzero_ps();
	}
	for (b = 0; b < nb; b++) {
		UNROLL
		for (i = 0; i < R; i++) {
			const uint8_t *q = p[i];
			__m128i sc = _mm_loadu_si128((const __m128i *)(q + 192));
			__m256i Q[4];

			/* d * sc_s, s < 8 in ds0, the others in ds1 */
			d = _mm256_set1_ps(gh2f(q + 208));
			ds0 = _mm256_mul_ps(d, cvt(_mm256_cvtepi8_epi32(sc)));
			ds1 = _mm256_mul_ps(d, cvt(_mm256_cvtepi8_epi32(
			    _mm_srli_si128(sc, 8))));
			mn[i] = _mm256_fmadd_ps(ds0, _mm256_loadu_ps(xs + 16 * b),
			    mn[i]);
			mn[i] = _mm256_fmadd_ps(ds1, _mm256_loadu_ps(xs + 16 * b +
			    8), mn[i]);
			UNROLL
			for (h = 0; h < 2; h++) {
				xb = xp + 256 * b + 128 * h;
				A = _mm256_loadu_si256((const __m256i *)(q + 64 * h));
				B = _mm256_loadu_si256((const __m256i *)(q + 64 * h +
				    32));
				H = _mm256_loadu_si256((const __m256i *)(q + 128 +
				    32 * h));
				Q[0] = _mm256_or_si256(_mm256_and_si256(A, m4),
				    _mm256_and_si256(_mm256_slli_epi16(H, 4), m30));
				Q[1] = _mm256_or_si256(_mm256_and_si256(B, m4),
				    _mm256_and_si256(_mm256_slli_epi16(H, 2), m30));
				Q[2] = _mm256_or_si256(_mm256_and_si256(
				    _mm256_srli_epi16(A, 4), m4), _mm256_and_si256(H,
				    m30));
				Q[3] = _mm256_or_si256(_mm256_and_si256(
				    _mm256_srli_epi16(B, 4), m4), _mm256_and_si256(
				    _mm256_srli_epi16(H, 2), m30));
				UNROLL
				for (g = 0; g < 4; g++) {
					/* sub-blocks 8h + 2g (lanes 0-3) and the
					 * next (4-7) */
					s = _mm256_permutevar8x32_ps(h ? ds1 : ds0,
					    _mm256_setr_epi32(2 * g, 2 * g, 2 * g,
					    2 * g, 2 * g + 1, 2 * g + 1, 2 * g + 1,
					    2 * g + 1));
					tot[i] = _mm256_fmadd_ps(q6dot(Q[g], xb +
					    32 * g), s, tot[i]);
				}
			}
			p[i] += 210;
		}
	}
	UNROLL
	for (i = 0; i < R; i++)
		sum[i] = hsum(_mm256_fnmadd_ps(_mm256_set1_ps(32), mn[i],
		    tot[i]));
}

/* ---- Q5_K ----
 *
 * Sub-block g < 8 of a block is register g of 5-bit q in bytes: chunk
 * g / 2's nibbles (32 bytes at 48 + 16g, low for even g) with bit g of
 * qh's bytes at bit 4, byte l element 32g + l (order_bytes); the
 * scales and mins as Q4_K's. */
static void
prep_q5_k(float *xp, float *xs, const float *x, int nb)
{
	int b;

	for (b = 0; b < nb; b++, x += 256, xp += 256, xs += 8) {
		order_bytes(xp, x);
		sums32(xs, x);
	}
}

INLINE void
q5_k_rows(int R, float *sum, const uint8_t **p, const float *xp,
    const float *xs, int nb)
{
	const __m256i m4 = _mm256_set1_epi8(15), m10 = _mm256_set1_epi8(0x10);
	_Alignas(32) float sc[8];
	__m256 tot[KDEC_R], mn[KDEC_R];
	__m256i qh, ql = _mm256_setzero_si256(), hb, v;
	int b, i, g;

	UNROLL
	for (i = 0; i < R; i++) {
		tot[i] = _mm256_setzero_ps();
		mn[i] = _mm256_setzero_ps();
	}
	for (b = 0; b < nb; b++) {
		UNROLL
		for (i = 0; i < R; i++) {
			const uint8_t *q = p[i];

			mn[i] = _mm256_fmadd_ps(k4dm(q, sc), _mm256_loadu_ps(xs +
			    8 * b), mn[i]);
			qh = _mm256_loadu_si256((const __m256i *)(q + 16));
			UNROLL
			for (g = 0; g < 8; g++) {
				if (g % 2 == 0)
					ql = _mm256_loadu_si256((const __m256i *)(q +
					    48 + 16 * g));
				v = g % 2 ? _mm256_srli_epi16(ql, 4) : ql;
				/* qh's bit g at bit 4 (in 16-bit lanes: no bit
				 * of the other byte reaches it) */
				hb = g <= 4 ? _mm256_slli_epi16(qh, 4 - g) :
				    _mm256_srli_epi16(qh, g - 4);
				v = _mm256_or_si256(_mm256_and_si256(v, m4),
				    _mm256_and_si256(hb, m10));
				tot[i] = _mm256_fmadd_ps(q6dot(v, xp + 256 * b +
				    32 * g), _mm256_broadcast_ss(sc + g), tot[i]);
			}
			p[i] += 176;
		}
	}
	UNROLL
	for (i = 0; i < R; i++)
		sum[i] = hsum(_mm256_sub_ps(tot[i], mn[i]));
}

/* ---- the entries (kern_dec_int.h: rows too long for the buffers of x
 * or not whole blocks take the fused kernel) ---- */

INLINE void
prep(enum wtype t, float *xp, float *xs, const float *x, int nb)
{
	switch (t) {
	case W_Q4_K: prep_q4_k(xp, xs, x, nb); break;
	case W_Q5_K: prep_q5_k(xp, xs, x, nb); break;
	default: prep_q6_k(xp, xs, x, nb); break;
	}
}

INLINE void
rows(enum wtype t, int R, float *sum, const uint8_t **p, const float *xp,
    const float *xs, int n)
{
	int nb = n / 256;

	switch (t) {
	case W_Q4_K: q4_k_rows(R, sum, p, xp, xs, nb); break;
	case W_Q5_K: q5_k_rows(R, sum, p, xp, xs, nb); break;
	default: q6_k_rows(R, sum, p, xp, xs, nb); break;
	}
}

void
kern_q4_k_avx2_kq(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	kdec_matvec(W_Q4_K, 256, prep, rows, kern_q4_k_avx2_matvec, out,
	    w, x, n, r0, r1);
}

void
kern_q5_k_avx2_kq(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	kdec_matvec(W_Q5_K, 256, prep, rows, kern_q5_k_avx2_matvec, out,
	    w, x, n, r0, r1);
}

void
kern_q6_k_avx2_kq(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	kdec_matvec(W_Q6_K, 256, prep, rows, kern_q6_k_avx2_matvec, out,
	    w, x, n, r0, r1);
}

#endif
