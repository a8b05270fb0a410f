/* tokopt.c: see tokopt.h. */
#include "opt/tokopt.h"
#include "base/util.h"

void
tokopt_init(struct tokopt *to)
{
	to->model = to->file = NULL;
	to->verbose = 0;
}

int
tokopt_parse(struct tokopt *to, int c, const char *arg)
{
	switch (c) {
	case 'm':
		to->model = arg;
		break;
	case TOPT_TOKENIZER:
		to->file = arg;
		break;
	case 'v':
		to->verbose = 1;
		return 1;
	default:
		return 0;
	}
	if (to->model && to->file)
		return error("-m and --tokenizer exclude each other");
	return 1;
}

int
tokopt_open(struct tok *t, const struct tokopt *to)
{
	if (tok_open(t, to->model, to->file) < 0)
		return -1;
	if (to->verbose)
		warn("tokenizer %s%s", t->path, t->builtin ?
		    " (the built-in model's)" : "");
	return 0;
}
