/* test_jinja.c: the Jinja engine construct by construct, its errors with
 * their lines, and its limits.
 *
 * The expected renderings of the first table are Python Jinja2's (3.1.6)
 * in the environment transformers renders chat templates with
 * (ImmutableSandboxedEnvironment, trim_blocks, lstrip_blocks,
 * loopcontrols, its tojson); tests/chat.bats compares real templates with
 * @huggingface/jinja. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../lib/jinja.h"
#include "../../lib/json.h"
#include "../../lib/util.h"

static int fails;

#define CHECK(c) do { if (!(c)) { fails++; \
	fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c); } } while (0)

/* template, variables (a JSON object), expected output */
static const struct { const char *t, *vars, *want; } cases[] = {
	{ "plain text",
	  "{}",
	  "plain text" },
	{ "a {{ 1 }} b",
	  "{}",
	  "a 1 b" },
	{ "a  {{- 1 -}}  b",
	  "{}",
	  "a1b" },
	{ "x\n  {% if true %}\n  y\n  {% endif %}\nz",
	  "{}",
	  "x\n  y\nz" },
	{ "x\n  {%+ if true %}y{% endif %}",
	  "{}",
	  "x\n  y" },
	{ "x {# comment #}\ny",
	  "{}",
	  "x y" },
	{ "x\n{# c #}\ny",
	  "{}",
	  "x\ny" },
	{ "a\n  {#- c -#}  \nb",
	  "{}",
	  "ab" },
	{ "{% if true -%}\n\n  a  {%- endif %}",
	  "{}",
	  "a" },
	{ "line\n",
	  "{}",
	  "line" },
	{ "line\n\n",
	  "{}",
	  "line\n" },
	{ "r\r\nn",
	  "{}",
	  "r\nn" },
	{ "{% raw %}{{ x }}{% endraw %}",
	  "{}",
	  "{{ x }}" },
	{ "{% if x == 1 %}one{% elif x == 2 %}two{% else %}many{% endif %}",
	  "{\"x\": 2}",
	  "two" },
	{ "{% if x == 1 %}one{% elif x == 2 %}two{% else %}many{% endif %}",
	  "{\"x\": 5}",
	  "many" },
	{ "{% if not x %}no{% endif %}",
	  "{\"x\": []}",
	  "no" },
	{ "{% for i in xs %}{{ loop.index }}{{ loop.index0 }}{{ loop.revindex }}{{ loop.revindex0 }}{{ loop.first }}{{ loop.last }}{{ loop.length }};{% endfor %}",
	  "{\"xs\": [7, 8]}",
	  "1021TrueFalse2;2110FalseTrue2;" },
	{ "{% for i in xs %}{{ i }}{% else %}empty{% endfor %}",
	  "{\"xs\": []}",
	  "empty" },
	{ "{% for i in xs if i is odd %}{{ i }}/{{ loop.length }} {% endfor %}",
	  "{\"xs\": [1,2,3,4,5]}",
	  "1/3 3/3 5/3 " },
	{ "{% for k, v in d.items() %}{{ k }}={{ v }} {% endfor %}",
	  "{\"d\": {\"b\": 1, \"a\": 2}}",
	  "b=1 a=2 " },
	{ "{% for k in d %}{{ k }}{% endfor %}",
	  "{\"d\": {\"b\": 1, \"a\": 2}}",
	  "ba" },
	{ "{% for c in 'h\303\251llo' %}[{{ c }}]{% endfor %}",
	  "{}",
	  "[h][\303\251][l][l][o]" },
	{ "{% for i in range(10) %}{% if i == 2 %}{% continue %}{% endif %}{% if i == 5 %}{% break %}{% endif %}{{ i }}{% endfor %}",
	  "{}",
	  "0134" },
	{ "{% for i in xs %}{{ loop.previtem }}-{{ loop.nextitem }} {% endfor %}",
	  "{\"xs\": [1,2,3]}",
	  "-2 1-3 2- " },
	{ "{% for i in undefined_thing %}x{% else %}none{% endfor %}",
	  "{}",
	  "none" },
	{ "{% for a in [[1,2],[3,4]] %}{% for b in a %}{{ loop.index }}{{ b }}{% endfor %}|{{ loop.index }}{% endfor %}",
	  "{}",
	  "1122|11324|2" },
	{ "{% set x = 1 %}{% for i in [1] %}{% set x = 2 %}{{ x }}{% endfor %}{{ x }}",
	  "{}",
	  "21" },
	{ "{% set ns = namespace(x=1) %}{% for i in [1,2] %}{% set ns.x = ns.x + i %}{% endfor %}{{ ns.x }}",
	  "{}",
	  "4" },
	{ "{% set a, b = 1, 2 %}{{ b }}{{ a }}",
	  "{}",
	  "21" },
	{ "{% set t %}in {{ 1 + 1 }}{% endset %}[{{ t }}]",
	  "{}",
	  "[in 2]" },
	{ "{% if true %}{% set y = 3 %}{% endif %}{{ y }}",
	  "{}",
	  "3" },
	{ "{% macro m(a, b='B') %}<{{ a }}{{ b }}>{% endmacro %}{{ m(1) }}{{ m(2, b=3) }}{{ m(a=4) }}",
	  "{}",
	  "<1B><23><4B>" },
	{ "{% macro f(n) %}{% if n > 0 %}{{ n }}{{ f(n - 1) }}{% endif %}{% endmacro %}{{ f(3) }}",
	  "{}",
	  "321" },
	{ "{{ 1 }} {{ 1.0 }} {{ 1.5e3 }} {{ 1e-7 }} {{ 123456789012345678 }} {{ 0.1 }} {{ 2.5e16 }} {{ -0.0 }} {{ 1_000 }}",
	  "{}",
	  "1 1.0 1500.0 1e-07 123456789012345678 0.1 2.5e+16 -0.0 1000" },
	{ "{{ 7 / 2 }} {{ 7 // 2 }} {{ -7 // 2 }} {{ 7 % -3 }} {{ -7 % 3 }} {{ 7.5 // 2 }} {{ -7.5 % 2 }} {{ 2 ** 10 }} {{ 2 ** -1 }} {{ 2 ** 0.5 }}",
	  "{}",
	  "3.5 3 -4 -2 2 3.0 0.5 1024 0.5 1.4142135623730951" },
	{ "{{ 1 + 2 * 3 - 4 / 2 }} {{ (1 + 2) * 3 }} {{ -2 ** 2 }} {{ 10 - 2 - 3 }} {{ 2 * 3 ** 2 }}",
	  "{}",
	  "5.0 9 4 5 18" },
	{ "{{ 'ab' * 3 }} {{ [1] * 2 }} {{ [1, 2] + [3] }} {{ 'a' ~ 1 ~ none ~ true }} {{ 'x' + 'y' }}",
	  "{}",
	  "ababab [1, 1] [1, 2, 3] a1NoneTrue xy" },
	{ "{{ true + 1 }} {{ 1 == 1.0 }} {{ true == 1 }} {{ 'a' < 'b' }} {{ [1, 2] < [1, 3] }} {{ 2 > 1.5 }} {{ none == none }}",
	  "{}",
	  "2 True True True True True True" },
	{ "{{ [1, 'a', none, true, 1.5, [2], {'k': 'v'}] }} {{ {'a': 1, 'b': [1]} }} {{ 'it\\'s' }} {{ ['it\\'s', \"q\\\"\"] }}",
	  "{}",
	  "[1, 'a', None, True, 1.5, [2], {'k': 'v'}] {'a': 1, 'b': [1]} it's [\"it's\", 'q\"']" },
	{ "{{ 'a\\tb\\n' }}|{{ \"\\u00e9\\x41\\101\" }}|{{ 'a' 'b' }}",
	  "{}",
	  "a\tb\n|\303\251AA|ab" },
	{ "{{ 0 or 'x' }} {{ 1 and 'y' }} {{ [] or [] }} {{ none and 1 }} {{ not 0 }} {{ not 'a' }}",
	  "{}",
	  "x y [] None True False" },
	{ "{{ 'a' in 'cat' }} {{ 2 in [1, 2] }} {{ 'k' in {'k': 1} }} {{ 3 not in [1] }} {{ not 1 in [1] }}",
	  "{}",
	  "True True True True False" },
	{ "{{ 'y' if x else 'n' }} {{ 'y' if not x else 'n' }} [{{ 'z' if false }}]",
	  "{\"x\": 1}",
	  "y n []" },
	{ "{{ x is defined }} {{ y is defined }} {{ y is undefined }} {{ n is none }} {{ x is number }} {{ s is string }} {{ d is mapping }} {{ l is iterable }} {{ s is iterable }} {{ x is integer }} {{ f is float }}",
	  "{\"x\": 1, \"n\": null, \"s\": \"a\", \"d\": {}, \"l\": [], \"f\": 1.5}",
	  "True False True True True True True True True True True" },
	{ "{{ 3 is odd }} {{ 4 is even }} {{ 9 is divisibleby 3 }} {{ 2 is eq 2 }} {{ 'a' is equalto 'a' }} {{ 1 is lt 2 }} {{ b is true }} {{ b is false }} {{ b is boolean }} {{ 1 is not none }} {{ 'a' is in 'abc' }}",
	  "{\"b\": false}",
	  "True True True True True True False True True True True" },
	{ "{{ 'abc' is lower }} {{ 'ABC' is upper }} {{ 'aB' is lower }}",
	  "{}",
	  "True True False" },
	{ "{{ m.role }} {{ m['role'] }} {{ m.missing }}|{{ l[0] }} {{ l[-1] }} {{ l[5] }}|{{ s[0] }}{{ s[-1] }}",
	  "{\"m\": {\"role\": \"user\"}, \"l\": [1, 2, 3], \"s\": \"h\303\251llo\"}",
	  "user user |1 3 |ho" },
	{ "{{ l[1:] }} {{ l[:-1] }} {{ l[::-1] }} {{ l[::2] }} {{ l[-2:] }} {{ l[1:-1] }} {{ l[5:] }} {{ l[:-5] }} {{ l[-1:0:-1] }} {{ l[3:0:-2] }}",
	  "{\"l\": [1, 2, 3, 4]}",
	  "[2, 3, 4] [1, 2, 3] [4, 3, 2, 1] [1, 3] [3, 4] [2, 3] [] [] [4, 3, 2] [4, 2]" },
	{ "{{ s[1:3] }} {{ s[::-1] }} {{ s[-3:] }} {{ s[::2] }}",
	  "{\"s\": \"h\303\251llo\"}",
	  "\303\251l oll\303\251h llo hlo" },
	{ "{% for k, v in d.items() %}{{ k }}{{ v }}{% endfor %} {{ d.keys() | list }} {{ d.values() | list }} {{ d.get('a') }} {{ d.get('z') }} {{ d.get('z', 0) }}",
	  "{\"d\": {\"a\": 1, \"b\": 2}}",
	  "a1b2 ['a', 'b'] [1, 2] 1 None 0" },
	{ "{{ '  x y  ' | trim }}|{{ 'xxaxx' | trim('x') }}|{{ 'aBc' | upper }}{{ 'AbC' | lower }}|{{ 'hello world-wide (x)' | title }}|{{ 'hELLO' | capitalize }}",
	  "{}",
	  "x y|a|ABCabc|Hello World-Wide (X)|Hello" },
	{ "{{ l | length }} {{ 'h\303\251llo' | length }} {{ d | length }} {{ l | first }} {{ l | last }} {{ l | join('-') }} {{ l | join }} {{ l | reverse | list }} {{ l | sum }} {{ l | max }} {{ l | min }} {{ l | sort }} {{ l | sort(reverse=true) }} {{ l | unique | list }}",
	  "{\"l\": [3, 1, 2, 1], \"d\": {\"a\": 1}}",
	  "4 5 1 3 1 3-1-2-1 3121 [1, 2, 1, 3] 7 3 1 [1, 1, 2, 3] [3, 2, 1, 1] [3, 1, 2]" },
	{ "{{ 'aXbXc' | replace('X', '-') }} {{ 'aaa' | replace('a', 'b', 2) }} {{ x | default('d') }} {{ '' | default('d') }} {{ '' | default('d', true) }} {{ none | default('d') }}",
	  "{}",
	  "a-b-c bba d  d None" },
	{ "{% for k, v in d | items %}{{ k }}{{ v }}{% endfor %} {% for k, v in d | dictsort %}{{ k }}{{ v }}{% endfor %} {{ 3.7 | int }} {{ '42' | int }} {{ 'x' | int }} {{ '2.5' | float }} {{ 1 | string }} {{ -3 | abs }} {{ 2.567 | round(1) }} {{ 2.5 | round }}",
	  "{\"d\": {\"b\": 1, \"a\": 2}}",
	  "b1a2 a2b1 3 42 0 2.5 1 3 2.6 2.0" },
	{ "{{ ms | map(attribute='role') | list }} {{ ms | selectattr('role', 'equalto', 'user') | list | length }} {{ ms | rejectattr('role', 'equalto', 'user') | map(attribute='content') | join }} {{ [0, 1, 2] | select | list }} {{ [1, 2, 3] | reject('odd') | list }} {{ ['a', 'b'] | map('upper') | list }}",
	  "{\"ms\": [{\"role\": \"user\", \"content\": \"u\"}, {\"role\": \"bot\", \"content\": \"b\"}]}",
	  "['user', 'bot'] 1 b [1, 2] [2] ['A', 'B']" },
	{ "{{ 'a\\nb\\n\\nc' | indent(2) }}|{{ 'a\\nb' | indent(2, true) }}|{{ '<a&\\'\">' | e }}",
	  "{}",
	  "a\n  b\n\n  c|  a\n  b|&lt;a&amp;&#39;&#34;&gt;" },
	{ "{{ v | tojson }}",
	  "{\"v\": {\"s\": \"\303\251\\\"\\\\\\n\\u0001\", \"l\": [1, 2.5, true, null], \"e\": {}, \"a\": []}}",
	  "{\"s\": \"\303\251\\\"\\\\\\n\\u0001\", \"l\": [1, 2.5, true, null], \"e\": {}, \"a\": []}" },
	{ "{{ v | tojson(indent=2) }}",
	  "{\"v\": {\"s\": \"x\", \"l\": [1, [2, {}]], \"e\": {}, \"a\": []}}",
	  "{\n  \"s\": \"x\",\n  \"l\": [\n    1,\n    [\n      2,\n      {}\n    ]\n  ],\n  \"e\": {},\n  \"a\": []\n}" },
	{ "{{ v | tojson(indent=0) }}",
	  "{\"v\": [1, {\"a\": 2}]}",
	  "[\n1,\n{\n\"a\": 2\n}\n]" },
	{ "{{ v | tojson(separators=(',', ':')) }} {{ v | tojson(sort_keys=true) }}",
	  "{\"v\": {\"b\": 1, \"a\": [1, 2]}}",
	  "{\"b\":1,\"a\":[1,2]} {\"a\": [1, 2], \"b\": 1}" },
	{ "{{ 1.0 | tojson }} {{ 1e100 | tojson }} {{ 'x' | tojson }} {{ none | tojson }}",
	  "{}",
	  "1.0 1e+100 \"x\" null" },
	{ "{{ s.startswith('ab') }} {{ s.endswith('cd') }} {{ s.startswith(('x', 'a')) }} {{ s.upper() }} {{ s.lower() }} {{ s.title() }} {{ s.capitalize() }}",
	  "{\"s\": \"abCD\"}",
	  "True False True ABCD abcd Abcd Abcd" },
	{ "{{ s.split() }} {{ s.split(',') }} {{ s.split(',', 1) }} {{ s.rsplit(',', 1) }} {{ ' a  b '.split() }} {{ ' a  b '.split(none, 1) }}",
	  "{\"s\": \"a,b,,c\"}",
	  "['a,b,,c'] ['a', 'b', '', 'c'] ['a', 'b,,c'] ['a,b,', 'c'] ['a', 'b'] ['a', 'b ']" },
	{ "[{{ s.strip() }}][{{ s.lstrip() }}][{{ s.rstrip() }}][{{ n.strip('\\n') }}][{{ n.lstrip('\\n') }}][{{ n.rstrip('\\n') }}][{{ 'xyax'.strip('xy') }}]",
	  "{\"s\": \" \\t a b \\n\", \"n\": \"\\n\\n a \\n\"}",
	  "[a b][a b \n][ \t a b][ a ][ a \n][\n\n a ][a]" },
	{ "{{ s.replace('a', 'b') }} {{ s.replace('a', 'b', 1) }} {{ s.replace('', '-') }} {{ s.find('c') }} {{ s.count('a') }} {{ '-'.join(['x', 'y']) }}",
	  "{\"s\": \"aac\"}",
	  "bbc bac -a-a-c- 2 2 x-y" },
	{ "{{ c.split('</think>')[-1].lstrip('\\n') }}|{{ c.split('</think>')[0].rstrip('\\n').split('<think>')[-1].lstrip('\\n') }}",
	  "{\"c\": \"<think>\\nr\\n</think>\\n\\nanswer\"}",
	  "answer|r" },
	{ "{{ range(3) | list }} {{ range(1, 4) | list }} {{ range(5, 0, -2) | list }} {{ range(0) | list }}",
	  "{}",
	  "[0, 1, 2] [1, 2, 3] [5, 3, 1] []" },
	{ "{{ dict(a=1, b='x') }} {{ namespace(a=1).a }}",
	  "{}",
	  "{'a': 1, 'b': 'x'} 1" },
	{ "[{{ missing }}][{{ missing ~ 'x' }}][{{ missing | length }}][{{ d.nokey }}][{{ l[10] }}]",
	  "{\"d\": {}, \"l\": []}",
	  "[][x][0][][]" },
};

/* Render t over vars (a JSON object) with lim; the output in *out (caller
 * frees), and whatever went to stderr in msg. */
static int
render(const char *t, const char *vars, const struct jj_limits *lim, char **out,
    char *msg, size_t msglen)
{
	struct jj_tmpl *tp = NULL;
	struct json_doc d = { 0 };
	struct jj_var v[16];
	size_t i, n = 0, len;
	char err[128];
	FILE *tmp = tmpfile();
	int saved = dup(2), r;
	ssize_t got;

	*out = NULL;
	fflush(stderr);
	dup2(fileno(tmp), 2);
	if (json_parse(&d, vars, strlen(vars), err, sizeof(err)) < 0) {
		fprintf(stderr, "bad test variables %s: %s\n", vars, err);
		r = -1;
	} else {
		for (i = 0; i < d.root->len && i < LEN(v); i++, n++) {
			v[n].name = d.root->u.members[i].key;
			v[n].val = &d.root->u.members[i].value;
		}
		r = jj_parse(&tp, t, strlen(t), "t");
		if (r == 0)
			r = jj_render(tp, v, n, lim, 86400 * 365, out, &len);
		if (r == 0 && strlen(*out) != len)
			r = -2;
	}
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(tmp);
	got = fread(msg, 1, msglen - 1, tmp);
	msg[got > 0 ? got : 0] = '\0';
	fclose(tmp);
	jj_free(tp);
	json_free(&d);
	return r;
}

static void
test_cases(void)
{
	char *out, msg[512];
	size_t i;

	for (i = 0; i < LEN(cases); i++) {
		if (render(cases[i].t, cases[i].vars, NULL, &out, msg, sizeof(msg)) < 0) {
			fprintf(stderr, "case %zu: %s: failed: %s", i, cases[i].t, msg);
			fails++;
		} else if (strcmp(out, cases[i].want)) {
			fprintf(stderr, "case %zu: %s\n  want '%s'\n  got  '%s'\n", i,
			    cases[i].t, cases[i].want, out);
			fails++;
		}
		free(out);
	}
}

/* template (its error is on its third line), what the message says */
static const struct { const char *t, *msg; } errors[] = {
	{ "\n\n{% if x %}", "t, line 3: 'endif' missing for this tag" },
	{ "\n\n{% for x in y %}{% else %}", "t, line 3: 'endfor' missing" },
	{ "\n\na{{ 1 + }}", "t, line 3: expected an expression, got '}}'" },
	{ "\n\n{% for %}", "t, line 3: expected a name" },
	{ "\n\n{% endfor %}", "t, line 3: unexpected 'endfor'" },
	{ "\n\n{{ x | }}", "t, line 3: expected a filter name" },
	{ "\n\n{% include 'x' %}", "t, line 3: unknown tag 'include'" },
	{ "\n\n{{ 'abc }}", "t, line 3: unterminated string" },
	{ "\n\n{# open", "t, line 3: unterminated comment" },
	{ "\n\n{{ x", "t, line 3: unexpected end of template inside a tag" },
	{ "\n\n{{ x ! }}", "t, line 3: unexpected character '!'" },
	{ "{{ '\n\n' ~ x | nosuch }}", "t, line 3: unknown filter 'nosuch'" },
	{ "\n\n{{ x is nosuch }}", "t, line 3: unknown test 'nosuch'" },
	{ "\n\n{{ a.b.c }}", "t, line 3: 'a' is undefined" },
	{ "\n\n{{ x[0] }}", "t, line 3: 'x' is undefined" },
	{ "{% set messages = [] %}\n\n{{ messages[0]['role'] }}", "t, line 3: an undefined value has no items" },
	{ "\n\n{{ 1 + 'a' }}", "t, line 3: unsupported operand types for +: 'int' and 'str'" },
	{ "\n\n{{ missing + 1 }}", "t, line 3: 'missing' is undefined" },
	{ "\n\n{{ 1 / 0 }}", "t, line 3: float division by zero" },
	{ "\n\n{{ 1 // 0 }}", "t, line 3: integer division or modulo by zero" },
	{ "\n\n{{ 9223372036854775807 + 1 }}", "t, line 3: integer overflow" },
	{ "\n\n{{ raise_exception('boom') }}", "t, line 3: raise_exception: boom" },
	{ "\n\n{{ 'a'() }}", "t, line 3: 'str' object is not callable" },
	{ "\n\n{{ nosuch() }}", "t, line 3: 'nosuch' is undefined" },
	{ "{% set d = {} %}\n\n{% set d.x = 1 %}", "t, line 3: cannot assign an attribute of a dict" },
	{ "{% macro m(a) %}{% endmacro %}\n\n{{ m(1, 2) }}", "t, line 3: macro 'm' takes 1 arguments, 2 given" },
	{ "\n\n{{ 1 < 'a' }}", "t, line 3: '<' not supported between 'int' and 'str'" },
	{ "\n\n{{ f | tojson }}", "t, line 3: tojson: object of type Undefined is not JSON serializable" },
	{ "\n\n{% for a, b in [[1]] %}{% endfor %}", "t, line 3: 1 values to unpack into 2 names" },
	{ "\n\n{{ [1][::0] }}", "t, line 3: slice step cannot be zero" },
	{ "\n\n{{ 3 | length }}", "t, line 3: length: object of type 'int' has no len()" },
	{ "\n\n{% for x in 3 %}{% endfor %}", "t, line 3: 'int' object is not iterable" },
	{ "\n\n{% break %}", "break or continue outside a loop" },
	{ "\n\n\xff", "t, line 3: invalid UTF-8" },
	{ "\n\n{{ '\\x4' }}", "t, line 3: invalid \\x escape" },
};

static void
test_errors(void)
{
	char *out, msg[512];
	size_t i;

	for (i = 0; i < LEN(errors); i++) {
		if (render(errors[i].t, "{}", NULL, &out, msg, sizeof(msg)) != -1) {
			fprintf(stderr, "error %zu: %s: rendered, not refused\n", i, errors[i].t);
			fails++;
		} else if (!strstr(msg, errors[i].msg)) {
			fprintf(stderr, "error %zu: want '%s'\n  got '%s'\n", i, errors[i].msg, msg);
			fails++;
		}
		CHECK(out == NULL);
		free(out);
	}
}

/* A template that would run forever, or take all memory, stops with a
 * message naming the limit and the line. */
static void
test_limits(void)
{
	struct jj_limits lim = jj_default_limits;
	char *out, msg[512], deep[4000];
	size_t i;

	lim.iter = 1000;
	CHECK(render("{% for i in range(10) %}{% for j in range(10) %}{% endfor %}{% endfor %}",
	    "{}", &lim, &out, msg, sizeof(msg)) == 0);
	free(out);
	CHECK(render("\n{% for i in range(100) %}{% for j in range(100) %}{% endfor %}{% endfor %}",
	    "{}", &lim, &out, msg, sizeof(msg)) == -1);
	CHECK(strstr(msg, "t, line 2: more than the limit of 1000 loop iterations"));
	CHECK(render("{{ range(1001) }}", "{}", &lim, &out, msg, sizeof(msg)) == -1);
	CHECK(strstr(msg, "range of 1001 items"));
	/* recursion without end */
	CHECK(render("{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}\n{{ f(0) }}", "{}", NULL,
	    &out, msg, sizeof(msg)) == -1);
	CHECK(strstr(msg, "t, line 1: macro calls nested deeper than 200"));
	lim = jj_default_limits;
	lim.depth = 5;
	CHECK(render("{% macro f(n) %}{% if n %}{{ f(n - 1) }}{% endif %}{% endmacro %}{{ f(4) }}",
	    "{}", &lim, &out, msg, sizeof(msg)) == 0);
	free(out);
	CHECK(render("{% macro f(n) %}{% if n %}{{ f(n - 1) }}{% endif %}{% endmacro %}{{ f(5) }}",
	    "{}", &lim, &out, msg, sizeof(msg)) == -1);
	/* output */
	lim = jj_default_limits;
	lim.output = 100;
	CHECK(render("{% for i in range(10) %}0123456789{% endfor %}", "{}", &lim, &out, msg,
	    sizeof(msg)) == 0);
	CHECK(out && strlen(out) == 100);
	free(out);
	CHECK(render("{% for i in range(11) %}\n0123456789{% endfor %}", "{}", &lim, &out, msg,
	    sizeof(msg)) == -1);
	CHECK(strstr(msg, "t, line 2: output longer than the limit of 100 bytes"));
	/* memory: a string doubling itself */
	lim = jj_default_limits;
	lim.memory = 1 << 20;
	CHECK(render("{% set ns = namespace(s='x') %}\n{% for i in range(64) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}",
	    "{}", &lim, &out, msg, sizeof(msg)) == -1);
	CHECK(strstr(msg, "t, line 2: ") && strstr(msg, "limit"));
	CHECK(render("{{ 'ab' * 9223372036854775807 }}", "{}", &lim, &out, msg, sizeof(msg)) == -1);
	CHECK(strstr(msg, "memory limit"));
	/* nesting the parser refuses rather than recursing without bound */
	memset(deep, '(', 1002);
	deep[0] = deep[1] = '{';
	deep[1002] = '1';
	memset(deep + 1003, ')', 1000);
	strcpy(deep + 2003, "}}");
	CHECK(render(deep, "{}", NULL, &out, msg, sizeof(msg)) == -1);
	CHECK(strstr(msg, "nested deeper than"));
	memset(deep, ' ', sizeof(deep) - 1);
	deep[sizeof(deep) - 1] = '\0';
	for (i = 2; i + 12 < sizeof(deep); i += 12)
		memcpy(deep + i, "{%if 1%}", 8), memset(deep + i + 8, ' ', 4);
	memcpy(deep, "xx", 2);
	CHECK(render(deep, "{}", NULL, &out, msg, sizeof(msg)) == -1);
	CHECK(strstr(msg, "nested deeper than"));
}

static void
test_strftime(void)
{
	char *out, msg[512];

	/* now = 365 days after the epoch: 1971-01-01 */
	setenv("TZ", "UTC0", 1);
	CHECK(render("{{ strftime_now('%Y-%m-%d %H:%M') }}|{{ strftime_now('%d %b %Y') }}", "{}",
	    NULL, &out, msg, sizeof(msg)) == 0);
	CHECK(out && !strcmp(out, "1971-01-01 00:00|01 Jan 1971"));
	free(out);
}

/* Variables: later ones win; JSON numbers as Python's json.loads reads them. */
static void
test_vars(void)
{
	char *out, msg[512];

	CHECK(render("{{ a }} {{ b }} {{ c }} {{ d }} {{ e }}",
	    "{\"a\": 1, \"a\": 2, \"b\": 1.0, \"c\": 1e2, \"d\": 99999999999999999999, \"e\": -0}",
	    NULL, &out, msg, sizeof(msg)) == 0);
	CHECK(out && !strcmp(out, "2 1.0 100.0 1e+20 0"));
	free(out);
}

int
main(void)
{
	argv0 = "test_jinja";
	test_cases();
	test_errors();
	test_limits();
	test_strftime();
	test_vars();
	if (fails) {
		fprintf(stderr, "test_jinja: %d failed\n", fails);
		return 1;
	}
	puts("ok");
	return 0;
}
