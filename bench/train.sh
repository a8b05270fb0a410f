#!/bin/sh
# bench/train.sh: tok-train beside HuggingFace tokenizers' own trainer (the
# npm package tokenizers of tests/package.json, its Node binding of the
# Rust library) on the same corpus: a 30000-token vocabulary (what its
# train() gives) on TRAIN_MB (100) megabytes of tests/tok-train-corpus.mjs
# text (seed 7, a lexicon of 500000 words in several scripts; written
# once under BENCH_DIR, build/bench), through a byte-level pipeline like SmolLM2's,
# on 1 thread and on all (tokenizers: RAYON_NUM_THREADS).  For each run:
# wall time, CPU time (user + system, which other load on the machine
# does not inflate), peak RSS; and whether the two vocabularies and merge
# lists are identical.  A table goes to stdout.  Run by hand or by `make
# bench-train`; it takes minutes.
#
# usage: bench/train.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
bin=${PIPELM_BIN:-$here/../bin}
nm=${PIPELM_NODE_PREFIX:-$here/../tests}
dir=${BENCH_DIR:-$here/../build/bench}
mb=${TRAIN_MB:-100}
for c in node /usr/bin/time; do
	command -v $c >/dev/null 2>&1 || {
		echo "bench/train.sh: skipped: no $c" >&2
		exit 0
	}
done
hf=
[ -r "$nm/node_modules/tokenizers/package.json" ] && hf=1
[ -n "$hf" ] || echo "bench/train.sh: tokenizers not installed under $nm/node_modules (npm install --prefix tests): tok-train alone" >&2
mkdir -p "$dir"
corpus=$dir/train-corpus-${mb}M.txt
[ -s "$corpus" ] ||
	node "$here/../tests/tok-train-corpus.mjs" $((mb * 1000000)) 7 500000 >"$corpus"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
cat >"$tmp/t.json" <<'J'
{"version": "1.0", "added_tokens": [], "normalizer": null,
 "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": true},
 "post_processor": null,
 "decoder": {"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true, "use_regex": true},
 "model": {"type": "BPE", "dropout": null, "unk_token": null, "continuing_subword_prefix": null,
  "end_of_word_suffix": null, "fuse_unk": false, "byte_fallback": false, "ignore_merges": false,
  "vocab": {}, "merges": []}}
J
cat >"$tmp/hf.mjs" <<J
import { createRequire } from "node:module";
const req = createRequire("$nm/node_modules/x.js");
const { Tokenizer } = req("tokenizers");
const [tmpl, out, n, ...files] = process.argv.slice(2);
const t = Tokenizer.fromFile(tmpl);
t.train(files);
t.save(out, false);
J
cat >"$tmp/cmp.mjs" <<'J'
import fs from "node:fs";
const [a, b] = process.argv.slice(2).map((f) => JSON.parse(fs.readFileSync(f, "utf8")).model);
const same = JSON.stringify(a.vocab) === JSON.stringify(b.vocab) &&
    JSON.stringify(a.merges) === JSON.stringify(b.merges);
console.log(same ? "yes" : "NO");
J
all=$(nproc 2>/dev/null || echo 2)
# tokenizers' train() (its Node binding) runs the default trainer, a
# vocabulary of 30000: tok-train is given the same
n=30000
row() {	# name threads command...
	name=$1 th=$2
	shift 2
	/usr/bin/time -f "%e %U %S %M" -o "$tmp/time" "$@" >/dev/null 2>"$tmp/err" || {
		echo "bench/train.sh: $name failed: $(tail -n 3 "$tmp/err")" >&2
		return 0
	}
	awk -v n="$name" -v t="$th" '{ printf "| %s | %d | %.1f | %.1f | %.0f |", n, t, $1, $2 + $3, $4 / 1024 }' "$tmp/time"
}
echo "Training $n tokens on $(($(wc -c <"$corpus") / 1000000)) MB ($(date -u '+%Y-%m-%d %H:%M UTC'), $(uname -m), $all CPUs):"
echo
echo "| trainer | threads | wall s | CPU s | peak RSS MB | same as tokenizers |"
echo "|---|---|---|---|---|---|"
for th in 1 $all; do
	[ "$th" = 1 ] || [ "$all" != 1 ] || continue
	if [ -n "$hf" ]; then
		RAYON_NUM_THREADS=$th row "tokenizers $(node -p "require('$nm/node_modules/tokenizers/package.json').version")" $th \
		    node "$tmp/hf.mjs" "$tmp/t.json" "$tmp/hf$th.json" $n "$corpus"
		echo " |"
	fi
	row tok-train $th "$bin/tok-train" --like "$tmp/t.json" -n $n -t $th -o "$tmp/me$th" "$corpus"
	if [ -n "$hf" ] && [ -s "$tmp/hf$th.json" ]; then
		echo " $(node "$tmp/cmp.mjs" "$tmp/hf$th.json" "$tmp/me$th/tokenizer.json") |"
	else
		echo " |"
	fi
done
