/* kern_q4_avx512.c: the W_Q4 entries of the AVX-512 table (kern.h).
 *
 * A group's 16 possible weights (q - z) * scale are exact in float32
 * (q - z is an integer in [-15, 15], the scale BF16 or F16; an F32
 * scale rounds once, as in the portable code), so each group of each
 * row gets a table of them in one register and a weight is a vpermps
 * of it by its nibble: per 16 weights a shift, a vpermps and the FMA
 * (bench/NOTES.md, issue 14's 4-bit decode).  Every output is the F32
 * kernel's dot product of the dequantized row, bit for bit: element i
 * summed in lane i % 16 (decode: in a zipped lane whose partial sum is
 * that lane's, see ZIP), in order, reduced by kern_avx512.c's tree; so
 * too whatever the row range or the token count.  Prefill dequantizes
 * panels of rows once and runs the F32 matmul over them.  Groups that
 * are not a multiple of 16 weights go to the portable kernels. */
#if defined(__x86_64__)

#include <immintrin.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kern.h"
#include "kern_avx512_int.h"

#ifndef MR
#define MR 8	/* rows per block of the decode */
#endif
#define MRM 4	/* rows per block of the prefill */
#define KC 256	/* weights per dequantized chunk (a multiple of 16) */
#define TB 64	/* tokens per block of the prefill */
#ifndef PFD
#define PFD 1024	/* bytes ahead each row's words are prefetched */
#endif
#define PANEL 65536	/* floats of a dequantized panel (256 KiB) */

extern const struct kern kern_avx512;	/* its F32 matmul */

/* The first m < 16 floats of x, the other lanes 0. */
INLINE __m512
xloadm(const float *x, int m)
{
	return _mm512_maskz_loadu_ps((__mmask16)((1u << m) - 1), x);
}

INLINE float
scale(const struct kern_q4 *m, size_t i)
{
	uint16_t h;
	uint32_t u;
	float f;

	switch (m->st) {
	case W_F16:
		memcpy(&h, (const uint16_t *)m->s + i, sizeof h);
		return _cvtsh_ss(h);
	case W_BF16:
		memcpy(&h, (const uint16_t *)m->s + i, sizeof h);
		u = (uint32_t)h << 16;
		memcpy(&f, &u, sizeof f);
		return f;
	default:
		memcpy(&f, (const float *)m->s + i, sizeof f);
		return f;
	}
}

/* The group's scale and zero point of row r as vectors. */
INLINE void
sz(const struct kern_q4 *m, int r, int g, __m512 *s, __m512 *z)
{
	*s = _mm512_set1_ps(scale(m, (size_t)r * m->ng + g));
	*z = _mm512_set1_ps(m->z ? (float)(m->z[(size_t)(r / 8) * m->ng + g] >>
	    4 * (r % 8) & 15) : 8.0f);
}

/* The group's 16 weights (q - z) * scale, q = 0 .. 15, exactly: the
 * table that vpermps looks the nibbles up in. */
INLINE __m512
table(__m512 z, __m512 s)
{
	const __m512 iota = _mm512_setr_ps(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
	    11, 12, 13, 14, 15);

	return _mm512_mul_ps(_mm512_sub_ps(iota, z), s);
}

/* Nibble i of the 64-bit word at p (weights k .. k + 15 of a row, k a
 * multiple of 16) in the low 4 bits of lane i, in order, for the
 * prefill's dequantized chunks: vpermd spreads the two halves and
 * vpsrlvd shifts; the bits above are garbage, which vpermps ignores. */
INLINE __m512i
nib16(const uint32_t *p)
{
	const __m512i sh = _mm512_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28,
	    0, 4, 8, 12, 16, 20, 24, 28);
	const __m512i idx = _mm512_setr_epi32(0, 0, 0, 0, 0, 0, 0, 0,
	    1, 1, 1, 1, 1, 1, 1, 1);
	__m512i v = _mm512_castsi128_si512(_mm_loadl_epi64((const __m128i *)p));

	return _mm512_srlv_epi32(_mm512_permutexvar_epi32(idx, v), sh);
}

/* The weights k .. k + m - 1 of a row's words q (m < 16, only the words
 * that hold them read), lanes m and up +0 as a zero-filled load of float
 * weights gives. */
INLINE __m512
tail16(const uint32_t *q, int k, int m, __m512 tab)
{
	uint32_t w[2] = { q[k / 8], m > 8 ? q[k / 8 + 1] : 0 };

	return _mm512_maskz_permutexvar_ps((__mmask16)((1u << m) - 1),
	    nib16(w), tab);
}

/* Decode's order of the 16 weights of a 64-bit word: the word broadcast
 * and shifted right by 4p in 64-bit lane p puts nibble p in lane 2p and
 * nibble p + 8 in lane 2p + 1, with no shuffle (vpsrlvq on a broadcast
 * load).  The activations are put in that order too (one vpermps per 16
 * shared by the block's rows), so lane 2p sums the products of elements
 * p, p + 16, ... in order, as the F32 kernel's lane p does; the
 * accumulator is put back in lane order before the reduction tree, and
 * the result is the F32 kernel's bit for bit. */
#define ZIP _mm512_setr_epi32(0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, \
    14, 7, 15)
#define UNZIP _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, \
    11, 13, 15)

/* Nibbles of the word at p in ZIP's lane order. */
INLINE __m512i
nibzip(const uint32_t *p)
{
	const __m512i sh = _mm512_setr_epi64(0, 4, 8, 12, 16, 20, 24, 28);
	uint64_t u;

	memcpy(&u, p, sizeof u);
	return _mm512_srlv_epi64(_mm512_set1_epi64((long long)u), sh);
}

/* Scales g0 .. g0 + 15 of row r (those that exist) into o, widened. */
INLINE void
scales(float *o, const struct kern_q4 *m, int r, int g0)
{
	const void *p = (const char *)m->s + ((size_t)r * m->ng + g0) *
	    (m->st == W_F32 ? 4 : 2);
	int c = m->ng - g0 < 16 ? m->ng - g0 : 16;
	__mmask16 k = (__mmask16)((1u << c) - 1);
	__m256i h;

	switch (m->st) {
	case W_F16:
		h = _mm256_maskz_loadu_epi16(k, p);
		_mm512_storeu_ps(o, _mm512_cvtph_ps(h));
		break;
	case W_BF16:
		h = _mm256_maskz_loadu_epi16(k, p);
		_mm512_storeu_ps(o, _mm512_castsi512_ps(_mm512_slli_epi32(
		    _mm512_cvtepu16_epi32(h), 16)));
		break;
	default:
		_mm512_storeu_ps(o, _mm512_maskz_loadu_ps(k, p));
		break;
	}
}

/* Lane i of the 16 weights at q + k / 8 in ZIP's order, times the
 * activations (zipped), into acc. */
#define STEP(R, k) do { \
	xv = _mm512_permutexvar_ps(ZIP, _mm512_loadu_ps(x + (k))); \
	UNROLL \
	for (i = 0; i < (R); i++) \
		acc[i] = _mm512_fmadd_ps(_mm512_permutexvar_ps( \
		    nibzip(q[i] + (k) / 8), tab[i]), xv, acc[i]); \
} while (0)

/* out[r + i*rs] = dot(W[r + i*rs], x), i < R: per group and row one
 * table, then per 16 weights a shift, a vpermps and the FMA (ZIP's
 * order); the scales widened 16 groups at a time, a symmetric matrix's
 * q - z a constant.  G: the group size as a constant (its steps
 * unrolled), or 0 for any multiple of 16. */
INLINE void
vblock(int R, int G, float *out, const struct kern_q4 *m, const float *x,
    int n, int r, int rs)
{
	const __m512 iota = _mm512_setr_ps(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
	    11, 12, 13, 14, 15);
	__m512 acc[MR], tab[MR], iz[MR], xv;
	const uint32_t *q[MR];
	float sb[MR][16];
	int i, j, k, g, e, ri, l, gs = G ? G : m->group;

	UNROLL
	for (i = 0; i < R; i++) {
		acc[i] = _mm512_setzero_ps();
		q[i] = m->q + (size_t)(r + i * rs) * m->wpr;
		iz[i] = _mm512_sub_ps(iota, _mm512_set1_ps(8.0f));
	}
	for (k = 0, g = 0; k < n; g++) {
		e = k + gs < n ? k + gs : n;
		if (g % 16 == 0)
			UNROLL
			for (i = 0; i < R; i++)
				scales(sb[i], m, r + i * rs, g);
		UNROLL
		for (i = 0; i < R; i++) {
			if (m->z) {
				ri = r + i * rs;
				iz[i] = _mm512_sub_ps(iota, _mm512_set1_ps((float)(
				    m->z[(size_t)(ri / 8) * m->ng + g] >>
				    4 * (ri % 8) & 15)));
			}
			/* (q - z) * s, exact */
			tab[i] = _mm512_mul_ps(iz[i], _mm512_set1_ps(sb[i][g % 16]));
		}
		if (k % 128 == 0)	/* a line of each row's words */
			UNROLL
			for (i = 0; i < R; i++)
				_mm_prefetch((const char *)(q[i] + k / 8) + PFD,
				    _MM_HINT_T0);
		if (G && e - k == G) {
			UNROLL
			for (j = 0; j < G / 16; j++)
				STEP(R, k + 16 * j);
			k = e;
		} else
			for (; k + 16 <= e; k += 16)
				STEP(R, k);
		if (k < e) {
			/* lane 2p holds element p, 2p + 1 element p + 8 */
			__mmask16 lm = 0;
			uint32_t w[2];

			for (l = 0; l < 16; l++)
				if ((l % 2 ? l / 2 + 8 : l / 2) < e - k)
					lm |= (__mmask16)(1u << l);
			xv = _mm512_permutexvar_ps(ZIP, xloadm(x + k, e - k));
			UNROLL
			for (i = 0; i < R; i++) {
				w[0] = q[i][k / 8];
				w[1] = e - k > 8 ? q[i][k / 8 + 1] : 0;
				acc[i] = _mm512_fmadd_ps(_mm512_maskz_permutexvar_ps(
				    lm, nibzip(w), tab[i]), xv, acc[i]);
			}
			k = e;
		}
	}
	UNROLL
	for (i = 0; i < R; i++)
		out[r + i * rs] = hsum(_mm512_permutexvar_ps(UNZIP, acc[i]));
}

/* Rows [r0, r1): MR rows a block, each from a different part of the
 * range (the block's rows MR streams far apart), which reads fastest
 * from memory on Zen 5 (bench/NOTES.md, issue 14's 4-bit decode; the
 * F32 kernels' halves likewise). */
INLINE void
vrows(int G, float *out, const struct kern_q4 *m, const float *x, int n,
    int r0, int r1)
{
	int h = (r1 - r0) / MR, r;

	for (r = r0; r < r0 + h; r++)
		vblock(MR, G, out, m, x, n, r, h);
	for (r = r0 + MR * h; r < r1; r++)
		vblock(1, G, out, m, x, n, r, 1);
}

void
kern_q4_avx512_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	const struct kern_q4 *m = w;

	if (m->group % 16)
		kern_q4_matvec(out, w, x, n, r0, r1);
	else if (m->group == 32)	/* llm-quant's and --quant q4's */
		vrows(32, out, m, x, n, r0, r1);
	else
		vrows(0, out, m, x, n, r0, r1);
}

/* Weights [k0, k0 + c) of row r into o (c rounded up to 16, padding
 * +0); k0 is a multiple of 16. */
INLINE void
deqchunk(float *o, const struct kern_q4 *m, int r, int k0, int c)
{
	const uint32_t *q = m->q + (size_t)r * m->wpr;
	__m512 s, z, tab = _mm512_setzero_ps();
	int k, g = -1;

	for (k = k0; k < k0 + c; k += 16) {
		if (k / m->group != g) {
			g = k / m->group;
			sz(m, r, g, &s, &z);
			tab = table(z, s);
		}
		if (k0 + c - k >= 16)
			_mm512_storeu_ps(o + k - k0, _mm512_permutexvar_ps(
			    nib16(q + k / 8), tab));
		else
			_mm512_storeu_ps(o + k - k0, tail16(q, k, k0 + c - k,
			    tab));
	}
}

/* Rows [r, r + R) against tokens [0, T) of x, T <= TB. */
INLINE void
mblock(int R, float *out, int ldo, const struct kern_q4 *m, const float *x,
    int ldx, int n, int T, int r)
{
	__m512 acc[MRM][TB], a[MRM], xv;
	float wb[MRM][KC];
	int i, j, k, k0, c;

	for (i = 0; i < R; i++)
		for (j = 0; j < T; j++)
			acc[i][j] = _mm512_setzero_ps();
	for (k0 = 0; k0 < n; k0 += KC) {
		c = n - k0 < KC ? n - k0 : KC;
		UNROLL
		for (i = 0; i < R; i++)
			deqchunk(wb[i], m, r + i, k0, c);
		for (j = 0; j < T; j++) {
			const float *xj = x + (size_t)j * ldx + k0;

			UNROLL
			for (i = 0; i < R; i++)
				a[i] = acc[i][j];
			for (k = 0; k + 16 <= c; k += 16) {
				xv = _mm512_loadu_ps(xj + k);
				UNROLL
				for (i = 0; i < R; i++)
					a[i] = _mm512_fmadd_ps(
					    _mm512_loadu_ps(wb[i] + k), xv, a[i]);
			}
			if (k < c) {
				xv = xloadm(xj + k, c - k);
				UNROLL
				for (i = 0; i < R; i++)
					a[i] = _mm512_fmadd_ps(
					    _mm512_loadu_ps(wb[i] + k), xv, a[i]);
			}
			UNROLL
			for (i = 0; i < R; i++)
				acc[i][j] = a[i];
		}
	}
	for (i = 0; i < R; i++)
		for (j = 0; j < T; j++)
			out[(size_t)j * ldo + r + i] = hsum(acc[i][j]);
}

/* Prefill: rows in panels of up to PANEL floats dequantized once into
 * L2, each then multiplied by the table's F32 matmul over all T tokens:
 * the F32 kernel's register blocks and bits, the dequantization once per
 * T tokens.  Rows too long for a panel of MRM (or no memory for one): the
 * blocks above, up to TB tokens a chunk of MRM rows. */
void
kern_q4_avx512_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	const struct kern_q4 *m = w;
	float *wb;
	int P = PANEL / (n > 0 ? n : 1) / MRM * MRM, t0, tn, r, p0, p1;

	if (m->group % 16) {
		kern_q4_matmul(out, ldo, w, x, ldx, n, T, r0, r1);
		return;
	}
	/* on the heap: a pool thread's stack may be small (musl: 128 KiB);
	 * without it, the blocks below */
	if (P > r1 - r0)
		P = r1 - r0;
	if (P > 0 && (wb = malloc(((size_t)P * n + 16) * sizeof(*wb)))) {
		for (p0 = r0; p0 < r1; p0 = p1) {
			p1 = r1 - p0 > P ? p0 + P : r1;
			for (r = p0; r < p1; r++)
				deqchunk(wb + (size_t)(r - p0) * n, m, r, 0, n);
			kern_avx512.matmul[W_F32](out + p0, ldo, wb, x, ldx, n, T,
			    0, p1 - p0);
		}
		free(wb);
		return;
	}
	for (t0 = 0; t0 < T; t0 += TB) {
		const float *xt = x + (size_t)t0 * ldx;
		float *ot = out + (size_t)t0 * ldo;

		tn = T - t0 < TB ? T - t0 : TB;
		for (r = r0; r + MRM <= r1; r += MRM)
			mblock(MRM, ot, ldo, m, xt, ldx, n, tn, r);
		for (; r < r1; r++)
			mblock(1, ot, ldo, m, xt, ldx, n, tn, r);
	}
}

#endif
