/* tok_train.c: BpeTrainer::do_train (tokenizers/src/models/bpe/trainer.rs)
 * and Word::merge (word.rs), step for step:
 *   1. the special tokens (then the plain tokens of tok_train_opt);
 *   2. the alphabet: every character of the words weighted by their
 *      counts, the initial alphabet's kept always, the rarest cut down to
 *      limit_alphabet, the rest by code point;
 *   3. each word as its characters' ids (a character not kept is left
 *      out), the prefix on all but the word's first character, the suffix
 *      on its last, such strings added to the vocabulary as met;
 *   4. the count of each pair of neighbours, and where it is; each pair
 *      queued with its count and its words;
 *   5. until the vocabulary is full: the queue's top (the highest count,
 *      then the smaller pair of ids); a count that went stale is
 *      re-queued; below min_frequency (or 1) it stops; otherwise the two
 *      strings joined (the prefix taken off the second) are a token (new,
 *      or the one that string already is), the pair is merged in the
 *      queued words, and the pairs it made or unmade are counted again,
 *      those it made queued with their words.
 * A pair is made only if its two symbols are under max_token_length
 * characters together (word.rs' strict comparison); the merged pair's own
 * count is left as it was, as word.rs leaves it. */
#include <stdlib.h>
#include <string.h>

#include "tok/tok_int.h"
#include "tok/tok_train.h"
#include "base/unicode.h"
#include "base/util.h"

/* ---- string table ---- */

static uint64_t
shash(const char *s, size_t n)
{
	return tok_hash(s, n);
}

static int
wgrow(struct tok_train_words *w)
{
	size_t cap = w->mask ? (w->mask + 1) * 2 : 1024, i, j;
	uint32_t *idx;

	if (!(idx = xcalloc(cap, sizeof *idx)))
		return -1;
	for (i = 0; i < w->n; i++) {
		for (j = w->e[i].h & (cap - 1); idx[j]; j = (j + 1) & (cap - 1))
			;
		idx[j] = i + 1;
	}
	free(w->idx);
	w->idx = idx, w->mask = cap - 1;
	return 0;
}

static long
wfind(const struct tok_train_words *w, const char *s, size_t n, uint64_t h, size_t *slot)
{
	size_t j;

	for (j = h & w->mask; w->idx[j]; j = (j + 1) & w->mask) {
		const struct tok_train_went *e = &w->e[w->idx[j] - 1];
		if (e->h == h && e->len == n && tok_eq(w->arena + e->off, s, n))
			return w->idx[j] - 1;
	}
	*slot = j;
	return -1;
}

long
tok_train_words_find(const struct tok_train_words *w, const char *s, size_t n)
{
	size_t slot;

	if (!w->mask)
		return -1;
	return wfind(w, s, n, shash(s, n), &slot);
}

long
tok_train_words_get(struct tok_train_words *w, const char *s, size_t n, int *added)
{
	uint64_t h = shash(s, n);
	size_t slot;
	long i;

	*added = 0;
	if (n > UINT32_MAX)
		return error("a word of %zu bytes", n);
	if ((!w->mask || (w->n + 1) * 2 > w->mask + 1) && wgrow(w) < 0)
		return -1;
	if ((i = wfind(w, s, n, h, &slot)) >= 0)
		return i;
	if (w->n >= UINT32_MAX - 1)
		return error("more than %u distinct words", UINT32_MAX - 2);
	if (xgrow(&w->e, &w->ecap, w->n + 1, sizeof *w->e) < 0 ||
	    xgrow(&w->arena, &w->acap, w->an + n + 1, 1) < 0)
		return -1;
	memcpy(w->arena + w->an, s, n);
	w->arena[w->an + n] = 0;
	w->e[w->n] = (struct tok_train_went){ h, w->an, (uint32_t)n, 0 };
	w->an += n + 1;
	w->idx[slot] = w->n + 1;
	*added = 1;
	return w->n++;
}

int
tok_train_words_add(struct tok_train_words *w, const char *s, size_t n, uint64_t count)
{
	int added;
	long i = tok_train_words_get(w, s, n, &added);

	if (i < 0)
		return -1;
	w->e[i].val += count;
	return 0;
}

int
tok_train_words_merge(struct tok_train_words *dst, const struct tok_train_words *src)
{
	size_t i;

	for (i = 0; i < src->n; i++)
		if (tok_train_words_add(dst, tok_train_words_str(src, i), src->e[i].len,
		    src->e[i].val) < 0)
			return -1;
	return 0;
}

void
tok_train_words_free(struct tok_train_words *w)
{
	free(w->arena), free(w->e), free(w->idx);
	memset(w, 0, sizeof *w);
}

/* ---- pair counts: pair -> count ---- */

struct pmap {
	uint64_t *key;			/* pair + 1, 0 empty */
	int64_t *val;
	size_t n, mask;
};

static uint64_t
pkey(uint32_t a, uint32_t b)
{
	return (uint64_t)a << 32 | b;
}

static size_t
phash(uint64_t k)
{
	k *= 0x9e3779b97f4a7c15ull;
	return (size_t)(k ^ k >> 29);
}

static int
pmap_grow(struct pmap *m)
{
	size_t cap = m->mask ? (m->mask + 1) * 2 : 4096, i, j;
	uint64_t *key;
	int64_t *val;

	if (!(key = xcalloc(cap, sizeof *key)) || !(val = xcalloc(cap, sizeof *val))) {
		free(key);
		return -1;
	}
	for (i = 0; m->mask && i <= m->mask; i++) {
		if (!m->key[i])
			continue;
		for (j = phash(m->key[i]) & (cap - 1); key[j]; j = (j + 1) & (cap - 1))
			;
		key[j] = m->key[i], val[j] = m->val[i];
	}
	free(m->key), free(m->val);
	m->key = key, m->val = val, m->mask = cap - 1;
	return 0;
}

/* the slot of pair p, made if absent (count 0); -1 after error() */
static long
pmap_slot(struct pmap *m, uint64_t p)
{
	size_t j;

	if ((!m->mask || (m->n + 1) * 2 > m->mask + 1) && pmap_grow(m) < 0)
		return -1;
	for (j = phash(p + 1) & m->mask; m->key[j]; j = (j + 1) & m->mask)
		if (m->key[j] == p + 1)
			return j;
	m->key[j] = p + 1, m->val[j] = 0, m->n++;
	return j;
}

static int64_t
pmap_get(const struct pmap *m, uint64_t p)
{
	size_t j;

	for (j = phash(p + 1) & m->mask; m->key[j]; j = (j + 1) & m->mask)
		if (m->key[j] == p + 1)
			return m->val[j];
	return 0;
}

static void
pmap_free(struct pmap *m)
{
	free(m->key), free(m->val);
}

/* ---- where pairs are: pair -> the words, for one step ---- */

struct posv {
	uint32_t *v;
	size_t n, cap;
};

struct wtu {
	struct pmap slot;		/* pair -> index in ent + 1 (in val) */
	struct wtu_ent {
		uint64_t pair;
		struct posv pos;
	} *ent;
	size_t n, cap;
};

/* word i where pair p is; words come in order, so a repeat is the last */
static int
wtu_add(struct wtu *u, uint64_t p, uint32_t i)
{
	long s = pmap_slot(&u->slot, p);
	struct wtu_ent *e;

	if (s < 0)
		return -1;
	if (!u->slot.val[s]) {
		if (xgrow(&u->ent, &u->cap, u->n + 1, sizeof *u->ent) < 0)
			return -1;
		u->ent[u->n] = (struct wtu_ent){ p, { NULL, 0, 0 } };
		u->slot.val[s] = ++u->n;
	}
	e = &u->ent[u->slot.val[s] - 1];
	if (e->pos.n && e->pos.v[e->pos.n - 1] == i)
		return 0;
	if (xgrow(&e->pos.v, &e->pos.cap, e->pos.n + 1, sizeof *e->pos.v) < 0)
		return -1;
	e->pos.v[e->pos.n++] = i;
	return 0;
}

/* empty it for the next step (the pos vectors were handed on) */
static void
wtu_clear(struct wtu *u)
{
	size_t i;

	if (u->slot.n * 8 < u->slot.mask) {
		for (i = 0; i < u->n; i++) {
			size_t j;
			uint64_t k = u->ent[i].pair + 1;
			for (j = phash(k) & u->slot.mask; u->slot.key[j] != k;
			    j = (j + 1) & u->slot.mask)
				;
			u->slot.key[j] = 0;
		}
		/* open addressing without tombstones: what was after an
		 * emptied slot is emptied too, since all of it goes */
	} else if (u->slot.mask) {
		memset(u->slot.key, 0, (u->slot.mask + 1) * sizeof *u->slot.key);
	}
	u->slot.n = 0;
	u->n = 0;
}

/* ---- the queue: a binary heap of Merge { pair, count, pos } ---- */

struct qent {
	uint64_t count;
	uint64_t pair;
	uint64_t seq;			/* queued order: the tie of tie-breaks */
	struct posv pos;
};

struct queue {
	struct qent *h;
	size_t n, cap;
	uint64_t seq;
};

/* a comes out before b: the higher count, then the smaller pair
 * (trainer.rs' Ord for Merge), then the one queued first */
static int
qbefore(const struct qent *a, const struct qent *b)
{
	if (a->count != b->count)
		return a->count > b->count;
	if (a->pair != b->pair)
		return a->pair < b->pair;
	return a->seq < b->seq;
}

static int
qpush(struct queue *q, uint64_t count, uint64_t pair, struct posv pos)
{
	size_t i;

	if (xgrow(&q->h, &q->cap, q->n + 1, sizeof *q->h) < 0)
		return -1;
	i = q->n++;
	q->h[i] = (struct qent){ count, pair, q->seq++, pos };
	while (i > 0 && qbefore(&q->h[i], &q->h[(i - 1) / 2])) {
		struct qent t = q->h[i];
		q->h[i] = q->h[(i - 1) / 2];
		q->h[(i - 1) / 2] = t;
		i = (i - 1) / 2;
	}
	return 0;
}

static struct qent
qpop(struct queue *q)
{
	struct qent top = q->h[0];
	size_t i = 0;

	q->h[0] = q->h[--q->n];
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < q->n && qbefore(&q->h[l], &q->h[m]))
			m = l;
		if (r < q->n && qbefore(&q->h[r], &q->h[m]))
			m = r;
		if (m == i)
			break;
		struct qent t = q->h[i];
		q->h[i] = q->h[m];
		q->h[m] = t;
		i = m;
	}
	return top;
}

/* ---- words as symbols ---- */

struct sym {
	uint32_t c;			/* token id */
	uint32_t len;			/* characters it stands for */
};

struct trainer {
	const struct tok_train_opt *o;
	struct tok_train_words *v;	/* the vocabulary: entry = id */
	size_t nword;
	uint64_t *count;		/* [nword] */
	size_t *off;			/* [nword] first symbol in sym */
	uint32_t *nsym;			/* [nword] symbols left */
	struct sym *sym;
	size_t nsyms, capsyms;
	uint64_t maxlen;		/* max_token_length, or all */
	struct pmap pc;			/* pair counts */
	struct wtu wtu;
	struct queue q;
	struct tok_train_model *m;
	size_t capmerges;
};

/* the id of the string s[0..n), added if new; -1 after error() */
static long
vocab_id(struct trainer *T, const char *s, size_t n)
{
	int added;
	long i = tok_train_words_get(T->v, s, n, &added);

	if (i >= 0 && added)
		T->v->e[i].val = i;
	return i;
}

static int
cmp_words(const void *a, const void *b, void *ctx)
{
	const struct tok_train_words *w = ctx;
	const struct tok_train_went *x = &w->e[*(const uint32_t *)a];
	const struct tok_train_went *y = &w->e[*(const uint32_t *)b];
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(w->arena + x->off, w->arena + y->off, n);

	return c ? c : (x->len > y->len) - (x->len < y->len);
}

/* qsort with a context: merge sort on indices (stable, no qsort_r) */
static void
msort(uint32_t *v, uint32_t *tmp, size_t n, const struct tok_train_words *w)
{
	size_t h = n / 2, i = 0, j = h, k = 0;

	if (n < 2)
		return;
	msort(v, tmp, h, w);
	msort(v + h, tmp, n - h, w);
	while (i < h && j < n)
		tmp[k++] = cmp_words(&v[j], &v[i], (void *)w) < 0 ? v[j++] : v[i++];
	while (i < h)
		tmp[k++] = v[i++];
	while (j < n)
		tmp[k++] = v[j++];
	memcpy(v, tmp, n * sizeof *v);
}

struct achar {
	uint32_t cp;
	uint64_t count;
};

static int
cmp_count(const void *a, const void *b)
{
	const struct achar *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? -1 : 1;
	return (x->cp < y->cp) - (x->cp > y->cp);	/* higher code points cut first */
}

static int
cmp_cp(const void *a, const void *b)
{
	const struct achar *x = a, *y = b;

	return (x->cp > y->cp) - (x->cp < y->cp);
}

/* 2. the alphabet (compute_alphabet) */
static int
alphabet(struct trainer *T, const struct tok_train_words *wc, const uint32_t *order)
{
	const struct tok_train_opt *o = T->o;
	struct achar *a = NULL;
	struct pmap at = { 0 };		/* code point -> index in a + 1 */
	size_t na = 0, cap = 0, i, keep, from = 0;
	int ret = -1;

	for (i = 0; i < wc->n + o->nalphabet; i++) {
		const char *s;
		size_t n, k, len;
		uint64_t c;
		int init = i >= wc->n;
		uint32_t cp, one;
		if (init) {
			one = o->alphabet[i - wc->n];
			s = NULL, n = 1, c = UINT64_MAX;
		} else {
			const struct tok_train_went *e = &wc->e[order[i]];
			s = wc->arena + e->off, n = e->len, c = e->val;
		}
		for (k = 0; k < n; k += len) {
			long sl;
			if (init)
				cp = one, len = 1;
			else
				len = uni_decode((const unsigned char *)s + k, n - k, &cp);
			if ((sl = pmap_slot(&at, cp)) < 0)
				goto out;
			if (!at.val[sl]) {
				if (xgrow(&a, &cap, na + 1, sizeof *a) < 0)
					goto out;
				a[na] = (struct achar){ cp, 0 };
				at.val[sl] = ++na;
			}
			struct achar *x = &a[at.val[sl] - 1];
			if (init || x->count + c < x->count)
				x->count = UINT64_MAX;
			else
				x->count += c;
		}
	}
	keep = na;
	if (o->has_limit && na > o->limit_alphabet) {
		qsort(a, na, sizeof *a, cmp_count);
		from = na - o->limit_alphabet;
		keep = o->limit_alphabet;
	}
	qsort(a + from, keep, sizeof *a, cmp_cp);
	for (i = from; i < na; i++) {
		unsigned char u[4];
		size_t n = uni_encode(a[i].cp, u);
		if (vocab_id(T, (const char *)u, n) < 0)
			goto out;
	}
	ret = 0;
out:
	free(a);
	pmap_free(&at);
	return ret;
}

/* 3. the words as symbols (tokenize_words) */
static int
tokenize(struct trainer *T, const struct tok_train_words *wc, const uint32_t *order)
{
	const struct tok_train_opt *o = T->o;
	size_t pl = o->prefix ? strlen(o->prefix) : 0;
	size_t sl = o->suffix ? strlen(o->suffix) : 0;
	struct buf b = { 0 };
	size_t i;

	if (!(T->count = xcalloc(wc->n, sizeof *T->count)) ||
	    !(T->off = xcalloc(wc->n, sizeof *T->off)) ||
	    !(T->nsym = xcalloc(wc->n, sizeof *T->nsym)))
		return -1;
	for (i = 0; i < wc->n; i++) {
		const struct tok_train_went *e = &wc->e[order[i]];
		const unsigned char *s = (const unsigned char *)wc->arena + e->off;
		size_t k, len;
		uint32_t cp;
		T->count[i] = e->val;
		T->off[i] = T->nsyms;
		for (k = 0; k < e->len; k += len) {
			long id;
			len = uni_decode(s + k, e->len - k, &cp);
			if (tok_train_words_find(T->v, (const char *)s + k, len) < 0)
				continue;
			b.len = 0;
			if (k > 0 && pl)
				buf_add(&b, o->prefix, pl);
			buf_add(&b, s + k, len);
			if (k + len == e->len && sl)
				buf_add(&b, o->suffix, sl);
			if (buf_ok(&b) < 0 || (id = vocab_id(T, b.s, b.len)) < 0 ||
			    xgrow(&T->sym, &T->capsyms, T->nsyms + 1, sizeof *T->sym) < 0) {
				buf_free(&b);
				return -1;
			}
			T->sym[T->nsyms++] = (struct sym){ (uint32_t)id, 1 };
			T->nsym[i]++;
		}
	}
	T->nword = wc->n;
	buf_free(&b);
	return 0;
}

/* 4. the pairs (count_pairs) into the queue */
static int
count_pairs(struct trainer *T)
{
	size_t i, k;

	for (i = 0; i < T->nword; i++) {
		const struct sym *s = T->sym + T->off[i];
		for (k = 0; k + 1 < T->nsym[i]; k++) {
			uint64_t p = pkey(s[k].c, s[k + 1].c);
			long sl = pmap_slot(&T->pc, p);
			if (sl < 0 || wtu_add(&T->wtu, p, i) < 0)
				return -1;
			T->pc.val[sl] += (int64_t)T->count[i];
		}
	}
	return 0;
}

/* queue what wtu holds, with the pairs' counts now, and empty it */
static int
requeue(struct trainer *T)
{
	size_t i;
	int ret = 0;

	for (i = 0; i < T->wtu.n; i++) {
		struct wtu_ent *e = &T->wtu.ent[i];
		int64_t c = pmap_get(&T->pc, e->pair);
		if (c > 0 && ret == 0 && qpush(&T->q, (uint64_t)c, e->pair, e->pos) == 0)
			continue;
		if (c > 0)
			ret = -1;
		free(e->pos.v);
	}
	wtu_clear(&T->wtu);
	return ret;
}

/* a pair's count changes by d in word i (d > 0: the pair is there) */
static int
change(struct trainer *T, uint32_t a, uint32_t b, int d, uint32_t i)
{
	uint64_t p = pkey(a, b);
	long sl = pmap_slot(&T->pc, p);

	if (sl < 0)
		return -1;
	T->pc.val[sl] += d * (int64_t)T->count[i];
	return d > 0 ? wtu_add(&T->wtu, p, i) : 0;
}

/* Word::merge of (c1, c2) -> r in word i, the changes counted */
static int
merge_word(struct trainer *T, uint32_t i, uint32_t c1, uint32_t c2, uint32_t r)
{
	struct sym *s = T->sym + T->off[i];
	size_t n = T->nsym[i], rd = 0, k = 0;

	while (rd < n) {
		if (s[rd].c == c1 && rd + 1 < n && s[rd + 1].c == c2) {
			struct sym first = s[rd], second = s[rd + 1];
			struct sym ns = { r, first.len + second.len };
			if (k > 0) {
				if (change(T, s[k - 1].c, first.c, -1, i) < 0 ||
				    ((uint64_t)s[k - 1].len + ns.len < T->maxlen &&
				    change(T, s[k - 1].c, r, 1, i) < 0))
					return -1;
			}
			if (rd + 2 < n) {
				if (change(T, second.c, s[rd + 2].c, -1, i) < 0 ||
				    ((uint64_t)s[rd + 2].len + ns.len < T->maxlen &&
				    change(T, r, s[rd + 2].c, 1, i) < 0))
					return -1;
			}
			s[k++] = ns;
			rd += 2;
		} else {
			s[k++] = s[rd++];
		}
	}
	T->nsym[i] = k;
	return 0;
}

/* 5. the merges */
static int
merges(struct trainer *T)
{
	const struct tok_train_opt *o = T->o;
	size_t pl = o->prefix ? strlen(o->prefix) : 0;
	size_t total = o->vocab_size > T->v->n ? o->vocab_size - T->v->n : 0;
	struct buf b = { 0 };
	int ret = -1;

	for (;;) {
		struct qent top;
		int64_t now;
		const char *sa, *sb;
		size_t na, nb, i;
		long id;
		if (T->v->n >= o->vocab_size || !T->q.n)
			break;
		top = qpop(&T->q);
		now = pmap_get(&T->pc, top.pair);
		if (top.count != (uint64_t)now) {
			/* as trainer.rs: the count now, as u64 */
			if (qpush(&T->q, (uint64_t)now, top.pair, top.pos) < 0) {
				free(top.pos.v);
				goto out;
			}
			continue;
		}
		if (top.count < 1 || o->min_frequency > top.count) {
			free(top.pos.v);
			break;
		}
		uint32_t c1 = top.pair >> 32, c2 = (uint32_t)top.pair;
		sa = tok_train_words_str(T->v, c1), na = T->v->e[c1].len;
		sb = tok_train_words_str(T->v, c2), nb = T->v->e[c2].len;
		if (pl && nb >= pl && !memcmp(sb, o->prefix, pl))
			sb += pl, nb -= pl;
		b.len = 0;
		buf_add(&b, sa, na);
		buf_add(&b, sb, nb);
		if (buf_ok(&b) < 0 || (id = vocab_id(T, b.s, b.len)) < 0 ||
		    xgrow(&T->m->merges, &T->capmerges, T->m->nmerges + 1,
		    sizeof *T->m->merges) < 0) {
			free(top.pos.v);
			goto out;
		}
		T->m->merges[T->m->nmerges][0] = c1;
		T->m->merges[T->m->nmerges][1] = c2;
		T->m->nmerges++;
		for (i = 0; i < top.pos.n; i++)
			if (merge_word(T, top.pos.v[i], c1, c2, (uint32_t)id) < 0) {
				free(top.pos.v);
				goto out;
			}
		free(top.pos.v);
		if (requeue(T) < 0)
			goto out;
		if (o->progress && !(T->m->nmerges & 255))
			o->progress(o->ctx, T->m->nmerges, total);
	}
	if (o->progress)
		o->progress(o->ctx, T->m->nmerges, T->m->nmerges);
	ret = 0;
out:
	buf_free(&b);
	return ret;
}

/* A pair merged twice (its queue entries were two) is one merge, at the
 * rank of the last: tokenizers collects the merges into a map, pair ->
 * (rank, id), and writes them by rank. */
static int
dedup(struct tok_train_model *m)
{
	struct pmap seen = { 0 };
	size_t i, k = m->nmerges;
	uint32_t (*v)[2] = m->merges;

	if (!m->nmerges)
		return 0;
	for (i = m->nmerges; i-- > 0;) {
		long sl = pmap_slot(&seen, pkey(v[i][0], v[i][1]));
		if (sl < 0) {
			pmap_free(&seen);
			return -1;
		}
		if (seen.val[sl])
			continue;
		seen.val[sl] = 1;
		k--;
		v[k][0] = v[i][0], v[k][1] = v[i][1];
	}
	memmove(v, v + k, (m->nmerges - k) * sizeof *v);
	m->nmerges -= k;
	pmap_free(&seen);
	return 0;
}

int
tok_train_run(const struct tok_train_words *wc, const struct tok_train_opt *o,
    struct tok_train_model *m)
{
	struct trainer T = { 0 };
	uint32_t *order = NULL, *tmp = NULL;
	size_t i;
	int ret = -1;

	memset(m, 0, sizeof *m);
	T.o = o, T.m = m, T.v = &m->vocab;
	T.maxlen = o->max_token_length ? o->max_token_length : UINT64_MAX;
	/* 1. special tokens, then the plain ones */
	for (i = 0; i < o->nspecial + o->nplain; i++) {
		const char *s = i < o->nspecial ? o->special[i] : o->plain[i - o->nspecial];
		if (vocab_id(&T, s, strlen(s)) < 0)
			goto out;
		if (i + 1 == o->nspecial)
			m->nspecial = m->vocab.n;	/* repeats taken out */
	}
	if (!(order = xcalloc(wc->n + 1, sizeof *order)) ||
	    !(tmp = xcalloc(wc->n + 1, sizeof *tmp)))
		goto out;
	for (i = 0; i < wc->n; i++)
		order[i] = i;
	msort(order, tmp, wc->n, wc);
	if (alphabet(&T, wc, order) < 0 || tokenize(&T, wc, order) < 0 ||
	    count_pairs(&T) < 0 || requeue(&T) < 0 || merges(&T) < 0 ||
	    dedup(m) < 0)
		goto out;
	ret = 0;
out:
	for (i = 0; i < T.q.n; i++)
		free(T.q.h[i].pos.v);
	for (i = 0; i < T.wtu.n; i++)
		free(T.wtu.ent[i].pos.v);
	free(T.q.h);
	free(T.wtu.ent);
	pmap_free(&T.wtu.slot);
	pmap_free(&T.pc);
	free(T.count), free(T.off), free(T.nsym), free(T.sym);
	free(order), free(tmp);
	if (ret < 0)
		tok_train_model_free(m);
	return ret;
}

void
tok_train_model_free(struct tok_train_model *m)
{
	tok_train_words_free(&m->vocab);
	free(m->merges);
	memset(m, 0, sizeof *m);
}
