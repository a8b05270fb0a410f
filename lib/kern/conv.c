/* conv.c: the scalar conversions of the weight types (conv.h). */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "kern/conv.h"

/* ---- scalar conversions ---- */

static uint32_t
f2u(float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof u);
	return u;
}

static float
u2f(uint32_t u)
{
	float f;

	memcpy(&f, &u, sizeof f);
	return f;
}

float
conv_bf16_to_f32(uint16_t h)
{
	return u2f((uint32_t)h << 16);
}

float
conv_f16_to_f32(uint16_t h)
{
	uint32_t sign = (uint32_t)(h & 0x8000) << 16;
	uint32_t e = h >> 10 & 0x1f, m = h & 0x3ff;
	float f;

	if (e == 0x1f)		/* inf, NaN (payload kept) */
		return u2f(sign | 0x7f800000 | m << 13);
	if (e)			/* normal: rebias 15 -> 127 */
		return u2f(sign | (e + 112) << 23 | m << 13);
	f = (float)m * 0x1p-24f;	/* zero or subnormal, exact */
	return sign ? -f : f;
}

uint16_t
conv_f32_to_bf16(float f)
{
	uint32_t u = f2u(f), h;

	if ((u & 0x7fffffff) > 0x7f800000) {	/* NaN: keep sign, payload */
		h = u >> 16;
		if (!(h & 0x7f))
			h |= 0x40;
		return (uint16_t)h;
	}
	u += 0x7fff + (u >> 16 & 1);	/* nearest even; may carry to inf */
	return (uint16_t)(u >> 16);
}

uint16_t
conv_f32_to_f16(float f)
{
	uint32_t u = f2u(f), sign = u >> 16 & 0x8000, e, mant, r, rem, half;
	int s;

	u &= 0x7fffffff;
	if (u > 0x7f800000) {			/* NaN: keep payload, quiet */
		r = u >> 13 & 0x3ff;
		return (uint16_t)(sign | 0x7c00 | (r ? r : 0x200));
	}
	if (u >= 0x477ff000)			/* >= 65520: inf */
		return (uint16_t)(sign | 0x7c00);
	e = u >> 23;
	mant = u & 0x7fffff;
	if (e >= 113) {				/* normal half */
		r = (e - 112) << 10 | mant >> 13;
		rem = mant & 0x1fff;
		if (rem > 0x1000 || (rem == 0x1000 && (r & 1)))
			r++;
		return (uint16_t)(sign | r);
	}
	if (e < 102)			/* below half the least subnormal */
		return (uint16_t)sign;
	/* subnormal half m * 2^-24 with m = M * 2^(e - 126) */
	mant |= 0x800000;
	s = 126 - (int)e;			/* 14..24 */
	r = mant >> s;
	rem = mant & ((1u << s) - 1);
	half = 1u << (s - 1);
	if (rem > half || (rem == half && (r & 1)))
		r++;			/* may become the least normal */
	return (uint16_t)(sign | r);
}

size_t
conv_q8_0_rowsize(int n)
{
	return CONV_Q8_0_NB(n) * (sizeof(float) + 32);
}

size_t
conv_q8_0_xsize(int n)
{
	return CONV_Q8_0_NB(n) * (sizeof(float) + 32 * sizeof(int16_t));
}

/* nearbyintf(v) under the default rounding (to nearest, ties to
 * even) for |v| < 2^22, NaN staying NaN: past 1.5 * 2^23 the float
 * spacing is 1, so the sum rounds v to an integer, and the difference
 * is exact.  libm's call an element was most of --quant q8_0's load. */
static inline float
rint22(float v)
{
	return v + 0x1.8p23f - 0x1.8p23f;
}

/* Per block of 32: d = max|x| / qmax, then q = nearest-even(x * (1 / d))
 * clamped to [-qmax, qmax] (NaN 0), as int8 or (wide) int16. */
static void
quant(void *dst, const float *x, int n, float qmax, int wide)
{
	size_t nb = CONV_Q8_0_NB(n), b;
	float *d = dst, amax, a, id, v;
	int8_t *q8 = (int8_t *)(d + nb);
	int16_t *q16 = (int16_t *)(d + nb);
	int i, m;

	for (b = 0; b < nb; b++) {
		m = (size_t)n > 32 * b ? n - 32 * (int)b : 0;
		m = m < 32 ? m : 32;
		amax = 0;
		for (i = 0; i < m; i++) {
			a = fabsf(x[32 * b + i]);
			if (a > amax)
				amax = a;
		}
		d[b] = amax / qmax;
		id = d[b] > 0 && d[b] < INFINITY ? 1.0f / d[b] : 0.0f;
		for (i = 0; i < 32; i++) {
			v = i < m ? rint22(x[32 * b + i] * id) : 0.0f;
			if (!(v >= -qmax))	/* also NaN */
				v = v < 0 ? -qmax : 0.0f;
			if (v > qmax)
				v = qmax;
			if (wide)
				q16[32 * b + i] = (int16_t)v;
			else
				q8[32 * b + i] = (int8_t)v;
		}
	}
}

void
conv_q8_0_quant(void *dst, const float *x, int n)
{
	quant(dst, x, n, 127.0f, 0);
}

void
conv_q8_0_quant_x(void *dst, const float *x, int n)
{
	quant(dst, x, n, 32767.0f, 1);
}

