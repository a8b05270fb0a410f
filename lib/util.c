#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

const char *argv0 = "pipelm";

static void
vwarn(const char *fmt, va_list ap)
{
	int saved = errno;
	size_t n = strlen(fmt);

	fprintf(stderr, "%s: ", argv0);
	vfprintf(stderr, fmt, ap);
	if (n && fmt[n - 1] == ':')
		fprintf(stderr, " %s", strerror(saved));
	fputc('\n', stderr);
}

void
warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vwarn(fmt, ap);
	va_end(ap);
}

int
error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vwarn(fmt, ap);
	va_end(ap);
	return -1;
}

void
die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vwarn(fmt, ap);
	va_end(ap);
	exit(1);
}

void
edie(int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vwarn(fmt, ap);
	va_end(ap);
	exit(status);
}

void *
emalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		die("cannot allocate %zu bytes", n);
	return p;
}

void *
ecalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		die("cannot allocate %zu x %zu bytes", n, size);
	return p;
}

void *
ereallocarray(void *p, size_t n, size_t size)
{
	size_t bytes;

	if (size_mul(&bytes, n, size) < 0)
		die("cannot allocate %zu x %zu bytes: too large", n, size);
	if (!(p = realloc(p, bytes ? bytes : 1)))
		die("cannot allocate %zu bytes", bytes);
	return p;
}

char *
estrdup(const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(emalloc(n), s, n);
}

int
size_mul(size_t *r, size_t a, size_t b)
{
	if (a && b > SIZE_MAX / a)
		return -1;
	*r = a * b;
	return 0;
}

int
size_add(size_t *r, size_t a, size_t b)
{
	if (b > SIZE_MAX - a)
		return -1;
	*r = a + b;
	return 0;
}

const char *
strtonum_err(const char *s, long long min, long long max, long long *out)
{
	char *end;
	long long v;

	errno = 0;
	if (!*s)
		return "not a number";
	v = strtoll(s, &end, 10);
	if (*end || end == s)
		return "not a number";
	if ((errno == ERANGE && v == LLONG_MIN) || v < min)
		return "too small";
	if ((errno == ERANGE && v == LLONG_MAX) || v > max)
		return "too large";
	*out = v;
	return NULL;
}

long long
estrtonum(const char *s, long long min, long long max, const char *name)
{
	long long v = 0;
	const char *why = strtonum_err(s, min, max, &v);

	if (why)
		edie(2, "invalid %s '%s': %s (expected %lld to %lld)", name, s, why, min, max);
	return v;
}

double
estrtod(const char *s, double min, double max, const char *name)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (!*s || *end || end == s || !isfinite(v))
		edie(2, "invalid %s '%s': not a number", name, s);
	if (v < min || v > max)
		edie(2, "invalid %s '%s': out of range (expected %g to %g)", name, s, min, max);
	return v;
}

int
fshut(FILE *f, const char *name)
{
	int ret = 0;

	if (fflush(f) == EOF || ferror(f)) {
		if (errno != EPIPE)
			warn("write %s:", name);
		ret = 1;
	}
	if (fclose(f) == EOF && !ret) {
		if (errno != EPIPE)
			warn("close %s:", name);
		ret = 1;
	}
	return ret;
}

void
version(void)
{
	printf("%s (pipelm) %s\n", argv0, PIPELM_VERSION);
	exit(0);
}

/* Sizes of 2 MiB and more are rounded up to whole huge pages: the kernel
 * aligns an anonymous mapping for THP only when its length is a multiple. */
static size_t
mem_roundup(size_t n)
{
	size_t huge = (size_t)2 << 20;

	if (n < huge)
		return n ? n : 1;
	return n > SIZE_MAX - huge ? n : (n + huge - 1) / huge * huge;
}

void *
mem_map(size_t n)
{
	void *p;

	n = mem_roundup(n);
	p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
#ifdef MADV_HUGEPAGE
	if (n >= (size_t)2 << 20)
		madvise(p, n, MADV_HUGEPAGE);
#endif
	return p;
}

void
mem_unmap(void *p, size_t n)
{
	if (p)
		munmap(p, mem_roundup(n));
}

void *
file_map(int fd, size_t len)
{
	size_t huge = (size_t)2 << 20, pg = (size_t)sysconf(_SC_PAGESIZE);
	size_t lp = (len + pg - 1) / pg * pg, rs;
	char *r, *a, *p;

	if (len < huge || lp > SIZE_MAX - huge)
		return mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
	/* reserve a huge page more than needed, map the file over the
	 * aligned part of it, give back the rest */
	rs = lp + huge;
	r = mmap(NULL, rs, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (r == MAP_FAILED)
		return mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
	a = (char *)(((uintptr_t)r + huge - 1) & ~(uintptr_t)(huge - 1));
	p = mmap(a, len, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0);
	if (p == MAP_FAILED) {
		munmap(r, rs);
		return MAP_FAILED;
	}
	if (a > r)
		munmap(r, (size_t)(a - r));
	if (r + rs > a + lp)
		munmap(a + lp, (size_t)(r + rs - (a + lp)));
#ifdef MADV_HUGEPAGE
	madvise(p, len, MADV_HUGEPAGE);
#endif
	return p;
}

int
default_threads(void)
{
	const char *s = getenv("PIPELM_THREADS");
	long long v;
	long n;

	if (s && *s && !strtonum_err(s, 1, 1024, &v))
		return (int)v;
	n = sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : n > 1024 ? 1024 : (int)n;
}

double
now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}
