#include <sys/stat.h>

#include <getopt.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../lib/disk/cfg.h"
#include "../lib/disk/gguf.h"
#include "../lib/base/json.h"
#include "../lib/disk/mdir.h"
#include "../lib/kern/pool.h"
#include "../lib/disk/st.h"
#include "../lib/base/util.h"
#include "../lib/wsrc/source.h"

static int jflag;
static int nfield;	/* fields written so far on this line / in this object */

/* One field of a tensor: tab-separated text, or "key": value in JSON
 * (quoted if str). */
static void
field(const char *key, const char *val, int str)
{
	if (jflag) {
		printf("%s\"%s\": ", nfield ? ", " : "{", key);
		if (str)
			json_write_str(stdout, val);
		else
			fputs(val, stdout);
	} else
		printf("%s%s", nfield ? "\t" : "", val);
	nfield++;
}

static void
zfield(const char *key, size_t v)
{
	char b[32];

	snprintf(b, sizeof(b), "%zu", v);
	field(key, b, 0);
}

/* %.9g, or null in JSON for NaN and Inf (which JSON lacks). */
static void
dfield(const char *key, double v)
{
	char b[32];

	snprintf(b, sizeof(b), "%.9g", v);
	field(key, jflag && !isfinite(v) ? "null" : b, 0);
}

static void
tensor(const struct st *st, const struct st_tensor *t,
    const struct st_stats *s, int first)
{
	const char *f = strrchr(st->files[t->file], '/');
	char sh[ST_SHAPELEN];

	if (jflag)
		printf("%s\n  ", first ? "" : ",");
	nfield = 0;
	field("name", t->name, 1);
	field("dtype", st_dtype_name(t->dtype), 1);
	field("shape", st_shape_fmt(t, sh, sizeof(sh)), 0);
	zfield("bytes", t->nbytes);
	zfield("offset", t->offset);
	if (s) {
		dfield("min", s->min);
		dfield("max", s->max);
		dfield("mean", s->mean);
		dfield("std", s->std);
		zfield("nan", s->nan);
		zfield("inf", s->inf);
	}
	if (jflag || st->nfiles > 1)
		field("file", f ? f + 1 : st->files[t->file], 1);
	fputs(jflag ? "}" : "\n", stdout);
}

/* A summary line: "key: value", or "key": value in JSON. */
static void
kv(const char *key, size_t v, int last)
{
	if (jflag)
		printf("    \"%s\": %zu%s\n", key, v, last ? "" : ",");
	else
		printf("%s: %zu\n", key, v);
}

static void
totals(const struct st_tensor *const *sel, size_t n)
{
	size_t bytes[ST_NDTYPE] = { 0 }, params = 0, all = 0, i;
	int d, first = 1;

	for (i = 0; i < n; i++) {
		bytes[sel[i]->dtype] += sel[i]->nbytes;
		all += sel[i]->nbytes;
		params += sel[i]->nel;
	}
	fputs(jflag ? "\n  ],\n  \"totals\": {\n" : "\n", stdout);
	kv("tensors", n, 0);
	kv("parameters", params, 0);
	kv("bytes", all, 0);
	if (jflag)
		printf("    \"bytes_by_dtype\": {");
	for (d = 0; d < ST_NDTYPE; d++)
		if (bytes[d] && jflag)
			printf("%s\"%s\": %zu", first-- > 0 ? "" : ", ",
			    st_dtype_name(d), bytes[d]);
		else if (bytes[d])
			printf("bytes %s: %zu\n", st_dtype_name(d), bytes[d]);
	if (jflag)
		printf("}\n  }");
}

/* The bytes a token reads: st_bytes_per_token, or for a multimodal
 * folder (Gemma 3's text_config) those of its text model alone. */
static size_t
bytes_per_token(const struct cfg *c, const struct st *st)
{
	static const char *const pre[] = {
		"model.language_model.", "language_model.model.",
		"lm_head.", "language_model.lm_head.",
	};
	size_t bytes = 0, i, k;

	if (!c->text_config)
		return st_bytes_per_token(st, c->tie_word_embeddings);
	for (i = 0; i < st->n; i++)
		for (k = 0; k < LEN(pre); k++)
			if (!strncmp(st->t[i].name, pre[k], strlen(pre[k]))) {
				bytes += st->t[i].nbytes;
				break;
			}
	return bytes;	/* tied: the table is read whole as the head */
}

/* What the architecture adds to a Llama, as words: the rope type, the
 * windows, the norms, the soft-caps, the fused tensors. */
static void
features(const struct cfg *c, char *buf, size_t size)
{
	const struct cfg_arch_info *A = cfg_arch_info(c->arch);
	int i, nwin = 0, nnorope = 0, n = 0;

	for (i = 0; i < c->num_hidden_layers; i++)
		nwin += c->sliding[i], nnorope += c->no_rope[i];
#define ADD(...) (n += snprintf(buf + n, size - n, "%s", n ? ", " : ""), \
	n += snprintf(buf + n, size - n, __VA_ARGS__))
	ADD("rope %s", *c->rope_scaling.rope_type ?
	    c->rope_scaling.rope_type : "default");
	if (c->partial_rotary_factor < 1)
		ADD("partial rotary %g", c->partial_rotary_factor);
	if (c->rope_local_theta)
		ADD("local rope theta %g", c->rope_local_theta);
	if (nnorope)
		ADD("no rope on %d of %d layers", nnorope, c->num_hidden_layers);
	if (nwin)
		ADD("window %d on %d of %d layers", c->sliding_window, nwin,
		    c->num_hidden_layers);
	if (c->attention_bias)
		ADD(A->bias == BIAS_QKV ? "q/k/v bias" : "attention bias");
	if (A->qk_norm)
		ADD("q/k-norm");
	if (A->norm_plus1)
		ADD("(1+w) norms");
	if (A->post_norms)
		ADD("post-norms");
	if (A->embed_scale)
		ADD("embed * sqrt(hidden)");
	if (A->geglu)
		ADD("%s GeGLU, query_pre_attn_scalar %g", c->hidden_act,
		    c->query_pre_attn_scalar);
	if (c->attn_logit_softcapping)
		ADD("attention soft-cap %g", c->attn_logit_softcapping);
	if (c->final_logit_softcapping)
		ADD("final soft-cap %g", c->final_logit_softcapping);
	if (A->fused)
		ADD("fused qkv_proj, gate_up_proj");
#undef ADD
}

/* Each quantized weight among sel[0..n) (a source kind's, source.h) as
 * one logical weight: NAME.weight, int4, [out,in], its group size, its
 * format or symmetry, scale dtype and the bytes of its tensors.  Returns
 * the logical weights' element count into *params. */
static void
packed(const struct st *st, const struct st_tensor *const *sel, size_t n,
    size_t *params)
{
	struct wsrc_desc d;
	char base[512];
	size_t i, k = 0;
	int j;

	for (i = 0; i < n; i++)
		for (j = 0; j < source_nkinds; j++) {
			if (!source_kinds[j]->describe ||
			    !source_kinds[j]->describe(st, sel[i], base,
			    sizeof(base), &d))
				continue;
			*params += (size_t)(d.out * d.in);
			if (jflag)
				printf("%s\n    {\"name\": \"%s.weight\", \"bits\": 4, "
				    "\"shape\": [%lld,%lld], \"group\": %lld, ",
				    k ? "," : ",\n  \"quantized\": [", base,
				    d.out, d.in, d.group);
			else
				printf("%s%s.weight\tint4\t[%lld,%lld]\tgroup %lld\t",
				    k ? "" : "\nquantized:\n", base, d.out, d.in,
				    d.group);
			if (jflag && d.format)
				printf("\"format\": \"%s\", ", d.format);
			else if (jflag)
				printf("\"symmetric\": %s, ", d.symmetric ?
				    "true" : "false");
			else
				printf("%s\t", d.format ? d.format : d.symmetric ?
				    "symmetric" : "asymmetric");
			if (jflag)
				printf("\"scale_dtype\": \"%s\", \"bytes\": %zu}",
				    st_dtype_name(d.scale), d.bytes);
			else
				printf("scale %s\t%zu\n", st_dtype_name(d.scale),
				    d.bytes);
			k++;
			break;
		}
	if (jflag && k)
		printf("\n  ]");
}

/* Elements of t that are parameters: a quantized weight's tensor that
 * names it counts its out x in, its other tensors none. */
static size_t
nparams(const struct st *st, const struct st_tensor *t)
{
	struct wsrc_desc d;
	char base[512];
	int j;

	for (j = 0; j < source_nkinds; j++) {
		const struct wsrc_kind *k = source_kinds[j];

		if (k->describe && k->describe(st, t, base, sizeof(base), &d))
			return (size_t)d.out * (size_t)d.in;
		if (k->companion && k->companion(st, t))
			return 0;
	}
	return t->nel;
}

/* The KV cache bytes one decode step reads at the context's last
 * position: each layer's keys and values of as many positions as it
 * sees, its sliding window on those layers. */
static size_t
kv_read(const struct cfg *c)
{
	size_t n = 0, per = 2 * (size_t)c->num_key_value_heads *
	    (size_t)c->head_dim * 4;
	int l, ctx = c->max_position_embeddings;

	for (l = 0; l < c->num_hidden_layers; l++)
		n += (size_t)(c->sliding[l] && c->sliding_window < ctx ?
		    c->sliding_window : ctx) * per;
	return n;
}

/* The config summary; see st-inspect(1) for what is counted. */
static void
summary(const struct cfg *c, const struct st *st, size_t params)
{
	const struct { const char *key; size_t v; } kvs[] = {
		{ "layers", (size_t)c->num_hidden_layers },
		{ "hidden_size", (size_t)c->hidden_size },
		{ "intermediate_size", (size_t)c->intermediate_size },
		{ "heads", (size_t)c->num_attention_heads },
		{ "kv_heads", (size_t)c->num_key_value_heads },
		{ "head_dim", (size_t)c->head_dim },
		{ "vocab", (size_t)c->vocab_size },
		{ "context", (size_t)c->max_position_embeddings },
		{ "tied", (size_t)c->tie_word_embeddings },
		{ "parameters", params },
		{ "bytes_per_token", bytes_per_token(c, st) },
		{ "kv_bytes_per_token", 2 * (size_t)c->num_hidden_layers *
		    (size_t)c->num_key_value_heads * (size_t)c->head_dim * 4 },
		{ "kv_bytes_read_at_context", kv_read(c) },
	};
	size_t i;
	char feat[512];

	features(c, feat, sizeof(feat));
	if (jflag) {
		printf(",\n  \"config\": {\n    \"architecture\": ");
		json_write_str(stdout, c->architecture);
		printf(",\n    \"features\": ");
		json_write_str(stdout, feat);
		printf(",\n");
	} else {
		printf("architecture: %s\n", c->architecture);
		printf("features: %s\n", feat);
	}
	for (i = 0; i < LEN(kvs); i++)
		kv(kvs[i].key, kvs[i].v, i == LEN(kvs) - 1);
	if (jflag)
		printf("  }");
}

static int
dump(const struct st *st, const char *name, int raw)
{
	const struct st_tensor *t = st_find(st, name);
	char buf[64];
	size_t i;
	float f;

	if (!t)
		return error("%s: no tensor %s", st->index ? st->index :
		    st->files[0], name);
	if (raw && isatty(1))
		edie(1, "refusing to write binary float32 to a terminal: use "
		    "-f text");
	for (i = 0; i < t->nel; i++)
		if (raw) {
			f = (float)st_elem(t, i);
			fwrite(&f, 4, 1, stdout);
		} else {
			st_elem_fmt(t, i, buf, sizeof(buf));
			puts(buf);
		}
	return 0;
}

/* --check: every weight of the float tensors t[0..n) finite; each
 * tensor that holds a NaN or an infinity is named.  0, or 1. */
static int
check_values(const struct st *st, const struct st_tensor *const *t, size_t n,
    int nthr)
{
	struct st_stats *s = ecalloc(n ? n : 1, sizeof(*s));
	struct pool *p = NULL;
	size_t i;
	int bad = 0;

	if ((nthr > 1 && !(p = pool_new(nthr))) || st_stats(p, t, n, s) < 0)
		bad = 1;
	else
		for (i = 0; i < n; i++)
			if (st_dtype_isfloat(t[i]->dtype) && (s[i].nan || s[i].inf)) {
				warn("%s: tensor '%s': %zu NaN and %zu infinite values",
				    st->files[t[i]->file], t[i]->name, s[i].nan,
				    s[i].inf);
				bad = 1;
			}
	pool_free(p);
	free(s);
	return bad;
}

/* A GGUF file: its metadata (arrays cut at 8 elements), its tensors
 * (those matching rx), totals by ggml type and the bytes a token
 * reads; the types pipelm does not run said on stderr.  0, or 1 after
 * a message. */
static int
inspect_gguf(const char *path, regex_t *rx, int cflag)
{
	struct gguf g;
	struct buf b = { 0 };
	size_t i, k, n = 0, all = 0, bytes[GGML_NTYPES] = { 0 };
	size_t cnt[GGML_NTYPES] = { 0 };
	char sh[GGUF_MAXDIM * 21 + 3];
	int first = 1, d;

	if (gguf_open(&g, path) < 0)
		return 1;
	if (cflag) {
		gguf_close(&g);
		return 0;
	}
	if (jflag)
		printf("{\n  \"version\": %u,\n  \"alignment\": %zu,\n"
		    "  \"metadata\": [", g.version, g.alignment);
	for (i = 0; i < g.nkv; i++) {
		b.len = 0;
		gguf_type_fmt(&b, &g.kv[i].v);
		buf_addc(&b, 0);
		gguf_val_fmt(&b, &g.kv[i].v, 8);
		if (buf_ok(&b) < 0)
			break;
		if (jflag)
			printf("%s\n  ", i ? "," : "");
		nfield = 0;
		field("key", g.kv[i].key, 1);
		field("type", b.s, 1);
		field("value", b.s + strlen(b.s) + 1, 1);
		fputs(jflag ? "}" : "\n", stdout);
	}
	fputs(jflag ? "\n  ],\n  \"tensors\": [" : "\n", stdout);
	for (i = 0; i < g.n; i++) {
		const struct gguf_tensor *t = &g.t[i];

		if (rx && regexec(rx, t->name, 0, NULL, 0))
			continue;
		for (k = 0, d = t->ndim - 1; d >= 0; d--)	/* rows first */
			k += (size_t)snprintf(sh + k, sizeof sh - k, "%s%lld",
			    d == t->ndim - 1 ? "[" : ",", (long long)t->dims[d]);
		snprintf(sh + k, sizeof sh - k, "]");
		if (jflag)
			printf("%s\n  ", first ? "" : ",");
		first = 0;
		nfield = 0;
		field("name", t->name, 1);
		field("type", t->ti->name, 1);
		field("shape", sh, 0);
		zfield("bytes", t->nbytes);
		zfield("offset", t->offset);
		fputs(jflag ? "}" : "\n", stdout);
		bytes[t->type] += t->nbytes;
		cnt[t->type]++;
		all += t->nbytes;
		n++;
	}
	fputs(jflag ? "\n  ],\n  \"totals\": {\n" : "\n", stdout);
	kv("tensors", n, 0);
	kv("bytes", all, 0);
	kv("bytes_per_token", gguf_bytes_per_token(&g), 0);
	if (jflag)
		printf("    \"bytes_by_type\": {");
	for (d = 0, first = 1; d < GGML_NTYPES; d++)
		if (cnt[d] && jflag)
			printf("%s\"%s\": %zu", first-- > 0 ? "" : ", ",
			    ggml_type((uint32_t)d)->name, bytes[d]);
		else if (cnt[d])
			printf("bytes %s: %zu\n", ggml_type((uint32_t)d)->name,
			    bytes[d]);
	if (jflag)
		printf("}\n  }\n}\n");
	/* what pipelm cannot run yet, once */
	b.len = 0;
	for (d = 0; d < GGML_NTYPES; d++)
		if (cnt[d] && ggml_type((uint32_t)d)->wtype < 0)
			buf_printf(&b, "%s%s (%zu)", b.len ? ", " : "",
			    ggml_type((uint32_t)d)->name, cnt[d]);
	if (b.len && buf_ok(&b) == 0)
		warn("%s: tensors of ggml types pipelm does not run yet: %s",
		    path, b.s);
	buf_free(&b);
	gguf_close(&g);
	return 0;
}

static _Noreturn void
usage(int status)
{
	fprintf(status ? stderr : stdout, "usage: %s [-cjs] [-t threads] "
	    "[-e regex] [-d name [-f text|f32]] [file | dir | org/name[:quant]]\n",
	    argv0);
	if (!status)
		fputs("\n"
	    "  -c, --check           check the file, index and config; print nothing\n"
	    "  -d, --dump=NAME       print the values of tensor NAME\n"
	    "  -f, --format=FMT      with -d: text (default) or f32 (raw float32)\n"
	    "  -e, --regex=RE        list only the tensors whose names match RE\n"
	    "  -j, --json            write one JSON document\n"
	    "  -s, --stats           add min, max, mean, std and NaN/Inf counts\n"
	    "  -t, --threads=N       threads for -s (default $PIPELM_THREADS, else the CPUs)\n"
	    "  -h, --help            print this help and exit\n"
	    "      --version         print the version and exit\n", stdout);
	exit(status ? status : fshut(stdout, "<stdout>"));
}

int
main(int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "check", no_argument, NULL, 'c' },
		{ "dump", required_argument, NULL, 'd' },
		{ "regex", required_argument, NULL, 'e' },
		{ "format", required_argument, NULL, 'f' },
		{ "json", no_argument, NULL, 'j' },
		{ "stats", no_argument, NULL, 's' },
		{ "threads", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	const char *dumpname = NULL, *re = NULL, *arg, *fmt = "text";
	const struct st_tensor **sel = NULL;
	struct st_stats *stats = NULL;
	struct mdir m = { 0 };
	struct st st = { 0 };
	struct cfg c;
	struct pool *pool = NULL;
	struct stat sb;
	regex_t rx;
	size_t i, n = 0, params = 0;
	int ch, ret = 1, cflag = 0, sflag = 0, nthr = 0;
	char *cf = NULL;

	argv0 = argv[0];
	while ((ch = getopt_long(argc, argv, "cd:e:f:jst:h", opts, NULL)) != -1)
		switch (ch) {
		case 'c': cflag = 1; break;
		case 'd': dumpname = optarg; break;
		case 'e': re = optarg; break;
		case 'f': fmt = optarg; break;
		case 'j': jflag = 1; break;
		case 's': sflag = 1; break;
		case 't': nthr = (int)estrtonum(optarg, 1, 1024, "thread count"); break;
		case 'h': usage(0);
		case 'V': version();
		default: usage(2);
		}
	argc -= optind, argv += optind;
	if (!nthr && (nthr = default_threads()) < 0)
		exit(2);
	if (argc > 1 || (strcmp(fmt, "text") && strcmp(fmt, "f32")))
		usage(2);
	if (argc && !*argv[0])
		usage(2);
	arg = argc ? argv[0] : getenv("PIPELM_MODEL");
	if (arg && !*arg)
		arg = NULL;	/* the built-in model, as mdir_resolve has it */
	if (arg && !strcmp(arg, "-"))	/* mapped: it must be a regular file */
		arg = "/dev/stdin";
	if (re && regcomp(&rx, re, REG_EXTENDED | REG_NOSUB))
		edie(2, "invalid regular expression '%s'", re);

	/* a GGUF file, or ORG/NAME:QUANT */
	if (arg && !dumpname && (gguf_probe(arg) || (stat(arg, &sb) < 0 &&
	    strchr(arg, ':')))) {
		if (!gguf_probe(arg) && mdir_resolve(&m, arg) < 0)
			goto out;
		ret = inspect_gguf(m.gguf ? m.gguf : arg, re ? &rx : NULL,
		    cflag);
		goto out;
	}
	/* a file; a folder, a model folder if it has config.json; ORG/NAME */
	cf = emalloc((arg ? strlen(arg) : 0) + sizeof("/config.json"));
	sprintf(cf, "%s/config.json", arg ? arg : "");
	if (!arg || stat(arg, &sb) < 0 ||
	    (S_ISDIR(sb.st_mode) && !access(cf, F_OK)))
		if (mdir_resolve(&m, arg) < 0 ||
		    cfg_load(&c, m.config, m.genconfig) < 0)
			goto out;
	if (st_open(&st, m.dir ? (m.weights ? m.weights : m.dir) : arg) < 0)
		goto out;
	if (dumpname) {
		ret = dump(&st, dumpname, !strcmp(fmt, "f32")) < 0;
		goto out;
	}
	sel = ecalloc(st.n, sizeof(*sel));
	for (i = 0; i < st.n; i++)
		if (!re || !regexec(&rx, st.t[i].name, 0, NULL, 0))
			sel[n++] = &st.t[i];
	if (cflag) {
		ret = check_values(&st, sel, n, nthr);
		goto out;
	}
	if (sflag) {
		stats = ecalloc(n, sizeof(*stats));
		if ((nthr > 1 && !(pool = pool_new(nthr))) ||
		    st_stats(pool, sel, n, stats) < 0)
			goto out;
	}
	if (jflag)
		printf("{\n  \"tensors\": [");
	for (i = 0; i < n; i++)
		tensor(&st, sel[i], stats ? &stats[i] : NULL, !i);
	totals(sel, n);
	{
		size_t lp = 0;

		packed(&st, sel, n, &lp);
	}
	for (i = 0; m.dir && i < st.n; i++)
		params += nparams(&st, &st.t[i]);
	if (m.dir)
		summary(&c, &st, params);
	if (jflag)
		printf("\n}\n");
	ret = 0;
out:
	pool_free(pool);
	free(stats);
	free(sel);
	free(cf);
	if (re)
		regfree(&rx);
	st_close(&st);
	mdir_free(&m);
	ret |= fshut(stdout, "<stdout>");
	return ret;
}
