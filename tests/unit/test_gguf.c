/* test_gguf.c: the GGUF reader on files written here: every value type,
 * arrays of arrays, both versions, an alignment of its own, tensors of
 * float and block types; then malformed files (each prefix of a good
 * one, lying counts and lengths, unknown types, bad alignment, offsets
 * and shapes, duplicates, nesting too deep), each refused with a message
 * naming the file and what is wrong. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../lib/disk/gguf.h"
#include "../../lib/base/util.h"
#include "test.h"

static char path[64];
static char lastmsg[512];

static void
hook(const char *msg)
{
	snprintf(lastmsg, sizeof lastmsg, "%s", msg);
}

/* ---- a writer ---- */

static void
u8(struct buf *b, unsigned v)
{
	buf_addc(b, (int)v);
}

static void
u32(struct buf *b, uint32_t v)
{
	buf_add(b, &v, 4);
}

static void
u64(struct buf *b, uint64_t v)
{
	buf_add(b, &v, 8);
}

static void
str(struct buf *b, const char *s)
{
	u64(b, strlen(s));
	buf_adds(b, s);
}

static void
pad(struct buf *b, size_t align)
{
	while (b->len % align)
		u8(b, 0);
}

static void
header(struct buf *b, uint32_t version, uint64_t nt, uint64_t nkv)
{
	buf_add(b, "GGUF", 4);
	u32(b, version);
	u64(b, nt);
	u64(b, nkv);
}

static void
tinfo(struct buf *b, const char *name, int ndim, const uint64_t *dims,
    uint32_t type, uint64_t off)
{
	int i;

	str(b, name);
	u32(b, (uint32_t)ndim);
	for (i = 0; i < ndim; i++)
		u64(b, dims[i]);
	u32(b, type);
	u64(b, off);
}

static int
writefile(const struct buf *b)
{
	FILE *f = fopen(path, "wb");

	if (!f)
		return -1;
	if (b->len && fwrite(b->s, 1, b->len, f) != b->len) {
		fclose(f);
		return -1;
	}
	return fclose(f);
}

/* The good file: version v, alignment 64 (or the default when v is 2),
 * every value type, and three tensors. */
static void
goodfile(struct buf *b, uint32_t v)
{
	uint64_t d1[1] = { 5 }, d2[2] = { 32, 3 }, d3[3] = { 2, 2, 2 };
	float f = 1.5f;
	double x = -2.25;
	int nkv = v == 3 ? 19 : 18;
	size_t al = v == 3 ? 64 : 32, start, i;

	header(b, v, 3, (uint64_t)nkv);
	str(b, "general.architecture"), u32(b, GGUF_STR), str(b, "llama");
	if (v == 3)
		str(b, "general.alignment"), u32(b, GGUF_U32), u32(b, 64);
	str(b, "k.u8"), u32(b, GGUF_U8), u8(b, 200);
	str(b, "k.i8"), u32(b, GGUF_I8), u8(b, 0x80);
	str(b, "k.u16"), u32(b, GGUF_U16), u8(b, 0x34), u8(b, 0x12);
	str(b, "k.i16"), u32(b, GGUF_I16), u8(b, 0xff), u8(b, 0xff);
	str(b, "k.u32"), u32(b, GGUF_U32), u32(b, 4000000000u);
	str(b, "k.i32"), u32(b, GGUF_I32), u32(b, (uint32_t)-7);
	str(b, "k.f32"), u32(b, GGUF_F32), buf_add(b, &f, 4);
	str(b, "k.bool"), u32(b, GGUF_BOOL), u8(b, 1);
	str(b, "k.u64"), u32(b, GGUF_U64), u64(b, UINT64_MAX);
	str(b, "k.i64"), u32(b, GGUF_I64), u64(b, (uint64_t)-5);
	str(b, "k.f64"), u32(b, GGUF_F64), buf_add(b, &x, 8);
	str(b, "k.str"), u32(b, GGUF_STR), str(b, "a \"q\"\n");
	str(b, "k.arr.i32"), u32(b, GGUF_ARR), u32(b, GGUF_I32), u64(b, 3);
	u32(b, 1), u32(b, 2), u32(b, (uint32_t)-3);
	str(b, "k.arr.str"), u32(b, GGUF_ARR), u32(b, GGUF_STR), u64(b, 3);
	str(b, "x"), str(b, ""), str(b, "zzz");
	str(b, "k.arr.bool"), u32(b, GGUF_ARR), u32(b, GGUF_BOOL), u64(b, 2);
	u8(b, 0), u8(b, 1);
	/* [[1, 2], ["s"], []] */
	str(b, "k.arr.arr"), u32(b, GGUF_ARR), u32(b, GGUF_ARR), u64(b, 3);
	u32(b, GGUF_U8), u64(b, 2), u8(b, 1), u8(b, 2);
	u32(b, GGUF_STR), u64(b, 1), str(b, "s");
	u32(b, GGUF_F32), u64(b, 0);
	str(b, "k.arr.empty"), u32(b, GGUF_ARR), u32(b, GGUF_F64), u64(b, 0);
	/* f32 [5] at 0, q8_0 [32,3] at al, f16 [2,2,2] after it */
	tinfo(b, "t.f32", 1, d1, GGML_F32, 0);
	tinfo(b, "t.q8", 2, d2, GGML_Q8_0, al);
	tinfo(b, "t.f16", 3, d3, GGML_F16, al + ((3 * 34 + al - 1) / al) * al);
	pad(b, al);
	start = b->len;
	for (i = 0; i < 5; i++) {
		f = (float)i;
		buf_add(b, &f, 4);
	}
	pad(b, al);
	for (i = 0; i < 3 * 34; i++)
		u8(b, (unsigned)i);
	pad(b, al);
	for (i = 0; i < 8; i++)
		u8(b, 0), u8(b, 0x3c);	/* f16 1.0 */
	(void)start;
}

static void
test_good(uint32_t v)
{
	struct buf b = { 0 };
	struct gguf g;
	const struct gguf_tensor *t;
	const struct gguf_kv *kv;
	struct gguf_val a, e;
	struct gguf_it it;
	struct buf s = { 0 };
	const char *sp;
	size_t len;
	int64_t i;
	double d;
	int bo;
	float f;

	goodfile(&b, v);
	CHECK(buf_ok(&b) == 0 && writefile(&b) == 0);
	CHECK(gguf_probe(path));
	if (gguf_open(&g, path) < 0) {
		CHECKF(0, "good file v%u refused: %s", v, lastmsg);
		buf_free(&b);
		return;
	}
	EQ(g.version, v);
	EQ(g.alignment, v == 3 ? 64 : 32);
	EQ(g.nkv, v == 3 ? 19 : 18);
	EQ(g.n, 3);
	EQ(g.dataoff % g.alignment, 0);
	CHECK(!strcmp(g.kv[0].key, "general.architecture"));
	CHECK(gguf_get_str(&g, "general.architecture", &sp, &len) == 0 &&
	    len == 5 && !memcmp(sp, "llama", 5));
	CHECK(gguf_get_int(&g, "k.u8", 0, 255, &i) == 0 && i == 200);
	CHECK(gguf_get_int(&g, "k.i8", -128, 127, &i) == 0 && i == -128);
	CHECK(gguf_get_int(&g, "k.u16", 0, 70000, &i) == 0 && i == 0x1234);
	CHECK(gguf_get_int(&g, "k.i16", -5, 5, &i) == 0 && i == -1);
	CHECK(gguf_get_int(&g, "k.u32", 0, INT64_MAX, &i) == 0 &&
	    i == 4000000000LL);
	CHECK(gguf_get_int(&g, "k.i32", INT32_MIN, 0, &i) == 0 && i == -7);
	CHECK(gguf_get_int(&g, "k.i64", -10, 10, &i) == 0 && i == -5);
	CHECK(gguf_get_float(&g, "k.f32", &d) == 0 && d == 1.5);
	CHECK(gguf_get_float(&g, "k.f64", &d) == 0 && d == -2.25);
	CHECK(gguf_get_float(&g, "k.u32", &d) == 0 && d == 4e9);
	CHECK(gguf_get_bool(&g, "k.bool", &bo) == 0 && bo == 1);
	CHECK(gguf_get_str(&g, "k.str", &sp, &len) == 0 && len == 6);
	/* absent keys, and the types refused with a message */
	CHECK(gguf_get_int(&g, "nope", 0, 1, &i) == 1);
	CHECK(gguf_get_str(&g, "nope", &sp, &len) == 1);
	CHECK(gguf_find(&g, "nope") == NULL && gguf_find(&g, "k.u") == NULL);
	CHECK(gguf_get_int(&g, "k.u64", 0, INT64_MAX, &i) < 0 &&
	    strstr(lastmsg, "k.u64 is 18446744073709551615, not in"));
	CHECK(gguf_get_int(&g, "k.u32", 0, 100, &i) < 0 &&
	    strstr(lastmsg, path) && strstr(lastmsg, "not in [0, 100]"));
	CHECK(gguf_get_int(&g, "k.str", 0, 100, &i) < 0 &&
	    strstr(lastmsg, "k.str is a str, not an integer"));
	CHECK(gguf_get_int(&g, "k.bool", 0, 100, &i) < 0);
	CHECK(gguf_get_str(&g, "k.u8", &sp, &len) < 0 &&
	    strstr(lastmsg, "k.u8 is a u8, not a str"));
	CHECK(gguf_get_bool(&g, "k.u8", &bo) < 0);
	CHECK(gguf_get_float(&g, "k.arr.i32", &d) < 0 &&
	    strstr(lastmsg, "not a number"));
	CHECK(gguf_get_arr(&g, "k.u8", GGUF_NVTYPE, &a) < 0 &&
	    strstr(lastmsg, "not an arr"));
	CHECK(gguf_get_arr(&g, "k.arr.i32", GGUF_STR, &a) < 0 &&
	    strstr(lastmsg, "an array of i32, not of str"));
	/* arrays */
	CHECK(gguf_get_arr(&g, "k.arr.i32", GGUF_I32, &a) == 0 && a.n == 3);
	gguf_arr_at(&a, 2, &e);
	CHECK(e.type == GGUF_I32 && gguf_val_int(&e, &i) == 0 && i == -3);
	CHECK(gguf_get_arr(&g, "k.arr.str", GGUF_STR, &a) == 0 && a.n == 3);
	gguf_arr_at(&a, 2, &e);
	CHECK(e.type == GGUF_STR && e.size == 3 && !memcmp(e.p, "zzz", 3));
	gguf_it_init(&it, &a);
	len = 0;
	while (gguf_it_next(&it, &e))
		len += e.size;
	EQ(len, 4);
	CHECK(gguf_get_arr(&g, "k.arr.arr", GGUF_ARR, &a) == 0 && a.n == 3);
	gguf_arr_at(&a, 1, &e);
	CHECK(e.type == GGUF_ARR && e.atype == GGUF_STR && e.n == 1);
	gguf_val_fmt(&s, &a, 8);
	CHECK(s.s && !strcmp(s.s, "[[1, 2], [\"s\"], []]"));
	buf_free(&s);
	kv = gguf_find(&g, "k.str");
	gguf_val_fmt(&s, &kv->v, 8);
	CHECK(s.s && !strcmp(s.s, "\"a \\\"q\\\"\\n\""));
	buf_free(&s);
	CHECK(gguf_get_arr(&g, "k.arr.str", GGUF_NVTYPE, &a) == 0);
	gguf_val_fmt(&s, &a, 2);
	CHECK(s.s && !strcmp(s.s, "[\"x\", \"\", ... (1 more)]"));
	buf_free(&s);
	gguf_type_fmt(&s, &a);
	CHECK(s.s && !strcmp(s.s, "arr[str,3]"));
	buf_free(&s);
	kv = gguf_find(&g, "k.f32");
	gguf_val_fmt(&s, &kv->v, 8);
	buf_adds(&s, " ");
	gguf_val_fmt(&s, &gguf_find(&g, "k.i8")->v, 8);
	buf_adds(&s, " ");
	gguf_val_fmt(&s, &gguf_find(&g, "k.bool")->v, 8);
	buf_adds(&s, " ");
	gguf_val_fmt(&s, &gguf_find(&g, "k.u64")->v, 8);
	CHECK(s.s && !strcmp(s.s, "1.5 -128 true 18446744073709551615"));
	buf_free(&s);
	CHECK(gguf_get_arr(&g, "k.arr.empty", GGUF_F64, &a) == 0 && a.n == 0);
	gguf_it_init(&it, &a);
	CHECK(!gguf_it_next(&it, &e));
	/* tensors */
	CHECK(gguf_tensor(&g, "t") == NULL);
	CHECK((t = gguf_tensor(&g, "t.f32")) != NULL);
	if (t) {
		EQ(t->ndim, 1);
		EQ(t->nel, 5);
		EQ(t->nbytes, 20);
		EQ(t->offset, g.dataoff);
		memcpy(&f, (const char *)t->data + 16, 4);
		CHECK(f == 4.0f);
	}
	CHECK((t = gguf_tensor(&g, "t.q8")) != NULL);
	if (t) {
		EQ(t->dims[0], 32);
		EQ(t->dims[1], 3);
		EQ(t->dims[2], 1);
		EQ(t->rowbytes, 34);
		EQ(t->nbytes, 102);
		CHECK(!strcmp(t->ti->name, "q8_0"));
		EQ(((const unsigned char *)t->data)[101], 101);
		EQ(t->offset % g.alignment, 0);
	}
	CHECK((t = gguf_tensor(&g, "t.f16")) != NULL);
	if (t) {
		EQ(t->nel, 8);
		EQ(t->offset + t->nbytes, g.len);
	}
	EQ(&g.t[1] - gguf_tensor(&g, "t.q8"), 0);
	gguf_close(&g);
	gguf_close(&g);		/* a closed one again: nothing */
	buf_free(&b);
}

/* Expect path's bytes b to be refused with a message holding want (and
 * the path). */
static void
refused(const struct buf *b, const char *want, int line)
{
	struct gguf g;

	lastmsg[0] = 0;
	if (writefile(b) < 0) {
		test_fail(__FILE__, line, "cannot write %s", path);
		return;
	}
	if (gguf_open(&g, path) == 0) {
		test_fail(__FILE__, line, "accepted, expected '%s'", want);
		gguf_close(&g);
		return;
	}
	if (!strstr(lastmsg, want) || strncmp(lastmsg, path, strlen(path)))
		test_fail(__FILE__, line, "message '%s', expected '%s'", lastmsg,
		    want);
	CHECK(g.base == NULL && g.kv == NULL && g.t == NULL);
}
#define REFUSED(b, want) refused(b, want, __LINE__)

/* A file with one metadata entry, written by f, and no tensors. */
static void
onekv(struct buf *b, const char *key, uint32_t type)
{
	memset(b, 0, sizeof *b);
	header(b, 3, 0, 1);
	str(b, key);
	u32(b, type);
}

/* A file with one tensor: name, dims, type, offset, data bytes after. */
static void
onet(struct buf *b, const char *name, int ndim, const uint64_t *dims,
    uint32_t type, uint64_t off, size_t data)
{
	memset(b, 0, sizeof *b);
	header(b, 3, 1, 0);
	tinfo(b, name, ndim, dims, type, off);
	pad(b, 32);
	while (data--)
		u8(b, 0);
}

static void
test_bad(void)
{
	struct buf b = { 0 }, good = { 0 };
	uint64_t d[5] = { 32, 2, 1, 1, 1 };
	size_t n;
	int i;

	/* every prefix of the good file is refused */
	goodfile(&good, 3);
	for (n = 0; n < good.len; n++) {
		struct gguf g;

		b.s = good.s, b.len = n;
		if (writefile(&b) == 0 && gguf_open(&g, path) == 0) {
			CHECKF(0, "a prefix of %zu bytes (of %zu) accepted", n,
			    good.len);
			gguf_close(&g);
			break;
		}
	}
	b.s = good.s, b.len = 3;
	REFUSED(&b, "file too short");
	memset(&b, 0, sizeof b);
	b.s = NULL;
	/* the header */
	memcpy(good.s, "GGUG", 4);
	REFUSED(&good, "not a GGUF file");
	CHECK(!gguf_probe(path));
	memcpy(good.s, "GGUF", 4);
	memcpy(good.s + 4, "\1\0\0\0", 4);
	REFUSED(&good, "version 1");
	memcpy(good.s + 4, "\0\0\0\3", 4);
	REFUSED(&good, "big-endian");
	memcpy(good.s + 4, "\7\0\0\0", 4);
	REFUSED(&good, "unknown GGUF version 7");
	memcpy(good.s + 4, "\3\0\0\0", 4);
	memcpy(good.s + 16, "\377\377\377\377\377\377\377\377", 8);
	REFUSED(&good, "18446744073709551615 metadata entries");
	memcpy(good.s + 16, "\23\0\0\0\0\0\0\0", 8);
	memcpy(good.s + 8, "\0\0\0\0\0\0\0\1", 8);
	REFUSED(&good, "72057594037927936 tensors");
	buf_free(&good);

	/* metadata */
	onekv(&b, "a", 99), u8(&b, 0);
	REFUSED(&b, "a: unknown value type 99");
	buf_free(&b);
	onekv(&b, "a", GGUF_BOOL), u8(&b, 2);
	REFUSED(&b, "bool value 2");
	buf_free(&b);
	onekv(&b, "a", GGUF_STR), u64(&b, 1000);
	buf_adds(&b, "short");
	REFUSED(&b, "a: a string of 1000 bytes past the end");
	buf_free(&b);
	onekv(&b, "a", GGUF_STR), u64(&b, UINT64_MAX);
	REFUSED(&b, "past the end");
	buf_free(&b);
	onekv(&b, "a", GGUF_ARR), u32(&b, GGUF_U32), u64(&b, 1u << 30);
	u32(&b, 0);
	REFUSED(&b, "an array of 1073741824 u32 past the end");
	buf_free(&b);
	onekv(&b, "a", GGUF_ARR), u32(&b, GGUF_STR), u64(&b, UINT64_MAX / 2);
	REFUSED(&b, "past the end");
	buf_free(&b);
	onekv(&b, "a", GGUF_ARR), u32(&b, 13), u64(&b, 0);
	REFUSED(&b, "array of unknown value type 13");
	buf_free(&b);
	onekv(&b, "a", GGUF_ARR), u32(&b, GGUF_BOOL), u64(&b, 3);
	u8(&b, 1), u8(&b, 0), u8(&b, 255);
	REFUSED(&b, "bool value 255");
	buf_free(&b);
	onekv(&b, "a", GGUF_ARR);	/* nested past the limit */
	for (i = 0; i < GGUF_MAXDEPTH; i++)
		u32(&b, GGUF_ARR), u64(&b, 1);
	u32(&b, GGUF_U8), u64(&b, 0);
	REFUSED(&b, "nested more than 8 deep");
	buf_free(&b);
	onekv(&b, "a", GGUF_ARR);	/* at the limit: read */
	for (i = 0; i < GGUF_MAXDEPTH - 1; i++)
		u32(&b, GGUF_ARR), u64(&b, 1);
	u32(&b, GGUF_U8), u64(&b, 0);
	{
		struct gguf g;

		CHECK(writefile(&b) == 0 && gguf_open(&g, path) == 0);
		gguf_close(&g);
	}
	buf_free(&b);
	onekv(&b, "", GGUF_U8), u8(&b, 0);
	REFUSED(&b, "key is empty");
	buf_free(&b);
	memset(&b, 0, sizeof b);
	header(&b, 3, 0, 1);
	u64(&b, 3), buf_add(&b, "a\0b", 3), u32(&b, GGUF_U8), u8(&b, 0);
	REFUSED(&b, "key holds a NUL");
	buf_free(&b);
	memset(&b, 0, sizeof b);
	header(&b, 3, 0, 2);
	str(&b, "k"), u32(&b, GGUF_U8), u8(&b, 0);
	str(&b, "k"), u32(&b, GGUF_U8), u8(&b, 0);
	REFUSED(&b, "duplicate key k");
	buf_free(&b);
	onekv(&b, "general.alignment", GGUF_U64), u64(&b, 32);
	REFUSED(&b, "general.alignment is a u64, not a u32");
	buf_free(&b);
	onekv(&b, "general.alignment", GGUF_U32), u32(&b, 48);
	REFUSED(&b, "general.alignment 48 is not a power of 2");
	buf_free(&b);
	onekv(&b, "general.alignment", GGUF_U32), u32(&b, 0);
	REFUSED(&b, "general.alignment 0");
	buf_free(&b);

	/* tensors */
	onet(&b, "w", 2, d, GGML_F32, 0, 255);
	REFUSED(&b, "tensor w: 256 bytes at offset 0 past the end of the "
	    "data section (255 bytes)");
	buf_free(&b);
	onet(&b, "w", 2, d, GGML_F32, 0, 256);
	{
		struct gguf g;

		CHECK(writefile(&b) == 0 && gguf_open(&g, path) == 0);
		gguf_close(&g);
	}
	buf_free(&b);
	onet(&b, "w", 2, d, GGML_F32, 16, 512);
	REFUSED(&b, "tensor w: offset 16 is not a multiple of the alignment (32)");
	buf_free(&b);
	onet(&b, "w", 2, d, GGML_F32, UINT64_MAX - 31, 512);
	REFUSED(&b, "past the end of the data section");
	buf_free(&b);
	onet(&b, "w", 2, d, 4, 0, 256);
	REFUSED(&b, "tensor w: unknown ggml type 4");
	buf_free(&b);
	onet(&b, "w", 2, d, 99, 0, 256);
	REFUSED(&b, "unknown ggml type 99");
	buf_free(&b);
	d[0] = 31;
	onet(&b, "w", 2, d, GGML_Q8_0, 0, 256);
	REFUSED(&b, "rows of 31 elements are not whole blocks of q8_0 (32)");
	buf_free(&b);
	d[0] = 0;
	onet(&b, "w", 2, d, GGML_F32, 0, 256);
	REFUSED(&b, "tensor w: dimension 0 is 0");
	buf_free(&b);
	d[0] = 1ull << 62, d[1] = 1ull << 62;
	onet(&b, "w", 2, d, GGML_F32, 0, 256);
	REFUSED(&b, "element count overflows");
	buf_free(&b);
	d[0] = 1ull << 62, d[1] = 1;
	onet(&b, "w", 2, d, GGML_F32, 0, 256);
	REFUSED(&b, "byte size overflows");
	buf_free(&b);
	d[0] = 32, d[1] = 2;
	onet(&b, "w", 5, d, GGML_F32, 0, 256);
	REFUSED(&b, "tensor w: 5 dimensions (1 to 4)");
	buf_free(&b);
	onet(&b, "w", 0, d, GGML_F32, 0, 256);
	REFUSED(&b, "0 dimensions");
	buf_free(&b);
	onet(&b, "", 2, d, GGML_F32, 0, 256);
	REFUSED(&b, "tensor 0: name is empty");
	buf_free(&b);
	memset(&b, 0, sizeof b);
	header(&b, 3, 2, 0);
	tinfo(&b, "w", 2, d, GGML_F32, 0);
	tinfo(&b, "w", 2, d, GGML_F32, 256);
	pad(&b, 32);
	for (n = 0; n < 512; n++)
		u8(&b, 0);
	REFUSED(&b, "duplicate tensor name w");
	buf_free(&b);
	memset(&b, 0, sizeof b);
	header(&b, 3, 2, 0);
	tinfo(&b, "a", 2, d, GGML_F32, 0);
	tinfo(&b, "b", 2, d, GGML_F32, 224);
	pad(&b, 32);
	for (n = 0; n < 512; n++)
		u8(&b, 0);
	REFUSED(&b, "tensors a and b overlap");
	buf_free(&b);
	memset(&b, 0, sizeof b);
	header(&b, 3, 1, 0);
	tinfo(&b, "w", 2, d, GGML_F32, 0);
	REFUSED(&b, "the data section");	/* ends before the padding */
	buf_free(&b);
}

int
main(void)
{
	int fd;

	argv0 = "test_gguf";
	warn_hook(hook);
	snprintf(path, sizeof path, "/tmp/test_gguf_XXXXXX");
	if ((fd = mkstemp(path)) < 0) {
		perror("mkstemp");
		return 1;
	}
	close(fd);
	test_good(3);
	test_good(2);
	test_bad();
	unlink(path);
	return test_end("test_gguf");
}
