/* kern_ggml_avx512.c: the AVX-512 table's kernels of ggml's block
 * types (kern.h): kern_ggml_avx2.c's scheme with the AVX-512 F32 lane
 * discipline (kern_avx512.c: element i in lane i % 16, one FMA per 16
 * in order, the zero-padded tail last, hsum's tree).  Decode makes the
 * weights in zmm registers (the fused functions below; kern_ggml_int.h's
 * gdeq for Q2_K and Q3_K); prefill's panels are dequantized by
 * kern_ggml_int.h's code, as on the AVX2 table, whose to_f32 entries
 * this table shares. */
#if defined(__x86_64__)

#include <immintrin.h>
#include <stdint.h>
#include <string.h>

#include "kern/kern.h"
#include "kern/kern_avx512_int.h"
#include "kern/kern_ggml_int.h"
#include "kern/kern_dec_int.h"

extern const struct kern kern_avx512;

/* ---- decode, fused: the blocks' integers widened in registers ----
 *
 * Each function below takes nb whole blocks of R rows (p[i], advanced)
 * against x and adds their products to o[i].acc16, one FMA per 16
 * weights in order: the weights are made in zmm registers from the
 * block's integers with conv.h's float operations (so the bits of
 * kern_ggml_int.h's and conv.h's), never stored.  The 4-bit types
 * (Q4_0, Q4_K, IQ4_NL) look their 16 possible weights up in a table
 * of one register built per (sub-)block (vpermps, which reads the low
 * 4 bits of each index lane: a nibble needs no mask), so a weight costs
 * its widening, the lookup and its FMA; the others convert and scale
 * 16 at a time. */

/* Lane j of v in every lane. */
INLINE __m512
lane(__m512 v, int j)
{
	return _mm512_permutexvar_ps(_mm512_set1_epi32(j), v);
}

/* 16 bytes at p, zero-extended to 16 int32 lanes. */
INLINE __m512i
u8x16(const uint8_t *p)
{
	return _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)p));
}

INLINE void
acc16(struct gout *o, __m512 w, const float *x)
{
	o->acc16 = _mm512_fmadd_ps(w, _mm512_loadu_ps(x), o->acc16);
}

/* ggml Q8_0: (float)q * d */
INLINE void
fgq8_0(int R, struct gout *o, const uint8_t **p, const float *x, int nb)
{
	__m512 d;
	int b, i;

	for (b = 0; b < nb; b++, x += 32) {
		UNROLL
		for (i = 0; i < R; i++) {
			d = _mm512_set1_ps(gh2f(p[i]));
			acc16(&o[i], _mm512_mul_ps(_mm512_cvtepi32_ps(
			    _mm512_cvtepi8_epi32(_mm_loadu_si128(
			    (const __m128i *)(p[i] + 2)))), d), x);
			acc16(&o[i], _mm512_mul_ps(_mm512_cvtepi32_ps(
			    _mm512_cvtepi8_epi32(_mm_loadu_si128(
			    (const __m128i *)(p[i] + 18)))), d), x + 16);
			p[i] += 34;
		}
	}
}

/* A 4-bit block of 32 at q (element e < 16 the low nibble of byte e,
 * the others the high ones) through the table tab. */
INLINE void
nib32(struct gout *o, __m512 tab, const uint8_t *q, const float *x)
{
	__m512i v = u8x16(q);

	acc16(o, _mm512_permutexvar_ps(v, tab), x);
	acc16(o, _mm512_permutexvar_ps(_mm512_srli_epi32(v, 4), tab), x + 16);
}

/* Q4_0: table (float)(k - 8) * d */
INLINE void
fq4_0(int R, struct gout *o, const uint8_t **p, const float *x, int nb)
{
	const __m512 io = _mm512_setr_ps(-8, -7, -6, -5, -4, -3, -2, -1,
	    0, 1, 2, 3, 4, 5, 6, 7);
	int b, i;

	for (b = 0; b < nb; b++, x += 32) {
		UNROLL
		for (i = 0; i < R; i++) {
			nib32(&o[i], _mm512_mul_ps(io, _mm512_set1_ps(
			    gh2f(p[i]))), p[i] + 2, x);
			p[i] += 18;
		}
	}
}

/* IQ4_NL: table d * kvalues[k] */
INLINE void
fiq4_nl(int R, struct gout *o, const uint8_t **p, const float *x, int nb)
{
	const __m512 kv = _mm512_setr_ps(-127, -104, -83, -65, -49, -35,
	    -22, -10, 1, 13, 25, 38, 53, 69, 89, 113);
	int b, i;

	for (b = 0; b < nb; b++, x += 32) {
		UNROLL
		for (i = 0; i < R; i++) {
			nib32(&o[i], _mm512_mul_ps(_mm512_set1_ps(gh2f(p[i])),
			    kv), p[i] + 2, x);
			p[i] += 18;
		}
	}
}


/* A 5-bit block of 32 at q (low 4 bits as nib32's) whose fifth bits
 * are the 32 bits of qh, through the table lo (fifth bit clear) and hi
 * (set): the bit picks the table by a mask, not an index bit. */
INLINE void
nib32h(struct gout *o, __m512 lo, __m512 hi, const uint8_t *q, uint32_t qh,
    const float *x)
{
	__m512i v = u8x16(q), u = _mm512_srli_epi32(v, 4);

	acc16(o, _mm512_mask_permutexvar_ps(_mm512_permutexvar_ps(v, lo),
	    (__mmask16)qh, v, hi), x);
	acc16(o, _mm512_mask_permutexvar_ps(_mm512_permutexvar_ps(u, lo),
	    (__mmask16)(qh >> 16), u, hi), x + 16);
}

/* 32 elements, element l the 4 bits at sh of byte q[l], the fifth the
 * bit l of mk, through the tables lo and hi (Q5_K's layout). */
INLINE void
nib32hk(struct gout *o, __m512 lo, __m512 hi, const uint8_t *q, int sh,
    uint32_t mk, const float *x)
{
	__m512i v = _mm512_srli_epi32(u8x16(q), (unsigned)sh),
	    u = _mm512_srli_epi32(u8x16(q + 16), (unsigned)sh);

	acc16(o, _mm512_mask_permutexvar_ps(_mm512_permutexvar_ps(v, lo),
	    (__mmask16)mk, v, hi), x);
	acc16(o, _mm512_mask_permutexvar_ps(_mm512_permutexvar_ps(u, lo),
	    (__mmask16)(mk >> 16), u, hi), x + 16);
}

/* Q5_0: tables (float)(k - 16) * d and (float)k * d */
INLINE void
fq5_0(int R, struct gout *o, const uint8_t **p, const float *x, int nb)
{
	const __m512 io = _mm512_setr_ps(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
	    11, 12, 13, 14, 15), im = _mm512_sub_ps(io, _mm512_set1_ps(16));
	__m512 d;
	uint32_t qh;
	int b, i;

	for (b = 0; b < nb; b++, x += 32) {
		UNROLL
		for (i = 0; i < R; i++) {
			d = _mm512_set1_ps(gh2f(p[i]));
			memcpy(&qh, p[i] + 2, 4);
			nib32h(&o[i], _mm512_mul_ps(im, d), _mm512_mul_ps(io, d),
			    p[i] + 6, qh, x);
			p[i] += 22;
		}
	}
}

/* Q4_1: table (float)k * d + m */
INLINE void
fq4_1(int R, struct gout *o, const uint8_t **p, const float *x, int nb)
{
	const __m512 io = _mm512_setr_ps(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
	    11, 12, 13, 14, 15);
	int b, i;

	for (b = 0; b < nb; b++, x += 32) {
		UNROLL
		for (i = 0; i < R; i++) {
			nib32(&o[i], _mm512_add_ps(_mm512_mul_ps(io,
			    _mm512_set1_ps(gh2f(p[i]))), _mm512_set1_ps(
			    gh2f(p[i] + 2))), p[i] + 4, x);
			p[i] += 20;
		}
	}
}

/* Q5_1: tables (float)k * d + m and (float)(k + 16) * d + m */
INLINE void
fq5_1(int R, struct gout *o, const uint8_t **p, const float *x, int nb)
{
	const __m512 io = _mm512_setr_ps(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
	    11, 12, 13, 14, 15), ih = _mm512_add_ps(io, _mm512_set1_ps(16));
	__m512 d, m;
	uint32_t qh;
	int b, i;

	for (b = 0; b < nb; b++, x += 32) {
		UNROLL
		for (i = 0; i < R; i++) {
			d = _mm512_set1_ps(gh2f(p[i]));
			m = _mm512_set1_ps(gh2f(p[i] + 2));
			memcpy(&qh, p[i] + 4, 4);
			nib32h(&o[i], _mm512_add_ps(_mm512_mul_ps(io, d), m),
			    _mm512_add_ps(_mm512_mul_ps(ih, d), m), p[i] + 8, qh,
			    x);
			p[i] += 24;
		}
	}
}

/* IQ4_XS: sub-block j's table (d * (ls_j - 32)) * kvalues[k] */
INLINE void
fiq4_xs(int R, struct gout *o, const uint8_t **p, const float *x, int nb)
{
	const __m512 kv = _mm512_setr_ps(-127, -104, -83, -65, -49, -35,
	    -22, -10, 1, 13, 25, 38, 53, 69, 89, 113);
	unsigned sh;
	float d;
	int b, i, j, ls;

	for (b = 0; b < nb; b++, x += 256) {
		UNROLL
		for (i = 0; i < R; i++) {
			d = gh2f(p[i]);
			sh = (unsigned)p[i][2] | (unsigned)p[i][3] << 8;
			for (j = 0; j < 8; j++) {
				ls = (p[i][4 + j / 2] >> 4 * (j % 2) & 15) |
				    (sh >> 2 * j & 3) << 4;
				nib32(&o[i], _mm512_mul_ps(_mm512_set1_ps(d *
				    (float)(ls - 32)), kv), p[i] + 8 + 16 * j,
				    x + 32 * j);
			}
			p[i] += 136;
		}
	}
}

/* Q5_K: sub-block j's tables (d * sc_j) * k - dmin * mn_j and the same
 * of k + 16; the fifth bit of element l is bit j of qh[l] */
INLINE void
fq5_k(int R, struct gout *o, const uint8_t **p, const float *x, int nb)
{
	const __m512 io = _mm512_setr_ps(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
	    11, 12, 13, 14, 15), ih = _mm512_add_ps(io, _mm512_set1_ps(16));
	const uint8_t *q;
	__m512 sm, d, m;
	__m128i h0, h1;
	uint32_t mk;
	int b, i, j;

	for (b = 0; b < nb; b++, x += 256) {
		UNROLL
		for (i = 0; i < R; i++) {
			sm = _mm512_mul_ps(_mm512_cvtepi32_ps(
			    _mm512_cvtepu8_epi32(k4scales(p[i] + 4))),
			    _mm512_insertf32x8(_mm512_set1_ps(gh2f(p[i])),
			    _mm256_set1_ps(gh2f(p[i] + 2)), 1));
			h0 = _mm_loadu_si128((const __m128i *)(p[i] + 16));
			h1 = _mm_loadu_si128((const __m128i *)(p[i] + 32));
			q = p[i] + 48;
			for (j = 0; j < 8; j++) {
				__m128i bit = _mm_set1_epi8((char)(1 << j));

				d = lane(sm, j);
				m = lane(sm, 8 + j);
				mk = (uint32_t)_mm_test_epi8_mask(h0, bit) |
				    (uint32_t)_mm_test_epi8_mask(h1, bit) << 16;
				/* the low nibbles for even j, high for odd */
				nib32hk(&o[i], _mm512_sub_ps(_mm512_mul_ps(d, io),
				    m), _mm512_sub_ps(_mm512_mul_ps(d, ih), m),
				    q + 32 * (j / 2), 4 * (j & 1), mk, x + 32 * j);
			}
			p[i] += 176;
		}
	}
}

/* Q4_K: sub-block j's table (d * sc_j) * k - dmin * mn_j */
INLINE void
fq4_k(int R, struct gout *o, const uint8_t **p, const float *x, int nb)
{
	const __m512 io = _mm512_setr_ps(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
	    11, 12, 13, 14, 15);
	const uint8_t *q;
	__m512 sm, t0, t1;
	__m512i v0, v1;
	int b, i, k;

	for (b = 0; b < nb; b++, x += 256) {
		UNROLL
		for (i = 0; i < R; i++) {
			/* d * sc_j in lanes j, dmin * mn_j in lanes 8 + j */
			sm = _mm512_mul_ps(_mm512_cvtepi32_ps(
			    _mm512_cvtepu8_epi32(k4scales(p[i] + 4))),
			    _mm512_insertf32x8(_mm512_set1_ps(gh2f(p[i])),
			    _mm256_set1_ps(gh2f(p[i] + 2)), 1));
			q = p[i] + 16;
			UNROLL
			for (k = 0; k < 4; k++, q += 32) {
				t0 = _mm512_sub_ps(_mm512_mul_ps(lane(sm, 2 * k),
				    io), lane(sm, 8 + 2 * k));
				t1 = _mm512_sub_ps(_mm512_mul_ps(lane(sm,
				    2 * k + 1), io), lane(sm, 9 + 2 * k));
				v0 = u8x16(q);
				v1 = u8x16(q + 16);
				acc16(&o[i], _mm512_permutexvar_ps(v0, t0),
				    x + 64 * k);
				acc16(&o[i], _mm512_permutexvar_ps(v1, t0),
				    x + 64 * k + 16);
				acc16(&o[i], _mm512_permutexvar_ps(
				    _mm512_srli_epi32(v0, 4), t1), x + 64 * k + 32);
				acc16(&o[i], _mm512_permutexvar_ps(
				    _mm512_srli_epi32(v1, 4), t1), x + 64 * k + 48);
			}
			p[i] += 144;
		}
	}
}

/* 32 signed bytes g: weights x.. = (d * s0) * g for the first 16,
 * (d * s1) * g for the next (ds: d * s, as conv.h) */
INLINE void
s8x32(struct gout *o, __m256i g, __m512 ds0, __m512 ds1, const float *x)
{
	acc16(o, _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(
	    _mm256_castsi256_si128(g))), ds0), x);
	acc16(o, _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(
	    _mm256_extracti128_si256(g, 1))), ds1), x + 16);
}

/* Q6_K: (d * sc) * (q - 32), q of 6 bits made in bytes */
INLINE void
fq6_k(int R, struct gout *o, const uint8_t **p, const float *x, int nb)
{
	const __m256i m4 = _mm256_set1_epi8(15), m2 = _mm256_set1_epi8(3),
	    e = _mm256_set1_epi8(32);
	const uint8_t *ql, *qh;
	const float *xh;
	__m256i A, B, H;
	__m512 sm;
	int b, i, h;

	for (b = 0; b < nb; b++, x += 256) {
		UNROLL
		for (i = 0; i < R; i++) {
			sm = _mm512_mul_ps(_mm512_set1_ps(gh2f(p[i] + 208)),
			    _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(
			    _mm_loadu_si128((const __m128i *)(p[i] + 192)))));
			UNROLL
			for (h = 0; h < 2; h++) {
				ql = p[i] + 64 * h, qh = p[i] + 128 + 32 * h;
				xh = x + 128 * h;
				A = _mm256_loadu_si256((const __m256i *)ql);
				B = _mm256_loadu_si256((const __m256i *)(ql + 32));
				H = _mm256_loadu_si256((const __m256i *)qh);
				s8x32(&o[i], _mm256_sub_epi8(_mm256_or_si256(
				    _mm256_and_si256(A, m4), _mm256_slli_epi16(
				    _mm256_and_si256(H, m2), 4)), e),
				    lane(sm, 8 * h), lane(sm, 8 * h + 1), xh);
				s8x32(&o[i], _mm256_sub_epi8(_mm256_or_si256(
				    _mm256_and_si256(B, m4), _mm256_slli_epi16(
				    _mm256_and_si256(_mm256_srli_epi16(H, 2), m2),
				    4)), e), lane(sm, 8 * h + 2), lane(sm, 8 * h + 3),
				    xh + 32);
				s8x32(&o[i], _mm256_sub_epi8(_mm256_or_si256(
				    _mm256_and_si256(_mm256_srli_epi16(A, 4), m4),
				    _mm256_slli_epi16(_mm256_and_si256(
				    _mm256_srli_epi16(H, 4), m2), 4)), e),
				    lane(sm, 8 * h + 4), lane(sm, 8 * h + 5), xh + 64);
				s8x32(&o[i], _mm256_sub_epi8(_mm256_or_si256(
				    _mm256_and_si256(_mm256_srli_epi16(B, 4), m4),
				    _mm256_slli_epi16(_mm256_and_si256(
				    _mm256_srli_epi16(H, 6), m2), 4)), e),
				    lane(sm, 8 * h + 6), lane(sm, 8 * h + 7), xh + 96);
			}
			p[i] += 210;
		}
	}
}

/* The sums of R rows (kdec_rows_fn): dot(W[row], x), x as it lies. */
INLINE void
vrows(enum wtype t, int R, float *sum, const uint8_t **p, const float *x,
    const float *xs, int n)
{
	int bs = wtypes[t].block, nb = n / bs, i;
	struct gout o[KDEC_R];

	(void)xs;
	UNROLL
	for (i = 0; i < R; i++) {
		o[i].lanes = 16;
		o[i].acc16 = _mm512_setzero_ps();
	}
	switch (t) {
	case W_GQ8_0: fgq8_0(R, o, p, x, nb); break;
	case W_Q4_0: fq4_0(R, o, p, x, nb); break;
	case W_IQ4_NL: fiq4_nl(R, o, p, x, nb); break;
	case W_Q4_K: fq4_k(R, o, p, x, nb); break;
	case W_Q6_K: fq6_k(R, o, p, x, nb); break;
	case W_Q5_0: fq5_0(R, o, p, x, nb); break;
	case W_Q4_1: fq4_1(R, o, p, x, nb); break;
	case W_Q5_1: fq5_1(R, o, p, x, nb); break;
	case W_Q5_K: fq5_k(R, o, p, x, nb); break;
	case W_IQ4_XS: fiq4_xs(R, o, p, x, nb); break;
	default: kdec_gdeq(t, R, o, p, x, nb); break;
	}
	if (nb * bs < n)
		gtail(t, R, o, p, x + nb * bs, n - nb * bs);
	UNROLL
	for (i = 0; i < R; i++)
		sum[i] = hsum(o[i].acc16);
}

INLINE void
matvec(enum wtype t, float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	kdec_split(t, vrows, out, w, x, NULL, n, r0, r1);
}

void
kern_gq8_0_avx512_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	matvec(W_GQ8_0, out, w, x, n, r0, r1);
}

void
kern_gq8_0_avx512_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	kern_ggml_panels(W_GQ8_0, out, ldo, w, x, ldx, n, T, r0, r1,
	    kern_gq8_0_avx2_to_f32, kern_avx512.matmul[W_F32], kern_gq8_0_avx512_matvec);
}

void
kern_q4_0_avx512_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	matvec(W_Q4_0, out, w, x, n, r0, r1);
}

void
kern_q4_0_avx512_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	kern_ggml_panels(W_Q4_0, out, ldo, w, x, ldx, n, T, r0, r1,
	    kern_q4_0_avx2_to_f32, kern_avx512.matmul[W_F32], kern_q4_0_avx512_matvec);
}

void
kern_q4_1_avx512_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	matvec(W_Q4_1, out, w, x, n, r0, r1);
}

void
kern_q4_1_avx512_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	kern_ggml_panels(W_Q4_1, out, ldo, w, x, ldx, n, T, r0, r1,
	    conv_q4_1_to_f32, kern_avx512.matmul[W_F32], kern_q4_1_avx512_matvec);
}

void
kern_q5_0_avx512_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	matvec(W_Q5_0, out, w, x, n, r0, r1);
}

void
kern_q5_0_avx512_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	kern_ggml_panels(W_Q5_0, out, ldo, w, x, ldx, n, T, r0, r1,
	    kern_q5_0_avx2_to_f32, kern_avx512.matmul[W_F32], kern_q5_0_avx512_matvec);
}

void
kern_q5_1_avx512_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	matvec(W_Q5_1, out, w, x, n, r0, r1);
}

void
kern_q5_1_avx512_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	kern_ggml_panels(W_Q5_1, out, ldo, w, x, ldx, n, T, r0, r1,
	    conv_q5_1_to_f32, kern_avx512.matmul[W_F32], kern_q5_1_avx512_matvec);
}

void
kern_q2_k_avx512_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	matvec(W_Q2_K, out, w, x, n, r0, r1);
}

void
kern_q2_k_avx512_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	kern_ggml_panels(W_Q2_K, out, ldo, w, x, ldx, n, T, r0, r1,
	    conv_q2_k_to_f32, kern_avx512.matmul[W_F32], kern_q2_k_avx512_matvec);
}

void
kern_q3_k_avx512_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	matvec(W_Q3_K, out, w, x, n, r0, r1);
}

void
kern_q3_k_avx512_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	kern_ggml_panels(W_Q3_K, out, ldo, w, x, ldx, n, T, r0, r1,
	    conv_q3_k_to_f32, kern_avx512.matmul[W_F32], kern_q3_k_avx512_matvec);
}

void
kern_q4_k_avx512_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	matvec(W_Q4_K, out, w, x, n, r0, r1);
}

void
kern_q4_k_avx512_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	kern_ggml_panels(W_Q4_K, out, ldo, w, x, ldx, n, T, r0, r1,
	    kern_q4_k_avx2_to_f32, kern_avx512.matmul[W_F32], kern_q4_k_avx512_matvec);
}

void
kern_q5_k_avx512_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	matvec(W_Q5_K, out, w, x, n, r0, r1);
}

void
kern_q5_k_avx512_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	kern_ggml_panels(W_Q5_K, out, ldo, w, x, ldx, n, T, r0, r1,
	    conv_q5_k_to_f32, kern_avx512.matmul[W_F32], kern_q5_k_avx512_matvec);
}

void
kern_q6_k_avx512_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	matvec(W_Q6_K, out, w, x, n, r0, r1);
}

void
kern_q6_k_avx512_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	kern_ggml_panels(W_Q6_K, out, ldo, w, x, ldx, n, T, r0, r1,
	    kern_q6_k_avx2_to_f32, kern_avx512.matmul[W_F32], kern_q6_k_avx512_matvec);
}

void
kern_iq4_nl_avx512_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	matvec(W_IQ4_NL, out, w, x, n, r0, r1);
}

void
kern_iq4_nl_avx512_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	kern_ggml_panels(W_IQ4_NL, out, ldo, w, x, ldx, n, T, r0, r1,
	    conv_iq4_nl_to_f32, kern_avx512.matmul[W_F32], kern_iq4_nl_avx512_matvec);
}

void
kern_iq4_xs_avx512_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	matvec(W_IQ4_XS, out, w, x, n, r0, r1);
}

void
kern_iq4_xs_avx512_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	kern_ggml_panels(W_IQ4_XS, out, ldo, w, x, ldx, n, T, r0, r1,
	    conv_iq4_xs_to_f32, kern_avx512.matmul[W_F32], kern_iq4_xs_avx512_matvec);
}

#endif
