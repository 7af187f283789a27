"""Lesson: eqsat from Python. Build a graph with NumPy-style operators,
optimize it (the unstable log(sum(exp x)) becomes logsumexp), compile it
once and call it on NumPy arrays; check the result against NumPy.

Run from a build tree:  PYTHONPATH=build/tools/python python3 examples/python/optimize_and_run.py
"""
import numpy as np

import eqsat

x = eqsat.input("x", "f64", (None, 5))
w = eqsat.input("w", "f64", (5, 3))
scores = x @ w
lse = eqsat.log(eqsat.sum(eqsat.exp(scores), axis=(1,)))
graph = eqsat.Graph.build({"lse": lse})

print("written:\n" + str(graph))
best, report = eqsat.optimize(graph, report=True)
print("optimized:\n" + str(best))
print(f"estimated cost {report['cost_before']:.0f} -> {report['cost_after']:.0f}")

program = eqsat.compile(best)
rng = np.random.default_rng(0)
xv = rng.normal(size=(8, 5)) * 300  # large enough that exp overflows
wv = rng.normal(size=(5, 3))
got = program(x=xv, w=wv)

s = xv @ wv
m = s.max(axis=1, keepdims=True)
expected = (m + np.log(np.exp(s - m).sum(axis=1, keepdims=True)))[:, 0]
np.testing.assert_allclose(got, expected, rtol=1e-12)
print("matches NumPy's stable log-sum-exp:", got[:3])
