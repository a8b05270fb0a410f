/* pipelm.h: the C API of libpipelm.so, for programs that embed pipelm
 * (pipelm(3)).  The one public header: it names no other.
 *
 * A model (weights, tokenizer, chat template) is opened once and is
 * read-only; any number of sequences (a KV cache, a position) run on it,
 * each from its own thread (their forward passes take turns on the
 * model's worker threads).  A generator samples continuations with
 * llm-gen's options and gives llm-gen's ids for the same seed.
 *
 * Errors: every function that can fail returns a negative number (or
 * NULL) and leaves a message for pipelm_errmsg(); nothing is printed and
 * the process never exits.  Arrays the library returns are malloc'd and
 * freed with pipelm_free. */
#ifndef PIPELM_H
#define PIPELM_H

#include <stddef.h>
#include <stdint.h>

#define PIPELM_API_VERSION 1

typedef struct pipelm_model pipelm_model;
typedef struct pipelm_seq pipelm_seq;
typedef struct pipelm_gen pipelm_gen;

/* The library's version ("0.1.0"). */
const char *pipelm_version(void);
/* The message of this thread's last failure ("" if none), valid until
 * its next call into the library. */
const char *pipelm_errmsg(void);
/* Free what the library returned (ids, text). */
void pipelm_free(void *p);

/* Open the model named as -m names it: a folder, ORG/NAME in the
 * HuggingFace cache, or NULL for $PIPELM_MODEL, else the built-in model.
 * threads: worker threads, 0 for $PIPELM_THREADS or the online CPUs;
 * mode: "exact" (or NULL), "bf16-act", "q8_0", "q4", and with int8
 * activations (--int8-act) "q8_0+int8-act", "q4+int8-act" or, for a
 * model whose weights are 4-bit already, "int8-act".  0 and *out set,
 * or -1. */
int pipelm_model_open(pipelm_model **out, const char *model, int threads,
    const char *mode);
void pipelm_model_close(pipelm_model *m);	/* NULL is fine */
int pipelm_model_vocab(const pipelm_model *m);	/* vocab_size */
int pipelm_model_ctx(const pipelm_model *m);	/* max_position_embeddings */
const char *pipelm_model_dir(const pipelm_model *m);

/* Encode text[0..len) as tok-encode does (add_special 0: --no-bos):
 * *ids (pipelm_free) holds *n ids.  0, or -1. */
int pipelm_tokenize(pipelm_model *m, const char *text, size_t len,
    int add_special, int **ids, size_t *n);
/* Decode ids[0..n) as tok-decode does one record (skip_special:
 * --skip-special): *text (pipelm_free) holds *len bytes and a NUL.  0,
 * or -1 for an id the vocabulary lacks. */
int pipelm_detokenize(pipelm_model *m, const int *ids, size_t n,
    int skip_special, char **text, size_t *len);
/* The token's string as tokenizer.json writes it, in *len bytes (not
 * NUL-terminated, owned by the model), or NULL for an unknown id. */
const char *pipelm_piece(pipelm_model *m, int id, size_t *len);
/* Render a conversation (one JSON document, as tok-encode --chat reads
 * a line) with the model's chat template: *text (pipelm_free) of *len
 * bytes.  0, or -1. */
int pipelm_chat_render(pipelm_model *m, const char *json, size_t jlen,
    char **text, size_t *len);
/* The same, encoded as tok-encode --chat does: *ids (pipelm_free). */
int pipelm_chat_tokenize(pipelm_model *m, const char *json, size_t jlen,
    int **ids, size_t *n);

/* A new sequence on m with room for ctx positions (0: the model's).
 * 0 and *out set, or -1. */
int pipelm_seq_open(pipelm_seq **out, pipelm_model *m, int ctx);
/* The same with a KV cache of elements of type kv_type, as --kv-type
 * names it: "f32" (or NULL: pipelm_seq_open's, exact), "bf16" or "f16"
 * (half the memory, the keys and values rounded to nearest even), or
 * "q8_0" (about a quarter: ggml's Q8_0 blocks of 32, a head size of
 * whole blocks). */
int pipelm_seq_open_kv(pipelm_seq **out, pipelm_model *m, int ctx,
    const char *kv_type);
void pipelm_seq_close(pipelm_seq *s);		/* NULL is fine */
void pipelm_seq_reset(pipelm_seq *s);		/* back to position 0 */
int pipelm_seq_pos(const pipelm_seq *s);	/* positions filled */
int pipelm_seq_ctx(const pipelm_seq *s);	/* positions it holds */
/* Bytes of its KV cache when full (reserved at open, in memory as the
 * positions fill), as -v reports it. */
size_t pipelm_seq_kv_bytes(const pipelm_seq *s);
/* Append ids[0..n) and run them; the logits after the last into
 * logits[0..vocab) unless NULL.  0, or -1 (an id outside the vocabulary,
 * the context full, ...: nothing is then appended). */
int pipelm_seq_eval(pipelm_seq *s, const int *ids, size_t n, float *logits);
/* The same with the logits of every position: logits[n * vocab]. */
int pipelm_seq_eval_all(pipelm_seq *s, const int *ids, size_t n,
    float *logits);
/* Reset s and score ids[0..n) as llm-score does (windows of the
 * sequence's context, every half context): logprob[i] the natural-log
 * probability of ids[i + 1], i < n - 1.  0, or -1. */
int pipelm_score(pipelm_seq *s, const int *ids, size_t n, double *logprob);

/* A generator on m, its options llm-gen's defaults: then
 * generation_config.json's for those not set, when it starts. */
int pipelm_gen_open(pipelm_gen **out, pipelm_model *m);
void pipelm_gen_close(pipelm_gen *g);		/* NULL is fine */
/* Set an option by llm-gen's long name and its argument as text:
 * "max-new", "temp", "top-k", "top-p", "min-p", "repeat-penalty",
 * "repeat-last-n", "seed", "stop" (an id; repeatable), "stop-text"
 * (repeatable), "ignore-eos" (value ignored).  Before the first
 * pipelm_gen_start.  0, or -1 (unknown name, bad value). */
int pipelm_gen_set(pipelm_gen *g, const char *name, const char *value);
/* The seed in use (drawn from the system unless set), after start. */
uint64_t pipelm_gen_seed(const pipelm_gen *g);
/* Start a continuation of prompt ids[0..n) on s (reset first; the
 * random stream restarted from the seed, as llm-gen does each record).
 * 0, or -1. */
int pipelm_gen_start(pipelm_gen *g, pipelm_seq *s, const int *ids,
    size_t n);
/* The next id of the continuation into *id: 1, 0 when it has stopped
 * (max-new, a stop id, EOS, a stop text: the stopping id is the last one
 * given; or the context full), -1 on failure. */
int pipelm_gen_next(pipelm_gen *g, int *id);

#endif
