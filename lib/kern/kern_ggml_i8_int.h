/* kern_ggml_i8_int.h: the 256-bit kernels of --int8-act on ggml's
 * types (kern.h), included by kern_ggml_i8_avx2.c (vpmaddubsw, vpmaddwd)
 * and kern_ggml_i8_vnni_avx2.c (AVX-VNNI's vpdpbusd and vpdpwssd), which
 * set GI8_VNNI first (0, 1), and by kern_ggml_i8_avx512.c (2: AVX512-
 * VNNI's encodings of the two on 256 bits; it takes the activations'
 * code and has its own 512-bit kernels).  Every integer they make is exact
 * (no byte pair reaches 2^15: unsigned weights are at most 63, and
 * Q8_0's signed ones take the activations' signs against |X| <= 127),
 * so all give the same integers, and the float operations are the
 * portable file's, in its order: the same bits (test_i8 checks them
 * against the portable table).  One body for the instruction sets
 * rather than copies, as zlib-ng's templates: a copy would have to be
 * kept in the same bits by hand. */
#ifndef KERN_GGML_I8_INT_H
#define KERN_GGML_I8_INT_H

#include <immintrin.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kern/kern.h"
#include "kern/kern_avx2_int.h"
#include "kern/fetchspan.h"

#define GR 2	/* rows per register block (matmul) */
#define GT 2	/* tokens per register block */
/* Decode reads a share's rows as G32V (blocks of 32) or GVK (superblocks)
 * parts side by side, each from its start to its end: sequential streams
 * far apart, which the hardware prefetcher keeps up with, where rows
 * next to each other are streams a row apart in the same pages, which it
 * does not (bench/NOTES.md, "Decode: how the rows are read"); each
 * stream is also prefetched GPF bytes ahead. */
#define GVK 2
#define GVMAX 4
#define G32V 8	/* gblock32's decode: 8 chains at once (kern.h) */
#define G32R 4	/* rows of gblock32's register block (matmul) */
#define G32MAX 8
#define GPF 2048	/* bytes a decode stream is prefetched ahead */
#define GXBUF (256 * 1024)	/* bytes of quantized activations (matmul) */
/* Bytes of a prefill chunk's quantized activations at most: 128 tokens
 * of 2048 in one chunk, so that the weights are unpacked (read from
 * memory) once; kern_xroom's heap beyond GXBUF */
#define GXCAP (512 * 1024)
/* Bytes of one token's prepared activations, rows of at most
 * KERN_GI8_MAXN, either layout (the superblocks' take more a weight) */
#define GXVEC (KERN_GI8_MAXN / 256 * sizeof(struct kern_q8k) > \
	CONV_Q8_0_NB(KERN_GI8_MAXN) * (4 + 32) ? KERN_GI8_MAXN / 256 * \
	sizeof(struct kern_q8k) : CONV_Q8_0_NB(KERN_GI8_MAXN) * (4 + 32))

/* acc + the sums of the four products of unsigned bytes u and signed
 * s, per int32 lane. */
INLINE __m256i
dpbusd(__m256i acc, __m256i u, __m256i s)
{
#if GI8_VNNI == 2
	return _mm256_dpbusd_epi32(acc, u, s);
#elif GI8_VNNI
	return _mm256_dpbusd_avx_epi32(acc, u, s);
#else
	return _mm256_add_epi32(acc, _mm256_madd_epi16(_mm256_maddubs_epi16(
	    u, s), _mm256_set1_epi16(1)));
#endif
}

/* acc + the sums of the two products of int16 a and b, per int32 lane. */
INLINE __m256i
dpwssd(__m256i acc, __m256i a, __m256i b)
{
#if GI8_VNNI == 2
	return _mm256_dpwssd_epi32(acc, a, b);
#elif GI8_VNNI
	return _mm256_dpwssd_avx_epi32(acc, a, b);
#else
	return _mm256_add_epi32(acc, _mm256_madd_epi16(a, b));
#endif
}

INLINE float
gf16(const uint8_t *p)
{
	uint16_t h;

	memcpy(&h, p, 2);
	return _cvtsh_ss(h);
}

/* ---- the activations, vector (the portable bits) ---- */

INLINE float
hmax(__m256 v)
{
	__m128 b = _mm_max_ps(_mm256_castps256_ps128(v),
	    _mm256_extractf128_ps(v, 1));

	b = _mm_max_ps(b, _mm_movehl_ps(b, b));
	b = _mm_max_ss(b, _mm_movehdup_ps(b));
	return _mm_cvtss_f32(b);
}

/* The largest |x| of x[0..m), m <= 32 * k, masked loads as 8s; -1 if
 * one is not finite (the scalar code then takes the block). */
INLINE float
amax_v(const float *x, int m)
{
	const __m256 big = _mm256_set1_ps(3.4028234663852886e38f);
	const __m256 sgn = _mm256_set1_ps(-0.0f);
	__m256 mx = _mm256_setzero_ps(), a;
	int i, bad = 0;

	for (i = 0; i < m; i += 8) {
		a = _mm256_andnot_ps(sgn, m - i >= 8 ? _mm256_loadu_ps(x + i) :
		    xloadm(x + i, m - i));
		bad |= _mm256_movemask_ps(_mm256_cmp_ps(a, big, _CMP_NLE_UQ));
		mx = _mm256_max_ps(mx, a);
	}
	if (bad)
		return -1;
	return hmax(mx);
}

/* X = nearest-even(x[i] * id) for 32 of them (m valid, zero past),
 * clamped to [-127, 127], into q. */
INLINE void
round32(int8_t *q, const float *x, int m, float id)
{
	const __m256 s = _mm256_set1_ps(id);
	const __m256i lo = _mm256_set1_epi32(-127), hi = _mm256_set1_epi32(127);
	__m256i v[4];
	int k;

	for (k = 0; k < 4; k++)
		v[k] = _mm256_min_epi32(hi, _mm256_max_epi32(lo,
		    _mm256_cvtps_epi32(_mm256_mul_ps(m - 8 * k >= 8 ?
		    _mm256_loadu_ps(x + 8 * k) : m > 8 * k ? xloadm(x + 8 * k,
		    m - 8 * k) : _mm256_setzero_ps(), s))));
	/* packs interleave the 128-bit halves: put them back in order */
	_mm256_storeu_si256((__m256i *)q, _mm256_permutevar8x32_epi32(
	    _mm256_packs_epi16(_mm256_packs_epi32(v[0], v[1]),
	    _mm256_packs_epi32(v[2], v[3])), _mm256_setr_epi32(0, 4, 1, 5, 2, 6,
	    3, 7)));
}

/* conv_q8_0_quant's bytes, a block of 32 at once where it is finite. */
static void
prep32(void *dst, const float *x, int n)
{
	size_t nb = CONV_Q8_0_NB(n), b;
	float *d = dst, amax;
	int8_t *q = (int8_t *)(d + nb);
	int m;

	for (b = 0; b < nb; b++) {
		m = n - 32 * (int)b;
		m = m < 0 ? 0 : m > 32 ? 32 : m;
		if ((amax = amax_v(x + 32 * b, m)) < 0) {
			float t[64], o[2 + 16];

			memset(t, 0, sizeof t);
			memcpy(t, x + 32 * b, (size_t)m * sizeof *t);
			conv_q8_0_quant(o, t, 64);	/* 2 blocks: this one */
			d[b] = o[0];
			memcpy(q + 32 * b, o + 2, 32);
			continue;
		}
		d[b] = amax / 127.0f;
		round32(q + 32 * b, x + 32 * b, m, d[b] > 0 ? 1.0f / d[b] :
		    0.0f);
	}
}

/* kern_q8k_prep's superblocks, vector where finite. */
static void
prepk(struct kern_q8k *y, const float *x, int n)
{
	int nb = (n + 255) / 256, b, m, k;
	float amax, id;
	__m256i s;

	for (b = 0; b < nb; b++, x += 256) {
		m = n - 256 * b < 256 ? n - 256 * b : 256;
		if ((amax = amax_v(x, m)) < 0) {
			kern_q8k_prep(y + b, x, m);
			continue;
		}
		y[b].d = amax / 127.0f;
		id = y[b].d > 0 ? 1.0f / y[b].d : 0.0f;
		for (k = 0; k < 8; k++)
			round32(y[b].q + 32 * k, x + 32 * k, m - 32 * k, id);
		for (k = 0; k < 8; k++) {
			/* the sums of each 16 bytes: pairs, then fours, ... */
			s = _mm256_madd_epi16(_mm256_maddubs_epi16(
			    _mm256_set1_epi8(1), _mm256_loadu_si256(
			    (const __m256i *)(y[b].q + 32 * k))),
			    _mm256_set1_epi16(1));
			s = _mm256_hadd_epi32(s, s);
			s = _mm256_hadd_epi32(s, s);
			y[b].bs[2 * k] = (int16_t)_mm256_extract_epi32(s, 0);
			y[b].bs[2 * k + 1] = (int16_t)_mm256_extract_epi32(s, 4);
		}
	}
}

/* ---- blocks of 32 ---- */

/* Block p's 32 weights (type t) in element order: Q8_0 signed, Q4_0
 * and Q5_0 as the unsigned q (0..15, 0..31); W_Q8_0I's p its bytes
 * (gwb). */
INLINE __m256i
wblk(enum wtype t, const uint8_t *p)
{
	__m256i v, h;
	uint32_t qh;

	if (t == W_Q8_0I)	/* gwb's pointer: the bytes themselves */
		return _mm256_loadu_si256((const __m256i *)p);
	if (t == W_GQ8_0I)
		return _mm256_loadu_si256((const __m256i *)(p + 2));
	/* the 16 bytes in both halves, the high half's shifted down a
	 * nibble (the bits a byte takes from the next one masked off) */
	v = _mm256_and_si256(_mm256_srlv_epi64(_mm256_broadcastsi128_si256(
	    _mm_loadu_si128((const __m128i *)(p + (t == W_Q4_0I ? 2 : 6)))),
	    _mm256_set_epi64x(4, 4, 0, 0)), _mm256_set1_epi8(15));
	if (t == W_Q4_0I)
		return v;
	/* Q5_0's fifth bits: byte i of v gets bit i of qh as 16 */
	memcpy(&qh, p + 2, 4);
	h = _mm256_shuffle_epi8(_mm256_set1_epi32((int)qh), _mm256_set_epi64x(
	    0x0303030303030303, 0x0202020202020202, 0x0101010101010101, 0));
	h = _mm256_cmpeq_epi8(_mm256_and_si256(h, _mm256_set1_epi64x(
	    (long long)0x8040201008040201ull)), _mm256_set1_epi64x(
	    (long long)0x8040201008040201ull));
	return _mm256_or_si256(v, _mm256_and_si256(h, _mm256_set1_epi8(16)));
}

/* Bring the line GPF bytes past p into the caches (an integer sum: the
 * line may lie past the end of the matrix, where a prefetch is harmless
 * but a pointer would not be). */
INLINE void
gahead(const void *p)
{
	_mm_prefetch((const char *)((uintptr_t)p + GPF), _MM_HINT_T0);
}

/* Token j's scales xd[j] and blocks xv[j] (j < TT) of the prepared
 * tokens at xq, ldxq bytes apart, nx blocks each. */
INLINE void
gxplaces(int TT, const float **xd, const int8_t **xv, const char *xq,
    size_t ldxq, size_t nx)
{
	int j;

	UNROLL
	for (j = 0; j < TT; j++) {
		xd[j] = (const float *)(xq + (size_t)j * ldxq);
		xv[j] = (const int8_t *)(xd[j] + nx);
	}
}

/* Bytes of a block of type t, known where the code is compiled (wtypes
 * is not), so that strides and prefetch loops are constants. */
#define GBYTES32(t) ((t) == W_GQ8_0I ? 34 : (t) == W_Q4_0I ? 18 : 22)
#define GBYTESK(t) ((t) == W_Q4_KI ? 144 : 210)

/* Minus the offset of type t's weights times the sums of X of block xb,
 * per lane (Q8_0 has none). */
INLINE __m256i
gv32nc(enum wtype t, const int8_t *xb)
{
	if (t == W_GQ8_0I || t == W_Q8_0I)
		return _mm256_setzero_si256();
	return _mm256_sub_epi32(_mm256_setzero_si256(), dpbusd(
	    _mm256_setzero_si256(), _mm256_set1_epi8(t == W_Q4_0I ? 8 : 16),
	    _mm256_loadu_si256((const __m256i *)xb)));
}

/* Block b of row w (type t; nx blocks of conv.h's rows for W_Q8_0I:
 * their scales, then their bytes) as wblk takes it. */
INLINE const uint8_t *
gwb(enum wtype t, const uint8_t *w, int b, size_t nx)
{
	if (t == W_Q8_0I)
		return w + 4 * nx + 32 * (size_t)b;
	return w + (size_t)b * GBYTES32(t);
}

/* P[i*TT + j]: block b's 8 int32 lanes of row wr[i] (type t) against
 * token xv[j], i < R, j < TT; their sum is the block's exact S. */
INLINE void
gints(enum wtype t, int R, int TT, __m256i *P, const uint8_t *const *wr,
    const int8_t *const *xv, int b, size_t nx)
{
	const int sgn = t == W_GQ8_0I || t == W_Q8_0I;
	__m256i wv[G32MAX], aw[G32MAX], x, nc;
	int i, j;

	UNROLL
	for (i = 0; i < R; i++) {
		wv[i] = wblk(t, gwb(t, wr[i], b, nx));
		/* Q8_0: |q| against X given q's sign, as X is never -128
		 * where a file's q may be */
		if (sgn)
			aw[i] = _mm256_abs_epi8(wv[i]);
	}
	UNROLL
	for (j = 0; j < TT; j++) {
		x = _mm256_loadu_si256((const __m256i *)(xv[j] + 32 * b));
		nc = gv32nc(t, xv[j] + 32 * b);
		UNROLL
		for (i = 0; i < R; i++)
			P[i * TT + j] = sgn ? dpbusd(_mm256_setzero_si256(),
			    aw[i], _mm256_sign_epi8(x, wv[i])) :
			    dpbusd(nc, wv[i], x);
	}
}

INLINE int
gh16(const uint8_t *p)
{
	uint16_t h;

	memcpy(&h, p, 2);
	return h;
}

/* The fp16 scales of the 8 blocks at p, bytes apart (vpinsrw's lane an
 * immediate, hence no loop). */
INLINE __m128i
gscales8(const uint8_t *p, int bytes)
{
	__m128i s = _mm_cvtsi32_si128(gh16(p));

	s = _mm_insert_epi16(s, gh16(p + bytes), 1);
	s = _mm_insert_epi16(s, gh16(p + 2 * bytes), 2);
	s = _mm_insert_epi16(s, gh16(p + 3 * bytes), 3);
	s = _mm_insert_epi16(s, gh16(p + 4 * bytes), 4);
	s = _mm_insert_epi16(s, gh16(p + 5 * bytes), 5);
	s = _mm_insert_epi16(s, gh16(p + 6 * bytes), 6);
	return _mm_insert_epi16(s, gh16(p + 7 * bytes), 7);
}

/* The scales of blocks b .. b + 7 of row w (type t), and of block b. */
INLINE __m256
gsc8(enum wtype t, const uint8_t *w, int b)
{
	if (t == W_Q8_0I)
		return _mm256_loadu_ps((const float *)w + b);
	return _mm256_cvtph_ps(gscales8(w + (size_t)b * GBYTES32(t),
	    GBYTES32(t)));
}

INLINE float
gsc1(enum wtype t, const uint8_t *w, int b)
{
	float d;

	if (t == W_Q8_0I) {
		memcpy(&d, w + 4 * (size_t)b, 4);
		return d;
	}
	return gf16(w + (size_t)b * GBYTES32(t));
}

/* out[j*ldo + r + i*rs] = row r + i*rs of w (type t, rows of rb bytes) .
 * token j of the blocks at xq (ldxq bytes apart), i < R, j < TT, R TT
 * <= 8 chains in the lanes of one register; pf: prefetch each row GPF
 * bytes ahead (decode).  8 blocks at a time: each chain's 8 scale
 * products made at once (vcvtph2ps, vmulps) and turned into the 8
 * chains' of each block (dblocks), a block's int32 lanes summed for
 * all chains by one hadd tree (chain8).  Each chain is a serial FMA a
 * block (kern.h), so the register block's chains are what runs in
 * parallel: 8. */
INLINE void
gblock32x(enum wtype t, int R, int TT, float *out, int ldo,
    const uint8_t *w, size_t rb, const float *const *xd,
    const int8_t *const *xv, int n, int r, int rs, int pf)
{
	size_t nx = CONV_Q8_0_NB(n);
	const int wbytes = t == W_Q8_0I ? 32 : GBYTES32(t);
	int nb = t == W_Q8_0I ? (int)nx : (n + 31) / 32, b, c, i, j;
	const uint8_t *wr[G32MAX];
	__m256 ds[8], d[8], acc = _mm256_setzero_ps();
	__m256i P[8];
	float o[8] __attribute__((aligned(32))), dd[8];

	UNROLL
	for (i = 0; i < R; i++)
		wr[i] = w + (size_t)(r + i * rs) * rb;
	UNROLL
	for (c = 0; c < 8; c++)
		ds[c] = _mm256_setzero_ps(), P[c] = _mm256_setzero_si256(),
		    dd[c] = 0;
	for (b = 0; b + 8 <= nb; b += 8) {
		UNROLL
		for (i = 0; i < R; i++) {
			if (pf)
				UNROLL
				for (c = 0; c < 8 * wbytes; c += 64)
					gahead(gwb(t, wr[i], b, nx) + c);
			UNROLL
			for (j = 0; j < TT; j++)
				ds[i * TT + j] = _mm256_mul_ps(gsc8(t, wr[i], b),
				    _mm256_loadu_ps(xd[j] + b));
		}
		dblocks(d, ds);
		UNROLL
		for (c = 0; c < 8; c++) {
			gints(t, R, TT, P, wr, xv, b + c, nx);
			acc = chain8(acc, P, d[c]);
		}
	}
	for (; b < nb; b++) {	/* the rest a block at a time */
		gints(t, R, TT, P, wr, xv, b, nx);
		UNROLL
		for (i = 0; i < R; i++)
			UNROLL
			for (j = 0; j < TT; j++)
				dd[i * TT + j] = gsc1(t, wr[i], b) * xd[j][b];
		acc = chain8(acc, P, _mm256_loadu_ps(dd));
	}
	_mm256_store_ps(o, acc);
	UNROLL
	for (i = 0; i < R; i++)
		UNROLL
		for (j = 0; j < TT; j++)
			out[(size_t)j * ldo + r + i * rs] = o[i * TT + j];
}

/* gblock32x on TT tokens prepared at xq, ldxq bytes apart. */
INLINE void
gblock32(enum wtype t, int R, int TT, float *out, int ldo, const uint8_t *w,
    size_t rb, const char *xq, size_t ldxq, int n, int r, int rs, int pf)
{
	const float *xd[GT];
	const int8_t *xv[GT];

	gxplaces(TT, xd, xv, xq, ldxq, CONV_Q8_0_NB(n));
	gblock32x(t, R, TT, out, ldo, w, rb, xd, xv, n, r, rs, pf);
}

/* Decode of the blocks of 32: rows [r0, r1) of w (type t) against one
 * token's scales xd and blocks xv, in G32V parts read side by side. */
INLINE void
g32rows(enum wtype t, float *out, const void *w, const float *xd,
    const int8_t *xv, int n, int r0, int r1)
{
	size_t rb = wtype_rowsize(t, n);
	int h = (r1 - r0) / G32V, r;

	for (r = r0; r < r0 + h; r++)
		gblock32x(t, G32V, 1, out, 0, w, rb, &xd, &xv, n, r, h, 1);
	for (r = r0 + G32V * h; r < r1; r++)
		gblock32x(t, 1, 1, out, 0, w, rb, &xd, &xv, n, r, 1, 1);
}

/* ---- superblocks of 256 ---- */

/* The 8 scales and 8 mins (6 bits each) of a q4_K block's 12 bytes
 * (k4_scale of the portable file, four at a time) as int16: the scales
 * in both halves of the result, the mins in *mn. */
INLINE __m256i
k4_scales(__m128i *mn, const uint8_t *p)
{
	uint32_t u[3], s[4];
	__m128i v;

	memcpy(u, p, 12);
	s[0] = u[0] & 0x3f3f3f3f;
	s[1] = (u[2] & 0x0f0f0f0f) | (u[0] >> 6 & 0x03030303) << 4;
	s[2] = u[1] & 0x3f3f3f3f;
	s[3] = (u[2] >> 4 & 0x0f0f0f0f) | (u[1] >> 6 & 0x03030303) << 4;
	memcpy(&v, s, 16);
	*mn = _mm_cvtepu8_epi16(_mm_srli_si128(v, 8));
	return _mm256_broadcastsi128_si256(_mm_cvtepu8_epi16(v));
}

/* Scale j of k4_scales' in all 16 lanes (one vpshufb where a broadcast
 * from memory took a store and a load). */
INLINE __m256i
k4_scale16(__m256i sc, int j)
{
	return _mm256_shuffle_epi8(sc, _mm256_set1_epi16((short)((2 * j + 1) <<
	    8 | 2 * j)));
}

/* vpshufb masks that put int16 2k of a 128-bit half in the low half's
 * 8 lanes and int16 2k + 1 in the high half's: Q6_K's scales of a pair
 * of sub-blocks. */
static const uint8_t sc16_pair[4][32] = {
#define P(a) { a, a + 1, a, a + 1, a, a + 1, a, a + 1, a, a + 1, a, a + 1, \
	a, a + 1, a, a + 1, a + 2, a + 3, a + 2, a + 3, a + 2, a + 3, a + 2, \
	a + 3, a + 2, a + 3, a + 2, a + 3, a + 2, a + 3, a + 2, a + 3 }
	P(0), P(4), P(8), P(12)
#undef P
};

/* acc + I d y - M dmin y in the portable file's two fmaf (kern.h's
 * chain), I the sum of I's lanes, M of mv's, and d and dmin the fp16
 * pair at p: the two sums made together (vphaddd) and converted at
 * once, and d y and dmin y one vmulps. */
INLINE float
k4_fma(float acc, __m256i I, __m128i mv, const uint8_t *p, float y)
{
	__m128i s = _mm_add_epi32(_mm256_castsi256_si128(I),
	    _mm256_extracti128_si256(I, 1));
	__m128 f, dy;
	uint32_t u;

	s = _mm_hadd_epi32(s, mv);	/* I's two halves, M's two */
	f = _mm_cvtepi32_ps(_mm_hadd_epi32(s, s));	/* I, M, I, M */
	memcpy(&u, p, 4);
	dy = _mm_mul_ps(_mm_cvtph_ps(_mm_cvtsi32_si128((int)u)),
	    _mm_set1_ps(y));
	acc = fmaf(_mm_cvtss_f32(f), _mm_cvtss_f32(dy), acc);
	return fmaf(-_mm_cvtss_f32(_mm_movehdup_ps(f)), _mm_cvtss_f32(
	    _mm_movehdup_ps(dy)), acc);
}

/* Superblock b's places: yj[j] of token j (j < TT; tokens ldy
 * superblocks apart from y) and p[i] of row r + i*rs (i < R) of w, rows
 * rb bytes apart and superblocks sb; each row's next pfb bytes
 * prefetched GPF ahead (decode; 0: none). */
INLINE void
gkplaces(int R, int TT, const struct kern_q8k **yj, const struct kern_q8k *y,
    size_t ldy, const uint8_t **p, const uint8_t *w, size_t rb, size_t sb,
    int r, int rs, int b, int pfb)
{
	int i, j, k;

	UNROLL
	for (j = 0; j < TT; j++)
		yj[j] = y + (size_t)j * ldy + b;
	UNROLL
	for (i = 0; i < R; i++) {
		p[i] = w + (size_t)(r + i * rs) * rb + (size_t)b * sb;
		UNROLL
		for (k = 0; k < pfb; k += 64)
			gahead(p[i] + k);
	}
}

/* Rows r + i*rs (i < R) of w (type t) . tokens of the superblocks at
 * y (ldy apart), TT of them: kern.h's chain, a superblock at a time;
 * pf as gblock32's. */
INLINE void
gblockk(enum wtype t, int R, int TT, float *out, int ldo, const uint8_t *w,
    size_t rb, const struct kern_q8k *y, size_t ldy, int n, int r, int rs,
    int pf)
{
	int nb = n / 256, b, i, j, k, h;
	const __m256i m4 = _mm256_set1_epi8(15), m30 = _mm256_set1_epi8(0x30);
	const uint8_t *p[GVMAX];
	const struct kern_q8k *yj[GT];
	float acc[GVMAX][GT];
	__m256i I[GVMAX][GT], lo[GVMAX], hi[GVMAX], x;
	__m128i bsp[GT];

	UNROLL
	for (i = 0; i < R; i++)
		UNROLL
		for (j = 0; j < TT; j++)
			acc[i][j] = 0;
	for (b = 0; b < nb; b++) {
		gkplaces(R, TT, yj, y, ldy, p, w, rb, GBYTESK(t), r, rs, b,
		    pf ? GBYTESK(t) : 0);
		UNROLL
		for (i = 0; i < R; i++)
			UNROLL
			for (j = 0; j < TT; j++)
				I[i][j] = _mm256_setzero_si256();
		if (t == W_Q4_KI) {
			__m256i sc[GVMAX];
			__m128i mn[GVMAX];

			UNROLL
			for (j = 0; j < TT; j++)
				bsp[j] = _mm_hadd_epi16(_mm_loadu_si128(
				    (const __m128i *)yj[j]->bs), _mm_loadu_si128(
				    (const __m128i *)(yj[j]->bs + 8)));
			UNROLL
			for (i = 0; i < R; i++)
				sc[i] = k4_scales(mn + i, p[i] + 4);
			UNROLL	/* k4_scale16's masks constants */
			for (k = 0; k < 4; k++) {
				UNROLL
				for (i = 0; i < R; i++) {
					x = _mm256_loadu_si256((const __m256i *)
					    (p[i] + 16 + 32 * k));
					lo[i] = _mm256_and_si256(x, m4);
					hi[i] = _mm256_and_si256(
					    _mm256_srli_epi16(x, 4), m4);
				}
				UNROLL
				for (j = 0; j < TT; j++) {
					__m256i x0 = _mm256_loadu_si256(
					    (const __m256i *)(yj[j]->q + 64 * k));
					__m256i x1 = _mm256_loadu_si256(
					    (const __m256i *)(yj[j]->q + 64 * k +
					    32));

					UNROLL
					for (i = 0; i < R; i++) {
						I[i][j] = dpwssd(I[i][j],
						    _mm256_maddubs_epi16(lo[i],
						    x0), k4_scale16(sc[i],
						    2 * k));
						I[i][j] = dpwssd(I[i][j],
						    _mm256_maddubs_epi16(hi[i],
						    x1), k4_scale16(sc[i],
						    2 * k + 1));
					}
				}
			}
			UNROLL
			for (i = 0; i < R; i++) {
				__m128i m16 = mn[i];

				UNROLL
				for (j = 0; j < TT; j++)
					acc[i][j] = k4_fma(acc[i][j], I[i][j],
					    _mm_madd_epi16(m16, bsp[j]), p[i],
					    yj[j]->d);
			}
			continue;
		}
		/* W_Q6_KI */
		{
			__m256i s16[GVMAX];

			UNROLL
			for (i = 0; i < R; i++) {
				s16[i] = _mm256_cvtepi8_epi16(_mm_loadu_si128(
				    (const __m128i *)(p[i] + 192)));
				/* minus 32 sum_j sc_j (sum of X over j) */
				UNROLL
				for (j = 0; j < TT; j++)
					I[i][j] = _mm256_sub_epi32(I[i][j],
					    _mm256_slli_epi32(_mm256_madd_epi16(
					    s16[i], _mm256_loadu_si256(
					    (const __m256i *)yj[j]->bs)), 5));
			}
			UNROLL
			for (h = 0; h < 2; h++) {
				__m256i l0[GVMAX], l1[GVMAX], qh[GVMAX],
				    q[GVMAX][4], sx[GVMAX];

				UNROLL
				for (i = 0; i < R; i++) {
					/* this half's 8 scales in both halves */
					sx[i] = h ? _mm256_permute4x64_epi64(
					    s16[i], 0xee) :
					    _mm256_permute4x64_epi64(s16[i],
					    0x44);
					l0[i] = _mm256_loadu_si256((const __m256i *)
					    (p[i] + 64 * h));
					l1[i] = _mm256_loadu_si256((const __m256i *)
					    (p[i] + 64 * h + 32));
					qh[i] = _mm256_loadu_si256((const __m256i *)
					    (p[i] + 128 + 32 * h));
					q[i][0] = _mm256_or_si256(_mm256_and_si256(
					    l0[i], m4), _mm256_and_si256(
					    _mm256_slli_epi16(qh[i], 4), m30));
					q[i][1] = _mm256_or_si256(_mm256_and_si256(
					    l1[i], m4), _mm256_and_si256(
					    _mm256_slli_epi16(qh[i], 2), m30));
					q[i][2] = _mm256_or_si256(_mm256_and_si256(
					    _mm256_srli_epi16(l0[i], 4), m4),
					    _mm256_and_si256(qh[i], m30));
					q[i][3] = _mm256_or_si256(_mm256_and_si256(
					    _mm256_srli_epi16(l1[i], 4), m4),
					    _mm256_and_si256(_mm256_srli_epi16(
					    qh[i], 2), m30));
				}
				UNROLL
				for (k = 0; k < 4; k++) {
					__m256i sv[GVMAX];

					UNROLL
					for (i = 0; i < R; i++)
						sv[i] = _mm256_shuffle_epi8(sx[i],
						    _mm256_loadu_si256((const __m256i *)
						    sc16_pair[k]));
					UNROLL
					for (j = 0; j < TT; j++) {
						x = _mm256_loadu_si256(
						    (const __m256i *)(yj[j]->q +
						    128 * h + 32 * k));
						UNROLL
						for (i = 0; i < R; i++)
							I[i][j] = dpwssd(I[i][j],
							    _mm256_maddubs_epi16(
							    q[i][k], x), sv[i]);
					}
				}
			}
			UNROLL
			for (i = 0; i < R; i++) {
				float d = gf16(p[i] + 208);

				UNROLL
				for (j = 0; j < TT; j++)
					acc[i][j] = fmaf((float)hsumi(I[i][j]),
					    d * yj[j]->d, acc[i][j]);
			}
		}
	}
	UNROLL
	for (i = 0; i < R; i++)
		UNROLL
		for (j = 0; j < TT; j++)
			out[(size_t)j * ldo + r + i * rs] = acc[i][j];
}

/* ---- the entries' bodies ---- */

/* Bytes of one token's prepared activations for type t, rows of n. */
static size_t
gxsize(enum wtype t, int n)
{
	return wtypes[t].block == 256 ? (size_t)(n + 255) / 256 *
	    sizeof(struct kern_q8k) : conv_q8_0_rowsize(n);
}

INLINE void
gprep(enum wtype t, void *dst, const float *x, int n)
{
	if (wtypes[t].block == 256)
		prepk(dst, x, n);
	else
		prep32(dst, x, n);
}

/* Rows [r0, r1) against TT tokens prepared at xq, ld bytes apart. */
INLINE void
grows(enum wtype t, int TT, float *out, int ldo, const void *w,
    const char *xq, size_t ld, int n, int r0, int r1)
{
	size_t rb = wtype_rowsize(t, n);
	int r;

	if (wtypes[t].block == 256) {
		for (r = r0; r + GR <= r1; r += GR)
			gblockk(t, GR, TT, out, ldo, w, rb,
			    (const struct kern_q8k *)xq, ld /
			    sizeof(struct kern_q8k), n, r, 1, 0);
		for (; r < r1; r++)
			gblockk(t, 1, TT, out, ldo, w, rb,
			    (const struct kern_q8k *)xq, ld /
			    sizeof(struct kern_q8k), n, r, 1, 0);
		return;
	}
	for (r = r0; r + G32R <= r1; r += G32R)
		gblock32(t, G32R, TT, out, ldo, w, rb, xq, ld, n, r, 1, 0);
	for (; r < r1; r++)
		gblock32(t, 1, TT, out, ldo, w, rb, xq, ld, n, r, 1, 0);
}

/* Decode: rows [r0, r1) in G32V or GVK parts read side by side (above),
 * each row its own accumulators, so the outputs are those of one row
 * at a time. */
INLINE void
gvrows(enum wtype t, float *out, const void *w, const char *xq, int n,
    int r0, int r1)
{
	size_t rb = wtype_rowsize(t, n);
	int h, r;

	if (wtypes[t].block == 256) {
		h = (r1 - r0) / GVK;
		for (r = r0; r < r0 + h; r++)
			gblockk(t, GVK, 1, out, 0, w, rb,
			    (const struct kern_q8k *)xq, 0, n, r, h, 1);
		for (r = r0 + GVK * h; r < r1; r++)
			gblockk(t, 1, 1, out, 0, w, rb,
			    (const struct kern_q8k *)xq, 0, n, r, 1, 1);
		return;
	}
	g32rows(t, out, w, (const float *)xq, (const int8_t *)xq + 4 *
	    CONV_Q8_0_NB(n), n, r0, r1);
}

INLINE void
gi8_matvec(enum wtype t, float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	char xq[GXVEC] __attribute__((aligned(32)));

	if (n > KERN_GI8_MAXN || (wtypes[t].block == 256 && n % 256)) {
		kern_portable.matvec[t](out, w, x, n, r0, r1);
		return;
	}
	gprep(t, xq, x, n);
	gvrows(t, out, w, xq, n, r0, r1);
}

/* ---- the blocks of 32's prefill GEMM on unpacked panels ----
 *
 * A row panel unpacked once a chunk of tokens (yunpack), 8 rows
 * interleaved: for each octet of rows and block, 8 vectors, vector g
 * the 4 bytes 4g .. 4g + 3 of the 8 rows' unsigned weights (Q8_0's q +
 * 128), then the 8 rows' float scales a block.  A token's 4 bytes
 * broadcast against vector g make, by vpdpbusd, the 8 rows' partial
 * sums in 8 lanes; after the 8 groups each lane holds its row's block
 * sum S (started at minus the offset times the token's sum of X), and
 * one vcvtdq2ps, one vmulps (the rows' scales by the token's) and one
 * FMA a block take the 8 rows' chains on: the portable file's integers
 * and float operations, one float product a block and row, as
 * llama.cpp's repacked Q4_0 GEMM. */
#define YUBUF (128 * 1024)	/* bytes of an unpacked row panel */
#define YUROW(nb) ((size_t)(nb) * (32 + 4))	/* bytes of a row */
#define YUOCT(nb) (8 * YUROW(nb))	/* bytes of an octet of rows */
#define YR8 2	/* octets of ygemm's register block */
/* its tokens: 2 x 3 int32 and float accumulators, the two octets'
 * weight vectors and a broadcast; vpmaddubsw's dpbusd wants two more */
#define YT (GI8_VNNI ? 3 : 2)
/* Fewest tokens for which unpacking a panel pays (fewer: gblock32) */
#define YTMIN 8

/* Rows [r0, r1) of w (type t, rb bytes each) into the panel u,
 * interleaved by octets (above), the last one's missing rows zero. */
static void
yunpack(enum wtype t, uint8_t *u, const uint8_t *w, size_t rb, int n,
    int r0, int r1)
{
	const __m256i x80 = _mm256_set1_epi8((char)0x80);
	int nb = (n + 31) / 32, bytes = wtypes[t].bytes, r, b, k, m;
	const uint8_t *p;
	__m256i v[8], g[8];
	float *d;

	for (r = r0; r < r1; r += 8, u += YUOCT(nb)) {
		m = r1 - r < 8 ? r1 - r : 8;
		d = (float *)(u + 256 * (size_t)nb);
		for (b = 0; b < nb; b++) {
			for (k = 0; k < 8; k++) {
				if (k >= m) {
					v[k] = _mm256_setzero_si256();
					d[8 * b + k] = 0;
					continue;
				}
				p = w + (size_t)(r + k) * rb;
				if (t == W_Q8_0I) {	/* scales, then bytes */
					memcpy(d + 8 * b + k, p + 4 * (size_t)b,
					    4);
					v[k] = _mm256_xor_si256(
					    _mm256_loadu_si256((const __m256i *)
					    (p + 4 * (size_t)nb + 32 * (size_t)b)),
					    x80);
					continue;
				}
				p += (size_t)b * bytes;
				v[k] = wblk(t, p);
				if (t == W_GQ8_0I)
					v[k] = _mm256_xor_si256(v[k], x80);
				d[8 * b + k] = gf16(p);
			}
			tr8x8(g, v);
			for (k = 0; k < 8; k++)
				_mm256_store_si256((__m256i *)(u + 256 *
				    (size_t)b + 32 * k), g[k]);
		}
	}
}

/* out[j*ldo + r + 8i + l] = row r + 8i + l of the panel u . token j of
 * the blocks at xq (ldxq apart), i < R8, j < TT, l < 8 and r + 8i + l <
 * m; nc[j * nb + b]: minus the offset times token j's sum of X in block
 * b (ynoff). */
INLINE void
ygemm(int R8, int TT, float *out, int ldo, const uint8_t *u,
    const char *xq, size_t ldxq, const int32_t *nc, int n, int r, int m)
{
	size_t nx = CONV_Q8_0_NB(n);
	int nb = (n + 31) / 32, b, g, i, j, l;
	const uint8_t *wo[YR8];
	const float *wd[YR8], *xd[3];
	const int8_t *xv[3];
	__m256 acc[YR8][3];
	__m256i s[YR8][3], wv[YR8], x;
	int32_t xg;
	float o[8];

	gxplaces(TT, xd, xv, xq, ldxq, nx);
	UNROLL
	for (i = 0; i < R8; i++) {
		wo[i] = u + (size_t)(r / 8 + i) * YUOCT(nb);
		wd[i] = (const float *)(wo[i] + 256 * (size_t)nb);
		UNROLL
		for (j = 0; j < TT; j++)
			acc[i][j] = _mm256_setzero_ps();
	}
	for (b = 0; b < nb; b++) {
		UNROLL
		for (i = 0; i < R8; i++)
			UNROLL
			for (j = 0; j < TT; j++)
				s[i][j] = _mm256_set1_epi32(nc[(size_t)j * nb +
				    b]);
		UNROLL
		for (g = 0; g < 8; g++) {
			UNROLL
			for (i = 0; i < R8; i++)
				wv[i] = _mm256_load_si256((const __m256i *)
				    (wo[i] + 256 * (size_t)b + 32 * g));
			UNROLL
			for (j = 0; j < TT; j++) {
				memcpy(&xg, xv[j] + 32 * b + 4 * g, 4);
				x = _mm256_set1_epi32(xg);
				UNROLL
				for (i = 0; i < R8; i++)
					s[i][j] = dpbusd(s[i][j], wv[i], x);
			}
		}
		UNROLL
		for (i = 0; i < R8; i++)
			UNROLL
			for (j = 0; j < TT; j++)
				acc[i][j] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(
				    s[i][j]), _mm256_mul_ps(_mm256_load_ps(wd[i] +
				    8 * b), _mm256_broadcast_ss(xd[j] + b)),
				    acc[i][j]);
	}
	UNROLL
	for (i = 0; i < R8; i++)
		UNROLL
		for (j = 0; j < TT; j++) {
			if (m - r - 8 * i >= 8) {
				_mm256_storeu_ps(out + (size_t)j * ldo + r + 8 * i,
				    acc[i][j]);
				continue;
			}
			_mm256_storeu_ps(o, acc[i][j]);
			for (l = 0; l < m - r - 8 * i; l++)
				out[(size_t)j * ldo + r + 8 * i + l] = o[l];
		}
}

/* Rows [0, m) of the panel at u against TT tokens at xq: YR8 octets at
 * a time, then one. */
INLINE void
yrows(int TT, float *out, int ldo, const uint8_t *u, const char *xq,
    size_t ld, const int32_t *nc, int n, int m)
{
	int r;

	for (r = 0; r + 8 * YR8 <= m; r += 8 * YR8)
		ygemm(YR8, TT, out, ldo, u, xq, ld, nc, n, r, m);
	for (; r < m; r += 8)
		ygemm(1, TT, out, ldo, u, xq, ld, nc, n, r, m);
}

/* Part k of parts of the bytes [p, p + bytes) brought towards L2, a
 * line at a time: the next row panel's weights, a part each token group
 * of this one, so that unpacking them finds them come from memory. */
INLINE void
gpanelfetch(const uint8_t *p, size_t bytes, int k, int parts)
{
	size_t a = bytes / 64 * (size_t)k / (size_t)parts * 64,
	    e = bytes / 64 * (size_t)(k + 1) / (size_t)parts * 64;

	for (; a < e; a += 64)
		_mm_prefetch((const char *)(p + a), _MM_HINT_T1);
}

/* Minus off times the sum of X of each block, for the nb blocks of TT
 * tokens at xq (ld bytes apart), into nc (ygemm's layout). */
INLINE void
ynoff(int TT, int32_t *nc, const char *xq, size_t ld, __m256i off, int n)
{
	size_t nx = CONV_Q8_0_NB(n);
	int nb = (n + 31) / 32, b, j;
	const float *xd[3];
	const int8_t *xv[3];

	gxplaces(TT, xd, xv, xq, ld, nx);
	UNROLL
	for (j = 0; j < TT; j++)
		for (b = 0; b < nb; b++)
			nc[(size_t)j * nb + b] = -hsumi(dpbusd(
			    _mm256_setzero_si256(), off, _mm256_loadu_si256(
			    (const __m256i *)(xv[j] + 32 * b))));
}

/* Rows [p0, p1) unpacked at u against the tokens [t0, t1) of the
 * chunk at xq (ld bytes a token), YT at a time, then the rest: for
 * each, the offset's sums first (ynoff), for all the panel's rows. */
INLINE void
ypanel(enum wtype t, float *out, int ldo, const uint8_t *u, const char *xq,
    size_t ld, int n, int p0, int p1, int T, const uint8_t *nx, size_t nxb)
{
	const __m256i off = _mm256_set1_epi8((char)(t == W_Q4_0I ? 8 :
	    t == W_Q5_0I ? 16 : 128));
	int32_t nc[3 * CONV_Q8_0_NB(KERN_GI8_MAXN)];
	int j;

	for (j = 0; j + YT <= T; j += YT) {
		gpanelfetch(nx, nxb, j / YT, (T + YT - 1) / YT);
		ynoff(YT, nc, xq + (size_t)j * ld, ld, off, n);
		yrows(YT, out + (size_t)j * ldo + p0, ldo, u, xq +
		    (size_t)j * ld, ld, nc, n, p1 - p0);
	}
	if (T - j == 2) {
		gpanelfetch(nx, nxb, j / YT, (T + YT - 1) / YT);
		ynoff(2, nc, xq + (size_t)j * ld, ld, off, n);
		yrows(2, out + (size_t)j * ldo + p0, ldo, u, xq +
		    (size_t)j * ld, ld, nc, n, p1 - p0);
	} else if (T - j == 1) {
		gpanelfetch(nx, nxb, j / YT, (T + YT - 1) / YT);
		ynoff(1, nc, xq + (size_t)j * ld, ld, off, n);
		yrows(1, out + (size_t)j * ldo + p0, ldo, u, xq +
		    (size_t)j * ld, ld, nc, n, p1 - p0);
	}
}

/* Whether type t's rows of n take ypanel: blocks of 32 whose panel of
 * an octet of rows fits, and Q8_0 only where vpdpbusd makes the sums
 * (its q + 128 times X would saturate vpmaddubsw's pairs); W_Q8_0I
 * (conv.h's rows, pairs of blocks) only with no padding block, which
 * its own kernels add in. */
INLINE int
yfits(enum wtype t, int n)
{
	if (t == W_Q8_0I)
		return GI8_VNNI && n % 64 == 0 && YUBUF / YUOCT(n / 32) >= 1;
	return wtypes[t].block == 32 && (GI8_VNNI || t != W_GQ8_0I) &&
	    YUBUF / YUOCT((n + 31) / 32) >= 1;
}

/* ---- Q4_K's prefill GEMM on unpacked panels ----
 *
 * A row panel unpacked once a chunk of tokens (kunpack): each
 * superblock's 8 sub-blocks of 32 weights as bytes 0..15 in element
 * order, its 8 scales each twice in an int32 (one broadcast load a
 * sub-block: vpdpwssd's pairs), its 8 mins as int16 and d, dm as
 * floats; where gblockk unpacks the nibbles and the 6-bit scales again
 * for every 2 tokens.  kgemm then takes 4 rows x 2 tokens: per
 * sub-block and (row, token) a vpmaddubsw and a vpdpwssd, gblockk's
 * integers; a superblock's 8 sums I and 8 sums M made at once (hadd
 * trees) into the lanes j * 4 + i of one vector, and the chain's two
 * FMAs a superblock on those lanes: the portable file's operations on
 * each (row, token), in its order. */
/* Bytes of an unpacked superblock: Q4_K 256 + 32 + 16 + 8, padded;
 * Q6_K 256 weights (0..63), its scales 0-7 and 8-15 as int16 in both
 * halves of a vector each (a vpshufb a sub-block puts its pair in the
 * halves: a vpmaddubsw's 16 lanes take 2 groups of 16; stored as the
 * pairs themselves they took 256 bytes, the panel's L2 traffic half as
 * much again), the 16 scales as int16 (the offset's sums) and d,
 * padded */
#define KSB(t) ((t) == W_Q4_KI ? 320 : 384)
#define KUBUF (80 * 1024)	/* bytes of a K type's row panel */
#define KR 4	/* rows of kgemm's register block */
#define KT 2	/* its tokens */

/* Q6_K's rows [r0, r1) of w unpacked at u (above). */
static void
kunpack6(uint8_t *u, const uint8_t *w, size_t rb, int n, int r0, int r1)
{
	const __m256i m4 = _mm256_set1_epi8(15), m30 = _mm256_set1_epi8(0x30);
	int nsb = n / 256, r, b, h;
	const uint8_t *p;
	__m256i l0, l1, qh, s16;
	float d;

	for (r = r0; r < r1; r++)
		for (b = 0; b < nsb; b++, u += KSB(W_Q6_KI)) {
			p = w + (size_t)r * rb + (size_t)b * 210;
			for (h = 0; h < 2; h++) {
				uint8_t *q = u + 128 * h;

				l0 = _mm256_loadu_si256((const __m256i *)(p +
				    64 * h));
				l1 = _mm256_loadu_si256((const __m256i *)(p +
				    64 * h + 32));
				qh = _mm256_loadu_si256((const __m256i *)(p +
				    128 + 32 * h));
				_mm256_storeu_si256((__m256i *)q, _mm256_or_si256(
				    _mm256_and_si256(l0, m4), _mm256_and_si256(
				    _mm256_slli_epi16(qh, 4), m30)));
				_mm256_storeu_si256((__m256i *)(q + 32),
				    _mm256_or_si256(_mm256_and_si256(l1, m4),
				    _mm256_and_si256(_mm256_slli_epi16(qh, 2),
				    m30)));
				_mm256_storeu_si256((__m256i *)(q + 64),
				    _mm256_or_si256(_mm256_and_si256(
				    _mm256_srli_epi16(l0, 4), m4),
				    _mm256_and_si256(qh, m30)));
				_mm256_storeu_si256((__m256i *)(q + 96),
				    _mm256_or_si256(_mm256_and_si256(
				    _mm256_srli_epi16(l1, 4), m4),
				    _mm256_and_si256(_mm256_srli_epi16(qh, 2),
				    m30)));
			}
			s16 = _mm256_cvtepi8_epi16(_mm_loadu_si128(
			    (const __m128i *)(p + 192)));
			_mm256_storeu_si256((__m256i *)(u + 256),
			    _mm256_permute4x64_epi64(s16, 0x44));
			_mm256_storeu_si256((__m256i *)(u + 288),
			    _mm256_permute4x64_epi64(s16, 0xee));
			_mm256_storeu_si256((__m256i *)(u + 320), s16);
			d = gf16(p + 208);
			memcpy(u + 352, &d, 4);
		}
}

/* Q4_K's rows [r0, r1) of w unpacked at u (above). */
static void
kunpack(uint8_t *u, const uint8_t *w, size_t rb, int n, int r0, int r1)
{
	const __m256i m4 = _mm256_set1_epi8(15);
	int nsb = n / 256, r, b, k;
	const uint8_t *p;
	uint32_t sp[8];
	uint16_t sc[8], m16[8];
	float dd[2];
	__m128i mn;
	__m256i x;

	for (r = r0; r < r1; r++)
		for (b = 0; b < nsb; b++, u += KSB(W_Q4_KI)) {
			p = w + (size_t)r * rb + (size_t)b * 144;
			_mm_storeu_si128((__m128i *)sc, _mm256_castsi256_si128(
			    k4_scales(&mn, p + 4)));
			_mm_storeu_si128((__m128i *)m16, mn);
			for (k = 0; k < 4; k++) {
				x = _mm256_loadu_si256((const __m256i *)(p + 16 +
				    32 * k));
				_mm256_storeu_si256((__m256i *)(u + 64 * k),
				    _mm256_and_si256(x, m4));
				_mm256_storeu_si256((__m256i *)(u + 64 * k + 32),
				    _mm256_and_si256(_mm256_srli_epi16(x, 4), m4));
			}
			for (k = 0; k < 8; k++)
				sp[k] = (uint32_t)sc[k] * 0x10001u;
			dd[0] = gf16(p);
			dd[1] = gf16(p + 2);
			memcpy(u + 256, sp, 32);
			memcpy(u + 288, m16, 16);
			memcpy(u + 304, dd, 8);
		}
}

/* out[j*ldo + r + i] = unpacked row r + i of u (ru bytes each) . token
 * j of the superblocks at y (ldy apart), i < R <= KR, j < TT <= KT. */
INLINE void
kgemm(enum wtype t, int R, int TT, float *out, int ldo, const uint8_t *u,
    size_t ru, const struct kern_q8k *y, size_t ldy, int n, int r)
{
	int nsb = n / 256, b, i, j, k;
	const uint8_t *wb[KR];
	const struct kern_q8k *yj[KT];
	__m256i I[KR * KT], mv[KR], wq, sv, bsp, Iv, Mv;
	__m256 acc = _mm256_setzero_ps(), dv, dmv, ydv;
	float d[8], dm[8], yd[8], o[8];

	for (b = 0; b < nsb; b++) {
		UNROLL
		for (j = 0; j < KT; j++)
			yj[j] = y + (size_t)(j < TT ? j : 0) * ldy + b;
		UNROLL
		for (i = 0; i < KR; i++) {
			wb[i] = u + (size_t)(r + (i < R ? i : 0)) * ru +
			    (size_t)b * KSB(t);
			/* Q6_K: minus 32 sum_g sc_g (sum of X over g) */
			UNROLL
			for (j = 0; j < KT; j++)
				I[j * KR + i] = t == W_Q4_KI || i >= R || j >= TT ?
				    _mm256_setzero_si256() : _mm256_sub_epi32(
				    _mm256_setzero_si256(), _mm256_slli_epi32(
				    _mm256_madd_epi16(_mm256_loadu_si256(
				    (const __m256i *)(wb[i] + 320)),
				    _mm256_loadu_si256((const __m256i *)
				    yj[j]->bs)), 5));
		}
		for (k = 0; k < 8; k++)
			UNROLL
			for (i = 0; i < R; i++) {
				wq = _mm256_loadu_si256((const __m256i *)(wb[i] +
				    32 * k));
				sv = t == W_Q4_KI ? _mm256_castps_si256(
				    _mm256_broadcast_ss((const float *)(wb[i] +
				    256 + 4 * k))) : _mm256_shuffle_epi8(
				    _mm256_loadu_si256((const __m256i *)(wb[i] +
				    256 + 32 * (k >> 2))), _mm256_loadu_si256(
				    (const __m256i *)sc16_pair[k & 3]));
				UNROLL
				for (j = 0; j < TT; j++)
					I[j * KR + i] = dpwssd(I[j * KR + i],
					    _mm256_maddubs_epi16(wq,
					    _mm256_loadu_si256((const __m256i *)
					    (yj[j]->q + 32 * k))), sv);
			}
		Iv = hsum8i(I);
		if (t == W_Q6_KI) {
			UNROLL
			for (j = 0; j < KT; j++)
				UNROLL
				for (i = 0; i < KR; i++) {
					memcpy(d + j * KR + i, wb[i] + 352, 4);
					yd[j * KR + i] = yj[j]->d;
				}
			acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(Iv),
			    _mm256_mul_ps(_mm256_loadu_ps(d),
			    _mm256_loadu_ps(yd)), acc);
			continue;
		}
		/* M: each row's mins (both halves) against the two tokens'
		 * sums of X a sub-block (low half token 0, high token 1) */
		bsp = _mm256_set_m128i(_mm_hadd_epi16(_mm_loadu_si128(
		    (const __m128i *)yj[1]->bs), _mm_loadu_si128(
		    (const __m128i *)(yj[1]->bs + 8))), _mm_hadd_epi16(
		    _mm_loadu_si128((const __m128i *)yj[0]->bs),
		    _mm_loadu_si128((const __m128i *)(yj[0]->bs + 8))));
		UNROLL
		for (i = 0; i < KR; i++)
			mv[i] = _mm256_madd_epi16(_mm256_broadcastsi128_si256(
			    _mm_loadu_si128((const __m128i *)(wb[i] + 288))),
			    bsp);
		Mv = _mm256_hadd_epi32(_mm256_hadd_epi32(mv[0], mv[1]),
		    _mm256_hadd_epi32(mv[2], mv[3]));
		UNROLL
		for (j = 0; j < KT; j++)
			UNROLL
			for (i = 0; i < KR; i++) {
				memcpy(d + j * KR + i, wb[i] + 304, 4);
				memcpy(dm + j * KR + i, wb[i] + 308, 4);
				yd[j * KR + i] = yj[j]->d;
			}
		ydv = _mm256_loadu_ps(yd);
		dv = _mm256_mul_ps(_mm256_loadu_ps(d), ydv);
		dmv = _mm256_mul_ps(_mm256_loadu_ps(dm), ydv);
		acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(Iv), dv, acc);
		acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(
		    _mm256_setzero_si256(), Mv)), dmv, acc);
	}
	_mm256_storeu_ps(o, acc);
	UNROLL
	for (i = 0; i < R; i++)
		UNROLL
		for (j = 0; j < TT; j++)
			out[(size_t)j * ldo + r + i] = o[j * KR + i];
}

/* Rows [0, m) of the panel at u against TT tokens of superblocks at y
 * (ldy apart): KR at a time, then the rest one by one.  TT is a
 * constant at each call (kpanel's), as yrows' is: a count the compiler
 * does not know keeps the second token's sums in memory, not in
 * registers (bench/NOTES.md, branch a2p). */
INLINE void
krows(enum wtype t, int TT, float *out, int ldo, const uint8_t *u, size_t ru,
    const struct kern_q8k *y, size_t ldy, int n, int m)
{
	int r;

	for (r = 0; r + KR <= m; r += KR)
		kgemm(t, KR, TT, out, ldo, u, ru, y, ldy, n, r);
	for (; r < m; r++)
		kgemm(t, 1, TT, out, ldo, u, ru, y, ldy, n, r);
}

/* Rows [p0, p1) unpacked at u against T tokens of superblocks at xq
 * (ld bytes a token): KR x KT blocks, then the rest's rows and token
 * one at a time. */
INLINE void
kpanel(enum wtype t, float *out, int ldo, const uint8_t *u, const char *xq,
    size_t ld, int n, int p0, int p1, int T, const uint8_t *nx, size_t nxb)
{
	size_t ru = (size_t)(n / 256) * KSB(t);
	size_t ldy = ld / sizeof(struct kern_q8k);
	const struct kern_q8k *y = (const struct kern_q8k *)xq;
	int j;

	for (j = 0; j + KT <= T; j += KT) {
		gpanelfetch(nx, nxb, j / KT, (T + KT - 1) / KT);
		krows(t, KT, out + (size_t)j * ldo + p0, ldo, u, ru, y +
		    (size_t)j * ldy, ldy, n, p1 - p0);
	}
	for (; j < T; j++) {
		gpanelfetch(nx, nxb, j / KT, (T + KT - 1) / KT);
		krows(t, 1, out + (size_t)j * ldo + p0, ldo, u, ru, y +
		    (size_t)j * ldy, ldy, n, p1 - p0);
	}
}

/* Whether type t's rows of n take kpanel: a K type whose panel of KR
 * rows fits. */
INLINE int
kfits(enum wtype t, int n)
{
	return (t == W_Q4_KI || t == W_Q6_KI) && n % 256 == 0 && KUBUF /
	    ((size_t)(n / 256) * KSB(t)) >= KR;
}

/* Token chunks prepared once, row panels that fit in L2, GT tokens at
 * a time; the blocks of 32, Q4_K and Q6_K on panels unpacked once a
 * chunk (ypanel, kpanel above) where KR or YR rows fit. */
INLINE void
gi8_matmul(enum wtype t, float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	char stk[GXBUF] __attribute__((aligned(32)));
	uint8_t u[KUBUF > YUBUF ? KUBUF : YUBUF] __attribute__((aligned(32)));
	size_t ld = gxsize(t, n), rb = wtype_rowsize(t, n);
	const uint8_t *wb = w;
	int P = (int)((kern_l2 / 2) / rb), TB = (int)(GXCAP / ld);
	int t0, t1, p0, p1, j, nchunk, want, y = yfits(t, n) && T >= YTMIN;
	char *xq;

	if (n > KERN_GI8_MAXN || (wtypes[t].block == 256 && n % 256) ||
	    TB < 1) {
		kern_portable.matmul[t](out, ldo, w, x, ldx, n, T, r0, r1);
		return;
	}
	/* chunks of equal size, as few as GXCAP allows: each unpacks the
	 * weights again, from memory */
	nchunk = (T + TB - 1) / TB;
	want = (T + nchunk - 1) / nchunk;
	xq = kern_xroom(stk, sizeof(stk), ld, want, &TB);
	TB = TB < want ? TB : want;
	P = P < GR ? GR : P / GR * GR;
	if (kfits(t, n))
		P = (int)(KUBUF / ((size_t)(n / 256) * KSB(t))) / KR * KR;
	if (y) {
		P = (int)(YUBUF / YUROW((n + 31) / 32));
		P = P >= 8 * YR8 ? P / (8 * YR8) * (8 * YR8) : 8;
	}
	for (t0 = 0; t0 < T; t0 = t1) {
		t1 = T - t0 > TB ? t0 + TB : T;
		for (j = t0; j < t1; j++)
			gprep(t, xq + (size_t)(j - t0) * ld, x + (size_t)j * ldx,
			    n);
		if (kfits(t, n)) {
			for (p0 = r0; p0 < r1; p0 = p1) {
				p1 = r1 - p0 > P ? p0 + P : r1;
				if (t == W_Q4_KI)
					kunpack(u, w, rb, n, p0, p1);
				else
					kunpack6(u, w, rb, n, p0, p1);
				kpanel(t, out + (size_t)t0 * ldo, ldo, u, xq, ld, n,
				    p0, p1, t1 - t0, wb + (size_t)p1 * rb,
				    (size_t)(r1 - p1 > P ? P : r1 - p1) * rb);
			}
			continue;
		}
		if (y) {
			for (p0 = r0; p0 < r1; p0 = p1) {
				p1 = r1 - p0 > P ? p0 + P : r1;
				yunpack(t, u, w, rb, n, p0, p1);
				ypanel(t, out + (size_t)t0 * ldo, ldo, u, xq, ld,
				    n, p0, p1, t1 - t0, wb + (size_t)p1 * rb,
				    (size_t)(r1 - p1 > P ? P : r1 - p1) * rb);
			}
			continue;
		}
		for (p0 = r0; p0 < r1; p0 = p1) {
			p1 = r1 - p0 > P ? p0 + P : r1;
			for (j = t0; j < t1; j += GT)
				if (t1 - j >= GT)
					grows(t, GT, out + (size_t)j * ldo, ldo,
					    w, xq + (size_t)(j - t0) * ld, ld, n,
					    p0, p1);
				else
					grows(t, 1, out + (size_t)j * ldo, ldo,
					    w, xq + (size_t)(j - t0) * ld, ld, n,
					    p0, p1);
		}
	}
	if (xq != stk)
		free(xq);
}

#if GI8_VNNI < 2

/* ---- the blocks of 32 packed by 16 (kern.h's W_Q8X16, W_Q4X16) ----
 *
 * A group's two halves are ygemm's two octets: register k of half h the
 * 32 bytes at 64k + 32h of a block (W_Q4X16: its nibbles, k < 4 the low
 * ones), the scales the 8 floats (F16s) at 512 + 32h (256 + 16h).  So
 * prefill runs ygemm's register block on the matrix in place and
 * decode makes 8 rows' S in lanes with no sum across them.  W_Q8X16
 * only with vpdpbusd: its q + 128 against X saturates vpmaddubsw's
 * pairs, where W_Q4X16's nibbles (at most 15) do not. */
#define YXV 2	/* decode: groups read side by side */
#define YXPF 1024	/* bytes a decode stream is fetched ahead */

/* Register k of half h of the block at u (pk 1: W_Q8X16, 2: W_Q4X16). */
INLINE __m256i
yxwk(int pk, const uint8_t *u, int k, int h)
{
	const __m256i m4 = _mm256_set1_epi8(15);

	if (pk == 1)
		return _mm256_loadu_si256((const __m256i *)(u + 64 * k + 32 * h));
	if (k < 4)
		return _mm256_and_si256(_mm256_loadu_si256((const __m256i *)
		    (u + 64 * k + 32 * h)), m4);
	return _mm256_and_si256(_mm256_srli_epi16(_mm256_loadu_si256(
	    (const __m256i *)(u + 64 * (k - 4) + 32 * h)), 4), m4);
}

/* The 8 scales of half h of the block at u. */
INLINE __m256
yxdw(int pk, const uint8_t *u, int h)
{
	if (pk == 1)
		return _mm256_loadu_ps((const float *)(u + 512 + 32 * h));
	return _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(u + 256 +
	    16 * h)));
}

/* Rows [r0, r1) of groups gs[v], v < V, of w (gstride bytes apart)
 * against one token: its scales xd, blocks xv and minus the offset
 * times each block's sum of X, nc. */
INLINE void
yxdec(int pk, int V, float *out, const uint8_t *w, size_t gstride,
    const float *xd, const int8_t *xv, const int32_t *nc, int n,
    const int *gs, int r0, int r1)
{
	int nb = (n + 31) / 32, b, k, v, h, L, R;
	size_t gb = pk == 1 ? 576 : 288;
	const uint8_t *u[YXV];
	__m256 acc[YXV][2], dx;
	__m256i I[YXV][2], J[YXV][2], i0, xb;
	int32_t x4;
	float f[8];

	UNROLL
	for (v = 0; v < V; v++) {
		u[v] = w + (size_t)gs[v] * gstride;
		acc[v][0] = acc[v][1] = _mm256_setzero_ps();
	}
	for (b = 0; b < nb; b++) {
		i0 = _mm256_set1_epi32(nc[b]);
		dx = _mm256_broadcast_ss(xd + b);
		UNROLL
		for (v = 0; v < V; v++)
			UNROLL
			for (h = 0; h < 2; h++) {
				I[v][h] = i0;
				J[v][h] = _mm256_setzero_si256();
			}
		UNROLL
		for (k = 0; k < 8; k++) {
			memcpy(&x4, xv + 32 * b + 4 * k, 4);
			xb = _mm256_set1_epi32(x4);
			UNROLL
			for (v = 0; v < V; v++) {
				if (pk == 1 || k < 5)
					_mm_prefetch((const char *)u[v] + YXPF + 64 *
					    k, _MM_HINT_T0);
				if (pk == 1 && k == 7)
					_mm_prefetch((const char *)u[v] + YXPF + 512,
					    _MM_HINT_T0);
				UNROLL
				for (h = 0; h < 2; h++)
					if (k % 2)
						J[v][h] = dpbusd(J[v][h], yxwk(pk,
						    u[v], k, h), xb);
					else
						I[v][h] = dpbusd(I[v][h], yxwk(pk,
						    u[v], k, h), xb);
			}
		}
		UNROLL
		for (v = 0; v < V; v++) {
			UNROLL
			for (h = 0; h < 2; h++)
				acc[v][h] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(
				    _mm256_add_epi32(I[v][h], J[v][h])),
				    _mm256_mul_ps(yxdw(pk, u[v], h), dx),
				    acc[v][h]);
			u[v] += gb;
		}
	}
	UNROLL
	for (v = 0; v < V; v++)
		UNROLL
		for (h = 0; h < 2; h++) {
			_mm256_storeu_ps(f, acc[v][h]);
			for (L = 0; L < 8; L++) {
				R = 16 * gs[v] + 8 * h + L;
				if (R >= r0 && R < r1)
					out[R] = f[L];
			}
		}
}

/* Decode of packed w: rows [r0, r1) against the token prepared at xq
 * (prep32), YXV parts of the groups side by side. */
INLINE void
yxrows(int pk, float *out, const void *w, const char *xq, int n, int r0,
    int r1)
{
	int32_t nc[CONV_Q8_0_NB(KERN_GI8_MAXN)];
	size_t nx = CONV_Q8_0_NB(n);
	size_t gstride = (size_t)(n + 31) / 32 * (pk == 1 ? 576 : 288);
	const float *xd = (const float *)xq;
	const int8_t *xv = (const int8_t *)(xd + nx);
	int g0 = r0 / 16, g1 = (r1 + 15) / 16, left = g1 - g0, v, s, m;
	int st[YXV], len[YXV], gs[YXV];

	ynoff(1, nc, xq, 0, _mm256_set1_epi8((char)(pk == 1 ? 128 : 8)), n);
	for (v = 0; v < YXV; v++) {
		len[v] = kern_piece(left, YXV - v);
		st[v] = g1 - left;
		left -= len[v];
	}
	m = len[YXV - 1];
	for (s = 0; s < m; s++) {
		for (v = 0; v < YXV; v++)
			gs[v] = st[v] + s;
		yxdec(pk, YXV, out, w, gstride, xd, xv, nc, n, gs, r0, r1);
	}
	for (v = 0; v < YXV; v++)
		for (s = m; s < len[v]; s++) {
			gs[0] = st[v] + s;
			yxdec(pk, 1, out, w, gstride, xd, xv, nc, n, gs, r0, r1);
		}
}

/* Outputs R .. R + 7 (8 rows' lanes v) into out, those in [r0, r1). */
INLINE void
gstore8(float *out, int R, __m256 v, int r0, int r1)
{
	float o[8];
	int L;

	if (R >= r0 && R + 8 <= r1) {
		_mm256_storeu_ps(out + R, v);
		return;
	}
	_mm256_storeu_ps(o, v);
	for (L = 0; L < 8; L++)
		if (R + L >= r0 && R + L < r1)
			out[R + L] = o[L];
}

/* Group g (at u, its blocks gb bytes apart) against TT tokens at xq
 * (ldxq apart; nc as ygemm's), the rows in [r0, r1) stored. */
INLINE void
yxgemm(int pk, int TT, float *out, int ldo, const uint8_t *u, size_t gb,
    const char *xq, size_t ldxq, const int32_t *nc, int n, int g, int r0,
    int r1, struct fetchspan *fs)
{
	size_t nx = CONV_Q8_0_NB(n);
	int nb = (n + 31) / 32, b, k, h, j;
	const float *xd[3];
	const int8_t *xv[3];
	__m256 acc[2][3];
	__m256i s[2][3], wv[2], x;
	int32_t xg;

	gxplaces(TT, xd, xv, xq, ldxq, nx);
	UNROLL
	for (h = 0; h < 2; h++)
		UNROLL
		for (j = 0; j < TT; j++)
			acc[h][j] = _mm256_setzero_ps();
	for (b = 0; b < nb; b++, u += gb) {
		fetchspan_step(fs);
		UNROLL
		for (h = 0; h < 2; h++)
			UNROLL
			for (j = 0; j < TT; j++)
				s[h][j] = _mm256_set1_epi32(nc[(size_t)j * nb +
				    b]);
		UNROLL
		for (k = 0; k < 8; k++) {
			UNROLL
			for (h = 0; h < 2; h++)
				wv[h] = yxwk(pk, u, k, h);
			UNROLL
			for (j = 0; j < TT; j++) {
				memcpy(&xg, xv[j] + 32 * b + 4 * k, 4);
				x = _mm256_set1_epi32(xg);
				UNROLL
				for (h = 0; h < 2; h++)
					s[h][j] = dpbusd(s[h][j], wv[h], x);
			}
		}
		UNROLL
		for (h = 0; h < 2; h++)
			UNROLL
			for (j = 0; j < TT; j++)
				acc[h][j] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(
				    s[h][j]), _mm256_mul_ps(yxdw(pk, u, h),
				    _mm256_broadcast_ss(xd[j] + b)), acc[h][j]);
	}
	UNROLL
	for (h = 0; h < 2; h++)
		UNROLL
		for (j = 0; j < TT; j++)
			gstore8(out + (size_t)j * ldo, 16 * g + 8 * h, acc[h][j],
			    r0, r1);
}

/* Groups [p0, p1) of packed w against TT tokens at xq. */
INLINE void
yxgroups(int pk, int TT, float *out, int ldo, const uint8_t *w,
    const char *xq, size_t ld, const int32_t *nc, int n, int p0, int p1,
    int r0, int r1, struct fetchspan *fs)
{
	size_t gb = pk == 1 ? 576 : 288, gstride = (size_t)(n + 31) / 32 * gb;
	int g;

	for (g = p0; g < p1; g++)
		yxgemm(pk, TT, out, ldo, w + (size_t)g * gstride, gb, xq, ld, nc,
		    n, g, r0, r1, fs);
}

/* Prefill of packed w: chunks of tokens prepared (prep32), panels of
 * groups in L2 against YT tokens at a time, the next panel fetched
 * meanwhile; one token the decode's kernel (two take yxgemm: 0.9x the
 * time of two decodes, bench/NOTES.md). */
INLINE void
yxmatmul(enum wtype t, float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	char stk[GXBUF] __attribute__((aligned(32)));
	int32_t nc[3 * CONV_Q8_0_NB(KERN_GI8_MAXN)];
	size_t ld = conv_q8_0_rowsize(n);
	int pk = t == W_Q8X16 ? 1 : 2, off = pk == 1 ? 128 : 8;
	size_t gstride = (size_t)(n + 31) / 32 * (pk == 1 ? 576 : 288);
	const __m256i o = _mm256_set1_epi8((char)off);
	int g0 = r0 / 16, g1 = (r1 + 15) / 16, P, p0, p1, q0, q1;
	int TB = (int)(GXBUF / ld), t0, t1, j, nt;
	struct fetchspan fs;

	if (n > KERN_GI8_MAXN) {
		kern_portable.matmul[t](out, ldo, w, x, ldx, n, T, r0, r1);
		return;
	}
	if (T < 2) {
		for (j = 0; j < T; j++) {
			prep32(stk, x + (size_t)j * ldx, n);
			yxrows(pk, out + (size_t)j * ldo, w, stk, n, r0, r1);
		}
		return;
	}
	P = (int)(YUBUF / gstride);
	P = P < 1 ? 1 : P;
	for (t0 = 0; t0 < T; t0 = t1) {
		t1 = T - t0 > TB ? t0 + TB : T;
		nt = t1 - t0;
		for (j = t0; j < t1; j++)
			prep32(stk + (size_t)(j - t0) * ld, x + (size_t)j * ldx, n);
		for (p0 = g0; p0 < g1; p0 = p1) {
			p1 = g1 - p0 > P ? p0 + P : g1;
			q0 = p1 < g1 ? p1 : t1 < T ? g0 : g1;
			q1 = g1 - q0 > P ? q0 + P : g1;
			/* the next panel a few lines a block of the products
			 * (gpanelfetch's part a token group at once stalled
			 * on the misses: bench/NOTES.md) */
			fetchspan_set(&fs, (const uint8_t *)w + (size_t)q0 *
			    gstride, (size_t)(q1 - q0) * gstride,
			    (size_t)(nt + YT - 1) / YT * (p1 - p0) * ((n + 31) / 32));
			for (j = 0; j < nt; j += YT) {
				int TT = nt - j < YT ? nt - j : YT;
				const char *xj = stk + (size_t)j * ld;
				float *oj = out + (size_t)(t0 + j) * ldo;

				if (TT == YT) {
					ynoff(YT, nc, xj, ld, o, n);
					yxgroups(pk, YT, oj, ldo, w, xj, ld, nc, n,
					    p0, p1, r0, r1, &fs);
				} else if (TT == 2) {
					ynoff(2, nc, xj, ld, o, n);
					yxgroups(pk, 2, oj, ldo, w, xj, ld, nc, n,
					    p0, p1, r0, r1, &fs);
				} else {
					ynoff(1, nc, xj, ld, o, n);
					yxgroups(pk, 1, oj, ldo, w, xj, ld, nc, n,
					    p0, p1, r0, r1, &fs);
				}
			}
		}
	}
}

INLINE void
yxmatvec(enum wtype t, float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	char xq[CONV_Q8_0_NB(KERN_GI8_MAXN) * (4 + 32)]
	    __attribute__((aligned(32)));

	if (n > KERN_GI8_MAXN) {
		kern_portable.matvec[t](out, w, x, n, r0, r1);
		return;
	}
	prep32(xq, x, n);
	yxrows(t == W_Q8X16 ? 1 : 2, out, w, xq, n, r0, r1);
}
#endif

#endif
