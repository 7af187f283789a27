#!/usr/bin/python3
"""Writes the NumPy-computed fixtures of the backend's kernel tests.

Run with /usr/bin/python3 (it has numpy) from anywhere:
    /usr/bin/python3 tests/backend/make_fixtures.py
It rewrites tests/backend/fixtures/: shared input arrays (in_*.npy), one
expected output per case (NAME.npy) and the list of cases, cases.sexp:
    (case NAME (OP :ATTR VALUE ...) (INPUT ...))
The values follow eqsat's rules (docs/language.md), which differ from NumPy's
own promotion in places: operands are first cast to eqsat's result dtype.
"""
import math
import os
import shutil

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "fixtures")
RANK = ["bool", "i32", "i64", "f32", "f64"]
NP = {"bool": np.bool_, "i32": np.int32, "i64": np.int64, "f32": np.float32, "f64": np.float64}
rng = np.random.default_rng(20261124)
shutil.rmtree(OUT, ignore_errors=True)
os.makedirs(OUT)
cases = []
inputs = {}


def dtype_name(a):
    return {np.dtype(v): k for k, v in NP.items()}[a.dtype]


def promote(*dts):
    return max(dts, key=RANK.index)


def float_result(d):
    return d if d in ("f32", "f64") else "f64"


def make_input(dt, shape, domain):
    """A shared input array, written once: in_DT_SHAPE_DOMAIN.npy."""
    name = "in_%s_%s_%s" % (dt, "x".join(map(str, shape)) or "s", domain)
    if name not in inputs:
        n = int(np.prod(shape)) if shape else 1
        if dt == "bool":
            v = rng.random(n) < 0.5
        elif dt in ("i32", "i64"):
            lo, hi = {"small": (-3, 4), "pos": (1, 6), "any": (-50, 51), "idx": (0, 3)}[domain]
            v = rng.integers(lo, hi, n)
        else:
            if domain == "pos":
                v = rng.uniform(0.1, 5.0, n)
            elif domain == "unit":
                v = rng.uniform(-0.9, 0.9, n)
            elif domain == "big":
                v = rng.normal(0, 300, n)
            elif domain == "small":
                v = rng.uniform(-2, 2, n)
            else:
                v = rng.normal(0, 3, n)
        inputs[name] = np.asarray(v).astype(NP[dt]).reshape(shape)
    return name


def scalar_input(dt, value):
    name = "in_%s_s_v%s" % (dt, str(value).replace("-", "m").replace(".", "p"))
    inputs[name] = np.array(value, dtype=NP[dt])
    return name


def attrs_text(attrs):
    parts = []
    for k, v in attrs.items():
        if isinstance(v, bool):
            t = "true" if v else "false"
        elif isinstance(v, (tuple, list)):
            t = "(" + " ".join(map(str, v)) + ")"
        else:
            t = str(v)
        parts.append(":%s %s" % (k, t))
    return (" " + " ".join(parts)) if parts else ""


def case(name, op, names, expected, attrs=None):
    assert name not in [c[0] for c in cases], name
    expected = np.array(expected, order="C")
    cases.append((name, op, list(names), attrs or {}))
    np.save(os.path.join(OUT, name + ".npy"), expected, allow_pickle=False)


def val(name):
    return inputs[name]


# ---------------------------------------------------------------- unary ops
def logaddexp0(x):
    return np.logaddexp(np.zeros_like(x), x)


UNARY = {
    # op: (numpy function on the result dtype, domain, float-valued)
    "neg": (np.negative, "any", False),
    "abs": (np.abs, "any", False),
    "sign": (np.sign, "any", False),
    "square": (np.square, "small", False),
    "exp": (np.exp, "any", True),
    "expm1": (np.expm1, "any", True),
    "log": (np.log, "pos", True),
    "log1p": (np.log1p, "unit", True),
    "sqrt": (np.sqrt, "pos", True),
    "reciprocal": (lambda x: 1 / x, "pos", True),
    "sin": (np.sin, "big", True),
    "cos": (np.cos, "big", True),
    "tanh": (np.tanh, "any", True),
    "sigmoid": (lambda x: 1 / (1 + np.exp(-x)), "any", True),
    "softplus": (logaddexp0, "big", True),
    "floor": (np.floor, "any", True),
    "ceil": (np.ceil, "any", True),
}
SIMD_SIZES = [0, 1, 7, 8, 9, 1023, 1024, 1025]
with np.errstate(all="ignore"):
    for op, (f, domain, floaty) in UNARY.items():
        for dt, sizes in (("f64", SIMD_SIZES), ("f32", [7, 9, 1025])):
            for n in sizes:
                x = make_input(dt, (n,), domain)
                case("%s_%s_%d" % (op, dt, n), op, [x], f(val(x)))
        for dt in ("i32", "i64"):
            if op in ("sign", "neg", "abs", "square"):
                x = make_input(dt, (3, 4), "any")
                case("%s_%s" % (op, dt), op, [x], f(val(x)))
            else:
                x = make_input(dt, (9,), "pos")
                case("%s_%s" % (op, dt), op, [x], f(val(x).astype(np.float64)))
    x = make_input("f64", (2, 3, 4), "any")
    case("exp_f64_2x3x4", "exp", [x], np.exp(val(x)))
    x = make_input("bool", (9,), "any")
    case("logical_not_bool", "logical_not", [x], np.logical_not(val(x)))
    x = make_input("f64", (9,), "small")
    case("logical_not_f64", "logical_not", [x], np.logical_not(val(x)))
    # edge values of the stable functions
    edge = "in_f64_edge"
    inputs[edge] = np.array([-800.0, -40.0, -1e-9, 0.0, 1e-9, 40.0, 800.0, np.inf, -np.inf])
    for op in ("sigmoid", "softplus", "tanh", "exp", "expm1"):
        case("%s_edge" % op, op, [edge], UNARY[op][0](val(edge)))

# --------------------------------------------------------------------- cast
for src, dst, domain in (("f64", "i32", "any"), ("f64", "i64", "any"), ("f64", "bool", "small"),
                         ("i64", "f32", "any"), ("bool", "f64", "any"), ("i32", "bool", "small"),
                         ("f32", "f64", "any"), ("i64", "i32", "any")):
    x = make_input(src, (9,), domain)
    case("cast_%s_%s" % (src, dst), "cast", [x], val(x).astype(NP[dst]), {"dtype": dst})

# -------------------------------------------------------------- binary ops
ARITH = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "maximum": np.maximum,
    "minimum": np.minimum,
}
COMPARE = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
           "gt": np.greater, "ge": np.greater_equal}
SHAPES = [((n,), (n,)) for n in (0, 1, 7, 8, 9, 1025)] + [
    ((3, 4), ()), ((), (3, 4)), ((3, 1), (1, 4)), ((2, 3, 4), (4,)), ((2, 1, 4), (3, 1)),
    ((5, 1, 1), (1, 3, 2)), ((1,), (6,)), ((4, 1), (4, 6))]


def shape_tag(a, b):
    t = lambda s: "x".join(map(str, s)) or "s"
    return "%s_%s" % (t(a), t(b))


with np.errstate(all="ignore"):
    for op, f in ARITH.items():
        for sa, sb in SHAPES:
            a, b = make_input("f64", sa, "small"), make_input("f64", sb, "any")
            case("%s_f64_%s" % (op, shape_tag(sa, sb)), op, [a, b], f(val(a), val(b)))
        for da, db in (("i32", "i32"), ("i32", "f64"), ("i64", "f32"), ("bool", "i32"),
                       ("f32", "f32"), ("i32", "i64")):
            a, b = make_input(da, (3, 4), "small"), make_input(db, (4,), "small")
            rt = promote(da, db)
            case("%s_%s_%s" % (op, da, db), op, [a, b],
                 f(val(a).astype(NP[rt]), val(b).astype(NP[rt])))
    for op in ("maximum", "minimum"):
        a, b = make_input("bool", (7,), "any"), make_input("bool", (7,), "x")
        case("%s_bool" % op, op, [a, b], ARITH[op](val(a), val(b)))
        nan = "in_f64_nan"
        inputs[nan] = np.array([np.nan, 1.0, -np.inf, 2.0])
        b = make_input("f64", (4,), "any")
        case("%s_nan" % op, op, [nan, b], ARITH[op](val(nan), val(b)))
    for sa, sb in SHAPES[:4] + SHAPES[6:9]:
        a, b = make_input("f64", sa, "small"), make_input("f64", sb, "pos")
        case("div_f64_%s" % shape_tag(sa, sb), "div", [a, b], val(a) / val(b))
        a2 = make_input("f64", sa, "pos")
        b2 = make_input("f64", sb, "small")
        case("pow_f64_%s" % shape_tag(sa, sb), "pow", [a2, b2], np.power(val(a2), val(b2)))
    for da, db in (("i32", "i32"), ("i64", "f32"), ("bool", "i64")):
        a, b = make_input(da, (3, 4), "small"), make_input(db, (4,), "pos")
        rt = float_result(promote(da, db))
        case("div_%s_%s" % (da, db), "div", [a, b], val(a).astype(NP[rt]) / val(b).astype(NP[rt]))
    a, b = make_input("i64", (3, 4), "small"), make_input("i64", (4,), "idx")
    case("pow_i64", "pow", [a, b], np.power(val(a), val(b)))
    a, b = make_input("f32", (9,), "pos"), make_input("f32", (9,), "small")
    case("pow_f32", "pow", [a, b], np.power(val(a), val(b)))
    for op, f in COMPARE.items():
        for (da, db), (sa, sb) in ((("f64", "f64"), ((9,), (9,))),
                                   (("i32", "f64"), ((3, 4), (4,))),
                                   (("i64", "i64"), ((3, 1), (1, 4))),
                                   (("bool", "bool"), ((7,), ()))):
            a, b = make_input(da, sa, "small"), make_input(db, sb, "small")
            rt = promote(da, db)
            case("%s_%s_%s" % (op, da, db), op, [a, b],
                 f(val(a).astype(NP[rt]), val(b).astype(NP[rt])))
    for op, f in (("logical_and", np.logical_and), ("logical_or", np.logical_or)):
        a, b = make_input("bool", (3, 4), "any"), make_input("f64", (4,), "small")
        case("%s_bool_f64" % op, op, [a, b], f(val(a), val(b)))
        a, b = make_input("bool", (1025,), "any"), make_input("bool", (1025,), "y")
        case("%s_bool_1025" % op, op, [a, b], f(val(a), val(b)))

    # where
    for (sc, sa, sb), (da, db) in ((((9,), (9,), (9,)), ("f64", "f64")),
                                   (((3, 4), (4,), ()), ("f64", "i32")),
                                   (((3, 1), (1, 4), (3, 4)), ("i64", "i64")),
                                   (((1025,), (1025,), (1025,)), ("f32", "f32")),
                                   (((7,), (7,), (7,)), ("bool", "bool"))):
        c = make_input("bool", sc, "any")
        a, b = make_input(da, sa, "small"), make_input(db, sb, "any")
        rt = promote(da, db)
        case("where_%s_%s_%s" % (da, db, "x".join(map(str, sc))), "where", [c, a, b],
             np.where(val(c), val(a).astype(NP[rt]), val(b).astype(NP[rt])))


# --------------------------------------------------------------- reductions
def np_logsumexp(x, axis, keepdims):
    m = np.max(x, axis=axis, keepdims=True) if x.size else np.zeros([1] * x.ndim)
    m = np.where(np.isfinite(m), m, 0)
    s = np.sum(np.exp(x - m), axis=axis, keepdims=True)
    r = np.log(s) + m
    if not keepdims:
        r = np.squeeze(r, axis=axis) if axis is not None else r.reshape(())
    return r


REDUCE = {
    "sum": lambda x, axis, keepdims: np.sum(x, axis=axis, keepdims=keepdims),
    "prod": lambda x, axis, keepdims: np.prod(x, axis=axis, keepdims=keepdims),
    "max": lambda x, axis, keepdims: np.max(x, axis=axis, keepdims=keepdims),
    "min": lambda x, axis, keepdims: np.min(x, axis=axis, keepdims=keepdims),
    "mean": lambda x, axis, keepdims: np.mean(x, axis=axis, keepdims=keepdims),
    "logsumexp": np_logsumexp,
}
REDUCE_SHAPES = [((7,), None), ((1025,), None), ((3, 4), None), ((3, 4), (0,)), ((3, 4), (1,)),
                 ((2, 3, 4), (1,)), ((2, 3, 4), (0, 2)), ((2, 3, 4), (1, 2)), ((2, 3, 4), (0, 1)),
                 ((2, 3, 4), (0, 1, 2)), ((4, 0), (1,)), ((0, 3), (0,))]


def result_dtype(op, dt):
    if op in ("sum", "prod"):
        return dt if dt in ("f32", "f64") else "i64"
    if op in ("max", "min"):
        return dt
    return float_result(dt)


with np.errstate(all="ignore"):
    for op, f in REDUCE.items():
        for dt in ("f64", "f32", "i32", "bool"):
            if dt == "bool" and op not in ("sum", "max", "min"):
                continue
            for shape, axis in REDUCE_SHAPES:
                if dt != "f64" and shape not in ((3, 4), (2, 3, 4), (1025,)):
                    continue
                if 0 in shape and op in ("max", "min"):
                    continue
                domain = "small" if op == "prod" else ("pos" if dt == "i32" else "any")
                x = make_input(dt, shape, domain)
                rt = result_dtype(op, dt)
                xv = val(x).astype(NP[rt])
                for keepdims in (False, True):
                    if keepdims and axis is None and shape != (3, 4):
                        continue
                    tag = "all" if axis is None else "a" + "".join(map(str, axis))
                    name = "%s_%s_%s_%s%s" % (op, dt, "x".join(map(str, shape)), tag,
                                               "_k" if keepdims else "")
                    attrs = {} if axis is None else {"axis": axis}
                    if keepdims:
                        attrs["keepdims"] = True
                    case(name, op, [x], np.asarray(f(xv, axis, keepdims)).astype(NP[rt]), attrs)
    # NaN propagates through max and min; logsumexp of huge values is finite
    nan = "in_f64_nan"
    case("max_nan", "max", [nan], np.max(val(nan)))
    case("min_nan", "min", [nan], np.min(val(nan)))
    big = make_input("f64", (3, 5), "big")
    case("logsumexp_big", "logsumexp", [big], np_logsumexp(val(big), 1, False), {"axis": (1,)})


# ------------------------------------------------------------------ softmax
def np_softmax(x, axis, log):
    m = np.max(x, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0)
    e = np.exp(x - m)
    s = np.sum(e, axis=axis, keepdims=True)
    return (x - m - np.log(s)) if log else e / s


for shape, axis in (((5,), -1), ((3, 4), -1), ((3, 4), 0), ((2, 3, 4), 1), ((2, 3, 1025), -1),
                    ((3, 0), 0)):
    for dt in ("f64", "f32"):
        x = make_input(dt, shape, "big")
        for op in ("softmax", "log_softmax"):
            name = "%s_%s_%s_a%d" % (op, dt, "x".join(map(str, shape)), axis % len(shape))
            case(name, op, [x], np_softmax(val(x), axis, op == "log_softmax"), {"axis": axis})
x = make_input("i32", (3, 4), "any")
case("softmax_i32", "softmax", [x], np_softmax(val(x).astype(np.float64), -1, False))

# ---------------------------------------------------------------------- dot
for sa, sb, da, db in (((3,), (3,), "f64", "f64"), ((2, 3), (3,), "f64", "f64"),
                       ((3,), (3, 4), "f64", "f64"), ((2, 3), (3, 4), "f64", "f64"),
                       ((2, 2, 3), (3, 4), "f64", "f64"), ((3,), (2, 3, 4), "f64", "f64"),
                       ((2, 1, 2, 3), (3, 3, 4), "f64", "f64"), ((2, 0), (0, 3), "f64", "f64"),
                       ((17, 33), (33, 9), "f64", "f64"), ((5, 4), (4, 6), "f32", "f32"),
                       ((3, 4), (4, 2), "i32", "i32"), ((3, 4), (4,), "i32", "f64"),
                       ((64, 64), (64, 64), "f64", "f64"), ((2, 3), (2, 3, 5), "i64", "i64")):
    a, b = make_input(da, sa, "small"), make_input(db, sb, "any")
    rt = promote(da, db)
    t = lambda s: "x".join(map(str, s))
    case("dot_%s_%s_%s_%s" % (da, db, t(sa), t(sb)), "dot", [a, b],
         np.matmul(val(a).astype(NP[rt]), val(b).astype(NP[rt])))

# -------------------------------------------------------------- shape ops
x = make_input("f64", (2, 3, 4), "any")
xi = make_input("i32", (2, 3, 4), "any")
case("reshape_infer", "reshape", [x], val(x).reshape(6, -1), {"shape": (6, -1)})
case("reshape_flat", "reshape", [xi], val(xi).reshape(24), {"shape": (24,)})
case("transpose_default", "transpose", [x], np.transpose(val(x)))
case("transpose_102", "transpose", [x], np.transpose(val(x), (1, 0, 2)), {"perm": (1, 0, 2)})
case("transpose_i32_201", "transpose", [xi], np.transpose(val(xi), (2, 0, 1)), {"perm": (2, 0, 1)})
m = make_input("f64", (33, 17), "any")
case("transpose_33x17", "transpose", [m], val(m).T)
case("expand_dims_1", "expand_dims", [x], np.expand_dims(val(x), 1), {"axis": 1})
case("expand_dims_last", "expand_dims", [x], np.expand_dims(val(x), -1), {"axis": -1})
y = make_input("f64", (3, 1, 4, 1), "any")
case("squeeze_all", "squeeze", [y], np.squeeze(val(y)))
case("squeeze_1", "squeeze", [y], np.squeeze(val(y), 1), {"axis": (1,)})
v = make_input("f64", (3, 1), "any")
case("broadcast_to_2x3x4", "broadcast_to", [v], np.broadcast_to(val(v), (2, 3, 4)),
     {"shape": (2, 3, 4)})
b = make_input("bool", (4,), "any")
case("broadcast_to_bool", "broadcast_to", [b], np.broadcast_to(val(b), (3, 4)), {"shape": (3, 4)})
case("flip_all", "flip", [x], np.flip(val(x)))
case("flip_1", "flip", [x], np.flip(val(x), 1), {"axis": (1,)})
case("flip_02", "flip", [xi], np.flip(val(xi), (0, 2)), {"axis": (0, 2)})
p, q = make_input("f64", (2, 3), "any"), make_input("f64", (4, 3), "small")
r = make_input("i32", (2, 5), "any")
case("concat_0", "concat", [p, q], np.concatenate([val(p), val(q)], 0), {"axis": 0})
case("concat_1_mixed", "concat", [p, r], np.concatenate([val(p), val(r).astype(np.float64)], 1),
     {"axis": 1})
case("concat_3", "concat", [p, p, q], np.concatenate([val(p), val(p), val(q)], 0), {"axis": 0})
p2 = make_input("f64", (2, 3), "small")
case("stack_0", "stack", [p, p2], np.stack([val(p), val(p2)], 0), {"axis": 0})
case("stack_last", "stack", [p, p2, p], np.stack([val(p), val(p2), val(p)], -1), {"axis": -1})
case("dim_1", "dim", [x], np.array(3, dtype=np.int64), {"axis": 1})
case("dim_neg", "dim", [x], np.array(4, dtype=np.int64), {"axis": -1})

# --------------------------------------------------------------- indexing
for i in (0, 1, -1, -2):
    idx = scalar_input("i64", i)
    case("index_%s" % str(i).replace("-", "m"), "index", [x, idx], val(x)[i])
idx32 = scalar_input("i32", 1)
case("index_i32", "index", [xi, idx32], val(xi)[1])
vec = make_input("f64", (10,), "any")
for start, stop, step in ((None, None, None), (2, 7, None), (-3, None, None), (None, None, 2),
                          (None, None, -1), (8, 2, -2), (-100, 100, 3), (5, 2, None),
                          (None, -1, 4), (7, None, -3), (100, None, -1), (-1, -100, -4)):
    attrs = {k: v for k, v in (("start", start), ("stop", stop), ("step", step)) if v is not None}
    tag = "_".join("n" if v is None else str(v).replace("-", "m") for v in (start, stop, step))
    case("slice_%s" % tag, "slice", [vec], val(vec)[slice(start, stop, step)], attrs)
case("slice_axis1", "slice", [x], val(x)[:, 1::2], {"axis": 1, "start": 1, "step": 2})
case("slice_axis2_neg", "slice", [xi], val(xi)[:, :, ::-2], {"axis": -1, "step": -2})
row = make_input("f64", (3, 4), "small")
bc = make_input("f64", (4,), "small")
one = scalar_input("f64", 2.5)
for name, i, v in (("set_index_row", 1, row), ("set_index_bcast", -1, bc), ("set_index_scalar", 0, one)):
    out = val(x).copy()
    out[i] = val(v)
    case(name, "set_index", [x, scalar_input("i64", i), v], out)
    out = val(x).copy()
    out[i] += val(v)
    case(name.replace("set", "inc"), "inc_index", [x, scalar_input("i64", i), v], out)
vi = make_input("i32", (3,), "small")
out = val(vec).copy()
out[1:7:2] = val(vi)
case("set_slice_step", "set_slice", [vec, vi], out, {"start": 1, "stop": 7, "step": 2})
out = val(vec).copy()
out[::-3] += 1.5
case("inc_slice_neg_step", "inc_slice", [vec, scalar_input("f64", 1.5)], out, {"step": -3})
col = make_input("f64", (2, 3, 1), "small")
out = val(x).copy()
out[:, :, 1:3] = val(col)
case("set_slice_axis2", "set_slice", [x, col], out, {"axis": 2, "start": 1, "stop": 3})
col2 = make_input("f64", (2, 2, 1), "small")
out = val(x).copy()
out[:, 0:2] += val(col2)
case("inc_slice_axis1", "inc_slice", [x, col2], out, {"axis": 1, "start": 0, "stop": 2})

# --------------------------------------------------------------- creation
case("zeros_i32", "zeros", [], np.zeros((2, 3), np.int32), {"shape": (2, 3), "dtype": "i32"})
case("ones_f64", "ones", [], np.ones((4,), np.float64), {"shape": (4,), "dtype": "f64"})
case("ones_bool", "ones", [], np.ones((2, 2), np.bool_), {"shape": (2, 2), "dtype": "bool"})
case("full_f32", "full", [one], np.full((3, 2), 2.5, np.float32), {"shape": (3, 2), "dtype": "f32"})
case("full_i64", "full", [one], np.full((5,), 2, np.int64), {"shape": (5,), "dtype": "i64"})
case("zeros_like", "zeros_like", [xi], np.zeros_like(val(xi)))
case("ones_like", "ones_like", [x], np.ones_like(val(x)))
n7 = scalar_input("i64", 7)
case("arange_i64", "arange", [n7], np.arange(7, dtype=np.int64))
case("arange_f32", "arange", [n7], np.arange(7, dtype=np.float32), {"dtype": "f32"})
case("arange_zero", "arange", [scalar_input("i32", 0)], np.arange(0, dtype=np.int64))

# ------------------------------------------------------------------ hypot
with np.errstate(all="ignore"):
    for sa, sb in SHAPES:
        a, b = make_input("f64", sa, "small"), make_input("f64", sb, "any")
        case("hypot_f64_%s" % shape_tag(sa, sb), "hypot", [a, b], np.hypot(val(a), val(b)))
    for da, db in (("f32", "f32"), ("i32", "i32"), ("i64", "f32")):
        a, b = make_input(da, (3, 4), "small"), make_input(db, (4,), "small")
        rt = float_result(promote(da, db))
        case("hypot_%s_%s" % (da, db), "hypot", [a, b],
             np.hypot(val(a).astype(NP[rt]), val(b).astype(NP[rt])))
    # squares that overflow or underflow, zeros, infinities and NaN
    ea, eb = "in_f64_hypot_edge_a", "in_f64_hypot_edge_b"
    inputs[ea] = np.array([1e300, -1e300, 1e-300, 0.0, -0.0, np.inf, -np.inf, np.nan, 3.0])
    inputs[eb] = np.array([1e300, 2e299, -1e-300, 0.0, 0.0, np.nan, 1.0, 2.0, -4.0])
    case("hypot_edge", "hypot", [ea, eb], np.hypot(val(ea), val(eb)))

# ------------------------------------------------------------ resize_rows
# x's first n rows, zero rows appended past its end
rx, rxi = make_input("f64", (2, 3, 4), "any"), make_input("i32", (2, 3, 4), "any")
for n in (0, 1, 2, 5):
    rows = val(rx)[:n] if n <= 2 else np.concatenate([val(rx), np.zeros((n - 2, 3, 4))], 0)
    case("resize_rows_%d" % n, "resize_rows", [rx, scalar_input("i64", n)], rows)
case("resize_rows_i32", "resize_rows", [rxi, scalar_input("i32", 3)],
     np.concatenate([val(rxi), np.zeros((1, 3, 4), dtype=np.int32)], 0))

# -------------------------------------------------------------------- erf
# On the unary cases' inputs (nothing new is drawn, so the arrays above stay
# as they were); NumPy has no erf: Python's math.erf, element by element.
erf = np.vectorize(math.erf, otypes=[np.float64])
for dt, n in (("f64", 1025), ("f64", 7), ("f32", 1025), ("f32", 9)):
    x = make_input(dt, (n,), "any")
    case("erf_%s_%d" % (dt, n), "erf", [x], erf(val(x)).astype(NP[dt]))
case("erf_edge", "erf", ["in_f64_edge"], erf(val("in_f64_edge")))

# --------------------------------------------------------- broadcast_like
# x at the broadcast shape of x and y, on the shape cases' inputs (nothing
# new is drawn)
bx, bv = "in_f64_2x3x4_any", "in_f64_3x1_any"
case("broadcast_like_widen", "broadcast_like", [bv, bx],
     np.broadcast_to(val(bv), np.broadcast_shapes(val(bv).shape, val(bx).shape)))
case("broadcast_like_same", "broadcast_like", [bx, bv], val(bx))
case("broadcast_like_both", "broadcast_like", ["in_bool_4_any", bv],
     np.broadcast_to(val("in_bool_4_any"), (3, 4)))
case("broadcast_like_i32", "broadcast_like", ["in_i32_2x3x4_any", bv], val("in_i32_2x3x4_any"))

with open(os.path.join(OUT, "cases.sexp"), "w") as f:
    f.write(";; Generated by tests/backend/make_fixtures.py; do not edit.\n")
    f.write(";; (case NAME (OP :ATTR VALUE ...) (INPUT ...)); expected: NAME.npy\n")
    for name, op, names, attrs in cases:
        f.write("(case %s (%s%s) (%s))\n" % (name, op, attrs_text(attrs), " ".join(names)))
for name, a in inputs.items():
    np.save(os.path.join(OUT, name + ".npy"), np.array(a, order="C"), allow_pickle=False)
print("%d cases, %d inputs" % (len(cases), len(inputs)))
