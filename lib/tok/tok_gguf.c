/* tok_gguf.c: the tokenizer of a GGUF file's metadata (tokenizer.ggml.*),
 * as llama.cpp's src/llama-vocab.cpp reads it, turned into the
 * tokenizer.json that says the same and loaded through tok.c: one
 * tokenizer, whatever file it comes from.
 *
 * tokenizer.ggml.model "gpt2" is byte-level BPE: tokens and merges as
 * tokenizer.json writes them, the pre-tokenizer llama.cpp gives
 * tokenizer.ggml.pre (a Sequence of Splits on its regexes, isolated,
 * then ByteLevel without its own regex), merges ignored for a word that
 * is a token where llama.cpp ignores them (Llama 3).  "llama" is
 * SentencePiece's BPE: pieces merged by score (llama.cpp's SPM
 * tokenizer), <0xHH> byte tokens for what no piece covers, the text's
 * spaces as U+2581 and one put before each stretch of text when
 * tokenizer.ggml.add_space_prefix (true unless said).  Its merges are
 * made from the scores as HuggingFace's converter makes a tokenizer.json's
 * from a SentencePiece model: every split of a piece into two pieces,
 * the pieces by score (then id), a piece's splits by the halves' ids.
 * Control and unknown tokens (token_type 3, 2) are special added
 * tokens, user-defined ones (4) added tokens, matched in the raw text
 * as llama.cpp matches them; add_bos_token and add_eos_token (by
 * default: "llama" and llama3's pre add BOS) are the post-processor. */
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "base/util.h"
#include "disk/gguf.h"
#include "tok/tok_int.h"

enum { TT_NORMAL = 1, TT_UNKNOWN, TT_CONTROL, TT_USER, TT_UNUSED, TT_BYTE };
#define MAXPIECE 256		/* bytes of a piece whose merges are made */

/* llama-vocab.cpp's regexes (llm_tokenizer_bpe) */
#define RE_GPT2 "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)"
#define RE_LLAMA3 "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|" \
	"[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|" \
	"\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"
#define RE_QWEN2 "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|" \
	"[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|" \
	"\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"
#define RE_CJK "[一-龥ࠀ-一가-퟿]+"

static const char *const re_default[] = {
	"[\\p{P}\\$\\+<=>\\^~\\|]+", RE_GPT2, "\\p{N}+", "[0-9][0-9][0-9]", NULL };
static const char *const re_llama3[] = { RE_LLAMA3, NULL };
static const char *const re_deepseek_llm[] = {
	"[\r\n]",
	"\\s?[A-Za-zµÀ-ÖØ-öø-ƺƼ-ƿǄ-ʓʕ-ʯͰ-ͳͶͷͻ-ͽͿΆΈ-ΊΌΎ-ΡΣ-ϵϷ-ҁҊ-ԯԱ-ՖႠ-ჅᎠ-Ᏽᏸ-ᏽᲐ-ᲺᲽ-Ჿᴀ-ᴫᵫ-ᵷᵹ-ᶚḀ-ἕἘ-Ἕἠ-ὅὈ-Ὅὐ-ὗὙὛὝὟ-ώᾀ-ᾴᾶ-ᾼιῂ-ῄῆ-ῌῐ-ΐῖ-Ίῠ-Ῥῲ-ῴῶ-ῼℂℇℊ-ℓℕℙ-ℝℤΩℨK-ℭℯ-ℴℹℼ-ℿⅅ-ⅉⅎↃↄⰀ-ⱻⱾ-ⳤⳫ-ⳮⳲⳳꙀ-ꙭꚀ-ꚛꜢ-ꝯꝱ-ꞇꞋ-ꞎꭰ-ꮿﬀ-ﬆﬓ-ﬗＡ-Ｚａ-ｚ𐐀-𐑏𐒰-𐓓𐓘-𐓻𐲀-𐲲𐳀-𐳲𑢠-𑣟𞤀-𞥃]+",
	"\\s?[!-/:-~！-／：-～‘-‟　-。]+",
	"\\s+$",
	RE_CJK,
	"\\p{N}+",
	NULL };
static const char *const re_deepseek3[] = {
	"\\p{N}{1,3}",
	"[一-龥぀-ゟ゠-ヿ]+",
	"[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| ?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+",
	NULL };
static const char *const re_deepseek_coder[] = {
	"[\r\n]", "\\s?\\p{L}+", "\\s?\\p{P}+", RE_CJK, "\\p{N}", NULL };
static const char *const re_falcon[] = {
	"[\\p{P}\\$\\+<=>\\^~\\|`]+", RE_GPT2, "[0-9][0-9][0-9]", NULL };
static const char *const re_starcoder[] = { "\\p{N}", RE_GPT2, NULL };
static const char *const re_gpt2[] = { RE_GPT2, NULL };
static const char *const re_qwen2[] = { RE_QWEN2, NULL };
static const char *const re_qwen35[] = {
	"(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|"
	"[^\\r\\n\\p{L}\\p{N}]?[\\p{L}\\p{M}]+|\\p{N}| ?[^\\s\\p{L}\\p{M}\\p{N}]+[\\r\\n]*|"
	"\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+", NULL };
static const char *const re_bloom[] = { " ?[^(\\s|.,!?…。，、।۔،)]+", NULL };
static const char *const re_viking[] = { " ?[^(\\s|.,!?…。，、।۔،)]+", "\\p{N}", NULL };

/* tokenizer.ggml.pre -> regexes, as llama_vocab::impl::load names them;
 * ignore_merges and add_bos where it sets them */
static const struct pre {
	const char *names;		/* '|'-separated */
	const char *const *re;
	int ignore_merges, add_bos;
} pres[] = {
	{ "default|", re_default, 0, 0 },
	{ "llama3|llama-v3|llama-bpe|falcon3|falcon-h1|pixtral|midm-2.0|lfm2|"
	    "jina-v5-nano|", re_llama3, 1, 1 },
	{ "dbrx|smaug-bpe|chatglm-bpe|glm4|", re_llama3, 0, 0 },
	{ "deepseek-llm|", re_deepseek_llm, 0, 0 },
	{ "deepseek-coder|", re_deepseek_coder, 0, 0 },
	{ "deepseek-v3|hunyuan-dense|joyai-llm|hy_v4|", re_deepseek3, 0, 0 },
	{ "falcon|", re_falcon, 0, 0 },
	{ "starcoder|refact|command-r|smollm|codeshell|exaone|minerva-7b|"
	    "mellum2|", re_starcoder, 0, 0 },
	{ "gpt-2|phi-2|jina-es|jina-de|gigachat|jina-v2-es|jina-v2-de|a.x-4.0|"
	    "mellum|modern-bert|mpt|olmo|jais|trillion|granite-docling|exaone4|"
	    "jina-v1-en|jina-v2-code|roberta-bpe|", re_gpt2, 0, 0 },
	{ "qwen2|deepseek-r1-qwen|kormo|f2llmv2|megrez|stablelm2|hunyuan|"
	    "solar-open|", re_qwen2, 0, 0 },
	{ "qwen35|", re_qwen35, 0, 0 },
	{ "poro-chat|bloom|gpt3-finnish|", re_bloom, 0, 0 },
	{ "viking|", re_viking, 0, 0 },
};

static const struct pre *
find_pre(const char *s, size_t n)
{
	size_t i;
	const char *p, *bar;

	for (i = 0; i < LEN(pres); i++)
		for (p = pres[i].names; (bar = strchr(p, '|')); p = bar + 1)
			if ((size_t)(bar - p) == n && !memcmp(p, s, n))
				return &pres[i];
	return NULL;
}

struct gtok {
	const char *path;
	uint64_t n;			/* tokens */
	const unsigned char **s;	/* [n] their texts, in the mapping */
	size_t *len;
	int32_t *type;			/* [n] token_type (1 if absent) */
	float *score;			/* [n] scores, or NULL */
	int spm;
	uint32_t *htab;			/* text -> id + 1, the lowest id */
	size_t hmask;
};

static size_t
gbucket(const struct gtok *g, const void *s, size_t n)
{
	return (size_t)(tok_hash(s, n) >> 16) & g->hmask;
}

/* the lowest id whose text is s[0..n), or -1 */
static long
gfind(const struct gtok *g, const void *s, size_t n)
{
	size_t h;
	uint32_t e;

	for (h = gbucket(g, s, n); (e = g->htab[h]); h = (h + 1) & g->hmask)
		if (g->len[e - 1] == n && !memcmp(g->s[e - 1], s, n))
			return (long)e - 1;
	return -1;
}

static int
ghash(struct gtok *g)
{
	size_t h;
	uint64_t i;

	g->hmask = tok_pow2(g->n) - 1;
	if (!(g->htab = xcalloc(g->hmask + 1, sizeof *g->htab)))
		return -1;
	for (i = 0; i < g->n; i++) {
		if (gfind(g, g->s[i], g->len[i]) >= 0)
			continue;
		for (h = gbucket(g, g->s[i], g->len[i]); g->htab[h]; h = (h + 1) & g->hmask)
			;
		g->htab[h] = (uint32_t)i + 1;
	}
	return 0;
}

/* an integer type (not bool), whose arrays are read in constant time
 * an element */
static int
isint(enum gguf_vtype t)
{
	return t <= GGUF_I32 || t == GGUF_U64 || t == GGUF_I64;
}

/* The tokens, their types and scores: arrays of one length */
static int
read_tokens(struct gtok *g, const struct gguf *f)
{
	struct gguf_val a, ty, sc, e;
	struct gguf_it it;
	uint64_t i;
	int64_t v;
	double d;
	int r;

	if ((r = gguf_get_arr(f, "tokenizer.ggml.tokens", GGUF_STR, &a)) != 0)
		return r < 0 ? -1 : error("%s: no tokenizer.ggml.tokens", g->path);
	if (!a.n || a.n > TOK_MAXID)
		return error("%s: tokenizer.ggml.tokens: %llu tokens", g->path,
		    (unsigned long long)a.n);
	g->n = a.n;
	if (!(g->s = xcalloc(g->n, sizeof *g->s)) ||
	    !(g->len = xcalloc(g->n, sizeof *g->len)) ||
	    !(g->type = xcalloc(g->n, sizeof *g->type)))
		return -1;
	for (gguf_it_init(&it, &a), i = 0; gguf_it_next(&it, &e); i++)
		g->s[i] = e.p, g->len[i] = e.n;
	if ((r = gguf_get_arr(f, "tokenizer.ggml.token_type", GGUF_NVTYPE, &ty)) < 0)
		return -1;
	for (i = 0; i < g->n; i++)
		g->type[i] = TT_NORMAL;
	if (r == 0) {
		if (!isint(ty.atype))
			return error("%s: tokenizer.ggml.token_type: an array of "
			    "%s, not of integers", g->path, gguf_vtype_name(ty.atype));
		if (ty.n != g->n)
			return error("%s: tokenizer.ggml.token_type: %llu types for "
			    "%llu tokens", g->path, (unsigned long long)ty.n,
			    (unsigned long long)g->n);
		for (i = 0; i < g->n; i++) {
			gguf_arr_at(&ty, i, &e);
			if (gguf_val_int(&e, &v) < 0 || v < TT_NORMAL || v > TT_BYTE)
				return error("%s: tokenizer.ggml.token_type: token %llu: "
				    "not a token type (1 to 6)", g->path,
				    (unsigned long long)i);
			g->type[i] = (int32_t)v;
		}
	}
	if ((r = gguf_get_arr(f, "tokenizer.ggml.scores", GGUF_NVTYPE, &sc)) < 0)
		return -1;
	if (r == 0) {
		if (!isint(sc.atype) && sc.atype != GGUF_F32 && sc.atype != GGUF_F64)
			return error("%s: tokenizer.ggml.scores: an array of %s, "
			    "not of numbers", g->path, gguf_vtype_name(sc.atype));
		if (sc.n != g->n)
			return error("%s: tokenizer.ggml.scores: %llu scores for "
			    "%llu tokens", g->path, (unsigned long long)sc.n,
			    (unsigned long long)g->n);
		if (!(g->score = xcalloc(g->n, sizeof *g->score)))
			return -1;
		for (i = 0; i < g->n; i++) {
			gguf_arr_at(&sc, i, &e);
			if (gguf_val_float(&e, &d) < 0 || !(d == d) ||
			    d > 3.4e38 || d < -3.4e38)
				return error("%s: tokenizer.ggml.scores: token %llu: "
				    "not a finite number", g->path,
				    (unsigned long long)i);
			g->score[i] = (float)d;
		}
	}
	return ghash(g);
}

/* a token id key, or -1 if absent; -2 after error() */
static long
special_id(const struct gtok *g, const struct gguf *f, const char *key)
{
	int64_t v;
	int r = gguf_get_int(f, key, -1, INT64_MAX, &v);

	if (r < 0)
		return -2;
	if (r > 0 || v < 0)
		return -1;
	if ((uint64_t)v >= g->n) {
		error("%s: %s: %lld is not a token (%llu tokens)", g->path, key,
		    (long long)v, (unsigned long long)g->n);
		return -2;
	}
	return (long)v;
}

/* bool key, def if absent; -1 after error() */
static int
getbool(const struct gguf *f, const char *key, int def)
{
	int b, r = gguf_get_bool(f, key, &b);

	return r < 0 ? -1 : r ? def : b;
}

/* ---- the tokenizer.json ---- */

static void
put_str(struct buf *b, const void *s, size_t n)
{
	json_put_str(b, s, n);
}

/* The merges of a SentencePiece vocabulary, from its scores (see the
 * top) */
struct cand {
	float score;
	uint32_t id;
};

static int
cmp_cand(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->score != y->score)
		return x->score > y->score ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

struct split {
	uint32_t l, r;
	size_t at;
};

static int
cmp_split(const void *a, const void *b)
{
	const struct split *x = a, *y = b;

	if (x->l != y->l)
		return x->l < y->l ? -1 : 1;
	return x->r < y->r ? -1 : x->r > y->r;
}

static int
spm_merges(const struct gtok *g, struct buf *b)
{
	struct cand *c;
	struct split *sp = NULL;
	size_t nc = 0, i, k, nsp, spcap = 0;
	int first = 1;

	if (!(c = xcalloc(g->n, sizeof *c)))
		return -1;
	/* a piece's splits are looked up whole: a piece past MAXPIECE
	 * bytes (SentencePiece's are 16 characters at most) has none, so
	 * that a hostile file costs no more than its length times that */
	for (i = 0; i < g->n; i++)
		if (g->type[i] == TT_NORMAL && g->len[i] > 1 &&
		    g->len[i] <= MAXPIECE) {
			c[nc].score = g->score ? g->score[i] : 0;
			c[nc++].id = (uint32_t)i;
		}
	qsort(c, nc, sizeof *c, cmp_cand);
	for (i = 0; i < nc; i++) {
		const unsigned char *s = g->s[c[i].id];
		size_t n = g->len[c[i].id];
		long l, r;

		for (nsp = 0, k = 1; k < n; k++) {
			if ((s[k] & 0xc0) == 0x80)	/* at characters */
				continue;
			if ((l = gfind(g, s, k)) < 0 || (r = gfind(g, s + k, n - k)) < 0)
				continue;
			if (nsp == spcap && xgrow(&sp, &spcap, nsp + 1, sizeof *sp) < 0) {
				free(c);
				return -1;
			}
			sp[nsp].l = (uint32_t)l, sp[nsp].r = (uint32_t)r;
			sp[nsp++].at = k;
		}
		if (nsp > 1)	/* sp is NULL until a split is found */
			qsort(sp, nsp, sizeof *sp, cmp_split);
		for (k = 0; k < nsp; k++) {
			buf_adds(b, first ? "[" : ",[");
			put_str(b, s, sp[k].at);
			buf_addc(b, ',');
			put_str(b, s + sp[k].at, n - sp[k].at);
			buf_addc(b, ']');
			first = 0;
		}
	}
	free(sp);
	free(c);
	return 0;
}

static int
gpt2_merges(const struct gtok *g, const struct gguf *f, struct buf *b)
{
	struct gguf_val a, e;
	struct gguf_it it;
	int r;
	size_t i = 0;

	if ((r = gguf_get_arr(f, "tokenizer.ggml.merges", GGUF_STR, &a)) != 0)
		return r < 0 ? -1 : error("%s: no tokenizer.ggml.merges", g->path);
	for (gguf_it_init(&it, &a); gguf_it_next(&it, &e); i++) {
		/* llama.cpp cuts at the first space after the first byte */
		const unsigned char *sp = e.n > 1 ?
		    memchr(e.p + 1, ' ', e.n - 1) : NULL;
		if (!sp)
			return error("%s: tokenizer.ggml.merges: merge %zu: not "
			    "\"a b\"", g->path, i);
		buf_adds(b, i ? ",[" : "[");
		put_str(b, e.p, (size_t)(sp - e.p));
		buf_addc(b, ',');
		put_str(b, sp + 1, e.n - (size_t)(sp - e.p) - 1);
		buf_addc(b, ']');
	}
	return 0;
}

/* the post-processor: BOS and EOS around a sequence */
static void
post(struct buf *b, const struct gtok *g, long bos, long eos)
{
	int i;

	buf_adds(b, ",\"post_processor\":");
	if (bos < 0 && eos < 0) {
		buf_adds(b, "null");
		return;
	}
	buf_adds(b, "{\"type\":\"TemplateProcessing\",\"single\":[");
	if (bos >= 0) {
		buf_adds(b, "{\"SpecialToken\":{\"id\":");
		put_str(b, g->s[bos], g->len[bos]);
		buf_adds(b, ",\"type_id\":0}},");
	}
	buf_adds(b, "{\"Sequence\":{\"id\":\"A\",\"type_id\":0}}");
	if (eos >= 0) {
		buf_adds(b, ",{\"SpecialToken\":{\"id\":");
		put_str(b, g->s[eos], g->len[eos]);
		buf_adds(b, ",\"type_id\":0}}");
	}
	buf_adds(b, "],\"pair\":[],\"special_tokens\":{");
	for (i = 0; i < 2; i++) {
		long id = i ? eos : bos;
		if (id < 0 || (i && id == bos))
			continue;
		if (i && bos >= 0)
			buf_addc(b, ',');
		put_str(b, g->s[id], g->len[id]);
		buf_printf(b, ":{\"id\":");
		put_str(b, g->s[id], g->len[id]);
		buf_printf(b, ",\"ids\":[%ld],\"tokens\":[", id);
		put_str(b, g->s[id], g->len[id]);
		buf_adds(b, "]}");
	}
	buf_adds(b, "}}");
}

/* tokenizer.json for f into b; *bos: the BOS id or -1 */
static int
tokjson(struct gtok *g, const struct gguf *f, struct buf *b, long *bos)
{
	const char *model, *pname = NULL;
	size_t mlen, plen = 0, i;
	const struct pre *pre = NULL;
	long eos, unk;
	int addbos, addeos, space = 0, r;
	uint64_t k;

	if ((r = gguf_get_str(f, "tokenizer.ggml.model", &model, &mlen)) != 0)
		return r < 0 ? -1 : error("%s: no tokenizer.ggml.model", g->path);
	if (mlen == 4 && !memcmp(model, "gpt2", 4))
		g->spm = 0;
	else if (mlen == 5 && !memcmp(model, "llama", 5))
		g->spm = 1;
	else
		return error("%s: tokenizer.ggml.model %.*s: not a tokenizer pipelm "
		    "reads (gpt2, llama)", g->path, (int)(mlen > 64 ? 64 : mlen), model);
	if (read_tokens(g, f) < 0)
		return -1;
	if (!g->spm) {
		if ((r = gguf_get_str(f, "tokenizer.ggml.pre", &pname, &plen)) < 0)
			return -1;
		if (r)	/* llama.cpp warns and takes the default */
			pname = "default", plen = 7;
		if (!(pre = find_pre(pname, plen)))
			return error("%s: tokenizer.ggml.pre %.*s: a pre-tokenizer "
			    "pipelm does not know", g->path,
			    (int)(plen > 64 ? 64 : plen), pname);
	}
	if ((*bos = special_id(g, f, "tokenizer.ggml.bos_token_id")) == -2 ||
	    (eos = special_id(g, f, "tokenizer.ggml.eos_token_id")) == -2 ||
	    (unk = special_id(g, f, "tokenizer.ggml.unknown_token_id")) == -2)
		return -1;
	if ((addbos = getbool(f, "tokenizer.ggml.add_bos_token",
	    g->spm || pre->add_bos)) < 0 ||
	    (addeos = getbool(f, "tokenizer.ggml.add_eos_token", 0)) < 0 ||
	    (g->spm && (space = getbool(f, "tokenizer.ggml.add_space_prefix", 1)) < 0))
		return -1;
	if (addbos && *bos < 0)
		return error("%s: add_bos_token without a bos_token_id", g->path);
	if (addeos && eos < 0)
		return error("%s: add_eos_token without an eos_token_id", g->path);

	buf_adds(b, "{\"normalizer\":");
	if (g->spm)
		buf_printf(b, "{\"type\":\"Sequence\",\"normalizers\":[%s"
		    "{\"type\":\"Replace\",\"pattern\":{\"String\":\" \"},"
		    "\"content\":\"\xe2\x96\x81\"}]}", space ? "{\"type\":\"Prepend\","
		    "\"prepend\":\"\xe2\x96\x81\"}," : "");
	else
		buf_adds(b, "null");
	buf_adds(b, ",\"pre_tokenizer\":");
	if (g->spm)
		buf_adds(b, "null");
	else {
		buf_adds(b, "{\"type\":\"Sequence\",\"pretokenizers\":[");
		for (i = 0; pre->re[i]; i++) {
			buf_adds(b, "{\"type\":\"Split\",\"pattern\":{\"Regex\":");
			put_str(b, pre->re[i], strlen(pre->re[i]));
			buf_adds(b, "},\"behavior\":\"Isolated\",\"invert\":false},");
		}
		buf_adds(b, "{\"type\":\"ByteLevel\",\"add_prefix_space\":false,"
		    "\"use_regex\":false}]}");
	}
	/* the tokens llama.cpp matches in the text before tokenizing */
	buf_adds(b, ",\"added_tokens\":[");
	for (k = 0, i = 0; k < g->n; k++) {
		int t = g->type[k];
		if (t != TT_CONTROL && t != TT_USER && t != TT_UNKNOWN)
			continue;
		buf_printf(b, "%s{\"id\":%llu,\"content\":", i++ ? "," : "",
		    (unsigned long long)k);
		put_str(b, g->s[k], g->len[k]);
		buf_printf(b, ",\"special\":%s,\"normalized\":false}",
		    t == TT_USER ? "false" : "true");
	}
	buf_adds(b, "]");
	post(b, g, addbos ? *bos : -1, addeos ? eos : -1);
	buf_adds(b, ",\"decoder\":");
	if (g->spm)
		buf_printf(b, "{\"type\":\"Sequence\",\"decoders\":["
		    "{\"type\":\"Replace\",\"pattern\":{\"String\":\"\xe2\x96\x81\"},"
		    "\"content\":\" \"},{\"type\":\"ByteFallback\"},{\"type\":\"Fuse\"}"
		    "%s]}", space ? ",{\"type\":\"Strip\",\"content\":\" \","
		    "\"start\":1,\"stop\":0}" : "");
	else
		buf_adds(b, "{\"type\":\"ByteLevel\"}");
	buf_printf(b, ",\"model\":{\"type\":\"BPE\",\"byte_fallback\":%s,"
	    "\"fuse_unk\":%s,\"ignore_merges\":%s,\"unk_token\":",
	    g->spm ? "true" : "false", g->spm ? "true" : "false",
	    pre && pre->ignore_merges ? "true" : "false");
	if (g->spm && unk >= 0)	/* llama.cpp's BPE drops what it lacks */
		put_str(b, g->s[unk], g->len[unk]);
	else
		buf_adds(b, "null");
	buf_adds(b, ",\"vocab\":{");
	for (k = 0; k < g->n; k++) {
		if (k)
			buf_addc(b, ',');
		put_str(b, g->s[k], g->len[k]);
		buf_printf(b, ":%llu", (unsigned long long)k);
	}
	buf_adds(b, "},\"merges\":[");
	if ((g->spm ? spm_merges(g, b) : gpt2_merges(g, f, b)) < 0)
		return -1;
	buf_adds(b, "]}}");
	return buf_ok(b) < 0 ? error("%s: out of memory", g->path) : 0;
}

static void
gtok_free(struct gtok *g)
{
	free(g->s), free(g->len), free(g->type), free(g->score), free(g->htab);
}

int
tok_load_gguf(struct tok *t, const char *path)
{
	struct gguf f = { 0 };
	struct gtok g = { 0 };
	struct buf b = { 0 };
	long bos = -1;
	int r = -1;

	memset(t, 0, sizeof *t);
	g.path = path;
	if (gguf_open(&f, path) < 0)
		return -1;
	if (tokjson(&g, &f, &b, &bos) == 0 &&
	    tok_load_text(t, path, b.s, b.len) == 0) {
		t->bos = (int)bos;
		r = 0;
	}
	buf_free(&b);
	gtok_free(&g);
	gguf_close(&f);
	return r;
}

/* ---- tokenizer_config.json, for the chat template ---- */

int
tok_gguf_config(const char *path, const char *name, struct buf *b)
{
	static const char *const keys[][2] = {
		{ "bos_token", "tokenizer.ggml.bos_token_id" },
		{ "eos_token", "tokenizer.ggml.eos_token_id" },
		{ "unk_token", "tokenizer.ggml.unknown_token_id" },
		{ "pad_token", "tokenizer.ggml.padding_token_id" },
	};
	struct gguf f = { 0 };
	struct gguf_val a, e;
	const char *s;
	char key[128];
	size_t n, i;
	int64_t id;
	int r;

	if (gguf_open(&f, path) < 0)
		return -1;
	if (name && strcmp(name, "default"))
		snprintf(key, sizeof key, "tokenizer.chat_template.%.80s", name);
	else
		snprintf(key, sizeof key, "tokenizer.chat_template");
	if ((r = gguf_get_str(&f, key, &s, &n)) != 0) {
		if (r > 0)
			error("%s: no chat template (no %s)", path, key);
		goto fail;
	}
	buf_adds(b, "{\"chat_template\":");
	put_str(b, s, n);
	if ((r = gguf_get_arr(&f, "tokenizer.ggml.tokens", GGUF_STR, &a)) < 0)
		goto fail;
	for (i = 0; r == 0 && i < LEN(keys); i++) {
		if ((r = gguf_get_int(&f, keys[i][1], 0, INT64_MAX, &id)) < 0)
			goto fail;
		if (r > 0 || (uint64_t)id >= a.n) {
			r = 0;
			continue;
		}
		gguf_arr_at(&a, (uint64_t)id, &e);
		buf_printf(b, ",\"%s\":", keys[i][0]);
		put_str(b, e.p, e.n);
	}
	buf_adds(b, "}");
	gguf_close(&f);
	return buf_ok(b) < 0 ? error("%s: out of memory", path) : 0;
fail:
	gguf_close(&f);
	return -1;
}
