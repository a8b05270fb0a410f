/* gen.c: many records in flight on one model (gen.h).  A slot runs a
 * record as llm-gen's generate() runs one alone: the prompt, then one
 * id a pass, sampled from the logits after the last, until a stop; the
 * passes of all slots are one seq_forward_batch each. */
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "model/seq.h"
#include "stream/gen.h"

struct gen_slot {
	struct seq sq;		/* its KV blocks from g->pool */
	struct sampler smp;
	struct stop st;		/* a copy of the options' (n its own) */
	struct stoptext stx;	/* the stop strings, decoded apart */
	int *ids;		/* the prompt, then the ids sampled */
	size_t n, cap, np;	/* ids, room, of them the prompt's */
	size_t out;		/* its record's place in g->q */
	int busy, next;		/* a record in it; the id it runs next */
};

struct gen_out {		/* a record read, in input order */
	unsigned long long no;
	char *name;		/* the input it came from */
	int *ids;		/* what its output record holds (text: as
				 * the ids come) */
	size_t n, cap, put;	/* ids, room, of them written */
	int done, dropped;	/* ended (or failed); after a failure
				 * that stops the run: not written */
};

int
gen_init(struct gen *g, const struct model *m, int n,
    const struct gen_opts *o)
{
	size_t i, k;

	memset(g, 0, sizeof(*g));
	g->m = m;
	g->o = *o;
	if (seq_kvpool_open(&g->pool, m, (size_t)n * (o->ctx + SEQ_KVBLOCK),
	    o->kvt) < 0 ||
	    seq_batch_open(&g->b, m) < 0)
		return -1;
	if (!(g->slot = calloc(n, sizeof(*g->slot))))
		return error("cannot allocate %d slots", n);
	g->n = n;
	for (i = 0; i < (size_t)n; i++) {
		struct gen_slot *s = &g->slot[i];

		if (seq_open_pool(&s->sq, m, o->ctx, &g->pool) < 0 ||
		    sampler_init(&s->smp, o->so, m->cfg.vocab_size) < 0)
			return -1;
		s->st = *o->st;
		for (k = 0; o->stext && k < o->stext->n; k++)
			if (stoptext_add(&s->stx, o->stext->s[k]) < 0)
				return -1;
	}
	return 0;
}

void
gen_free(struct gen *g)
{
	size_t i;

	for (i = 0; g->slot && i < (size_t)g->n; i++) {
		seq_close(&g->slot[i].sq);
		sampler_free(&g->slot[i].smp);
		stoptext_free(&g->slot[i].stx);
		free(g->slot[i].ids);
	}
	free(g->slot);
	for (i = g->q0; i < g->qn; i++)
		free(g->q[i].ids), free(g->q[i].name);
	free(g->q);
	seq_batch_close(&g->b);
	seq_kvpool_close(&g->pool);
	memset(g, 0, sizeof(*g));
}

void
gen_print_stats(const struct gen *g, FILE *f, const char *prog)
{
	fprintf(f, "%s: batch of %d: %lld passes, %lld rows (%lld decode), "
	    "%.1f rows/s\n", prog, g->n, g->b.stats.passes, g->b.stats.rows,
	    g->b.stats.rowsdec, g->b.stats.seconds > 0 ? g->b.stats.rows /
	    g->b.stats.seconds : 0.0);
	fprintf(f, "%s: KV cache peak %u blocks of %d positions, %.1f MiB\n",
	    prog, g->pool.peak, SEQ_KVBLOCK,
	    (double)g->pool.peak * g->pool.blkbytes / (1 << 20));
}

static int
put_id(int **ids, size_t *n, size_t *cap, int id)
{
	if (xgrow(ids, cap, *n + 1, sizeof(**ids)) < 0)
		return -1;
	(*ids)[(*n)++] = id;
	return 0;
}

/* A record read: its place in the output queue, or NULL after error(). */
static struct gen_out *
queue(struct gen *g, unsigned long long no, const char *name)
{
	struct gen_out *e;
	int i;

	if (g->q0 == g->qn)
		g->q0 = g->qn = 0;
	if (g->q0 > 0 && g->qn == g->qcap) {	/* the written ones go */
		memmove(g->q, g->q + g->q0, (g->qn - g->q0) * sizeof(*g->q));
		for (i = 0; i < g->n; i++)
			if (g->slot[i].busy)
				g->slot[i].out -= g->q0;
		g->qn -= g->q0;
		g->q0 = 0;
	}
	if (xgrow(&g->q, &g->qcap, g->qn + 1, sizeof(*g->q)) < 0)
		return NULL;
	e = &g->q[g->qn++];
	memset(e, 0, sizeof(*e));
	e->no = no;
	if (!(e->name = xstrdup(name)))
		return NULL;
	return e;
}

/* Slot s's record has ended, why; the slot is free. */
static void
end(struct gen *g, struct gen_slot *s, enum stop_why why)
{
	struct gen_out *e = &g->q[s->out];
	char wbuf[128];

	if (g->o.verbose)
		warn("%s: record %llu: %zu ids, stop: %s", e->name, e->no,
		    s->n - s->np, why == STOP_TEXT ? stoptext_hitname(&s->stx,
		    wbuf, sizeof wbuf) : stop_name(why));
	e->done = 1;
	s->busy = 0;
	seq_release(&s->sq);
}

/* Record e failed (after its message), in slot s or before one: its
 * output as -P 1 leaves it; without -k, the records after it dropped. */
static void
fail(struct gen *g, struct gen_slot *s, struct gen_out *e, struct batch *b)
{
	size_t i;

	if (g->o.fmt == REC_U32)
		e->n = 0;		/* an empty record */
	e->done = 1;
	if (s) {
		s->busy = 0;
		seq_release(&s->sq);
	}
	if (batch_failed(b))
		return;
	if (!g->stop_at || e->no < g->stop_at)
		g->stop_at = e->no;
	for (i = g->q0; i < g->qn; i++)
		if (g->q[i].no > g->stop_at)
			g->q[i].dropped = g->q[i].done = 1;
	for (i = 0; i < (size_t)g->n; i++)
		if (g->slot[i].busy && g->q[g->slot[i].out].dropped) {
			g->slot[i].busy = 0;
			seq_release(&g->slot[i].sq);
		}
}

/* Take record r (from e) into slot s: 0, or -1 after a message (the
 * record failed). */
static int
start(struct gen *g, struct gen_slot *s, const struct rec *r,
    struct gen_out *e)
{
	size_t i;

	if (rec_check(r, g->m->cfg.vocab_size, e->name) < 0)
		return -1;
	if (r->n == 0)
		return error("%s: record %llu: empty prompt", e->name, e->no);
	if (r->n > (size_t)g->o.ctx)
		return error("%s: record %llu: prompt of %zu tokens exceeds "
		    "the context of %d (see --ctx)", e->name, e->no, r->n,
		    g->o.ctx);
	seq_release(&s->sq);
	sampler_reset(&s->smp);	/* each record as if run alone */
	stop_reset(&s->st);
	s->n = 0;
	for (i = 0; i < r->n; i++)
		if (put_id(&s->ids, &s->n, &s->cap, r->ids[i]) < 0)
			return -1;
	s->np = r->n;
	s->sq.span = (int)r->n;	/* longrope: the prompt's whole length */
	s->out = (size_t)(e - g->q);
	if (g->o.stext && stoptext_start(&s->stx, g->o.tok, s->ids, s->n) < 0)
		return -1;
	for (i = 0; g->o.echo && i < r->n; i++)
		if (put_id(&e->ids, &e->n, &e->cap, r->ids[i]) < 0)
			return -1;
	s->busy = 1;
	if (stop_none(&s->st))
		end(g, s, STOP_NONE);
	return 0;
}

/* Slot s has the logits after its last id: sample the next, then see
 * whether the record ends.  0, or -1 after a message (it failed). */
static int
step(struct gen *g, struct gen_slot *s)
{
	struct gen_out *e = &g->q[s->out];
	const float *lg = s->sq.logits;
	enum stop_why why;
	int id, t;

	/* the sampler may rewrite the row (penalty): it is ours until
	 * the next pass */
	if ((id = sampler_next(&s->smp, s->sq.logits, s->ids, s->n)) < 0)
		return error("%s: record %llu: position %zu: logit %d is %g (a "
		    "weight that is not finite?)", e->name, e->no, s->n - 1,
		    s->smp.bad, lg[s->smp.bad]);
	if (put_id(&s->ids, &s->n, &s->cap, id) < 0 ||
	    put_id(&e->ids, &e->n, &e->cap, id) < 0)
		return -1;
	if ((why = stop_check(&s->st, id)) != STOP_NONE) {
		end(g, s, why);
		return 0;
	}
	if (g->o.stext) {
		if ((t = stoptext_push(&s->stx, id)) < 0)
			return -1;
		if (t) {
			end(g, s, STOP_TEXT);
			return 0;
		}
	}
	if (s->sq.pos >= s->sq.ctx) {
		warn("%s: record %llu: context of %d positions is full",
		    e->name, e->no, s->sq.ctx);
		end(g, s, STOP_NONE);
		return 0;
	}
	s->next = id;
	return 0;
}

/* One pass: an id of every decoding slot, then prompt pieces, oldest
 * record first.  0, or -1 after error(). */
static int
pass(struct gen *g, struct batch *b)
{
	struct seq *v[SEQ_MAXBATCH];
	struct gen_slot *sv[SEQ_MAXBATCH], *pv[SEQ_MAXBATCH], *s;
	int n[SEQ_MAXBATCH], ids[SEQ_MAXBATCH], nv = 0, np, rows = 0, budget;
	int i, k, c;

	for (i = 0; i < g->n && nv < SEQ_MAXBATCH; i++) {
		s = &g->slot[i];
		if (s->busy && (size_t)s->sq.pos >= s->np) {
			sv[nv] = s, v[nv] = &s->sq, n[nv++] = 1;
			ids[rows++] = s->next;
		}
	}
	/* the prompts, oldest record first */
	for (i = 0, np = 0; i < g->n; i++) {
		s = &g->slot[i];
		if (!s->busy || (size_t)s->sq.pos >= s->np)
			continue;
		for (k = np++; k > 0 && pv[k - 1]->out > s->out; k--)
			pv[k] = pv[k - 1];
		pv[k] = s;
	}
	budget = nv ? GEN_PREFILL : SEQ_MAXBATCH;
	budget = budget < SEQ_MAXBATCH - rows ? budget : SEQ_MAXBATCH - rows;
	for (k = 0; k < np; k++) {
		s = pv[k];
		if (!(c = seq_chunk(s->sq.pos, (int)s->np, budget)))
			continue;
		memcpy(ids + rows, s->ids + s->sq.pos, c * sizeof(int));
		sv[nv] = s, v[nv] = &s->sq, n[nv++] = c;
		rows += c, budget -= c;
	}
	if (!nv)
		return 0;
	if (seq_forward_batch(&g->b, v, ids, n, nv) < 0)
		return -1;
	for (i = 0; i < nv; i++) {
		s = sv[i];
		if (s->busy && (size_t)s->sq.pos >= s->np && step(g, s) < 0)
			fail(g, s, &g->q[s->out], b);
	}
	return 0;
}

/* Write the records that can be, in order: 0, or 1 at the record that
 * stopped the run (its ids so far written, unended, as -P 1 leaves it). */
static int
flush(struct gen *g, FILE *out)
{
	struct gen_out *e;

	for (; g->q0 < g->qn; g->q0++) {
		e = &g->q[g->q0];
		if (e->dropped)
			continue;
		for (; g->o.fmt == REC_TEXT && e->put < e->n; e->put++)
			rec_put(out, e->ids[e->put], e->put == 0);
		if (!e->done)
			break;
		if (e->no == g->stop_at) {
			fflush(out);
			return 1;
		}
		if (g->o.fmt == REC_U32)
			rec_write(out, g->o.fmt, e->ids, e->n);
		else
			rec_end(out);
		free(e->ids), free(e->name);
		e->ids = NULL, e->name = NULL;
	}
	fflush(out);
	return 0;
}

int
gen_run(struct gen *g, struct batch *b, struct rec_files *rf, FILE *out)
{
	struct rec r = { 0 };
	struct gen_out *e;
	int i, got, eof = 0, ret = 0, busy;

	for (;;) {
		/* every free slot takes the next record */
		for (i = 0; i < g->n && !eof && !g->stop_at; i++) {
			if (g->slot[i].busy)
				continue;
			if ((got = batch_next(b, rf, &r)) <= 0) {
				eof = 1;
				ret = got < 0;
				break;
			}
			if (!(e = queue(g, r.no, rf->fl.name))) {
				ret = -1;
				goto out;
			}
			if (got == 2)	/* malformed, said and counted */
				e->done = 1;
			else if (start(g, &g->slot[i], &r, e) < 0)
				fail(g, NULL, e, b);
			i--;	/* a failed record left the slot free */
		}
		for (i = 0, busy = 0; i < g->n; i++)
			busy |= g->slot[i].busy;
		if (!busy && (eof || g->stop_at))
			break;
		if (busy && pass(g, b) < 0) {
			ret = -1;
			goto out;
		}
		if (flush(g, out))
			break;
	}
	if (flush(g, out) || g->stop_at)
		ret = 1;
out:
	rec_free(&r);
	return ret;
}
