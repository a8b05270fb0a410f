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

#include "util.h"

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

/* Read a whole file into a malloc'd buffer (NUL appended, not counted) and
 * parse it; messages name the file.  0, or -1 after error(). */
int json_load(struct json_doc *doc, const char *path);

/* The writer: s[0..n) as a quoted JSON string, '"', '\\' and the control
 * characters escaped, every other byte (UTF-8) as it is. */
void json_put_str(struct buf *b, const char *s, size_t n);
/* The same, the NUL-terminated s onto f. */
void json_write_str(FILE *f, const char *s);
/* j as compact JSON (numbers as written, strings escaped as above). */
void json_put(struct buf *b, const struct json *j);

#endif
