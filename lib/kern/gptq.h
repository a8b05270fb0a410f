/* gptq.h: GPTQ and AWQ int4 checkpoints read in place (W_GPTQ4,
 * W_AWQ4): their quantization_config (taken, or refused by name), their
 * weight source (lib/wsrc/wsrc_gptq.c) and the kernels' matrix (lib/kern_gptq*.c).
 *
 * GPTQ (AutoGPTQ's qlinear pack, GPTQModel): a Linear NAME of out x in is
 * NAME.qweight (I32 [in / 8, out]: input i of output o at bits 4 (i % 8)
 * of word (i / 8, o)), NAME.qzeros (I32 [groups, ceil(out / 8)]: output
 * o's zero point at bits 4 (o % 8) of word (g, o / 8); checkpoint_format
 * "gptq", v1, stores it minus one, "gptq_v2" as it is), NAME.scales
 * ([groups, out], F16, BF16 or F32), NAME.g_idx (I32 [in], i / group_size
 * without act-order; optional) and maybe NAME.bias.  AWQ (AutoAWQ's GEMM
 * pack): NAME.qweight is I32 [in, out / 8], output 8c + k of input i in
 * word (i, c) at bits 4 p where k is the p-th of 0 2 4 6 1 3 5 7, the
 * zero points of NAME.qzeros ([groups, out / 8]) interleaved the same and
 * stored as they are, NAME.scales [groups, out] F16.  Either way weight
 * (o, i) = (q - z) * scale[g][o], g = i / group.
 *
 * The packed words run along the input for GPTQ, with the outputs
 * contiguous, so the kernels keep one sum an output: output o's dot
 * product is, for each block of up to 128 inputs inside one group (in
 * order), two partial sums of (q - z) x[i] over its even and its odd
 * inputs (one float multiply-add an input, in order), then out = out +
 * (a0 + a1) * scale (a fused multiply-add in the vector tables).
 * That is the float32 dot product of the dequantized row to float32
 * rounding (q - z and its product with an F16 or BF16 scale are exact),
 * and the same operations for o whatever the output range [r0, r1) or
 * the token count: the results do not depend on --threads, and matmul
 * equals matvec bit for bit. */
#ifndef GPTQ_H
#define GPTQ_H

#include <stdint.h>

#include "kern/wtype.h"

struct kern_gptq {
	const uint32_t *q;	/* qweight, in place */
	const uint32_t *z;	/* qzeros: ng x zw words */
	const void *s;		/* scales: ng x rows of type st */
	enum wtype st;		/* W_F32, W_F16 or W_BF16 */
	int rows;		/* outputs (out_features) */
	int group;		/* inputs per scale: a multiple of 8 */
	int ng;			/* groups: ceil(cols / group) */
	int zw;			/* words a qzeros row: ceil(rows / 8) */
	int zoff;		/* added to a stored zero point: 1 for GPTQ v1 */
	int blk;		/* inputs per partial sum: divides group, <= 128
				 * unless group is not a multiple of 128 */
};

/* AWQ's nibble of output offset k (0..7) in its word. */
extern const unsigned char gptq_awq_pos[8];

/* Zero point of output o in group g (the stored value plus zoff). */
int kern_gptq_zero(const struct kern_gptq *m, int awq, int g, int o);
/* Scale of output o in group g, widened. */
float kern_gptq_scale(const struct kern_gptq *m, int g, int o);

/* The entries (kern.h's signatures; w: a struct kern_gptq). */
void kern_gptq_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1);
void kern_gptq_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1);
void kern_awq_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1);
void kern_awq_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1);
void kern_gptq_avx2_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1);
void kern_gptq_avx2_matmul(float *out, int ldo, const void *w,
    const float *x, int ldx, int n, int T, int r0, int r1);
void kern_awq_avx2_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1);
void kern_awq_avx2_matmul(float *out, int ldo, const void *w,
    const float *x, int ldx, int n, int T, int r0, int r1);
void kern_gptq_avx512_matvec(float *out, const void *w, const float *x,
    int n, int r0, int r1);
void kern_gptq_avx512_matmul(float *out, int ldo, const void *w,
    const float *x, int ldx, int n, int T, int r0, int r1);
void kern_awq_avx512_matvec(float *out, const void *w, const float *x,
    int n, int r0, int r1);
void kern_awq_avx512_matmul(float *out, int ldo, const void *w,
    const float *x, int ldx, int n, int T, int r0, int r1);

#endif
