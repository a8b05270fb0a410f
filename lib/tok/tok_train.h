/* tok_train.h: BPE training as HuggingFace tokenizers' BpeTrainer does it
 * (tokenizers/src/models/bpe/trainer.rs and word.rs), and the rest of
 * tok-train: words counted from text through a tokenizer's normalizer and
 * pre-tokenizer (tok_train_feed.c), the trained tokenizer.json written
 * (tok_train_out.c).
 *
 * Strings here are the strings of tokenizer.json: a byte-level
 * tokenizer's words are counted as its alphabet's characters ("Ġthe"),
 * so that characters, their order and the vocabulary are the library's. */
#ifndef TOK_TRAIN_H
#define TOK_TRAIN_H

#include <stddef.h>
#include <stdint.h>

#include "base/json.h"
#include "base/util.h"

/* ---- distinct words and their counts ---- */

struct tok_train_went {
	uint64_t h;			/* hash of the string */
	size_t off;			/* the string: arena + off */
	uint32_t len;
	uint64_t val;			/* a word's count, a token's id */
};
/* A string table: zero it to start, tok_train_words_free to release. */
struct tok_train_words {
	char *arena;
	size_t an, acap;
	struct tok_train_went *e;	/* entries, in insertion order */
	size_t n, ecap;
	uint32_t *idx;			/* open addressing: entry + 1, 0 empty */
	size_t mask;
};
/* The entry of s[0..n), added with val 0 if absent (*added: 1 then).
 * Its index, or -1 after error() (out of memory, a word over 4 GiB). */
long tok_train_words_get(struct tok_train_words *w, const char *s, size_t n, int *added);
/* The entry of s[0..n), or -1. */
long tok_train_words_find(const struct tok_train_words *w, const char *s, size_t n);
/* Add count to the word s[0..n).  0, or -1 after error(). */
int tok_train_words_add(struct tok_train_words *w, const char *s, size_t n, uint64_t count);
/* Add every word of src to dst.  0, or -1 after error(). */
int tok_train_words_merge(struct tok_train_words *dst, const struct tok_train_words *src);
/* The string of entry i. */
static inline const char *
tok_train_words_str(const struct tok_train_words *w, size_t i)
{
	return w->arena + w->e[i].off;
}
void tok_train_words_free(struct tok_train_words *w);

/* ---- the trainer ---- */

/* BpeTrainer's options (its defaults: the zeroed struct, vocab_size
 * 30000). */
struct tok_train_opt {
	size_t vocab_size;		/* stop when the vocabulary has this many */
	uint64_t min_frequency;		/* stop at a pair seen fewer times */
	size_t limit_alphabet;		/* keep that many characters (has_limit) */
	int has_limit;
	const uint32_t *alphabet;	/* initial alphabet: code points always kept */
	size_t nalphabet;
	const char *prefix;		/* continuing_subword_prefix, or NULL */
	const char *suffix;		/* end_of_word_suffix, or NULL */
	size_t max_token_length;	/* 0: none */
	const char *const *special;	/* special tokens, ids 0.. (NUL-terminated) */
	size_t nspecial;
	const char *const *plain;	/* tokens after them, before the alphabet
					 * (not BpeTrainer's: the <0xHH> tokens a
					 * byte fallback needs) */
	size_t nplain;
	/* called every so many merges and at the end (NULL: not), with the
	 * merges done and the most there can be */
	void (*progress)(void *ctx, size_t done, size_t total);
	void *ctx;
};

/* The result: the vocabulary by id and the merges by rank. */
struct tok_train_model {
	struct tok_train_words vocab;	/* entry i is id i */
	size_t nspecial;		/* ids 0..nspecial-1: the special tokens */
	uint32_t (*merges)[2];		/* the ids merged, by rank */
	size_t nmerges;
};

/* Train on the words of wc (their counts) as BpeTrainer::do_train does.
 * The words are taken in byte order, so that ids given in the order words
 * are met (prefixed or suffixed characters) and the merges do not depend
 * on how the words were counted.  Where the library's own result depends
 * on its hash order it is made definite here: characters cut by the
 * alphabet limit among equal counts, the higher code points first; two
 * queue entries of one pair and one count, the one queued first.
 * 0 and *m (tok_train_model_free), or -1 after error(). */
int tok_train_run(const struct tok_train_words *wc, const struct tok_train_opt *o,
    struct tok_train_model *m);
void tok_train_model_free(struct tok_train_model *m);

/* ---- counting words: tok_train_feed.c ---- */

struct tok_train_feed;
/* A counter of the words of text through the normalizer and
 * pre-tokenizer of the tokenizer.json tree r (path for messages), on
 * nthreads threads.  NULL after error(). */
struct tok_train_feed *tok_train_feed_new(const struct json *r, const char *path, int nthreads);
/* Count the words of buf[0..n), whole lines (each line, its "\n"
 * included, a sequence, as tokenizers' train_from_files reads them;
 * the caller keeps an unfinished last line for the next call, or passes
 * it alone at the end).  Text that is not UTF-8 is refused with
 * error("NAME: line L: not UTF-8"), line counted over the calls for
 * name (reset when name changes).  0, or -1 after error(). */
int tok_train_feed(struct tok_train_feed *f, const char *name, const char *buf, size_t n);
/* The words counted (owned by f). */
const struct tok_train_words *tok_train_feed_words(struct tok_train_feed *f);
void tok_train_feed_free(struct tok_train_feed *f);

/* ---- writing: tok_train_out.c ---- */

/* tokenizer.json of m into b: the normalizer, pre_tokenizer,
 * post_processor and decoder of the tree pipe (its TemplateProcessing ids
 * looked up again by token), its model's options (BPE: unk_token, kept if
 * in the vocabulary, fuse_unk, byte_fallback), the trainer's prefix and
 * suffix of o, and the special tokens of m as added tokens.  0, or -1
 * after error() naming path. */
int tok_train_json(struct buf *b, const struct tok_train_model *m,
    const struct tok_train_opt *o, const struct json *pipe, const char *path);
/* tokenizer_config.json: the special tokens as added_tokens_decoder, and
 * bos_token, eos_token, unk_token and pad_token from cfg (a
 * tokenizer_config.json tree, or NULL) when they are special tokens here,
 * its chat_template.  0, or -1 after error(). */
int tok_train_config(struct buf *b, const struct tok_train_model *m,
    const struct json *cfg);

/* What a preset or a tokenizer.json gives the trainer and the writer. */
struct tok_train_pipe {
	const char *name;		/* the preset or file, for messages */
	const struct json *root;	/* the pipeline: normalizer, pre_tokenizer,
					 * post_processor, decoder, model options */
	const struct json *cfg;		/* tokenizer_config.json keys, or NULL */
	const char **special;		/* the special tokens, by default */
	size_t nspecial;
	uint32_t alphabet[256];		/* the initial alphabet (byte-level preset) */
	size_t nalphabet;
	const char *plain[256];		/* <0x00>..<0xFF> when the model has byte
					 * fallback */
	size_t nplain;
	const char *prefix, *suffix;	/* the model's, or NULL */
	struct json_doc *doc, *cfgdoc;	/* private */
	size_t capspecial;
	char bytes[256][7];
};
/* The pipeline of the preset "byte-level" (GPT-2 and SmolLM2's: ByteLevel
 * pre-tokenizer and decoder, the 256 byte characters as initial alphabet,
 * <|endoftext|>) or "sentencepiece" (Llama 2's decoder and
 * post-processor, a Metaspace pre-tokenizer where Llama 2 has a Prepend
 * and Replace normalizer, so that words are cut at spaces as
 * SentencePiece cuts them; byte fallback; <unk> <s> </s>), or, if like
 * is not NULL, that of the tokenizer.json like (its special added
 * tokens, its model's prefix and suffix, the tokenizer_config.json
 * beside it).  0, or -1 after error(); P is then safe to
 * tok_train_pipe_free. */
int tok_train_pipe_open(struct tok_train_pipe *P, const char *preset, const char *like);
void tok_train_pipe_free(struct tok_train_pipe *P);

#endif
