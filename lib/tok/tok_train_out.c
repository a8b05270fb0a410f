/* tok_train_out.c: the trained tokenizer written as tokenizers'
 * Tokenizer::save writes one (added_tokens, the pipeline, the BPE model's
 * options, its vocab by id and its merges by rank), and a
 * tokenizer_config.json for transformers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/json.h"
#include "tok/tok_int.h"
#include "tok/tok_train.h"
#include "base/util.h"

/* s[0..n) is a special token of m */
static int
is_special(const struct tok_train_model *m, const char *s, size_t n)
{
	long id = tok_train_words_find(&m->vocab, s, n);

	return id >= 0 && (size_t)id < m->nspecial;
}

/* A TemplateProcessing's special_tokens entry with its ids looked up again
 * from its tokens. */
static int
put_special(struct buf *b, const struct json *e, const struct tok_train_model *m,
    const char *path)
{
	const struct json *toks = json_get(e, "tokens");
	size_t i, k;

	if (!toks || toks->type != JSON_ARRAY)
		return error("%s: post_processor: special_tokens entry without tokens", path);
	buf_addc(b, '{');
	for (i = 0; i < e->len; i++) {
		const struct json_member *mb = &e->u.members[i];
		if (i)
			buf_adds(b, ", ");
		json_put_str(b, mb->key, mb->keylen);
		buf_adds(b, ": ");
		if (strcmp(mb->key, "ids")) {
			json_put(b, &mb->value);
			continue;
		}
		buf_addc(b, '[');
		for (k = 0; k < toks->len; k++) {
			const struct json *t = &toks->u.items[k];
			long id = t->type == JSON_STRING ?
			    tok_train_words_find(&m->vocab, t->u.str, t->len) : -1;
			if (id < 0)
				return error("%s: post_processor: token %s not in the trained vocabulary",
				    path, t->type == JSON_STRING ? t->u.str : "(not a string)");
			buf_printf(b, "%s%ld", k ? ", " : "", id);
		}
		buf_addc(b, ']');
	}
	buf_addc(b, '}');
	return 0;
}

/* The post-processor, TemplateProcessing's ids (in a Sequence too) made
 * the trained vocabulary's. */
static int
put_post(struct buf *b, const struct json *j, const struct tok_train_model *m,
    const char *path, int depth)
{
	const char *type = json_str(json_get(j, "type"));
	size_t i, k;

	if (!j || j->type != JSON_OBJECT || !type || depth > 8 ||
	    (strcmp(type, "TemplateProcessing") && strcmp(type, "Sequence"))) {
		if (j)
			json_put(b, j);
		else
			buf_adds(b, "null");
		return 0;
	}
	buf_addc(b, '{');
	for (i = 0; i < j->len; i++) {
		const struct json_member *mb = &j->u.members[i];
		const struct json *v = &mb->value;
		if (i)
			buf_adds(b, ", ");
		json_put_str(b, mb->key, mb->keylen);
		buf_adds(b, ": ");
		if (!strcmp(type, "Sequence") && !strcmp(mb->key, "processors") &&
		    v->type == JSON_ARRAY) {
			buf_addc(b, '[');
			for (k = 0; k < v->len; k++) {
				if (k)
					buf_adds(b, ", ");
				if (put_post(b, &v->u.items[k], m, path, depth + 1) < 0)
					return -1;
			}
			buf_addc(b, ']');
		} else if (!strcmp(type, "TemplateProcessing") &&
		    !strcmp(mb->key, "special_tokens") && v->type == JSON_OBJECT) {
			buf_addc(b, '{');
			for (k = 0; k < v->len; k++) {
				if (k)
					buf_adds(b, ", ");
				json_put_str(b, v->u.members[k].key, v->u.members[k].keylen);
				buf_adds(b, ": ");
				if (put_special(b, &v->u.members[k].value, m, path) < 0)
					return -1;
			}
			buf_addc(b, '}');
		} else {
			json_put(b, v);
		}
	}
	buf_addc(b, '}');
	return 0;
}

static void
put_part(struct buf *b, const char *key, const struct json *j)
{
	buf_printf(b, "  \"%s\": ", key);
	if (j)
		json_put(b, j);
	else
		buf_adds(b, "null");
	buf_adds(b, ",\n");
}

static void
put_optstr(struct buf *b, const char *key, const char *s)
{
	buf_printf(b, "    \"%s\": ", key);
	if (s)
		json_put_str(b, s, strlen(s));
	else
		buf_adds(b, "null");
	buf_adds(b, ",\n");
}

int
tok_train_json(struct buf *b, const struct tok_train_model *m,
    const struct tok_train_opt *o, const struct json *pipe, const char *path)
{
	const struct json *model = json_get(pipe, "model");
	const char *unk = json_str(json_get(model, "unk_token"));
	size_t i;
	int first = 1;

	buf_adds(b, "{\n  \"version\": \"1.0\",\n  \"truncation\": null,\n"
	    "  \"padding\": null,\n  \"added_tokens\": [");
	for (i = 0; i < m->nspecial; i++) {
		const char *s = tok_train_words_str(&m->vocab, i);
		size_t n = m->vocab.e[i].len;
		buf_printf(b, "%s\n    {\"id\": %zu, \"content\": ", first ? "" : ",", i);
		json_put_str(b, s, n);
		buf_adds(b, ", \"single_word\": false, \"lstrip\": false, \"rstrip\": false, "
		    "\"normalized\": false, \"special\": true}");
		first = 0;
	}
	buf_adds(b, first ? "],\n" : "\n  ],\n");
	put_part(b, "normalizer", json_get(pipe, "normalizer"));
	put_part(b, "pre_tokenizer", json_get(pipe, "pre_tokenizer"));
	buf_adds(b, "  \"post_processor\": ");
	if (put_post(b, json_get(pipe, "post_processor"), m, path, 0) < 0)
		return -1;
	buf_adds(b, ",\n");
	put_part(b, "decoder", json_get(pipe, "decoder"));
	buf_adds(b, "  \"model\": {\n    \"type\": \"BPE\",\n    \"dropout\": null,\n");
	if (unk && tok_train_words_find(&m->vocab, unk, strlen(unk)) < 0)
		unk = NULL;
	put_optstr(b, "unk_token", unk);
	put_optstr(b, "continuing_subword_prefix", o->prefix);
	put_optstr(b, "end_of_word_suffix", o->suffix);
	buf_printf(b, "    \"fuse_unk\": %s,\n    \"byte_fallback\": %s,\n"
	    "    \"ignore_merges\": false,\n    \"vocab\": {",
	    json_bool(json_get(model, "fuse_unk")) == 1 ? "true" : "false",
	    json_bool(json_get(model, "byte_fallback")) == 1 ? "true" : "false");
	for (i = 0; i < m->vocab.n; i++) {
		buf_adds(b, i ? ",\n      " : "\n      ");
		json_put_str(b, tok_train_words_str(&m->vocab, i), m->vocab.e[i].len);
		buf_printf(b, ": %zu", i);
	}
	buf_adds(b, m->vocab.n ? "\n    },\n    \"merges\": [" : "},\n    \"merges\": [");
	for (i = 0; i < m->nmerges; i++) {
		uint32_t x = m->merges[i][0], y = m->merges[i][1];
		buf_adds(b, i ? ",\n      [" : "\n      [");
		json_put_str(b, tok_train_words_str(&m->vocab, x), m->vocab.e[x].len);
		buf_adds(b, ", ");
		json_put_str(b, tok_train_words_str(&m->vocab, y), m->vocab.e[y].len);
		buf_addc(b, ']');
	}
	buf_adds(b, m->nmerges ? "\n    ]\n  }\n}\n" : "]\n  }\n}\n");
	return buf_ok(b);
}

int
tok_train_config(struct buf *b, const struct tok_train_model *m, const struct json *cfg)
{
	static const char *const keys[] = { "bos_token", "eos_token", "unk_token", "pad_token" };
	const struct json *ct = json_get(cfg, "chat_template");
	size_t i;
	int first = 1;

	buf_adds(b, "{\n  \"added_tokens_decoder\": {");
	for (i = 0; i < m->nspecial; i++) {
		const char *s = tok_train_words_str(&m->vocab, i);
		size_t n = m->vocab.e[i].len;
		buf_printf(b, "%s\n    \"%zu\": {\"content\": ", first ? "" : ",", i);
		json_put_str(b, s, n);
		buf_adds(b, ", \"lstrip\": false, \"normalized\": false, \"rstrip\": false, "
		    "\"single_word\": false, \"special\": true}");
		first = 0;
	}
	buf_adds(b, first ? "},\n" : "\n  },\n");
	for (i = 0; i < LEN(keys); i++) {
		const struct json *v = json_get(cfg, keys[i]);
		if (v && v->type == JSON_OBJECT)
			v = json_get(v, "content");
		if (!json_str(v) || !is_special(m, v->u.str, v->len))
			continue;
		buf_printf(b, "  \"%s\": ", keys[i]);
		json_put_str(b, v->u.str, v->len);
		buf_adds(b, ",\n");
	}
	if (json_str(ct)) {
		buf_adds(b, "  \"chat_template\": ");
		json_put_str(b, ct->u.str, ct->len);
		buf_adds(b, ",\n");
	}
	buf_adds(b, "  \"clean_up_tokenization_spaces\": false,\n"
	    "  \"model_max_length\": 1000000000000000019884624838656,\n"
	    "  \"tokenizer_class\": \"PreTrainedTokenizerFast\"\n}\n");
	return buf_ok(b);
}

/* The presets' pipelines: SmolLM2's (GPT-2's pre-tokenizer and decoder)
 * and Llama 2's (its decoder and post-processor, a Metaspace
 * pre-tokenizer where it has a Prepend and Replace normalizer, so that
 * words are cut at spaces as SentencePiece cuts them); their
 * tokenizer_config.json keys. */
static const char byte_level[] =
    "{\"normalizer\":null,"
    "\"pre_tokenizer\":{\"type\":\"ByteLevel\",\"add_prefix_space\":false,"
    "\"trim_offsets\":true,\"use_regex\":true},"
    "\"post_processor\":null,"
    "\"decoder\":{\"type\":\"ByteLevel\",\"add_prefix_space\":true,"
    "\"trim_offsets\":true,\"use_regex\":true},"
    "\"model\":{\"type\":\"BPE\",\"unk_token\":null,\"fuse_unk\":false,"
    "\"byte_fallback\":false},"
    "\"config\":{\"bos_token\":\"<|endoftext|>\",\"eos_token\":\"<|endoftext|>\","
    "\"unk_token\":\"<|endoftext|>\"}}";
static const char sentencepiece[] =
    "{\"normalizer\":null,"
    "\"pre_tokenizer\":{\"type\":\"Metaspace\",\"replacement\":\"\xe2\x96\x81\","
    "\"prepend_scheme\":\"first\",\"split\":true},"
    "\"post_processor\":{\"type\":\"TemplateProcessing\","
    "\"single\":[{\"SpecialToken\":{\"id\":\"<s>\",\"type_id\":0}},"
    "{\"Sequence\":{\"id\":\"A\",\"type_id\":0}}],"
    "\"pair\":[{\"SpecialToken\":{\"id\":\"<s>\",\"type_id\":0}},"
    "{\"Sequence\":{\"id\":\"A\",\"type_id\":0}},"
    "{\"SpecialToken\":{\"id\":\"<s>\",\"type_id\":1}},"
    "{\"Sequence\":{\"id\":\"B\",\"type_id\":1}}],"
    "\"special_tokens\":{\"<s>\":{\"id\":\"<s>\",\"ids\":[1],\"tokens\":[\"<s>\"]}}},"
    "\"decoder\":{\"type\":\"Sequence\",\"decoders\":["
    "{\"type\":\"Replace\",\"pattern\":{\"String\":\"\xe2\x96\x81\"},\"content\":\" \"},"
    "{\"type\":\"ByteFallback\"},{\"type\":\"Fuse\"},"
    "{\"type\":\"Strip\",\"content\":\" \",\"start\":1,\"stop\":0}]},"
    "\"model\":{\"type\":\"BPE\",\"unk_token\":\"<unk>\",\"fuse_unk\":true,"
    "\"byte_fallback\":true},"
    "\"config\":{\"bos_token\":\"<s>\",\"eos_token\":\"</s>\",\"unk_token\":\"<unk>\"}}";

static const char *const bl_special[] = { "<|endoftext|>" };
static const char *const sp_special[] = { "<unk>", "<s>", "</s>" };

int
tok_train_pipe_open(struct tok_train_pipe *P, const char *preset, const char *like)
{
	const char *text = NULL;
	const struct json *added, *model;
	char err[256];
	size_t i;

	memset(P, 0, sizeof *P);
	P->name = like ? like : preset;
	if (!(P->doc = xcalloc(1, sizeof *P->doc)) ||
	    !(P->cfgdoc = xcalloc(1, sizeof *P->cfgdoc)))
		return -1;
	if (like) {
		const char *sl = strrchr(like, '/');
		size_t dl = sl ? (size_t)(sl - like + 1) : 0;
		struct buf b = { 0 };
		if (json_load(P->doc, like) < 0)
			return -1;
		buf_add(&b, like, dl);
		buf_adds(&b, "tokenizer_config.json");
		if (buf_ok(&b) < 0)
			return -1;
		if (access(b.s, F_OK) == 0 && json_load(P->cfgdoc, b.s) < 0) {
			buf_free(&b);
			return -1;
		}
		buf_free(&b);
		P->cfg = P->cfgdoc->root;
	} else {
		if (!strcmp(preset, "byte-level"))
			text = byte_level;
		else if (!strcmp(preset, "sentencepiece"))
			text = sentencepiece;
		else
			return error("no preset %s", preset);
		if (json_parse(P->doc, text, strlen(text), err, sizeof err) < 0)
			return error("preset %s: %s", preset, err);
	}
	P->root = P->doc->root;
	if (!P->root || P->root->type != JSON_OBJECT)
		return error("%s: not a tokenizer.json (not an object)", P->name);
	model = json_get(P->root, "model");
	if (like) {
		added = json_get(P->root, "added_tokens");
		for (i = 0; added && added->type == JSON_ARRAY && i < added->len; i++) {
			const struct json *a = &added->u.items[i];
			if (json_bool(json_get(a, "special")) != 1 || !json_str(json_get(a, "content")))
				continue;
			if (xgrow(&P->special, &P->capspecial, P->nspecial + 1,
			    sizeof *P->special) < 0)
				return -1;
			P->special[P->nspecial++] = json_get(a, "content")->u.str;
		}
		P->prefix = json_str(json_get(model, "continuing_subword_prefix"));
		P->suffix = json_str(json_get(model, "end_of_word_suffix"));
	} else {
		P->cfg = json_get(P->root, "config");
		if (text == byte_level) {
			P->special = (const char **)bl_special, P->nspecial = LEN(bl_special);
			for (i = 0; i < 256; i++)
				P->alphabet[i] = tok_b2u[i];
			P->nalphabet = 256;
		} else {
			P->special = (const char **)sp_special, P->nspecial = LEN(sp_special);
		}
	}
	if (json_bool(json_get(model, "byte_fallback")) == 1) {
		for (i = 0; i < 256; i++) {
			snprintf(P->bytes[i], sizeof P->bytes[i], "<0x%02X>", (unsigned)i);
			P->plain[i] = P->bytes[i];
		}
		P->nplain = 256;
	}
	return 0;
}

void
tok_train_pipe_free(struct tok_train_pipe *P)
{
	if (P->doc) {
		json_free(P->doc);
		free(P->doc);
	}
	if (P->cfgdoc) {
		json_free(P->cfgdoc);
		free(P->cfgdoc);
	}
	if (P->special != bl_special && P->special != sp_special)
		free(P->special);
	memset(P, 0, sizeof *P);
}
