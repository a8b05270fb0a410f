/* wsrc.h: where a model's weights come from.
 *
 * The loader asks a source for matrices and vectors by their HF names;
 * the source decides which tensors make one and hands back a struct mat
 * of some wtype, in place where it can.  Safetensors with F32, F16 or
 * BF16 tensors is the plain source: a matrix NAME is the tensor
 * NAME.weight.  A format whose matrix spans several tensors (int4
 * packed weights beside their scales and zero points) is another
 * source with the same calls, and its matrices a new wtype: the
 * compressed-tensors one (wsrc_ct.c, W_Q4) and GPTQ/AWQ (wsrc_gptq.c,
 * W_GPTQ4 and W_AWQ4), each over a wsrc_st; the kinds are one table,
 * wsrc_kinds. */
#ifndef WSRC_H
#define WSRC_H

#include <stddef.h>

#include "disk/st.h"
#include "kern/wtype.h"

struct mat {			/* a weight matrix, borrowed from the source */
	const void *w;		/* rows of wtype_rowsize(t, cols) bytes (the
				 * types packed by 16 at load, kern.h: whole
				 * groups of 16 rows) */
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
	int norms_plus1;	/* its norm weights hold the 1 Gemma's
				 * RMSNorm adds (GGUF): the loader adds
				 * none */
	/* Free the source and what it opened (source_close). */
	void (*close)(struct wsrc *s);
	const struct wsrc_kind *kind;	/* its row of source_kinds */
};

/* A quantized matrix as st-inspect lists it: several tensors, one
 * logical weight. */
struct wsrc_desc {
	long long out, in, group;	/* its shape and group size */
	const char *format;		/* "gptq", "awq", or NULL */
	int symmetric;			/* 1, 0, or -1 when the format does
					 * not say */
	enum st_dtype scale;		/* the scales' dtype */
	size_t bytes;			/* of all its tensors */
};

/* A kind of weight source, a row of source.h's table, chosen by
 * config.json's quantization_config as git chooses a refs backend. */
struct json;
struct wsrc_kind {
	const char *name;	/* as messages and st-inspect say it */
	/* The quant_method values it takes, space-separated; "" for the
	 * plain source, taken without a quantization_config. */
	const char *methods;
	/* A new source over the safetensors at path with quantization_config
	 * qc (NULL: none) of config.json at config: 0, or -1 after error()
	 * naming what of qc is not supported (*src is then NULL). */
	int (*open)(struct wsrc **src, const struct json *qc,
	    const char *config, const char *path);
	/* Whether tensor t of st is the one that names a matrix of this
	 * kind (its packed weights): 1 with base (n bytes) its matrix's
	 * name, less ".weight", and *d filled; else 0.  NULL for the plain
	 * source. */
	int (*describe)(const struct st *st, const struct st_tensor *t,
	    char *base, size_t n, struct wsrc_desc *d);
	/* Whether tensor t is a part of a matrix of this kind besides the
	 * one describe names (its scales, zero points, ...). */
	int (*companion)(const struct st *st, const struct st_tensor *t);
};
/* The part of name before suffix into b (n bytes), if name ends so
 * (and it fits): 1, else 0. */
int wsrc_stem(char *b, size_t n, const char *name, const char *suffix);
/* base + "." + suffix of st, or NULL. */
const struct st_tensor *wsrc_find(const struct st *st, const char *base,
    const char *suffix);

/* Safetensors (st.h): one file, a sharded index or a folder. */
struct wsrc_st {
	struct wsrc src;
	struct st st;
};

/* Open path as st_open() does; 0, or -1 after error() (s is then safe
 * to wsrc_st_close). */
extern const struct wsrc_kind wsrc_st_kind;	/* plain safetensors */
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
