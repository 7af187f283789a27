"""eqsat.scan with PyTensor's signature: loops built from a Python step
function, lowered to the language's `scan` (docs/language.md "Loops")."""
import numbers

from . import _eqsat
from ._eqsat import Error, Expr


class until:  # noqa: N801  (PyTensor's spelling: pytensor.scan.utils.until)
    """Returned by a step function after its outputs, `return h, until(h > 20)`:
    the loop stops after the first step whose condition is true."""

    def __init__(self, condition):
        self.condition = condition


class _Slot:
    """One entry of sequences or outputs_info: its outer value and taps as
    written (the step function's parameters follow this order)."""

    def __init__(self, value, taps):
        self.value = value
        self.taps = list(taps)


def _sequence(entry):
    if isinstance(entry, dict):
        if "input" not in entry:
            raise Error("scan: a sequence given as a dict needs 'input'")
        taps = entry.get("taps", [0])
        slot = _Slot(entry["input"], [0] if taps is None else taps)
    else:
        slot = _Slot(entry, [0])
    if not slot.taps or len(set(slot.taps)) != len(slot.taps):
        raise Error(f"scan: sequence taps must be distinct and at least one, got {slot.taps}")
    # Negative taps read before the step: shifted, [-1, 0] reads as [0, 1].
    low = min(slot.taps)
    slot.shift = -low if low < 0 else 0
    return slot


def _output(entry):
    """A sit-sot (taps [-1]), a mit-sot (other negative taps) or, for None, a nit-sot."""
    if entry is None:
        return None
    if isinstance(entry, dict):
        if entry.get("initial") is None:
            return None
        taps = list(entry.get("taps", [-1]))
        if not taps or any(t >= 0 for t in taps) or len(set(taps)) != len(taps):
            raise Error(f"scan: output taps must be distinct and negative, got {taps}")
        return _Slot(entry["initial"], taps)
    return _Slot(entry, [-1])


def _type(value, drop_leading):
    shape = tuple(value.shape)
    return (value.dtype, shape[1:] if drop_leading else shape)


def _as_expr(value, what):
    if isinstance(value, Expr):
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise Error(f"scan: {what} must be an eqsat expression or a number, got "
                    f"{type(value).__name__}")
    # A weak literal has no dtype of its own: a Python number is f64 (i64 for an int).
    return _eqsat.full(value, shape=(), dtype="i64" if isinstance(value, int) else "f64")


def _returned(result, n_outputs):
    """(outputs, until condition or None) from what the step function returned."""
    stop = None
    if isinstance(result, until):
        return [], result.condition
    items = list(result) if isinstance(result, (tuple, list)) else [result]
    if items and isinstance(items[-1], until):
        stop = items.pop().condition
    if len(items) == 1 and isinstance(items[0], (tuple, list)) and n_outputs != 1:
        items = list(items[0])
    return items, stop


def scan(fn, sequences=None, outputs_info=None, non_sequences=None, n_steps=None,
         truncate_gradient=-1, go_backwards=False, mode=None, name=None, profile=False,
         allow_gc=None, strict=False, return_list=False):
    """A loop, as pytensor.scan: returns (outputs, updates), outputs in the
    order of outputs_info (one expression alone unless return_list) and
    updates an empty dict (eqsat has no shared variables).

    - sequences: expressions iterated along their first axis, or dicts
      ``{"input": x, "taps": [0, 1]}`` (taps may be negative, as in PyTensor).
    - outputs_info: per output, its initial state (a sit-sot: the step reads
      the previous value), ``{"initial": h0, "taps": [-2, -1]}`` (a mit-sot:
      h0 holds one row per step before the first), or None (the step's value
      has no recurrence).
    - non_sequences: values every step reads whole. A step function sees only
      its parameters: an outer value it reads must come in here.
    - n_steps: an int or an integer scalar expression; without it, the
      shortest sequence decides.
    - fn is called with the sequences' taps, then the states' taps (in the
      written order), then the non-sequences; it returns the outputs in
      outputs_info's order, and may end with ``eqsat.until(condition)``.
    - go_backwards reads the sequences from their end; mode, name, profile,
      allow_gc and strict are accepted and ignored; truncate_gradient must be
      -1 (the default: full gradients).
    """
    # PyTensor's execution settings have no meaning here (a step function is
    # always closed, as with strict=True; eqsat's profile locates loops itself).
    del mode, name, profile, allow_gc, strict
    if truncate_gradient != -1:
        raise Error("scan: truncate_gradient is not supported: gradients go through every "
                    "step (grad's checkpoint= trades time for memory instead)")
    def as_list(v):
        if v is None:
            return []
        return list(v) if isinstance(v, (list, tuple)) else [v]
    seqs = [_sequence(s) for s in as_list(sequences)]
    for s in seqs:
        s.value = _as_expr(s.value, "a sequence")
        if go_backwards:
            s.value = _eqsat.flip(s.value, axis=0)
    outputs = [_output(o) for o in as_list(outputs_info)]
    for o in outputs:
        if o is not None:
            o.value = _as_expr(o.value, "an initial state")
    nonseqs = [_as_expr(v, "a non-sequence") for v in as_list(non_sequences)]
    mitsots = [o for o in outputs if o is not None and o.taps != [-1]]
    sitsots = [o for o in outputs if o is not None and o.taps == [-1]]
    n_nitsot_written = sum(1 for o in outputs if o is None)

    # The body's parameters in the language's order (per slot: taps ascending).
    params, where = [], {}
    def add(key, value_type):
        where[key] = len(params)
        params.append(value_type)
    for i, s in enumerate(seqs):
        for t in sorted(s.taps):
            add(("seq", i, t), _type(s.value, True))
    for o in mitsots:
        for t in sorted(o.taps):
            add(("out", id(o), t), _type(o.value, True))
    for o in sitsots:
        add(("out", id(o), -1), _type(o.value, False))
    for i, v in enumerate(nonseqs):
        add(("non", i, 0), _type(v, False))
    parameters = _eqsat._parameters(params, "scan")
    nominals = parameters.values

    # fn's arguments in PyTensor's order.
    args = [nominals[where[("seq", i, t)]] for i, s in enumerate(seqs) for t in s.taps]
    args += [nominals[where[("out", id(o), t)]] for o in outputs if o is not None for t in o.taps]
    args += [nominals[where[("non", i, 0)]] for i in range(len(nonseqs))]
    written = len(outputs) if outputs_info is not None else None
    returned, stop = _returned(fn(*args), written)
    if written is None:
        written, outputs = len(returned), [None] * len(returned)
        n_nitsot_written = written
    if len(returned) != written:
        raise Error(f"scan: the step function returned {len(returned)} outputs, "
                    f"outputs_info has {written}")
    by_slot = {id(o): r for o, r in zip(outputs, returned) if o is not None}
    body_outputs = [by_slot[id(o)] for o in mitsots + sitsots]
    body_outputs += [r for o, r in zip(outputs, returned) if o is None]
    number_dtypes = [o.value.dtype for o in mitsots + sitsots] + ["f64"] * n_nitsot_written
    if stop is not None:
        body_outputs.append(stop)
        number_dtypes.append("bool")
    fn_term = _eqsat._body(parameters, body_outputs, number_dtypes, "scan")

    if isinstance(n_steps, numbers.Integral):
        n_steps = int(n_steps)  # a NumPy integer too
    loop = _eqsat._scan(
        fn_term, [(s.value, [t + s.shift for t in sorted(s.taps)]) for s in seqs],
        [(o.value, sorted(o.taps)) for o in mitsots], [o.value for o in sitsots], nonseqs,
        n_steps, n_nitsot_written, stop is not None)

    # The loop's outputs (mit-sots, sit-sots, nit-sots) back in outputs_info's order.
    order = [id(o) for o in mitsots + sitsots]
    results, nit = [], len(order)
    for o in outputs:
        if o is None:
            results.append(_eqsat.get(loop, index=nit))
            nit += 1
        else:
            results.append(_eqsat.get(loop, index=order.index(id(o))))
    if len(results) == 1 and not return_list:
        return results[0], {}
    return results, {}
