/* jinja.c: rendering a parsed template (jinja_int.h): scopes, statements,
 * expressions, calls, the globals (range, namespace, dict,
 * raise_exception, strftime_now).
 *
 * Scopes are Jinja2's: the template's top level is one frame; each
 * iteration of a for loop and each macro call get a fresh frame, so a
 * set inside them is not seen after them (what namespace() is for); if
 * makes no frame.  Every value lives in the render's arena, freed at the
 * end; struct jj_limits bounds it, the iterations, the call depth and the
 * output. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "chat/jinja.h"
#include "chat/jinja_int.h"
#include "base/util.h"

/* Evaluation recursion (expressions, statements, calls together): the
 * parser bounds one template's nesting, this bounds it across macro
 * calls, well inside a thread's stack. */
#define MAXREC 3000

const struct jj_limits jj_default_limits = {
	10000000ULL, 200, (size_t)64 << 20, (size_t)512 << 20
};

enum { GL_RANGE = 1, GL_NAMESPACE, GL_DICT, GL_RAISE, GL_STRFTIME, GL_CYCLE };

static const struct { const char *name; int id; } globals[] = {
	{ "range", GL_RANGE }, { "namespace", GL_NAMESPACE }, { "dict", GL_DICT },
	{ "raise_exception", GL_RAISE }, { "strftime_now", GL_STRFTIME },
};

struct jj_frame {
	struct jj_frame *parent;
	struct jj_dict d;		/* names (strings) and values */
};

struct jj_loop {
	struct jj_list *items;
	size_t i;
};

/* A call block's body as the macro's caller(): it runs in the block's
 * scope, a C stack frame, so it may be called while the block runs only. */
struct jj_caller {
	const struct node *m;		/* N_MACRO "caller" */
	struct jj_frame *env;
	int alive;
};

/* statement results besides 0 and -1 */
enum { BRK = 1, CONT = 2 };

/* ---- scopes ---- */

static int
setvar(struct rd *r, int line, struct jj_frame *f, const char *name, struct jj_val v)
{
	return jj_dict_put(r, line, &f->d, jj_str(name, strlen(name)), v);
}

static struct jj_val
getvar(struct rd *r, const char *name)
{
	struct jj_frame *f;
	struct jj_val v = { JJ_FUNC, { 0 } }, *x;
	size_t i, n = strlen(name);

	for (f = r->cur; f; f = f->parent)
		if ((x = jj_dict_get(&f->d, name, n)))
			return *x;
	for (i = 0; i < LEN(globals); i++)
		if (!strcmp(globals[i].name, name)) {
			v.u.i = globals[i].id;
			return v;
		}
	return jj_undef(name);
}

/* ---- JSON in ---- */

static int
from_json(struct rd *r, const struct json *j, struct jj_val *out, int depth)
{
	struct jj_list *l;
	struct jj_dict *d;
	char *e;
	size_t i;

	if (depth > JSON_MAXDEPTH)
		return jj_err(r, 0, "variables nested too deep");
	switch (j->type) {
	case JSON_NULL: out->type = JJ_NONE; return 0;
	case JSON_TRUE: *out = jj_bool(1); return 0;
	case JSON_FALSE: *out = jj_bool(0); return 0;
	case JSON_STRING: *out = jj_str(j->u.str, j->len); return 0;
	case JSON_NUMBER:
		/* as Python's json.loads: integers stay integers */
		if (!strpbrk(j->u.num, ".eE")) {
			errno = 0;
			out->u.i = strtoll(j->u.num, &e, 10);
			if (!errno) {
				out->type = JJ_INT;
				return 0;
			}
		}
		out->type = JJ_FLOAT;
		out->u.f = strtod(j->u.num, NULL);
		return 0;
	case JSON_ARRAY:
		if (!(l = jj_newlist(r, 0, j->len)))
			return -1;
		for (i = 0; i < j->len; i++)
			if (from_json(r, &j->u.items[i], &l->v[i], depth + 1) < 0)
				return -1;
		out->type = JJ_LIST;
		out->u.l = l;
		return 0;
	default:
		if (!(d = jj_newdict(r, 0, j->len)))
			return -1;
		for (i = 0; i < j->len; i++) {
			struct jj_val v, k = jj_str(j->u.members[i].key, j->u.members[i].keylen);
			if (from_json(r, &j->u.members[i].value, &v, depth + 1) < 0)
				return -1;
			/* a repeated key keeps its first place and its last value,
			 * as json.loads */
			if (jj_dict_put(r, 0, d, k, v) < 0)
				return -1;
		}
		out->type = JJ_DICT;
		out->u.d = d;
		return 0;
	}
}

/* ---- expressions ---- */

static int eval(struct rd *r, const struct node *n, struct jj_val *out);
static int exec(struct rd *r, const struct node *n);

static int
undefined_use(struct rd *r, int line, const struct jj_val *v)
{
	if (v->u.s.p)
		return jj_err(r, line, "'%s' is undefined", v->u.s.p);
	return jj_err(r, line, "an undefined value was used");
}

static int
getattr_(struct rd *r, int line, struct jj_val *obj, const char *name, struct jj_val *out)
{
	struct jj_val *x;
	struct jj_loop *lp;
	size_t n;

	switch (obj->type) {
	case JJ_UNDEF:
		if (obj->u.s.p)
			return jj_err(r, line, "'%s' is undefined (taking its attribute '%s')",
			    obj->u.s.p, name);
		return jj_err(r, line, "an undefined value has no attribute '%s'", name);
	case JJ_DICT:
	case JJ_NS:
		x = jj_dict_get(obj->u.d, name, strlen(name));
		*out = x ? *x : jj_undef(name);
		return 0;
	case JJ_LOOP:
		lp = obj->u.loop;
		n = lp->items->n;
		if (!strcmp(name, "index")) *out = jj_int(lp->i + 1);
		else if (!strcmp(name, "index0")) *out = jj_int(lp->i);
		else if (!strcmp(name, "revindex")) *out = jj_int(n - lp->i);
		else if (!strcmp(name, "revindex0")) *out = jj_int(n - lp->i - 1);
		else if (!strcmp(name, "first")) *out = jj_bool(lp->i == 0);
		else if (!strcmp(name, "last")) *out = jj_bool(lp->i + 1 == n);
		else if (!strcmp(name, "length")) *out = jj_int(n);
		else if (!strcmp(name, "depth")) *out = jj_int(1);
		else if (!strcmp(name, "depth0")) *out = jj_int(0);
		else if (!strcmp(name, "previtem"))
			*out = lp->i ? lp->items->v[lp->i - 1] : jj_undef("previtem");
		else if (!strcmp(name, "nextitem"))
			*out = lp->i + 1 < n ? lp->items->v[lp->i + 1] : jj_undef("nextitem");
		else
			*out = jj_undef(name);
		return 0;
	default:
		*out = jj_undef(name);
		return 0;
	}
}

/* Python's index rules: negative from the end; 0 if out of range. */
static int
index_of(long long i, size_t n, size_t *out)
{
	if (i < 0)
		i += (long long)n;
	if (i < 0 || (unsigned long long)i >= n)
		return 0;
	*out = i;
	return 1;
}

static int
getitem(struct rd *r, int line, struct jj_val *obj, struct jj_val *key, struct jj_val *out)
{
	size_t i, o;

	if (obj->type == JJ_UNDEF)
		return obj->u.s.p ? jj_err(r, line, "'%s' is undefined (taking an item of it)", obj->u.s.p) :
		    jj_err(r, line, "an undefined value has no items");
	/* a string's characters are counted from its start; a key is
	 * hashed and compared */
	if (jj_charge(r, line, 0, (obj->type == JJ_STR ? jj_size(obj) : 0) + jj_size(key)) < 0)
		return -1;
	if ((obj->type == JJ_LIST || obj->type == JJ_STR) &&
	    (key->type == JJ_INT || key->type == JJ_BOOL)) {
		if (obj->type == JJ_LIST) {
			*out = index_of(key->u.i, obj->u.l->n, &i) ? obj->u.l->v[i] : jj_undef(NULL);
			return 0;
		}
		if (!index_of(key->u.i, jj_ulen(obj->u.s.p, obj->u.s.n), &i)) {
			*out = jj_undef(NULL);
			return 0;
		}
		o = jj_uoff(obj->u.s.p, obj->u.s.n, i);
		*out = jj_str(obj->u.s.p + o, jj_uoff(obj->u.s.p + o, obj->u.s.n - o, 1));
		return 0;
	}
	if (obj->type == JJ_DICT || obj->type == JJ_NS) {
		long at = jj_dict_find(obj->u.d, key);
		if (at >= 0) {
			*out = obj->u.d->v[at];
			return 0;
		}
		*out = jj_undef(NULL);
		if (key->type == JJ_STR && !(out->u.s.p = jj_cstr(r, line, key)))
			return -1;
		out->u.s.n = key->type == JJ_STR ? key->u.s.n : 0;
		return 0;
	}
	if (key->type == JJ_STR) {
		const char *name = jj_cstr(r, line, key);
		return name ? getattr_(r, line, obj, name, out) : -1;
	}
	*out = jj_undef(NULL);
	return 0;
}

/* Python's slice.indices(n) and the selection it makes. */
static int
slice(struct rd *r, const struct node *n, struct jj_val *obj, struct jj_val *out)
{
	struct jj_val bv[3];
	long long v[3], len, start, stop, step, i, cnt;
	const struct node *parts[3] = { n->b, n->c, n->d };
	int k, has[3];
	struct jj_list *l;

	if (obj->type == JJ_UNDEF)
		return undefined_use(r, n->line, obj);
	if (obj->type != JJ_LIST && obj->type != JJ_STR)
		return jj_err(r, n->line, "cannot slice a %s", jj_typename(obj));
	if (jj_charge(r, n->line, 0, jj_size(obj)) < 0)
		return -1;
	len = obj->type == JJ_LIST ? (long long)obj->u.l->n : (long long)jj_ulen(obj->u.s.p, obj->u.s.n);
	for (k = 0; k < 3; k++) {
		has[k] = 0;
		if (!parts[k])
			continue;
		if (eval(r, parts[k], &bv[k]) < 0)
			return -1;
		if (bv[k].type == JJ_NONE)
			continue;
		if (bv[k].type != JJ_INT && bv[k].type != JJ_BOOL)
			return jj_err(r, n->line, "slice indices must be integers, not %s",
			    jj_typename(&bv[k]));
		v[k] = bv[k].u.i;
		has[k] = 1;
	}
	step = has[2] ? v[2] : 1;
	if (step == 0)
		return jj_err(r, n->line, "slice step cannot be zero");
	if (step == INT64_MIN)
		step = -INT64_MAX;
	if (!has[0]) {
		start = step < 0 ? len - 1 : 0;
	} else {
		start = v[0];
		if (start < 0 && (start += len) < 0)
			start = step < 0 ? -1 : 0;
		else if (start >= len)
			start = step < 0 ? len - 1 : len;
	}
	if (!has[1]) {
		stop = step < 0 ? -1 : len;
	} else {
		stop = v[1];
		if (stop < 0 && (stop += len) < 0)
			stop = step < 0 ? -1 : 0;
		else if (stop >= len)
			stop = step < 0 ? len - 1 : len;
	}
	if (step < 0)
		cnt = stop < start ? (start - stop - 1) / (-step) + 1 : 0;
	else
		cnt = start < stop ? (stop - start - 1) / step + 1 : 0;
	if (obj->type == JJ_LIST) {
		if (!(l = jj_newlist(r, n->line, cnt)))
			return -1;
		l->tuple = obj->u.l->tuple;
		for (i = 0; i < cnt; i++)
			l->v[i] = obj->u.l->v[start + i * step];
		out->type = JJ_LIST;
		out->u.l = l;
		return 0;
	} else {
		/* characters: copy each selected one */
		struct jj_sb b = { 0 };
		int rc = 0;
		const char *s = obj->u.s.p;
		size_t sn = obj->u.s.n, o;
		if (step == 1) {
			size_t a = jj_uoff(s, sn, start), z = jj_uoff(s, sn, start + cnt);
			*out = jj_str(s + a, cnt ? z - a : 0);
			return 0;
		}
		for (i = 0; rc == 0 && i < cnt; i++) {
			o = jj_uoff(s, sn, start + i * step);
			rc = jj_sb_add(r, n->line, &b, s + o, jj_uoff(s + o, sn - o, 1));
		}
		if (rc == 0)
			rc = jj_sb_val(r, n->line, &b, out);
		free(b.p);
		return rc;
	}
}

static int
arith_int(struct rd *r, int line, int op, long long a, long long b, struct jj_val *out)
{
	long long x, m;

	switch (op) {
	case '+': if (__builtin_add_overflow(a, b, &x)) goto ovf; break;
	case '-': if (__builtin_sub_overflow(a, b, &x)) goto ovf; break;
	case '*': if (__builtin_mul_overflow(a, b, &x)) goto ovf; break;
	case OP_FLOORDIV:
	case '%':
		if (b == 0)
			return jj_err(r, line, "integer division or modulo by zero");
		if (a == INT64_MIN && b == -1)
			goto ovf;
		x = a / b;
		m = a % b;
		if (m && ((m < 0) != (b < 0))) {	/* floor, as Python */
			x--;
			m += b;
		}
		if (op == '%')
			x = m;
		break;
	default: /* OP_POW, b >= 0: by squaring, so 1 ** 10**18 ends */
		for (x = 1; b > 0; b >>= 1) {
			if ((b & 1) && __builtin_mul_overflow(x, a, &x))
				goto ovf;
			if (b > 1 && __builtin_mul_overflow(a, a, &a))
				goto ovf;
		}
	}
	*out = jj_int(x);
	return 0;
ovf:
	return jj_err(r, line, "integer overflow");
}

/* str or list repeated k times */
static int
repeat(struct rd *r, int line, struct jj_val *s, long long k, struct jj_val *out)
{
	size_t n, i, total;
	struct jj_list *l;
	char *p;

	if (k < 0)
		k = 0;
	n = s->type == JJ_STR ? s->u.s.n : s->u.l->n;
	if (size_mul(&total, n, (size_t)k) < 0 || total > r->lim.memory)
		return jj_err(r, line, "repetition past the memory limit of %zu bytes", r->lim.memory);
	if (jj_charge(r, line, s->type == JJ_STR ? total : 0, s->type == JJ_STR ? 0 : total) < 0)
		return -1;
	if (s->type == JJ_STR) {
		if (!(p = jj_alloc(&r->a, total + 1)))
			return jj_err(r, line, "working memory past the limit of %zu bytes", r->lim.memory);
		for (i = 0; i < (size_t)k; i++)
			memcpy(p + i * n, s->u.s.p, n);
		p[total] = '\0';
		*out = jj_str(p, total);
		return 0;
	}
	if (!(l = jj_newlist(r, line, total)))
		return -1;
	for (i = 0; i < (size_t)k; i++)
		memcpy(l->v + i * n, s->u.l->v, n * sizeof(*l->v));
	l->tuple = s->u.l->tuple;
	out->type = JJ_LIST;
	out->u.l = l;
	return 0;
}

/* a's text then b's, a new string.  When a is the arena's newest
 * allocation, as a string built up in a loop ({% set ns.s = ns.s ~ x %})
 * is, b goes in place after it: such a loop then takes linear time and
 * memory, not quadratic.  Values that share a's bytes keep their length
 * and read the same. */
static int
concat(struct rd *r, int line, const struct jj_val *a, const struct jj_val *b, struct jj_val *out)
{
	size_t n;
	char *p;

	if (a->u.s.n > r->lim.output || b->u.s.n > r->lim.output - a->u.s.n)
		return jj_err(r, line, "string longer than the limit of %zu bytes", r->lim.output);
	n = a->u.s.n + b->u.s.n;
	if (jj_charge(r, line, b->u.s.n, 0) < 0)
		return -1;
	if (a->u.s.n && jj_extend(&r->a, a->u.s.p, a->u.s.n + 1, n + 1)) {
		p = (char *)a->u.s.p;
		memmove(p + a->u.s.n, b->u.s.p, b->u.s.n);
	} else {
		if (jj_charge(r, line, a->u.s.n, 0) < 0 || !(p = jj_ralloc(r, line, n + 1, 1)))
			return -1;
		memcpy(p, a->u.s.p, a->u.s.n);
		memcpy(p + a->u.s.n, b->u.s.p, b->u.s.n);
	}
	p[n] = '\0';
	*out = jj_str(p, n);
	return 0;
}

static int
contains(struct rd *r, int line, struct jj_val *x, struct jj_val *c, int *res)
{
	struct jj_args a = { 0 };

	if (c->type == JJ_UNDEF) {	/* Undefined iterates as empty */
		*res = 0;
		return 0;
	}
	a.v = c;
	a.n = 1;
	return jj_test(r, line, "in", x, &a, res);
}

static int
binary(struct rd *r, const struct node *n, struct jj_val *a, struct jj_val *b, struct jj_val *out)
{
	int op = n->op, line = n->line, res, lt;
	const char *opname;
	char buf[4];
	size_t work = 0;

	/* what an operation goes through is charged where it goes through
	 * it: ~ and + on strings what they copy (in place, a string built
	 * up in a loop is charged once), == and in what they compare */
	switch (op) {
	case '~': {
		/* b's text outside the arena, so that a may grow in place */
		struct jj_val sa, sb = *b;
		struct jj_sb tb = { 0 };
		int rc = jj_tostr(r, line, a, &sa);
		if (rc == 0 && b->type != JJ_STR) {
			rc = jj_write(r, line, &tb, b, 0);
			sb = jj_str(tb.p ? tb.p : "", tb.n);
		}
		if (rc == 0)
			rc = concat(r, line, &sa, &sb, out);
		free(tb.p);
		return rc;
	}
	case OP_EQ:
	case OP_NE:
		res = jj_eq_work(a, b, &work);
		*out = jj_bool(op == OP_EQ ? res : !res);
		return jj_charge(r, line, 0, work);
	case OP_IN: case OP_NOTIN:
		if (contains(r, line, a, b, &res) < 0)
			return -1;
		*out = jj_bool(op == OP_IN ? res : !res);
		return 0;
	case '<': case '>': case OP_LE: case OP_GE:
		if (a->type == JJ_UNDEF || b->type == JJ_UNDEF)
			return undefined_use(r, line, a->type == JJ_UNDEF ? a : b);
		if (jj_charge(r, line, 0, jj_size(a) + jj_size(b)) < 0)
			return -1;
		if ((op == '<' || op == OP_GE) ? jj_less(r, line, a, b, &lt) < 0 :
		    jj_less(r, line, b, a, &lt) < 0)
			return -1;
		*out = jj_bool(op == '<' || op == '>' ? lt : !lt);
		return 0;
	}
	if (a->type == JJ_UNDEF || b->type == JJ_UNDEF)
		return undefined_use(r, line, a->type == JJ_UNDEF ? a : b);
	if ((a->type == JJ_INT || a->type == JJ_BOOL) && (b->type == JJ_INT || b->type == JJ_BOOL) &&
	    op != '/' && !(op == OP_POW && b->u.i < 0))
		return arith_int(r, line, op, a->u.i, b->u.i, out);
	if ((a->type == JJ_INT || a->type == JJ_BOOL || a->type == JJ_FLOAT) &&
	    (b->type == JJ_INT || b->type == JJ_BOOL || b->type == JJ_FLOAT)) {
		double x = a->type == JJ_FLOAT ? a->u.f : (double)a->u.i;
		double y = b->type == JJ_FLOAT ? b->u.f : (double)b->u.i, z;
		switch (op) {
		case '+': z = x + y; break;
		case '-': z = x - y; break;
		case '*': z = x * y; break;
		case OP_POW:
			if (x == 0 && y < 0)
				return jj_err(r, line, "0.0 cannot be raised to a negative power");
			z = pow(x, y);
			break;
		default:
			if (y == 0)
				return jj_err(r, line, "float division by zero");
			z = op == '/' ? x / y : op == OP_FLOORDIV ? floor(x / y) :
			    x - floor(x / y) * y;
		}
		out->type = JJ_FLOAT;
		out->u.f = z;
		return 0;
	}
	if (op == '+' && a->type == JJ_STR && b->type == JJ_STR)
		return concat(r, line, a, b, out);
	if (op == '+' && a->type == JJ_LIST && b->type == JJ_LIST) {
		struct jj_list *l;
		if (a->u.l->tuple != b->u.l->tuple)
			return jj_err(r, line, "can only concatenate %s (not \"%s\") to %s",
			    jj_typename(a), jj_typename(b), jj_typename(a));
		if (jj_charge(r, line, 0, a->u.l->n + b->u.l->n) < 0 ||
		    !(l = jj_newlist(r, line, a->u.l->n + b->u.l->n)))
			return -1;
		l->tuple = a->u.l->tuple;
		memcpy(l->v, a->u.l->v, a->u.l->n * sizeof(*l->v));
		memcpy(l->v + a->u.l->n, b->u.l->v, b->u.l->n * sizeof(*l->v));
		out->type = JJ_LIST;
		out->u.l = l;
		return 0;
	}
	if (op == '*' && (a->type == JJ_STR || a->type == JJ_LIST) &&
	    (b->type == JJ_INT || b->type == JJ_BOOL))
		return repeat(r, line, a, b->u.i, out);
	if (op == '*' && (b->type == JJ_STR || b->type == JJ_LIST) &&
	    (a->type == JJ_INT || a->type == JJ_BOOL))
		return repeat(r, line, b, a->u.i, out);
	switch (op) {
	case OP_FLOORDIV: opname = "//"; break;
	case OP_POW: opname = "**"; break;
	default: buf[0] = op; buf[1] = 0; opname = buf;
	}
	return jj_err(r, line, "unsupported operand types for %s: '%s' and '%s'",
	    opname, jj_typename(a), jj_typename(b));
}

/* Evaluate a call's arguments, *list and **dict spread. */
static int
evalargs(struct rd *r, const struct node *n, struct jj_args *a)
{
	struct jj_val *vals;
	size_t i, k, np = 0, nk = 0;
	const struct node *x;

	memset(a, 0, sizeof(*a));
	if (!n->n)
		return 0;
	if (!(vals = jj_ralloc(r, n->line, n->n, sizeof(*vals))))
		return -1;
	for (i = 0; i < n->n; i++) {
		x = n->v[i];
		if (eval(r, x->kind == N_KWARG ? x->a : x, &vals[i]) < 0)
			return -1;
		if (x->kind != N_KWARG)
			np++;
		else if (x->s)
			nk++;
		else if (x->op == 1 && vals[i].type == JJ_LIST)
			np += vals[i].u.l->n;
		else if (x->op == 2 && vals[i].type == JJ_DICT)
			nk += vals[i].u.d->n;
		else
			return jj_err(r, x->line, "%s of a %s: expected a %s", x->op == 1 ? "*" : "**",
			    jj_typename(&vals[i]), x->op == 1 ? "list" : "mapping");
	}
	if (!(a->v = jj_ralloc(r, n->line, np, sizeof(*a->v))) ||
	    !(a->kv = jj_ralloc(r, n->line, nk, sizeof(*a->kv))) ||
	    !(a->kw = jj_ralloc(r, n->line, nk, sizeof(*a->kw))))
		return -1;
	for (i = 0; i < n->n; i++) {
		x = n->v[i];
		if (x->kind != N_KWARG) {
			a->v[a->n++] = vals[i];
		} else if (x->s) {
			a->kw[a->nkw] = x->s;
			a->kv[a->nkw++] = vals[i];
		} else if (x->op == 1) {
			memcpy(a->v + a->n, vals[i].u.l->v, vals[i].u.l->n * sizeof(*a->v));
			a->n += vals[i].u.l->n;
		} else {
			for (k = 0; k < vals[i].u.d->n; k++) {
				struct jj_val *key = &vals[i].u.d->k[k];
				char *name;
				if (key->type != JJ_STR)
					return jj_err(r, x->line, "**: keywords must be strings, not %s",
					    jj_typename(key));
				/* a NUL-terminated copy: the string may be a slice */
				if (!(name = jj_ralloc(r, x->line, key->u.s.n + 1, 1)))
					return -1;
				memcpy(name, key->u.s.p, key->u.s.n);
				name[key->u.s.n] = '\0';
				a->kw[a->nkw] = name;
				a->kv[a->nkw++] = vals[i].u.d->v[k];
			}
		}
	}
	return 0;
}

/* Loop iterations, macro calls and the work of operations (jj_charge,
 * jinja_val.c) share one budget: with it, and the limits on depth, output and memory,
 * every template ends. */
static int
count_iter(struct rd *r, int line)
{
	if (++r->iters > r->lim.iter)
		return jj_err(r, line, "more than the limit of %llu loop iterations and macro calls", r->lim.iter);
	return 0;
}


/* Call macro m; its frame's parent is the template's top level, or for
 * a call block's caller the scope of the call block.  caller: the value
 * the macro sees as caller(), or NULL. */
static int
call_macro(struct rd *r, int line, const struct node *m, struct jj_args *a,
    const struct jj_val *caller, struct jj_frame *parent, struct jj_val *out)
{
	struct jj_frame f = { 0 }, *saved = r->cur;
	struct jj_sb b = { 0 }, *savedout = r->out;
	struct jj_val v;
	size_t i, k;
	int rc = 0;

	if (a->n > m->n)
		return jj_err(r, line, "macro '%s' takes %zu arguments, %zu given", m->s, m->n, a->n);
	for (k = 0; k < a->nkw; k++) {
		for (i = 0; i < m->n; i++)
			if (!strcmp(m->v[i]->s, a->kw[k]))
				break;
		if (i == m->n)
			return jj_err(r, line, "macro '%s' has no parameter '%s'", m->s, a->kw[k]);
	}
	if (count_iter(r, line) < 0)
		return -1;
	if (++r->calls > r->lim.depth) {
		r->calls--;
		return jj_err(r, line, "macro calls nested deeper than %d", r->lim.depth);
	}
	f.parent = parent;
	r->cur = &f;
	if (caller)
		rc = setvar(r, line, &f, "caller", *caller);
	for (i = 0; rc == 0 && i < m->n; i++) {
		struct jj_val *x = i < a->n ? &a->v[i] : jj_arg(a, JJ_KW, m->v[i]->s);
		if (x)
			v = *x;
		else if (m->v[i]->kind == N_KWARG)
			rc = eval(r, m->v[i]->a, &v);
		else
			v = jj_undef(m->v[i]->s);
		if (rc == 0)
			rc = setvar(r, line, &f, m->v[i]->s, v);
	}
	r->out = &b;
	if (rc == 0 && (rc = exec(r, m->c)) > 0)
		rc = 0;
	r->out = savedout;
	r->cur = saved;
	r->calls--;
	if (rc == 0)
		rc = jj_sb_val(r, line, &b, out);
	free(b.p);
	return rc;
}

static int
call_global(struct rd *r, int line, int id, struct jj_args *a, struct jj_val *out)
{
	struct jj_val *x;
	size_t i;

	switch (id) {
	case GL_RAISE:
		x = jj_arg(a, 0, NULL);
		if (x && x->type == JJ_STR)
			return jj_err(r, line, "raise_exception: %.*s", x->u.s.n > 400 ? 400 : (int)x->u.s.n,
			    x->u.s.p);
		return jj_err(r, line, "raise_exception called");
	case GL_STRFTIME: {
		char buf[256];
		struct tm tm;
		time_t now = r->now == (time_t)-1 ? time(NULL) : r->now;
		x = jj_arg(a, 0, NULL);
		if (!x || x->type != JJ_STR)
			return jj_err(r, line, "strftime_now: expected a format string");
		if (!localtime_r(&now, &tm))
			return jj_err(r, line, "strftime_now: no local time");
		if (x->u.s.n > 64)
			return jj_err(r, line, "strftime_now: format too long");
		{
			/* a leading x tells an empty result from one too long
			 * (a trailing one would make a final lone % into %x;
			 * alone at the end, glibc and so Python keep it) */
			char fmt[72];
			size_t len;
			fmt[0] = 'x';
			memcpy(fmt + 1, x->u.s.p, x->u.s.n);
			fmt[x->u.s.n + 1] = '\0';
			if (!(len = strftime(buf, sizeof(buf), fmt, &tm)))
				return jj_err(r, line, "strftime_now: result too long");
			buf[len] = '\0';
		}
		{
			struct jj_sb b = { 0 };
			int rc = jj_sb_add(r, line, &b, buf + 1, strlen(buf + 1));
			if (rc == 0)
				rc = jj_sb_val(r, line, &b, out);
			free(b.p);
			return rc;
		}
	}
	case GL_RANGE: {
		long long v[3] = { 0, 0, 1 }, cnt, k;
		struct jj_list *l;
		if (a->n < 1 || a->n > 3 || a->nkw)
			return jj_err(r, line, "range: expected 1 to 3 integers");
		for (i = 0; i < a->n; i++)
			if (a->v[i].type != JJ_INT && a->v[i].type != JJ_BOOL)
				return jj_err(r, line, "range: expected integers, got %s",
				    jj_typename(&a->v[i]));
		if (a->n == 1) {
			v[1] = a->v[0].u.i;
		} else {
			v[0] = a->v[0].u.i;
			v[1] = a->v[1].u.i;
			if (a->n == 3)
				v[2] = a->v[2].u.i;
		}
		if (v[2] == 0)
			return jj_err(r, line, "range: step must not be zero");
		{
			/* in double: the span may overflow */
			double span = v[2] > 0 ? (double)v[1] - (double)v[0] : (double)v[0] - (double)v[1];
			double c = span > 0 ? floor((span - 1) / fabs((double)v[2])) + 1 : 0;
			if (c > (double)r->lim.iter)
				return jj_err(r, line, "range of %.0f items: more than the limit of %llu iterations",
				    c, r->lim.iter);
			cnt = (long long)c;
		}
		if (jj_charge(r, line, 0, (size_t)cnt) < 0 || !(l = jj_newlist(r, line, cnt)))
			return -1;
		for (k = 0; k < cnt; k++)
			l->v[k] = jj_int(v[0] + k * v[2]);
		out->type = JJ_LIST;
		out->u.l = l;
		return 0;
	}
	default: {		/* namespace(), dict() */
		struct jj_dict *d = jj_newdict(r, line, a->nkw + 1);
		if (!d)
			return -1;
		if (a->n > 1)
			return jj_err(r, line, "%s: at most one positional argument",
			    id == GL_DICT ? "dict" : "namespace");
		if (a->n == 1) {
			if (a->v[0].type != JJ_DICT)
				return jj_err(r, line, "%s: expected a mapping, got %s",
				    id == GL_DICT ? "dict" : "namespace", jj_typename(&a->v[0]));
			for (i = 0; i < a->v[0].u.d->n; i++)
				if (jj_dict_put(r, line, d, a->v[0].u.d->k[i], a->v[0].u.d->v[i]) < 0)
					return -1;
		}
		for (i = 0; i < a->nkw; i++)
			if (jj_dict_put(r, line, d, jj_str(a->kw[i], strlen(a->kw[i])), a->kv[i]) < 0)
				return -1;
		out->type = id == GL_DICT ? JJ_DICT : JJ_NS;
		out->u.d = d;
		return 0;
	}
	}
}

static int
call(struct rd *r, const struct node *n, struct jj_val *out)
{
	struct jj_val f, obj;
	struct jj_args a;
	int rc;

	if (n->a->kind == N_ATTR) {
		/* obj.method(...): methods before items, as Python's getattr */
		if (eval(r, n->a->a, &obj) < 0)
			return -1;
		if (obj.type == JJ_STR || obj.type == JJ_DICT) {
			if (evalargs(r, n, &a) < 0)
				return -1;
			if ((rc = jj_method(r, n->line, &obj, n->a->s, &a, out)) != 0)
				return rc < 0 ? -1 : 0;
		}
		if (getattr_(r, n->line, &obj, n->a->s, &f) < 0)
			return -1;
		if (f.type == JJ_UNDEF)
			return jj_err(r, n->line, "'%s' object has no method '%s'",
			    jj_typename(&obj), n->a->s);
	} else if (eval(r, n->a, &f) < 0) {
		return -1;
	}
	if (f.type == JJ_UNDEF)
		return f.u.s.p ? jj_err(r, n->line, "'%s' is undefined (called as a function)", f.u.s.p) :
		    jj_err(r, n->line, "an undefined value was called");
	if (f.type != JJ_MACRO && f.type != JJ_FUNC && f.type != JJ_CALLER)
		return jj_err(r, n->line, "'%s' object is not callable", jj_typename(&f));
	if (f.type == JJ_CALLER && !f.u.caller->alive)
		return jj_err(r, n->line, "caller() used after its call block ended");
	if (evalargs(r, n, &a) < 0)
		return -1;
	if (f.type == JJ_MACRO)
		return call_macro(r, n->line, f.u.m, &a, NULL, r->root, out);
	if (f.type == JJ_CALLER)
		return call_macro(r, n->line, f.u.caller->m, &a, NULL, f.u.caller->env, out);
	return call_global(r, n->line, (int)f.u.i, &a, out);
}

static int
eval(struct rd *r, const struct node *n, struct jj_val *out)
{
	struct jj_val a, b;
	struct jj_args args;
	size_t i;
	int rc = 0, res;

	if (++r->nest > MAXREC) {
		r->nest--;
		return jj_err(r, n->line, "evaluation nested deeper than %d", MAXREC);
	}
	switch (n->kind) {
	case N_LIT:
		*out = n->op == 1 ? r->body : n->lit;
		break;
	case N_NAME:
		*out = getvar(r, n->s);
		break;
	case N_ATTR:
		if ((rc = eval(r, n->a, &a)) == 0)
			rc = getattr_(r, n->line, &a, n->s, out);
		break;
	case N_ITEM:
		if ((rc = eval(r, n->a, &a)) == 0 && (rc = eval(r, n->b, &b)) == 0)
			rc = getitem(r, n->line, &a, &b, out);
		break;
	case N_SLICE:
		if ((rc = eval(r, n->a, &a)) == 0)
			rc = slice(r, n, &a, out);
		break;
	case N_CALL:
		rc = call(r, n, out);
		break;
	case N_FILTER:
		if ((rc = eval(r, n->a, &a)) == 0 && (rc = evalargs(r, n, &args)) == 0)
			rc = jj_filter(r, n->line, n->s, &a, &args, out);
		break;
	case N_TEST:
		if ((rc = eval(r, n->a, &a)) == 0 && (rc = evalargs(r, n, &args)) == 0 &&
		    (rc = jj_test(r, n->line, n->s, &a, &args, &res)) == 0)
			*out = jj_bool(n->op ? !res : res);
		break;
	case N_NOT:
		if ((rc = eval(r, n->a, &a)) == 0)
			*out = jj_bool(!jj_truthy(&a));
		break;
	case N_NEG:
	case N_POS:
		if ((rc = eval(r, n->a, &a)) < 0)
			break;
		if (a.type == JJ_FLOAT) {
			*out = a;
			if (n->kind == N_NEG)
				out->u.f = -a.u.f;
		} else if (a.type == JJ_INT || a.type == JJ_BOOL) {
			if (n->kind == N_NEG && a.u.i == INT64_MIN)
				rc = jj_err(r, n->line, "integer overflow");
			else
				*out = jj_int(n->kind == N_NEG ? -a.u.i : a.u.i);
		} else {
			rc = jj_err(r, n->line, "bad operand type for unary %c: '%s'",
			    n->kind == N_NEG ? '-' : '+', jj_typename(&a));
		}
		break;
	case N_AND:
	case N_OR:
		/* Python's: the deciding operand itself */
		if ((rc = eval(r, n->a, &a)) < 0)
			break;
		if (jj_truthy(&a) == (n->kind == N_OR))
			*out = a;
		else
			rc = eval(r, n->b, out);
		break;
	case N_BIN:
		if ((rc = eval(r, n->a, &a)) == 0 && (rc = eval(r, n->b, &b)) == 0)
			rc = binary(r, n, &a, &b, out);
		break;
	case N_CMP:
		/* Python's a < b < c: a < b and b < c, b once; the first
		 * false comparison ends it */
		if ((rc = eval(r, n->a, &a)) < 0)
			break;
		for (i = 0; i < n->n; i++) {
			if ((rc = eval(r, n->v[i]->b, &b)) < 0 ||
			    (rc = binary(r, n->v[i], &a, &b, out)) < 0 || !jj_truthy(out))
				break;
			a = b;
		}
		break;
	case N_COND:
		if ((rc = eval(r, n->b, &a)) < 0)
			break;
		if (jj_truthy(&a))
			rc = eval(r, n->a, out);
		else if (n->c)
			rc = eval(r, n->c, out);
		else
			*out = jj_undef(NULL);
		break;
	case N_LIST: {
		struct jj_list *l = jj_charge(r, n->line, 0, n->n) < 0 ? NULL :
		    jj_newlist(r, n->line, n->n);
		if (!l) {
			rc = -1;
			break;
		}
		l->tuple = n->op == 1;
		for (i = 0; rc == 0 && i < n->n; i++)
			rc = eval(r, n->v[i], &l->v[i]);
		out->type = JJ_LIST;
		out->u.l = l;
		break;
	}
	case N_DICT: {
		struct jj_dict *d = jj_charge(r, n->line, 0, n->n) < 0 ? NULL :
		    jj_newdict(r, n->line, n->n / 2);
		if (!d) {
			rc = -1;
			break;
		}
		for (i = 0; rc == 0 && i + 1 < n->n; i += 2)
			if ((rc = eval(r, n->v[i], &a)) == 0 && (rc = eval(r, n->v[i + 1], &b)) == 0)
				rc = jj_dict_put(r, n->line, d, a, b);
		out->type = JJ_DICT;
		out->u.d = d;
		break;
	}
	default:
		rc = jj_err(r, n->line, "keyword argument outside a call");
	}
	r->nest--;
	return rc;
}

/* ---- statements ---- */

static int
assign(struct rd *r, const struct node *t, struct jj_val *v)
{
	struct jj_val ns;
	size_t i;
	struct jj_list *l;

	if (t->kind == N_NAME)
		return setvar(r, t->line, r->cur, t->s, *v);
	if (t->kind == N_ATTR) {
		if (eval(r, t->a, &ns) < 0)
			return -1;
		if (ns.type != JJ_NS)
			return jj_err(r, t->line, "cannot assign an attribute of a %s (only of a namespace)",
			    jj_typename(&ns));
		return jj_dict_put(r, t->line, ns.u.d, jj_str(t->s, strlen(t->s)), *v);
	}
	/* a, b = ... */
	if (v->type == JJ_LIST) {
		l = v->u.l;
	} else if (v->type == JJ_DICT) {
		if (!(l = jj_newlist(r, t->line, v->u.d->n)))
			return -1;
		memcpy(l->v, v->u.d->k, v->u.d->n * sizeof(*l->v));
	} else {
		return jj_err(r, t->line, "cannot unpack a %s", jj_typename(v));
	}
	if (l->n != t->n)
		return jj_err(r, t->line, "%zu values to unpack into %zu names", l->n, t->n);
	for (i = 0; i < t->n; i++)
		if (setvar(r, t->line, r->cur, t->v[i]->s, l->v[i]) < 0)
			return -1;
	return 0;
}

static int
exec_for(struct rd *r, const struct node *n)
{
	struct jj_val it, v;
	struct jj_list *all, *l;
	struct jj_frame f = { 0 }, *saved = r->cur;
	struct jj_loop lp;
	size_t i, m;
	int rc = 0;

	if (eval(r, n->b, &it) < 0)
		return -1;
	switch (it.type) {
	case JJ_UNDEF:
		if (!(all = jj_newlist(r, n->line, 0)))
			return -1;
		break;
	case JJ_LIST:
		all = it.u.l;
		break;
	case JJ_DICT:
	case JJ_STR: {
		struct jj_args a = { 0 };
		if (jj_filter(r, n->line, "list", &it, &a, &v) < 0)
			return -1;
		all = v.u.l;
		break;
	}
	default:
		return jj_err(r, n->line, "'%s' object is not iterable", jj_typename(&it));
	}
	f.parent = saved;
	l = all;
	if (n->e) {
		/* for x in xs if cond: the loop sees only the items kept */
		if (!(l = jj_newlist(r, n->line, all->n)))
			return -1;
		r->cur = &f;
		for (i = m = 0; rc == 0 && i < all->n; i++) {
			jj_dict_clear(&f.d);
			if ((rc = count_iter(r, n->line)) == 0 &&
			    (rc = assign(r, n->a, &all->v[i])) == 0 &&
			    (rc = eval(r, n->e, &v)) == 0 && jj_truthy(&v))
				l->v[m++] = all->v[i];
		}
		r->cur = saved;
		if (rc < 0)
			return -1;
		l->n = m;
	}
	lp.items = l;
	for (i = 0; i < l->n; i++) {
		struct jj_val lv = { JJ_LOOP, { 0 } };
		if (count_iter(r, n->line) < 0) {
			rc = -1;
			break;
		}
		r->cur = &f;
		jj_dict_clear(&f.d);
		lp.i = i;
		lv.u.loop = &lp;
		if ((rc = setvar(r, n->line, &f, "loop", lv)) < 0 ||
		    (rc = assign(r, n->a, &l->v[i])) < 0)
			break;
		rc = exec(r, n->c);
		if (rc < 0 || rc == BRK)
			break;
	}
	r->cur = saved;
	if (rc < 0)
		return -1;
	if (l->n == 0 && n->d)
		return exec(r, n->d);
	return 0;
}

static int
exec(struct rd *r, const struct node *n)
{
	struct jj_val v;
	size_t i;
	int rc = 0;

	if (++r->nest > MAXREC) {
		r->nest--;
		return jj_err(r, n->line, "evaluation nested deeper than %d", MAXREC);
	}
	switch (n->kind) {
	case N_BLOCK:
		for (i = 0; rc == 0 && i < n->n; i++)
			rc = exec(r, n->v[i]);
		break;
	case N_TEXT:
		rc = jj_sb_add(r, n->line, r->out, n->s, n->n);
		break;
	case N_OUT:
		if ((rc = eval(r, n->a, &v)) == 0)
			rc = jj_write(r, n->line, r->out, &v, 0);
		break;
	case N_IF:
		if ((rc = eval(r, n->a, &v)) == 0) {
			if (jj_truthy(&v))
				rc = exec(r, n->b);
			else if (n->c)
				rc = exec(r, n->c);
		}
		break;
	case N_FOR:
		rc = exec_for(r, n);
		break;
	case N_SET:
		if ((rc = eval(r, n->b, &v)) == 0)
			rc = assign(r, n->a, &v);
		break;
	case N_SETBLOCK: {
		struct jj_sb b = { 0 }, *saved = r->out;
		r->out = &b;
		rc = exec(r, n->b);
		r->out = saved;
		if (rc == 0)
			rc = jj_sb_val(r, n->line, &b, &v);
		free(b.p);
		if (rc == 0)
			rc = assign(r, n->a, &v);
		break;
	}
	case N_MACRO:
		v.type = JJ_MACRO;
		v.u.m = n;
		rc = setvar(r, n->line, r->cur, n->s, v);
		break;
	case N_CALLBLOCK: {
		struct jj_caller *c = jj_ralloc(r, n->line, 1, sizeof(*c));
		struct jj_val cv = { JJ_CALLER, { 0 } }, f;
		struct jj_args a;
		if (!c) {
			rc = -1;
			break;
		}
		c->m = n->b;
		c->env = r->cur;
		c->alive = 1;
		cv.u.caller = c;
		if ((rc = eval(r, n->a->a, &f)) == 0) {
			if (f.type != JJ_MACRO)
				rc = jj_err(r, n->line, "a call block calls a macro, not a %s", jj_typename(&f));
			else if ((rc = evalargs(r, n->a, &a)) == 0 &&
			    (rc = call_macro(r, n->line, f.u.m, &a, &cv, r->root, &v)) == 0)
				rc = jj_write(r, n->line, r->out, &v, 0);
		}
		c->alive = 0;
		break;
	}
	case N_FILTERBLOCK: {
		struct jj_sb b = { 0 }, *saved = r->out;
		struct jj_val body = r->body;
		r->out = &b;
		rc = exec(r, n->b);
		r->out = saved;
		if (rc == 0)
			rc = jj_sb_val(r, n->line, &b, &r->body);
		free(b.p);
		if (rc == 0 && (rc = eval(r, n->a, &v)) == 0)
			rc = jj_write(r, n->line, r->out, &v, 0);
		r->body = body;
		break;
	}
	case N_BREAK:
		rc = BRK;
		break;
	case N_CONTINUE:
		rc = CONT;
		break;
	default:
		rc = jj_err(r, n->line, "not a statement");
	}
	r->nest--;
	return rc;
}

int
jj_render(const struct jj_tmpl *t, const struct jj_var *vars, size_t nvars,
    const struct jj_limits *lim, time_t now, char **out, size_t *outlen)
{
	struct rd r = { 0 };
	struct jj_frame root = { 0 };
	struct jj_sb b = { 0 };
	struct jj_val v;
	size_t i;
	int rc = 0;

	*out = NULL;
	*outlen = 0;
	r.t = t;
	r.lim = lim ? *lim : jj_default_limits;
	r.a.limit = r.lim.memory;
	r.now = now;
	r.out = &b;
	r.root = r.cur = &root;
	for (i = 0; rc == 0 && i < nvars; i++)
		if ((rc = from_json(&r, vars[i].val, &v, 0)) == 0)
			rc = setvar(&r, 0, &root, vars[i].name, v);
	if (rc == 0 && (rc = exec(&r, t->root)) > 0)
		rc = jj_err(&r, 0, "break or continue outside a loop");
	jj_arena_free(&r.a);
	if (rc < 0) {
		free(b.p);
		return -1;
	}
	if (!b.p && !(b.p = calloc(1, 1)))
		return error("%s: out of memory", t->name);
	*out = b.p;
	*outlen = b.n;
	return 0;
}
