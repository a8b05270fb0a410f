/* tok.c: loading tokenizer.json (see tok.h): the stages' components, in
 * the order the file's parts depend on each other, built by the stage
 * files (see tok_int.h); and what tok.h gives besides encoding
 * (tok_enc.c) and decoding (tok_dec.c). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/json.h"
#include "disk/gguf.h"
#include "disk/mdir.h"
#include "tok/tok_int.h"
#include "base/unicode.h"
#include "base/util.h"

/* A token's string: the added tokens first, then the vocabulary. */
static int
find_str(const struct tok *t, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < t->nadded; i++)
		if (t->added[i].len == n && !memcmp(t->added[i].s, s, n))
			return t->added[i].id;
	return tok_vocab_find(t, s, n);
}

/* The bos_token of tokenizer_config.json beside path, if any. */
static void
load_bos(struct tok *t, const char *path)
{
	struct json_doc doc = { 0 };
	const struct json *b;
	const char *sl = strrchr(path, '/');
	size_t dl = sl ? (size_t)(sl - path + 1) : 0;
	char *p = malloc(dl + sizeof "tokenizer_config.json");

	if (!p)
		return;
	memcpy(p, path, dl);
	strcpy(p + dl, "tokenizer_config.json");
	if (access(p, F_OK) == 0 && json_load(&doc, p) == 0) {
		b = json_get(doc.root, "bos_token");
		if (b && b->type == JSON_OBJECT)
			b = json_get(b, "content");
		if (json_str(b))
			t->bos = find_str(t, b->u.str, b->len);
	}
	json_free(&doc);
	free(p);
}

/* tokenizer.json's text text[0..len) if text, else the file path */
static int
load(struct tok *t, const char *path, const char *text, size_t len)
{
	struct json_doc doc = { 0 };
	struct tok_raw R;
	struct tok_ld L = { t, path, NULL, 0, &R };
	const struct json_hook hook = { "model", tok_raw_member, &R };
	const struct json *r, *m, *added;
	int ret = -1;

	memset(t, 0, sizeof *t);
	t->bos = -1;
	tok_raw_init(&R, &L);
	if (text) {
		char err[160];
		if (json_parse_hook(&doc, text, len, &hook, err, sizeof err) < 0) {
			tok_raw_free(&R);
			return error("%s: %s", path, err);
		}
	} else if (json_load_hook(&doc, path, &hook) < 0) {
		tok_raw_free(&R);
		return -1;
	}
	r = doc.root;
	if (r->type != JSON_OBJECT) {
		error("%s: not a tokenizer.json (not an object)", path);
		goto out;
	}
	m = json_get(r, "model");
	if (!m || m->type != JSON_OBJECT) {
		error("%s: not a tokenizer.json (no model)", path);
		goto out;
	}
	added = json_get(r, "added_tokens");
	if (added && added->type != JSON_ARRAY && added->type != JSON_NULL) {
		error("%s: added_tokens: not an array", path);
		goto out;
	}
	if (added && added->type == JSON_ARRAY)
		L.added = added;
	/* the pre-tokenizer says whether the model's strings stand for
	 * bytes; the model reads the vocabulary the added tokens need */
	if (tok_norm_load(&L, json_get(r, "normalizer")) < 0 ||
	    tok_pre_load(&L, json_get(r, "pre_tokenizer")) < 0 ||
	    tok_model_load(&L, m) < 0 || tok_added_load(&L) < 0 ||
	    tok_post_load(&L, json_get(r, "post_processor")) < 0 ||
	    tok_dec_load(&L, json_get(r, "decoder")) < 0)
		goto out;
	if (t->npre >= TOK_MAXDEPTH - 1) {
		error("%s: more than %d pre-tokenizers", path, TOK_MAXDEPTH - 2);
		goto out;
	}
	if (!(t->path = xstrdup(path)))
		goto out;
	/* without a template, tok_bos looks in tokenizer_config.json when
	 * asked */
	t->bos = t->nprefix ? t->prefix[0] : -2;
	ret = 0;
out:
	tok_raw_free(&R);
	json_free(&doc);
	return ret;
}

int
tok_load(struct tok *t, const char *path)
{
	return load(t, path, NULL, 0);
}

int
tok_load_text(struct tok *t, const char *path, const char *text, size_t len)
{
	return load(t, path, text, len);
}

int
tok_load_pipe(struct tok *t, const struct json *r, const char *path, int *bytelevel)
{
	struct tok_ld L = { t, path, NULL, 0, NULL };

	memset(t, 0, sizeof *t);
	t->bos = -1;
	if (!r || r->type != JSON_OBJECT)
		return error("%s: not a tokenizer.json (not an object)", path);
	if (tok_norm_load(&L, json_get(r, "normalizer")) < 0 ||
	    tok_pre_load(&L, json_get(r, "pre_tokenizer")) < 0)
		return -1;
	if (t->npre >= TOK_MAXDEPTH - 1)
		return error("%s: more than %d pre-tokenizers", path, TOK_MAXDEPTH - 2);
	if (!(t->path = xstrdup(path)))
		return -1;
	*bytelevel = L.bytelevel;
	return 0;
}

int
tok_bos(struct tok *t)
{
	if (t->bos == -2) {
		t->bos = -1;
		load_bos(t, t->path);
	}
	return t->bos;
}

/* each component's free, or free() */
#define FREE(c) ((c)->ops->free ? (c)->ops->free(c) : free(c))

void
tok_free(struct tok *t)
{
	size_t i;

	tok_enc_free(t);
	for (i = 0; i < t->ndec; i++)
		FREE(t->dec[i]);
	for (i = 0; i < t->npost; i++)
		FREE(t->post[i]);
	if (t->model)
		FREE(t->model);
	for (i = 0; i < t->npre; i++)
		FREE(t->pre[i]);
	for (i = 0; i < t->nnorm; i++)
		FREE(t->norm[i]);
	free(t->dec), free(t->post), free(t->pre), free(t->norm);
	free(t->added);
	free(t->path);
	tok_mem_free(t);
	memset(t, 0, sizeof *t);
}

int
tok_open(struct tok *t, const char *model, const char *file)
{
	struct mdir m = { 0 };
	const char *env;
	int r;

	memset(t, 0, sizeof *t);
	if (file)
		return gguf_probe(file) ? tok_load_gguf(t, file) : tok_load(t, file);
	/* a GGUF file holds its tokenizer */
	if (!model && (env = getenv("PIPELM_MODEL")) && *env)
		model = env;
	if (model && gguf_probe(model))
		return tok_load_gguf(t, model);
	if (mdir_resolve_tokenizer(&m, model) < 0)
		return -1;
	r = m.gguf ? tok_load_gguf(t, m.gguf) : tok_load(t, m.tokenizer);
	t->builtin = m.builtin;
	mdir_free(&m);
	return r;
}

void
tok_escape(FILE *f, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i, len;
	uint32_t cp;

	for (i = 0; i < n; i += len) {
		len = uni_decode(u + i, n - i, &cp);
		if (cp == ' ')
			fputs("\\s", f);
		else if (cp == '\\')
			fputs("\\\\", f);
		else if (cp == '\n')
			fputs("\\n", f);
		else if (cp == '\t')
			fputs("\\t", f);
		else if (cp == '\r')
			fputs("\\r", f);
		else if (cp < 0x20 || cp == 0x7f || UNI_ISBAD(cp) ||
		    (cp >= 0x80 && cp < 0xa0))
			fprintf(f, "\\x%02x", (unsigned)u[i] & 0xff);
		else
			fwrite(u + i, 1, len, f);
		if (len > 1 && (cp >= 0x80 && cp < 0xa0)) {
			size_t k;
			for (k = 1; k < len; k++)
				fprintf(f, "\\x%02x", (unsigned)u[i + k]);
		}
	}
}
