/* fuzz/gguf.c: a GGUF file of any bytes.  What gguf_open accepts must be
 * safe to read whole: every tensor's data inside the file, every value
 * readable through the accessors and the iterator, its text made. */
#include "fuzz.h"
#include "../../lib/disk/gguf.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gguf g = { 0 };
	struct buf b = { 0 };
	const char *path = fuzz_file(0, ".gguf", data, size);
	const unsigned char *end;
	size_t i;

	if (!path)
		return 0;
	if (gguf_open(&g, path) == 0) {
		end = g.base + g.len;
		for (i = 0; i < g.nkv; i++) {
			const struct gguf_kv *kv = &g.kv[i];
			struct gguf_val e;
			struct gguf_it it;
			const char *s;
			size_t len;
			int64_t n;
			double d;
			int bo;

			FUZZ_ASSERT(gguf_find(&g, kv->key) == kv);
			FUZZ_ASSERT(kv->v.p >= g.base && kv->v.size <=
			    (size_t)(end - kv->v.p));
			gguf_type_fmt(&b, &kv->v);
			gguf_val_fmt(&b, &kv->v, 16);
			(void)gguf_get_str(&g, kv->key, &s, &len);
			(void)gguf_get_int(&g, kv->key, 0, 100, &n);
			(void)gguf_get_float(&g, kv->key, &d);
			(void)gguf_get_bool(&g, kv->key, &bo);
			if (kv->v.type != GGUF_ARR)
				continue;
			for (gguf_it_init(&it, &kv->v); gguf_it_next(&it, &e);)
				FUZZ_ASSERT(e.p >= g.base && e.size <=
				    (size_t)(end - e.p));
			if (kv->v.n) {
				gguf_arr_at(&kv->v, kv->v.n - 1, &e);
				FUZZ_ASSERT(e.p + e.size == kv->v.p + kv->v.size);
			}
			buf_free(&b);
		}
		buf_free(&b);
		for (i = 0; i < g.n; i++) {
			const struct gguf_tensor *t = &g.t[i];

			FUZZ_ASSERT(gguf_tensor(&g, t->name) == t);
			FUZZ_ASSERT(t->offset <= size &&
			    t->nbytes <= size - t->offset);
			FUZZ_ASSERT(t->offset % g.alignment == 0);
			FUZZ_ASSERT(t->nbytes == t->rowbytes * (t->nel /
			    (size_t)t->dims[0]));
		}
	}
	gguf_close(&g);
	return 0;
}
