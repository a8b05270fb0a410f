/* files.c: see files.h. */
#include <sys/stat.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/files.h"
#include "base/util.h"

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
		warn("%s:", path);
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

int
files_check_output(char **paths, int n, const char *outpath, int fd)
{
	struct stat out, in;
	int i, r;

	r = outpath ? stat(outpath, &out) : fstat(fd, &out);
	if (r < 0 || !S_ISREG(out.st_mode))
		return 0;
	for (i = 0; i < (n ? n : 1); i++) {
		const char *p = n ? paths[i] : "-";

		r = strcmp(p, "-") ? stat(p, &in) : fstat(0, &in);
		if (r == 0 && S_ISREG(in.st_mode) && in.st_dev == out.st_dev &&
		    in.st_ino == out.st_ino)
			return error("%s: the output is also an input",
			    outpath ? outpath : strcmp(p, "-") ? p : "<stdin>");
	}
	return 0;
}

FILE *
outfile_open(struct outfile *o, const char *path)
{
	struct stat sb;
	const char *base = strrchr(path, '/');
	mode_t mode, mask;
	size_t dirlen = base ? (size_t)(base - path) + 1 : 0;
	int fd;

	memset(o, 0, sizeof(*o));
	if (!(o->path = xstrdup(path)))
		return NULL;
	if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode)) {
		if (!(o->f = fopen(path, "w"))) {
			error("%s:", path);
			goto fail;
		}
		return o->f;
	}
	if (!(o->tmp = xmalloc(strlen(path) + sizeof(".tmp.XXXXXX") + 1)))
		goto fail;
	/* DIR/.BASE.tmp.XXXXXX: beside the target, so rename stays on its
	 * file system; hidden, as an interrupted run may leave it */
	memcpy(o->tmp, path, dirlen);
	sprintf(o->tmp + dirlen, ".%s.tmp.XXXXXX", path + dirlen);
	/* made and registered with the signals held off, so that a signal
	 * finds it registered (and is then handled by cleanup.h) */
	cleanup_hold();
	if ((fd = mkstemp(o->tmp)) < 0) {
		cleanup_release();
		error("create a temporary file for %s:", path);
		free(o->tmp);
		o->tmp = NULL;
		goto fail;
	}
	o->slot = cleanup_add(o->tmp, 0);
	cleanup_release();
	if (o->slot < 0) {
		unlink(o->tmp);
		close(fd);
		free(o->tmp);
		o->tmp = NULL;
		goto fail;
	}
	if (stat(path, &sb) == 0) {
		mode = sb.st_mode & 07777;
	} else {
		mask = umask(0);
		umask(mask);
		mode = 0666 & ~mask;
	}
	if (fchmod(fd, mode) < 0 || !(o->f = fdopen(fd, "w"))) {
		error("%s:", o->tmp);
		close(fd);
		goto fail;
	}
	return o->f;
fail:
	outfile_close(o, 0);
	return NULL;
}

int
outfile_close(struct outfile *o, int ok)
{
	int ret = 0;

	if (o->f) {
		if (ok && (fflush(o->f) == EOF || ferror(o->f))) {
			ret = errno == EPIPE ? -1 : error("%s: write error:", o->path);
			ok = 0;
		}
		if (fclose(o->f) == EOF && ok) {
			ret = error("%s: write error:", o->path);
			ok = 0;
		}
	}
	o->f = NULL;
	if (o->tmp) {
		if (ok && rename(o->tmp, o->path) < 0) {
			ret = error("rename %s to %s:", o->tmp, o->path);
			ok = 0;
		}
		if (!ok)
			unlink(o->tmp);
		cleanup_drop(o->slot);
	}
	free(o->tmp);
	free(o->path);
	o->tmp = o->path = NULL;
	return ret;
}

/* The real path that path names or would name once made (its folder
 * must exist): malloc'd, or NULL after error(). */
static char *
wouldbe(const char *path)
{
	char *dir, *real, *r, *slash;
	size_t n = strlen(path);

	if ((real = realpath(path, NULL)))
		return real;
	if (errno != ENOENT)
		return error("%s:", path), NULL;
	while (n > 1 && path[n - 1] == '/')
		n--;
	if (!(dir = xmemdup(path, n)))
		return NULL;
	slash = strrchr(dir, '/');
	if (slash)
		*slash = 0;
	real = realpath(!slash ? "." : slash == dir ? "/" : dir, NULL);
	if (!real) {
		error("%s:", dir);
		free(dir);
		return NULL;
	}
	r = xmalloc(strlen(real) + strlen(slash ? slash + 1 : dir) + 2);
	if (r)
		sprintf(r, "%s/%s", strcmp(real, "/") ? real : "",
		    slash ? slash + 1 : dir);
	free(real);
	free(dir);
	return r;
}

int
outdir_open(struct outdir *o, const char *path, int force, const char *src)
{
	struct stat sb;
	char *real = NULL, *rsrc = NULL;
	size_t n;
	mode_t mask;

	memset(o, 0, sizeof(*o));
	o->slot = -1;
	if (src) {
		if (!(real = wouldbe(path)))
			return -1;
		if (!(rsrc = realpath(src, NULL))) {
			free(real);
			return error("%s:", src);
		}
		n = strlen(rsrc);
		if (!strncmp(real, rsrc, n) && (real[n] == 0 ||
		    real[n] == '/' || n == 1)) {
			error("%s: %s the source folder %s", path, real[n] ?
			    "lies inside" : "is", src);
			free(real);
			free(rsrc);
			return -1;
		}
		free(real);
		free(rsrc);
	}
	if (stat(path, &sb) == 0) {
		if (!S_ISDIR(sb.st_mode))
			return error("%s: exists and is not a folder", path);
		if (!force)
			return error("%s: exists (-f writes into it)", path);
		o->into = 1;
	} else if (errno != ENOENT) {
		return error("%s:", path);
	}
	if (!(o->path = xstrdup(path)))
		return -1;
	n = strlen(path);
	while (n > 1 && path[n - 1] == '/')
		n--;
	if (!(o->tmp = xmalloc(n + sizeof("/.tmp.XXXXXX") + 16)))
		goto fail;
	if (o->into) {
		/* inside the target, so that each rename stays on its
		 * file system */
		sprintf(o->tmp, "%.*s/.pipelm.tmp.XXXXXX", (int)n, path);
	} else {
		/* DIR/.BASE.tmp.XXXXXX beside the target */
		const char *b = path + n;

		while (b > path && b[-1] != '/')
			b--;
		sprintf(o->tmp, "%.*s.%.*s.tmp.XXXXXX", (int)(b - path), path,
		    (int)(path + n - b), b);
	}
	cleanup_hold();		/* as in outfile_open */
	if (!mkdtemp(o->tmp)) {
		cleanup_release();
		error("create a temporary folder for %s:", path);
		free(o->tmp);
		o->tmp = NULL;
		goto fail;
	}
	o->slot = cleanup_add(o->tmp, 1);
	cleanup_release();
	if (o->slot < 0)
		goto fail;
	/* mkdtemp's 0700 until it is the target */
	mask = umask(0);
	umask(mask);
	if (!o->into && chmod(o->tmp, 0777 & ~mask) < 0) {
		error("%s:", o->tmp);
		goto fail;
	}
	return 0;
fail:
	outdir_close(o, 0);
	return -1;
}

const char *
outdir_file(struct outdir *o, const char *name)
{
	char *p;
	int slot;

	if (!(p = xmalloc(strlen(o->tmp) + strlen(name) + 2)))
		return NULL;
	sprintf(p, "%s/%s", o->tmp, name);
	if ((slot = cleanup_add(p, 0)) < 0) {
		free(p);
		return NULL;
	}
	if (!(o->names = xreallocarray(o->names, (size_t)o->n + 1,
	    sizeof(*o->names))) ||
	    !(o->slots = xreallocarray(o->slots, (size_t)o->n + 1,
	    sizeof(*o->slots)))) {
		cleanup_drop(slot);
		free(p);
		return NULL;
	}
	o->names[o->n] = p;
	o->slots[o->n++] = slot;
	return p;
}

/* Move the files of o into the existing target, the signals held off:
 * 0, or -1 after error() at the first that failed. */
static int
movein(struct outdir *o)
{
	char *to;
	int i, ret = 0;

	cleanup_hold();
	for (i = 0; i < o->n && !ret; i++) {
		const char *name = o->names[i] + strlen(o->tmp) + 1;

		if (access(o->names[i], F_OK) < 0)
			continue;	/* not made after all */
		if (!(to = xmalloc(strlen(o->path) + strlen(name) + 2))) {
			ret = -1;
			break;
		}
		sprintf(to, "%s/%s", o->path, name);
		if (rename(o->names[i], to) < 0)
			ret = error("rename %s to %s:", o->names[i], to);
		free(to);
	}
	rmdir(o->tmp);
	cleanup_release();
	return ret;
}

int
outdir_close(struct outdir *o, int ok)
{
	int i, ret = 0;

	if (o->tmp && ok) {
		if (o->into)
			ret = movein(o);
		else if (rename(o->tmp, o->path) < 0)
			ret = error("rename %s to %s:", o->tmp, o->path);
	}
	/* what is left of the temporary folder (all of it unless moved) */
	for (i = o->n; i-- > 0;) {
		if (o->tmp)
			unlink(o->names[i]);
		cleanup_drop(o->slots[i]);
		free(o->names[i]);
	}
	if (o->tmp) {
		rmdir(o->tmp);
		cleanup_drop(o->slot);
	}
	free(o->names);
	free(o->slots);
	free(o->tmp);
	free(o->path);
	memset(o, 0, sizeof(*o));
	o->slot = -1;
	return ret;
}
