/* wsrc_gptq.h: GPTQ and AWQ int4 checkpoints as a weight source (the
 * layouts and the kernels' matrix: kern/gptq.h). */
#ifndef WSRC_GPTQ_H
#define WSRC_GPTQ_H

#include "wsrc/wsrc.h"

/* The GPTQ and AWQ source (source.h): its quantization_config (quant_method
 * "gptq" or "awq") taken or refused by name (other bit widths,
 * act-order, activation quantization, other checkpoint formats or AWQ
 * versions, per-module overrides); a matrix with a NAME.qweight is a
 * W_GPTQ4 or W_AWQ4 matrix over the tensors in the mapping, the rest
 * come from the safetensors under it. */
extern const struct wsrc_kind wsrc_gptq_kind;

#endif
