/* wsrc.h: where a model's weights come from.
 *
 * The loader asks a source for matrices and vectors by their HF names;
 * the source decides which tensors make one and hands back a struct mat
 * of some wtype, in place where it can.  Safetensors with F32, F16 or
 * BF16 tensors is the plain source: a matrix NAME is the tensor
 * NAME.weight.  A format whose matrix spans several tensors (int4
 * packed weights beside their scales and zero points) is another
 * source with the same calls, and its matrices a new wtype: the
 * compressed-tensors one of quant.h (wsrc_ct.c, W_Q4) and GPTQ/AWQ of
 * gptq.h (wsrc_gptq.c, W_GPTQ4 and W_AWQ4), each over a wsrc_st. */
#ifndef WSRC_H
#define WSRC_H

#include <stddef.h>

#include "disk/st.h"
#include "kern/wtype.h"

struct mat {			/* a weight matrix, borrowed from the source */
	const void *w;		/* rows of wtype_rowsize(t, cols) bytes */
	enum wtype t;
	int rows, cols;
};

struct wsrc {
	/* Matrix name (a tensor name less ".weight") as a rows x cols
	 * struct mat in *w.  0, or -1 after error() naming what is wrong. */
	int (*mat)(struct wsrc *s, struct mat *w, const char *name, int rows,
	    int cols);
	/* A malloc'd float32 copy of the vector tensor name (n values), or
	 * NULL after error(). */
	float *(*vec)(struct wsrc *s, const char *name, int n);
	/* 1 if tensor name exists, else 0. */
	int (*has)(struct wsrc *s, const char *name);
	/* Rows [r0, r0 + rows) of f, a matrix this source handed out as
	 * name, as a matrix of their own in *w (a fused tensor's parts:
	 * Phi-3's qkv_proj and gate_up_proj).  A row-major type's part is
	 * a pointer into f's rows; a type whose matrix spans several
	 * tensors needs the source that knows them.  0, or -1 after
	 * error(). */
	int (*part)(struct wsrc *s, struct mat *w, const struct mat *f,
	    const char *name, int r0, int rows);
	size_t bytes;		/* of all that mat and vec handed out */
};

/* Safetensors (st.h): one file, a sharded index or a folder. */
struct wsrc_st {
	struct wsrc src;
	struct st st;
};

/* Open path as st_open() does; 0, or -1 after error() (s is then safe
 * to wsrc_st_close). */
int wsrc_st_open(struct wsrc_st *s, const char *path);
void wsrc_st_close(struct wsrc_st *s);	/* accepts a zeroed or failed s */
/* The wtype of safetensors dtype dt: 0 and *t set, or -1 if no kernel
 * reads it. */
int wsrc_st_type(enum st_dtype dt, enum wtype *t);
/* Tensor name.suffix of st, checked to be a 2-D tensor of shape [d0, d1]
 * (d1 = WSRC_ANY: any second dimension; d1 = -1: a 1-D tensor [d0]) and
 * of dtype dt (ST_NDTYPE: F32, F16 or BF16), aligned to its elements:
 * the tensors of a format whose matrix spans several (wsrc_ct.c,
 * wsrc_gptq.c).  NULL after error() naming the file and the tensor. */
#define WSRC_ANY (-2L)
const struct st_tensor *wsrc_tensor(const struct st *st, const char *name,
    const char *suffix, long d0, long d1, enum st_dtype dt);
/* The part method of a source of row-major matrices (wsrc.part). */
int wsrc_rows_part(struct wsrc *s, struct mat *w, const struct mat *f,
    const char *name, int r0, int rows);

#endif
