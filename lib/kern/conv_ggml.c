/* conv_ggml.c: ggml's block types (conv.h): each block dequantized as
 * ggml's reference dequantize_row_* computes it, float operation for
 * float operation (products and sums in the same order, no fused
 * multiply-add), and quantized as its reference quantizers choose the
 * scales (quantize_row_*_ref; for IQ4_NL and IQ4_XS, quantize_iq4_nl /
 * quantize_iq4_xs without an importance matrix, as llama-quantize runs
 * them).  Layouts as ggml-common.h's block structs, little-endian. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "kern/conv.h"

#define QK 256	/* weights of a K-quant superblock */
#define EPS 1e-15f	/* a group's largest below this: all zero */

static const int8_t iq4v[16] = {
	-127, -104, -83, -65, -49, -35, -22, -10,
	1, 13, 25, 38, 53, 69, 89, 113
};

static float
h2f(const uint8_t *p)
{
	return conv_f16_to_f32((uint16_t)(p[0] | p[1] << 8));
}

static void
f2h(uint8_t *p, float f)
{
	uint16_t h = conv_f32_to_f16(f);

	p[0] = (uint8_t)h;
	p[1] = (uint8_t)(h >> 8);
}

static uint32_t
le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	    (uint32_t)p[3] << 24;
}

/* ---- one block each, into y ---- */

static void
deq_gq8_0(float *y, const uint8_t *b)
{
	float d = h2f(b);
	int j;

	for (j = 0; j < 32; j++)
		y[j] = (float)(int8_t)b[2 + j] * d;
}

static void
deq_q4_0(float *y, const uint8_t *b)
{
	float d = h2f(b);
	const uint8_t *q = b + 2;
	int j;

	for (j = 0; j < 16; j++) {
		y[j] = (float)((q[j] & 15) - 8) * d;
		y[j + 16] = (float)((q[j] >> 4) - 8) * d;
	}
}

static void
deq_q4_1(float *y, const uint8_t *b)
{
	float d = h2f(b), m = h2f(b + 2);
	const uint8_t *q = b + 4;
	int j;

	for (j = 0; j < 16; j++) {
		y[j] = (float)(q[j] & 15) * d + m;
		y[j + 16] = (float)(q[j] >> 4) * d + m;
	}
}

static void
deq_q5_0(float *y, const uint8_t *b)
{
	float d = h2f(b);
	uint32_t qh = le32(b + 2);
	const uint8_t *q = b + 6;
	int j;

	for (j = 0; j < 16; j++) {
		y[j] = (float)((int)((q[j] & 15) | (qh >> j & 1) << 4) - 16) * d;
		y[j + 16] = (float)((int)((q[j] >> 4) | (qh >> (j + 16) & 1) << 4)
		    - 16) * d;
	}
}

static void
deq_q5_1(float *y, const uint8_t *b)
{
	float d = h2f(b), m = h2f(b + 2);
	uint32_t qh = le32(b + 4);
	const uint8_t *q = b + 8;
	int j;

	for (j = 0; j < 16; j++) {
		y[j] = (float)((q[j] & 15) | (qh >> j & 1) << 4) * d + m;
		y[j + 16] = (float)((q[j] >> 4) | (qh >> (j + 16) & 1) << 4) * d
		    + m;
	}
}

/* q2_K: scales[16] (4-bit scale, 4-bit min), qs[64], d, dmin */
static void
deq_q2_k(float *y, const uint8_t *b)
{
	const uint8_t *sc = b, *q = b + 16;
	float d = h2f(b + 80), dmin = h2f(b + 82), dl, ml;
	int h, j, l, is = 0;

	for (h = 0; h < 2; h++, q += 32)
		for (j = 0; j < 4; j++) {
			/* the two 16-weight halves of 32 bytes, at bits 2j */
			dl = d * (float)(sc[is] & 15);
			ml = dmin * (float)(sc[is] >> 4);
			is++;
			for (l = 0; l < 16; l++)
				*y++ = dl * (float)(q[l] >> 2 * j & 3) - ml;
			dl = d * (float)(sc[is] & 15);
			ml = dmin * (float)(sc[is] >> 4);
			is++;
			for (l = 0; l < 16; l++)
				*y++ = dl * (float)(q[l + 16] >> 2 * j & 3) - ml;
		}
}

/* The 16 signed 6-bit scales of a q3_K block, biased by 32. */
static void
q3_scales(int *s, const uint8_t *p)
{
	int j;

	for (j = 0; j < 16; j++)
		s[j] = ((j < 8 ? p[j] & 15 : p[j - 8] >> 4) |
		    (p[8 + j % 4] >> 2 * (j / 4) & 3) << 4) - 32;
}

/* q3_K: hmask[32], qs[64], scales[12], d */
static void
deq_q3_k(float *y, const uint8_t *b)
{
	const uint8_t *hm = b, *q = b + 32;
	float d = h2f(b + 108), dl;
	int s[16], h, j, l, is = 0, m = 1;

	q3_scales(s, b + 96);
	for (h = 0; h < 2; h++, q += 32)
		for (j = 0; j < 4; j++, m <<= 1) {
			dl = d * (float)s[is++];
			for (l = 0; l < 16; l++)
				*y++ = dl * (float)((q[l] >> 2 * j & 3) -
				    (hm[l] & m ? 0 : 4));
			dl = d * (float)s[is++];
			for (l = 0; l < 16; l++)
				*y++ = dl * (float)((q[l + 16] >> 2 * j & 3) -
				    (hm[l + 16] & m ? 0 : 4));
		}
}

/* Scale and min j of the 12 bytes of a q4_K / q5_K block (6 bits each). */
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

/* q4_K: d, dmin, scales[12], qs[128] */
static void
deq_q4_k(float *y, const uint8_t *b)
{
	const uint8_t *q = b + 16;
	float d = h2f(b), dmin = h2f(b + 2), d1, m1, d2, m2;
	int j, l, sc, mn;

	for (j = 0; j < 8; j += 2, q += 32) {
		k4_scale(j, b + 4, &sc, &mn);
		d1 = d * (float)sc;
		m1 = dmin * (float)mn;
		k4_scale(j + 1, b + 4, &sc, &mn);
		d2 = d * (float)sc;
		m2 = dmin * (float)mn;
		for (l = 0; l < 32; l++)
			*y++ = d1 * (float)(q[l] & 15) - m1;
		for (l = 0; l < 32; l++)
			*y++ = d2 * (float)(q[l] >> 4) - m2;
	}
}

/* q5_K: d, dmin, scales[12], qh[32], qs[128] */
static void
deq_q5_k(float *y, const uint8_t *b)
{
	const uint8_t *qh = b + 16, *q = b + 48;
	float d = h2f(b), dmin = h2f(b + 2), d1, m1, d2, m2;
	int j, l, sc, mn;

	for (j = 0; j < 8; j += 2, q += 32) {
		k4_scale(j, b + 4, &sc, &mn);
		d1 = d * (float)sc;
		m1 = dmin * (float)mn;
		k4_scale(j + 1, b + 4, &sc, &mn);
		d2 = d * (float)sc;
		m2 = dmin * (float)mn;
		for (l = 0; l < 32; l++)
			*y++ = d1 * (float)((q[l] & 15) | (qh[l] >> j & 1) << 4)
			    - m1;
		for (l = 0; l < 32; l++)
			*y++ = d2 * (float)((q[l] >> 4) |
			    (qh[l] >> (j + 1) & 1) << 4) - m2;
	}
}

/* q6_K: ql[128], qh[64], scales[16] (int8), d */
static void
deq_q6_k(float *y, const uint8_t *b)
{
	const uint8_t *ql = b, *qh = b + 128;
	const int8_t *sc = (const int8_t *)(b + 192);
	float d = h2f(b + 208);
	int h, l, is;

	for (h = 0; h < 2; h++, y += 128, ql += 64, qh += 32, sc += 8)
		for (l = 0; l < 32; l++) {
			is = l / 16;
			y[l] = d * (float)sc[is] *
			    (float)(((ql[l] & 15) | (qh[l] & 3) << 4) - 32);
			y[l + 32] = d * (float)sc[is + 2] *
			    (float)(((ql[l + 32] & 15) | (qh[l] >> 2 & 3) << 4) - 32);
			y[l + 64] = d * (float)sc[is + 4] *
			    (float)(((ql[l] >> 4) | (qh[l] >> 4 & 3) << 4) - 32);
			y[l + 96] = d * (float)sc[is + 6] *
			    (float)(((ql[l + 32] >> 4) | (qh[l] >> 6 & 3) << 4) - 32);
		}
}

static void
deq_iq4_nl(float *y, const uint8_t *b)
{
	float d = h2f(b);
	const uint8_t *q = b + 2;
	int j;

	for (j = 0; j < 16; j++) {
		y[j] = d * (float)iq4v[q[j] & 15];
		y[j + 16] = d * (float)iq4v[q[j] >> 4];
	}
}

/* iq4_xs: d, scales_h (16 bits), scales_l[4], qs[128] */
static void
deq_iq4_xs(float *y, const uint8_t *b)
{
	float d = h2f(b), dl;
	unsigned sh = (unsigned)b[2] | (unsigned)b[3] << 8;
	const uint8_t *q = b + 8;
	int ib, j, ls;

	for (ib = 0; ib < 8; ib++, y += 32, q += 16) {
		ls = (b[4 + ib / 2] >> 4 * (ib % 2) & 15) | (sh >> 2 * ib & 3) << 4;
		dl = d * (float)(ls - 32);
		for (j = 0; j < 16; j++) {
			y[j] = dl * (float)iq4v[q[j] & 15];
			y[j + 16] = dl * (float)iq4v[q[j] >> 4];
		}
	}
}

/* n weights of blocks of bs (bytes each) at w into out: whole blocks,
 * then the first weights of a last partial one. */
static void
rows(void (*blk)(float *, const uint8_t *), int bs, int bytes, float *out,
    const void *w, size_t n)
{
	const uint8_t *p = w;
	float tmp[QK];
	size_t i;

	for (i = 0; i + (size_t)bs <= n; i += (size_t)bs, p += bytes)
		blk(out + i, p);
	if (i < n) {
		blk(tmp, p);
		memcpy(out + i, tmp, (n - i) * sizeof *out);
	}
}

void
conv_gq8_0_to_f32(float *out, const void *w, size_t n)
{
	rows(deq_gq8_0, 32, 34, out, w, n);
}

void
conv_q4_0_to_f32(float *out, const void *w, size_t n)
{
	rows(deq_q4_0, 32, 18, out, w, n);
}

void
conv_q4_1_to_f32(float *out, const void *w, size_t n)
{
	rows(deq_q4_1, 32, 20, out, w, n);
}

void
conv_q5_0_to_f32(float *out, const void *w, size_t n)
{
	rows(deq_q5_0, 32, 22, out, w, n);
}

void
conv_q5_1_to_f32(float *out, const void *w, size_t n)
{
	rows(deq_q5_1, 32, 24, out, w, n);
}

void
conv_q2_k_to_f32(float *out, const void *w, size_t n)
{
	rows(deq_q2_k, QK, 84, out, w, n);
}

void
conv_q3_k_to_f32(float *out, const void *w, size_t n)
{
	rows(deq_q3_k, QK, 110, out, w, n);
}

void
conv_q4_k_to_f32(float *out, const void *w, size_t n)
{
	rows(deq_q4_k, QK, 144, out, w, n);
}

void
conv_q5_k_to_f32(float *out, const void *w, size_t n)
{
	rows(deq_q5_k, QK, 176, out, w, n);
}

void
conv_q6_k_to_f32(float *out, const void *w, size_t n)
{
	rows(deq_q6_k, QK, 210, out, w, n);
}

void
conv_iq4_nl_to_f32(float *out, const void *w, size_t n)
{
	rows(deq_iq4_nl, 32, 18, out, w, n);
}

void
conv_iq4_xs_to_f32(float *out, const void *w, size_t n)
{
	rows(deq_iq4_xs, QK, 136, out, w, n);
}

/* ---- quantizers ---- */

/* ggml's nearest_int: round half to even by the 1.5 2^23 trick, for
 * |f| <= 2^22 (the callers' values are bounded by their clamps' inputs;
 * larger ones are clamped here first, so that the result still orders
 * right) */
static int
nearest(float f)
{
	float v;
	int32_t i;

	if (!(f <= 4194303.f))
		f = f != f ? 0 : 4194303.f;
	if (f < -4194303.f)
		f = -4194303.f;
	v = f + 12582912.f;
	memcpy(&i, &v, sizeof i);
	return (i & 0x007fffff) - 0x00400000;
}

static int
imin(int a, int b)
{
	return a < b ? a : b;
}

static int
imax(int a, int b)
{
	return a > b ? a : b;
}

/* float to an integer in [lo, hi] by truncation, as ggml's (int8_t)
 * casts of values it knows in range (NaN and beyond: clamped) */
static int
trunc_to(float f, int lo, int hi)
{
	if (!(f > (float)lo))
		return lo;
	if (f >= (float)hi)
		return hi;
	return (int)f;
}

static void
q8_0_blk(uint8_t *b, const float *x)
{
	float amax = 0, d, id;
	int j;

	for (j = 0; j < 32; j++)
		amax = fabsf(x[j]) > amax ? fabsf(x[j]) : amax;
	d = amax / 127;
	id = d ? 1.0f / d : 0.0f;
	f2h(b, d);
	for (j = 0; j < 32; j++)	/* roundf: half away from zero */
		b[2 + j] = (uint8_t)(int8_t)imax(-127, imin(127,
		    (int)roundf(x[j] * id)));
}

/* The signed value of largest magnitude, the first one if tied. */
static float
absmax(const float *x, int n)
{
	float amax = 0, max = 0;
	int j;

	for (j = 0; j < n; j++)
		if (amax < fabsf(x[j])) {
			amax = fabsf(x[j]);
			max = x[j];
		}
	return max;
}

static void
q4_0_blk(uint8_t *b, const float *x)
{
	float d = absmax(x, 32) / -8, id = d ? 1.0f / d : 0.0f;
	int j;

	f2h(b, d);
	for (j = 0; j < 16; j++)
		b[2 + j] = (uint8_t)(imin(15, trunc_to(x[j] * id + 8.5f, -128, 127)) |
		    imin(15, trunc_to(x[j + 16] * id + 8.5f, -128, 127)) << 4);
}

static void
minmax(const float *x, int n, float *mn, float *mx)
{
	int j;

	*mn = FLT_MAX;
	*mx = -FLT_MAX;
	for (j = 0; j < n; j++) {
		if (x[j] < *mn)
			*mn = x[j];
		if (x[j] > *mx)
			*mx = x[j];
	}
}

static void
q4_1_blk(uint8_t *b, const float *x)
{
	float mn, mx, d, id;
	int j;

	minmax(x, 32, &mn, &mx);
	d = (mx - mn) / 15;
	id = d ? 1.0f / d : 0.0f;
	f2h(b, d);
	f2h(b + 2, mn);
	for (j = 0; j < 16; j++)
		b[4 + j] = (uint8_t)(imin(15, trunc_to((x[j] - mn) * id + 0.5f,
		    -128, 127)) | imin(15, trunc_to((x[j + 16] - mn) * id + 0.5f,
		    -128, 127)) << 4);
}

static void
q5_0_blk(uint8_t *b, const float *x)
{
	float d = absmax(x, 32) / -16, id = d ? 1.0f / d : 0.0f;
	uint32_t qh = 0;
	int j, a, c;

	f2h(b, d);
	for (j = 0; j < 16; j++) {
		a = imin(31, trunc_to(x[j] * id + 16.5f, -128, 127)) & 31;
		c = imin(31, trunc_to(x[j + 16] * id + 16.5f, -128, 127)) & 31;
		b[6 + j] = (uint8_t)((a & 15) | (c & 15) << 4);
		qh |= (uint32_t)(a >> 4) << j | (uint32_t)(c >> 4) << (j + 16);
	}
	for (j = 0; j < 4; j++)
		b[2 + j] = (uint8_t)(qh >> 8 * j);
}

static void
q5_1_blk(uint8_t *b, const float *x)
{
	float mn, mx, d, id;
	uint32_t qh = 0;
	int j, a, c;

	minmax(x, 32, &mn, &mx);
	d = (mx - mn) / 31;
	id = d ? 1.0f / d : 0.0f;
	f2h(b, d);
	f2h(b + 2, mn);
	for (j = 0; j < 16; j++) {
		a = trunc_to((x[j] - mn) * id + 0.5f, 0, 31);
		c = trunc_to((x[j + 16] - mn) * id + 0.5f, 0, 31);
		b[8 + j] = (uint8_t)((a & 15) | (c & 15) << 4);
		qh |= (uint32_t)(a >> 4) << j | (uint32_t)(c >> 4) << (j + 16);
	}
	for (j = 0; j < 4; j++)
		b[4 + j] = (uint8_t)(qh >> 8 * j);
}

/* ggml's make_qkx2_quants: levels L[i] in [0, nmax] and a min for the
 * n weights x (weights w), the scale returned and -min in *mnout; the
 * grid of nstep + 1 scales from (nmax + rmin) / range by rdelta is
 * searched by weighted least squares, mad: absolute error. */
static float
qkx2(int n, int nmax, const float *x, const float *w, uint8_t *L,
    float *mnout, float rmin, float rdelta, int nstep, int mad)
{
	uint8_t La[32];
	float mn = x[0], mx = x[0], sw = w[0], sx = w[0] * x[0];
	float is, sc, best = 0, diff, sl, sl2, sxl, D, tsc, tmn, err;
	int i, s, l;

	for (i = 1; i < n; i++) {
		if (x[i] < mn)
			mn = x[i];
		if (x[i] > mx)
			mx = x[i];
		sw += w[i];
		sx += w[i] * x[i];
	}
	if (mn > 0)
		mn = 0;
	if (mx == mn) {
		memset(L, 0, (size_t)n);
		*mnout = -mn;
		return 0;
	}
	is = (float)nmax / (mx - mn);
	sc = 1 / is;
	for (i = 0; i < n; i++) {
		L[i] = (uint8_t)imax(0, imin(nmax, nearest(is * (x[i] - mn))));
		diff = sc * (float)L[i] + mn - x[i];
		diff = mad ? fabsf(diff) : diff * diff;
		best += w[i] * diff;
	}
	for (s = 0; s <= nstep; s++) {
		is = (rmin + rdelta * (float)s + (float)nmax) / (mx - mn);
		sl = sl2 = sxl = 0;
		for (i = 0; i < n; i++) {
			l = imax(0, imin(nmax, nearest(is * (x[i] - mn))));
			La[i] = (uint8_t)l;
			sl += w[i] * (float)l;
			sl2 += w[i] * (float)l * (float)l;
			sxl += w[i] * (float)l * x[i];
		}
		D = sw * sl2 - sl * sl;
		if (!(D > 0))
			continue;
		tsc = (sw * sxl - sx * sl) / D;
		tmn = (sl2 * sx - sl * sxl) / D;
		if (tmn > 0) {
			tmn = 0;
			tsc = sxl / sl2;
		}
		err = 0;
		for (i = 0; i < n; i++) {
			diff = tsc * (float)La[i] + tmn - x[i];
			diff = mad ? fabsf(diff) : diff * diff;
			err += w[i] * diff;
		}
		if (err < best) {
			memcpy(L, La, (size_t)n);
			best = err;
			sc = tsc;
			mn = tmn;
		}
	}
	*mnout = -mn;
	return sc;
}

static void
q2_k_blk(uint8_t *b, const float *x)
{
	uint8_t L[QK], *sc = b, *q = b + 16;
	float w[16], mins[16], scales[16], maxs = 0, maxm = 0, is, d, dm;
	int j, l, i;

	for (j = 0; j < 16; j++) {
		for (l = 0; l < 16; l++)
			w[l] = fabsf(x[16 * j + l]);
		scales[j] = qkx2(16, 3, x + 16 * j, w, L + 16 * j, &mins[j],
		    -0.5f, 0.1f, 15, 1);
		if (scales[j] > maxs)
			maxs = scales[j];
		if (mins[j] > maxm)
			maxm = mins[j];
	}
	memset(sc, 0, 16);
	if (maxs > 0) {
		is = 15.f / maxs;
		for (j = 0; j < 16; j++)
			sc[j] = (uint8_t)(nearest(is * scales[j]) & 15);
		f2h(b + 80, maxs / 15.f);
	} else
		f2h(b + 80, 0);
	if (maxm > 0) {
		is = 15.f / maxm;
		for (j = 0; j < 16; j++)
			sc[j] |= (uint8_t)(nearest(is * mins[j]) << 4);
		f2h(b + 82, maxm / 15.f);
	} else
		f2h(b + 82, 0);
	for (j = 0; j < 16; j++) {
		d = h2f(b + 80) * (float)(sc[j] & 15);
		if (!d)
			continue;
		dm = h2f(b + 82) * (float)(sc[j] >> 4);
		for (i = 0; i < 16; i++)
			L[16 * j + i] = (uint8_t)imax(0, imin(3,
			    nearest((x[16 * j + i] + dm) / d)));
	}
	for (j = 0; j < QK; j += 128)
		for (l = 0; l < 32; l++)
			q[j / 4 + l] = (uint8_t)(L[j + l] | L[j + l + 32] << 2 |
			    L[j + l + 64] << 4 | L[j + l + 96] << 6);
}

/* ggml's make_q3_quants with its rmse refinement: levels in
 * [-nmax, nmax) stored + nmax, the scale returned. */
static float
q3search(int n, int nmax, const float *x, int8_t *L)
{
	float max = absmax(x, n), is, slx = 0, sl2 = 0, w, s1, s2;
	int i, l, it, changed;

	if (fabsf(max) < EPS) {
		memset(L, 0, (size_t)n);
		return 0;
	}
	is = -(float)nmax / max;
	for (i = 0; i < n; i++) {
		l = imax(-nmax, imin(nmax - 1, nearest(is * x[i])));
		L[i] = (int8_t)l;
		w = x[i] * x[i];
		slx += w * x[i] * (float)l;
		sl2 += w * (float)l * (float)l;
	}
	for (it = 0; it < 5; it++) {
		changed = 0;
		for (i = 0; i < n; i++) {
			w = x[i] * x[i];
			s1 = slx - w * x[i] * (float)L[i];
			if (!(s1 > 0))
				continue;
			s2 = sl2 - w * (float)L[i] * (float)L[i];
			l = imax(-nmax, imin(nmax - 1, nearest(x[i] * s2 / s1)));
			if (l == L[i])
				continue;
			s1 += w * x[i] * (float)l;
			s2 += w * (float)l * (float)l;
			if (s2 > 0 && s1 * s1 * sl2 > slx * slx * s2) {
				L[i] = (int8_t)l;
				slx = s1;
				sl2 = s2;
				changed++;
			}
		}
		if (!changed)
			break;
	}
	for (i = 0; i < n; i++)
		L[i] = (int8_t)(L[i] + nmax);
	return sl2 > 0 ? slx / sl2 : 0;
}

static void
q3_k_blk(uint8_t *b, const float *x)
{
	int8_t L[QK];
	uint8_t *hm = b, *q = b + 32, *p = b + 96;
	float scales[16], maxs = 0, amax = 0, is, d;
	int s[16], j, l, i, m, hb;

	for (j = 0; j < 16; j++) {
		scales[j] = q3search(16, 4, x + 16 * j, L + 16 * j);
		if (fabsf(scales[j]) > amax) {
			amax = fabsf(scales[j]);
			maxs = scales[j];
		}
	}
	memset(p, 0, 12);
	if (maxs != 0) {
		is = -32.f / maxs;
		for (j = 0; j < 16; j++) {
			/* ggml narrows to int8_t before clamping */
			l = (int8_t)nearest(is * scales[j]);
			l = imax(-32, imin(31, l)) + 32;
			if (j < 8)
				p[j] = (uint8_t)(l & 15);
			else
				p[j - 8] |= (uint8_t)((l & 15) << 4);
			p[8 + j % 4] |= (uint8_t)((l >> 4) << 2 * (j / 4));
		}
		f2h(b + 108, 1 / is);
	} else
		f2h(b + 108, 0);
	q3_scales(s, p);
	for (j = 0; j < 16; j++) {
		d = h2f(b + 108) * (float)s[j];
		if (!d)
			continue;
		for (i = 0; i < 16; i++)
			L[16 * j + i] = (int8_t)(imax(-4, imin(3,
			    nearest(x[16 * j + i] / d))) + 4);
	}
	memset(hm, 0, 32);
	for (j = 0, m = 0, hb = 1; j < QK; j++) {
		if (L[j] > 3) {
			hm[m] |= (uint8_t)hb;
			L[j] -= 4;
		}
		if (++m == 32) {
			m = 0;
			hb <<= 1;
		}
	}
	for (j = 0; j < QK; j += 128)
		for (l = 0; l < 32; l++)
			q[j / 4 + l] = (uint8_t)(L[j + l] | L[j + l + 32] << 2 |
			    L[j + l + 64] << 4 | L[j + l + 96] << 6);
}

/* The scales and mins of q4_K and q5_K (nmax 15 or 31) into the block's
 * d, dmin and 12 bytes, and the levels L recomputed from them. */
static void
k45(uint8_t *b, const float *x, uint8_t *L, int nmax, float rmin,
    int nstep)
{
	float w[32], mins[8], scales[8], maxs = 0, maxm = 0, s2, av, iss,
	    ism, d, dm;
	uint8_t *p = b + 4;
	int j, l, ls, lm, sc, mn;

	for (j = 0; j < 8; j++) {
		s2 = 0;
		for (l = 0; l < 32; l++)
			s2 += x[32 * j + l] * x[32 * j + l];
		av = sqrtf(s2 / 32);
		for (l = 0; l < 32; l++)
			w[l] = av + fabsf(x[32 * j + l]);
		scales[j] = qkx2(32, nmax, x + 32 * j, w, L + 32 * j, &mins[j],
		    rmin, 0.1f, nstep, 0);
		if (scales[j] > maxs)
			maxs = scales[j];
		if (mins[j] > maxm)
			maxm = mins[j];
	}
	iss = maxs > 0 ? 63.f / maxs : 0.f;
	ism = maxm > 0 ? 63.f / maxm : 0.f;
	for (j = 0; j < 8; j++) {
		/* ggml narrows to uint8_t, then takes at most 63 */
		ls = imin(63, (uint8_t)nearest(iss * scales[j]));
		lm = imin(63, (uint8_t)nearest(ism * mins[j]));
		if (j < 4) {
			p[j] = (uint8_t)ls;
			p[j + 4] = (uint8_t)lm;
		} else {
			p[j + 4] = (uint8_t)((ls & 15) | (lm & 15) << 4);
			p[j - 4] |= (uint8_t)((ls >> 4) << 6);
			p[j] |= (uint8_t)((lm >> 4) << 6);
		}
	}
	f2h(b, maxs / 63.f);
	f2h(b + 2, maxm / 63.f);
	for (j = 0; j < 8; j++) {
		k4_scale(j, p, &sc, &mn);
		d = h2f(b) * (float)sc;
		if (!d)
			continue;
		dm = h2f(b + 2) * (float)mn;
		for (l = 0; l < 32; l++)
			L[32 * j + l] = (uint8_t)imax(0, imin(nmax,
			    nearest((x[32 * j + l] + dm) / d)));
	}
}

static void
q4_k_blk(uint8_t *b, const float *x)
{
	uint8_t L[QK], *q = b + 16;
	int j, l;

	k45(b, x, L, 15, -1.f, 20);
	for (j = 0; j < QK; j += 64, q += 32)
		for (l = 0; l < 32; l++)
			q[l] = (uint8_t)(L[j + l] | L[j + l + 32] << 4);
}

static void
q5_k_blk(uint8_t *b, const float *x)
{
	uint8_t L[QK], *qh = b + 16, *q = b + 48;
	int j, l, a, c, m1 = 1, m2 = 2;

	k45(b, x, L, 31, -0.5f, 15);
	memset(qh, 0, 32);
	for (j = 0; j < QK; j += 64, q += 32, m1 <<= 2, m2 <<= 2)
		for (l = 0; l < 32; l++) {
			a = L[j + l];
			c = L[j + l + 32];
			if (a > 15) {
				a -= 16;
				qh[l] |= (uint8_t)m1;
			}
			if (c > 15) {
				c -= 16;
				qh[l] |= (uint8_t)m2;
			}
			q[l] = (uint8_t)(a | c << 4);
		}
}

/* ggml's make_qx_quants with rmse_type 1 (weights x^2) and no
 * importance: levels in [-nmax, nmax) stored + nmax, 19 scales tried
 * around nmax / max. */
static float
qxsearch(int n, int nmax, const float *x, int8_t *L)
{
	float max = absmax(x, n), is, slx = 0, sl2 = 0, w, sc, best;
	int i, l, s;

	if (fabsf(max) < EPS) {
		memset(L, 0, (size_t)n);
		return 0;
	}
	is = -(float)nmax / max;
	for (i = 0; i < n; i++) {
		l = imax(-nmax, imin(nmax - 1, nearest(is * x[i])));
		L[i] = (int8_t)(l + nmax);
		w = x[i] * x[i];
		slx += w * x[i] * (float)l;
		sl2 += w * (float)l * (float)l;
	}
	sc = sl2 ? slx / sl2 : 0;
	best = sc * slx;
	for (s = -9; s <= 9; s++) {
		if (!s)
			continue;
		is = -((float)nmax + 0.1f * (float)s) / max;
		slx = sl2 = 0;
		for (i = 0; i < n; i++) {
			l = imax(-nmax, imin(nmax - 1, nearest(is * x[i])));
			w = x[i] * x[i];
			slx += w * x[i] * (float)l;
			sl2 += w * (float)l * (float)l;
		}
		if (sl2 > 0 && slx * slx > best * sl2) {
			for (i = 0; i < n; i++)
				L[i] = (int8_t)(nmax + imax(-nmax, imin(nmax - 1,
				    nearest(is * x[i]))));
			sc = slx / sl2;
			best = sc * slx;
		}
	}
	return sc;
}

static void
q6_k_blk(uint8_t *b, const float *x)
{
	int8_t L[QK], *sc = (int8_t *)(b + 192);
	uint8_t *ql = b, *qh = b + 128;
	float scales[16], maxs = 0, amax = 0, is, d;
	int j, l, i;

	for (j = 0; j < 16; j++) {
		scales[j] = qxsearch(16, 32, x + 16 * j, L + 16 * j);
		if (fabsf(scales[j]) > amax) {
			amax = fabsf(scales[j]);
			maxs = scales[j];
		}
	}
	if (amax < EPS) {
		memset(b, 0, 210);
		return;
	}
	is = -128.f / maxs;
	f2h(b + 208, 1 / is);
	for (j = 0; j < 16; j++)
		sc[j] = (int8_t)imin(127, nearest(is * scales[j]));
	for (j = 0; j < 16; j++) {
		d = h2f(b + 208) * (float)sc[j];
		if (!d)
			continue;
		for (i = 0; i < 16; i++)
			L[16 * j + i] = (int8_t)(imax(-32, imin(31,
			    nearest(x[16 * j + i] / d))) + 32);
	}
	for (j = 0; j < QK; j += 128, ql += 64, qh += 32)
		for (l = 0; l < 32; l++) {
			ql[l] = (uint8_t)((L[j + l] & 15) | (L[j + l + 64] & 15) << 4);
			ql[l + 32] = (uint8_t)((L[j + l + 32] & 15) |
			    (L[j + l + 96] & 15) << 4);
			qh[l] = (uint8_t)(L[j + l] >> 4 | (L[j + l + 32] >> 4) << 2 |
			    (L[j + l + 64] >> 4) << 4 | (L[j + l + 96] >> 4) << 6);
		}
}

/* ggml's best_index_int8: the nearest of the 16 sorted values. */
static int
iq4_index(float x)
{
	int lo = 0, hi = 15, mid;

	if (!(x > iq4v[0]))
		return 0;
	if (x >= iq4v[15])
		return 15;
	while (hi - lo > 1) {
		mid = (lo + hi) / 2;
		if (x < iq4v[mid])
			hi = mid;
		else
			lo = mid;
	}
	return x - iq4v[hi - 1] < iq4v[hi] - x ? hi - 1 : hi;
}

/* The scale of the 32 weights x (weights x^2): 15 scales tried around
 * max / -127, as quantize_row_iq4_nl_impl with ntry 7; L the levels
 * at the scale first tried. */
static float
iq4_scale(const float *x, uint8_t *L)
{
	float max = absmax(x, 32), d, id, sqx = 0, sq2 = 0, q, w, best;
	int j, t, l;

	if (fabsf(max) < EPS)
		return 0;
	d = -max / iq4v[0];
	id = 1 / d;
	for (j = 0; j < 32; j++) {
		l = iq4_index(id * x[j]);
		L[j] = (uint8_t)l;
		q = iq4v[l];
		w = x[j] * x[j];
		sqx += w * q * x[j];
		sq2 += w * q * q;
	}
	d = sq2 > 0 ? sqx / sq2 : 0;
	best = d * sqx;
	for (t = -7; t <= 7; t++) {
		id = ((float)t + iq4v[0]) / max;
		sqx = sq2 = 0;
		for (j = 0; j < 32; j++) {
			q = iq4v[iq4_index(id * x[j])];
			w = x[j] * x[j];
			sqx += w * q * x[j];
			sq2 += w * q * q;
		}
		if (sq2 > 0 && sqx * sqx > best * sq2) {
			d = sqx / sq2;
			best = d * sqx;
		}
	}
	return d;
}

static void
iq4_pack(uint8_t *q, const uint8_t *L, int n)
{
	int i, j;

	for (i = 0; i < n / 32; i++)
		for (j = 0; j < 16; j++)
			q[16 * i + j] = (uint8_t)(L[32 * i + j] |
			    L[32 * i + 16 + j] << 4);
}

static void
iq4_nl_blk(uint8_t *b, const float *x)
{
	uint8_t L[32] = { 0 };
	float d = iq4_scale(x, L), id;
	int j;

	f2h(b, d);
	id = d != 0 ? 1 / d : 0;
	for (j = 0; j < 32; j++)
		L[j] = (uint8_t)iq4_index(id * x[j]);
	iq4_pack(b + 2, L, 32);
}

static void
iq4_xs_blk(uint8_t *b, const float *x)
{
	uint8_t L[QK] = { 0 };
	float scales[8], maxs = 0, amax = 0, d, id, dl, idl;
	unsigned sh = 0;
	int ib, j, l;

	for (ib = 0; ib < 8; ib++) {
		scales[ib] = iq4_scale(x + 32 * ib, L + 32 * ib);
		if (fabsf(scales[ib]) > amax) {
			amax = fabsf(scales[ib]);
			maxs = scales[ib];
		}
	}
	d = -maxs / 32;
	f2h(b, d);
	id = d ? 1 / d : 0;
	memset(b + 4, 0, 4);
	for (ib = 0; ib < 8; ib++) {
		l = imax(-32, imin(31, nearest(id * scales[ib])));
		dl = d * (float)l;
		idl = dl ? 1 / dl : 0;
		for (j = 0; j < 32; j++)
			L[32 * ib + j] = (uint8_t)iq4_index(idl * x[32 * ib + j]);
		l += 32;
		b[4 + ib / 2] |= (uint8_t)((l & 15) << 4 * (ib % 2));
		sh |= (unsigned)(l >> 4) << 2 * ib;
	}
	b[2] = (uint8_t)sh;
	b[3] = (uint8_t)(sh >> 8);
	iq4_pack(b + 8, L, QK);
}

/* n floats of x into blocks of bs at dst: a partial last block padded
 * with zeros, a non-finite value quantized as 0. */
static void
quant(void (*blk)(uint8_t *, const float *), int bs, int bytes, void *dst,
    const float *x, int n)
{
	uint8_t *p = dst;
	float tmp[QK];
	int i, j, m;

	for (i = 0; i < n; i += bs, p += bytes) {
		m = n - i < bs ? n - i : bs;
		for (j = 0; j < m; j++)
			tmp[j] = isfinite(x[i + j]) ? x[i + j] : 0;
		for (; j < bs; j++)
			tmp[j] = 0;
		blk(p, tmp);
	}
}

void
conv_gq8_0_quant(void *dst, const float *x, int n)
{
	quant(q8_0_blk, 32, 34, dst, x, n);
}

void
conv_q4_0_quant(void *dst, const float *x, int n)
{
	quant(q4_0_blk, 32, 18, dst, x, n);
}

void
conv_q4_1_quant(void *dst, const float *x, int n)
{
	quant(q4_1_blk, 32, 20, dst, x, n);
}

void
conv_q5_0_quant(void *dst, const float *x, int n)
{
	quant(q5_0_blk, 32, 22, dst, x, n);
}

void
conv_q5_1_quant(void *dst, const float *x, int n)
{
	quant(q5_1_blk, 32, 24, dst, x, n);
}

void
conv_q2_k_quant(void *dst, const float *x, int n)
{
	quant(q2_k_blk, QK, 84, dst, x, n);
}

void
conv_q3_k_quant(void *dst, const float *x, int n)
{
	quant(q3_k_blk, QK, 110, dst, x, n);
}

void
conv_q4_k_quant(void *dst, const float *x, int n)
{
	quant(q4_k_blk, QK, 144, dst, x, n);
}

void
conv_q5_k_quant(void *dst, const float *x, int n)
{
	quant(q5_k_blk, QK, 176, dst, x, n);
}

void
conv_q6_k_quant(void *dst, const float *x, int n)
{
	quant(q6_k_blk, QK, 210, dst, x, n);
}

void
conv_iq4_nl_quant(void *dst, const float *x, int n)
{
	quant(iq4_nl_blk, 32, 18, dst, x, n);
}

void
conv_iq4_xs_quant(void *dst, const float *x, int n)
{
	quant(iq4_xs_blk, QK, 136, dst, x, n);
}
