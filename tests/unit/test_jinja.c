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

#include "../../lib/chat/jinja.h"
#include "../../lib/base/json.h"
#include "../../lib/base/util.h"
#include "test.h"

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
	{ "a\302\240\343\200\200 {%- if true -%}\342\200\203\n b {% endif %}\n\302\240 {% if true %}x{% endif %}\n\t{% if 1 %}y{% endif %}",
	  "{}",
	  "ab xy" },
	{ "a {% if true %}b{% endif %}\nc",
	  "{}",
	  "a bc" },
	{ "{{ (s*3 ~ 'b').find(s*2 ~ 'ab') }} {{ (s*3 ~ 'b').count(s ~ 'b') }} {{ ('q' ~ s * 4 ~ 'b').replace(s*3 ~ 'b', '!') }} {{ (s*2 ~ 'ab') in (s*3 ~ 'b') }}",
	  "{\"s\": \"aaaaaaaaaa\"}",
	  "9 1 qaaaaaaaaaa! True" },
	{ "{{ d | length }} {{ d.k299 }}",
	  "{\"d\": {\"k0\": 0, \"k1\": 1, \"k2\": 2, \"k3\": 3, \"k4\": 4, \"k5\": 5, \"k6\": 6, \"k7\": 7, \"k8\": 8, \"k9\": 9, \"k10\": 10, \"k11\": 11, \"k12\": 12, \"k13\": 13, \"k14\": 14, \"k15\": 15, \"k16\": 16, \"k17\": 17, \"k18\": 18, \"k19\": 19, \"k20\": 20, \"k21\": 21, \"k22\": 22, \"k23\": 23, \"k24\": 24, \"k25\": 25, \"k26\": 26, \"k27\": 27, \"k28\": 28, \"k29\": 29, \"k30\": 30, \"k31\": 31, \"k32\": 32, \"k33\": 33, \"k34\": 34, \"k35\": 35, \"k36\": 36, \"k37\": 37, \"k38\": 38, \"k39\": 39, \"k40\": 40, \"k41\": 41, \"k42\": 42, \"k43\": 43, \"k44\": 44, \"k45\": 45, \"k46\": 46, \"k47\": 47, \"k48\": 48, \"k49\": 49, \"k50\": 50, \"k51\": 51, \"k52\": 52, \"k53\": 53, \"k54\": 54, \"k55\": 55, \"k56\": 56, \"k57\": 57, \"k58\": 58, \"k59\": 59, \"k60\": 60, \"k61\": 61, \"k62\": 62, \"k63\": 63, \"k64\": 64, \"k65\": 65, \"k66\": 66, \"k67\": 67, \"k68\": 68, \"k69\": 69, \"k70\": 70, \"k71\": 71, \"k72\": 72, \"k73\": 73, \"k74\": 74, \"k75\": 75, \"k76\": 76, \"k77\": 77, \"k78\": 78, \"k79\": 79, \"k80\": 80, \"k81\": 81, \"k82\": 82, \"k83\": 83, \"k84\": 84, \"k85\": 85, \"k86\": 86, \"k87\": 87, \"k88\": 88, \"k89\": 89, \"k90\": 90, \"k91\": 91, \"k92\": 92, \"k93\": 93, \"k94\": 94, \"k95\": 95, \"k96\": 96, \"k97\": 97, \"k98\": 98, \"k99\": 99, \"k100\": 100, \"k101\": 101, \"k102\": 102, \"k103\": 103, \"k104\": 104, \"k105\": 105, \"k106\": 106, \"k107\": 107, \"k108\": 108, \"k109\": 109, \"k110\": 110, \"k111\": 111, \"k112\": 112, \"k113\": 113, \"k114\": 114, \"k115\": 115, \"k116\": 116, \"k117\": 117, \"k118\": 118, \"k119\": 119, \"k120\": 120, \"k121\": 121, \"k122\": 122, \"k123\": 123, \"k124\": 124, \"k125\": 125, \"k126\": 126, \"k127\": 127, \"k128\": 128, \"k129\": 129, \"k130\": 130, \"k131\": 131, \"k132\": 132, \"k133\": 133, \"k134\": 134, \"k135\": 135, \"k136\": 136, \"k137\": 137, \"k138\": 138, \"k139\": 139, \"k140\": 140, \"k141\": 141, \"k142\": 142, \"k143\": 143, \"k144\": 144, \"k145\": 145, \"k146\": 146, \"k147\": 147, \"k148\": 148, \"k149\": 149, \"k150\": 150, \"k151\": 151, \"k152\": 152, \"k153\": 153, \"k154\": 154, \"k155\": 155, \"k156\": 156, \"k157\": 157, \"k158\": 158, \"k159\": 159, \"k160\": 160, \"k161\": 161, \"k162\": 162, \"k163\": 163, \"k164\": 164, \"k165\": 165, \"k166\": 166, \"k167\": 167, \"k168\": 168, \"k169\": 169, \"k170\": 170, \"k171\": 171, \"k172\": 172, \"k173\": 173, \"k174\": 174, \"k175\": 175, \"k176\": 176, \"k177\": 177, \"k178\": 178, \"k179\": 179, \"k180\": 180, \"k181\": 181, \"k182\": 182, \"k183\": 183, \"k184\": 184, \"k185\": 185, \"k186\": 186, \"k187\": 187, \"k188\": 188, \"k189\": 189, \"k190\": 190, \"k191\": 191, \"k192\": 192, \"k193\": 193, \"k194\": 194, \"k195\": 195, \"k196\": 196, \"k197\": 197, \"k198\": 198, \"k199\": 199, \"k200\": 200, \"k201\": 201, \"k202\": 202, \"k203\": 203, \"k204\": 204, \"k205\": 205, \"k206\": 206, \"k207\": 207, \"k208\": 208, \"k209\": 209, \"k210\": 210, \"k211\": 211, \"k212\": 212, \"k213\": 213, \"k214\": 214, \"k215\": 215, \"k216\": 216, \"k217\": 217, \"k218\": 218, \"k219\": 219, \"k220\": 220, \"k221\": 221, \"k222\": 222, \"k223\": 223, \"k224\": 224, \"k225\": 225, \"k226\": 226, \"k227\": 227, \"k228\": 228, \"k229\": 229, \"k230\": 230, \"k231\": 231, \"k232\": 232, \"k233\": 233, \"k234\": 234, \"k235\": 235, \"k236\": 236, \"k237\": 237, \"k238\": 238, \"k239\": 239, \"k240\": 240, \"k241\": 241, \"k242\": 242, \"k243\": 243, \"k244\": 244, \"k245\": 245, \"k246\": 246, \"k247\": 247, \"k248\": 248, \"k249\": 249, \"k250\": 250, \"k251\": 251, \"k252\": 252, \"k253\": 253, \"k254\": 254, \"k255\": 255, \"k256\": 256, \"k257\": 257, \"k258\": 258, \"k259\": 259, \"k260\": 260, \"k261\": 261, \"k262\": 262, \"k263\": 263, \"k264\": 264, \"k265\": 265, \"k266\": 266, \"k267\": 267, \"k268\": 268, \"k269\": 269, \"k270\": 270, \"k271\": 271, \"k272\": 272, \"k273\": 273, \"k274\": 274, \"k275\": 275, \"k276\": 276, \"k277\": 277, \"k278\": 278, \"k279\": 279, \"k280\": 280, \"k281\": 281, \"k282\": 282, \"k283\": 283, \"k284\": 284, \"k285\": 285, \"k286\": 286, \"k287\": 287, \"k288\": 288, \"k289\": 289, \"k290\": 290, \"k291\": 291, \"k292\": 292, \"k293\": 293, \"k294\": 294, \"k295\": 295, \"k296\": 296, \"k297\": 297, \"k298\": 298, \"k299\": 299}}",
	  "300 299" },
	{ "{% macro wrap(t) %}<{{ t }}>{{ caller() }}</{{ t }}>{% endmacro %}{% for x in [1, 2] %}{% call wrap('b') %}x={{ x }}{% endcall %}{% endfor %}",
	  "{}",
	  "<b>x=1</b><b>x=2</b>" },
	{ "{% macro each(l) %}{% for i in l %}{{ caller(i, loop.index) }};{% endfor %}{% endmacro %}{% call(v, n) each(['a', 'b']) %}{{ n }}:{{ v | upper }}{% endcall %}",
	  "{}",
	  "1:A;2:B;" },
	{ "{% filter upper %}shout {{ 'this' }}{% endfilter %} {% filter replace('a', 'o') | title %}banana bread{% endfilter %}",
	  "{}",
	  "SHOUT THIS Bonono Breod" },
	{ "{% macro m(a, b, c='C') %}{{ a }}{{ b }}{{ c }}{% endmacro %}{{ m(*[1, 2]) }} {{ m(*['x'], **{'b': 'y', 'c': 'z'}) }}",
	  "{}",
	  "12C xyz" },
	{ "{{ ['b', 'A', 'a', 'C'] | sort }} {{ ['b', 'A', 'a', 'C'] | sort(case_sensitive=true) }} {{ [3, 1, 2] | sort(true) }} {{ ['a', 'A', 'b'] | unique | list }} {{ ['a', 'B'] | max }} {{ ['a', 'B'] | min }}",
	  "{}",
	  "['A', 'a', 'b', 'C'] ['A', 'C', 'a', 'b'] [3, 2, 1] ['a', 'b'] B a" },
	{ "{{ us | sort(attribute='n') | sort(reverse=true, attribute='a') | map(attribute='n') | join(',') }} {{ us | sort(attribute='d.p') | map(attribute='d.p') | list }} {{ us | map(attribute='l.1') | list }}",
	  "{\"us\": [{\"n\": \"x\", \"a\": 1, \"d\": {\"p\": 3}, \"l\": [0, 5]}, {\"n\": \"y\", \"a\": 2, \"d\": {\"p\": 1}, \"l\": [0, 6]}, {\"n\": \"w\", \"a\": 1, \"d\": {\"p\": 2}, \"l\": [0]}]}",
	  "y,w,x [1, 2, 3] [5, 6, Undefined]" },
	{ "{% for k, v in d | dictsort %}{{ k }}{{ v }}{% endfor %} {% for k, v in d | dictsort(by='value', reverse=true) %}{{ k }}{% endfor %} {% for k, v in d | dictsort(true) %}{{ k }}{% endfor %}",
	  "{\"d\": {\"b\": 1, \"A\": 3, \"a\": 2}}",
	  "A3a2b1 Aab Aab" },
	{ "{{ [none, none] | sort }} {{ [x, y] | sort | length }} {{ [x] }}",
	  "{}",
	  "[None, None] 2 [Undefined]" },
	{ "{{ {'k': '\303\251\360\237\230\200\\u0001'} | tojson(ensure_ascii=true) }}",
	  "{}",
	  "{\"k\": \"\\u00e9\\ud83d\\ude00\\u0001\"}" },
	{ "{{ m.0.1 }} {{ m.1.0 }} {% set (a, b) = m[0] %}{{ b }}{{ a }} {{ 'x' in nothing }} {{ 'x' not in nothing }}",
	  "{\"m\": [[1, 2], [3, 4]]}",
	  "2 3 21 False True" },
	{ "{% for x in [1] %}{{ loop['index0 '.strip()] }}{% endfor %} {{ d[' a '.strip()] }} {{ ds | map(attribute='k b'.split()[0]) | join }}",
	  "{\"d\": {\"a\": 7}, \"ds\": [{\"k\": 1}, {\"k\": 2}]}",
	  "0 7 12" },
	{ "{{ 1 ** 1000000000000000000 }} {{ (-1) ** 1000000000000000001 }} {{ 3 ** 39 }} {{ (-2) ** 63 }} {{ 0 ** 0 }}",
	  "{}",
	  "1 -1 4052555153018976267 -9223372036854775808 1" },
	{ "{% set a = 'x' ~ y %}{% set b = a %}{% set a = a ~ '1' %}{% set c = b ~ '2' %}{{ a }} {{ b }} {{ c }} {{ a ~ a }}",
	  "{\"y\": \"y\"}",
	  "xy1 xy xy2 xy1xy1" },
	{ "{% set s = 'a' ~ '' %}{% set t = s[:1] %}{{ t ~ 'Z' }} {{ s }} {{ s ~ s[0] }} {{ s | length }}",
	  "{}",
	  "aZ a aa 1" },
	{ "{% set ns = namespace(s='') %}{% for i in range(3000) %}{% set ns.s = ns.s ~ (i % 10) %}{% endfor %}{{ ns.s | length }} {{ ns.s[-12:] }}",
	  "{}",
	  "3000 890123456789" },
	/* issue 31: where pipelm gave other results than Jinja2 */
	{ "{% for x in 'abc' %}{{ 1 <= loop.index < 2 }} {% endfor %}{{ 3 > 2 > 1 }} {{ 1 < 2 in [2] }} {{ 1 == 1 != 2 }} {{ 2 > 1 > 1 }}",
	  "{}",
	  "True False False True True True False" },
	{ "{{ 'x y z'.rsplit(none, 1) }} {{ '  a b c '.rsplit(none, 1) }} {{ ' a  b '.rsplit(none, 0) }} {{ ' a  b '.rsplit() }} {{ 'aaa'.rsplit('aa') }} {{ 'abcabc'.rsplit('bc', 1) }}",
	  "{}",
	  "['x y', 'z'] ['  a b', 'c'] [' a  b'] ['a', 'b'] ['a', ''] ['abca', '']" },
	{ "{{ '7.9'|int }} {{ ' 7 '|int }} {{ '1e5'|int }} {{ '0x1A'|int(base=16) }} {{ '-0x_f'|int(0, 16) }} {{ '0b101'|int(base=0) }} {{ '010'|int(base=0) }} {{ '1_000'|int }} {{ '1__0'|int }} {{ 'z'|int(base=36) }} {{ 'inf'|int }} {{ 'nan'|int(-1) }} {{ none|int }} {{ [1]|int(5) }}",
	  "{}",
	  "7 7 100000 26 -15 5 10 1000 0 35 0 -1 0 5" },
	{ "{{ ' 2.5 '|float }} {{ '1_0.5'|float }} {{ ' -Infinity '|float }} {{ 'nan'|float }} {{ '_1'|float }} {{ '0x10'|float }} {{ '1e'|float(9) }} {{ 3|float }}",
	  "{}",
	  "2.5 10.5 -inf nan 0.0 0.0 9 3.0" },
	{ "{{ (1,) }} {{ (1,) == [1] }} {{ () }} {{ (1, 2) }} {{ 1, 2 }} {{ (1, 2) + (3,) }} {{ (1, 2, 3)[1:] }} {{ (1, 2) * 2 }} {{ (1, 2) | list }} {{ (1, 2) | tojson }} {{ (1, 2) == (1, 2) }} {{ (1, 2) < (1, 3) }}",
	  "{}",
	  "(1,) False () (1, 2) (1, 2) (1, 2, 3) (2, 3) (1, 2, 1, 2) [1, 2] [1, 2] True True" },
	{ "{% set a = 1, 2 %}{{ a }} {{ d.items() | list }} {{ d | dictsort }} {{ ('a', 1) in d | items }} {% for k, v in d.items() %}{{ k }}={{ v }}{% endfor %}",
	  "{\"d\": {\"a\": 1}}",
	  "(1, 2) [('a', 1)] [('a', 1)] True a=1" },
	{ "{{ strftime_now('%') }}|{{ strftime_now('a%') }}|{{ strftime_now('%%') }}",
	  "{}",
	  "%|a%|%" },
	/* dicts with an index (past 8 keys): lookups, repeated keys, equality */
	{ "{% set d = {'k0': 0, 'k1': 1, 'k2': 2, 'k3': 3, 'k4': 4, 'k5': 5, 'k6': 6, 'k7': 7, 'k8': 8, 'k9': 9, 1: 'one', 'k3': 33} %}{{ d | length }} {{ d.k9 }} {{ d['k3'] }} {{ d[1.0] }} {{ d[true] }} {{ 'k8' in d }} {{ 'x' in d }} {{ d.get('k0') }} {{ d == dict(d) }} {{ d | list | first }}",
	  "{}",
	  "11 9 33 one one True False 0 True k0" },
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
	{ "\n\n{{ 2 ** 63 }}", "t, line 3: integer overflow" },
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
	{ "{% set ns = namespace(l=[]) %}{% for i in range(2000) %}{% set ns.l = [ns.l] %}{% endfor %}\n\n{{ ns.l }}",
	  "t, line 3: values nested deeper than 1000" },
	{ "{% set ns = namespace() %}{% set ns.me = ns %}\n\n{{ ns }}", "t, line 3: values nested deeper than 1000" },
	{ "\n\n{{ range(-9223372036854775807, 9223372036854775807) }}", "t, line 3: range of 18446744073709551616 items" },
	{ "\n\n{{ range(5000) | unique }}", "t, line 3: unique: 5000 items, more comparisons than the limit" },
	{ "{% macro m() %}{% set ns.c = caller %}{% endmacro %}{% set ns = namespace() %}{% call m() %}x{% endcall %}\n\n{{ ns.c() }}",
	  "t, line 3: caller() used after its call block ended" },
	{ "\n\n{% call 1 %}{% endcall %}", "t, line 3: expected a macro call after 'call'" },
	{ "\n\n{% filter nosuch %}x{% endfilter %}", "t, line 3: unknown filter 'nosuch'" },
	{ "{% macro m(a) %}{% endmacro %}\n\n{{ m(*1) }}", "t, line 3: * of a int: expected a list" },
	{ "\n\n{{ {'a': 1} | dictsort(by='x') }}", "t, line 3: dictsort: by must be 'key' or 'value'" },
	/* Python's integers have no bound, these do */
	{ "\n\n{{ 1e300 | int }}", "t, line 3: int: 1e+300 out of range" },
	{ "\n\n{{ '99999999999999999999' | int }}", "t, line 3: int: 99999999999999999999 out of range" },
	{ "\n\n{{ '\\x4' }}", "t, line 3: invalid \\x escape" },
	{ "\n\n{{ x | int }}", "t, line 3: 'x' is undefined" },
	{ "\n\n{{ [1] < (1,) }}", "t, line 3: '<' not supported between 'list' and 'tuple'" },
	{ "\n\n{{ [1] + (1,) }}", "t, line 3: can only concatenate list (not \"tuple\") to list" },
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
	CHECK(strstr(msg, "t, line 2: more than the limit of 1000 loop iterations and macro calls"));
	/* calls without a loop: 2^40 of them */
	CHECK(render("{% macro f(n) %}{% if n %}{{ f(n - 1) }}{{ f(n - 1) }}{% endif %}{% endmacro %}\n{{ f(40) }}",
	    "{}", &lim, &out, msg, sizeof(msg)) == -1);
	CHECK(strstr(msg, "t, line 1: more than the limit of 1000 loop iterations and macro calls"));
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
	/* a string grown a piece at a time takes linear memory: 1 MB in
	 * 8 MB, where copying it each time would take 10 GB */
	lim.memory = 8 << 20;
	CHECK(render("{% set ns = namespace(s='') %}{% for i in range(20000) %}{% set ns.s = ns.s ~ i % 10 ~ '123456789' ~ m %}{% endfor %}{{ ns.s | length }}",
	    "{\"m\": \"0123456789012345678901234567890123456789\"}", &lim, &out, msg, sizeof(msg)) == 0);
	CHECK(out && !strcmp(out, "1000000"));
	free(out);
	lim.memory = 1 << 20;
	CHECK(render("{{ 'ab' * 9223372036854775807 }}", "{}", &lim, &out, msg, sizeof(msg)) == -1);
	CHECK(strstr(msg, "memory limit"));
	/* the work inside one operation counts (issue 31): a search of
	 * 1 MB in 2000 turns, a compare of lists of one 1 MB string; and a
	 * string built up in place is charged what it copies, not its
	 * length at each turn */
	lim = jj_default_limits;
	lim.iter = 100000;
	CHECK(render("{% set s = 'a' * 1000000 %}{% for i in range(2000) %}\n{% if 'b' in s %}x{% endif %}{% endfor %}",
	    "{}", &lim, &out, msg, sizeof(msg)) == -1);
	CHECK(strstr(msg, "t, line 2: more than the limit of 100000 loop iterations and macro calls, with the work of operations"));
	CHECK(render("{% set l = ['a' * 1000000] * 100 %}{% set m = ['a' * 1000000] * 100 %}{% for i in range(100) %}\n{{ l == m }}{% endfor %}",
	    "{}", &lim, &out, msg, sizeof(msg)) == -1);
	CHECK(strstr(msg, "t, line 2: more than the limit of 100000"));
	CHECK(render("{% set s = 'a b ' * 100000 %}{% for i in range(100) %}{{ s.split() | length }}{% endfor %}",
	    "{}", &lim, &out, msg, sizeof(msg)) == -1);
	CHECK(render("{% set ns = namespace(s='') %}{% for i in range(20000) %}{% set ns.s = ns.s ~ '0123456789' %}{% endfor %}{{ ns.s | length }}",
	    "{}", &lim, &out, msg, sizeof(msg)) == 0);
	CHECK(out && !strcmp(out, "200000"));
	free(out);
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
	CHECK(render("{{ strftime_now('%Y-%m-%d %H:%M') }}|{{ strftime_now('%d %b %Y') }}|{{ strftime_now('') }}|{{ strftime_now(' %Y x'[1:3]) }}",
	    "{}", NULL, &out, msg, sizeof(msg)) == 0);
	CHECK(out && !strcmp(out, "1971-01-01 00:00|01 Jan 1971||1971"));
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

/* Templates mangled at random (a fixed seed) parse or fail, render or
 * fail, and nothing else: under the sanitizers, no invalid access. */
static void
test_mangled(void)
{
	static const char *const frag[] = {
		"{{", "}}", "{%", "%}", "{#", "#}", "-", "(", ")", "[", "]", "'", "|",
		".", "for x in y", "if", "endif", "endfor", "macro", "call", "caller()",
		"loop", "*", "**", "~", "range(99)", "\\", "\n", "{% raw %}", "set",
		"=", ",", ":", "1e308", "9223372036854775807", "not", "in", "is", "else",
	};
	struct jj_limits lim = jj_default_limits;
	char *m, *out, msg[512];
	const char *fr;
	size_t i, n = 0, mn, k, j, pos, len;
	unsigned long long x = 88172645463325252ULL;
	int r, rendered = 0;

	lim.iter = 20000;
	lim.output = 1 << 16;
	lim.memory = 16 << 20;
	lim.depth = 30;
	for (i = 0; i < LEN(cases); i++)
		if (strlen(cases[i].t) > n)
			n = strlen(cases[i].t);
	m = malloc(2 * n + 4 * 32 + 1);	/* two templates, four fragments */
#define RND() (x ^= x << 13, x ^= x >> 7, x ^= x << 17)
	for (k = 0; k < 1500; k++) {
		/* one or two of the templates above, then 1 to 4 edits */
		i = RND() % LEN(cases);
		mn = strlen(cases[i].t);
		memcpy(m, cases[i].t, mn);
		if (RND() % 2) {
			i = RND() % LEN(cases);
			memcpy(m + mn, cases[i].t, strlen(cases[i].t));
			mn += strlen(cases[i].t);
		}
		for (j = RND() % 4 + 1; j > 0 && mn > 0; j--) {
			pos = RND() % mn;
			switch (RND() % 3) {
			case 0:
				m[pos] = (char)RND();
				break;
			case 1:
				len = RND() % 8 + 1;
				if (len > mn - pos)
					len = mn - pos;
				memmove(m + pos, m + pos + len, mn - pos - len);
				mn -= len;
				break;
			default:
				fr = frag[RND() % LEN(frag)];
				len = strlen(fr);
				memmove(m + pos + len, m + pos, mn - pos);
				memcpy(m + pos, fr, len);
				mn += len;
			}
		}
		m[mn] = '\0';
		r = render(m, "{\"x\": [1, \"a\", {\"k\": null}], \"y\": \"s\"}", &lim, &out,
		    msg, sizeof(msg));
		CHECK(r == 0 || r == -1);
		rendered += r == 0;
		free(out);
	}
#undef RND
	CHECK(rendered > 50);	/* most edits break the syntax; 124 render */
	free(m);
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
	test_mangled();
	return test_end("test_jinja");
}
