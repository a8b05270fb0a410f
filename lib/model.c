/* model.c: LlamaForCausalLM in float32, after HF modeling_llama.py.
 *
 * Weights stay in the mapped safetensors and are widened inside the
 * kernels; only the small vectors (norms, biases) get float32 copies. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "attn.h"
#include "kern.h"
#include "model.h"
#include "pool.h"
#include "util.h"

/* The longest row a mode converts (the maxn of W_Q8_0 and W_BF16A). */
#define CONV_MAXN 16384

/* ---- loading ---- */

static int
wtype_of(enum st_dtype dt, enum wtype *t)
{
	switch (dt) {
	case ST_F32:  *t = W_F32;  return 0;
	case ST_F16:  *t = W_F16;  return 0;
	case ST_BF16: *t = W_BF16; return 0;
	default:      return -1;
	}
}

/* Find name and check it is a (rows, cols) matrix, or a vector of rows
 * when cols is 0, of a dtype the kernels read. */
static const struct st_tensor *
find(struct model *m, const char *name, int rows, int cols)
{
	const struct st_tensor *t = st_find(&m->st, name);
	enum wtype wt;
	int ok;

	if (!t) {
		if (cols)
			error("%s: missing tensor '%s' (expected shape [%d, %d])",
			    m->st.files[0], name, rows, cols);
		else
			error("%s: missing tensor '%s' (expected shape [%d])",
			    m->st.files[0], name, rows);
		return NULL;
	}
	ok = cols ? t->ndim == 2 && t->shape[0] == rows && t->shape[1] == cols
	    : t->ndim == 1 && t->shape[0] == rows;
	if (!ok) {
		char got[160];
		int i, n = 0;

		for (i = 0; i < t->ndim && n < (int)sizeof(got) - 24; i++)
			n += snprintf(got + n, sizeof(got) - n, "%s%lld",
			    i ? ", " : "", (long long)t->shape[i]);
		got[n] = '\0';
		if (cols)
			error("%s: tensor '%s' has shape [%s], expected [%d, %d]",
			    m->st.files[t->file], name, got, rows, cols);
		else
			error("%s: tensor '%s' has shape [%s], expected [%d]",
			    m->st.files[t->file], name, got, rows);
		return NULL;
	}
	if (wtype_of(t->dtype, &wt) < 0) {
		error("%s: tensor '%s' has dtype %s: only F32, F16 and BF16 are supported",
		    m->st.files[t->file], name, st_dtype_name(t->dtype));
		return NULL;
	}
	/* the kernels read elements in place: they must be aligned */
	if ((uintptr_t)t->data % st_dtype_size(t->dtype)) {
		error("%s: tensor '%s' is not aligned to its %zu-byte elements",
		    m->st.files[t->file], name, st_dtype_size(t->dtype));
		return NULL;
	}
	m->weight_bytes += t->nbytes;
	return t;
}

static int
load_mat(struct model *m, struct mat *w, const char *name, int rows, int cols)
{
	const struct st_tensor *t = find(m, name, rows, cols);

	if (!t)
		return -1;
	wtype_of(t->dtype, &w->t);
	w->w = t->data;
	w->rows = rows;
	w->cols = cols;
	return 0;
}

/* A float32 copy of vector name (n values); NULL after error(). */
static float *
load_vec(struct model *m, const char *name, int n)
{
	const struct st_tensor *t = find(m, name, n, 0);
	enum wtype wt = W_F32;
	float *v;

	if (!t)
		return NULL;
	if (!(v = malloc(n * sizeof(float)))) {
		error("cannot allocate %d floats for '%s'", n, name);
		return NULL;
	}
	wtype_of(t->dtype, &wt);
	kern.to_f32[wt](v, t->data, n);
	return v;
}

static int
load_layer(struct model *m, struct layer *l, int i)
{
	const struct cfg *c = &m->cfg;
	int d = c->hidden_size, ff = c->intermediate_size;
	char name[128];

#define NAME(s) (snprintf(name, sizeof(name), "model.layers.%d.%s", i, s), name)
	if (!(l->attn_norm = load_vec(m, NAME("input_layernorm.weight"), d)) ||
	    load_mat(m, &l->wq, NAME("self_attn.q_proj.weight"), m->qdim, d) < 0 ||
	    load_mat(m, &l->wk, NAME("self_attn.k_proj.weight"), m->kvdim, d) < 0 ||
	    load_mat(m, &l->wv, NAME("self_attn.v_proj.weight"), m->kvdim, d) < 0 ||
	    load_mat(m, &l->wo, NAME("self_attn.o_proj.weight"), d, m->qdim) < 0 ||
	    !(l->ffn_norm = load_vec(m, NAME("post_attention_layernorm.weight"), d)) ||
	    load_mat(m, &l->w1, NAME("mlp.gate_proj.weight"), ff, d) < 0 ||
	    load_mat(m, &l->w3, NAME("mlp.up_proj.weight"), ff, d) < 0 ||
	    load_mat(m, &l->w2, NAME("mlp.down_proj.weight"), d, ff) < 0)
		return -1;
	/* attention_bias: q/k/v biases; o_proj's too where the checkpoint
	 * has one (LlamaAttention gives it one, Qwen2-style exports do not) */
	if (c->attention_bias &&
	    (!(l->bq = load_vec(m, NAME("self_attn.q_proj.bias"), m->qdim)) ||
	    !(l->bk = load_vec(m, NAME("self_attn.k_proj.bias"), m->kvdim)) ||
	    !(l->bv = load_vec(m, NAME("self_attn.v_proj.bias"), m->kvdim))))
		return -1;
	if (c->attention_bias && st_find(&m->st, NAME("self_attn.o_proj.bias")) &&
	    !(l->bo = load_vec(m, name, d)))
		return -1;
	if (c->mlp_bias &&
	    (!(l->b1 = load_vec(m, NAME("mlp.gate_proj.bias"), ff)) ||
	    !(l->b3 = load_vec(m, NAME("mlp.up_proj.bias"), ff)) ||
	    !(l->b2 = load_vec(m, NAME("mlp.down_proj.bias"), d))))
		return -1;
#undef NAME
	return 0;
}

/* RoPE frequencies as HF computes them (float32), with the llama3
 * rescaling of _compute_llama3_parameters when configured. */
void
model_rope_freqs(float *inv_freq, const struct cfg *c, int hd)
{
	int j;

	for (j = 0; j < hd / 2; j++) {
		float e = (float)(2 * j) / (float)hd;
		double f = 1.0 / pow(c->rope_theta, e);
		double factor, lo, hi, old, wavelen, lowl, highl, smooth;

		inv_freq[j] = (float)f;
		if (strcmp(c->rope_scaling.rope_type, "llama3"))
			continue;
		factor = c->rope_scaling.factor;
		lo = c->rope_scaling.low_freq_factor;
		hi = c->rope_scaling.high_freq_factor;
		old = c->rope_scaling.original_max_position_embeddings;
		lowl = old / lo;
		highl = old / hi;
		wavelen = 2 * M_PI / inv_freq[j];
		if (wavelen < highl)
			continue;
		if (wavelen > lowl) {
			inv_freq[j] = (float)(inv_freq[j] / factor);
			continue;
		}
		smooth = (old / wavelen - lo) / (hi - lo);
		inv_freq[j] = (float)((1 - smooth) * inv_freq[j] / factor +
		    smooth * inv_freq[j]);
	}
}

int
model_open(struct model *m, const struct mdir *d, int ctx, int threads)
{
	struct cfg *c = &m->cfg;
	size_t off, sizes[13], bytes;
	float **bufs[13];
	int i, B = MODEL_MAXBATCH;

	memset(m, 0, sizeof(*m));
	if (cfg_load(c, d->config, d->genconfig) < 0)
		return -1;
	if (strcmp(c->architecture, "LlamaForCausalLM") &&
	    !(c->architecture[0] == '\0' && !strcmp(c->model_type, "llama")))
		return error("%s: unsupported architecture '%s' (pipelm runs LlamaForCausalLM)",
		    d->config, c->architecture[0] ? c->architecture : c->model_type);
	if (c->head_dim % 2)
		return error("%s: head_dim %d is odd: RoPE needs pairs", d->config, c->head_dim);
	if (st_open(&m->st, d->weights ? d->weights : d->dir) < 0)
		return -1;
	m->dim = c->hidden_size;
	m->hd = c->head_dim;
	m->qdim = c->num_attention_heads * c->head_dim;
	m->kvdim = c->num_key_value_heads * c->head_dim;

	if (load_mat(m, &m->embed, "model.embed_tokens.weight", c->vocab_size, m->dim) < 0)
		return -1;
	/* Decoding reads one embedding row, not the table. */
	m->weight_bytes -= (size_t)c->vocab_size * wtype_rowsize(m->embed.t, m->dim);
	if (!(m->layers = calloc(c->num_hidden_layers, sizeof(*m->layers))))
		return error("cannot allocate %d layers", c->num_hidden_layers);
	for (i = 0; i < c->num_hidden_layers; i++)
		if (load_layer(m, &m->layers[i], i) < 0)
			return -1;
	if (!(m->norm = load_vec(m, "model.norm.weight", m->dim)))
		return -1;
	if (c->tie_word_embeddings) {
		m->lm_head = m->embed;
		m->weight_bytes += (size_t)c->vocab_size * wtype_rowsize(m->embed.t, m->dim);
	} else if (load_mat(m, &m->lm_head, "lm_head.weight", c->vocab_size, m->dim) < 0) {
		return -1;
	}

	m->ctx = ctx > 0 ? ctx : c->max_position_embeddings;
	/* KV cache: reserved for the whole context, touched only as filled */
	if (size_mul(&m->kvsize, ((size_t)m->ctx + MODEL_KVBLOCK - 1) /
	    MODEL_KVBLOCK * MODEL_KVBLOCK, (size_t)c->num_hidden_layers) < 0 ||
	    size_mul(&m->kvsize, m->kvsize, 2 * (size_t)m->kvdim * sizeof(float)) < 0 ||
	    !(m->kv = mem_map(m->kvsize))) {
		m->kv = NULL;
		return error("cannot allocate KV cache for %d positions (%.1f GiB)",
		    m->ctx, (double)m->ctx * c->num_hidden_layers * 2 * m->kvdim * 4 / (1 << 30));
	}

	/* scratch: one mapping cut into pieces */
	sizes[0] = (size_t)B * m->dim;		bufs[0] = &m->x;
	sizes[1] = (size_t)B * (m->qdim > m->dim ? m->qdim : m->dim);	bufs[1] = &m->xb;
	sizes[2] = (size_t)B * m->dim;		bufs[2] = &m->xb2;
	sizes[3] = (size_t)B * m->qdim;		bufs[3] = &m->q;
	sizes[4] = (size_t)B * c->intermediate_size;	bufs[4] = &m->hb;
	sizes[5] = (size_t)B * c->intermediate_size;	bufs[5] = &m->hb2;
	m->nchunk_max = ATTN_NCHUNK;
	sizes[6] = (size_t)ATTN_NCHUNK * m->qdim;	bufs[6] = &m->att;
	sizes[7] = (size_t)B * m->hd;		bufs[7] = &m->rope;
	sizes[8] = m->hd / 2;			bufs[8] = &m->inv_freq;
	sizes[9] = (size_t)c->vocab_size;	bufs[9] = &m->logits;
	sizes[10] = (size_t)ATTN_NCHUNK * 2 * c->num_attention_heads;
	bufs[10] = &m->attml;
	sizes[11] = (size_t)B * 2 * m->kvdim;	bufs[11] = &m->kvnew;
	sizes[12] = (size_t)(threads > 1 ? threads : 1) * B * m->dim;
	bufs[12] = &m->xn;
	m->logits_rows = 1;
	for (i = 0, bytes = 0; i < 13; i++) {
		sizes[i] = (sizes[i] + 15) / 16 * 16 * sizeof(float);
		if (size_add(&bytes, bytes, sizes[i]) < 0)
			return error("model too large for this machine");
	}
	if (!(m->mem = mem_map(bytes)))
		return error("cannot allocate %zu bytes of scratch", bytes);
	m->memsize = bytes;
	for (i = 0, off = 0; i < 13; i++) {
		*bufs[i] = (float *)((char *)m->mem + off);
		off += sizes[i];
	}
	model_rope_freqs(m->inv_freq, c, m->hd);
	m->attn = attn_find(kern.name);
	if (threads > 1 && !(m->pool = pool_new(threads)))
		return -1;
	return 0;
}

int
model_load(struct model *m, const char *arg, int ctx, int threads)
{
	struct mdir d = { 0 };
	double t0 = now_seconds();
	int r;

	memset(m, 0, sizeof(*m));
	r = mdir_resolve(&d, arg) < 0 ? -1 : model_open(m, &d, ctx, threads);
	mdir_free(&d);
	m->stats.load = now_seconds() - t0;
	return r;
}

int
model_mats(struct model *m, struct mat **v, int max)
{
	int i, n = 0;

	for (i = 0; i < m->cfg.num_hidden_layers && n + 7 <= max; i++) {
		struct layer *l = &m->layers[i];

		v[n++] = &l->wq, v[n++] = &l->wk, v[n++] = &l->wv;
		v[n++] = &l->wo, v[n++] = &l->w1, v[n++] = &l->w3;
		v[n++] = &l->w2;
	}
	if (n < max)
		v[n++] = &m->lm_head;
	return n;
}

/* The weight type each mode converts the matrices to. */
static const enum wtype mode_type[] = {
	[MODEL_EXACT] = W_NTYPES, [MODEL_BF16ACT] = W_BF16A,
	[MODEL_Q8_0] = W_Q8_0,
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

/* Let the kernel take back the pages of [p, p + n) of the weights file
 * mapping (whole pages inside it only): once converted they are not
 * read again, and they would double the resident size.  Reading them
 * again would fault them back in from the file. */
static void
drop_pages(const void *p, size_t n)
{
	uintptr_t a = (uintptr_t)p, e = a + n;
	uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);

	a = (a + pg - 1) & ~(pg - 1);
	e &= ~(pg - 1);
	if (e > a)
		madvise((void *)a, e - a, MADV_DONTNEED);
}

/* Rows [r0, r1) of a matrix converted to type t (pool_for work). */
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
	size_t inb = wtype_rowsize(w->t, w->cols);
	size_t rowb = wtype_rowsize(cv->t, w->cols);
	float f[CONV_MAXN];
	int r;

	for (r = r0; r < r1; r++) {
		char *dst = (char *)cv->o + (size_t)r * rowb;
		const char *src = (const char *)w->w + (size_t)r * inb;

		if (wtypes[cv->t].store == wtypes[w->t].store) {
			memcpy(dst, src, rowb);
			continue;
		}
		kern.to_f32[w->t](f, src, w->cols);
		wtypes[cv->t].from_f32(dst, f, w->cols);
	}
}

/* Convert w (cols within t's maxn) to type t into o (conv_bytes(w, t)
 * bytes), over the pool's threads. */
static void
convert(struct model *m, struct mat *w, enum wtype t, void *o)
{
	struct conv cv = { w, t, o };

	pool_for(m->pool, w->rows, 1, conv_rows, &cv);
	drop_pages(w->w, (size_t)w->rows * wtype_rowsize(w->t, w->cols));
	w->w = o;
	w->t = t;
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

const char *
model_mode_name(const struct model *m)
{
	return m->mode == MODEL_EXACT ? "exact" : wtypes[mode_type[m->mode]].name;
}

void
model_print_stats(const struct model *m, FILE *f, const char *prog)
{
	fprintf(f, "%s: kernels %s, %d threads, load %.1f ms\n", prog, kern.name,
	    pool_size(m->pool), m->stats.load * 1e3);
	fprintf(f, "%s: mode %s%s\n", prog, model_mode_name(m),
	    m->mode_fallback ? " (bf16-act asked: this cpu lacks "
	    "AVX512-BF16, exact path)" : "");
	if (m->stats.nprefill)
		fprintf(f, "%s: prefill %lld tokens, %.1f tokens/s\n", prog,
		    m->stats.nprefill, m->stats.nprefill / m->stats.prefill);
	if (m->stats.ndecode)
		fprintf(f, "%s: decode %lld tokens, %.1f tokens/s, %.2f ms/token\n",
		    prog, m->stats.ndecode, m->stats.ndecode / m->stats.decode,
		    m->stats.decode * 1e3 / m->stats.ndecode);
}

void
model_close(struct model *m)
{
	int i;

	if (m->layers) {
		for (i = 0; i < m->cfg.num_hidden_layers; i++) {
			struct layer *l = &m->layers[i];

			free(l->attn_norm), free(l->ffn_norm);
			free(l->bq), free(l->bk), free(l->bv), free(l->bo);
			free(l->b1), free(l->b3), free(l->b2);
		}
		free(m->layers);
	}
	free(m->norm);
	pool_free(m->pool);
	if (m->logits_rows > 1)
		mem_unmap(m->logits, (size_t)m->logits_rows * m->cfg.vocab_size * sizeof(float));
	mem_unmap(m->mem, m->memsize);
	mem_unmap(m->kv, m->kvsize);
	mem_unmap(m->wmem, m->wmemsize);
	st_close(&m->st);
	memset(m, 0, sizeof(*m));
}

void
model_reset(struct model *m)
{
	m->pos = 0;
}

/* ---- threaded pieces ---- */

/* Up to three matrix products run as one pool dispatch over their stacked
 * rows (q, k and v; gate and up): one barrier instead of three. */
struct mm {
	int n;
	struct {
		const struct mat *w;
		float *out;		/* out[t*ldo + r] */
		int ldo;
	} p[3];
	const float *x;			/* (T, ldx) */
	int ldx, T;
	struct model *m;		/* with norm: */
	const float *norm;		/* the input is RMSNorm(x) with this */
};

/* RMSNorm with weight w of the T rows of the residual stream at x (ldx
 * apart) into the calling thread's own buffer (hidden apart).  Each
 * thread of a dispatch normalizes all T rows itself, the same floats in
 * each, so that the rows it multiplies next sit in its own cache and no
 * thread waits for a serial pass: the stream's columns were written by
 * all the threads, and a core reads another's lines slowly here. */
static const float *
normed(struct model *m, const float *x, int ldx, const float *w, int T)
{
	float *o = m->xn + (size_t)pool_self() * MODEL_MAXBATCH * m->dim;
	int t;

	for (t = 0; t < T; t++)
		kern.rmsnorm(o + (size_t)t * m->dim, x + (size_t)t * ldx, w,
		    m->dim, m->cfg.rms_norm_eps);
	return o;
}

/* out[t*ldo + r] = W[r] . x_t for rows [r0, r1) and T tokens. */
static void
mat_rows(const struct mat *w, float *out, int ldo, const float *x, int ldx,
    int T, int r0, int r1)
{
	if (T == 1)
		kern.matvec[w->t](out, w->w, x, w->cols, r0, r1);
	else
		kern.matmul[w->t](out, ldo, w->w, x, ldx, w->cols, T, r0, r1);
}

static void
mm_rows(void *ctx, int i0, int i1)
{
	struct mm *mm = ctx;
	const float *x = mm->x;
	int k, base = 0, ldx = mm->ldx;

	if (mm->norm) {
		x = normed(mm->m, mm->x, mm->ldx, mm->norm, mm->T);
		ldx = mm->m->dim;
	}
	for (k = 0; k < mm->n && i0 < i1; k++) {
		const struct mat *w = mm->p[k].w;
		int r0 = i0 - base, r1 = i1 - base;

		if (r0 < w->rows && r1 > 0) {
			r0 = r0 < 0 ? 0 : r0;
			r1 = r1 > w->rows ? w->rows : r1;
			mat_rows(w, mm->p[k].out, mm->p[k].ldo, x, ldx,
			    mm->T, r0, r1);
		}
		base += w->rows;
	}
}

static void
mm_run(struct model *m, struct mm *mm)
{
	int k, rows = 0;

	for (k = 0; k < mm->n; k++)
		rows += mm->p[k].w->rows;
	pool_for(m->pool, rows, 16, mm_rows, mm);
}

/* out = W RMSNorm(x) with weight norm, for T rows of the stream. */
static void
matmul_normed(struct model *m, float *out, int ldo, const struct mat *w,
    const float *x, const float *norm, int T)
{
	struct mm mm = { 1, { { w, out, ldo } }, x, m->dim, T, m, norm };

	mm_run(m, &mm);
}

/* Key (s = 0) or value (s = 1) of KV head g in layer l at position p. */
static float *
kv_at(const struct model *m, int l, int s, int g, int p)
{
	size_t blk = (size_t)m->cfg.num_hidden_layers * 2 * m->kvdim *
	    MODEL_KVBLOCK;

	return m->kv + (size_t)(p / MODEL_KVBLOCK) * blk +
	    (((size_t)l * 2 + s) * m->cfg.num_key_value_heads + g) *
	    MODEL_KVBLOCK * m->hd + (size_t)(p % MODEL_KVBLOCK) * m->hd;
}

/* Attention's q, k and v as one dispatch over their stacked rows.  In a
 * prefill the rows are split at head boundaries, so that each share also
 * finishes its heads for all tokens (the biases, RoPE, and k and v into
 * the cache) and nothing of it is left to the main thread.  A decode
 * step splits them in 16s instead and finishes the heads afterwards:
 * whole heads would give one thread 8 of SmolLM2's 15 and cost more
 * (about 0.1 ms a token) than the serial finish of one token (0.05). */
struct qkv {
	struct model *m;
	const struct layer *w;
	struct mm mm;
	int l, T, pos0;
};

/* Biases, RoPE, and k and v into the cache, for the stacked rows' heads
 * h0 <= h < h1 (q heads, then k, then v) of all tokens. */
static void
qkv_heads(const struct qkv *j, int h0, int h1)
{
	struct model *m = j->m;
	const struct layer *w = j->w;
	int hd = m->hd, nq = m->qdim / hd, nkv = m->kvdim / hd, h, t, i;
	int g = 0, s = 0;	/* the KV head and K (0) or V (1) of a k or v head */
	float *kn = m->kvnew, *x;
	const float *b, *cs;

	for (h = h0; h < h1; h++)
		for (t = 0; t < j->T; t++) {
			cs = m->rope + (size_t)t * hd;
			if (h < nq) {		/* a query head */
				x = m->q + (size_t)t * m->qdim + h * hd;
				b = w->bq ? w->bq + h * hd : NULL;
			} else {		/* a key (s 0) or value (s 1) head */
				g = (h - nq) % nkv;
				s = (h - nq) / nkv;
				x = kn + (size_t)t * 2 * m->kvdim + s * m->kvdim +
				    g * hd;
				b = s ? w->bv : w->bk;
				b = b ? b + g * hd : NULL;
			}
			for (i = 0; b && i < hd; i++)
				x[i] += b[i];
			if (h < nq + nkv)	/* q and k turn, v does not */
				kern_rope(x, 1, hd, cs, cs + hd / 2);
			if (h >= nq)
				memcpy(kv_at(m, j->l, s, g, j->pos0 + t), x,
				    hd * sizeof(float));
		}
}

/* Prefill work: rows [r0, r1), whole heads, and their finish. */
static void
qkv_rows(void *ctx, int r0, int r1)
{
	const struct qkv *j = ctx;

	mm_rows((void *)&j->mm, r0, r1);
	qkv_heads(j, r0 / j->m->hd, r1 / j->m->hd);
}

/* The MLP's first half as one dispatch over the intermediate rows: each
 * share computes its rows of gate and up for all tokens, adds their
 * biases and applies SwiGLU (elementwise, so the split changes nothing),
 * leaving no serial pass over (T, intermediate) to the main thread. */
struct glu {
	struct model *m;
	const struct layer *w;
	float *hb, *hb2;		/* (T, ff) */
	const float *x;			/* (T, d): the stream, normalized here */
	int T, d, ff;
};

static void
glu_rows(void *ctx, int r0, int r1)
{
	const struct glu *g = ctx;
	const float *b1 = g->w->b1, *b3 = g->w->b3, *x;
	int t, r;

	x = normed(g->m, g->x, g->d, g->w->ffn_norm, g->T);
	mat_rows(&g->w->w1, g->hb, g->ff, x, g->d, g->T, r0, r1);
	mat_rows(&g->w->w3, g->hb2, g->ff, x, g->d, g->T, r0, r1);
	for (t = 0; t < g->T; t++) {
		float *h = g->hb + (size_t)t * g->ff;
		float *u = g->hb2 + (size_t)t * g->ff;

		for (r = r0; r < r1 && b1; r++)
			h[r] += b1[r];
		for (r = r0; r < r1 && b3; r++)
			u[r] += b3[r];
		kern.swiglu(h + r0, h + r0, u + r0, r1 - r0);
	}
}

/* A projection back into the residual stream as one dispatch over its
 * output rows: x[t*d + r] += (W in_t)[r] + b[r]. */
struct resid {
	const struct mat *w;
	const float *b;			/* (d) or NULL */
	float *x, *out;			/* (T, d): the stream, scratch */
	const float *in;		/* (T, ldin) */
	int ldin, T;
};

static void
resid_rows(void *ctx, int r0, int r1)
{
	const struct resid *a = ctx;
	int d = a->w->rows, t, r;
	float o;

	mat_rows(a->w, a->out, d, a->in, a->ldin, a->T, r0, r1);
	for (t = 0; t < a->T; t++)
		for (r = r0; r < r1; r++) {
			o = a->out[(size_t)t * d + r];
			if (a->b)
				o += a->b[r];
			a->x[(size_t)t * d + r] += o;
		}
}

/* Attention work items.  Prefill: one tile per (KV head, group of up to
 * ATTN_MAXROWS query heads sharing it, block of tq tokens), the blocks of
 * each group in the order first, last, second, next-to-last, ... so that
 * any contiguous share of items gets as much of the causal triangle as
 * any other.  Decode (one token): one item per (head group, range of
 * chunk keys), partial results merged afterwards.  The items depend on
 * the shapes only, never on the thread count. */
struct attn_job {
	struct model *m;
	int layer, T, pos0;
	int hpt, nsub;		/* query heads per tile, tiles per KV head */
	int tq, nqb;		/* tokens per tile, tiles per head group */
	int chunk, nchunk;	/* decode: keys per range, ranges */
};

/* Decode item i of job j (one with key ranges): the cached positions
 * [*p0, *p1) it attends to; its KV head is i / nchunk / nsub. */
static void
attn_range(const struct attn_job *j, int i, int *p0, int *p1)
{
	*p0 = i % j->nchunk * j->chunk;
	*p1 = *p0 + j->chunk < j->pos0 + 1 ? *p0 + j->chunk : j->pos0 + 1;
}

static void
attn_items(void *ctx, int i0, int i1)
{
	const struct attn_job *j = ctx;
	struct model *m = j->m;
	int hd = m->hd, kv_mul = m->qdim / m->kvdim, i, g, h0, nh, qb, t0;
	float ml[2 * ATTN_MAXROWS], *out;
	struct attn_tile a;

	for (i = i0; i < i1; i++) {
		int n = j->nchunk ? j->nchunk : j->nqb, sub = i / n % j->nsub;

		g = i / n / j->nsub;
		h0 = g * kv_mul + sub * j->hpt;
		nh = kv_mul - sub * j->hpt;
		nh = nh < j->hpt ? nh : j->hpt;
		a.k = kv_at(m, j->layer, 0, g, 0);
		a.v = kv_at(m, j->layer, 1, g, 0);
		a.ldkv = hd;
		a.kvb = MODEL_KVBLOCK;
		a.bstride = (size_t)m->cfg.num_hidden_layers * 2 * m->kvdim *
		    MODEL_KVBLOCK;
		a.ldq = m->qdim;
		a.hd = hd;
		a.nh = nh;
		a.scale = 1.0f / sqrtf((float)hd);
		if (j->nchunk) {	/* decode: keys of range i % n */
			float *acc = m->att + (size_t)(i % n) * m->qdim + h0 * hd;

			a.q = m->q + h0 * hd;
			a.T = 1;
			a.pos0 = j->pos0;
			attn_range(j, i, &a.p0, &a.p1);
			m->attn->part(acc, m->qdim, ml, &a);
			memcpy(m->attml + 2 * ((size_t)(i % n) *
			    m->cfg.num_attention_heads + h0), ml,
			    2 * nh * sizeof(float));
			continue;
		}
		qb = i % n;	/* 0, n-1, 1, n-2, ... */
		qb = qb % 2 ? n - 1 - qb / 2 : qb / 2;
		t0 = qb * j->tq;
		a.q = m->q + (size_t)t0 * m->qdim + h0 * hd;
		a.T = j->T - t0 < j->tq ? j->T - t0 : j->tq;
		a.pos0 = j->pos0 + t0;
		a.p0 = 0;
		a.p1 = a.pos0 + a.T;
		out = m->xb + (size_t)t0 * m->qdim + h0 * hd;
		m->attn->part(out, m->qdim, ml, &a);
		attn_norm(out, m->qdim, ml, hd, nh, a.T);
	}
}

/* The attention work of the T positions from pos0 in layer l: its item
 * count, and the job in j. */
static int
attn_job(struct model *m, int l, int T, int pos0, struct attn_job *j)
{
	int kv_mul = m->qdim / m->kvdim, nkv = m->cfg.num_key_value_heads;
	int n = pos0 + 1;

	*j = (struct attn_job){ m, l, T, pos0, 0, 0, 0, 0, 0, 0 };
	j->hpt = kv_mul < ATTN_MAXROWS ? kv_mul : ATTN_MAXROWS;
	j->nsub = (kv_mul + j->hpt - 1) / j->hpt;
	j->tq = ATTN_TILEROWS / j->hpt > 1 ? ATTN_TILEROWS / j->hpt : 1;
	j->nqb = (T + j->tq - 1) / j->tq;
	if (T == 1 && n > ATTN_MINCHUNK) {
		/* ranges of a multiple of the key block, at most nchunk_max */
		j->chunk = (n + m->nchunk_max - 1) / m->nchunk_max;
		j->chunk = j->chunk < ATTN_MINCHUNK ? ATTN_MINCHUNK : j->chunk;
		j->chunk = (j->chunk + ATTN_BLOCK - 1) / ATTN_BLOCK * ATTN_BLOCK;
		j->nchunk = (n + j->chunk - 1) / j->chunk;
	}
	return nkv * j->nsub * (j->nchunk ? j->nchunk : j->nqb);
}

/* Causal attention of the T positions from pos0 in layer l:
 * softmax(q k^T / sqrt(head_dim)) v over the cached keys and values,
 * from m->q into m->xb (T, heads*head_dim). */
static void
attention(struct model *m, int l, int T, int pos0)
{
	int heads = m->cfg.num_attention_heads, h;
	struct attn_job j;

	pool_for(m->pool, attn_job(m, l, T, pos0, &j), 1, attn_items, &j);
	if (j.nchunk)
		for (h = 0; h < heads; h++)
			attn_merge(m->xb + h * m->hd, m->att + h * m->hd, m->qdim,
			    m->attml + 2 * h, 2 * (size_t)heads, j.nchunk, m->hd);
}

/* Decode: the cached keys and values this thread's attention items of
 * layer l will read, into its L2, while it streams its q/k/v rows.  The
 * cache was last read a token ago and the weights have pushed it out
 * since; read on demand it arrives one latency at a time.  At most
 * FETCH_MAX bytes (half of a 1 MB L2): past that, a long context, the
 * kernel's own prefetch of the next key block takes over. */
#define FETCH_MAX (512u << 10)

static void
attn_fetch(struct model *m, int l, int pos0)
{
	struct attn_job j;
	int n = attn_job(m, l, 1, pos0, &j), i, i0, i1, p, p1, c, g;
	size_t bytes = (size_t)m->hd * sizeof(float), budget = FETCH_MAX;
	const char *k, *v;

	pool_share(m->pool, n, 1, pool_self(), &i0, &i1);
	for (i = i0; i < i1; i++) {
		if (j.nchunk) {
			g = i / j.nchunk / j.nsub;
			attn_range(&j, i, &p, &p1);
		} else {	/* one item per head group, all positions */
			g = i / j.nsub;
			p = 0, p1 = pos0 + 1;
		}
		p1 = p1 < pos0 ? p1 : pos0;	/* pos0 itself: not written yet */
		for (; p < p1; p++) {
			if (budget < 2 * bytes)
				return;
			budget -= 2 * bytes;
			k = (const char *)kv_at(m, l, 0, g, p);
			v = (const char *)kv_at(m, l, 1, g, p);
			for (c = 0; c < (int)bytes; c += 64) {
				__builtin_prefetch(k + c, 0, 2);
				__builtin_prefetch(v + c, 0, 2);
			}
			if (((uintptr_t)k | (uintptr_t)v | bytes) & 63) {
				/* a row off the lines: its last one too */
				__builtin_prefetch(k + bytes - 1, 0, 2);
				__builtin_prefetch(v + bytes - 1, 0, 2);
			}
		}
	}
}

/* Decode work: rows [r0, r1), after starting the fetch of this thread's
 * share of the layer's key/value cache for the attention that follows. */
static void
qkv_rows1(void *ctx, int r0, int r1)
{
	const struct qkv *j = ctx;

	attn_fetch(j->m, j->l, j->pos0);
	mm_rows((void *)&j->mm, r0, r1);
}

/* ---- the forward pass ---- */

/* Run T <= MODEL_MAXBATCH positions; logits for all T rows or the last. */
static void
forward(struct model *m, const int *ids, int T, int all)
{
	const struct cfg *c = &m->cfg;
	int d = m->dim, hd = m->hd, ff = c->intermediate_size;
	int L = c->num_hidden_layers, pos0 = m->pos;
	int kvdim = m->kvdim, t, l, j;

	/* embedding */
	for (t = 0; t < T; t++)
		kern.to_f32[m->embed.t](m->x + (size_t)t * d, (const char *)m->embed.w +
		    (size_t)ids[t] * wtype_rowsize(m->embed.t, d), d);
	/* RoPE angles per position: cos(pos * inv_freq), sin(...), float32 */
	for (t = 0; t < T; t++) {
		float *cs = m->rope + (size_t)t * hd;

		for (j = 0; j < hd / 2; j++) {
			float a = (float)(pos0 + t) * m->inv_freq[j];

			cs[j] = (float)cos(a);
			cs[hd / 2 + j] = (float)sin(a);
		}
	}

	for (l = 0; l < L; l++) {
		const struct layer *w = &m->layers[l];
		float *kn = m->kvnew;
		struct qkv qkv = { m, w, { 3, {
			{ &w->wq, m->q, m->qdim },
			{ &w->wk, kn, 2 * kvdim },
			{ &w->wv, kn + kvdim, 2 * kvdim } }, m->x, d, T, m,
			w->attn_norm }, l, T, pos0 };
		struct glu gu = { m, w, m->hb, m->hb2, m->x, T, d, ff };
		struct resid ro = { &w->wo, w->bo, m->x, m->xb2, m->xb, m->qdim,
			T };
		struct resid rd = { &w->w2, w->b2, m->x, m->xb2, m->hb, ff, T };

		/* attention: rmsnorm, q/k/v, RoPE, k and v into the cache */
		if (T > 1)
			pool_for(m->pool, m->qdim + 2 * kvdim, hd, qkv_rows,
			    &qkv);
		else {
			pool_for(m->pool, m->qdim + 2 * kvdim, 16, qkv_rows1,
			    &qkv);
			qkv_heads(&qkv, 0, (m->qdim + 2 * kvdim) / hd);
		}
		/* the per-head outputs go to xb (T, qdim) */
		attention(m, l, T, pos0);
		/* x += o_proj(attention) */
		pool_for(m->pool, d, 16, resid_rows, &ro);

		/* MLP: rmsnorm, silu(gate(x)) * up(x) in hb, x += down(hb) */
		pool_for(m->pool, ff, 16, glu_rows, &gu);
		pool_for(m->pool, d, 16, resid_rows, &rd);
	}

	/* final norm and the classifier, for every row or just the last */
	if (!all)
		matmul_normed(m, m->logits, c->vocab_size, &m->lm_head,
		    m->x + (size_t)(T - 1) * d, m->norm, 1);
	else
		matmul_normed(m, m->logits, c->vocab_size, &m->lm_head, m->x,
		    m->norm, T);
	m->pos += T;
}

const float *
model_forward(struct model *m, const int *ids, int n, int all)
{
	int i, vocab = m->cfg.vocab_size, T;
	double t0;

	if (n < 1)
		return error("model_forward: no tokens"), NULL;
	for (i = 0; i < n; i++)
		if (ids[i] < 0 || ids[i] >= vocab)
			return error("token id %d is outside the vocabulary (0..%d)",
			    ids[i], vocab - 1), NULL;
	if (n > m->ctx - m->pos)
		return error("sequence of %d positions exceeds the context of %d",
		    m->pos + n, m->ctx), NULL;
	if (all && n > MODEL_MAXBATCH)
		return error("model_forward: %d rows of logits asked, at most %d",
		    n, MODEL_MAXBATCH), NULL;
	if (all && m->logits_rows < (size_t)MODEL_MAXBATCH) {
		float *p = mem_map((size_t)MODEL_MAXBATCH * vocab * sizeof(float));

		if (!p)
			return error("cannot allocate logits for %d positions",
			    MODEL_MAXBATCH), NULL;
		m->logits = p;		/* the one-row buffer stays in m->mem */
		m->logits_rows = MODEL_MAXBATCH;
	}
	t0 = now_seconds();
	for (i = 0; i < n; i += T) {
		T = n - i < MODEL_MAXBATCH ? n - i : MODEL_MAXBATCH;
		forward(m, ids + i, T, all);
	}
	if (n > 1)
		m->stats.prefill += now_seconds() - t0, m->stats.nprefill += n;
	else
		m->stats.decode += now_seconds() - t0, m->stats.ndecode++;
	return m->logits;
}
