/* tok-encode: text to token records.  See tok-encode(1). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../lib/chat/chat.h"
#include "../lib/base/files.h"
#include "../lib/stream/batch.h"
#include "../lib/stream/rec.h"
#include "../lib/tok/tok.h"
#include "../lib/opt/tokopt.h"
#include "../lib/base/util.h"

enum { OUT_IDS, OUT_PIECES, OUT_COUNT };

static struct tok tok;
static struct tok_ids ids;
static enum rec_fmt fmt = REC_TEXT;
static int out = OUT_IDS, flags = TOK_ADD_SPECIAL, bos = -1;
static unsigned long long recno;
static struct chat chat;		/* --chat */
static int chatmode, render, chatsep;
static struct batch batch;		/* -k */

static _Noreturn void
usage(int status)
{
	fprintf(status ? stderr : stdout,
	    "usage: %s [-k] [-l | -0] " TOKOPT_USAGE " [--bos | --no-bos]\n"
	    "       [--no-special] [--pieces | --count] " REC_IDS_USAGE "\n"
	    "       [--chat [--render] [--template name]] [-e text ... | file ...]\n",
	    argv0);
	if (!status)
		fputs("\n"
	    "  -e, --text=TEXT       encode TEXT as one record (repeatable; no files read)\n"
	    "  -l, --lines           each input line is a record\n"
	    "  -0, --null            each NUL-terminated piece of input is a record\n"
	    BATCH_HELP
	    TOKOPT_HELP
	    "      --bos             start every record with the BOS token\n"
	    "      --no-bos          do not apply the post-processor (no BOS)\n"
	    "      --no-special      encode special tokens' text as plain text\n"
	    "      --pieces          write the token strings instead of the ids\n"
	    "      --count           write each record's number of tokens\n"
	    "      --chat            each line is a conversation (JSON), rendered with the\n"
	    "                        model's chat template, then encoded\n"
	    "      --render          with --chat: write the rendered text, not ids\n"
	    "      --template=NAME   with --chat: the named template of a list\n"
	    REC_IDS_HELP
	    "  -h, --help            print this help and exit\n"
	    "      --version         print the version and exit\n", stdout);
	exit(status ? status : fshut(stdout, "<stdout>"));
}

/* The output of a record that failed (-k): an empty one. */
static void
failed(void)
{
	if (render)
		putchar(chatsep);
	else if (out == OUT_IDS)
		rec_write(stdout, fmt, NULL, 0);
	else
		putchar('\n');
}

/* Encode one record and write it.  --chat: the record is a conversation,
 * rendered, then encoded as apply_chat_template(tokenize=True) does: the
 * template's text alone (add_special_tokens=False), its special tokens
 * matched. */
static void
record(const char *s, size_t n, const char *name)
{
	size_t i, dropped = tok.ndropped;
	char where[128], *text = NULL;

	ids.n = 0;
	recno++;
	batch.nrec++;
	if (chatmode) {
		snprintf(where, sizeof(where), "%s: record %llu", name, recno);
		if (chat_render(&chat, s, n, where, &text, &n) < 0) {
			warn("%s: conversation not rendered", where);
			if (!batch_failed(&batch))
				exit(1);
			failed();
			return;
		}
		if (render) {
			fwrite(text, 1, n, stdout);
			putchar(chatsep);
			free(text);
			return;
		}
		s = text;
	} else if (bos == 1 && (!tok.has_template || !tok.nprefix ||
	    tok.prefix[0] != tok_bos(&tok)) && tok_ids_push(&ids, tok_bos(&tok)) < 0) {
		exit(1);
	}
	if (tok_encode(&tok, s, n, chatmode ? flags & ~TOK_ADD_SPECIAL : flags, &ids) < 0)
		exit(1);
	free(text);
	if (tok.ndropped != dropped)
		warn("%s: record %llu: %zu bytes have no token and were dropped",
		    name, recno, tok.ndropped - dropped);
	if (out == OUT_COUNT) {
		printf("%zu\n", ids.n);
	} else if (out == OUT_PIECES) {
		for (i = 0; i < ids.n; i++) {
			size_t len;
			const char *p = tok_piece(&tok, ids.v[i], &len);
			if (i)
				putchar(' ');
			tok_escape(stdout, p, len);
		}
		putchar('\n');
	} else {
		rec_write(stdout, fmt, ids.v, ids.n);
	}
}

/* Records from fd (name in messages): the whole input, or split at sep
 * (-l, -0).  Split input is read with read(2) and stdout flushed before
 * each read, so a line typed or streamed in gets its record out at once
 * while bulk input stays buffered. */
static void
input(int fd, const char *name, int sep)
{
	char *buf = NULL, *p;
	size_t cap = 0, len = 0, start;
	ssize_t n;

	for (;;) {
		if (xgrow(&buf, &cap, len + 65536, 1) < 0)
			exit(1);
		if (sep >= 0)
			efflush(stdout, "<stdout>");
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			die("%s: read error:", name);
		if (n == 0)
			break;
		len += n;
		if (sep < 0)
			continue;
		for (start = 0; (p = memchr(buf + start, sep, len - start)); start = p - buf + 1)
			record(buf + start, p - (buf + start), name);
		memmove(buf, buf + start, len - start);
		len -= start;
	}
	/* the whole input: a final newline ends the record as -l's would,
	 * so `echo text | tok-encode | tok-decode` gives back its input */
	if (sep < 0 && len && buf[len - 1] == '\n')
		len--;
	if (sep < 0 || len)
		record(buf ? buf : "", len, name);
	free(buf);
}

int
main(int argc, char *argv[])
{
	enum { O_BOS = 256, O_NOBOS, O_NOSPECIAL, O_PIECES, O_COUNT, O_VERSION,
	    O_CHAT, O_RENDER, O_TEMPLATE };
	static const struct option opts[] = {
		BATCH_LONGOPT,
		{ "lines",      no_argument,       NULL, 'l' },
		{ "null",       no_argument,       NULL, '0' },
		{ "text",       required_argument, NULL, 'e' },
		{ "bos",        no_argument,       NULL, O_BOS },
		{ "no-bos",     no_argument,       NULL, O_NOBOS },
		{ "no-special", no_argument,       NULL, O_NOSPECIAL },
		{ "pieces",     no_argument,       NULL, O_PIECES },
		{ "count",      no_argument,       NULL, O_COUNT },
		{ "chat",       no_argument,       NULL, O_CHAT },
		{ "render",     no_argument,       NULL, O_RENDER },
		{ "template",   required_argument, NULL, O_TEMPLATE },
		{ "help",       no_argument,       NULL, 'h' },
		{ "version",    no_argument,       NULL, O_VERSION },
		TOKOPT_LONGOPTS,
		REC_IDS_LONGOPT,
		{ NULL, 0, NULL, 0 }
	};
	struct tokopt to;
	struct files fl;
	char **texts = NULL;
	const char *tmplname = NULL;
	int c, sep = -1, i, ntext = 0, ret = 0;

	argv0 = argv[0];
	tokopt_init(&to);
	while ((c = getopt_long(argc, argv, "e:kl0m:hv", opts, NULL)) != -1) {
		switch (tokopt_parse(&to, c, optarg)) {
		case 1:  continue;
		case -1: exit(2);
		}
		switch (c) {
		case 'e':
			texts = ereallocarray(texts, ntext + 1, sizeof(*texts));
			texts[ntext++] = optarg;
			break;
		case 'k': batch.keepgoing = 1; break;
		case 'l': sep = '\n'; break;
		case '0': sep = 0; break;
		case O_BOS: bos = 1; break;
		case O_NOBOS: bos = 0; break;
		case O_NOSPECIAL: flags |= TOK_NO_SPECIAL; break;
		case O_PIECES: out = OUT_PIECES; break;
		case O_COUNT: out = OUT_COUNT; break;
		case O_CHAT: chatmode = 1; break;
		case O_RENDER: render = 1; break;
		case O_TEMPLATE: tmplname = optarg; break;
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
	if (ntext && argc)
		edie(2, "-e and file operands exclude each other");
	if ((render || tmplname) && !chatmode)
		edie(2, "--render and --template go with --chat");
	/* --render needs the template alone, not the tokenizer */
	if ((!ntext && files_check_output(argv, argc, NULL, 1) < 0) ||
	    (!(chatmode && render) && tokopt_open(&tok, &to) < 0)) {
		ret = 1;
		goto out;
	}
	if (chatmode) {
		/* one conversation a line (-0: NUL-terminated), and so
		 * --render's texts */
		if (chat_open_model(&chat, to.model, to.file, tmplname) < 0) {
			ret = 1;
			goto out;
		}
		if (getenv("SOURCE_DATE_EPOCH"))
			chat.now = estrtonum(getenv("SOURCE_DATE_EPOCH"), 0,
			    1LL << 40, "SOURCE_DATE_EPOCH");
		chatsep = sep = sep < 0 ? '\n' : sep;
	}
	if (bos == 0)
		flags &= ~TOK_ADD_SPECIAL;
	if (bos == 1 && tok_bos(&tok) < 0)
		die("--bos: the tokenizer names no BOS token");
	for (i = 0; i < ntext; i++)
		record(texts[i], strlen(texts[i]), "-e");
	files_init(&fl, argv, ntext ? 0 : argc);
	while (!ntext && files_next(&fl))
		input(fileno(fl.f), fl.name, sep);
	files_close(&fl);
	ret = fl.failed | batch_end(&batch);
out:
	free(texts);
	free(ids.v);
	chat_free(&chat);
	tok_free(&tok);
	ret |= fshut(stdout, "<stdout>");
	return ret;
}
