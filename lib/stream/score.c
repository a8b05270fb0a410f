/* score.c: log-probabilities and scoring windows (score.h). */
#include <math.h>
#include <stddef.h>

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
