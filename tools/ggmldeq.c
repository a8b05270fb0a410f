/* ggmldeq: blocks of one of ggml's types on stdin, their weights as
 * float32 (little-endian) on stdout, dequantized by libcore's kernel
 * table (PIPELM_KERNEL picks it): the tests compare them with what
 * llama.cpp's own dequantization writes (llama-quantize
 * --allow-requantize ... F32).  Not installed.
 *
 * usage: ggmldeq TYPE < blocks > floats */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include "../lib/kern/ggml.h"
#include "../lib/kern/kern.h"
#include "../lib/base/util.h"

int
main(int argc, char *argv[])
{
	const struct ggml_type_info *g = NULL;
	unsigned char blk[512];
	float y[256];
	uint32_t k;
	size_t got;

	argv0 = argv[0];
	for (k = 0; argc == 2 && k < GGML_NTYPES; k++)
		if ((g = ggml_type(k)) && g->wtype >= 0 && g->block > 1 &&
		    !strcasecmp(g->name, argv[1]))
			break;
	if (argc != 2 || k == GGML_NTYPES) {
		fprintf(stderr, "usage: %s type < blocks > floats\n", argv0);
		return 2;
	}
	if (kern_init(getenv("PIPELM_KERNEL")) < 0)
		return 1;
	while ((got = fread(blk, 1, (size_t)g->bytes, stdin)) ==
	    (size_t)g->bytes) {
		kern.to_f32[g->wtype](y, blk, (size_t)g->block);
		if (fwrite(y, sizeof *y, (size_t)g->block, stdout) !=
		    (size_t)g->block)
			die("<stdout>: write error");
	}
	if (got || ferror(stdin))
		die("<stdin>: %s", ferror(stdin) ? "read error" :
		    "a partial block at the end");
	return fshut(stdout, "<stdout>");
}
