"""The builder speaks NumPy and PyTensor (tools/python/eqsat/numpy_style.py,
function.py, gradients.py; expr.cpp, dtype_names.cpp): operators, indexing
and slicing, .T, .shape, reductions as methods, dtype spellings, def and
call, grad, the text round trip, and one error naming the op and shapes."""
import numpy as np
import pytest

import eqsat

RNG = np.random.default_rng(7)


def run(outputs, **inputs):
    graph = eqsat.Graph.build(outputs)
    return eqsat.compile(eqsat.optimize(graph))(**inputs)


def test_operators_match_numpy():
    x = eqsat.input("x", "f64", (3, 4))
    w = eqsat.input("w", "f64", (4, 2))
    xv, wv = RNG.normal(size=(3, 4)), RNG.normal(size=(4, 2))
    outs = {"mm": x @ w, "neg": -x, "pow": x ** 2, "div": 1.0 / (x * x + 1.0),
            "sub": 2.0 - x, "lt": x < 0.5, "ge": x >= w.T[0:3, :1].sum()}
    got = run(outs, x=xv, w=wv)
    want = [xv @ wv, -xv, xv ** 2, 1.0 / (xv * xv + 1.0), 2.0 - xv, xv < 0.5,
            xv >= wv.T[0:3, :1].sum()]
    for g, e in zip(got, want):
        np.testing.assert_allclose(g, e, rtol=1e-12)
    assert (x < 0.5).dtype == "bool"


@pytest.mark.parametrize("key", [
    0, -1, 2, slice(1, 3), slice(None, None, 2), slice(None, None, -1),
    (slice(None), 1), (slice(None), slice(None, None, 2)), (1, slice(0, 4, 3)),
    (Ellipsis, 0), (None, 1), (slice(1, None), None, -2), (slice(None), -1),
    np.int64(3), (slice(np.int32(1), np.int64(4)), np.int64(-1)),
])
def test_indexing_and_slicing_match_numpy(key):
    x = eqsat.input("x", "f64", (4, 5))
    xv = RNG.normal(size=(4, 5))
    got = run(x[key] * 1.0, x=xv)
    np.testing.assert_array_equal(got, xv[key])
    assert x[key].shape == xv[key].shape


def test_index_by_an_expression_along_any_axis():
    x = eqsat.input("x", "f64", (4, 5))
    i = eqsat.input("i", "i64", ())
    xv = RNG.normal(size=(4, 5))
    got = run({"a": x[i], "b": x[:, i]}, x=xv, i=np.int64(-2))
    np.testing.assert_array_equal(got[0], xv[-2])
    np.testing.assert_array_equal(got[1], xv[:, -2])


def test_methods_and_properties():
    x = eqsat.input("x", np.float64, (2, None))
    assert x.shape == (2, None)
    assert x.T.shape == (None, 2)
    assert x.ndim == 2
    assert x.sum(axis=1).shape == (2,)
    assert x.max(axis=0, keepdims=True).shape == (1, None)
    xv = RNG.normal(size=(2, 3))
    got = run({"s": x.sum(axis=1), "m": x.max(axis=0, keepdims=True), "a": x.mean(),
               "p": x.prod(axis=(0, 1)), "r": x.reshape(3, 2), "t": x.transpose(1, 0),
               "c": x.astype("float32")}, x=xv)
    want = [xv.sum(axis=1), xv.max(axis=0, keepdims=True), xv.mean(), xv.prod(axis=(0, 1)),
            xv.reshape(3, 2), xv.transpose(1, 0), xv.astype(np.float32)]
    for g, e in zip(got, want):
        np.testing.assert_allclose(g, e, rtol=1e-6)
    assert got[-1].dtype == np.float32


@pytest.mark.parametrize("spelling,name", [
    ("f32", "f32"), ("float32", "f32"), (np.float32, "f32"), (np.dtype("float32"), "f32"),
    ("float64", "f64"), ("double", "f64"), (float, "f64"), ("int32", "i32"), (np.int64, "i64"),
    ("bool", "bool"), (np.bool_, "bool"),
])
def test_numpy_dtype_spellings(spelling, name):
    assert eqsat.input("x", spelling, (2,)).dtype == name
    assert eqsat.cast(eqsat.input("y", "f64", ()), spelling).dtype == name
    assert eqsat.dtype_name(spelling) == name


def test_unknown_dtype_says_what_there_is():
    with pytest.raises(eqsat.Error, match=r"input x: unknown dtype 'complex64'.*bool, i32"):
        eqsat.input("x", "complex64", ())


def test_errors_name_the_op_once_with_the_shapes():
    a = eqsat.input("a", "f64", (3,))
    b = eqsat.input("b", "f64", (4,))
    with pytest.raises(eqsat.Error) as error:
        a + b
    message = str(error.value)
    assert message.startswith("add of (f64 3) and (f64 4): ")
    assert message.count("add") == 1
    with pytest.raises(eqsat.Error) as error:
        eqsat.grad(eqsat.sum(a), eqsat.exp(a))
    assert str(error.value).count("grad") == 1
    with pytest.raises(eqsat.Error, match=r"index of \(f64 3\): 2 indices for an array of rank 1"):
        a[0, 1]
    with pytest.raises(eqsat.Error, match="advanced indexing"):
        a[[0, 1]]
    with pytest.raises(eqsat.Error, match="no truth value"):
        if a > 0:
            pass
    with pytest.raises(eqsat.Error, match="cannot be iterated"):
        list(a)


def test_compile_before_optimize_says_what_to_do():
    x = eqsat.input("x", "f64", (3,))
    g = eqsat.Graph.build(eqsat.grad(eqsat.sum(x * x), x))
    with pytest.raises(eqsat.Error, match=r"compile eqsat\.optimize\(graph\)"):
        eqsat.compile(g)


def test_function_def_and_call():
    @eqsat.function([("f64", (None,)), "f64"])
    def scale_tanh(v, a):
        return eqsat.tanh(v * a), v.sum()

    x = eqsat.input("x", "f64", (5,))
    t, s = scale_tanh(x, 2.0)
    u = scale_tanh(x[1:], 0.5)[0]
    graph = eqsat.Graph.build({"t": t, "s": s, "u": u})
    text = graph.to_text()
    assert "(def scale_tanh (fn" in text
    assert eqsat.Graph.from_text(text) == graph
    xv = RNG.normal(size=5)
    got = eqsat.compile(graph)(x=xv)
    np.testing.assert_allclose(got[0], np.tanh(2 * xv), rtol=1e-12)
    np.testing.assert_allclose(got[1], xv.sum(), rtol=1e-12)
    np.testing.assert_allclose(got[2], np.tanh(0.5 * xv[1:]), rtol=1e-12)


def test_a_body_reading_a_graph_input_is_refused():
    w = eqsat.input("w", "f64", ())
    with pytest.raises(eqsat.Error, match="reads the graph input 'w'"):
        eqsat.function(["f64"])(lambda v: v * w)


def test_grad_of_an_mlp_matches_a_numpy_backward_pass():
    x = eqsat.input("x", "f64", (None, 3))
    w1 = eqsat.input("w1", "f64", (3, 4))
    w2 = eqsat.input("w2", "f64", (4,))
    h = eqsat.tanh(x @ w1)
    loss = ((h @ w2) ** 2).mean()
    g1, g2 = eqsat.grad(loss, [w1, w2])
    prog = eqsat.compile(eqsat.optimize(eqsat.Graph.build({"g1": g1, "g2": g2, "loss": loss})))
    xv, w1v, w2v = RNG.normal(size=(6, 3)), RNG.normal(size=(3, 4)), RNG.normal(size=4)
    got = prog(x=xv, w1=w1v, w2=w2v)
    hv = np.tanh(xv @ w1v)
    y = hv @ w2v
    dy = 2 * y / len(y)
    np.testing.assert_allclose(got[2], (y ** 2).mean(), rtol=1e-12)
    np.testing.assert_allclose(got[1], hv.T @ dy, rtol=1e-10)
    np.testing.assert_allclose(got[0], xv.T @ (np.outer(dy, w2v) * (1 - hv ** 2)), rtol=1e-10)


def test_text_round_trip_of_built_graphs():
    x = eqsat.input("x", "f32", (None, 4))
    g = eqsat.Graph.build({"y": eqsat.softmax(x[:, ::2] * 3, axis=-1).T})
    assert eqsat.Graph.from_text(g.to_text()) == g
    assert eqsat.Graph.from_text(g.to_text(types=True)) == g


def random_key(rng, shape):
    """A NumPy basic index for `shape`: ints in range, slices with any
    bounds and a nonzero step, None and Ellipsis (each int or slice lands on
    the axis it was drawn for)."""
    key, axis = [], 0
    for _ in range(int(rng.integers(1, len(shape) + 2))):
        kind = rng.integers(0, 5)
        if kind == 0 and axis < len(shape) and shape[axis] > 0:
            key.append(int(rng.integers(-shape[axis], shape[axis])))
            axis += 1
        elif kind == 1 and axis < len(shape):
            bound = lambda: None if rng.random() < 0.3 else int(rng.integers(-7, 8))
            step = None if rng.random() < 0.4 else int(rng.choice([-3, -2, -1, 1, 2, 3]))
            key.append(slice(bound(), bound(), step))
            axis += 1
        elif kind == 2:
            key.append(None)
        elif kind == 3 and Ellipsis not in key:
            key.append(Ellipsis)  # the remaining axes, whole (only None may follow)
            axis = len(shape)
    return tuple(key)


def test_random_basic_indexing_matches_numpy():
    rng = np.random.default_rng(2024)
    for case in range(6):
        shape = tuple(int(n) for n in rng.integers(1, 6, size=int(rng.integers(1, 4))))
        x = eqsat.input("x", "f64", shape)
        xv = rng.normal(size=shape)
        keys = [random_key(rng, shape) for _ in range(25)]
        keys = [k for k in keys if sum(1 for v in k if v is not None and v is not Ellipsis)
                <= len(shape)]
        outputs = {f"k{i}": x[k] * 1.0 for i, k in enumerate(keys)}
        got = eqsat.compile(eqsat.Graph.build(outputs))(x=xv)
        got = got if isinstance(got, list) else [got]
        for k, g in zip(keys, got):
            np.testing.assert_array_equal(g, xv[k], err_msg=f"shape {shape} key {k}")
