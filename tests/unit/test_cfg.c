/* test_cfg.c: config.json defaults (HuggingFace LlamaConfig), overrides
 * from generation_config.json, rope_scaling, and refusals; mdir_resolve
 * on folders and a fake HuggingFace cache. */
#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../lib/disk/cfg.h"
#include "../../lib/disk/mdir.h"
#include "../../lib/base/util.h"
#include "test.h"



static char dir[] = "/tmp/test_cfg_XXXXXX";
static char cpath[256], gpath[256];

static void
put(const char *path, const char *s)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(s, f) < 0 || fclose(f)) {
		perror(path);
		exit(1);
	}
}

/* cfg_load of config text s (and generation config g unless NULL). */
static int
load(struct cfg *c, const char *s, const char *g)
{
	put(cpath, s);
	if (g)
		put(gpath, g);
	return cfg_load(c, cpath, g ? gpath : NULL);
}

static void
test_defaults(void)
{
	struct cfg c;

	CHECK(load(&c, "{}", NULL) == 0);
	CHECK(c.hidden_size == 4096 && c.intermediate_size == 11008);
	CHECK(c.num_hidden_layers == 32 && c.num_attention_heads == 32);
	CHECK(c.num_key_value_heads == 32 && c.head_dim == 128);
	CHECK(c.vocab_size == 32000 && c.max_position_embeddings == 2048);
	CHECK(c.rms_norm_eps == 1e-6f && c.rope_theta == 10000.0f);
	CHECK(!c.tie_word_embeddings && !c.attention_bias && !c.mlp_bias);
	CHECK(c.bos_token_id == -1 && c.n_eos == 0 && c.pad_token_id == -1);
	CHECK(!*c.rope_scaling.rope_type && !*c.architecture);
	CHECK(!strcmp(c.hidden_act, "silu"));
	/* null means the default */
	CHECK(load(&c, "{\"num_key_value_heads\": null, \"head_dim\": null,"
	    " \"rope_scaling\": null, \"bos_token_id\": null,"
	    " \"hidden_size\": 64, \"num_attention_heads\": 4}", NULL) == 0);
	CHECK(c.num_key_value_heads == 4 && c.head_dim == 16 &&
	    c.bos_token_id == -1);
}

static void
test_smollm2(void)
{
	struct cfg c;

	/* the keys of SmolLM2-135M's config.json */
	CHECK(load(&c, "{\"architectures\": [\"LlamaForCausalLM\"],"
	    "\"attention_bias\": false, \"bos_token_id\": 0, \"eos_token_id\": 0,"
	    "\"hidden_act\": \"silu\", \"hidden_size\": 576,"
	    "\"initializer_range\": 0.041666666666666664,"
	    "\"intermediate_size\": 1536, \"is_llama_config\": true,"
	    "\"max_position_embeddings\": 8192, \"model_type\": \"llama\","
	    "\"num_attention_heads\": 9, \"num_hidden_layers\": 30,"
	    "\"num_key_value_heads\": 3, \"pretraining_tp\": 1,"
	    "\"rms_norm_eps\": 1e-05, \"rope_interleaved\": false,"
	    "\"rope_scaling\": null, \"rope_theta\": 100000,"
	    "\"tie_word_embeddings\": true, \"torch_dtype\": \"bfloat16\","
	    "\"transformers_version\": \"4.40.1\", \"use_cache\": true,"
	    "\"vocab_size\": 49152}", NULL) == 0);
	CHECK(!strcmp(c.architecture, "LlamaForCausalLM"));
	CHECK(!strcmp(c.model_type, "llama"));
	CHECK(c.hidden_size == 576 && c.num_hidden_layers == 30);
	CHECK(c.num_attention_heads == 9 && c.num_key_value_heads == 3);
	CHECK(c.head_dim == 64 && c.vocab_size == 49152);
	CHECK(c.rope_theta == 100000.0f && c.rms_norm_eps == 1e-5f);
	CHECK(c.tie_word_embeddings == 1 && c.bos_token_id == 0);
	CHECK(c.n_eos == 1 && c.eos_token_id[0] == 0);
}

static void
test_tokens(void)
{
	struct cfg c;

	CHECK(load(&c, "{\"vocab_size\": 300, \"eos_token_id\": [5, 7, 9]}",
	    NULL) == 0);
	CHECK(c.n_eos == 3 && c.eos_token_id[2] == 9);
	/* generation_config.json overrides what it has */
	CHECK(load(&c, "{\"vocab_size\": 300, \"bos_token_id\": 1,"
	    " \"eos_token_id\": 2}", "{\"eos_token_id\": [3, 4]}") == 0);
	CHECK(c.bos_token_id == 1 && c.n_eos == 2 && c.eos_token_id[1] == 4);
	CHECK(load(&c, "{\"vocab_size\": 300, \"eos_token_id\": [1, 2]}",
	    "{\"bos_token_id\": 7, \"eos_token_id\": 8}") == 0);
	CHECK(c.bos_token_id == 7 && c.n_eos == 1 && c.eos_token_id[0] == 8);
	CHECK(load(&c, "{\"eos_token_id\": []}", NULL) == 0 && c.n_eos == 0);
	CHECK(load(&c, "{\"vocab_size\": 300}", "{\"eos_token_id\": 300}") < 0);
	CHECK(load(&c, "{}", "[]") < 0);
	CHECK(load(&c, "{\"eos_token_id\": [1,2,3,4,5,6,7,8,9,10,11,12,13,"
	    "14,15,16,17]}", NULL) < 0);
	CHECK(cfg_load(&c, cpath, "/nonexistent/generation_config.json") < 0);
}

static void
test_rope(void)
{
	struct cfg c;

	/* Llama 3.2 */
	CHECK(load(&c, "{\"rope_scaling\": {\"factor\": 32.0,"
	    " \"high_freq_factor\": 4.0, \"low_freq_factor\": 1.0,"
	    " \"original_max_position_embeddings\": 8192,"
	    " \"rope_type\": \"llama3\"}, \"rope_theta\": 500000.0}", NULL) == 0);
	CHECK(!strcmp(c.rope_scaling.rope_type, "llama3"));
	CHECK(c.rope_scaling.factor == 32 && c.rope_scaling.low_freq_factor == 1 &&
	    c.rope_scaling.high_freq_factor == 4 &&
	    c.rope_scaling.original_max_position_embeddings == 8192);
	/* the older "type" key, and "default" meaning none */
	CHECK(load(&c, "{\"rope_scaling\": {\"type\": \"default\"}}", NULL) == 0);
	CHECK(!*c.rope_scaling.rope_type);
	CHECK(load(&c, "{\"rope_scaling\": {\"type\": \"dynamic\", \"factor\": 2}}", NULL) < 0);
	CHECK(load(&c, "{\"rope_scaling\": {\"factor\": 2}}", NULL) < 0);
	CHECK(load(&c, "{\"rope_scaling\": {\"rope_type\": \"llama3\","
	    " \"factor\": 0.5, \"high_freq_factor\": 4.0, \"low_freq_factor\": 1.0,"
	    " \"original_max_position_embeddings\": 8192}}", NULL) < 0);
}

static void
test_refusals(void)
{
	static const char *const bad[] = {
		"[]", "{\"hidden_size\": 0}", "{\"hidden_size\": -64}",
		"{\"hidden_size\": 64.5}", "{\"hidden_size\": \"64\"}",
		/* integral floats: transformers' layers fail on a float
		 * size, so an integer field takes an integer literal */
		"{\"hidden_size\": 64.0}", "{\"vocab_size\": 3e2}",
		"{\"eos_token_id\": [2.0]}", "{\"bos_token_id\": -0}",
		"{\"rope_scaling\": {\"rope_type\": \"llama3\", \"factor\": 8.0,"
		" \"high_freq_factor\": 4.0, \"low_freq_factor\": 1.0,"
		" \"original_max_position_embeddings\": 8192.0}}",
		"{\"hidden_size\": true}", "{\"hidden_size\": 2000000}",
		"{\"hidden_size\": 100, \"num_attention_heads\": 3}",
		"{\"num_attention_heads\": 32, \"num_key_value_heads\": 5}",
		"{\"head_dim\": 3}", "{\"hidden_size\": 6, \"num_attention_heads\": 2}",
		"{\"rms_norm_eps\": -1}", "{\"rms_norm_eps\": 0}",
		"{\"rope_theta\": 1e50}", "{\"rope_theta\": null, \"rms_norm_eps\": \"x\"}",
		"{\"tie_word_embeddings\": \"yes\"}", "{\"attention_bias\": 0}",
		"{\"vocab_size\": 0}", "{\"bos_token_id\": 32000}",
		"{\"bos_token_id\": 1.5}", "{\"eos_token_id\": \"2\"}",
		"{\"eos_token_id\": [2, -1]}", "{\"hidden_act\": \"gelu\"}",
		"{\"hidden_act\": 1}", "{\"model_type\": \"bert\"}",
		"{\"architectures\": [1]}", "{\"architectures\": {}}",
		"{\"rope_scaling\": []}", "{\"rope_scaling\": {\"rope_type\": \"yarn\"}}",
		"{\"max_position_embeddings\": 0}", "{\"num_hidden_layers\": 1e9}",
		"{\"hidden_act\": \"silu_with_a_name_far_too_long\"}",
		"{", "",
	};
	struct cfg c;
	size_t i;

	for (i = 0; i < LEN(bad); i++)
		if (load(&c, bad[i], NULL) == 0) {
			printf("must refuse: %s\n", bad[i]);
			fails++;
		}
	/* head_dim makes a non-dividing hidden size fine */
	CHECK(load(&c, "{\"hidden_size\": 100, \"num_attention_heads\": 3,"
	    " \"head_dim\": 32}", NULL) == 0 && c.head_dim == 32);
	CHECK(cfg_load(&c, "/nonexistent/config.json", NULL) < 0);
}

/* The architectures' keys as their config classes read them. */
static void
test_arch(void)
{
	static const char *const bad[] = {
		"{\"model_type\": \"qwen2_moe\"}",
		"{\"architectures\": [\"Qwen2ForCausalLM\"], \"model_type\": \"llama\"}",
		"{\"rope_scaling\": {\"rope_type\": \"dynamic\", \"factor\": 2}}",
		"{\"rope_scaling\": {\"rope_type\": \"linear\"}}",
		"{\"rope_parameters\": {\"rope_type\": \"ntk\", \"factor\": 2}}",
		"{\"model_type\": \"gemma2\", \"hidden_activation\": \"relu\"}",
		"{\"model_type\": \"gemma3_text\", \"use_bidirectional_attention\": true}",
		"{\"model_type\": \"gemma3\"}",
		"{\"model_type\": \"gemma2\", \"num_hidden_layers\": 2,"
		" \"layer_types\": [\"full_attention\", \"chunked_attention\"]}",
		"{\"model_type\": \"smollm3\", \"num_hidden_layers\": 2,"
		" \"no_rope_layers\": [1]}",
		"{\"model_type\": \"phi3\", \"rope_scaling\": {\"type\": \"longrope\","
		" \"long_factor\": [1, 2], \"short_factor\": [1, 2]}}",
		"{\"model_type\": \"phi3\", \"partial_rotary_factor\": 1.5}",
		/* read by transformers' RoPE init, not by Llama's attention */
		"{\"partial_rotary_factor\": 0.01}",
		"{\"model_type\": \"qwen3\", \"partial_rotary_factor\": 0.5}",
		"{\"rope_parameters\": {\"rope_type\": \"default\","
		" \"rope_theta\": 10000.0, \"partial_rotary_factor\": 0.5}}",
	};
	struct cfg c;
	size_t i;

	for (i = 0; i < LEN(bad); i++)
		if (load(&c, bad[i], NULL) == 0) {
			printf("must refuse: %s\n", bad[i]);
			fails++;
		}
	/* 1 is every dimension, as those architectures rotate */
	CHECK(load(&c, "{\"partial_rotary_factor\": 1.0}", NULL) == 0 &&
	    c.partial_rotary_factor == 1);
	/* Qwen2: the window only with use_sliding_window, from
	 * max_window_layers on */
	CHECK(load(&c, "{\"model_type\": \"qwen2\", \"num_hidden_layers\": 3,"
	    " \"sliding_window\": 8, \"use_sliding_window\": false,"
	    " \"max_window_layers\": 1}", NULL) == 0);
	CHECK(c.arch == ARCH_QWEN2 && c.attention_bias && !c.sliding_window &&
	    !c.sliding[0] && !c.sliding[1] && !c.sliding[2]);
	CHECK(load(&c, "{\"model_type\": \"qwen2\", \"num_hidden_layers\": 3,"
	    " \"sliding_window\": 8, \"use_sliding_window\": true,"
	    " \"max_window_layers\": 1}", NULL) == 0);
	CHECK(c.sliding_window == 8 && !c.sliding[0] && c.sliding[1] && c.sliding[2]);
	/* max_window_layers absent: Qwen2Config's 28 */
	CHECK(load(&c, "{\"model_type\": \"qwen3\", \"num_hidden_layers\": 30,"
	    " \"sliding_window\": 8, \"use_sliding_window\": true}", NULL) == 0);
	CHECK(c.sliding_window == 8 && !c.sliding[0] && !c.sliding[27] &&
	    c.sliding[28] && c.sliding[29]);
	/* Mistral: every layer; null: none */
	CHECK(load(&c, "{\"model_type\": \"mistral\", \"num_hidden_layers\": 2}",
	    NULL) == 0 && c.sliding_window == 4096 && c.sliding[0] && c.sliding[1]);
	CHECK(load(&c, "{\"model_type\": \"mistral\", \"num_hidden_layers\": 2,"
	    " \"sliding_window\": null}", NULL) == 0 && !c.sliding[0]);
	/* Gemma 2: alternating from layer 0, soft-caps by default */
	CHECK(load(&c, "{\"model_type\": \"gemma2\", \"num_hidden_layers\": 3,"
	    " \"hidden_size\": 64, \"num_attention_heads\": 4}", NULL) == 0);
	CHECK(c.sliding[0] && !c.sliding[1] && c.sliding[2] &&
	    c.attn_logit_softcapping == 50 && c.final_logit_softcapping == 30 &&
	    c.tie_word_embeddings && !strcmp(c.hidden_act, "gelu_pytorch_tanh"));
	/* Gemma 3: five sliding layers in six, the local base; v5's
	 * rope_parameters per layer type */
	CHECK(load(&c, "{\"model_type\": \"gemma3_text\", \"num_hidden_layers\": 7,"
	    " \"attn_logit_softcapping\": null, \"rope_parameters\":"
	    " {\"full_attention\": {\"rope_type\": \"linear\", \"factor\": 8.0,"
	    " \"rope_theta\": 1000000.0}, \"sliding_attention\":"
	    " {\"rope_type\": \"default\", \"rope_theta\": 10000.0}}}", NULL) == 0);
	CHECK(c.sliding[0] && c.sliding[4] && !c.sliding[5] && c.sliding[6] &&
	    !c.attn_logit_softcapping && c.rope_theta == 1e6f &&
	    c.rope_local_theta == 1e4f && !strcmp(c.rope_scaling.rope_type,
	    "linear") && c.rope_scaling.factor == 8 && !*c.rope_local.rope_type);
	/* a multimodal folder: the text_config's keys */
	CHECK(load(&c, "{\"architectures\": [\"Gemma3ForConditionalGeneration\"],"
	    " \"model_type\": \"gemma3\", \"text_config\": {\"hidden_size\": 96,"
	    " \"model_type\": \"gemma3_text\", \"num_attention_heads\": 2,"
	    " \"num_key_value_heads\": 1}}",
	    NULL) == 0 && c.text_config && c.hidden_size == 96 &&
	    !strcmp(c.architecture, "Gemma3ForConditionalGeneration"));
	/* gemma-3-4b-it's text_config, all of it: the rest is
	 * Gemma3TextConfig's defaults */
	CHECK(load(&c, "{\"architectures\": [\"Gemma3ForConditionalGeneration\"],"
	    " \"model_type\": \"gemma3\", \"text_config\": {\"hidden_size\": 2560,"
	    " \"intermediate_size\": 10240, \"model_type\": \"gemma3_text\","
	    " \"num_hidden_layers\": 34, \"rope_scaling\": {\"factor\": 8.0,"
	    " \"rope_type\": \"linear\"}, \"sliding_window\": 1024}}", NULL) == 0);
	CHECK(c.num_attention_heads == 8 && c.num_key_value_heads == 4 &&
	    c.head_dim == 256 && c.vocab_size == 262208 &&
	    c.max_position_embeddings == 131072 && c.bos_token_id == 2 &&
	    c.n_eos == 1 && c.eos_token_id[0] == 1 && c.tie_word_embeddings &&
	    c.query_pre_attn_scalar == 256 && c.rope_theta == 1e6f &&
	    c.rope_local_theta == 1e4f && c.sliding_window == 1024 &&
	    c.sliding[4] && !c.sliding[5] && c.sliding[6] && !c.sliding[29]);
	/* Gemma 2's, Qwen3's, SmolLM3's own defaults */
	CHECK(load(&c, "{\"model_type\": \"gemma2\"}", NULL) == 0 &&
	    c.vocab_size == 256000 && c.hidden_size == 2304 && c.head_dim == 256 &&
	    c.num_key_value_heads == 4 && c.max_position_embeddings == 8192 &&
	    c.rope_theta == 10000);
	CHECK(load(&c, "{\"model_type\": \"qwen3\"}",
	    NULL) == 0 && c.head_dim == 128 && c.num_key_value_heads == 32 &&
	    c.vocab_size == 151936);
	CHECK(load(&c, "{\"model_type\": \"smollm3\"}", NULL) == 0 &&
	    c.num_hidden_layers == 36 && c.num_key_value_heads == 4 &&
	    c.head_dim == 128 && c.bos_token_id == 128000 && c.rope_theta == 2e6f);
	/* SmolLM3: no_rope_layers, else every fourth layer */
	CHECK(load(&c, "{\"model_type\": \"smollm3\", \"num_hidden_layers\": 8}",
	    NULL) == 0 && !c.no_rope[0] && c.no_rope[3] && c.no_rope[7] &&
	    !c.no_rope[4]);
	CHECK(load(&c, "{\"model_type\": \"smollm3\", \"num_hidden_layers\": 2,"
	    " \"no_rope_layers\": [0, 1]}", NULL) == 0 && c.no_rope[0] &&
	    !c.no_rope[1]);
	/* SmolLM3's window without layer_types: on the no-rope layers
	 * (SmolLM3Config), max_window_layers is not its key */
	CHECK(load(&c, "{\"model_type\": \"smollm3\", \"num_hidden_layers\": 8,"
	    " \"sliding_window\": 8, \"use_sliding_window\": true,"
	    " \"max_window_layers\": 1}", NULL) == 0);
	CHECK(c.sliding_window == 8 && !c.sliding[0] && !c.sliding[1] &&
	    c.sliding[3] && !c.sliding[4] && c.sliding[7]);
	CHECK(load(&c, "{\"model_type\": \"smollm3\", \"num_hidden_layers\": 8,"
	    " \"sliding_window\": 8}", NULL) == 0 && !c.sliding_window &&
	    !c.sliding[3]);
	/* Phi-3: longrope's factor from the original context */
	CHECK(load(&c, "{\"model_type\": \"phi3\", \"hidden_size\": 64,"
	    " \"num_attention_heads\": 4, \"max_position_embeddings\": 131072,"
	    " \"original_max_position_embeddings\": 4096,"
	    " \"partial_rotary_factor\": 0.5, \"rope_scaling\": {\"type\":"
	    " \"longrope\", \"long_factor\": [1, 2, 3, 4],"
	    " \"short_factor\": [1, 1, 1, 1]}}", NULL) == 0);
	CHECK(c.rope_scaling.factor == 32 && c.rope_scaling.nfactor == 4 &&
	    c.rope_scaling.original_max_position_embeddings == 4096 &&
	    c.rope_scaling.long_factor[3] == 4);
	/* Phi3Config's earlier names of longrope: su, yarn; yarn elsewhere */
	CHECK(load(&c, "{\"model_type\": \"phi3\", \"hidden_size\": 64,"
	    " \"num_attention_heads\": 4, \"rope_scaling\": {\"type\": \"su\","
	    " \"long_factor\": [1, 2, 3, 4, 5, 6, 7, 8], \"short_factor\":"
	    " [1, 1, 1, 1, 1, 1, 1, 1], \"factor\": 2.0}}", NULL) == 0 &&
	    !strcmp(c.rope_scaling.rope_type, "longrope"));
	CHECK(load(&c, "{\"model_type\": \"phi3\", \"hidden_size\": 64,"
	    " \"num_attention_heads\": 4, \"rope_scaling\": {\"type\": \"yarn\","
	    " \"long_factor\": [1, 2, 3, 4, 5, 6, 7, 8], \"short_factor\":"
	    " [1, 1, 1, 1, 1, 1, 1, 1], \"factor\": 2.0}}", NULL) == 0 &&
	    !strcmp(c.rope_scaling.rope_type, "longrope"));
	CHECK(load(&c, "{\"rope_scaling\": {\"type\": \"yarn\", \"factor\": 2.0}}",
	    NULL) == 0 && !strcmp(c.rope_scaling.rope_type, "yarn"));
	CHECK(load(&c, "{\"rope_scaling\": {\"type\": \"su\", \"factor\": 2.0}}",
	    NULL) < 0);
	/* v5: the original context in rope_parameters, the factor its ratio */
	CHECK(load(&c, "{\"model_type\": \"phi3\", \"hidden_size\": 64,"
	    " \"num_attention_heads\": 4, \"max_position_embeddings\": 131072,"
	    " \"partial_rotary_factor\": 0.5, \"rope_parameters\": {\"rope_type\":"
	    " \"longrope\", \"rope_theta\": 10000.0, \"long_factor\": [1, 2, 3, 4],"
	    " \"short_factor\": [1, 1, 1, 1],"
	    " \"original_max_position_embeddings\": 4096}}", NULL) == 0);
	CHECK(c.rope_scaling.factor == 32 &&
	    c.rope_scaling.original_max_position_embeddings == 4096);
	/* yarn: v5's flat rope_parameters, the original context defaulted */
	CHECK(load(&c, "{\"max_position_embeddings\": 8192, \"rope_parameters\":"
	    " {\"rope_type\": \"yarn\", \"factor\": 4.0, \"rope_theta\": 500.0,"
	    " \"beta_fast\": 16}}", NULL) == 0 && c.rope_theta == 500 &&
	    c.rope_scaling.beta_fast == 16 &&
	    c.rope_scaling.original_max_position_embeddings == 8192 &&
	    c.rope_scaling.truncate);
}

static void
test_mdir(void)
{
	char p[512], p2[512], hub[300];
	struct mdir m;

	/* a folder: config.json required, the rest optional */
	CHECK(mdir_resolve(&m, dir) == 0);
	CHECK(m.config && m.genconfig && !m.weights && !m.tokenizer);
	mdir_free(&m);
	snprintf(p, sizeof(p), "%s/model.safetensors.index.json", dir);
	put(p, "{}");
	snprintf(p, sizeof(p), "%s/tokenizer.json", dir);
	put(p, "{}");
	CHECK(mdir_resolve(&m, dir) == 0);
	CHECK(m.weights && strstr(m.weights, "index.json") && m.tokenizer);
	mdir_free(&m);
	unsetenv("PIPELM_MODEL");
	CHECK(mdir_resolve(&m, NULL) < 0);
	setenv("PIPELM_MODEL", dir, 1);
	CHECK(mdir_resolve(&m, NULL) == 0 && !strcmp(m.dir, dir));
	mdir_free(&m);
	unsetenv("PIPELM_MODEL");
	CHECK(mdir_resolve(&m, "/nonexistent/dir") < 0);
	CHECK(mdir_resolve(&m, cpath) < 0);	/* a file, not a folder */
	CHECK(m.dir == NULL);
	mdir_free(&m);

	/* the cache: HF_HUB_CACHE/models--org--name/snapshots/REV */
	snprintf(hub, sizeof(hub), "%s/hub", dir);
	snprintf(p, sizeof(p), "%s/models--org--name/snapshots/rev1", hub);
	CHECK(mkdir(hub, 0777) == 0);
	snprintf(p, sizeof(p), "%s/models--org--name", hub);
	CHECK(mkdir(p, 0777) == 0);
	snprintf(p, sizeof(p), "%s/models--org--name/snapshots", hub);
	CHECK(mkdir(p, 0777) == 0);
	snprintf(p, sizeof(p), "%s/models--org--name/snapshots/rev1", hub);
	CHECK(mkdir(p, 0777) == 0);
	snprintf(p, sizeof(p), "%s/models--org--name/snapshots/rev1/config.json", hub);
	put(p, "{}");
	setenv("HF_HUB_CACHE", hub, 1);
	CHECK(mdir_resolve(&m, "org/name") == 0 && strstr(m.dir, "rev1"));
	mdir_free(&m);
	CHECK(mdir_resolve(&m, "org/other") < 0);
	CHECK(mdir_resolve(&m, "../x") < 0);
	/* models--a--b--c holds neither a--b/c nor a/b--c: the Hub refuses
	 * "--" in an id, as llm-fetch does */
	snprintf(p, sizeof(p), "%s/models--org--name", hub);
	snprintf(p2, sizeof(p2), "%s/models--a--b--c", hub);
	CHECK(rename(p, p2) == 0);
	CHECK(mdir_resolve(&m, "a--b/c") < 0);
	CHECK(mdir_resolve(&m, "a/b--c") < 0);
	CHECK(mdir_resolve(&m, "a/b..c") < 0);
	CHECK(mdir_resolve(&m, "a/b.git") < 0);
	CHECK(rename(p2, p) == 0);
	snprintf(p, sizeof(p), "%s/models--org--name/snapshots/rev1/config.json", hub);
	unsetenv("HF_HUB_CACHE");
	unlink(p);
	snprintf(p, sizeof(p), "%s/models--org--name/snapshots/rev1", hub);
	rmdir(p);
	snprintf(p, sizeof(p), "%s/models--org--name/snapshots", hub);
	rmdir(p);
	snprintf(p, sizeof(p), "%s/models--org--name", hub);
	rmdir(p);
	rmdir(hub);
	snprintf(p, sizeof(p), "%s/model.safetensors.index.json", dir);
	unlink(p);
	snprintf(p, sizeof(p), "%s/tokenizer.json", dir);
	unlink(p);
}

int
main(void)
{
	int saved;

	argv0 = "test_cfg";
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(cpath, sizeof(cpath), "%s/config.json", dir);
	snprintf(gpath, sizeof(gpath), "%s/generation_config.json", dir);
	/* library messages are expected here: keep them out of the log
	 * (stderr comes back before the end, for the sanitizers' reports) */
	fflush(stderr);
	if ((saved = dup(2)) < 0 || !freopen("/dev/null", "w", stderr))
		return 1;
	test_defaults();
	test_smollm2();
	test_tokens();
	test_rope();
	test_refusals();
	test_arch();
	test_mdir();
	unlink(cpath);
	unlink(gpath);
	rmdir(dir);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	return test_end("test_cfg");
}
