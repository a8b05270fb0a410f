/* tok_bpe.c: the BPE model (tokenizers' models/bpe).
 *
 * A word is split into characters (bytes, for a byte-level vocabulary,
 * whose strings are kept as the bytes they stand for) and merged by a
 * queue of merges ordered by rank, then position (word.rs); characters
 * the vocabulary lacks become <0xHH> tokens (byte_fallback) or unk_token,
 * or are dropped. */
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "tok/tok_int.h"
#include "base/util.h"

struct sym {
	int id;
	int prev, next;		/* -1 at the ends */
	uint32_t len;		/* bytes covered; 0 once merged away */
};

struct qent {
	uint64_t key;		/* rank << 32 | position */
	int newid;
};

struct bpe {
	struct tok_model m;
	int bytelevel;			/* keys are the bytes strings stand for */
	int byte_fallback, fuse_unk, ignore_merges;
	int unk;			/* unk_token id or -1 */
	int byteid[256];		/* byte-level: id of each single byte, or
					 * byte_fallback: id of <0xXX>; -1 if none */
	int ntok;
	char **key;			/* [ntok] the bytes BPE matches, or NULL
					 * if unreachable (an added token) */
	uint32_t *klen;			/* [ntok] */

	/* vocabulary and merges: open addressing, sizes powers of two, in
	 * the tokenizer's memory */
	uint32_t *vtab;			/* id + 1, 0 = empty */
	size_t vmask;
	struct mslot {
		uint64_t key;		/* (a << 32 | b) + 1, 0 = empty */
		uint64_t val;		/* rank << 32 | new id */
	} *mtab;
	size_t mmask;

	/* SentencePiece-style text without pre-tokenization is one word:
	 * it is cut before each U+2581 that no merge can join to the
	 * character before it (see bpe_cuts) */
	int cut;
	uint32_t *join;			/* characters some token has before
					 * U+2581, sorted */
	size_t njoin;

	/* scratch for one word */
	struct sym *sym;
	size_t symcap;
	struct qent *q;
	size_t qcap;
};

/* ---- lookups ---- */

/* id of the key s[0..n), or -1 */
static int
vocab_get(const struct bpe *b, const char *s, size_t n)
{
	size_t i = (size_t)(tok_hash(s, n) >> 16) & b->vmask;

	for (;; i = (i + 1) & b->vmask) {
		uint32_t e = b->vtab[i];
		if (!e)
			return -1;
		e--;
		if (b->klen[e] == n && tok_eq(b->key[e], s, n))
			return (int)e;
	}
}

static inline size_t
mhash(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	return (size_t)k;
}

/* merge of a and b: its rank, and the merged id in *newid; -1 if none */
static inline long long
merge_get(const struct bpe *b, int x, int y, int *newid)
{
	uint64_t k = ((uint64_t)(uint32_t)x << 32 | (uint32_t)y) + 1;
	size_t i = mhash(k) & b->mmask;

	for (;; i = (i + 1) & b->mmask) {
		if (b->mtab[i].key == k) {
			*newid = (int)(uint32_t)b->mtab[i].val;
			return (long long)(b->mtab[i].val >> 32);
		}
		if (!b->mtab[i].key)
			return -1;
	}
}

/* ---- encoding ---- */

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

/* The arrays of one word, which a long word (a SentencePiece tokenizer
 * without pre-tokenizer takes the whole text as one) makes large: past
 * BIGMAP bytes they are mapped, where huge pages cut the cost of page
 * faults. */
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
addsym(struct bpe *b, size_t *ns, int id, uint32_t len)
{
	struct sym *s;

	if (biggrow((void **)&b->sym, &b->symcap, *ns + 1, sizeof *b->sym) < 0)
		return -1;
	s = &b->sym[*ns];
	s->id = id, s->len = len;
	s->prev = *ns ? (int)*ns - 1 : -1;
	s->next = -1;
	if (*ns)
		b->sym[*ns - 1].next = *ns;
	(*ns)++;
	return 0;
}

static int
bpe_word(struct bpe *b, const char *s, size_t n, struct tok_ids *out, size_t *ndropped)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i, ns = 0, nq = 0;
	int id, unk = -1;
	uint32_t unklen = 0;

	for (i = 0; i < n;) {
		size_t len;
		uint32_t cp;
		if (b->bytelevel) {
			len = 1;
			id = b->byteid[p[i]];
		} else {
			len = uni_decode(p + i, n - i, &cp);
			id = vocab_get(b, s + i, len);
		}
		if (id >= 0) {
			if (unk >= 0 && addsym(b, &ns, unk, unklen) < 0)
				return -1;
			unk = -1;
			if (addsym(b, &ns, id, len) < 0)
				return -1;
		} else if (b->byte_fallback && !b->bytelevel) {
			size_t k;
			for (k = 0; k < len && b->byteid[p[i + k]] >= 0; k++)
				;
			if (k == len) {
				for (k = 0; k < len; k++)
					if (addsym(b, &ns, b->byteid[p[i + k]], 1) < 0)
						return -1;
				i += len;
				continue;
			}
			goto nounk;
		} else {
nounk:
			if (b->unk >= 0) {
				if (unk >= 0 && b->fuse_unk) {
					unklen += len;
				} else {
					if (unk >= 0 && addsym(b, &ns, unk, unklen) < 0)
						return -1;
					unk = b->unk, unklen = len;
				}
			} else {
				*ndropped += len;
			}
		}
		i += len;
	}
	if (unk >= 0 && addsym(b, &ns, unk, unklen) < 0)
		return -1;

	/* the merge queue: every adjacent pair with a merge */
	if (ns > 1 && biggrow((void **)&b->q, &b->qcap, ns * 2, sizeof *b->q) < 0)
		return -1;
	for (i = 0; i + 1 < ns; i++) {
		int nid;
		long long r = merge_get(b, b->sym[i].id, b->sym[i + 1].id, &nid);
		if (r >= 0)
			qpush(b->q, &nq, (uint64_t)r << 32 | i, nid);
	}
	while (nq) {
		struct qent top = qpop(b->q, &nq);
		size_t pos = (uint32_t)top.key;
		struct sym *x = &b->sym[pos], *y;
		int nid;
		long long r;

		if (!x->len || x->next < 0)
			continue;
		y = &b->sym[x->next];
		/* still the same merge? (tokenizers compares the new id) */
		if (merge_get(b, x->id, y->id, &nid) < 0 || nid != top.newid)
			continue;
		x->id = nid;
		x->len += y->len;
		y->len = 0;
		x->next = y->next;
		if (x->next >= 0)
			b->sym[x->next].prev = pos;
		if (nq + 2 > b->qcap &&
		    biggrow((void **)&b->q, &b->qcap, nq + 2, sizeof *b->q) < 0)
			return -1;
		if (x->prev >= 0 &&
		    (r = merge_get(b, b->sym[x->prev].id, x->id, &nid)) >= 0)
			qpush(b->q, &nq, (uint64_t)r << 32 | (uint32_t)x->prev, nid);
		if (x->next >= 0 &&
		    (r = merge_get(b, x->id, b->sym[x->next].id, &nid)) >= 0)
			qpush(b->q, &nq, (uint64_t)r << 32 | pos, nid);
	}
	for (i = 0; i < ns; i = b->sym[i].next) {
		if (tok_ids_push(out, b->sym[i].id) < 0)
			return -1;
		if (b->sym[i].next < 0)
			break;
	}
	return 0;
}

#define SPACE "\xe2\x96\x81"	/* U+2581, SentencePiece's space */
#define CUTMIN 64		/* shorter words are merged whole */

static int
joins(const struct bpe *b, uint32_t cp)
{
	size_t lo = 0, hi = b->njoin;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (b->join[mid] == cp)
			return 1;
		if (b->join[mid] < cp)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

/* A merge across a cut between the characters a and U+2581 would make a
 * token holding both: where no token does, and a is a token (a byte
 * fallback's or unk's string ends in '>', which might), the parts merge
 * as the whole would, each pair within one part in the same order.  The
 * time of a merge is then the log of a part's length, not of the text's,
 * and a part's queue stays in the cache. */
static int
bpe_encode(struct tok_model *m, const char *s, size_t n, struct tok_ids *out, size_t *ndropped)
{
	struct bpe *b = (struct bpe *)m;
	size_t at, start = 0;
	int id;

	if (b->ignore_merges && (id = vocab_get(b, s, n)) >= 0)
		return tok_ids_push(out, id);
	if (!b->cut || n < CUTMIN)
		return bpe_word(b, s, n, out, ndropped);
	for (at = 1; at + 3 <= n; at++) {
		const char *q = tok_find(s + at, n - at, SPACE, 3);
		size_t k;
		uint32_t cp;
		if (!q)
			break;
		at = q - s;
		for (k = at - 1; k > start && at - k < 4 && (s[k] & 0xc0) == 0x80; k--)
			;
		if (k < start || uni_decode((const unsigned char *)s + k, at - k, &cp) != at - k ||
		    joins(b, cp) || vocab_get(b, s + k, at - k) < 0)
			continue;
		if (bpe_word(b, s + start, at - start, out, ndropped) < 0)
			return -1;
		start = at;
	}
	return bpe_word(b, s + start, n - start, out, ndropped);
}

static void
bpe_free(struct tok_model *m)
{
	struct bpe *b = (struct bpe *)m;

	free(b->join);
	bigfree(b->sym, b->symcap, sizeof *b->sym);
	bigfree(b->q, b->qcap, sizeof *b->q);
	free(b);
}

static const struct tok_model_ops bpe_ops = { bpe_encode, bpe_free };

/* ---- loading ---- */

/* A vocabulary string's byte-level key: the bytes its characters stand
 * for (written to out, at most n bytes).  Returns the key length, or -1
 * if a character is not in the byte-level alphabet. */
static long
bl_key(const char *s, size_t n, char *out)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, o = 0;

	while (i < n) {
		uint32_t cp;
		int b;
		i += uni_decode(p + i, n - i, &cp);
		if ((b = tok_u2b(cp)) < 0)
			return -1;
		out[o++] = b;
	}
	return o;
}

static int
bpe_options(struct tok_ld *L, struct bpe *b, const struct json *m)
{
	const struct json *d = json_get(m, "dropout");
	const char *p = json_str(json_get(m, "continuing_subword_prefix"));
	const char *e = json_str(json_get(m, "end_of_word_suffix"));
	double v;

	/* dropout merges at random: only its absence (null, 0) is the
	 * tokenizer HuggingFace encodes with */
	if (d && d->type != JSON_NULL && (json_num(d, &v) < 0 || v != 0))
		return error("%s: unsupported model option: dropout", L->path);
	/* an empty prefix or suffix (Qwen3 writes one) changes nothing */
	if (p && *p)
		return error("%s: unsupported model option: continuing_subword_prefix", L->path);
	if (e && *e)
		return error("%s: unsupported model option: end_of_word_suffix", L->path);
	b->byte_fallback = tok_getbool(m, "byte_fallback", 0);
	b->fuse_unk = tok_getbool(m, "fuse_unk", 0);
	b->ignore_merges = tok_getbool(m, "ignore_merges", 0);
	b->bytelevel = L->bytelevel;
	return 0;
}

/* The keys of the model's vocab (not of the added tokens, which are
 * matched in the text) and their hash; the first id of a key wins.  The
 * reader's table of vocab strings is the hash: its entries become ids
 * where the keys are those strings, else it is filled again with the
 * byte-level keys. */
static int
bpe_vocab(struct tok_ld *L, struct bpe *b)
{
	const struct tok_raw *R = L->raw;
	size_t i, off = 0;
	int id;
	char *arena = NULL;

	b->ntok = L->t->ntok;
	b->vmask = R->hmask;
	b->vtab = R->htab;
	if (!(b->key = tok_alloc(L, b->ntok * sizeof *b->key)) ||
	    !(b->klen = tok_alloc(L, b->ntok * sizeof *b->klen)) ||
	    (b->bytelevel && !(arena = tok_alloc(L, R->nstr))))
		return -1;
	for (i = 0; i < R->nent; i++) {
		const struct tok_vent *e = &R->ent[i];
		long k;
		if (b->bytelevel) {
			if ((k = bl_key(R->str + e->off, e->len, arena + off)) < 0)
				continue;	/* not in the alphabet: unreachable */
			b->key[e->id] = arena + off;
			off += k + 1;
		} else {	/* an added token may have taken the id: the key
				 * is the vocab's string */
			k = e->len;
			b->key[e->id] = R->str + e->off;
		}
		b->klen[e->id] = k;
	}
	if (!b->bytelevel) {
		for (i = 0; i <= b->vmask; i++)
			if (b->vtab[i])
				b->vtab[i] = R->ent[b->vtab[i] - 1].id + 1;
		return 0;
	}
	memset(b->vtab, 0, (b->vmask + 1) * sizeof *b->vtab);
	for (id = 0; id < b->ntok; id++) {
		size_t h;
		if (!b->key[id])
			continue;
		h = (size_t)(tok_hash(b->key[id], b->klen[id]) >> 16) & b->vmask;
		for (;; h = (h + 1) & b->vmask) {
			uint32_t e = b->vtab[h];
			if (!e)
				break;
			if (b->klen[e - 1] == b->klen[id] &&
			    !memcmp(b->key[e - 1], b->key[id], b->klen[id]))
				break;	/* first id wins */
		}
		if (!b->vtab[h])
			b->vtab[h] = id + 1;
	}
	return 0;
}

/* merges: (a, b) -> rank, id of a+b; the first (best) rank wins.  The
 * reader noted the first merge of each fault; which is reported is the
 * one a reader in rank order meets first: a byte-level tokenizer skips
 * the merges of strings outside its alphabet (never reached). */
static int
bpe_merges(struct tok_ld *L, struct bpe *b)
{
	const struct tok_raw *R = L->raw;
	size_t i, h, bad = b->bytelevel ? R->missing_bl : R->missing;

	if (R->badmerge < bad)
		return error("%s: merge %zu: not \"a b\" or [\"a\", \"b\"]", L->path, R->badmerge);
	if (bad != TOK_NONE)
		return error("%s: merge %zu: token not in the vocabulary", L->path, bad);
	b->mmask = tok_pow2(R->nmrg) - 1;
	if (!(b->mtab = tok_alloc(L, (b->mmask + 1) * sizeof *b->mtab)))
		return -1;
	for (i = 0; i < R->nmrg; i++) {
		const struct tok_merge *g = &R->mrg[i];
		uint64_t key;
		/* the slot of the merge 16 on: the table is 16 bytes a merge,
		 * written at random (Gemma 3: 16 MB) */
		if (i + 16 < R->nmrg && (g + 16)->a >= 0) {
			key = ((uint64_t)(uint32_t)g[16].a << 32 | (uint32_t)g[16].b) + 1;
			__builtin_prefetch(&b->mtab[mhash(key) & b->mmask], 1);
		}
		if (g->a < 0 || (b->bytelevel && (!b->key[g->a] || !b->key[g->b])))
			continue;
		key = ((uint64_t)(uint32_t)g->a << 32 | (uint32_t)g->b) + 1;
		h = mhash(key) & b->mmask;
		while (b->mtab[h].key && b->mtab[h].key != key)
			h = (h + 1) & b->mmask;
		if (!b->mtab[h].key) {
			b->mtab[h].key = key;
			b->mtab[h].val = (uint64_t)i << 32 | (uint32_t)g->m;
		}
	}
	return 0;
}

/* the single bytes: byte-level tokens, or byte_fallback's <0xHH> */
static void
bpe_bytes(struct bpe *b)
{
	size_t i;

	for (i = 0; i < 256; i++) {
		char k[8];
		if (b->bytelevel) {
			k[0] = i;
			b->byteid[i] = vocab_get(b, k, 1);
		} else {
			snprintf(k, sizeof k, "<0x%02X>", (unsigned)i);
			b->byteid[i] = b->byte_fallback ? vocab_get(b, k, 6) : -1;
		}
	}
}

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* The characters that some key has right before U+2581; cutting is on
 * for a vocabulary of characters (not byte-level) where U+2581 is a
 * token and merges are not skipped for whole words. */
static int
bpe_cuts(struct bpe *b)
{
	size_t cap = 0, k;
	int id;

	if (b->bytelevel || b->ignore_merges || vocab_get(b, SPACE, 3) < 0)
		return 0;
	for (id = 0; id < b->ntok; id++) {
		const char *s = b->key[id], *q;
		size_t n = b->klen[id], at;
		if (!s)
			continue;
		for (at = 1; at + 3 <= n && (q = tok_find(s + at, n - at, SPACE, 3)); at++) {
			uint32_t cp;
			at = q - s;
			for (k = at - 1; k > 0 && (s[k] & 0xc0) == 0x80; k--)
				;
			uni_decode((const unsigned char *)s + k, at - k, &cp);
			if (xgrow(&b->join, &cap, b->njoin + 1, sizeof *b->join) < 0)
				return -1;
			b->join[b->njoin++] = cp;
		}
	}
	if (b->njoin)
		qsort(b->join, b->njoin, sizeof *b->join, cmp_u32);
	b->cut = 1;
	return 0;
}

static int
bpe_unk(struct tok_ld *L, struct bpe *b, const struct json *m)
{
	char *unk;
	int r = 0;

	b->unk = -1;
	if (tok_getstr(L, m, "unk_token", 0, &unk, NULL) < 0)
		return -1;
	if (unk && (b->unk = tok_vocab_find(L->t, unk, strlen(unk))) < 0)
		r = error("%s: unk_token %s not in the vocabulary", L->path, unk);
	free(unk);
	return r;
}

int
tok_bpe_make(struct tok_ld *L, const struct json *m, size_t depth)
{
	const struct tok_raw *R = L->raw;
	struct bpe *b;

	(void)depth;
	/* the reader took the model's first vocab if it was an object, its
	 * first merges if an array: else they are missing or not those */
	if (!R || !R->vocab)
		return error("%s: model: no vocab", L->path);
	if (!R->merges)
		return error("%s: model: no merges", L->path);
	if (!(b = xcalloc(1, sizeof *b)))
		return -1;
	b->m.ops = &bpe_ops;
	if (bpe_options(L, b, m) < 0 || tok_vocab_load(L) < 0 ||
	    bpe_vocab(L, b) < 0 || bpe_merges(L, b) < 0)
		goto bad;
	bpe_bytes(b);
	if (bpe_cuts(b) < 0 || bpe_unk(L, b, m) < 0)
		goto bad;
	L->t->model = &b->m;
	return 0;
bad:
	bpe_free(&b->m);
	return -1;
}
