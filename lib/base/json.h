/* json.h: an RFC 8259 parser for the files a model folder holds.
 *
 * json_parse() builds the whole tree in one arena owned by struct json_doc;
 * json_free() releases it.  Strings are decoded (escapes, surrogate pairs)
 * to UTF-8, NUL-terminated, with their length (they may hold "\u0000").
 * Numbers keep the text as written; json_int()/json_num() convert it. */
#ifndef JSON_H
#define JSON_H

#include <stddef.h>
#include <stdio.h>

#include "base/util.h"

#define JSON_MAXDEPTH 512

enum json_type {
	JSON_NULL, JSON_FALSE, JSON_TRUE, JSON_NUMBER, JSON_STRING,
	JSON_ARRAY, JSON_OBJECT
};

struct json_member;

struct json {
	enum json_type type;
	size_t len;			/* string bytes, array items, object members */
	union {
		const char *str;	/* JSON_STRING: decoded, NUL-terminated */
		const char *num;	/* JSON_NUMBER: the text as written (len bytes) */
		struct json *items;	/* JSON_ARRAY: len items */
		struct json_member *members; /* JSON_OBJECT: len members, in file order */
	} u;
};

struct json_member {
	const char *key;		/* decoded, NUL-terminated */
	size_t keylen;
	struct json value;
};

struct json_doc {
	struct json *root;
	void *arena;			/* private */
};

/* Parse buf[0..len).  On success fill doc and return 0; on malformed input
 * return -1 and write "line L, column C: what" into err (errlen bytes).
 * Out of memory is reported the same way.  Free with json_free(). */
int json_parse(struct json_doc *doc, const char *buf, size_t len, char *err, size_t errlen);
/* Release a document; accepts a zeroed or failed one. */
void json_free(struct json_doc *doc);

/* The member of an object named key (first match), or NULL if j is not an
 * object or has no such member. */
const struct json *json_get(const struct json *j, const char *key);
/* j's number as an integer in [min, max]: 0, or -1 if j is not a number,
 * not written as an integer or out of range.  "2.0", "1e3" and, when min
 * >= 0, "-0" are refused: the readers that define the formats we read
 * take only integer literals where an integer is due (serde's usize and
 * u32 in safetensors and tokenizers; Python's int in transformers, whose
 * layers fail on a float size). */
int json_int(const struct json *j, long long min, long long max, long long *out);
/* j's number as a double: 0, or -1 if not a number. */
int json_num(const struct json *j, double *out);
/* 1 if j is a JSON true, 0 if false, -1 otherwise. */
int json_bool(const struct json *j);
/* j's string, or NULL if j is NULL or not a string. */
const char *json_str(const struct json *j);
/* "null", "false", ..., "object": for messages. */
const char *json_typename(enum json_type t);

/* Map a whole file and parse it; messages name the file.  0, or -1
 * after error(). */
int json_load(struct json_doc *doc, const char *path);

/* ---- Members read without a tree ----
 *
 * A tokenizer's vocabulary and merges, hundreds of thousands of strings,
 * took more memory and time as a tree than the tables made from them.
 * With a hook, the parser offers each member of one object (the value
 * of the root object's first member named obj, if that is an object) to
 * the hook before reading its value; the hook may read the value itself
 * through the json_in_* calls, and the member is then left out of the
 * tree.  Errors are the parser's ("line L, column C: ...").  Once the
 * object's closing brace is read, member is called once more with key
 * NULL. */
struct json_in;			/* the parser */

struct json_hook {
	const char *obj;
	/* The value of key (keylen bytes) is next: 1 if the hook read it,
	 * 0 to leave it to the parser, -1 after json_in_fail(). */
	int (*member)(void *ctx, struct json_in *in, const char *key, size_t keylen);
	void *ctx;
};

int json_parse_hook(struct json_doc *doc, const char *buf, size_t len,
    const struct json_hook *hook, char *err, size_t errlen);
int json_load_hook(struct json_doc *doc, const char *path, const struct json_hook *hook);

/* The next byte after white space (not consumed), or -1 at the end. */
int json_in_peek(struct json_in *in);
/* Bytes left after the cursor. */
size_t json_in_left(const struct json_in *in);
/* The string at the cursor, decoded (*s: in the text when it has no
 * escapes, else in a buffer of the parser's, NUL-terminated there; valid
 * until the next call).  0, or -1 (not a string, or malformed). */
int json_in_str(struct json_in *in, const char **s, size_t *n);
/* The value at the cursor as an integer in [min, max] (json_int's
 * rules): 0 and *v; 1 if it is another value (read); -1 if malformed. */
int json_in_int(struct json_in *in, long long min, long long max, long long *v);
/* The value at the cursor, into the document's tree.  0, or -1. */
int json_in_value(struct json_in *in, struct json *j);
/* Step through the object or array at the cursor, it zeroed before the
 * first call: json_in_member gives 1 and the next key (its ':' read, the
 * value next; *key as json_in_str's), json_in_item 1 if an item is
 * next; both 0 once the closing bracket is read, -1 if malformed. */
struct json_iter {
	size_t n;
};
int json_in_member(struct json_in *in, struct json_iter *it, const char **key, size_t *keylen);
int json_in_item(struct json_in *in, struct json_iter *it);
/* The common cases of a tokenizer's vocab and merges, each item past
 * the first in one call: nothing is read and 0 is returned unless the
 * whole item is one (then json_in_member etc. read it, with their
 * errors).  json_in_member_int: 1, the next member's key (in the text:
 * no escapes) and its value, a plain integer in [0, max].
 * json_in_item_strs: 1 if the next item is a string without escapes
 * (s[0], n[0], in the text), 2 if it is an array of two (s[0..1]). */
int json_in_member_int(struct json_in *in, struct json_iter *it, const char **key,
    size_t *keylen, long long max, long long *v);
int json_in_item_strs(struct json_in *in, struct json_iter *it, const char *s[2], size_t n[2]);
/* The cursor, to come back to a value read before (its pages may have
 * been given back: they are read again from the file). */
struct json_pos {
	const char *p;
	int depth;
};
struct json_pos json_in_tell(const struct json_in *in);
void json_in_seek(struct json_in *in, struct json_pos pos);
/* Fail at the cursor with a message of the hook's: -1. */
int json_in_fail(struct json_in *in, const char *fmt, ...);

/* The writer: s[0..n) as a quoted JSON string, '"', '\\' and the control
 * characters escaped, every other byte (UTF-8) as it is. */
void json_put_str(struct buf *b, const char *s, size_t n);
/* The same, the NUL-terminated s onto f. */
void json_write_str(FILE *f, const char *s);
/* j as compact JSON (numbers as written, strings escaped as above). */
void json_put(struct buf *b, const struct json *j);

#endif
