/* model_load.c: a model folder into a struct model: the config, the
 * weights by their HF names (LlamaForCausalLM, modeling_llama.py) from
 * a weight source (wsrc.h), the RoPE frequencies and the threads. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kern/attn.h"
#include "kern/kern.h"
#include "model/model.h"
#include "kern/pool.h"
#include "base/json.h"
#include "wsrc/source.h"
#include "wsrc/wsrc_gguf.h"
#include "base/util.h"
#include "wsrc/wsrc.h"

/* A norm weight: Gemma's RMSNorm scales by (1 + w), the sum taken in
 * float32 once here (Gemma2RMSNorm: output * (1.0 + weight.float())). */
static float *
norm_vec(struct model *m, const char *name, int n)
{
	float *v = m->ws->vec(m->ws, name, n);
	int i;

	if (v && cfg_arch_info(m->cfg.arch)->norm_plus1 && !m->ws->norms_plus1)
		for (i = 0; i < n; i++)
			v[i] = 1.0f + v[i];
	return v;
}

static int
load_layer(struct model *m, struct layer *l, int i)
{
	const struct cfg *c = &m->cfg;
	const struct cfg_arch_info *A = cfg_arch_info(c->arch);
	struct wsrc *ws = m->ws;
	int d = c->hidden_size, ff = c->intermediate_size;
	char name[160];

#define NAME(s) (snprintf(name, sizeof(name), "%slayers.%d.%s", m->prefix, i, s), name)
	if (!(l->attn_norm = norm_vec(m, NAME("input_layernorm.weight"), d)))
		return -1;
	if (A->fused) {
		/* q, k and v rows in that order (Phi3Attention's slices) */
		if (ws->mat(ws, &l->wqkv, NAME("self_attn.qkv_proj"),
		    m->qdim + 2 * m->kvdim, d) < 0)
			return -1;
		if (ws->part(ws, &l->wq, &l->wqkv, name, 0, m->qdim) < 0 ||
		    ws->part(ws, &l->wk, &l->wqkv, name, m->qdim, m->kvdim) < 0 ||
		    ws->part(ws, &l->wv, &l->wqkv, name, m->qdim + m->kvdim,
		    m->kvdim) < 0)
			return -1;
	} else if (ws->mat(ws, &l->wq, NAME("self_attn.q_proj"), m->qdim, d) < 0 ||
	    ws->mat(ws, &l->wk, NAME("self_attn.k_proj"), m->kvdim, d) < 0 ||
	    ws->mat(ws, &l->wv, NAME("self_attn.v_proj"), m->kvdim, d) < 0) {
		return -1;
	}
	if (ws->mat(ws, &l->wo, NAME("self_attn.o_proj"), d, m->qdim) < 0 ||
	    !(l->ffn_norm = norm_vec(m, NAME(A->post_norms ?
	    "pre_feedforward_layernorm.weight" :
	    "post_attention_layernorm.weight"), d)))
		return -1;
	if (A->fused) {
		/* gate, then up: gate_up_proj's output chunked in two */
		if (ws->mat(ws, &l->w13, NAME("mlp.gate_up_proj"), 2 * ff, d) < 0)
			return -1;
		if (ws->part(ws, &l->w1, &l->w13, name, 0, ff) < 0 ||
		    ws->part(ws, &l->w3, &l->w13, name, ff, ff) < 0)
			return -1;
	} else if (ws->mat(ws, &l->w1, NAME("mlp.gate_proj"), ff, d) < 0 ||
	    ws->mat(ws, &l->w3, NAME("mlp.up_proj"), ff, d) < 0) {
		return -1;
	}
	if (ws->mat(ws, &l->w2, NAME("mlp.down_proj"), d, ff) < 0)
		return -1;
	/* attention_bias: q/k/v biases; o_proj's too where the checkpoint
	 * has one (LlamaAttention gives it one, Qwen2-style exports do not) */
	if (c->attention_bias &&
	    (!(l->bq = ws->vec(ws, NAME("self_attn.q_proj.bias"), m->qdim)) ||
	    !(l->bk = ws->vec(ws, NAME("self_attn.k_proj.bias"), m->kvdim)) ||
	    !(l->bv = ws->vec(ws, NAME("self_attn.v_proj.bias"), m->kvdim))))
		return -1;
	if (c->attention_bias && A->bias != BIAS_QKV &&
	    ws->has(ws, NAME("self_attn.o_proj.bias")) &&
	    !(l->bo = ws->vec(ws, name, d)))
		return -1;
	if (c->mlp_bias &&
	    (!(l->b1 = ws->vec(ws, NAME("mlp.gate_proj.bias"), ff)) ||
	    !(l->b3 = ws->vec(ws, NAME("mlp.up_proj.bias"), ff)) ||
	    !(l->b2 = ws->vec(ws, NAME("mlp.down_proj.bias"), d))))
		return -1;
	if (A->qk_norm &&
	    (!(l->q_norm = norm_vec(m, NAME("self_attn.q_norm.weight"), m->hd)) ||
	    !(l->k_norm = norm_vec(m, NAME("self_attn.k_norm.weight"), m->hd))))
		return -1;
	if (A->post_norms &&
	    (!(l->post_attn_norm = norm_vec(m,
	    NAME("post_attention_layernorm.weight"), d)) ||
	    !(l->post_ffn_norm = norm_vec(m,
	    NAME("post_feedforward_layernorm.weight"), d))))
		return -1;
#undef NAME
	l->window = c->sliding[i] ? c->sliding_window : 0;
	return 0;
}

/* yarn's find_correction_dim: the dimension that turns n times over
 * the original context. */
static double
yarn_dim(double n, int dim, double base, double orig)
{
	return dim * log(orig / (n * 2 * M_PI)) / (2 * log(base));
}

static double
yarn_mscale(double factor, double mscale)
{
	return factor <= 1 ? 1.0 : 0.1 * mscale * log(factor) + 1.0;
}

/* f0 rescaled as _compute_llama3_parameters does: kept above the high
 * frequency band, divided by factor below the low one, and in between
 * smoothly blended. */
static float
llama3_freq(const struct cfg_rope *r, float f0)
{
	double factor = r->factor, lo = r->low_freq_factor;
	double hi = r->high_freq_factor, old = r->original_max_position_embeddings;
	double wavelen = 2 * M_PI / f0, smooth;

	if (wavelen < old / hi)
		return f0;
	if (wavelen > old / lo)
		return (float)(f0 / factor);
	smooth = (old / wavelen - lo) / (hi - lo);
	return (float)((1 - smooth) * f0 / factor + smooth * f0);
}

double
model_rope_init(float *inv_freq, const struct cfg_rope *r, double theta,
    int dim, int lng)
{
	const char *type = r->rope_type;
	double factor = r->factor, lo = 0, hi = 0, old, af = 1;
	int j;

	if (!strcmp(type, "yarn")) {
		double bf = r->beta_fast ? r->beta_fast : 32;
		double bs = r->beta_slow ? r->beta_slow : 1;

		old = r->original_max_position_embeddings;
		lo = yarn_dim(bf, dim, theta, old);
		hi = yarn_dim(bs, dim, theta, old);
		if (r->truncate)
			lo = floor(lo), hi = ceil(hi);
		lo = lo > 0 ? lo : 0;
		hi = hi < dim - 1 ? hi : dim - 1;
		if (lo == hi)
			hi += 0.001;	/* HF: prevent singularity */
		af = r->attention_factor ? r->attention_factor :
		    r->mscale && r->mscale_all_dim ?
		    yarn_mscale(factor, r->mscale) /
		    yarn_mscale(factor, r->mscale_all_dim) :
		    yarn_mscale(factor, 1);
	} else if (!strcmp(type, "longrope")) {
		old = r->original_max_position_embeddings;
		af = r->attention_factor ? r->attention_factor :
		    factor <= 1 ? 1.0 : sqrt(1 + log(factor) / log(old));
	}
	for (j = 0; j < dim / 2; j++) {
		float e = (float)(2 * j) / (float)dim;
		float p = (float)pow(theta, e);	/* base ** (arange / dim) */
		double f = 1.0 / pow(theta, e), ramp;

		if (!strcmp(type, "linear")) {
			f = (float)f / (float)factor;
		} else if (!strcmp(type, "yarn")) {
			ramp = ((float)j - lo) / (hi - lo);
			ramp = ramp < 0 ? 0 : ramp > 1 ? 1 : ramp;
			/* interpolation * ramp + extrapolation * (1 - ramp) */
			f = (float)(1.0f / ((float)factor * p)) * ramp +
			    (float)(1.0f / p) * (1 - ramp);
		} else if (!strcmp(type, "longrope")) {
			f = 1.0f / ((lng ? r->long_factor : r->short_factor)[j] * p);
		} else if (!strcmp(type, "llama3")) {
			f = llama3_freq(r, (float)f);
		} else if (!strcmp(type, "freqs")) {	/* GGUF's rope_freqs */
			f = (float)f / r->short_factor[j];
		}
		inv_freq[j] = (float)f;
	}
	return af;
}

/* RoPE frequencies as HF computes them (float32), of rope_scaling's
 * type (model_rope_init's short factors for longrope). */
void
model_rope_freqs(float *inv_freq, const struct cfg *c, int hd)
{
	model_rope_init(inv_freq, &c->rope_scaling, c->rope_theta, hd, 0);
}

/* The architecture's names: "model." before the layers, or a
 * Gemma3ForConditionalGeneration's text model under its two layouts. */
static const char *
name_prefix(struct model *m)
{
	static const char *const pre[] = {
		"model.language_model.", "language_model.model.",
	};
	char name[96];
	size_t i;

	if (!m->cfg.text_config)
		return "model.";
	for (i = 0; i < sizeof(pre) / sizeof(pre[0]); i++) {
		snprintf(name, sizeof(name), "%sembed_tokens.weight", pre[i]);
		if (m->ws->has(m->ws, name))
			return pre[i];
	}
	return "model.";
}

/* Whether architectures[0] (or model_type) names what cfg read. */
static int
arch_ok(const struct cfg *c)
{
	if (!c->architecture[0])
		return c->arch != ARCH_LLAMA || !strcmp(c->model_type, "llama");
	int i;

	for (i = 0; i < cfg_narchs; i++)
		if (cfg_archs[i].a == c->arch &&
		    cfg_archs[i].text_config == c->text_config &&
		    !strcmp(c->architecture, cfg_archs[i].arch))
			return 1;
	return 0;
}

/* The error of an architecture pipelm does not run, naming those it
 * does (the table's). */
static int
arch_error(const struct cfg *c, const char *config)
{
	char names[512];
	int i, n = 0;

	for (i = 0; i < cfg_narchs && n < (int)sizeof(names); i++)
		n += snprintf(names + n, sizeof(names) - n, "%s%s",
		    i ? ", " : "", cfg_archs[i].arch);
	return error("%s: %s: '%s' not supported (pipelm runs %s)", config,
	    c->architecture[0] ? "architectures" : "model_type",
	    c->architecture[0] ? c->architecture : c->model_type, names);
}

int
model_open(struct model *m, const struct mdir *d, int threads)
{
	struct json_doc doc = { 0 };
	struct cfg *c = &m->cfg;
	size_t hf;
	int i, r, local;
	char name[96];

	memset(m, 0, sizeof(*m));
	pthread_mutex_init(&m->run, NULL);
	if (d->gguf) {		/* a GGUF file: its metadata is the config */
		r = source_open(&m->ws, NULL, NULL, d->gguf);
		if (r == 0)
			r = cfg_load_gguf(c, wsrc_gguf_file(m->ws));
	} else {
		r = cfg_load_doc(c, &doc, d->config, d->genconfig);
		if (r == 0 && !arch_ok(c))
			r = arch_error(c, d->config);
		/* a quantization_config is taken, or refused, before any
		 * weight */
		if (r == 0)
			r = source_open(&m->ws, doc.root, d->config,
			    d->weights ? d->weights : d->dir);
	}
	json_free(&doc);
	if (r < 0)
		return -1;
	if (c->head_dim % 2)
		return error("%s: head_dim %d is odd: RoPE needs pairs",
		    d->gguf ? d->gguf : d->config, c->head_dim);
	m->dim = c->hidden_size;
	m->hd = c->head_dim;
	m->qdim = c->num_attention_heads * c->head_dim;
	m->kvdim = c->num_key_value_heads * c->head_dim;
	m->rd = (int)(c->head_dim * (double)c->partial_rotary_factor);
	m->prefix = name_prefix(m);
	snprintf(name, sizeof(name), "%sembed_tokens", m->prefix);
	if (m->ws->mat(m->ws, &m->embed, name, c->vocab_size, m->dim) < 0)
		return -1;
	if (!(m->layers = calloc(c->num_hidden_layers, sizeof(*m->layers))))
		return error("cannot allocate %d layers", c->num_hidden_layers);
	for (i = 0; i < c->num_hidden_layers; i++)
		if (load_layer(m, &m->layers[i], i) < 0)
			return -1;
	snprintf(name, sizeof(name), "%snorm.weight", m->prefix);
	if (!(m->norm = norm_vec(m, name, m->dim)))
		return -1;
	if (c->tie_word_embeddings)
		m->lm_head = m->embed;
	else if (m->ws->mat(m->ws, &m->lm_head, c->text_config &&
	    m->ws->has(m->ws, "language_model.lm_head.weight") ?
	    "language_model.lm_head" : "lm_head", c->vocab_size, m->dim) < 0)
		return -1;
	/* Decoding reads one embedding row, not the table; a tied table
	 * is read whole as the classifier. */
	m->weight_bytes = m->ws->bytes;
	if (!c->tie_word_embeddings)
		m->weight_bytes -= (size_t)c->vocab_size *
		    wtype_rowsize(m->embed.t, m->dim);

	m->ctx = c->max_position_embeddings;
	m->nchunk_max = ATTN_NCHUNK;
	m->embed_keep = MODEL_EMBED_KEEP;
	/* the frequency tables: the model's, longrope's long ones and (Gemma
	 * 3's sliding layers turn at their own base) the local ones */
	local = c->rope_local_theta > 0;
	hf = (size_t)(m->hd / 2 + 15) / 16 * 16;
	m->fmemsize = 3 * hf * sizeof(float);
	if (!(m->fmem = mem_map(m->fmemsize)))
		return error("cannot allocate %zu bytes of RoPE tables",
		    m->fmemsize);
	m->inv_freq = m->fmem;
	m->inv_freq_long = m->inv_freq + hf;
	m->inv_freq_local = local ? m->inv_freq_long + hf : NULL;
	model_rope_freqs(m->inv_freq, c, m->rd);
	m->rope_mscale = (float)model_rope_init(m->inv_freq_long,
	    &c->rope_scaling, c->rope_theta, m->rd, 1);
	if (local)
		m->rope_local_mscale = (float)model_rope_init(m->inv_freq_local,
		    &c->rope_local, c->rope_local_theta, m->rd, 0);
	for (i = 0; i < c->num_hidden_layers; i++)
		m->layers[i].rope = c->no_rope[i] ? ROPE_NONE :
		    c->sliding[i] && local ? ROPE_LOCAL : ROPE_GLOBAL;
	/* Gemma: query_pre_attn_scalar**-0.5 and sqrt(hidden), the
	 * Python doubles taken to float32 as torch takes them */
	m->attn_scale = c->query_pre_attn_scalar ?
	    (float)pow(c->query_pre_attn_scalar, -0.5) :
	    1.0f / sqrtf((float)m->hd);
	if (cfg_arch_info(c->arch)->embed_scale)
		m->embed_scale = (float)sqrt((double)c->hidden_size);
	m->act = !strcmp(c->hidden_act, "gelu_pytorch_tanh") ? ACT_GELU_TANH :
	    !strcmp(c->hidden_act, "gelu") ? ACT_GELU : ACT_SILU;
	m->attn = attn_find(kern.name);
	if (threads > 1 && !(m->pool = pool_new(threads)))
		return -1;
	return 0;
}

int
model_load(struct model *m, const char *arg, int threads)
{
	struct mdir d = { 0 };
	double t0 = now_seconds();
	int r;

	memset(m, 0, sizeof(*m));
	r = mdir_resolve(&d, arg) < 0 ? -1 : model_open(m, &d, threads);
	m->dir = d.dir;		/* kept, for messages */
	m->gguf = d.gguf;	/* and for the tokenizer it holds */
	m->builtin = d.builtin;
	d.dir = NULL;
	d.gguf = NULL;
	mdir_free(&d);
	m->load_seconds = now_seconds() - t0;
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
void
model_close(struct model *m)
{
	int i;

	free(m->dir);
	free(m->gguf);

	if (m->layers) {
		for (i = 0; i < m->cfg.num_hidden_layers; i++) {
			struct layer *l = &m->layers[i];

			free(l->attn_norm), free(l->ffn_norm);
			free(l->bq), free(l->bk), free(l->bv), free(l->bo);
			free(l->b1), free(l->b3), free(l->b2);
			free(l->q_norm), free(l->k_norm);
			free(l->post_attn_norm), free(l->post_ffn_norm);
		}
		free(m->layers);
	}
	free(m->norm);
	pool_free(m->pool);
	pthread_mutex_destroy(&m->run);
	mem_unmap(m->fmem, m->fmemsize);
	mem_unmap(m->wmem, m->wmemsize);
	mem_unmap(m->pmem, m->pmemsize);
	source_close(m->ws);
	memset(m, 0, sizeof(*m));
}

