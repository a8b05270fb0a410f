/* llm-score: how likely the model finds each token record: the
 * log-probability of every token given the ones before it. */
#include <getopt.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>

#include "../lib/model/model.h"
#include "../lib/opt/modelopt.h"
#include "../lib/stream/batch.h"
#include "../lib/stream/rec.h"
#include "../lib/stream/sample.h"
#include "../lib/stream/score.h"
#include "../lib/base/util.h"

enum { O_PERTOKEN = 0x500, O_TOP, O_FROM, O_STRIDE };

static int pertoken, topk;
static size_t from = 1, stride;
static int *topidx;

static _Noreturn void
usage(int status)
{
	FILE *f = status ? stderr : stdout;

	fprintf(f, "usage: %s [-k] [--per-token [--top k]] [--from n] [--stride n]\n"
	    "       " MODELOPT_USAGE " " REC_IDS_USAGE " [file ...]\n", argv0);
	if (!status) {
		fputs("\n"
		    "For each token record, the log-probability the model gives each of its\n"
		    "tokens after the first: one line per record (scored tokens, sum of the\n"
		    "natural-log probabilities, perplexity), or one line per token.\n\n"
		    BATCH_HELP
		    "      --per-token       record, position, id, log-probability, rank per token\n"
		    "      --top=K           with --per-token: the K likeliest ids as id:logprob\n"
		    "      --from=N          score the tokens from position N on (default 1)\n"
		    "      --stride=N        records longer than the context: a window every N\n"
		    "                        positions (default half the context)\n"
		    MODELOPT_HELP MODELOPT_VERBOSE_HELP REC_IDS_HELP
		    "  -h, --help            this text\n"
		    "      --version         the version\n", f);
	}
	exit(status ? status : fshut(stdout, "<stdout>"));
}

/* Score the token at position p + 1 of r (from input name) from the
 * logits row x of position p: 0 with its log-probability in *lp, or -1
 * after a message. */
static int
token(struct seq *sq, const struct rec *r, const char *name, size_t p,
    const float *x, double *lp)
{
	size_t vocab = (size_t)sq->m->cfg.vocab_size, at, k, n;
	int id = r->ids[p + 1];
	double lse;

	if (score_lse(x, vocab, &lse, &at) < 0)
		return error("%s: record %llu: position %zu: logit %zu is %g "
		    "(the weights hold a non-finite value?)", name, r->no, p,
		    at, x[at]);
	if (pertoken) {
		printf("%llu\t%zu\t%d\t%.9g\t%zu", r->no, p + 1, id,
		    (double)x[id] - lse, score_rank(x, vocab, id));
		n = sample_top(topidx, x, vocab, (size_t)topk);
		for (k = 0; k < n; k++)
			printf("\t%d:%.9g", topidx[k], (double)x[topidx[k]] - lse);
		putchar('\n');
	}
	*lp = (double)x[id] - lse;
	return 0;
}

struct pass {			/* what the rows of a window are scored for */
	struct seq *sq;
	const struct rec *r;
	const char *name;
	size_t p0;		/* the position of the first row */
	size_t scored;
	double sum;
};

static int
rows(void *ctx, const float *logits, int i, int n)
{
	struct pass *ps = ctx;
	size_t vocab = (size_t)ps->sq->m->cfg.vocab_size;
	double lp = 0;
	int j;

	for (j = 0; j < n; j++) {
		if (token(ps->sq, ps->r, ps->name, ps->p0 + (size_t)(i + j),
		    logits + (size_t)j * vocab, &lp) < 0)
			return -1;
		ps->sum += lp;
		ps->scored++;
	}
	return 0;
}

/* Score record r (from input name) window by window; prints its line
 * unless --per-token.  Each window runs its positions up to the last
 * target's: those before the first target's need no logits, the rest
 * give theirs to rows().  0, or -1 after a message: a record with no
 * token to score (empty, or no longer than --from) is refused rather
 * than given a perplexity of nan. */
static int
score(struct seq *sq, const struct rec *r, const char *name)
{
	struct score_win w = { 0 };
	struct pass ps = { sq, r, name, 0, 0, 0 };

	if (rec_check(r, sq->m->cfg.vocab_size, name) < 0)
		return -1;
	if (r->n == 0)
		return error("%s: record %llu is empty: no token to score",
		    name, r->no);
	if (r->n <= from)
		return error("%s: record %llu: %zu token%s, none to score "
		    "(%s %zu)", name, r->no, r->n, r->n == 1 ? "" : "s",
		    from == 1 ? "the first is context only: scoring starts at "
		    "position" : "--from", from);

	while (score_window(&w, r->n, (size_t)sq->ctx, stride)) {
		size_t lo = w.first > from ? w.first : from;

		if (lo >= w.end)
			continue;
		seq_reset(sq);
		if (lo - 1 > w.begin && !seq_forward(sq, r->ids + w.begin,
		    (int)(lo - 1 - w.begin)))
			return error("%s: record %llu: cannot run the model",
			    name, r->no);
		ps.p0 = lo - 1;
		/* rows() or the model has said why */
		if (seq_forward_all(sq, r->ids + lo - 1, (int)(w.end - lo), rows,
		    &ps) < 0)
			return -1;
	}
	/* --stride past the context leaves some tokens unscored */
	if (!ps.scored)
		return error("%s: record %llu: no token scored (see --stride)",
		    name, r->no);
	if (!pertoken)
		printf("%zu\t%.9g\t%.9g\n", ps.scored, ps.sum,
		    exp(-ps.sum / (double)ps.scored));
	return 0;
}

int
main(int argc, char *argv[])
{
	static const struct option opts[] = {
		BATCH_LONGOPT,
		{ "per-token", no_argument,       NULL, O_PERTOKEN },
		{ "top",       required_argument, NULL, O_TOP },
		{ "from",      required_argument, NULL, O_FROM },
		{ "stride",    required_argument, NULL, O_STRIDE },
		{ "help",      no_argument,       NULL, 'h' },
		{ "version",   no_argument,       NULL, 'V' },
		MODELOPT_LONGOPTS,
		REC_IDS_LONGOPT,
		{ NULL, 0, NULL, 0 }
	};
	struct modelopt mo;
	enum rec_fmt ids = REC_TEXT;
	struct model m;
	struct seq sq;
	struct rec r = { 0 };
	struct rec_files rf;
	struct batch b = { 0 };
	long long sarg = 0;
	int c, ret, got;

	argv0 = argv[0];
	modelopt_init(&mo);
	while ((c = getopt_long(argc, argv, "c:hkm:t:v", opts, NULL)) != -1) {
		switch (modelopt_parse(&mo, c, optarg)) {
		case 1:  continue;
		case -1: exit(2);
		}
		switch (c) {
		case 'k': b.keepgoing = 1; break;
		case O_PERTOKEN: pertoken = 1; break;
		case O_TOP: topk = (int)estrtonum(optarg, 0, 1 << 24, "--top"); break;
		case O_FROM: from = (size_t)estrtonum(optarg, 1, 1LL << 40, "--from"); break;
		case O_STRIDE: sarg = estrtonum(optarg, 1, 1 << 30, "--stride"); break;
		case REC_OPT_IDS:
			if (rec_fmt_parse(optarg, &ids) < 0)
				exit(2);
			break;
		case 'h': usage(0);
		case 'V': version();
		default:  usage(2);
		}
	}
	argc -= optind, argv += optind;
	if (topk && !pertoken)
		edie(2, "--top goes with --per-token");
	if (modelopt_finish(&mo) < 0)
		exit(2);
	if (modelopt_load(&m, &sq, &mo) < 0) {
		seq_close(&sq);
		model_close(&m);
		return 1;
	}
	if (sarg > sq.ctx)
		edie(2, "--stride %lld is longer than the context of %d", sarg, sq.ctx);
	stride = sarg ? (size_t)sarg : (size_t)(sq.ctx > 1 ? sq.ctx / 2 : 1);
	topidx = emalloc((size_t)m.cfg.vocab_size * sizeof(int));

	rec_files_init(&rf, argv, argc, ids);
	while ((got = batch_next(&b, &rf, &r)) > 0) {
		if (got == 2 || score(&sq, &r, rf.fl.name) < 0) {
			if (got != 2 && !batch_failed(&b))
				exit(1);
			/* a failed record: an empty line (per token: none) */
			if (!pertoken)
				putchar('\n');
		}
		efflush(stdout, "<stdout>");
	}
	rec_files_close(&rf);
	ret = got < 0 || rf.fl.failed || batch_end(&b);
	ret |= fshut(stdout, "<stdout>");
	if (mo.timing)
		seq_print_stats(&sq, stderr, argv0);
	free(topidx);
	rec_free(&r);
	seq_close(&sq);
	model_close(&m);
	return ret;
}
