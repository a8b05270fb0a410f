#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stream/stoptext.h"
#include "base/util.h"

int
stoptext_add(struct stoptext *st, const char *s)
{
	size_t cap = st->n, l = strlen(s);
	char *c;

	if (!l)
		return error("an empty stop string");
	if (!(c = xstrdup(s)))
		return -1;
	/* the two arrays grow together: cap tracks s's, len is resized to it */
	if (xgrow(&st->s, &cap, st->n + 1, sizeof(*st->s)) < 0) {
		free(c);
		return -1;
	}
	{
		size_t *v = xreallocarray(st->len, cap, sizeof(*v));

		if (!v) {
			free(c);
			return -1;
		}
		st->len = v;
	}
	st->s[st->n] = c;
	st->len[st->n++] = l;
	if (l > st->maxlen)
		st->maxlen = l;
	return 0;
}

void
stoptext_reset(struct stoptext *st)
{
	st->win.n = 0;
	st->total = 0;
	st->hit = -1;
	st->hitend = 0;
}

int
stoptext_feed(struct stoptext *st, const char *p, size_t n)
{
	size_t tail = st->win.n, best = 0, i, j, keep;
	int hit = -1;

	if (!n || !st->n)
		return 0;
	if (tok_buf_add(&st->win, p, n) < 0)
		return -1;
	/* an occurrence must end in the new bytes: the window before them
	 * is short of every string by a byte, so none lies wholly in it */
	for (i = 0; i < st->n; i++) {
		size_t l = st->len[i];

		if (l > st->win.n)
			continue;
		for (j = tail + 1 > l ? tail + 1 - l : 0; j + l <= st->win.n; j++)
			if (!memcmp(st->win.p + j, st->s[i], l)) {
				if (hit < 0 || j + l < best)
					hit = (int)i, best = j + l;
				break;
			}
	}
	if (hit >= 0) {
		st->hit = hit;
		st->hitend = st->total - tail + best;
	}
	st->total += n;
	keep = st->maxlen - 1;
	if (st->win.n > keep) {
		memmove(st->win.p, st->win.p + st->win.n - keep, keep);
		st->win.n = keep;
	}
	return hit >= 0;
}

/* An id the tokenizer lacks (a model's vocabulary padded beyond it)
 * writes nothing, as far as stop strings go. */
static int
known(const struct tok *t, int id)
{
	return id >= 0 && id < t->ntok && t->str[id];
}

int
stoptext_start(struct stoptext *st, const struct tok *t, const int *ids,
    size_t n)
{
	size_t i;

	stoptext_reset(st);
	tok_dec_start(&st->dec, t, 0);
	for (i = 0; i < n; i++) {
		st->out.n = 0;
		if (known(t, ids[i]) && tok_dec_push(&st->dec, ids[i], &st->out) < 0)
			return error("cannot allocate the decoder's text");
	}
	st->out.n = 0;
	return 0;
}

int
stoptext_push(struct stoptext *st, int id)
{
	st->out.n = 0;
	if (!known(st->dec.t, id))
		return 0;
	if (tok_dec_push(&st->dec, id, &st->out) < 0)
		return error("cannot allocate the decoder's text");
	return stoptext_feed(st, st->out.p, st->out.n);
}

const char *
stoptext_hitname(const struct stoptext *st, char *buf, size_t size)
{
	const unsigned char *p;
	size_t n = 0;

	if (size < 16 || st->hit < 0 || (size_t)st->hit >= st->n)
		return "text";
	n = (size_t)snprintf(buf, size, "text \"");
	for (p = (const unsigned char *)st->s[st->hit]; *p && n + 8 < size; p++) {
		int c = *p;

		if (c == '\n' || c == '\t' || c == '\r' || c == '\\' || c == '"')
			n += (size_t)snprintf(buf + n, size - n, "\\%c",
			    c == '\n' ? 'n' : c == '\t' ? 't' : c == '\r' ? 'r' : c);
		else if (c < 0x20 || c == 0x7f)
			n += (size_t)snprintf(buf + n, size - n, "\\x%02x", c);
		else
			buf[n++] = (char)c;
	}
	snprintf(buf + n, size - n, "%s\"", *p ? "..." : "");
	return buf;
}

void
stoptext_free(struct stoptext *st)
{
	size_t i;

	for (i = 0; i < st->n; i++)
		free(st->s[i]);
	free(st->s);
	free(st->len);
	free(st->win.p);
	free(st->out.p);
	tok_dec_free(&st->dec);
	memset(st, 0, sizeof *st);
}
