/* seq_sched.c: the steps of the forward pass as dispatches over the
 * pool (seq_int.h): one work function for every projection, its epilogue
 * chosen by the step; the attention tiles; the decode-time prefetch
 * of the KV cache. */
#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "kern/attn.h"
#include "kern/kern.h"
#include "model/model.h"
#include "kern/pool.h"
#include "model/seq_int.h"

#define kv_at seq_kv_at	/* seq_int.h */

/* RMSNorm with weight w of the T rows of the residual stream at x (ldx
 * apart) into the calling thread's own buffer (hidden apart).  Each
 * thread of a dispatch normalizes all T rows itself, the same floats in
 * each, so that the rows it multiplies next sit in its own cache and no
 * thread waits for a serial pass: the stream's columns were written by
 * all the threads, and a core reads another's lines slowly here. */
static const float *
normed(struct seq *sq, unsigned long long op, const float *x, int ldx,
    const float *w, int T)
{
	/* the dispatch whose input this thread's buffer holds: a thread
	 * taking several chunks of one (pool_for_dyn) normalizes once */
	static _Thread_local unsigned long long done;
	const struct model *m = sq->m;
	float *o = sq->xn + (size_t)pool_self() * SEQ_MAXBATCH * m->dim;
	int t;

	if (done == op)
		return o;
	for (t = 0; t < T; t++)
		kern.rmsnorm(o + (size_t)t * m->dim, x + (size_t)t * ldx, w,
		    m->dim, m->cfg.rms_norm_eps);
	done = op;
	return o;
}

/* Whether type t's matmul gives each token matvec's bits (kern.h):
 * not where wtypes says its decode sums otherwise (mvdiff). */
static int
mm_exact(enum wtype t)
{
	return !wtypes[t].mvdiff;
}

/* out[t*ldo + r] = W[r] . x_t for rows [r0, r1) and T tokens, the first
 * nvec of them one-row passes of their sequences: for a type whose
 * matmul differs from its matvec, each of those by matvec's bits, as
 * its sequence alone would run it (all of them in one pass of the
 * weights where the table has matvecs for the type).  xp: the tokens
 * prepared (kern.xprep; prepared()), x read only for what they cannot
 * serve (kern.h). */
static void
mat_rows(const struct mat *w, float *out, int ldo, const float *x, int ldx,
    const void *xp, int T, int nvec, int r0, int r1)
{
	int t;

	if (xp) {	/* T > 1; its matmul is its matvec (one_prep) */
		kern.matmulx[w->t](out, ldo, w->w, xp, x, ldx, w->cols, T, r0,
		    r1);
		return;
	}
	if (T == 1) {
		kern.matvec[w->t](out, w->w, x, w->cols, r0, r1);
		return;
	}
	if (mm_exact(w->t))
		nvec = 0;
	if (nvec > 1 && kern.matvecs[w->t])
		kern.matvecs[w->t](out, ldo, w->w, x, ldx, w->cols, nvec, r0,
		    r1);
	else
		for (t = 0; t < nvec; t++)
			kern.matvec[w->t](out + (size_t)t * ldo, w->w,
			    x + (size_t)t * ldx, w->cols, r0, r1);
	if (T > nvec)
		kern.matmul[w->t](out + (size_t)nvec * ldo, ldo, w->w,
		    x + (size_t)nvec * ldx, ldx, w->cols, T - nvec, r0, r1);
}

/* One dispatch: up to three matrix products on one input, their output
 * rows stacked into one range that the threads split (q, k and v: one
 * barrier instead of three), or for EPI_GLU two products over the same
 * rows; then what each share does with the rows it made. */
enum epi {
	EPI_OUT,	/* nothing: the products are the output */
	EPI_ADD,	/* x += out + b, the residual stream */
	EPI_GLU,	/* out0 = silu(out0 + b0) * (out1 + b1) */
	EPI_HEADS,	/* the heads' steps (own: in the share itself) */
};

struct op {
	struct seq *sq;
	struct in in;
	enum epi epi;
	int n;
	struct {
		const struct mat *w;
		float *out;		/* out[t*ldo + r] */
		int ldo;
		const float *b;		/* EPI_ADD, EPI_GLU: bias or NULL */
	} p[3];
	float *x;			/* EPI_ADD: the stream (T, rows) */
	const struct hstep *steps;	/* EPI_HEADS */
	int own;			/* EPI_HEADS: a share finishes its heads */
	int fetch;			/* first fetch this thread's share of
					 * the layer's KV cache (decode) */
	int layer, pos0;
	unsigned long long id;		/* dispatch's number for it, never 0
					 * and never reused */
	int prep;			/* T > 1 and one kern.xprep for all
					 * the products (one_prep) */
};

static const void *prepared(const struct op *o);

static void attn_fetch(struct seq *sq, int l, int pos0);

/* The heads h0 <= h < h1 of the stacked q, k and v rows (q heads, then
 * k, then v) of all tokens, through the op's steps in order. */
static void
heads(const struct op *o, int h0, int h1)
{
	struct seq *sq = o->sq;
	const struct model *m = sq->m;
	int hd = m->hd, nq = m->qdim / hd, nkv = m->kvdim / hd, h, t, i, off;
	int g = 0, s = 0;	/* the KV head and K (0) or V (1) of a k or v head */
	const struct seq_part *pt;	/* the part of token t */
	const struct hstep *st;
	const float *b, *cs;
	float *x, *x0;
	size_t ld;

	for (h = h0; h < h1; h++) {
		if (h < nq) {		/* a query head */
			x0 = sq->q + h * hd;
			ld = m->qdim;
			off = h * hd;
		} else {		/* a key (s 0) or value (s 1) head */
			g = (h - nq) % nkv;
			s = (h - nq) / nkv;
			x0 = sq->kvnew + s * m->kvdim + g * hd;
			ld = 2 * m->kvdim;
			off = g * hd;
		}
		for (t = 0, pt = sq->parts; t < o->in.T; t++) {
			while (t >= pt->t0 + pt->T)
				pt++;
			x = x0 + (size_t)t * ld;
			for (st = o->steps; st->kind != H_END; st++)
				switch (st->kind) {
				case H_BIAS:
					b = h < nq ? st->q : s ? st->v : st->k;
					for (i = 0; b && i < hd; i++)
						x[i] += b[off + i];
					break;
				case H_NORM:
					b = h < nq ? st->q : s ? NULL : st->k;
					if (b)
						kern.rmsnorm(x, x, b, hd,
						    m->cfg.rms_norm_eps);
					break;
				case H_ROPE:
					if (!st->q || h >= nq + nkv)
						break;
					cs = st->q + (size_t)t * hd;
					if (m->cfg.rope_pairs)	/* GGUF's permuted rows */
						kern_rope_pairs(x, 1, m->rd, cs,
						    cs + hd / 2);
					else
						kern.rope(x, 1, m->rd, cs, cs + hd / 2);
					break;
				case H_CACHE:	/* rounded to the cache's type */
					if (h >= nq) {
						int p = pt->s->pos + t - pt->t0;

						attn_kvput(kv_at(pt->s, o->layer,
						    s, g, p - p % ATTN_Q8G),
						    p % ATTN_Q8G, x, hd,
						    pt->s->kvt);
					}
					break;
				case H_END:
					break;
				}
		}
	}
}

/* Rows [r0, r1) of op o, then their epilogue. */
static void
op_rows(void *ctx, int r0, int r1)
{
	const struct op *o = ctx;
	struct seq *sq = o->sq;
	const struct model *m = sq->m;
	const float *x = o->in.x;
	const void *xp = o->prep ? prepared(o) : NULL;
	int ldx = o->in.ldx, T = o->in.T, k, base = 0, t, r;

	if (o->fetch)
		attn_fetch(sq->parts[0].s, o->layer, o->pos0);
	if (o->in.norm) {	/* once a thread: prepared() may have */
		x = normed(sq, o->id, x, ldx, o->in.norm, T);
		ldx = m->dim;
	}
	if (o->epi == EPI_GLU) {
		const float *b1 = o->p[0].b, *b3 = o->p[1].b;
		int ff = o->p[0].ldo;

		mat_rows(o->p[0].w, o->p[0].out, ff, x, ldx, xp, T, sq->nvec,
		    r0, r1);
		mat_rows(o->p[1].w, o->p[1].out, ff, x, ldx, xp, T, sq->nvec,
		    r0, r1);
		for (t = 0; t < T; t++) {
			float *h = o->p[0].out + (size_t)t * ff;
			float *u = o->p[1].out + (size_t)t * ff;

			for (r = r0; r < r1 && b1; r++)
				h[r] += b1[r];
			for (r = r0; r < r1 && b3; r++)
				u[r] += b3[r];
			if (m->act == ACT_SILU)
				kern.swiglu(h + r0, h + r0, u + r0, r1 - r0);
			else if (m->act == ACT_GELU_TANH)
				kern.geglu(h + r0, h + r0, u + r0, r1 - r0);
			else
				kern_geglu(h + r0, h + r0, u + r0, r1 - r0,
				    m->act);
		}
		return;
	}
	for (k = 0; k < o->n && r0 < r1; k++) {
		const struct mat *w = o->p[k].w;
		int i0 = r0 - base, i1 = r1 - base;

		if (i0 < w->rows && i1 > 0) {
			i0 = i0 < 0 ? 0 : i0;
			i1 = i1 > w->rows ? w->rows : i1;
			mat_rows(w, o->p[k].out, o->p[k].ldo, x, ldx, xp,
			    T, sq->nvec, i0, i1);
		}
		base += w->rows;
	}
	if (o->epi == EPI_ADD) {
		const float *b = o->p[0].b, *out = o->p[0].out;
		float *xs = o->x;
		int d = o->p[0].w->rows;

		for (t = 0; t < T; t++, xs += d, out += d)
			if (b)
				for (r = r0; r < r1; r++)
					xs[r] += out[r] + b[r];
			else
				for (r = r0; r < r1; r++)
					xs[r] += out[r];
	} else if (o->epi == EPI_HEADS && o->own) {
		heads(o, r0 / m->hd, r1 / m->hd);
	}
}

/* Op o's input prepared by kern.xprep for its products, once a thread
 * (a thread taking several chunks of a pool_for_dyn prepares once, as
 * normed normalizes once), in the thread's own part of the scratch's
 * xq: all T tokens, normalized first where the op says.  Each thread
 * prepares all of them, as each normalizes all of them (normed): a
 * share a thread, put together behind a pool_for's barrier, took a
 * little less work but waited at that barrier (bench/NOTES.md). */
static const void *
prepared(const struct op *o)
{
	static _Thread_local unsigned long long done;
	struct seq *sq = o->sq;
	const struct mat *w = o->p[0].w;
	char *xp = (char *)sq->xq + (size_t)pool_self() * sq->xqbytes;
	const float *x = o->in.x;
	int ldx = o->in.ldx;

	if (done == o->id)
		return xp;
	if (o->in.norm) {
		x = normed(sq, o->id, x, ldx, o->in.norm, o->in.T);
		ldx = sq->m->dim;
	}
	kern.xprep[w->t](xp, x, ldx, w->cols, o->in.T, 0, o->in.T);
	done = o->id;
	return xp;
}

/* Whether op o's products (q, k and v; gate and up) can read one
 * preparation of a prefill's input (prepared): the table has one, and
 * the same, for each of their types.  Where each product's matmul
 * prepared all T tokens again, each thread quantized them three times
 * for q, k and v, twice for gate and up (--int8-act's blocks of 32:
 * 4-5% of a 135M prefill; W_Q4I's 4-bit rows: a third of its
 * quantizing in a batch's step, bench/NOTES.md).  Those types' matmul
 * is their matvec (mm_exact), so nvec has nothing to do.  A type whose matmul prepares
 * nothing itself (wtypes' xprep 0: the float types, laid out for the
 * register blocks) only up to KERN_TFEW tokens, a batch's decode rows. */
static int
one_prep(const struct op *o)
{
	kern_xprep_fn *f = kern.xprep[o->p[0].w->t];
	int k;

	if (o->in.T < 2 || !f || (o->in.T > KERN_TFEW &&
	    !wtypes[o->p[0].w->t].xprep))
		return 0;
	for (k = 1; k < o->n; k++)
		if (kern.xprep[o->p[k].w->t] != f)
			return 0;
	return 1;
}

/* Run op o over its rows in chunks of align.  A prefill takes them as
 * the threads come free (pool_for_dyn): its dispatches are long, and
 * a thread the machine slows down would hold the others at the
 * barrier; but not where each call first prepares all T activations
 * (wtypes' xprep), unless a thread prepares them once (one_prep).  A
 * decode step keeps one fixed share a thread: attn_fetch prepares the
 * attention items pool_share says a thread gets, and the matvec's
 * streams are laid out over the whole share. */
static void
dispatch(struct op *o, int rows, int align)
{
	static _Atomic unsigned long long ids;

	o->id = atomic_fetch_add(&ids, 1) + 1;
	o->prep = one_prep(o);
	if (o->in.T > 1 && (o->prep || !wtypes[o->p[0].w->t].xprep))
		pool_for_dyn(o->sq->m->pool, rows, align, op_rows, o);
	else
		pool_for(o->sq->m->pool, rows, align, op_rows, o);
}

/* A prefill splits q, k and v at head boundaries, so that each share
 * also finishes its heads for all tokens and nothing of it is left to
 * the calling thread.  A decode step splits them in 16s instead and
 * finishes the heads afterwards: whole heads would give one thread 8
 * of SmolLM2's 15, which costs more than the serial finish of one token
 * (bench/NOTES.md); and each thread first starts fetching the KV cache
 * its attention items will read. */
void
step_qkv(struct seq *sq, int l, struct in in, const struct mat *wq,
    const struct mat *wk, const struct mat *wv, const struct hstep *steps)
{
	const struct model *m = sq->m;
	float *kn = sq->kvnew;
	int kvdim = m->kvdim, rows = m->qdim + 2 * kvdim;
	struct op o = { sq, in, EPI_HEADS, 3, {
		{ wq, sq->q, m->qdim, NULL },
		{ wk, kn, 2 * kvdim, NULL },
		{ wv, kn + kvdim, 2 * kvdim, NULL } },
		NULL, steps, 0, 0, l, sq->parts[0].s->pos, 0, 0 };

	if (in.T > 1) {
		o.own = 1;
		dispatch(&o, rows, m->hd);
	} else {
		o.fetch = 1;
		dispatch(&o, rows, 16);
		heads(&o, 0, rows / m->hd);
	}
}

/* A post-norm needs whole rows: the products first, then each row
 * normalised and added by the calling thread. */
void
step_add(struct seq *sq, float *x, struct in in, const struct mat *w,
    const float *b, const float *norm)
{
	const struct model *m = sq->m;
	struct op o = { sq, in, norm ? EPI_OUT : EPI_ADD, 1,
		{ { w, sq->xb2, w->rows, b } }, x, NULL, 0, 0, 0, 0, 0, 0 };
	int d = w->rows, t, r;
	float *y;

	dispatch(&o, w->rows, 16);
	for (t = 0; norm && t < in.T; t++) {
		y = sq->xb2 + (size_t)t * d;
		for (r = 0; b && r < d; r++)
			y[r] += b[r];
		kern.rmsnorm(y, y, norm, d, m->cfg.rms_norm_eps);
		for (r = 0; r < d; r++)
			x[(size_t)t * d + r] += y[r];
	}
}

/* Each share computes its rows of gate and up for all tokens, adds
 * their biases and applies SwiGLU (elementwise, so the split changes
 * nothing), leaving no serial pass over (T, intermediate). */
void
step_glu(struct seq *sq, float *h, struct in in, const struct mat *wg,
    const float *bg, const struct mat *wu, const float *bu)
{
	struct op o = { sq, in, EPI_GLU, 2, {
		{ wg, h, wg->rows, bg },
		{ wu, sq->hb2, wg->rows, bu } }, NULL, NULL, 0, 0, 0, 0, 0, 0 };

	dispatch(&o, wg->rows, 16);
}

void
step_out(struct seq *sq, float *out, int ldo, struct in in,
    const struct mat *w)
{
	struct op o = { sq, in, EPI_OUT, 1, { { w, out, ldo, NULL } }, NULL,
		NULL, 0, 0, 0, 0, 0, 0 };

	dispatch(&o, w->rows, 16);
}

/* Attention work items.  Prefill: one tile per (KV head, group of up to
 * ATTN_MAXROWS query heads sharing it, block of tq tokens), the blocks of
 * each group in the order first, last, second, next-to-last, ... so that
 * any contiguous share of items gets as much of the causal triangle as
 * any other.  Decode (one token): one item per (head group, range of
 * chunk keys), partial results merged afterwards.  The items depend on
 * the shapes only, never on the thread count. */
struct attn_job {
	struct seq *sq;		/* the scratch (att, attml) */
	struct seq *kv;		/* the sequence whose cache it reads */
	const float *q;		/* its query rows (T, qdim) */
	float *out;		/* its output rows (T, qdim) */
	int layer, T, pos0;
	int hpt, nsub;		/* query heads per tile, tiles per KV head */
	int tq, nqb;		/* tokens per tile, tiles per head group */
	int chunk, nchunk;	/* decode: keys per range, ranges */
	int base;		/* decode: the first range's start (a window's
				 * first key, down to a key block) */
	float *att, *attml;	/* decode: the ranges' partial results
				 * (nchunk, qdim) and (nchunk, heads, 2) */
	_Atomic int *left;	/* decode: (nkv * nsub) each head group's
				 * ranges summed so far (attn_count) */
};

/* The first key position pos sees in layer l: 0, or the start of its
 * sliding window. */
static int
attn_lo(const struct model *m, int l, int pos)
{
	int w = m->layers[l].window;

	return w && pos - w + 1 > 0 ? pos - w + 1 : 0;
}

/* Decode item i of job j (one with key ranges): the cached positions
 * [*p0, *p1) it attends to; its KV head is i / nchunk / nsub.  The
 * ranges are cut from base, a key block boundary, but the first starts
 * at the window's first key: the tiles fill a block's keys before p0
 * with p0's, so a window costs its own keys and not its block's. */
static void
attn_range(const struct attn_job *j, int i, int *p0, int *p1)
{
	int lo = attn_lo(j->sq->m, j->layer, j->pos0);

	*p0 = j->base + i % j->nchunk * j->chunk;
	*p1 = *p0 + j->chunk < j->pos0 + 1 ? *p0 + j->chunk : j->pos0 + 1;
	*p0 = *p0 > lo ? *p0 : lo;
}

/* Item i's tile of job j, all but its rows and keys (a.q, T, pos0,
 * p0, p1); its first query head. */
static int
attn_tile_at(const struct attn_job *j, int i, struct attn_tile *a)
{
	const struct model *m = j->sq->m;
	int hd = m->hd, kv_mul = m->qdim / m->kvdim, h0, nh, g;
	int n = j->nchunk ? j->nchunk : j->nqb, sub = i / n % j->nsub;

	g = i / n / j->nsub;
	h0 = g * kv_mul + sub * j->hpt;
	nh = kv_mul - sub * j->hpt;
	nh = nh < j->hpt ? nh : j->hpt;
	memset(a, 0, sizeof(*a));
	a->k = seq_kv_head(j->kv, j->layer, 0, g);
	a->v = seq_kv_head(j->kv, j->layer, 1, g);
	a->btab = j->kv->btab;
	a->ldkv = seq_kv_row(j->kv);
	a->kvb = SEQ_KVBLOCK;
	a->bstride = (size_t)SEQ_KVBLOCK * a->ldkv;
	a->segshift = SEQ_KVSEGSHIFT;
	a->segstride = seq_kv_segstride(j->kv);
	a->ldq = m->qdim;
	a->hd = hd;
	a->nh = nh;
	a->scale = m->attn_scale;
	a->win = m->layers[j->layer].window;
	a->softcap = m->cfg.attn_logit_softcapping;
	a->kvt = j->kv->kvt;
	a->touched = j->T == 1;	/* decode: read before or during the
				 * tile before it (decode_items) */
	if (j->nchunk) {	/* decode: keys of range i % n */
		a->q = j->q + h0 * hd;
		a->T = 1;
		a->pos0 = j->pos0;
		attn_range(j, i, &a->p0, &a->p1);
	}
	return h0;
}

/* Heads h0 <= h < h0 + nh of job j: their key ranges' partial results
 * merged into the output. */
static void
attn_merge_heads(const struct attn_job *j, int h0, int nh)
{
	const struct model *m = j->sq->m;
	int heads = m->cfg.num_attention_heads, h;

	for (h = h0; h < h0 + nh; h++)
		attn_merge(j->out + h * m->hd, j->att + h * m->hd, m->qdim,
		    j->attml + 2 * h, 2 * (size_t)heads, j->nchunk, m->hd);
}

/* Decode's items i0 <= i < i1, key ranges, in order.  The first tile
 * is read into cache in address order (attn_touch); over a 16-bit
 * cache each tile then prefetches the next one a key block at a time
 * while it computes (attn_tile.ahead), so that the cache's reading and
 * the tiles' compute overlap; a float32 cache's tiles are each read
 * first (a key block of it is twice the lines, and prefetching them
 * alongside was no faster: bench/NOTES.md). */
static void
decode_items(const struct attn_job *j, int i0, int i1)
{
	const struct model *m = j->sq->m;
	int heads = m->cfg.num_attention_heads, i, c = 0, h[2];
	float ml[2 * ATTN_MAXROWS];
	struct attn_tile t[2], *a;

	h[0] = attn_tile_at(j, i0, &t[0]);
	attn_touch(&t[0]);
	for (i = i0; i < i1; i++, c ^= 1) {
		a = &t[c];
		if (i + 1 < i1) {
			h[c ^ 1] = attn_tile_at(j, i + 1, &t[c ^ 1]);
			a->ahead = a->kvt != W_F32 ? &t[c ^ 1] : NULL;
		}
		m->attn->part(j->att + (size_t)(i % j->nchunk) * m->qdim +
		    h[c] * m->hd, m->qdim, ml, a);
		memcpy(j->attml + 2 * ((size_t)(i % j->nchunk) * heads + h[c]),
		    ml, 2 * a->nh * sizeof(float));
		if (atomic_fetch_add_explicit(&j->left[i / j->nchunk], 1,
		    memory_order_acq_rel) == j->nchunk - 1)
			attn_merge_heads(j, h[c], a->nh);
		if (i + 1 < i1 && !a->ahead)
			attn_touch(&t[c ^ 1]);
	}
}

static void
attn_items(void *ctx, int i0, int i1)
{
	const struct attn_job *j = ctx;
	const struct model *m = j->sq->m;
	int hd = m->hd, i, h0, qb, t0;
	float ml[2 * ATTN_MAXROWS], *out;
	struct attn_tile a;

	if (j->nchunk) {
		if (i0 < i1)
			decode_items(j, i0, i1);
		return;
	}
	for (i = i0; i < i1; i++) {
		h0 = attn_tile_at(j, i, &a);
		qb = i % j->nqb;	/* 0, n-1, 1, n-2, ... */
		qb = qb % 2 ? j->nqb - 1 - qb / 2 : qb / 2;
		t0 = qb * j->tq;
		a.q = j->q + (size_t)t0 * m->qdim + h0 * hd;
		a.T = j->T - t0 < j->tq ? j->T - t0 : j->tq;
		a.pos0 = j->pos0 + t0;
		a.p0 = attn_lo(m, j->layer, a.pos0);
		a.p1 = a.pos0 + a.T;
		out = j->out + (size_t)t0 * m->qdim + h0 * hd;
		if (j->T == 1)
			attn_touch(&a);
		m->attn->part(out, m->qdim, ml, &a);
		attn_norm(out, m->qdim, ml, hd, a.nh, a.T);
	}
}

/* The attention work of the T positions from pos0 in layer l of kv's
 * cache, the rows of q into out (sq: the scratch): its item count, and
 * the job in j. */
static int
attn_job(struct seq *sq, struct seq *kv, const float *q, float *out, int l,
    int T, int pos0, struct attn_job *j)
{
	const struct model *m = sq->m;
	int kv_mul = m->qdim / m->kvdim, nkv = m->cfg.num_key_value_heads;
	int base = attn_lo(m, l, pos0) / ATTN_BLOCK * ATTN_BLOCK;
	int n = pos0 + 1 - base;

	*j = (struct attn_job){ sq, kv, q, out, l, T, pos0, 0, 0, 0, 0, 0, 0,
		base, sq->att, sq->attml, NULL };
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

/* Job j's counters of its head groups' key ranges (decode) at left,
 * zeroed: the item that sums a group's last range merges them
 * (decode_items), in whichever thread, and no serial pass is left for
 * the calling thread (at 2 threads its merges were 1.9% of its samples,
 * reading the ranges the other core had summed: bench/NOTES.md). */
static void
attn_count(struct attn_job *j, _Atomic int *left)
{
	int u, n = j->sq->m->cfg.num_key_value_heads * j->nsub;

	j->left = left;
	for (u = 0; j->nchunk && u < n; u++)
		atomic_store_explicit(&left[u], 0, memory_order_relaxed);
}

/* The items of several jobs, one after another: item i of the
 * dispatch is item i - first[k] of job k, first[k] <= i < first[k+1]. */
struct attn_group {
	const struct attn_job *j;
	const int *first;	/* (n + 1) */
	int n;
};

static void
attn_group_items(void *ctx, int i0, int i1)
{
	const struct attn_group *g = ctx;
	int k = 0, e;

	while (i0 < i1) {
		while (g->first[k + 1] <= i0)
			k++;
		e = g->first[k + 1] < i1 ? g->first[k + 1] : i1;
		attn_items((void *)&g->j[k], i0 - g->first[k],
		    e - g->first[k]);
		i0 = e;
	}
}

/* Each part's rows as its sequence alone runs them (a one-row part
 * takes decode's key ranges): a pass of one sequence in one dispatch
 * of its items; several parts' items in one dispatch for all (a
 * barrier a layer, not one a part), each decode part's key ranges into
 * its own place of the scratch, as many parts a dispatch as the
 * scratch's sq->attparts * nchunk_max ranges hold.  The items depend on
 * each part's shape alone, so each part's rows are its own run's. */
void
step_attention(struct seq *sq, int l)
{
	const struct model *m = sq->m;
	int heads = m->cfg.num_attention_heads, cap, used, np, n, parts;
	int first[SEQ_MAXBATCH + 1];
	struct attn_job j[SEQ_MAXBATCH];
	struct attn_group g = { j, first, 0 };
	const struct seq_part *pt = sq->parts, *end = sq->parts + sq->nparts;
	size_t o;

	if (sq->nparts == 1) {
		o = (size_t)pt->t0 * m->qdim;
		/* items independent; prefill's taken as the threads come
		 * free */
		n = attn_job(sq, pt->s, sq->q + o, sq->xb + o, l, pt->T,
		    pt->s->pos, j);
		attn_count(j, sq->attleft);
		(pt->T > 1 ? pool_for_dyn : pool_for)(m->pool, n, 1,
		    attn_items, j);
		return;
	}
	parts = sq->attparts > 1 ? sq->attparts : 1;
	cap = parts * m->nchunk_max;
	while (pt < end) {
		for (np = 0, used = 0, first[0] = 0; pt < end && np < parts;
		    pt++, np++) {
			o = (size_t)pt->t0 * m->qdim;
			n = attn_job(sq, pt->s, sq->q + o, sq->xb + o, l,
			    pt->T, pt->s->pos, &j[np]);
			if (np > 0 && used + j[np].nchunk > cap)
				break;
			j[np].att = sq->att + (size_t)used * m->qdim;
			j[np].attml = sq->attml + (size_t)used * 2 * heads;
			attn_count(&j[np], sq->attleft + (size_t)np * heads);
			used += j[np].nchunk;
			first[np + 1] = first[np] + n;
		}
		g.n = np;
		pool_for_dyn(m->pool, first[np], 1, attn_group_items, &g);
	}
}

/* Decode: the cached keys and values this thread's attention items of
 * layer l will read, into its L2, while it streams its q/k/v rows.  The
 * cache was last read a token ago and the weights have pushed it out
 * since; read on demand it arrives one latency at a time.  At most
 * FETCH_MAX bytes (half of a 1 MB L2): past that, a long context, the
 * kernel's own prefetch of the next key block takes over. */
#define FETCH_MAX (512u << 10)

static void
attn_fetch(struct seq *sq, int l, int pos0)
{
	const struct model *m = sq->m;
	struct attn_job j;
	int n = attn_job(sq, sq, NULL, NULL, l, 1, pos0, &j), i, i0, i1, p, p1,
	    c, g;
	size_t bytes = attn_kvbytes(sq->kvt, seq_kv_row(sq)), budget = FETCH_MAX;
	const char *k, *v;

	pool_share(m->pool, n, 1, pool_self(), &i0, &i1);
	for (i = i0; i < i1; i++) {
		if (j.nchunk) {
			g = i / j.nchunk / j.nsub;
			attn_range(&j, i, &p, &p1);
		} else {	/* one item per head group, all its keys */
			g = i / j.nsub;
			p = attn_lo(m, l, pos0), p1 = pos0 + 1;
		}
		p1 = p1 < pos0 ? p1 : pos0;	/* pos0 itself: not written yet */
		for (k = v = NULL; p < p1; p++) {
			if (budget < 2 * bytes)
				return;
			budget -= 2 * bytes;
			if (!k || p % SEQ_KVBLOCK == 0) {	/* a block's rows */
				k = (const char *)kv_at(sq, l, 0, g, p);
				v = (const char *)kv_at(sq, l, 1, g, p);
			} else {
				k += bytes, v += bytes;
			}
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

