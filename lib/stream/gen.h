/* gen.h: llm-gen -P N, many records in flight on one model, their
 * forward passes batched (seq_forward_batch): continuous batching.
 *
 * Up to N records run at once, each in a slot (a sequence, its KV
 * blocks from one pool, its own sampler, stop state and stop-text
 * decoder).  Each pass runs one id for every record that is decoding
 * and pieces of the prompts of those that are not, oldest first, up to
 * GEN_PREFILL prompt ids beside decoders (SEQ_MAXBATCH when none
 * decodes): a new prompt is prefilled alongside the others' decode
 * steps, which are then slowed by at most a GEN_PREFILL-row product,
 * while a long prompt still advances GEN_PREFILL ids a pass.  A record
 * that ends gives its slot (and its KV blocks) to the next record at
 * once.  Each record restarts the sampler from the seed and runs its
 * ids in pieces that give seq_forward's bits (seq_chunk), so its ids
 * are those that one record at a time gives, whatever N, the threads
 * or the other records.
 *
 * Output is in input order (order.h, as llm-score -P and llm-logits -P
 * write theirs): the oldest record not yet written streams
 * its ids as they come (text framing), later ones are held until it
 * ends.  A bad record (empty, an id outside the vocabulary, longer than
 * the context, a logit not finite) is said with its number and, under
 * --keep-going (batch.h), its output record left as -P 1 leaves it and
 * its slot given to the next; without it, the records before it are
 * finished and written, those after it dropped, and the run stops. */
#ifndef GEN_H
#define GEN_H

#include <stdio.h>

#include "model/seq.h"
#include "stream/batch.h"
#include "stream/order.h"
#include "stream/rec.h"
#include "stream/sample.h"
#include "stream/stoptext.h"
#include "tok/tok.h"

#define GEN_PREFILL 64	/* prompt ids a pass beside decoding records */

struct gen_opts {
	const struct sampler_opts *so;	/* each record's sampler */
	const struct stop *st;		/* -n, --stop ids, EOS (copied a slot) */
	const struct stoptext *stext;	/* NULL, or the --stop-text strings */
	const struct tok *tok;		/* their tokenizer */
	enum rec_fmt fmt;		/* output framing */
	int echo;			/* -e: the prompt first */
	int verbose;			/* -v: each record's ending */
	int ctx;			/* positions a record may use */
	enum wtype kvt;			/* the KV cache's elements (--kv-type) */
};

struct gen_slot;

struct gen {
	const struct model *m;
	struct gen_opts o;
	struct seq_kvpool pool;
	struct seq_batch b;
	struct gen_slot *slot;	/* (n) */
	int n;
	struct order ord;	/* the records' output, in input order */
	int stopped;		/* a record failed without -k: */
	unsigned long long stop_t;	/* its ticket in ord (those after it
					 * dropped) */
};

/* A generator of up to n records at once on m.  0, or -1 after error()
 * (g is then safe to gen_free). */
int gen_init(struct gen *g, const struct model *m, int n,
    const struct gen_opts *o);
/* Generate the continuation of every record of rf (batch_next: -k and
 * the counts in b), written to out in input order.  0; 1 when a record
 * failed and b said stop (the caller exits 1); -1 after error() for
 * what is no record's fault (a read error, no memory). */
int gen_run(struct gen *g, struct batch *b, struct rec_files *rf, FILE *out);
/* Say the passes, rows and the KV cache's peak on f, "prog: " first. */
void gen_print_stats(const struct gen *g, FILE *f, const char *prog);
void gen_free(struct gen *g);	/* accepts a zeroed or failed g */

#endif
