/* test_frame.c: logits frames written and read back in every format;
 * malformed input refused; the reader stops at a frame's end. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../lib/stream/frame.h"
#include "../../lib/base/util.h"
#include "test.h"



/* Logits that need all nine digits, a tie, a denormal and a negative zero. */
static const float X[7] = {
	1.0f / 3, -2.5e-7f, 12345.678f, 1e-40f, -0.0f, 12345.678f, -3e38f
};

/* A temporary file holding the bytes s[0..n), positioned at 0. */
static FILE *
tmp(const void *s, size_t n)
{
	FILE *f = tmpfile();

	if (!f || fwrite(s, 1, n, f) != n)
		abort();
	rewind(f);
	return f;
}

static void
test_bin_roundtrip(void)
{
	struct frame_writer w;
	struct frame_reader r = { 0 };
	struct frame_hdr h = { 7, 3, 9, -1, 5 }, g;
	const float *x;
	FILE *f = tmpfile();
	unsigned char b[FRAME_HDRSIZE];

	CHECK(frame_writer_open(&w, f, "tmp", FRAME_BIN, 7, 0) == 0);
	CHECK(frame_write(&w, &h, X) == 0);
	h.record = 4;
	h.token = 42;
	CHECK(frame_write(&w, &h, X) == 0);
	CHECK(frame_writer_close(&w) == 0);
	EQ(ftell(f), 2 * (32 + 28));
	rewind(f);
	CHECK(fread(b, 1, sizeof(b), f) == sizeof(b));
	CHECK(!memcmp(b, "PLGT\1\0\5\0\7\0\0\0\3\0\0\0\11\0\0\0\377\377\377\377"
	    "\0\0\0\0\0\0\0\0", 32));
	rewind(f);
	EQ(frame_read(&r, f, "tmp", &g, &x), 1);
	EQ(ftell(f), 60);	/* no further than the frame's end */
	CHECK(!memcmp(x, X, sizeof(X)));
	EQ(g.vocab, 7); EQ(g.record, 3); EQ(g.position, 9); EQ(g.token, -1);
	EQ(g.flags, 5);
	EQ(frame_read(&r, f, "tmp", &g, &x), 1);
	EQ(g.record, 4); EQ(g.token, 42);
	CHECK(!memcmp(x, X, sizeof(X)));
	EQ(frame_read(&r, f, "tmp", &g, &x), 0);
	frame_reader_free(&r);
	fclose(f);
}

static void
test_text_roundtrip(void)
{
	struct frame_writer w;
	struct frame_reader r = { 0 };
	struct frame_hdr h = { 7, 1, 0, 0, 0 }, g;
	const float *x;
	FILE *f = tmpfile();
	long len;

	CHECK(frame_writer_open(&w, f, "tmp", FRAME_TEXT, 7, 0) == 0);
	CHECK(frame_write(&w, &h, X) == 0);
	CHECK(frame_write(&w, &h, X) == 0);
	CHECK(frame_writer_close(&w) == 0);
	len = ftell(f) / 2;
	rewind(f);
	EQ(frame_read(&r, f, "tmp", &g, &x), 1);
	EQ(ftell(f), len);	/* one line and no further */
	CHECK(!memcmp(x, X, sizeof(X)));	/* %.9g reads back exactly */
	EQ(g.vocab, 7); EQ(g.record, 1); EQ(g.token, -1);
	EQ(frame_read(&r, f, "tmp", &g, &x), 1);
	EQ(g.record, 2);
	EQ(frame_read(&r, f, "tmp", &g, &x), 0);
	frame_reader_free(&r);
	fclose(f);
}

static void
test_top(void)
{
	struct frame_writer w;
	struct frame_hdr h = { 7, 1, 0, 0, 0 };
	FILE *f = tmpfile();
	char buf[200];

	CHECK(frame_writer_open(&w, f, "tmp", FRAME_TOP, 7, 3) == 0);
	CHECK(frame_write(&w, &h, X) == 0);
	CHECK(frame_writer_close(&w) == 0);
	rewind(f);
	CHECK(fgets(buf, sizeof(buf), f) != NULL);
	CHECK(!strcmp(buf, "2:12345.6777 5:12345.6777 0:0.333333343\n"));
	fclose(f);
	/* K larger than vocab: all of them */
	f = tmpfile();
	CHECK(frame_writer_open(&w, f, "tmp", FRAME_TOP, 2, 10) == 0);
	CHECK(frame_write(&w, &h, (float[]){ -1, 1 }) == 0);
	CHECK(frame_writer_close(&w) == 0);
	rewind(f);
	CHECK(fgets(buf, sizeof(buf), f) != NULL);
	CHECK(!strcmp(buf, "1:1 0:-1\n"));
	fclose(f);
}

static void
test_npy(void)
{
	struct frame_writer w;
	struct frame_hdr h = { 7, 1, 0, 0, 0 };
	FILE *f = tmpfile();
	char hdr[128];
	float y[7];
	const char *dict = "{'descr': '<f4', 'fortran_order': False, "
	    "'shape': (3, 7), }";

	CHECK(frame_writer_open(&w, f, "tmp", FRAME_NPY, 7, 0) == 0);
	CHECK(frame_write(&w, &h, X) == 0);
	CHECK(frame_write(&w, &h, X) == 0);
	CHECK(frame_write(&w, &h, X) == 0);
	CHECK(frame_writer_close(&w) == 0);
	EQ(ftell(f), 128 + 3 * 28);	/* left at the end */
	rewind(f);
	CHECK(fread(hdr, 1, 128, f) == 128);
	CHECK(!memcmp(hdr, "\x93NUMPY\1\0\x76\0", 10));
	CHECK(!memcmp(hdr + 10, dict, strlen(dict)));
	CHECK(hdr[10 + strlen(dict)] == ' ' && hdr[126] == ' ');
	CHECK(hdr[127] == '\n');
	CHECK(fseek(f, 128 + 2 * 28, SEEK_SET) == 0);
	CHECK(fread(y, 4, 7, f) == 7 && !memcmp(y, X, sizeof(X)));
	fclose(f);
}

/* npy refuses a pipe: its header is patched at the end. */
static void
test_npy_pipe(void)
{
	struct frame_writer w;
	int fd[2];
	FILE *f;

	CHECK(pipe(fd) == 0);
	CHECK((f = fdopen(fd[1], "w")) != NULL);
	fprintf(stderr, "(expect a message)\n");
	CHECK(frame_writer_open(&w, f, "pipe", FRAME_NPY, 7, 0) < 0);
	CHECK(frame_writer_close(&w) == 0);
	fclose(f);
	close(fd[0]);
}

/* A frame is returned as soon as it is complete, while the writer keeps
 * the pipe open (a feedback loop): the reader must not wait for more. */
static void
test_pipe_open(void)
{
	struct frame_reader r = { 0 };
	struct frame_hdr h;
	const float *x;
	int fd[2];
	FILE *f;

	CHECK(pipe(fd) == 0);
	CHECK(write(fd[1], "1 2 3\n", 6) == 6);
	CHECK((f = fdopen(fd[0], "r")) != NULL);
	EQ(frame_read(&r, f, "pipe", &h, &x), 1);
	CHECK(x[0] == 1 && x[2] == 3);
	CHECK(write(fd[1], "4 5 6\n", 6) == 6);
	EQ(frame_read(&r, f, "pipe", &h, &x), 1);
	CHECK(x[0] == 4 && x[2] == 6);
	close(fd[1]);
	EQ(frame_read(&r, f, "pipe", &h, &x), 0);
	fclose(f);
	frame_reader_free(&r);
}

static void
test_fmt(void)
{
	enum frame_fmt f;

	CHECK(frame_parse_fmt("bin", &f) == 0 && f == FRAME_BIN);
	CHECK(frame_parse_fmt("text", &f) == 0 && f == FRAME_TEXT);
	CHECK(frame_parse_fmt("top", &f) == 0 && f == FRAME_TOP);
	CHECK(frame_parse_fmt("npy", &f) == 0 && f == FRAME_NPY);
	CHECK(frame_parse_fmt("txt", &f) < 0);
}

/* Read frames from s[0..n) until the end or an error: the last result. */
static int
read_all(const void *s, size_t n, int *frames)
{
	struct frame_reader r = { 0 };
	struct frame_hdr h;
	const float *x;
	FILE *f = tmp(s, n);
	int k;

	*frames = 0;
	while ((k = frame_read(&r, f, "t", &h, &x)) == 1)
		++*frames;
	frame_reader_free(&r);
	fclose(f);
	return k;
}

/* A bin frame of vocab 2 with logits a and b (little-endian bit patterns). */
static size_t
binframe(unsigned char *p, uint32_t vocab, uint32_t a, uint32_t b)
{
	memset(p, 0, 40);
	memcpy(p, "PLGT\1\0\0\0", 8);
	p[8] = vocab & 0xff;
	p[9] = vocab >> 8 & 0xff;
	p[10] = vocab >> 16 & 0xff;
	p[11] = vocab >> 24;
	memcpy(p + 32, &a, 4);
	memcpy(p + 36, &b, 4);
	return 40;
}

static void
test_malformed(void)
{
	unsigned char b[200];
	size_t n;
	int fr;

	fprintf(stderr, "(expect messages)\n");
	/* good: two frames */
	n = binframe(b, 2, 0x3f800000, 0x40000000);
	n += binframe(b + n, 2, 0, 0);
	EQ(read_all(b, n, &fr), 0);
	EQ(fr, 2);
	EQ(read_all(b, n - 1, &fr), -1);	/* truncated logits */
	EQ(fr, 1);
	EQ(read_all(b, 40 + 20, &fr), -1);	/* truncated header */
	EQ(fr, 1);
	b[40 + 3] = 'X';			/* bad magic in frame 2 */
	EQ(read_all(b, n, &fr), -1);
	EQ(fr, 1);
	binframe(b + 40, 3, 0, 0);		/* vocab changes */
	EQ(read_all(b, 80, &fr), -1);
	EQ(fr, 1);
	n = binframe(b, 2, 0x7fc00000, 0);	/* NaN */
	EQ(read_all(b, n, &fr), -1);
	n = binframe(b, 2, 0xff800000, 0);	/* -inf */
	EQ(read_all(b, n, &fr), -1);
	n = binframe(b, 0, 0, 0);		/* vocab 0 */
	EQ(read_all(b, 32, &fr), -1);
	n = binframe(b, 0xffffffff, 0, 0);	/* vocab absurd */
	EQ(read_all(b, n, &fr), -1);
	n = binframe(b, 2, 0, 0);
	b[4] = 2;				/* version 2 */
	EQ(read_all(b, n, &fr), -1);
	EQ(read_all("", 0, &fr), 0);		/* empty input: no frames */
	EQ(fr, 0);
	EQ(read_all("\0\1", 2, &fr), -1);	/* neither */
	EQ(read_all("#1 2\n", 5, &fr), -1);

#define T(s) read_all(s, strlen(s), &fr)
	EQ(T("1 2 3\n-4 5e-3 6\n"), 0);
	EQ(fr, 2);
	EQ(T("1 2 3\n-4 5e-3 6"), -1);		/* no newline at the end */
	EQ(fr, 1);
	EQ(T("1 2 3\n4 5\n"), -1);		/* vocab changes */
	EQ(T("1 2 3\n4 5 6 7\n"), -1);
	EQ(T("1 2 3\n\n"), -1);			/* empty line */
	EQ(T("1 2 nan\n"), -1);
	EQ(T("inf 2 3\n"), -1);
	EQ(T("1 2 1e39\n"), -1);		/* overflows float */
	EQ(T("1 2 3x\n"), -1);
	EQ(T("1 2,3\n"), -1);
	EQ(T("  1\t2  3 \r\n"), 0);		/* blanks and CRLF are fine */
	EQ(read_all("1 2\0 3\n", 7, &fr), -1);	/* NUL */
#undef T
}

int
main(int argc, char *argv[])
{
	(void)argc;
	argv0 = argv[0];
	test_bin_roundtrip();
	test_text_roundtrip();
	test_top();
	test_npy();
	test_npy_pipe();
	test_pipe_open();
	test_fmt();
	test_malformed();
	return test_end("test_frame");
}
