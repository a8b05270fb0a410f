/* model.c: LlamaForCausalLM's forward pass in float32, after HF
 * modeling_llama.py, one step per line, with what the other
 * architectures add (modeling_qwen2/qwen3/smollm3/mistral/gemma2/
 * gemma3/phi3.py) as steps of their own; each step is one dispatch over
 * the threads (sched.h), the same calls for a prefill and for a decode
 * step.  Loading is model_load.c, the fast modes model_mode.c. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kern/kern.h"
#include "model/model.h"
#include "kern/pool.h"
#include "model/sched.h"
#include "base/util.h"

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
model_reset(struct model *m)
{
	m->pos = 0;
}

/* cos(pos * inv_freq) | sin(...) per position into rope (head_dim
 * apart, sin from head_dim/2: the rd/2 rotary pairs of each), float32
 * as HF's LlamaRotaryEmbedding, times the attention factor of yarn and
 * longrope. */
static void
rope_angles(const struct model *m, float *rope, const float *inv_freq,
    float mscale, int pos0, int T)
{
	int hd = m->hd, t, j;

	for (t = 0; t < T; t++) {
		float *cs = rope + (size_t)t * hd;

		for (j = 0; j < m->rd / 2; j++) {
			float a = (float)(pos0 + t) * inv_freq[j];

			cs[j] = (float)cos(a);
			cs[hd / 2 + j] = (float)sin(a);
			if (mscale != 1.0f) {
				cs[j] *= mscale;
				cs[hd / 2 + j] *= mscale;
			}
		}
	}
}

/* Gemma's final_logit_softcapping of rows x vocab logits, in the order
 * of HF's logits / cap, tanh, * cap. */
static void
softcap(float *logits, size_t n, float cap)
{
	size_t i;

	for (i = 0; i < n; i++)
		logits[i] = tanhf(logits[i] / cap) * cap;
}

/* Run T <= MODEL_MAXBATCH positions from m->pos: the logits of all T
 * rows, or of the last, into m->logits. */
static void
forward(struct model *m, const int *ids, int T, int all)
{
	const struct cfg *c = &m->cfg;
	int d = m->dim, ff = c->intermediate_size, t, l, i;
	float *x = m->x;	/* (T, hidden) the residual stream */

	/* x = embed_tokens(ids) (Gemma: * sqrt(hidden)) */
	for (t = 0; t < T; t++)
		kern.to_f32[m->embed.t](x + (size_t)t * d,
		    (const char *)m->embed.w +
		    (size_t)ids[t] * wtype_rowsize(m->embed.t, d), d);
	for (i = 0; m->embed_scale && i < T * d; i++)
		x[i] *= m->embed_scale;
	rope_angles(m, m->rope, m->rope_long ? m->inv_freq_long : m->inv_freq,
	    m->rope_mscale, m->pos, T);
	if (m->rope_local)
		rope_angles(m, m->rope_local, m->inv_freq_local,
		    m->rope_local_mscale, m->pos, T);

	for (l = 0; l < c->num_hidden_layers; l++) {
		const struct layer *w = &m->layers[l];
		const struct hstep qkv_heads[] = {	/* each head, in order: */
			{ H_BIAS, w->bq, w->bk, w->bv },	/* attention_bias */
			{ H_NORM, w->q_norm, w->k_norm, NULL },	/* Qwen3, Gemma 3 */
			{ H_ROPE, w->rope, NULL, NULL },	/* q and k; not
						 * on SmolLM3's no-rope layers */
			{ H_CACHE, NULL, NULL, NULL },	/* k and v */
			{ H_END, NULL, NULL, NULL },
		};

		/* q, k, v = q/k/v_proj(input_layernorm(x)), then qkv_heads */
		step_qkv(m, l, in_norm(x, d, T, w->attn_norm), &w->wq, &w->wk,
		    &w->wv, qkv_heads);
		/* xb = softmax(q k^T * scale) v, causal (and in the layer's
		 * window), per head */
		step_attention(m, l, T);
		/* x += o_proj(xb) (Gemma: post_attention_layernorm of it) */
		step_add(m, x, in_rows(m->xb, m->qdim, T), &w->wo, w->bo,
		    w->post_attn_norm);
		/* hb = act(gate_proj(h)) * up_proj(h),
		 * h = post_attention_layernorm(x) (Gemma: pre_feedforward_) */
		step_glu(m, m->hb, in_norm(x, d, T, w->ffn_norm), &w->w1, w->b1,
		    &w->w3, w->b3);
		/* x += down_proj(hb) (Gemma: post_feedforward_layernorm of it) */
		step_add(m, x, in_rows(m->hb, ff, T), &w->w2, w->b2,
		    w->post_ffn_norm);
	}

	/* logits = lm_head(norm(x)), of every row or of the last */
	if (all)
		step_out(m, m->logits, c->vocab_size, in_norm(x, d, T, m->norm),
		    &m->lm_head);
	else
		step_out(m, m->logits, c->vocab_size,
		    in_norm(x + (size_t)(T - 1) * d, d, 1, m->norm), &m->lm_head);
	/* Gemma (final_logit_softcapping): logits = tanh(logits / cap) * cap */
	if (c->final_logit_softcapping)
		softcap(m->logits, (size_t)(all ? T : 1) * c->vocab_size,
		    c->final_logit_softcapping);
	m->pos += T;
}

/* Whether ids[0..n) can be appended: 0, or -1 after error(). */
static int
check(const struct model *m, const int *ids, int n)
{
	int i, vocab = m->cfg.vocab_size;

	if (n < 1)
		return error("model_forward: no tokens");
	for (i = 0; i < n; i++)
		if (ids[i] < 0 || ids[i] >= vocab)
			return error("token id %d is outside the vocabulary (0..%d)",
			    ids[i], vocab - 1);
	if (n > m->ctx - m->pos)
		return error("sequence of %d positions exceeds the context of %d",
		    m->pos + n, m->ctx);
	return 0;
}

/* Run ids[0..n) in passes of at most MODEL_MAXBATCH positions; with fn,
 * the logits of every row, handed to fn after each pass. */
static int
run(struct model *m, const int *ids, int n, model_rows_fn *fn, void *ctx)
{
	double t0, t = 0;
	int i, T, r = 0;

	/* longrope: a call that runs past the original context turns all
	 * its positions by the long factors, as HF's
	 * _longrope_frequency_update does for a forward of that length */
	m->rope_long = !strcmp(m->cfg.rope_scaling.rope_type, "longrope") &&
	    m->pos + n > m->cfg.rope_scaling.original_max_position_embeddings;

	for (i = 0; i < n && !r; i += T) {
		T = n - i < MODEL_MAXBATCH ? n - i : MODEL_MAXBATCH;
		t0 = now_seconds();
		forward(m, ids + i, T, fn != NULL);
		t += now_seconds() - t0;
		if (fn)
			r = fn(ctx, m->logits, i, T);
	}
	if (n > 1)
		m->stats.prefill += t, m->stats.nprefill += i;
	else
		m->stats.decode += t, m->stats.ndecode++;
	return r;
}

const float *
model_forward(struct model *m, const int *ids, int n)
{
	if (check(m, ids, n) < 0)
		return NULL;
	run(m, ids, n, NULL, NULL);
	return m->logits;
}

int
model_forward_all(struct model *m, const int *ids, int n, model_rows_fn *fn,
    void *ctx)
{
	int vocab = m->cfg.vocab_size;

	if (check(m, ids, n) < 0)
		return -1;
	if (m->logits_rows < (size_t)MODEL_MAXBATCH) {
		float *p = mem_map((size_t)MODEL_MAXBATCH * vocab * sizeof(float));

		if (!p)
			return error("cannot allocate logits for %d positions",
			    MODEL_MAXBATCH);
		m->logits = p;		/* the one-row buffer stays in m->mem */
		m->logits_rows = MODEL_MAXBATCH;
	}
	return run(m, ids, n, fn, ctx);
}
