/* json.c: RFC 8259, recursive descent into one arena.
 *
 * Children of an open container collect on a scratch stack shared by all
 * levels; when the container closes they are copied into the arena in one
 * piece, so arrays and objects are plain C arrays. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/json.h"
#include "base/util.h"

struct chunk {
	struct chunk *next;
	size_t used, cap;
	max_align_t data[];
};

struct json_in {
	const char *s, *p, *end;
	struct chunk *arena;
	size_t hint;			/* size for the next arena chunk */
	struct json *items;		/* scratch stack of array items */
	size_t nitems, capitems;
	struct json_member *members;	/* scratch stack of object members */
	size_t nmembers, capmembers;
	int depth;
	char *err;
	size_t errlen;
	int failed;
	const struct json_hook *hook;
	int hooked;			/* the hook's object was met */
	char *sbuf;			/* json_in_str's decoded strings */
	size_t scap;
	const char *dropped;		/* a file mapping: pages before this
					 * were given back (NULL: not a mapping) */
};

/* n bytes aligned to al (a power of two, at most max_align_t's) */
static inline void *
arena_get(struct json_in *ps, size_t n, size_t al)
{
	struct chunk *c = ps->arena;
	size_t cap, at = 0;
	void *p;

	if (c)
		at = (c->used + al - 1) & ~(al - 1);
	if (!c || at > c->cap || c->cap - at < n) {
		cap = n > ps->hint ? n : ps->hint;
		ps->hint = cap * 2;
		if (!(c = mem_map(sizeof(*c) + cap)))
			return NULL;
		c->used = 0;
		c->cap = cap;
		c->next = ps->arena;
		ps->arena = c;
		at = 0;
	}
	p = (char *)c->data + at;
	c->used = at + n;
	return p;
}

static void *
arena_alloc(struct json_in *ps, size_t n)
{
	return arena_get(ps, n, sizeof(max_align_t));
}

/* text (strings, numbers) needs no alignment: a vocabulary's hundreds of
 * thousands of short strings took 16 bytes each at least */
static char *
arena_text(struct json_in *ps, size_t n)
{
	return arena_get(ps, n, 1);
}

static int
vfail(struct json_in *ps, const char *fmt, va_list ap)
{
	const char *q;
	size_t line = 1, col = 1;
	int n;

	if (ps->failed)
		return -1;
	ps->failed = 1;
	for (q = ps->s; q < ps->p && q < ps->end; q++) {
		if (*q == '\n')
			line++, col = 1;
		else if (((unsigned char)*q & 0xc0) != 0x80)
			col++;
	}
	n = snprintf(ps->err, ps->errlen, "line %zu, column %zu: ", line, col);
	if (n >= 0 && (size_t)n < ps->errlen)
		vsnprintf(ps->err + n, ps->errlen - n, fmt, ap);
	return -1;
}

static int
fail(struct json_in *ps, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vfail(ps, fmt, ap);
	va_end(ap);
	return r;
}

static int
nomem(struct json_in *ps)
{
	return fail(ps, "out of memory");
}

/* in locals: through ps, each byte was loaded and stored again (a
 * pretty-printed tokenizer.json is a third indentation); eight bytes to
 * a bound check */
static const unsigned char ws[256] = { [' '] = 1, ['\n'] = 1, ['\t'] = 1, ['\r'] = 1 };

static void
skipws_run(struct json_in *ps)
{
	const unsigned char *p = (const unsigned char *)ps->p, *e = (const unsigned char *)ps->end;

	while (e - p >= 8) {
		if (!ws[p[0]]) goto out;
		if (!ws[p[1]]) { p += 1; goto out; }
		if (!ws[p[2]]) { p += 2; goto out; }
		if (!ws[p[3]]) { p += 3; goto out; }
		if (!ws[p[4]]) { p += 4; goto out; }
		if (!ws[p[5]]) { p += 5; goto out; }
		if (!ws[p[6]]) { p += 6; goto out; }
		if (!ws[p[7]]) { p += 7; goto out; }
		p += 8;
	}
	while (p < e && ws[*p])
		p++;
out:
	ps->p = (const char *)p;
}

/* most calls meet no white space at all, or the one space after ':' */
static inline void
skipws(struct json_in *ps)
{
	const char *p = ps->p;

	if (p < ps->end && ws[(unsigned char)*p]) {
		if (ps->end - p >= 2 && !ws[(unsigned char)p[1]])
			ps->p = p + 1;
		else
			skipws_run(ps);
	}
}

static int
hex4(const char *p)
{
	int i, v = 0, d;

	for (i = 0; i < 4; i++) {
		if (p[i] >= '0' && p[i] <= '9')
			d = p[i] - '0';
		else if (p[i] >= 'a' && p[i] <= 'f')
			d = p[i] - 'a' + 10;
		else if (p[i] >= 'A' && p[i] <= 'F')
			d = p[i] - 'A' + 10;
		else
			return -1;
		v = v << 4 | d;
	}
	return v;
}

static char *
put_utf8(char *o, uint32_t c)
{
	if (c < 0x80) {
		*o++ = c;
	} else if (c < 0x800) {
		*o++ = 0xc0 | c >> 6;
		*o++ = 0x80 | (c & 0x3f);
	} else if (c < 0x10000) {
		*o++ = 0xe0 | c >> 12;
		*o++ = 0x80 | (c >> 6 & 0x3f);
		*o++ = 0x80 | (c & 0x3f);
	} else {
		*o++ = 0xf0 | c >> 18;
		*o++ = 0x80 | (c >> 12 & 0x3f);
		*o++ = 0x80 | (c >> 6 & 0x3f);
		*o++ = 0x80 | (c & 0x3f);
	}
	return o;
}

/* Length of the valid UTF-8 sequence at p (1..4), or 0 if invalid:
 * not overlong, not a surrogate, not past U+10FFFF (the second byte's
 * range for the lead bytes where those begin). */
static inline int
utf8_valid(const unsigned char *p, const unsigned char *end)
{
	unsigned c = p[0];

	if (c < 0x80)
		return 1;
	if (c < 0xe0)
		return c >= 0xc2 && end - p >= 2 && (p[1] & 0xc0) == 0x80 ? 2 : 0;
	if (c < 0xf0) {
		if (end - p < 3 || (p[1] & 0xc0) != 0x80 || (p[2] & 0xc0) != 0x80 ||
		    (c == 0xe0 && p[1] < 0xa0) || (c == 0xed && p[1] >= 0xa0))
			return 0;
		return 3;
	}
	if (c > 0xf4 || end - p < 4 || (p[1] & 0xc0) != 0x80 ||
	    (p[2] & 0xc0) != 0x80 || (p[3] & 0xc0) != 0x80 ||
	    (c == 0xf0 && p[1] < 0x90) || (c == 0xf4 && p[1] >= 0x90))
		return 0;
	return 4;
}

/* 1 for the bytes a string holds as they are and str_scan passes */
static const unsigned char plain[256] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
};

/* The string at ps->p (on its opening quote; ps->p is left past it):
 * *endq its closing quote, *slow 1 if it has escapes or errors.  Nearly
 * every string has neither:
 * it is checked here and can be copied whole; the others are decoded, and
 * their errors reported, by str_decode. */
static int
str_scan(struct json_in *ps, const char **endq, int *slow)
{
	const char *q = ++ps->p, *e = ps->end;
	int n;

	*slow = 0;
	while (q < e) {
		unsigned char c;
		/* printable ASCII but '"' and '\\', four bytes to a bound
		 * check */
		while (e - q >= 4) {
			if (!plain[(unsigned char)q[0]]) break;
			if (!plain[(unsigned char)q[1]]) { q += 1; break; }
			if (!plain[(unsigned char)q[2]]) { q += 2; break; }
			if (!plain[(unsigned char)q[3]]) { q += 3; break; }
			q += 4;
		}
		if (q >= e || (c = *q) == '"')
			break;
		if (plain[c]) {
			q++;
		} else if (c == '\\') {
			*slow = 1;
			if ((q += 2) > e)
				q = e;
		} else if (c >= 0x80 && (n = utf8_valid((const unsigned char *)q,
		    (const unsigned char *)e))) {
			q += n;
		} else {
			*slow = 1;
			q++;
		}
	}
	if (q >= e)
		return fail(ps, "unterminated string");
	*endq = q;
	return 0;
}

/* Decode the string after ps->p (past its opening quote, up to the
 * closing one str_scan found) into o, which has room for as many bytes
 * as the text; ps->p ends past the closing quote, *oend after the last
 * byte written. */
static int
str_decode(struct json_in *ps, char *o, char **oend)
{
	int u, lo, n;

	while (*ps->p != '"') {
		unsigned char c = *ps->p;

		if (c < 0x20)
			return fail(ps, "control character 0x%02x in string", c);
		if (c != '\\') {
			if (!(n = utf8_valid((const unsigned char *)ps->p,
			    (const unsigned char *)ps->end)))
				return fail(ps, "invalid UTF-8 in string");
			memcpy(o, ps->p, n);
			o += n;
			ps->p += n;
			continue;
		}
		ps->p++;
		switch (*ps->p++) {
		case '"':  *o++ = '"'; break;
		case '\\': *o++ = '\\'; break;
		case '/':  *o++ = '/'; break;
		case 'b':  *o++ = '\b'; break;
		case 'f':  *o++ = '\f'; break;
		case 'n':  *o++ = '\n'; break;
		case 'r':  *o++ = '\r'; break;
		case 't':  *o++ = '\t'; break;
		case 'u':
			ps->p--;
			if (ps->end - ps->p < 5 || (u = hex4(ps->p + 1)) < 0)
				return fail(ps, "invalid \\u escape");
			ps->p += 5;
			if (u >= 0xdc00 && u <= 0xdfff)
				return fail(ps, "lone low surrogate \\u%04x", u);
			if (u >= 0xd800 && u <= 0xdbff) {
				if (ps->end - ps->p < 6 || ps->p[0] != '\\' ||
				    ps->p[1] != 'u' || (lo = hex4(ps->p + 2)) < 0 ||
				    lo < 0xdc00 || lo > 0xdfff)
					return fail(ps, "high surrogate \\u%04x without its low half", u);
				ps->p += 6;
				u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
			}
			o = put_utf8(o, u);
			break;
		default:
			ps->p--;
			return fail(ps, "invalid escape '\\%c'", *ps->p);
		}
	}
	ps->p++;
	*oend = o;
	return 0;
}

/* Parse a string at ps->p (on the opening quote) into the arena. */
static int
parse_string(struct json_in *ps, const char **out, size_t *outlen)
{
	const char *q, *start = ps->p + 1;
	char *buf, *o;
	int slow;

	if (str_scan(ps, &q, &slow) < 0)
		return -1;
	if (!(buf = arena_text(ps, q - start + 1)))
		return nomem(ps);
	if (!slow) {
		memcpy(buf, start, q - start);
		o = buf + (q - start);
		ps->p = q + 1;
	} else if (str_decode(ps, buf, &o) < 0) {
		return -1;
	}
	*o = '\0';
	*out = buf;
	*outlen = o - buf;
	return 0;
}

static int
isdigit_(char c)
{
	return c >= '0' && c <= '9';
}

static int
parse_number(struct json_in *ps, struct json *j)
{
	const char *start = ps->p, *p = ps->p, *e = ps->end;
	char *copy;

	if (p < e && *p == '-')
		p++;
	if (p < e && *p == '0')
		p++;
	else if (p < e && isdigit_(*p))
		while (p < e && isdigit_(*p))
			p++;
	else
		return ps->p = p, fail(ps, "invalid number");
	if (p < e && *p == '.') {
		if (++p >= e || !isdigit_(*p))
			return ps->p = p, fail(ps, "invalid number: digit expected after '.'");
		while (p < e && isdigit_(*p))
			p++;
	}
	if (p < e && (*p == 'e' || *p == 'E')) {
		p++;
		if (p < e && (*p == '+' || *p == '-'))
			p++;
		if (p >= e || !isdigit_(*p))
			return ps->p = p, fail(ps, "invalid number: digit expected in exponent");
		while (p < e && isdigit_(*p))
			p++;
	}
	if (!(copy = arena_text(ps, p - start + 1)))
		return nomem(ps);
	memcpy(copy, start, p - start);
	copy[p - start] = '\0';
	j->type = JSON_NUMBER;
	j->u.num = copy;
	j->len = p - start;
	ps->p = p;
	return 0;
}

static int
literal(struct json_in *ps, const char *word, enum json_type t, struct json *j)
{
	size_t n = strlen(word);

	if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, word, n))
		return fail(ps, "invalid literal");
	ps->p += n;
	j->type = t;
	j->len = 0;
	return 0;
}

static int parse_value(struct json_in *ps, struct json *j);

/* Double a scratch stack (mem_map'd: see util.h on page faults). */
static int
grow(void **p, size_t *cap, size_t size)
{
	size_t ncap = *cap ? *cap * 2 : (((size_t)2 << 20) + size - 1) / size, bytes;
	void *q;

	if (size_mul(&bytes, ncap, size) < 0 || !(q = mem_map(bytes)))
		return -1;
	if (*p) {
		memcpy(q, *p, *cap * size);
		mem_unmap(*p, *cap * size);
	}
	*p = q;
	*cap = ncap;
	return 0;
}

static int
push_item(struct json_in *ps, const struct json *j)
{
	if (ps->nitems == ps->capitems &&
	    grow((void **)&ps->items, &ps->capitems, sizeof(*ps->items)) < 0)
		return nomem(ps);
	ps->items[ps->nitems++] = *j;
	return 0;
}

static int
push_member(struct json_in *ps, const struct json_member *m)
{
	if (ps->nmembers == ps->capmembers &&
	    grow((void **)&ps->members, &ps->capmembers, sizeof(*ps->members)) < 0)
		return nomem(ps);
	ps->members[ps->nmembers++] = *m;
	return 0;
}

/* Pages of a file mapping behind the cursor are given back as it
 * passes: the tree holds copies, and a 33 MB file would otherwise be all
 * resident by the end (see bench/NOTES.md, "tokenizer.json without a
 * tree"). */
#define DROPSTEP ((size_t)4 << 20)

static inline void
drop_behind(struct json_in *ps)
{
	if (ps->dropped && ps->p > ps->dropped &&
	    (size_t)(ps->p - ps->dropped) >= DROPSTEP) {
		mem_drop(ps->dropped, ps->p - ps->dropped);
		ps->dropped = ps->p;
	}
}

static int
parse_array(struct json_in *ps, struct json *j)
{
	size_t base = ps->nitems, n;
	struct json v;

	ps->p++;
	skipws(ps);
	if (ps->p < ps->end && *ps->p == ']') {
		ps->p++;
	} else {
		for (;;) {
			if (parse_value(ps, &v) < 0 || push_item(ps, &v) < 0)
				return -1;
			drop_behind(ps);
			skipws(ps);
			if (ps->p >= ps->end)
				return fail(ps, "unterminated array");
			if (*ps->p == ']') {
				ps->p++;
				break;
			}
			if (*ps->p != ',')
				return fail(ps, "expected ',' or ']' in array");
			ps->p++;
		}
	}
	n = ps->nitems - base;
	j->type = JSON_ARRAY;
	j->len = n;
	j->u.items = NULL;
	if (n) {
		if (!(j->u.items = arena_alloc(ps, n * sizeof(struct json))))
			return nomem(ps);
		memcpy(j->u.items, ps->items + base, n * sizeof(struct json));
	}
	ps->nitems = base;
	return 0;
}

/* hooked: this is the object whose members ps->hook is offered */
static int
parse_object(struct json_in *ps, struct json *j, int hooked)
{
	size_t base = ps->nmembers, n;
	struct json_member m;
	int r;

	ps->p++;
	skipws(ps);
	if (ps->p < ps->end && *ps->p == '}') {
		ps->p++;
	} else {
		for (;;) {
			skipws(ps);
			if (ps->p >= ps->end || *ps->p != '"')
				return fail(ps, "expected a string key in object");
			if (parse_string(ps, &m.key, &m.keylen) < 0)
				return -1;
			skipws(ps);
			if (ps->p >= ps->end || *ps->p != ':')
				return fail(ps, "expected ':' after object key");
			ps->p++;
			r = 0;
			if (hooked && (r = ps->hook->member(ps->hook->ctx, ps,
			    m.key, m.keylen)) < 0)
				return fail(ps, "error in a hook");	/* if it did not say */
			if (!r && ps->depth == 1 && ps->hook && !ps->hooked &&
			    m.keylen == strlen(ps->hook->obj) &&
			    !memcmp(m.key, ps->hook->obj, m.keylen)) {
				ps->hooked = 1;
				skipws(ps);
				if (ps->p < ps->end && *ps->p == '{') {
					if (++ps->depth > JSON_MAXDEPTH)
						return fail(ps, "nesting deeper than %d", JSON_MAXDEPTH);
					r = parse_object(ps, &m.value, 1);
					ps->depth--;
					if (r < 0 || push_member(ps, &m) < 0)
						return -1;
					r = 1;
				}
			}
			if (!r && (parse_value(ps, &m.value) < 0 || push_member(ps, &m) < 0))
				return -1;
			drop_behind(ps);
			skipws(ps);
			if (ps->p >= ps->end)
				return fail(ps, "unterminated object");
			if (*ps->p == '}') {
				ps->p++;
				break;
			}
			if (*ps->p != ',')
				return fail(ps, "expected ',' or '}' in object");
			ps->p++;
		}
	}
	if (hooked && ps->hook->member(ps->hook->ctx, ps, NULL, 0) < 0)
		return fail(ps, "error in a hook");
	n = ps->nmembers - base;
	j->type = JSON_OBJECT;
	j->len = n;
	j->u.members = NULL;
	if (n) {
		if (!(j->u.members = arena_alloc(ps, n * sizeof(struct json_member))))
			return nomem(ps);
		memcpy(j->u.members, ps->members + base, n * sizeof(struct json_member));
	}
	ps->nmembers = base;
	return 0;
}

static int
parse_value(struct json_in *ps, struct json *j)
{
	int r;

	skipws(ps);
	if (ps->p >= ps->end)
		return fail(ps, "unexpected end of input");
	switch (*ps->p) {
	case '{':
	case '[':
		if (++ps->depth > JSON_MAXDEPTH)
			return fail(ps, "nesting deeper than %d", JSON_MAXDEPTH);
		r = *ps->p == '{' ? parse_object(ps, j, 0) : parse_array(ps, j);
		ps->depth--;
		return r;
	case '"':
		j->type = JSON_STRING;
		return parse_string(ps, &j->u.str, &j->len);
	case 't':
		return literal(ps, "true", JSON_TRUE, j);
	case 'f':
		return literal(ps, "false", JSON_FALSE, j);
	case 'n':
		return literal(ps, "null", JSON_NULL, j);
	default:
		if (*ps->p == '-' || isdigit_(*ps->p))
			return parse_number(ps, j);
		if ((unsigned char)*ps->p >= 0x20 && (unsigned char)*ps->p < 0x7f)
			return fail(ps, "unexpected character '%c'", *ps->p);
		return fail(ps, "unexpected byte 0x%02x", (unsigned char)*ps->p);
	}
}

static void
arena_free(struct chunk *c)
{
	struct chunk *next;

	for (; c; c = next) {
		next = c->next;
		mem_unmap(c, sizeof(*c) + c->cap);
	}
}

static int
parse(struct json_doc *doc, const char *buf, size_t len, const struct json_hook *hook,
    int mapped, char *err, size_t errlen)
{
	struct json_in ps = { 0 };
	struct json *root;

	doc->root = NULL;
	doc->arena = NULL;
	ps.s = ps.p = buf;
	ps.end = buf + len;
	ps.err = err;
	ps.errlen = errlen;
	ps.hook = hook;
	ps.dropped = mapped ? buf : NULL;
	/* Decoded strings, numbers and nodes take about 1.5 times the text
	 * for tokenizer.json; one chunk of that size avoids most regrowth
	 * (a hook that reads the bulk itself leaves most of it untouched,
	 * and untouched pages cost nothing). */
	ps.hint = len + len / 2 > 65536 ? len + len / 2 : 65536;
	if (errlen)
		err[0] = '\0';
	if (!(root = arena_alloc(&ps, sizeof(*root))))
		nomem(&ps);
	else if (parse_value(&ps, root) == 0) {
		skipws(&ps);
		if (ps.p != ps.end)
			fail(&ps, "trailing data after the JSON value");
	}
	mem_unmap(ps.items, ps.capitems * sizeof(*ps.items));
	mem_unmap(ps.members, ps.capmembers * sizeof(*ps.members));
	free(ps.sbuf);
	if (ps.failed) {
		arena_free(ps.arena);
		return -1;
	}
	doc->root = root;
	doc->arena = ps.arena;
	return 0;
}

int
json_parse(struct json_doc *doc, const char *buf, size_t len, char *err, size_t errlen)
{
	return parse(doc, buf, len, NULL, 0, err, errlen);
}

int
json_parse_hook(struct json_doc *doc, const char *buf, size_t len,
    const struct json_hook *hook, char *err, size_t errlen)
{
	return parse(doc, buf, len, hook, 0, err, errlen);
}

/* ---- for hooks ---- */

int
json_in_peek(struct json_in *in)
{
	skipws(in);
	return in->p < in->end ? (unsigned char)*in->p : -1;
}

size_t
json_in_left(const struct json_in *in)
{
	return in->end - in->p;
}

int
json_in_str(struct json_in *in, const char **s, size_t *n)
{
	const char *q, *start;
	char *o;
	int slow;

	skipws(in);
	if (in->p >= in->end || *in->p != '"')
		return fail(in, "expected a string");
	start = in->p + 1;
	if (str_scan(in, &q, &slow) < 0)
		return -1;
	if (!slow) {
		in->p = q + 1;
		*s = start;
		*n = q - start;
		return 0;
	}
	if ((size_t)(q - start) >= in->scap) {
		size_t c = (q - start) + 64;
		if (!(o = realloc(in->sbuf, c)))
			return nomem(in);
		in->sbuf = o, in->scap = c;
	}
	if (str_decode(in, in->sbuf, &o) < 0)
		return -1;
	*o = '\0';
	*s = in->sbuf;
	*n = o - in->sbuf;
	return 0;
}

int
json_in_int(struct json_in *in, long long min, long long max, long long *v)
{
	const char *p, *e = in->end;
	long long x = 0;
	struct json j;
	size_t k;

	skipws(in);
	/* plain digits (a vocabulary has hundreds of thousands of ids),
	 * else through the parser and json_int */
	p = in->p;
	for (k = 0; k < 10 && p + k < e && isdigit_(p[k]); k++)
		x = x * 10 + (p[k] - '0');
	if (k && k < 10 && (k == 1 || p[0] != '0') && (p + k == e ||
	    (!isdigit_(p[k]) && p[k] != '.' && p[k] != 'e' && p[k] != 'E'))) {
		in->p = p + k;
		if (x < min || x > max)
			return 1;
		*v = x;
		return 0;
	}
	if (parse_value(in, &j) < 0)
		return -1;
	return json_int(&j, min, max, v) < 0 ? 1 : 0;
}

int
json_in_value(struct json_in *in, struct json *j)
{
	return parse_value(in, j);
}

int
json_in_member(struct json_in *in, struct json_iter *it, const char **key, size_t *keylen)
{
	skipws(in);
	if (!it->n) {
		if (in->p >= in->end || *in->p != '{')
			return fail(in, "expected an object");
		if (++in->depth > JSON_MAXDEPTH)
			return fail(in, "nesting deeper than %d", JSON_MAXDEPTH);
		in->p++;
		skipws(in);
		if (in->p < in->end && *in->p == '}') {
			in->p++;
			in->depth--;
			it->n = 1;
			return 0;
		}
	} else {
		drop_behind(in);
		if (in->p >= in->end)
			return fail(in, "unterminated object");
		if (*in->p == '}') {
			in->p++;
			in->depth--;
			return 0;
		}
		if (*in->p != ',')
			return fail(in, "expected ',' or '}' in object");
		in->p++;
		skipws(in);
	}
	it->n++;
	if (in->p >= in->end || *in->p != '"')
		return fail(in, "expected a string key in object");
	if (json_in_str(in, key, keylen) < 0)
		return -1;
	skipws(in);
	if (in->p >= in->end || *in->p != ':')
		return fail(in, "expected ':' after object key");
	in->p++;
	return 1;
}

int
json_in_item(struct json_in *in, struct json_iter *it)
{
	skipws(in);
	if (!it->n) {
		if (in->p >= in->end || *in->p != '[')
			return fail(in, "expected an array");
		if (++in->depth > JSON_MAXDEPTH)
			return fail(in, "nesting deeper than %d", JSON_MAXDEPTH);
		in->p++;
		skipws(in);
		it->n = 1;
		if (in->p < in->end && *in->p == ']') {
			in->p++;
			in->depth--;
			return 0;
		}
		return 1;
	}
	drop_behind(in);
	if (in->p >= in->end)
		return fail(in, "unterminated array");
	if (*in->p == ']') {
		in->p++;
		in->depth--;
		return 0;
	}
	if (*in->p != ',')
		return fail(in, "expected ',' or ']' in array");
	in->p++;
	it->n++;
	return 1;
}

/* ---- the common cases, in locals: nothing is consumed unless the whole
 * item is one; else 0, and the general calls read it and give its
 * errors ---- */

/* a pretty-printed file's runs are a newline and 6 or 8 spaces */
static inline const char *
ws_at(const char *p, const char *e)
{
	if (p < e && *p == '\n') {
		p++;
		while (e - p >= 4 && !memcmp(p, "    ", 4))
			p += 4;
		if (e - p >= 2 && !memcmp(p, "  ", 2))
			p += 2;
	}
	while (p < e && ws[(unsigned char)*p])
		p++;
	return p;
}

/* past the string opening at p (on its quote) when it has no escapes
 * and is valid, its text at *s, *len bytes; else NULL */
static inline const char *
plain_str(const char *p, const char *e, const char **s, size_t *len)
{
	int n;

	if (p >= e || *p != '"')
		return NULL;
	for (*s = ++p; p < e; ) {
		unsigned char c = *p;
		if (plain[c]) {
			p++;
		} else if (c == '"') {
			*len = (size_t)(p - *s);
			return p + 1;
		} else if (c >= 0x80 && (n = utf8_valid((const unsigned char *)p,
		    (const unsigned char *)e))) {
			p += n;
		} else {
			return NULL;
		}
	}
	return NULL;
}

/* The next item of the fast readers: past the comma that follows the
 * one read last, or NULL (the first item, or no comma: the slow path). */
static const char *
next_item(struct json_in *in, const struct json_iter *it)
{
	const char *p, *e = in->end;

	if (!it->n)
		return NULL;
	drop_behind(in);
	p = ws_at(in->p, e);
	if (p >= e || *p != ',')
		return NULL;
	return ws_at(p + 1, e);
}

int
json_in_member_int(struct json_in *in, struct json_iter *it, const char **key,
    size_t *keylen, long long max, long long *v)
{
	const char *p, *e = in->end, *k;
	long long x = 0;
	size_t d, kl;

	if (!(p = next_item(in, it)))
		return 0;
	if (!(p = plain_str(p, e, &k, &kl)))
		return 0;
	p = ws_at(p, e);
	if (p >= e || *p != ':')
		return 0;
	p = ws_at(p + 1, e);
	for (d = 0; d < 10 && p + d < e && isdigit_(p[d]); d++)
		x = x * 10 + (p[d] - '0');
	if (!d || d >= 10 || (d > 1 && p[0] == '0') || p + d >= e ||
	    isdigit_(p[d]) || p[d] == '.' || p[d] == 'e' || p[d] == 'E' || x > max)
		return 0;
	in->p = p + d;
	it->n++;
	*key = k, *keylen = kl;
	*v = x;
	return 1;
}

int
json_in_item_strs(struct json_in *in, struct json_iter *it, const char *s[2], size_t n[2])
{
	const char *p, *e = in->end;

	if (!(p = next_item(in, it)))
		return 0;
	if (p < e && *p == '"') {
		if (!(p = plain_str(p, e, &s[0], &n[0])))
			return 0;
		in->p = p;
		it->n++;
		return 1;
	}
	if (p >= e || *p != '[' || in->depth >= JSON_MAXDEPTH)
		return 0;
	p = ws_at(p + 1, e);
	if (!(p = plain_str(p, e, &s[0], &n[0])))
		return 0;
	p = ws_at(p, e);
	if (p >= e || *p != ',')
		return 0;
	p = ws_at(p + 1, e);
	if (!(p = plain_str(p, e, &s[1], &n[1])))
		return 0;
	p = ws_at(p, e);
	if (p >= e || *p != ']')
		return 0;
	in->p = p + 1;
	it->n++;
	return 2;
}

struct json_pos
json_in_tell(const struct json_in *in)
{
	struct json_pos pos = { in->p, in->depth };

	return pos;
}

void
json_in_seek(struct json_in *in, struct json_pos pos)
{
	in->p = pos.p;
	in->depth = pos.depth;
}

int
json_in_fail(struct json_in *in, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vfail(in, fmt, ap);
	va_end(ap);
	return r;
}

void
json_free(struct json_doc *doc)
{
	arena_free(doc->arena);
	doc->arena = NULL;
	doc->root = NULL;
}

const struct json *
json_get(const struct json *j, const char *key)
{
	size_t i, n = strlen(key);

	if (!j || j->type != JSON_OBJECT)
		return NULL;
	for (i = 0; i < j->len; i++)
		if (j->u.members[i].keylen == n && !memcmp(j->u.members[i].key, key, n))
			return &j->u.members[i].value;
	return NULL;
}

int
json_num(const struct json *j, double *out)
{
	if (!j || j->type != JSON_NUMBER)
		return -1;
	*out = strtod(j->u.num, NULL);
	return 0;
}

int
json_int(const struct json *j, long long min, long long max, long long *out)
{
	if (!j || j->type != JSON_NUMBER || strpbrk(j->u.num, ".eE") ||
	    (min >= 0 && j->u.num[0] == '-'))
		return -1;
	return strtonum_err(j->u.num, min, max, out) ? -1 : 0;
}

int
json_bool(const struct json *j)
{
	if (!j)
		return -1;
	return j->type == JSON_TRUE ? 1 : j->type == JSON_FALSE ? 0 : -1;
}

const char *
json_str(const struct json *j)
{
	return j && j->type == JSON_STRING ? j->u.str : NULL;
}

const char *
json_typename(enum json_type t)
{
	static const char *names[] = {
		"null", "false", "true", "number", "string", "array", "object"
	};

	return (unsigned)t < LEN(names) ? names[t] : "?";
}

int
json_load_hook(struct json_doc *doc, const char *path, const struct json_hook *hook)
{
	struct stat st;
	char err[160], *buf;
	int fd, r;

	doc->root = NULL;
	doc->arena = NULL;
	if ((fd = open(path, O_RDONLY)) < 0)
		return error("%s:", path);
	if (fstat(fd, &st) < 0) {
		r = error("%s:", path);
		close(fd);
		return r;
	}
	if (S_ISDIR(st.st_mode)) {
		close(fd);
		return error("%s: is a directory", path);
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return error("%s: not a regular file", path);
	}
	if (st.st_size > (off_t)1 << 31) {
		close(fd);
		return error("%s: too large for a JSON file (%lld bytes)", path,
		    (long long)st.st_size);
	}
	if (st.st_size == 0) {
		close(fd);
		return error("%s: empty file", path);
	}
	/* mapped, not read into a buffer: the parser gives the pages back
	 * behind it (drop_behind), so a large file is never all resident */
	buf = file_map(fd, st.st_size);
	close(fd);
	if (buf == MAP_FAILED)
		return error("mmap %s:", path);
	r = parse(doc, buf, st.st_size, hook, 1, err, sizeof(err));
	munmap(buf, st.st_size);
	if (r < 0)
		return error("%s: %s", path, err);
	return 0;
}

int
json_load(struct json_doc *doc, const char *path)
{
	return json_load_hook(doc, path, NULL);
}

void
json_put_str(struct buf *b, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	size_t i, run = 0;
	char esc[6] = "\\u00";

	buf_addc(b, '"');
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c != '"' && c != '\\' && c >= 0x20)
			continue;
		buf_add(b, s + run, i - run);
		run = i + 1;
		if (c == '"' || c == '\\') {
			buf_addc(b, '\\');
			buf_addc(b, c);
		} else {
			esc[4] = hex[c >> 4];
			esc[5] = hex[c & 15];
			buf_add(b, esc, 6);
		}
	}
	buf_add(b, s + run, n - run);
	buf_addc(b, '"');
}

void
json_write_str(FILE *f, const char *s)
{
	struct buf b = { 0 };

	json_put_str(&b, s, strlen(s));
	if (!b.err)
		fwrite(b.s, 1, b.len, f);
	buf_free(&b);
}

void
json_put(struct buf *b, const struct json *j)
{
	size_t i;

	switch (j->type) {
	case JSON_NULL:   buf_adds(b, "null"); break;
	case JSON_FALSE:  buf_adds(b, "false"); break;
	case JSON_TRUE:   buf_adds(b, "true"); break;
	case JSON_NUMBER: buf_add(b, j->u.num, j->len); break;
	case JSON_STRING: json_put_str(b, j->u.str, j->len); break;
	case JSON_ARRAY:
		buf_addc(b, '[');
		for (i = 0; i < j->len; i++) {
			if (i)
				buf_adds(b, ", ");
			json_put(b, &j->u.items[i]);
		}
		buf_addc(b, ']');
		break;
	case JSON_OBJECT:
		buf_addc(b, '{');
		for (i = 0; i < j->len; i++) {
			if (i)
				buf_adds(b, ", ");
			json_put_str(b, j->u.members[i].key,
			    j->u.members[i].keylen);
			buf_adds(b, ": ");
			json_put(b, &j->u.members[i].value);
		}
		buf_addc(b, '}');
		break;
	}
}
