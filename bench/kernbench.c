/* kernbench: speed of the matrix kernels on the SmolLM2-135M shapes.
 *
 *   make kernbench
 *   PIPELM_KERNEL=avx512 build/rel/kernbench [-cH] [-t threads] [-T tokens]
 *       [-w f32|f16|bf16|q4_K|q6_K|...] [-s ROWSxCOLS]
 *       [-m dir [-q | -8 | -b] [-i]]
 *
 * First the memory floor: a plain streaming read of 512 MB (kern.dot
 * over float chunks, split over the threads).  Then for each shape:
 * matvec on one matrix over and over ("hot": it sits in cache), matvec
 * cycling through copies totalling 512 MB ("cold": the weights stream
 * from memory, as in decode), matmul over T tokens (prefill), and (bx,
 * T <= KERN_TFEW) a batch's T decode rows as seq_sched.c runs them
 * (kern.xprep + kern.matmulx where the table has them), cold.  Last
 * the whole SmolLM2-135M weight set (30 layers of q, k, v, o, gate, up,
 * down, then the 49152 x 576 tied head, 269 MB in bf16): one decode
 * token (matvec) and one prefill of T tokens (matmul).  Prints GB/s of
 * weights read and GFLOP/s (2 flops per weight per token); the best of
 * several runs.  -c times by CPU time instead of the clock (one thread
 * only), so that other processes on a shared machine count less.  -H
 * puts the big buffers in huge pages (mem_map) instead of malloc's 4 KiB
 * pages.  -m dir instead runs a decode token's matrix-vector products
 * over a model folder's own weights, mapped and ordered as
 * seq_forward has them, with the time per kind of matrix (with -T, a
 * batch's T decode rows, as the batch runs them, against T matvecs);
 * -q first converts them as --quant q4 does, -8 as --quant q8_0, -b as
 * --bf16-act, and -i then as --int8-act.  -w takes the
 * float types, bf16-act, q8_0, q8_0+int8 (--int8-act's) and ggml's
 * block types (q8_0-ggml, q4_0, q4_1, q5_0, q5_1, q2_K .. q6_K, iq4_nl,
 * iq4_xs, and their +int8; GB/s counts their bytes, the blocks
 * filled with finite bytes, rows of 576 as ceil(576 / block) blocks).
 * -s ROWSxCOLS runs that one shape instead, and not the weight set (the
 * K-quants' int8 kernels need rows of whole superblocks: -s 8192x2048,
 * the Llama-3.2-1B shapes). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "../lib/kern/kern.h"
#include "../lib/model/model.h"
#include "../lib/kern/pool.h"
#include "../lib/base/util.h"

static int hflag;	/* -H: big buffers in huge pages (mem_map), as the model's */
static int qflag;	/* -q: -m's folder converted as --quant q4 does */
static int q8flag;	/* -8: as --quant q8_0 does */
static int bflag;	/* -b: as --bf16-act does */
static int iflag;	/* -i: then as --int8-act does */

static void *
bigalloc(size_t n)
{
	void *p;

	if (!hflag)
		return emalloc(n);
	if (!(p = mem_map(n)))
		die("mem_map %zu bytes:", n);
	return p;
}

static void
bigfree(void *p, size_t n)
{
	if (hflag)
		mem_unmap(p, n);
	else
		free(p);
}

struct job {
	enum wtype t;
	float *out;
	const void *w;
	const float *x;
	int n, T, ldo;
	char *xp;	/* -m -T: each thread's kern.xprep room, xpb bytes */
	size_t xpb;
};

static void
mv(void *ctx, int r0, int r1)
{
	struct job *j = ctx;

	kern.matvec[j->t](j->out, j->w, j->x, j->n, r0, r1);
}

/* A batch's T decode rows: T matvecs, or kern.matvecs' one pass where
 * the table has it (j->ldo: the tokens' output stride). */
static void
mvT(void *ctx, int r0, int r1)
{
	struct job *j = ctx;
	int t;

	for (t = 0; t < j->T; t++)
		kern.matvec[j->t](j->out + (size_t)t * j->ldo, j->w, j->x +
		    (size_t)t * j->n, j->n, r0, r1);
}

static void
mm(void *ctx, int r0, int r1)
{
	struct job *j = ctx;

	kern.matmul[j->t](j->out, j->ldo, j->w, j->x, j->n, j->n, j->T, r0, r1);
}

/* The T decode rows as a batch runs them (seq_sched.c's mat_rows):
 * the tokens prepared by the thread (kern.xprep; here once a matrix,
 * there once an op) and matmulx where the table has them, else matmul
 * where its bits are matvec's, else matvecs or T matvecs. */
static void
mvs(void *ctx, int r0, int r1)
{
	struct job *j = ctx;
	char *xp = j->xp + (size_t)pool_self() * j->xpb;

	if (kern.xprep[j->t] && j->xp) {
		kern.xprep[j->t](xp, j->x, j->n, j->n, j->T, 0, j->T);
		kern.matmulx[j->t](j->out, j->ldo, j->w, xp, j->x, j->n, j->n,
		    j->T, r0, r1);
	} else if (!wtypes[j->t].mvdiff)
		mm(ctx, r0, r1);
	else if (!kern.matvecs[j->t])
		mvT(ctx, r0, r1);
	else
		kern.matvecs[j->t](j->out, j->ldo, j->w, j->x, j->n, j->n,
		    j->T, r0, r1);
}

#if defined(__x86_64__)
/* The FMA roof of one core: 12 independent zmm FMA chains. */
__attribute__((target("avx512f")))
static float
fmaloop(long iters)
{
	__m512 a[12], m = _mm512_set1_ps(0.999999f), c = _mm512_set1_ps(1e-7f);
	long it;
	int i;

	for (i = 0; i < 12; i++)
		a[i] = _mm512_set1_ps((float)i);
	for (it = 0; it < iters; it++) {
		a[0] = _mm512_fmadd_ps(a[0], m, c);
		a[1] = _mm512_fmadd_ps(a[1], m, c);
		a[2] = _mm512_fmadd_ps(a[2], m, c);
		a[3] = _mm512_fmadd_ps(a[3], m, c);
		a[4] = _mm512_fmadd_ps(a[4], m, c);
		a[5] = _mm512_fmadd_ps(a[5], m, c);
		a[6] = _mm512_fmadd_ps(a[6], m, c);
		a[7] = _mm512_fmadd_ps(a[7], m, c);
		a[8] = _mm512_fmadd_ps(a[8], m, c);
		a[9] = _mm512_fmadd_ps(a[9], m, c);
		a[10] = _mm512_fmadd_ps(a[10], m, c);
		a[11] = _mm512_fmadd_ps(a[11], m, c);
	}
	for (i = 1; i < 12; i++)
		a[0] = _mm512_add_ps(a[0], a[i]);
	return _mm512_reduce_add_ps(a[0]);
}
#endif

struct sum {
	const float *a;
	float s[64];
};

static void
sumchunk(void *ctx, int i0, int i1)
{
	struct sum *c = ctx;

	c->s[i0 >> 20 & 63] += kern.dot(c->a + ((size_t)i0 << 10),
	    c->a + ((size_t)i0 << 10), (i1 - i0) << 10);
}

static void
nop(void *ctx, int i0, int i1)
{
	(void)ctx, (void)i0, (void)i1;
}

static int cflag;	/* time by CPU time, for a busy machine */

static double
now(void)
{
	struct timespec ts;

	clock_gettime(cflag ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* seconds a call of fn over the rows, each call on another of the ncopy
 * copies of the weights (cold), the best of reps passes */
static double
cold(struct pool *p, int rows, void (*fn)(void *, int, int), struct job *j,
    const unsigned char *wall, size_t wb, int ncopy, int reps)
{
	double t0, best = 1e9;
	int i, rep;

	for (rep = 0; rep < reps; rep++) {
		t0 = now();
		for (i = 0; i < ncopy; i++) {
			j->w = wall + i * wb;
			pool_for(p, rows, 16, fn, j);
		}
		t0 = (now() - t0) / ncopy;
		best = t0 < best ? t0 : best;
	}
	return best;
}

/* Plain read of rows [r0, r1): the floor for a matvec over them. */
static void
rd(void *ctx, int r0, int r1)
{
	struct job *j = ctx;
	size_t rb = wtype_rowsize(j->t, j->n);

	j->out[r0] = kern.dot((const float *)((const char *)j->w + r0 * rb),
	    (const float *)((const char *)j->w + r0 * rb),
	    (int)((size_t)(r1 - r0) * rb / 4));
}

/* Bytes a matvec over w reads: a W_Q4 matrix's scales and zero points
 * too (its struct kern_q4, kern.h). */
static double
matbytes(const struct mat *w)
{
	const struct kern_q4 *k = w->w;
	double b = w->t == W_Q8X16 || w->t == W_Q4X16 ? (double)kern_x16_bytes(
	    w->t, w->rows, w->cols) : (double)w->rows * wtype_rowsize(w->t,
	    w->cols);

	if (w->t == W_Q4)
		b += (double)w->rows * k->ng * (k->st == W_F32 ? 4 : 2) +
		    (k->z ? (double)(w->rows + 7) / 8 * k->ng * 4 : 0);
	return b;
}

/* -m DIR: a decode token's matrix-vector products over the model's own
 * weights, as seq_forward maps and orders them, against a plain read
 * of the same rows; with -T, a batch's T decode rows instead: one pass
 * as a batch runs them (mvs: matmul, or kern.matvecs where the table
 * has one) against T matvecs. */
static void
modelrun(const char *dir, int threads, int T)
{
	struct model m;
	struct mat *v[7 * 256 + 1];
	struct job j;
	float *x, *out;
	static const char *kind[8] = { "q_proj", "k_proj", "v_proj", "o_proj",
		"gate_proj", "up_proj", "down_proj", "lm_head" };
	double t0, t1, t2, best[2] = { 1e9, 1e9 }, bytes = 0;
	double kt[2][8] = { { 0 } }, kb[8] = { 0 };
	size_t xpb;
	char *xp;
	int n, i, rep, pass, q, rows = 0;

	if (model_load(&m, dir, threads) < 0 ||
	    (qflag && model_set_mode(&m, MODEL_Q4) < 0) ||
	    (q8flag && model_set_mode(&m, MODEL_Q8_0) < 0) ||
	    (bflag && model_set_mode(&m, MODEL_BF16ACT) < 0) ||
	    (iflag && model_set_int8act(&m) < 0))
		exit(1);
	n = model_mats(&m, v, (int)LEN(v));
	x = ecalloc((size_t)T << 16, sizeof *x);
	for (i = 0; i < n; i++)	/* the head is not always the tallest */
		rows = v[i]->rows > rows ? v[i]->rows : rows;
	out = ecalloc(((size_t)rows + 64) * T, sizeof *out);
	for (i = 0; i < T << 16; i++)	/* activations of a plausible size */
		x[i] = (float)((i * 2654435761u >> 16) % 2001) / 1000.0f - 1.0f;
	for (i = 0, q = 0; i < n; i++) {
		bytes += matbytes(v[i]);
		q = v[i]->cols > q ? v[i]->cols : q;
	}
	xpb = (KERN_XPBYTES(q, T) + 63) / 64 * 64;
	if (posix_memalign((void **)&xp, 64, (size_t)threads * xpb))
		die("cannot allocate %zu bytes", (size_t)threads * xpb);
	for (rep = 0; rep < 7; rep++)
		for (pass = 0; pass < 2; pass++) {
			t0 = now();
			for (i = 0; i < n; i++) {
				/* a W_Q4 plain read: its packed words */
				j = (struct job){ v[i]->t, out, pass && T ==
				    1 && v[i]->t == W_Q4 ? (const void *)((const
				    struct kern_q4 *)v[i]->w)->q : v[i]->w, x,
				    v[i]->cols, T, v[i]->rows, xp, xpb };
				t1 = now();
				pool_for(m.pool, v[i]->rows, 16, T > 1 ? pass ?
				    mvT : mvs : pass ? rd : mv, &j);
				if ((!pass || T > 1) && rep) {	/* per kind;
								 * rep 0 faults */
					t2 = now();
					q = i == n - 1 ? 7 : i % 7;
					kt[pass][q] += t2 - t1;
					kb[q] += pass ? 0 : matbytes(v[i]);
				}
			}
			t0 = now() - t0;
			best[pass] = t0 < best[pass] ? t0 : best[pass];
		}
	if (T > 1)
		printf("%s: %.1f MB per step of %d decode rows; batch %.2f "
		    "ms, %d matvecs %.2f ms\n", dir, bytes / 1e6, T, best[0] *
		    1e3, T, best[1] * 1e3);
	else
		printf("%s: %.1f MB per token; matvec %.2f ms, %.1f GB/s; "
		    "plain read %.2f ms, %.1f GB/s\n", dir, bytes / 1e6,
		    best[0] * 1e3, bytes / best[0] * 1e-9, best[1] * 1e3,
		    bytes / best[1] * 1e-9);
	for (q = 0; q < 8; q++)	/* the mean over repetitions 1.. */
		if (T > 1)
			printf("  %-9s batch %6.3f ms, %d matvecs %6.3f ms\n",
			    kind[q], kt[0][q] / (rep - 1) * 1e3, T, kt[1][q] /
			    (rep - 1) * 1e3);
		else
			printf("  %-9s %6.1f GB/s %6.3f ms/token\n", kind[q],
			    kb[q] / kt[0][q] * 1e-9, kt[0][q] / (rep - 1) * 1e3);
	free(x);
	free(out);
	free(xp);
	model_close(&m);
}


/* One decode token and one T-token prefill over the SmolLM2-135M
 * matrices, each layer its own weights. */
static void
model(struct pool *p, enum wtype t, int T)
{
	static const int lay[][2] = {
		{ 576, 576 }, { 192, 576 }, { 192, 576 }, { 576, 576 },
		{ 1536, 576 }, { 1536, 576 }, { 576, 1536 },
	};
	size_t total = 0, off, nw = 0;
	unsigned char *w;
	float *x, *out;
	double t0, best, flops;
	struct job j;
	int l, m, rep, pass;

	for (l = 0; l < 30; l++)
		for (m = 0; m < 7; m++) {
			total += (size_t)lay[m][0] * wtype_rowsize(t, lay[m][1]);
			nw += (size_t)lay[m][0] * lay[m][1];
		}
	total += (size_t)49152 * wtype_rowsize(t, 576);
	nw += (size_t)49152 * 576;
	w = bigalloc(total);
	for (off = 0; off < total; off++)
		w[off] = (unsigned char)(off * 7 >> 3 & 0x3f);
	x = emalloc(sizeof(float) * 1536 * (size_t)T);
	out = emalloc(sizeof(float) * 49152 * (size_t)T);
	for (off = 0; off < 1536 * (size_t)T; off++)
		x[off] = (float)(off % 13) * 0.01f;
	flops = 2.0 * nw;
	for (pass = 0; pass < 2; pass++) {
		best = 1e9;
		for (rep = 0; rep < 5; rep++) {
			t0 = now();
			off = 0;
			for (l = 0; l <= 30; l++)
				for (m = 0; m < (l < 30 ? 7 : 1); m++) {
					int rows = l < 30 ? lay[m][0] : 49152;
					int n = lay[m][1];

					j = (struct job){ t, out, w + off, x, n,
					    T, rows, NULL, 0 };
					pool_for(p, rows, 16, pass ? mm : mv,
					    &j);
					off += (size_t)rows * wtype_rowsize(t, n);
				}
			t0 = now() - t0;
			best = t0 < best ? t0 : best;
		}
		if (pass)
			printf("SmolLM2-135M prefill, %d tokens: %.1f ms, "
			    "%.1f GFLOP/s\n", T, best * 1e3,
			    flops * T / best * 1e-9);
		else
			printf("SmolLM2-135M decode: %.1f MB, %.2f ms/token, "
			    "%.1f GB/s, %.1f GFLOP/s\n", total / 1e6,
			    best * 1e3, total / best * 1e-9,
			    flops / best * 1e-9);
	}
	bigfree(w, total);
	free(x);
	free(out);
}

int
main(int argc, char *argv[])
{
	static const int shapes[][2] = {
		{ 576, 576 }, { 192, 576 }, { 1536, 576 }, { 576, 1536 },
		{ 49152, 576 },
	};
	struct pool *p;
	struct job j;
	size_t s, i, wb, ncopy, xpb;
	int c, threads = 2, T = 64, Tset = 0, rows, n, rep, k;
	const char *mdir = NULL;
	enum wtype t = W_BF16;
	int one[2] = { 0, 0 };	/* -s: rows, cols */
	char *e;
	double t0, best, bytes;
	unsigned char *wall;
	float *x, *out;

	argv0 = "kernbench";
	while ((c = getopt(argc, argv, "8bcHim:qs:t:T:w:")) != -1) {
		switch (c) {
		case 'c': cflag = 1; break;
		case 'H': hflag = 1; break;
		case 'm': mdir = optarg; break;
		case 'q': qflag = 1; break;
		case '8': q8flag = 1; break;
		case 'b': bflag = 1; break;
		case 'i': iflag = 1; break;
		case 't':
			threads = (int)estrtonum(optarg, 1, 64, "threads");
			break;
		case 'T':
			T = (int)estrtonum(optarg, 1, 4096, "tokens");
			Tset = 1;
			break;
		case 's':
			one[0] = (int)strtol(optarg, &e, 10);
			one[1] = *e == 'x' ? (int)strtol(e + 1, &e, 10) : 0;
			if (*e || one[0] < 1 || one[0] > 1 << 20 || one[1] < 1 ||
			    one[1] > 1 << 16)
				edie(2, "bad shape '%s' (ROWSxCOLS)", optarg);
			break;
		case 'w':
			/* the types whose matrix is rows of bytes: the float
			 * ones, bf16-act, q8_0 (+int8), ggml's blocks (+int8) */
			if ((k = wtype_parse(optarg)) < 0 || wtypes[k].indirect)
				edie(2, "bad weight type '%s'", optarg);
			t = k;
			break;
		default:
			fprintf(stderr, "usage: %s [-c] [-t threads] "
			    "[-T tokens] [-w type] [-s ROWSxCOLS] [-H] "
			    "[-m dir [-q | -8 | -b] [-i]]\n", argv0);
			return 2;
		}
	}
	if (kern_init(getenv("PIPELM_KERNEL")) < 0)
		return 1;
	if (!kern.matvec[t] || !kern.matmul[t])
		edie(1, "the %s table has no kernels for %s", kern.name,
		    wtypes[t].name);
	if (cflag && threads > 1)
		edie(2, "-c needs -t 1 (CPU time of spinning workers is not "
		    "work)");
	/* the types packed by 16 rows (kern.h) are whole groups of 16;
	 * the default shapes are, -s must be too (and their GB/s count the
	 * bytes as the others', these rows' share) */
	if ((t == W_Q8X16 || t == W_Q4X16 || t == W_Q4KX16 ||
	    t == W_Q6KX16) && one[0] % 16)
		edie(2, "%s takes rows in 16s (-s %dx%d)", wtypes[t].name,
		    one[0], one[1]);
	if (mdir) {
		modelrun(mdir, threads, Tset ? T : 1);
		return 0;
	}
	if (!(p = pool_new(threads)))
		return 1;
	printf("table %s, %d threads, %s weights, prefill T=%d\n", kern.name,
	    threads, wtypes[t].name, T);
#if defined(__x86_64__)
	if (__builtin_cpu_supports("avx512f")) {
		volatile float sink;

		best = 1e9;
		for (rep = 0; rep < 5; rep++) {
			t0 = now();
			sink = fmaloop(10000000);
			t0 = now() - t0;
			best = t0 < best ? t0 : best;
		}
		(void)sink;
		printf("fma roof (one core, avx512): %.1f GFLOP/s\n",
		    12.0 * 32 * 10000000 / best * 1e-9);
	}
#endif
	/* dispatch cost of an empty pool_for */
	best = 1e9;
	for (rep = 0; rep < 5; rep++) {
		t0 = now();
		for (k = 0; k < 20000; k++)
			pool_for(p, 1024, 16, nop, NULL);
		t0 = (now() - t0) / 20000;
		best = t0 < best ? t0 : best;
	}
	printf("pool_for, empty: %.2f us\n", best * 1e6);
	/* the floor: stream 512 MB of floats (chunks of 1024) */
	{
		struct sum c;
		float *a = bigalloc(512u << 20);

		for (i = 0; i < (128u << 20); i++)
			a[i] = 1.0f;
		memset(&c, 0, sizeof c);
		c.a = a;
		best = 1e9;
		for (rep = 0; rep < 5; rep++) {
			t0 = now();
			pool_for(p, 128 << 10, 1, sumchunk, &c);
			t0 = now() - t0;
			best = t0 < best ? t0 : best;
		}
		printf("stream read: %.1f GB/s\n", (512u << 20) / best * 1e-9);
		bigfree(a, 512u << 20);
	}
	printf("%-11s %10s %10s %10s %10s %10s\n", "shape", "hot GB/s",
	    "cold GB/s", "mv GFLOP/s", "mm GFLOP/s", "bx GFLOP/s");
	for (s = 0; s < (one[0] ? 1 : LEN(shapes)); s++) {
		rows = one[0] ? one[0] : shapes[s][0];
		n = one[0] ? one[1] : shapes[s][1];
		wb = (size_t)rows * wtype_rowsize(t, n);
		ncopy = (512u << 20) / wb + 1;
		wall = bigalloc(ncopy * wb);
		for (i = 0; i < ncopy * wb; i++)	/* finite, positive */
			wall[i] = (unsigned char)(i * 7 >> 3 & 0x3f);
		x = emalloc(sizeof(float) * (size_t)n * T);
		out = emalloc(sizeof(float) * (size_t)rows * T);
		for (i = 0; i < (size_t)n * T; i++)
			x[i] = (float)(i % 13) * 0.01f;
		j = (struct job){ t, out, wall, x, n, 1, rows, NULL, 0 };
		/* hot matvec */
		best = 1e9;
		for (rep = 0; rep < 5; rep++) {
			t0 = now();
			for (k = 0; k < 50; k++)
				pool_for(p, rows, 16, mv, &j);
			t0 = (now() - t0) / 50;
			best = t0 < best ? t0 : best;
		}
		bytes = (double)wb;
		printf("%5dx%-5d %10.1f", rows, n, bytes / best * 1e-9);
		/* cold matvec: a different copy each call */
		best = cold(p, rows, mv, &j, wall, wb, ncopy, 3);
		printf(" %10.1f %10.1f", bytes / best * 1e-9,
		    2.0 * rows * n / best * 1e-9);
		/* prefill matmul over T tokens */
		j.w = wall;
		j.T = T;
		best = 1e9;
		for (rep = 0; rep < 5; rep++) {
			t0 = now();
			pool_for(p, rows, 16, mm, &j);
			t0 = now() - t0;
			best = t0 < best ? t0 : best;
		}
		printf(" %10.1f", 2.0 * rows * n * T / best * 1e-9);
		/* a batch's T decode rows as seq_sched.c runs them (mvs:
		 * xprep + matmulx where the table has them), cold */
		xpb = (KERN_XPBYTES(n, T) + 63) / 64 * 64;
		if (posix_memalign((void **)&j.xp, 64, (size_t)threads * xpb))
			die("cannot allocate %zu bytes", (size_t)threads * xpb);
		j.xpb = xpb;
		if (T <= KERN_TFEW) {
			best = cold(p, rows, mvs, &j, wall, wb, ncopy, 3);
			printf(" %10.1f\n", 2.0 * rows * n * T / best * 1e-9);
		} else {
			printf(" %10s\n", "-");
		}
		free(j.xp);
		bigfree(wall, ncopy * wb);
		free(x);
		free(out);
	}
	if (!one[0])
		model(p, t, T);
	pool_free(p);
	return 0;
}
