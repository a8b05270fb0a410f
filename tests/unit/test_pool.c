/* test_pool: pool_for covers every index exactly once, in chunks that
 * respect the alignment, one chunk per thread at most, each the one
 * pool_share names for the thread's pool_self, for many (n, align,
 * threads); pool_for_dyn covers every index once in aligned chunks, and
 * a thread held up in the first chunk leaves the rest to the others;
 * pools start and stop cleanly (run it under ASan and TSan). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../lib/kern/pool.h"
#include "../../lib/base/util.h"
#include "test.h"

#define MAXN 5000

struct job {
	struct pool *p;
	int n, align, align_arg, dyn;
	atomic_int hits[MAXN];
	atomic_int calls, bad;
	pthread_t who[64];
	atomic_int nwho;
};


static void
mark(void *ctx, int i0, int i1)
{
	struct job *j = ctx;
	int i, k, s0, s1;

	atomic_fetch_add(&j->calls, 1);
	if (i0 >= i1 || i0 < 0 || i1 > j->n || i0 % j->align ||
	    (i1 % j->align && i1 != j->n))
		atomic_fetch_add(&j->bad, 1);
	pool_share(j->p, j->n, j->align_arg, pool_self(), &s0, &s1);
	if (!j->dyn && (s0 != i0 || s1 != i1))
		atomic_fetch_add(&j->bad, 1);
	for (i = i0; i < i1 && i >= 0 && i < j->n; i++)
		atomic_fetch_add_explicit(&j->hits[i], 1, memory_order_relaxed);
	k = atomic_fetch_add(&j->nwho, 1);
	if (k < 64)
		j->who[k] = pthread_self();
}

/* Run mark over [0, n) by pool_for (dyn 0) or pool_for_dyn (1); 1 if
 * every index was done once, else a failure counted and 0. */
static int
run_job(struct pool *p, struct job *j, int n, int align, int dyn)
{
	int i;

	memset(j, 0, sizeof *j);
	j->p = p;
	j->n = n;
	j->align = align < 1 ? 1 : align;
	j->align_arg = align;
	j->dyn = dyn;
	(dyn ? pool_for_dyn : pool_for)(p, n, align, mark, j);
	for (i = 0; i < n; i++)
		if (atomic_load(&j->hits[i]) != 1) {
			fprintf(stderr, "test_pool: %sthreads %d n %d align %d: "
			    "index %d done %d times\n", dyn ? "dyn: " : "",
			    pool_size(p), n, align, i,
			    atomic_load(&j->hits[i]));
			fails++;
			return 0;
		}
	return 1;
}

static void
check(struct pool *p, struct job *j, int n, int align)
{
	int i, k, units, want, a = align < 1 ? 1 : align;

	if (!run_job(p, j, n, align, 0))
		return;
	units = n > 0 ? (n + a - 1) / a : 0;
	want = units < pool_size(p) ? units : pool_size(p);
	if (atomic_load(&j->bad) || atomic_load(&j->calls) != want) {
		fprintf(stderr, "test_pool: threads %d n %d align %d: %d calls "
		    "(want %d), %d bad chunks\n", pool_size(p), n, align,
		    atomic_load(&j->calls), want, atomic_load(&j->bad));
		fails++;
	}
	/* no two chunks ran on the same thread */
	for (i = 0; i < j->nwho && i < 64; i++)
		for (k = 0; k < i; k++)
			if (pthread_equal(j->who[i], j->who[k])) {
				fprintf(stderr, "test_pool: threads %d n %d: "
				    "two chunks on one thread\n", pool_size(p),
				    n);
				fails++;
				return;
			}
}

/* pool_for_dyn: every index once, every chunk aligned and non-empty,
 * at least as many chunks as pool_for makes. */
static void
checkdyn(struct pool *p, struct job *j, int n, int align)
{
	int units, least, a = align < 1 ? 1 : align;

	if (!run_job(p, j, n, align, 1))
		return;
	units = n > 0 ? (n + a - 1) / a : 0;
	least = units < pool_size(p) ? units : pool_size(p);
	if (atomic_load(&j->bad) || atomic_load(&j->calls) < least ||
	    atomic_load(&j->calls) > units) {
		fprintf(stderr, "test_pool: dyn: threads %d n %d align %d: %d "
		    "calls (%d units), %d bad chunks\n", pool_size(p), n,
		    align, atomic_load(&j->calls), units,
		    atomic_load(&j->bad));
		fails++;
	}
}

/* A job whose first chunk's thread (the one that takes index 0) waits
 * there until the other threads have done every other index: it must
 * then have made that one call, on a chunk under two thirds of a fixed
 * share (n / threads; the first take is a 2n-th of the units), and the
 * others the rest.  The wait gives up after 10 seconds and counts a
 * failure. */
struct held {
	int n;
	atomic_int done, holder, holder_calls, first, gave_up;
};

static void
hold(void *ctx, int i0, int i1)
{
	struct held *h = ctx;
	long k;

	if (i0 == 0) {
		atomic_store(&h->holder, pool_self());
		atomic_store(&h->first, i1);
		for (k = 0; atomic_load(&h->done) < h->n - i1; k++) {
			if (k == 10000) {
				atomic_store(&h->gave_up, 1);
				break;
			}
			nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
		}
	}
	if (pool_self() == atomic_load(&h->holder))
		atomic_fetch_add(&h->holder_calls, 1);
	atomic_fetch_add(&h->done, i1 - i0);
}

static void
held_up(struct pool *p)
{
	static struct held h;

	memset(&h, 0, sizeof h);
	h.n = 4000;
	atomic_store(&h.holder, -1);
	pool_for_dyn(p, h.n, 16, hold, &h);
	if (atomic_load(&h.gave_up) || atomic_load(&h.done) != h.n ||
	    atomic_load(&h.holder_calls) != 1 ||
	    3L * atomic_load(&h.first) * pool_size(p) >= 2L * h.n) {
		fprintf(stderr, "test_pool: dyn: threads %d: the held-up "
		    "thread made %d calls, the first of %d, %d of %d done%s\n",
		    pool_size(p), atomic_load(&h.holder_calls),
		    atomic_load(&h.first), atomic_load(&h.done), h.n,
		    atomic_load(&h.gave_up) ? ", the others stopped" : "");
		fails++;
	}
}

static void
add(void *ctx, int i0, int i1)
{
	long long *s = ctx;
	int i;

	for (i = i0; i < i1; i++)
		s[i] += i;
}

/* pool_share past pool_for's cases: nothing for n <= 0 or for a thread
 * past the chunks.  Returns 0 if the pool cannot start. */
static int
share_edges(void)
{
	struct pool *q = pool_new(4);
	int s0 = 1, s1 = 1;

	if (!q)
		return 0;
	pool_share(q, 0, 1, 0, &s0, &s1);
	fails += s0 != 0 || s1 != 0;
	pool_share(q, 2, 1, 2, &s0, &s1);	/* 2 units, 4 threads */
	fails += s0 != 0 || s1 != 0;
	pool_share(q, 2, 1, 1, &s0, &s1);
	fails += s0 != 1 || s1 != 2;
	pool_share(q, 100, 16, 3, &s0, &s1);	/* 7 units: 5..7 */
	fails += s0 != 80 || s1 != 100;
	pool_free(q);
	return 1;
}

int
main(void)
{
	static const int ns[] = { 0, 1, 2, 3, 5, 7, 8, 16, 17, 63, 64, 65,
	    100, 576, 1000, 4097, MAXN };
	static const int aligns[] = { 0, 1, 2, 3, 4, 8, 16, 64, 1000, 6000 };
	static struct job j;
	static long long s[1000];
	struct pool *p;
	size_t a, b;
	int t, i, r;

	argv0 = "test_pool";
	if (pool_new(0) || pool_new(-3))
		fails++;
	pool_free(NULL);
	if (pool_size(NULL) != 1)
		fails++;
	pool_for(NULL, 10, 4, mark, (j.n = 10, j.align = j.align_arg = 4, &j));
	if (!share_edges())
		return 1;
	if (atomic_load(&j.bad) || pool_self() != 0)
		fails++;
	for (i = 0; i < 10; i++)
		if (atomic_load(&j.hits[i]) != 1)
			fails++;
	for (t = 1; t <= 8; t++) {
		if (!(p = pool_new(t)))
			return 1;
		if (pool_size(p) != t)
			fails++;
		for (a = 0; a < LEN(ns); a++)
			for (b = 0; b < LEN(aligns); b++) {
				check(p, &j, ns[a], aligns[b]);
				checkdyn(p, &j, ns[a], aligns[b]);
			}
		if (t > 1)
			held_up(p);
		/* many back-to-back jobs, as decode issues them */
		memset(s, 0, sizeof s);
		for (r = 0; r < 2000; r++)
			(r % 3 ? pool_for : pool_for_dyn)(p, 1000, 4, add, s);
		for (i = 0; i < 1000; i++)
			if (s[i] != 2000LL * i) {
				fprintf(stderr, "test_pool: threads %d: "
				    "repeated jobs: s[%d] = %lld\n", t, i,
				    s[i]);
				fails++;
				break;
			}
		pool_free(p);
	}
	/* a pool that is created and freed without any job */
	pool_free(pool_new(3));
	return test_end("test_pool");
}
