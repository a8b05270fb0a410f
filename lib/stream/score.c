/* score.c: log-probabilities, scoring windows and a record scored
 * window by window (score.h). */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "base/util.h"
#include "stream/sample.h"
#include "stream/score.h"

int
score_lse(const float *x, size_t n, double *lse, size_t *at)
{
	double m = -INFINITY, s = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!isfinite(x[i])) {
			*at = i;
			return -1;
		}
		if (x[i] > m)
			m = x[i];
	}
	for (i = 0; i < n; i++)
		s += exp((double)x[i] - m);
	*lse = m + log(s);
	return 0;
}

size_t
score_rank(const float *x, size_t n, int id)
{
	size_t i, r = 1;

	for (i = 0; i < n; i++)
		r += x[i] > x[id];
	return r;
}

int
score_window(struct score_win *w, size_t n, size_t ctx, size_t stride)
{
	size_t begin;

	if (w->end == 0)
		begin = 0;
	else if (w->end >= n)
		return 0;
	else
		begin = w->begin + stride;
	if (n < 2 || begin >= n)
		return 0;
	w->first = w->end > begin + 1 ? w->end : begin + 1;
	w->begin = begin;
	w->end = n - begin > ctx ? begin + ctx : n;
	return 1;
}

/* Score the token at position p + 1 of j's record from the logits row x
 * of position p: 0 with its log-probability in *lp, or -1 after a
 * message. */
static int
token(struct score_job *j, size_t p, const float *x, double *lp)
{
	const struct scorer *sc = j->sc;
	const struct rec *r = j->r;
	size_t vocab = (size_t)sc->vocab, at, k, n;
	int id = r->ids[p + 1];
	double lse;

	if (score_lse(x, vocab, &lse, &at) < 0)
		return error("%s: record %llu: position %zu: logit %zu is %g "
		    "(the weights hold a non-finite value?)", j->name, r->no, p,
		    at, x[at]);
	if (sc->pertoken) {
		fprintf(j->f, "%llu\t%zu\t%d\t%.9g\t%zu", r->no, p + 1, id,
		    (double)x[id] - lse, score_rank(x, vocab, id));
		n = sample_top(sc->topidx, x, vocab, (size_t)sc->topk);
		for (k = 0; k < n; k++)
			fprintf(j->f, "\t%d:%.9g", sc->topidx[k],
			    (double)x[sc->topidx[k]] - lse);
		putc('\n', j->f);
	}
	*lp = (double)x[id] - lse;
	return 0;
}

/* The rows of a window's scored run (seq_rows_fn). */
static int
rows(void *ctx, const float *logits, int i, int n)
{
	struct score_job *j = ctx;
	size_t vocab = (size_t)j->sc->vocab;
	double lp = 0;
	int k;

	for (k = 0; k < n; k++) {
		if (token(j, j->p0 + (size_t)(i + k), logits + (size_t)k * vocab,
		    &lp) < 0)
			return -1;
		j->sum += lp;
		j->scored++;
	}
	return 0;
}

int
score_start(struct score_job *j, const struct scorer *sc, const struct rec *r,
    const char *name, FILE *f, struct run *run)
{
	memset(j, 0, sizeof(*j));
	j->sc = sc, j->r = r, j->name = name, j->f = f;
	if (rec_check(r, sc->vocab, name) < 0)
		return -1;
	if (r->n == 0)
		return error("%s: record %llu is empty: no token to score",
		    name, r->no);
	if (r->n <= sc->from)
		return error("%s: record %llu: %zu token%s, none to score "
		    "(%s %zu)", name, r->no, r->n, r->n == 1 ? "" : "s",
		    sc->from == 1 ? "the first is context only: scoring starts "
		    "at position" : "--from", sc->from);
	return score_next(j, run);
}

int
score_next(struct score_job *j, struct run *run)
{
	const struct rec *r = j->r;
	struct score_win *w = &j->w;

	/* after a window's context: its targets (the rows from lo - 1) */
	if (j->prefix) {
		j->prefix = 0;
		*run = (struct run){ r->ids + j->lo - 1, (int)(w->end - j->lo),
		    0, rows, j };
		return 1;
	}
	while (score_window(w, r->n, j->sc->ctx, j->sc->stride)) {
		j->lo = w->first > j->sc->from ? w->first : j->sc->from;
		if (j->lo >= w->end)
			continue;
		j->p0 = j->lo - 1;
		if (j->lo - 1 > w->begin) {	/* the positions before */
			j->prefix = 1;
			*run = (struct run){ r->ids + w->begin,
			    (int)(j->lo - 1 - w->begin), 1, NULL, NULL };
		} else {
			*run = (struct run){ r->ids + j->lo - 1,
			    (int)(w->end - j->lo), 1, rows, j };
		}
		return 1;
	}
	/* --stride past the context leaves some tokens unscored */
	if (!j->scored)
		return error("%s: record %llu: no token scored (see --stride)",
		    j->name, r->no);
	if (!j->sc->pertoken)
		fprintf(j->f, "%zu\t%.9g\t%.9g\n", j->scored, j->sum,
		    exp(-j->sum / (double)j->scored));
	return 0;
}
