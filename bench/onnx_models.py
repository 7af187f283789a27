"""eqsat against onnxruntime on model layers, same inputs, same thread count.

Builds each model twice: as an ONNX model (onnx.helper; weights are
initializers, as in an exported model) and as the equal hand-written eqsat
graph (weights are `(load "W.npy")` constants); eqsat times the second, or
with `--source onnx` imports and times the first (what onnxruntime runs).
Then, in rounds, eqsat (`eqsat profile --repeat N`: best wall time of N
runs after a warm-up) and onnxruntime
(bench/ort_run.js: the same) alternate; each side's best over the rounds is
kept. The outputs are compared (`eqsat run`) before any timing counts.

  /usr/bin/python3 bench/onnx_models.py --eqsat build/tools/eqsat \
      --ort build/bench/ort/node_modules/onnxruntime-node [--threads 2] \
      [--rounds 3] [--reps 20] [--only mlp,attention] [--source eg|onnx] [--keep DIR]

Prints a Markdown table: model, dtype, onnxruntime, eqsat, ratio (ort/eqsat:
above 1 means eqsat is faster), max relative difference of the outputs.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

ONNX_DTYPE = {"f32": TensorProto.FLOAT, "f64": TensorProto.DOUBLE}
NP_DTYPE = {"f32": np.float32, "f64": np.float64}
# LayerNormalization's stash_type: the dtype its mean and variance are
# computed in, float32 unless the model says otherwise (the ONNX function
# body casts to it, and eqsat's importer follows it). onnxruntime computes
# a float64 input in float64 whatever it says, so the f64 model asks for
# float64 and both sides compute alike.
STASH = {"f32": TensorProto.FLOAT, "f64": TensorProto.DOUBLE}


class Model:
    """One model: ONNX nodes, its inputs and weights, and the eqsat text."""

    def __init__(self, name, dt):
        self.name, self.dt = name, dt
        self.nodes, self.inits, self.inputs, self.outputs = [], [], [], []
        self.values = {}  # name -> array (inputs and weights)
        self.eg = []

    def input(self, name, array):
        array = array.astype(NP_DTYPE[self.dt])
        self.values[name] = array
        self.inputs.append(helper.make_tensor_value_info(name, ONNX_DTYPE[self.dt], array.shape))
        dims = " ".join(str(d) for d in array.shape)
        self.eg.append(f"(input {name} ({self.dt} {dims}))")

    def weight(self, name, array):
        array = array.astype(NP_DTYPE[self.dt])
        self.values[name] = array
        self.inits.append(numpy_helper.from_array(array, name))

    def scalar(self, name, value):
        self.inits.append(numpy_helper.from_array(np.array(value, NP_DTYPE[self.dt]), name))

    def node(self, op, ins, outs, **attrs):
        self.nodes.append(helper.make_node(op, ins, outs, **attrs))

    def output(self, name, shape):
        self.outputs.append(helper.make_tensor_value_info(name, ONNX_DTYPE[self.dt], shape))

    def save(self, folder):
        graph = helper.make_graph(self.nodes, self.name, self.inputs, self.outputs, self.inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
        onnx.checker.check_model(model)
        onnx.save(model, os.path.join(folder, "model.onnx"))
        for name, array in self.values.items():
            np.save(os.path.join(folder, name + ".npy"), array)
            array.tofile(os.path.join(folder, name + ".bin"))
        with open(os.path.join(folder, "model.eg"), "w") as f:
            f.write("\n".join(self.eg) + "\n")


def dense(rng, fan_in, fan_out):
    return rng.standard_normal((fan_in, fan_out)) / np.sqrt(fan_in)


def mlp(dt, rng):
    """3 x (256x512 . 512x512 + bias, ReLU), then softmax over the rows."""
    m = Model("mlp", dt)
    m.input("x", rng.standard_normal((256, 512)))
    prev, eg_prev = "x", "x"
    for i in (1, 2, 3):
        m.weight(f"w{i}", dense(rng, 512, 512))
        m.weight(f"b{i}", rng.standard_normal(512) * 0.1)
        m.node("MatMul", [prev, f"w{i}"], [f"mm{i}"])
        m.node("Add", [f"mm{i}", f"b{i}"], [f"z{i}"])
        m.node("Relu", [f"z{i}"], [f"h{i}"])
        m.eg.append(f'(let h{i} (maximum (add (dot {eg_prev} (load "w{i}.npy")) '
                    f'(load "b{i}.npy")) 0.0))')
        prev, eg_prev = f"h{i}", f"h{i}"
    m.node("Softmax", ["h3"], ["y"], axis=-1)
    m.output("y", [256, 512])
    m.eg.append("(output y (softmax h3 :axis -1))")
    return m


def attention(dt, rng):
    """softmax(Q K^T / 8) V for 8 heads of 128 x 64."""
    m = Model("attention", dt)
    for n in "qkv":
        m.input(n, rng.standard_normal((8, 128, 64)))
    m.scalar("eight", 8.0)
    m.node("Transpose", ["k"], ["kt"], perm=[0, 2, 1])
    m.node("MatMul", ["q", "kt"], ["s"])
    m.node("Div", ["s", "eight"], ["sd"])
    m.node("Softmax", ["sd"], ["p"], axis=-1)
    m.node("MatMul", ["p", "v"], ["y"])
    m.output("y", [8, 128, 64])
    m.eg.append("(let p (softmax (div (dot q (transpose k :perm (0 2 1))) 8.0) :axis -1))")
    m.eg.append("(output y (dot p v))")
    return m


def lstm(dt, rng, name="lstm", steps=200, batch=16, nin=64, hid=128):
    """One ONNX LSTM layer (gates i o f c), by default 200 steps, batch 16, 64 -> 128."""
    m = Model(name, dt)
    m.input("x", rng.standard_normal((steps, batch, nin)))
    m.weight("w", rng.standard_normal((1, 4 * hid, nin)) / np.sqrt(nin))
    m.weight("r", rng.standard_normal((1, 4 * hid, hid)) / np.sqrt(hid))
    m.weight("b", rng.standard_normal((1, 8 * hid)) * 0.1)
    m.node("LSTM", ["x", "w", "r", "b"], ["", "y_h"], hidden_size=hid)
    m.output("y_h", [1, batch, hid])
    g = 4 * hid
    m.eg += [
        f'(let wt (transpose (reshape (load "w.npy") :shape ({g} {nin}))))',
        f'(let rt (transpose (reshape (load "r.npy") :shape ({g} {hid}))))',
        f'(let bb (reshape (load "b.npy") :shape ({2 * g})))',
        f"(let bias (add (slice bb :axis 0 :stop {g}) (slice bb :axis 0 :start {g})))",
        "(let xw (add (dot x wt) bias))",
        f"(let zero (zeros :shape ({batch} {hid}) :dtype {dt}))",
        "(let s (scan :sequences (xw) :sit-sot (zero zero) :non-sequences (rt)",
        "  (fn (xw_t h c rt_)",
        "    (let gates (add xw_t (dot h rt_)))",
        f"    (let i (sigmoid (slice gates :axis 1 :stop {hid})))",
        f"    (let o (sigmoid (slice gates :axis 1 :start {hid} :stop {2 * hid})))",
        f"    (let f (sigmoid (slice gates :axis 1 :start {2 * hid} :stop {3 * hid})))",
        f"    (let cc (tanh (slice gates :axis 1 :start {3 * hid})))",
        "    (let c2 (add (mul f c) (mul i cc)))",
        "    (mul o (tanh c2))",
        "    c2)))",
        "(output y_h (expand_dims (index (get 0 s) -1) :axis 0))",
    ]
    return m


def encoder(dt, rng):
    """A post-norm transformer encoder layer: 128 tokens, width 256, 4 heads
    of 64, feed-forward 1024 with ReLU, LayerNormalization (eps 1e-5)."""
    seq, d, heads, dh, ff = 128, 256, 4, 64, 1024
    m = Model("encoder", dt)
    m.input("x", rng.standard_normal((seq, d)))
    for n in ("q", "k", "v", "o"):
        m.weight(f"w{n}", dense(rng, d, d))
        m.weight(f"b{n}", rng.standard_normal(d) * 0.1)
    m.weight("w1", dense(rng, d, ff))
    m.weight("b1", rng.standard_normal(ff) * 0.1)
    m.weight("w2", dense(rng, ff, d))
    m.weight("b2", rng.standard_normal(d) * 0.1)
    for n in ("1", "2"):
        m.weight(f"g{n}", 1 + rng.standard_normal(d) * 0.1)
        m.weight(f"be{n}", rng.standard_normal(d) * 0.1)
    m.weight("heads_shape", np.array([seq, heads, dh]))
    m.inits[-1] = numpy_helper.from_array(np.array([seq, heads, dh], np.int64), "heads_shape")
    del m.values["heads_shape"]
    m.inits.append(numpy_helper.from_array(np.array([seq, d], np.int64), "tokens_shape"))
    m.scalar("eight", 8.0)
    for n in ("q", "k", "v"):
        m.node("MatMul", ["x", f"w{n}"], [f"{n}m"])
        m.node("Add", [f"{n}m", f"b{n}"], [f"{n}b"])
        m.node("Reshape", [f"{n}b", "heads_shape"], [f"{n}r"])
        m.node("Transpose", [f"{n}r"], [f"{n}h"], perm=[1, 2, 0] if n == "k" else [1, 0, 2])
    m.node("MatMul", ["qh", "kh"], ["s"])
    m.node("Div", ["s", "eight"], ["sd"])
    m.node("Softmax", ["sd"], ["p"], axis=-1)
    m.node("MatMul", ["p", "vh"], ["ah"])
    m.node("Transpose", ["ah"], ["at"], perm=[1, 0, 2])
    m.node("Reshape", ["at", "tokens_shape"], ["a"])
    m.node("MatMul", ["a", "wo"], ["om"])
    m.node("Add", ["om", "bo"], ["ob"])
    m.node("Add", ["x", "ob"], ["r1"])
    m.node("LayerNormalization", ["r1", "g1", "be1"], ["n1"], axis=-1, epsilon=1e-5,
           stash_type=STASH[dt])
    m.node("MatMul", ["n1", "w1"], ["f1m"])
    m.node("Add", ["f1m", "b1"], ["f1b"])
    m.node("Relu", ["f1b"], ["f1"])
    m.node("MatMul", ["f1", "w2"], ["f2m"])
    m.node("Add", ["f2m", "b2"], ["f2"])
    m.node("Add", ["n1", "f2"], ["r2"])
    m.node("LayerNormalization", ["r2", "g2", "be2"], ["y"], axis=-1, epsilon=1e-5,
           stash_type=STASH[dt])
    m.output("y", [seq, d])

    def linear(x, n):
        return f'(add (dot {x} (load "w{n}.npy")) (load "b{n}.npy"))'

    def layer_norm(x, n):
        return [
            f"(let mu{n} (mean {x} :axis (1) :keepdims true))",
            f"(let c{n} (sub {x} mu{n}))",
            f"(let var{n} (mean (square c{n}) :axis (1) :keepdims true))",
            f'(let n{n} (add (mul (div c{n} (sqrt (add var{n} 1e-5))) (load "g{n}.npy")) '
            f'(load "be{n}.npy")))',
        ]

    m.eg += [
        f"(let qh (transpose (reshape {linear('x', 'q')} :shape ({seq} {heads} {dh})) "
        ":perm (1 0 2)))",
        f"(let kh (transpose (reshape {linear('x', 'k')} :shape ({seq} {heads} {dh})) "
        ":perm (1 2 0)))",
        f"(let vh (transpose (reshape {linear('x', 'v')} :shape ({seq} {heads} {dh})) "
        ":perm (1 0 2)))",
        "(let p (softmax (div (dot qh kh) 8.0) :axis -1))",
        f"(let a (reshape (transpose (dot p vh) :perm (1 0 2)) :shape ({seq} {d})))",
        f"(let r1 (add x {linear('a', 'o')}))",
    ]
    m.eg += layer_norm("r1", "1")
    m.eg.append(f"(let f1 (maximum {linear('n1', '1')} 0.0))")
    m.eg.append(f"(let r2 (add n1 {linear('f1', '2')}))")
    m.eg += layer_norm("r2", "2")
    m.eg.append("(output y n2)")
    return m


def lstm_small(dt, rng):
    """The LSTM layer with small steps, where a step's fixed costs show:
    2000 steps, batch 2, 16 -> 64."""
    return lstm(dt, rng, "lstm_small", steps=2000, batch=2, nin=16, hid=64)


MODELS = {"mlp": mlp, "attention": attention, "lstm": lstm, "encoder": encoder,
          "lstm_small": lstm_small}
# onnxruntime 1.30 refuses these on the CPU ("LSTM operator does not support
# double yet"): no baseline, so they are listed and skipped.
ORT_UNSUPPORTED = {("lstm", "f64"), ("lstm_small", "f64")}


def model_file(args, folder):
    """What eqsat reads: the hand-written graph, or (--source onnx) the ONNX model itself."""
    return os.path.join(folder, "model.onnx" if args.source == "onnx" else "model.eg")


def eqsat_time(args, folder, m, env, binary=None):
    report = os.path.join(folder, "profile.json")
    cmd = [binary or args.eqsat, "profile", model_file(args, folder), "--repeat", str(args.reps),
           "--json", report]
    for name in m.inputs:
        cmd += ["--input", f"{name.name}={os.path.join(folder, name.name + '.npy')}"]
    subprocess.run(cmd, check=True, env=env, stdout=subprocess.DEVNULL)
    with open(report) as f:
        return json.load(f)["seconds"]["min"]


def ort_time(args, folder, m, env):
    manifest = {
        "model": os.path.join(folder, "model.onnx"), "threads": args.threads,
        "reps": args.reps, "out": folder,
        "inputs": [{"name": i.name, "dtype": "float64" if m.dt == "f64" else "float32",
                    "shape": list(m.values[i.name].shape),
                    "file": os.path.join(folder, i.name + ".bin")} for i in m.inputs],
    }
    path = os.path.join(folder, "manifest.json")
    with open(path, "w") as f:
        json.dump(manifest, f)
    out = subprocess.run(["node", os.path.join(os.path.dirname(__file__), "ort_run.js"), path],
                         check=True, env=env, capture_output=True, text=True).stdout
    return json.loads(out)


def compare(args, folder, m, ort_result, env):
    """Largest |eqsat - onnxruntime| over all outputs, relative to max |onnxruntime|."""
    out_dir = os.path.join(folder, "eqsat_out")
    cmd = [args.eqsat, "run", model_file(args, folder), "--out", out_dir]
    for i in m.inputs:
        cmd += ["--input", f"{i.name}={os.path.join(folder, i.name + '.npy')}"]
    subprocess.run(cmd, check=True, env=env, stdout=subprocess.DEVNULL)
    worst = 0.0
    for o in ort_result["outputs"]:
        ref = np.fromfile(o["file"], NP_DTYPE[m.dt]).reshape(o["shape"])
        got = np.load(os.path.join(out_dir, o["name"] + ".npy"))
        if got.shape != ref.shape:
            sys.exit(f"{m.name} {m.dt}: output {o['name']} has shape {got.shape}, "
                     f"onnxruntime {ref.shape}")
        scale = max(float(np.max(np.abs(ref))), 1e-30)
        worst = max(worst, float(np.max(np.abs(got.astype(np.float64) - ref))) / scale)
    return worst


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--eqsat", required=True)
    p.add_argument("--ort", required=True, help="the onnxruntime-node package folder")
    p.add_argument("--baseline", help="a second eqsat binary, timed in turn with the first "
                   "(before and after a change: the last columns)")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--reps", type=int, default=20)
    p.add_argument("--only", default=",".join(MODELS))
    p.add_argument("--dtypes", default="f32,f64")
    p.add_argument("--source", choices=["eg", "onnx"], default="eg",
                   help="eqsat reads the hand-written graph (eg) or imports model.onnx (onnx)")
    p.add_argument("--keep", help="write each model's folder (model.onnx, model.eg, its inputs "
                   "and weights as .npy) under this folder and keep it")
    args = p.parse_args()
    env = dict(os.environ, EQSAT_NUM_THREADS=str(args.threads),
               ORT_NODE_MODULE=os.path.abspath(args.ort))
    tolerance = {"f32": 1e-4, "f64": 1e-10}
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        cases = []
        for name in args.only.split(","):
            for dt in args.dtypes.split(","):
                if (name, dt) in ORT_UNSUPPORTED:
                    print(f"{name} {dt}: skipped, onnxruntime cannot run it", file=sys.stderr)
                    continue
                folder = os.path.join(args.keep or tmp, f"{name}_{dt}")
                os.makedirs(folder, exist_ok=bool(args.keep))
                m = MODELS[name](dt, np.random.default_rng(7))
                m.save(folder)
                ort_result = ort_time(args, folder, m, env)
                err = compare(args, folder, m, ort_result, env)
                if err > tolerance[dt]:
                    sys.exit(f"{name} {dt}: outputs differ from onnxruntime's by {err:.3g}")
                cases.append((m, folder, err, [ort_result["seconds"]], [], []))
        for _ in range(args.rounds):
            for m, folder, _, ort_s, eq_s, base_s in cases:
                eq_s.append(eqsat_time(args, folder, m, env))
                ort_s.append(ort_time(args, folder, m, env)["seconds"])
                if args.baseline:
                    base_s.append(eqsat_time(args, folder, m, env, args.baseline))
        extra = " baseline ms | baseline ratio | speed-up over baseline |" if args.baseline else ""
        print(f"| model | dtype | onnxruntime ms | eqsat ms | ratio | max rel. diff |{extra}")
        print("| --- | --- | ---: | ---: | ---: | ---: |" + " ---: |" * (3 if args.baseline else 0))
        for m, _, err, ort_s, eq_s, base_s in cases:
            o, e = min(ort_s), min(eq_s)
            line = (f"| {m.name} | {m.dt} | {o * 1e3:.3f} | {e * 1e3:.3f} | {o / e:.2f}x | "
                    f"{err:.1e} |")
            if base_s:
                b = min(base_s)
                line += f" {b * 1e3:.3f} | {o / b:.2f}x | {b / e:.2f}x |"
            print(line)


if __name__ == "__main__":
    main()
