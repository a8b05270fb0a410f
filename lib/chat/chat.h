/* chat.h: a model folder's chat template and the rendering of one
 * conversation, as transformers' apply_chat_template does it.
 *
 * The template is DIR/chat_template.jinja if present, else the
 * chat_template of DIR/tokenizer_config.json: a string, or a list of
 * {"name", "template"} of which NAME (default "default") is taken.  The
 * special tokens of tokenizer_config.json (bos_token, eos_token,
 * unk_token, pad_token; a string or an {"content": ...} object) are
 * template variables, as transformers passes them.
 *
 * A conversation is one JSON document: an array of messages ({"role",
 * "content", ...}), or an object holding "messages" and any other
 * variables the template reads (add_generation_prompt, enable_thinking,
 * tools, date_string, ...), which win over the special tokens.
 * add_generation_prompt is true unless the conversation says otherwise. */
#ifndef CHAT_H
#define CHAT_H

#include <stddef.h>
#include <time.h>

#include "chat/jinja.h"
#include "base/json.h"

#define CHAT_NTOKENS 4

struct chat {
	struct jj_tmpl *tmpl;
	struct json_doc cfg;		/* tokenizer_config.json, root NULL if absent */
	struct jj_var tokens[CHAT_NTOKENS]; /* special tokens found */
	size_t ntokens;
	char *path;			/* where the template was read, for messages */
	time_t now;			/* for strftime_now; -1: the current time */
};

/* Find and parse the chat template of folder dir; name selects one of a
 * list of named templates (NULL: "default").  0, or -1 after error()
 * ("DIR: no chat template (no chat_template.jinja, ...)", a syntax
 * error with its line, ...); c is then safe to chat_free. */
int chat_open(struct chat *c, const char *dir, const char *name);
/* The same for the folder of file (a tokenizer.json) if not NULL, else
 * of model (a folder or ORG/NAME, see mdir.h; NULL: $PIPELM_MODEL), the
 * way tok_open finds a tokenizer. */
int chat_open_model(struct chat *c, const char *model, const char *file, const char *name);
/* Render the conversation doc[0..n) (one JSON document); where names it
 * in messages ("<stdin>: record 3").  On success *out is a malloc'd
 * string of *outlen bytes the caller frees; 0, or -1 after error(). */
int chat_render(struct chat *c, const char *doc, size_t n, const char *where,
    char **out, size_t *outlen);
/* Release c; accepts a zeroed or failed c. */
void chat_free(struct chat *c);

#endif
