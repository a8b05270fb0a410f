/* llm-sample: logits frames in, one sampled token id per frame out. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/disk/cfg.h"
#include "../lib/disk/gguf.h"
#include "../lib/base/files.h"
#include "../lib/stream/frame.h"
#include "../lib/disk/mdir.h"
#include "../lib/stream/rec.h"
#include "../lib/stream/sample.h"
#include "../lib/opt/sampopt.h"
#include "../lib/tok/tok.h"
#include "../lib/base/util.h"

enum { OPT_VERSION = 0x400 };

static int vflag;

static _Noreturn void
usage(int status)
{
	fprintf(status ? stderr : stdout,
	    "usage: %s [-v] [-m model] " SAMPOPT_USAGE
	    " [--stop-text s ...]\n       " REC_IDS_USAGE " [file ...]\n", argv0);
	if (!status)
		fputs("\n"
	    "  -v, --verbose         print the seed and why it stopped on stderr\n"
	    "  -m, --model=PATH      the model whose EOS ids stop it (default $PIPELM_MODEL)\n"
	    "  -n, --max-new=N, --n-predict=N\n"
	    "                        stop after N ids, -1 for no limit (the default)\n"
	    SAMPOPT_HELP
	    SAMPOPT_STOPTEXT_HELP
	    REC_IDS_HELP
	    "  -h, --help            print this help and exit\n"
	    "      --version         print the version and exit\n", stdout);
	exit(status ? status : fshut(stdout, "<stdout>"));
}

/* The config of the model named by -m, else $PIPELM_MODEL, into c, and
 * with --stop-text its tokenizer into t: 1, or 0 when neither names one
 * (exits after a message on error). */
static int
load_cfg(struct cfg *c, struct tok *t, const char *model, int stoptext)
{
	struct mdir m = { 0 };
	struct gguf g = { 0 };
	int r;

	if (!model) {
		model = getenv("PIPELM_MODEL");
		if (!model || !*model) {
			if (stoptext)
				edie(2, "--stop-text needs the model's tokenizer "
				    "(-m or PIPELM_MODEL)");
			return 0;
		}
	}
	/* a GGUF file's metadata is its config (its eos and eot ids) */
	r = mdir_resolve(&m, model) < 0 ||
	    (m.gguf ? gguf_open(&g, m.gguf) < 0 || cfg_load_gguf(c, &g) < 0 :
	    cfg_load(c, m.config, m.genconfig) < 0) ||
	    (stoptext && tok_open(t, m.gguf ? m.gguf : m.dir, NULL) < 0);
	gguf_close(&g);
	mdir_free(&m);
	if (r)
		exit(1);
	return 1;
}

int
main(int argc, char *argv[])
{
	static const struct option opts[] = {
		SAMPOPT_LONGOPTS,
		SAMPOPT_STOPTEXT_LONGOPT,
		REC_IDS_LONGOPT,
		{ "model",          required_argument, NULL, 'm' },
		{ "verbose",        no_argument,       NULL, 'v' },
		{ "help",           no_argument,       NULL, 'h' },
		{ "version",        no_argument,       NULL, OPT_VERSION },
		{ NULL, 0, NULL, 0 }
	};
	struct sampopt so;
	struct cfg mc;
	struct tok tok = { 0 };
	struct sampler s = { 0 };
	struct frame_reader r = { 0 };
	struct frame_hdr h;
	enum rec_fmt ids = REC_TEXT;
	enum stop_why why = STOP_NONE;
	const char *model = NULL;
	const float *logits;
	float *x = NULL;
	int *hist = NULL, c, id, ret = 0, k, named;
	size_t nhist = 0, cap = 0;
	struct files fl;

	argv0 = argv[0];
	sampopt_init(&so);
	while ((c = getopt_long(argc, argv, "m:n:vh", opts, NULL)) != -1) {
		switch (sampopt_parse(&so, c, optarg)) {
		case 1:  continue;
		case -1: exit(2);
		}
		switch (c) {
		case 'm': model = optarg; break;
		case 'v': vflag = 1; break;
		case REC_OPT_IDS:
			if (rec_fmt_parse(optarg, &ids) < 0)
				exit(2);
			break;
		case OPT_VERSION: version();
		case 'h': usage(0);
		default: usage(2);
		}
	}
	argc -= optind, argv += optind;
	if (files_check_output(argv, argc, NULL, 1) < 0)
		return 1;
	named = load_cfg(&mc, &tok, model, so.stext.n > 0);
	if (sampopt_finish(&so, named ? &mc : NULL) < 0)
		exit(2);
	/* the ids are decoded as tok-decode decodes what we write */
	if (so.stext.n && stoptext_start(&so.stext, &tok, NULL, 0) < 0)
		exit(1);
	if (vflag)
		warn("seed %" PRIu64, so.o.seed);

	files_init(&fl, argv, argc);
	if (!files_next(&fl))
		goto out;
	while (!stop_none(&so.st)) {
		if ((k = frame_read(&r, fl.f, fl.name, &h, &logits)) < 0) {
			ret = 1;
			break;
		}
		if (k == 0) {
			if (!files_next(&fl))
				break;
			r.known = 0;	/* each file says its own format */
			continue;
		}
		/* a frame of another model's logits would give ids that are
		 * not this model's tokens */
		if (named && h.vocab != (uint32_t)mc.vocab_size)
			die("%s: frame %llu: %" PRIu32 " logits, the model has %d tokens",
			    fl.name, r.no, h.vocab, mc.vocab_size);
		if (!x) {
			x = emalloc(h.vocab * sizeof(*x));
			if (sampler_init(&s, &so.o, (int)h.vocab) < 0)
				exit(1);
		}
		memcpy(x, logits, h.vocab * sizeof(*x));
		if ((id = sampler_next(&s, x, hist, nhist)) < 0)
			die("%s: frame %llu: logit %d is %g", fl.name, r.no, s.bad, x[s.bad]);
		if (xgrow(&hist, &cap, nhist + 1, sizeof(*hist)) < 0)
			exit(1);
		hist[nhist++] = id;
		rec_write(stdout, ids, &id, 1);
		efflush(stdout, "<stdout>");
		if ((why = stop_check(&so.st, id)) != STOP_NONE)
			break;
		if (so.stext.n && (k = stoptext_push(&so.stext, id)) != 0) {
			if (k < 0)
				exit(1);
			why = STOP_TEXT;
			break;
		}
	}
	if (vflag && why != STOP_NONE) {
		char wbuf[128];

		warn("stop (%s) after %zu ids", why == STOP_TEXT ?
		    stoptext_hitname(&so.stext, wbuf, sizeof wbuf) :
		    stop_name(why), nhist);
	}
out:
	files_close(&fl);
	ret |= fl.failed;
	free(x);
	free(hist);
	sampler_free(&s);
	frame_reader_free(&r);
	sampopt_free(&so);
	tok_free(&tok);
	ret |= fshut(stdout, "<stdout>");
	return ret;
}
