/* fuzz/frame.c: a logits stream of any bytes, read frame by frame as
 * llm-sample reads it.  Every frame read must be whole and finite. */
#include <math.h>

#include "fuzz.h"
#include "../../lib/stream/frame.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct frame_reader r = { 0 };
	struct frame_hdr h;
	const float *x;
	FILE *f;
	uint32_t i;

	if (!size || !(f = fmemopen((void *)data, size, "rb")))
		return 0;
	while (frame_read(&r, f, "<fuzz>", &h, &x) == 1) {
		FUZZ_ASSERT(r.vocab > 0);
		for (i = 0; i < r.vocab; i++)
			FUZZ_ASSERT(isfinite(x[i]));
	}
	frame_reader_free(&r);
	fclose(f);
	return 0;
}
