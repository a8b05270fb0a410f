/* kern_gptq.c: the portable W_GPTQ4 and W_AWQ4 kernels (gptq.h): a tile
 * of TW outputs walks the inputs in order, each output's partial sum of
 * a block in its own float, so that the sums do not depend on where the
 * tile starts. */
#include <stdint.h>
#include <string.h>

#include "kern/gptq.h"
#include "kern/kern.h"

#define TW 16	/* outputs a tile */

const unsigned char gptq_awq_pos[8] = { 0, 4, 1, 5, 2, 6, 3, 7 };

int
kern_gptq_zero(const struct kern_gptq *m, int awq, int g, int o)
{
	uint32_t w = m->z[(size_t)g * m->zw + o / 8];

	return (int)(w >> 4 * (awq ? gptq_awq_pos[o % 8] : o % 8) & 15) +
	    m->zoff;
}

float
kern_gptq_scale(const struct kern_gptq *m, int g, int o)
{
	return kern_scale_at(m->st, m->s, (size_t)g * m->rows + o);
}

/* Outputs [o0, o0 + nw) of one token. */
static void
tile(float *out, const struct kern_gptq *m, int awq, const float *x, int n,
    int o0, int nw)
{
	float a[2][TW], tot[TW], s[TW], xi;
	int z[TW], b0, e, g, i, j, o, sh;
	const uint32_t *qr;

	for (j = 0; j < nw; j++)
		tot[j] = 0;
	for (b0 = 0; b0 < n; b0 += m->blk) {
		e = n - b0 < m->blk ? n : b0 + m->blk;
		g = b0 / m->group;
		for (j = 0; j < nw; j++) {
			z[j] = kern_gptq_zero(m, awq, g, o0 + j);
			s[j] = kern_gptq_scale(m, g, o0 + j);
			a[0][j] = a[1][j] = 0;
		}
		for (i = b0; i < e; i++) {
			xi = x[i];
			if (!awq) {
				qr = m->q + (size_t)(i / 8) * m->rows + o0;
				sh = 4 * (i % 8);
				for (j = 0; j < nw; j++)
					a[i & 1][j] += (float)((int)(qr[j] >> sh &
					    15) - z[j]) * xi;
			} else {
				qr = m->q + (size_t)i * (m->rows / 8);
				for (j = 0; j < nw; j++) {
					o = o0 + j;
					a[i & 1][j] += (float)((int)(qr[o / 8] >>
					    4 * gptq_awq_pos[o % 8] & 15) - z[j]) *
					    xi;
				}
			}
		}
		for (j = 0; j < nw; j++)
			tot[j] += (a[0][j] + a[1][j]) * s[j];
	}
	memcpy(out + o0, tot, (size_t)nw * sizeof(float));
}

static void
run(float *out, int ldo, const struct kern_gptq *m, int awq, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	int o, t;

	for (t = 0; t < T; t++)
		for (o = r0; o < r1; o += TW)
			tile(out + (size_t)t * ldo, m, awq,
			    x + (size_t)t * ldx, n, o, r1 - o < TW ? r1 - o : TW);
}

void
kern_gptq_matvec(float *out, const void *w, const float *x, int n, int r0,
    int r1)
{
	run(out, 0, w, 0, x, 0, n, 1, r0, r1);
}

void
kern_gptq_matmul(float *out, int ldo, const void *w, const float *x, int ldx,
    int n, int T, int r0, int r1)
{
	run(out, ldo, w, 0, x, ldx, n, T, r0, r1);
}

void
kern_awq_matvec(float *out, const void *w, const float *x, int n, int r0,
    int r1)
{
	run(out, 0, w, 1, x, 0, n, 1, r0, r1);
}

void
kern_awq_matmul(float *out, int ldo, const void *w, const float *x, int ldx,
    int n, int T, int r0, int r1)
{
	run(out, ldo, w, 1, x, ldx, n, T, r0, r1);
}
