/* kern_gptq_avx2.c: the W_GPTQ4 entries of the AVX2 table (gptq.h),
 * kern_gptq_avx512.c's scheme in 8 lanes: a vector of 8 qweight words
 * is 8 inputs of 8 outputs, and those outputs' zero points one qzeros
 * word; W_AWQ4's tiles likewise (below). */
#if defined(__x86_64__)

#include <immintrin.h>
#include <stdint.h>
#include <string.h>

#include "kern/gptq.h"
#include "kern/kern.h"
#include "kern/kern_avx2_int.h"

#define OC 512	/* outputs a decode chunk (a multiple of 8) */
#define TG 4	/* tokens a prefill pass */
#define MAGIC 0x4B000000	/* 2^23 as float bits */

/* Lanes of the 8 outputs from o that are below lim, as a mask vector. */
INLINE __m256i
below(int o, int lim)
{
	return _mm256_cmpgt_epi32(_mm256_set1_epi32(lim - o),
	    _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

/* The scales and the zero points (as floats 2^23 + z) of the 8 outputs
 * from o (a multiple of 8) in group g; lanes at or past rows are 0. */
INLINE void
sz(const struct kern_gptq *m, int g, int o, __m256 *s, __m256 *zf)
{
	size_t i = (size_t)g * m->rows + o;
	__m256i v;
	float t[8];
	int l;

	if (o >= m->rows) {
		*s = *zf = _mm256_setzero_ps();
		return;
	}
	if (o + 8 <= m->rows)
		switch (m->st) {
		case W_F16:
			*s = _mm256_cvtph_ps(_mm_loadu_si128((const void *)
			    ((const uint16_t *)m->s + i)));
			break;
		case W_BF16:
			*s = _mm256_castsi256_ps(_mm256_slli_epi32(
			    _mm256_cvtepu16_epi32(_mm_loadu_si128((const void *)
			    ((const uint16_t *)m->s + i))), 16));
			break;
		default:
			*s = _mm256_loadu_ps((const float *)m->s + i);
			break;
		}
	else {
		for (l = 0; l < 8; l++)
			t[l] = o + l < m->rows ? kern_gptq_scale(m, g, o + l) : 0;
		*s = _mm256_loadu_ps(t);
	}
	v = _mm256_set1_epi32((int)m->z[(size_t)g * m->zw + o / 8]);
	v = _mm256_srlv_epi32(v, _mm256_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28));
	v = _mm256_and_si256(v, _mm256_set1_epi32(15));
	v = _mm256_add_epi32(v, _mm256_set1_epi32(m->zoff));
	*zf = _mm256_castsi256_ps(_mm256_or_si256(v, _mm256_set1_epi32(MAGIC)));
}

/* Nibble k's q - z of the words w, shifted down by 4 k already. */
INLINE __m256
nib(__m256i w, __m256 zf)
{
	return _mm256_sub_ps(_mm256_castsi256_ps(_mm256_or_si256(
	    _mm256_and_si256(w, _mm256_set1_epi32(15)),
	    _mm256_set1_epi32(MAGIC))), zf);
}

/* Store the lanes of v whose outputs are in [r0, r1). */
INLINE void
put(float *out, int o, int r0, int r1, __m256 v)
{
	_mm256_maskstore_ps(out + o, _mm256_andnot_si256(below(o, r0),
	    below(o, r1)), v);
}

/* Decode walks qweight in memory order, as kern_gptq_avx512.c's does. */
void
kern_gptq_avx2_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	const struct kern_gptq *m = w;
	_Alignas(32) float a0[OC], a1[OC], tot[OC], zs[OC];
	__m256 xb[8], s, zf, u0, u1;
	__m256i q;
	int c0, nv, b0, e, p, v, k;

	for (c0 = r0 & ~7; c0 < r1; c0 += OC) {
		nv = ((r1 - c0 < OC ? r1 - c0 : OC) + 7) / 8;
		for (v = 0; v < nv; v++)
			_mm256_store_ps(tot + 8 * v, _mm256_setzero_ps());
		for (b0 = 0; b0 < n; b0 += m->blk) {
			e = n - b0 < m->blk ? n : b0 + m->blk;
			for (v = 0; v < nv; v++) {
				sz(m, b0 / m->group, c0 + 8 * v, &s, &zf);
				_mm256_store_ps(zs + 8 * v, zf);
				_mm256_store_ps(a0 + 8 * v, _mm256_setzero_ps());
				_mm256_store_ps(a1 + 8 * v, _mm256_setzero_ps());
			}
			for (p = b0 / 8; p < e / 8; p++) {
				const int *qr = (const int *)(m->q +
				    (size_t)p * m->rows + c0);

				UNROLL
				for (k = 0; k < 8; k++)
					xb[k] = _mm256_set1_ps(x[8 * p + k]);
				for (v = 0; v < nv; v++) {
					q = _mm256_maskload_epi32(qr + 8 * v,
					    below(c0 + 8 * v, m->rows));
					zf = _mm256_load_ps(zs + 8 * v);
					u0 = _mm256_load_ps(a0 + 8 * v);
					u1 = _mm256_load_ps(a1 + 8 * v);
					UNROLL
					for (k = 0; k < 8; k += 2) {
						u0 = _mm256_fmadd_ps(nib(q, zf), xb[k], u0);
						q = _mm256_srli_epi32(q, 4);
						u1 = _mm256_fmadd_ps(nib(q, zf), xb[k + 1],
						    u1);
						q = _mm256_srli_epi32(q, 4);
					}
					_mm256_store_ps(a0 + 8 * v, u0);
					_mm256_store_ps(a1 + 8 * v, u1);
				}
			}
			for (v = 0; v < nv; v++) {
				sz(m, b0 / m->group, c0 + 8 * v, &s, &zf);
				_mm256_store_ps(tot + 8 * v, _mm256_fmadd_ps(
				    _mm256_add_ps(_mm256_load_ps(a0 + 8 * v),
				    _mm256_load_ps(a1 + 8 * v)), s,
				    _mm256_load_ps(tot + 8 * v)));
			}
		}
		for (v = 0; v < nv; v++)
			put(out, c0 + 8 * v, r0, r1, _mm256_load_ps(tot + 8 * v));
	}
}

void
kern_gptq_avx2_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	const struct kern_gptq *m = w;
	__m256 tot[TG], acc[2][TG], f[4], s, zf;
	const float *xp[TG];
	__m256i q, mk;
	int o, t0, t, b0, e, p, h, k;

	for (o = r0 & ~7; o < r1; o += 8) {
		mk = below(o, m->rows);
		for (t0 = 0; t0 < T; t0 += TG) {
			/* a short last pass repeats its last token */
			UNROLL
			for (t = 0; t < TG; t++) {
				xp[t] = x + (size_t)(t0 + t < T ? t0 + t : T - 1) *
				    ldx;
				tot[t] = _mm256_setzero_ps();
			}
			for (b0 = 0; b0 < n; b0 += m->blk) {
				e = n - b0 < m->blk ? n : b0 + m->blk;
				sz(m, b0 / m->group, o, &s, &zf);
				UNROLL
				for (t = 0; t < TG; t++)
					acc[0][t] = acc[1][t] = _mm256_setzero_ps();
				for (p = b0 / 8; p < e / 8; p++) {
					q = _mm256_maskload_epi32((const int *)(m->q +
					    (size_t)p * m->rows + o), mk);
					/* four nibbles at a time: 16 registers */
					UNROLL
					for (h = 0; h < 8; h += 4) {
						UNROLL
						for (k = 0; k < 4; k++) {
							f[k] = nib(q, zf);
							q = _mm256_srli_epi32(q, 4);
						}
						UNROLL
						for (t = 0; t < TG; t++) {
							UNROLL
							for (k = 0; k < 4; k++)
								acc[k & 1][t] = _mm256_fmadd_ps(
								    f[k], _mm256_set1_ps(
								    xp[t][8 * p + h + k]),
								    acc[k & 1][t]);
						}
					}
				}
				UNROLL
				for (t = 0; t < TG; t++)
					tot[t] = _mm256_fmadd_ps(_mm256_add_ps(
					    acc[0][t], acc[1][t]), s, tot[t]);
			}
			for (t = 0; t < TG && t0 + t < T; t++)
				put(out + (size_t)(t0 + t) * ldo, o, r0, r1, tot[t]);
		}
	}
}

/* ---- W_AWQ4: kern_gptq_avx512.c's tiles in 8 lanes.  A tile of 8
 * words (64 outputs) walks down the inputs of a block twice, nibbles
 * 0-3 and then 4-7 (16 registers hold only half of the 16 sums), each
 * output's two partial sums in input order as there: the same bits. */

static const int awq_order[8] = { 0, 2, 4, 6, 1, 3, 5, 7 };

/* Scale of nibble p of word c of group g, lanes past the matrix 0. */
static void
awq_scales(const struct kern_gptq *m, int g, int c0, int p0, float sc[4][8])
{
	int p, c, o;

	for (p = 0; p < 4; p++)
		for (c = 0; c < 8; c++) {
			o = 8 * (c0 + c) + awq_order[p0 + p];
			sc[p][c] = o < m->rows ? kern_gptq_scale(m, g, o) : 0;
		}
}

/* a[p] += (q - z) x of nibble p0 + p of the words at w, p < 4 */
INLINE void
awq_in(__m256 a[4], const uint32_t *w, __m256i mk, int p0, float x,
    const __m256 zf[4])
{
	__m256i q = _mm256_srli_epi32(_mm256_maskload_epi32((const int *)w, mk),
	    4 * p0);
	__m256 xb = _mm256_set1_ps(x);
	int p;

	UNROLL
	for (p = 0; p < 4; p++) {
		a[p] = _mm256_fmadd_ps(nib(q, zf[p]), xb, a[p]);
		q = _mm256_srli_epi32(q, 4);
	}
}

static void
awq_tile(float *out, const struct kern_gptq *m, const float *x, int n,
    int c0, int r0, int r1)
{
	_Alignas(32) float sc[4][8], tot[8][8];
	const int wr = m->rows / 8;	/* words a row */
	__m256i mk = below(c0, wr), zw;
	__m256 a0[4], a1[4], zf[4];
	int b0, e, i, p, p0, c, o, g;

	memset(tot, 0, sizeof(tot));
	for (b0 = 0; b0 < n; b0 += m->blk) {
		e = n - b0 < m->blk ? n : b0 + m->blk;
		g = b0 / m->group;
		for (p0 = 0; p0 < 8; p0 += 4) {
			zw = _mm256_srli_epi32(_mm256_maskload_epi32((const int *)
			    (m->z + (size_t)g * m->zw + c0), mk), 4 * p0);
			UNROLL
			for (p = 0; p < 4; p++) {
				zf[p] = _mm256_castsi256_ps(_mm256_or_si256(
				    _mm256_add_epi32(_mm256_and_si256(zw,
				    _mm256_set1_epi32(15)), _mm256_set1_epi32(m->zoff)),
				    _mm256_set1_epi32(MAGIC)));
				zw = _mm256_srli_epi32(zw, 4);
				a0[p] = a1[p] = _mm256_setzero_ps();
			}
			for (i = b0; i + 1 < e; i += 2) {
				awq_in(a0, m->q + (size_t)i * wr + c0, mk, p0, x[i], zf);
				awq_in(a1, m->q + (size_t)(i + 1) * wr + c0, mk, p0,
				    x[i + 1], zf);
			}
			if (i < e)	/* blocks are whole words of GPTQ, not of AWQ */
				awq_in(a0, m->q + (size_t)i * wr + c0, mk, p0, x[i], zf);
			awq_scales(m, g, c0, p0, sc);
			UNROLL
			for (p = 0; p < 4; p++)
				_mm256_store_ps(tot[p0 + p], _mm256_fmadd_ps(
				    _mm256_add_ps(a0[p], a1[p]), _mm256_load_ps(sc[p]),
				    _mm256_load_ps(tot[p0 + p])));
		}
	}
	for (p = 0; p < 8; p++)
		for (c = 0; c < 8; c++) {
			o = 8 * (c0 + c) + awq_order[p];
			if (o >= r0 && o < r1)
				out[o] = tot[p][c];
		}
}

void
kern_awq_avx2_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	int c0;

	for (c0 = r0 / 8; 8 * c0 < r1; c0 += 8)
		awq_tile(out, w, x, n, c0, r0, r1);
}

void
kern_awq_avx2_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	int t;

	for (t = 0; t < T; t++)
		kern_awq_avx2_matvec(out + (size_t)t * ldo, w,
		    x + (size_t)t * ldx, n, r0, r1);
}

#endif
