/* util.h: messages, checked allocation and number parsing.
 *
 * warn() and error() are for anyone; die() and the e* helpers exit and are
 * for cmd/ only: library code reports with error() and returns. */
#ifndef UTIL_H
#define UTIL_H

#include <stddef.h>
#include <stdio.h>

#define PIPELM_VERSION "0.1.0"

#define LEN(a) (sizeof(a) / sizeof((a)[0]))
#define PRINTF(f, a) __attribute__((format(printf, f, a)))

extern const char *argv0;	/* program name for messages, set by main */

/* "argv0: message" on stderr; a format ending in ':' gets ": strerror(errno)". */
void warn(const char *fmt, ...) PRINTF(1, 2);
/* Send every message of warn(), error() and die() to fn (the text
 * without the "argv0: " prefix) instead of stderr; NULL restores
 * stderr.  Set once, before any thread starts: the C API (lib/api) keeps
 * each thread's last message for pipelm_errmsg. */
void warn_hook(void (*fn)(const char *msg));
/* warn(), then return -1, so library code can write `return error(...)`. */
int error(const char *fmt, ...) PRINTF(1, 2);
/* warn(), then exit(1). */
_Noreturn void die(const char *fmt, ...) PRINTF(1, 2);
/* warn(), then exit(status). */
_Noreturn void edie(int status, const char *fmt, ...) PRINTF(2, 3);

/* Allocation for library code: NULL after error("cannot allocate ...").
 * A size of 0 still gives a unique pointer. */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xreallocarray(void *p, size_t n, size_t size);
char *xstrdup(const char *s);
char *xmemdup(const void *s, size_t n);	/* n bytes and a NUL */
/* The folder of file path, what comes before its last slash ("." for a
 * bare name, "/" for one in the root), malloc'd; NULL after error(). */
char *path_dir(const char *path);
/* Make the array *pp of elements of size hold at least n, its capacity in
 * *cap (doubled as it grows, from 8): 0, or -1 after error() (the array
 * is then as it was). */
int xgrow(void *pp, size_t *cap, size_t n, size_t size);

/* The same for cmd/: the message, then exit(1). */
void *emalloc(size_t n);
void *ecalloc(size_t n, size_t size);
void *ereallocarray(void *p, size_t n, size_t size);
char *estrdup(const char *s);

/* A growable string: s holds len bytes and a NUL (s is NULL until the
 * first addition).  An allocation that fails sets err (after error())
 * and makes every later addition do nothing, so a writer checks once,
 * with buf_ok, when it is done.  Zero it to start. */
struct buf {
	char *s;
	size_t len, cap;
	int err;
};
void buf_add(struct buf *b, const void *p, size_t n);
void buf_addc(struct buf *b, int c);
void buf_adds(struct buf *b, const char *s);
void buf_printf(struct buf *b, const char *fmt, ...) PRINTF(2, 3);
int buf_ok(const struct buf *b);	/* 0, or -1 if an addition failed */
void buf_free(struct buf *b);		/* and zero it */

/* Zeroed anonymous memory for large buffers (KV cache, arenas, tables):
 * mmap'd, with transparent huge pages advised, since first-touch page
 * faults are costly and huge pages take far fewer of them (bench/NOTES.md,
 * "First-touch faults").  NULL on failure (errno set); free with
 * mem_unmap(p, n) using the same n. */
void *mem_map(size_t n);
/* As mem_map, with no swap reserved for it (MAP_NORESERVE): for an
 * address range far larger than what is touched (a KV block pool of N
 * contexts), which the kernel's overcommit heuristic would otherwise
 * refuse; a page touched when memory is gone is then a SIGBUS/OOM, not a
 * NULL here.  Free with mem_unmap. */
void *mem_reserve(size_t n);
/* mmap len bytes of fd from offset 0, read-only and private, at an
 * address aligned to 2 MiB and with transparent huge pages advised: when
 * the kernel reads the file into the page cache through such a mapping
 * (and the file system allows large folios) it uses 2 MiB folios and
 * maps them whole, which streams the weights faster (bench/NOTES.md); the
 * folios remain the page cache's, shared with every process mapping the
 * file.  Pages cached earlier (the file was just written or copied) stay
 * as they are.  MAP_FAILED on failure (errno set); munmap(p, len). */
void *file_map(int fd, size_t len);
void mem_unmap(void *p, size_t n);
/* Let the kernel take back the whole pages of [p, p + n) of a file
 * mapping: weights converted into private memory are not read again
 * from it, and would double the resident size (reading them again faults
 * them back in from the file).  Of private memory (a mode's copy
 * packed again, model_mode.c) the bytes are lost: only for what is
 * never read again. */
void mem_drop(const void *p, size_t n);
/* The same for every page that [p, p + n) touches, rounded outward: only
 * for a read-only file mapping (an embedding row read out of the
 * model's file, which the kernel maps in a 2 MiB folio at a time). */
void mem_drop_file(const void *p, size_t n);

/* Overflow-checked size arithmetic: 0 on success, -1 on overflow. */
int size_mul(size_t *r, size_t a, size_t b);
int size_add(size_t *r, size_t a, size_t b);

/* Parse a whole decimal integer in [min, max], digits with an optional
 * minus and nothing else (no blanks, no plus); NULL on success, else a
 * static reason ("not a number", "too small", "too large"). */
const char *strtonum_err(const char *s, long long min, long long max, long long *out);
/* The same, for an option: exit 2 with "invalid NAME 'S': reason". */
long long estrtonum(const char *s, long long min, long long max, const char *name);
/* A finite float in [min, max], the same way. */
double estrtod(const char *s, double min, double max, const char *name);

/* Flush and check a stream; on error warn naming it and return 1, else 0.
 * A write that failed with EPIPE is quiet. */
int fshut(FILE *f, const char *name);
/* fflush(f); if that fails, fshut's message (none for EPIPE) and exit(1):
 * for the programs that flush after each record, where a failed write
 * must stop the run at once. */
void efflush(FILE *f, const char *name);

/* Worker threads to use by default: $PIPELM_THREADS if set (1 to 1024),
 * else the online CPUs (at least 1); -1 after error() if PIPELM_THREADS
 * is set but not such a number (the caller exits 2, as for a bad -t). */
int default_threads(void);
/* Seconds on the monotonic clock, for --timing. */
double now_seconds(void);

/* The folder of the running program (from /proc/self/exe) into buf
 * (n bytes): 0, or -1 (errno set) where it cannot be had. */
int exe_dir(char *buf, size_t n);

/* Print the version line and exit: 0, or 1 if it could not be written. */
_Noreturn void version(void);

#endif
