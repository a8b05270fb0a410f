/* prepared.h: the check of a table's kern.xprep and kern.matmulx
 * (kern.h), shared by test_kern.c (the float types) and test_i8.c (the
 * blocks of 32): included after test.h. */
#ifndef PREPARED_H
#define PREPARED_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/kern/kern.h"

/* kern.xprep's activations, prepared in three token ranges apart as
 * threads would, then kern.matmulx over odd row splits: matmul's bits
 * (out; a NaN for a NaN), nothing written past the buffer's bound or
 * the rows. */
static void
prepared(const char *name, enum wtype t, const float *out, int ldo,
    const void *w, const float *x, int ldx, int n, int T, int rows)
{
	size_t xb = KERN_XPBYTES(n, T), k;
	unsigned char *xp;
	float *o2;
	int r0, r1, s, bad;

	if (!kern.xprep[t])
		return;
	CHECKF(kern.matmulx[t] != NULL, "%s: xprep without matmulx", name);
	if (!kern.matmulx[t] || posix_memalign((void **)&xp, 64, xb + 64))
		return;
	memset(xp, 0x5a, xb + 64);
	kern.xprep[t](xp, x, ldx, n, T, T / 3, 2 * T / 3);
	kern.xprep[t](xp, x, ldx, n, T, 2 * T / 3, T);
	kern.xprep[t](xp, x, ldx, n, T, 0, T / 3);
	for (k = xb; k < xb + 64; k++)
		CHECKF(xp[k] == 0x5a, "%s n=%d T=%d: xprep wrote byte %zu past "
		    "KERN_XPBYTES", name, n, T, k - xb);
	o2 = emalloc(sizeof(float) * (size_t)ldo * T);
	for (k = 0; k < (size_t)ldo * T; k++)
		o2[k] = -7.0f;
	for (r0 = 0, s = 1; r0 < rows; r0 = r1, s += 2) {
		r1 = r0 + s < rows ? r0 + s : rows;
		kern.matmulx[t](o2, ldo, w, xp, x, ldx, n, T, r0, r1);
	}
	for (k = 0, bad = 0; k < (size_t)ldo * T; k++)
		bad += memcmp(out + k, o2 + k, sizeof *o2) &&
		    !(isnan(out[k]) && isnan(o2[k]));
	CHECKF(!bad, "%s n=%d rows=%d T=%d: %d outputs of matmulx differ "
	    "from matmul's", name, n, rows, T, bad);
	free(o2);
	free(xp);
}

#endif
