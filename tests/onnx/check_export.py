#!/usr/bin/env python3
"""ONNX out: for each named node test of libonnx-testdata, `eqsat optimize
model.onnx -o out.onnx`, check the export with onnx.checker (full check),
run it in onnxruntime (ort_run.js, onnxruntime-node under ORT_DIR) on the
test's inputs and compare with its expected outputs (rtol 1e-3, atol 1e-7).

    ORT_DIR=build/ort tests/onnx/check_export.py build/tools/eqsat NODE_DIR test_gemm_default_no_bias ...

Prints one line per test; exit status 1 when any fails.
"""
import base64
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))


def load_pb(path):
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return numpy_helper.to_array(t)


def check(eqsat, node_dir, test, work):
    src = os.path.join(node_dir, test)
    out = os.path.join(work, test + ".onnx")
    r = subprocess.run([eqsat, "optimize", os.path.join(src, "model.onnx"), "-o", out, "--quiet"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        return "optimize failed: " + r.stderr.strip()
    model = onnx.load(out)
    onnx.checker.check_model(model, full_check=True)
    data = os.path.join(src, "test_data_set_0")
    inputs = []
    for k, v in enumerate(model.graph.input):
        a = load_pb(os.path.join(data, f"input_{k}.pb"))
        dtype = "bool" if a.dtype == np.bool_ else str(a.dtype)
        inputs.append({"name": v.name, "dtype": dtype, "dims": list(a.shape),
                       "data": base64.b64encode(np.ascontiguousarray(a).tobytes()).decode()})
    ins, outs = os.path.join(work, test + ".in.json"), os.path.join(work, test + ".out.json")
    with open(ins, "w") as f:
        json.dump({"inputs": inputs}, f)
    r = subprocess.run(["node", os.path.join(HERE, "ort_run.js"), out, ins, outs], capture_output=True, text=True)
    if r.returncode != 0:
        return "onnxruntime failed: " + r.stderr.strip()
    got = json.load(open(outs))
    for k, v in enumerate(model.graph.output):
        want = load_pb(os.path.join(data, f"output_{k}.pb"))
        g = got[v.name]
        dtype = np.bool_ if g["dtype"] == "bool" else np.dtype(g["dtype"])
        a = np.frombuffer(base64.b64decode(g["data"]), dtype=dtype).reshape(g["dims"])
        if a.shape != want.shape or not np.allclose(a, want, rtol=1e-3, atol=1e-7, equal_nan=True):
            return f"output {v.name} differs"
    return ""


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    eqsat, node_dir, tests = sys.argv[1], sys.argv[2], sys.argv[3:]
    failed = 0
    with tempfile.TemporaryDirectory() as work:
        for t in tests:
            why = check(eqsat, node_dir, t, work)
            print(("FAIL " if why else "PASS ") + t + (": " + why if why else ""))
            failed += bool(why)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
