#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../lib/base/files.h"
#include "../lib/model/model.h"
#include "../lib/opt/modelopt.h"
#include "../lib/stream/rec.h"
#include "../lib/stream/trace.h"
#include "../lib/tok/tok.h"
#include "../lib/base/util.h"

enum { OPT_DUMP = 0x380, OPT_LAYERS, OPT_SVG, OPT_HEAD };

static int sflag;

static _Noreturn void
usage(int status)
{
	fprintf(status ? stderr : stdout,
	    "usage: %s [-s] [--layers a-b] [--dump names -o file]\n"
	    "       [--svg file [--head l.h]] " REC_IDS_USAGE "\n"
	    "       " MODELOPT_USAGE " [file ...]\n", argv0);
	if (!status)
		fputs("\n"
	    "  -s, --session         one sequence across all records\n"
	    "      --layers=A-B      trace layers A to B (A, A-, -B; default all)\n"
	    "      --dump=NAMES      keep these activations whole (resid_pre, q, k, v,\n"
	    "                        pattern, z, attn_out, resid_mid, mlp_out,\n"
	    "                        resid_post, lens, normalized, all), comma-separated\n"
	    "  -o, --output=FILE     write them to FILE: .npy, .npz or a folder\n"
	    "      --svg=FILE        the first record's logit-lens grid as SVG\n"
	    "      --head=L.H        and the attention pattern of layer L's head H\n"
	    REC_IDS_HELP
	    MODELOPT_HELP
	    MODELOPT_VERBOSE_HELP
	    "  -h, --help            print this help and exit\n"
	    "      --version         print the version and exit\n", stdout);
	exit(status ? status : fshut(stdout, "<stdout>"));
}

/* Run one record (from input name) and write its table lines. */
static void
run(struct seq *sq, struct trace *tr, const struct rec *r, const char *name)
{
	if (!sflag)
		seq_reset(sq);
	if (r->n == 0)
		return;		/* no position to trace */
	if (rec_check(r, sq->m->cfg.vocab_size, name) < 0)
		exit(1);
	if (r->n > (size_t)(sq->ctx - sq->pos))
		die("%s: record %llu: sequence of %zu positions exceeds the "
		    "context of %d (see --ctx)", name, r->no, sq->pos + r->n, sq->ctx);
	if (trace_begin(tr, sq->pos, (int)r->n) < 0 ||
	    !seq_forward(sq, r->ids, (int)r->n) ||
	    trace_end(tr, stdout, "<stdout>", r->no, r->ids) < 0)
		exit(1);
}

/* The tokenizer of the model's folder (or GGUF file) for the pictures'
 * labels: 0 if there is one, else -1 (the ids are the labels). */
static int
labels(struct tok *t, const struct model *m)
{
	char path[4096];

	if (m->gguf)
		return tok_load_gguf(t, m->gguf) < 0 ? (tok_free(t), -1) : 0;
	snprintf(path, sizeof(path), "%s/tokenizer.json", m->dir);
	if (access(path, R_OK) < 0)
		return -1;
	return tok_load(t, path) < 0 ? (tok_free(t), -1) : 0;
}

int
main(int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "dump",    required_argument, NULL, OPT_DUMP },
		{ "head",    required_argument, NULL, OPT_HEAD },
		{ "help",    no_argument,       NULL, 'h' },
		{ "layers",  required_argument, NULL, OPT_LAYERS },
		{ "output",  required_argument, NULL, 'o' },
		{ "session", no_argument,       NULL, 's' },
		{ "svg",     required_argument, NULL, OPT_SVG },
		{ "version", no_argument,       NULL, 'V' },
		MODELOPT_LONGOPTS,
		REC_IDS_LONGOPT,
		{ NULL, 0, NULL, 0 }
	};
	const char *outpath = NULL, *svgpath = NULL, *layers = NULL;
	struct modelopt mo;
	enum rec_fmt ids = REC_TEXT;
	struct model m;
	struct seq sq;
	struct trace tr = { 0 };
	struct tok t = { 0 };
	struct outfile svgf = { 0 };
	struct rec r = { 0 };
	struct rec_files rf;
	unsigned dump = 0;
	int c, ret, got, l0 = 0, l1 = -1, hl = -1, hh = -1, L, haslabels;
	char *end;

	argv0 = argv[0];
	modelopt_init(&mo);
	while ((c = getopt_long(argc, argv, "c:hm:o:st:v", opts, NULL)) != -1) {
		switch (modelopt_parse(&mo, c, optarg)) {
		case 1:  continue;
		case -1: exit(2);
		}
		switch (c) {
		case OPT_DUMP:
			if (trace_parse_names(optarg, &dump) < 0)
				exit(2);
			break;
		case OPT_HEAD:
			hl = (int)strtol(optarg, &end, 10);
			if (end == optarg || *end != '.' || hl < 0 ||
			    (hh = (int)strtol(end + 1, &end, 10)) < 0 || *end ||
			    end == optarg)
				edie(2, "invalid --head '%s' (LAYER.HEAD, e.g. 3.1)",
				    optarg);
			break;
		case 'h': usage(0);
		case REC_OPT_IDS:
			if (rec_fmt_parse(optarg, &ids) < 0)
				exit(2);
			break;
		case OPT_LAYERS:
			if (trace_parse_layers(optarg, &l0, &l1) < 0)
				edie(2, "invalid --layers '%s' (A, A-B, A- or -B)",
				    optarg);
			layers = optarg;
			break;
		case 'o': outpath = optarg; break;
		case 's': sflag = 1; break;
		case OPT_SVG: svgpath = optarg; break;
		case 'V': version();
		default:  usage(2);
		}
	}
	argc -= optind, argv += optind;
	if (modelopt_finish(&mo) < 0)
		exit(2);
	if (!dump != !outpath)
		edie(2, outpath ? "-o needs --dump NAMES" : "--dump needs -o FILE");
	if (hl >= 0 && !svgpath)
		edie(2, "--head needs --svg FILE");
	if (files_check_output(argv, argc, outpath, 1) < 0 ||
	    files_check_output(argv, argc, svgpath, 1) < 0)
		return 1;
	if (modelopt_load(&m, &sq, &mo) < 0) {
		seq_close(&sq);
		model_close(&m);
		return 1;
	}
	L = m.cfg.num_hidden_layers;
	l1 = l1 < 0 ? L : l1;
	if (l0 >= L || l1 > L)
		edie(2, "--layers %s: the model has layers 0 to %d", layers, L - 1);
	if (hl >= 0 && (hl >= L || hh >= m.cfg.num_attention_heads))
		edie(2, "--head %d.%d: the model has layers 0 to %d and heads 0 "
		    "to %d", hl, hh, L - 1, m.cfg.num_attention_heads - 1);
	if (trace_init(&tr, &m, l0, l1, dump, svgpath != NULL, hl, hh) < 0)
		return 1;
	sq.tap = &tr.tap;

	fputs(TRACE_HEADER, stdout);
	rec_files_init(&rf, argv, argc, ids);
	while ((got = rec_files_next(&rf, &r)) > 0) {
		run(&sq, &tr, &r, rf.fl.name);
		efflush(stdout, "<stdout>");
	}
	rec_files_close(&rf);
	ret = got < 0 || rf.fl.failed;
	if (!ret && outpath && trace_dump(&tr, outpath) < 0)
		ret = 1;
	if (!ret && svgpath) {
		FILE *f = outfile_open(&svgf, svgpath);

		haslabels = labels(&t, &m) == 0;
		ret = !f || trace_svg(&tr, haslabels ? &t : NULL, f, svgpath) < 0;
		ret |= outfile_close(&svgf, !ret) < 0;
		tok_free(&t);
	}
	ret |= fshut(stdout, "<stdout>");
	if (mo.timing)
		seq_print_stats(&sq, stderr, argv0);
	rec_free(&r);
	trace_free(&tr);
	seq_close(&sq);
	model_close(&m);
	return ret;
}
