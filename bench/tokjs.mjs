// bench/tokjs.mjs: tokenizers.js (@huggingface/tokenizers) on the text
// bench/tok.sh gives tok-encode, for the figure beside it.
//
// usage: node bench/tokjs.mjs TOKENIZER.json TEXT
//   PIPELM_NODE_PREFIX: where node_modules is (default tests/)
// Prints "load_s encode_s bytes tokens": CPU seconds (user + system) of
// building the Tokenizer from the parsed file and of encoding, best of
// three runs.  The text is encoded a line at a time: one call on the
// whole of it makes tokenizers.js's BPE, without pre-tokenizer (Llama 2,
// Gemma 3), take one word of megabytes.
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { pathToFileURL, fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const prefix = process.env.PIPELM_NODE_PREFIX || path.join(here, "..", "tests");
const [file, textFile] = process.argv.slice(2);
if (!file || !textFile) {
	process.stderr.write("usage: node bench/tokjs.mjs TOKENIZER.json TEXT\n");
	process.exit(2);
}
const req = createRequire(path.join(prefix, "node_modules", "x.js"));
let mod;
try {
	mod = await import(pathToFileURL(req.resolve("@huggingface/tokenizers")).href);
} catch {
	process.stderr.write(`tokjs: @huggingface/tokenizers not installed under ${prefix}/node_modules\n`);
	process.exit(3);
}
const { Tokenizer } = mod.default && !mod.Tokenizer ? mod.default : mod;
const cpu = () => {
	const u = process.cpuUsage();
	return (u.user + u.system) / 1e6;
};
const raw = fs.readFileSync(file, "utf8");
const cfgPath = path.join(path.dirname(file), "tokenizer_config.json");
const cfg = fs.existsSync(cfgPath) ? JSON.parse(fs.readFileSync(cfgPath, "utf8")) : {};
const text = fs.readFileSync(textFile, "utf8");
const lines = text.split(/(?<=\n)/);
let load = Infinity, enc = Infinity, ntok = 0;
for (let r = 0; r < 3; r++) {
	let t = cpu();
	const tok = new Tokenizer(JSON.parse(raw), cfg);
	load = Math.min(load, cpu() - t);
	t = cpu();
	ntok = 0;
	for (const l of lines) ntok += tok.encode(l, { add_special_tokens: false }).ids.length;
	enc = Math.min(enc, cpu() - t);
}
process.stdout.write(`${load} ${enc} ${Buffer.byteLength(text)} ${ntok}\n`);
