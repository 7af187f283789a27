"""Notebook display: a Graph draws itself through Graphviz (`dot`, when
installed) or shows its text; `eqsat.explore` returns a table of the
alternative graphs the optimizer reaches."""
import html
import shutil
import subprocess
from collections import namedtuple

from . import _eqsat
from ._eqsat import Error, Graph


def _svg(graph):
    """The graph's term DAG as SVG, or None without Graphviz's `dot`."""
    dot = shutil.which("dot")
    if dot is None:
        return None
    try:
        done = subprocess.run([dot, "-Tsvg"], input=_eqsat._graph_dot(graph).encode(),
                              capture_output=True, timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.decode() if done.returncode == 0 else None


def _html(graph):
    """The graph's text, typed, for notebooks without Graphviz."""
    if shutil.which("dot") is not None:
        return None  # the SVG shows it
    return "<pre>" + html.escape(graph.to_string(types=True)) + "</pre>"


Graph._repr_svg_ = _svg
Graph._repr_html_ = _html
Graph.from_text = staticmethod(lambda text, file="<string>": Graph.parse(text, file))
Graph.from_text.__doc__ = "A graph from the text of a .eg file (as Graph.parse)."
Graph.to_text = lambda graph, types=False: graph.to_string(types)
Graph.dot = lambda graph: _eqsat._graph_dot(graph)

#: One graph `explore` found: its rank (1 is what optimize gives), the
#: executor's estimated time in ns (None while it holds a grad), the graph,
#: and the cost as text (naming an unstable form the optimizer never prefers).
Alternative = namedtuple("Alternative", ["rank", "cost", "graph", "cost_text"])


class Exploration(list):
    """The alternatives of `explore`, cheapest first: a list of Alternative,
    shown as a table (rank, cost, graph) in a notebook and as `eqsat explore`
    prints them in a terminal."""

    def _repr_html_(self):
        rows = "".join(
            f"<tr><td>{a.rank}</td><td>{html.escape(a.cost_text)}</td>"
            f"<td style='text-align:left'><pre>{html.escape(str(a.graph))}</pre></td></tr>"
            for a in self)
        return ("<table><thead><tr><th>rank</th><th>cost</th><th>graph</th></tr></thead>"
                f"<tbody>{rows}</tbody></table>")

    def __repr__(self):
        lines = []
        for a in self:
            lines.append(f"; rank {a.rank}  cost {a.cost_text}")
            lines.append(str(a.graph).rstrip("\n"))
        return "\n".join(lines)


def explore(graph, count=5, rules=(), default_rules=True, trust_rules=False, fast_math=False):
    """Up to `count` equivalent graphs the optimizer reaches, cheapest first
    (rank 1 is what eqsat.optimize gives), as `eqsat explore` lists them;
    `fast_math=True` also saturates the fast-math set (`--fast-math`)."""
    if count < 1:
        raise Error(f"explore: count must be >= 1, got {count}")
    found = _eqsat._explore(graph, count, list(rules), default_rules, trust_rules, fast_math)
    return Exploration(Alternative(i + 1, ns, g, text) for i, (g, ns, text) in enumerate(found))
