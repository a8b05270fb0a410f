/* trace.c: llm-trace's collector (trace.h): the taps' rows into the
 * per-layer table and the kept activations, and those written as .npy,
 * .npz or a folder (npy.h). */
#include <sys/stat.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/files.h"
#include "base/util.h"
#include "model/model.h"
#include "stream/npy.h"
#include "stream/trace.h"

static const struct {
	const char *name;
	enum seq_tap_name tap;
} shortnames[] = {
	{ "resid_pre", TAP_RESID_PRE }, { "q", TAP_Q }, { "k", TAP_K },
	{ "v", TAP_V }, { "pattern", TAP_PATTERN }, { "z", TAP_Z },
	{ "attn_out", TAP_ATTN_OUT }, { "resid_mid", TAP_RESID_MID },
	{ "mlp_out", TAP_MLP_OUT }, { "resid_post", TAP_RESID_POST },
	{ "lens", TAP_LENS }, { "normalized", TAP_NORMALIZED },
};

int
trace_parse_names(const char *s, unsigned *mask)
{
	char label[64];
	const char *e;
	size_t n, i;

	*mask = 0;
	for (; *s; s = *e ? e + 1 : e) {
		e = s + strcspn(s, ",");
		n = (size_t)(e - s);
		if (n == 3 && !strncmp(s, "all", 3)) {
			*mask = (1u << TAP_NNAMES) - 1;
			continue;
		}
		for (i = 0; i < LEN(shortnames); i++) {
			/* the short name, or TransformerLens's (its layer's
			 * part left out) */
			seq_tap_label(shortnames[i].tap, -1, label, sizeof(label));
			if ((strlen(shortnames[i].name) == n &&
			    !strncmp(s, shortnames[i].name, n)) ||
			    (strlen(label) == n && !strncmp(s, label, n)))
				break;
		}
		if (i == LEN(shortnames))
			return error("--dump: unknown name '%.*s' (resid_pre, q, k, "
			    "v, pattern, z, attn_out, resid_mid, mlp_out, "
			    "resid_post, lens, normalized or all)", (int)n, s);
		*mask |= 1u << shortnames[i].tap;
	}
	return *mask ? 0 : error("--dump: no names");
}

/* A layer number at *s: its end, or NULL. */
static const char *
layer_num(const char *s, int *v)
{
	long long x = 0;

	if (*s < '0' || *s > '9')
		return NULL;
	for (; *s >= '0' && *s <= '9'; s++)
		if ((x = x * 10 + (*s - '0')) > 1 << 20)
			return NULL;
	*v = (int)x;
	return s;
}

int
trace_parse_layers(const char *s, int *l0, int *l1)
{
	const char *p = s;
	int a = 0, b = -1;

	if (*p != '-' && !(p = layer_num(p, &a)))
		return -1;
	if (!*p) {
		*l0 = a, *l1 = a + 1;
		return 0;
	}
	if (*p++ != '-')
		return -1;
	if (*p && (!(p = layer_num(p, &b)) || *p || b < a))
		return -1;
	*l0 = a, *l1 = b < 0 ? -1 : b + 1;
	return 0;
}

static struct trace_keep *
keep_of(const struct trace *tr, enum seq_tap_name name, int l)
{
	return &tr->keep[(size_t)name * (tr->m->cfg.num_hidden_layers + 1) +
	    l + 1];
}

static int
keeps(const struct trace *tr, enum seq_tap_name name, int l)
{
	return (tr->dump >> name & 1) || (name == TAP_PATTERN &&
	    l == tr->head_l && tr->svg);
}

static double
rms(const float *x, int n)
{
	double s = 0;
	int i;

	for (i = 0; i < n; i++)
		s += (double)x[i] * x[i];
	return sqrt(s / n);
}

/* The heads' mean entropy (nats) of a pattern row (heads, keys). */
static double
entropy(const float *p, int heads, int keys)
{
	double e = 0;
	int h, k;

	for (h = 0; h < heads; h++)
		for (k = 0; k < keys; k++)
			if (p[(size_t)h * keys + k] > 0)
				e -= p[(size_t)h * keys + k] *
				    log(p[(size_t)h * keys + k]);
	return e / heads;
}

/* The top id of a row of logits (the lowest of equals) and its
 * softmax probability. */
static void
top(const float *x, int n, double *id, double *p)
{
	double sum = 0;
	int i, t = 0;

	for (i = 1; i < n; i++)
		t = x[i] > x[t] ? i : t;
	for (i = 0; i < n; i++)
		sum += exp((double)x[i] - x[t]);
	*id = t;
	*p = 1 / sum;
}

static int
keep_row(struct trace *tr, struct trace_keep *k, const float *v, int cols,
    int keys)
{
	if (xgrow(&k->v, &k->cap, k->n + cols, sizeof(float)) < 0 ||
	    (keys && xgrow(&k->keys, &k->keycap, k->rows + 1, sizeof(int)) < 0))
		return -1;
	memcpy(k->v + k->n, v, (size_t)cols * sizeof(float));
	if (keys)
		k->keys[k->rows] = keys;
	k->n += cols;
	k->rows++;
	k->cols = cols;
	(void)tr;
	return 0;
}

static void
on_tap(void *ctx, enum seq_tap_name name, int l, int pos, int rows, int cols,
    const float *v)
{
	struct trace *tr = ctx;
	int nl = tr->l1 - tr->l0, i, r, heads = tr->m->cfg.num_attention_heads;
	const float *x;
	double *cell;

	for (i = 0; i < rows; i++) {
		x = v + (size_t)i * cols;
		r = pos + i - tr->pos0;
		if (keeps(tr, name, l) && keep_row(tr, keep_of(tr, name, l), x,
		    cols, name == TAP_PATTERN ? pos + 1 : 0) < 0)
			tr->failed = 1;
		if (l < 0 || r < 0 || r >= tr->n)
			continue;
		cell = tr->tab + ((size_t)r * nl + l - tr->l0) * TR_NCOLS;
		switch (name) {
		case TAP_RESID_PRE:
			cell[TR_RMS_PRE] = rms(x, cols);
			break;
		case TAP_ATTN_OUT:
			cell[TR_RMS_ATTN] = rms(x, cols);
			break;
		case TAP_MLP_OUT:
			cell[TR_RMS_MLP] = rms(x, cols);
			break;
		case TAP_RESID_POST:
			cell[TR_RMS_POST] = rms(x, cols);
			break;
		case TAP_PATTERN:
			cell[TR_ENTROPY] = entropy(x, heads, cols / heads);
			break;
		case TAP_LENS:
			top(x, cols, &cell[TR_LENS_ID], &cell[TR_LENS_P]);
			break;
		default:
			break;
		}
	}
}

int
trace_init(struct trace *tr, const struct model *m, int l0, int l1,
    unsigned dump, int svg, int hl, int hh)
{
	memset(tr, 0, sizeof(*tr));
	tr->m = m;
	tr->l0 = l0, tr->l1 = l1;
	tr->dump = dump;
	tr->svg = svg;
	tr->head_l = hl, tr->head_h = hh;
	tr->tap = (struct seq_tap){ on_tap, tr, dump | 1u << TAP_RESID_PRE |
		1u << TAP_ATTN_OUT | 1u << TAP_MLP_OUT | 1u << TAP_RESID_POST |
		1u << TAP_PATTERN | 1u << TAP_LENS, l0, l1, 0, NULL, 0 };
	if (hl >= 0 && (hl < l0 || hl >= l1))
		tr->tap.l0 = hl < l0 ? hl : l0, tr->tap.l1 = hl >= l1 ? hl + 1 : l1;
	tr->keep = xcalloc((size_t)TAP_NNAMES * (m->cfg.num_hidden_layers + 1),
	    sizeof(*tr->keep));
	return tr->keep ? 0 : error("out of memory");
}

void
trace_free(struct trace *tr)
{
	size_t i;

	for (i = 0; tr->keep && tr->m &&
	    i < (size_t)TAP_NNAMES * (tr->m->cfg.num_hidden_layers + 1); i++)
		free(tr->keep[i].v), free(tr->keep[i].keys);
	free(tr->keep);
	free(tr->tab);
	free(tr->ids1);
	free(tr->tab1);
	seq_tap_free(&tr->tap);
	memset(tr, 0, sizeof(*tr));
}

int
trace_begin(struct trace *tr, int pos0, int n)
{
	size_t cells = (size_t)n * (tr->l1 - tr->l0) * TR_NCOLS, i;

	if (xgrow(&tr->tab, &tr->tabcap, cells, sizeof(double)) < 0)
		return -1;
	for (i = 0; i < cells; i++)
		tr->tab[i] = NAN;
	tr->pos0 = pos0, tr->n = n;
	return 0;
}

int
trace_end(struct trace *tr, FILE *f, const char *fname,
    unsigned long long rec, const int *ids)
{
	int nl = tr->l1 - tr->l0, r, l;
	const double *c;

	if (tr->failed || tr->tap.failed)
		return error("out of memory for the trace");
	if (tr->l1 > tr->m->cfg.num_hidden_layers)
		return error("no layer %d: the model has %d", tr->l1 - 1,
		    tr->m->cfg.num_hidden_layers);
	for (r = 0; r < tr->n; r++)
		for (l = tr->l0; l < tr->l1; l++) {
			c = tr->tab + ((size_t)r * nl + l - tr->l0) * TR_NCOLS;
			fprintf(f, "%llu\t%d\t%d\t%d\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t"
			    "%d\t%.6g\n", rec, tr->pos0 + r, l, ids[r],
			    c[TR_RMS_PRE], c[TR_RMS_ATTN], c[TR_RMS_MLP],
			    c[TR_RMS_POST], c[TR_ENTROPY], (int)c[TR_LENS_ID],
			    c[TR_LENS_P]);
		}
	if (ferror(f))
		return error("write %s:", fname);
	if (tr->svg && !tr->ids1 && tr->n > 0) {
		size_t cells = (size_t)tr->n * nl * TR_NCOLS;

		if (!(tr->ids1 = xmalloc((size_t)tr->n * sizeof(int))) ||
		    !(tr->tab1 = xmalloc(cells * sizeof(double))))
			return error("out of memory for the trace");
		memcpy(tr->ids1, ids, (size_t)tr->n * sizeof(int));
		memcpy(tr->tab1, tr->tab, cells * sizeof(double));
		tr->n1 = tr->n, tr->pos01 = tr->pos0;
	}
	return 0;
}

/* The kept point name of layer l as an array into a (its values in
 * *own when made here, else NULL); 0, 1 if none was kept, -1 after
 * error(). */
static int
as_array(const struct trace *tr, enum seq_tap_name name, int l,
    struct npy_arr *a, float **own, char *label, size_t nlabel)
{
	const struct model *m = tr->m;
	const struct trace_keep *k = keep_of(tr, name, l);
	int H = m->cfg.num_attention_heads, K = 0, h, k0;
	size_t r, off, cells;
	float *v;

	*own = NULL;
	if (!k->rows)
		return 1;
	a->name = seq_tap_label(name, l, label, nlabel);
	a->v = k->v;
	a->ndim = 2;
	a->shape[0] = k->rows;
	a->shape[1] = (size_t)k->cols;
	switch (name) {
	case TAP_Q: case TAP_Z: case TAP_K: case TAP_V:
		a->ndim = 3;
		a->shape[1] = (size_t)k->cols / m->hd;
		a->shape[2] = (size_t)m->hd;
		return 0;
	case TAP_PATTERN:
		break;
	default:
		return 0;
	}
	/* the pattern: (heads, positions, keys), padded with 0 */
	for (r = 0; r < k->rows; r++)
		K = k->keys[r] > K ? k->keys[r] : K;
	if (size_mul(&cells, (size_t)H * k->rows, (size_t)K) < 0 ||
	    !(v = xcalloc(cells ? cells : 1, sizeof(float))))
		return error("out of memory for the pattern");
	for (r = 0, off = 0; r < k->rows; r++) {
		k0 = k->keys[r];
		for (h = 0; h < H; h++)
			memcpy(v + ((size_t)h * k->rows + r) * K, k->v + off +
			    (size_t)h * k0, (size_t)k0 * sizeof(float));
		off += (size_t)H * k0;
	}
	a->v = v;
	a->ndim = 3;
	a->shape[0] = (size_t)H, a->shape[1] = k->rows, a->shape[2] = (size_t)K;
	*own = v;
	return 0;
}

static int
ends(const char *s, const char *suf)
{
	size_t n = strlen(s), k = strlen(suf);

	return n >= k && !strcmp(s + n - k, suf);
}

/* One array to path as .npy: written beside and renamed in place. */
static int
write_npy(const char *path, const struct npy_arr *a)
{
	struct outfile o = { 0 };
	FILE *f = outfile_open(&o, path);

	if (!f)
		return -1;
	return outfile_close(&o, npy_write(f, path, a) == 0);
}

int
trace_dump(struct trace *tr, const char *path)
{
	const struct model *m = tr->m;
	struct npy_arr *a;
	float **own;
	char (*labels)[64], fn[4096];
	int name, l, r = 0;
	size_t n = 0, i, max = (size_t)TAP_NNAMES * (m->cfg.num_hidden_layers + 1);

	a = xcalloc(max, sizeof(*a));
	own = xcalloc(max, sizeof(*own));
	labels = xcalloc(max, sizeof(*labels));
	if (!a || !own || !labels) {
		r = error("out of memory");
		goto out;
	}
	for (name = 0; name < TAP_NNAMES; name++) {
		if (!(tr->dump >> name & 1))
			continue;
		for (l = name == TAP_NORMALIZED ? -1 : tr->l0;
		    l < (name == TAP_NORMALIZED ? 0 : tr->l1); l++) {
			int k = as_array(tr, name, l, &a[n], &own[n], labels[n],
			    sizeof(labels[n]));

			if (k < 0) {
				r = -1;
				goto out;
			}
			n += !k;
		}
	}
	if (ends(path, ".npz")) {
		struct outfile o = { 0 };
		FILE *f = outfile_open(&o, path);

		r = f ? outfile_close(&o, npz_write(f, path, a, n) == 0) : -1;
	} else if (ends(path, ".npy")) {
		if (n != 1)
			r = error("%s: %zu arrays do not fit one .npy: name a "
			    "folder or an .npz", path, n);
		else
			r = write_npy(path, &a[0]);
	} else {
		if (mkdir(path, 0777) < 0 && errno != EEXIST)
			r = error("mkdir %s:", path);
		for (i = 0; !r && i < n; i++) {
			snprintf(fn, sizeof(fn), "%s/%s.npy", path, a[i].name);
			r = write_npy(fn, &a[i]);
		}
	}
out:
	for (i = 0; own && i < n; i++)
		free(own[i]);
	free(a), free(own), free(labels);
	return r;
}
