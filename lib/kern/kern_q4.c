/* kern_q4.c: the portable W_Q4 kernels (kern.h): the integer path of
 * decode that defines every table's bits, the activations' conversion
 * for it, and the float path of prefill (a row dequantized KC weights
 * at a time, exactly, into float32 and used by up to TG tokens). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kern/kern.h"

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
		return conv_f16_to_f32(h);
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

/* Row r against tokens [0, T) into out[t * ldo]: out is the row's
 * output, so kern_q4_fdot's one float serves as well as a matrix. */
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
		out[(size_t)tt * ldo] = sum8(s[tt]);
}

void
kern_q4_panels(float *out, int ldo, const struct kern_q4 *m, const float *x,
    int ldx, int n, int T, int r0, int r1,
    void (*deq)(float *o, const struct kern_q4 *m, int r, int n),
    void (*f32mm)(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1))
{
	float *wb;
	int P = KERN_Q4_PANEL / (n > 0 ? n : 1) / 4 * 4, r, p0, p1;

	if (P > r1 - r0)
		P = r1 - r0;
	/* on the heap: a pool thread's stack may be small (musl: 128 KiB) */
	if (P < 1 || !(wb = malloc(((size_t)P * n + 16) * sizeof(*wb)))) {
		kern_q4_matmul(out, ldo, m, x, ldx, n, T, r0, r1);
		return;
	}
	for (p0 = r0; p0 < r1; p0 = p1) {
		p1 = r1 - p0 > P ? p0 + P : r1;
		for (r = p0; r < p1; r++)
			deq(wb + (size_t)(r - p0) * n, m, r, n);
		f32mm(out + p0, ldo, wb, x, ldx, n, T, 0, p1 - p0);
	}
	free(wb);
}

/* ---- the integer path ---- */

int
kern_q4_xk(float mx)
{
	uint32_t u;
	int k;

	memcpy(&u, &mx, sizeof u);
	if (mx == 0)
		return 0;
	/* mx in [2^(e-1), 2^e), e = E - 126; subnormal blocks clamped so
	 * that 2^-k stays a normal float */
	k = 149 - (int)(u >> 23 & 255);
	if (k > 126)
		k = 126;
	if (rintf(ldexpf(mx, k)) > KERN_Q4_XMAX)
		k--;
	return k;
}

int
kern_q4_prep(struct kern_q4x *xc, const float *x, int n)
{
	int b, j, e, k, X, c, d[3];
	float mx, p, ef;

	memset(xc, 0, (size_t)KERN_Q4_NC(n) * sizeof *xc);
	for (b = 0; b * 32 < n; b++) {
		e = n - b * 32 < 32 ? n : b * 32 + 32;
		for (mx = 0, j = b * 32; j < e; j++) {
			if (!isfinite(x[j]))
				return -1;
			mx = fabsf(x[j]) > mx ? fabsf(x[j]) : mx;
		}
		k = kern_q4_xk(mx);
		p = ldexpf(1, k);
		ef = ldexpf(1, -k);
		for (j = b * 32; j < e; j++) {
			struct kern_q4x *h = xc + j / 128;

			X = (int)rintf(x[j] * p);
			h->nsx[j % 128 / 8] -= X;
			for (c = 0; c < 3; c++) {
				d[c] = (int)(int8_t)(uint8_t)(X & 255);
				X = (X - d[c]) / 256;
				h->d[c][j % 2][j % 128 / 2] = (int8_t)d[c];
			}
		}
		for (j = b * 32; j < b * 32 + 32; j += 8)
			xc[j / 128].ef[j % 128 / 8] = ef;
	}
	return 0;
}

int
kern_q4_int(const struct kern_q4 *m, int n)
{
	return n <= KERN_Q4_MAXN && (m->group % 8 == 0 || m->ng == 1);
}

void
kern_q4_xprep(void *xp, const float *x, int ldx, int n, int t0, int t1,
    int (*prep8)(struct kern_q4x *xc, const float *x, int n), int z8)
{
	struct kern_q4x *xc;
	int t, c, i;

	if (n > KERN_Q4_MAXN)
		return;
	for (t = t0; t < t1; t++) {
		xc = (struct kern_q4x *)xp + (size_t)t * KERN_Q4_NC(n);
		if (prep8(xc, x + (size_t)t * ldx, n) < 0)
			xc->nsx[0] = KERN_Q4_XBAD;
		else
			for (c = 0; z8 && c < KERN_Q4_NC(n); c++)
				for (i = 0; i < 16; i++)
					xc[c].nsx[i] *= 8;
	}
}

float
kern_q4_fdot(const struct kern_q4 *m, int r, const float *x, int n)
{
	float o;

	rowdots(&o, 0, m, x, 0, n, 1, r);
	return o;
}

/* Row r against a token's chunks xc (kern.h's sum, lane by lane). */
static float
idot(const struct kern_q4 *m, int r, const struct kern_q4x *xc, int n)
{
	const uint32_t *q = m->q + (size_t)r * m->wpr;
	const uint32_t *zr = m->z ? m->z + (size_t)(r / 8) * m->ng : NULL;
	float acc[16] = { 0 }, s;
	int c, w, W, g, i, z, P[3], lo, hi;
	uint32_t u, L;

	for (c = 0; c < KERN_Q4_NC(n); c++)
		for (w = 0; w < 16; w++) {
			W = 16 * c + w;
			u = 0, s = 0, z = 0;
			if (W < m->wpr) {
				u = q[W];
				g = m->ng == 1 ? 0 : W * 8 / m->group;
				s = kern_q4_scale(m, r, g);
				z = zr ? (int)(zr[g] >> 4 * (r % 8) & 15) : 8;
			}
			P[0] = P[1] = P[2] = 0;
			for (i = 0; i < 4; i++) {
				lo = (int)(u >> 8 * i & 15);
				hi = (int)(u >> (8 * i + 4) & 15);
				P[0] += lo * xc[c].d[0][0][4 * w + i] +
				    hi * xc[c].d[0][1][4 * w + i];
				P[1] += lo * xc[c].d[1][0][4 * w + i] +
				    hi * xc[c].d[1][1][4 * w + i];
				P[2] += lo * xc[c].d[2][0][4 * w + i] +
				    hi * xc[c].d[2][1][4 * w + i];
			}
			L = ((uint32_t)P[2] << 16) + ((uint32_t)P[1] << 8) +
			    (uint32_t)P[0] + (uint32_t)z * (uint32_t)xc[c].nsx[w];
			acc[w] = fmaf((float)(int32_t)L, s * xc[c].ef[w], acc[w]);
		}
	return kern_sum16(acc);
}

void
kern_q4_matvec(float *out, const void *w, const float *x, int n, int r0,
    int r1)
{
	struct kern_q4x xc[KERN_Q4_NC(KERN_Q4_MAXN)];
	int r;

	if (!kern_q4_int(w, n) || kern_q4_prep(xc, x, n) < 0) {
		for (r = r0; r < r1; r++)
			rowdots(out + r, 0, w, x, 0, n, 1, r);
		return;
	}
	for (r = r0; r < r1; r++)
		out[r] = idot(w, r, xc, n);
}

void
kern_q4_matmul(float *out, int ldo, const void *w, const float *x, int ldx,
    int n, int T, int r0, int r1)
{
	int r, tt;

	for (r = r0; r < r1; r++)
		for (tt = 0; tt < T; tt += TG)
			rowdots(out + (size_t)tt * ldo + r, ldo, w,
			    x + (size_t)tt * ldx, ldx, n,
			    T - tt < TG ? T - tt : TG, r);
}

/* Each row against every token, the tokens prepared once (on the heap:
 * a pool thread's stack may be small): kern_q4_matvec's bits for each,
 * a token whose prep fails by its float path as alone. */
void
kern_q4_matvecs(float *out, int ldo, const void *w, const float *x, int ldx,
    int n, int T, int r0, int r1)
{
	struct kern_q4x *xc = NULL;
	int nc = KERN_Q4_NC(n), r, t, *ok;

	if (kern_q4_int(w, n))
		xc = aligned_alloc(64, ((size_t)T * nc + ((size_t)T *
		    sizeof *ok + sizeof *xc - 1) / sizeof *xc) * sizeof *xc);
	if (!xc) {
		for (t = 0; t < T; t++)
			kern_q4_matvec(out + (size_t)t * ldo, w, x + (size_t)t *
			    ldx, n, r0, r1);
		return;
	}
	ok = (int *)(xc + (size_t)T * nc);
	for (t = 0; t < T; t++) {
		ok[t] = kern_q4_prep(xc + (size_t)t * nc, x + (size_t)t * ldx,
		    n) == 0;
		if (!ok[t])
			kern_q4_matvec(out + (size_t)t * ldo, w, x + (size_t)t *
			    ldx, n, r0, r1);
	}
	for (r = r0; r < r1; r++)
		for (t = 0; t < T; t++)
			if (ok[t])
				out[(size_t)t * ldo + r] = idot(w, r, xc +
				    (size_t)t * nc, n);
	free(xc);
}

/* ---- --int8-act (W_Q4I): one digit a activation ---- */

int
kern_q4_prep8(struct kern_q4x *xc, const float *x, int n)
{
	int b, j, e, X;
	float mx, d, id, v;

	memset(xc, 0, (size_t)KERN_Q4_NC(n) * sizeof *xc);
	for (b = 0; b * 32 < n; b++) {
		e = n - b * 32 < 32 ? n : b * 32 + 32;
		for (mx = 0, j = b * 32; j < e; j++) {
			if (!isfinite(x[j]))
				return -1;
			mx = fabsf(x[j]) > mx ? fabsf(x[j]) : mx;
		}
		/* conv_q8_0_quant's rounding */
		d = mx / 127.0f;
		id = d > 0 ? 1.0f / d : 0.0f;
		for (j = b * 32; j < e; j++) {
			struct kern_q4x *h = xc + j / 128;

			v = nearbyintf(x[j] * id);
			v = v < -127 ? -127 : v > 127 ? 127 : v;
			X = (int)v;
			h->nsx[j % 128 / 8] -= X;
			h->d[0][j % 2][j % 128 / 2] = (int8_t)X;
		}
		for (j = b * 32; j < b * 32 + 32; j += 8)
			xc[j / 128].ef[j % 128 / 8] = d;
	}
	return 0;
}

void
kern_q4i_matvec(float *out, const void *w, const float *x, int n, int r0,
    int r1)
{
	struct kern_q4x xc[KERN_Q4_NC(KERN_Q4_MAXN)];
	int r;

	if (!kern_q4_int(w, n) || kern_q4_prep8(xc, x, n) < 0) {
		for (r = r0; r < r1; r++)
			rowdots(out + r, 0, w, x, 0, n, 1, r);
		return;
	}
	for (r = r0; r < r1; r++)
		out[r] = idot(w, r, xc, n);
}

void
kern_q4i_matmul(float *out, int ldo, const void *w, const float *x, int ldx,
    int n, int T, int r0, int r1)
{
	int t;

	for (t = 0; t < T; t++)
		kern_q4i_matvec(out + (size_t)t * ldo, w, x + (size_t)t * ldx,
		    n, r0, r1);
}
