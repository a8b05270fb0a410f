/* wsrc_gguf.c: the GGUF weight source (wsrc_gguf.h).  The names are
 * llama.cpp's (src/llama-arch.cpp's LLM_TENSOR_NAMES), the layout
 * convert_hf_to_gguf.py's: a matrix of rows x cols is a tensor of dims
 * [cols, rows], its rows whole blocks of its type. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kern/ggml.h"
#include "kern/kern.h"
#include "base/util.h"
#include "wsrc/wsrc_gguf.h"

struct wsrc_gguf {
	struct wsrc src;
	struct gguf g;
	int gemma;		/* general.architecture gemma2 or gemma3 */
};

static const struct {
	const char *hf, *gguf;
} layer_names[] = {
	{ "input_layernorm", "attn_norm" },
	{ "self_attn.q_proj", "attn_q" },
	{ "self_attn.k_proj", "attn_k" },
	{ "self_attn.v_proj", "attn_v" },
	{ "self_attn.o_proj", "attn_output" },
	{ "self_attn.qkv_proj", "attn_qkv" },
	{ "self_attn.q_norm", "attn_q_norm" },
	{ "self_attn.k_norm", "attn_k_norm" },
	{ "post_attention_layernorm", "ffn_norm" },	/* Gemma: below */
	{ "pre_feedforward_layernorm", "ffn_norm" },
	{ "post_feedforward_layernorm", "post_ffw_norm" },
	{ "mlp.gate_proj", "ffn_gate" },
	{ "mlp.up_proj", "ffn_up" },
	{ "mlp.down_proj", "ffn_down" },
	{ "mlp.gate_up_proj", "ffn_up" },	/* Phi-3: gate, then up */
};

int
wsrc_gguf_name(char *b, size_t n, const char *name, int gemma)
{
	const char *suf = "", *p;
	char stem[128];
	size_t len = strlen(name), i;
	int layer, k;

	if (len >= sizeof stem)
		return -1;
	memcpy(stem, name, len + 1);
	if (len > 7 && !strcmp(stem + len - 7, ".weight"))
		stem[len - 7] = 0, suf = ".weight";
	else if (len > 5 && !strcmp(stem + len - 5, ".bias"))
		stem[len - 5] = 0, suf = ".bias";
	if (!strcmp(stem, "model.embed_tokens"))
		return snprintf(b, n, "token_embd%s", suf) < (int)n ? 0 : -1;
	if (!strcmp(stem, "model.norm"))
		return snprintf(b, n, "output_norm%s", suf) < (int)n ? 0 : -1;
	if (!strcmp(stem, "lm_head"))
		return snprintf(b, n, "output%s", suf) < (int)n ? 0 : -1;
	if (sscanf(stem, "model.layers.%d.%n", &layer, &k) != 1 || layer < 0 ||
	    !(p = stem + k, *p))
		return -1;
	for (i = 0; i < LEN(layer_names); i++)
		if (!strcmp(p, layer_names[i].hf)) {
			const char *g = layer_names[i].gguf;

			if (gemma && !strcmp(p, "post_attention_layernorm"))
				g = "post_attention_norm";
			return snprintf(b, n, "blk.%d.%s%s", layer, g, suf) <
			    (int)n ? 0 : -1;
		}
	return -1;
}

/* The GGUF tensor of HF name, checked to be rows x cols (cols 0: a
 * vector of rows); NULL after error(). */
static const struct gguf_tensor *
find(struct wsrc_gguf *s, const char *name, int rows, int cols)
{
	const struct gguf_tensor *t;
	char gn[160];
	int ok, j;

	if (wsrc_gguf_name(gn, sizeof gn, name, s->gemma) < 0) {
		error("%s: no GGUF name for tensor '%s'", s->g.path, name);
		return NULL;
	}
	if (!(t = gguf_tensor(&s->g, gn))) {
		if (cols)
			error("%s: missing tensor '%s' (expected %d rows of %d)",
			    s->g.path, gn, rows, cols);
		else
			error("%s: missing tensor '%s' (expected %d values)",
			    s->g.path, gn, rows);
		return NULL;
	}
	ok = cols ? t->dims[0] == cols && t->dims[1] == rows :
	    t->dims[0] == rows && t->dims[1] == 1;
	for (j = 2; j < GGUF_MAXDIM; j++)
		ok = ok && t->dims[j] == 1;
	if (!ok) {
		if (cols)
			error("%s: tensor '%s' has dims [%lld, %lld, %lld, %lld], "
			    "expected %d rows of %d", s->g.path, gn,
			    (long long)t->dims[0], (long long)t->dims[1],
			    (long long)t->dims[2], (long long)t->dims[3], rows,
			    cols);
		else
			error("%s: tensor '%s' has dims [%lld, %lld, %lld, %lld], "
			    "expected %d values", s->g.path, gn,
			    (long long)t->dims[0], (long long)t->dims[1],
			    (long long)t->dims[2], (long long)t->dims[3], rows);
		return NULL;
	}
	if (t->ti->wtype < 0) {
		error("%s: tensor '%s' is of ggml type %s, which pipelm does "
		    "not run yet", s->g.path, gn, t->ti->name);
		return NULL;
	}
	if (wtype_rowsize((enum wtype)t->ti->wtype, (int)t->dims[0]) !=
	    t->rowbytes) {
		error("%s: tensor '%s': rows of %s are %zu bytes, its weight "
		    "type's %zu", s->g.path, gn, t->ti->name, t->rowbytes,
		    wtype_rowsize((enum wtype)t->ti->wtype, (int)t->dims[0]));
		return NULL;
	}
	s->src.bytes += t->nbytes;
	return t;
}

static int
gguf_mat(struct wsrc *src, struct mat *w, const char *name, int rows, int cols)
{
	struct wsrc_gguf *s = (struct wsrc_gguf *)src;
	const struct gguf_tensor *t;
	char full[200];

	if (snprintf(full, sizeof full, "%s.weight", name) >= (int)sizeof full)
		return error("tensor name too long: '%s'", name);
	if (!(t = find(s, full, rows, cols)))
		return -1;
	w->w = t->data;
	w->t = (enum wtype)t->ti->wtype;
	w->rows = rows;
	w->cols = cols;
	return 0;
}

static float *
gguf_vec(struct wsrc *src, const char *name, int n)
{
	struct wsrc_gguf *s = (struct wsrc_gguf *)src;
	const struct gguf_tensor *t = find(s, name, n, 0);
	float *v;

	if (!t)
		return NULL;
	if (!(v = malloc((size_t)n * sizeof(float)))) {
		error("cannot allocate %d floats for '%s'", n, name);
		return NULL;
	}
	kern.to_f32[t->ti->wtype](v, t->data, n);
	return v;
}

static int
gguf_has(struct wsrc *src, const char *name)
{
	struct wsrc_gguf *s = (struct wsrc_gguf *)src;
	char gn[160];

	return wsrc_gguf_name(gn, sizeof gn, name, s->gemma) == 0 &&
	    gguf_tensor(&s->g, gn) != NULL;
}

static void
gguf_src_close(struct wsrc *src)
{
	struct wsrc_gguf *s = (struct wsrc_gguf *)src;

	gguf_close(&s->g);
	free(s);
}

static int
gguf_src_open(struct wsrc **src, const struct json *qc, const char *config,
    const char *path)
{
	struct wsrc_gguf *s;
	const char *a;
	size_t n;

	(void)qc, (void)config;
	*src = NULL;
	if (!(s = calloc(1, sizeof(*s))))
		return error("out of memory");
	s->src.mat = gguf_mat;
	s->src.vec = gguf_vec;
	s->src.has = gguf_has;
	s->src.part = wsrc_rows_part;
	s->src.close = gguf_src_close;
	s->src.kind = &wsrc_gguf_kind;
	s->src.norms_plus1 = 1;
	if (gguf_open(&s->g, path) < 0) {
		free(s);
		return -1;
	}
	if (gguf_get_str(&s->g, "general.architecture", &a, &n) == 0)
		s->gemma = (n == 6 && (!memcmp(a, "gemma2", 6) ||
		    !memcmp(a, "gemma3", 6)));
	*src = &s->src;
	return 0;
}

const struct gguf *
wsrc_gguf_file(const struct wsrc *src)
{
	return src && src->kind == &wsrc_gguf_kind ?
	    &((const struct wsrc_gguf *)src)->g : NULL;
}

const struct wsrc_kind wsrc_gguf_kind = {
	"gguf", "gguf", gguf_src_open, NULL, NULL,
};
