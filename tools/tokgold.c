/* tokgold: the texts or the ids of a tokenizer golden file, for the tests.
 *
 * usage: tokgold text|ids file.jsonl
 * Each line of the file is {"text": "...", "ids": [...]}.  "text" writes
 * the texts, each followed by a NUL byte (tok-encode -0 input); "ids"
 * writes the ids as token records, one line each. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/base/json.h"
#include "../lib/base/util.h"

int
main(int argc, char *argv[])
{
	char *line = NULL, err[128];
	size_t cap = 0, i;
	ssize_t len;
	unsigned long no = 0;
	int text;
	FILE *f;

	argv0 = argv[0];
	if (argc != 3 || (strcmp(argv[1], "text") && strcmp(argv[1], "ids")))
		edie(2, "usage: tokgold text|ids file.jsonl");
	text = !strcmp(argv[1], "text");
	if (!(f = fopen(argv[2], "r")))
		die("open %s:", argv[2]);
	while ((len = getline(&line, &cap, f)) > 0) {
		struct json_doc doc = { 0 };
		const struct json *t, *ids;
		no++;
		if (json_parse(&doc, line, len, err, sizeof err) < 0)
			die("%s: line %lu: %s", argv[2], no, err);
		t = json_get(doc.root, "text");
		ids = json_get(doc.root, "ids");
		if (!json_str(t) || !ids || ids->type != JSON_ARRAY)
			die("%s: line %lu: no text or ids", argv[2], no);
		if (text) {
			fwrite(t->u.str, 1, t->len, stdout);
			putchar(0);
		} else {
			for (i = 0; i < ids->len; i++) {
				long long id;
				if (json_int(&ids->u.items[i], 0, 0x7fffffff, &id) < 0)
					die("%s: line %lu: bad id", argv[2], no);
				printf(i ? " %lld" : "%lld", id);
			}
			putchar('\n');
		}
		json_free(&doc);
	}
	if (ferror(f))
		die("%s: read:", argv[2]);
	fclose(f);
	free(line);
	return fshut(stdout, "<stdout>");
}
