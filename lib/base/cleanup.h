/* cleanup.h: temporary files and folders removed when a signal stops
 * the program.
 *
 * A program that writes its output beside the target and renames it
 * at the end (files.h's outfile, llm-quant's folder) registers the
 * temporary here.  On SIGINT, SIGTERM or SIGHUP the handler removes
 * every path still registered, the latest first (unlink, or rmdir for
 * a folder: its files are registered after it, so they go first),
 * then the signal takes its default action: the program dies of it,
 * as the shell expects (status 128 + n).  A signal that was ignored
 * when the program started (nohup, a background job) stays ignored.
 * SIGKILL cannot be caught: it leaves the temporary, never a target
 * half written.
 *
 * The list is changed with these signals blocked in the calling
 * thread, and the pool's workers block them (cleanup_sigset), so the
 * handler never sees the list half changed.  Not for use from more
 * than one thread. */
#ifndef CLEANUP_H
#define CLEANUP_H

#include <signal.h>

#define CLEANUP_MAX 64		/* paths registered at once */

/* Register path (copied), a folder if isdir: its slot, or -1 after
 * error() (out of slots or memory).  The first call installs the
 * handlers. */
int cleanup_add(const char *path, int isdir);
/* Forget slot (after the path was renamed or removed); -1 is ignored. */
void cleanup_drop(int slot);
/* Remove every registered path now and forget them all: for an atexit
 * handler, so that an exit on an error leaves nothing behind either. */
void cleanup_now(void);
/* Hold the signals off (they wait, blocked) while a set of renames is
 * made that must not be cut in the middle; cleanup_release lets any
 * that came in act. */
void cleanup_hold(void);
void cleanup_release(void);
/* The signals handled: SIGINT, SIGTERM, SIGHUP. */
void cleanup_sigset(sigset_t *set);

#endif
