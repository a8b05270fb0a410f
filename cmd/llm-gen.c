#include <sys/stat.h>

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/base/files.h"
#include "../lib/kern/kern.h"
#include "../lib/model/model.h"
#include "../lib/opt/modelopt.h"
#include "../lib/stream/batch.h"
#include "../lib/stream/gen.h"
#include "../lib/stream/rec.h"
#include "../lib/stream/sample.h"
#include "../lib/opt/sampopt.h"
#include "../lib/tok/tok.h"
#include "../lib/base/util.h"

static int echo, sflag, vflag;	/* vflag: -v, given to modelopt too */
static int par;			/* -P: records in flight, 0 if not given */
static struct rec hist;		/* the sequence: prompt and generated ids (in
				 * session mode all records'); the model has run
				 * hist.ids[0..sq->pos) */
static struct tok tok;		/* for --stop-text */
static enum rec_fmt ids = REC_TEXT;

static _Noreturn void
usage(int status)
{
	fprintf(status ? stderr : stdout,
	    "usage: %s [-eksv] [-P n] " SAMPOPT_USAGE " [--stop-text s ...]\n"
	    "       " REC_IDS_USAGE "\n"
	    "       " MODELOPT_USAGE " [file ...]\n",
	    argv0);
	if (!status)
		fputs("\n"
	    "  -e, --echo            start each output record with the prompt's ids\n"
	    "  -s, --session         one sequence across all records, each extending it\n"
	    "  -P, --parallel=N      up to N records at once, their passes batched (output\n"
	    "                        in input order, each as -P 1 gives it; default 1)\n"
	    "  -v, --verbose         say the model, kernels, threads, mode and seed, and\n"
	    "                        why each prompt stopped\n"
	    BATCH_HELP
	    "  -n, --max-new=N, --n-predict=N\n"
	    "                        at most N new ids a prompt, -1 for no limit (default:\n"
	    "                        until EOS or context)\n"
	    SAMPOPT_HELP
	    SAMPOPT_STOPTEXT_HELP
	    REC_IDS_HELP
	    MODELOPT_HELP
	    "  -h, --help            print this help and exit\n"
	    "      --version         print the version and exit\n", stdout);
	exit(status ? status : fshut(stdout, "<stdout>"));
}

/* llm-gen -s 42, as llama.cpp's -s (its seed): a number that is no file
 * is said to be one, with the option meant, before the model loads. */
static void
seed_hint(char **paths, int n)
{
	struct stat sb;
	int i;

	for (i = 0; i < n; i++)
		if (paths[i][0] && strspn(paths[i], "0123456789") ==
		    strlen(paths[i]) && stat(paths[i], &sb) < 0)
			die("%s: no such file (-s is --session here: the seed "
			    "is --seed %s)", paths[i], paths[i]);
}

/* Generate the continuation of prompt r (from input name), in session
 * mode of the whole sequence so far: write each id as it is sampled.
 * 0, or -1 after a message for a prompt refused (before it ran, or,
 * outside a session, as it ran): the caller ends its output record.
 * A session that cannot go on ends the run. */
static int
generate(struct seq *sq, struct sampler *s, struct sampopt *so,
    struct rec *r, const char *name)
{
	struct stop *st = &so->st;
	struct stoptext *stx = so->stext.n ? &so->stext : NULL;
	enum stop_why why = STOP_NONE;
	const float *logits = NULL;
	size_t from, i;
	int id, first = 1, pos0, fed;
	char wbuf[128];
	const char *wname;

	if (rec_check(r, sq->m->cfg.vocab_size, name) < 0)
		return -1;
	if (!sflag || hist.n == 0) {
		seq_reset(sq);
		sampler_reset(s);	/* each prompt as if run alone */
		hist.n = 0;
	}
	if (r->n == 0 && hist.n == 0)
		return error("%s: record %llu: empty prompt", name, r->no);
	if (hist.n + r->n > (size_t)sq->ctx)
		return error("%s: record %llu: %s of %zu tokens exceeds the "
		    "context of %d (see --ctx)", name, r->no, hist.n ?
		    "session" : "prompt", hist.n + r->n, sq->ctx);
	pos0 = sq->pos;
	from = hist.n;
	fed = (int)(hist.n + r->n) - pos0;
	if (xgrow(&hist.ids, &hist.cap, hist.n + r->n, sizeof(*hist.ids)) < 0)
		exit(1);
	for (i = 0; i < r->n; i++)
		hist.ids[hist.n++] = r->ids[i];
	stop_reset(st);
	if (stx && stoptext_start(stx, &tok, hist.ids, hist.n) < 0)
		exit(1);
	if (echo && ids == REC_TEXT)
		for (i = from; i < hist.n; i++, first = 0)
			rec_put(stdout, hist.ids[i], first);
	/* in session mode the last id of the record before (never run) and
	 * this record's */
	if (!stop_none(st) &&
	    !(logits = seq_forward(sq, hist.ids + sq->pos, (int)hist.n - sq->pos)))
		goto fail;	/* it said why */
	while (!stop_none(st)) {
		/* the sampler may rewrite the row (penalty): it is ours until
		 * the next forward */
		if ((id = sampler_next(s, (float *)logits, hist.ids, hist.n)) < 0) {
			warn("%s: record %llu: position %zu: logit %d is %g (a "
			    "weight that is not finite?)", name, r->no, hist.n - 1,
			    s->bad, logits[s->bad]);
			goto fail;
		}
		if (xgrow(&hist.ids, &hist.cap, hist.n + 1, sizeof(*hist.ids)) < 0)
			exit(1);
		hist.ids[hist.n++] = id;
		if (ids == REC_TEXT) {
			rec_put(stdout, id, first);
			first = 0;
			efflush(stdout, "<stdout>");
		}
		if ((why = stop_check(st, id)) != STOP_NONE)
			break;
		if (stx) {
			int t = stoptext_push(stx, id);

			if (t < 0)
				exit(1);
			if (t) {
				why = STOP_TEXT;
				break;
			}
		}
		if (sq->pos >= sq->ctx) {
			warn("%s: record %llu: context of %d positions is full",
			    name, r->no, sq->ctx);
			break;
		}
		if (!(logits = seq_forward(sq, &id, 1)))
			goto fail;
	}
	wname = why == STOP_TEXT ? stoptext_hitname(stx, wbuf, sizeof wbuf) :
	    stop_name(why);
	if (vflag && sflag)
		warn("%s: record %llu: %d positions kept, %d fed, %zu ids, "
		    "stop: %s", name, r->no, pos0, fed, hist.n - from - r->n,
		    wname);
	else if (vflag)
		warn("%s: record %llu: %zu ids, stop: %s", name, r->no,
		    hist.n - from - r->n, wname);
	if (ids == REC_U32)
		rec_write(stdout, ids, hist.ids + from + (echo ? 0 : r->n),
		    hist.n - from - (echo ? 0 : r->n));
	else
		rec_end(stdout);
	efflush(stdout, "<stdout>");
	return 0;
fail:
	/* the session's sequence is no longer what the model ran */
	if (sflag)
		exit(1);
	return -1;
}

/* -P N: the records of rf, up to N at once (gen.h).  0, or 1 when a
 * record stopped the run. */
static int
parallel(struct model *m, const struct seq *sq, struct sampopt *so,
    struct batch *b, struct rec_files *rf, int timing)
{
	struct gen_opts o = { &so->o, &so->st, so->stext.n ? &so->stext : NULL,
		&tok, ids, echo, vflag, sq->ctx, sq->kvt };
	struct gen g;
	int ret;

	if (gen_init(&g, m, par, &o) < 0)
		exit(1);
	if ((ret = gen_run(&g, b, rf, stdout)) < 0)
		exit(1);
	if (vflag || timing)
		gen_print_stats(&g, stderr, argv0);
	gen_free(&g);
	return ret;
}

/* End the output record of a prompt that failed: empty, or in text
 * framing the ids written before it failed. */
static void
endfailed(void)
{
	if (ids == REC_U32)
		rec_write(stdout, ids, NULL, 0);
	else
		rec_end(stdout);
	efflush(stdout, "<stdout>");
}

int
main(int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "echo",    no_argument,       NULL, 'e' },
		BATCH_LONGOPT,
		{ "help",    no_argument,       NULL, 'h' },
		{ "version", no_argument,       NULL, 'V' },
		MODELOPT_LONGOPTS,
		REC_IDS_LONGOPT,
		SAMPOPT_LONGOPTS,
		SAMPOPT_STOPTEXT_LONGOPT,
		{ "session", no_argument,       NULL, 's' },
		{ "parallel", required_argument, NULL, 'P' },
		{ NULL, 0, NULL, 0 }
	};
	struct modelopt mo;
	struct sampopt so;
	struct sampler s = { 0 };
	struct model m;
	struct seq sq;
	struct rec r = { 0 };
	struct rec_files rf;
	struct batch b = { 0 };
	int c, ret, got, r1, r2;

	argv0 = argv[0];
	modelopt_init(&mo);
	sampopt_init(&so);
	while ((c = getopt_long(argc, argv, "c:ehkm:n:P:st:v", opts, NULL)) != -1) {
		if ((r1 = modelopt_parse(&mo, c, optarg)) < 0 ||
		    (r2 = sampopt_parse(&so, c, optarg)) < 0)
			exit(2);
		if (c == 'v')
			vflag = 1;
		if (r1 || r2)
			continue;
		switch (c) {
		case 'e': echo = 1; break;
		case 'k': b.keepgoing = 1; break;
		case 's': sflag = 1; break;
		case 'P':
			par = (int)estrtonum(optarg, 1,
			    SEQ_MAXBATCH - GEN_PREFILL, "-P");
			break;
		case 'h': usage(0);
		case REC_OPT_IDS:
			if (rec_fmt_parse(optarg, &ids) < 0)
				exit(2);
			break;
		case 'V': version();
		default:  usage(2);
		}
	}
	argc -= optind, argv += optind;
	if (modelopt_finish(&mo) < 0)
		exit(2);
	if (sflag && par) {
		warn("-s and -P cannot go together: a session is one sequence");
		usage(2);
	}
	if (files_check_output(argv, argc, NULL, 1) < 0)
		return 1;
	if (sflag)
		seed_hint(argv, argc);
	if (modelopt_load(&m, &sq, &mo) < 0) {
		seq_close(&sq);
		model_close(&m);
		return 1;
	}
	if (sampopt_finish(&so, &m.cfg) < 0)
		return 2;
	if (sampler_init(&s, &so.o, m.cfg.vocab_size) < 0)
		return 1;
	if (vflag)
		warn("seed %" PRIu64, so.o.seed);
	/* the tokenizer beside the model, found as tok-decode finds it */
	if (so.stext.n && tok_open(&tok, mo.model, NULL) < 0)
		return 1;

	rec_files_init(&rf, argv, argc, ids);
	if (par > 1) {
		ret = parallel(&m, &sq, &so, &b, &rf, mo.timing);
		ret |= rf.fl.failed | batch_end(&b);
		goto done;
	}
	while ((got = batch_next(&b, &rf, &r)) > 0) {
		if (got == 2 || generate(&sq, &s, &so, &r, rf.fl.name) < 0) {
			if (got != 2 && !batch_failed(&b))
				exit(1);
			endfailed();
		}
	}
	ret = got < 0 || rf.fl.failed || batch_end(&b);
done:
	rec_files_close(&rf);
	ret |= fshut(stdout, "<stdout>");
	if (mo.timing && par <= 1)
		seq_print_stats(&sq, stderr, argv0);
	rec_free(&r);
	rec_free(&hist);
	tok_free(&tok);
	sampler_free(&s);
	sampopt_free(&so);
	seq_close(&sq);
	model_close(&m);
	return ret;
}
