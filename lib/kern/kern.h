/* kern.h: numeric kernels with runtime CPU dispatch.
 *
 * One table of function pointers (struct kern) holds the hot kernels;
 * kern_init() fills it once, in main before any thread starts, with the
 * portable C table or an ISA one (lib/kern/kern_avx2.c, lib/kern/kern_avx512.c).
 * All entries compute in float32; BF16/F16 weights are widened exactly.
 *
 * Every output element is computed by the same sequence of float
 * operations whatever the row range [r0, r1), the token count T or the
 * place of the row in an unrolled group, so a matrix split over threads
 * gives bit-identical results to one call over all rows. */
#ifndef KERN_H
#define KERN_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "kern/conv.h"
#include "kern/wtype.h"

/* The weight types and their sizes: wtype.h.  A Q8_0 matrix's
 * matvec / matmul entries quantize the activations to 16 bits per
 * block of 32 (conv_q8_0_quant_x) and sum d_w d_x (q_w . q_x) with exact
 * int32 dot products; int8 activations, as in llama.cpp, put the test
 * models' logits further from float32 than int16 ones, which stay at
 * the weights' own rounding (bench/NOTES.md), and decode reads the same
 * bytes either way.  to_f32 has no Q8_0 entry. */
struct kern {
	const char *name;	/* "portable", "avx2", "avx512" */
	/* out[r] = dot(W[r, 0..n), x) for r in [r0, r1); W is row-major,
	 * rows x n, of the entry's wtype; x has n floats.  W_BF16A (the
	 * --bf16-act fast path): the activations are first rounded to
	 * bfloat16 (nearest even) and the products summed by vdpbf16ps
	 * (pairs of bf16 products into float32 lanes), n <= its maxn; the
	 * same lane discipline holds.  An entry a table lacks is the
	 * portable one (kern_init); NULL there too (W_BF16A) means the
	 * type cannot run here. */
	void (*matvec[W_NTYPES])(float *out, const void *w, const float *x,
	    int n, int r0, int r1);
	/* out[t*ldo + r] = dot(W[r, 0..n), x + t*ldx) for t in [0, T) and
	 * r in [r0, r1): the prefill path, reusing each loaded weight row
	 * across tokens.  out[t*ldo + r] equals what matvec gives for the
	 * same row and x + t*ldx, bit for bit (W_Q4: to float32 rounding,
	 * below). */
	void (*matmul[W_NTYPES])(float *out, int ldo, const void *w,
	    const float *x, int ldx, int n, int T, int r0, int r1);
	/* T matvecs in one pass: out[t*ldo + r] is matvec's output for row
	 * r and x + t*ldx, bit for bit, each row's weights read once for
	 * all the tokens (a batch's decode rows, lib/model/seq_sched.c's
	 * mat_rows).  Only where matmul's bits are not matvec's (W_Q4);
	 * NULL: T matvec calls. */
	void (*matvecs[W_NTYPES])(float *out, int ldo, const void *w,
	    const float *x, int ldx, int n, int T, int r0, int r1);
	/* Sum of a[i]*b[i], i < n. */
	float (*dot)(const float *a, const float *b, int n);
	/* The index of the largest of x[0..n), the first of equals (0 for
	 * n < 1), or -1 - i where x[i] is the first that is not finite (a
	 * NaN compares false and would pass for a logit): greedy
	 * sampling's, every sequence of a batch on one thread. */
	int (*argmax)(const float *x, int n);
	/* kern_rope (below) in vectors: the same products and sums, each
	 * rounded, the same bits. */
	void (*rope)(float *x, int nh, int hd, const float *cos,
	    const float *sin);
	/* y += a x over n floats. */
	void (*axpy)(float *y, float a, const float *x, int n);
	/* o = x / sqrt(mean(x^2) + eps) * w (HF LlamaRMSNorm, float32);
	 * o may equal x. */
	void (*rmsnorm)(float *o, const float *x, const float *w, int n,
	    float eps);
	/* h[i] = silu(gate[i]) * up[i], silu(g) = g / (1 + e^-g), over n
	 * floats; h may equal gate or up.  The portable entry is
	 * kern_swiglu (libm's expf), the vector ones use a polynomial e^x
	 * (vexp.h: about 2 ulp). */
	void (*swiglu)(float *h, const float *gate, const float *up, int n);
	/* h[i] = gelu_tanh(gate[i]) * up[i] (Gemma's GeGLU), the same
	 * contract; gelu_tanh(x) = x / (1 + e^-2y), y = sqrt(2/pi) (x +
	 * 0.044715 x^3), which is 0.5 x (1 + tanh y).  The portable entry is
	 * kern_geglu's tanhf. */
	void (*geglu)(float *h, const float *gate, const float *up, int n);
	/* Widen n weights of the entry's wtype to float32. */
	void (*to_f32[W_NTYPES])(float *out, const void *w, size_t n);
	/* n floats narrowed to the entry's wtype, the bits of
	 * wtypes[t].from_f32: a KV cache's new rows (attn_kvstore), a
	 * model's rows converted at load.  NULL in a table: kern_init puts
	 * wtypes' own (the AVX2 and AVX-512 tables have F16's and BF16's). */
	void (*from_f32[W_NTYPES])(void *dst, const float *x, int n);
	/* Activations prepared once for several matmuls (a prefill's or a
	 * batch's q, k and v, or gate and up: each thread prepares all
	 * tokens once, lib/model/seq_sched.c's prepared()): --int8-act's
	 * quantized, the float types' laid out as the vector tables'
	 * register blocks read them.  xprep[t] puts
	 * tokens [t0, t1) of the T at x (ldx floats apart, rows of n <=
	 * wtypes[t].maxn) into xp, laid out for all T (at most
	 * KERN_XPBYTES(n, T) bytes, 64-byte aligned), so that disjoint
	 * ranges prepared apart make it whole; matmulx[t] is matmul[t] on
	 * the T tokens prepared, the same bits, given x and ldx as xprep
	 * was, unchanged: a token or a matrix the preparation cannot serve
	 * (W_Q4I's non-finite activation, rows not in whole words) takes
	 * matmul's own fallback on them.  Types with the same xprep read
	 * one preparation.  NULL: none in this table (the AVX2 and AVX-512
	 * tables have them for F32, F16 and BF16, the AVX-512 one with
	 * AVX512-BF16 for BF16A and with VNNI for the blocks of 32 too, the
	 * AVX2 one for W_Q4I). */
	void (*xprep[W_NTYPES])(void *xp, const float *x, int ldx, int n,
	    int T, int t0, int t1);
	void (*matmulx[W_NTYPES])(float *out, int ldo, const void *w,
	    const void *xp, const float *x, int ldx, int n, int T, int r0,
	    int r1);
	/* The type a matrix of type t is packed into at load where this
	 * table reads that faster (kern_x16_pack: --int8-act's blocks of
	 * 32 into W_Q8X16 and W_Q4X16), the same bits; 0: none. */
	unsigned char pack[W_NTYPES];
};
/* The most tokens of a batch's decode rows, the kernels' few-token path
 * (kern_avx512.c's and kern_avx2.c's few()); the float types' xprep is
 * worth its copy only up to it (lib/model/seq_sched.c's one_prep; a
 * prefill of 256 tokens was slower prepared, bench/NOTES.md). */
#define KERN_TFEW 64
/* Bytes of xprep's buffer for T tokens of n, in every table: a token's
 * 128 activations at most 512 bytes (the float types' 128 floats; the
 * blocks of 32's 128 bytes and four floats; W_Q4I's struct kern_q4x),
 * T taken in 4s. */
#define KERN_XPBYTES(n, T) (((size_t)(n) + 127) / 128 * 512 * \
	(((size_t)(T) + 3) / 4 * 4))

extern struct kern kern;		/* the table in use; portable until kern_init */
/* Bytes of one core's L2 cache, which the prefill blocks are sized by:
 * kern_init asks the system, 512 KiB when it does not say. */
extern size_t kern_l2;
/* 1 if the CPU has AVX-VNNI (vpdpbusd on 256 bits): kern_init sets it,
 * for the AVX2 table's kernels outside this struct (attn_avx2.c). */
extern int kern_avxvnni;
extern const struct kern kern_portable;	/* always available */

/* The size of the next of parts pieces of left items, when n items go
 * in pieces as equal as can be, the larger first: (left + parts - 1) /
 * parts. */
static inline int
kern_piece(int left, int parts)
{
	return (left + parts - 1) / parts;
}

/* argmax's ends in every table: -1 - i for the first x[i] of n that
 * is not finite (0 if all are); the first index of the largest of L
 * lanes' maxima m (lane k's first index of it b[k], -1 if none), 0 if
 * no lane has one. */
static inline int
kern_first_bad(const float *x, int n)
{
	uint32_t u;
	int i;

	for (i = 0; i < n; i++) {
		memcpy(&u, x + i, sizeof(u));
		if ((u & 0x7f800000) == 0x7f800000)
			return -1 - i;
	}
	return 0;
}

static inline int
kern_best_lane(const float *m, const int *b, int L)
{
	int k, best = -1;

	for (k = 0; k < L; k++)
		if (b[k] >= 0 && (best < 0 || m[k] > m[best] ||
		    (m[k] == m[best] && b[k] < b[best])))
			best = k;
	return best < 0 ? 0 : b[best];
}

/* Fill `kern` with the best table the CPU has, or the one named by want
 * ("portable", "avx2", "avx512"; NULL or "" = best).  Returns 0, or -1
 * after error() if want names an unknown table or one this CPU cannot
 * run (the table is then left portable).  Call once in main before
 * threads start. */
int kern_init(const char *want);

/* Room for the prepared activations of T tokens, ld bytes each, in
 * one piece, so that a matmul reads its weights from memory once for
 * all of them (a batch's decode rows, T up to 64, would otherwise read
 * a matrix of long rows once per few tokens): stack (cap bytes, the
 * caller's) where they fit, else the heap, 64-byte aligned (a pool
 * thread's stack may be small).  *tb: the tokens it holds, T, or where
 * the heap has no room the stack's share (super-blocks, each reading
 * the weights again).  The caller frees what is not stack. */
void *kern_xroom(void *stack, size_t cap, size_t ld, int T, int *tb);

/* Softmax of x[0..n) in place, max-subtracted; n >= 1. */
void kern_softmax(float *x, int n);
/* h[i] = silu(gate[i]) * up[i], silu(g) = g / (1 + exp(-g)); h may
 * equal gate or up. */
void kern_swiglu(float *h, const float *gate, const float *up, int n);
/* The activations of a GLU's gate: HF ACT2FN silu, gelu_pytorch_tanh
 * and gelu (erf). */
enum kern_act { ACT_SILU, ACT_GELU_TANH, ACT_GELU };
/* h[i] = act(gate[i]) * up[i], float32 as torch computes it (GeGLU:
 * Gemma's MLP); h may be gate. */
void kern_geglu(float *h, const float *gate, const float *up, int n,
    enum kern_act act);
/* RoPE, HF rotate-half convention, in place on nh heads of hd floats
 * each (hd even): for j < hd/2 the pair (x[j], x[j + hd/2]) becomes
 * (x[j] cos[j] - x[j+hd/2] sin[j], x[j+hd/2] cos[j] + x[j] sin[j]);
 * cos and sin hold hd/2 values for this position. */
void kern_rope(float *x, int nh, int hd, const float *cos, const float *sin);
/* The same over adjacent pairs (x[2j], x[2j+1]): q and k rows as
 * llama.cpp's converter permutes them for its rope type "norm" (row 2j
 * of a head is HF's row j, row 2j+1 HF's j + hd/2), which gives HF's
 * rotation in that order. */
void kern_rope_pairs(float *x, int nh, int hd, const float *cos,
    const float *sin);

/* ---- W_Q4 (lib/kern/kern_q4.c) ----
 *
 * A 4-bit matrix is three tensors, not one: the kernels' weight pointer
 * is a struct kern_q4 that names them (the other types keep their plain
 * row pointer, so their hot loops are untouched by this one; the entry
 * signatures are the same for every type).  Weight (r, j) is
 * (q - z) * scale, q - z an integer in [-15, 15]. */
struct kern_q4 {
	const uint32_t *q;	/* rows x wpr words: element j of a row at bits
				 * 4 (j % 8) of word j / 8, stored as q + 8 */
	const void *s;		/* rows x ng scales of type st */
	const uint32_t *z;	/* ceil(rows / 8) x ng words, zero point of
				 * (r, g) at bits 4 (r % 8) of word (r / 8, g),
				 * stored + 8; NULL: symmetric (z = 0) */
	enum wtype st;		/* W_F32, W_F16 or W_BF16 */
	int group;		/* weights per scale (cols for one per row) */
	int ng;			/* scales per row: ceil(cols / group) */
	int wpr;		/* words per row: ceil(cols / 8) */
};

/* Decode's products with a 4-bit matrix (matvec) are integer dot
 * products, exact, on activations put in integers once per call: per
 * block of 32 of them, X = nearest-even(x 2^k) with the largest |X| in
 * (KERN_Q4_XMAX / 2, KERN_Q4_XMAX] (kern_q4_xk), so every activation is
 * kept to 2^-23 of its block's largest (2^-22 in the rare block whose
 * largest has a mantissa above 0.99608; blocks below 2^-103 lose more,
 * 2^-k staying a normal float), as float32 keeps it to 2^-24 of
 * itself.  X is three balanced base-256 digits, X = a 2^16 + b 2^8 + c,
 * each in [-128, 127], which a byte dot product (vpdpbusd, vpmaddubsw)
 * takes against the unsigned nibbles q.  For word w (8 weights) of a
 * row,
 *
 *	L = 2^16 sum q a + 2^8 sum q b + sum q c - z sum X	(int32, exact)
 *	acc[w % 16] = fma((float)L, scale * 2^-k, acc[w % 16])
 *
 * in order of w, and the output is the 16 lanes summed by the tree
 * ((l0+l8)+(l4+l12))+((l2+l10)+(l6+l14)) + (the odd lanes alike).  So
 * the only roundings are those of the activations, of L and of the 16
 * float sums: the float32 product of the dequantized weights to float32
 * rounding (the unit test bounds it), in the same bits from every table
 * and row range (the tables are checked against the portable one).
 * Groups that are not whole words (group % 8 with more than one group),
 * rows longer than KERN_Q4_MAXN and a token with a non-finite
 * activation take the float path instead.
 *
 * Prefill's (matmul) is the float path: the rows dequantized, exactly
 * ((q - z) * scale is exact in float32 for BF16 and F16 scales; an F32
 * one rounds once), and multiplied by the table's F32 matmul, its bits.
 * So W_Q4 is the one type whose matvec and matmul agree to float32
 * rounding and not bit for bit: on these CPUs the integer path's byte
 * products per row and token cost more than the F32 matmul's FMAs on
 * weights dequantized once for many tokens, while in decode, where each
 * weight meets one token, they cost less (bench/NOTES.md). */
#define KERN_Q4_XMAX 8355711	/* 127 (2^16 + 2^8 + 1) */
#define KERN_Q4_MAXN 16384	/* longest row of the integer path */
/* Bytes of packed words in a panel of rows that matvecs runs against
 * each block of tokens before the next panel: a row at a time against
 * all T tokens read T prepared chunks (512 bytes each) per 64 bytes of
 * weights, from L2 once T tokens' chunks outgrew L1 (slower than T
 * matvecs from 16 tokens up); a panel keeps one block's activations in
 * L1 and the panel's rows in L2 (bench/NOTES.md 2026-12-02 21:00). */
#define KERN_Q4_TPANEL 16384

/* The activations of one token, 128 at a time (16 words), as the byte
 * dot products read them: element 2i + p of the chunk in byte i of
 * plane p (the low and the high nibbles of the words). */
struct kern_q4x {
	_Alignas(64) int8_t d[3][2][64];	/* digits c, b, a */
	int32_t nsx[16];	/* word w: minus the sum of its 8 X */
	float ef[16];		/* word w: 2^-k of its block */
};

/* Chunks of a row of n. */
#define KERN_Q4_NC(n) (((n) + 127) / 128)
/* W_Q4I's xprep for a table: each of tokens [t0, t1) into KERN_Q4_NC(n)
 * chunks a token by the table's prep8, their nsx times 8 if z8 (the
 * AVX2 kernels' 8 nsx); a token prep8 refuses (a non-finite activation)
 * marked by KERN_Q4_XBAD in its first chunk's nsx[0], which no sum of X
 * is; rows longer than KERN_Q4_MAXN left unwritten: the matmulx takes
 * x for those, as its matmul does. */
#define KERN_Q4_XBAD INT32_MIN
void kern_q4_xprep(void *xp, const float *x, int ldx, int n, int t0, int t1,
    int (*prep8)(struct kern_q4x *xc, const float *x, int n), int z8);
/* The exponent k of a block whose largest magnitude is mx (finite). */
int kern_q4_xk(float mx);
/* x[0..n) into KERN_Q4_NC(n) chunks at xc (zero beyond n); 0, or -1 if
 * an activation is not finite (xc is then undefined). */
int kern_q4_prep(struct kern_q4x *xc, const float *x, int n);
/* Whether m takes the integer path for rows of n. */
int kern_q4_int(const struct kern_q4 *m, int n);
/* The float path of the portable table, one row r against x (the
 * tables' decode fallback). */
float kern_q4_fdot(const struct kern_q4 *m, int r, const float *x, int n);

/* Element i of an array s of scales of type st (W_F32, W_F16 or W_BF16),
 * widened: the 4-bit formats' scales (this one's and GPTQ's). */
float kern_scale_at(enum wtype st, const void *s, size_t i);
/* Scale g of row r, widened. */
float kern_q4_scale(const struct kern_q4 *m, int r, int g);
/* Row r of m (cols weights) dequantized into out. */
void kern_q4_row(float *out, const struct kern_q4 *m, int r, int cols);
/* The portable matvec and matmul entries of W_Q4 (w: a struct kern_q4). */
void kern_q4_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1);
void kern_q4_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1);
void kern_q4_matvecs(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1);
/* The tables' prefill: rows [r0, r1) dequantized by deq (row r into o,
 * n weights, and up to 15 floats of +0 past them) into panels of up to
 * KERN_Q4_PANEL floats, each multiplied by f32mm, the table's F32
 * matmul, over all T tokens: its bits on the dequantized rows.  Rows
 * longer than a quarter of a panel, or no memory for one: the portable
 * float path. */
#define KERN_Q4_PANEL 65536	/* floats (256 KiB, in L2) */
void kern_q4_panels(float *out, int ldo, const struct kern_q4 *m,
    const float *x, int ldx, int n, int T, int r0, int r1,
    void (*deq)(float *o, const struct kern_q4 *m, int r, int n),
    void (*f32mm)(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1));
/* Those of the AVX2 and AVX-512 tables (lib/kern/kern_q4_avx2.c,
 * lib/kern/kern_q4_avx512.c). */
void kern_q4_avx2_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1);
void kern_q4_avx2_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1);
void kern_q4_avx2_matvecs(float *out, int ldo, const void *w,
    const float *x, int ldx, int n, int T, int r0, int r1);
/* kern_q4_prep on AVX2, byte for byte (x86-64 only; for the AVX2 and
 * AVX-512 tables' kernels and the unit test). */
int kern_q4_avx2_prep(struct kern_q4x *xc, const float *x, int n);
/* kern_q4_prep8 on AVX2 and on AVX-512, byte for byte (their W_Q4I
 * entries; the unit test). */
int kern_q4_avx2_prep8(struct kern_q4x *xc, const float *x, int n);
int kern_q4_avx512_prep8(struct kern_q4x *xc, const float *x, int n);
void kern_q4_avx512_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1);
void kern_q4_avx512_matmul(float *out, int ldo, const void *w,
    const float *x, int ldx, int n, int T, int r0, int r1);
void kern_q4_avx512_matvecs(float *out, int ldo, const void *w,
    const float *x, int ldx, int n, int T, int r0, int r1);

/* ---- --int8-act (lib/kern/kern_i8.c, its _avx2 and _avx512) ----
 *
 * The activations of a token are put in int8 once per call, per block
 * of 32 as Q8_0 puts weights (conv_q8_0_quant: dx = max|x| / 127, X =
 * nearest-even(x / dx) in [-127, 127]), and the products are integer
 * dot products, exact.  W_Q8_0I (Q8_0 rows): for block b of a row, S =
 * the exact sum of its 32 products (int32), and one float chain a row,
 *
 *	acc = fma((float)S, dw[b] * dx[b], acc)
 *
 * in order of b from acc = 0, the output acc: one float product a block,
 * as llama.cpp's Q8_0 x Q8_0 GEMM, so that a kernel can hold 8 or 16
 * rows' sums in the lanes of one register.
 * W_Q4I (W_Q4's matrices): W_Q4's integer path with X of one digit (c;
 * a and b zero) and dx in place of 2^-k; where W_Q4 takes its float path
 * (a group that is not whole words, a row past KERN_Q4_MAXN, a token
 * with a non-finite activation) W_Q4I takes it too.  So every table,
 * row range and token count gives the same bits, matvec and matmul
 * alike; the tables are checked against the portable one.  A W_Q4I
 * matrix that kern_x16_packs (symmetric, its blocks of 32 each in one
 * group, scales an F16 holds: --quant q4's and most checkpoints') is
 * Q4_0's weights, and model_set_int8act packs it as W_Q4X16 on every
 * table: Q4_0's chain above, not this one. */
/* x[0..n) as one digit per activation (kern_q4x's d[0]; d[1], d[2]
 * zero) with ef = dx of its block: 0, or -1 if an activation is not
 * finite (xc is then undefined). */
int kern_q4_prep8(struct kern_q4x *xc, const float *x, int n);
/* The portable entries. */
void kern_i8_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1);
void kern_i8_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1);
void kern_q4i_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1);
void kern_q4i_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1);
/* The AVX2 table's (vpmaddubsw) and the AVX-512 table's (VNNI: an
 * AVX-512 CPU without it takes the AVX2 ones, the same bits). */
void kern_i8_avx2_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1);
void kern_i8_avx2_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1);
/* With AVX-VNNI (kern_init picks it on the AVX2 table), the same bits;
 * W_Q8_0I's AVX2 kernels are those of ggml's Q8_0 (kern_ggml_i8_*.c). */
void kern_q8_0i_vnni_matvec(float *out, const void *w, const float *x,
    int n, int r0, int r1);
void kern_q8_0i_vnni_matmul(float *out, int ldo, const void *w,
    const float *x, int ldx, int n, int T, int r0, int r1);
/* W_Q4I's with AVX-VNNI (kern_q4_vnni_avx2.c), the same bits. */
void kern_q4i_vnni_matmul(float *out, int ldo, const void *w,
    const float *x, int ldx, int n, int T, int r0, int r1);
/* W_Q4I's xprep on the AVX2 table and its matmulx, with AVX-VNNI and
 * without. */
void kern_q4i_avx2_xprep(void *xp, const float *x, int ldx, int n, int T,
    int t0, int t1);
void kern_q4i_avx2_matmulx(float *out, int ldo, const void *w,
    const void *xp, const float *x, int ldx, int n, int T, int r0, int r1);
void kern_q4i_vnni_matmulx(float *out, int ldo, const void *w,
    const void *xp, const float *x, int ldx, int n, int T, int r0, int r1);
/* The AVX-512 table's (VNNI), nsx unscaled as its kernels read them. */
void kern_q4i_avx512_xprep(void *xp, const float *x, int ldx, int n, int T,
    int t0, int t1);
void kern_q4i_avx512_matmulx(float *out, int ldo, const void *w,
    const void *xp, const float *x, int ldx, int n, int T, int r0, int r1);
void kern_i8_avx512_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1);
void kern_i8_avx512_matmul(float *out, int ldo, const void *w,
    const float *x, int ldx, int n, int T, int r0, int r1);
void kern_q4i_avx2_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1);
void kern_q4i_avx2_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1);
void kern_q4i_avx512_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1);
void kern_q4i_avx512_matmul(float *out, int ldo, const void *w,
    const float *x, int ldx, int n, int T, int r0, int r1);

/* ---- ggml's block types (lib/kern/kern_ggml*.c) ----
 *
 * W_GQ8_0 .. W_IQ4_XS (wtype.h), read in place: the weights are
 * dequantized as ggml does (conv.h) and multiplied by the float32
 * activations as they are, no activation quantization.  matvec keeps
 * the table's F32 lane discipline over the dequantized row (element i
 * in lane i % 8 or i % 16, one product a lane in order, the table's
 * reduction tree), so its outputs are those of the table's F32 matvec
 * on the dequantized row, bit for bit; matmul dequantizes panels of
 * rows (kern_ggml_panels) and runs the table's F32 matmul on them, the
 * same bits again, whatever T, the row range or the threads.  The AVX2
 * and AVX-512 tables make the weights with vector code of the same
 * float operations as conv.h's, so every table's dequantized weights
 * are the same bits; their decode makes them in registers from each
 * block's integers, never a float row in memory (the AVX-512 table's
 * 4- and 5-bit types by a lookup in a per-block table of the 16 or 32
 * values, vpermps), and their prefill dequantizes panels. */
typedef void kern_matvec_fn(float *out, const void *w, const float *x,
    int n, int r0, int r1);
typedef void kern_matmul_fn(float *out, int ldo, const void *w,
    const float *x, int ldx, int n, int T, int r0, int r1);
typedef void kern_tof32_fn(float *out, const void *w, size_t n);
typedef void kern_xprep_fn(void *xp, const float *x, int ldx, int n, int T,
    int t0, int t1);
typedef void kern_matmulx_fn(float *out, int ldo, const void *w,
    const void *xp, const float *x, int ldx, int n, int T, int r0, int r1);
/* Prefill of type t through panels of dequantized rows: rows [r0, r1)
 * of w widened by deq (the table's to_f32 entry) into panels of up to
 * KERN_Q4_PANEL floats, each multiplied by f32mm over all T tokens;
 * rows longer than a quarter of a panel, or no memory for one: mv (the
 * table's matvec of t) a token at a time, the same bits. */
void kern_ggml_panels(enum wtype t, float *out, int ldo, const void *w,
    const float *x, int ldx, int n, int T, int r0, int r1,
    kern_tof32_fn *deq, kern_matmul_fn *f32mm, kern_matvec_fn *mv);
/* The entries, per type and table. */
kern_matvec_fn kern_gq8_0_matvec, kern_q4_0_matvec, kern_q4_1_matvec,
    kern_q5_0_matvec, kern_q5_1_matvec, kern_q2_k_matvec, kern_q3_k_matvec,
    kern_q4_k_matvec, kern_q5_k_matvec, kern_q6_k_matvec,
    kern_iq4_nl_matvec, kern_iq4_xs_matvec;
kern_matmul_fn kern_gq8_0_matmul, kern_q4_0_matmul, kern_q4_1_matmul,
    kern_q5_0_matmul, kern_q5_1_matmul, kern_q2_k_matmul, kern_q3_k_matmul,
    kern_q4_k_matmul, kern_q5_k_matmul, kern_q6_k_matmul,
    kern_iq4_nl_matmul, kern_iq4_xs_matmul;
kern_matvec_fn kern_gq8_0_avx2_matvec, kern_q4_0_avx2_matvec,
    kern_q4_1_avx2_matvec, kern_q5_0_avx2_matvec, kern_q5_1_avx2_matvec,
    kern_q2_k_avx2_matvec, kern_q3_k_avx2_matvec, kern_q4_k_avx2_matvec,
    kern_q5_k_avx2_matvec, kern_q6_k_avx2_matvec, kern_iq4_nl_avx2_matvec,
    kern_iq4_xs_avx2_matvec;
kern_matmul_fn kern_gq8_0_avx2_matmul, kern_q4_0_avx2_matmul,
    kern_q4_1_avx2_matmul, kern_q5_0_avx2_matmul, kern_q5_1_avx2_matmul,
    kern_q2_k_avx2_matmul, kern_q3_k_avx2_matmul, kern_q4_k_avx2_matmul,
    kern_q5_k_avx2_matmul, kern_q6_k_avx2_matmul, kern_iq4_nl_avx2_matmul,
    kern_iq4_xs_avx2_matmul;
kern_tof32_fn kern_gq8_0_avx2_to_f32, kern_q4_0_avx2_to_f32,
    kern_q5_0_avx2_to_f32, kern_q4_k_avx2_to_f32, kern_q6_k_avx2_to_f32;
/* kern.from_f32 of F16 and BF16 on the AVX2 and AVX-512 tables. */
void kern_f16_avx2_from_f32(void *dst, const float *x, int n);
void kern_bf16_avx2_from_f32(void *dst, const float *x, int n);
kern_matvec_fn kern_gq8_0_avx512_matvec, kern_q4_0_avx512_matvec,
    kern_q4_1_avx512_matvec, kern_q5_0_avx512_matvec,
    kern_q5_1_avx512_matvec, kern_q2_k_avx512_matvec,
    kern_q3_k_avx512_matvec, kern_q4_k_avx512_matvec,
    kern_q5_k_avx512_matvec, kern_q6_k_avx512_matvec,
    kern_iq4_nl_avx512_matvec, kern_iq4_xs_avx512_matvec;
kern_matmul_fn kern_gq8_0_avx512_matmul, kern_q4_0_avx512_matmul,
    kern_q4_1_avx512_matmul, kern_q5_0_avx512_matmul,
    kern_q5_1_avx512_matmul, kern_q2_k_avx512_matmul,
    kern_q3_k_avx512_matmul, kern_q4_k_avx512_matmul,
    kern_q5_k_avx512_matmul, kern_q6_k_avx512_matmul,
    kern_iq4_nl_avx512_matmul, kern_iq4_xs_avx512_matmul;

/* Factored decode of the K types (lib/kern/kern_kq*.c): a row's sum is
 * taken over the blocks' integers, sum_j (d sc_j) (q . x)_j - sum_j
 * (dmin mn_j) (sum x)_j (Q4_K, Q5_K, Q2_K (AVX-512 only); Q6_K: d sc_j
 * ((q . x)_j - 32 (sum x)_j)),
 * the activations put once a call in the order the kernel's lanes meet
 * the quants and their sums over each sub-block made once for all rows.
 * So these outputs are the float32 product of the dequantized weights to
 * float32 rounding (about 1e-6 of the sum of the products' magnitudes),
 * not the bits of the F32 matvec on the dequantized row, nor those of
 * matmul (prefill, kern_ggml_panels); wtypes' mm_exact says so.  They are
 * the same bits whatever the row range.  Rows of n > KERN_KQ_MAXN (a
 * stack buffer) or not whole blocks take the fused kernels above. */
#define KERN_KQ_MAXN 16384
kern_matvec_fn kern_q2_k_avx512_kq, kern_q4_k_avx512_kq, kern_q5_k_avx512_kq,
    kern_q6_k_avx512_kq, kern_q4_k_avx2_kq, kern_q5_k_avx2_kq,
    kern_q6_k_avx2_kq;

/* Factored decode of the 32-weight blocks (lib/kern/kern_b32*.c): each
 * block's scale applied once to the sum of its integers against x:
 * d (sum q x - 8 sum x) for Q4_0 (-16: Q5_0), d sum q x + m sum x for
 * Q4_1 and Q5_1, d sum q x for ggml's Q8_0; the nibble types'
 * activations put once a call in the order the lanes meet them, with
 * their sums.  As the K types' above: the float32 product of the
 * dequantized weights to float32 rounding, not the F32 matvec's bits
 * (wtypes' mvdiff), the same bits whatever the row range; rows of n >
 * KERN_KQ_MAXN or not whole blocks take the fused kernels.  Q5_0 and
 * Q5_1 on the AVX-512 table only (the AVX2 one keeps the fused). */
kern_matvec_fn kern_q4_0_avx512_b32, kern_q4_1_avx512_b32,
    kern_q5_0_avx512_b32, kern_q5_1_avx512_b32, kern_gq8_0_avx512_b32, kern_q4_0_avx2_b32, kern_q4_1_avx2_b32,
    kern_gq8_0_avx2_b32;

/* The 16 lanes' tree of W_Q4 and W_Q4I (above), as the portable
 * kernels compute it. */
float kern_sum16(const float l[16]);

/* ---- --int8-act on ggml's types (lib/kern/kern_ggml_i8*.c) ----
 *
 * W_GQ8_0I .. W_Q6_KI (wtype.h): a GGUF file's blocks as they are, the
 * activations in int8 as llama.cpp's ggml-cpu puts them, and integer
 * dot products, exact.  Each is a type of its own (a relabelled row of
 * the weight-type table, as W_Q8_0I is W_Q8_0's), not a second slot of
 * every table: the dispatch, xprep, maxn, the kernel tables' fallbacks
 * and the tests then treat them as any type, and only the five types
 * with kernels take the room.
 *
 * Blocks of 32 (Q8_0, Q4_0, Q5_0): the activations as W_Q8_0I's
 * (conv_q8_0_quant: dx = max|x| / 127 a block of 32), the weights'
 * integers q - offset, and W_Q8_0I's chain over them: S the exact sum
 * of block b's 32 products,
 *
 *	acc = fma((float)S, dw * dx, acc)
 *
 * in order of blocks, the output acc.
 *
 * Superblocks of 256 (Q4_K, Q6_K): the activations as ggml's Q8_K, a
 * struct kern_q8k per 256 (dx = max|x| / 127, X = nearest-even(x / dx),
 * the sums of X per 16), and per superblock exact int32 sums, the
 * sub-block scales applied in integers: Q4_K's I = sum_j sc_j (q . X)_j
 * and M = sum_j mn_j (sum X)_j (8 sub-blocks of 32), Q6_K's I = sum_j
 * sc_j ((q - 32) . X)_j (16 of 16); one float chain a row, in order of
 * superblocks,
 *
 *	acc = fma((float)I, d * dx, acc)	(Q4_K, Q6_K)
 *	acc = fma((float)-M, dmin * dx, acc)	(Q4_K)
 *
 * The integers are exact whatever instructions make them, so every
 * table, row range and T gives the same bits, matvec and matmul alike;
 * the tables are checked against the portable one (test_i8).
 * Non-finite activations as conv_q8_0_quant takes them: an infinite one
 * makes its block's dx infinite and the outputs NaN, a NaN counts as 0. */
#define KERN_GI8_MAXN CONV_Q8_0_MAXN	/* longest row (weights) */
struct kern_q8k {
	float d;		/* dx */
	int16_t bs[16];		/* sums of X over each 16 */
	int8_t q[256];		/* X */
};
/* x[0..n) into ceil(n / 256) superblocks at y (zero past n). */
void kern_q8k_prep(struct kern_q8k *y, const float *x, int n);
/* The chain above of a row of nb superblocks of type t (W_Q4_KI,
 * W_Q6_KI) against y: the portable bits. */
float kern_q8k_dot(enum wtype t, const uint8_t *row, int nb,
    const struct kern_q8k *y);
kern_matvec_fn kern_gq8_0i_matvec, kern_q4_0i_matvec, kern_q5_0i_matvec,
    kern_q4_ki_matvec, kern_q6_ki_matvec;
kern_matmul_fn kern_gq8_0i_matmul, kern_q4_0i_matmul, kern_q5_0i_matmul,
    kern_q4_ki_matmul, kern_q6_ki_matmul;
/* The AVX2 table's (vpmaddubsw, or AVX-VNNI's vpdpbusd where the CPU
 * has it: kern_init picks, the same bits) and the AVX-512 table's. */
kern_matvec_fn kern_gq8_0i_avx2_matvec, kern_q4_0i_avx2_matvec,
    kern_q5_0i_avx2_matvec, kern_q4_ki_avx2_matvec, kern_q6_ki_avx2_matvec;
kern_matmul_fn kern_gq8_0i_avx2_matmul, kern_q4_0i_avx2_matmul,
    kern_q5_0i_avx2_matmul, kern_q4_ki_avx2_matmul, kern_q6_ki_avx2_matmul;
kern_matvec_fn kern_gq8_0i_vnni_matvec, kern_q4_0i_vnni_matvec,
    kern_q5_0i_vnni_matvec, kern_q4_ki_vnni_matvec, kern_q6_ki_vnni_matvec;
kern_matmul_fn kern_gq8_0i_vnni_matmul, kern_q4_0i_vnni_matmul,
    kern_q5_0i_vnni_matmul, kern_q4_ki_vnni_matmul, kern_q6_ki_vnni_matmul;
/* The AVX-512 table's where the CPU has AVX512-VNNI: the blocks of 32
 * two blocks a zmm vpdpbusd, the superblocks as the 256-bit ones (the
 * same bits). */
kern_matvec_fn kern_gq8_0i_avx512_matvec, kern_q4_0i_avx512_matvec,
    kern_q5_0i_avx512_matvec, kern_q4_ki_avx512_matvec,
    kern_q6_ki_avx512_matvec;
kern_matmul_fn kern_gq8_0i_avx512_matmul, kern_q4_0i_avx512_matmul,
    kern_q5_0i_avx512_matmul, kern_q4_ki_avx512_matmul,
    kern_q6_ki_avx512_matmul;
/* W_Q8_0I's prefill on the GGUF Q8_0 panels (kern_i8_avx512.c's
 * matmul from 4 tokens). */
kern_matmul_fn kern_q8_0i_avx512_gemm;
/* Its xprep of the blocks of 32 (one layout for the three) and their
 * matmulx. */
kern_xprep_fn kern_b32i_avx512_xprep;
kern_matmulx_fn kern_gq8_0i_avx512_matmulx, kern_q4_0i_avx512_matmulx,
    kern_q5_0i_avx512_matmulx;

/* ---- rows packed by 16 (lib/kern/kern_x16.c) ----
 *
 * W_Q8X16 and W_Q4X16 hold the blocks of 32 of W_Q8_0I or W_GQ8_0I and
 * of W_Q4_0I (or of a W_Q4I matrix of Q4_0's weights, kern_x16_packs)
 * with 16 rows interleaved, so that a vpdpbusd of a token's
 * 4 bytes broadcast sums 16 rows' products in its lanes, as the AVX-512
 * prefill's panels have them (kern_ggml_i8_avx512.c), with no unpacking
 * a call and no sum across lanes in decode: llama.cpp repacks its Q4_0
 * at load the same way (CPU_REPACK).  Their bits are those of the types
 * packed (kern.h's --int8-act chain, S the exact sum of q - offset
 * times X).  A matrix of R rows is ceil(R / 16) groups, group g rows
 * 16g .. 16g + 15 (past R: zero bytes, rows never stored), each nb = ceil(n /
 * 32) blocks of KERN_X16_GB(t) bytes in order; a group's block b:
 *
 *	W_Q8X16: byte 64k + 4L + i (k < 8, L < 16, i < 4) the weight 32b + 4k + i
 *	  of row L of the group plus 128 (unsigned), then 16 float32
 *	  scales, row L's at 512 + 4L: 576 bytes;
 *	W_Q4X16: byte 64k + 4L + i (k < 4) the byte 4k + i of row L's
 *	  Q4_0 block (weight 4k + i in its low nibble, 16 + 4k + i in its
 *	  high, each the weight plus 8), then 16 F16 scales at 256 + 2L:
 *	  288 bytes.
 *
 * The 64 bytes of k are 16 rows' 4 bytes, a zmm; their first or second
 * 32 bytes 8 rows', a ymm.
 *
 * W_Q4KX16 and W_Q6KX16 hold the superblocks of W_Q4_KI and W_Q6_KI
 * the same way for the AVX2 table (kern_init sets kern.pack there
 * only), as llama.cpp's block_q4_Kx8: a vpdpbusd of a token's 4 bytes
 * broadcast sums 8 rows' products in its lanes, and the sub-block
 * scales are 8 rows' in lanes too, with no broadcast of a scale and no
 * sum across lanes.  The bits are those of the types packed (kern.h's
 * --int8-act chain: I, M exact, one float chain a row).  A group's
 * superblock b is two halves, rows 0-7 and 8-15, each the 8 rows' bytes
 * of their superblocks moved, none changed (L < 8 a row of the half,
 * i < 4):
 *
 *	W_Q4KX16 (a half 1152 bytes): 256p + 32l + 4L + i (p < 4, l < 8)
 *	  qs byte 32p + 4l + i (sub-blocks 2p and 2p + 1 in its low and
 *	  high nibbles), 1024 + 2L d, 1040 + 2L dmin (F16), 1056 + 8k + L
 *	  the scale byte k < 12 (the 6-bit scales and mins as stored);
 *	W_Q6KX16 (a half 1680 bytes): 512h + 32m + 4L + i (h < 2, m < 16)
 *	  ql byte 64h + 4m + i, 1024 + 256h + 32m + 4L + i (m < 8) qh byte
 *	  32h + 4m + i, 1536 + 8s + L the scale s < 16, 1664 + 2L d. */
#define KERN_X16_GB(t) (16 * (size_t)wtypes[t].bytes)
/* Bytes of an R x n matrix packed as t. */
size_t kern_x16_bytes(enum wtype t, int rows, int n);
/* Whether an R x n matrix w of type from can be packed: rows of at most
 * CONV_Q8_0_MAXN weights (the K types' whole superblocks), and for W_Q4I (a struct kern_q4) symmetric
 * weights whose blocks of 32 each lie in one group, with scales an F16
 * holds exactly (then its weights are Q4_0's: nibble - 8 times the
 * block's scale). */
int kern_x16_packs(enum wtype from, const void *w, int rows, int n);
/* Groups [g0, g1) of an R x n matrix w of type from (W_Q8_0I, W_GQ8_0I:
 * to W_Q8X16; W_Q4_0I, W_Q4I where kern_x16_packs: to W_Q4X16; W_Q4_KI,
 * W_Q6_KI: to W_Q4KX16, W_Q6KX16) packed into dst, the whole matrix's
 * kern_x16_bytes. */
void kern_x16_pack(void *dst, enum wtype to, const void *w, enum wtype from,
    int rows, int n, int g0, int g1);
/* The portable entries. */
kern_matvec_fn kern_q8x16_matvec, kern_q4x16_matvec, kern_q4kx16_matvec,
    kern_q6kx16_matvec;
kern_matmul_fn kern_q8x16_matmul, kern_q4x16_matmul, kern_q4kx16_matmul,
    kern_q6kx16_matmul;
/* The AVX2 table's W_Q4KX16, W_Q6KX16 (lib/kern/kern_kx16_int.h), with
 * vpmaddubsw or AVX-VNNI's vpdpbusd. */
kern_matvec_fn kern_q4kx16_avx2_matvec, kern_q6kx16_avx2_matvec,
    kern_q4kx16_vnni_matvec, kern_q6kx16_vnni_matvec;
kern_matmul_fn kern_q4kx16_avx2_matmul, kern_q6kx16_avx2_matmul,
    kern_q4kx16_vnni_matmul, kern_q6kx16_vnni_matmul;
/* The AVX2 table's W_Q4X16 (vpmaddubsw), with AVX-VNNI both, and the
 * AVX-512 table's (VNNI). */
kern_matvec_fn kern_q4x16_avx2_matvec;
kern_matmul_fn kern_q4x16_avx2_matmul;
kern_matvec_fn kern_q8x16_vnni_matvec, kern_q4x16_vnni_matvec;
kern_matmul_fn kern_q8x16_vnni_matmul, kern_q4x16_vnni_matmul;
kern_matvec_fn kern_q8x16_avx512_matvec, kern_q4x16_avx512_matvec;
kern_matmul_fn kern_q8x16_avx512_matmul, kern_q4x16_avx512_matmul;
kern_matmulx_fn kern_q8x16_avx512_matmulx, kern_q4x16_avx512_matmulx;

#endif
