/* files.c: see files.h. */
#include <string.h>

#include "files.h"
#include "util.h"

void
files_init(struct files *fl, char **paths, int n)
{
	static char *dash[] = { "-" };

	fl->paths = n ? paths : dash;
	fl->n = n ? n : 1;
	fl->i = 0;
	fl->f = NULL;
	fl->name = NULL;
	fl->failed = 0;
}

FILE *
files_next(struct files *fl)
{
	const char *path;

	files_close(fl);
	while (fl->i < fl->n) {
		path = fl->paths[fl->i++];
		if (!strcmp(path, "-")) {
			fl->name = "<stdin>";
			return fl->f = stdin;
		}
		if ((fl->f = fopen(path, "r"))) {
			fl->name = path;
			return fl->f;
		}
		warn("open %s:", path);
		fl->failed = 1;
	}
	return NULL;
}

void
files_close(struct files *fl)
{
	if (fl->f && fl->f != stdin)
		fclose(fl->f);
	fl->f = NULL;
}
