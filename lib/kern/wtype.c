/* wtype.c: the weight-type table. */
#include <stdint.h>
#include <string.h>

#include "kern/conv.h"
#include "kern/wtype.h"

static void
from_f32(void *dst, const float *x, int n)
{
	memcpy(dst, x, (size_t)n * sizeof(float));
}

static void
from_f16(void *dst, const float *x, int n)
{
	int i;

	for (i = 0; i < n; i++)
		((uint16_t *)dst)[i] = conv_f32_to_f16(x[i]);
}

static void
from_bf16(void *dst, const float *x, int n)
{
	int i;

	for (i = 0; i < n; i++)
		((uint16_t *)dst)[i] = conv_f32_to_bf16(x[i]);
}

const struct wtype_info wtypes[W_NTYPES] = {
	[W_F32]   = { "f32",      1,  4, 0,                W_F32,  from_f32, 0, 0, 0 },
	[W_F16]   = { "f16",      1,  2, 0,                W_F16,  from_f16, 0, 0, 0 },
	[W_BF16]  = { "bf16",     1,  2, 0,                W_BF16, from_bf16, 0, 0, 0 },
	/* 64 weights: two scales, then two blocks of 32 int8 */
	[W_Q8_0]  = { "q8_0",     64, 2 * (4 + 32), CONV_Q8_0_MAXN, W_Q8_0,
		conv_q8_0_quant, 0, 1, 0 },
	[W_BF16A] = { "bf16-act", 1,  2, CONV_BF16ACT_MAXN, W_BF16, from_bf16, 0, 1, 0 },
	/* eight nibbles a word; no row conversion (model_mode.c and llm-quant make it with quant_row) */
	[W_Q4]    = { "q4",       8,  4, 0,                W_Q4,   NULL, 1, 0, 1 },
	[W_GPTQ4] = { "gptq4",    8,  4, 0,                W_GPTQ4, NULL, 1, 0, 0 },
	[W_AWQ4]  = { "awq4",     8,  4, 0,                W_AWQ4, NULL, 1, 0, 0 },
	/* --int8-act: the bytes of Q8_0 and Q4, int8 activations */
	[W_Q8_0I] = { "q8_0+int8", 64, 2 * (4 + 32), CONV_Q8_0_MAXN, W_Q8_0,
		conv_q8_0_quant, 0, 1, 0 },
	[W_Q4I]   = { "q4+int8",  8,  4, 0,                W_Q4,   NULL, 1, 1, 0 },
	/* ggml's blocks (ggml-common.h) */
	[W_GQ8_0]  = { "q8_0-ggml", 32,  34, 0, W_GQ8_0,  conv_gq8_0_quant, 0, 0, 1 },
	[W_Q4_0]   = { "q4_0",      32,  18, 0, W_Q4_0,   conv_q4_0_quant, 0, 0, 1 },
	[W_Q4_1]   = { "q4_1",      32,  20, 0, W_Q4_1,   conv_q4_1_quant, 0, 0, 1 },
	[W_Q5_0]   = { "q5_0",      32,  22, 0, W_Q5_0,   conv_q5_0_quant, 0, 0, 1 },
	[W_Q5_1]   = { "q5_1",      32,  24, 0, W_Q5_1,   conv_q5_1_quant, 0, 0, 1 },
	[W_Q2_K]   = { "q2_K",      256, 84, 0, W_Q2_K,   conv_q2_k_quant, 0, 0, 1 },
	[W_Q3_K]   = { "q3_K",      256, 110, 0, W_Q3_K,  conv_q3_k_quant, 0, 0, 0 },
	[W_Q4_K]   = { "q4_K",      256, 144, 0, W_Q4_K,  conv_q4_k_quant, 0, 0, 1 },
	[W_Q5_K]   = { "q5_K",      256, 176, 0, W_Q5_K,  conv_q5_k_quant, 0, 0, 1 },
	[W_Q6_K]   = { "q6_K",      256, 210, 0, W_Q6_K,  conv_q6_k_quant, 0, 0, 1 },
	[W_IQ4_NL] = { "iq4_nl",    32,  18, 0, W_IQ4_NL, conv_iq4_nl_quant, 0, 0, 0 },
	[W_IQ4_XS] = { "iq4_xs",    256, 136, 0, W_IQ4_XS, conv_iq4_xs_quant, 0, 0, 0 },
	/* --int8-act on ggml's blocks (kern.h): their matmul quantizes
	 * all its tokens first */
	[W_GQ8_0I] = { "q8_0-ggml+int8", 32, 34, CONV_Q8_0_MAXN, W_GQ8_0,
		conv_gq8_0_quant, 0, 1, 0 },
	[W_Q4_0I] = { "q4_0+int8", 32,  18, CONV_Q8_0_MAXN, W_Q4_0,
		conv_q4_0_quant, 0, 1, 0 },
	[W_Q5_0I] = { "q5_0+int8", 32,  22, CONV_Q8_0_MAXN, W_Q5_0,
		conv_q5_0_quant, 0, 1, 0 },
	[W_Q4_KI] = { "q4_K+int8", 256, 144, CONV_Q8_0_MAXN, W_Q4_K,
		conv_q4_k_quant, 0, 1, 0 },
	[W_Q6_KI] = { "q6_K+int8", 256, 210, CONV_Q8_0_MAXN, W_Q6_K,
		conv_q6_k_quant, 0, 1, 0 },
	/* W_Q8_0I / W_GQ8_0I and W_Q4_0I packed at load (kern.h): a row's
	 * share of a group's block, its 32 bytes and float32 scale (Q8_0)
	 * or its 16 bytes and F16 scale (Q4_0); no row converter, groups
	 * of 16 rows */
	[W_Q8X16] = { "q8_0x16+int8", 32, 36, CONV_Q8_0_MAXN, W_Q8X16,
		NULL, 0, 1, 0 },
	[W_Q4X16] = { "q4_0x16+int8", 32, 18, CONV_Q8_0_MAXN, W_Q4X16,
		NULL, 0, 1, 0 },
	/* W_Q4_KI and W_Q6_KI packed at load, the same way */
	[W_Q4KX16] = { "q4_Kx16+int8", 256, 144, CONV_Q8_0_MAXN, W_Q4KX16,
		NULL, 0, 1, 0 },
	[W_Q6KX16] = { "q6_Kx16+int8", 256, 210, CONV_Q8_0_MAXN, W_Q6KX16,
		NULL, 0, 1, 0 },
};

int
wtype_parse(const char *name)
{
	int t;

	for (t = 0; t < W_NTYPES; t++)
		if (!strcmp(wtypes[t].name, name))
			return t;
	return -1;
}
