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
#include <string.h>

#include "kern/attn.h"
#include "kern/vexp.h"
#include "kern/attn_q8.h"
#include "kern/kern_avx512_int.h"

/* a + b of the 128-bit lanes picked by imm from x and y */
#define F4(x, y, i1, i2) _mm512_add_ps(_mm512_shuffle_f32x4(x, y, i1), \
	_mm512_shuffle_f32x4(x, y, i2))
/* the same for the elements within each 128-bit lane */
#define F1(x, y, i1, i2) _mm512_add_ps(_mm512_shuffle_ps(x, y, i1), \
	_mm512_shuffle_ps(x, y, i2))

#define NR 4		/* query rows whose scores share a key's loads */

/* The scale of the Q8_0 block of element c of a cache row, in every
 * lane, and where its 32 int8 start: p the row's int8 in its group, ds
 * its first block's scale, a block's ATTN_Q8G apart (attn_q8gd). */
INLINE __m512
q8scale(const void *p, const uint16_t *ds, int c, const int8_t **q)
{
	*q = (const int8_t *)p + c / 32 * 32;
	return _mm512_set1_ps(_cvtsh_ss(ds[ATTN_Q8G * (c / 32)]));
}

/* 16 int8 at q, as float32 times d (exact: attn.h). */
INLINE __m512
q8widen(const int8_t *q, __m512 d)
{
	return _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(
	    _mm_loadu_si128((const __m128i *)q))), d);
}

/* 16 elements from p + c of a cache row of type t, as float32 (q8_0:
 * its scales ds, q8scale). */
INLINE __m512
kvload(const void *p, const uint16_t *ds, int c, enum wtype t)
{
	const int8_t *q;
	__m512 d;

	if (t == W_GQ8_0) {
		d = q8scale(p, ds, c, &q);
		return q8widen(q + c % 32, d);
	}
	return wload(t, p, (size_t)c);
}

/* The scores of nr quantized query rows qq[i] (rows qs bytes apart)
 * against the 16 keys of the Q8_0 group kg (rows of n elements): out[i]
 * lane j, one key at a time (the tiles but decode's with AVX512-VNNI:
 * q8vnni). */
INLINE void
q8scores(int nr, __m512 *out, const unsigned char *qq, size_t qs,
    const void *kg, int n)
{
	float s[16];
	int i, j;

	for (i = 0; i < nr; i++) {
		for (j = 0; j < 16; j++)
			s[j] = q8score(qq + i * qs, kg, j, n);
		out[i] = _mm512_loadu_ps(s);
	}
}

/* s[i][j] = the 16-lane partial dot product of query row q[i] with key
 * k[j] (hd/16 FMAs in order from 0), for nr rows and nk keys: each
 * key's 16 elements loaded and widened once for all the rows. */
INLINE void
dots(int nr, int nk, __m512 (*s)[16], const float *const *q,
    const void *const *k, int hd, enum wtype t)
{
	__m512 kj;
	int i, j, c;

#pragma GCC unroll 4
	for (i = 0; i < nr; i++)
#pragma GCC unroll 16
		for (j = 0; j < nk; j++)
			s[i][j] = _mm512_setzero_ps();
	for (c = 0; c < hd; c += 16)
#pragma GCC unroll 16
		for (j = 0; j < nk; j++) {
			kj = kvload(k[j], NULL, c, t);
#pragma GCC unroll 4
			for (i = 0; i < nr; i++)
				s[i][j] = _mm512_fmadd_ps(_mm512_loadu_ps(q[i] + c),
				    kj, s[i][j]);
		}
}

/* The first two steps of the tree of 4 partial dot products a, b, c,
 * d: 128-bit lane 0 then holds a's v_k = (l_k + l_k+8) + (l_k+4 +
 * l_k+12), k < 4, lane 1 b's, lane 2 c's, lane 3 d's. */
INLINE __m512
quad(__m512 a, __m512 b, __m512 c, __m512 d)
{
	return F4(F4(a, b, 0x44, 0xee), F4(c, d, 0x44, 0xee), 0x88, 0xdd);
}

/* The last two: lane 4i + j of the result is (v0 + v2) + (v1 + v3) of
 * slot i of quad j. */
INLINE __m512
last(__m512 g0, __m512 g1, __m512 g2, __m512 g3)
{
	return F1(F1(g0, g1, 0x44, 0xee), F1(g2, g3, 0x44, 0xee), 0x88, 0xdd);
}

/* The scores of nr query rows q[i] against the 16 keys kp[0..16):
 * out[i] lane j is q[i] . key j, summed as kern_avx512_int.h's hsum
 * sums one accumulator: ((v0 + v2) + (v1 + v3)) with the v of quad,
 * the order of every score (prefill, decode) whatever the row count.
 * The keys go in four groups of 4, {j, j+4, j+8, j+12} for j < 4, whose
 * quads the last steps interleave into key order; with GQA each key
 * row serves the nr query heads over it.  Groups are taken 4, 2 or 1 at
 * a time so that at least 16 FMA chains are in flight for 1 to 4
 * rows. */
INLINE void
scores(int nr, __m512 *out, const float *const *q, const void *const *kp,
    int hd, enum wtype t)
{
	const void *ka[16] = { kp[0], kp[4], kp[8], kp[12], kp[1], kp[5],
		kp[9], kp[13], kp[2], kp[6], kp[10], kp[14], kp[3], kp[7],
		kp[11], kp[15] };
	__m512 s[NR][16], g[4][NR];
	int i, j, ng = nr == 1 ? 4 : nr == 2 ? 2 : 1, j0;

	for (j0 = 0; j0 < 4; j0 += ng) {
		dots(nr, 4 * ng, s, q, ka + 4 * j0, hd, t);
#pragma GCC unroll 4
		for (i = 0; i < nr; i++)
#pragma GCC unroll 4
			for (j = 0; j < ng; j++)
				g[j0 + j][i] = quad(s[i][4 * j], s[i][4 * j + 1],
				    s[i][4 * j + 2], s[i][4 * j + 3]);
	}
#pragma GCC unroll 4
	for (i = 0; i < nr; i++)
		out[i] = last(g[0][i], g[1][i], g[2][i], g[3][i]);
}

/* acc rows (nr of them) = acc * alpha + sum_j P[j] v_j over keys
 * j0 <= j < j1 of the block, for the G chunks of 16 floats from column
 * c: each (row, chunk) one accumulator fed the keys in order, nr * G
 * chains of FMAs in flight (one row's chain per chunk alone waits on
 * the FMA latency at every key). */
INLINE void
pv(int nr, int G, float *const *acc, const float *alpha,
    const float (*P)[16], const void *const *vp, const uint16_t *vg, int j0,
    int j1, int c, enum wtype t)
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
			vj[g] = kvload(vp[j], t == W_GQ8_0 ? vg + j : NULL,
			    c + 16 * g, t);
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
    const float (*P)[16], const void *const *vp, const uint16_t *vg, int j0,
    int j1, int hd, enum wtype t)
{
	int c;

	for (c = 0; c + 16 * G <= hd; c += 16 * G)
		pv(nr, G, acc, alpha, P, vp, vg, j0, j1, c, t);
	for (; c < hd; c += 16)
		pv(nr, 1, acc, alpha, P, vp, vg, j0, j1, c, t);
}

/* The one-token tile over a 16-bit or Q8_0 cache (decode, T = 1; q8_0's
 * int8 widened in registers, a value's scale folded into its
 * probability a group at a time, pv1): all its rows
 * share one key range, so a step of the softmax takes up to SB keys
 * (not ATTN_BLOCK): every score of the step first, into S, then one
 * max, one exp pass and one sum a row, then P.V with the accumulators
 * in registers across the step.  The order of the sums differs from
 * the tiles above (these caches are not the exact mode): the
 * scores' lanes are folded by blends and one shuffle an add, and a
 * bf16 row is read as its even and its odd elements (a shift and a
 * mask, no widening shuffle), the query and the accumulators in that
 * order too (unpermuted at the end). */
#define SB 256		/* keys a softmax step of the one-token tile */
#define R1 8		/* its rows, at most */
#define HD1 256		/* its head size, at most */

/* 32 elements from p + c of a 16-bit or Q8_0 cache row: bf16's even
 * and odd elements, f16's and q8_0's (one block, c a multiple of 32;
 * its scales ds, q8scale) in order. */
INLINE void
kvload32(const void *p, const uint16_t *ds, int c, enum wtype t, __m512 *x0,
    __m512 *x1)
{
	const uint16_t *h = (const uint16_t *)p + c;
	const int8_t *q;
	__m512i x;
	__m512 d;

	if (t == W_GQ8_0) {
		d = q8scale(p, ds, c, &q);
		*x0 = q8widen(q, d);
		*x1 = q8widen(q + 16, d);
	} else if (t == W_BF16) {
		x = _mm512_loadu_si512(h);
		*x0 = _mm512_castsi512_ps(_mm512_slli_epi32(x, 16));
		*x1 = _mm512_castsi512_ps(_mm512_and_si512(x,
		    _mm512_set1_epi32((int)0xffff0000u)));
	} else {
		*x0 = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)h));
		*x1 = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(h +
		    16)));
	}
}

/* One level of the scores' fold, two blends, one shuffle and one add:
 * each lane plus its partner (perm swaps the partners, k holds one of
 * each pair), a's sums in the lanes outside k, b's in those of k. */
#define FOLD(a, b, k, perm) _mm512_add_ps(_mm512_mask_blend_ps(k, a, b), \
	perm(_mm512_mask_blend_ps(k, b, a)))
#define SWAP256(u) _mm512_shuffle_f32x4(u, u, 0x4e)
#define SWAP128(u) _mm512_shuffle_f32x4(u, u, 0xb1)
#define SWAP64(u) _mm512_permute_ps(u, 0x4e)
#define SWAP32(u) _mm512_permute_ps(u, 0xb1)

/* 16 elements from c of each of two bf16 cache rows pa and pb side by
 * side: lanes 0-7 of x0 pa's even ones, 8-15 pb's, x1 their odd ones. */
INLINE void
kvpair16(const void *pa, const void *pb, int c, __m512 *x0, __m512 *x1)
{
	__m512i x = _mm512_inserti64x4(_mm512_castsi256_si512(
	    _mm256_loadu_si256((const __m256i *)((const uint16_t *)pa + c))),
	    _mm256_loadu_si256((const __m256i *)((const uint16_t *)pb + c)), 1);

	*x0 = _mm512_castsi512_ps(_mm512_slli_epi32(x, 16));
	*x1 = _mm512_castsi512_ps(_mm512_and_si512(x,
	    _mm512_set1_epi32((int)0xffff0000u)));
}

/* The scores of nr rows of qp (rows 2 hd apart, in qorder's order)
 * against the 16 keys kp[0..16): out[i] lane j is row i . key j.  Four
 * keys at a time, folded two levels into one vector (bf16: two keys a
 * vector from the loads on, the first level for free); the fold's lane
 * L holds its input bitrev(L), so the keys go in that order.  A pass
 * takes nq such quads: with one, a quad's few accumulators were FMA
 * chains hd/8 long that the next quad's could not overlap enough.  The
 * query's vectors are loaded once a pass and column, into registers
 * (the empty asm: else gcc makes each FMA reload them from memory, and
 * the loads, not the FMAs, bound the scores).  Each score's sums are
 * in the same order whatever nq. */
INLINE void
scores1(int nr, __m512 *out, const float *qp, const void *const *kp, int hd,
    enum wtype t)
{
	static const unsigned char br[16] = { 0, 8, 4, 12, 2, 10, 6, 14, 1,
		9, 5, 13, 3, 11, 7, 15 };
	__m512 s[NR][8], g[4][NR], k0, k1, qv[NR][2];
	int i, j, c, j0, jj;
	/* quads a pass: the most whose accumulators (nr * 2 nq bf16,
	 * nr * 4 nq else) and query vectors (2 nr) fit the registers */
	const int nq = t == W_BF16 ? (nr == 1 ? 4 : 2) : (nr <= 2 ? 2 : 1);

#pragma GCC unroll 4
	for (j0 = 0; j0 < 4; j0 += nq) {
#pragma GCC unroll 4
		for (i = 0; i < nr; i++)
#pragma GCC unroll 8
			for (j = 0; j < 8; j++)
				s[i][j] = _mm512_setzero_ps();
		for (c = 0; t == W_BF16 && c < hd; c += 16) {
#pragma GCC unroll 4
			for (i = 0; i < nr; i++) {
				qv[i][0] = _mm512_loadu_ps(qp + 2 * i * hd + 2 * c);
				qv[i][1] = _mm512_loadu_ps(qp + 2 * i * hd + 2 * c + 16);
				__asm__("" : "+v"(qv[i][0]), "+v"(qv[i][1]));
			}
#pragma GCC unroll 8
			for (j = 0; j < 2 * nq; j++) {
				jj = 4 * j0 + 2 * j;
				kvpair16(kp[br[jj]], kp[br[jj + 1]], c, &k0, &k1);
#pragma GCC unroll 4
				for (i = 0; i < nr; i++) {
					s[i][j] = _mm512_fmadd_ps(qv[i][0], k0, s[i][j]);
					s[i][j] = _mm512_fmadd_ps(qv[i][1], k1, s[i][j]);
				}
			}
		}
		for (c = 0; t != W_BF16 && c < hd; c += 32) {
#pragma GCC unroll 4
			for (i = 0; i < nr; i++) {
				qv[i][0] = _mm512_loadu_ps(qp + 2 * i * hd + c);
				qv[i][1] = _mm512_loadu_ps(qp + 2 * i * hd + c + 16);
				__asm__("" : "+v"(qv[i][0]), "+v"(qv[i][1]));
			}
#pragma GCC unroll 8
			for (j = 0; j < 4 * nq; j++) {
				kvload32(kp[br[4 * j0 + j]], NULL, c, t, &k0,
				    &k1);
#pragma GCC unroll 4
				for (i = 0; i < nr; i++) {
					s[i][j] = _mm512_fmadd_ps(qv[i][0], k0, s[i][j]);
					s[i][j] = _mm512_fmadd_ps(qv[i][1], k1, s[i][j]);
				}
			}
		}
#pragma GCC unroll 4
		for (i = 0; i < nr; i++)
#pragma GCC unroll 4
			for (j = 0; j < nq; j++)
				g[j0 + j][i] = t == W_BF16 ?
				    FOLD(s[i][2 * j], s[i][2 * j + 1], 0xf0f0, SWAP128) :
				    FOLD(FOLD(s[i][4 * j], s[i][4 * j + 1], 0xff00, SWAP256),
				    FOLD(s[i][4 * j + 2], s[i][4 * j + 3], 0xff00, SWAP256),
				    0xf0f0, SWAP128);
	}
#pragma GCC unroll 4
	for (i = 0; i < nr; i++)
		out[i] = FOLD(FOLD(g[0][i], g[1][i], 0xcccc, SWAP64),
		    FOLD(g[2][i], g[3][i], 0xcccc, SWAP64), 0xaaaa, SWAP32);
}

/* A query row over a Q8_0 cache, quantized as the keys are
 * (attn_kvstore: attn.h's arithmetic), and laid out for q8vnni: for
 * each 64 columns c (two blocks) and t < 4, 16 int32 whose lane
 * 4G + i holds the query's 4 bytes of column group 4G + t of c (the
 * keys' lanes after q8keys, for any of the 4 keys i); with each block's
 * 128 * sum of its int8 (the keys are made unsigned by adding 128) and
 * its scale. */
struct q8row {
	int32_t qv[HD1];
	int32_t corr[HD1 / 32];
	float d[HD1 / 32];
	unsigned char qb[HD1 / 32 * 34];	/* the row, Q8_0 blocks */
};

/* attn_kvstore's Q8_0 block (ggml's quantize_row_q8_0_ref, a
 * non-finite value making the scale NaN) of the n <= 32 floats at x
 * (zeros after them) into b, with its bits: the same max, d = amax /
 * 127 and 1 / d, x * id rounded half away from zero (a truncation, and
 * one more where the rest is 0.5 or more: exact) and clamped to +-127;
 * d to F16 rounded to nearest even.  A libm roundf a value cost
 * decode's tile more than its scores. */
INLINE void
q8quant(unsigned char *b, const float *x, int n)
{
	__mmask16 m0 = n >= 16 ? 0xffff : (__mmask16)((1u << n) - 1),
	    m1 = n >= 32 ? 0xffff : n > 16 ? (__mmask16)((1u << (n - 16)) - 1) : 0,
	    bad;
	__m512 v[2], y, t, ax;
	__m512i lo = _mm512_set1_epi32(-127), hi = _mm512_set1_epi32(127);
	float amax, d, id;
	uint16_t h;
	int k;

	v[0] = _mm512_maskz_loadu_ps(m0, x);
	v[1] = _mm512_maskz_loadu_ps(m1, x + 16);
	bad = _mm512_fpclass_ps_mask(v[0], 0x99) | _mm512_fpclass_ps_mask(v[1],
	    0x99);	/* NaN or inf */
	v[0] = _mm512_maskz_mov_ps((__mmask16)~_mm512_fpclass_ps_mask(v[0],
	    0x99), v[0]);
	v[1] = _mm512_maskz_mov_ps((__mmask16)~_mm512_fpclass_ps_mask(v[1],
	    0x99), v[1]);
	amax = _mm512_reduce_max_ps(_mm512_max_ps(_mm512_abs_ps(v[0]),
	    _mm512_abs_ps(v[1])));
	d = amax / 127;
	id = d ? 1.0f / d : 0.0f;
	h = bad ? 0x7e00 : (uint16_t)_cvtss_sh(d, _MM_FROUND_TO_NEAREST_INT);
	memcpy(b, &h, sizeof(h));
	for (k = 0; k < 2; k++) {
		y = _mm512_mul_ps(v[k], _mm512_set1_ps(id));
		t = _mm512_roundscale_ps(y, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
		ax = _mm512_abs_ps(_mm512_sub_ps(y, t));
		t = _mm512_mask_add_ps(t, _mm512_cmp_ps_mask(ax,
		    _mm512_set1_ps(0.5f), _CMP_GE_OQ), t, _mm512_or_ps(
		    _mm512_set1_ps(1.0f), _mm512_and_ps(y, _mm512_set1_ps(-0.0f))));
		_mm_storeu_si128((__m128i *)(b + 2 + 16 * k), _mm512_cvtepi32_epi8(
		    _mm512_min_epi32(hi, _mm512_max_epi32(lo,
		    _mm512_cvttps_epi32(t)))));
	}
}

/* Query row q (hd floats) into r. */
INLINE void
q8prep(struct q8row *r, const float *q, int hd)
{
	static const int g4[16] = { 0, 0, 0, 0, 4, 4, 4, 4, 8, 8, 8, 8, 12,
		12, 12, 12 };
	__m512i x, idx = _mm512_loadu_si512(g4);
	int b, c, t;
	uint16_t d;

	for (c = 0; c < hd; c += 32)
		q8quant(r->qb + c / 32 * 34, q + c, hd - c < 32 ? hd - c : 32);
	for (b = 0; b < (hd + 31) / 32; b++) {
		memcpy(&d, r->qb + 34 * b, sizeof(d));
		r->d[b] = _cvtsh_ss(d);
		x = _mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)(r->qb +
		    34 * b + 2)));
		x = _mm512_add_epi32(x, _mm512_cvtepi8_epi32(_mm_loadu_si128(
		    (const __m128i *)(r->qb + 34 * b + 18))));
		r->corr[b] = 128 * _mm512_reduce_add_epi32(x);
	}
	for (c = 0; c + 64 <= hd; c += 64) {	/* lane 4G + i: dword 4G + t */
		x = _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_loadu_si256(
		    (const __m256i *)(r->qb + c / 32 * 34 + 2))),
		    _mm256_loadu_si256((const __m256i *)(r->qb + c / 32 * 34 +
		    36)), 1);
		for (t = 0; t < 4; t++)
			_mm512_storeu_si512(r->qv + c + 16 * t, _mm512_permutexvar_epi32(
			    _mm512_add_epi32(idx, _mm512_set1_epi32(t)), x));
	}
}

/* q8vnni's 4 keys k[0..4) (int8 rows of a Q8_0 group) from column c
 * (two blocks) transposed in place: lane 4G + i of k[t] is key i's 4
 * int8 of column group 4G + t (groups 0-7 the first block, 8-15 the
 * second), plus 128 (unsigned, vpdpbusd's first operand). */
INLINE void
q8keys(__m512i *k, const void *const *kp, int c)
{
	const __m512i flip = _mm512_set1_epi8((char)0x80);
	__m512i x[4], u[4];
	int i;

#pragma GCC unroll 4
	for (i = 0; i < 4; i++)
		x[i] = _mm512_xor_si512(_mm512_loadu_si512((const char *)kp[i] +
		    c), flip);
	u[0] = _mm512_unpacklo_epi32(x[0], x[1]);
	u[1] = _mm512_unpackhi_epi32(x[0], x[1]);
	u[2] = _mm512_unpacklo_epi32(x[2], x[3]);
	u[3] = _mm512_unpackhi_epi32(x[2], x[3]);
	k[0] = _mm512_unpacklo_epi64(u[0], u[2]);
	k[1] = _mm512_unpackhi_epi64(u[0], u[2]);
	k[2] = _mm512_unpacklo_epi64(u[1], u[3]);
	k[3] = _mm512_unpackhi_epi64(u[1], u[3]);
}

/* The scores of nr rows qr[i] against the 16 keys kp[0..16) of a Q8_0
 * cache (hd % 64 == 0; their scales dg, the group's, attn_q8gd's order):
 * out[i] lane j, attn_q8gscore's bits.  For each 64
 * columns, 4 keys at a time transposed (q8keys) so that one vpdpbusd
 * is 4 columns of the 4 keys for 4 column groups, the keys' 4 bytes
 * serving every row: no horizontal sums a key, the groups of a block
 * and the keys' quads put in key order by vshufi32x4 once a 16 keys
 * and row.  The keys' scales of a block are one vector load. */
__attribute__((target("avx512vnni"))) INLINE void
q8vnni_n(int nr, __m512 *out, const struct q8row *qr, const void *const *kp,
    const uint16_t *dg, int hd)
{
	int a, c, i, t;
	__m512i k[4][4], x[4], h0, h1, b0, b1;
	__m512 dk0, dk1;
	const int32_t *q;

#pragma GCC unroll 8
	for (i = 0; i < nr; i++)
		out[i] = _mm512_setzero_ps();
	for (c = 0; c < hd; c += 64) {
		dk0 = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(dg +
		    ATTN_Q8G * (c / 32))));
		dk1 = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(dg +
		    ATTN_Q8G * (c / 32 + 1))));
#pragma GCC unroll 4
		for (a = 0; a < 4; a++)
			q8keys(k[a], kp + 4 * a, c);
		/* a row's 4 quads: 4 chains of 4 vpdpbusd, not one */
#pragma GCC unroll 8
		for (i = 0; i < nr; i++) {
			q = qr[i].qv + c;
#pragma GCC unroll 4
			for (a = 0; a < 4; a++)
				x[a] = _mm512_dpbusd_epi32(_mm512_setzero_si512(),
				    k[a][0], _mm512_loadu_si512(q));
#pragma GCC unroll 4
			for (t = 1; t < 4; t++)
#pragma GCC unroll 4
				for (a = 0; a < 4; a++)
					x[a] = _mm512_dpbusd_epi32(x[a], k[a][t],
					    _mm512_loadu_si512(q + 16 * t));
			/* quads 0 and 1, 2 and 3: [blocks 0, 1 of the first,
			 * blocks 0, 1 of the second] */
			h0 = _mm512_add_epi32(_mm512_shuffle_i32x4(x[0], x[1], 0x88),
			    _mm512_shuffle_i32x4(x[0], x[1], 0xdd));
			h1 = _mm512_add_epi32(_mm512_shuffle_i32x4(x[2], x[3], 0x88),
			    _mm512_shuffle_i32x4(x[2], x[3], 0xdd));
			b0 = _mm512_sub_epi32(_mm512_shuffle_i32x4(h0, h1, 0x88),
			    _mm512_set1_epi32(qr[i].corr[c / 32]));
			b1 = _mm512_sub_epi32(_mm512_shuffle_i32x4(h0, h1, 0xdd),
			    _mm512_set1_epi32(qr[i].corr[c / 32 + 1]));
			out[i] = _mm512_add_ps(out[i], _mm512_mul_ps(
			    _mm512_cvtepi32_ps(b0), _mm512_mul_ps(
			    _mm512_set1_ps(qr[i].d[c / 32]), dk0)));
			out[i] = _mm512_add_ps(out[i], _mm512_mul_ps(
			    _mm512_cvtepi32_ps(b1), _mm512_mul_ps(
			    _mm512_set1_ps(qr[i].d[c / 32 + 1]), dk1)));
		}
	}
}

/* q8vnni_n with its row count a constant. */
__attribute__((target("avx512vnni"), noinline)) static void
q8vnni(int nr, __m512 *out, const struct q8row *qr, const void *const *kp,
    const uint16_t *dg, int hd)
{
	switch (nr) {
	case 8: q8vnni_n(8, out, qr, kp, dg, hd); break;
	case 7: q8vnni_n(7, out, qr, kp, dg, hd); break;
	case 6: q8vnni_n(6, out, qr, kp, dg, hd); break;
	case 5: q8vnni_n(5, out, qr, kp, dg, hd); break;
	case 4: q8vnni_n(4, out, qr, kp, dg, hd); break;
	case 3: q8vnni_n(3, out, qr, kp, dg, hd); break;
	case 2: q8vnni_n(2, out, qr, kp, dg, hd); break;
	default: q8vnni_n(1, out, qr, kp, dg, hd); break;
	}
}

/* Query row q (hd floats) in scores1's order into qp (2 hd): bf16 a
 * pair of vectors each 16 elements, their even ones twice over and
 * their odd ones twice over (kvpair16); f16 as it is. */
INLINE void
qorder(float *qp, const float *q, int hd, enum wtype t)
{
	static const int ev[16] = { 0, 2, 4, 6, 8, 10, 12, 14, 0, 2, 4, 6, 8,
		10, 12, 14 };
	__m512i ie = _mm512_loadu_si512(ev),
	    io = _mm512_add_epi32(ie, _mm512_set1_epi32(1));
	__m512 x;
	int c;

	for (c = 0; c < hd; c += 16) {
		x = _mm512_loadu_ps(q + c);
		if (t == W_BF16) {
			_mm512_storeu_ps(qp + 2 * c, _mm512_permutexvar_ps(ie, x));
			_mm512_storeu_ps(qp + 2 * c + 16,
			    _mm512_permutexvar_ps(io, x));
		} else {
			_mm512_storeu_ps(qp + c, x);
		}
	}
}

/* acc rows (nr) = acc * alpha + sum_j P[i][j] v_j over the n keys
 * j0 <= j < j0 + n of vr, for the G vectors from column c, each (row,
 * vector) one accumulator in a register across the keys; over a Q8_0
 * cache (P[i][j] d_j) q_j, the scale d_j of v_j's block multiplied into
 * the probability, 16 keys a vector, so that a value row is its int8
 * widened and nothing more (bench/NOTES.md, "Decode's Q8_0 tile over a
 * cache in groups of 16 positions").  With ah
 * (the tile a's step from key jb0 has a next tile), the next tile's
 * values of each key block as it begins: the key blocks' share of the
 * next tile spread over this one's two passes, not all in flight
 * at once. */
INLINE void
pv1(int nr, int G, float *acc, int hd, const float *alpha,
    const float (*P)[SB], const void *const *vr, int j0, int n, int c,
    enum wtype t, const struct attn_tile *a, int jb0, int ah)
{
	__m512 o[R1][4], x[4], pj, d;
	float Pd[R1][2][SB] __attribute__((aligned(64)));
	const uint16_t *dg;
	int i, j, g, q, b;

#pragma GCC unroll 8
	for (i = 0; i < nr; i++)
#pragma GCC unroll 4
		for (g = 0; g < G; g++)
			o[i][g] = _mm512_mul_ps(_mm512_loadu_ps(acc + i * hd + c +
			    16 * g), _mm512_set1_ps(alpha[i]));
	/* q8_0: the values' scales (attn_q8gd) folded into the
	 * probabilities, 16 keys of a group a vector: Pd[i][b][j] = P[i][j]
	 * times key j's scale of block c / 32 + b */
	for (q = j0 & ~15; t == W_GQ8_0 && q < j0 + n; q += 16) {
		j = q > j0 ? q : j0;	/* a key of the group in the range */
		dg = attn_q8gof(vr[j], j & 15, hd);
#pragma GCC unroll 2
		for (b = 0; b < G / 2; b++) {
			d = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(dg +
			    ATTN_Q8G * (c / 32 + b))));
#pragma GCC unroll 8
			for (i = 0; i < nr; i++)
				_mm512_store_ps(Pd[i][b] + q, _mm512_mul_ps(
				    _mm512_loadu_ps(P[i] + q), d));
		}
	}
	for (j = j0; j < j0 + n; j++) {
		if (ah && (j == j0 || !(j & 15)))
			attn_ahead_kv(a, jb0 + (j & ~15), ATTN_V);
		if (t == W_GQ8_0) {
#pragma GCC unroll 4
			for (g = 0; g < G; g++)
				x[g] = _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(
				    _mm_loadu_si128((const __m128i *)((const char *)
				    vr[j] + c + 16 * g))));
#pragma GCC unroll 8
			for (i = 0; i < nr; i++)
#pragma GCC unroll 4
				for (g = 0; g < G; g++)
					o[i][g] = _mm512_fmadd_ps(_mm512_set1_ps(
					    Pd[i][g / 2][j]), x[g], o[i][g]);
			continue;
		}
#pragma GCC unroll 4
		for (g = 0; g < G; g += 2)
			kvload32(vr[j], NULL, c + 16 * g, t, &x[g], &x[g + 1]);
#pragma GCC unroll 8
		for (i = 0; i < nr; i++) {
			pj = _mm512_set1_ps(P[i][j]);
#pragma GCC unroll 4
			for (g = 0; g < G; g++)
				o[i][g] = _mm512_fmadd_ps(pj, x[g], o[i][g]);
		}
	}
#pragma GCC unroll 8
	for (i = 0; i < nr; i++)
#pragma GCC unroll 4
		for (g = 0; g < G; g++)
			_mm512_storeu_ps(acc + i * hd + c + 16 * g, o[i][g]);
}

/* pv1 over all hd columns of the nr rows, the next tile's values
 * prefetched in the first pass (its blocks before j0's first). */
INLINE void
pv1rows(int nr, float *acc, int hd, const float *alpha, const float (*P)[SB],
    const void *const *vr, int j0, int n, enum wtype t,
    const struct attn_tile *a, int jb0)
{
	int c, jb, ah = a->ahead != NULL, G = nr <= 4 ? 4 : 2;

	for (jb = 0; ah && jb + 16 <= j0; jb += 16)
		attn_ahead_kv(a, jb0 + jb, ATTN_V);
	for (c = 0; c + 16 * G <= hd; c += 16 * G, ah = 0)
		pv1(nr, G, acc, hd, alpha, P, vr, j0, n, c, t, a, jb0, ah);
	for (; c < hd; c += 32, ah = 0)
		pv1(nr, 2, acc, hd, alpha, P, vr, j0, n, c, t, a, jb0, ah);
}

/* Step [jb0, jb0 + nb) (whole key blocks) of the one-token tile: its
 * scores into S (scaled, soft-capped, -inf outside [s, e)), the rows'
 * maxima into mx, the rows of its values into vr. */
INLINE void
step_scores(const struct attn_tile *a, int jb0, int nb, int s, int e, int R,
    const float *qp, const struct q8row *qr, int vnni, int hd, enum wtype kt,
    float (*S)[SB], __m512 *mx, const void **vr)
{
	const void *kp[16];
	const uint16_t *kg = NULL;
	__m512 sc[R1], x;
	__mmask16 valid;
	int jb, jr, jn, r, nr;

	for (jb = jb0; jb < jb0 + nb; jb += 16) {
		attn_prefetch_block(a, jb + 16, e);	/* the next block */
		if (a->ahead)	/* the next tile's keys of this block (its
				 * values under pv1's) */
			attn_ahead_kv(a, jb, ATTN_K);
		jr = s - jb > 0 ? s - jb : 0;
		jn = e - jb < 16 ? e - jb : 16;
		if (jn <= jr) {		/* before a window's first key */
			for (r = 0; r < R; r++)
				_mm512_storeu_ps(S[r] + (jb - jb0),
				    _mm512_set1_ps(-INFINITY));
			continue;
		}
		attn_rows(a, jb, jr, jn, kp, vr + (jb - jb0));
		if (kt == W_GQ8_0)	/* the group's scales (attn_q8gd) */
			kg = attn_q8gof(kp[jr], jr, hd);
		if (kt == W_GQ8_0 && vnni)
			q8vnni(R, sc, qr, kp, kg, hd);
		for (r = 0; kt == W_GQ8_0 && !vnni && r < R; r++)
			q8scores(1, sc + r, qr[r].qb, 0, kg, hd);
		for (r = 0; kt != W_GQ8_0 && r < R; r += nr) {
			nr = R - r < NR ? R - r : NR;
			switch (nr) {
			case 4: scores1(4, sc + r, qp + 2 * r * hd, kp, hd, kt); break;
			case 3: scores1(3, sc + r, qp + 2 * r * hd, kp, hd, kt); break;
			case 2: scores1(2, sc + r, qp + 2 * r * hd, kp, hd, kt); break;
			default: scores1(1, sc + r, qp + 2 * r * hd, kp, hd, kt); break;
			}
		}
		valid = (__mmask16)((0xffffu << jr) & (0xffffu >> (16 - jn)));
		for (r = 0; r < R; r++) {
			x = _mm512_mul_ps(sc[r], _mm512_set1_ps(a->scale));
			if (a->softcap) {
				float c16[16];

				_mm512_storeu_ps(c16, x);
				attn_softcap(c16, 16, a->softcap);
				x = _mm512_loadu_ps(c16);
			}
			x = _mm512_mask_mov_ps(_mm512_set1_ps(-INFINITY), valid, x);
			_mm512_storeu_ps(S[r] + (jb - jb0), x);
			mx[r] = _mm512_max_ps(mx[r], x);
		}
	}
}

/* Row r's new max m from its step's maximum mx, the factor alpha of
 * what was summed before, S's scores made probabilities (0 outside the
 * range) and l updated. */
INLINE void
step_softmax(float *S, int nb, __m512 mx, float *m, float *l, float *alpha)
{
	__m512 ninf = _mm512_set1_ps(-INFINITY), mv, ls = _mm512_setzero_ps(),
	    x, p;
	float bm = _mm512_reduce_max_ps(mx);
	int j;

	if (bm > *m) {
		*alpha = *m == -INFINITY ? 0 : expf(*m - bm);
		*m = bm;
	} else {
		*alpha = 1;
	}
	mv = _mm512_set1_ps(*m);
	for (j = 0; j < nb; j += 16) {
		x = _mm512_loadu_ps(S + j);
		p = vexp16(_mm512_sub_ps(x, mv));
		/* -inf is outside the range; a NaN score stays NaN (as
		 * expf gives it: vexp16 clamps it to a number) */
		p = _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(x, ninf,
		    _CMP_NEQ_UQ), p);
		p = _mm512_mask_mov_ps(p, _mm512_cmp_ps_mask(x, x,
		    _CMP_UNORD_Q), x);
		ls = _mm512_add_ps(ls, p);
		_mm512_storeu_ps(S + j, p);
	}
	*l = *l * *alpha + _mm512_reduce_add_ps(ls);
}

/* The one-token tile, R <= R1 rows, hd % 32 == 0, hd <= HD1. */
INLINE void
part1(float *acc, float *ml, const struct attn_tile *a, enum wtype kt,
    int hd, int vnni)
{
	static const int lo[16] = { 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21,
		6, 22, 7, 23 };
	float S[R1][SB], qp[2 * R1 * HD1], m[R1], l[R1], alpha[R1];
	struct q8row qr[R1];
	const void *vr[SB];
	int R = a->nh, r, c, s = attn_start(a, 0), jb, nb, j0, n;
	int e = a->pos0 + 1 < a->p1 ? a->pos0 + 1 : a->p1;
	__m512 mx[R1], x0, x1;
	__m512i ilo = _mm512_loadu_si512(lo), ihi;

	ihi = _mm512_add_epi32(ilo, _mm512_set1_epi32(8));
	for (r = 0; r < R; r++) {
		m[r] = -INFINITY, l[r] = 0;
		for (c = 0; c < hd; c += 16)
			_mm512_storeu_ps(acc + r * hd + c, _mm512_setzero_ps());
		if (kt == W_GQ8_0)
			q8prep(&qr[r], a->q + r * hd, hd);
		else
			qorder(qp + 2 * r * hd, a->q + r * hd, hd, kt);
	}
	vnni = vnni && hd % 64 == 0;	/* q8vnni's 64 columns a pass */
	jb = a->p0 - a->p0 % 16;
	attn_prefetch_block(a, jb, e);
	for (; jb < e; jb += nb) {
		nb = e - jb < SB ? (e - jb + 15) / 16 * 16 : SB;
		for (r = 0; r < R; r++)
			mx[r] = _mm512_set1_ps(-INFINITY);
		step_scores(a, jb, nb, s, e, R, qp, qr, vnni, hd, kt, S, mx,
		    vr);
		j0 = s - jb > 0 ? s - jb : 0;
		n = (e - jb < nb ? e - jb : nb) - j0;
		if (n <= 0) {	/* before a window's first key */
			for (c = 0; a->ahead && c < nb; c += 16)
				attn_ahead_kv(a, jb + c, ATTN_V);
			continue;
		}
		for (r = 0; r < R; r++)
			step_softmax(S[r], nb, mx[r], &m[r], &l[r], &alpha[r]);
		switch (R) {	/* constant row counts: registers */
		case 8: pv1rows(8, acc, hd, alpha, S, vr, j0, n, kt, a,
		    jb); break;
		case 7: pv1rows(7, acc, hd, alpha, S, vr, j0, n, kt, a,
		    jb); break;
		case 6: pv1rows(6, acc, hd, alpha, S, vr, j0, n, kt, a,
		    jb); break;
		case 5: pv1rows(5, acc, hd, alpha, S, vr, j0, n, kt, a,
		    jb); break;
		case 4: pv1rows(4, acc, hd, alpha, S, vr, j0, n, kt, a,
		    jb); break;
		case 3: pv1rows(3, acc, hd, alpha, S, vr, j0, n, kt, a,
		    jb); break;
		case 2: pv1rows(2, acc, hd, alpha, S, vr, j0, n, kt, a,
		    jb); break;
		default: pv1rows(1, acc, hd, alpha, S, vr, j0, n, kt, a,
		    jb); break;
		}
	}
	for (r = 0; r < R; r++) {
		ml[2 * r] = m[r];
		ml[2 * r + 1] = l[r];
		for (c = 0; kt == W_BF16 && c < hd; c += 32) {
			x0 = _mm512_loadu_ps(acc + r * hd + c);
			x1 = _mm512_loadu_ps(acc + r * hd + c + 16);
			_mm512_storeu_ps(acc + r * hd + c,
			    _mm512_permutex2var_ps(x0, ilo, x1));
			_mm512_storeu_ps(acc + r * hd + c + 16,
			    _mm512_permutex2var_ps(x0, ihi, x1));
		}
	}
}

INLINE void
part_t(float *acc, int lda, float *ml, const struct attn_tile *a,
    enum wtype kt, int HD, int vnni)
{
	float P[ATTN_MAXROWS][16], alpha[ATTN_MAXROWS], m[ATTN_MAXROWS],
	    l[ATTN_MAXROWS], bm, *arow[ATTN_MAXROWS];
	const float *qrow[ATTN_MAXROWS], *al;
	const void *kp[16], *vp[16];
	const float (*pr)[16];
	float *const *ar;
	int end[ATTN_MAXROWS], start[ATTN_MAXROWS], R = a->nh * a->T, hd = HD ? HD : a->hd;
	int r, t, jb, j0, j1, jn, jr, c, nr, pend, i, any, allk;
	const float scale = a->scale, cap = a->softcap;
	__m512 S[ATTN_MAXROWS], s, p;
	__mmask16 valid;
	struct q8row qr[ATTN_MAXROWS];	/* q8_0: the rows quantized */
	const uint16_t *kg = NULL, *vg = NULL;	/* q8_0: a block's groups */
	int q8n = attn_kvrow(kt, hd);	/* q8_0: a row's int8 */

	if (hd % 16 || R > ATTN_MAXROWS || R < 1 || (kt == W_GQ8_0 &&
	    hd > HD1)) {
		attn_portable.part(acc, lda, ml, a);
		return;
	}
	if (a->T == 1 && kt != W_F32 && R <= R1 && hd % 32 == 0 && hd <= HD1) {
		part1(acc, ml, a, kt, hd, vnni);
		return;
	}
	vnni = vnni && hd % 64 == 0;	/* q8vnni's 64 columns a pass */
	pend = a->pos0 + a->T < a->p1 ? a->pos0 + a->T : a->p1;
	for (r = 0; r < R; r++) {
		t = r / a->nh;
		arow[r] = acc + (size_t)t * lda + (r % a->nh) * hd;
		qrow[r] = a->q + (size_t)t * a->ldq + (r % a->nh) * hd;
		if (kt == W_GQ8_0)
			q8prep(&qr[r], qrow[r], hd);
		end[r] = a->pos0 + t + 1 < a->p1 ? a->pos0 + t + 1 : a->p1;
		start[r] = attn_start(a, t);
		m[r] = -INFINITY;
		l[r] = 0;
		for (c = 0; c < hd; c += 16)
			_mm512_storeu_ps(arow[r] + c, _mm512_setzero_ps());
	}
	/* one token from p0 (decode): every block has keys for every row */
	allk = a->T == 1 && start[0] == a->p0;
	jb = a->p0 - a->p0 % 16;
	attn_prefetch_block(a, jb, pend);
	for (; jb < pend; jb += 16) {
		attn_prefetch_block(a, jb + 16, pend);	/* the next block */
		if (a->ahead)	/* the next tile's share of this block */
			attn_ahead(a, jb);
		/* keys j0..j1 of the block exist; others point at key j0 and
		 * are masked out */
		j0 = a->p0 > jb ? a->p0 - jb : 0;
		j1 = pend - jb < 16 ? pend - jb : 16;
		attn_rows(a, jb, j0, j1, kp, vp);
		if (kt == W_GQ8_0) {	/* the groups' scales (attn_q8gd) */
			kg = attn_q8gof(kp[j0], j0, q8n);
			vg = attn_q8gof(vp[j0], j0, q8n);
		}
		/* the scores of NR rows at a time, their keys loaded once */
		for (r = 0; r < R; r += nr) {
			/* a float32 key is an FMA's memory operand, as cheap
			 * as a register: shared only once widened */
			nr = kt == W_F32 ? 1 : R - r < NR ? R - r : NR;
			for (i = any = allk; !any && i < nr; i++)
				any |= (end[r + i] - jb < 16 ? end[r + i] - jb : 16) >
				    (start[r + i] - jb > j0 ? start[r + i] - jb : j0);
			if (!any)
				continue;
			if (kt == W_GQ8_0 && vnni)
				q8vnni(nr, S + r, qr + r, kp, kg, hd);
			else if (kt == W_GQ8_0)
				q8scores(nr, S + r, qr[r].qb, sizeof(*qr), kg,
				    q8n);
			if (kt == W_GQ8_0)
				continue;
			switch (nr) {
			case 4: scores(4, S + r, qrow + r, kp, hd, kt); break;
			case 3: scores(3, S + r, qrow + r, kp, hd, kt); break;
			case 2: scores(2, S + r, qrow + r, kp, hd, kt); break;
			default: scores(1, S + r, qrow + r, kp, hd, kt); break;
			}
		}
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
			s = _mm512_mul_ps(S[r], _mm512_set1_ps(scale));
			if (cap) {
				float sc[16];

				_mm512_storeu_ps(sc, s);
				attn_softcap(sc, 16, cap);
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
			case 8: pvrows(8, 2, ar, al, pr, vp, vg, j0, j1, hd,
			    kt); break;
			case 7: pvrows(7, 2, ar, al, pr, vp, vg, j0, j1, hd,
			    kt); break;
			case 6: pvrows(6, 4, ar, al, pr, vp, vg, j0, j1, hd,
			    kt); break;
			case 5: pvrows(5, 4, ar, al, pr, vp, vg, j0, j1, hd,
			    kt); break;
			case 4: pvrows(4, 4, ar, al, pr, vp, vg, j0, j1, hd,
			    kt); break;
			case 3: pvrows(3, 4, ar, al, pr, vp, vg, j0, j1, hd,
			    kt); break;
			case 2: pvrows(2, 4, ar, al, pr, vp, vg, j0, j1, hd,
			    kt); break;
			default: pvrows(1, 4, ar, al, pr, vp, vg, j0, j1, hd,
			    kt); break;
			}
		}
	}
	for (r = 0; r < R; r++) {
		ml[2 * r] = m[r];
		ml[2 * r + 1] = l[r];
	}
}

/* One copy of the tile a cache type, its loads known at compile time;
 * and one for head size 64 (SmolLM2's, Llama 3.2 1B's), its loops over
 * a row's columns unrolled: decode's tile spent 8% of its instructions
 * on their control. */
static void
part(float *acc, int lda, float *ml, const struct attn_tile *a)
{
	int h64 = a->hd == 64, vnni = 0;

	if (a->kvt == W_BF16)
		h64 ? part_t(acc, lda, ml, a, W_BF16, 64, 0) :
		    part_t(acc, lda, ml, a, W_BF16, 0, 0);
	else if (a->kvt == W_F16)
		h64 ? part_t(acc, lda, ml, a, W_F16, 64, 0) :
		    part_t(acc, lda, ml, a, W_F16, 0, 0);
	else if (a->kvt == W_GQ8_0) {
		/* decode's q8_0 scores by vpdpbusd where the CPU has it
		 * (the bits of the other path: attn.h) */
		vnni = __builtin_cpu_supports("avx512vnni");
		h64 ? part_t(acc, lda, ml, a, W_GQ8_0, 64, vnni) :
		    part_t(acc, lda, ml, a, W_GQ8_0, 0, vnni);
	}
	else
		h64 ? part_t(acc, lda, ml, a, W_F32, 64, 0) :
		    part_t(acc, lda, ml, a, W_F32, 0, 0);
}

const struct attn_kern attn_avx512 = { "avx512", part };

#endif
