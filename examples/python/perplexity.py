#!/usr/bin/env python3
"""Perplexity of a text, notebook style, in numpy: the logits of every
position from Model.logits(all=True), log-softmax by hand, the tokens the
model found least likely; the same figures as llm-score and Model.score.

    python3 examples/python/perplexity.py [-m MODEL] [TEXT]
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "python"))
import numpy as np  # noqa: E402

import pipelm  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("-m", "--model", default=None)
ap.add_argument("text", nargs="?",
                default="Once upon a time, there was a little girl named Lily. "
                        "She loved to play outside in the park.")
a = ap.parse_args()

m = pipelm.Model(a.model)
ids = m.tokenize(a.text)

# (len(ids), vocab) float32, filled in place by the library
logits = m.logits(ids, all=True)
x = logits.astype(np.float64)
lse = np.log(np.exp(x - x.max(1, keepdims=True)).sum(1)) + x.max(1)
logprob = x[np.arange(len(ids) - 1), ids[1:]] - lse[:-1]

print("tokens scored: %d" % len(logprob))
print("perplexity:    %.4f" % np.exp(-logprob.mean()))
print("Model.score agrees to %.1e" % np.abs(logprob - np.array(m.score(ids))).max())
print("least likely:")
for i in np.argsort(logprob)[:5]:
    print("  %-12r %8.3f  (expected %r)" % (m.piece(ids[i + 1]), logprob[i],
                                           m.piece(int(logits[i].argmax()))))
