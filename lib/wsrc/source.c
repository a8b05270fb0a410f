/* source.c: the table of weight sources and the choice among them
 * (source.h). */
#include <stdio.h>
#include <string.h>

#include "base/json.h"
#include "base/util.h"
#include "wsrc/source.h"
#include "wsrc/wsrc_ct.h"
#include "wsrc/wsrc_gguf.h"
#include "wsrc/wsrc_gptq.h"

const struct wsrc_kind *const source_kinds[] = {
	&wsrc_st_kind,		/* safetensors, F32, F16, BF16 */
	&wsrc_ct_kind,		/* compressed-tensors pack-quantized int4 */
	&wsrc_gptq_kind,	/* GPTQ and AWQ int4 */
	&wsrc_gguf_kind,	/* a GGUF file, by its magic */
};
const int source_nkinds = sizeof(source_kinds) / sizeof(source_kinds[0]);

/* Whether word w is one of the space-separated words of list. */
static int
has_word(const char *list, const char *w)
{
	size_t n = strlen(w);
	const char *p;

	for (p = list; (p = strstr(p, w)); p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return 1;
	return 0;
}

int
source_open(struct wsrc **src, const struct json *root, const char *config,
    const char *path)
{
	const struct json *qc = root ? json_get(root, "quantization_config") : NULL;
	const char *method = "";
	char names[256];
	int i, n = 0;

	*src = NULL;
	if (qc && qc->type == JSON_NULL)
		qc = NULL;
	if (qc && qc->type != JSON_OBJECT)
		return error("%s: quantization_config is not an object", config);
	if (qc && !(method = json_str(json_get(qc, "quant_method"))))
		return error("%s: quantization_config has no quant_method", config);
	if (!qc && gguf_probe(path))	/* a GGUF file is its own config */
		method = "gguf", qc = NULL;
	for (i = 0; i < source_nkinds; i++)
		if (*method ? *source_kinds[i]->methods &&
		    has_word(source_kinds[i]->methods, method) :
		    !*source_kinds[i]->methods)
			return source_kinds[i]->open(src, qc, config, path);
	for (i = 1; i < source_nkinds && n < (int)sizeof(names); i++)
		if (source_kinds[i] != &wsrc_gguf_kind)
			n += snprintf(names + n, sizeof(names) - n, "%s%s",
			    i > 1 ? ", " : "", source_kinds[i]->name);
	return error("%s: quantization method '%s' is not supported (pipelm "
	    "reads %s)", config, method, names);
}

void
source_close(struct wsrc *src)
{
	if (src)
		src->close(src);
}
