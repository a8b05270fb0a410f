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

#endif
