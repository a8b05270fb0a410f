/* st.c: safetensors reader.  Format:
 * https://github.com/huggingface/safetensors (safetensors/src/tensor.rs,
 * Metadata::validate): 8-byte little-endian header size, JSON header, data. */
#include <sys/mman.h>
#include <sys/stat.h>

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/json.h"
#include "kern/kern.h"
#include "disk/st.h"
#include "base/util.h"

static const struct {
	const char *name;
	size_t size;
	int isfloat;
} dtypes[ST_NDTYPE] = {
	[ST_F64] = { "F64", 8, 1 },
	[ST_F32] = { "F32", 4, 1 },
	[ST_F16] = { "F16", 2, 1 },
	[ST_BF16] = { "BF16", 2, 1 },
	[ST_I64] = { "I64", 8, 0 },
	[ST_I32] = { "I32", 4, 0 },
	[ST_I16] = { "I16", 2, 0 },
	[ST_I8] = { "I8", 1, 0 },
	[ST_U8] = { "U8", 1, 0 },
	[ST_BOOL] = { "BOOL", 1, 0 },
	[ST_F8_E4M3] = { "F8_E4M3", 1, 1 },
	[ST_F8_E5M2] = { "F8_E5M2", 1, 1 },
	[ST_U64] = { "U64", 8, 0 },
	[ST_U32] = { "U32", 4, 0 },
	[ST_U16] = { "U16", 2, 0 },
	[ST_F8_E8M0] = { "F8_E8M0", 1, 1 },
	[ST_C64] = { "C64", 8, 0 },
};

const char *
st_dtype_name(enum st_dtype dt)
{
	return (unsigned)dt < ST_NDTYPE ? dtypes[dt].name : "?";
}

size_t
st_dtype_size(enum st_dtype dt)
{
	return (unsigned)dt < ST_NDTYPE ? dtypes[dt].size : 0;
}

int
st_dtype_isfloat(enum st_dtype dt)
{
	return (unsigned)dt < ST_NDTYPE ? dtypes[dt].isfloat : 0;
}

int
st_dtype_parse(const char *name, enum st_dtype *dt)
{
	int i;

	for (i = 0; i < ST_NDTYPE; i++)
		if (!strcmp(name, dtypes[i].name)) {
			*dt = i;
			return 0;
		}
	return -1;
}

/* ---- conversions ---- */

static double
f8_to_double(uint8_t v, int ebits, int mbits, int bias, int e4m3)
{
	int sign = v >> 7, e = (v >> mbits) & ((1 << ebits) - 1);
	int m = v & ((1 << mbits) - 1);
	double x;

	if (e4m3) {		/* E4M3FN: no infinities, S.1111.111 is NaN */
		if (e == 15 && m == 7)
			return NAN;
	} else if (e == 31)
		return m ? NAN : sign ? -INFINITY : INFINITY;
	if (e)
		x = ldexp(1.0 + (double)m / (1 << mbits), e - bias);
	else
		x = ldexp((double)m / (1 << mbits), 1 - bias);
	return sign ? -x : x;
}

double
st_elem(const struct st_tensor *t, size_t i)
{
	const unsigned char *p = (const unsigned char *)t->data +
	    i * st_dtype_size(t->dtype);
	union {
		double f64; float f32; uint16_t u16; int64_t i64; int32_t i32;
		int16_t i16; uint64_t u64; uint32_t u32;
	} v;

	memcpy(&v, p, st_dtype_size(t->dtype));	/* unaligned-safe, LE host */
	switch (t->dtype) {
	case ST_F64: return v.f64;
	case ST_F32: return v.f32;
	case ST_C64: return v.f32;
	case ST_F16: return conv_f16_to_f32(v.u16);
	case ST_BF16: return conv_bf16_to_f32(v.u16);
	case ST_I64: return (double)v.i64;
	case ST_I32: return v.i32;
	case ST_I16: return v.i16;
	case ST_I8: return (int8_t)*p;
	case ST_U8: return *p;
	case ST_BOOL: return *p != 0;
	case ST_U64: return (double)v.u64;
	case ST_U32: return v.u32;
	case ST_U16: return v.u16;
	case ST_F8_E4M3: return f8_to_double(*p, 4, 3, 7, 1);
	case ST_F8_E5M2: return f8_to_double(*p, 5, 2, 15, 0);
	case ST_F8_E8M0: return *p == 0xff ? NAN : ldexp(1.0, *p - 127);
	default: return NAN;
	}
}

int
st_elem_fmt(const struct st_tensor *t, size_t i, char *buf, size_t len)
{
	const unsigned char *p = (const unsigned char *)t->data +
	    i * st_dtype_size(t->dtype);
	int64_t i64;
	uint64_t u64;

	switch (t->dtype) {
	case ST_I64:
		memcpy(&i64, p, 8);
		return snprintf(buf, len, "%lld", (long long)i64);
	case ST_U64:
		memcpy(&u64, p, 8);
		return snprintf(buf, len, "%llu", (unsigned long long)u64);
	case ST_I32: case ST_I16: case ST_I8: case ST_U8: case ST_BOOL:
	case ST_U32: case ST_U16:
		return snprintf(buf, len, "%.0f", st_elem(t, i));
	case ST_F64:
		return snprintf(buf, len, "%.17g", st_elem(t, i));
	default:
		return snprintf(buf, len, "%.9g", st_elem(t, i));
	}
}

size_t
st_bytes_per_token(const struct st *st, int tied)
{
	const struct st_tensor *emb = st_find(st, "model.embed_tokens.weight");
	size_t bytes = 0, i;

	for (i = 0; i < st->n; i++) {
		size_t len = strlen(st->t[i].name);

		/* a pack-quantized weight's shape, a GPTQ one's g_idx, are
		 * read at load only */
		if ((len < 13 || strcmp(st->t[i].name + len - 13,
		    ".weight_shape")) &&
		    (len < 6 || strcmp(st->t[i].name + len - 6, ".g_idx")))
			bytes += st->t[i].nbytes;
	}
	if (emb && !tied && emb->ndim == 2 && emb->shape[0])
		bytes -= emb->nbytes - emb->nbytes / (size_t)emb->shape[0];
	return bytes;
}

/* ---- reading ---- */

static int
namecmp(const void *a, const void *b)
{
	return strcmp(((const struct st_tensor *)a)->name,
	    ((const struct st_tensor *)b)->name);
}

static int
offcmp(const void *a, const void *b)
{
	const struct st_tensor *x = *(const struct st_tensor *const *)a;
	const struct st_tensor *y = *(const struct st_tensor *const *)b;

	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	return x->nbytes < y->nbytes ? -1 : x->nbytes > y->nbytes;
}

const struct st_tensor *
st_find(const struct st *st, const char *name)
{
	size_t lo = 0, hi = st->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(name, st->t[mid].name);

		if (!c)
			return &st->t[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

void
st_close(struct st *st)
{
	size_t i;

	for (i = 0; i < st->n; i++)
		free(st->t[i].name);
	free(st->t);
	for (i = 0; i < st->nfiles; i++) {
		if (st->maps && st->maps[i].base) {
			st_guard_drop(st->maps[i].base);
			munmap(st->maps[i].base, st->maps[i].len);
		}
		free(st->files[i]);
	}
	free(st->maps);
	free(st->files);
	for (i = 0; i < st->nmeta; i++) {
		free(st->meta[i].key);
		free(st->meta[i].value);
	}
	free(st->meta);
	free(st->index);
	memset(st, 0, sizeof(*st));
}

/* Add a file to st->files and map it; its index, or -1 after error(). */
static int
mapfile(struct st *st, const char *path, size_t *cap)
{
	void *base;
	size_t len;
	int i = (int)st->nfiles;

	if (st->nfiles >= INT_MAX)
		return error("%s: too many files", path);
	if (xgrow(&st->files, cap, st->nfiles + 1, sizeof(*st->files)) < 0)
		return -1;
	{
		void *p = xreallocarray(st->maps, *cap, sizeof(*st->maps));

		if (!p)
			return -1;
		st->maps = p;
	}
	if (!(st->files[i] = xstrdup(path)))
		return -1;
	st->maps[i].base = NULL;
	st->maps[i].len = 0;
	st->nfiles++;
	if (st_map_path(path, 8, "a safetensors header", &base, &len) < 0)
		return -1;
	st->maps[i].base = base;
	st->maps[i].len = len;
	return i;
}

/* A JSON value for a message: a number as written (cut short), else
 * its type ("a string"). */
static const char *
numtext(const struct json *j, char *buf, size_t len)
{
	if (j->type == JSON_NUMBER)
		snprintf(buf, len, "%.40s", j->u.num);
	else
		snprintf(buf, len, "a%s %s", j->type == JSON_ARRAY ||
		    j->type == JSON_OBJECT ? "n" : "", json_typename(j->type));
	return buf;
}

/* shape[0..ndim) as "[d0,d1,...]" into buf, for messages. */
static const char *
shapestr(char *buf, size_t len, const int64_t *shape, int ndim)
{
	size_t o = 0;
	int i;

	o += (size_t)snprintf(buf, len, "[");
	for (i = 0; i < ndim && o < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s%lld", i ? "," : "",
		    (long long)shape[i]);
	if (o < len)
		snprintf(buf + o, len - o, "]");
	return buf;
}

char *
st_shape_fmt(const struct st_tensor *t, char *buf, size_t len)
{
	shapestr(buf, len, t->shape, t->ndim);
	return buf;
}

/* Parse one tensor entry of file fi into *t (name already set). */
static int
parse_tensor(struct st_tensor *t, const struct json *v, const char *path,
    size_t datalen, const unsigned char *base, size_t dataoff)
{
	const struct json *dt, *sh, *off;
	long long x, b, e;
	size_t i, nel = 1, nbytes;
	char buf[256];

	if (v->type != JSON_OBJECT)
		return error("%s: tensor %s: %s instead of an object", path,
		    t->name, json_typename(v->type));
	if (!(dt = json_get(v, "dtype")))
		return error("%s: tensor %s: no dtype", path, t->name);
	if (dt->type != JSON_STRING)
		return error("%s: tensor %s: dtype is not a string", path,
		    t->name);
	if (st_dtype_parse(dt->u.str, &t->dtype) < 0) {
		if (!strcmp(dt->u.str, "F4") || !strncmp(dt->u.str, "F6_", 3))
			return error("%s: tensor %s: unsupported dtype %s",
			    path, t->name, dt->u.str);
		return error("%s: tensor %s: unknown dtype '%.32s'", path,
		    t->name, dt->u.str);
	}
	if (!(sh = json_get(v, "shape")))
		return error("%s: tensor %s: no shape", path, t->name);
	if (sh->type != JSON_ARRAY)
		return error("%s: tensor %s: shape is not an array", path,
		    t->name);
	if (sh->len > ST_MAXDIM)
		return error("%s: tensor %s: %zu dimensions (at most %d)",
		    path, t->name, sh->len, ST_MAXDIM);
	t->ndim = (int)sh->len;
	for (i = 0; i < sh->len; i++) {
		if (json_int(&sh->u.items[i], 0, INT64_MAX, &x) < 0)
			return error("%s: tensor %s: dimension %zu is %s, not "
			    "a non-negative integer", path, t->name, i,
			    numtext(&sh->u.items[i], buf, sizeof(buf)));
		t->shape[i] = x;
		if ((uint64_t)x > SIZE_MAX || size_mul(&nel, nel, (size_t)x) < 0)
			return error("%s: tensor %s: shape %s: element count "
			    "overflows", path, t->name,
			    shapestr(buf, sizeof(buf), t->shape, t->ndim));
	}
	if (size_mul(&nbytes, nel, st_dtype_size(t->dtype)) < 0)
		return error("%s: tensor %s: shape %s: byte size overflows",
		    path, t->name, shapestr(buf, sizeof(buf), t->shape, t->ndim));
	t->nel = nel;
	t->nbytes = nbytes;
	if (!(off = json_get(v, "data_offsets")))
		return error("%s: tensor %s: no data_offsets", path, t->name);
	if (off->type != JSON_ARRAY || off->len != 2)
		return error("%s: tensor %s: data_offsets is not an array of "
		    "two integers", path, t->name);
	for (i = 0; i < 2; i++)
		if (json_int(&off->u.items[i], 0, INT64_MAX, i ? &e : &b) < 0)
			return error("%s: tensor %s: data_offsets[%zu] is %s, "
			    "not a non-negative integer", path, t->name, i,
			    numtext(&off->u.items[i], buf, sizeof(buf)));
	if (b > e)
		return error("%s: tensor %s: data_offsets [%lld,%lld] are "
		    "reversed", path, t->name, b, e);
	if ((unsigned long long)e > datalen)
		return error("%s: tensor %s: data_offsets [%lld,%lld] past the "
		    "end of the data (%zu bytes)", path, t->name, b, e,
		    datalen);
	if ((size_t)(e - b) != nbytes)
		return error("%s: tensor %s: shape %s of %s is %zu bytes but "
		    "data_offsets [%lld,%lld] hold %lld", path, t->name,
		    shapestr(buf, sizeof(buf), t->shape, t->ndim),
		    st_dtype_name(t->dtype), nbytes, b, e, e - b);
	t->offset = dataoff + (size_t)b;
	t->data = base + t->offset;
	return 0;
}

static int
parse_meta(struct st *st, const struct json *v, const char *path)
{
	size_t i;

	if (v->type != JSON_OBJECT)
		return error("%s: __metadata__ is not an object", path);
	if (!(st->meta = xcalloc(v->len, sizeof(*st->meta))))
		return -1;
	for (i = 0; i < v->len; i++) {
		const struct json_member *m = &v->u.members[i];

		if (m->value.type != JSON_STRING)
			return error("%s: __metadata__: %s is a %s, not a "
			    "string", path, m->key,
			    json_typename(m->value.type));
		st->nmeta++;
		if (!(st->meta[i].key = xstrdup(m->key)) ||
		    !(st->meta[i].value = xstrdup(m->value.u.str)))
			return -1;
	}
	return 0;
}

/* Read the header of file fi and append its tensors; first tensor's index
 * in *first. */
static int
readfile(struct st *st, int fi, size_t *cap)
{
	const char *path = st->files[fi];
	const unsigned char *base = st->maps[fi].base;
	size_t len = st->maps[fi].len, datalen, i, n0 = st->n;
	uint64_t hlen = 0;
	struct json_doc doc = { 0 };
	const struct json *root;
	char err[128];
	int ret = -1;

	for (i = 0; i < 8; i++)
		hlen |= (uint64_t)base[i] << (8 * i);
	if (hlen > ST_MAXHEADER)
		return error("%s: header length %llu too large (limit %u)",
		    path, (unsigned long long)hlen, ST_MAXHEADER);
	if (hlen > len - 8)
		return error("%s: header length %llu past the end of the file "
		    "(%zu bytes)", path, (unsigned long long)hlen, len);
	if (hlen < 2 || base[8] != '{')
		return error("%s: header is not a JSON object", path);
	datalen = len - 8 - (size_t)hlen;
	if (json_parse(&doc, (const char *)base + 8, (size_t)hlen, err,
	    sizeof(err)) < 0) {
		error("%s: header: %s", path, err);
		goto out;
	}
	root = doc.root;
	if (root->type != JSON_OBJECT) {
		error("%s: header is not a JSON object", path);
		goto out;
	}
	for (i = 0; i < root->len; i++) {
		const struct json_member *m = &root->u.members[i];
		struct st_tensor *t;

		if (!strcmp(m->key, "__metadata__")) {
			if (fi == 0 && st->meta) {
				error("%s: duplicate __metadata__", path);
				goto out;
			}
			if (fi == 0 && parse_meta(st, &m->value, path) < 0)
				goto out;
			continue;
		}
		if (strlen(m->key) != m->keylen || !m->keylen) {
			error("%s: tensor name is empty or holds a NUL", path);
			goto out;
		}
		if (xgrow(&st->t, cap, st->n + 1, sizeof(*st->t)) < 0)
			goto out;
		t = &st->t[st->n];
		memset(t, 0, sizeof(*t));
		if (!(t->name = xstrdup(m->key)))
			goto out;
		st->n++;
		t->file = fi;
		if (parse_tensor(t, &m->value, path, datalen, base,
		    8 + (size_t)hlen) < 0)
			goto out;
	}
	/* The data is the tensors end to end, as safetensors' own
	 * validation wants it: sorted by offset, each starts where the one
	 * before ended (no two share a byte, no bytes between them or after
	 * the last one). */
	{
		struct st_tensor **by = NULL, *last = NULL;
		size_t k = st->n - n0, end = 8 + (size_t)hlen;

		if (k && !(by = xreallocarray(NULL, k, sizeof(*by))))
			goto out;
		for (i = 0; i < k; i++)
			by[i] = &st->t[n0 + i];
		if (k)
			qsort(by, k, sizeof(*by), offcmp);
		for (i = 0; i < k; i++) {
			if (by[i]->offset < end) {
				error("%s: tensors %s and %s overlap", path,
				    last->name, by[i]->name);
				break;
			}
			if (by[i]->offset > end) {
				error("%s: tensor %s: %zu bytes before its data "
				    "that no tensor holds", path, by[i]->name,
				    by[i]->offset - end);
				break;
			}
			end += by[i]->nbytes;
			last = by[i];
		}
		free(by);
		if (i < k)
			goto out;
		if (end != len) {
			error("%s: %zu bytes after the last tensor's data", path,
			    len - end);
			goto out;
		}
	}
	ret = 0;
out:
	json_free(&doc);
	return ret;
}

static int
endswith(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);

	return n >= m && !strcmp(s + n - m, suf);
}

static char *
joinpath(const char *dir, const char *name)
{
	size_t n = strlen(dir), m = strlen(name);
	char *p = xmalloc(n + m + 2);

	if (!p)
		return NULL;
	memcpy(p, dir, n);
	p[n] = '/';
	memcpy(p + n + 1, name, m + 1);
	return p;
}

static int
open_index(struct st *st, const char *path)
{
	struct json_doc doc = { 0 };
	const struct json *wm;
	char *dir = NULL, *shard = NULL, *mark = NULL;
	size_t i, j, fcap = 0, tcap = 0;
	int ret = -1;

	if (!(st->index = xstrdup(path)) || json_load(&doc, path) < 0)
		goto out;
	if (doc.root->type != JSON_OBJECT) {
		error("%s: not a JSON object", path);
		goto out;
	}
	if (!(wm = json_get(doc.root, "weight_map"))) {
		error("%s: no weight_map", path);
		goto out;
	}
	if (wm->type != JSON_OBJECT) {
		error("%s: weight_map is not an object", path);
		goto out;
	}
	if (!wm->len) {
		error("%s: weight_map is empty", path);
		goto out;
	}
	if (!(dir = path_dir(path)))
		goto out;
	/* open each distinct shard once, in order of first mention */
	for (i = 0; i < wm->len; i++) {
		const struct json_member *m = &wm->u.members[i];
		const char *f;
		int seen = 0;

		if (m->value.type != JSON_STRING) {
			error("%s: weight_map: %s: file name is not a string",
			    path, m->key);
			goto out;
		}
		f = m->value.u.str;
		if (!*f || strchr(f, '/') || !strcmp(f, ".") ||
		    !strcmp(f, "..") || strlen(f) != m->value.len) {
			error("%s: weight_map: %s: bad file name '%.64s'", path,
			    m->key, f);
			goto out;
		}
		/* against the shards opened so far: a hostile index with
		 * many names fails at the first missing one, so this stays
		 * cheap */
		for (j = 0; j < st->nfiles && !seen; j++) {
			const char *b = strrchr(st->files[j], '/');
			seen = !strcmp(b ? b + 1 : st->files[j], f);
		}
		if (seen)
			continue;
		if (!(shard = joinpath(dir, f)))
			goto out;
		if (mapfile(st, shard, &fcap) < 0 ||
		    readfile(st, (int)st->nfiles - 1, &tcap) < 0)
			goto out;
		free(shard);
		shard = NULL;
	}
	/* every tensor of every shard is listed, with its own file */
	if (st->n > 1)
		qsort(st->t, st->n, sizeof(*st->t), namecmp);
	for (i = 1; i < st->n; i++)
		if (!strcmp(st->t[i - 1].name, st->t[i].name)) {
			error("%s: tensor %s is in both %s and %s", path,
			    st->t[i].name, st->files[st->t[i - 1].file],
			    st->files[st->t[i].file]);
			goto out;
		}
	if (!(mark = xcalloc(st->n, 1)))
		goto out;
	for (i = 0; i < wm->len; i++) {
		const struct json_member *m = &wm->u.members[i];
		const struct st_tensor *t = st_find(st, m->key);
		const char *base;

		if (!t) {
			error("%s: weight_map: tensor %s not found in %s", path,
			    m->key, m->value.u.str);
			goto out;
		}
		base = strrchr(st->files[t->file], '/');
		base = base ? base + 1 : st->files[t->file];
		if (strcmp(base, m->value.u.str)) {
			error("%s: weight_map: tensor %s is in %s, not in %s",
			    path, m->key, st->files[t->file], m->value.u.str);
			goto out;
		}
		if (mark[t - st->t]++) {
			error("%s: weight_map: tensor %s listed twice", path,
			    m->key);
			goto out;
		}
	}
	for (i = 0; i < st->n; i++)
		if (!mark[i]) {
			error("%s: weight_map: tensor %s of %s not listed", path,
			    st->t[i].name, st->files[st->t[i].file]);
			goto out;
		}
	ret = 0;
out:
	free(mark);
	free(shard);
	free(dir);
	json_free(&doc);
	return ret;
}

int
st_open(struct st *st, const char *path)
{
	static const char *const names[] = { "model.safetensors",
		"model.safetensors.index.json" };	/* in this order */
	struct stat sb;
	size_t fcap = 0, tcap = 0, i;
	char *p = NULL;
	int ret;

	memset(st, 0, sizeof(*st));
	if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
		for (i = 0; i < LEN(names); i++) {
			if (!(p = joinpath(path, names[i])))
				return -1;
			ret = access(p, F_OK) == 0 ? st_open(st, p) : 1;
			free(p);
			if (ret <= 0)
				return ret;
		}
		return error("%s: no model.safetensors or "
		    "model.safetensors.index.json", path);
	}
	if (endswith(path, ".json")) {
		if (open_index(st, path) < 0)
			goto fail;
		return 0;
	}
	if (mapfile(st, path, &fcap) < 0 || readfile(st, 0, &tcap) < 0)
		goto fail;
	if (st->n > 1)
		qsort(st->t, st->n, sizeof(*st->t), namecmp);
	for (i = 1; i < st->n; i++)
		if (!strcmp(st->t[i - 1].name, st->t[i].name)) {
			error("%s: duplicate tensor name %s", path,
			    st->t[i].name);
			goto fail;
		}
	return 0;
fail:
	st_close(st);
	return -1;
}
