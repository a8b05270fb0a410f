/* mkgguf: write a model folder's weights as a GGUF file, so that
 * llama.cpp can run the same model beside pipelm in `make bench`
 * (bench/peer.sh) and a probe can compare its logits (bench/NOTES.md).
 * Not installed.
 *
 * usage: mkgguf [-DFqVv] [-p PRE] [-t type] [-T TOKENIZER] MODEL OUT.gguf
 *
 * Every architecture pipelm runs is written as llama.cpp's
 * convert_hf_to_gguf.py writes it: its architecture name (Mistral is
 * "llama"), tensor names and metadata keys.  Tensors keep their dtype
 * (F32, F16 or BF16) except the vectors (norms, biases), which llama.cpp
 * wants in F32; -q writes the matrices as GGML Q8_0 (blocks of 32: an
 * F16 scale max|x| / 127 and 32 int8); -t TYPE writes them in ggml's
 * block type TYPE (q8_0, q4_0, q4_1, q5_0, q5_1, q2_K, q3_K, q4_K, q5_K,
 * q6_K, iq4_nl, iq4_xs; any case) with libcore's ggml quantizers (conv.h:
 * the scales ggml's reference quantizers choose), a matrix whose rows
 * are not whole blocks of 256 falling back as llama-quantize's
 * tensor_type_fallback does (iq4_xs to iq4_nl, q2_K and q3_K to q4_0,
 * q4_K to q5_0, q5_K to q5_1, q6_K to q8_0) and one whose rows are not
 * whole blocks of 32 refused; -D with -t writes those matrices as F32
 * instead, each weight the one its block dequantizes to (the float
 * model of the quantized one, whose logits the tests compare); -F
 * writes them as F32 (exact),
 * for comparing logits: llama.cpp's CPU matmul rounds the activations to
 * the weights' BF16 or F16 (about 6e-3 relative on the arch-* logits).  Where the converter reorders q
 * and k (Llama, Mistral, SmolLM3: llama.cpp's llama rotates adjacent
 * pairs where HF rotates halves) the rows of q_proj and k_proj and their
 * biases are reordered head by head (row 2i + j of a head is HF's row
 * j * head_dim/2 + i); Qwen, Gemma and Phi-3 are rotated by halves and
 * copied as they are.  Gemma's norm weights are written as 1 + w, as
 * the converter adds the one Gemma's RMSNorm adds.  Llama 3's rope
 * scaling becomes a rope_freqs tensor, Phi-3's longrope factors
 * rope_factors_long and _short, as the converter makes them.  The
 * tokenizer is the folder's tokenizer.json (-T FILE: another one), with
 * its tokenizer_config.json and chat_template.jinja, written as the
 * converter writes it (see tokenizer() below); a folder without one
 * gets a stand-in vocabulary (the 256 GPT-2 byte characters, then
 * "[id]").  -V writes the tokenizer alone, no tensors (MODEL: a folder
 * or a tokenizer.json), as convert_hf_to_gguf.py --vocab-only does.
 * -p PRE names tokenizer.ggml.pre where the pre-tokenizer is not one
 * mkgguf knows.  -v lists the tensors
 * written: GGUF name, ggml type, shape (innermost first) and the offset
 * of the data in the file. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <sys/stat.h>

#include "../lib/base/json.h"
#include "../lib/disk/cfg.h"
#include "../lib/kern/ggml.h"
#include "../lib/kern/kern.h"
#include "../lib/disk/mdir.h"
#include "../lib/disk/st.h"
#include "../lib/base/util.h"
#include "../lib/wsrc/wsrc.h"

enum { G_F32 = 0, G_F16 = 1, G_Q8_0 = 8, G_BF16 = 30 };	/* ggml_type */
enum { V_U32 = 4, V_I32 = 5, V_F32 = 6, V_BOOL = 7, V_STR = 8, V_ARR = 9 };
#define ALIGN 32
#define MAXT 8192

struct out {
	char name[96];
	const struct st_tensor *src;	/* NULL: vec, made here */
	const float *vec;
	int64_t shape[2];	/* rows, cols (cols 0: a vector) */
	int type, perm_heads;	/* perm_heads > 0: reorder rows for RoPE */
	int add1;		/* Gemma's norms: 1 + w */
	int rt;			/* -D: the ggml type its F32 went through */
	uint64_t off, bytes;
};

static FILE *f;
static struct buf meta;		/* the metadata, counted before writing */
static int nkv;
static const char *opath;
static uint64_t written;	/* bytes so far: the output may be a pipe */

static void
put(const void *p, size_t n)
{
	if (!f) {
		buf_add(&meta, p, n);
		return;
	}
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

/* a key of the architecture's own (arch.KEY) or a general one */
static const char *arch;

static void
key(const char *k)
{
	char b[128];

	nkv++;
	if (k[0] == '.') {
		snprintf(b, sizeof b, "%s%s", arch, k);
		str(b);
	} else
		str(k);
}

static void
kv_u32(const char *k, uint32_t v)
{
	key(k), u32(V_U32), u32(v);
}

static void
kv_f32(const char *k, float v)
{
	key(k), u32(V_F32), put(&v, 4);
}

static void
kv_str(const char *k, const char *v)
{
	key(k), u32(V_STR), str(v);
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

/* ---- the tokenizer, as convert_hf_to_gguf.py writes it ---- */

/* gguf-py's TokenType */
enum { TT_NORMAL = 1, TT_UNKNOWN, TT_CONTROL, TT_USER, TT_UNUSED, TT_BYTE };

/* tokenizer.ggml.pre by the pre_tokenizer of tokenizer.json: the
 * converter names it by a hash of the ids of a test text; the same
 * names are found here by the pre-tokenizer's parts (a Split's regex,
 * Digits, ByteLevel and its use_regex), which decide those ids */
static const struct {
	const char *name, *sig;
} pres[] = {
	{ "gpt-2", "ByteLevel+re;" },
	{ "smollm", "Digits1;ByteLevel+re;" },
	{ "llama-bpe", "Split:(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?"
	    "\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|"
	    "\\s+(?!\\S)|\\s+;ByteLevel;" },
	{ "qwen2", "Split:(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?"
	    "\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|"
	    "\\s+(?!\\S)|\\s+;ByteLevel;" },
	{ "deepseek-v3", "Split:\\p{N}{1,3};Split:[\xe4\xb8\x80-\xe9\xbe\xa5"
	    "\xe3\x81\x80-\xe3\x82\x9f\xe3\x82\xa0-\xe3\x83\xbf]+;"
	    "Split:[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|"
	    "[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| ?[\\p{P}\\p{S}]+[\r\n]*|"
	    "\\s*[\r\n]+|\\s+(?!\\S)|\\s+;ByteLevel;" },
};

/* the signature of pre-tokenizer o onto b: its parts, each and a ';' */
static void
presig(struct buf *b, const struct json *o, int depth)
{
	const char *ty = json_str(json_get(o, "type"));
	const struct json *s, *p;
	size_t i;

	if (!o || o->type != JSON_OBJECT || !ty || depth > 8) {
		buf_adds(b, "?;");
		return;
	}
	if (!strcmp(ty, "Sequence") && (s = json_get(o, "pretokenizers")) &&
	    s->type == JSON_ARRAY) {
		for (i = 0; i < s->len; i++)
			presig(b, &s->u.items[i], depth + 1);
		return;
	}
	buf_adds(b, ty);
	if (!strcmp(ty, "ByteLevel"))
		buf_adds(b, json_bool(json_get(o, "use_regex")) == 0 ? "" : "+re");
	else if (!strcmp(ty, "Digits"))
		buf_adds(b, json_bool(json_get(o, "individual_digits")) == 1 ?
		    "1" : "0");
	else if (!strcmp(ty, "Split") && (p = json_get(o, "pattern")) &&
	    (json_str(json_get(p, "Regex")) || json_str(json_get(p, "String")))) {
		s = json_get(p, "Regex") ? json_get(p, "Regex") : json_get(p, "String");
		buf_adds(b, json_get(p, "Regex") ? ":" : ":=");
		buf_add(b, s->u.str, s->len);
		s = json_get(o, "behavior");
		if (!json_str(s) || strcmp(s->u.str, "Isolated") ||
		    json_bool(json_get(o, "invert")) == 1)
			buf_adds(b, "/other");
	}
	buf_addc(b, ';');
}

static struct tokv {
	const char *s;		/* the token's text (NULL: a hole) */
	size_t len;
	int type;
	float score;
} *tv;
static int ntv;

static int *htab;		/* id + 1 by the text's hash, 0: empty */
static size_t hmask;

static size_t
hash(const char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;

	while (len--)
		h = (h ^ (unsigned char)*s++) * 0x100000001b3ull;
	return (size_t)(h ^ h >> 29) & hmask;
}

/* the lowest id of text s[0..len), or -1 */
static int
tokid(const char *s, size_t len)
{
	size_t h;

	for (h = hash(s, len); htab[h]; h = (h + 1) & hmask)
		if (tv[htab[h] - 1].len == len &&
		    !memcmp(tv[htab[h] - 1].s, s, len))
			return htab[h] - 1;
	return -1;
}

/* enter the ids' texts, the lowest id of a text kept */
static void
hashall(void)
{
	size_t h;
	int i;

	for (hmask = 16; hmask < 2 * (size_t)ntv; hmask *= 2)
		;
	free(htab);
	htab = ecalloc(hmask--, sizeof *htab);
	for (i = 0; i < ntv; i++)
		if (tv[i].s && tokid(tv[i].s, tv[i].len) < 0) {
			for (h = hash(tv[i].s, tv[i].len); htab[h]; h = (h + 1) & hmask)
				;
			htab[h] = i + 1;
		}
}

/* a special token of tokenizer_config.json (a string or {"content"}) */
static int
cfgtok(const struct json *cfg, const char *key)
{
	const struct json *j = json_get(cfg, key);

	if (j && j->type == JSON_OBJECT)
		j = json_get(j, "content");
	return json_str(j) ? tokid(j->u.str, j->len) : -1;
}

/* gguf-py's looks-special test of the converter (does_token_look_special) */
static int
looks_special(const char *s, size_t n)
{
	static const char *const lit[] = { "<pad>", "<mask>", "<2mass>", "[@BOS@]" };
	size_t i;

	for (i = 0; i < LEN(lit); i++)
		if (n == strlen(lit[i]) && !memcmp(s, lit[i], n))
			return 1;
#define ENDS(a, b) (n >= strlen(a) + strlen(b) && !memcmp(s, a, strlen(a)) && \
	!memcmp(s + n - strlen(b), b, strlen(b)))
	return ENDS("<|", "|>") || ENDS("<\xef\xbd\x9c", "\xef\xbd\x9c>") ||
	    ENDS("<unused", ">");
#undef ENDS
}

/* The text of file, malloc'd (NULL if absent) */
static char *
slurp(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	struct buf b = { 0 };
	char chunk[65536];
	size_t n;

	if (!fp)
		return NULL;
	while ((n = fread(chunk, 1, sizeof chunk, fp)) > 0)
		buf_add(&b, chunk, n);
	if (ferror(fp) || buf_ok(&b) < 0)
		die("read %s:", path);
	fclose(fp);
	buf_addc(&b, 0);
	*len = b.len - 1;
	return b.s;
}

/* Write the tokenizer keys of tokjson (and its tokenizer_config.json and
 * chat_template.jinja beside it); nvocab: the model's vocab_size (0: the
 * tokenizer's); pre: tokenizer.ggml.pre, NULL: found from tokjson */
static void
tokenizer(const char *tokjson, int nvocab, const char *pre)
{
	struct json_doc d = { 0 }, cd = { 0 };
	const struct json *m, *v, *mg, *ad, *cfg = NULL, *ct, *np, *post, *x;
	struct buf path = { 0 }, sig = { 0 }, mtxt = { 0 };
	const char *sl = strrchr(tokjson, '/'), *unk;
	size_t i, k, dl = sl ? (size_t)(sl - tokjson + 1) : 0, tlen = 0;
	char *tmpl, *bl;
	int spm, maxid = -1, bos, eos, pad, unkid, addbos = -1, addeos = -1;
	int addspace = 0, sp;
	long long id;
	float *scores;

	if (json_load(&d, tokjson) < 0)
		exit(1);
	buf_add(&path, tokjson, dl), buf_adds(&path, "tokenizer_config.json");
	buf_addc(&path, 0);
	if (buf_ok(&path) < 0)
		exit(1);
	if (access(path.s, F_OK) == 0) {
		if (json_load(&cd, path.s) < 0)
			exit(1);
		cfg = cd.root;
	}
	m = json_get(d.root, "model");
	v = json_get(m, "vocab");
	if (!m || !json_str(json_get(m, "type")) || strcmp(json_get(m, "type")->u.str,
	    "BPE") || !v || v->type != JSON_OBJECT)
		die("%s: not a BPE tokenizer.json", tokjson);
	ad = json_get(d.root, "added_tokens");
	for (i = 0; i < v->len; i++) {
		if (json_int(&v->u.members[i].value, 0, 1 << 24, &id) < 0)
			die("%s: vocab: bad id", tokjson);
		maxid = id > maxid ? id : maxid;
	}
	for (i = 0; ad && ad->type == JSON_ARRAY && i < ad->len; i++) {
		if (json_int(json_get(&ad->u.items[i], "id"), 0, 1 << 24, &id) < 0)
			die("%s: added_tokens: bad id", tokjson);
		maxid = id > maxid ? id : maxid;
	}
	ntv = nvocab > maxid ? nvocab : maxid + 1;
	tv = ecalloc((size_t)ntv, sizeof *tv);
	spm = json_bool(json_get(m, "byte_fallback")) == 1;
	for (i = 0; i < v->len; i++) {
		struct json_member *e = &v->u.members[i];
		json_int(&e->value, 0, 1 << 24, &id);
		tv[id].s = e->key, tv[id].len = e->keylen;
		tv[id].type = TT_NORMAL;
		if (spm && e->keylen == 6 && !memcmp(e->key, "<0x", 3) &&
		    e->key[5] == '>')
			tv[id].type = TT_BYTE;
	}
	hashall();
	if ((unk = json_str(json_get(m, "unk_token"))) &&
	    (unkid = tokid(unk, strlen(unk))) >= 0)
		tv[unkid].type = TT_UNKNOWN;
	/* the added tokens: control if special or special-looking, else
	 * user-defined, their U+2581 as spaces (the converter's
	 * get_vocab_base and _create_vocab_sentencepiece) */
	for (i = 0; ad && ad->type == JSON_ARRAY && i < ad->len; i++) {
		const struct json *a = &ad->u.items[i], *c = json_get(a, "content");
		if (!json_str(c))
			die("%s: added_tokens: bad entry %zu", tokjson, i);
		json_int(json_get(a, "id"), 0, 1 << 24, &id);
		if (tv[id].type == TT_UNKNOWN)
			continue;
		tv[id].s = c->u.str, tv[id].len = c->len;
		if (json_bool(json_get(a, "special")) == 1 ||
		    looks_special(c->u.str, c->len)) {
			tv[id].type = TT_CONTROL;
			continue;
		}
		tv[id].type = TT_USER;
		bl = emalloc(c->len + 1);
		for (k = tlen = 0; k < c->len; k++)
			if (k + 2 < c->len && !memcmp(c->u.str + k, "\xe2\x96\x81", 3))
				bl[tlen++] = ' ', k += 2;
			else
				bl[tlen++] = c->u.str[k];
		tv[id].s = bl, tv[id].len = tlen;	/* freed at exit */
	}
	for (i = 0; i < (size_t)ntv; i++)
		if (!tv[i].s) {
			char *p = emalloc(32);
			snprintf(p, 32, "[PAD%zu]", i);
			tv[i].s = p, tv[i].len = strlen(p), tv[i].type = TT_UNUSED;
		}

	hashall();
	mg = json_get(m, "merges");
	if (mg && mg->type != JSON_ARRAY)
		die("%s: merges: not an array", tokjson);
	if (!spm) {
		if (pre)
			;
		else {
			presig(&sig, json_get(d.root, "pre_tokenizer"), 0);
			buf_addc(&sig, 0);
			if (buf_ok(&sig) < 0)
				exit(1);
			for (i = 0; i < LEN(pres) && strcmp(sig.s, pres[i].sig); i++)
				;
			if (i == LEN(pres))
				die("%s: a pre_tokenizer mkgguf does not name (%s): "
				    "name it with -p", tokjson, sig.s);
			pre = pres[i].name;
		}
	}
	/* SentencePiece's scores: the merges' order, as a sentencepiece
	 * BPE model scores its pieces (-rank of the first merge that makes
	 * one; the pieces no merge makes below them, in id order; 0 for
	 * byte, control and unknown tokens) */
	scores = ecalloc((size_t)ntv, sizeof *scores);
	if (spm) {
		int *rank = emalloc(sizeof *rank * (size_t)ntv), nm = 0;

		for (i = 0; i < (size_t)ntv; i++)
			rank[i] = -1;
		for (i = 0; mg && i < mg->len; i++) {
			const struct json *e = &mg->u.items[i];
			buf_free(&mtxt);
			if (json_str(e))
				buf_add(&mtxt, e->u.str, e->len);
			else if (e->type == JSON_ARRAY && e->len == 2 &&
			    json_str(&e->u.items[0]) && json_str(&e->u.items[1]))
				buf_add(&mtxt, e->u.items[0].u.str, e->u.items[0].len),
				buf_addc(&mtxt, ' '),
				buf_add(&mtxt, e->u.items[1].u.str, e->u.items[1].len);
			if (buf_ok(&mtxt) < 0)
				exit(1);
			{
				char *sp2 = memchr(mtxt.s ? mtxt.s : "", ' ', mtxt.len);
				struct buf j = { 0 };
				int t;
				if (!sp2)
					die("%s: merge %zu: not \"a b\"", tokjson, i);
				buf_add(&j, mtxt.s, (size_t)(sp2 - mtxt.s));
				buf_add(&j, sp2 + 1, mtxt.len - (size_t)(sp2 - mtxt.s) - 1);
				if (buf_ok(&j) < 0)
					exit(1);
				t = tokid(j.s, j.len);
				if (t >= 0 && rank[t] < 0)
					rank[t] = nm++;
				buf_free(&j);
			}
		}
		for (i = 0; i < (size_t)ntv; i++)
			if (tv[i].type == TT_NORMAL)
				scores[i] = rank[i] >= 0 ? -(float)rank[i] :
				    -(float)(nm + (int)i);
			else if (tv[i].type == TT_USER || tv[i].type == TT_UNUSED)
				scores[i] = -1000;
		free(rank);
		/* a Prepend of U+2581 (Llama 2), or Metaspace's, is
		 * add_space_prefix */
		np = json_get(d.root, "normalizer");
		buf_free(&sig);
		presig(&sig, np, 0);
		addspace = strstr(json_str(json_get(np, "prepend")) ?
		    json_get(np, "prepend")->u.str : "", "\xe2\x96\x81") != NULL;
		x = json_get(np, "normalizers");
		for (i = 0; x && x->type == JSON_ARRAY && i < x->len; i++)
			if (json_str(json_get(&x->u.items[i], "prepend")) &&
			    !strcmp(json_get(&x->u.items[i], "prepend")->u.str,
			    "\xe2\x96\x81"))
				addspace = 1;
	}

	/* bos, eos, unk, pad: tokenizer_config.json's (SpecialVocab) */
	bos = cfgtok(cfg, "bos_token");
	eos = cfgtok(cfg, "eos_token");
	unkid = cfg ? cfgtok(cfg, "unk_token") : -1;
	if (unkid < 0 && unk)
		unkid = tokid(unk, strlen(unk));
	pad = cfgtok(cfg, "pad_token");
	if (cfg && (sp = json_bool(json_get(cfg, "add_bos_token"))) >= 0)
		addbos = sp;
	if (cfg && (sp = json_bool(json_get(cfg, "add_eos_token"))) >= 0)
		addeos = sp;
	/* else the post-processor's template, as SpecialVocab reads it */
	post = json_get(d.root, "post_processor");
	if ((x = json_get(post, "single")) && x->type == JSON_ARRAY && x->len) {
		const struct json *f = json_get(&x->u.items[0], "SpecialToken");
		const struct json *l = json_get(&x->u.items[x->len - 1], "SpecialToken");
		if (addbos < 0)
			addbos = f != NULL;
		if (addeos < 0)
			addeos = l != NULL;
		if (f && json_str(json_get(f, "id")) && bos < 0)
			bos = tokid(json_get(f, "id")->u.str, json_get(f, "id")->len);
	}

	kv_str("tokenizer.ggml.model", spm ? "llama" : "gpt2");
	kv_str("tokenizer.ggml.pre", spm ? "default" : pre);
	key("tokenizer.ggml.tokens"), u32(V_ARR), u32(V_STR), u64((uint64_t)ntv);
	for (i = 0; i < (size_t)ntv; i++)
		u64(tv[i].len), put(tv[i].s, tv[i].len);
	if (spm) {
		key("tokenizer.ggml.scores"), u32(V_ARR), u32(V_F32);
		u64((uint64_t)ntv);
		put(scores, sizeof *scores * (size_t)ntv);
	}
	key("tokenizer.ggml.token_type"), u32(V_ARR), u32(V_I32), u64((uint64_t)ntv);
	for (i = 0; i < (size_t)ntv; i++)
		u32((uint32_t)tv[i].type);
	if (!spm) {
		key("tokenizer.ggml.merges"), u32(V_ARR), u32(V_STR);
		u64(mg ? mg->len : 0);
		for (i = 0; mg && i < mg->len; i++) {
			const struct json *e = &mg->u.items[i];
			if (json_str(e))
				str(e->u.str);
			else if (e->type == JSON_ARRAY && e->len == 2 &&
			    json_str(&e->u.items[0]) && json_str(&e->u.items[1])) {
				u64(e->u.items[0].len + 1 + e->u.items[1].len);
				put(e->u.items[0].u.str, e->u.items[0].len);
				put(" ", 1);
				put(e->u.items[1].u.str, e->u.items[1].len);
			} else
				die("%s: merge %zu: not \"a b\" or [\"a\", \"b\"]",
				    tokjson, i);
		}
	}
	if (bos >= 0)
		kv_u32("tokenizer.ggml.bos_token_id", (uint32_t)bos);
	if (eos >= 0)
		kv_u32("tokenizer.ggml.eos_token_id", (uint32_t)eos);
	if (unkid >= 0)
		kv_u32("tokenizer.ggml.unknown_token_id", (uint32_t)unkid);
	if (pad >= 0)
		kv_u32("tokenizer.ggml.padding_token_id", (uint32_t)pad);
	if (addbos >= 0)
		key("tokenizer.ggml.add_bos_token"), u32(V_BOOL), put(addbos ? "\1" : "", 1);
	if (addeos >= 0)
		key("tokenizer.ggml.add_eos_token"), u32(V_BOOL), put(addeos ? "\1" : "", 1);
	if (spm)
		key("tokenizer.ggml.add_space_prefix"), u32(V_BOOL),
		    put(addspace ? "\1" : "", 1);
	/* the chat template: chat_template.jinja, else tokenizer_config's
	 * (a string, or named ones: "default" and tokenizer.chat_template.NAME) */
	path.len = dl;
	buf_adds(&path, "chat_template.jinja");
	buf_addc(&path, 0);
	if (buf_ok(&path) < 0)
		exit(1);
	if ((tmpl = slurp(path.s, &tlen))) {
		kv_str("tokenizer.chat_template", tmpl);
		free(tmpl);
	} else if ((ct = json_get(cfg, "chat_template")) && json_str(ct)) {
		kv_str("tokenizer.chat_template", ct->u.str);
	} else if (ct && ct->type == JSON_ARRAY) {
		for (i = 0; i < ct->len; i++) {
			const char *nm = json_str(json_get(&ct->u.items[i], "name"));
			const char *tx = json_str(json_get(&ct->u.items[i], "template"));
			char kb[256];
			if (!nm || !tx)
				continue;
			if (!strcmp(nm, "default"))
				snprintf(kb, sizeof kb, "tokenizer.chat_template");
			else
				snprintf(kb, sizeof kb, "tokenizer.chat_template.%s", nm);
			kv_str(kb, tx);
		}
	}
	free(scores);
	buf_free(&path), buf_free(&sig), buf_free(&mtxt);
	/* d and cd hold the strings written: kept until the end */
}

static struct out o[MAXT];
static int n, fflag, dflag, tflag = -1;	/* tflag: -t's ggml type, or -1 */
static const char *dir;
static struct st st;

/* -t's type for rows of cols weights: llama-quantize's fallback where
 * they are not whole blocks of 256 (llama-quant.cpp,
 * tensor_type_fallback). */
static int
fallback(int t, int64_t cols)
{
	if (cols % ggml_type((uint32_t)t)->block == 0)
		return t;
	switch (t) {
	case GGML_IQ4_XS: return GGML_IQ4_NL;
	case GGML_Q2_K: case GGML_Q3_K: return GGML_Q4_0;
	case GGML_Q4_K: return GGML_Q5_0;
	case GGML_Q5_K: return GGML_Q5_1;
	case GGML_Q6_K: return GGML_Q8_0;
	default: return t;	/* a block of 32: refused below */
	}
}

/* Add tensor hfname as gname, checked against the shape the config
 * gives it (rows, and cols, or 0 for a vector).  kind: 0 a matrix, 1 a
 * vector (F32), 2 a Gemma norm (F32, 1 + w). */
static void
add(const char *gname, const char *hfname, int kind, int heads, int64_t rows,
    int64_t cols, int qflag)
{
	const struct st_tensor *t = st_find(&st, hfname);
	char sh[ST_SHAPELEN];

	if (!t)
		die("%s: no tensor %s", dir, hfname);
	if (t->dtype != ST_F32 && t->dtype != ST_F16 && t->dtype != ST_BF16)
		die("%s: %s is %s", dir, hfname, st_dtype_name(t->dtype));
	if (cols ? t->ndim != 2 || t->shape[0] != rows || t->shape[1] != cols :
	    t->ndim != 1 || t->shape[0] != rows)
		die("%s: %s has shape %s, expected [%lld%s%.0lld]", dir, hfname,
		    st_shape_fmt(t, sh, sizeof sh), (long long)rows,
		    cols ? "," : "", (long long)cols);
	if (n + 1 >= MAXT)
		die("%s: too many tensors", dir);
	snprintf(o[n].name, sizeof o[n].name, "%s", gname);
	o[n].src = t;
	o[n].shape[0] = rows, o[n].shape[1] = cols;
	o[n].perm_heads = heads;
	o[n].add1 = kind == 2;
	o[n].type = kind || fflag ? G_F32 : qflag ? (tflag >= 0 ?
	    fallback(tflag, cols) : G_Q8_0) : t->dtype == ST_F32 ?
	    G_F32 : t->dtype == ST_F16 ? G_F16 : G_BF16;
	if (dflag && qflag && tflag >= 0)
		o[n].rt = o[n].type, o[n].type = G_F32;
	n++;
}

/* Add a vector made here, in F32. */
static void
addvec(const char *gname, const float *v, int len)
{
	if (n + 1 >= MAXT)
		die("%s: too many tensors", dir);
	snprintf(o[n].name, sizeof o[n].name, "%s", gname);
	o[n].vec = v;
	o[n].shape[0] = len;
	o[n].type = G_F32;
	n++;
}

/* llama.cpp's llama_ftype of the file: the type asked for (-q: Q8_0,
 * -t: its MOSTLY_ type, the K-quants' _S mixes), else the first
 * tensor's. */
static uint32_t
ftype(int q, int t, int first)
{
	switch (q ? t : -2) {
	case -1: case GGML_Q8_0: return 7;
	case GGML_Q4_0: return 2;
	case GGML_Q4_1: return 3;
	case GGML_Q5_0: return 8;
	case GGML_Q5_1: return 9;
	case GGML_Q2_K: return 10;
	case GGML_Q3_K: return 11;
	case GGML_Q4_K: return 14;
	case GGML_Q5_K: return 16;
	case GGML_Q6_K: return 18;
	case GGML_IQ4_NL: return 25;
	case GGML_IQ4_XS: return 30;
	default: return first == G_BF16 ? 32 : first == G_F16 ? 1 : 0;
	}
}

static const char *
lname(char *buf, size_t len, int layer, const char *what)
{
	snprintf(buf, len, "model.layers.%d.%s", layer, what);
	return buf;
}

static const char *
gname(char *buf, size_t len, int layer, const char *what)
{
	snprintf(buf, len, "blk.%d.%s", layer, what);
	return buf;
}

int
main(int argc, char *argv[])
{
	struct mdir md;
	struct cfg c;
	char b1[160], b2[96], tok[32];
	int qflag = 0, vflag = 0, ch, l, i, k, hd, d, qd, kd, ff, perm, gemma;
	int rd, nsl, vocabonly = 0;
	const char *pre = NULL, *tokjson = NULL;
	uint64_t off = 0, pos, data;
	const struct ggml_type_info *gt;
	float *row, *freqs = NULL;
	char *qrow;		/* a row in libcore's Q8_0 layout */
	size_t r, rows, cols, j;

	argv0 = argv[0];
	while ((ch = getopt(argc, argv, "DFp:qt:T:Vv")) != -1)
		switch (ch) {
		case 'D': dflag = 1; break;
		case 'F': fflag = 1; break;
		case 'p': pre = optarg; break;
		case 'q': qflag = 1; break;
		case 't':
			for (k = 0; k < GGML_NTYPES; k++) {
				const struct ggml_type_info *g = ggml_type((uint32_t)k);

				if (g && g->block > 1 && g->wtype >= 0 &&
				    !strcasecmp(g->name, optarg))
					break;
			}
			if (k == GGML_NTYPES) {
				fprintf(stderr, "%s: -t %s: not a ggml block type "
				    "mkgguf writes\n", argv0, optarg);
				goto usage;
			}
			tflag = k, qflag = 1;
			break;
		case 'T': tokjson = optarg; break;
		case 'V': vocabonly = 1; break;
		case 'v': vflag = 1; break;
		default: goto usage;
		}
	if (argc - optind != 2 || (fflag && qflag) || (dflag && tflag < 0)) {
usage:
		fprintf(stderr, "usage: %s [-DFqVv] [-p pre] [-t type] "
		    "[-T tokenizer.json] model out.gguf\n", argv0);
		return 2;
	}
	memset(&md, 0, sizeof md);
	if (vocabonly) {
		struct stat sb;

		if (!tokjson) {
			if (stat(argv[optind], &sb) == 0 && S_ISDIR(sb.st_mode)) {
				if (mdir_resolve_tokenizer(&md, argv[optind]) < 0)
					return 1;
				tokjson = md.tokenizer;
			} else
				tokjson = argv[optind];
		}
		arch = "llama";
		kv_str("general.architecture", arch);
		kv_str("general.name", "pipelm mkgguf");
		tokenizer(tokjson, 0, pre);
		if (buf_ok(&meta) < 0)
			return 1;
		opath = argv[optind + 1];
		if (!(f = fopen(opath, "wb")))
			die("open %s:", opath);
		put("GGUF", 4);
		u32(3);
		u64(0);
		u64((uint64_t)nkv);
		put(meta.s, meta.len);
		buf_free(&meta);
		mdir_free(&md);
		return fshut(f, opath) ? 1 : 0;
	}
	if (kern_init(NULL) < 0 || mdir_resolve(&md, argv[optind]) < 0 ||
	    cfg_load(&c, md.config, md.genconfig) < 0 ||
	    st_open(&st, md.weights ? md.weights : md.dir) < 0)
		return 1;
	dir = md.dir;
	switch (c.arch) {
	case ARCH_LLAMA: case ARCH_MISTRAL: arch = "llama"; break;
	case ARCH_QWEN2: arch = "qwen2"; break;
	case ARCH_QWEN3: arch = "qwen3"; break;
	case ARCH_SMOLLM3: arch = "smollm3"; break;
	case ARCH_GEMMA2: arch = "gemma2"; break;
	case ARCH_GEMMA3: arch = "gemma3"; break;
	case ARCH_PHI3: arch = "phi3"; break;
	default: die("%s: %s is not converted", dir, cfg_arch_name(c.arch));
	}
	/* the converters that permute: LlamaModel's and its subclasses' */
	perm = c.arch == ARCH_LLAMA || c.arch == ARCH_MISTRAL ||
	    c.arch == ARCH_SMOLLM3;
	gemma = c.arch == ARCH_GEMMA2 || c.arch == ARCH_GEMMA3;
	if (c.rope_scaling.rope_type[0] &&
	    strcmp(c.rope_scaling.rope_type, "linear") &&
	    strcmp(c.rope_scaling.rope_type, "yarn") &&
	    strcmp(c.rope_scaling.rope_type, "llama3") &&
	    (strcmp(c.rope_scaling.rope_type, "longrope") || c.arch != ARCH_PHI3))
		die("%s: rope_scaling %s is not converted for %s", dir,
		    c.rope_scaling.rope_type, cfg_arch_name(c.arch));
	if (c.rope_local.rope_type[0])
		die("%s: a sliding layers' rope_scaling is not converted", dir);
	if (c.arch == ARCH_GEMMA2 && !c.tie_word_embeddings)
		die("%s: llama.cpp's gemma2 has no separate lm_head", dir);
	hd = c.head_dim;
	rd = (int)(c.partial_rotary_factor * (float)hd);
	rd -= rd % 2;

	d = c.hidden_size;
	qd = c.num_attention_heads * hd;
	kd = c.num_key_value_heads * hd;
	ff = c.intermediate_size;
	if (d > (1 << 18) || ff > (1 << 18) || qd + 2 * kd > (1 << 18))
		die("%s: rows of %d weights are too long", dir, d > ff ? d : ff);

	/* the tensor list, in llama.cpp's names, each checked against the
	 * shape the config gives it before anything is written */
	add("token_embd.weight", "model.embed_tokens.weight", 0, 0,
	    c.vocab_size, d, qflag);
	add("output_norm.weight", "model.norm.weight", 1 + gemma, 0, d, 0, 0);
	if (!c.tie_word_embeddings)
		add("output.weight", "lm_head.weight", 0, 0, c.vocab_size, d,
		    qflag);
	if (!strcmp(c.rope_scaling.rope_type, "llama3")) {
		/* convert_hf_to_gguf's LlamaModel: a factor per frequency */
		const struct cfg_rope *rs = &c.rope_scaling;
		double lo = rs->original_max_position_embeddings /
		    rs->low_freq_factor, hi =
		    rs->original_max_position_embeddings / rs->high_freq_factor;

		freqs = emalloc(sizeof *freqs * (size_t)(hd / 2));
		for (i = 0; i < hd / 2; i++) {
			float fr = 1.0f / powf(c.rope_theta, (float)(2 * i) /
			    (float)hd);
			double wl = 2 * 3.14159265358979323846 / fr, sm;

			if (wl < hi)
				freqs[i] = 1;
			else if (wl > lo)
				freqs[i] = rs->factor;
			else {
				sm = (rs->original_max_position_embeddings / wl -
				    rs->low_freq_factor) /
				    (rs->high_freq_factor - rs->low_freq_factor);
				freqs[i] = (float)(1 / ((1 - sm) / rs->factor +
				    sm));
			}
		}
		addvec("rope_freqs.weight", freqs, hd / 2);
	}
	if (!strcmp(c.rope_scaling.rope_type, "longrope")) {
		addvec("rope_factors_long.weight", c.rope_scaling.long_factor,
		    c.rope_scaling.nfactor);
		addvec("rope_factors_short.weight", c.rope_scaling.short_factor,
		    c.rope_scaling.nfactor);
	}
	for (l = 0; l < c.num_hidden_layers; l++) {
		int nk = c.num_key_value_heads, nq = c.num_attention_heads;

		add(gname(b2, sizeof b2, l, "attn_norm.weight"),
		    lname(b1, sizeof b1, l, "input_layernorm.weight"),
		    1 + gemma, 0, d, 0, 0);
		if (c.arch == ARCH_PHI3)
			add(gname(b2, sizeof b2, l, "attn_qkv.weight"),
			    lname(b1, sizeof b1, l, "self_attn.qkv_proj.weight"),
			    0, 0, qd + 2 * kd, d, qflag);
		else {
			static const char *qkv[3] = { "q", "k", "v" };

			for (k = 0; k < 3; k++) {
				char hn[64], gn[64];
				int h = !perm || k == 2 ? 0 : k ? nk : nq;
				int64_t rw = k ? kd : qd;

				snprintf(hn, sizeof hn, "self_attn.%s_proj.weight",
				    qkv[k]);
				snprintf(gn, sizeof gn, "attn_%s.weight", qkv[k]);
				add(gname(b2, sizeof b2, l, gn),
				    lname(b1, sizeof b1, l, hn), 0, h, rw, d,
				    qflag);
				snprintf(hn, sizeof hn, "self_attn.%s_proj.bias",
				    qkv[k]);
				snprintf(gn, sizeof gn, "attn_%s.bias", qkv[k]);
				if (st_find(&st, lname(b1, sizeof b1, l, hn)))
					add(gname(b2, sizeof b2, l, gn), b1, 1,
					    h, rw, 0, 0);
			}
		}
		add(gname(b2, sizeof b2, l, "attn_output.weight"),
		    lname(b1, sizeof b1, l, "self_attn.o_proj.weight"), 0, 0,
		    d, qd, qflag);
		if (st_find(&st, lname(b1, sizeof b1, l, "self_attn.o_proj.bias")))
			add(gname(b2, sizeof b2, l, "attn_output.bias"), b1, 1,
			    0, d, 0, 0);
		if (c.arch == ARCH_QWEN3 || c.arch == ARCH_GEMMA3) {
			add(gname(b2, sizeof b2, l, "attn_q_norm.weight"),
			    lname(b1, sizeof b1, l, "self_attn.q_norm.weight"),
			    1 + gemma, 0, hd, 0, 0);
			add(gname(b2, sizeof b2, l, "attn_k_norm.weight"),
			    lname(b1, sizeof b1, l, "self_attn.k_norm.weight"),
			    1 + gemma, 0, hd, 0, 0);
		}
		if (gemma) {
			/* Gemma's post_attention_layernorm is after
			 * attention; pre_feedforward_layernorm is Llama's
			 * post_attention_layernorm */
			add(gname(b2, sizeof b2, l, "post_attention_norm.weight"),
			    lname(b1, sizeof b1, l,
			    "post_attention_layernorm.weight"), 2, 0, d, 0, 0);
			add(gname(b2, sizeof b2, l, "ffn_norm.weight"),
			    lname(b1, sizeof b1, l,
			    "pre_feedforward_layernorm.weight"), 2, 0, d, 0, 0);
			add(gname(b2, sizeof b2, l, "post_ffw_norm.weight"),
			    lname(b1, sizeof b1, l,
			    "post_feedforward_layernorm.weight"), 2, 0, d, 0, 0);
		} else
			add(gname(b2, sizeof b2, l, "ffn_norm.weight"),
			    lname(b1, sizeof b1, l,
			    "post_attention_layernorm.weight"), 1, 0, d, 0, 0);
		if (c.arch == ARCH_PHI3)	/* gate then up, as HF fuses them */
			add(gname(b2, sizeof b2, l, "ffn_up.weight"),
			    lname(b1, sizeof b1, l, "mlp.gate_up_proj.weight"),
			    0, 0, 2 * ff, d, qflag);
		else {
			add(gname(b2, sizeof b2, l, "ffn_gate.weight"),
			    lname(b1, sizeof b1, l, "mlp.gate_proj.weight"), 0,
			    0, ff, d, qflag);
			add(gname(b2, sizeof b2, l, "ffn_up.weight"),
			    lname(b1, sizeof b1, l, "mlp.up_proj.weight"), 0, 0,
			    ff, d, qflag);
		}
		add(gname(b2, sizeof b2, l, "ffn_down.weight"),
		    lname(b1, sizeof b1, l, "mlp.down_proj.weight"), 0, 0, d,
		    ff, qflag);
		if (st_find(&st, lname(b1, sizeof b1, l, "mlp.gate_proj.bias"))) {
			add(gname(b2, sizeof b2, l, "ffn_gate.bias"), b1, 1, 0,
			    ff, 0, 0);
			add(gname(b2, sizeof b2, l, "ffn_up.bias"),
			    lname(b1, sizeof b1, l, "mlp.up_proj.bias"), 1, 0,
			    ff, 0, 0);
			add(gname(b2, sizeof b2, l, "ffn_down.bias"),
			    lname(b1, sizeof b1, l, "mlp.down_proj.bias"), 1, 0,
			    d, 0, 0);
		}
	}
	for (i = 0; i < n; i++) {
		cols = o[i].shape[1] ? (size_t)o[i].shape[1] :
		    (size_t)o[i].shape[0];
		rows = o[i].shape[1] ? (size_t)o[i].shape[0] : 1;
		gt = ggml_type((uint32_t)o[i].type);
		if (cols % (size_t)gt->block)
			die("%s: %s has %zu columns, not a multiple of %d (%s)",
			    dir, o[i].name, cols, gt->block, gt->name);
		o[i].bytes = rows * (cols / (size_t)gt->block) *
		    (size_t)gt->bytes;
		o[i].off = off;
		off += (o[i].bytes + ALIGN - 1) / ALIGN * ALIGN;
	}
	for (nsl = l = 0; l < c.num_hidden_layers; l++)
		nsl += c.sliding[l] != 0;

	/* the metadata, into meta first: the header counts it */
	kv_str("general.architecture", arch);
	kv_str("general.name", "pipelm mkgguf");
	kv_u32("general.file_type", ftype(qflag, tflag, o[0].type));
	kv_u32(".vocab_size", (uint32_t)c.vocab_size);
	kv_u32(".context_length", (uint32_t)c.max_position_embeddings);
	kv_u32(".embedding_length", (uint32_t)c.hidden_size);
	kv_u32(".block_count", (uint32_t)c.num_hidden_layers);
	kv_u32(".feed_forward_length", (uint32_t)c.intermediate_size);
	kv_u32(".attention.head_count", (uint32_t)c.num_attention_heads);
	kv_u32(".attention.head_count_kv", (uint32_t)c.num_key_value_heads);
	kv_u32(".attention.key_length", (uint32_t)hd);
	kv_u32(".attention.value_length", (uint32_t)hd);
	kv_u32(".rope.dimension_count", (uint32_t)rd);
	kv_f32(".rope.freq_base", c.rope_theta);
	kv_f32(".attention.layer_norm_rms_epsilon", c.rms_norm_eps);
	if (!strcmp(c.rope_scaling.rope_type, "linear")) {
		kv_str(".rope.scaling.type", "linear");
		kv_f32(".rope.scaling.factor", c.rope_scaling.factor);
	} else if (!strcmp(c.rope_scaling.rope_type, "yarn")) {
		kv_str(".rope.scaling.type", "yarn");
		kv_f32(".rope.scaling.factor", c.rope_scaling.factor);
		kv_u32(".rope.scaling.original_context_length",
		    (uint32_t)c.rope_scaling.original_max_position_embeddings);
		if (c.rope_scaling.attention_factor)
			kv_f32(".rope.scaling.yarn_attn_factor",
			    c.rope_scaling.attention_factor);
		if (c.rope_scaling.beta_fast)
			kv_f32(".rope.scaling.yarn_beta_fast",
			    c.rope_scaling.beta_fast);
		if (c.rope_scaling.beta_slow)
			kv_f32(".rope.scaling.yarn_beta_slow",
			    c.rope_scaling.beta_slow);
	}
	if (c.arch == ARCH_PHI3) {
		int orig = c.rope_scaling.original_max_position_embeddings;
		double sc = (double)c.max_position_embeddings / orig;

		kv_u32(".rope.scaling.original_context_length", (uint32_t)orig);
		kv_u32(".attention.sliding_window", (uint32_t)c.sliding_window);
		if (c.rope_scaling.nfactor)	/* longrope: the converter's */
			kv_f32(".rope.scaling.attn_factor", sc > 1 ?
			    (float)sqrt(1 + log(sc) / log(orig)) : 1.0f);
	}
	if (gemma) {
		if (c.arch == ARCH_GEMMA2 || nsl)
			kv_u32(".attention.sliding_window",
			    (uint32_t)c.sliding_window);
		/* the converter writes no pattern (llama.cpp assumes Gemma
		 * 2's alternation and Gemma 3's five in six, as the real
		 * models have); written here from layer_types, which
		 * llama.cpp reads, the random models' patterns are kept */
		key(".attention.sliding_window_pattern");
		u32(V_ARR), u32(V_BOOL), u64((uint64_t)c.num_hidden_layers);
		for (l = 0; l < c.num_hidden_layers; l++)
			put(c.sliding[l] ? "\1" : "", 1);
		if (c.rope_local_theta)
			kv_f32(".rope.freq_base_swa", c.rope_local_theta);
		if (c.attn_logit_softcapping)
			kv_f32(".attn_logit_softcapping",
			    c.attn_logit_softcapping);
		if (c.final_logit_softcapping)
			kv_f32(".final_logit_softcapping",
			    c.final_logit_softcapping);
	}
	if (!tokjson)
		tokjson = md.tokenizer;
	if (tokjson) {
		tokenizer(tokjson, c.vocab_size, pre);
		if (ntv > c.vocab_size)
			die("%s: %d tokens, more than the model's vocab_size %d",
			    tokjson, ntv, c.vocab_size);
		goto meta_done;
	}
	kv_str("tokenizer.ggml.model", "gpt2");
	kv_str("tokenizer.ggml.pre", "default");
	key("tokenizer.ggml.tokens"), u32(V_ARR), u32(V_STR);
	u64((uint64_t)c.vocab_size);
	for (i = 0; i < c.vocab_size; i++)
		token(tok, sizeof tok, i), str(tok);
	key("tokenizer.ggml.token_type"), u32(V_ARR), u32(V_I32);
	u64((uint64_t)c.vocab_size);
	for (i = 0; i < c.vocab_size; i++)
		u32(1);		/* normal */
	key("tokenizer.ggml.merges"), u32(V_ARR), u32(V_STR), u64(0);
meta_done:
	if (buf_ok(&meta) < 0)
		return 1;

	opath = argv[optind + 1];
	if (!(f = fopen(opath, "wb")))
		die("open %s:", opath);
	put("GGUF", 4);
	u32(3);
	u64((uint64_t)n);
	u64((uint64_t)nkv);
	put(meta.s, meta.len);
	buf_free(&meta);
	for (i = 0; i < n; i++) {
		str(o[i].name);
		u32(o[i].shape[1] ? 2 : 1);
		if (o[i].shape[1])	/* innermost first */
			u64((uint64_t)o[i].shape[1]);
		u64((uint64_t)o[i].shape[0]);
		u32((uint32_t)o[i].type);
		u64(o[i].off);
	}
	while (written % ALIGN)
		put("", 1);
	data = written;

	row = emalloc(1 << 20);
	/* the longest row in libcore's Q8_0 or any ggml block type (at
	 * most 34 bytes for 32 weights) */
	qrow = emalloc(conv_q8_0_rowsize(1 << 18) + 34 * (1 << 13));
	for (i = 0; i < n; i++) {
		const struct st_tensor *t = o[i].src;
		size_t es, h = (size_t)o[i].perm_heads, rhd;
		enum wtype wt = W_F32;

		if (!t) {
			put(o[i].vec, (size_t)o[i].shape[0] * 4);
			goto pad;
		}
		es = st_dtype_size(t->dtype);
		wsrc_st_type(t->dtype, &wt);	/* checked: F32, F16, BF16 */
		cols = t->ndim == 2 ? (size_t)t->shape[1] : 1;
		rows = t->ndim == 2 ? (size_t)t->shape[0] : t->nel;
		if (t->ndim == 1 && !h)		/* a vector: one row */
			cols = rows, rows = 1;
		rhd = h ? rows / h : 0;		/* head_dim, for the reorder */
		for (r = 0; r < rows; r++) {
			size_t sr = r;	/* the source row of output row r */

			if (h) {	/* within a head: 2i + j <- j * hd/2 + i */
				size_t base = r / rhd * rhd, w = r % rhd;

				sr = base + w % 2 * (rhd / 2) + w / 2;
			}
			gt = ggml_type((uint32_t)o[i].type);
			if (gt->block == 1 && o[i].type != G_F32) {
				put((const char *)t->data + sr * cols * es, cols * es);
				continue;
			}
			kern.to_f32[wt](row, (const char *)t->data + sr * cols * es,
			    cols);
			if (o[i].rt) {	/* -D: through the blocks and back */
				for (j = 0; j < cols; j++)
					if (!isfinite(row[j]))
						die("%s: %s: a value that is not "
						    "finite cannot be quantized", dir,
						    t->name);
				gt = ggml_type((uint32_t)o[i].rt);
				wtypes[gt->wtype].from_f32(qrow, row, (int)cols);
				kern.to_f32[gt->wtype](row, qrow, cols);
			}
			if (o[i].type == G_F32) {
				for (j = 0; o[i].add1 && j < cols; j++)
					row[j] += 1;
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
					    "cannot be quantized", dir, t->name);
			if (tflag >= 0) {	/* ggml's blocks, as they are */
				wtypes[gt->wtype].from_f32(qrow, row, (int)cols);
				put(qrow, wtype_rowsize(gt->wtype, (int)cols));
				continue;
			}
			conv_q8_0_quant(qrow, row, (int)cols);
			for (j = 0; j < cols / 32; j++) {
				float sc;
				uint16_t dh;

				memcpy(&sc, qrow + 4 * j, 4);
				dh = half(sc);
				put(&dh, 2);
				put(qrow + 4 * CONV_Q8_0_NB(cols) + 32 * j, 32);
			}
		}
pad:
		for (pos = o[i].bytes; pos % ALIGN; pos++)
			put("", 1);
	}
	free(row);
	free(qrow);
	if (fshut(f, opath))
		return 1;
	for (i = 0; vflag && i < n; i++) {
		printf("%s\t%s\t", o[i].name,
		    ggml_type((uint32_t)o[i].type)->name);
		if (o[i].shape[1])
			printf("%lld,", (long long)o[i].shape[1]);
		printf("%lld\t%llu\n", (long long)o[i].shape[0],
		    (unsigned long long)(data + o[i].off));
	}
	free(freqs);
	st_close(&st);
	mdir_free(&md);
	return 0;
}
