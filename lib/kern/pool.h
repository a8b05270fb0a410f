/* pool.h: a persistent pool of worker threads that split index ranges.
 *
 * The workers live as long as the pool; pool_for() wakes them (a short
 * spin on a generation counter, then a condition variable), hands each a
 * contiguous chunk (pool_for_dyn: chunks as they come free) and waits
 * for all.  One pool is driven by one thread
 * at a time. */
#ifndef POOL_H
#define POOL_H

struct pool;

/* Start n-1 workers (the caller is the n-th); n >= 1.  Returns the pool,
 * owned by the caller (pool_free), or NULL after error(). */
struct pool *pool_new(int n);
/* Stop and join the workers and free the pool; accepts NULL. */
void pool_free(struct pool *p);
/* Number of threads including the caller (1 for NULL). */
int pool_size(const struct pool *p);
/* Inside fn: the calling thread's number (0 for the thread that called
 * pool_for, 1..n-1 for the workers); 0 outside pools. */
int pool_self(void);
/* [*i0, *i1): what thread k gets of a pool_for(p, n, align) job (empty
 * if nothing), so that work can be prepared for it beforehand. */
void pool_share(const struct pool *p, int n, int align, int k, int *i0,
    int *i1);
/* Call fn(ctx, i0, i1) on contiguous chunks covering [0, n), each
 * non-empty, at most one per thread; chunk boundaries are multiples of
 * align (except the end); the calling thread takes one chunk.  Returns
 * when all are done.  n <= 0 does nothing; align < 1 counts as 1; a NULL
 * pool or a single chunk is a direct call fn(ctx, 0, n). */
void pool_for(struct pool *p, int n, int align,
    void (*fn)(void *ctx, int i0, int i1), void *ctx);
/* As pool_for, but the chunks are taken as the threads come free, each
 * a 2n-th of what is left (at least align), so that a thread the
 * machine slows down takes less: fn may run several times in one
 * thread, on chunks in no particular order.  For work whose result
 * does not depend on which thread does which rows. */
void pool_for_dyn(struct pool *p, int n, int align,
    void (*fn)(void *ctx, int i0, int i1), void *ctx);

#endif
