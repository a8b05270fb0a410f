/* tok.c: loading tokenizer.json (see tok.h) and the shared tables.
 *
 * Semantics follow HuggingFace tokenizers (tokenizers/src/...): the BPE
 * model (models/bpe), added vocabulary, normalizers, pre-tokenizers,
 * TemplateProcessing and decoders.  The components other than the model
 * are read in tok_comp.c, encoding is in tok_enc.c, decoding in tok_dec.c. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "json.h"
#include "mdir.h"
#include "tok_int.h"
#include "unicode.h"
#include "util.h"

/* GPT-2's bytes_to_unicode(): printable Latin-1 bytes stand for
 * themselves, the others for U+0100 upwards, in byte order. */
const uint16_t tok_b2u[256] = {
	0x100, 0x101, 0x102, 0x103, 0x104, 0x105, 0x106, 0x107,
	0x108, 0x109, 0x10a, 0x10b, 0x10c, 0x10d, 0x10e, 0x10f,
	0x110, 0x111, 0x112, 0x113, 0x114, 0x115, 0x116, 0x117,
	0x118, 0x119, 0x11a, 0x11b, 0x11c, 0x11d, 0x11e, 0x11f,
	0x120, 0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x27,
	0x28, 0x29, 0x2a, 0x2b, 0x2c, 0x2d, 0x2e, 0x2f,
	0x30, 0x31, 0x32, 0x33, 0x34, 0x35, 0x36, 0x37,
	0x38, 0x39, 0x3a, 0x3b, 0x3c, 0x3d, 0x3e, 0x3f,
	0x40, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47,
	0x48, 0x49, 0x4a, 0x4b, 0x4c, 0x4d, 0x4e, 0x4f,
	0x50, 0x51, 0x52, 0x53, 0x54, 0x55, 0x56, 0x57,
	0x58, 0x59, 0x5a, 0x5b, 0x5c, 0x5d, 0x5e, 0x5f,
	0x60, 0x61, 0x62, 0x63, 0x64, 0x65, 0x66, 0x67,
	0x68, 0x69, 0x6a, 0x6b, 0x6c, 0x6d, 0x6e, 0x6f,
	0x70, 0x71, 0x72, 0x73, 0x74, 0x75, 0x76, 0x77,
	0x78, 0x79, 0x7a, 0x7b, 0x7c, 0x7d, 0x7e, 0x121,
	0x122, 0x123, 0x124, 0x125, 0x126, 0x127, 0x128, 0x129,
	0x12a, 0x12b, 0x12c, 0x12d, 0x12e, 0x12f, 0x130, 0x131,
	0x132, 0x133, 0x134, 0x135, 0x136, 0x137, 0x138, 0x139,
	0x13a, 0x13b, 0x13c, 0x13d, 0x13e, 0x13f, 0x140, 0x141,
	0x142, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7,
	0xa8, 0xa9, 0xaa, 0xab, 0xac, 0x143, 0xae, 0xaf,
	0xb0, 0xb1, 0xb2, 0xb3, 0xb4, 0xb5, 0xb6, 0xb7,
	0xb8, 0xb9, 0xba, 0xbb, 0xbc, 0xbd, 0xbe, 0xbf,
	0xc0, 0xc1, 0xc2, 0xc3, 0xc4, 0xc5, 0xc6, 0xc7,
	0xc8, 0xc9, 0xca, 0xcb, 0xcc, 0xcd, 0xce, 0xcf,
	0xd0, 0xd1, 0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7,
	0xd8, 0xd9, 0xda, 0xdb, 0xdc, 0xdd, 0xde, 0xdf,
	0xe0, 0xe1, 0xe2, 0xe3, 0xe4, 0xe5, 0xe6, 0xe7,
	0xe8, 0xe9, 0xea, 0xeb, 0xec, 0xed, 0xee, 0xef,
	0xf0, 0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7,
	0xf8, 0xf9, 0xfa, 0xfb, 0xfc, 0xfd, 0xfe, 0xff,
};

int
tok_u2b(uint32_t cp)
{
	if (cp >= 0x21 && cp <= 0x7e)
		return cp;
	if ((cp >= 0xa1 && cp <= 0xac) || (cp >= 0xae && cp <= 0xff))
		return cp;
	if (cp >= 0x100 && cp <= 0x143) {
		/* the unprintable bytes in order: 0x00-0x20, 0x7f-0xa0, 0xad */
		unsigned k = cp - 0x100;
		return k <= 32 ? (int)k : k <= 66 ? (int)(0x7f + k - 33) : 0xad;
	}
	return -1;
}

uint64_t
tok_hash(const void *p, size_t n)
{
	const unsigned char *s = p;
	uint64_t h = 0xcbf29ce484222325ull ^ n;

	while (n >= 8) {
		uint64_t w;
		memcpy(&w, s, 8);
		h = (h ^ w) * 0x100000001b3ull;
		h ^= h >> 29;
		s += 8, n -= 8;
	}
	while (n--)
		h = (h ^ *s++) * 0x100000001b3ull;
	h ^= h >> 32;
	return h * 0x9e3779b97f4a7c15ull;
}

int
tok_vocab_get(const struct tok *t, const char *s, size_t n)
{
	size_t i = (size_t)(tok_hash(s, n) >> 16) & t->vmask;

	for (;; i = (i + 1) & t->vmask) {
		uint32_t e = t->vtab[i];
		if (!e)
			return -1;
		e--;
		if (t->klen[e] == n && !memcmp(t->key[e], s, n))
			return (int)e;
	}
}

/* A token id: plain digits read directly (the vocabulary has tens of
 * thousands), anything else through json_int.  0, or -1. */
static int
getid(const struct json *j, long long *id)
{
	long long v = 0;
	size_t i;

	if (j && j->type == JSON_NUMBER && j->len && j->len <= 9) {
		for (i = 0; i < j->len && j->u.num[i] >= '0' && j->u.num[i] <= '9'; i++)
			v = v * 10 + (j->u.num[i] - '0');
		if (i == j->len && (j->len == 1 || j->u.num[0] != '0')) {
			*id = v;
			return 0;
		}
	}
	return json_int(j, 0, TOK_MAXID - 1, id);
}

static size_t
pow2(size_t n)
{
	size_t p = 16;

	while (p < n * 2)
		p *= 2;
	return p;
}

/* Look a token's string up: added tokens first, then the vocabulary
 * strings (as written in the file). */
static int
find_str(const struct tok *t, const char *s, size_t n)
{
	size_t i;
	int id;

	for (i = 0; i < t->nadded; i++)
		if (t->added[i].len == n && !memcmp(t->added[i].s, s, n))
			return t->added[i].id;
	for (id = 0; id < t->ntok; id++)
		if (t->str[id] && t->slen[id] == n && !memcmp(t->str[id], s, n))
			return id;
	return -1;
}

/* A vocabulary string's BPE key: for byte-level vocabularies the bytes
 * its characters stand for (written to out, at most n bytes), else the
 * string itself.  Returns the key length, or -1 if a character is not in
 * the byte-level alphabet. */
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
load_model(struct tok_ld *L, const struct json *m, const struct json *added)
{
	struct tok *t = L->t;
	const struct json *vocab = json_get(m, "vocab"), *merges = json_get(m, "merges");
	const char *ty = json_str(json_get(m, "type"));
	size_t i, total = 0, nv, off;
	long long id, maxid = -1;
	char *unk = NULL;
	int r = -1;

	if (ty && strcmp(ty, "BPE"))
		return error("%s: unsupported model: %s", L->path, ty);
	if (!vocab || vocab->type != JSON_OBJECT)
		return error("%s: model: no vocab", L->path);
	if (!merges || merges->type != JSON_ARRAY)
		return error("%s: model: no merges", L->path);
	{
		const struct json *d = json_get(m, "dropout");
		if (d && d->type != JSON_NULL)
			return error("%s: unsupported model option: dropout", L->path);
		if (json_str(json_get(m, "continuing_subword_prefix")))
			return error("%s: unsupported model option: continuing_subword_prefix", L->path);
		if (json_str(json_get(m, "end_of_word_suffix")))
			return error("%s: unsupported model option: end_of_word_suffix", L->path);
	}
	t->byte_fallback = tok_getbool(m, "byte_fallback", 0);
	t->fuse_unk = tok_getbool(m, "fuse_unk", 0);
	t->ignore_merges = tok_getbool(m, "ignore_merges", 0);

	/* ids and string sizes */
	for (i = 0; i < vocab->len; i++) {
		const struct json_member *e = &vocab->u.members[i];
		if (getid(&e->value, &id) < 0)
			return error("%s: vocab: bad id for token %zu", L->path, i);
		if (id > maxid)
			maxid = id;
		total += e->keylen * 2 + 2;
	}
	for (i = 0; added && i < added->len; i++) {
		const struct json *a = &added->u.items[i];
		if (getid(json_get(a, "id"), &id) < 0 ||
		    !json_str(json_get(a, "content")))
			return error("%s: added_tokens: bad entry %zu", L->path, i);
		if (id > maxid)
			maxid = id;
		total += json_get(a, "content")->len * 2 + 2;
	}
	if (maxid < 0)
		return error("%s: empty vocabulary", L->path);
	if ((size_t)maxid > 2 * (vocab->len + (added ? added->len : 0)) + 65536)
		return error("%s: token ids too sparse (id %lld for %zu tokens)",
		    L->path, maxid, vocab->len + (added ? added->len : 0));
	t->ntok = maxid + 1;
	nv = t->ntok;
	/* one zeroed mapping for all the tables: page faults are costly, and
	 * huge pages take a few for megabytes */
	t->vmask = pow2(vocab->len) - 1;
	t->mmask = pow2(merges->len) - 1;
	{
		size_t sz[] = {
			(t->mmask + 1) * sizeof *t->mtab,
			(t->vmask + 1) * sizeof *t->vtab,
			nv * sizeof *t->str, nv * sizeof *t->key,
			nv * sizeof *t->slen, nv * sizeof *t->klen,
			nv, total + 1
		};
		void **dst[] = {
			(void **)&t->mtab, (void **)&t->vtab, (void **)&t->str,
			(void **)&t->key, (void **)&t->slen, (void **)&t->klen,
			(void **)&t->special, (void **)&t->arena
		};
		size_t k, len = 0;
		char *mem;
		for (k = 0; k < LEN(sz); k++)
			len += (sz[k] + 15) & ~(size_t)15;
		if (!(mem = mem_map(len)))
			return error("%s: cannot allocate %zu bytes for the tokenizer", L->path, len);
		t->mem = mem, t->memlen = len;
		for (k = 0; k < LEN(sz); k++) {
			*dst[k] = mem;
			mem += (sz[k] + 15) & ~(size_t)15;
		}
	}
	off = 0;
	for (i = 0; i < vocab->len + (added ? added->len : 0); i++) {
		const char *s;
		size_t n;
		long k;
		int isadd = i >= vocab->len;
		if (!isadd) {
			const struct json_member *e = &vocab->u.members[i];
			getid(&e->value, &id);
			s = e->key, n = e->keylen;
		} else {
			const struct json *a = &added->u.items[i - vocab->len];
			getid(json_get(a, "id"), &id);
			s = json_get(a, "content")->u.str;
			n = json_get(a, "content")->len;
		}
		if (t->str[id] && !isadd)
			return error("%s: vocab: id %lld used twice", L->path, id);
		t->str[id] = t->arena + off;
		memcpy(t->str[id], s, n);
		t->str[id][n] = 0;
		t->slen[id] = n;
		off += n + 1;
		if (isadd)
			continue;	/* matched in the text, not by BPE */
		if (!t->bytelevel) {
			t->key[id] = t->str[id];
			t->klen[id] = n;
			continue;
		}
		t->key[id] = t->arena + off;
		if ((k = bl_key(s, n, t->key[id])) < 0) {
			t->key[id] = NULL;	/* not in the alphabet: unreachable */
			continue;
		}
		t->klen[id] = k;
		off += k + 1;
	}

	/* vocabulary hash */
	for (id = 0; id < t->ntok; id++) {
		size_t h;
		if (!t->key[id])
			continue;
		h = (size_t)(tok_hash(t->key[id], t->klen[id]) >> 16) & t->vmask;
		for (;; h = (h + 1) & t->vmask) {
			uint32_t e = t->vtab[h];
			if (!e)
				break;
			if (t->klen[e - 1] == t->klen[id] &&
			    !memcmp(t->key[e - 1], t->key[id], t->klen[id]))
				break;	/* first id wins */
		}
		if (!t->vtab[h])
			t->vtab[h] = id + 1;
	}

	/* merges: (a, b) -> rank, id of a+b */
	{
		char *buf = NULL;
		size_t cap = 0;
		for (i = 0; i < merges->len; i++) {
			const struct json *e = &merges->u.items[i];
			const char *a, *b, *sp;
			size_t an, bn, h;
			long ka, kb;
			int ia, ib, inew;
			uint64_t key;
			if (e->type == JSON_STRING) {
				if (!(sp = memchr(e->u.str, ' ', e->len)) ||
				    memchr(sp + 1, ' ', e->len - (sp + 1 - e->u.str)))
					goto badmerge;
				a = e->u.str, an = sp - a;
				b = sp + 1, bn = e->len - an - 1;
			} else if (e->type == JSON_ARRAY && e->len == 2 &&
			    e->u.items[0].type == JSON_STRING &&
			    e->u.items[1].type == JSON_STRING) {
				a = e->u.items[0].u.str, an = e->u.items[0].len;
				b = e->u.items[1].u.str, bn = e->u.items[1].len;
			} else {
				goto badmerge;
			}
			if (xgrow(&buf, &cap, an + bn + 1, 1) < 0) {
				free(buf);
				return -1;
			}
			if (t->bytelevel) {
				ka = bl_key(a, an, buf);
				kb = ka < 0 ? -1 : bl_key(b, bn, buf + ka);
				if (ka < 0 || kb < 0)
					continue;	/* never reached */
			} else {
				memcpy(buf, a, an), memcpy(buf + an, b, bn);
				ka = an, kb = bn;
			}
			ia = tok_vocab_get(t, buf, ka);
			ib = tok_vocab_get(t, buf + ka, kb);
			inew = tok_vocab_get(t, buf, ka + kb);
			if (ia < 0 || ib < 0 || inew < 0) {
				error("%s: merge %zu: token not in the vocabulary", L->path, i);
				free(buf);
				return -1;
			}
			key = ((uint64_t)(uint32_t)ia << 32 | (uint32_t)ib) + 1;
			h = tok_mhash(key) & t->mmask;
			while (t->mtab[h].key && t->mtab[h].key != key)
				h = (h + 1) & t->mmask;
			if (!t->mtab[h].key) {	/* the first (best) rank wins */
				t->mtab[h].key = key;
				t->mtab[h].val = (uint64_t)i << 32 | (uint32_t)inew;
			}
			continue;
badmerge:
			free(buf);
			return error("%s: merge %zu: not \"a b\" or [\"a\", \"b\"]", L->path, i);
		}
		free(buf);
	}

	/* single bytes */
	for (i = 0; i < 256; i++) {
		char k[8];
		if (t->bytelevel) {
			k[0] = i;
			t->byteid[i] = tok_vocab_get(t, k, 1);
		} else {
			snprintf(k, sizeof k, "<0x%02X>", (unsigned)i);
			t->byteid[i] = t->byte_fallback ? tok_vocab_get(t, k, 6) : -1;
		}
	}
	t->unk = -1;
	if (tok_getstr(L, m, "unk_token", 0, &unk, NULL) < 0)
		return -1;
	if (unk) {
		t->unk = find_str(t, unk, strlen(unk));
		if (t->unk < 0) {
			error("%s: unk_token %s not in the vocabulary", L->path, unk);
			goto out;
		}
	}
	r = 0;
out:
	free(unk);
	return r;
}

static int
cmp_added(const void *a, const void *b)
{
	const struct tok_added *x = a, *y = b;

	if (x->len != y->len)
		return x->len > y->len ? -1 : 1;
	return x->id - y->id;
}

static int
load_added(struct tok_ld *L, const struct json *added)
{
	struct tok *t = L->t;
	size_t i;

	if (!added || added->type == JSON_NULL)
		return 0;
	if (added->type != JSON_ARRAY)
		return error("%s: added_tokens: not an array", L->path);
	if (!(t->added = xcalloc(added->len + 1, sizeof *t->added)))
		return -1;
	for (i = 0; i < added->len; i++) {
		const struct json *a = &added->u.items[i];
		struct tok_added *d = &t->added[t->nadded];
		long long id;
		getid(json_get(a, "id"), &id);
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

int
tok_load(struct tok *t, const char *path)
{
	struct json_doc doc = { 0 };
	struct tok_ld L = { t, path };
	const struct json *r, *m, *added;
	int ret = -1;

	memset(t, 0, sizeof *t);
	t->unk = t->bos = -1;
	if (json_load(&doc, path) < 0)
		return -1;
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
	if (added && added->type == JSON_NULL)
		added = NULL;
	/* the pre-tokenizer decides whether the vocabulary is byte-level */
	if ((json_get(r, "normalizer") && tok_add_norm(&L, json_get(r, "normalizer"), 0) < 0) ||
	    (json_get(r, "pre_tokenizer") && tok_add_pre(&L, json_get(r, "pre_tokenizer"), 0) < 0) ||
	    load_model(&L, m, added) < 0 || load_added(&L, added) < 0 ||
	    (json_get(r, "post_processor") && tok_add_post(&L, json_get(r, "post_processor"), 0) < 0) ||
	    (json_get(r, "decoder") && tok_add_dec(&L, json_get(r, "decoder"), 0) < 0))
		goto out;
	if (t->npre >= TOK_MAXDEPTH - 1) {
		error("%s: more than %d pre-tokenizers", path, TOK_MAXDEPTH - 2);
		goto out;
	}
	if (t->nprefix) {
		t->bos = t->prefix[0];
	} else if ((t->path = xstrdup(path))) {
		t->bos = -2;	/* tok_bos looks, when asked */
	} else {
		goto out;
	}
	ret = 0;
out:
	json_free(&doc);
	return ret;
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

void
tok_free(struct tok *t)
{
	size_t i;

	for (i = 0; t->norm && i < t->nnorm; i++)
		free(t->norm[i].a), free(t->norm[i].b);
	for (i = 0; t->pre && i < t->npre; i++)
		free(t->pre[i].lit), free(t->pre[i].rep);
	for (i = 0; t->dec && i < t->ndec; i++)
		free(t->dec[i].a), free(t->dec[i].b);
	free(t->norm), free(t->pre), free(t->dec);
	free(t->prefix), free(t->suffix);
	free(t->added);
	mem_unmap(t->mem, t->memlen);
	free(t->path);
	tok_enc_free(t);
	memset(t, 0, sizeof *t);
}

int
tok_open(struct tok *t, const char *model, const char *file)
{
	struct mdir m = { 0 };
	int r;

	memset(t, 0, sizeof *t);
	if (file)
		return tok_load(t, file);
	if (mdir_resolve(&m, model) < 0)
		return -1;
	if (!m.tokenizer) {
		error("%s: no tokenizer.json", m.dir);
		mdir_free(&m);
		return -1;
	}
	r = tok_load(t, m.tokenizer);
	mdir_free(&m);
	return r;
}

const char *
tok_piece(const struct tok *t, int id, size_t *len)
{
	if (id < 0 || id >= t->ntok || !t->str[id])
		return NULL;
	*len = t->slen[id];
	return t->str[id];
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
