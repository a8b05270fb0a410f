/* gen.c: many records in flight on one model (gen.h).  A slot runs a
 * record as llm-gen's generate() runs one alone: the prompt, then one
 * id a pass, sampled from the logits after the last, until a stop; the
 * passes of all slots are one seq_forward_batch each. */
#include <errno.h>
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
	unsigned long long no;	/* its record's number, */
	const char *name;	/* the input it came from, */
	unsigned long long t;	/* its ticket in g->ord, */
	FILE *f;		/* its output (text: as the ids come) */
	int busy, next;		/* a record in it; the id it runs next */
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
	order_free(&g->ord);
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

/* End output record f empty: a record that failed under -k before
 * it ran, as -P 1 leaves it. */
static void
endempty(const struct gen *g, FILE *f)
{
	if (g->o.fmt == REC_U32)
		rec_write(f, g->o.fmt, NULL, 0);
	else
		rec_end(f);
}

/* Slot s's record has ended, why: its output record complete; the slot
 * is free. */
static void
end(struct gen *g, struct gen_slot *s, enum stop_why why)
{
	size_t from = g->o.echo ? 0 : s->np;
	char wbuf[128];

	if (g->o.verbose)
		warn("%s: record %llu: %zu ids, stop: %s", s->name, s->no,
		    s->n - s->np, why == STOP_TEXT ? stoptext_hitname(&s->stx,
		    wbuf, sizeof wbuf) : stop_name(why));
	if (g->o.fmt == REC_U32)
		rec_write(s->f, g->o.fmt, s->ids + from, s->n - from);
	else
		rec_end(s->f);
	order_end(&g->ord, s->t);
	s->busy = 0;
	seq_release(&s->sq);
}

/* Record t (output f) failed (after its message), in slot s or before
 * one: its output as -P 1 leaves it (-k: ended, in u32 framing empty;
 * else the ids so far, unended, or in u32 framing nothing); without -k,
 * the records after it dropped. */
static void
fail(struct gen *g, struct gen_slot *s, unsigned long long t, FILE *f,
    struct batch *b)
{
	int i;

	if (s) {
		s->busy = 0;
		seq_release(&s->sq);
	}
	if (batch_failed(b)) {
		endempty(g, f);	/* u32: nothing was written before */
		order_end(&g->ord, t);
		return;
	}
	order_end(&g->ord, t);
	if (g->stopped && g->stop_t < t)
		return;
	g->stopped = 1, g->stop_t = t;
	order_cut(&g->ord, t);
	for (i = 0; i < g->n; i++)
		if (g->slot[i].busy && g->slot[i].t > t) {
			g->slot[i].busy = 0;
			seq_release(&g->slot[i].sq);
		}
}

/* Take record r (from input name, its output t and f) into slot s: 0,
 * or -1 after a message (the record failed). */
static int
start(struct gen *g, struct gen_slot *s, const struct rec *r,
    const char *name, unsigned long long t, FILE *f)
{
	size_t i;

	if (rec_check(r, g->m->cfg.vocab_size, name) < 0)
		return -1;
	if (r->n == 0)
		return error("%s: record %llu: empty prompt", name, r->no);
	if (r->n > (size_t)g->o.ctx)
		return error("%s: record %llu: prompt of %zu tokens exceeds "
		    "the context of %d (see --ctx)", name, r->no, r->n,
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
	s->no = r->no, s->name = name, s->t = t, s->f = f;
	if (g->o.stext && stoptext_start(&s->stx, g->o.tok, s->ids, s->n) < 0)
		return -1;
	for (i = 0; g->o.echo && g->o.fmt == REC_TEXT && i < r->n; i++)
		rec_put(f, r->ids[i], i == 0);
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
	const float *lg = s->sq.logits;
	enum stop_why why;
	int id, t;

	/* the sampler may rewrite the row (penalty): it is ours until
	 * the next pass */
	if ((id = sampler_next(&s->smp, s->sq.logits, s->ids, s->n)) < 0)
		return error("%s: record %llu: position %zu: logit %d is %g (a "
		    "weight that is not finite?)", s->name, s->no, s->n - 1,
		    s->smp.bad, lg[s->smp.bad]);
	if (put_id(&s->ids, &s->n, &s->cap, id) < 0)
		return -1;
	if (g->o.fmt == REC_TEXT)
		rec_put(s->f, id, !g->o.echo && s->n == s->np + 1);
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
		    s->name, s->no, s->sq.ctx);
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
		for (k = np++; k > 0 && pv[k - 1]->t > s->t; k--)
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
			fail(g, s, s->t, s->f, b);
	}
	return 0;
}

/* Write what can go out, in order: 0, or -1 after error(). */
static int
flush(struct gen *g, FILE *out)
{
	if (order_flush(&g->ord) < 0)
		return -1;
	if (fflush(out) == EOF)
		return errno == EPIPE ? -1 : error("<stdout>: write error:");
	return 0;
}

int
gen_run(struct gen *g, struct batch *b, struct rec_files *rf, FILE *out)
{
	struct rec r = { 0 };
	unsigned long long t;
	FILE *f;
	int i, got, eof = 0, ret = 0, busy;

	order_init(&g->ord, out, "<stdout>");
	for (;;) {
		/* every free slot takes the next record */
		for (i = 0; i < g->n && !eof && !g->stopped; i++) {
			if (g->slot[i].busy)
				continue;
			if ((got = batch_next(b, rf, &r)) <= 0) {
				eof = 1;
				ret = got < 0;
				break;
			}
			if (!(f = order_begin(&g->ord, &t))) {
				ret = -1;
				goto out;
			}
			if (got == 2) {	/* malformed, said and counted */
				endempty(g, f);
				order_end(&g->ord, t);
			} else if (start(g, &g->slot[i], &r, rf->fl.name, t,
			    f) < 0)
				fail(g, NULL, t, f, b);
			i--;	/* a failed record left the slot free */
		}
		for (i = 0, busy = 0; i < g->n; i++)
			busy |= g->slot[i].busy;
		if (!busy && (eof || g->stopped))
			break;
		if ((busy && pass(g, b) < 0) || flush(g, out) < 0) {
			ret = -1;
			goto out;
		}
	}
	if (flush(g, out) < 0)
		ret = -1;
	else if (g->stopped)
		ret = 1;
out:
	rec_free(&r);
	return ret;
}
