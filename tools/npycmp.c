/* npycmp: compare two float32 .npy arrays of the same shape (tests only).
 *
 * usage: npycmp [-g] [-a abstol] [-r reltol] got.npy want.npy
 * Prints the largest absolute difference, the relative error
 * ||got - want|| / ||want|| per row (the worst row) and whether every row's
 * argmax agrees; exit 0 if all are within the tolerances and (unless -g)
 * every argmax agrees, 1 if not. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../lib/base/util.h"

struct npy {
	float *v;
	long rows, cols;
};

static void
load(struct npy *a, const char *path)
{
	FILE *f = fopen(path, "rb");
	unsigned char pre[10];
	char hdr[4096], *s;
	size_t hlen, n;

	if (!f)
		die("open %s:", path);
	if (fread(pre, 1, 10, f) != 10 || memcmp(pre, "\x93NUMPY", 6))
		die("%s: not a .npy file", path);
	hlen = pre[8] | pre[9] << 8;
	if (pre[6] != 1 || hlen >= sizeof(hdr) || fread(hdr, 1, hlen, f) != hlen)
		die("%s: unsupported .npy header", path);
	hdr[hlen] = '\0';
	if (!strstr(hdr, "'<f4'") || strstr(hdr, "'fortran_order': True"))
		die("%s: not a C-order float32 array", path);
	if (!(s = strstr(hdr, "'shape': (")) || sscanf(s + 10, "%ld, %ld", &a->rows, &a->cols) != 2)
		die("%s: not a 2-D array", path);
	if (a->rows < 0 || a->cols <= 0 || a->rows > (1L << 24) || a->cols > (1L << 24))
		die("%s: bad shape", path);
	n = (size_t)a->rows * a->cols;
	a->v = emalloc(n * sizeof(float));
	if (fread(a->v, sizeof(float), n, f) != n)
		die("%s: truncated data", path);
	fclose(f);
}

static long
argmax(const float *v, long n)
{
	long i, best = 0;

	for (i = 1; i < n; i++)
		if (v[i] > v[best])
			best = i;
	return best;
}

int
main(int argc, char *argv[])
{
	double abstol = 1e-4, reltol = 1e-5, maxabs = 0, maxrel = 0;
	struct npy a, b;
	long r, i, badarg = 0;
	int c, gflag = 0;

	argv0 = argv[0];
	while ((c = getopt(argc, argv, "a:gr:")) != -1) {
		switch (c) {
		case 'g': gflag = 1; break;
		case 'a': abstol = estrtod(optarg, 0, 1e9, "abstol"); break;
		case 'r': reltol = estrtod(optarg, 0, 1e9, "reltol"); break;
		default:
			fprintf(stderr, "usage: %s [-g] [-a abstol] [-r reltol] got.npy want.npy\n", argv0);
			return 2;
		}
	}
	if (argc - optind != 2) {
		fprintf(stderr, "usage: %s [-g] [-a abstol] [-r reltol] got.npy want.npy\n", argv0);
		return 2;
	}
	load(&a, argv[optind]);
	load(&b, argv[optind + 1]);
	if (a.rows != b.rows || a.cols != b.cols)
		die("shapes differ: (%ld, %ld) and (%ld, %ld)", a.rows, a.cols, b.rows, b.cols);
	for (r = 0; r < a.rows; r++) {
		const float *x = a.v + r * a.cols, *y = b.v + r * b.cols;
		double num = 0, den = 0;

		for (i = 0; i < a.cols; i++) {
			double d = (double)x[i] - y[i];

			if (!(fabs(d) <= maxabs))
				maxabs = isnan(d) ? INFINITY : fabs(d);
			num += d * d;
			den += (double)y[i] * y[i];
		}
		if (sqrt(num / (den > 0 ? den : 1)) > maxrel)
			maxrel = sqrt(num / (den > 0 ? den : 1));
		if (argmax(x, a.cols) != argmax(y, b.cols))
			badarg++;
	}
	printf("rows %ld cols %ld maxabs %.3g maxrel %.3g argmax-mismatch %ld\n",
	    a.rows, a.cols, maxabs, maxrel, badarg);
	free(a.v);
	free(b.v);
	return maxabs <= abstol && maxrel <= reltol && (gflag || !badarg) ? 0 :
	    1;
}
