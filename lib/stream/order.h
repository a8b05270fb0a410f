/* order.h: the output of records that run side by side (-P N), written
 * in input order whatever order they finish in.  Each record writes to
 * a stream of its own (a memory buffer); what can go out goes out at
 * each order_flush: the oldest record's bytes so far (it streams, as
 * it would alone), then each record after it that has ended, whole,
 * until one that has not. */
#ifndef ORDER_H
#define ORDER_H

#include <stddef.h>
#include <stdio.h>

struct order_ent {		/* a record begun and not yet written whole */
	FILE *f;		/* its stream (open_memstream) */
	char *buf;		/* what f holds, after fflush */
	size_t len;
	int ended, cut;		/* complete; discarded (order_cut) */
};

struct order {
	FILE *out;
	const char *name;	/* out's, for messages */
	struct order_ent **q;	/* ring of cap: the records begun, the
				 * oldest at head; each entry allocated
				 * alone, since its stream writes to its
				 * buf and len where it was opened */
	size_t cap, head, n;
	unsigned long long first;	/* the ticket of q[head] */
};

void order_init(struct order *o, FILE *out, const char *name);
/* A new record, after every one begun before it: its stream, which
 * stays its own until order_end, and its ticket in *t.  NULL after
 * error() (memory). */
FILE *order_begin(struct order *o, unsigned long long *t);
/* Record t is complete: its stream is not written again. */
void order_end(struct order *o, unsigned long long t);
/* The records after t are discarded: what they wrote and will write
 * never goes out (a run that stops at a failed record). */
void order_cut(struct order *o, unsigned long long t);
/* Write what can go out to out: 0, or -1 after error() (a write error;
 * quiet for EPIPE). */
int order_flush(struct order *o);
/* Records begun and not yet written whole. */
size_t order_len(const struct order *o);
/* Free all; the output not yet written is dropped. */
void order_free(struct order *o);

#endif
