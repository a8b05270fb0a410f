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
#include "../lib/stream/runs.h"
#include "../lib/stream/score.h"
#include "../lib/base/util.h"

enum { O_PERTOKEN = 0x500, O_TOP, O_FROM, O_STRIDE };

static struct scorer sc = { .from = 1 };
static struct score_job *jobs;	/* -P: each slot's record */

static _Noreturn void
usage(int status)
{
	FILE *f = status ? stderr : stdout;

	fprintf(f, "usage: %s [-k] [-P n] [--per-token [--top k]] [--from n] [--stride n]\n"
	    "       " MODELOPT_USAGE " " REC_IDS_USAGE " [file ...]\n", argv0);
	if (!status) {
		fputs("\n"
		    "For each token record, the log-probability the model gives each of its\n"
		    "tokens after the first: one line per record (scored tokens, sum of the\n"
		    "natural-log probabilities, perplexity), or one line per token.\n\n"
		    BATCH_HELP
		    "  -P, --parallel=N      score up to N records at once, in shared passes\n"
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

/* Score record r (from input name) alone on sq: 0, or -1 after a
 * message. */
static int
score1(struct seq *sq, const struct rec *r, const char *name)
{
	struct score_job j;
	struct run run;
	int k = score_start(&j, &sc, r, name, stdout, &run);

	while (k == 1)
		k = runs_one(sq, &run, 1) < 0 ? -1 : score_next(&j, &run);
	return k;
}

/* -P: the records' runs (runs.h) */
static int
start(void *ctx, int i, const struct rec *r, const char *name, FILE *f,
    struct run *run)
{
	(void)ctx;
	return score_start(&jobs[i], &sc, r, name, f, run);
}

static int
next(void *ctx, int i, struct run *run)
{
	(void)ctx;
	return score_next(&jobs[i], run);
}

/* a failed record: an empty line (per token: none) */
static void
failed(void *ctx, int i, FILE *f)
{
	(void)ctx, (void)i;
	if (!sc.pertoken)
		putc('\n', f);
}

int
main(int argc, char *argv[])
{
	static const struct option opts[] = {
		BATCH_LONGOPT,
		{ "parallel",  required_argument, NULL, 'P' },
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
	struct runs R;
	long long sarg = 0;
	int c, ret, got, par = 1;

	argv0 = argv[0];
	modelopt_init(&mo);
	while ((c = getopt_long(argc, argv, "c:hkm:P:t:v", opts, NULL)) != -1) {
		switch (modelopt_parse(&mo, c, optarg)) {
		case 1:  continue;
		case -1: exit(2);
		}
		switch (c) {
		case 'k': b.keepgoing = 1; break;
		case 'P': par = (int)estrtonum(optarg, 1, RUNS_MAX, "-P"); break;
		case O_PERTOKEN: sc.pertoken = 1; break;
		case O_TOP: sc.topk = (int)estrtonum(optarg, 0, 1 << 24, "--top"); break;
		case O_FROM: sc.from = (size_t)estrtonum(optarg, 1, 1LL << 40, "--from"); break;
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
	if (sc.topk && !sc.pertoken)
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
	sc.stride = sarg ? (size_t)sarg : (size_t)(sq.ctx > 1 ? sq.ctx / 2 : 1);
	sc.ctx = (size_t)sq.ctx;
	sc.vocab = m.cfg.vocab_size;
	sc.topidx = emalloc((size_t)m.cfg.vocab_size * sizeof(int));

	rec_files_init(&rf, argv, argc, ids);
	if (par > 1) {
		static const struct runs_ops ops = { start, next, failed };

		jobs = ecalloc((size_t)par, sizeof(*jobs));
		if (runs_open(&R, &m, sq.ctx, sq.kvt, par, 1) < 0 ||
		    (got = runs_all(&R, &b, &rf, stdout, "<stdout>", &ops,
		    NULL)) < 0)
			exit(1);
		got = -got;	/* 1: the input failed */
	} else {
		while ((got = batch_next(&b, &rf, &r)) > 0) {
			if (got == 2 || score1(&sq, &r, rf.fl.name) < 0) {
				if (got != 2 && !batch_failed(&b))
					exit(1);
				failed(NULL, -1, stdout);
			}
			efflush(stdout, "<stdout>");
		}
	}
	rec_files_close(&rf);
	ret = got < 0 || rf.fl.failed || batch_end(&b);
	ret |= fshut(stdout, "<stdout>");
	if (par > 1)
		runs_print_stats(&R, stderr, argv0, mo.verbose, mo.timing);
	if (mo.timing)
		seq_print_stats(&sq, stderr, argv0);
	if (par > 1)
		runs_close(&R);
	free(sc.topidx);
	free(jobs);
	rec_free(&r);
	seq_close(&sq);
	model_close(&m);
	return ret;
}
