/* llm-sample: logits frames in, one sampled token id per frame out. */
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/cfg.h"
#include "../lib/frame.h"
#include "../lib/mdir.h"
#include "../lib/rec.h"
#include "../lib/sample.h"
#include "../lib/util.h"

enum {
	OPT_TEMP = 256, OPT_TOPK, OPT_TOPP, OPT_MINP, OPT_PENALTY, OPT_LASTN,
	OPT_SEED, OPT_STOP, OPT_NOEOS, OPT_IDS, OPT_VERSION
};

static int vflag;

static _Noreturn void
usage(int status)
{
	fprintf(status ? stderr : stdout,
	    "usage: %s [-v] [-m model] [-n num] [--temp t] [--top-k k] "
	    "[--top-p p] [--min-p p]\n"
	    "       [--repeat-penalty p] [--repeat-last-n n] [--seed s] "
	    "[--stop id ...] [--ignore-eos]\n"
	    "       [--ids=text|u32] [file]\n", argv0);
	exit(status);
}

/* The model's EOS ids into st: -m, else $PIPELM_MODEL if set. */
static void
load_eos(struct stop *st, const char *model)
{
	struct mdir m = { 0 };
	struct cfg c;
	int i, r;

	if (!model) {
		model = getenv("PIPELM_MODEL");
		if (!model || !*model)
			return;
	}
	r = mdir_resolve(&m, model) < 0 ||
	    cfg_load(&c, m.config, m.genconfig) < 0;
	mdir_free(&m);
	if (r)
		exit(1);
	for (i = 0; i < c.n_eos; i++)
		if (stop_add_eos(st, c.eos_token_id[i]) < 0)
			exit(1);
}

int
main(int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "model",          required_argument, NULL, 'm' },
		{ "max-new",        required_argument, NULL, 'n' },
		{ "verbose",        no_argument,       NULL, 'v' },
		{ "temp",           required_argument, NULL, OPT_TEMP },
		{ "top-k",          required_argument, NULL, OPT_TOPK },
		{ "top-p",          required_argument, NULL, OPT_TOPP },
		{ "min-p",          required_argument, NULL, OPT_MINP },
		{ "repeat-penalty", required_argument, NULL, OPT_PENALTY },
		{ "repeat-last-n",  required_argument, NULL, OPT_LASTN },
		{ "seed",           required_argument, NULL, OPT_SEED },
		{ "stop",           required_argument, NULL, OPT_STOP },
		{ "ignore-eos",     no_argument,       NULL, OPT_NOEOS },
		{ "ids",            required_argument, NULL, OPT_IDS },
		{ "help",           no_argument,       NULL, 'h' },
		{ "version",        no_argument,       NULL, OPT_VERSION },
		{ NULL, 0, NULL, 0 }
	};
	struct sampler_opts o;
	struct sampler s = { 0 };
	struct frame_reader r = { 0 };
	struct frame_hdr h;
	struct stop st;
	enum rec_fmt ids = REC_TEXT;
	enum stop_why why = STOP_NONE;
	const char *model = NULL, *name = "<stdin>";
	const float *logits;
	float *x = NULL;
	int *hist = NULL, c, id, seeded = 0, ret = 0, k;
	size_t nhist = 0;
	FILE *f = stdin;

	argv0 = argv[0];
	sampler_defaults(&o);
	stop_init(&st);
	while ((c = getopt_long(argc, argv, "m:n:vh", opts, NULL)) != -1) {
		switch (c) {
		case 'm': model = optarg; break;
		case 'n': st.max_new = estrtonum(optarg, 0, LLONG_MAX, "-n"); break;
		case 'v': vflag = 1; break;
		case OPT_TEMP: o.temp = estrtod(optarg, 0, 1e6, "--temp"); break;
		case OPT_TOPK: o.top_k = estrtonum(optarg, 0, INT_MAX, "--top-k"); break;
		case OPT_TOPP: o.top_p = estrtod(optarg, 0, 1, "--top-p"); break;
		case OPT_MINP: o.min_p = estrtod(optarg, 0, 1, "--min-p"); break;
		case OPT_PENALTY:
			o.repeat_penalty = estrtod(optarg, 0, 1e6, "--repeat-penalty");
			break;
		case OPT_LASTN:
			o.repeat_last_n = estrtonum(optarg, -1, INT_MAX, "--repeat-last-n");
			break;
		case OPT_SEED:
			o.seed = (uint64_t)estrtonum(optarg, 0, LLONG_MAX, "--seed");
			seeded = 1;
			break;
		case OPT_STOP:
			if (stop_add_id(&st, estrtonum(optarg, 0, REC_MAXID, "--stop")) < 0)
				exit(1);
			break;
		case OPT_NOEOS: st.ignore_eos = 1; break;
		case OPT_IDS:
			if (rec_parse_fmt(optarg, &ids) < 0)
				edie(2, "invalid --ids '%s': expected text or u32", optarg);
			break;
		case OPT_VERSION: version();
		case 'h': usage(0);
		default: usage(2);
		}
	}
	argc -= optind, argv += optind;
	if (argc > 1)
		usage(2);
	if (!seeded)
		o.seed = sampler_seed_system();
	if (sampler_init(&s, &o, 1) < 0)	/* check the options now */
		exit(2);
	sampler_free(&s);
	if (!st.ignore_eos)
		load_eos(&st, model);
	if (argc == 1 && strcmp(argv[0], "-")) {
		name = argv[0];
		if (!(f = fopen(name, "r")))
			die("%s:", name);
	}
	if (vflag)
		warn("seed %" PRIu64, o.seed);

	while (!stop_none(&st) && (k = frame_read(&r, f, name, &h, &logits)) != 0) {
		if (k < 0) {
			ret = 1;
			break;
		}
		if (!x) {
			x = emalloc(h.vocab * sizeof(*x));
			if (sampler_init(&s, &o, (int)h.vocab) < 0)
				exit(1);
		}
		memcpy(x, logits, h.vocab * sizeof(*x));
		id = sampler_next(&s, x, hist, nhist);
		hist = ereallocarray(hist, nhist + 1, sizeof(*hist));
		hist[nhist++] = id;
		rec_write(stdout, ids, &id, 1);
		if (fflush(stdout) == EOF)
			break;
		if ((why = stop_check(&st, id)) != STOP_NONE)
			break;
	}
	if (vflag && why != STOP_NONE)
		warn("stop (%s) after %zu ids", stop_name(why), nhist);
	if (f != stdin)
		fclose(f);
	free(x);
	free(hist);
	sampler_free(&s);
	frame_reader_free(&r);
	stop_free(&st);
	ret |= fshut(stdout, "<stdout>");
	return ret;
}
