/* kern_ggml_i8_avx512.c: --int8-act on ggml's types, the AVX-512
 * table's entries where the CPU has AVX512-VNNI (kern_init): the blocks
 * of 32 (Q8_0, Q4_0, Q5_0) on 512 bits, two blocks a vpdpbusd, and the
 * superblocks (Q4_K, Q6_K) on 512 bits, 64 weights a vpdpwssd (below);
 * the activations prepared by kern_ggml_i8_int.h's code.
 *
 * Two blocks b and b + 1 in one zmm register, element e of block b + p
 * in byte 32p + e, give int32 lane 8p + l the sum of the products of
 * elements 4l .. 4l + 3 of block b + p: kern.h's P of acc[8 (b % 2) +
 * l], as b is even.  So one register accumulates all 16 lanes, one FMA
 * a pair of blocks with the scales dw dx of b in its low half and of
 * b + 1 in its high one, and the output is its halves added and
 * kern_avx2_int.h's hsum, the 256-bit kernels' tree: the same float
 * operations in the same order, the same bits (test_i8). */
#if defined(__x86_64__)

#define GI8_VNNI 2
#include "kern/kern_ggml_i8_int.h"

#define ZR 4	/* rows per register block (matmul) */
#define ZT 4	/* tokens per register block (matmul) */

/* Two floats at s as [s0 x 8, s1 x 8]. */
INLINE __m512
pair8(__m128 s)
{
	return _mm512_permutexvar_ps(_mm512_setr_epi32(0, 0, 0, 0, 0, 0, 0, 0,
	    1, 1, 1, 1, 1, 1, 1, 1), _mm512_castps128_ps512(s));
}

/* The scales of the blocks at p0 and p1 (or p0's alone, one: the high
 * half then undefined), as pair8 lays them out. */
INLINE __m512
zdw(const uint8_t *p0, const uint8_t *p1, int one)
{
	uint16_t a, b = 0;

	memcpy(&a, p0, 2);
	if (!one)
		memcpy(&b, p1, 2);
	return pair8(_mm_cvtph_ps(_mm_cvtsi32_si128((int)(a | (uint32_t)b <<
	    16))));
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
 * row the nbp = ceil(nb / 2) pairs of blocks as zwblk lays them out but
 * with their 4-byte groups interleaved (zilv), all unsigned (Q8_0's q +
 * 128), then their nbp pairs of float scales; made once a panel and
 * chunk of tokens, where the packed blocks would be unpacked again for
 * every ZT tokens. */
#define ZUBUF (96 * 1024)	/* bytes: 4 rows of KERN_GI8_MAXN fit */
/* Bytes of a chunk of prepared tokens (prefill): each panel is unpacked
 * once a chunk, so a chunk is as large as the stack allows well (the
 * blocks of 32: 128 tokens of 2048, 32 of 8192) */
#define ZXBUF (256 * 1024)
#define ZUROW(nb) ((size_t)((nb) + 1) / 2 * (64 + 8))	/* bytes a row */

/* A pair's 64 bytes from zwblk's layout (block b + p's group l in int32
 * lane 8p + l) to the prefill's (lane 2l + p), so that a lane's scale is
 * the pair's scales alternating, one 8-byte broadcast (zgemm); zgemm's
 * accumulators go back by zunilv before the sum. */
INLINE __m512i
zilv(__m512i z)
{
	return _mm512_permutexvar_epi32(_mm512_setr_epi32(0, 8, 1, 9, 2, 10,
	    3, 11, 4, 12, 5, 13, 6, 14, 7, 15), z);
}

INLINE __m512
zunilv(__m512 a)
{
	return _mm512_permutexvar_ps(_mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12,
	    14, 1, 3, 5, 7, 9, 11, 13, 15), a);
}

/* The sum of zmm accumulator a as kern.h's chain ends it: its halves
 * added, then kern_avx2_int.h's hsum. */
INLINE float
zhsum(__m512 a)
{
	return hsum(_mm256_add_ps(_mm512_castps512_ps256(a), _mm256_castpd_ps(
	    _mm512_extractf64x4_pd(_mm512_castps_pd(a), 1))));
}

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
			_mm512_storeu_si512(u + 64 * (size_t)k, zilv(z));
			d[2 * k] = gf16(p);
			d[2 * k + 1] = 2 * k + 1 >= nb ? 0.0f : gf16(p + bytes);
		}
	}
}

/* out[j*ldo + r + i*rs] = row r + i*rs of w (type t, rows of rb bytes)
 * . token j of the blocks at xq (ldxq bytes apart, conv_q8_0_quant's
 * layout), i < R, j < TT; pf: prefetch each row GPF bytes ahead. */
INLINE void
zblock(enum wtype t, int R, int TT, float *out, int ldo, const uint8_t *w,
    size_t rb, const char *xq, size_t ldxq, int n, int r, int rs, int pf)
{
	size_t nx = CONV_Q8_0_NB(n);
	int nb = (n + 31) / 32, b, i, j, one, bytes = wtypes[t].bytes;
	/* Q8_0's signed q: |q| against X given q's sign (X is never -128,
	 * where a file's q may be) */
	int sgn = t == W_GQ8_0I;
	const __m512i off = _mm512_set1_epi8((char)(t == W_Q4_0I ? 8 : 16));
	const uint8_t *wr[ZR];
	const float *xd[ZT];
	const int8_t *xv[ZT];
	__m512 acc[ZR][ZT], dw[ZR], s;
	__m512i wv[ZR], aw[ZR], x, nc, P;
	__mmask64 neg[ZR];

	UNROLL
	for (i = 0; i < R; i++) {
		wr[i] = w + (size_t)(r + i * rs) * rb;
		UNROLL
		for (j = 0; j < TT; j++)
			acc[i][j] = _mm512_setzero_ps();
	}
	UNROLL
	for (j = 0; j < TT; j++) {
		xd[j] = (const float *)(xq + (size_t)j * ldxq);
		xv[j] = (const int8_t *)(xd[j] + nx);
	}
	for (b = 0; b < nb; b += 2) {
		one = b + 1 >= nb;
		UNROLL
		for (i = 0; i < R; i++) {
			const uint8_t *p0 = wr[i] + (size_t)b * bytes;

			if (pf)
				gahead(p0);
			wv[i] = zwblk(t, p0, p0 + bytes, one);
			dw[i] = zdw(p0, p0 + bytes, one);
			if (sgn) {
				aw[i] = _mm512_abs_epi8(wv[i]);
				neg[i] = _mm512_movepi8_mask(wv[i]);
			}
		}
		UNROLL
		for (j = 0; j < TT; j++) {
			/* nx is even: the pair's bytes and scales are there */
			x = _mm512_loadu_si512(xv[j] + 32 * b);
			s = pair8(_mm_castsi128_ps(_mm_loadl_epi64(
			    (const __m128i *)(xd[j] + b))));
			if (!sgn) {
				/* minus offset times the sums of X */
				nc = _mm512_sub_epi32(_mm512_setzero_si512(),
				    _mm512_dpbusd_epi32(_mm512_setzero_si512(),
				    off, x));
			}
			UNROLL
			for (i = 0; i < R; i++) {
				if (sgn)
					P = _mm512_dpbusd_epi32(
					    _mm512_setzero_si512(), aw[i],
					    _mm512_mask_sub_epi8(x, neg[i],
					    _mm512_setzero_si512(), x));
				else
					P = _mm512_dpbusd_epi32(nc, wv[i], x);
				acc[i][j] = _mm512_mask3_fmadd_ps(
				    _mm512_cvtepi32_ps(P), _mm512_mul_ps(dw[i],
				    s), acc[i][j], one ? 0x00ff : 0xffff);
			}
		}
	}
	UNROLL
	for (i = 0; i < R; i++)
		UNROLL
		for (j = 0; j < TT; j++)
			out[(size_t)j * ldo + r + i * rs] = zhsum(acc[i][j]);
}

/* Decode: rows [r0, r1) in GV32 parts read side by side
 * (kern_ggml_i8_int.h), each row its own accumulator. */
INLINE void
zmatvec(enum wtype t, float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	char xq[CONV_Q8_0_NB(KERN_GI8_MAXN) * (4 + 32)]
	    __attribute__((aligned(64)));
	size_t rb = wtype_rowsize(t, n);
	int h = (r1 - r0) / GV32, r;

	if (n > KERN_GI8_MAXN) {
		kern_portable.matvec[t](out, w, x, n, r0, r1);
		return;
	}
	prep32(xq, x, n);
	for (r = r0; r < r0 + h; r++)
		zblock(t, GV32, 1, out, 0, w, rb, xq, 0, n, r, h, 1);
	for (r = r0 + GV32 * h; r < r1; r++)
		zblock(t, 1, 1, out, 0, w, rb, xq, 0, n, r, 1, 1);
}

/* ---- the blocks of 32's prefill GEMM ----
 *
 * A chunk of tokens is prepared once (zprep): each token's pairs of
 * blocks of X as zilv lays them out (ZXROW bytes a token), and their
 * scales in a table of groups of ZT tokens, for each pair the ZT tokens'
 * two scales side by side (32 bytes), so that one 256-bit multiply by a
 * row's pair of scales makes the pair's dw dx of ZT tokens, kern.h's
 * products, and each (row, token)'s 16 lanes take theirs as one 8-byte
 * broadcast.  Each group's offset sums are made once a row panel
 * (zrows).  A step of R x TT is then, for each pair of blocks, a
 * vpdpbusd, a subtraction and an FMA a row and token (and a multiply a
 * row, before): each lane the chain of kern.h in its order.
 *
 * On Zen 5 (bench/NOTES.md) vpdpbusd, the FMA, the multiplies and
 * vcvtdq2ps share two ports: what bounds the step is their count, so
 * each of the others is made where it is made fewer times. */
#define ZXROW(nbp) ((size_t)(nbp) * 64)	/* bytes of a token's X */
#define ZSBUF (32 * 1024)	/* bytes of the chunk's table of scales */
/* The bits of the float 1.5 * 2^23, where each lane's sum P starts, so
 * that (|P| < 2^18: 4 bytes of at most 255 times 128, and the offset's
 * sums) it ends as the bits of the float 1.5 * 2^23 + P, exactly: that
 * float minus 1.5 * 2^23, on the add ports, is P's float as vcvtdq2ps
 * would make it, off the multiply ports. */
#define ZMAGIC 0x4b400000
#define ZKB 32		/* pairs of blocks whose dw dx zgemm makes at once */
#define ZNCMAX 2048	/* longest rows whose sums' starts zrows makes */

/* A pair's sums' start for X x: ZMAGIC minus the offset off times the
 * sums of X (the weights unsigned, zunpack). */
INLINE __m512i
zstart(__m512i off, __m512i x)
{
	return _mm512_sub_epi32(_mm512_set1_epi32(ZMAGIC), _mm512_dpbusd_epi32(
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
	for (k = 0; k < nx / 2; k++) {
		_mm512_storeu_si512(q + 64 * k, zilv(_mm512_loadu_si512(v +
		    64 * k)));
		memcpy(s + 2 * ZT * k, d + 2 * k, 2 * sizeof *d);
	}
}

/* Rows' dw dx of pairs [k0, k1) (k0 even) and each of ZT tokens into
 * dd, pair k's of row i at dd[(k - k0) / 2][i][k % 2]: the scales at
 * wd[i] (i < R) times the tokens' at sx, two pairs a 512-bit multiply
 * (the rows' four scales put in place by one permute), the last odd
 * one alone (a row at a time, reading sx again for each, was slower;
 * a pair a 256-bit multiply took 11% of the GEMM's samples). */
INLINE void
zdd(int R, double dd[][ZR][2][ZT], const float *const *wd, const float *sx,
    int k0, int k1)
{
	const __m512i idx = _mm512_setr_epi32(0, 1, 0, 1, 0, 1, 0, 1, 2, 3, 2,
	    3, 2, 3, 2, 3);
	__m512 xs;
	double w2;
	int i, k;

	for (k = k0; k + 1 < k1; k += 2) {
		xs = _mm512_loadu_ps(sx + 2 * ZT * k);
		UNROLL
		for (i = 0; i < R; i++)
			_mm512_store_ps((float *)dd[(k - k0) / 2][i], _mm512_mul_ps(
			    _mm512_permutexvar_ps(idx, _mm512_castps128_ps512(
			    _mm_loadu_ps(wd[i] + 2 * k))), xs));
	}
	if (k < k1) {
		__m256 xl = _mm256_loadu_ps(sx + 2 * ZT * k);

		UNROLL
		for (i = 0; i < R; i++) {
			memcpy(&w2, wd[i] + 2 * k, sizeof w2);
			_mm256_store_pd(dd[(k - k0) / 2][i][0], _mm256_castps_pd(
			    _mm256_mul_ps(_mm256_castpd_ps(_mm256_set1_pd(w2)),
			    xl)));
		}
	}
}

/* The sums of 16 of zgemm's accumulators at once, each zunilv's lanes
 * in kern_sum16's tree with its operands in its order (the additions
 * of zhsum(zunilv(a)), the same bits): a[zslot[4j + i]] lands in lane
 * 4j + i.  45 shuffles and adds, where one at a time took about 150
 * (on the 135M shape's rows of 576, 9 pairs, zgemm's sums one at a
 * time were 17% of its samples). */
static const int zslot[16] = { 0, 1, 8, 9, 2, 3, 10, 11, 4, 5, 12, 13, 6,
	7, 14, 15 };

INLINE __m512
zhsum16(const __m512 *a)
{
	__m512 A[8], B[4], C[2];
	int k;

	/* c[l] + c[l + 8], lanes 2l and 2l + 1 (zilv) */
	UNROLL
	for (k = 0; k < 8; k++)
		A[k] = _mm512_add_ps(_mm512_shuffle_ps(a[2 * k], a[2 * k + 1],
		    0x88), _mm512_shuffle_ps(a[2 * k], a[2 * k + 1], 0xdd));
	/* a[i] + a[i + 4]: the low 256 bits and the high ones */
	UNROLL
	for (k = 0; k < 4; k++)
		B[k] = _mm512_add_ps(_mm512_shuffle_f32x4(A[2 * k], A[2 * k +
		    1], 0x44), _mm512_shuffle_f32x4(A[2 * k], A[2 * k + 1],
		    0xee));
	/* b[0] + b[2], b[1] + b[3] */
	UNROLL
	for (k = 0; k < 2; k++)
		C[k] = _mm512_add_ps(_mm512_shuffle_f32x4(B[2 * k], B[2 * k +
		    1], 0x88), _mm512_shuffle_f32x4(B[2 * k], B[2 * k + 1],
		    0xdd));
	/* and those two */
	return _mm512_add_ps(_mm512_shuffle_ps(C[0], C[1], 0x88),
	    _mm512_shuffle_ps(C[0], C[1], 0xdd));
}

/* out[j*ldo + r + i] = row r + i of the unpacked rows u (ru bytes each)
 * . token j of zprep's X at xq (ldx bytes apart) with the scales' table
 * sx and zrows' sums' starts nc (or, null, made here from the offset
 * off), i < R, j < TT. */
INLINE void
zgemm(int R, int TT, float *out, int ldo, const uint8_t *u, size_t ru,
    const int8_t *xq, size_t ldx, const float *sx, const __m512i *nc,
    __m512i off, int nb, int r)
{
	int nbp = (nb + 1) / 2, k, k0, k1, i, j;
	const __m512 magic = _mm512_castsi512_ps(_mm512_set1_epi32(ZMAGIC));
	const uint8_t *wr[ZR];
	const float *wd[ZR];
	/* each pair's dw dx of each row and token, made before the sums
	 * read them: then each is one broadcast load, where read right
	 * after their store (or kept in registers, taken apart by
	 * shuffles) they held the loop up */
	double dd[ZKB / 2][ZR][2][ZT] __attribute__((aligned(64)));
	__m512 acc[ZR][ZT];
	__m512i nk[ZT], xv[ZT], wv, P;
	__mmask16 m;

	UNROLL
	for (i = 0; i < R; i++) {
		wr[i] = u + (size_t)(r + i) * ru;
		wd[i] = (const float *)(wr[i] + 64 * (size_t)nbp);
		UNROLL
		for (j = 0; j < TT; j++)
			acc[i][j] = _mm512_setzero_ps();
	}
	for (k0 = 0; k0 < nbp; k0 = k1) {
		k1 = nbp - k0 > ZKB ? k0 + ZKB : nbp;
		zdd(R, dd, wd, sx, k0, k1);
		for (k = k0; k < k1; k++) {
			/* an odd last block: its pair's second half not summed */
			m = 2 * k + 1 < nb ? 0xffff : 0x5555;
			/* X in registers, each loaded once a pair, not again
			 * for every row */
			UNROLL
			for (j = 0; j < TT; j++) {
				xv[j] = _mm512_loadu_si512(xq + (size_t)j * ldx +
				    64 * (size_t)k);
				__asm__("" : "+v"(xv[j]));
				nk[j] = nc ? _mm512_load_si512(nc + (size_t)ZT *
				    k + j) : zstart(off, xv[j]);
			}
			UNROLL
			for (i = 0; i < R; i++) {
				wv = _mm512_loadu_si512(wr[i] + 64 * (size_t)k);
				UNROLL
				for (j = 0; j < TT; j++) {
					P = _mm512_dpbusd_epi32(nk[j], wv, xv[j]);
					acc[i][j] = _mm512_mask3_fmadd_ps(
					    _mm512_sub_ps(_mm512_castsi512_ps(P),
					    magic), _mm512_castpd_ps(
					    _mm512_set1_pd(dd[(k - k0) / 2][i][(k - k0) %
					    2][j])),
					    acc[i][j], m);
				}
			}
		}
	}
	if (R == ZR && TT == ZT) {
		__m512 a[ZR * ZT];
		float f[ZR * ZT] __attribute__((aligned(64)));

		UNROLL
		for (i = 0; i < ZR; i++)
			UNROLL
			for (j = 0; j < ZT; j++)
				a[zslot[ZR * j + i]] = acc[i][j];
		_mm512_store_ps(f, zhsum16(a));
		UNROLL
		for (j = 0; j < ZT; j++)
			_mm_storeu_ps(out + (size_t)j * ldo + r, _mm_load_ps(f +
			    ZR * j));
		return;
	}
	UNROLL
	for (i = 0; i < R; i++)
		UNROLL
		for (j = 0; j < TT; j++)
			out[(size_t)j * ldo + r + i] = zhsum(zunilv(acc[i][j]));
}

/* Rows [p0, p1) of w (type t) against TT tokens prepared at xq, ldx
 * bytes apart, sx their scales; u: those rows unpacked (zunpack).  The
 * sums' starts of each pair and token made here once for all the
 * panel's rows where rows are short (ZNCMAX); on longer ones they and
 * X would no longer stay in L1 together, and zgemm makes them. */
INLINE void
zrows(enum wtype t, int TT, float *out, int ldo, const uint8_t *u,
    const int8_t *xq, size_t ldx, const float *sx, int n, int p0, int p1)
{
	__m512i nc[ZNCMAX / 64][ZT];
	const __m512i off = _mm512_set1_epi8((char)(t == W_Q4_0I ? 8 :
	    t == W_Q5_0I ? 16 : 128));
	int nb = (n + 31) / 32, nbp = (nb + 1) / 2, k, j, r;
	const __m512i *ncp = n <= ZNCMAX ? nc[0] : 0;
	size_t ru = ZUROW(nb);

	if (ncp)
		for (k = 0; k < nbp; k++)
			for (j = 0; j < TT; j++)
				nc[k][j] = zstart(off, _mm512_loadu_si512(xq +
				    (size_t)j * ldx + 64 * (size_t)k));
	for (r = 0; r + ZR <= p1 - p0; r += ZR)
		zgemm(ZR, TT, out + p0, ldo, u, ru, xq, ldx, sx, ncp, off, nb,
		    r);
	for (; r < p1 - p0; r++)
		zgemm(1, TT, out + p0, ldo, u, ru, xq, ldx, sx, ncp, off, nb,
		    r);
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
 * by zdd, never used).  zmatmul's chunks and kern.h's xprep alike. */
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
