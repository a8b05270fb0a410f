/* cfg.c: config.json -> struct cfg.  Defaults and the null-means-default
 * rule follow HuggingFace transformers' LlamaConfig
 * (models/llama/configuration_llama.py) and rope_config_validation
 * (modeling_rope_utils.py). */
#include <limits.h>
#include <math.h>
#include <string.h>

#include "disk/cfg.h"
#include "base/json.h"
#include "base/util.h"

/* The member key of obj, or NULL when absent or null (HF: "use the default"). */
static const struct json *
get(const struct json *obj, const char *key)
{
	const struct json *v = json_get(obj, key);

	return v && v->type != JSON_NULL ? v : NULL;
}

/* An integer key in [min, max]: 0 (left alone when absent), or -1. */
static int
getint(const struct json *o, const char *path, const char *key, int min,
    int max, int *out)
{
	const struct json *v = get(o, key);
	long long x;

	if (!v)
		return 0;
	if (v->type != JSON_NUMBER)
		return error("%s: %s: %s instead of an integer", path, key,
		    json_typename(v->type));
	if (json_int(v, min, max, &x) < 0)
		return error("%s: %s: %.*s is not an integer in [%d, %d]", path,
		    key, (int)(v->len < 40 ? v->len : 40), v->u.num, min, max);
	*out = (int)x;
	return 0;
}

/* A finite positive number key: 0 (left alone when absent), or -1. */
static int
getpos(const struct json *o, const char *path, const char *key, float *out)
{
	const struct json *v = get(o, key);
	double x;

	if (!v)
		return 0;
	if (v->type != JSON_NUMBER)
		return error("%s: %s: %s instead of a number", path, key,
		    json_typename(v->type));
	if (json_num(v, &x) < 0 || !isfinite(x) || x <= 0 ||
	    !isfinite((float)x) || (float)x <= 0)
		return error("%s: %s: %.*s is not a positive float", path, key,
		    (int)(v->len < 40 ? v->len : 40), v->u.num);
	*out = (float)x;
	return 0;
}

static int
getbool(const struct json *o, const char *path, const char *key, int *out)
{
	const struct json *v = get(o, key);

	if (!v)
		return 0;
	if (json_bool(v) < 0)
		return error("%s: %s: %s instead of true or false", path, key,
		    json_typename(v->type));
	*out = json_bool(v);
	return 0;
}

static int
getstr(const struct json *o, const char *path, const char *key, char *out,
    size_t size)
{
	const struct json *v = get(o, key);

	if (!v)
		return 0;
	if (v->type != JSON_STRING)
		return error("%s: %s: %s instead of a string", path, key,
		    json_typename(v->type));
	if (v->len >= size || strlen(v->u.str) != v->len)
		return error("%s: %s: '%.40s' is too long or holds a NUL", path,
		    key, v->u.str);
	memcpy(out, v->u.str, v->len + 1);
	return 0;
}

/* A number key in [min, max] into *out (NAN stays when absent). */
static int
getreal(const struct json *o, const char *path, const char *key, double min,
    double max, float *out)
{
	const struct json *v = get(o, key);
	double x;

	if (!v)
		return 0;
	if (v->type != JSON_NUMBER || json_num(v, &x) < 0 || !isfinite(x) ||
	    x < min || x > max)
		return error("%s: %s: not a number in [%g, %g]", path, key, min,
		    max);
	*out = (float)x;
	return 0;
}

/* generation_config.json's sampling defaults (HF GenerationConfig). */
static int
getgen(struct cfg_gen *g, const struct json *o, const char *path)
{
	int n = -1;

	if (getbool(o, path, "do_sample", &g->do_sample) < 0 ||
	    getreal(o, path, "temperature", 0, 1e6, &g->temperature) < 0 ||
	    getreal(o, path, "top_p", 0, 1, &g->top_p) < 0 ||
	    getreal(o, path, "min_p", 0, 1, &g->min_p) < 0 ||
	    getreal(o, path, "repetition_penalty", 0, 1e6,
	    &g->repetition_penalty) < 0 ||
	    getint(o, path, "top_k", 0, INT_MAX, &g->top_k) < 0 ||
	    getint(o, path, "max_new_tokens", 0, INT_MAX, &n) < 0)
		return -1;
	g->max_new_tokens = n;
	return 0;
}

/* bos_token_id / eos_token_id (an int or a list of ints) from o. */
static int
gettokens(struct cfg *c, const struct json *o, const char *path)
{
	const struct json *v;
	size_t i;

	if (getint(o, path, "bos_token_id", 0, INT_MAX, &c->bos_token_id) < 0)
		return -1;
	if (getint(o, path, "pad_token_id", 0, INT_MAX, &c->pad_token_id) < 0)
		return -1;
	if (!(v = get(o, "eos_token_id")))
		return 0;
	if (v->type == JSON_NUMBER) {
		c->n_eos = 1;
		return getint(o, path, "eos_token_id", 0, INT_MAX,
		    &c->eos_token_id[0]);
	}
	if (v->type != JSON_ARRAY)
		return error("%s: eos_token_id: %s instead of an integer or a "
		    "list", path, json_typename(v->type));
	if (v->len > CFG_MAXEOS)
		return error("%s: eos_token_id: %zu ids (at most %d)", path,
		    v->len, CFG_MAXEOS);
	for (i = 0; i < v->len; i++) {
		long long x;

		if (json_int(&v->u.items[i], 0, INT_MAX, &x) < 0)
			return error("%s: eos_token_id: item %zu is not a "
			    "token id", path, i);
		c->eos_token_id[i] = (int)x;
	}
	c->n_eos = (int)v->len;
	return 0;
}

/* ---- the architectures beyond Llama ----
 * Each architecture's config class (transformers models/NAME/
 * configuration_NAME.py) decides which keys it reads and their
 * defaults; keys another class reads are ignored as that class ignores
 * them. */

/* norm_plus1 qk_norm post_norms fused, bias mlp_bias embed_scale geglu
 * softcap no_rope rope_local partial_rotary, window text_config */
const struct cfg_arch_info cfg_archs[] = {
	{ "LlamaForCausalLM", "llama", ARCH_LLAMA,
	    0, 0, 0, 0, BIAS_CONFIG, 1, 0, 0, 0, 0, 0, 0, WINDOW_NONE, 0 },
	{ "Qwen2ForCausalLM", "qwen2", ARCH_QWEN2,
	    0, 0, 0, 0, BIAS_QKV, 0, 0, 0, 0, 0, 0, 0, WINDOW_USE, 0 },
	{ "Qwen3ForCausalLM", "qwen3", ARCH_QWEN3,
	    0, 1, 0, 0, BIAS_CONFIG, 0, 0, 0, 0, 0, 0, 0, WINDOW_USE, 0 },
	{ "SmolLM3ForCausalLM", "smollm3", ARCH_SMOLLM3,
	    0, 0, 0, 0, BIAS_CONFIG, 1, 0, 0, 0, 1, 0, 0, WINDOW_NOROPE, 0 },
	{ "MistralForCausalLM", "mistral", ARCH_MISTRAL,
	    0, 0, 0, 0, BIAS_NONE, 0, 0, 0, 0, 0, 0, 0, WINDOW_ALL, 0 },
	{ "Gemma2ForCausalLM", "gemma2", ARCH_GEMMA2,
	    1, 0, 1, 0, BIAS_CONFIG, 0, 1, 1, 1, 0, 0, 0, WINDOW_PATTERN, 0 },
	{ "Gemma3ForCausalLM", "gemma3_text", ARCH_GEMMA3,
	    1, 1, 1, 0, BIAS_CONFIG, 0, 1, 1, 1, 0, 1, 0, WINDOW_PATTERN, 0 },
	{ "Gemma3ForConditionalGeneration", "gemma3", ARCH_GEMMA3,
	    1, 1, 1, 0, BIAS_CONFIG, 0, 1, 1, 1, 0, 1, 0, WINDOW_PATTERN, 1 },
	{ "Phi3ForCausalLM", "phi3", ARCH_PHI3,
	    0, 0, 0, 1, BIAS_NONE, 0, 0, 0, 0, 0, 0, 1, WINDOW_ALL, 0 },
};
const int cfg_narchs = sizeof(cfg_archs) / sizeof(cfg_archs[0]);

const struct cfg_arch_info *
cfg_arch_info(enum cfg_arch a)
{
	int i;

	for (i = 0; i < cfg_narchs; i++)
		if (cfg_archs[i].a == a)
			return &cfg_archs[i];
	return &cfg_archs[0];
}

const char *
cfg_arch_name(enum cfg_arch a)
{
	return cfg_arch_info(a)->arch;
}

/* The architecture from model_type (else architectures[0], else llama),
 * its defaults where they are not LlamaConfig's; *o becomes the
 * text_config of a Gemma3ForConditionalGeneration. */
static int
getarch(struct cfg *c, const struct json **o, const char *path)
{
	const struct json *v = get(*o, "model_type"), *a = get(*o, "architectures");
	const char *mt = v && v->type == JSON_STRING ? v->u.str : NULL;
	const char *an = a && a->type == JSON_ARRAY && a->len &&
	    a->u.items[0].type == JSON_STRING ? a->u.items[0].u.str : NULL;
	const struct cfg_arch_info *archs = cfg_archs;
	size_t i, n = (size_t)cfg_narchs;

	for (i = 0; mt && i < n && strcmp(archs[i].model_type, mt); i++)
		;
	if (mt && i == n)
		return error("%s: model_type: '%s' not supported", path, mt);
	if (!mt)
		for (i = 0; an && i < n && strcmp(archs[i].arch, an); i++)
			;
	c->arch = i < n ? archs[i].a : ARCH_LLAMA;
	if (mt && an && i < n) {
		size_t k;

		for (k = 0; k < n && strcmp(archs[k].arch, an); k++)
			;
		if (k < n && archs[k].a != c->arch)
			return error("%s: architectures: '%s' is not a "
			    "model_type '%s'", path, an, mt);
	}
	if (i < n && archs[i].text_config) {
		/* the text model's keys are its text_config's */
		if (!(v = get(*o, "text_config")) || v->type != JSON_OBJECT)
			return error("%s: text_config: no object (model_type "
			    "gemma3)", path);
		if (an && strlen(an) < sizeof(c->architecture))
			strcpy(c->architecture, an);
		*o = v;
		c->text_config = 1;
	}
	c->partial_rotary_factor = 1;
	c->rope_scaling.truncate = 1;
	/* the shapes too: a multimodal folder's text_config holds only
	 * what differs from Gemma3TextConfig's */
	switch (c->arch) {
	case ARCH_GEMMA2:
	case ARCH_GEMMA3:
		c->hidden_size = 2304;
		c->intermediate_size = 9216;
		c->num_hidden_layers = 26;
		c->num_attention_heads = 8;
		c->num_key_value_heads = 4;
		c->head_dim = 256;
		c->bos_token_id = 2;
		c->eos_token_id[0] = 1, c->n_eos = 1;
		c->pad_token_id = 0;
		c->tie_word_embeddings = 1;
		c->query_pre_attn_scalar = 256;
		c->sliding_window = 4096;
		strcpy(c->hidden_act, "gelu_pytorch_tanh");
		if (c->arch == ARCH_GEMMA2) {
			c->vocab_size = 256000;
			c->max_position_embeddings = 8192;
			c->attn_logit_softcapping = 50;
			c->final_logit_softcapping = 30;
		} else {
			c->vocab_size = 262208;
			c->max_position_embeddings = 131072;
			c->rope_theta = 1000000;
			c->rope_local_theta = 10000;
		}
		break;
	case ARCH_SMOLLM3:
		c->vocab_size = 128256;
		c->hidden_size = 2048;
		c->num_hidden_layers = 36;
		c->num_attention_heads = 16;
		c->num_key_value_heads = 4;
		c->max_position_embeddings = 32768;
		c->rope_theta = 2000000;
		c->bos_token_id = 128000;
		c->eos_token_id[0] = 128001, c->n_eos = 1;
		c->pad_token_id = 128004;
		c->tie_word_embeddings = 1;
		break;
	case ARCH_QWEN3:
		c->head_dim = 128;
		/* fall through */
	case ARCH_QWEN2:
		c->vocab_size = 151936;
		c->intermediate_size = 22016;
		c->num_key_value_heads = 32;
		c->max_position_embeddings = 32768;
		c->sliding_window = 4096;
		break;
	case ARCH_MISTRAL:
		c->sliding_window = 4096;
		break;
	default:
		break;
	}
	return 0;
}

/* A positive number key, null meaning 0 (none): Gemma's soft-caps. */
static int
getcap(const struct json *o, const char *path, const char *key, float *out)
{
	const struct json *v = json_get(o, key);

	if (v && v->type == JSON_NULL) {
		*out = 0;
		return 0;
	}
	return getpos(o, path, key, out);
}

/* n numbers of the list key into f (longrope's factors). */
static int
getfloats(const struct json *o, const char *path, const char *key,
    float *f, int *n)
{
	const struct json *v = get(o, key);
	size_t i;
	double x;

	if (!v)
		return error("%s: rope_scaling: no %s", path, key);
	if (v->type != JSON_ARRAY)
		return error("%s: rope_scaling: %s: %s instead of a list",
		    path, key, json_typename(v->type));
	if (v->len > CFG_MAXROPE || (*n && (int)v->len != *n))
		return error("%s: rope_scaling: %s: %zu factors", path, key,
		    v->len);
	for (i = 0; i < v->len; i++) {
		if (json_num(&v->u.items[i], &x) < 0 || !(x > 0) ||
		    !isfinite((float)x))
			return error("%s: rope_scaling: %s: item %zu is not a "
			    "positive number", path, key, i);
		f[i] = (float)x;
	}
	*n = (int)v->len;
	return 0;
}

/* A rope_scaling object rs (or one of rope_parameters) of architecture
 * a into r. */
static int
getrope(struct cfg_rope *r, const struct json *rs, const char *path,
    const char *what, enum cfg_arch a)
{
	char type[16] = "";
	int orig = 0;

	if (rs->type != JSON_OBJECT)
		return error("%s: %s: %s instead of an object or null", path,
		    what, json_typename(rs->type));
	if (getstr(rs, path, "type", type, sizeof(type)) < 0 ||
	    getstr(rs, path, "rope_type", type, sizeof(type)) < 0)
		return -1;
	if (!*type)
		return error("%s: %s: no rope_type", path, what);
	/* Phi3Config: its earlier names of longrope */
	if (a == ARCH_PHI3 && (!strcmp(type, "su") || !strcmp(type, "yarn")))
		strcpy(type, "longrope");
	if (!strcmp(type, "default"))
		return 0;
	if (strcmp(type, "llama3") && strcmp(type, "linear") &&
	    strcmp(type, "yarn") && strcmp(type, "longrope"))
		return error("%s: %s: rope_type '%s' not supported", path,
		    what, type);
	strcpy(r->rope_type, type);
	if (getpos(rs, path, "factor", &r->factor) < 0 ||
	    getint(rs, path, "original_max_position_embeddings", 1, INT_MAX,
	    &orig) < 0 ||
	    getpos(rs, path, "attention_factor", &r->attention_factor) < 0)
		return -1;
	r->original_max_position_embeddings = orig;
	if (!strcmp(type, "longrope")) {
		r->nfactor = 0;
		return getfloats(rs, path, "long_factor", r->long_factor,
		    &r->nfactor) < 0 || getfloats(rs, path, "short_factor",
		    r->short_factor, &r->nfactor) < 0 ? -1 : 0;
	}
	if (!r->factor)
		return error("%s: %s: no factor", path, what);
	if (r->factor < 1)
		return error("%s: %s: factor %g is below 1", path, what,
		    r->factor);
	if (!strcmp(type, "yarn"))
		return getpos(rs, path, "beta_fast", &r->beta_fast) < 0 ||
		    getpos(rs, path, "beta_slow", &r->beta_slow) < 0 ||
		    getpos(rs, path, "mscale", &r->mscale) < 0 ||
		    getpos(rs, path, "mscale_all_dim", &r->mscale_all_dim) < 0 ||
		    getbool(rs, path, "truncate", &r->truncate) < 0 ? -1 : 0;
	if (strcmp(type, "llama3"))
		return 0;
	if (getpos(rs, path, "low_freq_factor", &r->low_freq_factor) < 0 ||
	    getpos(rs, path, "high_freq_factor", &r->high_freq_factor) < 0)
		return -1;
	if (!r->low_freq_factor)
		return error("%s: %s: no low_freq_factor", path, what);
	if (!r->high_freq_factor)
		return error("%s: %s: no high_freq_factor", path, what);
	if (!orig)
		return error("%s: %s: no original_max_position_embeddings",
		    path, what);
	if (r->high_freq_factor <= r->low_freq_factor)
		return error("%s: %s: high_freq_factor must be greater than "
		    "low_freq_factor", path, what);
	return 0;
}

/* transformers v5's rope_parameters: one rope (rope_theta beside the
 * rope_scaling keys), or one per layer type as Gemma 3 writes it. */
static int
getropeparams(struct cfg *c, const struct json *rp, const char *path)
{
	const struct json *full, *slid;

	if (rp->type != JSON_OBJECT)
		return error("%s: rope_parameters: %s instead of an object",
		    path, json_typename(rp->type));
	full = get(rp, "full_attention");
	slid = get(rp, "sliding_attention");
	if (!full && !slid) {
		memset(&c->rope_scaling, 0, sizeof(c->rope_scaling));
		c->rope_scaling.truncate = 1;
		return getpos(rp, path, "rope_theta", &c->rope_theta) < 0 ||
		    getpos(rp, path, "partial_rotary_factor",
		    &c->partial_rotary_factor) < 0 ||
		    getrope(&c->rope_scaling, rp, path, "rope_parameters",
		    c->arch) < 0 ?
		    -1 : 0;
	}
	if (full) {
		memset(&c->rope_scaling, 0, sizeof(c->rope_scaling));
		c->rope_scaling.truncate = 1;
		if (getpos(full, path, "rope_theta", &c->rope_theta) < 0 ||
		    getrope(&c->rope_scaling, full, path,
		    "rope_parameters: full_attention", c->arch) < 0)
			return -1;
	}
	if (slid) {
		memset(&c->rope_local, 0, sizeof(c->rope_local));
		c->rope_local.truncate = 1;
		if (getpos(slid, path, "rope_theta", &c->rope_local_theta) < 0 ||
		    getrope(&c->rope_local, slid, path,
		    "rope_parameters: sliding_attention", c->arch) < 0)
			return -1;
	}
	return 0;
}

/* The keys beyond LlamaConfig's, read as the architecture's class
 * reads them. */
static int
getarchkeys(struct cfg *c, const struct json *o, const char *path)
{
	const struct cfg_arch_info *A = cfg_arch_info(c->arch);
	const struct json *v;
	int b = 0;

	if ((v = get(o, "rope_scaling")) &&
	    getrope(&c->rope_scaling, v, path, "rope_scaling", c->arch) < 0)
		return -1;
	if ((v = get(o, "rope_parameters")) && getropeparams(c, v, path) < 0)
		return -1;
	if (!A->mlp_bias)
		c->mlp_bias = 0;
	if (A->bias == BIAS_QKV)	/* q/k/v biases, never o's */
		c->attention_bias = 1;
	if (A->bias == BIAS_NONE)
		c->attention_bias = 0;
	if (A->geglu) {
		strcpy(c->hidden_act, "gelu_pytorch_tanh");
		if (getstr(o, path, "hidden_activation", c->hidden_act,
		    sizeof(c->hidden_act)) < 0 ||
		    getpos(o, path, "query_pre_attn_scalar",
		    &c->query_pre_attn_scalar) < 0 ||
		    getcap(o, path, "attn_logit_softcapping",
		    &c->attn_logit_softcapping) < 0 ||
		    getcap(o, path, "final_logit_softcapping",
		    &c->final_logit_softcapping) < 0)
			return -1;
		if (strcmp(c->hidden_act, "gelu_pytorch_tanh") &&
		    strcmp(c->hidden_act, "gelu"))
			return error("%s: hidden_activation: '%s' not "
			    "supported (gelu_pytorch_tanh, gelu)", path,
			    c->hidden_act);
		c->mlp_bias = 0;
	} else if (strcmp(c->hidden_act, "silu")) {
		return error("%s: hidden_act: '%s' not supported (only silu)",
		    path, c->hidden_act);
	}
	if (A->rope_local && getpos(o, path, "rope_local_base_freq",
	    &c->rope_local_theta) < 0)
		return -1;
	/* an architecture with partial_rotary rotates the first
	 * partial_rotary_factor of each head's dimensions and passes the
	 * rest.  transformers' RoPE init reads the key whatever the
	 * architecture, the others' attention then rotates every dimension
	 * with too few frequencies (a shape error or another result):
	 * refused, not read as 1 */
	if (getpos(o, path, "partial_rotary_factor",
	    &c->partial_rotary_factor) < 0)
		return -1;
	if (c->partial_rotary_factor != 1 && !A->partial_rotary)
		return error("%s: partial_rotary_factor: %g not supported by "
		    "%s (it rotates every dimension of a head)", path,
		    c->partial_rotary_factor, cfg_arch_name(c->arch));
	if (c->partial_rotary_factor > 1)
		return error("%s: partial_rotary_factor: %g is above 1", path,
		    c->partial_rotary_factor);
	/* a causal language model's keys that would make it another one */
	if (getbool(o, path, "use_bidirectional_attention", &b) < 0)
		return -1;
	if (b)
		return error("%s: use_bidirectional_attention: true not "
		    "supported", path);
	return 0;
}

/* 1 if the layer_types list of o says layer i is sliding_attention,
 * 0 if full_attention, -1 when there is no list. */
static int
layer_type(const struct json *o, int i)
{
	const struct json *v = get(o, "layer_types");

	if (!v)
		return -1;
	return !strcmp(v->u.items[i].u.str, "sliding_attention");
}

/* What needs the final shapes: the window and RoPE of each layer
 * (layer_types, sliding_window, no_rope_layers), the rotary dim. */
static int
checkarch(struct cfg *c, const struct json *o, const char *path)
{
	const struct cfg_arch_info *A = cfg_arch_info(c->arch);
	const struct json *v;
	int L = c->num_hidden_layers, i, use = 0, mwl = 28, w = c->sliding_window;
	int pattern = c->arch == ARCH_GEMMA3 ? 6 : 2, interval = 4, rd;

	if ((v = get(o, "layer_types"))) {
		if (v->type != JSON_ARRAY || (int)v->len != L)
			return error("%s: layer_types: not a list of %d layer "
			    "types", path, L);
		for (i = 0; i < L; i++)
			if (v->u.items[i].type != JSON_STRING ||
			    (strcmp(v->u.items[i].u.str, "full_attention") &&
			    strcmp(v->u.items[i].u.str, "sliding_attention")))
				return error("%s: layer_types: item %d is not "
				    "full_attention or sliding_attention",
				    path, i);
	}
	if (getint(o, path, "sliding_window", 1, INT_MAX, &w) < 0 ||
	    getbool(o, path, "use_sliding_window", &use) < 0 ||
	    getint(o, path, "max_window_layers", 0, INT_MAX, &mwl) < 0 ||
	    getint(o, path, "sliding_window_pattern", 1, INT_MAX, &pattern) < 0 ||
	    getint(o, path, "_sliding_window_pattern", 1, INT_MAX, &pattern) < 0 ||
	    getint(o, path, "no_rope_layer_interval", 1, INT_MAX, &interval) < 0)
		return -1;
	v = json_get(o, "sliding_window");
	if (v && v->type == JSON_NULL)
		w = 0;
	if (A->no_rope) {
		if ((v = get(o, "no_rope_layers"))) {
			if (v->type != JSON_ARRAY || (int)v->len != L)
				return error("%s: no_rope_layers: not a list "
				    "of %d flags", path, L);
			for (i = 0; i < L; i++) {
				long long x;

				if (json_int(&v->u.items[i], 0, 1, &x) < 0)
					return error("%s: no_rope_layers: item "
					    "%d is not 0 or 1", path, i);
				c->no_rope[i] = !x;
			}
		} else {
			for (i = 0; i < L; i++)
				c->no_rope[i] = (i + 1) % interval == 0;
		}
	}
	c->sliding_window = 0;
	for (i = 0; i < L; i++) {
		int t = layer_type(o, i), s;

		switch (A->window) {
		case WINDOW_USE:	/* the window only with use_sliding_window */
			s = use && w && (t >= 0 ? t : i >= mwl);
			break;
		case WINDOW_NOROPE:	/* layer_types' sliding layers get the
					 * window mask; without the list, the
					 * no-rope layers, with use_sliding_window */
			s = w && (t >= 0 ? t : use && c->no_rope[i]);
			break;
		case WINDOW_ALL:
			s = w > 0;
			break;
		case WINDOW_PATTERN:
			s = w && (t >= 0 ? t : (i + 1) % pattern != 0);
			break;
		default:
			s = 0;
			break;
		}
		c->sliding[i] = (unsigned char)s;
		if (s)
			c->sliding_window = w;
	}
	rd = (int)(c->head_dim * (double)c->partial_rotary_factor);
	if (rd < 2 || rd % 2)
		return error("%s: partial_rotary_factor %g gives %d rotary "
		    "dimensions of head_dim %d (an even number is needed)",
		    path, c->partial_rotary_factor, rd, c->head_dim);
	if (!strcmp(c->rope_scaling.rope_type, "longrope")) {
		int orig = 0;

		if (c->rope_scaling.nfactor != rd / 2)
			return error("%s: rope_scaling: %d long and short "
			    "factors for %d rotary dimensions (%d expected)",
			    path, c->rope_scaling.nfactor, rd, rd / 2);
		/* Phi-3's original_max_position_embeddings beside
		 * max_position_embeddings gives the factor */
		if (getint(o, path, "original_max_position_embeddings", 1,
		    INT_MAX, &orig) < 0)
			return -1;
		if (orig) {
			c->rope_scaling.original_max_position_embeddings = orig;
			c->rope_scaling.factor = (float)c->max_position_embeddings / orig;
		} else if ((orig = c->rope_scaling.original_max_position_embeddings)) {
			/* transformers v5 keeps it in rope_parameters, and
			 * the factor is its ratio unless given */
			if (!c->rope_scaling.factor)
				c->rope_scaling.factor =
				    (float)c->max_position_embeddings / orig;
		} else {
			c->rope_scaling.original_max_position_embeddings =
			    c->max_position_embeddings;
			if (!c->rope_scaling.factor)
				return error("%s: rope_scaling: no factor",
				    path);
		}
	}
	/* yarn without an original context: max_position_embeddings is */
	if (!c->rope_scaling.original_max_position_embeddings)
		c->rope_scaling.original_max_position_embeddings =
		    c->max_position_embeddings;
	if (!c->rope_local.original_max_position_embeddings)
		c->rope_local.original_max_position_embeddings =
		    c->max_position_embeddings;
	if (!strcmp(c->rope_local.rope_type, "longrope"))
		return error("%s: rope_parameters: sliding_attention: "
		    "rope_type 'longrope' not supported", path);
	return 0;
}

static int
parse(struct cfg *c, const struct json *o, const char *path)
{
	const struct json *v;
	int kv, hd;

	if (o->type != JSON_OBJECT)
		return error("%s: %s instead of an object", path,
		    json_typename(o->type));
	if (getarch(c, &o, path) < 0)
		return -1;
	kv = c->num_key_value_heads;	/* the class's, or 0: as heads */
	hd = c->head_dim;		/* or 0: hidden / heads */
	/* a text_config's own architectures do not name the folder's */
	if (!c->text_config && (v = get(o, "architectures"))) {
		if (v->type != JSON_ARRAY)
			return error("%s: architectures: %s instead of a list",
			    path, json_typename(v->type));
		if (v->len) {
			const struct json *a = &v->u.items[0];

			if (a->type != JSON_STRING ||
			    a->len >= sizeof(c->architecture))
				return error("%s: architectures: item 0 is "
				    "not a short string", path);
			memcpy(c->architecture, a->u.str, a->len + 1);
		}
	}
	if (getstr(o, path, "model_type", c->model_type,
	    sizeof(c->model_type)) < 0 ||
	    getint(o, path, "hidden_size", 1, 1 << 20, &c->hidden_size) < 0 ||
	    getint(o, path, "intermediate_size", 1, 1 << 22,
	    &c->intermediate_size) < 0 ||
	    getint(o, path, "num_hidden_layers", 1, 1 << 12,
	    &c->num_hidden_layers) < 0 ||
	    getint(o, path, "num_attention_heads", 1, 1 << 14,
	    &c->num_attention_heads) < 0 ||
	    getint(o, path, "num_key_value_heads", 1, 1 << 14, &kv) < 0 ||
	    getint(o, path, "head_dim", 1, 1 << 14, &hd) < 0 ||
	    getint(o, path, "vocab_size", 1, 1 << 26, &c->vocab_size) < 0 ||
	    getint(o, path, "max_position_embeddings", 1, 1 << 30,
	    &c->max_position_embeddings) < 0 ||
	    getpos(o, path, "rms_norm_eps", &c->rms_norm_eps) < 0 ||
	    getpos(o, path, "rope_theta", &c->rope_theta) < 0 ||
	    getbool(o, path, "tie_word_embeddings",
	    &c->tie_word_embeddings) < 0 ||
	    getbool(o, path, "attention_bias", &c->attention_bias) < 0 ||
	    getbool(o, path, "mlp_bias", &c->mlp_bias) < 0 ||
	    getstr(o, path, "hidden_act", c->hidden_act,
	    sizeof(c->hidden_act)) < 0 ||
	    gettokens(c, o, path) < 0 || getarchkeys(c, o, path) < 0)
		return -1;
	c->num_key_value_heads = kv ? kv : c->num_attention_heads;
	if (hd)
		c->head_dim = hd;
	else if (c->hidden_size % c->num_attention_heads)
		return error("%s: hidden_size %d is not a multiple of "
		    "num_attention_heads %d (and no head_dim)", path,
		    c->hidden_size, c->num_attention_heads);
	else
		c->head_dim = c->hidden_size / c->num_attention_heads;
	if (c->head_dim % 2)
		return error("%s: head_dim %d is odd (RoPE needs pairs)", path,
		    c->head_dim);
	if (c->num_attention_heads % c->num_key_value_heads)
		return error("%s: num_key_value_heads %d does not divide "
		    "num_attention_heads %d", path, c->num_key_value_heads,
		    c->num_attention_heads);
	if ((long long)c->head_dim * c->num_attention_heads > 1 << 20)
		return error("%s: num_attention_heads * head_dim too large",
		    path);
	return checkarch(c, o, path);
}

static int
checkids(const struct cfg *c, const char *path)
{
	int i;

	if (c->bos_token_id >= c->vocab_size)
		return error("%s: bos_token_id %d is not below vocab_size %d",
		    path, c->bos_token_id, c->vocab_size);
	for (i = 0; i < c->n_eos; i++)
		if (c->eos_token_id[i] >= c->vocab_size)
			return error("%s: eos_token_id %d is not below "
			    "vocab_size %d", path, c->eos_token_id[i],
			    c->vocab_size);
	return 0;
}

int
cfg_load(struct cfg *c, const char *config_path, const char *genconfig_path)
{
	struct json_doc doc = { 0 };
	int ret = cfg_load_doc(c, &doc, config_path, genconfig_path);

	json_free(&doc);
	return ret;
}

void
cfg_defaults(struct cfg *c)
{
	memset(c, 0, sizeof(*c));
	c->max_position_embeddings = 2048;
	c->rope_theta = 10000.0f;
	c->bos_token_id = -1;
	c->pad_token_id = -1;
	c->gen.do_sample = c->gen.top_k = -1;
	c->gen.temperature = c->gen.top_p = c->gen.min_p = NAN;
	c->gen.repetition_penalty = NAN;
	c->gen.max_new_tokens = -1;
	strcpy(c->hidden_act, "silu");
}

int
cfg_load_doc(struct cfg *c, struct json_doc *doc, const char *config_path,
    const char *genconfig_path)
{
	struct json_doc gen = { 0 };
	int ret = -1;

	cfg_defaults(c);
	c->hidden_size = 4096;		/* LlamaConfig's */
	c->intermediate_size = 11008;
	c->num_hidden_layers = 32;
	c->num_attention_heads = 32;
	c->vocab_size = 32000;
	c->rms_norm_eps = 1e-6f;
	if (json_load(doc, config_path) < 0 ||
	    parse(c, doc->root, config_path) < 0 ||
	    checkids(c, config_path) < 0)
		goto out;
	if (genconfig_path) {
		if (json_load(&gen, genconfig_path) < 0)
			goto out;
		if (gen.root->type != JSON_OBJECT) {
			error("%s: %s instead of an object", genconfig_path,
			    json_typename(gen.root->type));
			goto out;
		}
		if (gettokens(c, gen.root, genconfig_path) < 0 ||
		    getgen(&c->gen, gen.root, genconfig_path) < 0 ||
		    checkids(c, genconfig_path) < 0)
			goto out;
	}
	ret = 0;
out:
	json_free(&gen);
	return ret;
}
