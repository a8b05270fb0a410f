/* seq_int.h: the steps of a sequence's forward pass, each one dispatch
 * over the model's threads (seq_sched.c; for seq*.c only).
 *
 * A step is a projection of some input rows (optionally RMSNorm'd by
 * every thread itself) through one to three matrices, finished by an
 * epilogue inside the same dispatch: a residual add, SwiGLU, or the
 * per-head steps of q, k and v.  How the rows are split, what is left
 * to the calling thread and what is prefetched depend on the step and
 * on T (prefill or decode) and live here, not in the forward pass;
 * every split gives the same bits. */
#ifndef SEQ_INT_H
#define SEQ_INT_H

#include "kern/attn.h"
#include "model/seq.h"

/* A sequence's rows in a pass: rows [t0, t0 + T) of the pass are its
 * positions s->pos .. s->pos + T - 1 (a pass of one sequence: itself,
 * rows [0, T)). */
struct seq_part {
	struct seq *s;
	int t0, T;
};

/* Run the pass w->parts describe: ids[0..T) their rows in order, T <=
 * SEQ_MAXBATCH, w the scratch (one of the sequences, or a batch's).
 * The logits of all T rows (all; into w->logits, in row order: with
 * several parts, the rows of one-row parts by matvec as w->nvec says),
 * or of each part's last row (into its sequence's s->logits; one part:
 * w->logits), and each part's sequence advanced by its rows. */
void seq_pass(struct seq *w, const int *ids, int T, int all);

/* longrope: a call that runs past the original context turns all its
 * positions by the long factors, as HF's _longrope_frequency_update
 * does for a forward of that length; s->rope_long for a call of n ids
 * (of a run reaching s->span). */
void seq_rope_long(struct seq *s, int n);

/* Elements of a row of sq's KV cache (attn_kvrow: the head size, for
 * q8_0 in whole blocks). */
static inline int
seq_kv_row(const struct seq *sq)
{
	return attn_kvrow(sq->kvt, sq->m->hd);
}

/* Elements of one segment of sq's KV cache (seq.kv's layout): what
 * separates a run's segments. */
static inline size_t
seq_kv_segstride(const struct seq *sq)
{
	return (size_t)sq->m->cfg.num_hidden_layers * 2 *
	    sq->m->cfg.num_key_value_heads * seq_kv_row(sq) * SEQ_KVSEG;
}

/* The first segment's run of key (s = 0) or value (s = 1) rows of KV
 * head g in layer l, from which its positions' offsets count (a tile's
 * attn_off, seq_kv_at). */
static inline void *
seq_kv_head(const struct seq *sq, int l, int s, int g)
{
	const struct model *m = sq->m;

	return (char *)sq->kv + attn_kvbytes(sq->kvt, (((size_t)l * 2 + s) *
	    m->cfg.num_key_value_heads + g) * SEQ_KVSEG * seq_kv_row(sq));
}

/* Key (s = 0) or value (s = 1) of KV head g in layer l at position p
 * of sq's cache: block p / SEQ_KVBLOCK of the sequence's own mapping,
 * or the block its table names in a pool's, in its segment's run of
 * (layer l, key or value, head g) (seq.kv's layout, as attn_off counts
 * it); elements of type sq->kvt. */
/* a Q8_0 cache's groups (attn.h) lie within a block */
_Static_assert(SEQ_KVBLOCK % ATTN_Q8G == 0, "SEQ_KVBLOCK: whole Q8_0 groups");

static inline void *
seq_kv_at(const struct seq *sq, int l, int s, int g, int p)
{
	size_t b = p / SEQ_KVBLOCK;

	if (sq->btab)
		b = sq->btab[b];
	return (char *)seq_kv_head(sq, l, s, g) + attn_kvbytes(sq->kvt,
	    (b >> SEQ_KVSEGSHIFT) * seq_kv_segstride(sq) + ((b &
	    ((1u << SEQ_KVSEGSHIFT) - 1)) * SEQ_KVBLOCK +
	    (size_t)(p % SEQ_KVBLOCK)) * seq_kv_row(sq));
}

/* 0 if m can have a KV cache of type kvt (attn_kvname's), else -1
 * after error(). */
int seq_kv_type(enum wtype kvt);

/* Bytes of the decode attention scratch of parts parts (seq.h's
 * attparts): att's (parts * nchunk_max, qdim) floats, then attml's
 * (parts * nchunk_max, heads, 2), then attleft's (parts, heads). */
size_t seq_att_bytes(const struct model *m, int parts);

/* The blocks of sq's cache for positions up to end (from its pool):
 * 0, or -1 after error(). */
int seq_kv_grow(struct seq *sq, int end);

struct in {			/* the input rows of a step */
	const float *x;		/* (T, ldx) */
	int ldx, T;
	const float *norm;	/* NULL, or the rows are RMSNorm(x) with this
				 * weight (hidden), x being the stream */
};

/* What is done to each head of q, k and v once its rows are made, in
 * the order listed (H_END ends the list).  q, k, v: the vectors a step
 * takes for q heads, k heads and v heads (NULL: none for that kind). */
enum hkind {
	H_END,
	H_BIAS,		/* += q/k/v (heads*head_dim or kv_heads*head_dim) */
	H_NORM,		/* RMSNorm over head_dim with weight q (q heads)
			 * or k (k heads): Qwen3's q_norm and k_norm */
	H_ROPE,		/* RoPE at the token's position; q and k heads,
			 * by the cos | sin rows q (NULL: none) */
	H_CACHE,	/* k and v heads into the layer's KV cache */
};
struct hstep {
	enum hkind kind;
	const float *q, *k, *v;
};

/* The input: rows x (ld apart), as they are or RMSNorm'd with norm. */
static inline struct in
in_rows(const float *x, int ld, int T)
{
	return (struct in){ x, ld, T, NULL };
}
static inline struct in
in_norm(const float *x, int ld, int T, const float *norm)
{
	return (struct in){ x, ld, T, norm };
}

/* Each step runs the rows of s's pass (s->parts): s is the scratch,
 * the parts' sequences hold the caches.
 * q, k, v = (wq, wk, wv) in into s->q and s->kvnew, each head then
 * finished by steps; layer l's cache of each part's sequence gets its
 * rows at its positions. */
void step_qkv(struct seq *s, int l, struct in in, const struct mat *wq,
    const struct mat *wk, const struct mat *wv, const struct hstep *steps);
/* Causal attention softmax(q k^T * attn_scale) v of each part's rows
 * over its sequence's layer l cache, s->q into s->xb; only the
 * layer's window of keys where it has one (the keys before it are not
 * read), the scores soft-capped where the config says so. */
void step_attention(struct seq *s, int l);
/* x += w in + b (b NULL: none); x is (T, w->rows).  With norm (Gemma's
 * post-norms), x += RMSNorm(w in + b) with that weight. */
void step_add(struct seq *s, float *x, struct in in, const struct mat *w,
    const float *b, const float *norm);
/* h = act(wg in + bg) * (wu in + bu), (T, wg->rows): the model's act, silu
 * (SwiGLU) or Gemma's GELU (GeGLU). */
void step_glu(struct seq *s, float *h, struct in in, const struct mat *wg,
    const float *bg, const struct mat *wu, const float *bu);
/* out[t*ldo + r] = (w in)[t][r]. */
void step_out(struct seq *s, float *out, int ldo, struct in in,
    const struct mat *w);

/* The tap points of the forward pass (seq.h), grouped as the steps make
 * them: TAP_Q gives q, k and v; TAP_PATTERN the pattern and z;
 * TAP_ATTN_OUT attn_out and resid_mid; TAP_MLP_OUT mlp_out, resid_post
 * and the lens (seq_tap.c). */
void seq_tap_at(struct seq *s, enum seq_tap_name at, int l, int T);
static inline void
tap(struct seq *s, enum seq_tap_name at, int l, int T)
{
	if (s->tap)
		seq_tap_at(s, at, l, T);
}

#endif
