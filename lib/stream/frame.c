/* frame.c: logits frames (see frame.h) */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stream/frame.h"
#include "stream/sample.h"
#include "base/util.h"

#define NPY_HDRSIZE 128		/* preamble + dict + padding, as numpy writes it */
#define TEXT_MAXNUM 32		/* bytes one text number may take (%.9g: 15) */

static int
little_endian(void)
{
	const uint16_t one = 1;

	return *(const unsigned char *)&one == 1;
}

static void
put16(unsigned char *p, uint16_t v)
{
	p[0] = v & 0xff;
	p[1] = v >> 8;
}

static void
put32(unsigned char *p, uint32_t v)
{
	p[0] = v & 0xff;
	p[1] = (v >> 8) & 0xff;
	p[2] = (v >> 16) & 0xff;
	p[3] = v >> 24;
}

static uint16_t
get16(const unsigned char *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t
get32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	    (uint32_t)p[3] << 24;
}

/* Floats to little-endian bytes (n floats from x into p). */
static void
putfloats(unsigned char *p, const float *x, size_t n)
{
	size_t i;
	uint32_t u;

	if (little_endian()) {
		memcpy(p, x, n * 4);
		return;
	}
	for (i = 0; i < n; i++) {
		memcpy(&u, &x[i], 4);
		put32(p + 4 * i, u);
	}
}

static void
getfloats(float *x, const unsigned char *p, size_t n)
{
	size_t i;
	uint32_t u;

	if (little_endian()) {
		memcpy(x, p, n * 4);
		return;
	}
	for (i = 0; i < n; i++) {
		u = get32(p + 4 * i);
		memcpy(&x[i], &u, 4);
	}
}

int
frame_parse_fmt(const char *s, enum frame_fmt *f)
{
	static const char *names[] = { "bin", "text", "top", "npy" };
	size_t i;

	for (i = 0; i < LEN(names); i++)
		if (!strcmp(s, names[i])) {
			*f = (enum frame_fmt)i;
			return 0;
		}
	return -1;
}

/* ---- writer ---- */

static int
werr(struct frame_writer *w)
{
	if (errno == EPIPE)
		return -1;
	return error("%s: write error:", w->name);
}

/* The npy header for count frames: always NPY_HDRSIZE bytes. */
static void
npy_header(char *h, unsigned long long count, int vocab)
{
	int n;

	memset(h, ' ', NPY_HDRSIZE);
	memcpy(h, "\x93NUMPY\x01\x00", 8);
	h[8] = (NPY_HDRSIZE - 10) & 0xff;
	h[9] = (NPY_HDRSIZE - 10) >> 8;
	n = snprintf(h + 10, NPY_HDRSIZE - 10,
	    "{'descr': '<f4', 'fortran_order': False, 'shape': (%llu, %d), }",
	    count, vocab);
	h[10 + n] = ' ';	/* over snprintf's NUL; n < 100 always */
	h[NPY_HDRSIZE - 1] = '\n';
}

int
frame_writer_open(struct frame_writer *w, FILE *f, const char *name,
    enum frame_fmt fmt, int vocab, int topk)
{
	char h[NPY_HDRSIZE];
	off_t off;

	memset(w, 0, sizeof(*w));
	w->f = f;
	w->name = name;
	w->fmt = fmt;
	w->vocab = vocab;
	w->npystart = -1;
	if (vocab < 1 || vocab > FRAME_MAXVOCAB)
		return error("%s: vocab %d out of range", name, vocab);
	if ((fmt == FRAME_BIN || fmt == FRAME_NPY) && isatty(fileno(f)))
		return error("%s: binary frames to a terminal: use -f text", name);
	switch (fmt) {
	case FRAME_BIN:
		w->bufsize = FRAME_HDRSIZE + 4 * (size_t)vocab;
		if (!(w->buf = xmalloc(w->bufsize)))
			return -1;
		break;
	case FRAME_TOP:
		w->topk = topk < 1 ? 1 : topk > vocab ? vocab : topk;
		if (!(w->idx = xreallocarray(NULL, (size_t)vocab, sizeof(int))))
			return -1;
		break;
	case FRAME_NPY:
		if ((off = ftello(f)) < 0 || fseeko(f, off, SEEK_SET) < 0)
			return error("%s: npy needs a seekable file: use -o FILE", name);
		if (fcntl(fileno(f), F_GETFL) & O_APPEND)	/* would not patch */
			return error("%s: npy cannot be appended to a file", name);
		w->npystart = off;
		npy_header(h, 0, vocab);
		if (fwrite(h, 1, sizeof(h), f) != sizeof(h))
			return werr(w);
		break;
	case FRAME_TEXT:
		break;
	}
	return 0;
}

static int
write_text(struct frame_writer *w, const float *x)
{
	int i;

	for (i = 0; i < w->vocab; i++)
		if (fprintf(w->f, i ? " %.9g" : "%.9g", x[i]) < 0)
			return werr(w);
	if (putc('\n', w->f) == EOF)
		return werr(w);
	return 0;
}

static int
write_top(struct frame_writer *w, const float *x)
{
	size_t i, k;

	k = sample_top(w->idx, x, (size_t)w->vocab, (size_t)w->topk);
	for (i = 0; i < k; i++)
		if (fprintf(w->f, i ? " %d:%.9g" : "%d:%.9g", w->idx[i],
		    x[w->idx[i]]) < 0)
			return werr(w);
	if (putc('\n', w->f) == EOF)
		return werr(w);
	return 0;
}

int
frame_write(struct frame_writer *w, const struct frame_hdr *h,
    const float *logits)
{
	unsigned char *p = w->buf;
	size_t n = (size_t)w->vocab, i;
	int r = 0;

	/* a NaN would read back as a plausible frame (and sort anywhere in
	 * top): never passed on */
	for (i = 0; i < n; i++)
		if (!isfinite(logits[i]))
			return error("record %u: position %u: logit %zu is %g (a "
			    "weight that is not finite?)", h->record, h->position,
			    i, logits[i]);
	switch (w->fmt) {
	case FRAME_BIN:
		memcpy(p, FRAME_MAGIC, 4);
		put16(p + 4, FRAME_VERSION);
		put16(p + 6, h->flags);
		put32(p + 8, (uint32_t)w->vocab);
		put32(p + 12, h->record);
		put32(p + 16, h->position);
		put32(p + 20, (uint32_t)h->token);
		put32(p + 24, 0);
		put32(p + 28, 0);
		putfloats(p + FRAME_HDRSIZE, logits, n);
		if (fwrite(p, 1, w->bufsize, w->f) != w->bufsize)
			r = werr(w);
		break;
	case FRAME_NPY:
		if (little_endian()) {
			if (fwrite(logits, 4, n, w->f) != n)
				r = werr(w);
		} else {
			size_t i;
			unsigned char b[4];
			uint32_t u;

			for (i = 0; i < n && !r; i++) {
				memcpy(&u, &logits[i], 4);
				put32(b, u);
				if (fwrite(b, 1, 4, w->f) != 4)
					r = werr(w);
			}
		}
		break;
	case FRAME_TEXT:
		r = write_text(w, logits);
		break;
	case FRAME_TOP:
		r = write_top(w, logits);
		break;
	}
	if (!r)
		w->nframes++;
	return r;
}

int
frame_writer_close(struct frame_writer *w)
{
	char h[NPY_HDRSIZE];
	int r = 0;
	off_t end;

	if (w->fmt == FRAME_NPY && w->npystart >= 0 && w->f) {
		npy_header(h, w->nframes, w->vocab);
		if (fflush(w->f) == EOF || (end = ftello(w->f)) < 0 ||
		    fseeko(w->f, (off_t)w->npystart, SEEK_SET) < 0 ||
		    fwrite(h, 1, sizeof(h), w->f) != sizeof(h) ||
		    fseeko(w->f, end, SEEK_SET) < 0)
			r = error("%s: cannot finish the npy header:", w->name);
	}
	free(w->buf);
	free(w->idx);
	w->buf = NULL;
	w->idx = NULL;
	w->npystart = -1;
	return r;
}

/* ---- reader ---- */


static int
set_vocab(struct frame_reader *r, uint32_t vocab, const char *name)
{
	float *p;

	if (vocab == 0 || vocab > FRAME_MAXVOCAB)
		return error("%s: frame %llu: vocab %" PRIu32 " out of range",
		    name, r->no, vocab);
	if (r->vocab && vocab != r->vocab)
		return error("%s: frame %llu: vocab changed from %" PRIu32
		    " to %" PRIu32, name, r->no, r->vocab, vocab);
	if (!r->logits) {
		if (!(p = xreallocarray(NULL, vocab, sizeof(float))))
			return -1;
		r->logits = p;
	}
	r->vocab = vocab;
	return 0;
}

static int
check_finite(struct frame_reader *r, const char *name)
{
	uint32_t i;

	for (i = 0; i < r->vocab; i++)
		if (!isfinite(r->logits[i]))
			return error("%s: frame %llu: id %" PRIu32
			    ": logit not finite", name, r->no, i);
	return 0;
}

static int
read_bin(struct frame_reader *r, FILE *f, const char *name,
    struct frame_hdr *h)
{
	unsigned char hdr[FRAME_HDRSIZE];
	size_t got, n;
	uint32_t vocab;
	uint16_t ver;

	got = fread(hdr, 1, sizeof(hdr), f);
	if (got == 0 && !ferror(f))
		return 0;
	r->no++;
	if (got < sizeof(hdr)) {
		if (ferror(f))
			return error("%s: read error:", name);
		return error("%s: frame %llu: truncated header (%zu of %d bytes)",
		    name, r->no, got, FRAME_HDRSIZE);
	}
	if (memcmp(hdr, FRAME_MAGIC, 4))
		return error("%s: frame %llu: bad magic (not a logits frame)",
		    name, r->no);
	if ((ver = get16(hdr + 4)) != FRAME_VERSION)
		return error("%s: frame %llu: unsupported version %u", name,
		    r->no, (unsigned)ver);
	vocab = get32(hdr + 8);
	if (set_vocab(r, vocab, name) < 0)
		return -1;
	n = 4 * (size_t)vocab;
	if (xgrow(&r->buf, &r->cap, n, 1) < 0)
		return -1;
	if ((got = fread(r->buf, 1, n, f)) != n) {
		if (ferror(f))
			return error("%s: read error:", name);
		return error("%s: frame %llu: truncated (%zu of %zu logit bytes)",
		    name, r->no, got, n);
	}
	getfloats(r->logits, r->buf, vocab);
	h->vocab = vocab;
	h->flags = get16(hdr + 6);
	h->record = get32(hdr + 12);
	h->position = get32(hdr + 16);
	h->token = (int32_t)get32(hdr + 20);
	if (check_finite(r, name) < 0)
		return -1;
	return 1;
}

/* Read one line into r->buf (NUL-terminated, without its '\n'); the
 * length limit is what vocab numbers could take.  1, 0 at end, -1. */
static int
read_line(struct frame_reader *r, FILE *f, const char *name, size_t *len)
{
	size_t n = 0, max;
	int c;

	max = (size_t)(r->vocab ? r->vocab : FRAME_MAXVOCAB) * TEXT_MAXNUM;
	while ((c = getc_unlocked(f)) != EOF && c != '\n') {
		if (xgrow(&r->buf, &r->cap, n + 2, 1) < 0)
			return -1;
		if (n >= max)
			return error("%s: frame %llu: line too long", name,
			    r->no + 1);
		r->buf[n++] = (unsigned char)c;
	}
	if (ferror(f))
		return error("%s: read error:", name);
	if (c == EOF && n == 0)
		return 0;
	r->no++;
	if (c == EOF)
		return error("%s: frame %llu: truncated (no newline at the end)",
		    name, r->no);
	if (n > 0 && r->buf[n - 1] == '\r')	/* CRLF */
		n--;
	if (xgrow(&r->buf, &r->cap, n + 1, 1) < 0)
		return -1;
	r->buf[n] = '\0';
	if (memchr(r->buf, '\0', n))
		return error("%s: frame %llu: NUL byte in a text frame", name,
		    r->no);
	*len = n;
	return 1;
}

static int
read_text(struct frame_reader *r, FILE *f, const char *name,
    struct frame_hdr *h)
{
	size_t len, count = 0, cap;
	char *s, *end;
	float v;
	int k;

	if ((k = read_line(r, f, name, &len)) <= 0)
		return k;
	/* the first line decides vocab: count its fields */
	if (!r->vocab) {
		for (s = (char *)r->buf; *s; ) {
			while (*s == ' ' || *s == '\t')
				s++;
			if (!*s)
				break;
			count++;
			while (*s && *s != ' ' && *s != '\t')
				s++;
		}
		if (count == 0)
			return error("%s: frame %llu: empty line", name, r->no);
		if (set_vocab(r, count > FRAME_MAXVOCAB ? 0 : (uint32_t)count,
		    name) < 0)
			return -1;
	}
	cap = r->vocab;
	count = 0;
	for (s = (char *)r->buf; ; ) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			break;
		errno = 0;
		v = strtof(s, &end);
		/* id:logit pairs: llm-logits -f top, a few ids, not a frame */
		if (end != s && *end == ':')
			return error("%s: frame %llu: id:logit pairs are a top-k "
			    "list (llm-logits -f top), not a frame of every "
			    "logit: use -f bin or -f text", name, r->no);
		if (end == s || (*end && *end != ' ' && *end != '\t'))
			return error("%s: frame %llu: id %zu: not a number",
			    name, r->no, count);
		if (!isfinite(v))
			return error("%s: frame %llu: id %zu: logit not finite",
			    name, r->no, count);
		if (count < cap)
			r->logits[count] = v;
		count++;
		s = end;
	}
	if (count != cap) {
		if (count == 0)
			return error("%s: frame %llu: empty line", name, r->no);
		return error("%s: frame %llu: vocab changed from %zu to %zu",
		    name, r->no, cap, count);
	}
	h->vocab = r->vocab;
	h->record = (uint32_t)r->no;
	h->position = 0;
	h->token = -1;
	h->flags = 0;
	return 1;
}

int
frame_read(struct frame_reader *r, FILE *f, const char *name,
    struct frame_hdr *h, const float **logits)
{
	int c, k;

	if (!r->known) {
		if ((c = getc(f)) == EOF) {
			if (ferror(f))
				return error("%s: read error:", name);
			return 0;
		}
		if (ungetc(c, f) == EOF)
			return error("%s: read error:", name);
		if (c == FRAME_MAGIC[0])
			r->fmt = FRAME_BIN;
		else if (isdigit(c) || c == '-' || c == '+' || c == '.' ||
		    c == ' ' || c == '\t' || (c && strchr("iInN", c)))
			r->fmt = FRAME_TEXT;
		else
			return error("%s: bad magic (neither binary nor text "
			    "logits frames)", name);
		r->known = 1;
	}
	k = r->fmt == FRAME_BIN ? read_bin(r, f, name, h) :
	    read_text(r, f, name, h);
	if (k < 0)
		return -1;
	if (k == 0)
		return 0;
	*logits = r->logits;
	return 1;
}

void
frame_reader_free(struct frame_reader *r)
{
	free(r->logits);
	free(r->buf);
	memset(r, 0, sizeof(*r));
}
