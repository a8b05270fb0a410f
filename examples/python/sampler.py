#!/usr/bin/env python3
"""A sampler of one's own on a Sequence: the KV cache is kept between
eval calls, so each step runs one token.  Here "typical" sampling
(Meister et al. 2022: keep the tokens whose surprise is nearest the
distribution's entropy, up to mass p), in plain Python: no numpy.

    python3 examples/python/sampler.py [-m MODEL] [-n N] [--seed S] [TEXT]
"""
import argparse
import math
import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "python"))
import pipelm  # noqa: E402


def typical(logits, p, rng):
    mx = max(logits)
    w = [math.exp(l - mx) for l in logits]
    z = sum(w)
    probs = [v / z for v in w]
    ent = -sum(q * math.log(q) for q in probs if q > 0)
    order = sorted(range(len(probs)),
                   key=lambda i: abs(-math.log(probs[i]) - ent) if probs[i] > 0
                   else math.inf)
    kept, mass = [], 0.0
    for i in order:
        kept.append(i)
        mass += probs[i]
        if mass >= p:
            break
    return rng.choices(kept, weights=[probs[i] for i in kept])[0]


ap = argparse.ArgumentParser()
ap.add_argument("-m", "--model", default=None)
ap.add_argument("-n", type=int, default=40)
ap.add_argument("--seed", type=int, default=1)
ap.add_argument("-p", type=float, default=0.9)
ap.add_argument("text", nargs="?", default="Once upon a time")
a = ap.parse_args()

m = pipelm.Model(a.model)
rng = random.Random(a.seed)
seq = m.sequence()
ids = m.tokenize(a.text)
logits = seq.eval(ids)
out = []
for _ in range(a.n):
    t = typical(logits, a.p, rng)
    out.append(t)
    if seq.pos >= seq.ctx:
        break
    logits = seq.eval([t])
print(a.text + m.detokenize(out))
