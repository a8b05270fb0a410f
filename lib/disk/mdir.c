/* mdir.c: a model folder from a path or a HuggingFace repo id.  The cache
 * layout is huggingface_hub's (file_download.py, constants.py):
 * HUB/models--ORG--NAME/{refs/main, snapshots/REV/}. */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "disk/mdir.h"
#include "base/util.h"

void
mdir_free(struct mdir *m)
{
	free(m->dir);
	free(m->config);
	free(m->genconfig);
	free(m->weights);
	free(m->tokenizer);
	memset(m, 0, sizeof(*m));
}

/* a/b (or a/b/c with c non-NULL), malloc'd; NULL after error(). */
static char *
join(const char *a, const char *b, const char *c)
{
	size_t n = strlen(a) + strlen(b) + (c ? strlen(c) + 1 : 0) + 2;
	char *p = xmalloc(n);

	if (!p)
		return NULL;
	if (c)
		snprintf(p, n, "%s/%s/%s", a, b, c);
	else
		snprintf(p, n, "%s/%s", a, b);
	return p;
}

static int
isdir(const char *p)
{
	struct stat sb;

	return stat(p, &sb) == 0 && S_ISDIR(sb.st_mode);
}

static int
isfile(const char *p)
{
	struct stat sb;

	return stat(p, &sb) == 0 && !S_ISDIR(sb.st_mode);
}

/* "ORG/NAME": two non-empty parts of safe characters. */
static int
isrepoid(const char *s)
{
	const char *slash = strchr(s, '/'), *p;

	if (!slash || slash == s || !slash[1] || strchr(slash + 1, '/'))
		return 0;
	if (*s == '.' || slash[1] == '.')
		return 0;
	for (p = s; *p; p++)
		if (!(*p == '/' || *p == '-' || *p == '_' || *p == '.' ||
		    (*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'z') ||
		    (*p >= 'A' && *p <= 'Z')))
			return 0;
	return 1;
}

/* The hub cache folder, malloc'd; NULL after error(). */
static char *
hubdir(void)
{
	const char *e;

	if ((e = getenv("HF_HUB_CACHE")) && *e)
		return xstrdup(e);
	if ((e = getenv("HF_HOME")) && *e)
		return join(e, "hub", NULL);
	if ((e = getenv("HOME")) && *e)
		return join(e, ".cache/huggingface", "hub");
	error("no HuggingFace cache: HOME is not set");
	return NULL;
}

/* The snapshot folder for repo in hub, malloc'd; NULL after error(). */
static char *
snapshot(const char *hub, const char *repo)
{
	char name[512], rev[128], *base = NULL, *snaps = NULL, *p = NULL;
	char *best = NULL;
	const char *slash = strchr(repo, '/');
	struct timespec bt = { 0, 0 };
	struct dirent *d;
	FILE *f;
	DIR *dp;

	snprintf(name, sizeof(name), "models--%.*s--%s", (int)(slash - repo),
	    repo, slash + 1);
	if (!(base = join(hub, name, NULL)))
		return NULL;
	if (!isdir(base)) {
		error("%s: not in the HuggingFace cache (%s)", repo, hub);
		goto out;
	}
	if (!(snaps = join(base, "snapshots", NULL)) ||
	    !(p = join(base, "refs", "main")))
		goto out;
	if ((f = fopen(p, "r"))) {
		size_t n = fread(rev, 1, sizeof(rev) - 1, f);

		fclose(f);
		rev[n] = 0;
		rev[strcspn(rev, "\r\n")] = 0;
		if (*rev && !strchr(rev, '/') && strcmp(rev, ".") &&
		    strcmp(rev, "..")) {
			free(p);
			if (!(p = join(snaps, rev, NULL)))
				goto out;
			if (isdir(p)) {
				best = p;
				p = NULL;
				goto out;
			}
		}
	}
	/* no usable refs/main: the newest snapshot */
	if (!(dp = opendir(snaps))) {
		error("%s: no snapshots in the HuggingFace cache (%s):", repo,
		    snaps);
		goto out;
	}
	while ((d = readdir(dp))) {
		struct stat sb;
		char *s;

		if (d->d_name[0] == '.')
			continue;
		if (!(s = join(snaps, d->d_name, NULL)))
			break;
		if (stat(s, &sb) == 0 && S_ISDIR(sb.st_mode) && (!best ||
		    sb.st_mtim.tv_sec > bt.tv_sec ||
		    (sb.st_mtim.tv_sec == bt.tv_sec &&
		    sb.st_mtim.tv_nsec > bt.tv_nsec))) {
			free(best);
			best = s;
			bt = sb.st_mtim;
		} else
			free(s);
	}
	closedir(dp);
	if (!best)
		error("%s: no snapshots in the HuggingFace cache (%s)", repo,
		    snaps);
out:
	free(p);
	free(snaps);
	free(base);
	return best;
}

/* The folder of the built-in model: BIN/../share/pipelm/stories260K,
 * BIN being the folder of the running program (the build tree and an
 * installed PREFIX have that layout alike), else the one make install
 * wrote (PIPELM_DATADIR, fixed at build time).  NULL after error(). */
static char *
builtin(void)
{
	char exe[4096], *p;

	if (exe_dir(exe, sizeof exe) == 0) {
		if (!(p = join(exe, "../share/pipelm", MDIR_BUILTIN)))
			return NULL;
		if (isdir(p))
			return p;
		free(p);
	}
	if (!(p = join(PIPELM_DATADIR, MDIR_BUILTIN, NULL)))
		return NULL;
	if (isdir(p))
		return p;
	error("no model: use -m or set PIPELM_MODEL (the built-in model %s "
	    "is not installed in %s)", MDIR_BUILTIN, PIPELM_DATADIR);
	free(p);
	return NULL;
}

/* Fill m->dir from arg (see mdir.h); 0, or -1 after error(). */
static int
finddir(struct mdir *m, const char *arg)
{
	char *hub;

	if (!arg && (!(arg = getenv("PIPELM_MODEL")) || !*arg)) {
		m->builtin = 1;
		return (m->dir = builtin()) ? 0 : -1;
	}
	if (!*arg)
		return error("no model: the model name is empty");
	if (isdir(arg))
		return (m->dir = xstrdup(arg)) ? 0 : -1;
	if (isrepoid(arg) && access(arg, F_OK) < 0) {
		if (!(hub = hubdir()))
			return -1;
		m->dir = snapshot(hub, arg);
		free(hub);
		return m->dir ? 0 : -1;
	}
	if (access(arg, F_OK) == 0)
		return error("%s: not a model folder", arg);
	return error("%s:", arg);
}

/* DIR/name in *p if it is a file, else NULL; -1 after error(). */
static int
optfile(char **p, const char *dir, const char *name)
{
	if (!(*p = join(dir, name, NULL)))
		return -1;
	if (!isfile(*p)) {
		free(*p);
		*p = NULL;
	}
	return 0;
}

static int
resolve(struct mdir *m, const char *arg, int tokenizer_only)
{
	memset(m, 0, sizeof(*m));
	if (finddir(m, arg) < 0 ||
	    optfile(&m->config, m->dir, "config.json") < 0 ||
	    optfile(&m->genconfig, m->dir, "generation_config.json") < 0 ||
	    optfile(&m->tokenizer, m->dir, "tokenizer.json") < 0 ||
	    optfile(&m->weights, m->dir, "model.safetensors") < 0 ||
	    (!m->weights && optfile(&m->weights, m->dir,
	    "model.safetensors.index.json") < 0))
		goto fail;
	if (tokenizer_only && !m->tokenizer) {
		error("%s: no tokenizer.json", m->dir);
		goto fail;
	}
	if (!tokenizer_only && !m->config) {
		error("%s: no config.json", m->dir);
		goto fail;
	}
	return 0;
fail:
	mdir_free(m);
	return -1;
}

int
mdir_resolve(struct mdir *m, const char *arg)
{
	return resolve(m, arg, 0);
}

int
mdir_resolve_tokenizer(struct mdir *m, const char *arg)
{
	return resolve(m, arg, 1);
}
