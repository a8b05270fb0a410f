/* test_attn: the attention table that goes with $PIPELM_KERNEL against a
 * double-precision reference (odd head sizes, GQA groups, causal
 * offsets, key ranges merged with attn_merge, sliding windows and
 * soft-capped scores), and the tiling property
 * model.c relies on for thread-count independence: a row's result is
 * bit-identical whatever tile it is computed in. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/kern/attn.h"
#include "../../lib/kern/conv.h"
#include "../../lib/kern/kern.h"
#include "../../lib/base/util.h"
#include "test.h"

static const struct attn_kern *ak;

/* test_kv's bound on a q8_0 cache's error (of the tile's largest
 * output): the largest seen here (1.1e-2; bf16 6.3e-3, f16 9.5e-4) by
 * about 2x */
#define QBOUND 2.5e-2

static uint64_t rs = 0x9e3779b97f4a7c15ull;

/* Uniform in [-1, 1) (xorshift64*). */
static float
frand(void)
{
	rs ^= rs >> 12;
	rs ^= rs << 25;
	rs ^= rs >> 27;
	return (float)((double)(uint32_t)((rs * 0x2545f4914f6cdd1dull) >> 32)
	    / 2147483648.0 - 1.0);
}

/* A KV cache of n positions (key at kv[p*ld], value at kv[p*ld + voff])
 * and T x nh queries, random, with scores spread over a few units. */
struct fix {
	float *kv, *q;
	int hd, nh, T, pos0, ld, ldq, voff, kvb;
	size_t bstride;
	int win;		/* 0, or the sliding window */
	float cap;		/* 0, or the scores' soft-cap */
	enum wtype kvt;		/* W_F32: tiles read kv; else kvr, the
				 * cache in that type (fix_round) */
	void *kvr;
	size_t nkv;		/* elements of kv */
	int qq8;		/* 1: the reference's queries quantized as
				 * a q8_0 cache's tiles quantize them (attn.h:
				 * the keys' Q8_0) */
};

/* fix_make_t's cache blocks of this many positions, if not 0 */
static int kvb_force;

/* Offset of position p in the fixture's cache. */
static size_t
off(const struct fix *f, int p)
{
	return (size_t)(p / f->kvb) * f->bstride + (size_t)(p % f->kvb) * f->ld;
}

/* A fixture whose cache can be made of type t (fix_round): for q8_0
 * rows of whole blocks back to back in blocks of a multiple of ATTN_Q8G
 * positions (attn.h's groups), a block's keys, then its values, a gap
 * of a Q8_0 block after each. */
static void
fix_make_t(struct fix *f, enum wtype t, int hd, int nh, int T, int pos0)
{
	size_t i, n = (size_t)(pos0 + T);
	int row = attn_kvrow(t, hd), q8 = t == W_GQ8_0;

	/* each fixture's own draws, whatever the tests before it drew */
	rs = 0x9e3779b97f4a7c15ull ^ ((uint64_t)hd << 48 | (uint64_t)nh << 40 |
	    (uint64_t)T << 24 | (uint64_t)pos0);
	f->hd = hd, f->nh = nh, f->T = T, f->pos0 = pos0;
	f->win = 0, f->cap = 0;
	f->kvt = W_F32, f->kvr = NULL;
	f->ldq = nh * hd + 7;
	/* blocks of 7 positions with a gap after each, or of 32 (whole
	 * key blocks: attn_rows' one offset a block) for odd nh (hd 2:
	 * one block); q8_0's of 16 for even nh */
	f->kvb = kvb_force ? kvb_force : hd == 2 ? (int)n : nh % 2 ? 32 :
	    q8 ? ATTN_Q8G : 7;
	if (q8)
		f->kvb = (f->kvb + ATTN_Q8G - 1) / ATTN_Q8G * ATTN_Q8G;
	/* odd strides: nothing assumes alignment */
	f->ld = q8 ? row : 2 * hd + 5;
	f->voff = q8 ? f->kvb * row + 32 : hd + 3;
	f->qq8 = q8;
	f->bstride = q8 ? 2 * (size_t)f->kvb * row + 64 :
	    (size_t)f->kvb * f->ld + 13;
	n = ((n + f->kvb - 1) / f->kvb) * f->bstride;
	f->nkv = n;
	f->kv = emalloc(n * sizeof(float));
	f->q = emalloc((size_t)T * f->ldq * sizeof(float));
	for (i = 0; i < n; i++)
		f->kv[i] = frand();
	for (i = 0; i < (size_t)T * f->ldq; i++)
		f->q[i] = 3 * frand();
}

static void
fix_make(struct fix *f, int hd, int nh, int T, int pos0)
{
	fix_make_t(f, W_F32, hd, nh, T, pos0);
}

static void
fix_free(struct fix *f)
{
	free(f->kv);
	free(f->kvr);
	free(f->q);
}

/* The cache in type t (W_BF16, W_F16 rounded to nearest even; W_GQ8_0
 * quantized, of a fixture made for it) into kvr, as a model stores its
 * rows (attn_kvstore), and kv the float32 values of what was stored: a
 * tile over either must give the same bits. */
static void
fix_round(struct fix *f, enum wtype t)
{
	size_t i, o, g;
	int p, s, r, n = attn_kvrow(t, f->hd);
	char *gp;

	f->kvr = ecalloc(attn_kvbytes(t, f->nkv), 1);
	for (p = 0; p < f->pos0 + f->T; p++)
		for (s = 0; s < 2; s++) {
			/* a q8_0 row in its group (attn_kvput), others alone */
			r = t == W_GQ8_0 ? p % ATTN_Q8G : 0;
			o = off(f, p) + (s ? f->voff : 0);
			g = off(f, p - r) + (s ? f->voff : 0);
			gp = (char *)f->kvr + attn_kvbytes(t, g);
			attn_kvput(gp, r, f->kv + o, f->hd, t);
			for (i = 0; i < (size_t)f->hd; i++)
				f->kv[o + i] = attn_kvget(gp, r, (int)i, n, t);
		}
}

static struct attn_tile
tile(const struct fix *f, int t0, int T, int p0, int p1)
{
	struct attn_tile a = { f->q + (size_t)t0 * f->ldq, f->ldq, f->kv,
		f->kv + f->voff, f->ld, f->bstride, f->kvb, f->hd, f->nh, T,
		f->pos0 + t0, p0, p1, 1 / sqrtf((float)f->hd), f->win, f->cap,
		NULL, f->kvt, 0, NULL, 0, 0 };

	if (f->kvt != W_F32) {
		a.k = f->kvr;
		a.v = (const char *)f->kvr + attn_kvbytes(f->kvt, f->voff);
	}
	return a;
}

/* Normalized attention of row (t, h) in double. */
static void
ref_row(double *out, const struct fix *f, int t, int h)
{
	int n = f->pos0 + t + 1, p, i;
	int p0 = f->win && n - f->win > 0 ? n - f->win : 0;	/* the window */
	const float *q = f->q + (size_t)t * f->ldq + h * f->hd;
	double *s = emalloc(n * sizeof(double)), m = -INFINITY, l = 0, d;
	float *qd = NULL;
	unsigned char *qq;

	if (f->qq8) {	/* the query's dequantized values */
		qq = emalloc(attn_kvbytes(W_GQ8_0, attn_kvrow(W_GQ8_0, f->hd)));
		qd = emalloc(f->hd * sizeof(float));
		attn_kvstore(qq, q, f->hd, W_GQ8_0);
		for (i = 0; i < f->hd; i++)
			qd[i] = attn_kvload(qq, i, W_GQ8_0);
		free(qq);
		q = qd;
	}
	for (p = p0; p < n; p++) {
		for (d = 0, i = 0; i < f->hd; i++)
			d += (double)q[i] * f->kv[off(f, p) + i];
		s[p] = d / sqrt(f->hd);
		if (f->cap)
			s[p] = f->cap * tanh(s[p] / f->cap);
		m = s[p] > m ? s[p] : m;
	}
	memset(out, 0, f->hd * sizeof(double));
	for (p = p0; p < n; p++) {
		s[p] = exp(s[p] - m);
		l += s[p];
		for (i = 0; i < f->hd; i++)
			out[i] += s[p] * f->kv[off(f, p) + f->voff + i];
	}
	for (i = 0; i < f->hd; i++)
		out[i] /= l;
	free(s);
	free(qd);
}

/* Compare token t's row out (nh*hd) with the reference. */
static void
check_row(const struct fix *f, const float *out, int t, const char *what)
{
	double *ref = emalloc(f->hd * sizeof(double)), err, scale;
	int h, i;

	for (h = 0; h < f->nh; h++) {
		ref_row(ref, f, t, h);
		for (scale = 0, i = 0; i < f->hd; i++)
			scale = fabs(ref[i]) > scale ? fabs(ref[i]) : scale;
		for (i = 0; i < f->hd; i++) {
			err = fabs(out[h * f->hd + i] - ref[i]);
			CHECKF(err <= 2e-6 * scale + 1e-7,
			    "%s hd %d nh %d T %d pos0 %d: row (%d, %d)[%d] %.9g, want %.9g",
			    what, f->hd, f->nh, f->T, f->pos0, t, h, i,
			    out[h * f->hd + i], ref[i]);
		}
	}
	free(ref);
}

/* Compare out (T, nh*hd rows at stride ldo) with the reference. */
static void
check_ref(const struct fix *f, const float *out, int ldo, const char *what)
{
	int t;

	for (t = 0; t < f->T; t++)
		check_row(f, out + (size_t)t * ldo, t, what);
}

/* One tile over all keys, normalized, against the reference; then the
 * same rows one token per tile, which must agree bit for bit. */
static void
test_tile_wc(int hd, int nh, int T, int pos0, int win, float cap)
{
	struct fix f;
	struct attn_tile a;
	int lda = nh * hd + 3, t, lo;
	float *out = emalloc((size_t)T * lda * sizeof(float));
	float *one = emalloc((size_t)lda * sizeof(float));
	float *ml = emalloc((size_t)2 * nh * T * sizeof(float));

	fix_make(&f, hd, nh, T, pos0);
	f.win = win, f.cap = cap;
	a = tile(&f, 0, T, 0, pos0 + T);
	ak->part(out, lda, ml, &a);
	attn_norm(out, lda, ml, hd, nh, T);
	check_ref(&f, out, lda, "tile");
	for (t = 0; t < T; t++) {
		a = tile(&f, t, 1, 0, pos0 + t + 1);
		a.touched = 1;	/* as decode runs it: no prefetch */
		ak->part(one, lda, ml, &a);
		attn_norm(one, lda, ml, hd, nh, 1);
		CHECKF(!memcmp(one, out + (size_t)t * lda, nh * hd * sizeof(float)),
		    "hd %d nh %d T %d pos0 %d: token %d alone differs from its tile",
		    hd, nh, T, pos0, t);
		if (!win)
			continue;
		/* a window's tile that starts at its first key, as decode
		 * runs it, reads no key before it and gives the same bits */
		lo = pos0 + t + 1 - win > 0 ? pos0 + t + 1 - win : 0;
		a = tile(&f, t, 1, lo, pos0 + t + 1);
		ak->part(one, lda, ml, &a);
		attn_norm(one, lda, ml, hd, nh, 1);
		CHECKF(!memcmp(one, out + (size_t)t * lda, nh * hd * sizeof(float)),
		    "hd %d nh %d T %d pos0 %d win %d: token %d from its window "
		    "differs from its tile", hd, nh, T, pos0, win, t);
	}
	free(out), free(one), free(ml);
	fix_free(&f);
}

static void
test_tile(int hd, int nh, int T, int pos0)
{
	test_tile_wc(hd, nh, T, pos0, 0, 0);
}

/* The keys of one token cut into ranges at the given cuts (any, not
 * only block multiples), the parts merged with attn_merge. */
static void
test_ranges(int hd, int nh, int pos0, int ncut, const int *cut)
{
	struct fix f;
	struct attn_tile a;
	int n = pos0 + 1, c, h, p0, p1, nc = ncut + 1;
	float *accs = emalloc((size_t)nc * nh * hd * sizeof(float));
	float *mls = emalloc((size_t)2 * nc * nh * sizeof(float));
	float *acc = emalloc((size_t)nh * hd * sizeof(float));
	float *out = emalloc((size_t)nh * hd * sizeof(float));
	float ml[2 * 64];

	fix_make(&f, hd, nh, 1, pos0);
	for (c = 0; c < nc; c++) {
		p0 = c ? cut[c - 1] : 0;
		p1 = c < ncut ? cut[c] : n;
		a = tile(&f, 0, 1, p0, p1);
		ak->part(acc, nh * hd, ml, &a);
		for (h = 0; h < nh; h++) {
			memcpy(accs + ((size_t)h * nc + c) * hd, acc + h * hd,
			    hd * sizeof(float));
			mls[2 * (h * nc + c)] = ml[2 * h];
			mls[2 * (h * nc + c) + 1] = ml[2 * h + 1];
			if (p1 <= p0)
				CHECKF(ml[2 * h] == -INFINITY && ml[2 * h + 1] == 0,
				    "empty range [%d, %d): m %g l %g", p0, p1,
				    ml[2 * h], ml[2 * h + 1]);
		}
	}
	for (h = 0; h < nh; h++)
		attn_merge(out + h * hd, accs + (size_t)h * nc * hd, hd,
		    mls + (size_t)2 * h * nc, 2, nc, hd);
	check_ref(&f, out, nh * hd, "merged ranges");
	free(accs), free(mls), free(acc), free(out);
	fix_free(&f);
}

/* Large score differences: the running max changes by far more than
 * the exp range, and a masked key must not leak in. */
static void
test_extremes(void)
{
	struct fix f;
	struct attn_tile a;
	float out[64], ml[2];
	int i, p;

	fix_make(&f, 16, 1, 1, 40);
	for (p = 0; p < 41; p++)
		for (i = 0; i < 16; i++)
			f.kv[off(&f, p) + i] = (float)(p % 7) * 30 * (i == 0);
	for (i = 0; i < 16; i++)
		f.q[i] = i == 0;
	a = tile(&f, 0, 1, 0, 41);
	ak->part(out, 16, ml, &a);
	attn_norm(out, 16, ml, 16, 1, 1);
	check_ref(&f, out, 16, "extremes");
	fix_free(&f);
}

/* A cache of type t (bf16, f16, q8_0): the tile over it gives the bits of the
 * float32 tile over its values widened, for a whole tile and a token
 * alone; that is the reference's accuracy over the rounded cache, and
 * within the rounding's error of the unrounded one (bound: the
 * largest error seen here by about 2x; bench/NOTES.md). */
static void
test_kv(enum wtype t, int hd, int nh, int T, int pos0, int win, float cap)
{
	struct fix f;
	struct attn_tile a;
	int lda = nh * hd, r, i;
	size_t n = (size_t)T * lda;
	float *o16 = emalloc(n * sizeof(float)), *o32 = emalloc(n * sizeof(float));
	float *ml = emalloc((size_t)2 * nh * T * sizeof(float)), *orig;
	double *ref = emalloc(n * sizeof(double)), err, scale, worst = 0;
	double bound = t == W_BF16 ? 1.5e-2 : t == W_GQ8_0 ? QBOUND : 2e-3;

	fix_make_t(&f, t, hd, nh, T, pos0);
	f.win = win, f.cap = cap;
	orig = emalloc(f.nkv * sizeof(float));
	memcpy(orig, f.kv, f.nkv * sizeof(float));
	fix_round(&f, t);
	f.kvt = t;
	a = tile(&f, 0, T, 0, pos0 + T);
	ak->part(o16, lda, ml, &a);
	attn_norm(o16, lda, ml, hd, nh, T);
	f.kvt = W_F32;
	a = tile(&f, 0, T, 0, pos0 + T);
	ak->part(o32, lda, ml, &a);
	attn_norm(o32, lda, ml, hd, nh, T);
	/* a one-token tile over a 16-bit cache may sum in its own order
	 * (attn.h): the reference's accuracy, not the float32 tile's bits;
	 * a q8_0 cache's scores quantize the query (attn_q8gscore) */
	CHECKF(T == 1 || t == W_GQ8_0 || !memcmp(o16, o32, n * sizeof(float)), "%s cache, "
	    "hd %d nh %d T %d pos0 %d: differs from the float32 tile over its "
	    "values", wtypes[t].name, hd, nh, T, pos0);
	check_ref(&f, o16, lda, wtypes[t].name);
	/* the last token alone, in a tile of its own: the same accuracy
	 * (bits: its own order, as above) */
	f.kvt = t;
	a = tile(&f, T - 1, 1, 0, pos0 + T);
	ak->part(o32, lda, ml, &a);
	attn_norm(o32, lda, ml, hd, nh, 1);
	check_row(&f, o32, T - 1, "last token alone");
	/* against the unrounded cache and query */
	memcpy(f.kv, orig, f.nkv * sizeof(float));
	f.qq8 = 0;
	for (scale = 0, r = 0; r < T * nh; r++) {	/* the largest output */
		ref_row(ref + (size_t)r * hd, &f, r / nh, r % nh);
		for (i = 0; i < hd; i++)
			scale = fabs(ref[(size_t)r * hd + i]) > scale ?
			    fabs(ref[(size_t)r * hd + i]) : scale;
	}
	for (r = 0; r < T * nh; r++)
		for (i = 0; i < hd; i++) {
			err = fabs(o16[(size_t)(r / nh) * lda + r % nh * hd + i] -
			    ref[(size_t)r * hd + i]) / scale;
			worst = err > worst ? err : worst;
		}
	CHECKF(worst <= bound, "%s cache, hd %d nh %d T %d pos0 %d: error %.3g "
	    "of the largest output, over %.3g", wtypes[t].name, hd, nh, T,
	    pos0, worst, bound);
	if (getenv("TEST_ATTN_VERBOSE"))
		printf("%s hd %d nh %d T %d pos0 %d: error %.3g\n",
		    wtypes[t].name, hd, nh, T, pos0, worst);
	free(o16), free(o32), free(ml), free(ref), free(orig);
	fix_free(&f);
}

/* Whether the table runs the one-token tile over a cache of type t in
 * its own path (part1 of attn_avx512.c and attn_avx2.c, over a 16-bit
 * or Q8_0 cache), where a NaN score gives NaN rows as the portable
 * table's: the tables' other tiles clamp it to a probability near 0
 * (vexp), as they did before it. */
static int
one_path(enum wtype t, int hd, int nh)
{
	if (!strcmp(ak->name, "avx2"))
		return t != W_F32 && hd % 8 == 0 && hd <= 256 && nh <= 8;
	return !strcmp(ak->name, "avx512") && t != W_F32 && hd % 32 == 0 &&
	    hd <= 256 && nh <= 8;
}

/* The one-token tile over a 16-bit cache of type t (decode's: its own
 * order of the sums, attn.h) against the portable table's, keys
 * [p0, p1) of position pos0 (a range that starts and ends mid-block,
 * a window, a soft-cap, more keys than a softmax step), and the range
 * cut at cut and merged (its m and l) against the reference; with nan
 * a NaN in key (nan 1) or value (nan 2) element 1 of position p0: NaN
 * where the portable table has it. */
static void
test_one(enum wtype t, int hd, int nh, int pos0, int p0, int p1, int cut,
    int win, float cap, int nan)
{
	struct fix f;
	struct attn_tile a;
	int lda = nh * hd, h, i, c, ok;
	float *o = emalloc((size_t)lda * sizeof(float));
	float *want = emalloc((size_t)lda * sizeof(float));
	float *accs = emalloc((size_t)2 * lda * sizeof(float));
	float ml[2 * 64], mls[2 * 2 * 64], wml[2 * 64], err, scale;

	fix_make_t(&f, t, hd, nh, 1, pos0);
	f.win = win, f.cap = cap;
	if (nan)
		f.kv[off(&f, p0) + (nan == 2 ? f.voff : 0) + 1] = NAN;
	fix_round(&f, t);
	f.kvt = t;
	a = tile(&f, 0, 1, p0, p1);
	a.touched = 1;
	ak->part(o, lda, ml, &a);
	attn_portable.part(want, lda, wml, &a);
	attn_norm(o, lda, ml, hd, nh, 1);
	attn_norm(want, lda, wml, hd, nh, 1);
	for (h = 0; h < nh; h++) {
		for (scale = 0, i = 0; i < hd; i++)
			scale = fabsf(want[h * hd + i]) > scale ?
			    fabsf(want[h * hd + i]) : scale;
		for (i = 0; i < hd; i++) {
			err = fabsf(o[h * hd + i] - want[h * hd + i]);
			ok = nan ? !isnan(o[h * hd + i]) == !isnan(want[h * hd + i]) ||
			    (nan == 1 && !one_path(t, hd, nh)) :
			    err <= 2e-6f * scale + 1e-7f;
			CHECKF(ok, "%s one token, hd %d nh %d pos0 %d [%d, %d) win "
			    "%d cap %g nan %d: head %d [%d] %.9g, portable %.9g",
			    wtypes[t].name, hd, nh, pos0, p0, p1, win, cap, nan,
			    h, i, o[h * hd + i], want[h * hd + i]);
		}
		CHECKF(nan || (p1 <= p0 ? ml[2 * h] == -INFINITY &&
		    ml[2 * h + 1] == 0 : fabsf(ml[2 * h] - wml[2 * h]) <=
		    1e-5f * fabsf(wml[2 * h]) + 1e-6f),
		    "%s one token, hd %d nh %d [%d, %d): head %d m %.9g l %.9g, "
		    "portable %.9g %.9g", wtypes[t].name, hd, nh, p0, p1, h,
		    ml[2 * h], ml[2 * h + 1], wml[2 * h], wml[2 * h + 1]);
	}
	if (!nan && !win && p0 == 0 && p1 == pos0 + 1) {
		for (c = 0; c < 2; c++) {
			a = tile(&f, 0, 1, c ? cut : 0, c ? p1 : cut);
			ak->part(o, lda, ml, &a);
			for (h = 0; h < nh; h++) {
				memcpy(accs + ((size_t)h * 2 + c) * hd, o + h * hd,
				    hd * sizeof(float));
				mls[2 * (h * 2 + c)] = ml[2 * h];
				mls[2 * (h * 2 + c) + 1] = ml[2 * h + 1];
			}
		}
		for (h = 0; h < nh; h++)
			attn_merge(o + h * hd, accs + (size_t)h * 2 * hd, hd,
			    mls + (size_t)2 * h * 2, 2, 2, hd);
		check_ref(&f, o, lda, "one token, merged");
	}
	free(o), free(want), free(accs);
	fix_free(&f);
}

/* A q8_0 cache's scores are attn_q8gscore's bits in every table, tile
 * and range: each key alone (a one-token tile over [p, p + 1), decode's;
 * and a window of 1 in a tile of T tokens, prefill's), its m is the
 * scaled score; over the whole range m is the largest of them.  kvb:
 * the cache's blocks (a multiple of ATTN_Q8G). */
static void
test_q8score(int hd, int nh, int T, int pos0, int kvb)
{
	struct fix f;
	struct attn_tile a;
	int lda = nh * hd, h, p, t, n = pos0 + T, row = attn_kvrow(W_GQ8_0, hd);
	float *o = emalloc((size_t)T * lda * sizeof(float));
	float *ml = emalloc((size_t)2 * nh * T * sizeof(float));
	float *last = emalloc((size_t)n * nh * sizeof(float));
	float *diag = emalloc((size_t)T * nh * sizeof(float)), mx;
	unsigned char *qq = emalloc(attn_kvbytes(W_GQ8_0, row));

	kvb_force = kvb;
	fix_make_t(&f, W_GQ8_0, hd, nh, T, pos0);
	kvb_force = 0;
	fix_round(&f, W_GQ8_0);
	f.kvt = W_GQ8_0;
	/* head 0 of the last token: halves to round (d 1: x * id is x),
	 * both signs, away from zero as ggml rounds */
	for (p = 0; p < hd; p++)
		f.q[(size_t)(T - 1) * f.ldq + p] = p % 32 ? (float)(p % 11) - 5.5f :
		    127;
	/* last[p * nh + h]: token T - 1 and key p; diag[t * nh + h]: token
	 * t and key pos0 + t (scaled as the tiles scale) */
	for (t = 0; t < T; t++)
		for (h = 0; h < nh; h++) {
			attn_kvstore(qq, f.q + (size_t)t * f.ldq + h * hd, hd,
			    W_GQ8_0);
			for (p = 0; p < n; p++) {
				if (t < T - 1 && p != pos0 + t)
					continue;
				mx = 1 / sqrtf((float)hd) * attn_q8gscore(qq,
				    (const char *)f.kvr + attn_kvbytes(W_GQ8_0,
				    off(&f, p - p % ATTN_Q8G)), p % ATTN_Q8G,
				    row);
				if (t == T - 1)
					last[p * nh + h] = mx;
				if (p == pos0 + t)
					diag[t * nh + h] = mx;
			}
		}
	for (p = 0; p < n; p++) {	/* each key alone, decode's tile */
		a = tile(&f, T - 1, 1, p, p + 1);
		a.touched = 1;
		ak->part(o, lda, ml, &a);
		for (h = 0; h < nh; h++)
			CHECKF(!memcmp(&ml[2 * h], &last[p * nh + h], sizeof(float)),
			    "q8_0 score hd %d nh %d kvb %d key %d head %d: %.9g, "
			    "want %.9g", hd, nh, kvb, p, h, ml[2 * h],
			    last[p * nh + h]);
	}
	a = tile(&f, T - 1, 1, 0, n);	/* the whole range: m the largest */
	a.touched = 1;
	ak->part(o, lda, ml, &a);
	for (h = 0; h < nh; h++) {
		for (mx = -INFINITY, p = 0; p < n; p++)
			mx = last[p * nh + h] > mx ? last[p * nh + h] : mx;
		CHECKF(!memcmp(&ml[2 * h], &mx, sizeof(float)), "q8_0 scores hd "
		    "%d nh %d kvb %d [0, %d) head %d: m %.9g, want %.9g", hd, nh,
		    kvb, n, h, ml[2 * h], mx);
	}
	f.win = 1;	/* T tokens, a window of 1: token t sees key pos0 + t */
	a = tile(&f, 0, T, 0, n);
	ak->part(o, lda, ml, &a);
	for (t = 0; t < T; t++)
		for (h = 0; h < nh; h++)
			CHECKF(!memcmp(&ml[2 * (t * nh + h)], &diag[t * nh + h],
			    sizeof(float)), "q8_0 score hd %d nh %d T %d token %d "
			    "head %d: %.9g, want %.9g", hd, nh, T, t, h,
			    ml[2 * (t * nh + h)], diag[t * nh + h]);
	free(o), free(ml), free(last), free(diag), free(qq);
	fix_free(&f);
}

/* --kv-type's names both ways, and attn_kvstore's q8_0 rows: ggml's
 * blocks (conv_gq8_0_quant), a partial last block padded with zeros, a
 * block with a NaN or inf read as NaN, the others as they were. */
static void
test_kvstore(void)
{
	static const char *names[] = { "f32", "bf16", "f16", "q8_0" };
	float x[80], y[80];
	unsigned char row[3 * 34], want[3 * 34];
	size_t i;

	for (i = 0; i < 4; i++)
		CHECKF(attn_kvparse(names[i]) >= 0 &&
		    !strcmp(attn_kvname(attn_kvparse(names[i])), names[i]),
		    "kv type %s: not parsed back", names[i]);
	CHECK(attn_kvparse("q8_0-ggml") < 0 && attn_kvparse("q4_0") < 0 &&
	    attn_kvparse("") < 0 && !attn_kvname(W_Q4_0));
	CHECK(attn_kvrow(W_GQ8_0, 8) == 32 && attn_kvrow(W_GQ8_0, 64) == 64 &&
	    attn_kvrow(W_GQ8_0, 80) == 96 && attn_kvrow(W_BF16, 80) == 80);
	CHECK(attn_kvbytes(W_GQ8_0, 96) == 102 && attn_kvbytes(W_F16, 8) == 16);
	for (i = 0; i < 80; i++)
		x[i] = 2 * frand();
	memset(row, 0xa5, sizeof(row));
	attn_kvstore(row, x, 80, W_GQ8_0);
	conv_gq8_0_quant(want, x, 80);
	CHECK(!memcmp(row, want, sizeof(row)));
	for (i = 80; i < 96; i++)
		CHECKF(attn_kvload(row, (int)i, W_GQ8_0) == 0, "q8_0 padding "
		    "element %zu not 0", i);
	/* half a step d of at most 2/127, and d rounded to f16 times 127 */
	for (i = 0; i < 80; i++)
		CHECKF(fabsf(attn_kvload(row, (int)i, W_GQ8_0) - x[i]) <=
		    (0.5f + 127.0f / 2048) * 2 / 127, "q8_0 element %zu: %g for %g", i,
		    attn_kvload(row, (int)i, W_GQ8_0), x[i]);
	memcpy(y, x, sizeof(y));
	y[33] = NAN, y[70] = INFINITY;
	attn_kvstore(row, y, 80, W_GQ8_0);
	for (i = 0; i < 80; i++)
		CHECKF(i < 32 ? attn_kvload(row, (int)i, W_GQ8_0) ==
		    attn_kvload(want, (int)i, W_GQ8_0) :
		    isnan(attn_kvload(row, (int)i, W_GQ8_0)), "q8_0 with a NaN "
		    "and an inf: element %zu %g", i, attn_kvload(row, (int)i,
		    W_GQ8_0));
}

/* attn_ahead_span over tile a's key blocks, as the tables walk them
 * (T = 1): the spans of the next tile n come in order, none overlaps,
 * and together they are n's keys [np0, np1) exactly. */
static void
test_ahead_span(int ap0, int ap1, int np0, int np1)
{
	struct attn_tile a = { 0 }, n = { 0 };
	int jb, p, q, at = np0;

	a.p0 = ap0, a.p1 = ap1, a.pos0 = ap1 - 1, a.T = 1;
	n.p0 = np0, n.p1 = np1;
	a.ahead = &n;
	for (jb = ap0 - ap0 % ATTN_BLOCK; jb < ap1; jb += ATTN_BLOCK) {
		attn_ahead_span(&a, jb, &p, &q);
		if (p >= q)
			continue;
		CHECKF(p == at && q <= np1, "tile [%d, %d), next [%d, %d): "
		    "block %d's span [%d, %d) where [%d, ...) was due", ap0,
		    ap1, np0, np1, jb, p, q, at);
		at = q > at ? q : at;
	}
	CHECKF(at == np1, "tile [%d, %d), next [%d, %d): spans end at %d",
	    ap0, ap1, np0, np1, at);
}

/* A tile that prefetches the next (attn_tile.ahead, decode) gives the
 * bits it gives alone, for every cache type; the next tile's span past
 * the cache's last block is never dereferenced (ASan). */
static void
test_ahead(enum wtype t, int hd, int nh, int pos0, int cut)
{
	struct fix f;
	struct attn_tile a, n;
	int lda = nh * hd;
	float *o1 = emalloc((size_t)lda * sizeof(float));
	float *o2 = emalloc((size_t)lda * sizeof(float));
	float ml1[2 * 64], ml2[2 * 64];

	fix_make_t(&f, t, hd, nh, 1, pos0);
	if (t != W_F32)
		fix_round(&f, t);
	f.kvt = t;
	a = tile(&f, 0, 1, 0, cut);
	a.touched = 1;
	ak->part(o1, lda, ml1, &a);
	n = tile(&f, 0, 1, cut, pos0 + 1);
	a.ahead = &n;
	ak->part(o2, lda, ml2, &a);
	CHECKF(!memcmp(o1, o2, lda * sizeof(float)) &&
	    !memcmp(ml1, ml2, 2 * nh * sizeof(float)), "%s cache, hd %d nh %d "
	    "pos0 %d, cut %d: the tile with its next one ahead differs",
	    wtypes[t].name, hd, nh, pos0, cut);
	free(o1), free(o2);
	fix_free(&f);
}

int
main(void)
{
	static const int hds[] = { 2, 8, 16, 24, 64, 128 };
	static const int nhs[] = { 1, 3, 4, 8 };
	static const int Ts[] = { 1, 2, 5, 8 };
	static const int pos0s[] = { 0, 1, 15, 16, 37 };
	static const int cut1[] = { 16 }, cut2[] = { 5, 21, 22, 48 },
	    cut3[] = { 0, 0, 70 };
	size_t a, b, c, d;

	argv0 = "test_attn";
	test_kern_init();
	ak = attn_find(kern.name);
	test_ctx = ak->name;
	for (a = 0; a < sizeof(hds) / sizeof(*hds); a++)
		for (b = 0; b < sizeof(nhs) / sizeof(*nhs); b++)
			for (c = 0; c < sizeof(Ts) / sizeof(*Ts); c++)
				for (d = 0; d < sizeof(pos0s) / sizeof(*pos0s); d++)
					test_tile(hds[a], nhs[b], Ts[c], pos0s[d]);
	test_tile(64, 3, 21, 100);	/* SmolLM2's head size, a full tile */
	test_tile(64, 1, 64, 7);
	for (a = 0; a < sizeof(hds) / sizeof(*hds); a++) {
		test_ranges(hds[a], 3, 70, 1, cut1);
		test_ranges(hds[a], 3, 70, 4, cut2);
		test_ranges(hds[a], 2, 70, 3, cut3);
	}
	test_extremes();
	test_kvstore();
	/* 16-bit caches: every head size (the tables' loads and the
	 * portable fallbacks), GQA groups, windows and soft-caps */
	for (a = 0; a < sizeof(hds) / sizeof(*hds); a++)
		for (b = 0; b < sizeof(nhs) / sizeof(*nhs); b++) {
			test_kv(W_BF16, hds[a], nhs[b], 5, 37, 0, 0);
			test_kv(W_F16, hds[a], nhs[b], 5, 37, 0, 0);
			test_kv(W_BF16, hds[a], nhs[b], 8, 100, 17, 0);
			test_kv(W_F16, hds[a], nhs[b], 1, 200, 0, 2.5f);
			test_kv(W_GQ8_0, hds[a], nhs[b], 5, 37, 0, 0);
			test_kv(W_GQ8_0, hds[a], nhs[b], 8, 100, 17, 0);
			test_kv(W_GQ8_0, hds[a], nhs[b], 1, 200, 0, 2.5f);
		}
	/* decode's one-token tile over a 16-bit cache: every head size
	 * (32 and 96: a pass of 32 columns; others the tiles above), row
	 * counts past the path's 8, ranges starting and ending mid-block,
	 * longer than a softmax step, windows, soft-caps, NaN */
	{
		static const int hd1[] = { 8, 16, 24, 32, 64, 96, 128, 256 };
		static const int nh1[] = { 1, 2, 3, 4, 5, 8, 9 };

		for (a = 0; a < sizeof(hd1) / sizeof(*hd1); a++)
			for (b = 0; b < sizeof(nh1) / sizeof(*nh1); b++)
				for (c = 0; c < 3; c++) {
					enum wtype t = c == 2 ? W_GQ8_0 :
					    c ? W_F16 : W_BF16;

					test_one(t, hd1[a], nh1[b], 37, 0, 38, 16, 0, 0, 0);
					test_one(t, hd1[a], nh1[b], 600, 0, 601, 299, 0, 0, 0);
					test_one(t, hd1[a], nh1[b], 600, 5, 261, 0, 0, 0, 0);
					test_one(t, hd1[a], nh1[b], 300, 21, 22, 0, 0, 0, 0);
					test_one(t, hd1[a], nh1[b], 300, 200, 180, 0, 0, 0, 0);
					test_one(t, hd1[a], nh1[b], 300, 0, 301, 0, 40, 0, 0);
					test_one(t, hd1[a], nh1[b], 300, 270, 301, 0, 17, 0, 0);
					test_one(t, hd1[a], nh1[b], 90, 0, 91, 64, 0, 2.5f, 0);
					test_one(t, hd1[a], nh1[b], 90, 3, 91, 0, 0, 0, 1);
					test_one(t, hd1[a], nh1[b], 90, 3, 91, 0, 0, 0, 2);
				}
	}
	/* sliding windows (shorter than, across and longer than a block)
	 * and Gemma 2's soft-cap (50 on scores of a few units: felt) */
	for (a = 0; a < sizeof(hds) / sizeof(*hds); a++) {
		test_tile_wc(hds[a], 3, 8, 37, 8, 0);
		test_tile_wc(hds[a], 2, 21, 40, 17, 0);
		test_tile_wc(hds[a], 1, 5, 3, 100, 0);
		test_tile_wc(hds[a], 3, 8, 37, 0, 2.5f);
		test_tile_wc(hds[a], 2, 5, 30, 9, 50);
	}
	/* decode's next tile prefetched under this one: its spans, and
	 * no bit moved (ranges of a block multiple, odd ones, windows'
	 * unaligned starts, a next tile shorter and longer) */
	test_ahead_span(0, 256, 256, 512);
	test_ahead_span(0, 256, 256, 300);
	test_ahead_span(0, 64, 64, 600);
	test_ahead_span(5, 261, 261, 262);
	test_ahead_span(37, 40, 40, 97);
	test_ahead_span(0, 1, 1, 2);
	test_ahead_span(100, 116, 7, 23);
	test_ahead_span(250, 1000, 1000, 1001);
	for (a = 0; a < sizeof(hds) / sizeof(*hds); a++)
		for (b = 0; b < 4; b++) {
			enum wtype t = b == 0 ? W_F32 : b == 1 ? W_BF16 :
			    b == 2 ? W_F16 : W_GQ8_0;

			test_ahead(t, hds[a], 3, 200, 64);
			test_ahead(t, hds[a], 1, 90, 37);
		}
	/* a q8_0 cache's scores: the same bits in every table (head sizes
	 * with padding, key counts not a multiple of 16 or 256); last, so
	 * that the fixtures above keep their random values */
	{
		static const int hq[] = { 8, 16, 32, 48, 64, 96, 128, 256 };
		static const int nq[] = { 1, 2, 3, 4, 8, 9 };
		int vnni;

		/* the AVX2 table's two paths: vpdpbusd where the CPU has
		 * AVX-VNNI, vpmaddubsw without it */
		for (vnni = kern_avxvnni; vnni >= 0; vnni--) {
			kern_avxvnni = vnni;
			for (a = 0; a < sizeof(hq) / sizeof(*hq); a++)
				for (b = 0; b < sizeof(nq) / sizeof(*nq); b++) {
					test_q8score(hq[a], nq[b], 1, 300, 16);
					test_q8score(hq[a], nq[b], 3, 37, 32);
					test_q8score(hq[a], nq[b], 5, 20, 48);
					test_q8score(hq[a], nq[b], 1, 0, 256);
					test_q8score(hq[a], nq[b], 2, 517, 256);
				}
		}
	}
	return test_end("test_attn");
}
