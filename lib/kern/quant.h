/* quant.h: 4-bit weights (W_Q4, kern.h's struct kern_q4): the
 * quantization_config of a compressed-tensors pack-quantized checkpoint
 * (read, or refused by name) and its weight source are wsrc/wsrc_ct.h;
 * this is the round-to-nearest quantizer that llm-quant and --quant q4
 * use, a row converter under the kernels.
 *
 * The layout (compressed-tensors, compressors/quantized_compressors/
 * pack_quantized.py): a Linear NAME is NAME.weight_packed (I32 [out,
 * ceil(in / 8)], eight 4-bit values a word, element j at bits 4 (j % 8),
 * each stored as q + 8), NAME.weight_scale ([out, ceil(in / group)],
 * BF16, F16 or F32; [out, 1] for the channel strategy),
 * NAME.weight_zero_point when asymmetric (I32 [ceil(out / 8), groups],
 * packed the same way along dim 0, stored + 8) and NAME.weight_shape
 * (I32 [2]: out, in).  Weight = (q - zero_point) * scale. */
#ifndef QUANT_H
#define QUANT_H

#include <stdint.h>

#include "kern/wtype.h"

/* Round-to-nearest 4-bit quantization of one group x[0..n) with the
 * min-max scale, as compressed-tensors' calculate_qparams and quantize
 * do: symmetric s = max|x| / 7.5, z = 0; asymmetric over [min(x, 0),
 * max(x, 0)] s = (max - min) / 15, z = round(-8 - min / s) in [-8, 7];
 * s at least FLT_EPSILON, then rounded to the scale type st (W_F32,
 * W_F16, W_BF16) before use; q = clamp(round(x / s + z), -8, 7) (round
 * half to even).  q + 8 or'ed into the packed words qw as elements
 * j0 .. j0 + n - 1 (bits 4 (j % 8) of word j / 8), z + 8 into *zn;
 * returns s as stored (widened). */
float quant_group(uint32_t *qw, int j0, int *zn, const float *x, int n,
    int sym, enum wtype st);
/* Quantize row x[0..cols) in groups of group: its ceil(cols / 8) words
 * into qw, ceil(cols / group) scales of type st into s, and for an
 * asymmetric zw (not NULL) its zero points or'ed into nibble r % 8 of
 * the ceil(cols / group) words at zw (zeroed beforehand). */
void quant_row(uint32_t *qw, void *s, uint32_t *zw, int r, const float *x,
    int cols, int group, enum wtype st);

/* Groups of --quant q4 (model_set_mode) and llm-quant's default. */
#define QUANT_Q4_GROUP 32

#endif
