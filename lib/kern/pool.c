/* pool.c: persistent worker threads splitting index ranges.
 *
 * pool_for() publishes a job and bumps the generation counter `gen`.
 * Workers spin on `gen` for a short while (decode calls pool_for many
 * times per token with little serial work in between), then sleep on
 * `wake`.  pool_for gives each thread one fixed chunk; pool_for_dyn lets
 * them take chunks from the counter `next` until none is left.  Each
 * worker decrements `pending` when its part is done; the
 * caller spins, then sleeps on `done`, until it reaches 0.  The mutex
 * only guards the sleeps, so a wake-up can never be lost: a sleeper
 * checks the condition under the mutex, and whoever changes the
 * condition takes the mutex before signalling. */
#include <pthread.h>
#include <signal.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "base/cleanup.h"
#include "kern/pool.h"
#include "base/util.h"

/* Polls before sleeping; a poll is a pause (what that costs here:
 * bench/NOTES.md, "Costs of the machine itself"). */
#define SPIN 4000

static _Thread_local int self;	/* this thread's chunk index, pool_self */

struct worker {
	struct pool *p;
	int id;		/* chunk index, 1..n-1 */
	pthread_t th;
};

struct pool {
	int n;			/* threads including the caller */
	struct worker *w;	/* n-1 workers */
	pthread_mutex_t mu;
	pthread_cond_t wake, done;
	atomic_uint gen;	/* job number; odd/even does not matter */
	atomic_int pending;	/* workers not finished with this job */
	atomic_int stop;
	/* the job, written before gen is bumped */
	void (*fn)(void *ctx, int i0, int i1);
	void *ctx;
	int len, align, nchunk;
	int dyn;		/* pool_for_dyn: chunks taken from next */
	atomic_llong next;	/* dyn: the first unit not yet taken */
};

/* One poll of a spin loop: a pause, and now and then a yield so that an
 * oversubscribed machine (several pipelines at once) runs the thread
 * being waited for.  Rarely: a system call in the VM we measure on
 * lasts as long as dozens of pauses, and a thread inside one answers
 * late (bench/NOTES.md, "Costs of the machine itself": no change
 * measurable in decode either way). */
static inline void
relax(int k)
{
	if ((k & 1023) == 1023)
		sched_yield();
#if defined(__x86_64__) || defined(__i386__)
	else
		__builtin_ia32_pause();
#endif
}

/* Units of align (>= 1) in [0, len), the last one maybe short. */
static long long
units_of(int len, int align)
{
	return ((long long)len + align - 1) / align;
}

/* Bounds of chunk i of nchunk over [0, len) in units of align: the
 * aligned units are shared out as evenly as possible. */
static void
cut(int len, int align, int nchunk, int i, int *i0, int *i1)
{
	long long units = units_of(len, align);
	long long u0 = units * i / nchunk, u1 = units * (i + 1) / nchunk;

	*i0 = (int)(u0 * align);
	*i1 = u1 * align < len ? (int)(u1 * align) : len;
}

/* Chunks of a job of n > 0 units of align >= 1 elements: one per thread
 * at most, 1 meaning a direct call in the calling thread. */
static int
nchunks(const struct pool *p, int n, int align)
{
	long long units = units_of(n, align);

	return !p || p->n == 1 || units == 1 ? 1 :
	    units < p->n ? (int)units : p->n;
}

/* Bounds of chunk i of the current job. */
static void
chunk(const struct pool *p, int i, int *i0, int *i1)
{
	cut(p->len, p->align, p->nchunk, i, i0, i1);
}

/* The next chunk of a pool_for_dyn job: a 2n-th of the units left, at
 * least one, so that the chunks shrink towards the end and no thread
 * is left with a large one when the others run out; 0 when none is
 * left. */
static int
take(struct pool *p, int *i0, int *i1)
{
	long long u = atomic_load_explicit(&p->next, memory_order_relaxed), k;
	long long units = units_of(p->len, p->align);

	do {
		if (u >= units)
			return 0;
		k = (units - u) / (2 * p->n);
		k = k < 1 ? 1 : k;
	} while (!atomic_compare_exchange_weak_explicit(&p->next, &u, u + k,
	    memory_order_relaxed, memory_order_relaxed));
	*i0 = (int)(u * p->align);
	*i1 = (u + k) * p->align < p->len ? (int)((u + k) * p->align) : p->len;
	return 1;
}

/* This thread's part of the current job: its chunk, or for pool_for_dyn
 * the chunks it takes. */
static void
run(struct pool *p, int id)
{
	int i0, i1;

	if (p->dyn) {
		while (take(p, &i0, &i1))
			p->fn(p->ctx, i0, i1);
	} else if (id < p->nchunk) {
		chunk(p, id, &i0, &i1);
		p->fn(p->ctx, i0, i1);
	}
}

static void *
work(void *arg)
{
	struct worker *w = arg;
	struct pool *p = w->p;
	unsigned seen = 0;	/* gen at pool_new, whenever we start */
	int k;

	self = w->id;
	for (;;) {
		for (k = 0; k < SPIN; k++) {
			if (atomic_load_explicit(&p->gen, memory_order_acquire)
			    != seen)
				break;
			relax(k);
		}
		if (k == SPIN) {
			pthread_mutex_lock(&p->mu);
			while (atomic_load(&p->gen) == seen)
				pthread_cond_wait(&p->wake, &p->mu);
			pthread_mutex_unlock(&p->mu);
		}
		seen = atomic_load_explicit(&p->gen, memory_order_acquire);
		if (atomic_load(&p->stop))
			break;
		run(p, w->id);
		if (atomic_fetch_sub_explicit(&p->pending, 1,
		    memory_order_acq_rel) == 1) {
			pthread_mutex_lock(&p->mu);
			pthread_cond_signal(&p->done);
			pthread_mutex_unlock(&p->mu);
		}
	}
	return NULL;
}

/* Publish the current job (or stop) to the workers. */
static void
publish(struct pool *p)
{
	atomic_store(&p->pending, p->n - 1);
	pthread_mutex_lock(&p->mu);
	atomic_fetch_add_explicit(&p->gen, 1, memory_order_release);
	pthread_cond_broadcast(&p->wake);
	pthread_mutex_unlock(&p->mu);
}

static void
stopjoin(struct pool *p, int started)
{
	int i;

	atomic_store(&p->stop, 1);
	publish(p);
	for (i = 0; i < started; i++)
		pthread_join(p->w[i].th, NULL);
}

struct pool *
pool_new(int n)
{
	struct pool *p;
	sigset_t set, old;
	int i, e;

	if (n < 1 || n > 4096) {
		error("bad thread count %d", n);
		return NULL;
	}
	if (!(p = calloc(1, sizeof *p))) {
		error("pool: out of memory");
		return NULL;
	}
	p->n = n;
	if (n == 1)
		return p;
	if (!(p->w = calloc((size_t)n - 1, sizeof *p->w))) {
		free(p);
		error("pool: out of memory");
		return NULL;
	}
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->wake, NULL);
	pthread_cond_init(&p->done, NULL);
	atomic_init(&p->gen, 0);
	atomic_init(&p->pending, 0);
	atomic_init(&p->next, 0);
	atomic_init(&p->stop, 0);
	/* the workers start with cleanup.h's signals blocked (a thread
	 * inherits its creator's mask): they are the calling thread's */
	cleanup_sigset(&set);
	pthread_sigmask(SIG_BLOCK, &set, &old);
	for (i = 0; i < n - 1; i++) {
		p->w[i].p = p;
		p->w[i].id = i + 1;
		if ((e = pthread_create(&p->w[i].th, NULL, work, &p->w[i]))) {
			pthread_sigmask(SIG_SETMASK, &old, NULL);
			error("pool: cannot start thread: %s", strerror(e));
			stopjoin(p, i);
			p->n = 1;	/* nothing left to join */
			pool_free(p);
			return NULL;
		}
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return p;
}

void
pool_free(struct pool *p)
{
	if (!p)
		return;
	if (p->n > 1)
		stopjoin(p, p->n - 1);
	if (p->w) {
		pthread_mutex_destroy(&p->mu);
		pthread_cond_destroy(&p->wake);
		pthread_cond_destroy(&p->done);
		free(p->w);
	}
	free(p);
}

int
pool_self(void)
{
	return self;
}

void
pool_share(const struct pool *p, int n, int align, int k, int *i0, int *i1)
{
	int nchunk;

	*i0 = *i1 = 0;
	if (n <= 0)
		return;
	align = align < 1 ? 1 : align;
	nchunk = nchunks(p, n, align);
	if (k >= 0 && k < nchunk)
		cut(n, align, nchunk, k, i0, i1);
}

int
pool_size(const struct pool *p)
{
	return p ? p->n : 1;
}

static void
dispatch(struct pool *p, int n, int align, int dyn,
    void (*fn)(void *ctx, int i0, int i1), void *ctx)
{
	int k, nchunk;

	if (n <= 0)
		return;
	if (align < 1)
		align = 1;
	if ((nchunk = nchunks(p, n, align)) == 1) {
		fn(ctx, 0, n);
		return;
	}
	p->fn = fn;
	p->ctx = ctx;
	p->len = n;
	p->align = align;
	p->nchunk = nchunk;
	p->dyn = dyn;
	atomic_store_explicit(&p->next, 0, memory_order_relaxed);
	publish(p);
	run(p, 0);
	for (k = 0; k < SPIN; k++) {
		if (!atomic_load_explicit(&p->pending, memory_order_acquire))
			return;
		relax(k);
	}
	pthread_mutex_lock(&p->mu);
	while (atomic_load(&p->pending))
		pthread_cond_wait(&p->done, &p->mu);
	pthread_mutex_unlock(&p->mu);
}

void
pool_for(struct pool *p, int n, int align,
    void (*fn)(void *ctx, int i0, int i1), void *ctx)
{
	dispatch(p, n, align, 0, fn, ctx);
}

void
pool_for_dyn(struct pool *p, int n, int align,
    void (*fn)(void *ctx, int i0, int i1), void *ctx)
{
	dispatch(p, n, align, 1, fn, ctx);
}
