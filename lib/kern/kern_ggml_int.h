/* kern_ggml_int.h: the vector dequantization of ggml's blocks that the
 * AVX2 and AVX-512 tables share (kern_ggml_avx2.c, kern_ggml_avx512.c;
 * included only by files built with the AVX2 flags or more).  Each
 * weight is the float operations of conv.h's scalar one, in its order
 * (products, then the min subtracted; no fused multiply-add), so the
 * blocks come out in the same bits; they are stored (to_f32) or, in
 * decode, multiplied by the activations as they are made (struct
 * gout), 8 or 16 at a time in order, the tables' F32 lane discipline. */
#ifndef KERN_GGML_INT_H
#define KERN_GGML_INT_H

#include <immintrin.h>
#include <stdint.h>
#include <string.h>

#include "kern/conv.h"
#include "kern/wtype.h"

#define GINLINE static inline __attribute__((always_inline))

/* The half at p, as F16C widens it (exactly, as conv_f16_to_f32). */
GINLINE float
gh2f(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return _cvtsh_ss(v);
}

/* Where a block's weights go: stored at y (lanes 0), or multiplied by
 * the activations at x into acc8 (lanes 8: element i of the block in
 * lane i % 8) or acc16 (lanes 16, AVX-512), one FMA per 8 or 16 weights
 * in order.  lanes is a constant after inlining. */
struct gout {
	float *y;
	const float *x;
	int lanes;
	__m256 acc8;
#ifdef __AVX512F__
	__m512 acc16;
#endif
};

/* Weights off .. off + 16 of the block, 8 in a and 8 in b. */
GINLINE void
gput(struct gout *o, int off, __m256 a, __m256 b)
{
	if (o->lanes == 0) {
		_mm256_storeu_ps(o->y + off, a);
		_mm256_storeu_ps(o->y + off + 8, b);
	} else if (o->lanes == 8) {
		o->acc8 = _mm256_fmadd_ps(a, _mm256_loadu_ps(o->x + off),
		    o->acc8);
		o->acc8 = _mm256_fmadd_ps(b, _mm256_loadu_ps(o->x + off + 8),
		    o->acc8);
	}
#ifdef __AVX512F__
	else
		o->acc16 = _mm512_fmadd_ps(_mm512_insertf32x8(
		    _mm512_castps256_ps512(a), b, 1),
		    _mm512_loadu_ps(o->x + off), o->acc16);
#endif
}

/* The low 8 bytes of v, as signed or unsigned, to floats. */
GINLINE __m256
gcvt_i8(__m128i v)
{
	return _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(v));
}

GINLINE __m256
gcvt_u8(__m128i v)
{
	return _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(v));
}

/* 16 values of bytes v (each < 128): weights off.. = v * d. */
GINLINE void
gstore16(struct gout *o, int off, __m128i v, __m256 d)
{
	gput(o, off, _mm256_mul_ps(gcvt_i8(v), d),
	    _mm256_mul_ps(gcvt_i8(_mm_srli_si128(v, 8)), d));
}

/* ggml Q8_0: d, 32 int8 */
GINLINE void
gdeq_gq8_0(struct gout *o, const uint8_t *b)
{
	__m256 d = _mm256_set1_ps(gh2f(b));
	__m128i a = _mm_loadu_si128((const __m128i *)(b + 2)),
	    c = _mm_loadu_si128((const __m128i *)(b + 18));

	gstore16(o, 0, a, d);
	gstore16(o, 16, c, d);
}

/* Q4_0: d, 16 bytes of two nibbles (q - 8) */
GINLINE void
gdeq_q4_0(struct gout *o, const uint8_t *b)
{
	__m256 d = _mm256_set1_ps(gh2f(b));
	__m128i q = _mm_loadu_si128((const __m128i *)(b + 2)),
	    m = _mm_set1_epi8(15), e = _mm_set1_epi8(8);

	gstore16(o, 0, _mm_sub_epi8(_mm_and_si128(q, m), e), d);
	gstore16(o, 16, _mm_sub_epi8(_mm_and_si128(_mm_srli_epi16(q, 4), m),
	    e), d);
}

/* Q5_0: d, 32 high bits, 16 bytes of nibbles ((q | h << 4) - 16) */
GINLINE void
gdeq_q5_0(struct gout *o, const uint8_t *b)
{
	__m256 d = _mm256_set1_ps(gh2f(b));
	uint32_t qh = (uint32_t)b[2] | (uint32_t)b[3] << 8 |
	    (uint32_t)b[4] << 16 | (uint32_t)b[5] << 24;
	__m128i q = _mm_loadu_si128((const __m128i *)(b + 6)),
	    m = _mm_set1_epi8(15), e = _mm_set1_epi8(16);
	/* bit j of qh to bit 4 of byte j: each byte selects its bit */
	const __m128i sel = _mm_set_epi8((char)0x80, 0x40, 0x20, 0x10, 8, 4,
	    2, 1, (char)0x80, 0x40, 0x20, 0x10, 8, 4, 2, 1);
	__m128i hl, hh;

	hl = _mm_shuffle_epi8(_mm_cvtsi32_si128((int)(qh & 0xffff)),
	    _mm_set_epi8(1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0));
	hh = _mm_shuffle_epi8(_mm_cvtsi32_si128((int)(qh >> 16)),
	    _mm_set_epi8(1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0));
	hl = _mm_and_si128(_mm_cmpeq_epi8(_mm_and_si128(hl, sel), sel),
	    e);
	hh = _mm_and_si128(_mm_cmpeq_epi8(_mm_and_si128(hh, sel), sel),
	    e);
	gstore16(o, 0, _mm_sub_epi8(_mm_or_si128(_mm_and_si128(q, m), hl), e), d);
	gstore16(o, 16, _mm_sub_epi8(_mm_or_si128(_mm_and_si128(
	    _mm_srli_epi16(q, 4), m), hh), e), d);
}

/* Scale and min j of a q4_K block's 12 bytes p. */
GINLINE void
gk4(int j, const uint8_t *p, int *sc, int *mn)
{
	if (j < 4) {
		*sc = p[j] & 63;
		*mn = p[j + 4] & 63;
	} else {
		*sc = (p[j + 4] & 15) | (p[j - 4] >> 6) << 4;
		*mn = (p[j + 4] >> 4) | (p[j] >> 6) << 4;
	}
}

/* 32 unsigned bytes v (< 128): weights off.. = d1 * v - m1 */
GINLINE void
gstore32dm(struct gout *o, int off, __m256i v, float d1, float m1)
{
	__m256 d = _mm256_set1_ps(d1), m = _mm256_set1_ps(m1);
	__m128i lo = _mm256_castsi256_si128(v),
	    hi = _mm256_extracti128_si256(v, 1);

	gput(o, off, _mm256_sub_ps(_mm256_mul_ps(d, gcvt_u8(lo)), m),
	    _mm256_sub_ps(_mm256_mul_ps(d, gcvt_u8(_mm_srli_si128(lo, 8))),
	    m));
	gput(o, off + 16, _mm256_sub_ps(_mm256_mul_ps(d, gcvt_u8(hi)), m),
	    _mm256_sub_ps(_mm256_mul_ps(d, gcvt_u8(_mm_srli_si128(hi, 8))),
	    m));
}

/* Q4_K: d, dmin, 12 bytes of scales, 128 bytes of nibbles */
GINLINE void
gdeq_q4_k(struct gout *o, const uint8_t *b)
{
	float d = gh2f(b), dmin = gh2f(b + 2);
	const uint8_t *q = b + 16;
	const __m256i m = _mm256_set1_epi8(15);
	__m256i v;
	int j, sc, mn;

	for (j = 0; j < 8; j += 2, q += 32) {
		v = _mm256_loadu_si256((const __m256i *)q);
		gk4(j, b + 4, &sc, &mn);
		gstore32dm(o, 32 * j, _mm256_and_si256(v, m), d * (float)sc,
		    dmin * (float)mn);
		gk4(j + 1, b + 4, &sc, &mn);
		gstore32dm(o, 32 * j + 32, _mm256_and_si256(_mm256_srli_epi16(v,
		    4), m),
		    d * (float)sc, dmin * (float)mn);
	}
}

/* 32 signed bytes v: weights off + [0, 16) = (d * s0) * v, the next
 * 16 (d * s1) * v */
GINLINE void
gstore32s(struct gout *o, int off, __m256i v, float d, int s0, int s1)
{
	__m256 a = _mm256_set1_ps(d * (float)s0),
	    c = _mm256_set1_ps(d * (float)s1);
	__m128i lo = _mm256_castsi256_si128(v),
	    hi = _mm256_extracti128_si256(v, 1);

	gput(o, off, _mm256_mul_ps(a, gcvt_i8(lo)),
	    _mm256_mul_ps(a, gcvt_i8(_mm_srli_si128(lo, 8))));
	gput(o, off + 16, _mm256_mul_ps(c, gcvt_i8(hi)),
	    _mm256_mul_ps(c, gcvt_i8(_mm_srli_si128(hi, 8))));
}

/* Q6_K: 128 bytes of low nibbles, 64 of 2-bit highs, 16 int8 scales, d */
GINLINE void
gdeq_q6_k(struct gout *o, const uint8_t *b)
{
	const uint8_t *ql = b, *qh = b + 128;
	const int8_t *sc = (const int8_t *)(b + 192);
	float d = gh2f(b + 208);
	const __m256i m4 = _mm256_set1_epi8(15), m2 = _mm256_set1_epi8(3),
	    e = _mm256_set1_epi8(32);
	__m256i A, B, H;
	int h;

	for (h = 0; h < 2; h++, ql += 64, qh += 32, sc += 8) {
		A = _mm256_loadu_si256((const __m256i *)ql);
		B = _mm256_loadu_si256((const __m256i *)(ql + 32));
		H = _mm256_loadu_si256((const __m256i *)qh);
		gstore32s(o, 128 * h, _mm256_sub_epi8(_mm256_or_si256(_mm256_and_si256(A,
		    m4), _mm256_slli_epi16(_mm256_and_si256(H, m2), 4)), e), d,
		    sc[0], sc[1]);
		gstore32s(o, 128 * h + 32, _mm256_sub_epi8(_mm256_or_si256(
		    _mm256_and_si256(B, m4), _mm256_slli_epi16(_mm256_and_si256(
		    _mm256_srli_epi16(H, 2), m2), 4)), e), d, sc[2], sc[3]);
		gstore32s(o, 128 * h + 64, _mm256_sub_epi8(_mm256_or_si256(
		    _mm256_and_si256(_mm256_srli_epi16(A, 4), m4),
		    _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(H, 4),
		    m2), 4)), e), d, sc[4], sc[5]);
		gstore32s(o, 128 * h + 96, _mm256_sub_epi8(_mm256_or_si256(
		    _mm256_and_si256(_mm256_srli_epi16(B, 4), m4),
		    _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(H, 6),
		    m2), 4)), e), d, sc[6], sc[7]);
	}
}

/* One block of type t at b (wtypes[t].block weights) into o: the
 * vector code where there is one, else conv.h's through a buffer. */
GINLINE void
gdeq(enum wtype t, struct gout *o, const uint8_t *b)
{
	_Alignas(64) float tmp[256];
	float *y = o->lanes ? tmp : o->y;
	int k;

	switch (t) {
	case W_GQ8_0: gdeq_gq8_0(o, b); return;
	case W_Q4_0: gdeq_q4_0(o, b); return;
	case W_Q5_0: gdeq_q5_0(o, b); return;
	case W_Q4_K: gdeq_q4_k(o, b); return;
	case W_Q6_K: gdeq_q6_k(o, b); return;
	case W_Q4_1: conv_q4_1_to_f32(y, b, 32); break;
	case W_Q5_1: conv_q5_1_to_f32(y, b, 32); break;
	case W_Q2_K: conv_q2_k_to_f32(y, b, 256); break;
	case W_Q3_K: conv_q3_k_to_f32(y, b, 256); break;
	case W_Q5_K: conv_q5_k_to_f32(y, b, 256); break;
	case W_IQ4_NL: conv_iq4_nl_to_f32(y, b, 32); break;
	case W_IQ4_XS: conv_iq4_xs_to_f32(y, b, 256); break;
	default: return;
	}
	for (k = 0; o->lanes && k < wtypes[t].block; k += 16)
		gput(o, k, _mm256_load_ps(tmp + k), _mm256_load_ps(tmp + k + 8));
}

/* The partial last block of R rows, m < its block's weights at each
 * p[i] (rows that are not whole blocks: not in GGUF files), into each
 * o[i] through buffers, the weights past m and x's tail zero. */
GINLINE void
gtail(enum wtype t, int R, struct gout *o, const uint8_t *const *p,
    const float *x, int m)
{
	_Alignas(64) float wb[256], xb[256];
	struct gout st = { .lanes = 0, .y = wb };
	int i, k;

	memset(xb, 0, sizeof xb);
	memcpy(xb, x, (size_t)m * sizeof *xb);
	for (i = 0; i < R; i++) {
		gdeq(t, &st, p[i]);
		memset(wb + m, 0, (size_t)(256 - m) * sizeof *wb);
		o[i].x = xb;
		for (k = 0; k < m; k += 16)
			gput(&o[i], k, _mm256_load_ps(wb + k),
			    _mm256_load_ps(wb + k + 8));
	}
}

/* n weights of type t at w into out, as conv.h's X_to_f32. */
GINLINE void
gtof32(enum wtype t, float *out, const void *w, size_t n)
{
	const uint8_t *p = w;
	int bs = wtypes[t].block, by = wtypes[t].bytes;
	float tmp[256];
	struct gout o = { .lanes = 0 };
	size_t i;

	for (i = 0; i + (size_t)bs <= n; i += (size_t)bs, p += by) {
		o.y = out + i;
		gdeq(t, &o, p);
	}
	if (i < n) {
		o.y = tmp;
		gdeq(t, &o, p);
		memcpy(out + i, tmp, (n - i) * sizeof *out);
	}
}

/* The 8 scales and 8 mins of a q4_K / q5_K block's 12 bytes s (6 bits
 * each: gk4), as bytes 0-7 and 8-15; reads 16 bytes (the block's
 * quants follow).  In 32-bit lanes u0, u1, u2 of s: scales 0-3 are u0's
 * low 6 bits a byte, mins 0-3 u1's; scales 4-7 the low nibbles of u2
 * with u0's top 2 bits above them, mins 4-7 u2's high nibbles with
 * u1's. */
GINLINE __m128i
k4scales(const uint8_t *s)
{
	__m128i v = _mm_loadu_si128((const __m128i *)s),
	    lo = _mm_shuffle_epi32(v, _MM_SHUFFLE(2, 1, 2, 0)),	/* u0 u2 u1 u2 */
	    hi = _mm_shuffle_epi32(v, _MM_SHUFFLE(1, 1, 0, 0));	/* u0 u0 u1 u1 */

	lo = _mm_and_si128(_mm_srlv_epi32(lo, _mm_setr_epi32(0, 0, 0, 4)),
	    _mm_setr_epi32(0x3f3f3f3f, 0x0f0f0f0f, 0x3f3f3f3f, 0x0f0f0f0f));
	hi = _mm_and_si128(_mm_srli_epi32(hi, 2), _mm_setr_epi32(0,
	    0x30303030, 0, 0x30303030));
	return _mm_or_si128(lo, hi);
}

/* 2^-s (s < 32): the factored decodes' activations scaled for a field
 * masked in place at bit s (exact) */
GINLINE float
gp2(int s)
{
	union { uint32_t u; float f; } v = { (uint32_t)(127 - s) << 23 };

	return v.f;
}

#endif
