/* st_guard.c: a mapped file that shrinks under us.
 *
 * The weights are used in place from the mapping.  If the file is
 * truncated, or rewritten in place shorter, while a program runs, a read
 * of a page past its new end raises SIGBUS, which would kill the program
 * without a word and leave its last record half written.  The handler
 * names the file and exits 1.  (A file replaced by rename(2), as
 * downloaders and editors do, is a new inode: the mapping keeps the old
 * one and nothing happens.)
 *
 * st_map_path opens, checks and maps such a file and registers it, for
 * the safetensors and the GGUF readers alike. */
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "disk/st.h"
#include "base/util.h"

#define NGUARD 64

static struct guard {
	const char *base;	/* NULL: a free slot */
	size_t len;
	char msg[512];		/* said by the handler, made beforehand */
	size_t msglen;
} guards[NGUARD];

static void
onbus(int sig, siginfo_t *si, void *uc)
{
	static const char other[] = ": bus error outside the mapped model "
	    "files\n";
	const char *a = si->si_addr;
	size_t i;

	(void)sig, (void)uc;
	for (i = 0; i < NGUARD; i++)
		if (guards[i].base && a >= guards[i].base &&
		    a < guards[i].base + guards[i].len) {
			(void)!write(2, guards[i].msg, guards[i].msglen);
			_exit(1);
		}
	(void)!write(2, argv0, strlen(argv0));
	(void)!write(2, other, sizeof other - 1);
	_exit(1);
}

void
st_guard_add(const void *base, size_t len, const char *path)
{
	static int installed;
	struct sigaction sa;
	size_t i;
	int n;

	if (!installed) {
		memset(&sa, 0, sizeof sa);
		sa.sa_sigaction = onbus;
		sa.sa_flags = SA_SIGINFO;
		sigemptyset(&sa.sa_mask);
		if (sigaction(SIGBUS, &sa, NULL) == 0)
			installed = 1;
	}
	for (i = 0; i < NGUARD && guards[i].base; i++)
		;
	if (i == NGUARD)
		return;		/* more files than slots: the default death */
	n = snprintf(guards[i].msg, sizeof guards[i].msg, "%s: %s: the file "
	    "shrank while in use (truncated or rewritten in place)\n",
	    argv0, path);
	if (n < 0)
		return;
	guards[i].msglen = (size_t)n < sizeof guards[i].msg ? (size_t)n :
	    sizeof guards[i].msg - 1;
	guards[i].len = len;
	guards[i].base = base;
}

void
st_guard_drop(const void *base)
{
	size_t i;

	for (i = 0; i < NGUARD; i++)
		if (guards[i].base == base)
			guards[i].base = NULL;
}

int
st_map_path(const char *path, size_t min, const char *what, void **base,
    size_t *len)
{
	struct stat sb;
	int fd, r = 0;

	if ((fd = open(path, O_RDONLY | O_NONBLOCK)) < 0)
		return error("%s:", path);
	if (fstat(fd, &sb) < 0)
		r = error("%s:", path);
	else if (S_ISDIR(sb.st_mode))
		r = error("%s: is a directory", path);
	else if (!S_ISREG(sb.st_mode))
		r = error("%s: not a regular file", path);
	else if ((uintmax_t)sb.st_size < min)
		r = error("%s: file too short for %s (%lld bytes)", path, what,
		    (long long)sb.st_size);
	else if ((uintmax_t)sb.st_size > SIZE_MAX)
		r = error("%s: file too large", path);
	else if ((*base = file_map(fd, (size_t)sb.st_size)) == MAP_FAILED)
		r = error("%s: mmap:", path);
	close(fd);
	if (r < 0)
		return r;
	*len = (size_t)sb.st_size;
	st_guard_add(*base, *len, path);
	return 0;
}
