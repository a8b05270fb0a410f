/* attn_q8.h: a Q8_0 cache's attention scores in llama.cpp's arithmetic
 * (attn.h's attn_q8gscore), one key at a time, for the per-ISA files
 * (compiled with AVX2 and F16C; include after <immintrin.h>): the
 * AVX-512 table's tiles where q8vnni does not run (no AVX512-VNNI, a
 * head size not a multiple of 64).  The AVX2 table scores 8 keys at a
 * time instead (attn_avx2.c's q8t). */
#ifndef ATTN_Q8_H
#define ATTN_Q8_H

#include <stdint.h>
#include <string.h>

#if defined(__AVX2__) && defined(__F16C__)
/* The int8 products of a Q8_0 block of query qb and a key's 32 int8 k summed
 * (exact): vpmaddubsw on |q| and k with q's sign, pairs of at most
 * 2 * 127 * 127 (attn_kvstore's int8 are within +-127: no
 * saturation), then vpmaddwd and the 8 lanes. */
static inline __attribute__((always_inline)) int32_t
q8isum(const unsigned char *qb, const signed char *kq)
{
	__m256i q = _mm256_loadu_si256((const __m256i *)(qb + 2)),
	    k = _mm256_loadu_si256((const __m256i *)kq), s;
	__m128i x;

	s = _mm256_madd_epi16(_mm256_maddubs_epi16(_mm256_abs_epi8(q),
	    _mm256_sign_epi8(k, q)), _mm256_set1_epi16(1));
	x = _mm_add_epi32(_mm256_castsi256_si128(s),
	    _mm256_extracti128_si256(s, 1));
	x = _mm_add_epi32(x, _mm_shuffle_epi32(x, 0x4e));
	x = _mm_add_epi32(x, _mm_shuffle_epi32(x, 0xb1));
	return _mm_cvtsi128_si32(x);
}

/* attn_q8gscore (attn.h) of the quantized query row qq and row r of
 * the Q8_0 key group g, rows of n elements: its bits, the blocks in
 * order. */
static inline __attribute__((always_inline)) float
q8score(const unsigned char *qq, const void *g, int r, int n)
{
	const signed char *k = attn_q8gq(g, n, r);
	const uint16_t *dk = (const uint16_t *)g + r;
	float s = 0, p;
	uint16_t dq;
	int i;

	for (i = 0; i < n; i += 32, qq += 34) {
		memcpy(&dq, qq, sizeof(dq));
		p = (float)q8isum(qq, k + i) * (_cvtsh_ss(dq) *
		    _cvtsh_ss(dk[ATTN_Q8G * (i / 32)]));
		s = s + p;	/* a statement of its own: no FMA */
	}
	return s;
}

#endif
#endif
