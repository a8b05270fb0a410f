/* tok_enc.c: encoding: added tokens, normalizers, pre-tokenizers, BPE.
 *
 * The text is split on added tokens first (tokenizers'
 * added_vocabulary.rs: leftmost-longest; lstrip, rstrip, single_word);
 * each piece between them is normalized, split by the pre-tokenizers in
 * turn (a recursion, one level per pre-tokenizer) and each final piece
 * goes through BPE (models/bpe/word.rs: a queue of merges ordered by rank,
 * then position), with a cache for words seen before. */
#include <stdlib.h>
#include <string.h>

#include "tok_int.h"
#include "unicode.h"
#include "util.h"

struct sym {
	int id;
	int prev, next;		/* -1 at the ends */
	uint32_t len;		/* bytes covered; 0 once merged away */
};

struct qent {
	uint64_t key;		/* rank << 32 | position */
	int newid;
};

struct seg {
	size_t a, b;
	int match;
};

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

struct work {
	struct tok_buf nb[2];			/* normalizer output */
	struct tok_buf pb[TOK_MAXDEPTH];	/* pre-tokenizer rewrites */
	struct seg *seg[TOK_MAXDEPTH];
	size_t segcap[TOK_MAXDEPTH];
	struct sym *sym;
	size_t symcap;
	struct qent *q;
	size_t qcap;
	unsigned char first[256];		/* added tokens' first bytes */
	int ready;
};

/* the first needle[0..nn) in hay[0..hn), or NULL; nn > 0 */
static const char *
find(const char *hay, size_t hn, const char *needle, size_t nn)
{
	const char *p = hay, *end = hay + hn;

	while ((size_t)(end - p) >= nn) {
		p = memchr(p, needle[0], end - p - nn + 1);
		if (!p)
			return NULL;
		if (!memcmp(p, needle, nn))
			return p;
		p++;
	}
	return NULL;
}

int
tok_ids_push(struct tok_ids *ids, int id)
{
	if (ids->n == ids->cap && xgrow(&ids->v, &ids->cap, ids->n + 1, sizeof *ids->v) < 0)
		return -1;
	ids->v[ids->n++] = id;
	return 0;
}

int
tok_buf_add(struct tok_buf *b, const void *p, size_t n)
{
	size_t need;

	if (n > b->cap - b->n &&
	    (size_add(&need, b->n, n) < 0 || xgrow(&b->p, &b->cap, need, 1) < 0))
		return -1;
	if (n)
		memcpy(b->p + b->n, p, n);
	b->n += n;
	return 0;
}

static void bigfree(void *p, size_t cap, size_t size);

void
tok_enc_free(struct tok *t)
{
	struct work *w = t->work;
	size_t i;

	if (w) {
		for (i = 0; i < 2; i++)
			free(w->nb[i].p);
		for (i = 0; i < TOK_MAXDEPTH; i++)
			free(w->pb[i].p), free(w->seg[i]);
		bigfree(w->sym, w->symcap, sizeof *w->sym);
		bigfree(w->q, w->qcap, sizeof *w->q);
		free(w);
	}
	mem_unmap(t->cache, sizeof(struct cache));
	t->work = t->cache = NULL;
}

/* ---- BPE ---- */

static void
qpush(struct qent *q, size_t *n, uint64_t key, int newid)
{
	size_t i = (*n)++;

	while (i > 0) {
		size_t p = (i - 1) / 2;
		if (q[p].key <= key)
			break;
		q[i] = q[p];
		i = p;
	}
	q[i].key = key, q[i].newid = newid;
}

static struct qent
qpop(struct qent *q, size_t *n)
{
	struct qent top = q[0], last = q[--*n];
	size_t i = 0, m = *n;

	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= m)
			break;
		if (c + 1 < m && q[c + 1].key < q[c].key)
			c++;
		if (last.key <= q[c].key)
			break;
		q[i] = q[c];
		i = c;
	}
	if (m)
		q[i] = last;
	return top;
}

/* The same for the BPE arrays, which a long word (a SentencePiece
 * tokenizer without pre-tokenizer takes the whole text as one) makes
 * large: past BIGMAP bytes they are mapped, where huge pages cut the
 * cost of page faults. */
#define BIGMAP ((size_t)4 << 20)

static void
bigfree(void *p, size_t cap, size_t size)
{
	if (cap * size >= BIGMAP)
		mem_unmap(p, cap * size);
	else
		free(p);
}

static int
biggrow(void **p, size_t *cap, size_t need, size_t size)
{
	void *q;
	size_t c;

	if (need <= *cap)
		return 0;
	c = need < 64 ? 64 : need + need / 2;
	if (c > ((size_t)-1) / size)
		return error("out of memory (%zu-byte word)", need);
	if (c * size < BIGMAP) {	/* malloc'd: bigfree tells by the size */
		if (!(q = xreallocarray(*p, c, size)))
			return -1;
		*p = q, *cap = c;
		return 0;
	}
	if (!(q = mem_map(c * size)))
		return error("out of memory (%zu-byte word)", need);
	if (*cap)
		memcpy(q, *p, *cap * size);
	bigfree(*p, *cap, size);
	*p = q, *cap = c;
	return 0;
}

static int
addsym(struct work *w, size_t *ns, int id, uint32_t len)
{
	struct sym *s;

	if (biggrow((void **)&w->sym, &w->symcap, *ns + 1, sizeof *w->sym) < 0)
		return -1;
	s = &w->sym[*ns];
	s->id = id, s->len = len;
	s->prev = *ns ? (int)*ns - 1 : -1;
	s->next = -1;
	if (*ns)
		w->sym[*ns - 1].next = *ns;
	(*ns)++;
	return 0;
}

/* BPE on one word s[0..n), appending ids to out. */
static int
bpe(struct tok *t, const char *s, size_t n, struct tok_ids *out)
{
	struct work *w = t->work;
	const unsigned char *p = (const unsigned char *)s;
	size_t i, ns = 0, nq = 0;
	int id, unk = -1;
	uint32_t unklen = 0;

	if (t->ignore_merges && (id = tok_vocab_get(t, s, n)) >= 0)
		return tok_ids_push(out, id);
	for (i = 0; i < n;) {
		size_t len;
		uint32_t cp;
		if (t->bytelevel) {
			len = 1;
			id = t->byteid[p[i]];
		} else {
			len = uni_decode(p + i, n - i, &cp);
			id = tok_vocab_get(t, s + i, len);
		}
		if (id >= 0) {
			if (unk >= 0 && addsym(w, &ns, unk, unklen) < 0)
				return -1;
			unk = -1;
			if (addsym(w, &ns, id, len) < 0)
				return -1;
		} else if (t->byte_fallback && !t->bytelevel) {
			size_t k;
			for (k = 0; k < len && t->byteid[p[i + k]] >= 0; k++)
				;
			if (k == len) {
				for (k = 0; k < len; k++)
					if (addsym(w, &ns, t->byteid[p[i + k]], 1) < 0)
						return -1;
				i += len;
				continue;
			}
			goto nounk;
		} else {
nounk:
			if (t->unk >= 0) {
				if (unk >= 0 && t->fuse_unk) {
					unklen += len;
				} else {
					if (unk >= 0 && addsym(w, &ns, unk, unklen) < 0)
						return -1;
					unk = t->unk, unklen = len;
				}
			} else {
				t->ndropped += len;
			}
		}
		i += len;
	}
	if (unk >= 0 && addsym(w, &ns, unk, unklen) < 0)
		return -1;

	/* the merge queue: every adjacent pair with a merge */
	if (ns > 1 && biggrow((void **)&w->q, &w->qcap, ns * 2, sizeof *w->q) < 0)
		return -1;
	for (i = 0; i + 1 < ns; i++) {
		int nid;
		long long r = tok_merge_get(t, w->sym[i].id, w->sym[i + 1].id, &nid);
		if (r >= 0)
			qpush(w->q, &nq, (uint64_t)r << 32 | i, nid);
	}
	while (nq) {
		struct qent top = qpop(w->q, &nq);
		size_t pos = (uint32_t)top.key;
		struct sym *a = &w->sym[pos], *b;
		int nid;
		long long r;

		if (!a->len || a->next < 0)
			continue;
		b = &w->sym[a->next];
		/* still the same merge? (tokenizers compares the new id) */
		if (tok_merge_get(t, a->id, b->id, &nid) < 0 || nid != top.newid)
			continue;
		a->id = nid;
		a->len += b->len;
		b->len = 0;
		a->next = b->next;
		if (a->next >= 0)
			w->sym[a->next].prev = pos;
		if (nq + 2 > w->qcap &&
		    biggrow((void **)&w->q, &w->qcap, nq + 2, sizeof *w->q) < 0)
			return -1;
		if (a->prev >= 0 &&
		    (r = tok_merge_get(t, w->sym[a->prev].id, a->id, &nid)) >= 0)
			qpush(w->q, &nq, (uint64_t)r << 32 | (uint32_t)a->prev, nid);
		if (a->next >= 0 &&
		    (r = tok_merge_get(t, a->id, w->sym[a->next].id, &nid)) >= 0)
			qpush(w->q, &nq, (uint64_t)r << 32 | pos, nid);
	}
	for (i = 0; i < ns; i = w->sym[i].next) {
		if (tok_ids_push(out, w->sym[i].id) < 0)
			return -1;
		if (w->sym[i].next < 0)
			break;
	}
	return 0;
}

/* BPE through the cache. */
static int
word(struct tok *t, const char *s, size_t n, struct tok_ids *out)
{
	struct cache *c = t->cache;
	struct centry *e;
	uint64_t h;
	size_t i, n0 = out->n, k;

	if (!n)
		return 0;
	if (n > CMAXW || !c)
		return bpe(t, s, n, out);
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
		if (bpe(t, s, n, out) < 0)
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

/* ---- pre-tokenizers ---- */

/* class bits of the character at s[i], its length in *len */
static inline unsigned
cls(const unsigned char *s, size_t n, size_t i, size_t *len)
{
	uint32_t cp;

	if (s[i] < 0x80) {
		*len = 1;
		return uni_class(s[i]);
	}
	*len = uni_decode(s + i, n - i, &cp);
	return uni_class(cp);
}

#define OTHER(c) (!((c) & (UNI_L | UNI_N | UNI_WS)))

/* run of characters whose class has any bit of want (or, if other, of
 * none of L, N, WS) from i: its end */
static size_t
run(const unsigned char *s, size_t n, size_t i, unsigned want, int other)
{
	size_t len;

	while (i < n) {
		unsigned c = cls(s, n, i, &len);
		if (other ? !OTHER(c) : !(c & want))
			break;
		i += len;
	}
	return i;
}

/* \s+(?!\S)|\s+ from i, s[i] white space */
static size_t
spaces(const unsigned char *s, size_t n, size_t i)
{
	size_t j = i, last = i, len;

	while (j < n && (cls(s, n, j, &len) & UNI_WS))
		last = j, j += len;
	if (j == n || last == i)
		return j;
	return last;	/* leave one space for the next word */
}

static int
lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c + 32 : c;
}

/* 's|'t|'re|'ve|'m|'ll|'d, optionally caseless (ſ folds to s): end or i */
static size_t
contraction(const unsigned char *s, size_t n, size_t i, int caseless)
{
	int a, b;

	if (i + 1 >= n || s[i] != '\'')
		return i;
	a = caseless ? lower(s[i + 1]) : s[i + 1];
	b = i + 2 < n ? (caseless ? lower(s[i + 2]) : s[i + 2]) : 0;
	if (a == 's' || a == 't' || a == 'm' || a == 'd')
		return i + 2;
	if ((a == 'r' && b == 'e') || (a == 'v' && b == 'e') || (a == 'l' && b == 'l'))
		return i + 3;
	if (caseless && s[i + 1] == 0xc5 && b == 0xbf)
		return i + 3;
	return i;
}

/* GPT-2: 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+ */
static size_t
scan_gpt2(const unsigned char *s, size_t n, size_t i)
{
	size_t j, len, e;
	unsigned c;

	if ((e = contraction(s, n, i, 0)) > i)
		return e;
	j = i;
	if (s[i] == ' ' && i + 1 < n)
		j++;
	c = cls(s, n, j, &len);
	if (c & UNI_L)
		return run(s, n, j + len, UNI_L, 0);
	if (c & UNI_N)
		return run(s, n, j + len, UNI_N, 0);
	if (OTHER(c))
		return run(s, n, j + len, 0, 1);
	return spaces(s, n, i);
}

/* Llama 3 (maxdigits 3) and Qwen2 (1):
 * (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}|
 *  ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+ */
static size_t
scan_llama3(const unsigned char *s, size_t n, size_t i, int maxdigits)
{
	size_t j, len, len2, e, last;
	unsigned c, c2;
	int k;

	if ((e = contraction(s, n, i, 1)) > i)
		return e;
	c = cls(s, n, i, &len);
	if (c & UNI_L)
		return run(s, n, i + len, UNI_L, 0);
	if (!(c & UNI_N) && s[i] != '\r' && s[i] != '\n' && i + len < n &&
	    (cls(s, n, i + len, &len2) & UNI_L))
		return run(s, n, i + len + len2, UNI_L, 0);
	if (c & UNI_N) {
		for (j = i + len, k = 1; k < maxdigits && j < n; k++) {
			if (!(cls(s, n, j, &len2) & UNI_N))
				break;
			j += len2;
		}
		return j;
	}
	j = i;
	if (s[i] == ' ' && i + 1 < n)
		j++, c2 = cls(s, n, j, &len2);
	else
		c2 = c, len2 = len;
	if (OTHER(c2)) {
		j = run(s, n, j + len2, 0, 1);
		while (j < n && (s[j] == '\r' || s[j] == '\n'))
			j++;
		return j;
	}
	/* white space: \s*[\r\n]+ ends after the last \r or \n of the run */
	for (j = i, last = n + 1; j < n; j += len) {
		if (!(cls(s, n, j, &len) & UNI_WS))
			break;
		if (s[j] == '\r' || s[j] == '\n')
			last = j;
	}
	if (last <= n)
		return last + 1;
	return spaces(s, n, i);
}

struct enc {
	struct tok *t;
	struct tok_ids *out;
	int flags;
};

static int pre(struct enc *E, size_t d, const char *s, size_t n, int first);

/* Find matches of p in s[0..n) as segments (gaps and matches, in order),
 * into w->seg[d]; returns their number or -1. */
static long
segments(struct enc *E, size_t d, const struct tok_pre *p, const char *s, size_t n)
{
	struct work *w = E->t->work;
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, gap = 0, ns = 0, len, e;

	for (;;) {
		size_t ma = n, mb = n;
		/* next match at or after i */
		if (p->pat == PAT_LITERAL) {
			const char *f = NULL;
			if (n - i >= p->litlen)
				f = find(s + i, n - i, p->lit, p->litlen);
			if (f)
				ma = f - s, mb = ma + p->litlen;
		} else if (p->pat == PAT_NUMERIC) {
			for (e = i; e < n; e += len)
				if (cls(u, n, e, &len) & UNI_N)
					break;
			if (e < n)
				ma = e, mb = e + len;
		} else if (i < n) {
			ma = i;
			mb = p->pat == PAT_GPT2 ? scan_gpt2(u, n, i) :
			    scan_llama3(u, n, i, p->pat == PAT_LLAMA3 ? 3 : 1);
		}
		if (xgrow(&w->seg[d], &w->segcap[d], ns + 2, sizeof **w->seg) < 0)
			return -1;
		if (ma > gap)
			w->seg[d][ns++] = (struct seg){ gap, ma, p->invert };
		if (ma == n)
			break;
		w->seg[d][ns++] = (struct seg){ ma, mb, !p->invert };
		i = gap = mb;
	}
	return ns;
}

/* Split s as p says and go on with each piece. */
static int
split(struct enc *E, size_t d, const struct tok_pre *p, const char *s, size_t n, int first)
{
	struct work *w = E->t->work;
	struct seg *sg;
	long ns, i, k;
	int prev = 0;

	if ((ns = segments(E, d, p, s, n)) < 0)
		return -1;
	sg = w->seg[d];
	/* fold as tokenizers' split() does, in place: k pieces */
	k = 0;
	switch (p->behavior) {
	case SPLIT_REMOVED:
		for (i = 0; i < ns; i++)
			if (!sg[i].match)
				sg[k++] = sg[i];
		break;
	case SPLIT_ISOLATED:
		k = ns;
		break;
	case SPLIT_PREVIOUS:
		for (i = 0; i < ns; i++) {
			if (sg[i].match && !prev && k)
				sg[k - 1].b = sg[i].b;
			else
				sg[k++] = sg[i];
			prev = sg[i].match;
		}
		break;
	case SPLIT_NEXT:
		for (i = ns - 1; i >= 0; i--) {	/* backwards, then reverse */
			struct seg x = sg[i];
			long at = ns - 1 - k;	/* fill from the end */
			if (x.match && !prev && k)
				sg[at + 1].a = x.a;
			else
				sg[at] = x, k++;
			prev = x.match;
		}
		memmove(sg, sg + ns - k, k * sizeof *sg);
		break;
	case SPLIT_CONTIGUOUS:
		for (i = 0; i < ns; i++) {
			if (sg[i].match == prev && k)
				sg[k - 1].b = sg[i].b;
			else
				sg[k++] = sg[i];
			prev = sg[i].match;
		}
		break;
	}
	for (i = 0; i < k; i++) {
		/* the recursion reuses deeper levels only */
		size_t a = w->seg[d][i].a, b = w->seg[d][i].b;
		if (pre(E, d + 1, s + a, b - a, first && a == 0) < 0)
			return -1;
	}
	return 0;
}

/* Pre-tokenizer d on s[0..n); first: s starts the input. */
static int
pre(struct enc *E, size_t d, const char *s, size_t n, int first)
{
	struct tok *t = E->t;
	struct work *w = t->work;
	const struct tok_pre *p;
	struct tok_buf *b;
	size_t i, e;

	if (!n)
		return 0;
	if (d == t->npre)
		return word(t, s, n, E->out);
	p = &t->pre[d];
	b = &w->pb[d];
	switch (p->type) {
	case PRE_BYTELEVEL:
		if (p->add_prefix_space && s[0] != ' ') {
			b->n = 0;
			if (tok_buf_add(b, " ", 1) < 0 || tok_buf_add(b, s, n) < 0)
				return error("out of memory");
			s = b->p, n = b->n;
		}
		if (!p->use_regex)
			return pre(E, d + 1, s, n, first);
		/* every position starts a match: the pieces are the matches */
		for (i = 0; i < n; i = e) {
			e = scan_gpt2((const unsigned char *)s, n, i);
			if (pre(E, d + 1, s + i, e - i, first && i == 0) < 0)
				return -1;
		}
		return 0;
	case PRE_SPLIT:
		if (p->pat != PAT_LITERAL && p->behavior == SPLIT_ISOLATED && !p->invert &&
		    p->pat != PAT_NUMERIC) {
			for (i = 0; i < n; i = e) {
				e = p->pat == PAT_GPT2 ?
				    scan_gpt2((const unsigned char *)s, n, i) :
				    scan_llama3((const unsigned char *)s, n, i,
				    p->pat == PAT_LLAMA3 ? 3 : 1);
				if (pre(E, d + 1, s + i, e - i, first && i == 0) < 0)
					return -1;
			}
			return 0;
		}
		/* fall through */
	case PRE_DIGITS:
		return split(E, d, p, s, n, first);
	case PRE_METASPACE:
		/* spaces become the replacement, then it is prepended unless
		 * the result starts with it */
		b->n = 0;
		if ((p->prepend == PREPEND_ALWAYS || (p->prepend == PREPEND_FIRST && first)) &&
		    s[0] != ' ' && !(n >= p->replen && !memcmp(s, p->rep, p->replen)) &&
		    tok_buf_add(b, p->rep, p->replen) < 0)
			return error("out of memory");
		for (i = 0; i < n; i++)
			if (s[i] == ' ' ? tok_buf_add(b, p->rep, p->replen) :
			    tok_buf_add(b, s + i, 1))
				return error("out of memory");
		if (!p->split)
			return pre(E, d + 1, b->p, b->n, first);
		/* split before each replacement (MergedWithNext) */
		for (i = 0; i < b->n; i = e) {
			const char *f = NULL;
			if (b->n - i > p->replen)
				f = find(b->p + i + p->replen, b->n - i - p->replen,
				    p->rep, p->replen);
			e = f ? (size_t)(f - b->p) : b->n;
			if (pre(E, d + 1, b->p + i, e - i, first && i == 0) < 0)
				return -1;
		}
		return 0;
	}
	return 0;
}

/* ---- normalizers ---- */

/* Normalize s[0..n); *out points at the result (s itself or a buffer). */
static int
normalize(struct tok *t, const char *s, size_t n, const char **out, size_t *outn)
{
	struct work *w = t->work;
	size_t k, i, cur = 0;

	*out = s, *outn = n;
	for (k = 0; k < t->nnorm; k++) {
		const struct tok_norm *m = &t->norm[k];
		struct tok_buf *b = &w->nb[cur];
		const char *f;
		b->n = 0;
		switch (m->type) {
		case NORM_PREPEND:
			if (!n)
				continue;
			if (tok_buf_add(b, m->a, m->alen) < 0 || tok_buf_add(b, s, n) < 0)
				return error("out of memory");
			break;
		case NORM_REPLACE:
			if (!find(s, n, m->a, m->alen))
				continue;
			for (i = 0; i < n;) {
				f = find(s + i, n - i, m->a, m->alen);
				if (!f) {
					if (tok_buf_add(b, s + i, n - i) < 0)
						return error("out of memory");
					break;
				}
				if (tok_buf_add(b, s + i, f - (s + i)) < 0 ||
				    tok_buf_add(b, m->b, m->blen) < 0)
					return error("out of memory");
				i = f - s + m->alen;
			}
			break;
		case NORM_NFC:
		case NORM_NFKC: {
			char *r;
			size_t rn;
			for (i = 0; i < n && (unsigned char)s[i] < 0x80; i++)
				;
			if (i == n)
				continue;	/* ASCII is normalized */
			if (!(r = uni_normalize(s, n, m->type == NORM_NFKC, &rn)))
				return error("out of memory");
			i = tok_buf_add(b, r, rn);
			free(r);
			if (i)
				return error("out of memory");
			break;
		}
		}
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
	c = cls(s, i, j, &len);
	if (j + len != i) {	/* not one character: the last byte alone */
		j = i - 1;
		c = cls(s, i, j, &len);
	}
	*start = j;
	return c;
}

/* Split s[0..n) on the added tokens with normalized == norm; pieces
 * between go on with fn. */
static int gap0(struct enc *E, const char *s, size_t n, int first);
static int gap1(struct enc *E, const char *s, size_t n, int first);

static int
added(struct enc *E, const char *s, size_t n, int norm, int first)
{
	struct tok *t = E->t;
	struct work *w = t->work;
	const unsigned char *u = (const unsigned char *)s;
	size_t i, k, gap = 0, len;
	int (*fn)(struct enc *, const char *, size_t, int) = norm ? gap1 : gap0;

	for (i = 0; i < n;) {
		const struct tok_added *a = NULL;
		size_t start, stop;
		if (!w->first[u[i]]) {
			i++;
			continue;
		}
		for (k = 0; k < t->nadded; k++) {
			const struct tok_added *c = &t->added[k];
			if (c->normalized != norm || c->len > n - i ||
			    (c->special && (E->flags & TOK_NO_SPECIAL)))
				continue;
			if (!memcmp(s + i, c->s, c->len)) {
				a = c;
				break;
			}
		}
		if (!a) {
			i++;
			continue;
		}
		start = i, stop = i + a->len;
		if (a->single_word) {
			int before = start > 0 &&
			    (cls_before(u, start, &len) & (UNI_ALPHA | UNI_N));
			int after = stop < n &&
			    (cls(u, n, stop, &len) & (UNI_ALPHA | UNI_N));
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
			while (stop < n && (cls(u, n, stop, &len) & UNI_WS))
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
	struct work *w = E->t->work;

	if (!n)
		return 0;
	if (normalize(E->t, s, n, &ns, &nn) < 0)
		return -1;
	if (ns != s) {
		/* the normalizer buffers are reused below: copy out */
		struct tok_buf *b = &w->pb[TOK_MAXDEPTH - 1];
		b->n = 0;
		if (tok_buf_add(b, ns, nn) < 0)
			return error("out of memory");
		ns = b->p;
	}
	return added(E, ns, nn, 1, first);
}

static int
gap1(struct enc *E, const char *s, size_t n, int first)
{
	return pre(E, 0, s, n, first);
}

int
tok_encode(struct tok *t, const char *s, size_t n, int flags, struct tok_ids *out)
{
	struct enc E = { t, out, flags };
	struct work *w;
	size_t i;

	if (!t->work) {
		if (!(t->work = xcalloc(1, sizeof *w)))
			return -1;
		/* optional; mapped: huge pages fault in fewer times */
		t->cache = mem_map(sizeof(struct cache));
	}
	w = t->work;
	if (!w->ready) {
		for (i = 0; i < t->nadded; i++)
			w->first[(unsigned char)t->added[i].s[0]] = 1;
		w->ready = 1;
	}
	if (t->npre >= TOK_MAXDEPTH - 1)
		return error("too many pre-tokenizers");
	if ((flags & TOK_ADD_SPECIAL))
		for (i = 0; i < t->nprefix; i++)
			if (tok_ids_push(out, t->prefix[i]) < 0)
				return -1;
	if (added(&E, s, n, 0, 1) < 0)
		return -1;
	if ((flags & TOK_ADD_SPECIAL))
		for (i = 0; i < t->nsuffix; i++)
			if (tok_ids_push(out, t->suffix[i]) < 0)
				return -1;
	return 0;
}
