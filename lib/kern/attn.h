/* attn.h: causal attention over a KV cache, in tiles, with an online
 * softmax (flash-attention style: no score row of the context length).
 *
 * A tile is the work of one KV head: the nh query heads that share it
 * (GQA) for T consecutive tokens, over a range of key positions.  Each
 * loaded key and value row serves all nh * T query rows of the tile.
 * Keys are taken in blocks of ATTN_BLOCK positions counted from 0, so
 * the operations a query row sees depend only on its own position and
 * the key range, never on the other rows of its tile: a split of the
 * tiles over threads gives bit-identical results.
 *
 * One table per instruction set (portable C in attn.c, lib/kern/attn_avx2.c,
 * lib/kern/attn_avx512.c), picked by the name of the kernel table in use. */
#ifndef ATTN_H
#define ATTN_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "kern/conv.h"
#include "kern/wtype.h"

#define ATTN_BLOCK 16		/* key positions per online-softmax step */
#define ATTN_MAXROWS 64		/* nh * T per tile, at most */
#define ATTN_TILEROWS 24	/* nh * T per prefill tile, about */
#define ATTN_NCHUNK 16		/* decode: key ranges per head, at most */
#define ATTN_MINCHUNK 64	/* decode: keys per range, at least */

/* One tile's inputs.  Query row (t, h), t < T, h < nh, is at
 * q[t*ldq + h*hd]; the cache is cut into blocks of kvb positions, and
 * the key and value of position p are at k[o] and v[o] with
 * o = b * bstride + (p % kvb) * ldkv, b = p / kvb, or btab[p / kvb]
 * where the blocks come from a pool (one block: kvb >= p1); with
 * segstride, blocks go in segments of 1 << segshift, segstride apart:
 * o = (b >> segshift) * segstride + (b % (1 << segshift)) * bstride +
 * (p % kvb) * ldkv.
 * Token t sits at position pos0 + t and sees the keys p with
 * p0 <= p < p1 and p <= pos0 + t, and with a window (win > 0) only the
 * win latest of them, p > pos0 + t - win (HF masking_utils'
 * sliding_window_overlay); p1 <= pos0 + T.  The cache's elements are
 * of type kvt: W_F32 (0, the default), W_BF16, W_F16 or W_GQ8_0
 * (--kv-type q8_0: ggml's Q8_0 arithmetic, a block of 32 elements an
 * F16 scale d and 32 int8 q, element i d * q[i], but laid out in groups
 * of ATTN_Q8G positions, attn_q8g below; ldkv then attn_kvrow's whole
 * blocks, rows back to back, kvb a multiple of ATTN_Q8G, bstride and
 * segstride multiples of 32), offsets counted in elements
 * (attn_kvbytes makes them bytes).  A 16-bit key or value,
 * and a Q8_0 value, is widened to float32 exactly as it is loaded (d * q
 * is exact: 11 and 8 significant bits), so a tile over such a cache
 * gives the bits the same tile gives over a float32 copy of its values,
 * but for the one-token tile (T = 1, decode's) of the AVX-512 and AVX2
 * tables (their part1), which sums in an order of its own there, and
 * over a Q8_0 cache folds each value's scale into its probability (one
 * rounding more; these caches are not the exact mode): its bits depend
 * on its key range alone, not on a tile of more tokens' (a prompt's
 * row) nor on a float32 copy's.  A Q8_0 cache's scores are llama.cpp's with -ctk q8_0 (its
 * flash attention's ggml_vec_dot_q8_0_q8_0): the query row quantized as
 * the keys are (attn_kvstore), then attn_q8gscore, int8 products summed
 * in integers a block (exact), the same bits in every table, tile and
 * thread count. */
struct attn_tile {
	const float *q;
	int ldq;
	const void *k, *v;
	size_t ldkv, bstride;
	int kvb;
	int hd, nh, T, pos0, p0, p1;
	float scale;		/* score = scale * q.k, 1/sqrt(hd) for LLaMA */
	int win;		/* 0, or the sliding window */
	float softcap;		/* 0, or score = softcap * tanh(score / softcap)
				 * (Gemma 2's attn_logit_softcapping) */
	const unsigned *btab;	/* NULL, or the cache's block of each kvb
				 * positions (attn_off) */
	enum wtype kvt;		/* the cache's element type */
	int touched;		/* 1: the caller has just read the tile in
				 * address order (decode's attn_touch), so it
				 * is in cache: no prefetch a block */
	const struct attn_tile *ahead;	/* NULL, or the tile the caller
				 * runs next (decode, T = 1): its keys and
				 * values prefetched a key block's share at
				 * a time while this one computes
				 * (attn_ahead) */
	size_t segstride;	/* 0, or a segment of blocks' elements */
	int segshift;		/* log2 of the blocks a segment */
};

/* Bytes of n elements of a KV cache of type t (W_F32, W_BF16, W_F16;
 * W_GQ8_0: n / 32 blocks of 34 bytes, n a multiple of 32). */
static inline size_t
attn_kvbytes(enum wtype t, size_t n)
{
	if (t == W_GQ8_0)
		return n / 32 * 34;
	return n * (t == W_F32 ? sizeof(float) : 2);
}

/* Elements a cache row of hd takes in type t: hd, or for W_GQ8_0
 * whole blocks of 32, a last one partly padding (zeros). */
static inline int
attn_kvrow(enum wtype t, int hd)
{
	return t == W_GQ8_0 ? (hd + 31) / 32 * 32 : hd;
}

/* Element i of a row p of type t, as float32 (exact); W_GQ8_0: a row of
 * ggml's blocks, attn_kvstore's (a query's), not a cache's group. */
static inline float
attn_kvload(const void *p, int i, enum wtype t)
{
	const unsigned char *b;
	uint16_t d;

	if (t == W_BF16)
		return conv_bf16_to_f32(((const uint16_t *)p)[i]);
	if (t == W_F16)
		return conv_f16_to_f32(((const uint16_t *)p)[i]);
	if (t == W_GQ8_0) {
		b = (const unsigned char *)p + i / 32 * 34;
		memcpy(&d, b, sizeof(d));
		return conv_f16_to_f32(d) * (float)(signed char)b[2 + i % 32];
	}
	return ((const float *)p)[i];
}

/* A Q8_0 cache's positions go in groups of ATTN_Q8G (counted from 0)
 * whose rows of n elements (attn_kvrow: nb = n / 32 blocks) are back to
 * back: a group is the ATTN_Q8G rows' scales, block by block (block b
 * of row r the F16 at 2 * (ATTN_Q8G * b + r) bytes), then the rows'
 * int8 (row r from (r + 1) * n bytes): the bytes of ATTN_Q8G rows of
 * Q8_0 blocks (17 n), so offsets and sizes are those of ggml's rows, a
 * group at the offset of its first row.  Why: a block of 16 keys' scales
 * is one vector load, and a row's int8 one aligned run (decode's tile
 * over 4,096 positions read each key's two scales one by one out of
 * 68-byte rows: bench/NOTES.md, "Decode's Q8_0 tile over a cache in
 * groups of 16 positions").  The query row a tile quantizes stays in
 * ggml's row of blocks (attn_kvstore). */
#define ATTN_Q8G 16

/* Row r's int8 in the Q8_0 group g of rows of n elements. */
static inline const signed char *
attn_q8gq(const void *g, int n, int r)
{
	return (const signed char *)g + (size_t)(r + 1) * n;
}

/* Block b's scale of row r in Q8_0 group g, as float32. */
static inline float
attn_q8gd(const void *g, int r, int b)
{
	uint16_t d;

	memcpy(&d, (const char *)g + 2 * (ATTN_Q8G * b + r), sizeof(d));
	return conv_f16_to_f32(d);
}

/* The Q8_0 group (its scales, attn_q8gd's order) of the int8 row q,
 * row r of its group, rows of n elements: attn_q8gq undone. */
static inline const uint16_t *
attn_q8gof(const void *q, int r, int n)
{
	return (const uint16_t *)((const char *)q - (size_t)(r + 1) * n);
}

/* Element i of row r of a cache group g (rows of n = attn_kvrow
 * elements; for types other than W_GQ8_0 a group is just its rows back
 * to back), as float32 (exact). */
static inline float
attn_kvget(const void *g, int r, int i, int n, enum wtype t)
{
	if (t == W_GQ8_0)
		return attn_q8gd(g, r, i / 32) * (float)attn_q8gq(g, n, r)[i];
	return attn_kvload((const char *)g + attn_kvbytes(t, (size_t)r * n),
	    i, t);
}

/* The score of row r of the Q8_0 key group g (rows of n elements, a
 * multiple of 32) against query row qq quantized the same way
 * (attn_kvstore's row of blocks): with q_b, k_b the int8 and dq_b, dk_b
 * the scales of block b,
 *   s = 0;  s = s + (float)(q_b . k_b) * (dq_b * dk_b)  for b = 0, 1, ...
 * each product and sum rounded once, in block order: the dot product
 * is exact in integers (|q_b . k_b| <= 32 * 128 * 128), dq_b * dk_b
 * exact in float32 (two 11-bit significands), so every table's SIMD
 * gives these bits as long as it keeps the blocks' order (not fused
 * into an FMA).  llama.cpp's ggml_vec_dot_q8_0_q8_0 takes the same
 * products, summed in an order of its own.  attn_q8gblock: block b's
 * term, qb the query's block. */
static inline float
attn_q8gblock(const void *qb, const void *g, int r, int n, int b)
{
	const unsigned char *a = qb;
	const signed char *k = attn_q8gq(g, n, r) + 32 * b;
	uint16_t da;
	int32_t d = 0;
	int j;

	memcpy(&da, a, sizeof(da));
	for (j = 0; j < 32; j++)
		d += (signed char)a[2 + j] * k[j];
	return (float)d * (conv_f16_to_f32(da) * attn_q8gd(g, r, b));
}

static inline float
attn_q8gscore(const void *qq, const void *g, int r, int n)
{
	float s = 0, p;
	int i;

	for (i = 0; i < n; i += 32) {
		p = attn_q8gblock((const char *)qq + i / 32 * 34, g, r, n,
		    i / 32);
		s = s + p;	/* a statement of its own: no FMA */
	}
	return s;
}

/* The KV cache types --kv-type names (llama.cpp's -ctk/-ctv f32, bf16,
 * f16, q8_0), for messages. */
#define ATTN_KVNAMES "f32, bf16, f16, q8_0"

/* A key or value row x of n floats into a cache row dst of type t:
 * rounded to nearest even (bf16, f16), or quantized as ggml's
 * quantize_row_q8_0_ref (q8_0; a partial last block padded with zeros)
 * but that a block with a non-finite value gets a NaN scale, so that
 * it reads as NaN where float32's cache would make NaN or inf scores
 * or outputs, not as 0 (ggml's weights' rule). */
void attn_kvstore(void *dst, const float *x, int n, enum wtype t);

/* Row r (< ATTN_Q8G) of the cache group g of rows of attn_kvrow(t, n)
 * elements from the n floats x: attn_kvstore's values, a Q8_0 row laid
 * out as attn_q8gq and attn_q8gd read it. */
void attn_kvput(void *g, int r, const float *x, int n, enum wtype t);

/* The cache type called name (ATTN_KVNAMES), or -1. */
int attn_kvparse(const char *name);

/* The --kv-type name of cache type t, or NULL for a type no cache
 * has. */
const char *attn_kvname(enum wtype t);

/* The first key token t of tile a sees. */
static inline int
attn_start(const struct attn_tile *a, int t)
{
	int s = a->win ? a->pos0 + t - a->win + 1 : 0;

	return s > a->p0 ? s : a->p0;
}

/* Gemma 2's soft-capping of n scores in place: the order of HF's
 * attn_weights / softcap, tanh, * softcap. */
static inline void
attn_softcap(float *s, int n, float cap)
{
	int i;

	for (i = 0; i < n; i++)
		s[i] = tanhf(s[i] / cap) * cap;
}

/* Offset of position p's key or value from k or v, in elements. */
static inline size_t
attn_off(const struct attn_tile *a, int p)
{
	size_t b = a->btab ? a->btab[p / a->kvb] : (size_t)(p / a->kvb);
	size_t o = (size_t)(p % a->kvb) * a->ldkv;

	if (a->segstride)
		return (b >> a->segshift) * a->segstride + (b & (((size_t)1 <<
		    a->segshift) - 1)) * a->bstride + o;
	return b * a->bstride + o;
}

/* Where the key (v 0) or value (v 1) of position p starts. */
static inline const char *
attn_at(const struct attn_tile *a, int v, int p)
{
	return (const char *)(v ? a->v : a->k) + attn_kvbytes(a->kvt,
	    attn_off(a, p));
}

/* The key and value rows of block jb's ATTN_BLOCK positions (jb a
 * multiple of it) into kp and vp: those of jb + j for j0 <= j < j1, the
 * others pointing at jb + j0's (the kernels mask them out).  A block
 * lies within one of the cache's when kvb is a multiple of ATTN_BLOCK
 * (the model's is): one offset, not a division a key; a whole block
 * (all of decode's but a range's first and last) is one add a row.
 * A Q8_0 cache's rows are its group's int8 (attn_q8gq; its kvb a
 * multiple of ATTN_Q8G, a block one group).  Inlined: a call a block
 * cost decode's tile 8% of its instructions. */
static inline __attribute__((always_inline)) void
attn_rows(const struct attn_tile *a, int jb, int j0, int j1,
    const void **kp, const void **vp)
{
	size_t rs = attn_kvbytes(a->kvt, a->ldkv);
	const char *k, *v;
	int j, jn;

	if (a->kvb % ATTN_BLOCK && a->kvt != W_GQ8_0) {
		for (j = 0; j < ATTN_BLOCK; j++) {
			jn = j < j0 || j >= j1 ? j0 : j;
			kp[j] = attn_at(a, 0, jb + jn);
			vp[j] = attn_at(a, 1, jb + jn);
		}
		return;
	}
	k = attn_at(a, 0, jb);
	v = attn_at(a, 1, jb);
	if (a->kvt == W_GQ8_0) {	/* the group's int8 rows (attn_q8gq) */
		rs = a->ldkv;
		k += rs, v += rs;
	}
	if (j0 == 0 && j1 == ATTN_BLOCK) {
		for (j = 0; j < ATTN_BLOCK; j++, k += rs, v += rs)
			kp[j] = k, vp[j] = v;
		return;
	}
	for (j = 0; j < ATTN_BLOCK; j++) {
		jn = j < j0 || j >= j1 ? j0 : j;
		kp[j] = k + (size_t)jn * rs;
		vp[j] = v + (size_t)jn * rs;
	}
}

/* Start loading the keys and values of positions j0 <= j < j1 into
 * cache.  In decode the cache was last read a whole token ago and has
 * since been pushed out by the weights, so the tile's loads would
 * otherwise stall one block of keys at a time (prefetching a block
 * ahead shortened decode's attention; bench/NOTES.md, "Decode: where a
 * token's time goes").  Rows a cache block holds back to back (ldkv
 * the head size: the model's) are one run of lines each for K and V,
 * a prefetch a line; the loop a row and a line cost decode's tile 13%
 * of its instructions. */
#define ATTN_K 1	/* attn_prefetch_kv's keys */
#define ATTN_V 2	/* its values */

static inline __attribute__((always_inline)) void
attn_prefetch_kv(const struct attn_tile *a, int j0, int j1, int kv)
{
	size_t rs = attn_kvbytes(a->kvt, a->ldkv), o, len;
	const char *k = NULL, *v = NULL;
	int j, c, left = 0, n = (int)attn_kvbytes(a->kvt, a->hd);

	if (j0 >= j1)
		return;
	if (a->ldkv == (size_t)a->hd && (j1 - 1) / a->kvb == j0 / a->kvb) {
		k = attn_at(a, 0, j0);
		v = attn_at(a, 1, j0);
		len = (size_t)(j1 - j0) * rs;
		for (o = 0; o < len; o += 64) {
			if (kv & ATTN_K)
				__builtin_prefetch(k + o, 0, 3);
			if (kv & ATTN_V)
				__builtin_prefetch(v + o, 0, 3);
		}
		if (((uintptr_t)k | len) & 63) {	/* a last line begun */
			if (kv & ATTN_K)
				__builtin_prefetch(k + len - 1, 0, 3);
			if (kv & ATTN_V)
				__builtin_prefetch(v + len - 1, 0, 3);
		}
		return;
	}
	for (j = j0; j < j1; j++, left--) {
		if (!left) {	/* a cache block's first row: one offset */
			k = attn_at(a, 0, j);
			v = attn_at(a, 1, j);
			left = a->kvb - j % a->kvb;
		}
		for (c = 0; c < n; c += 64) {
			if (kv & ATTN_K)
				__builtin_prefetch(k + c, 0, 3);
			if (kv & ATTN_V)
				__builtin_prefetch(v + c, 0, 3);
		}
		if (left > 1)
			k += rs, v += rs;
	}
}

/* Both (attn_prefetch_kv: the keys, the values, or both). */
static inline __attribute__((always_inline)) void
attn_prefetch(const struct attn_tile *a, int j0, int j1)
{
	attn_prefetch_kv(a, j0, j1, ATTN_K | ATTN_V);
}

/* Unless the caller has just read tile a (touched), attn_prefetch its
 * key block from jb: its keys from a->p0 and before e.  The tiles'
 * first block before they start, and each next block as they compute
 * one. */
static inline __attribute__((always_inline)) void
attn_prefetch_block(const struct attn_tile *a, int jb, int e)
{
	int p = jb > a->p0 ? jb : a->p0;

	if (!a->touched)
		attn_prefetch(a, p, e - jb < ATTN_BLOCK ? e : jb + ATTN_BLOCK);
}

/* The positions [*p, *q) of tile a->ahead to prefetch while tile a
 * (T = 1) computes its key block jb: the next tile's block of the same
 * rank, and with a's last block all of the next tile that is left, so
 * that a's blocks together cover the next tile once. */
static inline void
attn_ahead_span(const struct attn_tile *a, int jb, int *p, int *q)
{
	const struct attn_tile *n = a->ahead;

	*p = n->p0 + (jb - (a->p0 - a->p0 % ATTN_BLOCK));
	*q = jb + ATTN_BLOCK >= a->p1 ? n->p1 : *p + ATTN_BLOCK;
	*q = *q < n->p1 ? *q : n->p1;
}

/* Prefetch the next tile's share of block jb (attn_ahead_span).  In
 * decode a tile's cache comes from memory; read in address order
 * before the tile (attn_touch) its reading and the tile's compute take
 * turns, where a key block of the next tile a block of this one keeps
 * the loads in flight under the compute (bench/NOTES.md, "Decode at
 * 4,096 positions: the next tile prefetched under this one"). */
static inline __attribute__((always_inline)) void
attn_ahead_kv(const struct attn_tile *a, int jb, int kv)
{
	int p, q;

	attn_ahead_span(a, jb, &p, &q);
	attn_prefetch_kv(a->ahead, p, q, kv);
}

static inline __attribute__((always_inline)) void
attn_ahead(const struct attn_tile *a, int jb)
{
	attn_ahead_kv(a, jb, ATTN_K | ATTN_V);
}

/* Read a byte of every line of the tile's keys and values in address
 * order (decode's cache into cache before its tile: attn.c). */
void attn_touch(const struct attn_tile *a);

struct attn_kern {
	const char *name;	/* the kern table name it goes with */
	/* The unnormalized attention of a tile, nh * T <= ATTN_MAXROWS,
	 * over a cache of any of the four element types:
	 * for each row (t, h), with s_p its scores over its keys,
	 *   ml[2r] = m = max_p s_p,  ml[2r+1] = l = sum_p exp(s_p - m),
	 *   acc[t*lda + h*hd + i] = sum_p exp(s_p - m) v_p[i],
	 * r = t*nh + h.  A row without keys gets m = -inf, l = 0, acc 0.
	 * acc must not overlap the inputs. */
	void (*part)(float *acc, int lda, float *ml, const struct attn_tile *a);
};

extern const struct attn_kern attn_portable;

/* The table for kernel table name kname ("portable", "avx2",
 * "avx512"; kern.name), the portable one for any other name.  The
 * caller must have checked the CPU runs kname (kern_init does). */
const struct attn_kern *attn_find(const char *kname);

/* Finish a tile's rows in place: acc / l (0 where l is 0); layout and
 * ml as attn_kern.part writes them. */
void attn_norm(float *acc, int lda, const float *ml, int hd, int nh, int T);

/* Merge n partial results of one query row over consecutive key ranges
 * (acc of part c at accs[c*lda], its m and l at mls[c*ldm] and
 * mls[c*ldm + 1], c < n, in key order) into the normalized output out
 * (hd floats), in a fixed order. */
void attn_merge(float *out, const float *accs, size_t lda, const float *mls,
    size_t ldm, int n, int hd);

#endif
