/* chat.c: the chat template of a model folder, and one conversation
 * rendered with it.  transformers' sources for the rules:
 * tokenization_utils_base.py (apply_chat_template, get_chat_template:
 * chat_template.jinja beside tokenizer_config.json, the named-template
 * list, "default"), utils/chat_template_utils.py (render_chat_template:
 * the special tokens and the caller's keyword arguments as variables). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "chat/chat.h"
#include "disk/gguf.h"
#include "disk/mdir.h"
#include "tok/tok.h"
#include "base/util.h"

#define MAXTEMPLATE ((size_t)16 << 20)

static char *
pathjoin(const char *dir, const char *file)
{
	size_t n = strlen(dir) + strlen(file) + 2;
	char *p = malloc(n);

	if (p)
		snprintf(p, n, "%s/%s", dir, file);
	else
		error("out of memory");
	return p;
}

/* The whole of a file, malloc'd, in *buf and *len; 0, 1 if it does not
 * exist, -1 after error(). */
static int
slurp(const char *path, char **buf, size_t *len)
{
	struct stat st;
	size_t off = 0;
	ssize_t n;
	int fd;

	*buf = NULL;
	if ((fd = open(path, O_RDONLY)) < 0)
		return errno == ENOENT ? 1 : error("%s:", path);
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size > MAXTEMPLATE) {
		close(fd);
		return error("%s: not a regular file of at most %zu bytes", path, MAXTEMPLATE);
	}
	if (!(*buf = malloc((size_t)st.st_size + 1))) {
		close(fd);
		return error("%s: out of memory", path);
	}
	while (off < (size_t)st.st_size) {
		n = read(fd, *buf + off, st.st_size - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		off += n;
	}
	close(fd);
	if (off != (size_t)st.st_size) {
		free(*buf);
		*buf = NULL;
		return error("%s: read error: short read", path);
	}
	(*buf)[off] = '\0';
	*len = off;
	return 0;
}

/* The template string of tokenizer_config.json's chat_template. */
static const struct json *
pick(const struct json *ct, const char *name, const char *path)
{
	const struct json *t;
	size_t i;

	if (ct->type == JSON_STRING) {
		if (name && strcmp(name, "default")) {
			error("%s: one chat template only, no '%s'", path, name);
			return NULL;
		}
		return ct;
	}
	if (ct->type != JSON_ARRAY) {
		error("%s: chat_template is a %s, not a string or a list", path,
		    json_typename(ct->type));
		return NULL;
	}
	/* transformers makes a dict of the list: of two entries with one
	 * name, the last is the one it renders */
	for (i = ct->len; i-- > 0; ) {
		const char *n = json_str(json_get(&ct->u.items[i], "name"));
		if (n && !strcmp(n, name ? name : "default")) {
			if (!(t = json_get(&ct->u.items[i], "template")) || t->type != JSON_STRING) {
				error("%s: chat template '%s' has no template string", path, n);
				return NULL;
			}
			return t;
		}
	}
	error("%s: no chat template named '%s' (%zu named templates)", path,
	    name ? name : "default", ct->len);
	return NULL;
}

/* A special token's text: a string, or an AddedToken object's content. */
static const struct json *
special(const struct json *j)
{
	const struct json *c;

	if (j && j->type == JSON_OBJECT && (c = json_get(j, "content")) && c->type == JSON_STRING)
		return c;
	return j && j->type == JSON_STRING ? j : NULL;
}

int
chat_open(struct chat *c, const char *dir, const char *name)
{
	static const char *const toks[CHAT_NTOKENS] = {
		"bos_token", "eos_token", "unk_token", "pad_token"
	};
	char *cfgpath = NULL, *src = NULL, *label = NULL;
	const struct json *ct, *t;
	size_t len = 0, i;
	int r;

	memset(c, 0, sizeof(*c));
	c->now = (time_t)-1;
	if (!(cfgpath = pathjoin(dir, "tokenizer_config.json")) ||
	    !(c->path = pathjoin(dir, "chat_template.jinja")))
		goto fail;
	if (access(cfgpath, F_OK) == 0 && json_load(&c->cfg, cfgpath) < 0)
		goto fail;
	if ((r = slurp(c->path, &src, &len)) < 0)
		goto fail;
	if (r == 0) {
		if (name && strcmp(name, "default")) {
			error("%s: --template %s: the folder has one chat template", c->path, name);
			goto fail;
		}
		if (jj_parse(&c->tmpl, src, len, c->path) < 0)
			goto fail;
	} else {
		if (!c->cfg.root || !(ct = json_get(c->cfg.root, "chat_template")) ||
		    ct->type == JSON_NULL) {
			error("%s: no chat template (no chat_template.jinja, no chat_template in tokenizer_config.json)",
			    dir);
			goto fail;
		}
		if (!(t = pick(ct, name, cfgpath)))
			goto fail;
		free(c->path);
		if (!(c->path = label = malloc(strlen(cfgpath) + 32)))
			goto fail;
		sprintf(label, "%s chat_template", cfgpath);
		if (jj_parse(&c->tmpl, t->u.str, t->len, c->path) < 0)
			goto fail;
	}
	for (i = 0; c->cfg.root && i < CHAT_NTOKENS; i++)
		if ((t = special(json_get(c->cfg.root, toks[i])))) {
			c->tokens[c->ntokens].name = toks[i];
			c->tokens[c->ntokens++].val = t;
		}
	free(src);
	free(cfgpath);
	return 0;
fail:
	free(src);
	free(cfgpath);
	return -1;
}

/* The template of a GGUF file: tokenizer.chat_template and the texts of
 * its special ids, as the tokenizer_config.json they were made from
 * (tok_gguf_config) */
static int
chat_open_gguf(struct chat *c, const char *path, const char *name)
{
	static const char *const toks[CHAT_NTOKENS] = {
		"bos_token", "eos_token", "unk_token", "pad_token"
	};
	struct buf b = { 0 };
	const struct json *t;
	char err[160];
	size_t i;

	memset(c, 0, sizeof(*c));
	c->now = (time_t)-1;
	if (tok_gguf_config(path, name, &b) < 0)
		goto fail;
	if (json_parse(&c->cfg, b.s, b.len, err, sizeof err) < 0) {
		error("%s: %s", path, err);
		goto fail;
	}
	t = json_get(c->cfg.root, "chat_template");
	if (!(c->path = malloc(strlen(path) + 32))) {
		error("out of memory");
		goto fail;
	}
	sprintf(c->path, "%s tokenizer.chat_template", path);
	if (jj_parse(&c->tmpl, t->u.str, t->len, c->path) < 0)
		goto fail;
	for (i = 0; i < CHAT_NTOKENS; i++)
		if ((t = special(json_get(c->cfg.root, toks[i])))) {
			c->tokens[c->ntokens].name = toks[i];
			c->tokens[c->ntokens++].val = t;
		}
	buf_free(&b);
	return 0;
fail:
	buf_free(&b);
	return -1;
}

int
chat_open_model(struct chat *c, const char *model, const char *file, const char *name)
{
	struct mdir m = { 0 };
	const char *env;
	char *dir, *slash;
	int r;

	memset(c, 0, sizeof(*c));
	if (!file && !model && (env = getenv("PIPELM_MODEL")) && *env)
		model = env;
	if (file ? gguf_probe(file) : model && gguf_probe(model))
		return chat_open_gguf(c, file ? file : model, name);
	if (file) {
		if (!(dir = xstrdup(file)))
			return -1;
		if ((slash = strrchr(dir, '/')))
			*slash = '\0';
		else
			strcpy(dir, ".");
	} else {
		if (mdir_resolve_tokenizer(&m, model) < 0)
			return -1;
		if (m.gguf) {	/* ORG/NAME:QUANT */
			r = chat_open_gguf(c, m.gguf, name);
			mdir_free(&m);
			return r;
		}
		dir = m.dir;
		m.dir = NULL;
		mdir_free(&m);
	}
	r = chat_open(c, dir, name);
	free(dir);
	return r;
}

int
chat_render(struct chat *c, const char *doc, size_t n, const char *where,
    char **out, size_t *outlen)
{
	static const struct json yes = { JSON_TRUE, 0, { 0 } };
	struct json_doc d = { 0 };
	struct jj_var *vars;
	const struct json *root, *msgs;
	char err[160];
	size_t i, nv = 0;
	int r;

	*out = NULL;
	if (json_parse(&d, doc, n, err, sizeof(err)) < 0)
		return error("%s: not a JSON conversation: %s", where, err);
	root = d.root;
	msgs = root->type == JSON_ARRAY ? root : json_get(root, "messages");
	if (root->type != JSON_ARRAY && root->type != JSON_OBJECT) {
		enum json_type t = root->type;	/* root goes with d */
		json_free(&d);
		return error("%s: a conversation is an array of messages or an object with \"messages\", not a %s",
		    where, json_typename(t));
	}
	if (!msgs || msgs->type != JSON_ARRAY) {
		json_free(&d);
		return error("%s: \"messages\" %s", where, msgs ? "is not an array" : "missing");
	}
	if (!(vars = calloc(c->ntokens + 2 + (root->type == JSON_OBJECT ? root->len : 0), sizeof(*vars)))) {
		json_free(&d);
		return error("%s: out of memory", where);
	}
	for (i = 0; i < c->ntokens; i++)
		vars[nv++] = c->tokens[i];
	vars[nv].name = "add_generation_prompt";
	vars[nv++].val = &yes;
	if (root->type == JSON_ARRAY) {
		vars[nv].name = "messages";
		vars[nv++].val = root;
	} else {
		for (i = 0; i < root->len; i++) {
			vars[nv].name = root->u.members[i].key;
			vars[nv++].val = &root->u.members[i].value;
		}
	}
	r = jj_render(c->tmpl, vars, nv, NULL, c->now, out, outlen);
	free(vars);
	json_free(&d);
	return r;
}

void
chat_free(struct chat *c)
{
	jj_free(c->tmpl);
	json_free(&c->cfg);
	free(c->path);
	memset(c, 0, sizeof(*c));
}
