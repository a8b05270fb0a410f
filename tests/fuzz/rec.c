/* fuzz/rec.c: a token-record stream of any bytes, read by both readers
 * of pipelm-formats(5): rec_read (whole records, llm-logits and llm-gen)
 * and ids_next (id by id, tok-decode).  Both must accept the same
 * records with the same ids, or both refuse the stream. */
#include "fuzz.h"
#include "../../lib/stream/idstream.h"
#include "../../lib/stream/rec.h"

#include <fcntl.h>

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct idstream s;
	struct rec r = { 0 };
	enum rec_fmt fmt;
	const char *path;
	FILE *f;
	size_t k;
	int fd, a, b = 0, id;

	if (!size)
		return 0;
	fmt = data[0] & 1 ? REC_U32 : REC_TEXT;
	if (!(path = fuzz_file(0, ".ids", data + 1, size - 1)) ||
	    !(f = fopen(path, "rb")))
		return 0;
	if ((fd = open(path, O_RDONLY)) < 0) {
		fclose(f);
		return 0;
	}
	ids_init(&s, fd, "<fuzz>", fmt, NULL);
	while ((a = rec_read(&r, f, "<fuzz>", fmt)) == 1) {
		for (k = 0; k < r.n; k++) {
			b = ids_next(&s, &id);
			FUZZ_ASSERT(b == 1 && id == r.ids[k]);
			FUZZ_ASSERT(id >= 0 && id <= REC_MAXID);
		}
		FUZZ_ASSERT((b = ids_next(&s, &id)) == 2);
	}
	b = ids_next(&s, &id);
	/* both at the end, or both refusing (ids_next may see the fault a
	 * few ids after rec_read, which refuses the whole record) */
	if (a == 0)
		FUZZ_ASSERT(b == 0);
	else {
		while (b > 0)
			b = ids_next(&s, &id);
		FUZZ_ASSERT(b < 0);
	}
	rec_free(&r);
	close(fd);
	fclose(f);
	return 0;
}
