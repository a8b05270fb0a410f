/* mkgptq: a GPTQ (or AWQ) int4 model folder from a float one, and beside
 * it the F32 folder of its dequantized weights (tests only).  Every
 * Linear weight of the layers (and lm_head with --head) is quantized
 * round-to-nearest with GPTQ's min-max parameters (Quantizer.find_params:
 * the range widened to hold 0, symmetric zero point 8, asymmetric
 * round(-min / scale)), its scale rounded to the scale type first; the
 * packing is written here from the layouts of AutoGPTQ's QuantLinear.pack
 * and AutoAWQ's WQLinear_GEMM.from_linear (lib/kern/gptq.h), and the
 * dequantized folder from the integers themselves, (q - z) * scale in
 * float32, so that a test compares the reader with the writer.
 *
 * usage: mkgptq [--awq] [--asym] [-g n] [--v2] [--scale f16|bf16|f32]
 *        [--no-gidx | --perm-gidx] [--head] src dst deq
 *
 * --v2 writes checkpoint_format gptq_v2 (zero points as they are), else
 * v1 (minus one); -g -1 one group a row; --perm-gidx swaps two inputs'
 * groups in g_idx, as act-order would, for the refusal. */
#include <sys/stat.h>

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/base/json.h"
#include "../lib/kern/kern.h"
#include "../lib/disk/st.h"
#include "../lib/base/util.h"

enum { O_AWQ = 0x700, O_ASYM, O_V2, O_SCALE, O_NOGIDX, O_HEAD, O_PERM };

static int awq, asym, v2, nogidx, head, perm, group = 128;
static enum st_dtype sdt = ST_F16;
/* AutoAWQ's order: nibble p of a word holds output 8c + order[p] */
static const int order[8] = { 0, 2, 4, 6, 1, 3, 5, 7 };

struct out {			/* a tensor to write */
	struct st_wtensor w;
	const void *data;
	int own;		/* data is ours to free */
};

struct folder {
	struct out *t;
	size_t n, cap;
};

static void
add(struct folder *f, const char *name, enum st_dtype dt, int ndim,
    int64_t d0, int64_t d1, const void *data)
{
	struct out *o;

	if (xgrow(&f->t, &f->cap, f->n + 1, sizeof(*f->t)) < 0)
		die("out of memory");
	o = &f->t[f->n++];
	memset(o, 0, sizeof(*o));
	o->w.name = estrdup(name);
	o->w.dtype = dt;
	o->w.ndim = ndim;
	o->w.shape[0] = d0;
	o->w.shape[1] = d1;
	o->data = data;
	o->own = 1;
}

static void
freefolder(struct folder *f)
{
	size_t i;

	for (i = 0; i < f->n; i++) {
		free((char *)f->t[i].w.name);
		if (f->t[i].own)
			free((void *)f->t[i].data);
	}
	free(f->t);
}

static int
bysize(const void *a, const void *b)
{
	size_t x = st_dtype_size(((const struct out *)a)->w.dtype);
	size_t y = st_dtype_size(((const struct out *)b)->w.dtype);

	return x < y ? 1 : x > y ? -1 : strcmp(((const struct out *)a)->w.name,
	    ((const struct out *)b)->w.name);
}

static void
writest(struct folder *f, const char *dir)
{
	char path[4096];
	struct st_wtensor *w;
	size_t i;
	FILE *fp;

	qsort(f->t, f->n, sizeof(*f->t), bysize);
	w = ecalloc(f->n, sizeof(*w));
	for (i = 0; i < f->n; i++)
		w[i] = f->t[i].w;
	if (mkdir(dir, 0777) < 0 && errno != EEXIST)
		die("%s:", dir);
	snprintf(path, sizeof(path), "%s/model.safetensors", dir);
	if (!(fp = fopen(path, "wb")))
		die("%s:", path);
	if (st_write_header(fp, path, w, f->n, NULL, 0) < 0)
		exit(1);
	for (i = 0; i < f->n; i++)
		if (st_write_data(fp, path, &w[i], f->t[i].data) < 0)
			exit(1);
	if (fshut(fp, path))
		exit(1);
	free(w);
}

/* config.json of dir: doc's members less quantization_config, plus qc. */
static void
writecfg(const struct json_doc *doc, const char *dir, const char *qc)
{
	struct buf o = { 0 };
	char path[4096];
	size_t i, j;
	FILE *f;

	buf_addc(&o, '{');
	for (i = 0, j = 0; i < doc->root->len; i++) {
		const struct json_member *m = &doc->root->u.members[i];

		if (!strcmp(m->key, "quantization_config"))
			continue;
		if (j++)
			buf_adds(&o, ", ");
		json_put_str(&o, m->key, m->keylen);
		buf_adds(&o, ": ");
		json_put(&o, &m->value);
	}
	if (qc) {
		buf_adds(&o, ", \"quantization_config\": ");
		buf_adds(&o, qc);
	}
	buf_adds(&o, "}\n");
	snprintf(path, sizeof(path), "%s/config.json", dir);
	if (buf_ok(&o) < 0 || !(f = fopen(path, "w")))
		die("%s:", path);
	fwrite(o.s, 1, o.len, f);
	if (fshut(f, path))
		exit(1);
	buf_free(&o);
}

/* f rounded to the scale type, widened again. */
static float
round_scale(float f)
{
	switch (sdt) {
	case ST_F16:  return conv_f16_to_f32(conv_f32_to_f16(f));
	case ST_BF16: return conv_bf16_to_f32(conv_f32_to_bf16(f));
	default:      return f;
	}
}

static void
put_scale(void *s, size_t i, float f)
{
	switch (sdt) {
	case ST_F16:  ((uint16_t *)s)[i] = conv_f32_to_f16(f); break;
	case ST_BF16: ((uint16_t *)s)[i] = conv_f32_to_bf16(f); break;
	default:      ((float *)s)[i] = f; break;
	}
}

/* Quantize t (out x in) as base.{qweight,qzeros,scales,g_idx} into q and
 * its dequantized copy as base.weight into d. */
static void
quantize(struct folder *q, struct folder *d, const struct st_tensor *t,
    const char *base)
{
	long out = (long)t->shape[0], in = (long)t->shape[1], g, ng, o, i;
	long gs = group > 0 ? group : in, zw = (out + 7) / 8;
	uint32_t *qw, *qz;
	int32_t *gi;
	float *deq;
	void *sc;
	char name[4200];

	if (in % 8 || gs % 8 || (awq && out % 8))
		die("%s: %ld x %ld does not pack by 8", t->name, out, in);
	ng = (in + gs - 1) / gs;
	qw = ecalloc((size_t)in * out / 8, sizeof(*qw));
	qz = ecalloc((size_t)ng * zw, sizeof(*qz));
	sc = ecalloc((size_t)ng * out, st_dtype_size(sdt));
	deq = ecalloc((size_t)in * out, sizeof(*deq));
	for (o = 0; o < out; o++)
		for (g = 0; g < ng; g++) {
			long i0 = g * gs, i1 = i0 + gs < in ? i0 + gs : in;
			float lo = 0, hi = 0, s, x;
			int z, v, zs, pz;

			for (i = i0; i < i1; i++) {
				x = (float)st_elem(t, (size_t)o * in + i);
				lo = x < lo ? x : lo;
				hi = x > hi ? x : hi;
			}
			if (!asym) {
				hi = -lo > hi ? -lo : hi;
				if (lo < 0)
					lo = -hi;
			}
			if (lo == 0 && hi == 0)
				lo = -1, hi = 1;
			s = round_scale((hi - lo) / 15);
			z = asym ? (int)nearbyintf(-lo / s) : 8;
			z = z < 0 ? 0 : z > 15 ? 15 : z;
			if (!v2 && !awq && z < 1)
				z = 1;	/* v1 stores z - 1 in a nibble */
			put_scale(sc, (size_t)g * out + o, s);
			zs = !v2 && !awq ? z - 1 : z;
			pz = awq ? 0 : (int)(o % 8);
			if (awq)
				while (order[pz] != o % 8)
					pz++;
			qz[g * zw + o / 8] |= (uint32_t)zs << 4 * pz;
			for (i = i0; i < i1; i++) {
				x = (float)st_elem(t, (size_t)o * in + i);
				v = (int)nearbyintf(x / s) + z;
				v = v < 0 ? 0 : v > 15 ? 15 : v;
				deq[(size_t)o * in + i] = (float)(v - z) * s;
				if (awq)
					qw[(size_t)i * (out / 8) + o / 8] |=
					    (uint32_t)v << 4 * pz;
				else
					qw[(size_t)(i / 8) * out + o] |=
					    (uint32_t)v << 4 * (i % 8);
			}
		}
	snprintf(name, sizeof(name), "%s.qweight", base);
	if (awq)
		add(q, name, ST_I32, 2, in, out / 8, qw);
	else
		add(q, name, ST_I32, 2, in / 8, out, qw);
	snprintf(name, sizeof(name), "%s.qzeros", base);
	add(q, name, ST_I32, 2, ng, zw, qz);
	snprintf(name, sizeof(name), "%s.scales", base);
	add(q, name, sdt, 2, ng, out, sc);
	if (!awq && !nogidx) {
		gi = ecalloc((size_t)in, sizeof(*gi));
		for (i = 0; i < in; i++)
			gi[i] = (int32_t)(i / gs);
		if (perm && ng > 1)	/* act-order's g_idx, for the refusal */
			gi[0] = 1, gi[gs] = 0;
		snprintf(name, sizeof(name), "%s.g_idx", base);
		add(q, name, ST_I32, 1, in, 0, gi);
	}
	snprintf(name, sizeof(name), "%s.weight", base);
	add(d, name, ST_F32, 2, out, in, deq);
}

static int
linear(const char *name)
{
	static const char *const p[] = { "q_proj", "k_proj", "v_proj",
		"o_proj", "gate_proj", "up_proj", "down_proj" };
	size_t i, n = strlen(name);

	if (n < 8 || strcmp(name + n - 7, ".weight"))
		return 0;
	if (head && !strcmp(name, "lm_head.weight"))
		return 1;
	for (i = 0; i < sizeof(p) / sizeof(p[0]); i++)
		if (strstr(name, p[i]))
			return 1;
	return 0;
}

int
main(int argc, char *argv[])
{
	static const struct option lo[] = {
		{ "awq", no_argument, NULL, O_AWQ },
		{ "asym", no_argument, NULL, O_ASYM },
		{ "group", required_argument, NULL, 'g' },
		{ "v2", no_argument, NULL, O_V2 },
		{ "scale", required_argument, NULL, O_SCALE },
		{ "no-gidx", no_argument, NULL, O_NOGIDX },
		{ "head", no_argument, NULL, O_HEAD },
		{ "perm-gidx", no_argument, NULL, O_PERM },
		{ NULL, 0, NULL, 0 }
	};
	struct folder q = { 0 }, d = { 0 };
	struct json_doc doc;
	struct st st;
	char path[4096], qc[512];
	size_t i, j;
	float *f;
	int c;

	argv0 = argv[0];
	while ((c = getopt_long(argc, argv, "g:", lo, NULL)) != -1)
		switch (c) {
		case O_AWQ: awq = 1; break;
		case O_ASYM: asym = 1; break;
		case 'g': group = atoi(optarg); break;
		case O_V2: v2 = 1; break;
		case O_SCALE:
			for (i = 0; optarg[i]; i++)
				if (optarg[i] >= 'a' && optarg[i] <= 'z')
					optarg[i] -= 'a' - 'A';
			if (st_dtype_parse(optarg, &sdt) < 0 ||
			    !st_dtype_isfloat(sdt) || sdt == ST_F64)
				edie(2, "invalid scale type '%s'", optarg);
			break;
		case O_NOGIDX: nogidx = 1; break;
		case O_HEAD: head = 1; break;
		case O_PERM: perm = 1; break;
		default:
			edie(2, "usage: %s [--awq] [--asym] [-g n] [--v2] "
			    "[--scale f16|bf16|f32] [--no-gidx] [--head] src dst deq",
			    argv0);
		}
	if (argc - optind != 3)
		edie(2, "usage: %s [options] src dst deq", argv0);
	snprintf(path, sizeof(path), "%s/config.json", argv[optind]);
	if (json_load(&doc, path) < 0 || st_open(&st, argv[optind]) < 0)
		exit(1);
	for (i = 0; i < st.n; i++) {
		const struct st_tensor *t = &st.t[i];

		if (t->ndim == 2 && linear(t->name)) {
			snprintf(path, sizeof(path), "%.*s", (int)strlen(t->name) - 7,
			    t->name);
			quantize(&q, &d, t, path);
			continue;
		}
		add(&q, t->name, t->dtype, t->ndim, t->shape[0], t->shape[1],
		    t->data);
		q.t[q.n - 1].own = 0;	/* in the mapping */
		f = ecalloc(t->nel ? t->nel : 1, sizeof(*f));
		for (j = 0; j < t->nel; j++)
			f[j] = (float)st_elem(t, j);
		add(&d, t->name, ST_F32, t->ndim, t->shape[0], t->shape[1], f);
	}
	if (awq)
		snprintf(qc, sizeof(qc), "{\"quant_method\": \"awq\", \"bits\": 4, "
		    "\"group_size\": %d, \"zero_point\": %s, \"version\": \"gemm\", "
		    "\"modules_to_not_convert\": null}", group,
		    asym ? "true" : "false");
	else
		snprintf(qc, sizeof(qc), "{\"quant_method\": \"gptq\", \"bits\": 4, "
		    "\"group_size\": %d, \"desc_act\": false, \"sym\": %s, "
		    "\"damp_percent\": 0.01, \"true_sequential\": true, "
		    "\"static_groups\": false, \"checkpoint_format\": \"%s\", "
		    "\"model_name_or_path\": null, \"model_file_base_name\": "
		    "\"model\"}", group, asym ? "false" : "true",
		    v2 ? "gptq_v2" : "gptq");
	writest(&q, argv[optind + 1]);
	writecfg(&doc, argv[optind + 1], qc);
	writest(&d, argv[optind + 2]);
	writecfg(&doc, argv[optind + 2], NULL);
	freefolder(&q);
	freefolder(&d);
	json_free(&doc);
	st_close(&st);
	return 0;
}
