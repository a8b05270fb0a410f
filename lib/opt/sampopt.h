/* sampopt.h: the sampling and stopping options that llm-sample and
 * llm-gen share (same names, same checks, same defaults), so that the
 * two programs, given the same words, make the same choices. */
#ifndef SAMPOPT_H
#define SAMPOPT_H

#include <getopt.h>

#include "disk/cfg.h"
#include "stream/sample.h"
#include "stream/stoptext.h"

enum {
	SOPT_TEMP = 0x100, SOPT_TOPK, SOPT_TOPP, SOPT_MINP, SOPT_PENALTY,
	SOPT_LASTN, SOPT_SEED, SOPT_STOP, SOPT_NOEOS, SOPT_STOPTEXT
};

/* Entries for a getopt_long table; -n (--max-new, -1 for no limit) is
 * the programs' own short option, passed to sampopt_parse as 'n'.
 * --n-predict and --temperature are llama.cpp's spellings. */
#define SAMPOPT_LONGOPTS \
	{ "max-new",        required_argument, NULL, 'n' }, \
	{ "temp",           required_argument, NULL, SOPT_TEMP }, \
	{ "n-predict",      required_argument, NULL, 'n' }, \
	{ "temperature",    required_argument, NULL, SOPT_TEMP }, \
	{ "top-k",          required_argument, NULL, SOPT_TOPK }, \
	{ "top-p",          required_argument, NULL, SOPT_TOPP }, \
	{ "min-p",          required_argument, NULL, SOPT_MINP }, \
	{ "repeat-penalty", required_argument, NULL, SOPT_PENALTY }, \
	{ "repeat-last-n",  required_argument, NULL, SOPT_LASTN }, \
	{ "seed",           required_argument, NULL, SOPT_SEED }, \
	{ "stop",           required_argument, NULL, SOPT_STOP }, \
	{ "ignore-eos",     no_argument,       NULL, SOPT_NOEOS }

/* --stop-text, for the programs that have the tokenizer (llm-gen): its
 * entry and its line of --help. */
#define SAMPOPT_STOPTEXT_LONGOPT \
	{ "stop-text",      required_argument, NULL, SOPT_STOPTEXT }
#define SAMPOPT_STOPTEXT_HELP \
	"      --stop-text=S     stop after the id that completes S in the text (repeatable)\n"

/* Their lines of --help (-n is the caller's: its meaning differs). */
#define SAMPOPT_HELP \
	"      --temp=T, --temperature=T\n" \
	"                        temperature, 0 for greedy (default 1)\n" \
	"      --top-k=K         keep the K most likely ids, 0 for all (default 50)\n" \
	"      --top-p=P         nucleus: keep the ids making up P, in (0, 1] (default 1)\n" \
	"      --min-p=P         drop ids below P times the best, in [0, 1] (default 0)\n" \
	"      --repeat-penalty=P  penalty for ids seen before, > 0 (default 1: none)\n" \
	"      --repeat-last-n=N   how many last ids it looks at, -1 all (default 64)\n" \
	"      --seed=S          seed of the random stream, 0 to 2^64-1 (default random)\n" \
	"      --stop=ID         stop after writing ID (repeatable)\n" \
	"      --ignore-eos      the model's end-of-sequence ids do not stop it\n"
#define SAMPOPT_USAGE \
	"[-n num] [--temp t] [--top-k k] [--top-p p] [--min-p p]\n" \
	"       [--repeat-penalty p] [--repeat-last-n n] [--seed s] [--stop id ...]\n" \
	"       [--ignore-eos]"

struct sampopt {
	struct sampler_opts o;
	struct stop st;
	struct stoptext stext;	/* --stop-text strings */
	int seeded;		/* --seed was given */
	unsigned given;		/* the options given (1 << their SOPT_ - SOPT_TEMP; -n: 1 << 15) */
};

/* Defaults: sampler_defaults(), no stop condition. */
void sampopt_init(struct sampopt *so);
/* Take option c with argument arg if it is one of ours: 1 if taken, 0 if
 * not ours, -1 after error() for a bad value (the caller exits 2). */
int sampopt_parse(struct sampopt *so, int c, const char *arg);
/* After the options: the model's generation_config.json defaults (c,
 * NULL for none) for what was not given: do_sample false means greedy
 * (temperature 0), true its temperature, top_k, top_p, min_p and
 * repetition_penalty, as HuggingFace generate() takes them; without
 * do_sample those values are the defaults of our sampling (we sample
 * where generate() would not); max_new_tokens is -n's default.  Then a
 * seed from the system unless --seed; check the sampler options as a
 * whole; unless --ignore-eos, add the model's EOS ids.  0, or -1 after
 * error(). */
int sampopt_finish(struct sampopt *so, const struct cfg *c);
void sampopt_free(struct sampopt *so);

#endif
