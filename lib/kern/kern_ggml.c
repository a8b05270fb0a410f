/* kern_ggml.c: the portable kernels of ggml's block types (kern.h).
 *
 * A row's blocks are dequantized one at a time (conv.h) and their
 * weights multiplied by the activations with the lane discipline of the
 * portable F32 kernels (kern.c): element i summed in s[i % 8], in
 * order, the 8 sums added in the fixed tree of sum8.  So matvec gives
 * the portable F32 matvec of the dequantized row, and matmul (its F32
 * matmul on panels of dequantized rows) the same bits. */
#include <stdlib.h>
#include <string.h>

#include "kern/kern.h"

#define BMAX 256	/* the longest block: a K-quant superblock */

static float
sum8(const float s[8])
{
	return ((s[0] + s[4]) + (s[2] + s[6])) +
	    ((s[1] + s[5]) + (s[3] + s[7]));
}

/* dot(row, x) over n weights of blocks widened by deq. */
static float
gdot(enum wtype t, kern_tof32_fn *deq, const unsigned char *row,
    const float *x, int n)
{
	int bs = wtypes[t].block, by = wtypes[t].bytes, k0, m, i, j;
	float s[8] = { 0 }, wb[BMAX];

	for (k0 = 0; k0 < n; k0 += bs, row += by) {
		m = n - k0 < bs ? n - k0 : bs;
		deq(wb, row, (size_t)bs);
		for (i = 0; i + 8 <= m; i += 8)
			for (j = 0; j < 8; j++)
				s[j] += wb[i + j] * x[k0 + i + j];
		for (j = 0; i < m; i++, j++)
			s[j] += wb[i] * x[k0 + i];
	}
	return sum8(s);
}

static void
matvec(enum wtype t, kern_tof32_fn *deq, float *out, const void *w,
    const float *x, int n, int r0, int r1)
{
	size_t rb = wtype_rowsize(t, n);
	int r;

	for (r = r0; r < r1; r++)
		out[r] = gdot(t, deq, (const unsigned char *)w + (size_t)r * rb,
		    x, n);
}

void
kern_ggml_panels(enum wtype t, float *out, int ldo, const void *w,
    const float *x, int ldx, int n, int T, int r0, int r1,
    kern_tof32_fn *deq, kern_matmul_fn *f32mm, kern_matvec_fn *mv)
{
	size_t rb = wtype_rowsize(t, n);
	float *wb;
	int P = KERN_Q4_PANEL / (n > 0 ? n : 1) / 4 * 4, r, p0, p1, tt;

	if (P > r1 - r0)
		P = r1 - r0;
	/* on the heap: a pool thread's stack may be small (musl: 128 KiB) */
	if (P < 1 || !(wb = malloc(((size_t)P * n + 16) * sizeof(*wb)))) {
		for (tt = 0; tt < T; tt++)
			mv(out + (size_t)tt * ldo, w, x + (size_t)tt * ldx, n,
			    r0, r1);
		return;
	}
	memset(wb + (size_t)P * n, 0, 16 * sizeof(*wb));
	for (p0 = r0; p0 < r1; p0 = p1) {
		p1 = r1 - p0 > P ? p0 + P : r1;
		for (r = p0; r < p1; r++)
			deq(wb + (size_t)(r - p0) * n,
			    (const char *)w + (size_t)r * rb, (size_t)n);
		f32mm(out + p0, ldo, wb, x, ldx, n, T, 0, p1 - p0);
	}
	free(wb);
}

static void
matmul(enum wtype t, kern_tof32_fn *deq, kern_matvec_fn *mv, float *out,
    int ldo, const void *w, const float *x, int ldx, int n, int T, int r0,
    int r1)
{
	kern_ggml_panels(t, out, ldo, w, x, ldx, n, T, r0, r1, deq,
	    kern_portable.matmul[W_F32], mv);
}

/* ---- the entries ---- */

void
kern_gq8_0_matvec(float *out, const void *w, const float *x, int n, int r0,
    int r1)
{
	matvec(W_GQ8_0, conv_gq8_0_to_f32, out, w, x, n, r0, r1);
}

void
kern_gq8_0_matmul(float *out, int ldo, const void *w, const float *x, int ldx,
    int n, int T, int r0, int r1)
{
	matmul(W_GQ8_0, conv_gq8_0_to_f32, kern_gq8_0_matvec, out, ldo, w, x, ldx, n,
	    T, r0, r1);
}

void
kern_q4_0_matvec(float *out, const void *w, const float *x, int n, int r0,
    int r1)
{
	matvec(W_Q4_0, conv_q4_0_to_f32, out, w, x, n, r0, r1);
}

void
kern_q4_0_matmul(float *out, int ldo, const void *w, const float *x, int ldx,
    int n, int T, int r0, int r1)
{
	matmul(W_Q4_0, conv_q4_0_to_f32, kern_q4_0_matvec, out, ldo, w, x, ldx, n,
	    T, r0, r1);
}

void
kern_q4_1_matvec(float *out, const void *w, const float *x, int n, int r0,
    int r1)
{
	matvec(W_Q4_1, conv_q4_1_to_f32, out, w, x, n, r0, r1);
}

void
kern_q4_1_matmul(float *out, int ldo, const void *w, const float *x, int ldx,
    int n, int T, int r0, int r1)
{
	matmul(W_Q4_1, conv_q4_1_to_f32, kern_q4_1_matvec, out, ldo, w, x, ldx, n,
	    T, r0, r1);
}

void
kern_q5_0_matvec(float *out, const void *w, const float *x, int n, int r0,
    int r1)
{
	matvec(W_Q5_0, conv_q5_0_to_f32, out, w, x, n, r0, r1);
}

void
kern_q5_0_matmul(float *out, int ldo, const void *w, const float *x, int ldx,
    int n, int T, int r0, int r1)
{
	matmul(W_Q5_0, conv_q5_0_to_f32, kern_q5_0_matvec, out, ldo, w, x, ldx, n,
	    T, r0, r1);
}

void
kern_q5_1_matvec(float *out, const void *w, const float *x, int n, int r0,
    int r1)
{
	matvec(W_Q5_1, conv_q5_1_to_f32, out, w, x, n, r0, r1);
}

void
kern_q5_1_matmul(float *out, int ldo, const void *w, const float *x, int ldx,
    int n, int T, int r0, int r1)
{
	matmul(W_Q5_1, conv_q5_1_to_f32, kern_q5_1_matvec, out, ldo, w, x, ldx, n,
	    T, r0, r1);
}

void
kern_q2_k_matvec(float *out, const void *w, const float *x, int n, int r0,
    int r1)
{
	matvec(W_Q2_K, conv_q2_k_to_f32, out, w, x, n, r0, r1);
}

void
kern_q2_k_matmul(float *out, int ldo, const void *w, const float *x, int ldx,
    int n, int T, int r0, int r1)
{
	matmul(W_Q2_K, conv_q2_k_to_f32, kern_q2_k_matvec, out, ldo, w, x, ldx, n,
	    T, r0, r1);
}

void
kern_q3_k_matvec(float *out, const void *w, const float *x, int n, int r0,
    int r1)
{
	matvec(W_Q3_K, conv_q3_k_to_f32, out, w, x, n, r0, r1);
}

void
kern_q3_k_matmul(float *out, int ldo, const void *w, const float *x, int ldx,
    int n, int T, int r0, int r1)
{
	matmul(W_Q3_K, conv_q3_k_to_f32, kern_q3_k_matvec, out, ldo, w, x, ldx, n,
	    T, r0, r1);
}

void
kern_q4_k_matvec(float *out, const void *w, const float *x, int n, int r0,
    int r1)
{
	matvec(W_Q4_K, conv_q4_k_to_f32, out, w, x, n, r0, r1);
}

void
kern_q4_k_matmul(float *out, int ldo, const void *w, const float *x, int ldx,
    int n, int T, int r0, int r1)
{
	matmul(W_Q4_K, conv_q4_k_to_f32, kern_q4_k_matvec, out, ldo, w, x, ldx, n,
	    T, r0, r1);
}

void
kern_q5_k_matvec(float *out, const void *w, const float *x, int n, int r0,
    int r1)
{
	matvec(W_Q5_K, conv_q5_k_to_f32, out, w, x, n, r0, r1);
}

void
kern_q5_k_matmul(float *out, int ldo, const void *w, const float *x, int ldx,
    int n, int T, int r0, int r1)
{
	matmul(W_Q5_K, conv_q5_k_to_f32, kern_q5_k_matvec, out, ldo, w, x, ldx, n,
	    T, r0, r1);
}

void
kern_q6_k_matvec(float *out, const void *w, const float *x, int n, int r0,
    int r1)
{
	matvec(W_Q6_K, conv_q6_k_to_f32, out, w, x, n, r0, r1);
}

void
kern_q6_k_matmul(float *out, int ldo, const void *w, const float *x, int ldx,
    int n, int T, int r0, int r1)
{
	matmul(W_Q6_K, conv_q6_k_to_f32, kern_q6_k_matvec, out, ldo, w, x, ldx, n,
	    T, r0, r1);
}

void
kern_iq4_nl_matvec(float *out, const void *w, const float *x, int n, int r0,
    int r1)
{
	matvec(W_IQ4_NL, conv_iq4_nl_to_f32, out, w, x, n, r0, r1);
}

void
kern_iq4_nl_matmul(float *out, int ldo, const void *w, const float *x, int ldx,
    int n, int T, int r0, int r1)
{
	matmul(W_IQ4_NL, conv_iq4_nl_to_f32, kern_iq4_nl_matvec, out, ldo, w, x, ldx, n,
	    T, r0, r1);
}

void
kern_iq4_xs_matvec(float *out, const void *w, const float *x, int n, int r0,
    int r1)
{
	matvec(W_IQ4_XS, conv_iq4_xs_to_f32, out, w, x, n, r0, r1);
}

void
kern_iq4_xs_matmul(float *out, int ldo, const void *w, const float *x, int ldx,
    int n, int T, int r0, int r1)
{
	matmul(W_IQ4_XS, conv_iq4_xs_to_f32, kern_iq4_xs_matvec, out, ldo, w, x, ldx, n,
	    T, r0, r1);
}
