/* tok_train_feed.c: the words of a corpus, counted as tokenizers'
 * BpeTrainer::feed counts them: each line a sequence, normalized and
 * pre-tokenized, each piece a word.  The lines of each buffer are cut
 * into one share per thread; each thread has its own pipeline (a struct
 * tok is used by one thread at a time) and its own table, and the
 * tables are added up when asked for, so memory grows with the distinct
 * words, not with the text. */
#include <stdlib.h>
#include <string.h>

#include "kern/pool.h"
#include "tok/tok.h"
#include "tok/tok_int.h"
#include "tok/tok_train.h"
#include "base/unicode.h"
#include "base/util.h"

struct share {
	struct tok t;
	struct tok_train_words w;
	struct tok_buf x;		/* a byte-level word as characters */
	const char *s;			/* this call's share */
	size_t n;
	size_t bad;			/* offset in it of text not UTF-8, or -1 */
	int failed;
	int bytelevel;
};

struct tok_train_feed {
	struct pool *pool;
	int nthreads;
	struct share *sh;
	struct tok_train_words all;	/* the shares' tables added up */
	int summed;
	char *name;			/* the input the lines are counted for */
	size_t lines;			/* its lines before this call */
};

/* the first byte of s[0..n) that is not well-formed UTF-8, or n */
static size_t
utf8_bad(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, len;
	uint32_t cp;

	while (i < n) {
		if (u[i] < 0x80) {
			i++;
			continue;
		}
		len = uni_decode(u + i, n - i, &cp);
		if (UNI_ISBAD(cp))
			return i;
		i += len;
	}
	return n;
}

static int
word(void *ctx, const char *s, size_t n)
{
	struct share *sh = ctx;
	size_t i;

	if (!sh->bytelevel)
		return tok_train_words_add(&sh->w, s, n, 1);
	sh->x.n = 0;
	for (i = 0; i < n; i++) {
		unsigned char u[4];
		size_t k = uni_encode(tok_b2u[(unsigned char)s[i]], u);
		if (tok_buf_add(&sh->x, u, k) < 0)
			return -1;
	}
	return tok_train_words_add(&sh->w, sh->x.p, sh->x.n, 1);
}

static void
run(void *ctx, int i0, int i1)
{
	struct tok_train_feed *f = ctx;
	int k;

	for (k = i0; k < i1; k++) {
		struct share *sh = &f->sh[k];
		size_t i = 0, e, bad = utf8_bad(sh->s, sh->n);
		if (bad < sh->n) {
			sh->bad = bad;
			continue;
		}
		while (i < sh->n) {
			const char *nl = memchr(sh->s + i, '\n', sh->n - i);
			e = nl ? (size_t)(nl - sh->s) + 1 : sh->n;
			if (tok_words(&sh->t, sh->s + i, e - i, word, sh) < 0) {
				sh->failed = 1;
				break;
			}
			i = e;
		}
	}
}

struct tok_train_feed *
tok_train_feed_new(const struct json *r, const char *path, int nthreads)
{
	struct tok_train_feed *f;
	int i;

	if (nthreads < 1)
		nthreads = 1;
	if (!(f = xcalloc(1, sizeof *f)))
		return NULL;
	f->nthreads = nthreads;
	if (!(f->sh = xcalloc(nthreads, sizeof *f->sh)))
		goto bad;
	for (i = 0; i < nthreads; i++)
		if (tok_load_pipe(&f->sh[i].t, r, path, &f->sh[i].bytelevel) < 0)
			goto bad;
	if (nthreads > 1 && !(f->pool = pool_new(nthreads)))
		goto bad;
	return f;
bad:
	tok_train_feed_free(f);
	return NULL;
}

int
tok_train_feed(struct tok_train_feed *f, const char *name, const char *buf, size_t n)
{
	size_t at = 0, per = n / f->nthreads + 1, bad = (size_t)-1, i;
	int k, failed = 0;

	if (!f->name || strcmp(f->name, name)) {
		free(f->name);
		if (!(f->name = xstrdup(name)))
			return -1;
		f->lines = 0;
	}
	f->summed = 0;
	/* one share of whole lines per thread */
	for (k = 0; k < f->nthreads; k++) {
		struct share *sh = &f->sh[k];
		size_t e = at + per < n ? at + per : n;
		const char *nl;
		if (e < n && (nl = memchr(buf + e, '\n', n - e)))
			e = (size_t)(nl - buf) + 1;
		else if (e < n)
			e = n;
		sh->s = buf + at, sh->n = e - at;
		sh->bad = (size_t)-1;
		at = e;
	}
	pool_for(f->pool, f->nthreads, 1, run, f);
	for (k = 0; k < f->nthreads; k++) {
		struct share *sh = &f->sh[k];
		failed |= sh->failed;
		if (sh->bad != (size_t)-1 && bad == (size_t)-1)
			bad = (size_t)(sh->s - buf) + sh->bad;
	}
	if (bad != (size_t)-1) {
		size_t line = f->lines + 1;
		for (i = 0; i < bad; i++)
			line += buf[i] == '\n';
		return error("%s: line %zu: not UTF-8", name, line);
	}
	for (i = 0; i < n; i++) {
		const char *nl = memchr(buf + i, '\n', n - i);
		if (!nl)
			break;
		f->lines++;
		i = (size_t)(nl - buf);
	}
	return failed ? -1 : 0;
}

const struct tok_train_words *
tok_train_feed_words(struct tok_train_feed *f)
{
	int k;

	if (f->nthreads == 1)
		return &f->sh[0].w;
	if (!f->summed) {
		tok_train_words_free(&f->all);
		for (k = 0; k < f->nthreads; k++)
			if (tok_train_words_merge(&f->all, &f->sh[k].w) < 0)
				return NULL;
		f->summed = 1;
	}
	return &f->all;
}

void
tok_train_feed_free(struct tok_train_feed *f)
{
	int k;

	if (!f)
		return;
	pool_free(f->pool);
	for (k = 0; f->sh && k < f->nthreads; k++) {
		tok_free(&f->sh[k].t);
		tok_train_words_free(&f->sh[k].w);
		free(f->sh[k].x.p);
	}
	free(f->sh);
	tok_train_words_free(&f->all);
	free(f->name);
	free(f);
}
