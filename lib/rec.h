/* rec.h: token records, the stream between tok-encode, llm-* and tok-decode.
 *
 * Text framing (the default): a record is one line of decimal token ids
 * separated by spaces, ended by '\n'; an empty line is an empty record.
 * Binary framing (--ids=u32): a little-endian u32 count, then that many
 * little-endian u32 ids.  See pipelm-formats(5). */
#ifndef REC_H
#define REC_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum rec_fmt { REC_TEXT, REC_U32 };

#define REC_MAXID 0x7fffffff	/* ids are non-negative and fit an int */

struct rec {
	int *ids;		/* n token ids */
	size_t n, cap;
	unsigned long long no;	/* 1-based number of the record last read */
};

/* Read the next record from f into r (reusing its buffer).  Returns 1 for a
 * record, 0 at the end of input, -1 on malformed input or a read error,
 * after error() naming name and the record number.  Reads no further than
 * the end of the record, so it can sit in a feedback loop. */
int rec_read(struct rec *r, FILE *f, const char *name, enum rec_fmt fmt);
/* Write one whole record.  Write errors show in ferror(f) (see fshut). */
void rec_write(FILE *f, enum rec_fmt fmt, const int *ids, size_t n);
/* Text framing, streamed: rec_put writes one id (preceded by a space
 * unless it is the record's first), rec_end ends the record. */
void rec_put(FILE *f, int id, int first);
void rec_end(FILE *f);
/* Parse "text" or "u32" (the --ids= argument): 0, or -1 if neither. */
int rec_parse_fmt(const char *s, enum rec_fmt *fmt);
/* Release r's buffer; r may be zeroed. */
void rec_free(struct rec *r);

/* The records of file operands in turn, as cat(1) reads files: no
 * operands or "-" mean standard input ("<stdin>" in messages). */
struct rec_files {
	char **paths;
	int n, i;
	enum rec_fmt fmt;
	FILE *f;		/* the file being read, or NULL */
	const char *name;
	int failed;		/* a file could not be opened (said, and skipped) */
};

void rec_files_init(struct rec_files *rf, char **paths, int n, enum rec_fmt fmt);
/* The next record into r: 1, 0 after the last file, -1 after error() on
 * malformed input (stop there).  A file that cannot be opened is warned
 * about, noted in rf->failed, and skipped. */
int rec_files_next(struct rec_files *rf, struct rec *r);
/* Close the file being read, if any. */
void rec_files_close(struct rec_files *rf);

#endif
