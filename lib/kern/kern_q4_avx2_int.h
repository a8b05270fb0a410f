/* kern_q4_avx2_int.h: the W_Q4 row and token steps of the AVX2 table's
 * integer path (kern_q4_avx2.c says how), included by kern_q4_avx2.c
 * and by kern_q4_vnni_avx2.c, which sets Q4_VNNI first: there
 * --int8-act's one digit takes AVX-VNNI's vpdpbusd, each lane's four
 * products summed from its nsx as one integer (the pairs of vpmaddubsw
 * never saturate: the same integers, the same bits). */
#ifndef KERN_Q4_AVX2_INT_H
#define KERN_Q4_AVX2_INT_H

#include <immintrin.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kern/kern.h"
#include "kern/kern_avx2_int.h"

#ifndef Q4_VNNI
#define Q4_VNNI 0
#endif

/* How a row's scales map to words: one per row, one per half (groups
 * of 64k), groups of 32 (two per half), any multiple of 8 (word by
 * word, the slow path). */
enum { GM_ROW, GM_WIDE, GM_32, GM_ANY };

/* A symmetric matrix's z nsx (z = 8) in place of nsx, once per token
 * rather than once per row. */
static void
zsym(struct kern_q4x *xc, int n)
{
	int c, i;

	for (c = 0; c < KERN_Q4_NC(n); c++)
		for (i = 0; i < 16; i += 8)
			_mm256_store_si256((__m256i *)(xc[c].nsx + i),
			    _mm256_slli_epi32(_mm256_load_si256((const __m256i *)
			    (xc[c].nsx + i)), 3));
}

/* ---- one row against one token ---- */

INLINE float
scale1(enum wtype st, const void *s, size_t i)
{
	uint16_t h;
	uint32_t u;
	float f;

	switch (st) {
	case W_F16:
		memcpy(&h, (const uint16_t *)s + i, sizeof h);
		return _cvtsh_ss(h);
	case W_BF16:
		memcpy(&h, (const uint16_t *)s + i, sizeof h);
		u = (uint32_t)h << 16;
		memcpy(&f, &u, sizeof f);
		return f;
	default:
		memcpy(&f, (const float *)s + i, sizeof f);
		return f;
	}
}

/* What a half of row r needs from the row, words W0 .. W0 + 7: the
 * nibbles, the scales and zero points word by word. */
struct half {
	__m256i lo, hi;	/* the low and high nibbles of the words' bytes */
	__m256 s;	/* the words' scales (0 past the row) */
	__m256i z;	/* their zero points (asymmetric only) */
};

/* A row's words, scales and zero points (the row's share of them). */
struct rowp {
	const uint32_t *q;
	const void *s;		/* the row's first scale */
	const uint32_t *z;	/* its 8 rows' first zero points, or NULL */
	__m128i zs;		/* the shift of its zero points: 4 (r % 8) */
};

INLINE void
rowp(struct rowp *p, const struct kern_q4 *m, int r)
{
	p->q = m->q + (size_t)r * m->wpr;
	p->s = (const char *)m->s + (size_t)r * wtype_rowsize(m->st, m->ng);
	p->z = m->z ? m->z + (size_t)(r / 8) * m->ng : NULL;
	p->zs = _mm_cvtsi32_si128(4 * (r % 8));
}

/* The group of each half of a row (GM_WIDE), once per call: no division
 * in the loops. */
static void
gtab(uint16_t *gt, const struct kern_q4 *m)
{
	int h;

	for (h = 0; h < (m->wpr + 7) / 8; h++)
		gt[h] = (uint16_t)(m->ng == 1 ? 0 : h * 64 / m->group);
}

/* The scales and zero points of words W0 .. W0 + nw - 1, word by word,
 * 0 beyond. */
static void
szany(struct half *hf, const struct kern_q4 *m, const struct rowp *rp, int W0,
    int nw)
{
	float s[8] = { 0 };
	int32_t z[8] = { 0 }, i, g;

	for (i = 0; i < nw; i++) {
		g = m->ng == 1 ? 0 : (W0 + i) * 8 / m->group;
		s[i] = scale1(m->st, rp->s, (size_t)g);
		if (rp->z)
			z[i] = (int32_t)(rp->z[g] >> _mm_cvtsi128_si32(rp->zs) & 15);
	}
	hf->s = _mm256_loadu_ps(s);
	hf->z = _mm256_loadu_si256((const __m256i *)z);
}

/* The half at words W0 .. W0 + 7, all in the row. */
INLINE void
hload(struct half *hf, int gm, enum wtype st, int asym,
    const struct kern_q4 *m, const struct rowp *rp, const uint16_t *gt,
    int W0)
{
	const __m256i nib = _mm256_set1_epi8(15);
	const __m256i dup = _mm256_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1);
	__m256i u = _mm256_loadu_si256((const __m256i *)(rp->q + W0)), v;
	int g;

	hf->z = _mm256_setzero_si256();	/* symmetric: unread */

	hf->lo = _mm256_and_si256(u, nib);
	hf->hi = _mm256_and_si256(_mm256_srli_epi16(u, 4), nib);
	switch (gm) {
	case GM_ROW:
	case GM_WIDE:
		g = gm == GM_ROW ? 0 : gt[W0 / 8];
		hf->s = _mm256_set1_ps(scale1(st, rp->s, (size_t)g));
		if (asym)
			hf->z = _mm256_set1_epi32((int)(_mm_cvtsi128_si32(
			    _mm_srl_epi32(_mm_cvtsi32_si128((int)rp->z[g]),
			    rp->zs)) & 15));
		break;
	case GM_32:
		/* groups W0 / 4 and W0 / 4 + 1, four words each */
		g = W0 / 4;
		if (st == W_BF16) {
			uint32_t b;

			memcpy(&b, (const uint16_t *)rp->s + g, sizeof b);
			hf->s = _mm256_castsi256_ps(_mm256_shuffle_epi8(
			    _mm256_set1_epi32((int)b), _mm256_setr_epi8(
			    -1, -1, 0, 1, -1, -1, 0, 1, -1, -1, 0, 1, -1, -1, 0, 1,
			    -1, -1, 2, 3, -1, -1, 2, 3, -1, -1, 2, 3, -1, -1, 2, 3)));
		} else if (st == W_F16) {
			uint32_t b;

			memcpy(&b, (const uint16_t *)rp->s + g, sizeof b);
			hf->s = _mm256_cvtph_ps(_mm_shuffle_epi8(_mm_set1_epi32(
			    (int)b), _mm_setr_epi8(0, 1, 0, 1, 0, 1, 0, 1, 2, 3, 2,
			    3, 2, 3, 2, 3)));
		} else {
			hf->s = _mm256_permutevar8x32_ps(_mm256_castps128_ps256(
			    _mm_castsi128_ps(_mm_loadl_epi64((const __m128i *)
			    ((const float *)rp->s + g)))), dup);
		}
		if (asym) {
			v = _mm256_castsi128_si256(_mm_loadl_epi64((const __m128i *)
			    (rp->z + g)));
			hf->z = _mm256_and_si256(_mm256_srl_epi32(
			    _mm256_permutevar8x32_epi32(v, dup), rp->zs),
			    _mm256_set1_epi32(15));
		}
		break;
	default:
		szany(hf, m, rp, W0, 8);
		break;
	}
}

/* The half at words W0 .. W0 + nw - 1, nw < 8, the row's end: masked. */
static void
hpart(struct half *hf, const struct kern_q4 *m, const struct rowp *rp, int W0,
    int nw)
{
	const __m256i nib = _mm256_set1_epi8(15);
	__m256i u = _mm256_maskload_epi32((const int *)(rp->q + W0),
	    _mm256_cmpgt_epi32(_mm256_set1_epi32(nw),
	    _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7)));

	hf->lo = _mm256_and_si256(u, nib);
	hf->hi = _mm256_and_si256(_mm256_srli_epi16(u, 4), nib);
	szany(hf, m, rp, W0, nw);
}

/* acc + (float)L * (scale * 2^-k) for the half hf against half h of
 * the chunk xc (kern.h's L, word by word); symmetric, xc's nsx are
 * z nsx already (zsym).  --int8-act (nd 1) takes 8 nsx for every
 * matrix, so that one preparation serves symmetric and asymmetric rows
 * alike (kern.xprep): z nsx = (z 8 nsx) >> 3, exact. */
INLINE __m256
hdot(int nd, __m256 acc, const struct half *hf, int asym,
    const struct kern_q4x *xc, int h)
{
	const __m256i one = _mm256_set1_epi16(1), k256 = _mm256_set1_epi16(256);
	__m256i p0, p1, p2, L, nsx;

#define D(c, p) _mm256_load_si256((const __m256i *)(xc->d[c][p] + 32 * h))
	if (nd == 1) {	/* --int8-act: digit c alone */
		nsx = _mm256_load_si256((const __m256i *)xc->nsx + h);
		nsx = asym ? _mm256_srai_epi32(_mm256_mullo_epi32(hf->z, nsx),
		    3) : nsx;
#if Q4_VNNI
		L = _mm256_dpbusd_avx_epi32(_mm256_dpbusd_avx_epi32(nsx,
		    hf->lo, D(0, 0)), hf->hi, D(0, 1));
#else
		p0 = _mm256_add_epi16(_mm256_maddubs_epi16(hf->lo, D(0, 0)),
		    _mm256_maddubs_epi16(hf->hi, D(0, 1)));
		L = _mm256_add_epi32(_mm256_madd_epi16(p0, one), nsx);
#endif
		return _mm256_fmadd_ps(_mm256_cvtepi32_ps(L), _mm256_mul_ps(
		    hf->s, _mm256_load_ps(xc->ef + 8 * h)), acc);
	}
	p0 = _mm256_add_epi16(_mm256_maddubs_epi16(hf->lo, D(0, 0)),
	    _mm256_maddubs_epi16(hf->hi, D(0, 1)));
	p1 = _mm256_add_epi16(_mm256_maddubs_epi16(hf->lo, D(1, 0)),
	    _mm256_maddubs_epi16(hf->hi, D(1, 1)));
	p2 = _mm256_add_epi16(_mm256_maddubs_epi16(hf->lo, D(2, 0)),
	    _mm256_maddubs_epi16(hf->hi, D(2, 1)));
#undef D
	L = _mm256_slli_epi32(_mm256_add_epi32(_mm256_madd_epi16(p2, k256),
	    _mm256_madd_epi16(p1, one)), 8);
	L = _mm256_add_epi32(L, _mm256_madd_epi16(p0, one));
	nsx = _mm256_load_si256((const __m256i *)xc->nsx + h);
	L = _mm256_add_epi32(L, asym ? _mm256_mullo_epi32(hf->z, nsx) : nsx);
	return _mm256_fmadd_ps(_mm256_cvtepi32_ps(L), _mm256_mul_ps(hf->s,
	    _mm256_load_ps(xc->ef + 8 * h)), acc);
}

static int
gmode(const struct kern_q4 *m)
{
	if (m->ng == 1)
		return GM_ROW;
	if (m->group % 64 == 0)
		return GM_WIDE;
	return m->group == 32 ? GM_32 : GM_ANY;
}


/* Row r against TT tokens (chunks xs[j], output o[j][r]), each half of
 * the row loaded once for all of them; per row and token the steps of
 * vblock, so each token's bits are its matvec's: --int8-act's prefill
 * (nd 1) and W_Q4's decode rows of a batch (nd 3, matvecs). */
#define QT 3	/* tokens a pass */
INLINE void
tblock(int nd, int TT, int gm, enum wtype st, int asym, const struct kern_q4 *m,
    const uint16_t *gt, const struct kern_q4x *const *xs, float *const *o,
    int r)
{
	__m256 a0[QT], a1[QT];
	struct rowp rp;
	struct half h0, h1;
	int j, c, W, wpr = m->wpr;

	rowp(&rp, m, r);
	UNROLL
	for (j = 0; j < TT; j++)
		a0[j] = a1[j] = _mm256_setzero_ps();
	for (c = 0, W = 0; W + 16 <= wpr; c++, W += 16) {
		/* a half for all tokens, then the other: one half's
		 * registers live, not two (bench/NOTES.md) */
		hload(&h0, gm, st, asym, m, &rp, gt, W);
		UNROLL
		for (j = 0; j < TT; j++)
			a0[j] = hdot(nd, a0[j], &h0, asym, xs[j] + c, 0);
		hload(&h1, gm, st, asym, m, &rp, gt, W + 8);
		UNROLL
		for (j = 0; j < TT; j++)
			a1[j] = hdot(nd, a1[j], &h1, asym, xs[j] + c, 1);
	}
	if (W + 8 <= wpr) {
		hload(&h0, gm, st, asym, m, &rp, gt, W);
		UNROLL
		for (j = 0; j < TT; j++)
			a0[j] = hdot(nd, a0[j], &h0, asym, xs[j] + c, 0);
		W += 8;
	}
	if (W < wpr) {
		hpart(&h0, m, &rp, W, wpr - W);
		for (j = 0; j < TT; j++)
			if (W % 16)
				a1[j] = hdot(nd, a1[j], &h0, asym, xs[j] + c, 1);
			else
				a0[j] = hdot(nd, a0[j], &h0, asym, xs[j] + c, 0);
	}
	UNROLL
	for (j = 0; j < TT; j++)
		o[j][r] = hsum(_mm256_add_ps(a0[j], a1[j]));
}

/* Rows [r0, r1) against the nt tokens xs (outputs o). */
INLINE void
trows(int nd, int gm, enum wtype st, int asym, const struct kern_q4 *m,
    const struct kern_q4x *const *xs, float *const *o, int nt, int r0,
    int r1)
{
	uint16_t gt[KERN_Q4_MAXN / 64];
	int r, j, p0, p1, P = KERN_Q4_TPANEL / (m->wpr * 4);

	if (gm == GM_WIDE)
		gtab(gt, m);
	P = P < 1 ? 1 : P;
	for (p0 = r0; p0 < r1; p0 = p1) {
		p1 = r1 - p0 > P ? p0 + P : r1;
		for (j = 0; j + QT <= nt; j += QT)
			for (r = p0; r < p1; r++)
				tblock(nd, QT, gm, st, asym, m, gt, xs + j,
				    o + j, r);
		for (r = p0; r < p1; r++)
			if (nt - j == 2)
				tblock(nd, 2, gm, st, asym, m, gt, xs + j,
				    o + j, r);
			else if (nt - j == 1)
				tblock(nd, 1, gm, st, asym, m, gt, xs + j,
				    o + j, r);
	}
}

INLINE void
tdispatch(int nd, const struct kern_q4 *m, const struct kern_q4x *const *xs,
    float *const *o, int nt, int r0, int r1)
{
	int gm = gmode(m), a = m->z != NULL;

	if (gm == GM_32 && m->st == W_BF16 && !a)	/* --quant q4's */
		trows(nd, GM_32, W_BF16, 0, m, xs, o, nt, r0, r1);
	else if (gm == GM_32 && m->st == W_BF16)
		trows(nd, GM_32, W_BF16, 1, m, xs, o, nt, r0, r1);
	else if (gm == GM_32)
		trows(nd, GM_32, m->st, a, m, xs, o, nt, r0, r1);
	else if (gm == GM_WIDE && !a)
		trows(nd, GM_WIDE, m->st, 0, m, xs, o, nt, r0, r1);
	else if (gm == GM_WIDE)
		trows(nd, GM_WIDE, m->st, 1, m, xs, o, nt, r0, r1);
	else if (gm == GM_ROW)
		trows(nd, GM_ROW, m->st, a, m, xs, o, nt, r0, r1);
	else
		trows(nd, GM_ANY, m->st, a, m, xs, o, nt, r0, r1);
}

#define TB 64	/* tokens prepared at a time */

/* T tokens, each row's words read once for up to TB of them, in blocks
 * of TB prepared once (on the heap: a pool thread's stack may be
 * small) by prep; a token whose prep fails (a non-finite activation)
 * takes matvec's (mv's) float path, as it would alone. */
static void
many(int nd, float *out, int ldo, const void *w, const float *x, int ldx,
    int n, int T, int r0, int r1,
    int (*prep)(struct kern_q4x *xc, const float *x, int n),
    kern_matvec_fn *mv)
{
	const struct kern_q4 *m = w;
	const struct kern_q4x *xs[TB];
	float *o[TB];
	struct kern_q4x *xc = NULL;
	int nc = KERN_Q4_NC(n), t0, t1, t, nt;

	if (kern_q4_int(m, n))
		xc = aligned_alloc(64, (size_t)(T < TB ? T : TB) * nc *
		    sizeof *xc);
	if (!xc) {
		for (t = 0; t < T; t++)
			mv(out + (size_t)t * ldo, w, x + (size_t)t * ldx, n,
			    r0, r1);
		return;
	}
	for (t0 = 0; t0 < T; t0 = t1) {
		t1 = T - t0 > TB ? t0 + TB : T;
		for (nt = 0, t = t0; t < t1; t++) {
			struct kern_q4x *h = xc + (size_t)nt * nc;

			if (prep(h, x + (size_t)t * ldx, n) < 0) {
				mv(out + (size_t)t * ldo, w, x + (size_t)t *
				    ldx, n, r0, r1);
				continue;
			}
			if (!m->z || nd == 1)
				zsym(h, n);
			xs[nt] = h;
			o[nt++] = out + (size_t)t * ldo;
		}
		tdispatch(nd, m, xs, o, nt, r0, r1);
	}
	free(xc);
}

/* kern.h's matmulx of W_Q4I: many() on the tokens kern_q4i_avx2_xprep
 * made, TB at a time; a token it marked (KERN_Q4_XBAD), or all of them
 * where m takes the float path, by mv on x, as many() takes them. */
static void
manyx(float *out, int ldo, const void *w, const void *xp, const float *x,
    int ldx, int n, int T, int r0, int r1, kern_matvec_fn *mv)
{
	const struct kern_q4 *m = w;
	const struct kern_q4x *xs[TB], *xc;
	float *o[TB];
	int nc = KERN_Q4_NC(n), in = kern_q4_int(m, n), t0, t1, t, nt;

	for (t0 = 0; t0 < T; t0 = t1) {
		t1 = T - t0 > TB ? t0 + TB : T;
		for (nt = 0, t = t0; t < t1; t++) {
			xc = (const struct kern_q4x *)xp + (size_t)t * nc;
			if (!in || xc->nsx[0] == KERN_Q4_XBAD) {
				mv(out + (size_t)t * ldo, w, x + (size_t)t *
				    ldx, n, r0, r1);
				continue;
			}
			xs[nt] = xc;
			o[nt++] = out + (size_t)t * ldo;
		}
		tdispatch(1, m, xs, o, nt, r0, r1);
	}
}

#endif
