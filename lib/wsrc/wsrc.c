/* wsrc.c: the safetensors weight source. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kern/kern.h"
#include "base/util.h"
#include "wsrc/wsrc.h"

int
wsrc_st_type(enum st_dtype dt, enum wtype *t)
{
	switch (dt) {
	case ST_F32:  *t = W_F32;  return 0;
	case ST_F16:  *t = W_F16;  return 0;
	case ST_BF16: *t = W_BF16; return 0;
	default:      return -1;
	}
}

/* Find name and check it is a (rows, cols) matrix, or a vector of rows
 * when cols is 0, of a dtype the kernels read. */
static const struct st_tensor *
find(struct wsrc_st *s, const char *name, int rows, int cols)
{
	const struct st_tensor *t = st_find(&s->st, name);
	const char *const *files = (const char *const *)s->st.files;
	enum wtype wt;
	int ok;

	if (!t) {
		if (cols)
			error("%s: missing tensor '%s' (expected shape [%d, %d])",
			    files[0], name, rows, cols);
		else
			error("%s: missing tensor '%s' (expected shape [%d])",
			    files[0], name, rows);
		return NULL;
	}
	ok = cols ? t->ndim == 2 && t->shape[0] == rows && t->shape[1] == cols
	    : t->ndim == 1 && t->shape[0] == rows;
	if (!ok) {
		char got[160];
		int i, n = 0;

		for (i = 0; i < t->ndim && n < (int)sizeof(got) - 24; i++)
			n += snprintf(got + n, sizeof(got) - n, "%s%lld",
			    i ? ", " : "", (long long)t->shape[i]);
		got[n] = '\0';
		if (cols)
			error("%s: tensor '%s' has shape [%s], expected [%d, %d]",
			    files[t->file], name, got, rows, cols);
		else
			error("%s: tensor '%s' has shape [%s], expected [%d]",
			    files[t->file], name, got, rows);
		return NULL;
	}
	if (wsrc_st_type(t->dtype, &wt) < 0) {
		error("%s: tensor '%s' has dtype %s: only F32, F16 and BF16 are supported",
		    files[t->file], name, st_dtype_name(t->dtype));
		return NULL;
	}
	/* the kernels read elements in place: they must be aligned */
	if ((uintptr_t)t->data % st_dtype_size(t->dtype)) {
		error("%s: tensor '%s' is not aligned to its %zu-byte elements",
		    files[t->file], name, st_dtype_size(t->dtype));
		return NULL;
	}
	s->src.bytes += t->nbytes;
	return t;
}

static int
st_mat(struct wsrc *src, struct mat *w, const char *name, int rows, int cols)
{
	struct wsrc_st *s = (struct wsrc_st *)src;
	const struct st_tensor *t;
	char full[256];

	if (snprintf(full, sizeof(full), "%s.weight", name) >= (int)sizeof(full))
		return error("tensor name too long: '%s'", name);
	if (!(t = find(s, full, rows, cols)))
		return -1;
	wsrc_st_type(t->dtype, &w->t);
	w->w = t->data;
	w->rows = rows;
	w->cols = cols;
	return 0;
}

static float *
st_vec(struct wsrc *src, const char *name, int n)
{
	struct wsrc_st *s = (struct wsrc_st *)src;
	const struct st_tensor *t = find(s, name, n, 0);
	enum wtype wt = W_F32;
	float *v;

	if (!t)
		return NULL;
	if (!(v = malloc(n * sizeof(float)))) {
		error("cannot allocate %d floats for '%s'", n, name);
		return NULL;
	}
	wsrc_st_type(t->dtype, &wt);
	kern.to_f32[wt](v, t->data, n);
	return v;
}

static int
st_has(struct wsrc *src, const char *name)
{
	return st_find(&((struct wsrc_st *)src)->st, name) != NULL;
}

const struct st_tensor *
wsrc_tensor(const struct st *st, const char *name, const char *suffix,
    long d0, long d1, enum st_dtype dt)
{
	const struct st_tensor *t;
	char full[300];
	int ok;

	snprintf(full, sizeof(full), "%s.%s", name, suffix);
	if (!(t = st_find(st, full))) {
		error("%s: missing tensor '%s'", st->files[0], full);
		return NULL;
	}
	ok = d1 == -1 ? t->ndim == 1 && t->shape[0] == d0 :
	    t->ndim == 2 && t->shape[0] == d0 &&
	    (d1 == WSRC_ANY || t->shape[1] == d1);
	if (!ok) {
		char got[ST_SHAPELEN];

		st_shape_fmt(t, got, sizeof(got));
		if (d1 == -1)
			error("%s: tensor '%s' has shape %s, expected [%ld]",
			    st->files[t->file], full, got, d0);
		else if (d1 == WSRC_ANY)
			error("%s: tensor '%s' has shape %s, expected [%ld, groups]",
			    st->files[t->file], full, got, d0);
		else
			error("%s: tensor '%s' has shape %s, expected [%ld, %ld]",
			    st->files[t->file], full, got, d0, d1);
		return NULL;
	}
	if (dt == ST_NDTYPE ? t->dtype != ST_F32 && t->dtype != ST_F16 &&
	    t->dtype != ST_BF16 : t->dtype != dt) {
		error("%s: tensor '%s' has dtype %s, expected %s",
		    st->files[t->file], full, st_dtype_name(t->dtype),
		    dt == ST_NDTYPE ? "F32, F16 or BF16" : st_dtype_name(dt));
		return NULL;
	}
	if ((uintptr_t)t->data % st_dtype_size(t->dtype)) {
		error("%s: tensor '%s' is not aligned to its %zu-byte elements",
		    st->files[t->file], full, st_dtype_size(t->dtype));
		return NULL;
	}
	return t;
}

int
wsrc_rows_part(struct wsrc *s, struct mat *w, const struct mat *f,
    const char *name, int r0, int rows)
{
	(void)s;
	if (wtypes[f->t].indirect)	/* not rows: its source's part method */
		return error("'%s': a 4-bit matrix split by a source that "
		    "does not know its tensors", name);
	if (r0 < 0 || rows < 0 || r0 > f->rows - rows)
		return error("'%s': rows %d to %d of a matrix of %d", name, r0,
		    r0 + rows, f->rows);
	*w = (struct mat){ (const char *)f->w +
	    (size_t)r0 * wtype_rowsize(f->t, f->cols), f->t, rows, f->cols };
	return 0;
}

int
wsrc_st_open(struct wsrc_st *s, const char *path)
{
	memset(s, 0, sizeof(*s));
	s->src.mat = st_mat;
	s->src.vec = st_vec;
	s->src.has = st_has;
	s->src.part = wsrc_rows_part;
	return st_open(&s->st, path);
}

void
wsrc_st_close(struct wsrc_st *s)
{
	st_close(&s->st);
}

/* ---- the plain source as a kind (source.h) ---- */

static void
plain_close(struct wsrc *src)
{
	struct wsrc_st *s = (struct wsrc_st *)src;

	wsrc_st_close(s);
	free(s);
}

static int
plain_open(struct wsrc **src, const struct json *qc, const char *config,
    const char *path)
{
	struct wsrc_st *s;

	(void)qc, (void)config;
	*src = NULL;
	if (!(s = malloc(sizeof(*s))))
		return error("out of memory");
	if (wsrc_st_open(s, path) < 0) {
		plain_close(&s->src);
		return -1;
	}
	s->src.close = plain_close;
	s->src.kind = &wsrc_st_kind;
	*src = &s->src;
	return 0;
}

const struct wsrc_kind wsrc_st_kind = {
	"safetensors", "", plain_open, NULL, NULL,
};

const struct st_tensor *
wsrc_find(const struct st *st, const char *base, const char *suffix)
{
	char name[544];

	if ((size_t)snprintf(name, sizeof(name), "%s.%s", base, suffix) >=
	    sizeof(name))
		return NULL;
	return st_find(st, name);
}

int
wsrc_stem(char *b, size_t n, const char *name, const char *suffix)
{
	size_t ln = strlen(name), ls = strlen(suffix);

	if (ln <= ls || strcmp(name + ln - ls, suffix) || ln - ls >= n)
		return 0;
	memcpy(b, name, ln - ls);
	b[ln - ls] = '\0';
	return 1;
}
