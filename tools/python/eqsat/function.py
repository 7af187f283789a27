"""Reusable sub-graphs: `eqsat.function` makes a `def` from a Python
function and parameter types; calling it makes a `call` (docs/language.md
"Sub-graphs")."""
import inspect

from . import _eqsat
from ._eqsat import Error


class Function:
    """A def: calling it on expressions (or numbers) gives a `call`, one
    expression for one output and a tuple of them for several. Every call
    shares one body; the optimizer inlines calls where that is cheaper
    unless the function was made with ``inline=False``."""

    def __init__(self, fn, params, name=None, inline=True):
        name = name or getattr(fn, "__name__", "f")
        if not name.isidentifier() or name == "<lambda>":
            name = "f"
        params = [_param_type(p, name) for p in params]
        try:
            arity = len(inspect.signature(fn).parameters)
        except (TypeError, ValueError):
            arity = len(params)
        if arity != len(params):
            raise Error(f"function {name}: {len(params)} parameter types for a Python function "
                        f"of {arity} parameters")
        parameters = _eqsat._parameters(params, f"function {name}")
        result = fn(*parameters.values)
        outputs = list(result) if isinstance(result, (tuple, list)) else [result]
        self.name = name
        self.n_outputs = len(outputs)
        self.fn = _eqsat._body(parameters, outputs, [], f"function {name}", inline, name)

    def __call__(self, *args):
        out = _eqsat._call(self.fn, *args)
        if self.n_outputs == 1:
            return out
        return tuple(_eqsat.get(out, index=i) for i in range(self.n_outputs))

    def __repr__(self):
        return f"<eqsat.Function {self.name} {self.fn.type}>"


def _param_type(p, name):
    """(dtype, shape) from ('f64', (3, None)), a dtype alone (a scalar) or
    an input expression (its type)."""
    if hasattr(p, "dtype") and hasattr(p, "shape") and not isinstance(p, type):
        return (p.dtype, tuple(p.shape))
    if isinstance(p, tuple) and len(p) == 2:
        return p
    if isinstance(p, str) or isinstance(p, type) or hasattr(p, "kind"):
        return (p, ())
    raise Error(f"function {name}: a parameter type is (dtype, shape), a dtype or an "
                f"expression of the type, got {p!r}")


def function(params, name=None, inline=True):
    """A decorator making a def of a Python function: ``@eqsat.function([("f64",
    (None,))])``; ``params`` gives each parameter's (dtype, shape), a dtype
    (a scalar) or an expression of that type. Also ``eqsat.function(params)(fn)``.
    """
    if callable(params) and not isinstance(params, (list, tuple)):
        raise Error("eqsat.function takes the parameter types first: "
                    "@eqsat.function([('f64', (None,))])")

    def make(fn):
        return Function(fn, params, name, inline)
    return make
