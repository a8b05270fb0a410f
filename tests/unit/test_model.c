/* test_model: the forward pass against a plain reference, on random
 * models this test writes itself (no ../shared, no mkmodel), and the
 * RoPE frequencies.
 *
 * The reference is llama2.c's forward() in double precision: straight
 * loops, no threads, no SIMD, the weights read back from the written
 * safetensors through st.h, each step as HF modeling_llama.py defines
 * it.  It shares no code with lib/model*.c or the kernels.  The next
 * architectures add their steps here and a shape below. */
#include <sys/stat.h>

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../lib/kern.h"
#include "../../lib/model.h"
#include "../../lib/st.h"
#include "../../lib/util.h"
#include "test.h"

struct shape {
	const char *name;
	enum st_dtype dt;
	int hidden, inter, layers, heads, kv, hd, vocab;
	int tied, bias, mlp_bias, llama3;
	int n;			/* positions to run */
};

static const struct shape shapes[] = {
	/* name                     dtype    d  ff  L  h kv  hd  V  tie b mb l3  n */
	{ "bf16 gqa",               ST_BF16, 64, 96, 2, 4, 2, 16, 101, 1, 0, 0, 0, 40 },
	{ "f32 mha bias untied",    ST_F32,  64, 80, 2, 4, 4, 16, 97,  0, 1, 0, 0, 40 },
	{ "f16 mqa llama3",         ST_F16,  48, 72, 2, 4, 1, 12, 113, 1, 0, 0, 1, 40 },
	/* head_dim * heads != hidden; past a pass (MODEL_MAXBATCH), KV
	 * blocks and decode's key ranges */
	{ "bf16 hd24 bias mlp_bias untied llama3 long", ST_BF16,
	                              64, 64, 3, 4, 2, 24, 89,  0, 1, 1, 1, 300 },
};

#define THETA 10000.0
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

/* config.json and model.safetensors for s into dir. */
static void
write_model(const char *dir, const struct shape *s)
{
	struct wt t[256];
	struct st_wtensor w[256];
	char path[1024];
	int n = 0, l, i, q = s->heads * s->hd, kv = s->kv * s->hd;
	size_t es = st_dtype_size(s->dt), k, nel;
	FILE *f;

	snprintf(path, sizeof(path), "%s/config.json", dir);
	if (!(f = fopen(path, "w")))
		die("open %s:", path);
	fprintf(f, "{\"architectures\": [\"LlamaForCausalLM\"], "
	    "\"model_type\": \"llama\", \"hidden_size\": %d, "
	    "\"intermediate_size\": %d, \"num_hidden_layers\": %d, "
	    "\"num_attention_heads\": %d, \"num_key_value_heads\": %d, "
	    "\"head_dim\": %d, \"vocab_size\": %d, "
	    "\"max_position_embeddings\": 512, \"rms_norm_eps\": %g, "
	    "\"rope_theta\": %g, \"tie_word_embeddings\": %s, "
	    "\"attention_bias\": %s, \"mlp_bias\": %s, "
	    "\"hidden_act\": \"silu\", \"bos_token_id\": 0, "
	    "\"eos_token_id\": 0, ", s->hidden, s->inter, s->layers, s->heads,
	    s->kv, s->hd, s->vocab, EPS, THETA, s->tied ? "true" : "false",
	    s->bias ? "true" : "false", s->mlp_bias ? "true" : "false");
	if (s->llama3)
		fprintf(f, "\"rope_scaling\": {\"rope_type\": \"llama3\", "
		    "\"factor\": %g, \"low_freq_factor\": %g, "
		    "\"high_freq_factor\": %g, "
		    "\"original_max_position_embeddings\": %g}}\n",
		    L3_FACTOR, L3_LOW, L3_HIGH, L3_OLD);
	else
		fprintf(f, "\"rope_scaling\": null}\n");
	if (fshut(f, path))
		exit(1);

	n = addt(t, n, 0, 0.5, s->vocab, s->hidden, "model.embed_tokens.weight");
	for (l = 0; l < s->layers; l++) {
#define L(x) "model.layers.%d." x, l
		n = addt(t, n, 1, 0.1, s->hidden, 0, L("input_layernorm.weight"));
		n = addt(t, n, 0, 0.2, q, s->hidden, L("self_attn.q_proj.weight"));
		n = addt(t, n, 0, 0.2, kv, s->hidden, L("self_attn.k_proj.weight"));
		n = addt(t, n, 0, 0.2, kv, s->hidden, L("self_attn.v_proj.weight"));
		n = addt(t, n, 0, 0.2, s->hidden, q, L("self_attn.o_proj.weight"));
		if (s->bias) {
			n = addt(t, n, 0, 0.1, q, 0, L("self_attn.q_proj.bias"));
			n = addt(t, n, 0, 0.1, kv, 0, L("self_attn.k_proj.bias"));
			n = addt(t, n, 0, 0.1, kv, 0, L("self_attn.v_proj.bias"));
			n = addt(t, n, 0, 0.1, s->hidden, 0, L("self_attn.o_proj.bias"));
		}
		n = addt(t, n, 1, 0.1, s->hidden, 0, L("post_attention_layernorm.weight"));
		n = addt(t, n, 0, 0.2, s->inter, s->hidden, L("mlp.gate_proj.weight"));
		n = addt(t, n, 0, 0.2, s->inter, s->hidden, L("mlp.up_proj.weight"));
		n = addt(t, n, 0, 0.2, s->hidden, s->inter, L("mlp.down_proj.weight"));
		if (s->mlp_bias) {
			n = addt(t, n, 0, 0.1, s->inter, 0, L("mlp.gate_proj.bias"));
			n = addt(t, n, 0, 0.1, s->inter, 0, L("mlp.up_proj.bias"));
			n = addt(t, n, 0, 0.1, s->hidden, 0, L("mlp.down_proj.bias"));
		}
#undef L
	}
	n = addt(t, n, 1, 0.1, s->hidden, 0, "model.norm.weight");
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
			h = s->dt == ST_F16 ? kern_f32_to_f16(v) : kern_f32_to_bf16(v);
			memcpy(buf + 2 * k, &h, 2);
		}
		if (st_write_data(f, path, &w[i], buf) < 0)
			exit(1);
		free(buf);
	}
	if (fshut(f, path))
		exit(1);
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

/* HF LlamaRMSNorm: x / sqrt(mean(x^2) + eps) * w. */
static void
rmsnorm(double *o, const double *x, const double *w, int n)
{
	double ss = 0;
	int i;

	for (i = 0; i < n; i++)
		ss += x[i] * x[i];
	ss = 1 / sqrt(ss / n + EPS);
	for (i = 0; i < n; i++)
		o[i] = x[i] * ss * w[i];
}

/* inv_freq[j] = theta^(-2j/hd), rescaled as HF
 * _compute_llama3_parameters does when s asks for llama3. */
static double
inv_freq(const struct shape *s, int j)
{
	double f = pow(THETA, -2.0 * j / s->hd), wl = 2 * M_PI / f, sm;

	if (!s->llama3 || wl < L3_OLD / L3_HIGH)
		return f;
	if (wl > L3_OLD / L3_LOW)
		return f / L3_FACTOR;
	sm = (L3_OLD / wl - L3_LOW) / (L3_HIGH - L3_LOW);
	return (1 - sm) * f / L3_FACTOR + sm * f;
}

/* RoPE, rotate-half: pairs (j, j + hd/2) turned by pos * inv_freq[j]. */
static void
rope(double *x, const struct shape *s, int pos)
{
	int j, h2 = s->hd / 2;

	for (j = 0; j < h2; j++) {
		double a = pos * inv_freq(s, j), c = cos(a), sn = sin(a);
		double x0 = x[j], x1 = x[j + h2];

		x[j] = x0 * c - x1 * sn;
		x[j + h2] = x1 * c + x0 * sn;
	}
}

/* The logits (n, vocab) of ids[0..n) from position 0. */
static void
ref_forward(const char *dir, const struct shape *s, const int *ids, int n,
    double *logits)
{
	int d = s->hidden, ff = s->inter, hd = s->hd, q = s->heads * hd;
	int kv = s->kv * hd, kv_mul = s->heads / s->kv, l, t, h, p, i;
	double *x = emalloc((size_t)n * d * sizeof(double));
	double *xn = emalloc(d * sizeof(double)), *o = emalloc(d * sizeof(double));
	double *Q = emalloc((size_t)n * q * sizeof(double));
	double *K = emalloc((size_t)n * kv * sizeof(double));
	double *V = emalloc((size_t)n * kv * sizeof(double));
	double *att = emalloc((size_t)n * q * sizeof(double));
	double *sc = emalloc(n * sizeof(double));
	double *g = emalloc(ff * sizeof(double)), *u = emalloc(ff * sizeof(double));
	double *E, *W, *head;
	char path[1024];
	struct st st;

	snprintf(path, sizeof(path), "%s/model.safetensors", dir);
	if (st_open(&st, path) < 0)
		exit(1);
	E = get(&st, (size_t)s->vocab * d, 0, "model.embed_tokens.weight", 0);
	for (t = 0; t < n; t++)
		memcpy(x + (size_t)t * d, E + (size_t)ids[t] * d, d * sizeof(double));
	for (l = 0; l < s->layers; l++) {
#define P "model.layers.%d."
		double *an = get(&st, d, 0, P "input_layernorm.weight", l);
		double *wq = get(&st, (size_t)q * d, 0, P "self_attn.q_proj.weight", l);
		double *wk = get(&st, (size_t)kv * d, 0, P "self_attn.k_proj.weight", l);
		double *wv = get(&st, (size_t)kv * d, 0, P "self_attn.v_proj.weight", l);
		double *wo = get(&st, (size_t)d * q, 0, P "self_attn.o_proj.weight", l);
		double *bq = get(&st, q, 1, P "self_attn.q_proj.bias", l);
		double *bk = get(&st, kv, 1, P "self_attn.k_proj.bias", l);
		double *bv = get(&st, kv, 1, P "self_attn.v_proj.bias", l);
		double *bo = get(&st, d, 1, P "self_attn.o_proj.bias", l);
		double *fn = get(&st, d, 0, P "post_attention_layernorm.weight", l);
		double *w1 = get(&st, (size_t)ff * d, 0, P "mlp.gate_proj.weight", l);
		double *w3 = get(&st, (size_t)ff * d, 0, P "mlp.up_proj.weight", l);
		double *w2 = get(&st, (size_t)d * ff, 0, P "mlp.down_proj.weight", l);
		double *b1 = get(&st, ff, 1, P "mlp.gate_proj.bias", l);
		double *b3 = get(&st, ff, 1, P "mlp.up_proj.bias", l);
		double *b2 = get(&st, d, 1, P "mlp.down_proj.bias", l);
#undef P
		for (t = 0; t < n; t++) {
			double *xt = x + (size_t)t * d;

			/* q, k, v of the normed stream, RoPE on q and k */
			rmsnorm(xn, xt, an, d);
			matvec(Q + (size_t)t * q, wq, bq, xn, q, d);
			matvec(K + (size_t)t * kv, wk, bk, xn, kv, d);
			matvec(V + (size_t)t * kv, wv, bv, xn, kv, d);
			for (h = 0; h < s->heads; h++)
				rope(Q + (size_t)t * q + h * hd, s, t);
			for (h = 0; h < s->kv; h++)
				rope(K + (size_t)t * kv + h * hd, s, t);
			/* causal attention, head h on KV head h / kv_mul */
			for (h = 0; h < s->heads; h++) {
				const double *qh = Q + (size_t)t * q + h * hd;
				double mx = -INFINITY, sum = 0, *ah = att + h * hd;
				int gk = h / kv_mul * hd;

				for (p = 0; p <= t; p++) {
					double dot = 0;

					for (i = 0; i < hd; i++)
						dot += qh[i] * K[(size_t)p * kv + gk + i];
					sc[p] = dot / sqrt((double)hd);
					mx = sc[p] > mx ? sc[p] : mx;
				}
				for (p = 0; p <= t; p++)
					sum += sc[p] = exp(sc[p] - mx);
				for (i = 0; i < hd; i++) {
					double a = 0;

					for (p = 0; p <= t; p++)
						a += sc[p] / sum * V[(size_t)p * kv + gk + i];
					ah[i] = a;
				}
			}
			/* x += o_proj(attention) */
			matvec(o, wo, bo, att, d, q);
			for (i = 0; i < d; i++)
				xt[i] += o[i];
			/* x += down(silu(gate(xn)) * up(xn)) */
			rmsnorm(xn, xt, fn, d);
			matvec(g, w1, b1, xn, ff, d);
			matvec(u, w3, b3, xn, ff, d);
			for (i = 0; i < ff; i++)
				g[i] = g[i] / (1 + exp(-g[i])) * u[i];
			matvec(o, w2, b2, g, d, ff);
			for (i = 0; i < d; i++)
				xt[i] += o[i];
		}
		free(an), free(wq), free(wk), free(wv), free(wo), free(bq);
		free(bk), free(bv), free(bo), free(fn), free(w1), free(w3);
		free(w2), free(b1), free(b3), free(b2);
	}
	W = get(&st, d, 0, "model.norm.weight", 0);
	head = s->tied ? E : get(&st, (size_t)s->vocab * d, 0, "lm_head.weight", 0);
	for (t = 0; t < n; t++) {
		rmsnorm(xn, x + (size_t)t * d, W, d);
		matvec(logits + (size_t)t * s->vocab, head, NULL, xn, s->vocab, d);
	}
	if (head != E)
		free(head);
	free(E), free(W), free(x), free(xn), free(o), free(Q), free(K);
	free(V), free(att), free(sc), free(g), free(u);
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

static void
test_shape(const char *tmp, const struct shape *s)
{
	int n = s->n, V = s->vocab, *ids = emalloc(n * sizeof(int));
	int i, threads, split = n / 3;
	double *want = emalloc((size_t)n * V * sizeof(double));
	float *all[3], *dec[3];
	const float *lg;
	struct model m;
	struct rows r;
	char dir[512];

	snprintf(dir, sizeof(dir), "%s/m", tmp);
	if (mkdir(dir, 0700) < 0)
		die("mkdir %s:", dir);
	write_model(dir, s);
	for (i = 0; i < n; i++)
		ids[i] = (int)((urand() + 1) / 2 * V) % V;
	ref_forward(dir, s, ids, n, want);

	for (threads = 1; threads <= 2; threads++) {
		all[threads] = emalloc((size_t)n * V * sizeof(float));
		dec[threads] = emalloc((size_t)n * V * sizeof(float));
		if (model_load(&m, dir, n, threads) < 0) {
			CHECKF(0, "%s: model_load failed", s->name);
			model_close(&m);
			return;
		}
		/* prefill: every row at once */
		r = (struct rows){ all[threads], V, 0 };
		CHECK(model_forward_all(&m, ids, n, gather, &r) == 0);
		EQ(r.next, n);
		/* prefill of the first third, then decode one by one */
		model_reset(&m);
		CHECK((lg = model_forward(&m, ids, split)) != NULL);
		if (lg)
			memcpy(dec[threads] + (size_t)(split - 1) * V, lg,
			    V * sizeof(float));
		for (i = split; i < n; i++) {
			if (!(lg = model_forward(&m, ids + i, 1))) {
				CHECKF(0, "%s: decode at %d failed", s->name, i);
				break;
			}
			memcpy(dec[threads] + (size_t)i * V, lg, V * sizeof(float));
		}
		EQ(m.pos, n);
		/* the last row alone, all at once */
		model_reset(&m);
		if ((lg = model_forward(&m, ids, n)))
			CHECKF(!memcmp(lg, all[threads] + (size_t)(n - 1) * V,
			    V * sizeof(float)), "%s, %d threads: model_forward's "
			    "row differs from model_forward_all's", s->name,
			    threads);
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
	snprintf(dir, sizeof(dir), "%s/m/config.json", tmp);
	unlink(dir);
	snprintf(dir, sizeof(dir), "%s/m/model.safetensors", tmp);
	unlink(dir);
	snprintf(dir, sizeof(dir), "%s/m", tmp);
	rmdir(dir);
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
	const char *want = getenv("PIPELM_KERNEL");

	argv0 = "test_model";
	if (kern_init(want) < 0) {
		if (want && (!strcmp(want, "avx2") || !strcmp(want, "avx512"))) {
			printf("skip: this cpu cannot run the %s table\n", want);
			return 0;
		}
		return 1;
	}
	test_ctx = kern.name;
	test_rope_llama3();
	test_forward();
	return test_end("test_model");
}
