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

/* Read config.json's quantization_config: 0 with *on = 0 when there is
 * none, 0 with *on = 1 and q filled for a compressed-tensors
 * pack-quantized int4 weight-only config, else -1 after error() naming
 * what is not supported (another method or format, other bit widths or
 * types, activation or KV cache quantization, act-order, dynamic or
 * sparse weights, transforms). */
int wsrc_ct_config(struct wsrc_ct_config *q, int *on, const char *config);

/* The pack-quantized source: matrices with a NAME.weight_packed are
 * W_Q4 (their struct kern_q4 owned by the source), the rest are asked
 * of the safetensors source st. */
struct wsrc_ct;
/* Read config's quantization_config (refusing before any weight is
 * touched), then wsrc_st_open(st, path); *ct is a new pack-quantized
 * source over st for a quantized folder, NULL for a plain one.  0, or
 * -1 after error() (*ct then NULL or safe to wsrc_ct_close). */
int wsrc_ct_open(struct wsrc_ct **ct, struct wsrc **src, const char *config,
    struct wsrc_st *st, const char *path);
void wsrc_ct_close(struct wsrc_ct *ct);	/* accepts NULL */

#endif
