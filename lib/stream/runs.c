/* runs.c: records through one model up to N at once (runs.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "model/seq.h"
#include "stream/runs.h"

int
runs_open(struct runs *R, const struct model *m, int ctx, enum wtype kvt,
    int n, int all)
{
	int i;

	memset(R, 0, sizeof(*R));
	R->m = m;
	R->all = all;
	if (n < 1 || n > RUNS_MAX)
		return error("%d records at once: 1 to %d", n, RUNS_MAX);
	if (!(R->s = xreallocarray(NULL, (size_t)n, sizeof(*R->s))))
		return -1;
	memset(R->s, 0, (size_t)n * sizeof(*R->s));
	R->n = n;
	/* blocks reserved for every slot's whole context, taken as the
	 * records grow, given back as they end (seq_kv.c) */
	if (seq_kvpool_open(&R->pool, m, (size_t)n * ((size_t)ctx +
	    SEQ_KVBLOCK), kvt) < 0)
		return -1;
	for (i = 0; i < n; i++)
		if (seq_open_pool(&R->s[i].sq, m, ctx, &R->pool) < 0)
			return -1;
	if (seq_batch_open(&R->b, m) < 0 ||
	    !(R->v = xreallocarray(NULL, (size_t)n, sizeof(*R->v))) ||
	    !(R->vn = xreallocarray(NULL, (size_t)n, sizeof(*R->vn))) ||
	    !(R->who = xreallocarray(NULL, (size_t)n, sizeof(*R->who))) ||
	    !(R->rows = xreallocarray(NULL, (size_t)n, sizeof(*R->rows))) ||
	    !(R->ids = xreallocarray(NULL, SEQ_MAXBATCH, sizeof(*R->ids))))
		return -1;
	return 0;
}

void
runs_close(struct runs *R)
{
	int i;

	for (i = 0; i < R->n; i++) {
		seq_close(&R->s[i].sq);
		rec_free(&R->s[i].r);
	}
	free(R->s);
	seq_kvpool_close(&R->pool);
	seq_batch_close(&R->b);
	free(R->v), free(R->vn), free(R->who), free(R->rows), free(R->ids);
	order_free(&R->o);
	memset(R, 0, sizeof(*R));
}

int
runs_one(struct seq *s, const struct run *run, int all)
{
	const float *lg;

	if (run->fresh)
		seq_reset(s);
	if (run->fn && all)
		return seq_forward_all(s, run->ids, run->n, run->fn,
		    run->ctx) ? -1 : 0;
	if (!(lg = seq_forward(s, run->ids, run->n)))
		return -1;
	return run->fn && run->fn(run->ctx, lg, run->n - 1, 1) ? -1 : 0;
}

/* What runs_all carries from one record to the next. */
struct ctl {
	struct runs *R;
	struct batch *b;
	const struct runs_ops *ops;
	void *ctx;
	int stop;		/* no record is started any more */
	int ret;
};

/* Free slot i, its record done. */
static void
leave(struct runs *R, int i)
{
	struct runs_slot *sl = &R->s[i];

	order_end(&R->o, sl->t);
	seq_release(&sl->sq);	/* its KV blocks back */
	sl->busy = 0;
}

/* Slot i's record after start or next returned k (*run: its next). */
static void
settle(struct ctl *c, int i, int k, const struct run *run)
{
	struct runs *R = c->R;
	struct runs_slot *sl = &R->s[i];
	int j;

	if (k == 1) {
		sl->run = *run;
		sl->done = 0;
		if (run->fresh)
			seq_reset(&sl->sq);
		/* longrope: the whole run's length decides (seq.h) */
		sl->sq.span = sl->sq.pos + run->n;
		return;
	}
	if (k < 0) {
		if (batch_failed(c->b)) {
			c->ops->failed(c->ctx, i, sl->f);
		} else {	/* as far as a run of one at a time goes */
			c->stop = 1;
			c->ret = -1;
			order_cut(&R->o, sl->t);
			for (j = 0; j < R->n; j++)
				if (R->s[j].busy && R->s[j].t > sl->t)
					leave(R, j);
		}
	}
	leave(R, i);
}

/* The busy slots into idx, the oldest first: their number. */
static int
busy(const struct runs *R, int *idx)
{
	int i, j, n = 0;

	for (i = 0; i < R->n; i++) {
		if (!R->s[i].busy)
			continue;
		for (j = n++; j > 0 && R->s[idx[j - 1]].t > R->s[i].t; j--)
			idx[j] = idx[j - 1];
		idx[j] = i;
	}
	return n;
}

/* One pass of the busy slots' next pieces, the oldest first, and what
 * each piece's record does then.  0, or -1 after error(). */
static int
pass(struct ctl *c, const int *idx, int nb)
{
	struct runs *R = c->R;
	struct runs_slot *sl;
	struct run run;
	int k, i, n, rows = 0, nv = 0, d0, st;

	for (k = 0; k < nb; k++) {
		sl = &R->s[idx[k]];
		if (!(n = seq_chunk(sl->done, sl->run.n, SEQ_MAXBATCH - rows)))
			continue;
		memcpy(R->ids + rows, sl->run.ids + sl->done, n * sizeof(int));
		R->v[nv] = &sl->sq, R->vn[nv] = n, R->who[nv++] = idx[k];
		rows += n;
	}
	if ((R->all ? seq_forward_batch_all(&R->b, R->v, R->ids, R->vn, nv,
	    R->rows) : seq_forward_batch(&R->b, R->v, R->ids, R->vn, nv)) < 0)
		return -1;
	for (i = 0; i < nv; i++) {
		sl = &R->s[R->who[i]];
		if (!sl->busy)	/* dropped: after one that stopped the run */
			continue;
		d0 = sl->done;
		sl->done += R->vn[i];
		st = 0;
		if (sl->run.fn && R->all)
			st = sl->run.fn(sl->run.ctx, R->rows[i], d0, R->vn[i]);
		else if (sl->run.fn && sl->done == sl->run.n)
			st = sl->run.fn(sl->run.ctx, sl->sq.logits,
			    sl->run.n - 1, 1);
		if (st)
			settle(c, R->who[i], -1, NULL);
		else if (sl->done == sl->run.n)
			settle(c, R->who[i], c->ops->next(c->ctx, R->who[i],
			    &run), &run);
	}
	return 0;
}

int
runs_all(struct runs *R, struct batch *b, struct rec_files *rf, FILE *out,
    const char *name, const struct runs_ops *ops, void *ctx)
{
	struct ctl c = { R, b, ops, ctx, 0, 0 };
	struct runs_slot *sl;
	struct run run;
	int i, got, nb, eof = 0, idx[RUNS_MAX];
	unsigned long long t, no = 0;
	FILE *f;

	order_init(&R->o, out, name);
	for (;;) {
		/* idle slots take the next records; the records waiting to
		 * be written are held to a few times the slots */
		while (!c.stop && !eof && order_len(&R->o) < 4 * (size_t)R->n) {
			for (i = 0; i < R->n && R->s[i].busy; i++)
				;
			if (i == R->n)
				break;
			sl = &R->s[i];
			/* records are numbered as one struct rec reading
			 * them all numbers them */
			sl->r.no = no;
			got = batch_next(b, rf, &sl->r);
			no = sl->r.no;
			if (got <= 0) {
				eof = 1;
				c.ret = got < 0 ? 1 : c.ret;
				break;
			}
			if (!(f = order_begin(&R->o, &t)))
				return -1;
			if (got == 2) {	/* malformed, skipped (-k) */
				ops->failed(ctx, -1, f);
				order_end(&R->o, t);
				continue;
			}
			sl->busy = 1, sl->t = t, sl->f = f;
			settle(&c, i, ops->start(ctx, i, &sl->r, rf->fl.name,
			    f, &run), &run);
		}
		if (!(nb = busy(R, idx)))
			break;
		if (pass(&c, idx, nb) < 0)
			return -1;
		if (order_flush(&R->o) < 0)
			return -1;
		if (fflush(out) == EOF)
			return errno == EPIPE ? -1 :
			    error("%s: write error:", name);
	}
	if (order_flush(&R->o) < 0)
		return -1;
	return c.ret;
}

void
runs_print_stats(const struct runs *R, FILE *f, const char *prog,
    int verbose, int timing)
{
	const struct seq_batch *b = &R->b;

	if (timing)
		fprintf(f, "%s: batch of %d: %lld pass%s, %lld rows (%.1f a "
		    "pass), %.1f rows/s\n", prog, R->n, b->stats.passes,
		    b->stats.passes == 1 ? "" : "es", b->stats.rows,
		    b->stats.passes ? (double)b->stats.rows / b->stats.passes :
		    0.0, b->stats.seconds > 0 ? b->stats.rows /
		    b->stats.seconds : 0.0);
	if (verbose || timing)
		fprintf(f, "%s: KV cache peak %u blocks of %d positions, "
		    "%.1f MiB\n", prog, R->pool.peak, SEQ_KVBLOCK,
		    (double)R->pool.peak * R->pool.blkbytes / (1 << 20));
}
