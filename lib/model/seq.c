/* seq.c: a sequence (seq.h) and LlamaForCausalLM's forward pass in
 * float32, after HF modeling_llama.py, one step per line, with what the
 * other architectures add (modeling_qwen2/qwen3/smollm3/mistral/gemma2/
 * gemma3/phi3.py) as steps of their own; each step is one dispatch over
 * the threads (seq_int.h), the same calls for a prefill and for a
 * decode step.  Loading is model_load.c, the fast modes model_mode.c. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kern/attn.h"
#include "kern/kern.h"
#include "model/model.h"
#include "kern/pool.h"
#include "model/seq.h"
#include "model/seq_int.h"
#include "base/util.h"

void
seq_print_stats(const struct seq *s, FILE *f, const char *prog)
{
	const struct model *m = s->m;

	fprintf(f, "%s: kernels %s, %d thread%s, load %.1f ms\n", prog,
	    kern.name, pool_size(m->pool), pool_size(m->pool) == 1 ? "" : "s",
	    m->load_seconds * 1e3);
	fprintf(f, "%s: mode %s%s\n", prog, model_mode_name(m),
	    m->mode_fallback ? " (bf16-act asked: this cpu lacks "
	    "AVX512-BF16, exact path)" : "");
	if (s->stats.nprefill)
		fprintf(f, "%s: prefill %lld tokens, %.1f tokens/s\n", prog,
		    s->stats.nprefill, s->stats.nprefill / s->stats.prefill);
	if (s->stats.ndecode)
		fprintf(f, "%s: decode %lld tokens, %.1f tokens/s, %.2f ms/token\n",
		    prog, s->stats.ndecode, s->stats.ndecode / s->stats.decode,
		    s->stats.decode * 1e3 / s->stats.ndecode);
}

#define NBUF 14	/* scratch buffers */

size_t
seq_kv_bytes(const struct model *m, int ctx, enum wtype kvt)
{
	size_t n;

	if (ctx < 1 || size_mul(&n, ((size_t)ctx + SEQ_KVBLOCK - 1) /
	    SEQ_KVBLOCK * SEQ_KVBLOCK, (size_t)m->cfg.num_hidden_layers) < 0 ||
	    size_mul(&n, n, attn_kvbytes(kvt, 2 * (size_t)attn_kvrow(kvt,
	    m->hd) * m->cfg.num_key_value_heads)) < 0)
		return 0;
	return n;
}

size_t
seq_att_bytes(const struct model *m, int parts)
{
	size_t heads = (size_t)m->cfg.num_attention_heads;

	/* attleft's counters in float-sized slots, as open_seq's attml */
	_Static_assert(sizeof(_Atomic int) == sizeof(float),
	    "attleft's counters take attml's slots");
	return (size_t)parts * (m->nchunk_max * (m->qdim + 2 * heads) +
	    heads) * sizeof(float);
}

static int open_seq(struct seq *, const struct model *, int, enum wtype,
    struct seq_kvpool *);

int
seq_open(struct seq *s, const struct model *m, int ctx)
{
	return open_seq(s, m, ctx, W_F32, NULL);
}

int
seq_open_kv(struct seq *s, const struct model *m, int ctx, enum wtype kvt)
{
	return open_seq(s, m, ctx, kvt, NULL);
}

int
seq_open_pool(struct seq *s, const struct model *m, int ctx,
    struct seq_kvpool *p)
{
	return open_seq(s, m, ctx, p->kvt, p);
}

/* A sequence with a KV cache of type kvt: its own mapping, or blocks
 * from p (seq_open_pool). */
static int
open_seq(struct seq *s, const struct model *m, int ctx, enum wtype kvt,
    struct seq_kvpool *p)
{
	const struct cfg *c = &m->cfg;
	size_t off, sizes[NBUF], bytes;
	float **bufs[NBUF];
	int i, B = SEQ_MAXBATCH, threads = pool_size(m->pool), wide;

	memset(s, 0, sizeof(*s));
	s->m = m;
	s->ctx = ctx > 0 ? ctx : m->ctx;
	if (seq_kv_type(kvt) < 0)
		return -1;
	s->kvt = kvt;
	if (p) {	/* blocks from the pool as the sequence grows */
		s->pool = p;
		s->kv = p->base;
		if (!(s->btab = calloc((s->ctx + SEQ_KVBLOCK - 1) / SEQ_KVBLOCK,
		    sizeof(*s->btab))))
			return error("cannot allocate a KV block table");
	/* KV cache: reserved for the whole context, touched only as filled */
	} else if (size_mul(&s->kvsize, ((size_t)s->ctx + SEQ_KVSEG - 1) /
	    SEQ_KVSEG, seq_kv_bytes(m, SEQ_KVSEG, kvt)) < 0 || !s->kvsize ||
	    !(s->kv = mem_map(s->kvsize))) {
		s->kv = NULL;
		return error("cannot allocate KV cache for %d positions (%.1f GiB)",
		    s->ctx, (double)s->ctx * c->num_hidden_layers * 2 *
		    c->num_key_value_heads * attn_kvbytes(kvt,
		    attn_kvrow(kvt, m->hd)) / (1 << 30));
	}

	/* scratch: one mapping cut into pieces */
	sizes[0] = (size_t)B * m->dim;		bufs[0] = &s->x;
	sizes[1] = (size_t)B * (m->qdim > m->dim ? m->qdim : m->dim);	bufs[1] = &s->xb;
	sizes[2] = (size_t)B * m->dim;		bufs[2] = &s->xb2;
	sizes[3] = (size_t)B * m->qdim;		bufs[3] = &s->q;
	sizes[4] = (size_t)B * c->intermediate_size;	bufs[4] = &s->hb;
	sizes[5] = (size_t)B * c->intermediate_size;	bufs[5] = &s->hb2;
	sizes[6] = (size_t)m->nchunk_max * m->qdim;	bufs[6] = &s->att;
	sizes[7] = (size_t)B * m->hd;		bufs[7] = &s->rope;
	sizes[8] = (size_t)c->vocab_size;	bufs[8] = &s->logits;
	sizes[9] = (size_t)m->nchunk_max * 2 * c->num_attention_heads +
	    c->num_attention_heads;	/* and attleft's ints */
	bufs[9] = &s->attml;
	sizes[10] = (size_t)B * 2 * m->kvdim;	bufs[10] = &s->kvnew;
	sizes[11] = (size_t)threads * B * m->dim;	bufs[11] = &s->xn;
	sizes[12] = m->inv_freq_local ? (size_t)B * m->hd : 0;
	bufs[12] = &s->rope_local;
	/* a prefill's or a batch's input prepared a thread (seq_sched.c),
	 * reserved: touched only where the table prepares the model's
	 * types (the AVX-512 table's float types: a batch's decode rows;
	 * --bf16-act's and the blocks of 32's: prefill's too) */
	wide = m->qdim > m->dim ? m->qdim : m->dim;
	wide = c->intermediate_size > wide ? c->intermediate_size : wide;
	s->xqbytes = (KERN_XPBYTES(wide, B) + 63) / 64 * 64;
	sizes[13] = (size_t)threads * s->xqbytes / sizeof(float);
	bufs[13] = &s->xq;
	s->logits_rows = 1;
	for (i = 0, bytes = 0; i < NBUF; i++) {
		sizes[i] = (sizes[i] + 15) / 16 * 16 * sizeof(float);
		if (size_add(&bytes, bytes, sizes[i]) < 0)
			return error("model too large for this machine");
	}
	if (!(s->mem = mem_map(bytes)))
		return error("cannot allocate %zu bytes of scratch", bytes);
	s->memsize = bytes;
	for (i = 0, off = 0; i < NBUF; i++) {
		*bufs[i] = sizes[i] ? (float *)((char *)s->mem + off) : NULL;
		off += sizes[i];
	}
	s->attleft = (_Atomic int *)(s->attml + (size_t)m->nchunk_max * 2 *
	    c->num_attention_heads);
	return 0;
}

void
seq_close(struct seq *s)
{
	if (s->logits_rows > 1)
		mem_unmap(s->logits, (size_t)s->logits_rows *
		    s->m->cfg.vocab_size * sizeof(float));
	if (s->attparts > 1)
		mem_unmap(s->att, seq_att_bytes(s->m, s->attparts));
	mem_unmap(s->mem, s->memsize);
	if (s->pool)
		seq_release(s);
	else
		mem_unmap(s->kv, s->kvsize);
	free(s->btab);
	memset(s, 0, sizeof(*s));
}

void
seq_reset(struct seq *s)
{
	s->pos = 0;
	s->span = 0;
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

void
seq_pass(struct seq *s, const int *ids, int T, int all)
{
	const struct model *m = s->m;
	const struct cfg *c = &m->cfg;
	int d = m->dim, ff = c->intermediate_size, V = c->vocab_size, t, l, i;
	float *x = s->x;	/* (T, hidden) the residual stream */
	const struct seq_part *pt;
	size_t rowb = wtype_rowsize(m->embed.t, d);
	/* embed_keep (model.h): each row given back after it is read */
	int drop = m->lm_head.w != m->embed.w && (size_t)c->vocab_size *
	    rowb > m->embed_keep;

	/* x = embed_tokens(ids) (Gemma: * sqrt(hidden)) */
	for (t = 0; t < T; t++) {
		const char *row = (const char *)m->embed.w + (size_t)ids[t] *
		    rowb;

		kern.to_f32[m->embed.t](x + (size_t)t * d, row, d);
		if (drop)
			mem_drop_file(row, rowb);
	}
	for (i = 0; m->embed_scale && i < T * d; i++)
		x[i] *= m->embed_scale;
	for (pt = s->parts; pt < s->parts + s->nparts; pt++) {
		rope_angles(m, s->rope + (size_t)pt->t0 * m->hd,
		    pt->s->rope_long ? m->inv_freq_long : m->inv_freq,
		    m->rope_mscale, pt->s->pos, pt->T);
		if (m->inv_freq_local)
			rope_angles(m, s->rope_local + (size_t)pt->t0 * m->hd,
			    m->inv_freq_local, m->rope_local_mscale,
			    pt->s->pos, pt->T);
	}

	for (l = 0; l < c->num_hidden_layers; l++) {
		const struct layer *w = &m->layers[l];
		const float *rope = w->rope == ROPE_LOCAL ? s->rope_local :
		    w->rope == ROPE_GLOBAL ? s->rope : NULL;
		const struct hstep qkv_heads[] = {	/* each head, in order: */
			{ H_BIAS, w->bq, w->bk, w->bv },	/* attention_bias */
			{ H_NORM, w->q_norm, w->k_norm, NULL },	/* Qwen3, Gemma 3 */
			{ H_ROPE, rope, NULL, NULL },	/* q and k; not
						 * on SmolLM3's no-rope layers */
			{ H_CACHE, NULL, NULL, NULL },	/* k and v */
			{ H_END, NULL, NULL, NULL },
		};

		tap(s, TAP_RESID_PRE, l, T);
		/* q, k, v = q/k/v_proj(input_layernorm(x)), then qkv_heads */
		step_qkv(s, l, in_norm(x, d, T, w->attn_norm), &w->wq, &w->wk,
		    &w->wv, qkv_heads);
		tap(s, TAP_Q, l, T);
		/* xb = softmax(q k^T * scale) v, causal (and in the layer's
		 * window), per head */
		step_attention(s, l);
		tap(s, TAP_PATTERN, l, T);
		/* x += o_proj(xb) (Gemma: post_attention_layernorm of it) */
		step_add(s, x, in_rows(s->xb, m->qdim, T), &w->wo, w->bo,
		    w->post_attn_norm);
		tap(s, TAP_ATTN_OUT, l, T);
		/* hb = act(gate_proj(h)) * up_proj(h),
		 * h = post_attention_layernorm(x) (Gemma: pre_feedforward_) */
		step_glu(s, s->hb, in_norm(x, d, T, w->ffn_norm), &w->w1, w->b1,
		    &w->w3, w->b3);
		/* x += down_proj(hb) (Gemma: post_feedforward_layernorm of it) */
		step_add(s, x, in_rows(s->hb, ff, T), &w->w2, w->b2,
		    w->post_ffn_norm);
		tap(s, TAP_MLP_OUT, l, T);
	}
	tap(s, TAP_NORMALIZED, -1, T);

	/* logits = lm_head(norm(x)), of every row or of each part's last */
	if (all) {
		step_out(s, s->logits, V, in_norm(x, d, T, m->norm),
		    &m->lm_head);
	} else if (s->nparts == 1) {
		step_out(s, s->logits, V,
		    in_norm(x + (size_t)(T - 1) * d, d, 1, m->norm), &m->lm_head);
	} else {
		/* the last rows side by side, each a one-row product as a
		 * sequence alone computes its logits */
		for (i = 0; i < s->nparts; i++)
			memcpy(s->xb2 + (size_t)i * d, x + (size_t)(s->parts[i].t0 +
			    s->parts[i].T - 1) * d, d * sizeof(float));
		s->nvec = s->nparts;
		step_out(s, s->logits, V, in_norm(s->xb2, d, s->nparts, m->norm),
		    &m->lm_head);
	}
	/* Gemma (final_logit_softcapping): logits = tanh(logits / cap) * cap */
	if (c->final_logit_softcapping)
		softcap(s->logits, (size_t)(all ? T : s->nparts) * V,
		    c->final_logit_softcapping);
	for (i = 0; i < s->nparts; i++) {
		pt = &s->parts[i];
		if (s->nparts > 1 && !all)
			memcpy(pt->s->logits, s->logits + (size_t)i * V,
			    V * sizeof(float));
		pt->s->pos += pt->T;
		if (pt->s->kvtop < pt->s->pos)
			pt->s->kvtop = pt->s->pos;
	}
}

/* Whether ids[0..n) can be appended: 0, or -1 after error(). */
static int
check(const struct seq *s, const int *ids, int n)
{
	int i, vocab = s->m->cfg.vocab_size;

	if (n < 1)
		return error("seq_forward: no tokens");
	for (i = 0; i < n; i++)
		if (ids[i] < 0 || ids[i] >= vocab)
			return error("token id %d is outside the vocabulary (0..%d)",
			    ids[i], vocab - 1);
	if (n > s->ctx - s->pos)
		return error("sequence of %d positions exceeds the context of %d",
		    s->pos + n, s->ctx);
	return 0;
}

void
seq_rope_long(struct seq *s, int n)
{
	const struct cfg *c = &s->m->cfg;
	int end = s->pos + n > s->span ? s->pos + n : s->span;

	s->rope_long = !strcmp(c->rope_scaling.rope_type, "longrope") &&
	    end > c->rope_scaling.original_max_position_embeddings;
}

/* Run ids[0..n) in passes of at most SEQ_MAXBATCH positions; with fn,
 * the logits of every row, handed to fn after each pass.  The model's
 * pool runs one pass at a time, whichever sequence asks. */
static int
run(struct seq *s, const int *ids, int n, seq_rows_fn *fn, void *ctx)
{
	const struct model *m = s->m;
	struct seq_part part;
	double t0, t = 0;
	int i, T, r = 0;

	seq_rope_long(s, n);

	for (i = 0; i < n && !r; i += T) {
		T = n - i < SEQ_MAXBATCH ? n - i : SEQ_MAXBATCH;
		pthread_mutex_lock((pthread_mutex_t *)&m->run);
		t0 = now_seconds();
		part = (struct seq_part){ s, 0, T };
		s->parts = &part, s->nparts = 1, s->nvec = 0;
		seq_pass(s, ids + i, T, fn != NULL);
		t += now_seconds() - t0;
		pthread_mutex_unlock((pthread_mutex_t *)&m->run);
		if (fn)
			r = fn(ctx, s->logits, i, T);
	}
	if (n > 1)
		s->stats.prefill += t, s->stats.nprefill += i;
	else
		s->stats.decode += t, s->stats.ndecode++;
	return r;
}

const float *
seq_forward(struct seq *s, const int *ids, int n)
{
	if (check(s, ids, n) < 0 || seq_kv_grow(s, s->pos + n) < 0)
		return NULL;
	run(s, ids, n, NULL, NULL);
	return s->logits;
}

int
seq_forward_all(struct seq *s, const int *ids, int n, seq_rows_fn *fn,
    void *ctx)
{
	int vocab = s->m->cfg.vocab_size;

	if (check(s, ids, n) < 0 || seq_kv_grow(s, s->pos + n) < 0)
		return -1;
	if (s->logits_rows < (size_t)SEQ_MAXBATCH) {
		float *p = mem_map((size_t)SEQ_MAXBATCH * vocab * sizeof(float));

		if (!p)
			return error("cannot allocate logits for %d positions",
			    SEQ_MAXBATCH);
		s->logits = p;		/* the one-row buffer stays in s->mem */
		s->logits_rows = SEQ_MAXBATCH;
	}
	return run(s, ids, n, fn, ctx);
}
