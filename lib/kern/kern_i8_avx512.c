/* kern_i8_avx512.c: --int8-act's W_Q8_0I entries of the AVX-512 table
 * (kern.h), with VNNI.
 *
 * A token's activations are quantized once (conv_q8_0_quant's bytes,
 * stored as X + 128: vpdpbusd multiplies unsigned bytes by signed ones).
 * Per pair of blocks (64 weights, one load) and row, vpdpbusd of 128
 * against the weights gives 128 times each lane's weight sum, which
 * starts each token's vpdpbusd negated: 16 int32 lanes, each the exact
 * sum of four products, 0-7 the even block's and 8-15 the odd one's.
 * kern.h wants each block's whole sum S and one float chain a (row,
 * token), so 16 pairs' registers are reduced together (sum16x2) to two
 * registers of 16 sums, one a block: then a conversion, a multiply for
 * the dw dx and an FMA a block serve all 16 pairs, the even block's
 * before the odd one's.  Decode takes 16 rows from parts of the range
 * far apart, as the other matvecs; prefill 4 rows x 4 tokens. */
#if defined(__x86_64__)

#include <immintrin.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kern/kern.h"
#include "kern/kern_avx512_int.h"

#define MR 4	/* rows per register block (matmul) */
#define MV 16	/* rows per register block (decode) */
/* tokens per register block: MR x QT pairs are sum16x2's 16 (the last
 * tokens of a call fewer, with 16 / TT rows) */
#define QT 4
#define XQBUF (64 * 1024)
#define DTBUF (16 * 1024)	/* floats of a panel's scales (matmul) */
#define QPF 2048	/* bytes a decode row is prefetched ahead */
/* qblock's loops over its 16 pairs, whole (UNROLL stops at 8 on gcc) */
#if defined(__clang__)
#define UNROLL16 _Pragma("unroll")
#else
#define UNROLL16 _Pragma("GCC unroll 16")
#endif	/* bytes of quantized activations (matmul) */

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
 * 8-15 into lane q of *hi, q < 16: two blocks' sums of 16 (row, token)
 * pairs, so that a pair of blocks takes two conversions and two FMAs
 * for all 16, not 16 of each.  44 shuffles and adds: each level halves
 * the lanes of a block and doubles the pairs a register holds. */
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

/* The 16 x 16 floats m transposed in place (lane j of m[i] to lane i
 * of m[j]): decode's 16 rows' scales of 16 blocks made a block's 16. */
INLINE void
tr16(__m512 *m)
{
	__m512 t[16], u[16], a, b, c, d;
	int k, s;

	UNROLL16
	for (k = 0; k < 8; k++) {
		t[2 * k] = _mm512_unpacklo_ps(m[2 * k], m[2 * k + 1]);
		t[2 * k + 1] = _mm512_unpackhi_ps(m[2 * k], m[2 * k + 1]);
	}
	/* u[4k + s], 128 bits c: column 4c + s of rows 4k .. 4k + 3 */
	UNROLL16
	for (k = 0; k < 4; k++) {
		u[4 * k] = _mm512_castpd_ps(_mm512_unpacklo_pd(_mm512_castps_pd(
		    t[4 * k]), _mm512_castps_pd(t[4 * k + 2])));
		u[4 * k + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(
		    _mm512_castps_pd(t[4 * k]), _mm512_castps_pd(t[4 * k + 2])));
		u[4 * k + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(
		    _mm512_castps_pd(t[4 * k + 1]), _mm512_castps_pd(t[4 * k +
		    3])));
		u[4 * k + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(
		    _mm512_castps_pd(t[4 * k + 1]), _mm512_castps_pd(t[4 * k +
		    3])));
	}
	UNROLL16
	for (s = 0; s < 4; s++) {
		a = _mm512_shuffle_f32x4(u[s], u[4 + s], 0x88);
		b = _mm512_shuffle_f32x4(u[s], u[4 + s], 0xdd);
		c = _mm512_shuffle_f32x4(u[8 + s], u[12 + s], 0x88);
		d = _mm512_shuffle_f32x4(u[8 + s], u[12 + s], 0xdd);
		m[s] = _mm512_shuffle_f32x4(a, c, 0x88);
		m[8 + s] = _mm512_shuffle_f32x4(a, c, 0xdd);
		m[4 + s] = _mm512_shuffle_f32x4(b, d, 0x88);
		m[12 + s] = _mm512_shuffle_f32x4(b, d, 0xdd);
	}
}

/* out[j*ldo + r + i*rs] = row r + i*rs of w . token j of the quantized
 * activations at xq (stride ldxq bytes), i < RV, j < TT; R*TT <= 16,
 * rows RV .. R - 1 read row RV - 1 again (a group's tail, not stored).
 * Pair (i, j) is lane i*TT + j of the sums and of the one accumulator.
 * The scales: the tokens' side by side at xt (xt[TT b + j]), the rows'
 * at dt (dt[ldd b + i]) or, null (decode, TT 1), 16 blocks' of the 16
 * rows read and transposed (tr16) at a time. */
INLINE void
qblock(int R, int TT, float *out, int ldo, const void *w, const char *xq,
    size_t ldxq, const float *xt, const float *dt, size_t ldd, int n,
    int r, int rs, int RV)
{
	size_t nb = CONV_Q8_0_NB(n), rowb = nb * (4 + 32), b;
	const __m512i c128 = _mm512_set1_epi8((char)0x80);
	const __mmask16 mr = (__mmask16)((1u << RV) - 1);
	const float *wd[MV];
	const int8_t *wq[MV], *xv[QT];
	int32_t iw[16], ix[16];
	float f[16];
	__m512 acc = _mm512_setzero_ps(), d, tb[16];
	__m512i v[16], wv, x[QT], nc[QT], S[2], iwv, ixv;
	int i, j, p, q;

	UNROLL16
	for (i = 0; i < R; i++) {
		wd[i] = (const float *)((const char *)w + (size_t)(r + (i < RV ?
		    i : RV - 1) * rs) * rowb);
		wq[i] = (const int8_t *)(wd[i] + nb);
	}
	UNROLL16
	for (j = 0; j < TT; j++)
		xv[j] = (const int8_t *)((const float *)(xq + (size_t)j * ldxq) +
		    nb);
	for (q = 0; q < 16; q++) {
		iw[q] = q / TT < R ? q / TT : 0;
		ix[q] = q % TT;
	}
	iwv = _mm512_loadu_si512(iw);
	ixv = _mm512_loadu_si512(ix);
	UNROLL16
	for (q = R * TT; q < 16; q++)
		v[q] = _mm512_setzero_si512();
	for (b = 0; b < nb; b += 2) {
		if (!dt && b % 16 == 0) {
			UNROLL16
			for (i = 0; i < 16; i++)
				tb[i] = _mm512_maskz_loadu_ps(nb - b >= 16 ? 0xffff :
				    (__mmask16)((1u << (nb - b)) - 1), wd[i] + b);
			tr16(tb);
		}
		/* the weights made unsigned, q + 128: minus 128 times the
		 * sums of X, a token's, starts its sums */
		UNROLL16
		for (j = 0; j < TT; j++) {
			x[j] = _mm512_loadu_si512(xv[j] + 32 * b);
			nc[j] = _mm512_sub_epi32(_mm512_setzero_si512(),
			    _mm512_dpbusd_epi32(_mm512_setzero_si512(), c128,
			    x[j]));
		}
		UNROLL16
		for (i = 0; i < R; i++) {
			if (TT == 1)	/* decode: MV streams, each ahead */
				_mm_prefetch((const char *)((uintptr_t)(wq[i] +
				    32 * b) + QPF), _MM_HINT_T0);
			wv = _mm512_xor_si512(c128, _mm512_loadu_si512(wq[i] +
			    32 * b));
			UNROLL16
			for (j = 0; j < TT; j++)
				v[i * TT + j] = _mm512_dpbusd_epi32(nc[j], wv, x[j]);
		}
		sum16x2(v, &S[0], &S[1]);
		UNROLL16
		for (p = 0; p < 2; p++) {
			if (!dt)
				d = _mm512_mul_ps(tb[(b + p) % 16], _mm512_set1_ps(
				    xt[b + p]));
			else if (TT == 1)
				d = _mm512_mul_ps(_mm512_maskz_loadu_ps(mr, dt +
				    ldd * (b + p)), _mm512_set1_ps(xt[b + p]));
			else
				d = _mm512_mul_ps(_mm512_permutexvar_ps(iwv,
				    _mm512_maskz_loadu_ps(mr, dt + ldd * (b + p))),
				    _mm512_permutexvar_ps(ixv, _mm512_maskz_loadu_ps(
				    (__mmask16)((1u << TT) - 1), xt + TT * (b + p))));
			acc = _mm512_fmadd_ps(_mm512_cvtepi32_ps(S[p]), d, acc);
		}
	}
	_mm512_storeu_ps(f, acc);
	UNROLL16
	for (i = 0; i < R; i++)
		UNROLL16
		for (j = 0; j < TT; j++)
			if (i < RV)
				out[(size_t)j * ldo + r + i * rs] = f[i * TT + j];
}

void
kern_i8_avx512_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	char xq[CONV_Q8_0_NB(CONV_Q8_0_MAXN) * (4 + 32)]
	    __attribute__((aligned(64)));
	const float *xt = (const float *)xq;
	int h = (r1 - r0) / MV, r;

	if (n > CONV_Q8_0_MAXN)
		return;
	quant(xq, x, n);
	for (r = r0; r < r0 + h; r++)
		qblock(MV, 1, out, 0, w, xq, 0, xt, 0, 0, n, r, h, MV);
	if (r0 + MV * h < r1)
		qblock(MV, 1, out, 0, w, xq, 0, xt, 0, 0, n, r0 + MV * h, 1,
		    r1 - r0 - MV * h);
}

/* Rows [r0, r1) against TT tokens, R = 16 / TT rows a block, the
 * tokens' scales side by side once for all of them; dt: the rows' from
 * r0 on, side by side (ldd a block). */
INLINE void
qrows(int TT, float *out, int ldo, const void *w, const char *xq,
    size_t ld, const float *dt, size_t ldd, int n, int r0, int r1)
{
	float xt[CONV_Q8_0_NB(CONV_Q8_0_MAXN) * QT];
	size_t nb = CONV_Q8_0_NB(n), b;
	int r, j, R = 16 / TT;

	for (j = 0; j < TT; j++)
		for (b = 0; b < nb; b++)
			xt[TT * b + j] = ((const float *)(xq + (size_t)j *
			    ld))[b];
	for (r = r0; r + R <= r1; r += R)
		qblock(R, TT, out, ldo, w, xq, ld, xt, dt + (r - r0), ldd, n,
		    r, 1, R);
	if (r < r1)
		qblock(R, TT, out, ldo, w, xq, ld, xt, dt + (r - r0), ldd, n,
		    r, 1, r1 - r);
}

/* All T tokens quantized once (kern_xroom), row panels that fit in L2
 * (and whose scales, side by side, fit in DTBUF), QT tokens at a time:
 * the weights come from memory once a call. */
void
kern_i8_avx512_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	char stk[XQBUF] __attribute__((aligned(64)));
	float dt[DTBUF];
	size_t ld = conv_q8_0_rowsize(n), nb = CONV_Q8_0_NB(n), rowb = nb *
	    (4 + 32), b;
	int P = (int)((kern_l2 / 2) / ld), TB;
	int t0, t1, p0, p1, j, r;
	const char *xj;
	const float *wd;
	char *xq;
	float *o;

	if (n > CONV_Q8_0_MAXN)
		return;
	xq = kern_xroom(stk, sizeof(stk), ld, T, &TB);
	if (P > (int)(DTBUF / nb))
		P = (int)(DTBUF / nb);
	P = P < 16 ? 16 : P / 16 * 16;
	if (TB < T)
		TB = TB < QT ? TB : TB / QT * QT;
	for (t0 = 0; t0 < T; t0 = t1) {
		t1 = T - t0 > TB ? t0 + TB : T;
		for (j = t0; j < t1; j++)
			quant(xq + (size_t)(j - t0) * ld, x + (size_t)j * ldx, n);
		for (p0 = r0; p0 < r1; p0 = p1) {
			p1 = r1 - p0 > P ? p0 + P : r1;
			for (r = p0; r < p1; r++) {
				wd = (const float *)((const char *)w + (size_t)r *
				    rowb);
				for (b = 0; b < nb; b++)
					dt[(size_t)(p1 - p0) * b + (r - p0)] = wd[b];
			}
			for (j = t0; j < t1; j += QT) {
				xj = xq + (size_t)(j - t0) * ld;
				o = out + (size_t)j * ldo;
				switch (t1 - j < QT ? t1 - j : QT) {	/* QT 4 */
				case 1: qrows(1, o, ldo, w, xj, ld, dt, p1 - p0, n,
				    p0, p1);
					break;
				case 2: qrows(2, o, ldo, w, xj, ld, dt, p1 - p0, n,
				    p0, p1);
					break;
				case 3: qrows(3, o, ldo, w, xj, ld, dt, p1 - p0, n,
				    p0, p1);
					break;
				default: qrows(QT, o, ldo, w, xj, ld, dt, p1 - p0,
				    n, p0, p1);
				}
			}
		}
	}
	if (xq != stk)
		free(xq);
}

#endif
