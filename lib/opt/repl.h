/* repl.h: llm-text -i, a session of prompts over one loaded model.
 *
 * Each input line is a prompt, encoded as tok-encode encodes a record (the
 * post-processor's BOS added), continued as llm-gen continues it (a fresh
 * KV cache, the sampler and stop conditions of struct sampopt) and written
 * as tok-decode --skip-special writes the continuation alone, as it is
 * sampled.  The random stream runs on from one prompt to the next;
 * /seed S restarts it, so that the next continuation is the one
 * llm-text --seed S gives.  A line starting with / is a setting (/temp,
 * /seed, /n, /top-k, /top-p), /help or /quit; // starts a prompt with /.
 *
 * On a terminal (tty): "> " before each line (on msg), the continuation's
 * text as it is, and *intr (set by the caller's SIGINT handler) stops a
 * continuation and, at the prompt, the session.  Off one: no "> ", and
 * each prompt line gets one line of output, its newlines, carriage
 * returns and backslashes written \n, \r and \\ (a prompt that fails, an
 * empty line).  Settings are said back on msg, in one line each. */
#ifndef REPL_H
#define REPL_H
#include <signal.h>
#include <stdio.h>

#include "model/seq.h"
#include "opt/sampopt.h"
#include "stream/sample.h"
#include "tok/tok.h"

struct repl {
	struct seq *sq;			/* borrowed: the sequence, on its model */
	struct tok *tok;		/* borrowed */
	struct sampopt *so;		/* borrowed: the settings */
	struct sampler s;
	struct tok_ids ids;		/* prompt and continuation */
	struct tok_dec dec;
	struct tok_buf text;		/* decoder output (scratch) */
	FILE *out, *msg;
	int tty;
	volatile sig_atomic_t *intr;	/* NULL: no interruption */
	int failed;			/* lines refused so far */
};

/* Set r up over sequence sq (on its model), tokenizer t and the finished options so
 * (sampopt_finish'ed), writing continuations to out and the prompt and
 * replies to msg.  0, or -1 after error(); r is then safe to repl_free. */
int repl_init(struct repl *r, struct seq *sq, struct tok *t,
    struct sampopt *so, FILE *out, FILE *msg, int tty,
    volatile sig_atomic_t *intr);
/* Read and answer lines from in until /quit, the end of input or, on a
 * terminal, an interrupt at the prompt.  A bad setting or a prompt that
 * cannot be continued (too long for the context) is named on stderr and
 * counted in r->failed, and the session goes on.  0, or -1 after error()
 * (read or write error, no memory, a logit not finite). */
int repl_run(struct repl *r, FILE *in);
/* Release what r holds (not what it borrows); r may be zeroed. */
void repl_free(struct repl *r);

#endif
