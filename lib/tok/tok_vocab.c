/* tok_vocab.c: the vocabulary, id -> string, as tokenizer.json writes
 * it: the model's vocab and the added tokens (tokenizers'
 * added_vocabulary.rs), whose strings win where both give an id.  It is
 * what tok_piece and the decoders read, whatever the model. */
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "tok/tok_int.h"
#include "base/util.h"

int
tok_vocab_load(struct tok_ld *L)
{
	struct tok *t = L->t;
	const struct tok_raw *R = L->raw;
	const struct json *added = L->added;
	size_t i, nv = R->nent, na = added ? added->len : 0, total = 0, off;
	long long id, maxid = R->maxid;
	char *arena;

	if (R->badid != TOK_NONE)
		return error("%s: vocab: bad id for token %zu", L->path, R->badid);
	for (i = 0; i < na; i++) {
		const struct json *a = &added->u.items[i];
		if (tok_getid(json_get(a, "id"), &id) < 0 ||
		    !json_str(json_get(a, "content")))
			return error("%s: added_tokens: bad entry %zu", L->path, i);
		if (id > maxid)
			maxid = id;
		total += json_get(a, "content")->len + 1;
	}
	if (maxid < 0)
		return error("%s: empty vocabulary", L->path);
	if ((size_t)maxid > 2 * (nv + na) + 65536)
		return error("%s: token ids too sparse (id %lld for %zu tokens)",
		    L->path, maxid, nv + na);
	t->ntok = maxid + 1;
	if (!(t->str = tok_alloc(L, t->ntok * sizeof *t->str)) ||
	    !(t->slen = tok_alloc(L, t->ntok * sizeof *t->slen)) ||
	    !(t->special = tok_alloc(L, t->ntok)) ||
	    !(arena = tok_alloc(L, total)))
		return -1;

	/* the vocab's strings stay where the reader decoded them */
	for (i = 0; i < nv; i++) {
		const struct tok_vent *e = &R->ent[i];
		if (t->str[e->id])
			return error("%s: vocab: id %d used twice", L->path, e->id);
		t->str[e->id] = R->str + e->off;
		t->slen[e->id] = e->len;
	}
	for (off = 0, i = 0; i < na; i++) {
		const struct json *a = &added->u.items[i], *c = json_get(a, "content");
		tok_getid(json_get(a, "id"), &id);
		t->str[id] = memcpy(arena + off, c->u.str, c->len);
		t->str[id][c->len] = 0;
		t->slen[id] = c->len;
		off += c->len + 1;
	}
	return 0;
}

int
tok_vocab_find(const struct tok *t, const char *s, size_t n)
{
	int id;

	for (id = 0; id < t->ntok; id++)
		if (t->str[id] && t->slen[id] == n && !memcmp(t->str[id], s, n))
			return id;
	return -1;
}

static int
cmp_added(const void *a, const void *b)
{
	const struct tok_added *x = a, *y = b;

	if (x->len != y->len)
		return x->len > y->len ? -1 : 1;
	return x->id - y->id;
}

int
tok_added_load(struct tok_ld *L)
{
	struct tok *t = L->t;
	const struct json *added = L->added;
	size_t i;

	if (!added)
		return 0;
	if (!t->str)	/* a model constructor that did not read it */
		return error("%s: no vocabulary for the added tokens", L->path);
	if (!(t->added = xcalloc(added->len + 1, sizeof *t->added)))
		return -1;
	for (i = 0; i < added->len; i++) {
		const struct json *a = &added->u.items[i];
		struct tok_added *d = &t->added[t->nadded];
		long long id;
		tok_getid(json_get(a, "id"), &id);
		d->id = id;
		d->s = t->str[id];
		d->len = t->slen[id];
		d->special = tok_getbool(a, "special", 0);
		d->lstrip = tok_getbool(a, "lstrip", 0);
		d->rstrip = tok_getbool(a, "rstrip", 0);
		d->single_word = tok_getbool(a, "single_word", 0);
		d->normalized = tok_getbool(a, "normalized", !d->special);
		if (d->special)
			t->special[id] = 1;
		if (d->len)
			t->nadded++;
	}
	qsort(t->added, t->nadded, sizeof *t->added, cmp_added);
	return 0;
}

const char *
tok_piece(const struct tok *t, int id, size_t *len)
{
	if (id < 0 || id >= t->ntok || !t->str[id])
		return NULL;
	*len = t->slen[id];
	return t->str[id];
}
