/* kern_i8_avx2.c: --int8-act's W_Q8_0I entries of the AVX2 table
 * (kern.h), and of an AVX-512 CPU without VNNI.
 *
 * A token's activations are quantized once (conv_q8_0_quant's bytes).
 * Per block of 32 and row: vpsignb gives the weights the activations'
 * signs, vpmaddubsw multiplies them by |X| into pairs (at most 2 * 127
 * * 127: no saturation), vpmaddwd by ones adds the pairs into 8 int32
 * lanes whose sum is the block's exact S; a register block's chains
 * (kern.h: one FMA a block, (float)S times dw * dx) are the lanes of
 * one register, their blocks' lanes summed by one hadd tree. */
#if defined(__x86_64__)

#include <immintrin.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kern/kern.h"
#include "kern/kern_avx2_int.h"

#define QR 2	/* rows per register block */
#define QT 2	/* tokens per register block */
#define XQBUF (64 * 1024)	/* bytes of quantized activations (matmul) */

/* 8 int32 lanes: lane l the sum of w[4l + i] x[4l + i], i < 4. */
INLINE __m256i
bdot(__m256i w, __m256i x, __m256i ax)
{
	return _mm256_madd_epi16(_mm256_maddubs_epi16(ax,
	    _mm256_sign_epi8(w, x)), _mm256_set1_epi16(1));
}

/* Block b's 8 int32 lanes of row wq against token xv: vpsignb gives
 * the weights the activations' signs, vpmaddubsw multiplies them by |X|
 * into pairs, vpmaddwd by ones adds the pairs: their sum is S. */
INLINE __m256i
qblk(const int8_t *wq, const int8_t *xv, size_t b)
{
	__m256i x = _mm256_loadu_si256((const __m256i *)(xv + 32 * b));

	return bdot(_mm256_loadu_si256((const __m256i *)(wq + 32 * b)), x,
	    _mm256_abs_epi8(x));
}

/* out[j*ldo + r + i*rs] = row r + i*rs of w . token j of the quantized
 * activations at xq (stride ldxq bytes), i < R, j < TT, R TT <= 4
 * chains in the lanes of one register: 8 blocks' scale products at a
 * time (dpairs), two blocks' sums at a time for all chains (chain2). */
INLINE void
qblock(int R, int TT, float *out, int ldo, const void *w, const char *xq,
    size_t ldxq, int n, int r, int rs)
{
	size_t nb = CONV_Q8_0_NB(n), rowb = nb * (4 + 32), b;
	const float *wd[QR], *xd[QT];
	const int8_t *wq[QR], *xv[QT];
	__m256 ds[4], d[4];
	__m256i P[2][4];
	__m128 acc = _mm_setzero_ps();
	float o[4] __attribute__((aligned(16)));
	int i, j, c, p;

	UNROLL
	for (i = 0; i < R; i++) {
		wd[i] = (const float *)((const char *)w + (size_t)(r + i * rs) *
		    rowb);
		wq[i] = (const int8_t *)(wd[i] + nb);
	}
	UNROLL
	for (j = 0; j < TT; j++) {
		xd[j] = (const float *)(xq + (size_t)j * ldxq);
		xv[j] = (const int8_t *)(xd[j] + nb);
	}
	UNROLL
	for (c = 0; c < 4; c++)
		ds[c] = _mm256_setzero_ps(), P[0][c] = P[1][c] =
		    _mm256_setzero_si256();
	for (b = 0; b + 8 <= nb; b += 8) {
		UNROLL
		for (i = 0; i < R; i++)
			UNROLL
			for (j = 0; j < TT; j++)
				ds[i * TT + j] = _mm256_mul_ps(_mm256_loadu_ps(
				    wd[i] + b), _mm256_loadu_ps(xd[j] + b));
		dpairs(d, ds);
		UNROLL
		for (c = 0; c < 8; c += 2) {
			UNROLL
			for (p = 0; p < 2; p++)
				UNROLL
				for (i = 0; i < R; i++)
					UNROLL
					for (j = 0; j < TT; j++)
						P[p][i * TT + j] = qblk(wq[i],
						    xv[j], b + c + p);
			acc = chain2(acc, P[0], P[1], d[c / 2]);
		}
	}
	for (; b < nb; b++) {	/* the rest a block at a time */
		float dd[4] = { 0 };

		UNROLL
		for (i = 0; i < R; i++)
			UNROLL
			for (j = 0; j < TT; j++) {
				P[0][i * TT + j] = qblk(wq[i], xv[j], b);
				dd[i * TT + j] = wd[i][b] * xd[j][b];
			}
		acc = _mm_fmadd_ps(_mm_cvtepi32_ps(hsum4i(P[0])),
		    _mm_loadu_ps(dd), acc);
	}
	_mm_store_ps(o, acc);
	UNROLL
	for (i = 0; i < R; i++)
		UNROLL
		for (j = 0; j < TT; j++)
			out[(size_t)j * ldo + r + i * rs] = o[i * TT + j];
}

void
kern_i8_avx2_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	char xq[CONV_Q8_0_NB(CONV_Q8_0_MAXN) * (4 + 32)]
	    __attribute__((aligned(32)));
	int h = (r1 - r0) / QR, r;

	if (n > CONV_Q8_0_MAXN)
		return;
	conv_q8_0_quant(xq, x, n);
	for (r = r0; r < r0 + h; r++)
		qblock(QR, 1, out, 0, w, xq, 0, n, r, h);
	for (r = r0 + QR * h; r < r1; r++)
		qblock(1, 1, out, 0, w, xq, 0, n, r, 1);
}

/* All T tokens quantized once (kern_xroom), row panels that fit in L2,
 * QR x QT register blocks: the weights come from memory once a call. */
void
kern_i8_avx2_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	char stk[XQBUF] __attribute__((aligned(64)));
	size_t ld = conv_q8_0_rowsize(n);
	int P = (int)((kern_l2 / 2) / ld), TB;
	int t0, t1, p0, p1, j, r;
	const char *xj;
	char *xq;
	float *o;

	if (n > CONV_Q8_0_MAXN)
		return;
	xq = kern_xroom(stk, sizeof(stk), ld, T, &TB);
	P = P < QR ? QR : P / QR * QR;
	for (t0 = 0; t0 < T; t0 = t1) {
		t1 = T - t0 > TB ? t0 + TB : T;
		for (j = t0; j < t1; j++)
			conv_q8_0_quant(xq + (size_t)(j - t0) * ld,
			    x + (size_t)j * ldx, n);
		for (p0 = r0; p0 < r1; p0 = p1) {
			p1 = r1 - p0 > P ? p0 + P : r1;
			for (j = t0; j < t1; j += QT) {
				xj = xq + (size_t)(j - t0) * ld;
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
	if (xq != stk)
		free(xq);
}

#endif
