/* test_rec.c: the two readers of token records, rec_read (whole records)
 * and idstream (id by id), give the same records and fail at the same
 * record on the same bytes: fixed cases from pipelm-formats(5), then
 * random byte strings over the bytes that matter, in both framings; and
 * how each goes past a bad record (ids_skip, batch_next: --keep-going). */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../lib/stream/batch.h"
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

/* The ids_next items of s after skipping the record that holds the
 * first id equal to bad (or failed to read): ids and -1 at each end,
 * -2 at the end of the input, -3 where the skip failed. */
static void
skipped(const void *s, size_t n, enum rec_fmt fmt, int bad, const int *want)
{
	FILE *f = tmp(s, n);
	static struct idstream in;
	int got, id, i = 0, k = 0, out[32];

	ids_init(&in, fileno(f), "t", fmt, NULL);
	while (k < 30) {
		got = ids_next(&in, &id);
		if (got == 0)
			break;
		if (got < 0 || (got == 1 && id == bad)) {
			if (ids_skip(&in) < 0) {
				out[k++] = -3;
				break;
			}
			out[k++] = -1;	/* the bad record ended */
			continue;
		}
		out[k++] = got == 1 ? id : -1;
	}
	if (k < 31 && (k == 0 || out[k - 1] != -3))
		out[k++] = -2;
	for (i = 0; i < k && want[i] != -9; i++)
		CHECKF(out[i] == want[i], "skip case %d: item %d is %d, expected "
		    "%d", bad, i, out[i], want[i]);
	CHECKF(i == k && want[i] == -9, "skip case %d: %d items", bad, k);
	fclose(f);
}

static void
test_skip(void)
{
	static const unsigned char u[] = {
		2, 0, 0, 0, 1, 0, 0, 0, 98, 0, 0, 0,	/* [1 98] */
		1, 0, 0, 0, 3, 0, 0, 0,			/* [3] */
	};
	static const unsigned char ubig[] = { 0xff, 0xff, 0xff, 0xff, 1, 0, 0, 0 };
	static const unsigned char uid[] = {
		2, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 5, 0, 0, 0,	/* an id too large */
		1, 0, 0, 0, 3, 0, 0, 0,
	};
	struct rec_files rf;
	struct rec r = { 0 };
	struct batch b = { 1, 0, 0 };

	/* text: a bad id mid-record, at its end, at the end of the input */
	skipped("1 99 2\n3\n", 9, REC_TEXT, 99, (int[]){ 1, -1, 3, -1, -2, -9 });
	skipped("1 99\n3\n", 7, REC_TEXT, 99, (int[]){ 1, -1, 3, -1, -2, -9 });
	skipped("3\n1 99", 6, REC_TEXT, 99, (int[]){ 3, -1, 1, -1, -2, -9 });
	/* text: a malformed record, its rest skipped to the newline */
	skipped("1 2\n3 x 4\n5\n", 12, REC_TEXT, -1,
	    (int[]){ 1, 2, -1, 3, -1, 5, -1, -2, -9 });
	skipped("1\r2 3\n5", 7, REC_TEXT, -1, (int[]){ 1, -1, 5, -1, -2, -9 });
	/* u32: the rest of the record by its count; a bad count stops */
	skipped(u, sizeof(u), REC_U32, 98, (int[]){ 1, -1, 3, -1, -2, -9 });
	skipped(uid, sizeof(uid), REC_U32, -1, (int[]){ -1, 3, -1, -2, -9 });
	skipped(ubig, sizeof(ubig), REC_U32, -1, (int[]){ -3, -9 });

	/* batch_next: a malformed text record is 2, counted; u32 stops */
	rec_files_init(&rf, NULL, 0, REC_TEXT);
	rf.fl.f = tmp("1 2\n3 x 4\n\n5\n", 13);
	rf.fl.name = "t";
	EQ(batch_next(&b, &rf, &r), 1);
	EQ(r.n, 2);
	EQ(batch_next(&b, &rf, &r), 2);
	EQ(batch_next(&b, &rf, &r), 1);
	EQ(r.n, 0);
	EQ(r.no, 3);
	EQ(batch_next(&b, &rf, &r), 1);
	EQ(r.ids[0], 5);
	EQ(r.no, 4);
	EQ(b.nrec, 4);
	EQ(b.failed, 1);
	fclose(rf.fl.f);
	rf.fl.f = NULL;
	rec_files_init(&rf, NULL, 0, REC_U32);
	rf.fl.f = tmp(ubig, sizeof(ubig));
	rf.fl.name = "t";
	EQ(batch_next(&b, &rf, &r), -1);
	EQ(b.failed, 2);
	fclose(rf.fl.f);
	/* without --keep-going a bad record stops */
	b.keepgoing = 0;
	rec_files_init(&rf, NULL, 0, REC_TEXT);
	rf.fl.f = tmp("x\n1\n", 4);
	rf.fl.name = "t";
	EQ(batch_next(&b, &rf, &r), -1);
	fclose(rf.fl.f);
	rec_free(&r);
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
	test_skip();
	fflush(stderr);
	dup2(saved, 2);
	close(null);
	close(saved);
	return test_end("test_rec");
}
