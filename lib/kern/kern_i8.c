/* kern_i8.c: the portable kernels of --int8-act's W_Q8_0I (kern.h):
 * the activations put in int8 per block of 32 (conv_q8_0_quant), each
 * lane's four products summed in int32 and the lanes combined in the
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
 * activations xq (a Q8_0 row of n: scales, then blocks of 32). */
static float
i8dot(const void *w, int n, int r, const void *xq)
{
	size_t nb = CONV_Q8_0_NB(n), b;
	const float *wd = (const float *)((const char *)w + (size_t)r *
	    conv_q8_0_rowsize(n)), *xd = xq;
	const int8_t *wq = (const int8_t *)(wd + nb);
	const int8_t *q = (const int8_t *)(xd + nb);
	float acc[16] = { 0 }, d;
	int32_t P;
	int l, i, k;

	for (b = 0; b < nb; b++) {
		d = wd[b] * xd[b];
		for (l = 0; l < 8; l++) {
			k = 32 * (int)b + 4 * l;
			for (P = 0, i = 0; i < 4; i++)
				P += (int32_t)wq[k + i] * q[k + i];
			acc[8 * (b % 2) + l] = fmaf((float)P, d,
			    acc[8 * (b % 2) + l]);
		}
	}
	return kern_sum16(acc);
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
