/* tok_post.c: the post-processors (tokenizers' processors/): the
 * special tokens around an encoded sequence. */
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "tok/tok_int.h"
#include "base/util.h"

static int build(struct tok_ld *L, const struct json *o, size_t depth);

static int
add(struct tok_ld *L, struct tok_post *c)
{
	struct tok *t = L->t;

	if (xgrow(&t->post, &t->postcap, t->npost + 1, sizeof *t->post) < 0) {
		c->ops->free ? c->ops->free(c) : free(c);
		return -1;
	}
	t->post[t->npost++] = c;
	return 0;
}

static int
make_sequence(struct tok_ld *L, const struct json *o, size_t depth)
{
	const struct json *seq = json_get(o, "processors");
	size_t i;

	if (!seq || seq->type != JSON_ARRAY || depth > TOK_MAXNEST)
		return error("%s: bad post_processor Sequence", L->path);
	for (i = 0; i < seq->len; i++)
		if (build(L, &seq->u.items[i], depth + 1) < 0)
			return -1;
	return 0;
}

/* ByteLevel only trims offsets, which tok_encode does not give */
static int
make_bytelevel(struct tok_ld *L, const struct json *o, size_t depth)
{
	(void)L, (void)o, (void)depth;
	return 0;
}

/* TemplateProcessing: its "single" template, the ids before and after
 * the sequence $A */
struct template {
	struct tok_post c;
	struct tok_ids ids[2];		/* before, after */
};

static int
template_add(const struct tok_post *c, int after, struct tok_ids *out)
{
	const struct tok_ids *v = &((const struct template *)c)->ids[after];
	size_t i;

	for (i = 0; i < v->n; i++)
		if (tok_ids_push(out, v->v[i]) < 0)
			return -1;
	return 0;
}

static void
template_free(struct tok_post *c)
{
	struct template *p = (struct template *)c;

	free(p->ids[0].v), free(p->ids[1].v), free(p);
}

static const struct tok_post_ops template_ops = { template_add, template_free };

static int
template_read(struct tok_ld *L, struct template *p, const struct json *o)
{
	const struct json *single = json_get(o, "single"), *sp, *tk, *ids;
	size_t i, j, len;
	int after = 0, nseq = 0;
	long long id;

	if (!single || single->type != JSON_ARRAY)
		return error("%s: TemplateProcessing: no single template", L->path);
	sp = json_get(o, "special_tokens");
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
			/* the vocabulary and added tokens are read by now */
			if (!tok_piece(L->t, (int)id, &len))
				return error("%s: TemplateProcessing: %s: id %lld is "
				    "not in the vocabulary", L->path,
				    json_str(json_get(tk, "id")), id);
			if (tok_ids_push(&p->ids[after], id) < 0)
				return -1;
		}
	}
	if (nseq != 1)
		return error("%s: TemplateProcessing: single template needs one sequence", L->path);
	return 0;
}

static int
make_template(struct tok_ld *L, const struct json *o, size_t depth)
{
	struct tok *t = L->t;
	struct template *p;

	(void)depth;
	if (t->has_template)
		return error("%s: more than one TemplateProcessing", L->path);
	t->has_template = 1;
	if (!(p = xcalloc(1, sizeof *p)))
		return -1;
	p->c.ops = &template_ops;
	if (template_read(L, p, o) < 0) {
		template_free(&p->c);
		return -1;
	}
	if (add(L, &p->c) < 0)
		return -1;
	t->prefix = p->ids[0].v, t->nprefix = p->ids[0].n;
	return 0;
}

static const struct tok_type types[] = {
	{ "Sequence", make_sequence },
	{ "ByteLevel", make_bytelevel },
	{ "TemplateProcessing", make_template },
};

static int
build(struct tok_ld *L, const struct json *o, size_t depth)
{
	return tok_build(L, "post_processor", types, LEN(types), NULL, o, depth);
}

int
tok_post_load(struct tok_ld *L, const struct json *o)
{
	return build(L, o, 0);
}
