/* quant.c: quantization_config, the 4-bit quantizer, --quant q4. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "kern/kern.h"
#include "model/model.h"
#include "kern/pool.h"
#include "kern/quant.h"
#include "base/util.h"

/* A member that must be absent, null, false or empty for us. */
static int
unset(const struct json *j)
{
	return !j || j->type == JSON_NULL || j->type == JSON_FALSE ||
	    ((j->type == JSON_OBJECT || j->type == JSON_ARRAY) && !j->len);
}

/* One config_groups entry. */
static int
group(struct quant *q, const char *cfg, const char *gname,
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
	if (q->ngroup == QUANT_MAXGROUPS)
		return error("%s: quantization_config: more than %d config_groups",
		    cfg, QUANT_MAXGROUPS);
	q->group[q->ngroup++] = (int)gs;
	q->symmetric &= sym;
	return 0;
}

int
quant_config(struct quant *q, int *on, const char *config)
{
	struct json_doc doc = { 0 };
	const struct json *qc, *v, *g;
	const char *s;
	size_t i;
	int r = -1;

	memset(q, 0, sizeof(*q));
	q->symmetric = 1;
	*on = 0;
	if (json_load(&doc, config) < 0)
		return -1;
	if (!(qc = json_get(doc.root, "quantization_config")) ||
	    qc->type == JSON_NULL) {
		json_free(&doc);
		return 0;
	}
	if (qc->type != JSON_OBJECT) {
		error("%s: quantization_config is not an object", config);
		goto out;
	}
	if (!(s = json_str(json_get(qc, "quant_method")))) {
		error("%s: quantization_config has no quant_method", config);
		goto out;
	}
	if (strcmp(s, "compressed-tensors")) {
		error("%s: quantization method '%s' is not supported "
		    "(pipelm reads compressed-tensors pack-quantized, GPTQ and "
		    "AWQ int4)", config, s);
		goto out;
	}
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
	*on = 1;
	r = 0;
out:
	json_free(&doc);
	return r;
}

/* ---- the quantizer ---- */

/* f rounded to the scale type st, widened again. */
static float
round_to(float f, enum wtype st)
{
	switch (st) {
	case W_BF16: return kern_bf16_to_f32(kern_f32_to_bf16(f));
	case W_F16:  return kern_f16_to_f32(kern_f32_to_f16(f));
	default:     return f;
	}
}

float
quant_group(uint32_t *qw, int j0, int *zn, const float *x, int n, int sym,
    enum wtype st)
{
	float lo = 0, hi = 0, s, z = 0, v;
	int i;

	for (i = 0; i < n; i++) {
		if (x[i] < lo)
			lo = x[i];
		if (x[i] > hi)
			hi = x[i];
	}
	if (sym)
		s = (-lo > hi ? -lo : hi) / 7.5f;
	else
		s = (hi - lo) / 15.0f;
	if (!(s >= FLT_EPSILON))	/* also NaN */
		s = FLT_EPSILON;
	s = round_to(s, st);
	if (!sym) {
		z = nearbyintf(-8.0f - lo / s);
		z = z < -8 ? -8 : z > 7 ? 7 : z;
	}
	for (i = 0; i < n; i++) {
		v = nearbyintf(x[i] / s + z);
		if (!(v >= -8))		/* also NaN */
			v = v < 0 ? -8 : 0;
		if (v > 7)
			v = 7;
		qw[(j0 + i) / 8] |= (uint32_t)(v + 8) << 4 * ((j0 + i) % 8);
	}
	*zn = (int)z + 8;
	return s;
}

void
quant_row(uint32_t *qw, void *s, uint32_t *zw, int r, const float *x,
    int cols, int group, enum wtype st)
{
	int g, j, n, zn;
	float sc;

	memset(qw, 0, ((size_t)cols + 7) / 8 * 4);
	for (g = 0, j = 0; j < cols; g++, j += group) {
		n = cols - j < group ? cols - j : group;
		sc = quant_group(qw, j, &zn, x + j, n, zw == NULL, st);
		switch (st) {
		case W_BF16: ((uint16_t *)s)[g] = kern_f32_to_bf16(sc); break;
		case W_F16:  ((uint16_t *)s)[g] = kern_f32_to_f16(sc); break;
		default:     ((float *)s)[g] = sc; break;
		}
		if (zw)
			zw[g] |= (uint32_t)zn << 4 * (r % 8);
	}
}

/* ---- --quant q4 ---- */

#define Q4_MAXN 16384	/* longest row converted (one on the stack) */

struct conv {
	const struct mat *w;
	struct kern_q4 *k;
};

static void
conv_rows(void *ctx, int r0, int r1)
{
	const struct conv *cv = ctx;
	const struct mat *w = cv->w;
	struct kern_q4 *k = cv->k;
	size_t inb = wtype_rowsize(w->t, w->cols);
	float f[Q4_MAXN];
	int r;

	for (r = r0; r < r1; r++) {
		kern.to_f32[w->t](f, (const char *)w->w + (size_t)r * inb,
		    w->cols);
		quant_row((uint32_t *)k->q + (size_t)r * k->wpr,
		    (uint16_t *)k->s + (size_t)r * k->ng, NULL, r, f, w->cols,
		    k->group, k->st);
	}
}

#define UP64(x) (((x) + 63) / 64 * 64)

int
quant_model_q4(struct model *m)
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
		if (w->cols > Q4_MAXN) {
			free(v);
			return error("q4 takes rows of at most %d weights, the "
			    "model has %d", Q4_MAXN, w->cols);
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
		struct conv cv = { w, &k[i] };

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
		pool_for(m->pool, w->rows, 1, conv_rows, &cv);
		mem_drop(w->w, (size_t)w->rows * wtype_rowsize(w->t, w->cols));
		w->w = &k[i];
		w->t = W_Q4;
		wb += qb + sb;
	}
	free(v);
	m->wmem = mem;
	m->wmemsize = bytes;
	m->weight_bytes = wb;
	return 0;
}
