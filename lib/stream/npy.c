/* npy.c: .npy and .npz writers (npy.h), after NumPy's format.py
 * (header: magic, version 1.0, a little-endian u16 length, a Python
 * dict literal padded with spaces to a multiple of 64 bytes ending in
 * a newline) and PKWARE's APPNOTE (local headers, a central directory
 * and its end record; method 0, stored). */
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "base/util.h"
#include "stream/npy.h"

size_t
npy_count(const struct npy_arr *a)
{
	size_t n = 1;
	int i;

	for (i = 0; i < a->ndim; i++)
		n *= a->shape[i];
	return n;
}

/* a's .npy header into h (at most 256 bytes): its length. */
static size_t
header(char h[256], const struct npy_arr *a)
{
	char dict[200];
	size_t n, len;
	int i;

	n = (size_t)snprintf(dict, sizeof(dict),
	    "{'descr': '<f4', 'fortran_order': False, 'shape': (");
	for (i = 0; i < a->ndim; i++)
		n += (size_t)snprintf(dict + n, sizeof(dict) - n, "%zu,%s",
		    a->shape[i], i + 1 < a->ndim ? " " : "");
	n += (size_t)snprintf(dict + n, sizeof(dict) - n, "), }");
	len = (10 + n + 1 + 63) / 64 * 64;	/* magic..dict..\n */
	memcpy(h, "\x93NUMPY\x01\x00", 8);
	h[8] = (char)((len - 10) & 0xff);
	h[9] = (char)((len - 10) >> 8);
	memcpy(h + 10, dict, n);
	memset(h + 10 + n, ' ', len - 10 - n - 1);
	h[len - 1] = '\n';
	return len;
}

static uint32_t crctab[256];

static uint32_t
crc32(uint32_t c, const unsigned char *p, size_t n)
{
	size_t i;
	int k;

	if (!crctab[1])
		for (i = 0; i < 256; i++) {
			uint32_t r = (uint32_t)i;

			for (k = 0; k < 8; k++)
				r = r & 1 ? 0xedb88320u ^ (r >> 1) : r >> 1;
			crctab[i] = r;
		}
	c = ~c;
	for (i = 0; i < n; i++)
		c = crctab[(c ^ p[i]) & 0xff] ^ (c >> 8);
	return ~c;
}

/* The values of a as little-endian bytes, a block at a time, to f
 * (NULL: none) and into *crc (NULL: none).  0, or -1 after error(). */
static int
values(FILE *f, const char *fname, const struct npy_arr *a, uint32_t *crc)
{
	unsigned char b[4096];
	size_t n = npy_count(a), i, k;
	uint32_t u;

	for (i = 0; i < n; i += k) {
		for (k = 0; k < sizeof(b) / 4 && i + k < n; k++) {
			memcpy(&u, a->v + i + k, 4);
			b[4 * k] = (unsigned char)u;
			b[4 * k + 1] = (unsigned char)(u >> 8);
			b[4 * k + 2] = (unsigned char)(u >> 16);
			b[4 * k + 3] = (unsigned char)(u >> 24);
		}
		if (crc)
			*crc = crc32(*crc, b, 4 * k);
		if (f && fwrite(b, 4, k, f) != k)
			return error("write %s:", fname);
	}
	return 0;
}

int
npy_write(FILE *f, const char *fname, const struct npy_arr *a)
{
	char h[256];
	size_t n = header(h, a);

	if (fwrite(h, 1, n, f) != n)
		return error("write %s:", fname);
	return values(f, fname, a, NULL);
}

static void
le(unsigned char *p, uint32_t v, int n)
{
	int i;

	for (i = 0; i < n; i++)
		p[i] = (unsigned char)(v >> 8 * i);
}

/* A zip header: sig, then the fields of a local (central: 0) header. */
static size_t
zhdr(unsigned char *p, int central, uint32_t crc, uint32_t size,
    size_t namelen, uint32_t off)
{
	unsigned char *q = p;

	le(q, central ? 0x02014b50 : 0x04034b50, 4), q += 4;
	if (central)
		le(q, 20, 2), q += 2;	/* made by */
	le(q, 20, 2), q += 2;		/* version needed */
	le(q, 0, 2), q += 2;		/* flags */
	le(q, 0, 2), q += 2;		/* stored */
	le(q, 0, 2), q += 2;		/* time */
	le(q, 0x21, 2), q += 2;		/* date: 1980-01-01 */
	le(q, crc, 4), q += 4;
	le(q, size, 4), q += 4;
	le(q, size, 4), q += 4;
	le(q, (uint32_t)namelen, 2), q += 2;
	le(q, 0, 2), q += 2;		/* extra */
	if (central) {
		memset(q, 0, 6), q += 6;	/* comment, disk, internal attributes */
		le(q, 0, 4), q += 4;	/* external attributes */
		le(q, off, 4), q += 4;
	}
	return (size_t)(q - p);
}

int
npz_write(FILE *f, const char *fname, const struct npy_arr *a, size_t n)
{
	unsigned char z[64];
	char h[256], name[300];
	uint32_t *crc, *size, *off;
	size_t i, hl, nl, at = 0, cd;
	int r = -1;

	if (n > 65535)
		return error("%s: %zu arrays: more than an .npz without zip64 "
		    "holds", fname, n);
	crc = xcalloc(n ? n : 1, 3 * sizeof(uint32_t));
	if (!crc)
		return error("out of memory");
	size = crc + n, off = crc + 2 * n;
	for (i = 0; i < n; i++) {
		hl = header(h, &a[i]);
		nl = (size_t)snprintf(name, sizeof(name), "%s.npy", a[i].name);
		if (npy_count(&a[i]) > (UINT32_MAX - hl) / 4 ||
		    at > UINT32_MAX - hl - 4 * npy_count(&a[i]) - 30 - nl) {
			error("%s: %s: past the 4 GiB of an .npz without zip64",
			    fname, a[i].name);
			goto out;
		}
		size[i] = (uint32_t)(hl + 4 * npy_count(&a[i]));
		off[i] = (uint32_t)at;
		crc[i] = crc32(0, (unsigned char *)h, hl);
		values(NULL, fname, &a[i], &crc[i]);
		hl = zhdr(z, 0, crc[i], size[i], nl, 0);
		if (fwrite(z, 1, hl, f) != hl || fwrite(name, 1, nl, f) != nl ||
		    npy_write(f, fname, &a[i]) < 0) {
			error("write %s:", fname);
			goto out;
		}
		at += hl + nl + size[i];
	}
	for (i = 0, cd = at; i < n; i++) {
		nl = (size_t)snprintf(name, sizeof(name), "%s.npy", a[i].name);
		hl = zhdr(z, 1, crc[i], size[i], nl, off[i]);
		if (fwrite(z, 1, hl, f) != hl || fwrite(name, 1, nl, f) != nl) {
			error("write %s:", fname);
			goto out;
		}
		at += hl + nl;
	}
	le(z, 0x06054b50, 4);
	le(z + 4, 0, 4);		/* disks */
	le(z + 8, (uint32_t)n, 2);
	le(z + 10, (uint32_t)n, 2);
	le(z + 12, (uint32_t)(at - cd), 4);
	le(z + 16, (uint32_t)cd, 4);
	le(z + 20, 0, 2);		/* comment */
	if (fwrite(z, 1, 22, f) != 22) {
		error("write %s:", fname);
		goto out;
	}
	r = 0;
out:
	free(crc);
	return r;
}
