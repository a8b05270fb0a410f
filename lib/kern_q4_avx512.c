/* kern_q4_avx512.c: the W_Q4 entries of the AVX-512 table (kern.h).
 *
 * The integer path of kern.h with VNNI: a chunk of 16 words (128
 * weights) of a row is one 64-byte load, its low and high nibbles two
 * masks, and vpdpbusd sums a word's 8 products with one digit of the
 * activations in each lane; so per chunk, row and token six vpdpbusd,
 * the digits put together, one conversion and one FMA into 16 lanes,
 * the portable kernel's lanes.  The activations are prepared once per
 * token (prep, the bytes of kern_q4_prep).  Decode takes MR rows a
 * block from parts of the range far apart (MR streams: what reads
 * fastest here, bench/NOTES.md), prefill MRM rows by TJ tokens with the
 * same sequence of operations per row and token, so the two agree bit
 * for bit. */
#if defined(__x86_64__)

#include <float.h>
#include <immintrin.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kern.h"
#include "kern_avx512_int.h"

#ifndef MR
#define MR 8	/* rows per block of the decode */
#endif
#define MRM 4	/* rows per block of the prefill */
#define TJ 4	/* tokens per block of the prefill */
#define TB 64	/* tokens prepared at a time */
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

INLINE float
scale1(const struct kern_q4 *m, size_t i)
{
	uint16_t h;
	uint32_t u;
	float f;

	switch (m->st) {
	case W_F16:
		memcpy(&h, (const uint16_t *)m->s + i, sizeof h);
		return _cvtsh_ss(h);
	case W_BF16:
		memcpy(&h, (const uint16_t *)m->s + i, sizeof h);
		u = (uint32_t)h << 16;
		memcpy(&f, &u, sizeof f);
		return f;
	default:
		memcpy(&f, (const float *)m->s + i, sizeof f);
		return f;
	}
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
		sv[w] = scale1(m, (size_t)r * m->ng + g);
		zv[w] = m->z ? zero1(m, r, g) : 8;
	}
	*s = _mm512_loadu_ps(sv);
	*z = _mm512_loadu_si512(zv);
}

/* The kinds of matrix a block is compiled for: any (the branches at
 * run time), and the common ones with their branches folded: BF16
 * scales, symmetric, groups of 32 (llm-quant's and --quant q4's
 * default) or one scale a chunk (groups of 128, the Hub's usual). */
enum { K_ANY, K_B32, K_B128 };

/* Row r's scale and zero point of each word of chunk c (whole); sp:
 * row r's first scale. */
INLINE void
sz(int K, const struct qm *q, int r, const uint16_t *sp, int c, __m512 *s,
    __m512i *z)
{
	const struct kern_q4 *m = q->m;
	size_t g;
	__m256i h;
	uint64_t u;

	if (K == K_B32) {	/* the 4 scales of the chunk's 4 groups */
		memcpy(&u, sp + 4 * c, sizeof u);
		*s = _mm512_castsi512_ps(_mm512_maskz_permutexvar_epi16(
		    0xaaaaaaaau, q->sidx, _mm512_set1_epi64((long long)u)));
		return;
	}
	if (K == K_B128) {
		u = (uint64_t)sp[(size_t)c * 128 / m->group] << 16;
		*s = _mm512_castsi512_ps(_mm512_set1_epi32((int)u));
		return;
	}
	if (q->sm == S_ONE) {
		g = m->ng == 1 ? 0 : (size_t)c * 128 / m->group;
		*s = _mm512_set1_ps(scale1(m, (size_t)r * m->ng + g));
		*z = _mm512_set1_epi32(m->z ? zero1(m, r, (int)g) : 8);
		return;
	}
	if (q->sm == S_ANY) {
		sz_any(m, r, c, 16, s, z);
		return;
	}
	g = (size_t)r * m->ng + (size_t)c * q->cnt;
	switch (m->st) {
	case W_BF16:
		h = _mm256_maskz_loadu_epi16((__mmask16)((1u << q->cnt) - 1),
		    (const uint16_t *)m->s + g);
		*s = _mm512_castsi512_ps(_mm512_maskz_permutexvar_epi16(
		    0xaaaaaaaau, q->sidx, _mm512_castsi256_si512(h)));
		break;
	case W_F16:
		h = _mm256_maskz_loadu_epi16((__mmask16)((1u << q->cnt) - 1),
		    (const uint16_t *)m->s + g);
		/* the halves widened to 32-bit lanes, spread, narrowed */
		*s = _mm512_cvtph_ps(_mm512_cvtepi32_epi16(
		    _mm512_permutexvar_epi32(q->zidx, _mm512_cvtepu16_epi32(h))));
		break;
	default:
		*s = _mm512_permutexvar_ps(q->zidx, _mm512_maskz_loadu_ps(
		    (__mmask16)((1u << q->cnt) - 1), (const float *)m->s + g));
		break;
	}
	if (m->z)
		*z = _mm512_permutexvar_epi32(q->zidx, _mm512_and_si512(
		    _mm512_srli_epi32(_mm512_maskz_loadu_epi32(
		    (__mmask16)((1u << q->cnt) - 1), m->z + (size_t)(r / 8) *
		    m->ng + (size_t)c * q->cnt), (unsigned)(4 * (r % 8))),
		    _mm512_set1_epi32(15)));
	else
		*z = _mm512_set1_epi32(8);
}

/* Rows r + i*rs (i < R) against tokens xs[j] (j < J) into os[j][row]:
 * per chunk a row's nibbles once, then per token six vpdpbusd, L, the
 * conversion and the FMA of kern.h's sum, lane w for word w. */
INLINE void
qblk(int K, int R, int J, const struct qm *q, int n, int r, int rs,
    const struct kern_q4x *const *xs, float *const *os)
{
	const struct kern_q4 *m = q->m;
	const __m512i m4 = _mm512_set1_epi8(15);
	__m512 acc[MRM > MR ? MRM : MR][TJ], s, f;
	__m512i v, lo, hi, z, pa, pb, pc;
	const struct kern_q4x *h;
	const uint32_t *qr[MR > MRM ? MR : MRM];
	const uint16_t *sp[MR > MRM ? MR : MRM];
	int nc = KERN_Q4_NC(n), c, i, j, nw;
	__mmask16 wm;

	UNROLL
	for (i = 0; i < R; i++) {
		qr[i] = m->q + (size_t)(r + i * rs) * m->wpr;
		sp[i] = (const uint16_t *)m->s + (size_t)(r + i * rs) * m->ng;
		UNROLL
		for (j = 0; j < J; j++)
			acc[i][j] = _mm512_setzero_ps();
	}
	for (c = 0; c < nc; c++) {
		nw = m->wpr - 16 * c < 16 ? m->wpr - 16 * c : 16;
		wm = (__mmask16)((1u << nw) - 1);
		UNROLL
		for (i = 0; i < R; i++) {
			if (nw == 16) {
				v = _mm512_loadu_si512(qr[i] + 16 * c);
				sz(K, q, r + i * rs, sp[i], c, &s, &z);
			} else {
				v = _mm512_maskz_loadu_epi32(wm, qr[i] + 16 * c);
				sz_any(m, r + i * rs, c, nw, &s, &z);
			}
			_mm_prefetch((const char *)(qr[i] + 16 * c) + PFD,
			    _MM_HINT_T0);
			lo = _mm512_and_si512(v, m4);
			hi = _mm512_and_si512(_mm512_srli_epi16(v, 4), m4);
			UNROLL
			for (j = 0; j < J; j++) {
				h = xs[j] + c;
				pc = _mm512_load_si512(h->nsx);
				pc = K == K_ANY && m->z ?
				    _mm512_mullo_epi32(pc, z) : _mm512_slli_epi32(pc, 3);
				pc = _mm512_dpbusd_epi32(pc, lo,
				    _mm512_load_si512(h->d[0][0]));
				pc = _mm512_dpbusd_epi32(pc, hi,
				    _mm512_load_si512(h->d[0][1]));
				pb = _mm512_dpbusd_epi32(_mm512_setzero_si512(), lo,
				    _mm512_load_si512(h->d[1][0]));
				pb = _mm512_dpbusd_epi32(pb, hi,
				    _mm512_load_si512(h->d[1][1]));
				pa = _mm512_dpbusd_epi32(_mm512_setzero_si512(), lo,
				    _mm512_load_si512(h->d[2][0]));
				pa = _mm512_dpbusd_epi32(pa, hi,
				    _mm512_load_si512(h->d[2][1]));
				pc = _mm512_add_epi32(pc, _mm512_add_epi32(
				    _mm512_slli_epi32(pb, 8), _mm512_slli_epi32(pa, 16)));
				f = _mm512_mul_ps(s, _mm512_load_ps(h->ef));
				acc[i][j] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(pc), f,
				    acc[i][j]);
			}
		}
	}
	UNROLL
	for (i = 0; i < R; i++)
		UNROLL
		for (j = 0; j < J; j++)
			os[j][r + i * rs] = hsum(acc[i][j]);
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

/* kern_q4_prep's bytes. */
static int
prep(struct kern_q4x *xc, const float *x, int n)
{
	const __m512i ev = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18,
	    20, 22, 24, 26, 28, 30);
	const __m512i od = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17,
	    19, 21, 23, 25, 27, 29, 31);
	const __m512 big = _mm512_set1_ps(FLT_MAX);
	const __m512i one = _mm512_set1_epi8(1);
	int nc = KERN_Q4_NC(n), b, k, e, c, i;
	__m512 v0, v1, a0, a1, p;
	__m512i X0, X1, t[3];
	__mmask16 k0, k1;
	struct kern_q4x *h;
	float ef;

	memset(xc + nc - 1, 0, sizeof *xc);
	for (b = 0; b * 32 < n; b++) {
		e = n - b * 32;
		k0 = e >= 16 ? 0xffff : (__mmask16)((1u << e) - 1);
		k1 = e >= 32 ? 0xffff : e > 16 ? (__mmask16)((1u << (e - 16)) - 1) : 0;
		v0 = _mm512_maskz_loadu_ps(k0, x + b * 32);
		v1 = _mm512_maskz_loadu_ps(k1, x + b * 32 + 16);
		a0 = _mm512_abs_ps(v0);
		a1 = _mm512_abs_ps(v1);
		if (_mm512_cmp_ps_mask(a0, big, _CMP_NLE_UQ) |
		    _mm512_cmp_ps_mask(a1, big, _CMP_NLE_UQ))
			return -1;
		k = kern_q4_xk(_mm512_reduce_max_ps(_mm512_max_ps(a0, a1)));
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
	/* minus each word's sum of X, from its digits */
	for (c = 0; c < nc; c++) {
		h = xc + c;
		for (i = 0; i < 3; i++)
			t[i] = _mm512_dpbusd_epi32(_mm512_dpbusd_epi32(
			    _mm512_setzero_si512(), one,
			    _mm512_load_si512(h->d[i][0])), one,
			    _mm512_load_si512(h->d[i][1]));
		_mm512_store_si512(h->nsx, _mm512_sub_epi32(_mm512_setzero_si512(),
		    _mm512_add_epi32(t[0], _mm512_add_epi32(
		    _mm512_slli_epi32(t[1], 8), _mm512_slli_epi32(t[2], 16)))));
	}
	return 0;
}

static int
kind(const struct kern_q4 *m)
{
	if (m->st != W_BF16 || m->z)
		return K_ANY;
	return m->group == 32 ? K_B32 : m->group % 128 == 0 ? K_B128 : K_ANY;
}

void
kern_q4_avx512_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	struct kern_q4x xc[KERN_Q4_NC(KERN_Q4_MAXN)];
	const struct kern_q4x *xs[1] = { xc };
	float *os[1] = { out };
	struct qm q;
	int h = (r1 - r0) / MR, r;

	if (!kern_q4_int(w, n) || prep(xc, x, n) < 0) {
		for (r = r0; r < r1; r++)
			out[r] = kern_q4_fdot(w, r, x, n);
		return;
	}
	qm_init(&q, w);
	switch (kind(w)) {
	case K_B32:
		for (r = r0; r < r0 + h; r++)
			qblk(K_B32, MR, 1, &q, n, r, h, xs, os);
		for (r = r0 + MR * h; r < r1; r++)
			qblk(K_B32, 1, 1, &q, n, r, 1, xs, os);
		break;
	case K_B128:
		for (r = r0; r < r0 + h; r++)
			qblk(K_B128, MR, 1, &q, n, r, h, xs, os);
		for (r = r0 + MR * h; r < r1; r++)
			qblk(K_B128, 1, 1, &q, n, r, 1, xs, os);
		break;
	default:
		for (r = r0; r < r0 + h; r++)
			qblk(K_ANY, MR, 1, &q, n, r, h, xs, os);
		for (r = r0 + MR * h; r < r1; r++)
			qblk(K_ANY, 1, 1, &q, n, r, 1, xs, os);
	}
}

/* Rows [r0, r1) against the nt tokens xs (outputs os). */
INLINE void
mrows(int K, const struct qm *q, int n, int r0, int r1,
    const struct kern_q4x *const *xs, float *const *os, int nt)
{
	int r, j;

	for (r = r0; r + MRM <= r1; r += MRM) {
		for (j = 0; j + TJ <= nt; j += TJ)
			qblk(K, MRM, TJ, q, n, r, 1, xs + j, os + j);
		for (; j < nt; j++)
			qblk(K, MRM, 1, q, n, r, 1, xs + j, os + j);
	}
	for (; r < r1; r++)
		for (j = 0; j < nt; j++)
			qblk(K, 1, 1, q, n, r, 1, xs + j, os + j);
}

void
kern_q4_avx512_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	const struct kern_q4x *xs[TB];
	float *os[TB];
	struct kern_q4x *xc;
	struct qm q;
	int nc = KERN_Q4_NC(n), t0, t, nt, r;

	if (!kern_q4_int(w, n) ||
	    !(xc = aligned_alloc(64, (size_t)TB * nc * sizeof *xc))) {
		kern_q4_matmul(out, ldo, w, x, ldx, n, T, r0, r1);
		return;
	}
	qm_init(&q, w);
	for (t0 = 0; t0 < T; t0 += TB) {
		for (nt = 0, t = t0; t < T && t < t0 + TB; t++) {
			float *o = out + (size_t)t * ldo;
			const float *xt = x + (size_t)t * ldx;

			if (prep(xc + (size_t)nt * nc, xt, n) < 0) {
				for (r = r0; r < r1; r++)
					o[r] = kern_q4_fdot(w, r, xt, n);
				continue;
			}
			xs[nt] = xc + (size_t)nt * nc;
			os[nt++] = o;
		}
		switch (kind(w)) {
		case K_B32:
			mrows(K_B32, &q, n, r0, r1, xs, os, nt);
			break;
		case K_B128:
			mrows(K_B128, &q, n, r0, r1, xs, os, nt);
			break;
		default:
			mrows(K_ANY, &q, n, r0, r1, xs, os, nt);
		}
	}
	free(xc);
}

#endif
