/* st_write.c: safetensors writer (the layout st.c reads). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "st.h"
#include "util.h"

int
st_wtensor_size(const struct st_wtensor *t, size_t *nbytes)
{
	size_t n = 1;
	int i;

	if ((unsigned)t->dtype >= ST_NDTYPE || t->ndim < 0 ||
	    t->ndim > ST_MAXDIM)
		return -1;
	for (i = 0; i < t->ndim; i++)
		if (t->shape[i] < 0 || (uint64_t)t->shape[i] > SIZE_MAX ||
		    size_mul(&n, n, (size_t)t->shape[i]) < 0)
			return -1;
	return size_mul(nbytes, n, st_dtype_size(t->dtype));
}

/* A growing string. */
struct buf {
	char *s;
	size_t len, cap;
	int oom;
};

static void
put(struct buf *b, const char *s, size_t n)
{
	if (b->oom)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t c = b->cap ? b->cap : 256;
		char *p;

		while (c < b->len + n + 1)
			c *= 2;
		if (!(p = realloc(b->s, c))) {
			b->oom = 1;
			return;
		}
		b->s = p;
		b->cap = c;
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = 0;
}

static void
puts_(struct buf *b, const char *s)
{
	put(b, s, strlen(s));
}

/* s as a JSON string. */
static void
putstr(struct buf *b, const char *s)
{
	char esc[8];

	put(b, "\"", 1);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\') {
			esc[0] = '\\';
			esc[1] = (char)c;
			put(b, esc, 2);
		} else if (c < 0x20) {
			snprintf(esc, sizeof(esc), "\\u%04x", c);
			put(b, esc, 6);
		} else
			put(b, (const char *)s, 1);
	}
	put(b, "\"", 1);
}

int
st_write_header(FILE *f, const char *name, const struct st_wtensor *t,
    size_t n, const struct st_meta *meta, size_t nmeta)
{
	struct buf b = { 0 };
	unsigned char len8[8];
	char num[64];
	size_t i, off = 0, nbytes, hlen;
	int k, ret = -1;

	puts_(&b, "{");
	if (nmeta) {
		puts_(&b, "\"__metadata__\":{");
		for (i = 0; i < nmeta; i++) {
			if (i)
				puts_(&b, ",");
			putstr(&b, meta[i].key);
			puts_(&b, ":");
			putstr(&b, meta[i].value);
		}
		puts_(&b, "}");
	}
	for (i = 0; i < n; i++) {
		if (st_wtensor_size(&t[i], &nbytes) < 0 ||
		    off + nbytes < off) {
			error("%s: tensor %s: bad shape or size too large",
			    name, t[i].name);
			goto out;
		}
		if (i || nmeta)
			puts_(&b, ",");
		putstr(&b, t[i].name);
		puts_(&b, ":{\"dtype\":\"");
		puts_(&b, st_dtype_name(t[i].dtype));
		puts_(&b, "\",\"shape\":[");
		for (k = 0; k < t[i].ndim; k++) {
			snprintf(num, sizeof(num), "%s%lld", k ? "," : "",
			    (long long)t[i].shape[k]);
			puts_(&b, num);
		}
		snprintf(num, sizeof(num), "],\"data_offsets\":[%zu,%zu]}",
		    off, off + nbytes);
		puts_(&b, num);
		off += nbytes;
	}
	puts_(&b, "}");
	while (!b.oom && b.len % 8)
		puts_(&b, " ");
	if (b.oom) {
		error("%s: out of memory", name);
		goto out;
	}
	hlen = b.len;
	for (k = 0; k < 8; k++)
		len8[k] = (unsigned char)((uint64_t)hlen >> (8 * k));
	if (fwrite(len8, 1, 8, f) != 8 || fwrite(b.s, 1, b.len, f) != b.len) {
		error("%s: write:", name);
		goto out;
	}
	ret = 0;
out:
	free(b.s);
	return ret;
}

int
st_write_data(FILE *f, const char *name, const struct st_wtensor *t,
    const void *data)
{
	size_t nbytes;

	if (st_wtensor_size(t, &nbytes) < 0)
		return error("%s: tensor %s: bad shape", name, t->name);
	if (fwrite(data, 1, nbytes, f) != nbytes)
		return error("%s: write:", name);
	return 0;
}
