/* test_gptq.c: the W_GPTQ4 and W_AWQ4 kernels of the table in use
 * against a double dot product of the dequantized matrix (to float32
 * rounding), the same bits for any output range and token count, and
 * the layouts (lib/kern/gptq.h) packed here by hand. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/kern/gptq.h"
#include "../../lib/kern/kern.h"
#include "../../lib/base/util.h"
#include "test.h"

static uint64_t rs = 0x9e3779b97f4a7c15ull;

static uint32_t
rnd32(void)
{
	rs ^= rs << 13, rs ^= rs >> 7, rs ^= rs << 17;
	return (uint32_t)(rs >> 32);
}

static float
rnd(void)
{
	return (float)((rnd32() >> 8) / 16777216.0 * 2 - 1);
}

struct gm {
	struct kern_gptq k;
	uint32_t *q, *z;
	void *s;
	float *deq;		/* rows x cols, row-major */
};

/* A random rows x cols matrix in the GPTQ (awq 0) or AWQ layout with
 * groups of g, scale type st, zero offset zoff; deq from the integers. */
static void
make(struct gm *m, int awq, int rows, int cols, int g, enum wtype st,
    int zoff)
{
	static const int order[8] = { 0, 2, 4, 6, 1, 3, 5, 7 };
	int ng = (cols + g - 1) / g, zw = (rows + 7) / 8, o, i, gi, p, q, z;
	float s;

	memset(m, 0, sizeof(*m));
	m->q = ecalloc((size_t)cols * zw, 4);
	m->z = ecalloc((size_t)ng * zw, 4);
	m->s = ecalloc((size_t)ng * rows, 4);
	m->deq = emalloc((size_t)rows * cols * sizeof(float));
	for (gi = 0; gi < ng; gi++)
		for (o = 0; o < rows; o++) {
			z = (int)(rnd32() % 16);
			for (p = 0; order[p] != o % 8; p++)
				;
			m->z[(size_t)gi * zw + o / 8] |= (uint32_t)z <<
			    4 * (awq ? p : o % 8);
			s = rnd() * 0.1f;
			switch (st) {
			case W_F16:
				((uint16_t *)m->s)[(size_t)gi * rows + o] =
				    conv_f32_to_f16(s);
				break;
			case W_BF16:
				((uint16_t *)m->s)[(size_t)gi * rows + o] =
				    conv_f32_to_bf16(s);
				break;
			default:
				((float *)m->s)[(size_t)gi * rows + o] = s;
			}
		}
	m->k = (struct kern_gptq){ m->q, m->z, m->s, st, rows, g, ng, zw, zoff,
		g <= 128 || g % 128 ? g : 128 };
	for (o = 0; o < rows; o++)
		for (i = 0; i < cols; i++) {
			q = (int)(rnd32() % 16);
			if (awq) {
				for (p = 0; order[p] != o % 8; p++)
					;
				m->q[(size_t)i * (rows / 8) + o / 8] |=
				    (uint32_t)q << 4 * p;
			} else
				m->q[(size_t)(i / 8) * rows + o] |=
				    (uint32_t)q << 4 * (i % 8);
			m->deq[(size_t)o * cols + i] = (float)(q -
			    kern_gptq_zero(&m->k, awq, i / g, o)) *
			    kern_gptq_scale(&m->k, i / g, o);
		}
}

static void
unmake(struct gm *m)
{
	free(m->q), free(m->z), free(m->s), free(m->deq);
}

static void
test_layout(void)
{
	struct gm m;

	/* GPTQ v1: zero points stored minus one; AWQ's interleave */
	make(&m, 0, 8, 16, 8, W_F32, 1);
	m.z[0] = 0x76543210u;
	EQ(kern_gptq_zero(&m.k, 0, 0, 0), 1);
	EQ(kern_gptq_zero(&m.k, 0, 0, 7), 8);
	EQ(kern_gptq_zero(&m.k, 1, 0, 1), 5);	/* nibble 4 */
	EQ(kern_gptq_zero(&m.k, 1, 0, 6), 4);	/* nibble 3 */
	unmake(&m);
}

static void
test_kernels(void)
{
	static const struct { int awq, rows, cols, g, st, zoff; } c[] = {
		{ 0, 37, 64, 32, W_F16, 1 }, { 0, 16, 200, 8, W_BF16, 0 },
		{ 0, 9, 256, 256, W_F32, 1 }, { 0, 70, 384, 128, W_F16, 0 },
		{ 0, 1, 8, 8, W_F16, 1 }, { 0, 33, 520, 64, W_BF16, 1 },
		{ 0, 100, 1024, 1024, W_F16, 1 }, { 0, 24, 96, 96, W_F16, 0 },
		{ 1, 40, 64, 32, W_F16, 0 }, { 1, 8, 200, 8, W_BF16, 0 },
		{ 1, 72, 384, 128, W_F32, 0 },
	};
	size_t i;

	for (i = 0; i < LEN(c); i++) {
		enum wtype wt = c[i].awq ? W_AWQ4 : W_GPTQ4;
		int rows = c[i].rows, n = c[i].cols, T = 11, t, r, j, step;
		float *x = emalloc((size_t)T * n * sizeof(float));
		float *o = emalloc((size_t)T * rows * sizeof(float));
		float *o2 = emalloc((size_t)T * rows * sizeof(float));
		struct gm m;

		make(&m, c[i].awq, rows, n, c[i].g, (enum wtype)c[i].st,
		    c[i].zoff);
		for (t = 0; t < T * n; t++)
			x[t] = rnd();
		kern.matmul[wt](o, rows, &m.k, x, n, n, T, 0, rows);
		for (t = 0; t < T * rows; t++) {
			double a = 0, want = 0, w;

			for (j = 0; j < n; j++) {
				w = (double)m.deq[(size_t)(t % rows) * n + j] *
				    x[(size_t)(t / rows) * n + j];
				want += w;
				a += fabs(w);
			}
			CHECKF(fabs(o[t] - want) <= 1e-6 * a + 1e-30,
			    "case %zu: %d: %g vs %g", i, t, o[t], want);
		}
		/* any output range, any token count: the same bits */
		for (step = 1; step <= 19; step += 6) {
			memset(o2, 0, (size_t)T * rows * sizeof(float));
			for (t = 0; t < T; t++)
				for (r = 0; r < rows; r += step)
					kern.matvec[wt](o2 + (size_t)t * rows, &m.k,
					    x + (size_t)t * n, n, r,
					    r + step < rows ? r + step : rows);
			CHECKF(!memcmp(o, o2, (size_t)T * rows * sizeof(float)),
			    "case %zu: matvec by ranges of %d differs from matmul",
			    i, step);
		}
		for (t = 1; t < T; t += 3) {
			memset(o2, 0, (size_t)T * rows * sizeof(float));
			kern.matmul[wt](o2, rows, &m.k, x, n, n, t, 3 % rows, rows);
			for (j = 0; j < t; j++)
				CHECKF(!memcmp(o + (size_t)j * rows + 3 % rows,
				    o2 + (size_t)j * rows + 3 % rows,
				    (size_t)(rows - 3 % rows) * sizeof(float)),
				    "case %zu: T = %d differs at token %d", i, t, j);
			/* nothing outside the range is written */
			CHECKF(rows < 3 || o2[0] == 0, "case %zu: wrote row 0", i);
		}
		unmake(&m);
		free(x), free(o), free(o2);
	}
}

int
main(void)
{
	argv0 = "test_gptq";
	test_kern_init();
	test_layout();
	test_kernels();
	return test_end("test_gptq");
}
