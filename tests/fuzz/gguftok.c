/* fuzz/gguftok.c: a GGUF file of any bytes read as a tokenizer
 * (tok_load_gguf) and for its chat template (tok_gguf_config).  What is
 * accepted must encode and decode without fault, every id it writes a
 * token of its vocabulary, and the whole take less than FUZZ_CPU_BOUND
 * (fuzz.h): no token list, score list or merge list makes the work blow
 * up. */
#include "fuzz.h"
#include "../../lib/tok/tok.h"

static const char *const texts[] = {
	"", "Hello world", " the  cat\n\n\tsat 12345 ", "<s><|endoftext|>[x]",
	"caf\xc3\xa9 \xe2\x96\x81 \xf0\x9f\x98\x80 \xff\xfe", "a\r\nb",
};

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tok t = { 0 };
	struct buf b = { 0 };
	const char *path = fuzz_file(0, ".gguf", data, size);
	size_t i, k, len;
	int f;
	double t0 = fuzz_cpu();

	if (!path)
		return 0;
	(void)tok_gguf_config(path, NULL, &b);
	buf_free(&b);
	if (tok_load_gguf(&t, path) < 0) {
		tok_free(&t);
		return 0;
	}
	for (i = 0; i < LEN(texts); i++)
		for (f = 0; f < 4; f++) {
			struct tok_ids ids = { 0 };
			struct tok_dec d = { 0 };
			struct tok_buf out = { 0 };

			if (tok_encode(&t, texts[i], strlen(texts[i]), f, &ids) < 0) {
				free(ids.v);	/* what it appended before failing */
				break;
			}
			tok_dec_start(&d, &t, f & 1);
			for (k = 0; k < ids.n; k++) {
				FUZZ_ASSERT(tok_piece(&t, ids.v[k], &len));
				FUZZ_ASSERT(tok_dec_push(&d, ids.v[k], &out) == 0);
			}
			(void)tok_dec_end(&d, &out);
			tok_dec_free(&d);
			free(out.p);
			free(ids.v);
		}
	(void)tok_bos(&t);
	tok_free(&t);
	FUZZ_ASSERT(fuzz_cpu() - t0 < FUZZ_CPU_BOUND);
	return 0;
}
