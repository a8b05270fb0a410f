// tok-train-check.mjs TEMPLATE OUT FILE...: HuggingFace tokenizers' own
// trainer (the npm package tokenizers, its Node binding of the Rust
// library) on FILE..., the pipeline of TEMPLATE (a tokenizer.json), its
// default BpeTrainer (vocabulary 30000, no initial alphabet, no special
// tokens); the trained tokenizer.json written to OUT.  For tok-train.bats.
import { createRequire } from "module";
const require = createRequire(import.meta.url);
const { Tokenizer } = require("tokenizers");
const [tmpl, out, ...files] = process.argv.slice(2);
const t = Tokenizer.fromFile(tmpl);
t.train(files);
t.save(out, true);
