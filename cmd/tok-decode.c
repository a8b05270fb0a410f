/* tok-decode: token records to text, streamed.  See tok-decode(1). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "../lib/base/files.h"
#include "../lib/stream/idstream.h"
#include "../lib/stream/batch.h"
#include "../lib/stream/rec.h"
#include "../lib/tok/tok.h"
#include "../lib/opt/tokopt.h"
#include "../lib/base/util.h"

static struct tok tok;
static struct tok_dec dec;
static struct tok_buf obuf;
static struct idstream in;
static enum rec_fmt fmt = REC_TEXT;
static int skip, pieces, sep = '\n';
static int lines;			/* -l: a newline in a text escaped */
static struct batch batch;		/* -k */

static _Noreturn void
usage(int status)
{
	fprintf(status ? stderr : stdout,
	    "usage: %s [-k] [-0 | -l | -n] " TOKOPT_USAGE " [--skip-special]\n"
	    "       [--pieces] " REC_IDS_USAGE " [file ...]\n", argv0);
	if (!status)
		fputs("\n"
	    "  -0, --null            end each record's text with NUL, not a newline\n"
	    "  -l, --lines           each record's text on one line, a newline in it\n"
	    "                        written as \\n and a backslash as \\\\\n"
	    "  -n, --no-newline      nothing between records: one text\n"
	    BATCH_HELP
	    TOKOPT_HELP
	    "      --skip-special    leave special tokens out of the text\n"
	    "      --pieces          write the token strings instead of the text\n"
	    REC_IDS_HELP
	    "  -h, --help            print this help and exit\n"
	    "      --version         print the version and exit\n", stdout);
	exit(status ? status : fshut(stdout, "<stdout>"));
}

static void
put(void)
{
	size_t i;

	if (lines) {	/* -l: the record stays one line */
		for (i = 0; i < obuf.n; i++)
			if (obuf.p[i] == '\n')
				fputs("\\n", stdout);
			else if (obuf.p[i] == '\\')
				fputs("\\\\", stdout);
			else
				putchar(obuf.p[i]);
	} else if (obuf.n)
		fwrite(obuf.p, 1, obuf.n, stdout);
	obuf.n = 0;
}

/* End the record being decoded: its text (-n: the decoder goes on), its
 * separator. */
static void
endrec(void)
{
	batch.nrec++;
	if (sep < 0 && !pieces)
		return;
	if (!pieces && tok_dec_end(&dec, &obuf) < 0)
		die("out of memory");
	put();
	if (pieces)
		putchar('\n');
	else if (sep >= 0)
		putchar(sep);
	tok_dec_start(&dec, &tok, skip);
}

/* Decode one input; 0, or 1 after a message. */
static int
decode(int fd, const char *name)
{
	int r, id, n = 0;

	ids_init(&in, fd, name, fmt, stdout);
	tok_dec_start(&dec, &tok, skip);
	for (;;) {
		if ((r = ids_next(&in, &id)) == 0)
			break;
		if (r < 0 && ferror(stdout))
			return 1;	/* fshut says why */
		if (r > 0 && r == 2) {	/* end of record */
			endrec();
			n = 0;
			continue;
		}
		if (r > 0 && pieces) {
			size_t len;
			const char *p = tok_piece(&tok, id, &len);
			if (p) {
				if (n++)
					putchar(' ');
				tok_escape(stdout, p, len);
				continue;
			}
		} else if (r > 0 && tok_dec_push(&dec, id, &obuf) == 0) {
			put();
			continue;
		}
		/* a bad record: -k skips the rest of it, its text so far
		 * ended as a record's */
		if (r > 0)
			warn("%s: record %llu: token id %d not in the vocabulary "
			    "(%d tokens)", name, in.no, id, tok.ntok);
		if (!batch_failed(&batch) || ids_skip(&in) < 0)
			return 1;
		endrec();
		n = 0;
	}
	if (sep < 0 && !pieces) {
		if (tok_dec_end(&dec, &obuf) < 0)
			die("out of memory");
		put();
	}
	return 0;
}

int
main(int argc, char *argv[])
{
	enum { O_SKIP = 256, O_PIECES, O_VERSION };
	static const struct option opts[] = {
		BATCH_LONGOPT,
		{ "null",         no_argument,       NULL, '0' },
		{ "lines",        no_argument,       NULL, 'l' },
		{ "no-newline",   no_argument,       NULL, 'n' },
		{ "skip-special", no_argument,       NULL, O_SKIP },
		{ "pieces",       no_argument,       NULL, O_PIECES },
		{ "help",         no_argument,       NULL, 'h' },
		{ "version",      no_argument,       NULL, O_VERSION },
		TOKOPT_LONGOPTS,
		REC_IDS_LONGOPT,
		{ NULL, 0, NULL, 0 }
	};
	struct tokopt to;
	struct files fl;
	int c, ret = 0;

	argv0 = argv[0];
	tokopt_init(&to);
	while ((c = getopt_long(argc, argv, "0klnm:hv", opts, NULL)) != -1) {
		switch (tokopt_parse(&to, c, optarg)) {
		case 1:  continue;
		case -1: exit(2);
		}
		switch (c) {
		case '0': sep = 0, lines = 0; break;
		case 'k': batch.keepgoing = 1; break;
		case 'l': sep = '\n', lines = 1; break;
		case 'n': sep = -1, lines = 0; break;
		case O_SKIP: skip = 1; break;
		case O_PIECES: pieces = 1; break;
		case REC_OPT_IDS:
			if (rec_fmt_parse(optarg, &fmt) < 0)
				exit(2);
			break;
		case 'h': usage(0);
		case O_VERSION: version();
		default: usage(2);
		}
	}
	argc -= optind, argv += optind;
	if (files_check_output(argv, argc, NULL, 1) < 0 ||
	    tokopt_open(&tok, &to) < 0)
		return 1;
	files_init(&fl, argv, argc);
	while (!ferror(stdout) && files_next(&fl))
		ret |= decode(fileno(fl.f), fl.name);
	files_close(&fl);
	ret |= fl.failed | batch_end(&batch);
	tok_dec_free(&dec);
	free(obuf.p);
	tok_free(&tok);
	ret |= fshut(stdout, "<stdout>");
	return ret;
}
