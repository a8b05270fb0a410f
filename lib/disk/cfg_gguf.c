/* cfg_gguf.c: a GGUF file's metadata into struct cfg, as llama.cpp reads
 * it (src/llama-model.cpp, src/models/ARCH.cpp) and convert_hf_to_gguf.py
 * writes it: ARCH.block_count, .embedding_length, ... under
 * general.architecture; what the converter turned into tensors
 * (rope_freqs for Llama 3's scaling, Phi-3's rope_factors_long/short)
 * read back from them; what it leaves out, llama.cpp's defaults. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "disk/cfg.h"
#include "disk/gguf.h"
#include "base/util.h"

static const struct {
	const char *name;	/* general.architecture */
	enum cfg_arch a;
} gguf_archs[] = {
	{ "llama", ARCH_LLAMA },	/* Mistral's too */
	{ "qwen2", ARCH_QWEN2 },
	{ "qwen3", ARCH_QWEN3 },
	{ "smollm3", ARCH_SMOLLM3 },
	{ "gemma2", ARCH_GEMMA2 },
	{ "gemma3", ARCH_GEMMA3 },
	{ "phi3", ARCH_PHI3 },
};

/* An integer key ARCH.key (key starting with '.') or key; *out kept
 * when absent unless required. */
static int
gint(const struct gguf *g, const char *arch, const char *key, int min,
    int max, int required, int *out)
{
	char k[160];
	int64_t v;
	int r;

	snprintf(k, sizeof k, "%s%s", *key == '.' ? arch : "", key);
	if ((r = gguf_get_int(g, k, min, max, &v)) < 0)
		return -1;
	if (r == 1)
		return required ? error("%s: no %s", g->path, k) : 0;
	*out = (int)v;
	return 0;
}

static int
gfloat(const struct gguf *g, const char *arch, const char *key, int required,
    float *out)
{
	char k[160];
	double v;
	int r;

	snprintf(k, sizeof k, "%s%s", *key == '.' ? arch : "", key);
	if ((r = gguf_get_float(g, k, &v)) < 0)
		return -1;
	if (r == 1)
		return required ? error("%s: no %s", g->path, k) : 0;
	if (v < 0 || v > 3.4e38)
		return error("%s: %s is %g, not a non-negative float", g->path,
		    k, v);
	*out = (float)v;
	return 0;
}

/* A vector of n F32 values (a tensor the converter made of the
 * config) into v; 1 if absent, 0, or -1 after error(). */
static int
gvec(const struct gguf *g, const char *name, float *v, int n)
{
	const struct gguf_tensor *t = gguf_tensor(g, name);
	int i;

	if (!t)
		return 1;
	if (t->type != GGML_F32 || t->nel != (size_t)n || t->dims[0] != n)
		return error("%s: %s: %zu values of %s, expected %d of f32",
		    g->path, name, t->nel, t->ti->name, n);
	memcpy(v, t->data, (size_t)n * sizeof(float));
	for (i = 0; i < n; i++)
		if (!isfinite(v[i]) || v[i] <= 0)
			return error("%s: %s: value %d is %g, not a positive "
			    "number", g->path, name, i, v[i]);
	return 0;
}

/* The rope of the file: rope_freqs (Llama 3), Phi-3's factors, or the
 * scaling keys. */
static int
getrope(struct cfg *c, const struct gguf *g, const char *A, int rd)
{
	struct cfg_rope *r = &c->rope_scaling;
	char k[160];
	const char *s;
	size_t n;
	int orig = 0, x;

	if (rd / 2 > CFG_MAXROPE)
		return error("%s: %d rotary dimensions (at most %d)", g->path,
		    rd, 2 * CFG_MAXROPE);
	if ((x = gvec(g, "rope_freqs.weight", r->short_factor, rd / 2)) < 0)
		return -1;
	if (x == 0) {		/* f / rope_freqs[j], as llama.cpp turns */
		strcpy(r->rope_type, "freqs");
		r->nfactor = rd / 2;
		return 0;
	}
	if ((x = gvec(g, "rope_factors_long.weight", r->long_factor,
	    rd / 2)) < 0)
		return -1;
	if (x == 0) {		/* Phi-3's longrope */
		if (gvec(g, "rope_factors_short.weight", r->short_factor,
		    rd / 2) != 0)
			return error("%s: rope_factors_long.weight without "
			    "rope_factors_short.weight", g->path);
		strcpy(r->rope_type, "longrope");
		r->nfactor = rd / 2;
		orig = c->max_position_embeddings;
		if (gint(g, A, ".rope.scaling.original_context_length", 1,
		    INT_MAX, 0, &orig) < 0 ||
		    gfloat(g, A, ".rope.scaling.attn_factor", 0,
		    &r->attention_factor) < 0)
			return -1;
		r->original_max_position_embeddings = orig;
		r->factor = (float)c->max_position_embeddings / (float)orig;
		return 0;
	}
	snprintf(k, sizeof k, "%s.rope.scaling.type", A);
	if ((x = gguf_get_str(g, k, &s, &n)) < 0)
		return -1;
	if (x == 1 || (n == 4 && !memcmp(s, "none", 4)))
		return 0;
	if (!(n == 6 && !memcmp(s, "linear", 6)) &&
	    !(n == 4 && !memcmp(s, "yarn", 4)))
		return error("%s: %s '%.*s' not supported", g->path, k,
		    (int)(n < 32 ? n : 32), s);
	memcpy(r->rope_type, s, n);
	r->rope_type[n] = 0;
	if (gfloat(g, A, ".rope.scaling.factor", 1, &r->factor) < 0)
		return -1;
	if (r->factor < 1)
		return error("%s: %s.rope.scaling.factor %g is below 1",
		    g->path, A, r->factor);
	if (n == 4 && (gint(g, A, ".rope.scaling.original_context_length", 1,
	    INT_MAX, 0, &orig) < 0 ||
	    gfloat(g, A, ".rope.scaling.yarn_attn_factor", 0,
	    &r->attention_factor) < 0 ||
	    gfloat(g, A, ".rope.scaling.yarn_beta_fast", 0, &r->beta_fast) < 0 ||
	    gfloat(g, A, ".rope.scaling.yarn_beta_slow", 0, &r->beta_slow) < 0))
		return -1;
	r->original_max_position_embeddings = orig ? orig :
	    c->max_position_embeddings;
	return 0;
}

/* Which layers slide: ARCH.attention.sliding_window_pattern, a list of
 * bools or every n-th layer full (llama.cpp's set_swa_pattern), n by
 * default. */
static int
getpattern(struct cfg *c, const struct gguf *g, const char *A, int n)
{
	struct gguf_val a, e;
	struct gguf_it it;
	char k[160];
	int i = 0, L = c->num_hidden_layers, x;

	snprintf(k, sizeof k, "%s.attention.sliding_window_pattern", A);
	if ((x = gguf_get_arr(g, k, GGUF_BOOL, &a)) < 0) {
		const struct gguf_kv *kv = gguf_find(g, k);

		if (!kv || kv->v.type == GGUF_ARR)
			return -1;
		if (gint(g, A, ".attention.sliding_window_pattern", 0,
		    INT_MAX, 1, &n) < 0)
			return -1;
		x = 1;
	}
	if (x == 0) {
		if ((int)a.n != L)
			return error("%s: %s: %llu flags for %d layers",
			    g->path, k, (unsigned long long)a.n, L);
		for (gguf_it_init(&it, &a); gguf_it_next(&it, &e); i++)
			c->sliding[i] = e.p[0];
		return 0;
	}
	for (i = 0; i < L; i++)
		c->sliding[i] = n == 0 || i % n < n - 1;
	return 0;
}

int
cfg_load_gguf(struct cfg *c, const struct gguf *g)
{
	const struct cfg_arch_info *info;
	const struct gguf_tensor *t;
	char A[16], names[160];
	const char *s;
	size_t n, i;
	int hd = 0, rd = 0, kvl = 0, vl = 0, w = 0, L, x, id;
	static const char *const eos_keys[] = {
		"tokenizer.ggml.eos_token_id", "tokenizer.ggml.eot_token_id",
		"tokenizer.ggml.eom_token_id",
	};

	cfg_defaults(c);
	c->partial_rotary_factor = 1;
	c->rope_scaling.truncate = 1;
	c->rope_local.truncate = 1;
	if ((x = gguf_get_str(g, "general.architecture", &s, &n)) < 0)
		return -1;
	if (x == 1)
		return error("%s: no general.architecture", g->path);
	for (i = 0; i < LEN(gguf_archs); i++)
		if (strlen(gguf_archs[i].name) == n &&
		    !memcmp(gguf_archs[i].name, s, n))
			break;
	if (i == LEN(gguf_archs)) {
		size_t k, o = 0;

		for (k = 0; k < LEN(gguf_archs); k++)
			o += (size_t)snprintf(names + o, sizeof names - o,
			    "%s%s", k ? ", " : "", gguf_archs[k].name);
		return error("%s: general.architecture '%.*s' not supported "
		    "(pipelm runs %s)", g->path, (int)(n < 64 ? n : 64), s,
		    names);
	}
	{	/* llama-gguf-split's shards: one is not a model */
		int64_t k = 1;

		if (gguf_get_int(g, "split.count", 0, INT64_MAX, &k) < 0)
			return -1;
		if (k > 1)
			return error("%s: one of %lld shards of a split GGUF "
			    "file (llama-gguf-split --merge makes it one)",
			    g->path, (long long)k);
	}
	strcpy(A, gguf_archs[i].name);
	c->arch = gguf_archs[i].a;
	info = cfg_arch_info(c->arch);
	snprintf(c->architecture, sizeof c->architecture, "%s", info->arch);
	snprintf(c->model_type, sizeof c->model_type, "%s", info->model_type);
	/* llama.cpp's rope type "norm" (LLM_ARCH_LLAMA, _SMOLLM3): the
	 * converter permuted q and k for it */
	c->rope_pairs = c->arch == ARCH_LLAMA || c->arch == ARCH_SMOLLM3;
	if (gint(g, A, ".block_count", 1, CFG_MAXLAYERS, 1,
	    &c->num_hidden_layers) < 0 ||
	    gint(g, A, ".embedding_length", 1, 1 << 20, 1, &c->hidden_size) < 0 ||
	    gint(g, A, ".feed_forward_length", 1, 1 << 22, 1,
	    &c->intermediate_size) < 0 ||
	    gint(g, A, ".attention.head_count", 1, 1 << 14, 1,
	    &c->num_attention_heads) < 0)
		return -1;
	c->num_key_value_heads = c->num_attention_heads;
	c->max_position_embeddings = 2048;
	if (gint(g, A, ".attention.head_count_kv", 1, 1 << 14, 0,
	    &c->num_key_value_heads) < 0 ||
	    gint(g, A, ".attention.key_length", 1, 1 << 14, 0, &kvl) < 0 ||
	    gint(g, A, ".attention.value_length", 1, 1 << 14, 0, &vl) < 0 ||
	    gint(g, A, ".context_length", 1, 1 << 30, 0,
	    &c->max_position_embeddings) < 0 ||
	    gfloat(g, A, ".attention.layer_norm_rms_epsilon", 1,
	    &c->rms_norm_eps) < 0 ||
	    gfloat(g, A, ".rope.freq_base", 0, &c->rope_theta) < 0)
		return -1;
	if (c->rms_norm_eps <= 0 || c->rope_theta <= 0)
		return error("%s: %s.attention.layer_norm_rms_epsilon and "
		    "%s.rope.freq_base must be positive", g->path, A, A);
	L = c->num_hidden_layers;
	if (kvl)
		hd = kvl;
	else if (c->hidden_size % c->num_attention_heads)
		return error("%s: %s.embedding_length %d is not a multiple of "
		    "%s.attention.head_count %d (and no key_length)", g->path,
		    A, c->hidden_size, A, c->num_attention_heads);
	else
		hd = c->hidden_size / c->num_attention_heads;
	if (vl && vl != hd)
		return error("%s: %s.attention.value_length %d differs from the "
		    "key length %d", g->path, A, vl, hd);
	if (hd % 2)
		return error("%s: head length %d is odd (RoPE needs pairs)",
		    g->path, hd);
	c->head_dim = hd;
	if (c->num_attention_heads % c->num_key_value_heads)
		return error("%s: %s.attention.head_count_kv %d does not divide "
		    "%s.attention.head_count %d", g->path, A,
		    c->num_key_value_heads, A, c->num_attention_heads);
	if ((long long)hd * c->num_attention_heads > 1 << 20)
		return error("%s: head_count * key_length too large", g->path);
	rd = hd;
	if (gint(g, A, ".rope.dimension_count", 2, hd, 0, &rd) < 0)
		return -1;
	if (rd % 2)
		return error("%s: %s.rope.dimension_count %d is odd", g->path, A,
		    rd);
	c->partial_rotary_factor = (float)rd / (float)hd;
	if ((int)(hd * (double)c->partial_rotary_factor) != rd)
		return error("%s: %s.rope.dimension_count %d of head length %d",
		    g->path, A, rd, hd);
	/* the vocabulary: the key, else the embedding's rows */
	if (!(t = gguf_tensor(g, "token_embd.weight")))
		return error("%s: missing tensor 'token_embd.weight'", g->path);
	c->vocab_size = t->dims[1] <= 1 << 26 ? (int)t->dims[1] : 0;
	if (gint(g, A, ".vocab_size", 1, 1 << 26, 0, &c->vocab_size) < 0)
		return -1;
	if (!c->vocab_size)
		return error("%s: token_embd.weight: %lld rows", g->path,
		    (long long)t->dims[1]);
	c->tie_word_embeddings = !gguf_tensor(g, "output.weight");
	c->attention_bias = gguf_tensor(g, "blk.0.attn_q.bias") != NULL;
	c->mlp_bias = gguf_tensor(g, "blk.0.ffn_gate.bias") != NULL;
	if (getrope(c, g, A, rd) < 0)
		return -1;

	/* what the architectures beyond Llama add */
	switch (c->arch) {
	case ARCH_GEMMA2:
	case ARCH_GEMMA3:
		strcpy(c->hidden_act, "gelu_pytorch_tanh");
		/* gemma_pytorch's query scaling: the 27B models' by
		 * hidden / heads, the others' by the head length */
		c->query_pre_attn_scalar = (float)((c->arch == ARCH_GEMMA2 ?
		    L == 46 : L == 62) ? c->hidden_size /
		    c->num_attention_heads : hd);
		if (c->arch == ARCH_GEMMA2) {
			c->attn_logit_softcapping = 50;
			c->final_logit_softcapping = 30;
			w = 4096;
		}
		if (gfloat(g, A, ".attn_logit_softcapping", 0,
		    &c->attn_logit_softcapping) < 0 ||
		    gfloat(g, A, ".final_logit_softcapping", 0,
		    &c->final_logit_softcapping) < 0 ||
		    gint(g, A, ".attention.sliding_window", 0, INT_MAX, 0,
		    &w) < 0)
			return -1;
		if (w > 0 && getpattern(c, g, A, c->arch == ARCH_GEMMA2 ? 2 :
		    6) < 0)
			return -1;
		if (c->arch == ARCH_GEMMA3) {
			c->rope_local_theta = 10000;
			if (gfloat(g, A, ".rope.freq_base_swa", 0,
			    &c->rope_local_theta) < 0)
				return -1;
		}
		break;
	case ARCH_PHI3:
	case ARCH_LLAMA:	/* Mistral's window, where written */
		if (gint(g, A, ".attention.sliding_window", 0, INT_MAX, 0,
		    &w) < 0)
			return -1;
		for (x = 0; w > 0 && x < L; x++)
			c->sliding[x] = 1;
		break;
	case ARCH_SMOLLM3:	/* llama.cpp's n_no_rope_layer_step */
		for (x = 0; x < L; x++)
			c->no_rope[x] = (x + 1) % 4 == 0;
		break;
	default:
		break;
	}
	for (x = 0; x < L; x++)
		if (c->sliding[x])
			c->sliding_window = w;

	/* the special ids: bos, and eos with end-of-turn ones */
	if (gint(g, "", "tokenizer.ggml.bos_token_id", 0, c->vocab_size - 1, 0,
	    &c->bos_token_id) < 0 ||
	    gint(g, "", "tokenizer.ggml.padding_token_id", 0,
	    c->vocab_size - 1, 0, &c->pad_token_id) < 0)
		return -1;
	for (i = 0; i < LEN(eos_keys); i++) {
		id = -1;
		if (gint(g, "", eos_keys[i], 0, c->vocab_size - 1, 0, &id) < 0)
			return -1;
		for (x = 0; id >= 0 && x < c->n_eos; x++)
			if (c->eos_token_id[x] == id)
				id = -1;
		if (id >= 0)
			c->eos_token_id[c->n_eos++] = id;
	}
	return 0;
}
