/* ggml.c: the table of ggml.h (sizes as ggml-common.h's block structs). */
#include "kern/ggml.h"
#include "kern/wtype.h"

static const struct ggml_type_info types[GGML_NTYPES] = {
	[GGML_F32] = { "f32", 1, 4, W_F32 },
	[GGML_F16] = { "f16", 1, 2, W_F16 },
	[GGML_Q4_0] = { "q4_0", 32, 18, W_Q4_0 },
	[GGML_Q4_1] = { "q4_1", 32, 20, W_Q4_1 },
	[GGML_Q5_0] = { "q5_0", 32, 22, W_Q5_0 },
	[GGML_Q5_1] = { "q5_1", 32, 24, W_Q5_1 },
	[GGML_Q8_0] = { "q8_0", 32, 34, W_GQ8_0 },
	[GGML_Q8_1] = { "q8_1", 32, 36, -1 },
	[GGML_Q2_K] = { "q2_K", 256, 84, W_Q2_K },
	[GGML_Q3_K] = { "q3_K", 256, 110, W_Q3_K },
	[GGML_Q4_K] = { "q4_K", 256, 144, W_Q4_K },
	[GGML_Q5_K] = { "q5_K", 256, 176, W_Q5_K },
	[GGML_Q6_K] = { "q6_K", 256, 210, W_Q6_K },
	[GGML_Q8_K] = { "q8_K", 256, 292, -1 },
	[GGML_IQ2_XXS] = { "iq2_xxs", 256, 66, -1 },
	[GGML_IQ2_XS] = { "iq2_xs", 256, 74, -1 },
	[GGML_IQ3_XXS] = { "iq3_xxs", 256, 98, -1 },
	[GGML_IQ1_S] = { "iq1_s", 256, 50, -1 },
	[GGML_IQ4_NL] = { "iq4_nl", 32, 18, W_IQ4_NL },
	[GGML_IQ3_S] = { "iq3_s", 256, 110, -1 },
	[GGML_IQ2_S] = { "iq2_s", 256, 82, -1 },
	[GGML_IQ4_XS] = { "iq4_xs", 256, 136, W_IQ4_XS },
	[GGML_I8] = { "i8", 1, 1, -1 },
	[GGML_I16] = { "i16", 1, 2, -1 },
	[GGML_I32] = { "i32", 1, 4, -1 },
	[GGML_I64] = { "i64", 1, 8, -1 },
	[GGML_F64] = { "f64", 1, 8, -1 },
	[GGML_IQ1_M] = { "iq1_m", 256, 56, -1 },
	[GGML_BF16] = { "bf16", 1, 2, W_BF16 },
	[GGML_TQ1_0] = { "tq1_0", 256, 54, -1 },
	[GGML_TQ2_0] = { "tq2_0", 256, 66, -1 },
	[GGML_MXFP4] = { "mxfp4", 32, 17, -1 },
	[GGML_NVFP4] = { "nvfp4", 64, 36, -1 },
	[GGML_Q1_0] = { "q1_0", 128, 18, -1 },
	[GGML_Q2_0] = { "q2_0", 64, 18, -1 },
};

const struct ggml_type_info *
ggml_type(uint32_t t)
{
	if (t >= GGML_NTYPES || !types[t].name)
		return NULL;
	return &types[t];
}
