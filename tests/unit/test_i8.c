/* test_i8.c: --int8-act's kernels (W_Q8_0I, W_Q4I) of the table in use:
 * matvec equal to the portable table's bit for bit, matmul equal to
 * matvec for any row range, token count and stride, and both within the
 * quantization's bound of the float product (the activations to half a
 * step of their block's dx = max|x| / 127); the int8 activations are
 * conv_q8_0_quant's integers.  Run under every table (make test). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/kern/kern.h"
#include "../../lib/kern/quant.h"
#include "../../lib/base/util.h"
#include "test.h"
#include "prepared.h"

static uint64_t rs = 0x9e3779b97f4a7c15ull;

static float
rnd(void)
{
	rs ^= rs << 13, rs ^= rs >> 7, rs ^= rs << 17;
	return (float)((rs >> 40) / 16777216.0 * 2 - 1);
}

/* Activations: plain, one large value a block, a zero block, tiny. */
static void
xfill(float *x, int n, int t)
{
	int j;

	for (j = 0; j < n; j++) {
		x[j] = rnd() * 3;
		if (t % 4 == 1 && j % 32 == 7)
			x[j] = 250;
		if (t % 4 == 2 && j % 64 < 32)
			x[j] = 0;
		if (t % 4 == 3)
			x[j] *= 1e-30f;
	}
}

/* Whether o is ref within the activations' rounding: each |x - dx X|
 * is at most dx / 2 (e, the sum of |w| dx / 2) plus float sums (a). */
static int
within(float o, double ref, double e, double a)
{
	return fabs(o - ref) <= e * 1.0001 + a * 1e-5 + 1e-30;
}

/* The bound of a row wr (n dequantized weights) against x. */
static void
refsum(const float *wr, const float *x, int n, double *ref, double *e,
    double *a)
{
	double mx = 0;
	int j, k;

	*ref = *e = *a = 0;
	for (j = 0; j < n; j++) {
		if (j % 32 == 0)
			for (mx = 0, k = j; k < j + 32 && k < n; k++)
				mx = fmax(mx, fabs(x[k]));
		*ref += (double)wr[j] * x[j];
		*a += fabs((double)wr[j] * x[j]);
		*e += fabs((double)wr[j]) * (mx / 127) / 2;
	}
}

/* out (ldo apart per token) against a matvec of the table in use and of
 * the portable one, token by token; returns the mismatches. */
static int
same(enum wtype t, const float *out, int ldo, const void *w,
    const float *x, int ldx, int n, int T, int rows, int *port)
{
	float *mv = emalloc(sizeof(float) * (rows + 2));
	float *pv = emalloc(sizeof(float) * rows);
	int k, bad = 0;

	for (k = 0; k < T; k++) {
		mv[0] = mv[rows + 1] = -7.0f;
		kern.matvec[t](mv + 1, w, x + (size_t)k * ldx, n, 0, rows);
		if (mv[0] != -7.0f || mv[rows + 1] != -7.0f)
			bad += 1000;
		if (memcmp(mv + 1, out + (size_t)k * ldo, sizeof(float) * rows))
			bad++;
		kern_portable.matvec[t](pv, w, x + (size_t)k * ldx, n, 0, rows);
		if (memcmp(mv + 1, pv, sizeof(float) * rows))
			(*port)++;
	}
	free(mv);
	free(pv);
	return bad;
}

/* The AVX2 table's own matmul mm (vpmaddubsw) equal to the table's,
 * which takes AVX-VNNI's where the CPU has it. */
static void
plain(const char *name, kern_matmul_fn *mm, const float *out, int ldo,
    const void *w, const float *x, int ldx, int n, int T, int rows)
{
#if defined(__x86_64__)
	float *out2;

	if (!strcmp(kern.name, "portable"))
		return;
	out2 = emalloc(sizeof(float) * (size_t)ldo * T);
	memcpy(out2, out, sizeof(float) * (size_t)ldo * T);
	mm(out2, ldo, w, x, ldx, n, T, 0, rows);
	CHECKF(!memcmp(out, out2, sizeof(float) * (size_t)ldo * T),
	    "%s n=%d rows=%d T=%d: the AVX2 matmul differs", name, n, rows,
	    T);
	free(out2);
#else
	(void)name, (void)mm, (void)out, (void)ldo, (void)w, (void)x;
	(void)ldx, (void)n, (void)T, (void)rows;
#endif
}

/* matmul over every row split and a token split equal to one call. */
static void
splits(const char *name, enum wtype t, const float *out, int ldo,
    const void *w, const float *x, int ldx, int n, int T, int rows)
{
	float *out2 = emalloc(sizeof(float) * (size_t)ldo * T);
	int r0, r1, k;

	for (k = 0; k < ldo * T; k++)
		out2[k] = -7.0f;
	for (r0 = 0, k = 1; r0 < rows; r0 = r1, k += 2) {
		r1 = r0 + k < rows ? r0 + k : rows;
		kern.matmul[t](out2, ldo, w, x, ldx, n, T, r0, r1);
	}
	CHECKF(!memcmp(out, out2, sizeof(float) * (size_t)ldo * T),
	    "%s n=%d rows=%d T=%d: row split differs", name, n, rows, T);
	if (T > 4) {
		kern.matmul[t](out2, ldo, w, x, ldx, n, 4, 0, rows);
		kern.matmul[t](out2 + 4 * (size_t)ldo, ldo, w,
		    x + 4 * (size_t)ldx, ldx, n, T - 4, 0, rows);
		CHECKF(!memcmp(out, out2, sizeof(float) * (size_t)ldo * T),
		    "%s n=%d rows=%d T=%d: token split differs", name, n, rows,
		    T);
	}
	free(out2);
}

static void
test_q8i(int n, int rows, int T)
{
	int ldx = n + 3, ldo = rows + 5, r, k, i, bad, port = 0;
	size_t rb = conv_q8_0_rowsize(n), nb = CONV_Q8_0_NB(n);
	char *w = emalloc(rb * rows);
	float *x = emalloc(sizeof(float) * (size_t)ldx * T);
	float *wf = emalloc(sizeof(float) * n);
	float *out = emalloc(sizeof(float) * (size_t)ldo * T);
	double ref, e, a;

	for (r = 0; r < rows; r++) {
		for (i = 0; i < n; i++)
			wf[i] = rnd() * 0.2f * (1 + r % 3);
		conv_q8_0_quant(w + (size_t)r * rb, wf, n);
	}
	for (k = 0; k < T; k++)
		xfill(x + (size_t)k * ldx, ldx, k);
	for (i = 0; i < ldo * T; i++)
		out[i] = -7.0f;
	kern.matmul[W_Q8_0I](out, ldo, w, x, ldx, n, T, 0, rows);
	bad = same(W_Q8_0I, out, ldo, w, x, ldx, n, T, rows, &port);
	CHECKF(!bad, "q8_0+int8 n=%d rows=%d T=%d: matmul differs from matvec "
	    "(%d)", n, rows, T, bad);
	CHECKF(!port, "q8_0+int8 n=%d rows=%d T=%d: differs from the portable "
	    "table (%d tokens)", n, rows, T, port);
	for (k = 0; k < T; k++)
		for (r = rows; r < ldo; r++)
			CHECKF(out[(size_t)k * ldo + r] == -7.0f,
			    "q8_0+int8 n=%d: matmul wrote row %d", n, r);
	for (r = 0; r < rows; r++) {
		const float *wd = (const float *)(w + (size_t)r * rb);
		const int8_t *wq = (const int8_t *)(wd + nb);

		for (i = 0; i < n; i++)
			wf[i] = wd[i / 32] * wq[i];
		for (k = 0; k < T; k++) {
			refsum(wf, x + (size_t)k * ldx, n, &ref, &e, &a);
			CHECKF(within(out[(size_t)k * ldo + r], ref, e, a),
			    "q8_0+int8 n=%d: row %d token %d: %.9g, want %.9g "
			    "within %.3g", n, r, k, out[(size_t)k * ldo + r],
			    ref, e);
		}
	}
	splits("q8_0+int8", W_Q8_0I, out, ldo, w, x, ldx, n, T, rows);
	plain("q8_0+int8", kern_i8_avx2_matmul, out, ldo, w, x, ldx, n, T,
	    rows);
	/* a token with a non-finite activation: non-finite outputs */
	x[3] = INFINITY;
	kern.matvec[W_Q8_0I](out, w, x, n, 0, rows);
	for (r = 0; r < rows; r++)
		CHECKF(!isfinite(out[r]), "q8_0+int8 n=%d: inf gave %g", n,
		    out[r]);
	free(w);
	free(x);
	free(wf);
	free(out);
}

/* The activations' integers: conv_q8_0_quant's, one digit, dx as ef. */
static void
test_prep8(void)
{
	struct kern_q4x xc[3];
	int n = 300, j, X, sx;
	float x[300], q[CONV_Q8_0_NB(300) * 9];
	const int8_t *q8 = (const int8_t *)(q + CONV_Q8_0_NB(300));

	xfill(x, n, 1);
	conv_q8_0_quant(q, x, n);
	CHECK(kern_q4_prep8(xc, x, n) == 0);
	for (j = 0; j < 384; j++) {
		X = xc[j / 128].d[0][j % 2][j % 128 / 2];
		EQ(X, j < n ? q8[j] : 0);
		EQ(xc[j / 128].d[1][j % 2][j % 128 / 2], 0);
		EQ(xc[j / 128].d[2][j % 2][j % 128 / 2], 0);
		if (j % 8 == 0 && j < n) {
			CHECK(xc[j / 128].ef[j % 128 / 8] == q[j / 32]);
			for (sx = 0, X = j; X < j + 8 && X < n; X++)
				sx += q8[X];
			EQ(xc[j / 128].nsx[j % 128 / 8], -sx);
		}
	}
	x[77] = NAN;
	CHECK(kern_q4_prep8(xc, x, n) < 0);
}

#if defined(__x86_64__)
/* prep against kern_q4_prep8 (test_prep8_simd). */
static void
test_prep8_with(int (*prep)(struct kern_q4x *, const float *, int),
    const char *name)
{
	static struct kern_q4x a[4], b[4];
	float x[400];
	int n, t, j, ra, rb;

	for (t = 0; t < 7; t++)
		for (n = 1; n <= 400; n++) {
			xfill(x, n, t);
			if (t == 4)
				x[n - 1] = n % 2 ? NAN : -INFINITY;
			if (t == 5)
				x[n / 2] = n % 3 ? -0.0f : 0x1p-149f;
			if (t == 6)	/* 127 in each block: halves are ties */
				for (j = 0; j < n; j++)
					x[j] = j % 32 ? (float)(j % 255 - 127) / 4 : 63.5f;
			memset(a, 0x55, sizeof a), memset(b, 0xaa, sizeof b);
			ra = kern_q4_prep8(a, x, n);
			rb = prep(b, x, n);
			EQ(rb, ra);
			if (ra == 0)
				CHECKF(!memcmp(a, b, (size_t)KERN_Q4_NC(n) *
				    sizeof *a), "%s prep8: t %d, n %d", name, t, n);
		}
}
#endif

/* The AVX2 and AVX-512 tables' conversions against the portable one,
 * byte for byte: every length up to three chunks, the edges xfill
 * makes, ties (x / dx at k + 1/2), a non-finite activation, -0 and
 * subnormals. */
static void
test_prep8_simd(void)
{
#if defined(__x86_64__)
	if (!strcmp(kern.name, "avx2") || !strcmp(kern.name, "avx512"))
		test_prep8_with(kern_q4_avx2_prep8, "avx2");
	if (kern.matvec[W_Q4I] == kern_q4i_avx512_matvec)	/* VNNI */
		test_prep8_with(kern_q4_avx512_prep8, "avx512");
#endif
}

/* A rows x n 4-bit matrix in groups of g (scales st, zero points if
 * asym), through quant_row; deq its dequantized rows. */
static void
test_q4i(int n, int rows, int T, int g, enum wtype st, int asym)
{
	int ldx = n + 1, ldo = rows + 3, r, k, i, bad, port = 0;
	struct kern_q4 m;
	float *wf = emalloc(sizeof(float) * n);
	float *deq = emalloc(sizeof(float) * (size_t)n * rows);
	float *x = emalloc(sizeof(float) * (size_t)ldx * T);
	float *out = emalloc(sizeof(float) * (size_t)ldo * T);
	uint32_t *q, *z;
	void *s;
	double ref, e, a;
	char name[64];

	snprintf(name, sizeof name, "q4+int8 g=%d st=%d%s", g, (int)st,
	    asym ? " asym" : "");
	m.group = g;
	m.ng = (n + g - 1) / g;
	m.wpr = (n + 7) / 8;
	m.st = st;
	q = ecalloc((size_t)rows * m.wpr, 4);
	s = ecalloc((size_t)rows * m.ng, 4);
	z = asym ? ecalloc((size_t)(rows + 7) / 8 * m.ng, 4) : NULL;
	for (r = 0; r < rows; r++) {
		for (i = 0; i < n; i++)
			wf[i] = rnd() * (1 + r % 3) + (asym ? 0.3f : 0);
		quant_row(q + (size_t)r * m.wpr, (char *)s + (size_t)r * m.ng *
		    (st == W_F32 ? 4 : 2), z ? z + (size_t)r / 8 * m.ng : NULL,
		    r, wf, n, g, st);
	}
	m.q = q, m.s = s, m.z = z;
	for (r = 0; r < rows; r++)
		kern_q4_row(deq + (size_t)r * n, &m, r, n);
	for (k = 0; k < T; k++)
		xfill(x + (size_t)k * ldx, ldx, k);
	if (T > 5)	/* a token of the float path among the others */
		x[(size_t)5 * ldx + n / 2] = INFINITY;
	for (i = 0; i < ldo * T; i++)
		out[i] = -7.0f;
	kern.matmul[W_Q4I](out, ldo, &m, x, ldx, n, T, 0, rows);
	bad = same(W_Q4I, out, ldo, &m, x, ldx, n, T, rows, &port);
	CHECKF(!bad, "%s n=%d rows=%d T=%d: matmul differs from matvec (%d)",
	    name, n, rows, T, bad);
	CHECKF(!port, "%s n=%d rows=%d T=%d: differs from the portable table "
	    "(%d tokens)", name, n, rows, T, port);
	for (r = 0; r < rows; r++)
		for (k = 0; k < T; k++) {
			if (k == 5)
				continue;
			refsum(deq + (size_t)r * n, x + (size_t)k * ldx, n, &ref,
			    &e, &a);
			CHECKF(within(out[(size_t)k * ldo + r], ref, e, a),
			    "%s n=%d: row %d token %d: %.9g, want %.9g within "
			    "%.3g", name, n, r, k, out[(size_t)k * ldo + r], ref,
			    e);
		}
	splits(name, W_Q4I, out, ldo, &m, x, ldx, n, T, rows);
	plain(name, kern_q4i_avx2_matmul, out, ldo, &m, x, ldx, n, T, rows);
	prepared(name, W_Q4I, out, ldo, &m, x, ldx, n, T, rows);
	free(q), free(s), free(z), free(wf), free(deq), free(x), free(out);
}


/* The bound of a row against x with activation blocks of bs. */
static void
refsumb(const float *wr, const float *x, int n, int bs, double *ref,
    double *e, double *a)
{
	double mx = 0;
	int j, k;

	*ref = *e = *a = 0;
	for (j = 0; j < n; j++) {
		if (j % bs == 0)
			for (mx = 0, k = j; k < j + bs && k < n; k++)
				mx = fmax(mx, fabs(x[k]));
		*ref += (double)wr[j] * x[j];
		*a += fabs((double)wr[j] * x[j]);
		*e += fabs((double)wr[j]) * (mx / 127) / 2;
	}
}

static float
h2f(const uint8_t *p)
{
	return conv_f16_to_f32((uint16_t)(p[0] | p[1] << 8));
}

/* kern.h's order for the blocks of 32 and Q6_K, from the dequantized
 * weights' integers (wf / scale), written out here apart from the
 * kernels: a kernel that sums in another order fails against it. */
static float
order(enum wtype t, const uint8_t *row, const float *wf, const float *x,
    int n)
{
	float xq[CONV_Q8_0_NB(1536) * 9], c = 0, d;
	const int8_t *X = (const int8_t *)(xq + CONV_Q8_0_NB(n));
	struct kern_q8k y[6];
	int32_t P, I, s;
	int b, i, j;

	if (t == W_Q6_KI) {
		kern_q8k_prep(y, x, n);
		for (b = 0; b < n / 256; b++, row += 210) {
			const int8_t *sc = (const int8_t *)(row + 192);

			d = h2f(row + 208);
			for (I = 0, j = 0; j < 16; j++) {
				for (s = 0, i = 0; i < 16; i++)
					s += (int32_t)lrintf(wf[256 * b + 16 *
					    j + i] / (d * (float)sc[j])) *
					    y[b].q[16 * j + i];
				I += sc[j] * s;
			}
			c = fmaf((float)I, d * y[b].d, c);
		}
		return c;
	}
	conv_q8_0_quant(xq, x, n);
	for (b = 0; b < n / 32; b++) {
		d = h2f(row + (size_t)b * wtypes[t].bytes);
		for (P = 0, i = 0; i < 32; i++)
			P += (int32_t)lrintf(wf[32 * b + i] / d) * X[32 * b + i];
		c = fmaf((float)P, d * xq[b], c);
	}
	return c;
}

/* --int8-act on ggml's type t (rows of n, whole blocks): the tables, row
 * ranges and token counts give the portable bits, within the bound of
 * the float product of the dequantized weights, in kern.h's order. */
static void
test_gi8(enum wtype t, int n, int rows, int T)
{
	enum wtype st = wtypes[t].store;
	int ldx = n + 3, ldo = rows + 5, r, k, i, bad, port = 0;
	int bs = wtypes[t].block == 256 ? 256 : 32;
	size_t rb = wtype_rowsize(t, n);
	char *w = emalloc(rb * rows), name[48];
	float *x = emalloc(sizeof(float) * (size_t)ldx * T);
	float *wf = emalloc(sizeof(float) * (size_t)n * rows);
	float *out = emalloc(sizeof(float) * (size_t)ldo * T);
	double ref, e, a;

	snprintf(name, sizeof name, "%s", wtypes[t].name);
	for (r = 0; r < rows; r++) {
		for (i = 0; i < n; i++)
			wf[i] = rnd() * 0.2f * (1 + r % 3) + (r % 4 == 1 ?
			    0.05f : 0);
		wtypes[t].from_f32(w + (size_t)r * rb, wf, n);
		/* a file's Q8_0 may hold -128, which no quantizer of ours
		 * writes (vpsignb cannot negate it): in every row, all of
		 * block 1 where there is one, and element r % 32 of block 0 */
		if (t == W_GQ8_0I) {
			w[(size_t)r * rb + 2 + r % 32] = (char)0x80;
			if (n >= 64)
				memset(w + (size_t)r * rb + 34 + 2, 0x80, 32);
		}
	}
	for (r = 0; r < rows; r++)
		kern_portable.to_f32[st](wf + (size_t)r * n, w + (size_t)r * rb,
		    (size_t)n);
	for (k = 0; k < T; k++)
		xfill(x + (size_t)k * ldx, ldx, k);
	for (i = 0; i < ldo * T; i++)
		out[i] = -7.0f;
	kern.matmul[t](out, ldo, w, x, ldx, n, T, 0, rows);
	bad = same(t, out, ldo, w, x, ldx, n, T, rows, &port);
	CHECKF(!bad, "%s n=%d rows=%d T=%d: matmul differs from matvec (%d)",
	    name, n, rows, T, bad);
	CHECKF(!port, "%s n=%d rows=%d T=%d: differs from the portable table "
	    "(%d tokens)", name, n, rows, T, port);
	for (k = 0; k < T; k++)
		for (r = rows; r < ldo; r++)
			CHECKF(out[(size_t)k * ldo + r] == -7.0f,
			    "%s n=%d: matmul wrote row %d", name, n, r);
	for (r = 0; r < rows; r++)
		for (k = 0; k < T; k++) {
			refsumb(wf + (size_t)r * n, x + (size_t)k * ldx, n, bs,
			    &ref, &e, &a);
			CHECKF(within(out[(size_t)k * ldo + r], ref, e, a),
			    "%s n=%d: row %d token %d: %.9g, want %.9g within "
			    "%.3g", name, n, r, k, out[(size_t)k * ldo + r], ref,
			    e);
			if (t != W_Q4_KI && n <= 1536 && k % 4 != 3)
				CHECKF(out[(size_t)k * ldo + r] == order(t,
				    (const uint8_t *)w + (size_t)r * rb,
				    wf + (size_t)r * n, x + (size_t)k * ldx, n),
				    "%s n=%d: row %d token %d: not kern.h's "
				    "order", name, n, r, k);
		}
	splits(name, t, out, ldo, w, x, ldx, n, T, rows);
	prepared(name, t, out, ldo, w, x, ldx, n, T, rows);
#if defined(__x86_64__)
	/* the plain AVX2 entries too, where the table in use took AVX-VNNI's */
	if (strcmp(kern.name, "portable")) {
		static const struct {
			enum wtype t;
			kern_matvec_fn *mv;
			kern_matmul_fn *mm;
		} a[] = {
			{ W_GQ8_0I, kern_gq8_0i_avx2_matvec, kern_gq8_0i_avx2_matmul },
			{ W_Q4_0I, kern_q4_0i_avx2_matvec, kern_q4_0i_avx2_matmul },
			{ W_Q5_0I, kern_q5_0i_avx2_matvec, kern_q5_0i_avx2_matmul },
			{ W_Q4_KI, kern_q4_ki_avx2_matvec, kern_q4_ki_avx2_matmul },
			{ W_Q6_KI, kern_q6_ki_avx2_matvec, kern_q6_ki_avx2_matmul },
		};
		float *o2 = emalloc(sizeof(float) * (size_t)ldo * T);

		for (i = 0; i < (int)(sizeof a / sizeof *a); i++)
			if (a[i].t == t) {
				memcpy(o2, out, sizeof(float) * (size_t)ldo * T);
				a[i].mm(o2, ldo, w, x, ldx, n, T, 0, rows);
				CHECKF(!memcmp(o2, out, sizeof(float) *
				    (size_t)ldo * T), "%s n=%d T=%d: the AVX2 "
				    "matmul differs", name, n, T);
				a[i].mv(o2, w, x, n, 0, rows);
				CHECKF(!memcmp(o2, out, sizeof(float) * rows),
				    "%s n=%d: the AVX2 matvec differs", name, n);
			}
		free(o2);
	}
#endif
	x[3] = INFINITY;
	if (T > 1)	/* and a NaN in another token */
		x[ldx + 40 % n] = NAN;
	kern.matvec[t](out, w, x, n, 0, rows);
	for (r = 0; r < rows; r++)
		CHECKF(!isfinite(out[r]), "%s n=%d: inf gave %g", name, n,
		    out[r]);
	kern.matmul[t](out, ldo, w, x, ldx, n, T, 0, rows);
	prepared(name, t, out, ldo, w, x, ldx, n, T, rows);
	free(w), free(x), free(wf), free(out);
}

/* The blocks of 32 packed by 16 (kern.h's W_Q8X16, W_Q4X16): the table
 * in use and the portable one give the bits of the type packed, matvec
 * and matmul, any row range, prepared or not; packing in two ranges of
 * groups gives the bytes of one. */
static void
test_x16(enum wtype from, int n, int rows, int T)
{
	enum wtype to = from == W_Q4_0I ? W_Q4X16 : from == W_Q4_KI ?
	    W_Q4KX16 : from == W_Q6_KI ? W_Q6KX16 : W_Q8X16;
	int ldx = n + 3, ldo = rows + 5, r, k, i, bad, port = 0;
	int g = (rows + 15) / 16;
	size_t rb = wtype_rowsize(from, n), pb = kern_x16_bytes(to, rows, n);
	char *w = emalloc(rb * rows), *p = emalloc(pb), *p2 = emalloc(pb);
	char name[64];
	float *x = emalloc(sizeof(float) * (size_t)ldx * T);
	float *wf = emalloc(sizeof(float) * n);
	float *ref = emalloc(sizeof(float) * (size_t)ldo * T);
	float *out = emalloc(sizeof(float) * (size_t)ldo * T);

	snprintf(name, sizeof name, "%s from %s", wtypes[to].name,
	    wtypes[from].name);
	for (r = 0; r < rows; r++) {
		for (i = 0; i < n; i++)
			wf[i] = rnd() * 0.2f * (1 + r % 3) + (r % 4 == 1 ?
			    0.05f : 0);
		if (from == W_Q8_0I)
			conv_q8_0_quant(w + (size_t)r * rb, wf, n);
		else
			wtypes[from].from_f32(w + (size_t)r * rb, wf, n);
		if (from == W_GQ8_0I)	/* a file's -128 (test_gi8) */
			w[(size_t)r * rb + 2 + r % 32] = (char)0x80;
		/* every bit of the scales: Q4_K's 12 bytes of 6-bit
		 * fields, Q6_K's int8 ones, -128 included */
		for (k = 0; k < n / 256 && to == W_Q4KX16; k++)
			for (i = 4; i < 16; i++)
				w[(size_t)r * rb + 144 * k + i] =
				    (char)(rnd() * 256);
		for (k = 0; k < n / 256 && to == W_Q6KX16; k++)
			for (i = 192; i < 208; i++)
				w[(size_t)r * rb + 210 * k + i] = (char)(i ==
				    192 + r % 16 ? -128 : rnd() * 256);
	}
	for (k = 0; k < T; k++)
		xfill(x + (size_t)k * ldx, ldx, k);
	for (i = 0; i < ldo * T; i++)
		ref[i] = out[i] = -7.0f;
	kern_portable.matmul[from](ref, ldo, w, x, ldx, n, T, 0, rows);
	memset(p2, 0x5a, pb);
	kern_x16_pack(p, to, w, from, rows, n, 0, g);
	kern_x16_pack(p2, to, w, from, rows, n, g / 2, g);
	kern_x16_pack(p2, to, w, from, rows, n, 0, g / 2);
	CHECKF(!memcmp(p, p2, pb), "%s n=%d rows=%d: packed by parts differs",
	    name, n, rows);
	kern.matmul[to](out, ldo, p, x, ldx, n, T, 0, rows);
	CHECKF(!memcmp(out, ref, sizeof(float) * (size_t)ldo * T),
	    "%s n=%d rows=%d T=%d: not the bits of the type packed", name, n,
	    rows, T);
	if (to == W_Q4X16)	/* vpmaddubsw's, where the CPU has AVX-VNNI */
		plain(name, kern_q4x16_avx2_matmul, out, ldo, p, x, ldx, n, T,
		    rows);
	if (to == W_Q4KX16 || to == W_Q6KX16)
		plain(name, to == W_Q4KX16 ? kern_q4kx16_avx2_matmul :
		    kern_q6kx16_avx2_matmul, out, ldo, p, x, ldx, n, T, rows);
	bad = same(to, out, ldo, p, x, ldx, n, T, rows, &port);
	CHECKF(!bad, "%s n=%d rows=%d T=%d: matmul differs from matvec (%d)",
	    name, n, rows, T, bad);
	CHECKF(!port, "%s n=%d rows=%d T=%d: differs from the portable table "
	    "(%d tokens)", name, n, rows, T, port);
	splits(name, to, out, ldo, p, x, ldx, n, T, rows);
	prepared(name, to, out, ldo, p, x, ldx, n, T, rows);
	x[3] = INFINITY;
	if (T > 1)
		x[ldx + 40 % n] = NAN;
	kern_portable.matmul[from](ref, ldo, w, x, ldx, n, T, 0, rows);
	kern.matmul[to](out, ldo, p, x, ldx, n, T, 0, rows);
	for (i = 0, bad = 0; i < ldo * T; i++)
		bad += memcmp(out + i, ref + i, sizeof *out) &&
		    !(isnan(out[i]) && isnan(ref[i]));
	CHECKF(!bad, "%s n=%d T=%d: %d outputs differ on non-finite "
	    "activations", name, n, T, bad);
	free(w), free(p), free(p2), free(x), free(wf), free(ref), free(out);
}

/* W_Q4I packed as W_Q4X16 (kern_x16_packs): a rows x n 4-bit matrix in
 * groups of g through quant_row, with scale s0 put in row 1's first group
 * (one an F16 cannot hold: not packed, packs 0); F32 scales rounded
 * to F16's where it should pack.  Packed, its bytes are
 * those of the Q4_0 rows with its nibbles and scales (which dequantize
 * to its weights), and the kernels give those rows' bits; asymmetric,
 * it is not packed. */
static void
test_x16q4(int n, int rows, int T, int g, enum wtype st, float s0, int packs)
{
	int ldx = n + 1, ldo = rows + 3, nb = (n + 31) / 32, r, b, j, k, i;
	int sb = st == W_F32 ? 4 : 2;
	size_t rb = wtype_rowsize(W_Q4_0I, n), pb = kern_x16_bytes(W_Q4X16,
	    rows, n);
	struct kern_q4 m;
	float *wf = emalloc(sizeof(float) * (size_t)nb * 32);
	float *deq = emalloc(sizeof(float) * (size_t)nb * 32);
	float *x = emalloc(sizeof(float) * (size_t)ldx * T);
	float *ref = emalloc(sizeof(float) * (size_t)ldo * T);
	float *out = emalloc(sizeof(float) * (size_t)ldo * T);
	uint8_t *q0 = emalloc(rb * rows), *p = emalloc(pb), *p0 = emalloc(pb);
	uint32_t *q;
	char *s, name[64];

	snprintf(name, sizeof name, "q4+int8 packed n=%d g=%d st=%d", n, g,
	    (int)st);
	m.group = g, m.ng = (n + g - 1) / g, m.wpr = (n + 7) / 8, m.st = st;
	q = ecalloc((size_t)rows * m.wpr, 4);
	s = ecalloc((size_t)rows * m.ng, 4);
	m.q = q, m.s = s, m.z = NULL;
	for (r = 0; r < rows; r++) {
		for (i = 0; i < n; i++)
			wf[i] = rnd() * (1 + r % 3);
		quant_row(q + (size_t)r * m.wpr, s + (size_t)r * m.ng * sb, NULL,
		    r, wf, n, g, st);
		if (n % 8)	/* past the row in its last word: not weights */
			q[(size_t)r * m.wpr + m.wpr - 1] |= 0xf0000000u;
	}
	if (st == W_F32 && packs)	/* scales an F16 holds */
		for (i = 0; i < rows * m.ng; i++)
			((float *)s)[i] = conv_f16_to_f32(conv_f32_to_f16(
			    ((float *)s)[i]));
	if (s0 != 0 && rows > 1) {
		uint16_t h = st == W_F16 ? conv_f32_to_f16(s0) :
		    conv_f32_to_bf16(s0);

		if (st == W_F32)
			memcpy(s + (size_t)m.ng * sb, &s0, 4);
		else
			memcpy(s + (size_t)m.ng * sb, &h, 2);
	}
	CHECKF(kern_x16_packs(W_Q4I, &m, rows, n) == packs, "%s: packs %d, "
	    "want %d", name, !packs, packs);
	m.z = q;	/* any zero points: asymmetric */
	CHECKF(!kern_x16_packs(W_Q4I, &m, rows, n), "%s: asymmetric packs",
	    name);
	m.z = NULL;
	if (!packs)
		goto out;
	/* the Q4_0 rows (ggml-common.h: an F16 scale, then byte i weight i
	 * + 8 in its low nibble, weight 16 + i + 8 in its high) */
	for (r = 0; r < rows; r++) {
		kern_q4_row(deq, &m, r, n);
		for (b = 0; b < nb; b++) {
			uint8_t *o = q0 + (size_t)r * rb + 18 * (size_t)b;
			float d;
			uint16_t h;
			int nib[32];

			d = kern_q4_scale(&m, r, 32 * b / (m.ng > 1 ? g : n));
			h = conv_f32_to_f16(d);
			memcpy(o, &h, 2);
			for (j = 0; j < 32; j++) {
				i = 32 * b + j;
				nib[j] = i < n ? (int)(q[(size_t)r * m.wpr + i / 8] >>
				    4 * (i % 8) & 15) : 8;
				CHECKF(i >= n || (nib[j] - 8) * conv_f16_to_f32(h) ==
				    deq[i], "%s: row %d weight %d: %g, want %g", name,
				    r, i, (nib[j] - 8) * conv_f16_to_f32(h), deq[i]);
			}
			for (j = 0; j < 16; j++)
				o[2 + j] = (uint8_t)(nib[j] | nib[16 + j] << 4);
		}
	}
	kern_x16_pack(p0, W_Q4X16, q0, W_Q4_0I, rows, n, 0, (rows + 15) / 16);
	memset(p, 0x5a, pb);
	kern_x16_pack(p, W_Q4X16, &m, W_Q4I, rows, n, 0, (rows + 15) / 16);
	CHECKF(!memcmp(p, p0, pb), "%s: packed bytes differ from Q4_0's",
	    name);
	for (k = 0; k < T; k++)
		xfill(x + (size_t)k * ldx, ldx, k);
	for (i = 0; i < ldo * T; i++)
		ref[i] = out[i] = -7.0f;
	kern_portable.matmul[W_Q4_0I](ref, ldo, q0, x, ldx, n, T, 0, rows);
	kern.matmul[W_Q4X16](out, ldo, p, x, ldx, n, T, 0, rows);
	CHECKF(!memcmp(out, ref, sizeof(float) * (size_t)ldo * T),
	    "%s T=%d: not the bits of Q4_0", name, T);
	kern.matvec[W_Q4X16](out, p, x, n, 0, rows);
	CHECKF(!memcmp(out, ref, sizeof(float) * (size_t)rows),
	    "%s: matvec not the bits of Q4_0", name);
out:
	free(q), free(s), free(q0), free(p), free(p0), free(wf), free(deq);
	free(x), free(ref), free(out);
}

int
main(void)
{
	static const int ns[] = { 32, 64, 100, 576, 1536 };
	size_t i;

	argv0 = "test_i8";
	test_kern_init();
	for (i = 0; i < sizeof ns / sizeof *ns; i++) {
		test_q8i(ns[i], 13, 1);
		test_q8i(ns[i], 37, 9);
	}
	test_q8i(4096, 9, 5);
	/* a batch's decode rows: every T to 70 (the register blocks'
	 * remainders), and more tokens than the stack's buffer holds
	 * (kern_xroom's heap) */
	for (i = 1; i <= 70; i += i < 8 ? 1 : 7)
		test_q8i(96, 7, (int)i), test_q8i(576, 7, (int)i);
	test_q8i(4096, 9, 37);
	/* AVX-VNNI's unpacked panels (rows of 64s): several panels of
	 * 4 rows and a rest, an odd count of blocks a segment */
	test_q8i(1536, 43, 17);
	test_q8i(1088, 9, 5);
	test_q8i(CONV_Q8_0_MAXN, 5, 20);
	test_prep8();
	test_prep8_simd();
	for (i = 0; i < sizeof ns / sizeof *ns; i++) {
		test_q4i(ns[i], 13, 7, 32, W_BF16, 0);
		test_q4i(ns[i], 11, 3, 32, W_BF16, 1);
	}
	test_q4i(576, 17, 6, 128, W_BF16, 0);
	test_q4i(1024, 9, 5, 128, W_F16, 1);
	test_q4i(576, 9, 5, 64, W_F32, 0);
	test_q4i(200, 9, 5, 40, W_BF16, 1);
	test_q4i(300, 9, 5, 300, W_F16, 0);
	test_q4i(576, 21, 70, 32, W_BF16, 0);	/* TB and one over */
	test_q4i(576, 13, 9, 64, W_BF16, 1);
	test_q4i(216, 7, 8, 36, W_BF16, 0);	/* not whole words: floats */
	{
		static const enum wtype gt[] = { W_GQ8_0I, W_Q4_0I, W_Q5_0I,
		    W_Q4_KI, W_Q6_KI };
		static const int gn[] = { 256, 576, 1536 };
		size_t j;
		int T;

		for (i = 0; i < sizeof gt / sizeof *gt; i++)
			for (j = 0; j < sizeof gn / sizeof *gn; j++) {
				if (wtypes[gt[i]].block == 256 && gn[j] % 256)
					continue;
				test_gi8(gt[i], gn[j], 13, 1);
				test_gi8(gt[i], gn[j], 37, 9);
			}
		/* matmul == matvec whatever T */
		for (T = 1; T <= 70; T += T < 8 ? 1 : 9)
			test_gi8(W_Q4_KI, 512, 7, T), test_gi8(W_Q4_0I, 96, 7, T);
		test_gi8(W_Q6_KI, 4096, 5, 3);
		/* the longest rows: the superblocks' activations are the
		 * larger buffer */
		test_gi8(W_Q4_KI, KERN_GI8_MAXN, 3, 1);
		test_gi8(W_Q6_KI, KERN_GI8_MAXN, 3, 2);
		/* several row panels and chunks of tokens in one matmul */
		test_gi8(W_Q5_0I, 4096, 45, 20);
		test_gi8(W_GQ8_0I, KERN_GI8_MAXN, 9, 3);
		test_gi8(W_Q4_KI, 4096, 9, 17);
		test_gi8(W_Q4_KI, KERN_GI8_MAXN, 61, 2);
		test_gi8(W_Q6_KI, 4096, 45, 6);
		/* zmatmul's chunks (16 tokens of 16384), the last short,
		 * against matmulx's one */
		test_gi8(W_Q4_0I, KERN_GI8_MAXN, 5, 37);
		/* the AVX2 K types' panels over two chunks of 30 tokens
		 * (GXCAP), three panels a chunk, the last of one row, each
		 * prefetching the next */
		test_gi8(W_Q4_KI, 8192, 9, 60), test_gi8(W_Q6_KI, 8192, 9, 60);
		/* ygemm's segments of 32 blocks, the last of an odd count
		 * (45 blocks), rows and tokens past its 4 x 2 blocks */
		for (i = 0; i < 3; i++)
			test_gi8(gt[i], 1440, 15, 7);
		/* decode's rows of the 1B shape, 2048 and 8192 weights: the
		 * AVX2 gv32's groups of 8 blocks over 4 parts and a rest,
		 * the superblocks' k4_fma and paired scales */
		test_gi8(W_Q4_0I, 2048, 9, 1), test_gi8(W_Q5_0I, 8192, 6, 1);
		test_gi8(W_Q4_KI, 8192, 5, 1), test_gi8(W_Q6_KI, 2048, 7, 1);
		/* an odd count of blocks: the AVX-512 pairs' half pair */
		for (i = 0; i < 3; i++) {
			test_gi8(gt[i], 32, 9, 1), test_gi8(gt[i], 32, 9, 6);
			test_gi8(gt[i], 160, 11, 1), test_gi8(gt[i], 160, 11, 5);
		}
	}
	{
		static const enum wtype xt[] = { W_Q8_0I, W_GQ8_0I, W_Q4_0I };
		static const int xn[] = { 32, 160, 576, 1536 };
		size_t j;
		int T;

		for (i = 0; i < sizeof xt / sizeof *xt; i++) {
			for (j = 0; j < sizeof xn / sizeof *xn; j++) {
				test_x16(xt[i], xn[j], 13, 1);
				test_x16(xt[i], xn[j], 37, 9);
			}
			/* decode's parts and their rest; prefill's panels,
			 * chunks and every register block's remainder */
			test_x16(xt[i], 2048, 16 * 9 + 3, 1);
			for (T = 1; T <= 20; T++)
				test_x16(xt[i], 96, 35, T);
			test_x16(xt[i], 4096, 200, 20);
			test_x16(xt[i], KERN_GI8_MAXN, 21, 37);
		}
		test_x16(W_Q8_0I, 100, 17, 5);	/* a row's partial block */
		test_x16(W_Q8_0I, 80, 17, 5);	/* and conv.h's padding one */
		/* the superblocks: decode, prefill's register blocks and
		 * their rest, panels (P groups of 8192), chunks */
		for (i = 0; i < 2; i++) {
			enum wtype kt = i ? W_Q6_KI : W_Q4_KI;

			test_x16(kt, 256, 13, 1), test_x16(kt, 512, 37, 9);
			test_x16(kt, 2048, 16 * 9 + 3, 1);
			for (T = 1; T <= 5; T++)
				test_x16(kt, 768, 35, T);
			test_x16(kt, 8192, 40, 20);
			test_x16(kt, 512, 19, 10), test_x16(kt, 256, 35, 11);
			test_x16(kt, KERN_GI8_MAXN, 21, 37);
		}
		/* --quant q4's groups of 32, a checkpoint's of 64 and 128,
		 * one a row, a row's partial word and block; what F16
		 * cannot hold (under its normals, past its largest, an F32's
		 * mantissa) and groups across blocks stay unpacked */
		test_x16q4(576, 35, 9, 32, W_BF16, 0, 1);
		test_x16q4(1024, 17, 3, 128, W_BF16, 0, 1);
		test_x16q4(512, 16, 1, 64, W_F16, 0, 1);
		test_x16q4(100, 19, 4, 100, W_BF16, 0, 1);
		test_x16q4(100, 19, 4, 32, W_BF16, 0, 1);
		test_x16q4(300, 9, 2, 300, W_F16, 0, 1);
		test_x16q4(576, 9, 2, 32, W_BF16, 0x1.8p-20f, 1);
		test_x16q4(576, 9, 2, 32, W_BF16, 3.1e-7f, 0);
		test_x16q4(576, 9, 2, 32, W_BF16, 1e5f, 0);
		test_x16q4(576, 9, 2, 32, W_F32, 0.1f, 0);
		test_x16q4(576, 9, 2, 32, W_F32, 0.125f, 1);
		test_x16q4(576, 9, 2, 16, W_BF16, 0, 0);
		test_x16q4(576, 9, 2, 48, W_BF16, 0, 0);
		test_x16q4(CONV_Q8_0_MAXN + 32, 3, 1, 32, W_BF16, 0, 0);
	}
	return test_end("test_i8");
}
