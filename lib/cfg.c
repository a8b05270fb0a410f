/* cfg.c: config.json -> struct cfg.  Defaults and the null-means-default
 * rule follow HuggingFace transformers' LlamaConfig
 * (models/llama/configuration_llama.py) and rope_config_validation
 * (modeling_rope_utils.py). */
#include <limits.h>
#include <math.h>
#include <string.h>

#include "cfg.h"
#include "json.h"
#include "util.h"

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

static int
getrope(struct cfg *c, const struct json *o, const char *path)
{
	const struct json *rs = get(o, "rope_scaling");
	char type[16] = "";
	int orig = 0;

	if (!rs)
		return 0;
	if (rs->type != JSON_OBJECT)
		return error("%s: rope_scaling: %s instead of an object or null",
		    path, json_typename(rs->type));
	if (getstr(rs, path, "type", type, sizeof(type)) < 0 ||
	    getstr(rs, path, "rope_type", type, sizeof(type)) < 0)
		return -1;
	if (!*type)
		return error("%s: rope_scaling: no rope_type", path);
	if (!strcmp(type, "default"))
		return 0;
	if (strcmp(type, "llama3"))
		return error("%s: rope_scaling: rope_type '%s' not supported "
		    "(only llama3)", path, type);
	strcpy(c->rope_scaling.rope_type, type);
	c->rope_scaling.factor = 0;
	c->rope_scaling.low_freq_factor = 0;
	c->rope_scaling.high_freq_factor = 0;
	if (getpos(rs, path, "factor", &c->rope_scaling.factor) < 0 ||
	    getpos(rs, path, "low_freq_factor",
	    &c->rope_scaling.low_freq_factor) < 0 ||
	    getpos(rs, path, "high_freq_factor",
	    &c->rope_scaling.high_freq_factor) < 0 ||
	    getint(rs, path, "original_max_position_embeddings", 1, INT_MAX,
	    &orig) < 0)
		return -1;
	if (!c->rope_scaling.factor)
		return error("%s: rope_scaling: no factor", path);
	if (!c->rope_scaling.low_freq_factor)
		return error("%s: rope_scaling: no low_freq_factor", path);
	if (!c->rope_scaling.high_freq_factor)
		return error("%s: rope_scaling: no high_freq_factor", path);
	if (!orig)
		return error("%s: rope_scaling: no "
		    "original_max_position_embeddings", path);
	if (c->rope_scaling.factor < 1)
		return error("%s: rope_scaling: factor %g is below 1", path,
		    c->rope_scaling.factor);
	if (c->rope_scaling.high_freq_factor <= c->rope_scaling.low_freq_factor)
		return error("%s: rope_scaling: high_freq_factor must be "
		    "greater than low_freq_factor", path);
	c->rope_scaling.original_max_position_embeddings = orig;
	return 0;
}

static int
parse(struct cfg *c, const struct json *o, const char *path)
{
	const struct json *v;
	int kv = 0, hd = 0;

	if (o->type != JSON_OBJECT)
		return error("%s: %s instead of an object", path,
		    json_typename(o->type));
	if ((v = get(o, "architectures"))) {
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
	    getrope(c, o, path) < 0 || gettokens(c, o, path) < 0)
		return -1;
	if (*c->model_type && strcmp(c->model_type, "llama"))
		return error("%s: model_type: '%s' not supported (only llama)",
		    path, c->model_type);
	if (strcmp(c->hidden_act, "silu"))
		return error("%s: hidden_act: '%s' not supported (only silu)",
		    path, c->hidden_act);
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
	return 0;
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
	struct json_doc doc = { 0 }, gen = { 0 };
	int ret = -1;

	memset(c, 0, sizeof(*c));
	c->hidden_size = 4096;
	c->intermediate_size = 11008;
	c->num_hidden_layers = 32;
	c->num_attention_heads = 32;
	c->vocab_size = 32000;
	c->max_position_embeddings = 2048;
	c->rms_norm_eps = 1e-6f;
	c->rope_theta = 10000.0f;
	c->bos_token_id = -1;
	c->pad_token_id = -1;
	c->gen.do_sample = c->gen.top_k = -1;
	c->gen.temperature = c->gen.top_p = c->gen.min_p = NAN;
	c->gen.repetition_penalty = NAN;
	c->gen.max_new_tokens = -1;
	strcpy(c->hidden_act, "silu");
	if (json_load(&doc, config_path) < 0 ||
	    parse(c, doc.root, config_path) < 0 ||
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
	json_free(&doc);
	return ret;
}
