#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

#include "base/pump.h"

enum { PUMP_MAX = 8 };

int
pump(int out, const char *data, size_t n, const int *errfd,
    struct buf *errs, int nerr)
{
	struct pollfd pf[PUMP_MAX + 1];
	int open[PUMP_MAX], i, k, left, ret = 0;
	size_t off = 0;
	char chunk[4096];
	ssize_t r;

	if (nerr > PUMP_MAX)
		return error("pump: %d streams, at most %d", nerr, PUMP_MAX);
	for (i = 0; i < nerr; i++)
		open[i] = 1;
	left = nerr;
	if (out >= 0 && n == 0) {
		close(out);
		out = -1;
	}
	if (out >= 0)
		fcntl(out, F_SETFL, fcntl(out, F_GETFL) | O_NONBLOCK);
	while (out >= 0 || left > 0) {
		k = 0;
		for (i = 0; i < nerr; i++)
			if (open[i])
				pf[k].fd = errfd[i], pf[k].events = POLLIN, k++;
		if (out >= 0)
			pf[k].fd = out, pf[k].events = POLLOUT, k++;
		if (poll(pf, (nfds_t)k, -1) < 0) {
			if (errno == EINTR)
				continue;
			ret = error("poll:");
			break;
		}
		if (out >= 0 && pf[k - 1].revents) {
			r = write(out, data + off, n - off);
			if (r > 0)
				off += (size_t)r;
			/* a reader gone (EPIPE) or done: not ours to say */
			if (off == n || (r < 0 && errno != EAGAIN &&
			    errno != EINTR)) {
				close(out);
				out = -1;
			}
		}
		for (i = 0, k = 0; i < nerr; i++) {
			if (!open[i])
				continue;
			if (pf[k++].revents == 0)
				continue;
			r = read(errfd[i], chunk, sizeof chunk);
			if (r > 0) {
				buf_add(&errs[i], chunk, (size_t)r);
				continue;
			}
			if (r < 0 && (errno == EINTR || errno == EAGAIN))
				continue;
			if (r < 0)
				ret = error("read a stage's messages:");
			close(errfd[i]);
			open[i] = 0;
			left--;
		}
	}
	if (out >= 0)
		close(out);
	for (i = 0; i < nerr; i++)
		if (open[i])
			close(errfd[i]);
	return ret;
}

/* the text of line s (len n) after its "prog: " */
static const char *
text_of(const char *s, size_t n, size_t *tn)
{
	const char *c = memchr(s, ':', n);

	if (!c || c + 1 >= s + n || c[1] != ' ' || memchr(s, ' ', (size_t)(c - s))) {
		*tn = n;
		return s;
	}
	*tn = n - (size_t)(c + 2 - s);
	return c + 2;
}

/* 1 if the text of line s (len n) is that of an earlier line of errs */
static int
said(const struct buf *errs, int nerr, const char *s, size_t n)
{
	const char *t = NULL, *p, *e, *u;
	size_t tn = 0, un;
	int i;

	t = text_of(s, n, &tn);
	for (i = 0; i < nerr; i++)
		for (p = errs[i].s; p && p < errs[i].s + errs[i].len; p = e + 1) {
			if (p == s)
				return 0;
			if (!(e = memchr(p, '\n', errs[i].len - (size_t)(p - errs[i].s))))
				e = errs[i].s + errs[i].len;
			u = text_of(p, (size_t)(e - p), &un);
			if (un == tn && !memcmp(u, t, tn))
				return 1;
		}
	return 0;
}

void
pump_say(FILE *f, const struct buf *errs, int nerr)
{
	const char *p, *e;
	int i;

	for (i = 0; i < nerr; i++)
		for (p = errs[i].s; p && p < errs[i].s + errs[i].len; p = e + 1) {
			if (!(e = memchr(p, '\n', errs[i].len - (size_t)(p - errs[i].s))))
				e = errs[i].s + errs[i].len;
			if (!said(errs, nerr, p, (size_t)(e - p))) {
				fwrite(p, 1, (size_t)(e - p), f);
				fputc('\n', f);
			}
		}
	fflush(f);
}
