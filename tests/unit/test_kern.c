/* test_kern: the kernel table chosen by $PIPELM_KERNEL against double
 * precision references and against the portable table, bit-identity
 * of matvec/matmul over row splits and token blocks, the helpers, and
 * the scalar conversions over all 16-bit patterns. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/kern/kern.h"
#include "../../lib/base/util.h"
#include "test.h"
#include "prepared.h"



/* ---- random numbers (xorshift64*) ---- */

static uint64_t rs = 0x9e3779b97f4a7c15ull;

static uint32_t
rnd(void)
{
	rs ^= rs >> 12;
	rs ^= rs << 25;
	rs ^= rs >> 27;
	return (uint32_t)((rs * 0x2545f4914f6cdd1dull) >> 32);
}

/* Uniform in [-1, 1). */
static float
frand(void)
{
	return (float)((double)rnd() / 2147483648.0 - 1.0);
}


/* A random rows x n weight matrix of type t (owned by the caller)
 * and its exact float values. */
static void *
randw(enum wtype t, int rows, int n, float *wf)
{
	size_t i, cnt = (size_t)rows * n;
	void *w = emalloc(cnt * wtype_rowsize(t, 1));
	float f;

	for (i = 0; i < cnt; i++) {
		f = frand();
		if (t == W_F32) {
			((float *)w)[i] = f;
			wf[i] = f;
		} else if (t == W_F16) {
			((uint16_t *)w)[i] = conv_f32_to_f16(f);
			wf[i] = conv_f16_to_f32(((uint16_t *)w)[i]);
		} else {
			((uint16_t *)w)[i] = conv_f32_to_bf16(f);
			wf[i] = conv_bf16_to_f32(((uint16_t *)w)[i]);
		}
	}
	return w;
}

/* |got - ref| within rel of the scale. */
static int
near(double got, double ref, double scale, double rel)
{
	return fabs(got - ref) <= rel * scale + 1e-30;
}

/* ---- matvec / matmul ---- */

static const int sizes[] = { 1, 7, 8, 15, 16, 17, 33, 64, 576, 4097 };

static void
test_matvec(enum wtype t, int n, int rows)
{
	float *wf = emalloc(sizeof(float) * rows * n), *x, *out, *ref, *out2;
	void *w = randw(t, rows, n, wf);
	double s, a;
	int r, i, r0, step;

	x = emalloc(sizeof(float) * n);
	out = emalloc(sizeof(float) * (rows + 2));
	out2 = emalloc(sizeof(float) * (rows + 2));
	ref = emalloc(sizeof(float) * rows);
	for (i = 0; i < n; i++)
		x[i] = frand();
	for (r = 0; r < rows + 2; r++)
		out[r] = out2[r] = -7.0f;
	kern.matvec[t](out + 1, w, x, n, 0, rows);
	kern_portable.matvec[t](ref, w, x, n, 0, rows);
	CHECKF(out[0] == -7.0f && out[rows + 1] == -7.0f,
	    "matvec %s n=%d wrote outside [r0, r1)", wtypes[t].name, n);
	for (r = 0; r < rows; r++) {
		s = a = 0;
		for (i = 0; i < n; i++) {
			s += (double)wf[(size_t)r * n + i] * x[i];
			a += fabs((double)wf[(size_t)r * n + i] * x[i]);
		}
		CHECKF(near(ref[r], s, a, 1e-5), "portable matvec %s n=%d "
		    "row %d: %.9g, want %.9g", wtypes[t].name, n, r, ref[r], s);
		CHECKF(near(out[r + 1], ref[r], a, 1e-5), "matvec %s n=%d "
		    "row %d: %.9g, portable %.9g", wtypes[t].name, n, r,
		    out[r + 1], ref[r]);
	}
	/* the same rows over odd sub-ranges, bit for bit */
	for (step = 1; step <= 7; step += 2) {
		for (r0 = 0; r0 < rows; r0 += step) {
			r = r0 + step < rows ? r0 + step : rows;
			kern.matvec[t](out2 + 1, w, x, n, r0, r);
		}
		CHECKF(!memcmp(out, out2, sizeof(float) * (rows + 2)),
		    "matvec %s n=%d rows %d: split by %d differs", wtypes[t].name,
		    n, rows, step);
	}
	free(w);
	free(wf);
	free(x);
	free(out);
	free(out2);
	free(ref);
}

/* matmul over T tokens with strides; each output equals matvec of the
 * same row and token, bit for bit, for any row split.  odd: some
 * activations NaN and infinite (the bits still matvec's; the portable
 * comparison within a tolerance left out). */
static void
test_mm(enum wtype t, int n, int rows, int T, int odd)
{
	int ldx = n + 3, ldo = rows + 5, r, r0, r1, k, i, bad = 0;
	float *wf = emalloc(sizeof(float) * rows * n);
	void *w = randw(t, rows, n, wf);
	float *x = emalloc(sizeof(float) * (size_t)ldx * T);
	float *out = emalloc(sizeof(float) * (size_t)ldo * T);
	float *out2 = emalloc(sizeof(float) * (size_t)ldo * T);
	float *mv = emalloc(sizeof(float) * rows);
	float *pm = emalloc(sizeof(float) * (size_t)ldo * T);
	double a;

	for (i = 0; i < ldx * T; i++)
		x[i] = frand();
	if (odd) {
		x[n / 2] = NAN;
		x[(size_t)(T - 1) * ldx + n - 1] = INFINITY;
		x[(size_t)(T / 2) * ldx] = -INFINITY;
	}
	for (i = 0; i < ldo * T; i++)
		out[i] = out2[i] = -7.0f;
	kern.matmul[t](out, ldo, w, x, ldx, n, T, 0, rows);
	kern_portable.matmul[t](pm, ldo, w, x, ldx, n, T, 0, rows);
	for (k = 0; k < T; k++) {
		kern.matvec[t](mv, w, x + (size_t)k * ldx, n, 0, rows);
		if (memcmp(mv, out + (size_t)k * ldo, sizeof(float) * rows))
			bad++;
		for (r = rows; r < ldo; r++)
			if (out[(size_t)k * ldo + r] != -7.0f)
				bad += 1000;
		for (r = 0; r < rows && !odd; r++) {
			a = 0;
			for (i = 0; i < n; i++)
				a += fabs((double)wf[(size_t)r * n + i] *
				    x[(size_t)k * ldx + i]);
			CHECKF(near(out[(size_t)k * ldo + r],
			    pm[(size_t)k * ldo + r], a, 1e-5), "matmul %s "
			    "n=%d T=%d: row %d token %d: %.9g, portable %.9g",
			    wtypes[t].name, n, T, r, k, out[(size_t)k * ldo + r],
			    pm[(size_t)k * ldo + r]);
		}
	}
	CHECKF(!bad, "matmul %s n=%d rows=%d T=%d differs from matvec (%d)",
	    wtypes[t].name, n, rows, T, bad);
	prepared(wtypes[t].name, t, out, ldo, w, x, ldx, n, T, rows);
	/* odd row splits */
	for (r0 = 0, k = 1; r0 < rows; r0 = r1, k += 2) {
		r1 = r0 + k < rows ? r0 + k : rows;
		kern.matmul[t](out2, ldo, w, x, ldx, n, T, r0, r1);
	}
	CHECKF(!memcmp(out, out2, sizeof(float) * (size_t)ldo * T),
	    "matmul %s n=%d rows=%d T=%d: row split differs", wtypes[t].name, n,
	    rows, T);
	/* tokens one block at a time (3, then the rest) */
	if (T > 3) {
		kern.matmul[t](out2, ldo, w, x, ldx, n, 3, 0, rows);
		kern.matmul[t](out2 + 3 * (size_t)ldo, ldo, w, x + 3 *
		    (size_t)ldx, ldx, n, T - 3, 0, rows);
		CHECKF(!memcmp(out, out2, sizeof(float) * (size_t)ldo * T),
		    "matmul %s n=%d rows=%d T=%d: token split differs",
		    wtypes[t].name, n, rows, T);
	}
	free(w);
	free(wf);
	free(x);
	free(out);
	free(out2);
	free(mv);
	free(pm);
}

static void
test_matmul(enum wtype t, int n, int rows, int T)
{
	test_mm(t, n, rows, T, 0);
}

/* The batched decode's few tokens (T <= 64: kern_avx512.c's panels of
 * rows against all of them): odd row counts over several panels, with
 * non-finite activations too; rows of 2048 and 8192 (Llama-3.2-1B's,
 * whose prepared tokens' blocks are 4 KiB-multiples apart). */
static void
test_few(void)
{
	static const int Ts[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 16, 31, 64 };
	static const int shapes[][2] = { { 17, 5 }, { 576, 37 }, { 100, 203 },
		{ 1100, 11 }, { 2048, 9 }, { 8192, 3 } };
	size_t i, k, l, l2 = kern_l2;
	enum wtype t;

	/* this machine's L2, then one of 64 KiB: the tokens' activations
	 * past half of it (n = 576, T = 31 and 64; n = 1100, T >= 8), so
	 * AVX-512 runs them in groups of equal size */
	for (l = 0; l < 2; l++) {
		kern_l2 = l ? 64u << 10 : l2;
		for (t = 0; t < W_Q8_0; t++)
			for (i = 0; i < LEN(shapes); i++)
				for (k = 0; k < LEN(Ts); k++) {
					test_mm(t, shapes[i][0], shapes[i][1],
					    Ts[k], 0);
					test_mm(t, shapes[i][0], shapes[i][1],
					    Ts[k], 1);
				}
	}
	kern_l2 = l2;
}

static void
test_matrix(void)
{
	static const int Ts[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 13, 17 };
	static const int rowsv[] = { 1, 3, 13, 37 };
	static const size_t l2s[] = { 64u << 10, 0, 8u << 20 };
	size_t i, j, k, l2 = kern_l2;
	enum wtype t;

	for (t = 0; t < W_Q8_0; t++)
		for (i = 0; i < LEN(sizes); i++)
			for (j = 0; j < LEN(rowsv); j++)
				test_matvec(t, sizes[i], rowsv[j]);
	for (t = 0; t < W_Q8_0; t++)
		for (i = 0; i < LEN(sizes); i++)
			for (k = 0; k < LEN(Ts); k++)
				test_matmul(t, sizes[i], sizes[i] > 600 ? 7 :
				    13 + (int)k, Ts[k]);
	/* past the AVX2 prefill's blocks: more tokens than one block of
	 * them (sized by kern_l2: here a small L2, this machine's and a
	 * large one, up to the most of 192), rows past a panel (16) and
	 * not a multiple of its register block (4), rows in chunks (up to
	 * 1024) with a short tail */
	for (k = 0; k < LEN(l2s); k++) {
		kern_l2 = l2s[k] ? l2s[k] : l2;
		for (t = 0; t < W_Q8_0; t++) {
			test_matmul(t, 1100, 37, 130);
			test_matmul(t, 513, 21, 121);
			test_matmul(t, 1031, 18, 241);
			test_matmul(t, 64, 5, 400);
		}
	}
	kern_l2 = l2;
}

/* ---- vector kernels ---- */

/* The index of the largest, the first of equals, or -1 - i for the
 * first non-finite x[i]: written here once, simply, against every
 * table's argmax, over lengths around their lane counts, ties (+0 and
 * -0 among them), the largest first, last and twice, and a NaN or an
 * infinity before, after or at the largest. */
static int
argmax_ref(const float *x, int n)
{
	int i, best = 0;

	for (i = 0; i < n; i++)
		if (!isfinite(x[i]))
			return -1 - i;
	for (i = 1; i < n; i++)
		if (x[i] > x[best])
			best = i;
	return best;
}

static void
test_argmax(void)
{
	static const int sizes[] = { 1, 2, 7, 8, 9, 15, 16, 17, 31, 33, 64,
		100, 49152 };
	static const float bad[] = { NAN, INFINITY, -INFINITY };
	size_t z;
	int n, i, k, c, want, got, at;
	float *x;

	for (z = 0; z < LEN(sizes); z++) {
		n = sizes[z];
		x = emalloc(sizeof(float) * n);
		for (c = 0; c < 12; c++) {
			for (i = 0; i < n; i++)	/* few values: many ties */
				x[i] = c % 3 ? (float)(rnd() % 5) - 2 : frand();
			at = (int)(rnd() % (unsigned)n);
			if (c == 3 || c == 4)	/* the largest at an end */
				at = c == 3 ? 0 : n - 1;
			x[at] = 7;
			if (c == 5)
				x[(at + n / 2) % n] = 7;
			if (c == 6)		/* zeros of both signs */
				for (i = 0; i < n; i++)
					x[i] = rnd() % 2 ? 0.0f : -0.0f;
			if (c >= 7 && c < 10)
				x[(int)(rnd() % (unsigned)n)] = bad[c - 7];
			if (c == 10)
				x[at] = NAN;
			if (c == 11)
				for (i = 0; i < n; i++)
					x[i] = -3.0e38f;
			want = argmax_ref(x, n);
			got = kern.argmax(x, n);
			k = kern_portable.argmax(x, n);
			CHECKF(got == want && k == want, "argmax n=%d case %d: "
			    "%d (portable %d), want %d", n, c, got, k, want);
		}
		free(x);
	}
}

static void
test_vec(void)
{
	size_t z;
	int n, i;
	float *a, *b, *y, *y2, *o, got, c;
	double s, sa, ss, r;

	for (z = 0; z < LEN(sizes); z++) {
		n = sizes[z];
		a = emalloc(sizeof(float) * n);
		b = emalloc(sizeof(float) * n);
		y = emalloc(sizeof(float) * n);
		y2 = emalloc(sizeof(float) * n);
		o = emalloc(sizeof(float) * n);
		s = sa = ss = 0;
		for (i = 0; i < n; i++) {
			a[i] = frand();
			b[i] = frand() + 1.0f;
			y[i] = y2[i] = frand();
			s += (double)a[i] * b[i];
			sa += fabs((double)a[i] * b[i]);
			ss += (double)a[i] * a[i];
		}
		got = kern.dot(a, b, n);
		CHECKF(near(got, s, sa, 1e-5), "dot n=%d: %.9g, want %.9g", n,
		    got, s);
		CHECKF(got == kern.dot(a, b, n), "dot n=%d not repeatable", n);
		c = 0.37f;
		kern.axpy(y, c, a, n);
		for (i = 0; i < n; i++)
			CHECKF(near(y[i], y2[i] + (double)c * a[i],
			    fabs(y2[i]) + fabs(c * a[i]), 2e-7),
			    "axpy n=%d [%d]: %.9g", n, i, y[i]);
		kern.rmsnorm(o, a, b, n, 1e-5f);
		r = 1.0 / sqrt(ss / n + 1e-5);
		for (i = 0; i < n; i++)
			CHECKF(near(o[i], a[i] * r * b[i], fabs(a[i] * r * b[i]),
			    1e-5), "rmsnorm n=%d [%d]: %.9g, want %.9g", n, i,
			    o[i], a[i] * r * b[i]);
		memcpy(y, a, sizeof(float) * n);
		kern.rmsnorm(y, y, b, n, 1e-5f);	/* in place */
		CHECKF(!memcmp(y, o, sizeof(float) * n), "rmsnorm n=%d in "
		    "place differs", n);
		free(a);
		free(b);
		free(y);
		free(y2);
		free(o);
	}
}

static void
test_tof32(void)
{
	uint16_t *h = emalloc(sizeof(uint16_t) * 65536 + 2);
	float *o = emalloc(sizeof(float) * 65537), *f = emalloc(4 * 4099);
	float want;
	uint32_t i, u, v;
	size_t n;

	for (i = 0; i < 65536; i++)
		h[i] = (uint16_t)i;
	kern.to_f32[W_BF16](o, h, 65536);
	for (i = 0; i < 65536; i++) {
		want = conv_bf16_to_f32((uint16_t)i);
		memcpy(&u, &o[i], 4);
		memcpy(&v, &want, 4);
		CHECKF(u == v, "to_f32 bf16 %#x: %#x, want %#x", i, u, v);
	}
	kern.to_f32[W_F16](o, h, 65536);
	for (i = 0; i < 65536; i++) {
		want = conv_f16_to_f32((uint16_t)i);
		memcpy(&u, &o[i], 4);
		memcpy(&v, &want, 4);
		if (isnan(want))	/* hardware may set the quiet bit */
			CHECKF(isnan(o[i]) && (u ^ v) <= 0x400000 &&
			    (u >> 31) == (v >> 31), "to_f32 f16 %#x: NaN "
			    "%#x, want %#x", i, u, v);
		else
			CHECKF(u == v, "to_f32 f16 %#x: %#x, want %#x", i, u, v);
	}
	/* odd lengths and offsets */
	for (n = 0; n < 40; n++) {
		for (i = 0; i < 4099; i++)
			f[i] = -1.0f;
		kern.to_f32[W_BF16](f + 1, h + 0x3f80 + 1, n);
		for (i = 0; i < 4099; i++) {
			want = i >= 1 && i <= n ? conv_bf16_to_f32(0x3f80 + i) :
			    -1.0f;
			CHECKF(f[i] == want, "to_f32 bf16 n=%zu [%u]", n, i);
		}
		kern.to_f32[W_F16](f + 1, h + 0x3c00 + 1, n);
		for (i = 1; i <= n; i++)
			CHECKF(f[i] == conv_f16_to_f32(0x3c00 + i),
			    "to_f32 f16 n=%zu [%u]", n, i);
		kern.to_f32[W_F32](f + 1, o + 3, n);
		for (i = 1; i <= n; i++)
			CHECKF(f[i] == o[i + 2], "to_f32 f32 n=%zu", n);
	}
	free(h);
	free(o);
	free(f);
}

/* kern.from_f32 against conv's scalar rounding: every float whose low
 * 16 bits are one of the rounding edges of F16 (13 bits dropped) and
 * BF16 (16 dropped), every sign and exponent (NaNs, infinities,
 * subnormal results and the overflow to infinity among them), then a
 * spread of all the others; NaN lanes mixed with numbers; odd lengths. */
static void
test_fromf32(void)
{
	static const uint16_t lo[] = { 0x0000, 0x0001, 0x0fff, 0x1000, 0x1001,
	    0x1fff, 0x2000, 0x3000, 0x7fff, 0x8000, 0x8001, 0xffff };
	enum { N = 1 << 16 };
	static const enum wtype ts[] = { W_F16, W_BF16 };
	float *x = emalloc(sizeof(float) * (N + 1));
	uint16_t *h = emalloc(sizeof(uint16_t) * (N + 2)), want;
	uint32_t u, k;
	size_t i, t, pass;
	int n;

	for (t = 0; t < sizeof(ts) / sizeof(*ts); t++) {
		void (*f)(void *, const float *, int) = kern.from_f32[ts[t]];

		for (pass = 0; pass < sizeof(lo) / sizeof(*lo) + 64; pass++) {
			for (i = 0; i < N; i++) {
				u = pass < sizeof(lo) / sizeof(*lo) ?
				    (uint32_t)i << 16 | lo[pass] :
				    (uint32_t)i << 16 | (uint32_t)((i * 40503u +
				    pass * 2654435761u) & 0xffff);
				memcpy(&x[i], &u, 4);
			}
			f(h, x, N);
			for (i = 0; i < N; i++) {
				want = ts[t] == W_F16 ? conv_f32_to_f16(x[i]) :
				    conv_f32_to_bf16(x[i]);
				memcpy(&u, &x[i], 4);
				CHECKF(h[i] == want, "from_f32 %s %#x: %#x, want "
				    "%#x", wtypes[ts[t]].name, u, h[i], want);
			}
		}
		for (n = 0; n < 40; n++) {
			for (i = 0; i < 41; i++) {
				x[i] = (float)i * 0.3f - 5.0f;
				h[i] = 0xdead;
			}
			if (n > 3)
				x[n / 2] = NAN;
			f(h + 1, x + 1, n);
			CHECKF(h[0] == 0xdead && h[n + 1] == 0xdead,
			    "from_f32 %s n=%d wrote outside", wtypes[ts[t]].name, n);
			for (k = 1; k <= (uint32_t)n; k++) {
				want = ts[t] == W_F16 ? conv_f32_to_f16(x[k]) :
				    conv_f32_to_bf16(x[k]);
				CHECKF(h[k] == want, "from_f32 %s n=%d [%u]",
				    wtypes[ts[t]].name, n, k);
			}
		}
	}
	free(x);
	free(h);
}

/* ---- helpers ---- */

/* The weight-type table against the layouts the kernels read: float
 * types n elements, Q8_0 conv_q8_0_rowsize; from_f32 then to_f32 is the
 * round trip of the type's own rounding; every table has every
 * storage type's kernels. */
static void
test_wtypes(void)
{
	static const int ns[] = { 1, 7, 64, 65, 4097 };
	float x[8] = { 1, -2.5f, 0.1f, 3e-5f, -7, 65504, 1e-8f, 0.3f }, y[8];
	float buf[8];	/* one row of any float type */
	size_t i;
	int t;

	for (i = 0; i < LEN(ns); i++) {
		EQ(wtype_rowsize(W_F32, ns[i]), 4 * (size_t)ns[i]);
		EQ(wtype_rowsize(W_F16, ns[i]), 2 * (size_t)ns[i]);
		EQ(wtype_rowsize(W_BF16, ns[i]), 2 * (size_t)ns[i]);
		EQ(wtype_rowsize(W_BF16A, ns[i]), 2 * (size_t)ns[i]);
		if (ns[i] % 2 == 0)
			EQ(wtype_rowsize(W_Q8_0, ns[i]), conv_q8_0_rowsize(ns[i]));
	}
	for (t = 0; t < W_NTYPES; t++) {
		CHECKF(wtype_parse(wtypes[t].name) == t, "wtype %d: name %s",
		    t, wtypes[t].name);
		CHECKF(kern.matvec[wtypes[t].store] && kern.matmul[wtypes[t].store],
		    "no kernels for %s", wtypes[wtypes[t].store].name);
		/* the 4-bit types' matrices are structs naming their tensors:
		 * no row converter, and no fast mode converts from them */
		CHECKF(wtypes[t].indirect == (t == W_Q4 || t == W_GPTQ4 ||
		    t == W_AWQ4 || t == W_Q4I), "%s: indirect %d", wtypes[t].name,
		    wtypes[t].indirect);
		CHECKF(!wtypes[t].indirect || !wtypes[t].from_f32,
		    "%s: indirect, with a row converter", wtypes[t].name);
		/* the block types round whole blocks (test_q4, test_i8,
		 * test_ggml); a row converter of single floats here */
		if (wtypes[t].block > 1 || !wtypes[t].from_f32)
			continue;
		wtypes[t].from_f32(buf, x, 8);
		kern.to_f32[t](y, buf, 8);
		for (i = 0; i < 8; i++) {
			float want = t == W_F32 ? x[i] : t == W_F16 ?
			    conv_f16_to_f32(conv_f32_to_f16(x[i])) :
			    conv_bf16_to_f32(conv_f32_to_bf16(x[i]));

			CHECKF(y[i] == want, "%s: %g -> %g, want %g",
			    wtypes[t].name, x[i], y[i], want);
		}
	}
	CHECK(wtype_parse("nonesuch") == -1);
}

/* kern_geglu against the GELUs in double: gelu_pytorch_tanh's formula
 * and erf's, over the range a gate takes (and beyond, where tanh and
 * erf saturate). */
static void
test_geglu(void)
{
	float g[203], u[203], h[203];
	double x, want;
	int i, a;

	for (i = 0; i < 203; i++) {
		g[i] = (float)(i - 101) / 8;
		u[i] = 1 + frand();
	}
	for (a = 0; a < 2; a++) {
		kern_geglu(h, g, u, 203, a ? ACT_GELU : ACT_GELU_TANH);
		for (i = 0; i < 203; i++) {
			x = g[i];
			/* 0.5 x (1 + tanh y) as x / (1 + e^-2y): no
			 * cancellation in the reference */
			want = a ? 0.5 * x * erfc(-x / sqrt(2)) :
			    x / (1 + exp(-2 * sqrt(2 / M_PI) *
			    (x + 0.044715 * x * x * x)));
			want *= u[i];
			/* 1 + erf(x) for x far below 0 cancels in float32
			 * as in torch: an ulp of 1, times x */
			CHECKF(fabs(h[i] - want) <= 1e-6 * fabs(want) +
			    2.4e-7 * fabs(x * u[i]),
			    "geglu %s(%g) * %g = %.9g, want %.9g", a ? "gelu" :
			    "gelu_tanh", x, u[i], h[i], want);
		}
	}
	/* the table's entry (tails of every length up to a vector, the
	 * float range's edges), in place */
	for (a = 1; a <= 203; a += a < 40 ? 1 : 81) {
		for (i = 0; i < a && i < 6; i++)
			g[i] = (float[]){ -100, -30, 10, 100, -3.3f, 0 }[i];
		kern.geglu(h, g, u, a);
		for (i = 0; i < a; i++) {
			x = g[i];
			want = x / (1 + exp(-2 * sqrt(2 / M_PI) *
			    (x + 0.044715 * x * x * x))) * u[i];
			/* the portable entry's tanhf cancels as torch's;
			 * values below float's range are 0 */
			CHECKF(fabs(h[i] - want) <= 1e-5 * fabs(want) + 1e-37 +
			    (strcmp(kern.name, "portable") ? 0 :
			    2.4e-7 * fabs(x * u[i])),
			    "geglu n=%d [%d]: %.9g, want %.9g", a, i, h[i], want);
		}
		kern.geglu(g, g, u, a);
		CHECKF(!memcmp(g, h, sizeof(float) * a), "geglu in place");
		for (i = 0; i < 203; i++)
			g[i] = (float)(i - 101) / 8;
	}
	/* h may be the gate */
	memcpy(h, g, sizeof(h));
	kern_geglu(h, h, u, 203, ACT_GELU_TANH);
	kern_geglu(g, g, u, 203, ACT_GELU_TANH);
	CHECK(!memcmp(h, g, sizeof(h)));
}

static void
test_helpers(void)
{
	static const int ns[] = { 1, 2, 7, 33, 4097, 49152 };
	float *x, *g, *u, *h, *c, *sn, *v0;
	double m, s, e, sl;
	size_t z;
	int n, i, j, hd, nh;

	for (z = 0; z < LEN(ns); z++) {
		n = ns[z];
		x = emalloc(sizeof(float) * n);
		g = emalloc(sizeof(float) * n);
		u = emalloc(sizeof(float) * n);
		h = emalloc(sizeof(float) * n);
		for (i = 0; i < n; i++) {
			x[i] = g[i] = 20 * frand();
			u[i] = frand();
		}
		m = x[0];
		for (i = 1; i < n; i++)
			m = x[i] > m ? x[i] : m;
		s = 0;
		for (i = 0; i < n; i++)
			s += exp(x[i] - m);
		kern_softmax(x, n);
		for (i = 0; i < n; i++) {
			e = exp(g[i] - m) / s;
			CHECKF(near(x[i], e, e, 1e-5), "softmax n=%d [%d]: "
			    "%.9g, want %.9g", n, i, x[i], e);
		}
		/* silu where e^-g nears or leaves the float range */
		for (i = 0; i < n && i < 7; i++)
			g[i] = (float[]){ -100, -88.6f, -87.5f, 100, -50, 0,
			    90 }[i];
		kern.swiglu(h, g, u, n);
		for (i = 0; i < n; i++) {
			sl = g[i] / (1 + exp(-(double)g[i])) * u[i];
			CHECKF(near(h[i], sl, fabs(sl), 1e-5), "swiglu [%d]: "
			    "%.9g, want %.9g", i, h[i], sl);
		}
		kern.swiglu(g, g, u, n);	/* in place */
		CHECKF(!memcmp(g, h, sizeof(float) * n), "swiglu in place");
		free(x);
		free(g);
		free(u);
		free(h);
	}
	/* RoPE on 3 heads of 64, angle pos * theta^(-2j/hd) */
	nh = 3;
	hd = 64;
	x = emalloc(sizeof(float) * nh * hd);
	v0 = emalloc(sizeof(float) * nh * hd);
	c = emalloc(sizeof(float) * hd / 2);
	sn = emalloc(sizeof(float) * hd / 2);
	for (j = 0; j < hd / 2; j++) {
		e = 17 * pow(10000.0, -2.0 * j / hd);
		c[j] = (float)cos(e);
		sn[j] = (float)sin(e);
	}
	for (i = 0; i < nh * hd; i++)
		x[i] = v0[i] = frand();
	kern.rope(x, nh, hd, c, sn);
	/* the table's the portable bits, for each tail of the lanes */
	for (n = 2; n <= hd; n += 2) {
		float y[64], z[64];

		for (i = 0; i < n; i++)
			y[i] = z[i] = frand();
		kern.rope(y, 1, n, c, sn);
		kern_rope(z, 1, n, c, sn);
		CHECKF(!memcmp(y, z, n * sizeof(float)), "rope of %d: not "
		    "kern_rope's bits", n);
	}
	for (i = 0; i < nh; i++)
		for (j = 0; j < hd / 2; j++) {
			double a = v0[i * hd + j], b = v0[i * hd + j + hd / 2];
			double w0 = a * c[j] - b * sn[j];
			double w1 = b * c[j] + a * sn[j];

			CHECKF(near(x[i * hd + j], w0, fabs(a) + fabs(b), 1e-6)
			    && near(x[i * hd + j + hd / 2], w1, fabs(a) +
			    fabs(b), 1e-6), "rope head %d pair %d", i, j);
		}
	free(x);
	free(v0);
	free(c);
	free(sn);
}

/* ---- conversions ---- */

static double
f16val(uint16_t h)
{
	int e = h >> 10 & 0x1f, m = h & 0x3ff;
	double v = e ? ldexp(1024 + m, e - 25) : ldexp(m, -24);

	return h & 0x8000 ? -v : v;
}

/* h is the f16 nearest to f, ties to even. */
static int
f16nearest(float f, uint16_t h)
{
	double d, dn, v = f;
	uint16_t nb;
	int k;

	if (fabs(v) >= 65520)
		return (h & 0x7fff) == 0x7c00 && (h >> 15) == (v < 0);
	if ((h & 0x7c00) == 0x7c00 || ((h >> 15) != (v < 0) && (h & 0x7fff)))
		return 0;
	d = fabs(v - f16val(h));
	for (k = -1; k <= 1; k += 2) {
		nb = (uint16_t)(h + k);
		if ((h & 0x7fff) == 0 && k < 0)
			nb = (uint16_t)((h ^ 0x8000) + 1);
		if ((nb & 0x7c00) == 0x7c00)
			continue;
		dn = fabs(v - f16val(nb));
		if (dn < d || (dn == d && (h & 1)))
			return 0;
	}
	return 1;
}

static void
test_convert(void)
{
	uint32_t i, u, e;
	uint16_t h;
	float f;
	double v;

	for (i = 0; i < 65536; i++) {
		f = conv_bf16_to_f32((uint16_t)i);
		memcpy(&u, &f, 4);
		CHECKF(u == i << 16, "bf16 %#x widens to %#x", i, u);
		h = conv_f32_to_bf16(f);
		CHECKF(h == i, "bf16 %#x roundtrips to %#x", i, h);
		f = conv_f16_to_f32((uint16_t)i);
		e = i >> 10 & 0x1f;
		if (e == 0x1f && (i & 0x3ff))
			CHECKF(isnan(f), "f16 %#x not NaN", i);
		else if (e == 0x1f)
			CHECKF(isinf(f) && (f < 0) == (i >> 15), "f16 %#x", i);
		else
			CHECKF((double)f == f16val((uint16_t)i),
			    "f16 %#x widens to %.9g", i, f);
		h = conv_f32_to_f16(f);
		CHECKF(h == i, "f16 %#x roundtrips to %#x", i, h);
	}
	/* bf16 ties go to even, above/below a tie to the nearest */
	for (i = 0; i < 4096; i++) {
		u = (rnd() & 0x7f7f0000) | 0x8000;	/* exact tie */
		memcpy(&f, &u, 4);
		h = conv_f32_to_bf16(f);
		CHECKF(h == ((u >> 16) + (u >> 16 & 1)), "bf16 tie %#x -> %#x",
		    u, h);
		u |= 1;
		memcpy(&f, &u, 4);
		CHECKF(conv_f32_to_bf16(f) == (u >> 16) + 1, "bf16 above tie");
		u -= 2;
		memcpy(&f, &u, 4);
		CHECKF(conv_f32_to_bf16(f) == u >> 16, "bf16 below tie");
	}
	u = 0x7f7fffff;		/* FLT_MAX rounds to inf */
	memcpy(&f, &u, 4);
	CHECKF(conv_f32_to_bf16(f) == 0x7f80, "bf16 of FLT_MAX");
	CHECKF(isnan(conv_bf16_to_f32(conv_f32_to_bf16(NAN))), "bf16 NaN");
	u = 0x7f800001;		/* NaN whose payload is below bf16 */
	memcpy(&f, &u, 4);
	h = conv_f32_to_bf16(f);
	CHECKF((h & 0x7f80) == 0x7f80 && (h & 0x7f), "bf16 NaN %#x", h);
	h = conv_f32_to_f16(f);
	CHECKF((h & 0x7c00) == 0x7c00 && (h & 0x3ff), "f16 NaN %#x", h);
	CHECKF(conv_f32_to_f16(INFINITY) == 0x7c00, "f16 inf");
	CHECKF(conv_f32_to_f16(-INFINITY) == 0xfc00, "f16 -inf");
	CHECKF(conv_f32_to_f16(65504.0f) == 0x7bff, "f16 max");
	CHECKF(conv_f32_to_f16(65519.99f) == 0x7bff, "f16 below inf tie");
	CHECKF(conv_f32_to_f16(65520.0f) == 0x7c00, "f16 inf tie");
	CHECKF(conv_f32_to_f16(0x1p-25f) == 0, "f16 tie at 2^-25");
	CHECKF(conv_f32_to_f16(0x1.000002p-25f) == 1, "f16 above 2^-25");
	CHECKF(conv_f32_to_f16(0x1.8p-24f) == 2, "f16 subnormal tie");
	CHECKF(conv_f32_to_f16(-0.0f) == 0x8000, "f16 -0");
	/* random floats over the whole f16 range, nearest with ties even */
	for (i = 0; i < 200000; i++) {
		u = rnd();
		e = 100 + u % 46;	/* exponents 2^-27 .. 2^18 */
		u = (u & 0x807fffff) | e << 23;
		if (i & 1)		/* many exact ties */
			u &= ~0xfffu;
		memcpy(&f, &u, 4);
		h = conv_f32_to_f16(f);
		v = f;
		CHECKF(f16nearest(f, h), "f16 of %a is %#x (%.9g)", v, h,
		    f16val(h));
	}
}

/* ---- the bf16-act entries ---- */

/* matvec_bf16act against a double reference of the bf16-rounded math
 * (bf16 weights times bf16(x), products exact in float, float sums: the
 * error bound is that of float accumulation), matmul_bf16act equal to
 * it bit for bit over strides, row splits and token splits, and
 * matmulx_bf16act on the tokens prepared (prepared.h).  odd: some
 * activations NaN and infinite (the bits still matvec's; the reference
 * left out). */
static void
test_bf16act(int n, int rows, int T, int odd)
{
	int ldx = n + 3, ldo = rows + 5, r, r0, r1, k, i, bad = 0;
	float *wf = emalloc(sizeof(float) * rows * n);
	void *w = randw(W_BF16, rows, n, wf);
	float *x = emalloc(sizeof(float) * (size_t)ldx * T);
	float *out = emalloc(sizeof(float) * (size_t)ldo * T);
	float *out2 = emalloc(sizeof(float) * (size_t)ldo * T);
	float *mv = emalloc(sizeof(float) * (rows + 2));
	double a, s, xb;

	for (i = 0; i < ldx * T; i++)
		x[i] = frand() * 3.0f;
	if (odd) {
		x[n / 2] = NAN;
		x[(size_t)(T - 1) * ldx + n - 1] = INFINITY;
		x[(size_t)(T / 2) * ldx] = -INFINITY;
	}
	for (i = 0; i < ldo * T; i++)
		out[i] = out2[i] = -7.0f;
	kern.matmul[W_BF16A](out, ldo, w, x, ldx, n, T, 0, rows);
	for (k = 0; k < T; k++) {
		mv[0] = mv[rows + 1] = -7.0f;
		kern.matvec[W_BF16A](mv + 1, w, x + (size_t)k * ldx, n, 0, rows);
		CHECKF(mv[0] == -7.0f && mv[rows + 1] == -7.0f,
		    "matvec_bf16act n=%d wrote outside [r0, r1)", n);
		if (memcmp(mv + 1, out + (size_t)k * ldo, sizeof(float) * rows))
			bad++;
		for (r = rows; r < ldo; r++)
			if (out[(size_t)k * ldo + r] != -7.0f)
				bad += 1000;
		for (r = 0; r < rows && !odd; r++) {
			a = s = 0;
			for (i = 0; i < n; i++) {
				xb = conv_bf16_to_f32(conv_f32_to_bf16(
				    x[(size_t)k * ldx + i]));
				s += (double)wf[(size_t)r * n + i] * xb;
				a += fabs((double)wf[(size_t)r * n + i] * xb);
			}
			CHECKF(near(mv[r + 1], s, a, 1e-5), "bf16act n=%d "
			    "T=%d: row %d token %d: %.9g, want %.9g", n, T, r,
			    k, mv[r + 1], s);
		}
	}
	CHECKF(!bad, "matmul_bf16act n=%d rows=%d T=%d differs from matvec "
	    "(%d)", n, rows, T, bad);
	/* the tokens rounded once (kern.xprep), then row splits */
	prepared("bf16act", W_BF16A, out, ldo, w, x, ldx, n, T, rows);
	for (r0 = 0, k = 1; r0 < rows; r0 = r1, k += 2) {
		r1 = r0 + k < rows ? r0 + k : rows;
		kern.matmul[W_BF16A](out2, ldo, w, x, ldx, n, T, r0, r1);
	}
	CHECKF(!memcmp(out, out2, sizeof(float) * (size_t)ldo * T),
	    "matmul_bf16act n=%d rows=%d T=%d: row split differs", n, rows, T);
	if (T > 3) {
		kern.matmul[W_BF16A](out2, ldo, w, x, ldx, n, 3, 0, rows);
		kern.matmul[W_BF16A](out2 + 3 * (size_t)ldo, ldo, w,
		    x + 3 * (size_t)ldx, ldx, n, T - 3, 0, rows);
		CHECKF(!memcmp(out, out2, sizeof(float) * (size_t)ldo * T),
		    "matmul_bf16act n=%d rows=%d T=%d: token split differs",
		    n, rows, T);
	}
	free(w);
	free(wf);
	free(x);
	free(out);
	free(out2);
	free(mv);
}

/* A batch's decode rows (T <= 64: kern_avx512.c's few(), up to 6
 * tokens as pairs of rows from two halves, more in panels): as
 * test_few, odd row counts over several panels and an odd row left of
 * the pairs, with non-finite activations too, under this machine's L2
 * and one of 64 KiB (the tokens in groups); rows of 2048 and 8192, the
 * 1B shape's, in blocks of 6 + 5 + 5 tokens at T = 16. */
static void
test_bf16few(void)
{
	static const int Ts[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 16, 31, 64 };
	static const int shapes[][2] = { { 17, 5 }, { 576, 37 }, { 100, 203 },
		{ 1100, 11 }, { 2048, 9 }, { 8192, 3 } };
	size_t i, k, l, l2 = kern_l2;

	for (l = 0; l < 2; l++) {
		kern_l2 = l ? 64u << 10 : l2;
		for (i = 0; i < LEN(shapes); i++)
			for (k = 0; k < LEN(Ts); k++) {
				test_bf16act(shapes[i][0], shapes[i][1], Ts[k],
				    0);
				test_bf16act(shapes[i][0], shapes[i][1], Ts[k],
				    1);
			}
	}
	kern_l2 = l2;
}

static void
test_bf16acts(void)
{
	static const int ns[] = { 1, 2, 15, 31, 32, 33, 64, 100, 576, 1536 };
	static const int Ts[] = { 1, 2, 5, 6, 7, 13, 40 };
	size_t i, k;

	if (!kern.matvec[W_BF16A] || !kern.matmul[W_BF16A]) {
		printf("skip: %s has no bf16-act entries\n", kern.name);
		return;
	}
	for (i = 0; i < LEN(ns); i++)
		for (k = 0; k < LEN(Ts); k++)
			test_bf16act(ns[i], ns[i] > 600 ? 9 : 13 + (int)k,
			    Ts[k], 0);
	/* the longest row, a few tokens (panels of one register block) */
	test_bf16act(CONV_BF16ACT_MAXN, 5, 7, 0);
	/* more tokens than the stack's buffer holds (kern_xroom's heap):
	 * a batch's decode rows on long rows, odd T */
	test_bf16act(4096, 7, 33, 0);
	test_bf16act(8192, 5, 17, 0);
	test_bf16act(2048, 6, 64, 0);
	/* prefill (T > 64): token blocks of MT and a shorter last one, each
	 * laid out as its register block reads it */
	test_bf16act(576, 13, 130, 0);
	test_bf16act(100, 9, 67, 1);
	test_bf16few();
}


/* ---- Q8_0 ---- */

/* conv_q8_0_quant (weights, int8) and conv_q8_0_quant_x (activations,
 * int16): the block scale is max|x| / qmax, every value within half a
 * step of d q and within [-qmax, qmax], padding and NaN give 0. */
static void
test_quant(int wide)
{
	static const int ns[] = { 1, 31, 32, 33, 64, 65, 100 };
	const char *name = wide ? "q8_0 x" : "q8_0";
	float qmax = wide ? 32767.0f : 127.0f;
	float x[100], buf[4 * 17], *d, amax;
	size_t i, k, nb;
	int n, b;
	long q;

	for (k = 0; k < LEN(ns); k++) {
		n = ns[k];
		nb = conv_q8_0_rowsize(n) / 36;
		CHECKF(nb % 2 == 0 && nb * 32 >= (size_t)n && nb * 32 < (size_t)n + 64,
		    "%s n=%d: %zu blocks", name, n, nb);
		CHECKF(conv_q8_0_xsize(n) == nb * 68, "%s n=%d: xsize %zu", name,
		    n, conv_q8_0_xsize(n));
		for (i = 0; i < (size_t)n; i++)
			x[i] = frand() * (i % 7 == 0 ? 10.0f : 1.0f);
		d = buf;
		(wide ? conv_q8_0_quant_x : conv_q8_0_quant)(buf, x, n);
		for (b = 0; b < (int)nb; b++) {
			amax = 0;
			for (i = 32 * b; i < 32 * (size_t)b + 32 && i < (size_t)n; i++)
				amax = fabsf(x[i]) > amax ? fabsf(x[i]) : amax;
			CHECKF(d[b] == amax / qmax, "%s n=%d block %d: scale %g, "
			    "want %g", name, n, b, d[b], amax / qmax);
		}
		for (i = 0; i < nb * 32; i++) {
			q = wide ? ((const int16_t *)(d + nb))[i] :
			    ((const int8_t *)(d + nb))[i];
			if (i >= (size_t)n) {
				CHECKF(q == 0, "%s n=%d: padding %zu is %ld", name,
				    n, i, q);
				continue;
			}
			CHECKF(q >= -qmax && fabs(x[i] - (double)d[i / 32] * q) <=
			    d[i / 32] * 0.5001 + 1e-30, "%s n=%d: %g quantized "
			    "to %ld * %g", name, n, x[i], q, d[i / 32]);
		}
	}
	/* a scale of 1 (amax = qmax): halves go to the even neighbour,
	 * as nearbyintf under the default rounding */
	{
		static const float h[] = { 0.5f, 1.5f, 2.5f, -0.5f, -1.5f,
			-2.5f, 126.5f, -126.5f, 3.25f, -3.75f };
		static const int want[] = { 0, 2, 2, 0, -2, -2, 126, -126, 3,
			-4 };

		x[0] = qmax;
		for (i = 0; i < LEN(h); i++)
			x[1 + i] = h[i];
		(wide ? conv_q8_0_quant_x : conv_q8_0_quant)(buf, x, 1 +
		    (int)LEN(h));
		for (i = 0; i < LEN(h); i++) {
			q = wide ? ((const int16_t *)(buf + 2))[1 + i] :
			    ((const int8_t *)(buf + 2))[1 + i];
			CHECKF(buf[0] == 1 && q == want[i], "%s of %g (scale %g): "
			    "%ld, want %d", name, h[i], buf[0], q, want[i]);
		}
	}
	x[0] = NAN, x[1] = 1.0f, x[2] = -2.0f;
	(wide ? conv_q8_0_quant_x : conv_q8_0_quant)(buf, x, 3);
	if (wide) {
		const int16_t *q16 = (const int16_t *)(buf + 2);

		CHECKF(q16[0] == 0 && q16[1] == 16384 && q16[2] == -32767,
		    "q8_0 x of NaN, 1, -2: %d %d %d", q16[0], q16[1], q16[2]);
	} else {
		const int8_t *q8 = (const int8_t *)(buf + 2);

		CHECKF(q8[0] == 0 && q8[1] == 64 && q8[2] == -127,
		    "q8_0 of NaN, 1, -2: %d %d %d", q8[0], q8[1], q8[2]);
	}
}

/* matvec[W_Q8_0] against the double sum of the quantized math;
 * matmul equal to it bit for bit over strides, row and token splits. */
static void
test_q8(int n, int rows, int T)
{
	int ldx = n + 3, ldo = rows + 5, r, r0, r1, k, i, bad = 0;
	size_t rb = conv_q8_0_rowsize(n), nb = rb / 36;
	char *w = emalloc(rb * rows), *xq = emalloc(conv_q8_0_xsize(n));
	float *x = emalloc(sizeof(float) * (size_t)ldx * T);
	float *wf = emalloc(sizeof(float) * n);
	float *out = emalloc(sizeof(float) * (size_t)ldo * T);
	float *out2 = emalloc(sizeof(float) * (size_t)ldo * T);
	float *mv = emalloc(sizeof(float) * (rows + 2));
	const float *wd, *xd;
	const int8_t *wq;
	const int16_t *q;
	double a, s, p;

	for (r = 0; r < rows; r++) {
		for (i = 0; i < n; i++)
			wf[i] = frand() * 0.2f;
		conv_q8_0_quant(w + (size_t)r * rb, wf, n);
	}
	for (i = 0; i < ldx * T; i++)
		x[i] = frand() * 3.0f;
	for (i = 0; i < ldo * T; i++)
		out[i] = out2[i] = -7.0f;
	kern.matmul[W_Q8_0](out, ldo, w, x, ldx, n, T, 0, rows);
	for (k = 0; k < T; k++) {
		mv[0] = mv[rows + 1] = -7.0f;
		kern.matvec[W_Q8_0](mv + 1, w, x + (size_t)k * ldx, n, 0, rows);
		CHECKF(mv[0] == -7.0f && mv[rows + 1] == -7.0f,
		    "matvec q8_0 n=%d wrote outside [r0, r1)", n);
		if (memcmp(mv + 1, out + (size_t)k * ldo, sizeof(float) * rows))
			bad++;
		for (r = rows; r < ldo; r++)
			if (out[(size_t)k * ldo + r] != -7.0f)
				bad += 1000;
		conv_q8_0_quant_x(xq, x + (size_t)k * ldx, n);
		xd = (const float *)xq;
		q = (const int16_t *)(xd + nb);
		for (r = 0; r < rows; r++) {
			wd = (const float *)(w + (size_t)r * rb);
			wq = (const int8_t *)(wd + nb);
			a = s = 0;
			for (i = 0; i < (int)nb * 32; i++) {
				p = (double)wd[i / 32] * xd[i / 32] * wq[i] * q[i];
				s += p;
				a += fabs(p);
			}
			CHECKF(near(mv[r + 1], s, a, 1e-5), "q8_0 n=%d T=%d: "
			    "row %d token %d: %.9g, want %.9g", n, T, r, k,
			    mv[r + 1], s);
		}
	}
	CHECKF(!bad, "matmul q8_0 n=%d rows=%d T=%d differs from matvec (%d)",
	    n, rows, T, bad);
	for (r0 = 0, k = 1; r0 < rows; r0 = r1, k += 2) {
		r1 = r0 + k < rows ? r0 + k : rows;
		kern.matmul[W_Q8_0](out2, ldo, w, x, ldx, n, T, r0, r1);
	}
	CHECKF(!memcmp(out, out2, sizeof(float) * (size_t)ldo * T),
	    "matmul q8_0 n=%d rows=%d T=%d: row split differs", n, rows, T);
	if (T > 3) {
		kern.matmul[W_Q8_0](out2, ldo, w, x, ldx, n, 3, 0, rows);
		kern.matmul[W_Q8_0](out2 + 3 * (size_t)ldo, ldo, w,
		    x + 3 * (size_t)ldx, ldx, n, T - 3, 0, rows);
		CHECKF(!memcmp(out, out2, sizeof(float) * (size_t)ldo * T),
		    "matmul q8_0 n=%d rows=%d T=%d: token split differs", n,
		    rows, T);
	}
	free(w);
	free(xq);
	free(x);
	free(wf);
	free(out);
	free(out2);
	free(mv);
}

static void
test_q8s(void)
{
	static const int ns[] = { 1, 31, 32, 33, 64, 65, 100, 576, 1536 };
	static const int Ts[] = { 1, 2, 3, 4, 7, 13, 40 };
	size_t i, k;

	test_quant(0);
	test_quant(1);
	for (i = 0; i < LEN(ns); i++)
		for (k = 0; k < LEN(Ts); k++)
			test_q8(ns[i], ns[i] > 600 ? 9 : 13 + (int)k, Ts[k]);
	test_q8(CONV_Q8_0_MAXN, 5, 7);
}

int
main(void)
{
	argv0 = "test_kern";
	/* before kern_init the table is the portable one, not NULLs */
	if (strcmp(kern.name, "portable") || kern.dot != kern_portable.dot ||
	    kern.matmul[W_BF16] != kern_portable.matmul[W_BF16]) {
		fprintf(stderr, "test_kern: table not portable before init\n");
		return 1;
	}
	test_kern_init();
	test_convert();
	test_tof32();
	test_fromf32();
	test_vec();
	test_argmax();
	test_helpers();
	test_geglu();
	test_wtypes();
	test_matrix();
	test_few();
	test_bf16acts();
	test_q8s();
	return test_end("test_kern");
}
