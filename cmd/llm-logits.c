#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "../lib/frame.h"
#include "../lib/model.h"
#include "../lib/modelopt.h"
#include "../lib/rec.h"
#include "../lib/util.h"

static int allflag, sflag;

static _Noreturn void
usage(int status)
{
	fprintf(status ? stderr : stdout,
	    "usage: %s [-as] [-m model] [-f bin|text|top|npy] [--top k] [-o file]\n"
	    "       [--ctx n] [-t threads] [--ids=text|u32] [--timing]\n"
	    "       [--bf16-act | --quant q8_0] [file ...]\n",
	    argv0);
	exit(status);
}

struct out {			/* where put() writes a record's frames */
	struct frame_writer *fw;
	struct frame_hdr h;
	const struct rec *r;
	int pos0;
};

/* Write the frames of positions i.. of the record (model_rows_fn). */
static int
put(void *ctx, const float *logits, int i, int rows)
{
	struct out *o = ctx;
	int j;

	for (j = 0; j < rows; j++) {
		o->h.position = o->pos0 + i + j;
		o->h.token = o->r->ids[i + j];
		if (frame_write(o->fw, &o->h, logits + (size_t)j * o->h.vocab) < 0)
			exit(1);
	}
	return 0;
}

/* Run one record and write its frame(s). */
static void
run(struct model *m, struct frame_writer *fw, const struct rec *r)
{
	struct out o = { fw, { 0 }, r, 0 };
	const float *logits;
	int n = (int)r->n;

	o.h.vocab = m->cfg.vocab_size;
	o.h.record = (uint32_t)r->no;
	if (!sflag)
		model_reset(m);
	if (r->n == 0) {
		if (!sflag || m->pos == 0)
			die("record %llu is empty: no position to give logits for", r->no);
		/* session: an empty record adds nothing; repeat the last frame */
		o.h.position = m->pos - 1;
		o.h.token = -1;
		if (frame_write(fw, &o.h, m->logits) < 0)
			exit(1);
		return;
	}
	if (r->n > (size_t)(m->ctx - m->pos))
		die("record %llu: sequence of %zu positions exceeds the context of %d (see --ctx)",
		    r->no, m->pos + r->n, m->ctx);
	o.pos0 = m->pos;
	if (allflag) {
		if (model_forward_all(m, r->ids, n, put, &o) < 0)
			die("record %llu: cannot run the model", r->no);
		return;
	}
	if (!(logits = model_forward(m, r->ids, n)))
		die("record %llu: cannot run the model", r->no);
	put(&o, logits, n - 1, 1);
}

int
main(int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "all",     no_argument,       NULL, 'a' },
		{ "format",  required_argument, NULL, 'f' },
		{ "help",    no_argument,       NULL, 'h' },
		{ "ids",     required_argument, NULL, 'I' },
		{ "output",  required_argument, NULL, 'o' },
		{ "session", no_argument,       NULL, 's' },
		{ "top",     required_argument, NULL, 'k' },
		{ "version", no_argument,       NULL, 'V' },
		MODELOPT_LONGOPTS,
		{ NULL, 0, NULL, 0 }
	};
	const char *outpath = NULL, *name;
	struct modelopt mo;
	enum frame_fmt fmt = FRAME_BIN;
	enum rec_fmt ids = REC_TEXT;
	struct frame_writer fw = { 0 };
	struct model m;
	struct rec r = { 0 };
	struct rec_files rf;
	FILE *out = stdout;
	int c, top = 10, ret, got;

	argv0 = argv[0];
	modelopt_init(&mo);
	while ((c = getopt_long(argc, argv, "af:hm:o:st:", opts, NULL)) != -1) {
		switch (modelopt_parse(&mo, c, optarg)) {
		case 1:  continue;
		case -1: exit(2);
		}
		switch (c) {
		case 'a': allflag = 1; break;
		case 'f':
			if (frame_parse_fmt(optarg, &fmt) < 0)
				edie(2, "invalid format '%s' (bin, text, top or npy)", optarg);
			break;
		case 'h': usage(0);
		case 'I':
			if (rec_parse_fmt(optarg, &ids) < 0)
				edie(2, "invalid --ids '%s' (text or u32)", optarg);
			break;
		case 'k': top = estrtonum(optarg, 1, 1 << 24, "--top"); break;
		case 'o': outpath = optarg; break;
		case 's': sflag = 1; break;
		case 'V': version();
		default:  usage(2);
		}
	}
	argc -= optind, argv += optind;
	if (modelopt_load(&m, &mo) < 0) {
		model_close(&m);
		return 1;
	}
	if (outpath && !(out = fopen(outpath, "w")))
		die("open %s:", outpath);
	name = outpath ? outpath : "<stdout>";
	if (frame_writer_open(&fw, out, name, fmt, m.cfg.vocab_size, top) < 0)
		return 1;

	rec_files_init(&rf, argv, argc, ids);
	while ((got = rec_files_next(&rf, &r)) > 0) {
		run(&m, &fw, &r);
		/* a reader downstream may be waiting (FIFO loops) */
		if (fmt != FRAME_NPY && fflush(out) == EOF)
			break;
	}
	rec_files_close(&rf);
	ret = got < 0 || rf.failed;
	if (frame_writer_close(&fw) < 0)
		ret = 1;
	ret |= fshut(out, name);
	if (mo.timing)
		model_print_stats(&m, stderr, argv0);
	rec_free(&r);
	model_close(&m);
	return ret;
}
