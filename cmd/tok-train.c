/* tok-train: train a BPE tokenizer.json on text, as HuggingFace
 * tokenizers' BpeTrainer does.  See tok-train(1). */
#include <sys/stat.h>

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../lib/base/files.h"
#include "../lib/tok/tok_train.h"
#include "../lib/base/unicode.h"
#include "../lib/base/util.h"

#define CHUNK (16u << 20)	/* text read at a time: whole lines of it go to the threads */

static struct tok_train_opt o = { .vocab_size = 30000 };	/* the library's default */
static double t0, tlast;
static int meter;		/* a progress meter on stderr (a terminal) */

static _Noreturn void
usage(int status)
{
	fprintf(status ? stderr : stdout,
	    "usage: %s [-n size] [--byte-level | --sentencepiece | --like file]\n"
	    "       [-s token ...] [--min-frequency n] [--limit-alphabet n]\n"
	    "       [--initial-alphabet chars] [--max-token-length n]\n"
	    "       [--continuing-subword-prefix s] [--end-of-word-suffix s]\n"
	    "       [-t threads] [-o dir] [file ...]\n", argv0);
	if (!status)
		fputs("\n"
	    "  -n, --vocab-size=N    the vocabulary's size (default 30000)\n"
	    "      --byte-level      GPT-2/SmolLM2 pipeline, 256-byte alphabet (default)\n"
	    "      --sentencepiece   Llama 2 pipeline: Metaspace, byte fallback\n"
	    "      --like=FILE       the pipeline and special tokens of a tokenizer.json\n"
	    "  -s, --special=TOKEN   a special token (repeat; replaces the defaults)\n"
	    "      --min-frequency=N     merge no pair seen fewer than N times\n"
	    "      --limit-alphabet=N    keep the N most frequent characters\n"
	    "      --initial-alphabet=S  characters always in the alphabet\n"
	    "      --max-token-length=N  no token of N characters or more\n"
	    "      --continuing-subword-prefix=S, --end-of-word-suffix=S\n"
	    "  -t, --threads=N       threads counting words (default $PIPELM_THREADS, else the CPUs)\n"
	    "  -o, --output=DIR      write DIR/tokenizer.json and DIR/tokenizer_config.json\n"
	    "                        (default: tokenizer.json on stdout)\n"
	    "  -h, --help            print this help and exit\n"
	    "      --version         print the version and exit\n", stdout);
	exit(status ? status : fshut(stdout, "<stdout>"));
}

static void
progress(void *ctx, size_t done, size_t total)
{
	double t = now_seconds(), rate;

	(void)ctx;
	if (!meter || (done < total && t - tlast < 0.25))
		return;
	tlast = t;
	rate = done / (t - t0 > 1e-9 ? t - t0 : 1e-9);
	fprintf(stderr, "\r%s: %zu/%zu merges, %.0f/s, %.0f s left   ", argv0, done,
	    total, rate, rate > 0 ? (total - done) / rate : 0.0);
	if (done >= total)
		fputc('\n', stderr);
}

/* Count the words of one input, whole lines at a time. */
static int
feed(struct tok_train_feed *f, int fd, const char *name, char **buf, size_t *cap)
{
	size_t n = 0, total = 0;
	ssize_t r;

	for (;;) {
		if (n == *cap) {	/* a line longer than the buffer */
			*cap = *cap ? *cap * 2 : CHUNK;
			*buf = ereallocarray(*buf, *cap, 1);
		}
		r = read(fd, *buf + n, *cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return error("%s: read:", name);
		n += r, total += r;
		size_t whole = n;
		if (r)	/* up to the last newline */
			while (whole > 0 && (*buf)[whole - 1] != '\n')
				whole--;
		if (whole && (n == *cap || !r)) {
			if (tok_train_feed(f, name, *buf, whole) < 0)
				return -1;
			memmove(*buf, *buf + whole, n - whole);
			n -= whole;
			if (meter)
				fprintf(stderr, "\r%s: %s: %zu MB read", argv0, name, total >> 20);
		}
		if (!r)
			break;
	}
	if (meter)
		fputc('\n', stderr);
	return 0;
}

/* Write the buffer to dir/name, in place only on success. */
static int
put(const char *dir, const char *name, const struct buf *b)
{
	struct outfile of = { 0 };
	char path[4096];

	if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, name) >= sizeof path)
		return error("%s: path too long", dir);
	if (!outfile_open(&of, path))
		return -1;
	fwrite(b->s, 1, b->len, of.f);
	return outfile_close(&of, 1);
}

/* Train on the words wc and write the tokenizer: 0, or 1 after a
 * message. */
static int
train(const struct tok_train_words *wc, const struct tok_train_pipe *P, const char *outdir)
{
	struct tok_train_model m;
	struct buf tj = { 0 }, tc = { 0 };
	int ret = 1;

	if (!wc->n) {
		warn("no words in the input");
		return 1;
	}
	o.progress = progress;
	t0 = tlast = now_seconds();
	if (tok_train_run(wc, &o, &m) < 0)
		return 1;
	if (m.vocab.n > o.vocab_size)
		error("vocabulary size %zu is below the special tokens and the alphabet (%zu)",
		    o.vocab_size, m.vocab.n);
	else if (tok_train_json(&tj, &m, &o, P->root, P->name) < 0 ||
	    tok_train_config(&tc, &m, P->cfg) < 0)
		;
	else if (!outdir)
		ret = fwrite(tj.s, 1, tj.len, stdout) != tj.len;
	else if (mkdir(outdir, 0777) < 0 && errno != EEXIST)
		error("%s: mkdir:", outdir);
	else
		ret = put(outdir, "tokenizer.json", &tj) < 0 ||
		    put(outdir, "tokenizer_config.json", &tc) < 0;
	buf_free(&tj), buf_free(&tc);
	tok_train_model_free(&m);
	return ret;
}

int
main(int argc, char *argv[])
{
	enum { O_BL = 256, O_SP, O_LIKE, O_MINF, O_LIM, O_INIT, O_MAXL, O_PRE, O_SUF, O_VERSION };
	static const struct option opts[] = {
		{ "vocab-size",     required_argument, NULL, 'n' },
		{ "byte-level",     no_argument,       NULL, O_BL },
		{ "sentencepiece",  no_argument,       NULL, O_SP },
		{ "like",           required_argument, NULL, O_LIKE },
		{ "special",        required_argument, NULL, 's' },
		{ "min-frequency",  required_argument, NULL, O_MINF },
		{ "limit-alphabet", required_argument, NULL, O_LIM },
		{ "initial-alphabet", required_argument, NULL, O_INIT },
		{ "max-token-length", required_argument, NULL, O_MAXL },
		{ "continuing-subword-prefix", required_argument, NULL, O_PRE },
		{ "end-of-word-suffix", required_argument, NULL, O_SUF },
		{ "threads",        required_argument, NULL, 't' },
		{ "output",         required_argument, NULL, 'o' },
		{ "help",           no_argument,       NULL, 'h' },
		{ "version",        no_argument,       NULL, O_VERSION },
		{ NULL, 0, NULL, 0 }
	};
	const char *preset = NULL, *like = NULL, *outdir = NULL, *init = NULL;
	const char **special = NULL;
	char *buf = NULL;
	struct tok_train_pipe P;
	struct tok_train_feed *f = NULL;
	const struct tok_train_words *wc;
	struct files fl;
	uint32_t *ia = NULL;
	size_t nspecial = 0, cap = 0;
	int c, threads = default_threads(), ret = 1, bad = 0;

	argv0 = argv[0];
	while ((c = getopt_long(argc, argv, "n:s:t:o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'n': o.vocab_size = estrtonum(optarg, 1, 0x7ffffffe, "vocabulary size"); break;
		case O_BL: case O_SP: case O_LIKE:
			if (preset || like)
				edie(2, "--byte-level, --sentencepiece and --like exclude each other");
			if (c == O_LIKE)
				like = optarg;
			else
				preset = c == O_BL ? "byte-level" : "sentencepiece";
			break;
		case 's':
			if (!*optarg)
				edie(2, "an empty special token");
			special = ereallocarray(special, nspecial + 1, sizeof *special);
			special[nspecial++] = optarg;
			break;
		case O_MINF: o.min_frequency = estrtonum(optarg, 0, 1LL << 62, "minimum frequency"); break;
		case O_LIM:
			o.limit_alphabet = estrtonum(optarg, 0, 0x7ffffffe, "alphabet limit");
			o.has_limit = 1;
			break;
		case O_INIT: init = optarg; break;
		case O_MAXL: o.max_token_length = estrtonum(optarg, 1, 1LL << 40, "maximum token length"); break;
		case O_PRE: o.prefix = optarg; break;
		case O_SUF: o.suffix = optarg; break;
		case 't': threads = estrtonum(optarg, 1, 1024, "threads"); break;
		case 'o': outdir = optarg; break;
		case 'h': usage(0);
		case O_VERSION: version();
		default: usage(2);
		}
	}
	argc -= optind, argv += optind;
	if (threads < 0)
		return 2;
	if (tok_train_pipe_open(&P, like || preset ? preset : "byte-level", like) < 0)
		goto out;
	/* the options given over what the pipeline gives */
	o.special = special ? special : P.special;
	o.nspecial = special ? nspecial : P.nspecial;
	o.plain = P.plain, o.nplain = P.nplain;
	o.alphabet = P.alphabet, o.nalphabet = P.nalphabet;
	if (!o.prefix)
		o.prefix = P.prefix;
	if (!o.suffix)
		o.suffix = P.suffix;
	if (init) {	/* each character of it, beside a preset's */
		size_t n = strlen(init), k, len, na = P.nalphabet;
		uint32_t cp;
		ia = ecalloc(n + na + 1, sizeof *ia);
		memcpy(ia, P.alphabet, na * sizeof *ia);
		for (k = 0; k < n; k += len) {
			len = uni_decode((const unsigned char *)init + k, n - k, &cp);
			if (UNI_ISBAD(cp))
				edie(2, "--initial-alphabet: not UTF-8");
			ia[na++] = cp;
		}
		o.alphabet = ia, o.nalphabet = na;
	}
	if (files_check_output(argv, argc, NULL, 1) < 0 ||
	    !(f = tok_train_feed_new(P.root, P.name, threads)))
		goto out;
	meter = isatty(2);
	files_init(&fl, argv, argc);
	while (!bad && files_next(&fl))
		bad = feed(f, fileno(fl.f), fl.name, &buf, &cap) < 0;
	files_close(&fl);
	if (!bad && !fl.failed && (wc = tok_train_feed_words(f)))
		ret = train(wc, &P, outdir);
out:
	tok_train_feed_free(f);
	tok_train_pipe_free(&P);
	free(buf), free(special), free(ia);
	ret |= fshut(stdout, "<stdout>");
	return ret;
}
