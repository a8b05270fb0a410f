/* kern.h: numeric kernels with runtime CPU dispatch.
 *
 * One table of function pointers (struct kern) holds the hot kernels;
 * kern_init() fills it once, in main before any thread starts, with the
 * portable C table or an ISA one (lib/kern_avx2.c, lib/kern_avx512.c).
 * All entries compute in float32; BF16/F16 weights are widened exactly.
 *
 * Every output element is computed by the same sequence of float
 * operations whatever the row range [r0, r1), the token count T or the
 * place of the row in an unrolled group, so a matrix split over threads
 * gives bit-identical results to one call over all rows. */
#ifndef KERN_H
#define KERN_H

#include <stddef.h>
#include <stdint.h>

/* Weight storage types (safetensors F32, F16, BF16). */
enum wtype { W_F32, W_F16, W_BF16, W_NTYPES };

struct kern {
	const char *name;	/* "portable", "avx2", "avx512" */
	/* out[r] = dot(W[r, 0..n), x) for r in [r0, r1); W is row-major,
	 * rows x n, of the entry's wtype; x has n floats. */
	void (*matvec[W_NTYPES])(float *out, const void *w, const float *x,
	    int n, int r0, int r1);
	/* out[t*ldo + r] = dot(W[r, 0..n), x + t*ldx) for t in [0, T) and
	 * r in [r0, r1): the prefill path, reusing each loaded weight row
	 * across tokens.  out[t*ldo + r] equals what matvec gives for the
	 * same row and x + t*ldx, bit for bit. */
	void (*matmul[W_NTYPES])(float *out, int ldo, const void *w,
	    const float *x, int ldx, int n, int T, int r0, int r1);
	/* Sum of a[i]*b[i], i < n. */
	float (*dot)(const float *a, const float *b, int n);
	/* y += a x over n floats. */
	void (*axpy)(float *y, float a, const float *x, int n);
	/* o = x / sqrt(mean(x^2) + eps) * w (HF LlamaRMSNorm, float32);
	 * o may equal x. */
	void (*rmsnorm)(float *o, const float *x, const float *w, int n,
	    float eps);
	/* Widen n weights of the entry's wtype to float32. */
	void (*to_f32[W_NTYPES])(float *out, const void *w, size_t n);
};

extern struct kern kern;		/* the table in use; portable until kern_init */
extern const struct kern kern_portable;	/* always available */

/* Fill `kern` with the best table the CPU has, or the one named by want
 * ("portable", "avx2", "avx512"; NULL or "" = best).  Returns 0, or -1
 * after error() if want names an unknown table or one this CPU cannot
 * run (the table is then left portable).  Call once in main before
 * threads start. */
int kern_init(const char *want);

/* Softmax of x[0..n) in place, max-subtracted; n >= 1. */
void kern_softmax(float *x, int n);
/* h[i] = silu(gate[i]) * up[i], silu(g) = g / (1 + exp(-g)); h may
 * equal gate or up. */
void kern_swiglu(float *h, const float *gate, const float *up, int n);
/* RoPE, HF rotate-half convention, in place on nh heads of hd floats
 * each (hd even): for j < hd/2 the pair (x[j], x[j + hd/2]) becomes
 * (x[j] cos[j] - x[j+hd/2] sin[j], x[j+hd/2] cos[j] + x[j] sin[j]);
 * cos and sin hold hd/2 values for this position. */
void kern_rope(float *x, int nh, int hd, const float *cos, const float *sin);

/* Exact widening of one bfloat16 / IEEE half. */
float kern_bf16_to_f32(uint16_t h);
float kern_f16_to_f32(uint16_t h);
/* Narrowing, round to nearest even; NaN stays NaN (quiet), overflow
 * goes to inf, f16 produces subnormals. */
uint16_t kern_f32_to_bf16(float f);
uint16_t kern_f32_to_f16(float f);

#endif
