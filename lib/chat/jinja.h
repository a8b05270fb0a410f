/* jinja.h: the Jinja subset HuggingFace chat templates use.
 *
 * A template is parsed once (jj_parse) into an AST and rendered any
 * number of times (jj_render) over variables that come in as JSON values.
 * The semantics are Python Jinja2's as transformers renders chat
 * templates: an ImmutableSandboxedEnvironment with trim_blocks and
 * lstrip_blocks, the loopcontrols extension (break, continue), the
 * default Undefined (printing it gives "", iterating it nothing, taking
 * an attribute of it is an error), tojson as json.dumps(ensure_ascii=False),
 * and the globals raise_exception and strftime_now.  Output is checked
 * against @huggingface/jinja (tests/jinja-check.js).
 *
 * Supported: text, {{ }}, {% %}, {# #}, whitespace control (- and +);
 * if/elif/else, for (tuple targets, a filter condition, else, loop.index,
 * index0, revindex, revindex0, first, last, length, previtem, nextitem),
 * break, continue, set (names, tuples, namespace attributes, blocks),
 * macro (positional and keyword arguments with defaults, *list and
 * **dict in calls), call blocks (caller()), filter blocks, generation
 * (its body, as transformers' AssistantTracker renders it), raw;
 * literals, arithmetic, ~, comparisons, and/or/not, in, is tests,
 * conditional expressions, attributes, subscripts, slices; the filters,
 * tests and methods listed in jinja_filt.c, the globals in jinja.c.
 *
 * Strings are UTF-8; lengths, indexes and slices count characters as
 * Python does.  A template never runs unbounded: struct jj_limits caps
 * loop iterations, call depth, output size and working memory, and every
 * error (syntax, runtime, limit, raise_exception) is reported with
 * error() as "NAME, line L: what" and makes the call return -1. */
#ifndef JINJA_H
#define JINJA_H

#include <stddef.h>
#include <time.h>

#include "base/json.h"

struct jj_tmpl;

struct jj_limits {
	unsigned long long iter;	/* loop iterations and macro calls in one render */
	int depth;			/* nested macro calls (and parse nesting) */
	size_t output;			/* bytes of output */
	size_t memory;			/* bytes of working memory in one render */
};
/* The defaults: 10^7 iterations and calls, depth 200, 64 MiB of output, 512 MiB
 * of working memory. */
extern const struct jj_limits jj_default_limits;

/* A variable of the render context. */
struct jj_var {
	const char *name;
	const struct json *val;
};

/* Parse src[0..n) into *t; name labels messages ("chat template").
 * 0, or -1 after error() naming the line; *t is then NULL.  Free with
 * jj_free.  The template does not keep src. */
int jj_parse(struct jj_tmpl **t, const char *src, size_t n, const char *name);
/* Release a template; accepts NULL. */
void jj_free(struct jj_tmpl *t);

/* Render t with vars[0..nvars) (later ones win over earlier ones with
 * the same name).  lim: NULL for jj_default_limits.  now: the time
 * strftime_now formats (local time), or (time_t)-1 for the current time.
 * On success *out is a malloc'd NUL-terminated string of *outlen bytes
 * that the caller frees, and 0 is returned; else -1 after error(), *out
 * NULL.  The json values must outlive the call only. */
int jj_render(const struct jj_tmpl *t, const struct jj_var *vars, size_t nvars,
    const struct jj_limits *lim, time_t now, char **out, size_t *outlen);

#endif
