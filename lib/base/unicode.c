/* unicode.c: UTF-8 and normalization (UAX #15) over the generated tables. */
#include <stdlib.h>
#include <string.h>

#include "base/unicode.h"

size_t
uni_decode(const unsigned char *s, size_t n, uint32_t *cp)
{
	unsigned c = s[0];
	uint32_t v;
	size_t len, i;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf)
		len = 2, v = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3, v = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4, v = c & 0x07;
	else
		goto bad;
	if (n < len)
		goto bad;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			goto bad;
		v = v << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && v < 0x800) || (len == 4 && v < 0x10000) ||
	    v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
		goto bad;
	*cp = v;
	return len;
bad:
	*cp = UNI_BAD(c);
	return 1;
}

size_t
uni_encode(uint32_t cp, unsigned char *o)
{
	if (cp < 0x80) {
		o[0] = cp;
		return 1;
	}
	if (cp >= 0x110000u) {
		o[0] = cp - 0x110000u;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = 0xc0 | cp >> 6;
		o[1] = 0x80 | (cp & 0x3f);
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = 0xe0 | cp >> 12;
		o[1] = 0x80 | (cp >> 6 & 0x3f);
		o[2] = 0x80 | (cp & 0x3f);
		return 3;
	}
	o[0] = 0xf0 | cp >> 18;
	o[1] = 0x80 | (cp >> 12 & 0x3f);
	o[2] = 0x80 | (cp >> 6 & 0x3f);
	o[3] = 0x80 | (cp & 0x3f);
	return 4;
}

unsigned
uni_ccc_of(uint32_t cp)
{
	size_t lo = 0, hi = uni_nccc;

	if (cp < 0x300 || cp >= 0x110000u)
		return 0;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint32_t m = uni_ccc[mid] >> 8;
		if (m == cp)
			return uni_ccc[mid] & 0xff;
		if (m < cp)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

uint32_t
uni_fold1(uint32_t cp)
{
	size_t lo = 0, hi = uni_nfold;

	if (cp < 'A' || cp >= 0x110000u)
		return cp;
	if (cp < 0x80)
		return cp <= 'Z' ? cp + 32 : cp;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (uni_fold[mid][0] == cp)
			return uni_fold[mid][1];
		if (uni_fold[mid][0] < cp)
			lo = mid + 1;
		else
			hi = mid;
	}
	return cp;
}

size_t
uni_unfold1(uint32_t f, size_t *n)
{
	size_t lo = 0, hi = uni_nfold, i;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (uni_unfold[mid][0] < f)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i < uni_nfold && uni_unfold[i][0] == f; i++)
		;
	*n = i - lo;
	return lo;
}

/* Hangul syllables decompose and compose algorithmically (Unicode 3.12). */
enum { SBASE = 0xac00, LBASE = 0x1100, VBASE = 0x1161, TBASE = 0x11a7,
	LCOUNT = 19, VCOUNT = 21, TCOUNT = 28, NCOUNT = VCOUNT * TCOUNT,
	SCOUNT = LCOUNT * NCOUNT };

/* The full decomposition of cp: pointer into the pool and length, or
 * NULL if cp decomposes to itself. */
static const unsigned int *
decomp_of(uint32_t cp, int compat, unsigned *len)
{
	size_t lo = 0, hi = uni_ndecomp;
	const struct uni_decomp *e = NULL;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (uni_decomp[mid].cp < cp)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* lo: first entry for cp; canonical (compat 0) sorts first */
	for (; lo < uni_ndecomp && uni_decomp[lo].cp == cp; lo++) {
		if (uni_decomp[lo].compat && !compat)
			break;
		e = &uni_decomp[lo];
	}
	if (!e)
		return NULL;
	*len = e->len;
	return &uni_dpool[e->off];
}

static uint32_t
compose(uint32_t a, uint32_t b)
{
	size_t lo = 0, hi = uni_ncomp;

	if (a >= LBASE && a < LBASE + LCOUNT && b >= VBASE && b < VBASE + VCOUNT)
		return SBASE + ((a - LBASE) * VCOUNT + (b - VBASE)) * TCOUNT;
	if (a >= SBASE && a < SBASE + SCOUNT && (a - SBASE) % TCOUNT == 0 &&
	    b > TBASE && b < TBASE + TCOUNT)
		return a + (b - TBASE);
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct uni_comp *c = &uni_comp[mid];
		if (c->a < a || (c->a == a && c->b < b))
			lo = mid + 1;
		else if (c->a == a && c->b == b)
			return c->c;
		else
			hi = mid;
	}
	return 0;
}

struct cpbuf {
	uint32_t *v;
	size_t n, cap;
};

static int
push(struct cpbuf *b, uint32_t cp)
{
	if (b->n == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 64;
		uint32_t *v = realloc(b->v, cap * sizeof *v);
		if (!v)
			return -1;
		b->v = v, b->cap = cap;
	}
	b->v[b->n++] = cp;
	return 0;
}

/* Sort a run of non-starters v[0..n) by combining class, keeping the
 * order of equal classes (canonical ordering).  Hostile text can hold
 * runs of thousands of marks, so long runs are counted into their
 * classes rather than insertion-sorted: linear either way.  0, or -1
 * out of memory. */
static int
order_run(uint32_t *v, size_t n)
{
	size_t count[257] = { 0 }, i, j;
	uint32_t *tmp;

	if (n <= 16) {
		for (i = 1; i < n; i++) {
			uint32_t t = v[i];
			unsigned c = uni_ccc_of(t);

			for (j = i; j > 0 && uni_ccc_of(v[j - 1]) > c; j--)
				v[j] = v[j - 1];
			v[j] = t;
		}
		return 0;
	}
	if (!(tmp = malloc(n * sizeof *tmp)))
		return -1;
	for (i = 0; i < n; i++)
		count[uni_ccc_of(v[i]) + 1]++;
	for (i = 1; i < 257; i++)
		count[i] += count[i - 1];
	for (i = 0; i < n; i++)
		tmp[count[uni_ccc_of(v[i])]++] = v[i];
	memcpy(v, tmp, n * sizeof *tmp);
	free(tmp);
	return 0;
}

char *
uni_normalize(const char *s, size_t n, int compat, size_t *outlen)
{
	const unsigned char *p = (const unsigned char *)s;
	struct cpbuf b = { 0 };
	size_t i, j, k, starter;
	unsigned char *out, *o;

	/* decompose */
	for (i = 0; i < n;) {
		uint32_t cp;
		const unsigned int *d;
		unsigned len;

		i += uni_decode(p + i, n - i, &cp);
		if (cp >= SBASE && cp < SBASE + SCOUNT) {
			uint32_t si = cp - SBASE;
			if (push(&b, LBASE + si / NCOUNT) < 0 ||
			    push(&b, VBASE + si % NCOUNT / TCOUNT) < 0 ||
			    (si % TCOUNT && push(&b, TBASE + si % TCOUNT) < 0))
				goto oom;
		} else if (cp < 0xa0 || !(d = decomp_of(cp, compat, &len))) {
			if (push(&b, cp) < 0)
				goto oom;
		} else {
			for (k = 0; k < len; k++)
				if (push(&b, d[k]) < 0)
					goto oom;
		}
	}
	/* canonical ordering */
	for (i = 0; i < b.n; i = j) {
		for (; i < b.n && !uni_ccc_of(b.v[i]); i++)
			;
		for (j = i; j < b.n && uni_ccc_of(b.v[j]); j++)
			;
		if (j - i > 1 && order_run(b.v + i, j - i) < 0)
			goto oom;
	}
	/* canonical composition */
	if (b.n) {
		int lastcc = 0, have = uni_ccc_of(b.v[0]) == 0;
		starter = 0;
		for (i = 1, j = 1; i < b.n; i++) {
			uint32_t cp = b.v[i], c;
			unsigned cc = uni_ccc_of(cp);
			if (have && (j == starter + 1 || (lastcc != 0 && lastcc < (int)cc) ||
			    (lastcc == 0 && j == starter + 1)) &&
			    (c = compose(b.v[starter], cp))) {
				b.v[starter] = c;
				continue;
			}
			if (cc == 0) {
				starter = j;
				have = 1;
				lastcc = 0;
			} else {
				lastcc = cc;
			}
			b.v[j++] = cp;
		}
		b.n = j;
	}
	if (!(out = malloc(b.n * 4 + 1)))
		goto oom;
	for (o = out, i = 0; i < b.n; i++)
		o += uni_encode(b.v[i], o);
	*o = 0;
	*outlen = o - out;
	free(b.v);
	return (char *)out;
oom:
	free(b.v);
	return NULL;
}
