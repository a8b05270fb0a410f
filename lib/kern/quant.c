/* quant.c: the 4-bit round-to-nearest quantizer (quant.h). */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kern/conv.h"
#include "kern/quant.h"
#include "base/util.h"

/* ---- the quantizer ---- */

/* f rounded to the scale type st, widened again. */
static float
round_to(float f, enum wtype st)
{
	switch (st) {
	case W_BF16: return conv_bf16_to_f32(conv_f32_to_bf16(f));
	case W_F16:  return conv_f16_to_f32(conv_f32_to_f16(f));
	default:     return f;
	}
}

float
quant_group(uint32_t *qw, int j0, int *zn, const float *x, int n, int sym,
    enum wtype st)
{
	float lo = 0, hi = 0, s, z = 0, v;
	int i;

	for (i = 0; i < n; i++) {
		if (x[i] < lo)
			lo = x[i];
		if (x[i] > hi)
			hi = x[i];
	}
	if (sym)
		s = (-lo > hi ? -lo : hi) / 7.5f;
	else
		s = (hi - lo) / 15.0f;
	if (!(s >= FLT_EPSILON))	/* also NaN */
		s = FLT_EPSILON;
	s = round_to(s, st);
	if (!sym) {
		z = nearbyintf(-8.0f - lo / s);
		z = z < -8 ? -8 : z > 7 ? 7 : z;
	}
	for (i = 0; i < n; i++) {
		v = nearbyintf(x[i] / s + z);
		if (!(v >= -8))		/* also NaN */
			v = v < 0 ? -8 : 0;
		if (v > 7)
			v = 7;
		qw[(j0 + i) / 8] |= (uint32_t)(v + 8) << 4 * ((j0 + i) % 8);
	}
	*zn = (int)z + 8;
	return s;
}

void
quant_row(uint32_t *qw, void *s, uint32_t *zw, int r, const float *x,
    int cols, int group, enum wtype st)
{
	int g, j, n, zn;
	float sc;

	memset(qw, 0, ((size_t)cols + 7) / 8 * 4);
	for (g = 0, j = 0; j < cols; g++, j += group) {
		n = cols - j < group ? cols - j : group;
		sc = quant_group(qw, j, &zn, x + j, n, zw == NULL, st);
		switch (st) {
		case W_BF16: ((uint16_t *)s)[g] = conv_f32_to_bf16(sc); break;
		case W_F16:  ((uint16_t *)s)[g] = conv_f32_to_f16(sc); break;
		default:     ((float *)s)[g] = sc; break;
		}
		if (zw)
			zw[g] |= (uint32_t)zn << 4 * (r % 8);
	}
}

