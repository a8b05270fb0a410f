/* files.c: see files.h. */
#include <sys/stat.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
			error("open %s:", path);
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
	if ((fd = mkstemp(o->tmp)) < 0) {
		error("create a temporary file for %s:", path);
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
		error("open %s:", o->tmp);
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
			ret = errno == EPIPE ? -1 : error("write %s:", o->path);
			ok = 0;
		}
		if (fclose(o->f) == EOF && ok) {
			ret = error("close %s:", o->path);
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
	}
	free(o->tmp);
	free(o->path);
	o->tmp = o->path = NULL;
	return ret;
}
