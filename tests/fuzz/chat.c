/* fuzz/chat.c: a conversation of any bytes (chat.h: an array of
 * messages or an object with "messages" and other variables), rendered
 * by one chat template: the model folder $PIPELM_FUZZ_MODEL's
 * (chat_open), else a ChatML template with tools of our own.  Nothing
 * may fault, and a conversation either renders or is refused. */
#define FUZZ_INIT
#include "fuzz.h"
#include "../../lib/chat/chat.h"

static const char chatml[] =
	"{%- if tools %}{{- '<|im_start|>system\\n' }}{%- for t in tools %}"
	"{{- t | tojson }}\n{%- endfor %}{{- '<|im_end|>\\n' }}{%- endif %}"
	"{%- for m in messages %}"
	"{%- if m.content is string %}{%- set c = m.content %}"
	"{%- else %}{%- set c = namespace(s='') %}{%- for p in m.content %}"
	"{%- if p.type == 'text' %}{%- set c.s = c.s ~ p.text %}{%- endif %}"
	"{%- endfor %}{%- set c = c.s %}{%- endif %}"
	"{{- '<|im_start|>' ~ m.role ~ '\\n' ~ c | trim }}"
	"{%- for tc in m.tool_calls or [] %}{{- '\\n<tool_call>' ~ tc.function | tojson ~ '</tool_call>' }}{%- endfor %}"
	"{{- '<|im_end|>\\n' }}{%- if loop.last and m.role == 'assistant' and enable_thinking is defined %}"
	"{{- enable_thinking }}{%- endif %}{%- endfor %}"
	"{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}{%- endif %}";
static struct chat c;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *dir = getenv("PIPELM_FUZZ_MODEL");

	(void)argc;
	argv0 = (*argv)[0];
	if (dir ? chat_open(&c, dir, NULL) < 0 :
	    jj_parse(&c.tmpl, chatml, sizeof chatml - 1, "chatml") < 0)
		exit(2);
	c.now = 0;
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *out;
	size_t len;

	if (chat_render(&c, (const char *)data, size, "fuzz", &out, &len) == 0) {
		FUZZ_ASSERT(out && out[len] == '\0');
		free(out);
	} else
		FUZZ_ASSERT(out == NULL);
	return 0;
}
