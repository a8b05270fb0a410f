/* llama-logits: the logits llama.cpp computes for one record of token ids,
 * a line per position as `llm-logits -a -f text` writes them, so that
 * bench/logerr.sh can hold llama.cpp's 4-bit types against the same float32
 * reference as pipelm's.  A bench tool, built by logerr.sh against the
 * libllama that `make peer` builds (its public C API only); not part of
 * pipelm.
 *
 * usage: llama-logits [-t threads] [-k f32|f16|bf16|q8_0] model.gguf <ids
 *
 * The context is set up for an exact comparison, as bench/NOTES.md's
 * earlier probe was: F32 K and V caches (llama.cpp's default F16 rounds
 * them), flash attention off, a full-size sliding-window cache, and the
 * record decoded as one batch with every position's logits requested.
 * -k: K and V caches of that type (-ctk and -ctv), flash attention on
 * (llama.cpp's quantized V needs it): bench/kverr.sh's peer, against
 * -k f32 (F32 caches, flash attention on too). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llama.h"

enum { MAXIDS = 4096 };

static void
quiet(enum ggml_log_level level, const char *text, void *user)
{
	(void)text;
	(void)user;
	if (level == GGML_LOG_LEVEL_ERROR)
		fputs(text, stderr);
}

int
main(int argc, char *argv[])
{
	static llama_token ids[MAXIDS];
	struct llama_model_params mp;
	struct llama_context_params cp;
	struct llama_model *model;
	struct llama_context *ctx;
	struct llama_batch batch;
	static const struct { const char *name; enum ggml_type t; } kt[] = {
		{ "f32", GGML_TYPE_F32 }, { "f16", GGML_TYPE_F16 },
		{ "bf16", GGML_TYPE_BF16 }, { "q8_0", GGML_TYPE_Q8_0 } };
	int i, j, n = 0, nv, threads = 1, k = -1;
	long v;

	while (argc >= 4 && (!strcmp(argv[1], "-t") || !strcmp(argv[1], "-k"))) {
		if (argv[1][1] == 't')
			threads = atoi(argv[2]);
		for (i = 0; argv[1][1] == 'k' && i < 4; i++)
			k = strcmp(argv[2], kt[i].name) ? k : i;
		if (argv[1][1] == 'k' && k < 0)
			threads = 0;	/* a usage error */
		argv += 2;
		argc -= 2;
	}
	if (argc != 2 || threads < 1) {
		fprintf(stderr, "usage: llama-logits [-t threads] [-k f32|f16|bf16|q8_0] model.gguf <ids\n");
		return 2;
	}
	while (scanf("%ld", &v) == 1) {
		if (n == MAXIDS || v < 0 || v > 0x7fffffff) {
			fprintf(stderr, "llama-logits: more than %d ids, or a bad id\n", MAXIDS);
			return 1;
		}
		ids[n++] = (llama_token)v;
	}
	if (!feof(stdin) || n == 0) {
		fprintf(stderr, "llama-logits: standard input: not a record of ids\n");
		return 1;
	}
	llama_log_set(quiet, NULL);
	llama_backend_init();
	mp = llama_model_default_params();
	mp.n_gpu_layers = 0;
	if (!(model = llama_model_load_from_file(argv[1], mp))) {
		fprintf(stderr, "llama-logits: %s: cannot load\n", argv[1]);
		return 1;
	}
	nv = llama_vocab_n_tokens(llama_model_get_vocab(model));
	for (i = 0; i < n; i++)
		if (ids[i] >= nv) {
			fprintf(stderr, "llama-logits: id %d: not below the vocabulary (%d)\n", ids[i], nv);
			return 1;
		}
	cp = llama_context_default_params();
	cp.n_ctx = cp.n_batch = cp.n_ubatch = (uint32_t)(n < 256 ? 256 : n);
	cp.n_seq_max = 1;
	cp.n_threads = cp.n_threads_batch = threads;
	cp.type_k = cp.type_v = k < 0 ? GGML_TYPE_F32 : kt[k].t;
	cp.flash_attn_type = k < 0 ? LLAMA_FLASH_ATTN_TYPE_DISABLED :
	    LLAMA_FLASH_ATTN_TYPE_ENABLED;
	cp.swa_full = true;
	if (!(ctx = llama_init_from_model(model, cp))) {
		fprintf(stderr, "llama-logits: %s: cannot make a context\n", argv[1]);
		return 1;
	}
	batch = llama_batch_init(n, 0, 1);
	for (i = 0; i < n; i++) {
		batch.token[i] = ids[i];
		batch.pos[i] = i;
		batch.n_seq_id[i] = 1;
		batch.seq_id[i][0] = 0;
		batch.logits[i] = 1;
	}
	batch.n_tokens = n;
	if (llama_decode(ctx, batch)) {
		fprintf(stderr, "llama-logits: %s: llama_decode failed\n", argv[1]);
		return 1;
	}
	for (i = 0; i < n; i++) {
		const float *lg = llama_get_logits_ith(ctx, i);

		if (!lg) {
			fprintf(stderr, "llama-logits: no logits at position %d\n", i);
			return 1;
		}
		for (j = 0; j < nv; j++)
			printf("%s%.9g", j ? " " : "", lg[j]);
		putchar('\n');
	}
	llama_batch_free(batch);
	llama_free(ctx);
	llama_model_free(model);
	llama_backend_free();
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "llama-logits: write error\n");
		return 1;
	}
	return 0;
}
