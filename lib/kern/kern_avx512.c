/* kern_avx512.c: the AVX-512 table (F, BW, VL, DQ; FMA, F16C).
 *
 * Every dot product of a weight row with an activation vector keeps one
 * 16-lane float accumulator: element i goes to lane i % 16, one FMA per
 * 16 elements in order, the tail through a masked (zero-filled) load,
 * then the lanes are added in a fixed tree (lane i with i+8, i with i+4,
 * i with i+2, i with i+1).  The register blocks below (several rows and
 * tokens per pass) only interleave such sums, and the 4-row reduction
 * performs the same tree, so an output never depends on its neighbours.
 * BF16 widens by a 16-bit shift, F16 by vcvtph2ps: both exact.  The
 * AVX512-BF16 dot instruction is not used here, since it would round the
 * activations to bf16. */
#if defined(__x86_64__)

#include <immintrin.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kern/fetchspan.h"
#include "kern/gptq.h"
#include "kern/kern.h"
#include "kern/kern_avx512_int.h"
#include "kern/vexp.h"

#define MR 4	/* rows per register block */
#define MT 6	/* tokens per register block: MR*MT accumulators */
/* The batched decode's register block over float activations laid out
 * (few(), il): FR rows x FT tokens, 24 accumulators as MR x MT, but
 * each token's 16 activations a step serve 6 rows, not 4, and each row's
 * 16 weights (BF16 and F16: a load and a widening) 4 tokens; faster
 * on the 1B shape's rows (bench/NOTES.md, "6 x 4 register blocks"). */
#define FR 6
#define FT 4
/* few()'s tokens a register block, which xblock lays them out by */
#define FEWTB(floats) ((floats) ? FT : MT)
#define AR 6	/* the most rows of any register block (MR, FR) */

/* The same for the lanes in m, others 0; nothing outside m is read. */
INLINE __m512
wloadm(enum wtype t, const void *w, size_t i, __mmask16 m)
{
	__m256i h;

	switch (t) {
	case W_F16:
		h = _mm256_maskz_loadu_epi16(m, (const uint16_t *)w + i);
		return _mm512_cvtph_ps(h);
	case W_BF16:
		h = _mm256_maskz_loadu_epi16(m, (const uint16_t *)w + i);
		return _mm512_castsi512_ps(_mm512_slli_epi32(
		    _mm512_cvtepu16_epi32(h), 16));
	default:
		return _mm512_maskz_loadu_ps(m, (const float *)w + i);
	}
}

/* hsum of a, b, c, d as one vector, with the same pairings (IEEE
 * addition commutes, so the results are those of hsum bit for bit). */
INLINE __m128
hsum4(__m512 a, __m512 b, __m512 c, __m512 d)
{
	__m512 ab = _mm512_add_ps(_mm512_shuffle_f32x4(a, b, 0x44),
	    _mm512_shuffle_f32x4(a, b, 0xee));	/* i + (i+8) */
	__m512 cd = _mm512_add_ps(_mm512_shuffle_f32x4(c, d, 0x44),
	    _mm512_shuffle_f32x4(c, d, 0xee));
	__m512 v = _mm512_add_ps(_mm512_shuffle_f32x4(ab, cd, 0x88),
	    _mm512_shuffle_f32x4(ab, cd, 0xdd));	/* i + (i+4) */

	v = _mm512_add_ps(v, _mm512_permute_ps(v, 0x4e));	/* i + (i+2) */
	v = _mm512_add_ps(v, _mm512_permute_ps(v, 0xb1));	/* i + (i+1) */
	return _mm512_castps512_ps128(_mm512_permutexvar_ps(
	    _mm512_setr_epi32(0, 4, 8, 12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0),
	    v));
}

/* out[j*ldo + r + i*rs] = the reduction of acc[i][j], i < R, j < TT:
 * the store of every register block below. */
INLINE void
store(int R, int TT, float *out, int ldo, int r, int rs,
    __m512 acc[AR][MT])
{
	int i, j;

	UNROLL
	for (j = 0; j < TT; j++) {
		if (R == 4 && rs == 1)
			_mm_storeu_ps(out + (size_t)j * ldo + r,
			    hsum4(acc[0][j], acc[1][j], acc[2][j], acc[3][j]));
		else
			UNROLL
			for (i = 0; i < R; i++)
				out[(size_t)j * ldo + r + i * rs] =
				    hsum(acc[i][j]);
	}
}

/* out[j*ldo + r + i*rs] = dot(W[r + i*rs], x + j*ldx) for i < R, j < TT;
 * il: x is the TT tokens as xtof32 lays them out instead (token j's
 * elements [16s, 16s + 16) at x + 16 * (s * TT + j), ldx unused).
 * R, TT and il are constants after inlining (R <= AR, TT <= MT); a, if
 * not NULL, takes a step of its prefetch a step of the sums. */
INLINE void
block(enum wtype t, int R, int TT, float *out, int ldo, const void *w,
    const float *x, int ldx, int il, int n, int r, int rs, struct fetchspan *a)
{
	__m512 acc[AR][MT], wv[AR], xv;
	size_t row[AR];
	__mmask16 m;
	int i, j, k;

	UNROLL
	for (i = 0; i < R; i++) {
		row[i] = (size_t)(r + i * rs) * n;
		UNROLL
		for (j = 0; j < TT; j++)
			acc[i][j] = _mm512_setzero_ps();
	}
	for (k = 0; k + 16 <= n; k += 16) {
		if (a)
			fetchspan_step(a);
		UNROLL
		for (i = 0; i < R; i++)
			wv[i] = wload(t, w, row[i] + k);
		UNROLL
		for (j = 0; j < TT; j++) {
			xv = _mm512_loadu_ps(il ? x + (size_t)k * TT + 16 * j :
			    x + (size_t)j * ldx + k);
			UNROLL
			for (i = 0; i < R; i++)
				acc[i][j] = _mm512_fmadd_ps(wv[i], xv,
				    acc[i][j]);
		}
	}
	if (k < n) {
		m = (__mmask16)((1u << (n - k)) - 1);
		UNROLL
		for (i = 0; i < R; i++)
			wv[i] = wloadm(t, w, row[i] + k, m);
		UNROLL
		for (j = 0; j < TT; j++) {
			xv = _mm512_maskz_loadu_ps(m, il ? x + (size_t)k * TT +
			    16 * j : x + (size_t)j * ldx + k);
			UNROLL
			for (i = 0; i < R; i++)
				acc[i][j] = _mm512_fmadd_ps(wv[i], xv,
				    acc[i][j]);
		}
	}
	store(R, TT, out, ldo, r, rs, acc);
}

/* ---- the --bf16-act path (AVX512-BF16) ----
 *
 * The activations are rounded to bf16 (vcvtneps2bf16, nearest even) into
 * a zero-padded buffer, once a call (matmul_bf16act), a register block's
 * tokens interleaved (xtobf16); vdpbf16ps then
 * adds the products of element pairs 2i, 2i+1 into float lane i, 32
 * elements per instruction, in order, the tail through a masked
 * (zero-filled) weight load; the lanes are reduced by the tree above. */

#define XPAD(n) (((size_t)(n) + 31) / 32 * 32)

/* One token's activations x rounded to bf16, zero-padded to XPAD(n),
 * at o as a register block of TT tokens reads them: a step's 32
 * elements of each token in turn (token j's elements [32s, 32s + 32) at
 * 32 * (s * TT + j) from the block's start; o is the block's start plus
 * 32 j).  The block's loads are then one sequential stream; as rows
 * side by side, 2n bytes apart, the tokens' lines of a step fall in one
 * set of L1 where 2n is a multiple of 4 KiB (Llama-3.2-1B: 4 and 16
 * KiB), with the weight rows' lines.  A block holds TT * XPAD(n)
 * elements; one token's are its row as it is. */
INLINE void
xtobf16(uint16_t *o, const float *x, int n, int TT)
{
	__mmask16 m;
	int k;

	for (k = 0; k < n; k += 16) {
		m = n - k >= 16 ? (__mmask16)0xffff :
		    (__mmask16)((1u << (n - k)) - 1);
		_mm256_storeu_si256((__m256i *)(o + (size_t)k / 32 * 32 * TT +
		    k % 32), (__m256i)_mm512_cvtneps_pbh(
		    _mm512_maskz_loadu_ps(m, x + k)));
	}
	if ((size_t)k < XPAD(n))	/* the last step's zero half */
		_mm256_storeu_si256((__m256i *)(o + (size_t)k / 32 * 32 * TT +
		    16), _mm256_setzero_si256());
}

/* As block, for bf16 weights w and TT tokens' bf16 activations xs, as
 * xtobf16 lays them out; a step is 32 elements. */
INLINE void
bblock(int R, int TT, float *out, int ldo, const uint16_t *w,
    const uint16_t *xs, int n, int r, int rs, struct fetchspan *a)
{
	__m512 acc[AR][MT];
	__m512bh wv[MR], xv;
	size_t row[MR];
	__mmask32 m;
	int i, j, k;

	UNROLL
	for (i = 0; i < R; i++) {
		row[i] = (size_t)(r + i * rs) * n;
		UNROLL
		for (j = 0; j < TT; j++)
			acc[i][j] = _mm512_setzero_ps();
	}
	for (k = 0; k + 32 <= n; k += 32) {
		if (a)
			fetchspan_step(a);
		UNROLL
		for (i = 0; i < R; i++)
			wv[i] = (__m512bh)_mm512_loadu_si512(w + row[i] + k);
		UNROLL
		for (j = 0; j < TT; j++) {
			xv = (__m512bh)_mm512_loadu_si512(xs + (size_t)k *
			    TT + 32 * j);
			UNROLL
			for (i = 0; i < R; i++)
				acc[i][j] = _mm512_dpbf16_ps(acc[i][j], wv[i],
				    xv);
		}
	}
	if (k < n) {
		m = (__mmask32)((1u << (n - k)) - 1);
		UNROLL
		for (i = 0; i < R; i++)
			wv[i] = (__m512bh)_mm512_maskz_loadu_epi16(m,
			    w + row[i] + k);
		UNROLL
		for (j = 0; j < TT; j++) {
			xv = (__m512bh)_mm512_loadu_si512(xs + (size_t)k *
			    TT + 32 * j);
			UNROLL
			for (i = 0; i < R; i++)
				acc[i][j] = _mm512_dpbf16_ps(acc[i][j], wv[i],
				    xv);
		}
	}
	store(R, TT, out, ldo, r, rs, acc);
}

/* The activations' element: float, or W_BF16A's rounded bf16. */
#define XSIZE(t) ((t) == W_BF16A ? sizeof(uint16_t) : sizeof(float))

/* block, or for W_BF16A bblock: rows r + i*rs, i < R, against TT
 * tokens (W_BF16A: x as xtobf16 lays out TT tokens, ldx and il
 * unused). */
INLINE void
tblock(enum wtype t, int R, int TT, float *out, int ldo, const void *w,
    const void *x, int ldx, int il, int n, int r, int rs, struct fetchspan *a)
{
	if (t == W_BF16A)
		bblock(R, TT, out, ldo, w, x, n, r, rs, a);
	else
		block(t, R, TT, out, ldo, w, x, ldx, il, n, r, rs, a);
}

/* Rows [r0, r1) against TT tokens, MR rows at a time, or with h the
 * pairs r, r + h (few()'s); x and ldx in XSIZE(t) elements, il and a:
 * block's. */
INLINE void
rows(enum wtype t, int TT, float *out, int ldo, const void *w,
    const void *x, int ldx, int il, int n, int r0, int r1, int h,
    struct fetchspan *a)
{
	int r;

	for (r = r0; h && r < r1; r++)
		tblock(t, 2, TT, out, ldo, w, x, ldx, il, n, r, h, a);
	for (r = r0; !h && r + MR <= r1; r += MR)
		tblock(t, MR, TT, out, ldo, w, x, ldx, il, n, r, 1, a);
	for (; !h && r < r1; r++)
		tblock(t, 1, TT, out, ldo, w, x, ldx, il, n, r, 1, a);
}

/* Decode: the rows in two halves read side by side, each from its start
 * to its end, so that the weights arrive as two sequential streams far
 * apart.  Four rows next to each other (four streams 2n bytes apart,
 * with or without software prefetch) read slowest on one Zen 5 core,
 * one row after the other faster, two halves fastest, more than a
 * plain read (bench/NOTES.md, "Decode: how the rows are read").  Every
 * row keeps its own accumulator, so the outputs are those of one row
 * at a time. */
INLINE void
matvec(enum wtype t, float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	int h = (r1 - r0) / 2, r;

	for (r = r0; r < r0 + h; r++)
		block(t, 2, 1, out, 0, w, x, 0, 0, n, r, h, NULL);
	if ((r1 - r0) % 2)
		block(t, 1, 1, out, 0, w, x, 0, 0, n, r1 - 1, 1, NULL);
}

/* rows() with TT <= MT a constant. */
INLINE void
tokens(enum wtype t, int TT, float *out, int ldo, const void *w,
    const void *x, int ldx, int il, int n, int p0, int p1, int h,
    struct fetchspan *a)
{
	switch (TT) {
	case 1:
		rows(t, 1, out, ldo, w, x, ldx, il, n, p0, p1, h, a);
		break;
	case 2:
		rows(t, 2, out, ldo, w, x, ldx, il, n, p0, p1, h, a);
		break;
	case 3:
		rows(t, 3, out, ldo, w, x, ldx, il, n, p0, p1, h, a);
		break;
	case 4:
		rows(t, 4, out, ldo, w, x, ldx, il, n, p0, p1, h, a);
		break;
	case 5:
		rows(t, 5, out, ldo, w, x, ldx, il, n, p0, p1, h, a);
		break;
	default:
		rows(t, MT, out, ldo, w, x, ldx, il, n, p0, p1, h, a);
		break;
	}
}

/* few()'s rows over float activations laid out (il): FR at a time,
 * the rest as rows() takes them; TT <= FT. */
INLINE void
frows(enum wtype t, int TT, float *out, int ldo, const void *w,
    const float *x, int ldx, int n, int r0, int r1, struct fetchspan *a)
{
	int r;

	for (r = r0; r + FR <= r1; r += FR)
		block(t, FR, TT, out, ldo, w, x, ldx, 1, n, r, 1, a);
	rows(t, TT, out, ldo, w, x, ldx, 1, n, r, r1, 0, a);
}

/* frows() with TT <= FT a constant. */
INLINE void
ftokens(enum wtype t, int TT, float *out, int ldo, const void *w,
    const float *x, int ldx, int n, int p0, int p1, struct fetchspan *a)
{
	switch (TT) {
	case 1:
		frows(t, 1, out, ldo, w, x, ldx, n, p0, p1, a);
		break;
	case 2:
		frows(t, 2, out, ldo, w, x, ldx, n, p0, p1, a);
		break;
	case 3:
		frows(t, 3, out, ldo, w, x, ldx, n, p0, p1, a);
		break;
	default:
		frows(t, FT, out, ldo, w, x, ldx, n, p0, p1, a);
		break;
	}
}

/* Batched decode: a few tokens (T <= TFEW), a batch's decode rows, one
 * a sequence.  Prefill's order below reads a panel from memory on its
 * first block of tokens, the FMAs waiting, and from L2 on the others: a
 * step of 4 or 16 rows cost the weights' read plus the FMAs.
 *
 * Up to PAIRT tokens, one register block of them, bound by memory: the
 * rows are read as matvec reads them, in two halves side by side (two
 * sequential streams far apart, which the hardware prefetcher runs
 * ahead of), pairs r, r + h against all the tokens.  More: the rows go
 * in panels of about PANEL bytes against all T tokens, in blocks of
 * tokens of equal size (at most MT; FT over float activations laid
 * out), MR rows a register block (FR), and the
 * next panel's lines are prefetched a share per step of this panel's
 * register blocks, so that memory reads it under this one's FMAs.
 * Each output is still one block()'s sum.  x: rows ldx apart, or (il,
 * and always for W_BF16A) the T tokens as xlay lays them out, ldx the
 * elements of XSIZE(t) a token takes there. */
#define TFEW KERN_TFEW	/* most tokens of the batched decode */
#define PANEL (16u << 10)	/* bytes of weights a panel */
/* The most tokens read as pairs: --bf16-act's a register block (MT); of
 * float activations 2 (at 4 and 6 the pairs' rereads of x, twice the
 * panels' and of 4-byte elements, made a step slower, bench/NOTES.md). */
#define PAIRT(t) ((t) == W_BF16A ? MT : 2)
INLINE void
few(enum wtype t, float *out, int ldo, const void *w, const void *x,
    int ldx, int il, int n, int T, int r0, int r1)
{
	size_t rowb = wtype_rowsize(t, n), ks = 64 / XSIZE(t);
	int fl = il && t != W_BF16A;	/* FR x FT register blocks */
	int R = fl ? FR : MR, TB = FEWTB(fl);
	int P = (int)(PANEL / rowb) / R * R, h = (r1 - r0) / 2;
	int nb = (T + TB - 1) / TB, p0, p1, p2, b, j, TT;
	struct fetchspan a;

	if (T <= PAIRT(t)) {	/* one block (xblock) */
		tokens(t, T, out, ldo, w, x, ldx, il, n, r0, r0 + h, h, NULL);
		if ((r1 - r0) % 2)
			tokens(t, T, out, ldo, w, x, ldx, il, n, r1 - 1, r1,
			    0, NULL);
		return;
	}
	P = P < R ? R : P;
	for (p0 = r0; p0 < r1; p0 = p1) {
		p1 = r1 - p0 > P ? p0 + P : r1;
		p2 = r1 - p1 > P ? p1 + P : r1;
		fetchspan_set(&a, (const char *)w + (size_t)p1 * rowb,
		    (size_t)(p2 - p1) * rowb, (size_t)nb * ((p1 - p0) / R +
		    (p1 - p0) % R) * (n / ks));
		for (b = j = 0; j < T; b++, j += TT) {	/* xblock's */
			TT = kern_piece(T - j, nb - b);
			if (fl)
				ftokens(t, TT, out + (size_t)j * ldo, ldo, w,
				    (const float *)x + (size_t)j * ldx, ldx,
				    n, p0, p1, &a);
			else
				tokens(t, TT, out + (size_t)j * ldo, ldo, w,
				    (const char *)x + (size_t)j * ldx *
				    XSIZE(t), ldx, il, n, p0, p1, 0, &a);
		}
	}
}

/* fewgroups' groups of T tokens of n elements of xsize bytes. */
INLINE int
fewng(int T, int n, size_t xsize)
{
	size_t half = kern_l2 / 2;
	int ng = (int)(((size_t)T * n * xsize + half - 1) / half);

	return ng < T ? ng : T;
}

/* few() over T <= TFEW tokens at x, in groups of equal size whose
 * activations stay in half of L2 (x, ldx and il: few()'s).  Every panel
 * streams all its tokens' activations: where they would not stay there
 * (-P 64 on rows of 8192), each group reads the weights again instead. */
INLINE void
fewgroups(enum wtype t, float *out, int ldo, const void *w, const void *x,
    int ldx, int il, int n, int T, int r0, int r1)
{
	int ng = fewng(T, n, XSIZE(t)), g, j, tt;

	for (g = 0, j = 0; j < T; g++, j += tt) {	/* xblock's */
		tt = kern_piece(T - j, ng - g);
		few(t, out + (size_t)j * ldo, ldo, w, (const char *)x +
		    (size_t)j * ldx * XSIZE(t), ldx, il, n, tt, r0, r1);
	}
}

/* The block of tokens that token j of a batch of T (rows of n elements
 * of xsize bytes) is read in: its first token *tb and its size *tt.
 * T <= TFEW: fewgroups' groups, each in few()'s blocks (of at most FT
 * tokens of floats, MT of bf16); more: prefill's MT at a time from
 * token 0. */
INLINE void
xblock(int T, int n, size_t xsize, int j, int *tb, int *tt)
{
	int ng, nb, g, b, j0, e, gt, bt;

	if (T > TFEW) {
		*tb = j / MT * MT;
		*tt = T - *tb < MT ? T - *tb : MT;
		return;
	}
	ng = fewng(T, n, xsize);
	for (g = 0, j0 = 0; j >= j0 + (gt = kern_piece(T - j0, ng - g)); g++)
		j0 += gt;
	bt = FEWTB(xsize == sizeof(float));
	nb = (gt + bt - 1) / bt;
	for (b = 0, e = j0 + gt; j >= j0 + (bt = kern_piece(e - j0, nb - b));
	    b++)
		j0 += bt;
	*tb = j0;
	*tt = bt;
}

/* Float activations as a register block of TT tokens reads them
 * (block's il): one token's x, zero-padded to XPADF(n), its step s's 16
 * elements at o + 16 s TT (o: the block's start plus 16 j for its token
 * j), as xtobf16 lays out bf16 and for its reason: rows side by side,
 * 4n bytes apart, put a step's lines of all the tokens in one set of L1
 * at Llama-3.2-1B's n = 2048 and 8192. */
#define XPADF(n) (((size_t)(n) + 15) / 16 * 16)
INLINE void
xtof32(float *o, const float *x, int n, int TT)
{
	__mmask16 m;
	int k;

	for (k = 0; k < n; k += 16) {
		m = n - k >= 16 ? (__mmask16)0xffff :
		    (__mmask16)((1u << (n - k)) - 1);
		_mm512_storeu_ps(o + (size_t)k * TT, _mm512_maskz_loadu_ps(m,
		    x + k));
	}
}

/* Tokens [t0, t1) of a batch of T at x (token j at x + j ldx) into xs as
 * the kernels read the batch: each block of tokens (xblock) from its
 * first token tb at tb * ld elements, laid out by xtobf16 (bf: ld
 * XPAD(n)) or xtof32 (ld XPADF(n)); T * ld elements in all. */
INLINE void
xlay(int bf, void *xs, const float *x, int ldx, int n, int T, int t0,
    int t1)
{
	int j, tb, tt;

	for (j = t0; j < t1; j++) {
		xblock(T, n, bf ? sizeof(uint16_t) : sizeof(float), j, &tb,
		    &tt);
		if (bf)
			xtobf16((uint16_t *)xs + (size_t)tb * XPAD(n) +
			    32 * (size_t)(j - tb), x + (size_t)j * ldx, n, tt);
		else
			xtof32((float *)xs + (size_t)tb * XPADF(n) +
			    16 * (size_t)(j - tb), x + (size_t)j * ldx, n, tt);
	}
}

/* Prefill: tokens in super-blocks whose activations fit in L2, rows in
 * panels whose weights fit in L2, then MR x MT register blocks, so the
 * weights come from memory once per super-block.  (Prefetching the next
 * panel into L2 made no measurable difference.)  x, ldx and il: few()'s
 * (the super-blocks are whole blocks of MT, as xblock's). */
INLINE void
matmul(enum wtype t, float *out, int ldo, const void *w, const float *x,
    int ldx, int il, int n, int T, int r0, int r1)
{
	size_t rowb = wtype_rowsize(t, n);
	int P = (int)((256u << 10) / (rowb + 1));
	int TB = (int)((512u << 10) / ((size_t)n * 4 + 1));
	int t0, t1, p0, p1, j;

	if (T <= TFEW) {
		fewgroups(t, out, ldo, w, x, ldx, il, n, T, r0, r1);
		return;
	}
	P = P < MR ? MR : P / MR * MR;
	TB = TB < MT ? MT : TB / MT * MT;
	for (t0 = 0; t0 < T; t0 = t1) {
		t1 = T - t0 > TB ? t0 + TB : T;
		for (p0 = r0; p0 < r1; p0 = p1) {
			p1 = r1 - p0 > P ? p0 + P : r1;
			for (j = t0; j < t1; j += MT)
				tokens(t, t1 - j < MT ? t1 - j : MT,
				    out + (size_t)j * ldo, ldo, w,
				    x + (size_t)j * ldx, ldx, il, n, p0, p1,
				    0, NULL);
		}
	}
}

/* kern.h's xprep of the float types, one layout for the three (xlay's),
 * and their matmulx: the batched decode's and prefill's register blocks
 * then read their tokens' activations as one stream (bench/NOTES.md,
 * "the exact mode's activations interleaved"). */
static void
xprep_float(void *xp, const float *x, int ldx, int n, int T, int t0, int t1)
{
	xlay(0, xp, x, ldx, n, T, t0, t1);
}

static void
matmulx_f32(float *out, int ldo, const void *w, const void *xp,
    const float *x, int ldx, int n, int T, int r0, int r1)
{
	(void)x, (void)ldx;
	matmul(W_F32, out, ldo, w, xp, (int)XPADF(n), 1, n, T, r0, r1);
}

static void
matmulx_f16(float *out, int ldo, const void *w, const void *xp,
    const float *x, int ldx, int n, int T, int r0, int r1)
{
	(void)x, (void)ldx;
	matmul(W_F16, out, ldo, w, xp, (int)XPADF(n), 1, n, T, r0, r1);
}

static void
matmulx_bf16(float *out, int ldo, const void *w, const void *xp,
    const float *x, int ldx, int n, int T, int r0, int r1)
{
	(void)x, (void)ldx;
	matmul(W_BF16, out, ldo, w, xp, (int)XPADF(n), 1, n, T, r0, r1);
}

static void
matvec_f32(float *out, const void *w, const float *x, int n, int r0, int r1)
{
	matvec(W_F32, out, w, x, n, r0, r1);
}

static void
matvec_f16(float *out, const void *w, const float *x, int n, int r0, int r1)
{
	matvec(W_F16, out, w, x, n, r0, r1);
}

static void
matvec_bf16(float *out, const void *w, const float *x, int n, int r0, int r1)
{
	matvec(W_BF16, out, w, x, n, r0, r1);
}

static void
matmul_f32(float *out, int ldo, const void *w, const float *x, int ldx,
    int n, int T, int r0, int r1)
{
	matmul(W_F32, out, ldo, w, x, ldx, 0, n, T, r0, r1);
}

static void
matmul_f16(float *out, int ldo, const void *w, const float *x, int ldx,
    int n, int T, int r0, int r1)
{
	matmul(W_F16, out, ldo, w, x, ldx, 0, n, T, r0, r1);
}

static void
matmul_bf16(float *out, int ldo, const void *w, const float *x, int ldx,
    int n, int T, int r0, int r1)
{
	matmul(W_BF16, out, ldo, w, x, ldx, 0, n, T, r0, r1);
}

static float
dot(const float *a, const float *b, int n)
{
	__m512 acc = _mm512_setzero_ps();
	__mmask16 m;
	int k;

	for (k = 0; k + 16 <= n; k += 16)
		acc = _mm512_fmadd_ps(_mm512_loadu_ps(a + k),
		    _mm512_loadu_ps(b + k), acc);
	if (k < n) {
		m = (__mmask16)((1u << (n - k)) - 1);
		acc = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, a + k),
		    _mm512_maskz_loadu_ps(m, b + k), acc);
	}
	return hsum(acc);
}

/* kern.h's argmax: 16 lanes, each the first index of its largest (a
 * strict compare), the tail's lanes masked off. */
static int
argmax(const float *x, int n)
{
	__m512 m = _mm512_set1_ps(-INFINITY), v;
	__m512i b = _mm512_set1_epi32(-1), idx = _mm512_setr_epi32(0, 1, 2,
	    3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
	__mmask16 k = 0xffff, bad = 0, gt;
	float mk[16];
	int bk[16], i;

	for (i = 0; i < n; i += 16) {
		if (n - i < 16)
			k = (__mmask16)((1u << (n - i)) - 1);
		v = _mm512_mask_loadu_ps(m, k, x + i);
		bad |= _mm512_mask_fpclass_ps_mask(k, v, 0x99);	/* NaN, inf */
		gt = _mm512_mask_cmp_ps_mask(k, v, m, _CMP_GT_OQ);
		m = _mm512_mask_mov_ps(m, gt, v);
		b = _mm512_mask_mov_epi32(b, gt, idx);
		idx = _mm512_add_epi32(idx, _mm512_set1_epi32(16));
	}
	if (bad)
		return kern_first_bad(x, n);
	_mm512_storeu_ps(mk, m);
	_mm512_storeu_si512(bk, b);
	return kern_best_lane(mk, bk, 16);
}

/* kern.h's rope: 16 pairs a step, the tail's lanes masked off; the
 * products and sums each rounded (no FMA), as kern_rope's. */
static void
rope(float *x, int nh, int hd, const float *cos, const float *sin)
{
	int h, j, half = hd / 2;
	__mmask16 k;
	__m512 a, b, c, s;
	float *v;

	for (h = 0; h < nh; h++) {
		v = x + (size_t)h * hd;
		for (j = 0; j < half; j += 16) {
			k = half - j >= 16 ? 0xffff : (__mmask16)((1u << (half -
			    j)) - 1);
			a = _mm512_maskz_loadu_ps(k, v + j);
			b = _mm512_maskz_loadu_ps(k, v + half + j);
			c = _mm512_maskz_loadu_ps(k, cos + j);
			s = _mm512_maskz_loadu_ps(k, sin + j);
			_mm512_mask_storeu_ps(v + j, k, _mm512_sub_ps(
			    _mm512_mul_ps(a, c), _mm512_mul_ps(b, s)));
			_mm512_mask_storeu_ps(v + half + j, k, _mm512_add_ps(
			    _mm512_mul_ps(b, c), _mm512_mul_ps(a, s)));
		}
	}
}

static void
axpy(float *y, float a, const float *x, int n)
{
	__m512 av = _mm512_set1_ps(a);
	__mmask16 m;
	int k;

	for (k = 0; k + 16 <= n; k += 16)
		_mm512_storeu_ps(y + k, _mm512_fmadd_ps(av,
		    _mm512_loadu_ps(x + k), _mm512_loadu_ps(y + k)));
	if (k < n) {
		m = (__mmask16)((1u << (n - k)) - 1);
		_mm512_mask_storeu_ps(y + k, m, _mm512_fmadd_ps(av,
		    _mm512_maskz_loadu_ps(m, x + k),
		    _mm512_maskz_loadu_ps(m, y + k)));
	}
}

static void
rmsnorm(float *o, const float *x, const float *w, int n, float eps)
{
	__m512 rv;
	__mmask16 m;
	int k;

	rv = _mm512_set1_ps(1.0f / sqrtf(dot(x, x, n) / (float)n + eps));
	for (k = 0; k + 16 <= n; k += 16)
		_mm512_storeu_ps(o + k, _mm512_mul_ps(_mm512_mul_ps(
		    _mm512_loadu_ps(x + k), rv), _mm512_loadu_ps(w + k)));
	if (k < n) {
		m = (__mmask16)((1u << (n - k)) - 1);
		_mm512_mask_storeu_ps(o + k, m, _mm512_mul_ps(_mm512_mul_ps(
		    _mm512_maskz_loadu_ps(m, x + k), rv),
		    _mm512_maskz_loadu_ps(m, w + k)));
	}
}

/* silu(g) up over 16 lanes; where -g > 88.7 (e^-g beyond float) the
 * denominator is infinite, so the lane is -0 as with expf. */
INLINE __m512
swiglu16(__m512 g, __m512 u)
{
	__m512 ng = _mm512_sub_ps(_mm512_setzero_ps(), g);
	__m512 d = _mm512_add_ps(_mm512_set1_ps(1.0f), vexp16(ng));

	d = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(ng, _mm512_set1_ps(88.7f),
	    _CMP_GT_OQ), d, _mm512_set1_ps(INFINITY));
	return _mm512_mul_ps(_mm512_div_ps(g, d), u);
}

/* gelu_tanh(g) up over 16 lanes, as g / (1 + e^-2y) (kern.h);
 * infinite denominators as in swiglu16. */
INLINE __m512
geglu16(__m512 g, __m512 u)
{
	__m512 g3 = _mm512_mul_ps(_mm512_mul_ps(g, g), g);
	__m512 y = _mm512_mul_ps(_mm512_set1_ps(0.7978845608028654f),
	    _mm512_fmadd_ps(_mm512_set1_ps(0.044715f), g3, g));
	__m512 nz = _mm512_mul_ps(_mm512_set1_ps(-2.0f), y);
	__m512 d = _mm512_add_ps(_mm512_set1_ps(1.0f), vexp16(nz));

	d = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(nz, _mm512_set1_ps(88.7f),
	    _CMP_GT_OQ), d, _mm512_set1_ps(INFINITY));
	return _mm512_mul_ps(_mm512_div_ps(g, d), u);
}

static void
geglu(float *h, const float *gate, const float *up, int n)
{
	__mmask16 m;
	int k;

	for (k = 0; k + 16 <= n; k += 16)
		_mm512_storeu_ps(h + k, geglu16(_mm512_loadu_ps(gate + k),
		    _mm512_loadu_ps(up + k)));
	if (k < n) {
		m = (__mmask16)((1u << (n - k)) - 1);
		_mm512_mask_storeu_ps(h + k, m, geglu16(
		    _mm512_maskz_loadu_ps(m, gate + k),
		    _mm512_maskz_loadu_ps(m, up + k)));
	}
}

static void
swiglu(float *h, const float *gate, const float *up, int n)
{
	__mmask16 m;
	int k;

	for (k = 0; k + 16 <= n; k += 16)
		_mm512_storeu_ps(h + k, swiglu16(_mm512_loadu_ps(gate + k),
		    _mm512_loadu_ps(up + k)));
	if (k < n) {
		m = (__mmask16)((1u << (n - k)) - 1);
		_mm512_mask_storeu_ps(h + k, m, swiglu16(
		    _mm512_maskz_loadu_ps(m, gate + k),
		    _mm512_maskz_loadu_ps(m, up + k)));
	}
}

static void
tof32_f32(float *out, const void *w, size_t n)
{
	memmove(out, w, n * sizeof *out);
}

INLINE void
widen(enum wtype t, float *out, const void *w, size_t n)
{
	__mmask16 m;
	size_t k;

	for (k = 0; k + 16 <= n; k += 16)
		_mm512_storeu_ps(out + k, wload(t, w, k));
	if (k < n) {
		m = (__mmask16)((1u << (n - k)) - 1);
		_mm512_mask_storeu_ps(out + k, m, wloadm(t, w, k, m));
	}
}

static void
tof32_f16(float *out, const void *w, size_t n)
{
	widen(W_F16, out, w, n);
}

static void
tof32_bf16(float *out, const void *w, size_t n)
{
	widen(W_BF16, out, w, n);
}

static void
matvec_bf16act(float *out, const void *w, const float *x, int n, int r0,
    int r1)
{
	uint16_t xs[CONV_BF16ACT_MAXN] __attribute__((aligned(64)));
	int r, h;

	if (n > CONV_BF16ACT_MAXN)
		return;
	xtobf16(xs, x, n, 1);
	h = (r1 - r0) / 2;	/* two streams, as matvec */
	for (r = r0; r < r0 + h; r++)
		bblock(2, 1, out, 0, w, xs, n, r, h, NULL);
	if ((r1 - r0) % 2)
		bblock(1, 1, out, 0, w, xs, n, r1 - 1, 1, NULL);
}

/* Activations of one token super-block, rounded: TB * XPAD(n) <= XBUF. */
#define XBUF (64 * 1024)

/* Rows [r0, r1) against the first nt tokens of T rounded at xs (ld
 * elements a token) as xlay lays out the T: a batch's decode rows (T <=
 * TFEW, nt = T) as few()'s, the next panel prefetched under this one's
 * products; prefill's (blocks of MT from the first) in panels of P rows
 * whose weights fit in L1 (32 KiB) and serve every token group, MR x MT
 * register blocks. */
INLINE void
bf16act_rows(float *out, int ldo, const uint16_t *w, const uint16_t *xs,
    size_t ld, int n, int T, int nt, int r0, int r1)
{
	int P = (int)((32u << 10) / ((size_t)n * 2)), p0, p1, j;

	if (T <= TFEW) {
		fewgroups(W_BF16A, out, ldo, w, xs, (int)ld, 1, n, T, r0, r1);
		return;
	}
	P = P < MR ? MR : P / MR * MR;
	for (p0 = r0; p0 < r1; p0 = p1) {
		p1 = r1 - p0 > P ? p0 + P : r1;
		for (j = 0; j < nt; j += MT)
			tokens(W_BF16A, nt - j < MT ? nt - j : MT,
			    out + (size_t)j * ldo, ldo, w, xs + (size_t)j * ld,
			    (int)ld, 1, n, p0, p1, 0, NULL);
	}
}

/* Prefill and a batch's decode rows: the bf16 activations of all T
 * tokens rounded once (kern_xroom: the stack's 128 KiB, else the heap),
 * so the weights come from memory once a call.  (The stack alone held
 * 6 tokens of rows of 8192, Llama-3.2-1B's down_proj: -P 64's decode
 * read it 11 times a step.)  A model's products take matmulx_bf16act
 * instead, on the tokens a thread rounded once an op (seq_sched.c). */
static void
matmul_bf16act(float *out, int ldo, const void *w, const float *x, int ldx,
    int n, int T, int r0, int r1)
{
	uint16_t stk[XBUF] __attribute__((aligned(64)));
	size_t ld = XPAD(n);
	int t0, t1, j, jb, TB, tt;
	uint16_t *xs;

	if (n > CONV_BF16ACT_MAXN)
		return;
	xs = kern_xroom(stk, sizeof(stk), ld * sizeof(*xs), T, &TB);
	if (TB < T)	/* super-blocks of whole token groups */
		TB = TB < MT ? TB : TB / MT * MT;
	for (t0 = 0; t0 < T; t0 = t1) {
		t1 = T - t0 > TB ? t0 + TB : T;
		tt = t1 - t0;
		if (T <= TFEW) {	/* a super-block: a batch of its own */
			xlay(1, xs, x + (size_t)t0 * ldx, ldx, n, tt, 0, tt);
			bf16act_rows(out + (size_t)t0 * ldo, ldo, w, xs, ld,
			    n, tt, tt, r0, r1);
			continue;
		}
		for (j = t0; j < t1; j++) {	/* blocks of MT from t0 */
			jb = t0 + (j - t0) / MT * MT;
			xtobf16(xs + (size_t)(jb - t0) * ld + 32 * (size_t)(j -
			    jb), x + (size_t)j * ldx, n, t1 - jb < MT ? t1 -
			    jb : MT);
		}
		bf16act_rows(out + (size_t)t0 * ldo, ldo, w, xs, ld, n, T, tt,
		    r0, r1);
	}
	if (xs != stk)
		free(xs);
}

/* kern.h's xprep and matmulx of W_BF16A: all T tokens rounded and laid
 * out as matmul_bf16act lays them (xlay's, ld XPAD(n)), once an op and
 * a thread, so that a prefill's chunks of rows (pool_for_dyn's, ten and
 * more a product at 2 threads) and q, k and v, gate and up do not each
 * round all the tokens again. */
static void
xprep_bf16act(void *xp, const float *x, int ldx, int n, int T, int t0,
    int t1)
{
	xlay(1, xp, x, ldx, n, T, t0, t1);
}

static void
matmulx_bf16act(float *out, int ldo, const void *w, const void *xp,
    const float *x, int ldx, int n, int T, int r0, int r1)
{
	(void)x, (void)ldx;
	if (n > CONV_BF16ACT_MAXN)
		return;
	bf16act_rows(out, ldo, w, xp, XPAD(n), n, T, T, r0, r1);
}

/* ---- Q8_0 ----
 *
 * The activations are quantized to int16 by conv_q8_0_quant_x.  Per
 * block of 32: the int8 weights widened to int16 (vpmovsxbw), vpmaddwd
 * against the activations: 16 int32 lanes of 2 products each, exact,
 * converted and added in float with the product of the two block scales.
 * The lanes are reduced by the tree above, per output, whatever the
 * block.  (AVX512-BW only: no VNNI needed.) */

#define QT 3	/* tokens per register block */
#define XQBUF (128 * 1024)	/* bytes of quantized activations */

/* out[j*ldo + r + i*rs] = row r + i*rs of w . token j of the quantized
 * activations at xq (stride ldxq bytes), i < R, j < TT. */
INLINE void
qblock(int R, int TT, float *out, int ldo, const void *w, const char *xq,
    size_t ldxq, int n, int r, int rs)
{
	size_t nb = CONV_Q8_0_NB(n), rowb = nb * (4 + 32), b;
	const float *wd[MR], *xd[QT];
	const int8_t *wq[MR];
	const int16_t *xv[QT];
	__m512 acc[AR][MT];	/* MR x QT of them used */
	__m512i wv[MR], av;
	int i, j;

	UNROLL
	for (i = 0; i < R; i++) {
		wd[i] = (const float *)((const char *)w + (size_t)(r + i * rs) *
		    rowb);
		wq[i] = (const int8_t *)(wd[i] + nb);
		UNROLL
		for (j = 0; j < TT; j++)
			acc[i][j] = _mm512_setzero_ps();
	}
	UNROLL
	for (j = 0; j < TT; j++) {
		xd[j] = (const float *)(xq + (size_t)j * ldxq);
		xv[j] = (const int16_t *)(xd[j] + nb);
	}
	for (b = 0; b < nb; b++) {
		UNROLL
		for (i = 0; i < R; i++)
			wv[i] = _mm512_cvtepi8_epi16(_mm256_loadu_si256(
			    (const __m256i *)(wq[i] + 32 * b)));
		UNROLL
		for (j = 0; j < TT; j++) {
			av = _mm512_loadu_si512(xv[j] + 32 * b);
			UNROLL
			for (i = 0; i < R; i++)
				acc[i][j] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(
				    _mm512_madd_epi16(wv[i], av)),
				    _mm512_set1_ps(wd[i][b] * xd[j][b]),
				    acc[i][j]);
		}
	}
	store(R, TT, out, ldo, r, rs, acc);
}

INLINE void
qrows(int TT, float *out, int ldo, const void *w, const char *xq,
    size_t ldxq, int n, int r0, int r1)
{
	int r;

	for (r = r0; r + MR <= r1; r += MR)
		qblock(MR, TT, out, ldo, w, xq, ldxq, n, r, 1);
	for (; r < r1; r++)
		qblock(1, TT, out, ldo, w, xq, ldxq, n, r, 1);
}

static void
matvec_q8_0(float *out, const void *w, const float *x, int n, int r0, int r1)
{
	float xq[CONV_Q8_0_XMAX / sizeof(float)];
	int r, h;

	if (n > CONV_Q8_0_MAXN)
		return;
	conv_q8_0_quant_x(xq, x, n);
	h = (r1 - r0) / 2;	/* two streams, as matvec */
	for (r = r0; r < r0 + h; r++)
		qblock(2, 1, out, 0, w, (const char *)xq, 0, n, r, h);
	if ((r1 - r0) % 2)
		qblock(1, 1, out, 0, w, (const char *)xq, 0, n, r1 - 1, 1);
}

/* Token super-blocks quantized once, row panels that fit in L1, QT
 * tokens at a time. */
static void
matmul_q8_0(float *out, int ldo, const void *w, const float *x, int ldx,
    int n, int T, int r0, int r1)
{
	char xq[XQBUF] __attribute__((aligned(64)));
	size_t ld = conv_q8_0_xsize(n);
	int P = (int)((32u << 10) / conv_q8_0_rowsize(n));
	int TB = (int)(XQBUF / ld);
	int t0, t1, p0, p1, j;
	float *o;
	const char *xj;

	if (n > CONV_Q8_0_MAXN || TB < 1)
		return;
	P = P < MR ? MR : P / MR * MR;
	TB = TB < QT ? TB : TB / QT * QT;
	for (t0 = 0; t0 < T; t0 = t1) {
		t1 = T - t0 > TB ? t0 + TB : T;
		for (j = t0; j < t1; j++)
			conv_q8_0_quant_x(xq + (size_t)(j - t0) * ld,
			    x + (size_t)j * ldx, n);
		for (p0 = r0; p0 < r1; p0 = p1) {
			p1 = r1 - p0 > P ? p0 + P : r1;
			for (j = t0; j < t1; j += QT) {
				xj = xq + (size_t)(j - t0) * ld;
				o = out + (size_t)j * ldo;
				if (t1 - j >= 3)
					qrows(3, o, ldo, w, xj, ld, n, p0, p1);
				else if (t1 - j == 2)
					qrows(2, o, ldo, w, xj, ld, n, p0, p1);
				else
					qrows(1, o, ldo, w, xj, ld, n, p0, p1);
			}
		}
	}
}

const struct kern kern_avx512 = {
	.name = "avx512",
	.matvec = { matvec_f32, matvec_f16, matvec_bf16, matvec_q8_0,
		matvec_bf16act, kern_q4_avx512_matvec,
		[W_GPTQ4] = kern_gptq_avx512_matvec,
		[W_AWQ4] = kern_awq_avx512_matvec,
		[W_Q8_0I] = kern_i8_avx512_matvec,
		[W_Q4I] = kern_q4i_avx512_matvec,
		[W_GQ8_0] = kern_gq8_0_avx512_b32, [W_Q4_0] =
		kern_q4_0_avx512_b32, [W_Q4_1] = kern_q4_1_avx512_b32,
		[W_Q5_0] = kern_q5_0_avx512_b32, [W_Q5_1] =
		kern_q5_1_avx512_b32, [W_Q2_K] = kern_q2_k_avx512_kq,
		[W_Q3_K] = kern_q3_k_avx512_matvec, [W_Q4_K] =
		kern_q4_k_avx512_kq, [W_Q5_K] = kern_q5_k_avx512_kq,
		[W_Q6_K] = kern_q6_k_avx512_kq, [W_IQ4_NL] =
		kern_iq4_nl_avx512_matvec, [W_IQ4_XS] = kern_iq4_xs_avx512_matvec },
	.matmul = { matmul_f32, matmul_f16, matmul_bf16, matmul_q8_0,
		matmul_bf16act, kern_q4_avx512_matmul,
		[W_GPTQ4] = kern_gptq_avx512_matmul,
		[W_AWQ4] = kern_awq_avx512_matmul,
		[W_Q8_0I] = kern_i8_avx512_matmul,
		[W_Q4I] = kern_q4i_avx512_matmul,
		[W_GQ8_0] = kern_gq8_0_avx512_matmul, [W_Q4_0] =
		kern_q4_0_avx512_matmul, [W_Q4_1] = kern_q4_1_avx512_matmul,
		[W_Q5_0] = kern_q5_0_avx512_matmul, [W_Q5_1] =
		kern_q5_1_avx512_matmul, [W_Q2_K] = kern_q2_k_avx512_matmul,
		[W_Q3_K] = kern_q3_k_avx512_matmul, [W_Q4_K] =
		kern_q4_k_avx512_matmul, [W_Q5_K] = kern_q5_k_avx512_matmul,
		[W_Q6_K] = kern_q6_k_avx512_matmul, [W_IQ4_NL] =
		kern_iq4_nl_avx512_matmul, [W_IQ4_XS] = kern_iq4_xs_avx512_matmul },
	.matvecs = { [W_Q4] = kern_q4_avx512_matvecs },
	.xprep = { [W_F32] = xprep_float, [W_F16] = xprep_float,
		[W_BF16] = xprep_float, [W_BF16A] = xprep_bf16act,
		[W_Q4I] = kern_q4i_avx512_xprep },
	.matmulx = { [W_F32] = matmulx_f32, [W_F16] = matmulx_f16,
		[W_BF16] = matmulx_bf16, [W_BF16A] = matmulx_bf16act,
		[W_Q4I] = kern_q4i_avx512_matmulx },
	.dot = dot,
	.argmax = argmax,
	.rope = rope,
	.axpy = axpy,
	.rmsnorm = rmsnorm,
	.swiglu = swiglu,
	.geglu = geglu,
	.to_f32 = { tof32_f32, tof32_f16, tof32_bf16,
		[W_GQ8_0] = kern_gq8_0_avx2_to_f32, [W_Q4_0] =
		kern_q4_0_avx2_to_f32, [W_Q4_1] = conv_q4_1_to_f32, [W_Q5_0] =
		kern_q5_0_avx2_to_f32, [W_Q5_1] = conv_q5_1_to_f32, [W_Q2_K] =
		conv_q2_k_to_f32, [W_Q3_K] = conv_q3_k_to_f32, [W_Q4_K] =
		kern_q4_k_avx2_to_f32, [W_Q5_K] = conv_q5_k_to_f32, [W_Q6_K] =
		kern_q6_k_avx2_to_f32, [W_IQ4_NL] = conv_iq4_nl_to_f32, [W_IQ4_XS] =
		conv_iq4_xs_to_f32 },
	.from_f32 = { [W_F16] = kern_f16_avx2_from_f32,
		[W_BF16] = kern_bf16_avx2_from_f32 },
};

#endif
