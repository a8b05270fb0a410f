/* fuzz/encode.c: any text through one real tokenizer, encoded then
 * decoded.  The tokenizer.json is $PIPELM_FUZZ_TOKENIZER (make fuzz
 * passes the byte-level and the SentencePiece-style fixtures in
 * tests/fuzz/data, and the real ones of ../shared when present).  With
 * $PIPELM_FUZZ_ROUNDTRIP set (a byte-level tokenizer without a
 * normalizer), decoding must give back the input bytes exactly where
 * the vocabulary covers them, as pipelm-formats(5) promises. */
#define FUZZ_INIT
#include "fuzz.h"
#include "../../lib/tok/tok.h"

static struct tok t;
static int roundtrip;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *path = getenv("PIPELM_FUZZ_TOKENIZER");

	(void)argc;
	argv0 = (*argv)[0];
	if (!path) {
		fprintf(stderr, "%s: set PIPELM_FUZZ_TOKENIZER to a "
		    "tokenizer.json\n", argv0);
		exit(2);
	}
	if (tok_load(&t, path) < 0)
		exit(2);
	roundtrip = getenv("PIPELM_FUZZ_ROUNDTRIP") != NULL;
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tok_ids ids = { 0 };
	struct tok_dec d = { 0 };
	struct tok_buf out = { 0 };
	size_t k, len;
	size_t dropped = t.ndropped;
	int flags;

	if (!size)
		return 0;
	/* the first byte chooses the flags, the rest is the text */
	flags = data[0] & (TOK_ADD_SPECIAL | TOK_NO_SPECIAL);
	FUZZ_ASSERT(tok_encode(&t, (const char *)data + 1, size - 1, flags,
	    &ids) == 0);
	tok_dec_start(&d, &t, 0);
	for (k = 0; k < ids.n; k++) {
		FUZZ_ASSERT(tok_piece(&t, ids.v[k], &len));
		FUZZ_ASSERT(tok_dec_push(&d, ids.v[k], &out) == 0);
	}
	FUZZ_ASSERT(tok_dec_end(&d, &out) == 0);
	if (roundtrip && (flags & TOK_NO_SPECIAL) && !(flags & TOK_ADD_SPECIAL) &&
	    t.ndropped == dropped)
		FUZZ_ASSERT(out.n == size - 1 &&
		    (!out.n || !memcmp(out.p, data + 1, out.n)));
	tok_dec_free(&d);
	free(out.p);
	free(ids.v);
	return 0;
}
