// tok-train-corpus.mjs BYTES SEED [WORDS]: a text of about BYTES bytes on
// stdout, deterministic in SEED (and WORDS, the lexicon's size, 20000), for tests/tok-train.bats and bench/: lines of
// words drawn with Zipf-like frequencies from a lexicon made of syllables
// in several scripts (Latin with accents, Greek, Cyrillic, Arabic,
// Devanagari, CJK, Hangul, emoji), with digits and punctuation, so that
// BPE training meets many scripts, multi-byte characters and ties.
const bytes = Number(process.argv[2] || 1 << 20), seed0 = Number(process.argv[3] || 1);
const nlex = Number(process.argv[4] || 20000);
let s = BigInt(seed0) * 0x9e3779b97f4a7c15n & 0xffffffffffffffffn;
function rnd() {	// splitmix64 -> [0, 1)
	s = (s + 0x9e3779b97f4a7c15n) & 0xffffffffffffffffn;
	let z = s;
	z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & 0xffffffffffffffffn;
	z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & 0xffffffffffffffffn;
	z ^= z >> 31n;
	return Number(z >> 11n) / 2 ** 53;
}
const pick = (a) => a[Math.floor(rnd() * a.length)];
const scripts = [
	["ka", "to", "ri", "en", "the", "ing", "qu", "é", "ü", "ñ", "ß", "an", "st", "ou"],
	["κα", "λο", "πε", "ρι", "στ", "ου", "ή", "ώ"],
	["при", "ве", "то", "на", "ст", "ый", "ка", "ж"],
	["ال", "سل", "ام", "كت", "ب", "ي", "ة", "م"],
	["क", "म", "ला", "स्", "ते", "रा", "न"],
	["日", "本", "語", "中", "文", "学", "生", "の", "は", "に"],
	["한", "국", "어", "사", "랑", "해", "요"],
	["🚀", "😀", "👍🏽", "❤️"],
];
const lex = [];
for (let i = 0; i < nlex; i++) {
	const sc = i % 11 < 6 ? scripts[0] : pick(scripts);
	let w = "", n = 1 + Math.floor(rnd() * 4);
	while (n--)
		w += pick(sc);
	if (rnd() < 0.1)
		w = w[0].toUpperCase() + w.slice(1);
	lex.push(w);
}
const punct = [",", ".", "!", "?", ";", ":", " -", "\t", "  "];
const out = [];
let total = 0;
while (total < bytes) {
	let line = "", n = 3 + Math.floor(rnd() * 15);
	while (n--) {
		const r = rnd();
		let w = r < 0.05 ? String(Math.floor(rnd() * 100000)) :
		    lex[Math.floor(lex.length * Math.pow(rnd(), 3))];
		line += (line ? " " : "") + w;
		if (rnd() < 0.1)
			line += pick(punct);
	}
	line += rnd() < 0.05 ? "\r\n" : "\n";
	out.push(line);
	total += Buffer.byteLength(line);
	if (out.length >= 4096) {
		process.stdout.write(out.join(""));
		out.length = 0;
	}
}
process.stdout.write(out.join(""));
