#!/usr/bin/python3
"""Gradient benchmark, NumPy's side (see gradients.cpp).

    gradients_numpy.py --data DIR --eqsat EQSAT.tsv [--reps N]

Loads the inputs bench_gradients wrote to DIR, times hand-written NumPy
forward and backward passes of the same workloads (best of N after a
warm-up), checks that eqsat's outputs (DIR/NAME.OUTPUT.eqsat.npy) match,
and prints the markdown table of the "gradients" section of
bench/README.md: times and ratios NumPy / eqsat (above 1: eqsat is faster).
"""
import argparse
import time

import numpy as np


def best(reps, f):
    f()
    t = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        f()
        t = min(t, time.perf_counter() - t0)
    return t


def blas_in_use():
    """NumPy's BLAS, as threadpoolctl reports it (library, version, threads)."""
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return "unknown (threadpoolctl missing)"
    blas = [i for i in threadpool_info() if i.get("user_api") == "blas"]
    return "; ".join("%s %s (%s, %d threads)" % (i["internal_api"], i.get("version"),
                                                  i["filepath"], i["num_threads"])
                     for i in blas) or "none"


def mlp(x, y, w1, w2):
    a = x @ w1
    h = np.tanh(a)
    d = h @ w2 - y
    loss = np.mean(d * d)
    go = d * (2.0 / d.size)
    g2 = h.T @ go
    g1 = x.T @ ((go @ w2.T) * (1.0 - h * h))
    return {"loss": loss, "g1": g1, "g2": g2}


def rnn(xs, h0, w):
    n = xs.shape[0]
    hs = np.empty((n + 1, h0.size))
    hs[0] = h0
    for t in range(n):
        hs[t + 1] = np.tanh(w @ hs[t] + xs[t])
    loss = hs[1:].sum()
    gw = np.zeros_like(w)
    carry = np.zeros_like(h0)
    for t in range(n - 1, -1, -1):
        ga = (1.0 + carry) * (1.0 - hs[t + 1] * hs[t + 1])
        gw += np.outer(ga, hs[t])
        carry = w.T @ ga
    return {"loss": loss, "gw": gw}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--eqsat", required=True)
    ap.add_argument("--reps", type=int, default=5)
    args = ap.parse_args()
    d = args.data
    # Each input is read once, before any timing: eqsat's side times
    # Program::run on inputs already in memory, so NumPy's calls must not
    # read files either.
    arrays = {}
    load = lambda n: arrays.setdefault(n, np.load("%s/%s.npy" % (d, n)))
    eq = {}
    for line in open(args.eqsat):
        name, secs, opt = line.split("\t")
        eq[name] = (float(secs), float(opt))
    work = {
        "mlp": (lambda x=load("x"), y=load("y"), w1=load("w1"), w2=load("w2"): mlp(x, y, w1, w2),
                "loss, dW1, dW2 of a 2-layer tanh MLP (256x512, 512x512 weights)"),
        "rnn": (lambda xs=load("xs"), h0=load("h0"), w=load("w"): rnn(xs, h0, w),
                "loss, dW of h = tanh(W h + x_t), 10^4 steps, width 64"),
        "rnn_ckpt": (lambda xs=load("xs"), h0=load("h0"), w=load("w"): rnn(xs, h0, w),
                     "the same, checkpointed every 100 steps"),
    }
    print("NumPy %s, BLAS: %s\n" % (np.__version__, blas_in_use()))
    print("| workload | eqsat s | NumPy s | NumPy / eqsat | eqsat optimize s |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for name, (f, what) in work.items():
        if name not in eq:
            continue
        want = f()
        for out, v in want.items():
            got = np.load("%s/%s.%s.eqsat.npy" % (d, name, out))
            if not np.allclose(got, v, rtol=1e-7, atol=1e-9):
                raise SystemExit("%s: output %s differs from NumPy's" % (name, out))
        t = best(args.reps if name == "mlp" else 1, f)
        s, opt = eq[name]
        print("| %s: %s | %.4g | %.4g | %.2f | %.3g |" % (name, what, s, t, t / s, opt))


if __name__ == "__main__":
    main()
