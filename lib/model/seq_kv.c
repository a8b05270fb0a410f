/* seq_kv.c: where a sequence's KV cache lives (seq.h).  Alone, a
 * sequence maps its own, reserved for its whole context and touched as
 * it fills; in a batch, sequences take blocks of SEQ_KVBLOCK positions
 * from a pool as they grow and give them back when their record ends,
 * so N sequences hold the positions they use, not N contexts.  Either
 * way a position's rows are found by seq_kv_at (seq_int.h), and a
 * tile's by its block table (attn.h's attn_off). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/model.h"
#include "model/seq.h"
#include "model/seq_int.h"
#include "base/util.h"

int
seq_kv_type(enum wtype kvt)
{
	if (kvt < 0 || kvt >= W_NTYPES || !attn_kvname(kvt))
		return error("KV cache type %s: not one of " ATTN_KVNAMES,
		    kvt >= 0 && kvt < W_NTYPES ? wtypes[kvt].name : "?");
	return 0;
}

int
seq_kvpool_open(struct seq_kvpool *p, const struct model *m,
    size_t positions, enum wtype kvt)
{
	size_t n = (positions + SEQ_KVBLOCK - 1) / SEQ_KVBLOCK, bytes;

	memset(p, 0, sizeof(*p));
	if (seq_kv_type(kvt) < 0)
		return -1;
	p->kvt = kvt;
	p->blkbytes = seq_kv_bytes(m, SEQ_KVBLOCK, kvt);
	n = (n + (1u << SEQ_KVSEGSHIFT) - 1) >> SEQ_KVSEGSHIFT << SEQ_KVSEGSHIFT;
	if (n == 0 || n > (unsigned)-1 || size_mul(&bytes, n, p->blkbytes) < 0 ||
	    !(p->base = mem_reserve(bytes)))
		return error("cannot allocate a KV cache for %zu positions "
		    "(%.1f GiB)", positions, (double)n * p->blkbytes / (1 << 30));
	p->nmax = (unsigned)n;
	if (!(p->free = malloc(n * sizeof(*p->free))))
		return error("cannot allocate a KV block list of %zu", n);
	return 0;
}

void
seq_kvpool_close(struct seq_kvpool *p)
{
	if (p->base)
		mem_unmap(p->base, (size_t)p->nmax * p->blkbytes);
	free(p->free);
	memset(p, 0, sizeof(*p));
}

int
seq_kv_grow(struct seq *s, int end)
{
	struct seq_kvpool *p = s->pool;
	unsigned b;

	while (p && s->nblk * SEQ_KVBLOCK < end) {
		if (p->nfree)
			b = p->free[--p->nfree];
		else if (p->top < p->nmax)
			b = p->top++;
		else
			return error("KV cache full: %u blocks of %d positions "
			    "in use", p->used, SEQ_KVBLOCK);
		s->btab[s->nblk++] = b;
		if (++p->used > p->peak)
			p->peak = p->used;
	}
	return 0;
}

size_t
seq_kv_used(const struct seq *s)
{
	size_t blk = seq_kv_bytes(s->m, SEQ_KVBLOCK, s->kvt);

	if (s->pool)
		return (size_t)s->nblk * blk;
	return ((size_t)s->kvtop + SEQ_KVBLOCK - 1) / SEQ_KVBLOCK * blk;
}

void
seq_release(struct seq *s)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE), n;

	seq_reset(s);
	if (s->pool) {
		/* onto the list the next to grow takes from first */
		while (s->nblk > 0) {
			s->pool->free[s->pool->nfree++] = s->btab[--s->nblk];
			s->pool->used--;
		}
	} else if (s->kv) {
		/* the segments touched, the last page too: the mapping runs
		 * to its end */
		n = ((size_t)s->kvtop + SEQ_KVSEG - 1) / SEQ_KVSEG *
		    seq_kv_bytes(s->m, SEQ_KVSEG, s->kvt);
		n = n < s->kvsize ? n : s->kvsize;
		mem_drop(s->kv, (n + pg - 1) / pg * pg);
	}
	s->kvtop = 0;
}
