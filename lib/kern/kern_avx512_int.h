/* kern_avx512_int.h: what the AVX-512 kernel files share (kern_avx512.c,
 * kern_q4_avx512.c, attn_avx512.c, ...; included only by files built
 * with the AVX-512 flags).  One reduction tree for every dot product, so that the 4-bit
 * kernels agree bit for bit with the float ones over the same weights. */
#ifndef KERN_AVX512_INT_H
#define KERN_AVX512_INT_H

#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>

#include "kern/wtype.h"

#define INLINE static inline __attribute__((always_inline))
/* Unroll the small constant loops of a register block completely, so
 * that its accumulators live in registers. */
#if defined(__clang__)
#define UNROLL _Pragma("unroll")
#else
#define UNROLL _Pragma("GCC unroll 8")
#endif

/* 16 elements from element i of w, a row of type t (W_F32, W_BF16,
 * W_F16: weights, or a KV cache's keys and values), widened exactly:
 * bf16 the bits shifted up, f16 by vcvtph2ps. */
INLINE __m512
wload(enum wtype t, const void *w, size_t i)
{
	__m256i h;

	switch (t) {
	case W_F16:
		h = _mm256_loadu_si256((const __m256i *)((const uint16_t *)w
		    + i));
		return _mm512_cvtph_ps(h);
	case W_BF16:
		h = _mm256_loadu_si256((const __m256i *)((const uint16_t *)w
		    + i));
		return _mm512_castsi512_ps(_mm512_slli_epi32(
		    _mm512_cvtepu16_epi32(h), 16));
	default:
		return _mm512_loadu_ps((const float *)w + i);
	}
}

/* The fixed reduction tree of one accumulator. */
INLINE float
hsum(__m512 v)
{
	__m256 a = _mm256_add_ps(_mm512_castps512_ps256(v), _mm256_castpd_ps(
	    _mm512_extractf64x4_pd(_mm512_castps_pd(v), 1)));
	__m128 b = _mm_add_ps(_mm256_castps256_ps128(a),
	    _mm256_extractf128_ps(a, 1));

	b = _mm_add_ps(b, _mm_movehl_ps(b, b));
	b = _mm_add_ss(b, _mm_movehdup_ps(b));
	return _mm_cvtss_f32(b);
}

#endif
