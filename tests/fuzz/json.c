/* fuzz/json.c: the JSON parser on any bytes, and what it promises of
 * what it accepts: a tree no deeper than JSON_MAXDEPTH, strings
 * NUL-terminated at their length. */
#include "fuzz.h"
#include "../../lib/base/json.h"

static void
walk(const struct json *j, int depth)
{
	size_t i;
	long long v;
	double d;

	FUZZ_ASSERT(depth <= JSON_MAXDEPTH);
	switch (j->type) {
	case JSON_STRING:
		FUZZ_ASSERT(j->u.str[j->len] == 0);
		break;
	case JSON_NUMBER:
		(void)json_num(j, &d);
		(void)json_int(j, -(1LL << 53), 1LL << 53, &v);
		break;
	case JSON_ARRAY:
		for (i = 0; i < j->len; i++)
			walk(&j->u.items[i], depth + 1);
		break;
	case JSON_OBJECT:
		for (i = 0; i < j->len; i++) {
			FUZZ_ASSERT(j->u.members[i].key[j->u.members[i].keylen] == 0);
			walk(&j->u.members[i].value, depth + 1);
		}
		break;
	default:
		break;
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct json_doc d = { 0 };
	char err[128];

	if (json_parse(&d, (const char *)data, size, err, sizeof err) == 0)
		walk(d.root, 0);
	else
		FUZZ_ASSERT(*err);
	json_free(&d);
	return 0;
}
