"""eqsat: optimize and run array programs by equality saturation.

Build a graph with NumPy-style expressions (or parse the graph language),
optimize it with the shipped rules, compile it once and call it on NumPy
arrays. docs/python.md is the tutorial and the reference.
"""
import os as _os
import sys as _sys

try:
    import numpy as _numpy  # noqa: F401  (inputs and outputs are NumPy arrays)
except ImportError as _error:
    raise ImportError(
        f"eqsat needs NumPy, which this interpreter ({_sys.executable}) does not have: "
        "install NumPy for it, or use the interpreter eqsat was built for (Debian's "
        "/usr/bin/python3 with python3-numpy, or a venv made from it with "
        "--system-site-packages)") from _error

try:
    from . import _eqsat
except ImportError as _error:  # the extension was built for another interpreter
    raise ImportError(
        f"eqsat's compiled core did not load in this interpreter ({_sys.executable}, "
        f"Python {_sys.version.split()[0]}): {_error}. eqsat is built for one interpreter "
        "with its NumPy: install it with that interpreter (`python3 -m pip install "
        "--no-build-isolation .` from the source folder, in a venv made with "
        "--system-site-packages for Debian's NumPy and pybind11), or run the one it "
        "was built for") from _error

from ._eqsat import *  # noqa: F401,F403  the ops of the catalogue, Graph, Program, Error, ...
from ._eqsat import Error, Expr, Graph, __version__  # noqa: F401

from .numpy_style import cast, dtype_name  # noqa: F401  (and Expr's methods)
from .scan import scan, until  # noqa: F401
from .function import Function, function  # noqa: F401
from .gradients import grad  # noqa: F401
from .notebook import Exploration, explore  # noqa: F401

#: The folder of the shipped rule files (for reading: the optimizer has
#: them compiled in).
RULES_DIR = _os.path.join(_os.path.dirname(__file__), "rules")
