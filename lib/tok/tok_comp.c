/* tok_comp.c: what the tokenizer's components share: building a stage
 * from its table of types, reading options from tokenizer.json, the
 * tables' memory, growable buffers, hashing and the byte-level
 * alphabet. */
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "tok/tok_int.h"
#include "base/util.h"

const char *
tok_typename(const struct json *o)
{
	const char *s = json_str(json_get(o, "type"));

	return s ? s : "(no type)";
}

int
tok_build(struct tok_ld *L, const char *stage, const struct tok_type *types,
    size_t ntypes, const char *dflt, const struct json *o, size_t depth)
{
	const char *ty;
	size_t i;

	if (!o || o->type == JSON_NULL)
		return 0;
	ty = json_str(json_get(o, "type"));
	if (!ty && dflt)
		ty = dflt;
	for (i = 0; ty && i < ntypes; i++)
		if (!strcmp(ty, types[i].name))
			return types[i].make(L, o, depth);
	return error("%s: unsupported %s: %s", L->path, stage, tok_typename(o));
}

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

int
tok_getpattern(struct tok_ld *L, const struct json *o, const char *what, char **s, size_t *n)
{
	const struct json *p = json_get(o, "pattern");

	*s = NULL;
	if (p && p->type == JSON_OBJECT && json_get(p, "String"))
		return tok_getstr(L, p, "String", 1, s, n);
	return error("%s: %s: bad pattern", L->path, what);
}

/* The tables' memory: zeroed mappings of at least MEMCHUNK bytes, each
 * starting with its header, handed out in order, so that the tables
 * fault in as a few huge pages (mem_map advises them) rather than page
 * by page (bench/NOTES.md, "Tokenizer components"). */
#define MEMCHUNK ((size_t)4 << 20)
#define MEMHEAD 64

struct tok_mem {
	struct tok_mem *next;
	size_t len, used;
};

/* Room for n bytes at the head chunk's end, made if need be; NULL if
 * out of memory (nothing said) */
static char *
mem_room(struct tok *t, size_t n)
{
	struct tok_mem *c = t->mem;

	if (n > ((size_t)-1) / 2)
		return NULL;
	n = (n + 15) & ~(size_t)15;
	if (!c || c->len - c->used < n) {
		size_t len = n + MEMHEAD > MEMCHUNK ? n + MEMHEAD : MEMCHUNK;
		if (!(c = mem_map(len)))
			return NULL;
		c->next = t->mem, c->len = len, c->used = MEMHEAD;
		t->mem = c;
	}
	return (char *)c + c->used;
}

void *
tok_alloc(struct tok_ld *L, size_t n)
{
	char *p = mem_room(L->t, n);

	if (!p) {
		error("%s: cannot allocate %zu bytes for the tokenizer", L->path, n);
		return NULL;
	}
	L->t->mem->used += (n + 15) & ~(size_t)15;
	return p;
}

char *
tok_room(struct tok_ld *L, size_t n)
{
	return mem_room(L->t, n);
}

void
tok_keep(struct tok_ld *L, size_t n)
{
	L->t->mem->used += (n + 15) & ~(size_t)15;
}

void
tok_mem_free(struct tok *t)
{
	struct tok_mem *c, *next;

	for (c = t->mem; c; c = next) {
		next = c->next;
		mem_unmap(c, c->len);
	}
	t->mem = NULL;
}

int
tok_ids_push(struct tok_ids *ids, int id)
{
	if (ids->n == ids->cap && xgrow(&ids->v, &ids->cap, ids->n + 1, sizeof *ids->v) < 0)
		return -1;
	ids->v[ids->n++] = id;
	return 0;
}

int
tok_buf_add(struct tok_buf *b, const void *p, size_t n)
{
	size_t need;

	if (b->max && (n > b->max || b->n > b->max - n))
		return error("a normalized text grew past %zu bytes, the limit "
		    "for its input", b->max);
	if (n > b->cap - b->n &&
	    (size_add(&need, b->n, n) < 0 || xgrow(&b->p, &b->cap, need, 1) < 0))
		return -1;
	if (n)
		memcpy(b->p + b->n, p, n);
	b->n += n;
	return 0;
}

const char *
tok_find(const char *hay, size_t hn, const char *needle, size_t nn)
{
	const char *p = hay, *end = hay + hn;

	while ((size_t)(end - p) >= nn) {
		p = memchr(p, needle[0], end - p - nn + 1);
		if (!p)
			return NULL;
		if (!memcmp(p, needle, nn))
			return p;
		p++;
	}
	return NULL;
}

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
