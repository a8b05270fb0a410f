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
#include "../lib/base/json.h"
#include "../lib/tok/tok_train.h"
#include "../lib/base/unicode.h"
#include "../lib/base/util.h"

#define CHUNK (16u << 20)	/* text read at a time: whole lines of it go to the threads */

static struct tok_train_opt o = { .vocab_size = 30000 };
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
	const char **special = NULL, *plain[256];
	char bytes[256][7], *buf = NULL, *cfgpath = NULL;
	struct json_doc pipe = { 0 }, cfg = { 0 };
	const struct json *pj, *added, *cj;
	struct tok_train_feed *f;
	const struct tok_train_words *wc;
	struct tok_train_model m;
	struct buf tj = { 0 }, tc = { 0 };
	struct files fl;
	uint32_t alpha[256], *ia = NULL;
	size_t nspecial = 0, cap = 0, i;
	int c, threads = default_threads(), ret = 0, dflt_special = 1;
	char err[256];

	argv0 = argv[0];
	while ((c = getopt_long(argc, argv, "n:s:t:o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'n': o.vocab_size = estrtonum(optarg, 1, 0x7ffffffe, "vocabulary size"); break;
		case O_BL: case O_SP:
			if (preset || like)
				edie(2, "--byte-level, --sentencepiece and --like exclude each other");
			preset = c == O_BL ? "byte-level" : "sentencepiece";
			break;
		case O_LIKE:
			if (preset || like)
				edie(2, "--byte-level, --sentencepiece and --like exclude each other");
			like = optarg;
			break;
		case 's':
			special = ereallocarray(special, nspecial + 1, sizeof *special);
			special[nspecial++] = optarg;
			dflt_special = 0;
			break;
		case O_MINF: o.min_frequency = estrtonum(optarg, 0, 1LL << 62, "minimum frequency"); break;
		case O_LIM: o.limit_alphabet = estrtonum(optarg, 0, 0x7ffffffe, "alphabet limit"); o.has_limit = 1; break;
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
	if (!like && !preset)
		preset = "byte-level";
	/* the pipeline: a preset's, or the --like file's */
	if (like ? json_load(&pipe, like) < 0 :
	    json_parse(&pipe, tok_train_preset(preset), strlen(tok_train_preset(preset)), err, sizeof err) < 0)
		return 1;
	pj = pipe.root;
	if (like) {
		const char *sl = strrchr(like, '/');
		size_t dl = sl ? (size_t)(sl - like + 1) : 0;
		cfgpath = emalloc(dl + sizeof "tokenizer_config.json");
		memcpy(cfgpath, like, dl);
		strcpy(cfgpath + dl, "tokenizer_config.json");
		if (access(cfgpath, F_OK) == 0 && json_load(&cfg, cfgpath) < 0)
			return 1;
		cj = cfg.root;
		added = json_get(pj, "added_tokens");
		for (i = 0; dflt_special && added && added->type == JSON_ARRAY && i < added->len; i++) {
			const struct json *a = &added->u.items[i];
			if (json_bool(json_get(a, "special")) == 1 && json_str(json_get(a, "content"))) {
				special = ereallocarray(special, nspecial + 1, sizeof *special);
				special[nspecial++] = json_get(a, "content")->u.str;
			}
		}
		if (!o.prefix)
			o.prefix = json_str(json_get(json_get(pj, "model"), "continuing_subword_prefix"));
		if (!o.suffix)
			o.suffix = json_str(json_get(json_get(pj, "model"), "end_of_word_suffix"));
	} else {
		cj = json_get(pj, "config");
		if (dflt_special && !strcmp(preset, "byte-level")) {
			static const char *const bl[] = { "<|endoftext|>" };
			special = ereallocarray(NULL, 1, sizeof *special);
			special[nspecial++] = bl[0];
		} else if (dflt_special) {
			static const char *const sp[] = { "<unk>", "<s>", "</s>" };
			special = ereallocarray(NULL, 3, sizeof *special);
			for (i = 0; i < 3; i++)
				special[nspecial++] = sp[i];
		}
		if (!strcmp(preset, "byte-level")) {
			tok_train_byte_alphabet(alpha);
			o.alphabet = alpha, o.nalphabet = 256;
		}
	}
	o.special = special, o.nspecial = nspecial;
	if (json_bool(json_get(json_get(pj, "model"), "byte_fallback")) == 1) {
		for (i = 0; i < 256; i++) {
			snprintf(bytes[i], sizeof bytes[i], "<0x%02X>", (unsigned)i);
			plain[i] = bytes[i];
		}
		o.plain = plain, o.nplain = 256;
	}
	if (init) {	/* each character of it, added to a preset's */
		size_t n = strlen(init), k, len, na = o.nalphabet;
		uint32_t cp;
		ia = ecalloc(n + na + 1, sizeof *ia);
		memcpy(ia, o.alphabet ? o.alphabet : alpha, na * sizeof *ia);
		for (k = 0; k < n; k += len) {
			len = uni_decode((const unsigned char *)init + k, n - k, &cp);
			if (UNI_ISBAD(cp))
				edie(2, "--initial-alphabet: not UTF-8");
			ia[na++] = cp;
		}
		o.alphabet = ia, o.nalphabet = na;
	}
	if (files_check_output(argv, argc, NULL, 1) < 0 ||
	    !(f = tok_train_feed_new(pj, like ? like : preset, threads)))
		return 1;
	meter = isatty(2);
	files_init(&fl, argv, argc);
	while (files_next(&fl))
		if (feed(f, fileno(fl.f), fl.name, &buf, &cap) < 0) {
			ret = 1;
			break;
		}
	files_close(&fl);
	free(buf);
	if (ret || fl.failed || !(wc = tok_train_feed_words(f)))
		return 1;
	if (!wc->n)
		die("no words in the input");
	o.progress = progress;
	t0 = tlast = now_seconds();
	if (tok_train_run(wc, &o, &m) < 0)
		return 1;
	tok_train_feed_free(f);
	if (m.vocab.n > o.vocab_size)
		die("vocabulary size %zu is below the special tokens and the alphabet (%zu)",
		    o.vocab_size, m.vocab.n);
	if (tok_train_json(&tj, &m, &o, pj, like ? like : preset) < 0 ||
	    tok_train_config(&tc, &m, &o, cj) < 0)
		return 1;
	if (outdir) {
		if (mkdir(outdir, 0777) < 0 && errno != EEXIST)
			die("%s: mkdir:", outdir);
		if (put(outdir, "tokenizer.json", &tj) < 0 ||
		    put(outdir, "tokenizer_config.json", &tc) < 0)
			ret = 1;
	} else {
		fwrite(tj.s, 1, tj.len, stdout);
	}
	buf_free(&tj), buf_free(&tc);
	tok_train_model_free(&m);
	json_free(&pipe), json_free(&cfg);
	free(special), free(ia), free(cfgpath);
	ret |= fshut(stdout, "<stdout>");
	return ret;
}
