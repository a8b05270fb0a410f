/* model_mode.c: the fast modes, every matrix converted at load to the
 * mode's weight type (wtype.h) in a private mapping. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kern/kern.h"
#include "model/model.h"
#include "kern/pool.h"
#include "kern/quant.h"
#include "base/util.h"

/* The longest row a mode converts (the maxn of W_Q8_0 and W_BF16A). */
#define CONV_MAXN 16384


/* The weight type each mode converts the matrices to. */
static const enum wtype mode_type[] = {
	[MODEL_EXACT] = W_NTYPES, [MODEL_BF16ACT] = W_BF16A,
	[MODEL_Q8_0] = W_Q8_0, [MODEL_Q4] = W_Q4,
};

/* Bytes of matrix w once converted to type t.  Matrices already of t's
 * bytes are copied too: the fast modes stream faster from private
 * memory than from the file mapping, even with the page cache in 2 MiB
 * folios (bench/NOTES.md). */
static size_t
conv_bytes(const struct mat *w, enum wtype t)
{
	return ((size_t)w->rows * wtype_rowsize(t, w->cols) + 63) / 64 * 64;
}

/* A matrix's source given back as its conversion or packing goes, not
 * at its end, so that the largest matrix (a tied classifier, a quarter
 * of the 1B shape's weights) is never resident twice: the 1B shape's
 * --quant q8_0 --int8-act load peaked at 1,831 MiB against 1,341 after
 * it (bench/NOTES.md).  In whole 2 MiB pages, every DROP_EVERY bytes:
 * a huge page given back in part is split, and the rest of it read 4
 * KiB a TLB entry (a second more of packing). */
#define DROP_EVERY ((size_t)4 << 20)
#define DROP_PAGE ((uintptr_t)2 << 20)

/* [kept, upto) of a source read for the last time, given back in whole
 * 2 MiB pages: where the next call starts. */
static const char *
drop_behind(const char *kept, const char *upto)
{
	uintptr_t a = ((uintptr_t)kept + DROP_PAGE - 1) & ~(DROP_PAGE - 1);
	uintptr_t e = (uintptr_t)upto & ~(DROP_PAGE - 1);

	if ((size_t)(upto - kept) < DROP_EVERY || e <= a)
		return kept;
	mem_drop((const void *)a, e - a);
	return (const char *)e;
}

/* Rows [r0, r1) of a matrix converted to type t (pool_for work): into
 * rows at o, or for W_Q4 into the arrays of the struct kern_q4 at o. */
struct conv {
	const struct mat *w;
	enum wtype t;
	void *o;
};

static void
conv_rows(void *ctx, int r0, int r1)
{
	const struct conv *cv = ctx;
	const struct mat *w = cv->w;
	const struct kern_q4 *k = cv->o;
	size_t inb = wtype_rowsize(w->t, w->cols);
	size_t rowb = wtype_rowsize(cv->t, w->cols);
	const char *kept = (const char *)w->w + (size_t)r0 * inb;
	float f[CONV_MAXN];
	int r;

	for (r = r0; r < r1; r++) {
		char *dst = (char *)cv->o + (size_t)r * rowb;
		const char *src = (const char *)w->w + (size_t)r * inb;

		kept = drop_behind(kept, src);
		if (cv->t != W_Q4 && wtypes[cv->t].store == wtypes[w->t].store) {
			memcpy(dst, src, rowb);
			continue;
		}
		kern.to_f32[w->t](f, src, w->cols);
		if (cv->t == W_Q4)
			quant_row((uint32_t *)k->q + (size_t)r * k->wpr,
			    (uint16_t *)k->s + (size_t)r * k->ng, NULL, r, f,
			    w->cols, k->group, k->st);
		else
			kern.from_f32[cv->t](dst, f, w->cols);
	}
}

/* Convert w (cols within t's maxn) to type t into o (conv_bytes(w, t)
 * bytes; for W_Q4 a struct kern_q4 whose arrays are laid out), over
 * the pool's threads. */
static void
convert(struct model *m, struct mat *w, enum wtype t, void *o)
{
	struct conv cv = { w, t, o };

	pool_for(m->pool, w->rows, 1, conv_rows, &cv);
	mem_drop(w->w, (size_t)w->rows * wtype_rowsize(w->t, w->cols));
	w->w = o;
	w->t = t;
}

#define UP64(x) (((x) + 63) / 64 * 64)

/* --quant q4: every matrix (F32, F16, BF16; the embedding table stays)
 * into a private symmetric W_Q4 copy, groups of QUANT_Q4_GROUP, BF16
 * scales.  0, or -1 after error() (m is then unchanged). */
static int
mode_q4(struct model *m)
{
	struct mat **v;
	struct kern_q4 *k;
	size_t bytes, qb, sb, off, wb = 0;
	int i, n, max = 7 * m->cfg.num_hidden_layers + 1;
	char *mem;

	if (!(v = malloc((size_t)max * sizeof(*v))))
		return error("cannot allocate %d matrix pointers", max);
	n = model_mats(m, v, max);
	bytes = UP64((size_t)n * sizeof(*k));
	for (i = 0; i < n; i++) {
		const struct mat *w = v[i];

		if (w->t != W_F32 && w->t != W_F16 && w->t != W_BF16) {
			free(v);
			return error("--quant q4 takes F32, F16 or BF16 weights, "
			    "the model has %s", wtypes[w->t].name);
		}
		if (w->cols > CONV_MAXN) {
			free(v);
			return error("q4 takes rows of at most %d weights, the "
			    "model has %d", CONV_MAXN, w->cols);
		}
		qb = UP64((size_t)w->rows * ((w->cols + 7) / 8) * 4);
		sb = UP64((size_t)w->rows * ((w->cols + QUANT_Q4_GROUP - 1) /
		    QUANT_Q4_GROUP) * 2);
		if (size_add(&bytes, bytes, qb) < 0 ||
		    size_add(&bytes, bytes, sb) < 0) {
			free(v);
			return error("model too large for this machine");
		}
	}
	if (!(mem = mem_map(bytes))) {
		free(v);
		return error("cannot allocate %zu bytes for 4-bit weights",
		    bytes);
	}
	k = (struct kern_q4 *)mem;
	off = UP64((size_t)n * sizeof(*k));
	for (i = 0; i < n; i++) {
		struct mat *w = v[i];

		k[i].st = W_BF16;
		k[i].group = QUANT_Q4_GROUP;
		k[i].ng = (w->cols + QUANT_Q4_GROUP - 1) / QUANT_Q4_GROUP;
		k[i].wpr = (w->cols + 7) / 8;
		k[i].z = NULL;
		qb = (size_t)w->rows * k[i].wpr * 4;
		sb = (size_t)w->rows * k[i].ng * 2;
		k[i].q = (const uint32_t *)(mem + off);
		off += UP64(qb);
		k[i].s = mem + off;
		off += UP64(sb);
		convert(m, w, W_Q4, &k[i]);
		wb += qb + sb;
	}
	free(v);
	m->wmem = mem;
	m->wmemsize = bytes;
	m->weight_bytes = wb;
	return 0;
}

int
model_set_mode(struct model *m, enum model_mode mode)
{
	struct mat **v;
	size_t bytes = 0, off = 0, wb = 0, mb;
	int i, n, maxn, max = 7 * m->cfg.num_hidden_layers + 1;
	enum wtype t = mode_type[mode];

	if (mode == MODEL_EXACT || m->mode != MODEL_EXACT)
		return mode == m->mode ? 0 : error("the mode is set once");
	if (!kern.matvec[t] || !kern.matmul[t]) {
		m->mode_fallback = 1;
		return 0;
	}
	for (i = 0; i < m->cfg.num_hidden_layers; i++)
		if (wtypes[m->layers[i].wq.t].indirect)
			return error("the model's weights are 4-bit already: "
			    "--quant and --bf16-act take float models");
	if (t == W_Q4) {	/* three arrays a matrix, not rows */
		if (mode_q4(m) < 0)
			return -1;
		m->mode = mode;
		return 0;
	}
	maxn = wtypes[t].maxn && wtypes[t].maxn < CONV_MAXN ? wtypes[t].maxn :
	    CONV_MAXN;
	if (!(v = malloc((size_t)max * sizeof(*v))))
		return error("cannot allocate %d matrix pointers", max);
	n = model_mats(m, v, max);
	for (i = 0; i < n; i++) {
		if (v[i]->cols > maxn) {
			n = v[i]->cols;
			free(v);
			return error("%s takes rows of at most %d weights, the "
			    "model has %d", wtypes[t].name, maxn, n);
		}
		if (size_add(&bytes, bytes, conv_bytes(v[i], t)) < 0) {
			free(v);
			return error("model too large for this machine");
		}
	}
	if (bytes && !(m->wmem = mem_map(bytes))) {
		free(v);
		return error("cannot allocate %zu bytes for converted weights",
		    bytes);
	}
	m->wmemsize = bytes;
	for (i = 0; i < n; i++) {
		mb = conv_bytes(v[i], t);
		convert(m, v[i], t, (char *)m->wmem + off);
		off += mb;
		wb += (size_t)v[i]->rows * wtype_rowsize(t, v[i]->cols);
	}
	free(v);
	m->weight_bytes = wb;
	m->mode = mode;
	return 0;
}

/* The type --int8-act retypes t to (the same bytes), else W_NTYPES. */
static enum wtype
i8type(enum wtype t)
{
	switch (t) {
	case W_Q8_0: return W_Q8_0I;
	case W_Q4: return W_Q4I;
	case W_GQ8_0: return W_GQ8_0I;
	case W_Q4_0: return W_Q4_0I;
	case W_Q5_0: return W_Q5_0I;
	case W_Q4_K: return W_Q4_KI;
	case W_Q6_K: return W_Q6_KI;
	default: return W_NTYPES;
	}
}

/* Whether t is one of ggml's block types (wtype.h), which --int8-act
 * takes only where it has their kernels. */
static int
ggmltype(enum wtype t)
{
	return t >= W_GQ8_0 && t <= W_IQ4_XS;
}

/* Groups [g0, g1) of a matrix packed into type t at o (pool_for
 * work). */
static void
pack_groups(void *ctx, int g0, int g1)
{
	const struct conv *cv = ctx;
	const struct mat *w = cv->w;
	size_t rb = wtype_rowsize(w->t, w->cols);
	const char *kept = (const char *)w->w + (size_t)16 * g0 * rb;
	int g, e, r1, step = 16 * rb < DROP_EVERY ? (int)(DROP_EVERY / (16 *
	    rb)) : 1;

	for (g = g0; g < g1; g = e) {
		e = g1 - g > step ? g + step : g1;
		kern_x16_pack(cv->o, cv->t, w->w, w->t, w->rows, w->cols, g, e);
		r1 = 16 * e < w->rows ? 16 * e : w->rows;
		if (w->t != W_Q4I)	/* its arrays: drop_src */
			kept = drop_behind(kept, (const char *)w->w +
			    (size_t)r1 * rb);
	}
}

/* The bytes w's weights came from given back (those of a W_Q4I matrix's
 * words and scales); their count. */
static size_t
drop_src(const struct mat *w)
{
	const struct kern_q4 *k = w->w;
	size_t q, s;

	if (w->t != W_Q4I) {
		q = (size_t)w->rows * wtype_rowsize(w->t, w->cols);
		mem_drop(w->w, q);
		return q;
	}
	q = (size_t)w->rows * k->wpr * 4;
	s = (size_t)w->rows * k->ng * wtype_rowsize(k->st, 1);
	mem_drop(k->q, q);
	mem_drop(k->s, s);
	return q + s;
}

/* The matrices of v[0..n) that the kernel table reads faster packed
 * (kern.pack: --int8-act's blocks of 32 by 16 rows, where
 * kern_x16_packs) packed into one private mapping, m->pmem; the bytes
 * they came from given back.  0, or -1 after error() (m is then
 * unchanged). */
static int
pack_mats(struct model *m, struct mat **v, int n)
{
	size_t bytes = 0, off = 0, b;
	struct conv cv;
	enum wtype *to;
	int i, r = -1;
	char *mem;

	if (!(to = calloc((size_t)n + 1, sizeof(*to))))
		return error("cannot allocate %d matrix types", n);
	for (i = 0; i < n; i++) {
		if (!kern.pack[v[i]->t] || !kern_x16_packs(v[i]->t, v[i]->w,
		    v[i]->rows, v[i]->cols))
			continue;
		to[i] = kern.pack[v[i]->t];
		if (size_add(&bytes, bytes, UP64(kern_x16_bytes(to[i],
		    v[i]->rows, v[i]->cols))) < 0) {
			error("model too large for this machine");
			goto out;
		}
	}
	if (!bytes) {
		r = 0;
		goto out;
	}
	if (!(mem = mem_map(bytes))) {
		error("cannot allocate %zu bytes for packed weights", bytes);
		goto out;
	}
	for (i = 0; i < n; i++) {
		struct mat *w = v[i];

		if (!to[i])
			continue;
		b = kern_x16_bytes(to[i], w->rows, w->cols);
		cv = (struct conv){ w, to[i], mem + off };
		pool_for(m->pool, (w->rows + 15) / 16, 1, pack_groups, &cv);
		m->weight_bytes = m->weight_bytes + b - drop_src(w);
		w->w = mem + off;
		w->t = to[i];
		off += UP64(b);
	}
	m->pmem = mem;
	m->pmemsize = bytes;
	r = 0;
out:
	free(to);
	return r;
}

int
model_set_int8act(struct model *m)
{
	struct mat **v;
	int i, n, k = 0, max = 7 * m->cfg.num_hidden_layers + 1;

	if (m->int8act)
		return 0;
	if (m->mode == MODEL_BF16ACT || m->mode_fallback)
		return error("--bf16-act and --int8-act exclude each other");
	if (!(v = malloc((size_t)max * sizeof(*v))))
		return error("cannot allocate %d matrix pointers", max);
	n = model_mats(m, v, max);
	for (i = 0; i < n; i++) {
		if (i8type(v[i]->t) != W_NTYPES) {
			if (v[i]->cols > wtypes[i8type(v[i]->t)].maxn &&
			    wtypes[i8type(v[i]->t)].maxn) {
				n = v[i]->cols;
				free(v);
				return error("--int8-act takes rows of at most %d "
				    "weights, the model has %d", KERN_GI8_MAXN, n);
			}
			k++;
		} else if (wtypes[v[i]->t].indirect || ggmltype(v[i]->t)) {
			const char *t = wtypes[v[i]->t].name;

			free(v);
			return error("--int8-act has no kernels for %s weights "
			    "(it takes --quant q8_0, --quant q4, "
			    "compressed-tensors 4-bit folders and GGUF Q8_0, "
			    "Q4_0, Q5_0, Q4_K and Q6_K)", t);
		}
	}
	if (!k) {
		const char *t = n ? wtypes[v[0]->t].name : "none";

		free(v);
		return error("--int8-act takes quantized weights: --quant q8_0, "
		    "--quant q4, a 4-bit model or a GGUF file of block types "
		    "(this one's are %s)", t);
	}
	for (i = 0; i < n; i++)
		if (i8type(v[i]->t) != W_NTYPES)
			v[i]->t = i8type(v[i]->t);
	if (pack_mats(m, v, n) < 0) {
		for (i = 0; i < n; i++)
			v[i]->t = wtypes[v[i]->t].store;
		free(v);
		return -1;
	}
	free(v);
	m->int8act = 1;
	return 0;
}

const char *
model_mode_name(const struct model *m)
{
	if (m->int8act)
		return m->mode == MODEL_Q8_0 ? "q8_0+int8-act" :
		    m->mode == MODEL_Q4 ? "q4+int8-act" : "int8-act";
	return m->mode == MODEL_EXACT ? "exact" : wtypes[mode_type[m->mode]].name;
}


