/* idstream.h: token records read id by id, for streaming consumers.
 *
 * rec.h reads whole records; a decoder at the end of `llm-gen | tok-decode`
 * must act on each id as it arrives ("12", " 345", ... "\n", each flushed
 * by the writer).  This reader does its own buffered read(2) and, before
 * each read that may block, flushes a given output stream, so bulk input
 * stays buffered and streamed input shows at once. */
#ifndef IDSTREAM_H
#define IDSTREAM_H

#include <stdio.h>

#include "stream/rec.h"

struct idstream {
	int fd;
	const char *name;		/* for messages */
	enum rec_fmt fmt;
	FILE *flush;			/* flushed before a read, or NULL */
	unsigned long long no;		/* 1-based number of the current record */
	unsigned char buf[65536];
	size_t pos, len;
	int eof;
	int inrec;			/* u32: inside a record */
	struct rec_lex lx;		/* text: the tokenizer's state */
	int endnext;			/* text: the byte that ended an id ended the record */
	unsigned long long left;	/* u32: ids left in the record */
};

/* Set s up to read fd (not closed by this module). */
void ids_init(struct idstream *s, int fd, const char *name, enum rec_fmt fmt, FILE *flush);
/* Read the next item: 1 with *id set for an id, 2 at the end of a record
 * (s->no is its number), 0 at the end of input, -1 after error() naming
 * s->name and the record (a malformed record, a read error), or -1
 * without a message if flushing s->flush failed (ferror(s->flush) is
 * set: the caller's fshut says why and stops the run).  Input that
 * ends inside a text record ends that record (2, then 0). */
int ids_next(struct idstream *s, int *id);
/* After an id of the current record was refused (by ids_next, or by
 * the caller: not in the vocabulary), skip the rest of that record: 0,
 * with the record ended (no 2 follows for it), or -1 where the next
 * record cannot be found (u32 framing after a bad count or a stream cut
 * short; a read error, said). */
int ids_skip(struct idstream *s);

#endif
