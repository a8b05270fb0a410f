/* attn_avx512.c: the tiled attention of attn.h with AVX-512 (F, DQ).
 *
 * For each block of 16 keys: the 16 scores of a query row come out of
 * 16 dot products (one 16-lane accumulator each, hd/16 FMAs in order)
 * folded into one vector by a transposing add tree; the block max, the
 * rescale factor and the 16 probabilities are vector operations (exp by
 * a Cephes-style polynomial and vscalefps, relative error ~2 ulp);
 * then every 16-float chunk of the value rows is loaded once for up to 8
 * query rows.  Needs hd % 16 == 0; other head sizes use the portable
 * tile. */
#if defined(__x86_64__)

#include <immintrin.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "kern/attn.h"
#include "kern/vexp.h"

#define INLINE static inline __attribute__((always_inline))

/* a + b of the 128-bit lanes picked by imm from x and y */
#define F4(x, y, i1, i2) _mm512_add_ps(_mm512_shuffle_f32x4(x, y, i1), \
	_mm512_shuffle_f32x4(x, y, i2))
/* the same for the elements within each 128-bit lane */
#define F1(x, y, i1, i2) _mm512_add_ps(_mm512_shuffle_ps(x, y, i1), \
	_mm512_shuffle_ps(x, y, i2))

/* 16 elements from p + c of a cache row of type t, as float32: a
 * 16-bit one widened exactly (bf16: the bits shifted up; f16: vcvtph2ps). */
INLINE __m512
kvload(const void *p, int c, enum wtype t)
{
	if (t == W_BF16)
		return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(
		    _mm256_loadu_si256((const __m256i *)((const uint16_t *)p + c))), 16));
	if (t == W_F16)
		return _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)
		    ((const uint16_t *)p + c)));
	return _mm512_loadu_ps((const float *)p + c);
}

/* Scores of one query row against the 16 keys kp[0..16): 16 dot products
 * (one accumulator each, hd/16 FMAs in order), then a transposing add
 * tree (halves, quarters, pairs, neighbours) that leaves lane i of the
 * result holding the sum of accumulator i' with i' = 0 2 1 3 8 10 9 11
 * 4 6 5 7 12 14 13 15 for i = 0..15; accumulator i' is therefore fed
 * key i (the permutation is its own inverse). */
INLINE __m512
scores(const float *q, const void *const *kp, int hd, enum wtype t)
{
	__m512 d0, d1, d2, d3, d4, d5, d6, d7, d8, d9, d10, d11, d12, d13,
	    d14, d15, qc;
	int c;

	d0 = d1 = d2 = d3 = d4 = d5 = d6 = d7 = _mm512_setzero_ps();
	d8 = d9 = d10 = d11 = d12 = d13 = d14 = d15 = _mm512_setzero_ps();
	for (c = 0; c < hd; c += 16) {
		qc = _mm512_loadu_ps(q + c);
		d0 = _mm512_fmadd_ps(qc, kvload(kp[0], c, t), d0);
		d1 = _mm512_fmadd_ps(qc, kvload(kp[2], c, t), d1);
		d2 = _mm512_fmadd_ps(qc, kvload(kp[1], c, t), d2);
		d3 = _mm512_fmadd_ps(qc, kvload(kp[3], c, t), d3);
		d4 = _mm512_fmadd_ps(qc, kvload(kp[8], c, t), d4);
		d5 = _mm512_fmadd_ps(qc, kvload(kp[10], c, t), d5);
		d6 = _mm512_fmadd_ps(qc, kvload(kp[9], c, t), d6);
		d7 = _mm512_fmadd_ps(qc, kvload(kp[11], c, t), d7);
		d8 = _mm512_fmadd_ps(qc, kvload(kp[4], c, t), d8);
		d9 = _mm512_fmadd_ps(qc, kvload(kp[6], c, t), d9);
		d10 = _mm512_fmadd_ps(qc, kvload(kp[5], c, t), d10);
		d11 = _mm512_fmadd_ps(qc, kvload(kp[7], c, t), d11);
		d12 = _mm512_fmadd_ps(qc, kvload(kp[12], c, t), d12);
		d13 = _mm512_fmadd_ps(qc, kvload(kp[14], c, t), d13);
		d14 = _mm512_fmadd_ps(qc, kvload(kp[13], c, t), d14);
		d15 = _mm512_fmadd_ps(qc, kvload(kp[15], c, t), d15);
	}
	/* halves: i with i+8 */
	d0 = F4(d0, d8, 0x44, 0xee);
	d1 = F4(d1, d9, 0x44, 0xee);
	d2 = F4(d2, d10, 0x44, 0xee);
	d3 = F4(d3, d11, 0x44, 0xee);
	d4 = F4(d4, d12, 0x44, 0xee);
	d5 = F4(d5, d13, 0x44, 0xee);
	d6 = F4(d6, d14, 0x44, 0xee);
	d7 = F4(d7, d15, 0x44, 0xee);
	/* quarters: i with i+4 */
	d0 = F4(d0, d4, 0x88, 0xdd);
	d1 = F4(d1, d5, 0x88, 0xdd);
	d2 = F4(d2, d6, 0x88, 0xdd);
	d3 = F4(d3, d7, 0x88, 0xdd);
	/* within 128-bit lanes: i with i+2, then neighbours */
	d0 = F1(d0, d2, 0x44, 0xee);
	d1 = F1(d1, d3, 0x44, 0xee);
	return F1(d0, d1, 0x88, 0xdd);
}

/* acc rows (nr of them) = acc * alpha + sum_j P[j] v_j over keys
 * j0 <= j < j1 of the block, for the G chunks of 16 floats from column
 * c: each (row, chunk) one accumulator fed the keys in order, nr * G
 * chains of FMAs in flight (one row's chain per chunk alone waits on
 * the FMA latency at every key). */
INLINE void
pv(int nr, int G, float *const *acc, const float *alpha,
    const float (*P)[16], const void *const *vp, int j0, int j1, int c,
    enum wtype t)
{
	__m512 o[8][4], vj[4], pj;
	int i, j, g;

#pragma GCC unroll 8
	for (i = 0; i < nr; i++)
#pragma GCC unroll 4
		for (g = 0; g < G; g++)
			o[i][g] = _mm512_mul_ps(_mm512_loadu_ps(acc[i] + c + 16 * g),
			    _mm512_set1_ps(alpha[i]));
	for (j = j0; j < j1; j++) {
#pragma GCC unroll 4
		for (g = 0; g < G; g++)
			vj[g] = kvload(vp[j], c + 16 * g, t);
#pragma GCC unroll 8
		for (i = 0; i < nr; i++) {
			pj = _mm512_set1_ps(P[i][j]);
#pragma GCC unroll 4
			for (g = 0; g < G; g++)
				o[i][g] = _mm512_fmadd_ps(pj, vj[g], o[i][g]);
		}
	}
#pragma GCC unroll 8
	for (i = 0; i < nr; i++)
#pragma GCC unroll 4
		for (g = 0; g < G; g++)
			_mm512_storeu_ps(acc[i] + c + 16 * g, o[i][g]);
}

/* pv over all hd columns of nr rows: G chunks at a time (at most 28
 * registers), the rest one at a time. */
INLINE void
pvrows(int nr, int G, float *const *acc, const float *alpha,
    const float (*P)[16], const void *const *vp, int j0, int j1, int hd,
    enum wtype t)
{
	int c;

	for (c = 0; c + 16 * G <= hd; c += 16 * G)
		pv(nr, G, acc, alpha, P, vp, j0, j1, c, t);
	for (; c < hd; c += 16)
		pv(nr, 1, acc, alpha, P, vp, j0, j1, c, t);
}

INLINE void
part_t(float *acc, int lda, float *ml, const struct attn_tile *a,
    enum wtype kt)
{
	float P[ATTN_MAXROWS][16], alpha[ATTN_MAXROWS], m[ATTN_MAXROWS],
	    l[ATTN_MAXROWS], bm, *arow[ATTN_MAXROWS];
	const float *qrow[ATTN_MAXROWS], *al;
	const void *kp[16], *vp[16];
	const float (*pr)[16];
	float *const *ar;
	int end[ATTN_MAXROWS], start[ATTN_MAXROWS], R = a->nh * a->T, hd = a->hd;
	int r, t, jb, j0, j1, jn, jr, c, nr, pend;
	__m512 s, p;
	__mmask16 valid;

	if (hd % 16 || R > ATTN_MAXROWS || R < 1) {
		attn_portable.part(acc, lda, ml, a);
		return;
	}
	pend = a->pos0 + a->T < a->p1 ? a->pos0 + a->T : a->p1;
	for (r = 0; r < R; r++) {
		t = r / a->nh;
		arow[r] = acc + (size_t)t * lda + (r % a->nh) * hd;
		qrow[r] = a->q + (size_t)t * a->ldq + (r % a->nh) * hd;
		end[r] = a->pos0 + t + 1 < a->p1 ? a->pos0 + t + 1 : a->p1;
		start[r] = attn_start(a, t);
		m[r] = -INFINITY;
		l[r] = 0;
		for (c = 0; c < hd; c += 16)
			_mm512_storeu_ps(arow[r] + c, _mm512_setzero_ps());
	}
	jb = a->p0 - a->p0 % 16;
	attn_prefetch(a, a->p0, pend - jb < 16 ? pend : jb + 16);
	for (; jb < pend; jb += 16) {
		if (jb + 16 < pend)	/* the next block */
			attn_prefetch(a, jb + 16, pend - jb < 32 ? pend : jb + 32);
		/* keys j0..j1 of the block exist; others point at key j0 and
		 * are masked out */
		j0 = a->p0 > jb ? a->p0 - jb : 0;
		j1 = pend - jb < 16 ? pend - jb : 16;
		attn_rows(a, jb, j0, j1, kp, vp);
		for (r = 0; r < R; r++) {
			/* the row's keys: jr <= j < jn (a window starts
			 * it late) */
			jn = end[r] - jb < 16 ? end[r] - jb : 16;
			jr = start[r] - jb > j0 ? start[r] - jb : j0;
			if (jn <= jr) {		/* no key of this row here */
				alpha[r] = 1;
				_mm512_storeu_ps(P[r], _mm512_setzero_ps());
				continue;
			}
			valid = (__mmask16)((0xffffu << jr) & (0xffffu >> (16 - jn)));
			s = _mm512_mul_ps(scores(qrow[r], kp, hd, kt),
			    _mm512_set1_ps(a->scale));
			if (a->softcap) {
				float sc[16];

				_mm512_storeu_ps(sc, s);
				attn_softcap(sc, 16, a->softcap);
				s = _mm512_loadu_ps(sc);
			}
			bm = _mm512_mask_reduce_max_ps(valid, s);
			if (bm > m[r]) {
				alpha[r] = m[r] == -INFINITY ? 0 : expf(m[r] - bm);
				m[r] = bm;
			} else {
				alpha[r] = 1;
			}
			p = vexp16(_mm512_sub_ps(s, _mm512_set1_ps(m[r])));
			p = _mm512_maskz_mov_ps(valid, p);
			l[r] = l[r] * alpha[r] + _mm512_reduce_add_ps(p);
			_mm512_storeu_ps(P[r], p);
		}
		for (r = 0; r < R; r += nr) {
			nr = R - r < 8 ? R - r : 8;
			ar = arow + r, al = alpha + r, pr = P + r;
			switch (nr) {	/* constant row counts: registers */
			case 8: pvrows(8, 2, ar, al, pr, vp, j0, j1, hd, kt); break;
			case 7: pvrows(7, 2, ar, al, pr, vp, j0, j1, hd, kt); break;
			case 6: pvrows(6, 4, ar, al, pr, vp, j0, j1, hd, kt); break;
			case 5: pvrows(5, 4, ar, al, pr, vp, j0, j1, hd, kt); break;
			case 4: pvrows(4, 4, ar, al, pr, vp, j0, j1, hd, kt); break;
			case 3: pvrows(3, 4, ar, al, pr, vp, j0, j1, hd, kt); break;
			case 2: pvrows(2, 4, ar, al, pr, vp, j0, j1, hd, kt); break;
			default: pvrows(1, 4, ar, al, pr, vp, j0, j1, hd, kt); break;
			}
		}
	}
	for (r = 0; r < R; r++) {
		ml[2 * r] = m[r];
		ml[2 * r + 1] = l[r];
	}
}

/* One copy of the tile a cache type, its loads known at compile time. */
static void
part(float *acc, int lda, float *ml, const struct attn_tile *a)
{
	if (a->kvt == W_BF16)
		part_t(acc, lda, ml, a, W_BF16);
	else if (a->kvt == W_F16)
		part_t(acc, lda, ml, a, W_F16);
	else
		part_t(acc, lda, ml, a, W_F32);
}

const struct attn_kern attn_avx512 = { "avx512", part };

#endif
