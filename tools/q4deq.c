/* q4deq: a pack-quantized model folder dequantized to an F32 one (tests
 * only): every NAME.weight_packed with its weight_scale (and
 * weight_zero_point) becomes NAME.weight = (q - z) * scale in float32,
 * written straight from the layout in lib/kern/quant.h and not with the
 * library's kernels, so that the tests compare two readings of it; the
 * other tensors are widened to F32; config.json loses its
 * quantization_config.
 *
 * usage: q4deq src dst */
#include <sys/stat.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/base/json.h"
#include "../lib/disk/st.h"
#include "../lib/base/util.h"

static const struct st_tensor *
need(const struct st *st, const char *base, const char *suffix)
{
	char name[300];
	const struct st_tensor *t;

	snprintf(name, sizeof(name), "%s.%s", base, suffix);
	if (!(t = st_find(st, name)))
		die("missing %s", name);
	return t;
}

static unsigned
nib(const struct st_tensor *t, size_t word, int k)
{
	return (unsigned)((uint32_t)(int64_t)st_elem(t, word) >> 4 * k & 15);
}

int
main(int argc, char *argv[])
{
	struct st st;
	struct json_doc doc;
	struct buf o = { 0 };
	struct st_wtensor *w;
	float **data;
	char path[4096];
	size_t i, n = 0, j;
	long long gsize;
	FILE *f;

	argv0 = argv[0];
	if (argc != 3)
		edie(2, "usage: %s src dst", argv0);
	snprintf(path, sizeof(path), "%s/config.json", argv[1]);
	if (json_load(&doc, path) < 0)
		exit(1);
	{	/* the first config group's group_size */
		const struct json *cg = json_get(json_get(doc.root,
		    "quantization_config"), "config_groups");

		if (!cg || cg->type != JSON_OBJECT || !cg->len ||
		    json_int(json_get(json_get(&cg->u.members[0].value,
		    "weights"), "group_size"), 1, 1 << 20, &gsize) < 0)
			gsize = 0;
	}
	if (st_open(&st, argv[1]) < 0)
		exit(1);
	w = ecalloc(st.n, sizeof(*w));
	data = ecalloc(st.n, sizeof(*data));
	for (i = 0; i < st.n; i++) {
		const struct st_tensor *t = &st.t[i], *ts, *tz, *tsh;
		size_t len = strlen(t->name);
		char base[300];
		long rows, cols, ng, g, r, c;

		if (len > 14 && !strcmp(t->name + len - 14, ".weight_packed")) {
			snprintf(base, sizeof(base), "%.*s", (int)len - 14, t->name);
			ts = need(&st, base, "weight_scale");
			tsh = need(&st, base, "weight_shape");
			snprintf(path, sizeof(path), "%s.weight_zero_point", base);
			tz = st_find(&st, path);
			rows = (long)st_elem(tsh, 0), cols = (long)st_elem(tsh, 1);
			ng = (long)ts->shape[1];
			g = ng == 1 ? cols : gsize;
			data[n] = ecalloc((size_t)rows * cols, sizeof(float));
			for (r = 0; r < rows; r++)
				for (c = 0; c < cols; c++) {
					int q = (int)nib(t, (size_t)r * t->shape[1] + c / 8, c % 8) - 8;
					int z = tz ? (int)nib(tz, (size_t)(r / 8) * ng + c / g, r % 8) - 8 : 0;
					float s = (float)st_elem(ts, (size_t)r * ng + c / g);

					data[n][(size_t)r * cols + c] = (float)(q - z) * s;
				}
			snprintf(path, sizeof(path), "%s.weight", base);
			w[n].name = estrdup(path);
			w[n].ndim = 2;
			w[n].shape[0] = rows, w[n].shape[1] = cols;
		} else if (strstr(t->name, ".weight_")) {
			continue;	/* the scale, zero point and shape */
		} else {
			data[n] = ecalloc(t->nel, sizeof(float));
			for (j = 0; j < t->nel; j++)
				data[n][j] = (float)st_elem(t, j);
			w[n].name = estrdup(t->name);
			w[n].ndim = t->ndim;
			memcpy(w[n].shape, t->shape, sizeof(w[n].shape));
		}
		w[n++].dtype = ST_F32;
	}
	if (mkdir(argv[2], 0777) < 0 && errno != EEXIST)
		die("%s:", argv[2]);
	snprintf(path, sizeof(path), "%s/model.safetensors", argv[2]);
	if (!(f = fopen(path, "wb")))
		die("%s:", path);
	if (st_write_header(f, path, w, n, NULL, 0) < 0)
		exit(1);
	for (i = 0; i < n; i++)
		if (st_write_data(f, path, &w[i], data[i]) < 0)
			exit(1);
	if (fshut(f, path))
		exit(1);
	buf_addc(&o, '{');
	for (i = 0, j = 0; i < doc.root->len; i++) {
		const struct json_member *m = &doc.root->u.members[i];

		if (!strcmp(m->key, "quantization_config"))
			continue;
		if (j++)
			buf_adds(&o, ", ");
		json_put_str(&o, m->key, m->keylen);
		buf_adds(&o, ": ");
		json_put(&o, &m->value);
	}
	buf_adds(&o, "}\n");
	snprintf(path, sizeof(path), "%s/config.json", argv[2]);
	if (buf_ok(&o) < 0 || !(f = fopen(path, "w")))
		die("%s:", path);
	fwrite(o.s, 1, o.len, f);
	if (fshut(f, path))
		exit(1);
	for (i = 0; i < n; i++) {
		free((char *)w[i].name);
		free(data[i]);
	}
	free(w);
	free(data);
	buf_free(&o);
	json_free(&doc);
	st_close(&st);
	return 0;
}
