"""eqsat.grad as PyTensor's: one gradient per `wrt` (a list gives a list)."""
from . import _eqsat


def grad(cost, wrt, checkpoint=None):
    """The gradient of the float scalar `cost` with respect to `wrt`, a float
    graph input (or a list of them: a list of gradients). It stays a `grad`
    op until eqsat.optimize expands it, so optimize before compiling.
    `checkpoint=K` keeps one loop state every K steps (docs/language.md)."""
    if isinstance(wrt, (list, tuple)):
        return [_eqsat.grad(cost, w, checkpoint=checkpoint) for w in wrt]
    return _eqsat.grad(cost, wrt, checkpoint=checkpoint)
