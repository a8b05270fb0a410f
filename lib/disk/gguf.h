/* gguf.h: GGUF files (ggml's container, llama.cpp's models), read
 * memory-mapped and validated.
 *
 * A GGUF file (ggml's docs/gguf.md, versions 2 and 3; all little-endian)
 * is the magic "GGUF", a u32 version, a u64 tensor count and a u64
 * metadata count; the metadata, each a key (a string: u64 length and
 * bytes), a u32 value type and the value (arrays: a u32 element type, a
 * u64 count and the elements, arrays of arrays too); the tensor infos,
 * each a name, a u32 dimension count, that many u64 dimensions
 * (innermost first: dims[0] is the row length), a u32 ggml type and a
 * u64 offset into the data section; padding to general.alignment (a u32
 * power of two, 32 when absent); the data section.
 *
 * gguf_open() checks everything before anyone uses a byte: counts and
 * string lengths against the bytes left in the file, known value types,
 * bool values 0 or 1, arrays nested at most GGUF_MAXDEPTH deep, keys and
 * tensor names non-empty, without NUL and unique; the alignment; for
 * each tensor 1 to GGUF_MAXDIM dimensions, each positive and their
 * product overflow-checked, a ggml type the table of kern/ggml.h knows
 * (named in the message when not), rows a whole number of its blocks,
 * its bytes overflow-checked, its offset aligned and its data inside the
 * data section, no two tensors sharing a byte. */
#ifndef GGUF_H
#define GGUF_H

#include <stddef.h>
#include <stdint.h>

#include "base/util.h"
#include "kern/ggml.h"

#define GGUF_MAXDIM 4		/* ggml's GGML_MAX_DIMS */
#define GGUF_MAXDEPTH 8		/* arrays in arrays */
#define GGUF_MAXNAME 1024	/* bytes of a tensor name */
#define GGUF_MAXKEY 65535	/* bytes of a key (docs/gguf.md) */
#define GGUF_ALIGNMENT 32	/* general.alignment's default */

enum gguf_vtype {		/* docs/gguf.md's gguf_metadata_value_type */
	GGUF_U8 = 0, GGUF_I8 = 1, GGUF_U16 = 2, GGUF_I16 = 3, GGUF_U32 = 4,
	GGUF_I32 = 5, GGUF_F32 = 6, GGUF_BOOL = 7, GGUF_STR = 8, GGUF_ARR = 9,
	GGUF_U64 = 10, GGUF_I64 = 11, GGUF_F64 = 12,
	GGUF_NVTYPE
};

struct gguf_val {		/* a value, in the mapping */
	enum gguf_vtype type;
	enum gguf_vtype atype;	/* GGUF_ARR: the elements' type */
	uint64_t n;		/* GGUF_STR: bytes; GGUF_ARR: elements */
	const unsigned char *p;	/* GGUF_STR: the bytes (no NUL after
				 * them); GGUF_ARR: the first element;
				 * else the value (little-endian,
				 * unaligned) */
	size_t size;		/* bytes from p to the value's end */
};

struct gguf_kv {
	char *key;		/* NUL-terminated */
	struct gguf_val v;
};

struct gguf_tensor {
	char *name;		/* NUL-terminated */
	uint32_t type;		/* ggml's type number (kern/ggml.h) */
	const struct ggml_type_info *ti;	/* its row: never NULL */
	int ndim;		/* 1..GGUF_MAXDIM */
	int64_t dims[GGUF_MAXDIM];	/* innermost first; 1 past ndim */
	size_t nel;		/* product of dims */
	size_t rowbytes;	/* bytes of a row of dims[0] elements */
	size_t nbytes;		/* of the data: nel / block * bytes */
	size_t offset;		/* of the data, from the start of the file */
	const void *data;	/* into the mapping, nbytes */
};

struct gguf {
	char *path;		/* as opened */
	uint32_t version;	/* 2 or 3 */
	size_t alignment;	/* general.alignment, or 32 */
	struct gguf_kv *kv;	/* nkv, in file order */
	size_t nkv;
	struct gguf_tensor *t;	/* n, in file order */
	size_t n;
	size_t dataoff;		/* the data section's start in the file */
	const unsigned char *base;	/* the mapping, len bytes */
	size_t len;
	/* private: indices sorted by key and by name, for lookups */
	size_t *kvsort, *tsort;
};

/* 1 if the file at path starts with GGUF's magic, else 0 (also when it
 * cannot be read: gguf_open says why). */
int gguf_probe(const char *path);
/* Map and validate the GGUF file at path: fills g and returns 0, or
 * returns -1 after error() naming the file and the problem (g is then
 * safe to gguf_close).  Everything stays valid until gguf_close. */
int gguf_open(struct gguf *g, const char *path);
/* Unmap and free; accepts a zeroed or failed g. */
void gguf_close(struct gguf *g);

/* The metadata entry key, or NULL (binary search). */
const struct gguf_kv *gguf_find(const struct gguf *g, const char *key);
/* The tensor called name, or NULL (binary search). */
const struct gguf_tensor *gguf_tensor(const struct gguf *g, const char *name);

/* Typed reads of the metadata entry key: 0 and *out set; 1 when there is
 * no such key (*out untouched); -1 after error("PATH: KEY: ...") when its
 * type or value does not fit:
 * - str: a string (s points into the mapping, len bytes, no NUL);
 * - int: any integer type (not bool) with a value in [min, max];
 * - float: F32 or F64 (or an integer type, as ggml's readers do not
 *   accept but its writers' users write), finite;
 * - bool: a bool (0 or 1);
 * - arr: an array whose elements are of type atype (GGUF_NVTYPE: any). */
int gguf_get_str(const struct gguf *g, const char *key, const char **s,
    size_t *len);
int gguf_get_int(const struct gguf *g, const char *key, int64_t min,
    int64_t max, int64_t *out);
int gguf_get_float(const struct gguf *g, const char *key, double *out);
int gguf_get_bool(const struct gguf *g, const char *key, int *out);
int gguf_get_arr(const struct gguf *g, const char *key, enum gguf_vtype atype,
    struct gguf_val *out);

/* A value's number: 0 and *out set, or -1 (no message) when v is not of
 * an integer type (bool counts as one here) or, for U64, above
 * INT64_MAX. */
int gguf_val_int(const struct gguf_val *v, int64_t *out);
/* A value of a number type (integers, bool, F32, F64) as a double: 0,
 * or -1 (no message) for a string or an array. */
int gguf_val_float(const struct gguf_val *v, double *out);
/* Element i (< arr->n) of array arr into *out: constant time for fixed
 * sizes, a walk from the start for strings and arrays (use the iterator
 * to go through those). */
void gguf_arr_at(const struct gguf_val *arr, uint64_t i, struct gguf_val *out);

/* The elements of an array in order:
 *	struct gguf_it it; struct gguf_val e;
 *	for (gguf_it_init(&it, &arr); gguf_it_next(&it, &e); ) ... */
struct gguf_it {
	const struct gguf_val *arr;
	uint64_t i;
	const unsigned char *p;
};
void gguf_it_init(struct gguf_it *it, const struct gguf_val *arr);
int gguf_it_next(struct gguf_it *it, struct gguf_val *out);	/* 1, or 0 at the end */

/* Weight bytes a forward pass reads per token, by llama.cpp's names:
 * every tensor, but of token_embd.weight one row unless there is no
 * output.weight (tied: the table is read whole as the classifier). */
size_t gguf_bytes_per_token(const struct gguf *g);

/* "u32", "str", "arr", ... as gguf-py names them ("?" for others). */
const char *gguf_vtype_name(enum gguf_vtype t);
/* v as text onto b: numbers as read back (%.9g for F32, %.17g for F64),
 * bools true/false, strings JSON-quoted, arrays as [a, b, ...] with at
 * most maxn elements of each shown and "... (N more)" after them. */
void gguf_val_fmt(struct buf *b, const struct gguf_val *v, size_t maxn);
/* The type of an array as text ("arr[str,151936]", "arr[arr[i32,2],3]")
 * or of a value ("u32") onto b. */
void gguf_type_fmt(struct buf *b, const struct gguf_val *v);

#endif
