/* wsrc_ct.c: the compressed-tensors pack-quantized weight source
 * (wsrc_ct.h): a Linear with NAME.weight_packed is a W_Q4 matrix over its
 * tensors in place in the mapping; anything else (the embedding table,
 * the norms, an ignored lm_head) comes from the safetensors source. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kern/kern.h"
#include "base/json.h"
#include "kern/quant.h"
#include "wsrc/wsrc_ct.h"
#include "base/util.h"
#include "wsrc/wsrc.h"

/* A member that must be absent, null, false or empty for us. */
static int
unset(const struct json *j)
{
	return !j || j->type == JSON_NULL || j->type == JSON_FALSE ||
	    ((j->type == JSON_OBJECT || j->type == JSON_ARRAY) && !j->len);
}

/* One config_groups entry. */
static int
group(struct wsrc_ct_config *q, const char *cfg, const char *gname,
    const struct json *g)
{
	const struct json *w = json_get(g, "weights"), *v;
	const char *s;
	long long bits, gs;
	int sym;

	if (g->type != JSON_OBJECT)
		return error("%s: quantization_config: config_groups.%s is not an object",
		    cfg, gname);
	if (!unset(json_get(g, "input_activations")))
		return error("%s: quantization_config: %s quantizes the activations (input_activations): "
		    "pipelm runs weight-only int4", cfg, gname);
	if (!unset(json_get(g, "output_activations")))
		return error("%s: quantization_config: %s quantizes the outputs (output_activations): "
		    "pipelm runs weight-only int4", cfg, gname);
	if (!w || w->type != JSON_OBJECT)
		return error("%s: quantization_config: %s has no weights", cfg, gname);
	if (json_int(json_get(w, "num_bits"), 1, 64, &bits) < 0)
		return error("%s: quantization_config: %s: weights.num_bits missing or invalid",
		    cfg, gname);
	if (bits != 4)
		return error("%s: quantization_config: %s: %lld-bit weights are not supported (4 only)",
		    cfg, gname, bits);
	if (!(s = json_str(json_get(w, "type"))) || strcmp(s, "int"))
		return error("%s: quantization_config: %s: weights of type '%s' are not supported (int only)",
		    cfg, gname, s ? s : "?");
	if ((sym = json_bool(json_get(w, "symmetric"))) < 0)
		return error("%s: quantization_config: %s: weights.symmetric missing or not a boolean",
		    cfg, gname);
	if (!unset(json_get(w, "dynamic")))
		return error("%s: quantization_config: %s: dynamic weight quantization is not supported",
		    cfg, gname);
	v = json_get(w, "actorder");
	if (!unset(v))
		return error("%s: quantization_config: %s: act-order (actorder '%s') is not supported",
		    cfg, gname, json_str(v) ? json_str(v) : "true");
	if (!(s = json_str(json_get(w, "strategy"))))
		return error("%s: quantization_config: %s: weights.strategy missing", cfg, gname);
	if (!strcmp(s, "channel"))
		gs = 0;
	else if (!strcmp(s, "group")) {
		if (json_int(json_get(w, "group_size"), 1, 1 << 20, &gs) < 0)
			return error("%s: quantization_config: %s: group strategy without a valid group_size",
			    cfg, gname);
	} else
		return error("%s: quantization_config: %s: strategy '%s' is not supported (group, channel)",
		    cfg, gname, s);
	if (q->ngroup == WSRC_CT_MAXGROUPS)
		return error("%s: quantization_config: more than %d config_groups",
		    cfg, WSRC_CT_MAXGROUPS);
	q->group[q->ngroup++] = (int)gs;
	q->symmetric &= sym;
	return 0;
}

int
wsrc_ct_config(struct wsrc_ct_config *q, const struct json *qc,
    const char *config)
{
	const struct json *v, *g;
	const char *s;
	size_t i;
	int r = -1;

	memset(q, 0, sizeof(*q));
	q->symmetric = 1;
	if (!(s = json_str(json_get(qc, "format"))) || strcmp(s, "pack-quantized")) {
		error("%s: compressed-tensors format '%s' is not supported (pack-quantized only)",
		    config, s ? s : "?");
		goto out;
	}
	if (!unset(json_get(qc, "kv_cache_scheme"))) {
		error("%s: quantization_config: KV cache quantization (kv_cache_scheme) is not supported",
		    config);
		goto out;
	}
	v = json_get(qc, "sparsity_config");
	if (!unset(v) && (!(s = json_str(json_get(v, "format"))) ||
	    strcmp(s, "dense"))) {
		error("%s: quantization_config: sparse weights (sparsity_config) are not supported",
		    config);
		goto out;
	}
	if (!unset(json_get(qc, "transform_config"))) {
		error("%s: quantization_config: transforms (transform_config) are not supported",
		    config);
		goto out;
	}
	g = json_get(qc, "config_groups");
	if (!g || g->type != JSON_OBJECT || !g->len) {
		error("%s: quantization_config has no config_groups", config);
		goto out;
	}
	for (i = 0; i < g->len; i++)
		if (group(q, config, g->u.members[i].key,
		    &g->u.members[i].value) < 0)
			goto out;
	r = 0;
out:
	return r;
}

struct ctmat {			/* one matrix's tensors, for its kernels */
	struct ctmat *next;
	struct kern_q4 k;
};

struct wsrc_ct {
	struct wsrc src;
	struct wsrc_st *st;	/* sts, the tensors' source */
	struct wsrc_st sts;
	struct wsrc_ct_config q;
	struct ctmat *mats;
	size_t own;		/* bytes of the W_Q4 matrices handed out */
};

/* weight_shape's dtype: I32 as compression_param_info declares it, I64
 * as torch.tensor(weight.shape) in compress_weight makes it. */
static enum st_dtype
shape_dtype(const struct st *st, const char *name)
{
	const struct st_tensor *t;
	char full[300];

	snprintf(full, sizeof(full), "%s.weight_shape", name);
	t = st_find(st, full);
	return t && t->dtype == ST_I64 ? ST_I64 : ST_I32;
}

static int
ct_mat(struct wsrc *src, struct mat *w, const char *name, int rows, int cols)
{
	struct wsrc_ct *ct = (struct wsrc_ct *)src;
	const struct st *st = &ct->st->st;
	const struct st_tensor *tq, *ts, *tz = NULL, *tsh;
	struct ctmat *cm;
	char full[300];
	double shp[2];
	int ng, g, i, r;

	snprintf(full, sizeof(full), "%s.weight_packed", name);
	if (!st_find(st, full)) {
		r = ct->st->src.mat(&ct->st->src, w, name, rows, cols);
		src->bytes = ct->own + ct->st->src.bytes;
		return r;
	}
	if (strstr(name, "embed_tokens"))
		return error("%s: '%s' is a 4-bit embedding table: pipelm "
		    "reads 4-bit Linear layers only", st->files[0], full);
	snprintf(full, sizeof(full), "%s.weight_g_idx", name);
	if (st_find(st, full))
		return error("%s: '%s': act-order (g_idx) is not supported",
		    st->files[0], full);
	if (!(tq = wsrc_tensor(&ct->st->st, name, "weight_packed", rows, (cols + 7) / 8,
	    ST_I32)) ||
	    !(tsh = wsrc_tensor(&ct->st->st, name, "weight_shape", 2, -1, shape_dtype(st, name))) ||
	    !(ts = wsrc_tensor(&ct->st->st, name, "weight_scale", rows, WSRC_ANY, ST_NDTYPE)))
		return -1;
	/* compared as doubles: a hostile I64 need not fit an int */
	shp[0] = st_elem(tsh, 0);
	shp[1] = st_elem(tsh, 1);
	if (shp[0] != rows || shp[1] != cols)
		return error("%s: '%s.weight_shape' is [%.0f, %.0f], expected [%d, %d]",
		    st->files[tsh->file], name, shp[0], shp[1], rows, cols);
	if (ts->shape[1] < 1 || ts->shape[1] > cols)
		return error("%s: '%s.weight_scale' has %lld scales a row for %d "
		    "columns", st->files[ts->file], name,
		    (long long)ts->shape[1], cols);
	ng = (int)ts->shape[1];
	/* the group size: the config's that gives this many scales */
	g = 0;
	if (ng == 1)
		g = cols;
	for (i = 0; !g && i < ct->q.ngroup; i++)
		if (ct->q.group[i] > 0 &&
		    (cols + ct->q.group[i] - 1) / ct->q.group[i] == ng)
			g = ct->q.group[i];
	if (!g)
		return error("%s: '%s.weight_scale' has %d groups a row: no "
		    "group_size of the config gives that for %d columns",
		    st->files[ts->file], name, ng, cols);
	snprintf(full, sizeof(full), "%s.weight_zero_point", name);
	if (st_find(st, full) &&
	    !(tz = wsrc_tensor(&ct->st->st, name, "weight_zero_point", (rows + 7) / 8, ng,
	    ST_I32)))
		return -1;
	if (!tz && !ct->q.symmetric)
		return error("%s: '%s' is asymmetric in the config but has no "
		    "weight_zero_point", st->files[tq->file], name);
	if (!(cm = calloc(1, sizeof(*cm))))
		return error("out of memory");
	cm->next = ct->mats;
	ct->mats = cm;
	cm->k.q = tq->data;
	cm->k.s = ts->data;
	cm->k.z = tz ? tz->data : NULL;
	wsrc_st_type(ts->dtype, &cm->k.st);
	cm->k.group = g;
	cm->k.ng = ng;
	cm->k.wpr = (cols + 7) / 8;
	w->w = &cm->k;
	w->t = W_Q4;
	w->rows = rows;
	w->cols = cols;
	ct->own += tq->nbytes + ts->nbytes + (tz ? tz->nbytes : 0);
	src->bytes = ct->own + ct->st->src.bytes;
	return 0;
}

/* A part of a W_Q4 matrix is its packed rows and their scales from row
 * r0 on; the zero points are packed eight rows a word, so an asymmetric
 * matrix splits only at a multiple of 8 (every real fused tensor does:
 * its parts are whole heads or the intermediate size). */
static int
ct_part(struct wsrc *src, struct mat *w, const struct mat *f,
    const char *name, int r0, int rows)
{
	struct wsrc_ct *ct = (struct wsrc_ct *)src;
	const struct kern_q4 *k = f->w;
	struct ctmat *cm;

	if (f->t != W_Q4)
		return wsrc_rows_part(src, w, f, name, r0, rows);
	if (r0 < 0 || rows < 0 || r0 > f->rows - rows)
		return error("'%s': rows %d to %d of a matrix of %d", name, r0,
		    r0 + rows, f->rows);
	if (k->z && r0 % 8)
		return error("%s: '%s' is asymmetric 4-bit and splits at row "
		    "%d: its zero points are packed eight rows a word",
		    ct->st->st.files[0], name, r0);
	if (!(cm = calloc(1, sizeof(*cm))))
		return error("out of memory");
	cm->next = ct->mats;
	ct->mats = cm;
	cm->k = *k;
	cm->k.q = k->q + (size_t)r0 * k->wpr;
	cm->k.s = (const char *)k->s + (size_t)r0 * k->ng *
	    wtype_rowsize(k->st, 1);
	cm->k.z = k->z ? k->z + (size_t)r0 / 8 * k->ng : NULL;
	*w = (struct mat){ &cm->k, W_Q4, rows, f->cols };
	return 0;
}

static float *
ct_vec(struct wsrc *src, const char *name, int n)
{
	struct wsrc_ct *ct = (struct wsrc_ct *)src;
	float *v = ct->st->src.vec(&ct->st->src, name, n);

	src->bytes = ct->own + ct->st->src.bytes;
	return v;
}

static int
ct_has(struct wsrc *src, const char *name)
{
	struct wsrc_ct *ct = (struct wsrc_ct *)src;

	return ct->st->src.has(&ct->st->src, name);
}

static void
ct_close(struct wsrc *src)
{
	struct wsrc_ct *ct = (struct wsrc_ct *)src;
	struct ctmat *cm, *nx;

	for (cm = ct->mats; cm; cm = nx) {
		nx = cm->next;
		free(cm);
	}
	wsrc_st_close(&ct->sts);
	free(ct);
}

static int
ct_open(struct wsrc **src, const struct json *qc, const char *config,
    const char *path)
{
	struct wsrc_ct *ct;

	*src = NULL;
	if (!(ct = calloc(1, sizeof(*ct))))
		return error("out of memory");
	/* the config refused before any weight is touched */
	if (wsrc_ct_config(&ct->q, qc, config) < 0 ||
	    wsrc_st_open(&ct->sts, path) < 0) {
		ct_close(&ct->src);
		return -1;
	}
	ct->src.mat = ct_mat;
	ct->src.vec = ct_vec;
	ct->src.has = ct_has;
	ct->src.part = ct_part;
	ct->src.close = ct_close;
	ct->src.kind = &wsrc_ct_kind;
	ct->st = &ct->sts;
	*src = &ct->src;
	return 0;
}

/* ---- st-inspect's view (source.h) ---- */

/* A weight_shape's out and in, if it is two integers in [0, 2^31). */
static int
shape2(const struct st_tensor *t, long long *out, long long *in)
{
	double a, b;

	if (t->nel != 2 || st_dtype_isfloat(t->dtype))
		return 0;
	a = st_elem(t, 0), b = st_elem(t, 1);
	if (!(a >= 0 && a < 2147483648.0 && b >= 0 && b < 2147483648.0))
		return 0;
	*out = (long long)a, *in = (long long)b;
	return 1;
}

static int
ct_describe(const struct st *st, const struct st_tensor *t, char *base,
    size_t n, struct wsrc_desc *d)
{
	const struct st_tensor *ts, *tz, *tsh;

	if (!wsrc_stem(base, n, t->name, ".weight_packed"))
		return 0;
	ts = wsrc_find(st, base, "weight_scale");
	tz = wsrc_find(st, base, "weight_zero_point");
	tsh = wsrc_find(st, base, "weight_shape");
	if (!ts || !tsh || !shape2(tsh, &d->out, &d->in) || ts->ndim != 2 ||
	    !ts->shape[1])
		return 0;
	d->group = ts->shape[1] == 1 ? d->in :
	    (d->in + ts->shape[1] - 1) / ts->shape[1];
	d->format = NULL;
	d->symmetric = !tz;
	d->scale = ts->dtype;
	d->bytes = t->nbytes + ts->nbytes + (tz ? tz->nbytes : 0);
	return 1;
}

static int
ct_companion(const struct st *st, const struct st_tensor *t)
{
	static const char *const suf[] = {
		".weight_scale", ".weight_zero_point", ".weight_shape",
	};
	char base[512];
	size_t i;

	for (i = 0; i < sizeof(suf) / sizeof(suf[0]); i++)
		if (wsrc_stem(base, sizeof(base), t->name, suf[i]))
			return wsrc_find(st, base, "weight_packed") != NULL;
	return 0;
}

const struct wsrc_kind wsrc_ct_kind = {
	"compressed-tensors pack-quantized", "compressed-tensors", ct_open,
	ct_describe, ct_companion,
};
