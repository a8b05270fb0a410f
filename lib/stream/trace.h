/* trace.h: what llm-trace collects from a sequence's taps (seq.h): the
 * per-layer table of each record (the residual stream's RMS before and
 * after each layer and of what attention and the MLP add, the heads'
 * mean attention entropy, the logit lens's top token), the activations
 * asked for whole (written as .npy, .npz or a folder of .npy under
 * TransformerLens's names), and the SVG pictures (trace_svg.c). */
#ifndef TRACE_H
#define TRACE_H

#include <stddef.h>
#include <stdio.h>

#include "model/seq.h"
#include "tok/tok.h"

/* The table's figures of a position and layer, in its column order
 * after record, pos, layer and id. */
enum { TR_RMS_PRE, TR_RMS_ATTN, TR_RMS_MLP, TR_RMS_POST, TR_ENTROPY,
	TR_LENS_ID, TR_LENS_P, TR_NCOLS };
/* The header line of the table (tab-separated, with its newline). */
#define TRACE_HEADER "record\tpos\tlayer\tid\trms_resid_pre\trms_attn_out\t" \
	"rms_mlp_out\trms_resid_post\tattn_entropy\tlens_id\tlens_p\n"

struct trace_keep {		/* a point of a layer kept whole */
	float *v;		/* its rows, one after another */
	size_t n, cap;		/* floats */
	size_t rows;
	int cols;		/* a row's (the pattern's vary: keys) */
	int *keys;		/* the pattern: each row's keys */
	size_t keycap;
};

struct trace {
	const struct model *m;
	struct seq_tap tap;	/* set on a sequence by the caller */
	int l0, l1;		/* layers traced [l0, l1) */
	unsigned dump;		/* 1u << name: the points written whole */
	int head_l, head_h;	/* --head: its pattern kept (-1: none) */
	struct trace_keep *keep;	/* [name * (layers + 1) + layer + 1] */
	/* the record being run */
	int pos0, n;		/* its first position, positions */
	double *tab;		/* (n, l1 - l0, TR_NCOLS) its table */
	size_t tabcap;
	int failed;		/* out of memory: said once */
	/* the first record, for the pictures */
	int svg;		/* keep it */
	int *ids1;		/* its ids */
	double *tab1;		/* and table */
	int n1, pos01;
};

/* Parse a comma-separated list of point names (resid_pre, q, k, v,
 * pattern, z, attn_out, resid_mid, mlp_out, resid_post, lens,
 * normalized, their TransformerLens forms hook_resid_pre, attn.hook_q,
 * ..., ln_final.hook_normalized, or all) into *mask.  0, or -1 after
 * error() naming the one not known. */
int trace_parse_names(const char *s, unsigned *mask);
/* Parse --layers: "A", "A-B" (inclusive), "A-" or "-B" into [*l0, *l1)
 * with l1 -1 for "to the last".  0, or -1 (no message). */
int trace_parse_layers(const char *s, int *l0, int *l1);

/* Start a trace of layers [l0, l1) of m keeping the points of dump
 * whole (and, with svg, the first record and head hl.hh's pattern, hl
 * -1: none).  0, or -1 after error(). */
int trace_init(struct trace *tr, const struct model *m, int l0, int l1,
    unsigned dump, int svg, int hl, int hh);
void trace_free(struct trace *tr);
/* Before a record of n positions from pos0 is run. 0, or -1 after error(). */
int trace_begin(struct trace *tr, int pos0, int n);
/* After it: its table lines to f (record number rec, its ids).  0, or
 * -1 after error() (a write error, or a tap that failed). */
int trace_end(struct trace *tr, FILE *f, const char *fname,
    unsigned long long rec, const int *ids);

/* Write the kept points to path: an .npz (path ends in .npz), an .npy
 * (path ends in .npy: one point of one layer only), else a folder
 * (made if absent) of NAME.npy files.  The shapes: (positions, ...)
 * rows over all records in order: resid, attn_out, mlp_out, normalized
 * (positions, hidden); q and z (positions, heads, head_dim); k and v
 * (positions, kv_heads, head_dim); lens (positions, vocab); the pattern
 * (heads, positions, keys), keys the most a position had, 0 past its
 * own.  0, or -1 after error(). */
int trace_dump(struct trace *tr, const char *path);

/* The first record's pictures as one SVG document to f: the logit-lens
 * grid (layers x positions, each cell the lens's top token, shaded by
 * its probability) and, with --head, that head's attention pattern;
 * labels from t (NULL: the ids).  0, or -1 after error(). */
int trace_svg(const struct trace *tr, const struct tok *t, FILE *f,
    const char *fname);

#endif
