/* files.h: the file operands of a filter, in turn, as cat(1) takes them.
 *
 * No operands, or "-", mean standard input, "<stdin>" in messages.  A
 * file that cannot be opened is warned about and skipped, and the run
 * ends with status 1 (fl->failed); the others are still read (sbase
 * head.c).  Every program with file operands reads them through this. */
#ifndef FILES_H
#define FILES_H

#include <stdio.h>

struct files {
	char **paths;
	int n, i;
	FILE *f;		/* the operand open now, or NULL */
	const char *name;	/* its name for messages */
	int failed;		/* an operand could not be opened */
};

void files_init(struct files *fl, char **paths, int n);
/* Close the operand open now (not stdin) and open the next one: its
 * stream (also in fl->f, named fl->name), or NULL after the last.
 * A stream may also be read with read(2) on its fileno. */
FILE *files_next(struct files *fl);
/* Close the operand open now, if any. */
void files_close(struct files *fl);

/* 0, or -1 after error() if the output (the file at outpath if not NULL,
 * else the open descriptor fd) is the same regular file as one of the
 * operands paths[0..n) ("-" and none: stdin).  Such an output would be
 * truncated before it is read, or read as it grows; call this before
 * opening anything for writing.  An outpath that does not exist yet is
 * no input. */
int files_check_output(char **paths, int n, const char *outpath, int fd);

/* An output file that appears only when the run succeeds: written to a
 * temporary file beside path and renamed onto it by outfile_close(o, 1),
 * so that a failed run leaves the old file as it was.  A path that
 * exists and is not a regular file (a FIFO, /dev/stdout) is written in
 * place.  The temporary file is registered with cleanup.h, so that
 * SIGINT, SIGTERM and SIGHUP remove it too.  Zero it to start. */
struct outfile {
	FILE *f;
	char *path;		/* the target */
	char *tmp;		/* the temporary file, NULL if written in place */
	int slot;		/* tmp's in cleanup.h */
};
/* Open o for writing path: o->f, or NULL after error(). */
FILE *outfile_open(struct outfile *o, const char *path);
/* Close o->f; if ok, move the temporary file onto the target, else
 * remove it.  0, or -1 after error() (a write, close or rename that
 * failed: the temporary file is then removed too).  Safe on a zeroed or
 * closed o, so an atexit handler can call outfile_close(o, 0).  A
 * failed write is said as fshut says it (nothing for EPIPE). */
int outfile_close(struct outfile *o, int ok);

/* An output folder that appears only when the run succeeds, whole: its
 * files are written into a temporary folder (registered with cleanup.h)
 * and moved into place by outdir_close(o, 1).  A new folder is the
 * temporary one renamed, so it appears at once or not at all; into an
 * existing folder (force) each file is renamed over its namesake with
 * the signals held off, the other files left as they are.  Zero it to
 * start. */
struct outdir {
	char *path;		/* the target */
	char *tmp;		/* the temporary folder */
	int into;		/* the target exists: files moved into it */
	char **names;		/* the files made in tmp */
	int *slots;		/* theirs in cleanup.h, and tmp's in slot */
	int n, slot;
};
/* Start the folder path.  Refused, -1 after error(): path exists and
 * force is not set, or is not a folder; path is the folder src or lies
 * inside it (src NULL: no such check), which the output would overwrite
 * or grow into; the temporary folder cannot be made.  0 otherwise. */
int outdir_open(struct outdir *o, const char *path, int force,
    const char *src);
/* The path to write file name (one component) at, in the temporary
 * folder, registered for removal: owned by o, or NULL after error(). */
const char *outdir_file(struct outdir *o, const char *name);
/* If ok, move the files into place, else remove them; either way the
 * temporary folder goes and o is freed (safe on a zeroed or closed o,
 * so an atexit handler can call outdir_close(o, 0)).  0, or -1 after
 * error() (a rename that failed). */
int outdir_close(struct outdir *o, int ok);

#endif
