/* kern_ggml_avx2.c: the AVX2 table's kernels of ggml's block types
 * (kern.h).  Decode: VS rows side by side, each row's weights
 * multiplied by the activations as they are dequantized
 * (kern_ggml_int.h), with the AVX2 F32 lane discipline (kern_avx2.c): element
 * i in lane i % 8, one FMA per 8 in order, the zero-padded tail last,
 * hsum's tree; so a row gives the AVX2 F32 matvec of its dequantized
 * weights, bit for bit.  Prefill: panels of dequantized rows through
 * the AVX2 F32 matmul (kern_ggml_panels), the same bits. */
#if defined(__x86_64__)

#include <immintrin.h>
#include <stdint.h>
#include <string.h>

#include "kern/kern.h"
#include "kern/kern_avx2_int.h"
#include "kern/kern_ggml_int.h"

extern const struct kern kern_avx2;

#ifndef VS
#define VS 4	/* rows of a decode matvec read side by side */
#endif

/* out[r + i*rs] = dot(W[r + i*rs], x) for i < R (a constant after
 * inlining). */
INLINE void
vblock(enum wtype t, int R, float *out, const void *w, const float *x,
    int n, int r, int rs)
{
	_Alignas(64) float wb[VS * 256];
	int bs = wtypes[t].block, by = wtypes[t].bytes, k0, k, m, i;
	size_t rb = wtype_rowsize(t, n);
	const uint8_t *p[VS];
	struct gout o[VS], st = { .lanes = 0 };
	__m256 xv;

	UNROLL
	for (i = 0; i < R; i++) {
		p[i] = (const uint8_t *)w + (size_t)(r + i * rs) * rb;
		o[i].lanes = 8;
		o[i].acc8 = _mm256_setzero_ps();
	}
	/* whole blocks: each weight into its FMA as it is made */
	for (k0 = 0; k0 + bs <= n; k0 += bs) {
		UNROLL
		for (i = 0; i < R; i++) {
			o[i].x = x + k0;
			gdeq(t, &o[i], p[i]);
			p[i] += by;
		}
	}
	/* a partial last block (rows that are not whole blocks: not in
	 * GGUF files): through a buffer, the tail zero-padded */
	if (k0 < n) {
		m = n - k0;
		UNROLL
		for (i = 0; i < R; i++) {
			st.y = wb + i * 256;
			gdeq(t, &st, p[i]);
		}
		for (k = 0; k + 8 <= m; k += 8) {
			xv = _mm256_loadu_ps(x + k0 + k);
			UNROLL
			for (i = 0; i < R; i++)
				o[i].acc8 = _mm256_fmadd_ps(_mm256_loadu_ps(wb + i * 256 + k), xv,
				    o[i].acc8);
		}
		if (k < m) {
			xv = xloadm(x + k0 + k, m - k);
			UNROLL
			for (i = 0; i < R; i++)
				o[i].acc8 = _mm256_fmadd_ps(xloadm(wb + i * 256 + k,
				    m - k), xv, o[i].acc8);
		}
	}
	UNROLL
	for (i = 0; i < R; i++)
		out[r + i * rs] = hsum(o[i].acc8);
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

/* ---- the entries ---- */

void
kern_gq8_0_avx2_to_f32(float *out, const void *w, size_t n)
{
	gtof32(W_GQ8_0, out, w, n);
}

void
kern_q4_0_avx2_to_f32(float *out, const void *w, size_t n)
{
	gtof32(W_Q4_0, out, w, n);
}

void
kern_q5_0_avx2_to_f32(float *out, const void *w, size_t n)
{
	gtof32(W_Q5_0, out, w, n);
}

void
kern_q4_k_avx2_to_f32(float *out, const void *w, size_t n)
{
	gtof32(W_Q4_K, out, w, n);
}

void
kern_q6_k_avx2_to_f32(float *out, const void *w, size_t n)
{
	gtof32(W_Q6_K, out, w, n);
}

void
kern_gq8_0_avx2_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	matvec(W_GQ8_0, out, w, x, n, r0, r1);
}

void
kern_gq8_0_avx2_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	kern_ggml_panels(W_GQ8_0, out, ldo, w, x, ldx, n, T, r0, r1,
	    kern_gq8_0_avx2_to_f32, kern_avx2.matmul[W_F32], kern_gq8_0_avx2_matvec);
}

void
kern_q4_0_avx2_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	matvec(W_Q4_0, out, w, x, n, r0, r1);
}

void
kern_q4_0_avx2_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	kern_ggml_panels(W_Q4_0, out, ldo, w, x, ldx, n, T, r0, r1,
	    kern_q4_0_avx2_to_f32, kern_avx2.matmul[W_F32], kern_q4_0_avx2_matvec);
}

void
kern_q4_1_avx2_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	matvec(W_Q4_1, out, w, x, n, r0, r1);
}

void
kern_q4_1_avx2_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	kern_ggml_panels(W_Q4_1, out, ldo, w, x, ldx, n, T, r0, r1,
	    conv_q4_1_to_f32, kern_avx2.matmul[W_F32], kern_q4_1_avx2_matvec);
}

void
kern_q5_0_avx2_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	matvec(W_Q5_0, out, w, x, n, r0, r1);
}

void
kern_q5_0_avx2_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	kern_ggml_panels(W_Q5_0, out, ldo, w, x, ldx, n, T, r0, r1,
	    kern_q5_0_avx2_to_f32, kern_avx2.matmul[W_F32], kern_q5_0_avx2_matvec);
}

void
kern_q5_1_avx2_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	matvec(W_Q5_1, out, w, x, n, r0, r1);
}

void
kern_q5_1_avx2_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	kern_ggml_panels(W_Q5_1, out, ldo, w, x, ldx, n, T, r0, r1,
	    conv_q5_1_to_f32, kern_avx2.matmul[W_F32], kern_q5_1_avx2_matvec);
}

void
kern_q2_k_avx2_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	matvec(W_Q2_K, out, w, x, n, r0, r1);
}

void
kern_q2_k_avx2_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	kern_ggml_panels(W_Q2_K, out, ldo, w, x, ldx, n, T, r0, r1,
	    conv_q2_k_to_f32, kern_avx2.matmul[W_F32], kern_q2_k_avx2_matvec);
}

void
kern_q3_k_avx2_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	matvec(W_Q3_K, out, w, x, n, r0, r1);
}

void
kern_q3_k_avx2_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	kern_ggml_panels(W_Q3_K, out, ldo, w, x, ldx, n, T, r0, r1,
	    conv_q3_k_to_f32, kern_avx2.matmul[W_F32], kern_q3_k_avx2_matvec);
}

void
kern_q4_k_avx2_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	matvec(W_Q4_K, out, w, x, n, r0, r1);
}

void
kern_q4_k_avx2_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	kern_ggml_panels(W_Q4_K, out, ldo, w, x, ldx, n, T, r0, r1,
	    kern_q4_k_avx2_to_f32, kern_avx2.matmul[W_F32], kern_q4_k_avx2_matvec);
}

void
kern_q5_k_avx2_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	matvec(W_Q5_K, out, w, x, n, r0, r1);
}

void
kern_q5_k_avx2_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	kern_ggml_panels(W_Q5_K, out, ldo, w, x, ldx, n, T, r0, r1,
	    conv_q5_k_to_f32, kern_avx2.matmul[W_F32], kern_q5_k_avx2_matvec);
}

void
kern_q6_k_avx2_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	matvec(W_Q6_K, out, w, x, n, r0, r1);
}

void
kern_q6_k_avx2_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	kern_ggml_panels(W_Q6_K, out, ldo, w, x, ldx, n, T, r0, r1,
	    kern_q6_k_avx2_to_f32, kern_avx2.matmul[W_F32], kern_q6_k_avx2_matvec);
}

void
kern_iq4_nl_avx2_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	matvec(W_IQ4_NL, out, w, x, n, r0, r1);
}

void
kern_iq4_nl_avx2_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	kern_ggml_panels(W_IQ4_NL, out, ldo, w, x, ldx, n, T, r0, r1,
	    conv_iq4_nl_to_f32, kern_avx2.matmul[W_F32], kern_iq4_nl_avx2_matvec);
}

void
kern_iq4_xs_avx2_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	matvec(W_IQ4_XS, out, w, x, n, r0, r1);
}

void
kern_iq4_xs_avx2_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	kern_ggml_panels(W_IQ4_XS, out, ldo, w, x, ldx, n, T, r0, r1,
	    conv_iq4_xs_to_f32, kern_avx2.matmul[W_F32], kern_iq4_xs_avx2_matvec);
}

#endif
