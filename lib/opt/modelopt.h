/* modelopt.h: the model options that llm-logits and llm-gen share (-m,
 * --ctx, -t, --bf16-act, --quant, --timing), parsed and acted on once. */
#ifndef MODELOPT_H
#define MODELOPT_H

#include <getopt.h>

#include "model/model.h"
#include "model/seq.h"

enum { MOPT_BF16ACT = 0x200, MOPT_QUANT, MOPT_TIMING, MOPT_INT8ACT,
    MOPT_KVTYPE };

/* Entries for a getopt_long table; -m, -t, -c (--ctx) and -v are passed
 * to modelopt_parse as 'm', 't', 'c' and 'v' (-c and --ctx-size as
 * llama.cpp spells them). */
#define MODELOPT_LONGOPTS \
	{ "model",    required_argument, NULL, 'm' }, \
	{ "threads",  required_argument, NULL, 't' }, \
	{ "ctx",      required_argument, NULL, 'c' }, \
	{ "ctx-size", required_argument, NULL, 'c' }, \
	{ "bf16-act", no_argument,       NULL, MOPT_BF16ACT }, \
	{ "quant",    required_argument, NULL, MOPT_QUANT }, \
	{ "timing",   no_argument,       NULL, MOPT_TIMING }, \
	{ "int8-act", no_argument,       NULL, MOPT_INT8ACT }, \
	{ "kv-type",  required_argument, NULL, MOPT_KVTYPE }, \
	{ "verbose",  no_argument,       NULL, 'v' }
/* Their lines of --help (-v's apart, MODELOPT_VERBOSE_HELP, for the
 * programs whose -v says more). */
#define MODELOPT_HELP \
	"  -m, --model=PATH      folder, ORG/NAME, file.gguf or ORG/NAME:QUANT\n" \
	"                        (default $PIPELM_MODEL, else built-in)\n" \
	"  -t, --threads=N       worker threads (default $PIPELM_THREADS, else the CPUs)\n" \
	"  -c, --ctx=N, --ctx-size=N\n" \
	"                        most positions a sequence may have (default the model's)\n" \
	"      --kv-type=f32|bf16|f16|q8_0\n" \
	"                        the KV cache's element type (default f32: exact)\n" \
	"      --timing          print load, prefill and decode times on stderr\n" \
	"      --bf16-act        fast mode: bfloat16 activations (AVX512-BF16)\n" \
	"      --quant=q8_0|q4   fast mode: matrices quantized to Q8_0 or 4 bits at load\n" \
	"      --int8-act        with --quant or 4-bit weights: int8 activations, integer dots\n"
#define MODELOPT_VERBOSE_HELP \
	"  -v, --verbose         say the model, kernels, threads and mode on stderr\n"
/* Their part of a usage line (after "usage: prog"). */
#define MODELOPT_USAGE \
	"[-v] [-m model] [-t threads] [-c n] [--kv-type t] [--timing]\n" \
	"       [--bf16-act | --quant q8_0 | --quant q4] [--int8-act]"

struct modelopt {
	const char *model;	/* -m, NULL for $PIPELM_MODEL */
	int ctx;		/* --ctx, 0 for the model's */
	enum wtype kvt;		/* --kv-type: W_F32 (default), W_BF16, W_F16,
				 * W_GQ8_0 (q8_0) */
	int threads;		/* -t, else default_threads() (modelopt_finish) */
	enum model_mode mode;	/* --bf16-act, --quant q8_0, --quant q4 */
	int int8act;		/* --int8-act */
	int timing;		/* --timing */
	int verbose;		/* -v: the model, kernels, threads and mode said */
};

void modelopt_init(struct modelopt *mo);
/* Take option c with argument arg if it is one of ours: 1 if taken, 0 if
 * not ours, -1 after error() for a bad value or a second mode (the caller
 * exits 2). */
int modelopt_parse(struct modelopt *mo, int c, const char *arg);
/* After the options: the thread count from default_threads() unless -t
 * (a warning where it is more than the CPUs online: the threads then
 * wait for each other, the results the same).  0, or -1 after error()
 * for a bad $PIPELM_THREADS or --int8-act with --bf16-act (the caller
 * exits 2). */
int modelopt_finish(struct modelopt *mo);
/* Choose the kernels ($PIPELM_KERNEL), load the model, set its mode
 * and, unless s is NULL, open a sequence on it with --ctx positions (a
 * warning where --ctx goes past the model's max_position_embeddings).
 * 0, or -1 after error(); m and s are then safe to model_close and
 * seq_close. */
int modelopt_load(struct model *m, struct seq *s, const struct modelopt *mo);

#endif
