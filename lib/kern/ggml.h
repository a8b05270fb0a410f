/* ggml.h: ggml's tensor types as GGUF files number them (ggml.h's enum
 * ggml_type), with the size of their blocks, and the weight type
 * (wtype.h) that reads each one in place, where pipelm has it.
 *
 * A GGUF tensor of n elements of type t holds n / block blocks of
 * `bytes` bytes; the container reader sizes every tensor from this
 * table, those it cannot run too (st-inspect lists them). */
#ifndef GGML_H
#define GGML_H

#include <stddef.h>
#include <stdint.h>

enum {
	GGML_F32 = 0, GGML_F16 = 1, GGML_Q4_0 = 2, GGML_Q4_1 = 3,
	GGML_Q5_0 = 6, GGML_Q5_1 = 7, GGML_Q8_0 = 8, GGML_Q8_1 = 9,
	GGML_Q2_K = 10, GGML_Q3_K = 11, GGML_Q4_K = 12, GGML_Q5_K = 13,
	GGML_Q6_K = 14, GGML_Q8_K = 15, GGML_IQ2_XXS = 16, GGML_IQ2_XS = 17,
	GGML_IQ3_XXS = 18, GGML_IQ1_S = 19, GGML_IQ4_NL = 20, GGML_IQ3_S = 21,
	GGML_IQ2_S = 22, GGML_IQ4_XS = 23, GGML_I8 = 24, GGML_I16 = 25,
	GGML_I32 = 26, GGML_I64 = 27, GGML_F64 = 28, GGML_IQ1_M = 29,
	GGML_BF16 = 30, GGML_TQ1_0 = 34, GGML_TQ2_0 = 35, GGML_MXFP4 = 39,
	GGML_NVFP4 = 40, GGML_Q1_0 = 41, GGML_Q2_0 = 42,
	GGML_NTYPES = 43
};

struct ggml_type_info {
	const char *name;	/* as ggml spells it: "q4_K", "bf16"; NULL:
				 * a number ggml retired or never used */
	int block;		/* elements per block */
	int bytes;		/* bytes per block */
	int wtype;		/* enum wtype reading it in place, or -1 */
};

/* The row of type t, or NULL for a number no ggml type has. */
const struct ggml_type_info *ggml_type(uint32_t t);

#endif
