/* tokopt.h: the tokenizer options that tok-encode and tok-decode share
 * (-m, --tokenizer), parsed and acted on once. */
#ifndef TOKOPT_H
#define TOKOPT_H

#include <getopt.h>

#include "tok/tok.h"

enum { TOPT_TOKENIZER = 0x280 };

/* Entries for a getopt_long table; -m and -v are passed to tokopt_parse
 * as 'm' and 'v'. */
#define TOKOPT_LONGOPTS \
	{ "model",     required_argument, NULL, 'm' }, \
	{ "tokenizer", required_argument, NULL, TOPT_TOKENIZER }, \
	{ "verbose",   no_argument,       NULL, 'v' }
#define TOKOPT_USAGE "[-v] [-m model | --tokenizer file]"
#define TOKOPT_HELP \
	"  -m, --model=PATH      folder, ORG/NAME or GGUF file (default $PIPELM_MODEL,\n" \
	"                        else built-in)\n" \
	"      --tokenizer=FILE  a tokenizer.json or GGUF file instead of a model's\n" \
	"  -v, --verbose         say the tokenizer used on stderr\n"

struct tokopt {
	const char *model;	/* -m, NULL for $PIPELM_MODEL */
	const char *file;	/* --tokenizer */
	int verbose;		/* -v */
};

void tokopt_init(struct tokopt *to);
/* Take option c with argument arg if it is one of ours: 1 if taken, 0 if
 * not ours, -1 after error() when -m and --tokenizer are both given (the
 * caller exits 2). */
int tokopt_parse(struct tokopt *to, int c, const char *arg);
/* Open the tokenizer the options name: 0, or -1 after error(). */
int tokopt_open(struct tok *t, const struct tokopt *to);

#endif
