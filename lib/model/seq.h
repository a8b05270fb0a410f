/* seq.h: a sequence on a loaded model (model.h): its KV cache,
 * position, scratch and logits, and the forward pass that appends ids
 * to it (HF modeling_llama.py and the other architectures' modeling
 * files, computed in float32).  Any number of sequences run on one
 * model, each freed on its own; a forward pass reads the model and only
 * its own sequence's state.
 *
 * lib/model/seq.c        the sequence and the forward pass, one step per line
 * lib/model/seq_sched.c  each step as a dispatch over the threads (seq_int.h) */
#ifndef SEQ_H
#define SEQ_H

#include <stddef.h>
#include <stdio.h>

#include "model/model.h"

#define SEQ_MAXBATCH 256	/* positions per pass of the forward */
#define SEQ_KVBLOCK 64		/* positions per KV cache block */

struct seq {
	const struct model *m;	/* the model it runs on */
	int ctx;		/* positions the KV cache holds */
	int pos;		/* positions filled */
	float *kv;		/* KV cache: blocks of SEQ_KVBLOCK positions, each
				 * (layers, 2, kv_heads, SEQ_KVBLOCK, head_dim):
				 * a head's keys are contiguous in a block, and a
				 * growing sequence fills memory block by block */
	size_t kvsize;		/* its bytes (reserved, touched as filled) */
	float *kvnew;		/* (MAXBATCH, 2, kvdim) k and v being appended */
	int rope_long;		/* this call's rows turn by inv_freq_long */
	float *x, *xb2;		/* (MAXBATCH, hidden) residual stream, scratch */
	float *xn;		/* (threads, MAXBATCH, hidden): each thread's
				 * RMSNorm of the stream */
	float *xb;		/* (MAXBATCH, max(hidden, heads*head_dim)) scratch */
	float *q;		/* (MAXBATCH, heads*head_dim) */
	float *hb, *hb2;	/* (MAXBATCH, intermediate) */
	float *att;		/* decode: (nchunk_max, heads, head_dim) partial
				 * attention per key range */
	float *attml;		/* (nchunk_max, heads, 2) their max and sum */
	float *rope;		/* (MAXBATCH, head_dim) cos | sin per position */
	float *rope_local;	/* (MAXBATCH, head_dim) the sliding layers' */
	float *logits;		/* (MAXBATCH or 1, vocab) */
	size_t logits_rows;	/* rows logits can hold */
	struct {		/* what --timing reports */
		double prefill, decode;	/* seconds in seq_forward, n > 1 and n = 1 */
		long long nprefill, ndecode;	/* positions run */
	} stats;
	void *mem;		/* private: scratch mapping */
	size_t memsize;
};

/* A new sequence on m with a KV cache for ctx positions (0: m->ctx,
 * the model's max_position_embeddings), reserved and touched only as
 * filled.  0, or -1 after error(); s is then safe to seq_close. */
int seq_open(struct seq *s, const struct model *m, int ctx);
void seq_close(struct seq *s);	/* accepts a zeroed or failed s */
/* Forget the sequence: the next forward starts at position 0. */
void seq_reset(struct seq *s);
/* Append ids[0..n) to the sequence (positions s->pos ...) and run them
 * (any n: the passes of at most SEQ_MAXBATCH positions are the
 * library's).  Returns the logits after the last id, one row of vocab,
 * valid until the next call; NULL after error() for an id outside the
 * vocabulary or a sequence longer than the context (nothing is then
 * appended). */
const float *seq_forward(struct seq *s, const int *ids, int n);
/* The rows of logits of ids[i..i + rows), rows x vocab, the positions
 * s->pos - rows .. s->pos - 1; fn returns 0 to go on, else that value
 * ends seq_forward_all. */
typedef int seq_rows_fn(void *ctx, const float *logits, int i, int rows);
/* As seq_forward, with the logits of every position handed to fn a
 * pass at a time, in order.  0, fn's non-zero return, or -1 after
 * error() (as seq_forward's, before any pass). */
int seq_forward_all(struct seq *s, const int *ids, int n, seq_rows_fn *fn,
    void *ctx);
/* Print the model's load time, kernels, threads and mode and the
 * sequence's prefill and decode rates to f, each line prefixed
 * "prog: ". */
void seq_print_stats(const struct seq *s, FILE *f, const char *prog);

#endif
