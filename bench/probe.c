/*
 * bench/probe.c: the measuring helpers of `make bench` (bench/run.sh builds
 * it with $(CC) -O2; it is not part of libcore and is not installed).
 *
 *   probe bw [-t threads] [-r reps] [-m MiB] [-f file]
 *	read bandwidth: sum float32 over a buffer much larger than the caches
 *	(anonymous, 2 MiB pages where the kernel gives them; or a file mapped
 *	as the model loader maps it, with the cost of the first touch)
 *   probe roof [-t threads] [-r reps]
 *	float32 FMA roof: independent FMA chains in registers, per ISA
 *   probe run cmd [arg ...]
 *	run cmd with its stdout on a pipe, time the arrival of each token id
 *	it writes, report its peak RSS (getrusage of the child)
 *
 * Each prints one line of key=value pairs on stdout for bench/run.sh.
 * Wide loads and FMAs use function target attributes (the function-level
 * form of -mavx2/-mavx512f) behind a runtime CPU check, so the binary runs
 * on any x86-64, and elsewhere with the portable loops only.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define X86 1
#include <immintrin.h>
#else
#define X86 0
#endif

#define MAXTHR 64
#define BLK 128			/* floats per unrolled step of the sum loops */

static const char *argv0 = "probe";

/* "probe: msg", and strerror(errno) where fmt ends in ':' (as util.h) */
__attribute__((format(printf, 1, 2))) static _Noreturn void
die(const char *fmt, ...)
{
	int e = errno;
	va_list ap;

	fprintf(stderr, "%s: ", argv0);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (fmt[0] && fmt[strlen(fmt) - 1] == ':')
		fprintf(stderr, " %s", strerror(e));
	fputc('\n', stderr);
	exit(1);
}

static _Noreturn void
usage(int status)
{
	fprintf(status ? stderr : stdout,
	    "usage: %s bw [-t threads] [-r reps] [-m MiB] [-f file]\n"
	    "       %s roof [-t threads] [-r reps]\n"
	    "       %s run cmd [arg ...]\n", argv0, argv0, argv0);
	exit(status);
}

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* CPU time of the calling thread: with other processes on the cores, the
 * wall time of a compute loop grows, its CPU time does not. */
static double
cputime(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static long
num(const char *s, long lo, long hi, const char *what)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi) {
		fprintf(stderr, "%s: %s: %s: not a number in [%ld, %ld]\n",
		    argv0, what, s, lo, hi);
		exit(2);
	}
	return v;
}

static int
cmpd(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Median of v[0..n) (sorts v). */
static double
median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmpd);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* ---- read bandwidth ---- */

/* Sum of p[0..n) and q[0..n), n a multiple of BLK, read side by side:
 * two sequential streams (as the decode kernels read a thread's rows;
 * on Zen 5 they read 5-10% faster than one), 8 independent
 * accumulators. */
static float
sum_portable(const float *p, const float *q, size_t n)
{
	float a[8] = { 0 };
	size_t i;
	int j;

	for (i = 0; i < n; i += 4)
		for (j = 0; j < 4; j++) {
			a[j] += p[i + j];
			a[4 + j] += q[i + j];
		}
	return a[0] + a[1] + a[2] + a[3] + a[4] + a[5] + a[6] + a[7];
}

#if X86
__attribute__((target("avx2,fma"))) static float
sum_avx2(const float *p, const float *q, size_t n)
{
	__m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
	__m256 a4 = a0, a5 = a0, a6 = a0, a7 = a0;
	float r[8];
	size_t i;

	for (i = 0; i < n; i += 32) {
		a0 = _mm256_add_ps(a0, _mm256_loadu_ps(p + i));
		a1 = _mm256_add_ps(a1, _mm256_loadu_ps(p + i + 8));
		a2 = _mm256_add_ps(a2, _mm256_loadu_ps(p + i + 16));
		a3 = _mm256_add_ps(a3, _mm256_loadu_ps(p + i + 24));
		a4 = _mm256_add_ps(a4, _mm256_loadu_ps(q + i));
		a5 = _mm256_add_ps(a5, _mm256_loadu_ps(q + i + 8));
		a6 = _mm256_add_ps(a6, _mm256_loadu_ps(q + i + 16));
		a7 = _mm256_add_ps(a7, _mm256_loadu_ps(q + i + 24));
	}
	a0 = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3)),
	    _mm256_add_ps(_mm256_add_ps(a4, a5), _mm256_add_ps(a6, a7)));
	_mm256_storeu_ps(r, a0);
	return r[0] + r[1] + r[2] + r[3] + r[4] + r[5] + r[6] + r[7];
}

__attribute__((target("avx512f"))) static float
sum_avx512(const float *p, const float *q, size_t n)
{
	__m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
	__m512 a4 = a0, a5 = a0, a6 = a0, a7 = a0;
	size_t i;

	for (i = 0; i < n; i += 64) {
		a0 = _mm512_add_ps(a0, _mm512_loadu_ps(p + i));
		a1 = _mm512_add_ps(a1, _mm512_loadu_ps(p + i + 16));
		a2 = _mm512_add_ps(a2, _mm512_loadu_ps(p + i + 32));
		a3 = _mm512_add_ps(a3, _mm512_loadu_ps(p + i + 48));
		a4 = _mm512_add_ps(a4, _mm512_loadu_ps(q + i));
		a5 = _mm512_add_ps(a5, _mm512_loadu_ps(q + i + 16));
		a6 = _mm512_add_ps(a6, _mm512_loadu_ps(q + i + 32));
		a7 = _mm512_add_ps(a7, _mm512_loadu_ps(q + i + 48));
	}
	a0 = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3)),
	    _mm512_add_ps(_mm512_add_ps(a4, a5), _mm512_add_ps(a6, a7)));
	return _mm512_reduce_add_ps(a0);
}
#endif

/* The widest kernel the CPU has, and its name. */
static float (*sumfn)(const float *, const float *, size_t) = sum_portable;
static const char *sumname = "portable";

static void
pick_sum(void)
{
#if X86
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx512f"))
		sumfn = sum_avx512, sumname = "avx512";
	else if (__builtin_cpu_supports("avx2"))
		sumfn = sum_avx2, sumname = "avx2";
#endif
}

/* One run of threads: each does work(arg, thread) between two barriers;
 * thread 0 times the span. */
struct team {
	pthread_barrier_t bar;
	int nthr, reps;
	double *t;			/* reps seconds, from thread 0 */
	double *cpu;			/* reps x nthr CPU seconds, or NULL */
	void (*work)(struct team *, int);
	/* bw */
	const float *buf;
	size_t n;			/* floats, a multiple of 2 * BLK * nthr */
	/* roof */
	long iters;
	volatile float sink[MAXTHR];
};

struct arg {
	struct team *tm;
	int id;
};

static void *
team_main(void *p)
{
	struct arg *a = p;
	struct team *tm = a->tm;
	double t0 = 0, c0;
	int r;

	for (r = 0; r < tm->reps; r++) {
		pthread_barrier_wait(&tm->bar);
		if (a->id == 0)
			t0 = now();
		c0 = cputime();
		tm->work(tm, a->id);
		if (tm->cpu)
			tm->cpu[r * tm->nthr + a->id] = cputime() - c0;
		pthread_barrier_wait(&tm->bar);
		if (a->id == 0)
			tm->t[r] = now() - t0;
	}
	return NULL;
}

static void
team_run(struct team *tm)
{
	pthread_t th[MAXTHR];
	struct arg a[MAXTHR];
	int i;

	if (pthread_barrier_init(&tm->bar, NULL, (unsigned)tm->nthr))
		die("pthread_barrier_init failed");
	for (i = 0; i < tm->nthr; i++) {
		a[i].tm = tm, a[i].id = i;
		if (i && pthread_create(&th[i], NULL, team_main, &a[i]))
			die("pthread_create failed");
	}
	team_main(&a[0]);
	for (i = 1; i < tm->nthr; i++)
		pthread_join(th[i], NULL);
	pthread_barrier_destroy(&tm->bar);
}

static void
bw_work(struct team *tm, int id)
{
	size_t per = tm->n / (size_t)tm->nthr, h = per / 2;
	const float *p = tm->buf + per * (size_t)id;

	tm->sink[id] = sumfn(p, p + h, h);
}

/* First touch of an anonymous buffer, in parallel (pages land near the
 * threads that read them). */
static void
fill_work(struct team *tm, int id)
{
	size_t per = tm->n / (size_t)tm->nthr, i;
	float *p = (float *)tm->buf + per * (size_t)id;

	for (i = 0; i < per; i++)
		p[i] = 1.0f / (float)(1 + (i & 1023));
}

/* First touch of a mapped file: one read per 4 KiB page. */
static void
touch_work(struct team *tm, int id)
{
	size_t per = tm->n / (size_t)tm->nthr, i;
	const volatile float *p = tm->buf + per * (size_t)id;
	float s = 0;

	for (i = 0; i < per; i += 1024)
		s += p[i];
	tm->sink[id] = s;
}

static int
cmd_bw(int argc, char *argv[])
{
	struct team tm = { .nthr = 1, .reps = 10 };
	const char *file = NULL;
	double touch = -1, med, best, worst, *t, share = 0;
	size_t mib = 512, bytes, n;
	void *map = NULL;
	int c, i;

	while ((c = getopt(argc, argv, "t:r:m:f:")) != -1) {
		switch (c) {
		case 't': tm.nthr = (int)num(optarg, 1, MAXTHR, "threads"); break;
		case 'r': tm.reps = (int)num(optarg, 1, 1000, "repetitions"); break;
		case 'm': mib = (size_t)num(optarg, 1, 1 << 16, "MiB"); break;
		case 'f': file = optarg; break;
		default: usage(2);
		}
	}
	if (optind != argc)
		usage(2);
	pick_sum();
	if (file) {
		struct stat sb;
		int fd = open(file, O_RDONLY);

		if (fd < 0 || fstat(fd, &sb) < 0)
			die("%s:", file);
		bytes = (size_t)sb.st_size;
		/* as lib/disk/st.c maps weights (file_map, lib/base/util.c): 2 MiB
		 * aligned, huge pages advised */
		map = mmap(NULL, bytes + (2 << 20), PROT_NONE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (map == MAP_FAILED)
			die("%s: mmap:", file);
		map = (void *)(((uintptr_t)map + (2 << 20) - 1) &
		    ~(uintptr_t)((2 << 20) - 1));
		map = mmap(map, bytes, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0);
		close(fd);
		if (map == MAP_FAILED)
			die("%s: mmap:", file);
#ifdef MADV_HUGEPAGE
		madvise(map, bytes, MADV_HUGEPAGE);
#endif
	} else {
		bytes = mib << 20;
		if (posix_memalign(&map, 2 << 20, bytes))
			die("cannot allocate the buffer");
#ifdef MADV_HUGEPAGE
		madvise(map, bytes, MADV_HUGEPAGE);
#endif
	}
	n = bytes / sizeof(float) / ((size_t)2 * BLK * tm.nthr) * 2 * BLK * tm.nthr;
	if (n == 0)
		die("%s: too small to measure", file ? file : "buffer");
	tm.buf = map, tm.n = n;
	t = calloc((size_t)tm.reps, sizeof(*t));
	if (!t)
		die("cannot allocate");
	tm.t = t;
	/* first touch: fill the buffer, or fault the file's pages in */
	c = tm.reps, tm.reps = 1;
	tm.work = file ? touch_work : fill_work;
	team_run(&tm);
	touch = t[0];
	tm.reps = c;
	tm.work = bw_work;
	if (!(tm.cpu = calloc((size_t)tm.reps * tm.nthr, sizeof(*tm.cpu))))
		die("cannot allocate");
	team_run(&tm);
	for (i = 0; i < tm.reps * tm.nthr; i++)
		share += tm.cpu[i] / t[i / tm.nthr];
	share /= (double)tm.reps * tm.nthr;
	free(tm.cpu);
	best = worst = t[0];
	for (i = 0; i < tm.reps; i++) {
		best = t[i] < best ? t[i] : best;
		worst = t[i] > worst ? t[i] : worst;
	}
	med = median(t, tm.reps);
	printf("isa=%s threads=%d reps=%d mib=%.1f touch_ms=%.1f "
	    "best_gbs=%.2f median_gbs=%.2f min_gbs=%.2f cpu_share=%.2f\n",
	    sumname, tm.nthr, tm.reps, n * 4.0 / (1 << 20), touch * 1e3,
	    n * 4e-9 / best, n * 4e-9 / med, n * 4e-9 / worst, share);
	if (file)
		munmap(map, bytes);
	else
		free(map);
	free(t);
	return 0;
}

/* ---- FMA roof ---- */

/* Each step: every chain x = x * a + b, chains independent (no fast-math,
 * so the compiler keeps every FMA).  a < 1 keeps x finite and normal. */
static void
roof_portable(struct team *tm, int id)
{
	float x[16], a = 0.999999f, b = 1e-3f;
	long k;
	int j;

	for (j = 0; j < 16; j++)
		x[j] = (float)j;
	for (k = 0; k < tm->iters; k++)
		for (j = 0; j < 16; j++)
			x[j] = x[j] * a + b;
	tm->sink[id] = x[0] + x[15];
}

#if X86
/* 12 chains of 8: with a and b, 14 of the 16 ymm registers that AVX2 has */
__attribute__((target("avx2,fma"))) static void
roof_avx2(struct team *tm, int id)
{
	__m256 a = _mm256_set1_ps(0.999999f), b = _mm256_set1_ps(1e-3f);
	/* distinct starts, or the compiler merges equal chains into one */
	__m256 x0 = _mm256_set1_ps(1), x1 = _mm256_set1_ps(2), x2 = _mm256_set1_ps(3);
	__m256 x3 = _mm256_set1_ps(4), x4 = _mm256_set1_ps(5), x5 = _mm256_set1_ps(6);
	__m256 x6 = _mm256_set1_ps(7), x7 = _mm256_set1_ps(8), x8 = _mm256_set1_ps(9);
	__m256 x9 = _mm256_set1_ps(10), x10 = _mm256_set1_ps(11), x11 = _mm256_set1_ps(12);
	float r[8];
	long k;

	for (k = 0; k < tm->iters; k++) {
		x0 = _mm256_fmadd_ps(x0, a, b);
		x1 = _mm256_fmadd_ps(x1, a, b);
		x2 = _mm256_fmadd_ps(x2, a, b);
		x3 = _mm256_fmadd_ps(x3, a, b);
		x4 = _mm256_fmadd_ps(x4, a, b);
		x5 = _mm256_fmadd_ps(x5, a, b);
		x6 = _mm256_fmadd_ps(x6, a, b);
		x7 = _mm256_fmadd_ps(x7, a, b);
		x8 = _mm256_fmadd_ps(x8, a, b);
		x9 = _mm256_fmadd_ps(x9, a, b);
		x10 = _mm256_fmadd_ps(x10, a, b);
		x11 = _mm256_fmadd_ps(x11, a, b);
	}
	x0 = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(x0, x1), _mm256_add_ps(x2, x3)),
	    _mm256_add_ps(_mm256_add_ps(x4, x5), _mm256_add_ps(x6, x7)));
	x0 = _mm256_add_ps(x0, _mm256_add_ps(_mm256_add_ps(x8, x9), _mm256_add_ps(x10, x11)));
	_mm256_storeu_ps(r, x0);
	tm->sink[id] = r[0] + r[7];
}

/* 16 chains of 16 (FMA latency 4 x 2 pipes needs 8 in flight) */
__attribute__((target("avx512f"))) static void
roof_avx512(struct team *tm, int id)
{
	__m512 a = _mm512_set1_ps(0.999999f), b = _mm512_set1_ps(1e-3f);
	/* distinct starts, or the compiler merges equal chains into one */
	__m512 x0 = _mm512_set1_ps(1), x1 = _mm512_set1_ps(2), x2 = _mm512_set1_ps(3);
	__m512 x3 = _mm512_set1_ps(4), x4 = _mm512_set1_ps(5), x5 = _mm512_set1_ps(6);
	__m512 x6 = _mm512_set1_ps(7), x7 = _mm512_set1_ps(8), x8 = _mm512_set1_ps(9);
	__m512 x9 = _mm512_set1_ps(10), x10 = _mm512_set1_ps(11), x11 = _mm512_set1_ps(12);
	__m512 x12 = _mm512_set1_ps(13), x13 = _mm512_set1_ps(14), x14 = _mm512_set1_ps(15);
	__m512 x15 = _mm512_set1_ps(16);
	long k;

	for (k = 0; k < tm->iters; k++) {
		x0 = _mm512_fmadd_ps(x0, a, b);
		x1 = _mm512_fmadd_ps(x1, a, b);
		x2 = _mm512_fmadd_ps(x2, a, b);
		x3 = _mm512_fmadd_ps(x3, a, b);
		x4 = _mm512_fmadd_ps(x4, a, b);
		x5 = _mm512_fmadd_ps(x5, a, b);
		x6 = _mm512_fmadd_ps(x6, a, b);
		x7 = _mm512_fmadd_ps(x7, a, b);
		x8 = _mm512_fmadd_ps(x8, a, b);
		x9 = _mm512_fmadd_ps(x9, a, b);
		x10 = _mm512_fmadd_ps(x10, a, b);
		x11 = _mm512_fmadd_ps(x11, a, b);
		x12 = _mm512_fmadd_ps(x12, a, b);
		x13 = _mm512_fmadd_ps(x13, a, b);
		x14 = _mm512_fmadd_ps(x14, a, b);
		x15 = _mm512_fmadd_ps(x15, a, b);
	}
	x0 = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(x0, x1), _mm512_add_ps(x2, x3)),
	    _mm512_add_ps(_mm512_add_ps(x4, x5), _mm512_add_ps(x6, x7)));
	x8 = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(x8, x9), _mm512_add_ps(x10, x11)),
	    _mm512_add_ps(_mm512_add_ps(x12, x13), _mm512_add_ps(x14, x15)));
	tm->sink[id] = _mm512_reduce_add_ps(_mm512_add_ps(x0, x8));
}
#endif

/* FLOPs of one iteration of each roof kernel, per thread. */
static void
roof_one(int nthr, int reps, const char *name, void (*fn)(struct team *, int),
    double flops_iter)
{
	struct team tm = { .nthr = nthr, .reps = reps, .work = fn };
	double *t = calloc((size_t)reps, sizeof(*t)), best, med, worst;
	double *cpu = calloc((size_t)reps * nthr, sizeof(*cpu)), cbest = 0, r;
	double share = 0;
	int i, j;

	if (!t || !cpu)
		die("cannot allocate");
	tm.t = t;
	/* calibrate to ~0.1 s per repetition */
	tm.iters = 1 << 16, tm.reps = 1;
	for (;;) {
		team_run(&tm);
		if (t[0] > 0.05 || tm.iters > (1L << 40))
			break;
		tm.iters *= 4;
	}
	tm.iters = (long)(tm.iters * (0.1 / t[0])) + 1;
	tm.reps = reps;
	tm.cpu = cpu;
	team_run(&tm);
	/* per CPU second: the roof of the cores whatever else runs on them */
	for (i = 0; i < reps; i++) {
		for (r = 0, j = 0; j < nthr; j++) {
			r += 1 / cpu[i * nthr + j];
			share += cpu[i * nthr + j] / t[i];
		}
		cbest = r > cbest ? r : cbest;
	}
	share /= (double)reps * nthr;
	best = worst = t[0];
	for (i = 0; i < reps; i++) {
		best = t[i] < best ? t[i] : best;
		worst = t[i] > worst ? t[i] : worst;
	}
	med = median(t, reps);
	flops_iter *= (double)tm.iters * nthr * 1e-9;
	printf("isa=%s threads=%d reps=%d best_gflops=%.1f median_gflops=%.1f "
	    "min_gflops=%.1f cpu_gflops=%.1f cpu_share=%.2f\n", name, nthr, reps,
	    flops_iter / best, flops_iter / med, flops_iter / worst,
	    flops_iter / nthr * cbest, share);
	free(cpu);
	free(t);
}

static int
cmd_roof(int argc, char *argv[])
{
	int c, nthr = 1, reps = 5;

	while ((c = getopt(argc, argv, "t:r:")) != -1) {
		switch (c) {
		case 't': nthr = (int)num(optarg, 1, MAXTHR, "threads"); break;
		case 'r': reps = (int)num(optarg, 1, 1000, "repetitions"); break;
		default: usage(2);
		}
	}
	if (optind != argc)
		usage(2);
#if X86
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx512f"))
		roof_one(nthr, reps, "avx512", roof_avx512, 16 * 16 * 2);
	if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
		roof_one(nthr, reps, "avx2", roof_avx2, 12 * 8 * 2);
	if (__builtin_cpu_supports("avx2"))
		return 0;
#endif
	roof_one(nthr, reps, "portable", roof_portable, 16 * 2);
	return 0;
}

/* ---- run a program, time its ids ---- */

static int
cmd_run(int argc, char *argv[])
{
	struct rusage ru;
	double t0, t, *at = NULL, *gap, wall, steady = 0, gmed = 0;
	size_t n = 0, cap = 0, i;
	char buf[1 << 14];
	int pfd[2], st, digit = 0, code;
	ssize_t got;
	pid_t pid;

	if (argc < 2)
		usage(2);
	if (pipe(pfd) < 0)
		die("pipe:");
	fflush(stdout);
	t0 = now();
	if ((pid = fork()) < 0)
		die("fork:");
	if (pid == 0) {
		dup2(pfd[1], 1);
		close(pfd[0]), close(pfd[1]);
		execvp(argv[1], argv + 1);
		fprintf(stderr, "%s: exec %s: %s\n", argv0, argv[1], strerror(errno));
		_exit(127);
	}
	close(pfd[1]);
	/* an id is timed when its first digit arrives: the programs flush
	 * each id whole, separator first */
	while ((got = read(pfd[0], buf, sizeof(buf))) != 0) {
		if (got < 0) {
			if (errno == EINTR)
				continue;
			die("read:");
		}
		t = now();
		for (i = 0; i < (size_t)got; i++) {
			int d = buf[i] >= '0' && buf[i] <= '9';

			if (d && !digit) {
				if (n == cap) {
					cap = cap ? 2 * cap : 256;
					if (!(at = realloc(at, cap * sizeof(*at))))
						die("cannot allocate");
				}
				at[n++] = t - t0;
			}
			digit = d;
		}
	}
	close(pfd[0]);
	if (wait4(pid, &st, 0, &ru) < 0)
		die("wait4:");
	wall = now() - t0;
	code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	/* steady decode: the steps after the first one */
	if (n >= 3) {
		if (at[n - 1] > at[1])
			steady = (double)(n - 2) / (at[n - 1] - at[1]);
		if (!(gap = malloc((n - 2) * sizeof(*gap))))
			die("cannot allocate");
		for (i = 2; i < n; i++)
			gap[i - 2] = at[i] - at[i - 1];
		gmed = median(gap, (int)(n - 2));
		free(gap);
	}
	printf("status=%d wall_ms=%.1f cpu_ms=%.1f maxrss_kb=%ld ids=%zu "
	    "first_ms=%.1f step1_ms=%.2f steady_tps=%.1f steady_median_ms=%.2f\n",
	    code, wall * 1e3, (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
	    (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-3, ru.ru_maxrss, n,
	    n ? at[0] * 1e3 : -1.0,
	    n >= 2 ? (at[1] - at[0]) * 1e3 : -1.0, steady, gmed * 1e3);
	free(at);
	return code;
}

int
main(int argc, char *argv[])
{
	if (argc < 2)
		usage(2);
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))
		usage(0);
	if (!strcmp(argv[1], "bw"))
		return cmd_bw(argc - 1, argv + 1);
	if (!strcmp(argv[1], "roof"))
		return cmd_roof(argc - 1, argv + 1);
	if (!strcmp(argv[1], "run"))
		return cmd_run(argc - 1, argv + 1);
	usage(2);
}
