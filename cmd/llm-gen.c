#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "../lib/files.h"
#include "../lib/kern.h"
#include "../lib/model.h"
#include "../lib/modelopt.h"
#include "../lib/rec.h"
#include "../lib/sample.h"
#include "../lib/sampopt.h"
#include "../lib/util.h"

static int echo, vflag;	/* vflag: -v, given to modelopt too */
static enum rec_fmt ids = REC_TEXT;

static _Noreturn void
usage(int status)
{
	fprintf(status ? stderr : stdout,
	    "usage: %s [-ev] " SAMPOPT_USAGE " " REC_IDS_USAGE "\n"
	    "       " MODELOPT_USAGE " [file ...]\n",
	    argv0);
	if (!status)
		fputs("\n"
	    "  -e, --echo            start each output record with the prompt's ids\n"
	    "  -v, --verbose         print the seed, kernels and why each prompt stopped\n"
	    "  -n, --max-new=N       at most N new ids a prompt (default: until EOS or context)\n"
	    SAMPOPT_HELP
	    REC_IDS_HELP
	    MODELOPT_HELP
	    "  -h, --help            print this help and exit\n"
	    "      --version         print the version and exit\n", stdout);
	exit(status ? status : fshut(stdout, "<stdout>"));
}

/* Generate the continuation of prompt r (from input name): write each id
 * as it is sampled. */
static void
generate(struct model *m, struct sampler *s, struct stop *st, struct rec *r,
    const char *name)
{
	enum stop_why why = STOP_NONE;
	const float *logits;
	size_t nprompt = r->n;
	int id, first = 1;
	size_t i;

	if (r->n == 0)
		die("%s: record %llu: empty prompt", name, r->no);
	if (rec_check(r, m->cfg.vocab_size, name) < 0)
		exit(1);
	if (r->n > (size_t)m->ctx)
		die("%s: record %llu: prompt of %zu tokens exceeds the context "
		    "of %d (see --ctx)", name, r->no, r->n, m->ctx);
	model_reset(m);
	stop_reset(st);
	sampler_reset(s);	/* each prompt as if run alone */
	if (echo && ids == REC_TEXT)
		for (i = 0; i < nprompt; i++, first = 0)
			rec_put(stdout, r->ids[i], first);
	if (!(logits = model_forward(m, r->ids, (int)r->n)))
		exit(1);	/* it said why */
	while (!stop_none(st)) {
		/* the sampler may rewrite the row (penalty): it is ours until
		 * the next forward */
		if ((id = sampler_next(s, (float *)logits, r->ids, r->n)) < 0)
			die("%s: record %llu: position %zu: logit %d is %g (a weight "
			    "that is not finite?)", name, r->no, r->n - 1, s->bad,
			    logits[s->bad]);
		/* r grows into the history (and, for u32, the record out) */
		if (xgrow(&r->ids, &r->cap, r->n + 1, sizeof(*r->ids)) < 0)
			exit(1);
		r->ids[r->n++] = id;
		if (ids == REC_TEXT) {
			rec_put(stdout, id, first);
			first = 0;
			efflush(stdout, "<stdout>");
		}
		if ((why = stop_check(st, id)) != STOP_NONE)
			break;
		if (m->pos >= m->ctx) {
			warn("%s: record %llu: context of %d positions is full",
			    name, r->no, m->ctx);
			break;
		}
		if (!(logits = model_forward(m, &id, 1)))
			exit(1);
	}
	if (vflag)
		warn("%s: record %llu: %zu ids, stop: %s", name, r->no,
		    r->n - nprompt, stop_name(why));
	if (ids == REC_U32)
		rec_write(stdout, ids, r->ids + (echo ? 0 : nprompt),
		    r->n - (echo ? 0 : nprompt));
	else
		rec_end(stdout);
	efflush(stdout, "<stdout>");
}

int
main(int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "echo",    no_argument,       NULL, 'e' },
		{ "help",    no_argument,       NULL, 'h' },
		{ "version", no_argument,       NULL, 'V' },
		MODELOPT_LONGOPTS,
		REC_IDS_LONGOPT,
		SAMPOPT_LONGOPTS,
		{ NULL, 0, NULL, 0 }
	};
	struct modelopt mo;
	struct sampopt so;
	struct sampler s = { 0 };
	struct model m;
	struct rec r = { 0 };
	struct rec_files rf;
	int c, ret, got, r1, r2;

	argv0 = argv[0];
	modelopt_init(&mo);
	sampopt_init(&so);
	while ((c = getopt_long(argc, argv, "ehm:n:t:v", opts, NULL)) != -1) {
		if ((r1 = modelopt_parse(&mo, c, optarg)) < 0 ||
		    (r2 = sampopt_parse(&so, c, optarg)) < 0)
			exit(2);
		if (c == 'v')
			vflag = 1;
		if (r1 || r2)
			continue;
		switch (c) {
		case 'e': echo = 1; break;
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
	if (files_check_output(argv, argc, NULL, 1) < 0)
		return 1;
	if (modelopt_load(&m, &mo) < 0) {
		model_close(&m);
		return 1;
	}
	if (sampopt_finish(&so, &m.cfg) < 0)
		return 2;
	if (sampler_init(&s, &so.o, m.cfg.vocab_size) < 0)
		return 1;
	if (vflag)
		warn("seed %" PRIu64, so.o.seed);

	rec_files_init(&rf, argv, argc, ids);
	while ((got = rec_files_next(&rf, &r)) > 0)
		generate(&m, &s, &so.st, &r, rf.fl.name);
	rec_files_close(&rf);
	ret = got < 0 || rf.fl.failed;
	ret |= fshut(stdout, "<stdout>");
	if (mo.timing)
		model_print_stats(&m, stderr, argv0);
	rec_free(&r);
	sampler_free(&s);
	sampopt_free(&so);
	model_close(&m);
	return ret;
}
