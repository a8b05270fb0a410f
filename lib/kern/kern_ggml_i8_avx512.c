/* kern_ggml_i8_avx512.c: --int8-act on ggml's types, the AVX-512
 * table's entries where the CPU has AVX512-VNNI (kern_init): the blocks
 * of 32 (Q8_0, Q4_0, Q5_0) on 512 bits, two blocks a vpdpbusd, and the
 * superblocks as kern_ggml_i8_int.h's 256-bit bodies with AVX512-VNNI's
 * encodings.
 *
 * Two blocks b and b + 1 in one zmm register, element e of block b + p
 * in byte 32p + e, give int32 lane 8p + l the sum of the products of
 * elements 4l .. 4l + 3 of block b + p: kern.h's P of acc[8 (b % 2) +
 * l], as b is even.  So one register accumulates all 16 lanes, one FMA
 * a pair of blocks with the scales dw dx of b in its low half and of
 * b + 1 in its high one, and the output is its halves added and
 * kern_avx2_int.h's hsum, the 256-bit kernels' tree: the same float
 * operations in the same order, the same bits (test_i8). */
#if defined(__x86_64__)

#define GI8_VNNI 2
#include "kern/kern_ggml_i8_int.h"

#define ZR 4	/* rows per register block (matmul) */
#define ZT 4	/* tokens per register block (matmul) */

/* Two floats at s as [s0 x 8, s1 x 8]. */
INLINE __m512
pair8(__m128 s)
{
	return _mm512_permutexvar_ps(_mm512_setr_epi32(0, 0, 0, 0, 0, 0, 0, 0,
	    1, 1, 1, 1, 1, 1, 1, 1), _mm512_castps128_ps512(s));
}

/* The scales of the blocks at p0 and p1 (or p0's alone, one: the high
 * half then undefined), as pair8 lays them out. */
INLINE __m512
zdw(const uint8_t *p0, const uint8_t *p1, int one)
{
	uint16_t a, b = 0;

	memcpy(&a, p0, 2);
	if (!one)
		memcpy(&b, p1, 2);
	return pair8(_mm_cvtph_ps(_mm_cvtsi32_si128((int)(a | (uint32_t)b <<
	    16))));
}

/* The 64 weights of blocks p0 and p1 of type t (p1 unread if one, its
 * bytes then zero), element e of p1 in byte 32 + e: Q8_0 signed, Q4_0
 * and Q5_0 the unsigned q. */
INLINE __m512i
zwblk(enum wtype t, const uint8_t *p0, const uint8_t *p1, int one)
{
	const __m512i m4 = _mm512_set1_epi8(15);
	__m256i v;
	__m512i z;
	uint32_t h0, h1 = 0;

	if (t == W_GQ8_0I) {
		z = _mm512_castsi256_si512(_mm256_loadu_si256((const __m256i *)
		    (p0 + 2)));
		return one ? _mm512_zextsi256_si512(_mm512_castsi512_si256(z)) :
		    _mm512_inserti64x4(z, _mm256_loadu_si256((const __m256i *)
		    (p1 + 2)), 1);
	}
	v = _mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)
	    (p0 + (t == W_Q4_0I ? 2 : 6))));
	v = _mm256_inserti128_si256(v, one ? _mm_setzero_si128() :
	    _mm_loadu_si128((const __m128i *)(p1 + (t == W_Q4_0I ? 2 : 6))), 1);
	/* [q0, q1, q0 >> 4, q1 >> 4] as [q0, q0 >> 4, q1, q1 >> 4] */
	z = _mm512_inserti64x4(_mm512_castsi256_si512(v), _mm256_srli_epi16(v,
	    4), 1);
	z = _mm512_and_si512(_mm512_shuffle_i64x2(z, z, _MM_SHUFFLE(3, 1, 2,
	    0)), m4);
	if (t == W_Q4_0I)
		return z;
	/* Q5_0's fifth bits: bit e of qh is element e's 16 */
	memcpy(&h0, p0 + 2, 4);
	if (!one)
		memcpy(&h1, p1 + 2, 4);
	return _mm512_mask_add_epi8(z, _cvtu64_mask64((uint64_t)h0 |
	    (uint64_t)h1 << 32), z, _mm512_set1_epi8(16));
}

/* out[j*ldo + r + i*rs] = row r + i*rs of w (type t, rows of rb bytes)
 * . token j of the blocks at xq (ldxq bytes apart, conv_q8_0_quant's
 * layout), i < R, j < TT; pf: prefetch each row GPF bytes ahead. */
INLINE void
zblock(enum wtype t, int R, int TT, float *out, int ldo, const uint8_t *w,
    size_t rb, const char *xq, size_t ldxq, int n, int r, int rs, int pf)
{
	size_t nx = CONV_Q8_0_NB(n);
	int nb = (n + 31) / 32, b, i, j, one, bytes = wtypes[t].bytes;
	const __m512i off = _mm512_set1_epi8(t == W_Q4_0I ? 8 : 16);
	const uint8_t *wr[ZR];
	const float *xd[ZT];
	const int8_t *xv[ZT];
	__m512 acc[ZR][ZT], dw[ZR], s;
	__m512i wv[ZR], x, ax, nc, P;
	__mmask64 neg;
	__m256 h;

	UNROLL
	for (i = 0; i < R; i++) {
		wr[i] = w + (size_t)(r + i * rs) * rb;
		UNROLL
		for (j = 0; j < TT; j++)
			acc[i][j] = _mm512_setzero_ps();
	}
	UNROLL
	for (j = 0; j < TT; j++) {
		xd[j] = (const float *)(xq + (size_t)j * ldxq);
		xv[j] = (const int8_t *)(xd[j] + nx);
	}
	for (b = 0; b < nb; b += 2) {
		one = b + 1 >= nb;
		UNROLL
		for (i = 0; i < R; i++) {
			const uint8_t *p0 = wr[i] + (size_t)b * bytes;

			if (pf)
				gahead(p0);
			wv[i] = zwblk(t, p0, p0 + bytes, one);
			dw[i] = zdw(p0, p0 + bytes, one);
		}
		UNROLL
		for (j = 0; j < TT; j++) {
			/* nx is even: the pair's bytes and scales are there */
			x = _mm512_loadu_si512(xv[j] + 32 * b);
			s = pair8(_mm_castsi128_ps(_mm_loadl_epi64(
			    (const __m128i *)(xd[j] + b))));
			if (t == W_GQ8_0I) {
				ax = _mm512_abs_epi8(x);
				neg = _mm512_movepi8_mask(x);
			} else {
				/* minus offset times the sums of X */
				nc = _mm512_sub_epi32(_mm512_setzero_si512(),
				    _mm512_dpbusd_epi32(_mm512_setzero_si512(),
				    off, x));
			}
			UNROLL
			for (i = 0; i < R; i++) {
				if (t == W_GQ8_0I)
					P = _mm512_dpbusd_epi32(
					    _mm512_setzero_si512(), ax,
					    _mm512_mask_sub_epi8(wv[i], neg,
					    _mm512_setzero_si512(), wv[i]));
				else
					P = _mm512_dpbusd_epi32(nc, wv[i], x);
				acc[i][j] = _mm512_mask3_fmadd_ps(
				    _mm512_cvtepi32_ps(P), _mm512_mul_ps(dw[i],
				    s), acc[i][j], one ? 0x00ff : 0xffff);
			}
		}
	}
	UNROLL
	for (i = 0; i < R; i++)
		UNROLL
		for (j = 0; j < TT; j++) {
			h = _mm256_add_ps(_mm512_castps512_ps256(acc[i][j]),
			    _mm256_castpd_ps(_mm512_extractf64x4_pd(
			    _mm512_castps_pd(acc[i][j]), 1)));
			out[(size_t)j * ldo + r + i * rs] = hsum(h);
		}
}

/* Decode: rows [r0, r1) in GV32 parts read side by side
 * (kern_ggml_i8_int.h), each row its own accumulator. */
INLINE void
zmatvec(enum wtype t, float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	char xq[CONV_Q8_0_NB(KERN_GI8_MAXN) * (4 + 32)]
	    __attribute__((aligned(64)));
	size_t rb = wtype_rowsize(t, n);
	int h = (r1 - r0) / GV32, r;

	if (n > KERN_GI8_MAXN) {
		kern_portable.matvec[t](out, w, x, n, r0, r1);
		return;
	}
	prep32(xq, x, n);
	for (r = r0; r < r0 + h; r++)
		zblock(t, GV32, 1, out, 0, w, rb, xq, 0, n, r, h, 1);
	for (r = r0 + GV32 * h; r < r1; r++)
		zblock(t, 1, 1, out, 0, w, rb, xq, 0, n, r, 1, 1);
}

/* Rows [p0, p1) against TT tokens prepared at xq, ld bytes apart. */
INLINE void
zrows(enum wtype t, int TT, float *out, int ldo, const void *w,
    const char *xq, size_t ld, int n, int p0, int p1)
{
	size_t rb = wtype_rowsize(t, n);
	int r;

	for (r = p0; r + ZR <= p1; r += ZR)
		zblock(t, ZR, TT, out, ldo, w, rb, xq, ld, n, r, 1, 0);
	for (; r < p1; r++)
		zblock(t, 1, TT, out, ldo, w, rb, xq, ld, n, r, 1, 0);
}

/* Prefill: a chunk of tokens prepared once, then row panels that fit
 * in L2 against ZT tokens at a time (gi8_matmul's shape). */
INLINE void
zmatmul(enum wtype t, float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	char xq[GXBUF] __attribute__((aligned(64)));
	size_t ld = conv_q8_0_rowsize(n);
	int P = (int)((kern_l2 / 2) / wtype_rowsize(t, n)), TB = (int)(GXBUF /
	    ld);
	int t0, t1, p0, p1, j;

	if (n > KERN_GI8_MAXN || TB < 1) {
		kern_portable.matmul[t](out, ldo, w, x, ldx, n, T, r0, r1);
		return;
	}
	P = P < ZR ? ZR : P / ZR * ZR;
	for (t0 = 0; t0 < T; t0 = t1) {
		t1 = T - t0 > TB ? t0 + TB : T;
		for (j = t0; j < t1; j++)
			prep32(xq + (size_t)(j - t0) * ld, x + (size_t)j * ldx, n);
		for (p0 = r0; p0 < r1; p0 = p1) {
			p1 = r1 - p0 > P ? p0 + P : r1;
			for (j = t0; j < t1; j += ZT) {
				float *o = out + (size_t)j * ldo;
				const char *xj = xq + (size_t)(j - t0) * ld;

				switch (t1 - j) {
				case 1: zrows(t, 1, o, ldo, w, xj, ld, n, p0, p1);
					break;
				case 2: zrows(t, 2, o, ldo, w, xj, ld, n, p0, p1);
					break;
				case 3: zrows(t, 3, o, ldo, w, xj, ld, n, p0, p1);
					break;
				default: zrows(t, ZT, o, ldo, w, xj, ld, n, p0,
				    p1);
				}
			}
		}
	}
}

void
kern_gq8_0i_avx512_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	zmatvec(W_GQ8_0I, out, w, x, n, r0, r1);
}

void
kern_gq8_0i_avx512_matmul(float *out, int ldo, const void *w,
    const float *x, int ldx, int n, int T, int r0, int r1)
{
	zmatmul(W_GQ8_0I, out, ldo, w, x, ldx, n, T, r0, r1);
}

void
kern_q4_0i_avx512_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	zmatvec(W_Q4_0I, out, w, x, n, r0, r1);
}

void
kern_q4_0i_avx512_matmul(float *out, int ldo, const void *w,
    const float *x, int ldx, int n, int T, int r0, int r1)
{
	zmatmul(W_Q4_0I, out, ldo, w, x, ldx, n, T, r0, r1);
}

void
kern_q5_0i_avx512_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	zmatvec(W_Q5_0I, out, w, x, n, r0, r1);
}

void
kern_q5_0i_avx512_matmul(float *out, int ldo, const void *w,
    const float *x, int ldx, int n, int T, int r0, int r1)
{
	zmatmul(W_Q5_0I, out, ldo, w, x, ldx, n, T, r0, r1);
}

void
kern_q4_ki_avx512_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	gi8_matvec(W_Q4_KI, out, w, x, n, r0, r1);
}

void
kern_q4_ki_avx512_matmul(float *out, int ldo, const void *w,
    const float *x, int ldx, int n, int T, int r0, int r1)
{
	gi8_matmul(W_Q4_KI, out, ldo, w, x, ldx, n, T, r0, r1);
}

void
kern_q6_ki_avx512_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	gi8_matvec(W_Q6_KI, out, w, x, n, r0, r1);
}

void
kern_q6_ki_avx512_matmul(float *out, int ldo, const void *w,
    const float *x, int ldx, int n, int T, int r0, int r1)
{
	gi8_matmul(W_Q6_KI, out, ldo, w, x, ldx, n, T, r0, r1);
}

#endif
