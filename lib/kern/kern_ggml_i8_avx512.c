/* kern_ggml_i8_avx512.c: --int8-act on ggml's types, the AVX-512
 * table's entries where the CPU has AVX512-VNNI (kern_init): the blocks
 * of 32 (Q8_0, Q4_0, Q5_0) on 512 bits, and the superblocks (Q4_K,
 * Q6_K) on 512 bits, 64 weights a vpdpwssd (below); the activations
 * prepared by kern_ggml_i8_int.h's code.
 *
 * The blocks of 32: kern.h wants each block's whole sum S and one float
 * chain a (row, token), so 16 rows' S sit in the lanes of one register
 * and a block's conversion, dw dx multiply and FMA serve all 16, each
 * lane its chain in block order: the same float operations in the same
 * order as the portable dot32, the same bits (test_i8).  The weights
 * are unsigned (Q8_0's q + 128), minus the offset times the sums of X
 * starting each sum.  Decode: kern_ggml_i8_int.h's g32rows (8 rows'
 * chains in a 256-bit register).  Prefill: row panels unpacked a row a
 * lane, where vpdpbusd against a token's 4 bytes broadcast sums 16 rows
 * at once (zgemm, below).  Q8_0 and Q4_0 matrices are packed so at load
 * (kern.h's W_Q8X16, W_Q4X16): their decode too takes 16 rows a
 * register (zxdec), and their prefill runs zgemm in place. */
#if defined(__x86_64__)

#define GI8_VNNI 2
#include "kern/kern_ggml_i8_int.h"
#include "kern/fetchspan.h"

#define ZR 4	/* rows per register block (superblocks' matmul) */
#define ZT 4	/* tokens per register block (superblocks' matmul) */

#define ZUBUF (96 * 1024)	/* bytes of a panel of superblocks (prefill) */
/* Bytes of a chunk of prepared tokens (prefill): each panel is unpacked
 * once a chunk, so a chunk is as large as the stack allows well (the
 * blocks of 32: 128 tokens of 2048, 32 of 8192) */
#define ZXBUF (256 * 1024)

/* Decode of the unpacked blocks (Q5_0, and Q8_0 / Q4_0 where they are
 * not packed): kern_ggml_i8_int.h's gi8_matvec (g32rows: 8 rows' chains
 * in the lanes of a 256-bit register; on 512 bits with 16 rows a
 * register, the lanes' sums cost more than the wider vpdpbusd saves:
 * 0.65-0.7x from memory, bench/NOTES.md). */

/* ---- the blocks of 32's prefill GEMM ----
 *
 * A panel's rows are unpacked once a chunk of tokens (zunpack) in
 * groups of 16, a row a lane: for each block, 8 registers, register k
 * holding the 4 bytes of elements 4k .. 4k + 3 of each row (unsigned:
 * Q8_0's q + 128), then the 16 rows' scales.  vpdpbusd of register k
 * against a token's 4 bytes broadcast then adds 16 rows' products at
 * once, and 8 of them make each row's whole S for the block, kern.h's:
 * no lanes to reduce, and one conversion, multiply and FMA a block for
 * 16 (row, token) pairs, each lane its pair's chain in block order.
 * The vpdpbusd are 8 of each 10 instructions on the multiply ports
 * (where the 2-block lanes took 16 vpdpbusd and 16 FMAs for 16 rows'
 * pairs of blocks), so they bound the step. */
#define ZPBUF (320 * 1024)	/* bytes of a panel: 16 rows of KERN_GI8_MAXN */
#define ZGB (8 * 64 + 64)	/* bytes of a group's block, unpacked */
#define ZTT 8			/* tokens per register block */
#define ZFEW 4	/* fewer tokens: decode's kernel each (unpacking costs more) */
/* The bits of the float 1.5 * 2^23, where each sum S starts, so that
 * (|S| and every partial sum < 2^21: 32 bytes of at most 255 times 127,
 * and the offset's 128 times 32 times 127) it ends as the bits of the
 * float 1.5 * 2^23 + S, exactly: that float minus 1.5 * 2^23, on the
 * add ports, is S's float as vcvtdq2ps makes it. */
#define ZMAGIC 0x4b400000

/* The bytes of a token prepared (zxprep): its X (nx blocks of 32), dx
 * (nx floats), then each block's sum of X (nx int32). */
#define ZXLD(nx) (((size_t)(nx) * (32 + 8) + 63) / 64 * 64)

/* Lane L of a group's registers is row zrow(L) of its 16: zunpack's
 * transposes (unpacks within 128 bits) leave them in this order. */
INLINE int
zrow(int L)
{
	return 8 * (L / 8) + 2 * (L % 4) + (L / 4) % 2;
}

/* Block b of row p (type t) as 32 unsigned bytes in element order. */
INLINE __m256i
zrowblk(enum wtype t, const uint8_t *p)
{
	const __m256i m4 = _mm256_set1_epi8(15);
	__m128i q;
	__m256i v;
	uint32_t h;

	if (t == W_GQ8_0I || t == W_Q8_0I)	/* W_Q8_0I's p: gwb's */
		return _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)
		    (p + (t == W_GQ8_0I ? 2 : 0))), _mm256_set1_epi8(
		    (char)0x80));
	q = _mm_loadu_si128((const __m128i *)(p + (t == W_Q4_0I ? 2 : 6)));
	v = _mm256_and_si256(_mm256_inserti128_si256(_mm256_castsi128_si256(
	    q), _mm_srli_epi16(q, 4), 1), m4);
	if (t == W_Q4_0I)
		return v;
	memcpy(&h, p + 2, 4);	/* Q5_0's fifth bits */
	return _mm256_mask_add_epi8(v, (__mmask32)h, v, _mm256_set1_epi8(16));
}

/* Rows [r0, r1) of w (type t, rb bytes a row) unpacked at u, groups of
 * 16 (the last filled out with zero rows), nb blocks a group. */
static void
zunpack(enum wtype t, uint8_t *u, const uint8_t *w, size_t rb, int n,
    int r0, int r1)
{
	size_t nx = CONV_Q8_0_NB(n);
	int nb = (n + 31) / 32, g, b, i, m, k;
	__m512i T[8], U[8], W[8];
	float *d;

	for (g = r0; g < r1; g += 16, u += (size_t)nb * ZGB) {
		const uint8_t *row[16];

		for (i = 0; i < 16; i++)	/* lane i's row */
			row[i] = g + zrow(i) < r1 ? w + (size_t)(g + zrow(i)) *
			    rb : 0;
		for (b = 0; b < nb; b++) {
			const uint8_t *p[16];
			uint8_t *o = u + (size_t)b * ZGB;

			for (i = 0; i < 16; i++)
				p[i] = g + i < r1 ? gwb(t, w + (size_t)(g + i) *
				    rb, b, nx) : 0;
			for (m = 0; m < 8; m++)
				T[m] = _mm512_inserti64x4(_mm512_castsi256_si512(
				    p[2 * m] ? zrowblk(t, p[2 * m]) :
				    _mm256_setzero_si256()), p[2 * m + 1] ?
				    zrowblk(t, p[2 * m + 1]) :
				    _mm256_setzero_si256(), 1);
			/* T[m]: rows 2m, 2m + 1, 8 int32 each; 128 bits c of
			 * W[k'] (after two unpacks): rows 0 2 4 6 (c even) or
			 * 1 3 5 7 (odd) of a half, element group k' + 4 (c % 2) */
			for (m = 0; m < 2; m++) {
				__m512i *t4 = T + 4 * m, *u4 = U + 4 * m;

				u4[0] = _mm512_unpacklo_epi32(t4[0], t4[1]);
				u4[1] = _mm512_unpackhi_epi32(t4[0], t4[1]);
				u4[2] = _mm512_unpacklo_epi32(t4[2], t4[3]);
				u4[3] = _mm512_unpackhi_epi32(t4[2], t4[3]);
				W[4 * m] = _mm512_unpacklo_epi64(u4[0], u4[2]);
				W[4 * m + 1] = _mm512_unpackhi_epi64(u4[0], u4[2]);
				W[4 * m + 2] = _mm512_unpacklo_epi64(u4[1], u4[3]);
				W[4 * m + 3] = _mm512_unpackhi_epi64(u4[1], u4[3]);
			}
			for (k = 0; k < 4; k++) {
				_mm512_store_si512(o + 64 * k, _mm512_shuffle_i32x4(
				    W[k], W[4 + k], 0x88));
				_mm512_store_si512(o + 64 * (k + 4),
				    _mm512_shuffle_i32x4(W[k], W[4 + k], 0xdd));
			}
			d = (float *)(o + 8 * 64);
			for (i = 0; i < 16; i++)
				d[i] = row[i] ? gsc1(t, row[i], b) : 0.0f;
		}
	}
}

/* Group register k of block u: pk 0 an unpacked panel's, 1 W_Q8X16's,
 * 2 W_Q4X16's (its 4 registers of bytes, low nibbles then high). */
INLINE __m512i
zwk(int pk, const uint8_t *u, int k)
{
	const __m512i m4 = _mm512_set1_epi8(15);

	if (pk == 0)
		return _mm512_load_si512(u + 64 * k);
	if (pk == 1)
		return _mm512_loadu_si512(u + 64 * k);
	if (k < 4)
		return _mm512_and_si512(_mm512_loadu_si512(u + 64 * k), m4);
	return _mm512_and_si512(_mm512_srli_epi16(_mm512_loadu_si512(u + 64 *
	    (k - 4)), 4), m4);
}

/* The 16 rows' scales of block u (pk as zwk). */
INLINE __m512
zdw(int pk, const uint8_t *u)
{
	if (pk == 0)
		return _mm512_load_ps(u + 8 * 64);
	if (pk == 1)
		return _mm512_loadu_ps(u + 8 * 64);
	return _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(u + 256)));
}

/* out[j*ldo + r + row(L)] = row row(L) of the group at u (pk as zwk; its
 * blocks gb bytes apart) against token j prepared at xq (ld bytes
 * apart), j < TT, for the lanes with lo <= row(L) < hi: row(L) zrow(L)
 * in an unpacked panel, L packed; off: the weights' offset (8, 16,
 * 128). */
INLINE void
zgemm(int pk, int TT, float *out, int ldo, const uint8_t *u, size_t gb,
    const int8_t *xq, size_t ld, int off, int n, int r, int lo, int hi,
    struct fetchspan *fs)
{
	int nb = (n + 31) / 32, b, j, k, L, R;
	size_t nx = CONV_Q8_0_NB(n);
	const __m512 magic = _mm512_castsi512_ps(_mm512_set1_epi32(ZMAGIC));
	const int8_t *xv[ZTT];
	const float *xd[ZTT];
	const int32_t *xs[ZTT];
	__m512 acc[ZTT], dw;
	__m512i I[ZTT], wk;
	float f[16];

	UNROLL
	for (j = 0; j < TT; j++) {
		xv[j] = xq + (size_t)j * ld;
		xd[j] = (const float *)(xv[j] + 32 * nx);
		xs[j] = (const int32_t *)(xd[j] + nx);
		acc[j] = _mm512_setzero_ps();
	}
	for (b = 0; b < nb; b++, u += gb) {
		if (fs)
			fetchspan_step(fs);
		UNROLL
		for (j = 0; j < TT; j++)
			I[j] = _mm512_set1_epi32(ZMAGIC - off * xs[j][b]);
		UNROLL
		for (k = 0; k < 8; k++) {
			wk = zwk(pk, u, k);
			UNROLL
			for (j = 0; j < TT; j++) {
				int32_t x4;

				memcpy(&x4, xv[j] + 32 * b + 4 * k, 4);
				I[j] = _mm512_dpbusd_epi32(I[j], wk,
				    _mm512_set1_epi32(x4));
			}
		}
		dw = zdw(pk, u);
		UNROLL
		for (j = 0; j < TT; j++)
			acc[j] = _mm512_fmadd_ps(_mm512_sub_ps(
			    _mm512_castsi512_ps(I[j]), magic), _mm512_mul_ps(dw,
			    _mm512_set1_ps(xd[j][b])), acc[j]);
	}
	UNROLL
	for (j = 0; j < TT; j++) {
		_mm512_storeu_ps(f, acc[j]);
		for (L = 0; L < 16; L++) {
			R = pk ? L : zrow(L);
			if (R >= lo && R < hi)
				out[(size_t)j * ldo + r + R] = f[L];
		}
	}
}

/* Rows [p0, p1) (unpacked at u) against TT tokens prepared at xq. */
INLINE void
zrows(enum wtype t, int TT, float *out, int ldo, const uint8_t *u,
    const int8_t *xq, size_t ld, int n, int p0, int p1)
{
	int nb = (n + 31) / 32, r, off = t == W_Q4_0I ? 8 : t == W_Q5_0I ?
	    16 : 128;

	for (r = p0; r < p1; r += 16, u += (size_t)nb * ZGB)
		zgemm(0, TT, out, ldo, u, ZGB, xq, ld, off, n, r, 0, p1 - r < 16 ?
		    p1 - r : 16, NULL);
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
 * for T tokens, ZXLD bytes a token: prep32's X and dx, and each block's
 * sum of X (the offset's term).  zmatmul's chunks and kern.h's xprep
 * alike. */
static void
zxprep(void *xp, const float *x, int ldx, int n, int T, int t0, int t1)
{
	char t[CONV_Q8_0_NB(KERN_GI8_MAXN) * (4 + 32)]
	    __attribute__((aligned(64)));
	size_t nx = CONV_Q8_0_NB(n), ld = ZXLD(nx), b;
	int j;

	(void)T;
	for (j = t0; j < t1; j++) {
		int8_t *q = (int8_t *)xp + (size_t)j * ld;
		int32_t *s = (int32_t *)(q + 36 * nx);
		const int8_t *v = (const int8_t *)((const float *)t + nx);

		prep32(t, x + (size_t)j * ldx, n);
		memcpy(q, v, 32 * nx);
		memcpy(q + 32 * nx, t, 4 * nx);
		for (b = 0; b < nx; b++) {
			__m256i a = _mm256_sad_epu8(_mm256_xor_si256(
			    _mm256_loadu_si256((const __m256i *)(v + 32 * b)),
			    _mm256_set1_epi8((char)0x80)), _mm256_setzero_si256());
			__m128i h = _mm_add_epi64(_mm256_castsi256_si128(a),
			    _mm256_extracti128_si256(a, 1));

			s[b] = (int32_t)(_mm_cvtsi128_si64(h) + _mm_extract_epi64(h,
			    1)) - 32 * 128;
		}
	}
}

/* Tokens of a chunk whose preparation fits in ZXBUF bytes. */
static int
zchunk_tokens(int n)
{
	return (int)(ZXBUF / ZXLD(CONV_Q8_0_NB(n)));
}

/* Rows [r0, r1) of w against the nt tokens of a chunk prepared at xq
 * (ld bytes a token, zxprep): row panels of P rows unpacked once
 * (zunpack, in L2) against ZTT tokens at a time, the next panel's
 * weights fetched meanwhile (zahead): this chunk's next or, where more
 * chunks follow, the first. */
static void
zchunk(enum wtype t, float *out, int ldo, const void *w, const int8_t *xq,
    size_t ld, int n, int nt, int r0, int r1, int P, int more)
{
	uint8_t u[ZPBUF] __attribute__((aligned(64)));
	size_t rb = wtype_rowsize(t, n);
	int p0, p1, q0, q1, j, ng = (nt + ZTT - 1) / ZTT;

	for (p0 = r0; p0 < r1; p0 = p1) {
		p1 = r1 - p0 > P ? p0 + P : r1;
		q0 = p1 < r1 ? p1 : more ? r0 : r1;
		q1 = r1 - q0 > P ? q0 + P : r1;
		zunpack(t, u, w, rb, n, p0, p1);
		for (j = 0; j < nt; j += ZTT) {
			float *o = out + (size_t)j * ldo;
			const int8_t *xj = xq + (size_t)j * ld;

			zahead(w, rb, q0, q1, j / ZTT, ng);
			switch (nt - j < ZTT ? nt - j : ZTT) {	/* ZTT 8 */
			case 1: zrows(t, 1, o, ldo, u, xj, ld, n, p0, p1); break;
			case 2: zrows(t, 2, o, ldo, u, xj, ld, n, p0, p1); break;
			case 3: zrows(t, 3, o, ldo, u, xj, ld, n, p0, p1); break;
			case 4: zrows(t, 4, o, ldo, u, xj, ld, n, p0, p1); break;
			case 5: zrows(t, 5, o, ldo, u, xj, ld, n, p0, p1); break;
			case 6: zrows(t, 6, o, ldo, u, xj, ld, n, p0, p1); break;
			case 7: zrows(t, 7, o, ldo, u, xj, ld, n, p0, p1); break;
			default: zrows(t, ZTT, o, ldo, u, xj, ld, n, p0, p1);
			}
		}
	}
}

/* Rows a panel: as many groups of 16 as ZPBUF holds (16 rows of the
 * longest). */
static int
zpanel(int n)
{
	return (int)(ZPBUF / ((size_t)(n + 31) / 32 * ZGB)) * 16;
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
	size_t nx = CONV_Q8_0_NB(n), ld = ZXLD(nx);
	const int8_t *q = xp;
	int j;

	if (T < ZFEW) {
		for (j = 0; j < T; j++, q += ld)
			g32rows(t, out + (size_t)j * ldo, w, (const float *)(q + 32 *
			    nx), q, n, r0, r1);
		return;
	}
	zchunk(t, out, ldo, w, xp, ZXLD(CONV_Q8_0_NB(n)), n, T, r0, r1,
	    zpanel(n), 0);
}

/* Prefill: a chunk of tokens prepared at a time (zxprep, on the stack),
 * then zchunk's panels. */
static void
zmatmul(enum wtype t, float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	int8_t xq[ZXBUF] __attribute__((aligned(64)));
	int t0, nt, TB;

	if (n > KERN_GI8_MAXN) {
		kern_portable.matmul[t](out, ldo, w, x, ldx, n, T, r0, r1);
		return;
	}
	if (T < ZFEW) {
		for (t0 = 0; t0 < T; t0++)
			gi8_matvec(t, out + (size_t)t0 * ldo, w, x + (size_t)t0 * ldx,
			    n, r0, r1);
		return;
	}
	TB = zchunk_tokens(n);
	for (t0 = 0; t0 < T; t0 += TB) {
		nt = T - t0 > TB ? TB : T - t0;
		zxprep(xq, x + (size_t)t0 * ldx, ldx, n, nt, 0, nt);
		zchunk(t, out + (size_t)t0 * ldo, ldo, w, xq, ZXLD(
		    CONV_Q8_0_NB(n)), n, nt, r0, r1, zpanel(n), t0 + nt < T);
	}
}

/* W_Q8_0I's prefill (kern_i8_avx512.c's matmul from ZFEW tokens): the
 * GGUF Q8_0 panels' code on conv.h's rows. */
void
kern_q8_0i_avx512_gemm(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	zmatmul(W_Q8_0I, out, ldo, w, x, ldx, n, T, r0, r1);
}

/* ---- the blocks of 32 packed by 16 (kern.h's W_Q8X16, W_Q4X16) ----
 *
 * A packed matrix is zgemm's panel already, a row a lane in order:
 * prefill runs zgemm on it in place, no unpacking, and decode makes the
 * same sums a token with no sum across lanes.  Decode reads a share's
 * groups as ZDV parts side by side, each from its start (sequential
 * streams far apart, as g32rows' parts), and each group's 8 vpdpbusd
 * a block as two chains: integers, exact in any order. */
#define ZDV 4
/* Bytes a decode stream is fetched ahead (a line for each of a block's
 * registers): 1.1-1.4x the hardware's alone from memory, kernbench
 * 2048 x 2048 cold, bench/NOTES.md */
#define ZPF 1024
#define ZXFEW 2	/* fewer tokens: decode's kernel each */

/* The token prepared at xq (zxprep) against groups gs[v], v < V, of w
 * (pk 1: W_Q8X16, 2: W_Q4X16; groups gstride bytes apart), off the
 * weights' offset; rows in [r0, r1) stored. */
INLINE void
zxdec(int pk, int V, float *out, const uint8_t *w, size_t gstride,
    const int8_t *xq, int off, int n, const int *gs, int r0, int r1)
{
	int nb = (n + 31) / 32, b, k, v, L, R;
	size_t nx = CONV_Q8_0_NB(n), gb = pk == 1 ? 576 : 288;
	const float *xd = (const float *)(xq + 32 * nx);
	const int32_t *xs = (const int32_t *)(xd + nx);
	const __m512 magic = _mm512_castsi512_ps(_mm512_set1_epi32(ZMAGIC));
	const uint8_t *u[ZDV];
	__m512 acc[ZDV], dx;
	__m512i I[ZDV], J[ZDV], i0, xb, wk;
	float f[16];

	UNROLL
	for (v = 0; v < V; v++) {
		u[v] = w + (size_t)gs[v] * gstride;
		acc[v] = _mm512_setzero_ps();
	}
	for (b = 0; b < nb; b++) {
		i0 = _mm512_set1_epi32(ZMAGIC - off * xs[b]);
		dx = _mm512_set1_ps(xd[b]);
		UNROLL
		for (v = 0; v < V; v++) {
			I[v] = i0;
			J[v] = _mm512_setzero_si512();
		}
		UNROLL
		for (k = 0; k < 8; k++) {
			int32_t x4;

			memcpy(&x4, xq + 32 * b + 4 * k, 4);
			xb = _mm512_set1_epi32(x4);
			UNROLL
			for (v = 0; v < V; v++) {
				if (pk == 1 || k < 5)
					_mm_prefetch((const char *)u[v] + ZPF + 64 * k,
					    _MM_HINT_T0);
				if (pk == 1 && k == 7)
					_mm_prefetch((const char *)u[v] + ZPF + 512,
					    _MM_HINT_T0);
				wk = zwk(pk, u[v], k);
				if (k % 2)
					J[v] = _mm512_dpbusd_epi32(J[v], wk, xb);
				else
					I[v] = _mm512_dpbusd_epi32(I[v], wk, xb);
			}
		}
		UNROLL
		for (v = 0; v < V; v++) {
			I[v] = _mm512_add_epi32(I[v], J[v]);
			acc[v] = _mm512_fmadd_ps(_mm512_sub_ps(_mm512_castsi512_ps(
			    I[v]), magic), _mm512_mul_ps(zdw(pk, u[v]), dx),
			    acc[v]);
			u[v] += gb;
		}
	}
	UNROLL
	for (v = 0; v < V; v++) {
		_mm512_storeu_ps(f, acc[v]);
		for (L = 0; L < 16; L++) {
			R = 16 * gs[v] + L;
			if (R >= r0 && R < r1)
				out[R] = f[L];
		}
	}
}

/* Rows [r0, r1) of packed w (pk as zxdec) against the token at xq. */
INLINE void
zxrows(int pk, float *out, const void *w, const int8_t *xq, int n, int r0,
    int r1)
{
	int g0 = r0 / 16, g1 = (r1 + 15) / 16, left = g1 - g0, v, s, m;
	int st[ZDV], len[ZDV], gs[ZDV], off = pk == 1 ? 128 : 8;
	size_t gstride = (size_t)(n + 31) / 32 * (pk == 1 ? 576 : 288);

	for (v = 0; v < ZDV; v++) {
		len[v] = kern_piece(left, ZDV - v);
		st[v] = g1 - left;
		left -= len[v];
	}
	m = len[ZDV - 1];	/* the shortest: kern_piece's larger first */
	for (s = 0; s < m; s++) {
		for (v = 0; v < ZDV; v++)
			gs[v] = st[v] + s;
		zxdec(pk, ZDV, out, w, gstride, xq, off, n, gs, r0, r1);
	}
	for (v = 0; v < ZDV; v++)
		for (s = m; s < len[v]; s++) {
			gs[0] = st[v] + s;
			zxdec(pk, 1, out, w, gstride, xq, off, n, gs, r0, r1);
		}
}

/* Rows [r0, r1) of packed w against TT tokens prepared at xq (ld bytes
 * apart), groups [p0, p1). */
INLINE void
zxgroups(int pk, int TT, float *out, int ldo, const uint8_t *w,
    const int8_t *xq, size_t ld, int n, int p0, int p1, int r0, int r1,
    struct fetchspan *fs)
{
	size_t gb = pk == 1 ? 576 : 288, gstride = (size_t)(n + 31) / 32 * gb;
	int g, r;

	for (g = p0; g < p1; g++) {
		r = 16 * g;
		zgemm(pk, TT, out, ldo, w + (size_t)g * gstride, gb, xq, ld,
		    pk == 1 ? 128 : 8, n, r, r0 > r ? r0 - r : 0, r1 - r < 16 ?
		    r1 - r : 16, fs);
	}
}

/* Rows [r0, r1) of packed w against the nt tokens of a chunk prepared
 * at xq (ld bytes a token): panels of ZPBUF bytes of groups against
 * ZTT tokens at a time, the next panel fetched meanwhile, a few lines
 * a block of zgemm (fetchspan; zahead's part a token block at once
 * stalled on the misses: bench/NOTES.md): this chunk's next or, where
 * more chunks follow, the first. */
INLINE void
zxchunk(int pk, float *out, int ldo, const uint8_t *w, const int8_t *xq,
    size_t ld, int n, int nt, int r0, int r1, int more)
{
	size_t gstride = (size_t)(n + 31) / 32 * (pk == 1 ? 576 : 288);
	int g0 = r0 / 16, g1 = (r1 + 15) / 16, P, p0, p1, q0, q1, j;
	int ng = (nt + ZTT - 1) / ZTT, nb = (n + 31) / 32;
	struct fetchspan fs;

	P = (int)(ZPBUF / gstride);
	P = P < 1 ? 1 : P;
	for (p0 = g0; p0 < g1; p0 = p1) {
		p1 = g1 - p0 > P ? p0 + P : g1;
		q0 = p1 < g1 ? p1 : more ? g0 : g1;
		q1 = g1 - q0 > P ? q0 + P : g1;
		/* the next panel a share a block of the products */
		fetchspan_set(&fs, w + (size_t)q0 * gstride, (size_t)(q1 - q0) *
		    gstride, (size_t)ng * (p1 - p0) * nb);
		for (j = 0; j < nt; j += ZTT) {
			float *o = out + (size_t)j * ldo;
			const int8_t *xj = xq + (size_t)j * ld;

			switch (nt - j < ZTT ? nt - j : ZTT) {	/* ZTT 8 */
			case 1: zxgroups(pk, 1, o, ldo, w, xj, ld, n, p0, p1, r0, r1, &fs); break;
			case 2: zxgroups(pk, 2, o, ldo, w, xj, ld, n, p0, p1, r0, r1, &fs); break;
			case 3: zxgroups(pk, 3, o, ldo, w, xj, ld, n, p0, p1, r0, r1, &fs); break;
			case 4: zxgroups(pk, 4, o, ldo, w, xj, ld, n, p0, p1, r0, r1, &fs); break;
			case 5: zxgroups(pk, 5, o, ldo, w, xj, ld, n, p0, p1, r0, r1, &fs); break;
			case 6: zxgroups(pk, 6, o, ldo, w, xj, ld, n, p0, p1, r0, r1, &fs); break;
			case 7: zxgroups(pk, 7, o, ldo, w, xj, ld, n, p0, p1, r0, r1, &fs); break;
			default: zxgroups(pk, ZTT, o, ldo, w, xj, ld, n, p0, p1, r0, r1, &fs);
			}
		}
	}
}

/* Decode of packed w: the token prepared, then zxrows. */
INLINE void
zxmatvec(enum wtype t, float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	int8_t xq[ZXLD(CONV_Q8_0_NB(KERN_GI8_MAXN))]
	    __attribute__((aligned(64)));

	if (n > KERN_GI8_MAXN) {
		kern_portable.matvec[t](out, w, x, n, r0, r1);
		return;
	}
	zxprep(xq, x, 0, n, 1, 0, 1);
	zxrows(t == W_Q8X16 ? 1 : 2, out, w, xq, n, r0, r1);
}

/* Prefill of packed w on T tokens prepared at xp (zxprep). */
INLINE void
zxmatmulx(enum wtype t, float *out, int ldo, const void *w, const void *xp,
    int n, int T, int r0, int r1)
{
	size_t ld = ZXLD(CONV_Q8_0_NB(n));
	const int8_t *q = xp;
	int j, pk = t == W_Q8X16 ? 1 : 2;

	if (T < ZXFEW) {
		for (j = 0; j < T; j++)
			zxrows(pk, out + (size_t)j * ldo, w, q + (size_t)j * ld, n,
			    r0, r1);
		return;
	}
	zxchunk(pk, out, ldo, w, q, ld, n, T, r0, r1, 0);
}

/* Prefill of packed w: a chunk of tokens prepared at a time (zxprep, on
 * the stack), then zxchunk's panels. */
INLINE void
zxmatmul(enum wtype t, float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	int8_t xq[ZXBUF] __attribute__((aligned(64)));
	size_t ld = ZXLD(CONV_Q8_0_NB(n));
	int t0, nt, TB, pk = t == W_Q8X16 ? 1 : 2;

	if (n > KERN_GI8_MAXN) {
		kern_portable.matmul[t](out, ldo, w, x, ldx, n, T, r0, r1);
		return;
	}
	if (T < ZXFEW) {
		for (t0 = 0; t0 < T; t0++)
			zxmatvec(t, out + (size_t)t0 * ldo, w, x + (size_t)t0 * ldx,
			    n, r0, r1);
		return;
	}
	TB = zchunk_tokens(n);
	for (t0 = 0; t0 < T; t0 += TB) {
		nt = T - t0 > TB ? TB : T - t0;
		zxprep(xq, x + (size_t)t0 * ldx, ldx, n, nt, 0, nt);
		zxchunk(pk, out + (size_t)t0 * ldo, ldo, w, xq, ld, n, nt, r0, r1,
		    t0 + nt < T);
	}
}

void
kern_q8x16_avx512_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	zxmatvec(W_Q8X16, out, w, x, n, r0, r1);
}

void
kern_q4x16_avx512_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	zxmatvec(W_Q4X16, out, w, x, n, r0, r1);
}

void
kern_q8x16_avx512_matmul(float *out, int ldo, const void *w,
    const float *x, int ldx, int n, int T, int r0, int r1)
{
	zxmatmul(W_Q8X16, out, ldo, w, x, ldx, n, T, r0, r1);
}

void
kern_q4x16_avx512_matmul(float *out, int ldo, const void *w,
    const float *x, int ldx, int n, int T, int r0, int r1)
{
	zxmatmul(W_Q4X16, out, ldo, w, x, ldx, n, T, r0, r1);
}

void
kern_q8x16_avx512_matmulx(float *out, int ldo, const void *w,
    const void *xp, const float *x, int ldx, int n, int T, int r0,
    int r1)
{
	(void)x, (void)ldx;
	zxmatmulx(W_Q8X16, out, ldo, w, xp, n, T, r0, r1);
}

void
kern_q4x16_avx512_matmulx(float *out, int ldo, const void *w,
    const void *xp, const float *x, int ldx, int n, int T, int r0,
    int r1)
{
	(void)x, (void)ldx;
	zxmatmulx(W_Q4X16, out, ldo, w, xp, n, T, r0, r1);
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
	gi8_matvec(W_GQ8_0I, out, w, x, n, r0, r1);
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
	gi8_matvec(W_Q4_0I, out, w, x, n, r0, r1);
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
	gi8_matvec(W_Q5_0I, out, w, x, n, r0, r1);
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
