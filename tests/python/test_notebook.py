"""Notebook display (tools/python/eqsat/notebook.py): a Graph draws itself
as SVG through Graphviz when `dot` is installed and shows its text as HTML
otherwise; explore's result is a table."""
import shutil

import pytest

import eqsat


def small_graph():
    x = eqsat.input("x", "f64", (None, 3))
    return eqsat.Graph.build({"lse": eqsat.log(eqsat.exp(x).sum(axis=1))})


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")
def test_svg_through_graphviz():
    svg = small_graph()._repr_svg_()
    assert svg.lstrip().startswith("<?xml") or "<svg" in svg
    assert "exp" in svg and "lse" in svg
    assert small_graph()._repr_html_() is None  # the SVG shows it


def test_html_text_without_graphviz(monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    g = small_graph()
    assert g._repr_svg_() is None
    html = g._repr_html_()
    assert html.startswith("<pre>") and "(input x (f64 ? 3))" in html
    assert "&lt;" not in html or "<" not in html[5:-6]


def test_dot_text():
    text = small_graph().dot()
    assert text.startswith("digraph") and "exp" in text


def test_explore_is_a_table_ranked_by_cost():
    alternatives = eqsat.explore(small_graph(), count=3)
    assert 1 <= len(alternatives) <= 3
    assert [a.rank for a in alternatives] == list(range(1, len(alternatives) + 1))
    assert alternatives[0].graph == eqsat.optimize(small_graph())
    html = alternatives._repr_html_()
    assert html.startswith("<table>") and html.count("<tr>") == len(alternatives) + 1
    assert "logsumexp" in html
    text = repr(alternatives)
    assert text.startswith("; rank 1  cost ") and text.count("; rank ") == len(alternatives)
    assert all(a.cost < 1e12 for a in alternatives)  # no internal penalty shown
    with pytest.raises(eqsat.Error, match="count must be >= 1"):
        eqsat.explore(small_graph(), count=0)


def test_explore_with_fast_math():
    x = eqsat.input("x", "f64", (None,))
    g = eqsat.Graph.build({"d": x - x})
    assert "sub" in str(eqsat.explore(g, count=1)[0].graph)  # x - x is NaN at ±inf
    best = eqsat.explore(g, count=1, fast_math=True)[0].graph
    assert "sub" not in str(best)
    assert best == eqsat.optimize(g, fast_math=True)
