/* idstream.c: see idstream.h. */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "stream/idstream.h"
#include "base/util.h"

void
ids_init(struct idstream *s, int fd, const char *name, enum rec_fmt fmt, FILE *flush)
{
	s->fd = fd;
	s->name = name;
	s->fmt = fmt;
	s->flush = flush;
	s->no = 0;
	s->pos = s->len = 0;
	s->eof = s->inrec = s->endnext = 0;
	s->left = 0;
	memset(&s->lx, 0, sizeof s->lx);
}

/* Refill the buffer: 1, 0 at the end of input, -1 on error. */
static int
fill(struct idstream *s)
{
	ssize_t r;

	if (s->eof)
		return 0;
	if (s->flush && fflush(s->flush) == EOF)
		return -1;	/* said by the caller's fshut */
	do
		r = read(s->fd, s->buf, sizeof s->buf);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return error("%s: read error:", s->name);
	if (r == 0) {
		s->eof = 1;
		return 0;
	}
	s->pos = 0, s->len = r;
	return 1;
}

static int
next_text(struct idstream *s, int *id)
{
	int c, r;

	if (s->endnext) {
		s->endnext = 0;
		return 2;
	}
	do {
		c = EOF;
		if (s->pos < s->len || (r = fill(s)) > 0)
			c = s->buf[s->pos++];
		else if (r < 0)
			return -1;
		if (c != EOF && !s->lx.any)
			s->no++;
		if ((r = rec_lex(&s->lx, c, id, s->name, s->no)) < 0)
			return -1;
		if (r == (REC_LEX_ID | REC_LEX_END))
			s->endnext = 1;
		if (r & REC_LEX_ID)
			return 1;
		if (r & REC_LEX_END)
			return 2;
	} while (c != EOF);
	return 0;
}

/* one little-endian u32: 1, 0 at a clean end (only if may_end), -1 */
static int
u32(struct idstream *s, uint32_t *v, int may_end)
{
	int i, r;

	*v = 0;
	for (i = 0; i < 4; i++) {
		if (s->pos == s->len && (r = fill(s)) <= 0) {
			if (r < 0)
				return -1;
			if (i == 0 && may_end)
				return 0;
			if (may_end)	/* the count of the next record */
				s->no++;
			return error("%s: record %llu: truncated u32 record",
			    s->name, s->no);
		}
		*v |= (uint32_t)s->buf[s->pos++] << (8 * i);
	}
	return 1;
}

int
ids_next(struct idstream *s, int *id)
{
	uint32_t v;
	int r;

	if (s->fmt == REC_TEXT)
		return next_text(s, id);
	if (!s->inrec) {
		if ((r = u32(s, &v, 1)) <= 0)
			return r;
		s->no++;
		if (v > REC_MAXLEN)
			return error("%s: record %llu: count %lu too large", s->name,
			    s->no, (unsigned long)v);
		s->inrec = 1;
		s->left = v;
	}
	if (!s->left) {
		s->inrec = 0;
		return 2;
	}
	if (u32(s, &v, 0) < 0)
		return -1;
	s->left--;
	if (v > REC_MAXID)
		return error("%s: record %llu: token id %lu too large", s->name,
		    s->no, (unsigned long)v);
	*id = v;
	return 1;
}

int
ids_skip(struct idstream *s)
{
	uint32_t v;
	int r;

	if (s->fmt == REC_TEXT) {
		if (s->endnext) {
			s->endnext = 0;
			return 0;
		}
		/* rec_lex never refuses the newline: it is still to come */
		for (;;) {
			if (s->pos == s->len && (r = fill(s)) <= 0) {
				if (r < 0)
					return -1;
				break;
			}
			if (s->buf[s->pos++] == '\n')
				break;
		}
		memset(&s->lx, 0, sizeof s->lx);
		return 0;
	}
	if (!s->inrec)		/* no count to go by */
		return -1;
	while (s->left) {
		if ((r = u32(s, &v, 0)) < 0)
			return -1;
		s->left--;
	}
	s->inrec = 0;
	return 0;
}
