#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stream/rec.h"
#include "base/util.h"

static int
push(struct rec *r, int id)
{
	if (xgrow(&r->ids, &r->cap, r->n + 1, sizeof(*r->ids)) < 0)
		return -1;
	r->ids[r->n++] = id;
	return 0;
}

int
rec_lex(struct rec_lex *lx, int c, int *id, const char *name,
    unsigned long long no)
{
	int got = 0;

	if (c >= '0' && c <= '9' && !lx->cr) {
		lx->v = lx->v * 10 + (unsigned)(c - '0');
		if (lx->v > REC_MAXID)
			return error("%s: record %llu: token id too large", name, no);
		lx->digits = lx->any = 1;
		return 0;
	}
	if (lx->digits) {
		*id = (int)lx->v;
		got = REC_LEX_ID;
		lx->v = 0;
		lx->digits = 0;
	}
	if (c == '\n' || (c == EOF && lx->any)) {
		lx->cr = lx->any = 0;
		return got | REC_LEX_END;
	}
	if (c == EOF)
		return got;
	lx->any = 1;
	if (lx->cr)	/* a CR only as half of a CRLF line end */
		return error("%s: record %llu: invalid byte 0x0d in token ids",
		    name, no);
	if (c == ' ' || c == '\t')
		return got;
	if (c == '\r') {
		lx->cr = 1;
		return got;
	}
	/* a letter: text where ids were expected (echo 'Once upon' | llm-gen) */
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
		return error("%s: record %llu: invalid character '%c' in token "
		    "ids (text? tok-encode makes ids of it; llm-text takes "
		    "text)", name, no, c);
	if (c >= 0x21 && c < 0x7f)
		return error("%s: record %llu: invalid character '%c' in token ids",
		    name, no, c);
	return error("%s: record %llu: invalid byte 0x%02x in token ids",
	    name, no, c);
}

static int
read_text(struct rec *r, FILE *f, const char *name)
{
	struct rec_lex lx = { 0 };
	int c, got, id;

	do {
		if ((c = getc(f)) == EOF && ferror(f))
			return error("%s: read error:", name);
		if ((got = rec_lex(&lx, c, &id, name, r->no)) < 0)
			return -1;
		if ((got & REC_LEX_ID) && push(r, id) < 0)
			return -1;
		if (got & REC_LEX_END)
			return 1;
	} while (c != EOF);
	return 0;
}

static int
read_u32(FILE *f, const char *name, uint32_t *v, unsigned long long no, int first)
{
	unsigned char b[4];
	size_t got = fread(b, 1, 4, f);

	if (got != 4) {
		if (ferror(f))
			return error("%s: read error:", name);
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

int
rec_check(const struct rec *r, int vocab, const char *name)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (r->ids[i] >= vocab)
			return error("%s: record %llu: token id %d not in the "
			    "vocabulary (%d tokens)", name, r->no, r->ids[i], vocab);
	return 0;
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
rec_fmt_parse(const char *s, enum rec_fmt *fmt)
{
	if (!strcmp(s, "text"))
		*fmt = REC_TEXT;
	else if (!strcmp(s, "u32"))
		*fmt = REC_U32;
	else
		return error("invalid --ids '%s' (text or u32)", s);
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
	files_init(&rf->fl, paths, n);
	rf->fmt = fmt;
}

int
rec_files_next(struct rec_files *rf, struct rec *r)
{
	int got;

	for (;;) {
		if (!rf->fl.f && !files_next(&rf->fl))
			return 0;
		if ((got = rec_read(r, rf->fl.f, rf->fl.name, rf->fmt)) != 0)
			return got;
		files_close(&rf->fl);
	}
}

void
rec_files_close(struct rec_files *rf)
{
	files_close(&rf->fl);
}
