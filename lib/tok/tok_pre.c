/* tok_pre.c: the pre-tokenizers (tokenizers' pre_tokenizers/): each cuts
 * a piece of text into smaller pieces for the next one, the last for the
 * model.  Split and Digits cut at the matches of a scanner (tok_scan.c),
 * ByteLevel with the GPT-2 regex. */
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "tok/tok_int.h"
#include "base/util.h"

/* ---- Split over a scanner ---- */

/* tokenizers' NormalizedString::split (normalizer.rs) folds the list of
 * (segment, is_match) that pattern.rs gives by behavior, then keeps the
 * pieces.  The same fold is done here as the segments come: only the
 * last piece can still grow, so it is held (a..b) until the next one
 * starts. */
struct fold {
	const char *s;
	int first;
	struct tok_next *nx;
	int behavior;
	int have;		/* a piece a..b is held */
	size_t a, b;
	int prev;		/* the last segment was a match */
	int alone;		/* the held piece is one match (MergedWithNext) */
};

static int
piece(struct fold *f, size_t a, size_t b)
{
	return f->nx->piece(f->nx, f->s + a, b - a, f->first && a == 0);
}

static int
flush(struct fold *f)
{
	if (!f->have)
		return 0;
	f->have = 0;
	return piece(f, f->a, f->b);
}

static int
segment(struct fold *f, size_t a, size_t b, int match)
{
	switch (f->behavior) {
	case SPLIT_REMOVED:
		return match ? 0 : piece(f, a, b);
	case SPLIT_ISOLATED:
		return piece(f, a, b);
	case SPLIT_PREVIOUS:	/* a match joins the piece before it */
		if (match && !f->prev && f->have) {
			f->b = b, f->prev = match;
			return 0;
		}
		break;
	case SPLIT_NEXT:	/* a match joins the piece after it */
		if (!match && f->have && f->alone) {
			f->b = b, f->alone = 0, f->prev = match;
			return 0;
		}
		break;
	case SPLIT_CONTIGUOUS:	/* runs of matches, runs of the rest */
		if (match == f->prev && f->have) {
			f->b = b;
			return 0;
		}
		break;
	}
	if (flush(f) < 0)
		return -1;
	f->have = 1, f->a = a, f->b = b;
	f->alone = f->prev = match;
	return 0;
}

/* as rust-onig's find_iter: no empty match where the last one ended;
 * search again a character on */
static size_t
skip(const char *s, size_t n, size_t at)
{
	uint32_t cp;

	return at + (at < n ? uni_decode((const unsigned char *)s + at, n - at, &cp) : 1);
}

/* Isolated: every segment is a piece, match or not */
static int
isolated(const struct tok_scan *sc, const char *s, size_t n, int first, struct tok_next *nx)
{
	size_t at = 0, end = 0, ms, me;
	int any = 0;

	while (at <= n && sc->find(sc->st, s, n, at, &ms, &me)) {
		if (ms == me && any && me == end) {
			at = skip(s, n, at);
			continue;
		}
		if (ms > end && nx->piece(nx, s + end, ms - end, first && end == 0) < 0)
			return -1;
		if (nx->piece(nx, s + ms, me - ms, first && ms == 0) < 0)
			return -1;
		at = end = me, any = 1;
	}
	if (n > end)
		return nx->piece(nx, s + end, n - end, first && end == 0);
	return 0;
}

int
tok_split(const struct tok_scan *sc, int behavior, int invert,
    const char *s, size_t n, int first, struct tok_next *nx)
{
	struct fold f = { s, first, nx, behavior, 0, 0, 0, 0, 0 };
	size_t at = 0, end = 0, ms, me;
	int any = 0;

	if (behavior == SPLIT_ISOLATED)	/* the common case, unfolded */
		return isolated(sc, s, n, first, nx);
	while (at <= n && sc->find(sc->st, s, n, at, &ms, &me)) {
		if (ms == me && any && me == end) {
			at = skip(s, n, at);
			continue;
		}
		if (ms > end && segment(&f, end, ms, invert) < 0)
			return -1;
		if (segment(&f, ms, me, !invert) < 0)
			return -1;
		at = end = me, any = 1;
	}
	if (n > end && segment(&f, end, n, invert) < 0)
		return -1;
	return flush(&f);
}

/* ---- the stage ---- */

static int build(struct tok_ld *L, const struct json *o, size_t depth);

static int
add(struct tok_ld *L, struct tok_pre *c)
{
	struct tok *t = L->t;

	if (xgrow(&t->pre, &t->precap, t->npre + 1, sizeof *t->pre) < 0) {
		c->ops->free ? c->ops->free(c) : free(c);
		return -1;
	}
	t->pre[t->npre++] = c;
	return 0;
}

static int
make_sequence(struct tok_ld *L, const struct json *o, size_t depth)
{
	const struct json *seq = json_get(o, "pretokenizers");
	size_t i;

	if (!seq || seq->type != JSON_ARRAY || depth > TOK_MAXNEST)
		return error("%s: bad pre_tokenizer Sequence", L->path);
	for (i = 0; i < seq->len; i++)
		if (build(L, &seq->u.items[i], depth + 1) < 0)
			return -1;
	return 0;
}

/* ---- Split, Digits ---- */

struct split {
	struct tok_pre c;
	struct tok_scan scan;
	int behavior, invert;
};

static int
split_run(struct tok_pre *c, const char *s, size_t n, int first, struct tok_next *nx)
{
	struct split *p = (struct split *)c;

	return tok_split(&p->scan, p->behavior, p->invert, s, n, first, nx);
}

static void
split_free(struct tok_pre *c)
{
	tok_scan_free(&((struct split *)c)->scan);
	free(c);
}

static const struct tok_pre_ops split_ops = { split_run, split_free };

static int
make_split(struct tok_ld *L, const struct json *o, size_t depth)
{
	static const char *beh[] = { "Removed", "Isolated",
	    "MergedWithPrevious", "MergedWithNext", "Contiguous" };
	struct split *p;
	const char *s;
	size_t i;

	(void)depth;
	if (!(p = xcalloc(1, sizeof *p)))
		return -1;
	p->c.ops = &split_ops;
	if (tok_scan_pattern(L, "pre_tokenizer Split", json_get(o, "pattern"), &p->scan) < 0)
		goto bad;
	s = json_str(json_get(o, "behavior"));
	for (i = 0; s && i < LEN(beh); i++)
		if (!strcmp(s, beh[i]))
			break;
	if (!s || i == LEN(beh)) {
		error("%s: pre_tokenizer Split: unsupported behavior %s",
		    L->path, s ? s : "(none)");
		goto bad;
	}
	p->behavior = i;
	p->invert = tok_getbool(o, "invert", 0);
	return add(L, &p->c);
bad:
	split_free(&p->c);
	return -1;
}

/* Digits is a Split on \p{N} (pre_tokenizers/digits.rs) */
static int
make_digits(struct tok_ld *L, const struct json *o, size_t depth)
{
	struct split *p;

	(void)depth;
	if (!(p = xcalloc(1, sizeof *p)))
		return -1;
	p->c.ops = &split_ops;
	if (tok_scan_regex(L, "pre_tokenizer Digits", TOK_RE_NUMERIC,
	    strlen(TOK_RE_NUMERIC), &p->scan) < 0) {
		split_free(&p->c);
		return -1;
	}
	p->behavior = tok_getbool(o, "individual_digits", 0) ?
	    SPLIT_ISOLATED : SPLIT_CONTIGUOUS;
	return add(L, &p->c);
}

/* ---- ByteLevel ---- */

struct bytelevel {
	struct tok_pre c;
	struct tok_scan scan;		/* the GPT-2 regex */
	int add_prefix_space, use_regex;
	struct tok_buf b;		/* the text with its prefix space */
};

static int
bytelevel_run(struct tok_pre *c, const char *s, size_t n, int first, struct tok_next *nx)
{
	struct bytelevel *p = (struct bytelevel *)c;

	if (p->add_prefix_space && s[0] != ' ') {
		p->b.n = 0;
		if (tok_buf_add(&p->b, " ", 1) < 0 || tok_buf_add(&p->b, s, n) < 0)
			return -1;
		s = p->b.p, n = p->b.n;
	}
	if (!p->use_regex)
		return nx->piece(nx, s, n, first);
	return tok_split(&p->scan, SPLIT_ISOLATED, 0, s, n, first, nx);
}

static void
bytelevel_free(struct tok_pre *c)
{
	struct bytelevel *p = (struct bytelevel *)c;

	tok_scan_free(&p->scan);
	free(p->b.p);
	free(p);
}

static const struct tok_pre_ops bytelevel_ops = { bytelevel_run, bytelevel_free };

static int
make_bytelevel(struct tok_ld *L, const struct json *o, size_t depth)
{
	struct bytelevel *p;

	(void)depth;
	if (!(p = xcalloc(1, sizeof *p)))
		return -1;
	p->c.ops = &bytelevel_ops;
	p->add_prefix_space = tok_getbool(o, "add_prefix_space", 1);
	p->use_regex = tok_getbool(o, "use_regex", 1);
	if (tok_scan_regex(L, "pre_tokenizer ByteLevel", TOK_RE_GPT2,
	    strlen(TOK_RE_GPT2), &p->scan) < 0) {
		bytelevel_free(&p->c);
		return -1;
	}
	L->bytelevel = 1;
	return add(L, &p->c);
}

/* ---- Metaspace ---- */

enum { PREPEND_NEVER, PREPEND_FIRST, PREPEND_ALWAYS };

struct metaspace {
	struct tok_pre c;
	char *rep;			/* replacement (UTF-8) */
	size_t replen;
	int prepend, split;
	struct tok_buf b;		/* the text with spaces replaced */
};

/* spaces become the replacement, then it is prepended unless the result
 * starts with it; split: before each replacement (MergedWithNext) */
static int
metaspace_run(struct tok_pre *c, const char *s, size_t n, int first, struct tok_next *nx)
{
	struct metaspace *p = (struct metaspace *)c;
	struct tok_buf *b = &p->b;
	size_t i, e;

	b->n = 0;
	if ((p->prepend == PREPEND_ALWAYS || (p->prepend == PREPEND_FIRST && first)) &&
	    s[0] != ' ' && !(n >= p->replen && !memcmp(s, p->rep, p->replen)) &&
	    tok_buf_add(b, p->rep, p->replen) < 0)
		return -1;
	for (i = 0; i < n; i++)
		if (s[i] == ' ' ? tok_buf_add(b, p->rep, p->replen) :
		    tok_buf_add(b, s + i, 1))
			return -1;
	if (!p->split)
		return nx->piece(nx, b->p, b->n, first);
	for (i = 0; i < b->n; i = e) {
		const char *f = NULL;
		if (b->n - i > p->replen)
			f = tok_find(b->p + i + p->replen, b->n - i - p->replen,
			    p->rep, p->replen);
		e = f ? (size_t)(f - b->p) : b->n;
		if (nx->piece(nx, b->p + i, e - i, first && i == 0) < 0)
			return -1;
	}
	return 0;
}

static void
metaspace_free(struct tok_pre *c)
{
	struct metaspace *p = (struct metaspace *)c;

	free(p->rep);
	free(p->b.p);
	free(p);
}

static const struct tok_pre_ops metaspace_ops = { metaspace_run, metaspace_free };

static int
make_metaspace(struct tok_ld *L, const struct json *o, size_t depth)
{
	struct metaspace *p;
	const char *s;

	(void)depth;
	if (!(p = xcalloc(1, sizeof *p)))
		return -1;
	p->c.ops = &metaspace_ops;
	if (tok_getstr(L, o, "replacement", 0, &p->rep, &p->replen) < 0 ||
	    (!p->rep && !(p->rep = xstrdup("\xe2\x96\x81"))))
		goto bad;
	if (!p->rep[0]) {
		error("%s: pre_tokenizer Metaspace: empty replacement", L->path);
		goto bad;
	}
	p->replen = strlen(p->rep);
	s = json_str(json_get(o, "prepend_scheme"));
	if (s && !strcmp(s, "never"))
		p->prepend = PREPEND_NEVER;
	else if (s && !strcmp(s, "first"))
		p->prepend = PREPEND_FIRST;
	else if (s && !strcmp(s, "always"))
		p->prepend = PREPEND_ALWAYS;
	else if (s) {
		error("%s: pre_tokenizer Metaspace: unsupported prepend_scheme %s", L->path, s);
		goto bad;
	} else
		p->prepend = tok_getbool(o, "add_prefix_space", 1) ?
		    PREPEND_ALWAYS : PREPEND_NEVER;
	p->split = tok_getbool(o, "split", 1);
	return add(L, &p->c);
bad:
	metaspace_free(&p->c);
	return -1;
}

static const struct tok_type types[] = {
	{ "Sequence", make_sequence },
	{ "ByteLevel", make_bytelevel },
	{ "Digits", make_digits },
	{ "Split", make_split },
	{ "Metaspace", make_metaspace },
};

static int
build(struct tok_ld *L, const struct json *o, size_t depth)
{
	return tok_build(L, "pre_tokenizer", types, LEN(types), NULL, o, depth);
}

int
tok_pre_load(struct tok_ld *L, const struct json *o)
{
	return build(L, o, 0);
}
