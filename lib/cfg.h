/* cfg.h: a LLaMA model's config.json (and generation_config.json).
 *
 * Fields are named after the config.json keys, so a grep for a key finds
 * its field.  Defaults are those of HuggingFace LlamaConfig. */
#ifndef CFG_H
#define CFG_H

#define CFG_MAXEOS 16

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
	struct {			/* rope_scaling; rope_type "" when null/absent */
		char rope_type[16];	/* "llama3" (or "default"); others rejected */
		float factor, low_freq_factor, high_freq_factor;
		int original_max_position_embeddings;
	} rope_scaling;
	int bos_token_id;		/* -1 if none */
	int eos_token_id[CFG_MAXEOS];	/* an int or a list in the file */
	int n_eos;			/* 0 if none */
	int pad_token_id;		/* -1 if none */
	char hidden_act[16];		/* "silu" (the only one accepted) */
	struct cfg_gen {		/* generation_config.json's sampling
					 * defaults: -1 (or NAN) if absent */
		int do_sample;		/* 0 or 1 */
		float temperature, top_p, min_p, repetition_penalty;
		int top_k;
		long long max_new_tokens;
	} gen;
};

/* Parse config_path with HF defaults, then genconfig_path (may be NULL) for
 * bos_token_id/eos_token_id, which override.  Checks types, ranges and
 * consistency (positive sizes, heads dividing hidden_size unless head_dim
 * is given, kv heads dividing heads, token ids below vocab_size, ...).
 * 0, or -1 after error() naming the file and the key. */
int cfg_load(struct cfg *c, const char *config_path, const char *genconfig_path);

#endif
