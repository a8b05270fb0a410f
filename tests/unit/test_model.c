/* test_model: model pieces that the golden logits do not reach. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/model.h"
#include "../../lib/util.h"
#include "test.h"



static int
close_rel(double got, double want, double tol)
{
	return fabs(got - want) <= tol * fabs(want);
}

/* Llama 3.2's rope_scaling (factor 32, low 1, high 4, original context
 * 8192, theta 500000, head_dim 64); the expected values follow
 * _compute_llama3_parameters of HF modeling_rope_utils.py, computed in
 * double: j < 16 keeps its frequency, j = 16 is in the smoothed band,
 * j >= 20 is divided by the factor. */
static void
test_rope_llama3(void)
{
	static const struct { int j; double want; } cases[] = {
		{ 0, 1.0 }, { 1, 0.6636012376960885 }, { 8, 0.03760603093086393 },
		{ 16, 0.00042955679655936815 }, { 20, 8.570255489881478e-06 },
		{ 24, 1.661967467795309e-06 }, { 28, 3.2229329303788936e-07 },
		{ 31, 9.418306725434909e-08 },
	};
	struct cfg c;
	float f[32];
	size_t i;

	memset(&c, 0, sizeof(c));
	c.rope_theta = 500000;
	strcpy(c.rope_scaling.rope_type, "llama3");
	c.rope_scaling.factor = 32;
	c.rope_scaling.low_freq_factor = 1;
	c.rope_scaling.high_freq_factor = 4;
	c.rope_scaling.original_max_position_embeddings = 8192;
	model_rope_freqs(f, &c, 64);
	for (i = 0; i < LEN(cases); i++)
		if (!close_rel(f[cases[i].j], cases[i].want, 1e-6)) {
			fprintf(stderr, "inv_freq[%d] = %.9g, want %.9g\n",
			    cases[i].j, f[cases[i].j], cases[i].want);
			fails++;
		}
	/* without scaling: theta^(-2j/hd) */
	c.rope_scaling.rope_type[0] = '\0';
	c.rope_theta = 10000;
	model_rope_freqs(f, &c, 8);
	CHECK(f[0] == 1.0f);
	CHECK(close_rel(f[1], 0.1, 1e-7));
	CHECK(close_rel(f[2], 0.01, 1e-7));
	CHECK(close_rel(f[3], 0.001, 1e-7));
}

int
main(void)
{
	argv0 = "test_model";
	test_rope_llama3();
	return test_end("test_model");
}
