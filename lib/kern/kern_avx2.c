/* kern_avx2.c: the AVX2 table (AVX2, FMA, F16C).
 *
 * The same scheme as kern_avx512.c with 8 lanes: every dot product of a
 * weight row with an activation vector keeps one 8-lane float
 * accumulator (element i in lane i % 8, one FMA per 8 elements in
 * order, the tail through a zero-padded copy), then adds the lanes in a
 * fixed tree (lane i with i+4, i with i+2, i with i+1).  The register
 * blocks only interleave such sums and the 4-row reduction performs the
 * same tree, so an output never depends on its neighbours.  BF16 widens
 * by a 16-bit shift, F16 by vcvtph2ps: both exact. */
#if defined(__x86_64__)

#include <immintrin.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "kern/fetchspan.h"
#include "kern/gptq.h"
#include "kern/kern.h"
#include "kern/kern_avx2_int.h"
#include "kern/vexp.h"


#define MR 4	/* rows per register block */
#define MT 2	/* tokens per register block: MR*MT accumulators */

/* The first m < 8 weights from element i, the other lanes 0; nothing
 * past them is read. */
INLINE __m256
wloadm(enum wtype t, const void *w, size_t i, int m)
{
	uint16_t h[8] = { 0 };
	float f[8] = { 0 };

	if (t == W_F32) {
		memcpy(f, (const float *)w + i, (size_t)m * sizeof *f);
		return _mm256_loadu_ps(f);
	}
	memcpy(h, (const uint16_t *)w + i, (size_t)m * sizeof *h);
	return wload(t, h, 0);
}

/* hsum of a, b, c, d as one vector, with the same pairings (IEEE
 * addition commutes, so the results are those of hsum bit for bit). */
INLINE __m128
hsum4(__m256 a, __m256 b, __m256 c, __m256 d)
{
	__m256 ab = _mm256_add_ps(_mm256_permute2f128_ps(a, b, 0x20),
	    _mm256_permute2f128_ps(a, b, 0x31));	/* i + (i+4) */
	__m256 cd = _mm256_add_ps(_mm256_permute2f128_ps(c, d, 0x20),
	    _mm256_permute2f128_ps(c, d, 0x31));
	/* [a0 a1 c0 c1 | b0 b1 d0 d1] + [a2 a3 c2 c3 | b2 b3 d2 d3] */
	__m256 q = _mm256_add_ps(_mm256_shuffle_ps(ab, cd, 0x44),
	    _mm256_shuffle_ps(ab, cd, 0xee));		/* i + (i+2) */
	/* [a c a c | b d b d] */
	__m256 r = _mm256_add_ps(_mm256_shuffle_ps(q, q, 0x88),
	    _mm256_shuffle_ps(q, q, 0xdd));		/* i + (i+1) */

	return _mm_unpacklo_ps(_mm256_castps256_ps128(r),
	    _mm256_extractf128_ps(r, 1));
}

/* out[j*ldo + r + i*rs] = the reduction of acc[i][j], i < R, j < TT:
 * the store of every register block below. */
INLINE void
store(int R, int TT, float *out, int ldo, int r, int rs,
    __m256 acc[MR][MT])
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

/* Decode: the rows in VS parts read side by side, each from its start
 * to its end: VS sequential streams far apart (see kern_avx512.c), and
 * VS independent accumulators.  With 8 lanes a row's FMA chain carries
 * 16 bytes of BF16 per FMA latency, so the AVX-512 table's two halves
 * (two chains) left a core short of memory's speed; each stream is also
 * prefetched VPF bytes ahead, a line at a time, which the hardware
 * prefetcher alone did not match on one core (bench/NOTES.md, "AVX2
 * decode", 2026-12-01).  Every row keeps its own accumulator, in the
 * order block sums it, so the outputs are those of one row at a time. */
#ifndef VS
#define VS 4	/* streams of a decode matvec */
#endif
#ifndef VPF
#define VPF 2048	/* bytes a stream is prefetched ahead */
#endif

/* Bring the line VPF bytes past p into the caches. */
INLINE void
ahead(const void *p)
{
	/* an integer sum: the line may lie past the end of the matrix,
	 * where a prefetch is harmless but a pointer would not be */
	_mm_prefetch((const char *)((uintptr_t)p + VPF), _MM_HINT_T0);
}

/* out[r + i*rs] = dot(W[r + i*rs], x) for i < R (a constant after
 * inlining), the sums of block. */
INLINE void
vblock(enum wtype t, int R, float *out, const void *w, const float *x,
    int n, int r, int rs)
{
	/* not wtype_rowsize: t is a constant here after inlining, and so
	 * es and the es == 4 below, which the table's entry would not be */
	size_t es = t == W_F32 ? 4 : 2;
	const char *wr[VS];
	__m256 acc[VS], xv;
	size_t row[VS];
	int i, j, k;

	UNROLL
	for (i = 0; i < R; i++) {
		row[i] = (size_t)(r + i * rs) * n;
		wr[i] = (const char *)w + row[i] * es;
		acc[i] = _mm256_setzero_ps();
	}
	/* 32 weights a step: 64 bytes of BF16 or F16, a line */
	for (k = 0; k + 32 <= n; k += 32) {
		UNROLL
		for (i = 0; i < R; i++) {
			ahead(wr[i] + k * es);
			if (es == 4)
				ahead(wr[i] + k * es + 64);
		}
		UNROLL
		for (j = 0; j < 32; j += 8) {
			xv = _mm256_loadu_ps(x + k + j);
			UNROLL
			for (i = 0; i < R; i++)
				acc[i] = _mm256_fmadd_ps(wload(t, w, row[i] + k
				    + j), xv, acc[i]);
		}
	}
	for (; k + 8 <= n; k += 8) {
		xv = _mm256_loadu_ps(x + k);
		UNROLL
		for (i = 0; i < R; i++)
			acc[i] = _mm256_fmadd_ps(wload(t, w, row[i] + k), xv,
			    acc[i]);
	}
	if (k < n) {
		xv = xloadm(x + k, n - k);
		UNROLL
		for (i = 0; i < R; i++)
			acc[i] = _mm256_fmadd_ps(wloadm(t, w, row[i] + k,
			    n - k), xv, acc[i]);
	}
	UNROLL
	for (i = 0; i < R; i++)
		out[r + i * rs] = hsum(acc[i]);
}

INLINE void
matvec(enum wtype t, float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	int h = (r1 - r0) / VS, r;

	for (r = r0; r < r0 + h; r++)
		vblock(t, VS, out, w, x, n, r, h);
	for (r = r0 + VS * h; r < r1; r++)
		vblock(t, 1, out, w, x, n, r, 1);
}

/* ---- Prefill ----
 *
 * The rows of a panel are widened once per block of tokens into float32
 * (pack), then NR x NT register blocks run over the packed rows, which
 * sit in L1, and the tokens' activations, which stream from L2: each
 * weight is read from memory and widened once per block of tokens, and a
 * block loads NR + NT vectors for NR NT FMAs.  Rows longer than KC go in
 * chunks of equal length, at most KC, the 8-lane accumulators of the
 * panel kept in memory from one chunk to the next (a store and a load
 * change no bit), so that a register block's packed rows stay in L1
 * and the sums still run in the order of matvec:
 * one accumulator per (row, token), one FMA per 8 elements in order, the
 * zero-padded tail last, the tree of hsum. */
#define NR 4	/* rows per register block */
#define NT 3	/* tokens per register block: NR*NT accumulators + NT */
#define PR 16	/* rows per packed panel */
#define PTMAX 192	/* most tokens per block, a multiple of NT */
#define KC 1024	/* most weights per row per chunk, a multiple of 8 */

/* Elements [k0, k0 + kc) of rows [r, r + R) widened into p, the rows kp
 * apart (kc rounded up to 8), the last 8 zero-padded as wloadm pads. */
INLINE void
pack(enum wtype t, float *p, int kp, const void *w, int n, int r, int R,
    int k0, int kc)
{
	size_t o;
	int i, k;

	for (i = 0; i < R; i++) {
		o = (size_t)(r + i) * n + k0;
		for (k = 0; k + 8 <= kc; k += 8)
			_mm256_store_ps(p + (size_t)i * kp + k, wload(t, w, o + k));
		if (k < kc)
			_mm256_store_ps(p + (size_t)i * kp + k,
			    wloadm(t, w, o + k, kc - k));
	}
}

/* The reductions of acc[i][j] into out[j*ldo + i], i < R, j < TT. */
INLINE void
pstore(int R, int TT, float *out, int ldo, __m256 acc[NR][NT])
{
	int i, j;

	UNROLL
	for (j = 0; j < TT; j++) {
		if (R == 4)
			_mm_storeu_ps(out + (size_t)j * ldo,
			    hsum4(acc[0][j], acc[1][j], acc[2][j], acc[3][j]));
		else
			UNROLL
			for (i = 0; i < R; i++)
				out[(size_t)j * ldo + i] = hsum(acc[i][j]);
	}
}

/* R packed rows at p (kp apart) against TT tokens at x (ldx apart) over
 * kc elements: the accumulators start at zero (first) or from sv, go
 * back to sv, or (last) are reduced into out.  sv holds a panel's
 * accumulators, row i token j at sv[i*PTMAX + j]. */
INLINE void
tile(int R, int TT, float *out, int ldo, const float *p, int kp,
    const float *x, int ldx, int kc, __m256 *sv, int first, int last)
{
	__m256 acc[NR][NT], xv[NT], wv;
	int i, j, k;

	UNROLL
	for (i = 0; i < R; i++)
		UNROLL
		for (j = 0; j < TT; j++)
			acc[i][j] = _mm256_setzero_ps();
	if (!first)
		UNROLL
		for (i = 0; i < R; i++)
			UNROLL
			for (j = 0; j < TT; j++)
				acc[i][j] = sv[i * PTMAX + j];
	for (k = 0; k + 8 <= kc; k += 8) {
		UNROLL
		for (j = 0; j < TT; j++)
			xv[j] = _mm256_loadu_ps(x + (size_t)j * ldx + k);
		UNROLL
		for (i = 0; i < R; i++) {
			wv = _mm256_load_ps(p + (size_t)i * kp + k);
			UNROLL
			for (j = 0; j < TT; j++)
				acc[i][j] = _mm256_fmadd_ps(wv, xv[j],
				    acc[i][j]);
		}
	}
	if (k < kc) {
		UNROLL
		for (j = 0; j < TT; j++)
			xv[j] = xloadm(x + (size_t)j * ldx + k, kc - k);
		UNROLL
		for (i = 0; i < R; i++) {
			wv = _mm256_load_ps(p + (size_t)i * kp + k);
			UNROLL
			for (j = 0; j < TT; j++)
				acc[i][j] = _mm256_fmadd_ps(wv, xv[j],
				    acc[i][j]);
		}
	}
	if (last) {
		pstore(R, TT, out, ldo, acc);
		return;
	}
	UNROLL
	for (i = 0; i < R; i++)
		UNROLL
		for (j = 0; j < TT; j++)
			sv[i * PTMAX + j] = acc[i][j];
}

/* The weights the next pack will read, fetched a few lines per register
 * block while this panel computes: between two packs the memory is idle
 * for a whole panel's FMAs, long enough for the hardware prefetcher to
 * have stopped, and a pack waiting on memory leaves the FMAs idle. */
struct ahead {
	const char *w;		/* the first row's first byte */
	size_t ld, seg, off;	/* row stride and bytes a row; cursor */
	int rows, i, per;	/* rows; cursor; lines per step */
};

/* Elements [k0, k0 + kc) of rows [r, r + R), over about nstep steps. */
static void
ahead_set(struct ahead *a, enum wtype t, const void *w, int n, int r, int R,
    int k0, int kc, int nstep)
{
	size_t es = wtype_rowsize(t, 8) / 8, lines;

	a->w = (const char *)w + ((size_t)r * n + k0) * es;
	a->ld = (size_t)n * es;
	a->seg = (size_t)kc * es;
	a->off = 0;
	a->rows = R;
	a->i = 0;
	lines = R * ((a->seg + 63) / 64 + 1);
	a->per = (int)((lines + nstep - 1) / (nstep > 0 ? nstep : 1));
}

INLINE void
ahead_step(struct ahead *a)
{
	int k;

	for (k = 0; k < a->per && a->i < a->rows; k++) {
		__builtin_prefetch(a->w + a->i * a->ld + a->off, 0, 2);
		if ((a->off += 64) >= a->seg) {
			/* the row's last line, if the stride left it out */
			__builtin_prefetch(a->w + a->i * a->ld + a->seg - 1, 0, 2);
			a->off = 0;
			a->i++;
		}
	}
}

/* R rows against tb tokens in blocks of equal size, at most NT: a
 * block of 1 after blocks of 3 (4 tokens: 3 + 1) would leave the FMAs
 * waiting on the latency of its R accumulators. */
INLINE void
tiles(int R, float *out, int ldo, const float *p, int kp, const float *x,
    int ldx, int kc, int tb, __m256 *sv, int first, int last,
    struct ahead *a)
{
	int nb = (tb + NT - 1) / NT, b, j, tt;

	for (b = j = 0; j < tb; b++, j += tt) {
		tt = kern_piece(tb - j, nb - b);
		ahead_step(a);
		if (tt == NT)
			tile(R, NT, out + (size_t)j * ldo, ldo, p, kp,
			    x + (size_t)j * ldx, ldx, kc, sv + j, first, last);
		else if (tt == 2)
			tile(R, 2, out + (size_t)j * ldo, ldo, p, kp,
			    x + (size_t)j * ldx, ldx, kc, sv + j, first, last);
		else
			tile(R, 1, out + (size_t)j * ldo, ldo, p, kp,
			    x + (size_t)j * ldx, ldx, kc, sv + j, first, last);
	}
}

/* Prefill: blocks of tokens, panels of PR rows, chunks of KC
 * elements, then the packed chunk's rows NR at a time against the
 * block's tokens. */
INLINE void
matmul(enum wtype t, float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	float pk[PR * KC] __attribute__((aligned(32)));
	__m256 sv[PR * PTMAX];
	int t0, tb, bt, pt, p0, pr, k0, kc, kp, ck, i, first, last, nk, np, nt;
	struct ahead a;

	/* chunks of equal size (a multiple of 8), no short last one */
	ck = (n + KC - 1) / KC;
	ck = ((n + ck - 1) / ck + 7) / 8 * 8;
	/* a block's activations of one chunk in half of L2, where each
	 * register block reads them; blocks of equal size (a multiple of
	 * NT): no short last block that would widen the weights again for
	 * a few tokens */
	pt = (int)(kern_l2 / 2 / ((size_t)ck * sizeof(float)));
	pt = pt < NT ? NT : pt > PTMAX ? PTMAX : pt;
	bt = (T + pt - 1) / pt;
	bt = ((T + bt - 1) / bt + NT - 1) / NT * NT;
	for (t0 = 0; t0 < T; t0 += tb) {
		tb = T - t0 < bt ? T - t0 : bt;
		for (p0 = r0; p0 < r1; p0 += pr) {
			pr = r1 - p0 < PR ? r1 - p0 : PR;
			for (k0 = 0; k0 < n; k0 += kc) {
				const float *xk = x + (size_t)t0 * ldx + k0;
				float *o = out + (size_t)t0 * ldo + p0;

				kc = n - k0 < ck ? n - k0 : ck;
				kp = (kc + 7) / 8 * 8;
				first = k0 == 0;
				last = k0 + kc == n;
				pack(t, pk, kp, w, n, p0, pr, k0, kc);
				/* the next chunk, panel or token block's */
				nk = last ? 0 : k0 + kc;
				np = !last ? p0 : p0 + pr < r1 ? p0 + pr :
				    t0 + tb < T ? r0 : r1;
				nt = (pr / NR + pr % NR) * ((tb + NT - 1) / NT);
				ahead_set(&a, t, w, n, np, np < r1 ? (r1 - np <
				    PR ? r1 - np : PR) : 0, nk, n - nk < ck ?
				    n - nk : ck, nt);
				for (i = 0; i + NR <= pr; i += NR)
					tiles(NR, o + i, ldo, pk + (size_t)i * kp,
					    kp, xk, ldx, kc, tb, sv + i * PTMAX,
					    first, last, &a);
				for (; i < pr; i++)
					tiles(1, o + i, ldo, pk + (size_t)i * kp,
					    kp, xk, ldx, kc, tb, sv + i * PTMAX,
					    first, last, &a);
			}
		}
	}
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
	matmul(W_F32, out, ldo, w, x, ldx, n, T, r0, r1);
}

static void
matmul_f16(float *out, int ldo, const void *w, const float *x, int ldx,
    int n, int T, int r0, int r1)
{
	matmul(W_F16, out, ldo, w, x, ldx, n, T, r0, r1);
}

static void
matmul_bf16(float *out, int ldo, const void *w, const float *x, int ldx,
    int n, int T, int r0, int r1)
{
	matmul(W_BF16, out, ldo, w, x, ldx, n, T, r0, r1);
}

/* ---- Batched decode over prepared tokens ----
 *
 * A batch's decode rows (T <= KERN_TFEW, one token a sequence) through
 * prefill's packed panels widen each weight once but store and reload
 * it for every block of 3 tokens, and read each token's activations as
 * rows 4n bytes apart.  Here instead (kern_avx512.c's few(), in 8
 * lanes): the tokens are laid out once an op (xprep_float: a register
 * block's tokens interleaved a step of 8 at a time, one stream), the
 * rows go in panels of about PANEL bytes against all T tokens, FR rows
 * x FT tokens a register block, the weights widened in registers, and
 * the next panel's lines are prefetched a share per step of this
 * panel's register blocks, so that memory reads it under this one's
 * FMAs.  FR x FT: 12 accumulators, FR widened rows and one token's 8
 * activations, the 16 registers; each step widens FR rows (two uops
 * each for BF16) for FR FT FMAs.  Each output is still one sum in
 * matvec's order and tree, so the bits are matvec's. */
#define FR 3	/* rows per register block */
#define FT 4	/* tokens per register block */
#define PANEL (16u << 10)	/* bytes of weights a panel */
/* A prepared token's floats: its row zero-padded to whole steps */
#define XPAD8(n) (((size_t)(n) + 7) / 8 * 8)

/* out[j*ldo + r + i] = dot(W[r + i], token j) for i < R, j < TT (R, TT
 * constants after inlining), the TT tokens at x as xtof32 lays them
 * out: token j's elements [8s, 8s + 8) at x + 8 (s TT + j), zero-padded
 * to XPAD8(n). */
INLINE void
fblock(enum wtype t, int R, int TT, float *out, int ldo, const void *w,
    const float *x, int n, int r, struct fetchspan *a)
{
	__m256 acc[FR][FT], wv[FR], xv;
	__m128 s;
	size_t row[FR];
	float *o;
	int i, j, k;

	UNROLL
	for (i = 0; i < R; i++) {
		row[i] = (size_t)(r + i) * n;
		UNROLL
		for (j = 0; j < TT; j++)
			acc[i][j] = _mm256_setzero_ps();
	}
	for (k = 0; k + 8 <= n; k += 8) {
		fetchspan_step(a);
		UNROLL
		for (i = 0; i < R; i++)
			wv[i] = wload(t, w, row[i] + k);
		UNROLL
		for (j = 0; j < TT; j++) {
			xv = _mm256_load_ps(x + (size_t)k * TT + 8 * j);
			UNROLL
			for (i = 0; i < R; i++)
				acc[i][j] = _mm256_fmadd_ps(wv[i], xv,
				    acc[i][j]);
		}
	}
	if (k < n) {	/* the tail: weights and activations zero-padded */
		UNROLL
		for (i = 0; i < R; i++)
			wv[i] = wloadm(t, w, row[i] + k, n - k);
		UNROLL
		for (j = 0; j < TT; j++) {
			xv = _mm256_load_ps(x + (size_t)k * TT + 8 * j);
			UNROLL
			for (i = 0; i < R; i++)
				acc[i][j] = _mm256_fmadd_ps(wv[i], xv,
				    acc[i][j]);
		}
	}
	UNROLL
	for (j = 0; j < TT; j++) {
		o = out + (size_t)j * ldo + r;
		if (R == 3) {	/* hsum4's tree, the 4th lane not stored */
			s = hsum4(acc[0][j], acc[1][j], acc[2][j], acc[2][j]);
			_mm_storel_pi((__m64 *)o, s);
			_mm_store_ss(o + 2, _mm_movehl_ps(s, s));
		} else {
			UNROLL
			for (i = 0; i < R; i++)
				o[i] = hsum(acc[i][j]);
		}
	}
}

/* Rows [r0, r1) against TT <= FT tokens (a constant), FR at a time. */
INLINE void
frows(enum wtype t, int TT, float *out, int ldo, const void *w,
    const float *x, int n, int r0, int r1, struct fetchspan *a)
{
	int r;

	for (r = r0; r + FR <= r1; r += FR)
		fblock(t, FR, TT, out, ldo, w, x, n, r, a);
	if (r1 - r == 2)
		fblock(t, 2, TT, out, ldo, w, x, n, r, a);
	else if (r1 - r == 1)
		fblock(t, 1, TT, out, ldo, w, x, n, r, a);
}

/* frows() with TT <= FT made a constant. */
INLINE void
ftokens(enum wtype t, int TT, float *out, int ldo, const void *w,
    const float *x, int n, int r0, int r1, struct fetchspan *a)
{
	switch (TT) {
	case 1:
		frows(t, 1, out, ldo, w, x, n, r0, r1, a);
		break;
	case 2:
		frows(t, 2, out, ldo, w, x, n, r0, r1, a);
		break;
	case 3:
		frows(t, 3, out, ldo, w, x, n, r0, r1, a);
		break;
	default:
		frows(t, FT, out, ldo, w, x, n, r0, r1, a);
		break;
	}
}

/* T tokens prepared at x (a group: xblock's blocks of equal size, at
 * most FT, from x) against rows [r0, r1), in panels. */
INLINE void
few(enum wtype t, float *out, int ldo, const void *w, const float *x,
    int n, int T, int r0, int r1)
{
	size_t rowb = wtype_rowsize(t, n);
	int P = (int)(PANEL / rowb) / FR * FR, nb = (T + FT - 1) / FT;
	int p0, p1, p2, b, j, TT;
	struct fetchspan a;

	P = P < FR ? FR : P;
	for (p0 = r0; p0 < r1; p0 = p1) {
		p1 = r1 - p0 > P ? p0 + P : r1;
		p2 = r1 - p1 > P ? p1 + P : r1;
		fetchspan_set(&a, (const char *)w + (size_t)p1 * rowb,
		    (size_t)(p2 - p1) * rowb, (size_t)nb * ((p1 - p0) / FR +
		    (p1 - p0) % FR) * (n / 8 + 1));
		for (b = j = 0; j < T; b++, j += TT) {	/* xblock's */
			TT = kern_piece(T - j, nb - b);
			ftokens(t, TT, out + (size_t)j * ldo, ldo, w,
			    x + (size_t)j * XPAD8(n), n, p0, p1, &a);
		}
	}
}

/* Groups of T tokens of n floats that stay in half of L2. */
INLINE int
fewng(int T, int n)
{
	size_t half = kern_l2 / 2;
	int ng = (int)(((size_t)T * XPAD8(n) * sizeof(float) + half - 1) /
	    half);

	return ng < 1 ? 1 : ng < T ? ng : T;
}

/* few() over T tokens prepared at x, in groups of equal size whose
 * activations stay in half of L2 (every panel streams all of a
 * group's; -P 64 on rows of 8192 reads the weights once a group). */
INLINE void
fewgroups(enum wtype t, float *out, int ldo, const void *w, const float *x,
    int n, int T, int r0, int r1)
{
	int ng = fewng(T, n), g, j, tt;

	for (g = 0, j = 0; j < T; g++, j += tt) {	/* xblock's */
		tt = kern_piece(T - j, ng - g);
		few(t, out + (size_t)j * ldo, ldo, w, x + (size_t)j *
		    XPAD8(n), n, tt, r0, r1);
	}
}

/* The block of tokens token j of T (rows of n) is read in: its first
 * token *tb and its size *tt (fewgroups' groups, each in few()'s blocks
 * of equal size, at most FT). */
static void
xblock(int T, int n, int j, int *tb, int *tt)
{
	int ng = fewng(T, n), nb, g, b, j0, e, gt, bt;

	for (g = 0, j0 = 0; j >= j0 + (gt = kern_piece(T - j0, ng - g)); g++)
		j0 += gt;
	nb = (gt + FT - 1) / FT;
	for (b = 0, e = j0 + gt; j >= j0 + (bt = kern_piece(e - j0, nb - b));
	    b++)
		j0 += bt;
	*tb = j0;
	*tt = bt;
}

/* One token's x as a block of TT tokens reads it (fblock): its step
 * s's 8 floats at o + 8 s TT, zero-padded to XPAD8(n). */
static void
xtof32(float *o, const float *x, int n, int TT)
{
	int k;

	for (k = 0; k + 8 <= n; k += 8)
		_mm256_store_ps(o + (size_t)k * TT, _mm256_loadu_ps(x + k));
	if (k < n)
		_mm256_store_ps(o + (size_t)k * TT, xloadm(x + k, n - k));
}

/* kern.h's xprep of the float types, one layout for the three: tokens
 * [t0, t1) of T, each block of tokens (xblock) from its first token tb
 * at tb XPAD8(n) floats; T XPAD8(n) floats in all. */
static void
xprep_float(void *xp, const float *x, int ldx, int n, int T, int t0, int t1)
{
	int j, tb, tt;

	for (j = t0; j < t1; j++) {
		xblock(T, n, j, &tb, &tt);
		xtof32((float *)xp + (size_t)tb * XPAD8(n) + 8 * (size_t)(j -
		    tb), x + (size_t)j * ldx, n, tt);
	}
}

static void
matmulx_f32(float *out, int ldo, const void *w, const void *xp,
    const float *x, int ldx, int n, int T, int r0, int r1)
{
	(void)x, (void)ldx;
	fewgroups(W_F32, out, ldo, w, xp, n, T, r0, r1);
}

static void
matmulx_f16(float *out, int ldo, const void *w, const void *xp,
    const float *x, int ldx, int n, int T, int r0, int r1)
{
	(void)x, (void)ldx;
	fewgroups(W_F16, out, ldo, w, xp, n, T, r0, r1);
}

static void
matmulx_bf16(float *out, int ldo, const void *w, const void *xp,
    const float *x, int ldx, int n, int T, int r0, int r1)
{
	(void)x, (void)ldx;
	fewgroups(W_BF16, out, ldo, w, xp, n, T, r0, r1);
}

/* kern.h's argmax: 8 lanes, each the first index of its largest (a
 * strict compare), the last n % 8 in the same lanes one at a time. */
static int
argmax(const float *x, int n)
{
	const __m256i e = _mm256_set1_epi32(0x7f800000);
	__m256 m = _mm256_set1_ps(-INFINITY), v, gt;
	__m256i b = _mm256_set1_epi32(-1), idx = _mm256_setr_epi32(0, 1, 2,
	    3, 4, 5, 6, 7), bad = _mm256_setzero_si256();
	float mk[8];
	int bk[8], i, j;

	for (i = 0; i + 8 <= n; i += 8) {
		v = _mm256_loadu_ps(x + i);
		bad = _mm256_or_si256(bad, _mm256_cmpeq_epi32(_mm256_and_si256(
		    _mm256_castps_si256(v), e), e));
		gt = _mm256_cmp_ps(v, m, _CMP_GT_OQ);
		m = _mm256_blendv_ps(m, v, gt);
		b = _mm256_blendv_epi8(b, idx, _mm256_castps_si256(gt));
		idx = _mm256_add_epi32(idx, _mm256_set1_epi32(8));
	}
	if (!_mm256_testz_si256(bad, bad) || kern_first_bad(x + i, n - i))
		return kern_first_bad(x, n);
	_mm256_storeu_ps(mk, m);
	_mm256_storeu_si256((__m256i *)bk, b);
	for (j = i; j < n; j++)
		if (x[j] > mk[j - i])
			mk[j - i] = x[j], bk[j - i] = j;
	return kern_best_lane(mk, bk, 8);
}

/* 8 floats from x, or the first m < 8 (xloadm). */
INLINE __m256
loadn(const float *x, int m)
{
	return m < 8 ? xloadm(x, m) : _mm256_loadu_ps(x);
}

/* The first m <= 8 lanes of y at x. */
INLINE void
storen(float *x, __m256 y, int m)
{
	float f[8];

	if (m == 8) {
		_mm256_storeu_ps(x, y);
		return;
	}
	_mm256_storeu_ps(f, y);
	memcpy(x, f, (size_t)m * sizeof *f);
}

/* kern.h's rope: 8 pairs a step, the last hd/2 % 8 through a buffer;
 * the products and sums each rounded (no FMA), as kern_rope's. */
static void
rope(float *x, int nh, int hd, const float *cos, const float *sin)
{
	int h, j, m, half = hd / 2;
	__m256 a, b, c, s;
	float *v;

	for (h = 0; h < nh; h++) {
		v = x + (size_t)h * hd;
		for (j = 0; j < half; j += 8) {
			m = half - j < 8 ? half - j : 8;
			a = loadn(v + j, m);
			b = loadn(v + half + j, m);
			c = loadn(cos + j, m);
			s = loadn(sin + j, m);
			storen(v + j, _mm256_sub_ps(_mm256_mul_ps(a, c),
			    _mm256_mul_ps(b, s)), m);
			storen(v + half + j, _mm256_add_ps(_mm256_mul_ps(b, c),
			    _mm256_mul_ps(a, s)), m);
		}
	}
}

static float
dot(const float *a, const float *b, int n)
{
	__m256 acc = _mm256_setzero_ps();
	int k;

	for (k = 0; k + 8 <= n; k += 8)
		acc = _mm256_fmadd_ps(_mm256_loadu_ps(a + k),
		    _mm256_loadu_ps(b + k), acc);
	if (k < n)
		acc = _mm256_fmadd_ps(xloadm(a + k, n - k),
		    xloadm(b + k, n - k), acc);
	return hsum(acc);
}

static void
axpy(float *y, float a, const float *x, int n)
{
	__m256 av = _mm256_set1_ps(a);
	int k;

	for (k = 0; k + 8 <= n; k += 8)
		_mm256_storeu_ps(y + k, _mm256_fmadd_ps(av,
		    _mm256_loadu_ps(x + k), _mm256_loadu_ps(y + k)));
	for (; k < n; k++)
		y[k] = fmaf(a, x[k], y[k]);
}

static void
rmsnorm(float *o, const float *x, const float *w, int n, float eps)
{
	float r = 1.0f / sqrtf(dot(x, x, n) / (float)n + eps);
	__m256 rv = _mm256_set1_ps(r);
	int k;

	for (k = 0; k + 8 <= n; k += 8)
		_mm256_storeu_ps(o + k, _mm256_mul_ps(_mm256_mul_ps(
		    _mm256_loadu_ps(x + k), rv), _mm256_loadu_ps(w + k)));
	for (; k < n; k++)
		o[k] = x[k] * r * w[k];
}

/* silu(g) up over 8 lanes; where -g > 88 (e^-g at or beyond the top
 * of float) the denominator is infinite, so the lane is -0 as with
 * expf. */
INLINE __m256
swiglu8(__m256 g, __m256 u)
{
	__m256 ng = _mm256_sub_ps(_mm256_setzero_ps(), g);
	__m256 d = _mm256_add_ps(_mm256_set1_ps(1.0f), vexp8(ng));

	d = _mm256_blendv_ps(d, _mm256_set1_ps(INFINITY),
	    _mm256_cmp_ps(ng, _mm256_set1_ps(88.0f), _CMP_GT_OQ));
	return _mm256_mul_ps(_mm256_div_ps(g, d), u);
}

/* gelu_tanh(g) up over 8 lanes, as g / (1 + e^-2y): the sigmoid form
 * of 0.5 g (1 + tanh y), infinite denominators as in swiglu8. */
INLINE __m256
geglu8(__m256 g, __m256 u)
{
	__m256 g3 = _mm256_mul_ps(_mm256_mul_ps(g, g), g);
	__m256 y = _mm256_mul_ps(_mm256_set1_ps(0.7978845608028654f),
	    _mm256_fmadd_ps(_mm256_set1_ps(0.044715f), g3, g));
	__m256 nz = _mm256_mul_ps(_mm256_set1_ps(-2.0f), y);
	__m256 d = _mm256_add_ps(_mm256_set1_ps(1.0f), vexp8(nz));

	d = _mm256_blendv_ps(d, _mm256_set1_ps(INFINITY),
	    _mm256_cmp_ps(nz, _mm256_set1_ps(88.0f), _CMP_GT_OQ));
	return _mm256_mul_ps(_mm256_div_ps(g, d), u);
}

static void
geglu(float *h, const float *gate, const float *up, int n)
{
	int k;

	for (k = 0; k + 8 <= n; k += 8)
		_mm256_storeu_ps(h + k, geglu8(_mm256_loadu_ps(gate + k),
		    _mm256_loadu_ps(up + k)));
	if (k < n)
		storen(h + k, geglu8(xloadm(gate + k, n - k), xloadm(up + k,
		    n - k)), n - k);
}

static void
swiglu(float *h, const float *gate, const float *up, int n)
{
	int k;

	for (k = 0; k + 8 <= n; k += 8)
		_mm256_storeu_ps(h + k, swiglu8(_mm256_loadu_ps(gate + k),
		    _mm256_loadu_ps(up + k)));
	if (k < n)
		storen(h + k, swiglu8(xloadm(gate + k, n - k), xloadm(up + k,
		    n - k)), n - k);
}

static void
tof32_f32(float *out, const void *w, size_t n)
{
	memmove(out, w, n * sizeof *out);
}

INLINE void
widen(enum wtype t, float *out, const void *w, size_t n)
{
	float f[8];
	size_t k;

	for (k = 0; k + 8 <= n; k += 8)
		_mm256_storeu_ps(out + k, wload(t, w, k));
	if (k < n) {
		_mm256_storeu_ps(f, wloadm(t, w, k, (int)(n - k)));
		memcpy(out + k, f, (n - k) * sizeof *f);
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

/* Whether one of v's floats is a NaN: its 8 take conv's own rules
 * (payload, quiet bit), where the instructions' differ. */
INLINE int
hasnan(__m256 v)
{
	return _mm256_movemask_ps(_mm256_cmp_ps(v, v, _CMP_UNORD_Q));
}

/* vcvtps2ph rounds to nearest even as conv_f32_to_f16 does, overflow to
 * infinity and subnormal halves alike (MXCSR's FTZ and DAZ are never
 * set here). */
void
kern_f16_avx2_from_f32(void *dst, const float *x, int n)
{
	uint16_t *h = dst;
	__m256 v;
	int i = 0, j;

	for (; i + 8 <= n; i += 8) {
		v = _mm256_loadu_ps(x + i);
		if (hasnan(v))
			for (j = i; j < i + 8; j++)
				h[j] = conv_f32_to_f16(x[j]);
		else
			_mm_storeu_si128((__m128i *)(h + i), _mm256_cvtps_ph(v,
			    _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
	}
	for (; i < n; i++)
		h[i] = conv_f32_to_f16(x[i]);
}

/* conv_f32_to_bf16's integer rounding, 8 at once: u + 0x7fff + (u >> 16
 * & 1), the top half (not vcvtneps2bf16, which flushes subnormals). */
void
kern_bf16_avx2_from_f32(void *dst, const float *x, int n)
{
	const __m256i r = _mm256_set1_epi32(0x7fff), one = _mm256_set1_epi32(1);
	uint16_t *h = dst;
	__m256i u;
	__m256 v;
	int i = 0, j;

	for (; i + 8 <= n; i += 8) {
		v = _mm256_loadu_ps(x + i);
		if (hasnan(v)) {
			for (j = i; j < i + 8; j++)
				h[j] = conv_f32_to_bf16(x[j]);
			continue;
		}
		u = _mm256_castps_si256(v);
		u = _mm256_srli_epi32(_mm256_add_epi32(_mm256_add_epi32(u, r),
		    _mm256_and_si256(_mm256_srli_epi32(u, 16), one)), 16);
		u = _mm256_permute4x64_epi64(_mm256_packus_epi32(u, u), 0x08);
		_mm_storeu_si128((__m128i *)(h + i), _mm256_castsi256_si128(u));
	}
	for (; i < n; i++)
		h[i] = conv_f32_to_bf16(x[i]);
}

/* ---- Q8_0 ----
 *
 * The activations are quantized to int16 by conv_q8_0_quant_x.  Per
 * block of 32: the int8 weights widened to int16 (vpmovsxbw), vpmaddwd
 * against the activations in two halves, the halves added: 8 int32 lanes
 * of 4 products each, exact (and exact in float: below 2^24), converted
 * and added in float with the product of the two block scales.  The
 * lanes are reduced by hsum, per output, whatever the register block. */

#define QR 2	/* rows per register block */
#define QT 2	/* tokens per register block */
#define XQBUF (64 * 1024)	/* bytes of quantized activations */

/* 8 float lanes holding exact partial sums of w . a over a block of 32
 * (w: 32 int8, a: 32 int16). */
INLINE __m256
qdot(const int8_t *w, const int16_t *a)
{
	__m256i lo = _mm256_madd_epi16(_mm256_cvtepi8_epi16(_mm_loadu_si128(
	    (const __m128i *)w)), _mm256_loadu_si256((const __m256i *)a));
	__m256i hi = _mm256_madd_epi16(_mm256_cvtepi8_epi16(_mm_loadu_si128(
	    (const __m128i *)(w + 16))), _mm256_loadu_si256((const __m256i *)
	    (a + 16)));

	return _mm256_cvtepi32_ps(_mm256_add_epi32(lo, hi));
}

/* out[j*ldo + r + i*rs] = row r + i*rs of w . token j of the quantized
 * activations at xq (stride ldxq bytes), i < R, j < TT. */
INLINE void
qblock(int R, int TT, float *out, int ldo, const void *w, const char *xq,
    size_t ldxq, int n, int r, int rs)
{
	size_t nb = CONV_Q8_0_NB(n), rowb = nb * (4 + 32), b;
	const float *wd[QR], *xd[QT];
	const int8_t *wq[QR];
	const int16_t *xv[QT];
	__m256 acc[MR][MT];	/* QR x QT of them used */
	int i, j;

	UNROLL
	for (i = 0; i < R; i++) {
		wd[i] = (const float *)((const char *)w + (size_t)(r + i * rs) *
		    rowb);
		wq[i] = (const int8_t *)(wd[i] + nb);
		UNROLL
		for (j = 0; j < TT; j++)
			acc[i][j] = _mm256_setzero_ps();
	}
	UNROLL
	for (j = 0; j < TT; j++) {
		xd[j] = (const float *)(xq + (size_t)j * ldxq);
		xv[j] = (const int16_t *)(xd[j] + nb);
	}
	for (b = 0; b < nb; b++)
		UNROLL
		for (j = 0; j < TT; j++)
			UNROLL
			for (i = 0; i < R; i++)
				acc[i][j] = _mm256_fmadd_ps(qdot(wq[i] + 32 * b,
				    xv[j] + 32 * b), _mm256_set1_ps(wd[i][b] *
				    xd[j][b]), acc[i][j]);
	store(R, TT, out, ldo, r, rs, acc);
}

/* out[r + i*rs] = row r + i*rs of w . the quantized activations at xq,
 * i < R: qblock's sums, VS rows at a time (the decode matvec). */
INLINE void
qvblock(int R, float *out, const void *w, const char *xq, int n, int r,
    int rs)
{
	size_t nb = CONV_Q8_0_NB(n), rowb = nb * (4 + 32), b;
	const float *wd[VS], *xd = (const float *)xq;
	const int8_t *wq[VS];
	const int16_t *xv = (const int16_t *)(xd + nb);
	__m256 acc[VS];
	float dsv[VS][8] __attribute__((aligned(32)));
	int i, j;

	UNROLL
	for (i = 0; i < R; i++) {
		wd[i] = (const float *)((const char *)w + (size_t)(r + i * rs) *
		    rowb);
		wq[i] = (const int8_t *)(wd[i] + nb);
		acc[i] = _mm256_setzero_ps();
	}
	/* eight blocks a step: the products of their two scales for a
	 * row in one vmulps, stored and each broadcast from memory (the
	 * same floats as the scalar products; a load, where a vpermps
	 * took a shuffle and a register for each of its eight indices);
	 * a 64-byte line of int8 weights a row every two blocks (the
	 * scales of the rows that follow are in the same stream) */
	for (b = 0; b + 8 <= nb; b += 8) {
		UNROLL
		for (i = 0; i < R; i++)
			_mm256_store_ps(dsv[i], _mm256_mul_ps(_mm256_loadu_ps(
			    wd[i] + b), _mm256_loadu_ps(xd + b)));
		UNROLL
		for (j = 0; j < 8; j++) {
			if (j % 2 == 0)
				UNROLL
				for (i = 0; i < R; i++)
					ahead(wq[i] + 32 * (b + j));
			UNROLL
			for (i = 0; i < R; i++)
				acc[i] = _mm256_fmadd_ps(qdot(wq[i] + 32 *
				    (b + j), xv + 32 * (b + j)),
				    _mm256_broadcast_ss(&dsv[i][j]), acc[i]);
		}
	}
	/* nb is even: the rest two blocks a step */
	for (; b < nb; b += 2) {
		UNROLL
		for (i = 0; i < R; i++)
			ahead(wq[i] + 32 * b);
		UNROLL
		for (j = 0; j < 2; j++)
			UNROLL
			for (i = 0; i < R; i++)
				acc[i] = _mm256_fmadd_ps(qdot(wq[i] + 32 *
				    (b + j), xv + 32 * (b + j)), _mm256_set1_ps(
				    wd[i][b + j] * xd[b + j]), acc[i]);
	}
	UNROLL
	for (i = 0; i < R; i++)
		out[r + i * rs] = hsum(acc[i]);
}

/* Decode: VS parts of the rows side by side, as matvec. */
static void
matvec_q8_0(float *out, const void *w, const float *x, int n, int r0, int r1)
{
	float xq[CONV_Q8_0_XMAX / sizeof(float)];
	int h = (r1 - r0) / VS, r;

	if (n > CONV_Q8_0_MAXN)
		return;
	conv_q8_0_quant_x(xq, x, n);
	for (r = r0; r < r0 + h; r++)
		qvblock(VS, out, w, (const char *)xq, n, r, h);
	for (r = r0 + VS * h; r < r1; r++)
		qvblock(1, out, w, (const char *)xq, n, r, 1);
}

/* Prefill: token super-blocks quantized once, rows in panels that fit in
 * L2, QR x QT register blocks. */
static void
matmul_q8_0(float *out, int ldo, const void *w, const float *x, int ldx,
    int n, int T, int r0, int r1)
{
	char xq[XQBUF] __attribute__((aligned(32)));
	size_t ld = conv_q8_0_xsize(n);
	int P = (int)((256u << 10) / conv_q8_0_rowsize(n)), TB = (int)(XQBUF / ld);
	int t0, t1, p0, p1, j, r;
	float *o;

	if (n > CONV_Q8_0_MAXN || TB < 1)
		return;
	P = P < QR ? QR : P / QR * QR;
	for (t0 = 0; t0 < T; t0 = t1) {
		t1 = T - t0 > TB ? t0 + TB : T;
		for (j = t0; j < t1; j++)
			conv_q8_0_quant_x(xq + (size_t)(j - t0) * ld,
			    x + (size_t)j * ldx, n);
		for (p0 = r0; p0 < r1; p0 = p1) {
			p1 = r1 - p0 > P ? p0 + P : r1;
			for (j = t0; j < t1; j += QT) {
				const char *xj = xq + (size_t)(j - t0) * ld;

				o = out + (size_t)j * ldo;
				for (r = p0; r + QR <= p1; r += QR)
					if (t1 - j >= QT)
						qblock(QR, QT, o, ldo, w, xj, ld,
						    n, r, 1);
					else
						qblock(QR, 1, o, ldo, w, xj, ld,
						    n, r, 1);
				for (; r < p1; r++)
					if (t1 - j >= QT)
						qblock(1, QT, o, ldo, w, xj, ld,
						    n, r, 1);
					else
						qblock(1, 1, o, ldo, w, xj, ld,
						    n, r, 1);
			}
		}
	}
}

const struct kern kern_avx2 = {
	.name = "avx2",
	.matvec = { matvec_f32, matvec_f16, matvec_bf16, matvec_q8_0,
		[W_Q4] = kern_q4_avx2_matvec,
		[W_GPTQ4] = kern_gptq_avx2_matvec,
		[W_AWQ4] = kern_awq_avx2_matvec,
		[W_Q8_0I] = kern_i8_avx2_matvec,
		[W_Q4I] = kern_q4i_avx2_matvec,
		[W_GQ8_0] = kern_gq8_0_avx2_b32, [W_Q4_0] =
		kern_q4_0_avx2_b32, [W_Q4_1] = kern_q4_1_avx2_b32, [W_Q5_0] =
		kern_q5_0_avx2_matvec, [W_Q5_1] = kern_q5_1_avx2_matvec, [W_Q2_K] =
		kern_q2_k_avx2_matvec, [W_Q3_K] = kern_q3_k_avx2_matvec, [W_Q4_K] =
		kern_q4_k_avx2_kq, [W_Q5_K] = kern_q5_k_avx2_kq, [W_Q6_K] =
		kern_q6_k_avx2_kq, [W_IQ4_NL] = kern_iq4_nl_avx2_matvec,
		[W_IQ4_XS] = kern_iq4_xs_avx2_matvec },
	.matmul = { matmul_f32, matmul_f16, matmul_bf16, matmul_q8_0,
		[W_Q4] = kern_q4_avx2_matmul,
		[W_GPTQ4] = kern_gptq_avx2_matmul,
		[W_AWQ4] = kern_awq_avx2_matmul,
		[W_Q8_0I] = kern_i8_avx2_matmul,
		[W_Q4I] = kern_q4i_avx2_matmul,
		[W_GQ8_0] = kern_gq8_0_avx2_matmul, [W_Q4_0] =
		kern_q4_0_avx2_matmul, [W_Q4_1] = kern_q4_1_avx2_matmul, [W_Q5_0] =
		kern_q5_0_avx2_matmul, [W_Q5_1] = kern_q5_1_avx2_matmul, [W_Q2_K] =
		kern_q2_k_avx2_matmul, [W_Q3_K] = kern_q3_k_avx2_matmul, [W_Q4_K] =
		kern_q4_k_avx2_matmul, [W_Q5_K] = kern_q5_k_avx2_matmul, [W_Q6_K] =
		kern_q6_k_avx2_matmul, [W_IQ4_NL] = kern_iq4_nl_avx2_matmul,
		[W_IQ4_XS] = kern_iq4_xs_avx2_matmul },
	.matvecs = { [W_Q4] = kern_q4_avx2_matvecs },
	.xprep = { [W_F32] = xprep_float, [W_F16] = xprep_float,
		[W_BF16] = xprep_float, [W_Q4I] = kern_q4i_avx2_xprep },
	.matmulx = { [W_F32] = matmulx_f32, [W_F16] = matmulx_f16,
		[W_BF16] = matmulx_bf16, [W_Q4I] = kern_q4i_avx2_matmulx },
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
