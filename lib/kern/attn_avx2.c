/* attn_avx2.c: the tiled attention of attn.h with AVX2 and FMA.
 *
 * As lib/kern/attn_avx512.c with 8-lane vectors: a block of 16 keys is two
 * halves of 8 scores, each from 8 dot products (hd/8 FMAs in order)
 * folded by a transposing add tree; exp by a Cephes-style polynomial
 * with the power of two built in the exponent bits (lanes below -87
 * give about 1e-38, never used where a key is masked: those lanes are
 * zeroed).  Needs hd % 8 == 0; other head sizes use the portable tile.
 * Decode's tile over a 16-bit or Q8_0 cache (part1) takes its softmax
 * SB keys a step and over a Q8_0 cache folds each value's scale into
 * its probability, as attn_avx512.c's one-token tile. */
#if defined(__x86_64__)

#include <immintrin.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "kern/attn.h"
#include "kern/vexp.h"
#include "kern/kern.h"
#include "kern/kern_avx2_int.h"

/* a + b of the 128-bit halves picked by imm from x and y */
#define F4(x, y, i1, i2) _mm256_add_ps(_mm256_permute2f128_ps(x, y, i1), \
	_mm256_permute2f128_ps(x, y, i2))
/* the same for the elements within each half */
#define F1(x, y, i1, i2) _mm256_add_ps(_mm256_shuffle_ps(x, y, i1), \
	_mm256_shuffle_ps(x, y, i2))

#define NR 3		/* query rows whose scores share a key's loads */
#define Q8HD 256	/* a q8_0 cache's head size, at most (else the
			 * portable tile) */
#define SB 128		/* keys a softmax step of the one-token tile */
#define R1 8		/* its rows, at most */

/* 8 elements from p + c of a cache row of type t, as float32 (q8_0: p
 * the row's int8 in its group, ds its first block's scale, a block's
 * ATTN_Q8G apart (attn_q8gd); the int8 widened times the scale, exact:
 * attn.h; ds NULL: the int8 widened alone, the scale folded into the
 * probability instead, part1). */
INLINE __m256
kvload(const void *p, const uint16_t *ds, int c, enum wtype t)
{
	__m256 x;

	if (t == W_GQ8_0) {
		x = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_loadl_epi64(
		    (const __m128i *)((const char *)p + c))));
		return ds ? _mm256_mul_ps(x, _mm256_set1_ps(_cvtsh_ss(
		    ds[ATTN_Q8G * (c / 32)]))) : x;
	}
	return wload(t, p, (size_t)c);
}

/* s[i][j] = the 8-lane partial dot product of query row q[i] with key
 * k[j] (hd/8 FMAs in order from 0), for nr rows and nk keys: each
 * key's 8 elements loaded and widened once for all the rows. */
INLINE void
dots(int nr, int nk, __m256 (*s)[8], const float *const *q,
    const void *const *k, int hd, enum wtype t)
{
	__m256 kj;
	int i, j, c;

#pragma GCC unroll 8
	for (i = 0; i < nr; i++)
#pragma GCC unroll 8
		for (j = 0; j < nk; j++)
			s[i][j] = _mm256_setzero_ps();
	for (c = 0; c < hd; c += 8)
#pragma GCC unroll 8
		for (j = 0; j < nk; j++) {
			kj = kvload(k[j], NULL, c, t);
#pragma GCC unroll 8
			for (i = 0; i < nr; i++)
				s[i][j] = _mm256_fmadd_ps(_mm256_loadu_ps(q[i] + c),
				    kj, s[i][j]);
		}
}

/* The first two steps of the tree of 4 partial dot products a, b, c,
 * d: lanes 0-1 then a's (l0 + l4) + (l2 + l6) and (l1 + l5) + (l3 + l7),
 * lanes 2-3 c's, lanes 4-5 b's, lanes 6-7 d's. */
INLINE __m256
quad(__m256 a, __m256 b, __m256 c, __m256 d)
{
	return F1(F4(a, b, 0x20, 0x31), F4(c, d, 0x20, 0x31), 0x44, 0xee);
}

/* The scores of nr query rows q[i] against the 8 keys kp[0..8): out[i]
 * lane j is q[i] . key j, summed as kern_avx2_int.h's hsum sums one
 * accumulator ((l0 + l4) + (l2 + l6)) + ((l1 + l5) + (l3 + l7)), the
 * order of every score (prefill, decode) whatever the row count.  The
 * keys go in two groups of 4, {0, 4, 1, 5} and {2, 6, 3, 7}, whose
 * quads the last step interleaves into key order; with GQA each key
 * row serves the nr query heads over it (one row: both groups at
 * once, 8 FMA chains in flight). */
INLINE void
scores(int nr, __m256 *out, const float *const *q, const void *const *kp,
    int hd, enum wtype t)
{
	const void *ka[8] = { kp[0], kp[4], kp[1], kp[5],
		kp[2], kp[6], kp[3], kp[7] };
	__m256 s[NR][8], e[NR];
	int i;

	if (nr == 1) {
		dots(1, 8, s, q, ka, hd, t);
		out[0] = F1(quad(s[0][0], s[0][1], s[0][2], s[0][3]),
		    quad(s[0][4], s[0][5], s[0][6], s[0][7]), 0x88, 0xdd);
		return;
	}
	dots(nr, 4, s, q, ka, hd, t);
#pragma GCC unroll 8
	for (i = 0; i < nr; i++)
		e[i] = quad(s[i][0], s[i][1], s[i][2], s[i][3]);
	dots(nr, 4, s, q, ka + 4, hd, t);
#pragma GCC unroll 8
	for (i = 0; i < nr; i++)
		out[i] = F1(e[i], quad(s[i][0], s[i][1], s[i][2], s[i][3]),
		    0x88, 0xdd);
}

INLINE float
hmax(__m256 v)
{
	__m128 x = _mm_max_ps(_mm256_castps256_ps128(v),
	    _mm256_extractf128_ps(v, 1));

	x = _mm_max_ps(x, _mm_movehl_ps(x, x));
	x = _mm_max_ss(x, _mm_shuffle_ps(x, x, 1));
	return _mm_cvtss_f32(x);
}

/* Lanes jr <= 8h + i < jn of a block's half h: all ones, else 0. */
INLINE __m256
lanes(int jr, int jn, int h)
{
	__m256i idx = _mm256_add_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6,
	    7), _mm256_set1_epi32(8 * h));

	return _mm256_castsi256_ps(_mm256_and_si256(_mm256_cmpgt_epi32(idx,
	    _mm256_set1_epi32(jr - 1)), _mm256_cmpgt_epi32(_mm256_set1_epi32(jn),
	    idx)));
}

/* 8 dot products made scores: times scale, soft-capped where cap is
 * set (attn_softcap). */
INLINE __m256
scaled(__m256 x, float scale, float cap)
{
	float c8[8];

	x = _mm256_mul_ps(x, _mm256_set1_ps(scale));
	if (cap) {
		_mm256_storeu_ps(c8, x);
		attn_softcap(c8, 8, cap);
		x = _mm256_loadu_ps(c8);
	}
	return x;
}

/* A row's running max m raised to bm where that is more: the factor
 * of what it summed before (0 for nothing before, 1 where m stays). */
INLINE float
newmax(float *m, float bm)
{
	float alpha = 1;

	if (bm > *m) {
		alpha = *m == -INFINITY ? 0 : expf(*m - bm);
		*m = bm;
	}
	return alpha;
}

/* A query row over a Q8_0 cache, quantized as the keys are (attn_kvstore:
 * attn.h's arithmetic) in qb, with its bytes' magnitudes and its blocks'
 * scales, for q8t. */
struct q8q {
	unsigned char qb[Q8HD / 32 * 34];	/* the row, Q8_0 blocks */
	unsigned char qa[Q8HD];		/* |q| of each int8 */
	float d[Q8HD / 32];
	int32_t corr[Q8HD / 32];	/* 128 * the sum of a block's int8
					 * (q8tv's keys are made unsigned) */
};

/* attn_kvstore's Q8_0 block of the n <= 32 floats at x (zeros after
 * them) into b, with its bits: attn_avx512.c's q8quant in 8 lanes (the
 * same max, d = amax / 127 and 1 / d, x * id rounded half away from
 * zero by a truncation and a step, clamped to +-127; a non-finite
 * value making the scale NaN).  A libm roundf an element cost decode's
 * tile as much as its scores. */
INLINE void
q8quant(unsigned char *b, const float *x, int n)
{
	static const int order[8] = { 0, 4, 1, 5, 2, 6, 3, 7 };
	const __m256 sgn = _mm256_set1_ps(-0.0f);
	const __m256i inf = _mm256_set1_epi32(0x7f800000);
	__m256 y[4], t, amx = _mm256_setzero_ps();
	__m256i e, bad = _mm256_setzero_si256(), q[4];
	float v[32] = { 0 }, amax, d, id;
	uint16_t h;
	int k;

	memcpy(v, x, (size_t)n * sizeof(float));
	for (k = 0; k < 4; k++) {
		y[k] = _mm256_loadu_ps(v + 8 * k);
		e = _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_castps_si256(y[k]),
		    inf), inf);		/* NaN or inf */
		bad = _mm256_or_si256(bad, e);
		y[k] = _mm256_andnot_ps(_mm256_castsi256_ps(e), y[k]);
		amx = _mm256_max_ps(amx, _mm256_andnot_ps(sgn, y[k]));
	}
	amax = hmax(amx);
	d = amax / 127;
	id = d ? 1.0f / d : 0.0f;
	h = !_mm256_testz_si256(bad, bad) ? 0x7e00 :
	    (uint16_t)_cvtss_sh(d, _MM_FROUND_TO_NEAREST_INT);
	memcpy(b, &h, sizeof(h));
	for (k = 0; k < 4; k++) {
		y[k] = _mm256_mul_ps(y[k], _mm256_set1_ps(id));
		t = _mm256_round_ps(y[k], _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
		t = _mm256_add_ps(t, _mm256_and_ps(_mm256_cmp_ps(_mm256_andnot_ps(sgn,
		    _mm256_sub_ps(y[k], t)), _mm256_set1_ps(0.5f), _CMP_GE_OQ),
		    _mm256_or_ps(_mm256_set1_ps(1.0f), _mm256_and_ps(y[k], sgn))));
		q[k] = _mm256_min_epi32(_mm256_set1_epi32(127), _mm256_max_epi32(
		    _mm256_set1_epi32(-127), _mm256_cvttps_epi32(t)));
	}
	/* the packs interleave the vectors' 4-element halves: put back */
	_mm256_storeu_si256((__m256i *)(b + 2), _mm256_permutevar8x32_epi32(
	    _mm256_packs_epi16(_mm256_packs_epi32(q[0], q[1]),
	    _mm256_packs_epi32(q[2], q[3])), _mm256_loadu_si256(
	    (const __m256i *)order)));
}

/* Query row q (hd floats) into r. */
INLINE void
q8prep(struct q8q *r, const float *q, int hd)
{
	__m256i x;
	uint16_t d;
	int b;

	for (b = 0; b < (hd + 31) / 32; b++) {
		q8quant(r->qb + 34 * b, q + 32 * b, hd - 32 * b < 32 ?
		    hd - 32 * b : 32);
		memcpy(&d, r->qb + 34 * b, sizeof(d));
		r->d[b] = _cvtsh_ss(d);
		x = _mm256_loadu_si256((const __m256i *)(r->qb + 34 * b + 2));
		_mm256_storeu_si256((__m256i *)(r->qa + 32 * b), _mm256_abs_epi8(x));
		/* the bytes' sum: vpmaddubsw of ones (unsigned) and them */
		x = _mm256_madd_epi16(_mm256_maddubs_epi16(_mm256_set1_epi8(1), x),
		    _mm256_set1_epi16(1));
		r->corr[b] = 128 * hsumi(x);
	}
}

/* Block b's 32 int8 of the 8 keys kp[0..8) (rows of a Q8_0 group)
 * transposed into k: lane j of k[g] is key j's int8 of columns
 * 4g..4g+3; their scales, from dg (the 8 keys' first block's,
 * attn_q8gd's order), into dk. */
INLINE void
q8keys(__m256i *k, __m256 *dk, const void *const *kp, const uint16_t *dg,
    int b)
{
	__m256i x[8];
	int j;

#pragma GCC unroll 8
	for (j = 0; j < 8; j++)
		x[j] = _mm256_loadu_si256((const __m256i *)((const char *)kp[j] +
		    32 * b));
	*dk = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(dg +
	    ATTN_Q8G * b)));
	tr8x8(k, x);
}

/* Score s of a row plus a block's integer sum times its scales, the
 * order of attn_q8gscore (a product rounded, then the sum: no FMA). */
INLINE __m256
q8add(__m256 s, __m256i isum, float dq, __m256 dk)
{
	return _mm256_add_ps(s, _mm256_mul_ps(_mm256_cvtepi32_ps(isum),
	    _mm256_mul_ps(_mm256_set1_ps(dq), dk)));
}

/* The scores of nr rows qr[i] against the 8 keys kp[0..8) of a Q8_0
 * cache: out[i] lane j, attn_q8gscore's bits.  A block's 8 keys are
 * transposed in registers (q8keys), so that a vpmaddubsw of a row's 4
 * bytes broadcast is 4 columns of all 8 keys, the key's sign set by
 * the query's, pairs of at most 2 * 127 * 127 (attn_kvstore's int8 are
 * within +-127): no horizontal sum a key, and the transposition serves
 * every row. */
INLINE void
q8t_n(int nr, __m256 *out, const struct q8q *qr, const void *const *kp,
    const uint16_t *dg, int hd)
{
	__m256i k[8], acc, ones = _mm256_set1_epi16(1);
	int32_t w;
	__m256 dk, o[NR];	/* out's rows in registers (out may alias) */
	int b, i, g;

#pragma GCC unroll 4
	for (i = 0; i < nr; i++)
		o[i] = _mm256_setzero_ps();
	for (b = 0; b < (hd + 31) / 32; b++) {
		q8keys(k, &dk, kp, dg, b);
#pragma GCC unroll 4
		for (i = 0; i < nr; i++) {
			acc = _mm256_setzero_si256();
#pragma GCC unroll 8
			for (g = 0; g < 8; g++) {
				__m256i qs, qa;

				memcpy(&w, qr[i].qb + 34 * b + 2 + 4 * g, sizeof(w));
				qs = _mm256_set1_epi32(w);
				memcpy(&w, qr[i].qa + 32 * b + 4 * g, sizeof(w));
				qa = _mm256_set1_epi32(w);
				acc = _mm256_add_epi32(acc, _mm256_madd_epi16(
				    _mm256_maddubs_epi16(qa, _mm256_sign_epi8(k[g],
				    qs)), ones));
			}
			o[i] = q8add(o[i], acc, qr[i].d[b], dk);
		}
	}
#pragma GCC unroll 4
	for (i = 0; i < nr; i++)
		out[i] = o[i];
}

/* q8t_n with its row count a constant, and head size 64 unrolled.  Not
 * inlined, as q8tv: in part_t the vectors its caller keeps live across
 * the key blocks sent the integer sums to the stack. */
__attribute__((noinline)) static void
q8t(int nr, __m256 *out, const struct q8q *qr, const void *const *kp,
    const uint16_t *dg, int hd)
{
	if (hd == 64)
		switch (nr) {
		case 3: q8t_n(3, out, qr, kp, dg, 64); break;
		case 2: q8t_n(2, out, qr, kp, dg, 64); break;
		default: q8t_n(1, out, qr, kp, dg, 64); break;
		}
	else
		switch (nr) {
		case 3: q8t_n(3, out, qr, kp, dg, hd); break;
		case 2: q8t_n(2, out, qr, kp, dg, hd); break;
		default: q8t_n(1, out, qr, kp, dg, hd); break;
		}
}

/* q8t with AVX-VNNI: the transposed keys made unsigned (plus 128), a
 * row's 4 bytes broadcast are vpdpbusd's signed operand, one
 * instruction for 4 columns of the 8 keys, and 128 times the row's
 * block sum taken off once a block (corr).  The same integer sums. */
__attribute__((target("avxvnni"))) INLINE void
q8tv_n(int nr, __m256 *out, const struct q8q *qr, const void *const *kp,
    const uint16_t *dg, int hd)
{
	__m256i k[8], acc[4];
	int32_t w;
	__m256 dk;
	int b, i, g;

#pragma GCC unroll 4
	for (i = 0; i < nr; i++)
		out[i] = _mm256_setzero_ps();
	for (b = 0; b < (hd + 31) / 32; b++) {
		q8keys(k, &dk, kp, dg, b);
#pragma GCC unroll 8
		for (g = 0; g < 8; g++)
			k[g] = _mm256_xor_si256(k[g], _mm256_set1_epi8((char)0x80));
#pragma GCC unroll 4
		for (i = 0; i < nr; i++)
			acc[i] = _mm256_set1_epi32(-qr[i].corr[b]);
#pragma GCC unroll 8
		for (g = 0; g < 8; g++)
#pragma GCC unroll 4
			for (i = 0; i < nr; i++) {
				memcpy(&w, qr[i].qb + 34 * b + 2 + 4 * g, sizeof(w));
				acc[i] = _mm256_dpbusd_avx_epi32(acc[i], k[g],
				    _mm256_set1_epi32(w));
			}
#pragma GCC unroll 4
		for (i = 0; i < nr; i++)
			out[i] = q8add(out[i], acc[i], qr[i].d[b], dk);
	}
}

/* q8tv_n with its row count a constant. */
__attribute__((target("avxvnni"), noinline)) static void
q8tv(int nr, __m256 *out, const struct q8q *qr, const void *const *kp,
    const uint16_t *dg, int hd)
{
	switch (nr) {
	case 3: q8tv_n(3, out, qr, kp, dg, hd); break;
	case 2: q8tv_n(2, out, qr, kp, dg, hd); break;
	default: q8tv_n(1, out, qr, kp, dg, hd); break;
	}
}

/* acc rows (nr of them) = acc * alpha + sum_j P[j] v_j over keys
 * j0 <= j < j1 of the block, for the G chunks of 8 floats from column
 * c: each (row, chunk) one accumulator fed the keys in order, nr * G
 * chains of FMAs in flight (one row's chain per chunk alone waits on
 * the FMA latency at every key).  A key's G value vectors are held in
 * registers across the rows (nr * G + G + 1 of the 16), or with hold_p
 * its nr probabilities across the chunks (nr * G + nr + 1: 4 chunks a
 * pass for 3 rows where the values fit 3): the same FMAs in the same
 * order either way.  Row i's probabilities from P + i * ldp; over a
 * Q8_0 cache with vg NULL, each key's scale folded into them (part1). */
INLINE void
pv(int nr, int G, int hold_p, float *const *acc, const float *alpha,
    const float *P, int ldp, const void *const *vp, const uint16_t *vg,
    int j0, int j1, int c, enum wtype t)
{
	__m256 o[8][8], vj[8], pj[8];
	int i, j, g;

#pragma GCC unroll 8
	for (i = 0; i < nr; i++)
#pragma GCC unroll 8
		for (g = 0; g < G; g++)
			o[i][g] = _mm256_mul_ps(_mm256_loadu_ps(acc[i] + c + 8 * g),
			    _mm256_set1_ps(alpha[i]));
	for (j = j0; j < j1; j++) {
		if (hold_p) {
#pragma GCC unroll 8
			for (i = 0; i < nr; i++)
				pj[i] = _mm256_set1_ps(P[i * ldp + j]);
#pragma GCC unroll 8
			for (g = 0; g < G; g++) {
				vj[0] = kvload(vp[j], t == W_GQ8_0 && vg ? vg +
				    j : NULL, c + 8 * g, t);
#pragma GCC unroll 8
				for (i = 0; i < nr; i++)
					o[i][g] = _mm256_fmadd_ps(pj[i], vj[0],
					    o[i][g]);
			}
			continue;
		}
#pragma GCC unroll 8
		for (g = 0; g < G; g++)
			vj[g] = kvload(vp[j], t == W_GQ8_0 && vg ? vg + j :
			    NULL, c + 8 * g, t);
#pragma GCC unroll 8
		for (i = 0; i < nr; i++) {
			pj[0] = _mm256_set1_ps(P[i * ldp + j]);
#pragma GCC unroll 8
			for (g = 0; g < G; g++)
				o[i][g] = _mm256_fmadd_ps(pj[0], vj[g], o[i][g]);
		}
	}
#pragma GCC unroll 8
	for (i = 0; i < nr; i++)
#pragma GCC unroll 8
		for (g = 0; g < G; g++)
			_mm256_storeu_ps(acc[i] + c + 8 * g, o[i][g]);
}

/* pv over all hd columns of nr rows, G chunks at a time (the 16
 * registers), the rest one at a time; row i's probabilities from
 * P + i * ldp.  Without step (part_t's), held for 1 and 3 rows.  With
 * step (decode's values, part1; vg NULL), passes of G <= 4 chunks
 * within a 32-column block, the probabilities held where the registers
 * allow (nr * G + nr + 1 of the 16); over a Q8_0 cache block b's
 * probabilities from P + b * SB, each key's scale of the block folded
 * into them and the int8 widened alone (one rounding more than pv's
 * exact d * q; attn.h: as the AVX-512 one-token tile). */
INLINE void
pvrows(int nr, int G, int step, float *const *acc, const float *alpha,
    const float *P, int ldp, const void *const *vp, const uint16_t *vg,
    int j0, int j1, int hd, enum wtype t)
{
	int c, hold_p = step ? nr * G + nr + 1 <= 16 : nr == 1 || nr == 3;
	int fold = step && t == W_GQ8_0;

	for (c = 0; c + 8 * G <= hd; c += 8 * G)
		pv(nr, G, hold_p, acc, alpha, P + (fold ? c / 32 * SB : 0), ldp,
		    vp, vg, j0, j1, c, t);
	for (; c < hd; c += 8)
		pv(nr, 1, 0, acc, alpha, P + (fold ? c / 32 * SB : 0), ldp, vp,
		    vg, j0, j1, c, t);
}

/* pvrows over the R rows of a tile, 8 at a time: P part_t's rows of
 * 16 probabilities, or with step part1's Pd. */
INLINE void
pvall_t(int R, float *const *arow, const float *alpha, const float *P,
    const void *const *vp, const uint16_t *vg, int j0, int j1, int hd,
    enum wtype kt, int step)
{
	float *const *ar;
	const float *al, *pr;
	int r, nr, ldp = step ? Q8HD / 32 * SB : 16;

	for (r = 0; r < R; r += nr) {
		nr = R - r < 8 ? R - r : 8;
		ar = arow + r, al = alpha + r, pr = P + (size_t)r * ldp;
#define PVROWS(n, G) pvrows(n, G, step, ar, al, pr, ldp, vp, vg, j0, j1, hd, kt)
		switch (nr) {	/* constant row counts: registers */
		case 8: PVROWS(8, 1); break;
		case 7: PVROWS(7, 1); break;
		case 6: PVROWS(6, 2); break;
		case 5: PVROWS(5, 2); break;
		case 4: PVROWS(4, 2); break;
		case 3: PVROWS(3, 4); break;
		case 2: PVROWS(2, 4); break;
		default: PVROWS(1, step ? 4 : 8); break;
		}
#undef PVROWS
	}
}

/* pvall_t a cache type, P part_t's or with step part1's Pd (a Q8_0
 * cache's scales folded into it: vg NULL), head size 64 unrolled.  Not
 * inlined: in part_t and part1 the vectors kept live across the key
 * blocks (the masks, the constants, the rows' maxima) sent its
 * accumulators to the stack, each FMA chain through a store and a
 * load. */
__attribute__((noinline)) static void
pvall(int R, float *const *arow, const float *alpha, const float *P,
    const void *const *vp, const uint16_t *vg, int j0, int j1, int hd,
    enum wtype kt, int step)
{
#define PVALL(t, f) (hd == 64 ? pvall_t(R, arow, alpha, P, vp, \
	f ? NULL : vg, j0, j1, 64, t, f) : pvall_t(R, arow, alpha, P, vp, \
	f ? NULL : vg, j0, j1, hd, t, f))
	switch (kt) {
	case W_BF16: step ? PVALL(W_BF16, 1) : PVALL(W_BF16, 0); break;
	case W_F16: step ? PVALL(W_F16, 1) : PVALL(W_F16, 0); break;
	case W_GQ8_0: step ? PVALL(W_GQ8_0, 1) : PVALL(W_GQ8_0, 0); break;
	default: PVALL(W_F32, 0); break;
	}
#undef PVALL
}

/* scores() of a 16-bit cache, its row count and type constants.  Not
 * inlined, as q8t: part1's vectors live across its key blocks would
 * send the dot products to the stack. */
__attribute__((noinline)) static void
fscores(int nr, __m256 *out, const float *const *q, const void *const *kp,
    int hd, enum wtype kt)
{
#define FS(n, t) (hd == 64 ? scores(n, out, q, kp, 64, t) : \
	scores(n, out, q, kp, hd, t))
	if (kt == W_BF16)
		switch (nr) {
		case 3: FS(3, W_BF16); break;
		case 2: FS(2, W_BF16); break;
		default: FS(1, W_BF16); break;
		}
	else
		switch (nr) {
		case 3: FS(3, W_F16); break;
		case 2: FS(2, W_F16); break;
		default: FS(1, W_F16); break;
		}
#undef FS
}

/* Step [jb0, jb0 + nb) (whole key blocks) of the one-token tile over a
 * cache of type kt: its scores into S (scaled, soft-capped, -inf
 * outside [s, e)), the rows' maxima into mx, the rows of its values
 * into vr, and over a Q8_0 cache each key block's value scales (its
 * group's, attn_q8gd) into vg; q the query rows (a 16-bit cache's), qr
 * them quantized (a Q8_0 one's). */
INLINE void
step1(const struct attn_tile *a, int jb0, int nb, int s, int e, int R,
    const float *const *q, const struct q8q *qr, int vnni, int hd,
    enum wtype kt, float (*S)[SB], __m256 *mx, const void **vr,
    const uint16_t **vg)
{
	const void *kp[16];
	const uint16_t *kg = NULL;
	const __m256 ninf = _mm256_set1_ps(-INFINITY);
	__m256 sc[2][R1], x, mk[2];
	int jb, jr, jn, r, nr, h, q8n = attn_kvrow(W_GQ8_0, hd);

	for (jb = jb0; jb < jb0 + nb; jb += 16) {
		attn_prefetch_block(a, jb + 16, e);	/* the next block */
		if (a->ahead)	/* the next tile's share of this block */
			attn_ahead(a, jb);
		jr = s - jb > 0 ? s - jb : 0;
		jn = e - jb < 16 ? e - jb : 16;
		if (jn <= jr) {		/* before a window's first key */
			for (r = 0; r < R; r++)
				for (h = 0; h < 2; h++)
					_mm256_storeu_ps(S[r] + (jb - jb0) + 8 * h,
					    ninf);
			continue;
		}
		attn_rows(a, jb, jr, jn, kp, vr + (jb - jb0));
		if (kt == W_GQ8_0) {
			kg = attn_q8gof(kp[jr], jr, q8n);
			vg[(jb - jb0) / 16] = attn_q8gof(vr[jb - jb0 + jr], jr,
			    q8n);
		}
		for (r = 0; r < R; r += nr) {
			nr = R - r < NR ? R - r : NR;
			for (h = 0; h < 2; h++)
				if (kt != W_GQ8_0)
					fscores(nr, sc[h] + r, q + r, kp + 8 * h,
					    hd, kt);
				else if (vnni)
					q8tv(nr, sc[h] + r, qr + r, kp + 8 * h,
					    kg + 8 * h, hd);
				else
					q8t(nr, sc[h] + r, qr + r, kp + 8 * h,
					    kg + 8 * h, hd);
		}
		for (h = 0; h < 2; h++)
			mk[h] = lanes(jr, jn, h);
		for (r = 0; r < R; r++)
			for (h = 0; h < 2; h++) {
				x = _mm256_blendv_ps(ninf, scaled(sc[h][r],
				    a->scale, a->softcap), mk[h]);
				_mm256_storeu_ps(S[r] + (jb - jb0) + 8 * h, x);
				mx[r] = _mm256_max_ps(mx[r], x);
			}
	}
}

/* Row r's new max m from its step's maximum mx, the factor alpha of
 * what was summed before and l updated; S's scores from key j0 to nb
 * made probabilities (0 outside the range, a NaN score staying NaN),
 * each times its value's scale of block b into pd[b] (dv[b]: the
 * scales, nbk blocks; dv NULL: into pd[0] as they are).  Not inlined:
 * in part1 the rows' maxima held its sum and its max in memory. */
__attribute__((noinline)) static void
step_softmax(const float *S, int j0, int nb, __m256 mx, float *m, float *l,
    float *alpha, const float (*dv)[SB], float (*pd)[SB], int nbk)
{
	const __m256 ninf = _mm256_set1_ps(-INFINITY);
	__m256 mv, ls = _mm256_setzero_ps(), x, p;
	int j, b;

	*alpha = newmax(m, hmax(mx));
	mv = _mm256_set1_ps(*m);
	for (j = j0; j < nb; j += 8) {
		x = _mm256_loadu_ps(S + j);
		p = vexp8(_mm256_sub_ps(x, mv));
		p = _mm256_and_ps(p, _mm256_cmp_ps(x, ninf, _CMP_NEQ_UQ));
		p = _mm256_blendv_ps(p, x, _mm256_cmp_ps(x, x, _CMP_UNORD_Q));
		ls = _mm256_add_ps(ls, p);
		if (!dv)
			_mm256_storeu_ps(pd[0] + j, p);
		else
			for (b = 0; b < nbk; b++)
				_mm256_storeu_ps(pd[b] + j, _mm256_mul_ps(p,
				    _mm256_loadu_ps(dv[b] + j)));
	}
	*l = *l * *alpha + hsum(ls);
}

/* The one-token tile (decode's) over a 16-bit or Q8_0 cache, R <= R1
 * rows, hd % 8 == 0, hd <= Q8HD: the softmax a step of up to SB keys
 * (one max, one rescale of the rows a step, where part_t's are a
 * block's), over a Q8_0 cache each value's scale folded into its
 * probabilities (pvrows). */
INLINE void
part1(float *acc, float *ml, const struct attn_tile *a, enum wtype kt,
    int hd, int vnni)
{
	float S[R1][SB], Pd[R1][Q8HD / 32][SB], dv[Q8HD / 32][SB], m[R1],
	    l[R1], alpha[R1], *arow[R1];
	const float *qrow[R1];
	struct q8q qr[R1];
	const void *vr[SB];
	const uint16_t *vg[SB / 16];
	int R = a->nh, r, c, s = attn_start(a, 0), jb, nb, j0, n, q, b, h;
	int e = a->pos0 + 1 < a->p1 ? a->pos0 + 1 : a->p1, nbk = (hd + 31) / 32;
	__m256 mx[R1];

	for (r = 0; r < R; r++) {
		m[r] = -INFINITY, l[r] = 0;
		arow[r] = acc + r * hd;
		for (c = 0; c < hd; c += 8)
			_mm256_storeu_ps(arow[r] + c, _mm256_setzero_ps());
		qrow[r] = a->q + r * hd;
		if (kt == W_GQ8_0)
			q8prep(&qr[r], qrow[r], hd);
	}
	jb = a->p0 - a->p0 % 16;
	attn_prefetch_block(a, jb, e);
	for (; jb < e; jb += nb) {
		nb = e - jb < SB ? (e - jb + 15) / 16 * 16 : SB;
		for (r = 0; r < R; r++)
			mx[r] = _mm256_set1_ps(-INFINITY);
		step1(a, jb, nb, s, e, R, qrow, qr, vnni, hd, kt, S, mx, vr,
		    vg);
		j0 = s - jb > 0 ? s - jb : 0;
		n = (e - jb < nb ? e - jb : nb) - j0;
		if (n <= 0)	/* before a window's first key */
			continue;
		/* a Q8_0 cache's value scales of the step's groups with
		 * keys, block by block: dv[b][j] key j's of block b */
		if (kt == W_GQ8_0)
			for (q = j0 & ~15; q < j0 + n; q += 16)
				for (b = 0; b < nbk; b++)
					for (h = 0; h < 2; h++)
						_mm256_storeu_ps(dv[b] + q + 8 * h,
						    _mm256_cvtph_ps(_mm_loadu_si128(
						    (const __m128i *)(vg[q / 16] +
						    ATTN_Q8G * b + 8 * h))));
		for (r = 0; r < R; r++)
			step_softmax(S[r], j0 & ~15, nb, mx[r], &m[r], &l[r],
			    &alpha[r], kt == W_GQ8_0 ? (const float (*)[SB])dv :
			    NULL, Pd[r], nbk);
		pvall(R, arow, alpha, Pd[0][0], vr, NULL, j0, j0 + n, hd, kt,
		    1);
	}
	for (r = 0; r < R; r++) {
		ml[2 * r] = m[r];
		ml[2 * r + 1] = l[r];
	}
}

INLINE void
part_t(float *acc, int lda, float *ml, const struct attn_tile *a,
    enum wtype kt, int HD, int vnni)
{
	float P[ATTN_MAXROWS][16], alpha[ATTN_MAXROWS], m[ATTN_MAXROWS],
	    l[ATTN_MAXROWS], *arow[ATTN_MAXROWS];
	const float *qrow[ATTN_MAXROWS];
	const void *kp[16], *vp[16];
	int end[ATTN_MAXROWS], start[ATTN_MAXROWS], R = a->nh * a->T, hd = HD ? HD : a->hd;
	int r, t, jb, j0, j1, jn, jr, j, c, nr, pend, h, i, any, allk, pjr = -1, pjn = -1;
	const float scale = a->scale, cap = a->softcap;
	__m256 S[2][ATTN_MAXROWS], s[2], p[2], mk[2],
	    ninf = _mm256_set1_ps(-INFINITY);

	struct q8q qr[ATTN_MAXROWS];	/* q8_0: the rows quantized (attn.h) */
	const uint16_t *kg = NULL, *vg = NULL;	/* q8_0: a block's groups */
	int q8n = attn_kvrow(kt, hd);	/* q8_0: a row's int8 */

	if (hd % 8 || R > ATTN_MAXROWS || R < 1 || (kt == W_GQ8_0 &&
	    hd > Q8HD)) {
		attn_portable.part(acc, lda, ml, a);
		return;
	}
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
		for (c = 0; c < hd; c += 8)
			_mm256_storeu_ps(arow[r] + c, _mm256_setzero_ps());
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
			for (h = 0; h < 2 && kt == W_GQ8_0 && vnni; h++)
				q8tv(nr, S[h] + r, qr + r, kp + 8 * h, kg + 8 * h,
				    hd);
			for (h = 0; h < 2 && kt == W_GQ8_0 && !vnni; h++)
				q8t(nr, S[h] + r, qr + r, kp + 8 * h, kg + 8 * h,
				    hd);
			for (h = 0; h < 2 && kt != W_GQ8_0; h++)
				switch (nr) {
				case 3: scores(3, S[h] + r, qrow + r, kp + 8 * h, hd, kt); break;
				case 2: scores(2, S[h] + r, qrow + r, kp + 8 * h, hd, kt); break;
				default: scores(1, S[h] + r, qrow + r, kp + 8 * h, hd, kt); break;
				}
		}
		for (r = 0; r < R; r++) {
			/* the row's keys: jr <= j < jn (a window starts
			 * it late) */
			jn = end[r] - jb < 16 ? end[r] - jb : 16;
			jr = start[r] - jb > j0 ? start[r] - jb : j0;
			if (jn <= jr) {		/* no key of this row here */
				alpha[r] = 1;
				for (j = 0; j < 16; j++)
					P[r][j] = 0;
				continue;
			}
			/* lanes jr <= 8h + i < jn are valid (the rows of a
			 * token share them) */
			for (h = 0; h < 2 && (jr != pjr || jn != pjn); h++)
				mk[h] = lanes(jr, jn, h);
			pjr = jr, pjn = jn;
			for (h = 0; h < 2; h++)
				s[h] = scaled(S[h][r], scale, cap);
			alpha[r] = newmax(&m[r], hmax(_mm256_max_ps(
			    _mm256_blendv_ps(ninf, s[0], mk[0]),
			    _mm256_blendv_ps(ninf, s[1], mk[1]))));
			for (h = 0; h < 2; h++) {
				p[h] = vexp8(_mm256_sub_ps(s[h], _mm256_set1_ps(m[r])));
				p[h] = _mm256_and_ps(p[h], mk[h]);
				_mm256_storeu_ps(P[r] + 8 * h, p[h]);
			}
			l[r] = l[r] * alpha[r] + hsum(_mm256_add_ps(p[0], p[1]));
		}
		pvall(R, arow, alpha, P[0], vp, vg, j0, j1, hd, kt, 0);
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
	int h64 = a->hd == 64;

	if (a->kvt != W_F32 && a->T == 1 && a->nh <= R1 && a->hd % 8 == 0 &&
	    a->hd <= Q8HD) {	/* decode's */
		if (a->kvt == W_BF16)
			h64 ? part1(acc, ml, a, W_BF16, 64, 0) :
			    part1(acc, ml, a, W_BF16, a->hd, 0);
		else if (a->kvt == W_F16)
			h64 ? part1(acc, ml, a, W_F16, 64, 0) :
			    part1(acc, ml, a, W_F16, a->hd, 0);
		else
			h64 ? part1(acc, ml, a, W_GQ8_0, 64, kern_avxvnni) :
			    part1(acc, ml, a, W_GQ8_0, a->hd, kern_avxvnni);
	} else if (a->kvt == W_BF16)
		h64 ? part_t(acc, lda, ml, a, W_BF16, 64, 0) :
		    part_t(acc, lda, ml, a, W_BF16, 0, 0);
	else if (a->kvt == W_F16)
		h64 ? part_t(acc, lda, ml, a, W_F16, 64, 0) :
		    part_t(acc, lda, ml, a, W_F16, 0, 0);
	else if (a->kvt == W_GQ8_0)
		/* the scores by vpdpbusd where the CPU has it (the same
		 * bits) */
		h64 ? part_t(acc, lda, ml, a, W_GQ8_0, 64, kern_avxvnni) :
		    part_t(acc, lda, ml, a, W_GQ8_0, 0, kern_avxvnni);
	else
		h64 ? part_t(acc, lda, ml, a, W_F32, 64, 0) :
		    part_t(acc, lda, ml, a, W_F32, 0, 0);
}

const struct attn_kern attn_avx2 = { "avx2", part };

#endif
