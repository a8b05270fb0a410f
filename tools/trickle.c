/* trickle: copy standard input to standard output slowly (tests only),
 * so that the reader meets short reads: one write(2) of at most -b
 * bytes (default 1) every -d microseconds (default 1000).
 *
 * usage: trickle [-b bytes] [-d usec] */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void
usage(void)
{
	fputs("usage: trickle [-b bytes] [-d usec]\n", stderr);
	exit(2);
}

int
main(int argc, char **argv)
{
	char buf[65536];
	long b = 1, d = 1000;
	ssize_t n, i, w;
	struct timespec ts;
	int c;

	while ((c = getopt(argc, argv, "b:d:")) != -1) {
		if (c == 'b')
			b = strtol(optarg, NULL, 10);
		else if (c == 'd')
			d = strtol(optarg, NULL, 10);
		else
			usage();
	}
	if (optind != argc || b < 1 || b > (long)sizeof buf || d < 0 || d > 10000000)
		usage();
	ts.tv_sec = d / 1000000;
	ts.tv_nsec = d % 1000000 * 1000;
	while ((n = read(0, buf, (size_t)b)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			perror("trickle: read");
			return 1;
		}
		for (i = 0; i < n; i += w)
			if ((w = write(1, buf + i, (size_t)(n - i))) < 0) {
				if (errno == EINTR) {
					w = 0;
					continue;
				}
				perror("trickle: write");
				return 1;
			}
		while (d && nanosleep(&ts, &ts) < 0 && errno == EINTR)
			;
		ts.tv_sec = d / 1000000;
		ts.tv_nsec = d % 1000000 * 1000;
	}
	return 0;
}
