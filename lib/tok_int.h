/* tok_int.h: private to lib/tok*.c: the component structs behind tok.h. */
#ifndef TOK_INT_H
#define TOK_INT_H

#include <stddef.h>
#include <stdint.h>

#include "tok.h"

#define TOK_MAXID 0x7ffffffe	/* ids fit an int, as in rec.h */
#define TOK_MAXDEPTH 16		/* pre-tokenizers in a row */

/* tokenizer.json being loaded: for messages */
struct tok_ld {
	struct tok *t;
	const char *path;
};

struct json;
/* tok_comp.c: read one component (null: none) into t's step lists; 0, or
 * -1 after error() naming it if it is malformed or unsupported. */
int tok_add_norm(struct tok_ld *L, const struct json *o, size_t depth);
int tok_add_pre(struct tok_ld *L, const struct json *o, size_t depth);
int tok_add_dec(struct tok_ld *L, const struct json *o, size_t depth);
int tok_add_post(struct tok_ld *L, const struct json *o, size_t depth);
/* A string member of o, copied (caller frees); *out NULL if absent and
 * not need.  0, or -1 after error(). */
int tok_getstr(struct tok_ld *L, const struct json *o, const char *key, int need, char **out, size_t *len);
/* A boolean member of o, def if absent or null. */
int tok_getbool(const struct json *o, const char *key, int def);

/* tok_enc.c: release the encoder's cache and scratch buffers */
void tok_enc_free(struct tok *t);

struct tok_added {
	char *s;			/* content */
	size_t len;
	int id;
	unsigned char special, lstrip, rstrip, single_word, normalized;
};

enum { NORM_PREPEND, NORM_REPLACE, NORM_NFC, NORM_NFKC };

struct tok_norm {
	int type;
	char *a, *b;			/* Prepend: a; Replace: a -> b */
	size_t alen, blen;
};

enum { PRE_BYTELEVEL, PRE_DIGITS, PRE_SPLIT, PRE_METASPACE };
enum { PAT_LITERAL, PAT_GPT2, PAT_LLAMA3, PAT_QWEN2, PAT_NUMERIC };
enum { SPLIT_REMOVED, SPLIT_ISOLATED, SPLIT_PREVIOUS, SPLIT_NEXT, SPLIT_CONTIGUOUS };
enum { PREPEND_NEVER, PREPEND_FIRST, PREPEND_ALWAYS };

struct tok_pre {
	int type;
	int add_prefix_space;		/* ByteLevel */
	int use_regex;			/* ByteLevel */
	int pat;			/* Split, Digits: PAT_* */
	char *lit;			/* PAT_LITERAL: the string */
	size_t litlen;
	int behavior, invert;		/* Split, Digits: SPLIT_* */
	char *rep;			/* Metaspace: replacement (UTF-8) */
	size_t replen;
	int prepend, split;		/* Metaspace */
};

enum { DEC_BYTELEVEL, DEC_REPLACE, DEC_BYTEFALLBACK, DEC_FUSE, DEC_STRIP, DEC_METASPACE };

struct tok_dstep {
	int type;
	char *a, *b;			/* Replace: a -> b; Strip, Metaspace: a */
	size_t alen, blen;
	int start, stop;		/* Strip */
	int prepend;			/* Metaspace: PREPEND_* */
	int fused;			/* runs on the whole record (after Fuse) */
};

/* byte-level alphabet: byte -> code point, and code point (< 324) -> byte */
extern const uint16_t tok_b2u[256];
int tok_u2b(uint32_t cp);

/* vocabulary lookup by BPE key: id or -1 */
int tok_vocab_get(const struct tok *t, const char *s, size_t n);
/* merge lookup: rank, and the merged id in *newid; -1 if no merge */
static inline long long tok_merge_get(const struct tok *t, int a, int b, int *newid);

uint64_t tok_hash(const void *p, size_t n);

static inline size_t
tok_mhash(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	return (size_t)k;
}

static inline long long
tok_merge_get(const struct tok *t, int a, int b, int *newid)
{
	uint64_t k = ((uint64_t)(uint32_t)a << 32 | (uint32_t)b) + 1;
	size_t i = tok_mhash(k) & t->mmask;

	for (;; i = (i + 1) & t->mmask) {
		if (t->mtab[i].key == k) {
			*newid = (int)(uint32_t)t->mtab[i].val;
			return (long long)(t->mtab[i].val >> 32);
		}
		if (!t->mtab[i].key)
			return -1;
	}
}

#endif
