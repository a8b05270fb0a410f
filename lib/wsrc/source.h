/* source.h: the weight sources, one table (git's refs backends are
 * chosen so): a row per kind of source (wsrc.h's struct wsrc_kind:
 * name, the quant_method values it takes, open, describe), chosen by
 * config.json's quantization_config.  A new format is a wtype row, its
 * kernels, one wsrc_*.c and a line of source.c's table. */
#ifndef SOURCE_H
#define SOURCE_H

#include "wsrc/wsrc.h"

extern const struct wsrc_kind *const source_kinds[];
extern const int source_nkinds;

/* The source of the weights at path (a safetensors file, a sharded
 * index or a folder): the kind whose methods name the quant_method of
 * the quantization_config in root (config.json's parsed document, at
 * config; NULL: none), the plain one without a quantization_config,
 * the GGUF one for a file that starts with GGUF's magic (root NULL),
 * else an error listing the kinds.  0 and *src, or -1 after error()
 * (*src then NULL). */
int source_open(struct wsrc **src, const struct json *root,
    const char *config, const char *path);
void source_close(struct wsrc *src);	/* accepts NULL */

#endif
