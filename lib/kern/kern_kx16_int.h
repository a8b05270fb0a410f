/* kern_kx16_int.h: the AVX2 table's kernels of the superblocks packed by
 * 16 rows (kern.h's W_Q4KX16, W_Q6KX16), included by kern_ggml_i8_avx2.c
 * and kern_ggml_i8_vnni_avx2.c after kern_ggml_i8_int.h (dpbusd, prepk).
 * A half group is 8 rows, a ymm's int32 lanes: a vpdpbusd of the
 * half's 32 bytes (4 weights of each row) and 4 of a token's bytes
 * broadcast adds 4 products to each row's lane, so a sub-block's sums
 * come out 8 rows in lanes, its 8 scales are one vpmovzxbd, and no sum
 * crosses lanes.  The integers are exact, the float chain kern.h's: the
 * bits of the portable kernels on the unpacked rows. */
#ifndef KERN_KX16_INT_H
#define KERN_KX16_INT_H

#define KXT 2		/* tokens a register block (prefill) */
#define KXTU 4		/* the same on unpacked groups */
#define KXMAX 4
#define KXUMIN 8	/* tokens from which prefill unpacks the groups */
#define KXPF 2304	/* bytes decode fetches ahead: a group's superblock */

/* The 4 bytes of a token's superblock from q, in every lane. */
INLINE __m256i
kxb(const int8_t *q)
{
	int32_t v;

	memcpy(&v, q, 4);
	return _mm256_set1_epi32(v);
}

/* A Q4_K half's 6-bit scales (s + 8j, j < 8) and mins (s + 64 + 8j) of
 * its 8 rows (k4_scale's fields) from the transposed bytes at u. */
INLINE void
kx4scales(uint8_t *s, const uint8_t *u)
{
	const __m256i m4 = _mm256_set1_epi8(15), m6 = _mm256_set1_epi8(63),
	    m30 = _mm256_set1_epi8(0x30);
	__m256i a = _mm256_loadu_si256((const __m256i *)(u + 1056)),
	    b = _mm256_loadu_si256((const __m256i *)(u + 1088)),
	    c = _mm256_loadu_si256((const __m256i *)(u + 1120));

	_mm256_store_si256((__m256i *)s, _mm256_and_si256(a, m6));
	_mm256_store_si256((__m256i *)(s + 32), _mm256_or_si256(
	    _mm256_and_si256(c, m4), _mm256_and_si256(_mm256_srli_epi16(a, 2),
	    m30)));
	_mm256_store_si256((__m256i *)(s + 64), _mm256_and_si256(b, m6));
	_mm256_store_si256((__m256i *)(s + 96), _mm256_or_si256(
	    _mm256_and_si256(_mm256_srli_epi16(c, 4), m4), _mm256_and_si256(
	    _mm256_srli_epi16(b, 2), m30)));
}

/* acc[j] += I d dx - M dmin dx, M from the mins at s + 64 and the
 * tokens' sums of X, d and dmin at u. */
INLINE void
kx4end(int TT, __m256 *acc, const __m256i *I, const uint8_t *s,
    const uint8_t *u, const struct kern_q8k *const *y)
{
	__m256i M[KXMAX], mn;
	__m256 d, dm, xd;
	int p, j;

	UNROLL
	for (j = 0; j < TT; j++)
		M[j] = _mm256_setzero_si256();
	UNROLL
	for (p = 0; p < 8; p++) {
		mn = u8x8(s + 64 + 8 * p);
		UNROLL
		for (j = 0; j < TT; j++)
			M[j] = _mm256_add_epi32(M[j], _mm256_mullo_epi32(mn,
			    _mm256_set1_epi32(y[j]->bs[2 * p] +
			    y[j]->bs[2 * p + 1])));
	}
	d = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(u + 1024)));
	dm = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(u + 1040)));
	UNROLL
	for (j = 0; j < TT; j++) {
		xd = _mm256_set1_ps(y[j]->d);
		acc[j] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(I[j]),
		    _mm256_mul_ps(d, xd), acc[j]);
		acc[j] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(
		    _mm256_setzero_si256(), M[j])), _mm256_mul_ps(dm, xd),
		    acc[j]);
	}
}

/* A Q4_K half (8 rows' superblocks at u) against TT tokens' superblocks
 * y[j]: acc[j] += each row's I and -M terms (kern.h). */
INLINE void
kx4(int TT, __m256 *acc, const uint8_t *u, const struct kern_q8k *const *y)
{
	const __m256i m4 = _mm256_set1_epi8(15);
	/* one token: two chains a sub-block (a vpdpbusd waits for the
	 * last; 8 in a row leave the ports idle) */
	__m256i I[KXMAX], a0[2 * KXMAX], a1[2 * KXMAX], v, lo, hi, s0, s1;
	int C = TT == 1 ? 2 : 1;
	uint8_t s[128] __attribute__((aligned(32)));
	int p, l, j;

	kx4scales(s, u);
	UNROLL
	for (j = 0; j < TT; j++)
		I[j] = _mm256_setzero_si256();
	for (p = 0; p < 4; p++) {
		UNROLL
		for (j = 0; j < C * TT; j++)
			a0[j] = a1[j] = _mm256_setzero_si256();
		UNROLL
		for (l = 0; l < 8; l++) {
			v = _mm256_loadu_si256((const __m256i *)(u + 256 * p +
			    32 * l));
			lo = _mm256_and_si256(v, m4);
			hi = _mm256_and_si256(_mm256_srli_epi16(v, 4), m4);
			UNROLL
			for (j = 0; j < TT; j++) {
				int c = C * j + l % C;

				a0[c] = dpbusd(a0[c], lo, kxb(y[j]->q + 64 * p +
				    4 * l));
				a1[c] = dpbusd(a1[c], hi, kxb(y[j]->q + 64 * p +
				    32 + 4 * l));
			}
		}
		if (C == 2) {
			a0[0] = _mm256_add_epi32(a0[0], a0[1]);
			a1[0] = _mm256_add_epi32(a1[0], a1[1]);
		}
		s0 = u8x8(s + 16 * p);
		s1 = u8x8(s + 16 * p + 8);
		UNROLL
		for (j = 0; j < TT; j++)
			I[j] = _mm256_add_epi32(I[j], _mm256_add_epi32(
			    _mm256_mullo_epi32(a0[j], s0), _mm256_mullo_epi32(
			    a1[j], s1)));
	}
	kx4end(TT, acc, I, s, u, y);
}

/* A Q4_K half's weights (at u) as bytes 0..15 into q, laid out as
 * kx6unpack's: sub-block j's 8 registers (columns 32j + 4i) at 256j +
 * 32i. */
INLINE void
kx4unpack(uint8_t *q, const uint8_t *u)
{
	const __m256i m4 = _mm256_set1_epi8(15);
	__m256i v;
	int p, l;

	for (p = 0; p < 4; p++)
		for (l = 0; l < 8; l++) {
			v = _mm256_loadu_si256((const __m256i *)(u + 256 * p +
			    32 * l));
			_mm256_store_si256((__m256i *)(q + 512 * p + 32 * l),
			    _mm256_and_si256(v, m4));
			_mm256_store_si256((__m256i *)(q + 512 * p + 256 +
			    32 * l), _mm256_and_si256(_mm256_srli_epi16(v, 4),
			    m4));
		}
}

/* kx4 on a half unpacked by kx4unpack at q (its scales, d, dmin at u):
 * a sub-block at a time, one chain a token. */
INLINE void
kx4q(int TT, __m256 *acc, const uint8_t *q, const uint8_t *u,
    const struct kern_q8k *const *y)
{
	__m256i I[KXMAX], A[KXMAX], w, sc;
	uint8_t s[128] __attribute__((aligned(32)));
	int k, i, j;

	kx4scales(s, u);
	UNROLL
	for (j = 0; j < TT; j++)
		I[j] = _mm256_setzero_si256();
	for (k = 0; k < 8; k++) {
		UNROLL
		for (j = 0; j < TT; j++)
			A[j] = _mm256_setzero_si256();
		UNROLL
		for (i = 0; i < 8; i++) {
			w = _mm256_load_si256((const __m256i *)(q + 256 * k +
			    32 * i));
			UNROLL
			for (j = 0; j < TT; j++)
				A[j] = dpbusd(A[j], w, kxb(y[j]->q + 32 * k +
				    4 * i));
		}
		sc = u8x8(s + 8 * k);
		UNROLL
		for (j = 0; j < TT; j++)
			I[j] = _mm256_add_epi32(I[j], _mm256_mullo_epi32(A[j],
			    sc));
	}
	kx4end(TT, acc, I, s, u, y);
}

/* The 4 registers of Q6_K weights (0..63) that qs bytes 4m'.. of half
 * h give (m < 8): columns 128h + 32k + 4m of the 8 rows, k < 4. */
INLINE void
kx6w(__m256i *w, const uint8_t *u, int h, int m)
{
	const __m256i m4 = _mm256_set1_epi8(15), m3 = _mm256_set1_epi8(3),
	    mc = _mm256_set1_epi8(12), m30 = _mm256_set1_epi8(0x30);
	__m256i q0 = _mm256_loadu_si256((const __m256i *)(u + 512 * h +
	    32 * m)), q1 = _mm256_loadu_si256((const __m256i *)(u +
	    512 * h + 256 + 32 * m)), qh = _mm256_loadu_si256(
	    (const __m256i *)(u + 1024 + 256 * h + 32 * m));

	w[0] = _mm256_or_si256(_mm256_and_si256(q0, m4), _mm256_slli_epi16(
	    _mm256_and_si256(qh, m3), 4));
	w[1] = _mm256_or_si256(_mm256_and_si256(q1, m4), _mm256_slli_epi16(
	    _mm256_and_si256(qh, mc), 2));
	w[2] = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(q0, 4), m4),
	    _mm256_and_si256(qh, m30));
	w[3] = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(q1, 4), m4),
	    _mm256_and_si256(_mm256_srli_epi16(qh, 2), m30));
}

/* Sub-block s's sums A[j] into I (times its 8 scales) and its scales
 * times the tokens' sums of X into N. */
INLINE void
kx6sub(int TT, __m256i *I, __m256i *N, const __m256i *A, const uint8_t *u,
    int s, const struct kern_q8k *const *y)
{
	__m256i sc = s8x8(u + 1536 + 8 * s);
	int j;

	UNROLL
	for (j = 0; j < TT; j++) {
		I[j] = _mm256_add_epi32(I[j], _mm256_mullo_epi32(A[j], sc));
		N[j] = _mm256_add_epi32(N[j], _mm256_mullo_epi32(sc,
		    _mm256_set1_epi32(y[j]->bs[s])));
	}
}

/* acc[j] += (I - 32 N) d dx, the half's d at u. */
INLINE void
kx6end(int TT, __m256 *acc, const __m256i *I, const __m256i *N,
    const uint8_t *u, const struct kern_q8k *const *y)
{
	__m256 d = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(u +
	    1664)));
	int j;

	UNROLL
	for (j = 0; j < TT; j++)
		acc[j] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(
		    I[j], _mm256_slli_epi32(N[j], 5))), _mm256_mul_ps(d,
		    _mm256_set1_ps(y[j]->d)), acc[j]);
}

/* A Q6_K half (8 rows at u) against TT tokens' superblocks y[j]: I =
 * sum_s sc_s (q . X)_s - 32 sum_s sc_s (sum X)_s, the q unsigned
 * (0..63) as vpdpbusd takes them; acc[j] += I d dx. */
INLINE void
kx6(int TT, __m256 *acc, const uint8_t *u, const struct kern_q8k *const *y)
{
	__m256i I[KXMAX], N[KXMAX], A[4][KXMAX], w[4];
	int h, mh, m, k, j;

	UNROLL
	for (j = 0; j < TT; j++)
		I[j] = N[j] = _mm256_setzero_si256();
	for (h = 0; h < 2; h++)
		for (mh = 0; mh < 2; mh++) {
			UNROLL
			for (k = 0; k < 4; k++)
				UNROLL
				for (j = 0; j < TT; j++)
					A[k][j] = _mm256_setzero_si256();
			UNROLL
			for (m = 4 * mh; m < 4 * mh + 4; m++) {
				kx6w(w, u, h, m);
				UNROLL
				for (k = 0; k < 4; k++)
					UNROLL
					for (j = 0; j < TT; j++)
						A[k][j] = dpbusd(A[k][j], w[k],
						    kxb(y[j]->q + 128 * h +
						    32 * k + 4 * m));
			}
			UNROLL
			for (k = 0; k < 4; k++)
				kx6sub(TT, I, N, A[k], u, 8 * h + 2 * k + mh, y);
		}
	kx6end(TT, acc, I, N, u, y);
}

/* A Q6_K half's weights (8 rows at u) as bytes 0..63 into q, a
 * sub-block after the other: sub-block s's 4 registers (its columns 16s
 * + 4i, i < 4) at 128s + 32i; 2048 bytes. */
INLINE void
kx6unpack(uint8_t *q, const uint8_t *u)
{
	__m256i w[4];
	int h, m, k;

	for (h = 0; h < 2; h++)
		for (m = 0; m < 8; m++) {
			kx6w(w, u, h, m);
			for (k = 0; k < 4; k++)
				_mm256_store_si256((__m256i *)(q + 128 * (8 * h +
				    2 * k + m / 4) + 32 * (m % 4)), w[k]);
		}
}

/* kx6 on a half unpacked by kx6unpack at q (its scales and d at u): a
 * sub-block at a time, one chain a token, so that KXTU tokens fit. */
INLINE void
kx6q(int TT, __m256 *acc, const uint8_t *q, const uint8_t *u,
    const struct kern_q8k *const *y)
{
	__m256i I[KXMAX], N[KXMAX], A[KXMAX], w;
	int s, i, j;

	UNROLL
	for (j = 0; j < TT; j++)
		I[j] = N[j] = _mm256_setzero_si256();
	for (s = 0; s < 16; s++) {
		UNROLL
		for (j = 0; j < TT; j++)
			A[j] = _mm256_setzero_si256();
		UNROLL
		for (i = 0; i < 4; i++) {
			w = _mm256_load_si256((const __m256i *)(q + 128 * s +
			    32 * i));
			UNROLL
			for (j = 0; j < TT; j++)
				A[j] = dpbusd(A[j], w, kxb(y[j]->q + 16 * s +
				    4 * i));
		}
		kx6sub(TT, I, N, A, u, s, y);
	}
	kx6end(TT, acc, I, N, u, y);
}

/* Group g (at u) of packed w (type t, nb superblocks) against TT tokens'
 * superblocks y (ldy apart), the rows in [r0, r1) into out (ldo apart);
 * uq: the group unpacked (kx4unpack, kx6unpack, a half after the
 * other), or NULL; pf: fetch the stream KXPF bytes ahead (decode). */
INLINE void
kxgroup(enum wtype t, int TT, float *out, int ldo, const uint8_t *u,
    const uint8_t *uq, const struct kern_q8k *y, size_t ldy, int nb, int g,
    int r0, int r1, int pf)
{
	size_t hb = t == W_Q4KX16 ? 1152 : 1680, a;
	const struct kern_q8k *yb[KXMAX];
	__m256 acc[2][KXMAX];
	int b, h, j;

	UNROLL
	for (h = 0; h < 2; h++)
		UNROLL
		for (j = 0; j < TT; j++)
			acc[h][j] = _mm256_setzero_ps();
	for (b = 0; b < nb; b++, u += 2 * hb) {
		if (pf)
			for (a = 0; a < 2 * hb; a += 64)
				_mm_prefetch((const char *)((uintptr_t)u +
				    KXPF + a), _MM_HINT_T0);
		UNROLL
		for (j = 0; j < TT; j++)
			yb[j] = y + (size_t)j * ldy + b;
		UNROLL
		for (h = 0; h < 2; h++)
			if (t == W_Q4KX16 && uq)
				kx4q(TT, acc[h], uq + (2 * (size_t)b + h) * 2048,
				    u + h * hb, yb);
			else if (t == W_Q4KX16)
				kx4(TT, acc[h], u + h * hb, yb);
			else if (uq)
				kx6q(TT, acc[h], uq + (2 * (size_t)b + h) * 2048,
				    u + h * hb, yb);
			else
				kx6(TT, acc[h], u + h * hb, yb);
	}
	UNROLL
	for (h = 0; h < 2; h++)
		UNROLL
		for (j = 0; j < TT; j++)
			gstore8(out + (size_t)j * ldo, 16 * g + 8 * h, acc[h][j],
			    r0, r1);
}

/* Decode: the groups of rows [r0, r1), one stream (a thread's groups lie
 * one after the other). */
INLINE void
kxmatvec(enum wtype t, float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	struct kern_q8k y[KERN_GI8_MAXN / 256];
	int nb = n / 256, g;
	size_t gs = (size_t)nb * KERN_X16_GB(t);

	if (n > KERN_GI8_MAXN || n % 256) {
		kern_portable.matvec[t](out, w, x, n, r0, r1);
		return;
	}
	prepk(y, x, n);
	for (g = r0 / 16; g < (r1 + 15) / 16; g++)
		kxgroup(t, 1, out, 0, (const uint8_t *)w + (size_t)g * gs, NULL,
		    y, 0, nb, g, r0, r1, 1);
}

/* Groups [p0, p1) against tokens [0, T) of y (ldy apart), KXT at a time,
 * each token block over all the groups: the groups' bytes (a panel)
 * stay in L2, the block's superblocks in L1. */
INLINE void
kxpanel(enum wtype t, float *out, int ldo, const uint8_t *w, size_t gs,
    const struct kern_q8k *y, size_t ldy, int nb, int T, int p0, int p1,
    int r0, int r1)
{
	int j, g;

	for (j = 0; j + KXT <= T; j += KXT)
		for (g = p0; g < p1; g++)
			kxgroup(t, KXT, out + (size_t)j * ldo, ldo, w +
			    (size_t)g * gs, NULL, y + (size_t)j * ldy, ldy, nb,
			    g, r0, r1, 0);
	for (; j < T; j++)
		for (g = p0; g < p1; g++)
			kxgroup(t, 1, out + (size_t)j * ldo, ldo, w + (size_t)g *
			    gs, NULL, y + (size_t)j * ldy, ldy, nb, g, r0, r1, 0);
}

/* Prefill of groups [g0, g1): each group's weights made bytes once
 * (kx4unpack, kx6unpack: not once a token pair), KXTU tokens a register
 * block, against tokens [0, T) of y. */
static void
kxgroupsu(enum wtype t, float *out, int ldo, const uint8_t *w, size_t gs,
    const struct kern_q8k *y, size_t ldy, int nb, int T, int g0, int g1,
    int r0, int r1)
{
	uint8_t uq[KERN_GI8_MAXN / 256 * 4096] __attribute__((aligned(32)));
	size_t hb = t == W_Q4KX16 ? 1152 : 1680;
	const uint8_t *u;
	int g, b, j;

	for (g = g0; g < g1; g++) {
		u = w + (size_t)g * gs;
		for (b = 0; b < 2 * nb; b++)
			if (t == W_Q4KX16)
				kx4unpack(uq + (size_t)b * 2048, u + b * hb);
			else
				kx6unpack(uq + (size_t)b * 2048, u + b * hb);
		for (j = 0; j + KXTU <= T; j += KXTU)
			kxgroup(t, KXTU, out + (size_t)j * ldo, ldo, u, uq, y +
			    (size_t)j * ldy, ldy, nb, g, r0, r1, 0);
		if (T - j == 3)
			kxgroup(t, 3, out + (size_t)j * ldo, ldo, u, uq, y +
			    (size_t)j * ldy, ldy, nb, g, r0, r1, 0);
		else if (T - j == 2)
			kxgroup(t, 2, out + (size_t)j * ldo, ldo, u, uq, y +
			    (size_t)j * ldy, ldy, nb, g, r0, r1, 0);
		else if (T - j == 1)
			kxgroup(t, 1, out + (size_t)j * ldo, ldo, u, uq, y +
			    (size_t)j * ldy, ldy, nb, g, r0, r1, 0);
	}
}

/* Prefill: chunks of tokens prepared once (kern_xroom), panels of
 * groups that fit in half of L2. */
INLINE void
kxmatmul(enum wtype t, float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	char stk[GXBUF] __attribute__((aligned(32)));
	int nb = n / 256, g0 = r0 / 16, g1 = (r1 + 15) / 16, P, p0, p1, t0,
	    t1, j, TB;
	size_t gs = (size_t)nb * KERN_X16_GB(t), ld = (size_t)nb *
	    sizeof(struct kern_q8k);
	struct kern_q8k *y;

	if (n > KERN_GI8_MAXN || n % 256 || T < 2) {
		for (j = 0; j < T; j++)
			kxmatvec(t, out + (size_t)j * ldo, w, x + (size_t)j * ldx,
			    n, r0, r1);
		return;
	}
	y = kern_xroom(stk, sizeof(stk), ld, T, &TB);
	P = (int)(kern_l2 / 2 / gs);
	P = P < 1 ? 1 : P;
	for (t0 = 0; t0 < T; t0 = t1) {
		t1 = T - t0 > TB ? t0 + TB : T;
		for (j = t0; j < t1; j++)
			prepk(y + (size_t)(j - t0) * nb, x + (size_t)j * ldx, n);
		if (t1 - t0 >= KXUMIN) {
			kxgroupsu(t, out + (size_t)t0 * ldo, ldo, w, gs, y, nb,
			    nb, t1 - t0, g0, g1, r0, r1);
			continue;
		}
		for (p0 = g0; p0 < g1; p0 = p1) {
			p1 = g1 - p0 > P ? p0 + P : g1;
			kxpanel(t, out + (size_t)t0 * ldo, ldo, w, gs, y, nb,
			    nb, t1 - t0, p0, p1, r0, r1);
		}
	}
	if ((char *)y != stk)
		free(y);
}

#endif
