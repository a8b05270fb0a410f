/* kern_i8_avx512.c: --int8-act's W_Q8_0I entries of the AVX-512 table
 * (kern.h), with VNNI.
 *
 * kern.h wants each block's whole sum S (32 products, exact) and one
 * float chain a (row, token): so 16 pairs' S sit in the lanes of one
 * register, and a block's conversion, dw dx multiply and FMA serve all
 * 16.  A token's activations are quantized once (conv_q8_0_quant's
 * bytes, signed) and the weights made unsigned (q + 128: vpdpbusd
 * multiplies unsigned bytes by signed ones), minus 128 times the sums
 * of X starting each sum.
 *
 * Decode: a pair of blocks (64 weights, one load) of a row against X
 * gives 16 int32 lanes of four products each, 0-7 the even block's,
 * 8-15 the odd one's; 16 rows' registers are reduced together
 * (sum16x2) to two registers of 16 sums, one a block.  Prefill and
 * batches: GGUF Q8_0's panels (kern_ggml_i8_avx512.c), where 8 vpdpbusd
 * of a panel unpacked a row a lane against a token's 4 bytes broadcast
 * make 16 rows' S with nothing to reduce. */
#if defined(__x86_64__)

#include <immintrin.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kern/kern.h"
#include "kern/kern_avx512_int.h"

#define GFEW 4	/* fewer tokens than this: matmul runs decode's kernel */
#define QPF 2048	/* bytes a decode row is prefetched ahead */

/* One block of conv_q8_0_quant, scalar: where an activation is not
 * finite (the vector path below assumes finite ones). */
static void
quant1(float *d, uint8_t *u, const float *x, int m)
{
	float amax = 0, a, id, v;
	int i;

	for (i = 0; i < m; i++) {
		a = fabsf(x[i]);
		if (a > amax)
			amax = a;
	}
	*d = amax / 127.0f;
	id = *d > 0 && *d < INFINITY ? 1.0f / *d : 0.0f;
	for (i = 0; i < 32; i++) {
		v = i < m ? nearbyintf(x[i] * id) : 0.0f;
		if (!(v >= -127))
			v = v < 0 ? -127 : 0.0f;
		if (v > 127)
			v = 127;
		u[i] = (uint8_t)(int8_t)(int)v;
	}
}

/* conv_q8_0_quant of x[0..n) into dst (conv_q8_0_rowsize(n) bytes):
 * the same scales and integers, a block's 32 at once (nearest even: vcvtps2dq under the default rounding). */
static void
quant(void *dst, const float *x, int n)
{
	size_t nb = CONV_Q8_0_NB(n), b;
	float *d = dst, amax, id;
	uint8_t *u = (uint8_t *)(d + nb);
	const __m512 big = _mm512_set1_ps(3.4028234663852886e38f);
	const __m512i lo = _mm512_set1_epi32(-127), hi = _mm512_set1_epi32(127);
	__m512 v0, v1, a0, a1, s;
	__mmask16 k0, k1;
	int e;

	for (b = 0; b < nb; b++) {
		e = n - 32 * (int)b;
		if (e <= 0) {
			d[b] = 0;
			memset(u + 32 * b, 0, 32);
			continue;
		}
		k0 = e >= 16 ? 0xffff : (__mmask16)((1u << e) - 1);
		k1 = e >= 32 ? 0xffff : e > 16 ? (__mmask16)((1u << (e - 16)) -
		    1) : 0;
		v0 = _mm512_maskz_loadu_ps(k0, x + 32 * b);
		v1 = _mm512_maskz_loadu_ps(k1, x + 32 * b + 16);
		a0 = _mm512_abs_ps(v0);
		a1 = _mm512_abs_ps(v1);
		if (_mm512_cmp_ps_mask(a0, big, _CMP_NLE_UQ) |
		    _mm512_cmp_ps_mask(a1, big, _CMP_NLE_UQ)) {
			quant1(d + b, u + 32 * b, x + 32 * b, e < 32 ? e : 32);
			continue;
		}
		amax = _mm512_reduce_max_ps(_mm512_max_ps(a0, a1));
		d[b] = amax / 127.0f;
		id = d[b] > 0 ? 1.0f / d[b] : 0.0f;
		s = _mm512_set1_ps(id);
		_mm_storeu_si128((__m128i *)(u + 32 * b), _mm512_cvtepi32_epi8(
		    _mm512_min_epi32(hi, _mm512_max_epi32(lo, _mm512_cvtps_epi32(
		    _mm512_mul_ps(v0, s))))));
		_mm_storeu_si128((__m128i *)(u + 32 * b + 16), _mm512_cvtepi32_epi8(
		    _mm512_min_epi32(hi, _mm512_max_epi32(lo, _mm512_cvtps_epi32(
		    _mm512_mul_ps(v1, s))))));
	}
}

/* The sums of v[q]'s lanes 0-7 into lane q of *lo and of its lanes
 * 8-15 into lane q of *hi, q < 16: two blocks' sums of 16 rows, so
 * that a pair of blocks takes two conversions and two FMAs for all 16,
 * not 16 of each.  44 shuffles and adds: each level halves the lanes of
 * a block and doubles the rows a register holds. */
INLINE void
sum16x2(const __m512i *v, __m512i *lo, __m512i *hi)
{
	__m512i a[8], c[4], e[2];
	int k;

	/* lanes 4c + l and 4c + l + 2 of v[2k] and v[2k + 1], c < 4 */
	UNROLL
	for (k = 0; k < 8; k++)
		a[k] = _mm512_add_epi32(_mm512_unpacklo_epi32(v[2 * k],
		    v[2 * k + 1]), _mm512_unpackhi_epi32(v[2 * k], v[2 * k + 1]));
	/* each 128 bits of c[k] the four of v[4k .. 4k + 3] */
	UNROLL
	for (k = 0; k < 4; k++)
		c[k] = _mm512_add_epi32(_mm512_unpacklo_epi64(a[2 * k],
		    a[2 * k + 1]), _mm512_unpackhi_epi64(a[2 * k], a[2 * k + 1]));
	/* 128 bits 0 + 1 (lanes 0-7) and 2 + 3 (8-15) */
	UNROLL
	for (k = 0; k < 2; k++)
		e[k] = _mm512_add_epi32(_mm512_shuffle_i32x4(c[2 * k], c[2 * k +
		    1], 0x88), _mm512_shuffle_i32x4(c[2 * k], c[2 * k + 1], 0xdd));
	*lo = _mm512_shuffle_i32x4(e[0], e[1], 0x88);
	*hi = _mm512_shuffle_i32x4(e[0], e[1], 0xdd);
}

/* out[r + i*rs] = row r + i*rs of w . the token quantized at xq, i <
 * RV (rows RV .. 3 read row RV - 1 again, not stored): 4 rows and 4
 * pairs of blocks a step, v[4i + k] row i's pair k, so that sum16x2's
 * lane 4i + k is row i's block b + 2k (lo) and b + 2k + 1 (hi); each
 * row's chain moves along its 128 bits, lane k taking blocks b + 2k and
 * b + 2k + 1 by masked FMAs, then a shuffle hands it to lane k + 1:
 * kern.h's order, on 4 streams of rows (16 rows side by side read
 * memory at 0.6x). */
INLINE void
qdec(float *out, const void *w, const char *xq, int n, int r, int rs,
    int RV)
{
	size_t nb = CONV_Q8_0_NB(n), rowb = nb * (4 + 32), b;
	const __m512i c128 = _mm512_set1_epi8((char)0x80);
	const __m512i iw0 = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16,
	    18, 20, 22, 24, 26, 28, 30);
	const __m512i ix0 = _mm512_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6, 0, 2, 4,
	    6, 0, 2, 4, 6);
	const __m512i one = _mm512_set1_epi32(1);
	const float *wd[4], *xd = (const float *)xq;
	const int8_t *wq[4], *xv = (const int8_t *)(xd + nb);
	float f[16];
	__m512 a = _mm512_setzero_ps(), d[2], A, B, xs, S[2];
	__m512i v[16], x, nc, I[2];
	__mmask8 m8;
	int i, k;

	for (i = 0; i < 4; i++) {
		wd[i] = (const float *)((const char *)w + (size_t)(r + (i < RV ?
		    i : RV - 1) * rs) * rowb);
		wq[i] = (const int8_t *)(wd[i] + nb);
	}
	for (b = 0; b < nb; b += 8) {
		/* the weights made unsigned, q + 128: minus 128 times the
		 * sums of X starts the sums */
		UNROLL
		for (k = 0; k < 4; k++) {
			size_t bk = b + 2 * k;

			if (bk >= nb) {
				UNROLL
				for (i = 0; i < 4; i++)
					v[4 * i + k] = _mm512_setzero_si512();
				continue;
			}
			x = _mm512_loadu_si512(xv + 32 * bk);
			nc = _mm512_sub_epi32(_mm512_setzero_si512(),
			    _mm512_dpbusd_epi32(_mm512_setzero_si512(), c128, x));
			UNROLL
			for (i = 0; i < 4; i++) {
				_mm_prefetch((const char *)((uintptr_t)(wq[i] + 32 *
				    bk) + QPF), _MM_HINT_T0);
				v[4 * i + k] = _mm512_dpbusd_epi32(nc,
				    _mm512_xor_si512(c128, _mm512_loadu_si512(wq[i] +
				    32 * bk)), x);
			}
		}
		sum16x2(v, &I[0], &I[1]);
		/* dw of lane 4i + k: row i's block b + 2k (+ 1), from the
		 * rows' 8 scales [0 | 1] in A and [2 | 3] in B */
		m8 = nb - b >= 8 ? 0xff : (__mmask8)((1u << (nb - b)) - 1);
		A = _mm512_insertf32x8(_mm512_castps256_ps512(_mm256_maskz_loadu_ps(
		    m8, wd[0] + b)), _mm256_maskz_loadu_ps(m8, wd[1] + b), 1);
		B = _mm512_insertf32x8(_mm512_castps256_ps512(_mm256_maskz_loadu_ps(
		    m8, wd[2] + b)), _mm256_maskz_loadu_ps(m8, wd[3] + b), 1);
		xs = _mm512_castps256_ps512(_mm256_maskz_loadu_ps(m8, xd + b));
		d[0] = _mm512_mul_ps(_mm512_permutex2var_ps(A, iw0, B),
		    _mm512_permutexvar_ps(ix0, xs));
		d[1] = _mm512_mul_ps(_mm512_permutex2var_ps(A, _mm512_add_epi32(
		    iw0, one), B), _mm512_permutexvar_ps(_mm512_add_epi32(ix0,
		    one), xs));
		S[0] = _mm512_cvtepi32_ps(I[0]);
		S[1] = _mm512_cvtepi32_ps(I[1]);
		UNROLL
		for (k = 0; k < 4; k++) {
			if (k)	/* lane k - 1's chain to lane k */
				a = _mm512_permute_ps(a, 0x90);
			if (b + 2 * k < nb) {	/* nb even: both blocks */
				a = _mm512_mask3_fmadd_ps(S[0], d[0], a,
				    (__mmask16)(0x1111 << k));
				a = _mm512_mask3_fmadd_ps(S[1], d[1], a,
				    (__mmask16)(0x1111 << k));
			}
		}
		a = _mm512_permute_ps(a, 0xff);	/* lane 3's to all */
	}
	_mm512_storeu_ps(f, a);
	for (i = 0; i < RV; i++)
		out[r + i * rs] = f[4 * i];
}

/* Decode: rows [r0, r1) in 4 parts read side by side (qdec). */
void
kern_i8_avx512_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	char xq[CONV_Q8_0_NB(CONV_Q8_0_MAXN) * (4 + 32)]
	    __attribute__((aligned(64)));
	int h = (r1 - r0) / 4, r;

	if (n > CONV_Q8_0_MAXN)
		return;
	quant(xq, x, n);
	for (r = r0; r < r0 + h; r++)
		qdec(out, w, xq, n, r, h, 4);
	if (r0 + 4 * h < r1)
		qdec(out, w, xq, n, r0 + 4 * h, 1, r1 - r0 - 4 * h);
}

/* Prefill and batches: kern_ggml_i8_avx512.c's panels (GGUF Q8_0's
 * code on these rows); a few tokens take decode's kernel each (the
 * unpacking would cost more than it saves). */
void
kern_i8_avx512_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	int j;

	if (n > CONV_Q8_0_MAXN)
		return;
	if (T < GFEW) {
		for (j = 0; j < T; j++)
			kern_i8_avx512_matvec(out + (size_t)j * ldo, w, x +
			    (size_t)j * ldx, n, r0, r1);
		return;
	}
	kern_q8_0i_avx512_gemm(out, ldo, w, x, ldx, n, T, r0, r1);
}

#endif
