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

#include "base/util.h"

const char *argv0 = "pipelm";

static void (*msg_hook)(const char *msg);

void
warn_hook(void (*fn)(const char *msg))
{
	msg_hook = fn;
}

static void
vwarn(const char *fmt, va_list ap)
{
	int saved = errno;
	size_t n = strlen(fmt);
	char msg[1024];
	int k;

	if (msg_hook) {	/* the C API: the message kept for its caller */
		k = vsnprintf(msg, sizeof msg, fmt, ap);
		if (k >= 0 && (size_t)k < sizeof msg && n && fmt[n - 1] == ':')
			snprintf(msg + k, sizeof msg - (size_t)k, " %s",
			    strerror(saved));
		msg_hook(msg);
		errno = saved;
		return;
	}
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

/* The returning allocators, for library code: NULL after error(). */
void *
xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		error("cannot allocate %zu bytes", n);
	return p;
}

void *
xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		error("cannot allocate %zu x %zu bytes", n, size);
	return p;
}

void *
xreallocarray(void *p, size_t n, size_t size)
{
	size_t bytes;
	void *q;

	if (size_mul(&bytes, n, size) < 0) {
		error("cannot allocate %zu x %zu bytes: too large", n, size);
		return NULL;
	}
	if (!(q = realloc(p, bytes ? bytes : 1)))
		error("cannot allocate %zu bytes", bytes);
	return q;
}

char *
xmemdup(const void *s, size_t n)
{
	char *p;

	if (n == (size_t)-1 || !(p = xmalloc(n + 1)))
		return NULL;
	memcpy(p, s, n);
	p[n] = 0;
	return p;
}

char *
path_dir(const char *path)
{
	const char *s = strrchr(path, '/');

	if (!s)
		return xstrdup(".");
	if (s == path)
		return xstrdup("/");
	return xmemdup(path, (size_t)(s - path));
}

char *
xstrdup(const char *s)
{
	return xmemdup(s, strlen(s));
}

int
xgrow(void *pp, size_t *cap, size_t n, size_t size)
{
	size_t c = *cap ? *cap : 8;
	void *p;

	if (n <= *cap)
		return 0;
	while (c < n)
		if (size_mul(&c, c, 2) < 0)
			return error("cannot allocate %zu x %zu bytes: too large",
			    n, size);
	if (!(p = xreallocarray(*(void **)pp, c, size)))
		return -1;
	*(void **)pp = p;
	*cap = c;
	return 0;
}

/* The exiting ones, for cmd/: the message is the same, then exit(1). */
void *
emalloc(size_t n)
{
	void *p = xmalloc(n);

	if (!p)
		exit(1);
	return p;
}

void *
ecalloc(size_t n, size_t size)
{
	void *p = xcalloc(n, size);

	if (!p)
		exit(1);
	return p;
}

void *
ereallocarray(void *p, size_t n, size_t size)
{
	if (!(p = xreallocarray(p, n, size)))
		exit(1);
	return p;
}

char *
estrdup(const char *s)
{
	char *p = xstrdup(s);

	if (!p)
		exit(1);
	return p;
}

void
buf_add(struct buf *b, const void *p, size_t n)
{
	size_t need;

	if (b->err)
		return;
	if (size_add(&need, b->len, n) < 0 || size_add(&need, need, 1) < 0 ||
	    xgrow(&b->s, &b->cap, need, 1) < 0) {
		b->err = 1;
		return;
	}
	if (n)
		memcpy(b->s + b->len, p, n);
	b->len += n;
	b->s[b->len] = 0;
}

void
buf_addc(struct buf *b, int c)
{
	char ch = (char)c;

	buf_add(b, &ch, 1);
}

void
buf_adds(struct buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

void
buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	char small[256];
	int n;

	if (b->err)
		return;
	va_start(ap, fmt);
	n = vsnprintf(small, sizeof small, fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->err = 1;
		error("cannot format '%s'", fmt);
		return;
	}
	if ((size_t)n < sizeof small) {
		buf_add(b, small, (size_t)n);
		return;
	}
	buf_add(b, NULL, 0);	/* make sure s exists before growing it */
	if (b->err || xgrow(&b->s, &b->cap, b->len + (size_t)n + 1, 1) < 0) {
		b->err = 1;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

int
buf_ok(const struct buf *b)
{
	return b->err ? -1 : 0;
}

void
buf_free(struct buf *b)
{
	free(b->s);
	memset(b, 0, sizeof *b);
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
	/* digits with an optional minus: strtoll would also take blanks
	 * and a plus, which no format and no option of ours writes */
	if (!(*s >= '0' && *s <= '9') &&
	    !(*s == '-' && s[1] >= '0' && s[1] <= '9'))
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
			warn("%s: write error:", name);
		ret = 1;
	}
	if (fclose(f) == EOF && !ret) {
		if (errno != EPIPE)
			warn("%s: write error:", name);
		ret = 1;
	}
	return ret;
}

/* The pages of [p, p + n) given back: the whole pages inside it, or
 * (outward) every page it touches. */
static void
drop_pages(const void *p, size_t n, int outward)
{
	uintptr_t a = (uintptr_t)p, e = a + n;
	uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);

	a = outward ? a & ~(pg - 1) : (a + pg - 1) & ~(pg - 1);
	e = outward ? (e + pg - 1) & ~(pg - 1) : e & ~(pg - 1);
	if (n && e > a)
		madvise((void *)a, e - a, MADV_DONTNEED);
}

void
mem_drop(const void *p, size_t n)
{
	drop_pages(p, n, 0);
}

void
mem_drop_file(const void *p, size_t n)
{
	drop_pages(p, n, 1);
}

int
exe_dir(char *buf, size_t n)
{
	ssize_t r = readlink("/proc/self/exe", buf, n);
	char *slash;

	if (r < 0)
		return -1;
	if ((size_t)r >= n) {
		errno = ENAMETOOLONG;
		return -1;
	}
	buf[r] = 0;
	if (!(slash = strrchr(buf, '/'))) {
		errno = ENOENT;
		return -1;
	}
	*slash = 0;
	return 0;
}

void
efflush(FILE *f, const char *name)
{
	if (fflush(f) == EOF) {
		if (errno != EPIPE)
			warn("%s: write error:", name);
		exit(1);
	}
}

void
version(void)
{
	printf("%s (pipelm) %s\n", argv0, PIPELM_VERSION);
	exit(fshut(stdout, "<stdout>"));
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

static void *
map_anon(size_t n, int flags)
{
	void *p;

	n = mem_roundup(n);
	p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS |
	    flags, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
#ifdef MADV_HUGEPAGE
	if (n >= (size_t)2 << 20)
		madvise(p, n, MADV_HUGEPAGE);
#endif
	return p;
}

void *
mem_map(size_t n)
{
	return map_anon(n, 0);
}

void *
mem_reserve(size_t n)
{
	return map_anon(n, MAP_NORESERVE);
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
	const char *s = getenv("PIPELM_THREADS"), *why;
	long long v;
	long n;

	if (s && *s) {
		if ((why = strtonum_err(s, 1, 1024, &v)))
			return error("invalid PIPELM_THREADS '%s': %s (expected "
			    "1 to 1024)", s, why);
		return (int)v;
	}
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
