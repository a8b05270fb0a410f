/* kern_ggml_i8.c: the portable kernels of --int8-act on ggml's block
 * types (kern.h, "--int8-act on ggml's types"): the activations put in
 * int8 per block, the weights' integers multiplied by them exactly, and
 * the float operations in the order every table follows, so this file
 * defines their bits. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "kern/kern.h"

static float
h2f(const uint8_t *p)
{
	return conv_f16_to_f32((uint16_t)(p[0] | p[1] << 8));
}

/* ---- the activations ---- */

void
kern_q8k_prep(struct kern_q8k *y, const float *x, int n)
{
	int nb = (n + 255) / 256, b, i, m;
	float amax, a, id, v;

	for (b = 0; b < nb; b++, x += 256) {
		m = n - 256 * b < 256 ? n - 256 * b : 256;
		amax = 0;
		for (i = 0; i < m; i++) {
			a = fabsf(x[i]);
			if (a > amax)
				amax = a;
		}
		y[b].d = amax / 127.0f;
		id = y[b].d > 0 && y[b].d < INFINITY ? 1.0f / y[b].d : 0.0f;
		for (i = 0; i < 256; i++) {
			v = i < m ? nearbyintf(x[i] * id) : 0.0f;
			if (!(v >= -127))	/* also NaN */
				v = v < 0 ? -127 : 0.0f;
			if (v > 127)
				v = 127;
			y[b].q[i] = (int8_t)v;
		}
		for (i = 0; i < 16; i++) {
			int s = 0, k;

			for (k = 0; k < 16; k++)
				s += y[b].q[16 * i + k];
			y[b].bs[i] = (int16_t)s;
		}
	}
}

/* ---- blocks of 32 ---- */

/* The 32 integers of block b (q - offset, in element order) into w;
 * returns its scale. */
static float
blk32(enum wtype t, int8_t *w, const uint8_t *b)
{
	uint32_t qh;
	int j;

	switch (t) {
	case W_GQ8_0I:
		memcpy(w, b + 2, 32);
		break;
	case W_Q4_0I:
		for (j = 0; j < 16; j++) {
			w[j] = (int8_t)((b[2 + j] & 15) - 8);
			w[j + 16] = (int8_t)((b[2 + j] >> 4) - 8);
		}
		break;
	default:	/* W_Q5_0I */
		qh = (uint32_t)b[2] | (uint32_t)b[3] << 8 |
		    (uint32_t)b[4] << 16 | (uint32_t)b[5] << 24;
		for (j = 0; j < 16; j++) {
			w[j] = (int8_t)(((b[6 + j] & 15) | (qh >> j & 1) << 4) -
			    16);
			w[j + 16] = (int8_t)(((b[6 + j] >> 4) |
			    (qh >> (j + 16) & 1) << 4) - 16);
		}
		break;
	}
	return h2f(b);
}

/* Row (nb blocks of type t) against a token's conv_q8_0_quant blocks:
 * each block's exact sum S, one float chain in order of blocks. */
static float
dot32(enum wtype t, const uint8_t *row, int nb, const float *xd,
    const int8_t *xq)
{
	float acc = 0, d;
	int8_t w[32];
	int32_t S;
	int b, i, bytes = wtypes[t].bytes;

	for (b = 0; b < nb; b++, xq += 32) {
		d = blk32(t, w, row + (size_t)b * bytes) * xd[b];
		for (S = 0, i = 0; i < 32; i++)
			S += (int32_t)w[i] * xq[i];
		acc = fmaf((float)S, d, acc);
	}
	return acc;
}

/* ---- superblocks of 256 ---- */

/* Scale and min j of the 12 bytes of a q4_K block (6 bits each). */
static void
k4_scale(int j, const uint8_t *p, int *sc, int *mn)
{
	if (j < 4) {
		*sc = p[j] & 63;
		*mn = p[j + 4] & 63;
	} else {
		*sc = (p[j + 4] & 15) | (p[j - 4] >> 6) << 4;
		*mn = (p[j + 4] >> 4) | (p[j] >> 6) << 4;
	}
}

/* A q4_K superblock against y: I = sum_j sc_j (q . X over sub-block j),
 * M = sum_j mn_j (sum of X over it), exact. */
static void
q4k_int(const uint8_t *b, const struct kern_q8k *y, int32_t *I, int32_t *M)
{
	const uint8_t *q = b + 16;
	int j, l, sc, mn;
	int32_t s;

	*I = *M = 0;
	for (j = 0; j < 8; j++) {
		k4_scale(j, b + 4, &sc, &mn);
		for (s = 0, l = 0; l < 32; l++)
			s += (int32_t)(q[32 * (j / 2) + l] >> 4 * (j % 2) & 15) *
			    y->q[32 * j + l];
		*I += sc * s;
		*M += mn * (y->bs[2 * j] + y->bs[2 * j + 1]);
	}
}

/* A q6_K superblock against y: sum_j sc_j ((q - 32) . X over the 16
 * weights of j), exact. */
static int32_t
q6k_int(const uint8_t *b, const struct kern_q8k *y)
{
	const uint8_t *ql = b, *qh = b + 128;
	const int8_t *sc = (const int8_t *)(b + 192);
	int32_t I = 0, s[16] = { 0 };
	int h, l, q;

	for (h = 0; h < 2; h++, ql += 64, qh += 32)
		for (l = 0; l < 32; l++) {
			q = ((ql[l] & 15) | (qh[l] & 3) << 4) - 32;
			s[8 * h + l / 16] += q * y->q[128 * h + l];
			q = ((ql[l + 32] & 15) | (qh[l] >> 2 & 3) << 4) - 32;
			s[8 * h + 2 + l / 16] += q * y->q[128 * h + 32 + l];
			q = ((ql[l] >> 4) | (qh[l] >> 4 & 3) << 4) - 32;
			s[8 * h + 4 + l / 16] += q * y->q[128 * h + 64 + l];
			q = ((ql[l + 32] >> 4) | (qh[l] >> 6 & 3) << 4) - 32;
			s[8 * h + 6 + l / 16] += q * y->q[128 * h + 96 + l];
		}
	for (h = 0; h < 16; h++)
		I += sc[h] * s[h];
	return I;
}

/* Row (nb superblocks of type t) against a token's struct kern_q8k:
 * one float chain in order of superblocks (kern.h). */
float
kern_q8k_dot(enum wtype t, const uint8_t *row, int nb,
    const struct kern_q8k *y)
{
	float acc = 0;
	int32_t I, M;
	int b;

	for (b = 0; b < nb; b++, y++)
		if (t == W_Q4_KI) {
			q4k_int(row + (size_t)b * 144, y, &I, &M);
			acc = fmaf((float)I, h2f(row + (size_t)b * 144) * y->d,
			    acc);
			acc = fmaf((float)-M, h2f(row + (size_t)b * 144 + 2) *
			    y->d, acc);
		} else {	/* W_Q6_KI */
			I = q6k_int(row + (size_t)b * 210, y);
			acc = fmaf((float)I, h2f(row + (size_t)b * 210 + 208) *
			    y->d, acc);
		}
	return acc;
}

/* ---- the entries ---- */

static void
matvec(enum wtype t, float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	size_t rb = wtype_rowsize(t, n);
	int nb = (n + wtypes[t].block - 1) / wtypes[t].block, r;

	if (n > KERN_GI8_MAXN)
		return;
	if (wtypes[t].block == 256) {
		struct kern_q8k y[KERN_GI8_MAXN / 256];

		kern_q8k_prep(y, x, n);
		for (r = r0; r < r1; r++)
			out[r] = kern_q8k_dot(t, (const uint8_t *)w +
			    (size_t)r * rb, nb, y);
	} else {
		float xq[CONV_Q8_0_NB(KERN_GI8_MAXN) * (4 + 32) / 4];
		const float *xd = xq;

		conv_q8_0_quant(xq, x, n);
		for (r = r0; r < r1; r++)
			out[r] = dot32(t, (const uint8_t *)w + (size_t)r * rb,
			    nb, xd, (const int8_t *)(xd + CONV_Q8_0_NB(n)));
	}
}

static void
matmul(enum wtype t, float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	int j;

	for (j = 0; j < T; j++)
		matvec(t, out + (size_t)j * ldo, w, x + (size_t)j * ldx, n, r0,
		    r1);
}

void
kern_gq8_0i_matvec(float *out, const void *w, const float *x, int n, int r0,
    int r1)
{
	matvec(W_GQ8_0I, out, w, x, n, r0, r1);
}

void
kern_q4_0i_matvec(float *out, const void *w, const float *x, int n, int r0,
    int r1)
{
	matvec(W_Q4_0I, out, w, x, n, r0, r1);
}

void
kern_q5_0i_matvec(float *out, const void *w, const float *x, int n, int r0,
    int r1)
{
	matvec(W_Q5_0I, out, w, x, n, r0, r1);
}

void
kern_q4_ki_matvec(float *out, const void *w, const float *x, int n, int r0,
    int r1)
{
	matvec(W_Q4_KI, out, w, x, n, r0, r1);
}

void
kern_q6_ki_matvec(float *out, const void *w, const float *x, int n, int r0,
    int r1)
{
	matvec(W_Q6_KI, out, w, x, n, r0, r1);
}

void
kern_gq8_0i_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	matmul(W_GQ8_0I, out, ldo, w, x, ldx, n, T, r0, r1);
}

void
kern_q4_0i_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	matmul(W_Q4_0I, out, ldo, w, x, ldx, n, T, r0, r1);
}

void
kern_q5_0i_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	matmul(W_Q5_0I, out, ldo, w, x, ldx, n, T, r0, r1);
}

void
kern_q4_ki_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	matmul(W_Q4_KI, out, ldo, w, x, ldx, n, T, r0, r1);
}

void
kern_q6_ki_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	matmul(W_Q6_KI, out, ldo, w, x, ldx, n, T, r0, r1);
}
