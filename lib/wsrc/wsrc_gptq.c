/* wsrc_gptq.c: the GPTQ and AWQ int4 weight source (gptq.h): a Linear
 * with NAME.qweight is a W_GPTQ4 or W_AWQ4 matrix over its tensors in
 * place in the mapping; anything else (the embedding table, the norms,
 * the biases, a float lm_head, modules_to_not_convert) comes from the
 * safetensors source. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kern/gptq.h"
#include "base/json.h"
#include "kern/kern.h"
#include "base/util.h"
#include "wsrc/wsrc.h"
#include "wsrc/wsrc_gptq.h"

struct gmat {			/* one matrix's tensors, for its kernels */
	struct gmat *next;
	struct kern_gptq k;
};

struct wsrc_gptq {
	struct wsrc src;
	struct wsrc_st *st;	/* sts, the tensors' source */
	struct wsrc_st sts;
	int awq;		/* AutoAWQ's GEMM layout, else GPTQ's */
	int group;		/* group_size; 0: one group a row (-1) */
	int zoff;		/* 1: GPTQ v1's zero points minus one */
	struct gmat *mats;
	size_t own;		/* bytes of the int4 matrices handed out */
};

/* A member that must be absent, null, false or empty for us. */
static int
unset(const struct json *j)
{
	return !j || j->type == JSON_NULL || j->type == JSON_FALSE ||
	    ((j->type == JSON_OBJECT || j->type == JSON_ARRAY) && !j->len);
}

/* The first of keys a and b that is present. */
static const struct json *
either(const struct json *o, const char *a, const char *b)
{
	const struct json *j = json_get(o, a);

	return j ? j : b ? json_get(o, b) : NULL;
}

/* quantization_config qc of method "gptq" or "awq" into gq. */
static int
gq_config(struct wsrc_gptq *gq, const char *cfg, const struct json *qc,
    const char *method)
{
	const struct json *v;
	const char *s;
	long long bits, gs;
	int awq = !strcmp(method, "awq");

	v = either(qc, "bits", awq ? "w_bit" : NULL);
	if (json_int(v, 1, 64, &bits) < 0)
		return error("%s: quantization_config: %s without a valid bits",
		    cfg, method);
	if (bits != 4)
		return error("%s: quantization_config: %s %lld-bit weights are "
		    "not supported (4 only)", cfg, method, bits);
	v = either(qc, "group_size", awq ? "q_group_size" : NULL);
	if (json_int(v, -1, 1 << 20, &gs) < 0 || gs == 0)
		return error("%s: quantization_config: %s without a valid group_size",
		    cfg, method);
	gq->group = gs < 0 ? 0 : (int)gs;
	if (gs > 0 && gs % 8)
		return error("%s: quantization_config: group_size %lld is not a "
		    "multiple of 8", cfg, gs);
	/* weight-only: a config that quantizes activations is refused */
	if (json_int(json_get(qc, "act_bits"), 1, 64, &bits) == 0 && bits < 16)
		return error("%s: quantization_config: %lld-bit activations "
		    "(act_bits) are not supported: pipelm runs weight-only int4",
		    cfg, bits);
	if (!unset(json_get(qc, "input_activations")))
		return error("%s: quantization_config: activation quantization "
		    "(input_activations) is not supported: pipelm runs weight-only "
		    "int4", cfg);
	if (awq) {
		gq->awq = 1;
		s = json_str(json_get(qc, "version"));
		if (s && strcmp(s, "gemm") && strcmp(s, "GEMM"))
			return error("%s: quantization_config: AWQ version '%s' "
			    "is not supported (gemm only)", cfg, s);
		return 0;
	}
	v = json_get(qc, "desc_act");
	if (v && v->type != JSON_NULL && json_bool(v) != 0)
		return error("%s: quantization_config: act-order (desc_act %s) "
		    "is not supported", cfg, json_bool(v) == 1 ? "true" :
		    "not false");
	if (!unset(json_get(qc, "dynamic")))
		return error("%s: quantization_config: per-module overrides "
		    "(dynamic) are not supported", cfg);
	s = json_str(either(qc, "checkpoint_format", "format"));
	if (!s || !strcmp(s, "gptq"))
		gq->zoff = 1;
	else if (strcmp(s, "gptq_v2"))
		return error("%s: quantization_config: GPTQ checkpoint_format "
		    "'%s' is not supported (gptq, gptq_v2)", cfg, s);
	s = json_str(json_get(qc, "pack_dtype"));
	if (s && strcmp(s, "int32"))
		return error("%s: quantization_config: pack_dtype '%s' is not "
		    "supported (int32 only)", cfg, s);
	return 0;
}

static int
has(const struct st *st, const char *name, const char *suffix)
{
	char full[300];

	snprintf(full, sizeof(full), "%s.%s", name, suffix);
	return st_find(st, full) != NULL;
}

static int
gq_mat(struct wsrc *src, struct mat *w, const char *name, int rows, int cols)
{
	struct wsrc_gptq *gq = (struct wsrc_gptq *)src;
	const struct st *st = &gq->st->st;
	const struct st_tensor *tq, *ts, *tz, *tg;
	struct gmat *gm;
	int group, ng, i, r;

	if (strlen(name) > 256)
		return error("tensor name too long: '%s'", name);
	if (!has(st, name, "qweight")) {
		if (!has(st, name, "weight") && (has(st, name, "scales") ||
		    has(st, name, "qzeros")))
			return error("%s: missing tensor '%s.qweight'",
			    st->files[0], name);
		r = gq->st->src.mat(&gq->st->src, w, name, rows, cols);
		src->bytes = gq->own + gq->st->src.bytes;
		return r;
	}
	if (strstr(name, "embed_tokens"))
		return error("%s: '%s.qweight' is a 4-bit embedding table: "
		    "pipelm reads 4-bit Linear layers only", st->files[0], name);
	group = gq->group ? gq->group : cols;
	if (cols % 8 || group % 8)
		return error("%s: '%s' has %d inputs a group of %d: int4 groups "
		    "of a multiple of 8 inputs only", st->files[0], name, cols,
		    group);
	if (gq->awq && rows % 8)
		return error("%s: '%s' has %d outputs: AWQ packs them by 8",
		    st->files[0], name, rows);
	ng = (cols + group - 1) / group;
	if (!(tq = gq->awq ? wsrc_tensor(&gq->st->st, name, "qweight", cols, rows / 8, ST_I32) :
	    wsrc_tensor(&gq->st->st, name, "qweight", cols / 8, rows, ST_I32)) ||
	    !(ts = wsrc_tensor(&gq->st->st, name, "scales", ng, rows, ST_NDTYPE)) ||
	    !(tz = wsrc_tensor(&gq->st->st, name, "qzeros", ng, (rows + 7) / 8, ST_I32)))
		return -1;
	if (has(st, name, "g_idx")) {
		if (!(tg = wsrc_tensor(&gq->st->st, name, "g_idx", cols, -1, ST_I32)))
			return -1;
		/* without act-order g_idx is i / group_size: anything else is
		 * a permutation of the inputs the kernels do not make */
		for (i = 0; i < cols; i++)
			if (((const int32_t *)tg->data)[i] != i / group)
				return error("%s: '%s.g_idx' maps input %d to group "
				    "%d, not %d: act-order (a permuted g_idx) is "
				    "not supported", st->files[tg->file], name, i,
				    (int)((const int32_t *)tg->data)[i], i / group);
	}
	if (!(gm = calloc(1, sizeof(*gm))))
		return error("out of memory");
	gm->next = gq->mats;
	gq->mats = gm;
	gm->k.q = tq->data;
	gm->k.z = tz->data;
	gm->k.s = ts->data;
	wsrc_st_type(ts->dtype, &gm->k.st);
	gm->k.rows = rows;
	gm->k.group = group;
	gm->k.ng = ng;
	gm->k.zw = (rows + 7) / 8;
	gm->k.zoff = gq->zoff;
	/* partial sums of at most 128 inputs keep the rounding of long
	 * groups near the float kernels' */
	gm->k.blk = group <= 128 || group % 128 ? group : 128;
	w->w = &gm->k;
	w->t = gq->awq ? W_AWQ4 : W_GPTQ4;
	w->rows = rows;
	w->cols = cols;
	gq->own += tq->nbytes + ts->nbytes + tz->nbytes;
	src->bytes = gq->own + gq->st->src.bytes;
	return 0;
}

static float *
gq_vec(struct wsrc *src, const char *name, int n)
{
	struct wsrc_gptq *gq = (struct wsrc_gptq *)src;
	float *v = gq->st->src.vec(&gq->st->src, name, n);

	src->bytes = gq->own + gq->st->src.bytes;
	return v;
}

/* A fused tensor's parts (Phi-3): the kernels index qweight's words and
 * the scales by the whole matrix's outputs, so a part of them would
 * need a stride of its own; refused until a checkpoint needs it. */
static int
gq_part(struct wsrc *src, struct mat *w, const struct mat *f,
    const char *name, int r0, int rows)
{
	struct wsrc_gptq *gq = (struct wsrc_gptq *)src;

	if (f->t == W_GPTQ4 || f->t == W_AWQ4)
		return error("%s: '%s' is a fused %s matrix: pipelm does not "
		    "split a 4-bit GPTQ or AWQ tensor into its parts",
		    gq->st->st.files[0], name, gq->awq ? "AWQ" : "GPTQ");
	return wsrc_rows_part(src, w, f, name, r0, rows);
}

static int
gq_has(struct wsrc *src, const char *name)
{
	struct wsrc_gptq *gq = (struct wsrc_gptq *)src;

	return gq->st->src.has(&gq->st->src, name);
}

static void
gq_close(struct wsrc *src)
{
	struct wsrc_gptq *gq = (struct wsrc_gptq *)src;
	struct gmat *gm, *nx;

	for (gm = gq->mats; gm; gm = nx) {
		nx = gm->next;
		free(gm);
	}
	wsrc_st_close(&gq->sts);
	free(gq);
}

/* quantization_config qc of quant_method "gptq" or "awq": taken or
 * refused by name, then the safetensors at path opened. */
static int
gq_open(struct wsrc **src, const struct json *qc, const char *config,
    const char *path)
{
	const char *method = json_str(json_get(qc, "quant_method"));
	struct wsrc_gptq *gq;

	*src = NULL;
	if (!(gq = calloc(1, sizeof(*gq))))
		return error("out of memory");
	if (gq_config(gq, config, qc, method ? method : "gptq") < 0 ||
	    wsrc_st_open(&gq->sts, path) < 0) {
		gq_close(&gq->src);
		return -1;
	}
	gq->src.mat = gq_mat;
	gq->src.vec = gq_vec;
	gq->src.has = gq_has;
	gq->src.part = gq_part;
	gq->src.close = gq_close;
	gq->src.kind = &wsrc_gptq_kind;
	gq->st = &gq->sts;
	*src = &gq->src;
	return 0;
}

/* ---- st-inspect's view (source.h) ---- */

/* A GPTQ or AWQ weight, told apart by its shapes: GPTQ's qweight is
 * [in / 8, out], AWQ's [in, out / 8], the scales [groups, out] for
 * both. */
static int
gq_describe(const struct st *st, const struct st_tensor *tq, char *base,
    size_t n, struct wsrc_desc *d)
{
	const struct st_tensor *ts, *tz;
	int awq;

	if (!wsrc_stem(base, n, tq->name, ".qweight"))
		return 0;
	ts = wsrc_find(st, base, "scales");
	tz = wsrc_find(st, base, "qzeros");
	if (!ts || !tz || tq->ndim != 2 || ts->ndim != 2 || !ts->shape[0] ||
	    tq->shape[0] > INT32_MAX || tq->shape[1] > INT32_MAX)
		return 0;
	if (ts->shape[1] == tq->shape[1])
		awq = 0, d->out = tq->shape[1], d->in = tq->shape[0] * 8;
	else if (ts->shape[1] == tq->shape[1] * 8)
		awq = 1, d->out = ts->shape[1], d->in = tq->shape[0];
	else
		return 0;
	/* groups are whole words: the least multiple of 8 giving as many */
	d->group = ((d->in + ts->shape[0] - 1) / ts->shape[0] + 7) / 8 * 8;
	d->format = awq ? "awq" : "gptq";
	d->symmetric = -1;
	d->scale = ts->dtype;
	d->bytes = tq->nbytes + ts->nbytes + tz->nbytes;
	return 1;
}

static int
gq_companion(const struct st *st, const struct st_tensor *t)
{
	static const char *const suf[] = { ".qzeros", ".scales", ".g_idx" };
	char base[512];
	size_t i;

	for (i = 0; i < sizeof(suf) / sizeof(suf[0]); i++)
		if (wsrc_stem(base, sizeof(base), t->name, suf[i]))
			return wsrc_find(st, base, "qweight") != NULL;
	return 0;
}

const struct wsrc_kind wsrc_gptq_kind = {
	"GPTQ and AWQ int4", "gptq awq", gq_open, gq_describe, gq_companion,
};
