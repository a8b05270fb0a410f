/* jinja_filt.c: the filters, tests and string and dict methods chat
 * templates use.
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
 * values.  Case mappings: see casemap(). */
#include <errno.h>
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

/* The characters of a strip argument: ASCII as bits, the others sorted
 * for a binary search, so that stripping takes O(n log m), not O(n m). */
struct chset {
	uint64_t ascii[2];
	uint32_t *cp;
	size_t n;
};

static int
cpcmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static int
chset_make(struct rd *r, int line, const struct jj_val *chars, struct chset *cs)
{
	const unsigned char *p = (const unsigned char *)chars->u.s.p;
	size_t i, len, n = chars->u.s.n;
	uint32_t c;

	memset(cs, 0, sizeof(*cs));
	if (!(cs->cp = jj_ralloc(r, line, n + 1, sizeof(*cs->cp))))
		return -1;
	for (i = 0; i < n; i += len) {
		len = uni_decode(p + i, n - i, &c);
		if (c < 128)
			cs->ascii[c >> 6] |= (uint64_t)1 << (c & 63);
		else
			cs->cp[cs->n++] = c;
	}
	qsort(cs->cp, cs->n, sizeof(*cs->cp), cpcmp);
	return 0;
}

/* Is the character at s (n bytes left) one of cs (NULL: Python
 * whitespace)?  Its length in *len. */
static int
stripchar(const char *s, size_t n, const struct chset *cs, size_t *len)
{
	uint32_t c;

	*len = uni_decode((const unsigned char *)s, n, &c);
	if (!cs)
		return jj_isspace(c);
	if (c < 128)
		return cs->ascii[c >> 6] >> (c & 63) & 1;
	return bsearch(&c, cs->cp, cs->n, sizeof(c), cpcmp) != NULL;
}

/* strip (how 3), lstrip (1), rstrip (2) */
static int
strip(struct rd *r, int line, const struct jj_val *v, const struct jj_val *chars,
    int how, struct jj_val *out)
{
	const char *s = v->u.s.p;
	size_t a = 0, b = v->u.s.n, len, k;
	struct chset set, *cs = NULL;

	if (chars && chars->type == JJ_NONE)
		chars = NULL;
	if (chars && jj_want_str(r, line, "strip", (struct jj_val *)chars) < 0)
		return -1;
	if (chars) {
		if (jj_charge(r, line, chars->u.s.n, 0) < 0 || chset_make(r, line, chars, &set) < 0)
			return -1;
		cs = &set;
	}
	if (how & 1)
		while (a < b && stripchar(s + a, b - a, cs, &len))
			a += len;
	if (how & 2)
		while (b > a) {
			for (k = b - 1; k > a && ((unsigned char)s[k] & 0xc0) == 0x80; k--)
				;
			if (!stripchar(s + k, b - k, cs, &len))
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

	if (jj_want_str(r, line, "replace", o) < 0 || jj_want_str(r, line, "replace", nw) < 0)
		return -1;
	if (cv && cv->type != JJ_NONE && jj_want_int(r, line, "replace", cv, &count) < 0)
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

/* The last w in s[0..n), Knuth-Morris-Pratt from the right with fail,
 * the failure function of w reversed (rfail). */
static void
rfail(const char *w, size_t wn, size_t *fail)
{
	size_t j, k;

	fail[0] = 0;
	for (j = 1, k = 0; j < wn; j++) {
		while (k && w[wn - 1 - j] != w[wn - 1 - k])
			k = fail[k - 1];
		if (w[wn - 1 - j] == w[wn - 1 - k])
			k++;
		fail[j] = k;
	}
}

static const char *
rfind(const char *s, size_t n, const char *w, size_t wn, const size_t *fail)
{
	size_t i, k = 0;

	for (i = n; i-- > 0; ) {
		while (k && s[i] != w[wn - 1 - k])
			k = fail[k - 1];
		if (s[i] == w[wn - 1 - k] && ++k == wn)
			return s + i;
	}
	return NULL;
}

/* The character that ends at s[e] (e > 0): its start. */
static size_t
charstart(const char *s, size_t e)
{
	size_t k = e - 1;

	while (k > 0 && e - k < 4 && ((unsigned char)s[k] & 0xc0) == 0x80)
		k--;
	return k;
}

/* str.split(sep=None, maxsplit=-1); rsplit when right.  Linear: the
 * separator is found by Knuth-Morris-Pratt either way. */
static int
split(struct rd *r, int line, const struct jj_val *v, struct jj_args *a, int right,
    struct jj_val *out)
{
	struct jj_val *sep = jj_arg(a, 0, "sep"), *mv = jj_arg(a, 1, "maxsplit");
	const char *s = v->u.s.p;
	size_t n = v->u.s.n, i, cnt = 0, len, start, k, *fail = NULL;
	long long max = -1;
	struct jj_list *l = NULL;
	if (sep && sep->type == JJ_NONE)
		sep = NULL;
	if (sep && jj_want_str(r, line, "split", sep) < 0)
		return -1;
	if (sep && sep->u.s.n == 0)
		return jj_err(r, line, "split: empty separator");
	if (mv && jj_want_int(r, line, "split", mv, &max) < 0)
		return -1;
	if (sep && right) {
		if (jj_charge(r, line, sep->u.s.n, 0) < 0 ||
		    !(fail = jj_ralloc(r, line, sep->u.s.n, sizeof(*fail))))
			return -1;
		rfail(sep->u.s.p, sep->u.s.n, fail);
	}
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
			size_t e = n;
			const char *q;
			while ((max < 0 || (long long)m < max) &&
			    (q = rfind(s, e, sep->u.s.p, sep->u.s.n, fail))) {
				size_t pos = (size_t)(q - s) + sep->u.s.n;
				if (k)
					l->v[cnt - 1 - m] = jj_str(s + pos, e - pos);
				m++;
				e = (size_t)(q - s);
			}
			if (k)
				l->v[cnt - 1 - m] = jj_str(s, e);
			m++;
		} else if (right) {
			/* whitespace runs from the right; after maxsplit, the
			 * rest with its leading blanks kept (Python) */
			size_t e = n, b;
			for (;;) {
				while (e > 0) {
					b = charstart(s, e);
					if (!stripchar(s + b, e - b, NULL, &len))
						break;
					e = b;
				}
				if (e == 0)
					break;
				if (max >= 0 && (long long)m >= max) {
					if (k)
						l->v[cnt - 1 - m] = jj_str(s, e);
					m++;
					break;
				}
				b = e;
				while (b > 0) {
					size_t c = charstart(s, b);
					if (stripchar(s + c, b - c, NULL, &len))
						break;
					b = c;
				}
				if (k)
					l->v[cnt - 1 - m] = jj_str(s + b, e - b);
				m++;
				e = b;
			}
		} else {
			/* whitespace runs; leading and trailing ignored */
			i = 0;
			for (;;) {
				while (i < n && stripchar(s + i, n - i, NULL, &len))
					i += len;
				if (i >= n)
					break;
				start = i;
				if (max >= 0 && (long long)m >= max) {
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
		p->tuple = 1;
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
	if (jj_want_str(r, line, end ? "endswith" : "startswith", w) < 0)
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

	/* a method reads its object, and its arguments */
	for (i = 0; i < a->n; i++)
		if (jj_charge(r, line, 0, jj_size(&a->v[i])) < 0)
			return -1;
	if (jj_charge(r, line, 0, jj_size(obj)) < 0)
		return -1;
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
			if (jj_want_str(r, line, name, x) < 0)
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
			long at;
			if (!k)
				return jj_err(r, line, "get: a key is needed");
			at = jj_dict_find(obj->u.d, k);
			*out = at >= 0 ? obj->u.d->v[at] : d ? *d : none;
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

/* obj's attribute attr for map, selectattr, join, sort and the like:
 * a dotted path ("a.b", "items.0") as Jinja2's make_attrgetter reads it,
 * a digit-only part indexing a list. */
static struct jj_val
attrof(struct jj_val *obj, const char *attr)
{
	struct jj_val v = *obj, *x;
	const char *p = attr, *e;
	size_t n, i, k;

	for (;;) {
		e = strchr(p, '.');
		n = e ? (size_t)(e - p) : strlen(p);
		for (i = 0; i < n && p[i] >= '0' && p[i] <= '9'; i++)
			;
		if (n && i == n && v.type == JJ_LIST && n < 19) {
			for (k = 0, i = 0; i < n; i++)
				k = k * 10 + (p[i] - '0');
			if (k >= v.u.l->n)
				return jj_undef(attr);
			v = v.u.l->v[k];
		} else if ((v.type == JJ_DICT || v.type == JJ_NS) && (x = jj_dict_get(v.u.d, p, n))) {
			v = *x;
		} else {
			return jj_undef(attr);
		}
		if (!e)
			return v;
		p = e + 1;
	}
}

/* The key Jinja2 sorts and compares by without case_sensitive: a string
 * in lower case. */
static int
nocase(struct rd *r, int line, struct jj_val *v, struct jj_val *cs)
{
	if (v->type != JJ_STR || (cs && jj_truthy(cs)))
		return 0;
	return recase(r, line, v, 2, v);
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
		rc = e ? jj_sb_str(r, line, &b, e) : jj_sb_add(r, line, &b, s.u.s.p + i, 1);
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
		if (jj_want_int(r, line, "indent", w, &width) < 0)
			return -1;
		for (k = 0; rc == 0 && k < width; k++)
			rc = jj_sb_str(r, line, &pb, " ");
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

/* select, reject (by a test), selectattr, rejectattr (by an attribute
 * and a test, default truth) */
static int
selectf(struct rd *r, int line, struct jj_val *v, struct jj_args *a, int attr, int neg,
    struct jj_val *out)
{
	struct jj_list *l, *o;
	struct jj_args ta = { 0 };
	struct jj_val *an = NULL, *tn, x;
	const char *aname = NULL, *tname = NULL;
	size_t i, m = 0, first = 0;
	int res;

	if (seq(r, line, "select", v, &l) < 0)
		return -1;
	if (attr) {
		an = jj_arg(a, 0, NULL);
		if (jj_want_str(r, line, "selectattr", an) < 0 || !(aname = jj_cstr(r, line, an)))
			return -1;
		first = 1;
	}
	tn = jj_arg(a, first, NULL);
	if (tn && (jj_want_str(r, line, "select", tn) < 0 || !(tname = jj_cstr(r, line, tn))))
		return -1;
	if (a->n > first + 1) {
		ta.v = a->v + first + 1;
		ta.n = a->n - first - 1;
	}
	if (!(o = jj_newlist(r, line, l->n)))
		return -1;
	for (i = 0; i < l->n; i++) {
		x = attr ? attrof(&l->v[i], aname) : l->v[i];
		if (tn) {
			if (jj_test(r, line, tname, &x, &ta, &res) < 0)
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
	struct jj_val *an = jj_arg(a, JJ_KW, "attribute"), *dv = jj_arg(a, JJ_KW, "default");
	struct jj_args fa = { 0 };
	const char *name;
	size_t i;

	if (seq(r, line, "map", v, &l) < 0 || !(o = jj_newlist(r, line, l->n)))
		return -1;
	if (an && jj_want_str(r, line, "map attribute", an) < 0)
		return -1;
	if (!an && jj_want_str(r, line, "map", jj_arg(a, 0, NULL)) < 0)
		return -1;
	if (!(name = jj_cstr(r, line, an ? an : &a->v[0])))
		return -1;
	if (!an) {
		fa.v = a->v + 1;
		fa.n = a->n - 1;
	}
	for (i = 0; i < l->n; i++) {
		if (an) {
			o->v[i] = attrof(&l->v[i], name);
			if (o->v[i].type == JJ_UNDEF && dv)
				o->v[i] = *dv;
		} else if (jj_filter(r, line, name, &l->v[i], &fa, &o->v[i]) < 0) {
			return -1;
		}
	}
	*out = listval(o);
	return 0;
}

/* s[0..n) without Python's whitespace around it (str.strip()). */
static void
pystrip(const char **s, size_t *n)
{
	size_t len, k;

	while (*n && stripchar(*s, *n, NULL, &len))
		*s += len, *n -= len;
	while (*n) {
		k = charstart(*s, *n);
		if (!stripchar(*s + k, *n - k, NULL, &len))
			break;
		*n = k;
	}
}

/* Python's int(s, base) of a string: 0 and *out; -1 where it raises
 * ValueError; -2 where its value is past 64 bits (Python's are not). */
static int
pyint(const char *s, size_t n, long long base, long long *out)
{
	unsigned long long v = 0, lim;
	int neg = 0, digits = 0, under = 0, d;
	size_t i = 0;

	if (base != 0 && (base < 2 || base > 36))
		return -1;
	pystrip(&s, &n);
	if (n && (s[0] == '+' || s[0] == '-'))
		neg = s[i++] == '-';
	if (n - i >= 2 && s[i] == '0') {
		char c = s[i + 1] | 0x20;
		int pb = c == 'x' ? 16 : c == 'o' ? 8 : c == 'b' ? 2 : 0;
		if (pb && (base == 0 || base == pb)) {
			base = pb;
			i += 2;
			under = 1;	/* 0x_1f */
		}
	}
	if (base == 0) {
		/* decimal: no leading zeros but in 0 itself (0, 00, 0_0) */
		base = 10;
		if (i < n && s[i] == '0') {
			size_t j;
			for (j = i; j < n && (s[j] == '0' || s[j] == '_'); j++)
				;
			if (j < n)
				return -1;
		}
	}
	lim = neg ? (unsigned long long)INT64_MAX + 1 : INT64_MAX;
	for (; i < n; i++) {
		char c = s[i];
		if (c == '_') {
			if (!digits && !under)
				return -1;
			if (i + 1 == n || s[i + 1] == '_')
				return -1;
			continue;
		}
		d = c >= '0' && c <= '9' ? c - '0' : (c | 0x20) >= 'a' && (c | 0x20) <= 'z' ?
		    (c | 0x20) - 'a' + 10 : 99;
		if (d >= base)
			return -1;
		if (v > (lim - (unsigned)d) / (unsigned long long)base)
			return -2;
		v = v * (unsigned long long)base + (unsigned)d;
		digits++;
	}
	if (!digits)
		return -1;
	*out = neg ? (long long)(0 - v) : (long long)v;
	return 0;
}

/* Python's float(s) of a string: 0 and *out, or -1 (ValueError).  Its
 * syntax: decimal digits with single underscores between them, a point,
 * an exponent; inf, infinity, nan in any case; a sign. */
static int
pyfloat(struct rd *r, int line, const char *s, size_t n, double *out)
{
	char *buf, *e;
	size_t i, o = 0;

	pystrip(&s, &n);
	if (!n || !(buf = jj_ralloc(r, line, n + 1, 1)))
		return -1;
	for (i = 0; i < n; i++) {
		char c = s[i];
		if (c == '_') {
			if (!i || i + 1 == n || s[i - 1] < '0' || s[i - 1] > '9' ||
			    s[i + 1] < '0' || s[i + 1] > '9')
				return -1;
			continue;
		}
		if (!((c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' ||
		    c == '+' || c == '-' || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z')))
			return -1;
		buf[o++] = c;
	}
	buf[o] = '\0';
	i = buf[0] == '+' || buf[0] == '-';
	if ((buf[i] | 0x20) >= 'a' && (buf[i] | 0x20) <= 'z') {
		/* the words: not strtod's nan(...) nor its hex */
		static const char *const w[] = { "inf", "infinity", "nan" };
		size_t k, j;
		for (k = 0; k < LEN(w); k++) {
			for (j = 0; buf[i + j] && (buf[i + j] | 0x20) == w[k][j]; j++)
				;
			if (!buf[i + j] && !w[k][j])
				break;
		}
		if (k == LEN(w))
			return -1;
	} else if (strpbrk(buf + i, "abcdfghijklmnopqrstuvwxyzABCDFGHIJKLMNOPQRSTUVWXYZ")) {
		return -1;	/* only digits, . and an exponent: not strtod's hex */
	}
	*out = strtod(buf, &e);
	return e != buf && !*e ? 0 : -1;
}

/* Jinja2's int and float filters: int(value) (a string: int(value,
 * base)), else int(float(value)); float(value); default where Python
 * raises ValueError, TypeError or OverflowError. */
static int
tonum(struct rd *r, int line, struct jj_val *v, int isfloat, struct jj_val *dflt,
    struct jj_val *basev, struct jj_val *out)
{
	long long i, base = 10;
	double f;
	int e;

	if (v->type == JJ_UNDEF)
		return v->u.s.p ? jj_err(r, line, "'%s' is undefined", v->u.s.p) :
		    jj_err(r, line, "an undefined value was used");
	if (basev && jj_want_int(r, line, "int base", basev, &base) < 0)
		return -1;
	if (isfloat) {
		if (jj_isnum(v)) {
			out->type = JJ_FLOAT;
			out->u.f = jj_numf(v);
			return 0;
		}
		if (v->type == JJ_STR && pyfloat(r, line, v->u.s.p, v->u.s.n, &f) == 0) {
			out->type = JJ_FLOAT;
			out->u.f = f;
			return 0;
		}
		if (r->failed)
			return -1;
		goto dflt;
	}
	if (v->type == JJ_INT || v->type == JJ_BOOL) {
		*out = jj_int(v->u.i);
		return 0;
	}
	if (v->type == JJ_STR) {
		if ((e = pyint(v->u.s.p, v->u.s.n, base, &i)) == 0) {
			*out = jj_int(i);
			return 0;
		}
		if (e == -2)
			return jj_err(r, line, "int: %.*s out of range", v->u.s.n > 40 ? 40 : (int)v->u.s.n,
			    v->u.s.p);
		if (pyfloat(r, line, v->u.s.p, v->u.s.n, &f) < 0) {
			if (r->failed)
				return -1;
			goto dflt;
		}
	} else if (v->type == JJ_FLOAT) {
		f = v->u.f;
	} else {
		goto dflt;
	}
	if (isnan(f) || isinf(f))
		goto dflt;
	if (!(fabs(f) < 9.2e18))
		return jj_err(r, line, "int: %g out of range", f);
	*out = jj_int((long long)f);
	return 0;
dflt:
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
	struct jj_val s;
	size_t i, j, *idx;
	int lt;

	/* a filter goes through its operand (most of them) */
	if (jj_charge(r, line, 0, jj_size(v)) < 0)
		return -1;
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
		return jj_tojson(r, line, v, a, out);
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
		if (sep && jj_want_str(r, line, "join", sep) < 0)
			return -1;
		const char *aname = NULL;
		if (at && (jj_want_str(r, line, "join attribute", at) < 0 ||
		    !(aname = jj_cstr(r, line, at))))
			return -1;
		return join(r, line, v, sep ? sep->u.s.p : "", sep ? sep->u.s.n : 0, aname, out);
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
		struct jj_val it, *cs = jj_arg(a, 0, "case_sensitive"), *by = jj_arg(a, 1, "by"),
		    *rv = jj_arg(a, 2, "reverse"), *keys;
		int byvalue = 0;
		if (v->type != JJ_DICT)
			return jj_err(r, line, "dictsort: expected a mapping, got %s", jj_typename(v));
		if (by) {
			if (jj_want_str(r, line, "dictsort by", by) < 0)
				return -1;
			if (by->u.s.n == 5 && !memcmp(by->u.s.p, "value", 5))
				byvalue = 1;
			else if (by->u.s.n != 3 || memcmp(by->u.s.p, "key", 3))
				return jj_err(r, line, "dictsort: by must be 'key' or 'value'");
		}
		if (items(r, line, v->u.d, &it) < 0 ||
		    !(idx = jj_ralloc(r, line, v->u.d->n + 1, sizeof(*idx))) ||
		    !(keys = jj_ralloc(r, line, v->u.d->n + 1, sizeof(*keys))))
			return -1;
		for (i = 0; i < v->u.d->n; i++) {
			idx[i] = i;
			keys[i] = byvalue ? v->u.d->v[i] : v->u.d->k[i];
			if (nocase(r, line, &keys[i], cs) < 0)
				return -1;
		}
		if (jj_sort(r, line, keys, idx, v->u.d->n, rv && jj_truthy(rv)) < 0 ||
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
		if (l->tuple) {
			if (!(o = jj_newlist(r, line, l->n)))
				return -1;
			memcpy(o->v, l->v, l->n * sizeof(*o->v));
			l = o;
		}
		*out = listval(l);
		return 0;
	}
	if (!strcmp(name, "reverse")) {
		if (v->type == JJ_STR) {
			char *p = jj_ralloc(r, line, v->u.s.n + 1, 1);
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
		/* sort(reverse, case_sensitive, attribute); the others
		 * (case_sensitive, attribute) */
		int issort = name[1] == 'o', rev;
		struct jj_val *rv = issort ? jj_arg(a, 0, "reverse") : NULL,
		    *cs = jj_arg(a, issort, "case_sensitive"), *at = jj_arg(a, issort + 1, "attribute"), *keys;
		rev = rv && jj_truthy(rv);
		const char *aname = NULL;
		if (at && at->type != JJ_NONE && (jj_want_str(r, line, "attribute", at) < 0 ||
		    !(aname = jj_cstr(r, line, at))))
			return -1;
		if (seq(r, line, name, v, &l) < 0 || !(idx = jj_ralloc(r, line, l->n + 1, sizeof(*idx))) ||
		    !(keys = jj_ralloc(r, line, l->n + 1, sizeof(*keys))))
			return -1;
		for (i = 0; i < l->n; i++) {
			idx[i] = i;
			keys[i] = aname ? attrof(&l->v[i], aname) : l->v[i];
			if (nocase(r, line, &keys[i], cs) < 0)
				return -1;
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
				for (k = 0; k < j && !jj_eq(&keys[idx[k]], &keys[i]); k++)
					;
				if (k == j) {
					idx[j] = i;	/* idx: the kept items' keys */
					o->v[j++] = l->v[i];
				}
			}
			o->n = j;
			*out = listval(o);
			return 0;
		}
		if (jj_sort(r, line, keys, idx, l->n, rev) < 0)
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
			o->v[i] = l->v[idx[i]];
		*out = listval(o);
		return 0;
	}
	if (!strcmp(name, "sum")) {
		struct jj_val acc = jj_int(0);
		if (seq(r, line, name, v, &l) < 0)
			return -1;
		for (i = 0; i < l->n; i++) {
			if (!jj_isnum(&l->v[i]))
				return jj_err(r, line, "sum: cannot add %s", jj_typename(&l->v[i]));
			if (acc.type == JJ_INT && l->v[i].type != JJ_FLOAT) {
				if (__builtin_add_overflow(acc.u.i, l->v[i].u.i, &acc.u.i))
					return jj_err(r, line, "sum: integer overflow");
			} else {
				acc.u.f = jj_numf(&acc) + jj_numf(&l->v[i]);
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
		return tonum(r, line, v, name[0] == 'f', jj_arg(a, 0, "default"),
		    name[0] == 'i' ? jj_arg(a, 1, "base") : NULL, out);
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
		if (!jj_isnum(v))
			return jj_err(r, line, "round: expected a number, got %s", jj_typename(v));
		if (pv && jj_want_int(r, line, "round", pv, &prec) < 0)
			return -1;
		if (prec < 0 || prec > 15)
			return jj_err(r, line, "round: precision %lld out of range", prec);
		m = pow(10, (double)prec);
		f = jj_numf(v) * m;
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
	else if (!strcmp(name, "number")) *res = jj_isnum(v);
	else if (!strcmp(name, "string")) *res = t == JJ_STR;
	else if (!strcmp(name, "mapping")) *res = t == JJ_DICT;
	else if (!strcmp(name, "iterable")) *res = t == JJ_STR || t == JJ_LIST || t == JJ_DICT;
	else if (!strcmp(name, "sequence")) *res = t == JJ_STR || t == JJ_LIST || t == JJ_DICT;
	else if (!strcmp(name, "callable")) *res = t == JJ_MACRO || t == JJ_FUNC || t == JJ_CALLER;
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
		if (name[0] == 'd' && jj_want_int(r, line, name, x, &d) < 0)
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
		size_t i, work = 0;
		if (!x)
			return jj_err(r, line, "in: an argument is needed");
		/* linear in what it searches, and charged so */
		if (x->type == JJ_STR) {
			if (t != JJ_STR)
				return jj_err(r, line, "in: 'in <string>' requires a string, not %s", jj_typename(v));
			if (jj_charge(r, line, x->u.s.n + v->u.s.n, 0) < 0)
				return -1;
			*res = find(x->u.s.p, x->u.s.n, v->u.s.p, v->u.s.n) != NULL;
		} else if (x->type == JJ_LIST) {
			for (i = 0, *res = 0; i < x->u.l->n && !*res; i++)
				*res = jj_eq_work(v, &x->u.l->v[i], &work);
			if (jj_charge(r, line, 0, work) < 0)
				return -1;
		} else if (x->type == JJ_DICT) {
			*res = jj_dict_find(x->u.d, v) >= 0;
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
