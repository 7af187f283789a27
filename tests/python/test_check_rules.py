"""eqsat.check_rules: attempts in the command line's range (1 to 100000), and
a long check stopped by Ctrl-C (a pending signal) rather than running on."""
import _thread
import os
import pathlib
import threading
import time

import pytest

import eqsat

SOURCE = pathlib.Path(os.environ.get("EQSAT_SOURCE_DIR", pathlib.Path(__file__).parents[2]))


def test_attempts_out_of_range_are_refused(tmp_path):
    rules = tmp_path / "r.rules"
    rules.write_text("(rewrite neg-neg (neg (neg ?x)) ?x)\n")
    for attempts in (0, -1, 100001, 10**9):
        with pytest.raises(ValueError, match="attempts must be from 1 to 100000"):
            eqsat.check_rules(str(rules), attempts=attempts)
    assert eqsat.check_rules(str(rules), attempts=1)[0]["verdict"] in ("sound", "untested")


def test_a_long_check_stops_on_ctrl_c():
    # Every shipped rule at the largest count: minutes of work, unless
    # interrupted. The interrupt arrives while the check runs without the GIL.
    files = [str(p) for p in sorted((SOURCE / "rules").glob("*.rules"))]
    timer = threading.Timer(0.5, _thread.interrupt_main)
    start = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            eqsat.check_rules(files, attempts=100000)
    finally:
        timer.cancel()
    assert time.monotonic() - start < 10
