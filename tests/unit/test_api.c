/* test_api: the C API (lib/api/pipelm.h) on the built-in model: its
 * calls, their errors as return codes and messages with nothing on
 * stderr, generation reproducible by seed, two threads on two sequences
 * equal to one after the other; under make SAN=1, ASan and UBSan watch.
 * Run from the top of the tree (make test), where share/pipelm is. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../lib/kern/kern.h"
#include "test.h"
#include "../../lib/api/pipelm.h"

#define MODEL "share/pipelm/stories260K"

static pipelm_model *m;

static void
test_tokenizer(void)
{
	int *ids = NULL;
	size_t n = 0, len = 0, plen;
	char *text = NULL;
	const char *p;

	EQ(pipelm_tokenize(m, "Once upon a time", 16, 1, &ids, &n), 0);
	CHECK(n == 5 && ids[0] == 1);
	EQ(pipelm_detokenize(m, ids + 1, n - 1, 0, &text, &len), 0);
	CHECK(text && len == 16 && !strcmp(text, "Once upon a time"));
	pipelm_free(text);
	pipelm_free(ids);
	EQ(pipelm_tokenize(m, "", 0, 0, &ids, &n), 0);
	EQ(n, 0);
	pipelm_free(ids);
	CHECK((p = pipelm_piece(m, 1, &plen)) && plen == 3 && !memcmp(p, "<s>", 3));
	CHECK(!pipelm_piece(m, 100000, &plen));
	CHECK(strstr(pipelm_errmsg(), "100000"));
	int bad[] = { 5, 600 };
	EQ(pipelm_detokenize(m, bad, 2, 0, &text, &len), -1);
	CHECK(!text && strstr(pipelm_errmsg(), "600"));
	/* the built-in model has no chat template */
	EQ(pipelm_chat_tokenize(m, "[]", 2, &ids, &n), -1);
	CHECK(strstr(pipelm_errmsg(), "chat template"));
}

/* A model opened from a GGUF file (tools/mkgguf's copy of the built-in
 * model, a chat template added, beside this test in the build folder;
 * said and left out where it is not built): its tokenizer and chat
 * template are the file's (its folder holds no tokenizer.json). */
static void
test_gguf(const char *self)
{
	char dir[] = "/tmp/test_api_gguf.XXXXXX", tools[4096], cmd[16384];
	char path[4200];
	const char *slash = strrchr(self, '/');
	const char *conv = "[{\"role\":\"user\",\"content\":\"hi\"}]";
	pipelm_model *g = NULL;
	int *ids = NULL, *want = NULL;
	size_t n = 0, nw = 0, len = 0;
	char *text = NULL;
	FILE *f;

	snprintf(tools, sizeof tools, "%.*s/mkgguf",
	    slash ? (int)(slash - self) : 1, slash ? self : ".");
	if (access(tools, X_OK) < 0) {
		printf("test_api: %s not built: the GGUF model left out\n", tools);
		return;
	}
	CHECK(mkdtemp(dir) != NULL);
	snprintf(cmd, sizeof cmd, "cp -R %s %s/m", MODEL, dir);
	CHECK(system(cmd) == 0);
	snprintf(path, sizeof path, "%s/m/chat_template.jinja", dir);
	CHECK((f = fopen(path, "w")) != NULL);
	if (f) {
		fputs("{% for m in messages %}<{{ m.role }}>{{ m.content }}"
		    "{% endfor %}", f);
		fclose(f);
	}
	/* the folder gone: the file alone is the model */
	snprintf(cmd, sizeof cmd, "%s %s/m %s/s.gguf >/dev/null 2>&1 && "
	    "rm -r %s/m", tools, dir, dir, dir);
	CHECK(system(cmd) == 0);
	snprintf(path, sizeof path, "%s/s.gguf", dir);
	EQ(pipelm_model_open(&g, path, 1, NULL), 0);
	if (g) {
		CHECK(!strcmp(pipelm_model_dir(g), dir));
		EQ(pipelm_tokenize(m, "Once upon a time", 16, 1, &want, &nw), 0);
		EQ(pipelm_tokenize(g, "Once upon a time", 16, 1, &ids, &n), 0);
		CHECK(n == nw && n && !memcmp(ids, want, n * sizeof *ids));
		EQ(pipelm_detokenize(g, ids + 1, n - 1, 0, &text, &len), 0);
		CHECK(text && len == 16 && !strcmp(text, "Once upon a time"));
		pipelm_free(text);
		EQ(pipelm_chat_render(g, conv, strlen(conv), &text, &len), 0);
		CHECK(text && len == 8 && !memcmp(text, "<user>hi", 8));
		pipelm_free(text);
		pipelm_free(ids);
		pipelm_free(want);
		pipelm_model_close(g);
	} else {
		fprintf(stderr, "test_api: %s: %s\n", path, pipelm_errmsg());
	}
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	CHECK(system(cmd) == 0);
}

static void
test_seq(void)
{
	int vocab = pipelm_model_vocab(m), ids[] = { 1, 403, 407, 261, 378 };
	float *a = malloc((size_t)vocab * sizeof *a);
	float *all = malloc(5 * (size_t)vocab * sizeof *all);
	pipelm_seq *s = NULL;

	EQ(pipelm_seq_open(&s, m, 8), 0);
	EQ(pipelm_seq_ctx(s), 8);
	EQ(pipelm_seq_eval(s, ids, 5, a), 0);
	EQ(pipelm_seq_pos(s), 5);
	pipelm_seq_reset(s);
	EQ(pipelm_seq_pos(s), 0);
	EQ(pipelm_seq_eval_all(s, ids, 5, all), 0);
	CHECK(!memcmp(a, all + 4 * (size_t)vocab, (size_t)vocab * sizeof *a));
	/* the context full: -1, nothing appended */
	EQ(pipelm_seq_eval(s, ids, 4, a), -1);
	CHECK(strstr(pipelm_errmsg(), "context"));
	EQ(pipelm_seq_pos(s), 5);
	int bad = vocab;
	EQ(pipelm_seq_eval(s, &bad, 1, NULL), -1);
	CHECK(*pipelm_errmsg());
	EQ(pipelm_seq_eval(s, ids, 0, NULL), -1);
	pipelm_seq_close(s);

	double lp[4];
	EQ(pipelm_seq_open(&s, m, 0), 0);
	EQ(pipelm_score(s, ids, 5, lp), 0);
	CHECK(lp[0] < 0 && lp[3] < 0 && lp[3] > -1);
	pipelm_seq_close(s);
	EQ(pipelm_seq_open(&s, m, -1), -1);

	/* a 16-bit KV cache: half the bytes, other logits (the keys and
	 * values rounded) */
	size_t b32, b16;
	EQ(pipelm_seq_open_kv(&s, m, 64, "f32"), 0);
	b32 = pipelm_seq_kv_bytes(s);
	EQ(pipelm_seq_eval(s, ids, 5, a), 0);
	pipelm_seq_close(s);
	EQ(pipelm_seq_open_kv(&s, m, 64, "bf16"), 0);
	b16 = pipelm_seq_kv_bytes(s);
	CHECK(b32 > 0 && b16 * 2 == b32);
	EQ(pipelm_seq_eval(s, ids, 5, all), 0);
	CHECK(memcmp(a, all, (size_t)vocab * sizeof *a));
	pipelm_seq_close(s);
	EQ(pipelm_seq_open_kv(&s, m, 64, "f16"), 0);
	pipelm_seq_close(s);
	EQ(pipelm_seq_open_kv(&s, m, 64, NULL), 0);
	EQ(pipelm_seq_kv_bytes(s), b32);
	pipelm_seq_close(s);
	EQ(pipelm_seq_open_kv(&s, m, 64, "q8_0"), 0);
	CHECK(pipelm_seq_kv_bytes(s) > 0);
	EQ(pipelm_seq_eval(s, ids, 5, all), 0);
	pipelm_seq_close(s);
	EQ(pipelm_seq_open_kv(&s, m, 64, "q4_0"), -1);
	CHECK(!s && strstr(pipelm_errmsg(), "q4_0"));
	free(a);
	free(all);
}

/* n ids after prompt with seed, into out; the count given */
static int
gen(pipelm_seq *s, const char *seed, const char *n, int *out)
{
	pipelm_gen *g = NULL;
	int ids[] = { 1, 403 }, k = 0, id, r;

	if (pipelm_gen_open(&g, m) < 0)
		return -1;
	if (pipelm_gen_set(g, "seed", seed) < 0 ||
	    pipelm_gen_set(g, "max-new", n) < 0 ||
	    pipelm_gen_set(g, "ignore-eos", NULL) < 0 ||
	    pipelm_gen_start(g, s, ids, 2) < 0) {
		pipelm_gen_close(g);
		return -1;
	}
	while ((r = pipelm_gen_next(g, &id)) == 1)
		out[k++] = id;
	pipelm_gen_close(g);
	return r < 0 ? -1 : k;
}

static void
test_gen(void)
{
	pipelm_seq *s = NULL;
	pipelm_gen *g = NULL;
	int a[64], b[64], c[64];

	EQ(pipelm_seq_open(&s, m, 0), 0);
	EQ(gen(s, "7", "40", a), 40);
	EQ(gen(s, "7", "40", b), 40);
	EQ(gen(s, "8", "40", c), 40);
	CHECK(!memcmp(a, b, sizeof(int) * 40));
	CHECK(memcmp(a, c, sizeof(int) * 40));
	EQ(gen(s, "x", "4", c), -1);
	CHECK(strstr(pipelm_errmsg(), "--seed"));
	EQ(pipelm_gen_open(&g, m), 0);
	EQ(pipelm_gen_set(g, "bogus", "1"), -1);
	CHECK(strstr(pipelm_errmsg(), "bogus"));
	EQ(pipelm_gen_set(g, "temp", "-1"), -1);
	EQ(pipelm_gen_start(g, s, a, 0), -1);
	CHECK(strstr(pipelm_errmsg(), "empty"));
	pipelm_gen_close(g);
	pipelm_seq_close(s);
}

struct job {
	int ids[16];
	int out[32];
};

static void *
greedy(void *arg)
{
	struct job *j = arg;
	int vocab = pipelm_model_vocab(m), i, k, best;
	float *x = malloc((size_t)vocab * sizeof *x);
	pipelm_seq *s = NULL;

	if (!x || pipelm_seq_open(&s, m, 0) < 0 ||
	    pipelm_seq_eval(s, j->ids, 16, x) < 0)
		goto out;
	for (k = 0; k < 32; k++) {
		for (best = 0, i = 1; i < vocab; i++)
			if (x[i] > x[best])
				best = i;
		j->out[k] = best;
		if (pipelm_seq_eval(s, &best, 1, x) < 0)
			break;
	}
out:
	pipelm_seq_close(s);
	free(x);
	return NULL;
}

static void
test_threads(void)
{
	struct job want[2], got[2];
	pthread_t t[2];
	int i, k;

	memset(want, 0, sizeof want);
	for (k = 0; k < 2; k++)
		for (i = 0; i < 16; i++)
			want[k].ids[i] = (i * 31 + 7 * k + 1) % 512;
	memcpy(got, want, sizeof got);
	for (k = 0; k < 2; k++)
		greedy(&want[k]);
	for (k = 0; k < 2; k++)
		CHECK(pthread_create(&t[k], NULL, greedy, &got[k]) == 0);
	for (k = 0; k < 2; k++)
		pthread_join(t[k], NULL);
	CHECK(!memcmp(want, got, sizeof got));
}

int
main(int argc, char *argv[])
{
	pipelm_model *bad = NULL;
	char errf[] = "/tmp/test_api.XXXXXX";
	int fd = mkstemp(errf), saved = dup(2);

	test_kern_init();	/* a table this CPU lacks: skip, as the others */
	/* nothing the library does may reach stderr */
	CHECK(fd >= 0 && saved >= 0 && dup2(fd, 2) == 2);
	EQ(pipelm_model_open(&bad, "/nonexistent/model", 1, NULL), -1);
	CHECK(!bad && strstr(pipelm_errmsg(), "/nonexistent/model"));
	EQ(pipelm_model_open(&bad, MODEL, 1, "q3"), -1);
	CHECK(strstr(pipelm_errmsg(), "q3"));
	EQ(pipelm_model_open(&m, MODEL, 2, "exact"), 0);
	if (m) {
		CHECK(!strcmp(pipelm_version(), PIPELM_VERSION));
		EQ(pipelm_model_vocab(m), 512);
		test_tokenizer();
		test_gguf(argc > 0 ? argv[0] : "test_api");
		test_seq();
		test_gen();
		test_threads();
		pipelm_model_close(m);
	}
	/* the failures said are the test's own: show them */
	fflush(stderr);
	dup2(saved, 2);
	if (fails) {
		char buf[4096];
		ssize_t k;

		lseek(fd, 0, SEEK_SET);
		while ((k = read(fd, buf, sizeof buf)) > 0)
			fwrite(buf, 1, (size_t)k, stderr);
	} else {
		CHECKF(lseek(fd, 0, SEEK_END) == 0, "the library wrote on stderr");
	}
	close(fd);
	unlink(errf);
	return test_end("test_api");
}
