/* wsrc_ct.h: a compressed-tensors pack-quantized checkpoint (W_Q4, the
 * layout in kern/quant.h) as a weight source: its quantization_config,
 * read or refused by name, and the source over the safetensors. */
#ifndef WSRC_CT_H
#define WSRC_CT_H

#include "wsrc/wsrc.h"

#define WSRC_CT_MAXGROUPS 16	/* config_groups a config may have */

struct wsrc_ct_config {			/* an accepted quantization_config */
	int ngroup;		/* group sizes of its config_groups */
	int group[WSRC_CT_MAXGROUPS];	/* 0: the channel strategy */
	int symmetric;		/* every group symmetric */
};

/* Read a compressed-tensors quantization_config qc (of config.json at
 * config): 0 and q filled for a pack-quantized int4 weight-only config,
 * else -1 after error() naming what is not supported (another format,
 * other bit widths or types, activation or KV cache quantization,
 * act-order, dynamic or sparse weights, transforms). */
struct json;
int wsrc_ct_config(struct wsrc_ct_config *q, const struct json *qc,
    const char *config);

/* The pack-quantized source (source.h): matrices with a
 * NAME.weight_packed are W_Q4 (their struct kern_q4 owned by the
 * source), the rest are asked of the safetensors under it. */
extern const struct wsrc_kind wsrc_ct_kind;

#endif
