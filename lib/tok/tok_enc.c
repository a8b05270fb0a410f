/* tok_enc.c: encoding: added tokens, then the components in turn.
 *
 * The text is split on added tokens first (tokenizers'
 * added_vocabulary.rs: leftmost-longest; lstrip, rstrip, single_word);
 * each piece between them is normalized, split by the pre-tokenizers in
 * turn (a recursion, one level per pre-tokenizer) and each final piece
 * goes to the model, through a cache of the words seen before. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tok/tok_int.h"
#include "base/util.h"

/* cache of words: open addressing over entries pointing into two pools */
#define CBITS 16
#define CMAXW 64		/* longest word cached, bytes */
struct centry {
	uint64_t h;		/* 0 = empty */
	uint32_t koff, ioff;
	uint16_t klen, nids;
};

struct cache {
	struct centry tab[1 << CBITS];
	size_t n;
	char kpool[1 << 20];
	size_t kn;
	int ipool[1 << 18];
	size_t in;
};

struct tok_enc {
	struct tok_buf nb[2];			/* normalizer output */
	unsigned char first[2][256];		/* first bytes of the added tokens
						 * [not normalized, normalized] */
	size_t nadded[2];			/* how many there are of each */
	/* the added tokens of each level by their first two bytes (key
	 * b0 << 8 | b1), or their one byte (key NKEY2 + b0): t->added
	 * indices bidx[bstart[key]..bstart[key + 1]), longest first as in
	 * t->added; NULL for a level without any */
	uint32_t *bstart[2], *bidx[2];
	struct cache *cache;			/* optional */
};

void
tok_enc_free(struct tok *t)
{
	struct tok_enc *w = t->enc;

	if (w) {
		free(w->nb[0].p), free(w->nb[1].p);
		free(w->bstart[0]), free(w->bstart[1]);
		free(w->bidx[0]), free(w->bidx[1]);
		mem_unmap(w->cache, sizeof *w->cache);
		free(w);
	}
	t->enc = NULL;
}

struct enc {
	struct tok *t;
	struct tok_ids *out;
	int flags;
	/* tok_words: each final piece goes here instead of the model */
	int (*fn)(void *ctx, const char *w, size_t n);
	void *ctx;
	/* the pre-tokenizers' sinks: stage[d] takes the pieces for
	 * pre-tokenizer d, stage[npre] those for the model */
	struct stage {
		struct tok_next next;
		struct enc *E;
		size_t d;
	} stage[TOK_MAXDEPTH];
};

/* The model on one word, through the cache. */
static int
word(struct enc *E, const char *s, size_t n)
{
	struct tok *t = E->t;
	struct tok_model *m = t->model;
	struct tok_ids *out = E->out;
	struct cache *c = t->enc->cache;
	struct centry *e;
	uint64_t h;
	size_t i, n0 = out->n, k;

	if (n > CMAXW || !c)
		return m->ops->encode(m, s, n, out, &t->ndropped);
	h = tok_hash(s, n) | 1;
	for (i = h >> (64 - CBITS);; i = (i + 1) & ((1 << CBITS) - 1)) {
		e = &c->tab[i];
		if (!e->h)
			break;
		if (e->h == h && e->klen == n && !memcmp(c->kpool + e->koff, s, n)) {
			for (k = 0; k < e->nids; k++)
				if (tok_ids_push(out, c->ipool[e->ioff + k]) < 0)
					return -1;
			return 0;
		}
	}
	{
		size_t dropped = t->ndropped;
		if (m->ops->encode(m, s, n, out, &t->ndropped) < 0)
			return -1;
		if (t->ndropped != dropped)
			return 0;	/* keep counting drops: don't cache */
	}
	k = out->n - n0;
	if (k > 0xffff)
		return 0;
	if (c->n >= (1 << CBITS) / 2 || c->kn + n > sizeof c->kpool ||
	    c->in + k > LEN(c->ipool)) {
		memset(c->tab, 0, sizeof c->tab);
		c->n = c->kn = c->in = 0;
		for (i = h >> (64 - CBITS); c->tab[i].h; i = (i + 1) & ((1 << CBITS) - 1))
			;
		e = &c->tab[i];
	}
	e->h = h;
	e->klen = n, e->koff = c->kn;
	e->nids = k, e->ioff = c->in;
	memcpy(c->kpool + c->kn, s, n);
	memcpy(c->ipool + c->in, out->v + n0, k * sizeof *out->v);
	c->kn += n, c->in += k, c->n++;
	return 0;
}

/* A piece for pre-tokenizer d */
static int
stage(struct tok_next *nx, const char *s, size_t n, int first)
{
	struct stage *st = (struct stage *)nx;
	struct tok_pre *p = st->E->t->pre[st->d];

	if (!n)
		return 0;
	return p->ops->split(p, s, n, first, &st[1].next);
}

/* A piece for the model, after the last pre-tokenizer */
static int
leaf(struct tok_next *nx, const char *s, size_t n, int first)
{
	struct enc *E = ((struct stage *)nx)->E;

	(void)first;
	if (!n)
		return 0;
	if (E->fn)
		return E->fn(E->ctx, s, n);
	return word(E, s, n);
}

/* ---- normalizers ---- */

/* Normalize s[0..n); *out points at the result (s itself or a buffer).
 * The text may grow at each step (NFKC, Prepend, Replace), but to no
 * more than NORM_GROWTH times its first length plus NORM_SLACK bytes:
 * real normalizers stay far below (NFKC's longest expansion is 11
 * times), while a Sequence of Replace steps that each multiply it would
 * otherwise take memory without bound. */
#define NORM_GROWTH 64
#define NORM_SLACK 4096

static int
normalize(struct tok *t, const char *s, size_t n, const char **out, size_t *outn)
{
	struct tok_enc *w = t->enc;
	size_t k, cur = 0, max;

	max = n > (SIZE_MAX - NORM_SLACK) / NORM_GROWTH ? SIZE_MAX :
	    n * NORM_GROWTH + NORM_SLACK;
	for (k = 0; k < t->nnorm; k++) {
		const struct tok_norm *c = t->norm[k];
		struct tok_buf *b = &w->nb[cur];
		int r;
		b->n = 0;
		b->max = max;
		r = c->ops->run(c, s, n, b);
		b->max = 0;
		if (r < 0)
			return -1;
		if (!r)
			continue;
		s = b->p, n = b->n;
		cur ^= 1;
	}
	*out = s, *outn = n;
	return 0;
}

/* ---- added tokens ---- */

/* the character before s[i] */
static unsigned
cls_before(const unsigned char *s, size_t i, size_t *start)
{
	size_t j = i, len;
	unsigned c;

	while (j > 0 && i - j < 4) {
		j--;
		if ((s[j] & 0xc0) != 0x80)
			break;
	}
	c = tok_cls(s, i, j, &len);
	if (j + len != i) {	/* not one character: the last byte alone */
		j = i - 1;
		c = tok_cls(s, i, j, &len);
	}
	*start = j;
	return c;
}

#define NKEY2 65536
#define NKEY (NKEY2 + 256)

static uint32_t
addkey(const struct tok_added *a)
{
	const unsigned char *u = (const unsigned char *)a->s;

	return a->len == 1 ? (uint32_t)NKEY2 + u[0] : (uint32_t)u[0] << 8 | u[1];
}

/* bstart and bidx of each level: a counting sort on the key, stable */
static int
buckets(struct tok *t, struct tok_enc *w)
{
	size_t i, l;

	for (l = 0; l < 2; l++) {
		uint32_t *st, *ix;
		if (!w->nadded[l])
			continue;
		if (!(st = w->bstart[l] = xcalloc(NKEY + 2, sizeof *st)) ||
		    !(ix = w->bidx[l] = xcalloc(w->nadded[l], sizeof *ix)))
			return -1;
		for (i = 0; i < t->nadded; i++)
			if (t->added[i].normalized == l)
				st[addkey(&t->added[i]) + 2]++;
		for (i = 2; i < NKEY + 2; i++)
			st[i] += st[i - 1];
		/* st[key + 1] is now where key's tokens go; filling moves it
		 * to their end, which is bstart[key + 1] */
		for (i = 0; i < t->nadded; i++)
			if (t->added[i].normalized == l)
				ix[st[addkey(&t->added[i]) + 1]++] = i;
	}
	return 0;
}

/* The longest added token of level norm at s[i..n) that may be matched,
 * or NULL; the same as the first of t->added (longest first) that
 * matches */
static const struct tok_added *
addfind(const struct enc *E, int norm, const char *s, size_t n, size_t i)
{
	const struct tok_enc *w = E->t->enc;
	const unsigned char *u = (const unsigned char *)s;
	uint32_t key[2], k, j;

	key[0] = i + 1 < n ? (uint32_t)u[i] << 8 | u[i + 1] : NKEY;
	key[1] = NKEY2 + u[i];
	for (k = 0; k < 2; k++) {
		if (key[k] == NKEY)
			continue;
		for (j = w->bstart[norm][key[k]]; j < w->bstart[norm][key[k] + 1]; j++) {
			const struct tok_added *c = &E->t->added[w->bidx[norm][j]];
			if (c->len > n - i || (c->special && (E->flags & TOK_NO_SPECIAL)))
				continue;
			if (!memcmp(s + i, c->s, c->len))
				return c;
		}
	}
	return NULL;
}

/* Split s[0..n) on the added tokens with normalized == norm; pieces
 * between go on with fn. */
static int gap0(struct enc *E, const char *s, size_t n, int first);
static int gap1(struct enc *E, const char *s, size_t n, int first);

static int
added(struct enc *E, const char *s, size_t n, int norm, int first)
{
	struct tok *t = E->t;
	struct tok_enc *w = t->enc;
	const unsigned char *u = (const unsigned char *)s;
	size_t i, gap = 0, len;
	int (*fn)(struct enc *, const char *, size_t, int) = norm ? gap1 : gap0;

	if (!w->nadded[norm])
		return fn(E, s, n, first);
	for (i = 0; i < n;) {
		const struct tok_added *a = NULL;
		size_t start, stop;
		if (!w->first[norm][u[i]]) {
			i++;
			continue;
		}
		if (!(a = addfind(E, norm, s, n, i))) {
			i++;
			continue;
		}
		start = i, stop = i + a->len;
		if (a->single_word) {
			int before = start > 0 &&
			    (cls_before(u, start, &len) & (UNI_ALPHA | UNI_N));
			int after = stop < n &&
			    (tok_cls(u, n, stop, &len) & (UNI_ALPHA | UNI_N));
			if (before || after) {
				i = stop;	/* consumed, not split */
				continue;
			}
		}
		if (a->lstrip) {
			size_t j = start, p;
			while (j > gap && (cls_before(u, j, &p) & UNI_WS))
				j = p;
			start = j < gap ? gap : j;
		}
		if (a->rstrip)
			while (stop < n && (tok_cls(u, n, stop, &len) & UNI_WS))
				stop += len;
		if (fn(E, s + gap, start - gap, first && gap == 0) < 0 ||
		    tok_ids_push(E->out, a->id) < 0)
			return -1;
		gap = i = stop;
	}
	return fn(E, s + gap, n - gap, first && gap == 0);
}

/* a piece between non-normalized added tokens: normalize, then split on
 * the normalized ones */
static int
gap0(struct enc *E, const char *s, size_t n, int first)
{
	const char *ns;
	size_t nn;

	if (!n)
		return 0;
	if (normalize(E->t, s, n, &ns, &nn) < 0)
		return -1;
	return added(E, ns, nn, 1, first);
}

static int
gap1(struct enc *E, const char *s, size_t n, int first)
{
	return E->stage[0].next.piece(&E->stage[0].next, s, n, first);
}

int
tok_encode(struct tok *t, const char *s, size_t n, int flags, struct tok_ids *out)
{
	struct enc E;
	struct tok_enc *w;
	size_t i;

	if (t->npre >= TOK_MAXDEPTH - 1)
		return error("too many pre-tokenizers");
	if (!t->enc) {
		if (!(w = t->enc = xcalloc(1, sizeof *w)))
			return -1;
		for (i = 0; i < t->nadded; i++) {
			const struct tok_added *a = &t->added[i];
			w->first[a->normalized][(unsigned char)a->s[0]] = 1;
			w->nadded[a->normalized]++;
		}
		if (buckets(t, w) < 0) {
			tok_enc_free(t);
			return -1;
		}
		/* optional; mapped: huge pages fault in fewer times */
		w->cache = mem_map(sizeof *w->cache);
	}
	E.t = t, E.out = out, E.flags = flags, E.fn = NULL, E.ctx = NULL;
	for (i = 0; i <= t->npre; i++)
		E.stage[i] = (struct stage){ { i < t->npre ? stage : leaf }, &E, i };
	for (i = 0; (flags & TOK_ADD_SPECIAL) && i < t->npost; i++)
		if (t->post[i]->ops->add(t->post[i], 0, out) < 0)
			return -1;
	if (added(&E, s, n, 0, 1) < 0)
		return -1;
	for (i = 0; (flags & TOK_ADD_SPECIAL) && i < t->npost; i++)
		if (t->post[i]->ops->add(t->post[i], 1, out) < 0)
			return -1;
	return 0;
}

int
tok_words(struct tok *t, const char *s, size_t n,
    int (*fn)(void *ctx, const char *w, size_t n), void *ctx)
{
	struct enc E;
	const char *ns;
	size_t i, nn;

	if (t->npre >= TOK_MAXDEPTH - 1)
		return error("too many pre-tokenizers");
	if (!t->enc && !(t->enc = xcalloc(1, sizeof *t->enc)))
		return -1;
	E.t = t, E.out = NULL, E.flags = 0, E.fn = fn, E.ctx = ctx;
	for (i = 0; i <= t->npre; i++)
		E.stage[i] = (struct stage){ { i < t->npre ? stage : leaf }, &E, i };
	if (!n)
		return 0;
	if (normalize(t, s, n, &ns, &nn) < 0)
		return -1;
	return E.stage[0].next.piece(&E.stage[0].next, ns, nn, 1);
}
