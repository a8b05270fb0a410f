/* tok_read.c: the model's vocab and merges, read from tokenizer.json's
 * text by a json.h hook (see tok_int.h): no tree for the bulk of the
 * file. */
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "tok/tok_int.h"
#include "base/util.h"

size_t
tok_pow2(size_t n)
{
	size_t p = 16;

	while (p < n * 2)
		p *= 2;
	return p;
}

void
tok_raw_init(struct tok_raw *R, struct tok_ld *L)
{
	memset(R, 0, sizeof *R);
	R->L = L;
	R->maxid = -1;
	R->badid = R->badmerge = R->missing = R->missing_bl = TOK_NONE;
}

void
tok_raw_free(struct tok_raw *R)
{
	size_t i;

	free(R->ent);
	free(R->mrg);
	free(R->x);
	R->ent = NULL, R->mrg = NULL, R->x = NULL;
	for (i = 0; i < TOK_NPEND; i++) {
		free(R->pend[i].x);
		R->pend[i].x = NULL;
	}
}

/* grow *p to hold n items (quietly: the parser reports it) */
static int
grow(void *pp, size_t *cap, size_t n, size_t size)
{
	size_t c = *cap ? *cap : 1024;
	void *p;

	if (n <= *cap)
		return 0;
	while (c < n)
		if (size_mul(&c, c, 2) < 0)
			return -1;
	if (size_mul(&n, c, size) < 0 || !(p = realloc(*(void **)pp, n)))
		return -1;
	*(void **)pp = p;
	*cap = c;
	return 0;
}

static inline size_t
bucket(const struct tok_raw *R, const char *s, size_t n)
{
	return (size_t)(tok_hash(s, n) >> 16) & R->hmask;
}

static inline long
find_at(const struct tok_raw *R, size_t i, const char *s, size_t n)
{
	for (;; i = (i + 1) & R->hmask) {
		uint32_t e = R->htab[i];
		if (!e)
			return -1;
		e--;
		if (R->ent[e].len == n && tok_eq(R->str + R->ent[e].off, s, n))
			return e;
	}
}

long
tok_raw_find(const struct tok_raw *R, const char *s, size_t n)
{
	return find_at(R, bucket(R, s, n), s, n);
}

/* The string -> entry table; where a string is there twice, the entry of
 * the lower id stays (the tree's reader took the first id of a key). */
static int
vocab_hash(struct tok_raw *R)
{
	size_t i, h, size, hs[16];

	R->hmask = tok_pow2(R->nent) - 1;
	size = (R->hmask + 1) * sizeof *R->htab;
	if (!(R->htab = (uint32_t *)tok_room(R->L, size)))
		return -1;
	tok_keep(R->L, size);
	for (i = 0; i < R->nent; i++) {
		const struct tok_vent *e = &R->ent[i];
		/* the buckets are written at random: each fetched 16
		 * entries ahead, its hash kept until then */
		h = i < 16 ? bucket(R, R->str + e->off, e->len) : hs[i % 16];
		if (i + 16 < R->nent) {
			hs[i % 16] = bucket(R, R->str + e[16].off, e[16].len);
			__builtin_prefetch(&R->htab[hs[i % 16]], 1);
		}
		if (e->id < 0)
			continue;
		for (;; h = (h + 1) & R->hmask) {
			uint32_t o = R->htab[h];
			if (!o) {
				R->htab[h] = i + 1;
				break;
			}
			o--;
			if (R->ent[o].len == e->len &&
			    !memcmp(R->str + R->ent[o].off, R->str + e->off, e->len)) {
				if (e->id < R->ent[o].id)
					R->htab[h] = i + 1;
				break;
			}
		}
	}
	return 0;
}

/* {"string": id, ...}: each string decoded straight into t's memory,
 * whose room the text left bounds (a string decodes to no more bytes
 * than its text, quotes included, which pay for the NUL) */
static int
read_vocab(struct tok_raw *R, struct json_in *in)
{
	struct json_iter it = { 0 };
	size_t room = json_in_left(in), n;
	const char *s;
	long long id;
	int r;

	if (!(R->str = tok_room(R->L, room)))
		return json_in_fail(in, "out of memory");
	for (;;) {
		struct tok_vent *e;
		int fast = json_in_member_int(in, &it, &s, &n, TOK_MAXID - 1, &id);
		if (!fast && (r = json_in_member(in, &it, &s, &n)) != 1)
			break;
		if (R->nent == R->capent &&
		    grow(&R->ent, &R->capent, R->nent + 1, sizeof *R->ent) < 0)
			return json_in_fail(in, "out of memory");
		e = &R->ent[R->nent];
		memcpy(R->str + R->nstr, s, n);
		R->str[R->nstr + n] = '\0';
		e->off = R->nstr, e->len = n;
		R->nstr += n + 1;
		if (fast)
			r = 0;
		else if ((r = json_in_int(in, 0, TOK_MAXID - 1, &id)) < 0)
			return -1;
		if (r) {
			if (R->badid == TOK_NONE)
				R->badid = R->nent;
			id = -1;
		} else if (id > R->maxid) {
			R->maxid = id;
		}
		e->id = id;
		R->nent++;
	}
	if (r < 0)
		return -1;
	tok_keep(R->L, R->nstr);
	if (vocab_hash(R) < 0)
		return json_in_fail(in, "out of memory");
	R->vocab = 1;
	return 0;
}

/* R->x holds n bytes */
static inline int
xroom(struct tok_raw *R, size_t n)
{
	return n < R->xcap ? 0 : grow(&R->x, &R->xcap, n + 1, 1);
}

/* One merge: 0 and its halves in R->x[0..*xn) and [*xn..*xn + *yn); 1 if
 * it is not "a b" or ["a", "b"] (read); -1 if malformed. */
static int
read_merge(struct tok_raw *R, struct json_in *in, size_t *xn, size_t *yn)
{
	const char *s, *sp;
	size_t n, len[2] = { 0, 0 }, k = 0;
	struct json_iter it = { 0 };
	struct json j;
	int c = json_in_peek(in), bad = 0, r;

	if (c == '"') {
		if (json_in_str(in, &s, &n) < 0)
			return -1;
		if (!(sp = memchr(s, ' ', n)) || memchr(sp + 1, ' ', n - (sp + 1 - s)))
			return 1;
		if (xroom(R, n) < 0)
			return json_in_fail(in, "out of memory");
		*xn = sp - s, *yn = n - *xn - 1;
		memcpy(R->x, s, *xn);
		memcpy(R->x + *xn, sp + 1, *yn);
		return 0;
	}
	if (c != '[')
		return json_in_value(in, &j) < 0 ? -1 : 1;
	while ((r = json_in_item(in, &it)) == 1) {
		if (k < 2 && !bad && json_in_peek(in) == '"') {
			if (json_in_str(in, &s, &n) < 0)
				return -1;
			if (xroom(R, len[0] + n) < 0)
				return json_in_fail(in, "out of memory");
			memcpy(R->x + (k ? len[0] : 0), s, n);
			len[k] = n;
		} else {
			if (json_in_value(in, &j) < 0)
				return -1;
			bad = 1;
		}
		k++;
	}
	if (r < 0)
		return -1;
	if (bad || k != 2)
		return 1;
	*xn = len[0], *yn = len[1];
	return 0;
}

/* every character of s[0..n) in the byte-level alphabet */
static int
in_alphabet(const char *s, size_t n)
{
	size_t i = 0;

	while (i < n) {
		uint32_t cp;
		i += uni_decode((const unsigned char *)s + i, n - i, &cp);
		if (tok_u2b(cp) < 0)
			return 0;
	}
	return 1;
}

/* the oldest pending merge looked up, in rank order (the first fault
 * noted is the first by rank) */
static void
resolve(struct tok_raw *R)
{
	struct tok_pend *p = &R->pend[R->pfirst];
	struct tok_merge *g;
	long a, b, m;

	R->pfirst = (R->pfirst + 1) % TOK_NPEND;
	R->npend--;
	g = &R->mrg[p->i];
	if ((a = find_at(R, p->h[0], p->x, p->xn)) < 0 ||
	    (b = find_at(R, p->h[1], p->x + p->xn, p->yn)) < 0 ||
	    (m = find_at(R, p->h[2], p->x, p->xn + p->yn)) < 0) {
		if (R->missing == TOK_NONE)
			R->missing = p->i;
		if (R->missing_bl == TOK_NONE && in_alphabet(p->x, p->xn + p->yn))
			R->missing_bl = p->i;
		return;
	}
	g->a = R->ent[a].id, g->b = R->ent[b].id, g->m = R->ent[m].id;
}

/* merge i, in R->x, to be looked up once TOK_NPEND more are read: its
 * three buckets are fetched meanwhile (random places in a table of
 * megabytes: the lookups waited on them) */
static void
pend(struct tok_raw *R, size_t i, size_t xn, size_t yn)
{
	struct tok_pend *p;
	char *x;
	size_t c, k;
	uint32_t e;

	if (R->npend == TOK_NPEND)
		resolve(R);
	p = &R->pend[(R->pfirst + R->npend++) % TOK_NPEND];
	x = p->x, c = p->xcap;
	p->x = R->x, p->xcap = R->xcap;
	R->x = x, R->xcap = c;
	p->i = i, p->xn = xn, p->yn = yn;
	p->h[0] = bucket(R, p->x, xn);
	p->h[1] = bucket(R, p->x + xn, yn);
	p->h[2] = bucket(R, p->x, xn + yn);
	for (k = 0; k < 3; k++)
		__builtin_prefetch(&R->htab[p->h[k]]);
	/* and in two more steps, the first probe's entry and string of
	 * those read 4 and 8 before, whose buckets are here by now */
	if (R->npend > 4)
		for (p = &R->pend[(R->pfirst + R->npend - 5) % TOK_NPEND], k = 0; k < 3; k++)
			if ((e = R->htab[p->h[k]]))
				__builtin_prefetch(&R->ent[e - 1]);
	if (R->npend > 8)
		for (p = &R->pend[(R->pfirst + R->npend - 9) % TOK_NPEND], k = 0; k < 3; k++)
			if ((e = R->htab[p->h[k]]))
				__builtin_prefetch(R->str + R->ent[e - 1].off);
}

/* ["a b", ["a", "b"], ...]; lookup: the vocab is there, the merges are
 * noted (else they are only checked, to be read again after it) */
static int
read_merges(struct tok_raw *R, struct json_in *in, int lookup)
{
	struct json_iter it = { 0 };
	size_t i, xn = 0, yn = 0;
	int r;

	R->nmrg = 0;
	for (;;) {
		struct tok_merge *g;
		const char *s[2], *sp;
		size_t n[2];
		int fast = json_in_item_strs(in, &it, s, n);
		r = 0;
		if (fast == 1) {
			/* "a b": read_merge's split */
			r = !(sp = memchr(s[0], ' ', n[0])) ||
			    memchr(sp + 1, ' ', n[0] - (sp + 1 - s[0]));
			if (!r)
				s[1] = sp + 1, n[1] = n[0] - (sp - s[0]) - 1, n[0] = sp - s[0];
		}
		if (fast && !r) {
			if (xroom(R, n[0] + n[1]) < 0)
				return json_in_fail(in, "out of memory");
			memcpy(R->x, s[0], n[0]);
			memcpy(R->x + n[0], s[1], n[1]);
			xn = n[0], yn = n[1];
		}
		if (!fast) {
			if ((r = json_in_item(in, &it)) != 1)
				break;
			if ((r = read_merge(R, in, &xn, &yn)) < 0)
				return -1;
		}
		i = it.n - 1;
		if (!lookup)
			continue;
		if (i >= R->capmrg && grow(&R->mrg, &R->capmrg, i + 1, sizeof *R->mrg) < 0)
			return json_in_fail(in, "out of memory");
		g = &R->mrg[i];
		R->nmrg = i + 1;
		g->a = -1;
		if (r) {
			if (R->badmerge == TOK_NONE)
				R->badmerge = i;
			continue;
		}
		pend(R, i, xn, yn);
	}
	if (r < 0)
		return -1;
	while (R->npend)
		resolve(R);
	R->merges = 1;
	return 0;
}

int
tok_raw_member(void *ctx, struct json_in *in, const char *key, size_t n)
{
	struct tok_raw *R = ctx;
	struct json_pos pos;
	int r;

	if (!key) {	/* the model's end: merges that came before vocab */
		if (!R->mlate || !R->vocab)
			return 0;
		pos = json_in_tell(in);
		json_in_seek(in, R->mpos);
		r = read_merges(R, in, 1);
		json_in_seek(in, pos);
		return r;
	}
	/* the first of each, as json_get finds it; a second is the
	 * parser's, and unused */
	if (n == 5 && !memcmp(key, "vocab", 5)) {
		if (R->seenvocab++ || json_in_peek(in) != '{')
			return 0;
		return read_vocab(R, in) < 0 ? -1 : 1;
	}
	if (n == 6 && !memcmp(key, "merges", 6)) {
		if (R->seenmerges++ || json_in_peek(in) != '[')
			return 0;
		if (!R->vocab) {
			R->mpos = json_in_tell(in);
			R->mlate = 1;
		}
		return read_merges(R, in, R->vocab) < 0 ? -1 : 1;
	}
	return 0;
}
