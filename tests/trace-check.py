#!/usr/bin/env python3
"""trace-check.py: llm-trace's outputs read back with the standard
library alone (no numpy), for tests/llm-trace.bats.

  trace-check.py shapes FILE|DIR      each array's name and shape
  trace-check.py table DIR TABLE      the table's figures recomputed from a
                                      folder of dumps (resid_pre, attn_out,
                                      mlp_out, resid_post, pattern, lens)
  trace-check.py lens NPY LOGITS      the lens rows equal llm-logits -a -f
                                      text's, bit for bit
  trace-check.py same A B             two dumps hold the same arrays within
                                      1e-5 relative (a row's norm)
"""
import ast, array, math, os, struct, sys, zipfile


def parse(b):
    assert b[:6] == b"\x93NUMPY", "not an .npy"
    n = struct.unpack("<H", b[8:10])[0]
    h = ast.literal_eval(b[10:10 + n].decode("latin1"))
    assert h["descr"] == "<f4" and not h["fortran_order"], h
    assert (10 + n) % 64 == 0, "header not aligned to 64"
    a = array.array("f")
    a.frombytes(b[10 + n:])
    if sys.byteorder != "little":
        a.byteswap()
    assert len(a) == math.prod(h["shape"]), "size differs from the shape"
    return h["shape"], a


def load(path):
    if os.path.isdir(path):
        return {f[:-4]: parse(open(os.path.join(path, f), "rb").read())
                for f in sorted(os.listdir(path)) if f.endswith(".npy")}
    if path.endswith(".npz"):
        z = zipfile.ZipFile(path)
        assert z.testzip() is None
        return {n[:-4]: parse(z.read(n)) for n in z.namelist()}
    return {os.path.basename(path)[:-4]: parse(open(path, "rb").read())}


def rows(shape, a):
    w = math.prod(shape[1:])
    return [a[i * w:(i + 1) * w] for i in range(shape[0])]


def rms(r):
    return math.sqrt(sum(x * x for x in r) / len(r))


def close(got, want, what):
    if not (abs(got - want) <= 2e-5 * abs(want) + 1e-6):
        sys.exit("%s: table %r, from the dumps %r" % (what, got, want))


def table(d, tab):
    arrs = load(d)
    lines = open(tab).read().split("\n")
    head = lines[0].split("\t")
    n = 0
    # the rows of a dump are the table's positions in order
    seen = {}
    for line in lines[1:]:
        if not line:
            continue
        f = dict(zip(head, line.split("\t")))
        l = int(f["layer"])
        i = seen.get(l, 0)
        seen[l] = i + 1
        b = "blocks.%d." % l
        for col, name in (("rms_resid_pre", "hook_resid_pre"),
                          ("rms_attn_out", "hook_attn_out"),
                          ("rms_mlp_out", "hook_mlp_out"),
                          ("rms_resid_post", "hook_resid_post")):
            s, a = arrs[b + name]
            close(float(f[col]), rms(rows(s, a)[i]), "%s at %d" % (b + name, i))
        s, a = arrs[b + "attn.hook_pattern"]
        H, P, K = s
        e = 0
        for h in range(H):
            row = a[(h * P + i) * K:(h * P + i + 1) * K]
            e -= sum(p * math.log(p) for p in row if p > 0)
        close(float(f["attn_entropy"]), e / H, b + "pattern entropy at %d" % i)
        s, a = arrs[b + "hook_lens"]
        r = rows(s, a)[i]
        t = max(range(len(r)), key=lambda k: (r[k], -k))
        if int(f["lens_id"]) != t:
            sys.exit("%s: lens_id %s, from the dumps %d" % (b, f["lens_id"], t))
        p = 1 / sum(math.exp(x - r[t]) for x in r)
        close(float(f["lens_p"]), p, b + "lens_p at %d" % i)
        n += 1
    print("%d table lines recomputed" % n)


def lens(npy, logits):
    (s, a), = load(npy).values()
    want = [array.array("f", map(float, l.split()))
            for l in open(logits) if l.strip()]
    got = rows(s, a)
    if len(got) != len(want):
        sys.exit("lens rows %d, logits rows %d" % (len(got), len(want)))
    for i, (g, w) in enumerate(zip(got, want)):
        if g.tobytes() != w.tobytes():
            sys.exit("lens row %d differs from the logits" % i)
    print("%d rows equal" % len(got))


def same(x, y):
    A, B = load(x), load(y)
    if sorted(A) != sorted(B):
        sys.exit("names differ: %s / %s" % (sorted(A), sorted(B)))
    for k in A:
        (sa, a), (sb, b) = A[k], B[k]
        if sa != sb:
            sys.exit("%s: shapes %s and %s" % (k, sa, sb))
        for i, (ra, rb) in enumerate(zip(rows(sa, a), rows(sb, b))):
            e = math.sqrt(sum((p - q) ** 2 for p, q in zip(ra, rb)))
            w = math.sqrt(sum(q * q for q in rb))
            if e > 1e-5 * w + 1e-30:
                sys.exit("%s row %d: relative error %g" % (k, i, e / w))
    print("%d arrays the same" % len(A))


cmd = sys.argv[1]
if cmd == "shapes":
    for k, (s, a) in load(sys.argv[2]).items():
        print(k, "x".join(map(str, s)))
elif cmd == "table":
    table(sys.argv[2], sys.argv[3])
elif cmd == "lens":
    lens(sys.argv[2], sys.argv[3])
elif cmd == "same":
    same(sys.argv[2], sys.argv[3])
else:
    sys.exit(__doc__)
