/* seq.h: a sequence on a loaded model (model.h): its KV cache,
 * position, scratch and logits, and the forward pass that appends ids
 * to it (HF modeling_llama.py and the other architectures' modeling
 * files, computed in float32).  Any number of sequences run on one
 * model, each freed on its own; a forward pass reads the model and only
 * its own sequence's state.
 *
 * lib/model/seq.c        the sequence and the forward pass, one step per line
 * lib/model/seq_sched.c  each step as a dispatch over the threads (seq_int.h)
 * lib/model/seq_batch.c  several sequences in one pass (seq_forward_batch)
 * lib/model/seq_kv.c     KV caches from a pool of blocks shared by sequences */
#ifndef SEQ_H
#define SEQ_H

#include <stddef.h>
#include <stdio.h>

#include "model/model.h"

struct seq_part;		/* seq_int.h */

#define SEQ_MAXBATCH 256	/* positions per pass of the forward */
#define SEQ_KVBLOCK 64		/* positions per KV cache block */
#define SEQ_KVSEGSHIFT 2	/* log2 of the KV blocks a segment */
#define SEQ_KVSEG (SEQ_KVBLOCK << SEQ_KVSEGSHIFT)	/* its positions */

/* Taps: named points of the forward pass, each handed to a function as
 * its rows are made (seq_tap.c), after TransformerLens's hook names.
 * Off the hot path: a sequence without a tap (s->tap NULL) runs as
 * before, and what only a tap needs (the attention probabilities, the
 * logit lens) is computed by the tap path alone. */
enum seq_tap_name {
	TAP_RESID_PRE,	/* blocks.L.hook_resid_pre (T, hidden) */
	TAP_Q,		/* blocks.L.attn.hook_q (T, heads*head_dim), after
			 * bias, q_norm and RoPE */
	TAP_K,		/* blocks.L.attn.hook_k (T, kv_heads*head_dim), so */
	TAP_V,		/* blocks.L.attn.hook_v (T, kv_heads*head_dim) */
	TAP_PATTERN,	/* blocks.L.attn.hook_pattern: one row a call,
			 * (heads, pos + 1) the probabilities over the
			 * keys 0..pos (0 before a window) */
	TAP_Z,		/* blocks.L.attn.hook_z (T, heads*head_dim) */
	TAP_ATTN_OUT,	/* blocks.L.hook_attn_out (T, hidden): o_proj
			 * (Gemma: post-normed), what the stream gets */
	TAP_RESID_MID,	/* blocks.L.hook_resid_mid (T, hidden) */
	TAP_MLP_OUT,	/* blocks.L.hook_mlp_out (T, hidden) */
	TAP_RESID_POST,	/* blocks.L.hook_resid_post (T, hidden) */
	TAP_LENS,	/* the logit lens: lm_head(norm(resid_post)),
			 * soft-capped as the logits, (rows, vocab) */
	TAP_NORMALIZED,	/* ln_final.hook_normalized (T, hidden), layer
			 * -1: the final norm's output, weight applied */
	TAP_NNAMES
};
/* Rows [pos, pos + rows) of point name in layer layer, cols floats a
 * row; data is valid during the call only. */
typedef void seq_tap_fn(void *ctx, enum seq_tap_name name, int layer,
    int pos, int rows, int cols, const float *data);
struct seq_tap {
	seq_tap_fn *fn;
	void *ctx;
	unsigned names;		/* 1u << name for each point wanted */
	int l0, l1;		/* layers [l0, l1) tapped */
	int failed;		/* set when scratch could not be had: the
				 * points since were not all handed on */
	float *buf;		/* private: scratch (seq_tap_free) */
	size_t bufsize;
};

struct seq {
	const struct model *m;	/* the model it runs on */
	int ctx;		/* positions the KV cache holds */
	int pos;		/* positions filled */
	void *kv;		/* KV cache: segments of 1 << SEQ_KVSEGSHIFT
				 * blocks of SEQ_KVBLOCK positions, each
				 * (layers, 2, kv_heads, blocks, SEQ_KVBLOCK,
				 * head_dim): a layer's keys (and values) of a
				 * KV head for a segment's positions in one run,
				 * so decode's attention reads a stream a head,
				 * and a growing sequence fills memory segment
				 * by segment (2 MB pages: bench/NOTES.md, "The
				 * KV cache's runs a head in segments") */
	enum wtype kvt;		/* its elements: W_F32, or rounded to W_BF16
				 * or W_F16 as they are stored (--kv-type) */
	size_t kvsize;		/* its bytes (reserved, touched as filled) */
	float *kvnew;		/* (MAXBATCH, 2, kvdim) k and v being appended */
	int rope_long;		/* this call's rows turn by inv_freq_long */
	float *x, *xb2;		/* (MAXBATCH, hidden) residual stream, scratch */
	float *xn;		/* (threads, MAXBATCH, hidden): each thread's
				 * RMSNorm of the stream */
	float *xq;		/* (threads, xqbytes): each thread's prefill
				 * or batch input as kern.xprep lays it
				 * out */
	size_t xqbytes;		/* KERN_XPBYTES(widest input, MAXBATCH),
				 * in 64s */
	float *xb;		/* (MAXBATCH, max(hidden, heads*head_dim)) scratch */
	float *q;		/* (MAXBATCH, heads*head_dim) */
	float *hb, *hb2;	/* (MAXBATCH, intermediate) */
	float *att;		/* decode: (nchunk_max, heads, head_dim) partial
				 * attention per key range */
	float *attml;		/* (nchunk_max, heads, 2) their max and sum */
	_Atomic int *attleft;	/* (heads) a head group's ranges summed
				 * so far: the last to finish merges them
				 * (seq_sched.c); after attml, as many times
				 * as it */
	int attparts;		/* att and attml hold this many times
				 * nchunk_max ranges (a batch's: its own
				 * mapping); 0 or 1: those in mem */
	float *rope;		/* (MAXBATCH, head_dim) cos | sin per position */
	float *rope_local;	/* (MAXBATCH, head_dim) the sliding layers' */
	float *logits;		/* (MAXBATCH or 1, vocab) */
	size_t logits_rows;	/* rows logits can hold */
	struct {		/* what --timing reports */
		double prefill, decode;	/* seconds in seq_forward, n > 1 and n = 1 */
		long long nprefill, ndecode;	/* positions run */
	} stats;
	struct seq_tap *tap;	/* NULL, or the taps to call (the caller's) */
	int span;		/* longrope: the position the caller's whole
				 * run of ids reaches (seq_forward_batch's
				 * chunks of one prompt), 0 for none */
	int kvtop;		/* positions written since seq_open or
				 * seq_release: KV blocks touched */
	struct seq_kvpool *pool;	/* NULL (kv its own), or the pool
				 * its blocks come from (kv: the pool's) */
	unsigned *btab;		/* pool: (ctx / SEQ_KVBLOCK) the pool's
				 * block of each SEQ_KVBLOCK positions */
	int nblk;		/* pool: blocks it holds, btab[0..nblk) */
	void *mem;		/* private: scratch mapping */
	size_t memsize;
	/* private: the pass in flight (seq_int.h): the sequences whose
	 * rows it runs (this one alone, or a batch's), and how many of
	 * its first rows are one-row passes of their sequence */
	const struct seq_part *parts;
	int nparts, nvec;
};

/* KV memory for several sequences, in blocks of SEQ_KVBLOCK positions
 * (block b is in segment b >> SEQ_KVSEGSHIFT: seq.kv's layout): reserved
 * for nmax, touched only as taken; a sequence takes a block as it grows
 * into it and gives all back at seq_release, the blocks given back
 * taken first, so the memory in use follows the positions in use. */
struct seq_kvpool {
	void *base;
	enum wtype kvt;		/* its elements (seq_open_kv's kvt) */
	size_t blkbytes;	/* bytes a block */
	unsigned nmax;		/* blocks reserved */
	unsigned top;		/* blocks ever taken: [0, top) touched */
	unsigned *free;		/* (nmax) blocks given back */
	unsigned nfree;
	unsigned used, peak;	/* blocks held now; the most at once */
};

/* Several sequences on one model, run together (seq_forward_batch):
 * the scratch of a pass of their stacked rows. */
struct seq_batch {
	struct seq w;		/* the rows' scratch (its own cache unused) */
	struct seq_part *parts;	/* (SEQ_MAXBATCH) the pass's sequences */
	int *ids;		/* (SEQ_MAXBATCH) its ids, in row order */
	struct {		/* what -v and --timing report */
		double seconds;
		long long passes, rows, rowsdec;	/* rows of one-row parts */
	} stats;
};

/* A new sequence on m with a KV cache for ctx positions (0: m->ctx,
 * the model's max_position_embeddings), reserved and touched only as
 * filled.  0, or -1 after error(); s is then safe to seq_close. */
int seq_open(struct seq *s, const struct model *m, int ctx);
/* As seq_open, with a KV cache of elements of type kvt: W_F32 (what
 * seq_open gives), W_BF16 or W_F16 (half the memory and half the bytes
 * a decode step reads; the keys and values rounded to nearest even). */
int seq_open_kv(struct seq *s, const struct model *m, int ctx,
    enum wtype kvt);
/* Bytes of a KV cache of ctx positions of type kvt on m (what
 * seq_open_kv reserves), 0 where that does not fit a size_t. */
size_t seq_kv_bytes(const struct model *m, int ctx, enum wtype kvt);
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
/* A pool of KV blocks of elements of type kvt (as seq_open_kv's) for
 * positions positions of m in all (rounded up to whole blocks).  0, or
 * -1 after error(); p is then safe to seq_kvpool_close. */
int seq_kvpool_open(struct seq_kvpool *p, const struct model *m,
    size_t positions, enum wtype kvt);
void seq_kvpool_close(struct seq_kvpool *p);	/* accepts a zeroed p */
/* As seq_open_kv with p's type, the KV cache's blocks taken from p as the sequence
 * grows (a run past what p has left fails as one past the context);
 * p must outlive s. */
int seq_open_pool(struct seq *s, const struct model *m, int ctx,
    struct seq_kvpool *p);
/* Forget the sequence, as seq_reset, and give its KV cache back: its
 * blocks to its pool, or its own pages to the system (touched again as
 * the next run fills them). */
void seq_release(struct seq *s);
/* Bytes of s's KV cache in use: the blocks of the positions written
 * since seq_open or seq_release. */
size_t seq_kv_used(const struct seq *s);

/* A batch's scratch for m, for passes of up to SEQ_MAXBATCH rows.
 * 0, or -1 after error(); b is then safe to seq_batch_close. */
int seq_batch_open(struct seq_batch *b, const struct model *m);
void seq_batch_close(struct seq_batch *b);	/* accepts a zeroed b */
/* One pass of nseq distinct sequences v[0..nseq) on b's model: v[i]
 * appends the n[i] >= 1 ids that follow the first n[0] + ... + n[i-1]
 * of ids, n[0] + ... + n[nseq-1] <= SEQ_MAXBATCH in all.  All rows go
 * through each matrix product together (each weight read once a pass);
 * attention and the KV cache stay each sequence's.  Each v[i]'s logits
 * after its last id are then in v[i]->logits, bit for bit those that
 * seq_forward(v[i], its ids, n[i]) gives, whatever the other rows, so
 * long as seq_forward would run those ids in one pass; a run of ids cut
 * into several batch passes gives seq_forward's bits where each piece
 * but a lone last id has two ids or more (the one-row pass is decode's;
 * seq_chunk picks such pieces).  Taps are not called.  0, or -1 after
 * error() (a bad id, a sequence past its context, a pass too large):
 * nothing is then run. */
int seq_forward_batch(struct seq_batch *b, struct seq **v, const int *ids,
    const int *n, int nseq);
/* As seq_forward_batch, with the logits of every row: rows[i] is set
 * to v[i]'s n[i] rows (n[i] x vocab) in b's scratch, valid until b's
 * next pass, each row bit for bit what seq_forward_all(v[i], its ids,
 * n[i], ...) gives it, on the same terms (seq_chunk's pieces); the
 * sequences' own s->logits are left as they were. */
int seq_forward_batch_all(struct seq_batch *b, struct seq **v,
    const int *ids, const int *n, int nseq, const float **rows);
/* How many of the n - done ids of a run of n still to go into s (done
 * already in) a batch pass with room for budget rows should take, so
 * that the pieces give seq_forward(s, all n, n)'s bits: 0 (wait for
 * room) up to min(budget, n - done). */
int seq_chunk(int done, int n, int budget);

/* Print the model's load time, kernels, threads and mode and the
 * sequence's prefill and decode rates to f, each line prefixed
 * "prog: ". */
void seq_print_stats(const struct seq *s, FILE *f, const char *prog);
/* The name of a tap point as TransformerLens writes it in layer l
 * ("blocks.3.attn.hook_q", "ln_final.hook_normalized") into buf. */
const char *seq_tap_label(enum seq_tap_name name, int l, char *buf,
    size_t n);
/* Free t's scratch (t itself is the caller's). */
void seq_tap_free(struct seq_tap *t);

#endif
