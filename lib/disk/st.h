/* st.h: safetensors files, read (memory-mapped, validated) and written.
 *
 * A safetensors file is an 8-byte little-endian header length N, N bytes of
 * JSON ({"name": {"dtype": "BF16", "shape": [..], "data_offsets": [b, e]},
 * ..., "__metadata__": {"k": "v"}}), then the data area; offsets are
 * relative to the start of the data area.  A sharded checkpoint is a
 * model.safetensors.index.json whose "weight_map" names, for every tensor,
 * the file (next to the index) that holds it.
 *
 * st_open() checks everything before anyone uses a byte: header length
 * inside the file and below ST_MAXHEADER, the header JSON, known dtypes,
 * shape x element size = byte range (overflow-checked), ranges inside the
 * data area, no two tensors overlapping, __metadata__ a string map, and for
 * an index that every file and tensor it names exists and is unique. */
#ifndef ST_H
#define ST_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define ST_MAXDIM 8
#define ST_MAXHEADER (100u << 20)	/* the limit the safetensors crate uses */

enum st_dtype {
	ST_F64, ST_F32, ST_F16, ST_BF16, ST_I64, ST_I32, ST_I16, ST_I8,
	ST_U8, ST_BOOL, ST_F8_E4M3, ST_F8_E5M2,
	ST_U64, ST_U32, ST_U16, ST_F8_E8M0, ST_C64,
	ST_NDTYPE
};

struct st_tensor {
	char *name;
	enum st_dtype dtype;
	int ndim;			/* 0..ST_MAXDIM; 0 is a scalar */
	int64_t shape[ST_MAXDIM];
	size_t nel;			/* product of shape (1 for a scalar) */
	size_t nbytes;			/* nel * st_dtype_size(dtype) */
	size_t offset;			/* of the data, from the start of its file */
	const void *data;		/* into the mapping: nbytes, little-endian;
					 * aligned to the element size only if
					 * the file is (the safetensors library
					 * pads the header to 8 bytes and sorts
					 * by alignment; st_open does not
					 * insist) */
	int file;			/* index into st.files */
};

struct st_meta {			/* one __metadata__ entry */
	char *key, *value;
};

struct st {				/* one file, or all shards of an index */
	struct st_tensor *t;		/* n tensors, sorted by name (strcmp) */
	size_t n;
	char **files;			/* nfiles paths, as opened */
	size_t nfiles;
	struct st_meta *meta;		/* __metadata__ of files[0], in file order */
	size_t nmeta;
	char *index;			/* the index file's path, or NULL */
	/* private */
	struct st_map { void *base; size_t len; } *maps;	/* one per file */
};

/* path: a .safetensors file, a model.safetensors.index.json (any file whose
 * name ends in ".json" is taken as an index), or a folder holding
 * model.safetensors or else model.safetensors.index.json.  Maps and
 * validates everything; fills st and returns 0, or returns -1 after error()
 * naming the file and the problem (st is then left safe to st_close).
 * The tensors stay valid until st_close. */
int st_open(struct st *st, const char *path);
/* Unmap and free everything; accepts a zeroed or failed st. */
void st_close(struct st *st);
/* The tensor called name (binary search), or NULL. */
const struct st_tensor *st_find(const struct st *st, const char *name);
/* "BF16", "F32", ... as safetensors spells it. */
const char *st_dtype_name(enum st_dtype dt);
/* The dtype spelled name (case-sensitive, as in headers): 0 and *dt set, or
 * -1 if unknown. */
int st_dtype_parse(const char *name, enum st_dtype *dt);
/* Bytes per element (8 for C64). */
size_t st_dtype_size(enum st_dtype dt);
/* 1 for F64, F32, F16, BF16 and the F8 types, else 0. */
int st_dtype_isfloat(enum st_dtype dt);
/* Element i of t (i < t->nel) converted to double; C64 gives its real part. */
double st_elem(const struct st_tensor *t, size_t i);
/* Element i of t as text into buf (len bytes): %.9g for the float types
 * of 32 bits or less (reads back to the same float32), %.17g for F64,
 * exact decimal for integers (BOOL: 0 or 1), the real part for C64.
 * Returns what snprintf returns. */
int st_elem_fmt(const struct st_tensor *t, size_t i, char *buf, size_t len);
/* t's shape as "[d0,d1,...]" ("[]" for a scalar) into buf (len bytes,
 * ST_SHAPELEN always suffices); returns buf. */
#define ST_SHAPELEN (ST_MAXDIM * 21 + 3)
char *st_shape_fmt(const struct st_tensor *t, char *buf, size_t len);
/* Weight bytes a LLaMA forward pass reads per generated token: every
 * tensor, except that of model.embed_tokens.weight only one row counts
 * unless tied (then the whole table is read again as the output layer);
 * a pack-quantized weight's packed words, scales and zero points count,
 * its NAME.weight_shape not. */
size_t st_bytes_per_token(const struct st *st, int tied);

/* ---- statistics (st_stats.c) ---- */

struct pool;

struct st_stats {			/* over the finite elements */
	double min, max, mean, std;	/* std: population (divides by n) */
	size_t n;			/* finite elements */
	size_t nan, inf;		/* NaN and +-Inf elements */
	double m2;			/* private: sum of squared deviations */
};

/* Statistics of the elements [i0, i1) of t into s (NaN min/max/mean/std
 * when no element is finite). */
void st_stats_range(const struct st_tensor *t, size_t i0, size_t i1,
    struct st_stats *s);
/* Fold b into a (Chan et al.'s parallel update); a or b may be empty. */
void st_stats_merge(struct st_stats *a, const struct st_stats *b);
/* Statistics of t[0..n) into out[0..n), split in chunks over pool p (NULL:
 * this thread only).  The result does not depend on the thread count.
 * 0, or -1 after error() (out of memory). */
int st_stats(struct pool *p, const struct st_tensor *const *t, size_t n,
    struct st_stats *out);

/* ---- a mapped file that shrinks (st_guard.c) ---- */

/* While [base, base + len) maps path, a SIGBUS there (the file was
 * truncated under us) is met with "prog: path: the file shrank while in
 * use ..." and exit status 1.  st_open and st_close call these. */
void st_guard_add(const void *base, size_t len, const char *path);
void st_guard_drop(const void *base);
/* Map the regular file at path whole (file_map) and guard it: its bytes
 * at *base, *len of them; or -1 after error(): "path: is a directory",
 * "not a regular file", "file too short for WHAT (N bytes)" under min
 * bytes, "file too large", or the system's.  A FIFO does not block the
 * open.  Undo with st_guard_drop and munmap.  (st_open's files, and
 * gguf_open's.) */
int st_map_path(const char *path, size_t min, const char *what, void **base,
    size_t *len);

/* ---- writer (st_write.c) ---- */

struct st_wtensor {			/* a tensor to write */
	const char *name;
	enum st_dtype dtype;
	int ndim;
	int64_t shape[ST_MAXDIM];
};

/* Write a safetensors header for t[0..n) to f, with meta[0..nmeta) as
 * __metadata__ (none if nmeta is 0).  The data of t[i] is laid out in
 * order with no gaps (as the safetensors crate requires) after a header
 * padded with spaces to a multiple of 8 bytes, so every tensor is aligned
 * to its element size if t is ordered by element size, largest first.  The
 * caller then writes each tensor's data with st_write_data() in the same
 * order.  name is for messages.  0, or -1 after error() (bad shape, size
 * overflow, write error). */
int st_write_header(FILE *f, const char *name, const struct st_wtensor *t,
    size_t n, const struct st_meta *meta, size_t nmeta);
/* Write t's data (as many bytes as its shape says).  0, or -1 after
 * error() naming name. */
int st_write_data(FILE *f, const char *name, const struct st_wtensor *t,
    const void *data);
/* Bytes of t's data (before padding): 0 and *nbytes set, or -1 on a bad
 * shape or overflow (no message). */
int st_wtensor_size(const struct st_wtensor *t, size_t *nbytes);

#endif
