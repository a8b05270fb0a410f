/* tok_dec.c: streaming decoding through the decoder chain.
 *
 * tokenizers runs its decoders over the whole list of tokens; here each
 * token goes through the per-token steps as it comes, and what steps after
 * Fuse (or ByteLevel, which joins its tokens) do to the whole text is done
 * on the stream: Strip's start at the start of the record.  A run of
 * ByteFallback tokens (<0xHH>) is held until it ends, then written as text
 * if it is valid UTF-8, else as one U+FFFD per byte, as tokenizers does.
 * ByteLevel writes the bytes its tokens stand for as they are (tokenizers
 * would replace invalid UTF-8 with U+FFFD): decoding is lossless. */
#include <stdlib.h>
#include <string.h>

#include "tok_int.h"
#include "unicode.h"

void
tok_dec_start(struct tok_dec *d, const struct tok *t, int skip_special)
{
	size_t i;

	d->t = t;
	d->skip_special = skip_special;
	d->first = 1;
	d->run.n = d->nhold = 0;
	d->strip = 0;
	for (i = 0; i < t->ndec; i++)
		if (t->dec[i].type == DEC_STRIP && t->dec[i].fused) {
			d->strip = t->dec[i].start;
			break;
		}
}

void
tok_dec_free(struct tok_dec *d)
{
	free(d->x[0].p), free(d->x[1].p), free(d->run.p);
	memset(d->x, 0, sizeof d->x);
	memset(&d->run, 0, sizeof d->run);
}

/* length of the UTF-8 sequence a lead byte starts, 0 if not a lead */
static size_t
seqlen(unsigned c)
{
	return c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 :
	    c >= 0xf0 && c <= 0xf4 ? 4 : 0;
}

/* Text for the record: Strip at its start, then hold back a trailing
 * incomplete UTF-8 sequence. */
static int
emit(struct tok_dec *d, const char *p, size_t n, struct tok_buf *out)
{
	const struct tok *t = d->t;
	size_t start, end, q;

	if (d->strip) {
		size_t i;
		for (i = 0; i < t->ndec; i++)
			if (t->dec[i].type == DEC_STRIP && t->dec[i].fused)
				break;
		while (d->strip && n >= t->dec[i].alen && t->dec[i].alen &&
		    !memcmp(p, t->dec[i].a, t->dec[i].alen)) {
			p += t->dec[i].alen, n -= t->dec[i].alen;
			d->strip--;
		}
		if (n)
			d->strip = 0;
	}
	if (!n)
		return 0;
	start = out->n;
	if (tok_buf_add(out, d->hold, d->nhold) < 0 || tok_buf_add(out, p, n) < 0)
		return -1;
	d->nhold = 0;
	end = out->n;
	for (q = end; q > start && end - q < 4;) {
		unsigned c = (unsigned char)out->p[--q];
		if ((c & 0xc0) == 0x80)
			continue;
		if (seqlen(c) > end - q) {
			d->nhold = end - q;
			memcpy(d->hold, out->p + q, d->nhold);
			out->n = q;
		}
		break;
	}
	return 0;
}

/* replace every a in s[0..n) by b, into x */
static int
replace(struct tok_buf *x, const char *s, size_t n, const char *a, size_t an,
    const char *b, size_t bn)
{
	size_t i = 0;

	x->n = 0;
	while (i < n) {
		if (n - i >= an && !memcmp(s + i, a, an)) {
			if (tok_buf_add(x, b, bn) < 0)
				return -1;
			i += an;
		} else {
			size_t j = i + 1;
			while (j < n && s[j] != a[0])
				j++;
			if (tok_buf_add(x, s + i, j - i) < 0)
				return -1;
			i = j;
		}
	}
	return 0;
}

/* the per-token steps from k on (ByteFallback was dealt with before) */
static int
steps(struct tok_dec *d, size_t k, const char *s, size_t n, struct tok_buf *out)
{
	const struct tok *t = d->t;
	int cur = 0;

	for (; k < t->ndec && !t->dec[k].fused; k++) {
		const struct tok_dstep *st = &t->dec[k];
		struct tok_buf *x = &d->x[cur];
		size_t i, j;
		switch (st->type) {
		case DEC_REPLACE:
			if (replace(x, s, n, st->a, st->alen, st->b, st->blen) < 0)
				return -1;
			break;
		case DEC_METASPACE:
			if (replace(x, s, n, st->a, st->alen,
			    d->first && st->prepend != PREPEND_NEVER ? "" : " ",
			    d->first && st->prepend != PREPEND_NEVER ? 0 : 1) < 0)
				return -1;
			break;
		case DEC_BYTELEVEL: {
			const unsigned char *u = (const unsigned char *)s;
			x->n = 0;
			for (i = 0; i < n; i += j) {
				uint32_t cp;
				int b;
				j = uni_decode(u + i, n - i, &cp);
				if ((b = tok_u2b(cp)) < 0)
					break;
				unsigned char c = b;
				if (tok_buf_add(x, &c, 1) < 0)
					return -1;
			}
			if (i < n) {	/* not all in the alphabet: as it is */
				x->n = 0;
				if (tok_buf_add(x, s, n) < 0)
					return -1;
			}
			break;
		}
		case DEC_STRIP: {
			int c;
			for (c = 0; c < st->start && n >= st->alen &&
			    !memcmp(s, st->a, st->alen); c++)
				s += st->alen, n -= st->alen;
			for (c = 0; c < st->stop && n >= st->alen &&
			    !memcmp(s + n - st->alen, st->a, st->alen); c++)
				n -= st->alen;
			continue;
		}
		default:	/* Fuse; ByteFallback was handled before */
			continue;
		}
		s = x->p, n = x->n;
		cur ^= 1;
	}
	return emit(d, s, n, out);
}

/* the first ByteFallback step, or -1 */
static long
bfstep(const struct tok *t)
{
	size_t i;

	for (i = 0; i < t->ndec; i++)
		if (t->dec[i].type == DEC_BYTEFALLBACK)
			return i;
	return -1;
}

static int
hexval(int c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ?
	    c - 'A' + 10 : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* a pending ByteFallback run as text, through the steps after it */
static int
flushrun(struct tok_dec *d, struct tok_buf *out)
{
	const unsigned char *u = (const unsigned char *)d->run.p;
	size_t i, n = d->run.n, k = bfstep(d->t) + 1;
	uint32_t cp;
	int r;

	if (!n)
		return 0;
	d->run.n = 0;	/* (the bytes stay put until the next push) */
	for (i = 0; i < n; i += uni_decode(u + i, n - i, &cp))
		if (uni_decode(u + i, n - i, &cp) && UNI_ISBAD(cp))
			break;
	if (i == n) {
		r = steps(d, k, (const char *)u, n, out);
		d->first = 0;
		return r;
	}
	for (i = 0; i < n; i++) {
		if (steps(d, k, "\xef\xbf\xbd", 3, out) < 0)
			return -1;
		d->first = 0;
	}
	return 0;
}

int
tok_dec_push(struct tok_dec *d, int id, struct tok_buf *out)
{
	const struct tok *t = d->t;
	const char *s;
	size_t n;

	if (id < 0 || id >= t->ntok || !t->str[id])
		return -1;
	if (d->skip_special && t->special[id])
		return 0;
	s = t->str[id], n = t->slen[id];
	if (bfstep(t) >= 0) {
		int h, l;
		if (!t->special[id] && n == 6 && !memcmp(s, "<0x", 3) && s[5] == '>' &&
		    (h = hexval(s[3])) >= 0 && (l = hexval(s[4])) >= 0) {
			unsigned char c = h << 4 | l;
			return tok_buf_add(&d->run, &c, 1);
		}
		if (flushrun(d, out) < 0)
			return -1;
	}
	if (steps(d, 0, s, n, out) < 0)
		return -1;
	d->first = 0;
	return 0;
}

int
tok_dec_end(struct tok_dec *d, struct tok_buf *out)
{
	if (flushrun(d, out) < 0)
		return -1;
	if (tok_buf_add(out, d->hold, d->nhold) < 0)
		return -1;
	d->nhold = 0;
	return 0;
}
