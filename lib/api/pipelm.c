/* pipelm.c: the C API (pipelm.h) over libcore: the model, its tokenizer
 * and chat template opened as the programs open them, sequences,
 * llm-gen's sampling loop one id a call, llm-score's windows; each
 * library message kept for pipelm_errmsg instead of printed. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "api/pipelm.h"
#include "base/util.h"
#include "chat/chat.h"
#include "kern/attn.h"
#include "kern/kern.h"
#include "kern/wtype.h"
#include "model/model.h"
#include "model/seq.h"
#include "opt/sampopt.h"
#include "stream/sample.h"
#include "stream/score.h"
#include "stream/stoptext.h"
#include "tok/tok.h"

struct pipelm_model {
	struct model m;
	pthread_mutex_t lock;	/* the tokenizer and the chat template: one
				 * thread at a time (tok.h) */
	int tokopen, chatopen;	/* opened at their first use */
	struct tok tok;
	struct chat chat;
};

struct pipelm_seq {
	struct seq s;
	pipelm_model *pm;
};

struct pipelm_gen {
	pipelm_model *pm;
	struct sampopt so;
	struct sampler smp;
	int ready;		/* the options finished, the sampler set up */
	struct seq *s;		/* the sequence of the continuation */
	int *hist;		/* prompt and continuation */
	size_t nhist, cap;
	const float *logits;	/* to sample the next id from */
	int pending;		/* the last id is yet to be run */
	int done;
};

static _Thread_local char errbuf[1024];

static void
keep(const char *msg)
{
	snprintf(errbuf, sizeof errbuf, "%s", msg);
}

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int kernok;

static void
init(void)
{
	warn_hook(keep);
	kernok = kern_init(getenv("PIPELM_KERNEL"));
}

/* Every entry point that can report starts here. */
static void
enter(void)
{
	pthread_once(&once, init);
	errbuf[0] = 0;
}

const char *
pipelm_version(void)
{
	return PIPELM_VERSION;
}

const char *
pipelm_errmsg(void)
{
	return errbuf;
}

void
pipelm_free(void *p)
{
	free(p);
}

static const struct {
	const char *name;
	enum model_mode mode;
	int int8act;
} modes[] = {
	{ "exact", MODEL_EXACT, 0 }, { "bf16-act", MODEL_BF16ACT, 0 },
	{ "q8_0", MODEL_Q8_0, 0 }, { "q4", MODEL_Q4, 0 },
	{ "q8_0+int8-act", MODEL_Q8_0, 1 }, { "q4+int8-act", MODEL_Q4, 1 },
	{ "int8-act", MODEL_EXACT, 1 },
};

int
pipelm_model_open(pipelm_model **out, const char *model, int threads,
    const char *mode)
{
	pipelm_model *pm;
	enum model_mode mm = MODEL_EXACT;
	size_t i;
	int i8 = 0;

	enter();
	*out = NULL;
	if (mode) {
		for (i = 0; i < LEN(modes) && strcmp(mode, modes[i].name); i++)
			;
		if (i == LEN(modes))
			return error("invalid mode '%s' (exact, bf16-act, q8_0, "
			    "q4, q8_0+int8-act, q4+int8-act, int8-act)", mode);
		mm = modes[i].mode;
		i8 = modes[i].int8act;
	}
	if (threads < 0 || threads > 1024)
		return error("invalid thread count %d (expected 0 to 1024)",
		    threads);
	if (!threads && (threads = default_threads()) < 0)
		return -1;
	if (kernok < 0)
		return error("PIPELM_KERNEL: no such kernel table here");
	if (!(pm = xcalloc(1, sizeof *pm)))
		return -1;
	if (pthread_mutex_init(&pm->lock, NULL)) {
		free(pm);
		return error("cannot create a mutex");
	}
	if (model_load(&pm->m, model, threads) < 0 ||
	    (mm != MODEL_EXACT && model_set_mode(&pm->m, mm) < 0) ||
	    (i8 && model_set_int8act(&pm->m) < 0)) {
		pipelm_model_close(pm);
		return -1;
	}
	*out = pm;
	return 0;
}

void
pipelm_model_close(pipelm_model *pm)
{
	if (!pm)
		return;
	chat_free(&pm->chat);
	tok_free(&pm->tok);
	model_close(&pm->m);
	pthread_mutex_destroy(&pm->lock);
	free(pm);
}

int
pipelm_model_vocab(const pipelm_model *pm)
{
	return pm->m.cfg.vocab_size;
}

int
pipelm_model_ctx(const pipelm_model *pm)
{
	return pm->m.ctx;
}

const char *
pipelm_model_dir(const pipelm_model *pm)
{
	return pm->m.dir;
}

/* ---- the tokenizer: under pm->lock ---- */

static int
tok_ready(pipelm_model *pm)
{
	if (pm->tokopen)
		return 0;
	tok_free(&pm->tok);
	/* a GGUF file holds its tokenizer and chat template */
	if (tok_open(&pm->tok, pm->m.gguf ? pm->m.gguf : pm->m.dir, NULL) < 0)
		return -1;
	pm->tokopen = 1;
	return 0;
}

static int
encode(pipelm_model *pm, const char *text, size_t len, int flags, int **ids,
    size_t *n)
{
	struct tok_ids v = { 0 };

	if (tok_encode(&pm->tok, text, len, flags, &v) < 0) {
		free(v.v);
		return -1;
	}
	if (!v.v && !(v.v = xmalloc(sizeof(int))))
		return -1;
	*ids = v.v;
	*n = v.n;
	return 0;
}

int
pipelm_tokenize(pipelm_model *pm, const char *text, size_t len,
    int add_special, int **ids, size_t *n)
{
	int r;

	enter();
	*ids = NULL;
	*n = 0;
	pthread_mutex_lock(&pm->lock);
	r = tok_ready(pm) < 0 ? -1 : encode(pm, text, len,
	    add_special ? TOK_ADD_SPECIAL : 0, ids, n);
	pthread_mutex_unlock(&pm->lock);
	return r;
}

static int
decode(pipelm_model *pm, const int *ids, size_t n, int skip_special,
    char **text, size_t *len)
{
	struct tok_dec d = { 0 };
	struct tok_buf b = { 0 };
	size_t i;
	int r = 0;

	tok_dec_start(&d, &pm->tok, skip_special);
	for (i = 0; i < n && r == 0; i++)
		if ((r = tok_dec_push(&d, ids[i], &b)) < 0)
			error("token %zu: id %d not in the vocabulary (%d tokens)",
			    i, ids[i], pm->tok.ntok);
	if (r == 0 && (tok_dec_end(&d, &b) < 0 || tok_buf_add(&b, "", 1) < 0))
		r = error("cannot allocate the text");
	tok_dec_free(&d);
	if (r < 0) {
		free(b.p);
		return -1;
	}
	*text = b.p;
	*len = b.n - 1;
	return 0;
}

int
pipelm_detokenize(pipelm_model *pm, const int *ids, size_t n,
    int skip_special, char **text, size_t *len)
{
	int r;

	enter();
	*text = NULL;
	*len = 0;
	pthread_mutex_lock(&pm->lock);
	r = tok_ready(pm) < 0 ? -1 : decode(pm, ids, n, skip_special, text, len);
	pthread_mutex_unlock(&pm->lock);
	return r;
}

const char *
pipelm_piece(pipelm_model *pm, int id, size_t *len)
{
	const char *p = NULL;

	enter();
	*len = 0;
	pthread_mutex_lock(&pm->lock);
	if (tok_ready(pm) == 0 && !(p = tok_piece(&pm->tok, id, len)))
		error("id %d not in the vocabulary (%d tokens)", id,
		    pm->tok.ntok);
	pthread_mutex_unlock(&pm->lock);
	return p;
}

static int
render(pipelm_model *pm, const char *json, size_t jlen, char **text,
    size_t *len)
{
	if (!pm->chatopen) {
		chat_free(&pm->chat);
		if ((pm->m.gguf ? chat_open_model(&pm->chat, pm->m.gguf, NULL,
		    NULL) : chat_open(&pm->chat, pm->m.dir, NULL)) < 0)
			return -1;
		pm->chatopen = 1;
	}
	return chat_render(&pm->chat, json, jlen, "conversation", text, len);
}

int
pipelm_chat_render(pipelm_model *pm, const char *json, size_t jlen,
    char **text, size_t *len)
{
	int r;

	enter();
	*text = NULL;
	*len = 0;
	pthread_mutex_lock(&pm->lock);
	r = render(pm, json, jlen, text, len);
	pthread_mutex_unlock(&pm->lock);
	return r;
}

int
pipelm_chat_tokenize(pipelm_model *pm, const char *json, size_t jlen,
    int **ids, size_t *n)
{
	char *text = NULL;
	size_t len;
	int r;

	enter();
	*ids = NULL;
	*n = 0;
	pthread_mutex_lock(&pm->lock);
	/* as apply_chat_template(tokenize=True): the template's text alone,
	 * its special tokens matched (tok-encode --chat) */
	r = render(pm, json, jlen, &text, &len) < 0 || tok_ready(pm) < 0 ? -1 :
	    encode(pm, text, len, 0, ids, n);
	pthread_mutex_unlock(&pm->lock);
	free(text);
	return r;
}

/* ---- sequences ---- */

int
pipelm_seq_open(pipelm_seq **out, pipelm_model *pm, int ctx)
{
	return pipelm_seq_open_kv(out, pm, ctx, NULL);
}

int
pipelm_seq_open_kv(pipelm_seq **out, pipelm_model *pm, int ctx,
    const char *kv_type)
{
	pipelm_seq *ps;
	enum wtype kvt = W_F32;
	int t;

	enter();
	*out = NULL;
	if (ctx < 0)
		return error("invalid context length %d", ctx);
	if (kv_type) {		/* --kv-type's names */
		if ((t = attn_kvparse(kv_type)) < 0)
			return error("invalid KV cache type '%s' (" ATTN_KVNAMES
			    ")", kv_type);
		kvt = (enum wtype)t;
	}
	if (!(ps = xcalloc(1, sizeof *ps)))
		return -1;
	ps->pm = pm;
	if (seq_open_kv(&ps->s, &pm->m, ctx, kvt) < 0) {
		pipelm_seq_close(ps);
		return -1;
	}
	*out = ps;
	return 0;
}

void
pipelm_seq_close(pipelm_seq *ps)
{
	if (!ps)
		return;
	seq_close(&ps->s);
	free(ps);
}

void
pipelm_seq_reset(pipelm_seq *ps)
{
	seq_reset(&ps->s);
}

size_t
pipelm_seq_kv_bytes(const pipelm_seq *ps)
{
	return seq_kv_bytes(ps->s.m, ps->s.ctx, ps->s.kvt);
}

int
pipelm_seq_pos(const pipelm_seq *ps)
{
	return ps->s.pos;
}

int
pipelm_seq_ctx(const pipelm_seq *ps)
{
	return ps->s.ctx;
}

/* n as the forward pass's int, or -1 after error() */
static int
count(size_t n)
{
	if (n == 0)
		return error("no ids");
	if (n > (size_t)1 << 30)
		return error("%zu ids: too many", n);
	return (int)n;
}

int
pipelm_seq_eval(pipelm_seq *ps, const int *ids, size_t n, float *logits)
{
	const float *x;
	int k;

	enter();
	if ((k = count(n)) < 0 || !(x = seq_forward(&ps->s, ids, k)))
		return -1;
	if (logits)
		memcpy(logits, x, (size_t)ps->pm->m.cfg.vocab_size * sizeof *x);
	return 0;
}

struct rows {
	float *out;
	size_t vocab;
};

static int
copyrows(void *ctx, const float *logits, int i, int rows)
{
	struct rows *r = ctx;

	memcpy(r->out + (size_t)i * r->vocab, logits,
	    (size_t)rows * r->vocab * sizeof *logits);
	return 0;
}

int
pipelm_seq_eval_all(pipelm_seq *ps, const int *ids, size_t n, float *logits)
{
	struct rows r = { logits, (size_t)ps->pm->m.cfg.vocab_size };
	int k;

	enter();
	if ((k = count(n)) < 0)
		return -1;
	return seq_forward_all(&ps->s, ids, k, copyrows, &r) < 0 ? -1 : 0;
}

/* ---- scoring: llm-score --per-token's logprob column ---- */

struct pass {
	double *out;
	const int *ids;
	size_t vocab, p0;	/* the position of the rows' first */
};

static int
scorerows(void *ctx, const float *logits, int i, int rows)
{
	struct pass *ps = ctx;
	const float *x;
	size_t p, at;
	double lse;
	int j;

	for (j = 0; j < rows; j++) {
		p = ps->p0 + (size_t)(i + j);
		x = logits + (size_t)j * ps->vocab;
		if (score_lse(x, ps->vocab, &lse, &at) < 0)
			return error("position %zu: logit %zu is %g (the weights "
			    "hold a non-finite value?)", p, at, (double)x[at]);
		ps->out[p] = (double)x[ps->ids[p + 1]] - lse;
	}
	return 0;
}

int
pipelm_score(pipelm_seq *ps, const int *ids, size_t n, double *logprob)
{
	struct seq *s = &ps->s;
	struct score_win w = { 0 };
	struct pass pa = { logprob, ids, (size_t)ps->pm->m.cfg.vocab_size, 0 };
	size_t stride = s->ctx > 1 ? (size_t)s->ctx / 2 : 1, i;

	enter();
	for (i = 0; i < n; i++)
		if (ids[i] < 0 || ids[i] >= ps->pm->m.cfg.vocab_size)
			return error("token %zu: id %d not in the vocabulary "
			    "(%d ids)", i, ids[i], ps->pm->m.cfg.vocab_size);
	while (score_window(&w, n, (size_t)s->ctx, stride)) {
		size_t lo = w.first > 1 ? w.first : 1;

		if (lo >= w.end)
			continue;
		seq_reset(s);
		if (lo - 1 > w.begin && !seq_forward(s, ids + w.begin,
		    (int)(lo - 1 - w.begin)))
			return -1;
		pa.p0 = lo - 1;
		if (seq_forward_all(s, ids + lo - 1, (int)(w.end - lo), scorerows,
		    &pa) != 0)
			return -1;
	}
	return 0;
}

/* ---- generation: llm-gen's loop, an id a call ---- */

int
pipelm_gen_open(pipelm_gen **out, pipelm_model *pm)
{
	pipelm_gen *g;

	enter();
	*out = NULL;
	if (!(g = xcalloc(1, sizeof *g)))
		return -1;
	g->pm = pm;
	sampopt_init(&g->so);
	*out = g;
	return 0;
}

void
pipelm_gen_close(pipelm_gen *g)
{
	if (!g)
		return;
	sampler_free(&g->smp);
	sampopt_free(&g->so);
	free(g->hist);
	free(g);
}

static const struct {
	const char *name;
	int c;
} genopts[] = {
	{ "max-new", 'n' }, { "temp", SOPT_TEMP }, { "top-k", SOPT_TOPK },
	{ "top-p", SOPT_TOPP }, { "min-p", SOPT_MINP },
	{ "repeat-penalty", SOPT_PENALTY }, { "repeat-last-n", SOPT_LASTN },
	{ "seed", SOPT_SEED }, { "stop", SOPT_STOP },
	{ "ignore-eos", SOPT_NOEOS }, { "stop-text", SOPT_STOPTEXT },
};

int
pipelm_gen_set(pipelm_gen *g, const char *name, const char *value)
{
	size_t i;

	enter();
	if (g->ready)
		return error("%s: set after the generator started", name);
	for (i = 0; i < LEN(genopts) && strcmp(name, genopts[i].name); i++)
		;
	if (i == LEN(genopts))
		return error("no generation option '%s'", name);
	if (!value && genopts[i].c != SOPT_NOEOS)
		return error("%s: no value", name);
	/* the programs' own parser: the same checks, the same messages */
	return sampopt_parse(&g->so, genopts[i].c, value ? value : "") < 0 ?
	    -1 : 0;
}

uint64_t
pipelm_gen_seed(const pipelm_gen *g)
{
	return g->so.o.seed;
}

int
pipelm_gen_start(pipelm_gen *g, pipelm_seq *ps, const int *ids, size_t n)
{
	pipelm_model *pm = g->pm;
	int vocab = pm->m.cfg.vocab_size, k, r = 0;

	enter();
	g->done = 1;
	if (ps->pm != pm)
		return error("the sequence is on another model");
	if (!g->ready) {
		if (sampopt_finish(&g->so, &pm->m.cfg) < 0 ||
		    sampler_init(&g->smp, &g->so.o, vocab) < 0)
			return -1;
		g->ready = 1;
	}
	if ((k = count(n)) < 0)
		return error("empty prompt");
	if (n > (size_t)ps->s.ctx)
		return error("prompt of %zu tokens exceeds the context of %d",
		    n, ps->s.ctx);
	g->s = &ps->s;
	seq_reset(g->s);
	sampler_reset(&g->smp);
	g->nhist = 0;
	if (xgrow(&g->hist, &g->cap, n + 1, sizeof *g->hist) < 0)
		return -1;
	memcpy(g->hist, ids, n * sizeof *ids);
	g->nhist = n;
	g->pending = 0;
	stop_reset(&g->so.st);
	if (g->so.stext.n) {
		pthread_mutex_lock(&pm->lock);
		if ((r = tok_ready(pm)) == 0)
			r = stoptext_start(&g->so.stext, &pm->tok, g->hist, n);
		pthread_mutex_unlock(&pm->lock);
		if (r < 0)
			return -1;
	}
	if (stop_none(&g->so.st))
		return 0;
	if (!(g->logits = seq_forward(g->s, ids, k)))
		return -1;
	g->done = 0;
	return 0;
}

int
pipelm_gen_next(pipelm_gen *g, int *id)
{
	struct seq *s = g->s;
	int t;

	enter();
	*id = -1;
	if (g->done)
		return 0;
	if (g->pending) {	/* the id given last, run now */
		if (s->pos >= s->ctx) {
			g->done = 1;
			return 0;
		}
		if (!(g->logits = seq_forward(s, &g->hist[g->nhist - 1], 1))) {
			g->done = 1;
			return -1;
		}
		g->pending = 0;
	}
	/* the sampler may rewrite the row (penalty): it is ours until the
	 * next forward */
	if ((t = sampler_next(&g->smp, (float *)g->logits, g->hist,
	    g->nhist)) < 0) {
		g->done = 1;
		return error("position %zu: logit %d is %g (a weight that is "
		    "not finite?)", g->nhist - 1, g->smp.bad,
		    (double)g->logits[g->smp.bad]);
	}
	if (xgrow(&g->hist, &g->cap, g->nhist + 1, sizeof *g->hist) < 0) {
		g->done = 1;
		return -1;
	}
	g->hist[g->nhist++] = t;
	*id = t;
	g->pending = 1;
	if (stop_check(&g->so.st, t) != STOP_NONE)
		g->done = 1;
	else if (g->so.stext.n) {
		int hit = stoptext_push(&g->so.stext, t);

		if (hit < 0) {
			g->done = 1;
			return -1;
		}
		g->done = hit;
	}
	return 1;
}
