/* batch.c: see batch.h. */
#include <stdio.h>

#include "base/util.h"
#include "stream/batch.h"

int
batch_failed(struct batch *b)
{
	b->failed++;
	return b->keepgoing;
}

int
batch_next(struct batch *b, struct rec_files *rf, struct rec *r)
{
	FILE *f;
	int got, c;

	if ((got = rec_files_next(rf, r)) == 0)
		return 0;
	b->nrec++;
	if (got > 0)
		return 1;
	f = rf->fl.f;
	/* u32: the next count cannot be found; a read error is no record's */
	if (!batch_failed(b) || rf->fmt != REC_TEXT || !f || ferror(f))
		return -1;
	/* the byte rec_lex refused is read, and never the newline: the
	 * rest of the line goes */
	while ((c = getc(f)) != EOF && c != '\n')
		;
	if (ferror(f))
		return error("read %s:", rf->fl.name);
	return 2;
}

int
batch_end(const struct batch *b)
{
	if (!b->failed)
		return 0;
	if (b->keepgoing)
		warn("%llu of %llu records failed", b->failed, b->nrec);
	return 1;
}
