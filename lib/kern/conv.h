/* conv.h: the scalar conversions of the weight types, under the table
 * (wtype.h) and the kernels (kern.h), as ggml's type traits sit under
 * its backends: float32 to and from bfloat16 and IEEE half, and rows
 * and activations to and from Q8_0's blocks. */
#ifndef CONV_H
#define CONV_H

#include <stddef.h>
#include <stdint.h>

/* Exact widening of one bfloat16 / IEEE half. */
float conv_bf16_to_f32(uint16_t h);
float conv_f16_to_f32(uint16_t h);
/* Narrowing, round to nearest even; NaN stays NaN (quiet), overflow
 * goes to inf, f16 produces subnormals. */
uint16_t conv_f32_to_bf16(float f);
uint16_t conv_f32_to_f16(float f);

/* Blocks of 32 in a Q8_0 row of n weights (an even number). */
#define CONV_Q8_0_NB(n) (((size_t)(n) + 63) / 64 * 2)
/* Bytes of one Q8_0 row of n weights. */
size_t conv_q8_0_rowsize(int n);
/* Quantize x[0..n) into one Q8_0 row at dst (conv_q8_0_rowsize(n)
 * bytes): per block of 32, d = max|x| / 127, q = nearest-even(x / d)
 * computed as x * (1 / d), clamped to [-127, 127]; NaN gives 0. */
void conv_q8_0_quant(void *dst, const float *x, int n);
/* Bytes of n activations quantized for the Q8_0 kernels. */
size_t conv_q8_0_xsize(int n);
/* Quantize activations x[0..n) at dst (conv_q8_0_xsize(n) bytes): nb
 * float32 block scales d = max|x| / 32767, then nb blocks of 32 int16
 * q = nearest-even(x / d) computed as x * (1 / d), clamped to
 * [-32767, 32767]; NaN gives 0, padding is zero.  A block's products
 * with int8 weights sum exactly in int32 (32 * 127 * 32767 < 2^31), and
 * so does any four of them in float32 (< 2^24). */
void conv_q8_0_quant_x(void *dst, const float *x, int n);
/* Longest row the Q8_0 kernels take (a multiple of 64). */
#define CONV_Q8_0_MAXN 16384
/* conv_q8_0_xsize(CONV_Q8_0_MAXN) as a constant, for buffers: a float
 * scale and 32 int16 a block. */
#define CONV_Q8_0_XMAX (CONV_Q8_0_NB(CONV_Q8_0_MAXN) * (4 + 64))

/* Longest row (weights) the bf16-act kernels take. */
#define CONV_BF16ACT_MAXN 16384	/* a multiple of 32 */


/* ggml's block types, as GGUF files hold them (ggml-common.h's block
 * structs; lib/kern/conv_ggml.c): gq8_0 is ggml's Q8_0 (an F16 scale,
 * 32 int8), unlike pipelm's own Q8_0 above; q2_k .. q6_k are ggml's
 * Q2_K .. Q6_K (superblocks of 256).  X_to_f32 widens n weights (whole
 * blocks, then the first weights of a partial one) exactly as ggml's
 * dequantize_row_X computes them; X_quant writes one row of n floats
 * (a partial last block padded with zeros, a non-finite value taken as
 * 0) with the scales ggml's reference quantizer chooses
 * (quantize_row_X_ref; IQ4_NL and IQ4_XS as quantize_iq4_nl and
 * quantize_iq4_xs without an importance matrix, as llama-quantize). */
void conv_gq8_0_to_f32(float *out, const void *w, size_t n);
void conv_q4_0_to_f32(float *out, const void *w, size_t n);
void conv_q4_1_to_f32(float *out, const void *w, size_t n);
void conv_q5_0_to_f32(float *out, const void *w, size_t n);
void conv_q5_1_to_f32(float *out, const void *w, size_t n);
void conv_q2_k_to_f32(float *out, const void *w, size_t n);
void conv_q3_k_to_f32(float *out, const void *w, size_t n);
void conv_q4_k_to_f32(float *out, const void *w, size_t n);
void conv_q5_k_to_f32(float *out, const void *w, size_t n);
void conv_q6_k_to_f32(float *out, const void *w, size_t n);
void conv_iq4_nl_to_f32(float *out, const void *w, size_t n);
void conv_iq4_xs_to_f32(float *out, const void *w, size_t n);
void conv_gq8_0_quant(void *dst, const float *x, int n);
void conv_q4_0_quant(void *dst, const float *x, int n);
void conv_q4_1_quant(void *dst, const float *x, int n);
void conv_q5_0_quant(void *dst, const float *x, int n);
void conv_q5_1_quant(void *dst, const float *x, int n);
void conv_q2_k_quant(void *dst, const float *x, int n);
void conv_q3_k_quant(void *dst, const float *x, int n);
void conv_q4_k_quant(void *dst, const float *x, int n);
void conv_q5_k_quant(void *dst, const float *x, int n);
void conv_q6_k_quant(void *dst, const float *x, int n);
void conv_iq4_nl_quant(void *dst, const float *x, int n);
void conv_iq4_xs_quant(void *dst, const float *x, int n);

#endif
