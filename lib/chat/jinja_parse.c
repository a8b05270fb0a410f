/* jinja_parse.c: Jinja tokens (jinja_lex.c) to an AST (jinja_int.h).
 *
 * jj_parse normalizes newlines as Jinja2 reads a template (\r\n and \r
 * become \n, a single trailing one is dropped), lexes, then parses with
 * jinja2/parser.py's precedence: conditional, or, and, not, comparisons
 * and in, + -, ~, * / // %, **, unary - +, then postfix (. [] ()) and
 * filters and tests. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chat/jinja.h"
#include "chat/jinja_int.h"
#include "base/util.h"

#define MAXNEST 200		/* parser recursion: nested tags and expressions */

/* ---- parser ---- */

static struct tk *
cur(struct ps *p)
{
	return &p->tk[p->pos];
}

static int
isop(struct ps *p, int op)
{
	return cur(p)->type == T_OP && cur(p)->op == op;
}

static int
isname(struct ps *p, const char *w)
{
	return cur(p)->type == T_NAME && jj_word(cur(p)->s, cur(p)->n, w);
}

static int
isname_at(struct ps *p, size_t i, const char *w)
{
	return i < p->ntk && p->tk[i].type == T_NAME && jj_word(p->tk[i].s, p->tk[i].n, w);
}

static const char *
tkdesc(struct tk *k)
{
	switch (k->type) {
	case T_EOF: return "end of template";
	case T_TEXT: return "text";
	case T_BBLOCK: return "'{%'";
	case T_EBLOCK: return "'%}'";
	case T_BVAR: return "'{{'";
	case T_EVAR: return "'}}'";
	case T_NAME: return "a name";
	case T_STR: return "a string";
	case T_INT: case T_FLOAT: return "a number";
	default: return "an operator";
	}
}

static int
expect_op(struct ps *p, int op)
{
	if (!isop(p, op)) {
		if (cur(p)->type == T_OP && cur(p)->op < 256)
			return jj_perr(p, cur(p)->line, "expected '%c', got '%c'", op, cur(p)->op);
		return jj_perr(p, cur(p)->line, "expected '%c', got %s", op, tkdesc(cur(p)));
	}
	p->pos++;
	return 0;
}

static int
expect_end(struct ps *p)
{
	if (cur(p)->type != T_EBLOCK)
		return jj_perr(p, cur(p)->line, "expected '%%}', got %s", tkdesc(cur(p)));
	p->pos++;
	return 0;
}

static struct node *
mk(struct ps *p, int kind, int line)
{
	struct node *n = jj_alloc(&p->t->arena, sizeof(*n));

	if (!n) {
		jj_perr(p, line, "out of memory");
		return NULL;
	}
	memset(n, 0, sizeof(*n));
	n->kind = kind;
	n->line = line;
	return n;
}

/* Append c to n->v (grown in the arena by doubling). */
static int
addkid(struct ps *p, struct node *n, struct node *c)
{
	if ((n->n & (n->n - 1)) == 0) {	/* 0, 1, 2, 4, ...: full */
		size_t cap = n->n ? n->n * 2 : 1;
		struct node **v = jj_alloc(&p->t->arena, cap * sizeof(*v));
		if (!v)
			return jj_perr(p, c->line, "out of memory");
		if (n->n)
			memcpy(v, n->v, n->n * sizeof(*v));
		n->v = v;
	}
	n->v[n->n++] = c;
	return 0;
}

/* A NUL-terminated copy of a name token, in the arena. */
static const char *
namestr(struct ps *p, struct tk *k)
{
	char *s = jj_alloc(&p->t->arena, k->n + 1);

	if (!s) {
		jj_perr(p, k->line, "out of memory");
		return NULL;
	}
	memcpy(s, k->s, k->n);
	s[k->n] = '\0';
	return s;
}

static struct node *expr(struct ps *p);
static struct node *unary(struct ps *p, int filters);
static struct node *tuple(struct ps *p, int simple);

static int
enter(struct ps *p)
{
	if (++p->depth > MAXNEST)
		return jj_perr(p, cur(p)->line, "nested deeper than %d", MAXNEST);
	return 0;
}

/* Call arguments after '(' up to ')': positional, then name=value. */
static int
args(struct ps *p, struct node *n)
{
	struct node *a, *kw;

	if (expect_op(p, '(') < 0)
		return -1;
	while (!isop(p, ')')) {
		if (n->n && expect_op(p, ',') < 0)
			return -1;
		if (isop(p, ')'))
			break;
		if (cur(p)->type == T_NAME && p->tk[p->pos + 1].type == T_OP &&
		    p->tk[p->pos + 1].op == '=') {
			if (!(kw = mk(p, N_KWARG, cur(p)->line)) || !(kw->s = namestr(p, cur(p))))
				return -1;
			p->pos += 2;
			if (!(kw->a = expr(p)))
				return -1;
			a = kw;
		} else if (isop(p, '*') || isop(p, OP_POW)) {
			/* f(*list, **dict) */
			if (!(kw = mk(p, N_KWARG, cur(p)->line)))
				return -1;
			kw->op = isop(p, '*') ? 1 : 2;
			p->pos++;
			if (!(kw->a = expr(p)))
				return -1;
			a = kw;
		} else {
			if (!(a = expr(p)))
				return -1;
			if (n->n && n->v[n->n - 1]->kind == N_KWARG && n->v[n->n - 1]->s)
				return jj_perr(p, a->line, "positional argument after a keyword argument");
		}
		if (addkid(p, n, a) < 0)
			return -1;
	}
	p->pos++;
	return 0;
}

static struct node *
literal(struct ps *p, int type)
{
	struct node *n = mk(p, N_LIT, cur(p)->line);

	if (!n)
		return NULL;
	n->lit.type = type;
	return n;
}

static struct node *
primary(struct ps *p)
{
	struct tk *k = cur(p);
	struct node *n;
	char *s;

	switch (k->type) {
	case T_NAME:
		if (jj_word(k->s, k->n, "true") || jj_word(k->s, k->n, "True") ||
		    jj_word(k->s, k->n, "false") || jj_word(k->s, k->n, "False")) {
			if (!(n = literal(p, JJ_BOOL)))
				return NULL;
			n->lit.u.i = k->s[0] == 't' || k->s[0] == 'T';
		} else if (jj_word(k->s, k->n, "none") || jj_word(k->s, k->n, "None")) {
			n = literal(p, JJ_NONE);
		} else {
			if (!(n = mk(p, N_NAME, k->line)) || !(n->s = namestr(p, k)))
				return NULL;
			n->n = k->n;
		}
		p->pos++;
		return n;
	case T_STR:
		if (!(n = literal(p, JJ_STR)))
			return NULL;
		n->lit.u.s.p = k->s;
		n->lit.u.s.n = k->n;
		/* adjacent strings are one, as in Python: one copy of them
		 * all, so that many take linear time */
		{
			size_t i, len = 0, o = 0;
			for (i = p->pos; p->tk[i].type == T_STR; i++)
				len += p->tk[i].n;	/* within the source's length */
			if (i == p->pos + 1) {
				p->pos++;
				return n;
			}
			if (!(s = jj_alloc(&p->t->arena, len + 1))) {
				jj_perr(p, k->line, "out of memory");
				return NULL;
			}
			for (; p->pos < i; p->pos++) {
				memcpy(s + o, cur(p)->s, cur(p)->n);
				o += cur(p)->n;
			}
			s[o] = '\0';
			n->lit.u.s.p = s;
			n->lit.u.s.n = len;
		}
		return n;
	case T_INT:
		if ((n = literal(p, JJ_INT)))
			n->lit.u.i = k->i;
		p->pos++;
		return n;
	case T_FLOAT:
		if ((n = literal(p, JJ_FLOAT)))
			n->lit.u.f = k->f;
		p->pos++;
		return n;
	case T_OP:
		if (k->op == '(') {
			p->pos++;
			if (isop(p, ')')) {	/* the empty tuple */
				p->pos++;
				if ((n = mk(p, N_LIST, k->line)))
					n->op = 1;
				return n;
			}
			if (!(n = tuple(p, 0)) || expect_op(p, ')') < 0)
				return NULL;
			return n;
		}
		if (k->op == '[') {
			if (!(n = mk(p, N_LIST, k->line)))
				return NULL;
			for (p->pos++; !isop(p, ']'); ) {
				struct node *e;
				if (n->n && expect_op(p, ',') < 0)
					return NULL;
				if (isop(p, ']'))
					break;
				if (!(e = expr(p)) || addkid(p, n, e) < 0)
					return NULL;
			}
			p->pos++;
			return n;
		}
		if (k->op == '{') {
			if (!(n = mk(p, N_DICT, k->line)))
				return NULL;
			for (p->pos++; !isop(p, '}'); ) {
				struct node *key, *val;
				if (n->n && expect_op(p, ',') < 0)
					return NULL;
				if (isop(p, '}'))
					break;
				if (!(key = expr(p)) || expect_op(p, ':') < 0 ||
				    !(val = expr(p)) || addkid(p, n, key) < 0 ||
				    addkid(p, n, val) < 0)
					return NULL;
			}
			p->pos++;
			return n;
		}
		if (k->op < 256)
			jj_perr(p, k->line, "unexpected '%c'", k->op);
		else
			jj_perr(p, k->line, "unexpected operator");
		return NULL;
	default:
		jj_perr(p, k->line, "expected an expression, got %s", tkdesc(k));
		return NULL;
	}
}

/* The subscript after '[': an index or a slice a:b:c. */
static struct node *
subscript(struct ps *p, struct node *obj)
{
	struct node *n, *x = NULL;
	int line = cur(p)->line;

	p->pos++;
	if (!isop(p, ':')) {
		if (!(x = expr(p)))
			return NULL;
		if (!isop(p, ':')) {
			if (!(n = mk(p, N_ITEM, line)))
				return NULL;
			n->a = obj;
			n->b = x;
			return expect_op(p, ']') < 0 ? NULL : n;
		}
	}
	if (!(n = mk(p, N_SLICE, line)))
		return NULL;
	n->a = obj;
	n->b = x;
	p->pos++;		/* the first ':' */
	if (!isop(p, ':') && !isop(p, ']') && !(n->c = expr(p)))
		return NULL;
	if (isop(p, ':')) {
		p->pos++;
		if (!isop(p, ']') && !(n->d = expr(p)))
			return NULL;
	}
	return expect_op(p, ']') < 0 ? NULL : n;
}

static struct node *
postfix(struct ps *p, struct node *n)
{
	struct node *m;

	for (;;) {
		if (isop(p, '.')) {
			p->pos++;
			if (!(m = mk(p, N_ATTR, cur(p)->line)))
				return NULL;
			if (cur(p)->type == T_NAME) {
				if (!(m->s = namestr(p, cur(p))))
					return NULL;
			} else if (cur(p)->type == T_INT) {
				/* x.0 is x[0] in Jinja */
				m->kind = N_ITEM;
				if (!(m->b = literal(p, JJ_INT)))
					return NULL;
				m->b->lit.u.i = cur(p)->i;
			} else {
				jj_perr(p, cur(p)->line, "expected a name after '.'");
				return NULL;
			}
			p->pos++;
			m->a = n;
			n = m;
		} else if (isop(p, '[')) {
			if (!(n = subscript(p, n)))
				return NULL;
		} else if (isop(p, '(')) {
			if (!(m = mk(p, N_CALL, cur(p)->line)) || args(p, m) < 0)
				return NULL;
			m->a = n;
			n = m;
		} else {
			return n;
		}
	}
}

/* Filters (|name, |name(args)) and tests (is [not] name [arg]). */
static struct node *
filters(struct ps *p, struct node *n)
{
	struct node *m;
	struct tk *k;

	for (;;) {
		if (isop(p, '|')) {
			p->pos++;
			if (cur(p)->type != T_NAME) {
				jj_perr(p, cur(p)->line, "expected a filter name after '|'");
				return NULL;
			}
			if (!(m = mk(p, N_FILTER, cur(p)->line)) || !(m->s = namestr(p, cur(p))))
				return NULL;
			/* dotted filter names do not occur in chat templates */
			p->pos++;
			if (isop(p, '(') && args(p, m) < 0)
				return NULL;
			m->a = n;
			n = m;
		} else if (isname(p, "is")) {
			p->pos++;
			if (!(m = mk(p, N_TEST, cur(p)->line)))
				return NULL;
			if (isname(p, "not")) {
				m->op = 1;
				p->pos++;
			}
			if (cur(p)->type != T_NAME) {
				jj_perr(p, cur(p)->line, "expected a test name after 'is'");
				return NULL;
			}
			if (!(m->s = namestr(p, cur(p))))
				return NULL;
			p->pos++;
			m->a = n;
			k = cur(p);
			if (isop(p, '(')) {
				if (args(p, m) < 0)
					return NULL;
			} else if ((k->type == T_NAME || k->type == T_STR || k->type == T_INT ||
			    k->type == T_FLOAT || (k->type == T_OP && (k->op == '[' || k->op == '{'))) &&
			    !isname(p, "else") && !isname(p, "or") && !isname(p, "and") &&
			    !isname(p, "is") && !isname(p, "if") && !isname(p, "in") &&
			    !isname(p, "not")) {
				struct node *a = primary(p);
				if (!a || !(a = postfix(p, a)) || addkid(p, m, a) < 0)
					return NULL;
			}
			n = m;
		} else if (isop(p, '(')) {
			if (!(m = mk(p, N_CALL, cur(p)->line)) || args(p, m) < 0)
				return NULL;
			m->a = n;
			n = m;
		} else {
			return n;
		}
	}
}

static struct node *
unop(struct ps *p, int kind, struct node *a, int line)
{
	struct node *n;

	if (!a || !(n = mk(p, kind, line)))
		return NULL;
	n->a = a;
	return n;
}

static struct node *
binop(struct ps *p, int kind, int op, struct node *a, struct node *b, int line)
{
	struct node *n;

	if (!a || !b || !(n = mk(p, kind, line)))
		return NULL;
	n->op = op;
	n->a = a;
	n->b = b;
	return n;
}

static struct node *
unary(struct ps *p, int withfilters)
{
	struct node *n;
	int line = cur(p)->line;

	if (enter(p) < 0)
		return NULL;
	if (isop(p, '-')) {
		p->pos++;
		n = unop(p, N_NEG, unary(p, 0), line);
	} else if (isop(p, '+')) {
		p->pos++;
		n = unop(p, N_POS, unary(p, 0), line);
	} else {
		n = primary(p);
	}
	if (n)
		n = postfix(p, n);
	if (n && withfilters)
		n = filters(p, n);
	p->depth--;
	return n;
}

static struct node *
power(struct ps *p)
{
	struct node *n = unary(p, 1);
	int line;

	while (n && isop(p, OP_POW)) {
		line = cur(p)->line;
		p->pos++;
		n = binop(p, N_BIN, OP_POW, n, unary(p, 1), line);
	}
	return n;
}

static struct node *
math2(struct ps *p)
{
	struct node *n = power(p);
	int op, line;

	while (n && (isop(p, '*') || isop(p, '/') || isop(p, '%') || isop(p, OP_FLOORDIV))) {
		op = cur(p)->op;
		line = cur(p)->line;
		p->pos++;
		n = binop(p, N_BIN, op, n, power(p), line);
	}
	return n;
}

static struct node *
concat(struct ps *p)
{
	struct node *n = math2(p);
	int line;

	while (n && isop(p, '~')) {
		line = cur(p)->line;
		p->pos++;
		n = binop(p, N_BIN, '~', n, math2(p), line);
	}
	return n;
}

static struct node *
math1(struct ps *p)
{
	struct node *n = concat(p);
	int op, line;

	while (n && (isop(p, '+') || isop(p, '-'))) {
		op = cur(p)->op;
		line = cur(p)->line;
		p->pos++;
		n = binop(p, N_BIN, op, n, concat(p), line);
	}
	return n;
}

/* Comparisons chain as in Python: a < b < c is a < b and b < c, b
 * evaluated once (an N_CMP). */
static struct node *
compare(struct ps *p)
{
	struct node *n = math1(p), *chain = NULL, *c;
	int op, line;

	while (n) {
		line = cur(p)->line;
		if (isop(p, OP_EQ) || isop(p, OP_NE) || isop(p, OP_LE) || isop(p, OP_GE) ||
		    isop(p, '<') || isop(p, '>')) {
			op = cur(p)->op;
			p->pos++;
		} else if (isname(p, "in")) {
			op = OP_IN;
			p->pos++;
		} else if (isname(p, "not") && isname_at(p, p->pos + 1, "in")) {
			op = OP_NOTIN;
			p->pos += 2;
		} else {
			return chain ? chain : n;
		}
		if (!chain) {
			if (!(chain = mk(p, N_CMP, line)))
				return NULL;
			chain->a = n;
		}
		if (!(c = mk(p, N_BIN, line)) || !(c->b = math1(p)) ||
		    addkid(p, chain, c) < 0)
			return NULL;
		c->op = op;
	}
	return NULL;
}

static struct node *
not_(struct ps *p)
{
	int line = cur(p)->line;
	struct node *n;

	if (isname(p, "not")) {
		p->pos++;
		if (enter(p) < 0)
			return NULL;
		n = unop(p, N_NOT, not_(p), line);
		p->depth--;
		return n;
	}
	return compare(p);
}

static struct node *
and_(struct ps *p)
{
	struct node *n = not_(p);
	int line;

	while (n && isname(p, "and")) {
		line = cur(p)->line;
		p->pos++;
		n = binop(p, N_AND, 0, n, not_(p), line);
	}
	return n;
}

static struct node *
or_(struct ps *p)
{
	struct node *n = and_(p);
	int line;

	while (n && isname(p, "or")) {
		line = cur(p)->line;
		p->pos++;
		n = binop(p, N_OR, 0, n, and_(p), line);
	}
	return n;
}

static struct node *
expr(struct ps *p)
{
	struct node *n, *c;

	if (enter(p) < 0)
		return NULL;
	n = or_(p);
	while (n && isname(p, "if")) {
		if (!(c = mk(p, N_COND, cur(p)->line)))
			return NULL;
		p->pos++;
		c->a = n;
		if (!(c->b = or_(p)))
			return NULL;
		if (isname(p, "else")) {
			p->pos++;
			if (!(c->c = expr(p)))
				return NULL;
		}
		n = c;
	}
	p->depth--;
	return n;
}

/* An expression, or a tuple of them (a, b); simple: names only (for
 * and set targets). */
static struct node *
tuple(struct ps *p, int simple)
{
	struct node *e, *t = NULL;
	int line = cur(p)->line;

	for (;;) {
		if (simple) {
			if (cur(p)->type != T_NAME) {
				jj_perr(p, cur(p)->line, "expected a name, got %s", tkdesc(cur(p)));
				return NULL;
			}
			if (!(e = primary(p)))
				return NULL;
			if (e->kind != N_NAME) {
				jj_perr(p, e->line, "cannot assign to a literal");
				return NULL;
			}
		} else if (!(e = expr(p))) {
			return NULL;
		}
		if (!t && !isop(p, ','))
			return e;
		if (!t && !(t = mk(p, N_LIST, line)))
			return NULL;
		t->op = 1;	/* a tuple */
		if (addkid(p, t, e) < 0)
			return NULL;
		if (!isop(p, ','))
			return t;
		p->pos++;
		/* a trailing comma: (a,) */
		if (isop(p, ')') || cur(p)->type == T_EVAR || cur(p)->type == T_EBLOCK ||
		    isname(p, "in") || isop(p, '='))
			return t;
	}
}

/* ---- statements ---- */

static struct node *block(struct ps *p, const char *const *ends, const char **endp, int open);

static const char *const end_if[] = { "elif", "else", "endif", NULL };
static const char *const end_for[] = { "else", "endfor", NULL };
static const char *const end_endfor[] = { "endfor", NULL };
static const char *const end_set[] = { "endset", NULL };
static const char *const end_macro[] = { "endmacro", NULL };
static const char *const end_gen[] = { "endgeneration", NULL };
static const char *const end_call[] = { "endcall", NULL };
static const char *const end_filter[] = { "endfilter", NULL };

static struct node *
stmt_if(struct ps *p, int line)
{
	struct node *n, *top, *last = NULL;
	const char *end;

	for (top = NULL;;) {
		if (!(n = mk(p, N_IF, line)) || !(n->a = tuple(p, 0)) || expect_end(p) < 0)
			return NULL;
		if (!(n->b = block(p, end_if, &end, line)))
			return NULL;
		if (last)
			last->c = n;
		else
			top = n;
		last = n;
		if (!strcmp(end, "elif")) {
			line = cur(p)->line;
			continue;
		}
		if (!strcmp(end, "else")) {
			if (expect_end(p) < 0 || !(n->c = block(p, end_if + 2, &end, line)))
				return NULL;
		}
		return expect_end(p) < 0 ? NULL : top;
	}
}

static struct node *
stmt_for(struct ps *p, int line)
{
	struct node *n;
	const char *end;

	if (!(n = mk(p, N_FOR, line)) || !(n->a = tuple(p, 1)))
		return NULL;
	if (!isname(p, "in")) {
		jj_perr(p, cur(p)->line, "expected 'in' in a for tag");
		return NULL;
	}
	p->pos++;
	/* the iterable stops before a filter condition: or_(), not expr() */
	if (!(n->b = or_(p)))
		return NULL;
	if (isop(p, ',')) {
		jj_perr(p, cur(p)->line, "a tuple as a for iterable: use [a, b]");
		return NULL;
	}
	if (isname(p, "if")) {
		p->pos++;
		if (!(n->e = expr(p)))
			return NULL;
	}
	if (isname(p, "recursive")) {
		jj_perr(p, cur(p)->line, "recursive for loops are not supported");
		return NULL;
	}
	if (expect_end(p) < 0 || !(n->c = block(p, end_for, &end, line)))
		return NULL;
	if (!strcmp(end, "else") &&
	    (expect_end(p) < 0 || !(n->d = block(p, end_endfor, &end, line))))
		return NULL;
	return expect_end(p) < 0 ? NULL : n;
}

static struct node *
stmt_set(struct ps *p, int line)
{
	struct node *n, *t;
	const char *end;

	if (!(n = mk(p, N_SET, line)))
		return NULL;
	if (cur(p)->type == T_NAME && p->tk[p->pos + 1].type == T_OP &&
	    p->tk[p->pos + 1].op == '.') {
		/* ns.attr = value */
		if (!(t = mk(p, N_ATTR, line)) || !(t->a = primary(p)))
			return NULL;
		p->pos++;
		if (cur(p)->type != T_NAME) {
			jj_perr(p, cur(p)->line, "expected an attribute name after '.'");
			return NULL;
		}
		if (!(t->s = namestr(p, cur(p))))
			return NULL;
		p->pos++;
	} else if (isop(p, '(')) {
		/* (a, b) = ... */
		p->pos++;
		if (!(t = tuple(p, 1)) || expect_op(p, ')') < 0)
			return NULL;
	} else if (!(t = tuple(p, 1))) {
		return NULL;
	}
	n->a = t;
	if (cur(p)->type == T_EBLOCK) {
		if (t->kind != N_NAME) {
			jj_perr(p, line, "a set block assigns to a single name");
			return NULL;
		}
		n->kind = N_SETBLOCK;
		p->pos++;
		if (!(n->b = block(p, end_set, &end, line)))
			return NULL;
		return expect_end(p) < 0 ? NULL : n;
	}
	if (expect_op(p, '=') < 0 || !(n->b = tuple(p, 0)))
		return NULL;
	return expect_end(p) < 0 ? NULL : n;
}

/* A macro's parameters, (a, b=default, ...), into n->v. */
static int
params(struct ps *p, struct node *n)
{
	struct node *a;

	if (expect_op(p, '(') < 0)
		return -1;
	while (!isop(p, ')')) {
		if (n->n && expect_op(p, ',') < 0)
			return -1;
		if (cur(p)->type != T_NAME) {
			jj_perr(p, cur(p)->line, "expected a parameter name");
			return -1;
		}
		if (!(a = primary(p)) || a->kind != N_NAME) {
			if (a)
				jj_perr(p, a->line, "expected a parameter name");
			return -1;
		}
		if (isop(p, '=')) {
			struct node *kw = mk(p, N_KWARG, a->line);
			p->pos++;
			if (!kw || !(kw->a = expr(p)))
				return -1;
			kw->s = a->s;
			a = kw;
		} else if (n->n && n->v[n->n - 1]->kind == N_KWARG) {
			jj_perr(p, a->line, "a parameter without a default after one with");
			return -1;
		}
		if (addkid(p, n, a) < 0)
			return -1;
	}
	p->pos++;
	return 0;
}

static struct node *
stmt_macro(struct ps *p, int line)
{
	struct node *n;
	const char *end;

	if (!(n = mk(p, N_MACRO, line)))
		return NULL;
	if (cur(p)->type != T_NAME) {
		jj_perr(p, cur(p)->line, "expected a macro name");
		return NULL;
	}
	if (!(n->s = namestr(p, cur(p))))
		return NULL;
	p->pos++;
	if (params(p, n) < 0)
		return NULL;
	if (expect_end(p) < 0 || !(n->c = block(p, end_macro, &end, line)))
		return NULL;
	return expect_end(p) < 0 ? NULL : n;
}

/* {% call [(params)] macro(args) %}body{% endcall %}: the macro sees the
 * body as caller(). */
static struct node *
stmt_call(struct ps *p, int line)
{
	struct node *n, *m;
	const char *end;

	if (!(n = mk(p, N_CALLBLOCK, line)) || !(m = mk(p, N_MACRO, line)))
		return NULL;
	m->s = "caller";
	if (isop(p, '(') && params(p, m) < 0)
		return NULL;
	if (!(n->a = expr(p)))
		return NULL;
	if (n->a->kind != N_CALL) {
		jj_perr(p, line, "expected a macro call after 'call'");
		return NULL;
	}
	if (expect_end(p) < 0 || !(m->c = block(p, end_call, &end, line)))
		return NULL;
	n->b = m;
	return expect_end(p) < 0 ? NULL : n;
}

/* {% filter name(args)|... %}body{% endfilter %} */
static struct node *
stmt_filter(struct ps *p, int line)
{
	struct node *n, *body, *f;
	const char *end;

	if (!(n = mk(p, N_FILTERBLOCK, line)) || !(body = literal(p, JJ_UNDEF)))
		return NULL;
	body->op = 1;
	if (cur(p)->type != T_NAME) {
		jj_perr(p, cur(p)->line, "expected a filter name");
		return NULL;
	}
	if (!(f = mk(p, N_FILTER, line)) || !(f->s = namestr(p, cur(p))))
		return NULL;
	p->pos++;
	if (isop(p, '(') && args(p, f) < 0)
		return NULL;
	f->a = body;
	if (!(n->a = filters(p, f)))
		return NULL;
	if (expect_end(p) < 0 || !(n->b = block(p, end_filter, &end, line)))
		return NULL;
	return expect_end(p) < 0 ? NULL : n;
}

/* One {% %} statement after its opening, or NULL with *endp set if it is
 * one of ends (the tag's name is consumed, its '%}' is not). */
static struct node *
statement(struct ps *p, const char *const *ends, const char **endp, int *isend)
{
	struct tk *k = cur(p);
	int line = k->line, i;
	struct node *n;
	const char *end;

	*isend = 0;
	if (k->type != T_NAME) {
		jj_perr(p, line, "expected a tag name, got %s", tkdesc(k));
		return NULL;
	}
	for (i = 0; ends && ends[i]; i++)
		if (jj_word(k->s, k->n, ends[i])) {
			p->pos++;
			*endp = ends[i];
			*isend = 1;
			return NULL;
		}
	p->pos++;
	if (jj_word(k->s, k->n, "if"))
		return stmt_if(p, line);
	if (jj_word(k->s, k->n, "for"))
		return stmt_for(p, line);
	if (jj_word(k->s, k->n, "set"))
		return stmt_set(p, line);
	if (jj_word(k->s, k->n, "macro"))
		return stmt_macro(p, line);
	if (jj_word(k->s, k->n, "call"))
		return stmt_call(p, line);
	if (jj_word(k->s, k->n, "filter"))
		return stmt_filter(p, line);
	if (jj_word(k->s, k->n, "break") || jj_word(k->s, k->n, "continue")) {
		if (!(n = mk(p, k->s[0] == 'b' ? N_BREAK : N_CONTINUE, line)))
			return NULL;
		return expect_end(p) < 0 ? NULL : n;
	}
	if (jj_word(k->s, k->n, "generation")) {
		/* transformers' AssistantTracker only marks the span */
		if (expect_end(p) < 0 || !(n = block(p, end_gen, &end, line)))
			return NULL;
		return expect_end(p) < 0 ? NULL : n;
	}
	if (jj_word(k->s, k->n, "elif") || jj_word(k->s, k->n, "else") ||
	    !strncmp(k->s, "end", 3))
		jj_perr(p, line, "unexpected '%.*s'", (int)k->n, k->s);
	else
		jj_perr(p, line, "unknown tag '%.*s'", (int)k->n, k->s);
	return NULL;
}

/* Statements up to one of ends (NULL: the end of the template); *endp
 * says which ended it. */
static struct node *
block(struct ps *p, const char *const *ends, const char **endp, int open)
{
	struct node *b, *n;
	struct tk *k;
	int isend, line = cur(p)->line;
	size_t i;

	if (enter(p) < 0 || !(b = mk(p, N_BLOCK, line)))
		return NULL;
	for (;;) {
		k = cur(p);
		switch (k->type) {
		case T_EOF:
			if (ends) {
				for (i = 0; ends[i + 1]; i++)
					;
				jj_perr(p, open, "'%s' missing for this tag", ends[i]);
				return NULL;
			}
			p->depth--;
			return b;
		case T_TEXT:
			if (!(n = mk(p, N_TEXT, k->line)))
				return NULL;
			n->s = k->s;
			n->n = k->n;
			p->pos++;
			break;
		case T_BVAR:
			p->pos++;
			if (!(n = mk(p, N_OUT, k->line)) || !(n->a = tuple(p, 0)))
				return NULL;
			if (cur(p)->type != T_EVAR) {
				jj_perr(p, cur(p)->line, "expected '}}', got %s", tkdesc(cur(p)));
				return NULL;
			}
			p->pos++;
			break;
		case T_BBLOCK:
			p->pos++;
			n = statement(p, ends, endp, &isend);
			if (isend) {
				p->depth--;
				return b;
			}
			if (!n)
				return NULL;
			break;
		default:
			jj_perr(p, k->line, "unexpected %s", tkdesc(k));
			return NULL;
		}
		if (addkid(p, b, n) < 0)
			return NULL;
	}
}

/* Well-formed UTF-8, as Python needs to read the template at all. */
static int
utf8_ok(const unsigned char *s, size_t n, size_t *bad)
{
	size_t i = 0, k, len;
	uint32_t c;

	while (i < n) {
		if (s[i] < 0x80) {
			i++;
			continue;
		}
		len = s[i] >= 0xf0 ? 4 : s[i] >= 0xe0 ? 3 : s[i] >= 0xc2 ? 2 : 0;
		if (!len || s[i] > 0xf4 || n - i < len)
			break;
		c = s[i] & (0x7f >> len);
		for (k = 1; k < len; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				break;
			c = c << 6 | (s[i + k] & 0x3f);
		}
		if (k < len || (len == 3 && c < 0x800) || (len == 4 && c < 0x10000) ||
		    c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
			break;
		i += len;
	}
	*bad = i;
	return i == n;
}

int
jj_parse(struct jj_tmpl **tp, const char *src, size_t n, const char *name)
{
	struct jj_tmpl *t;
	struct ps p = { 0 };
	const char *end;
	size_t i, o, bad;

	*tp = NULL;
	if (!utf8_ok((const unsigned char *)src, n, &bad))
		return error("%s, line %d: invalid UTF-8", name, jj_lines(src, src + bad) + 1);
	if (!(t = calloc(1, sizeof(*t))) || !(t->name = strdup(name)) ||
	    !(t->src = malloc(n + 1))) {
		jj_free(t);
		return error("%s: out of memory", name);
	}
	/* newlines as Jinja2 reads them: \r\n and \r become \n, and one
	 * trailing newline goes (keep_trailing_newline is off) */
	for (i = o = 0; i < n; i++) {
		if (src[i] == '\r') {
			t->src[o++] = '\n';
			if (i + 1 < n && src[i + 1] == '\n')
				i++;
		} else {
			t->src[o++] = src[i];
		}
	}
	if (o && t->src[o - 1] == '\n')
		o--;
	t->src[o] = '\0';
	p.t = t;
	p.src = t->src;
	p.end = t->src + o;
	if (jj_lex(&p) == 0)
		t->root = block(&p, NULL, &end, 1);
	free(p.tk);
	if (!t->root) {
		if (!p.failed)
			error("%s: parse failed", name);
		jj_free(t);
		return -1;
	}
	*tp = t;
	return 0;
}

void
jj_free(struct jj_tmpl *t)
{
	if (!t)
		return;
	jj_arena_free(&t->arena);
	free(t->name);
	free(t->src);
	free(t);
}
