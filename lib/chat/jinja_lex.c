/* jinja_lex.c: Jinja source to tokens, and the arena the template's
 * nodes and a render's values live in.
 *
 * The lexer follows Jinja2's (jinja2/lexer.py) with the options
 * transformers sets: trim_blocks (the newline right after a block or
 * comment tag is removed), lstrip_blocks (whitespace from the start of a
 * line to a block or comment tag is removed, not before {%+ or {{), the
 * explicit - and + markers, and {% raw %}.  Whitespace is Python's
 * (str.isspace), Unicode included.  jj_parse (jinja_parse.c) has
 * normalized the newlines first. */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chat/jinja.h"
#include "chat/jinja_int.h"
#include "base/util.h"

/* ---- arena ---- */

struct jj_chunk {
	struct jj_chunk *next;
	size_t used, cap;
	max_align_t data[];
};

void *
jj_alloc(struct jj_arena *a, size_t n)
{
	struct jj_chunk *c = a->head;
	size_t cap;
	void *p;

	size_t asked = n;

	if (n > ((size_t)1 << 40))
		return NULL;
	n = (n + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
	if (!c || c->cap - c->used < n) {
		cap = c ? c->cap * 2 : 4096;
		if (cap > ((size_t)1 << 24))
			cap = (size_t)1 << 24;
		if (cap < n)
			cap = n;
		if (a->limit && (a->total > a->limit || cap > a->limit - a->total))
			return NULL;
		if (!(c = malloc(sizeof(*c) + cap)))
			return NULL;
		a->total += sizeof(*c) + cap;
		c->used = 0;
		c->cap = cap;
		c->next = a->head;
		a->head = c;
	}
	p = (char *)c->data + c->used;
	c->used += n;
	a->last = p;
	a->lastn = asked;
	return p;
}

int
jj_extend(struct jj_arena *a, const void *p, size_t old, size_t n)
{
	struct jj_chunk *c = a->head;
	size_t off, rn;

	if (!c || !p || p != a->last || old != a->lastn || n > ((size_t)1 << 40))
		return 0;
	off = (size_t)((const char *)p - (const char *)c->data);
	rn = (n + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
	if (rn > c->cap - off)
		return 0;
	if (off + rn > c->used)
		c->used = off + rn;
	a->lastn = n;
	return 1;
}

void
jj_arena_free(struct jj_arena *a)
{
	struct jj_chunk *c, *next;

	for (c = a->head; c; c = next) {
		next = c->next;
		free(c);
	}
	a->head = NULL;
	a->total = 0;
}

/* ---- lexer ---- */

int
jj_perr(struct ps *p, int line, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	if (p->failed)
		return -1;
	p->failed = 1;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return error("%s, line %d: %s", p->t->name, line, msg);
}

static struct tk *
push(struct ps *p, int type, int line)
{
	struct tk *k;

	if (p->ntk == p->captk) {
		size_t cap = p->captk ? p->captk * 2 : 256;
		struct tk *q = realloc(p->tk, cap * sizeof(*q));
		if (!q) {
			jj_perr(p, line, "out of memory");
			return NULL;
		}
		p->tk = q;
		p->captk = cap;
	}
	k = &p->tk[p->ntk++];
	memset(k, 0, sizeof(*k));
	k->type = type;
	k->line = line;
	return k;
}

/* Bytes of the whitespace character at p (before end), or 0. */
static size_t
ws_at(const char *p, const char *end)
{
	uint32_t c;
	size_t n;

	if (p >= end)
		return 0;
	if (!((unsigned char)*p & 0x80))
		return jj_isspace((unsigned char)*p) ? 1 : 0;
	n = uni_decode((const unsigned char *)p, end - p, &c);
	return jj_isspace(c) ? n : 0;
}

/* Bytes of the whitespace character ending at p (after start), or 0;
 * newlines too unless nonl. */
static size_t
ws_before(const char *start, const char *p, int nonl)
{
	const char *q = p;

	if (p <= start)
		return 0;
	do
		q--;
	while (q > start && ((unsigned char)*q & 0xc0) == 0x80 && p - q < 4);
	if (nonl && *q == '\n')
		return 0;
	return ws_at(q, p) == (size_t)(p - q) ? (size_t)(p - q) : 0;
}

static int
isname0(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static int
isdigit_(int c)
{
	return c >= '0' && c <= '9';
}

int
jj_lines(const char *a, const char *b)
{
	int n = 0;

	for (; a < b; a++)
		n += *a == '\n';
	return n;
}

/* A string literal at *pp (on its quote), decoded as Python's
 * unicode-escape does (\n \t \r \\ \' \" \a \b \f \v \ooo \xhh \uhhhh
 * \Uhhhhhhhh; an unknown escape keeps its backslash). */
static int
lex_string(struct ps *p, const char **pp, int line, struct tk *k)
{
	const char *q = *pp, *s;
	char quote = *q++, *buf, *o;
	uint32_t c;
	int i, nd;

	for (s = q; s < p->end && *s != quote; s++)
		if (*s == '\\' && ++s == p->end)
			break;
	if (s >= p->end)
		return jj_perr(p, line, "unterminated string");
	if (!(buf = o = jj_alloc(&p->t->arena, s - q + 1)))
		return jj_perr(p, line, "out of memory");
	while (q < s) {
		if (*q != '\\') {
			*o++ = *q++;
			continue;
		}
		q++;
		switch (*q) {
		case 'n': *o++ = '\n'; q++; break;
		case 't': *o++ = '\t'; q++; break;
		case 'r': *o++ = '\r'; q++; break;
		case 'a': *o++ = '\a'; q++; break;
		case 'b': *o++ = '\b'; q++; break;
		case 'f': *o++ = '\f'; q++; break;
		case 'v': *o++ = '\v'; q++; break;
		case '\\': case '\'': case '"': *o++ = *q++; break;
		case '\n': q++; break;
		case 'x': case 'u': case 'U':
			nd = *q == 'x' ? 2 : *q == 'u' ? 4 : 8;
			for (c = 0, i = 1; i <= nd; i++) {
				int h = q + i < s ? q[i] : 0;
				if (h >= '0' && h <= '9')
					c = c << 4 | (h - '0');
				else if ((h | 32) >= 'a' && (h | 32) <= 'f')
					c = c << 4 | ((h | 32) - 'a' + 10);
				else
					return jj_perr(p, line, "invalid \\%c escape in a string", *q);
			}
			if (c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
				return jj_perr(p, line, "invalid character U+%04X in a string", (unsigned)c);
			o += uni_encode(c, (unsigned char *)o);
			q += nd + 1;
			break;
		default:
			if (*q >= '0' && *q <= '7') {
				for (c = 0, i = 0; i < 3 && q < s && *q >= '0' && *q <= '7'; i++)
					c = c * 8 + (*q++ - '0');
				o += uni_encode(c, (unsigned char *)o);
			} else {
				*o++ = '\\';
			}
		}
	}
	*o = '\0';
	k->s = buf;
	k->n = o - buf;
	*pp = s + 1;
	return 0;
}

static int
lex_number(struct ps *p, const char **pp, int line, struct tk *k)
{
	char buf[64];
	const char *q = *pp;
	size_t n = 0;
	int isf = 0;
	char *e;

	/* digits with Python's underscores, a fraction, an exponent; right
	 * after a '.' an integer only (x.0.1 is x[0][1], Jinja2's (?<!\.)) */
	int afterdot = p->ntk >= 2 && p->tk[p->ntk - 2].type == T_OP && p->tk[p->ntk - 2].op == '.';

	for (; q < p->end && (isdigit_(*q) || *q == '_'); q++)
		if (*q != '_' && n < sizeof(buf) - 1)
			buf[n++] = *q;
	if (afterdot)
		goto done;
	if (q + 1 < p->end && *q == '.' && isdigit_(q[1])) {
		isf = 1;
		for (buf[n++] = *q++; q < p->end && (isdigit_(*q) || *q == '_'); q++)
			if (*q != '_' && n < sizeof(buf) - 1)
				buf[n++] = *q;
	}
	if (q < p->end && (*q == 'e' || *q == 'E')) {
		const char *r = q + 1;
		if (r < p->end && (*r == '+' || *r == '-'))
			r++;
		if (r < p->end && isdigit_(*r)) {
			isf = 1;
			for (; q < r && n < sizeof(buf) - 1; q++)
				buf[n++] = *q;
			for (; q < p->end && isdigit_(*q); q++)
				if (n < sizeof(buf) - 1)
					buf[n++] = *q;
		}
	}
done:
	if (n >= sizeof(buf) - 1)
		return jj_perr(p, line, "number too long");
	buf[n] = '\0';
	if (isf) {
		k->type = T_FLOAT;
		k->f = strtod(buf, NULL);
	} else {
		k->type = T_INT;
		errno = 0;
		k->i = strtoll(buf, &e, 10);
		if (errno)
			return jj_perr(p, line, "integer %s too large", buf);
	}
	*pp = q;
	return 0;
}

/* Tokens inside a tag, from *pp up to its end (close: '%', '}' or '#'
 * is the tag's closing pair's first character).  Leaves *pp after the
 * closing pair, *strip set if it was -%} or -}}. */
static int
lex_tag(struct ps *p, const char **pp, int *line, int close, int *strip)
{
	const char *q = *pp;
	int depth = 0;
	size_t k0;
	struct tk *k;
	static const char two[][3] = { "==", "!=", "<=", ">=", "//", "**" };
	static const int twoop[] = { OP_EQ, OP_NE, OP_LE, OP_GE, OP_FLOORDIV, OP_POW };
	size_t i;

	for (;;) {
		while ((k0 = ws_at(q, p->end))) {
			if (*q == '\n')
				++*line;
			q += k0;
		}
		if (q >= p->end)
			return jj_perr(p, *line, "unexpected end of template inside a tag");
		if (depth == 0 && q + 1 < p->end && *q == close && q[1] == '}') {
			*strip = 0;
			*pp = q + 2;
			return 0;
		}
		if (depth == 0 && q + 2 < p->end && (*q == '-' || *q == '+') &&
		    q[1] == close && q[2] == '}') {
			*strip = *q == '-' ? 1 : -1;	/* +%}: no trim_blocks */
			*pp = q + 3;
			return 0;
		}
		if (!(k = push(p, T_OP, *line)))
			return -1;
		if (isname0((unsigned char)*q)) {
			k->type = T_NAME;
			k->s = q;
			while (q < p->end && (isname0((unsigned char)*q) || isdigit_(*q)))
				q++;
			k->n = q - k->s;
		} else if (isdigit_(*q)) {
			if (lex_number(p, &q, *line, k) < 0)
				return -1;
		} else if (*q == '\'' || *q == '"') {
			const char *start = q;
			k->type = T_STR;
			if (lex_string(p, &q, *line, k) < 0)
				return -1;
			*line += jj_lines(start, q);
		} else {
			for (i = 0; i < LEN(two); i++)
				if (q + 1 < p->end && q[0] == two[i][0] && q[1] == two[i][1])
					break;
			if (i < LEN(two)) {
				k->op = twoop[i];
				q += 2;
			} else if (strchr("+-*/%~<>=()[]{},.:|", *q)) {
				k->op = *q++;
				if (k->op == '(' || k->op == '[' || k->op == '{')
					depth++;
				else if ((k->op == ')' || k->op == ']' || k->op == '}') && depth > 0)
					depth--;
			} else if ((unsigned char)*q >= 0x20 && (unsigned char)*q < 0x7f) {
				return jj_perr(p, *line, "unexpected character '%c'", *q);
			} else {
				return jj_perr(p, *line, "unexpected byte 0x%02x", (unsigned char)*q);
			}
		}
	}
}

/* Is s[0..n) a whole word w? */
int
jj_word(const char *s, size_t n, const char *w)
{
	return strlen(w) == n && !memcmp(s, w, n);
}

int
jj_lex(struct ps *p)
{
	const char *q = p->src, *text, *tag, *r;
	int line = 1, tline, strip, kind = 0, linestart = 1;
	size_t n;
	struct tk *k;

	while (q < p->end) {
		/* text up to the next tag */
		text = q;
		tline = line;
		for (tag = q; tag + 1 < p->end; tag++)
			if (tag[0] == '{' && (tag[1] == '{' || tag[1] == '%' || tag[1] == '#'))
				break;
		if (tag + 1 >= p->end)
			tag = p->end;
		line += jj_lines(q, tag);
		r = tag;
		if (tag < p->end) {
			kind = tag[1];
			if (tag + 2 < p->end && tag[2] == '-') {
				while ((n = ws_before(text, r, 0)))
					r -= n;
			} else if (kind != '{' && !(tag + 2 < p->end && tag[2] == '+')) {
				/* lstrip_blocks: only blanks between the line's
				 * start and the tag */
				const char *b = r;
				while ((n = ws_before(text, b, 1)))
					b -= n;
				if ((b > text && b[-1] == '\n') || (b == text && linestart))
					r = b;
			}
		}
		if (r > text) {
			if (!(k = push(p, T_TEXT, tline)))
				return -1;
			k->s = text;
			k->n = r - text;
		}
		if (tag >= p->end)
			break;
		q = tag + 2;
		if (q < p->end && (*q == '-' || *q == '+'))
			q++;
		if (kind == '#') {
			const char *e;
			for (e = q; e + 1 < p->end && !(e[0] == '#' && e[1] == '}'); e++)
				;
			if (e + 1 >= p->end)
				return jj_perr(p, line, "unterminated comment");
			line += jj_lines(q, e);
			strip = e > q && e[-1] == '-';
			q = e + 2;
		} else {
			tline = line;
			if (!push(p, kind == '{' ? T_BVAR : T_BBLOCK, line))
				return -1;
			if (lex_tag(p, &q, &line, kind == '{' ? '}' : '%', &strip) < 0)
				return -1;
			if (!push(p, kind == '{' ? T_EVAR : T_EBLOCK, line))
				return -1;
			/* {% raw %}: the text up to {% endraw %} as it is */
			if (kind == '%' && p->ntk >= 3 && p->tk[p->ntk - 2].type == T_NAME &&
			    p->tk[p->ntk - 3].type == T_BBLOCK &&
			    jj_word(p->tk[p->ntk - 2].s, p->tk[p->ntk - 2].n, "raw")) {
				const char *e, *s2;
				p->ntk -= 3;
				for (e = q; ; e++) {
					if (e + 1 >= p->end)
						return jj_perr(p, tline, "raw block without endraw");
					if (e[0] != '{' || e[1] != '%')
						continue;
					s2 = e + 2;
					if (*s2 == '-' || *s2 == '+')
						s2++;
					while ((n = ws_at(s2, p->end)))
						s2 += n;
					if (p->end - s2 >= 6 && !memcmp(s2, "endraw", 6))
						break;
				}
				if (strip > 0)
					while ((n = ws_at(q, e)))
						q += n;
				else if (q < e && *q == '\n')
					q++;
				r = e;
				if (e[2] == '-')
					while ((n = ws_before(q, r, 0)))
						r -= n;
				if (r > q) {
					if (!(k = push(p, T_TEXT, line)))
						return -1;
					k->s = q;
					k->n = r - q;
				}
				line += jj_lines(q, e);
				q = e + 2;
				if (q < p->end && (*q == '-' || *q == '+'))
					q++;
				if (lex_tag(p, &q, &line, '%', &strip) < 0)
					return -1;
				p->ntk--;	/* the endraw name */
			}
		}
		linestart = 0;
		if (strip > 0) {
			while ((n = ws_at(q, p->end))) {
				line += *q == '\n';
				linestart = *q == '\n';
				q += n;
			}
		} else if (!strip && kind != '{' && q < p->end && *q == '\n') {
			q++;
			line++;
			linestart = 1;
		}
	}
	return push(p, T_EOF, line) ? 0 : -1;
}
