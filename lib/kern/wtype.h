/* wtype.h: the weight types, one table.
 *
 * A matrix row of n weights of type t is ceil(n / block) blocks of
 * `bytes` bytes each (wtype_rowsize); everything that sizes, converts
 * or dispatches on a weight type reads it here, and the kernels have
 * one entry per type (kern.matvec[t], kern.matmul[t], kern.to_f32[t]).
 * A new format is a row in this table, its kernels in kern*.c and, if
 * its tensors are not one per matrix, a weight source (wsrc.h). */
#ifndef WTYPE_H
#define WTYPE_H

#include <stddef.h>

/* F32, F16, BF16: safetensors dtypes, used in place.  Q8_0 (made at
 * load by --quant q8_0): a row of n weights is nb = 2 * ceil(n / 64)
 * float32 block scales d, then nb blocks of 32 int8 q, weight
 * 32b+i = d[b] * q[32b+i]; padding blocks are zero (kern.h).  BF16A
 * (--bf16-act): BF16 bytes whose products round the activations to
 * bfloat16 too (vdpbf16ps); only tables with AVX512-BF16 have its
 * kernels. */
enum wtype { W_F32, W_F16, W_BF16, W_Q8_0, W_BF16A, W_Q4, W_GPTQ4, W_AWQ4,
    W_Q8_0I, W_Q4I,	/* --int8-act: Q8_0's and Q4's bytes, int8 activations */
    W_GQ8_0, W_Q4_0, W_Q4_1, W_Q5_0, W_Q5_1, W_Q2_K, W_Q3_K, W_Q4_K, W_Q5_K,
    W_Q6_K, W_IQ4_NL, W_IQ4_XS,
    /* --int8-act on ggml's blocks: their bytes, int8 activations */
    W_GQ8_0I, W_Q4_0I, W_Q5_0I, W_Q4_KI, W_Q6_KI,
    /* --int8-act's blocks packed at load, 16 rows interleaved */
    W_Q8X16, W_Q4X16, W_Q4KX16, W_Q6KX16,
    W_NTYPES };
/* W_GQ8_0 .. W_IQ4_XS: ggml's block types (GGML Q8_0, Q4_0, ..., IQ4_XS;
 * lib/kern/ggml.h numbers them), read in place from a GGUF file: rows
 * of whole blocks as ggml-common.h lays them out, dequantized as ggml
 * does (conv.h).  Their kernels multiply the dequantized weights by
 * float32 activations (kern.h). */
/* W_Q4: 4-bit weights in groups with separate scales (and zero points),
 * compressed-tensors' pack-quantized layout, read in place from the file
 * or from --quant q4's private copy.  Its matrix is not rows of blocks:
 * struct mat's w points to a struct kern_q4 (kern.h) naming the tensors;
 * block and bytes below count only the packed words.  W_GPTQ4, W_AWQ4:
 * GPTQ and AWQ int4 checkpoints read in place, struct mat's w a struct
 * kern_gptq (gptq.h), the same way.  W_Q8_0I, W_Q4I (--int8-act):
 * W_Q8_0's and W_Q4's bytes whose products take the activations in int8
 * per block of 32 (kern.h's "--int8-act").  W_Q8X16, W_Q4X16: the
 * blocks of 32 of W_Q8_0I / W_GQ8_0I and of W_Q4_0I / W_Q4I repacked at load
 * with 16 rows interleaved (kern.h's "rows packed by 16"): a matrix is
 * whole groups of 16 rows, not rows; rowsize counts a row's share.
 * W_Q4KX16, W_Q6KX16: W_Q4_KI's and W_Q6_KI's superblocks packed the
 * same way where the AVX2 table reads them. */

struct wtype_info {
	const char *name;	/* as messages and options spell it */
	int block;		/* weights per block: rows are whole blocks */
	int bytes;		/* bytes per block */
	int maxn;		/* longest row its kernels take; 0: any */
	enum wtype store;	/* the type whose bytes it has (itself but
				 * for BF16A): a conversion between two
				 * types of one store is a copy */
	/* One row: n floats into wtype_rowsize(t, n) bytes at dst, rounded
	 * to nearest even (conv_f32_to_bf16, conv_q8_0_quant, ...). */
	void (*from_f32)(void *dst, const float *x, int n);
	/* 0: struct mat's w is the rows (wtype_rowsize bytes each, a part
	 * of the matrix a pointer into them; W_Q8X16, W_Q4X16: groups of
	 * 16 rows, made at load after any split); 1: w is a struct of the
	 * kernels naming the matrix's tensors (kern.h's struct kern_q4,
	 * gptq.h's struct kern_gptq), which only its source can split and
	 * the fast modes do not convert */
	int indirect;
	/* 1: its matmul first prepares all T activation rows it is given
	 * (Q8_0 quantizes them, BF16A rounds them to bf16), whatever its
	 * rows, so that a dispatch calls it once a thread (seq_sched.c),
	 * not on many small chunks */
	int xprep;
	/* 1: its matvec (decode) may not give the bits of its matmul
	 * (prefill) on the same token, only the same sum to float32
	 * rounding (W_Q4's integer decode, the K types' factored one:
	 * kern.h); a batch then runs its sequences' one-token passes by
	 * matvec (seq_sched.c) */
	int mvdiff;
};

extern const struct wtype_info wtypes[W_NTYPES];

/* Bytes of one row of n weights of type t. */
static inline size_t
wtype_rowsize(enum wtype t, int n)
{
	return ((size_t)n + wtypes[t].block - 1) / wtypes[t].block *
	    wtypes[t].bytes;
}

/* The type called name (wtypes[].name), or -1. */
int wtype_parse(const char *name);

#endif
