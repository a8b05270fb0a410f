/* kern_gptq_avx512.c: the W_GPTQ4 entries of the AVX-512 table (gptq.h).
 *
 * A word of qweight holds 8 inputs of one output, and a row of them the
 * outputs side by side, so a 16-lane vector of words is 8 inputs of 16
 * outputs: each nibble, or'ed into the mantissa of 2^23 and less 2^23 +
 * z, is the exact float q - z, and one FMA with the broadcast input adds
 * it into the output's lane.  Decode (matvec) runs a chunk of OC
 * outputs a packed row at a time; prefill (matmul) unpacks a vector's 8
 * inputs once and uses them for TG tokens.  Both do the same operations on each
 * output's lane, so they agree bit for bit whatever the range or the
 * token count. */
#if defined(__x86_64__)

#include <immintrin.h>
#include <stdint.h>
#include <string.h>

#include "kern/gptq.h"
#include "kern/kern.h"
#include "kern/kern_avx512_int.h"

#define OC 512	/* outputs a decode chunk (a multiple of 16) */
#define TG 8	/* tokens a prefill pass */
#define MAGIC 0x4B000000	/* 2^23 as float bits */

/* Lanes of the 16 outputs from o that are below lim. */
INLINE __mmask16
below(int o, int lim)
{
	int k = lim - o;

	return k >= 16 ? (__mmask16)0xFFFF : k <= 0 ? 0 :
	    (__mmask16)((1u << k) - 1);
}

/* The scales and the zero points (as floats 2^23 + z) of the 16 outputs
 * from o (a multiple of 16) in group g; lanes outside mk are 0. */
INLINE void
sz(const struct kern_gptq *m, int g, int o, __mmask16 mk, __m512 *s,
    __m512 *zf)
{
	const uint32_t *zr = m->z + (size_t)g * m->zw + o / 8;
	const __m512i sh = _mm512_set_epi32(28, 24, 20, 16, 12, 8, 4, 0,
	    28, 24, 20, 16, 12, 8, 4, 0);
	const __m512i two = _mm512_set_epi32(1, 1, 1, 1, 1, 1, 1, 1,
	    0, 0, 0, 0, 0, 0, 0, 0);
	size_t i = (size_t)g * m->rows + o;
	__m512i v;

	switch (m->st) {
	case W_F16:
		*s = _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(mk,
		    (const uint16_t *)m->s + i));
		break;
	case W_BF16:
		*s = _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(
		    _mm256_maskz_loadu_epi16(mk, (const uint16_t *)m->s + i)), 16));
		break;
	default:
		*s = _mm512_maskz_loadu_ps(mk, (const float *)m->s + i);
		break;
	}
	v = _mm512_maskz_loadu_epi32((__mmask16)(mk & 1 ? 1 : 0) |
	    (__mmask16)(mk >> 8 & 1 ? 2 : 0), zr);
	v = _mm512_permutexvar_epi32(two, v);
	v = _mm512_and_si512(_mm512_srlv_epi32(v, sh), _mm512_set1_epi32(15));
	v = _mm512_add_epi32(v, _mm512_set1_epi32(m->zoff));
	*zf = _mm512_castsi512_ps(_mm512_or_si512(v, _mm512_set1_epi32(MAGIC)));
}

/* Nibble k's q - z of the words w, shifted down by 4 k already. */
INLINE __m512
nib(__m512i w, __m512 zf)
{
	return _mm512_sub_ps(_mm512_castsi512_ps(_mm512_ternarylogic_epi32(w,
	    _mm512_set1_epi32(15), _mm512_set1_epi32(MAGIC), 0xEA)), zf);
}

/* Decode walks qweight in memory order, a packed row of a chunk of OC
 * outputs at a time, the partial sums in L1: a column walk down the
 * matrix would take a new page every row, which the prefetchers do not
 * follow. */
void
kern_gptq_avx512_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	const struct kern_gptq *m = w;
	_Alignas(64) float a0[OC], a1[OC], tot[OC], zs[OC];
	__m512 xb[8], s, zf, u0, u1;
	__m512i q;
	int c0, nv, b0, e, p, v, k;

	for (c0 = r0 & ~15; c0 < r1; c0 += OC) {
		nv = ((r1 - c0 < OC ? r1 - c0 : OC) + 15) / 16;
		for (v = 0; v < nv; v++)
			_mm512_store_ps(tot + 16 * v, _mm512_setzero_ps());
		for (b0 = 0; b0 < n; b0 += m->blk) {
			e = n - b0 < m->blk ? n : b0 + m->blk;
			for (v = 0; v < nv; v++) {
				sz(m, b0 / m->group, c0 + 16 * v,
				    below(c0 + 16 * v, m->rows), &s, &zf);
				_mm512_store_ps(zs + 16 * v, zf);
				_mm512_store_ps(a0 + 16 * v, _mm512_setzero_ps());
				_mm512_store_ps(a1 + 16 * v, _mm512_setzero_ps());
			}
			for (p = b0 / 8; p < e / 8; p++) {
				const uint32_t *qr = m->q + (size_t)p * m->rows + c0;

				UNROLL
				for (k = 0; k < 8; k++)
					xb[k] = _mm512_set1_ps(x[8 * p + k]);
				for (v = 0; v < nv; v++) {
					q = _mm512_maskz_loadu_epi32(below(c0 + 16 * v,
					    m->rows), qr + 16 * v);
					zf = _mm512_load_ps(zs + 16 * v);
					u0 = _mm512_load_ps(a0 + 16 * v);
					u1 = _mm512_load_ps(a1 + 16 * v);
					UNROLL
					for (k = 0; k < 8; k += 2) {
						u0 = _mm512_fmadd_ps(nib(q, zf), xb[k], u0);
						q = _mm512_srli_epi32(q, 4);
						u1 = _mm512_fmadd_ps(nib(q, zf), xb[k + 1],
						    u1);
						q = _mm512_srli_epi32(q, 4);
					}
					_mm512_store_ps(a0 + 16 * v, u0);
					_mm512_store_ps(a1 + 16 * v, u1);
				}
			}
			for (v = 0; v < nv; v++) {
				sz(m, b0 / m->group, c0 + 16 * v,
				    below(c0 + 16 * v, m->rows), &s, &zf);
				_mm512_store_ps(tot + 16 * v, _mm512_fmadd_ps(
				    _mm512_add_ps(_mm512_load_ps(a0 + 16 * v),
				    _mm512_load_ps(a1 + 16 * v)), s,
				    _mm512_load_ps(tot + 16 * v)));
			}
		}
		for (v = 0; v < nv; v++) {
			int a = c0 + 16 * v;

			_mm512_mask_storeu_ps(out + a, below(a, r1) &
			    (__mmask16)~below(a, r0), _mm512_load_ps(tot + 16 * v));
		}
	}
}

void
kern_gptq_avx512_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	const struct kern_gptq *m = w;
	__m512 tot[TG], acc[2][TG], f[8], s, zf;
	const float *xp[TG];
	__m512i q;
	__mmask16 mk, st;
	int o, t0, t, b0, e, p, k;

	for (o = r0 & ~15; o < r1; o += 16) {
		mk = below(o, m->rows);
		st = below(o, r1) & (__mmask16)~below(o, r0);
		for (t0 = 0; t0 < T; t0 += TG) {
			/* a short last pass repeats its last token */
			UNROLL
			for (t = 0; t < TG; t++) {
				xp[t] = x + (size_t)(t0 + t < T ? t0 + t : T - 1) *
				    ldx;
				tot[t] = _mm512_setzero_ps();
			}
			for (b0 = 0; b0 < n; b0 += m->blk) {
				e = n - b0 < m->blk ? n : b0 + m->blk;
				sz(m, b0 / m->group, o, mk, &s, &zf);
				UNROLL
				for (t = 0; t < TG; t++)
					acc[0][t] = acc[1][t] = _mm512_setzero_ps();
				for (p = b0 / 8; p < e / 8; p++) {
					q = _mm512_maskz_loadu_epi32(mk,
					    m->q + (size_t)p * m->rows + o);
					UNROLL
					for (k = 0; k < 8; k++) {
						f[k] = nib(q, zf);
						q = _mm512_srli_epi32(q, 4);
					}
					UNROLL
					for (t = 0; t < TG; t++) {
						UNROLL
						for (k = 0; k < 8; k++)
							acc[k & 1][t] = _mm512_fmadd_ps(f[k],
							    _mm512_set1_ps(xp[t][8 * p + k]),
							    acc[k & 1][t]);
					}
				}
				UNROLL
				for (t = 0; t < TG; t++)
					tot[t] = _mm512_fmadd_ps(_mm512_add_ps(
					    acc[0][t], acc[1][t]), s, tot[t]);
			}
			for (t = 0; t < TG && t0 + t < T; t++)
				_mm512_mask_storeu_ps(out + (size_t)(t0 + t) * ldo + o,
				    st, tot[t]);
		}
	}
}

/* ---- W_AWQ4: qweight [in, out / 8], 8 outputs a word in AutoAWQ's
 * order.  A row of words is short (out / 2 bytes), so a tile of 16
 * words (128 outputs) walks down the inputs with its sums in registers,
 * one accumulator a nibble and parity; lane c of nibble p is output
 * 8 (c0 + c) + awq_order[p]. */

static const int awq_order[8] = { 0, 2, 4, 6, 1, 3, 5, 7 };

/* The scales of the tile's outputs in its layout, lanes past the
 * matrix 0. */
static void
awq_scales(const struct kern_gptq *m, int g, int c0, float sc[8][16])
{
	const char *base = (const char *)m->s;
	size_t row = (size_t)g * m->rows;
	int p, c, o;
	uint16_t h;
	uint32_t u;
	float f;

	for (p = 0; p < 8; p++)
		for (c = 0; c < 16; c++) {
			o = 8 * (c0 + c) + awq_order[p];
			if (o >= m->rows) {
				sc[p][c] = 0;
				continue;
			}
			switch (m->st) {
			case W_F16:
				memcpy(&h, base + 2 * (row + o), 2);
				sc[p][c] = _cvtsh_ss(h);
				break;
			case W_BF16:
				memcpy(&h, base + 2 * (row + o), 2);
				u = (uint32_t)h << 16;
				memcpy(&f, &u, 4);
				sc[p][c] = f;
				break;
			default:
				memcpy(&sc[p][c], base + 4 * (row + o), 4);
			}
		}
}

/* a[p] += (q - z) x of nibble p of the words at w, p < 8 */
INLINE void
awq_in(__m512 a[8], const uint32_t *w, __mmask16 mk, float x,
    const __m512 zf[8])
{
	__m512i q = _mm512_maskz_loadu_epi32(mk, w);
	__m512 xb = _mm512_set1_ps(x);
	int p;

	UNROLL
	for (p = 0; p < 8; p++) {
		a[p] = _mm512_fmadd_ps(nib(q, zf[p]), xb, a[p]);
		q = _mm512_srli_epi32(q, 4);
	}
}

static void
awq_tile(float *out, const struct kern_gptq *m, const float *x, int n,
    int c0, int r0, int r1)
{
	_Alignas(64) float sc[8][16], tot[8][16];
	const int wr = m->rows / 8;	/* words a row */
	__mmask16 mk = below(c0, wr);
	__m512 a0[8], a1[8], zf[8];
	__m512i zw;
	int b0, e, i, p, c, o, g;

	memset(tot, 0, sizeof(tot));
	for (b0 = 0; b0 < n; b0 += m->blk) {
		e = n - b0 < m->blk ? n : b0 + m->blk;
		g = b0 / m->group;
		zw = _mm512_maskz_loadu_epi32(mk, m->z + (size_t)g * m->zw + c0);
		UNROLL
		for (p = 0; p < 8; p++) {
			zf[p] = _mm512_castsi512_ps(_mm512_or_si512(_mm512_add_epi32(
			    _mm512_and_si512(zw, _mm512_set1_epi32(15)),
			    _mm512_set1_epi32(m->zoff)), _mm512_set1_epi32(MAGIC)));
			zw = _mm512_srli_epi32(zw, 4);
			a0[p] = a1[p] = _mm512_setzero_ps();
		}
		for (i = b0; i + 1 < e; i += 2) {
			awq_in(a0, m->q + (size_t)i * wr + c0, mk, x[i], zf);
			awq_in(a1, m->q + (size_t)(i + 1) * wr + c0, mk, x[i + 1],
			    zf);
		}
		if (i < e)	/* blocks are whole words of GPTQ, not of AWQ */
			awq_in(a0, m->q + (size_t)i * wr + c0, mk, x[i], zf);
		awq_scales(m, g, c0, sc);
		UNROLL
		for (p = 0; p < 8; p++)
			_mm512_store_ps(tot[p], _mm512_fmadd_ps(_mm512_add_ps(a0[p],
			    a1[p]), _mm512_load_ps(sc[p]), _mm512_load_ps(tot[p])));
	}
	for (p = 0; p < 8; p++)
		for (c = 0; c < 16; c++) {
			o = 8 * (c0 + c) + awq_order[p];
			if (o >= r0 && o < r1)
				out[o] = tot[p][c];
		}
}

void
kern_awq_avx512_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	int c0;

	for (c0 = r0 / 8; 8 * c0 < r1; c0 += 16)
		awq_tile(out, w, x, n, c0, r0, r1);
}

void
kern_awq_avx512_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	int t;

	for (t = 0; t < T; t++)
		kern_awq_avx512_matvec(out + (size_t)t * ldo, w,
		    x + (size_t)t * ldx, n, r0, r1);
}

#endif
