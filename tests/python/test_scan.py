"""eqsat.scan with PyTensor's signature (tools/python/eqsat/scan.py,
bodies.cpp): sequences with taps, sit-sot and mit-sot states, nit-sots,
non-sequences, n_steps, until, go_backwards, outputs in outputs_info's
order, and gradients through loops against finite differences."""
import numpy as np
import pytest

import eqsat

RNG = np.random.default_rng(11)


def compiled(outputs):
    return eqsat.compile(eqsat.optimize(eqsat.Graph.build(outputs)))


def test_exponential_moving_average_matches_numpy():
    x = eqsat.input("x", "f64", (None,))
    a = eqsat.input("a", "f64", ())
    ema, updates = eqsat.scan(lambda x_t, m, alpha: alpha * x_t + (1 - alpha) * m,
                              sequences=x, outputs_info=x[0], non_sequences=a)
    assert updates == {}
    xv = RNG.normal(size=9)
    got = compiled({"ema": ema})(x=xv, a=np.float64(0.3))
    want, m = [], xv[0]
    for v in xv:
        m = 0.3 * v + 0.7 * m
        want.append(m)
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_mit_sot_taps_fibonacci_and_until():
    f0 = eqsat.input("f0", "i64", (2,))
    fib, _ = eqsat.scan(lambda a, b: (a + b, eqsat.until(a + b > 50)),
                        outputs_info={"initial": f0, "taps": [-2, -1]}, n_steps=np.int64(20))
    got = compiled(fib * 1)(f0=np.array([0, 1]))
    np.testing.assert_array_equal(got, [1, 2, 3, 5, 8, 13, 21, 34, 55])


def test_taps_in_written_order_and_negative_sequence_taps():
    x = eqsat.input("x", "f64", (None,))
    h0 = eqsat.input("h0", "f64", (3,))
    # fn sees x[t-1], x[t+1] (taps written out of order: +1 first), then h[t-1], h[t-3]
    out, _ = eqsat.scan(lambda x_next, x_prev, h1, h3: x_next - x_prev + 0.5 * h1 + 0.25 * h3,
                        sequences={"input": x, "taps": [1, -1]},
                        outputs_info={"initial": h0, "taps": [-1, -3]})
    xv, hv = RNG.normal(size=8), RNG.normal(size=3)
    got = compiled(out * 1.0)(x=xv, h0=hv)
    hist = list(hv)
    for t in range(1, 7):
        hist.append(xv[t + 1] - xv[t - 1] + 0.5 * hist[-1] + 0.25 * hist[-3])
    np.testing.assert_allclose(got, hist[3:], rtol=1e-12)


def test_outputs_come_back_in_outputs_info_order():
    x = eqsat.input("x", "f64", (None,))
    def step(x_t, s):  # outputs: a nit-sot, then the sit-sot
        return x_t * 2.0, s + x_t
    doubled, total = eqsat.scan(step, sequences=[x], outputs_info=[None, 0.0])[0]
    xv = RNG.normal(size=5)
    got = compiled({"d": doubled, "t": total})(x=xv)
    np.testing.assert_allclose(got[0], 2 * xv, rtol=1e-12)
    np.testing.assert_allclose(got[1], np.cumsum(xv), rtol=1e-12)


def test_go_backwards_and_return_list():
    x = eqsat.input("x", "f64", (None,))
    [acc], _ = eqsat.scan(lambda x_t, s: s * 0.5 + x_t, sequences=x, outputs_info=0.0,
                          go_backwards=True, return_list=True)
    xv = RNG.normal(size=6)
    got = compiled(acc * 1.0)(x=xv)
    want, s = [], 0.0
    for v in xv[::-1]:
        s = s * 0.5 + v
        want.append(s)
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_rnn_gradient_matches_finite_differences():
    xs = eqsat.input("xs", "f64", (None, 3))
    w = eqsat.input("w", "f64", (3, 3))
    u = eqsat.input("u", "f64", (3, 3))
    h0 = eqsat.input("h0", "f64", (3,))
    hs, _ = eqsat.scan(lambda x_t, h, w_, u_: eqsat.tanh(x_t @ w_ + h @ u_),
                       sequences=xs, outputs_info=h0, non_sequences=[w, u])
    cost = (hs[-1] ** 2).sum() + hs.sum(axis=0)[0]
    gw, gu = eqsat.grad(cost, [w, u])
    prog = compiled({"cost": cost, "gw": gw, "gu": gu})
    args = {"xs": RNG.normal(size=(5, 3)), "w": RNG.normal(size=(3, 3)) * 0.5,
            "u": RNG.normal(size=(3, 3)) * 0.5, "h0": RNG.normal(size=3)}
    _, gwv, guv = prog(**args)
    cost_only = compiled({"cost": cost})
    for name, grad in (("w", gwv), ("u", guv)):
        fd = np.zeros((3, 3))
        for i in range(3):
            for j in range(3):
                up, down = dict(args), dict(args)
                up[name] = args[name].copy()
                up[name][i, j] += 1e-6
                down[name] = args[name].copy()
                down[name][i, j] -= 1e-6
                fd[i, j] = (cost_only(**up) - cost_only(**down)) / 2e-6
        np.testing.assert_allclose(grad, fd, rtol=1e-5, atol=1e-7)


def test_scan_errors_are_one_message():
    x = eqsat.input("x", "f64", (None,))
    w = eqsat.input("w", "f64", ())
    with pytest.raises(eqsat.Error, match="reads the graph input 'w'.*non_sequences"):
        eqsat.scan(lambda x_t, s: s + x_t * w, sequences=x, outputs_info=0.0)
    with pytest.raises(eqsat.Error, match="truncate_gradient is not supported"):
        eqsat.scan(lambda x_t, s: s + x_t, sequences=x, outputs_info=0.0, truncate_gradient=5)
    with pytest.raises(eqsat.Error, match=r"returned 1 outputs, outputs_info has 2"):
        eqsat.scan(lambda x_t, a, b: a + x_t, sequences=x, outputs_info=[0.0, 0.0])
    with pytest.raises(eqsat.Error) as error:
        eqsat.scan(lambda s: eqsat.ones(shape=(2,)), outputs_info=0.0, n_steps=3)
    assert str(error.value).startswith("scan: ")
    assert str(error.value).count("scan:") == 1


def test_nested_scans_and_a_captured_outer_argument():
    m = eqsat.input("m", "f64", (None, 3))
    def row_step(row, acc):  # an inner scan over the row's elements, per outer step
        inner, _ = eqsat.scan(lambda v, s: s * 0.5 + v, sequences=row, outputs_info=0.0)
        return acc + inner[-1]
    totals, _ = eqsat.scan(row_step, sequences=m, outputs_info=0.0)
    mv = RNG.normal(size=(4, 3))
    got = compiled(totals * 1.0)(m=mv)
    want, acc = [], 0.0
    for row in mv:
        s = 0.0
        for v in row:
            s = s * 0.5 + v
        acc += s
        want.append(acc)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    # The inner step reading the outer step's `acc` directly is refused.
    def capturing(row, acc):
        inner, _ = eqsat.scan(lambda v, s: s + v * acc, sequences=row, outputs_info=0.0)
        return inner[-1]
    with pytest.raises(eqsat.Error, match="reads a parameter of an enclosing body"):
        eqsat.scan(capturing, sequences=m, outputs_info=0.0)
