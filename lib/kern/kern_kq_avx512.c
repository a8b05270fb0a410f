/* kern_kq_avx512.c: the AVX-512 table's decode of ggml's K blocks
 * (Q2_K, Q4_K, Q5_K, Q6_K), factored (kern.h's "factored decode").
 *
 * A row's 16 int32 lanes each hold 4 bytes of the block's quants as
 * they lie in memory; a field of them masked in place (q << s, never
 * shifted down but for the top one) is widened to float exactly and
 * multiplied by the activation that weight meets, which the call has
 * put once, for all its rows, in the lanes' order and scaled by 2^-s
 * (kq_prep: exact, a power of two).  So a weight costs a mask, a
 * conversion and an FMA, no shuffle; the sub-blocks' scales are applied
 * once per sub-block's sum (an FMA per 128 or 64 weights), and the
 * offsets (Q4_K's and Q5_K's mins, Q6_K's -32) once per block against the sums of
 * the activations over each sub-block, also made once per call. */
#if defined(__x86_64__)

#include <immintrin.h>
#include <stdint.h>
#include <string.h>

#include "kern/kern.h"
#include "kern/kern_avx512_int.h"
#include "kern/kern_ggml_int.h"
#include "kern/kern_dec_int.h"

/* ---- Q4_K ----
 *
 * Half c of a block is 64 bytes of quants, lane L bytes 4L .. 4L+3;
 * byte 4L + j is element l = 4 (L % 8) + j of the sub-blocks 2p (low
 * nibble) and 2p + 1 (high), p = 2c + L / 8.  Field k = 2j + hi is at
 * bit 4k: prepared activation 16 (8c + k) + L of the block, times
 * 2^-4k (k < 7; the top field is shifted down, times 1).  Lanes 0-7 of
 * field k's products are sub-block 4c + hi, lanes 8-15 4c + 2 + hi. */
/* A block's sums of x over its 8 sub-blocks of 32, in lanes 8-15 of xs
 * (Q4_K's and Q5_K's mins meet them there), lanes 0-7 zero. */
static void
sums32(float *xs, const float *x)
{
	int k;

	for (k = 0; k < 8; k++) {
		xs[k] = 0;
		xs[8 + k] = hsum(_mm512_add_ps(_mm512_loadu_ps(x + 32 * k),
		    _mm512_loadu_ps(x + 32 * k + 16)));
	}
}

static void
prep_q4_k(float *xp, float *xs, const float *x, int nb)
{
	int b, c, k, L, p, hi;
	float s;

	for (b = 0; b < nb; b++, x += 256, xp += 256, xs += 16) {
		for (c = 0; c < 2; c++)
			for (k = 0; k < 8; k++) {
				hi = k % 2;
				s = k < 7 ? gp2(4 * k) : 1;
				for (L = 0; L < 16; L++) {
					p = 2 * c + L / 8;
					xp[16 * (8 * c + k) + L] = x[32 * (2 * p +
					    hi) + 4 * (L % 8) + k / 2] * s;
				}
			}
		sums32(xs, x);
	}
}

INLINE __m512
cvt(__m512i v)
{
	return _mm512_cvtepi32_ps(v);
}

/* A Q4_K or Q5_K block's d * sc_j in lanes j, dmin * mn_j in lanes
 * 8 + j */
INLINE __m512
k4sm(const uint8_t *q)
{
	uint32_t dm;

	memcpy(&dm, q, 4);	/* d and dmin, widened together */
	return _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(
	    k4scales(q + 4))), _mm512_permutexvar_ps(_mm512_setr_epi32(0, 0, 0,
	    0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1), _mm512_castps128_ps512(
	    _mm_cvtph_ps(_mm_cvtsi32_si128((int)dm)))));
}

/* out[r + i*rs] for i < R */
INLINE void
q4_k_rows(int R, float *sum, const uint8_t **p, const float *xp,
    const float *xs, int nb)
{
	const __m512i m0 = _mm512_set1_epi32(0xf), m1 = _mm512_set1_epi32(
	    0xf0), m2 = _mm512_set1_epi32(0xf00), m3 = _mm512_set1_epi32(
	    0xf000), m4 = _mm512_set1_epi32(0xf0000), m5 =
	    _mm512_set1_epi32(0xf00000), m6 = _mm512_set1_epi32(0xf000000);
	/* the scales of each half's two accumulators' lanes */
	const __m512i i00 = _mm512_setr_epi32(0, 0, 0, 0, 0, 0, 0, 0, 2, 2,
	    2, 2, 2, 2, 2, 2), i01 = _mm512_add_epi32(i00,
	    _mm512_set1_epi32(1)), i10 = _mm512_add_epi32(i00,
	    _mm512_set1_epi32(4)), i11 = _mm512_add_epi32(i00,
	    _mm512_set1_epi32(5));
	__m512 tot[KDEC_R], mn[KDEC_R], sm, a0, a1, xsv;
	__m512i v;
	const float *xb;
	int b, i;

	UNROLL
	for (i = 0; i < R; i++) {
		tot[i] = _mm512_setzero_ps();
		mn[i] = _mm512_setzero_ps();
	}
	for (b = 0; b < nb; b++) {
		xb = xp + 256 * b;
		xsv = _mm512_loadu_ps(xs + 16 * b);
		UNROLL
		for (i = 0; i < R; i++) {
			const uint8_t *q = p[i];

			sm = k4sm(q);
			mn[i] = _mm512_mask3_fmadd_ps(sm, xsv, mn[i], 0xff00);
			v = _mm512_loadu_si512(q + 16);
			a0 = _mm512_mul_ps(cvt(_mm512_and_si512(v, m0)),
			    _mm512_loadu_ps(xb));
			a1 = _mm512_mul_ps(cvt(_mm512_and_si512(v, m1)),
			    _mm512_loadu_ps(xb + 16));
			a0 = _mm512_fmadd_ps(cvt(_mm512_and_si512(v, m2)),
			    _mm512_loadu_ps(xb + 32), a0);
			a1 = _mm512_fmadd_ps(cvt(_mm512_and_si512(v, m3)),
			    _mm512_loadu_ps(xb + 48), a1);
			a0 = _mm512_fmadd_ps(cvt(_mm512_and_si512(v, m4)),
			    _mm512_loadu_ps(xb + 64), a0);
			a1 = _mm512_fmadd_ps(cvt(_mm512_and_si512(v, m5)),
			    _mm512_loadu_ps(xb + 80), a1);
			a0 = _mm512_fmadd_ps(cvt(_mm512_and_si512(v, m6)),
			    _mm512_loadu_ps(xb + 96), a0);
			a1 = _mm512_fmadd_ps(cvt(_mm512_srli_epi32(v, 28)),
			    _mm512_loadu_ps(xb + 112), a1);
			tot[i] = _mm512_fmadd_ps(a0, _mm512_permutexvar_ps(i00,
			    sm), tot[i]);
			tot[i] = _mm512_fmadd_ps(a1, _mm512_permutexvar_ps(i01,
			    sm), tot[i]);
			v = _mm512_loadu_si512(q + 80);
			a0 = _mm512_mul_ps(cvt(_mm512_and_si512(v, m0)),
			    _mm512_loadu_ps(xb + 128));
			a1 = _mm512_mul_ps(cvt(_mm512_and_si512(v, m1)),
			    _mm512_loadu_ps(xb + 144));
			a0 = _mm512_fmadd_ps(cvt(_mm512_and_si512(v, m2)),
			    _mm512_loadu_ps(xb + 160), a0);
			a1 = _mm512_fmadd_ps(cvt(_mm512_and_si512(v, m3)),
			    _mm512_loadu_ps(xb + 176), a1);
			a0 = _mm512_fmadd_ps(cvt(_mm512_and_si512(v, m4)),
			    _mm512_loadu_ps(xb + 192), a0);
			a1 = _mm512_fmadd_ps(cvt(_mm512_and_si512(v, m5)),
			    _mm512_loadu_ps(xb + 208), a1);
			a0 = _mm512_fmadd_ps(cvt(_mm512_and_si512(v, m6)),
			    _mm512_loadu_ps(xb + 224), a0);
			a1 = _mm512_fmadd_ps(cvt(_mm512_srli_epi32(v, 28)),
			    _mm512_loadu_ps(xb + 240), a1);
			tot[i] = _mm512_fmadd_ps(a0, _mm512_permutexvar_ps(i10,
			    sm), tot[i]);
			tot[i] = _mm512_fmadd_ps(a1, _mm512_permutexvar_ps(i11,
			    sm), tot[i]);
			p[i] += 144;
		}
	}
	UNROLL
	for (i = 0; i < R; i++)
		sum[i] = hsum(_mm512_sub_ps(tot[i], mn[i]));
}

/* ---- Q6_K ----
 *
 * Half h of a block: ql's 64 bytes and qh's 32 (both halves of a zmm
 * get them, the upper shifted down 2) make the 6-bit q of elements
 * 32g + l in bytes: g = 0 (lane bytes 0-31) and 1 (32-63) in one
 * register, g = 2 and 3 in the other (gg = 1).  Lane L bytes 4L + j:
 * element 128h + 32 (L / 8 + 2gg) + 4 (L % 8) + j, sub-block 8h + 4gg
 * + L / 4; field j is at bit 8j: prepared activation 128h + 64gg + 16j
 * + L of the block, times 2^-8j (j < 3; the top byte is shifted down).
 * order_bytes puts a block's x so for any register of q in bytes whose
 * halves are elements 64u + l and 64u + 32 + l (Q5_K's too). */
static void
order_bytes(float *xp, const float *x)
{
	int u, j, L;
	float s;

	for (u = 0; u < 4; u++)		/* 128h + 64gg as 64u */
		for (j = 0; j < 4; j++) {
			s = j < 3 ? gp2(8 * j) : 1;
			for (L = 0; L < 16; L++)
				xp[64 * u + 16 * j + L] = x[64 * u + 32 * (L / 8) +
				    4 * (L % 8) + j] * s;
		}
}

static void
prep_q6_k(float *xp, float *xs, const float *x, int nb)
{
	int b, j;

	for (b = 0; b < nb; b++, x += 256, xp += 256, xs += 16) {
		order_bytes(xp, x);
		/* the sums of the 16 sub-blocks */
		for (j = 0; j < 16; j++)
			xs[j] = hsum(_mm512_loadu_ps(x + 16 * j));
	}
}

/* The sum over one register of q bytes (64 weights) against xb. */
INLINE __m512
q6dot(__m512i q, const float *xb)
{
	__m512 a;

	a = _mm512_mul_ps(cvt(_mm512_and_si512(q, _mm512_set1_epi32(0xff))),
	    _mm512_loadu_ps(xb));
	a = _mm512_fmadd_ps(cvt(_mm512_and_si512(q, _mm512_set1_epi32(
	    0xff00))), _mm512_loadu_ps(xb + 16), a);
	a = _mm512_fmadd_ps(cvt(_mm512_and_si512(q, _mm512_set1_epi32(
	    0xff0000))), _mm512_loadu_ps(xb + 32), a);
	return _mm512_fmadd_ps(cvt(_mm512_srli_epi32(q, 24)),
	    _mm512_loadu_ps(xb + 48), a);
}

INLINE void
q6_k_rows(int R, float *sum, const uint8_t **p, const float *xp,
    const float *xs, int nb)
{
	const __m512i m4 = _mm512_set1_epi8(15), m30 = _mm512_set1_epi8(0x30),
	    sh = _mm512_setr_epi64(0, 0, 0, 0, 2, 2, 2, 2),
	    i0 = _mm512_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3,
	    3), i1 = _mm512_add_epi32(i0, _mm512_set1_epi32(4)),
	    i2 = _mm512_add_epi32(i0, _mm512_set1_epi32(8)),
	    i3 = _mm512_add_epi32(i0, _mm512_set1_epi32(12));
	__m512 tot[KDEC_R], mn[KDEC_R], ds, xsv;
	__m512i ql, qh, lo, hi;
	const float *xb;
	int b, i, h;

	UNROLL
	for (i = 0; i < R; i++) {
		tot[i] = _mm512_setzero_ps();
		mn[i] = _mm512_setzero_ps();
	}
	for (b = 0; b < nb; b++) {
		xb = xp + 256 * b;
		xsv = _mm512_loadu_ps(xs + 16 * b);
		UNROLL
		for (i = 0; i < R; i++) {
			const uint8_t *q = p[i];

			/* d * sc_s in lane s */
			ds = _mm512_mul_ps(_mm512_set1_ps(gh2f(q + 208)),
			    _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(
			    _mm_loadu_si128((const __m128i *)(q + 192)))));
			mn[i] = _mm512_fmadd_ps(ds, xsv, mn[i]);
			UNROLL
			for (h = 0; h < 2; h++) {
				ql = _mm512_loadu_si512(q + 64 * h);
				qh = _mm512_srlv_epi64(_mm512_broadcast_i64x4(
				    _mm256_loadu_si256((const __m256i *)(q + 128 +
				    32 * h))), sh);
				/* (ql & 15) | (qh & 3) << 4, and the high
				 * nibbles with the next 2 bits */
				lo = _mm512_ternarylogic_epi32(ql, _mm512_and_si512(
				    _mm512_slli_epi16(qh, 4), m30), m4, 0xec);
				hi = _mm512_ternarylogic_epi32(_mm512_srli_epi16(ql,
				    4), _mm512_and_si512(qh, m30), m4, 0xec);
				tot[i] = _mm512_fmadd_ps(q6dot(lo, xb + 128 * h),
				    _mm512_permutexvar_ps(h ? i2 : i0, ds), tot[i]);
				tot[i] = _mm512_fmadd_ps(q6dot(hi, xb + 128 * h + 64),
				    _mm512_permutexvar_ps(h ? i3 : i1, ds), tot[i]);
			}
			p[i] += 210;
		}
	}
	UNROLL
	for (i = 0; i < R; i++)
		sum[i] = hsum(_mm512_fnmadd_ps(_mm512_set1_ps(32), mn[i],
		    tot[i]));
}

/* ---- Q5_K ----
 *
 * Chunk u < 4 of a block's quants (32 bytes at 48 + 32u: sub-block 2u
 * in the low nibbles, 2u + 1 in the high) is read into both halves of
 * a register, the upper half's shifted down 4, and bit 2u (2u + 1) of
 * qh's bytes is put at bit 4: the 5-bit q of elements 64u + l in bytes
 * 0-31 and 64u + 32 + l in 32-63, as Q6_K's registers lie (order_bytes),
 * lanes 0-7 sub-block 2u, 8-15 2u + 1.  Scales and mins as Q4_K's. */
static void
prep_q5_k(float *xp, float *xs, const float *x, int nb)
{
	int b;

	for (b = 0; b < nb; b++, x += 256, xp += 256, xs += 16) {
		order_bytes(xp, x);
		sums32(xs, x);
	}
}

INLINE void
q5_k_rows(int R, float *sum, const uint8_t **p, const float *xp,
    const float *xs, int nb)
{
	const __m512i m4 = _mm512_set1_epi8(15), m1 = _mm512_set1_epi8(1),
	    sq = _mm512_setr_epi64(0, 0, 0, 0, 4, 4, 4, 4),
	    sh = _mm512_setr_epi64(0, 0, 0, 0, 1, 1, 1, 1),
	    i0 = _mm512_setr_epi32(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1,
	    1, 1);
	__m512 tot[KDEC_R], mn[KDEC_R], sm, xsv;
	__m512i qh, lo, hb;
	const float *xb;
	int b, i, u;

	UNROLL
	for (i = 0; i < R; i++) {
		tot[i] = _mm512_setzero_ps();
		mn[i] = _mm512_setzero_ps();
	}
	for (b = 0; b < nb; b++) {
		xb = xp + 256 * b;
		xsv = _mm512_loadu_ps(xs + 16 * b);
		UNROLL
		for (i = 0; i < R; i++) {
			const uint8_t *q = p[i];

			sm = k4sm(q);
			mn[i] = _mm512_mask3_fmadd_ps(sm, xsv, mn[i], 0xff00);
			/* qh's bits 0 (lower half) and 1 (upper) at bit 0 */
			qh = _mm512_srlv_epi64(_mm512_broadcast_i64x4(
			    _mm256_loadu_si256((const __m256i *)(q + 16))), sh);
			UNROLL
			for (u = 0; u < 4; u++) {
				lo = _mm512_srlv_epi64(_mm512_broadcast_i64x4(
				    _mm256_loadu_si256((const __m256i *)(q + 48 +
				    32 * u))), sq);
				hb = _mm512_slli_epi16(_mm512_and_si512(
				    _mm512_srli_epi64(qh, 2 * u), m1), 4);
				/* (lo & 15) | hb */
				lo = _mm512_ternarylogic_epi32(lo, hb, m4, 0xec);
				tot[i] = _mm512_fmadd_ps(q6dot(lo, xb + 64 * u),
				    _mm512_permutexvar_ps(_mm512_add_epi32(i0,
				    _mm512_set1_epi32(2 * u)), sm), tot[i]);
			}
			p[i] += 176;
		}
	}
	UNROLL
	for (i = 0; i < R; i++)
		sum[i] = hsum(_mm512_sub_ps(tot[i], mn[i]));
}

/* ---- Q2_K ----
 *
 * Half n of a block is 32 bytes of 2-bit quants (at 16 + 32n): byte l
 * holds element 128n + 32s + l in bits 2s.  The 32 bytes go to both
 * halves of a register, the upper shifted down 2, so that field (j, t)
 * at bit 8j + 4t of lane L is element 128n + 32s + 4 (L % 8) + j, s =
 * 2t + L / 8, sub-block (of 16) 8n + 2s + (L % 8) / 4: prepared
 * activation 128n + 64t + 16j + L of the block, times 2^-(8j + 4t) (no
 * field reaches the sign bit).  A scale byte is d's multiple (low
 * nibble) and dmin's (high); the mins meet the sums over the 16
 * sub-blocks. */
static void
prep_q2_k(float *xp, float *xs, const float *x, int nb)
{
	int b, n, t, j, L;

	for (b = 0; b < nb; b++, x += 256, xp += 256, xs += 16) {
		for (n = 0; n < 2; n++)
			for (t = 0; t < 2; t++)
				for (j = 0; j < 4; j++)
					for (L = 0; L < 16; L++)
						xp[128 * n + 64 * t + 16 * j + L] =
						    x[128 * n + 32 * (2 * t + L / 8) +
						    4 * (L % 8) + j] * gp2(8 * j + 4 * t);
		for (j = 0; j < 16; j++)
			xs[j] = hsum(_mm512_loadu_ps(x + 16 * j));
	}
}

/* The sum of the 4 fields (j < 4) at bits 8j + 4t of v against xb. */
INLINE __m512
q2dot(__m512i v, int t, const float *xb)
{
	__m512 a;

	a = _mm512_mul_ps(cvt(_mm512_and_si512(v, _mm512_set1_epi32(3 <<
	    4 * t))), _mm512_loadu_ps(xb));
	a = _mm512_fmadd_ps(cvt(_mm512_and_si512(v, _mm512_set1_epi32(3 <<
	    (8 + 4 * t)))), _mm512_loadu_ps(xb + 16), a);
	a = _mm512_fmadd_ps(cvt(_mm512_and_si512(v, _mm512_set1_epi32(3 <<
	    (16 + 4 * t)))), _mm512_loadu_ps(xb + 32), a);
	return _mm512_fmadd_ps(cvt(_mm512_and_si512(v, _mm512_set1_epi32(3 <<
	    (24 + 4 * t)))), _mm512_loadu_ps(xb + 48), a);
}

INLINE void
q2_k_rows(int R, float *sum, const uint8_t **p, const float *xp,
    const float *xs, int nb)
{
	const __m512i sh = _mm512_setr_epi64(0, 0, 0, 0, 2, 2, 2, 2),
	    i0 = _mm512_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3,
	    3), m4 = _mm512_set1_epi32(15);
	__m512 tot[KDEC_R], mn[KDEC_R], ds, xsv;
	__m512i sc, v;
	__m128 dm;
	uint32_t u;
	const float *xb;
	int b, i, n, t;

	UNROLL
	for (i = 0; i < R; i++) {
		tot[i] = _mm512_setzero_ps();
		mn[i] = _mm512_setzero_ps();
	}
	for (b = 0; b < nb; b++) {
		xb = xp + 256 * b;
		xsv = _mm512_loadu_ps(xs + 16 * b);
		UNROLL
		for (i = 0; i < R; i++) {
			const uint8_t *q = p[i];

			memcpy(&u, q + 80, 4);	/* d and dmin */
			dm = _mm_cvtph_ps(_mm_cvtsi32_si128((int)u));
			sc = _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)
			    q));
			ds = _mm512_mul_ps(_mm512_broadcastss_ps(dm), cvt(
			    _mm512_and_si512(sc, m4)));
			mn[i] = _mm512_fmadd_ps(_mm512_mul_ps(_mm512_broadcastss_ps(
			    _mm_movehdup_ps(dm)), cvt(_mm512_srli_epi32(sc, 4))),
			    xsv, mn[i]);
			UNROLL
			for (n = 0; n < 2; n++) {
				v = _mm512_srlv_epi64(_mm512_broadcast_i64x4(
				    _mm256_loadu_si256((const __m256i *)(q + 16 +
				    32 * n))), sh);
				UNROLL
				for (t = 0; t < 2; t++)
					tot[i] = _mm512_fmadd_ps(q2dot(v, t, xb +
					    128 * n + 64 * t), _mm512_permutexvar_ps(
					    _mm512_add_epi32(i0, _mm512_set1_epi32(8 *
					    n + 4 * t)), ds), tot[i]);
			}
			p[i] += 84;
		}
	}
	UNROLL
	for (i = 0; i < R; i++)
		sum[i] = hsum(_mm512_sub_ps(tot[i], mn[i]));
}

/* ---- the entries (kern_dec_int.h: rows too long for the buffers of x
 * or not whole blocks take the fused kernel) ---- */

INLINE void
prep(enum wtype t, float *xp, float *xs, const float *x, int nb)
{
	switch (t) {
	case W_Q2_K: prep_q2_k(xp, xs, x, nb); break;
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
	case W_Q2_K: q2_k_rows(R, sum, p, xp, xs, nb); break;
	case W_Q4_K: q4_k_rows(R, sum, p, xp, xs, nb); break;
	case W_Q5_K: q5_k_rows(R, sum, p, xp, xs, nb); break;
	default: q6_k_rows(R, sum, p, xp, xs, nb); break;
	}
}

void
kern_q2_k_avx512_kq(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	kdec_matvec(W_Q2_K, 256, prep, rows, kern_q2_k_avx512_matvec, out,
	    w, x, n, r0, r1);
}

void
kern_q4_k_avx512_kq(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	kdec_matvec(W_Q4_K, 256, prep, rows, kern_q4_k_avx512_matvec, out,
	    w, x, n, r0, r1);
}

void
kern_q5_k_avx512_kq(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	kdec_matvec(W_Q5_K, 256, prep, rows, kern_q5_k_avx512_matvec, out,
	    w, x, n, r0, r1);
}

void
kern_q6_k_avx512_kq(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	kdec_matvec(W_Q6_K, 256, prep, rows, kern_q6_k_avx512_matvec, out,
	    w, x, n, r0, r1);
}

#endif
