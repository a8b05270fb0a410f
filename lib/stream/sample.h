/* sample.h: the sampler and the stop conditions, shared by llm-sample and
 * llm-gen so that both choose the same ids from the same logits.
 *
 * sampler_next() applies, in HuggingFace generate()'s order:
 * repetition penalty (over the distinct ids among the last repeat_last_n
 * of the history: logit < 0 ? logit * p : logit / p), temperature
 * (logit / temp), top-k (keeps every logit >= the k-th largest), top-p
 * (keeps the best ids, best first, while the probability mass before
 * each is < top_p), min-p (keeps p >= min_p * max p); then draws from the
 * softmax of what is left.  Temperature 0 is greedy: the argmax after the
 * penalty, lowest id on ties.
 *
 * Random stream: xoshiro256** whose state is four successive outputs of
 * splitmix64 started at the seed.  Every sampler_next() call takes exactly
 * one 64-bit output x (also when greedy), u = (x >> 11) * 2^-53 in [0, 1);
 * it picks the first kept id, in increasing id order, at which the running
 * sum of kept probabilities exceeds u times their total. */
#ifndef SAMPLE_H
#define SAMPLE_H

#include <stddef.h>
#include <stdint.h>

struct sampler_opts {
	float temp;		/* >= 0; 0 = greedy */
	int top_k;		/* 0 = off */
	float top_p;		/* in (0, 1]; 1 = off */
	float min_p;		/* in [0, 1]; 0 = off */
	float repeat_penalty;	/* > 0; 1 = off */
	int repeat_last_n;	/* ids of history the penalty looks at; -1 = all */
	uint64_t seed;
};

/* The defaults, those of HuggingFace generate() with do_sample: temp 1,
 * top_k 50, top_p 1, min_p 0, repeat_penalty 1, repeat_last_n 64, seed 0
 * (callers draw a seed with sampler_seed_system() unless given one). */
void sampler_defaults(struct sampler_opts *o);

/* A seed from the system: getrandom(), else /dev/urandom, else time and
 * pid.  Never fails. */
uint64_t sampler_seed_system(void);

struct sampler {
	struct sampler_opts o;
	int vocab;
	uint64_t rng[4];	/* xoshiro256** state */
	double *p;		/* vocab: probabilities, 0 for removed ids */
	int *idx;		/* vocab: candidate ids */
	unsigned char *seen;	/* vocab: marks for the repetition penalty */
	uint64_t *keys;		/* 2 * vocab: radix sort scratch */
	int bad;		/* the logit that was not finite (sampler_next) */
};

/* Check o (returns -1 after error() naming the bad field, e.g.
 * "top-p 1.5: not in (0, 1]") and set s up for vocab ids, seeding its
 * random stream from o->seed.  Free with sampler_free.  0, or -1 after
 * error() (bad option, out of memory). */
int sampler_init(struct sampler *s, const struct sampler_opts *o, int vocab);
/* Restart the random stream from the seed, as sampler_init left it: for
 * a new, independent prompt (so that a batch run gives each prompt the ids
 * it gets alone). */
void sampler_reset(struct sampler *s);
/* Release s; s may be zeroed or half-built. */
void sampler_free(struct sampler *s);

/* Choose the next id from logits (s->vocab floats, modified in place by
 * the repetition penalty) given the ids so far, hist[0..nhist)
 * (ids outside [0, vocab) are ignored).  Takes exactly one draw from the
 * random stream.  Returns the id (>= 0), or -1 if a logit is not finite
 * (NaN or an infinity: s->bad is its index; nothing is reported, the
 * caller knows the record and position). */
int sampler_next(struct sampler *s, float *logits, const int *hist,
    size_t nhist);

/* The next draw in [0, 1) (53 bits), advancing the stream: what
 * sampler_next uses; exported for tests. */
double sampler_draw(struct sampler *s);

/* The indices of the k largest of x[0..n) into idx[0..k), best first,
 * ties lower index first.  idx must hold n ints (used as scratch).
 * k is clamped to n; returns k.  O(n log k) (a heap of k). */
size_t sample_top(int *idx, const float *x, size_t n, size_t k);

/* Stop conditions.  The stopping id itself is written (as HuggingFace
 * generate() keeps the EOS in its output), then generation stops. */
enum stop_why { STOP_NONE, STOP_MAX, STOP_ID, STOP_EOS,
	STOP_TEXT		/* a stop string (stoptext.h: the caller's) */
};

struct stop {
	long long max_new;	/* stop after this many ids; -1 = no limit */
	int *ids;		/* --stop ids */
	size_t n_ids;
	int *eos;		/* the model's EOS ids */
	size_t n_eos;
	int ignore_eos;		/* 1: EOS ids do not stop */
	long long n;		/* ids counted since stop_reset */
};

/* Set st to no conditions: max_new -1, no ids, n 0. */
void stop_init(struct stop *st);
/* Add a --stop id, or an EOS id.  0, or -1 after error() (no memory). */
int stop_add_id(struct stop *st, int id);
int stop_add_eos(struct stop *st, int id);
/* Start counting anew (a new prompt). */
void stop_reset(struct stop *st);
/* 1 if max_new is 0, i.e. nothing at all is to be generated. */
int stop_none(const struct stop *st);
/* Count id as generated (and written); return why generation stops after
 * it, or STOP_NONE.  An id that is both a --stop id and an EOS id gives
 * STOP_ID; max_new is checked last. */
enum stop_why stop_check(struct stop *st, int id);
/* "max-new", "stop id", "eos", "stop text", "none": for -v messages. */
const char *stop_name(enum stop_why why);
/* Release st's arrays; st may be zeroed. */
void stop_free(struct stop *st);

#endif
