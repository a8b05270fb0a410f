/* seq_tap.c: the tap points of the forward pass (seq.h), made from what
 * the steps leave in the sequence's buffers, and what only a tap needs:
 * the attention probabilities (a plain reference attention over the
 * cached keys, as HF's eager_attention_forward: the tiled kernels never
 * hold them) and the logit lens.  Nothing here runs without a tap. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kern/conv.h"
#include "kern/kern.h"
#include "model/model.h"
#include "model/seq.h"
#include "model/seq_int.h"
#include "base/util.h"

#define LENS_ROWS 32	/* rows of the lens a step_out */

static const char *const labels[TAP_NNAMES] = {
	[TAP_RESID_PRE] = "hook_resid_pre",
	[TAP_Q] = "attn.hook_q",
	[TAP_K] = "attn.hook_k",
	[TAP_V] = "attn.hook_v",
	[TAP_PATTERN] = "attn.hook_pattern",
	[TAP_Z] = "attn.hook_z",
	[TAP_ATTN_OUT] = "hook_attn_out",
	[TAP_RESID_MID] = "hook_resid_mid",
	[TAP_MLP_OUT] = "hook_mlp_out",
	[TAP_RESID_POST] = "hook_resid_post",
	[TAP_LENS] = "hook_lens",
	[TAP_NORMALIZED] = "ln_final.hook_normalized",
};

const char *
seq_tap_label(enum seq_tap_name name, int l, char *buf, size_t n)
{
	if (l < 0)
		snprintf(buf, n, "%s", labels[name]);
	else
		snprintf(buf, n, "blocks.%d.%s", l, labels[name]);
	return buf;
}

void
seq_tap_free(struct seq_tap *t)
{
	free(t->buf);
	t->buf = NULL;
	t->bufsize = 0;
}

/* t's scratch of at least n floats, or NULL (t->failed set). */
static float *
scratch(struct seq_tap *t, size_t n)
{
	float *p;

	if (n <= t->bufsize)
		return t->buf;
	if (!(p = realloc(t->buf, n * sizeof(float)))) {
		t->failed = 1;
		return NULL;
	}
	t->buf = p;
	t->bufsize = n;
	return p;
}

static int
wanted(const struct seq_tap *t, enum seq_tap_name name)
{
	return t->names >> name & 1;
}

/* Hand on rows (ld floats apart, cols of each) of point name. */
static void
put(struct seq *s, enum seq_tap_name name, int l, int T, const float *x,
    size_t ld, int cols)
{
	struct seq_tap *t = s->tap;
	float *b;
	int i;

	if (!wanted(t, name))
		return;
	if (ld == (size_t)cols) {
		t->fn(t->ctx, name, l, s->pos, T, cols, x);
		return;
	}
	if (!(b = scratch(t, (size_t)T * cols)))
		return;
	for (i = 0; i < T; i++)
		memcpy(b + (size_t)i * cols, x + i * ld, cols * sizeof(float));
	t->fn(t->ctx, name, l, s->pos, T, cols, b);
}

/* What a residual step added to the stream: o_proj or down_proj's
 * product in xb2, plus its bias, or with a post-norm (Gemma) already
 * normed with the bias inside (seq_sched.c's step_add). */
static void
put_added(struct seq *s, enum seq_tap_name name, int l, int T,
    const float *b, const float *norm)
{
	int d = s->m->dim, t, i;
	float *o;

	if (!wanted(s->tap, name))
		return;
	if (norm || !b) {
		put(s, name, l, T, s->xb2, d, d);
		return;
	}
	if (!(o = scratch(s->tap, (size_t)T * d)))
		return;
	for (t = 0; t < T; t++)
		for (i = 0; i < d; i++)
			o[(size_t)t * d + i] = s->xb2[(size_t)t * d + i] + b[i];
	s->tap->fn(s->tap->ctx, name, l, s->pos, T, d, o);
}

/* Key of KV head g in layer l at position p, element i, as float32. */
static float
key_at(const struct seq *sq, int l, int g, int p, int i)
{
	return attn_kvget(seq_kv_at(sq, l, 0, g, p - p % ATTN_Q8G),
	    p % ATTN_Q8G, i, seq_kv_row(sq), sq->kvt);
}

/* The attention probabilities of the T positions from s->pos in layer
 * l, a row (heads, pos + 1) at a time: softmax(q k^T * scale) in double,
 * soft-capped as HF's (tanh(s / cap) * cap), 0 outside the window. */
static void
put_pattern(struct seq *s, int l, int T)
{
	const struct model *m = s->m;
	int heads = m->cfg.num_attention_heads, hd = m->hd;
	int kv_mul = m->qdim / m->kvdim, w = m->layers[l].window;
	float cap = m->cfg.attn_logit_softcapping;
	int t, h, p, i, pos, lo;
	float *row;

	if (!wanted(s->tap, TAP_PATTERN))
		return;
	for (t = 0; t < T; t++) {
		pos = s->pos + t;
		lo = w && pos - w + 1 > 0 ? pos - w + 1 : 0;
		if (!(row = scratch(s->tap, (size_t)heads * (pos + 1))))
			return;
		for (h = 0; h < heads; h++) {
			const float *q = s->q + (size_t)t * m->qdim + h * hd;
			float *r = row + (size_t)h * (pos + 1);
			double mx = -INFINITY, sum = 0, sc;

			for (p = 0; p < lo; p++)
				r[p] = 0;
			for (p = lo; p <= pos; p++) {
				double dot = 0;

				for (i = 0; i < hd; i++)
					dot += (double)q[i] *
					    key_at(s, l, h / kv_mul, p, i);
				sc = dot * m->attn_scale;
				if (cap)
					sc = tanh(sc / cap) * cap;
				r[p] = (float)sc;
				mx = sc > mx ? sc : mx;
			}
			for (p = lo; p <= pos; p++)
				sum += exp(r[p] - mx);
			for (p = lo; p <= pos; p++)
				r[p] = (float)(exp(r[p] - mx) / sum);
		}
		s->tap->fn(s->tap->ctx, TAP_PATTERN, l, pos, 1,
		    heads * (pos + 1), row);
	}
}

/* The logit lens of the stream's T rows: the final norm and lm_head,
 * the same dispatch as the forward's own logits (so the last layer's
 * lens is the model's logits, bit for bit), LENS_ROWS rows at a time. */
static void
put_lens(struct seq *s, int l, int T)
{
	const struct model *m = s->m;
	int V = m->cfg.vocab_size, d = m->dim, t, n;
	float cap = m->cfg.final_logit_softcapping;
	size_t i;
	float *o;

	if (!wanted(s->tap, TAP_LENS) ||
	    !(o = scratch(s->tap, (size_t)LENS_ROWS * V)))
		return;
	for (t = 0; t < T; t += n) {
		n = T - t < LENS_ROWS ? T - t : LENS_ROWS;
		step_out(s, o, V, in_norm(s->x + (size_t)t * d, d, n, m->norm),
		    &m->lm_head);
		for (i = 0; cap && i < (size_t)n * V; i++)
			o[i] = tanhf(o[i] / cap) * cap;
		s->tap->fn(s->tap->ctx, TAP_LENS, l, s->pos + t, n, V, o);
	}
}

/* ln_final's output: RMSNorm with model.norm, as the logits' input. */
static void
put_normalized(struct seq *s, int T)
{
	const struct model *m = s->m;
	int d = m->dim, t;
	float *o;

	if (!wanted(s->tap, TAP_NORMALIZED) ||
	    !(o = scratch(s->tap, (size_t)T * d)))
		return;
	for (t = 0; t < T; t++)
		kern.rmsnorm(o + (size_t)t * d, s->x + (size_t)t * d, m->norm,
		    d, m->cfg.rms_norm_eps);
	s->tap->fn(s->tap->ctx, TAP_NORMALIZED, -1, s->pos, T, d, o);
}

void
seq_tap_at(struct seq *s, enum seq_tap_name at, int l, int T)
{
	const struct model *m = s->m;
	const struct layer *w = l >= 0 ? &m->layers[l] : NULL;
	int d = m->dim;

	if (l >= 0 && (l < s->tap->l0 || l >= s->tap->l1))
		return;
	switch (at) {
	case TAP_RESID_PRE:
		put(s, TAP_RESID_PRE, l, T, s->x, d, d);
		break;
	case TAP_Q:
		put(s, TAP_Q, l, T, s->q, m->qdim, m->qdim);
		put(s, TAP_K, l, T, s->kvnew, 2 * (size_t)m->kvdim, m->kvdim);
		put(s, TAP_V, l, T, s->kvnew + m->kvdim, 2 * (size_t)m->kvdim,
		    m->kvdim);
		break;
	case TAP_PATTERN:
		put_pattern(s, l, T);
		put(s, TAP_Z, l, T, s->xb, m->qdim, m->qdim);
		break;
	case TAP_ATTN_OUT:
		put_added(s, TAP_ATTN_OUT, l, T, w->bo, w->post_attn_norm);
		put(s, TAP_RESID_MID, l, T, s->x, d, d);
		break;
	case TAP_MLP_OUT:
		put_added(s, TAP_MLP_OUT, l, T, w->b2, w->post_ffn_norm);
		put(s, TAP_RESID_POST, l, T, s->x, d, d);
		put_lens(s, l, T);
		break;
	case TAP_NORMALIZED:
		put_normalized(s, T);
		break;
	default:
		break;
	}
}
