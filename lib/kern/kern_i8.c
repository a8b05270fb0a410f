/* kern_i8.c: the portable kernels of --int8-act's W_Q8_0I (kern.h):
 * the activations put in int8 per block of 32 (conv_q8_0_quant), each
 * block's products summed in int32 and one float chain a row in the
 * order that every table follows, so this file defines their bits.
 * (W_Q4I's portable kernels are beside W_Q4's, in kern_q4.c.) */
#include <math.h>
#include <stdint.h>

#include "kern/kern.h"

/* The 16 lanes' tree (kern.h, W_Q4's). */
float
kern_sum16(const float l[16])
{
	float a[8], b[4];
	int i;

	for (i = 0; i < 8; i++)
		a[i] = l[i] + l[i + 8];
	for (i = 0; i < 4; i++)
		b[i] = a[i] + a[i + 4];
	return (b[0] + b[2]) + (b[1] + b[3]);
}

/* Row r of the Q8_0 matrix w (rows of n) against a token's int8
 * activations xq (a Q8_0 row of n: scales, then blocks of 32): each
 * block's 32 products summed exactly in int32, then one float chain in
 * order of blocks (kern.h). */
static float
i8dot(const void *w, int n, int r, const void *xq)
{
	size_t nb = CONV_Q8_0_NB(n), b;
	const float *wd = (const float *)((const char *)w + (size_t)r *
	    conv_q8_0_rowsize(n)), *xd = xq;
	const int8_t *wq = (const int8_t *)(wd + nb);
	const int8_t *q = (const int8_t *)(xd + nb);
	float acc = 0;
	int32_t S;
	int i;

	for (b = 0; b < nb; b++) {
		for (S = 0, i = 0; i < 32; i++)
			S += (int32_t)wq[32 * b + i] * q[32 * b + i];
		acc = fmaf((float)S, wd[b] * xd[b], acc);
	}
	return acc;
}

void
kern_i8_matvec(float *out, const void *w, const float *x, int n, int r0,
    int r1)
{
	float xq[CONV_Q8_0_XMAX / sizeof(float)];
	int r;

	if (n > CONV_Q8_0_MAXN)
		return;
	conv_q8_0_quant(xq, x, n);
	for (r = r0; r < r1; r++)
		out[r] = i8dot(w, n, r, xq);
}

void
kern_i8_matmul(float *out, int ldo, const void *w, const float *x, int ldx,
    int n, int T, int r0, int r1)
{
	int t;

	for (t = 0; t < T; t++)
		kern_i8_matvec(out + (size_t)t * ldo, w, x + (size_t)t * ldx, n,
		    r0, r1);
}
