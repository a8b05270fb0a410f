/* score.h: how likely a model finds the tokens it is given.  From a row
 * of logits (float32, as the forward pass gives them) the natural-log
 * probability of one id, log_softmax computed in double, and its rank;
 * and the sliding windows that score a record longer than the context
 * the way HuggingFace's perplexity guide does ("Perplexity of
 * fixed-length models"). */
#ifndef SCORE_H
#define SCORE_H

#include <stddef.h>

/* log(sum(exp(x[0..n)))) in double, max-shifted.  0, or -1 if a logit is
 * not finite (*at is then its index). */
int score_lse(const float *x, size_t n, double *lse, size_t *at);
/* 1 + the number of entries of x[0..n) strictly greater than x[id]. */
size_t score_rank(const float *x, size_t n, int id);

/* One window of a record: positions [begin, end) run through the model
 * from a fresh cache, the tokens at [first, end) scored (each predicted
 * by the logits of the position before it). */
struct score_win {
	size_t begin, end, first;
};

/* The window after w (w zeroed for the first) for a record of n tokens,
 * windows of at most ctx positions starting every stride positions:
 * 1 with w set, 0 after the last.  Every token from position 1 on is
 * scored once, in the first window where it lies past the end of the one
 * before, given that window's context; a window's own first token has no
 * position before it in the window, so when stride >= ctx the tokens at
 * positions ctx, 2 ctx, ... are not scored (as in the guide). */
int score_window(struct score_win *w, size_t n, size_t ctx, size_t stride);

#endif
