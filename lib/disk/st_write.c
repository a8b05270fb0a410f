/* st_write.c: safetensors writer (the layout st.c reads). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "disk/st.h"
#include "base/util.h"

int
st_wtensor_size(const struct st_wtensor *t, size_t *nbytes)
{
	size_t n = 1;
	int i;

	if ((unsigned)t->dtype >= ST_NDTYPE || t->ndim < 0 ||
	    t->ndim > ST_MAXDIM)
		return -1;
	for (i = 0; i < t->ndim; i++)
		if (t->shape[i] < 0 || (uint64_t)t->shape[i] > SIZE_MAX ||
		    size_mul(&n, n, (size_t)t->shape[i]) < 0)
			return -1;
	return size_mul(nbytes, n, st_dtype_size(t->dtype));
}

int
st_write_header(FILE *f, const char *name, const struct st_wtensor *t,
    size_t n, const struct st_meta *meta, size_t nmeta)
{
	struct buf b = { 0 };
	unsigned char len8[8];
	char num[64];
	size_t i, off = 0, nbytes, hlen;
	int k, ret = -1;

	buf_adds(&b, "{");
	if (nmeta) {
		buf_adds(&b, "\"__metadata__\":{");
		for (i = 0; i < nmeta; i++) {
			if (i)
				buf_adds(&b, ",");
			json_put_str(&b, meta[i].key, strlen(meta[i].key));
			buf_adds(&b, ":");
			json_put_str(&b, meta[i].value, strlen(meta[i].value));
		}
		buf_adds(&b, "}");
	}
	for (i = 0; i < n; i++) {
		if (st_wtensor_size(&t[i], &nbytes) < 0 ||
		    off + nbytes < off) {
			error("%s: tensor %s: bad shape or size too large",
			    name, t[i].name);
			goto out;
		}
		if (i || nmeta)
			buf_adds(&b, ",");
		json_put_str(&b, t[i].name, strlen(t[i].name));
		buf_adds(&b, ":{\"dtype\":\"");
		buf_adds(&b, st_dtype_name(t[i].dtype));
		buf_adds(&b, "\",\"shape\":[");
		for (k = 0; k < t[i].ndim; k++) {
			snprintf(num, sizeof(num), "%s%lld", k ? "," : "",
			    (long long)t[i].shape[k]);
			buf_adds(&b, num);
		}
		snprintf(num, sizeof(num), "],\"data_offsets\":[%zu,%zu]}",
		    off, off + nbytes);
		buf_adds(&b, num);
		off += nbytes;
	}
	buf_adds(&b, "}");
	while (!b.err && b.len % 8)
		buf_addc(&b, ' ');
	if (buf_ok(&b) < 0)
		goto out;
	hlen = b.len;
	for (k = 0; k < 8; k++)
		len8[k] = (unsigned char)((uint64_t)hlen >> (8 * k));
	if (fwrite(len8, 1, 8, f) != 8 || fwrite(b.s, 1, b.len, f) != b.len) {
		error("%s: write:", name);
		goto out;
	}
	ret = 0;
out:
	buf_free(&b);
	return ret;
}

int
st_write_data(FILE *f, const char *name, const struct st_wtensor *t,
    const void *data)
{
	size_t nbytes;

	if (st_wtensor_size(t, &nbytes) < 0)
		return error("%s: tensor %s: bad shape", name, t->name);
	if (fwrite(data, 1, nbytes, f) != nbytes)
		return error("%s: write:", name);
	return 0;
}
