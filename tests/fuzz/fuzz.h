/* fuzz.h: what the libFuzzer harnesses share.  Each harness is one .c
 * file defining LLVMFuzzerTestOneInput; `make fuzz` builds them with
 * clang -fsanitize=fuzzer,address,undefined against the sanitizer
 * libcore and runs each on its corpus (tests/fuzz/corpus/NAME). */
#ifndef FUZZ_H
#define FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../lib/base/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* The messages name the harness, as programs name themselves.  A harness
 * that sets more up defines FUZZ_INIT and its own LLVMFuzzerInitialize. */
#ifndef FUZZ_INIT
int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	argv0 = (*argv)[0];
	return 0;
}
#endif

/* Bytes as a file, for loaders that take a path: file k (0..3) has one
 * name per process (the pid in it, so parallel fuzzers do not share
 * one) ending in suffix, rewritten each time and removed at exit.  Its
 * path, or NULL if it could not be written (the input is then skipped). */
static char fuzz_paths[4][256];

static void
fuzz_unlink(void)
{
	int k;

	for (k = 0; k < 4; k++)
		if (*fuzz_paths[k])
			unlink(fuzz_paths[k]);
}

__attribute__((unused)) static const char *
fuzz_file(int k, const char *suffix, const void *data, size_t size)
{
	static int registered;
	char *path = fuzz_paths[k];
	FILE *f;

	if (!registered++)
		atexit(fuzz_unlink);
	snprintf(path, sizeof fuzz_paths[k], "/tmp/pipelm-fuzz-%ld-%d%s",
	    (long)getpid(), k, suffix);
	if (!(f = fopen(path, "wb")))
		return NULL;
	if (size && fwrite(data, 1, size, f) != size) {
		fclose(f);
		return NULL;
	}
	return fclose(f) ? NULL : path;
}

/* A finding the sanitizers would not see (a promise broken, not memory
 * misused): say it and abort, which libFuzzer records as a crash.  The
 * harness's stderr is closed while it fuzzes (tests/fuzz/run), so the
 * line also goes to $PIPELM_FUZZ_LOG when that is set. */
#define FUZZ_ASSERT(c) do { if (!(c)) \
	fuzz_broken(__FILE__, __LINE__, #c); } while (0)

__attribute__((unused, noreturn)) static void
fuzz_broken(const char *file, int line, const char *what)
{
	const char *log = getenv("PIPELM_FUZZ_LOG");
	FILE *f;

	fprintf(stderr, "%s:%d: broken: %s\n", file, line, what);
	if (log && (f = fopen(log, "a"))) {
		fprintf(f, "%s:%d: broken: %s\n", file, line, what);
		fclose(f);
	}
	abort();
}

/* The CPU time this process has used, in seconds: for the harnesses
 * whose bound of work has no counter of its own (jinja, tokjson), which
 * assert that one input takes less than FUZZ_CPU_BOUND of it.  That is
 * far above what any input should take under the limits they set (a few
 * milliseconds, sanitizers included) and far below libFuzzer's -timeout
 * (20 s in tests/fuzz/run), so that work quadratic in a 64 KiB input is
 * a finding where the timeout would let it pass. */
#include <time.h>
#define FUZZ_CPU_BOUND 1.0

__attribute__((unused)) static double
fuzz_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

#endif
