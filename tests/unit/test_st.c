/* test_st.c: safetensors writer -> reader round trips, the dtype table,
 * float conversions (exhaustive for the 16-bit ones), element formatting
 * and statistics against a double-precision reference.  Malformed files
 * are covered by tests/st-inspect.bats. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/mman.h>

#include "../../lib/kern/pool.h"
#include "../../lib/kern/kern.h"
#include "../../lib/disk/st.h"
#include "../../lib/base/util.h"
#include "test.h"



static char dir[] = "/tmp/test_st_XXXXXX";

static float
bits2f(uint32_t u)
{
	float f;

	memcpy(&f, &u, 4);
	return f;
}

static void
test_dtypes(void)
{
	enum st_dtype d;
	int i;

	for (i = 0; i < ST_NDTYPE; i++) {
		CHECK(st_dtype_parse(st_dtype_name(i), &d) == 0 && d == (enum st_dtype)i);
		CHECK(st_dtype_size(i) >= 1 && st_dtype_size(i) <= 8);
	}
	CHECK(st_dtype_parse("bf16", &d) < 0);
	CHECK(st_dtype_parse("", &d) < 0);
	CHECK(st_dtype_size(ST_BF16) == 2 && st_dtype_size(ST_F64) == 8 &&
	    st_dtype_size(ST_BOOL) == 1 && st_dtype_size(ST_C64) == 8);
	CHECK(st_dtype_isfloat(ST_BF16) && !st_dtype_isfloat(ST_I32));
}

static void
test_half(void)
{
	uint32_t h;

	/* known values */
	CHECK(conv_f16_to_f32(0x3c00) == 1.0f);
	CHECK(conv_f16_to_f32(0xc000) == -2.0f);
	CHECK(conv_f16_to_f32(0x7bff) == 65504.0f);
	CHECK(conv_f16_to_f32(0x0001) == ldexpf(1, -24));
	CHECK(conv_f16_to_f32(0x03ff) == ldexpf(1023, -24));
	CHECK(isinf(conv_f16_to_f32(0xfc00)) && conv_f16_to_f32(0xfc00) < 0);
	CHECK(isnan(conv_f16_to_f32(0x7e00)));
	CHECK(signbit(conv_f16_to_f32(0x8000)));
	/* every half survives f16 -> f32 -> f16 */
	for (h = 0; h < 0x10000; h++) {
		float f = conv_f16_to_f32((uint16_t)h);

		if (isnan(f))
			CHECK(isnan(conv_f16_to_f32(conv_f32_to_f16(f))));
		else if (conv_f32_to_f16(f) != h) {
			fprintf(stderr, "f16 %04x -> %g -> %04x\n", h, f,
			    conv_f32_to_f16(f));
			fails++;
			break;
		}
	}
	/* round to nearest, ties to even; overflow; subnormals */
	CHECK(conv_f32_to_f16(1 + ldexpf(1, -11)) == 0x3c00);
	CHECK(conv_f32_to_f16(1 + 3 * ldexpf(1, -11)) == 0x3c02);
	CHECK(conv_f32_to_f16(1 + ldexpf(1, -11) + ldexpf(1, -20)) == 0x3c01);
	CHECK(conv_f32_to_f16(65519.0f) == 0x7bff);
	CHECK(conv_f32_to_f16(65520.0f) == 0x7c00);
	CHECK(conv_f32_to_f16(-1e10f) == 0xfc00);
	CHECK(conv_f32_to_f16(ldexpf(1, -25)) == 0x0000);
	CHECK(conv_f32_to_f16(3 * ldexpf(1, -25)) == 0x0002);
	CHECK(conv_f32_to_f16(ldexpf(1, -25) * 1.01f) == 0x0001);
	CHECK(conv_f32_to_f16(ldexpf(1023.5f, -24)) == 0x0400);	/* up to the smallest normal */
	CHECK(conv_f32_to_f16(-ldexpf(1, -30)) == 0x8000);
	CHECK((conv_f32_to_f16(NAN) & 0x7fff) > 0x7c00);
}

static void
test_bf16(void)
{
	uint32_t b;

	CHECK(conv_bf16_to_f32(0x3f80) == 1.0f);
	CHECK(conv_bf16_to_f32(0xc0a0) == -5.0f);
	for (b = 0; b < 0x10000; b++) {
		float f = conv_bf16_to_f32((uint16_t)b);

		if (isnan(f))
			CHECK(isnan(conv_bf16_to_f32(conv_f32_to_bf16(f))));
		else if (conv_f32_to_bf16(f) != b) {
			fprintf(stderr, "bf16 %04x -> %04x\n", b, conv_f32_to_bf16(f));
			fails++;
			break;
		}
	}
	CHECK(conv_f32_to_bf16(bits2f(0x3f808000)) == 0x3f80);	/* tie, even down */
	CHECK(conv_f32_to_bf16(bits2f(0x3f818000)) == 0x3f82);	/* tie, even up */
	CHECK(conv_f32_to_bf16(bits2f(0x3f808001)) == 0x3f81);
	CHECK(conv_f32_to_bf16(bits2f(0x7f7fffff)) == 0x7f80);	/* to infinity */
	CHECK(isnan(conv_bf16_to_f32(conv_f32_to_bf16(bits2f(0x7f800001)))));
}

/* A tensor over raw bytes, for st_elem. */
static struct st_tensor
raw(enum st_dtype dt, const void *p, size_t nel)
{
	struct st_tensor t = { 0 };

	t.dtype = dt;
	t.data = p;
	t.nel = nel;
	t.nbytes = nel * st_dtype_size(dt);
	return t;
}

static void
test_elem(void)
{
	static const unsigned char e4m3[] = { 0x38, 0x7e, 0x7f, 0x01, 0xb8, 0x08 };
	static const unsigned char e5m2[] = { 0x3c, 0x7b, 0x7c, 0xfc, 0x7d, 0x01 };
	static const unsigned char e8m0[] = { 127, 128, 0, 255 };
	int64_t i64[2] = { INT64_MIN, 9007199254740993LL };
	uint16_t bf[1] = { 0xbf80 };
	float c64[2] = { 1.5f, -2.0f };
	char buf[64];
	struct st_tensor t;

	t = raw(ST_F8_E4M3, e4m3, 6);
	CHECK(st_elem(&t, 0) == 1.0 && st_elem(&t, 1) == 448.0);
	CHECK(isnan(st_elem(&t, 2)) && st_elem(&t, 3) == ldexp(1, -9));
	CHECK(st_elem(&t, 4) == -1.0 && st_elem(&t, 5) == ldexp(1, -6));
	t = raw(ST_F8_E5M2, e5m2, 6);
	CHECK(st_elem(&t, 0) == 1.0 && st_elem(&t, 1) == 57344.0);
	CHECK(isinf(st_elem(&t, 2)) && st_elem(&t, 3) < 0 && isinf(st_elem(&t, 3)));
	CHECK(isnan(st_elem(&t, 4)) && st_elem(&t, 5) == ldexp(1, -16));
	t = raw(ST_F8_E8M0, e8m0, 4);
	CHECK(st_elem(&t, 0) == 1 && st_elem(&t, 1) == 2 &&
	    st_elem(&t, 2) == ldexp(1, -127) && isnan(st_elem(&t, 3)));
	t = raw(ST_I64, i64, 2);
	st_elem_fmt(&t, 0, buf, sizeof(buf));
	CHECK(!strcmp(buf, "-9223372036854775808"));
	st_elem_fmt(&t, 1, buf, sizeof(buf));
	CHECK(!strcmp(buf, "9007199254740993"));
	t = raw(ST_BF16, bf, 1);
	st_elem_fmt(&t, 0, buf, sizeof(buf));
	CHECK(!strcmp(buf, "-1"));
	t = raw(ST_C64, c64, 1);
	CHECK(st_elem(&t, 0) == 1.5);
}

/* Write t[0..n) with data d[i] to path. */
static int
writefile(const char *path, const struct st_wtensor *t, const void *const *d,
    size_t n, const struct st_meta *meta, size_t nmeta)
{
	FILE *f = fopen(path, "w");
	size_t i;
	int r = 0;

	if (!f)
		return -1;
	r |= st_write_header(f, path, t, n, meta, nmeta);
	for (i = 0; i < n && !r; i++)
		r |= st_write_data(f, path, &t[i], d[i]);
	return fclose(f) ? -1 : r;
}

static void
test_roundtrip(void)
{
	static const double f64[3] = { 1.0 / 3, -1e300, 5e-324 };
	static const float f32[6] = { 1, 2, 3, 4, 5, 6 };
	static const uint16_t bf[2] = { 0x3f80, 0xc000 };
	static const unsigned char b[5] = { 0, 1, 1, 0, 1 };
	static const int32_t i32[1] = { -42 };
	const struct st_wtensor t[] = {
		{ "z.f64", ST_F64, 1, { 3 } },
		{ "a \"quoted\\ name\"\n", ST_F32, 2, { 2, 3 } },
		{ "m.bf16", ST_BF16, 1, { 2 } },
		{ "m.empty", ST_F16, 2, { 0, 4 } },
		{ "scalar", ST_I32, 0, { 0 } },
		{ "b.bool", ST_BOOL, 3, { 1, 5, 1 } },
	};
	const void *d[] = { f64, f32, bf, "", i32, b };
	const struct st_meta meta[] = { { "format", "pt" }, { "k\"ey", "v\\al" } };
	const struct st_tensor *x;
	struct st st;
	char path[256];

	snprintf(path, sizeof(path), "%s/rt.safetensors", dir);
	CHECK(writefile(path, t, d, LEN(t), meta, LEN(meta)) == 0);
	CHECK(st_open(&st, path) == 0);
	CHECK(st.n == LEN(t) && st.nfiles == 1 && !st.index);
	CHECK(st.nmeta == 2 && !strcmp(st.meta[1].key, "k\"ey") &&
	    !strcmp(st.meta[1].value, "v\\al"));
	/* sorted by name */
	CHECK(!strcmp(st.t[0].name, "a \"quoted\\ name\"\n"));
	CHECK(!strcmp(st.t[5].name, "z.f64"));
	CHECK((x = st_find(&st, "z.f64")) && x->dtype == ST_F64 &&
	    x->offset % 8 == 0 && st_elem(x, 0) == 1.0 / 3 &&
	    st_elem(x, 1) == -1e300 && st_elem(x, 2) == 5e-324);
	CHECK((x = st_find(&st, "a \"quoted\\ name\"\n")) && x->ndim == 2 &&
	    x->shape[1] == 3 && x->nel == 6 && x->nbytes == 24 &&
	    !memcmp(x->data, f32, 24));
	CHECK((x = st_find(&st, "m.bf16")) && st_elem(x, 1) == -2.0);
	CHECK((x = st_find(&st, "m.empty")) && x->nel == 0 && x->nbytes == 0);
	CHECK((x = st_find(&st, "scalar")) && x->ndim == 0 && x->nel == 1 &&
	    st_elem(x, 0) == -42);
	CHECK((x = st_find(&st, "b.bool")) && x->nel == 5 && st_elem(x, 2) == 1);
	CHECK(st_find(&st, "") == NULL && st_find(&st, "zz") == NULL &&
	    st_find(&st, "A") == NULL && st_find(&st, "m.bf1") == NULL);
	/* the data sit where offset says */
	x = st_find(&st, "a \"quoted\\ name\"\n");
	CHECK((const char *)x->data - x->offset == (const char *)st.t[0].data - st.t[0].offset);
	st_close(&st);
	st_close(&st);		/* closing twice is harmless */
	unlink(path);
	/* bad shapes are refused by the writer */
	{
		struct st_wtensor bad = { "x", ST_F32, 2, { -1, 2 } };
		size_t nb;
		FILE *f = fopen("/dev/null", "w");

		CHECK(st_wtensor_size(&bad, &nb) < 0);
		bad.shape[0] = INT64_MAX;
		CHECK(st_wtensor_size(&bad, &nb) < 0);
		bad.ndim = 9;
		CHECK(st_write_header(f, "/dev/null", &bad, 1, NULL, 0) < 0);
		fclose(f);
	}
}

static void
test_index(void)
{
	static const float a[2] = { 1, 2 }, b[3] = { 3, 4, 5 };
	const struct st_wtensor ta = { "t.a", ST_F32, 1, { 2 } };
	const struct st_wtensor tb = { "t.b", ST_F32, 1, { 3 } };
	const void *da = a, *db = b;
	const struct st_tensor *x;
	char path[256];
	struct st st;
	FILE *f;

	snprintf(path, sizeof(path), "%s/s1.safetensors", dir);
	CHECK(writefile(path, &ta, &da, 1, NULL, 0) == 0);
	snprintf(path, sizeof(path), "%s/s2.safetensors", dir);
	CHECK(writefile(path, &tb, &db, 1, NULL, 0) == 0);
	snprintf(path, sizeof(path), "%s/model.safetensors.index.json", dir);
	f = fopen(path, "w");
	fputs("{\"metadata\": {}, \"weight_map\": {\"t.b\": \"s2.safetensors\","
	    " \"t.a\": \"s1.safetensors\"}}", f);
	fclose(f);
	CHECK(st_open(&st, dir) == 0);	/* the folder finds the index */
	CHECK(st.n == 2 && st.nfiles == 2 && st.index);
	CHECK((x = st_find(&st, "t.a")) && st_elem(x, 1) == 2 &&
	    strstr(st.files[x->file], "s1.safetensors"));
	CHECK((x = st_find(&st, "t.b")) && st_elem(x, 2) == 5 &&
	    strstr(st.files[x->file], "s2.safetensors"));
	st_close(&st);
	unlink(path);
	snprintf(path, sizeof(path), "%s/s1.safetensors", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/s2.safetensors", dir);
	unlink(path);
	/* failures leave st zeroed */
	CHECK(st_open(&st, dir) < 0);
	CHECK(st.n == 0 && st.t == NULL && st.nfiles == 0);
	st_close(&st);
}

static void
test_stats(void)
{
	static const float v[] = { 1, 2, NAN, 3, INFINITY, 4, -INFINITY };
	size_t n = 3000001, i;
	float *x = malloc(n * sizeof(*x));
	uint16_t *h = malloc(n * sizeof(*h));
	struct st_tensor t = raw(ST_F32, v, LEN(v)), u;
	const struct st_tensor *tp[2];
	struct st_stats s, s1[2], s2[2];
	struct pool *p = pool_new(3);
	double sum = 0, m2 = 0, mean, mn = INFINITY, mx = -INFINITY;
	uint64_t r = 88172645463325252ull;

	st_stats_range(&t, 0, t.nel, &s);
	CHECK(s.n == 4 && s.nan == 1 && s.inf == 2);
	CHECK(s.min == 1 && s.max == 4 && s.mean == 2.5);
	NEAR(s.std, sqrt(1.25), 1e-15);
	st_stats_range(&t, 2, 3, &s);
	CHECK(s.n == 0 && s.nan == 1 && isnan(s.mean) && isnan(s.min));

	/* 3M values with a large offset: the one-pass blocks must still
	 * match a two-pass double reference */
	for (i = 0; i < n; i++) {
		r ^= r << 13, r ^= r >> 7, r ^= r << 17;
		x[i] = 1000.0f + (float)((double)(r >> 11) * 0x1p-53 - 0.5);
		h[i] = conv_f32_to_bf16(x[i] - 1000.0f);
		sum += x[i];
		mn = x[i] < mn ? x[i] : mn;
		mx = x[i] > mx ? x[i] : mx;
	}
	mean = sum / (double)n;
	for (i = 0; i < n; i++)
		m2 += (x[i] - mean) * (x[i] - mean);
	t = raw(ST_F32, x, n);
	u = raw(ST_BF16, h, n);
	tp[0] = &t, tp[1] = &u;
	CHECK(st_stats(NULL, tp, 2, s1) == 0);
	CHECK(st_stats(p, tp, 2, s2) == 0);
	CHECK(s1[0].n == n && s1[0].min == mn && s1[0].max == mx);
	NEAR(s1[0].mean, mean, 1e-13);
	NEAR(s1[0].std, sqrt(m2 / (double)n), 1e-9);
	NEAR(s1[0].std, sqrt(1.0 / 12), 1e-2);
	/* the same with a pool, to the bit */
	CHECK(!memcmp(&s1[0], &s2[0], sizeof(s1[0])));
	CHECK(!memcmp(&s1[1], &s2[1], sizeof(s1[1])));
	NEAR(s2[1].mean, mean - 1000, 1e-3);
	pool_free(p);
	free(x);
	free(h);
}

/* file_map: sizes around the page and huge-page boundaries map at a
 * 2 MiB-aligned address (from 2 MiB up) with the file's bytes, and unmap
 * cleanly (ASan sees the mappings). */
static void
test_file_map(void)
{
	static const size_t sizes[] = { 1, 4095, 4097, (2u << 20) - 1, 2u << 20,
		(2u << 20) + 1, (5u << 20) + 123 };
	char path[64];
	unsigned char *buf, *p;
	size_t z, i, n;
	FILE *f;
	int fd;

	snprintf(path, sizeof(path), "%s/map", dir);
	for (z = 0; z < LEN(sizes); z++) {
		n = sizes[z];
		buf = emalloc(n);
		for (i = 0; i < n; i++)
			buf[i] = (unsigned char)(i * 131 + (i >> 12));
		CHECK((f = fopen(path, "wb")) != NULL);
		if (!f)
			return;
		CHECK(fwrite(buf, 1, n, f) == n);
		fclose(f);
		CHECK((fd = open(path, O_RDONLY)) >= 0);
		p = file_map(fd, n);
		close(fd);
		CHECK(p != MAP_FAILED);
		if (p != MAP_FAILED) {
			if (n >= (2u << 20))
				CHECK((uintptr_t)p % (2u << 20) == 0);
			CHECK(!memcmp(p, buf, n));
			CHECK(!munmap(p, n));
		}
		free(buf);
	}
	unlink(path);
}

/* path_dir: a shard's or a GGUF file's folder, what comes before the
 * last slash. */
static void
test_path_dir(void)
{
	static const char *const cases[][2] = {
		{ "model.safetensors", "." }, { "/model.gguf", "/" },
		{ "m/model.gguf", "m" }, { "/a/b/c.json", "/a/b" },
		{ "./x", "." }, { "a//b", "a/" },
	};
	char *d;
	size_t i;

	for (i = 0; i < LEN(cases); i++) {
		d = path_dir(cases[i][0]);
		CHECKF(d && !strcmp(d, cases[i][1]), "path_dir(\"%s\") = \"%s\", "
		    "expected \"%s\"", cases[i][0], d ? d : "(null)", cases[i][1]);
		free(d);
	}
}

int
main(void)
{
	argv0 = "test_st";
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	test_dtypes();
	test_half();
	test_bf16();
	test_elem();
	test_roundtrip();
	test_index();
	test_stats();
	test_file_map();
	test_path_dir();
	rmdir(dir);
	return test_end("test_st");
}
