/* tok_model.c: the model stage's table of types.  A model type is a
 * constructor (in its own file) that reads tokenizer.json's "model",
 * fills the vocabulary (tok_vocab_load) and sets t->model, and a line
 * here. */
#include "tok/tok_int.h"
#include "base/util.h"

static const struct tok_type types[] = {
	{ "BPE", tok_bpe_make },
};

int
tok_model_load(struct tok_ld *L, const struct json *m)
{
	/* tokenizers reads a model without "type" as BPE */
	return tok_build(L, "model", types, LEN(types), "BPE", m, 0);
}
