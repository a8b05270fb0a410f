/* kern_i8_avx512.c: --int8-act's W_Q8_0I entries of the AVX-512 table
 * (kern.h), with VNNI.
 *
 * A token's activations are quantized once (conv_q8_0_quant's bytes,
 * stored as X + 128: vpdpbusd multiplies unsigned bytes by signed ones).
 * Per pair of blocks (64 weights, one load) and row, vpdpbusd of 128
 * against the weights gives 128 times each lane's weight sum, which
 * starts each token's vpdpbusd negated: 16 int32 lanes, lanes 0-7 the
 * even block's and 8-15 the odd one's, each the exact sum of its four
 * products, converted and multiplied into the accumulator with dw * dx
 * (kern.h's order).  The lanes are reduced by hsum, W_Q4's tree.  MR
 * rows and QT tokens a register block; decode takes its MR rows from
 * parts of the range far apart, as the other matvecs. */
#if defined(__x86_64__)

#include <immintrin.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kern/kern.h"
#include "kern/kern_avx512_int.h"

#define MR 4	/* rows per register block */
/* tokens per register block: 4 x 4 accumulators, the rows' weights,
 * their 128-sums and scales in registers or folded loads (3 took 1.25x
 * as long at T = 4, a batch's 3 + 1, bench/NOTES.md) */
#define QT 4
#define XQBUF (64 * 1024)	/* bytes of quantized activations (matmul) */

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
		u[i] = (uint8_t)((int)v + 128);
	}
}

/* conv_q8_0_quant of x[0..n) into dst (conv_q8_0_rowsize(n) bytes),
 * the int8 as X + 128: the same scales and integers, a block's 32 at
 * once (nearest even: vcvtps2dq under the default rounding). */
static void
quant(void *dst, const float *x, int n)
{
	size_t nb = CONV_Q8_0_NB(n), b;
	float *d = dst, amax, id;
	uint8_t *u = (uint8_t *)(d + nb);
	const __m512 big = _mm512_set1_ps(3.4028234663852886e38f);
	const __m512i lo = _mm512_set1_epi32(-127), hi = _mm512_set1_epi32(127);
	const __m128i off = _mm_set1_epi8((char)0x80);
	__m512 v0, v1, a0, a1, s;
	__mmask16 k0, k1;
	int e;

	for (b = 0; b < nb; b++) {
		e = n - 32 * (int)b;
		if (e <= 0) {
			d[b] = 0;
			memset(u + 32 * b, 0x80, 32);
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
		_mm_storeu_si128((__m128i *)(u + 32 * b), _mm_xor_si128(off,
		    _mm512_cvtepi32_epi8(_mm512_min_epi32(hi, _mm512_max_epi32(lo,
		    _mm512_cvtps_epi32(_mm512_mul_ps(v0, s)))))));
		_mm_storeu_si128((__m128i *)(u + 32 * b + 16), _mm_xor_si128(off,
		    _mm512_cvtepi32_epi8(_mm512_min_epi32(hi, _mm512_max_epi32(lo,
		    _mm512_cvtps_epi32(_mm512_mul_ps(v1, s)))))));
	}
}

/* The scales p[0], p[1] of a pair of blocks in lanes 0-7 and 8-15. */
INLINE __m512
pair(const float *p)
{
	const __m512i idx = _mm512_setr_epi32(0, 0, 0, 0, 0, 0, 0, 0,
	    1, 1, 1, 1, 1, 1, 1, 1);

	return _mm512_permutexvar_ps(idx, _mm512_castps128_ps512(
	    _mm_castsi128_ps(_mm_loadl_epi64((const __m128i *)p))));
}

/* out[j*ldo + r + i*rs] = row r + i*rs of w . token j of the quantized
 * activations at xq (stride ldxq bytes), i < R, j < TT. */
INLINE void
qblock(int R, int TT, float *out, int ldo, const void *w, const char *xq,
    size_t ldxq, int n, int r, int rs)
{
	size_t nb = CONV_Q8_0_NB(n), rowb = nb * (4 + 32), b;
	const __m512i c128 = _mm512_set1_epi8((char)0x80);
	const float *wd[MR], *xd[QT];
	const uint8_t *wq[MR], *xu[QT];
	__m512 acc[MR][QT], ws[MR], xs;
	__m512i wv[MR], nc[MR], uv;
	int i, j;

	UNROLL
	for (i = 0; i < R; i++) {
		wd[i] = (const float *)((const char *)w + (size_t)(r + i * rs) *
		    rowb);
		wq[i] = (const uint8_t *)(wd[i] + nb);
		UNROLL
		for (j = 0; j < TT; j++)
			acc[i][j] = _mm512_setzero_ps();
	}
	UNROLL
	for (j = 0; j < TT; j++) {
		xd[j] = (const float *)(xq + (size_t)j * ldxq);
		xu[j] = (const uint8_t *)(xd[j] + nb);
	}
	for (b = 0; b < nb; b += 2) {
		UNROLL
		for (i = 0; i < R; i++) {
			wv[i] = _mm512_loadu_si512(wq[i] + 32 * b);
			nc[i] = _mm512_sub_epi32(_mm512_setzero_si512(),
			    _mm512_dpbusd_epi32(_mm512_setzero_si512(), c128,
			    wv[i]));
			ws[i] = pair(wd[i] + b);
		}
		UNROLL
		for (j = 0; j < TT; j++) {
			uv = _mm512_loadu_si512(xu[j] + 32 * b);
			xs = pair(xd[j] + b);
			UNROLL
			for (i = 0; i < R; i++)
				acc[i][j] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(
				    _mm512_dpbusd_epi32(nc[i], uv, wv[i])),
				    _mm512_mul_ps(ws[i], xs), acc[i][j]);
		}
	}
	UNROLL
	for (i = 0; i < R; i++)
		UNROLL
		for (j = 0; j < TT; j++)
			out[(size_t)j * ldo + r + i * rs] = hsum(acc[i][j]);
}

void
kern_i8_avx512_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	char xq[CONV_Q8_0_NB(CONV_Q8_0_MAXN) * (4 + 32)]
	    __attribute__((aligned(64)));
	int h = (r1 - r0) / MR, r;

	if (n > CONV_Q8_0_MAXN)
		return;
	quant(xq, x, n);
	for (r = r0; r < r0 + h; r++)
		qblock(MR, 1, out, 0, w, xq, 0, n, r, h);
	for (r = r0 + MR * h; r < r1; r++)
		qblock(1, 1, out, 0, w, xq, 0, n, r, 1);
}

/* Rows [r0, r1) against TT tokens. */
INLINE void
qrows(int TT, float *out, int ldo, const void *w, const char *xq,
    size_t ld, int n, int r0, int r1)
{
	int r;

	for (r = r0; r + MR <= r1; r += MR)
		qblock(MR, TT, out, ldo, w, xq, ld, n, r, 1);
	for (; r < r1; r++)
		qblock(1, TT, out, ldo, w, xq, ld, n, r, 1);
}

/* All T tokens quantized once (kern_xroom), row panels that fit in L2,
 * QT tokens at a time: the weights come from memory once a call. */
void
kern_i8_avx512_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	char stk[XQBUF] __attribute__((aligned(64)));
	size_t ld = conv_q8_0_rowsize(n);
	int P = (int)((kern_l2 / 2) / ld), TB;
	int t0, t1, p0, p1, j;
	const char *xj;
	char *xq;
	float *o;

	if (n > CONV_Q8_0_MAXN)
		return;
	xq = kern_xroom(stk, sizeof(stk), ld, T, &TB);
	P = P < MR ? MR : P / MR * MR;
	if (TB < T)
		TB = TB < QT ? TB : TB / QT * QT;
	for (t0 = 0; t0 < T; t0 = t1) {
		t1 = T - t0 > TB ? t0 + TB : T;
		for (j = t0; j < t1; j++)
			quant(xq + (size_t)(j - t0) * ld, x + (size_t)j * ldx, n);
		for (p0 = r0; p0 < r1; p0 = p1) {
			p1 = r1 - p0 > P ? p0 + P : r1;
			for (j = t0; j < t1; j += QT) {
				xj = xq + (size_t)(j - t0) * ld;
				o = out + (size_t)j * ldo;
				switch (t1 - j < QT ? t1 - j : QT) {	/* QT 4 */
				case 1: qrows(1, o, ldo, w, xj, ld, n, p0, p1); break;
				case 2: qrows(2, o, ldo, w, xj, ld, n, p0, p1); break;
				case 3: qrows(3, o, ldo, w, xj, ld, n, p0, p1); break;
				default: qrows(QT, o, ldo, w, xj, ld, n, p0, p1); break;
				}
			}
		}
	}
	if (xq != stk)
		free(xq);
}

#endif
