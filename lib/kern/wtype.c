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
	[W_F32]   = { "f32",      1,  4, 0,                W_F32,  from_f32, 0, 0 },
	[W_F16]   = { "f16",      1,  2, 0,                W_F16,  from_f16, 0, 0 },
	[W_BF16]  = { "bf16",     1,  2, 0,                W_BF16, from_bf16, 0, 0 },
	/* 64 weights: two scales, then two blocks of 32 int8 */
	[W_Q8_0]  = { "q8_0",     64, 2 * (4 + 32), CONV_Q8_0_MAXN, W_Q8_0,
		conv_q8_0_quant, 0, 1 },
	[W_BF16A] = { "bf16-act", 1,  2, CONV_BF16ACT_MAXN, W_BF16, from_bf16, 0, 0 },
	/* eight nibbles a word; no row conversion (model_mode.c and llm-quant make it with quant_row) */
	[W_Q4]    = { "q4",       8,  4, 0,                W_Q4,   NULL, 1, 0 },
	[W_GPTQ4] = { "gptq4",    8,  4, 0,                W_GPTQ4, NULL, 1, 0 },
	[W_AWQ4]  = { "awq4",     8,  4, 0,                W_AWQ4, NULL, 1, 0 },
	/* --int8-act: the bytes of Q8_0 and Q4, int8 activations */
	[W_Q8_0I] = { "q8_0+int8", 64, 2 * (4 + 32), CONV_Q8_0_MAXN, W_Q8_0,
		conv_q8_0_quant, 0, 1 },
	[W_Q4I]   = { "q4+int8",  8,  4, 0,                W_Q4,   NULL, 1, 1 },
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
