/* score.h: how likely a model finds the tokens it is given.  From a row
 * of logits (float32, as the forward pass gives them) the natural-log
 * probability of one id, log_softmax computed in double, and its rank;
 * and the sliding windows that score a record longer than the context
 * the way HuggingFace's perplexity guide does ("Perplexity of
 * fixed-length models"). */
#ifndef SCORE_H
#define SCORE_H

#include <stddef.h>
#include <stdio.h>

#include "stream/rec.h"
#include "stream/runs.h"

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

/* What llm-score scores a record with: its options, the model's vocab
 * and the context of a window. */
struct scorer {
	int pertoken;		/* --per-token: a line a token */
	int topk;		/* --top: the K likeliest ids on it */
	size_t from;		/* --from: the first position scored */
	size_t stride;		/* --stride: a window every stride positions */
	size_t ctx;		/* positions a window */
	int vocab;
	int *topidx;		/* (vocab) --top's scratch */
};

/* A record being scored, window by window: each window the runs
 * (runs.h) of its positions up to the last target's, those before the
 * first target's without logits, the others' rows scored as they come;
 * the record's lines written to f.  A record with no token to score
 * (empty, or no longer than --from) is refused rather than given a
 * perplexity of nan. */
struct score_job {
	const struct scorer *sc;
	const struct rec *r;
	const char *name;	/* its input's, for messages */
	FILE *f;
	struct score_win w;
	int prefix;		/* the run given was a window's context only */
	size_t lo, p0;		/* the first target; the first row's position */
	size_t scored;
	double sum;
};

/* Start scoring record r of input name, writing to f: 1 with *run the
 * first run, or -1 after a message. */
int score_start(struct score_job *j, const struct scorer *sc,
    const struct rec *r, const char *name, FILE *f, struct run *run);
/* After the run given went through: 1 with the next, 0 when the record
 * is done (its line written), or -1 after a message. */
int score_next(struct score_job *j, struct run *run);

#endif
