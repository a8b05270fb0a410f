/* wsrc_gguf.h: a GGUF file (disk/gguf.h) as a weight source: matrices
 * asked by their HF names found under llama.cpp's (token_embd,
 * blk.N.attn_q, ...), handed out in place from the mapping as rows of
 * their ggml type's blocks, in the wtype kern/ggml.h names for it. */
#ifndef WSRC_GGUF_H
#define WSRC_GGUF_H

#include "disk/gguf.h"
#include "wsrc/wsrc.h"

/* The GGUF source (source.h's table): taken for a file that starts with
 * GGUF's magic.  Its matrices are what the file holds: llama's q and k
 * rows as convert_hf_to_gguf.py permuted them, Gemma's norms with the 1
 * added (the model reads them so: model_load.c). */
extern const struct wsrc_kind wsrc_gguf_kind;

/* The GGUF file under src, a source of wsrc_gguf_kind (else NULL). */
const struct gguf *wsrc_gguf_file(const struct wsrc *src);

/* llama.cpp's name of HF tensor name (model.layers.N.self_attn.q_proj,
 * with or without .weight or .bias; model.embed_tokens, model.norm,
 * lm_head) into b (n bytes), gemma for Gemma's norms (post_attention_
 * layernorm is another norm there): 0, or -1 for a name it does not
 * know. */
int wsrc_gguf_name(char *b, size_t n, const char *name, int gemma);

#endif
