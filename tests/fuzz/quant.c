/* fuzz/quant.c: a config.json of any bytes through quant_config (the
 * quantization_config a 4-bit folder is read by, or refused with).
 * What it accepts must be what the weight source relies on. */
#include "fuzz.h"
#include "../../lib/quant.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file(0, ".json", data, size);
	struct quant q;
	int on = -1, i;

	if (!path)
		return 0;
	if (quant_config(&q, &on, path) < 0)
		return 0;
	FUZZ_ASSERT(on == 0 || on == 1);
	if (!on)
		return 0;
	FUZZ_ASSERT(q.ngroup >= 1 && q.ngroup <= QUANT_MAXGROUPS);
	FUZZ_ASSERT(q.symmetric == 0 || q.symmetric == 1);
	for (i = 0; i < q.ngroup; i++)
		FUZZ_ASSERT(q.group[i] >= 0 && q.group[i] <= 1 << 20);
	return 0;
}
