/* kern_ggml_avx2.c: the AVX2 table's kernels of ggml's block types
 * (kern.h).  Decode: KDEC_R rows side by side (kern_dec_int.h), each
 * row's weights multiplied by the activations as they are made in
 * registers (the fused functions below; kern_ggml_int.h's gdeq for Q5_0, Q5_1, Q2_K,
 * Q3_K), with the AVX2 F32 lane discipline (kern_avx2.c): element
 * i in lane i % 8, one FMA per 8 in order, the zero-padded tail last,
 * hsum's tree; so a row gives the AVX2 F32 matvec of its dequantized
 * weights, bit for bit.  Prefill: panels of dequantized rows through
 * the AVX2 F32 matmul (kern_ggml_panels), the same bits. */
#if defined(__x86_64__)

#include <immintrin.h>
#include <stdint.h>
#include <string.h>

#include "kern/kern.h"
#include "kern/kern_avx2_int.h"
#include "kern/kern_ggml_int.h"
#include "kern/kern_dec_int.h"

extern const struct kern kern_avx2;

/* ---- decode, fused: the blocks' integers widened in registers ----
 *
 * Each function below takes nb whole blocks of R rows (p[i], advanced)
 * against x and adds their products to o[i].acc8, one FMA per 8
 * weights in order, each weight made in a ymm register from the
 * block's integers by conv.h's float operations (so its bits), never
 * stored: 8 bytes widened to 8 int32 lanes at once, a nibble's two
 * halves by a mask and a shift of the same lanes. */

INLINE void
acc8(struct gout *o, __m256 w, const float *x)
{
	o->acc8 = _mm256_fmadd_ps(w, _mm256_loadu_ps(x), o->acc8);
}

/* Lane j of v in every lane. */
INLINE __m256
lane8(__m256 v, int j)
{
	return _mm256_permutevar8x32_ps(v, _mm256_set1_epi32(j));
}

/* ggml Q8_0: (float)q * d */
INLINE void
fgq8_0(int R, struct gout *o, const uint8_t **p, const float *x, int nb)
{
	__m256 d;
	int b, i, k;

	for (b = 0; b < nb; b++, x += 32) {
		UNROLL
		for (i = 0; i < R; i++) {
			d = _mm256_set1_ps(gh2f(p[i]));
			UNROLL
			for (k = 0; k < 32; k += 8)
				acc8(&o[i], _mm256_mul_ps(_mm256_cvtepi32_ps(
				    s8x8(p[i] + 2 + k)), d), x + k);
			p[i] += 34;
		}
	}
}

/* Q4_0: (float)(q - 8) * d */
INLINE void
fq4_0(int R, struct gout *o, const uint8_t **p, const float *x, int nb)
{
	const __m256i m = _mm256_set1_epi32(15), e = _mm256_set1_epi32(8);
	__m256i v0, v1;
	__m256 d;
	int b, i;

	for (b = 0; b < nb; b++, x += 32) {
		UNROLL
		for (i = 0; i < R; i++) {
			d = _mm256_set1_ps(gh2f(p[i]));
			v0 = u8x8(p[i] + 2);
			v1 = u8x8(p[i] + 10);
			acc8(&o[i], _mm256_mul_ps(_mm256_cvtepi32_ps(
			    _mm256_sub_epi32(_mm256_and_si256(v0, m), e)), d), x);
			acc8(&o[i], _mm256_mul_ps(_mm256_cvtepi32_ps(
			    _mm256_sub_epi32(_mm256_and_si256(v1, m), e)), d),
			    x + 8);
			acc8(&o[i], _mm256_mul_ps(_mm256_cvtepi32_ps(
			    _mm256_sub_epi32(_mm256_srli_epi32(v0, 4), e)), d),
			    x + 16);
			acc8(&o[i], _mm256_mul_ps(_mm256_cvtepi32_ps(
			    _mm256_sub_epi32(_mm256_srli_epi32(v1, 4), e)), d),
			    x + 24);
			p[i] += 18;
		}
	}
}

/* Q4_1: (float)q * d + m */
INLINE void
fq4_1(int R, struct gout *o, const uint8_t **p, const float *x, int nb)
{
	const __m256i m = _mm256_set1_epi32(15);
	__m256i v0, v1;
	__m256 d, mn;
	int b, i;

	for (b = 0; b < nb; b++, x += 32) {
		UNROLL
		for (i = 0; i < R; i++) {
			d = _mm256_set1_ps(gh2f(p[i]));
			mn = _mm256_set1_ps(gh2f(p[i] + 2));
			v0 = u8x8(p[i] + 4);
			v1 = u8x8(p[i] + 12);
			acc8(&o[i], _mm256_add_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(
			    _mm256_and_si256(v0, m)), d), mn), x);
			acc8(&o[i], _mm256_add_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(
			    _mm256_and_si256(v1, m)), d), mn), x + 8);
			acc8(&o[i], _mm256_add_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(
			    _mm256_srli_epi32(v0, 4)), d), mn), x + 16);
			acc8(&o[i], _mm256_add_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(
			    _mm256_srli_epi32(v1, 4)), d), mn), x + 24);
			p[i] += 20;
		}
	}
}

/* 32 weights of IQ4_NL's non-linear values from the 16 bytes at q
 * (element e < 16 the low nibble of byte e): dl * kvalues[k], the
 * values looked up as bytes (vpshufb), then widened. */
INLINE void
iq4x32(struct gout *o, __m256 dl, const uint8_t *q, const float *x)
{
	const __m128i kv = _mm_setr_epi8(-127, -104, -83, -65, -49, -35,
	    -22, -10, 1, 13, 25, 38, 53, 69, 89, 113), m = _mm_set1_epi8(15);
	__m128i v = _mm_loadu_si128((const __m128i *)q),
	    lo = _mm_shuffle_epi8(kv, _mm_and_si128(v, m)),
	    hi = _mm_shuffle_epi8(kv, _mm_and_si128(_mm_srli_epi16(v, 4), m));

	acc8(o, _mm256_mul_ps(dl, _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(lo))),
	    x);
	acc8(o, _mm256_mul_ps(dl, _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(
	    _mm_srli_si128(lo, 8)))), x + 8);
	acc8(o, _mm256_mul_ps(dl, _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(hi))),
	    x + 16);
	acc8(o, _mm256_mul_ps(dl, _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(
	    _mm_srli_si128(hi, 8)))), x + 24);
}

/* IQ4_NL: d * kvalues[q] */
INLINE void
fiq4_nl(int R, struct gout *o, const uint8_t **p, const float *x, int nb)
{
	int b, i;

	for (b = 0; b < nb; b++, x += 32) {
		UNROLL
		for (i = 0; i < R; i++) {
			iq4x32(&o[i], _mm256_set1_ps(gh2f(p[i])), p[i] + 2, x);
			p[i] += 18;
		}
	}
}

/* IQ4_XS: (d * (ls_j - 32)) * kvalues[q] in sub-block j */
INLINE void
fiq4_xs(int R, struct gout *o, const uint8_t **p, const float *x, int nb)
{
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
				iq4x32(&o[i], _mm256_set1_ps(d * (float)(ls - 32)),
				    p[i] + 8 + 16 * j, x + 32 * j);
			}
			p[i] += 136;
		}
	}
}


/* Q4_K: (d * sc_j) * q - dmin * mn_j in sub-block j */
INLINE void
fq4_k(int R, struct gout *o, const uint8_t **p, const float *x, int nb)
{
	const __m256i m = _mm256_set1_epi32(15);
	const uint8_t *q;
	__m256 ds, dm, d1, m1;
	__m256i v[4];
	__m128i sc;
	int b, i, k, c;

	for (b = 0; b < nb; b++, x += 256) {
		UNROLL
		for (i = 0; i < R; i++) {
			sc = k4scales(p[i] + 4);
			ds = _mm256_mul_ps(_mm256_set1_ps(gh2f(p[i])),
			    _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(sc)));
			dm = _mm256_mul_ps(_mm256_set1_ps(gh2f(p[i] + 2)),
			    _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(
			    _mm_srli_si128(sc, 8))));
			q = p[i] + 16;
			for (k = 0; k < 4; k++, q += 32) {
				UNROLL
				for (c = 0; c < 4; c++)
					v[c] = u8x8(q + 8 * c);
				d1 = lane8(ds, 2 * k);
				m1 = lane8(dm, 2 * k);
				UNROLL
				for (c = 0; c < 4; c++)
					acc8(&o[i], _mm256_sub_ps(_mm256_mul_ps(d1,
					    _mm256_cvtepi32_ps(_mm256_and_si256(v[c],
					    m))), m1), x + 64 * k + 8 * c);
				d1 = lane8(ds, 2 * k + 1);
				m1 = lane8(dm, 2 * k + 1);
				UNROLL
				for (c = 0; c < 4; c++)
					acc8(&o[i], _mm256_sub_ps(_mm256_mul_ps(d1,
					    _mm256_cvtepi32_ps(_mm256_srli_epi32(
					    v[c], 4))), m1), x + 64 * k + 32 + 8 * c);
			}
			p[i] += 144;
		}
	}
}

/* Sub-block j of a q5_K block: the low 4 bits of v[c] (bytes 8c..
 * widened), the fifth bit j of hb[c] (qh widened alike). */
INLINE void
q5x32(struct gout *o, const __m256i *v, const __m256i *hb, __m256i m,
    int j, __m256 d1, __m256 m1, const float *x)
{
	const __m256i one = _mm256_set1_epi32(1);
	int c;

	UNROLL
	for (c = 0; c < 4; c++)
		acc8(o, _mm256_sub_ps(_mm256_mul_ps(d1, _mm256_cvtepi32_ps(
		    _mm256_or_si256(_mm256_and_si256(v[c], m),
		    _mm256_slli_epi32(_mm256_and_si256(_mm256_srli_epi32(
		    hb[c], j), one), 4)))), m1), x + 8 * c);
}

/* Q5_K: (d * sc_j) * (q | h << 4) - dmin * mn_j in sub-block j, h
 * bit j of qh[l] for element l */
INLINE void
fq5_k(int R, struct gout *o, const uint8_t **p, const float *x, int nb)
{
	const __m256i m = _mm256_set1_epi32(15);
	const uint8_t *q;
	__m256 ds, dm;
	__m256i v[4], hb[4];
	__m128i sc;
	int b, i, j, c;

	for (b = 0; b < nb; b++, x += 256) {
		UNROLL
		for (i = 0; i < R; i++) {
			sc = k4scales(p[i] + 4);
			ds = _mm256_mul_ps(_mm256_set1_ps(gh2f(p[i])),
			    _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(sc)));
			dm = _mm256_mul_ps(_mm256_set1_ps(gh2f(p[i] + 2)),
			    _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(
			    _mm_srli_si128(sc, 8))));
			UNROLL
			for (c = 0; c < 4; c++)
				hb[c] = u8x8(p[i] + 16 + 8 * c);
			q = p[i] + 48;
			for (j = 0; j < 8; j += 2, q += 32) {
				UNROLL
				for (c = 0; c < 4; c++)
					v[c] = u8x8(q + 8 * c);
				q5x32(&o[i], v, hb, m, j, lane8(ds, j),
				    lane8(dm, j), x + 32 * j);
				UNROLL
				for (c = 0; c < 4; c++)
					v[c] = _mm256_srli_epi32(v[c], 4);
				q5x32(&o[i], v, hb, m, j + 1, lane8(ds, j + 1),
				    lane8(dm, j + 1), x + 32 * j + 32);
			}
			p[i] += 176;
		}
	}
}

/* 32 signed bytes g: weights x.. = ds0 * g for the first 16, ds1 * g
 * for the next (ds: d * scale, as conv.h) */
INLINE void
s8x32(struct gout *o, __m256i g, __m256 ds0, __m256 ds1, const float *x)
{
	__m128i lo = _mm256_castsi256_si128(g),
	    hi = _mm256_extracti128_si256(g, 1);

	acc8(o, _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(lo)),
	    ds0), x);
	acc8(o, _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(
	    _mm_srli_si128(lo, 8))), ds0), x + 8);
	acc8(o, _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(hi)),
	    ds1), x + 16);
	acc8(o, _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(
	    _mm_srli_si128(hi, 8))), ds1), x + 24);
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
	__m256 s0, s1;
	int b, i, h;

	for (b = 0; b < nb; b++, x += 256) {
		UNROLL
		for (i = 0; i < R; i++) {
			__m256 d = _mm256_set1_ps(gh2f(p[i] + 208));

			for (h = 0; h < 2; h++) {
				ql = p[i] + 64 * h, qh = p[i] + 128 + 32 * h;
				xh = x + 128 * h;
				/* d * sc for this half's 8 scales */
				s0 = _mm256_mul_ps(d, _mm256_cvtepi32_ps(
				    s8x8(p[i] + 192 + 8 * h)));
				A = _mm256_loadu_si256((const __m256i *)ql);
				B = _mm256_loadu_si256((const __m256i *)(ql + 32));
				H = _mm256_loadu_si256((const __m256i *)qh);
				s1 = s0;
				s8x32(&o[i], _mm256_sub_epi8(_mm256_or_si256(
				    _mm256_and_si256(A, m4), _mm256_slli_epi16(
				    _mm256_and_si256(H, m2), 4)), e),
				    lane8(s1, 0), lane8(s1, 1), xh);
				s8x32(&o[i], _mm256_sub_epi8(_mm256_or_si256(
				    _mm256_and_si256(B, m4), _mm256_slli_epi16(
				    _mm256_and_si256(_mm256_srli_epi16(H, 2), m2),
				    4)), e), lane8(s1, 2), lane8(s1, 3), xh + 32);
				s8x32(&o[i], _mm256_sub_epi8(_mm256_or_si256(
				    _mm256_and_si256(_mm256_srli_epi16(A, 4), m4),
				    _mm256_slli_epi16(_mm256_and_si256(
				    _mm256_srli_epi16(H, 4), m2), 4)), e),
				    lane8(s1, 4), lane8(s1, 5), xh + 64);
				s8x32(&o[i], _mm256_sub_epi8(_mm256_or_si256(
				    _mm256_and_si256(_mm256_srli_epi16(B, 4), m4),
				    _mm256_slli_epi16(_mm256_and_si256(
				    _mm256_srli_epi16(H, 6), m2), 4)), e),
				    lane8(s1, 6), lane8(s1, 7), xh + 96);
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
		o[i].lanes = 8;
		o[i].acc8 = _mm256_setzero_ps();
	}
	switch (t) {
	case W_GQ8_0: fgq8_0(R, o, p, x, nb); break;
	case W_Q4_0: fq4_0(R, o, p, x, nb); break;
	case W_Q4_K: fq4_k(R, o, p, x, nb); break;
	case W_Q6_K: fq6_k(R, o, p, x, nb); break;
	case W_Q4_1: fq4_1(R, o, p, x, nb); break;
	case W_Q5_K: fq5_k(R, o, p, x, nb); break;
	case W_IQ4_NL: fiq4_nl(R, o, p, x, nb); break;
	case W_IQ4_XS: fiq4_xs(R, o, p, x, nb); break;
	default: kdec_gdeq(t, R, o, p, x, nb); break;
	}
	if (nb * bs < n)
		gtail(t, R, o, p, x + nb * bs, n - nb * bs);
	UNROLL
	for (i = 0; i < R; i++)
		sum[i] = hsum(o[i].acc8);
}

INLINE void
matvec(enum wtype t, float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	kdec_split(t, vrows, out, w, x, NULL, n, r0, r1);
}

/* ---- the entries ---- */

void
kern_gq8_0_avx2_to_f32(float *out, const void *w, size_t n)
{
	gtof32(W_GQ8_0, out, w, n);
}

void
kern_q4_0_avx2_to_f32(float *out, const void *w, size_t n)
{
	gtof32(W_Q4_0, out, w, n);
}

void
kern_q5_0_avx2_to_f32(float *out, const void *w, size_t n)
{
	gtof32(W_Q5_0, out, w, n);
}

void
kern_q4_k_avx2_to_f32(float *out, const void *w, size_t n)
{
	gtof32(W_Q4_K, out, w, n);
}

void
kern_q6_k_avx2_to_f32(float *out, const void *w, size_t n)
{
	gtof32(W_Q6_K, out, w, n);
}

void
kern_gq8_0_avx2_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	matvec(W_GQ8_0, out, w, x, n, r0, r1);
}

void
kern_gq8_0_avx2_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	kern_ggml_panels(W_GQ8_0, out, ldo, w, x, ldx, n, T, r0, r1,
	    kern_gq8_0_avx2_to_f32, kern_avx2.matmul[W_F32], kern_gq8_0_avx2_matvec);
}

void
kern_q4_0_avx2_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	matvec(W_Q4_0, out, w, x, n, r0, r1);
}

void
kern_q4_0_avx2_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	kern_ggml_panels(W_Q4_0, out, ldo, w, x, ldx, n, T, r0, r1,
	    kern_q4_0_avx2_to_f32, kern_avx2.matmul[W_F32], kern_q4_0_avx2_matvec);
}

void
kern_q4_1_avx2_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	matvec(W_Q4_1, out, w, x, n, r0, r1);
}

void
kern_q4_1_avx2_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	kern_ggml_panels(W_Q4_1, out, ldo, w, x, ldx, n, T, r0, r1,
	    conv_q4_1_to_f32, kern_avx2.matmul[W_F32], kern_q4_1_avx2_matvec);
}

void
kern_q5_0_avx2_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	matvec(W_Q5_0, out, w, x, n, r0, r1);
}

void
kern_q5_0_avx2_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	kern_ggml_panels(W_Q5_0, out, ldo, w, x, ldx, n, T, r0, r1,
	    kern_q5_0_avx2_to_f32, kern_avx2.matmul[W_F32], kern_q5_0_avx2_matvec);
}

void
kern_q5_1_avx2_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	matvec(W_Q5_1, out, w, x, n, r0, r1);
}

void
kern_q5_1_avx2_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	kern_ggml_panels(W_Q5_1, out, ldo, w, x, ldx, n, T, r0, r1,
	    conv_q5_1_to_f32, kern_avx2.matmul[W_F32], kern_q5_1_avx2_matvec);
}

void
kern_q2_k_avx2_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	matvec(W_Q2_K, out, w, x, n, r0, r1);
}

void
kern_q2_k_avx2_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	kern_ggml_panels(W_Q2_K, out, ldo, w, x, ldx, n, T, r0, r1,
	    conv_q2_k_to_f32, kern_avx2.matmul[W_F32], kern_q2_k_avx2_matvec);
}

void
kern_q3_k_avx2_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	matvec(W_Q3_K, out, w, x, n, r0, r1);
}

void
kern_q3_k_avx2_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	kern_ggml_panels(W_Q3_K, out, ldo, w, x, ldx, n, T, r0, r1,
	    conv_q3_k_to_f32, kern_avx2.matmul[W_F32], kern_q3_k_avx2_matvec);
}

void
kern_q4_k_avx2_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	matvec(W_Q4_K, out, w, x, n, r0, r1);
}

void
kern_q4_k_avx2_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	kern_ggml_panels(W_Q4_K, out, ldo, w, x, ldx, n, T, r0, r1,
	    kern_q4_k_avx2_to_f32, kern_avx2.matmul[W_F32], kern_q4_k_avx2_matvec);
}

void
kern_q5_k_avx2_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	matvec(W_Q5_K, out, w, x, n, r0, r1);
}

void
kern_q5_k_avx2_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	kern_ggml_panels(W_Q5_K, out, ldo, w, x, ldx, n, T, r0, r1,
	    conv_q5_k_to_f32, kern_avx2.matmul[W_F32], kern_q5_k_avx2_matvec);
}

void
kern_q6_k_avx2_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	matvec(W_Q6_K, out, w, x, n, r0, r1);
}

void
kern_q6_k_avx2_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	kern_ggml_panels(W_Q6_K, out, ldo, w, x, ldx, n, T, r0, r1,
	    kern_q6_k_avx2_to_f32, kern_avx2.matmul[W_F32], kern_q6_k_avx2_matvec);
}

void
kern_iq4_nl_avx2_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	matvec(W_IQ4_NL, out, w, x, n, r0, r1);
}

void
kern_iq4_nl_avx2_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	kern_ggml_panels(W_IQ4_NL, out, ldo, w, x, ldx, n, T, r0, r1,
	    conv_iq4_nl_to_f32, kern_avx2.matmul[W_F32], kern_iq4_nl_avx2_matvec);
}

void
kern_iq4_xs_avx2_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	matvec(W_IQ4_XS, out, w, x, n, r0, r1);
}

void
kern_iq4_xs_avx2_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	kern_ggml_panels(W_IQ4_XS, out, ldo, w, x, ldx, n, T, r0, r1,
	    conv_iq4_xs_to_f32, kern_avx2.matmul[W_F32], kern_iq4_xs_avx2_matvec);
}

#endif
