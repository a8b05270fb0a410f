/* fuzz/quant.c: a config.json of any bytes through wsrc_ct_config (the
 * quantization_config a 4-bit folder is read by, or refused with) and
 * through wsrc_gptq_open's reading of a GPTQ or AWQ one (lib/kern/gptq.h).
 * What they accept must be what the weight sources rely on. */
#include <string.h>

#include "fuzz.h"
#include "../../lib/kern/gptq.h"
#include "../../lib/wsrc/wsrc_ct.h"
#include "../../lib/wsrc/wsrc_gptq.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file(0, ".json", data, size);
	struct wsrc_ct_config q;
	struct wsrc_gptq *gq = NULL;
	struct wsrc *src = NULL;
	struct wsrc_st st;
	int on = -1, i;

	if (!path)
		return 0;
	/* a taken GPTQ config goes on to open the (absent) weights */
	memset(&st, 0, sizeof(st));
	if (wsrc_gptq_open(&gq, &src, path, &st, "/nonexistent/pipelm-fuzz") == 0)
		FUZZ_ASSERT(!gq && !src);
	wsrc_gptq_close(gq);
	wsrc_st_close(&st);
	if (wsrc_ct_config(&q, &on, path) < 0)
		return 0;
	FUZZ_ASSERT(on == 0 || on == 1);
	if (!on)
		return 0;
	FUZZ_ASSERT(q.ngroup >= 1 && q.ngroup <= WSRC_CT_MAXGROUPS);
	FUZZ_ASSERT(q.symmetric == 0 || q.symmetric == 1);
	for (i = 0; i < q.ngroup; i++)
		FUZZ_ASSERT(q.group[i] >= 0 && q.group[i] <= 1 << 20);
	return 0;
}
