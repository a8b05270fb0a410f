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

#endif
