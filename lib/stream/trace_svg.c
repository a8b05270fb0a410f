/* trace_svg.c: llm-trace's pictures (trace.h) as plain SVG 1.1: the
 * logit-lens grid (layers x positions, the last layer on top, each cell
 * the lens's top token shaded by its probability) and a head's
 * attention pattern (queries x keys).  Each cell has a <title>, which a
 * browser shows on hover. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/util.h"
#include "model/model.h"
#include "stream/trace.h"

#define CW 64		/* lens cell */
#define CH 22
#define AC 20		/* attention cell */
#define LM 120		/* left margin: layer and query labels */
#define MAXCP 8		/* characters of a label */

/* s[0..n) as XML text: valid UTF-8 kept but controls, invalid bytes
 * and what XML escapes; at most max characters, then an ellipsis. */
static void
xml_text(FILE *f, const char *s, size_t n, int max)
{
	const unsigned char *p = (const unsigned char *)s, *e = p + n;
	int cp = 0, k, i;

	while (p < e) {
		if (cp++ == max) {
			fputs("\xe2\x80\xa6", f);
			return;
		}
		k = *p < 0x80 ? 1 : (*p & 0xe0) == 0xc0 ? 2 :
		    (*p & 0xf0) == 0xe0 ? 3 : (*p & 0xf8) == 0xf0 ? 4 : 0;
		for (i = 1; k > 1 && i < k; i++)
			if (p + i >= e || (p[i] & 0xc0) != 0x80)
				k = 0;
		if (k == 2 && *p < 0xc2)
			k = 0;		/* overlong */
		if (!k || *p < 0x20 || *p == 0x7f) {
			fputc('?', f);
			p++;
			continue;
		}
		if (*p == '&')
			fputs("&amp;", f);
		else if (*p == '<')
			fputs("&lt;", f);
		else if (*p == '>')
			fputs("&gt;", f);
		else if (*p == '"')
			fputs("&quot;", f);
		else
			fwrite(p, 1, (size_t)k, f);
		p += k;
	}
}

/* Token id's label: its piece, or the id. */
static void
label(FILE *f, const struct tok *t, int id, int max)
{
	size_t n;
	const char *s = t ? tok_piece(t, id, &n) : NULL;

	if (s)
		xml_text(f, s, n, max);
	else
		fprintf(f, "%d", id);
}

/* The fill of probability p: white to a deep blue. */
static void
shade(FILE *f, double p)
{
	p = p < 0 || p != p ? 0 : p > 1 ? 1 : p;
	fprintf(f, "rgb(%d,%d,%d)", (int)lround(255 - p * (255 - 33)),
	    (int)lround(255 - p * (255 - 102)), (int)lround(255 - p * (255 - 172)));
}

int
trace_svg(const struct trace *tr, const struct tok *t, FILE *f,
    const char *fname)
{
	const struct model *m = tr->m;
	int nl = tr->l1 - tr->l0, n = tr->n1, l, r, w, h, y0, H;
	const struct trace_keep *k = NULL;
	int katt = 0;

	if (tr->head_l >= 0)
		k = &tr->keep[(size_t)TAP_PATTERN *
		    (m->cfg.num_hidden_layers + 1) + tr->head_l + 1];
	katt = k && k->rows >= (size_t)n && n > 0;
	w = LM + n * CW + 20;
	h = 40 + nl * CH + 40;
	y0 = h;
	if (katt) {
		w = w > LM + n * AC + 20 ? w : LM + n * AC + 20;
		h += 40 + n * AC + 70;
	}
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	    "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" "
	    "width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
	    "font-family=\"monospace\" font-size=\"11\">\n"
	    "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
	    "<text x=\"%d\" y=\"20\" font-size=\"14\">logit lens: the top "
	    "token of each layer's output, shaded by its probability</text>\n",
	    w, h, w, h, LM);
	for (l = tr->l1 - 1; l >= tr->l0; l--) {
		int y = 40 + (tr->l1 - 1 - l) * CH;

		fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">layer "
		    "%d</text>\n", LM - 6, y + 15, l);
		for (r = 0; r < n; r++) {
			const double *c = tr->tab1 + ((size_t)r * nl + l - tr->l0) *
			    TR_NCOLS;
			int id = (int)c[TR_LENS_ID];

			fprintf(f, "<g><title>layer %d, position %d: ", l,
			    tr->pos01 + r);
			label(f, t, id, 64);
			fprintf(f, " (%d), p %.4f</title><rect class=\"cell\" "
			    "x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"",
			    id, c[TR_LENS_P], LM + r * CW, y, CW, CH);
			shade(f, c[TR_LENS_P]);
			fprintf(f, "\" stroke=\"#ddd\"/><text x=\"%d\" y=\"%d\" "
			    "text-anchor=\"middle\" fill=\"%s\">", LM + r * CW +
			    CW / 2, y + 15, c[TR_LENS_P] > 0.6 ? "white" : "black");
			label(f, t, id, MAXCP);
			fputs("</text></g>\n", f);
		}
	}
	/* the input tokens under their columns */
	for (r = 0; r < n; r++) {
		fprintf(f, "<text class=\"input\" x=\"%d\" y=\"%d\" "
		    "text-anchor=\"middle\" font-weight=\"bold\">", LM + r * CW +
		    CW / 2, 40 + nl * CH + 16);
		label(f, t, tr->ids1[r], MAXCP);
		fputs("</text>\n", f);
	}
	if (katt) {
		size_t off = 0;
		int q, key, k0;

		H = m->cfg.num_attention_heads;
		fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"14\">attention "
		    "pattern of layer %d, head %d (rows: queries, columns: "
		    "keys)</text>\n", LM, y0 + 20, tr->head_l, tr->head_h);
		y0 += 40;
		for (q = 0; q < n; q++) {
			k0 = k->keys[q];
			fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">",
			    LM - 6, y0 + q * AC + 14);
			label(f, t, tr->ids1[q], MAXCP);
			fputs("</text>\n", f);
			for (key = 0; key < n && key < k0; key++) {
				double p = k->v[off + (size_t)tr->head_h * k0 + key];

				fprintf(f, "<g><title>query %d, key %d: %.4f</title>"
				    "<rect class=\"att\" x=\"%d\" y=\"%d\" width=\"%d\" "
				    "height=\"%d\" fill=\"", q, key, p, LM + key * AC,
				    y0 + q * AC, AC, AC);
				shade(f, p);
				fputs("\" stroke=\"#eee\"/></g>\n", f);
			}
			off += (size_t)H * k0;
		}
		for (key = 0; key < n; key++) {
			int x = LM + key * AC + AC / 2, y = y0 + n * AC + 6;

			fprintf(f, "<text x=\"%d\" y=\"%d\" transform=\"rotate(60 %d "
			    "%d)\">", x, y, x, y);
			label(f, t, tr->ids1[key], MAXCP);
			fputs("</text>\n", f);
		}
	}
	fputs("</svg>\n", f);
	return ferror(f) ? error("write %s:", fname) : 0;
}
