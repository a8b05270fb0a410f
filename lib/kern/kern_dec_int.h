/* kern_dec_int.h: the row loop that the vector tables' decode kernels
 * of ggml's blocks share (kern_ggml_avx2.c, kern_ggml_avx512.c and the
 * factored kern_b32_*.c, kern_kq_*.c), each file keeping only its
 * intrinsics: a rows function that sums R rows of its type against x
 * (kdec_rows_fn), and for the factored ones a preparation of x once a
 * call (kdec_prep_fn).  Both are arguments of always-inlined drivers, so
 * they are constants there: each entry comes out as the code that was
 * written out by hand in each file before (the same instructions, the
 * same bits).  Included after kern_avx2_int.h or kern_avx512_int.h
 * (UNROLL, hsum). */
#ifndef KERN_DEC_INT_H
#define KERN_DEC_INT_H

#include <stddef.h>
#include <stdint.h>

#include "kern/kern.h"
#include "kern/kern_ggml_int.h"
#include "kern/wtype.h"

/* A pass takes KDEC_R rows h apart (far-apart streams, which the
 * hardware prefetcher keeps up with: bench/NOTES.md "Decode: how the
 * rows are read"), the rest one at a time. */
#ifndef KDEC_R
#define KDEC_R 4
#endif

/* The sums of R rows of type t (R: KDEC_R or 1) into sum[i], row i's
 * n weights at p[i] (a rows function may advance p[i]), against x as
 * the kernel takes it: xp, and xs its sums, as prepared (kdec_prep_fn),
 * or x as it lies (xs NULL). */
typedef void kdec_rows_fn(enum wtype t, int R, float *sum,
    const uint8_t **p, const float *xp, const float *xs, int n);

/* x of nb whole blocks into xp (the order the lanes meet the quants)
 * and xs (its sums), once a call for all the rows. */
typedef void kdec_prep_fn(enum wtype t, float *xp, float *xs,
    const float *x, int nb);

/* out[r + i*rs] for i < R, rows rb bytes apart at w */
GINLINE void
kdec_pass(enum wtype t, kdec_rows_fn *rows, int R, float *out,
    const void *w, size_t rb, const float *xp, const float *xs, int n,
    int r, int rs)
{
	const uint8_t *p[KDEC_R];
	float sum[KDEC_R];
	int i;

	UNROLL
	for (i = 0; i < R; i++)
		p[i] = (const uint8_t *)w + (size_t)(r + i * rs) * rb;
	rows(t, R, sum, p, xp, xs, n);
	UNROLL
	for (i = 0; i < R; i++)
		out[r + i * rs] = sum[i];
}

/* out[r] for r in [r0, r1): the row range's passes, then the rest */
GINLINE void
kdec_split(enum wtype t, kdec_rows_fn *rows, float *out, const void *w,
    const float *xp, const float *xs, int n, int r0, int r1)
{
	int h = (r1 - r0) / KDEC_R, r;
	size_t rb = wtype_rowsize(t, n);

	for (r = r0; r < r0 + h; r++)
		kdec_pass(t, rows, KDEC_R, out, w, rb, xp, xs, n, r, h);
	for (r = r0 + KDEC_R * h; r < r1; r++)
		kdec_pass(t, rows, 1, out, w, rb, xp, xs, n, r, 1);
}

/* nb whole blocks of R rows (p[i], advanced) into o[i] (kern_ggml_*.c),
 * for a type without a fused function on the table: each weight into
 * its FMA as it is made (gdeq) */
GINLINE void
kdec_gdeq(enum wtype t, int R, struct gout *o, const uint8_t **p,
    const float *x, int nb)
{
	int bs = wtypes[t].block, by = wtypes[t].bytes, b, i;

	for (b = 0; b < nb; b++) {
		UNROLL
		for (i = 0; i < R; i++) {
			o[i].x = x + b * bs;
			gdeq(t, &o[i], p[i]);
			p[i] += by;
		}
	}
}

/* A factored decode's call (kern.h): rows that are not whole blocks of
 * bs, or, where x is prepared (prep), too long for its buffers
 * (KERN_KQ_MAXN), take the fused kernel; else x is prepared once for
 * all the rows (or taken as it lies) and the rows split. */
GINLINE void
kdec_matvec(enum wtype t, int bs, kdec_prep_fn *prep, kdec_rows_fn *rows,
    kern_matvec_fn *fused, float *out, const void *w, const float *x,
    int n, int r0, int r1)
{
	/* the largest of the preparations: kern_b32_avx2.c's pairs of
	 * blocks (an odd count padded), kern_b32_avx512.c's sum a lane */
	_Alignas(64) float xp[KERN_KQ_MAXN + 32], xs[KERN_KQ_MAXN / 2];

	if (n % bs || (prep && n > KERN_KQ_MAXN)) {
		fused(out, w, x, n, r0, r1);
		return;
	}
	if (prep) {
		prep(t, xp, xs, x, n / bs);
		kdec_split(t, rows, out, w, xp, xs, n, r0, r1);
	} else
		kdec_split(t, rows, out, w, x, NULL, n, r0, r1);
}

#endif
