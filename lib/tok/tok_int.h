/* tok_int.h: private to lib/tok*.c: the components behind tok.h.
 *
 * A tokenizer.json is a pipeline of stages: normalizer, pre_tokenizer,
 * model, post_processor and decoder.  Each stage is a list of components
 * (the model: one).  A component is a struct whose first member points at
 * its type's operations; the concrete struct of a type embeds it first and
 * holds the type's options.  Each stage has a table of types, name ->
 * constructor: a new type is one line there and one constructor beside
 * its operations.  Sequence is a type whose constructor appends its
 * members to the stage's list.
 *
 * Data flows one way: tok.c reads the file (the model's vocab and merges
 * through tok_read.c's hook, the rest as a tree) and has the stage files
 * build the components (tok_norm.c; tok_pre.c with the scanners of tok_scan.c;
 * the model types of tok_model.c, tok_bpe.c so far, on the vocabulary of
 * tok_vocab.c; tok_post.c; tok_dec.c), then tok_enc.c and tok_dec.c run
 * them.  tok_comp.c holds what they all use. */
#ifndef TOK_INT_H
#define TOK_INT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/json.h"
#include "tok/tok.h"
#include "base/unicode.h"

#define TOK_MAXID 0x7ffffffe	/* ids fit an int, as in rec.h */
#define TOK_MAXDEPTH 16		/* pre-tokenizers in a row */
#define TOK_MAXNEST 8		/* Sequences inside Sequences */

struct tok_raw;

/* tokenizer.json being loaded */
struct tok_ld {
	struct tok *t;
	const char *path;		/* for messages */
	const struct json *added;	/* added_tokens (an array), or NULL */
	int bytelevel;			/* a ByteLevel pre-tokenizer was read: the
					 * vocabulary's strings stand for bytes */
	struct tok_raw *raw;		/* the model's vocab and merges (tok_read.c) */
};

/* ---- tok_comp.c: shared by the components ---- */

/* One row of a stage's table: a type's name in tokenizer.json and its
 * constructor, which reads o (depth: Sequences around it) and appends
 * what it builds to the stage's list in L->t.  0, or -1 after error(). */
struct tok_type {
	const char *name;
	int (*make)(struct tok_ld *L, const struct json *o, size_t depth);
};
/* Build o (NULL or null: nothing) with the constructor types[] has for
 * its "type" (dflt if it has none; NULL: none is an error); refuse an
 * unknown type as "unsupported <stage>: <type>".  0, or -1 after
 * error(). */
int tok_build(struct tok_ld *L, const char *stage, const struct tok_type *types,
    size_t ntypes, const char *dflt, const struct json *o, size_t depth);
/* o's "type", or "(no type)". */
const char *tok_typename(const struct json *o);

/* A string member of o, copied (caller frees); *out NULL if absent and
 * not need.  0, or -1 after error(). */
int tok_getstr(struct tok_ld *L, const struct json *o, const char *key, int need, char **out, size_t *len);
/* A boolean member of o, def if absent or null. */
int tok_getbool(const struct json *o, const char *key, int def);
/* o's {"String": s} pattern, copied, or -1 after error() naming what
 * (a {"Regex": re} is the caller's, through tok_scan_pattern). */
int tok_getpattern(struct tok_ld *L, const struct json *o, const char *what, char **s, size_t *n);
/* A token id: 0 and *id, or -1 (not an id; nothing reported).  Plain
 * digits are read here (a vocabulary has tens of thousands), anything
 * else through json_int. */
static inline int
tok_getid(const struct json *j, long long *id)
{
	long long v = 0;
	size_t i;

	if (j && j->type == JSON_NUMBER && j->len && j->len <= 9) {
		for (i = 0; i < j->len && j->u.num[i] >= '0' && j->u.num[i] <= '9'; i++)
			v = v * 10 + (j->u.num[i] - '0');
		if (i == j->len && (j->len == 1 || j->u.num[0] != '0')) {
			*id = v;
			return 0;
		}
	}
	return json_int(j, 0, TOK_MAXID - 1, id);
}

/* Zeroed memory for t's tables, freed with t (tok_mem_free): large
 * tables share mappings, so that they fault in as a few huge pages.
 * NULL after error(). */
void *tok_alloc(struct tok_ld *L, size_t n);
/* Room for up to n bytes of t's memory, zeroed, not yet taken: the caller
 * writes what it needs at its start, then tok_keep()s that much (no
 * other tok_alloc or tok_room in between).  NULL if out of memory
 * (nothing reported). */
char *tok_room(struct tok_ld *L, size_t n);
void tok_keep(struct tok_ld *L, size_t n);
void tok_mem_free(struct tok *t);

/* the first needle[0..nn) in hay[0..hn), or NULL; nn > 0 */
const char *tok_find(const char *hay, size_t hn, const char *needle, size_t nn);
/* The bytes in 8-byte words; a short string, or the tail, in one word
 * read as two overlapping halves (or three bytes), which holds all its
 * bytes: most vocabulary strings are shorter than 8.  Inline: loading
 * a vocabulary hashes millions of strings. */
static inline uint64_t
tok_hash(const void *p, size_t n)
{
	const unsigned char *s = p;
	uint64_t h = 0xcbf29ce484222325ull ^ n, w;
	uint32_t a, b;
	size_t k = n;

	while (k >= 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * 0x100000001b3ull;
		h ^= h >> 29;
		s += 8, k -= 8;
	}
	if (k >= 4) {
		memcpy(&a, s, 4);
		memcpy(&b, s + k - 4, 4);
		w = a | (uint64_t)b << 32;
	} else if (k) {
		w = s[0] | (uint32_t)s[k / 2] << 8 | (uint32_t)s[k - 1] << 16;
	} else {
		w = 0;
	}
	h = (h ^ w) * 0x100000001b3ull;
	h ^= h >> 29;
	h ^= h >> 32;
	return h * 0x9e3779b97f4a7c15ull;
}

/* a[0..n) == b[0..n): short strings without a call to memcmp */
static inline int
tok_eq(const char *a, const char *b, size_t n)
{
	uint32_t x, y, u, v;

	if (n > 8)
		return !memcmp(a, b, n);
	if (n >= 4) {
		memcpy(&x, a, 4), memcpy(&y, b, 4);
		memcpy(&u, a + n - 4, 4), memcpy(&v, b + n - 4, 4);
		return x == y && u == v;
	}
	return !n || (a[0] == b[0] && a[n / 2] == b[n / 2] && a[n - 1] == b[n - 1]);
}

/* byte-level alphabet: byte -> code point, and code point (< 324) -> byte
 * (inline: loading a vocabulary maps every character) */
extern const uint16_t tok_b2u[256];

static inline int
tok_u2b(uint32_t cp)
{
	if (cp >= 0x21 && cp <= 0x7e)
		return cp;
	if ((cp >= 0xa1 && cp <= 0xac) || (cp >= 0xae && cp <= 0xff))
		return cp;
	if (cp >= 0x100 && cp <= 0x143) {
		/* the unprintable bytes in order: 0x00-0x20, 0x7f-0xa0, 0xad */
		unsigned k = cp - 0x100;
		return k <= 32 ? (int)k : k <= 66 ? (int)(0x7f + k - 33) : 0xad;
	}
	return -1;
}

/* class bits (UNI_*) of the character at s[i], its length in *len */
static inline unsigned
tok_cls(const unsigned char *s, size_t n, size_t i, size_t *len)
{
	uint32_t cp;

	if (s[i] < 0x80) {
		*len = 1;
		return uni_class(s[i]);
	}
	*len = uni_decode(s + i, n - i, &cp);
	return uni_class(cp);
}

/* ---- tok_read.c: the model's vocab and merges, without a tree ---- */

/* They are most of a tokenizer.json (Gemma 3's: 262k strings and 515k
 * merges in 33 MB), read by a json.h hook on the root's "model" as the
 * parser meets them, straight into what the tables are made of: each
 * vocab string decoded once into t's memory, each merge's halves looked
 * up as read.  What the tree held is checked as it was, and what was
 * reported while building the tables is noted here and reported there
 * (tok_vocab_load, the BPE constructor), in the same order. */
#define TOK_NONE ((size_t)-1)

struct tok_vent {
	uint32_t off, len;		/* the string: raw->str + off */
	int id;				/* -1: not an id */
};
struct tok_merge {
	int a, b, m;			/* the halves' and the merged token's
					 * ids; a = -1: unusable (see below) */
};
#define TOK_NPEND 16	/* a power of two */
struct tok_raw {
	struct tok_ld *L;
	int seenvocab, seenmerges;	/* the model's first such member met */
	int vocab, merges;		/* and read (it was an object, an array) */

	/* vocab, in file order */
	char *str;			/* the strings, NUL after each (t's memory) */
	size_t nstr;
	struct tok_vent *ent;
	size_t nent, capent;
	long long maxid;
	size_t badid;			/* first member whose value is not an id */
	uint32_t *htab;			/* string -> entry + 1, the lowest id of a
					 * string kept (t's memory, see tok_bpe.c) */
	size_t hmask;

	/* merges, by rank */
	struct tok_merge *mrg;
	size_t nmrg, capmrg;
	size_t badmerge;		/* first not "a b" or ["a", "b"] */
	size_t missing;			/* first naming a string not in vocab */
	size_t missing_bl;		/* the same, its halves in the byte-level
					 * alphabet (others are skipped then) */
	struct json_pos mpos;		/* merges before vocab: read again after */
	int mlate;
	char *x;			/* a merge's halves, one after the other */
	size_t xcap;
	/* merges read and not yet looked up: their buckets are fetched
	 * while the next ones are read */
	struct tok_pend {
		size_t i, xn, yn;
		size_t h[3];		/* buckets of the halves and their join */
		char *x;		/* swapped with the one above */
		size_t xcap;
	} pend[TOK_NPEND];
	size_t pfirst, npend;
};
/* Start and release; the hook for json_load_hook (ctx: the struct
 * tok_raw). */
void tok_raw_init(struct tok_raw *R, struct tok_ld *L);
void tok_raw_free(struct tok_raw *R);
int tok_raw_member(void *ctx, struct json_in *in, const char *key, size_t keylen);
/* The entry (raw->ent index) of the vocab string s[0..n), or -1. */
long tok_raw_find(const struct tok_raw *R, const char *s, size_t n);
/* Table sizes: a power of two, at least twice n. */
size_t tok_pow2(size_t n);

/* ---- tok_vocab.c: the vocabulary, id -> string ---- */

/* Fill t's id -> string tables (ntok, str, slen, special) from the
 * model's vocab (L->raw) and the added tokens (whose strings win).
 * Every model constructor calls it.  0, or -1 after error(). */
int tok_vocab_load(struct tok_ld *L);
/* The lowest id whose string is s[0..n), or -1. */
int tok_vocab_find(const struct tok *t, const char *s, size_t n);
/* The added tokens into t->added, longest first.  0, or -1 after error(). */
int tok_added_load(struct tok_ld *L);

struct tok_added {
	char *s;			/* content (t's vocabulary string) */
	size_t len;
	int id;
	unsigned char special, lstrip, rstrip, single_word, normalized;
};

/* ---- normalizers: tok_norm.c ---- */

struct tok_norm {
	const struct tok_norm_ops *ops;
};
struct tok_norm_ops {
	/* s[0..n) normalized into out (emptied first): 1; 0 if s is left as
	 * it is (out untouched); -1 after error(). */
	int (*run)(const struct tok_norm *c, const char *s, size_t n, struct tok_buf *out);
	void (*free)(struct tok_norm *c);	/* NULL: free(c) */
};
/* Build the normalizer o into t->norm.  0, or -1 after error(). */
int tok_norm_load(struct tok_ld *L, const struct json *o);

/* ---- scanners: tok_scan.c ---- */

/* A scanner finds the matches of a Split pattern, as re_search (lib/
 * regex.h) does: 1 and the leftmost match s[*ms..*me) at or after start,
 * or 0 if there is none.  st is its state (the literal, the compiled
 * regex), freed with it. */
struct tok_scan {
	int (*find)(const void *st, const char *s, size_t n, size_t start,
	    size_t *ms, size_t *me);
	void *st;
	void (*free)(void *st);
};

/* The regexes of the hand scanners, as tokenizer.json files write them */
#define TOK_RE_GPT2 "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+"
#define TOK_RE_NUMERIC "\\p{N}"

/* The scanner of a pattern object ({"String": s} or {"Regex": re}) for
 * what ("pre_tokenizer Split"): a literal, a hand scanner for the known
 * regexes; an unknown regex is refused.  0, or -1 after error(). */
int tok_scan_pattern(struct tok_ld *L, const char *what, const struct json *pattern, struct tok_scan *sc);
/* The scanner of a regex given by its text re[0..n): the same choice. */
int tok_scan_regex(struct tok_ld *L, const char *what, const char *re, size_t n, struct tok_scan *sc);
/* Release sc's state; accepts a zeroed sc. */
void tok_scan_free(struct tok_scan *sc);
/* s[0..n) with every match of sc replaced by b[0..bn), into out (emptied
 * first): the non-overlapping leftmost matches, as tokenizers' Replace
 * (normalizer and decoder) takes them from find_matches.  1, 0 if there
 * is none (out empty), -1 after error(). */
int tok_replace(const struct tok_scan *sc, const char *s, size_t n, const char *b,
    size_t bn, struct tok_buf *out);

/* ---- pre-tokenizers: tok_pre.c ---- */

/* Where a pre-tokenizer sends its pieces: the next pre-tokenizer, or the
 * model.  first: the piece starts the text. */
struct tok_next {
	int (*piece)(struct tok_next *nx, const char *s, size_t n, int first);
};
struct tok_pre {
	const struct tok_pre_ops *ops;
};
struct tok_pre_ops {
	/* Split s[0..n) (not empty; first: it starts the text) and pass
	 * each piece, in order, to nx.  The component may keep scratch
	 * buffers (a struct tok is used by one thread).  0, or -1 after
	 * error(). */
	int (*split)(struct tok_pre *c, const char *s, size_t n, int first, struct tok_next *nx);
	void (*free)(struct tok_pre *c);	/* NULL: free(c) */
};
/* Build the pre-tokenizer o into t->pre.  0, or -1 after error(). */
int tok_pre_load(struct tok_ld *L, const struct json *o);

/* Split's behaviors (tokenizers' SplitDelimiterBehavior) */
enum { SPLIT_REMOVED, SPLIT_ISOLATED, SPLIT_PREVIOUS, SPLIT_NEXT, SPLIT_CONTIGUOUS };
/* Cut s[0..n) at the matches of sc as tokenizers' Split does (invert:
 * the matches are the parts between) and pass the pieces to nx. */
int tok_split(const struct tok_scan *sc, int behavior, int invert,
    const char *s, size_t n, int first, struct tok_next *nx);

/* ---- the model: tok_model.c (the table), tok_bpe.c ---- */

struct tok_model {
	const struct tok_model_ops *ops;
};
struct tok_model_ops {
	/* Append the ids of one pre-tokenized piece s[0..n) (not empty) to
	 * out; bytes the vocabulary cannot express are dropped and added to
	 * *ndropped.  Pure in s (the encoder caches it).  0, or -1 after
	 * error(). */
	int (*encode)(struct tok_model *m, const char *s, size_t n,
	    struct tok_ids *out, size_t *ndropped);
	void (*free)(struct tok_model *m);	/* NULL: free(m) */
};
/* Build the model m into t->model; its constructor fills t's vocabulary
 * (tok_vocab_load).  0, or -1 after error(). */
int tok_model_load(struct tok_ld *L, const struct json *m);
/* The constructors of the model types (struct tok_type). */
int tok_bpe_make(struct tok_ld *L, const struct json *m, size_t depth);

/* ---- post-processors: tok_post.c ---- */

struct tok_post {
	const struct tok_post_ops *ops;
};
struct tok_post_ops {
	/* Append the ids that go before (after = 0) or after (1) a single
	 * sequence to out.  0, or -1 after error(). */
	int (*add)(const struct tok_post *c, int after, struct tok_ids *out);
	void (*free)(struct tok_post *c);	/* NULL: free(c) */
};
/* Build the post-processor o into t->post.  0, or -1 after error(). */
int tok_post_load(struct tok_ld *L, const struct json *o);

/* ---- decoders: tok_dec.c ---- */

#define TOK_DEC_JOINS	1	/* the steps after it see the record as one
				 * text (Fuse, and ByteLevel, which joins) */
#define TOK_DEC_BYTES	2	/* <0xHH> tokens are bytes (ByteFallback) */
#define TOK_DEC_WHOLE	4	/* may come after a joining step */

struct tok_dstep {
	const struct tok_dec_ops *ops;
	int whole;			/* after a joining step */
};
struct tok_dec_ops {
	const char *name;
	unsigned flags;			/* TOK_DEC_* */
	/* One token's text s[0..n) through the step, the result in *os,
	 * *on: s itself, a part of it, or x's bytes (x is scratch).  NULL:
	 * the text stays.  0, or -1 (out of memory). */
	int (*token)(const struct tok_dstep *c, const struct tok_dec *d,
	    const char *s, size_t n, struct tok_buf *x, const char **os, size_t *on);
	/* After a joining step: how many times the string *a (*alen bytes)
	 * is taken off the start of the record; NULL: none. */
	size_t (*lead)(const struct tok_dstep *c, const char **a, size_t *alen);
	void (*free)(struct tok_dstep *c);	/* NULL: free(c) */
};
/* Build the decoder o into t->dec.  0, or -1 after error(). */
int tok_dec_load(struct tok_ld *L, const struct json *o);

/* ---- tok.c, tok_gguf.c ---- */

/* tok_load of a tokenizer.json's text text[0..len) (path: for messages;
 * t->path is set to it). */
int tok_load_text(struct tok *t, const char *path, const char *text, size_t len);

/* ---- tok_enc.c ---- */

/* Release the encoder's cache and scratch buffers. */
void tok_enc_free(struct tok *t);

#endif
