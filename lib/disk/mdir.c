/* mdir.c: a model folder from a path or a HuggingFace repo id.  The cache
 * layout is huggingface_hub's (file_download.py, constants.py):
 * HUB/models--ORG--NAME/{refs/main, snapshots/REV/}. */
#include <sys/stat.h>

#include <ctype.h>
#include <dirent.h>
#include <strings.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "disk/gguf.h"
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
	free(m->gguf);
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

/* "ORG/NAME" as the Hub has them (huggingface_hub's validate_repo_id, as
 * llm-fetch checks it): each part letters, digits, "_", "-" and ".",
 * beginning and ending with a letter, a digit or "_", the name at most
 * 96; no ".." and no "--" (models--a--b--c would be both a--b/c and
 * a/b--c); not ending in ".git". */
static int
isidpart(const char *s, size_t n)
{
	size_t i;

	if (n == 0 || s[0] == '.' || s[0] == '-' || s[n - 1] == '.' ||
	    s[n - 1] == '-')
		return 0;
	for (i = 0; i < n; i++) {
		char c = s[i];

		if (!(c == '-' || c == '_' || c == '.' || (c >= '0' && c <= '9') ||
		    (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')))
			return 0;
		if (i > 0 && (c == '-' || c == '.') && s[i - 1] == c)
			return 0;
	}
	return 1;
}

static int
isrepoid(const char *s)
{
	const char *slash = strchr(s, '/');
	size_t n;

	if (!slash || !isidpart(s, (size_t)(slash - s)))
		return 0;
	n = strlen(slash + 1);
	if (n > 96 || !isidpart(slash + 1, n))
		return 0;
	return !(n >= 4 && !strcmp(slash + 1 + n - 4, ".git"));
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

/* ---- GGUF files ---- */

static int
endswith_ci(const char *s, const char *suf)
{
	size_t n = strlen(s), k = strlen(suf);

	return n >= k && !strcasecmp(s + n - k, suf);
}

/* Whether file name f carries quant (case-insensitive) followed by '.'
 * or '-', as llama.cpp's -hf matches its tag, and is a model: not a
 * projector or importance matrix, not a shard after the first. */
static int
quant_match(const char *f, const char *quant)
{
	size_t n = strlen(quant), i;
	const char *p;

	if (!endswith_ci(f, ".gguf") || strstr(f, "mmproj") ||
	    strstr(f, "imatrix"))
		return 0;
	if ((p = strstr(f, "-of-")) && p - f >= 6 && p[-6] == '-' &&
	    strncmp(p - 5, "00001", 5))
		return 0;
	for (p = f; *p; p++) {
		for (i = 0; i < n && p[i] &&
		    tolower((unsigned char)p[i]) == tolower((unsigned char)quant[i]);
		    i++)
			;
		if (i == n && (p[n] == '.' || p[n] == '-'))
			return 1;
	}
	return 0;
}

/* The GGUF files of folder dir (and of its folders, depth levels more)
 * matching quant: the first in name order into *best; the names of all
 * of them (matching or not) onto list, for a message. */
static void
scan_gguf(const char *dir, const char *rel, const char *quant, int depth,
    char **best, struct buf *list)
{
	struct dirent *d;
	DIR *dp;
	char *p, *r;

	if (!(dp = opendir(dir)))
		return;
	while ((d = readdir(dp))) {
		if (d->d_name[0] == '.' || !(p = join(dir, d->d_name, NULL)))
			continue;
		r = *rel ? join(rel, d->d_name, NULL) : xstrdup(d->d_name);
		if (r && isdir(p) && depth > 0)
			scan_gguf(p, r, quant, depth - 1, best, list);
		else if (r && endswith_ci(d->d_name, ".gguf")) {
			buf_printf(list, "%s%s", list->len ? ", " : "", r);
			if (quant_match(d->d_name, quant) &&
			    (!*best || strcmp(p, *best) < 0)) {
				free(*best);
				*best = p;
				p = NULL;
			}
		}
		free(r);
		free(p);
	}
	closedir(dp);
}

/* ORG/NAME:QUANT: the cached repository's GGUF file for quant. */
static int
find_quant(struct mdir *m, const char *arg)
{
	const char *colon = strrchr(arg, ':');
	char *repo, *hub, *snap;
	struct buf list = { 0 };
	int ret = -1;

	if (!(repo = xmemdup(arg, (size_t)(colon - arg))))
		return -1;
	if (!(hub = hubdir())) {
		free(repo);
		return -1;
	}
	snap = snapshot(hub, repo);
	free(hub);
	if (snap) {
		scan_gguf(snap, "", colon + 1, 2, &m->gguf, &list);
		if (m->gguf) {
			m->dir = snap;
			snap = NULL;
			ret = 0;
		} else if (list.len)
			error("%s: no GGUF file for %s in %s (it has %s)", arg,
			    colon + 1, repo, list.s);
		else
			error("%s: %s has no GGUF files (%s)", arg, repo, snap);
	}
	buf_free(&list);
	free(snap);
	free(repo);
	return ret;
}

/* Whether arg is ORG/NAME:QUANT. */
static int
isquant(const char *arg)
{
	const char *colon = strrchr(arg, ':');
	char repo[512];
	const char *q;

	if (!colon || colon == arg || !colon[1] ||
	    (size_t)(colon - arg) >= sizeof repo)
		return 0;
	for (q = colon + 1; *q; q++)
		if (!isalnum((unsigned char)*q) && *q != '_' && *q != '-')
			return 0;
	memcpy(repo, arg, (size_t)(colon - arg));
	repo[colon - arg] = 0;
	return isrepoid(repo);
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
	if (isfile(arg) && (endswith_ci(arg, ".gguf") || gguf_probe(arg)))
		return (m->gguf = xstrdup(arg)) && (m->dir = path_dir(arg)) ?
		    0 : -1;
	if (isquant(arg) && access(arg, F_OK) < 0)
		return find_quant(m, arg);
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
	if (finddir(m, arg) < 0)
		goto fail;
	if (m->gguf) {		/* the file is the model, its tokenizer
				 * too (tok_open reads its metadata) */
		if (optfile(&m->tokenizer, m->dir, "tokenizer.json") < 0)
			goto fail;
		return 0;
	}
	if (
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
