/* fuzz/regex.c: any pattern, searched over a text from the same input
 * (pattern, a NUL byte, text; without a NUL the whole input is the
 * pattern and the text is a fixed one).  What re_compile accepts must
 * search without fault; every match lies in the text, after the place
 * the search began; find_iter's matches are left to right, never
 * overlap and always progress; and every search keeps regex.h's time
 * bound.
 *
 * The bound is checked against an upper estimate of the program's
 * states that needs no look inside struct re: the pattern's bytes times
 * every number written in it (counted repetition copies what it
 * repeats; a number that is not a count only loosens the estimate),
 * at most RE_MAXINST, times one loop state per quantifier (at most
 * RE_MAXNULL + 1).  A search from start then costs at most C * m * (n -
 * start + 1) steps, lookaheads included (their tables, found once for the
 * text, cost at most 3 steps per instruction of their bodies and
 * position), but for a pattern with a lookahead and a \G, whose
 * lookaheads may be scanned from each position: times (n + 1), over a
 * text of 64 bytes at most. */
#include "fuzz.h"
#include "../../lib/tok/regex.h"

#define C 8			/* steps per state and position */
#define MAXTEXT 512		/* text bytes */

static const char deftext[] =
	"Hello world, it's 2024! caf\xc3\xa9 \xe2\x96\x81x \xf0\x9f\x98\x80 12345\n\n"
	"  \tdon't I'LL \xff\xfe\xd0\x9f\xd1\x80\xd0\xb8 \xe4\xb8\xad\xe6\x96\x87\r\n";

/* the estimate of states above; *look: the pattern has a lookahead and
 * a \G, which a lookahead's body may hold (scanned, not tabled) */
static unsigned long long
states(const char *p, size_t n, int *look)
{
	unsigned long long m = n + 1, v;
	size_t i, q = 0;
	int la = 0, g = 0;

	for (i = 0; i < n; i++) {
		if (p[i] == '*' || p[i] == '+' || p[i] == '?' || p[i] == '{')
			q++;
		if (p[i] == '(' && i + 2 < n && p[i + 1] == '?' && (p[i + 2] == '=' || p[i + 2] == '!'))
			la = 1;
		if (p[i] == '\\' && i + 1 < n && p[i + 1] == 'G')
			g = 1;
		if (p[i] < '0' || p[i] > '9')
			continue;
		for (v = 0; i < n && p[i] >= '0' && p[i] <= '9'; i++)
			if ((v = v * 10 + (unsigned)(p[i] - '0')) > RE_MAXINST)
				v = RE_MAXINST;
		i--;
		if (v > 1 && (m *= v) > RE_MAXINST)
			m = RE_MAXINST;
	}
	if (m > RE_MAXINST)
		m = RE_MAXINST;
	*look = la && g;
	return m * (1 + (q < RE_MAXNULL ? q : RE_MAXNULL));
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *pat = (const char *)data, *s, *nul;
	size_t np, n, ms, me, prev = 0, nmatch = 0, start;
	unsigned long long m, before, bound;
	struct re_iter it = { 0 };
	struct re *re;
	char err[128];
	int look, r;

	if ((nul = memchr(data, 0, size))) {
		np = (size_t)(nul - pat);
		s = nul + 1;
		n = size - np - 1;
	} else {
		np = size;
		s = deftext;
		n = sizeof deftext - 1;
	}
	m = states(pat, np, &look);
	if (n > (look ? 64 : MAXTEXT))
		n = look ? 64 : MAXTEXT;
	if (re_compile(&re, pat, np, err, sizeof err) < 0) {
		FUZZ_ASSERT(memchr(err, 0, sizeof err) && *err);
		return 0;
	}
	/* compiling: the closures' budget (32 per instruction and 65536),
	 * overrun by one closure at most */
	FUZZ_ASSERT(re_steps(re) <= 64ull * m + 65536 + C * m);
	for (start = 0; start <= n; start += 1 + n / 4) {
		before = re_steps(re);
		r = re_search(re, s, n, start, &ms, &me);
		bound = C * m * (n - start + 1) * (look ? n + 1 : 1) + C;
		FUZZ_ASSERT(re_steps(re) - before <= bound);
		if (r)
			FUZZ_ASSERT(start <= ms && ms <= me && me <= n);
	}
	for (;;) {
		start = it.pos;
		before = re_steps(re);
		r = re_next(re, s, n, &it, &ms, &me);
		if (start <= n) {
			/* the searches of one call: from start, then one per
			 * character skipped after an empty match */
			bound = C * m * (n - start + 1) * (n - start + 2) * (look ? n + 1 : 1) + C;
			FUZZ_ASSERT(re_steps(re) - before <= bound);
		}
		if (!r)
			break;
		FUZZ_ASSERT(start <= ms && ms <= me && me <= n);
		FUZZ_ASSERT(!nmatch || ms >= prev);
		FUZZ_ASSERT(!(nmatch && ms == me && me == prev));
		FUZZ_ASSERT(++nmatch <= n + 1);
		prev = me;
	}
	/* the iteration is over and stays over */
	FUZZ_ASSERT(re_next(re, s, n, &it, &ms, &me) == 0);
	re_free(re);
	return 0;
}
