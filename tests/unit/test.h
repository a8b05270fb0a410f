/* test.h: the unit tests' harness.  Checks count failures and say where
 * (the first 20 of them; a broken kernel would otherwise print
 * thousands), test_end() gives main its exit status.  Included by one .c
 * file each, so the statics are the test's own. */
#ifndef TEST_H
#define TEST_H

#include <stdarg.h>
#include <stdio.h>

#include "../../lib/base/util.h"

static int fails;
static const char *test_ctx;	/* said with each failure, e.g. the kernel table */

PRINTF(3, 4) __attribute__((unused)) static void
test_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	if (fails++ >= 20)
		return;
	fprintf(stderr, "%s:%d: ", file, line);
	if (test_ctx)
		fprintf(stderr, "%s: ", test_ctx);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

#define CHECK(c) do { if (!(c)) \
	test_fail(__FILE__, __LINE__, "check failed: %s", #c); } while (0)
/* CHECK with a message of its own */
#define CHECKF(c, ...) do { if (!(c)) \
	test_fail(__FILE__, __LINE__, __VA_ARGS__); } while (0)
#define EQ(a, b) do { long long a_ = (a), b_ = (b); if (a_ != b_) \
	test_fail(__FILE__, __LINE__, "%s = %lld, expected %lld", #a, a_, b_); \
	} while (0)
/* a within tol of b, relative where |b| > 1 */
#define NEAR(a, b, tol) do { double a_ = (a), b_ = (b); \
	if (!(fabs(a_ - b_) <= (tol) * (fabs(b_) > 1 ? fabs(b_) : 1))) \
		test_fail(__FILE__, __LINE__, "%s = %.17g, expected %.17g", \
		    #a, a_, b_); } while (0)

/* The end of main: "name: ok" on stdout, or the count on stderr. */
static int
test_end(const char *name)
{
	if (fails) {
		fprintf(stderr, "%s%s%s: %d failures\n", name,
		    test_ctx ? " " : "", test_ctx ? test_ctx : "", fails);
		return 1;
	}
	printf("%s%s%s: ok\n", name, test_ctx ? " " : "",
	    test_ctx ? test_ctx : "");
	return 0;
}

#ifdef KERN_H
#include <stdlib.h>
#include <string.h>

/* A kernel test's start: the table PIPELM_KERNEL names (kern_init), its
 * name said with each failure.  Where this CPU cannot run the avx2 or
 * avx512 table it names, "skip: ..." and exit status 0; any other
 * failure, exit status 1. */
__attribute__((unused)) static void
test_kern_init(void)
{
	const char *want = getenv("PIPELM_KERNEL");

	if (kern_init(want) < 0) {
		if (want && (!strcmp(want, "avx2") || !strcmp(want, "avx512"))) {
			printf("skip: this cpu cannot run the %s table\n", want);
			exit(0);
		}
		exit(1);
	}
	test_ctx = kern.name;
}
#endif

#endif
