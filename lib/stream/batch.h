/* batch.h: --keep-going, what every program that runs a batch of
 * records (tok-encode, tok-decode, llm-logits, llm-gen, llm-score) does
 * with a bad one.
 *
 * Without it, the first bad record ends the run with status 1, after a
 * message naming the input and the record.  With it, the record is
 * reported the same way, its output record is left empty (each page
 * says what that is in its output; pipelm-formats(5)), the run goes on
 * with the next record, and at the end "prog: K of N records failed"
 * and status 1.  A malformed text record is such a record, skipped to
 * its newline.  What is not one record's fault still ends the run at
 * once: a write or read error, a u32 stream that cannot be followed
 * past a bad record, a file that cannot be opened (skipped, as ever). */
#ifndef BATCH_H
#define BATCH_H

#include "stream/rec.h"

/* For a getopt_long table, a short option string ("k") and a usage
 * line; batch_parse takes the option. */
#define BATCH_LONGOPT { "keep-going", no_argument, NULL, 'k' }
#define BATCH_USAGE "[-k]"
#define BATCH_HELP \
	"  -k, --keep-going      a bad record: say so, leave its output empty and go on\n"

struct batch {
	int keepgoing;			/* -k */
	unsigned long long nrec;	/* records taken */
	unsigned long long failed;	/* of them, failed */
};

/* A record failed, after its message: 1 to go on (--keep-going), else
 * 0 (stop: the caller exits 1). */
int batch_failed(struct batch *b);
/* The next record of rf into r, counted: 1 for a record, 0 at the end,
 * 2 for a malformed text record under --keep-going (said, counted as
 * failed and skipped to its end: the caller writes its empty output and
 * goes on), -1 to stop (after error()). */
int batch_next(struct batch *b, struct rec_files *rf, struct rec *r);
/* The end of the run: 1 if a record failed (with --keep-going, after
 * "K of N records failed"), else 0. */
int batch_end(const struct batch *b);

#endif
