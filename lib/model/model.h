/* model.h: a decoder-only language model (LlamaForCausalLM and the
 * architectures of cfg.h: Qwen2/3, SmolLM3, Mistral, Gemma 2/3, Phi-3):
 * its weights (in place where the weight source allows: wsrc.h), what
 * the forward pass derives from its config, and its worker threads.  A
 * loaded model is read-only: any number of sequences (seq.h) run on it,
 * each with its own KV cache, position and scratch.
 *
 * lib/model/model_load.c  config.json and the weights by HF name into struct model
 * lib/model/model_mode.c  the fast modes: the matrices converted to a wtype
 * lib/model/seq.c         a sequence and the forward pass (seq.h)
 * lib/wsrc/wsrc.c         the weight source (safetensors)
 * lib/kern/wtype.c        the weight types' table */
#ifndef MODEL_H
#define MODEL_H

#include <pthread.h>
#include <stddef.h>
#include <stdio.h>

#include "kern/attn.h"
#include "disk/cfg.h"
#include "kern/kern.h"
#include "disk/mdir.h"
#include "wsrc/wsrc.h"

/* Numeric modes (model_set_mode); MODEL_EXACT is the default. */
enum model_mode {
	MODEL_EXACT,		/* float32 activations, weights widened exactly */
	MODEL_BF16ACT,		/* activations rounded to bf16, vdpbf16ps */
	MODEL_Q8_0,		/* weights and activations in Q8_0, int8 dots */
	MODEL_Q4,		/* weights in 4 bits (kern/quant.h, model_mode.c), f32 dots */
};

/* The RoPE of a layer: none (SmolLM3's no-rope layers), the model's,
 * or the local one of Gemma 3's sliding layers. */
enum layer_rope { ROPE_NONE, ROPE_GLOBAL, ROPE_LOCAL };

struct layer {			/* model.layers.N.* */
	float *attn_norm;	/* input_layernorm.weight (hidden), f32 copy */
	struct mat wq;		/* self_attn.q_proj.weight (heads*head_dim, hidden) */
	struct mat wk;		/* self_attn.k_proj.weight (kv_heads*head_dim, hidden) */
	struct mat wv;		/* self_attn.v_proj.weight (kv_heads*head_dim, hidden) */
	struct mat wo;		/* self_attn.o_proj.weight (hidden, heads*head_dim) */
	float *bq, *bk, *bv, *bo;	/* their .bias, f32 copies; NULL without attention_bias */
	float *ffn_norm;	/* post_attention_layernorm.weight (hidden) */
	struct mat w1;		/* mlp.gate_proj.weight (intermediate, hidden) */
	struct mat w3;		/* mlp.up_proj.weight (intermediate, hidden) */
	struct mat w2;		/* mlp.down_proj.weight (hidden, intermediate) */
	float *b1, *b3, *b2;	/* their .bias with mlp_bias, else NULL */

	/* what the architectures beyond Llama add (NULL or 0: absent) */
	float *q_norm, *k_norm;	/* self_attn.q_norm/k_norm.weight (head_dim):
				 * Qwen3, Gemma 3 */
	float *post_attn_norm;	/* Gemma: post_attention_layernorm.weight
				 * (hidden); ffn_norm is pre_feedforward_ */
	float *post_ffn_norm;	/* Gemma: post_feedforward_layernorm.weight */
	struct mat wqkv;	/* Phi-3: self_attn.qkv_proj.weight, whose row
				 * ranges wq, wk and wv are */
	struct mat w13;		/* Phi-3: mlp.gate_up_proj.weight: w1, w3 */
	enum layer_rope rope;	/* which cos | sin rows it turns by */
	int window;		/* sliding window; 0: full attention */
};

/* The kernel maps a model's file a folio of up to 2 MiB at a fault, so
 * the rows a run reads of a table left in the file (the embeddings, the
 * classifier converted away from them) pile up in its resident size:
 * ~420 MiB of the 1B shape's 525 MiB table in a --quant q8_0 batch
 * (bench/NOTES.md).  Given back, a row costs ~25 us to read again, 3%
 * of the 135M shape's batched step, whose whole table is 56 MiB: kept
 * below this. */
#define MODEL_EMBED_KEEP ((size_t)64 << 20)

struct model {
	struct cfg cfg;
	char *dir;		/* the model folder (model_load) */
	char *gguf;		/* the GGUF file when the model is one
				 * (model_load; its tokenizer), else NULL */
	int builtin;		/* it is the built-in model */
	struct wsrc *ws;	/* where the weights come from (source.h) */
	const char *prefix;	/* of the names: "model." (Gemma 3 in a
				 * multimodal folder: its text model's) */
	struct mat embed;	/* model.embed_tokens.weight (vocab, hidden) */
	struct layer *layers;	/* num_hidden_layers */
	float *norm;		/* model.norm.weight (hidden), f32 copy */
	struct mat lm_head;	/* lm_head.weight (vocab, hidden), or embed when tied */
	size_t weight_bytes;	/* bytes of all weights read per token */
	size_t embed_keep;	/* an embedding table read only for its
				 * rows (not also the classifier in place)
				 * of more bytes than this: each row read
				 * given back to the file (seq.c);
				 * model_load: MODEL_EMBED_KEEP */

	/* derived from the config, read by every sequence */
	int ctx;		/* positions a sequence may have by default:
				 * max_position_embeddings */
	int dim, qdim, kvdim, hd;	/* hidden, heads*head_dim, kv_heads*head_dim, head_dim */
	int rd;			/* rotary dims of a head (partial_rotary_factor) */
	float *inv_freq;	/* (head_dim/2) RoPE frequencies, llama3-scaled */
	float rope_mscale;	/* cos and sin scaled (yarn, longrope), or 1 */
	float *inv_freq_long;	/* (head_dim/2) longrope's long factors'; used
				 * by a call that runs past the original context */
	float *inv_freq_local;	/* (head_dim/2) sliding layers' (Gemma 3);
				 * NULL: none */
	float rope_local_mscale;	/* and their attention factor */
	float embed_scale;	/* Gemma: x = embed * sqrt(hidden); 0: none */
	float attn_scale;	/* score = attn_scale * q.k */
	enum kern_act act;	/* the GLU's activation */
	const struct attn_kern *attn;	/* attention tiles for kern.name */
	int nchunk_max;		/* decode: key ranges per head, at most */
	struct pool *pool;	/* the worker threads, shared by the sequences */
	pthread_mutex_t run;	/* held by a forward pass: one at a time on
				 * the pool */
	double load_seconds;	/* in model_load */
	enum model_mode mode;	/* the mode in use (model_set_mode) */
	int mode_fallback;	/* a mode was asked that this CPU lacks */
	int int8act;		/* --int8-act (model_set_int8act) */
	void *fmem;		/* private: the frequency tables */
	size_t fmemsize;
	void *wmem;		/* private: weights converted for a mode */
	size_t wmemsize;
	void *pmem;		/* private: weights packed for the kernels
				 * (--int8-act, kern.h's kern.pack) */
	size_t pmemsize;
};

/* Find the model named arg (a folder or HF repo id, NULL for
 * $PIPELM_MODEL: see mdir.h) and model_open it. */
int model_load(struct model *m, const char *arg, int threads);
/* Load the model in folder d: config, weights (checked by name, shape and
 * dtype) and threads worker threads (>= 1).  0, or -1 after error(); m
 * is then safe to model_close. */
int model_open(struct model *m, const struct mdir *d, int threads);
void model_close(struct model *m);	/* accepts a zeroed or failed m */
/* Switch a freshly loaded m to mode: every matrix (not the embedding
 * table) is converted, into a private mapping, to the mode's weight
 * type: MODEL_BF16ACT to W_BF16A (BF16 bytes, bf16-act kernels),
 * MODEL_Q8_0 to W_Q8_0, MODEL_Q4 to W_Q4 (model_set_mode).  A model
 * whose matrices are 4-bit already takes no mode.  Where the kernel table lacks the type's
 * kernels (no AVX512-BF16), m stays exact and mode_fallback is set
 * (seq_print_stats says so).  0, or -1 after error() (m is then
 * still usable, exact). */
int model_set_mode(struct model *m, enum model_mode mode);
/* --int8-act, after model_set_mode: every W_Q8_0 and W_Q4 matrix
 * retyped W_Q8_0I and W_Q4I (the same bytes; int8 activations, kern.h;
 * the blocks of 32 then packed by 16 rows where the kernel table reads
 * them so, kern.pack, the same bits),
 * the float ones left (a 4-bit folder's BF16 lm_head).  0, or -1 after
 * error() where no matrix is of those types (float weights without
 * --quant, --bf16-act), one is GPTQ/AWQ or there is no memory for the
 * packed copy (m is then unchanged). */
int model_set_int8act(struct model *m);
/* The name of m's mode: "exact", "bf16-act", "q8_0", "q4", and with
 * --int8-act "q8_0+int8-act", "q4+int8-act", "int8-act" (a 4-bit
 * folder). */
const char *model_mode_name(const struct model *m);

/* The hd/2 RoPE frequencies of config c into inv_freq, as HF computes them
 * (theta^(-2j/hd), rescaled by rope_scaling: model_rope_init). */
void model_rope_freqs(float *inv_freq, const struct cfg *c, int hd);
/* The dim/2 frequencies of rope r with base theta into inv_freq, as
 * modeling_rope_utils.py's _compute_*_parameters (longrope: the long
 * factors if lng, else the short); returns the attention factor cos and
 * sin are scaled by (1 unless yarn or longrope). */
double model_rope_init(float *inv_freq, const struct cfg_rope *r,
    double theta, int dim, int lng);
/* The matrices in the order a token reads them (per layer q, k, v, o,
 * gate, up, down; then lm_head) into v[0..max); returns how many. */
int model_mats(struct model *m, struct mat **v, int max);

#endif
