"""The Python module: parsing, building, optimizing, compiling and running
graphs on NumPy arrays, the rule checker, and errors."""
import os
import pathlib

import numpy as np
import pytest

import eqsat

SOURCE = pathlib.Path(os.environ.get("EQSAT_SOURCE_DIR", pathlib.Path(__file__).parents[2]))


def test_parse_print_round_trip():
    g = eqsat.Graph.parse("(input x (f64 3))\n(output y (exp (add x 1)))")
    assert g.inputs == ["x"]
    assert g.outputs == ["y"]
    again = eqsat.Graph.parse(str(g))
    assert again == g


def test_load_an_example():
    g = eqsat.Graph.load(str(SOURCE / "examples" / "01_elementwise.eg"))
    assert len(g.outputs) >= 1
    assert "input" in str(g)


def test_builder_gives_the_parsers_terms():
    x = eqsat.input("x", "f64", (3, None))
    y = eqsat.exp(x) + 1
    built = eqsat.Graph.build({"y": y})
    parsed = eqsat.Graph.parse("(input x (f64 3 ?))\n(output y (add (exp x) 1))")
    assert built == parsed
    assert y.dtype == "f64"
    assert y.shape == (3, None)


def test_weak_literals_take_the_arrays_dtype():
    x = eqsat.input("x", "f32", (4,))
    assert (x * 2).dtype == "f32"
    assert (2.5 - x).dtype == "f32"
    i = eqsat.input("i", "i32", (4,))
    assert (i + 1).dtype == "i32"
    assert (i / 2).dtype == "f64"


def test_attributes_and_reductions():
    x = eqsat.input("x", "f64", (2, 3))
    s = eqsat.sum(x, axis=(1,), keepdims=True)
    assert s.shape == (2, 1)
    m = eqsat.softmax(x, axis=-1)
    assert m.shape == (2, 3)
    t = eqsat.transpose(x)
    assert t.shape == (3, 2)
    assert (x @ t).shape == (2, 2)


def test_compile_and_call_on_numpy():
    g = eqsat.Graph.parse(
        "(input x (f64 ?))\n(input a f64)\n(output y (add (mul a (exp x)) 1))")
    prog = eqsat.compile(g)
    x = np.linspace(-2, 2, 11)
    out = prog(x=x, a=np.float64(3.0))
    np.testing.assert_allclose(out, 3.0 * np.exp(x) + 1, rtol=1e-12)
    out2 = prog(x, 3.0)
    np.testing.assert_array_equal(out, out2)
    assert prog.inputs == ["x", "a"]
    assert prog.outputs == ["y"]


def test_several_outputs_come_back_as_a_list():
    x = eqsat.input("x", "f64", (None,))
    g = eqsat.Graph.build({"s": eqsat.sum(x), "m": eqsat.max(x)})
    s, m = eqsat.compile(g)(x=np.array([1.0, 5.0, 2.0]))
    assert s == pytest.approx(8.0)
    assert m == pytest.approx(5.0)


def test_outputs_are_numpy_arrays_that_own_their_memory():
    x = eqsat.input("x", "f32", (1000,))
    prog = eqsat.compile(eqsat.Graph.build(eqsat.tanh(x)))
    a = prog(x=np.ones(1000, dtype=np.float32))
    assert a.dtype == np.float32
    del prog
    np.testing.assert_allclose(a, np.tanh(np.float32(1)), rtol=1e-6)


def test_optimize_with_report_stabilizes():
    g = eqsat.Graph.parse(
        "(input x (f64 4 3))\n(output y (log (sum (exp x) :axis (1))))")
    opt, report = eqsat.optimize(g, report=True)
    assert "logsumexp" in str(opt)
    assert report["cost_after"] <= report["cost_before"]
    assert "rules" in report
    x = np.full((4, 3), 1000.0)
    y = eqsat.compile(opt)(x=x)
    np.testing.assert_allclose(y, 1000.0 + np.log(3.0), rtol=1e-12)


def test_optimize_with_user_rules(tmp_path):
    rules = tmp_path / "mine.rules"
    rules.write_text("(rewrite my-double (add ?x ?x) (mul ?x 2))\n")
    g = eqsat.Graph.parse("(input x (f64 3))\n(output y (add x x))")
    opt = eqsat.optimize(g, rules=[str(rules)])
    np.testing.assert_allclose(eqsat.compile(opt)(np.array([1.0, 2.0, 3.0])), [2.0, 4.0, 6.0])


def test_optimize_validate_refuses_an_unsound_rule(tmp_path):
    rules = tmp_path / "wrong.rules"
    rules.write_text("(rewrite exp-wrong (exp ?x) (add ?x 1.0))\n")
    g = eqsat.Graph.parse("(input x (f64 3))\n(output y (mul (exp x) 2.0))")
    assert eqsat.optimize(g, rules=[str(rules)], trust_rules=True) != g  # trusted: rewritten
    with pytest.raises(eqsat.Error, match=r"output y differs on input set 1 of 3(.|\n)*exp-wrong"):
        eqsat.optimize(g, rules=[str(rules)], trust_rules=True, validate=3)
    sound = eqsat.Graph.parse("(input x (f64 ? 4))\n(output y (log (sum (exp x) :axis (1))))")
    assert "logsumexp" in str(eqsat.optimize(sound, validate=5))


def test_check_rules(tmp_path):
    good = tmp_path / "good.rules"
    good.write_text("(rewrite neg-neg (neg (neg ?x)) ?x)\n")
    bad = tmp_path / "bad.rules"
    bad.write_text("(rewrite wrong (exp ?x) ?x)\n")
    assert [r["verdict"] for r in eqsat.check_rules(str(good))] == ["sound"]
    verdict = eqsat.check_rules(str(bad))[0]
    assert verdict["verdict"] == "unsound"
    assert verdict["counterexample"]


def test_errors_are_located():
    with pytest.raises(eqsat.Error, match=r"g.eg:2:\d+: error:"):
        eqsat.Graph.parse("(input x f64)\n(output (frobnicate x))", "g.eg")
    with pytest.raises(eqsat.Error, match="add"):
        eqsat.input("a", "f64", (3,)) + eqsat.input("b", "f64", (4,))
    with pytest.raises(eqsat.Error, match="missing input 'x'"):
        eqsat.compile(eqsat.Graph.parse("(input x f64)\n(output (neg x))"))()
    with pytest.raises(eqsat.Error, match="No such file"):
        eqsat.check_rules("/nonexistent/file.rules")


def test_run_time_errors_raise():
    g = eqsat.Graph.parse("(input x (f64 ?))\n(output (index x 5))")
    with pytest.raises(eqsat.Error, match="index"):
        eqsat.compile(g)(x=np.zeros(3))


def test_version():
    assert eqsat.__version__.count(".") == 2
