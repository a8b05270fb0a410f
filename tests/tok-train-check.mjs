// tok-train-check.mjs [--prefix] TEMPLATE MINE FILE...: HuggingFace
// tokenizers' own trainer (the npm package tokenizers, its Node binding
// of the Rust library) trains on FILE... with the pipeline of TEMPLATE (a
// tokenizer.json) and its default BpeTrainer (vocabulary 30000, no
// initial alphabet, no special tokens); its model's vocab and merges are
// compared with those of MINE (tok-train's tokenizer.json): equal, or
// with --prefix, MINE's merges the first of its and MINE's vocab the
// same ids as its.  Prints what differs first and a summary; exit 1 if
// anything differs, 3 if the package is not installed.
//   PIPELM_NODE_PREFIX: where node_modules is (default this folder)
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const prefix = process.env.PIPELM_NODE_PREFIX || here;
const req = createRequire(path.join(prefix, "node_modules", "x.js"));
let Tokenizer;
try {
	({ Tokenizer } = req("tokenizers"));
} catch {
	process.stderr.write(`tok-train-check: tokenizers not installed under ${prefix}/node_modules\n`);
	process.exit(3);
}
const args = process.argv.slice(2);
const isPrefix = args[0] === "--prefix";
if (isPrefix)
	args.shift();
const [tmpl, mine, ...files] = args;
const t = Tokenizer.fromFile(tmpl);
t.train(files);
const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "ttc-")), "tokenizer.json");
t.save(out, false);
const a = JSON.parse(fs.readFileSync(out, "utf8")).model;
const b = JSON.parse(fs.readFileSync(mine, "utf8")).model;
fs.rmSync(path.dirname(out), { recursive: true });
const key = (m) => JSON.stringify(m);
let bad = 0;
const va = Object.entries(a.vocab), vb = Object.entries(b.vocab);
if (!isPrefix && va.length !== vb.length) {
	console.log(`vocab: ${vb.length} tokens, tokenizers ${va.length}`);
	bad++;
}
for (const [s, id] of vb)
	if (a.vocab[s] !== id && bad++ < 5)
		console.log(`vocab: ${JSON.stringify(s)} is ${id}, tokenizers ${a.vocab[s]}`);
if (!isPrefix && a.merges.length !== b.merges.length) {
	console.log(`merges: ${b.merges.length}, tokenizers ${a.merges.length}`);
	bad++;
}
for (let i = 0; i < b.merges.length; i++)
	if (key(a.merges[i]) !== key(b.merges[i]) && bad++ < 10)
		console.log(`merge ${i}: ${key(b.merges[i])}, tokenizers ${key(a.merges[i])}`);
console.log(`vocab ${vb.length} (tokenizers ${va.length}), merges ${b.merges.length} ` +
    `(tokenizers ${a.merges.length}): ${bad ? "differ" : isPrefix ? "a prefix" : "identical"}`);
process.exit(bad ? 1 : 0);
