// jinja-check.mjs: the reference side of tests/chat.bats, with HuggingFace's
// JavaScript implementations: @huggingface/jinja (which mirrors
// transformers' rendering) and @huggingface/tokenizers (tokenizers.js).
//
//   node jinja-check.mjs template FILE   stdin: one JSON object of variables
//                                        a line; out: each rendering + NUL
//   node jinja-check.mjs chat DIR [NAME] stdin: one conversation a line; out:
//                                        each rendering + "\n"
//   node jinja-check.mjs ids DIR [NAME]  the same, encoded: a line of ids each
//
// A failed rendering is written as "<error>" (and its message on stderr),
// the way build/rel/jjrender and tok-encode --chat are compared.  chat and
// ids do what chat.c does: chat_template.jinja, else tokenizer_config.json's
// chat_template (a string, or the list entry named NAME or "default"), the
// special tokens as variables, add_generation_prompt true unless the
// conversation (an array of messages, or an object with "messages") says;
// ids encode as apply_chat_template(tokenize=True): add_special_tokens off.
//
// The packages are looked up under $PIPELM_NODE_PREFIX/node_modules, else
// tests/node_modules (npm install --prefix tests); exit 3 if absent.
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { pathToFileURL, fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const prefix = process.env.PIPELM_NODE_PREFIX || here;

async function load(name) {
	const req = createRequire(path.join(prefix, "node_modules", "x.js"));
	let file;
	try {
		file = req.resolve(name);
	} catch {
		process.stderr.write(`jinja-check: ${name} not installed under ${prefix}/node_modules\n`);
		process.exit(3);
	}
	const m = await import(pathToFileURL(file).href);
	return m.default && !m.Template && !m.Tokenizer ? m.default : m;	/* CommonJS */
}

function lines() {
	return fs.readFileSync(0, "utf8").split("\n").filter((l) => l !== "");
}

function special(v) {
	if (typeof v === "string") return v;
	if (v && typeof v === "object" && typeof v.content === "string") return v.content;
	return undefined;
}

function chatTemplate(dir, name) {
	const cfgPath = path.join(dir, "tokenizer_config.json");
	const cfg = fs.existsSync(cfgPath) ? JSON.parse(fs.readFileSync(cfgPath, "utf8")) : {};
	const jinjaPath = path.join(dir, "chat_template.jinja");
	let src;
	if (fs.existsSync(jinjaPath)) {
		src = fs.readFileSync(jinjaPath, "utf8");
	} else if (typeof cfg.chat_template === "string") {
		src = cfg.chat_template;
	} else if (Array.isArray(cfg.chat_template)) {
		const t = cfg.chat_template.find((x) => x.name === (name || "default"));
		if (!t) throw new Error(`no chat template named ${name || "default"}`);
		src = t.template;
	} else {
		throw new Error(`${dir}: no chat template`);
	}
	const vars = {};
	for (const k of ["bos_token", "eos_token", "unk_token", "pad_token"]) {
		const v = special(cfg[k]);
		if (v !== undefined) vars[k] = v;
	}
	return { src, vars, cfg };
}

function conversation(line, vars) {
	const doc = JSON.parse(line);
	const v = { ...vars, add_generation_prompt: true };
	if (Array.isArray(doc)) v.messages = doc;
	else Object.assign(v, doc);
	return v;
}

const [mode, arg, name] = process.argv.slice(2);
const { Template } = await load("@huggingface/jinja");
const out = [];
let failed = 0;

function render(t, vars) {
	try {
		return t.render(vars);
	} catch (e) {
		process.stderr.write(`jinja-check: ${e.message}\n`);
		failed = 1;
		return "<error>";
	}
}

if (mode === "template") {
	const t = new Template(fs.readFileSync(arg, "utf8"));
	for (const l of lines()) out.push(render(t, JSON.parse(l)) + "\0");
} else if (mode === "chat" || mode === "ids") {
	const { src, vars, cfg } = chatTemplate(arg, name);
	const t = new Template(src);
	let tok = null;
	if (mode === "ids") {
		const { Tokenizer } = await load("@huggingface/tokenizers");
		const tj = JSON.parse(fs.readFileSync(path.join(arg, "tokenizer.json"), "utf8"));
		tok = new Tokenizer(tj, cfg);
	}
	for (const l of lines()) {
		const text = render(t, conversation(l, vars));
		if (!tok || text === "<error>") out.push(text + "\n");
		else out.push(tok.encode(text, { add_special_tokens: false }).ids.join(" ") + "\n");
	}
} else {
	process.stderr.write("usage: node jinja-check.mjs template FILE | chat DIR [NAME] | ids DIR [NAME]\n");
	process.exit(2);
}
process.stdout.write(out.join(""));
process.exitCode = failed;
