/* test_rec.c: the two readers of token records, rec_read (whole records)
 * and idstream (id by id), give the same records and fail at the same
 * record on the same bytes: fixed cases from pipelm-formats(5), then
 * random byte strings over the bytes that matter, in both framings. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../lib/stream/idstream.h"
#include "../../lib/stream/rec.h"
#include "test.h"

#define MAXOUT 512

/* What a reader made of an input: the ids of the records it finished,
 * with -1 closing each, and whether and at which record it failed. */
struct result {
	int v[MAXOUT];
	int n;
	int err;
	unsigned long long errno_;
};

static void
put(struct result *res, int x)
{
	if (res->n < MAXOUT)
		res->v[res->n++] = x;
}

/* A temporary file holding s[0..n), at offset 0. */
static FILE *
tmp(const void *s, size_t n)
{
	FILE *f = tmpfile();

	if (!f || (n && fwrite(s, 1, n, f) != n) || fflush(f) == EOF)
		abort();
	rewind(f);
	return f;
}

static void
by_rec(const void *s, size_t n, enum rec_fmt fmt, struct result *res)
{
	FILE *f = tmp(s, n);
	struct rec r = { 0 };
	size_t i;
	int got;

	memset(res, 0, sizeof(*res));
	while ((got = rec_read(&r, f, "t", fmt)) > 0) {
		for (i = 0; i < r.n; i++)
			put(res, r.ids[i]);
		put(res, -1);
	}
	if (got < 0) {
		res->err = 1;
		res->errno_ = r.no;
	}
	rec_free(&r);
	fclose(f);
}

static void
by_ids(const void *s, size_t n, enum rec_fmt fmt, struct result *res)
{
	FILE *f = tmp(s, n);
	static struct idstream in;
	int got, id, start = 0;

	memset(res, 0, sizeof(*res));
	ids_init(&in, fileno(f), "t", fmt, NULL);
	while ((got = ids_next(&in, &id)) > 0) {
		if (got == 1) {
			put(res, id);
		} else {
			put(res, -1);
			start = res->n;
		}
	}
	if (got < 0) {
		res->err = 1;
		res->errno_ = in.no;
		res->n = start;	/* rec_read gives nothing of a bad record */
	}
	fclose(f);
}

static int
same(const struct result *a, const struct result *b)
{
	return a->n == b->n && !memcmp(a->v, b->v, a->n * sizeof(int)) &&
	    a->err == b->err && (!a->err || a->errno_ == b->errno_);
}

/* s (n bytes) in framing fmt reads as want (ids, -1 ends a record, -2
 * ends the list) or, with bad, fails after those records. */
static void
expect(const char *s, size_t n, enum rec_fmt fmt, const int *want, int bad)
{
	struct result a, b;
	int i;

	by_rec(s, n, fmt, &a);
	by_ids(s, n, fmt, &b);
	for (i = 0; want[i] != -2; i++)
		;
	CHECKF(a.n == i && !memcmp(a.v, want, i * sizeof(int)) && a.err == bad,
	    "rec_read of '%.*s': %d ids, err %d", (int)n, s, a.n, a.err);
	CHECKF(same(&a, &b), "readers differ on '%.*s'", (int)n, s);
}

static void
test_cases(void)
{
	static const int w1[] = { 1, 2, 3, -1, -2 };
	static const int w2[] = { -1, 7, -1, -2 };
	static const int w3[] = { 5, -1, -2 };
	static const int none[] = { -2 };

	expect("1 2 3\n", 6, REC_TEXT, w1, 0);
	expect("1\t2 3\r\n", 7, REC_TEXT, w1, 0);	/* the input */
	expect("  1   2\t\t3  \n", 13, REC_TEXT, w1, 0);
	expect("1 2 3", 5, REC_TEXT, w1, 0);
	expect("1 2 3\r", 6, REC_TEXT, w1, 0);
	expect("001 2 03\n", 9, REC_TEXT, w1, 0);
	expect("\n7\n", 3, REC_TEXT, w2, 0);
	expect(" \r\n007", 6, REC_TEXT, w2, 0);
	expect("", 0, REC_TEXT, none, 0);
	expect("5\n1\r2\n", 6, REC_TEXT, w3, 1);
	expect("5\n1,2\n", 6, REC_TEXT, w3, 1);
	expect("5\n-1\n", 5, REC_TEXT, w3, 1);
	expect("5\n2147483648\n", 13, REC_TEXT, w3, 1);
	expect("5\n2147483647 x", 14, REC_TEXT, w3, 1);
	expect("5\n1\0", 5, REC_TEXT, w3, 1);
	expect("\1\0\0\0\5\0\0\0", 8, REC_U32, w3, 0);
	expect("\1\0\0\0\5\0\0\0\2\0\0\0\1\0\0\0", 16, REC_U32, w3, 1);
	expect("\1\0\0\0\5\0\0\0\1\0\0\020", 12, REC_U32, w3, 1);
	expect("\1\0\0\0\5\0\0\0\1\0\0\0\0\0\0\200", 16, REC_U32, w3, 1);
	expect("\1\0\0\0\5\0\0\0\1\0", 10, REC_U32, w3, 1);
}

static void
test_random(void)
{
	static const char alpha[] = "0123456789  \t\r\n\n,x\0\377";
	uint64_t r = 88172645463325252ull;
	char s[48];
	struct result a, b;
	int k, i, n;

	for (k = 0; k < 20000; k++) {
		r ^= r << 13, r ^= r >> 7, r ^= r << 17;
		n = (int)(r % sizeof(s));
		for (i = 0; i < n; i++) {
			r ^= r << 13, r ^= r >> 7, r ^= r << 17;
			s[i] = k & 1 ? (char)(r >> 24) % 3 :
			    alpha[(r >> 24) % (sizeof(alpha) - 1)];
		}
		by_rec(s, n, k & 1 ? REC_U32 : REC_TEXT, &a);
		by_ids(s, n, k & 1 ? REC_U32 : REC_TEXT, &b);
		CHECKF(same(&a, &b), "case %d: readers differ (%d/%d ids, "
		    "err %d/%d at %llu/%llu)", k, a.n, b.n, a.err, b.err,
		    a.errno_, b.errno_);
	}
}

int
main(void)
{
	int null = open("/dev/null", O_WRONLY), saved = dup(2);

	argv0 = "test_rec";
	test_cases();
	/* the readers' messages, thousands of them, are not the point */
	fflush(stderr);
	dup2(null, 2);
	test_random();
	fflush(stderr);
	dup2(saved, 2);
	close(null);
	close(saved);
	return test_end("test_rec");
}
