#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kern/attn.h"
#include "kern/kern.h"
#include "opt/modelopt.h"
#include "base/util.h"

void
modelopt_init(struct modelopt *mo)
{
	memset(mo, 0, sizeof(*mo));
	mo->mode = MODEL_EXACT;
	mo->kvt = W_F32;
}

static int
num(const char *arg, long long min, long long max, const char *name, int *v)
{
	long long x;
	const char *why = strtonum_err(arg, min, max, &x);

	if (why)
		return error("invalid %s '%s': %s (expected %lld to %lld)",
		    name, arg, why, min, max);
	*v = (int)x;
	return 0;
}

static int
mode(struct modelopt *mo, enum model_mode want)
{
	if (mo->mode != MODEL_EXACT && mo->mode != want)
		return error("--bf16-act and --quant exclude each other");
	mo->mode = want;
	return 0;
}

int
modelopt_parse(struct modelopt *mo, int c, const char *arg)
{
	int r, kvt;

	switch (c) {
	case 'm':
		mo->model = arg;
		return 1;
	case 't':
		r = num(arg, 1, 1024, "thread count", &mo->threads);
		break;
	case 'c':
		r = num(arg, 1, 1 << 30, "context length", &mo->ctx);
		break;
	case MOPT_BF16ACT:
		r = mode(mo, MODEL_BF16ACT);
		break;
	case MOPT_QUANT:
		if (strcmp(arg, "q8_0") && strcmp(arg, "q4"))
			return error("invalid --quant '%s' (q8_0, q4)", arg);
		r = mode(mo, strcmp(arg, "q4") ? MODEL_Q8_0 : MODEL_Q4);
		break;
	case MOPT_INT8ACT:
		mo->int8act = 1;
		return 1;
	case MOPT_KVTYPE:	/* llama.cpp's -ctk/-ctv f32, bf16, f16, q8_0 */
		if ((kvt = attn_kvparse(arg)) < 0)
			return error("invalid --kv-type '%s' (" ATTN_KVNAMES ")",
			    arg);
		mo->kvt = (enum wtype)kvt;
		return 1;
	case MOPT_TIMING:
		mo->timing = 1;
		return 1;
	case 'v':
		mo->verbose = 1;
		return 1;
	default:
		return 0;
	}
	return r < 0 ? -1 : 1;
}

int
modelopt_finish(struct modelopt *mo)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	if (mo->int8act && mo->mode == MODEL_BF16ACT)
		return error("--bf16-act and --int8-act exclude each other");
	if (!mo->threads && (mo->threads = default_threads()) < 0)
		return -1;
	/* more threads than CPUs only wait for each other at every step
	 * (-t 64 on 2 CPUs: 20 times slower) */
	if (cpus > 0 && mo->threads > cpus)
		warn("%d threads on %ld CPU%s: slower than -t %ld (the "
		    "results are the same)", mo->threads, cpus,
		    cpus == 1 ? "" : "s", cpus);
	return 0;
}

int
modelopt_load(struct model *m, struct seq *s, const struct modelopt *mo)
{
	memset(m, 0, sizeof(*m));
	if (s)
		memset(s, 0, sizeof(*s));
	if (kern_init(getenv("PIPELM_KERNEL")) < 0 ||
	    model_load(m, mo->model, mo->threads) < 0)
		return -1;
	if (mo->mode != MODEL_EXACT && model_set_mode(m, mo->mode) < 0)
		return -1;
	if (mo->int8act && model_set_int8act(m) < 0)
		return -1;
	if (mo->ctx > m->cfg.max_position_embeddings)
		warn("--ctx %d is past the %d positions the model was made for "
		    "(max_position_embeddings): what it writes beyond them "
		    "may be noise", mo->ctx, m->cfg.max_position_embeddings);
	if (s && seq_open_kv(s, m, mo->ctx, mo->kvt) < 0)
		return -1;
	if (mo->verbose)
		warn("model %s%s, kernels %s, %d thread%s, mode %s%s",
		    m->gguf ? m->gguf : m->dir,
		    m->builtin ? " (the built-in model)" : "", kern.name,
		    mo->threads, mo->threads == 1 ? "" : "s",
		    model_mode_name(m), m->mode_fallback ?
		    " (no AVX512-BF16 for --bf16-act)" : "");
	/* reserved for the whole context, in memory as it fills */
	if (mo->verbose && s) {
		double b = (double)seq_kv_bytes(m, s->ctx, s->kvt);
		int u = b >= 1 << 30 ? 30 : b >= 1 << 20 ? 20 : 10;

		warn("context %d positions (max_position_embeddings %d), KV "
		    "cache %s: %.1f %s when full, %zu bytes a position",
		    s->ctx, m->cfg.max_position_embeddings, attn_kvname(s->kvt),
		    b / ((size_t)1 << u), u == 30 ? "GiB" : u == 20 ? "MiB" :
		    "KiB", seq_kv_bytes(m, SEQ_KVBLOCK, s->kvt) / SEQ_KVBLOCK);
	}
	return 0;
}
