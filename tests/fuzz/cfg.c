/* fuzz/cfg.c: config.json and generation_config.json of any bytes (the
 * input split at its first NUL: config, then generation config).  What
 * cfg_load accepts must hold the consistency it promises. */
#include "fuzz.h"
#include "../../lib/disk/cfg.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, 0, size);
	size_t n1 = nul ? (size_t)(nul - data) : size;
	const char *cpath = fuzz_file(0, ".json", data, n1), *gpath = NULL;
	struct cfg c;
	int i;

	if (!cpath)
		return 0;
	if (nul && !(gpath = fuzz_file(1, ".json", nul + 1, size - n1 - 1)))
		return 0;
	if (cfg_load(&c, cpath, gpath) < 0)
		return 0;
	FUZZ_ASSERT(c.hidden_size > 0 && c.intermediate_size > 0);
	FUZZ_ASSERT(c.num_hidden_layers > 0 && c.vocab_size > 0);
	FUZZ_ASSERT(c.num_attention_heads > 0 && c.num_key_value_heads > 0);
	FUZZ_ASSERT(c.num_attention_heads % c.num_key_value_heads == 0);
	FUZZ_ASSERT(c.head_dim > 0 && c.max_position_embeddings > 0);
	FUZZ_ASSERT(c.n_eos >= 0 && c.n_eos <= CFG_MAXEOS);
	for (i = 0; i < c.n_eos; i++)
		FUZZ_ASSERT(c.eos_token_id[i] >= 0 &&
		    c.eos_token_id[i] < c.vocab_size);
	FUZZ_ASSERT(c.bos_token_id < c.vocab_size);
	FUZZ_ASSERT(c.architecture[sizeof c.architecture - 1] == 0);
	return 0;
}
