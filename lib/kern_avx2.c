/* kern_avx2.c: the AVX2 table (AVX2, FMA, F16C).
 *
 * The same scheme as kern_avx512.c with 8 lanes: every dot product of a
 * weight row with an activation vector keeps one 8-lane float
 * accumulator (element i in lane i % 8, one FMA per 8 elements in
 * order, the tail through a zero-padded copy), then adds the lanes in a
 * fixed tree (lane i with i+4, i with i+2, i with i+1).  The register
 * blocks only interleave such sums and the 4-row reduction performs the
 * same tree, so an output never depends on its neighbours.  BF16 widens
 * by a 16-bit shift, F16 by vcvtph2ps: both exact. */
#if defined(__x86_64__)

#include <immintrin.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "gptq.h"
#include "kern.h"
#include "kern_avx2_int.h"
#include "vexp.h"


#define MR 4	/* rows per register block */
#define MT 2	/* tokens per register block: MR*MT accumulators */

/* 8 weights from element i of w, widened. */
INLINE __m256
wload(enum wtype t, const void *w, size_t i)
{
	__m128i h;

	switch (t) {
	case W_F16:
		h = _mm_loadu_si128((const __m128i *)((const uint16_t *)w + i));
		return _mm256_cvtph_ps(h);
	case W_BF16:
		h = _mm_loadu_si128((const __m128i *)((const uint16_t *)w + i));
		return _mm256_castsi256_ps(_mm256_slli_epi32(
		    _mm256_cvtepu16_epi32(h), 16));
	default:
		return _mm256_loadu_ps((const float *)w + i);
	}
}

/* The first m < 8 weights from element i, the other lanes 0; nothing
 * past them is read. */
INLINE __m256
wloadm(enum wtype t, const void *w, size_t i, int m)
{
	uint16_t h[8] = { 0 };
	float f[8] = { 0 };

	if (t == W_F32) {
		memcpy(f, (const float *)w + i, (size_t)m * sizeof *f);
		return _mm256_loadu_ps(f);
	}
	memcpy(h, (const uint16_t *)w + i, (size_t)m * sizeof *h);
	return wload(t, h, 0);
}

/* hsum of a, b, c, d as one vector, with the same pairings (IEEE
 * addition commutes, so the results are those of hsum bit for bit). */
INLINE __m128
hsum4(__m256 a, __m256 b, __m256 c, __m256 d)
{
	__m256 ab = _mm256_add_ps(_mm256_permute2f128_ps(a, b, 0x20),
	    _mm256_permute2f128_ps(a, b, 0x31));	/* i + (i+4) */
	__m256 cd = _mm256_add_ps(_mm256_permute2f128_ps(c, d, 0x20),
	    _mm256_permute2f128_ps(c, d, 0x31));
	/* [a0 a1 c0 c1 | b0 b1 d0 d1] + [a2 a3 c2 c3 | b2 b3 d2 d3] */
	__m256 q = _mm256_add_ps(_mm256_shuffle_ps(ab, cd, 0x44),
	    _mm256_shuffle_ps(ab, cd, 0xee));		/* i + (i+2) */
	/* [a c a c | b d b d] */
	__m256 r = _mm256_add_ps(_mm256_shuffle_ps(q, q, 0x88),
	    _mm256_shuffle_ps(q, q, 0xdd));		/* i + (i+1) */

	return _mm_unpacklo_ps(_mm256_castps256_ps128(r),
	    _mm256_extractf128_ps(r, 1));
}

/* out[j*ldo + r + i*rs] = the reduction of acc[i][j], i < R, j < TT:
 * the store of every register block below. */
INLINE void
store(int R, int TT, float *out, int ldo, int r, int rs,
    __m256 acc[MR][MT])
{
	int i, j;

	UNROLL
	for (j = 0; j < TT; j++) {
		if (R == 4 && rs == 1)
			_mm_storeu_ps(out + (size_t)j * ldo + r,
			    hsum4(acc[0][j], acc[1][j], acc[2][j], acc[3][j]));
		else
			UNROLL
			for (i = 0; i < R; i++)
				out[(size_t)j * ldo + r + i * rs] =
				    hsum(acc[i][j]);
	}
}

/* out[j*ldo + r + i*rs] = dot(W[r + i*rs], x + j*ldx) for i < R, j < TT.
 * R and TT are constants after inlining (R <= MR, TT <= MT). */
INLINE void
block(enum wtype t, int R, int TT, float *out, int ldo, const void *w,
    const float *x, int ldx, int n, int r, int rs)
{
	__m256 acc[MR][MT], wv[MR], xv;
	size_t row[MR];
	int i, j, k;

	UNROLL
	for (i = 0; i < R; i++) {
		row[i] = (size_t)(r + i * rs) * n;
		UNROLL
		for (j = 0; j < TT; j++)
			acc[i][j] = _mm256_setzero_ps();
	}
	for (k = 0; k + 8 <= n; k += 8) {
		UNROLL
		for (i = 0; i < R; i++)
			wv[i] = wload(t, w, row[i] + k);
		UNROLL
		for (j = 0; j < TT; j++) {
			xv = _mm256_loadu_ps(x + (size_t)j * ldx + k);
			UNROLL
			for (i = 0; i < R; i++)
				acc[i][j] = _mm256_fmadd_ps(wv[i], xv,
				    acc[i][j]);
		}
	}
	if (k < n) {
		UNROLL
		for (i = 0; i < R; i++)
			wv[i] = wloadm(t, w, row[i] + k, n - k);
		UNROLL
		for (j = 0; j < TT; j++) {
			xv = xloadm(x + (size_t)j * ldx + k, n - k);
			UNROLL
			for (i = 0; i < R; i++)
				acc[i][j] = _mm256_fmadd_ps(wv[i], xv,
				    acc[i][j]);
		}
	}
	store(R, TT, out, ldo, r, rs, acc);
}

/* Rows [r0, r1) against TT tokens, MR rows at a time. */
INLINE void
rows(enum wtype t, int TT, float *out, int ldo, const void *w,
    const float *x, int ldx, int n, int r0, int r1)
{
	int r;

	for (r = r0; r + MR <= r1; r += MR)
		block(t, MR, TT, out, ldo, w, x, ldx, n, r, 1);
	for (; r < r1; r++)
		block(t, 1, TT, out, ldo, w, x, ldx, n, r, 1);
}

/* Decode: the rows in two halves read side by side, two sequential
 * streams (see kern_avx512.c). */
INLINE void
matvec(enum wtype t, float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	int h = (r1 - r0) / 2, r;

	for (r = r0; r < r0 + h; r++)
		block(t, 2, 1, out, 0, w, x, 0, n, r, h);
	if ((r1 - r0) % 2)
		block(t, 1, 1, out, 0, w, x, 0, n, r1 - 1, 1);
}

/* Prefill: tokens in super-blocks whose activations fit in L2, rows in
 * panels whose weights fit in L2, then MR x MT register blocks, so the
 * weights come from memory once per super-block. */
INLINE void
matmul(enum wtype t, float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	size_t rowb = wtype_rowsize(t, n) + 1;
	int P = (int)((256u << 10) / rowb), TB = (int)((512u << 10) /
	    ((size_t)n * 4 + 1));
	int t0, t1, p0, p1, j;

	P = P < MR ? MR : P / MR * MR;
	TB = TB < MT ? MT : TB / MT * MT;
	for (t0 = 0; t0 < T; t0 = t1) {
		t1 = T - t0 > TB ? t0 + TB : T;
		for (p0 = r0; p0 < r1; p0 = p1) {
			p1 = r1 - p0 > P ? p0 + P : r1;
			for (j = t0; j < t1; j += MT) {
				const float *xj = x + (size_t)j * ldx;
				float *oj = out + (size_t)j * ldo;

				if (t1 - j < MT)
					rows(t, 1, oj, ldo, w, xj, ldx, n, p0,
					    p1);
				else
					rows(t, 2, oj, ldo, w, xj, ldx, n, p0,
					    p1);
			}
		}
	}
}

static void
matvec_f32(float *out, const void *w, const float *x, int n, int r0, int r1)
{
	matvec(W_F32, out, w, x, n, r0, r1);
}

static void
matvec_f16(float *out, const void *w, const float *x, int n, int r0, int r1)
{
	matvec(W_F16, out, w, x, n, r0, r1);
}

static void
matvec_bf16(float *out, const void *w, const float *x, int n, int r0, int r1)
{
	matvec(W_BF16, out, w, x, n, r0, r1);
}

static void
matmul_f32(float *out, int ldo, const void *w, const float *x, int ldx,
    int n, int T, int r0, int r1)
{
	matmul(W_F32, out, ldo, w, x, ldx, n, T, r0, r1);
}

static void
matmul_f16(float *out, int ldo, const void *w, const float *x, int ldx,
    int n, int T, int r0, int r1)
{
	matmul(W_F16, out, ldo, w, x, ldx, n, T, r0, r1);
}

static void
matmul_bf16(float *out, int ldo, const void *w, const float *x, int ldx,
    int n, int T, int r0, int r1)
{
	matmul(W_BF16, out, ldo, w, x, ldx, n, T, r0, r1);
}

static float
dot(const float *a, const float *b, int n)
{
	__m256 acc = _mm256_setzero_ps();
	int k;

	for (k = 0; k + 8 <= n; k += 8)
		acc = _mm256_fmadd_ps(_mm256_loadu_ps(a + k),
		    _mm256_loadu_ps(b + k), acc);
	if (k < n)
		acc = _mm256_fmadd_ps(xloadm(a + k, n - k),
		    xloadm(b + k, n - k), acc);
	return hsum(acc);
}

static void
axpy(float *y, float a, const float *x, int n)
{
	__m256 av = _mm256_set1_ps(a);
	int k;

	for (k = 0; k + 8 <= n; k += 8)
		_mm256_storeu_ps(y + k, _mm256_fmadd_ps(av,
		    _mm256_loadu_ps(x + k), _mm256_loadu_ps(y + k)));
	for (; k < n; k++)
		y[k] = fmaf(a, x[k], y[k]);
}

static void
rmsnorm(float *o, const float *x, const float *w, int n, float eps)
{
	float r = 1.0f / sqrtf(dot(x, x, n) / (float)n + eps);
	__m256 rv = _mm256_set1_ps(r);
	int k;

	for (k = 0; k + 8 <= n; k += 8)
		_mm256_storeu_ps(o + k, _mm256_mul_ps(_mm256_mul_ps(
		    _mm256_loadu_ps(x + k), rv), _mm256_loadu_ps(w + k)));
	for (; k < n; k++)
		o[k] = x[k] * r * w[k];
}

/* silu(g) up over 8 lanes; where -g > 88 (e^-g at or beyond the top
 * of float) the denominator is infinite, so the lane is -0 as with
 * expf. */
INLINE __m256
swiglu8(__m256 g, __m256 u)
{
	__m256 ng = _mm256_sub_ps(_mm256_setzero_ps(), g);
	__m256 d = _mm256_add_ps(_mm256_set1_ps(1.0f), vexp8(ng));

	d = _mm256_blendv_ps(d, _mm256_set1_ps(INFINITY),
	    _mm256_cmp_ps(ng, _mm256_set1_ps(88.0f), _CMP_GT_OQ));
	return _mm256_mul_ps(_mm256_div_ps(g, d), u);
}

/* gelu_tanh(g) up over 8 lanes, as g / (1 + e^-2y): the sigmoid form
 * of 0.5 g (1 + tanh y), infinite denominators as in swiglu8. */
INLINE __m256
geglu8(__m256 g, __m256 u)
{
	__m256 g3 = _mm256_mul_ps(_mm256_mul_ps(g, g), g);
	__m256 y = _mm256_mul_ps(_mm256_set1_ps(0.7978845608028654f),
	    _mm256_fmadd_ps(_mm256_set1_ps(0.044715f), g3, g));
	__m256 nz = _mm256_mul_ps(_mm256_set1_ps(-2.0f), y);
	__m256 d = _mm256_add_ps(_mm256_set1_ps(1.0f), vexp8(nz));

	d = _mm256_blendv_ps(d, _mm256_set1_ps(INFINITY),
	    _mm256_cmp_ps(nz, _mm256_set1_ps(88.0f), _CMP_GT_OQ));
	return _mm256_mul_ps(_mm256_div_ps(g, d), u);
}

static void
geglu(float *h, const float *gate, const float *up, int n)
{
	float f[8];
	int k;

	for (k = 0; k + 8 <= n; k += 8)
		_mm256_storeu_ps(h + k, geglu8(_mm256_loadu_ps(gate + k),
		    _mm256_loadu_ps(up + k)));
	if (k < n) {
		_mm256_storeu_ps(f, geglu8(xloadm(gate + k, n - k),
		    xloadm(up + k, n - k)));
		memcpy(h + k, f, (size_t)(n - k) * sizeof *f);
	}
}

static void
swiglu(float *h, const float *gate, const float *up, int n)
{
	float f[8];
	int k;

	for (k = 0; k + 8 <= n; k += 8)
		_mm256_storeu_ps(h + k, swiglu8(_mm256_loadu_ps(gate + k),
		    _mm256_loadu_ps(up + k)));
	if (k < n) {
		_mm256_storeu_ps(f, swiglu8(xloadm(gate + k, n - k),
		    xloadm(up + k, n - k)));
		memcpy(h + k, f, (size_t)(n - k) * sizeof *f);
	}
}

static void
tof32_f32(float *out, const void *w, size_t n)
{
	memmove(out, w, n * sizeof *out);
}

INLINE void
widen(enum wtype t, float *out, const void *w, size_t n)
{
	float f[8];
	size_t k;

	for (k = 0; k + 8 <= n; k += 8)
		_mm256_storeu_ps(out + k, wload(t, w, k));
	if (k < n) {
		_mm256_storeu_ps(f, wloadm(t, w, k, (int)(n - k)));
		memcpy(out + k, f, (n - k) * sizeof *f);
	}
}

static void
tof32_f16(float *out, const void *w, size_t n)
{
	widen(W_F16, out, w, n);
}

static void
tof32_bf16(float *out, const void *w, size_t n)
{
	widen(W_BF16, out, w, n);
}

/* ---- Q8_0 ----
 *
 * The activations are quantized to int16 by kern_q8_0_quant_x.  Per
 * block of 32: the int8 weights widened to int16 (vpmovsxbw), vpmaddwd
 * against the activations in two halves, the halves added: 8 int32 lanes
 * of 4 products each, exact (and exact in float: below 2^24), converted
 * and added in float with the product of the two block scales.  The
 * lanes are reduced by hsum, per output, whatever the register block. */

#define QR 2	/* rows per register block */
#define QT 2	/* tokens per register block */
#define XQBUF (64 * 1024)	/* bytes of quantized activations */

/* 8 float lanes holding exact partial sums of w . a over a block of 32
 * (w: 32 int8, a: 32 int16). */
INLINE __m256
qdot(const int8_t *w, const int16_t *a)
{
	__m256i lo = _mm256_madd_epi16(_mm256_cvtepi8_epi16(_mm_loadu_si128(
	    (const __m128i *)w)), _mm256_loadu_si256((const __m256i *)a));
	__m256i hi = _mm256_madd_epi16(_mm256_cvtepi8_epi16(_mm_loadu_si128(
	    (const __m128i *)(w + 16))), _mm256_loadu_si256((const __m256i *)
	    (a + 16)));

	return _mm256_cvtepi32_ps(_mm256_add_epi32(lo, hi));
}

/* out[j*ldo + r + i*rs] = row r + i*rs of w . token j of the quantized
 * activations at xq (stride ldxq bytes), i < R, j < TT. */
INLINE void
qblock(int R, int TT, float *out, int ldo, const void *w, const char *xq,
    size_t ldxq, int n, int r, int rs)
{
	size_t nb = KERN_Q8_0_NB(n), rowb = nb * (4 + 32), b;
	const float *wd[QR], *xd[QT];
	const int8_t *wq[QR];
	const int16_t *xv[QT];
	__m256 acc[MR][MT];	/* QR x QT of them used */
	int i, j;

	UNROLL
	for (i = 0; i < R; i++) {
		wd[i] = (const float *)((const char *)w + (size_t)(r + i * rs) *
		    rowb);
		wq[i] = (const int8_t *)(wd[i] + nb);
		UNROLL
		for (j = 0; j < TT; j++)
			acc[i][j] = _mm256_setzero_ps();
	}
	UNROLL
	for (j = 0; j < TT; j++) {
		xd[j] = (const float *)(xq + (size_t)j * ldxq);
		xv[j] = (const int16_t *)(xd[j] + nb);
	}
	for (b = 0; b < nb; b++)
		UNROLL
		for (j = 0; j < TT; j++)
			UNROLL
			for (i = 0; i < R; i++)
				acc[i][j] = _mm256_fmadd_ps(qdot(wq[i] + 32 * b,
				    xv[j] + 32 * b), _mm256_set1_ps(wd[i][b] *
				    xd[j][b]), acc[i][j]);
	store(R, TT, out, ldo, r, rs, acc);
}

/* Decode: two halves of the rows side by side, as matvec. */
static void
matvec_q8_0(float *out, const void *w, const float *x, int n, int r0, int r1)
{
	float xq[KERN_Q8_0_XMAX / sizeof(float)];
	int h = (r1 - r0) / 2, r;

	if (n > KERN_Q8_0_MAXN)
		return;
	kern_q8_0_quant_x(xq, x, n);
	for (r = r0; r < r0 + h; r++)
		qblock(2, 1, out, 0, w, (const char *)xq, 0, n, r, h);
	if ((r1 - r0) % 2)
		qblock(1, 1, out, 0, w, (const char *)xq, 0, n, r1 - 1, 1);
}

/* Prefill: token super-blocks quantized once, rows in panels that fit in
 * L2, QR x QT register blocks. */
static void
matmul_q8_0(float *out, int ldo, const void *w, const float *x, int ldx,
    int n, int T, int r0, int r1)
{
	char xq[XQBUF] __attribute__((aligned(32)));
	size_t ld = kern_q8_0_xsize(n);
	int P = (int)((256u << 10) / kern_q8_0_rowsize(n)), TB = (int)(XQBUF / ld);
	int t0, t1, p0, p1, j, r;
	float *o;

	if (n > KERN_Q8_0_MAXN || TB < 1)
		return;
	P = P < QR ? QR : P / QR * QR;
	for (t0 = 0; t0 < T; t0 = t1) {
		t1 = T - t0 > TB ? t0 + TB : T;
		for (j = t0; j < t1; j++)
			kern_q8_0_quant_x(xq + (size_t)(j - t0) * ld,
			    x + (size_t)j * ldx, n);
		for (p0 = r0; p0 < r1; p0 = p1) {
			p1 = r1 - p0 > P ? p0 + P : r1;
			for (j = t0; j < t1; j += QT) {
				const char *xj = xq + (size_t)(j - t0) * ld;

				o = out + (size_t)j * ldo;
				for (r = p0; r + QR <= p1; r += QR)
					if (t1 - j >= QT)
						qblock(QR, QT, o, ldo, w, xj, ld,
						    n, r, 1);
					else
						qblock(QR, 1, o, ldo, w, xj, ld,
						    n, r, 1);
				for (; r < p1; r++)
					if (t1 - j >= QT)
						qblock(1, QT, o, ldo, w, xj, ld,
						    n, r, 1);
					else
						qblock(1, 1, o, ldo, w, xj, ld,
						    n, r, 1);
			}
		}
	}
}

const struct kern kern_avx2 = {
	.name = "avx2",
	.matvec = { matvec_f32, matvec_f16, matvec_bf16, matvec_q8_0,
		[W_Q4] = kern_q4_avx2_matvec,
		[W_GPTQ4] = kern_gptq_avx2_matvec },
	.matmul = { matmul_f32, matmul_f16, matmul_bf16, matmul_q8_0,
		[W_Q4] = kern_q4_avx2_matmul,
		[W_GPTQ4] = kern_gptq_avx2_matmul },
	.dot = dot,
	.axpy = axpy,
	.rmsnorm = rmsnorm,
	.swiglu = swiglu,
	.geglu = geglu,
	.to_f32 = { tof32_f32, tof32_f16, tof32_bf16 },
};

#endif
