#!/usr/bin/python3
"""Executor benchmark, NumPy's and numexpr's side (see executor_kernels.cpp).

    executor_numpy.py --data DIR --eqsat EQSAT.tsv [--reps N]

Loads the inputs bench_executor_kernels wrote to DIR, times the same four
workloads in NumPy (best of N after a warm-up), and the elementwise ones in
numexpr too (one thread, like eqsat; numexpr fuses a whole expression into
one blocked pass, as eqsat's fusion does), checks that eqsat's results
(DIR/NAME.eqsat.npy) match NumPy's, and prints the markdown table of the
"executor" section of bench/README.md: times and ratios baseline / eqsat
(above 1: eqsat is faster).
"""
import argparse
import ctypes
import time

import numexpr as ne
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
    """The BLAS library this process loaded, and OpenBLAS's kernel if it is one."""
    libs = set()
    with open("/proc/self/maps") as f:
        for line in f:
            path = line.split()[-1]
            if "blas" in path.lower() and ".so" in path:
                libs.add(path)
    desc = ", ".join(sorted(libs)) or "none found"
    for path in libs:
        if "openblas" in path:
            try:
                lib = ctypes.CDLL(path)
                lib.openblas_get_corename.restype = ctypes.c_char_p
                desc += " (OpenBLAS kernel %s)" % lib.openblas_get_corename().decode()
            except OSError:
                pass
    return desc


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--eqsat", required=True)
    ap.add_argument("--reps", type=int, default=5)
    args = ap.parse_args()
    d = args.data
    load = lambda n: np.load("%s/%s.npy" % (d, n))
    x, a, b, m = load("x"), load("a"), load("b"), load("m")
    x0, ra, rb = load("x0")[()], load("ra")[()], load("rb")[()]

    def softmax(z):
        e = np.exp(z - z.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    def recurrence():
        v = x0
        for _ in range(100000):
            v = np.tanh(v * ra + rb)
        return v

    work = {
        "chain": lambda: np.tanh(np.log(np.exp(np.sin(x) * x) + 1.0)),
        "matmul": lambda: a @ b,
        "softmax": lambda: softmax(m),
        "recurrence": recurrence,
        "exp": lambda: np.exp(x),
        "log": lambda: np.log(np.abs(x) + 0.5),
        "sin": lambda: np.sin(x),
        "tanh": lambda: np.tanh(x),
    }
    ne.set_num_threads(1)
    numexpr_work = {
        "chain": "tanh(log(exp(sin(x) * x) + 1.0))",
        "exp": "exp(x)",
        "log": "log(abs(x) + 0.5)",
        "sin": "sin(x)",
        "tanh": "tanh(x)",
    }
    numexpr_s = {name: best(args.reps, lambda e=e: ne.evaluate(e, local_dict={"x": x}))
                 for name, e in numexpr_work.items()}
    numpy_s, agree = {}, {}
    for name, f in work.items():
        reps = 3 if name == "recurrence" else args.reps
        numpy_s[name] = best(reps, f)
        ours = np.load("%s/%s.eqsat.npy" % (d, name))
        agree[name] = np.allclose(ours, f(), rtol=1e-9, atol=1e-12)
    eqsat_s = {}
    with open(args.eqsat) as f:
        for line in f:
            name, s = line.split("\t")
            eqsat_s[name] = float(s)

    what = {
        "chain": "elementwise chain, 6 ops (sin mul exp add log tanh) on 10^7 f64",
        "matmul": "1000x1000 f64 matmul",
        "softmax": "row softmax of 2000x2000 f64",
        "recurrence": "10^5-step scalar recurrence x = tanh(a x + b)",
        "exp": "exp alone, 10^7 f64",
        "log": "log(abs(x) + 0.5), 10^7 f64 (eqsat: one fused pass)",
        "sin": "sin alone, 10^7 f64",
        "tanh": "tanh alone, 10^7 f64",
    }
    print("| workload | NumPy (s) | numexpr, 1 thread (s) | eqsat (s) | NumPy / eqsat "
          "| numexpr / eqsat | same result |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | --- |")
    for name in work:
        ours = eqsat_s[name]
        ne_s = numexpr_s.get(name)
        print("| %s | %.4g | %s | %.4g | %.2f | %s | %s |" % (
            what[name], numpy_s[name], "%.4g" % ne_s if ne_s else "-", ours,
            numpy_s[name] / ours, "%.2f" % (ne_s / ours) if ne_s else "-",
            "yes" if agree[name] else "NO"))
    cpp = eqsat_s["recurrence_cpp"]
    print()
    print("The recurrence against a C++ hand loop (`std::tanh`, %.4g s): eqsat's scan takes "
          "%.0fx the hand loop's time; NumPy's Python loop over NumPy scalars %.0fx."
          % (cpp, eqsat_s["recurrence"] / cpp, numpy_s["recurrence"] / cpp))
    print()
    print("NumPy %s, numexpr %s; BLAS in use: %s." % (np.__version__, ne.__version__,
                                                        blas_in_use()))


if __name__ == "__main__":
    main()
