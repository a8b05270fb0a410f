/* fuzz/jinja.c: a chat template of any bytes, parsed and rendered over
 * a small fixed conversation under tight limits.  Nothing may fault or
 * run long, and what renders stays within the output limit; the
 * iteration, depth and memory limits are jinja.h's to keep: a parse and
 * a render take less than FUZZ_CPU_BOUND (fuzz.h), and libFuzzer's
 * -rss_limit_mb catches memory that the limit does not hold. */
#define FUZZ_INIT
#include "fuzz.h"
#include "../../lib/chat/jinja.h"

static const char ctx[] =
	"{\"messages\": ["
	"{\"role\": \"system\", \"content\": \"You are helpful.\"},"
	"{\"role\": \"user\", \"content\": \"Hi \\u00e9\\ud83d\\ude00 <b>\"},"
	"{\"role\": \"assistant\", \"content\": \"Hello!\", \"tool_calls\": [{\"type\": \"function\","
	"\"function\": {\"name\": \"f\", \"arguments\": {\"x\": 1, \"y\": [true, null, 2.5]}}}]},"
	"{\"role\": \"tool\", \"content\": \"42\"},"
	"{\"role\": \"user\", \"content\": [{\"type\": \"text\", \"text\": \"and?\"}, {\"type\": \"image\"}]}],"
	"\"tools\": [{\"type\": \"function\", \"function\": {\"name\": \"f\", \"description\": \"d\","
	"\"parameters\": {\"type\": \"object\", \"properties\": {\"x\": {\"type\": \"integer\"}}}}}],"
	"\"bos_token\": \"<s>\", \"eos_token\": \"</s>\", \"add_generation_prompt\": true,"
	"\"enable_thinking\": false, \"n\": -7, \"f\": 1e308, \"s\": \"\"}";

/* the limits: small enough that a template reaching one still runs in
 * a few milliseconds */
static const struct jj_limits lim = { 20000, 40, 1 << 16, 8 << 20 };
static struct json_doc doc;
static struct jj_var vars[16];
static size_t nvars;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char err[128];
	size_t i;

	(void)argc;
	argv0 = (*argv)[0];
	if (json_parse(&doc, ctx, sizeof ctx - 1, err, sizeof err) < 0) {
		fprintf(stderr, "%s: context: %s\n", argv0, err);
		exit(2);
	}
	for (i = 0; i < doc.root->len && nvars < LEN(vars); i++) {
		vars[nvars].name = doc.root->u.members[i].key;
		vars[nvars++].val = &doc.root->u.members[i].value;
	}
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct jj_tmpl *t;
	char *out;
	size_t len;
	double t0 = fuzz_cpu();

	if (jj_parse(&t, (const char *)data, size, "fuzz") < 0) {
		FUZZ_ASSERT(t == NULL);
		FUZZ_ASSERT(fuzz_cpu() - t0 < FUZZ_CPU_BOUND);
		return 0;
	}
	/* parsing is linear, and a render within the limits, the work of
	 * each operation included (jinja.h), takes milliseconds */
	if (jj_render(t, vars, nvars, &lim, 0, &out, &len) == 0) {
		FUZZ_ASSERT(out && len <= lim.output && out[len] == '\0');
		free(out);
	} else
		FUZZ_ASSERT(out == NULL);
	FUZZ_ASSERT(fuzz_cpu() - t0 < FUZZ_CPU_BOUND);
	/* a template renders any number of times, alike */
	if (jj_render(t, vars, nvars, &lim, 0, &out, &len) == 0)
		free(out);
	jj_free(t);
	return 0;
}
