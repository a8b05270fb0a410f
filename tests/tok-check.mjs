// tok-check.mjs: tok-encode and tok-decode against tokenizers.js
// (@huggingface/tokenizers) on one tokenizer.json, over random strings of
// many scripts made from a fixed seed, and random bytes round-tripped.
//
// usage: node tok-check.mjs TOKENIZER.json [N [SEED]]
//   PIPELM_BIN: where tok-encode and tok-decode are (default ../bin)
//   PIPELM_NODE_PREFIX: where node_modules is (default this folder)
//
// Checked, for each string s: tok-encode's ids equal encode(s,
// {add_special_tokens: true}), tok-encode --no-bos's equal
// add_special_tokens: false, and tok-decode of the ids equals
// decode(ids, {skip_special_tokens: false, clean_up_tokenization_spaces:
// false}).  For a byte-level vocabulary with no normalizer, random bytes
// (not UTF-8) also come back from tok-decode as they went in.  Prints the
// first differences and a summary; exit 1 if any.
import fs from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { pathToFileURL, fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const prefix = process.env.PIPELM_NODE_PREFIX || here;
const bin = process.env.PIPELM_BIN || path.join(here, "..", "bin");
const [file, nArg, seedArg] = process.argv.slice(2);
if (!file) {
	process.stderr.write("usage: node tok-check.mjs TOKENIZER.json [N [SEED]]\n");
	process.exit(2);
}
const N = nArg ? +nArg : 2000;
let seed = seedArg ? +seedArg >>> 0 : 20261201;

async function load(name) {
	const req = createRequire(path.join(prefix, "node_modules", "x.js"));
	let f;
	try {
		f = req.resolve(name);
	} catch {
		process.stderr.write(`tok-check: ${name} not installed under ${prefix}/node_modules\n`);
		process.exit(3);
	}
	const m = await import(pathToFileURL(f).href);
	return m.default && !m.Tokenizer ? m.default : m;
}

// xorshift32: the same strings on every run and machine
function rnd() {
	seed ^= seed << 13; seed >>>= 0;
	seed ^= seed >>> 17;
	seed ^= seed << 5; seed >>>= 0;
	return seed / 4294967296;
}
const pick = (a) => a[Math.floor(rnd() * a.length)];
const int = (lo, hi) => lo + Math.floor(rnd() * (hi - lo + 1));
const range = (lo, hi) => String.fromCodePoint(int(lo, hi));

const words = ["the", "The", "a", "of", "and", "tokenizer", "Hello", "world",
	"don't", "I'm", "we'LL", "they've", "SHE'S", "it'd", "you're", "naïve",
	"café", "Straße", "ÉCOLE", "über", "mañana", "señor", "œuvre", "Ångström",
	"中文", "日本語", "ひらがな", "カタカナ", "한국어", "русский", "Ελληνικά",
	"العربية", "עברית", "हिन्दी", "ภาษาไทย", "tiếng", "Việt", "emoji",
	"😀", "👍🏽", "👨‍👩‍👧", "🇫🇷", "∑", "∞", "≠", "→", "½", "²", "①", "٣",
	"१२३", "12345", "3.14159", "1,000,000", "0x1F", "$100", "#tag", "@user",
	"http://example.com/a?b=c", "foo_bar", "camelCase", "x86_64", "C++",
	"e.g.", "...", "!!!", "???", "--", "—", "–", "“quoted”", "‘single’",
	"«guillemets»", "(paren)", "[bracket]", "{brace}", "<tag>", "</tag>",
	"a\u0301", "e\u0308", "\u00e9", "\u1e9b\u0323", "ﬁ", "Ⅻ", "ｆｕｌｌ",
	"\u200b", "\u00a0", "\u3000", "\ufeff", "tab\there", "<0x41>", "▁", "Ġ"];
const seps = [" ", " ", " ", " ", "  ", "   ", "\n", "\n\n", "\t", " \n", "\r\n",
	"", "", ".", ", ", "! ", "? ", "; ", ": ", "\u00a0", "\u3000", " \t "];
const blocks = [[0x20, 0x7e], [0xa0, 0x24f], [0x370, 0x3ff], [0x400, 0x4ff],
	[0x590, 0x5ff], [0x600, 0x6ff], [0x900, 0x97f], [0xe00, 0xe7f],
	[0x1100, 0x11ff], [0x2000, 0x206f], [0x2100, 0x22ff], [0x3040, 0x30ff],
	[0x4e00, 0x9fa5], [0xac00, 0xd7a3], [0xff00, 0xffef], [0x1f300, 0x1f64f],
	[0x0300, 0x036f], [0x10000, 0x1007f], [0x20000, 0x2000f], [0x30, 0x39]];

function randomText(specials) {
	const kind = rnd();
	let s = "";
	if (kind < 0.15) {
		// code points drawn from the blocks
		const n = int(1, 40);
		for (let i = 0; i < n; i++) {
			const b = pick(blocks);
			s += range(b[0], b[1]);
		}
		return s;
	}
	const n = int(1, 25);
	for (let i = 0; i < n; i++) {
		const r = rnd();
		if (r < 0.6) s += pick(words);
		else if (r < 0.7) s += String(int(0, 1e6));
		else if (r < 0.75 && specials.length) s += pick(specials);
		else {
			const b = pick(blocks);
			for (let k = int(1, 5); k > 0; k--) s += range(b[0], b[1]);
		}
		s += pick(seps);
	}
	if (rnd() < 0.2) s = pick(seps) + s;
	if (rnd() < 0.3) s = s.trimEnd();
	return s;
}

function run(prog, args, input) {
	const r = spawnSync(path.join(bin, prog), args, { input, maxBuffer: 1 << 30 });
	if (r.status !== 0) {
		process.stderr.write(`tok-check: ${prog} ${args.join(" ")}: exit ${r.status}\n${r.stderr}`);
		process.exit(2);
	}
	return r.stdout;
}

const { Tokenizer } = await load("@huggingface/tokenizers");
const tj = JSON.parse(fs.readFileSync(file, "utf8"));
const cfgPath = path.join(path.dirname(file), "tokenizer_config.json");
const cfg = fs.existsSync(cfgPath) ? JSON.parse(fs.readFileSync(cfgPath, "utf8")) : {};
const tok = new Tokenizer(tj, cfg);
const specials = (tj.added_tokens || []).filter((a) => a.special).map((a) => a.content).slice(0, 64);

const json = JSON.stringify(tj);
const hasDigits = /"type":"Digits"/.test(json);
const texts = [];
for (let i = 0; i < N; i++) {
	let s = randomText(specials);
	// a Digits pre-tokenizer: most strings without the numbers other
	// than ASCII digits (below), so that they can be compared
	if (hasDigits && rnd() < 0.8) s = s.replace(/(?![0-9])\p{N}/gu, "x");
	if (s !== "" && !s.includes("\0")) texts.push(s);
}
const input = Buffer.from(texts.map((s) => s + "\0").join(""), "utf8");
const recs = (out) => out.toString("utf8").split("\n").slice(0, -1);
const ours = {
	bos: recs(run("tok-encode", ["--tokenizer", file, "-0"], input)),
	nobos: recs(run("tok-encode", ["--tokenizer", file, "-0", "--no-bos"], input)),
};
// Where tokenizers.js departs from the Rust tokenizers, which tok-encode
// follows, a string is not compared (counted as such): JavaScript's \s
// takes U+FEFF and not U+0085, Unicode's White_Space (Oniguruma's \s, the
// Rust crate's) the other way round; its Digits is \d (ASCII), the Rust
// one's char::is_numeric (every \p{N}); its ByteFallback decodes through
// a TextDecoder that drops a U+FEFF at the start of each run of bytes,
// where String::from_utf8 keeps it.
const hasFallback = /"type":"ByteFallback"/.test(json);
const departsEnc = (s) => /[\ufeff\u0085]/u.test(s) || (hasDigits && /(?![0-9])\p{N}/u.test(s));
const departsDec = (s) => hasFallback && s.includes("\ufeff");
let failed = 0, shown = 0, skipped = 0;
const show = (what, s, a, b) => {
	failed++;
	if (shown++ < 10)
		process.stdout.write(`${what}: ${JSON.stringify(s)}\n  ours: ${a}\n  js:   ${b}\n`);
};
const jsIds = [];
for (let i = 0; i < texts.length; i++) {
	const a = tok.encode(texts[i], { add_special_tokens: true }).ids;
	const b = tok.encode(texts[i], { add_special_tokens: false }).ids;
	jsIds.push(a);
	if (departsEnc(texts[i])) {
		skipped++;
		continue;
	}
	if (ours.bos[i] !== a.join(" ")) show("encode", texts[i], ours.bos[i], a.join(" "));
	if (ours.nobos[i] !== b.join(" ")) show("encode --no-bos", texts[i], ours.nobos[i], b.join(" "));
}
const idsIn = jsIds.map((a) => a.join(" ") + "\n").join("");
const dec = run("tok-decode", ["--tokenizer", file, "-0"], idsIn).toString("utf8").split("\0").slice(0, -1);
let ndec = 0;
for (let i = 0; i < texts.length; i++) {
	const want = tok.decode(jsIds[i], { skip_special_tokens: false, clean_up_tokenization_spaces: false });
	ndec++;
	if (departsDec(want) || departsDec(dec[i] || "")) {
		skipped++;
		continue;
	}
	if (dec[i] !== want) show("decode", jsIds[i].join(" "), JSON.stringify(dec[i]), JSON.stringify(want));
}

// random bytes: a byte-level vocabulary with no normalizer covers them all
let nbytes = 0;
const bytelevel = JSON.stringify(tj.pre_tokenizer || {}).includes("\"ByteLevel\"");
const nonorm = !tj.normalizer || (tj.normalizer.type === "Sequence" && !tj.normalizer.normalizers.length);
if (bytelevel && nonorm) {
	// the bytes whose character (GPT-2's byte-to-unicode map) is a token
	const vocab = tj.model.vocab || {};
	const covered = [];
	for (let b = 1, n = 1; b < 256; b++) {	/* n: byte 0 is U+0100 */
		const printable = (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || b >= 0xae;
		const c = String.fromCodePoint(printable ? b : 256 + n++);
		if (Object.hasOwn(vocab, c)) covered.push(b);
	}
	const bufs = [];
	for (let i = 0; i < 300; i++) {
		const b = Buffer.alloc(int(1, 64));
		for (let k = 0; k < b.length; k++) b[k] = pick(covered);
		bufs.push(b);
	}
	const ids = recs(run("tok-encode", ["--tokenizer", file, "-0", "--no-bos"],
		Buffer.concat(bufs.flatMap((b) => [b, Buffer.from([0])]))));
	const back = run("tok-decode", ["--tokenizer", file, "-0"], ids.join("\n") + "\n");
	let at = 0;
	for (const b of bufs) {
		const got = back.subarray(at, at + b.length);
		if (!got.equals(b) || back[at + b.length] !== 0)
			show("bytes", b.toString("hex"), back.subarray(at, at + b.length + 1).toString("hex"), b.toString("hex") + "00");
		at += b.length + 1;
		nbytes++;
	}
}
process.stdout.write(`${path.basename(path.dirname(path.dirname(file)))}/${path.basename(path.dirname(file))}: ` +
	`${texts.length} strings encoded twice, ${ndec} decoded, ${nbytes} byte strings: ${skipped} not compared (tokenizers.js departs), ${failed} differences\n`);
process.exitCode = failed ? 1 : 0;
