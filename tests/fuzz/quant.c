/* fuzz/quant.c: a config.json of any bytes through source_open (the
 * table of weight sources: the quantization_config a 4-bit folder is
 * read by, or refused with, before any weight is opened) and through
 * wsrc_ct_config.  What they accept must be what the weight sources
 * rely on. */
#include <string.h>

#include "fuzz.h"
#include "../../lib/base/json.h"
#include "../../lib/wsrc/source.h"
#include "../../lib/wsrc/wsrc_ct.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file(0, ".json", data, size);
	const struct json *qc;
	struct wsrc_ct_config q;
	struct json_doc doc = { 0 };
	struct wsrc *src = (struct wsrc *)&doc;	/* must be set */
	int i;

	if (!path || json_load(&doc, path) < 0)
		return 0;
	/* whatever the config, the (absent) weights are not opened */
	FUZZ_ASSERT(source_open(&src, doc.root, path,
	    "/nonexistent/pipelm-fuzz") < 0);
	FUZZ_ASSERT(src == NULL);
	qc = json_get(doc.root, "quantization_config");
	if (qc && qc->type == JSON_OBJECT &&
	    wsrc_ct_config(&q, qc, path) == 0) {
		FUZZ_ASSERT(q.ngroup >= 1 && q.ngroup <= WSRC_CT_MAXGROUPS);
		FUZZ_ASSERT(q.symmetric == 0 || q.symmetric == 1);
		for (i = 0; i < q.ngroup; i++)
			FUZZ_ASSERT(q.group[i] >= 0 && q.group[i] <= 1 << 20);
	}
	json_free(&doc);
	return 0;
}
