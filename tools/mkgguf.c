/* mkgguf: write a LLaMA model folder's weights as a GGUF file, so that
 * llama.cpp can run the same model beside pipelm in `make bench`
 * (bench/peer.sh).  Not installed; nothing of pipelm reads GGUF.
 *
 * usage: mkgguf [-qv] MODEL OUT.gguf
 *
 * Tensors are renamed as llama.cpp's convert_hf_to_gguf.py names them and
 * kept in their dtype (F32, F16 or BF16), except the RMSNorm weights,
 * which llama.cpp wants in F32; -q writes the matrices as GGML Q8_0
 * (blocks of 32: an F16 scale max|x| / 127 and 32 int8).  The rows of
 * q_proj and k_proj are reordered head by head (row 2i + j of a head is
 * HF's row j * head_dim/2 + i), since llama.cpp's llama rotates adjacent
 * pairs where HF rotates halves.  The vocabulary is a stand-in (the 256
 * GPT-2 byte characters, then "[id]"): the benchmark feeds token ids.
 * Models with biases or rope_scaling are refused.  -v lists the tensors
 * written: GGUF name, ggml type, shape (innermost first) and the offset
 * of the data in the file. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../lib/cfg.h"
#include "../lib/kern.h"
#include "../lib/mdir.h"
#include "../lib/st.h"
#include "../lib/util.h"
#include "../lib/wsrc.h"

enum { G_F32 = 0, G_F16 = 1, G_Q8_0 = 8, G_BF16 = 30 };	/* ggml_type */
enum { V_U32 = 4, V_I32 = 5, V_F32 = 6, V_STR = 8, V_ARR = 9 };
#define ALIGN 32
#define MAXT 4096

struct out {
	char name[96];
	const struct st_tensor *src;
	int type, perm_heads;	/* perm_heads > 0: reorder rows for RoPE */
	uint64_t off, bytes;
};

static FILE *f;
static const char *opath;
static uint64_t written;	/* bytes so far: the output may be a pipe */

static void
put(const void *p, size_t n)
{
	if (fwrite(p, 1, n, f) != n)
		die("write %s:", opath);
	written += n;
}

static void
u32(uint32_t v)
{
	put(&v, 4);
}

static void
u64(uint64_t v)
{
	put(&v, 8);
}

static void
str(const char *s)
{
	u64(strlen(s));
	put(s, strlen(s));
}

static void
kv_u32(const char *k, uint32_t v)
{
	str(k), u32(V_U32), u32(v);
}

static void
kv_f32(const char *k, float v)
{
	str(k), u32(V_F32), put(&v, 4);
}

static void
kv_str(const char *k, const char *v)
{
	str(k), u32(V_STR), str(v);
}

/* Token i of the stand-in vocabulary into buf. */
static void
token(char *buf, size_t len, int i)
{
	int c, n = 0;

	if (i >= 256) {
		snprintf(buf, len, "[%d]", i);
		return;
	}
	/* GPT-2's byte-to-character map: printable Latin-1 bytes stand for
	 * themselves, the others for U+0100 + their rank among them */
	if ((i >= 33 && i <= 126) || (i >= 161 && i <= 172) || i >= 174)
		c = i;
	else {
		for (c = 0; c < i; c++)
			n += !((c >= 33 && c <= 126) || (c >= 161 && c <= 172) ||
			    c >= 174);
		c = 256 + n;
	}
	if (c < 0x80)
		snprintf(buf, len, "%c", c);
	else
		snprintf(buf, len, "%c%c", 0xc0 | c >> 6, 0x80 | (c & 0x3f));
}

static uint16_t
half(float x)
{
	uint32_t b;
	int e;
	float a = fabsf(x);
	uint16_t s = signbit(x) ? 0x8000 : 0;

	if (isnan(x))
		return s | 0x7e00;
	if (a >= 65520.0f)
		return s | 0x7c00;
	if (a < 0x1p-14f)	/* subnormal: a multiple of 2^-24 */
		return s | (uint16_t)nearbyintf(a * 0x1p24f);
	memcpy(&b, &a, 4);
	e = (int)(b >> 23) - 127 + 15;
	b &= 0x7fffff;
	/* round the 23-bit mantissa to 10, nearest even; a carry moves
	 * into the exponent, as it should */
	b = (b + 0xfff + (b >> 13 & 1)) >> 13;
	return s | (uint16_t)(((uint32_t)e << 10) + b);
}

static const char *
stname(char *buf, size_t len, int layer, const char *what)
{
	snprintf(buf, len, "model.layers.%d.%s.weight", layer, what);
	return buf;
}

int
main(int argc, char *argv[])
{
	static struct out o[MAXT];
	static const char *hf[9] = { "input_layernorm", "self_attn.q_proj",
		"self_attn.k_proj", "self_attn.v_proj", "self_attn.o_proj",
		"post_attention_layernorm", "mlp.gate_proj", "mlp.up_proj",
		"mlp.down_proj" };
	static const char *gg[9] = { "attn_norm", "attn_q", "attn_k",
		"attn_v", "attn_output", "ffn_norm", "ffn_gate", "ffn_up",
		"ffn_down" };
	struct mdir md;
	struct cfg c;
	struct st st;
	char buf[160], tok[32];
	int qflag = 0, vflag = 0, ch, n = 0, l, i, k, hd, d, qd, kd, ff;
	uint64_t off = 0, pos, data;
	float *row;
	char *qrow;		/* a row in libcore's Q8_0 layout */
	size_t r, rows, cols, j;

	argv0 = argv[0];
	while ((ch = getopt(argc, argv, "qv")) != -1)
		switch (ch) {
		case 'q': qflag = 1; break;
		case 'v': vflag = 1; break;
		default: goto usage;
		}
	if (argc - optind != 2) {
usage:
		fprintf(stderr, "usage: %s [-qv] model out.gguf\n", argv0);
		return 2;
	}
	if (kern_init(NULL) < 0 || mdir_resolve(&md, argv[optind]) < 0 ||
	    cfg_load(&c, md.config, md.genconfig) < 0 ||
	    st_open(&st, md.weights ? md.weights : md.dir) < 0)
		return 1;
	if (c.arch != ARCH_LLAMA)
		die("%s: %s is not converted (LlamaForCausalLM only)", md.dir,
		    cfg_arch_name(c.arch));
	if (c.attention_bias || c.mlp_bias || c.rope_scaling.rope_type[0])
		die("%s: biases and rope_scaling are not converted", md.dir);
	hd = c.head_dim;

	/* the tensor list, in llama.cpp's names, each with the shape the
	 * config gives it (rows, cols; cols 0 for a vector), checked before
	 * anything is written: q and k rows are reordered head by head */
#define ADD(gname, hfname, norm, heads, r_, c_) do { \
	const struct st_tensor *t_ = st_find(&st, hfname); \
	char sh_[ST_SHAPELEN]; \
	if (!t_) die("%s: no tensor %s", md.dir, hfname); \
	if (t_->dtype != ST_F32 && t_->dtype != ST_F16 && t_->dtype != ST_BF16) \
		die("%s: %s is %s", md.dir, hfname, st_dtype_name(t_->dtype)); \
	if ((c_) ? t_->ndim != 2 || t_->shape[0] != (r_) || t_->shape[1] != (c_) : \
	    t_->ndim != 1 || t_->shape[0] != (r_)) \
		die("%s: %s has shape %s, expected [%d%s%.0d]", md.dir, hfname, \
		    st_shape_fmt(t_, sh_, sizeof sh_), (int)(r_), (c_) ? "," : "", \
		    (int)(c_)); \
	snprintf(o[n].name, sizeof o[n].name, "%s", gname); \
	o[n].src = t_; \
	o[n].perm_heads = heads; \
	o[n].type = norm ? G_F32 : qflag ? G_Q8_0 : t_->dtype == ST_F32 ? \
	    G_F32 : t_->dtype == ST_F16 ? G_F16 : G_BF16; \
	n++; \
} while (0)
	d = c.hidden_size;
	qd = c.num_attention_heads * hd;
	kd = c.num_key_value_heads * hd;
	ff = c.intermediate_size;
	if (d > (1 << 18) || ff > (1 << 18))
		die("%s: rows of %d weights are too long", md.dir, d > ff ? d : ff);
	ADD("token_embd.weight", "model.embed_tokens.weight", 0, 0,
	    c.vocab_size, d);
	ADD("output_norm.weight", "model.norm.weight", 1, 0, d, 0);
	if (!c.tie_word_embeddings)
		ADD("output.weight", "lm_head.weight", 0, 0, c.vocab_size, d);
	for (l = 0; l < c.num_hidden_layers; l++)
		for (k = 0; k < 9; k++) {
			/* rows and columns by kind: norm, q, k and v, o,
			 * gate and up, down */
			static const int what[9] = { 0, 1, 2, 2, 3, 0, 4, 4, 5 };
			int rc[6][2] = { { d, 0 }, { qd, d }, { kd, d }, { d, qd },
				{ ff, d }, { d, ff } };
			char gname[64];

			if (n + 1 >= MAXT)
				die("%s: too many layers", md.dir);
			snprintf(gname, sizeof gname, "blk.%d.%s.weight", l, gg[k]);
			ADD(gname, stname(buf, sizeof buf, l, hf[k]),
			    k == 0 || k == 5, k == 1 ? c.num_attention_heads :
			    k == 2 ? c.num_key_value_heads : 0,
			    rc[what[k]][0], rc[what[k]][1]);
		}
	for (i = 0; i < n; i++) {
		const struct st_tensor *t = o[i].src;

		cols = t->ndim == 2 ? (size_t)t->shape[1] : t->nel;
		rows = t->nel / cols;
		if (o[i].type == G_Q8_0 && cols % 32)
			die("%s: %s has %zu columns, not a multiple of 32",
			    md.dir, t->name, cols);
		o[i].bytes = o[i].type == G_Q8_0 ? rows * (cols / 32) * 34 :
		    t->nel * (o[i].type == G_F32 ? 4 : 2);
		o[i].off = off;
		off += (o[i].bytes + ALIGN - 1) / ALIGN * ALIGN;
	}

	opath = argv[optind + 1];
	if (!(f = fopen(opath, "wb")))
		die("open %s:", opath);
	put("GGUF", 4);
	u32(3);
	u64((uint64_t)n);
	u64(20);	/* metadata entries, as written below */
	kv_str("general.architecture", "llama");
	kv_str("general.name", "pipelm mkgguf");
	kv_u32("general.file_type", qflag ? 7 : o[0].type == G_BF16 ? 32 :
	    o[0].type == G_F16 ? 1 : 0);
	kv_u32("llama.vocab_size", (uint32_t)c.vocab_size);
	kv_u32("llama.context_length", (uint32_t)c.max_position_embeddings);
	kv_u32("llama.embedding_length", (uint32_t)c.hidden_size);
	kv_u32("llama.block_count", (uint32_t)c.num_hidden_layers);
	kv_u32("llama.feed_forward_length", (uint32_t)c.intermediate_size);
	kv_u32("llama.attention.head_count", (uint32_t)c.num_attention_heads);
	kv_u32("llama.attention.head_count_kv", (uint32_t)c.num_key_value_heads);
	kv_u32("llama.attention.key_length", (uint32_t)hd);
	kv_u32("llama.attention.value_length", (uint32_t)hd);
	kv_u32("llama.rope.dimension_count", (uint32_t)hd);
	kv_f32("llama.rope.freq_base", c.rope_theta);
	kv_f32("llama.attention.layer_norm_rms_epsilon", c.rms_norm_eps);
	kv_str("tokenizer.ggml.model", "gpt2");
	kv_str("tokenizer.ggml.pre", "default");
	str("tokenizer.ggml.tokens"), u32(V_ARR), u32(V_STR);
	u64((uint64_t)c.vocab_size);
	for (i = 0; i < c.vocab_size; i++)
		token(tok, sizeof tok, i), str(tok);
	str("tokenizer.ggml.token_type"), u32(V_ARR), u32(V_I32);
	u64((uint64_t)c.vocab_size);
	for (i = 0; i < c.vocab_size; i++)
		u32(1);		/* normal */
	str("tokenizer.ggml.merges"), u32(V_ARR), u32(V_STR), u64(0);

	for (i = 0; i < n; i++) {
		const struct st_tensor *t = o[i].src;

		str(o[i].name);
		u32((uint32_t)t->ndim);
		for (k = t->ndim - 1; k >= 0; k--)	/* innermost first */
			u64((uint64_t)t->shape[k]);
		u32((uint32_t)o[i].type);
		u64(o[i].off);
	}
	while (written % ALIGN)
		put("", 1);
	data = written;

	row = emalloc(1 << 20);
	qrow = emalloc(kern_q8_0_rowsize(1 << 18));
	for (i = 0; i < n; i++) {
		const struct st_tensor *t = o[i].src;
		size_t es = st_dtype_size(t->dtype), h = (size_t)o[i].perm_heads;
		enum wtype wt = W_F32;

		wsrc_st_type(t->dtype, &wt);	/* checked: F32, F16, BF16 */

		cols = t->ndim == 2 ? (size_t)t->shape[1] : t->nel;
		rows = t->nel / cols;
		for (r = 0; r < rows; r++) {
			size_t sr = r;	/* the source row of output row r */

			if (h) {	/* within a head: 2i + j <- j * hd/2 + i */
				size_t base = r / hd * hd, w = r % hd;

				sr = base + w % 2 * (hd / 2) + w / 2;
			}
			if (o[i].type != G_Q8_0 && o[i].type != G_F32) {
				put((const char *)t->data + sr * cols * es, cols * es);
				continue;
			}
			kern.to_f32[wt](row, (const char *)t->data + sr * cols * es,
			    cols);
			if (o[i].type == G_F32) {
				put(row, cols * 4);
				continue;
			}
			/* libcore's quantizer (the same blocks of 32: d =
			 * max|x| / 127, q = x / d rounded to nearest even), its
			 * float scales then int8 blocks repacked as ggml's
			 * blocks of an F16 scale and 32 int8 */
			for (j = 0; j < cols; j++)
				if (!isfinite(row[j]))
					die("%s: %s: a value that is not finite "
					    "cannot be quantized", md.dir, t->name);
			kern_q8_0_quant(qrow, row, (int)cols);
			for (j = 0; j < cols / 32; j++) {
				float sc;
				uint16_t dh;

				memcpy(&sc, qrow + 4 * j, 4);
				dh = half(sc);
				put(&dh, 2);
				put(qrow + 4 * KERN_Q8_0_NB(cols) + 32 * j, 32);
			}
		}
		for (pos = o[i].bytes; pos % ALIGN; pos++)
			put("", 1);
	}
	free(row);
	free(qrow);
	if (fshut(f, opath))
		return 1;
	for (i = 0; vflag && i < n; i++) {
		const struct st_tensor *t = o[i].src;

		printf("%s\t%s\t", o[i].name, o[i].type == G_F32 ? "f32" :
		    o[i].type == G_F16 ? "f16" : o[i].type == G_BF16 ? "bf16" :
		    "q8_0");
		for (k = t->ndim - 1; k >= 0; k--)
			printf("%lld%s", (long long)t->shape[k], k ? "," : "\t");
		printf("%llu\n", (unsigned long long)(data + o[i].off));
	}
	st_close(&st);
	mdir_free(&md);
	return 0;
}
