/* test_q4.c: the W_Q4 kernels of the table in use against the F32
 * kernels of the same table on the dequantized matrix (to float32
 * rounding), the same for any row range and token count, and the
 * quantizer's rounding, range and packing (lib/quant.h). */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/kern.h"
#include "../../lib/quant.h"
#include "../../lib/util.h"
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
			s = kern_bf16_to_f32(((uint16_t *)m.s)[(size_t)r * m.k.ng + g]);
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
	CHECK(s == kern_bf16_to_f32(kern_f32_to_bf16(FLT_EPSILON)));
	for (i = 0; i < 4; i++)
		EQ(w[i], 0x88888888u);
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
		{ 5, 16400, 32, W_BF16, 1 },	/* longer than a prefill panel */
	};
	int vw = !strcmp(kern.name, "avx512") ? 16 : !strcmp(kern.name,
	    "avx2") ? 8 : 1;
	size_t i;

	for (i = 0; i < LEN(c); i++) {
		int rows = c[i].rows, n = c[i].cols, T = 7, t, r;
		float *x = emalloc((size_t)T * n * sizeof(float));
		float *o = emalloc((size_t)T * rows * sizeof(float));
		float *o2 = emalloc((size_t)T * rows * sizeof(float));
		float *f = emalloc((size_t)T * rows * sizeof(float));
		struct qm m;

		make(&m, rows, n, c[i].g, (enum wtype)c[i].st, c[i].asym);
		for (t = 0; t < T * n; t++)
			x[t] = rnd();
		kern.matmul[W_Q4](o, rows, &m.k, x, n, n, T, 0, rows);
		kern.matmul[W_F32](f, rows, m.deq, x, n, n, T, 0, rows);
		CHECKF(m.k.group % vw || !memcmp(o, f, (size_t)T * rows *
		    sizeof(float)), "case %zu: matmul differs from F32's", i);
		for (t = 0; t < T * rows; t++) {
			double a = 0;
			int j;

			for (j = 0; j < n; j++)
				a += fabs((double)m.deq[(size_t)(t % rows) * n + j] *
				    x[(size_t)(t / rows) * n + j]);
			CHECKF(fabs(o[t] - f[t]) <= 1e-6 * a + 1e-30,
			    "case %zu: %d: %g vs %g", i, t, o[t], f[t]);
		}
		/* any row range, any token count: the same bits */
		for (t = 0; t < T; t++) {
			for (r = 0; r < rows; r += 3)
				kern.matvec[W_Q4](o2 + (size_t)t * rows, &m.k,
				    x + (size_t)t * n, n, r,
				    r + 3 < rows ? r + 3 : rows);
		}
		CHECKF(!memcmp(o, o2, (size_t)T * rows * sizeof(float)),
		    "case %zu: matvec by ranges differs from matmul", i);
		/* the whole range and two halves (decode's row blocks): the
		 * F32 kernel's bits on the dequantized rows */
		for (t = 0; t < T; t++) {
			kern.matvec[W_F32](f + (size_t)t * rows, m.deq,
			    x + (size_t)t * n, n, 0, rows);
			kern.matvec[W_Q4](o2 + (size_t)t * rows, &m.k,
			    x + (size_t)t * n, n, 0, t % 2 ? rows : rows / 2);
			if (t % 2 == 0)
				kern.matvec[W_Q4](o2 + (size_t)t * rows, &m.k,
				    x + (size_t)t * n, n, rows / 2, rows);
		}
		/* (groups the table's vectors do not divide go to the
		 * portable kernels, whose lanes differ from the table's) */
		CHECKF(m.k.group % vw || !memcmp(f, o2, (size_t)T * rows *
		    sizeof(float)),
		    "case %zu: matvec differs from F32's on the dequantized rows",
		    i);
		CHECKF(!memcmp(o, o2, (size_t)T * rows * sizeof(float)),
		    "case %zu: matvec of whole ranges differs from matmul", i);
		kern.matmul[W_Q4](o2, rows, &m.k, x, n, n, 1, 5 % rows, rows);
		CHECKF(!memcmp(o + 5 % rows, o2 + 5 % rows,
		    (size_t)(rows - 5 % rows) * sizeof(float)),
		    "case %zu: T = 1 differs", i);
		unmake(&m);
		free(x), free(o), free(o2), free(f);
	}
}

int
main(void)
{
	const char *want = getenv("PIPELM_KERNEL");

	argv0 = "test_q4";
	if (kern_init(want) < 0) {
		if (want && (!strcmp(want, "avx2") || !strcmp(want, "avx512"))) {
			printf("skip: this cpu cannot run the %s table\n", want);
			return 0;
		}
		return 1;
	}
	test_ctx = kern.name;
	test_layout();
	test_group();
	test_kernels();
	return test_end("test_q4");
}
