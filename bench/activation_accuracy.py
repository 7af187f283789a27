"""Accuracy of f32 sigmoid and tanh: onnxruntime's Sigmoid and Tanh (the
MLAS routines its RNN kernels call too) beside eqsat's, on the same floats.

The arguments are every STRIDE-th float32 bit pattern with |x| <= 20, both
signs (about 36 million at the default stride of 61, most of them below
1e-3 in magnitude as floats are); the reference is the
function in float64 (its error is far below a float32 ulp). The error of a
result is |result - reference| in units of the float32 spacing at the
reference. Prints a Markdown table by range of |x|: the largest error and
the 99.9th percentile on each side.

  /usr/bin/python3 bench/activation_accuracy.py --eqsat build/tools/eqsat \
      --ort build/bench/ort/node_modules/onnxruntime-node [--stride 61]

bench/run_onnx.sh installs onnxruntime-node into build/bench/ort.
"""

import argparse
import os
import subprocess
import tempfile
from types import SimpleNamespace

import numpy as np

from onnx_models import Model, ort_time

RANGES = ((0, 1e-3), (1e-3, 1), (1, 4), (4, 8), (8, 20))
FUNCTIONS = (("sigmoid", "Sigmoid"), ("tanh", "Tanh"))


def arguments(stride):
    top = int(np.float32(20).view(np.uint32))
    positive = np.arange(0, top + 1, stride, dtype=np.uint32).view(np.float32)
    return np.concatenate([positive, -positive[1:]]).astype(np.float32)


def activations(x):
    """Both functions of x, as an ONNX model and the equal eqsat graph."""
    m = Model("activations", "f32")
    m.input("x", x)
    for name, op in FUNCTIONS:
        m.node(op, ["x"], [name])
        m.output(name, [x.size])
        m.eg.append(f"(output {name} ({name} x))")
    return m


def results(m, folder, eqsat, ort):
    """Each side's outputs, by name: onnxruntime through bench/ort_run.js, eqsat by `eqsat run`."""
    env = dict(os.environ, ORT_NODE_MODULE=os.path.abspath(ort))
    ran = ort_time(SimpleNamespace(threads=1, reps=1), folder, m, env)
    theirs = {o["name"]: np.fromfile(o["file"], np.float32) for o in ran["outputs"]}
    subprocess.run([eqsat, "run", os.path.join(folder, "model.eg"), "--input",
                    "x=" + os.path.join(folder, "x.npy"), "--out", folder],
                   check=True, stdout=subprocess.DEVNULL)
    ours = {name: np.load(os.path.join(folder, name + ".npy")) for name, _ in FUNCTIONS}
    return theirs, ours


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--eqsat", required=True)
    p.add_argument("--ort", required=True, help="the onnxruntime-node package folder")
    p.add_argument("--stride", type=int, default=61)
    args = p.parse_args()
    if args.stride < 1:
        p.error("--stride must be a positive count")
    x = arguments(args.stride)
    with tempfile.TemporaryDirectory() as folder:
        m = activations(x)
        m.save(folder)
        ort, ours = results(m, folder, args.eqsat, args.ort)
    xd = x.astype(np.float64)
    want = {"sigmoid": 1.0 / (1.0 + np.exp(-xd)), "tanh": np.tanh(xd)}
    print(f"{x.size} float32 arguments (bit patterns a stride of {args.stride} apart, |x| <= 20); "
          "error in ulps")
    print("| function | abs(x) in | arguments | onnxruntime max | onnxruntime 99.9% "
          "| eqsat max | eqsat 99.9% |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    for name, _ in FUNCTIONS:
        spacing = np.spacing(np.abs(want[name]).astype(np.float32)).astype(np.float64)
        for lo, hi in RANGES:
            sel = (np.abs(x) >= lo) & (np.abs(x) < hi)
            cells = []
            for got in (ort[name], ours[name]):
                err = np.abs(got[sel].astype(np.float64) - want[name][sel]) / spacing[sel]
                cells += ["%.4g" % err.max(), "%.4g" % np.quantile(err, 0.999)]
            print(f"| {name} | [{lo}, {hi}) | {sel.sum()} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
