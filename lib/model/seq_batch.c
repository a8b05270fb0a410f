/* seq_batch.c: several sequences in one forward pass (seq.h,
 * seq_forward_batch).  Their rows are stacked, so each matrix product
 * reads its weights once for all of them: a decode step is a read of
 * the weights per token alone (bandwidth-bound), a matrix-matrix
 * product beside others.  Every kernel gives a row the same bits
 * whatever the rows beside it (kern.h); the rows that a sequence alone
 * would run as a one-row pass go first and keep the matvec (W_Q4's
 * integer decode path, seq_sched.c), attention and the KV cache stay
 * each sequence's, so each sequence gets seq_forward's bits. */
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "model/seq.h"
#include "model/seq_int.h"
#include "base/util.h"

int
seq_batch_open(struct seq_batch *b, const struct model *m)
{
	size_t V = (size_t)m->cfg.vocab_size;
	float *p;

	memset(b, 0, sizeof(*b));
	/* the scratch of a sequence; its own KV cache is one block */
	if (seq_open(&b->w, m, 1) < 0)
		return -1;
	if (!(p = mem_map((size_t)SEQ_MAXBATCH * V * sizeof(float))))
		return error("cannot allocate logits for %d rows", SEQ_MAXBATCH);
	b->w.logits = p;	/* the one-row buffer stays in w.mem */
	b->w.logits_rows = SEQ_MAXBATCH;
	/* decode attention's key ranges of every part of a pass, so that
	 * a layer's attention is one dispatch (seq_sched.c) */
	if (!(p = mem_reserve(seq_att_bytes(m, SEQ_MAXBATCH))))
		return error("cannot allocate attention scratch for %d rows",
		    SEQ_MAXBATCH);
	b->w.att = p;
	b->w.attml = p + (size_t)SEQ_MAXBATCH * m->nchunk_max * m->qdim;
	b->w.attleft = (_Atomic int *)(b->w.attml + (size_t)SEQ_MAXBATCH *
	    m->nchunk_max * 2 * m->cfg.num_attention_heads);
	b->w.attparts = SEQ_MAXBATCH;
	if (!(b->parts = malloc(SEQ_MAXBATCH * sizeof(*b->parts))) ||
	    !(b->ids = malloc(SEQ_MAXBATCH * sizeof(*b->ids))))
		return error("cannot allocate a batch of %d rows", SEQ_MAXBATCH);
	return 0;
}

void
seq_batch_close(struct seq_batch *b)
{
	if (b->w.m)
		seq_close(&b->w);
	free(b->parts);
	free(b->ids);
	memset(b, 0, sizeof(*b));
}

int
seq_chunk(int done, int n, int budget)
{
	/* seq_forward's passes are SEQ_MAXBATCH ids from the first; only
	 * a last pass of one id is a one-row pass (decode's attention), so
	 * the ids before it go in pieces of two or more */
	int m = n % SEQ_MAXBATCH == 1 ? n - 1 : n, r = m - done, c;

	if (r <= 0)
		return n > done && budget >= 1 ? 1 : 0;
	c = r < budget ? r : budget;
	if (r - c == 1)
		c--;
	return c >= 2 ? c : 0;
}

/* seq_forward_batch, and with rows the logits of every row
 * (seq_forward_batch_all). */
static int
batch(struct seq_batch *b, struct seq **v, const int *ids, const int *n,
    int nseq, const float **rows)
{
	struct seq *w = &b->w;
	const struct model *m = w->m;
	int i, j, k, T = 0, vocab = m->cfg.vocab_size, pass, off;
	double t0;

	for (i = 0; i < nseq; i++) {
		if (v[i]->m != m)
			return error("seq_forward_batch: a sequence of another "
			    "model");
		if (n[i] < 1 || n[i] > SEQ_MAXBATCH - T)
			return error("seq_forward_batch: %d rows in a pass of "
			    "at most %d", n[i] < 1 ? n[i] : T + n[i],
			    SEQ_MAXBATCH);
		for (j = 0; j < i; j++)
			if (v[j] == v[i])
				return error("seq_forward_batch: a sequence "
				    "twice in a pass");
		for (j = 0; j < n[i]; j++)
			if (ids[T + j] < 0 || ids[T + j] >= vocab)
				return error("token id %d is outside the "
				    "vocabulary (0..%d)", ids[T + j], vocab - 1);
		if (n[i] > v[i]->ctx - v[i]->pos)
			return error("sequence of %d positions exceeds the "
			    "context of %d", v[i]->pos + n[i], v[i]->ctx);
		T += n[i];
	}
	if (T == 0)
		return 0;
	for (i = 0; i < nseq; i++)
		if (seq_kv_grow(v[i], v[i]->pos + n[i]) < 0)
			return -1;
	/* the one-row parts first (w->nvec), then the others, each in
	 * the order given */
	for (pass = 0, k = 0, T = 0, w->nvec = 0; pass < 2; pass++)
		for (i = 0, off = 0; i < nseq; off += n[i++]) {
			if ((n[i] == 1) != (pass == 0))
				continue;
			b->parts[k++] = (struct seq_part){ v[i], T, n[i] };
			memcpy(b->ids + T, ids + off, n[i] * sizeof(*ids));
			seq_rope_long(v[i], n[i]);
			T += n[i];
			w->nvec += n[i] == 1;
		}
	w->parts = b->parts;
	w->nparts = nseq;
	pthread_mutex_lock((pthread_mutex_t *)&m->run);
	t0 = now_seconds();
	if (nseq == 1) {	/* as seq_forward runs it */
		w->nvec = 0;
		seq_pass(w, b->ids, T, rows != NULL);
		if (!rows)
			memcpy(v[0]->logits, w->logits, vocab * sizeof(float));
	} else {
		seq_pass(w, b->ids, T, rows != NULL);
	}
	/* all rows: each part's in the pass's order */
	for (k = 0; rows && k < nseq; k++)
		for (i = 0; i < nseq; i++)
			if (b->parts[k].s == v[i])
				rows[i] = w->logits + (size_t)b->parts[k].t0 * vocab;
	b->stats.seconds += now_seconds() - t0;
	pthread_mutex_unlock((pthread_mutex_t *)&m->run);
	b->stats.passes++;
	b->stats.rows += T;
	for (i = 0; i < nseq; i++)
		b->stats.rowsdec += n[i] == 1;
	return 0;
}

int
seq_forward_batch(struct seq_batch *b, struct seq **v, const int *ids,
    const int *n, int nseq)
{
	return batch(b, v, ids, n, nseq, NULL);
}

int
seq_forward_batch_all(struct seq_batch *b, struct seq **v, const int *ids,
    const int *n, int nseq, const float **rows)
{
	return batch(b, v, ids, n, nseq, rows);
}
