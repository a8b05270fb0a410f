"""The pipelm Python package against the programs it mirrors: tok-encode,
tok-decode, tok-encode --chat, llm-logits -f npy, llm-gen (same seed) and
llm-score --per-token, on the built-in model and random models of several
architectures (build/rel/mkmodel); errors raise pipelm.Error and the
interpreter lives on; two threads on two sequences equal sequential runs.

make test runs it with PIPELM_BIN (the programs), PIPELM_TOOLS (mkmodel)
and PIPELM_LIB (libpipelm.so) set; from the source tree it finds them
itself.  What needs numpy is skipped, saying so, where numpy is absent."""

import array
import ast
import json
import os
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "python"))
BIN = os.environ.get("PIPELM_BIN", os.path.join(ROOT, "bin"))
TOOLS = os.environ.get("PIPELM_TOOLS", os.path.join(ROOT, "build", "rel"))
os.environ.pop("PIPELM_MODEL", None)

import pipelm  # noqa: E402

try:
    import numpy
except ImportError:
    numpy = None

BUILTIN = os.path.join(ROOT, "share", "pipelm", "stories260K")
TEXTS = ["Once upon a time", "", "  two  spaces\nand a line\n",
         "caf\u00e9 \u2603 \U0001f600 <s> </s>", "Tom and Lily went to the park."]


def run(prog, args, stdin=b""):
    p = subprocess.run([os.path.join(BIN, prog)] + args, input=stdin,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode:
        raise AssertionError("%s %s: exit %d: %s" % (
            prog, " ".join(args), p.returncode, p.stderr.decode()))
    return p.stdout


def record(ids):
    return (" ".join(map(str, ids)) + "\n").encode()


def read_npy(path):
    """(shape, the float32 data as bytes) of a .npy file, without numpy."""
    with open(path, "rb") as f:
        b = f.read()
    assert b[:6] == b"\x93NUMPY", "not a .npy file"
    major = b[6]
    if major == 1:
        (hl,) = struct.unpack("<H", b[8:10])
        off = 10
    else:
        (hl,) = struct.unpack("<I", b[8:12])
        off = 12
    h = ast.literal_eval(b[off:off + hl].decode("latin1"))
    assert h["descr"] == "<f4" and not h["fortran_order"], h
    return tuple(h["shape"]), b[off + hl:]


def floats_bytes(x):
    if numpy is not None and isinstance(x, numpy.ndarray):
        return x.astype("<f4").tobytes()
    if isinstance(x, list):
        return b"".join(r.tobytes() for r in x)
    return x.tobytes()


def mkmodel(d, *args):
    subprocess.run([os.path.join(TOOLS, "mkmodel")] + list(args) + [d],
                   check=True, stdout=subprocess.DEVNULL)
    return d


class Fixture(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="pipelm-test-")
        t = cls.tmp
        tokj = os.path.join(BUILTIN, "tokenizer.json")
        # random models: LLaMA in f32 with biases, Qwen3 and Gemma 3 shapes
        cls.models = {
            "builtin": BUILTIN,
            "llama": mkmodel(os.path.join(t, "llama"), "-s", "3", "--dtype",
                             "f32", "--hidden", "64", "--layers", "2",
                             "--heads", "4", "--kv-heads", "2", "--inter",
                             "96", "--vocab", "512", "--bias", "--tokenizer",
                             tokj),
            "qwen3": mkmodel(os.path.join(t, "qwen3"), "--preset",
                             "qwen3-0.6b", "--layers", "2", "--hidden", "128",
                             "--inter", "256", "--vocab", "512", "--tokenizer",
                             tokj),
            "gemma3": mkmodel(os.path.join(t, "gemma3"), "--preset",
                              "gemma3-1b", "--layers", "2", "--hidden", "128",
                              "--inter", "256", "--vocab", "512",
                              "--tokenizer", tokj),
        }
        cls.open = {k: pipelm.Model(v, threads=2) for k, v in cls.models.items()}

    @classmethod
    def tearDownClass(cls):
        for m in cls.open.values():
            m.close()
        shutil.rmtree(cls.tmp, ignore_errors=True)


class TestTokenizer(Fixture):
    def test_tokenize_is_tok_encode(self):
        m = self.open["builtin"]
        for t in TEXTS:
            for bos in (True, False):
                want = run("tok-encode", ["-e", t] +
                           ([] if bos else ["--no-bos"]))
                self.assertEqual(record(m.tokenize(t, add_special=bos)), want,
                                 (t, bos))

    def test_detokenize_is_tok_decode(self):
        m = self.open["builtin"]
        for t in TEXTS:
            ids = m.tokenize(t)
            for skip in (False, True):
                want = run("tok-decode", ["-n"] + (["--skip-special"] if skip
                                                   else []), record(ids))
                self.assertEqual(m.detokenize_bytes(ids, skip), want)
                self.assertEqual(m.detokenize(ids, skip_special=skip),
                                 want.decode("utf-8", "surrogateescape"))

    def test_chat_is_tok_encode_chat(self):
        d = os.path.join(self.tmp, "chat")
        shutil.copytree(BUILTIN, d)
        with open(os.path.join(d, "chat_template.jinja"), "w") as f:
            f.write("{{ bos_token }}{% for m in messages %}<|{{ m.role }}|>"
                    "{{ m.content }}\n{% endfor %}{% if add_generation_prompt"
                    " %}<|assistant|>{% endif %}")
        with open(os.path.join(ROOT, "tests", "data", "chat.jsonl")) as f:
            lines = [l for l in f.read().splitlines() if l.strip()]
        import json
        with pipelm.Model(d) as m:
            for line in lines:
                conv = json.loads(line)
                want = run("tok-encode", ["-m", d, "--chat"], line.encode())
                self.assertEqual(record(m.chat(conv)), want, line)
                text = run("tok-encode", ["-m", d, "--chat", "--render"],
                           line.encode())
                self.assertEqual(m.render(conv).encode() + b"\n", text)
            self.assertNotEqual(m.chat([{"role": "user", "content": "Hi"}],
                                       add_generation_prompt=False),
                                m.chat([{"role": "user", "content": "Hi"}]))
        with self.assertRaises(pipelm.Error) as e:
            self.open["llama"].chat([{"role": "user", "content": "Hi"}])
        self.assertIn("chat template", str(e.exception))


class TestModel(Fixture):
    def ids(self, name, n=20):
        v = self.open[name].vocab
        return [(i * 37 + 11) % v for i in range(n)]

    def llm_logits(self, name, ids, all):
        out = os.path.join(self.tmp, "l.npy")
        run("llm-logits", ["-m", self.models[name], "-f", "npy", "-o", out] +
            (["--all"] if all else []), record(ids))
        return read_npy(out)

    def test_logits_are_llm_logits_npy(self):
        for name in self.models:
            m = self.open[name]
            ids = self.ids(name)
            shape, want = self.llm_logits(name, ids, False)
            got = m.logits(ids)
            self.assertEqual(shape, (1, m.vocab))
            self.assertEqual(len(got), m.vocab)
            self.assertEqual(floats_bytes(got), want, name)
            shape, want = self.llm_logits(name, ids, True)
            got = m.logits(ids, all=True)
            self.assertEqual(shape, (len(ids), m.vocab))
            self.assertEqual(len(got), len(ids))
            self.assertEqual(floats_bytes(got), want, name)

    def test_logits_whatever_the_threads(self):
        ids = self.ids("qwen3")
        with pipelm.Model(self.models["qwen3"], threads=1) as m1:
            self.assertEqual(floats_bytes(m1.logits(ids, all=True)),
                             floats_bytes(self.open["qwen3"].logits(ids, all=True)))

    def test_kv_type_is_llm_logits_kv_type(self):
        ids = self.ids("qwen3")
        want = {}
        # bytes an element against f32's 4: 2, or 34 a block of 32
        per4 = {"f32": 4 * 32, "bf16": 2 * 32, "f16": 2 * 32, "q8_0": 34}
        for kv in ("f32", "bf16", "f16", "q8_0"):
            with pipelm.Model(self.models["qwen3"], threads=2, kv_type=kv) as m:
                got = m.logits(ids, all=True)
                with m.sequence() as s:
                    b = s.kv_bytes
                with m.sequence(ctx=64, kv_type="f32") as s:
                    self.assertEqual(s.ctx, 64)
                    b64 = s.kv_bytes
                with m.sequence(ctx=64) as s:
                    self.assertEqual(s.kv_bytes * 4 * 32, b64 * per4[kv])
            self.assertGreater(b, 0)
            out = os.path.join(self.tmp, "kv.npy")
            run("llm-logits", ["-m", self.models["qwen3"], "-f", "npy", "-o",
                               out, "--all", "--kv-type", kv], record(ids))
            want[kv] = read_npy(out)[1]
            self.assertEqual(floats_bytes(got), want[kv], kv)
        # the cache's type reaches the arithmetic: rounded keys differ
        self.assertNotEqual(want["bf16"], want["f32"])
        self.assertNotEqual(want["f16"], want["f32"])

    def test_int8_act_mode_is_llm_logits(self):
        ids = self.ids("qwen3")
        for mode, flags in (("q8_0+int8-act", ["--quant", "q8_0"]),
                            ("q4+int8-act", ["--quant", "q4"])):
            with pipelm.Model(self.models["qwen3"], threads=2, mode=mode) as m:
                got = m.logits(ids, all=True)
            out = os.path.join(self.tmp, "i8.npy")
            run("llm-logits", ["-m", self.models["qwen3"], "-f", "npy", "-o",
                               out, "--all", "--int8-act"] + flags, record(ids))
            self.assertEqual(floats_bytes(got), read_npy(out)[1], mode)

    def test_numpy_arrays(self):
        if numpy is None:
            self.skipTest("numpy not installed: the array.array path was run")
        m = self.open["builtin"]
        a = m.logits([1, 2, 3])
        self.assertIsInstance(a, numpy.ndarray)
        self.assertEqual((a.dtype, a.shape), (numpy.float32, (m.vocab,)))
        a = m.logits([1, 2, 3], all=True)
        self.assertEqual(a.shape, (3, m.vocab))

    def test_plain_sequences_without_numpy(self):
        if numpy is not None:
            self.skipTest("numpy installed: the numpy path was run")
        a = self.open["builtin"].logits([1, 2, 3])
        self.assertIsInstance(a, array.array)
        self.assertEqual(a.typecode, "f")

    def test_generate_is_llm_gen(self):
        cases = [
            ("builtin", dict(max_new=40, seed=7), ["-n", "40", "--seed", "7"]),
            ("builtin", dict(max_new=30, seed=1, temperature=0.7, top_k=10,
                             top_p=0.9, min_p=0.05, repeat_penalty=1.3),
             ["-n", "30", "--seed", "1", "--temp", "0.7", "--top-k", "10",
              "--top-p", "0.9", "--min-p", "0.05", "--repeat-penalty", "1.3"]),
            ("builtin", dict(max_new=50, seed=2, ignore_eos=True),
             ["-n", "50", "--seed", "2", "--ignore-eos"]),
            ("builtin", dict(seed=3, stop=(13,)), ["--seed", "3", "--stop", "13"]),
            ("builtin", dict(seed=4, stop=("the",), max_new=60),
             ["--seed", "4", "--stop-text", "the", "-n", "60"]),
            ("llama", dict(max_new=20, seed=5), ["-n", "20", "--seed", "5"]),
            ("qwen3", dict(max_new=20, seed=6, temperature=0),
             ["-n", "20", "--seed", "6", "--temp", "0"]),
            ("gemma3", dict(max_new=20, seed=8), ["-n", "20", "--seed", "8"]),
        ]
        for name, kw, args in cases:
            m = self.open[name]
            ids = m.tokenize("Once upon a time")
            want = run("llm-gen", ["-m", self.models[name]] + args, record(ids))
            got = list(m.generate(ids, **kw))
            self.assertEqual(record(got), want, (name, kw))
        m = self.open["builtin"]
        self.assertEqual(m.complete("Once upon a time", max_new=25, seed=9),
                         run("tok-decode", ["-n"], run(
                             "llm-gen", ["-n", "25", "--seed", "9"],
                             run("tok-encode", [], b"Once upon a time"))).decode())

    def test_score_is_llm_score(self):
        for name in ("builtin", "llama", "gemma3"):
            ids = self.ids(name, 30)
            out = run("llm-score", ["-m", self.models[name], "--per-token"],
                      record(ids)).decode().splitlines()
            want = [l.split("\t")[3] for l in out]
            got = ["%.9g" % x for x in self.open[name].score(ids)]
            self.assertEqual(got, want, name)
        # longer than the context: windows, as llm-score
        d = mkmodel(os.path.join(self.tmp, "short"), "-s", "4", "--hidden",
                    "32", "--layers", "1", "--heads", "2", "--kv-heads", "1",
                    "--inter", "48", "--ctx", "16")
        ids = [(i * 7 + 1) % 259 for i in range(40)]
        out = run("llm-score", ["-m", d, "--per-token"], record(ids))
        want = [l.split("\t")[3] for l in out.decode().splitlines()]
        with pipelm.Model(d) as m:
            self.assertEqual(["%.9g" % x for x in m.score(ids)], want)

    def test_sequence(self):
        m = self.open["builtin"]
        ids = m.tokenize("Once upon a time")
        with m.sequence() as s:
            self.assertEqual(s.pos, 0)
            a = s.eval(ids)
            self.assertEqual(s.pos, len(ids))
            self.assertEqual(floats_bytes(a), floats_bytes(m.logits(ids)))
            s.eval([400])
            self.assertEqual(s.pos, len(ids) + 1)
            s.reset()
            self.assertEqual(s.pos, 0)
            self.assertEqual(floats_bytes(s.eval(ids)), floats_bytes(a))

    def test_threads_equal_sequential(self):
        m = self.open["qwen3"]
        prompts = [self.ids("qwen3", 12), self.ids("qwen3", 7)[::-1]]

        def greedy(s, ids, n):
            out = []
            x = s.eval(ids)
            for _ in range(n):
                t = max(range(len(x)), key=lambda i: (x[i], -i))
                out.append(t)
                x = s.eval([t])
            return out

        want = [greedy(m.sequence(), p, 15) for p in prompts]
        gens = [list(m.generate(p, max_new=15, seed=i)) for i, p in
                enumerate(prompts)]
        got, ggot = [None, None], [None, None]

        def work(i):
            with m.sequence() as s:
                got[i] = greedy(s, prompts[i], 15)
            ggot[i] = list(m.generate(prompts[i], max_new=15, seed=i))

        th = [threading.Thread(target=work, args=(i,)) for i in (0, 1)]
        for t in th:
            t.start()
        for t in th:
            t.join()
        self.assertEqual(got, want)
        self.assertEqual(ggot, gens)

    def test_from_bytes(self):
        def read(n):
            with open(os.path.join(BUILTIN, n), "rb") as f:
                return f.read()
        with pipelm.Model.from_bytes(read("config.json"),
                                     read("model.safetensors"),
                                     read("tokenizer.json")) as m:
            ids = m.tokenize("Once upon a time")
            self.assertEqual(ids, self.open["builtin"].tokenize("Once upon a time"))
            self.assertEqual(floats_bytes(m.logits(ids)),
                             floats_bytes(self.open["builtin"].logits(ids)))
            self.assertFalse(os.path.exists(m.dir))


class TestGGUF(unittest.TestCase):
    """A model opened from a GGUF file (mkgguf's copy of the built-in
    model, a chat template added, alone in its folder): its tokenizer and
    chat template are the file's, as tok-encode -m FILE gives them."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="pipelm-test-gguf-")
        src = os.path.join(cls.tmp, "m")
        shutil.copytree(BUILTIN, src)
        with open(os.path.join(src, "chat_template.jinja"), "w") as f:
            f.write("{% for m in messages %}<{{ m.role }}>{{ m.content }}"
                    "{% endfor %}{% if add_generation_prompt %}<a>{% endif %}")
        os.mkdir(os.path.join(cls.tmp, "g"))
        cls.gguf = os.path.join(cls.tmp, "g", "s.gguf")
        subprocess.run([os.path.join(TOOLS, "mkgguf"), src, cls.gguf],
                       check=True, stdout=subprocess.DEVNULL)
        shutil.rmtree(src)
        cls.m = pipelm.Model(cls.gguf, threads=2)

    @classmethod
    def tearDownClass(cls):
        cls.m.close()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_tokenizer_is_the_files(self):
        for t in TEXTS:
            ids = self.m.tokenize(t)
            self.assertEqual(record(ids),
                             run("tok-encode", ["-m", self.gguf, "-e", t]), t)
            self.assertEqual(self.m.detokenize_bytes(ids[1:]),
                             run("tok-decode", ["-m", self.gguf, "-n"],
                                 record(ids[1:])), t)

    def test_chat_template_is_the_files(self):
        conv = [{"role": "user", "content": "Hi"}]
        self.assertEqual(self.m.render(conv), "<user>Hi<a>")
        self.assertEqual(record(self.m.chat(conv)),
                         run("tok-encode", ["-m", self.gguf, "--chat"],
                             (json.dumps({"messages": conv,
                                          "add_generation_prompt": True}) +
                              "\n").encode()))

    def test_logits_are_llm_logits(self):
        ids = self.m.tokenize("Once upon a time")
        out = os.path.join(self.tmp, "l.npy")
        run("llm-logits", ["-m", self.gguf, "-f", "npy", "-o", out, "--all"],
            record(ids))
        self.assertEqual(floats_bytes(self.m.logits(ids, all=True)),
                         read_npy(out)[1])


class TestErrors(Fixture):
    def test_errors_raise_and_the_process_lives(self):
        m = self.open["builtin"]
        bad = [
            (lambda: pipelm.Model(os.path.join(self.tmp, "nothere")), "nothere"),
            (lambda: pipelm.Model(BUILTIN, mode="q3"), "q3"),
            (lambda: pipelm.Model(BUILTIN, mode="int8-act"), "quantized weights"),
            (lambda: m.logits([1, 99999]), "99999"),
            (lambda: m.logits([-1]), "-1"),
            (lambda: m.logits([]), "no ids"),
            (lambda: m.logits("abc"), "string"),
            (lambda: m.detokenize([1, 70000]), "70000"),
            (lambda: m.sequence(ctx=4).eval(list(range(1, 6))), "context"),
            (lambda: list(m.generate([1, 2], temperature=-1)), "temp"),
            (lambda: list(m.generate([1, 2], top_p=1.5)), "top-p"),
            (lambda: list(m.generate([], max_new=3)), "empty prompt"),
            (lambda: m.score([1, 600]), "600"),
            (lambda: m.piece(100000), "100000"),
            (lambda: pipelm.Model(BUILTIN, threads=0), "threads"),
            (lambda: pipelm.Model(BUILTIN, kv_type="q4_0"), "kv_type"),
            (lambda: m.sequence(kv_type="f8"), "kv_type"),
        ]
        for f, what in bad:
            with self.assertRaises(pipelm.Error) as e:
                f()
            self.assertIn(what, str(e.exception))
        # still working
        self.assertEqual(len(m.logits([1, 2])), m.vocab)

    def test_memory_exhaustion_raises(self):
        # a KV cache of 2^30 positions of the built-in model: 1280 GiB
        with self.assertRaises(pipelm.Error) as e:
            self.open["builtin"].sequence(ctx=1 << 30)
        self.assertIn("cannot allocate", str(e.exception))

    def test_sigint_stops_generate(self):
        m = self.open["builtin"]
        ids = m.tokenize("Once upon a time")
        got = []
        with self.assertRaises(KeyboardInterrupt):
            for t in m.generate(ids, max_new=200, seed=7, ignore_eos=True):
                got.append(t)
                if len(got) == 5:
                    os.kill(os.getpid(), signal.SIGINT)
        self.assertLess(len(got), 10)
        self.assertEqual(got[:5], list(m.generate(ids, max_new=5, seed=7)))


class TestExamples(unittest.TestCase):
    def example(self, name, *args):
        p = subprocess.run([sys.executable, os.path.join(
            ROOT, "examples", "python", name)] + list(args),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.assertEqual(p.returncode, 0, p.stderr.decode())
        return p.stdout.decode()

    def test_sampler(self):
        out = self.example("sampler.py", "-n", "20", "--seed", "3")
        self.assertTrue(out.startswith("Once upon a time"))
        self.assertEqual(out, self.example("sampler.py", "-n", "20",
                                           "--seed", "3"))

    def test_perplexity(self):
        if numpy is None:
            self.skipTest("numpy not installed: examples/python/perplexity.py "
                          "not run")
        out = self.example("perplexity.py", "Once upon a time")
        self.assertIn("tokens scored: 4", out)
        self.assertIn("Model.score agrees", out)


if __name__ == "__main__":
    unittest.main()
