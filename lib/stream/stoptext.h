/* stoptext.h: stopping at a string in the decoded continuation
 * (llm-gen --stop-text), as HuggingFace's StopStringCriteria stops.
 *
 * The continuation's ids are decoded as they come by the streaming
 * decoder (tok.h), special tokens' text included, after the prompt's ids
 * (so the decoder is in mid-record, as tok-decode of the whole record
 * would be); a stop string matches when it lies wholly in the bytes the
 * continuation decoded to, and the id that made its last byte appear is
 * the one that stops.  Bytes the decoder holds back (an incomplete UTF-8
 * character) appear with the id that completes them.  Strings are bytes:
 * no normalization, case matters. */
#ifndef STOPTEXT_H
#define STOPTEXT_H

#include <stddef.h>

#include "tok/tok.h"

struct stoptext {
	char **s;		/* the stop strings */
	size_t *len;
	size_t n;
	size_t maxlen;		/* the longest */
	struct tok_buf win;	/* the continuation's last maxlen - 1 bytes,
				 * then the bytes of the id being checked */
	size_t total;		/* bytes of continuation seen */
	int hit;		/* the string that matched (stoptext_feed) */
	size_t hitend;		/* where it ends in the continuation */
	struct tok_dec dec;
	struct tok_buf out;	/* decoder output (scratch) */
};

/* Add a stop string (copied): 0, or -1 after error() (empty, no memory). */
int stoptext_add(struct stoptext *st, const char *s);
/* Forget the continuation (a new one starts). */
void stoptext_reset(struct stoptext *st);
/* The next n bytes of the continuation: 1 if a stop string now ends in
 * them (st->hit says which: of several, the one ending first, then the
 * first added), else 0; -1 after error() (no memory). */
int stoptext_feed(struct stoptext *st, const char *p, size_t n);
/* Start a continuation decoded with t after the prompt ids[0..n) (which
 * are decoded and dropped).  An id t does not have decodes to nothing.
 * 0, or -1 after error() (no memory). */
int stoptext_start(struct stoptext *st, const struct tok *t, const int *ids,
    size_t n);
/* Decode the continuation's next id and stoptext_feed its bytes: 1, 0,
 * or -1 after error() (no memory). */
int stoptext_push(struct stoptext *st, int id);
/* The string that matched for a message, into buf: text "..." with
 * newlines, tabs, quotes, backslashes and control bytes escaped (cut at
 * size, with "..."); "text" if none matched or size < 16.  Returns the
 * message. */
const char *stoptext_hitname(const struct stoptext *st, char *buf, size_t size);
/* Release st (zeroed or half-built). */
void stoptext_free(struct stoptext *st);

#endif
