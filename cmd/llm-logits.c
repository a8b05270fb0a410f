#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "../lib/base/files.h"
#include "../lib/stream/frame.h"
#include "../lib/model/model.h"
#include "../lib/opt/modelopt.h"
#include "../lib/stream/batch.h"
#include "../lib/stream/rec.h"
#include "../lib/base/util.h"

enum { O_TOP = 0x500 };

static int allflag, sflag;
static struct outfile outf;	/* -o: in place only when the run succeeds */

/* An exit on an error leaves the old -o file, not a part of the new one. */
static void
drop_output(void)
{
	outfile_close(&outf, 0);
}

static _Noreturn void
usage(int status)
{
	fprintf(status ? stderr : stdout,
	    "usage: %s [-aks] [-f bin|text|top|npy] [--top k] [-o file]\n"
	    "       " REC_IDS_USAGE " " MODELOPT_USAGE " [file ...]\n",
	    argv0);
	if (!status)
		fputs("\n"
	    "  -a, --all             a frame for every position, not just the last\n"
	    "  -s, --session         one sequence across all records, a frame each\n"
	    "  -f, --format=FMT      bin (default), text, top or npy\n"
	    "      --top=K           ids per top frame (default 10)\n"
	    "  -o, --output=FILE     write to FILE, in place only if the run succeeds\n"
	    BATCH_HELP
	    REC_IDS_HELP
	    MODELOPT_HELP
	    MODELOPT_VERBOSE_HELP
	    "  -h, --help            print this help and exit\n"
	    "      --version         print the version and exit\n", stdout);
	exit(status ? status : fshut(stdout, "<stdout>"));
}

struct out {			/* where put() writes a record's frames */
	struct frame_writer *fw;
	struct frame_hdr h;
	const struct rec *r;
	int pos0;
};

/* Write frame h of logits: 0, or -1 after a message for logits that
 * are not finite (the record fails); a write error ends the run. */
static int
write1(struct frame_writer *fw, const struct frame_hdr *h, const float *logits)
{
	if (frame_write(fw, h, logits) == 0)
		return 0;
	if (ferror(fw->f))
		exit(1);
	return -1;
}

/* Write the frames of positions i.. of the record (seq_rows_fn). */
static int
put(void *ctx, const float *logits, int i, int rows)
{
	struct out *o = ctx;
	int j;

	for (j = 0; j < rows; j++) {
		o->h.position = o->pos0 + i + j;
		o->h.token = o->r->ids[i + j];
		if (write1(o->fw, &o->h, logits + (size_t)j * o->h.vocab) < 0)
			return -1;
	}
	return 0;
}

/* Run one record (from input name) and write its frame(s): 0, or -1
 * after a message (the frames written before it failed stay). */
static int
run(struct seq *sq, struct frame_writer *fw, const struct rec *r,
    const char *name)
{
	struct out o = { fw, { 0 }, r, 0 };
	const float *logits;
	int n = (int)r->n;

	o.h.vocab = sq->m->cfg.vocab_size;
	o.h.record = (uint32_t)r->no;
	if (!sflag)
		seq_reset(sq);
	if (r->n == 0) {
		if (!sflag || sq->pos == 0)
			return error("%s: record %llu is empty: no position to "
			    "give logits for", name, r->no);
		/* session: an empty record adds nothing; repeat the last frame */
		o.h.position = sq->pos - 1;
		o.h.token = -1;
		return write1(fw, &o.h, sq->logits);
	}
	if (rec_check(r, sq->m->cfg.vocab_size, name) < 0)
		return -1;
	if (r->n > (size_t)(sq->ctx - sq->pos))
		return error("%s: record %llu: sequence of %zu positions exceeds "
		    "the context of %d (see --ctx)", name, r->no, sq->pos + r->n,
		    sq->ctx);
	o.pos0 = sq->pos;
	/* seq_forward or put has said what went wrong */
	if (allflag)
		return seq_forward_all(sq, r->ids, n, put, &o) < 0 ? -1 : 0;
	if (!(logits = seq_forward(sq, r->ids, n)))
		return -1;
	return put(&o, logits, n - 1, 1);
}

int
main(int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "all",     no_argument,       NULL, 'a' },
		BATCH_LONGOPT,
		{ "format",  required_argument, NULL, 'f' },
		{ "help",    no_argument,       NULL, 'h' },
		{ "output",  required_argument, NULL, 'o' },
		{ "session", no_argument,       NULL, 's' },
		{ "top",     required_argument, NULL, O_TOP },
		{ "version", no_argument,       NULL, 'V' },
		MODELOPT_LONGOPTS,
		REC_IDS_LONGOPT,
		{ NULL, 0, NULL, 0 }
	};
	const char *outpath = NULL, *name;
	struct modelopt mo;
	enum frame_fmt fmt = FRAME_BIN;
	enum rec_fmt ids = REC_TEXT;
	struct frame_writer fw = { 0 };
	struct model m;
	struct seq sq;
	struct rec r = { 0 };
	struct rec_files rf;
	struct batch b = { 0 };
	FILE *out = stdout;
	int c, top = 10, ret, got;

	argv0 = argv[0];
	modelopt_init(&mo);
	while ((c = getopt_long(argc, argv, "ac:f:hkm:o:st:v", opts, NULL)) != -1) {
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
		case REC_OPT_IDS:
			if (rec_fmt_parse(optarg, &ids) < 0)
				exit(2);
			break;
		case 'k': b.keepgoing = 1; break;
		case O_TOP: top = estrtonum(optarg, 1, 1 << 24, "--top"); break;
		case 'o': outpath = optarg; break;
		case 's': sflag = 1; break;
		case 'V': version();
		default:  usage(2);
		}
	}
	argc -= optind, argv += optind;
	if (modelopt_finish(&mo) < 0)
		exit(2);
	if (files_check_output(argv, argc, outpath, 1) < 0)
		return 1;
	if (modelopt_load(&m, &sq, &mo) < 0) {
		seq_close(&sq);
		model_close(&m);
		return 1;
	}
	if (outpath) {
		atexit(drop_output);
		if (!(out = outfile_open(&outf, outpath)))
			return 1;
	}
	name = outpath ? outpath : "<stdout>";
	if (frame_writer_open(&fw, out, name, fmt, m.cfg.vocab_size, top) < 0)
		return 1;

	rec_files_init(&rf, argv, argc, ids);
	while ((got = batch_next(&b, &rf, &r)) > 0) {
		if (got == 2 || run(&sq, &fw, &r, rf.fl.name) < 0) {
			if (got != 2 && !batch_failed(&b))
				exit(1);
			/* a failed record: an empty line where frames are
			 * lines; bin frames carry their record's number */
			if (fmt == FRAME_TEXT || fmt == FRAME_TOP)
				putc('\n', out);
		}
		/* a reader downstream may be waiting (FIFO loops) */
		if (fmt != FRAME_NPY)
			efflush(out, name);
	}
	rec_files_close(&rf);
	/* the run went through to the end: with --keep-going, the records
	 * that failed are in the output as such, and -o is put in place */
	ret = got < 0 || (rf.fl.failed && !b.keepgoing);
	if (frame_writer_close(&fw) < 0)
		ret = 1;
	if (outpath)
		ret |= outfile_close(&outf, !ret) < 0;
	else
		ret |= fshut(out, name);
	ret |= rf.fl.failed | batch_end(&b);
	if (mo.timing)
		seq_print_stats(&sq, stderr, argv0);
	rec_free(&r);
	seq_close(&sq);
	model_close(&m);
	return ret;
}
