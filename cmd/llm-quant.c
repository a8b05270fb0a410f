/* llm-quant: write a compressed-tensors pack-quantized (W4A16) model
 * folder from a float one (quant.h has the layout): every Linear
 * weight in 4 bits, round-to-nearest with the min-max scale per group,
 * config.json with its quantization_config, the tokenizer and
 * generation files copied. */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/base/files.h"
#include "../lib/base/json.h"
#include "../lib/kern/kern.h"
#include "../lib/kern/quant.h"
#include "../lib/wsrc/wsrc.h"
#include "../lib/disk/mdir.h"
#include "../lib/disk/st.h"
#include "../lib/base/util.h"

enum { O_ASYM = 0x600, O_CHANNEL, O_KEEPHEAD };

#define OBUF (2 << 20)	/* the output's stdio buffer: one huge page */

static int group = 32, sym = 1, keephead;
static struct outdir od;	/* dst: in place only when the run succeeds */

/* An exit on an error leaves no part of dst (cleanup.h: nor a signal). */
static void
drop_output(void)
{
	outdir_close(&od, 0);
}

static _Noreturn void
usage(int status)
{
	FILE *f = status ? stderr : stdout;

	fprintf(f, "usage: %s [-f] [-g n | --channel] [--asym] [--keep-head] src dst\n",
	    argv0);
	if (!status)
		fputs("\n"
		    "Write the float model src (a folder or ORG/NAME) as a compressed-tensors\n"
		    "pack-quantized 4-bit model folder dst (round-to-nearest, min-max scale\n"
		    "per group).  dst appears only when it is complete.\n\n"
		    "  -f, --force           write into dst if it exists (its files of the\n"
		    "                        same names replaced, the others left)\n"
		    "  -g, --group=N         weights per scale (default 32)\n"
		    "      --channel         one scale per output row instead of groups\n"
		    "      --asym            asymmetric: a zero point per group (default symmetric)\n"
		    "      --keep-head       leave lm_head in its float type (and a tied\n"
		    "                        embedding tied); default: lm_head in 4 bits\n"
		    "  -h, --help            this text\n"
		    "      --version         the version\n", f);
	exit(status ? status : fshut(stdout, "<stdout>"));
}

struct out {			/* a tensor to write */
	struct st_wtensor w;
	const void *data;
	void *own;		/* data to free */
};

static struct out *outs;
static size_t nout, outcap;

static struct out *
add(const char *name, enum st_dtype dt, int ndim, int64_t d0, int64_t d1,
    const void *data, void *own)
{
	struct out *o;

	if (nout == outcap) {
		outcap = outcap ? 2 * outcap : 64;
		outs = ereallocarray(outs, outcap, sizeof(*outs));
	}
	o = &outs[nout++];
	memset(o, 0, sizeof(*o));
	o->w.name = estrdup(name);
	o->w.dtype = dt;
	o->w.ndim = ndim;
	o->w.shape[0] = d0;
	o->w.shape[1] = d1;
	o->data = data;
	o->own = own;
	return o;
}

/* Is tensor t, of that name, a Linear weight to quantize? */
static int
linear(const struct st_tensor *t, const char *name)
{
	size_t n = strlen(name);

	if (t->ndim != 2 || n < 7 || strcmp(name + n - 7, ".weight") ||
	    strstr(name, "embed_tokens"))
		return 0;
	if (!strcmp(name, "lm_head.weight"))
		return !keephead;
	return !strncmp(name, "model.layers.", 13);
}

/* Quantize the rows x cols float tensor t as NAME (less ".weight"). */
static void
quantize(const struct st_tensor *t, const char *base)
{
	int rows = (int)t->shape[0], cols = (int)t->shape[1];
	int wpr = (cols + 7) / 8, ng = (cols + group - 1) / group, r;
	enum wtype wt, st = t->dtype == ST_F16 ? W_F16 : W_BF16;
	size_t rb, zb = sym ? 0 : (size_t)(rows + 7) / 8 * ng;
	uint32_t *q, *z;
	uint16_t *s;
	int32_t *shp;
	float *f;
	char name[300];

	if (wsrc_st_type(t->dtype, &wt) < 0)
		die("%s: dtype %s: llm-quant takes F32, F16 or BF16 weights",
		    t->name, st_dtype_name(t->dtype));
	rb = wtype_rowsize(wt, cols);
	q = ecalloc((size_t)rows * wpr, 4);
	s = ecalloc((size_t)rows * ng, 2);
	z = zb ? ecalloc(zb, 4) : NULL;
	f = ecalloc((size_t)cols, sizeof(float));
	for (r = 0; r < rows; r++) {
		kern.to_f32[wt](f, (const char *)t->data + (size_t)r * rb, cols);
		quant_row(q + (size_t)r * wpr, s + (size_t)r * ng,
		    z ? z + (size_t)r / 8 * ng : NULL, r, f, cols, group, st);
	}
	free(f);
	shp = ecalloc(2, sizeof(*shp));
	shp[0] = rows, shp[1] = cols;
	snprintf(name, sizeof(name), "%s.weight_packed", base);
	add(name, ST_I32, 2, rows, wpr, q, q);
	snprintf(name, sizeof(name), "%s.weight_shape", base);
	add(name, ST_I32, 1, 2, 0, shp, shp);
	if (z) {
		snprintf(name, sizeof(name), "%s.weight_zero_point", base);
		add(name, ST_I32, 2, (rows + 7) / 8, ng, z, z);
	}
	snprintf(name, sizeof(name), "%s.weight_scale", base);
	add(name, st == W_F16 ? ST_F16 : ST_BF16, 2, rows, ng, s, s);
}

/* Larger elements first, so each tensor is aligned (st_write_header). */
static int
bysize(const void *a, const void *b)
{
	const struct out *x = a, *y = b;
	size_t sx = st_dtype_size(x->w.dtype), sy = st_dtype_size(y->w.dtype);

	if (sx != sy)
		return sx > sy ? -1 : 1;
	return strcmp(x->w.name, y->w.name);
}

/* dst's file name: where to write it. */
static const char *
dstfile(const char *name)
{
	const char *p = outdir_file(&od, name);

	if (!p)
		exit(1);
	return p;
}

static void
copyfile(const char *src, const char *name)
{
	char a[4096], buf[65536];
	const char *b;
	FILE *in, *out;
	size_t n;

	snprintf(a, sizeof(a), "%s/%s", src, name);
	if (!(in = fopen(a, "rb")))
		return;
	b = dstfile(name);
	if (!(out = fopen(b, "wb")))
		die("%s:", b);
	while ((n = fread(buf, 1, sizeof(buf), in)))
		if (fwrite(buf, 1, n, out) != n)
			break;
	if (ferror(in))
		die("%s: read error:", a);
	fclose(in);
	if (fshut(out, b))
		exit(1);
}

static void
config(const char *src, int untie)
{
	char a[4096];
	const char *b;
	struct json_doc doc;
	struct buf o = { 0 };
	const struct json *root;
	FILE *f;
	size_t i;
	char gs[16] = "null";

	if (group)
		snprintf(gs, sizeof(gs), "%d", group);
	snprintf(a, sizeof(a), "%s/config.json", src);
	if (json_load(&doc, a) < 0)
		exit(1);
	root = doc.root;
	if (root->type != JSON_OBJECT)
		die("%s: not a JSON object", a);
	buf_adds(&o, "{\n");
	for (i = 0; i < root->len; i++) {
		const struct json_member *m = &root->u.members[i];

		if (untie && !strcmp(m->key, "tie_word_embeddings"))
			continue;
		buf_adds(&o, "  ");
		json_put_str(&o, m->key, m->keylen);
		buf_adds(&o, ": ");
		json_put(&o, &m->value);
		buf_adds(&o, ",\n");
	}
	if (untie)
		buf_adds(&o, "  \"tie_word_embeddings\": false,\n");
	buf_printf(&o, "  \"quantization_config\": {\n"
	    "    \"quant_method\": \"compressed-tensors\",\n"
	    "    \"format\": \"pack-quantized\",\n"
	    "    \"quantization_status\": \"compressed\",\n"
	    "    \"config_groups\": {\n"
	    "      \"group_0\": {\n"
	    "        \"targets\": [\"Linear\"],\n"
	    "        \"input_activations\": null,\n"
	    "        \"output_activations\": null,\n"
	    "        \"weights\": {\n"
	    "          \"num_bits\": 4,\n"
	    "          \"type\": \"int\",\n"
	    "          \"symmetric\": %s,\n"
	    "          \"strategy\": \"%s\",\n"
	    "          \"group_size\": %s,\n"
	    "          \"dynamic\": false,\n"
	    "          \"actorder\": null,\n"
	    "          \"observer\": \"minmax\",\n"
	    "          \"observer_kwargs\": {}\n"
	    "        }\n"
	    "      }\n"
	    "    },\n"
	    "    \"ignore\": [%s],\n"
	    "    \"kv_cache_scheme\": null,\n"
	    "    \"global_compression_ratio\": null\n"
	    "  }\n}\n", sym ? "true" : "false", group ? "group" : "channel",
	    gs, keephead ? "\"lm_head\"" : "");
	json_free(&doc);
	if (buf_ok(&o) < 0)
		exit(1);
	b = dstfile("config.json");
	if (!(f = fopen(b, "w")))
		die("%s:", b);
	fwrite(o.s, 1, o.len, f);
	if (fshut(f, b))
		exit(1);
	buf_free(&o);
}

int
main(int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "force",     no_argument,       NULL, 'f' },
		{ "group",     required_argument, NULL, 'g' },
		{ "channel",   no_argument,       NULL, O_CHANNEL },
		{ "asym",      no_argument,       NULL, O_ASYM },
		{ "keep-head", no_argument,       NULL, O_KEEPHEAD },
		{ "help",      no_argument,       NULL, 'h' },
		{ "version",   no_argument,       NULL, 'V' },
		{ 0 }
	};
	static const char *copy[] = {
		"tokenizer.json", "tokenizer_config.json",
		"special_tokens_map.json", "generation_config.json",
		"chat_template.jinja", "vocab.json", "merges.txt",
		"tokenizer.model", "added_tokens.json",
	};
	const char *src, *dst, *why;
	char *obuf;
	struct mdir md = { 0 };
	struct st st;
	struct json_doc doc;
	char path[4096];
	long long v;
	int c, tied = 0, untie, channel = 0, force = 0;
	size_t i;
	FILE *f;

	argv0 = argv[0];
	while ((c = getopt_long(argc, argv, "fg:h", opts, NULL)) != -1) {
		switch (c) {
		case 'f': force = 1; break;
		case 'g':
			if ((why = strtonum_err(optarg, 8, 1 << 20, &v)) ||
			    v % 8)
				edie(2, "invalid group size '%s': %s", optarg,
				    why ? why : "not a multiple of 8");
			group = (int)v;
			break;
		case O_CHANNEL: channel = 1; break;
		case O_ASYM: sym = 0; break;
		case O_KEEPHEAD: keephead = 1; break;
		case 'h': usage(0);
		case 'V': version();
		default: usage(2);
		}
	}
	if (argc - optind != 2)
		usage(2);
	dst = argv[optind + 1];
	kern_init(getenv("PIPELM_KERNEL"));
	/* a folder or ORG/NAME, as -m takes them */
	if (!*argv[optind])
		edie(2, "empty source model name");
	if (mdir_resolve(&md, argv[optind]) < 0)
		exit(1);
	/* a GGUF file (file.gguf, ORG/NAME:QUANT) is no folder to convert:
	 * its matrices are in llama.cpp's types, F32 to Q2_K, run in place */
	if (md.gguf)
		die("%s: a GGUF file: llm-quant converts a float safetensors "
		    "model; the programs run a GGUF file as it is (-m %s)",
		    md.gguf, argv[optind]);
	src = md.dir;
	if (json_load(&doc, md.config) < 0)
		exit(1);
	if (json_get(doc.root, "quantization_config"))
		die("%s: the model is quantized already", md.config);
	tied = json_bool(json_get(doc.root, "tie_word_embeddings")) == 1;
	json_free(&doc);
	/* refused before any work: dst that exists (without -f), that is
	 * the source or lies inside it */
	atexit(drop_output);
	if (outdir_open(&od, dst, force, src) < 0)
		exit(1);
	if (st_open(&st, src) < 0)
		exit(1);
	untie = tied && !keephead;
	for (i = 0; i < st.n; i++) {
		const struct st_tensor *t = &st.t[i];
		char base[300];
		int g = group;

		if (!linear(t, t->name)) {
			add(t->name, t->dtype, t->ndim, t->shape[0],
			    t->ndim > 1 ? t->shape[1] : 0, t->data, NULL);
			if (t->ndim > 2)
				die("%s: %d-dimensional tensor", t->name, t->ndim);
			continue;
		}
		if (t->shape[1] > 1 << 24 || t->shape[0] > 1 << 24)
			die("%s: too large", t->name);
		if (channel)
			group = (int)t->shape[1];
		snprintf(base, sizeof(base), "%.*s", (int)strlen(t->name) - 7,
		    t->name);
		quantize(t, base);
		group = g;
	}
	if (untie) {
		const struct st_tensor *e = st_find(&st, "model.embed_tokens.weight");

		if (!e || e->ndim != 2)
			die("%s: tied, but no 2-D model.embed_tokens.weight", src);
		if (channel)
			group = (int)e->shape[1];
		quantize(e, "lm_head");
	}
	if (channel)
		group = 0;
	config(src, untie);
	for (i = 0; i < sizeof(copy) / sizeof(copy[0]); i++)
		copyfile(src, copy[i]);
	qsort(outs, nout, sizeof(*outs), bysize);
	{
		struct st_wtensor *w = ecalloc(nout, sizeof(*w));
		struct st_meta meta = { "format", "pt" };

		for (i = 0; i < nout; i++)
			w[i] = outs[i].w;
		snprintf(path, sizeof(path), "%s", dstfile("model.safetensors"));
		if (!(f = fopen(path, "wb")))
			die("%s:", path);
		/* writes of 2 MiB at 2 MiB offsets, so that the page cache
		 * holds the new file in 2 MiB folios, which a mapping of it
		 * (file_map) gets as huge pages; stdio's 4 KiB writes left
		 * it in small folios, mapped by 4 KiB pages until evicted
		 * (bench/NOTES.md, issue 14's 4-bit decode) */
		if (setvbuf(f, obuf = emalloc(OBUF), _IOFBF, OBUF))
			die("%s: setvbuf:", path);
		if (st_write_header(f, path, w, nout, &meta, 1) < 0)
			exit(1);
		for (i = 0; i < nout; i++)
			if (st_write_data(f, path, &w[i], outs[i].data) < 0)
				exit(1);
		if (fshut(f, path))
			exit(1);
		free(obuf);
		free(w);
	}
	for (i = 0; i < nout; i++) {
		free((char *)outs[i].w.name);
		free(outs[i].own);
	}
	free(outs);
	st_close(&st);
	mdir_free(&md);
	return outdir_close(&od, 1) < 0;
}
