/* jinja_int.h: what jinja_parse.c (lexer, parser) and jinja.c (values,
 * renderer) share.  Not for other modules. */
#ifndef JINJA_INT_H
#define JINJA_INT_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "chat/jinja.h"
#include "base/unicode.h"

/* ---- arena: every node and every value of a render lives in one ---- */

struct jj_chunk;
struct jj_arena {
	struct jj_chunk *head;
	size_t total;			/* bytes taken from malloc */
	size_t limit;			/* refuse past this (0: none) */
	const void *last;		/* the newest allocation */
	size_t lastn;			/* its size as asked for */
};
/* n bytes, max_align_t aligned, or NULL (out of memory or past limit). */
void *jj_alloc(struct jj_arena *a, size_t n);
/* Grow the newest allocation p, of size old, to n bytes in place: 1, or
 * 0 if p of that size is not the newest or its chunk has no room. */
int jj_extend(struct jj_arena *a, const void *p, size_t old, size_t n);
void jj_arena_free(struct jj_arena *a);

/* Python's str.isspace, which Jinja2's \s and strip() follow: Unicode
 * White_Space and the separators U+001C..U+001F. */
static inline int
jj_isspace(uint32_t c)
{
	return (c >= 0x1c && c <= 0x1f) || (uni_class(c) & UNI_WS);
}

/* ---- tokens: jinja_lex.c makes them, jinja_parse.c reads them ---- */

enum {
	T_EOF, T_TEXT, T_BBLOCK, T_EBLOCK, T_BVAR, T_EVAR, T_NAME, T_STR,
	T_INT, T_FLOAT, T_OP
};

struct tk {
	int type, line, op;
	const char *s;			/* T_TEXT, T_NAME, T_STR (decoded) */
	size_t n;
	long long i;
	double f;
};

struct ps {				/* the lexer's and parser's state */
	struct jj_tmpl *t;
	const char *src, *end;
	struct tk *tk;
	size_t ntk, captk, pos;
	int depth;
	int failed;
};

/* Report "NAME, line L: what" (once) and return -1. */
int jj_perr(struct ps *p, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Tokens of p->src..p->end into p->tk, ending with T_EOF: 0, or -1. */
int jj_lex(struct ps *p);
/* Is s[0..n) the word w?  Newlines in [a, b)? */
int jj_word(const char *s, size_t n, const char *w);
int jj_lines(const char *a, const char *b);

/* ---- values ---- */

enum {
	JJ_UNDEF, JJ_NONE, JJ_BOOL, JJ_INT, JJ_FLOAT, JJ_STR, JJ_LIST,
	JJ_DICT, JJ_NS, JJ_MACRO, JJ_FUNC, JJ_LOOP, JJ_CALLER
};

struct jj_list;
struct jj_dict;
struct jj_loop;
struct jj_caller;
struct node;

struct jj_val {
	int type;
	union {
		long long i;		/* JJ_BOOL, JJ_INT; JJ_FUNC: the global */
		double f;
		struct {
			const char *p;	/* UTF-8; JJ_UNDEF: the name, or NULL */
			size_t n;
		} s;
		struct jj_list *l;
		struct jj_dict *d;	/* JJ_DICT, JJ_NS */
		const struct node *m;	/* JJ_MACRO */
		struct jj_loop *loop;
		struct jj_caller *caller;
	} u;
};

struct jj_list {
	size_t n;
	struct jj_val *v;
	int tuple;			/* a tuple: prints as one, never == a list */
};

/* Insertion order; past a few keys, an open-addressing index of them
 * (slot[i]: 1 + the key's place, 0 empty), so that building a dict of
 * n keys and looking one up take O(n) and O(1), not O(n^2) and O(n). */
struct jj_dict {
	size_t n, cap;
	struct jj_val *k, *v;
	uint32_t *slot;
	size_t nslot;			/* a power of two, or 0 */
};

/* ---- the AST ---- */

enum {
	/* statements */
	N_BLOCK, N_TEXT, N_OUT, N_IF, N_FOR, N_SET, N_SETBLOCK, N_MACRO,
	N_BREAK, N_CONTINUE, N_CALLBLOCK, N_FILTERBLOCK,
	/* expressions */
	N_LIT, N_NAME, N_ATTR, N_ITEM, N_SLICE, N_CALL, N_FILTER, N_TEST,
	N_NOT, N_NEG, N_POS, N_BIN, N_AND, N_OR, N_COND, N_LIST, N_DICT,
	N_KWARG, N_CMP
};

/* two-character operators, as the lexer codes them */
enum { OP_EQ = 256, OP_NE, OP_LE, OP_GE, OP_FLOORDIV, OP_POW, OP_IN, OP_NOTIN };

/* The fields a kind uses:
 *   N_BLOCK   v[n] statements
 *   N_TEXT    s, n
 *   N_OUT     a
 *   N_IF      a cond, b then (N_BLOCK), c else (N_BLOCK, N_IF or NULL)
 *   N_FOR     a target (N_NAME or N_LIST of N_NAME), b iterable, c body,
 *             d else body or NULL, e filter condition or NULL
 *   N_SET     a target (N_NAME, N_ATTR of a N_NAME, N_LIST), b value
 *   N_SETBLOCK a target, b body
 *   N_MACRO   s name, v[n] parameters (N_NAME, or N_KWARG with default), c body
 *   N_CALLBLOCK a the N_CALL, b the caller (an N_MACRO "caller")
 *   N_FILTERBLOCK a the filters (N_FILTER ...) applied to an N_LIT of op 1,
 *             which stands for the body, b the body
 *   N_LIT     lit (op 1: a filter block's body instead)
 *   N_NAME    s (NUL-terminated), n
 *   N_ATTR    a object, s name
 *   N_ITEM    a object, b index
 *   N_SLICE   a object, b start, c stop, d step (each may be NULL)
 *   N_CALL    a callee, v[n] arguments (N_KWARG s=name a=value; s=NULL:
 *             a is *list (op 1) or **dict (op 2))
 *   N_FILTER  a operand, s name, v[n] arguments
 *   N_TEST    a operand, s name, v[n] arguments, op 1 if negated
 *   N_NOT, N_NEG, N_POS  a
 *   N_BIN     op ('+', '-', '*', '/', '%', '~', '<', '>', OP_*), a, b
 *   N_AND, N_OR  a, b
 *   N_COND    a value, b condition, c else value or NULL
 *   N_CMP     a chain of comparisons a op1 b op2 c ...: a the first
 *             operand, v[n] N_BIN nodes of op and b the next operand (a
 *             unused), each operand evaluated once, as Python's
 *   N_LIST    v[n] items; op 1: a tuple
 *   N_DICT    v[2n]: key, value, key, value, ...
 *   N_KWARG   s name, a value */
struct node {
	int kind, op, line;
	struct node *a, *b, *c, *d, *e;
	struct node **v;
	size_t n;
	const char *s;
	struct jj_val lit;
};

struct jj_tmpl {
	struct jj_arena arena;		/* the nodes and literals */
	struct node *root;		/* N_BLOCK */
	char *name;
	char *src;			/* the source with newlines normalized */
};

/* ---- rendering: jinja.c (statements, expressions, calls), jinja_val.c
 * (values, conversions, comparisons), jinja_filt.c (filters, tests,
 * methods) ---- */

struct jj_sb {				/* a growing byte buffer (malloc) */
	char *p;
	size_t n, cap;
};

struct jj_frame;

struct rd {
	const struct jj_tmpl *t;
	struct jj_arena a;		/* every value of the render */
	struct jj_limits lim;
	unsigned long long iters;
	size_t workbytes;		/* bytes charged, short of a unit */
	int calls;			/* macro calls in progress */
	int nest;			/* evaluation recursion */
	time_t now;
	struct jj_sb *out;		/* the output (a macro's while it runs) */
	struct jj_frame *root, *cur;
	struct jj_val body;		/* the innermost filter block's body */
	int failed;
};

/* Report "NAME, line L: what" (once per render) and return -1. */
int jj_err(struct rd *r, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Append to a buffer, within the output limit: 0, or -1 after jj_err. */
int jj_sb_add(struct rd *r, int line, struct jj_sb *b, const void *p, size_t n);

/* Values, allocated in the render's arena; NULL-returning ones have
 * already reported. */
struct jj_val jj_str(const char *p, size_t n);
struct jj_val jj_int(long long i);
struct jj_val jj_bool(int b);
struct jj_val jj_undef(const char *name);
struct jj_list *jj_newlist(struct rd *r, int line, size_t n);
struct jj_dict *jj_newdict(struct rd *r, int line, size_t cap);
int jj_dict_put(struct rd *r, int line, struct jj_dict *d, struct jj_val k, struct jj_val v);
struct jj_val *jj_dict_get(const struct jj_dict *d, const char *key, size_t n);
/* The place of key k in d, or -1. */
long jj_dict_find(const struct jj_dict *d, const struct jj_val *k);
/* Empty d, keeping its arrays. */
void jj_dict_clear(struct jj_dict *d);
/* Charge an operation's work to the iteration budget: one unit per
 * JJ_WORKBYTES bytes it reads or writes plus one per item it goes
 * through, so that no single operation runs unbounded by the limits.
 * 0, or -1 after jj_err. */
#define JJ_WORKBYTES 64
int jj_charge(struct rd *r, int line, size_t bytes, size_t items);
/* n items of size bytes in the arena; NULL after jj_err. */
void *jj_ralloc(struct rd *r, int line, size_t n, size_t size);
int jj_sb_str(struct rd *r, int line, struct jj_sb *b, const char *s);
/* A string value's bytes NUL-terminated (a copy if needed); NULL after
 * jj_err. */
const char *jj_cstr(struct rd *r, int line, const struct jj_val *v);
/* A copy of b's bytes in the arena as a string value. */
int jj_sb_val(struct rd *r, int line, struct jj_sb *b, struct jj_val *out);

const char *jj_typename(const struct jj_val *v);
int jj_truthy(const struct jj_val *v);
int jj_eq(const struct jj_val *a, const struct jj_val *b);
/* jj_eq, adding to *work the bytes and items it compared (its cost, for
 * jj_charge: a compare of lists may go through far more than their
 * lengths). */
int jj_eq_work(const struct jj_val *a, const struct jj_val *b, size_t *work);
/* What v holds, for jj_charge: a string's bytes / JJ_WORKBYTES, a list's
 * or dict's items, else 1. */
size_t jj_size(const struct jj_val *v);
/* Python's <: *lt set, 0; -1 after jj_err if a and b do not compare. */
int jj_less(struct rd *r, int line, const struct jj_val *a, const struct jj_val *b, int *lt);
int jj_isnum(const struct jj_val *v);
double jj_numf(const struct jj_val *v);
/* Sort idx[0..n) by v[idx[i]] (Python's <), stable, descending if rev. */
int jj_sort(struct rd *r, int line, struct jj_val *v, size_t *idx, size_t n, int rev);
/* str(v) (repr: repr(v)) appended to b. */
int jj_write(struct rd *r, int line, struct jj_sb *b, const struct jj_val *v, int repr);
/* str(v) as a string value (strings as they are). */
int jj_tostr(struct rd *r, int line, const struct jj_val *v, struct jj_val *out);
/* Characters in a UTF-8 string; byte offset of character i. */
size_t jj_ulen(const char *s, size_t n);
size_t jj_uoff(const char *s, size_t n, size_t i);

/* Arguments of a call: positional ones, then keyword ones. */
struct jj_args {
	struct jj_val *v;
	size_t n;
	const char **kw;
	struct jj_val *kv;
	size_t nkw;
};
/* Argument i (JJ_KW: none), or the keyword name, or NULL. */
#define JJ_KW ((size_t)-1)
struct jj_val *jj_arg(struct jj_args *a, size_t i, const char *name);
/* v is a string (an integer, stored in *out): 0, else -1 after jj_err
 * naming what. */
int jj_want_str(struct rd *r, int line, const char *what, struct jj_val *v);
int jj_want_int(struct rd *r, int line, const char *what, struct jj_val *v, long long *out);
/* The tojson filter: json.dumps(v, ensure_ascii=False, indent=...,
 * separators=..., sort_keys=...) as transformers defines it. */
int jj_tojson(struct rd *r, int line, struct jj_val *v, struct jj_args *a, struct jj_val *out);

int jj_filter(struct rd *r, int line, const char *name, struct jj_val *v,
    struct jj_args *a, struct jj_val *out);
int jj_test(struct rd *r, int line, const char *name, struct jj_val *v,
    struct jj_args *a, int *res);
/* obj.name(args) for strings and dicts: 1 with *out set, 0 if there is
 * no such method, -1 after jj_err. */
int jj_method(struct rd *r, int line, struct jj_val *obj, const char *name,
    struct jj_args *a, struct jj_val *out);

#endif
