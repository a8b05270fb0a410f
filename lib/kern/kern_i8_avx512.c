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
 * (sum16x2) to two registers of 16 sums, one a block.  Prefill: a row
 * panel is unpacked once a row a lane (gunpack), and 8 vpdpbusd of it
 * against a token's 4 bytes broadcast make 16 rows' S with nothing to
 * reduce (ggemm). */
#if defined(__x86_64__)

#include <immintrin.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kern/kern.h"
#include "kern/kern_avx512_int.h"

#define MV 16	/* rows per register block (decode) */
#define XQBUF (64 * 1024)	/* bytes of quantized activations (matmul) */
#define GFEW 4	/* fewer tokens than this: matmul runs decode's kernel */
#define QPF 2048	/* bytes a decode row is prefetched ahead */
/* tr16's loops over its 16 registers, whole (UNROLL stops at 8 on gcc) */
#if defined(__clang__)
#define UNROLL16 _Pragma("unroll")
#else
#define UNROLL16 _Pragma("GCC unroll 16")
#endif

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

/* ---- prefill: panels unpacked a row a lane ----
 *
 * As kern_ggml_i8_avx512.c's blocks of 32: a panel's rows unpacked once
 * a chunk of tokens in groups of 16 (gunpack), for each block 8
 * registers, register k the 4 bytes of elements 4k .. 4k + 3 of each row
 * (q + 128), then the 16 rows' scales; vpdpbusd of register k against a
 * token's 4 bytes broadcast adds 16 rows' products at once, and 8 make
 * each row's whole S: no lanes to reduce, and one conversion (GMAGIC),
 * multiply and FMA a block for 16 (row, token) pairs. */
#define GB (8 * 64 + 64)	/* bytes of a group's block, unpacked */
#define GT 8			/* tokens per register block */
#define GPBUF (320 * 1024)	/* bytes of a panel: 16 rows of the longest */
/* The bits of the float 1.5 * 2^23, where each sum S starts: (|S| and
 * every partial sum < 2^21) it ends as the bits of the float 1.5 * 2^23
 * + S, exactly, and that float minus 1.5 * 2^23 (on the add ports) is
 * S's float as vcvtdq2ps makes it. */
#define GMAGIC 0x4b400000
/* A token prepared (gprep): its X (nb blocks), dx, each block's sum of X */
#define GXLD(nb) (((size_t)(nb) * (32 + 8) + 63) / 64 * 64)

/* Lane L of a group's registers is row grow(L) of its 16 (gunpack's
 * transposes leave them so). */
INLINE int
grow(int L)
{
	return 8 * (L / 8) + 2 * (L % 4) + (L / 4) % 2;
}

/* Rows [r0, r1) of w unpacked at u, groups of 16 (the last filled out
 * with zero rows): the 16 rows' 32 bytes of a block transposed to 8
 * registers, their scales 16 blocks at a time (tr16, where one at a
 * time took a third of the unpacking). */
static void
gunpack(uint8_t *u, const void *w, int n, int r0, int r1)
{
	size_t nb = CONV_Q8_0_NB(n), rowb = nb * (4 + 32), b;
	const __m256i c128 = _mm256_set1_epi8((char)0x80);
	static const float zero[16];
	__m512i T[8], U[4], W[8];
	__m512 sc[16];
	const float *wd[16];
	const int8_t *wq[16];
	int g, i, m, k;

	for (g = r0; g < r1; g += 16, u += nb * GB) {
		for (i = 0; i < 16; i++) {
			wd[i] = g + i < r1 ? (const float *)((const char *)w +
			    (size_t)(g + i) * rowb) : 0;
			wq[i] = wd[i] ? (const int8_t *)(wd[i] + nb) : 0;
		}
		for (b = 0; b < nb; b++) {
			uint8_t *o = u + b * GB;

			if (b % 16 == 0) {
				/* lane L of block b's scales is row grow(L) */
				for (i = 0; i < 16; i++)
					sc[i] = wd[grow(i)] ? _mm512_maskz_loadu_ps(
					    nb - b >= 16 ? 0xffff : (__mmask16)((1u <<
					    (nb - b)) - 1), wd[grow(i)] + b) :
					    _mm512_loadu_ps(zero);
				tr16(sc);
			}
			_mm512_store_ps(o + 8 * 64, sc[b % 16]);
			for (m = 0; m < 8; m++)
				T[m] = _mm512_inserti64x4(_mm512_castsi256_si512(
				    wq[2 * m] ? _mm256_xor_si256(c128,
				    _mm256_loadu_si256((const __m256i *)(wq[2 * m] +
				    32 * b))) : _mm256_setzero_si256()), wq[2 * m +
				    1] ? _mm256_xor_si256(c128, _mm256_loadu_si256(
				    (const __m256i *)(wq[2 * m + 1] + 32 * b))) :
				    _mm256_setzero_si256(), 1);
			for (m = 0; m < 2; m++) {
				__m512i *t4 = T + 4 * m;

				U[0] = _mm512_unpacklo_epi32(t4[0], t4[1]);
				U[1] = _mm512_unpackhi_epi32(t4[0], t4[1]);
				U[2] = _mm512_unpacklo_epi32(t4[2], t4[3]);
				U[3] = _mm512_unpackhi_epi32(t4[2], t4[3]);
				W[4 * m] = _mm512_unpacklo_epi64(U[0], U[2]);
				W[4 * m + 1] = _mm512_unpackhi_epi64(U[0], U[2]);
				W[4 * m + 2] = _mm512_unpacklo_epi64(U[1], U[3]);
				W[4 * m + 3] = _mm512_unpackhi_epi64(U[1], U[3]);
			}
			for (k = 0; k < 4; k++) {
				_mm512_store_si512(o + 64 * k, _mm512_shuffle_i32x4(
				    W[k], W[4 + k], 0x88));
				_mm512_store_si512(o + 64 * (k + 4),
				    _mm512_shuffle_i32x4(W[k], W[4 + k], 0xdd));
			}
		}
	}
}

/* out[j*ldo + r + grow(L)] = row grow(L) of the group unpacked at u .
 * token j prepared at xq (ld bytes apart), j < TT, grow(L) < RV. */
INLINE void
ggemm(int TT, float *out, int ldo, const uint8_t *u, const int8_t *xq,
    size_t ld, int n, int r, int RV)
{
	size_t nb = CONV_Q8_0_NB(n), b;
	const __m512 magic = _mm512_castsi512_ps(_mm512_set1_epi32(GMAGIC));
	const int8_t *xv[GT];
	const float *xd[GT];
	const int32_t *xs[GT];
	__m512 acc[GT], dw;
	__m512i I[GT], wk;
	float f[16];
	int j, k, L;

	UNROLL
	for (j = 0; j < TT; j++) {
		xv[j] = xq + (size_t)j * ld;
		xd[j] = (const float *)(xv[j] + 32 * nb);
		xs[j] = (const int32_t *)(xd[j] + nb);
		acc[j] = _mm512_setzero_ps();
	}
	for (b = 0; b < nb; b++, u += GB) {
		UNROLL
		for (j = 0; j < TT; j++)
			I[j] = _mm512_set1_epi32(GMAGIC - 128 * xs[j][b]);
		UNROLL
		for (k = 0; k < 8; k++) {
			wk = _mm512_load_si512(u + 64 * k);
			UNROLL
			for (j = 0; j < TT; j++) {
				int32_t x4;

				memcpy(&x4, xv[j] + 32 * b + 4 * k, 4);
				I[j] = _mm512_dpbusd_epi32(I[j], wk,
				    _mm512_set1_epi32(x4));
			}
		}
		dw = _mm512_load_ps(u + 8 * 64);
		UNROLL
		for (j = 0; j < TT; j++)
			acc[j] = _mm512_fmadd_ps(_mm512_sub_ps(
			    _mm512_castsi512_ps(I[j]), magic), _mm512_mul_ps(dw,
			    _mm512_set1_ps(xd[j][b])), acc[j]);
	}
	UNROLL
	for (j = 0; j < TT; j++) {
		_mm512_storeu_ps(f, acc[j]);
		for (L = 0; L < 16; L++)
			if (grow(L) < RV)
				out[(size_t)j * ldo + r + grow(L)] = f[L];
	}
}

/* Rows [p0, p1) (unpacked at u) against TT tokens prepared at xq. */
INLINE void
grows(int TT, float *out, int ldo, const uint8_t *u, const int8_t *xq,
    size_t ld, int n, int p0, int p1)
{
	int r;

	for (r = p0; r < p1; r += 16, u += CONV_Q8_0_NB(n) * GB)
		ggemm(TT, out, ldo, u, xq, ld, n, r, p1 - r < 16 ? p1 - r : 16);
}

/* Token x quantized (quant) into ggemm's layout at q. */
static void
gprep(int8_t *q, const float *x, int n)
{
	char t[CONV_Q8_0_NB(CONV_Q8_0_MAXN) * (4 + 32)]
	    __attribute__((aligned(64)));
	size_t nb = CONV_Q8_0_NB(n), b;
	const int8_t *v = (const int8_t *)((const float *)t + nb);
	int32_t *s = (int32_t *)(q + 36 * nb);

	quant(t, x, n);
	memcpy(q, v, 32 * nb);
	memcpy(q + 32 * nb, t, 4 * nb);
	for (b = 0; b < nb; b++) {
		__m256i a = _mm256_sad_epu8(_mm256_xor_si256(_mm256_loadu_si256(
		    (const __m256i *)(v + 32 * b)), _mm256_set1_epi8((char)0x80)),
		    _mm256_setzero_si256());
		__m128i h = _mm_add_epi64(_mm256_castsi256_si128(a),
		    _mm256_extracti128_si256(a, 1));

		s[b] = (int32_t)(_mm_cvtsi128_si64(h) + _mm_extract_epi64(h, 1)) -
		    32 * 128;
	}
}

/* All T tokens prepared once (kern_xroom), row panels that fit in GPBUF
 * unpacked once (gunpack), GT tokens at a time: the weights come from
 * memory once a call.  A few tokens take decode's kernel each (the
 * unpacking would cost more than it saves). */
void
kern_i8_avx512_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	char stk[XQBUF] __attribute__((aligned(64)));
	uint8_t u[GPBUF] __attribute__((aligned(64)));
	size_t nb = CONV_Q8_0_NB(n), ld = GXLD(nb);
	int P = (int)(GPBUF / (nb * GB)) * 16, TB;
	int t0, t1, p0, p1, j;
	const int8_t *xj;
	char *xq;
	float *o;

	if (n > CONV_Q8_0_MAXN)
		return;
	if (T < GFEW) {
		for (j = 0; j < T; j++)
			kern_i8_avx512_matvec(out + (size_t)j * ldo, w, x +
			    (size_t)j * ldx, n, r0, r1);
		return;
	}
	xq = kern_xroom(stk, sizeof(stk), ld, T, &TB);
	for (t0 = 0; t0 < T; t0 = t1) {
		t1 = T - t0 > TB ? t0 + TB : T;
		for (j = t0; j < t1; j++)
			gprep((int8_t *)xq + (size_t)(j - t0) * ld, x + (size_t)j *
			    ldx, n);
		for (p0 = r0; p0 < r1; p0 = p1) {
			p1 = r1 - p0 > P ? p0 + P : r1;
			gunpack(u, w, n, p0, p1);
			for (j = t0; j < t1; j += GT) {
				xj = (const int8_t *)xq + (size_t)(j - t0) * ld;
				o = out + (size_t)j * ldo;
				switch (t1 - j < GT ? t1 - j : GT) {	/* GT 8 */
				case 1: grows(1, o, ldo, u, xj, ld, n, p0, p1); break;
				case 2: grows(2, o, ldo, u, xj, ld, n, p0, p1); break;
				case 3: grows(3, o, ldo, u, xj, ld, n, p0, p1); break;
				case 4: grows(4, o, ldo, u, xj, ld, n, p0, p1); break;
				case 5: grows(5, o, ldo, u, xj, ld, n, p0, p1); break;
				case 6: grows(6, o, ldo, u, xj, ld, n, p0, p1); break;
				case 7: grows(7, o, ldo, u, xj, ld, n, p0, p1); break;
				default: grows(GT, o, ldo, u, xj, ld, n, p0, p1);
				}
			}
		}
	}
	if (xq != stk)
		free(xq);
}

#endif
