/* tok_dec.c: the decoders (tokenizers' decoders/) and streaming
 * decoding through them.
 *
 * tokenizers runs its decoders over the whole list of tokens; here each
 * token goes through the per-token steps as it comes, and what steps after
 * Fuse (or ByteLevel, which joins its tokens) do to the whole text is done
 * on the stream: Strip's start at the start of the record.  A run of
 * ByteFallback tokens (<0xHH>) is held until it ends, then written as text
 * if it is valid UTF-8, else as one U+FFFD per byte, as tokenizers does.
 * ByteLevel writes the bytes its tokens stand for as they are (tokenizers
 * would replace invalid UTF-8 with U+FFFD): decoding is lossless. */
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "tok/tok_int.h"
#include "base/unicode.h"
#include "base/util.h"

/* ---- the steps ---- */

/* replace every a in s[0..n) by b, into x */
static int
replace(struct tok_buf *x, const char *s, size_t n, const char *a, size_t an,
    const char *b, size_t bn)
{
	size_t i = 0;

	x->n = 0;
	while (i < n) {
		if (n - i >= an && !memcmp(s + i, a, an)) {
			if (tok_buf_add(x, b, bn) < 0)
				return -1;
			i += an;
		} else {
			size_t j = i + 1;
			while (j < n && s[j] != a[0])
				j++;
			if (tok_buf_add(x, s + i, j - i) < 0)
				return -1;
			i = j;
		}
	}
	return 0;
}

/* Replace, Strip and Metaspace: a string, what replaces it, counts */
struct dstr {
	struct tok_dstep c;
	char *a, *b;			/* Replace: a -> b; Strip, Metaspace: a */
	size_t alen, blen;
	int start, stop;		/* Strip */
	int prepend;			/* Metaspace: on the record's first token */
};

static void
dstr_free(struct tok_dstep *c)
{
	struct dstr *p = (struct dstr *)c;

	free(p->a), free(p->b), free(p);
}

static int
replace_token(const struct tok_dstep *c, const struct tok_dec *d, const char *s,
    size_t n, struct tok_buf *x, const char **os, size_t *on)
{
	const struct dstr *p = (const struct dstr *)c;

	(void)d;
	if (replace(x, s, n, p->a, p->alen, p->b, p->blen) < 0)
		return -1;
	*os = x->p, *on = x->n;
	return 0;
}

static int
metaspace_token(const struct tok_dstep *c, const struct tok_dec *d, const char *s,
    size_t n, struct tok_buf *x, const char **os, size_t *on)
{
	const struct dstr *p = (const struct dstr *)c;
	int drop = d->first && p->prepend;

	if (replace(x, s, n, p->a, p->alen, drop ? "" : " ", drop ? 0 : 1) < 0)
		return -1;
	*os = x->p, *on = x->n;
	return 0;
}

static int
strip_token(const struct tok_dstep *c, const struct tok_dec *d, const char *s,
    size_t n, struct tok_buf *x, const char **os, size_t *on)
{
	const struct dstr *p = (const struct dstr *)c;
	int k;

	(void)d, (void)x;
	for (k = 0; k < p->start && n >= p->alen && !memcmp(s, p->a, p->alen); k++)
		s += p->alen, n -= p->alen;
	for (k = 0; k < p->stop && n >= p->alen &&
	    !memcmp(s + n - p->alen, p->a, p->alen); k++)
		n -= p->alen;
	*os = s, *on = n;
	return 0;
}

static size_t
strip_lead(const struct tok_dstep *c, const char **a, size_t *alen)
{
	const struct dstr *p = (const struct dstr *)c;

	*a = p->a, *alen = p->alen;
	return p->start;
}

/* the bytes a token's characters stand for; as it is if one is not in
 * the byte-level alphabet */
static int
bytelevel_token(const struct tok_dstep *c, const struct tok_dec *d, const char *s,
    size_t n, struct tok_buf *x, const char **os, size_t *on)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i, j;

	(void)c, (void)d;
	x->n = 0;
	for (i = 0; i < n; i += j) {
		uint32_t cp;
		int b;
		j = uni_decode(u + i, n - i, &cp);
		if ((b = tok_u2b(cp)) < 0)
			break;
		unsigned char ch = b;
		if (tok_buf_add(x, &ch, 1) < 0)
			return -1;
	}
	if (i < n)
		*os = s, *on = n;
	else
		*os = x->p, *on = x->n;
	return 0;
}

static const struct tok_dec_ops bytelevel_ops = {
	"ByteLevel", TOK_DEC_JOINS, bytelevel_token, NULL, NULL
};
static const struct tok_dec_ops replace_ops = {
	"Replace", 0, replace_token, NULL, dstr_free
};
/* ByteFallback's runs and Fuse's joining are the driver's (below) */
static const struct tok_dec_ops bytefallback_ops = {
	"ByteFallback", TOK_DEC_BYTES, NULL, NULL, NULL
};
static const struct tok_dec_ops fuse_ops = {
	"Fuse", TOK_DEC_JOINS | TOK_DEC_WHOLE, NULL, NULL, NULL
};
static const struct tok_dec_ops strip_ops = {
	"Strip", TOK_DEC_WHOLE, strip_token, strip_lead, dstr_free
};
static const struct tok_dec_ops metaspace_ops = {
	"Metaspace", 0, metaspace_token, NULL, dstr_free
};

/* ---- building them ---- */

static int build(struct tok_ld *L, const struct json *o, size_t depth);

/* the decoders so far end with a joining step */
static int
joined(const struct tok *t)
{
	const struct tok_dstep *p = t->ndec ? t->dec[t->ndec - 1] : NULL;

	return p && (p->whole || (p->ops->flags & TOK_DEC_JOINS));
}

static int
add(struct tok_ld *L, struct tok_dstep *c)
{
	struct tok *t = L->t;

	c->whole = joined(t);
	if (c->whole && !(c->ops->flags & TOK_DEC_WHOLE)) {
		error("%s: unsupported decoder: %s after Fuse or ByteLevel",
		    L->path, c->ops->name);
		c->ops->free ? c->ops->free(c) : free(c);
		return -1;
	}
	if (xgrow(&t->dec, &t->deccap, t->ndec + 1, sizeof *t->dec) < 0) {
		c->ops->free ? c->ops->free(c) : free(c);
		return -1;
	}
	t->dec[t->ndec++] = c;
	return 0;
}

static int
make_sequence(struct tok_ld *L, const struct json *o, size_t depth)
{
	const struct json *seq = json_get(o, "decoders");
	size_t i;

	if (!seq || seq->type != JSON_ARRAY || depth > TOK_MAXNEST)
		return error("%s: bad decoder Sequence", L->path);
	for (i = 0; i < seq->len; i++)
		if (build(L, &seq->u.items[i], depth + 1) < 0)
			return -1;
	return 0;
}

/* the types without options */
static int
make_plain(struct tok_ld *L, const struct tok_dec_ops *ops)
{
	struct tok_dstep *c;

	if (!(c = xcalloc(1, sizeof *c)))
		return -1;
	c->ops = ops;
	return add(L, c);
}

static int
make_bytelevel(struct tok_ld *L, const struct json *o, size_t depth)
{
	(void)o, (void)depth;
	return make_plain(L, &bytelevel_ops);
}

static int
make_bytefallback(struct tok_ld *L, const struct json *o, size_t depth)
{
	(void)o, (void)depth;
	return make_plain(L, &bytefallback_ops);
}

static int
make_fuse(struct tok_ld *L, const struct json *o, size_t depth)
{
	(void)o, (void)depth;
	return make_plain(L, &fuse_ops);
}

/* Replace with a {"Regex": ...} pattern, token by token */
struct drerep {
	struct tok_dstep c;
	struct tok_scan sc;
	char *b;
	size_t blen;
};

static void
drerep_free(struct tok_dstep *c)
{
	struct drerep *p = (struct drerep *)c;

	tok_scan_free(&p->sc);
	free(p->b), free(p);
}

static int
drerep_token(const struct tok_dstep *c, const struct tok_dec *d, const char *s,
    size_t n, struct tok_buf *x, const char **os, size_t *on)
{
	const struct drerep *p = (const struct drerep *)c;
	int r;

	(void)d;
	if ((r = tok_replace(&p->sc, s, n, p->b, p->blen, x)) < 0)
		return -1;
	if (r)
		*os = x->p, *on = x->n;
	else
		*os = s, *on = n;
	return 0;
}

static const struct tok_dec_ops drerep_ops = {
	"Replace", 0, drerep_token, NULL, drerep_free
};

static int
make_replace(struct tok_ld *L, const struct json *o, size_t depth)
{
	const struct json *pat = json_get(o, "pattern");
	struct drerep *q;
	struct dstr *p;

	(void)depth;
	if (pat && pat->type == JSON_OBJECT && json_str(json_get(pat, "Regex"))) {
		if (!(q = xcalloc(1, sizeof *q)))
			return -1;
		q->c.ops = &drerep_ops;
		if (tok_scan_pattern(L, "decoder Replace", pat, &q->sc) < 0 ||
		    tok_getstr(L, o, "content", 1, &q->b, &q->blen) < 0) {
			drerep_free(&q->c);
			return -1;
		}
		return add(L, &q->c);
	}
	if (!(p = xcalloc(1, sizeof *p)))
		return -1;
	p->c.ops = &replace_ops;
	if (tok_getpattern(L, o, "decoder Replace", &p->a, &p->alen) < 0 ||
	    tok_getstr(L, o, "content", 1, &p->b, &p->blen) < 0)
		goto bad;
	if (!p->alen) {
		error("%s: decoder Replace: empty pattern", L->path);
		goto bad;
	}
	return add(L, &p->c);
bad:
	dstr_free(&p->c);
	return -1;
}

static int
make_strip(struct tok_ld *L, const struct json *o, size_t depth)
{
	struct dstr *p;
	long long ll;

	(void)depth;
	if (!(p = xcalloc(1, sizeof *p)))
		return -1;
	p->c.ops = &strip_ops;
	if (tok_getstr(L, o, "content", 1, &p->a, &p->alen) < 0)
		goto bad;
	if (json_int(json_get(o, "start"), 0, 1000, &ll) < 0) {
		error("%s: decoder Strip: bad start", L->path);
		goto bad;
	}
	p->start = ll;
	if (json_int(json_get(o, "stop"), 0, 1000, &ll) < 0) {
		error("%s: decoder Strip: bad stop", L->path);
		goto bad;
	}
	p->stop = ll;
	/* after Fuse only the record's start is stripped (strip_lead) */
	if (joined(L->t) && p->stop) {
		error("%s: unsupported decoder: Strip with stop after Fuse", L->path);
		goto bad;
	}
	return add(L, &p->c);
bad:
	dstr_free(&p->c);
	return -1;
}

static int
make_metaspace(struct tok_ld *L, const struct json *o, size_t depth)
{
	struct dstr *p;
	const char *s;

	(void)depth;
	if (!(p = xcalloc(1, sizeof *p)))
		return -1;
	p->c.ops = &metaspace_ops;
	if (tok_getstr(L, o, "replacement", 0, &p->a, &p->alen) < 0 ||
	    (!p->a && !(p->a = xstrdup("\xe2\x96\x81")))) {
		dstr_free(&p->c);
		return -1;
	}
	p->alen = strlen(p->a);
	{
		uint32_t cp;

		/* tokenizers has a char here; an empty one would never advance */
		if (!p->alen || uni_decode((const unsigned char *)p->a, p->alen,
		    &cp) != p->alen || UNI_ISBAD(cp)) {
			error("%s: Metaspace decoder: replacement '%s' is not one "
			    "character", L->path, p->a);
			dstr_free(&p->c);
			return -1;
		}
	}
	s = json_str(json_get(o, "prepend_scheme"));
	if (s)
		p->prepend = !!strcmp(s, "never");
	else
		p->prepend = tok_getbool(o, "add_prefix_space", 1);
	return add(L, &p->c);
}

static const struct tok_type types[] = {
	{ "Sequence", make_sequence },
	{ "ByteLevel", make_bytelevel },
	{ "Replace", make_replace },
	{ "ByteFallback", make_bytefallback },
	{ "Fuse", make_fuse },
	{ "Strip", make_strip },
	{ "Metaspace", make_metaspace },
};

static int
build(struct tok_ld *L, const struct json *o, size_t depth)
{
	return tok_build(L, "decoder", types, LEN(types), NULL, o, depth);
}

int
tok_dec_load(struct tok_ld *L, const struct json *o)
{
	return build(L, o, 0);
}

/* ---- streaming ---- */

void
tok_dec_start(struct tok_dec *d, const struct tok *t, int skip_special)
{
	size_t i;

	d->t = t;
	d->skip_special = skip_special;
	d->first = 1;
	d->run.n = d->nhold = 0;
	d->strip = 0;
	d->lead = NULL;
	for (i = 0; i < t->ndec; i++)
		if (t->dec[i]->whole && t->dec[i]->ops->lead) {
			const char *a;
			size_t alen;
			d->lead = t->dec[i];
			d->strip = d->lead->ops->lead(d->lead, &a, &alen);
			break;
		}
}

void
tok_dec_free(struct tok_dec *d)
{
	free(d->x[0].p), free(d->x[1].p), free(d->run.p);
	memset(d->x, 0, sizeof d->x);
	memset(&d->run, 0, sizeof d->run);
}

/* length of the UTF-8 sequence a lead byte starts, 0 if not a lead */
static size_t
seqlen(unsigned c)
{
	return c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 :
	    c >= 0xf0 && c <= 0xf4 ? 4 : 0;
}

/* Text for the record: Strip at its start, then hold back a trailing
 * incomplete UTF-8 sequence. */
static int
emit(struct tok_dec *d, const char *p, size_t n, struct tok_buf *out)
{
	size_t start, end, q;

	if (d->strip) {
		const char *a;
		size_t alen;
		d->lead->ops->lead(d->lead, &a, &alen);
		while (d->strip && n >= alen && alen && !memcmp(p, a, alen)) {
			p += alen, n -= alen;
			d->strip--;
		}
		if (n)
			d->strip = 0;
	}
	if (!n)
		return 0;
	start = out->n;
	if (tok_buf_add(out, d->hold, d->nhold) < 0 || tok_buf_add(out, p, n) < 0)
		return -1;
	d->nhold = 0;
	end = out->n;
	for (q = end; q > start && end - q < 4;) {
		unsigned c = (unsigned char)out->p[--q];
		if ((c & 0xc0) == 0x80)
			continue;
		if (seqlen(c) > end - q) {
			d->nhold = end - q;
			memcpy(d->hold, out->p + q, d->nhold);
			out->n = q;
		}
		break;
	}
	return 0;
}

/* the per-token steps from k on (ByteFallback was dealt with before) */
static int
steps(struct tok_dec *d, size_t k, const char *s, size_t n, struct tok_buf *out)
{
	const struct tok *t = d->t;
	int cur = 0;

	for (; k < t->ndec && !t->dec[k]->whole; k++) {
		const struct tok_dstep *st = t->dec[k];
		struct tok_buf *x = &d->x[cur];
		if (!st->ops->token)
			continue;
		if (st->ops->token(st, d, s, n, x, &s, &n) < 0)
			return -1;
		if (s == x->p)	/* the next step writes the other buffer */
			cur ^= 1;
	}
	return emit(d, s, n, out);
}

/* the first ByteFallback step, or -1 */
static long
bfstep(const struct tok *t)
{
	size_t i;

	for (i = 0; i < t->ndec; i++)
		if (t->dec[i]->ops->flags & TOK_DEC_BYTES)
			return i;
	return -1;
}

static int
hexval(int c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ?
	    c - 'A' + 10 : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* a pending ByteFallback run as text, through the steps after it */
static int
flushrun(struct tok_dec *d, struct tok_buf *out)
{
	const unsigned char *u = (const unsigned char *)d->run.p;
	size_t i, n = d->run.n, k = bfstep(d->t) + 1;
	uint32_t cp;
	int r;

	if (!n)
		return 0;
	d->run.n = 0;	/* (the bytes stay put until the next push) */
	for (i = 0; i < n; i += uni_decode(u + i, n - i, &cp))
		if (uni_decode(u + i, n - i, &cp) && UNI_ISBAD(cp))
			break;
	if (i == n) {
		r = steps(d, k, (const char *)u, n, out);
		d->first = 0;
		return r;
	}
	for (i = 0; i < n; i++) {
		if (steps(d, k, "\xef\xbf\xbd", 3, out) < 0)
			return -1;
		d->first = 0;
	}
	return 0;
}

int
tok_dec_push(struct tok_dec *d, int id, struct tok_buf *out)
{
	const struct tok *t = d->t;
	const char *s;
	size_t n;

	if (id < 0 || id >= t->ntok || !t->str[id])
		return -1;
	if (d->skip_special && t->special[id])
		return 0;
	s = t->str[id], n = t->slen[id];
	if (bfstep(t) >= 0) {
		int h, l;
		if (!t->special[id] && n == 6 && !memcmp(s, "<0x", 3) && s[5] == '>' &&
		    (h = hexval(s[3])) >= 0 && (l = hexval(s[4])) >= 0) {
			unsigned char c = h << 4 | l;
			return tok_buf_add(&d->run, &c, 1);
		}
		if (flushrun(d, out) < 0)
			return -1;
	}
	if (steps(d, 0, s, n, out) < 0)
		return -1;
	d->first = 0;
	return 0;
}

int
tok_dec_end(struct tok_dec *d, struct tok_buf *out)
{
	if (flushrun(d, out) < 0)
		return -1;
	if (tok_buf_add(out, d->hold, d->nhold) < 0)
		return -1;
	d->nhold = 0;
	return 0;
}
