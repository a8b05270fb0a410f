#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "base/util.h"
#include "opt/repl.h"

/* the settings a line can change, by their option's code */
static const struct {
	const char *name;
	int code;
	const char *help;
} sets[] = {
	{ "temp",  SOPT_TEMP, "T   temperature, 0 for greedy" },
	{ "seed",  SOPT_SEED, "S   restart the random stream from S" },
	{ "n",     'n',       "N      at most N new tokens a prompt" },
	{ "top-k", SOPT_TOPK, "K  keep the K most likely tokens, 0 for all" },
	{ "top-p", SOPT_TOPP, "P  keep the most likely tokens making up P" },
};

int
repl_init(struct repl *r, struct seq *sq, struct tok *t,
    struct sampopt *so, FILE *out, FILE *msg, int tty,
    volatile sig_atomic_t *intr)
{
	memset(r, 0, sizeof *r);
	r->sq = sq, r->tok = t, r->so = so;
	r->out = out, r->msg = msg, r->tty = tty, r->intr = intr;
	return sampler_init(&r->s, &so->o, sq->m->cfg.vocab_size);
}

void
repl_free(struct repl *r)
{
	sampler_free(&r->s);
	free(r->ids.v);
	tok_dec_free(&r->dec);
	free(r->text.p);
	memset(r, 0, sizeof *r);
}

/* Write text to out: as it is on a terminal, else on the one line */
static void
put(struct repl *r, const char *p, size_t n)
{
	size_t i;

	if (r->tty) {
		fwrite(p, 1, n, r->out);
		return;
	}
	for (i = 0; i < n; i++)
		switch (p[i]) {
		case '\n': fputs("\\n", r->out); break;
		case '\r': fputs("\\r", r->out); break;
		case '\\': fputs("\\\\", r->out); break;
		default:   putc(p[i], r->out);
		}
}

static int
flush(struct repl *r)
{
	if (fflush(r->out) == EOF)
		return error("<stdout>: write error:");
	return 0;
}

/* A line refused: said (by the caller) and counted; off a terminal its
 * line of output, empty. */
static int
refuse(struct repl *r)
{
	r->failed++;
	if (r->tty)
		return 0;
	putc('\n', r->out);
	return flush(r);
}

static int
interrupted(const struct repl *r)
{
	return r->intr && *r->intr;
}

/* The continuation of prompt p[0..n), written as it is sampled: 0 (also
 * when refused), or -1 after error(). */
static int
cont(struct repl *r, const char *p, size_t n)
{
	struct stop *st = &r->so->st;
	struct stoptext *stx = r->so->stext.n ? &r->so->stext : NULL;
	const float *logits = NULL;
	size_t i;
	int id, t, full = 0;

	r->ids.n = 0;
	if (tok_encode(r->tok, p, n, TOK_ADD_SPECIAL, &r->ids) < 0)
		return -1;
	if (r->ids.n == 0) {
		warn("the prompt encodes to no ids");
		return refuse(r);
	}
	if (r->ids.n > (size_t)r->sq->ctx) {
		warn("prompt of %zu tokens exceeds the context of %d (see --ctx)",
		    r->ids.n, r->sq->ctx);
		return refuse(r);
	}
	for (i = 0; i < r->ids.n; i++)
		if (r->ids.v[i] >= r->sq->m->cfg.vocab_size) {
			warn("prompt: id %d is past the model's vocabulary of %d",
			    r->ids.v[i], r->sq->m->cfg.vocab_size);
			return refuse(r);
		}
	seq_reset(r->sq);
	stop_reset(st);
	if (stx && stoptext_start(stx, r->tok, r->ids.v, r->ids.n) < 0)
		return -1;
	tok_dec_start(&r->dec, r->tok, 1);
	if (!stop_none(st) &&
	    !(logits = seq_forward(r->sq, r->ids.v, (int)r->ids.n)))
		return -1;
	while (logits && !interrupted(r)) {
		/* the sampler may rewrite the row (penalty) */
		if ((id = sampler_next(&r->s, (float *)logits, r->ids.v,
		    r->ids.n)) < 0)
			return error("position %zu: logit %d is %g (a weight that "
			    "is not finite?)", r->ids.n - 1, r->s.bad,
			    logits[r->s.bad]);
		if (tok_ids_push(&r->ids, id) < 0)
			return -1;
		r->text.n = 0;
		if (tok_dec_push(&r->dec, id, &r->text) < 0)
			return error("id %d: not in the tokenizer's vocabulary, "
			    "or no memory", id);
		put(r, r->text.p, r->text.n);
		if (flush(r) < 0)
			return -1;
		if (stop_check(st, id) != STOP_NONE)
			break;
		if (stx) {
			if ((t = stoptext_push(stx, id)) < 0)
				return -1;
			if (t)
				break;
		}
		if (r->sq->pos >= r->sq->ctx) {
			full = 1;
			break;
		}
		if (!(logits = seq_forward(r->sq, &id, 1)))
			return -1;
	}
	r->text.n = 0;
	if (tok_dec_end(&r->dec, &r->text) < 0)
		return -1;
	put(r, r->text.p, r->text.n);
	putc('\n', r->out);
	if (flush(r) < 0)
		return -1;
	/* after the text, on a line of its own */
	if (full)
		warn("context of %d positions is full", r->sq->ctx);
	return 0;
}

/* Say setting code's value, in one line. */
static void
say(struct repl *r, int code)
{
	const struct sampler_opts *o = &r->so->o;

	switch (code) {
	case SOPT_TEMP:
		fprintf(r->msg, "temp %g%s\n", (double)o->temp,
		    o->temp == 0 ? " (greedy)" : "");
		break;
	case SOPT_SEED:
		fprintf(r->msg, "seed %" PRIu64 "\n", o->seed);
		break;
	case 'n':
		if (r->so->st.max_new < 0)
			fputs("n none (until the end of text or a full context)\n",
			    r->msg);
		else
			fprintf(r->msg, "n %lld\n", r->so->st.max_new);
		break;
	case SOPT_TOPK:
		fprintf(r->msg, "top-k %d%s\n", o->top_k, o->top_k ? "" : " (all)");
		break;
	case SOPT_TOPP:
		fprintf(r->msg, "top-p %g\n", (double)o->top_p);
		break;
	}
	fflush(r->msg);
}

/* Set code to arg, checked as the option is: said back, or named and
 * counted. */
static void
set(struct repl *r, int code, const char *arg)
{
	struct sampopt c = *r->so;	/* these codes change no array */
	struct sampler t;

	if (sampopt_parse(&c, code, arg) < 0 || sampler_init(&t, &c.o, 1) < 0) {
		r->failed++;
		return;
	}
	sampler_free(&t);
	r->so->o = c.o;
	r->so->seeded = c.seeded;
	r->so->st.max_new = c.st.max_new;
	r->s.o = c.o;			/* the stream runs on ... */
	if (code == SOPT_SEED)
		sampler_reset(&r->s);	/* ... but for a new seed */
	say(r, code);
}

/* The command on line (its leading / included): 1 for /quit, else 0. */
static int
command(struct repl *r, char *line)
{
	char *name = line + 1, *arg, *e;
	size_t i;

	arg = name + strcspn(name, " \t");
	if (*arg)
		*arg++ = 0;
	arg += strspn(arg, " \t");
	for (e = arg + strlen(arg); e > arg && (e[-1] == ' ' || e[-1] == '\t'); )
		*--e = 0;
	if (!strcmp(name, "quit") || !strcmp(name, "q"))
		return 1;
	if (!strcmp(name, "help")) {
		for (i = 0; i < LEN(sets); i++)
			fprintf(r->msg, "/%s %s\n", sets[i].name, sets[i].help);
		fputs("/help      this list\n"
		    "/quit      leave (also the end of input)\n"
		    "a setting without a value says it; // starts a prompt with /\n",
		    r->msg);
		fflush(r->msg);
		return 0;
	}
	for (i = 0; i < LEN(sets); i++)
		if (!strcmp(name, sets[i].name)) {
			if (*arg)
				set(r, sets[i].code, arg);
			else
				say(r, sets[i].code);
			return 0;
		}
	warn("/%s: unknown command (/help lists them)", name);
	r->failed++;
	return 0;
}

/* The caller's SIGINT handler interrupts the read of a line (^C at the
 * prompt leaves) and nothing else: a write to the terminal that a ^C
 * comes into is restarted, not failed with EINTR (stdio would drop what
 * it had buffered). */
static void
restartable(struct repl *r, int on)
{
	struct sigaction sa;

	if (!r->intr || sigaction(SIGINT, NULL, &sa) < 0)
		return;
	if (on)
		sa.sa_flags |= SA_RESTART;
	else
		sa.sa_flags &= ~SA_RESTART;
	sigaction(SIGINT, &sa, NULL);
}

int
repl_run(struct repl *r, FILE *in)
{
	char *line = NULL, *p;
	size_t cap = 0;
	ssize_t len;
	int ret = 0;

	for (;;) {
		if (r->intr)
			*r->intr = 0;	/* a ^C that came as a continuation ended */
		if (r->tty) {
			fputs("> ", r->msg);
			fflush(r->msg);
		}
		errno = 0;
		restartable(r, 0);
		len = getline(&line, &cap, in);
		restartable(r, 1);
		if (len < 0) {
			if (ferror(in) && !(errno == EINTR && interrupted(r)))
				ret = error("<stdin>: read error:");
			else if (r->tty)
				putc('\n', r->msg);	/* ^C or ^D after "> " */
			break;
		}
		if (len && line[len - 1] == '\n')
			line[--len] = 0;
		if (len && line[len - 1] == '\r')
			line[--len] = 0;
		p = line;
		if (p[0] == '/' && p[1] != '/') {
			if (command(r, p))
				break;
			continue;
		}
		if (p[0] == '/')
			p++, len--;
		if (len == 0) {
			/* nothing to continue; off a terminal, its line */
			if (!r->tty && (putc('\n', r->out), flush(r) < 0)) {
				ret = -1;
				break;
			}
			continue;
		}
		if (cont(r, p, (size_t)len) < 0) {
			ret = -1;
			break;
		}
	}
	free(line);
	return ret;
}
