/* test_q4.c: the W_Q4 kernels of the table in use: decode's integer
 * path against the portable table's bits and a double sum, prefill
 * against the same table's F32 kernels on the dequantized matrix, the
 * same for any row range and token count; the activations' integers;
 * the quantizer's rounding, range and packing (lib/kern/quant.h). */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/kern/kern.h"
#include "../../lib/kern/quant.h"
#include "../../lib/base/util.h"
#include "test.h"

static uint64_t rs = 0x2545f4914f6cdd1dull;

static float
rnd(void)
{
	rs ^= rs << 13, rs ^= rs >> 7, rs ^= rs << 17;
	return (float)((rs >> 40) / 16777216.0 * 2 - 1);
}

/* A rows x cols 4-bit matrix from random floats: groups of g (0: one per
 * row), scale type st, asymmetric if asym; its dequantized copy in deq. */
struct qm {
	struct kern_q4 k;
	uint32_t *q, *z;
	void *s;
	float *deq;
};

static void
make(struct qm *m, int rows, int cols, int g, enum wtype st, int asym)
{
	float *x = emalloc((size_t)cols * sizeof(float));
	int r;

	g = g ? g : cols;
	m->k.group = g;
	m->k.ng = (cols + g - 1) / g;
	m->k.wpr = (cols + 7) / 8;
	m->k.st = st;
	m->q = ecalloc((size_t)rows * m->k.wpr, 4);
	m->s = ecalloc((size_t)rows * m->k.ng, 4);
	m->z = asym ? ecalloc((size_t)(rows + 7) / 8 * m->k.ng, 4) : NULL;
	m->deq = emalloc((size_t)rows * cols * sizeof(float));
	for (r = 0; r < rows; r++) {
		int j;

		for (j = 0; j < cols; j++)
			x[j] = rnd() * (1 + r % 3) + (asym ? 0.3f : 0);
		quant_row(m->q + (size_t)r * m->k.wpr, (char *)m->s +
		    (size_t)r * m->k.ng * (st == W_F32 ? 4 : 2),
		    m->z ? m->z + (size_t)r / 8 * m->k.ng : NULL, r, x, cols, g,
		    st);
	}
	m->k.q = m->q;
	m->k.s = m->s;
	m->k.z = m->z;
	for (r = 0; r < rows; r++)
		kern_q4_row(m->deq + (size_t)r * cols, &m->k, r, cols);
	free(x);
}

static void
unmake(struct qm *m)
{
	free(m->q), free(m->s), free(m->z), free(m->deq);
}

/* The dequantized weights, read back independently of kern_q4_row. */
static void
test_layout(void)
{
	struct qm m;
	int rows = 19, cols = 77, r, j, g;

	make(&m, rows, cols, 16, W_BF16, 1);
	for (r = 0; r < rows; r++)
		for (j = 0; j < cols; j++) {
			int q = (int)(m.q[(size_t)r * m.k.wpr + j / 8] >> 4 * (j % 8) & 15);
			int z;
			float s;

			g = j / 16;
			z = (int)(m.z[(size_t)(r / 8) * m.k.ng + g] >> 4 * (r % 8) & 15);
			s = conv_bf16_to_f32(((uint16_t *)m.s)[(size_t)r * m.k.ng + g]);
			CHECKF(m.deq[(size_t)r * cols + j] == (float)(q - z) * s,
			    "(%d, %d)", r, j);
		}
	/* padding nibbles of the last word stay 0 */
	CHECK((m.q[m.k.wpr - 1] >> 4 * (cols % 8)) == 0);
	unmake(&m);
}

static void
test_group(void)
{
	float x[32], s;
	uint32_t w[4];
	int i, z, q;

	for (i = 0; i < 32; i++)
		x[i] = (float)(i - 10) / 4;	/* -2.5 .. 5.25 */
	memset(w, 0, sizeof(w));
	s = quant_group(w, 0, &z, x, 32, 1, W_F32);
	CHECK(s == 5.25f / 7.5f);
	EQ(z, 8);
	for (i = 0; i < 32; i++) {
		q = (int)(w[i / 8] >> 4 * (i % 8) & 15) - 8;
		CHECKF(q == (int)fminf(7, nearbyintf(x[i] / s)), "%d: %d", i, q);
	}
	/* asymmetric: the range [min(x, 0), max(x, 0)] in 16 steps */
	memset(w, 0, sizeof(w));
	s = quant_group(w, 0, &z, x, 32, 0, W_F32);
	CHECK(s == 7.75f / 15);
	EQ(z, 8 + (int)nearbyintf(-8 + 2.5f / s));
	/* zeros: the least scale, all q = 0 (stored 8) */
	memset(x, 0, sizeof(x));
	memset(w, 0, sizeof(w));
	s = quant_group(w, 0, &z, x, 32, 1, W_BF16);
	CHECK(s == conv_bf16_to_f32(conv_f32_to_bf16(FLT_EPSILON)));
	for (i = 0; i < 4; i++)
		EQ(w[i], 0x88888888u);
}

/* Activations with what the integer path must handle: a block's
 * largest just below a power of two (k one less), a wide range within a
 * block, zeros, subnormals, huge values. */
static void
xfill(float *x, int n, int t)
{
	int j;

	for (j = 0; j < n; j++) {
		x[j] = rnd();
		if (t % 4 == 1 && j % 32 == 5)
			x[j] = 0.99999f;	/* mantissa above 0.99608 */
		if (t % 4 == 2)
			x[j] *= j % 7 == 0 ? 300.0f : 1e-3f;
		if (t % 4 == 3)
			x[j] = j % 64 < 32 ? 0 : j % 64 < 40 ? x[j] * 1e-40f :
			    x[j] * 1e30f;
	}
}

/* out[t][r] of a matmul or matvec against a double sum: float32's
 * rounding of the sum, and the activations to 2^-22 of their block's
 * largest (decode's integer path) */
static void
bound(const char *what, size_t i, const float *o, const struct qm *m,
    const float *x, int rows, int n, int T)
{
	int t, j, r;

	for (t = 0; t < T * rows; t++) {
		const float *xt = x + (size_t)(t / rows) * n;
		const float *wr = m->deq + (size_t)(t % rows) * n;
		double a = 0, e = 0, mx = 0, ref = 0;

		for (j = 0; j < n; j++) {
			if (j % 32 == 0)
				for (mx = 0, r = j; r < j + 32 && r < n; r++)
					mx = fmax(mx, fabs(xt[r]));
			ref += (double)wr[j] * xt[j];
			a += fabs((double)wr[j] * xt[j]);
			e += fabs((double)wr[j]) * mx;
		}
		if (!isfinite(ref))
			CHECKF(isnan(o[t]), "%s, case %zu: %d: %g, not NaN", what,
			    i, t, o[t]);
		else
			CHECKF(fabs(o[t] - ref) <= 1e-6 * a + 0x1p-22 * e + 1e-38,
			    "%s, case %zu: %d: %g vs %g", what, i, t, o[t], ref);
	}
}

static void
test_kernels(void)
{
	static const struct { int rows, cols, g, st, asym; } c[] = {
		{ 37, 64, 32, W_BF16, 0 }, { 16, 200, 32, W_F16, 1 },
		{ 9, 300, 0, W_F32, 0 }, { 40, 520, 64, W_BF16, 1 },
		{ 8, 8, 8, W_BF16, 0 }, { 13, 1029, 128, W_F16, 0 },
		{ 5, 1036, 32, W_BF16, 1 }, { 6, 48, 16, W_F32, 0 },
		{ 67, 576, 32, W_BF16, 0 }, { 50, 99, 32, W_F16, 1 },
		{ 33, 264, 32, W_F32, 1 }, { 24, 40, 32, W_BF16, 0 },
		{ 7, 300, 12, W_BF16, 1 },	/* groups not whole words */
		{ 11, 777, 0, W_BF16, 1 }, { 9, 1100, 256, W_F16, 0 },
		{ 19, 448, 96, W_BF16, 0 }, { 35, 2048, 128, W_BF16, 1 },
		{ 5, 16400, 32, W_BF16, 1 },	/* longer than KERN_Q4_MAXN */
		{ 3, 5, 0, W_BF16, 0 }, { 2, 136, 8, W_F16, 1 },
		{ 4, 1024, 32, W_F32, 0 }, { 9, 4160, 64, W_BF16, 1 },
		{ 12, 392, 32, W_F16, 0 }, { 1, 24, 8, W_BF16, 0 },
	};
	int vw = !strcmp(kern.name, "avx512") ? 16 : !strcmp(kern.name,
	    "avx2") ? 8 : 1;
	size_t i;

	for (i = 0; i < LEN(c); i++) {
		int rows = c[i].rows, n = c[i].cols, T = 9, t, r;
		size_t sz = (size_t)T * rows * sizeof(float);
		float *x = emalloc((size_t)T * n * sizeof(float));
		float *o = emalloc(sz), *o2 = emalloc(sz), *f = emalloc(sz);
		struct qm m;

		make(&m, rows, n, c[i].g, (enum wtype)c[i].st, c[i].asym);
		for (t = 0; t < T; t++)
			xfill(x + (size_t)t * n, n, t);
		x[(size_t)(T - 1) * n + n / 2] = NAN;	/* the float path */

		/* decode: the portable table's bits, for any row range */
		for (t = 0; t < T; t++)
			kern_portable.matvec[W_Q4](o + (size_t)t * rows, &m.k,
			    x + (size_t)t * n, n, 0, rows);
		bound("matvec", i, o, &m, x, rows, n, T);
		for (t = 0; t < T; t++)
			for (r = 0; r < rows; r += 3)
				kern.matvec[W_Q4](o2 + (size_t)t * rows, &m.k,
				    x + (size_t)t * n, n, r,
				    r + 3 < rows ? r + 3 : rows);
		CHECKF(!memcmp(o, o2, sz),
		    "case %zu: matvec by ranges differs from the portable's", i);
		/* the whole range and two halves (decode's row blocks) */
		for (t = 0; t < T; t++) {
			kern.matvec[W_Q4](o2 + (size_t)t * rows, &m.k,
			    x + (size_t)t * n, n, 0, t % 2 ? rows : rows / 2);
			if (t % 2 == 0)
				kern.matvec[W_Q4](o2 + (size_t)t * rows, &m.k,
				    x + (size_t)t * n, n, rows / 2, rows);
		}
		CHECKF(!memcmp(o, o2, sz),
		    "case %zu: matvec of whole ranges differs from the portable's",
		    i);

		/* a batch's decode rows: matvecs gives each token its
		 * matvec's bits, over any row range and token count, the
		 * NaN token by the float path */
		if (kern.matvecs[W_Q4]) {
			int tt;

			for (tt = 1; tt <= T; tt += tt < 5 ? 1 : 4) {
				memset(o2, 0, sz);
				kern.matvecs[W_Q4](o2 + (T - tt) * rows, rows,
				    &m.k, x + (size_t)(T - tt) * n, n, n, tt,
				    rows / 4, rows);
				for (t = T - tt; t < T; t++)
					CHECKF(!memcmp(o + (size_t)t * rows +
					    rows / 4, o2 + (size_t)t * rows +
					    rows / 4, (size_t)(rows - rows / 4) *
					    sizeof(float)), "case %zu: matvecs, "
					    "T %d, token %d", i, tt, t);
			}
		}

		/* prefill: the table's F32 matmul on the dequantized rows
		 * (groups its vectors do not divide and rows longer than a
		 * quarter panel go to the portable kernel, whose lanes
		 * differ from the table's) */
		kern.matmul[W_Q4](o, rows, &m.k, x, n, n, T, 0, rows);
		kern.matmul[W_F32](f, rows, m.deq, x, n, n, T, 0, rows);
		CHECKF(m.k.group % vw || 4 * n > KERN_Q4_PANEL ||
		    !memcmp(o, f, sz),
		    "case %zu: matmul differs from F32's", i);
		bound("matmul", i, o, &m, x, rows, n, T);
		kern.matmul[W_Q4](o2, rows, &m.k, x, n, n, 1, 5 % rows, rows);
		CHECKF(!memcmp(o + 5 % rows, o2 + 5 % rows,
		    (size_t)(rows - 5 % rows) * sizeof(float)),
		    "case %zu: T = 1 differs", i);
		/* a token of the float path amid the integer ones, over a
		 * row range not from 0: decode as the portable's, prefill
		 * as over all rows */
		x[(size_t)2 * n + n / 3] = -INFINITY;
		for (t = 0; t < T - 1; t++) {
			kern.matvec[W_Q4](o + (size_t)t * rows, &m.k,
			    x + (size_t)t * n, n, rows / 3, rows);
			kern_portable.matvec[W_Q4](o2 + (size_t)t * rows, &m.k,
			    x + (size_t)t * n, n, rows / 3, rows);
			CHECKF(!memcmp(o + (size_t)t * rows + rows / 3, o2 +
			    (size_t)t * rows + rows / 3, (size_t)(rows - rows / 3) *
			    sizeof(float)), "case %zu: token %d, matvec", i, t);
		}
		if (kern.matvecs[W_Q4]) {
			memset(o2, 0, sz);
			kern.matvecs[W_Q4](o2, rows, &m.k, x, n, n, T - 1,
			    rows / 3, rows);
			for (t = 0; t < T - 1; t++) {
				kern_portable.matvec[W_Q4](o + (size_t)t * rows,
				    &m.k, x + (size_t)t * n, n, rows / 3, rows);
				CHECKF(!memcmp(o + (size_t)t * rows + rows / 3,
				    o2 + (size_t)t * rows + rows / 3, (size_t)
				    (rows - rows / 3) * sizeof(float)),
				    "case %zu: token %d, matvecs", i, t);
			}
		}
		kern.matmul[W_Q4](o, rows, &m.k, x, n, n, T - 1, 0, rows);
		kern.matmul[W_Q4](o2, rows, &m.k, x, n, n, T - 1, rows / 3, rows);
		for (t = 0; t < T - 1; t++)
			CHECKF(!memcmp(o + (size_t)t * rows + rows / 3, o2 +
			    (size_t)t * rows + rows / 3, (size_t)(rows - rows / 3) *
			    sizeof(float)), "case %zu: token %d, matmul", i, t);
		unmake(&m);
		free(x), free(o), free(o2), free(f);
	}
}

/* The activations' integers: the exponent's edges, the digits. */
/* matvecs over many tokens: more than a block of prepared tokens (64),
 * panels of rows cut inside the range (KERN_Q4_TPANEL bytes of words:
 * 16 rows of 2048, 7 of 4160), a row range from inside, a token of the
 * float path among them; each token matvec's bits. */
static void
test_matvecs(void)
{
	static const struct { int rows, cols, g, st, asym; } c[] = {
		{ 67, 576, 32, W_BF16, 0 }, { 35, 2048, 128, W_BF16, 1 },
		{ 9, 4160, 64, W_BF16, 1 }, { 13, 1029, 128, W_F16, 0 },
		{ 40, 1536, 32, W_BF16, 0 },
	};
	static const int Ts[] = { 6, 7, 31, 64, 66 };
	size_t i, k;
	int t;

	if (!kern.matvecs[W_Q4])
		return;
	for (i = 0; i < LEN(c); i++) {
		int rows = c[i].rows, n = c[i].cols, T = 66, r0 = rows / 5;
		size_t sz = (size_t)T * rows * sizeof(float);
		float *x = emalloc((size_t)T * n * sizeof(float));
		float *o = emalloc(sz), *o2 = emalloc(sz);
		struct qm m;

		make(&m, rows, n, c[i].g, (enum wtype)c[i].st, c[i].asym);
		for (t = 0; t < T; t++)
			xfill(x + (size_t)t * n, n, t);
		x[(size_t)29 * n + n / 2] = NAN;	/* the float path */
		for (t = 0; t < T; t++)
			kern_portable.matvec[W_Q4](o + (size_t)t * rows, &m.k,
			    x + (size_t)t * n, n, r0, rows);
		for (k = 0; k < LEN(Ts); k++) {
			memset(o2, 0, sz);
			kern.matvecs[W_Q4](o2, rows, &m.k, x, n, n, Ts[k], r0,
			    rows);
			for (t = 0; t < Ts[k]; t++)
				CHECKF(!memcmp(o + (size_t)t * rows + r0, o2 +
				    (size_t)t * rows + r0, (size_t)(rows - r0) *
				    sizeof(float)), "matvecs %dx%d, T %d, token "
				    "%d", rows, n, Ts[k], t);
		}
		unmake(&m);
		free(x), free(o), free(o2);
	}
}

static void
test_prep(void)
{
	static struct kern_q4x xc[3];
	float x[300];
	int j, c, X;

	EQ(kern_q4_xk(0), 0);
	EQ(kern_q4_xk(1), 22);		/* 1 = 2^0: e = 1, k = 22 */
	EQ(kern_q4_xk(0.75f), 23);	/* 0.75 * 2^23 < XMAX */
	EQ(kern_q4_xk(0.99999f), 22);	/* rounds above XMAX at 23 */
	EQ(kern_q4_xk(0x1p-140f), 126);	/* clamped: 2^-126 is normal */
	EQ(kern_q4_xk(0x1p127f), -105);
	for (j = 0; j < 300; j++)
		x[j] = j < 32 ? (float)(j - 16) / 16 : rnd() * 100;
	x[7] = 0.99999f;
	EQ(kern_q4_prep(xc, x, 300), 0);
	for (j = 0; j < 384; j++) {
		const struct kern_q4x *h = xc + j / 128;
		int i = j % 128 / 2, p = j % 2, k = kern_q4_xk(j < 32 ? 1.0f :
		    0);

		for (X = 0, c = 2; c >= 0; c--)
			X = X * 256 + h->d[c][p][i];
		if (j >= 300) {
			CHECKF(X == 0, "%d: padding %d", j, X);
			continue;
		}
		if (j < 32)
			CHECKF(X == (int)rintf(ldexpf(x[j], k)) &&
			    h->ef[j % 128 / 8] == ldexpf(1, -k), "%d: %d", j, X);
		CHECKF(abs(X) <= KERN_Q4_XMAX, "%d: %d", j, X);
		CHECKF(fabsf(X * h->ef[j % 128 / 8] - x[j]) <=
		    h->ef[j % 128 / 8] / 2, "%d: %d", j, X);
	}
	for (j = 0; j < 16; j++) {
		int s = 0, e;

		for (e = 0; e < 8; e++)
			s += (int)rintf(x[8 * j + e] / xc[0].ef[j]);
		EQ(-xc[0].nsx[j], s);
	}
	x[299] = INFINITY;
	EQ(kern_q4_prep(xc, x, 300), -1);
}

/* The AVX2 conversion against the portable one, byte for byte: every
 * length up to three chunks and the edges xfill makes. */
static void
test_prep_avx2(void)
{
#if defined(__x86_64__)
	static struct kern_q4x a[4], b[4];
	float x[400];
	int n, t, ra, rb;

	if (strcmp(kern.name, "avx2") && strcmp(kern.name, "avx512"))
		return;
	for (t = 0; t < 6; t++)
		for (n = 1; n <= 400; n++) {
			xfill(x, n, t);
			if (t == 4)
				x[n - 1] = n % 2 ? NAN : -INFINITY;
			if (t == 5)
				x[n / 2] = n % 3 ? -0.0f : 0x1p-149f;
			memset(a, 0x55, sizeof a), memset(b, 0xaa, sizeof b);
			ra = kern_q4_prep(a, x, n);
			rb = kern_q4_avx2_prep(b, x, n);
			EQ(rb, ra);
			if (ra == 0)
				CHECKF(!memcmp(a, b, (size_t)KERN_Q4_NC(n) *
				    sizeof *a), "t %d, n %d", t, n);
		}
#endif
}

int
main(void)
{
	argv0 = "test_q4";
	test_kern_init();
	test_layout();
	test_group();
	test_prep();
	test_prep_avx2();
	test_kernels();
	test_matvecs();
	return test_end("test_q4");
}
