/* attnbench: decode's attention on the SmolLM2-135M shape, alone.
 *
 *   make attnbench
 *   PIPELM_KERNEL=avx512 build/rel/attnbench [-ocitnw] [-r reps] [-d depth]
 *       [-l layers] [-k kvtype]
 *
 * One decoded token's attention in every layer (30 layers, 9 query heads
 * over 3 KV heads, head size 64) after 128 positions and after depth
 * (4096), with each KV cache type (f32, bf16, f16, q8_0): the cache
 * in the model's layout
 * (seq.h: segments of 4 blocks of 64 positions, a segment's keys, and
 * values, of a layer's KV head in one run; 2 MB pages; a token's keys
 * span the whole cache and come from memory as in decode; -o: the
 * layout before 2026-12-03, a block's rows of every layer together,
 * 1.5 MB apart),
 * cut into the key ranges decode's step_attention cuts
 * (at least 64 keys, at most 16 ranges a head), each tile read in
 * address order first as its attn_touch does, then the table's part and
 * attn_merge.  One thread.  Prints ms a token (the best of reps runs),
 * what depth adds to 128 and that per key row (a KV head's key and value
 * at one position, for its 3 query heads): the attention's share of
 * issue 28's decode goal (decode after 4096 within 1.5x of after 128),
 * without the weights.  -k runs one cache type (attn_kvname's names:
 * f32, bf16, f16, q8_0) instead of the four.  -c times by CPU time instead of
 * the clock, so that other processes on a shared machine count less.
 * -l 1 keeps one layer's cache (3-6 MB at 4096), which stays in the
 * last-level cache: the tile's compute without the memory.  Orders of
 * the cache's reading, to compare with decode's (bench/NOTES.md, "Decode
 * attention's cache reading"): -t every tile read first, none ahead;
 * -n no tile read first and none ahead (the hardware prefetchers
 * alone); -i the KV heads' ranges interleaved (range c of each head,
 * then range c + 1: in a segment a layer's heads' keys are one run).
 * -w: the tile's compute alone, one tile of decode's 256 keys (its 64 KB
 * of keys and values in L2) run over and over, ns a key row; -l 1's
 * cache is in L3, not L2, and its reading still counts there. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../lib/kern/attn.h"
#include "../lib/kern/kern.h"
#include "../lib/kern/wtype.h"
#include "../lib/base/util.h"

#define NKV 3		/* KV heads */
#define NH 3		/* query heads a KV head */
#define HD 64		/* head size */
#define KVB 64		/* positions a cache block (SEQ_KVBLOCK) */
#define SEGSHIFT 2	/* log2 of the blocks a segment (SEQ_KVSEGSHIFT) */
#define SEG (1 << SEGSHIFT)

static int nlay = 30;	/* layers */
static int touch;	/* -t: every tile read first, none ahead */
static int nopf;	/* -n: no tile read first, none ahead */
static int inter;	/* -i: the KV heads' ranges interleaved */
static int old;		/* -o: the layout before 2026-12-03, a block's
			 * rows of every layer together */

static double
now(int cpu)
{
	struct timespec t;

	clock_gettime(cpu ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* The k-th tile read of a layer's NKV * nchunk (head g's range c at
 * g * nchunk + c): in head order, or with -i range by range. */
static int
tile_at(int k, int nchunk)
{
	return inter ? k % NKV * nchunk + k / NKV : k;
}

/* The best time of reps tokens at position pos, ms. */
static double
run(const struct attn_kern *ak, const void *kv, enum wtype t, int pos,
    int reps, int cpu)
{
	static float q[NKV * NH * HD], att[ATTN_NCHUNK * NKV * NH * HD],
	    mls[ATTN_NCHUNK * NKV * NH * 2], out[NKV * NH * HD];
	size_t bstride = (size_t)nlay * 2 * NKV * HD * KVB,
	    head = (size_t)KVB * HD, segstride = 0;
	int n = pos + 1, chunk, nchunk, r, l, g, c, h, qdim = NKV * NH * HD;
	double best = 1e30, t0;
	float ml[2 * NH];
	static struct attn_tile tl[NKV * ATTN_NCHUNK];
	struct attn_tile *a;
	int i, k, ahead, ntile;

	if (!old) {	/* seq.h's segments of SEG blocks */
		bstride = (size_t)KVB * HD, head = (size_t)SEG * KVB * HD;
		segstride = (size_t)nlay * 2 * NKV * SEG * KVB * HD;
	}
	for (c = 0; c < qdim; c++)
		q[c] = (float)(c * 7919 % 200) / 100 - 1;
	chunk = (n + ATTN_NCHUNK - 1) / ATTN_NCHUNK;
	chunk = chunk < ATTN_MINCHUNK ? ATTN_MINCHUNK : chunk;
	chunk = (chunk + ATTN_BLOCK - 1) / ATTN_BLOCK * ATTN_BLOCK;
	nchunk = (n + chunk - 1) / chunk;
	for (r = 0; r < reps; r++) {
		t0 = now(cpu);
		for (l = 0; l < nlay; l++) {
			for (g = 0; g < NKV; g++)
				for (c = 0; c < nchunk; c++) {
					a = &tl[g * nchunk + c];
					memset(a, 0, sizeof(*a));
					a->k = (const char *)kv + attn_kvbytes(t,
					    ((size_t)l * 2 * NKV + g) * head);
					a->v = (const char *)kv + attn_kvbytes(t,
					    (((size_t)l * 2 + 1) * NKV + g) * head);
					a->ldkv = HD, a->kvb = KVB, a->bstride = bstride;
					a->segstride = segstride, a->segshift = SEGSHIFT;
					a->q = q + g * NH * HD, a->ldq = qdim;
					a->hd = HD, a->nh = NH, a->T = 1, a->pos0 = pos;
					a->p0 = c * chunk;
					a->p1 = a->p0 + chunk < n ? a->p0 + chunk : n;
					a->scale = 0.125f, a->kvt = t, a->touched = 1;
				}
			ntile = NKV * nchunk;
			for (k = 0; k < ntile; k++) {
				i = tile_at(k, nchunk);
				a = &tl[i];
				ahead = !touch && !nopf && t != W_F32;
				if ((k == 0 || !ahead) && !nopf)
					attn_touch(a);
				if (ahead && k + 1 < ntile)
					a->ahead = &tl[tile_at(k + 1, nchunk)];
				ak->part(att + (size_t)(i % nchunk) * qdim +
				    i / nchunk * NH * HD, qdim, ml, a);
				memcpy(mls + 2 * ((size_t)(i % nchunk) * NKV * NH +
				    i / nchunk * NH), ml, sizeof(ml));
			}
			for (h = 0; h < NKV * NH; h++)
				attn_merge(out + h * HD, att + h * HD, qdim,
				    mls + 2 * h, 2 * NKV * NH, nchunk, HD);
		}
		t0 = now(cpu) - t0;
		best = t0 < best ? t0 : best;
	}
	return best;
}

/* -w: the best over reps rounds of ns a key row of one 256-key tile
 * of type t in L2, run 2000 times a round. */
static double
warmtile(const struct attn_kern *ak, enum wtype t, int reps, int cpu)
{
	enum { N = 256, RUNS = 2000 };
	static float q[NH * HD], acc[NH * HD], x[HD];
	size_t rb = attn_kvbytes(t, HD);
	char *buf = emalloc(2 * N * rb + 64), *k, *v;
	struct attn_tile a;
	double best = 1e30, t0;
	float ml[2 * NH];
	int p, j, r, i;

	k = buf + (64 - (uintptr_t)buf % 64) % 64;	/* rows on lines, as
							 * the cache's */
	v = k + N * rb;
	for (p = 0; p < N; p++) {
		for (j = 0; j < HD; j++)
			x[j] = (float)((p * HD + j) * 2654435761u % 1000) / 500 - 1;
		attn_kvput(k + (p - p % ATTN_Q8G) * rb, p % ATTN_Q8G, x, HD, t);
		for (j = 0; j < HD; j++)
			x[j] = (float)((p * HD + j) * 40503u % 1000) / 500 - 1;
		attn_kvput(v + (p - p % ATTN_Q8G) * rb, p % ATTN_Q8G, x, HD, t);
	}
	for (j = 0; j < NH * HD; j++)
		q[j] = (float)(j * 7919 % 200) / 100 - 1;
	memset(&a, 0, sizeof(a));
	a.q = q, a.ldq = NH * HD, a.k = k, a.v = v, a.ldkv = HD;
	a.bstride = (size_t)HD * N, a.kvb = N, a.hd = HD, a.nh = NH, a.T = 1;
	a.pos0 = N - 1, a.p1 = N, a.scale = 0.125f, a.kvt = t, a.touched = 1;
	for (r = 0; r < reps; r++) {
		t0 = now(cpu);
		for (i = 0; i < RUNS; i++)
			ak->part(acc, NH * HD, ml, &a);
		t0 = (now(cpu) - t0) * 1e6 / ((double)RUNS * N);
		best = t0 < best ? t0 : best;
	}
	free(buf);
	return best;
}

static void
usage(void)
{
	fprintf(stderr, "usage: %s [-ocitnw] [-r reps] [-d depth] [-l layers] "
	    "[-k kvtype]\n", argv0);
	exit(2);
}

int
main(int argc, char *argv[])
{
	static const enum wtype types[] = { W_F32, W_BF16, W_F16, W_GQ8_0 };
	int c, cpu = 0, reps = 10, depth = 4096, nb, e = 0, warm = 0;
	const char *only = NULL;
	const struct attn_kern *ak;
	size_t i, nel, bytes, j, r;
	double t128, td;
	float x[HD];
	void *kv;

	argv0 = argv[0];
	while ((c = getopt(argc, argv, "ocitnwr:d:l:k:")) != -1) {
		switch (c) {
		case 'o': old = 1; break;
		case 'c': cpu = 1; break;
		case 't': touch = 1; break;
		case 'n': nopf = 1; break;
		case 'i': inter = 1; break;
		case 'w': warm = 1; break;
		case 'r': reps = (int)estrtonum(optarg, 1, 1000000, "-r"); break;
		case 'd': depth = (int)estrtonum(optarg, 129, 1 << 20, "-d"); break;
		case 'l': nlay = (int)estrtonum(optarg, 1, 1000, "-l"); break;
		case 'k': only = optarg; break;
		default: usage();
		}
	}
	if (optind != argc || (only && attn_kvparse(only) < 0))
		usage();
	if (kern_init(getenv("PIPELM_KERNEL")) < 0)
		return 1;
	ak = attn_find(kern.name);
	if (warm) {
		printf("attnbench: one 256-key tile in L2, 3 query heads, head "
		    "size 64, %s table, ns a key row (best of %d%s)\n| KV | "
		    "ns a key row |\n|---|---|\n", ak->name, reps,
		    cpu ? ", CPU time" : "");
		for (c = 0; c < 4; c++)
			if (!only || !strcmp(only, attn_kvname(types[c])))
				e = printf("| %s | %.2f |\n", attn_kvname(types[c]),
			    warmtile(ak, types[c], reps, cpu));
		return e < 0 || fflush(stdout) != 0;
	}
	nb = ((depth + KVB) / KVB + SEG - 1) / SEG * SEG;
	nel = (size_t)nb * nlay * 2 * NKV * HD * KVB;
	printf("attnbench: attention of a decoded token, 135M shape, %d layers, "
	    "%s table, 1 thread, ms (best of %d%s)\n", nlay, ak->name, reps,
	    cpu ? ", CPU time" : "");
	printf("| KV | after 128 | after %d | added | ns a key row |\n"
	    "|---|---|---|---|---|\n", depth);
	for (c = 0; c < 4; c++) {
		if (only && strcmp(only, attn_kvname(types[c])))
			continue;
		bytes = attn_kvbytes(types[c], nel);
		kv = mem_map(bytes);	/* the model's: 2 MB pages */
		if (!kv)
			return 1;
		for (i = 0; i < nel; i += HD) {
			for (j = 0; j < HD; j++)
				x[j] = (float)((i + j) * 2654435761u % 1000) / 500 - 1;
			r = i / HD % ATTN_Q8G;	/* the row in its group (attn.h) */
			attn_kvput((char *)kv + attn_kvbytes(types[c], i -
			    (size_t)r * HD), r, x, HD, types[c]);
		}
		t128 = run(ak, kv, types[c], 127, reps, cpu);
		td = run(ak, kv, types[c], depth - 1, reps, cpu);
		e = printf("| %s | %.3f | %.3f | %.3f | %.2f |\n",
		    attn_kvname(types[c]), t128, td, td - t128,
		    (td - t128) * 1e6 / ((double)nlay * NKV * (depth - 128)));
		mem_unmap(kv, bytes);
	}
	return e < 0 || fflush(stdout) != 0;
}
