#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "stream/rec.h"
#include "opt/sampopt.h"
#include "base/util.h"

void
sampopt_init(struct sampopt *so)
{
	sampler_defaults(&so->o);
	stop_init(&so->st);
	memset(&so->stext, 0, sizeof so->stext);
	so->seeded = 0;
	so->given = 0;
}

#define GIVEN_N (1u << 15)
#define BIT(c) (1u << ((c) - SOPT_TEMP))

static int
num(const char *arg, long long min, long long max, const char *name, long long *v)
{
	const char *why = strtonum_err(arg, min, max, v);

	if (why)
		return error("invalid %s '%s': %s (expected %lld to %lld)",
		    name, arg, why, min, max);
	return 0;
}

/* A seed: the whole u64 range, so that any seed -v prints (drawn from
 * the system) can be given back. */
static int
seed(const char *arg, uint64_t *v)
{
	unsigned long long x;
	char *end;

	errno = 0;
	if (*arg < '0' || *arg > '9')	/* strtoull takes blanks and a sign */
		return error("invalid --seed '%s': not a number (expected 0 to %" PRIu64 ")",
		    arg, UINT64_MAX);
	x = strtoull(arg, &end, 10);
	if (*end)
		return error("invalid --seed '%s': not a number (expected 0 to %" PRIu64 ")",
		    arg, UINT64_MAX);
	if (errno == ERANGE || x > UINT64_MAX)
		return error("invalid --seed '%s': too large (expected 0 to %" PRIu64 ")",
		    arg, UINT64_MAX);
	*v = (uint64_t)x;
	return 0;
}

static int
real(const char *arg, double min, double max, const char *name, float *v)
{
	char *end;
	double d = strtod(arg, &end);

	if (!*arg || *end || !isfinite(d))
		return error("invalid %s '%s': not a number", name, arg);
	if (d < min || d > max)
		return error("invalid %s '%s': out of range (expected %g to %g)",
		    name, arg, min, max);
	*v = (float)d;
	return 0;
}

int
sampopt_parse(struct sampopt *so, int c, const char *arg)
{
	long long v;
	int r = 0;

	if (c == 'n')
		so->given |= GIVEN_N;
	else if (c >= SOPT_TEMP && c <= SOPT_STOPTEXT)
		so->given |= BIT(c);
	switch (c) {
	case 'n':
		/* -1: no limit, as llama.cpp's -n -1 */
		if ((r = num(arg, -1, LLONG_MAX, "-n", &v)) == 0)
			so->st.max_new = v;
		break;
	case SOPT_TEMP:    r = real(arg, 0, 1e6, "--temp", &so->o.temp); break;
	case SOPT_TOPP:    r = real(arg, 0, 1, "--top-p", &so->o.top_p); break;
	case SOPT_MINP:    r = real(arg, 0, 1, "--min-p", &so->o.min_p); break;
	case SOPT_PENALTY: r = real(arg, 0, 1e6, "--repeat-penalty", &so->o.repeat_penalty); break;
	case SOPT_TOPK:
		if ((r = num(arg, 0, INT_MAX, "--top-k", &v)) == 0)
			so->o.top_k = (int)v;
		break;
	case SOPT_LASTN:
		if ((r = num(arg, -1, INT_MAX, "--repeat-last-n", &v)) == 0)
			so->o.repeat_last_n = (int)v;
		break;
	case SOPT_SEED:
		if ((r = seed(arg, &so->o.seed)) == 0)
			so->seeded = 1;
		break;
	case SOPT_STOP:
		if ((r = num(arg, 0, REC_MAXID, "--stop", &v)) == 0)
			r = stop_add_id(&so->st, (int)v);
		break;
	case SOPT_NOEOS:
		so->st.ignore_eos = 1;
		break;
	case SOPT_STOPTEXT:
		if (!*arg)
			r = error("invalid --stop-text '': an empty string");
		else
			r = stoptext_add(&so->stext, arg);
		break;
	default:
		return 0;
	}
	return r < 0 ? -1 : 1;
}

/* what was not given, from generation_config.json */
static void
model_defaults(struct sampopt *so, const struct cfg_gen *g)
{
	struct sampler_opts *o = &so->o;

	if (!(so->given & GIVEN_N) && g->max_new_tokens >= 0)
		so->st.max_new = g->max_new_tokens;
	if (g->do_sample == 0) {
		if (!(so->given & BIT(SOPT_TEMP)))
			o->temp = 0;
		return;
	}
	if (!(so->given & BIT(SOPT_TEMP)) && !isnan(g->temperature))
		o->temp = g->temperature;
	if (!(so->given & BIT(SOPT_TOPK)) && g->top_k >= 0)
		o->top_k = g->top_k;
	if (!(so->given & BIT(SOPT_TOPP)) && !isnan(g->top_p))
		o->top_p = g->top_p;
	if (!(so->given & BIT(SOPT_MINP)) && !isnan(g->min_p))
		o->min_p = g->min_p;
	if (!(so->given & BIT(SOPT_PENALTY)) && !isnan(g->repetition_penalty))
		o->repeat_penalty = g->repetition_penalty;
}

int
sampopt_finish(struct sampopt *so, const struct cfg *c)
{
	struct sampler s = { 0 };
	int i;

	if (c)
		model_defaults(so, &c->gen);
	if (!so->seeded)
		so->o.seed = sampler_seed_system();
	if (sampler_init(&s, &so->o, 1) < 0)	/* checks the options */
		return -1;
	sampler_free(&s);
	if (c && !so->st.ignore_eos)
		for (i = 0; i < c->n_eos; i++)
			if (stop_add_eos(&so->st, c->eos_token_id[i]) < 0)
				return -1;
	return 0;
}

void
sampopt_free(struct sampopt *so)
{
	stop_free(&so->st);
	stoptext_free(&so->stext);
}
