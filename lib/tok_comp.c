/* tok_comp.c: the components of tokenizer.json other than the model:
 * normalizer, pre_tokenizer, post_processor and decoder, read into the
 * step lists of struct tok (see tok_int.h).  Anything not implemented is
 * refused, naming it. */
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "tok_int.h"
#include "util.h"

int
tok_getstr(struct tok_ld *L, const struct json *o, const char *key, int need, char **out, size_t *len)
{
	const struct json *v = json_get(o, key);

	*out = NULL;
	if (len)
		*len = 0;
	if (!v || v->type == JSON_NULL) {
		if (need)
			return error("%s: %s: missing", L->path, key);
		return 0;
	}
	if (v->type != JSON_STRING)
		return error("%s: %s: not a string", L->path, key);
	if (!(*out = xmemdup(v->u.str, v->len)))
		return -1;
	if (len)
		*len = v->len;
	return 0;
}

int
tok_getbool(const struct json *o, const char *key, int def)
{
	int b = json_bool(json_get(o, key));

	return b < 0 ? def : b;
}

static const char *
typeof_(const struct json *o)
{
	const char *s = json_str(json_get(o, "type"));

	return s ? s : "(no type)";
}

static int
unsupported(struct tok_ld *L, const char *what, const struct json *o)
{
	return error("%s: unsupported %s: %s", L->path, what, typeof_(o));
}

/* A {"String": s} pattern: the string, or -1 (naming a Regex pattern). */
static int
getpattern(struct tok_ld *L, const struct json *o, const char *what, char **s, size_t *n)
{
	const struct json *p = json_get(o, "pattern");

	*s = NULL;
	if (p && p->type == JSON_OBJECT && json_get(p, "String"))
		return tok_getstr(L, p, "String", 1, s, n);
	if (p && p->type == JSON_OBJECT && json_str(json_get(p, "Regex")))
		return error("%s: unsupported %s: Regex pattern %s", L->path,
		    what, json_str(json_get(p, "Regex")));
	return error("%s: %s: bad pattern", L->path, what);
}

int
tok_add_norm(struct tok_ld *L, const struct json *o, size_t depth)
{
	struct tok *t = L->t;
	const char *ty = typeof_(o);
	struct tok_norm *n;
	const struct json *seq;
	size_t i;

	if (o->type == JSON_NULL)
		return 0;
	if (!strcmp(ty, "Sequence")) {
		seq = json_get(o, "normalizers");
		if (!seq || seq->type != JSON_ARRAY || depth > 8)
			return error("%s: bad normalizer Sequence", L->path);
		for (i = 0; i < seq->len; i++)
			if (tok_add_norm(L, &seq->u.items[i], depth + 1) < 0)
				return -1;
		return 0;
	}
	if (xgrow(&t->norm, &t->normcap, t->nnorm + 1, sizeof *t->norm) < 0)
		return -1;
	n = &t->norm[t->nnorm++];
	memset(n, 0, sizeof *n);
	if (!strcmp(ty, "Prepend")) {
		n->type = NORM_PREPEND;
		return tok_getstr(L, o, "prepend", 1, &n->a, &n->alen);
	} else if (!strcmp(ty, "Replace")) {
		n->type = NORM_REPLACE;
		if (getpattern(L, o, "normalizer Replace", &n->a, &n->alen) < 0)
			return -1;
		if (!n->alen)
			return error("%s: normalizer Replace: empty pattern", L->path);
		return tok_getstr(L, o, "content", 1, &n->b, &n->blen);
	} else if (!strcmp(ty, "NFC")) {
		n->type = NORM_NFC;
	} else if (!strcmp(ty, "NFKC")) {
		n->type = NORM_NFKC;
	} else {
		t->nnorm--;
		return unsupported(L, "normalizer", o);
	}
	return 0;
}

/* The Split regexes real checkpoints use, by their exact text. */
static const struct {
	const char *re;
	int pat;
} knownre[] = {
	{ "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+", PAT_GPT2 },
	{ "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+", PAT_LLAMA3 },
	{ "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+", PAT_QWEN2 },
	{ "\\p{N}", PAT_NUMERIC },
};

int
tok_add_pre(struct tok_ld *L, const struct json *o, size_t depth)
{
	struct tok *t = L->t;
	const char *ty = typeof_(o), *s;
	struct tok_pre *p;
	const struct json *seq, *pat;
	size_t i;

	if (o->type == JSON_NULL)
		return 0;
	if (!strcmp(ty, "Sequence")) {
		seq = json_get(o, "pretokenizers");
		if (!seq || seq->type != JSON_ARRAY || depth > 8)
			return error("%s: bad pre_tokenizer Sequence", L->path);
		for (i = 0; i < seq->len; i++)
			if (tok_add_pre(L, &seq->u.items[i], depth + 1) < 0)
				return -1;
		return 0;
	}
	if (xgrow(&t->pre, &t->precap, t->npre + 1, sizeof *t->pre) < 0)
		return -1;
	p = &t->pre[t->npre++];
	memset(p, 0, sizeof *p);
	if (!strcmp(ty, "ByteLevel")) {
		p->type = PRE_BYTELEVEL;
		p->add_prefix_space = tok_getbool(o, "add_prefix_space", 1);
		p->use_regex = tok_getbool(o, "use_regex", 1);
		p->pat = PAT_GPT2;
		t->bytelevel = 1;
	} else if (!strcmp(ty, "Digits")) {
		p->type = PRE_DIGITS;
		p->pat = PAT_NUMERIC;
		p->behavior = tok_getbool(o, "individual_digits", 0) ?
		    SPLIT_ISOLATED : SPLIT_CONTIGUOUS;
	} else if (!strcmp(ty, "Split")) {
		static const char *beh[] = { "Removed", "Isolated",
		    "MergedWithPrevious", "MergedWithNext", "Contiguous" };
		p->type = PRE_SPLIT;
		pat = json_get(o, "pattern");
		if (pat && json_str(json_get(pat, "Regex"))) {
			s = json_str(json_get(pat, "Regex"));
			for (i = 0; i < LEN(knownre); i++)
				if (!strcmp(s, knownre[i].re))
					break;
			if (i == LEN(knownre))
				return error("%s: unsupported pre_tokenizer Split regex: %s", L->path, s);
			p->pat = knownre[i].pat;
		} else {
			p->pat = PAT_LITERAL;
			if (getpattern(L, o, "pre_tokenizer Split", &p->lit, &p->litlen) < 0)
				return -1;
			if (!p->litlen)
				return error("%s: pre_tokenizer Split: empty pattern", L->path);
		}
		s = json_str(json_get(o, "behavior"));
		for (i = 0; s && i < LEN(beh); i++)
			if (!strcmp(s, beh[i]))
				break;
		if (!s || i == LEN(beh))
			return error("%s: pre_tokenizer Split: unsupported behavior %s",
			    L->path, s ? s : "(none)");
		p->behavior = i;
		p->invert = tok_getbool(o, "invert", 0);
	} else if (!strcmp(ty, "Metaspace")) {
		p->type = PRE_METASPACE;
		if (tok_getstr(L, o, "replacement", 0, &p->rep, &p->replen) < 0)
			return -1;
		if (!p->rep && !(p->rep = xstrdup("\xe2\x96\x81")))
			return -1;
		if (!p->rep[0])
			return error("%s: pre_tokenizer Metaspace: empty replacement", L->path);
		p->replen = strlen(p->rep);
		s = json_str(json_get(o, "prepend_scheme"));
		if (s && !strcmp(s, "never"))
			p->prepend = PREPEND_NEVER;
		else if (s && !strcmp(s, "first"))
			p->prepend = PREPEND_FIRST;
		else if (s && !strcmp(s, "always"))
			p->prepend = PREPEND_ALWAYS;
		else if (s)
			return error("%s: pre_tokenizer Metaspace: unsupported prepend_scheme %s", L->path, s);
		else
			p->prepend = tok_getbool(o, "add_prefix_space", 1) ?
			    PREPEND_ALWAYS : PREPEND_NEVER;
		p->split = tok_getbool(o, "split", 1);
	} else {
		t->npre--;
		return unsupported(L, "pre_tokenizer", o);
	}
	return 0;
}

int
tok_add_dec(struct tok_ld *L, const struct json *o, size_t depth)
{
	struct tok *t = L->t;
	const char *ty = typeof_(o), *s;
	struct tok_dstep *d, *v;
	const struct json *seq;
	long long ll;
	size_t i;

	if (o->type == JSON_NULL)
		return 0;
	if (!strcmp(ty, "Sequence")) {
		seq = json_get(o, "decoders");
		if (!seq || seq->type != JSON_ARRAY || depth > 8)
			return error("%s: bad decoder Sequence", L->path);
		for (i = 0; i < seq->len; i++)
			if (tok_add_dec(L, &seq->u.items[i], depth + 1) < 0)
				return -1;
		return 0;
	}
	if (xgrow(&t->dec, &t->deccap, t->ndec + 1, sizeof *t->dec) < 0)
		return -1;
	v = t->dec;
	d = &v[t->ndec++];
	memset(d, 0, sizeof *d);
	/* after Fuse or ByteLevel (which joins its tokens) steps see the
	 * whole record */
	d->fused = t->ndec > 1 && (v[t->ndec - 2].fused ||
	    v[t->ndec - 2].type == DEC_FUSE || v[t->ndec - 2].type == DEC_BYTELEVEL);
	if (!strcmp(ty, "ByteLevel")) {
		d->type = DEC_BYTELEVEL;
	} else if (!strcmp(ty, "Replace")) {
		d->type = DEC_REPLACE;
		if (getpattern(L, o, "decoder Replace", &d->a, &d->alen) < 0 ||
		    tok_getstr(L, o, "content", 1, &d->b, &d->blen) < 0)
			return -1;
		if (!d->alen)
			return error("%s: decoder Replace: empty pattern", L->path);
	} else if (!strcmp(ty, "ByteFallback")) {
		d->type = DEC_BYTEFALLBACK;
	} else if (!strcmp(ty, "Fuse")) {
		d->type = DEC_FUSE;
	} else if (!strcmp(ty, "Strip")) {
		d->type = DEC_STRIP;
		if (tok_getstr(L, o, "content", 1, &d->a, &d->alen) < 0)
			return -1;
		if (json_int(json_get(o, "start"), 0, 1000, &ll) < 0)
			return error("%s: decoder Strip: bad start", L->path);
		d->start = ll;
		if (json_int(json_get(o, "stop"), 0, 1000, &ll) < 0)
			return error("%s: decoder Strip: bad stop", L->path);
		d->stop = ll;
		if (d->fused && d->stop)
			return error("%s: unsupported decoder: Strip with stop after Fuse", L->path);
	} else if (!strcmp(ty, "Metaspace")) {
		d->type = DEC_METASPACE;
		if (tok_getstr(L, o, "replacement", 0, &d->a, &d->alen) < 0)
			return -1;
		if (!d->a && !(d->a = xstrdup("\xe2\x96\x81")))
			return -1;
		d->alen = strlen(d->a);
		s = json_str(json_get(o, "prepend_scheme"));
		if (s)
			d->prepend = !strcmp(s, "never") ? PREPEND_NEVER : PREPEND_ALWAYS;
		else
			d->prepend = tok_getbool(o, "add_prefix_space", 1) ?
			    PREPEND_ALWAYS : PREPEND_NEVER;
	} else {
		t->ndec--;
		return unsupported(L, "decoder", o);
	}
	if (d->fused && d->type != DEC_STRIP && d->type != DEC_FUSE)
		return error("%s: unsupported decoder: %s after Fuse or ByteLevel", L->path, ty);
	return 0;
}

static int
push_id(int **v, size_t *n, size_t *cap, int id)
{
	if (xgrow(v, cap, *n + 1, sizeof **v) < 0)
		return -1;
	(*v)[(*n)++] = id;
	return 0;
}

/* One TemplateProcessing: its "single" template gives the ids before and
 * after the sequence $A. */
static int
add_template(struct tok_ld *L, const struct json *o)
{
	struct tok *t = L->t;
	const struct json *single = json_get(o, "single"), *sp, *tk, *ids;
	size_t i, j;
	int after = 0, nseq = 0;
	long long id;

	if (!single || single->type != JSON_ARRAY)
		return error("%s: TemplateProcessing: no single template", L->path);
	sp = json_get(o, "special_tokens");
	t->has_template = 1;
	for (i = 0; i < single->len; i++) {
		const struct json *it = &single->u.items[i];
		if (json_get(it, "Sequence")) {
			after = 1;
			nseq++;
			continue;
		}
		if (!(tk = json_get(it, "SpecialToken")) || !json_str(json_get(tk, "id")))
			return error("%s: TemplateProcessing: bad template item", L->path);
		ids = json_get(json_get(sp, json_str(json_get(tk, "id"))), "ids");
		if (!ids || ids->type != JSON_ARRAY)
			return error("%s: TemplateProcessing: no ids for %s", L->path,
			    json_str(json_get(tk, "id")));
		for (j = 0; j < ids->len; j++) {
			if (json_int(&ids->u.items[j], 0, TOK_MAXID, &id) < 0)
				return error("%s: TemplateProcessing: bad id", L->path);
			if (after ? push_id(&t->suffix, &t->nsuffix, &t->suffixcap, id) :
			    push_id(&t->prefix, &t->nprefix, &t->prefixcap, id))
				return -1;
		}
	}
	if (nseq != 1)
		return error("%s: TemplateProcessing: single template needs one sequence", L->path);
	return 0;
}

int
tok_add_post(struct tok_ld *L, const struct json *o, size_t depth)
{
	const char *ty = typeof_(o);
	const struct json *seq;
	size_t i;

	if (o->type == JSON_NULL)
		return 0;
	if (!strcmp(ty, "ByteLevel"))
		return 0;	/* only trims offsets */
	if (!strcmp(ty, "TemplateProcessing")) {
		if (L->t->has_template)
			return error("%s: more than one TemplateProcessing", L->path);
		return add_template(L, o);
	}
	if (!strcmp(ty, "Sequence")) {
		seq = json_get(o, "processors");
		if (!seq || seq->type != JSON_ARRAY || depth > 8)
			return error("%s: bad post_processor Sequence", L->path);
		for (i = 0; i < seq->len; i++)
			if (tok_add_post(L, &seq->u.items[i], depth + 1) < 0)
				return -1;
		return 0;
	}
	return unsupported(L, "post_processor", o);
}
