/* kern_ggml_avx512.c: the AVX-512 table's kernels of ggml's block
 * types (kern.h): kern_ggml_avx2.c's scheme with the AVX-512 F32 lane
 * discipline (kern_avx512.c: element i in lane i % 16, one FMA per 16
 * in order, the masked tail last, hsum's tree).  The blocks are
 * dequantized by kern_ggml_int.h's code, as on the AVX2 table, whose
 * to_f32 entries this table shares. */
#if defined(__x86_64__)

#include <immintrin.h>
#include <stdint.h>
#include <string.h>

#include "kern/kern.h"
#include "kern/kern_avx512_int.h"
#include "kern/kern_ggml_int.h"

extern const struct kern kern_avx512;

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
	__m512 xv;

	UNROLL
	for (i = 0; i < R; i++) {
		p[i] = (const uint8_t *)w + (size_t)(r + i * rs) * rb;
		o[i].lanes = 16;
		o[i].acc16 = _mm512_setzero_ps();
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
		for (k = 0; k + 16 <= m; k += 16) {
			xv = _mm512_loadu_ps(x + k0 + k);
			UNROLL
			for (i = 0; i < R; i++)
				o[i].acc16 = _mm512_fmadd_ps(_mm512_loadu_ps(wb + i * 256 + k), xv,
				    o[i].acc16);
		}
		if (k < m) {
			__mmask16 mk = (__mmask16)((1u << (m - k)) - 1);

			xv = _mm512_maskz_loadu_ps(mk, x + k0 + k);
			UNROLL
			for (i = 0; i < R; i++)
				o[i].acc16 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(mk,
				    wb + i * 256 + k), xv, o[i].acc16);
		}
	}
	UNROLL
	for (i = 0; i < R; i++)
		out[r + i * rs] = hsum(o[i].acc16);
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

void
kern_gq8_0_avx512_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	matvec(W_GQ8_0, out, w, x, n, r0, r1);
}

void
kern_gq8_0_avx512_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	kern_ggml_panels(W_GQ8_0, out, ldo, w, x, ldx, n, T, r0, r1,
	    kern_gq8_0_avx2_to_f32, kern_avx512.matmul[W_F32], kern_gq8_0_avx512_matvec);
}

void
kern_q4_0_avx512_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	matvec(W_Q4_0, out, w, x, n, r0, r1);
}

void
kern_q4_0_avx512_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	kern_ggml_panels(W_Q4_0, out, ldo, w, x, ldx, n, T, r0, r1,
	    kern_q4_0_avx2_to_f32, kern_avx512.matmul[W_F32], kern_q4_0_avx512_matvec);
}

void
kern_q4_1_avx512_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	matvec(W_Q4_1, out, w, x, n, r0, r1);
}

void
kern_q4_1_avx512_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	kern_ggml_panels(W_Q4_1, out, ldo, w, x, ldx, n, T, r0, r1,
	    conv_q4_1_to_f32, kern_avx512.matmul[W_F32], kern_q4_1_avx512_matvec);
}

void
kern_q5_0_avx512_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	matvec(W_Q5_0, out, w, x, n, r0, r1);
}

void
kern_q5_0_avx512_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	kern_ggml_panels(W_Q5_0, out, ldo, w, x, ldx, n, T, r0, r1,
	    kern_q5_0_avx2_to_f32, kern_avx512.matmul[W_F32], kern_q5_0_avx512_matvec);
}

void
kern_q5_1_avx512_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	matvec(W_Q5_1, out, w, x, n, r0, r1);
}

void
kern_q5_1_avx512_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	kern_ggml_panels(W_Q5_1, out, ldo, w, x, ldx, n, T, r0, r1,
	    conv_q5_1_to_f32, kern_avx512.matmul[W_F32], kern_q5_1_avx512_matvec);
}

void
kern_q2_k_avx512_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	matvec(W_Q2_K, out, w, x, n, r0, r1);
}

void
kern_q2_k_avx512_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	kern_ggml_panels(W_Q2_K, out, ldo, w, x, ldx, n, T, r0, r1,
	    conv_q2_k_to_f32, kern_avx512.matmul[W_F32], kern_q2_k_avx512_matvec);
}

void
kern_q3_k_avx512_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	matvec(W_Q3_K, out, w, x, n, r0, r1);
}

void
kern_q3_k_avx512_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	kern_ggml_panels(W_Q3_K, out, ldo, w, x, ldx, n, T, r0, r1,
	    conv_q3_k_to_f32, kern_avx512.matmul[W_F32], kern_q3_k_avx512_matvec);
}

void
kern_q4_k_avx512_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	matvec(W_Q4_K, out, w, x, n, r0, r1);
}

void
kern_q4_k_avx512_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	kern_ggml_panels(W_Q4_K, out, ldo, w, x, ldx, n, T, r0, r1,
	    kern_q4_k_avx2_to_f32, kern_avx512.matmul[W_F32], kern_q4_k_avx512_matvec);
}

void
kern_q5_k_avx512_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	matvec(W_Q5_K, out, w, x, n, r0, r1);
}

void
kern_q5_k_avx512_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	kern_ggml_panels(W_Q5_K, out, ldo, w, x, ldx, n, T, r0, r1,
	    conv_q5_k_to_f32, kern_avx512.matmul[W_F32], kern_q5_k_avx512_matvec);
}

void
kern_q6_k_avx512_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	matvec(W_Q6_K, out, w, x, n, r0, r1);
}

void
kern_q6_k_avx512_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	kern_ggml_panels(W_Q6_K, out, ldo, w, x, ldx, n, T, r0, r1,
	    kern_q6_k_avx2_to_f32, kern_avx512.matmul[W_F32], kern_q6_k_avx512_matvec);
}

void
kern_iq4_nl_avx512_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	matvec(W_IQ4_NL, out, w, x, n, r0, r1);
}

void
kern_iq4_nl_avx512_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	kern_ggml_panels(W_IQ4_NL, out, ldo, w, x, ldx, n, T, r0, r1,
	    conv_iq4_nl_to_f32, kern_avx512.matmul[W_F32], kern_iq4_nl_avx512_matvec);
}

void
kern_iq4_xs_avx512_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	matvec(W_IQ4_XS, out, w, x, n, r0, r1);
}

void
kern_iq4_xs_avx512_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	kern_ggml_panels(W_IQ4_XS, out, ldo, w, x, ldx, n, T, r0, r1,
	    conv_iq4_xs_to_f32, kern_avx512.matmul[W_F32], kern_iq4_xs_avx512_matvec);
}

#endif
