/* npy.h: float32 arrays written as NumPy files: one as a .npy (format
 * version 1.0, little-endian '<f4', C order), several as an .npz (a zip
 * of NAME.npy members, stored uncompressed, as numpy.savez writes
 * them; numpy.load reads both).  The bytes do not depend on the host. */
#ifndef NPY_H
#define NPY_H

#include <stddef.h>
#include <stdio.h>

#define NPY_MAXDIM 4

struct npy_arr {
	const char *name;	/* the .npz member's name, without .npy */
	const float *v;		/* shape[0] * ... * shape[ndim-1] values */
	int ndim;
	size_t shape[NPY_MAXDIM];
};

/* The values a's shape holds. */
size_t npy_count(const struct npy_arr *a);
/* Write a as a .npy file to f (named fname in messages).  0, or -1
 * after error(). */
int npy_write(FILE *f, const char *fname, const struct npy_arr *a);
/* Write a[0..n) as an .npz to f: each a member NAME.npy.  Refused (an
 * error()) past the 4 GiB and 65535 members of a zip without zip64.
 * 0, or -1 after error(). */
int npz_write(FILE *f, const char *fname, const struct npy_arr *a, size_t n);

#endif
