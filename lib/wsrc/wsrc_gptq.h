/* wsrc_gptq.h: GPTQ and AWQ int4 checkpoints as a weight source (the
 * layouts and the kernels' matrix: kern/gptq.h). */
#ifndef WSRC_GPTQ_H
#define WSRC_GPTQ_H

#include "wsrc/wsrc.h"

/* The weight source.  wsrc_gptq_open reads config's quantization_config:
 * with none, or one of another method, it returns 0 with *gq NULL and
 * touches nothing (wsrc_ct.h's source is tried next); with quant_method
 * "gptq" or "awq" it takes it or refuses it by name (other bit widths,
 * act-order, activation quantization, other checkpoint formats or AWQ
 * versions, per-module overrides), then opens the safetensors st at
 * path and makes *gq a source over it: a matrix with a NAME.qweight is a
 * W_GPTQ4 or W_AWQ4 matrix over the tensors in the mapping, the rest
 * come from st.  0, or -1 after error() (*gq then NULL or safe to
 * wsrc_gptq_close). */
struct wsrc;
struct wsrc_st;
struct wsrc_gptq;
int wsrc_gptq_open(struct wsrc_gptq **gq, struct wsrc **src,
    const char *config, struct wsrc_st *st, const char *path);
void wsrc_gptq_close(struct wsrc_gptq *gq);	/* accepts NULL */

#endif
