#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rec.h"
#include "util.h"

/* A u32 record claiming more ids than this is taken for garbage rather
 * than an allocation request (2^28 ids = 1 GiB). */
#define REC_MAXLEN ((uint32_t)1 << 28)

static int
push(struct rec *r, int id)
{
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 256;
		int *p = realloc(r->ids, cap * sizeof(*p));

		if (!p)
			return error("cannot allocate a record of %zu ids", cap);
		r->ids = p;
		r->cap = cap;
	}
	r->ids[r->n++] = id;
	return 0;
}

static int
read_text(struct rec *r, FILE *f, const char *name)
{
	int c, have = 0, any = 0;
	long long v = 0;

	for (;;) {
		c = getc(f);
		if (c >= '0' && c <= '9') {
			v = v * 10 + (c - '0');
			if (v > REC_MAXID)
				return error("%s: record %llu: token id too large",
				    name, r->no);
			have = 1;
			continue;
		}
		if (have) {
			if (push(r, (int)v) < 0)
				return -1;
			have = 0;
			v = 0;
		}
		if (c == EOF) {
			if (ferror(f))
				return error("read %s:", name);
			return any ? 1 : 0;
		}
		any = 1;
		if (c == '\n')
			return 1;
		if (c == ' ' || c == '\t' || c == '\r')
			continue;
		if (c >= 0x21 && c < 0x7f)
			return error("%s: record %llu: invalid character '%c' in token ids",
			    name, r->no, c);
		return error("%s: record %llu: invalid byte 0x%02x in token ids",
		    name, r->no, c);
	}
}

static int
read_u32(FILE *f, const char *name, uint32_t *v, unsigned long long no, int first)
{
	unsigned char b[4];
	size_t got = fread(b, 1, 4, f);

	if (got != 4) {
		if (ferror(f))
			return error("read %s:", name);
		if (got == 0 && first)
			return 0;
		return error("%s: record %llu: truncated u32 record", name, no);
	}
	*v = b[0] | b[1] << 8 | b[2] << 16 | (uint32_t)b[3] << 24;
	return 1;
}

int
rec_read(struct rec *r, FILE *f, const char *name, enum rec_fmt fmt)
{
	uint32_t count, id, i;
	int ret;

	r->n = 0;
	r->no++;
	if (fmt == REC_TEXT)
		return read_text(r, f, name);
	if ((ret = read_u32(f, name, &count, r->no, 1)) <= 0)
		return ret;
	if (count > REC_MAXLEN)
		return error("%s: record %llu: count %lu too large", name, r->no,
		    (unsigned long)count);
	for (i = 0; i < count; i++) {
		if (read_u32(f, name, &id, r->no, 0) < 0)
			return -1;
		if (id > REC_MAXID)
			return error("%s: record %llu: token id %lu too large", name,
			    r->no, (unsigned long)id);
		if (push(r, (int)id) < 0)
			return -1;
	}
	return 1;
}

void
rec_put(FILE *f, int id, int first)
{
	if (!first)
		putc(' ', f);
	fprintf(f, "%d", id);
}

void
rec_end(FILE *f)
{
	putc('\n', f);
}

static void
put_u32(FILE *f, uint32_t v)
{
	unsigned char b[4] = { v, v >> 8, v >> 16, v >> 24 };

	fwrite(b, 1, 4, f);
}

void
rec_write(FILE *f, enum rec_fmt fmt, const int *ids, size_t n)
{
	size_t i;

	if (fmt == REC_U32) {
		put_u32(f, (uint32_t)n);
		for (i = 0; i < n; i++)
			put_u32(f, (uint32_t)ids[i]);
		return;
	}
	for (i = 0; i < n; i++)
		rec_put(f, ids[i], i == 0);
	rec_end(f);
}

int
rec_parse_fmt(const char *s, enum rec_fmt *fmt)
{
	if (!strcmp(s, "text"))
		*fmt = REC_TEXT;
	else if (!strcmp(s, "u32"))
		*fmt = REC_U32;
	else
		return -1;
	return 0;
}

void
rec_free(struct rec *r)
{
	free(r->ids);
	r->ids = NULL;
	r->n = r->cap = 0;
}

void
rec_files_init(struct rec_files *rf, char **paths, int n, enum rec_fmt fmt)
{
	static char *dash[] = { "-" };

	rf->paths = n ? paths : dash;
	rf->n = n ? n : 1;
	rf->i = 0;
	rf->fmt = fmt;
	rf->f = NULL;
	rf->name = NULL;
	rf->failed = 0;
}

int
rec_files_next(struct rec_files *rf, struct rec *r)
{
	int got;

	for (;;) {
		while (!rf->f) {
			const char *path;

			if (rf->i == rf->n)
				return 0;
			path = rf->paths[rf->i++];
			if (!strcmp(path, "-")) {
				rf->f = stdin;
				rf->name = "<stdin>";
			} else if ((rf->f = fopen(path, "r"))) {
				rf->name = path;
			} else {
				warn("open %s:", path);
				rf->failed = 1;
			}
		}
		if ((got = rec_read(r, rf->f, rf->name, rf->fmt)) != 0)
			return got;
		rec_files_close(rf);
	}
}

void
rec_files_close(struct rec_files *rf)
{
	if (rf->f && rf->f != stdin)
		fclose(rf->f);
	rf->f = NULL;
}
