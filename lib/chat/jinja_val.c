/* jinja_val.c: Jinja values as Python sees them: constructors in the
 * render's arena, str() and repr(), json.dumps (the tojson filter), ==, <,
 * truthiness, sorting, and the checks of call arguments.  The filters,
 * tests and methods are in jinja_filt.c. */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chat/jinja.h"
#include "chat/jinja_int.h"
#include "base/unicode.h"
#include "base/util.h"

/* ---- buffers and constructors ---- */

/* The budget of jinja.c's count_iter, which the work of an operation
 * draws on too. */
int
jj_charge(struct rd *r, int line, size_t bytes, size_t items)
{
	unsigned long long w;

	bytes += r->workbytes;	/* no overflow: a string's size, and < 64 */
	r->workbytes = bytes % JJ_WORKBYTES;
	w = bytes / JJ_WORKBYTES + (unsigned long long)items;

	if (w > r->lim.iter - (r->iters < r->lim.iter ? r->iters : r->lim.iter)) {
		r->iters = r->lim.iter;
		return jj_err(r, line, "more than the limit of %llu loop iterations and macro calls, "
		    "with the work of operations (one a %d bytes or an item)", r->lim.iter, JJ_WORKBYTES);
	}
	r->iters += w;
	return 0;
}

int
jj_sb_add(struct rd *r, int line, struct jj_sb *b, const void *p, size_t n)
{
	size_t cap;
	char *q;

	if (n > r->lim.output || b->n > r->lim.output - n)
		return jj_err(r, line, "%s longer than the limit of %zu bytes",
		    b == r->out ? "output" : "string", r->lim.output);
	if (jj_charge(r, line, n, 0) < 0)
		return -1;
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

int
jj_sb_str(struct rd *r, int line, struct jj_sb *b, const char *s)
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

void *
jj_ralloc(struct rd *r, int line, size_t n, size_t size)
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
	struct jj_list *l = jj_ralloc(r, line, 1, sizeof(*l));

	if (!l || !(l->v = jj_ralloc(r, line, n, sizeof(*l->v))))
		return NULL;
	l->n = n;
	l->tuple = 0;
	return l;
}

struct jj_dict *
jj_newdict(struct rd *r, int line, size_t cap)
{
	struct jj_dict *d = jj_ralloc(r, line, 1, sizeof(*d));

	if (!cap)
		cap = 4;
	if (!d || !(d->k = jj_ralloc(r, line, cap, sizeof(*d->k))) ||
	    !(d->v = jj_ralloc(r, line, cap, sizeof(*d->v))))
		return NULL;
	d->n = 0;
	d->cap = cap;
	d->slot = NULL;
	d->nslot = 0;
	return d;
}

/* ---- the dict index ---- */

#define INDEXFROM 8		/* keys past which a dict has an index */

static uint64_t
mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return x;
}

static uint64_t
hashbytes(const char *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;	/* FNV-1a */
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ (unsigned char)p[i]) * 0x100000001b3ULL;
	return mix(h);
}

/* Equal values (jj_eq) hash alike: 1, 1.0 and true too. */
static uint64_t
hashval(const struct jj_val *v)
{
	double f;

	switch (v->type) {
	case JJ_STR:
		return hashbytes(v->u.s.p, v->u.s.n);
	case JJ_BOOL:
	case JJ_INT:
		return mix((uint64_t)v->u.i);
	case JJ_FLOAT:
		f = v->u.f;
		if (f == floor(f) && fabs(f) < 9.2e18)
			return mix((uint64_t)(long long)f);
		{
			uint64_t bits;	/* not an integer: equal only to itself */
			memcpy(&bits, &f, sizeof(bits));
			return mix(bits);
		}
	case JJ_LIST:
		return mix(v->u.l->n * 2 + (size_t)v->u.l->tuple);
	default:
		return (uint64_t)v->type;
	}
}

/* Put key i of d in its index. */
static void
slotput(struct jj_dict *d, size_t i)
{
	size_t m = d->nslot - 1, h = (size_t)hashval(&d->k[i]) & m;

	while (d->slot[h])
		h = (h + 1) & m;
	d->slot[h] = (uint32_t)(i + 1);
}

/* An index of at least 4 slots a key; 0, or -1 after jj_err. */
static int
reindex(struct rd *r, int line, struct jj_dict *d)
{
	size_t ns = 16, i;

	while (ns < 4 * d->n)
		ns *= 2;
	if (ns > UINT32_MAX || !(d->slot = jj_ralloc(r, line, ns, sizeof(*d->slot))))
		return ns > UINT32_MAX ? jj_err(r, line, "dict of too many keys") : -1;
	memset(d->slot, 0, ns * sizeof(*d->slot));
	d->nslot = ns;
	for (i = 0; i < d->n; i++)
		slotput(d, i);
	return 0;
}

long
jj_dict_find(const struct jj_dict *d, const struct jj_val *k)
{
	size_t i, m, h;

	if (!d->nslot) {
		for (i = 0; i < d->n; i++)
			if (jj_eq(&d->k[i], k))
				return (long)i;
		return -1;
	}
	m = d->nslot - 1;
	for (h = (size_t)hashval(k) & m; d->slot[h]; h = (h + 1) & m)
		if (jj_eq(&d->k[d->slot[h] - 1], k))
			return (long)d->slot[h] - 1;
	return -1;
}

void
jj_dict_clear(struct jj_dict *d)
{
	d->n = 0;
	d->slot = NULL;		/* left in the arena */
	d->nslot = 0;
}

int
jj_dict_put(struct rd *r, int line, struct jj_dict *d, struct jj_val k, struct jj_val v)
{
	long at = jj_dict_find(d, &k);
	struct jj_val *nk, *nv;

	if (at >= 0) {
		d->v[at] = v;
		return 0;
	}
	if (d->n == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 8;
		if (!(nk = jj_ralloc(r, line, cap, sizeof(*nk))) ||
		    !(nv = jj_ralloc(r, line, cap, sizeof(*nv))))
			return -1;
		if (d->n) {
			memcpy(nk, d->k, d->n * sizeof(*nk));
			memcpy(nv, d->v, d->n * sizeof(*nv));
		}
		d->k = nk;
		d->v = nv;
		d->cap = cap;
	}
	d->k[d->n] = k;
	d->v[d->n++] = v;
	if (d->n < INDEXFROM)
		return 0;
	if (4 * d->n > d->nslot * 3 || !d->nslot)	/* grow at 3/4 full */
		return reindex(r, line, d);
	slotput(d, d->n - 1);
	return 0;
}

struct jj_val *
jj_dict_get(const struct jj_dict *d, const char *key, size_t n)
{
	size_t i, m, h;
	const struct jj_val *k;

	if (!d->nslot) {
		for (i = 0; i < d->n; i++)
			if (d->k[i].type == JJ_STR && d->k[i].u.s.n == n &&
			    !memcmp(d->k[i].u.s.p, key, n))
				return &d->v[i];
		return NULL;
	}
	m = d->nslot - 1;
	for (h = (size_t)hashbytes(key, n) & m; d->slot[h]; h = (h + 1) & m) {
		k = &d->k[d->slot[h] - 1];
		if (k->type == JJ_STR && k->u.s.n == n && !memcmp(k->u.s.p, key, n))
			return &d->v[d->slot[h] - 1];
	}
	return NULL;
}

int
jj_sb_val(struct rd *r, int line, struct jj_sb *b, struct jj_val *out)
{
	char *p;

	if (jj_charge(r, line, b->n, 0) < 0 || !(p = jj_ralloc(r, line, b->n + 1, 1)))
		return -1;
	if (b->n)
		memcpy(p, b->p, b->n);
	p[b->n] = '\0';
	*out = jj_str(p, b->n);
	return 0;
}

/* v's string NUL-terminated: itself, or a copy for a slice of another
 * string (reading p[n] is safe: every string is an allocation ended by a
 * NUL, or a part of one). */
const char *
jj_cstr(struct rd *r, int line, const struct jj_val *v)
{
	char *c;

	if (v->u.s.p[v->u.s.n] == '\0')
		return v->u.s.p;
	if (!(c = jj_ralloc(r, line, v->u.s.n + 1, 1)))
		return NULL;
	memcpy(c, v->u.s.p, v->u.s.n);
	c[v->u.s.n] = '\0';
	return c;
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
	if (v->type == JJ_LIST && v->u.l->tuple)
		return "tuple";
	static const char *const names[] = {
		"Undefined", "NoneType", "bool", "int", "float", "str", "list",
		"dict", "Namespace", "Macro", "builtin_function", "LoopContext",
		"Macro"
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

int
jj_isnum(const struct jj_val *v)
{
	return v->type == JJ_BOOL || v->type == JJ_INT || v->type == JJ_FLOAT;
}

double
jj_numf(const struct jj_val *v)
{
	return v->type == JJ_FLOAT ? v->u.f : (double)v->u.i;
}

/* Values nest through lists, dicts and namespaces, a namespace may hold
 * itself: the walks below stop at this depth (JSON itself stops at 512). */
#define MAXVAL 1000

static int
eq(const struct jj_val *a, const struct jj_val *b, int depth, size_t *work)
{
	size_t i;
	struct jj_val *w;

	if (depth > MAXVAL)
		return 0;
	(*work)++;
	if (jj_isnum(a) && jj_isnum(b)) {
		if (a->type != JJ_FLOAT && b->type != JJ_FLOAT)
			return a->u.i == b->u.i;
		return jj_numf(a) == jj_numf(b);
	}
	if (a->type != b->type)
		return 0;
	switch (a->type) {
	case JJ_UNDEF: case JJ_NONE: return 1;
	case JJ_STR:
		if (a->u.s.n != b->u.s.n)
			return 0;
		*work += a->u.s.n / JJ_WORKBYTES;
		return !memcmp(a->u.s.p, b->u.s.p, a->u.s.n);
	case JJ_LIST:
		if (a->u.l->n != b->u.l->n || a->u.l->tuple != b->u.l->tuple)
			return 0;
		for (i = 0; i < a->u.l->n; i++)
			if (!eq(&a->u.l->v[i], &b->u.l->v[i], depth + 1, work))
				return 0;
		return 1;
	case JJ_DICT:
		if (a->u.d->n != b->u.d->n)
			return 0;
		for (i = 0; i < a->u.d->n; i++) {
			long j = jj_dict_find(b->u.d, &a->u.d->k[i]);
			*work += 1 + (a->u.d->k[i].type == JJ_STR ? a->u.d->k[i].u.s.n / JJ_WORKBYTES : 0);
			w = j >= 0 ? &b->u.d->v[j] : NULL;
			if (!w || !eq(&a->u.d->v[i], w, depth + 1, work))
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
	size_t work = 0;

	return eq(a, b, 0, &work);
}

int
jj_eq_work(const struct jj_val *a, const struct jj_val *b, size_t *work)
{
	return eq(a, b, 0, work);
}

size_t
jj_size(const struct jj_val *v)
{
	switch (v->type) {
	case JJ_STR: return 1 + v->u.s.n / JJ_WORKBYTES;
	case JJ_LIST: return 1 + v->u.l->n;
	case JJ_DICT: case JJ_NS: return 1 + v->u.d->n;
	default: return 1;
	}
}

static int
less(struct rd *r, int line, const struct jj_val *a, const struct jj_val *b, int *lt, int depth)
{
	size_t i, n;
	int x;

	if (depth > MAXVAL)
		return jj_err(r, line, "values nested deeper than %d", MAXVAL);

	if (jj_isnum(a) && jj_isnum(b)) {
		if (a->type != JJ_FLOAT && b->type != JJ_FLOAT)
			*lt = a->u.i < b->u.i;
		else
			*lt = jj_numf(a) < jj_numf(b);
		return 0;
	}
	if (a->type == JJ_STR && b->type == JJ_STR) {
		/* UTF-8 byte order is code point order */
		n = a->u.s.n < b->u.s.n ? a->u.s.n : b->u.s.n;
		x = memcmp(a->u.s.p, b->u.s.p, n);
		*lt = x < 0 || (x == 0 && a->u.s.n < b->u.s.n);
		return 0;
	}
	if (a->type == JJ_LIST && b->type == JJ_LIST && a->u.l->tuple == b->u.l->tuple) {
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
		if (jj_sb_str(r, line, b, esc) < 0)
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
		return repr ? jj_sb_str(r, line, b, "Undefined") : 0;
	case JJ_NONE:
		return jj_sb_str(r, line, b, "None");
	case JJ_BOOL:
		return jj_sb_str(r, line, b, v->u.i ? "True" : "False");
	case JJ_INT:
		snprintf(buf, sizeof(buf), "%lld", v->u.i);
		return jj_sb_str(r, line, b, buf);
	case JJ_FLOAT:
		fmt_float(v->u.f, buf, sizeof(buf));
		return jj_sb_str(r, line, b, buf);
	case JJ_STR:
		if (repr)
			return write_repr_str(r, line, b, v->u.s.p, v->u.s.n);
		return jj_sb_add(r, line, b, v->u.s.p, v->u.s.n);
	case JJ_LIST:
		/* Python's: [1, 2], (1, 2), (1,) */
		if (jj_sb_str(r, line, b, v->u.l->tuple ? "(" : "[") < 0)
			return -1;
		for (i = 0; i < v->u.l->n; i++)
			if ((i && jj_sb_str(r, line, b, ", ") < 0) ||
			    write_val(r, line, b, &v->u.l->v[i], 1, depth + 1) < 0)
				return -1;
		if (v->u.l->tuple)
			return jj_sb_str(r, line, b, v->u.l->n == 1 ? ",)" : ")");
		return jj_sb_str(r, line, b, "]");
	case JJ_DICT:
	case JJ_NS:
		if (jj_sb_str(r, line, b, v->type == JJ_NS ? "<Namespace {" : "{") < 0)
			return -1;
		for (i = 0; i < v->u.d->n; i++)
			if ((i && jj_sb_str(r, line, b, ", ") < 0) ||
			    write_val(r, line, b, &v->u.d->k[i], 1, depth + 1) < 0 ||
			    jj_sb_str(r, line, b, ": ") < 0 ||
			    write_val(r, line, b, &v->u.d->v[i], 1, depth + 1) < 0)
				return -1;
		return jj_sb_str(r, line, b, v->type == JJ_NS ? "}>" : "}");
	case JJ_MACRO:
	case JJ_CALLER:
		return jj_sb_str(r, line, b, "<Macro>");
	case JJ_LOOP:
		return jj_sb_str(r, line, b, "<LoopContext>");
	default:
		return jj_sb_str(r, line, b, "<built-in function>");
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

/* A JSON string as json.dumps writes it; ascii: ensure_ascii, every
 * character past U+007F as \uXXXX (a surrogate pair past U+FFFF). */
static int
jstr(struct rd *r, int line, struct jj_sb *b, const char *s, size_t n, int ascii)
{
	char esc[16];
	size_t i, start, len;
	uint32_t cp;

	if (jj_sb_str(r, line, b, "\"") < 0)
		return -1;
	for (i = start = 0; i < n; i++) {
		unsigned char c = s[i];
		if (c >= 0x80 && ascii) {
			if (jj_sb_add(r, line, b, s + start, i - start) < 0)
				return -1;
			len = uni_decode((const unsigned char *)s + i, n - i, &cp);
			if (cp >= 0x10000 && cp < 0x110000)
				snprintf(esc, sizeof(esc), "\\u%04x\\u%04x", 0xd800 + ((cp - 0x10000) >> 10),
				    0xdc00 + ((cp - 0x10000) & 0x3ff));
			else
				snprintf(esc, sizeof(esc), "\\u%04x", cp & 0xffff);
			if (jj_sb_str(r, line, b, esc) < 0)
				return -1;
			i += len - 1;
			start = i + 1;
			continue;
		}
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
		if (jj_sb_str(r, line, b, esc) < 0)
			return -1;
	}
	if (jj_sb_add(r, line, b, s + start, n - start) < 0)
		return -1;
	return jj_sb_str(r, line, b, "\"");
}

struct jsonopt {
	long long indent;		/* -1: none */
	const char *isep, *ksep;
	size_t nisep, nksep;
	int sort, ascii;
};

static int
json_nl(struct rd *r, int line, struct jj_sb *b, const struct jsonopt *o, int depth)
{
	long long i;

	if (o->indent < 0)
		return 0;
	if (jj_sb_str(r, line, b, "\n") < 0)
		return -1;
	for (i = 0; i < o->indent * depth; i++)
		if (jj_sb_str(r, line, b, " ") < 0)
			return -1;
	return 0;
}


/* json.dumps(v, ensure_ascii=False, ...) */
static int
json_dump(struct rd *r, int line, struct jj_sb *b, const struct jj_val *v,
    const struct jsonopt *o, int depth)
{
	size_t i, j, n, *idx = NULL;
	struct jj_val k;

	if (depth > MAXVAL)
		return jj_err(r, line, "tojson: values nested deeper than %d", MAXVAL);
	switch (v->type) {
	case JJ_NONE:
		return jj_sb_str(r, line, b, "null");
	case JJ_BOOL:
		return jj_sb_str(r, line, b, v->u.i ? "true" : "false");
	case JJ_INT:
		return jj_write(r, line, b, v, 0);
	case JJ_FLOAT:
		if (isnan(v->u.f))
			return jj_sb_str(r, line, b, "NaN");
		if (isinf(v->u.f))
			return jj_sb_str(r, line, b, v->u.f < 0 ? "-Infinity" : "Infinity");
		return jj_write(r, line, b, v, 0);
	case JJ_STR:
		return jstr(r, line, b, v->u.s.p, v->u.s.n, o->ascii);
	case JJ_LIST:
		if (!v->u.l->n)
			return jj_sb_str(r, line, b, "[]");
		if (jj_sb_str(r, line, b, "[") < 0)
			return -1;
		for (i = 0; i < v->u.l->n; i++)
			if ((i && jj_sb_add(r, line, b, o->isep, o->nisep) < 0) ||
			    json_nl(r, line, b, o, depth + 1) < 0 ||
			    json_dump(r, line, b, &v->u.l->v[i], o, depth + 1) < 0)
				return -1;
		if (json_nl(r, line, b, o, depth) < 0)
			return -1;
		return jj_sb_str(r, line, b, "]");
	case JJ_DICT:
		n = v->u.d->n;
		if (!n)
			return jj_sb_str(r, line, b, "{}");
		if (!(idx = jj_ralloc(r, line, n, sizeof(*idx))))
			return -1;
		for (i = 0; i < n; i++)
			idx[i] = i;
		if (o->sort && jj_sort(r, line, v->u.d->k, idx, n, 0) < 0)
			return -1;
		if (jj_sb_str(r, line, b, "{") < 0)
			return -1;
		for (j = 0; j < n; j++) {
			i = idx[j];
			k = v->u.d->k[i];
			if ((j && jj_sb_add(r, line, b, o->isep, o->nisep) < 0) ||
			    json_nl(r, line, b, o, depth + 1) < 0)
				return -1;
			/* json.dumps turns simple keys into strings */
			if (k.type == JJ_STR) {
				if (jstr(r, line, b, k.u.s.p, k.u.s.n, o->ascii) < 0)
					return -1;
			} else if (k.type == JJ_NONE || k.type == JJ_BOOL || k.type == JJ_INT ||
			    k.type == JJ_FLOAT) {
				struct jj_sb kb = { 0 };
				int rc = json_dump(r, line, &kb, &k, o, depth + 1);
				if (rc == 0)
					rc = jstr(r, line, b, kb.p ? kb.p : "", kb.n, 0);
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
		return jj_sb_str(r, line, b, "}");
	default:
		return jj_err(r, line, "tojson: object of type %s is not JSON serializable",
		    jj_typename(v));
	}
}

/* ---- sorting (a stable merge sort of indexes) ---- */

/* Python's sort never compares two Nones or two Undefineds it finds
 * equal by identity: they sort as equal. */
static int
sort_less(struct rd *r, int line, const struct jj_val *a, const struct jj_val *b, int *lt)
{
	if (a->type == b->type && (a->type == JJ_NONE || a->type == JJ_UNDEF)) {
		*lt = 0;
		return 0;
	}
	return jj_less(r, line, a, b, lt);
}

/* Sort idx[0..n) by v[idx[i]], stable. */
int
jj_sort(struct rd *r, int line, struct jj_val *v, size_t *idx, size_t n, int rev)
{
	size_t *tmp, w, i, j, k, lo, mid, hi;
	int lt;

	if (n < 2)
		return 0;
	for (w = 1, k = 0; w < n; w *= 2)
		k += n;		/* the comparisons of a merge sort */
	if (jj_charge(r, line, 0, k) < 0 || !(tmp = jj_ralloc(r, line, n, sizeof(*tmp))))
		return -1;
	for (w = 1; w < n; w *= 2) {
		for (lo = 0; lo < n; lo += 2 * w) {
			mid = lo + w < n ? lo + w : n;
			hi = lo + 2 * w < n ? lo + 2 * w : n;
			for (i = lo, j = mid, k = lo; k < hi; k++) {
				if (i < mid && j < hi) {
					/* descending stays stable: the right run's item
					 * goes first only if strictly greater */
					if (rev ? sort_less(r, line, &v[idx[i]], &v[idx[j]], &lt) < 0 :
					    sort_less(r, line, &v[idx[j]], &v[idx[i]], &lt) < 0)
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

int
jj_want_str(struct rd *r, int line, const char *what, struct jj_val *v)
{
	if (!v || v->type != JJ_STR)
		return jj_err(r, line, "%s: expected a string, got %s", what,
		    v ? jj_typename(v) : "nothing");
	return 0;
}

int
jj_want_int(struct rd *r, int line, const char *what, struct jj_val *v, long long *out)
{
	if (!v || (v->type != JJ_INT && v->type != JJ_BOOL))
		return jj_err(r, line, "%s: expected an integer, got %s", what,
		    v ? jj_typename(v) : "nothing");
	*out = v->u.i;
	return 0;
}

int
jj_tojson(struct rd *r, int line, struct jj_val *v, struct jj_args *a, struct jj_val *out)
{
	struct jj_val *ind = jj_arg(a, 0, "indent"), *sep = jj_arg(a, 1, "separators"),
	    *sk = jj_arg(a, 2, "sort_keys"), *ea = jj_arg(a, 3, "ensure_ascii");
	struct jsonopt o = { -1, ", ", ": ", 2, 2, 0, 0 };
	struct jj_sb b = { 0 };
	int rc;

	if (a->n > 1)
		return jj_err(r, line, "tojson: takes keyword arguments after indent");
	if (ind && ind->type != JJ_NONE) {
		if (jj_want_int(r, line, "tojson indent", ind, &o.indent) < 0)
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
		    jj_want_str(r, line, "tojson separators", &sep->u.l->v[0]) < 0 ||
		    jj_want_str(r, line, "tojson separators", &sep->u.l->v[1]) < 0)
			return r->failed ? -1 : jj_err(r, line, "tojson: separators must be two strings");
		o.isep = sep->u.l->v[0].u.s.p;
		o.nisep = sep->u.l->v[0].u.s.n;
		o.ksep = sep->u.l->v[1].u.s.p;
		o.nksep = sep->u.l->v[1].u.s.n;
	}
	o.sort = sk && jj_truthy(sk);
	o.ascii = ea && jj_truthy(ea);
	rc = json_dump(r, line, &b, v, &o, 0);
	if (rc == 0)
		rc = jj_sb_val(r, line, &b, out);
	free(b.p);
	return rc;
}

int
jj_err(struct rd *r, int line, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (r->failed)
		return -1;
	r->failed = 1;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (line <= 0)		/* not the template's: its variables */
		return error("%s: %s", r->t->name, msg);
	return error("%s, line %d: %s", r->t->name, line, msg);
}
