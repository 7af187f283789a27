"""NumPy's and PyTensor's spelling on eqsat expressions: indexing and
slicing, `.T`, `.ndim`, reductions as methods (`x.sum(axis=1)`), `astype`,
`reshape`, and dtypes written as NumPy names or dtype objects."""
import numbers

import numpy as np

from . import _eqsat
from ._eqsat import Error, Expr


def dtype_name(dtype):
    """The eqsat name ('f64', ...) of a dtype written as eqsat or NumPy spell it."""
    return _eqsat._dtype_name(dtype)


def cast(x, dtype):
    """`x` as `dtype` (any spelling: 'f32', 'float32', np.float32)."""
    return _eqsat.cast(x, dtype=dtype)


def _is_integer_index(k):
    """A Python or NumPy integer (not a bool)."""
    return isinstance(k, numbers.Integral) and not isinstance(k, (bool, np.bool_))


def _normalized_key(x, key):
    """The key as a tuple without Ellipsis, checked against x's rank."""
    if not isinstance(key, tuple):
        key = (key,)
    rank = len(x.shape)
    used = sum(1 for k in key if k is not None and k is not Ellipsis)
    ellipses = sum(1 for k in key if k is Ellipsis)
    if ellipses > 1:
        raise Error(f"index of {x.type}: at most one Ellipsis (...) in an index")
    if used > rank:
        raise Error(f"index of {x.type}: {used} indices for an array of rank {rank}")
    if ellipses:
        at = next(i for i, k in enumerate(key) if k is Ellipsis)
        key = key[:at] + (slice(None),) * (rank - used) + key[at + 1:]
    return key


def _one_index(out, axis, k):
    """out[..., k, ...] with k at `axis`: `index` along the first axis, a
    one-wide slice squeezed (a Python int) or a transpose then `index` (an
    expression) along another."""
    if axis == 0:
        return _eqsat.index(out, k)
    if _is_integer_index(k):
        part = _eqsat.slice(out, axis=axis, start=k, stop=(k + 1) or None)
        return _eqsat.squeeze(part, axis=axis)
    rank = len(out.shape)
    perm = (axis,) + tuple(a for a in range(rank) if a != axis)
    return _eqsat.index(_eqsat.transpose(out, perm=perm), k)


def _getitem(x, key):
    """x[key] for integers, integer scalar expressions, slices with constant
    bounds, None (a new axis) and Ellipsis; lists and arrays as indices (NumPy's
    advanced indexing) have no counterpart in the language."""
    out, axis = x, 0
    for k in _normalized_key(x, key):
        if k is None:
            out = _eqsat.expand_dims(out, axis=axis)
            axis += 1
        elif isinstance(k, slice):
            if k != slice(None):
                bounds = {"start": k.start, "stop": k.stop, "step": k.step}
                for name, v in bounds.items():
                    if v is not None and not _is_integer_index(v):
                        raise Error(f"slice of {x.type}: the {name} of a slice must be an int "
                                    f"(the language's slices have constant bounds), "
                                    f"got {type(v).__name__}")
                bounds = {name: None if v is None else int(v) for name, v in bounds.items()}
                out = _eqsat.slice(out, axis=axis, **bounds)
            axis += 1
        elif _is_integer_index(k) or isinstance(k, Expr):
            out = _one_index(out, axis, k if isinstance(k, Expr) else int(k))
        else:
            raise Error(f"index of {x.type}: a {type(k).__name__} index (NumPy's advanced "
                        "indexing) cannot be expressed; use ints, slices, None or an integer "
                        "scalar expression")
    return out


def _reduction(op):
    def method(x, axis=None, keepdims=False):
        if axis is None:
            return op(x, keepdims=keepdims or None)
        return op(x, axis=axis, keepdims=keepdims or None)
    method.__doc__ = f"`{op.__name__}` over `axis` (an int, a tuple, or None for all axes)."
    return method


def _reshape(x, *shape):
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    return _eqsat.reshape(x, shape=shape)


def _transpose(x, *axes):
    if len(axes) == 1 and isinstance(axes[0], (tuple, list)):
        axes = tuple(axes[0])
    return _eqsat.transpose(x, perm=axes or None)


Expr.__getitem__ = _getitem
Expr.T = property(lambda x: _eqsat.transpose(x), doc="All axes reversed, as NumPy's .T")
Expr.ndim = property(lambda x: len(x.shape), doc="The rank")
Expr.astype = cast
Expr.reshape = _reshape
Expr.transpose = _transpose
Expr.dot = lambda x, y: _eqsat.dot(x, y)
for _name in ("sum", "prod", "max", "min", "mean"):
    setattr(Expr, _name, _reduction(getattr(_eqsat, _name)))
# a > b etc. are the elementwise comparisons; == and != stay identity (a
# hashable Expr), as in PyTensor: eqsat.eq(a, b) and eqsat.ne(a, b).


def _no_truth(x):
    raise Error(f"an eqsat expression ({x.type}) has no truth value while the graph is built: "
                "use eqsat.where(cond, a, b), or eqsat.until(cond) for a loop's stop")


Expr.__bool__ = _no_truth


def _no_iteration(x):
    raise Error(f"an eqsat expression ({x.type}) cannot be iterated while the graph is built "
                "(its length may be known only at run time): index it, or loop with eqsat.scan")


# Without this, Python would iterate through __getitem__ with 0, 1, 2, ... forever.
Expr.__iter__ = _no_iteration
