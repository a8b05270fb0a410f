/* kern_avx2_int.h: what the AVX2 kernel files share (kern_avx2.c,
 * kern_q4_avx2.c, attn_avx2.c, ...; included only by files built with
 * the AVX2 flags).
 * One reduction tree for every dot product, so that the 4-bit kernels
 * agree bit for bit with the float ones over the same weights. */
#ifndef KERN_AVX2_INT_H
#define KERN_AVX2_INT_H

#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "kern/wtype.h"

#define INLINE static inline __attribute__((always_inline))
/* Unroll the small constant loops of a register block completely, so
 * that its accumulators live in registers. */
#if defined(__clang__)
#define UNROLL _Pragma("unroll")
#else
#define UNROLL _Pragma("GCC unroll 8")
#endif

/* 8 bytes at p, zero- or sign-extended to 8 int32 lanes. */
INLINE __m256i
u8x8(const uint8_t *p)
{
	return _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)p));
}

INLINE __m256i
s8x8(const uint8_t *p)
{
	return _mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)p));
}

/* The first m < 8 floats of x, the other lanes 0. */
INLINE __m256
xloadm(const float *x, int m)
{
	float f[8] = { 0 };

	memcpy(f, x, (size_t)m * sizeof *f);
	return _mm256_loadu_ps(f);
}

/* 8 elements from element i of w, a row of type t (W_F32, W_BF16,
 * W_F16: weights, or a KV cache's keys and values), widened exactly:
 * bf16 the bits shifted up, f16 by F16C. */
INLINE __m256
wload(enum wtype t, const void *w, size_t i)
{
	__m128i h;

	switch (t) {
	case W_F16:
		h = _mm_loadu_si128((const __m128i *)((const uint16_t *)w + i));
		return _mm256_cvtph_ps(h);
	case W_BF16:
		h = _mm_loadu_si128((const __m128i *)((const uint16_t *)w + i));
		return _mm256_castsi256_ps(_mm256_slli_epi32(
		    _mm256_cvtepu16_epi32(h), 16));
	default:
		return _mm256_loadu_ps((const float *)w + i);
	}
}

/* The fixed reduction tree of one accumulator. */
INLINE float
hsum(__m256 v)
{
	__m128 b = _mm_add_ps(_mm256_castps256_ps128(v),
	    _mm256_extractf128_ps(v, 1));

	b = _mm_add_ps(b, _mm_movehl_ps(b, b));
	b = _mm_add_ss(b, _mm_movehdup_ps(b));
	return _mm_cvtss_f32(b);
}

/* The sum of v's 8 int32 lanes. */
INLINE int32_t
hsumi(__m256i v)
{
	__m128i a = _mm_add_epi32(_mm256_castsi256_si128(v),
	    _mm256_extracti128_si256(v, 1));

	a = _mm_add_epi32(a, _mm_shuffle_epi32(a, 0x4e));
	a = _mm_add_epi32(a, _mm_shuffle_epi32(a, 0xb1));
	return _mm_cvtsi128_si32(a);
}

/* ---- --int8-act's blocks of 32: one float product a block (kern.h) ---- */

/* Lane k the sum of v[k]'s 8 int32 lanes, k < 8 (exact: integers). */
INLINE __m256i
hsum8i(const __m256i v[8])
{
	__m256i a = _mm256_hadd_epi32(_mm256_hadd_epi32(v[0], v[1]),
	    _mm256_hadd_epi32(v[2], v[3]));
	__m256i b = _mm256_hadd_epi32(_mm256_hadd_epi32(v[4], v[5]),
	    _mm256_hadd_epi32(v[6], v[7]));

	return _mm256_add_epi32(_mm256_permute2x128_si256(a, b, 0x20),
	    _mm256_permute2x128_si256(a, b, 0x31));
}

/* out[g] = the 32-bit groups g of v[0..8): an 8 x 8 transpose. */
INLINE void
tr8x8(__m256i out[8], const __m256i v[8])
{
	__m256i t[8], s[8];
	int k;

	UNROLL
	for (k = 0; k < 4; k++) {
		t[2 * k] = _mm256_unpacklo_epi32(v[2 * k], v[2 * k + 1]);
		t[2 * k + 1] = _mm256_unpackhi_epi32(v[2 * k], v[2 * k + 1]);
	}
	UNROLL
	for (k = 0; k < 2; k++) {
		s[4 * k] = _mm256_unpacklo_epi64(t[4 * k], t[4 * k + 2]);
		s[4 * k + 1] = _mm256_unpackhi_epi64(t[4 * k], t[4 * k + 2]);
		s[4 * k + 2] = _mm256_unpacklo_epi64(t[4 * k + 1],
		    t[4 * k + 3]);
		s[4 * k + 3] = _mm256_unpackhi_epi64(t[4 * k + 1],
		    t[4 * k + 3]);
	}
	UNROLL
	for (k = 0; k < 4; k++) {
		out[k] = _mm256_permute2x128_si256(s[k], s[k + 4], 0x20);
		out[k + 4] = _mm256_permute2x128_si256(s[k], s[k + 4], 0x31);
	}
}

/* ds[k]: chain k's scale products of 8 blocks, k < 8; d[c] = the 8
 * chains' of block c. */
INLINE void
dblocks(__m256 d[8], const __m256 ds[8])
{
	__m256i v[8], g[8];
	int k;

	UNROLL
	for (k = 0; k < 8; k++)
		v[k] = _mm256_castps_si256(ds[k]);
	tr8x8(g, v);
	UNROLL
	for (k = 0; k < 8; k++)
		d[k] = _mm256_castsi256_ps(g[k]);
}

/* 8 chains (lane k of acc: a row and token's, kern.h) through one
 * block: v[k] chain k's 8 int32 lanes, whose sum is its S, d the
 * chains' scale products; one hadd tree, one vcvtdq2ps, one FMA. */
INLINE __m256
chain8(__m256 acc, const __m256i v[8], __m256 d)
{
	return _mm256_fmadd_ps(_mm256_cvtepi32_ps(hsum8i(v)), d, acc);
}

#endif
