/* model_load.c: a model folder into a struct model: the config, the
 * weights by their HF names (LlamaForCausalLM, modeling_llama.py) from
 * a weight source (wsrc.h), the RoPE frequencies, the KV cache and the
 * scratch buffers. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attn.h"
#include "kern.h"
#include "model.h"
#include "pool.h"
#include "quant.h"
#include "util.h"
#include "wsrc.h"

static int
load_layer(struct model *m, struct layer *l, int i)
{
	const struct cfg *c = &m->cfg;
	struct wsrc *ws = m->ws;
	int d = c->hidden_size, ff = c->intermediate_size;
	char name[128];

#define NAME(s) (snprintf(name, sizeof(name), "model.layers.%d.%s", i, s), name)
	if (!(l->attn_norm = ws->vec(ws, NAME("input_layernorm.weight"), d)) ||
	    ws->mat(ws, &l->wq, NAME("self_attn.q_proj"), m->qdim, d) < 0 ||
	    ws->mat(ws, &l->wk, NAME("self_attn.k_proj"), m->kvdim, d) < 0 ||
	    ws->mat(ws, &l->wv, NAME("self_attn.v_proj"), m->kvdim, d) < 0 ||
	    ws->mat(ws, &l->wo, NAME("self_attn.o_proj"), d, m->qdim) < 0 ||
	    !(l->ffn_norm = ws->vec(ws, NAME("post_attention_layernorm.weight"), d)) ||
	    ws->mat(ws, &l->w1, NAME("mlp.gate_proj"), ff, d) < 0 ||
	    ws->mat(ws, &l->w3, NAME("mlp.up_proj"), ff, d) < 0 ||
	    ws->mat(ws, &l->w2, NAME("mlp.down_proj"), d, ff) < 0)
		return -1;
	/* attention_bias: q/k/v biases; o_proj's too where the checkpoint
	 * has one (LlamaAttention gives it one, Qwen2-style exports do not) */
	if (c->attention_bias &&
	    (!(l->bq = ws->vec(ws, NAME("self_attn.q_proj.bias"), m->qdim)) ||
	    !(l->bk = ws->vec(ws, NAME("self_attn.k_proj.bias"), m->kvdim)) ||
	    !(l->bv = ws->vec(ws, NAME("self_attn.v_proj.bias"), m->kvdim))))
		return -1;
	if (c->attention_bias && ws->has(ws, NAME("self_attn.o_proj.bias")) &&
	    !(l->bo = ws->vec(ws, name, d)))
		return -1;
	if (c->mlp_bias &&
	    (!(l->b1 = ws->vec(ws, NAME("mlp.gate_proj.bias"), ff)) ||
	    !(l->b3 = ws->vec(ws, NAME("mlp.up_proj.bias"), ff)) ||
	    !(l->b2 = ws->vec(ws, NAME("mlp.down_proj.bias"), d))))
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
	/* a quantization_config is taken, or refused, before any weight */
	if (wsrc_ct_open(&m->wct, &m->ws, d->config, &m->wst,
	    d->weights ? d->weights : d->dir) < 0)
		return -1;
	m->dim = c->hidden_size;
	m->hd = c->head_dim;
	m->qdim = c->num_attention_heads * c->head_dim;
	m->kvdim = c->num_key_value_heads * c->head_dim;

	if (m->ws->mat(m->ws, &m->embed, "model.embed_tokens", c->vocab_size,
	    m->dim) < 0)
		return -1;
	if (!(m->layers = calloc(c->num_hidden_layers, sizeof(*m->layers))))
		return error("cannot allocate %d layers", c->num_hidden_layers);
	for (i = 0; i < c->num_hidden_layers; i++)
		if (load_layer(m, &m->layers[i], i) < 0)
			return -1;
	if (!(m->norm = m->ws->vec(m->ws, "model.norm.weight", m->dim)))
		return -1;
	if (c->tie_word_embeddings)
		m->lm_head = m->embed;
	else if (m->ws->mat(m->ws, &m->lm_head, "lm_head", c->vocab_size,
	    m->dim) < 0)
		return -1;
	/* Decoding reads one embedding row, not the table; a tied table
	 * is read whole as the classifier. */
	m->weight_bytes = m->ws->bytes;
	if (!c->tie_word_embeddings)
		m->weight_bytes -= (size_t)c->vocab_size *
		    wtype_rowsize(m->embed.t, m->dim);

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
	m->dir = d.dir;		/* kept, for messages */
	m->builtin = d.builtin;
	d.dir = NULL;
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
void
model_close(struct model *m)
{
	int i;

	free(m->dir);

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
	wsrc_ct_close(m->wct);
	wsrc_st_close(&m->wst);
	memset(m, 0, sizeof(*m));
}

