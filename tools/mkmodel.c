/* mkmodel: write a random-weight LLaMA model folder (or, by preset, a
 * Qwen3 or Gemma 3 one) (config.json,
 * model.safetensors or shards + index, tokenizer.json) for tests and
 * benchmarks.  Weights as in ../shared/README.md: layer weights, biases
 * and lm_head N(0, 0.125^2), embeddings N(0, 0.5^2), RMSNorm weights
 * 1 + 0.1 N(0, 1).  Deterministic: every block of BLOCK elements of
 * tensor i draws from its own generator seeded by (seed, i, block), so the
 * output does not depend on the thread count. */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../lib/disk/cfg.h"
#include "../lib/base/json.h"
#include "../lib/kern/pool.h"
#include "../lib/kern/kern.h"
#include "../lib/disk/st.h"
#include "../lib/base/util.h"

#define BLOCK 65536
#define MAXT 4096

static struct {
	int hidden, layers, heads, kv, hd, inter, vocab, ctx, tied, bias;
	double theta;
	enum cfg_arch arch;	/* the presets of other architectures */
} c = { 64, 2, 4, 2, 0, 160, 512, 512, 1, 0, 10000, ARCH_LLAMA };
static uint64_t seed;
static enum st_dtype dtype = ST_BF16;

struct gen {			/* one tensor to generate */
	struct st_wtensor w;
	double mean, sd;	/* element = mean + sd * N(0, 1) */
	size_t nel;
	void *buf;
	uint64_t idx;
};

static uint64_t
splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Uniform in (0, 1). */
static float
unif(uint64_t *s)
{
	return ((float)(splitmix(s) >> 40) + 0.5f) * 0x1p-24f;
}

static void
fill(void *ctx, int b0, int b1)
{
	struct gen *g = ctx;
	size_t i, end, k;
	int b;

	for (b = b0; b < b1; b++) {
		uint64_t s = seed ^ (g->idx << 40) ^ (uint64_t)b * 0x2545f4914f6cdd1dull;
		float x[BLOCK];

		splitmix(&s);
		i = (size_t)b * BLOCK;
		end = i + BLOCK < g->nel ? i + BLOCK : g->nel;
		for (k = 0; k < end - i; k += 2) {
			/* Box-Muller: two normals per pair of uniforms */
			float r = sqrtf(-2 * logf(unif(&s))), a = 2 * (float)M_PI * unif(&s);

			x[k] = (float)(g->mean + g->sd * r * cosf(a));
			x[k + 1] = (float)(g->mean + g->sd * r * sinf(a));
		}
		if (dtype == ST_F32)
			memcpy((float *)g->buf + i, x, (end - i) * 4);
		else if (dtype == ST_BF16)
			for (k = 0; k < end - i; k++)
				((uint16_t *)g->buf)[i + k] = conv_f32_to_bf16(x[k]);
		else
			for (k = 0; k < end - i; k++)
				((uint16_t *)g->buf)[i + k] = conv_f32_to_f16(x[k]);
	}
}

static int
cmpgen(const void *a, const void *b)
{
	return strcmp(((const struct gen *)a)->w.name, ((const struct gen *)b)->w.name);
}

static void
add(struct gen *g, size_t *n, double mean, double sd, int64_t d0, int64_t d1,
    const char *fmt, int layer)
{
	char name[128];

	if (*n >= MAXT)
		die("too many tensors");
	snprintf(name, sizeof(name), fmt, layer);
	g[*n].w.name = estrdup(name);
	g[*n].w.dtype = dtype;
	g[*n].w.ndim = d1 ? 2 : 1;
	g[*n].w.shape[0] = d0;
	g[*n].w.shape[1] = d1;
	g[*n].mean = mean;
	g[*n].sd = sd;
	g[*n].nel = (size_t)d0 * (size_t)(d1 ? d1 : 1);
	(*n)++;
}

static FILE *
create(const char *dir, const char *name, char *path, size_t len)
{
	FILE *f;

	snprintf(path, len, "%s/%s", dir, name);
	if (!(f = fopen(path, "w")))
		die("%s:", path);
	return f;
}

/* Write out a large weights file and drop it from the page cache, so
 * that the first program to map it reads it back in 2 MiB folios (see
 * file_map in lib/base/util.h); pages cached by write() would stay small.
 * Small files (the test models) are left alone: huge pages do not matter
 * there and fsync would slow the test suites down. */
static void
uncache(FILE *f, const char *path)
{
	off_t bytes = ftello(f);

	if (bytes < ((off_t)32 << 20))
		return;
	if (fflush(f) || fsync(fileno(f)))
		die("%s:", path);
	posix_fadvise(fileno(f), 0, 0, POSIX_FADV_DONTNEED);
}

/* GPT-2's byte-to-unicode map, the character of byte b as UTF-8 in out. */
static void
bytechar(int b, char out[4])
{
	int cp, n = 0, k;

	if ((b >= 33 && b <= 126) || (b >= 161 && b <= 172) || b >= 174)
		cp = b;
	else {
		for (k = 0; k < b; k++)
			n += !((k >= 33 && k <= 126) || (k >= 161 && k <= 172) || k >= 174);
		cp = 256 + n;
	}
	if (cp < 0x80) {
		out[0] = (char)cp;
		out[1] = 0;
	} else {
		out[0] = (char)(0xc0 | cp >> 6);
		out[1] = (char)(0x80 | (cp & 0x3f));
		out[2] = 0;
	}
}

/* A small valid byte-level BPE tokenizer.json: 3 special tokens, the 256
 * byte tokens, then merges of two byte characters (frequent English
 * letters first) until vocab_size tokens or 65536 merges. */
static void
tokenizer(const char *dir)
{
	static const char *special[] = { "<|endoftext|>", "<|im_start|>", "<|im_end|>" };
	const char *freq = " etaoinsrhldcumfpgwybvkxjqzETAOINSRHLDCUMFPGWYBVKXJQZ0123456789.,'\"-!?:;()\n";
	int order[256], seen[256] = { 0 }, no = 0, i, j, d, id, nm;
	char path[4096], a[4], b[4], ab[12];
	FILE *f = create(dir, "tokenizer.json", path, sizeof(path));

	for (i = 0; freq[i]; i++)
		if (!seen[(unsigned char)freq[i]]++)
			order[no++] = (unsigned char)freq[i];
	for (i = 0; i < 256; i++)
		if (!seen[i])
			order[no++] = i;
	fprintf(f, "{\"version\":\"1.0\",\"truncation\":null,\"padding\":null,\"added_tokens\":[");
	for (i = 0; i < 3; i++) {
		fprintf(f, "%s{\"id\":%d,\"content\":\"%s\",\"single_word\":false,"
		    "\"lstrip\":false,\"rstrip\":false,\"normalized\":false,"
		    "\"special\":true}", i ? "," : "", i, special[i]);
	}
	fprintf(f, "],\"normalizer\":null,\"pre_tokenizer\":{\"type\":\"ByteLevel\","
	    "\"add_prefix_space\":false,\"trim_offsets\":true,\"use_regex\":true},"
	    "\"post_processor\":null,\"decoder\":{\"type\":\"ByteLevel\","
	    "\"add_prefix_space\":true,\"trim_offsets\":true,\"use_regex\":true},"
	    "\"model\":{\"type\":\"BPE\",\"dropout\":null,\"unk_token\":null,"
	    "\"continuing_subword_prefix\":null,\"end_of_word_suffix\":null,"
	    "\"fuse_unk\":false,\"byte_fallback\":false,\"ignore_merges\":false,"
	    "\"vocab\":{");
	for (i = 0; i < 3; i++)
		fprintf(f, "%s\"%s\":%d", i ? "," : "", special[i], i);
	for (i = 0; i < 256; i++) {
		bytechar(i, a);
		fputc(',', f);
		json_write_str(f, a);
		fprintf(f, ":%d", 3 + i);
	}
	/* merges along anti-diagonals of order x order */
	nm = c.vocab - 259;
	if (nm > 65536)
		nm = 65536;
	for (d = 0, id = 259; d < 511 && id < 259 + nm; d++)
		for (i = 0; i <= d && id < 259 + nm; i++, id++) {
			if ((j = d - i) > 255 || i > 255) {
				id--;
				continue;
			}
			bytechar(order[i], a);
			bytechar(order[j], b);
			snprintf(ab, sizeof(ab), "%s%s", a, b);
			fputc(',', f);
			json_write_str(f, ab);
			fprintf(f, ":%d", id);
		}
	fprintf(f, "},\"merges\":[");
	for (d = 0, id = 0; d < 511 && id < nm; d++)
		for (i = 0; i <= d && id < nm; i++) {
			if ((j = d - i) > 255 || i > 255)
				continue;
			bytechar(order[i], a);
			bytechar(order[j], b);
			snprintf(ab, sizeof(ab), "%s %s", a, b);
			fputs(id++ ? "," : "", f);
			json_write_str(f, ab);
		}
	fprintf(f, "]}}\n");
	if (fshut(f, path))
		exit(1);
}

static void
copyfile(const char *src, const char *dir)
{
	char path[4096], buf[1 << 16];
	FILE *in = fopen(src, "r"), *out;
	size_t n;

	if (!in)
		die("%s:", src);
	out = create(dir, "tokenizer.json", path, sizeof(path));
	while ((n = fread(buf, 1, sizeof(buf), in)))
		if (fwrite(buf, 1, n, out) != n)
			die("%s:", path);
	if (ferror(in))
		die("%s:", src);
	fclose(in);
	if (fshut(out, path))
		exit(1);
}

/* The keys Qwen3 and Gemma 3 add, as their real configs carry them
 * (Qwen/Qwen3-0.6B, google/gemma-3-1b-pt). */
static void
config_arch(FILE *f)
{
	if (c.arch == ARCH_QWEN3)
		fprintf(f, "  \"use_sliding_window\": false,\n"
		    "  \"sliding_window\": null,\n"
		    "  \"max_window_layers\": %d,\n", c.layers);
	if (c.arch == ARCH_GEMMA3)
		fprintf(f, "  \"hidden_activation\": \"gelu_pytorch_tanh\",\n"
		    "  \"query_pre_attn_scalar\": 256,\n"
		    "  \"sliding_window\": 512,\n"
		    "  \"sliding_window_pattern\": 6,\n"
		    "  \"rope_local_base_freq\": 10000.0,\n"
		    "  \"attn_logit_softcapping\": null,\n"
		    "  \"final_logit_softcapping\": null,\n");
}

static void
config(const char *dir)
{
	char path[4096];
	FILE *f = create(dir, "config.json", path, sizeof(path));
	const char *mt = c.arch == ARCH_QWEN3 ? "qwen3" :
	    c.arch == ARCH_GEMMA3 ? "gemma3_text" : "llama";

	fprintf(f, "{\n  \"architectures\": [\"%s\"],\n"
	    "  \"model_type\": \"%s\",\n", cfg_arch_name(c.arch), mt);
	config_arch(f);
	fprintf(f, "  \"hidden_size\": %d,\n"
	    "  \"intermediate_size\": %d,\n  \"num_hidden_layers\": %d,\n"
	    "  \"num_attention_heads\": %d,\n  \"num_key_value_heads\": %d,\n"
	    "  \"head_dim\": %d,\n  \"vocab_size\": %d,\n"
	    "  \"max_position_embeddings\": %d,\n  \"rms_norm_eps\": %s,\n"
	    "  \"rope_theta\": %.17g,\n  \"rope_scaling\": null,\n"
	    "  \"tie_word_embeddings\": %s,\n  \"attention_bias\": %s,\n"
	    "  \"mlp_bias\": false,\n  \"hidden_act\": \"silu\",\n"
	    "  \"bos_token_id\": 0,\n  \"eos_token_id\": 0,\n"
	    "  \"torch_dtype\": \"%s\"\n}\n", c.hidden, c.inter, c.layers,
	    c.heads, c.kv, c.hd, c.vocab, c.ctx,
	    c.arch == ARCH_LLAMA ? "1e-05" : "1e-06", c.theta,
	    c.tied ? "true" : "false", c.bias ? "true" : "false",
	    dtype == ST_F32 ? "float32" : dtype == ST_F16 ? "float16" : "bfloat16");
	if (fshut(f, path))
		exit(1);
}

/* Write g[0..n) into shard files and, for shards > 1, the index. */
static void
weights(const char *dir, struct gen *g, size_t n, int shards, int nthr)
{
	static const struct st_meta meta = { "format", "pt" };
	struct pool *pool = nthr > 1 ? pool_new(nthr) : NULL;
	char name[64], path[4096];
	size_t total = 0, done = 0, i0 = 0, i1, i;
	FILE *f, *idx = NULL;
	int s;

	for (i = 0; i < n; i++)
		total += g[i].nel * st_dtype_size(dtype);
	if (shards > 1) {
		idx = create(dir, "model.safetensors.index.json", path, sizeof(path));
		fprintf(idx, "{\n  \"metadata\": {\"total_size\": %zu},\n"
		    "  \"weight_map\": {", total);
	}
	for (s = 0; s < shards; s++) {
		/* this shard takes tensors up to (s+1)/shards of the bytes */
		size_t goal = total / (size_t)shards * (size_t)(s + 1);

		for (i1 = i0; i1 < n && (s == shards - 1 || done < goal || i1 == i0); i1++)
			done += g[i1].nel * st_dtype_size(dtype);
		if (shards > 1)
			snprintf(name, sizeof(name), "model-%05d-of-%05d.safetensors", s + 1, shards);
		else
			snprintf(name, sizeof(name), "model.safetensors");
		f = create(dir, name, path, sizeof(path));
		{
			static struct st_wtensor w[MAXT];
			for (i = i0; i < i1; i++)
				w[i - i0] = g[i].w;
			if (st_write_header(f, path, w, i1 - i0, &meta, 1) < 0)
				exit(1);
		}
		for (i = i0; i < i1; i++) {
			g[i].buf = emalloc(g[i].nel * st_dtype_size(dtype));
			pool_for(pool, (int)((g[i].nel + BLOCK - 1) / BLOCK), 1, fill, &g[i]);
			if (st_write_data(f, path, &g[i].w, g[i].buf) < 0)
				exit(1);
			free(g[i].buf);
			if (idx) {
				fprintf(idx, "%s\n    ", i ? "," : "");
				json_write_str(idx, g[i].w.name);
				fprintf(idx, ": \"%s\"", name);
			}
		}
		uncache(f, path);
		if (fshut(f, path))
			exit(1);
		i0 = i1;
	}
	if (idx) {
		fprintf(idx, "\n  }\n}\n");
		if (fshut(idx, "model.safetensors.index.json"))
			exit(1);
	}
	pool_free(pool);
}

static _Noreturn void
usage(int status)
{
	fprintf(status ? stderr : stdout, "usage: %s [-s seed] [-t threads] "
	    "[--dtype f32|f16|bf16] [--preset smollm2-135m|llama3.2-1b|qwen3-0.6b|gemma3-1b|tiny] [--hidden n] "
	    "[--layers n] [--heads n] [--kv-heads n] [--head-dim n] [--inter n] "
	    "[--vocab n] [--ctx n] [--tied | --untied] [--bias] [--rope-theta x] "
	    "[--shards k] [--tokenizer file] dir\n", argv0);
	exit(status);
}

int
main(int argc, char *argv[])
{
	enum { DTYPE = 256, PRESET, HIDDEN, LAYERS, HEADS, KV, HD, INTER,
	    VOCAB, CTX, TIED, UNTIED, BIAS, THETA, SHARDS, TOK, VERSION };
	static const struct option opts[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "threads", required_argument, NULL, 't' },
		{ "dtype", required_argument, NULL, DTYPE },
		{ "preset", required_argument, NULL, PRESET },
		{ "hidden", required_argument, NULL, HIDDEN },
		{ "layers", required_argument, NULL, LAYERS },
		{ "heads", required_argument, NULL, HEADS },
		{ "kv-heads", required_argument, NULL, KV },
		{ "head-dim", required_argument, NULL, HD },
		{ "inter", required_argument, NULL, INTER },
		{ "vocab", required_argument, NULL, VOCAB },
		{ "ctx", required_argument, NULL, CTX },
		{ "tied", no_argument, NULL, TIED },
		{ "untied", no_argument, NULL, UNTIED },
		{ "bias", no_argument, NULL, BIAS },
		{ "rope-theta", required_argument, NULL, THETA },
		{ "shards", required_argument, NULL, SHARDS },
		{ "tokenizer", required_argument, NULL, TOK },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, VERSION },
		{ NULL, 0, NULL, 0 }
	};
	static struct gen g[MAXT];
	const char *tok = NULL, *dir;
	char path[4096];
	struct cfg cf;
	size_t n = 0, i;
	int ch, l, shards = 1, nthr = default_threads(), kvset = 0;
	long long hd = 0;
	double nm;

	argv0 = argv[0];
	while ((ch = getopt_long(argc, argv, "s:t:h", opts, NULL)) != -1)
		switch (ch) {
		case 's': seed = (uint64_t)estrtonum(optarg, 0, INT64_MAX, "seed"); break;
		case 't': nthr = (int)estrtonum(optarg, 1, 1024, "threads"); break;
		case DTYPE:
			if (!strcmp(optarg, "f32")) dtype = ST_F32;
			else if (!strcmp(optarg, "f16")) dtype = ST_F16;
			else if (!strcmp(optarg, "bf16")) dtype = ST_BF16;
			else edie(2, "invalid dtype '%s': use f32, f16 or bf16", optarg);
			break;
		case PRESET:
			if (!strcmp(optarg, "smollm2-135m")) {
				c.hidden = 576, c.layers = 30, c.heads = 9, c.kv = 3;
				c.inter = 1536, c.vocab = 49152, c.ctx = 8192;
				c.tied = 1, c.theta = 100000;
			} else if (!strcmp(optarg, "llama3.2-1b")) {
				/* Llama-3.2-1B's shape (its 131072 context
				 * and llama3 RoPE scaling aside) */
				c.hidden = 2048, c.layers = 16, c.heads = 32, c.kv = 8;
				c.inter = 8192, c.vocab = 128256, c.ctx = 8192;
				c.tied = 1, c.theta = 500000;
			} else if (!strcmp(optarg, "qwen3-0.6b")) {
				/* Qwen/Qwen3-0.6B's shapes */
				c.hidden = 1024, c.layers = 28, c.heads = 16, c.kv = 8;
				hd = 128, c.inter = 3072, c.vocab = 151936;
				c.ctx = 40960, c.tied = 1, c.theta = 1000000;
				c.arch = ARCH_QWEN3;
			} else if (!strcmp(optarg, "gemma3-1b")) {
				/* google/gemma-3-1b-pt's shapes */
				c.hidden = 1152, c.layers = 26, c.heads = 4, c.kv = 1;
				hd = 256, c.inter = 6912, c.vocab = 262144;
				c.ctx = 32768, c.tied = 1, c.theta = 1000000;
				c.arch = ARCH_GEMMA3;
			} else if (strcmp(optarg, "tiny"))
				edie(2, "invalid preset '%s': use smollm2-135m, "
				    "llama3.2-1b, qwen3-0.6b, gemma3-1b or tiny", optarg);
			break;
		case HIDDEN: c.hidden = (int)estrtonum(optarg, 1, 1 << 16, "hidden"); break;
		case LAYERS: c.layers = (int)estrtonum(optarg, 1, 1024, "layers"); break;
		case HEADS: c.heads = (int)estrtonum(optarg, 1, 1024, "heads"); break;
		case KV: c.kv = (int)estrtonum(optarg, 1, 1024, "kv-heads"); kvset = 1; break;
		case HD: hd = estrtonum(optarg, 2, 1024, "head-dim"); break;
		case INTER: c.inter = (int)estrtonum(optarg, 1, 1 << 18, "inter"); break;
		case VOCAB: c.vocab = (int)estrtonum(optarg, 1, 1 << 20, "vocab"); break;
		case CTX: c.ctx = (int)estrtonum(optarg, 1, 1 << 24, "ctx"); break;
		case TIED: c.tied = 1; break;
		case UNTIED: c.tied = 0; break;
		case BIAS: c.bias = 1; break;
		case THETA: c.theta = estrtod(optarg, 1, 1e12, "rope-theta"); break;
		case SHARDS: shards = (int)estrtonum(optarg, 1, 99, "shards"); break;
		case TOK: tok = optarg; break;
		case 'h': usage(0);
		case VERSION: version();
		default: usage(2);
		}
	argc -= optind, argv += optind;
	if (argc != 1)
		usage(2);
	dir = argv[0];
	if (!kvset && c.kv > c.heads)
		c.kv = c.heads;
	if (!hd && c.hidden % c.heads)
		edie(2, "hidden %d is not a multiple of heads %d: give --head-dim", c.hidden, c.heads);
	c.hd = hd ? (int)hd : c.hidden / c.heads;
	if (c.heads % c.kv || c.hd % 2)
		edie(2, "kv-heads must divide heads and head-dim must be even");
	if (!tok && c.vocab < 259)
		edie(2, "vocab %d below 259 needs --tokenizer (the generated one has 259 tokens)", c.vocab);

	/* tensors, by HF name; Gemma's norms scale by 1 + w */
	nm = c.arch == ARCH_GEMMA3 ? 0 : 1;
	add(g, &n, 0, 0.5, c.vocab, c.hidden, "model.embed_tokens.weight", 0);
	add(g, &n, nm, 0.1, c.hidden, 0, "model.norm.weight", 0);
	if (!c.tied)
		add(g, &n, 0, 0.125, c.vocab, c.hidden, "lm_head.weight", 0);
	for (l = 0; l < c.layers; l++) {
		int q = c.heads * c.hd, k = c.kv * c.hd;

		add(g, &n, nm, 0.1, c.hidden, 0, "model.layers.%d.input_layernorm.weight", l);
		add(g, &n, nm, 0.1, c.hidden, 0, "model.layers.%d.post_attention_layernorm.weight", l);
		if (c.arch == ARCH_GEMMA3) {
			add(g, &n, nm, 0.1, c.hidden, 0, "model.layers.%d.pre_feedforward_layernorm.weight", l);
			add(g, &n, nm, 0.1, c.hidden, 0, "model.layers.%d.post_feedforward_layernorm.weight", l);
		}
		if (c.arch != ARCH_LLAMA) {
			add(g, &n, nm, 0.1, c.hd, 0, "model.layers.%d.self_attn.q_norm.weight", l);
			add(g, &n, nm, 0.1, c.hd, 0, "model.layers.%d.self_attn.k_norm.weight", l);
		}
		add(g, &n, 0, 0.125, q, c.hidden, "model.layers.%d.self_attn.q_proj.weight", l);
		add(g, &n, 0, 0.125, k, c.hidden, "model.layers.%d.self_attn.k_proj.weight", l);
		add(g, &n, 0, 0.125, k, c.hidden, "model.layers.%d.self_attn.v_proj.weight", l);
		add(g, &n, 0, 0.125, c.hidden, q, "model.layers.%d.self_attn.o_proj.weight", l);
		if (c.bias) {
			add(g, &n, 0, 0.125, q, 0, "model.layers.%d.self_attn.q_proj.bias", l);
			add(g, &n, 0, 0.125, k, 0, "model.layers.%d.self_attn.k_proj.bias", l);
			add(g, &n, 0, 0.125, k, 0, "model.layers.%d.self_attn.v_proj.bias", l);
		}
		add(g, &n, 0, 0.125, c.inter, c.hidden, "model.layers.%d.mlp.gate_proj.weight", l);
		add(g, &n, 0, 0.125, c.inter, c.hidden, "model.layers.%d.mlp.up_proj.weight", l);
		add(g, &n, 0, 0.125, c.hidden, c.inter, "model.layers.%d.mlp.down_proj.weight", l);
	}
	/* the order safetensors' Python writer uses (one dtype: by name);
	 * the generator of a tensor is keyed by its place in this order */
	qsort(g, n, sizeof(*g), cmpgen);
	for (i = 0; i < n; i++)
		g[i].idx = i;
	if ((size_t)shards > n)
		shards = (int)n;

	if (mkdir(dir, 0777) < 0 && errno != EEXIST)
		die("%s:", dir);
	config(dir);
	if (tok)
		copyfile(tok, dir);
	else
		tokenizer(dir);
	weights(dir, g, n, shards, nthr);
	for (i = 0; i < n; i++)
		free((char *)g[i].w.name);
	/* what we wrote must read back */
	snprintf(path, sizeof(path), "%s/config.json", dir);
	return cfg_load(&cf, path, NULL) < 0;
}
