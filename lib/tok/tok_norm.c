/* tok_norm.c: the normalizers (tokenizers' normalizers/), each a
 * rewrite of the text between added tokens, run in order. */
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "tok/tok_int.h"
#include "base/util.h"

static int build(struct tok_ld *L, const struct json *o, size_t depth);

static int
add(struct tok_ld *L, struct tok_norm *c)
{
	struct tok *t = L->t;

	if (xgrow(&t->norm, &t->normcap, t->nnorm + 1, sizeof *t->norm) < 0) {
		c->ops->free ? c->ops->free(c) : free(c);
		return -1;
	}
	t->norm[t->nnorm++] = c;
	return 0;
}

static int
make_sequence(struct tok_ld *L, const struct json *o, size_t depth)
{
	const struct json *seq = json_get(o, "normalizers");
	size_t i;

	if (!seq || seq->type != JSON_ARRAY || depth > TOK_MAXNEST)
		return error("%s: bad normalizer Sequence", L->path);
	for (i = 0; i < seq->len; i++)
		if (build(L, &seq->u.items[i], depth + 1) < 0)
			return -1;
	return 0;
}

/* Prepend and Replace: a string (and what replaces it) */
struct strs {
	struct tok_norm c;
	char *a, *b;
	size_t alen, blen;
};

static void
strs_free(struct tok_norm *c)
{
	struct strs *p = (struct strs *)c;

	free(p->a), free(p->b), free(p);
}

static int
prepend_run(const struct tok_norm *c, const char *s, size_t n, struct tok_buf *out)
{
	const struct strs *p = (const struct strs *)c;

	if (!n)
		return 0;
	if (tok_buf_add(out, p->a, p->alen) < 0 || tok_buf_add(out, s, n) < 0)
		return -1;
	return 1;
}

static const struct tok_norm_ops prepend_ops = { prepend_run, strs_free };

static int
make_prepend(struct tok_ld *L, const struct json *o, size_t depth)
{
	struct strs *p;

	(void)depth;
	if (!(p = xcalloc(1, sizeof *p)))
		return -1;
	p->c.ops = &prepend_ops;
	if (tok_getstr(L, o, "prepend", 1, &p->a, &p->alen) < 0) {
		strs_free(&p->c);
		return -1;
	}
	return add(L, &p->c);
}

static int
replace_run(const struct tok_norm *c, const char *s, size_t n, struct tok_buf *out)
{
	const struct strs *p = (const struct strs *)c;
	const char *f;
	size_t i;

	if (!tok_find(s, n, p->a, p->alen))
		return 0;
	for (i = 0; i < n;) {
		if (!(f = tok_find(s + i, n - i, p->a, p->alen)))
			return tok_buf_add(out, s + i, n - i) < 0 ? -1 : 1;
		if (tok_buf_add(out, s + i, f - (s + i)) < 0 ||
		    tok_buf_add(out, p->b, p->blen) < 0)
			return -1;
		i = f - s + p->alen;
	}
	return 1;
}

static const struct tok_norm_ops replace_ops = { replace_run, strs_free };

/* Replace with a {"Regex": ...} pattern */
struct rerep {
	struct tok_norm c;
	struct tok_scan sc;
	char *b;
	size_t blen;
};

static void
rerep_free(struct tok_norm *c)
{
	struct rerep *p = (struct rerep *)c;

	tok_scan_free(&p->sc);
	free(p->b), free(p);
}

static int
rerep_run(const struct tok_norm *c, const char *s, size_t n, struct tok_buf *out)
{
	const struct rerep *p = (const struct rerep *)c;

	return tok_replace(&p->sc, s, n, p->b, p->blen, out);
}

static const struct tok_norm_ops rerep_ops = { rerep_run, rerep_free };

static int
make_rerep(struct tok_ld *L, const struct json *o)
{
	struct rerep *p;

	if (!(p = xcalloc(1, sizeof *p)))
		return -1;
	p->c.ops = &rerep_ops;
	if (tok_scan_pattern(L, "normalizer Replace", json_get(o, "pattern"), &p->sc) < 0 ||
	    tok_getstr(L, o, "content", 1, &p->b, &p->blen) < 0) {
		rerep_free(&p->c);
		return -1;
	}
	return add(L, &p->c);
}

static int
make_replace(struct tok_ld *L, const struct json *o, size_t depth)
{
	const struct json *pat = json_get(o, "pattern");
	struct strs *p;

	(void)depth;
	if (pat && pat->type == JSON_OBJECT && json_str(json_get(pat, "Regex")))
		return make_rerep(L, o);
	if (!(p = xcalloc(1, sizeof *p)))
		return -1;
	p->c.ops = &replace_ops;
	if (tok_getpattern(L, o, "normalizer Replace", &p->a, &p->alen) < 0)
		goto bad;
	if (!p->alen) {
		error("%s: normalizer Replace: empty pattern", L->path);
		goto bad;
	}
	if (tok_getstr(L, o, "content", 1, &p->b, &p->blen) < 0)
		goto bad;
	return add(L, &p->c);
bad:
	strs_free(&p->c);
	return -1;
}

/* NFC and NFKC */
struct unorm {
	struct tok_norm c;
	int compat;
};

static int
unorm_run(const struct tok_norm *c, const char *s, size_t n, struct tok_buf *out)
{
	char *r;
	size_t i, rn;
	int e;

	for (i = 0; i < n && (unsigned char)s[i] < 0x80; i++)
		;
	if (i == n)
		return 0;	/* ASCII is normalized */
	if (!(r = uni_normalize(s, n, ((const struct unorm *)c)->compat, &rn)))
		return error("out of memory");
	e = tok_buf_add(out, r, rn);
	free(r);
	return e < 0 ? -1 : 1;
}

static const struct tok_norm_ops unorm_ops = { unorm_run, NULL };

static int
make_unorm(struct tok_ld *L, int compat)
{
	struct unorm *p;

	if (!(p = xcalloc(1, sizeof *p)))
		return -1;
	p->c.ops = &unorm_ops;
	p->compat = compat;
	return add(L, &p->c);
}

static int
make_nfc(struct tok_ld *L, const struct json *o, size_t depth)
{
	(void)o, (void)depth;
	return make_unorm(L, 0);
}

static int
make_nfkc(struct tok_ld *L, const struct json *o, size_t depth)
{
	(void)o, (void)depth;
	return make_unorm(L, 1);
}

static const struct tok_type types[] = {
	{ "Sequence", make_sequence },
	{ "Prepend", make_prepend },
	{ "Replace", make_replace },
	{ "NFC", make_nfc },
	{ "NFKC", make_nfkc },
};

static int
build(struct tok_ld *L, const struct json *o, size_t depth)
{
	return tok_build(L, "normalizer", types, LEN(types), NULL, o, depth);
}

int
tok_norm_load(struct tok_ld *L, const struct json *o)
{
	return build(L, o, 0);
}
