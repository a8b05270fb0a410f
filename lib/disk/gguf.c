/* gguf.c: the GGUF reader.  Format: ggml's docs/gguf.md; what ggml's own
 * reader (ggml/src/gguf.cpp) refuses is refused here too, but nested
 * arrays, which the format has and gguf.cpp does not read. */
#include <sys/mman.h>

#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "disk/gguf.h"
#include "disk/st.h"

static const struct {
	const char *name;
	int size;		/* bytes of a value; 0: variable */
} vtypes[GGUF_NVTYPE] = {
	[GGUF_U8] = { "u8", 1 }, [GGUF_I8] = { "i8", 1 },
	[GGUF_U16] = { "u16", 2 }, [GGUF_I16] = { "i16", 2 },
	[GGUF_U32] = { "u32", 4 }, [GGUF_I32] = { "i32", 4 },
	[GGUF_F32] = { "f32", 4 }, [GGUF_BOOL] = { "bool", 1 },
	[GGUF_STR] = { "str", 0 }, [GGUF_ARR] = { "arr", 0 },
	[GGUF_U64] = { "u64", 8 }, [GGUF_I64] = { "i64", 8 },
	[GGUF_F64] = { "f64", 8 },
};

const char *
gguf_vtype_name(enum gguf_vtype t)
{
	return (unsigned)t < GGUF_NVTYPE ? vtypes[t].name : "?";
}

static uint32_t
rd32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	    (uint32_t)p[3] << 24;
}

static uint64_t
rd64(const unsigned char *p)
{
	return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

/* ---- parsing: a cursor over the mapping ---- */

struct rd {
	const char *path;
	const unsigned char *p, *end;
	const char *what;	/* for messages: "key 3", "tensor blk.0..." */
	char whatbuf[96];
};

static int
need(struct rd *r, size_t n, const char *of)
{
	if ((size_t)(r->end - r->p) < n)
		return error("%s: %s: %s past the end of the file", r->path,
		    r->what, of);
	return 0;
}

static int
get32(struct rd *r, uint32_t *v, const char *of)
{
	if (need(r, 4, of) < 0)
		return -1;
	*v = rd32(r->p);
	r->p += 4;
	return 0;
}

static int
get64(struct rd *r, uint64_t *v, const char *of)
{
	if (need(r, 8, of) < 0)
		return -1;
	*v = rd64(r->p);
	r->p += 8;
	return 0;
}

/* A string: its bytes and length (checked against what is left). */
static int
getstr(struct rd *r, const unsigned char **s, uint64_t *len, const char *of)
{
	char buf[64];

	if (get64(r, len, of) < 0)
		return -1;
	if (*len > (uint64_t)(r->end - r->p)) {
		snprintf(buf, sizeof buf, "%s of %llu bytes", of,
		    (unsigned long long)*len);
		return need(r, SIZE_MAX, buf);
	}
	*s = r->p;
	r->p += *len;
	return 0;
}

/* Read a value of type t (its type already read) into *v; arrays are
 * walked element by element (bools checked, strings' lengths checked,
 * inner arrays recursed into, depth levels deep so far). */
static int
getval(struct rd *r, enum gguf_vtype t, struct gguf_val *v, int depth)
{
	uint64_t i;
	uint32_t at;

	memset(v, 0, sizeof *v);
	if ((unsigned)t >= GGUF_NVTYPE)
		return error("%s: %s: unknown value type %u", r->path, r->what,
		    (unsigned)t);
	v->type = t;
	if (t == GGUF_STR) {
		if (getstr(r, &v->p, &v->n, "a string") < 0)
			return -1;
		v->size = (size_t)v->n;
		return 0;
	}
	if (t != GGUF_ARR) {
		if (need(r, (size_t)vtypes[t].size, "a value") < 0)
			return -1;
		if (t == GGUF_BOOL && *r->p > 1)
			return error("%s: %s: bool value %u is neither 0 nor 1",
			    r->path, r->what, *r->p);
		v->p = r->p;
		v->size = (size_t)vtypes[t].size;
		r->p += v->size;
		return 0;
	}
	if (depth >= GGUF_MAXDEPTH)
		return error("%s: %s: arrays nested more than %d deep",
		    r->path, r->what, GGUF_MAXDEPTH);
	if (get32(r, &at, "an array's type") < 0 ||
	    get64(r, &v->n, "an array's length") < 0)
		return -1;
	if (at >= GGUF_NVTYPE)
		return error("%s: %s: array of unknown value type %u", r->path,
		    r->what, at);
	v->atype = at;
	v->p = r->p;
	/* every element takes at least a byte (a string 8, an array 12):
	 * a count larger than the bytes left is a lie, said at once */
	{
		size_t min = vtypes[at].size ? (size_t)vtypes[at].size :
		    at == GGUF_STR ? 8 : 12;

		if (v->n > (uint64_t)(r->end - r->p) / min) {
			char buf[64];

			snprintf(buf, sizeof buf, "an array of %llu %s",
			    (unsigned long long)v->n, vtypes[at].name);
			return need(r, SIZE_MAX, buf);
		}
	}
	if (vtypes[at].size && at != GGUF_BOOL)
		r->p += (size_t)v->n * (size_t)vtypes[at].size;
	else
		for (i = 0; i < v->n; i++) {
			struct gguf_val e;

			if (getval(r, at, &e, depth + 1) < 0)
				return -1;
		}
	v->size = (size_t)(r->end - v->p) - (size_t)(r->end - r->p);
	return 0;
}

/* ---- the file ---- */

static int
kvcmp(const void *a, const void *b, void *ctx)
{
	const struct gguf *g = ctx;

	return strcmp(g->kv[*(const size_t *)a].key,
	    g->kv[*(const size_t *)b].key);
}

static int
tcmp(const void *a, const void *b, void *ctx)
{
	const struct gguf *g = ctx;

	return strcmp(g->t[*(const size_t *)a].name,
	    g->t[*(const size_t *)b].name);
}

/* A sort with a context: a merge sort of indices (qsort
 * has no context argument in C11). */
static void
isort(size_t *ix, size_t *tmp, size_t n,
    int (*cmp)(const void *, const void *, void *), void *ctx)
{
	size_t h = n / 2, i = 0, j = h, k = 0;

	if (n < 2)
		return;
	isort(ix, tmp, h, cmp, ctx);
	isort(ix + h, tmp, n - h, cmp, ctx);
	while (i < h && j < n)
		tmp[k++] = cmp(&ix[j], &ix[i], ctx) < 0 ? ix[j++] : ix[i++];
	while (i < h)
		tmp[k++] = ix[i++];
	while (j < n)
		tmp[k++] = ix[j++];
	memcpy(ix, tmp, n * sizeof *ix);
}

/* Sort 0..n-1 by cmp into *out; 0, or -1 after error(). */
static int
sorted(size_t **out, size_t n, int (*cmp)(const void *, const void *, void *),
    void *ctx)
{
	size_t *tmp, i;

	if (!(*out = xreallocarray(NULL, n ? n : 1, sizeof **out)))
		return -1;
	if (!(tmp = xreallocarray(NULL, n ? n : 1, sizeof *tmp)))
		return -1;
	for (i = 0; i < n; i++)
		(*out)[i] = i;
	isort(*out, tmp, n, cmp, ctx);
	free(tmp);
	return 0;
}

void
gguf_close(struct gguf *g)
{
	size_t i;

	for (i = 0; g->kv && i < g->nkv; i++)
		free(g->kv[i].key);
	free(g->kv);
	for (i = 0; g->t && i < g->n; i++)
		free(g->t[i].name);
	free(g->t);
	free(g->kvsort);
	free(g->tsort);
	if (g->base) {
		st_guard_drop(g->base);
		munmap((void *)g->base, g->len);
	}
	free(g->path);
	memset(g, 0, sizeof *g);
}

int
gguf_probe(const char *path)
{
	unsigned char m[4];
	int fd, ok;

	if ((fd = open(path, O_RDONLY | O_NONBLOCK)) < 0)
		return 0;
	ok = read(fd, m, 4) == 4 && !memcmp(m, "GGUF", 4);
	close(fd);
	return ok;
}

/* Map path into g->base. */
static int
mapfile(struct gguf *g, const char *path)
{
	void *base;

	if (st_map_path(path, 24, "a GGUF header", &base, &g->len) < 0)
		return -1;
	g->base = base;
	return 0;
}

static int
readkv(struct gguf *g, struct rd *r, uint64_t nkv)
{
	uint64_t i, klen;
	const unsigned char *k;
	uint32_t type;

	if (nkv > g->len / 13)	/* a key of one byte, a u8: 13 bytes */
		return error("%s: %llu metadata entries in a file of %zu "
		    "bytes", g->path, (unsigned long long)nkv, g->len);
	if (!(g->kv = xcalloc(nkv ? (size_t)nkv : 1, sizeof *g->kv)))
		return -1;
	for (i = 0; i < nkv; i++) {
		struct gguf_kv *kv = &g->kv[i];

		snprintf(r->whatbuf, sizeof r->whatbuf, "metadata entry %llu",
		    (unsigned long long)i);
		r->what = r->whatbuf;
		if (getstr(r, &k, &klen, "its key") < 0)
			return -1;
		if (!klen || klen > GGUF_MAXKEY || memchr(k, 0, (size_t)klen))
			return error("%s: %s: key %s", g->path, r->what, !klen ?
			    "is empty" : klen > GGUF_MAXKEY ? "too long" :
			    "holds a NUL");
		if (!(kv->key = xmemdup(k, (size_t)klen)))
			return -1;
		g->nkv++;
		snprintf(r->whatbuf, sizeof r->whatbuf, "%.80s", kv->key);
		if (get32(r, &type, "its type") < 0 ||
		    getval(r, type, &kv->v, 0) < 0)
			return -1;
	}
	if (sorted(&g->kvsort, g->nkv, kvcmp, g) < 0)
		return -1;
	for (i = 1; i < g->nkv; i++)
		if (!strcmp(g->kv[g->kvsort[i]].key, g->kv[g->kvsort[i - 1]].key))
			return error("%s: duplicate key %s", g->path,
			    g->kv[g->kvsort[i]].key);
	return 0;
}

static int
readtensor(struct gguf *g, struct rd *r, struct gguf_tensor *t)
{
	const unsigned char *s;
	uint64_t len, d;
	uint32_t ndim, type;
	size_t nel = 1, nb;
	int j;

	if (getstr(r, &s, &len, "its name") < 0)
		return -1;
	if (!len || len > GGUF_MAXNAME || memchr(s, 0, (size_t)len))
		return error("%s: %s: name %s", g->path, r->what, !len ?
		    "is empty" : len > GGUF_MAXNAME ? "too long" :
		    "holds a NUL");
	if (!(t->name = xmemdup(s, (size_t)len)))
		return -1;
	g->n++;
	snprintf(r->whatbuf, sizeof r->whatbuf, "tensor %.80s", t->name);
	if (get32(r, &ndim, "its dimension count") < 0)
		return -1;
	if (ndim < 1 || ndim > GGUF_MAXDIM)
		return error("%s: %s: %u dimensions (1 to %d)", g->path, r->what,
		    ndim, GGUF_MAXDIM);
	t->ndim = (int)ndim;
	for (j = 0; j < GGUF_MAXDIM; j++) {
		t->dims[j] = 1;
		if (j >= t->ndim)
			continue;
		if (get64(r, &d, "its dimensions") < 0)
			return -1;
		if (!d || d > INT64_MAX)
			return error("%s: %s: dimension %d is %llu", g->path,
			    r->what, j, (unsigned long long)d);
		t->dims[j] = (int64_t)d;
		if (d > SIZE_MAX || size_mul(&nel, nel, (size_t)d) < 0 ||
		    nel > INT64_MAX)
			return error("%s: %s: element count overflows",
			    g->path, r->what);
	}
	t->nel = nel;
	if (get32(r, &type, "its type") < 0)
		return -1;
	t->type = type;
	if (!(t->ti = ggml_type(type)))
		return error("%s: %s: unknown ggml type %u", g->path, r->what,
		    type);
	if (t->dims[0] % t->ti->block)
		return error("%s: %s: rows of %lld elements are not whole "
		    "blocks of %s (%d)", g->path, r->what,
		    (long long)t->dims[0], t->ti->name, t->ti->block);
	t->rowbytes = (size_t)(t->dims[0] / t->ti->block) * (size_t)t->ti->bytes;
	if (size_mul(&nb, nel / (size_t)t->ti->block, (size_t)t->ti->bytes) < 0)
		return error("%s: %s: byte size overflows", g->path, r->what);
	t->nbytes = nb;
	if (get64(r, &d, "its offset") < 0)
		return -1;
	t->offset = d > SIZE_MAX ? SIZE_MAX : (size_t)d;	/* checked later */
	return 0;
}

static int
offcmp(const void *a, const void *b, void *ctx)
{
	const struct gguf *g = ctx;
	const struct gguf_tensor *x = &g->t[*(const size_t *)a];
	const struct gguf_tensor *y = &g->t[*(const size_t *)b];

	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	return 0;
}

/* Each tensor's data aligned, in the data section, apart from the
 * others; then the offsets made absolute. */
static int
checkdata(struct gguf *g)
{
	size_t datalen = g->len - g->dataoff, i, *by = NULL, end = 0;
	const struct gguf_tensor *last = NULL;
	int ret = -1;

	for (i = 0; i < g->n; i++) {
		struct gguf_tensor *t = &g->t[i];

		if (t->offset % g->alignment)
			return error("%s: tensor %s: offset %zu is not a "
			    "multiple of the alignment (%zu)", g->path, t->name,
			    t->offset, g->alignment);
		if (t->offset > datalen || t->nbytes > datalen - t->offset)
			return error("%s: tensor %s: %zu bytes at offset %zu "
			    "past the end of the data section (%zu bytes)",
			    g->path, t->name, t->nbytes, t->offset, datalen);
	}
	if (sorted(&by, g->n, offcmp, g) < 0)
		goto out;
	for (i = 0; i < g->n; i++) {
		const struct gguf_tensor *t = &g->t[by[i]];

		if (last && t->offset < end) {
			error("%s: tensors %s and %s overlap", g->path,
			    last->name, t->name);
			goto out;
		}
		end = t->offset + t->nbytes;
		last = t;
	}
	for (i = 0; i < g->n; i++) {
		g->t[i].offset += g->dataoff;
		g->t[i].data = g->base + g->t[i].offset;
	}
	ret = 0;
out:
	free(by);
	return ret;
}

int
gguf_open(struct gguf *g, const char *path)
{
	struct rd r = { 0 };
	uint64_t nt, nkv, i;
	int64_t al;
	size_t pos;

	memset(g, 0, sizeof *g);
	if (!(g->path = xstrdup(path)) || mapfile(g, path) < 0)
		goto fail;
	r.path = path;
	r.p = g->base;
	r.end = g->base + g->len;
	r.what = "header";
	if (memcmp(g->base, "GGUF", 4)) {
		error("%s: not a GGUF file (no GGUF magic)", path);
		goto fail;
	}
	g->version = rd32(g->base + 4);
	if (g->version != 2 && g->version != 3) {
		if (g->version == 1)
			error("%s: GGUF version 1 (32-bit counts) is not read; "
			    "convert it again", path);
		else if ((g->version & 0xffff) == 0 && g->version)
			error("%s: a big-endian GGUF file (version %u "
			    "byte-swapped) is not read", path,
			    (unsigned)__builtin_bswap32(g->version));
		else
			error("%s: unknown GGUF version %u", path,
			    (unsigned)g->version);
		goto fail;
	}
	r.p += 8;
	nt = rd64(r.p), nkv = rd64(r.p + 8);
	r.p += 16;
	if (readkv(g, &r, nkv) < 0)
		goto fail;
	g->alignment = GGUF_ALIGNMENT;
	{
		const struct gguf_kv *a = gguf_find(g, "general.alignment");

		if (a && a->v.type != GGUF_U32) {
			error("%s: general.alignment is a %s, not a u32", path,
			    gguf_vtype_name(a->v.type));
			goto fail;
		}
		if (a) {
			al = rd32(a->v.p);
			if (!al || (al & (al - 1))) {
				error("%s: general.alignment %lld is not a "
				    "power of 2", path, (long long)al);
				goto fail;
			}
			g->alignment = (size_t)al;
		}
	}
	/* a tensor info takes 33 bytes at least */
	if (nt > (g->len - (size_t)(r.p - g->base)) / 33) {
		error("%s: %llu tensors in a file of %zu bytes", path,
		    (unsigned long long)nt, g->len);
		goto fail;
	}
	if (!(g->t = xcalloc(nt ? (size_t)nt : 1, sizeof *g->t)))
		goto fail;
	for (i = 0; i < nt; i++) {
		snprintf(r.whatbuf, sizeof r.whatbuf, "tensor %llu",
		    (unsigned long long)i);
		r.what = r.whatbuf;
		if (readtensor(g, &r, &g->t[i]) < 0)
			goto fail;
	}
	if (sorted(&g->tsort, g->n, tcmp, g) < 0)
		goto fail;
	for (i = 1; i < g->n; i++)
		if (!strcmp(g->t[g->tsort[i]].name, g->t[g->tsort[i - 1]].name)) {
			error("%s: duplicate tensor name %s", path,
			    g->t[g->tsort[i]].name);
			goto fail;
		}
	/* the data section starts at the next multiple of the alignment */
	pos = (size_t)(r.p - g->base);
	if (pos % g->alignment && g->alignment - pos % g->alignment >
	    g->len - pos) {
		if (g->n) {
			error("%s: the data section (at %zu, aligned to %zu) "
			    "starts past the end of the file (%zu bytes)",
			    path, pos, g->alignment, g->len);
			goto fail;
		}
		g->dataoff = g->len;
	} else
		g->dataoff = pos % g->alignment ? pos + g->alignment -
		    pos % g->alignment : pos;
	if (checkdata(g) < 0)
		goto fail;
	return 0;
fail:
	gguf_close(g);
	return -1;
}

/* ---- lookups ---- */

const struct gguf_kv *
gguf_find(const struct gguf *g, const char *key)
{
	size_t lo = 0, hi = g->nkv;

	if (!g->kvsort)
		return NULL;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(key, g->kv[g->kvsort[mid]].key);

		if (!c)
			return &g->kv[g->kvsort[mid]];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

const struct gguf_tensor *
gguf_tensor(const struct gguf *g, const char *name)
{
	size_t lo = 0, hi = g->n;

	if (!g->tsort)
		return NULL;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(name, g->t[g->tsort[mid]].name);

		if (!c)
			return &g->t[g->tsort[mid]];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

/* ---- values ---- */

static int
isint(enum gguf_vtype t)
{
	return t <= GGUF_I32 || t == GGUF_U64 || t == GGUF_I64;
}

int
gguf_val_int(const struct gguf_val *v, int64_t *out)
{
	uint64_t u;

	switch (v->type) {
	case GGUF_U8: case GGUF_BOOL: *out = v->p[0]; return 0;
	case GGUF_I8: *out = (int8_t)v->p[0]; return 0;
	case GGUF_U16: *out = (uint16_t)(v->p[0] | v->p[1] << 8); return 0;
	case GGUF_I16: *out = (int16_t)(uint16_t)(v->p[0] | v->p[1] << 8);
		return 0;
	case GGUF_U32: *out = rd32(v->p); return 0;
	case GGUF_I32: *out = (int32_t)rd32(v->p); return 0;
	case GGUF_U64:
		if ((u = rd64(v->p)) > INT64_MAX)
			return -1;
		*out = (int64_t)u;
		return 0;
	case GGUF_I64: *out = (int64_t)rd64(v->p); return 0;
	default: return -1;
	}
}

int
gguf_val_float(const struct gguf_val *v, double *out)
{
	uint32_t u;
	uint64_t w;
	float f;
	int64_t i;

	switch (v->type) {
	case GGUF_F32:
		u = rd32(v->p);
		memcpy(&f, &u, 4);
		*out = f;
		return 0;
	case GGUF_F64:
		w = rd64(v->p);
		memcpy(out, &w, 8);
		return 0;
	case GGUF_U64:
		*out = (double)rd64(v->p);
		return 0;
	default:
		if (gguf_val_int(v, &i) < 0)
			return -1;
		*out = (double)i;
		return 0;
	}
}

/* The bytes of the value of type t at p (validated at open). */
static size_t
valsize(enum gguf_vtype t, const unsigned char *p)
{
	if (vtypes[t].size)
		return (size_t)vtypes[t].size;
	if (t == GGUF_STR)
		return 8 + (size_t)rd64(p);
	{	/* an array */
		enum gguf_vtype at = rd32(p);
		uint64_t n = rd64(p + 4), i;
		size_t s = 12;

		if (vtypes[at].size)
			return s + (size_t)n * (size_t)vtypes[at].size;
		for (i = 0; i < n; i++)
			s += valsize(at, p + s);
		return s;
	}
}

/* The value of type t at p (validated at open) into *out. */
static void
valat(enum gguf_vtype t, const unsigned char *p, struct gguf_val *out)
{
	memset(out, 0, sizeof *out);
	out->type = t;
	if (t == GGUF_STR) {
		out->n = rd64(p);
		out->p = p + 8;
		out->size = (size_t)out->n;
	} else if (t == GGUF_ARR) {
		out->atype = rd32(p);
		out->n = rd64(p + 4);
		out->p = p + 12;
		out->size = valsize(t, p) - 12;
	} else {
		out->p = p;
		out->size = (size_t)vtypes[t].size;
	}
}

void
gguf_arr_at(const struct gguf_val *arr, uint64_t i, struct gguf_val *out)
{
	const unsigned char *p = arr->p;
	uint64_t k;

	if (vtypes[arr->atype].size) {
		valat(arr->atype, p + (size_t)i * (size_t)vtypes[arr->atype].size,
		    out);
		return;
	}
	for (k = 0; k < i; k++)
		p += valsize(arr->atype, p);
	valat(arr->atype, p, out);
}

void
gguf_it_init(struct gguf_it *it, const struct gguf_val *arr)
{
	it->arr = arr;
	it->i = 0;
	it->p = arr->p;
}

int
gguf_it_next(struct gguf_it *it, struct gguf_val *out)
{
	if (it->arr->type != GGUF_ARR || it->i >= it->arr->n)
		return 0;
	valat(it->arr->atype, it->p, out);
	it->p += valsize(it->arr->atype, it->p);
	it->i++;
	return 1;
}

/* ---- typed reads ---- */

static const struct gguf_kv *
lookup(const struct gguf *g, const char *key, enum gguf_vtype want, int ok)
{
	const struct gguf_kv *kv = gguf_find(g, key);

	if (kv && !ok)
		error("%s: %s is a %s, not a%s %s", g->path, key,
		    gguf_vtype_name(kv->v.type), want == GGUF_ARR ? "n" : "",
		    gguf_vtype_name(want));
	return kv;
}

int
gguf_get_str(const struct gguf *g, const char *key, const char **s,
    size_t *len)
{
	const struct gguf_kv *kv = gguf_find(g, key);

	if (!kv)
		return 1;
	if (kv->v.type != GGUF_STR) {
		lookup(g, key, GGUF_STR, 0);
		return -1;
	}
	*s = (const char *)kv->v.p;
	*len = kv->v.size;
	return 0;
}

int
gguf_get_int(const struct gguf *g, const char *key, int64_t min, int64_t max,
    int64_t *out)
{
	const struct gguf_kv *kv = gguf_find(g, key);
	int64_t v;

	if (!kv)
		return 1;
	if (!isint(kv->v.type)) {
		error("%s: %s is a %s, not an integer", g->path, key,
		    gguf_vtype_name(kv->v.type));
		return -1;
	}
	if (gguf_val_int(&kv->v, &v) < 0 || v < min || v > max) {
		struct buf b = { 0 };

		gguf_val_fmt(&b, &kv->v, 1);
		error("%s: %s is %s, not in [%lld, %lld]", g->path, key,
		    b.s ? b.s : "?", (long long)min, (long long)max);
		buf_free(&b);
		return -1;
	}
	*out = v;
	return 0;
}

int
gguf_get_float(const struct gguf *g, const char *key, double *out)
{
	const struct gguf_kv *kv = gguf_find(g, key);
	double v;

	if (!kv)
		return 1;
	if (kv->v.type == GGUF_STR || kv->v.type == GGUF_ARR ||
	    kv->v.type == GGUF_BOOL) {
		error("%s: %s is a %s, not a number", g->path, key,
		    gguf_vtype_name(kv->v.type));
		return -1;
	}
	gguf_val_float(&kv->v, &v);
	if (!isfinite(v))
		return error("%s: %s is %g, not a finite number", g->path, key,
		    v);
	*out = v;
	return 0;
}

int
gguf_get_bool(const struct gguf *g, const char *key, int *out)
{
	const struct gguf_kv *kv = gguf_find(g, key);

	if (!kv)
		return 1;
	if (kv->v.type != GGUF_BOOL) {
		lookup(g, key, GGUF_BOOL, 0);
		return -1;
	}
	*out = kv->v.p[0];
	return 0;
}

int
gguf_get_arr(const struct gguf *g, const char *key, enum gguf_vtype atype,
    struct gguf_val *out)
{
	const struct gguf_kv *kv = gguf_find(g, key);

	if (!kv)
		return 1;
	if (kv->v.type != GGUF_ARR) {
		lookup(g, key, GGUF_ARR, 0);
		return -1;
	}
	if (atype != GGUF_NVTYPE && kv->v.atype != atype)
		return error("%s: %s is an array of %s, not of %s", g->path,
		    key, gguf_vtype_name(kv->v.atype), gguf_vtype_name(atype));
	*out = kv->v;
	return 0;
}

/* ---- text ---- */

static void
fmtstr(struct buf *b, const unsigned char *s, size_t n)
{
	size_t i;

	buf_addc(b, '"');
	for (i = 0; i < n; i++) {
		unsigned c = s[i];

		if (c == '"' || c == '\\')
			buf_printf(b, "\\%c", c);
		else if (c == '\n')
			buf_adds(b, "\\n");
		else if (c == '\t')
			buf_adds(b, "\\t");
		else if (c == '\r')
			buf_adds(b, "\\r");
		else if (c < 0x20 || c == 0x7f)
			buf_printf(b, "\\u%04x", c);
		else
			buf_addc(b, (int)c);
	}
	buf_addc(b, '"');
}

void
gguf_val_fmt(struct buf *b, const struct gguf_val *v, size_t maxn)
{
	struct gguf_it it;
	struct gguf_val e;
	int64_t i;
	double d;

	switch (v->type) {
	case GGUF_STR:
		fmtstr(b, v->p, v->size);
		return;
	case GGUF_BOOL:
		buf_adds(b, v->p[0] ? "true" : "false");
		return;
	case GGUF_F32:
		gguf_val_float(v, &d);
		buf_printf(b, "%.9g", d);
		return;
	case GGUF_F64:
		gguf_val_float(v, &d);
		buf_printf(b, "%.17g", d);
		return;
	case GGUF_U64:
		buf_printf(b, "%llu", (unsigned long long)rd64(v->p));
		return;
	case GGUF_ARR:
		buf_addc(b, '[');
		for (gguf_it_init(&it, v); it.i < maxn && gguf_it_next(&it, &e);) {
			if (it.i > 1)
				buf_adds(b, ", ");
			gguf_val_fmt(b, &e, maxn);
		}
		if (v->n > it.i)
			buf_printf(b, "%s... (%llu more)", it.i ? ", " : "",
			    (unsigned long long)(v->n - it.i));
		buf_addc(b, ']');
		return;
	default:
		if (gguf_val_int(v, &i) == 0)
			buf_printf(b, "%lld", (long long)i);
		return;
	}
}

void
gguf_type_fmt(struct buf *b, const struct gguf_val *v)
{
	if (v->type != GGUF_ARR) {
		buf_adds(b, gguf_vtype_name(v->type));
		return;
	}
	buf_printf(b, "arr[%s,%llu]", gguf_vtype_name(v->atype),
	    (unsigned long long)v->n);
}

size_t
gguf_bytes_per_token(const struct gguf *g)
{
	const struct gguf_tensor *e = gguf_tensor(g, "token_embd.weight");
	size_t bytes = 0, i;

	for (i = 0; i < g->n; i++)
		bytes += g->t[i].nbytes;
	if (e && gguf_tensor(g, "output.weight"))
		bytes -= e->nbytes - e->rowbytes;
	return bytes;
}
