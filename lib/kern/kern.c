/* kern.c: portable kernels, conversions and the dispatch table.
 *
 * The portable dot products keep 8 float partial sums (element i goes to
 * sum i % 8) and add them in a fixed tree at the end, so every row gives
 * the same result whatever range or token block it is computed in.  The
 * matrix kernels widen a row KC weights at a time and apply them to up to
 * TG tokens. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kern/gptq.h"
#include "kern/kern.h"
#include "base/util.h"

#if defined(__x86_64__)
#include <cpuid.h>
extern const struct kern kern_avx2;
extern const struct kern kern_avx512;
#endif


static float
u2f(uint32_t u)
{
	float f;

	memcpy(&f, &u, sizeof f);
	return f;
}

/* ---- portable table ---- */

/* Widen m weights from element off of w into o. */
static void
widen(enum wtype t, float *o, const void *w, size_t off, int m)
{
	const uint16_t *h = (const uint16_t *)w + off;
	int i;

	switch (t) {
	case W_F16:
		for (i = 0; i < m; i++)
			o[i] = conv_f16_to_f32(h[i]);
		break;
	case W_BF16:
		for (i = 0; i < m; i++)
			o[i] = u2f((uint32_t)h[i] << 16);
		break;
	default:
		memcpy(o, (const float *)w + off, (size_t)m * sizeof *o);
		break;
	}
}

/* The fixed reduction of the 8 partial sums. */
static float
sum8(const float s[8])
{
	return ((s[0] + s[4]) + (s[2] + s[6])) +
	    ((s[1] + s[5]) + (s[3] + s[7]));
}

#define KC 256	/* weights widened per step (a multiple of 8) */
#define TG 4	/* tokens sharing one widened row */

/* out[tt*ldo + r] = dot(W[r], x + tt*ldx) for tt < T <= TG, with the
 * lane discipline above: the result never depends on T. */
static void
rowdots(enum wtype t, float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r)
{
	float s[TG][8] = { { 0 } }, wb[KC];
	const float *xs;
	int k0, m, i, j, tt;

	for (k0 = 0; k0 < n; k0 += KC) {
		m = n - k0 < KC ? n - k0 : KC;
		widen(t, wb, w, (size_t)r * n + k0, m);
		for (tt = 0; tt < T; tt++) {
			xs = x + (size_t)tt * ldx + k0;
			for (i = 0; i + 8 <= m; i += 8)
				for (j = 0; j < 8; j++)
					s[tt][j] += wb[i + j] * xs[i + j];
			for (j = 0; i < m; i++, j++)
				s[tt][j] += wb[i] * xs[i];
		}
	}
	for (tt = 0; tt < T; tt++)
		out[(size_t)tt * ldo + r] = sum8(s[tt]);
}

static void
matvec_any(enum wtype t, float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	int r;

	for (r = r0; r < r1; r++)
		rowdots(t, out, 0, w, x, 0, n, 1, r);
}

static void
matvec_f32(float *out, const void *w, const float *x, int n, int r0, int r1)
{
	matvec_any(W_F32, out, w, x, n, r0, r1);
}

static void
matvec_f16(float *out, const void *w, const float *x, int n, int r0, int r1)
{
	matvec_any(W_F16, out, w, x, n, r0, r1);
}

static void
matvec_bf16(float *out, const void *w, const float *x, int n, int r0, int r1)
{
	matvec_any(W_BF16, out, w, x, n, r0, r1);
}

static void
matmul_any(enum wtype t, float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	int r, tt;

	for (r = r0; r < r1; r++)
		for (tt = 0; tt < T; tt += TG)
			rowdots(t, out + (size_t)tt * ldo, ldo, w,
			    x + (size_t)tt * ldx, ldx, n,
			    T - tt < TG ? T - tt : TG, r);
}

static void
matmul_f32(float *out, int ldo, const void *w, const float *x, int ldx,
    int n, int T, int r0, int r1)
{
	matmul_any(W_F32, out, ldo, w, x, ldx, n, T, r0, r1);
}

static void
matmul_f16(float *out, int ldo, const void *w, const float *x, int ldx,
    int n, int T, int r0, int r1)
{
	matmul_any(W_F16, out, ldo, w, x, ldx, n, T, r0, r1);
}

static void
matmul_bf16(float *out, int ldo, const void *w, const float *x, int ldx,
    int n, int T, int r0, int r1)
{
	matmul_any(W_BF16, out, ldo, w, x, ldx, n, T, r0, r1);
}

/* kern.h's argmax: eight lanes, each keeping the first index of its
 * largest, so that the compares do not wait on one another; the
 * largest of the lanes' is the first of its value among them. */
static int
argmax(const float *x, int n)
{
	float m[8];
	int b[8], i, k, inf = 0;
	uint32_t u;

	for (k = 0; k < 8; k++)
		m[k] = -INFINITY, b[k] = -1;
	for (i = 0; i < n; i += 8)
		for (k = 0; k < 8 && i + k < n; k++) {
			memcpy(&u, x + i + k, sizeof u);
			inf |= (u & 0x7f800000) == 0x7f800000;
			if (x[i + k] > m[k])
				m[k] = x[i + k], b[k] = i + k;
		}
	if (inf)
		return kern_first_bad(x, n);
	return kern_best_lane(m, b, 8);
}

static float
dot(const float *a, const float *b, int n)
{
	float s[8] = { 0 };
	int i, j;

	for (i = 0; i + 8 <= n; i += 8)
		for (j = 0; j < 8; j++)
			s[j] += a[i + j] * b[i + j];
	for (j = 0; i < n; i++, j++)
		s[j] += a[i] * b[i];
	return sum8(s);
}

static void
axpy(float *y, float a, const float *x, int n)
{
	int i;

	for (i = 0; i < n; i++)
		y[i] += a * x[i];
}

static void
rmsnorm(float *o, const float *x, const float *w, int n, float eps)
{
	float r = 1.0f / sqrtf(dot(x, x, n) / (float)n + eps);
	int i;

	for (i = 0; i < n; i++)
		o[i] = x[i] * r * w[i];
}

static void
tof32_f32(float *out, const void *w, size_t n)
{
	memmove(out, w, n * sizeof *out);
}

static void
tof32_f16(float *out, const void *w, size_t n)
{
	const uint16_t *h = w;
	size_t i;

	for (i = 0; i < n; i++)
		out[i] = conv_f16_to_f32(h[i]);
}

static void
tof32_bf16(float *out, const void *w, size_t n)
{
	const uint16_t *h = w;
	size_t i;

	for (i = 0; i < n; i++)
		out[i] = u2f((uint32_t)h[i] << 16);
}


/* ---- Q8_0 ---- */


/* Dot of Q8_0 row r of w with the quantized activations xq: one float
 * sum over the blocks in order, each block an exact int32 sum. */
static float
q8dot(const void *w, int n, int r, const void *xq)
{
	size_t nb = CONV_Q8_0_NB(n), b;
	const float *wd = (const float *)((const char *)w + r *
	    conv_q8_0_rowsize(n)), *xd = xq;
	const int8_t *wq = (const int8_t *)(wd + nb);
	const int16_t *q = (const int16_t *)(xd + nb);
	float s = 0;
	int32_t is;
	int i;

	for (b = 0; b < nb; b++) {
		is = 0;
		for (i = 0; i < 32; i++)
			is += (int32_t)wq[32 * b + i] * q[32 * b + i];
		s += (float)is * (wd[b] * xd[b]);
	}
	return s;
}

static void
matvec_q8_0(float *out, const void *w, const float *x, int n, int r0, int r1)
{
	float xq[CONV_Q8_0_XMAX / sizeof(float)];
	int r;

	if (n > CONV_Q8_0_MAXN)
		return;
	conv_q8_0_quant_x(xq, x, n);
	for (r = r0; r < r1; r++)
		out[r] = q8dot(w, n, r, xq);
}

static void
matmul_q8_0(float *out, int ldo, const void *w, const float *x, int ldx,
    int n, int T, int r0, int r1)
{
	int t;

	for (t = 0; t < T; t++)
		matvec_q8_0(out + (size_t)t * ldo, w, x + (size_t)t * ldx, n,
		    r0, r1);
}

static void
geglu_tanh(float *h, const float *gate, const float *up, int n)
{
	kern_geglu(h, gate, up, n, ACT_GELU_TANH);
}

#define PORTABLE { \
	.name = "portable", \
	.matvec = { matvec_f32, matvec_f16, matvec_bf16, matvec_q8_0, \
		[W_Q4] = kern_q4_matvec, [W_GPTQ4] = kern_gptq_matvec, \
		[W_AWQ4] = kern_awq_matvec, [W_Q8_0I] = kern_i8_matvec, \
		[W_Q4I] = kern_q4i_matvec, \
		[W_GQ8_0] = kern_gq8_0_matvec, \
		[W_Q4_0] = kern_q4_0_matvec, \
		[W_Q4_1] = kern_q4_1_matvec, \
		[W_Q5_0] = kern_q5_0_matvec, \
		[W_Q5_1] = kern_q5_1_matvec, \
		[W_Q2_K] = kern_q2_k_matvec, \
		[W_Q3_K] = kern_q3_k_matvec, \
		[W_Q4_K] = kern_q4_k_matvec, \
		[W_Q5_K] = kern_q5_k_matvec, \
		[W_Q6_K] = kern_q6_k_matvec, \
		[W_IQ4_NL] = kern_iq4_nl_matvec, \
		[W_IQ4_XS] = kern_iq4_xs_matvec, \
		[W_GQ8_0I] = kern_gq8_0i_matvec, [W_Q4_0I] = kern_q4_0i_matvec, \
		[W_Q5_0I] = kern_q5_0i_matvec, [W_Q4_KI] = kern_q4_ki_matvec, \
		[W_Q6_KI] = kern_q6_ki_matvec, \
		[W_Q8X16] = kern_q8x16_matvec, [W_Q4X16] = kern_q4x16_matvec, \
		[W_Q4KX16] = kern_q4kx16_matvec, \
		[W_Q6KX16] = kern_q6kx16_matvec }, \
	.matmul = { matmul_f32, matmul_f16, matmul_bf16, matmul_q8_0, \
		[W_Q4] = kern_q4_matmul, [W_GPTQ4] = kern_gptq_matmul, \
		[W_AWQ4] = kern_awq_matmul, [W_Q8_0I] = kern_i8_matmul, \
		[W_Q4I] = kern_q4i_matmul, \
		[W_GQ8_0] = kern_gq8_0_matmul, \
		[W_Q4_0] = kern_q4_0_matmul, \
		[W_Q4_1] = kern_q4_1_matmul, \
		[W_Q5_0] = kern_q5_0_matmul, \
		[W_Q5_1] = kern_q5_1_matmul, \
		[W_Q2_K] = kern_q2_k_matmul, \
		[W_Q3_K] = kern_q3_k_matmul, \
		[W_Q4_K] = kern_q4_k_matmul, \
		[W_Q5_K] = kern_q5_k_matmul, \
		[W_Q6_K] = kern_q6_k_matmul, \
		[W_IQ4_NL] = kern_iq4_nl_matmul, \
		[W_IQ4_XS] = kern_iq4_xs_matmul, \
		[W_GQ8_0I] = kern_gq8_0i_matmul, [W_Q4_0I] = kern_q4_0i_matmul, \
		[W_Q5_0I] = kern_q5_0i_matmul, [W_Q4_KI] = kern_q4_ki_matmul, \
		[W_Q6_KI] = kern_q6_ki_matmul, \
		[W_Q8X16] = kern_q8x16_matmul, [W_Q4X16] = kern_q4x16_matmul, \
		[W_Q4KX16] = kern_q4kx16_matmul, \
		[W_Q6KX16] = kern_q6kx16_matmul }, \
	.matvecs = { [W_Q4] = kern_q4_matvecs }, \
	.dot = dot, \
	.argmax = argmax, \
	.rope = kern_rope, \
	.axpy = axpy, \
	.rmsnorm = rmsnorm, \
	.swiglu = kern_swiglu, \
	.geglu = geglu_tanh, \
	.to_f32 = { tof32_f32, tof32_f16, tof32_bf16, NULL, tof32_bf16, \
		[W_GQ8_0] = conv_gq8_0_to_f32, \
		[W_Q4_0] = conv_q4_0_to_f32, \
		[W_Q4_1] = conv_q4_1_to_f32, \
		[W_Q5_0] = conv_q5_0_to_f32, \
		[W_Q5_1] = conv_q5_1_to_f32, \
		[W_Q2_K] = conv_q2_k_to_f32, \
		[W_Q3_K] = conv_q3_k_to_f32, \
		[W_Q4_K] = conv_q4_k_to_f32, \
		[W_Q5_K] = conv_q5_k_to_f32, \
		[W_Q6_K] = conv_q6_k_to_f32, \
		[W_IQ4_NL] = conv_iq4_nl_to_f32, \
		[W_IQ4_XS] = conv_iq4_xs_to_f32 }, \
}

const struct kern kern_portable = PORTABLE;
/* Usable before kern_init() (a program that forgets it is slow, not
 * broken). */
struct kern kern = PORTABLE;
size_t kern_l2 = 512u << 10;
int kern_avxvnni;

/* ---- helpers, not dispatched ---- */

void *
kern_xroom(void *stack, size_t cap, size_t ld, int T, int *tb)
{
	size_t need = (size_t)T * ld;
	void *p;

	if (need > cap && (p = aligned_alloc(64, (need + 63) / 64 * 64))) {
		*tb = T;
		return p;
	}
	*tb = (int)(cap / ld);
	return stack;
}

void
kern_softmax(float *x, int n)
{
	double sum = 0.0;	/* a float sum loses ~1e-5 over a vocabulary */
	float max, inv;
	int i;

	if (n <= 0)
		return;
	max = x[0];
	for (i = 1; i < n; i++)
		if (x[i] > max)
			max = x[i];
	for (i = 0; i < n; i++) {
		x[i] = expf(x[i] - max);
		sum += x[i];
	}
	inv = (float)(1.0 / sum);
	for (i = 0; i < n; i++)
		x[i] *= inv;
}

void
kern_swiglu(float *h, const float *gate, const float *up, int n)
{
	int i;
	float g;

	for (i = 0; i < n; i++) {
		g = gate[i];
		h[i] = g / (1.0f + expf(-g)) * up[i];
	}
}

void
kern_geglu(float *h, const float *gate, const float *up, int n,
    enum kern_act act)
{
	const float k0 = 0.7978845608028654f, k1 = 0.044715f;	/* sqrt(2/pi) */
	float x;
	int i;

	for (i = 0; i < n; i++) {
		x = gate[i];
		if (act == ACT_GELU)
			x = 0.5f * x * (1.0f + erff(x * 0.7071067811865476f));
		else
			x = 0.5f * x * (1.0f + tanhf(k0 * (x + k1 * (x * x * x))));
		h[i] = x * up[i];
	}
}

void
kern_rope(float *x, int nh, int hd, const float *cos, const float *sin)
{
	int h, j, half = hd / 2;
	float a, b, *v;

	for (h = 0; h < nh; h++) {
		v = x + (size_t)h * hd;
		for (j = 0; j < half; j++) {
			a = v[j];
			b = v[j + half];
			v[j] = a * cos[j] - b * sin[j];
			v[j + half] = b * cos[j] + a * sin[j];
		}
	}
}

void
kern_rope_pairs(float *x, int nh, int hd, const float *cos, const float *sin)
{
	int h, j, half = hd / 2;
	float a, b, *v;

	for (h = 0; h < nh; h++) {
		v = x + (size_t)h * hd;
		for (j = 0; j < half; j++) {
			a = v[2 * j];
			b = v[2 * j + 1];
			v[2 * j] = a * cos[j] - b * sin[j];
			v[2 * j + 1] = b * cos[j] + a * sin[j];
		}
	}
}

/* ---- dispatch ---- */

#if defined(__x86_64__)
/* CPU and OS support for the AVX2 table (AVX2, FMA, F16C, YMM state) and
 * the AVX-512 table (F, BW, VL, DQ plus those, ZMM state). */
static int
has_isa(int level)
{
	unsigned a, b, c, d, lo, hi, want;

	if (!__get_cpuid(1, &a, &b, &c, &d))
		return 0;
	/* FMA (c12), OSXSAVE (c27), AVX (c28), F16C (c29) */
	if ((c & (1u << 12 | 1u << 27 | 1u << 28 | 1u << 29)) !=
	    (1u << 12 | 1u << 27 | 1u << 28 | 1u << 29))
		return 0;
	__asm__ volatile ("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	(void)hi;
	want = level >= 2 ? 0xe6 : 0x6;	/* XMM|YMM (+ opmask, ZMM) */
	if ((lo & want) != want)
		return 0;
	if (__get_cpuid_max(0, NULL) < 7)
		return 0;
	__cpuid_count(7, 0, a, b, c, d);
	if (!(b & 1u << 5))			/* AVX2 */
		return 0;
	/* AVX512F (b16), DQ (b17), BW (b30), VL (b31) */
	want = 1u << 16 | 1u << 17 | 1u << 30 | 1u << 31;
	if (level >= 2 && (b & want) != want)
		return 0;
	return 1;
}

/* AVX512-VNNI (vpdpbusd): leaf 7 subleaf 0, ecx bit 11. */
static int
has_vnni(void)
{
	unsigned a, b, c, d;

	__cpuid_count(7, 0, a, b, c, d);
	(void)a, (void)b, (void)d;
	return c >> 11 & 1;
}

/* AVX-VNNI (vpdpbusd on 256 bits, VEX): leaf 7 subleaf 1, eax bit 4. */
static int
has_avxvnni(void)
{
	unsigned a, b, c, d;

	if (__get_cpuid_max(0, NULL) < 7)
		return 0;
	__cpuid_count(7, 1, a, b, c, d);
	(void)b, (void)c, (void)d;
	return a >> 4 & 1;
}

/* --int8-act on ggml's types (kern.h): the AVX2 table takes the 256-bit
 * kernels, with AVX-VNNI where the CPU has it (vnni 1), the AVX-512
 * table its own where the CPU has AVX512-VNNI (vnni 2), else the
 * AVX2 table's (the same bits); set here rather than in each table, one
 * place for the choice. */
static void
gi8_entries(int vnni)
{
	static const struct {
		enum wtype t;
		kern_matvec_fn *mv[3];
		kern_matmul_fn *mm[3];
	} e[] = {
		{ W_GQ8_0I, { kern_gq8_0i_avx2_matvec, kern_gq8_0i_vnni_matvec,
		    kern_gq8_0i_avx512_matvec }, { kern_gq8_0i_avx2_matmul,
		    kern_gq8_0i_vnni_matmul, kern_gq8_0i_avx512_matmul } },
		{ W_Q4_0I, { kern_q4_0i_avx2_matvec, kern_q4_0i_vnni_matvec,
		    kern_q4_0i_avx512_matvec }, { kern_q4_0i_avx2_matmul,
		    kern_q4_0i_vnni_matmul, kern_q4_0i_avx512_matmul } },
		{ W_Q5_0I, { kern_q5_0i_avx2_matvec, kern_q5_0i_vnni_matvec,
		    kern_q5_0i_avx512_matvec }, { kern_q5_0i_avx2_matmul,
		    kern_q5_0i_vnni_matmul, kern_q5_0i_avx512_matmul } },
		{ W_Q4_KI, { kern_q4_ki_avx2_matvec, kern_q4_ki_vnni_matvec,
		    kern_q4_ki_avx512_matvec }, { kern_q4_ki_avx2_matmul,
		    kern_q4_ki_vnni_matmul, kern_q4_ki_avx512_matmul } },
		{ W_Q6_KI, { kern_q6_ki_avx2_matvec, kern_q6_ki_vnni_matvec,
		    kern_q6_ki_avx512_matvec }, { kern_q6_ki_avx2_matmul,
		    kern_q6_ki_vnni_matmul, kern_q6_ki_avx512_matmul } },
		/* packed by 16 (kern.h): W_Q8X16 with vpdpbusd only, else
		 * portable */
		{ W_Q8X16, { NULL, kern_q8x16_vnni_matvec,
		    kern_q8x16_avx512_matvec }, { NULL, kern_q8x16_vnni_matmul,
		    kern_q8x16_avx512_matmul } },
		{ W_Q4X16, { kern_q4x16_avx2_matvec, kern_q4x16_vnni_matvec,
		    kern_q4x16_avx512_matvec }, { kern_q4x16_avx2_matmul,
		    kern_q4x16_vnni_matmul, kern_q4x16_avx512_matmul } },
		/* the superblocks packed by 16: 256-bit kernels only (packed
		 * only where the AVX2 ones run, below; AVX512-VNNI does not
		 * imply AVX-VNNI) */
		{ W_Q4KX16, { kern_q4kx16_avx2_matvec, kern_q4kx16_vnni_matvec,
		    kern_q4kx16_avx2_matvec }, { kern_q4kx16_avx2_matmul,
		    kern_q4kx16_vnni_matmul, kern_q4kx16_avx2_matmul } },
		{ W_Q6KX16, { kern_q6kx16_avx2_matvec, kern_q6kx16_vnni_matvec,
		    kern_q6kx16_avx2_matvec }, { kern_q6kx16_avx2_matmul,
		    kern_q6kx16_vnni_matmul, kern_q6kx16_avx2_matmul } },
	};
	/* the blocks of 32's activations prepared once (kern.h's xprep) */
	static const struct {
		enum wtype t;
		kern_matmulx_fn *mx;
	} x[] = {
		{ W_GQ8_0I, kern_gq8_0i_avx512_matmulx },
		{ W_Q4_0I, kern_q4_0i_avx512_matmulx },
		{ W_Q5_0I, kern_q5_0i_avx512_matmulx },
		{ W_Q8X16, kern_q8x16_avx512_matmulx },
		{ W_Q4X16, kern_q4x16_avx512_matmulx },
	};
	size_t i;

	for (i = 0; i < sizeof e / sizeof *e; i++) {
		kern.matvec[e[i].t] = e[i].mv[vnni];
		kern.matmul[e[i].t] = e[i].mm[vnni];
	}
	if (vnni == 1) {
		kern.matvec[W_Q8_0I] = kern_q8_0i_vnni_matvec;
		kern.matmul[W_Q8_0I] = kern_q8_0i_vnni_matmul;
		kern.matmul[W_Q4I] = kern_q4i_vnni_matmul;
		kern.xprep[W_Q4I] = kern_q4i_avx2_xprep;
		kern.matmulx[W_Q4I] = kern_q4i_vnni_matmulx;
	}
	for (i = 0; i < sizeof x / sizeof *x; i++) {
		kern.xprep[x[i].t] = vnni == 2 ? kern_b32i_avx512_xprep : NULL;
		kern.matmulx[x[i].t] = vnni == 2 ? x[i].mx : NULL;
	}
	/* the blocks of 32 packed by 16 at load (kern.h): Q8_0's where
	 * vpdpbusd makes the sums, Q4_0's everywhere (vpmaddubsw's too:
	 * bench/NOTES.md) */
	if (vnni)
		kern.pack[W_Q8_0I] = W_Q8X16, kern.pack[W_GQ8_0I] = W_Q8X16;
	kern.pack[W_Q4_0I] = W_Q4X16;
	/* the superblocks where the 256-bit kernels take them; the
	 * AVX-512 table keeps its own 512-bit ones, on the file's rows */
	if (vnni < 2)
		kern.pack[W_Q4_KI] = W_Q4KX16, kern.pack[W_Q6_KI] = W_Q6KX16;
}

/* AVX512-BF16 (vdpbf16ps, vcvtne2ps2bf16): leaf 7 subleaf 1, eax bit 5. */
static int
has_bf16(void)
{
	unsigned a, b, c, d;

	if (__get_cpuid_max(0, NULL) < 7)
		return 0;
	__cpuid_count(7, 1, a, b, c, d);
	(void)b, (void)c, (void)d;
	return a >> 5 & 1;
}

#endif

int
kern_init(const char *want)
{
	int best = 0, w, t;

	kern = kern_portable;
#ifdef _SC_LEVEL2_CACHE_SIZE
	{
		long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);

		kern_l2 = l2 > 0 ? (size_t)l2 : kern_l2;
	}
#endif
#if defined(__x86_64__)
	kern_avxvnni = has_isa(1) && has_avxvnni();
	if (has_isa(2))
		best = 2;
	else if (has_isa(1))
		best = 1;
#endif
	if (!want || !*want)
		w = best;
	else if (!strcmp(want, "portable"))
		w = 0;
	else if (!strcmp(want, "avx2"))
		w = 1;
	else if (!strcmp(want, "avx512"))
		w = 2;
	else
		return error("unknown kernel table '%s'", want);
	if (w > best)
		return error("kernel table '%s' not supported by this cpu",
		    want);
#if defined(__x86_64__)
	if (w == 2) {
		kern = kern_avx512;
		if (!has_bf16()) {
			kern.matvec[W_BF16A] = NULL, kern.matmul[W_BF16A] = NULL;
			kern.xprep[W_BF16A] = NULL, kern.matmulx[W_BF16A] = NULL;
		}
		if (!has_vnni()) {	/* the same bits (kern.h) */
			kern.matvec[W_Q4] = kern_avx2.matvec[W_Q4];
			kern.matmul[W_Q4] = kern_avx2.matmul[W_Q4];
			kern.matvecs[W_Q4] = kern_avx2.matvecs[W_Q4];
			kern.matvec[W_Q8_0I] = kern_avx2.matvec[W_Q8_0I];
			kern.matmul[W_Q8_0I] = kern_avx2.matmul[W_Q8_0I];
			kern.matvec[W_Q4I] = kern_avx2.matvec[W_Q4I];
			kern.matmul[W_Q4I] = kern_avx2.matmul[W_Q4I];
			kern.xprep[W_Q4I] = kern_avx2.xprep[W_Q4I];
			kern.matmulx[W_Q4I] = kern_avx2.matmulx[W_Q4I];
		}
	}
	else if (w == 1)
		kern = kern_avx2;
	if (w >= 1)
		gi8_entries(w == 2 && has_vnni() ? 2 : has_avxvnni());
#endif
	/* a 4-bit matrix that kern_x16_packs takes Q4_0's chain on every
	 * table (kern.h's W_Q4I) */
	kern.pack[W_Q4I] = W_Q4X16;
	/* entries a table lacks: the portable ones, else those of the
	 * type whose bytes it shares (to_f32 of BF16A is BF16's), or
	 * wtypes' (from_f32) */
	for (t = 0; t < W_NTYPES; t++) {
		if (!kern.matvec[t] || !kern.matmul[t]) {
			kern.matvec[t] = kern_portable.matvec[t];
			kern.matmul[t] = kern_portable.matmul[t];
		}
		if (!kern.to_f32[t])
			kern.to_f32[t] = kern.to_f32[wtypes[t].store];
		if (!kern.from_f32[t])
			kern.from_f32[t] = wtypes[t].from_f32;
	}
	return 0;
}
