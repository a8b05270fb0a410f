#!/usr/bin/env python3
"""make bench's Python row: Model.generate of 128 ids after a prompt
(greedy, --ignore-eos), as bench/run.sh runs llm-gen, timed from the
first id to the last (the decode steps, with the sampling and the ctypes
calls around them).  Prints "decode_tps=N ids=K".

    bench/python.py LIB MODEL THREADS PROMPT-FILE
"""
import os
import sys
import time

lib, model, threads, prompt = sys.argv[1:5]
os.environ["PIPELM_LIB"] = lib
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "python"))
import pipelm  # noqa: E402

with open(prompt) as f:
    ids = [int(x) for x in f.read().split()]
m = pipelm.Model(model, threads=int(threads))
t0 = None
n = 0
for _ in m.generate(ids, max_new=128, temperature=0, ignore_eos=True):
    n += 1
    if n == 1:
        t0 = time.perf_counter()
t1 = time.perf_counter()
print("decode_tps=%.2f ids=%d" % ((n - 1) / (t1 - t0), n))
