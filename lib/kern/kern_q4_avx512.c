/* kern_q4_avx512.c: the W_Q4 entries of the AVX-512 table (kern.h).
 *
 * Decode (matvec) is the integer path of kern.h with VNNI: a chunk of
 * 16 words (128 weights) of a row is one 64-byte load, its low and high
 * nibbles two masks, and vpdpbusd sums a word's 8 products with one
 * digit of the activations in each lane; so per chunk and row six
 * vpdpbusd, the digits put together, one conversion and one FMA into
 * 16 lanes, the portable kernel's lanes and bits.  The activations are
 * prepared once per call (prep, the bytes of kern_q4_prep).  MR rows a
 * block from parts of the range far apart (MR streams: what reads
 * fastest here, bench/NOTES.md).
 *
 * Prefill (matmul) dequantizes panels of rows once, exactly ((q - z) *
 * scale, in a register table of a group's 16 values), and runs the F32
 * matmul over them: the F32 kernel's bits on the dequantized rows.  The
 * integer path's six vpdpbusd and their conversion per row, token and
 * chunk take the two vector pipes that multiply for longer than the F32
 * matmul's eight FMAs (bench/NOTES.md). */
#if defined(__x86_64__)

#include <float.h>
#include <immintrin.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kern/kern.h"
#include "kern/kern_avx512_int.h"

extern const struct kern kern_avx512;	/* its F32 matmul */

#ifndef MR
#define MR 8	/* rows per block of the decode */
#endif
#ifndef PFD
#define PFD 1024	/* bytes ahead each row's words are prefetched */
#endif

/* How a row's scales spread over the 16 words of a chunk. */
enum smode {
	S_ONE,		/* one scale a chunk (group a multiple of 128, or one a row) */
	S_PERM,		/* 128 / group of them (group 8, 16, 32, 64) */
	S_ANY,		/* any other multiple of 8: word by word */
};

struct qm {
	const struct kern_q4 *m;
	enum smode sm;
	int cnt;		/* S_PERM: scales a chunk */
	__m512i sidx;		/* S_PERM: word w's scale, 16-bit lanes 2w+1 */
	__m512i zidx;		/* S_PERM: word w's scale, 32-bit lanes */
};

static void
qm_init(struct qm *q, const struct kern_q4 *m)
{
	int16_t s[32] = { 0 };
	int32_t z[16];
	int w;

	q->m = m;
	q->sm = m->ng == 1 || m->group % 128 == 0 ? S_ONE :
	    128 % m->group == 0 ? S_PERM : S_ANY;
	q->cnt = 128 / m->group;
	for (w = 0; w < 16; w++) {
		s[2 * w + 1] = (int16_t)(w * 8 / m->group);
		z[w] = w * 8 / m->group;
	}
	q->sidx = _mm512_loadu_si512(s);
	q->zidx = _mm512_loadu_si512(z);
}

INLINE int
zero1(const struct kern_q4 *m, int r, int g)
{
	return (int)(m->z[(size_t)(r / 8) * m->ng + g] >> 4 * (r % 8) & 15);
}

/* Word by word: the chunk's last (nw < 16 words) or any group. */
static void
sz_any(const struct kern_q4 *m, int r, int c, int nw, __m512 *s,
    __m512i *z)
{
	float sv[16] = { 0 };
	int32_t zv[16] = { 0 };
	int w, g;

	for (w = 0; w < nw; w++) {
		g = m->ng == 1 ? 0 : (16 * c + w) * 8 / m->group;
		sv[w] = kern_scale_at(m->st, m->s, (size_t)r * m->ng + g);
		zv[w] = m->z ? zero1(m, r, g) : 8;
	}
	*s = _mm512_loadu_ps(sv);
	*z = _mm512_loadu_si512(zv);
}

/* The kinds of matrix a block is compiled for: any (the branches at
 * run time), and the common ones with their branches folded: BF16
 * scales in groups of 32 (llm-quant's and --quant q4's default) or one
 * scale a chunk (groups of 128, the Hub's usual), symmetric or with
 * zero points (Z). */
enum { K_ANY, K_B32, K_B128, K_B32Z, K_B128Z };
#define KB32(K) ((K) == K_B32 || (K) == K_B32Z)
#define KB128(K) ((K) == K_B128 || (K) == K_B128Z)
#define KZ(K) ((K) == K_B32Z || (K) == K_B128Z)

/* Row r's scale and zero point of each word of chunk c, whose first
 * nw words are the row's (the others get 0, as in the portable code);
 * sp: row r's first scale. */
INLINE void
sz(int K, const struct qm *q, int r, const uint16_t *sp, int c, int nw,
    __m512 *s, __m512i *z)
{
	const struct kern_q4 *m = q->m;
	__mmask16 wm = (__mmask16)((1u << nw) - 1);
	/* the high halves of the valid words' 32-bit lanes */
	__mmask32 hm = (__mmask32)(0xaaaaaaaau & ((1ull << 2 * nw) - 1));
	__mmask16 gm;
	size_t g;
	__m256i h;
	uint64_t u;
	int cnt;

	if (KB32(K) && nw == 16) {	/* the chunk's 4 groups' scales */
		/* 128-bit lane i (words 4i .. 4i + 3, group i) gets scale
		 * i in the high halves of its four 32-bit lanes */
		const __m512i sh = _mm512_set_epi8(
		    7, 6, -1, -1, 7, 6, -1, -1, 7, 6, -1, -1, 7, 6, -1, -1,
		    5, 4, -1, -1, 5, 4, -1, -1, 5, 4, -1, -1, 5, 4, -1, -1,
		    3, 2, -1, -1, 3, 2, -1, -1, 3, 2, -1, -1, 3, 2, -1, -1,
		    1, 0, -1, -1, 1, 0, -1, -1, 1, 0, -1, -1, 1, 0, -1, -1);

		memcpy(&u, sp + 4 * c, sizeof u);
		*s = _mm512_castsi512_ps(_mm512_shuffle_epi8(
		    _mm512_set1_epi64((long long)u), sh));
		if (K == K_B32Z)	/* and their 4 zero points */
			*z = _mm512_permutexvar_epi32(q->zidx,
			    _mm512_castsi128_si512(_mm_and_si128(_mm_srl_epi32(
			    _mm_loadu_si128((const __m128i *)(m->z + (size_t)(r /
			    8) * m->ng + 4 * (size_t)c)), _mm_cvtsi32_si128(4 * (r %
			    8))), _mm_set1_epi32(15))));
		return;
	}
	if (KB128(K) || (K == K_ANY && q->sm == S_ONE)) {
		g = m->ng == 1 ? 0 : (size_t)c * 128 / m->group;
		*s = _mm512_maskz_mov_ps(wm, KB128(K) ? _mm512_castsi512_ps(
		    _mm512_set1_epi32((int)((uint32_t)sp[g] << 16))) :
		    _mm512_set1_ps(kern_scale_at(m->st, m->s, (size_t)r * m->ng +
		    g)));
		if (K == K_ANY || K == K_B128Z)
			*z = _mm512_maskz_mov_epi32(wm, _mm512_set1_epi32(m->z ?
			    zero1(m, r, (int)g) : 8));
		return;
	}
	if (K == K_ANY && q->sm == S_ANY) {
		sz_any(m, r, c, nw, s, z);
		return;
	}
	/* S_PERM: the chunk's groups that the row has */
	cnt = m->ng - c * q->cnt < q->cnt ? m->ng - c * q->cnt : q->cnt;
	gm = (__mmask16)((1u << cnt) - 1);
	g = (size_t)r * m->ng + (size_t)c * q->cnt;
	switch (KB32(K) ? W_BF16 : m->st) {
	case W_BF16:
		h = _mm256_maskz_loadu_epi16(gm, (const uint16_t *)m->s + g);
		*s = _mm512_castsi512_ps(_mm512_maskz_permutexvar_epi16(hm,
		    q->sidx, _mm512_castsi256_si512(h)));
		break;
	case W_F16:
		/* the halves widened to 32-bit lanes, spread, narrowed */
		h = _mm256_maskz_loadu_epi16(gm, (const uint16_t *)m->s + g);
		*s = _mm512_cvtph_ps(_mm512_cvtepi32_epi16(
		    _mm512_maskz_permutexvar_epi32(wm, q->zidx,
		    _mm512_cvtepu16_epi32(h))));
		break;
	default:
		*s = _mm512_maskz_permutexvar_ps(wm, q->zidx,
		    _mm512_maskz_loadu_ps(gm, (const float *)m->s + g));
		break;
	}
	if (K == K_B32)
		return;
	if (m->z)
		*z = _mm512_maskz_permutexvar_epi32(wm, q->zidx, _mm512_and_si512(
		    _mm512_srli_epi32(_mm512_maskz_loadu_epi32(gm, m->z +
		    (size_t)(r / 8) * m->ng + (size_t)c * q->cnt),
		    (unsigned)(4 * (r % 8))), _mm512_set1_epi32(15)));
	else
		*z = _mm512_set1_epi32(8);
}

/* L of kern.h for the 16 words of a chunk, from its nibbles and a
 * token's digits: 2^8 (2^8 sum q a + sum q b) + sum q c + init, the
 * same integer as kern.h's sum in one accumulator. */
INLINE __m512i
wsum(int D, __m512i lo, __m512i hi, const struct kern_q4x *h, __m512i init)
{
	__m512i a, b, c;

	if (D == 1)	/* --int8-act: digit c alone */
		return _mm512_dpbusd_epi32(_mm512_dpbusd_epi32(init, lo,
		    _mm512_load_si512(h->d[0][0])), hi,
		    _mm512_load_si512(h->d[0][1]));
	a = _mm512_dpbusd_epi32(_mm512_setzero_si512(), lo,
	    _mm512_load_si512(h->d[2][0]));
	b = _mm512_dpbusd_epi32(_mm512_setzero_si512(), lo,
	    _mm512_load_si512(h->d[1][0]));
	c = _mm512_dpbusd_epi32(init, lo, _mm512_load_si512(h->d[0][0]));
	a = _mm512_dpbusd_epi32(a, hi, _mm512_load_si512(h->d[2][1]));
	b = _mm512_dpbusd_epi32(b, hi, _mm512_load_si512(h->d[1][1]));
	c = _mm512_dpbusd_epi32(c, hi, _mm512_load_si512(h->d[0][1]));
	return _mm512_add_epi32(_mm512_add_epi32(_mm512_slli_epi32(a, 16),
	    _mm512_slli_epi32(b, 8)), c);
}

/* acc[w] = fma((float)L[w], scale[w] 2^-k[w], acc[w]) */
INLINE __m512
step(__m512 acc, __m512i L, __m512 s, const struct kern_q4x *h)
{
	return _mm512_fmadd_ps(_mm512_cvtepi32_ps(L), _mm512_mul_ps(s,
	    _mm512_load_ps(h->ef)), acc);
}

/* - z sum X of each word: z = 8 unless the matrix has zero points. */
INLINE __m512i
zinit(int K, const struct kern_q4 *m, __m512i z, const struct kern_q4x *h)
{
	__m512i nsx = _mm512_load_si512(h->nsx);

	return KZ(K) || (K == K_ANY && m->z) ? _mm512_mullo_epi32(nsx, z) :
	    _mm512_slli_epi32(nsx, 3);
}

/* Chunk c of row r (words qr, scales sp): its nibbles, scales and zero
 * points. */
INLINE void
rowc(int K, const struct qm *q, int r, const uint32_t *qr,
    const uint16_t *sp, int c, __m512i *lo, __m512i *hi, __m512 *s,
    __m512i *z)
{
	const struct kern_q4 *m = q->m;
	const __m512i m4 = _mm512_set1_epi8(15);
	int nw = m->wpr - 16 * c < 16 ? m->wpr - 16 * c : 16;
	__m512i v;

	if (nw == 16)
		v = _mm512_loadu_si512(qr + 16 * c);
	else
		v = _mm512_maskz_loadu_epi32((__mmask16)((1u << nw) - 1),
		    qr + 16 * c);
	sz(K, q, r, sp, c, nw, s, z);
	_mm_prefetch((const char *)(qr + 16 * c) + PFD, _MM_HINT_T0);
	*lo = _mm512_and_si512(v, m4);
	*hi = _mm512_and_si512(_mm512_srli_epi16(v, 4), m4);
}

/* Decode: rows r + i*rs (i < R) against the token xs[0] into os[0],
 * each row's chunk unpacked and used at once. */
INLINE void
qblk(int D, int K, int R, const struct qm *q, int n, int r, int rs,
    const struct kern_q4x *xs, float *out)
{
	const struct kern_q4 *m = q->m;
	__m512 acc[MR], s;
	__m512i lo, hi, z;
	const uint32_t *qr[MR];
	const uint16_t *sp[MR];
	int nc = KERN_Q4_NC(n), c, i;

	UNROLL
	for (i = 0; i < R; i++) {
		qr[i] = m->q + (size_t)(r + i * rs) * m->wpr;
		sp[i] = (const uint16_t *)m->s + (size_t)(r + i * rs) * m->ng;
		acc[i] = _mm512_setzero_ps();
	}
	for (c = 0; c < nc; c++)
		UNROLL
		for (i = 0; i < R; i++) {
			rowc(K, q, r + i * rs, qr[i], sp[i], c, &lo, &hi, &s, &z);
			acc[i] = step(acc[i], wsum(D, lo, hi, xs + c,
			    zinit(K, m, z, xs + c)), s, xs + c);
		}
	UNROLL
	for (i = 0; i < R; i++)
		out[r + i * rs] = hsum(acc[i]);
}

/* The digits of 16 X into bytes o[0], o[64], o[128] (planes of d[]). */
INLINE void
digits(int8_t *o, __m512i v)
{
	__m512i d;
	int i;

	for (i = 0; i < 3; i++) {
		d = _mm512_srai_epi32(_mm512_slli_epi32(v, 24), 24);
		_mm_storeu_si128((__m128i *)(o + 128 * i), _mm512_cvtepi32_epi8(d));
		v = _mm512_srai_epi32(_mm512_sub_epi32(v, d), 8);
	}
}

/* Minus each word's sum of X of chunk h, from its first planes' bytes
 * (d[i][0], d[i][1], digit i of weight 2^8i, i < nd). */
INLINE void
nsx(struct kern_q4x *h, int nd)
{
	const __m512i one = _mm512_set1_epi8(1);
	__m512i s = _mm512_setzero_si512(), t;
	int i;

	for (i = 0; i < nd; i++) {
		t = _mm512_dpbusd_epi32(_mm512_dpbusd_epi32(
		    _mm512_setzero_si512(), one, _mm512_load_si512(h->d[i][0])),
		    one, _mm512_load_si512(h->d[i][1]));
		s = _mm512_add_epi32(s, _mm512_slli_epi32(t, 8 * i));
	}
	_mm512_store_si512(h->nsx, _mm512_sub_epi32(_mm512_setzero_si512(), s));
}

/* Block b of x[0..n) into v0, v1 (zero past n); its largest magnitude,
 * or -1 if an activation is not finite. */
INLINE float
blockmax(__m512 *v0, __m512 *v1, const float *x, int n, int b)
{
	const __m512 big = _mm512_set1_ps(FLT_MAX);
	int e = n - b * 32;
	__mmask16 k0 = e >= 16 ? 0xffff : (__mmask16)((1u << e) - 1);
	__mmask16 k1 = e >= 32 ? 0xffff : e > 16 ?
	    (__mmask16)((1u << (e - 16)) - 1) : 0;
	__m512 a0, a1;

	*v0 = _mm512_maskz_loadu_ps(k0, x + b * 32);
	*v1 = _mm512_maskz_loadu_ps(k1, x + b * 32 + 16);
	a0 = _mm512_abs_ps(*v0);
	a1 = _mm512_abs_ps(*v1);
	if (_mm512_cmp_ps_mask(a0, big, _CMP_NLE_UQ) |
	    _mm512_cmp_ps_mask(a1, big, _CMP_NLE_UQ))
		return -1;
	return _mm512_reduce_max_ps(_mm512_max_ps(a0, a1));
}

/* kern_q4_prep's bytes. */
static int
prep(struct kern_q4x *xc, const float *x, int n)
{
	const __m512i ev = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18,
	    20, 22, 24, 26, 28, 30);
	const __m512i od = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17,
	    19, 21, 23, 25, 27, 29, 31);
	int nc = KERN_Q4_NC(n), b, k, c, i;
	__m512 v0, v1, p;
	__m512i X0, X1;
	struct kern_q4x *h;
	float ef, mx;

	memset(xc + nc - 1, 0, sizeof *xc);
	for (b = 0; b * 32 < n; b++) {
		if ((mx = blockmax(&v0, &v1, x, n, b)) < 0)
			return -1;
		k = kern_q4_xk(mx);
		p = _mm512_castsi512_ps(_mm512_set1_epi32((k + 127) << 23));
		X0 = _mm512_cvtps_epi32(_mm512_mul_ps(v0, p));
		X1 = _mm512_cvtps_epi32(_mm512_mul_ps(v1, p));
		h = xc + b / 4;
		digits(h->d[0][0] + 16 * (b % 4),
		    _mm512_permutex2var_epi32(X0, ev, X1));
		digits(h->d[0][1] + 16 * (b % 4),
		    _mm512_permutex2var_epi32(X0, od, X1));
		k = (127 - k) << 23;
		memcpy(&ef, &k, sizeof ef);
		for (i = 0; i < 4; i++)
			h->ef[4 * (b % 4) + i] = ef;
	}
	for (c = 0; c < nc; c++)
		nsx(xc + c, 3);
	return 0;
}

/* kern_q4_prep8's bytes, a block of 32 at once: its largest magnitude,
 * dx = max / 127 and X = nearest-even(x / dx) as the portable code
 * rounds them (vcvtps2dq under the default rounding is nearbyintf),
 * the even and the odd elements into the two planes of digit c.  (The
 * portable one, scalar and through libm's nearbyintf, took as long as
 * the products of a batch of 16 on the 135M shape.) */
int
kern_q4_avx512_prep8(struct kern_q4x *xc, const float *x, int n)
{
	const __m512i ev = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18,
	    20, 22, 24, 26, 28, 30);
	const __m512i od = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17,
	    19, 21, 23, 25, 27, 29, 31);
	const __m512i lo = _mm512_set1_epi32(-127), hi = _mm512_set1_epi32(127);
	int nc = KERN_Q4_NC(n), b, c, i;
	__m512 v0, v1, s;
	__m512i X0, X1;
	struct kern_q4x *h;
	float d, id;

	memset(xc, 0, (size_t)nc * sizeof *xc);
	for (b = 0; b * 32 < n; b++) {
		if ((d = blockmax(&v0, &v1, x, n, b)) < 0)
			return -1;
		d /= 127.0f;
		id = d > 0 ? 1.0f / d : 0.0f;
		s = _mm512_set1_ps(id);
		X0 = _mm512_min_epi32(hi, _mm512_max_epi32(lo,
		    _mm512_cvtps_epi32(_mm512_mul_ps(v0, s))));
		X1 = _mm512_min_epi32(hi, _mm512_max_epi32(lo,
		    _mm512_cvtps_epi32(_mm512_mul_ps(v1, s))));
		h = xc + b / 4;
		_mm_storeu_si128((__m128i *)(h->d[0][0] + 16 * (b % 4)),
		    _mm512_cvtepi32_epi8(_mm512_permutex2var_epi32(X0, ev, X1)));
		_mm_storeu_si128((__m128i *)(h->d[0][1] + 16 * (b % 4)),
		    _mm512_cvtepi32_epi8(_mm512_permutex2var_epi32(X0, od, X1)));
		for (i = 0; i < 4; i++)
			h->ef[4 * (b % 4) + i] = d;
	}
	for (c = 0; c < nc; c++)
		nsx(xc + c, 1);
	return 0;
}

/* Rows [r0, r1): MR a block, from MR parts of the range. */
INLINE void
vrows(int D, int K, const struct qm *q, int n, int r0, int r1,
    const struct kern_q4x *xc, float *out)
{
	int h = (r1 - r0) / MR, r;

	for (r = r0; r < r0 + h; r++)
		qblk(D, K, MR, q, n, r, h, xc, out);
	for (r = r0 + MR * h; r < r1; r++)
		qblk(D, K, 1, q, n, r, 1, xc, out);
}

static int
kind(const struct kern_q4 *m)
{
	if (m->st != W_BF16)
		return K_ANY;
	if (m->group == 32)
		return m->z ? K_B32Z : K_B32;
	return m->group % 128 == 0 ? m->z ? K_B128Z : K_B128 : K_ANY;
}

/* Decode with D digits an activation (3, or 1 for --int8-act),
 * the activations prepared by prep. */
static void
matvec(int D, float *out, const void *w, const float *x, int n, int r0,
    int r1, int (*prep)(struct kern_q4x *xc, const float *x, int n))
{
	struct kern_q4x xc[KERN_Q4_NC(KERN_Q4_MAXN)];
	struct qm q;
	int r;

	if (!kern_q4_int(w, n) || prep(xc, x, n) < 0) {
		for (r = r0; r < r1; r++)
			out[r] = kern_q4_fdot(w, r, x, n);
		return;
	}
	qm_init(&q, w);
	switch (kind(w)) {
	case K_B32:
		vrows(D, K_B32, &q, n, r0, r1, xc, out);
		break;
	case K_B128:
		vrows(D, K_B128, &q, n, r0, r1, xc, out);
		break;
	case K_B32Z:
		vrows(D, K_B32Z, &q, n, r0, r1, xc, out);
		break;
	case K_B128Z:
		vrows(D, K_B128Z, &q, n, r0, r1, xc, out);
		break;
	default:
		vrows(D, K_ANY, &q, n, r0, r1, xc, out);
	}
}

void
kern_q4_avx512_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	matvec(3, out, w, x, n, r0, r1, prep);
}

void
kern_q4i_avx512_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	matvec(1, out, w, x, n, r0, r1, kern_q4_avx512_prep8);
}

/* Row r against TT tokens (chunks xs[j], output o[j][r]), each chunk
 * of the row unpacked once for all of them; per row and token the same
 * steps as qblk's, so each token's bits are its matvec's: --int8-act's
 * prefill (D 1) and W_Q4's decode rows of a batch (D 3, matvecs). */
#define QT 4	/* tokens a pass */
#define QR 2	/* rows a pass */
INLINE void
qblkT(int D, int K, int RR, int TT, const struct qm *q, int n, int r,
    const struct kern_q4x *const *xs, float *const *o)
{
	const struct kern_q4 *m = q->m;
	const uint32_t *qr[QR];
	const uint16_t *sp[QR];
	__m512 acc[QR][QT], s[QR];
	__m512i lo[QR], hi[QR], z[QR];
	int nc = KERN_Q4_NC(n), c, i, j;

	UNROLL
	for (i = 0; i < RR; i++) {
		qr[i] = m->q + (size_t)(r + i) * m->wpr;
		sp[i] = (const uint16_t *)m->s + (size_t)(r + i) * m->ng;
		UNROLL
		for (j = 0; j < TT; j++)
			acc[i][j] = _mm512_setzero_ps();
	}
	for (c = 0; c < nc; c++) {
		UNROLL
		for (i = 0; i < RR; i++)
			rowc(K, q, r + i, qr[i], sp[i], c, &lo[i], &hi[i], &s[i],
			    &z[i]);
		UNROLL
		for (j = 0; j < TT; j++)
			UNROLL
			for (i = 0; i < RR; i++)
				acc[i][j] = step(acc[i][j], wsum(D, lo[i], hi[i],
				    xs[j] + c, zinit(K, m, z[i], xs[j] + c)),
				    s[i], xs[j] + c);
	}
	UNROLL
	for (i = 0; i < RR; i++)
		UNROLL
		for (j = 0; j < TT; j++)
			o[j][r + i] = hsum(acc[i][j]);
}

/* Rows [p0, p1) against tokens xs[0 .. TT), QR rows a pass. */
INLINE void
tpanel(int D, int K, int TT, const struct qm *q, int n, int p0, int p1,
    const struct kern_q4x *const *xs, float *const *o)
{
	int r;

	for (r = p0; r + QR <= p1; r += QR)
		qblkT(D, K, QR, TT, q, n, r, xs, o);
	for (; r < p1; r++)
		qblkT(D, K, 1, TT, q, n, r, xs, o);
}

/* Rows [r0, r1) against the nt tokens xs (outputs o). */
INLINE void
trows(int D, int K, const struct qm *q, int n, int r0, int r1,
    const struct kern_q4x *const *xs, float *const *o, int nt)
{
	int j, p0, p1, P = KERN_Q4_TPANEL / (q->m->wpr * 4);

	P = P < 1 ? 1 : P;
	for (p0 = r0; p0 < r1; p0 = p1) {
		p1 = r1 - p0 > P ? p0 + P : r1;
		for (j = 0; j + QT <= nt; j += QT)
			tpanel(D, K, QT, q, n, p0, p1, xs + j, o + j);
		switch (nt - j) {
		case 3: tpanel(D, K, 3, q, n, p0, p1, xs + j, o + j); break;
		case 2: tpanel(D, K, 2, q, n, p0, p1, xs + j, o + j); break;
		case 1: tpanel(D, K, 1, q, n, p0, p1, xs + j, o + j); break;
		}
	}
}

INLINE void
tkind(int D, const struct qm *q, int n, int r0, int r1,
    const struct kern_q4x *const *xs, float *const *o, int nt)
{
	switch (kind(q->m)) {
	case K_B32:
		trows(D, K_B32, q, n, r0, r1, xs, o, nt);
		break;
	case K_B128:
		trows(D, K_B128, q, n, r0, r1, xs, o, nt);
		break;
	case K_B32Z:
		trows(D, K_B32Z, q, n, r0, r1, xs, o, nt);
		break;
	case K_B128Z:
		trows(D, K_B128Z, q, n, r0, r1, xs, o, nt);
		break;
	default:
		trows(D, K_ANY, q, n, r0, r1, xs, o, nt);
	}
}

#define TB 64	/* tokens prepared at a time */

/* T tokens, each row's words read once for up to TB of them, in blocks
 * of TB prepared once (on the heap: a pool thread's stack may be
 * small); a token whose prep fails (a non-finite activation) takes
 * matvec's float path, as it would alone. */
static void
many(int D, float *out, int ldo, const void *w, const float *x, int ldx,
    int n, int T, int r0, int r1,
    int (*prep)(struct kern_q4x *xc, const float *x, int n))
{
	const struct kern_q4x *xs[TB];
	float *o[TB];
	struct kern_q4x *xc = NULL;
	struct qm q;
	int nc = KERN_Q4_NC(n), t0, t1, t, nt;

	if (kern_q4_int(w, n))
		xc = aligned_alloc(64, (size_t)(T < TB ? T : TB) * nc *
		    sizeof *xc);
	if (!xc) {
		for (t = 0; t < T; t++)
			matvec(D, out + (size_t)t * ldo, w, x + (size_t)t * ldx,
			    n, r0, r1, prep);
		return;
	}
	qm_init(&q, w);
	for (t0 = 0; t0 < T; t0 = t1) {
		t1 = T - t0 > TB ? t0 + TB : T;
		for (nt = 0, t = t0; t < t1; t++) {
			if (prep(xc + (size_t)nt * nc, x + (size_t)t * ldx,
			    n) < 0) {
				matvec(D, out + (size_t)t * ldo, w, x +
				    (size_t)t * ldx, n, r0, r1, prep);
				continue;
			}
			xs[nt] = xc + (size_t)nt * nc;
			o[nt++] = out + (size_t)t * ldo;
		}
		tkind(D, &q, n, r0, r1, xs, o, nt);
	}
	free(xc);
}

void
kern_q4i_avx512_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	many(1, out, ldo, w, x, ldx, n, T, r0, r1, kern_q4_avx512_prep8);
}

/* kern.h's xprep of W_Q4I: nsx as they are (zinit scales them a row
 * chunk). */
void
kern_q4i_avx512_xprep(void *xp, const float *x, int ldx, int n, int T,
    int t0, int t1)
{
	(void)T;
	kern_q4_xprep(xp, x, ldx, n, t0, t1, kern_q4_avx512_prep8, 0);
}

/* many() on the tokens prepared, TB at a time; a marked token, or all
 * of them where w takes the float path, by matvec on x as many()
 * takes them. */
void
kern_q4i_avx512_matmulx(float *out, int ldo, const void *w, const void *xp,
    const float *x, int ldx, int n, int T, int r0, int r1)
{
	const struct kern_q4x *xs[TB], *xc;
	float *o[TB];
	struct qm q;
	int nc = KERN_Q4_NC(n), in = kern_q4_int(w, n), t0, t1, t, nt;

	qm_init(&q, w);
	for (t0 = 0; t0 < T; t0 = t1) {
		t1 = T - t0 > TB ? t0 + TB : T;
		for (nt = 0, t = t0; t < t1; t++) {
			xc = (const struct kern_q4x *)xp + (size_t)t * nc;
			if (!in || xc->nsx[0] == KERN_Q4_XBAD) {
				matvec(1, out + (size_t)t * ldo, w, x +
				    (size_t)t * ldx, n, r0, r1,
				    kern_q4_avx512_prep8);
				continue;
			}
			xs[nt] = xc;
			o[nt++] = out + (size_t)t * ldo;
		}
		tkind(1, &q, n, r0, r1, xs, o, nt);
	}
}

void
kern_q4_avx512_matvecs(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	many(3, out, ldo, w, x, ldx, n, T, r0, r1, prep);
}

/* ---- prefill: the float path ---- */

/* The group's scale and zero point of row r as vectors. */
INLINE void
fsz(const struct kern_q4 *m, int r, int g, __m512 *s, __m512 *z)
{
	*s = _mm512_set1_ps(kern_scale_at(m->st, m->s, (size_t)r * m->ng + g));
	*z = _mm512_set1_ps(m->z ? (float)(m->z[(size_t)(r / 8) * m->ng + g] >>
	    4 * (r % 8) & 15) : 8.0f);
}

/* The group's 16 weights (q - z) * scale, q = 0 .. 15, exactly: the
 * table that vpermps looks the nibbles up in. */
INLINE __m512
table(__m512 z, __m512 s)
{
	const __m512 iota = _mm512_setr_ps(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
	    11, 12, 13, 14, 15);

	return _mm512_mul_ps(_mm512_sub_ps(iota, z), s);
}

/* Nibble i of the 64-bit word at p (weights k .. k + 15 of a row, k a
 * multiple of 16) in the low 4 bits of lane i, in order, for the
 * prefill's dequantized chunks: vpermd spreads the two halves and
 * vpsrlvd shifts; the bits above are garbage, which vpermps ignores. */
INLINE __m512i
nib16(const uint32_t *p)
{
	const __m512i sh = _mm512_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28,
	    0, 4, 8, 12, 16, 20, 24, 28);
	const __m512i idx = _mm512_setr_epi32(0, 0, 0, 0, 0, 0, 0, 0,
	    1, 1, 1, 1, 1, 1, 1, 1);
	__m512i v = _mm512_castsi128_si512(_mm_loadl_epi64((const __m128i *)p));

	return _mm512_srlv_epi32(_mm512_permutexvar_epi32(idx, v), sh);
}

/* The weights k .. k + m - 1 of a row's words q (m < 16, only the words
 * that hold them read), lanes m and up +0 as a zero-filled load of float
 * weights gives. */
INLINE __m512
tail16(const uint32_t *q, int k, int m, __m512 tab)
{
	uint32_t w[2] = { q[k / 8], m > 8 ? q[k / 8 + 1] : 0 };

	return _mm512_maskz_permutexvar_ps((__mmask16)((1u << m) - 1),
	    nib16(w), tab);
}

/* Weights [k0, k0 + c) of row r into o (c rounded up to 16, padding
 * +0); k0 is a multiple of 16. */
INLINE void
deqchunk(float *o, const struct kern_q4 *m, int r, int k0, int c)
{
	const uint32_t *q = m->q + (size_t)r * m->wpr;
	__m512 s, z, tab = _mm512_setzero_ps();
	int k, g = -1;

	for (k = k0; k < k0 + c; k += 16) {
		if (k / m->group != g) {
			g = k / m->group;
			fsz(m, r, g, &s, &z);
			tab = table(z, s);
		}
		if (k0 + c - k >= 16)
			_mm512_storeu_ps(o + k - k0, _mm512_permutexvar_ps(
			    nib16(q + k / 8), tab));
		else
			_mm512_storeu_ps(o + k - k0, tail16(q, k, k0 + c - k,
			    tab));
	}
}

/* Row r of m dequantized into o (n weights, then up to 15 floats of
 * +0: a panel's next row or its slack). */
static void
deqrow(float *o, const struct kern_q4 *m, int r, int n)
{
	deqchunk(o, m, r, 0, n);
}

void
kern_q4_avx512_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	const struct kern_q4 *m = w;

	if (m->group % 16)
		kern_q4_matmul(out, ldo, w, x, ldx, n, T, r0, r1);
	else
		kern_q4_panels(out, ldo, m, x, ldx, n, T, r0, r1, deqrow,
		    kern_avx512.matmul[W_F32]);
}

#endif
