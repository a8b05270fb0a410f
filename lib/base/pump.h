/* pump.h: feed a child process its input while keeping what its stages
 * write on their stderr, for a front end (llm-text) that says their
 * messages once, after its output. */
#ifndef PUMP_H
#define PUMP_H

#include <stdio.h>
#include <stddef.h>

#include "base/util.h"

/* Write data[0..n) to fd out (made non-blocking, closed at the end, and
 * given up quietly if its reader goes away) while reading each of the
 * nerr fds errfd[] into errs[] until all are at end of file; those are
 * closed too.  0, or -1 after error() (poll or read failed). */
int pump(int out, const char *data, size_t n, const int *errfd,
    struct buf *errs, int nerr);

/* Write the lines of errs[0..nerr) to f in that order, each line once:
 * a line "prog: text" whose text an earlier line had under another
 * prog's name is left out (two stages that read the same bad file). */
void pump_say(FILE *f, const struct buf *errs, int nerr);

#endif
