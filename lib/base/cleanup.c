/* cleanup.c: see cleanup.h. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/util.h"

static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };

/* The registered paths in slots [0, top): NULL where one was dropped
 * (slots are not reused below top, so that a slot stays its path's).
 * Only the handler reads them outside cleanup_add and cleanup_drop,
 * which change them with the signals blocked. */
static char *volatile path[CLEANUP_MAX];
static volatile char isdir[CLEANUP_MAX];
static volatile int top;
static int installed;
static sigset_t held;		/* the mask cleanup_hold replaced */

void
cleanup_sigset(sigset_t *set)
{
	size_t i;

	sigemptyset(set);
	for (i = 0; i < LEN(sigs); i++)
		sigaddset(set, sigs[i]);
}

/* Remove what is registered, the latest first.  unlink and rmdir are
 * async-signal-safe. */
static void
removeall(void)
{
	int i;

	for (i = top; i-- > 0;) {
		if (!path[i])
			continue;
		if (isdir[i])
			rmdir(path[i]);
		else
			unlink(path[i]);
	}
}

static void
onsignal(int sig)
{
	int e = errno;

	removeall();
	/* SA_RESETHAND has put back the default action: raised now, it
	 * acts as the handler returns and unblocks sig */
	raise(sig);
	errno = e;
}

static void
install(void)
{
	struct sigaction sa, old;
	size_t i;

	installed = 1;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = onsignal;
	sa.sa_flags = SA_RESETHAND;
	cleanup_sigset(&sa.sa_mask);	/* one handler at a time */
	for (i = 0; i < LEN(sigs); i++)
		if (sigaction(sigs[i], NULL, &old) == 0 &&
		    old.sa_handler != SIG_IGN)
			sigaction(sigs[i], &sa, NULL);
}

static void
block(sigset_t *old)
{
	sigset_t set;

	cleanup_sigset(&set);
	pthread_sigmask(SIG_BLOCK, &set, old);
}

int
cleanup_add(const char *p, int dir)
{
	sigset_t old;
	char *s;
	int slot = -1;

	if (!(s = xstrdup(p)))
		return -1;
	block(&old);
	if (!installed)
		install();
	if (top < CLEANUP_MAX) {
		slot = top;
		isdir[slot] = (char)dir;
		path[slot] = s;
		top = slot + 1;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (slot < 0) {
		free(s);
		return error("%s: more than %d temporary files", p, CLEANUP_MAX);
	}
	return slot;
}

void
cleanup_drop(int slot)
{
	sigset_t old;
	char *s;

	if (slot < 0 || slot >= top)
		return;
	block(&old);
	s = path[slot];
	path[slot] = NULL;
	while (top > 0 && !path[top - 1])
		top--;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	free(s);
}

void
cleanup_now(void)
{
	sigset_t old;
	int i;

	block(&old);
	removeall();
	for (i = 0; i < top; i++) {
		free(path[i]);
		path[i] = NULL;
	}
	top = 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

void
cleanup_hold(void)
{
	block(&held);
}

void
cleanup_release(void)
{
	pthread_sigmask(SIG_SETMASK, &held, NULL);
}
