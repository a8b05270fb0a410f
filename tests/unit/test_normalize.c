/* test_normalize.c: canonical ordering of long runs of combining marks,
 * which hostile text can hold (a quadratic sort stalled on them), and
 * short cases worked out by hand from UAX #15. */
#include <stdlib.h>
#include <string.h>

#include "../../lib/base/unicode.h"
#include "test.h"

/* a, then the marks m[0..k) repeated reps times, as UTF-8 into a
 * malloc'd string of *len bytes */
static char *
marks(const uint32_t *m, size_t k, size_t reps, size_t *len)
{
	unsigned char *s = malloc(1 + reps * k * 4), *o = s;
	size_t r, i;

	*o++ = 'a';
	for (r = 0; r < reps; r++)
		for (i = 0; i < k; i++)
			o += uni_encode(m[i], o);
	*len = (size_t)(o - s);
	return (char *)s;
}

static void
test_short(void)
{
	size_t n;
	char *s;

	/* a + acute (230) + grave below (220): ordered below first, and
	 * a + acute still compose (220 < 230 does not block) */
	s = uni_normalize("a\xcc\x81\xcc\x96", 5, 0, &n);
	CHECK(s && n == 4 && !memcmp(s, "\xc3\xa1\xcc\x96", 4));
	free(s);
	/* equal classes keep their order: acute, grave (both 230) */
	s = uni_normalize("e\xcc\x81\xcc\x80", 5, 0, &n);
	CHECK(s && n == 4 && !memcmp(s, "\xc3\xa9\xcc\x80", 4));
	free(s);
}

static void
test_long_run(void)
{
	static const uint32_t alt[] = { 0x301, 0x316 };	/* 230, 220 */
	static const uint32_t three[] = { 0x301, 0x316, 0x300, 0x334 };
	size_t n, len, i, reps = 20000;
	char *in = marks(alt, 2, reps, &len), *s;
	const unsigned char *p;
	uint32_t cp;

	s = uni_normalize(in, len, 0, &n);
	CHECK(s != NULL);
	/* á, then 20000 grave-below, then the 19999 acutes left over */
	p = (const unsigned char *)s;
	i = uni_decode(p, n, &cp);
	CHECK(cp == 0xe1);
	for (size_t k = 0; k < reps && i < n; k++) {
		i += uni_decode(p + i, n - i, &cp);
		if (cp != 0x316) {
			CHECKF(0, "mark %zu is U+%04X, not U+0316", k, (unsigned)cp);
			break;
		}
	}
	for (size_t k = 0; k + 1 < reps && i < n; k++) {
		i += uni_decode(p + i, n - i, &cp);
		if (cp != 0x301) {
			CHECKF(0, "mark %zu is U+%04X, not U+0301", k, (unsigned)cp);
			break;
		}
	}
	CHECK(i == n);
	free(s);
	free(in);
	/* four classes (230, 220, 230, 1): 1s first, then 220s, then the
	 * 230s in their order (acute, grave, acute, grave, ...) */
	in = marks(three, 4, 5000, &len);
	s = uni_normalize(in, len, 0, &n);
	CHECK(s != NULL);
	p = (const unsigned char *)s;
	i = uni_decode(p, n, &cp);
	CHECK(cp == 0xe1);	/* a + the first acute */
	for (size_t k = 0; k < 5000; k++) {
		i += uni_decode(p + i, n - i, &cp);
		CHECK(cp == 0x334);
	}
	for (size_t k = 0; k < 5000; k++) {
		i += uni_decode(p + i, n - i, &cp);
		CHECK(cp == 0x316);
	}
	i += uni_decode(p + i, n - i, &cp);
	CHECK(cp == 0x300);
	for (size_t k = 1; k < 5000; k++) {
		i += uni_decode(p + i, n - i, &cp);
		CHECK(cp == 0x301);
		i += uni_decode(p + i, n - i, &cp);
		CHECK(cp == 0x300);
	}
	CHECK(i == n);
	free(s);
	free(in);
}

int
main(void)
{
	argv0 = "test_normalize";
	test_short();
	test_long_run();
	return test_end("test_normalize");
}
