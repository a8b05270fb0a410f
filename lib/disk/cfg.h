/* cfg.h: a model's config.json (and generation_config.json).
 *
 * Fields are named after the config.json keys, so a grep for a key finds
 * its field.  Defaults are those of HuggingFace LlamaConfig, and of the
 * architecture's own config class where it differs. */
#ifndef CFG_H
#define CFG_H

#define CFG_MAXEOS 16
#define CFG_MAXLAYERS (1 << 12)	/* num_hidden_layers, at most */
#define CFG_MAXROPE 512		/* longrope factors (rotary dim / 2), at most */

/* The architectures (architectures[0] and model_type). */
enum cfg_arch {
	ARCH_LLAMA,		/* LlamaForCausalLM, llama */
	ARCH_QWEN2,		/* Qwen2ForCausalLM, qwen2 */
	ARCH_QWEN3,		/* Qwen3ForCausalLM, qwen3 */
	ARCH_SMOLLM3,		/* SmolLM3ForCausalLM, smollm3 */
	ARCH_MISTRAL,		/* MistralForCausalLM, mistral */
	ARCH_GEMMA2,		/* Gemma2ForCausalLM, gemma2 */
	ARCH_GEMMA3,		/* Gemma3ForCausalLM, gemma3_text; the text
				 * of Gemma3ForConditionalGeneration */
	ARCH_PHI3,		/* Phi3ForCausalLM, phi3 */
};

/* A rope_scaling object (or a rope_parameters one, less its theta), as
 * modeling_rope_utils.py reads it. */
struct cfg_rope {
	char rope_type[16];	/* "" (default), llama3, linear, yarn,
				 * longrope; freqs (GGUF's rope_freqs) */
	float factor, low_freq_factor, high_freq_factor;	/* llama3, linear, yarn */
	int original_max_position_embeddings;	/* llama3, yarn; 0 if absent */
	float attention_factor;	/* yarn, longrope; 0 if absent */
	float beta_fast, beta_slow, mscale, mscale_all_dim;	/* yarn; 0 if absent */
	int truncate;		/* yarn; default 1 */
	int nfactor;		/* longrope: long_factor and short_factor */
	float long_factor[CFG_MAXROPE], short_factor[CFG_MAXROPE];
};

struct cfg {
	char architecture[64];		/* architectures[0], e.g. LlamaForCausalLM; "" if absent */
	char model_type[32];		/* "llama" */
	int hidden_size;		/* default 4096 */
	int intermediate_size;		/* default 11008 */
	int num_hidden_layers;		/* default 32 */
	int num_attention_heads;	/* default 32 */
	int num_key_value_heads;	/* default num_attention_heads */
	int head_dim;			/* default hidden_size / num_attention_heads */
	int vocab_size;			/* default 32000 */
	int max_position_embeddings;	/* default 2048 */
	float rms_norm_eps;		/* default 1e-6 */
	float rope_theta;		/* default 10000 */
	int tie_word_embeddings;	/* default 0 (false) */
	int attention_bias;		/* q/k/v/o biases; default 0 */
	int mlp_bias;			/* gate/up/down biases; default 0 */
	struct cfg_rope rope_scaling;	/* rope_type "" when null/absent */
	int bos_token_id;		/* -1 if none */
	int eos_token_id[CFG_MAXEOS];	/* an int or a list in the file */
	int n_eos;			/* 0 if none */
	int pad_token_id;		/* -1 if none */
	char hidden_act[32];		/* "silu"; Gemma: gelu_pytorch_tanh, gelu */

	/* ---- the architectures beyond Llama (cfg.c: the arch section) ---- */
	enum cfg_arch arch;
	int text_config;		/* the keys came from "text_config" */
	int sliding_window;		/* in effect (Qwen2/3: with
					 * use_sliding_window); 0: none */
	unsigned char sliding[CFG_MAXLAYERS];	/* layer_types[i] is
					 * sliding_attention and a window is set */
	unsigned char no_rope[CFG_MAXLAYERS];	/* SmolLM3: no_rope_layers[i] == 0 */
	float partial_rotary_factor;	/* Phi-3; default 1 */
	float query_pre_attn_scalar;	/* Gemma: scores scaled by its -1/2
					 * power; 0: head_dim's */
	float attn_logit_softcapping;	/* 0: none */
	float final_logit_softcapping;	/* 0: none */
	float rope_local_theta;		/* sliding layers' rope_theta (Gemma 3:
					 * rope_local_base_freq); 0: rope_theta */
	struct cfg_rope rope_local;	/* their scaling (rope_parameters'
					 * sliding_attention); Gemma 3's default */
	int rope_pairs;			/* a GGUF of llama.cpp's rope type
					 * "norm" (llama, smollm3): q and k
					 * rows permuted by the converter, so
					 * RoPE turns adjacent pairs */

	struct cfg_gen {		/* generation_config.json's sampling
					 * defaults: -1 (or NAN) if absent */
		int do_sample;		/* 0 or 1 */
		float temperature, top_p, min_p, repetition_penalty;
		int top_k;
		long long max_new_tokens;
	} gen;
};

/* What a forward needs to know of an architecture beyond a Llama's, a
 * row each in cfg_archs (cfg.c): read by the config reader, the loader
 * (model_load.c), its error message and st-inspect.  Its class's config
 * defaults stay in cfg.c's getarch. */
enum cfg_bias {
	BIAS_CONFIG,		/* q/k/v (and o, where the file has it)
				 * with attention_bias */
	BIAS_QKV,		/* q/k/v biases always, never o's (Qwen2) */
	BIAS_NONE,		/* none, whatever the config says */
};
enum cfg_window {		/* which layers get sliding_window */
	WINDOW_NONE,
	WINDOW_USE,		/* with use_sliding_window: layer_types', or
				 * from max_window_layers on (Qwen2/3) */
	WINDOW_NOROPE,		/* layer_types', or with use_sliding_window
				 * the no-rope layers (SmolLM3) */
	WINDOW_ALL,		/* every layer (Mistral, Phi-3) */
	WINDOW_PATTERN,		/* layer_types', or all but every
				 * sliding_window_pattern-th (Gemma) */
};
struct cfg_arch_info {
	const char *arch, *model_type;	/* architectures[0], model_type */
	enum cfg_arch a;
	unsigned char norm_plus1;	/* RMSNorm scales by (1 + w) (Gemma) */
	unsigned char qk_norm;		/* per-head q_norm and k_norm before RoPE */
	unsigned char post_norms;	/* pre/post_feedforward_layernorm and a
					 * post_attention_layernorm after o_proj */
	unsigned char fused;		/* qkv_proj and gate_up_proj (Phi-3) */
	enum cfg_bias bias;
	unsigned char mlp_bias;		/* reads mlp_bias */
	unsigned char embed_scale;	/* embeddings times sqrt(hidden) */
	unsigned char geglu;		/* hidden_activation, GELU (tanh) by
					 * default, else hidden_act silu */
	unsigned char softcap;		/* reads the soft-capping keys */
	unsigned char no_rope;		/* no_rope_layers (SmolLM3) */
	unsigned char rope_local;	/* sliding layers turn at
					 * rope_local_base_freq (Gemma 3) */
	unsigned char partial_rotary;	/* reads partial_rotary_factor */
	enum cfg_window window;
	unsigned char text_config;	/* the text model of a multimodal
					 * folder, under text_config */
};
extern const struct cfg_arch_info cfg_archs[];
extern const int cfg_narchs;
/* The row of architecture a (the first, for Gemma 3's two). */
const struct cfg_arch_info *cfg_arch_info(enum cfg_arch a);
/* The architecture's name as config.json's architectures[0] writes it. */
const char *cfg_arch_name(enum cfg_arch a);

/* *c zeroed, then what neither config.json nor a GGUF file need say:
 * 2,048 positions, rope_theta 10,000, SiLU, no BOS or pad id, no
 * generation default (-1 or NaN: unset).  Both readers start here. */
void cfg_defaults(struct cfg *c);
/* Parse config_path with HF defaults, then genconfig_path (may be NULL) for
 * bos_token_id/eos_token_id, which override.  Checks types, ranges and
 * consistency (positive sizes, heads dividing hidden_size unless head_dim
 * is given, kv heads dividing heads, token ids below vocab_size, ...).
 * 0, or -1 after error() naming the file and the key. */
int cfg_load(struct cfg *c, const char *config_path, const char *genconfig_path);
/* The same, keeping config.json's document in *doc (json_free'd by the
 * caller, whatever the return) for what else reads it: the weight
 * source's quantization_config (wsrc_open), so the file is parsed once. */
struct json_doc;
int cfg_load_doc(struct cfg *c, struct json_doc *doc, const char *config_path,
    const char *genconfig_path);
/* The same from a GGUF file's metadata (cfg_gguf.c): general.
 * architecture and its keys as convert_hf_to_gguf.py writes them, the
 * rope from rope_freqs (rope_type "freqs": each frequency divided by
 * short_factor[j], as llama.cpp turns) or Phi-3's factor tensors,
 * llama.cpp's defaults where the converter writes nothing.  0, or -1
 * after error() naming the file and the key. */
struct gguf;
int cfg_load_gguf(struct cfg *c, const struct gguf *g);

#endif
