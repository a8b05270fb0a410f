/* regex.c: Oniguruma-compatible patterns run by a Pike VM (regex.h).
 *
 * The pattern is parsed into a tree (struct node), whose size in
 * instructions is checked before it is compiled into a program (struct
 * inst).  A search keeps one list of threads per input position, each a
 * (pc, match start) in the priority order backtracking would try them;
 * a pc is taken by the first thread to reach it at a position, which is
 * the one backtracking would have tried first, so the first thread to
 * reach MATCH is Oniguruma's match and the threads after it are dropped.
 * See Russ Cox, "Regular Expression Matching: the Virtual Machine
 * Approach" (swtch.com/~rsc/regexp/regexp2.html). */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tok/regex.h"
#include "base/unicode.h"

/* ---- classes ---- */

enum { CS_WS = 1, CS_WORD = 2, CS_ALPHA = 4, CS_ANY = 8 };
#define LATIN1WORD(c) ((c) == 0xb2 || (c) == 0xb3 || (c) == 0xb9 || ((c) >= 0xbc && (c) <= 0xbe))

/* A bracket's items (a union), intersected with the sets in the and
 * chain, then negated if neg. */
struct cset {
	uint32_t gc;		/* bit per UNI_GC_* */
	unsigned flags;		/* CS_* */
	int neg;
	int icase;		/* (?i) bracket: a character or any of its case */
	int script;		/* a uni_script value, or -1 */
	int and;		/* next set of a && chain, or -1 */
	uint32_t *r;		/* ranges: lo, hi pairs */
	size_t nr, rcap;
	int *sub;		/* nested sets, in the union */
	size_t nsub, subcap;
	uint64_t ascii[2];	/* membership below 0x80, whole set */
};

/* ---- tree ---- */

enum { N_EMPTY, N_CHAR, N_ANY, N_CLASS, N_CAT, N_ALT, N_REP, N_LOOK, N_ASSERT };
enum { A_BOL, A_EOL, A_BOS, A_EOS, A_EOSNL, A_WORDB, A_NWORDB, A_START };

struct node {
	int type;
	int kid, next;		/* first child; next sibling (CAT, ALT) */
	uint32_t c;		/* N_CHAR: the character (folded if fold) */
	int min, max;		/* N_REP; max -1: no bound */
	int arg;		/* N_CLASS: set; N_ASSERT: A_*; N_LOOK: negated */
	unsigned char greedy, fold, dotall;
	unsigned char bag;	/* the whole of a capture or option group */
};

/* ---- program ---- */

enum { I_CHAR, I_CHARI, I_ANY, I_ANYNL, I_CLASS, I_MATCH, I_SPLIT, I_JMP,
	I_ENTER, I_REP, I_ASSERT, I_LOOK };

struct inst {
	unsigned char op, arg;	/* I_REP: greedy; I_ASSERT: A_*; I_LOOK: negated */
	/* I_ENTER and I_REP bracket the body of a loop that can match
	 * empty (see addthread) */
	int x, y;		/* targets; I_CLASS: set; I_LOOK: lookahead */
	uint32_t c;
};

/* A thread list at one position: the states (pc in [base, base + len),
 * m < re->nm) visited there, a sparse set (mark, idx), and the threads
 * that read a character or match (pc, start), in priority order. */
struct list {
	int *pc;
	size_t *start;
	size_t n;
	int *mark;
	int *idx;		/* state -> its place in mark[] */
	size_t nmark;
};

struct look {
	int pc, end;		/* its sub-program is [pc, end) */
	struct list l[2];
	int *stack;
	size_t mpos;		/* memo: the result at mpos */
	int mres;
	/* the results at every character boundary of the text (re->tb),
	 * when have: see looktable */
	unsigned char *res;
	int have;
	int *pstart, *pred;	/* the epsilon edges reversed: the
				 * predecessors of pc + i are pred[pstart[i]
				 * .. pstart[i + 1]) */
};

struct re {
	struct inst *prog;
	size_t nprog;
	struct cset *cs;
	size_t ncs;
	struct look *look;
	size_t nlook;
	size_t mainend;		/* the main program is [0, mainend) */
	int nm;			/* 1 + loops that can match empty nested */
	struct list l[2];
	int *stack;
	/* closures kept at compile time: clos[pc] is the offset in cpool of
	 * pc's closure (its threads, ended by -1), or -1 if it reads the
	 * position (an assertion or a lookahead on the way) or was not kept */
	int *clos;
	int *cpool;
	unsigned long long steps;
	/* the text the lookahead tables are for: its character boundaries
	 * from tb[0] (where its first search began) to tb[ntb - 1] = tn */
	const unsigned char *ts;
	size_t tn, *tb, ntb;
	/* parsing only */
	struct node *nd;
	size_t nnd, ndcap;
};

/* ---- parser ---- */

enum { F_I = 1, F_M = 2, F_X = 4 };

struct ps {
	struct re *re;
	const unsigned char *p;
	size_t n, i;
	char *err;
	size_t errsz;
	int depth;
	int bad;
};

static int
perr(struct ps *P, size_t at, const char *fmt, ...)
{
	va_list ap;
	size_t k;

	if (P->bad)
		return -1;
	P->bad = 1;
	if (!P->errsz)
		return -1;
	va_start(ap, fmt);
	vsnprintf(P->err, P->errsz, fmt, ap);
	va_end(ap);
	k = strlen(P->err);
	if (at != (size_t)-1)
		snprintf(P->err + k, P->errsz - k, " at offset %zu", at);
	return -1;
}

static int
newnode(struct ps *P, int type)
{
	struct re *re = P->re;
	struct node *v;

	if (re->nnd == re->ndcap) {
		size_t cap = re->ndcap ? re->ndcap * 2 : 64;
		if (cap > RE_MAXINST * 4)
			return perr(P, P->i, "pattern too large");
		if (!(v = realloc(re->nd, cap * sizeof *v)))
			return perr(P, (size_t)-1, "out of memory");
		re->nd = v;
		re->ndcap = cap;
	}
	v = &re->nd[re->nnd];
	memset(v, 0, sizeof *v);
	v->type = type;
	v->kid = v->next = -1;
	return (int)re->nnd++;
}

static int
newcs(struct ps *P)
{
	struct re *re = P->re;
	struct cset *v;

	if (re->ncs >= RE_MAXINST)
		return perr(P, P->i, "pattern too large");
	if (!(v = realloc(re->cs, (re->ncs + 1) * sizeof *v)))
		return perr(P, (size_t)-1, "out of memory");
	re->cs = v;
	v = &re->cs[re->ncs];
	memset(v, 0, sizeof *v);
	v->and = -1;
	v->script = -1;
	return (int)re->ncs++;
}

static int
addrange(struct ps *P, int k, uint32_t lo, uint32_t hi)
{
	struct cset *s = &P->re->cs[k];
	uint32_t *v;

	if (s->nr + 2 > s->rcap) {
		size_t cap = s->rcap ? s->rcap * 2 : 8;
		if (!(v = realloc(s->r, cap * sizeof *v)))
			return perr(P, (size_t)-1, "out of memory");
		s->r = v;
		s->rcap = cap;
	}
	s->r[s->nr++] = lo;
	s->r[s->nr++] = hi;
	return 0;
}

static int
addsub(struct ps *P, int k, int sub)
{
	struct cset *s = &P->re->cs[k];
	int *v;

	if (s->nsub == s->subcap) {
		size_t cap = s->subcap ? s->subcap * 2 : 4;
		if (!(v = realloc(s->sub, cap * sizeof *v)))
			return perr(P, (size_t)-1, "out of memory");
		s->sub = v;
		s->subcap = cap;
	}
	s->sub[s->nsub++] = sub;
	return 0;
}

static int
inranges(const struct cset *s, uint32_t c)
{
	size_t i;

	for (i = 0; i < s->nr; i += 2)
		if (c >= s->r[i] && c <= s->r[i + 1])
			return 1;
	return 0;
}

static int member(const struct re *re, int k, uint32_t c);

/* set k without its negation and case folding */
static int
body(const struct re *re, int k, uint32_t c)
{
	const struct cset *s = &re->cs[k];
	unsigned g = uni_gcw(c);
	size_t i;
	int in = 0;

	if (s->gc >> (g & UNI_GC_MASK) & 1)
		in = 1;
	else if ((s->flags & CS_WORD) && (g & UNI_GC_WORD))
		in = 1;
	else if ((s->flags & CS_WS) && (uni_class(c) & UNI_WS))
		in = 1;
	else if ((s->flags & CS_ALPHA) && (uni_class(c) & UNI_ALPHA))
		in = 1;
	else if (s->flags & CS_ANY)
		in = 1;
	else if (s->script >= 0 && uni_script(c) == (unsigned)s->script)
		in = 1;
	else if (inranges(s, c))
		in = 1;
	for (i = 0; !in && i < s->nsub; i++)
		in = member(re, s->sub[i], c);
	for (k = s->and; in && k >= 0; k = re->cs[k].and)
		in = member(re, k, c);
	return in;
}

/* Oniguruma folds a whole bracket under (?i), properties included, and
 * negates it after: c is in when c or a character of its case is. */
static int
slow(const struct re *re, int k, uint32_t c)
{
	const struct cset *s = &re->cs[k];
	int in = body(re, k, c);
	size_t i, j, m;
	uint32_t f;

	if (!in && s->icase && !UNI_ISBAD(c)) {
		f = uni_fold1(c);
		in = f != c && body(re, k, f);
		j = uni_unfold1(f, &m);
		for (i = 0; !in && i < m; i++)
			if (uni_unfold[j + i][1] != c)
				in = body(re, k, uni_unfold[j + i][1]);
	}
	return in ^ s->neg;
}

static int
member(const struct re *re, int k, uint32_t c)
{
	if (c < 0x80)
		return re->cs[k].ascii[c >> 6] >> (c & 63) & 1;
	return slow(re, k, c);
}

/* Fill set k's ASCII bitmap from those of its inner sets (member()
 * reads them), which were made after it and so are done first. */
static void
setascii(struct re *re, int k)
{
	struct cset *s = &re->cs[k];
	uint32_t c;

	s->ascii[0] = s->ascii[1] = 0;
	for (c = 0; c < 0x80; c++)
		if (slow(re, k, c))
			s->ascii[c >> 6] |= 1ull << (c & 63);
}

/* Does c have another case (another character folding like it)? */
static int
hascase(uint32_t c)
{
	size_t n;

	uni_unfold1(c, &n);
	return uni_fold1(c) != c || n > 0;
}

static int
isdig(int c)
{
	return c >= '0' && c <= '9';
}

static int
isname(int c)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    isdig(c) || c >= 0x80;
}

static int
peek(struct ps *P)
{
	return P->i < P->n ? P->p[P->i] : -1;
}

/* A literal character of the pattern (UTF-8) */
static int
patchar(struct ps *P, uint32_t *c)
{
	size_t len = uni_decode(P->p + P->i, P->n - P->i, c);

	if (UNI_ISBAD(*c))
		return perr(P, P->i, "invalid UTF-8 in pattern");
	P->i += len;
	return 0;
}

static int
hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* up to max digits of base (8 or 16) from P->i; at least one */
static int
digits(struct ps *P, int base, int max, uint32_t *v)
{
	int k, d;

	*v = 0;
	for (k = 0; k < max && P->i < P->n; k++, P->i++) {
		d = hexval(P->p[P->i]);
		if (d < 0 || d >= base)
			break;
		*v = *v * base + d;
	}
	return k;
}

/* \xHH and \ooo stand for bytes (Oniguruma: "encoded byte value"):
 * from the byte v on, bytes above 0x7f in a row must form one UTF-8
 * character */
static int
bytes(struct ps *P, size_t at, uint32_t v, uint32_t *c)
{
	unsigned char b[4];
	size_t nb = 0, len;

	for (;;) {
		if (v < 0x80 && !nb) {
			*c = v;
			return 0;
		}
		b[nb++] = v;
		len = uni_decode(b, nb, c);
		if (!UNI_ISBAD(*c) && len == nb)
			return 0;
		if (nb == 4 || v < 0x80 || P->i + 1 >= P->n || P->p[P->i] != '\\')
			return perr(P, at, "invalid code point value");
		P->i++;
		if (P->p[P->i] == 'x') {
			P->i++;
			if (!digits(P, 16, 2, &v))
				return perr(P, at, "invalid code point value");
		} else if (digits(P, 8, 3, &v) != 3 || v > 0xff)
			return perr(P, at, "invalid code point value");
	}
}

/* a general category or property name: 0, with the set filled */
static const struct { const char *name; uint32_t gc; unsigned flags; } props[] = {
#define G(x) (1u << UNI_GC_##x)
	{ "l", G(Lu) | G(Ll) | G(Lt) | G(Lm) | G(Lo), 0 }, { "letter", G(Lu) | G(Ll) | G(Lt) | G(Lm) | G(Lo), 0 },
	{ "lc", G(Lu) | G(Ll) | G(Lt), 0 }, { "casedletter", G(Lu) | G(Ll) | G(Lt), 0 },
	{ "lu", G(Lu), 0 }, { "uppercaseletter", G(Lu), 0 },
	{ "ll", G(Ll), 0 }, { "lowercaseletter", G(Ll), 0 },
	{ "lt", G(Lt), 0 }, { "titlecaseletter", G(Lt), 0 },
	{ "lm", G(Lm), 0 }, { "modifierletter", G(Lm), 0 },
	{ "lo", G(Lo), 0 }, { "otherletter", G(Lo), 0 },
	{ "m", G(Mn) | G(Mc) | G(Me), 0 }, { "mark", G(Mn) | G(Mc) | G(Me), 0 },
	{ "combiningmark", G(Mn) | G(Mc) | G(Me), 0 },
	{ "mn", G(Mn), 0 }, { "nonspacingmark", G(Mn), 0 },
	{ "mc", G(Mc), 0 }, { "spacingmark", G(Mc), 0 },
	{ "me", G(Me), 0 }, { "enclosingmark", G(Me), 0 },
	{ "n", G(Nd) | G(Nl) | G(No), 0 }, { "number", G(Nd) | G(Nl) | G(No), 0 },
	{ "nd", G(Nd), 0 }, { "decimalnumber", G(Nd), 0 },
	{ "nl", G(Nl), 0 }, { "letternumber", G(Nl), 0 },
	{ "no", G(No), 0 }, { "othernumber", G(No), 0 },
	{ "p", G(Pc) | G(Pd) | G(Ps) | G(Pe) | G(Pi) | G(Pf) | G(Po), 0 },
	{ "punctuation", G(Pc) | G(Pd) | G(Ps) | G(Pe) | G(Pi) | G(Pf) | G(Po), 0 },
	{ "pc", G(Pc), 0 }, { "connectorpunctuation", G(Pc), 0 },
	{ "pd", G(Pd), 0 }, { "dashpunctuation", G(Pd), 0 },
	{ "ps", G(Ps), 0 }, { "openpunctuation", G(Ps), 0 },
	{ "pe", G(Pe), 0 }, { "closepunctuation", G(Pe), 0 },
	{ "pi", G(Pi), 0 }, { "initialpunctuation", G(Pi), 0 },
	{ "pf", G(Pf), 0 }, { "finalpunctuation", G(Pf), 0 },
	{ "po", G(Po), 0 }, { "otherpunctuation", G(Po), 0 },
	{ "s", G(Sm) | G(Sc) | G(Sk) | G(So), 0 }, { "symbol", G(Sm) | G(Sc) | G(Sk) | G(So), 0 },
	{ "sm", G(Sm), 0 }, { "mathsymbol", G(Sm), 0 },
	{ "sc", G(Sc), 0 }, { "currencysymbol", G(Sc), 0 },
	{ "sk", G(Sk), 0 }, { "modifiersymbol", G(Sk), 0 },
	{ "so", G(So), 0 }, { "othersymbol", G(So), 0 },
	{ "z", G(Zs) | G(Zl) | G(Zp), 0 }, { "separator", G(Zs) | G(Zl) | G(Zp), 0 },
	{ "zs", G(Zs), 0 }, { "spaceseparator", G(Zs), 0 },
	{ "zl", G(Zl), 0 }, { "lineseparator", G(Zl), 0 },
	{ "zp", G(Zp), 0 }, { "paragraphseparator", G(Zp), 0 },
	{ "c", G(Cc) | G(Cf) | G(Cs) | G(Co) | G(Cn), 0 },
	{ "other", G(Cc) | G(Cf) | G(Cs) | G(Co) | G(Cn), 0 },
	{ "cc", G(Cc), 0 }, { "control", G(Cc), 0 },
	{ "cf", G(Cf), 0 }, { "format", G(Cf), 0 },
	{ "cs", G(Cs), 0 }, { "surrogate", G(Cs), 0 },
	{ "co", G(Co), 0 }, { "privateuse", G(Co), 0 },
	{ "cn", G(Cn), 0 }, { "unassigned", G(Cn), 0 },
	{ "any", 0, CS_ANY },
	{ "assigned", ~(G(Cn) | 1u << UNI_GC_NONE), 0 },
	{ "alphabetic", 0, CS_ALPHA }, { "alpha", 0, CS_ALPHA },
	{ "whitespace", 0, CS_WS }, { "space", 0, CS_WS },
	{ "word", 0, CS_WORD },
#undef G
};

/* a UCD name against a folded one (lower case, no ' ', '_', '-') */
static int
samename(const char *ucd, const char *folded)
{
	for (; *ucd; ucd++) {
		int c = *ucd;
		if (c == '_' || c == ' ' || c == '-')
			continue;
		if ((c >= 'A' && c <= 'Z' ? c + 32 : c) != *folded++)
			return 0;
	}
	return !*folded;
}

/* \p{..} after the p or P: a new set */
static int
property(struct ps *P, int negp, size_t at)
{
	char name[32];
	size_t k = 0, i;
	int neg = negp, s;

	if (peek(P) != '{')
		return perr(P, at, "invalid character property name");
	P->i++;
	if (peek(P) == '^')
		neg = !neg, P->i++;
	while (P->i < P->n && P->p[P->i] != '}') {
		int c = P->p[P->i++];
		if (c == ' ' || c == '_' || c == '-')
			continue;
		if (k + 1 >= sizeof name)
			return perr(P, at, "invalid character property name");
		name[k++] = c >= 'A' && c <= 'Z' ? c + 32 : c;
	}
	if (P->i >= P->n)
		return perr(P, at, "invalid character property name");
	P->i++;
	name[k] = 0;
	for (i = 0; i < sizeof props / sizeof props[0]; i++)
		if (!strcmp(props[i].name, name))
			break;
	if (i < sizeof props / sizeof props[0]) {
		if ((s = newcs(P)) < 0)
			return -1;
		P->re->cs[s].gc = props[i].gc;
		P->re->cs[s].flags = props[i].flags;
		P->re->cs[s].neg = neg;
		return s;
	}
	for (i = 0; i < uni_nscript; i++)
		if (samename(uni_scname[i][0], name) || samename(uni_scname[i][1], name))
			break;
	if (i == uni_nscript)
		return perr(P, at, "invalid character property name {%.*s}",
		    (int)(P->i - 1 - (at + 3)), (const char *)P->p + at + 3);
	if ((s = newcs(P)) < 0)
		return -1;
	P->re->cs[s].script = (int)i;
	P->re->cs[s].neg = neg;
	return s;
}

/* A set for \w \W \d \D \s \S \h \H, or -2 if c is none of them */
static int
typeset(struct ps *P, int c, int inclass)
{
	int s, lc = c | 32;

	if (lc != 'w' && lc != 'd' && lc != 's' && lc != 'h')
		return -2;
	if ((s = newcs(P)) < 0)
		return -1;
	if (lc == 'w') {
		P->re->cs[s].flags = CS_WORD;
		/* see isword() */
		if (!inclass && (addrange(P, s, 0xb2, 0xb3) < 0 || addrange(P, s, 0xb9, 0xb9) < 0 ||
		    addrange(P, s, 0xbc, 0xbe) < 0))
			return -1;
	}
	else if (lc == 'd')
		P->re->cs[s].gc = 1u << UNI_GC_Nd;
	else if (lc == 's')
		P->re->cs[s].flags = CS_WS;
	else if (addrange(P, s, '0', '9') < 0 || addrange(P, s, 'a', 'f') < 0 ||
	    addrange(P, s, 'A', 'F') < 0)
		return -1;
	P->re->cs[s].neg = c != lc;
	return s;
}

/* An escape that stands for one character, after the backslash: 1 and
 * *c, 0 if it is not one (nothing consumed), -1 on error. */
static int
charesc(struct ps *P, size_t at, int inclass, uint32_t *c)
{
	int e = P->p[P->i];
	uint32_t v;

	switch (e) {
	case 't': *c = '\t'; break;
	case 'n': *c = '\n'; break;
	case 'r': *c = '\r'; break;
	case 'f': *c = '\f'; break;
	case 'v': *c = '\v'; break;
	case 'a': *c = 7; break;
	case 'e': *c = 27; break;
	case 'b':
		if (!inclass)
			return 0;
		*c = 8;
		break;
	case '0':
		P->i++;
		digits(P, 8, 2, c);
		return 1;
	case 'x':
		P->i++;
		if (peek(P) == '{') {
			P->i++;
			if (!digits(P, 16, 8, &v) || peek(P) != '}')
				return perr(P, at, "invalid \\x{...} escape");
			P->i++;
			if (v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
				return perr(P, at, "invalid code point value");
			*c = v;
			return 1;
		}
		if (!digits(P, 16, 2, &v))
			return perr(P, at, "invalid \\x escape");
		return bytes(P, at, v, c) < 0 ? -1 : 1;
	case 'o':
		P->i++;
		if (peek(P) != '{')
			return perr(P, at, "invalid \\o{...} escape");
		P->i++;
		if (!digits(P, 8, 11, &v) || peek(P) != '}' || v > 0x10ffff ||
		    (v >= 0xd800 && v <= 0xdfff))
			return perr(P, at, "invalid \\o{...} escape");
		P->i++;
		*c = v;
		return 1;
	case 'u':
		P->i++;
		if (digits(P, 16, 4, &v) != 4)
			return perr(P, at, "invalid \\u escape");
		if (v >= 0xd800 && v <= 0xdfff)
			return perr(P, at, "invalid code point value");
		*c = v;
		return 1;
	case 'c':
		P->i++;
		if (P->i >= P->n || P->p[P->i] >= 0x80)
			return perr(P, at, "invalid \\c escape");
		*c = P->p[P->i++] & 0x1f;
		return 1;
	default:
		if (e >= '1' && e <= '9') {
			/* Oniguruma: \1..\9 (and any group number) are
			 * backreferences; a larger number in octal digits is
			 * a character */
			size_t j = P->i;
			while (j < P->n && isdig(P->p[j]))
				j++;
			if (j - P->i < 2 || e > '7' || P->p[P->i + 1] > '7')
				return perr(P, at, "backreferences are not supported");
			digits(P, 8, 3, &v);
			return v > 0xff || bytes(P, at, v, c) < 0 ? perr(P, at, "invalid code point value") : 1;
		}
		if (e && strchr("kgKRXyYNOCM", e) && !inclass)
			return perr(P, at, "unsupported escape \\%c", e);
		if (e && (e == 'p' || e == 'P' || strchr("wWdDsShH", e) ||
		    (!inclass && strchr("AzZbBG", e))))
			return 0;
		if (patchar(P, c) < 0)
			return -1;
		return 1;
	}
	P->i++;
	return 1;
}

static int classbody(struct ps *P, int flags, size_t at);

/* One class item at P->i: 1 and *c for a character, 2 and *set for a set */
static int
classitem(struct ps *P, int flags, uint32_t *c, int *set)
{
	size_t at = P->i;
	int r, e;

	if (P->p[P->i] == '[') {
		if (P->i + 1 < P->n && P->p[P->i + 1] == ':')
			return perr(P, at, "POSIX bracket expressions are not supported");
		P->i++;
		if ((*set = classbody(P, flags, at)) < 0)
			return -1;
		return 2;
	}
	if (P->p[P->i] != '\\') {
		if (patchar(P, c) < 0)
			return -1;
		return 1;
	}
	P->i++;
	if (P->i >= P->n)
		return perr(P, at, "end pattern at escape");
	e = P->p[P->i];
	if (e == 'p' || e == 'P') {
		P->i++;
		return (*set = property(P, e == 'P', at)) < 0 ? -1 : 2;
	}
	if ((r = typeset(P, e, 1)) != -2) {
		P->i++;
		return (*set = r) < 0 ? -1 : 2;
	}
	if ((r = charesc(P, at, 1, c)) < 0)
		return -1;
	return 1;
}

/* After the '[': the set of the bracket up to its ']' */
static int
classbody(struct ps *P, int flags, size_t at)
{
	int top, cur, set, r, first = 1;
	uint32_t c, hi;

	if (++P->depth > RE_MAXDEPTH)
		return perr(P, at, "classes nested too deeply");
	if ((top = cur = newcs(P)) < 0)
		return -1;
	if (peek(P) == '^')
		P->re->cs[top].neg = 1, P->i++;
	for (;;) {
		if (P->i >= P->n)
			return perr(P, at, "premature end of char-class");
		if (P->p[P->i] == ']' && !first)
			break;
		if (P->p[P->i] == '&' && P->i + 1 < P->n && P->p[P->i + 1] == '&') {
			int nx;
			if ((nx = newcs(P)) < 0)
				return -1;
			P->re->cs[cur].and = nx;
			cur = nx;
			P->i += 2;
			continue;
		}
		first = 0;
		if ((r = classitem(P, flags, &c, &set)) < 0)
			return -1;
		if (r == 2) {
			if (peek(P) == '-' && P->i + 1 < P->n && P->p[P->i + 1] != ']')
				return perr(P, P->i, "unmatched range specifier in char-class");
			if (addsub(P, cur, set) < 0)
				return -1;
			continue;
		}
		hi = c;
		if (peek(P) == '-' && P->i + 1 < P->n && P->p[P->i + 1] != ']') {
			size_t rat = P->i;
			P->i++;
			if (P->p[P->i] == '[')
				return perr(P, rat, "unmatched range specifier in char-class");
			if ((r = classitem(P, flags, &hi, &set)) < 0)
				return -1;
			if (r == 2)
				return perr(P, rat, "char-class value at end of range");
			if (hi < c)
				return perr(P, rat, "empty range in char class");
		}
		if (addrange(P, cur, c, hi) < 0)
			return -1;
	}
	P->i++;
	P->depth--;
	return top;
}

static int alt(struct ps *P, int flags);

/* skip white space and # comments in extended mode */
static void
skipx(struct ps *P, int flags)
{
	if (!(flags & F_X))
		return;
	while (P->i < P->n) {
		int c = P->p[P->i];
		if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v')
			P->i++;
		else if (c == '#')
			while (P->i < P->n && P->p[P->i] != '\n')
				P->i++;
		else
			break;
	}
}

static int
charnode(struct ps *P, int flags, uint32_t c)
{
	int k = newnode(P, N_CHAR);

	if (k < 0)
		return -1;
	P->re->nd[k].c = c;
	if (flags & F_I && hascase(c)) {
		P->re->nd[k].fold = 1;
		P->re->nd[k].c = uni_fold1(c);
	}
	return k;
}

static int
setnode(struct ps *P, int set)
{
	int k = newnode(P, N_CLASS);

	if (k < 0)
		return -1;
	P->re->nd[k].arg = set;
	return k;
}

static int
assertnode(struct ps *P, int a)
{
	int k = newnode(P, N_ASSERT);

	if (k < 0)
		return -1;
	P->re->nd[k].arg = a;
	return k;
}

/* (?imx-imx) or (?imx-imx: after the "(?": new flags, and 1 for ':' or 0
 * for ')', or -2 if this is not an option group */
static int
options(struct ps *P, int *flags)
{
	size_t i = P->i;
	int f = *flags, on = 1, bit;

	for (; i < P->n; i++) {
		switch (P->p[i]) {
		case 'i': bit = F_I; break;
		case 'm': bit = F_M; break;
		case 'x': bit = F_X; break;
		case '-':
			if (!on)
				return -2;
			on = 0;
			continue;
		case ':':
		case ')':
			if (i == P->i)
				return -2;
			*flags = f;
			P->i = i + 1;
			return P->p[i] == ':';
		default:
			return -2;
		}
		f = on ? f | bit : f & ~bit;
	}
	return -2;
}

/* A group after its '(': the node, P->i past the ')' */
static int
group(struct ps *P, int flags, size_t at)
{
	int k, sub, r, bag = 1;

	if (peek(P) == '?') {
		P->i++;
		switch (peek(P)) {
		case ':':
			P->i++;
			bag = 0;
			break;
		case '=':
		case '!':
			r = P->p[P->i++] == '!';
			if ((k = newnode(P, N_LOOK)) < 0 || (sub = alt(P, flags)) < 0)
				return -1;
			P->re->nd[k].kid = sub;
			P->re->nd[k].arg = r;
			bag = 0;
			goto close;
		case '#':
			while (P->i < P->n && P->p[P->i] != ')')
				P->i++;
			if (P->i >= P->n)
				return perr(P, at, "end pattern in group");
			P->i++;
			return newnode(P, N_EMPTY);
		case '>':
			return perr(P, at, "atomic groups are not supported");
		case '<':
			if (P->i + 1 < P->n && (P->p[P->i + 1] == '=' || P->p[P->i + 1] == '!'))
				return perr(P, at, "lookbehind is not supported");
			/* fall through */
		case '\'': {
			int q = P->p[P->i] == '<' ? '>' : '\'';
			size_t j = ++P->i;
			while (P->i < P->n && P->p[P->i] != q && isname(P->p[P->i]))
				P->i++;
			if (P->i == j || peek(P) != q || isdig(P->p[j]))
				return perr(P, at, "invalid group name");
			P->i++;
			break;
		}
		default:
			if ((r = options(P, &flags)) == -2)
				return perr(P, at, "undefined group option");
			if (r == 0) {
				/* isolated: the rest of the enclosing group */
				if ((k = alt(P, flags)) < 0)
					return -1;
				return k;
			}
			break;
		}
	}
	if ((k = alt(P, flags)) < 0)
		return -1;
close:
	if (peek(P) != ')')
		return perr(P, at, "end pattern with unmatched parenthesis");
	P->i++;
	P->re->nd[k].bag |= bag;
	return k;
}

/* {n}, {n,}, {,m}, {n,m} at P->i: 1 with *min, *max (-1: none), or 0
 * (then it is a literal '{'), -1 on error */
static int
interval(struct ps *P, int *min, int *max, int *fixed)
{
	size_t i = P->i + 1, at = P->i;
	long lo = -1, hi = -1;
	int comma = 0;

	for (; i < P->n && isdig(P->p[i]); i++) {
		lo = (lo < 0 ? 0 : lo) * 10 + (P->p[i] - '0');
		if (lo > 100000)
			return perr(P, at, "too big number for repeat range");
	}
	if (i < P->n && P->p[i] == ',') {
		comma = 1;
		for (i++; i < P->n && isdig(P->p[i]); i++) {
			hi = (hi < 0 ? 0 : hi) * 10 + (P->p[i] - '0');
			if (hi > 100000)
				return perr(P, at, "too big number for repeat range");
		}
	}
	if (i >= P->n || P->p[i] != '}' || (lo < 0 && hi < 0))
		return 0;
	P->i = i + 1;
	*fixed = !comma;
	if (!comma)
		hi = lo;
	if (lo < 0)
		lo = 0;
	if (comma && hi >= 0 && hi < lo) {
		long t = lo;	/* Ruby syntax takes {3,1} as {1,3} */
		lo = hi, hi = t;
	}
	*min = (int)lo;
	*max = (int)hi;
	return 1;
}

static int
repnode(struct ps *P, int kid, int min, int max, int greedy)
{
	int k;

	if ((k = newnode(P, N_REP)) < 0)
		return -1;
	P->re->nd[k].kid = kid;
	P->re->nd[k].min = min;
	P->re->nd[k].max = max;
	P->re->nd[k].greedy = greedy;
	return k;
}

/* X*+ X++ X?+ for a single-character X: X*(?!X), X+(?!X), X|(?!X) */
static int
possessive(struct ps *P, int atom, int min, int max, size_t at)
{
	struct node *a = &P->re->nd[atom];
	int t = a->type, x2, lk, r, k;

	if (t != N_CHAR && t != N_ANY && t != N_CLASS)
		return perr(P, at, "possessive quantifiers are only supported on a single character");
	if ((x2 = newnode(P, t)) < 0 || (lk = newnode(P, N_LOOK)) < 0)
		return -1;
	a = &P->re->nd[atom];
	P->re->nd[x2] = *a;
	P->re->nd[lk].kid = x2;
	P->re->nd[lk].arg = 1;
	if (max == 1) {
		if ((k = newnode(P, N_ALT)) < 0)
			return -1;
		P->re->nd[k].kid = atom;
		P->re->nd[atom].next = lk;
		return k;
	}
	if ((r = repnode(P, atom, min, -1, 1)) < 0 || (k = newnode(P, N_CAT)) < 0)
		return -1;
	P->re->nd[k].kid = r;
	P->re->nd[r].next = lk;
	return k;
}

/* Oniguruma's is_invalid_quantifier_target: an anchor (lookaheads are
 * anchors there), or an alternation with one; a group other than (?:)
 * is a node of its own, and a sequence never is */
static int
badtarget(const struct re *re, int k)
{
	const struct node *v = &re->nd[k];
	int c;

	if (v->bag)
		return 0;
	if (v->type == N_ASSERT || v->type == N_LOOK)
		return 1;
	if (v->type == N_ALT)
		for (c = v->kid; c >= 0; c = re->nd[c].next)
			if (badtarget(re, c))
				return 1;
	return 0;
}

/* an atom and its quantifiers; -3 at the end of a sequence */
static int
piece(struct ps *P, int *flags)
{
	size_t at;
	int k, c, r, set, min, max, fixed = 0, nq = 0;
	uint32_t ch;

	skipx(P, *flags);
	at = P->i;
	if (P->i >= P->n || P->p[P->i] == '|' || P->p[P->i] == ')')
		return -3;
	c = P->p[P->i];
	switch (c) {
	case '*':
	case '+':
	case '?':
		return perr(P, at, "target of repeat operator is not specified");
	case '{':
		if ((r = interval(P, &min, &max, &fixed)) < 0)
			return -1;
		if (r)
			return perr(P, at, "target of repeat operator is not specified");
		P->i++;
		k = charnode(P, *flags, '{');
		break;
	case '(':
		P->i++;
		if (++P->depth > RE_MAXDEPTH)
			return perr(P, at, "groups nested too deeply");
		if (P->i + 1 < P->n && P->p[P->i] == '?' && P->p[P->i + 1] != ':' &&
		    P->p[P->i + 1] != '=' && P->p[P->i + 1] != '!') {
			/* an isolated option changes the flags of the rest */
			size_t save = P->i;
			int f = *flags;
			P->i++;
			if (options(P, &f) == 0) {
				if ((k = alt(P, f)) < 0)
					return -1;
				P->depth--;
				return k;
			}
			P->i = save;
		}
		if ((k = group(P, *flags, at)) < 0)
			return -1;
		P->depth--;
		break;
	case '[':
		P->i++;
		if ((set = classbody(P, *flags, at)) < 0 || (k = setnode(P, set)) < 0)
			return -1;
		P->re->cs[set].icase = !!(*flags & F_I);
		break;
	case '.':
		P->i++;
		if ((k = newnode(P, N_ANY)) < 0)
			return -1;
		P->re->nd[k].dotall = !!(*flags & F_M);
		break;
	case '^':
		P->i++;
		k = assertnode(P, A_BOL);
		break;
	case '$':
		P->i++;
		k = assertnode(P, A_EOL);
		break;
	case '\\':
		P->i++;
		if (P->i >= P->n)
			return perr(P, at, "end pattern at escape");
		c = P->p[P->i];
		if (c == 'p' || c == 'P') {
			P->i++;
			if ((set = property(P, c == 'P', at)) < 0)
				return -1;
			k = setnode(P, set);
			break;
		}
		if ((set = typeset(P, c, 0)) != -2) {
			P->i++;
			if (set < 0)
				return -1;
			k = setnode(P, set);
			break;
		}
		if ((r = charesc(P, at, 0, &ch)) < 0)
			return -1;
		if (r) {
			k = charnode(P, *flags, ch);
			break;
		}
		P->i++;
		switch (c) {
		case 'A': k = assertnode(P, A_BOS); break;
		case 'z': k = assertnode(P, A_EOS); break;
		case 'Z': k = assertnode(P, A_EOSNL); break;
		case 'b': k = assertnode(P, A_WORDB); break;
		case 'B': k = assertnode(P, A_NWORDB); break;
		default: k = assertnode(P, A_START); break;
		}
		break;
	default:
		if (patchar(P, &ch) < 0)
			return -1;
		k = charnode(P, *flags, ch);
		break;
	}
	if (k < 0)
		return -1;
	for (;;) {
		int greedy = 1, iv = 0;
		skipx(P, *flags);
		at = P->i;
		c = peek(P);
		if (c == '*')
			min = 0, max = -1;
		else if (c == '+')
			min = 1, max = -1;
		else if (c == '?')
			min = 0, max = 1;
		else if (c == '{') {
			if ((r = interval(P, &min, &max, &fixed)) < 0)
				return -1;
			if (!r)
				break;
			iv = 1;
		} else
			break;
		if (P->depth + ++nq > RE_MAXDEPTH)
			return perr(P, at, "quantifiers nested too deeply");
		if (badtarget(P->re, k))
			return perr(P, at, "target of repeat operator is invalid");
		if (!iv)
			P->i++;
		/* Ruby: {n}? is ({n})?, not a lazy {n} */
		if (peek(P) == '?' && !(iv && fixed)) {
			P->i++;
			greedy = 0;
		} else if (peek(P) == '+' && !iv) {
			P->i++;
			if ((k = possessive(P, k, min, max, at)) < 0)
				return -1;
			P->re->nd[k].bag = 1;	/* Oniguruma's atomic group */
			continue;
		}
		if ((k = repnode(P, k, min, max, greedy)) < 0)
			return -1;
	}
	return k;
}

/* a sequence, up to '|', ')' or the end */
static int
seq(struct ps *P, int flags)
{
	int k, first = -1, last = -1, n = 0;

	while ((k = piece(P, &flags)) != -3) {
		if (k < 0)
			return -1;
		if (last >= 0)
			P->re->nd[last].next = k;
		else
			first = k;
		last = k;
		n++;
	}
	if (P->bad)
		return -1;
	if (n == 1)
		return first;
	if ((k = newnode(P, n ? N_CAT : N_EMPTY)) < 0)
		return -1;
	P->re->nd[k].kid = first;
	return k;
}

static int
alt(struct ps *P, int flags)
{
	int k, first, last, n = 1;

	if ((first = last = seq(P, flags)) < 0)
		return -1;
	while (peek(P) == '|') {
		P->i++;
		if ((k = seq(P, flags)) < 0)
			return -1;
		P->re->nd[last].next = k;
		last = k;
		n++;
	}
	if (n == 1)
		return first;
	if ((k = newnode(P, N_ALT)) < 0)
		return -1;
	P->re->nd[k].kid = first;
	return k;
}

/* ---- compiler ---- */

#define BIG (RE_MAXINST + 1)

static size_t
capadd(size_t a, size_t b)
{
	return a + b > BIG ? BIG : a + b;
}

static size_t
capmul(size_t a, size_t b)
{
	return b && a > BIG / b ? BIG : a * b;
}

/* instructions node k compiles to (saturating at BIG) */
static size_t
nsize(const struct re *re, int k)
{
	const struct node *v = &re->nd[k];
	size_t s = 0, x;
	int c, i;

	switch (v->type) {
	case N_EMPTY:
		return 0;
	case N_CAT:
		for (c = v->kid; c >= 0; c = re->nd[c].next)
			s = capadd(s, nsize(re, c));
		return s;
	case N_ALT:
		for (c = v->kid, i = 0; c >= 0; c = re->nd[c].next, i++)
			s = capadd(s, capadd(nsize(re, c), re->nd[c].next >= 0 ? 2 : 0));
		return s;
	case N_REP:
		x = nsize(re, v->kid);
		s = capmul(x, v->min);
		if (v->max < 0)
			return capadd(s, capadd(x, 3));
		return capadd(s, capmul(capadd(x, 1), v->max - v->min));
	case N_LOOK:
		return capadd(nsize(re, v->kid), 2);
	default:
		return 1;
	}
}

struct cc {
	struct re *re;
	int *pend;		/* lookahead nodes waiting for their sub-program */
	size_t npend;
	int depth, maxdepth;	/* loops that can match empty, nested */
};

/* can node k match the empty string? */
static int
nullable(const struct re *re, int k)
{
	const struct node *v = &re->nd[k];
	int c;

	switch (v->type) {
	case N_CHAR:
	case N_ANY:
	case N_CLASS:
		return 0;
	case N_CAT:
		for (c = v->kid; c >= 0; c = re->nd[c].next)
			if (!nullable(re, c))
				return 0;
		return 1;
	case N_ALT:
		for (c = v->kid; c >= 0; c = re->nd[c].next)
			if (nullable(re, c))
				return 1;
		return 0;
	case N_REP:
		return v->min == 0 || nullable(re, v->kid);
	default:
		return 1;
	}
}

static int
emit(struct cc *C, int op)
{
	struct inst *in = &C->re->prog[C->re->nprog];

	memset(in, 0, sizeof *in);
	in->op = op;
	return (int)C->re->nprog++;
}

static void
comp(struct cc *C, int k)
{
	struct re *re = C->re;
	const struct node *v = &re->nd[k];
	int c, i, pc, l1;

	switch (v->type) {
	case N_EMPTY:
		break;
	case N_CHAR:
		pc = emit(C, v->fold ? I_CHARI : I_CHAR);
		re->prog[pc].c = v->c;
		break;
	case N_ANY:
		emit(C, v->dotall ? I_ANYNL : I_ANY);
		break;
	case N_CLASS:
		pc = emit(C, I_CLASS);
		re->prog[pc].x = v->arg;
		break;
	case N_ASSERT:
		pc = emit(C, I_ASSERT);
		re->prog[pc].arg = v->arg;
		break;
	case N_LOOK:
		pc = emit(C, I_LOOK);
		re->prog[pc].arg = v->arg;
		re->prog[pc].x = (int)re->nlook;
		re->look[re->nlook++].pc = k;	/* node, until it is compiled */
		C->pend[C->npend++] = (int)re->nlook - 1;
		break;
	case N_CAT:
		for (c = v->kid; c >= 0; c = re->nd[c].next)
			comp(C, c);
		break;
	case N_ALT:
		/* SPLIT L1 L2; L1: a; JMP end; L2: SPLIT ...; last; end:
		 * the JMPs are chained through x until end is known */
		for (c = v->kid, l1 = -1; c >= 0; c = re->nd[c].next) {
			if (re->nd[c].next < 0) {
				comp(C, c);
				break;
			}
			pc = emit(C, I_SPLIT);
			re->prog[pc].x = pc + 1;
			comp(C, c);
			i = emit(C, I_JMP);
			re->prog[i].x = l1;
			l1 = i;
			re->prog[pc].y = (int)re->nprog;
		}
		for (; l1 >= 0; l1 = i) {
			i = re->prog[l1].x;
			re->prog[l1].x = (int)re->nprog;
		}
		break;
	case N_REP:
		for (i = 0; i < v->min; i++)
			comp(C, v->kid);
		if (v->max < 0) {
			/* L0: SPLIT L1 L3; L1: X; SPLIT L1 L3; L3:, and for an
			 * X that can match empty, L1: ENTER; X; REP L1 L3 */
			int nul = nullable(re, v->kid);
			pc = emit(C, I_SPLIT);
			l1 = pc + 1;
			if (nul) {
				emit(C, I_ENTER);
				if (++C->depth > C->maxdepth)
					C->maxdepth = C->depth;
			}
			comp(C, v->kid);
			C->depth -= nul;
			c = emit(C, nul ? I_REP : I_SPLIT);
			re->prog[c].arg = v->greedy;
			re->prog[pc].x = re->prog[c].x = v->greedy ? l1 : c + 1;
			re->prog[pc].y = re->prog[c].y = v->greedy ? c + 1 : l1;
			if (nul)
				re->prog[c].x = l1, re->prog[c].y = c + 1;
			break;
		}
		/* (X(X(X)?)?)?, the counted loop's priorities: every SPLIT
		 * skips to the end; they are chained through y meanwhile */
		for (i = 0, l1 = -1; i < v->max - v->min; i++) {
			pc = emit(C, I_SPLIT);
			re->prog[pc].y = l1;
			l1 = pc;
			comp(C, v->kid);
		}
		for (; l1 >= 0; l1 = c) {
			struct inst *in = &re->prog[l1];
			c = in->y;
			in->x = v->greedy ? l1 + 1 : (int)re->nprog;
			in->y = v->greedy ? (int)re->nprog : l1 + 1;
		}
		break;
	}
}

static int
compile(struct re *re, int root, char *err, size_t errsz)
{
	struct cc C = { re, NULL, 0, 0, 0 };
	size_t sz = nsize(re, root), l;
	int k;

	sz = capadd(sz, 1);
	if (sz > RE_MAXINST) {
		snprintf(err, errsz, "pattern too large (more than %d instructions)", RE_MAXINST);
		return -1;
	}
	/* every copy of a lookahead is a lookahead of its own: at most one
	 * per two instructions */
	if (!(re->prog = calloc(sz, sizeof *re->prog)) ||
	    !(re->look = calloc(sz / 2 + 1, sizeof *re->look)) ||
	    !(C.pend = calloc(sz / 2 + 1, sizeof *C.pend))) {
		snprintf(err, errsz, "out of memory");
		return -1;
	}
	comp(&C, root);
	emit(&C, I_MATCH);
	re->mainend = re->nprog;
	C.depth = 0;
	for (l = 0; l < C.npend; l++) {
		struct look *L = &re->look[C.pend[l]];
		k = L->pc;
		L->pc = (int)re->nprog;
		comp(&C, re->nd[k].kid);
		emit(&C, I_MATCH);
		L->end = (int)re->nprog;
	}
	free(C.pend);
	if (C.maxdepth > RE_MAXNULL) {
		snprintf(err, errsz, "pattern too large (loops that can match empty "
		    "nested more than %d deep)", RE_MAXNULL);
		return -1;
	}
	re->nm = C.maxdepth + 1;
	return 0;
}

/* ---- machine ---- */

static int
listinit(struct list *l, size_t len, int nm)
{
	l->n = l->nmark = 0;
	l->pc = calloc(len, sizeof *l->pc);
	l->start = calloc(len, sizeof *l->start);
	l->mark = calloc(len * nm, sizeof *l->mark);
	l->idx = calloc(len * nm, sizeof *l->idx);
	return l->pc && l->start && l->mark && l->idx ? 0 : -1;
}

static void
listfree(struct list *l)
{
	free(l->pc);
	free(l->start);
	free(l->mark);
	free(l->idx);
}

struct run {
	struct re *re;
	const unsigned char *s;
	size_t n, start;	/* the text and where the search began */
};

/* the character before s[i] as uni_decode reads it there */
static uint32_t
before(const unsigned char *s, size_t n, size_t i)
{
	uint32_t c;
	size_t k;

	if (s[i - 1] < 0x80)
		return s[i - 1];
	for (k = 2; k <= 4 && k <= i; k++)
		if (s[i - k] >= 0xc0 && uni_decode(s + i - k, n - (i - k), &c) == k)
			return c;
	return UNI_BAD(s[i - 1]);
}

/* \w and \b outside classes ask Oniguruma's Latin-1 ctype table below
 * U+0100, which also calls the superscript digits and the vulgar
 * fractions word characters (\p{Word} and [\w] do not) */
static int
isword(uint32_t c)
{
	return (uni_gcw(c) & UNI_GC_WORD) || LATIN1WORD(c);
}

static int
assertion(const struct run *R, int a, size_t p)
{
	const unsigned char *s = R->s;
	size_t n = R->n;
	uint32_t c;
	int w1, w2;

	switch (a) {
	case A_BOL: return p == 0 || (s[p - 1] == '\n' && p < n);
	case A_EOL: return p == n || s[p] == '\n';
	case A_BOS: return p == 0;
	case A_EOS: return p == n;
	case A_EOSNL: return p == n || (p + 1 == n && s[p] == '\n');
	case A_START: return p == R->start;
	default:
		w1 = p > 0 && isword(before(s, n, p));
		w2 = p < n && (uni_decode(s + p, n - p, &c), isword(c));
		return (w1 != w2) == (a == A_WORDB);
	}
}

static int lookahead(const struct run *R, int k, size_t p);

/* is state i (pc - base) * nm + m marked in l? */
static inline int
has(const struct list *l, size_t i)
{
	size_t j = (size_t)l->idx[i];

	return j < l->nmark && l->mark[j] == (int)i;
}

static inline void
mark(struct list *l, size_t i)
{
	l->idx[i] = (int)l->nmark;
	l->mark[l->nmark++] = (int)i;
}

/* Add pc's thread and all it reaches without reading a character at p
 * (depth first, in priority order) to l.
 *
 * Oniguruma ends a loop whose iteration matched empty (its empty check):
 * the loop goes on after it.  Whether it does depends on where the
 * iteration began, so a state is a pc and m, the number of innermost
 * loops that can match empty whose iteration began at p (for the outer
 * ones to have begun here, the inner ones must have).  A thread that
 * reads a character leaves m behind, so threads are told apart by pc. */
static void
addthread(const struct run *R, struct list *l, int *stack, int base, int pc, size_t start, size_t p)
{
	struct re *re = R->re;
	size_t sp = 0, nm = (size_t)re->nm, i;
	int m;

	if (re->clos && re->clos[pc] >= 0) {
		/* the marks are closed under what a state reaches, so a
		 * thread seen already has its threads in l already */
		const int *c = re->cpool + re->clos[pc];
		for (; *c >= 0; c++) {
			re->steps++;
			i = (size_t)(*c - base) * nm;
			if (has(l, i))
				continue;
			mark(l, i);
			l->pc[l->n] = *c;
			l->start[l->n++] = start;
		}
		return;
	}
#define PUSH(a, b) (stack[sp] = (a), stack[sp + 1] = (b), sp += 2)
	PUSH(pc, 0);
	while (sp) {
		const struct inst *in;
		sp -= 2;
		pc = stack[sp];
		m = stack[sp + 1];
		in = &re->prog[pc];
		i = (size_t)(pc - base) * nm;
		if (in->op > I_MATCH)
			i += (size_t)m;
		if (has(l, i))
			continue;
		re->steps++;
		mark(l, i);
		switch (in->op) {
		case I_JMP:
			PUSH(in->x, m);
			break;
		case I_SPLIT:
			PUSH(in->y, m);
			PUSH(in->x, m);
			break;
		case I_ENTER:
			PUSH(pc + 1, m + 1);
			break;
		case I_REP:
			/* an iteration begun here read nothing: on after */
			if (m)
				PUSH(in->y, m - 1);
			else if (in->arg) {
				PUSH(in->y, 0);
				PUSH(in->x, 0);
			} else {
				PUSH(in->x, 0);
				PUSH(in->y, 0);
			}
			break;
		case I_ASSERT:
			if (assertion(R, in->arg, p))
				PUSH(pc + 1, m);
			break;
		case I_LOOK:
			if (lookahead(R, in->x, p) != in->arg)
				PUSH(pc + 1, m);
			break;
		default:
			l->pc[l->n] = pc;
			l->start[l->n++] = start;
			break;
		}
	}
#undef PUSH
}

static inline int
step(const struct run *R, const struct inst *in, uint32_t c)
{
	if (in->op == I_CLASS && c < 0x80)
		return R->re->cs[in->x].ascii[c >> 6] >> (c & 63) & 1;
	switch (in->op) {
	case I_CHAR: return c == in->c;
	case I_CHARI: return uni_fold1(c) == in->c;
	case I_ANY: return c != '\n';
	case I_ANYNL: return 1;
	case I_CLASS: return member(R->re, in->x, c);
	default: return 0;
	}
}

/* Lookahead tables.  A lookahead only asks whether its body matches at
 * p, which depends on the position and not on where the search began
 * (but for \G, whose lookaheads keep the scan below).  Scanning forward
 * from every position the main machine reaches is quadratic
 * (a(?=[^z]*z) over a run of a's); instead the body's result at every
 * character boundary is found at once, backwards: at position q, an
 * instruction leads to a match if it is the match, or reads the
 * character at q and its next instruction leads to one at the next
 * boundary, or is an epsilon move (whose assertion holds at q) to one
 * that does.  The last is a reverse reachability over the body's
 * epsilon edges, O(m) at each boundary: O(m * n) for the text, computed
 * once per text (re_search keeps the table while s and n stay the same
 * and start is not 0). */

/* the body's epsilon edges, reversed (CSR); 0, or -1 out of memory */
static int
lookedges(struct re *re, struct look *L)
{
	int m = L->end - L->pc, i, k, e, np = 0, t[2], nt;

	if (!(L->pstart = calloc((size_t)m + 2, sizeof *L->pstart)))
		return -1;
	for (e = 0; e < 2; e++) {	/* count, then fill */
		for (i = 0; i < m; i++) {
			const struct inst *in = &re->prog[L->pc + i];
			nt = 0;
			switch (in->op) {
			case I_JMP: t[nt++] = in->x; break;
			case I_SPLIT: case I_REP: t[nt++] = in->x; t[nt++] = in->y; break;
			case I_ENTER: case I_ASSERT: case I_LOOK: t[nt++] = L->pc + i + 1; break;
			default: break;
			}
			for (k = 0; k < nt; k++) {
				if (e == 0)
					L->pstart[t[k] - L->pc + 2]++;
				else
					L->pred[L->pstart[t[k] - L->pc + 1]++] = i;
			}
		}
		if (e == 0) {
			for (i = 0; i < m; i++)
				L->pstart[i + 2] += L->pstart[i + 1];
			np = L->pstart[m + 1];
			if (!(L->pred = malloc(((size_t)np + 1) * sizeof *L->pred)))
				return -1;
		}
	}
	return 0;
}

static int looktable(const struct run *R, int k);

/* the place of boundary p in re->tb, or -1 */
static long
tbindex(const struct re *re, size_t p)
{
	size_t lo = 0, hi = re->ntb;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (re->tb[mid] < p)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < re->ntb && re->tb[lo] == p ? (long)lo : -1;
}

/* Fill lookahead k's table for the text of re->tb: 1, or 0 where it
 * cannot (out of memory, a \G in its body): the scan then answers. */
static int
looktable(const struct run *R, int k)
{
	struct re *re = R->re;
	struct look *L = &re->look[k];
	int m = L->end - L->pc, i, *work = NULL;
	unsigned char *g = NULL, *gn, *gc, *tmp;
	size_t j, nw;
	uint32_t c;

	if (L->have)
		return L->have > 0;
	L->have = -1;
	for (i = 0; i < m; i++) {
		const struct inst *in = &re->prog[L->pc + i];
		if ((in->op == I_ASSERT && in->arg == A_START) ||
		    (in->op == I_LOOK && !looktable(R, in->x)))
			return 0;
	}
	if ((!L->pstart && lookedges(re, L) < 0) ||
	    !(L->res = realloc(L->res, re->ntb)) ||
	    !(g = calloc(2 * (size_t)m, 1)) || !(work = malloc((size_t)m * sizeof *work))) {
		free(g);
		return 0;
	}
	gn = g, gc = g + m;
	for (j = re->ntb; j-- > 0; ) {
		size_t q = re->tb[j];
		int last = j + 1 == re->ntb;
		if (!last)
			uni_decode(R->s + q, R->n - q, &c);
		nw = 0;
		for (i = 0; i < m; i++) {
			const struct inst *in = &re->prog[L->pc + i];
			re->steps++;
			gc[i] = in->op == I_MATCH || (in->op <= I_CLASS && !last &&
			    step(R, in, c) && gn[i + 1]);
			if (gc[i])
				work[nw++] = i;
		}
		while (nw) {
			int t = work[--nw], e;
			for (e = L->pstart[t]; e < L->pstart[t + 1]; e++) {
				int u = L->pred[e];
				const struct inst *in = &re->prog[L->pc + u];
				re->steps++;
				if (gc[u] || (in->op == I_ASSERT && !assertion(R, in->arg, q)) ||
				    (in->op == I_LOOK && re->look[in->x].res[j] == in->arg))
					continue;
				gc[u] = 1;
				work[nw++] = u;
			}
		}
		L->res[j] = gc[0];
		tmp = gn, gn = gc, gc = tmp;
	}
	free(g);
	free(work);
	L->have = 1;
	return 1;
}

/* Start the tables for search R: kept if R's text is the one they are
 * for and R's start one of its boundaries (not 0: a new text, though it
 * may lie where the last one did), else made anew (lazily, by
 * looktable). */
static void
looktext(const struct run *R)
{
	struct re *re = R->re;
	size_t p, len, i, *nb;
	uint32_t c;

	if (!re->nlook)
		return;
	if (R->start && re->ts == R->s && re->tn == R->n && re->tb && tbindex(re, R->start) >= 0)
		return;
	for (i = 0; i < re->nlook; i++)
		re->look[i].have = 0;
	re->ts = R->s, re->tn = R->n, re->ntb = 0;
	if (!(nb = realloc(re->tb, (R->n - R->start + 1) * sizeof *nb))) {
		for (i = 0; i < re->nlook; i++)
			re->look[i].have = -1;	/* the scans answer */
		return;
	}
	re->tb = nb;
	for (p = R->start; ; p += len) {
		re->tb[re->ntb++] = p;
		if (p >= R->n)
			break;
		len = R->s[p] < 0x80 ? 1 : uni_decode(R->s + p, R->n - p, &c);
	}
}

/* Does lookahead k's body match at p? */
static int
lookahead(const struct run *R, int k, size_t p)
{
	struct look *L = &R->re->look[k];
	struct list *cl = &L->l[0], *nl = &L->l[1], *t;
	size_t i, len, p0 = p;
	uint32_t c;
	long j;

	if (L->mpos == p)
		return L->mres;
	if (R->re->tb && R->re->ts == R->s && looktable(R, k) && (j = tbindex(R->re, p)) >= 0)
		return L->res[j];
	cl->n = cl->nmark = 0;
	addthread(R, cl, L->stack, L->pc, L->pc, p, p);
	for (;;) {
		nl->n = nl->nmark = 0;
		if (p < R->n)
			len = uni_decode(R->s + p, R->n - p, &c);
		else
			len = 0, c = UINT32_MAX;
		for (i = 0; i < cl->n; i++) {
			const struct inst *in = &R->re->prog[cl->pc[i]];
			R->re->steps++;
			if (in->op == I_MATCH) {
				L->mres = 1;
				goto done;
			}
			if (len && step(R, in, c))
				addthread(R, nl, L->stack, L->pc, cl->pc[i] + 1, p, p + len);
		}
		if (!nl->n) {
			L->mres = 0;
			goto done;
		}
		t = cl, cl = nl, nl = t;
		p += len;
	}
done:
	L->mpos = p0;
	return L->mres;
}

int
re_search(struct re *re, const char *str, size_t n, size_t start, size_t *ms, size_t *me)
{
	struct run R = { re, (const unsigned char *)str, n, start };
	struct list *cl = &re->l[0], *nl = &re->l[1], *t;
	size_t p = start, i, len, mstart = 0, mend = 0;
	int matched = 0;
	uint32_t c;

	for (i = 0; i < re->nlook; i++)
		re->look[i].mpos = (size_t)-1;
	if (start > n)
		return 0;
	looktext(&R);
	cl->n = cl->nmark = 0;
	for (;;) {
		int seeded = matched;
		nl->n = nl->nmark = 0;
		if (p < n) {
			if (R.s[p] < 0x80)
				c = R.s[p], len = 1;
			else
				len = uni_decode(R.s + p, n - p, &c);
		} else
			len = 0, c = UINT32_MAX;
		/* the new thread at p comes last, so it is added only once the
		 * threads before it ran out without a match */
		for (i = 0; ; i++) {
			const struct inst *in;
			if (i == cl->n) {
				if (seeded)
					break;
				addthread(&R, cl, re->stack, 0, 0, p, p);
				seeded = 1;
				if (i == cl->n)
					break;
			}
			in = &re->prog[cl->pc[i]];
			re->steps++;
			if (in->op == I_MATCH) {
				/* the threads after this one have lower priority */
				matched = 1;
				mstart = cl->start[i];
				mend = p;
				break;
			}
			if (len && step(&R, in, c))
				addthread(&R, nl, re->stack, 0, cl->pc[i] + 1, cl->start[i], p + len);
		}
		if (!len || (matched && !nl->n))
			break;
		t = cl, cl = nl, nl = t;
		p += len;
	}
	if (matched)
		*ms = mstart, *me = mend;
	return matched;
}

static void
lookfree(struct look *L)
{
	listfree(&L->l[0]);
	listfree(&L->l[1]);
	free(L->stack);
	free(L->res);
	free(L->pstart);
	free(L->pred);
}

/* re->clos: the closure of every pc a thread can start from, while the
 * pool stays within a few entries per instruction and the work within a
 * few steps (a pattern like (?:a?){30000} has closures as long as itself:
 * those are left to addthread) */
static int
mkclos(struct re *re)
{
	struct run R = { re, (const unsigned char *)"", 0, 0 };
	size_t np = 0, cap = 8 * re->nprog + 1024, i, k;
	unsigned long long budget = 32ull * re->nprog + 65536;
	int pc, *base;

	if (!(re->clos = malloc(re->nprog * sizeof *re->clos)) ||
	    !(re->cpool = malloc(cap * sizeof *re->cpool)))
		return -1;
	for (i = 0; i < re->nprog; i++)
		re->clos[i] = -1;
	for (i = 0; i <= re->nprog; i++) {
		struct list *l = &re->l[0];
		int *stack = re->stack, b = 0;
		if (i == re->nprog)
			pc = 0;
		else if (re->prog[i].op <= I_CLASS && i + 1 < re->nprog)
			pc = (int)i + 1;
		else
			continue;
		if (pc >= (int)re->mainend) {
			/* the sub-programs lie in order after the main one */
			size_t lo = 0, hi = re->nlook;
			while (hi - lo > 1) {
				size_t mid = lo + (hi - lo) / 2;
				if (re->look[mid].pc <= pc)
					lo = mid;
				else
					hi = mid;
			}
			k = lo;
			l = &re->look[k].l[0];
			stack = re->look[k].stack;
			b = re->look[k].pc;
		}
		if (re->steps > budget)
			break;
		l->n = l->nmark = 0;
		addthread(&R, l, stack, b, pc, 0, 0);
		for (k = 0; k < l->nmark; k++) {
			int op = re->prog[b + l->mark[k] / re->nm].op;
			if (op == I_ASSERT || op == I_LOOK)
				break;
		}
		if (k < l->nmark || np + l->n + 1 > cap)
			continue;
		base = re->cpool + np;
		memcpy(base, l->pc, l->n * sizeof *base);
		base[l->n] = -1;
		re->clos[pc] = (int)np;
		np += l->n + 1;
	}
	for (k = 0; k < re->nlook; k++)
		re->look[k].mpos = (size_t)-1;
	return 0;
}

void
re_free(struct re *re)
{
	size_t i;

	if (!re)
		return;
	for (i = 0; i < re->ncs; i++) {
		free(re->cs[i].r);
		free(re->cs[i].sub);
	}
	for (i = 0; i < re->nlook; i++)
		lookfree(&re->look[i]);
	free(re->look);
	free(re->cs);
	free(re->prog);
	listfree(&re->l[0]);
	listfree(&re->l[1]);
	free(re->stack);
	free(re->clos);
	free(re->cpool);
	free(re->tb);
	free(re->nd);
	free(re);
}

int
re_compile(struct re **out, const char *pat, size_t n, char *err, size_t errsz)
{
	struct ps P = { 0 };
	struct re *re;
	size_t i, len;
	int root;

	*out = NULL;
	if (errsz)
		err[0] = 0;
	if (!(re = calloc(1, sizeof *re))) {
		snprintf(err, errsz, "out of memory");
		return -1;
	}
	P.re = re;
	P.p = (const unsigned char *)pat;
	P.n = n;
	P.err = err;
	P.errsz = errsz;
	if ((root = alt(&P, 0)) < 0)
		goto fail;
	if (P.i < n) {
		perr(&P, P.i, "unmatched close parenthesis");
		goto fail;
	}
	if (compile(re, root, err, errsz) < 0)
		goto fail;
	for (i = re->ncs; i-- > 0;)
		setascii(re, (int)i);
	if (listinit(&re->l[0], re->mainend, re->nm) < 0 ||
	    listinit(&re->l[1], re->mainend, re->nm) < 0 ||
	    !(re->stack = calloc(4 * re->mainend * re->nm + 4, sizeof *re->stack)))
		goto nomem;
	for (i = 0; i < re->nlook; i++) {
		struct look *L = &re->look[i];
		len = (size_t)(L->end - L->pc);
		if (listinit(&L->l[0], len, re->nm) < 0 || listinit(&L->l[1], len, re->nm) < 0 ||
		    !(L->stack = calloc(4 * len * re->nm + 4, sizeof *L->stack)))
			goto nomem;
	}
	if (mkclos(re) < 0)
		goto nomem;
	free(re->nd);
	re->nd = NULL;
	re->nnd = re->ndcap = 0;
	*out = re;
	return 0;
nomem:
	snprintf(err, errsz, "out of memory");
fail:
	re_free(re);
	return -1;
}

int
re_next(struct re *re, const char *s, size_t n, struct re_iter *it, size_t *ms, size_t *me)
{
	size_t a, b;
	uint32_t c;

	while (it->pos <= n) {
		if (!re_search(re, s, n, it->pos, &a, &b)) {
			it->pos = n + 1;
			return 0;
		}
		if (a == b && it->any && b == it->last) {
			/* an empty match right after the previous one: move on */
			it->pos += it->pos < n ? uni_decode((const unsigned char *)s + it->pos,
			    n - it->pos, &c) : 1;
			continue;
		}
		it->pos = it->last = b;
		it->any = 1;
		*ms = a;
		*me = b;
		return 1;
	}
	return 0;
}

unsigned long long
re_steps(const struct re *re)
{
	return re->steps;
}
