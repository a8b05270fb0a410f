/* fuzz/st.c: a safetensors file of any bytes.  What st_open accepts must
 * be safe to read whole: every element of every tensor is inside the
 * mapping (ASan sees the mapping's end as the end of the file's pages,
 * so the harness also checks each range against the file size). */
#include "fuzz.h"
#include "../../lib/disk/st.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct st st = { 0 };
	struct st_stats s;
	char buf[ST_SHAPELEN];
	const char *path = fuzz_file(0, ".safetensors", data, size);
	size_t i, j;

	if (!path)
		return 0;
	if (st_open(&st, path) == 0) {
		for (i = 0; i < st.n; i++) {
			const struct st_tensor *t = &st.t[i];

			FUZZ_ASSERT(t->offset <= size &&
			    t->nbytes <= size - t->offset);
			FUZZ_ASSERT((const char *)t->data ==
			    (const char *)st.maps[t->file].base + t->offset);
			FUZZ_ASSERT(st_find(&st, t->name) == t);
			st_shape_fmt(t, buf, sizeof buf);
			for (j = 0; j < t->nel && j < 64; j++)
				st_elem_fmt(t, j, buf, sizeof buf);
			if (t->nel)
				(void)st_elem(t, t->nel - 1);
			st_stats_range(t, 0, t->nel, &s);
		}
		(void)st_bytes_per_token(&st, 0);
		(void)st_bytes_per_token(&st, 1);
	}
	st_close(&st);
	return 0;
}
