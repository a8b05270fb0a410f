/* rec.h: token records, the stream between tok-encode, llm-* and tok-decode.
 *
 * Text framing (the default): a record is one line of decimal token ids
 * separated by spaces, ended by '\n'; an empty line is an empty record.
 * Readers also take runs of spaces and tabs around ids and a CR before
 * the newline, and nothing else (rec_lex, the one reader of the text).
 * Binary framing (--ids=u32): a little-endian u32 count, then that many
 * little-endian u32 ids.  See pipelm-formats(5). */
#ifndef REC_H
#define REC_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/files.h"

enum rec_fmt { REC_TEXT, REC_U32 };

#define REC_MAXID 0x7fffffff	/* ids are non-negative and fit an int */
/* A u32 record claiming more ids than this is taken for garbage rather
 * than an allocation request (2^28 ids = 1 GiB). */
#define REC_MAXLEN ((uint32_t)1 << 28)

/* The --ids option, for a getopt_long table and a usage line. */
enum { REC_OPT_IDS = 0x300 };
#define REC_IDS_LONGOPT { "ids", required_argument, NULL, REC_OPT_IDS }
#define REC_IDS_USAGE "[--ids=text|u32]"
#define REC_IDS_HELP \
	"      --ids=text|u32    token record framing: text lines or u32 (default text)\n"

struct rec {
	int *ids;		/* n token ids */
	size_t n, cap;
	unsigned long long no;	/* 1-based number of the record last read */
};

/* The text framing, byte by byte: the one tokenizer of it, under
 * rec_read (whole records) and idstream (id by id), so that every
 * program takes and refuses the same bytes.  Zero it to start. */
struct rec_lex {
	unsigned long long v;	/* the id being read */
	int digits;		/* v has digits */
	int cr;			/* a CR was read: only a newline may follow */
	int any;		/* the record has begun (a byte of it was read) */
};
enum { REC_LEX_ID = 1, REC_LEX_END = 2 };
/* Feed byte c, or EOF at the end of input.  Returns a mask: REC_LEX_ID
 * if an id ended (in *id), REC_LEX_END if the record ended (a newline,
 * or the end of input after some of it); 0 for neither; -1 after
 * error() naming name and record no (a bad byte, an id too large). */
int rec_lex(struct rec_lex *lx, int c, int *id, const char *name,
    unsigned long long no);

/* Read the next record from f into r (reusing its buffer).  Returns 1 for a
 * record, 0 at the end of input, -1 on malformed input or a read error,
 * after error() naming name and the record number.  Reads no further than
 * the end of the record, so it can sit in a feedback loop. */
int rec_read(struct rec *r, FILE *f, const char *name, enum rec_fmt fmt);
/* 0 if every id of r is below vocab, else -1 after error() naming name,
 * the record and the first id outside (before the model sees any). */
int rec_check(const struct rec *r, int vocab, const char *name);
/* Write one whole record.  Write errors show in ferror(f) (see fshut). */
void rec_write(FILE *f, enum rec_fmt fmt, const int *ids, size_t n);
/* Text framing, streamed: rec_put writes one id (preceded by a space
 * unless it is the record's first), rec_end ends the record. */
void rec_put(FILE *f, int id, int first);
void rec_end(FILE *f);
/* Parse "text" or "u32" (the --ids= argument): 0, or -1 after error()
 * (the caller exits 2). */
int rec_fmt_parse(const char *s, enum rec_fmt *fmt);
/* Release r's buffer; r may be zeroed. */
void rec_free(struct rec *r);

/* The records of file operands in turn (files.h). */
struct rec_files {
	struct files fl;
	enum rec_fmt fmt;
};

void rec_files_init(struct rec_files *rf, char **paths, int n, enum rec_fmt fmt);
/* The next record into r: 1, 0 after the last file, -1 after error() on
 * malformed input (stop there).  A file that cannot be opened is warned
 * about, noted in rf->fl.failed, and skipped. */
int rec_files_next(struct rec_files *rf, struct rec *r);
/* Close the file being read, if any. */
void rec_files_close(struct rec_files *rf);

#endif
