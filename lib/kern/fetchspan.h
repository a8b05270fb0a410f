/* fetchspan.h: a panel's weights prefetched while the one before it is
 * summed, for the per-ISA files' batched decode (kern_avx2.c's and
 * kern_avx512.c's few(); include after <immintrin.h>). */
#ifndef FETCHSPAN_H
#define FETCHSPAN_H

#include <stddef.h>
#include <stdint.h>

/* The lines of the next panel of rows, fetched a share per step of the
 * register blocks that run over this one. */
struct fetchspan {
	uintptr_t next, due, end;	/* the next line, how far the steps
					 * so far are due, the panel's end */
	size_t adv;			/* bytes due a step */
};

/* [w, w + len) over nstep steps: the first line is the one w is in. */
static inline __attribute__((always_inline)) void
fetchspan_set(struct fetchspan *a, const void *w, size_t len, size_t nstep)
{
	a->next = a->due = (uintptr_t)w & ~(uintptr_t)63;
	a->end = len ? (uintptr_t)w + len : a->next;
	a->adv = (a->end - a->next + nstep - 1) / (nstep ? nstep : 1);
}

/* One step: the lines that have fallen due.  (Integers, not pointers:
 * a prefetch past an object is harmless, a pointer there is not.) */
static inline __attribute__((always_inline)) void
fetchspan_step(struct fetchspan *a)
{
	a->due += a->adv;
	for (; a->next < a->due && a->next < a->end; a->next += 64)
		_mm_prefetch((const char *)a->next, _MM_HINT_T0);
}

#endif
