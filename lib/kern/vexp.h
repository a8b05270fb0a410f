/* vexp.h: e^x on vectors, for the per-ISA files (compiled with their ISA
 * flags; include after <immintrin.h>).  A Cephes-style polynomial on
 * the reduced argument, relative error about 2 ulp against expf.
 * vexp8 (AVX2, FMA): inputs clamped to [-87, 88], so lanes below -87 give
 * about 1e-38, not 0; vexp16 (AVX-512 F): clamped to [-104, 88.7],
 * scaled by vscalefps, lanes below -104 give 0. */
#ifndef VEXP_H
#define VEXP_H

#if defined(__AVX2__) && defined(__FMA__)
static inline __attribute__((always_inline)) __m256
vexp8(__m256 x)
{
	__m256 n, r, p;
	__m256i e;

	x = _mm256_max_ps(x, _mm256_set1_ps(-87.0f));
	x = _mm256_min_ps(x, _mm256_set1_ps(88.0f));
	n = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(1.44269504f)),
	    _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
	r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693359375f), x);
	r = _mm256_fnmadd_ps(n, _mm256_set1_ps(-2.12194440e-4f), r);
	p = _mm256_set1_ps(1.9875691500e-4f);
	p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.3981999507e-3f));
	p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(8.3334519073e-3f));
	p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(4.1665795894e-2f));
	p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.6666665459e-1f));
	p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(5.0000001201e-1f));
	p = _mm256_fmadd_ps(_mm256_mul_ps(p, r), r,
	    _mm256_add_ps(r, _mm256_set1_ps(1.0f)));
	e = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n),
	    _mm256_set1_epi32(127)), 23);
	return _mm256_mul_ps(p, _mm256_castsi256_ps(e));
}
#endif

#if defined(__AVX512F__)
static inline __attribute__((always_inline)) __m512
vexp16(__m512 x)
{
	__m512 n, r, p;

	x = _mm512_max_ps(x, _mm512_set1_ps(-104.0f));
	x = _mm512_min_ps(x, _mm512_set1_ps(88.7f));
	n = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(1.44269504f)),
	    _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
	r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693359375f), x);
	r = _mm512_fnmadd_ps(n, _mm512_set1_ps(-2.12194440e-4f), r);
	p = _mm512_set1_ps(1.9875691500e-4f);
	p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.3981999507e-3f));
	p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(8.3334519073e-3f));
	p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(4.1665795894e-2f));
	p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.6666665459e-1f));
	p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(5.0000001201e-1f));
	p = _mm512_fmadd_ps(_mm512_mul_ps(p, r), r,
	    _mm512_add_ps(r, _mm512_set1_ps(1.0f)));
	return _mm512_scalef_ps(p, n);
}
#endif

#endif
