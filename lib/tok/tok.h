/* tok.h: HuggingFace tokenizer.json: BPE encode and streaming decode.
 *
 * A GGUF file's tokenizer.ggml.* metadata is read as the tokenizer.json
 * that says the same (tok_load_gguf, tok_gguf.c).
 *
 * Supported components (anything else is refused at load, naming it):
 *   model          BPE (merges as "a b" or ["a","b"], byte_fallback,
 *                  unk_token, fuse_unk, ignore_merges)
 *   added_tokens   special or not; lstrip, rstrip, single_word, normalized
 *   normalizer     Sequence, Prepend, Replace (string or regex pattern),
 *                  NFC, NFKC
 *   pre_tokenizer  Sequence, ByteLevel (GPT-2 pattern, add_prefix_space,
 *                  use_regex), Digits, Split (string patterns, and any
 *                  regex lib/tok/regex.h compiles: hand scanners for those
 *                  of GPT-2, Llama 3 and Qwen2), Metaspace
 *   post_processor TemplateProcessing, ByteLevel, Sequence
 *   decoder        ByteLevel, Replace (string or regex pattern),
 *                  ByteFallback, Fuse, Strip, Metaspace, Sequence
 *
 * Text is a byte string.  Bytes that are not well-formed UTF-8 are taken one
 * at a time as characters of no Unicode class (neither letter, number, mark
 * nor space: "other", like punctuation), so byte-level tokenizers encode any
 * byte string losslessly.  Internally a byte-level vocabulary is kept as the
 * raw bytes its strings stand for, so BPE runs on bytes.
 *
 * Each part is a component built from the JSON by the constructor its
 * stage's table names (lib/tok/tok_int.h says how to add one).
 *
 * A struct tok is used by one thread at a time (tok_encode fills a cache,
 * components keep scratch buffers). */
#ifndef TOK_H
#define TOK_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct tok_norm;
struct tok_pre;
struct tok_model;
struct tok_post;
struct tok_dstep;
struct tok_added;
struct tok_mem;
struct tok_enc;

/* A growable array of token ids. */
struct tok_ids {
	int *v;
	size_t n, cap;
};

/* A growable byte buffer (decoder output). */
struct tok_buf {
	char *p;
	size_t n, cap;
	size_t max;		/* 0, or the most bytes it may hold: a
				 * normalized text's cap (tok_buf_add then
				 * fails, saying so) */
};

/* A tokenizer: the components of its tokenizer.json (see tok_int.h). */
struct tok {
	/* the vocabulary: the model's and the added tokens' */
	int ntok;			/* ids are 0..ntok-1 (some may be holes) */
	char **str;			/* [ntok] token string as in tokenizer.json, or NULL */
	uint32_t *slen;			/* [ntok] its length */
	unsigned char *special;		/* [ntok] 1 for a special added token */
	struct tok_added *added;	/* added tokens, longest first */
	size_t nadded;

	/* the stages, in order */
	struct tok_norm **norm;		/* normalizers */
	size_t nnorm, normcap;
	struct tok_pre **pre;		/* pre-tokenizers */
	size_t npre, precap;
	struct tok_model *model;
	struct tok_post **post;		/* post-processors */
	size_t npost, postcap;
	struct tok_dstep **dec;		/* decoders */
	size_t ndec, deccap;

	const int *prefix;		/* the ids a TemplateProcessing puts before
					 * a sequence (it owns them) */
	size_t nprefix;
	int has_template;		/* a TemplateProcessing was given */
	int bos;			/* see tok_bos; -2: not looked up yet */
	char *path;			/* the tokenizer.json */
	int builtin;			/* the built-in model's (tok_open) */
	struct tok_mem *mem;		/* the tables' memory */

	/* encoding state */
	size_t ndropped;		/* bytes with no token and no unk_token,
					 * dropped (as HuggingFace does) */
	struct tok_enc *enc;		/* private: cache and scratch buffers */
};

/* tok_encode flags */
#define TOK_ADD_SPECIAL	1	/* apply the post-processor (e.g. add BOS) */
#define TOK_NO_SPECIAL	2	/* special tokens' text is plain text */

/* Load a tokenizer.json into t (zeroed or not).  0, or -1 after error()
 * naming the file and what is wrong or unsupported; t is then safe to
 * tok_free. */
int tok_load(struct tok *t, const char *path);
/* Load the tokenizer named by file (a tokenizer.json) if not NULL, else
 * the tokenizer.json of model (a folder or ORG/NAME, see mdir.h; NULL:
 * $PIPELM_MODEL).  0, or -1 after error(). */
int tok_open(struct tok *t, const char *model, const char *file);
/* Load the tokenizer of the GGUF file path's metadata (tokenizer.ggml.*,
 * see tok_gguf.c).  0, or -1 after error() naming the file and what is
 * wrong or unsupported; t is then safe to tok_free.  tok_open calls it
 * for a file or model that is a GGUF file. */
int tok_load_gguf(struct tok *t, const char *path);
/* The tokenizer_config.json a chat template needs, from the GGUF file
 * path's metadata, as JSON text onto b: "chat_template" (of
 * tokenizer.chat_template, or tokenizer.chat_template.NAME for a name
 * other than NULL or "default") and bos_token, eos_token, unk_token and
 * pad_token (the texts of their ids).  0, or -1 after error(). */
struct buf;
int tok_gguf_config(const char *path, const char *name, struct buf *b);
/* Only the normalizers and pre-tokenizers of the tokenizer.json tree r
 * (path: for messages), for tok_words (tok-train); *bytelevel: 1 if a
 * ByteLevel pre-tokenizer was read (the pieces are then the bytes its
 * alphabet's characters stand for).  0, or -1 after error(); t is then
 * safe to tok_free. */
struct json;
int tok_load_pipe(struct tok *t, const struct json *r, const char *path, int *bytelevel);
/* Release everything t holds; accepts a zeroed or failed t. */
void tok_free(struct tok *t);

/* Encode s[0..n) and append the ids to out (grown with realloc, caller
 * frees out->v).  flags: TOK_ADD_SPECIAL, TOK_NO_SPECIAL.  Bytes that
 * the vocabulary cannot express (no token, no byte fallback, no unk) are
 * dropped and counted in t->ndropped.  0, or -1 after error() (out of
 * memory). */
int tok_encode(struct tok *t, const char *s, size_t n, int flags, struct tok_ids *out);

/* Normalize s[0..n) and pre-tokenize it as one sequence (added tokens
 * are not looked for: tokenizers' trainers see the text so), calling
 * fn(ctx, piece, len) for each non-empty piece in order.  0, or -1 after
 * error() or when fn returned -1. */
int tok_words(struct tok *t, const char *s, size_t n,
    int (*fn)(void *ctx, const char *w, size_t n), void *ctx);

/* The id of the BOS token: the first special token of the template, else
 * the bos_token of tokenizer_config.json beside path (read by tok_load),
 * else -1. */
int tok_bos(struct tok *t);

/* The token's string as tokenizer.json writes it ("Ġthe", "▁the",
 * "<0x0A>", "<s>"), its length in *len; NULL if id is not a token. */
const char *tok_piece(const struct tok *t, int id, size_t *len);
/* Write s[0..n) readably to f: valid UTF-8 printable as it is, space,
 * backslash, control and invalid bytes as \s, \\, \n, \t, \r, \xHH. */
void tok_escape(FILE *f, const char *s, size_t n);

/* Append an id to ids: 0, or -1 after error() (out of memory). */
int tok_ids_push(struct tok_ids *ids, int id);

/* Streaming decoder state for one record; zero it, or tok_dec_start. */
struct tok_dec {
	const struct tok *t;
	int skip_special;
	int first;			/* no token emitted yet in this record */
	const struct tok_dstep *lead;	/* the step taking strings off the
					 * record's start (Strip after Fuse) */
	size_t strip;			/* how many it may still take */
	struct tok_buf run;		/* pending ByteFallback bytes */
	unsigned char hold[4];		/* an incomplete UTF-8 sequence */
	size_t nhold;
	struct tok_buf x[2];		/* scratch */
};

/* Start decoding a record (d zeroed before its first use). */
void tok_dec_start(struct tok_dec *d, const struct tok *t, int skip_special);
/* Decode one id, appending the bytes now complete to out.  0, or -1 if id
 * is not in the vocabulary or out of memory (nothing reported: the caller
 * names the id and record). */
int tok_dec_push(struct tok_dec *d, int id, struct tok_buf *out);
/* End the record: append whatever is still held back.  0, or -1 (out of
 * memory). */
int tok_dec_end(struct tok_dec *d, struct tok_buf *out);

/* Release d's scratch buffers. */
void tok_dec_free(struct tok_dec *d);

/* Append n bytes to b: 0, or -1 after error() (out of memory). */
int tok_buf_add(struct tok_buf *b, const void *p, size_t n);

#endif
