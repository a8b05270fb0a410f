/* kern_x16.c: --int8-act's blocks of 32 and superblocks packed by 16
 * rows (kern.h's "rows packed by 16"): the packing, done once at load,
 * and the portable kernels, which read the packed bytes back as the
 * chain kern.h defines. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "kern/kern.h"

size_t
kern_x16_bytes(enum wtype t, int rows, int n)
{
	return ((size_t)rows + 15) / 16 * (((size_t)n + wtypes[t].block - 1) /
	    wtypes[t].block) * KERN_X16_GB(t);
}

/* A block of 32 of a W_Q4 matrix lies in one group (or the row has
 * one), and the packed F16 scales hold its scales exactly. */
int
kern_x16_packs(enum wtype from, const void *w, int rows, int n)
{
	const struct kern_q4 *k = w;
	int r, g;

	if (n > CONV_Q8_0_MAXN)
		return 0;
	if (from == W_Q4_KI || from == W_Q6_KI)
		return n % 256 == 0;
	if (from != W_Q4I)
		return 1;
	if (k->z || (k->group % 32 && k->ng > 1))
		return 0;
	for (r = 0; r < rows; r++)
		for (g = 0; g < k->ng; g++) {
			float s = kern_q4_scale(k, r, g);

			if (conv_f16_to_f32(conv_f32_to_f16(s)) != s)
				return 0;
		}
	return 1;
}

/* Block b of row r of w (type from) as 32 integers q plus the offset,
 * in element order (W_Q4_0I, W_Q4I: the 16 bytes of a Q4_0 block, weight
 * i in the low nibble of byte i, 16 + i in its high), into u; its scale
 * into *d (W_Q8_0I) or its F16 bits into *h. */
static void
srcblk(uint8_t *u, float *d, uint16_t *h, const void *w, enum wtype from,
    int n, int r, int b)
{
	const uint8_t *p;
	int j;

	if (from == W_Q4I) {	/* kern.h's struct kern_q4; past n weight 0 */
		const struct kern_q4 *k = w;
		const uint32_t *q = k->q + (size_t)r * k->wpr;
		int e, nib[32];

		for (j = 0; j < 32; j++) {
			e = 32 * b + j;
			nib[j] = e < n ? (int)(q[e / 8] >> 4 * (e % 8) & 15) : 8;
		}
		for (j = 0; j < 16; j++)
			u[j] = (uint8_t)(nib[j] | nib[16 + j] << 4);
		*d = kern_q4_scale(k, r, k->ng > 1 ? 32 * b / k->group : 0);
		*h = conv_f32_to_f16(*d);
		return;
	}
	if (from == W_Q8_0I) {	/* conv.h: nb scales, then nb blocks */
		size_t nb = CONV_Q8_0_NB(n);
		const float *s = (const float *)((const char *)w + (size_t)r *
		    conv_q8_0_rowsize(n));

		*d = s[b];
		p = (const uint8_t *)(s + nb) + 32 * (size_t)b;
		for (j = 0; j < 32; j++)
			u[j] = (uint8_t)(p[j] ^ 0x80);
		return;
	}
	p = (const uint8_t *)w + (size_t)r * wtype_rowsize(from, n) +
	    (size_t)b * wtypes[from].bytes;
	*h = (uint16_t)(p[0] | p[1] << 8);
	*d = conv_f16_to_f32(*h);
	if (from == W_GQ8_0I)
		for (j = 0; j < 32; j++)
			u[j] = (uint8_t)(p[2 + j] ^ 0x80);
	else	/* W_Q4_0I: the packed bytes as they are */
		memcpy(u, p + 2, 16);
}

/* Row l of a half of W_Q4KX16 or W_Q6KX16 (type t) and that row's
 * superblock, one into the other: unpack 0 copies the superblock at src
 * into the half at dst (its bytes where kern.h's map puts them, 4 at a
 * time where they go together: a byte at a time took seconds for a 1B
 * model), unpack 1 the half at src back into the superblock at dst.
 * The map's one definition; inlined, so that each caller's copies are
 * made for its direction. */
static inline __attribute__((always_inline)) void
kxmove(uint8_t *dst, const uint8_t *src, enum wtype t, int l, int unpack)
{
	int a, k;

#define MV(o, s, n) memcpy(dst + (unpack ? (s) : (o)), \
	src + (unpack ? (o) : (s)), n)
	if (t == W_Q4KX16) {
		for (a = 0; a < 32; a++)	/* qs byte 32p + 4l' + i */
			MV(32 * a + 4 * l, 16 + 4 * a, 4);
		MV(1024 + 2 * l, 0, 2);		/* d */
		MV(1040 + 2 * l, 2, 2);		/* dmin */
		for (k = 0; k < 12; k++)	/* the scale bytes */
			MV(1056 + 8 * k + l, 4 + k, 1);
		return;
	}
	for (a = 0; a < 32; a++)	/* ql byte 64h + 4m + i */
		MV(32 * a + 4 * l, 4 * a, 4);
	for (a = 0; a < 16; a++)	/* qh byte 32h + 4m + i */
		MV(1024 + 32 * a + 4 * l, 128 + 4 * a, 4);
	for (k = 0; k < 16; k++)	/* the scales */
		MV(1536 + 8 * k + l, 192 + k, 1);
	MV(1664 + 2 * l, 208, 2);	/* d */
#undef MV
}

/* The superblocks, each row's moved into its half (kxmove). */
static void
kxpack(uint8_t *dst, enum wtype to, const uint8_t *w, enum wtype from,
    int rows, int n, int g0, int g1)
{
	int nb = n / 256, bytes = wtypes[from].bytes, g, b, L;
	size_t gb = KERN_X16_GB(to), rb = wtype_rowsize(from, n);

	for (g = g0; g < g1; g++)
		for (b = 0; b < nb; b++) {
			uint8_t *o = dst + ((size_t)g * nb + b) * gb;

			memset(o, 0, gb);
			for (L = 0; L < 16 && 16 * g + L < rows; L++)
				kxmove(o + gb / 2 * (L / 8), w + (size_t)(16 * g +
				    L) * rb + (size_t)b * bytes, to, L % 8, 0);
		}
}

void
kern_x16_pack(void *dst, enum wtype to, const void *w, enum wtype from,
    int rows, int n, int g0, int g1)
{
	int nb = (n + 31) / 32, g, b, L, k;
	size_t gb = KERN_X16_GB(to);
	uint8_t u[32];
	uint16_t h = 0;
	float d;

	if (to == W_Q4KX16 || to == W_Q6KX16) {
		kxpack(dst, to, w, from, rows, n, g0, g1);
		return;
	}
	for (g = g0; g < g1; g++)
		for (b = 0; b < nb; b++) {
			uint8_t *o = (uint8_t *)dst + ((size_t)g * nb + b) * gb;

			memset(o, 0, gb);
			for (L = 0; L < 16 && 16 * g + L < rows; L++) {
				srcblk(u, &d, &h, w, from, n, 16 * g + L, b);
				for (k = 0; k < (to == W_Q8X16 ? 8 : 4); k++)
					memcpy(o + 64 * k + 4 * L, u + 4 * k, 4);
				if (to == W_Q8X16)
					memcpy(o + 512 + 4 * L, &d, 4);
				else
					memcpy(o + 256 + 2 * L, &h, 2);
			}
		}
}

/* Row L of a group (at p, nb blocks of type t) against a token's
 * conv_q8_0_quant blocks: each block's exact S, one float chain. */
static float
x16dot(enum wtype t, const uint8_t *p, int L, int nb, const float *xd,
    const int8_t *xq)
{
	size_t gb = KERN_X16_GB(t);
	float acc = 0, dw;
	int32_t S;
	int b, k, i, q;

	for (b = 0; b < nb; b++, p += gb, xq += 32) {
		for (S = 0, k = 0; k < 8; k++)
			for (i = 0; i < 4; i++) {
				if (t == W_Q8X16)
					q = p[64 * k + 4 * L + i] - 128;
				else
					q = (p[64 * (k % 4) + 4 * L + i] >> 4 * (k / 4) &
					    15) - 8;
				S += q * xq[4 * k + i];
			}
		if (t == W_Q8X16)
			memcpy(&dw, p + 512 + 4 * L, 4);
		else
			dw = conv_f16_to_f32((uint16_t)(p[256 + 2 * L] |
			    p[257 + 2 * L] << 8));
		acc = fmaf((float)S, dw * xd[b], acc);
	}
	return acc;
}

/* Packed superblocks: each row's bytes moved back, then the chain of
 * the type packed. */
static void
kxmatvec(enum wtype t, float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	struct kern_q8k y[CONV_Q8_0_MAXN / 256];
	enum wtype from = t == W_Q4KX16 ? W_Q4_KI : W_Q6_KI;
	uint8_t row[CONV_Q8_0_MAXN / 256 * 210];
	int nb = n / 256, bytes = wtypes[from].bytes, r, b;
	size_t gb = KERN_X16_GB(t);

	if (n > CONV_Q8_0_MAXN || n % 256)
		return;
	kern_q8k_prep(y, x, n);
	for (r = r0; r < r1; r++) {
		const uint8_t *g = (const uint8_t *)w + (size_t)(r / 16) * nb *
		    gb + gb / 2 * (r % 16 / 8);

		for (b = 0; b < nb; b++)
			kxmove(row + b * bytes, g + b * gb, t, r % 8, 1);
		out[r] = kern_q8k_dot(from, row, nb, y);
	}
}

static void
matvec(enum wtype t, float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	float xq[CONV_Q8_0_XMAX / sizeof(float)];
	int nb = (n + 31) / 32, r;

	if (t == W_Q4KX16 || t == W_Q6KX16) {
		kxmatvec(t, out, w, x, n, r0, r1);
		return;
	}
	if (n > CONV_Q8_0_MAXN)
		return;
	conv_q8_0_quant(xq, x, n);
	for (r = r0; r < r1; r++)
		out[r] = x16dot(t, (const uint8_t *)w + (size_t)(r / 16) * nb *
		    KERN_X16_GB(t), r % 16, nb, xq, (const int8_t *)(xq +
		    CONV_Q8_0_NB(n)));
}

static void
matmul(enum wtype t, float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	int j;

	for (j = 0; j < T; j++)
		matvec(t, out + (size_t)j * ldo, w, x + (size_t)j * ldx, n, r0,
		    r1);
}

void
kern_q8x16_matvec(float *out, const void *w, const float *x, int n, int r0,
    int r1)
{
	matvec(W_Q8X16, out, w, x, n, r0, r1);
}

void
kern_q4x16_matvec(float *out, const void *w, const float *x, int n, int r0,
    int r1)
{
	matvec(W_Q4X16, out, w, x, n, r0, r1);
}

void
kern_q8x16_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	matmul(W_Q8X16, out, ldo, w, x, ldx, n, T, r0, r1);
}

void
kern_q4x16_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	matmul(W_Q4X16, out, ldo, w, x, ldx, n, T, r0, r1);
}

void
kern_q4kx16_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	matvec(W_Q4KX16, out, w, x, n, r0, r1);
}

void
kern_q6kx16_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	matvec(W_Q6KX16, out, w, x, n, r0, r1);
}

void
kern_q4kx16_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	matmul(W_Q4KX16, out, ldo, w, x, ldx, n, T, r0, r1);
}

void
kern_q6kx16_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	matmul(W_Q6KX16, out, ldo, w, x, ldx, n, T, r0, r1);
}
