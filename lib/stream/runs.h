/* runs.h: a batch of records through one model, up to N at once (-P N
 * of llm-score and llm-logits), each record a series of runs of ids
 * whose logits it wants: its own sequence, its rows in passes shared
 * with the other records' (seq_forward_batch: each weight read once a
 * pass for all), its output in input order (order.h), and bit for bit
 * what the record gives alone (runs_one, the same runs one at a time
 * through seq_forward and seq_forward_all).
 *
 * A program says what a record is through struct runs_ops: the runs it
 * asks one after the other, what its logits are written as.  The
 * records' scheduling is here: the oldest record in flight takes the
 * room of each pass first (its output streams), each run cut by
 * seq_chunk so that its rows get the bits of seq_forward's passes. */
#ifndef RUNS_H
#define RUNS_H

#include <stddef.h>
#include <stdio.h>

#include "model/model.h"
#include "model/seq.h"
#include "stream/batch.h"
#include "stream/order.h"
#include "stream/rec.h"

#define RUNS_MAX SEQ_MAXBATCH	/* records at once: each a row a pass */

/* Ids to append to a record's sequence, as one seq_forward (fn NULL, or
 * runs opened without all: the last row's logits to fn) or one
 * seq_forward_all (fn, runs opened with all: each pass's rows) would. */
struct run {
	const int *ids;
	int n;			/* >= 1 */
	int fresh;		/* from position 0: seq_reset first */
	seq_rows_fn *fn;	/* NULL, or where the logits go; a non-zero
				 * return fails the record (after its
				 * message) */
	void *ctx;
};

/* What a program does with a record.  Each returns 1 with *run set
 * (the next run), 0 when the record is done (its output written), or -1
 * after a message when the record fails. */
struct runs_ops {
	/* Record r of input name, just read into slot i (r stays the
	 * slot's until the record is done), its output to f. */
	int (*start)(void *ctx, int i, const struct rec *r, const char *name,
	    FILE *f, struct run *run);
	/* Slot i's run went through. */
	int (*next)(void *ctx, int i, struct run *run);
	/* With --keep-going, a record that failed (i its slot, or -1 for a
	 * malformed record, never started): what its output then holds is
	 * written to f (batch.h: an empty record). */
	void (*failed)(void *ctx, int i, FILE *f);
};

struct runs_slot {
	struct seq sq;		/* its KV blocks from R->pool */
	struct rec r;		/* the record in it */
	struct run run;
	int busy;		/* a record in it */
	int done;		/* of run.ids, run */
	unsigned long long t;	/* the record's order ticket: its age */
	FILE *f;		/* its output */
};

struct runs {
	const struct model *m;
	int n, all;		/* slots; the logits of every row */
	struct runs_slot *s;	/* (n) */
	struct seq_kvpool pool;	/* the slots' KV blocks */
	struct seq_batch b;
	struct seq **v;		/* a pass: (n) its sequences, */
	int *vn, *who;		/* (n) their rows, their slots, */
	const float **rows;	/* (n) their logits (all), */
	int *ids;		/* (SEQ_MAXBATCH) its ids */
	struct order o;
};

/* n slots (1..RUNS_MAX) of ctx positions each on m, KV caches of type
 * kvt (seq_open_kv); all: runs hand
 * on the logits of every row, else of their last.  0, or -1 after
 * error(); R is then safe to runs_close. */
int runs_open(struct runs *R, const struct model *m, int ctx, enum wtype kvt,
    int n, int all);
void runs_close(struct runs *R);	/* accepts a zeroed or failed R */
/* Every record of rf (through b: --keep-going, the count) through
 * ops, up to R->n at once, the output in input order to out (named
 * name).  Without --keep-going, a record that fails stops the run
 * there: the records before it are finished and written, its output
 * stays as far as it went, the ones after it are dropped.  0, or 1
 * when the input or a record failed (as the caller's one-at-a-time
 * loop would end); a write error exits 1. */
int runs_all(struct runs *R, struct batch *b, struct rec_files *rf,
    FILE *out, const char *name, const struct runs_ops *ops, void *ctx);
/* Run one run on s alone, as -P 1 does (all: as runs opened with all
 * run it): 0, or -1 (after a message, or fn's non-zero return). */
int runs_one(struct seq *s, const struct run *run, int all);
/* What -v (verbose: the peak KV memory) and --timing (timing: the
 * passes, their rows and rate) say, each line prefixed "prog: ". */
void runs_print_stats(const struct runs *R, FILE *f, const char *prog,
    int verbose, int timing);

#endif
