/* kern_ggml_i8_avx512.c: --int8-act on ggml's types, the AVX-512
 * table's entries where the CPU has AVX512-VNNI (kern_init): the blocks
 * of 32 (Q8_0, Q4_0, Q5_0) on 512 bits, two blocks a vpdpbusd, and the
 * superblocks (Q4_K, Q6_K) on 512 bits, 64 weights a vpdpwssd (below);
 * the activations prepared by kern_ggml_i8_int.h's code.
 *
 * Two blocks b and b + 1 in one zmm register, element e of block b + p
 * in byte 32p + e, give int32 lane 8p + l the sum of the products of
 * elements 4l .. 4l + 3 of block b + p.  kern.h wants each block's whole
 * sum S and one float chain a row and token, so the registers of 16
 * (row, token) pairs are reduced together (sum16x2) into two registers
 * of 16 sums, one a block: a conversion, a multiply for the dw dx and
 * an FMA a block then serve all 16 pairs, each lane its pair's chain,
 * block b before b + 1: the same float operations in the same order as
 * the portable dot32, the same bits (test_i8).  Decode's 16 pairs are
 * 16 rows, prefill's 16 / TT rows of TT tokens. */
#if defined(__x86_64__)

#define GI8_VNNI 2
#include "kern/kern_ggml_i8_int.h"

#define ZR 4	/* rows per register block (matmul) */
#define ZV 16	/* rows per register block (decode) */
#define ZT 4	/* tokens per register block (matmul) */

/* The sums of v[q]'s lanes 0-7 into lane q of *lo and of its lanes
 * 8-15 into lane q of *hi, q < 16: a pair of blocks' sums of 16 (row,
 * token) pairs, so that a pair takes two conversions and two FMAs for
 * all 16, not 16 of each.  44 shuffles and adds: each level halves the
 * lanes of a block and doubles the pairs a register holds. */
INLINE void
sum16x2(const __m512i *v, __m512i *lo, __m512i *hi)
{
	__m512i a[8], c[4], e[2];
	int k;

	/* lanes 4c + l and 4c + l + 2 of v[2k] and v[2k + 1], c < 4 */
	UNROLL
	for (k = 0; k < 8; k++)
		a[k] = _mm512_add_epi32(_mm512_unpacklo_epi32(v[2 * k],
		    v[2 * k + 1]), _mm512_unpackhi_epi32(v[2 * k], v[2 * k + 1]));
	/* each 128 bits of c[k] the four of v[4k .. 4k + 3] */
	UNROLL
	for (k = 0; k < 4; k++)
		c[k] = _mm512_add_epi32(_mm512_unpacklo_epi64(a[2 * k],
		    a[2 * k + 1]), _mm512_unpackhi_epi64(a[2 * k], a[2 * k + 1]));
	/* 128 bits 0 + 1 (lanes 0-7) and 2 + 3 (8-15) */
	UNROLL
	for (k = 0; k < 2; k++)
		e[k] = _mm512_add_epi32(_mm512_shuffle_i32x4(c[2 * k], c[2 * k +
		    1], 0x88), _mm512_shuffle_i32x4(c[2 * k], c[2 * k + 1], 0xdd));
	*lo = _mm512_shuffle_i32x4(e[0], e[1], 0x88);
	*hi = _mm512_shuffle_i32x4(e[0], e[1], 0xdd);
}

/* The 64 weights of blocks p0 and p1 of type t (p1 unread if one, its
 * bytes then zero), element e of p1 in byte 32 + e: Q8_0 signed, Q4_0
 * and Q5_0 the unsigned q. */
INLINE __m512i
zwblk(enum wtype t, const uint8_t *p0, const uint8_t *p1, int one)
{
	const __m512i m4 = _mm512_set1_epi8(15);
	__m256i v;
	__m512i z;
	uint32_t h0, h1 = 0;

	if (t == W_GQ8_0I) {
		z = _mm512_castsi256_si512(_mm256_loadu_si256((const __m256i *)
		    (p0 + 2)));
		return one ? _mm512_zextsi256_si512(_mm512_castsi512_si256(z)) :
		    _mm512_inserti64x4(z, _mm256_loadu_si256((const __m256i *)
		    (p1 + 2)), 1);
	}
	v = _mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)
	    (p0 + (t == W_Q4_0I ? 2 : 6))));
	v = _mm256_inserti128_si256(v, one ? _mm_setzero_si128() :
	    _mm_loadu_si128((const __m128i *)(p1 + (t == W_Q4_0I ? 2 : 6))), 1);
	/* [q0, q1, q0 >> 4, q1 >> 4] as [q0, q0 >> 4, q1, q1 >> 4] */
	z = _mm512_inserti64x4(_mm512_castsi256_si512(v), _mm256_srli_epi16(v,
	    4), 1);
	z = _mm512_and_si512(_mm512_shuffle_i64x2(z, z, _MM_SHUFFLE(3, 1, 2,
	    0)), m4);
	if (t == W_Q4_0I)
		return z;
	/* Q5_0's fifth bits: bit e of qh is element e's 16 */
	memcpy(&h0, p0 + 2, 4);
	if (!one)
		memcpy(&h1, p1 + 2, 4);
	return _mm512_mask_add_epi8(z, _cvtu64_mask64((uint64_t)h0 |
	    (uint64_t)h1 << 32), z, _mm512_set1_epi8(16));
}

/* A row panel's weights unpacked for the prefill GEMM (zunpack): each
 * row the nbp = ceil(nb / 2) pairs of blocks as zwblk lays them out,
 * all unsigned (Q8_0's q + 128), then their nbp pairs of float scales;
 * made once a panel and chunk of tokens, where the packed blocks would
 * be unpacked again for every ZT tokens. */
#define ZUBUF (96 * 1024)	/* bytes: 4 rows of KERN_GI8_MAXN fit */
/* Bytes of a chunk of prepared tokens (prefill): each panel is unpacked
 * once a chunk, so a chunk is as large as the stack allows well (the
 * blocks of 32: 128 tokens of 2048, 32 of 8192) */
#define ZXBUF (256 * 1024)
#define ZUROW(nb) ((size_t)((nb) + 1) / 2 * (64 + 8))	/* bytes a row */

static void
zunpack(enum wtype t, uint8_t *u, const uint8_t *w, size_t rb, int n,
    int r0, int r1)
{
	int nb = (n + 31) / 32, nbp = (nb + 1) / 2, bytes = wtypes[t].bytes, r, k;
	const uint8_t *p;
	float *d;
	__m512i z;

	for (r = r0; r < r1; r++, u += ZUROW(nb)) {
		d = (float *)(u + 64 * (size_t)nbp);
		for (k = 0; k < nbp; k++) {
			p = w + (size_t)r * rb + (size_t)2 * k * bytes;
			z = zwblk(t, p, p + bytes, 2 * k + 1 >= nb);
			if (t == W_GQ8_0I)
				z = _mm512_xor_si512(z, _mm512_set1_epi8(
				    (char)0x80));
			_mm512_storeu_si512(u + 64 * (size_t)k, z);
			d[2 * k] = gf16(p);
			d[2 * k + 1] = 2 * k + 1 >= nb ? 0.0f : gf16(p + bytes);
		}
	}
}

/* The f16 scales of blocks at w + o[i], i < 16, as floats. */
INLINE __m512
zdw16(const uint8_t *w, __m512i o)
{
	return _mm512_cvtph_ps(_mm512_cvtepi32_epi16(_mm512_i32gather_epi32(o,
	    w, 1)));
}

/* out[r + i*rs] = row r + i*rs of w (type t, rows of rb bytes) . the
 * token's blocks at xq (conv_q8_0_quant's layout), i < RV; rows RV ..
 * ZV - 1 read row RV - 1 again (not stored).  Row i is lane i of the
 * sums and of the one accumulator; each row prefetched GPF bytes
 * ahead.  Row offsets (ZV - 1) rs rb fit in int32 (zmatvec). */
INLINE void
zblock(enum wtype t, float *out, const uint8_t *w, size_t rb,
    const char *xq, int n, int r, int rs, int RV)
{
	size_t nx = CONV_Q8_0_NB(n);
	int nb = (n + 31) / 32, b, i, one, bytes = wtypes[t].bytes;
	/* Q8_0's signed q: |q| against X given q's sign (X is never -128,
	 * where a file's q may be) */
	int sgn = t == W_GQ8_0I;
	const __m512i off = _mm512_set1_epi8((char)(t == W_Q4_0I ? 8 : 16));
	const uint8_t *wr[ZV];
	const float *xd = (const float *)xq;
	const int8_t *xv = (const int8_t *)(xd + nx);
	int32_t o[ZV];
	float f[ZV];
	__m512 acc = _mm512_setzero_ps();
	__m512i v[ZV], wv, x, nc = _mm512_setzero_si512(), S[2], ov;

	UNROLL
	for (i = 0; i < ZV; i++) {
		wr[i] = w + (size_t)(r + (i < RV ? i : RV - 1) * rs) * rb;
		o[i] = (int32_t)(wr[i] - wr[0]);
	}
	ov = _mm512_loadu_si512(o);
	for (b = 0; b < nb; b += 2) {
		one = b + 1 >= nb;
		/* nx is even: the pair's bytes and scales are there */
		x = _mm512_loadu_si512(xv + 32 * b);
		if (!sgn)	/* minus offset times the sums of X */
			nc = _mm512_sub_epi32(_mm512_setzero_si512(),
			    _mm512_dpbusd_epi32(_mm512_setzero_si512(), off, x));
		UNROLL
		for (i = 0; i < ZV; i++) {
			const uint8_t *p0 = wr[i] + (size_t)b * bytes;

			gahead(p0);
			wv = zwblk(t, p0, p0 + bytes, one);
			v[i] = sgn ? _mm512_dpbusd_epi32(_mm512_setzero_si512(),
			    _mm512_abs_epi8(wv), _mm512_mask_sub_epi8(x,
			    _mm512_movepi8_mask(wv), _mm512_setzero_si512(), x)) :
			    _mm512_dpbusd_epi32(nc, wv, x);
		}
		sum16x2(v, &S[0], &S[1]);
		acc = _mm512_fmadd_ps(_mm512_cvtepi32_ps(S[0]), _mm512_mul_ps(
		    zdw16(wr[0] + (size_t)b * bytes, ov), _mm512_set1_ps(xd[b])),
		    acc);
		if (!one)
			acc = _mm512_fmadd_ps(_mm512_cvtepi32_ps(S[1]),
			    _mm512_mul_ps(zdw16(wr[0] + (size_t)(b + 1) * bytes,
			    ov), _mm512_set1_ps(xd[b + 1])), acc);
	}
	_mm512_storeu_ps(f, acc);
	for (i = 0; i < RV; i++)
		out[r + i * rs] = f[i];
}

/* Decode: rows [r0, r1) in ZV parts read side by side, each row a lane
 * (contiguous groups of ZV where the parts lie too far apart for
 * zblock's int32 offsets). */
INLINE void
zmatvec(enum wtype t, float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	char xq[CONV_Q8_0_NB(KERN_GI8_MAXN) * (4 + 32)]
	    __attribute__((aligned(64)));
	size_t rb = wtype_rowsize(t, n);
	int h = (r1 - r0) / ZV, r;

	if (n > KERN_GI8_MAXN) {
		kern_portable.matvec[t](out, w, x, n, r0, r1);
		return;
	}
	prep32(xq, x, n);
	if ((size_t)(ZV - 1) * (size_t)h * rb > INT32_MAX) {
		for (r = r0; r + ZV <= r1; r += ZV)
			zblock(t, out, w, rb, xq, n, r, 1, ZV);
	} else {
		for (r = r0; r < r0 + h; r++)
			zblock(t, out, w, rb, xq, n, r, h, ZV);
		r = r0 + ZV * h;
	}
	if (r < r1)
		zblock(t, out, w, rb, xq, n, r, 1, r1 - r);
}

/* ---- the blocks of 32's prefill GEMM ----
 *
 * A chunk of tokens is prepared once (zprep): each token's pairs of
 * blocks of X (ZXROW bytes a token), and their scales in a table of
 * groups of ZT tokens, for each pair the ZT tokens' two scales side by
 * side (32 bytes, one load).  Each group's offset sums are made once a
 * row panel (zrows).  A step of R x TT = 16 (row, token) pairs is then,
 * for each pair of blocks, a vpdpbusd a pair, sum16x2 of the 16, and
 * for each block one conversion, one multiply of the 16 pairs' dw dx
 * and one FMA: each lane the chain of kern.h of its pair in its order.
 *
 * On Zen 5 (bench/NOTES.md) vpdpbusd, the FMA, the multiplies and
 * vcvtdq2ps share two ports; sum16x2's shuffles and adds take the
 * others' share of the work, so that the vpdpbusd bound the step. */
#define ZXROW(nbp) ((size_t)(nbp) * 64)	/* bytes of a token's X */
#define ZSBUF (32 * 1024)	/* bytes of the chunk's table of scales */
#define ZNCMAX 2048	/* longest rows whose sums' starts zrows makes */

/* A pair's sums' start for X x: minus the offset off times the sums of
 * X (the weights unsigned, zunpack). */
INLINE __m512i
zstart(__m512i off, __m512i x)
{
	return _mm512_sub_epi32(_mm512_setzero_si512(), _mm512_dpbusd_epi32(
	    _mm512_setzero_si512(), off, x));
}

/* Token x's blocks (conv_q8_0_quant's bytes, prep32) into zgemm's
 * layout: its X at q, its pairs of scales at s, ZT tokens apart. */
static void
zprep(int8_t *q, float *s, const float *x, int n)
{
	char t[CONV_Q8_0_NB(KERN_GI8_MAXN) * (4 + 32)]
	    __attribute__((aligned(64)));
	size_t nx = CONV_Q8_0_NB(n), k;
	const float *d = (const float *)t;
	const int8_t *v = (const int8_t *)(d + nx);

	prep32(t, x, n);
	memcpy(q, v, 32 * nx);
	for (k = 0; k < nx / 2; k++)
		memcpy(s + 2 * ZT * k, d + 2 * k, 2 * sizeof *d);
}

/* out[j*ldo + r + i] = row r + i of the unpacked rows u (ru bytes each)
 * . token j of zprep's X at xq (ldx bytes apart) with the scales' table
 * sx and zrows' sums' starts nc (or, null, made here from the offset
 * off), i < RV, j < TT; R*TT <= 16, rows RV .. R - 1 read row RV - 1
 * again (not stored).  Pair (i, j) is lane i*TT + j. */
INLINE void
zgemm(int R, int TT, float *out, int ldo, const uint8_t *u, size_t ru,
    const int8_t *xq, size_t ldx, const float *sx, const __m512i *nc,
    __m512i off, int nb, int r, int RV)
{
	int nbp = (nb + 1) / 2, k, i, j, p, q;
	const uint8_t *wr[16];
	int32_t iw[2][16], ix[2][16];
	int64_t ow[16];
	float f[16];
	__m512 acc = _mm512_setzero_ps(), wg[2], xg, d[2];
	__m512i v[16], nk[ZT], xv[ZT], wv, S[2], iv[2][2], owv[2];

	UNROLL
	for (i = 0; i < R; i++)
		wr[i] = u + (size_t)(r + (i < RV ? i : RV - 1)) * ru;
	/* the rows' pairs of scales gathered (8 bytes a row), the tokens'
	 * one load, then each lane's two taken from them */
	for (q = 0; q < 16; q++) {
		ow[q] = q < R ? (int64_t)(wr[q] - wr[0]) : 0;
		for (p = 0; p < 2; p++) {
			iw[p][q] = 2 * (q / TT < R ? q / TT : 0) + p;
			ix[p][q] = 2 * (q % TT) + p;
		}
	}
	owv[0] = _mm512_loadu_si512(ow);
	owv[1] = _mm512_loadu_si512(ow + 8);
	for (p = 0; p < 2; p++) {
		iv[p][0] = _mm512_loadu_si512(iw[p]);
		iv[p][1] = _mm512_loadu_si512(ix[p]);
	}
	UNROLL
	for (q = R * TT; q < 16; q++)
		v[q] = _mm512_setzero_si512();
	for (k = 0; k < nbp; k++) {
		/* X in registers, each loaded once a pair, not again for
		 * every row */
		UNROLL
		for (j = 0; j < TT; j++) {
			xv[j] = _mm512_loadu_si512(xq + (size_t)j * ldx + 64 *
			    (size_t)k);
			nk[j] = nc ? _mm512_load_si512(nc + (size_t)ZT * k + j) :
			    zstart(off, xv[j]);
		}
		UNROLL
		for (i = 0; i < R; i++) {
			wv = _mm512_loadu_si512(wr[i] + 64 * (size_t)k);
			UNROLL
			for (j = 0; j < TT; j++)
				v[i * TT + j] = _mm512_dpbusd_epi32(nk[j], wv,
				    xv[j]);
		}
		sum16x2(v, &S[0], &S[1]);
		wg[0] = _mm512_castpd_ps(_mm512_mask_i64gather_pd(
		    _mm512_setzero_pd(), R < 8 ? (__mmask8)((1u << R) - 1) : 0xff,
		    owv[0], wr[0] + 64 * (size_t)nbp + 8 * (size_t)k, 1));
		wg[1] = R > 8 ? _mm512_castpd_ps(_mm512_mask_i64gather_pd(
		    _mm512_setzero_pd(), R < 16 ? (__mmask8)((1u << (R - 8)) - 1) :
		    0xff, owv[1], wr[0] + 64 * (size_t)nbp + 8 * (size_t)k, 1)) :
		    _mm512_setzero_ps();
		xg = _mm512_castps256_ps512(_mm256_loadu_ps(sx + 2 * ZT *
		    (size_t)k));
		UNROLL
		for (p = 0; p < 2; p++)
			d[p] = _mm512_mul_ps(_mm512_permutex2var_ps(wg[0], iv[p][0],
			    wg[1]), _mm512_permutexvar_ps(iv[p][1], xg));
		acc = _mm512_fmadd_ps(_mm512_cvtepi32_ps(S[0]), d[0], acc);
		/* an odd last block: its pair's second half not summed */
		if (2 * k + 1 < nb)
			acc = _mm512_fmadd_ps(_mm512_cvtepi32_ps(S[1]), d[1],
			    acc);
	}
	_mm512_storeu_ps(f, acc);
	UNROLL
	for (i = 0; i < R; i++)
		UNROLL
		for (j = 0; j < TT; j++)
			if (i < RV)
				out[(size_t)j * ldo + r + i] = f[i * TT + j];
}

/* Rows [p0, p1) of w (type t) against TT tokens prepared at xq, ldx
 * bytes apart, sx their scales; u: those rows unpacked (zunpack), 16 /
 * TT at a time.  The sums' starts of each pair and token made here once
 * for all the panel's rows where rows are short (ZNCMAX); on longer
 * ones they and X would no longer stay in L1 together, and zgemm makes
 * them. */
INLINE void
zrows(enum wtype t, int TT, float *out, int ldo, const uint8_t *u,
    const int8_t *xq, size_t ldx, const float *sx, int n, int p0, int p1)
{
	__m512i nc[ZNCMAX / 64][ZT];
	const __m512i off = _mm512_set1_epi8((char)(t == W_Q4_0I ? 8 :
	    t == W_Q5_0I ? 16 : 128));
	int nb = (n + 31) / 32, nbp = (nb + 1) / 2, k, j, r, R = 16 / TT;
	const __m512i *ncp = n <= ZNCMAX ? nc[0] : 0;
	size_t ru = ZUROW(nb);

	if (ncp)
		for (k = 0; k < nbp; k++)
			for (j = 0; j < TT; j++)
				nc[k][j] = zstart(off, _mm512_loadu_si512(xq +
				    (size_t)j * ldx + 64 * (size_t)k));
	for (r = 0; r + R <= p1 - p0; r += R)
		zgemm(R, TT, out + p0, ldo, u, ru, xq, ldx, sx, ncp, off, nb,
		    r, R);
	if (r < p1 - p0)
		zgemm(R, TT, out + p0, ldo, u, ru, xq, ldx, sx, ncp, off, nb,
		    r, p1 - p0 - r);
}

/* Part k of parts of rows [p0, p1) of w (rb bytes each) brought into
 * the caches: the next panel's packed weights, fetched from memory
 * while this panel's products run, where zunpack would wait for each
 * line (the hardware prefetcher does not run far enough ahead: in a
 * 1B-shape prefill zunpack took 9% of the samples, nearly all on the
 * weights' loads; 4-5% with this, and into L1 rather than L2: the
 * panel is read at once). */
INLINE void
zahead(const uint8_t *w, size_t rb, int p0, int p1, int k, int parts)
{
	size_t a = (size_t)p0 * rb, len = (size_t)(p1 - p0) * rb;
	size_t s = a + len * k / parts, e = a + len * (k + 1) / parts;

	for (s = s > a ? s & ~(size_t)63 : s; s < e; s += 64)
		_mm_prefetch((const char *)(w + s), _MM_HINT_T0);
}

/* Tokens [t0, t1) of x (ldx floats apart) prepared for zgemm, laid out
 * for T tokens: their X at xp, ZXROW bytes a token (zprep), then the
 * scales' table, a group of ZT tokens at a time; whoever prepares the
 * last token zeroes the scales of the last group's missing ones (read
 * by zgemm's loads, never used).  zmatmul's chunks and kern.h's xprep alike. */
static void
zxprep(void *xp, const float *x, int ldx, int n, int T, int t0, int t1)
{
	int nbp = ((n + 31) / 32 + 1) / 2, j, k;
	size_t ld = ZXROW(nbp), sg = 2 * ZT * (size_t)nbp;
	int8_t *xq = xp;
	float *sx = (float *)(xq + (size_t)T * ld), *s;

	for (j = t0; j < t1; j++)
		zprep(xq + (size_t)j * ld, sx + (size_t)(j / ZT) * sg + 2 *
		    (j % ZT), x + (size_t)j * ldx, n);
	if (t1 < T || T % ZT == 0)
		return;
	s = sx + (size_t)((T - 1) / ZT) * sg;
	for (k = 0; k < nbp; k++)
		memset(s + 2 * ZT * (size_t)k + 2 * (T % ZT), 0, 2 *
		    (size_t)(ZT - T % ZT) * sizeof *s);
}

/* Tokens of a chunk (a multiple of ZT) whose X and scales fit in ZXBUF
 * + ZSBUF bytes, as zxprep lays them out. */
static int
zchunk_tokens(int n)
{
	int nbp = ((n + 31) / 32 + 1) / 2;

	return (int)((ZXBUF + ZSBUF) / (ZT * ZXROW(nbp) + 2 * ZT * (size_t)nbp *
	    sizeof(float))) * ZT;
}

/* Rows [r0, r1) of w against the nt tokens of a chunk prepared at xq
 * (ld bytes a token, zxprep) with their scales' table at sx (sg floats
 * a group): row panels of P rows unpacked once (zunpack, in L2) against
 * ZT tokens at a time, the next panel's weights fetched meanwhile
 * (zahead): this chunk's next or, where more chunks follow, the first. */
static void
zchunk(enum wtype t, float *out, int ldo, const void *w, const int8_t *xq,
    size_t ld, const float *sx, size_t sg, int n, int nt, int r0, int r1,
    int P, int more)
{
	uint8_t u[ZUBUF] __attribute__((aligned(64)));
	size_t rb = wtype_rowsize(t, n);
	int p0, p1, q0, q1, j, ng = (nt + ZT - 1) / ZT;

	for (p0 = r0; p0 < r1; p0 = p1) {
		p1 = r1 - p0 > P ? p0 + P : r1;
		q0 = p1 < r1 ? p1 : more ? r0 : r1;
		q1 = r1 - q0 > P ? q0 + P : r1;
		zunpack(t, u, w, rb, n, p0, p1);
		for (j = 0; j < nt; j += ZT) {
			float *o = out + (size_t)j * ldo;
			const int8_t *xj = xq + (size_t)j * ld;
			const float *sj = sx + (size_t)(j / ZT) * sg;

			zahead(w, rb, q0, q1, j / ZT, ng);
			switch (nt - j) {
			case 1: zrows(t, 1, o, ldo, u, xj, ld, sj, n, p0, p1);
				break;
			case 2: zrows(t, 2, o, ldo, u, xj, ld, sj, n, p0, p1);
				break;
			case 3: zrows(t, 3, o, ldo, u, xj, ld, sj, n, p0, p1);
				break;
			default: zrows(t, ZT, o, ldo, u, xj, ld, sj, n, p0, p1);
			}
		}
	}
}

/* Prefill on T tokens prepared at xp (zxprep), n <= KERN_GI8_MAXN: all
 * of them one chunk, each panel unpacked once (in chunks of
 * zchunk_tokens, as zmatmul's stack holds them, the 1B shape's down
 * projection unpacked each panel 4 times and ran at 0.85x: its tokens'
 * X streamed from L3 once a panel costs less, bench/NOTES.md). */
static void
zmatmulx(enum wtype t, float *out, int ldo, const void *w, const void *xp,
    int n, int T, int r0, int r1)
{
	int nb = (n + 31) / 32, nbp = (nb + 1) / 2;
	int P = (int)(ZUBUF / ZUROW(nb)) / ZR * ZR;
	size_t ld = ZXROW(nbp);
	const int8_t *xq = xp;

	zchunk(t, out, ldo, w, xq, ld, (const float *)(xq + (size_t)T * ld),
	    2 * ZT * (size_t)nbp, n, T, r0, r1, P, 0);
}

/* Prefill: a chunk of tokens prepared at a time (zxprep, on the stack),
 * then zchunk's panels. */
static void
zmatmul(enum wtype t, float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	int8_t xq[ZXBUF + ZSBUF] __attribute__((aligned(64)));
	int nb = (n + 31) / 32, nbp = (nb + 1) / 2, t0, nt, TB;
	int P = (int)(ZUBUF / ZUROW(nb)) / ZR * ZR;
	size_t ld = ZXROW(nbp);

	if (n > KERN_GI8_MAXN) {
		kern_portable.matmul[t](out, ldo, w, x, ldx, n, T, r0, r1);
		return;
	}
	TB = zchunk_tokens(n);
	for (t0 = 0; t0 < T; t0 += TB) {
		nt = T - t0 > TB ? TB : T - t0;
		zxprep(xq, x + (size_t)t0 * ldx, ldx, n, nt, 0, nt);
		zchunk(t, out + (size_t)t0 * ldo, ldo, w, xq, ld, (const float *)
		    (xq + (size_t)nt * ld), 2 * ZT * (size_t)nbp, n, nt, r0, r1,
		    P, t0 + nt < T);
	}
}

/* ---- superblocks of 256 on 512 bits ----
 *
 * 64 weights a zmm, vpmaddubsw's pairs then vpdpwssd with the sub-block
 * scales as int16 (kern_ggml_i8_int.h's integers, so the same sums),
 * and the superblock's int32 lanes of 4 (row, token) pairs summed
 * together (zhsum4) for one 4-wide FMA: each lane the portable chain of
 * its row and token.  Q4_K's 64 bytes of q unpack as sub-blocks [0 | 2]
 * (low nibbles) and [1 | 3] (high): zprepk lays the activations of each
 * 128 out in that order. */

#define ZVK 4	/* decode: a share's rows as 4 parts side by side */

/* prepk's superblocks; for Q4_K each 128 of X as sub-blocks 0 2 1 3 */
static void
zprepk(enum wtype t, struct kern_q8k *y, const float *x, int n)
{
	int b, h;
	__m256i a;

	prepk(y, x, n);
	if (t != W_Q4_KI)
		return;
	for (b = 0; b < n / 256; b++)
		for (h = 0; h < 2; h++) {
			int8_t *q = y[b].q + 128 * h;

			a = _mm256_loadu_si256((const __m256i *)(q + 32));
			_mm256_storeu_si256((__m256i *)(q + 32),
			    _mm256_loadu_si256((const __m256i *)(q + 64)));
			_mm256_storeu_si256((__m256i *)(q + 64), a);
		}
}

/* The sums of the 16 int32 lanes of a, b, c and d, in that order. */
INLINE __m128i
zhsum4(__m512i a, __m512i b, __m512i c, __m512i d)
{
	__m512i ab = _mm512_add_epi32(_mm512_unpacklo_epi32(a, b),
	    _mm512_unpackhi_epi32(a, b));
	__m512i cd = _mm512_add_epi32(_mm512_unpacklo_epi32(c, d),
	    _mm512_unpackhi_epi32(c, d));
	__m512i s = _mm512_add_epi32(_mm512_unpacklo_epi64(ab, cd),
	    _mm512_unpackhi_epi64(ab, cd));
	__m256i h = _mm256_add_epi32(_mm512_castsi512_si256(s),
	    _mm512_extracti64x4_epi64(s, 1));

	return _mm_add_epi32(_mm256_castsi256_si128(h),
	    _mm256_extracti128_si256(h, 1));
}

/* Which scale each int16 lane of vpmaddubsw's output takes, for the 4
 * zmm of weights zkw makes of a superblock */
#define R8(a) a, a, a, a, a, a, a, a
#define R16(a) R8(a), R8(a)
static const int16_t zk_sc[2][4][32] = {
	{ { R16(0), R16(2) }, { R16(1), R16(3) }, { R16(4), R16(6) },
	  { R16(5), R16(7) } },		/* Q4_K: zprepk's order */
	{ { R8(0), R8(1), R8(2), R8(3) }, { R8(4), R8(5), R8(6), R8(7) },
	  { R8(8), R8(9), R8(10), R8(11) },
	  { R8(12), R8(13), R8(14), R8(15) } },	/* Q6_K: element / 16 */
};
#undef R16
#undef R8

/* Weights c (of 4) of the superblock at p as unsigned bytes, in the
 * order of the activations: Q4_K's q, zprepk's order; Q6_K's q (0..63),
 * elements 64c .. 64c + 63. */
INLINE __m512i
zkw(enum wtype t, const uint8_t *p, int c)
{
	const __m512i m4 = _mm512_set1_epi8(15), m30 = _mm512_set1_epi8(0x30);
	__m512i z, h;
	__m256i qh;

	if (t == W_Q4_KI) {
		z = _mm512_loadu_si512(p + 16 + 64 * (c / 2));
		return _mm512_and_si512(c % 2 ? _mm512_srli_epi16(z, 4) : z,
		    m4);
	}
	/* ql's low nibbles are elements 128h .. 128h + 63, its high ones
	 * the next 64; their two high bits from qh, and qh >> 2 */
	z = _mm512_loadu_si512(p + 64 * (c / 2));
	qh = _mm256_loadu_si256((const __m256i *)(p + 128 + 32 * (c / 2)));
	h = _mm512_inserti64x4(_mm512_castsi256_si512(qh), _mm256_srli_epi16(
	    qh, 2), 1);
	if (c % 2 == 0)
		return _mm512_or_si512(_mm512_and_si512(z, m4),
		    _mm512_and_si512(_mm512_slli_epi16(h, 4), m30));
	return _mm512_or_si512(_mm512_and_si512(_mm512_srli_epi16(z, 4), m4),
	    _mm512_and_si512(h, m30));
}

INLINE float
zf(const uint8_t *p)
{
	float f;

	memcpy(&f, p, sizeof f);
	return f;
}

/* The sub-block scales of the superblock at p as int16 (Q4_K's 8 and
 * its 8 mins, Q6_K's 16). */
INLINE void
zkscales(enum wtype t, const uint8_t *p, __m512i *sc16, __m128i *mn16)
{
	if (t != W_Q4_KI) {
		*sc16 = _mm512_zextsi256_si512(_mm256_cvtepi8_epi16(
		    _mm_loadu_si128((const __m128i *)(p + 192))));
		*mn16 = _mm_setzero_si128();
		return;
	}
	*sc16 = _mm512_zextsi128_si512(_mm256_castsi256_si128(k4_scales(mn16,
	    p + 4)));
}

/* A superblock unpacked for the prefill GEMM (zkunpack): its 4 zmm of
 * weights as zkw makes them (bytes 0-255), its scales as zkscales (256:
 * 16 int16; 288: Q4_K's 8 mins), d (304) and Q4_K's dmin (308) as
 * floats; a row panel of them made once a chunk of tokens. */
#define ZKU 320

static void
zkunpack(enum wtype t, uint8_t *u, const uint8_t *w, size_t rb, int n,
    int r0, int r1)
{
	int nb = n / 256, r, b, c;
	const uint8_t *p;
	__m512i sc16;
	__m128i mn16;
	float d[2];

	for (r = r0; r < r1; r++)
		for (b = 0; b < nb; b++, u += ZKU) {
			p = w + (size_t)r * rb + (size_t)b * wtypes[t].bytes;
			for (c = 0; c < 4; c++)
				_mm512_store_si512(u + 64 * c, zkw(t, p, c));
			zkscales(t, p, &sc16, &mn16);
			_mm256_store_si256((__m256i *)(u + 256),
			    _mm512_castsi512_si256(sc16));
			_mm_store_si128((__m128i *)(u + 288), mn16);
			d[0] = gf16(t == W_Q4_KI ? p : p + 208);
			d[1] = t == W_Q4_KI ? gf16(p + 2) : 0.0f;
			memcpy(u + 304, d, sizeof d);
		}
}

/* out[j*ldo + r + i*rs] = row r + i*rs of w (type t, rows of rb bytes)
 * . token j of zprepk's superblocks at y (ldy apart), i < R, j < TT;
 * pf: prefetch each row GPF bytes ahead.  Pair q = i TT + j is lane
 * q % 4 of group q / 4. */
INLINE void
zblockk(enum wtype t, int R, int TT, float *out, int ldo, const uint8_t *w,
    size_t rb, const struct kern_q8k *y, size_t ldy, int n, int r, int rs,
    int pf, int un)
{
	int nb = n / 256, b, i, j, k, c, q, g, NG = (R * TT + 3) / 4;
	const uint8_t *p[ZR];
	const struct kern_q8k *yj[ZT];
	__m512i I[ZR * ZT], x[ZT], wv, sv, sc16[ZR];
	__m128i mn16[ZR], M[4];
	__m128 acc[ZR * ZT / 4];
	float a[4];

	UNROLL
	for (g = 0; g < NG; g++)
		acc[g] = _mm_setzero_ps();
	for (b = 0; b < nb; b++) {
		gkplaces(R, TT, yj, y, ldy, p, w, rb, un ? ZKU : wtypes[t].bytes,
		    r, rs, b, pf ? wtypes[t].bytes : 0);
		UNROLL
		for (i = 0; i < R; i++) {
			if (un) {
				sc16[i] = _mm512_zextsi256_si512(
				    _mm256_load_si256((const __m256i *)
				    (p[i] + 256)));
				mn16[i] = _mm_load_si128((const __m128i *)
				    (p[i] + 288));
			} else
				zkscales(t, p[i], &sc16[i], &mn16[i]);
			UNROLL
			for (j = 0; j < TT; j++)
				/* Q6_K: minus 32 sum_j sc_j (sum of X over j) */
				I[i * TT + j] = t == W_Q4_KI ?
				    _mm512_setzero_si512() :
				    _mm512_zextsi256_si512(_mm256_sub_epi32(
				    _mm256_setzero_si256(), _mm256_slli_epi32(
				    _mm256_madd_epi16(_mm512_castsi512_si256(
				    sc16[i]), _mm256_loadu_si256(
				    (const __m256i *)yj[j]->bs)), 5)));
		}
		UNROLL
		for (c = 0; c < 4; c++) {
			UNROLL
			for (j = 0; j < TT; j++)
				x[j] = _mm512_loadu_si512(yj[j]->q + 64 * c);
			UNROLL
			for (i = 0; i < R; i++) {
				wv = un ? _mm512_load_si512(p[i] + 64 * c) :
				    zkw(t, p[i], c);
				sv = _mm512_permutexvar_epi16(_mm512_loadu_si512(
				    zk_sc[t != W_Q4_KI][c]), sc16[i]);
				UNROLL
				for (j = 0; j < TT; j++)
					I[i * TT + j] = _mm512_dpwssd_epi32(
					    I[i * TT + j], _mm512_maddubs_epi16(
					    wv, x[j]), sv);
			}
		}
		UNROLL
		for (g = 0; g < NG; g++) {
			__m512i v[4];
			float dw[4], dx[4], dm[4];

			UNROLL
			for (k = 0; k < 4; k++) {
				q = 4 * g + k;
				i = q / TT, j = q % TT;
				if (q >= R * TT) {
					v[k] = _mm512_setzero_si512();
					M[k] = _mm_setzero_si128();
					dw[k] = dx[k] = dm[k] = 0;
					continue;
				}
				v[k] = I[q];
				dx[k] = yj[j]->d;
				if (t == W_Q4_KI) {
					dw[k] = un ? zf(p[i] + 304) : gf16(p[i]);
					dm[k] = un ? zf(p[i] + 308) : gf16(p[i] +
					    2);
					/* sum_j mn_j (sum of X over j) */
					M[k] = _mm_madd_epi16(mn16[i],
					    _mm_hadd_epi16(_mm_loadu_si128(
					    (const __m128i *)yj[j]->bs),
					    _mm_loadu_si128((const __m128i *)
					    (yj[j]->bs + 8))));
				} else
					dw[k] = un ? zf(p[i] + 304) : gf16(p[i] +
					    208);
			}
			acc[g] = _mm_fmadd_ps(_mm_cvtepi32_ps(zhsum4(v[0], v[1],
			    v[2], v[3])), _mm_mul_ps(_mm_loadu_ps(dw),
			    _mm_loadu_ps(dx)), acc[g]);
			if (t == W_Q4_KI)
				acc[g] = _mm_fmadd_ps(_mm_cvtepi32_ps(
				    _mm_sub_epi32(_mm_setzero_si128(),
				    _mm_hadd_epi32(_mm_hadd_epi32(M[0], M[1]),
				    _mm_hadd_epi32(M[2], M[3])))), _mm_mul_ps(
				    _mm_loadu_ps(dm), _mm_loadu_ps(dx)), acc[g]);
		}
	}
	UNROLL
	for (g = 0; g < NG; g++) {
		_mm_storeu_ps(a, acc[g]);
		UNROLL
		for (k = 0; k < 4; k++) {
			i = (4 * g + k) / TT, j = (4 * g + k) % TT;
			if (4 * g + k < R * TT)
				out[(size_t)j * ldo + r + i * rs] = a[k];
		}
	}
}

/* Decode: rows [r0, r1) in ZVK parts read side by side, each row its
 * own lane. */
INLINE void
zkmatvec(enum wtype t, float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	char xq[GXVEC] __attribute__((aligned(64)));
	const struct kern_q8k *y = (const struct kern_q8k *)xq;
	size_t rb = wtype_rowsize(t, n);
	int h = (r1 - r0) / ZVK, r;

	if (n > KERN_GI8_MAXN || n % 256) {
		kern_portable.matvec[t](out, w, x, n, r0, r1);
		return;
	}
	zprepk(t, (struct kern_q8k *)xq, x, n);
	for (r = r0; r < r0 + h; r++)
		zblockk(t, ZVK, 1, out, 0, w, rb, y, 0, n, r, h, 1, 0);
	for (r = r0 + ZVK * h; r < r1; r++)
		zblockk(t, 1, 1, out, 0, w, rb, y, 0, n, r, 1, 1, 0);
}

/* Rows [p0, p1) against TT tokens prepared at y, ldy apart; u: those
 * rows unpacked (zkunpack). */
INLINE void
zkrows(enum wtype t, int TT, float *out, int ldo, const uint8_t *u,
    const struct kern_q8k *y, size_t ldy, int n, int p0, int p1)
{
	size_t ru = (size_t)n / 256 * ZKU;
	int r;

	for (r = 0; r + ZR <= p1 - p0; r += ZR)
		zblockk(t, ZR, TT, out + p0, ldo, u, ru, y, ldy, n, r, 1, 0, 1);
	for (; r < p1 - p0; r++)
		zblockk(t, 1, TT, out + p0, ldo, u, ru, y, ldy, n, r, 1, 0, 1);
}

/* Prefill: zmatmul's shape on the superblocks. */
INLINE void
zkmatmul(enum wtype t, float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	char xq[ZXBUF] __attribute__((aligned(64)));
	uint8_t u[ZUBUF] __attribute__((aligned(64)));
	const struct kern_q8k *y = (const struct kern_q8k *)xq;
	size_t ld = (size_t)n / 256;	/* superblocks a token */
	size_t rb = wtype_rowsize(t, n);
	int P = (int)(ZUBUF / (ld * ZKU + !ld));
	int TB = (int)(ZXBUF / (ld * sizeof *y + !ld)), t0, t1, p0, p1, j;

	if (n > KERN_GI8_MAXN || n % 256 || TB < 1 || P < ZR) {
		kern_portable.matmul[t](out, ldo, w, x, ldx, n, T, r0, r1);
		return;
	}
	P = P / ZR * ZR;
	for (t0 = 0; t0 < T; t0 = t1) {
		t1 = T - t0 > TB ? t0 + TB : T;
		for (j = t0; j < t1; j++)
			zprepk(t, (struct kern_q8k *)xq + (size_t)(j - t0) * ld,
			    x + (size_t)j * ldx, n);
		for (p0 = r0; p0 < r1; p0 = p1) {
			p1 = r1 - p0 > P ? p0 + P : r1;
			zkunpack(t, u, w, rb, n, p0, p1);
			for (j = t0; j < t1; j += ZT) {
				float *o = out + (size_t)j * ldo;
				const struct kern_q8k *yj = y + (size_t)(j -
				    t0) * ld;

				switch (t1 - j) {
				case 1: zkrows(t, 1, o, ldo, u, yj, ld, n, p0,
				    p1);
					break;
				case 2: zkrows(t, 2, o, ldo, u, yj, ld, n, p0,
				    p1);
					break;
				case 3: zkrows(t, 3, o, ldo, u, yj, ld, n, p0,
				    p1);
					break;
				default: zkrows(t, ZT, o, ldo, u, yj, ld, n, p0,
				    p1);
				}
			}
		}
	}
}

void
kern_gq8_0i_avx512_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	zmatvec(W_GQ8_0I, out, w, x, n, r0, r1);
}

void
kern_gq8_0i_avx512_matmul(float *out, int ldo, const void *w,
    const float *x, int ldx, int n, int T, int r0, int r1)
{
	zmatmul(W_GQ8_0I, out, ldo, w, x, ldx, n, T, r0, r1);
}

void
kern_q4_0i_avx512_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	zmatvec(W_Q4_0I, out, w, x, n, r0, r1);
}

void
kern_q4_0i_avx512_matmul(float *out, int ldo, const void *w,
    const float *x, int ldx, int n, int T, int r0, int r1)
{
	zmatmul(W_Q4_0I, out, ldo, w, x, ldx, n, T, r0, r1);
}

void
kern_q5_0i_avx512_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	zmatvec(W_Q5_0I, out, w, x, n, r0, r1);
}

void
kern_q5_0i_avx512_matmul(float *out, int ldo, const void *w,
    const float *x, int ldx, int n, int T, int r0, int r1)
{
	zmatmul(W_Q5_0I, out, ldo, w, x, ldx, n, T, r0, r1);
}

/* The blocks of 32's activations prepared once for several matmuls
 * (kern.h's xprep): one layout for the three types. */
void
kern_b32i_avx512_xprep(void *xp, const float *x, int ldx, int n, int T,
    int t0, int t1)
{
	zxprep(xp, x, ldx, n, T, t0, t1);
}

void
kern_gq8_0i_avx512_matmulx(float *out, int ldo, const void *w,
    const void *xp, const float *x, int ldx, int n, int T, int r0,
    int r1)
{
	(void)x, (void)ldx;
	zmatmulx(W_GQ8_0I, out, ldo, w, xp, n, T, r0, r1);
}

void
kern_q4_0i_avx512_matmulx(float *out, int ldo, const void *w,
    const void *xp, const float *x, int ldx, int n, int T, int r0,
    int r1)
{
	(void)x, (void)ldx;
	zmatmulx(W_Q4_0I, out, ldo, w, xp, n, T, r0, r1);
}

void
kern_q5_0i_avx512_matmulx(float *out, int ldo, const void *w,
    const void *xp, const float *x, int ldx, int n, int T, int r0,
    int r1)
{
	(void)x, (void)ldx;
	zmatmulx(W_Q5_0I, out, ldo, w, xp, n, T, r0, r1);
}

void
kern_q4_ki_avx512_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	zkmatvec(W_Q4_KI, out, w, x, n, r0, r1);
}

void
kern_q4_ki_avx512_matmul(float *out, int ldo, const void *w,
    const float *x, int ldx, int n, int T, int r0, int r1)
{
	zkmatmul(W_Q4_KI, out, ldo, w, x, ldx, n, T, r0, r1);
}

void
kern_q6_ki_avx512_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	zkmatvec(W_Q6_KI, out, w, x, n, r0, r1);
}

void
kern_q6_ki_avx512_matmul(float *out, int ldo, const void *w,
    const float *x, int ldx, int n, int T, int r0, int r1)
{
	zkmatmul(W_Q6_KI, out, ldo, w, x, ldx, n, T, r0, r1);
}

#endif
