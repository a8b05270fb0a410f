#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "../lib/base/files.h"
#include "../lib/stream/frame.h"
#include "../lib/model/model.h"
#include "../lib/opt/modelopt.h"
#include "../lib/stream/batch.h"
#include "../lib/stream/rec.h"
#include "../lib/stream/runs.h"
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
	    "usage: %s [-aks] [-P n] [-f bin|text|top|npy] [--top k] [-o file]\n"
	    "       " REC_IDS_USAGE " " MODELOPT_USAGE " [file ...]\n",
	    argv0);
	if (!status)
		fputs("\n"
	    "  -a, --all             a frame for every position, not just the last\n"
	    "  -s, --session         one sequence across all records, a frame each\n"
	    "  -P, --parallel=N      run up to N records at once, in shared passes\n"
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
	FILE *f;		/* the record's stream (-P: its own) */
};

static struct frame_writer fw;
static struct out *outs;	/* (-P) each slot's record */
static int ctxlen;		/* positions a sequence holds */

/* Write frame h of o's record: 0, or -1 after a message for logits
 * that are not finite (the record fails); a write error ends the run. */
static int
write1(struct out *o, const float *logits)
{
	o->fw->f = o->f;
	if (frame_write(o->fw, &o->h, logits) == 0)
		return 0;
	if (ferror(o->fw->f))
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
		if (write1(o, logits + (size_t)j * o->h.vocab) < 0)
			return -1;
	}
	return 0;
}

/* Record r (from input name) in slot i, its frames to f: 1 with *run,
 * the run that gives them; 0 when written already (a session's empty
 * record); -1 after a message.  ctx: the session's sequence. */
static int
start(void *ctx, int i, const struct rec *r, const char *name, FILE *f,
    struct run *run)
{
	const struct seq *sq = ctx;
	struct out *o = &outs[i];
	int pos = sflag ? sq->pos : 0;

	*o = (struct out){ &fw, { 0 }, r, pos, f };
	o->h.vocab = (uint32_t)fw.vocab;
	o->h.record = (uint32_t)r->no;
	if (r->n == 0) {
		if (!sflag || pos == 0)
			return error("%s: record %llu is empty: no position to "
			    "give logits for", name, r->no);
		/* session: an empty record adds nothing; repeat the last frame */
		o->h.position = pos - 1;
		o->h.token = -1;
		return write1(o, sq->logits) < 0 ? -1 : 0;
	}
	if (rec_check(r, fw.vocab, name) < 0)
		return -1;
	if (r->n > (size_t)(ctxlen - pos))
		return error("%s: record %llu: sequence of %zu positions exceeds "
		    "the context of %d (see --ctx)", name, r->no, pos + r->n,
		    ctxlen);
	/* seq_forward or put says what goes wrong */
	*run = (struct run){ r->ids, (int)r->n, !sflag, put, o };
	return 1;
}

/* A record is one run. */
static int
next(void *ctx, int i, struct run *run)
{
	(void)ctx, (void)i, (void)run;
	return 0;
}

/* A failed record: an empty line where frames are lines; bin frames
 * carry their record's number. */
static void
failed(void *ctx, int i, FILE *f)
{
	(void)ctx, (void)i;
	if (fw.fmt == FRAME_TEXT || fw.fmt == FRAME_TOP)
		putc('\n', f);
}

/* Run one record alone on sq: 0, or -1 after a message (the frames
 * written before it failed stay). */
static int
run1(struct seq *sq, const struct rec *r, const char *name, FILE *f)
{
	struct run run;
	int k = start(sq, 0, r, name, f, &run);

	return k == 1 ? runs_one(sq, &run, allflag) : k;
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
		{ "parallel", required_argument, NULL, 'P' },
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
	struct model m;
	struct seq sq;
	struct rec r = { 0 };
	struct rec_files rf;
	struct batch b = { 0 };
	struct runs R;
	FILE *out = stdout;
	int c, top = 10, ret, got, par = 1;

	argv0 = argv[0];
	modelopt_init(&mo);
	while ((c = getopt_long(argc, argv, "ac:f:hkm:o:P:st:v", opts, NULL)) != -1) {
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
		case 'P': par = (int)estrtonum(optarg, 1, RUNS_MAX, "-P"); break;
		case 's': sflag = 1; break;
		case 'V': version();
		default:  usage(2);
		}
	}
	argc -= optind, argv += optind;
	if (sflag && par > 1)
		edie(2, "-s and -P do not go together: a session is one "
		    "sequence, its records in turn");
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

	ctxlen = sq.ctx;
	outs = ecalloc((size_t)par, sizeof(*outs));

	rec_files_init(&rf, argv, argc, ids);
	if (par > 1) {
		static const struct runs_ops ops = { start, next, failed };

		if (runs_open(&R, &m, sq.ctx, sq.kvt, par, allflag) < 0 ||
		    (got = runs_all(&R, &b, &rf, out, name, &ops, NULL)) < 0)
			exit(1);
		got = -got;	/* 1: the input failed */
		fw.f = out;
	} else {
		while ((got = batch_next(&b, &rf, &r)) > 0) {
			if (got == 2 || run1(&sq, &r, rf.fl.name, out) < 0) {
				if (got != 2 && !batch_failed(&b))
					exit(1);
				failed(NULL, -1, out);
			}
			/* a reader downstream may be waiting (FIFO loops) */
			if (fmt != FRAME_NPY)
				efflush(out, name);
		}
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
	if (par > 1)
		runs_print_stats(&R, stderr, argv0, mo.verbose, mo.timing);
	if (mo.timing)
		seq_print_stats(&sq, stderr, argv0);
	if (par > 1)
		runs_close(&R);
	free(outs);
	rec_free(&r);
	seq_close(&sq);
	model_close(&m);
	return ret;
}
