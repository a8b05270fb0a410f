/* test_model: the forward pass against a plain reference, on random
 * models this test writes itself (no ../shared, no mkmodel), and the
 * RoPE frequencies.
 *
 * The reference is llama2.c's forward() in double precision: straight
 * loops, no threads, no SIMD, the weights read back from the written
 * safetensors through st.h, each step as HF modeling_llama.py defines
 * it, and each other architecture's steps as its HF modeling file
 * defines them (Qwen2/3, SmolLM3, Mistral, Gemma 2/3, Phi-3; the rope
 * types of modeling_rope_utils.py).  It shares no code with
 * lib/model*.c or the kernels. */
#include <sys/mman.h>
#include <sys/stat.h>

#include <signal.h>

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../lib/kern/kern.h"
#include "../../lib/model/model.h"
#include "../../lib/model/seq.h"
#include "../../lib/stream/score.h"
#include "../../lib/disk/st.h"
#include "../../lib/base/util.h"
#include "test.h"

struct shape {
	const char *name;
	enum st_dtype dt;
	int hidden, inter, layers, heads, kv, hd, vocab;
	int tied, bias, mlp_bias, llama3;
	int n;			/* positions to run */
	/* the architectures beyond Llama (0: as Llama) */
	enum cfg_arch arch;
	int window;		/* sliding_window */
	int win_flag, win_from;	/* Qwen2: use_sliding_window, max_window_layers */
	int pattern;		/* Gemma 3: every pattern-th layer full */
	int norope;		/* SmolLM3: no_rope_layer_interval */
	const char *rope;	/* rope_scaling: linear, yarn, longrope */
	double prf;		/* Phi-3: partial_rotary_factor */
	int orig;		/* longrope's original context */
	double acap, fcap;	/* Gemma: the soft-caps */
	double qpas;		/* Gemma: query_pre_attn_scalar */
};

static const struct shape shapes[] = {
	/* name                     dtype    d  ff  L  h kv  hd  V  tie b mb l3  n */
	{ "bf16 gqa",               ST_BF16, 64, 96, 2, 4, 2, 16, 101, 1, 0, 0, 0, 40, .arch = ARCH_LLAMA },
	{ "f32 mha bias untied",    ST_F32,  64, 80, 2, 4, 4, 16, 97,  0, 1, 0, 0, 40, .arch = ARCH_LLAMA },
	{ "f16 mqa llama3",         ST_F16,  48, 72, 2, 4, 1, 12, 113, 1, 0, 0, 1, 40, .arch = ARCH_LLAMA },
	/* head_dim * heads != hidden; past a pass (SEQ_MAXBATCH), KV
	 * blocks and decode's key ranges */
	{ "bf16 hd24 bias mlp_bias untied llama3 long", ST_BF16,
	                              64, 64, 3, 4, 2, 24, 89,  0, 1, 1, 1, 300, .arch = ARCH_LLAMA },
	{ "f32 llama linear",       ST_F32,  64, 96, 2, 4, 2, 16, 101, 0, 0, 0, 0, 40,
	  .rope = "linear" },
	{ "bf16 llama yarn",        ST_BF16, 64, 96, 2, 4, 2, 16, 101, 0, 0, 0, 0, 40,
	  .rope = "yarn" },
	/* the window is off without use_sliding_window */
	{ "bf16 qwen2 window off",  ST_BF16, 64, 96, 2, 4, 2, 16, 101, 0, 1, 0, 0, 40,
	  .arch = ARCH_QWEN2, .window = 4 },
	{ "f16 qwen2 window from layer 1 long", ST_F16,
	                              64, 96, 3, 4, 2, 16, 101, 1, 1, 0, 0, 300,
	  .arch = ARCH_QWEN2, .window = 37, .win_flag = 1, .win_from = 1 },
	{ "f16 qwen3 hd24",         ST_F16,  64, 96, 2, 4, 2, 24, 101, 1, 0, 0, 0, 40,
	  .arch = ARCH_QWEN3 },
	{ "f32 smollm3",            ST_F32,  64, 96, 4, 4, 2, 16, 101, 1, 0, 0, 0, 40,
	  .arch = ARCH_SMOLLM3, .norope = 2 },
	/* a window past a pass and past decode's key ranges */
	{ "bf16 mistral window long", ST_BF16, 64, 96, 2, 4, 2, 16, 101, 0, 0, 0, 0, 300,
	  .arch = ARCH_MISTRAL, .window = 20 },
	/* a window longer than a decode key range (ATTN_MINCHUNK), its
	 * first key inside a key block */
	{ "bf16 mistral window past a key range", ST_BF16, 64, 96, 2, 4, 2, 16, 101, 0, 0, 0, 0, 300,
	  .arch = ARCH_MISTRAL, .window = 70 },
	{ "bf16 gemma2",            ST_BF16, 64, 96, 3, 4, 2, 16, 101, 1, 0, 0, 0, 100,
	  .arch = ARCH_GEMMA2, .window = 9, .acap = 5, .fcap = 3, .qpas = 20 },
	{ "f16 gemma3 linear",      ST_F16,  64, 96, 4, 4, 2, 24, 101, 1, 0, 0, 0, 100,
	  .arch = ARCH_GEMMA3, .window = 12, .pattern = 3, .rope = "linear",
	  .qpas = 24 },
	{ "bf16 gemma3 soft-caps",  ST_BF16, 64, 96, 2, 4, 2, 16, 101, 1, 0, 0, 0, 60,
	  .arch = ARCH_GEMMA3, .window = 10, .pattern = 2, .acap = 4, .fcap = 2,
	  .qpas = 16 },
	{ "f32 phi3 partial longrope short", ST_F32, 64, 96, 2, 4, 4, 16, 101, 0, 0, 0, 0, 40,
	  .arch = ARCH_PHI3, .rope = "longrope", .prf = 0.5, .orig = 128 },
	/* the first pass already past the original context: long factors */
	{ "bf16 phi3 gqa longrope long", ST_BF16, 64, 96, 2, 4, 2, 16, 101, 0, 0, 0, 0, 100,
	  .arch = ARCH_PHI3, .rope = "longrope", .orig = 32, .window = 50 },
};

#define THETA 10000.0
#define LOCAL_THETA 500.0	/* Gemma 3's sliding layers */
#define EPS 1e-5
/* llama3 rope_scaling with an original context short enough that
 * head_dim 12..24 has frequencies in all three bands */
#define L3_FACTOR 8.0
#define L3_LOW 1.0
#define L3_HIGH 4.0
#define L3_OLD 64.0

static uint64_t rng = 88172645463325252ull;

static double
urand(void)		/* uniform in [-1, 1) */
{
	rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
	return (double)(rng >> 11) * 0x1p-52 - 1.0;
}

/* ---- writing a model ---- */

struct wt {
	char name[96];
	int ndim;
	int64_t shape[2];
	double mean, sd;	/* element = mean + sd * U(-1, 1) */
};

static int
addt(struct wt *t, int n, double mean, double sd, int64_t rows,
    int64_t cols, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t[n].name, sizeof(t[n].name), fmt, ap);
	va_end(ap);
	t[n].ndim = cols ? 2 : 1;
	t[n].shape[0] = rows;
	t[n].shape[1] = cols;
	t[n].mean = mean;
	t[n].sd = sd;
	return n + 1;
}

static int
gemma(const struct shape *s)
{
	return s->arch == ARCH_GEMMA2 || s->arch == ARCH_GEMMA3;
}

/* Rotary dims of a head. */
static int
rot_dims(const struct shape *s)
{
	return s->prf ? (int)(s->hd * s->prf) : s->hd;
}

/* longrope's factor j (long or short): spread over [1, 4]. */
static double
lr_factor(int j, int lng)
{
	return lng ? 1.5 + 0.25 * (j % 11) : 1.0 + 0.125 * (j % 7);
}

static const char *
model_type(enum cfg_arch a)
{
	static const char *const mt[] = { "llama", "qwen2", "qwen3", "smollm3",
		"mistral", "gemma2", "gemma3_text", "phi3" };

	return mt[a];
}

#define LIN_FACTOR 4.0
#define YARN_FACTOR 8.0
#define YARN_OLD 64
#define MAXPOS 512

/* The architecture's keys of s into config file f. */
static void
write_arch(FILE *f, const struct shape *s)
{
	int j, rd = rot_dims(s);

	if (s->window && s->arch != ARCH_LLAMA)
		fprintf(f, ", \"sliding_window\": %d", s->window);
	if (s->arch == ARCH_QWEN2)
		fprintf(f, ", \"use_sliding_window\": %s, \"max_window_layers\": %d",
		    s->win_flag ? "true" : "false", s->win_from);
	if (s->arch == ARCH_SMOLLM3)
		fprintf(f, ", \"no_rope_layer_interval\": %d", s->norope);
	if (gemma(s))
		fprintf(f, ", \"hidden_activation\": \"gelu_pytorch_tanh\", "
		    "\"query_pre_attn_scalar\": %g", s->qpas);
	if (s->arch == ARCH_GEMMA2)
		fprintf(f, ", \"attn_logit_softcapping\": %g, "
		    "\"final_logit_softcapping\": %g", s->acap, s->fcap);
	if (s->arch == ARCH_GEMMA3) {
		/* layer_types written out, the local base beside it */
		fprintf(f, ", \"rope_local_base_freq\": %g, \"layer_types\": [",
		    LOCAL_THETA);
		for (j = 0; j < s->layers; j++)
			fprintf(f, "%s\"%s\"", j ? ", " : "", (j + 1) %
			    s->pattern ? "sliding_attention" : "full_attention");
		fprintf(f, "]");
		/* null, or the soft-caps a Gemma 3 config may set */
		if (s->acap)
			fprintf(f, ", \"attn_logit_softcapping\": %g, "
			    "\"final_logit_softcapping\": %g", s->acap, s->fcap);
		else
			fprintf(f, ", \"attn_logit_softcapping\": null");
	}
	if (s->arch == ARCH_PHI3)
		fprintf(f, ", \"partial_rotary_factor\": %g, "
		    "\"original_max_position_embeddings\": %d",
		    s->prf ? s->prf : 1.0, s->orig);
	if (!s->rope)
		return;
	if (!strcmp(s->rope, "linear"))
		fprintf(f, ", \"rope_scaling\": {\"rope_type\": \"linear\", "
		    "\"factor\": %g}", LIN_FACTOR);
	else if (!strcmp(s->rope, "yarn"))
		fprintf(f, ", \"rope_scaling\": {\"rope_type\": \"yarn\", "
		    "\"factor\": %g, \"original_max_position_embeddings\": %d}",
		    YARN_FACTOR, YARN_OLD);
	else {
		fprintf(f, ", \"rope_scaling\": {\"type\": \"longrope\"");
		for (j = 0; j < 2; j++) {
			int i;

			fprintf(f, ", \"%s\": [", j ? "long_factor" : "short_factor");
			for (i = 0; i < rd / 2; i++)
				fprintf(f, "%s%.17g", i ? ", " : "", lr_factor(i, j));
			fprintf(f, "]");
		}
		fprintf(f, "}");
	}
}

/* config.json and model.safetensors for s into dir. */
static void
write_model(const char *dir, const struct shape *s)
{
	struct wt t[256];
	struct st_wtensor w[256];
	char path[1024];
	int n = 0, l, i, q = s->heads * s->hd, kv = s->kv * s->hd;
	double nm = gemma(s) ? 0 : 1;	/* Gemma's norms scale by 1 + w */
	size_t es = st_dtype_size(s->dt), k, nel;
	FILE *f;

	snprintf(path, sizeof(path), "%s/config.json", dir);
	if (!(f = fopen(path, "w")))
		die("open %s:", path);
	fprintf(f, "{\"architectures\": [\"%s\"], "
	    "\"model_type\": \"%s\", \"hidden_size\": %d, "
	    "\"intermediate_size\": %d, \"num_hidden_layers\": %d, "
	    "\"num_attention_heads\": %d, \"num_key_value_heads\": %d, "
	    "\"head_dim\": %d, \"vocab_size\": %d, "
	    "\"max_position_embeddings\": %d, \"rms_norm_eps\": %g, "
	    "\"rope_theta\": %g, \"tie_word_embeddings\": %s, "
	    "\"attention_bias\": %s, \"mlp_bias\": %s, "
	    "\"hidden_act\": \"silu\", \"bos_token_id\": 0, "
	    "\"eos_token_id\": 0", cfg_arch_name(s->arch), model_type(s->arch),
	    s->hidden, s->inter, s->layers, s->heads,
	    s->kv, s->hd, s->vocab, MAXPOS, EPS, THETA, s->tied ? "true" : "false",
	    s->bias && s->arch != ARCH_QWEN2 ? "true" : "false",
	    s->mlp_bias ? "true" : "false");
	write_arch(f, s);
	if (s->llama3)
		fprintf(f, ", \"rope_scaling\": {\"rope_type\": \"llama3\", "
		    "\"factor\": %g, \"low_freq_factor\": %g, "
		    "\"high_freq_factor\": %g, "
		    "\"original_max_position_embeddings\": %g}}\n",
		    L3_FACTOR, L3_LOW, L3_HIGH, L3_OLD);
	else if (!s->rope)
		fprintf(f, ", \"rope_scaling\": null}\n");
	else
		fprintf(f, "}\n");
	if (fshut(f, path))
		exit(1);

	n = addt(t, n, 0, 0.5, s->vocab, s->hidden, "model.embed_tokens.weight");
	for (l = 0; l < s->layers; l++) {
#define L(x) "model.layers.%d." x, l
		n = addt(t, n, nm, 0.1, s->hidden, 0, L("input_layernorm.weight"));
		if (s->arch == ARCH_PHI3) {
			n = addt(t, n, 0, 0.2, q + 2 * kv, s->hidden, L("self_attn.qkv_proj.weight"));
		} else {
			n = addt(t, n, 0, 0.2, q, s->hidden, L("self_attn.q_proj.weight"));
			n = addt(t, n, 0, 0.2, kv, s->hidden, L("self_attn.k_proj.weight"));
			n = addt(t, n, 0, 0.2, kv, s->hidden, L("self_attn.v_proj.weight"));
		}
		n = addt(t, n, 0, 0.2, s->hidden, q, L("self_attn.o_proj.weight"));
		if (s->bias) {
			n = addt(t, n, 0, 0.1, q, 0, L("self_attn.q_proj.bias"));
			n = addt(t, n, 0, 0.1, kv, 0, L("self_attn.k_proj.bias"));
			n = addt(t, n, 0, 0.1, kv, 0, L("self_attn.v_proj.bias"));
			if (s->arch != ARCH_QWEN2)
				n = addt(t, n, 0, 0.1, s->hidden, 0, L("self_attn.o_proj.bias"));
		}
		if (s->arch == ARCH_QWEN3 || s->arch == ARCH_GEMMA3) {
			n = addt(t, n, nm, 0.3, s->hd, 0, L("self_attn.q_norm.weight"));
			n = addt(t, n, nm, 0.3, s->hd, 0, L("self_attn.k_norm.weight"));
		}
		n = addt(t, n, nm, 0.1, s->hidden, 0, L("post_attention_layernorm.weight"));
		if (gemma(s)) {
			n = addt(t, n, nm, 0.1, s->hidden, 0, L("pre_feedforward_layernorm.weight"));
			n = addt(t, n, nm, 0.1, s->hidden, 0, L("post_feedforward_layernorm.weight"));
		}
		if (s->arch == ARCH_PHI3) {
			n = addt(t, n, 0, 0.2, 2 * s->inter, s->hidden, L("mlp.gate_up_proj.weight"));
		} else {
			n = addt(t, n, 0, 0.2, s->inter, s->hidden, L("mlp.gate_proj.weight"));
			n = addt(t, n, 0, 0.2, s->inter, s->hidden, L("mlp.up_proj.weight"));
		}
		n = addt(t, n, 0, 0.2, s->hidden, s->inter, L("mlp.down_proj.weight"));
		if (s->mlp_bias) {
			n = addt(t, n, 0, 0.1, s->inter, 0, L("mlp.gate_proj.bias"));
			n = addt(t, n, 0, 0.1, s->inter, 0, L("mlp.up_proj.bias"));
			n = addt(t, n, 0, 0.1, s->hidden, 0, L("mlp.down_proj.bias"));
		}
#undef L
	}
	n = addt(t, n, nm, 0.1, s->hidden, 0, "model.norm.weight");
	if (!s->tied)
		n = addt(t, n, 0, 0.2, s->vocab, s->hidden, "lm_head.weight");
	for (i = 0; i < n; i++) {
		w[i].name = t[i].name;
		w[i].dtype = s->dt;
		w[i].ndim = t[i].ndim;
		w[i].shape[0] = t[i].shape[0];
		w[i].shape[1] = t[i].shape[1];
	}
	snprintf(path, sizeof(path), "%s/model.safetensors", dir);
	if (!(f = fopen(path, "wb")))
		die("open %s:", path);
	if (st_write_header(f, path, w, n, NULL, 0) < 0)
		exit(1);
	for (i = 0; i < n; i++) {
		unsigned char *buf;

		nel = (size_t)t[i].shape[0] * (t[i].ndim == 2 ? t[i].shape[1] : 1);
		buf = emalloc(nel * es);
		for (k = 0; k < nel; k++) {
			float v = (float)(t[i].mean + t[i].sd * urand());
			uint16_t h;

			if (s->dt == ST_F32) {
				memcpy(buf + 4 * k, &v, 4);
				continue;
			}
			h = s->dt == ST_F16 ? conv_f32_to_f16(v) : conv_f32_to_bf16(v);
			memcpy(buf + 2 * k, &h, 2);
		}
		if (st_write_data(f, path, &w[i], buf) < 0)
			exit(1);
		free(buf);
	}
	if (fshut(f, path))
		exit(1);
}

/* What write_model put in dir, and dir. */
static void
remove_model(const char *dir)
{
	char path[1024];

	snprintf(path, sizeof(path), "%s/config.json", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/model.safetensors", dir);
	unlink(path);
	rmdir(dir);
}

/* ---- the reference ---- */

/* Tensor name as n doubles (NULL if absent and optional). */
static double *
get(const struct st *st, size_t n, int optional, const char *fmt, int l)
{
	const struct st_tensor *t;
	char name[128];
	double *v;
	size_t i;

	snprintf(name, sizeof(name), fmt, l);
	if (!(t = st_find(st, name))) {
		if (!optional)
			die("reference: no tensor %s", name);
		return NULL;
	}
	if (t->nel != n)
		die("reference: %s has %zu elements, expected %zu", name, t->nel, n);
	v = emalloc(n * sizeof(double));
	for (i = 0; i < n; i++)
		v[i] = st_elem(t, i);
	return v;
}

/* y = W x (+ b): W (rows, cols) row-major. */
static void
matvec(double *y, const double *W, const double *b, const double *x,
    int rows, int cols)
{
	int r, c;

	for (r = 0; r < rows; r++) {
		double s = b ? b[r] : 0;

		for (c = 0; c < cols; c++)
			s += W[(size_t)r * cols + c] * x[c];
		y[r] = s;
	}
}

/* HF LlamaRMSNorm: x / sqrt(mean(x^2) + eps) * w; Gemma's RMSNorm
 * scales by (1 + w) instead. */
static void
rmsnorm(double *o, const double *x, const double *w, int n,
    const struct shape *s)
{
	double ss = 0;
	int i;

	for (i = 0; i < n; i++)
		ss += x[i] * x[i];
	ss = 1 / sqrt(ss / n + EPS);
	for (i = 0; i < n; i++)
		o[i] = x[i] * ss * (gemma(s) ? 1 + w[i] : w[i]);
}

/* inv_freq[j] of a layer (local: Gemma 3's sliding ones) as HF
 * modeling_rope_utils.py computes it for s's rope_scaling; lng:
 * longrope's long factors. */
static double
inv_freq(const struct shape *s, int j, int local, int lng)
{
	int dim = rot_dims(s);
	double th = local ? LOCAL_THETA : THETA, f = pow(th, -2.0 * j / dim);
	double wl = 2 * M_PI / f, sm, lo, hi, ramp;

	if (local)
		return f;
	if (s->rope && !strcmp(s->rope, "linear"))
		return f / LIN_FACTOR;
	if (s->rope && !strcmp(s->rope, "longrope"))
		return f / lr_factor(j, lng);
	if (s->rope && !strcmp(s->rope, "yarn")) {
		/* the dims that turn 32 (beta_fast) and 1 (beta_slow)
		 * times over the original context bound the ramp */
		lo = floor(dim * log(YARN_OLD / (32 * 2 * M_PI)) / (2 * log(th)));
		hi = ceil(dim * log(YARN_OLD / (1 * 2 * M_PI)) / (2 * log(th)));
		lo = lo < 0 ? 0 : lo;
		hi = hi > dim - 1 ? dim - 1 : hi;
		ramp = (j - lo) / (hi - lo);
		ramp = ramp < 0 ? 0 : ramp > 1 ? 1 : ramp;
		return f / YARN_FACTOR * ramp + f * (1 - ramp);
	}
	if (!s->llama3 || wl < L3_OLD / L3_HIGH)
		return f;
	if (wl > L3_OLD / L3_LOW)
		return f / L3_FACTOR;
	sm = (L3_OLD / wl - L3_LOW) / (L3_HIGH - L3_LOW);
	return (1 - sm) * f / L3_FACTOR + sm * f;
}

/* The factor cos and sin are scaled by (yarn, longrope), else 1. */
static double
rope_mscale(const struct shape *s)
{
	double f = (double)MAXPOS / s->orig;

	if (s->rope && !strcmp(s->rope, "yarn"))
		return 0.1 * log(YARN_FACTOR) + 1;
	if (s->rope && !strcmp(s->rope, "longrope"))
		return sqrt(1 + log(f) / log(s->orig));
	return 1;
}

/* RoPE, rotate-half over the rotary dims: pairs (j, j + rd/2) turned
 * by pos * inv_freq[j]; the rest of the head passes. */
static void
rope(double *x, const struct shape *s, int pos, int local, int lng)
{
	int j, h2 = rot_dims(s) / 2;
	double ms = local ? 1 : rope_mscale(s);

	for (j = 0; j < h2; j++) {
		double a = pos * inv_freq(s, j, local, lng);
		double c = cos(a) * ms, sn = sin(a) * ms;
		double x0 = x[j], x1 = x[j + h2];

		x[j] = x0 * c - x1 * sn;
		x[j + h2] = x1 * c + x0 * sn;
	}
}

/* Layer l's sliding window as each config class derives it, 0: none. */
static int
ref_window(const struct shape *s, int l)
{
	switch (s->arch) {
	case ARCH_QWEN2:
		return s->win_flag && l >= s->win_from ? s->window : 0;
	case ARCH_MISTRAL:
	case ARCH_PHI3:
		return s->window;
	case ARCH_GEMMA2:
		return (l + 1) % 2 ? s->window : 0;
	case ARCH_GEMMA3:
		return (l + 1) % s->pattern ? s->window : 0;
	default:
		return 0;
	}
}

/* The reference's tap points, as seq.h names them: row t of point
 * name in layer l (-1: ln_final), n values (the pattern: heads rows of
 * t + 1 keys). */
typedef void ref_hook(void *ctx, enum seq_tap_name name, int l, int t,
    const double *v, int n);

/* The logits (n, vocab) of ids[0..n) from position 0; with hook, each
 * tap point of each layer and position handed to it. */
static void
ref_forward(const char *dir, const struct shape *s, const int *ids, int n,
    double *logits, ref_hook *hook, void *hctx)
{
	int d = s->hidden, ff = s->inter, hd = s->hd, q = s->heads * hd;
	int kv = s->kv * hd, kv_mul = s->heads / s->kv, l, t, h, p, i;
	int lng = s->rope && !strcmp(s->rope, "longrope") && n > s->orig;
	double *x = emalloc((size_t)n * d * sizeof(double));
	double *xn = emalloc(d * sizeof(double)), *o = emalloc(d * sizeof(double));
	double *Q = emalloc((size_t)n * q * sizeof(double));
	double *K = emalloc((size_t)n * kv * sizeof(double));
	double *V = emalloc((size_t)n * kv * sizeof(double));
	double *att = emalloc((size_t)n * q * sizeof(double));
	double *sc = emalloc(n * sizeof(double));
	double *g = emalloc(ff * sizeof(double)), *u = emalloc(ff * sizeof(double));
	double scale = gemma(s) ? 1 / sqrt(s->qpas) : 1 / sqrt((double)hd);
	double *E, *W, *head, *pat = emalloc((size_t)s->heads * n * sizeof(double));
	double *lens = emalloc((size_t)s->vocab * sizeof(double));
	char path[1024];
	struct st st;

	snprintf(path, sizeof(path), "%s/model.safetensors", dir);
	if (st_open(&st, path) < 0)
		exit(1);
	E = get(&st, (size_t)s->vocab * d, 0, "model.embed_tokens.weight", 0);
	for (t = 0; t < n; t++)
		for (i = 0; i < d; i++)	/* Gemma: scaled by sqrt(hidden) */
			x[(size_t)t * d + i] = E[(size_t)ids[t] * d + i] *
			    (gemma(s) ? sqrt((double)d) : 1);
	W = get(&st, d, 0, "model.norm.weight", 0);
	head = s->tied ? E : get(&st, (size_t)s->vocab * d, 0, "lm_head.weight", 0);
	for (l = 0; l < s->layers; l++) {
#define P "model.layers.%d."
		int phi = s->arch == ARCH_PHI3, win = ref_window(s, l);
		int local = s->arch == ARCH_GEMMA3 && win;
		int norope = s->arch == ARCH_SMOLLM3 && (l + 1) % s->norope == 0;
		double *an = get(&st, d, 0, P "input_layernorm.weight", l);
		double *wqkv = phi ? get(&st, (size_t)(q + 2 * kv) * d, 0,
		    P "self_attn.qkv_proj.weight", l) : NULL;
		double *wq = phi ? NULL : get(&st, (size_t)q * d, 0, P "self_attn.q_proj.weight", l);
		double *wk = phi ? NULL : get(&st, (size_t)kv * d, 0, P "self_attn.k_proj.weight", l);
		double *wv = phi ? NULL : get(&st, (size_t)kv * d, 0, P "self_attn.v_proj.weight", l);
		double *wo = get(&st, (size_t)d * q, 0, P "self_attn.o_proj.weight", l);
		double *bq = get(&st, q, 1, P "self_attn.q_proj.bias", l);
		double *bk = get(&st, kv, 1, P "self_attn.k_proj.bias", l);
		double *bv = get(&st, kv, 1, P "self_attn.v_proj.bias", l);
		double *bo = get(&st, d, 1, P "self_attn.o_proj.bias", l);
		double *qn = get(&st, hd, 1, P "self_attn.q_norm.weight", l);
		double *kn = get(&st, hd, 1, P "self_attn.k_norm.weight", l);
		double *pan = get(&st, d, 0, P "post_attention_layernorm.weight", l);
		double *pfn = get(&st, d, 1, P "pre_feedforward_layernorm.weight", l);
		double *qfn = get(&st, d, 1, P "post_feedforward_layernorm.weight", l);
		double *w13 = phi ? get(&st, (size_t)2 * ff * d, 0,
		    P "mlp.gate_up_proj.weight", l) : NULL;
		double *w1 = phi ? NULL : get(&st, (size_t)ff * d, 0, P "mlp.gate_proj.weight", l);
		double *w3 = phi ? NULL : get(&st, (size_t)ff * d, 0, P "mlp.up_proj.weight", l);
		double *w2 = get(&st, (size_t)d * ff, 0, P "mlp.down_proj.weight", l);
		double *b1 = get(&st, ff, 1, P "mlp.gate_proj.bias", l);
		double *b3 = get(&st, ff, 1, P "mlp.up_proj.bias", l);
		double *b2 = get(&st, d, 1, P "mlp.down_proj.bias", l);
		/* Gemma: the attention output's norm, and the MLP's own */
		double *fn = gemma(s) ? pfn : pan, *post_attn = gemma(s) ? pan : NULL;
#undef P
		/* Phi-3's fused tensors: q, k, v rows; gate, up rows */
		const double *Wq = phi ? wqkv : wq;
		const double *Wk = phi ? wqkv + (size_t)q * d : wk;
		const double *Wv = phi ? wqkv + (size_t)(q + kv) * d : wv;
		const double *W1 = phi ? w13 : w1;
		const double *W3 = phi ? w13 + (size_t)ff * d : w3;

		for (t = 0; t < n; t++) {
			double *xt = x + (size_t)t * d;

			if (hook)
				hook(hctx, TAP_RESID_PRE, l, t, xt, d);
			/* q, k, v of the normed stream; q/k norms; RoPE */
			rmsnorm(xn, xt, an, d, s);
			matvec(Q + (size_t)t * q, Wq, bq, xn, q, d);
			matvec(K + (size_t)t * kv, Wk, bk, xn, kv, d);
			matvec(V + (size_t)t * kv, Wv, bv, xn, kv, d);
			for (h = 0; qn && h < s->heads; h++)
				rmsnorm(Q + (size_t)t * q + h * hd,
				    Q + (size_t)t * q + h * hd, qn, hd, s);
			for (h = 0; kn && h < s->kv; h++)
				rmsnorm(K + (size_t)t * kv + h * hd,
				    K + (size_t)t * kv + h * hd, kn, hd, s);
			for (h = 0; !norope && h < s->heads; h++)
				rope(Q + (size_t)t * q + h * hd, s, t, local, lng);
			for (h = 0; !norope && h < s->kv; h++)
				rope(K + (size_t)t * kv + h * hd, s, t, local, lng);
			if (hook) {
				hook(hctx, TAP_Q, l, t, Q + (size_t)t * q, q);
				hook(hctx, TAP_K, l, t, K + (size_t)t * kv, kv);
				hook(hctx, TAP_V, l, t, V + (size_t)t * kv, kv);
			}
			/* causal attention over the window, head h on KV
			 * head h / kv_mul */
			for (h = 0; h < s->heads; h++) {
				const double *qh = Q + (size_t)t * q + h * hd;
				double mx = -INFINITY, sum = 0, *ah = att + h * hd;
				int gk = h / kv_mul * hd;
				int p0 = win && t - win + 1 > 0 ? t - win + 1 : 0;

				for (p = p0; p <= t; p++) {
					double dot = 0;

					for (i = 0; i < hd; i++)
						dot += qh[i] * K[(size_t)p * kv + gk + i];
					sc[p] = dot * scale;
					if (s->acap)
						sc[p] = s->acap * tanh(sc[p] / s->acap);
					mx = sc[p] > mx ? sc[p] : mx;
				}
				for (p = p0; p <= t; p++)
					sum += sc[p] = exp(sc[p] - mx);
				for (p = 0; p <= t; p++)
					pat[(size_t)h * (t + 1) + p] = p < p0 ? 0 :
					    sc[p] / sum;
				for (i = 0; i < hd; i++) {
					double a = 0;

					for (p = p0; p <= t; p++)
						a += sc[p] / sum * V[(size_t)p * kv + gk + i];
					ah[i] = a;
				}
			}
			if (hook) {
				hook(hctx, TAP_PATTERN, l, t, pat, s->heads * (t + 1));
				hook(hctx, TAP_Z, l, t, att, q);
			}
			/* x += o_proj(attention) (Gemma: normed first) */
			matvec(o, wo, bo, att, d, q);
			if (post_attn)
				rmsnorm(o, o, post_attn, d, s);
			for (i = 0; i < d; i++)
				xt[i] += o[i];
			if (hook) {
				hook(hctx, TAP_ATTN_OUT, l, t, o, d);
				hook(hctx, TAP_RESID_MID, l, t, xt, d);
			}
			/* x += down(act(gate(xn)) * up(xn)): silu, Gemma's
			 * tanh GELU */
			rmsnorm(xn, xt, fn, d, s);
			matvec(g, W1, b1, xn, ff, d);
			matvec(u, W3, b3, xn, ff, d);
			for (i = 0; i < ff; i++)
				g[i] = (gemma(s) ? 0.5 * g[i] * (1 + tanh(sqrt(2 / M_PI) *
				    (g[i] + 0.044715 * g[i] * g[i] * g[i]))) :
				    g[i] / (1 + exp(-g[i]))) * u[i];
			matvec(o, w2, b2, g, d, ff);
			if (qfn)
				rmsnorm(o, o, qfn, d, s);
			for (i = 0; i < d; i++)
				xt[i] += o[i];
			if (!hook)
				continue;
			hook(hctx, TAP_MLP_OUT, l, t, o, d);
			hook(hctx, TAP_RESID_POST, l, t, xt, d);
			/* the logit lens: the final norm and lm_head */
			rmsnorm(xn, xt, W, d, s);
			matvec(lens, head, NULL, xn, s->vocab, d);
			for (i = 0; s->fcap && i < s->vocab; i++)
				lens[i] = s->fcap * tanh(lens[i] / s->fcap);
			hook(hctx, TAP_LENS, l, t, lens, s->vocab);
		}
		free(an), free(wqkv), free(wq), free(wk), free(wv), free(wo);
		free(bq), free(bk), free(bv), free(bo), free(qn), free(kn);
		free(pan), free(pfn), free(qfn), free(w13), free(w1), free(w3);
		free(w2), free(b1), free(b3), free(b2);
	}
	for (t = 0; t < n; t++) {
		double *lg = logits + (size_t)t * s->vocab;

		rmsnorm(xn, x + (size_t)t * d, W, d, s);
		if (hook)
			hook(hctx, TAP_NORMALIZED, -1, t, xn, d);
		matvec(lg, head, NULL, xn, s->vocab, d);
		for (i = 0; s->fcap && i < s->vocab; i++)
			lg[i] = s->fcap * tanh(lg[i] / s->fcap);
	}
	if (head != E)
		free(head);
	free(E), free(W), free(x), free(xn), free(o), free(Q), free(K);
	free(V), free(att), free(sc), free(g), free(u), free(pat), free(lens);
	st_close(&st);
}

/* ---- the library against it ---- */

struct rows {			/* model_forward_all's rows, gathered */
	float *v;
	int vocab, next;
};

static int
gather(void *ctx, const float *logits, int i, int rows)
{
	struct rows *r = ctx;

	CHECKF(i == r->next, "model_forward_all: rows from %d, expected %d",
	    i, r->next);
	memcpy(r->v + (size_t)i * r->vocab, logits,
	    (size_t)rows * r->vocab * sizeof(float));
	r->next = i + rows;
	return 0;
}

/* Row got (vocab floats) against the reference row want as the golden
 * tests compare (tools/npycmp): ||got - want|| / ||want|| <= 1e-5,
 * max |got - want| <= 1e-4, the same argmax. */
static void
near_row(const struct shape *s, const char *what, int pos, const float *got,
    const double *want)
{
	double e2 = 0, w2 = 0, emax = 0;
	int i, ag = 0, aw = 0;

	for (i = 0; i < s->vocab; i++) {
		double e = got[i] - want[i];

		e2 += e * e;
		w2 += want[i] * want[i];
		emax = fabs(e) > emax ? fabs(e) : emax;
		ag = got[i] > got[ag] ? i : ag;
		aw = want[i] > want[aw] ? i : aw;
	}
	CHECKF(sqrt(e2 / w2) <= 1e-5 && emax <= 1e-4 && ag == aw,
	    "%s, %s, position %d: relative error %.3g, max %.3g, argmax %d "
	    "(reference %d)", s->name, what, pos, sqrt(e2 / w2), emax, ag, aw);
}

/* llm-score's log-probabilities (score.h over the library's rows) against
 * log_softmax of the reference rows, in double: each token after the
 * first, given the ones before it, to the bound llm-score.bats holds
 * them to against the golden logits of ../shared. */
static void
near_logprobs(const struct shape *s, const int *ids, const float *got,
    const double *want)
{
	double lse, m, sum, lw, emax = 0;
	size_t at;
	int p, i;

	for (p = 0; p + 1 < s->n; p++) {
		const float *g = got + (size_t)p * s->vocab;
		const double *w = want + (size_t)p * s->vocab;

		if (score_lse(g, (size_t)s->vocab, &lse, &at) < 0) {
			CHECKF(0, "%s, position %d: logit %zu not finite", s->name,
			    p, at);
			return;
		}
		for (m = w[0], i = 1; i < s->vocab; i++)
			m = w[i] > m ? w[i] : m;
		for (sum = 0, i = 0; i < s->vocab; i++)
			sum += exp(w[i] - m);
		lw = w[ids[p + 1]] - m - log(sum);
		if (fabs(g[ids[p + 1]] - lse - lw) > emax)
			emax = fabs(g[ids[p + 1]] - lse - lw);
	}
	CHECKF(emax <= 2e-5, "%s: log-probabilities off the reference's by "
	    "up to %.3g", s->name, emax);
}

/* ---- the taps against the reference's ---- */

#define TMAXL 8		/* layers a test shape may have */

struct taps {			/* every tap point's rows, in double */
	const struct shape *s;
	int n;
	double *v[TAP_NNAMES][TMAXL + 1];	/* [name][layer + 1] */
};

/* Values a row of name holds in a struct taps (the pattern: heads rows
 * of n keys, those past the position 0). */
static int
tap_cols(const struct shape *s, enum seq_tap_name name, int n)
{
	switch (name) {
	case TAP_Q: case TAP_Z:
		return s->heads * s->hd;
	case TAP_K: case TAP_V:
		return s->kv * s->hd;
	case TAP_PATTERN:
		return s->heads * n;
	case TAP_LENS:
		return s->vocab;
	default:
		return s->hidden;
	}
}

static double *
tap_row(struct taps *tp, enum seq_tap_name name, int l, int t)
{
	size_t cols = tap_cols(tp->s, name, tp->n), i;
	double **v = &tp->v[name][l + 1];

	if (!*v) {
		*v = emalloc((size_t)tp->n * cols * sizeof(double));
		for (i = 0; i < tp->n * cols; i++)
			(*v)[i] = NAN;	/* a row never tapped fails */
	}
	return *v + (size_t)t * cols;
}

static void
taps_free(struct taps *tp)
{
	int i, l;

	for (i = 0; i < TAP_NNAMES; i++)
		for (l = 0; l <= TMAXL; l++)
			free(tp->v[i][l]);
}

/* Row v of point name, k values, into its place (the pattern's rows of
 * t + 1 keys spread to n). */
static void
tap_store(struct taps *tp, enum seq_tap_name name, int l, int t,
    const double *v, const float *f, int k)
{
	double *r = tap_row(tp, name, l, t);
	int i, h, keys = t + 1;

	for (i = 0; i < k; i++) {
		h = name == TAP_PATTERN ? i / keys : 0;
		r[name == TAP_PATTERN ? h * tp->n + i % keys : i] = v ? v[i] : f[i];
	}
	for (h = 0; name == TAP_PATTERN && h < tp->s->heads; h++)
		for (i = keys; i < tp->n; i++)
			r[h * tp->n + i] = 0;
}

static void
ref_tap(void *ctx, enum seq_tap_name name, int l, int t, const double *v,
    int n)
{
	tap_store(ctx, name, l, t, v, NULL, n);
}

static void
lib_tap(void *ctx, enum seq_tap_name name, int layer, int pos, int rows,
    int cols, const float *data)
{
	struct taps *tp = ctx;
	int i;

	for (i = 0; i < rows; i++)
		tap_store(tp, name, layer, pos + i, NULL, data + (size_t)i * cols,
		    cols);
}

/* Every point of every layer and position against the reference's:
 * ||got - want|| / ||want|| <= 1e-5 a row. */
static void
near_taps(const struct shape *s, const char *what, struct taps *got,
    struct taps *want)
{
	char label[64];
	int name, l, t, i, cols, bad;

	for (name = 0; name < TAP_NNAMES; name++)
		for (l = name == TAP_NORMALIZED ? -1 : 0;
		    l < (name == TAP_NORMALIZED ? 0 : s->layers); l++) {
			cols = tap_cols(s, name, want->n);
			for (t = 0, bad = 0; t < want->n && !bad; t++) {
				const double *g = tap_row(got, name, l, t);
				const double *w = tap_row(want, name, l, t);
				double e2 = 0, w2 = 0;

				for (i = 0; i < cols; i++) {
					e2 += (g[i] - w[i]) * (g[i] - w[i]);
					w2 += w[i] * w[i];
				}
				if (!(sqrt(e2) <= 1e-5 * sqrt(w2) + 1e-30)) {
					CHECKF(0, "%s, %s: %s at position %d: relative "
					    "error %.3g", s->name, what, seq_tap_label(name,
					    l, label, sizeof(label)), t, sqrt(e2 / w2));
					bad = 1;
				}
			}
		}
}

/* Taps on every point, prefill and then decode after split: each point
 * near the reference's, the logits unchanged by the taps (all: the
 * rows without), the last layer's lens the logits, bit for bit. */
static void
test_taps(const struct shape *s, const struct model *m, const int *ids,
    int split, struct taps *want, const float *all, int threads)
{
	struct seq_tap tp = { lib_tap, NULL, (1u << TAP_NNAMES) - 1, 0,
		s->layers, 0, NULL, 0 };
	struct taps got;
	struct rows r;
	struct seq sq;
	size_t V = s->vocab;
	int n = want->n, i, mode;
	float *lg = emalloc((size_t)n * V * sizeof(float));
	char what[64];

	for (mode = 0; mode < 2; mode++) {
		memset(&got, 0, sizeof(got));
		got.s = s, got.n = n;
		tp.ctx = &got;
		if (seq_open(&sq, m, n) < 0) {
			CHECKF(0, "%s: seq_open failed", s->name);
			break;
		}
		sq.tap = &tp;
		if (mode == 0) {	/* prefill */
			r = (struct rows){ lg, (int)V, 0 };
			CHECK(seq_forward_all(&sq, ids, n, gather, &r) == 0);
			CHECKF(!memcmp(lg, all, n * V * sizeof(float)), "%s, %d "
			    "threads: the logits differ with taps", s->name, threads);
			for (i = 0; i < n; i++) {
				const double *ln = tap_row(&got, TAP_LENS,
				    s->layers - 1, i);
				size_t k;

				for (k = 0; k < V && (float)ln[k] == all[i * V + k]; k++)
					;
				CHECKF(k == V, "%s, %d threads: the last lens at %d "
				    "differs from the logits", s->name, threads, i);
			}
		} else {		/* prefill, then decode */
			CHECK(seq_forward(&sq, ids, split) != NULL);
			for (i = split; i < n; i++)
				CHECK(seq_forward(&sq, ids + i, 1) != NULL);
		}
		CHECK(!tp.failed);
		seq_close(&sq);
		snprintf(what, sizeof(what), "taps, %s, %d thread%s",
		    mode ? "decode" : "prefill", threads, threads > 1 ? "s" : "");
		near_taps(s, what, &got, want);
		taps_free(&got);
	}
	seq_tap_free(&tp);
	free(lg);
}

/* Two sequences on one model, their steps interleaved: a runs ids (a
 * prefill of split, then decode), b runs them reversed (a prefill of n
 * - split, then decode), and each row equals what a sequence alone
 * gives, bit for bit: a's the single run's dec, b's a fresh sequence's
 * afterwards.  A row is compared after the other sequence has run a
 * step, so a step that wrote the other's state would show. */
static void
two_seqs(const struct shape *s, const struct model *m, const int *ids,
    int n, int split, const float *dec, int threads)
{
	size_t V = (size_t)s->vocab, rb = V * sizeof(float);
	int *rev = emalloc(n * sizeof(int)), i, nb = n - split;
	float *bout = emalloc((size_t)n * rb);
	const float *la, *lb;
	struct seq a = { 0 }, b = { 0 };

	for (i = 0; i < n; i++)
		rev[i] = ids[n - 1 - i];
	if (seq_open(&a, m, n) < 0 || seq_open(&b, m, n) < 0) {
		CHECKF(0, "%s: seq_open failed", s->name);
		goto out;
	}
	la = seq_forward(&a, ids, split);
	lb = seq_forward(&b, rev, nb);
	CHECKF(la && lb && !memcmp(la, dec + (split - 1) * V, rb),
	    "%s, %d threads: a's prefill differs beside b's", s->name, threads);
	if (lb)
		memcpy(bout + (nb - 1) * V, lb, rb);
	for (i = 0; split + i < n || nb + i < n; i++) {
		if (split + i < n) {
			la = seq_forward(&a, ids + split + i, 1);
			CHECKF(la && !memcmp(la, dec + (split + i) * V, rb),
			    "%s, %d threads: a's decode at %d differs beside b",
			    s->name, threads, split + i);
		}
		if (nb + i < n && (lb = seq_forward(&b, rev + nb + i, 1)))
			memcpy(bout + (nb + i) * V, lb, rb);
	}
	EQ(a.pos, n);
	EQ(b.pos, n);
	seq_close(&b);
	seq_close(&a);
	/* b alone */
	if (seq_open(&b, m, n) < 0) {
		CHECKF(0, "%s: seq_open failed", s->name);
		goto out;
	}
	lb = seq_forward(&b, rev, nb);
	CHECKF(lb && !memcmp(lb, bout + (nb - 1) * V, rb),
	    "%s, %d threads: b's prefill differs from b alone", s->name,
	    threads);
	for (i = nb; i < n; i++) {
		lb = seq_forward(&b, rev + i, 1);
		CHECKF(lb && !memcmp(lb, bout + i * V, rb), "%s, %d threads: b's "
		    "decode at %d differs from b alone", s->name, threads, i);
	}
out:
	seq_close(&b);
	seq_close(&a);
	free(rev), free(bout);
}

/* Sequences run together by seq_forward_batch, each bit-equal to its
 * own seq_forward run (a prompt, then one id a step): five records of
 * different lengths joining at different steps, their prompts cut by
 * seq_chunk into pieces beside the others' decode steps (a budget of 23
 * rows a pass), a one-id prompt, one of SEQ_MAXBATCH + 1 ids (a lone
 * last id, decode's attention) where the shape is long enough; in the
 * exact mode and, where the model allows, Q8_0 and Q4 (whose decode
 * products are integer sums: those rows keep the matvec). */
#define NB 5
struct brec {			/* a record of batch_mode's */
	struct seq sq;
	int *ids, p, len;	/* ids[0..len), the first p the prompt */
	int join, done;		/* the step it joins at; prompt ids run */
	float *want;		/* (len, vocab) its logits alone */
};

/* One round of batch_mode's records, each compared with want: 0, or
 * -1 if a pass failed. */
static int
batch_round(const struct shape *s, const char *what, struct seq_batch *b,
    struct brec *r)
{
	size_t V = (size_t)s->vocab;
	int k, i, step, busy, rows, c, nv, vn[NB], vids[SEQ_MAXBATCH];
	int budget = 23;
	struct seq *v[NB];

	for (k = 0; k < NB; k++) {
		seq_release(&r[k].sq);
		r[k].sq.span = r[k].p;
		r[k].done = 0;
	}
	for (step = 0, busy = 1; busy; step++) {
		for (k = 0, nv = 0, rows = 0, busy = 0; k < NB; k++) {
			if (r[k].sq.pos >= r[k].len)
				continue;
			busy = 1;
			if (step < r[k].join)
				continue;
			c = r[k].done < r[k].p ? seq_chunk(r[k].done, r[k].p,
			    budget - rows) : rows < budget;
			if (!c)
				continue;
			memcpy(vids + rows, r[k].ids + r[k].sq.pos,
			    c * sizeof(int));
			v[nv] = &r[k].sq, vn[nv++] = c;
			rows += c;
			if (r[k].done < r[k].p)
				r[k].done += c;
		}
		if (nv && seq_forward_batch(b, v, vids, vn, nv) < 0) {
			CHECKF(0, "%s: seq_forward_batch failed", s->name);
			return -1;
		}
		for (i = 0; i < nv; i++) {
			for (k = 0; &r[k].sq != v[i]; k++)
				;
			if (v[i]->pos >= r[k].p)
				CHECKF(!memcmp(v[i]->logits, r[k].want +
				    (v[i]->pos - 1) * V, V * sizeof(float)),
				    "%s, %s: record %d of the batch differs "
				    "from it alone at %d", s->name, what, k,
				    v[i]->pos - 1);
		}
	}
	for (k = 0; k < NB; k++)
		EQ(r[k].sq.pos, r[k].len);
	return 0;
}

/* Sequences run together by seq_forward_batch, each bit-equal to its
 * own seq_forward run (a prompt, then one id a step): five records of
 * different lengths joining at different steps, their prompts cut by
 * seq_chunk into pieces beside the others' decode steps (a budget of 23
 * rows a pass), a one-id prompt, one of SEQ_MAXBATCH + 1 ids (a lone
 * last id, decode's attention) where the shape is long enough, their
 * KV blocks from one pool; in the exact mode and, where the model
 * and the CPU allow, bf16-act, Q8_0 and Q4 (whose decode products are
 * integer sums: those rows keep the matvec) and Q8_0 and Q4 with
 * --int8-act (every row through their matmul, kern.h). */
static void
batch_mode(const struct shape *s, const char *dir, const int *ids0,
    int threads, enum model_mode mode, int int8act)
{
	size_t V = (size_t)s->vocab, rb = V * sizeof(float);
	int n = s->n, k, i, c, vn[2], vids[3];
	struct brec r[NB];
	struct seq ref = { 0 }, *v[2];
	struct seq_batch b = { 0 };
	struct seq_kvpool pool = { 0 };
	const float *lg;
	struct model m;
	char what[64];

	memset(r, 0, sizeof(r));
	if (model_load(&m, dir, threads) < 0) {
		CHECKF(0, "%s: model_load failed", s->name);
		return;
	}
	if (model_set_mode(&m, mode) < 0 || m.mode != mode ||
	    m.mode_fallback || (int8act && model_set_int8act(&m) < 0)) {
		model_close(&m);	/* a mode the model cannot take */
		return;
	}
	snprintf(what, sizeof(what), "%s, %d thread%s", model_mode_name(&m),
	    threads, threads > 1 ? "s" : "");
	r[0].p = n / 3, r[0].len = n, r[0].join = 0;
	r[1].p = n - n / 3, r[1].len = n, r[1].join = 0;
	r[2].p = 1, r[2].len = n < 20 ? n : 20, r[2].join = 2;
	r[3].p = n > SEQ_MAXBATCH + 1 ? SEQ_MAXBATCH + 1 : n - 2;
	r[3].len = n, r[3].join = 3;
	r[4].p = 2, r[4].len = 6, r[4].join = 5;
	for (k = 0; k < NB; k++) {
		r[k].ids = emalloc(n * sizeof(int));
		for (i = 0; i < n; i++)
			r[k].ids[i] = ids0[(k % 2 ? n - 1 - i : i + 7 * k) % n];
		r[k].want = emalloc(n * rb);
		/* alone: the prompt, then one id a step */
		if (seq_open(&ref, &m, n) < 0 ||
		    !(lg = seq_forward(&ref, r[k].ids, r[k].p))) {
			CHECKF(0, "%s: reference run failed", s->name);
			goto out;
		}
		memcpy(r[k].want + (r[k].p - 1) * V, lg, rb);
		for (i = r[k].p; i < r[k].len &&
		    (lg = seq_forward(&ref, r[k].ids + i, 1)); i++)
			memcpy(r[k].want + i * V, lg, rb);
		seq_close(&ref);
	}
	/* room for all five at once, the blocks shared */
	if (seq_kvpool_open(&pool, &m, (size_t)NB * (n + SEQ_KVBLOCK),
	    W_F32) < 0 ||
	    seq_batch_open(&b, &m) < 0) {
		CHECKF(0, "%s: seq_batch_open failed", s->name);
		goto out;
	}
	for (k = 0; k < NB; k++)
		if (seq_open_pool(&r[k].sq, &m, n, &pool) < 0)
			goto out;
	/* twice: the second round's records join in the other order and
	 * take the blocks the first gave back, in another arrangement */
	if (batch_round(s, what, &b, r) < 0)
		goto out;
	for (k = 0; k < NB; k++)
		r[k].join = 2 * (NB - 1 - k);
	if (batch_round(s, what, &b, r) < 0)
		goto out;
	/* all the blocks back in the pool, and no more ever touched than
	 * the five records' positions take */
	for (k = 0, c = 0; k < NB; k++) {
		c += (r[k].len + SEQ_KVBLOCK - 1) / SEQ_KVBLOCK;
		seq_release(&r[k].sq);
	}
	EQ(pool.used, 0);
	CHECK(pool.peak <= (unsigned)c && pool.top == pool.peak);
	/* a pass refused whole: an id outside the vocabulary */
	v[0] = &r[0].sq, v[1] = &r[1].sq, vn[0] = 2, vn[1] = 1;
	vids[0] = 1, vids[1] = 2, vids[2] = (int)V;
	CHECK(seq_forward_batch(&b, v, vids, vn, 2) < 0);
	EQ(r[0].sq.pos, 0);
	EQ(seq_kv_used(&r[0].sq), 0);
out:
	seq_batch_close(&b);
	seq_close(&ref);
	for (k = 0; k < NB; k++) {
		seq_close(&r[k].sq);
		free(r[k].ids), free(r[k].want);
	}
	seq_kvpool_close(&pool);
	model_close(&m);
}

/* The logits of a q8_0 KV cache (--kv-type q8_0) at every position:
 * the prompt's first half at once, then one id a step; into out (n
 * rows).  The cache its own mapping, or blocks from a pool of q8_0
 * blocks.  0, or -1. */
static int
q8_run(struct model *m, const int *ids, int n, int pooled, float *out)
{
	size_t V = (size_t)m->cfg.vocab_size;
	struct seq_kvpool pool = { 0 };
	struct seq sq = { 0 };
	const float *lg;
	int i, h = n / 2, ok = 0;

	if (pooled ? seq_kvpool_open(&pool, m, (size_t)n, W_GQ8_0) < 0 ||
	    seq_open_pool(&sq, m, n, &pool) < 0 :
	    seq_open_kv(&sq, m, n, W_GQ8_0) < 0)
		goto out;
	if (!(lg = seq_forward(&sq, ids, h)))
		goto out;
	memcpy(out + (h - 1) * V, lg, V * sizeof(float));
	for (i = h; i < n && (lg = seq_forward(&sq, ids + i, 1)); i++)
		memcpy(out + i * V, lg, V * sizeof(float));
	ok = i == n;
	/* a q8_0 position: 2 rows a layer and KV head of whole blocks of
	 * 32 (34 bytes each) */
	EQ(seq_kv_used(&sq), (size_t)(n + SEQ_KVBLOCK - 1) / SEQ_KVBLOCK *
	    SEQ_KVBLOCK * m->cfg.num_hidden_layers * 2 *
	    m->cfg.num_key_value_heads * ((m->hd + 31) / 32) * 34);
out:
	seq_close(&sq);
	seq_kvpool_close(&pool);
	return ok ? 0 : -1;
}

/* A q8_0 KV cache: the same bits from a pool's blocks as from the
 * sequence's own mapping and whatever the threads, and logits near the
 * float32 cache's (the quantization's error: bench/NOTES.md, "Q8_0 KV
 * cache"; the largest seen on these shapes 0.021, avx512, by 2.4x). */
static void
test_kv_q8(const struct shape *s, const char *dir, const int *ids,
    const double *want)
{
	size_t V = (size_t)s->vocab, rb = (size_t)s->n * V * sizeof(float);
	float *a = emalloc(rb), *b = emalloc(rb);
	double e2, w2, worst = 0, e;
	struct model m;
	int threads, pooled, i, h = s->n / 2, k;

	for (threads = 1; threads <= 2; threads++) {
		if (model_load(&m, dir, threads) < 0) {
			CHECKF(0, "%s: model_load failed", s->name);
			break;
		}
		for (pooled = 0; pooled < 2; pooled++) {
			if (q8_run(&m, ids, s->n, pooled, threads + pooled == 1 ?
			    a : b) < 0) {
				CHECKF(0, "%s: q8_0 KV cache, %d threads, pool %d: "
				    "run failed", s->name, threads, pooled);
				continue;
			}
			if (threads + pooled > 1)
				CHECKF(!memcmp(a + (h - 1) * V, b + (h - 1) * V,
				    (size_t)(s->n - h + 1) * V * sizeof(float)),
				    "%s: q8_0 KV cache, %d threads, pool %d: "
				    "differs from 1 thread's own mapping",
				    s->name, threads, pooled);
		}
		model_close(&m);
	}
	for (i = h - 1; i < s->n; i++) {
		for (e2 = w2 = 0, k = 0; k < s->vocab; k++) {
			e = a[(size_t)i * V + k] - want[(size_t)i * V + k];
			e2 += e * e;
			w2 += want[(size_t)i * V + k] * want[(size_t)i * V + k];
		}
		worst = sqrt(e2 / w2) > worst ? sqrt(e2 / w2) : worst;
	}
	CHECKF(worst <= 0.05, "%s: q8_0 KV cache: relative error %.3g of the "
	    "logits, over 0.05", s->name, worst);
	if (getenv("TEST_MODEL_VERBOSE"))
		printf("%s: q8_0 KV cache: worst relative error %.3g\n",
		    s->name, worst);
	free(a), free(b);
}

static void
test_batch(const struct shape *s, const char *dir, const int *ids)
{
	int threads;

	for (threads = 1; threads <= 2; threads++) {
		batch_mode(s, dir, ids, threads, MODEL_EXACT, 0);
		batch_mode(s, dir, ids, threads, MODEL_BF16ACT, 0);
		batch_mode(s, dir, ids, threads, MODEL_Q8_0, 0);
		batch_mode(s, dir, ids, threads, MODEL_Q4, 0);
		batch_mode(s, dir, ids, threads, MODEL_Q8_0, 1);
		batch_mode(s, dir, ids, threads, MODEL_Q4, 1);
	}
}

/* seq_forward_batch_all: every row of each record of a batch bit-equal
 * to its own seq_forward_all run (llm-score -P, llm-logits -a -P):
 * records of one id, two ids, a third, the whole and, where the shape
 * is long enough, SEQ_MAXBATCH + 1 ids (a lone last id: decode's
 * attention, and W_Q4's matvec among matmul rows), joining at different
 * steps and cut by seq_chunk to a budget of 23 rows a pass. */
#define NA 5
static void
batch_all_mode(const struct shape *s, const char *dir, const int *ids0,
    int threads, enum model_mode mode)
{
	static const char *names[] = { "exact", "bf16-act", "q8_0", "q4" };
	size_t V = (size_t)s->vocab, rb = V * sizeof(float);
	int n = s->n, k, i, step, busy, rows, c, nv, budget = 23;
	int len[NA], join[NA], done[NA], *ids[NA] = { 0 }, vn[NA], who[NA];
	int vids[SEQ_MAXBATCH];
	struct seq sq[NA] = { 0 }, ref = { 0 }, *v[NA];
	float *want[NA] = { 0 };
	const float *got[NA];
	struct seq_batch b = { 0 };
	struct model m;
	struct rows r;

	if (model_load(&m, dir, threads) < 0) {
		CHECKF(0, "%s: model_load failed", s->name);
		return;
	}
	if (model_set_mode(&m, mode) < 0 || m.mode != mode) {
		model_close(&m);	/* a mode the model cannot take */
		return;
	}
	len[0] = 1, len[1] = 2, len[2] = n / 3, len[3] = n;
	len[4] = n > SEQ_MAXBATCH + 1 ? SEQ_MAXBATCH + 1 : n - 1;
	join[0] = 1, join[1] = 0, join[2] = 2, join[3] = 0, join[4] = 3;
	for (k = 0; k < NA; k++) {
		ids[k] = emalloc(n * sizeof(int));
		for (i = 0; i < n; i++)
			ids[k][i] = ids0[(k % 2 ? n - 1 - i : i + 5 * k) % n];
		want[k] = emalloc(n * rb);
		r = (struct rows){ want[k], (int)V, 0 };
		if (seq_open(&ref, &m, n) < 0 ||
		    seq_forward_all(&ref, ids[k], len[k], gather, &r) < 0) {
			CHECKF(0, "%s: reference run failed", s->name);
			goto out;
		}
		seq_close(&ref);
		if (seq_open(&sq[k], &m, n) < 0)
			goto out;
		sq[k].span = len[k];
		done[k] = 0;
	}
	if (seq_batch_open(&b, &m) < 0) {
		CHECKF(0, "%s: seq_batch_open failed", s->name);
		goto out;
	}
	for (step = 0, busy = 1; busy; step++) {
		for (k = 0, nv = 0, rows = 0, busy = 0; k < NA; k++) {
			if (done[k] >= len[k])
				continue;
			busy = 1;
			if (step < join[k] ||
			    !(c = seq_chunk(done[k], len[k], budget - rows)))
				continue;
			memcpy(vids + rows, ids[k] + done[k], c * sizeof(int));
			v[nv] = &sq[k], vn[nv] = c, who[nv++] = k;
			rows += c;
		}
		if (!nv)
			continue;
		if (seq_forward_batch_all(&b, v, vids, vn, nv, got) < 0) {
			CHECKF(0, "%s: seq_forward_batch_all failed", s->name);
			break;
		}
		for (i = 0; i < nv; i++) {
			k = who[i];
			CHECKF(!memcmp(got[i], want[k] + (size_t)done[k] * V,
			    vn[i] * rb), "%s, %s, %d thread%s: record %d's rows "
			    "%d..%d in a batch differ from it alone", s->name,
			    names[mode], threads, threads > 1 ? "s" : "", k,
			    done[k], done[k] + vn[i] - 1);
			done[k] += vn[i];
		}
	}
	for (k = 0; k < NA; k++)
		EQ(sq[k].pos, len[k]);
out:
	seq_batch_close(&b);
	seq_close(&ref);
	for (k = 0; k < NA; k++) {
		seq_close(&sq[k]);
		free(ids[k]), free(want[k]);
	}
	model_close(&m);
}

static void
test_batch_all(const struct shape *s, const char *dir, const int *ids)
{
	int threads;

	for (threads = 1; threads <= 2; threads++) {
		batch_all_mode(s, dir, ids, threads, MODEL_EXACT);
		batch_all_mode(s, dir, ids, threads, MODEL_Q4);
	}
}

/* The logits of the n ids (the prompt's first half at once, then one
 * id a step) under mode (and --int8-act where int8act) on threads, the
 * embedding rows given back to the file after each is read where drop
 * (embed_keep 0: seq.c) or kept (embed_keep at its most), into out (n
 * rows).  0, or -1: the mode is not here. */
static int
drop_run(const char *dir, const int *ids, int n, enum model_mode mode,
    int int8act, int threads, int drop, float *out)
{
	size_t V;
	struct seq sq = { 0 };
	struct model m;
	const float *lg;
	int i, h = n / 2, r = -1;

	if (model_load(&m, dir, threads) < 0)
		return -1;
	if (model_set_mode(&m, mode) < 0 || m.mode != mode ||
	    m.mode_fallback || (int8act && model_set_int8act(&m) < 0))
		goto out;
	m.embed_keep = drop ? 0 : (size_t)-1;
	V = (size_t)m.cfg.vocab_size;
	if (seq_open(&sq, &m, n) < 0 || !(lg = seq_forward(&sq, ids, h)))
		goto out;
	memcpy(out + (size_t)(h - 1) * V, lg, V * sizeof(float));
	for (i = h; i < n; i++) {
		if (!(lg = seq_forward(&sq, ids + i, 1)))
			goto out;
		memcpy(out + (size_t)i * V, lg, V * sizeof(float));
	}
	r = 0;
out:
	seq_close(&sq);
	model_close(&m);
	return r;
}

/* Embedding rows given back to the file after each is read (a table left
 * in the file and past embed_keep: --quant's converted classifier, an
 * untied one) are read again from it unchanged: every position's logits
 * equal those of the rows kept mapped.  A table in private memory would
 * read back as zeros. */
static void
test_embed_drop(const struct shape *s, const char *dir, const int *ids)
{
	static const enum model_mode modes[] = { MODEL_EXACT, MODEL_Q8_0 };
	size_t bytes = (size_t)s->n * s->vocab * sizeof(float);
	float *keep = emalloc(bytes), *drop = emalloc(bytes);
	int k, h = s->n / 2;

	for (k = 0; k < 2; k++) {
		memset(keep, 0, bytes), memset(drop, 0xff, bytes);
		if (drop_run(dir, ids, s->n, modes[k], 0, 1, 0, keep) < 0)
			continue;	/* a mode the model cannot take */
		CHECKF(drop_run(dir, ids, s->n, modes[k], 0, 1, 1, drop) == 0,
		    "%s: mode %d: the run that gives rows back failed",
		    s->name, modes[k]);
		CHECKF(!memcmp(keep + (size_t)(h - 1) * s->vocab, drop +
		    (size_t)(h - 1) * s->vocab, bytes - (size_t)(h - 1) *
		    s->vocab * sizeof(float)), "%s: mode %d: logits differ "
		    "with the embedding rows given back", s->name, modes[k]);
	}
	free(keep), free(drop);
}

/* --int8-act's packing (kern.pack: W_Q8_0I by 16 rows) gives back the
 * private Q8_0 rows it has packed as it goes, in whole 2 MiB pages
 * (model_mode.c's drop_behind): a classifier of 10 MiB in Q8_0, packed
 * by one and by two threads, gives the logits of the same matrix left
 * unpacked (the same bits, kern.h), so no row was given back before it
 * was packed. */
static void
test_pack_drop(const char *tmp)
{
	static const struct shape s = { "bf16 tied vocab 20000", ST_BF16,
		512, 64, 1, 4, 2, 128, 20000, 1, 0, 0, 0, 6,
		.arch = ARCH_LLAMA };
	unsigned char pack = kern.pack[W_Q8_0I];
	size_t bytes = (size_t)s.n * s.vocab * sizeof(float);
	float *flat = emalloc(bytes), *packed = emalloc(bytes);
	int i, threads, *ids = emalloc(s.n * sizeof(int)), h = s.n / 2;
	char dir[512];

	snprintf(dir, sizeof(dir), "%s/big", tmp);
	if (mkdir(dir, 0700) < 0)
		die("mkdir %s:", dir);
	write_model(dir, &s);
	for (i = 0; i < s.n; i++)
		ids[i] = (int)((urand() + 1) / 2 * s.vocab) % s.vocab;
	for (threads = 1; threads <= 2 && pack; threads++) {
		memset(flat, 0, bytes), memset(packed, 0xff, bytes);
		kern.pack[W_Q8_0I] = 0;
		i = drop_run(dir, ids, s.n, MODEL_Q8_0, 1, threads, 0, flat);
		kern.pack[W_Q8_0I] = pack;
		if (i < 0)	/* no Q8_0 here */
			break;
		CHECKF(drop_run(dir, ids, s.n, MODEL_Q8_0, 1, threads, 0,
		    packed) == 0, "%s: the packed run failed", s.name);
		CHECKF(!memcmp(flat + (size_t)(h - 1) * s.vocab, packed +
		    (size_t)(h - 1) * s.vocab, bytes - (size_t)(h - 1) *
		    s.vocab * sizeof(float)), "%s, %d thread(s): packed logits "
		    "differ from the unpacked", s.name, threads);
	}
	free(flat), free(packed), free(ids);
	remove_model(dir);
}

static void
test_shape(const char *tmp, const struct shape *s)
{
	int n = s->n, V = s->vocab, *ids = emalloc(n * sizeof(int));
	int i, threads, split = n / 3;
	double *want = emalloc((size_t)n * V * sizeof(double));
	float *all[3], *dec[3];
	struct taps rtap;
	const float *lg;
	struct model m;
	struct seq sq;
	struct rows r;
	char dir[512];

	snprintf(dir, sizeof(dir), "%s/m", tmp);
	if (mkdir(dir, 0700) < 0)
		die("mkdir %s:", dir);
	write_model(dir, s);
	for (i = 0; i < n; i++)
		ids[i] = (int)((urand() + 1) / 2 * V) % V;
	ref_forward(dir, s, ids, n, want, NULL, NULL);
	memset(&rtap, 0, sizeof(rtap));
	rtap.s = s, rtap.n = n;
	ref_forward(dir, s, ids, n, want, ref_tap, &rtap);

	for (threads = 1; threads <= 2; threads++) {
		all[threads] = emalloc((size_t)n * V * sizeof(float));
		dec[threads] = emalloc((size_t)n * V * sizeof(float));
		if (model_load(&m, dir, threads) < 0 || seq_open(&sq, &m, n) < 0) {
			CHECKF(0, "%s: model_load failed", s->name);
			model_close(&m);
			return;
		}
		/* prefill: every row at once */
		r = (struct rows){ all[threads], V, 0 };
		CHECK(seq_forward_all(&sq, ids, n, gather, &r) == 0);
		EQ(r.next, n);
		/* prefill of the first third, then decode one by one */
		seq_reset(&sq);
		CHECK((lg = seq_forward(&sq, ids, split)) != NULL);
		if (lg)
			memcpy(dec[threads] + (size_t)(split - 1) * V, lg,
			    V * sizeof(float));
		for (i = split; i < n; i++) {
			if (!(lg = seq_forward(&sq, ids + i, 1))) {
				CHECKF(0, "%s: decode at %d failed", s->name, i);
				break;
			}
			memcpy(dec[threads] + (size_t)i * V, lg, V * sizeof(float));
		}
		EQ(sq.pos, n);
		/* the last row alone, all at once */
		seq_reset(&sq);
		if ((lg = seq_forward(&sq, ids, n)))
			CHECKF(!memcmp(lg, all[threads] + (size_t)(n - 1) * V,
			    V * sizeof(float)), "%s, %d threads: seq_forward's "
			    "row differs from seq_forward_all's", s->name,
			    threads);
		seq_close(&sq);
		two_seqs(s, &m, ids, n, split, dec[threads], threads);
		test_taps(s, &m, ids, split, &rtap, all[threads], threads);
		model_close(&m);

		for (i = 0; i < n; i++)
			near_row(s, threads == 1 ? "prefill, 1 thread" :
			    "prefill, 2 threads", i, all[threads] + (size_t)i * V,
			    want + (size_t)i * V);
		for (i = split - 1; i < n; i++)
			near_row(s, threads == 1 ? "decode, 1 thread" :
			    "decode, 2 threads", i, dec[threads] + (size_t)i * V,
			    want + (size_t)i * V);
	}
	near_logprobs(s, ids, all[1], want);
	test_kv_q8(s, dir, ids, want);
	test_batch(s, dir, ids);
	test_batch_all(s, dir, ids);
	test_embed_drop(s, dir, ids);
	CHECKF(!memcmp(all[1], all[2], (size_t)n * V * sizeof(float)),
	    "%s: prefill differs between 1 and 2 threads", s->name);
	CHECKF(!memcmp(dec[1] + (size_t)(split - 1) * V, dec[2] +
	    (size_t)(split - 1) * V, (size_t)(n - split + 1) * V * sizeof(float)),
	    "%s: decode differs between 1 and 2 threads", s->name);
	for (i = split - 1; i < n; i++)
		CHECKF(!memcmp(dec[1] + (size_t)i * V, all[1] + (size_t)i * V,
		    V * sizeof(float)) || i >= 64, "%s: decode at %d differs from "
		    "prefill", s->name, i);
	for (threads = 1; threads <= 2; threads++)
		free(all[threads]), free(dec[threads]);
	free(ids), free(want);
	taps_free(&rtap);
	remove_model(dir);
}

/* A decode step of a layer with a sliding window reads the cached keys
 * and values of at most the window's positions: the pages of the KV
 * cache wholly before the window are made unreadable before each step,
 * so a kernel that reads one key too early faults.  head_dim 128: a
 * page holds 8 positions of one layer's keys (or values) of one head,
 * finer than a key block (ATTN_BLOCK), so reading from the block's
 * start rather than the window's is caught too; a window of 100: past
 * ATTN_MINCHUNK keys, so decode takes the key ranges. */
static void
on_segv(int sig)
{
	static const char msg[] = "test_model: a windowed decode step read "
	    "the KV cache before its window\n";

	(void)sig;
	if (write(2, msg, sizeof(msg) - 1) < 0)
		_exit(1);
	_exit(1);
}

static void
test_window_reads(const char *tmp)
{
	static const struct shape s = { "bf16 mistral hd128 window", ST_BF16,
		64, 96, 2, 2, 1, 128, 101, 0, 0, 0, 0, 0,
		.arch = ARCH_MISTRAL, .window = 100 };
	enum { N = 400, PREFILL = 150, PAGEPOS = 8 };
	long pg = sysconf(_SC_PAGESIZE);
	struct sigaction sa, old;
	int ids[N], i, p, l, kv, threads;
	size_t off;
	struct model m;
	struct seq sq;
	char dir[512];

	if (pg != 4096) {
		printf("skip: test_window_reads wants 4 KiB pages, not %ld\n", pg);
		return;
	}
	snprintf(dir, sizeof(dir), "%s/w", tmp);
	if (mkdir(dir, 0700) < 0)
		die("mkdir %s:", dir);
	write_model(dir, &s);
	for (i = 0; i < N; i++)
		ids[i] = i * 37 % s.vocab;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_segv;
	sigaction(SIGSEGV, &sa, &old);
	for (threads = 1; threads <= 2; threads++) {
		if (model_load(&m, dir, threads) < 0 || seq_open(&sq, &m, N) < 0) {
			CHECKF(0, "%s: model_load failed", s.name);
			model_close(&m);
			break;
		}
		EQ(m.hd * PAGEPOS * (long)sizeof(float), pg);
		EQ(m.cfg.num_key_value_heads, 1);
		CHECK(seq_forward(&sq, ids, PREFILL) != NULL);
		for (p = PREFILL; p < N; p++) {
			/* the token at p sees p - window + 1 .. p */
			int lo = p - s.window + 1, q;

			for (q = 0; q + PAGEPOS <= lo; q += PAGEPOS)
				for (l = 0; l < s.layers; l++)
					for (kv = 0; kv < 2; kv++) {
						/* seq.h: a segment's run of
						 * each (layer, key or value,
						 * head) */
						off = (((size_t)(q / SEQ_KVSEG) *
						    s.layers * 2 + (size_t)l * 2 +
						    kv) * SEQ_KVSEG + (size_t)(q %
						    SEQ_KVSEG)) * m.hd;
						if (mprotect((float *)sq.kv + off, pg, PROT_NONE) < 0)
							die("mprotect:");
					}
			if (!seq_forward(&sq, ids + p, 1)) {
				CHECKF(0, "%s: decode at %d failed", s.name, p);
				break;
			}
		}
		if (mprotect(sq.kv, sq.kvsize, PROT_READ | PROT_WRITE) < 0)
			die("mprotect:");
		seq_close(&sq);
		model_close(&m);
	}
	sigaction(SIGSEGV, &old, NULL);
	remove_model(dir);
}

static void
test_forward(void)
{
	const char *td = getenv("TMPDIR");
	char tmp[256];
	size_t i;

	snprintf(tmp, sizeof(tmp), "%s/test_model.XXXXXX", td && *td ? td : "/tmp");
	if (!mkdtemp(tmp))
		die("mkdtemp %s:", tmp);
	for (i = 0; i < LEN(shapes); i++)
		test_shape(tmp, &shapes[i]);
	test_window_reads(tmp);
	test_pack_drop(tmp);
	rmdir(tmp);
}

static int
close_rel(double got, double want, double tol)
{
	return fabs(got - want) <= tol * fabs(want);
}

/* Llama 3.2's rope_scaling (factor 32, low 1, high 4, original context
 * 8192, theta 500000, head_dim 64); the expected values follow
 * _compute_llama3_parameters of HF modeling_rope_utils.py, computed in
 * double: j < 16 keeps its frequency, j = 16 is in the smoothed band,
 * j >= 20 is divided by the factor. */
static void
test_rope_llama3(void)
{
	static const struct { int j; double want; } cases[] = {
		{ 0, 1.0 }, { 1, 0.6636012376960885 }, { 8, 0.03760603093086393 },
		{ 16, 0.00042955679655936815 }, { 20, 8.570255489881478e-06 },
		{ 24, 1.661967467795309e-06 }, { 28, 3.2229329303788936e-07 },
		{ 31, 9.418306725434909e-08 },
	};
	struct cfg c;
	float f[32];
	size_t i;

	memset(&c, 0, sizeof(c));
	c.rope_theta = 500000;
	strcpy(c.rope_scaling.rope_type, "llama3");
	c.rope_scaling.factor = 32;
	c.rope_scaling.low_freq_factor = 1;
	c.rope_scaling.high_freq_factor = 4;
	c.rope_scaling.original_max_position_embeddings = 8192;
	model_rope_freqs(f, &c, 64);
	for (i = 0; i < LEN(cases); i++)
		if (!close_rel(f[cases[i].j], cases[i].want, 1e-6)) {
			fprintf(stderr, "inv_freq[%d] = %.9g, want %.9g\n",
			    cases[i].j, f[cases[i].j], cases[i].want);
			fails++;
		}
	/* without scaling: theta^(-2j/hd) */
	c.rope_scaling.rope_type[0] = '\0';
	c.rope_theta = 10000;
	model_rope_freqs(f, &c, 8);
	CHECK(f[0] == 1.0f);
	CHECK(close_rel(f[1], 0.1, 1e-7));
	CHECK(close_rel(f[2], 0.01, 1e-7));
	CHECK(close_rel(f[3], 0.001, 1e-7));
}

int
main(void)
{
	argv0 = "test_model";
	test_kern_init();
	test_rope_llama3();
	test_forward();
	return test_end("test_model");
}
