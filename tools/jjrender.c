/* jjrender: render a Jinja template over JSON variables (tests only).
 *
 * usage: jjrender template-file < variables
 * Each input line is a JSON object whose members are the variables; for
 * each, the rendering is written followed by a NUL byte, or "<error>"
 * and a NUL when the template fails (the message on stderr).  strftime_now
 * sees $SOURCE_DATE_EPOCH if set.  Exit 1 if any line failed.
 * tests/jinja-check.js writes the same from @huggingface/jinja. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/chat/jinja.h"
#include "../lib/base/json.h"
#include "../lib/base/util.h"

#define MAXLINE ((size_t)16 << 20)

int
main(int argc, char *argv[])
{
	struct jj_tmpl *t;
	struct json_doc d;
	struct jj_var *vars;
	const struct json *root;
	char *line = NULL, *src, *out, err[160];
	size_t cap = 0, n, i, len;
	ssize_t got;
	time_t now = -1;
	FILE *f;
	int ret = 0;

	argv0 = argv[0];
	if (argc != 2) {
		fprintf(stderr, "usage: %s template-file < variables\n", argv0);
		return 2;
	}
	if (getenv("SOURCE_DATE_EPOCH"))
		now = (time_t)estrtonum(getenv("SOURCE_DATE_EPOCH"), 0, 1LL << 40, "SOURCE_DATE_EPOCH");
	if (!(f = fopen(argv[1], "rb")))
		die("open %s:", argv[1]);
	src = emalloc(MAXLINE);
	n = fread(src, 1, MAXLINE, f);
	fclose(f);
	if (jj_parse(&t, src, n, argv[1]) < 0)
		return 1;
	free(src);
	while ((got = getline(&line, &cap, stdin)) > 0) {
		if (json_parse(&d, line, got, err, sizeof(err)) < 0)
			die("<stdin>: %s", err);
		root = d.root;
		if (root->type != JSON_OBJECT)
			die("<stdin>: not an object");
		vars = ecalloc(root->len + 1, sizeof(*vars));
		for (i = 0; i < root->len; i++) {
			vars[i].name = root->u.members[i].key;
			vars[i].val = &root->u.members[i].value;
		}
		if (jj_render(t, vars, root->len, NULL, now, &out, &len) < 0) {
			fputs("<error>", stdout);
			ret = 1;
		} else {
			fwrite(out, 1, len, stdout);
			free(out);
		}
		putchar('\0');
		free(vars);
		json_free(&d);
	}
	free(line);
	jj_free(t);
	return ret | fshut(stdout, "<stdout>");
}
