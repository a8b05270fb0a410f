"""pipelm: HuggingFace language models from Python, over libpipelm.so.

ctypes over the C API (pipelm(3)): nothing is compiled at import and
nothing outside the standard library is needed; numpy is used when it is
installed (logits as float32 arrays filled in place), plain Python
sequences otherwise.  Every failure raises pipelm.Error with the
library's message; the library never prints and never ends the process.

    import pipelm
    m = pipelm.Model()                      # the built-in model
    ids = m.tokenize("Once upon a time")
    print(m.detokenize(list(m.generate(ids, max_new=20, seed=7))))
"""

import array
import ctypes
import ctypes.util
import json
import os
import shutil
import tempfile
import threading

try:
    import numpy as _np
except ImportError:  # plain sequences instead
    _np = None

__all__ = ["Model", "Sequence", "Error", "library_path"]

_HERE = os.path.dirname(os.path.abspath(__file__))


class Error(Exception):
    """A failure of the library, with its message."""


def _find_library():
    cands = []
    if os.environ.get("PIPELM_LIB"):
        cands.append(os.environ["PIPELM_LIB"])
    cands.append(os.path.join(_HERE, "libpipelm.so"))
    # the source tree: python/pipelm/ beside build/rel/
    cands.append(os.path.join(_HERE, "..", "..", "build", "rel", "libpipelm.so"))
    for c in cands:
        if os.path.exists(c):
            return os.path.abspath(c)
    found = ctypes.util.find_library("pipelm")
    if found:
        return found
    raise ImportError("pipelm: libpipelm.so not found (build it with make, "
                      "or set PIPELM_LIB); looked in " + ", ".join(cands))


def _builtin_model():
    """The built-in model's folder (stories260K), or None to let the
    library look for it where make install put it."""
    for d in (os.path.join(_HERE, "share", "stories260K"),
              os.path.join(_HERE, "..", "..", "share", "pipelm", "stories260K")):
        if os.path.exists(os.path.join(d, "config.json")):
            return os.path.abspath(d)
    return None


library_path = _find_library()
_lib = ctypes.CDLL(library_path)

_P = ctypes.c_void_p
_INTP = ctypes.POINTER(ctypes.c_int)
_SZ = ctypes.c_size_t


def _sig(name, res, *args):
    f = getattr(_lib, name)
    f.restype = res
    f.argtypes = list(args)
    return f


_sig("pipelm_version", ctypes.c_char_p)
_sig("pipelm_errmsg", ctypes.c_char_p)
_sig("pipelm_free", None, _P)
_sig("pipelm_model_open", ctypes.c_int, ctypes.POINTER(_P), ctypes.c_char_p,
     ctypes.c_int, ctypes.c_char_p)
_sig("pipelm_model_close", None, _P)
_sig("pipelm_model_vocab", ctypes.c_int, _P)
_sig("pipelm_model_ctx", ctypes.c_int, _P)
_sig("pipelm_model_dir", ctypes.c_char_p, _P)
_sig("pipelm_tokenize", ctypes.c_int, _P, ctypes.c_char_p, _SZ, ctypes.c_int,
     ctypes.POINTER(_INTP), ctypes.POINTER(_SZ))
_sig("pipelm_detokenize", ctypes.c_int, _P, _INTP, _SZ, ctypes.c_int,
     ctypes.POINTER(_P), ctypes.POINTER(_SZ))
_sig("pipelm_piece", _P, _P, ctypes.c_int, ctypes.POINTER(_SZ))
_sig("pipelm_chat_render", ctypes.c_int, _P, ctypes.c_char_p, _SZ,
     ctypes.POINTER(_P), ctypes.POINTER(_SZ))
_sig("pipelm_chat_tokenize", ctypes.c_int, _P, ctypes.c_char_p, _SZ,
     ctypes.POINTER(_INTP), ctypes.POINTER(_SZ))
_sig("pipelm_seq_open", ctypes.c_int, ctypes.POINTER(_P), _P, ctypes.c_int)
_sig("pipelm_seq_open_kv", ctypes.c_int, ctypes.POINTER(_P), _P, ctypes.c_int,
     ctypes.c_char_p)
_sig("pipelm_seq_kv_bytes", _SZ, _P)
_sig("pipelm_seq_close", None, _P)
_sig("pipelm_seq_reset", None, _P)
_sig("pipelm_seq_pos", ctypes.c_int, _P)
_sig("pipelm_seq_ctx", ctypes.c_int, _P)
_sig("pipelm_seq_eval", ctypes.c_int, _P, _INTP, _SZ, _P)
_sig("pipelm_seq_eval_all", ctypes.c_int, _P, _INTP, _SZ, _P)
_sig("pipelm_score", ctypes.c_int, _P, _INTP, _SZ,
     ctypes.POINTER(ctypes.c_double))
_sig("pipelm_gen_open", ctypes.c_int, ctypes.POINTER(_P), _P)
_sig("pipelm_gen_close", None, _P)
_sig("pipelm_gen_set", ctypes.c_int, _P, ctypes.c_char_p, ctypes.c_char_p)
_sig("pipelm_gen_seed", ctypes.c_uint64, _P)
_sig("pipelm_gen_start", ctypes.c_int, _P, _P, _INTP, _SZ)
_sig("pipelm_gen_next", ctypes.c_int, _P, _INTP)

__version__ = _lib.pipelm_version().decode()


def _check(r):
    # ctypes calls run without the GIL; the message is this thread's
    if r < 0:
        raise Error(_lib.pipelm_errmsg().decode("utf-8", "replace"))
    return r


KV_TYPES = ("f32", "bf16", "f16", "q8_0")   # --kv-type's names


def _check_kv_type(kv_type):
    if kv_type not in KV_TYPES:
        raise Error("kv_type: one of %s, not %r" % (", ".join(KV_TYPES),
                                                   kv_type))


def _ids(ids):
    """ids as a C int array and its length; Error for what is not ids."""
    if isinstance(ids, (str, bytes)):
        raise Error("ids: a sequence of integers, not a string")
    try:
        v = [int(i) for i in ids]
    except (TypeError, ValueError) as e:
        raise Error("ids: %s" % e) from None
    for i in v:
        if not -2**31 <= i < 2**31:
            raise Error("id %d not in the vocabulary" % i)
    return (ctypes.c_int * len(v))(*v), len(v)


def _take_ids(p, n):
    try:
        return p[:n.value]
    finally:
        _lib.pipelm_free(p)


def _take_bytes(p, n):
    try:
        return ctypes.string_at(p, n.value)
    finally:
        _lib.pipelm_free(p)


def _floats(shape):
    """A float32 buffer of shape and its address: a numpy array, else an
    array.array (rows of one for two dimensions)."""
    count = 1
    for d in shape:
        count *= d
    if _np is not None:
        a = _np.empty(shape, dtype=_np.float32)
        return a, a.ctypes.data
    a = array.array("f", bytes(4 * count))
    return a, a.buffer_info()[0]


def _rows(a, shape):
    if _np is not None or len(shape) == 1:
        return a
    v = shape[1]
    return [a[i * v:(i + 1) * v] for i in range(shape[0])]


_GEN_NAMES = (("temperature", "temp"), ("top_k", "top-k"), ("top_p", "top-p"),
              ("min_p", "min-p"), ("repeat_penalty", "repeat-penalty"))


class Model:
    """A model, its tokenizer and chat template, opened as the programs'
    -m opens one.

    model: a folder, ORG/NAME in the HuggingFace cache, or None for
    $PIPELM_MODEL, else the built-in model (stories260K).  threads: worker
    threads (default $PIPELM_THREADS, else the CPUs).  ctx: positions a
    sequence holds (default the model's max_position_embeddings).  mode:
    "exact", "bf16-act", "q8_0" or "q4" (llm-gen's --bf16-act and --quant),
    "q8_0+int8-act" or "q4+int8-act" (--quant with --int8-act), or
    "int8-act" for a model whose weights are 4-bit already.  kv_type:
    the KV cache's elements, "f32" (exact), "bf16" or "f16" (half the
    memory, keys and values rounded: --kv-type) or "q8_0" (about a
    quarter, in blocks of 32 with a scale each), for its sequences.
    Results do not depend on threads.  A Model is used from any number of
    threads; each Sequence by one at a time.
    """

    def __init__(self, model=None, *, threads=None, ctx=None, mode="exact",
                 kv_type="f32"):
        self._h = None
        self._tmp = None
        if model is None and not os.environ.get("PIPELM_MODEL"):
            model = _builtin_model()
        if model is not None:
            model = os.fspath(model)
        if threads is not None and (not isinstance(threads, int) or threads < 1):
            raise Error("threads: a positive integer, not %r" % (threads,))
        if ctx is not None and (not isinstance(ctx, int) or ctx < 1):
            raise Error("ctx: a positive integer, not %r" % (ctx,))
        _check_kv_type(kv_type)
        h = _P()
        _check(_lib.pipelm_model_open(
            ctypes.byref(h), model.encode() if model is not None else None,
            threads or 0, mode.encode() if mode is not None else None))
        self._h = h
        self.ctx = ctx or 0
        self.kv_type = kv_type
        self.vocab = _lib.pipelm_model_vocab(h)
        self.dir = _lib.pipelm_model_dir(h).decode()

    @classmethod
    def from_bytes(cls, config, weights, tokenizer=None, **kw):
        """A model held in memory: config.json's text (str, bytes or a
        dict), the model.safetensors bytes and tokenizer.json's (optional).
        They are written to a private folder that is gone once the model
        is loaded (the weights stay mapped)."""
        d = tempfile.mkdtemp(prefix="pipelm-")
        try:
            if isinstance(config, dict):
                config = json.dumps(config)
            for name, data in (("config.json", config),
                               ("model.safetensors", weights),
                               ("tokenizer.json", tokenizer)):
                if data is None:
                    continue
                if isinstance(data, str):
                    data = data.encode()
                with open(os.path.join(d, name), "wb") as f:
                    f.write(data)
            m = cls(d, **kw)
            if tokenizer is not None:  # read now, while the file is there
                m.tokenize("")
            return m
        finally:
            shutil.rmtree(d, ignore_errors=True)

    def close(self):
        """Free the model (also done when it is collected)."""
        if self._h:
            _lib.pipelm_model_close(self._h)
            self._h = None

    def __del__(self):
        self.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _handle(self):
        if not self._h:
            raise Error("the model is closed")
        return self._h

    # ---- the tokenizer ----

    def tokenize(self, text, add_special=True):
        """The ids of text (str or bytes), as tok-encode gives them;
        add_special=False is tok-encode --no-bos."""
        if isinstance(text, str):
            text = text.encode("utf-8", "surrogateescape")
        p, n = _INTP(), _SZ()
        _check(_lib.pipelm_tokenize(self._handle(), text, len(text),
                                    1 if add_special else 0,
                                    ctypes.byref(p), ctypes.byref(n)))
        return _take_ids(p, n)

    def detokenize(self, ids, skip_special=False):
        """The text of ids, as tok-decode writes it (skip_special:
        --skip-special); bytes that are not UTF-8 are kept as surrogate
        escapes."""
        return self.detokenize_bytes(ids, skip_special).decode(
            "utf-8", "surrogateescape")

    def detokenize_bytes(self, ids, skip_special=False):
        """detokenize, as bytes."""
        a, n = _ids(ids)
        p, ln = _P(), _SZ()
        _check(_lib.pipelm_detokenize(self._handle(), a, n,
                                      1 if skip_special else 0,
                                      ctypes.byref(p), ctypes.byref(ln)))
        return _take_bytes(p, ln)

    def piece(self, id):
        """The token's string as tokenizer.json writes it."""
        n = _SZ()
        p = _lib.pipelm_piece(self._handle(), int(id), ctypes.byref(n))
        if not p:
            _check(-1)
        return ctypes.string_at(p, n.value).decode("utf-8", "surrogateescape")

    @staticmethod
    def _conversation(messages, add_generation_prompt):
        if isinstance(messages, dict):
            doc = dict(messages)
        else:
            doc = {"messages": list(messages)}
        doc.setdefault("add_generation_prompt", bool(add_generation_prompt))
        return json.dumps(doc).encode()

    def chat(self, messages, add_generation_prompt=True):
        """The ids of a conversation rendered with the model's chat
        template, as tok-encode --chat gives them.  messages: a list of
        {"role", "content"} dicts, or a dict holding "messages" and any
        other variables the template reads."""
        doc = self._conversation(messages, add_generation_prompt)
        p, n = _INTP(), _SZ()
        _check(_lib.pipelm_chat_tokenize(self._handle(), doc, len(doc),
                                         ctypes.byref(p), ctypes.byref(n)))
        return _take_ids(p, n)

    def render(self, messages, add_generation_prompt=True):
        """The text of the conversation (tok-encode --chat --render)."""
        doc = self._conversation(messages, add_generation_prompt)
        p, n = _P(), _SZ()
        _check(_lib.pipelm_chat_render(self._handle(), doc, len(doc),
                                       ctypes.byref(p), ctypes.byref(n)))
        return _take_bytes(p, n).decode("utf-8", "surrogateescape")

    # ---- the model ----

    def sequence(self, ctx=None, kv_type=None):
        """A new Sequence (its own KV cache) on this model; ctx and
        kv_type default to the model's."""
        return Sequence(self, ctx, kv_type)

    def logits(self, ids, all=False):
        """The next-token logits after ids, float32, shape (vocab,); with
        all=True those of every position, (len(ids), vocab): llm-logits
        -f npy (--all), bit for bit.  A numpy array when numpy is
        installed, else an array.array('f') (a list of them for all)."""
        with self.sequence() as s:
            return s.eval_all(ids) if all else s.eval(ids)

    def score(self, ids):
        """The natural-log probability of each id after the first, given
        those before it: llm-score --per-token's logprob column (records
        longer than the context in windows, as llm-score)."""
        a, n = _ids(ids)
        if n < 2:
            return []
        out = (ctypes.c_double * (n - 1))()
        with self.sequence() as s:
            _check(_lib.pipelm_score(s._h, a, n, out))
        return list(out)

    def generate(self, ids, max_new=None, temperature=None, top_k=None,
                 top_p=None, min_p=None, repeat_penalty=None, seed=None,
                 stop=(), ignore_eos=False):
        """An iterator over the ids sampled after the prompt ids, each as it
        comes: llm-gen's ids for the same seed.  What is None takes
        generation_config.json's value, else llm-gen's default
        (temperature 1, top_k 50, top_p 1, min_p 0, repeat_penalty 1; no
        max_new: until an end-of-sequence id or the context is full).
        stop: ids (int) and strings (str: llm-gen --stop-text) that end the
        continuation after the one that completes them.  seed None: drawn
        from the system.  Closing the iterator (or Ctrl-C) stops it."""
        opts = []
        if max_new is not None:
            opts.append(("max-new", max_new))
        for py, c in _GEN_NAMES:
            v = locals()[py]
            if v is not None:
                opts.append((c, repr(float(v)) if py != "top_k" else v))
        if seed is not None:
            opts.append(("seed", seed))
        if isinstance(stop, (str, int)):
            stop = (stop,)
        for s in stop:
            opts.append(("stop-text" if isinstance(s, str) else "stop", s))
        if ignore_eos:
            opts.append(("ignore-eos", ""))
        a, n = _ids(ids)
        g = _P()
        _check(_lib.pipelm_gen_open(ctypes.byref(g), self._handle()))
        seq = None
        try:
            for name, v in opts:
                if isinstance(v, bool) or (name != "stop-text" and
                                           not isinstance(v, (int, str))):
                    v = str(v)
                _check(_lib.pipelm_gen_set(g, name.encode(),
                                           str(v).encode("utf-8", "surrogateescape")))
            seq = self.sequence()
            _check(_lib.pipelm_gen_start(g, seq._h, a, n))
            self.last_seed = _lib.pipelm_gen_seed(g)
        except BaseException:
            _lib.pipelm_gen_close(g)
            if seq:
                seq.close()
            raise
        return _gen(g, seq)

    def complete(self, text, **kw):
        """The continuation of text as a string: tokenize, generate with
        the same arguments as generate, detokenize (llm-text)."""
        return self.detokenize(list(self.generate(self.tokenize(text), **kw)))


def _gen(g, seq):
    try:
        i = ctypes.c_int()
        while _check(_lib.pipelm_gen_next(g, ctypes.byref(i))):
            yield i.value
    finally:
        _lib.pipelm_gen_close(g)
        seq.close()


class Sequence:
    """A sequence on a Model: its KV cache and position.  eval(ids)
    appends ids and returns the logits after the last, for sampling loops
    written in Python; each Sequence is used by one thread at a time
    (several, on one model, from several threads)."""

    def __init__(self, model, ctx=None, kv_type=None):
        self._h = None
        self.model = model
        kv_type = kv_type or model.kv_type
        _check_kv_type(kv_type)
        h = _P()
        _check(_lib.pipelm_seq_open_kv(ctypes.byref(h), model._handle(),
                                       ctx or model.ctx, kv_type.encode()))
        self._h = h
        self.vocab = model.vocab

    def close(self):
        if self._h:
            _lib.pipelm_seq_close(self._h)
            self._h = None

    def __del__(self):
        self.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    @property
    def pos(self):
        """Positions filled."""
        return _lib.pipelm_seq_pos(self._h)

    @property
    def ctx(self):
        """Positions the sequence holds."""
        return _lib.pipelm_seq_ctx(self._h)

    @property
    def kv_bytes(self):
        """Bytes of its KV cache when full (in memory as it fills)."""
        return _lib.pipelm_seq_kv_bytes(self._h)

    def reset(self):
        """Forget the ids: the next eval starts at position 0."""
        _lib.pipelm_seq_reset(self._h)

    def eval(self, ids):
        """Append ids (at least one) and return the logits after the
        last, float32 of shape (vocab,)."""
        a, n = _ids(ids)
        out, p = _floats((self.vocab,))
        _check(_lib.pipelm_seq_eval(self._h, a, n, p))
        return out

    def eval_all(self, ids):
        """Append ids and return the logits of every position,
        (len(ids), vocab)."""
        a, n = _ids(ids)
        shape = (n, self.vocab)
        out, p = _floats(shape)
        _check(_lib.pipelm_seq_eval_all(self._h, a, n, p))
        return _rows(out, shape)
