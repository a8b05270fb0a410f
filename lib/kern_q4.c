/* kern_q4.c: the portable W_Q4 kernels (kern.h): a row is dequantized
 * KC weights at a time, exactly, into float32 and used by up to TG
 * tokens, with the F32 kernels' lane discipline. */
#include <stdint.h>
#include <string.h>

#include "kern.h"

#define KC 256	/* weights dequantized per step (a multiple of 8) */
#define TG 4	/* tokens sharing one dequantized chunk */

float
kern_scale_at(enum wtype st, const void *s, size_t i)
{
	uint16_t h;
	uint32_t u;
	float f;

	switch (st) {
	case W_F16:
		memcpy(&h, (const uint16_t *)s + i, sizeof h);
		return kern_f16_to_f32(h);
	case W_BF16:
		memcpy(&h, (const uint16_t *)s + i, sizeof h);
		u = (uint32_t)h << 16;
		memcpy(&f, &u, sizeof f);
		return f;
	default:
		memcpy(&f, (const float *)s + i, sizeof f);
		return f;
	}
}

float
kern_q4_scale(const struct kern_q4 *m, int r, int g)
{
	return kern_scale_at(m->st, m->s, (size_t)r * m->ng + g);
}

/* Weights [k0, k0 + n) of row r into o. */
static void
deq(float *o, const struct kern_q4 *m, int r, int k0, int n)
{
	const uint32_t *q = m->q + (size_t)r * m->wpr;
	const uint32_t *zr = m->z ? m->z + (size_t)(r / 8) * m->ng : NULL;
	int j = k0, e = k0 + n, g, end, z;
	float s;

	while (j < e) {
		g = j / m->group;
		end = (g + 1) * m->group < e ? (g + 1) * m->group : e;
		s = kern_q4_scale(m, r, g);
		z = zr ? (int)(zr[g] >> 4 * (r % 8) & 15) : 8;
		for (; j < end; j++)
			o[j - k0] = (float)((int)(q[j / 8] >> 4 * (j % 8) & 15) -
			    z) * s;
	}
}

void
kern_q4_row(float *out, const struct kern_q4 *m, int r, int cols)
{
	deq(out, m, r, 0, cols);
}

static float
sum8(const float s[8])
{
	return ((s[0] + s[4]) + (s[2] + s[6])) +
	    ((s[1] + s[5]) + (s[3] + s[7]));
}

static void
rowdots(float *out, int ldo, const struct kern_q4 *m, const float *x,
    int ldx, int n, int T, int r)
{
	float s[TG][8] = { { 0 } }, wb[KC];
	const float *xs;
	int k0, c, i, j, tt;

	for (k0 = 0; k0 < n; k0 += KC) {
		c = n - k0 < KC ? n - k0 : KC;
		deq(wb, m, r, k0, c);
		for (tt = 0; tt < T; tt++) {
			xs = x + (size_t)tt * ldx + k0;
			for (i = 0; i + 8 <= c; i += 8)
				for (j = 0; j < 8; j++)
					s[tt][j] += wb[i + j] * xs[i + j];
			for (j = 0; i < c; i++, j++)
				s[tt][j] += wb[i] * xs[i];
		}
	}
	for (tt = 0; tt < T; tt++)
		out[(size_t)tt * ldo + r] = sum8(s[tt]);
}

void
kern_q4_matvec(float *out, const void *w, const float *x, int n, int r0,
    int r1)
{
	int r;

	for (r = r0; r < r1; r++)
		rowdots(out, 0, w, x, 0, n, 1, r);
}

void
kern_q4_matmul(float *out, int ldo, const void *w, const float *x, int ldx,
    int n, int T, int r0, int r1)
{
	int r, tt;

	for (r = r0; r < r1; r++)
		for (tt = 0; tt < T; tt += TG)
			rowdots(out + (size_t)tt * ldo, ldo, w,
			    x + (size_t)tt * ldx, ldx, n,
			    T - tt < TG ? T - tt : TG, r);
}
