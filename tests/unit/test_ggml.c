/* test_ggml.c: ggml's block types (conv.h, kern.h): each type's
 * dequantization against blocks built byte by byte and their values
 * worked out element by element (extreme and subnormal scales,
 * negative mins, random high bits); the quantizers' choices on known
 * blocks and their round-trip error; and the table in use: to_f32 in
 * the portable bits, matvec the table's F32 matvec of the dequantized
 * rows bit for bit and a double sum to float rounding, matmul the
 * matvec's bits for any T and row range. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/kern/ggml.h"
#include "../../lib/kern/kern.h"
#include "../../lib/base/util.h"
#include "test.h"

static uint64_t rs = 0x9e3779b97f4a7c15ull;

static uint32_t
ru32(void)
{
	rs ^= rs << 13, rs ^= rs >> 7, rs ^= rs << 17;
	return (uint32_t)(rs >> 32);
}

static float
rnd(void)
{
	return (float)(ru32() >> 8) / 16777216.0f * 2 - 1;
}

/* roughly normal, with a few outliers as real weights have */
static float
rweight(void)
{
	float s = rnd() + rnd() + rnd();

	return (ru32() % 97 == 0) ? s * 6 : s;
}

static const int8_t kv[16] = {
	-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113
};

static const uint16_t scales16[] = {
	0x3800,		/* 0.5 */
	0x7bff,		/* 65504, the largest half */
	0x0001,		/* 2^-24, the smallest subnormal */
	0xb555,		/* negative */
	0x0000,		/* zero */
	0x2e66,		/* 0.1 */
};
#define NSC (sizeof scales16 / sizeof scales16[0])

static float
h(uint16_t v)
{
	return conv_f16_to_f32(v);
}

static void
put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void
randbytes(uint8_t *p, int n)
{
	int i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)ru32();
}

static int
sameb(const float *a, const float *b, size_t n)
{
	return !memcmp(a, b, n * sizeof *a);
}

/* y (n weights of type t from blk, portable) equals want, bit for bit;
 * and the table's to_f32 gives the same. */
static void
check_block(enum wtype t, const uint8_t *blk, const float *want, int n,
    const char *what, int i)
{
	float y[256], z[256];
	int k;

	kern_portable.to_f32[t](y, blk, (size_t)n);
	kern.to_f32[t](z, blk, (size_t)n);
	for (k = 0; k < n; k++)
		if (memcmp(&y[k], &want[k], sizeof(float))) {
			test_fail(__FILE__, __LINE__, "%s block %d weight %d: %.9g, "
			    "expected %.9g", what, i, k, y[k], want[k]);
			break;
		}
	CHECKF(sameb(y, z, (size_t)n), "%s block %d: table's to_f32 differs",
	    what, i);
}

/* ---- dequantization, element by element ---- */

static void
test_deq_small(void)
{
	uint8_t b[34];
	float want[32], d, m;
	uint32_t qh;
	int i, e, nib, hb;

	for (i = 0; i < 24; i++) {
		uint16_t sd = scales16[i % NSC], sm = scales16[(i / NSC + 3) % NSC];

		/* ggml Q8_0: d, int8 */
		randbytes(b, 34);
		put16(b, sd);
		if (i == 1)
			for (e = 0; e < 32; e++)
				b[2 + e] = (uint8_t)(e & 1 ? 0x80 : 0x7f);	/* -128, 127 */
		d = h(sd);
		for (e = 0; e < 32; e++)
			want[e] = (float)(int8_t)b[2 + e] * d;
		check_block(W_GQ8_0, b, want, 32, "q8_0-ggml", i);

		/* Q4_0: element e < 16 the low nibble of byte e, else the high
		 * one of byte e - 16 */
		randbytes(b, 18);
		put16(b, sd);
		for (e = 0; e < 32; e++) {
			nib = e < 16 ? b[2 + e] & 15 : b[2 + e - 16] >> 4;
			want[e] = (float)(nib - 8) * d;
		}
		check_block(W_Q4_0, b, want, 32, "q4_0", i);

		/* Q4_1: d, m (negative mins among them) */
		randbytes(b, 20);
		put16(b, sd);
		put16(b + 2, sm);
		m = h(sm);
		for (e = 0; e < 32; e++) {
			nib = e < 16 ? b[4 + e] & 15 : b[4 + e - 16] >> 4;
			want[e] = (float)nib * d + m;
		}
		check_block(W_Q4_1, b, want, 32, "q4_1", i);

		/* Q5_0: bit e of qh is element e's fifth bit; every pattern
		 * of the high bits over the blocks (all set, none, random) */
		randbytes(b, 22);
		put16(b, sd);
		qh = i == 0 ? 0xffffffffu : i == 1 ? 0 : ru32();
		memcpy(b + 2, (uint8_t[4]){ (uint8_t)qh, (uint8_t)(qh >> 8),
		    (uint8_t)(qh >> 16), (uint8_t)(qh >> 24) }, 4);
		for (e = 0; e < 32; e++) {
			nib = e < 16 ? b[6 + e] & 15 : b[6 + e - 16] >> 4;
			hb = qh >> e & 1;
			want[e] = (float)(nib + 16 * hb - 16) * d;
		}
		check_block(W_Q5_0, b, want, 32, "q5_0", i);

		/* Q5_1 */
		randbytes(b, 24);
		put16(b, sd);
		put16(b + 2, sm);
		qh = i == 0 ? 0xffffffffu : i == 1 ? 0 : ru32();
		memcpy(b + 4, (uint8_t[4]){ (uint8_t)qh, (uint8_t)(qh >> 8),
		    (uint8_t)(qh >> 16), (uint8_t)(qh >> 24) }, 4);
		for (e = 0; e < 32; e++) {
			nib = e < 16 ? b[8 + e] & 15 : b[8 + e - 16] >> 4;
			want[e] = (float)(nib + 16 * (int)(qh >> e & 1)) * d + m;
		}
		check_block(W_Q5_1, b, want, 32, "q5_1", i);

		/* IQ4_NL: the non-linear table */
		randbytes(b, 18);
		put16(b, sd);
		for (e = 0; e < 32; e++) {
			nib = e < 16 ? b[2 + e] & 15 : b[2 + e - 16] >> 4;
			want[e] = d * (float)kv[nib];
		}
		check_block(W_IQ4_NL, b, want, 32, "iq4_nl", i);
	}
	/* a few values by hand: 0.5 * -128, 65504 * 127 (exact in float),
	 * 2^-24 * -3 (a subnormal half times an integer) */
	put16(b, 0x3800);
	b[2] = 0x80;
	kern.to_f32[W_GQ8_0](want, b, 32);
	CHECK(want[0] == -64.0f);
	put16(b, 0x7bff);
	b[2] = 127;
	kern.to_f32[W_GQ8_0](want, b, 32);
	CHECK(want[0] == 8319008.0f);
	put16(b, 0x0001);
	b[2] = (uint8_t)-3;
	kern.to_f32[W_GQ8_0](want, b, 32);
	CHECK(want[0] == -3 * 0x1p-24f);
	/* a partial block: the first weights only, nothing written past */
	memset(want, 0x55, sizeof want);
	put16(b, 0x3c00);
	b[2] = 5, b[3] = 6;
	kern.to_f32[W_GQ8_0](want, b, 2);
	CHECK(want[0] == 5 && want[1] == 6);
	CHECK(((uint32_t *)want)[2] == 0x55555555u);
}

/* 6-bit scales and mins of q4_K / q5_K packed into 12 bytes as ggml's
 * quantizer writes them (not as the reader reads them). */
static void
pack_k4(uint8_t *p, const int *sc, const int *mn)
{
	int j;

	memset(p, 0, 12);
	for (j = 0; j < 8; j++)
		if (j < 4) {
			p[j] = (uint8_t)sc[j];
			p[j + 4] = (uint8_t)mn[j];
		} else {
			p[j + 4] = (uint8_t)((sc[j] & 15) | (mn[j] & 15) << 4);
			p[j - 4] |= (uint8_t)((sc[j] >> 4) << 6);
			p[j] |= (uint8_t)((mn[j] >> 4) << 6);
		}
}

/* 16 6-bit scales of q3_K into 12 bytes, as ggml's quantizer. */
static void
pack_q3(uint8_t *p, const int *s)
{
	int j;

	memset(p, 0, 12);
	for (j = 0; j < 16; j++) {
		if (j < 8)
			p[j] |= (uint8_t)(s[j] & 15);
		else
			p[j - 8] |= (uint8_t)((s[j] & 15) << 4);
		p[8 + j % 4] |= (uint8_t)((s[j] >> 4) << 2 * (j / 4));
	}
}

static void
test_deq_k(void)
{
	uint8_t b[210];
	float want[256], d, dm;
	int i, e, g, sc[16], mn[16], q, hb, hh, r, l, j, s;

	for (i = 0; i < 24; i++) {
		uint16_t sd = scales16[i % NSC], sm = scales16[(i / NSC + 3) % NSC];

		d = h(sd);
		dm = h(sm);
		for (g = 0; g < 16; g++) {	/* 0, 63 and all between */
			sc[g] = i == 0 ? 63 : i == 1 ? 0 : (int)(ru32() % 64);
			mn[g] = i == 0 ? 63 : i == 1 ? 0 : (int)(ru32() % 64);
		}

		/* Q4_K: group g = e / 32 of 32, byte (g / 2) 32 + e % 32,
		 * the low nibble for even g */
		randbytes(b, 144);
		put16(b, sd);
		put16(b + 2, sm);
		pack_k4(b + 4, sc, mn);
		for (e = 0; e < 256; e++) {
			g = e / 32;
			q = b[16 + g / 2 * 32 + e % 32] >> (g & 1 ? 4 : 0) & 15;
			want[e] = d * (float)sc[g] * (float)q - dm * (float)mn[g];
		}
		check_block(W_Q4_K, b, want, 256, "q4_K", i);

		/* Q5_K: the fifth bit of element e is bit g of qh[e % 32] */
		randbytes(b, 176);
		put16(b, sd);
		put16(b + 2, sm);
		pack_k4(b + 4, sc, mn);
		if (i < 2)
			memset(b + 16, i ? 0 : 0xff, 32);
		for (e = 0; e < 256; e++) {
			g = e / 32;
			q = b[48 + g / 2 * 32 + e % 32] >> (g & 1 ? 4 : 0) & 15;
			hb = b[16 + e % 32] >> g & 1;
			want[e] = d * (float)sc[g] * (float)(q + 16 * hb) -
			    dm * (float)mn[g];
		}
		check_block(W_Q5_K, b, want, 256, "q5_K", i);

		/* Q6_K: half hh = e / 128; in it, quarter j = r / 32 of
		 * r = e % 128, l = r % 32: low nibble of ql[64 hh + 32 (j & 1)
		 * + l] (high nibble for j >= 2), two high bits 2j of
		 * qh[32 hh + l], scale 8 hh + 2j + l / 16 */
		randbytes(b, 210);
		put16(b + 208, sd);
		if (i < 2)
			memset(b + 128, i ? 0 : 0xff, 64);
		if (i == 2)
			for (g = 0; g < 16; g++)
				b[192 + g] = (uint8_t)(g & 1 ? 127 : -128);
		for (e = 0; e < 256; e++) {
			hh = e / 128, r = e % 128, j = r / 32, l = r % 32;
			q = b[64 * hh + 32 * (j & 1) + l] >> (j >= 2 ? 4 : 0) & 15;
			q |= (b[128 + 32 * hh + l] >> 2 * j & 3) << 4;
			s = (int8_t)b[192 + 8 * hh + 2 * j + l / 16];
			want[e] = d * (float)s * (float)(q - 32);
		}
		check_block(W_Q6_K, b, want, 256, "q6_K", i);

		/* Q2_K: scales[16] (low nibble scale, high min), qs[64], d,
		 * dmin; element e: 2 bits 2j of qs[32 hh + l], scale
		 * 8 hh + 2j + l / 16 */
		randbytes(b, 84);
		put16(b + 80, sd);
		put16(b + 82, sm);
		for (e = 0; e < 256; e++) {
			hh = e / 128, r = e % 128, j = r / 32, l = r % 32;
			q = b[16 + 32 * hh + l] >> 2 * j & 3;
			s = b[8 * hh + 2 * j + l / 16];
			want[e] = d * (float)(s & 15) * (float)q -
			    dm * (float)(s >> 4);
		}
		check_block(W_Q2_K, b, want, 256, "q2_K", i);

		/* Q3_K: hmask[32], qs[64], scales[12], d; element e's high
		 * bit is bit 4 hh + j of hmask[l], 4 subtracted where clear */
		randbytes(b, 110);
		put16(b + 108, sd);
		pack_q3(b + 96, sc);
		if (i < 2)
			memset(b, i ? 0 : 0xff, 32);
		for (e = 0; e < 256; e++) {
			hh = e / 128, r = e % 128, j = r / 32, l = r % 32;
			q = b[32 + 32 * hh + l] >> 2 * j & 3;
			hb = b[l] >> (4 * hh + j) & 1;
			s = sc[8 * hh + 2 * j + l / 16] - 32;
			want[e] = d * (float)s * (float)(q - (hb ? 0 : 4));
		}
		check_block(W_Q3_K, b, want, 256, "q3_K", i);

		/* IQ4_XS: d, scales_h, scales_l[4], qs[128]; sub-block
		 * ib = e / 32 of scale sc[ib] - 32 */
		randbytes(b, 136);
		put16(b, sd);
		memset(b + 2, 0, 6);
		for (g = 0; g < 8; g++) {
			b[4 + g / 2] |= (uint8_t)((sc[g] & 15) << 4 * (g % 2));
			hb = (b[2] | b[3] << 8) | (sc[g] >> 4) << 2 * g;
			b[2] = (uint8_t)hb;
			b[3] = (uint8_t)(hb >> 8);
		}
		for (e = 0; e < 256; e++) {
			g = e / 32, l = e % 32;
			q = l < 16 ? b[8 + 16 * g + l] & 15 :
			    b[8 + 16 * g + l - 16] >> 4;
			want[e] = d * (float)(sc[g] - 32) * (float)kv[q];
		}
		check_block(W_IQ4_XS, b, want, 256, "iq4_xs", i);
	}
}

/* ---- quantizers ---- */

static void
test_quant_known(void)
{
	float x[256], y[256];
	uint8_t b[256];
	int j;

	/* Q4_0 of x = j - 16: the largest magnitude -16 gives d = 2,
	 * q = trunc(x / 2 + 8.5) capped at 15 */
	for (j = 0; j < 32; j++)
		x[j] = (float)(j - 16);
	conv_q4_0_quant(b, x, 32);
	CHECK(b[0] == 0x00 && b[1] == 0x40);	/* 2.0 */
	CHECK(b[2] == 0x80);	/* q0 = 0, q16 = 8 */
	CHECK(b[17] == 0xf8);	/* q15 = 8, q31 = 15 (16 capped) */
	/* ggml Q8_0: d = 127 / 127, q = round(x) */
	for (j = 0; j < 32; j++)
		x[j] = (float)(j * 8 - 124) / 1.0f;
	x[31] = 127;
	conv_gq8_0_quant(b, x, 32);
	kern_portable.to_f32[W_GQ8_0](y, b, 32);
	for (j = 0; j < 32; j++)
		CHECKF(y[j] == x[j], "q8_0-ggml %d: %g, expected %g", j, y[j],
		    x[j]);
	/* a zero block: zeros back, and from the K-quants too */
	memset(x, 0, sizeof x);
	conv_q6_k_quant(b, x, 256);
	kern_portable.to_f32[W_Q6_K](y, b, 256);
	for (j = 0; j < 256; j++)
		CHECK(y[j] == 0);
	conv_q4_k_quant(b, x, 256);
	kern_portable.to_f32[W_Q4_K](y, b, 256);
	for (j = 0; j < 256; j++)
		CHECK(y[j] == 0);
	/* non-finite values quantize as 0, the rest as without them */
	for (j = 0; j < 32; j++)
		x[j] = (float)j;
	x[3] = NAN;
	x[4] = INFINITY;
	conv_q4_1_quant(b, x, 32);
	kern_portable.to_f32[W_Q4_1](y, b, 32);
	CHECK(isfinite(y[3]) && isfinite(y[4]) && fabsf(y[3]) < 1.5f);
}

/* The RMS error of quantize -> dequantize relative to the RMS of the
 * weights, for each type: about what ggml's types give (the bits per
 * weight), so that a wrong scale choice or packing shows. */
static void
test_roundtrip(void)
{
	static const struct { enum wtype t; double bound; } tb[] = {
		{ W_GQ8_0, 0.01 }, { W_Q4_0, 0.12 }, { W_Q4_1, 0.10 },
		{ W_Q5_0, 0.06 }, { W_Q5_1, 0.05 }, { W_Q2_K, 0.45 },
		{ W_Q3_K, 0.22 }, { W_Q4_K, 0.10 }, { W_Q5_K, 0.05 },
		{ W_Q6_K, 0.025 }, { W_IQ4_NL, 0.10 }, { W_IQ4_XS, 0.10 },
	};
	enum { N = 2048 };
	static float x[N], y[N];
	static uint8_t b[N * 2];
	double e2, x2, amx, err;
	size_t i;
	int k, j, bs;

	for (i = 0; i < N; i++)
		x[i] = rweight() * 0.02f;
	for (k = 0; k < (int)(sizeof tb / sizeof tb[0]); k++) {
		enum wtype t = tb[k].t;

		wtypes[t].from_f32(b, x, N);
		kern_portable.to_f32[t](y, b, N);
		e2 = x2 = 0;
		for (i = 0; i < N; i++) {
			e2 += (double)(y[i] - x[i]) * (y[i] - x[i]);
			x2 += (double)x[i] * x[i];
		}
		CHECKF(sqrt(e2 / x2) < tb[k].bound, "%s: relative rms error "
		    "%.4f, bound %.4f", wtypes[t].name, sqrt(e2 / x2),
		    tb[k].bound);
		/* and no weight further than its block's largest can be */
		bs = wtypes[t].block;
		for (i = 0; i < N; i += (size_t)bs) {
			amx = 0;
			for (j = 0; j < bs; j++)
				amx = fmax(amx, fabs(x[i + j]));
			for (j = 0; j < bs; j++) {
				err = fabs(y[i + j] - x[i + j]);
				CHECKF(err <= amx * (t == W_Q2_K ? 1.0 : 0.6),
				    "%s weight %zu: error %g, block max %g",
				    wtypes[t].name, i + j, err, amx);
			}
		}
	}
	/* rows not a multiple of the block: padded with zeros */
	conv_q4_k_quant(b, x, 300);
	kern_portable.to_f32[W_Q4_K](y, b, 512);
	for (i = 300; i < 512; i++)
		CHECK(fabsf(y[i]) < 1e-3f);
}

/* ---- kernels ---- */

static const enum wtype gtypes[] = {
	W_GQ8_0, W_Q4_0, W_Q4_1, W_Q5_0, W_Q5_1, W_Q2_K, W_Q3_K, W_Q4_K,
	W_Q5_K, W_Q6_K, W_IQ4_NL, W_IQ4_XS,
};
#define NG (sizeof gtypes / sizeof gtypes[0])

/* One type: R rows of n, matvec and matmul against the references. */
static void
kern_case(enum wtype t, int R, int n)
{
	size_t rb = wtype_rowsize(t, n);
	uint8_t *w = emalloc(rb * R);
	float *wf = emalloc((size_t)R * n * sizeof(float)), *row, *x, *o,
	    *o1, *ref, *f32;
	int r, k, T, tt, r0, r1;

	row = emalloc((size_t)n * sizeof(float));
	x = emalloc((size_t)17 * n * sizeof(float));
	o = emalloc((size_t)17 * R * sizeof(float));
	o1 = emalloc((size_t)17 * R * sizeof(float));
	ref = emalloc((size_t)R * sizeof(float));
	f32 = emalloc((size_t)R * sizeof(float));
	for (r = 0; r < R; r++) {
		for (k = 0; k < n; k++)
			row[k] = rweight();
		wtypes[t].from_f32(w + r * rb, row, n);
		kern_portable.to_f32[t](wf + (size_t)r * n, w + r * rb,
		    (size_t)n);
		kern.to_f32[t](row, w + r * rb, (size_t)n);
		CHECKF(sameb(row, wf + (size_t)r * n, (size_t)n),
		    "%s n %d: to_f32 not the portable bits", wtypes[t].name, n);
	}
	for (k = 0; k < 17 * n; k++)
		x[k] = rnd();
	/* decode: the table's F32 matvec of the dequantized rows, bit for
	 * bit, and a double sum to float rounding; the portable table's
	 * to float rounding */
	kern.matvec[t](o, w, x, n, 0, R);
	kern.matvec[W_F32](f32, wf, x, n, 0, R);
	kern_portable.matvec[t](ref, w, x, n, 0, R);
	for (r = 0; r < R; r++) {
		double s = 0, a = 0;

		for (k = 0; k < n; k++) {
			s += (double)wf[(size_t)r * n + k] * x[k];
			a += fabs((double)wf[(size_t)r * n + k] * x[k]);
		}
		/* the factored decode (kern.h, mvdiff: the K types, the
		 * 32-weight blocks) sums the blocks' integers and applies
		 * the scales per block or sub-block:
		 * the same sum in another order, so within float32 rounding
		 * of the products' magnitudes, not the F32 matvec's bits */
		if (wtypes[t].mvdiff)
			CHECKF(fabs(o[r] - f32[r]) <= 2e-6 * a + 1e-30, "%s n %d "
			    "row %d: matvec %.9g, F32 matvec %.9g", wtypes[t].name,
			    n, r, o[r], f32[r]);
		else
			CHECKF(!memcmp(&o[r], &f32[r], sizeof(float)), "%s n %d "
			    "row %d: matvec %.9g, F32 matvec %.9g", wtypes[t].name,
			    n, r, o[r], f32[r]);
		CHECKF(fabs(o[r] - s) <= 1e-6 * a + 1e-30, "%s n %d row %d: "
		    "%.9g, double %.9g", wtypes[t].name, n, r, o[r], s);
		CHECKF(fabs(o[r] - ref[r]) <= 1e-6 * a + 1e-30, "%s n %d row %d: "
		    "%.9g, portable %.9g", wtypes[t].name, n, r, o[r], ref[r]);
	}
	/* decode over split row ranges (other groupings of the rows): the
	 * same bits, as the threads need */
	kern.matvec[t](o1, w, x, n, 0, 2);
	kern.matvec[t](o1, w, x, n, 2, R);
	for (r = 0; r < R; r++)
		CHECKF(!memcmp(&o[r], &o1[r], sizeof(float)), "%s n %d row %d: "
		    "matvec split %.9g, whole %.9g", wtypes[t].name, n, r, o1[r],
		    o[r]);
	/* prefill: every T, whole and split row ranges, the matvec's bits
	 * (mvdiff: its sum to float32 rounding) */
	for (T = 1; T <= 17; T++) {
		r0 = T % 3 == 0 ? 1 : 0;
		r1 = T % 5 == 0 ? R - 1 : R;
		memset(o, 0, (size_t)17 * R * sizeof(float));
		kern.matmul[t](o, R, w, x, n, n, T, r0, r1);
		for (tt = 0; tt < T; tt++) {
			const float *xt = x + (size_t)tt * n;

			kern.matvec[t](o1, w, xt, n, 0, R);
			for (r = r0; r < r1; r++) {
				double a = 0;

				for (k = 0; wtypes[t].mvdiff && k < n; k++)
					a += fabs((double)wf[(size_t)r * n + k] *
					    xt[k]);
				CHECKF(wtypes[t].mvdiff ? fabs(o[(size_t)tt * R +
				    r] - o1[r]) <= 2e-6 * a + 1e-30 :
				    !memcmp(&o[(size_t)tt * R + r], &o1[r],
				    sizeof(float)), "%s n %d T %d: token %d row %d: "
				    "matmul %.9g, matvec %.9g", wtypes[t].name, n, T,
				    tt, r, o[(size_t)tt * R + r], o1[r]);
			}
		}
	}
	free(w), free(wf), free(row), free(x), free(o), free(o1), free(ref);
	free(f32);
}

/* A NaN or an infinity among the activations: every row's decode not
 * finite, as the F32 matvec's (the factored decode may give NaN where
 * it gives an infinity: the offset's sum of x meets the infinity too). */
static void
test_nonfinite(void)
{
	enum { R = 5, N = 32 * 9 };
	static float x[N], row[N], o[R];
	static uint8_t w[R * N * 2];
	size_t i, rb;
	int r, k, bad;

	for (i = 0; i < NG; i++) {
		rb = wtype_rowsize(gtypes[i], N);
		for (r = 0; r < R; r++) {
			for (k = 0; k < N; k++)
				row[k] = rweight();
			wtypes[gtypes[i]].from_f32(w + r * rb, row, N);
		}
		for (bad = 0; bad < 2; bad++) {
			for (k = 0; k < N; k++)
				x[k] = rnd();
			x[37 + 100 * bad] = bad ? INFINITY : NAN;
			kern.matvec[gtypes[i]](o, w, x, N, 0, R);
			for (r = 0; r < R; r++)
				CHECKF(!isfinite(o[r]), "%s row %d: x with %s, "
				    "matvec %g", wtypes[gtypes[i]].name, r,
				    bad ? "inf" : "NaN", o[r]);
		}
	}
}

static void
test_kernels(void)
{
	size_t i;
	int nb;

	for (i = 0; i < NG; i++)
		for (nb = 1; nb <= 3; nb++)
			kern_case(gtypes[i], 9, nb * wtypes[gtypes[i]].block);
	/* 32-weight blocks in rows of odd block counts and lengths that
	 * are not a multiple of 8 blocks; rows too long for a panel (the
	 * matvec fallback) */
	kern_case(W_Q4_0, 5, 32 * 7);
	kern_case(W_Q5_0, 6, 32 * 37);
	kern_case(W_Q4_K, 3, KERN_Q4_PANEL / 4 + 256);
	/* the longest rows of the factored decode (kern.h) */
	kern_case(W_Q2_K, 6, KERN_KQ_MAXN);
	kern_case(W_Q4_K, 6, KERN_KQ_MAXN);
	kern_case(W_Q5_K, 6, KERN_KQ_MAXN);
	kern_case(W_Q6_K, 6, KERN_KQ_MAXN);
	/* rows that end in a partial block (not in GGUF files, but the
	 * kernels take them): the decode's buffered tail */
	for (i = 0; i < NG; i++)
		kern_case(gtypes[i], 5, wtypes[gtypes[i]].block + 7 +
		    (int)i * 3);
}

static void
test_table(void)
{
	size_t i;
	const struct ggml_type_info *g;
	uint32_t k;

	for (i = 0; i < NG; i++) {
		CHECKF(kern.matvec[gtypes[i]] && kern.matmul[gtypes[i]] &&
		    kern.to_f32[gtypes[i]], "%s: no kernels",
		    wtypes[gtypes[i]].name);
		CHECK(wtypes[gtypes[i]].store == gtypes[i]);
	}
	/* ggml's table names a wtype of its own block size for each */
	for (k = 0; k < GGML_NTYPES; k++) {
		if (!(g = ggml_type(k)) || g->wtype < 0)
			continue;
		EQ(wtypes[g->wtype].block, g->block);
		EQ(wtypes[g->wtype].bytes, g->bytes);
	}
	EQ(ggml_type(GGML_Q4_K)->wtype, W_Q4_K);
	EQ(ggml_type(GGML_Q8_0)->wtype, W_GQ8_0);
	EQ(ggml_type(GGML_IQ4_XS)->wtype, W_IQ4_XS);
}

int
main(void)
{
	argv0 = "test_ggml";
	test_kern_init();
	test_table();
	test_deq_small();
	test_deq_k();
	test_quant_known();
	test_roundtrip();
	test_kernels();
	test_nonfinite();
	return test_end("test_ggml");
}
