/* jinja_val.c: Jinja values as Python sees them: str() and repr(),
 * json.dumps, ==, <, truthiness; the filters, tests and string and dict
 * methods chat templates use.
 *
 * Filters: abs capitalize count d default dictsort e escape first float
 * indent int items join last length list lower map max min reject
 * rejectattr replace reverse round safe select selectattr sort string sum
 * title tojson trim unique upper.  Tests: boolean callable defined
 * divisibleby eq equalto even false float ge gt in integer iterable le
 * lower lt mapping ne none number odd sameas sequence string true
 * undefined upper (and ==, !=, <, <=, >, >=).  String methods:
 * capitalize count endswith find join lower lstrip replace rsplit rstrip
 * split startswith strip title upper; dict methods: get items keys
 * values.  Case mappings are ASCII only. */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jinja.h"
#include "jinja_int.h"
#include "unicode.h"
#include "util.h"

/* ---- buffers and constructors ---- */

int
jj_sb_add(struct rd *r, int line, struct jj_sb *b, const void *p, size_t n)
{
	size_t cap;
	char *q;

	if (n > r->lim.output || b->n > r->lim.output - n)
		return jj_err(r, line, "%s longer than the limit of %zu bytes",
		    b == r->out ? "output" : "string", r->lim.output);
	if (b->cap - b->n < n + 1) {
		cap = b->cap ? b->cap : 256;
		while (cap - b->n < n + 1)
			cap *= 2;
		if (!(q = realloc(b->p, cap)))
			return jj_err(r, line, "out of memory (%zu bytes of output)", cap);
		b->p = q;
		b->cap = cap;
	}
	memcpy(b->p + b->n, p, n);
	b->n += n;
	b->p[b->n] = '\0';
	return 0;
}

static int
sb_str(struct rd *r, int line, struct jj_sb *b, const char *s)
{
	return jj_sb_add(r, line, b, s, strlen(s));
}

struct jj_val
jj_str(const char *p, size_t n)
{
	struct jj_val v = { JJ_STR, { 0 } };

	v.u.s.p = p;
	v.u.s.n = n;
	return v;
}

struct jj_val
jj_int(long long i)
{
	struct jj_val v = { JJ_INT, { 0 } };

	v.u.i = i;
	return v;
}

struct jj_val
jj_bool(int b)
{
	struct jj_val v = { JJ_BOOL, { 0 } };

	v.u.i = !!b;
	return v;
}

struct jj_val
jj_undef(const char *name)
{
	struct jj_val v = { JJ_UNDEF, { 0 } };

	v.u.s.p = name;
	v.u.s.n = name ? strlen(name) : 0;
	return v;
}

static void *
ralloc(struct rd *r, int line, size_t n, size_t size)
{
	size_t bytes;
	void *p;

	if (size_mul(&bytes, n, size) < 0 || !(p = jj_alloc(&r->a, bytes ? bytes : 1))) {
		jj_err(r, line, "working memory past the limit of %zu bytes", r->lim.memory);
		return NULL;
	}
	return p;
}

struct jj_list *
jj_newlist(struct rd *r, int line, size_t n)
{
	struct jj_list *l = ralloc(r, line, 1, sizeof(*l));

	if (!l || !(l->v = ralloc(r, line, n, sizeof(*l->v))))
		return NULL;
	l->n = n;
	return l;
}

struct jj_dict *
jj_newdict(struct rd *r, int line, size_t cap)
{
	struct jj_dict *d = ralloc(r, line, 1, sizeof(*d));

	if (!cap)
		cap = 4;
	if (!d || !(d->k = ralloc(r, line, cap, sizeof(*d->k))) ||
	    !(d->v = ralloc(r, line, cap, sizeof(*d->v))))
		return NULL;
	d->n = 0;
	d->cap = cap;
	return d;
}

int
jj_dict_put(struct rd *r, int line, struct jj_dict *d, struct jj_val k, struct jj_val v)
{
	size_t i;
	struct jj_val *nk, *nv;

	for (i = 0; i < d->n; i++)
		if (jj_eq(&d->k[i], &k)) {
			d->v[i] = v;
			return 0;
		}
	if (d->n == d->cap) {
		if (!(nk = ralloc(r, line, d->cap * 2, sizeof(*nk))) ||
		    !(nv = ralloc(r, line, d->cap * 2, sizeof(*nv))))
			return -1;
		memcpy(nk, d->k, d->n * sizeof(*nk));
		memcpy(nv, d->v, d->n * sizeof(*nv));
		d->k = nk;
		d->v = nv;
		d->cap *= 2;
	}
	d->k[d->n] = k;
	d->v[d->n++] = v;
	return 0;
}

struct jj_val *
jj_dict_get(const struct jj_dict *d, const char *key, size_t n)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		if (d->k[i].type == JJ_STR && d->k[i].u.s.n == n &&
		    !memcmp(d->k[i].u.s.p, key, n))
			return &d->v[i];
	return NULL;
}

int
jj_sb_val(struct rd *r, int line, struct jj_sb *b, struct jj_val *out)
{
	char *p = ralloc(r, line, b->n + 1, 1);

	if (!p)
		return -1;
	if (b->n)
		memcpy(p, b->p, b->n);
	p[b->n] = '\0';
	*out = jj_str(p, b->n);
	return 0;
}

/* ---- UTF-8 ---- */

size_t
jj_ulen(const char *s, size_t n)
{
	size_t i, c = 0;

	for (i = 0; i < n; i++)
		c += ((unsigned char)s[i] & 0xc0) != 0x80;
	return c;
}

size_t
jj_uoff(const char *s, size_t n, size_t i)
{
	size_t o;

	for (o = 0; o < n; o++)
		if (((unsigned char)s[o] & 0xc0) != 0x80 && i-- == 0)
			return o;
	return n;
}


/* ---- type names, truth, equality, order ---- */

const char *
jj_typename(const struct jj_val *v)
{
	static const char *const names[] = {
		"Undefined", "NoneType", "bool", "int", "float", "str", "list",
		"dict", "Namespace", "Macro", "builtin_function", "LoopContext"
	};

	return names[v->type];
}

int
jj_truthy(const struct jj_val *v)
{
	switch (v->type) {
	case JJ_UNDEF: case JJ_NONE: return 0;
	case JJ_BOOL: case JJ_INT: return v->u.i != 0;
	case JJ_FLOAT: return v->u.f != 0;
	case JJ_STR: return v->u.s.n != 0;
	case JJ_LIST: return v->u.l->n != 0;
	case JJ_DICT: return v->u.d->n != 0;
	default: return 1;
	}
}

static int
isnum(const struct jj_val *v)
{
	return v->type == JJ_BOOL || v->type == JJ_INT || v->type == JJ_FLOAT;
}

static double
numf(const struct jj_val *v)
{
	return v->type == JJ_FLOAT ? v->u.f : (double)v->u.i;
}

/* Values nest through lists, dicts and namespaces, a namespace may hold
 * itself: the walks below stop at this depth (JSON itself stops at 512). */
#define MAXVAL 1000

static int
eq(const struct jj_val *a, const struct jj_val *b, int depth)
{
	size_t i;
	struct jj_val *w;

	if (depth > MAXVAL)
		return 0;

	if (isnum(a) && isnum(b)) {
		if (a->type != JJ_FLOAT && b->type != JJ_FLOAT)
			return a->u.i == b->u.i;
		return numf(a) == numf(b);
	}
	if (a->type != b->type)
		return 0;
	switch (a->type) {
	case JJ_UNDEF: case JJ_NONE: return 1;
	case JJ_STR:
		return a->u.s.n == b->u.s.n && !memcmp(a->u.s.p, b->u.s.p, a->u.s.n);
	case JJ_LIST:
		if (a->u.l->n != b->u.l->n)
			return 0;
		for (i = 0; i < a->u.l->n; i++)
			if (!eq(&a->u.l->v[i], &b->u.l->v[i], depth + 1))
				return 0;
		return 1;
	case JJ_DICT:
		if (a->u.d->n != b->u.d->n)
			return 0;
		for (i = 0; i < a->u.d->n; i++) {
			size_t j;
			for (j = 0, w = NULL; j < b->u.d->n && !w; j++)
				if (eq(&a->u.d->k[i], &b->u.d->k[j], depth + 1))
					w = &b->u.d->v[j];
			if (!w || !eq(&a->u.d->v[i], w, depth + 1))
				return 0;
		}
		return 1;
	case JJ_NS: return a->u.d == b->u.d;
	case JJ_MACRO: return a->u.m == b->u.m;
	case JJ_LOOP: return a->u.loop == b->u.loop;
	default: return a->u.i == b->u.i;
	}
}

int
jj_eq(const struct jj_val *a, const struct jj_val *b)
{
	return eq(a, b, 0);
}

static int
less(struct rd *r, int line, const struct jj_val *a, const struct jj_val *b, int *lt, int depth)
{
	size_t i, n;
	int x;

	if (depth > MAXVAL)
		return jj_err(r, line, "values nested deeper than %d", MAXVAL);

	if (isnum(a) && isnum(b)) {
		if (a->type != JJ_FLOAT && b->type != JJ_FLOAT)
			*lt = a->u.i < b->u.i;
		else
			*lt = numf(a) < numf(b);
		return 0;
	}
	if (a->type == JJ_STR && b->type == JJ_STR) {
		/* UTF-8 byte order is code point order */
		n = a->u.s.n < b->u.s.n ? a->u.s.n : b->u.s.n;
		x = memcmp(a->u.s.p, b->u.s.p, n);
		*lt = x < 0 || (x == 0 && a->u.s.n < b->u.s.n);
		return 0;
	}
	if (a->type == JJ_LIST && b->type == JJ_LIST) {
		n = a->u.l->n < b->u.l->n ? a->u.l->n : b->u.l->n;
		for (i = 0; i < n; i++)
			if (!jj_eq(&a->u.l->v[i], &b->u.l->v[i]))
				return less(r, line, &a->u.l->v[i], &b->u.l->v[i], lt, depth + 1);
		*lt = a->u.l->n < b->u.l->n;
		return 0;
	}
	return jj_err(r, line, "'<' not supported between '%s' and '%s'",
	    jj_typename(a), jj_typename(b));
}

int
jj_less(struct rd *r, int line, const struct jj_val *a, const struct jj_val *b, int *lt)
{
	return less(r, line, a, b, lt, 0);
}

/* ---- str(), repr(), json.dumps ---- */

/* repr(float) as Python writes it: the shortest digits that read back
 * the same, fixed notation for exponents -5..15, else d.ddde+XX. */
static void
fmt_float(double f, char *out, size_t size)
{
	char buf[40], digits[20], *e;
	int prec, exp, nd = 0, i;
	size_t o = 0;

	if (isnan(f)) {
		snprintf(out, size, "nan");
		return;
	}
	if (isinf(f)) {
		snprintf(out, size, f < 0 ? "-inf" : "inf");
		return;
	}
	if (f == 0) {
		snprintf(out, size, signbit(f) ? "-0.0" : "0.0");
		return;
	}
	for (prec = 1; prec <= 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*e", prec - 1, f);
		if (strtod(buf, NULL) == f)
			break;
	}
	/* buf: [-]d[.ddd]e[+-]XX */
	for (i = buf[0] == '-'; buf[i] != 'e'; i++)
		if (buf[i] != '.')
			digits[nd++] = buf[i];
	e = buf + i + 1;
	exp = atoi(e);
	while (nd > 1 && digits[nd - 1] == '0')
		nd--;
	if (buf[0] == '-')
		out[o++] = '-';
	if (exp < -4 || exp >= 16) {
		out[o++] = digits[0];
		if (nd > 1) {
			out[o++] = '.';
			for (i = 1; i < nd; i++)
				out[o++] = digits[i];
		}
		snprintf(out + o, size - o, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
		return;
	}
	if (exp < 0) {
		out[o++] = '0';
		out[o++] = '.';
		for (i = -1; i > exp; i--)
			out[o++] = '0';
		for (i = 0; i < nd; i++)
			out[o++] = digits[i];
	} else {
		for (i = 0; i <= exp; i++)
			out[o++] = i < nd ? digits[i] : '0';
		out[o++] = '.';
		if (nd > exp + 1)
			for (i = exp + 1; i < nd; i++)
				out[o++] = digits[i];
		else
			out[o++] = '0';
	}
	out[o] = '\0';
}

/* repr(str): single quotes unless the string has ' and no ". */
static int
write_repr_str(struct rd *r, int line, struct jj_sb *b, const char *s, size_t n)
{
	char q = memchr(s, '\'', n) && !memchr(s, '"', n) ? '"' : '\'', esc[8];
	size_t i, start;

	if (jj_sb_add(r, line, b, &q, 1) < 0)
		return -1;
	for (i = start = 0; i < n; i++) {
		unsigned char c = s[i];
		if (c >= 0x20 && c != 0x7f && c != '\\' && c != (unsigned char)q)
			continue;
		if (jj_sb_add(r, line, b, s + start, i - start) < 0)
			return -1;
		start = i + 1;
		if (c == '\n') strcpy(esc, "\\n");
		else if (c == '\r') strcpy(esc, "\\r");
		else if (c == '\t') strcpy(esc, "\\t");
		else if (c == '\\' || c == (unsigned char)q) esc[0] = '\\', esc[1] = c, esc[2] = 0;
		else snprintf(esc, sizeof(esc), "\\x%02x", c);
		if (sb_str(r, line, b, esc) < 0)
			return -1;
	}
	if (jj_sb_add(r, line, b, s + start, n - start) < 0)
		return -1;
	return jj_sb_add(r, line, b, &q, 1);
}

static int
write_val(struct rd *r, int line, struct jj_sb *b, const struct jj_val *v, int repr, int depth)
{
	char buf[48];
	size_t i;

	if (depth > MAXVAL)
		return jj_err(r, line, "values nested deeper than %d", MAXVAL);

	switch (v->type) {
	case JJ_UNDEF:
		return 0;
	case JJ_NONE:
		return sb_str(r, line, b, "None");
	case JJ_BOOL:
		return sb_str(r, line, b, v->u.i ? "True" : "False");
	case JJ_INT:
		snprintf(buf, sizeof(buf), "%lld", v->u.i);
		return sb_str(r, line, b, buf);
	case JJ_FLOAT:
		fmt_float(v->u.f, buf, sizeof(buf));
		return sb_str(r, line, b, buf);
	case JJ_STR:
		if (repr)
			return write_repr_str(r, line, b, v->u.s.p, v->u.s.n);
		return jj_sb_add(r, line, b, v->u.s.p, v->u.s.n);
	case JJ_LIST:
		if (sb_str(r, line, b, "[") < 0)
			return -1;
		for (i = 0; i < v->u.l->n; i++)
			if ((i && sb_str(r, line, b, ", ") < 0) ||
			    write_val(r, line, b, &v->u.l->v[i], 1, depth + 1) < 0)
				return -1;
		return sb_str(r, line, b, "]");
	case JJ_DICT:
	case JJ_NS:
		if (sb_str(r, line, b, v->type == JJ_NS ? "<Namespace {" : "{") < 0)
			return -1;
		for (i = 0; i < v->u.d->n; i++)
			if ((i && sb_str(r, line, b, ", ") < 0) ||
			    write_val(r, line, b, &v->u.d->k[i], 1, depth + 1) < 0 ||
			    sb_str(r, line, b, ": ") < 0 ||
			    write_val(r, line, b, &v->u.d->v[i], 1, depth + 1) < 0)
				return -1;
		return sb_str(r, line, b, v->type == JJ_NS ? "}>" : "}");
	case JJ_MACRO:
		return sb_str(r, line, b, "<Macro>");
	case JJ_LOOP:
		return sb_str(r, line, b, "<LoopContext>");
	default:
		return sb_str(r, line, b, "<built-in function>");
	}
}

int
jj_write(struct rd *r, int line, struct jj_sb *b, const struct jj_val *v, int repr)
{
	return write_val(r, line, b, v, repr, 0);
}

int
jj_tostr(struct rd *r, int line, const struct jj_val *v, struct jj_val *out)
{
	struct jj_sb b = { 0 };
	int rc;

	if (v->type == JJ_STR) {
		*out = *v;
		return 0;
	}
	if (v->type == JJ_UNDEF) {
		*out = jj_str("", 0);
		return 0;
	}
	rc = jj_write(r, line, &b, v, 0);
	if (rc == 0)
		rc = jj_sb_val(r, line, &b, out);
	free(b.p);
	return rc;
}

static int
jstr(struct rd *r, int line, struct jj_sb *b, const char *s, size_t n)
{
	char esc[8];
	size_t i, start;

	if (sb_str(r, line, b, "\"") < 0)
		return -1;
	for (i = start = 0; i < n; i++) {
		unsigned char c = s[i];
		if (c >= 0x20 && c != '"' && c != '\\')
			continue;
		if (jj_sb_add(r, line, b, s + start, i - start) < 0)
			return -1;
		start = i + 1;
		switch (c) {
		case '"': strcpy(esc, "\\\""); break;
		case '\\': strcpy(esc, "\\\\"); break;
		case '\n': strcpy(esc, "\\n"); break;
		case '\r': strcpy(esc, "\\r"); break;
		case '\t': strcpy(esc, "\\t"); break;
		case '\b': strcpy(esc, "\\b"); break;
		case '\f': strcpy(esc, "\\f"); break;
		default: snprintf(esc, sizeof(esc), "\\u%04x", c);
		}
		if (sb_str(r, line, b, esc) < 0)
			return -1;
	}
	if (jj_sb_add(r, line, b, s + start, n - start) < 0)
		return -1;
	return sb_str(r, line, b, "\"");
}

struct jsonopt {
	long long indent;		/* -1: none */
	const char *isep, *ksep;
	size_t nisep, nksep;
	int sort;
};

static int
json_nl(struct rd *r, int line, struct jj_sb *b, const struct jsonopt *o, int depth)
{
	long long i;

	if (o->indent < 0)
		return 0;
	if (sb_str(r, line, b, "\n") < 0)
		return -1;
	for (i = 0; i < o->indent * depth; i++)
		if (sb_str(r, line, b, " ") < 0)
			return -1;
	return 0;
}

static int sort_vals(struct rd *r, int line, struct jj_val *v, size_t *idx, size_t n, int bykey);

/* json.dumps(v, ensure_ascii=False, ...) */
static int
json_dump(struct rd *r, int line, struct jj_sb *b, const struct jj_val *v,
    const struct jsonopt *o, int depth)
{
	char buf[48];
	size_t i, j, n, *idx = NULL;
	struct jj_val k;

	if (depth > MAXVAL)
		return jj_err(r, line, "tojson: values nested deeper than %d", MAXVAL);
	switch (v->type) {
	case JJ_NONE:
		return sb_str(r, line, b, "null");
	case JJ_BOOL:
		return sb_str(r, line, b, v->u.i ? "true" : "false");
	case JJ_INT:
		return jj_write(r, line, b, v, 0);
	case JJ_FLOAT:
		if (isnan(v->u.f))
			return sb_str(r, line, b, "NaN");
		if (isinf(v->u.f))
			return sb_str(r, line, b, v->u.f < 0 ? "-Infinity" : "Infinity");
		return jj_write(r, line, b, v, 0);
	case JJ_STR:
		return jstr(r, line, b, v->u.s.p, v->u.s.n);
	case JJ_LIST:
		if (!v->u.l->n)
			return sb_str(r, line, b, "[]");
		if (sb_str(r, line, b, "[") < 0)
			return -1;
		for (i = 0; i < v->u.l->n; i++)
			if ((i && jj_sb_add(r, line, b, o->isep, o->nisep) < 0) ||
			    json_nl(r, line, b, o, depth + 1) < 0 ||
			    json_dump(r, line, b, &v->u.l->v[i], o, depth + 1) < 0)
				return -1;
		if (json_nl(r, line, b, o, depth) < 0)
			return -1;
		return sb_str(r, line, b, "]");
	case JJ_DICT:
		n = v->u.d->n;
		if (!n)
			return sb_str(r, line, b, "{}");
		if (!(idx = ralloc(r, line, n, sizeof(*idx))))
			return -1;
		for (i = 0; i < n; i++)
			idx[i] = i;
		if (o->sort && sort_vals(r, line, v->u.d->k, idx, n, 0) < 0)
			return -1;
		if (sb_str(r, line, b, "{") < 0)
			return -1;
		for (j = 0; j < n; j++) {
			i = idx[j];
			k = v->u.d->k[i];
			if ((j && jj_sb_add(r, line, b, o->isep, o->nisep) < 0) ||
			    json_nl(r, line, b, o, depth + 1) < 0)
				return -1;
			/* json.dumps turns simple keys into strings */
			if (k.type == JJ_STR) {
				if (jstr(r, line, b, k.u.s.p, k.u.s.n) < 0)
					return -1;
			} else if (k.type == JJ_NONE || k.type == JJ_BOOL || k.type == JJ_INT ||
			    k.type == JJ_FLOAT) {
				struct jj_sb kb = { 0 };
				int rc = json_dump(r, line, &kb, &k, o, depth + 1);
				if (rc == 0)
					rc = jstr(r, line, b, kb.p ? kb.p : "", kb.n);
				free(kb.p);
				if (rc < 0)
					return -1;
			} else {
				return jj_err(r, line, "tojson: keys must be str, int, float, bool or None, not %s",
				    jj_typename(&k));
			}
			if (jj_sb_add(r, line, b, o->ksep, o->nksep) < 0 ||
			    json_dump(r, line, b, &v->u.d->v[i], o, depth + 1) < 0)
				return -1;
		}
		if (json_nl(r, line, b, o, depth) < 0)
			return -1;
		(void)buf;
		return sb_str(r, line, b, "}");
	default:
		return jj_err(r, line, "tojson: object of type %s is not JSON serializable",
		    jj_typename(v));
	}
}

/* ---- sorting (a stable merge sort of indexes) ---- */

static int
sort_less(struct rd *r, int line, const struct jj_val *a, const struct jj_val *b, int *lt)
{
	return jj_less(r, line, a, b, lt);
}

/* Sort idx[0..n) by v[idx[i]] (bykey: v are 2-item lists, by item 0 ... or
 * as given), stable. */
static int
sort_vals(struct rd *r, int line, struct jj_val *v, size_t *idx, size_t n, int bykey)
{
	size_t *tmp, w, i, j, k, lo, mid, hi;
	int lt;

	(void)bykey;
	if (n < 2)
		return 0;
	if (!(tmp = ralloc(r, line, n, sizeof(*tmp))))
		return -1;
	for (w = 1; w < n; w *= 2) {
		for (lo = 0; lo < n; lo += 2 * w) {
			mid = lo + w < n ? lo + w : n;
			hi = lo + 2 * w < n ? lo + 2 * w : n;
			for (i = lo, j = mid, k = lo; k < hi; k++) {
				if (i < mid && j < hi) {
					if (sort_less(r, line, &v[idx[j]], &v[idx[i]], &lt) < 0)
						return -1;
					tmp[k] = lt ? idx[j++] : idx[i++];
				} else {
					tmp[k] = i < mid ? idx[i++] : idx[j++];
				}
			}
		}
		memcpy(idx, tmp, n * sizeof(*idx));
	}
	return 0;
}

/* ---- arguments ---- */

struct jj_val *
jj_arg(struct jj_args *a, size_t i, const char *name)
{
	size_t k;

	if (i < a->n)
		return &a->v[i];
	for (k = 0; name && k < a->nkw; k++)
		if (!strcmp(a->kw[k], name))
			return &a->kv[k];
	return NULL;
}

static int
want_str(struct rd *r, int line, const char *what, struct jj_val *v)
{
	if (!v || v->type != JJ_STR)
		return jj_err(r, line, "%s: expected a string, got %s", what,
		    v ? jj_typename(v) : "nothing");
	return 0;
}

static int
want_int(struct rd *r, int line, const char *what, struct jj_val *v, long long *out)
{
	if (!v || (v->type != JJ_INT && v->type != JJ_BOOL))
		return jj_err(r, line, "%s: expected an integer, got %s", what,
		    v ? jj_typename(v) : "nothing");
	*out = v->u.i;
	return 0;
}

/* ---- string helpers ---- */

/* Simple case mapping (up: to upper case, else lower) of the scripts a
 * conversation is likely to hold: Latin (ASCII, Latin-1, Extended-A),
 * Greek, Cyrillic, Armenian, fullwidth Latin.  Other characters, and the
 * mappings that change length (ß to SS), are left as they are. */
static uint32_t
casemap(uint32_t c, int up)
{
	int d = up ? -1 : 1;

	if ((c >= 'a' && c <= 'z') || (c >= 0xe0 && c <= 0xfe && c != 0xf7) ||
	    (c >= 0x3b1 && c <= 0x3c9 && c != 0x3c2) || (c >= 0x430 && c <= 0x44f) ||
	    (c >= 0xff41 && c <= 0xff5a))
		return up ? c - 32 : c;
	if ((c >= 'A' && c <= 'Z') || (c >= 0xc0 && c <= 0xde && c != 0xd7) ||
	    (c >= 0x391 && c <= 0x3a9 && c != 0x3a2) || (c >= 0x410 && c <= 0x42f) ||
	    (c >= 0xff21 && c <= 0xff3a))
		return up ? c : c + 32;
	if (c >= 0x450 && c <= 0x45f)
		return up ? c - 80 : c;
	if (c >= 0x400 && c <= 0x40f)
		return up ? c : c + 80;
	if (c >= 0x561 && c <= 0x586)
		return up ? c - 48 : c;
	if (c >= 0x531 && c <= 0x556)
		return up ? c : c + 48;
	if (c == 0x3c2)
		return up ? 0x3a3 : c;
	if (c == 0xff)
		return up ? 0x178 : c;
	if (c == 0x178)
		return up ? c : 0xff;
	if (c == 0x3ac)
		return up ? 0x386 : c;
	if (c == 0x386)
		return up ? c : 0x3ac;
	if (c >= 0x3ad && c <= 0x3af)
		return up ? c - 37 : c;
	if (c >= 0x388 && c <= 0x38a)
		return up ? c : c + 37;
	if (c == 0x3cc)
		return up ? 0x38c : c;
	if (c == 0x38c)
		return up ? c : 0x3cc;
	if (c >= 0x3cd && c <= 0x3ce)
		return up ? c - 63 : c;
	if (c >= 0x38e && c <= 0x38f)
		return up ? c : c + 63;
	/* pairs: upper case at the even (or, in 0x139..0x148 and 0x179..0x17e,
	 * the odd) code point, lower case right after it */
	if ((c >= 0x100 && c <= 0x12f) || (c >= 0x132 && c <= 0x137) ||
	    (c >= 0x14a && c <= 0x177) || (c >= 0x460 && c <= 0x481) ||
	    (c >= 0x48a && c <= 0x4bf) || (c >= 0x4d0 && c <= 0x4ff))
		return (c & 1) == (up ? 1u : 0u) ? c + d : c;
	if ((c >= 0x139 && c <= 0x148) || (c >= 0x179 && c <= 0x17e))
		return (c & 1) == (up ? 0u : 1u) ? c + d : c;
	if (c == 0x131 && up)
		return 'I';
	return c;
}

/* upper 1, lower 2, capitalize 3, title (str.title) 4, title filter 5 */
static int
recase(struct rd *r, int line, const struct jj_val *v, int how, struct jj_val *out)
{
	struct jj_sb b = { 0 };
	const unsigned char *s = (const unsigned char *)v->u.s.p;
	unsigned char enc[4];
	size_t i, len;
	uint32_t c, m;
	int start = 1, up, rc = 0;

	for (i = 0; rc == 0 && i < v->u.s.n; i += len) {
		len = uni_decode(s + i, v->u.s.n - i, &c);
		up = how == 1 || (how >= 3 && start);
		m = casemap(c, up);
		if (how == 3)
			start = 0;
		else if (how == 4)	/* a word: a run of cased characters */
			start = !(uni_class(c) & UNI_L);
		else if (how == 5)	/* Jinja's: words begin after [-\s({\[<] */
			start = c == '-' || c == '(' || c == '{' || c == '[' || c == '<' ||
			    jj_isspace(c);
		rc = jj_sb_add(r, line, &b, enc, uni_encode(m, enc));
	}
	if (rc == 0)
		rc = jj_sb_val(r, line, &b, out);
	free(b.p);
	return rc;
}

/* Is the character at s (n bytes left) one of chars (NULL: Python
 * whitespace)?  Its length in *len. */
static int
stripchar(const char *s, size_t n, const struct jj_val *chars, size_t *len)
{
	uint32_t c;
	size_t i, l;

	*len = uni_decode((const unsigned char *)s, n, &c);
	if (!chars)
		return jj_isspace(c);
	for (i = 0; i < chars->u.s.n; i += l) {
		uint32_t d;
		l = uni_decode((const unsigned char *)chars->u.s.p + i, chars->u.s.n - i, &d);
		if (d == c)
			return 1;
	}
	return 0;
}

/* strip (how 3), lstrip (1), rstrip (2) */
static int
strip(struct rd *r, int line, const struct jj_val *v, const struct jj_val *chars,
    int how, struct jj_val *out)
{
	const char *s = v->u.s.p;
	size_t a = 0, b = v->u.s.n, len, k;

	if (chars && chars->type == JJ_NONE)
		chars = NULL;
	if (chars && want_str(r, line, "strip", (struct jj_val *)chars) < 0)
		return -1;
	if (how & 1)
		while (a < b && stripchar(s + a, b - a, chars, &len))
			a += len;
	if (how & 2)
		while (b > a) {
			for (k = b - 1; k > a && ((unsigned char)s[k] & 0xc0) == 0x80; k--)
				;
			if (!stripchar(s + k, b - k, chars, &len))
				break;
			b = k;
		}
	*out = jj_str(s + a, b - a);
	return 0;
}

/* The first w in s.  Knuth-Morris-Pratt past a short needle, so that
 * a search stays linear whatever a template searches for. */
static const char *
find(const char *s, size_t n, const char *w, size_t wn)
{
	size_t i, k, *fail;
	const char *hit = NULL;

	if (wn == 0)
		return s;
	if (wn <= 16 || !(fail = malloc(wn * sizeof(*fail)))) {
		for (i = 0; i + wn <= n; i++)
			if (s[i] == w[0] && !memcmp(s + i, w, wn))
				return s + i;
		return NULL;
	}
	fail[0] = 0;
	for (i = 1, k = 0; i < wn; i++) {
		while (k && w[i] != w[k])
			k = fail[k - 1];
		if (w[i] == w[k])
			k++;
		fail[i] = k;
	}
	for (i = 0, k = 0; i < n; i++) {
		while (k && s[i] != w[k])
			k = fail[k - 1];
		if (s[i] == w[k] && ++k == wn) {
			hit = s + i + 1 - wn;
			break;
		}
	}
	free(fail);
	return hit;
}

/* str.replace(old, new[, count]) */
static int
replace(struct rd *r, int line, const struct jj_val *v, struct jj_args *a, struct jj_val *out)
{
	struct jj_val *o = jj_arg(a, 0, "old"), *nw = jj_arg(a, 1, "new"), *cv = jj_arg(a, 2, "count");
	struct jj_sb b = { 0 };
	const char *s = v->u.s.p, *end = s + v->u.s.n, *q;
	long long count = -1, done = 0;
	int rc = 0;

	if (want_str(r, line, "replace", o) < 0 || want_str(r, line, "replace", nw) < 0)
		return -1;
	if (cv && cv->type != JJ_NONE && want_int(r, line, "replace", cv, &count) < 0)
		return -1;
	if (o->u.s.n == 0) {
		/* Python inserts new around every character */
		size_t i = 0, len;
		while (rc == 0 && (count < 0 || done < count)) {
			rc = jj_sb_add(r, line, &b, nw->u.s.p, nw->u.s.n);
			done++;
			if (i >= v->u.s.n)
				break;
			len = jj_uoff(s + i, v->u.s.n - i, 1);
			if (rc == 0)
				rc = jj_sb_add(r, line, &b, s + i, len);
			i += len;
		}
		if (rc == 0 && i < v->u.s.n)
			rc = jj_sb_add(r, line, &b, s + i, v->u.s.n - i);
	} else {
		while (rc == 0 && (count < 0 || done < count) &&
		    (q = find(s, end - s, o->u.s.p, o->u.s.n))) {
			rc = jj_sb_add(r, line, &b, s, q - s);
			if (rc == 0)
				rc = jj_sb_add(r, line, &b, nw->u.s.p, nw->u.s.n);
			s = q + o->u.s.n;
			done++;
		}
		if (rc == 0)
			rc = jj_sb_add(r, line, &b, s, end - s);
	}
	if (rc == 0)
		rc = jj_sb_val(r, line, &b, out);
	free(b.p);
	return rc;
}

/* str.split(sep=None, maxsplit=-1); rsplit when right. */
static int
split(struct rd *r, int line, const struct jj_val *v, struct jj_args *a, int right,
    struct jj_val *out)
{
	struct jj_val *sep = jj_arg(a, 0, "sep"), *mv = jj_arg(a, 1, "maxsplit");
	const char *s = v->u.s.p;
	size_t n = v->u.s.n, i, cnt = 0, len, start, k;
	long long max = -1;
	struct jj_list *l = NULL;
	if (sep && sep->type == JJ_NONE)
		sep = NULL;
	if (sep && want_str(r, line, "split", sep) < 0)
		return -1;
	if (sep && sep->u.s.n == 0)
		return jj_err(r, line, "split: empty separator");
	if (mv && want_int(r, line, "split", mv, &max) < 0)
		return -1;
	/* two passes: count, then fill */
	for (k = 0; k < 2; k++) {
		size_t m = 0;
		if (k == 1 && !(l = jj_newlist(r, line, cnt)))
			return -1;
		if (sep && !right) {
			const char *p = s, *q;
			while ((max < 0 || (long long)m < max) &&
			    (q = find(p, s + n - p, sep->u.s.p, sep->u.s.n))) {
				if (k)
					l->v[m] = jj_str(p, q - p);
				m++;
				p = q + sep->u.s.n;
			}
			if (k)
				l->v[m] = jj_str(p, s + n - p);
			m++;
		} else if (sep) {
			/* rsplit: from the right, parts filled backwards */
			size_t e = n, pos;
			size_t total = cnt;
			while (max < 0 || (long long)m < max) {
				int found = 0;
				for (pos = e; pos >= sep->u.s.n; pos--)
					if (!memcmp(s + pos - sep->u.s.n, sep->u.s.p, sep->u.s.n)) {
						found = 1;
						break;
					}
				if (!found)
					break;
				if (k)
					l->v[total - 1 - m] = jj_str(s + pos, e - pos);
				m++;
				e = pos - sep->u.s.n;
			}
			if (k)
				l->v[total - 1 - m] = jj_str(s, e);
			m++;
		} else {
			/* whitespace runs; leading and trailing ignored */
			i = 0;
			for (;;) {
				while (i < n && stripchar(s + i, n - i, NULL, &len))
					i += len;
				if (i >= n)
					break;
				start = i;
				if (max >= 0 && (long long)m >= max && !right) {
					/* the rest, its trailing blanks kept (Python) */
					if (k)
						l->v[m] = jj_str(s + start, n - start);
					m++;
					break;
				}
				while (i < n && !stripchar(s + i, n - i, NULL, &len))
					i += len;
				if (k)
					l->v[m] = jj_str(s + start, i - start);
				m++;
			}
		}
		cnt = m;
	}
	out->type = JJ_LIST;
	out->u.l = l;
	return 0;
}

/* ---- string and dict methods ---- */

static int
items(struct rd *r, int line, struct jj_dict *d, struct jj_val *out)
{
	struct jj_list *l = jj_newlist(r, line, d->n), *p;
	size_t i;

	if (!l)
		return -1;
	for (i = 0; i < d->n; i++) {
		if (!(p = jj_newlist(r, line, 2)))
			return -1;
		p->v[0] = d->k[i];
		p->v[1] = d->v[i];
		l->v[i].type = JJ_LIST;
		l->v[i].u.l = p;
	}
	out->type = JJ_LIST;
	out->u.l = l;
	return 0;
}

static int
affix(struct rd *r, int line, const struct jj_val *v, struct jj_val *w, int end, int *res)
{
	size_t i;

	if (w && w->type == JJ_LIST) {
		for (i = 0, *res = 0; i < w->u.l->n && !*res; i++)
			if (affix(r, line, v, &w->u.l->v[i], end, res) < 0)
				return -1;
		return 0;
	}
	if (want_str(r, line, end ? "endswith" : "startswith", w) < 0)
		return -1;
	*res = w->u.s.n <= v->u.s.n && !memcmp(v->u.s.p + (end ? v->u.s.n - w->u.s.n : 0),
	    w->u.s.p, w->u.s.n);
	return 0;
}

static int
join(struct rd *r, int line, struct jj_val *seq, const char *sep, size_t nsep,
    const char *attr, struct jj_val *out);

int
jj_method(struct rd *r, int line, struct jj_val *obj, const char *name,
    struct jj_args *a, struct jj_val *out)
{
	int res;
	size_t i;
	struct jj_val *x;

	if (obj->type == JJ_STR) {
		if (!strcmp(name, "startswith") || !strcmp(name, "endswith")) {
			if (affix(r, line, obj, jj_arg(a, 0, NULL), name[0] == 'e', &res) < 0)
				return -1;
			*out = jj_bool(res);
			return 1;
		}
		if (!strcmp(name, "upper") || !strcmp(name, "lower") ||
		    !strcmp(name, "capitalize") || !strcmp(name, "title"))
			return recase(r, line, obj, name[0] == 'u' ? 1 : name[0] == 'l' ? 2 :
			    name[0] == 'c' ? 3 : 4, out) < 0 ? -1 : 1;
		if (!strcmp(name, "strip") || !strcmp(name, "lstrip") || !strcmp(name, "rstrip"))
			return strip(r, line, obj, jj_arg(a, 0, "chars"),
			    name[0] == 'l' ? 1 : name[0] == 'r' ? 2 : 3, out) < 0 ? -1 : 1;
		if (!strcmp(name, "split") || !strcmp(name, "rsplit"))
			return split(r, line, obj, a, name[0] == 'r', out) < 0 ? -1 : 1;
		if (!strcmp(name, "replace"))
			return replace(r, line, obj, a, out) < 0 ? -1 : 1;
		if (!strcmp(name, "find") || !strcmp(name, "count")) {
			const char *s = obj->u.s.p, *q;
			long long cnt = 0;
			x = jj_arg(a, 0, "sub");
			if (want_str(r, line, name, x) < 0)
				return -1;
			if (name[0] == 'f') {
				q = find(s, obj->u.s.n, x->u.s.p, x->u.s.n);
				*out = jj_int(q ? (long long)jj_ulen(s, q - s) : -1);
				return 1;
			}
			if (x->u.s.n == 0)
				cnt = jj_ulen(s, obj->u.s.n) + 1;
			else
				for (; (q = find(s, obj->u.s.p + obj->u.s.n - s, x->u.s.p, x->u.s.n)); cnt++)
					s = q + x->u.s.n;
			*out = jj_int(cnt);
			return 1;
		}
		if (!strcmp(name, "join"))
			return join(r, line, jj_arg(a, 0, "iterable"), obj->u.s.p, obj->u.s.n,
			    NULL, out) < 0 ? -1 : 1;
		return 0;
	}
	if (obj->type == JJ_DICT) {
		if (!strcmp(name, "items"))
			return items(r, line, obj->u.d, out) < 0 ? -1 : 1;
		if (!strcmp(name, "keys") || !strcmp(name, "values")) {
			struct jj_list *l = jj_newlist(r, line, obj->u.d->n);
			if (!l)
				return -1;
			for (i = 0; i < obj->u.d->n; i++)
				l->v[i] = name[0] == 'k' ? obj->u.d->k[i] : obj->u.d->v[i];
			out->type = JJ_LIST;
			out->u.l = l;
			return 1;
		}
		if (!strcmp(name, "get")) {
			struct jj_val none = { JJ_NONE, { 0 } }, *k = jj_arg(a, 0, "key"), *d = jj_arg(a, 1, "default");
			if (!k)
				return jj_err(r, line, "get: a key is needed");
			for (i = 0; i < obj->u.d->n; i++)
				if (jj_eq(&obj->u.d->k[i], k)) {
					*out = obj->u.d->v[i];
					return 1;
				}
			*out = d ? *d : none;
			return 1;
		}
	}
	return 0;
}

/* ---- filters ---- */

/* The items of a sequence (a list, a dict's keys, a string's characters). */
static int
seq(struct rd *r, int line, const char *what, struct jj_val *v, struct jj_list **out)
{
	struct jj_list *l;
	size_t i, o, len;

	switch (v->type) {
	case JJ_LIST:
		*out = v->u.l;
		return 0;
	case JJ_DICT:
		if (!(l = jj_newlist(r, line, v->u.d->n)))
			return -1;
		memcpy(l->v, v->u.d->k, v->u.d->n * sizeof(*l->v));
		*out = l;
		return 0;
	case JJ_STR:
		if (!(l = jj_newlist(r, line, jj_ulen(v->u.s.p, v->u.s.n))))
			return -1;
		for (i = o = 0; o < v->u.s.n; i++, o += len) {
			len = jj_uoff(v->u.s.p + o, v->u.s.n - o, 1);
			l->v[i] = jj_str(v->u.s.p + o, len);
		}
		*out = l;
		return 0;
	case JJ_UNDEF:
		if (!(l = jj_newlist(r, line, 0)))
			return -1;
		*out = l;
		return 0;
	default:
		return jj_err(r, line, "%s: '%s' object is not iterable", what, jj_typename(v));
	}
}

static struct jj_val
listval(struct jj_list *l)
{
	struct jj_val v = { JJ_LIST, { 0 } };

	v.u.l = l;
	return v;
}

/* obj.attr or obj[attr] for map, selectattr, join(attribute=), sort(attribute=) */
static struct jj_val
attrof(struct jj_val *obj, const char *attr)
{
	struct jj_val *x;

	if ((obj->type == JJ_DICT || obj->type == JJ_NS) &&
	    (x = jj_dict_get(obj->u.d, attr, strlen(attr))))
		return *x;
	return jj_undef(attr);
}

static int
join(struct rd *r, int line, struct jj_val *sv, const char *sep, size_t nsep,
    const char *attr, struct jj_val *out)
{
	struct jj_list *l;
	struct jj_sb b = { 0 };
	struct jj_val x;
	size_t i;
	int rc = 0;

	if (!sv)
		return jj_err(r, line, "join: nothing to join");
	if (seq(r, line, "join", sv, &l) < 0)
		return -1;
	for (i = 0; rc == 0 && i < l->n; i++) {
		x = attr ? attrof(&l->v[i], attr) : l->v[i];
		if (i)
			rc = jj_sb_add(r, line, &b, sep, nsep);
		if (rc == 0)
			rc = jj_write(r, line, &b, &x, 0);
	}
	if (rc == 0)
		rc = jj_sb_val(r, line, &b, out);
	free(b.p);
	return rc;
}

static int
escape(struct rd *r, int line, struct jj_val *v, struct jj_val *out)
{
	struct jj_sb b = { 0 };
	struct jj_val s;
	size_t i;
	int rc = 0;
	const char *e;

	if (jj_tostr(r, line, v, &s) < 0)
		return -1;
	for (i = 0; rc == 0 && i < s.u.s.n; i++) {
		switch (s.u.s.p[i]) {
		case '&': e = "&amp;"; break;
		case '<': e = "&lt;"; break;
		case '>': e = "&gt;"; break;
		case '"': e = "&#34;"; break;
		case '\'': e = "&#39;"; break;
		default: e = NULL;
		}
		rc = e ? sb_str(r, line, &b, e) : jj_sb_add(r, line, &b, s.u.s.p + i, 1);
	}
	if (rc == 0)
		rc = jj_sb_val(r, line, &b, out);
	free(b.p);
	return rc;
}

static int
indent(struct rd *r, int line, struct jj_val *v, struct jj_args *a, struct jj_val *out)
{
	struct jj_val *w = jj_arg(a, 0, "width"), *fv = jj_arg(a, 1, "first"),
	    *bv = jj_arg(a, 2, "blank"), s, pad = jj_str("    ", 4);
	struct jj_sb b = { 0 }, pb = { 0 };
	long long width = 4, k;
	size_t i, start;
	int rc = 0, first = fv && jj_truthy(fv), blank = bv && jj_truthy(bv);

	if (jj_tostr(r, line, v, &s) < 0)
		return -1;
	if (w && w->type == JJ_STR) {
		pad = *w;
	} else if (w) {
		if (want_int(r, line, "indent", w, &width) < 0)
			return -1;
		for (k = 0; rc == 0 && k < width; k++)
			rc = sb_str(r, line, &pb, " ");
		if (rc == 0)
			pad = jj_str(pb.p ? pb.p : "", pb.n);
	}
	/* lines after the first, blank ones only with blank=true */
	for (i = start = 0; rc == 0 && i <= s.u.s.n; i++) {
		if (i < s.u.s.n && s.u.s.p[i] != '\n')
			continue;
		if ((start > 0 || first) && (i > start || blank))
			rc = jj_sb_add(r, line, &b, pad.u.s.p, pad.u.s.n);
		if (rc == 0)
			rc = jj_sb_add(r, line, &b, s.u.s.p + start, i - start + (i < s.u.s.n));
		start = i + 1;
	}
	if (rc == 0)
		rc = jj_sb_val(r, line, &b, out);
	free(b.p);
	free(pb.p);
	return rc;
}

static int
tojson(struct rd *r, int line, struct jj_val *v, struct jj_args *a, struct jj_val *out)
{
	struct jj_val *ind = jj_arg(a, 0, "indent"), *sep = jj_arg(a, 1, "separators"),
	    *sk = jj_arg(a, 2, "sort_keys"), *ea = jj_arg(a, 3, "ensure_ascii");
	struct jsonopt o = { -1, ", ", ": ", 2, 2, 0 };
	struct jj_sb b = { 0 };
	int rc;

	if (a->n > 1)
		return jj_err(r, line, "tojson: takes keyword arguments after indent");
	if (ind && ind->type != JJ_NONE) {
		if (want_int(r, line, "tojson indent", ind, &o.indent) < 0)
			return -1;
		if (o.indent < 0)
			o.indent = 0;
		if (o.indent > 64)
			return jj_err(r, line, "tojson: indent %lld too large", o.indent);
		o.isep = ",";
		o.nisep = 1;
	}
	if (sep && sep->type != JJ_NONE) {
		if (sep->type != JJ_LIST || sep->u.l->n != 2 ||
		    want_str(r, line, "tojson separators", &sep->u.l->v[0]) < 0 ||
		    want_str(r, line, "tojson separators", &sep->u.l->v[1]) < 0)
			return r->failed ? -1 : jj_err(r, line, "tojson: separators must be two strings");
		o.isep = sep->u.l->v[0].u.s.p;
		o.nisep = sep->u.l->v[0].u.s.n;
		o.ksep = sep->u.l->v[1].u.s.p;
		o.nksep = sep->u.l->v[1].u.s.n;
	}
	o.sort = sk && jj_truthy(sk);
	if (ea && jj_truthy(ea))
		return jj_err(r, line, "tojson: ensure_ascii=true is not supported");
	rc = json_dump(r, line, &b, v, &o, 0);
	if (rc == 0)
		rc = jj_sb_val(r, line, &b, out);
	free(b.p);
	return rc;
}

/* select, reject (by a test), selectattr, rejectattr (by an attribute
 * and a test, default truth) */
static int
selectf(struct rd *r, int line, struct jj_val *v, struct jj_args *a, int attr, int neg,
    struct jj_val *out)
{
	struct jj_list *l, *o;
	struct jj_args ta = { 0 };
	struct jj_val *an = NULL, *tn, x;
	size_t i, m = 0, first = 0;
	int res;

	if (seq(r, line, "select", v, &l) < 0)
		return -1;
	if (attr) {
		an = jj_arg(a, 0, NULL);
		if (want_str(r, line, "selectattr", an) < 0)
			return -1;
		first = 1;
	}
	tn = jj_arg(a, first, NULL);
	if (tn && want_str(r, line, "select", tn) < 0)
		return -1;
	if (a->n > first + 1) {
		ta.v = a->v + first + 1;
		ta.n = a->n - first - 1;
	}
	if (!(o = jj_newlist(r, line, l->n)))
		return -1;
	for (i = 0; i < l->n; i++) {
		x = attr ? attrof(&l->v[i], an->u.s.p) : l->v[i];
		if (tn) {
			if (jj_test(r, line, tn->u.s.p, &x, &ta, &res) < 0)
				return -1;
		} else {
			res = jj_truthy(&x);
		}
		if (res != neg)
			o->v[m++] = l->v[i];
	}
	o->n = m;
	*out = listval(o);
	return 0;
}

static int
mapf(struct rd *r, int line, struct jj_val *v, struct jj_args *a, struct jj_val *out)
{
	struct jj_list *l, *o;
	struct jj_val *an = jj_arg(a, a->n ? a->n : 99, "attribute"), *dv = jj_arg(a, 99, "default");
	struct jj_args fa = { 0 };
	size_t i;

	if (seq(r, line, "map", v, &l) < 0 || !(o = jj_newlist(r, line, l->n)))
		return -1;
	if (an && want_str(r, line, "map attribute", an) < 0)
		return -1;
	if (!an && want_str(r, line, "map", jj_arg(a, 0, NULL)) < 0)
		return -1;
	if (!an) {
		fa.v = a->v + 1;
		fa.n = a->n - 1;
	}
	for (i = 0; i < l->n; i++) {
		if (an) {
			o->v[i] = attrof(&l->v[i], an->u.s.p);
			if (o->v[i].type == JJ_UNDEF && dv)
				o->v[i] = *dv;
		} else if (jj_filter(r, line, a->v[0].u.s.p, &l->v[i], &fa, &o->v[i]) < 0) {
			return -1;
		}
	}
	*out = listval(o);
	return 0;
}

static int
tonum(struct rd *r, int line, struct jj_val *v, int isfloat, struct jj_val *dflt, struct jj_val *out)
{
	char buf[64], *e;
	double f;
	long long i;

	if (v->type == JJ_INT || v->type == JJ_BOOL || v->type == JJ_FLOAT) {
		if (isfloat) {
			out->type = JJ_FLOAT;
			out->u.f = numf(v);
		} else {
			*out = jj_int(v->type == JJ_FLOAT ? (long long)v->u.f : v->u.i);
		}
		return 0;
	}
	if (v->type == JJ_STR && v->u.s.n < sizeof(buf)) {
		memcpy(buf, v->u.s.p, v->u.s.n);
		buf[v->u.s.n] = '\0';
		if (isfloat) {
			f = strtod(buf, &e);
			if (e != buf && !*e) {
				out->type = JJ_FLOAT;
				out->u.f = f;
				return 0;
			}
		} else {
			i = strtoll(buf, &e, 10);
			if (e != buf && !*e) {
				*out = jj_int(i);
				return 0;
			}
		}
	}
	(void)r;
	(void)line;
	if (dflt)
		*out = *dflt;
	else if (isfloat)
		out->type = JJ_FLOAT, out->u.f = 0;
	else
		*out = jj_int(0);
	return 0;
}

int
jj_filter(struct rd *r, int line, const char *name, struct jj_val *v,
    struct jj_args *a, struct jj_val *out)
{
	struct jj_list *l, *o;
	struct jj_val *x, s;
	size_t i, j, *idx;
	int lt;

	if (!strcmp(name, "length") || !strcmp(name, "count")) {
		if (v->type == JJ_STR)
			*out = jj_int(jj_ulen(v->u.s.p, v->u.s.n));
		else if (v->type == JJ_LIST)
			*out = jj_int(v->u.l->n);
		else if (v->type == JJ_DICT || v->type == JJ_NS)
			*out = jj_int(v->u.d->n);
		else if (v->type == JJ_UNDEF)
			*out = jj_int(0);
		else
			return jj_err(r, line, "length: object of type '%s' has no len()", jj_typename(v));
		return 0;
	}
	if (!strcmp(name, "default") || !strcmp(name, "d")) {
		struct jj_val *dv = jj_arg(a, 0, "default_value"), *bv = jj_arg(a, 1, "boolean");
		struct jj_val empty = jj_str("", 0);
		if (v->type == JJ_UNDEF || (bv && jj_truthy(bv) && !jj_truthy(v)))
			*out = dv ? *dv : empty;
		else
			*out = *v;
		return 0;
	}
	if (!strcmp(name, "safe")) {
		*out = *v;
		return 0;
	}
	if (!strcmp(name, "string"))
		return jj_tostr(r, line, v, out);
	if (!strcmp(name, "tojson"))
		return tojson(r, line, v, a, out);
	if (!strcmp(name, "trim") || !strcmp(name, "upper") || !strcmp(name, "lower") ||
	    !strcmp(name, "title") || !strcmp(name, "capitalize") || !strcmp(name, "replace")) {
		if (jj_tostr(r, line, v, &s) < 0)
			return -1;
		if (!strcmp(name, "trim"))
			return strip(r, line, &s, jj_arg(a, 0, "chars"), 3, out);
		if (!strcmp(name, "replace"))
			return replace(r, line, &s, a, out);
		return recase(r, line, &s, name[0] == 'u' ? 1 : name[0] == 'l' ? 2 :
		    name[0] == 'c' ? 3 : 5, out);
	}
	if (!strcmp(name, "join")) {
		struct jj_val *sep = jj_arg(a, 0, "d"), *at = jj_arg(a, 1, "attribute");
		if (sep && want_str(r, line, "join", sep) < 0)
			return -1;
		if (at && want_str(r, line, "join attribute", at) < 0)
			return -1;
		return join(r, line, v, sep ? sep->u.s.p : "", sep ? sep->u.s.n : 0,
		    at ? at->u.s.p : NULL, out);
	}
	if (!strcmp(name, "items")) {
		if (v->type == JJ_UNDEF) {
			if (!(l = jj_newlist(r, line, 0)))
				return -1;
			*out = listval(l);
			return 0;
		}
		if (v->type != JJ_DICT)
			return jj_err(r, line, "items: expected a mapping, got %s", jj_typename(v));
		return items(r, line, v->u.d, out);
	}
	if (!strcmp(name, "dictsort")) {
		struct jj_val it;
		if (v->type != JJ_DICT)
			return jj_err(r, line, "dictsort: expected a mapping, got %s", jj_typename(v));
		if (items(r, line, v->u.d, &it) < 0 || !(idx = ralloc(r, line, v->u.d->n + 1, sizeof(*idx))))
			return -1;
		for (i = 0; i < v->u.d->n; i++)
			idx[i] = i;
		if (sort_vals(r, line, v->u.d->k, idx, v->u.d->n, 0) < 0 ||
		    !(o = jj_newlist(r, line, v->u.d->n)))
			return -1;
		for (i = 0; i < o->n; i++)
			o->v[i] = it.u.l->v[idx[i]];
		*out = listval(o);
		return 0;
	}
	if (!strcmp(name, "first") || !strcmp(name, "last")) {
		if (seq(r, line, name, v, &l) < 0)
			return -1;
		*out = l->n ? l->v[name[0] == 'f' ? 0 : l->n - 1] : jj_undef(NULL);
		return 0;
	}
	if (!strcmp(name, "list")) {
		if (seq(r, line, name, v, &l) < 0)
			return -1;
		*out = listval(l);
		return 0;
	}
	if (!strcmp(name, "reverse")) {
		if (v->type == JJ_STR) {
			char *p = ralloc(r, line, v->u.s.n + 1, 1);
			size_t len, k = v->u.s.n;
			if (!p)
				return -1;
			for (i = 0; i < v->u.s.n; i += len) {
				len = jj_uoff(v->u.s.p + i, v->u.s.n - i, 1);
				k -= len;
				memcpy(p + k, v->u.s.p + i, len);
			}
			p[v->u.s.n] = '\0';
			*out = jj_str(p, v->u.s.n);
			return 0;
		}
		if (seq(r, line, name, v, &l) < 0 || !(o = jj_newlist(r, line, l->n)))
			return -1;
		for (i = 0; i < l->n; i++)
			o->v[i] = l->v[l->n - 1 - i];
		*out = listval(o);
		return 0;
	}
	if (!strcmp(name, "sort") || !strcmp(name, "unique") || !strcmp(name, "max") ||
	    !strcmp(name, "min")) {
		struct jj_val *rv = jj_arg(a, 0, "reverse"), *at = jj_arg(a, 99, "attribute"), *keys;
		int rev = name[1] == 'o' && rv && jj_truthy(rv);
		if (at && want_str(r, line, "sort attribute", at) < 0)
			return -1;
		if (seq(r, line, name, v, &l) < 0 || !(idx = ralloc(r, line, l->n + 1, sizeof(*idx))) ||
		    !(keys = ralloc(r, line, l->n + 1, sizeof(*keys))))
			return -1;
		for (i = 0; i < l->n; i++) {
			idx[i] = i;
			keys[i] = at ? attrof(&l->v[i], at->u.s.p) : l->v[i];
		}
		if (!strcmp(name, "unique")) {
			/* pairwise: its comparisons count as iterations */
			if (l->n > 1 && (double)l->n * (l->n - 1) / 2 > (double)r->lim.iter)
				return jj_err(r, line, "unique: %zu items, more comparisons than the limit of %llu iterations",
				    l->n, r->lim.iter);
			if (!(o = jj_newlist(r, line, l->n)))
				return -1;
			for (i = j = 0; i < l->n; i++) {
				size_t k;
				for (k = 0; k < j && !jj_eq(&o->v[k], &l->v[i]); k++)
					;
				if (k == j)
					o->v[j++] = l->v[i];
			}
			o->n = j;
			*out = listval(o);
			return 0;
		}
		if (sort_vals(r, line, keys, idx, l->n, 0) < 0)
			return -1;
		if (name[1] != 'o') {
			if (!l->n) {
				*out = jj_undef(NULL);
				return 0;
			}
			/* max: the first of the largest, as Python's max */
			if (name[1] == 'a') {
				for (j = l->n - 1; j > 0; j--) {
					if (jj_less(r, line, &keys[idx[j - 1]], &keys[idx[j]], &lt) < 0)
						return -1;
					if (lt)
						break;
				}
				*out = l->v[idx[j]];
			} else {
				*out = l->v[idx[0]];
			}
			return 0;
		}
		if (!(o = jj_newlist(r, line, l->n)))
			return -1;
		for (i = 0; i < l->n; i++)
			o->v[i] = l->v[idx[rev ? l->n - 1 - i : i]];
		*out = listval(o);
		return 0;
	}
	if (!strcmp(name, "sum")) {
		struct jj_val acc = jj_int(0);
		if (seq(r, line, name, v, &l) < 0)
			return -1;
		for (i = 0; i < l->n; i++) {
			if (!isnum(&l->v[i]))
				return jj_err(r, line, "sum: cannot add %s", jj_typename(&l->v[i]));
			if (acc.type == JJ_INT && l->v[i].type != JJ_FLOAT) {
				if (__builtin_add_overflow(acc.u.i, l->v[i].u.i, &acc.u.i))
					return jj_err(r, line, "sum: integer overflow");
			} else {
				acc.u.f = numf(&acc) + numf(&l->v[i]);
				acc.type = JJ_FLOAT;
			}
		}
		*out = acc;
		return 0;
	}
	if (!strcmp(name, "select") || !strcmp(name, "reject"))
		return selectf(r, line, v, a, 0, name[0] == 'r', out);
	if (!strcmp(name, "selectattr") || !strcmp(name, "rejectattr"))
		return selectf(r, line, v, a, 1, name[0] == 'r', out);
	if (!strcmp(name, "map"))
		return mapf(r, line, v, a, out);
	if (!strcmp(name, "int") || !strcmp(name, "float"))
		return tonum(r, line, v, name[0] == 'f', jj_arg(a, 0, "default"), out);
	if (!strcmp(name, "abs")) {
		if (v->type == JJ_FLOAT) {
			out->type = JJ_FLOAT;
			out->u.f = fabs(v->u.f);
		} else if (v->type == JJ_INT || v->type == JJ_BOOL) {
			if (v->u.i == INT64_MIN)
				return jj_err(r, line, "abs: integer overflow");
			*out = jj_int(v->u.i < 0 ? -v->u.i : v->u.i);
		} else {
			return jj_err(r, line, "abs: bad operand type '%s'", jj_typename(v));
		}
		return 0;
	}
	if (!strcmp(name, "round")) {
		struct jj_val *pv = jj_arg(a, 0, "precision"), *mv = jj_arg(a, 1, "method");
		long long prec = 0;
		double f, m;
		if (!isnum(v))
			return jj_err(r, line, "round: expected a number, got %s", jj_typename(v));
		if (pv && want_int(r, line, "round", pv, &prec) < 0)
			return -1;
		if (prec < 0 || prec > 15)
			return jj_err(r, line, "round: precision %lld out of range", prec);
		m = pow(10, (double)prec);
		f = numf(v) * m;
		if (mv && mv->type == JJ_STR && mv->u.s.n == 4 && !memcmp(mv->u.s.p, "ceil", 4))
			f = ceil(f);
		else if (mv && mv->type == JJ_STR && mv->u.s.n == 5 && !memcmp(mv->u.s.p, "floor", 5))
			f = floor(f);
		else
			f = nearbyint(f);	/* half to even, as Python's round */
		out->type = JJ_FLOAT;
		out->u.f = f / m;
		return 0;
	}
	if (!strcmp(name, "escape") || !strcmp(name, "e"))
		return escape(r, line, v, out);
	if (!strcmp(name, "indent"))
		return indent(r, line, v, a, out);
	x = NULL;
	(void)x;
	return jj_err(r, line, "unknown filter '%s'", name);
}

/* ---- tests ---- */

int
jj_test(struct rd *r, int line, const char *name, struct jj_val *v,
    struct jj_args *a, int *res)
{
	struct jj_val *x = jj_arg(a, 0, NULL);
	int t = v->type, lt;

	if (!strcmp(name, "defined")) *res = t != JJ_UNDEF;
	else if (!strcmp(name, "undefined")) *res = t == JJ_UNDEF;
	else if (!strcmp(name, "none")) *res = t == JJ_NONE;
	else if (!strcmp(name, "boolean")) *res = t == JJ_BOOL;
	else if (!strcmp(name, "true")) *res = t == JJ_BOOL && v->u.i;
	else if (!strcmp(name, "false")) *res = t == JJ_BOOL && !v->u.i;
	else if (!strcmp(name, "integer")) *res = t == JJ_INT;
	else if (!strcmp(name, "float")) *res = t == JJ_FLOAT;
	else if (!strcmp(name, "number")) *res = isnum(v);
	else if (!strcmp(name, "string")) *res = t == JJ_STR;
	else if (!strcmp(name, "mapping")) *res = t == JJ_DICT;
	else if (!strcmp(name, "iterable")) *res = t == JJ_STR || t == JJ_LIST || t == JJ_DICT;
	else if (!strcmp(name, "sequence")) *res = t == JJ_STR || t == JJ_LIST || t == JJ_DICT;
	else if (!strcmp(name, "callable")) *res = t == JJ_MACRO || t == JJ_FUNC;
	else if (!strcmp(name, "lower") || !strcmp(name, "upper")) {
		size_t i;
		int lower = name[0] == 'l', any = 0;
		*res = t == JJ_STR;
		for (i = 0; *res && i < v->u.s.n; i++) {
			char c = v->u.s.p[i];
			if ((lower && c >= 'A' && c <= 'Z') || (!lower && c >= 'a' && c <= 'z'))
				*res = 0;
			any |= (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
		}
		*res = *res && any;
	} else if (!strcmp(name, "odd") || !strcmp(name, "even") || !strcmp(name, "divisibleby")) {
		long long d = 2, m;
		if (t != JJ_INT && t != JJ_BOOL)
			return jj_err(r, line, "%s: expected an integer, got %s", name, jj_typename(v));
		if (name[0] == 'd' && want_int(r, line, name, x, &d) < 0)
			return -1;
		if (d == 0)
			return jj_err(r, line, "divisibleby: division by zero");
		m = d == -1 ? 0 : v->u.i % d;
		*res = name[0] == 'o' ? m != 0 : m == 0;
	} else if (!strcmp(name, "sameas")) {
		if (!x)
			return jj_err(r, line, "sameas: an argument is needed");
		*res = (t == JJ_NONE || t == JJ_BOOL || t == JJ_UNDEF) ? t == x->type && jj_eq(v, x) :
		    t == x->type && jj_eq(v, x) && (t == JJ_LIST ? v->u.l == x->u.l :
		    t == JJ_DICT ? v->u.d == x->u.d : 1);
	} else if (!strcmp(name, "in")) {
		size_t i;
		if (!x)
			return jj_err(r, line, "in: an argument is needed");
		if (x->type == JJ_STR) {
			if (t != JJ_STR)
				return jj_err(r, line, "in: 'in <string>' requires a string, not %s", jj_typename(v));
			*res = find(x->u.s.p, x->u.s.n, v->u.s.p, v->u.s.n) != NULL;
		} else if (x->type == JJ_LIST) {
			for (i = 0, *res = 0; i < x->u.l->n && !*res; i++)
				*res = jj_eq(v, &x->u.l->v[i]);
		} else if (x->type == JJ_DICT) {
			for (i = 0, *res = 0; i < x->u.d->n && !*res; i++)
				*res = jj_eq(v, &x->u.d->k[i]);
		} else {
			return jj_err(r, line, "in: argument of type '%s' is not iterable", jj_typename(x));
		}
	} else {
		static const char *const cmp[][3] = {
			{ "eq", "equalto", "==" }, { "ne", "!=", "" }, { "lt", "lessthan", "<" },
			{ "le", "<=", "" }, { "gt", "greaterthan", ">" }, { "ge", ">=", "" },
		};
		size_t i, k;
		for (i = 0; i < LEN(cmp); i++)
			for (k = 0; k < 3; k++)
				if (cmp[i][k][0] && !strcmp(name, cmp[i][k]))
					goto found;
		return jj_err(r, line, "unknown test '%s'", name);
found:
		if (!x)
			return jj_err(r, line, "%s: an argument is needed", name);
		switch (i) {
		case 0: *res = jj_eq(v, x); break;
		case 1: *res = !jj_eq(v, x); break;
		case 2: if (jj_less(r, line, v, x, &lt) < 0) return -1; *res = lt; break;
		case 3: if (jj_less(r, line, x, v, &lt) < 0) return -1; *res = !lt; break;
		case 4: if (jj_less(r, line, x, v, &lt) < 0) return -1; *res = lt; break;
		default: if (jj_less(r, line, v, x, &lt) < 0) return -1; *res = !lt; break;
		}
	}
	return 0;
}
