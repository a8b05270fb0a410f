/* order.c: records' output in input order (order.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "stream/order.h"

void
order_init(struct order *o, FILE *out, const char *name)
{
	memset(o, 0, sizeof(*o));
	o->out = out;
	o->name = name;
	o->first = 1;
}

static struct order_ent *
ent(const struct order *o, unsigned long long t)
{
	if (t < o->first || t - o->first >= o->n)
		return NULL;
	return o->q[(o->head + (size_t)(t - o->first)) % o->cap];
}

FILE *
order_begin(struct order *o, unsigned long long *t)
{
	struct order_ent **q, *e;
	size_t i;

	if (o->n == o->cap) {	/* grow the ring, the oldest first again */
		if (!(q = xreallocarray(NULL, o->cap ? 2 * o->cap : 16,
		    sizeof(*q))))
			return NULL;
		for (i = 0; i < o->n; i++)
			q[i] = o->q[(o->head + i) % o->cap];
		free(o->q);
		o->q = q, o->head = 0;
		o->cap = o->cap ? 2 * o->cap : 16;
	}
	if (!(e = calloc(1, sizeof(*e)))) {
		error("cannot allocate a record's output:");
		return NULL;
	}
	if (!(e->f = open_memstream(&e->buf, &e->len))) {
		error("cannot buffer a record's output:");
		free(e);
		return NULL;
	}
	o->q[(o->head + o->n) % o->cap] = e;
	*t = o->first + o->n++;
	return e->f;
}

void
order_end(struct order *o, unsigned long long t)
{
	struct order_ent *e = ent(o, t);

	if (e)
		e->ended = 1;
}

void
order_cut(struct order *o, unsigned long long t)
{
	struct order_ent *e;

	while ((e = ent(o, ++t)))
		e->cut = e->ended = 1;
}

int
order_flush(struct order *o)
{
	struct order_ent *e;

	while (o->n) {
		e = o->q[o->head];
		if (!e->cut) {
			if (fflush(e->f) == EOF)
				return error("cannot buffer a record's output:");
			if (e->len && fwrite(e->buf, 1, e->len, o->out) != e->len)
				return errno == EPIPE ? -1 :
				    error("%s: write error:", o->name);
			/* the bytes written out: the next overwrite them */
			rewind(e->f);
		}
		if (!e->ended)
			break;
		fclose(e->f);
		free(e->buf);
		free(e);
		o->head = (o->head + 1) % o->cap;
		o->n--, o->first++;
	}
	return 0;
}

size_t
order_len(const struct order *o)
{
	return o->n;
}

void
order_free(struct order *o)
{
	struct order_ent *e;

	for (; o->n; o->n--, o->head = (o->head + 1) % o->cap) {
		e = o->q[o->head];
		fclose(e->f);
		free(e->buf);
		free(e);
	}
	free(o->q);
	memset(o, 0, sizeof(*o));
}
