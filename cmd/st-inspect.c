#include <sys/stat.h>

#include <getopt.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../lib/cfg.h"
#include "../lib/mdir.h"
#include "../lib/pool.h"
#include "../lib/st.h"
#include "../lib/util.h"

static int jflag, sflag, cflag;

/* s as a JSON string. */
static void
jstr(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

/* x in text (%.9g, nan, inf) or JSON (null for NaN and Inf). */
static void
num(double x)
{
	if (jflag && !isfinite(x))
		fputs("null", stdout);
	else
		printf("%.9g", x);
}

static void
shape(const struct st_tensor *t)
{
	int i;

	putchar('[');
	for (i = 0; i < t->ndim; i++)
		printf("%s%lld", i ? "," : "", (long long)t->shape[i]);
	putchar(']');
}

static void
tensor(const struct st *st, const struct st_tensor *t,
    const struct st_stats *s, int first)
{
	const char *f = strrchr(st->files[t->file], '/');

	f = f ? f + 1 : st->files[t->file];
	if (jflag) {
		printf("%s\n  {\"name\": ", first ? "" : ",");
		jstr(t->name);
		printf(", \"dtype\": \"%s\", \"shape\": ",
		    st_dtype_name(t->dtype));
		shape(t);
		printf(", \"bytes\": %zu, \"offset\": %zu, \"file\": ",
		    t->nbytes, t->offset);
		jstr(f);
		if (s) {
			fputs(", \"min\": ", stdout), num(s->min);
			fputs(", \"max\": ", stdout), num(s->max);
			fputs(", \"mean\": ", stdout), num(s->mean);
			fputs(", \"std\": ", stdout), num(s->std);
			printf(", \"nan\": %zu, \"inf\": %zu", s->nan, s->inf);
		}
		putchar('}');
		return;
	}
	printf("%s\t%s\t", t->name, st_dtype_name(t->dtype));
	shape(t);
	printf("\t%zu\t%zu", t->nbytes, t->offset);
	if (s) {
		putchar('\t'), num(s->min);
		putchar('\t'), num(s->max);
		putchar('\t'), num(s->mean);
		putchar('\t'), num(s->std);
		printf("\t%zu\t%zu", s->nan, s->inf);
	}
	if (st->nfiles > 1)
		printf("\t%s", f);
	putchar('\n');
}

/* "key: value" in text, "key": value in JSON. */
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
	if (jflag)
		printf("\n  ],\n  \"totals\": {\n");
	else
		putchar('\n');
	kv("tensors", n, 0);
	kv("parameters", params, 0);
	kv("bytes", all, 0);
	if (jflag)
		printf("    \"bytes_by_dtype\": {");
	for (d = 0; d < ST_NDTYPE; d++) {
		if (!bytes[d])
			continue;
		if (jflag)
			printf("%s\"%s\": %zu", first ? "" : ", ",
			    st_dtype_name(d), bytes[d]);
		else
			printf("bytes %s: %zu\n", st_dtype_name(d), bytes[d]);
		first = 0;
	}
	if (jflag)
		printf("}\n  }");
}

/* The config summary; see st-inspect(1) for what is counted. */
static void
summary(const struct cfg *c, const struct st *st)
{
	const struct st_tensor *emb = st_find(st, "model.embed_tokens.weight");
	size_t params = 0, bytes = 0, i;

	for (i = 0; i < st->n; i++) {
		params += st->t[i].nel;
		bytes += st->t[i].nbytes;
	}
	if (emb && !c->tie_word_embeddings && emb->ndim == 2 && emb->shape[0])
		bytes -= emb->nbytes - emb->nbytes / (size_t)emb->shape[0];
	if (jflag) {
		printf(",\n  \"config\": {\n    \"architecture\": ");
		jstr(c->architecture);
		printf(",\n");
	} else
		printf("architecture: %s\n", c->architecture);
	kv("layers", (size_t)c->num_hidden_layers, 0);
	kv("hidden_size", (size_t)c->hidden_size, 0);
	kv("intermediate_size", (size_t)c->intermediate_size, 0);
	kv("heads", (size_t)c->num_attention_heads, 0);
	kv("kv_heads", (size_t)c->num_key_value_heads, 0);
	kv("head_dim", (size_t)c->head_dim, 0);
	kv("vocab", (size_t)c->vocab_size, 0);
	kv("context", (size_t)c->max_position_embeddings, 0);
	kv("tied", (size_t)c->tie_word_embeddings, 0);
	kv("parameters", params, 0);
	kv("bytes_per_token", bytes, 0);
	kv("kv_bytes_per_token", 2 * (size_t)c->num_hidden_layers *
	    (size_t)c->num_key_value_heads * (size_t)c->head_dim * 4, 1);
	if (jflag)
		printf("  }");
}

static int
dump(const struct st *st, const char *name, int raw)
{
	const struct st_tensor *t = st_find(st, name);
	size_t i;

	if (!t)
		return error("%s: no tensor %s", st->index ? st->index :
		    st->files[0], name);
	if (raw && isatty(1))
		edie(2, "refusing to write binary float32 to a terminal: use "
		    "-f text");
	for (i = 0; i < t->nel; i++) {
		double x = st_elem(t, i);

		if (raw) {
			float f = (float)x;
			fwrite(&f, 4, 1, stdout);
		} else if (t->dtype == ST_F64)
			printf("%.17g\n", x);
		else
			printf("%.9g\n", x);
	}
	return 0;
}

static int
hascfg(const char *dir)
{
	char *p = emalloc(strlen(dir) + sizeof("/config.json"));
	int r;

	sprintf(p, "%s/config.json", dir);
	r = access(p, F_OK) == 0;
	free(p);
	return r;
}

static _Noreturn void
usage(int status)
{
	fprintf(status ? stderr : stdout, "usage: %s [-cjs] [-t threads] "
	    "[-e regex] [-d name [-f text|f32]] [file | dir | org/name]\n",
	    argv0);
	exit(status);
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
	const struct st_tensor **sel;
	struct st_stats *stats = NULL;
	struct mdir m = { 0 };
	struct st st = { 0 };
	struct cfg c;
	struct pool *pool = NULL;
	struct stat sb;
	regex_t rx;
	size_t i, n = 0;
	long nthr = sysconf(_SC_NPROCESSORS_ONLN);
	int ch, ret = 0, havecfg = 0;

	argv0 = argv[0];
	while ((ch = getopt_long(argc, argv, "cd:e:f:jst:h", opts, NULL)) != -1)
		switch (ch) {
		case 'c': cflag = 1; break;
		case 'd': dumpname = optarg; break;
		case 'e': re = optarg; break;
		case 'f': fmt = optarg; break;
		case 'j': jflag = 1; break;
		case 's': sflag = 1; break;
		case 't': nthr = (long)estrtonum(optarg, 1, 1024, "threads"); break;
		case 'h': usage(0);
		case 'V': version();
		default: usage(2);
		}
	argc -= optind, argv += optind;
	if (argc > 1 || (strcmp(fmt, "text") && strcmp(fmt, "f32")))
		usage(2);
	if (!(arg = argc ? argv[0] : getenv("PIPELM_MODEL")) || !*arg)
		usage(2);
	if (re && regcomp(&rx, re, REG_EXTENDED | REG_NOSUB))
		edie(2, "invalid regular expression '%s'", re);

	/* a file; a folder, a model folder if it has config.json; ORG/NAME */
	if (stat(arg, &sb) < 0 || (S_ISDIR(sb.st_mode) && hascfg(arg))) {
		if (mdir_resolve(&m, arg) < 0 ||
		    cfg_load(&c, m.config, m.genconfig) < 0) {
			ret = 1;
			goto out;
		}
		havecfg = 1;
	}
	if (st_open(&st, m.dir ? (m.weights ? m.weights : m.dir) : arg) < 0) {
		ret = 1;
		goto out;
	}
	if (dumpname) {
		ret = dump(&st, dumpname, !strcmp(fmt, "f32")) < 0;
		goto out;
	}
	if (cflag)
		goto out;

	sel = ecalloc(st.n, sizeof(*sel));
	for (i = 0; i < st.n; i++)
		if (!re || !regexec(&rx, st.t[i].name, 0, NULL, 0))
			sel[n++] = &st.t[i];
	if (sflag) {
		stats = ecalloc(n, sizeof(*stats));
		if (nthr > 1 && !(pool = pool_new((int)nthr)))
			ret = 1;
		else if (st_stats(pool, sel, n, stats) < 0)
			ret = 1;
	}
	if (!ret) {
		if (jflag)
			printf("{\n  \"tensors\": [");
		for (i = 0; i < n; i++)
			tensor(&st, sel[i], stats ? &stats[i] : NULL, !i);
		totals(sel, n);
		if (havecfg)
			summary(&c, &st);
		if (jflag)
			printf("\n}\n");
	}
	pool_free(pool);
	free(stats);
	free(sel);
out:
	if (re)
		regfree(&rx);
	st_close(&st);
	mdir_free(&m);
	ret |= fshut(stdout, "<stdout>");
	return ret;
}
