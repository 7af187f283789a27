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
import json
import os
import subprocess
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper

RANGES = ((0, 1e-3), (1e-3, 1), (1, 4), (4, 8), (8, 20))


def arguments(stride):
    top = int(np.float32(20).view(np.uint32))
    positive = np.arange(0, top + 1, stride, dtype=np.uint32).view(np.float32)
    return np.concatenate([positive, -positive[1:]]).astype(np.float32)


def onnxruntime_results(x, folder, ort, runner):
    n = x.size
    vec = lambda name: helper.make_tensor_value_info(name, TensorProto.FLOAT, [n])
    graph = helper.make_graph([helper.make_node("Sigmoid", ["x"], ["sigmoid"]),
                               helper.make_node("Tanh", ["x"], ["tanh"])],
                              "activations", [vec("x")], [vec("sigmoid"), vec("tanh")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.save(model, os.path.join(folder, "model.onnx"))
    x.tofile(os.path.join(folder, "x.bin"))
    manifest = os.path.join(folder, "manifest.json")
    with open(manifest, "w") as f:
        json.dump({"model": os.path.join(folder, "model.onnx"), "threads": 1, "reps": 1,
                   "out": folder, "inputs": [{"name": "x", "dtype": "float32", "shape": [n],
                                              "file": os.path.join(folder, "x.bin")}]}, f)
    env = dict(os.environ, ORT_NODE_MODULE=os.path.abspath(ort))
    subprocess.run(["node", runner, manifest], check=True, env=env, stdout=subprocess.DEVNULL)
    return {name: np.fromfile(os.path.join(folder, name + ".ort.bin"), dtype=np.float32)
            for name in ("sigmoid", "tanh")}


def eqsat_results(x, folder, eqsat):
    graph = os.path.join(folder, "activations.eg")
    with open(graph, "w") as f:
        f.write(f"(input x (f32 {x.size}))\n(output sigmoid (sigmoid x))\n(output tanh (tanh x))\n")
    np.save(os.path.join(folder, "x.npy"), x)
    subprocess.run([eqsat, "run", graph, "--input", "x=" + os.path.join(folder, "x.npy"),
                    "--out", folder], check=True, stdout=subprocess.DEVNULL)
    return {name: np.load(os.path.join(folder, name + ".npy")) for name in ("sigmoid", "tanh")}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--eqsat", required=True)
    p.add_argument("--ort", required=True, help="the onnxruntime-node package folder")
    p.add_argument("--stride", type=int, default=61)
    args = p.parse_args()
    x = arguments(args.stride)
    runner = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ort_run.js")
    with tempfile.TemporaryDirectory() as folder:
        ort = onnxruntime_results(x, folder, args.ort, runner)
        ours = eqsat_results(x, folder, args.eqsat)
    xd = x.astype(np.float64)
    want = {"sigmoid": 1.0 / (1.0 + np.exp(-xd)), "tanh": np.tanh(xd)}
    print(f"{x.size} float32 arguments (bit patterns a stride of {args.stride} apart, |x| <= 20); "
          "error in ulps")
    print("| function | abs(x) in | arguments | onnxruntime max | onnxruntime 99.9% "
          "| eqsat max | eqsat 99.9% |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    for name in ("sigmoid", "tanh"):
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
