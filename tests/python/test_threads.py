"""A compiled program called from 8 Python threads at once
(tools/python/compiled_program.cpp): every call gets its own executor
state, the GIL is released while it runs, results are right."""
import sys
import threading
import time

import numpy as np

import eqsat


def test_eight_threads_share_one_program():
    x = eqsat.input("x", "f64", (None,))
    s, _ = eqsat.scan(lambda x_t, h: eqsat.tanh(h * 0.9 + x_t), sequences=x, outputs_info=0.0)
    prog = eqsat.compile(eqsat.optimize(eqsat.Graph.build({"last": s[-1], "sum": (x * x).sum()})))
    def expected(xv):
        h = 0.0
        for v in xv:
            h = np.tanh(h * 0.9 + v)
        return h, (xv * xv).sum()
    failures, barrier = [], threading.Barrier(8)
    def work(k):
        rng = np.random.default_rng(k)
        barrier.wait()
        for _ in range(40):
            xv = rng.normal(size=int(rng.integers(1, 3000)))
            last, total = prog(x=xv)
            want = expected(xv)
            if not (np.isclose(last, want[0], rtol=1e-12) and np.isclose(total, want[1])):
                failures.append((k, last, want))
    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []


def test_the_gil_is_released_while_a_program_runs():
    # With a huge switch interval the main thread keeps the GIL until it
    # blocks or releases it: the counting thread (which sleeps, so lets the
    # GIL go, between ticks) can tick during the call only if the call
    # releases the GIL.
    x = eqsat.input("x", "f64", (None,))
    s, _ = eqsat.scan(lambda x_t, h: eqsat.sin(h + x_t), sequences=x, outputs_info=0.0)
    prog = eqsat.compile(eqsat.optimize(eqsat.Graph.build(s[-1])))
    xv = np.linspace(0, 1, 1_000_000)
    done, ticks = threading.Event(), [0]
    def count():
        while not done.is_set():
            ticks[0] += 1
            time.sleep(0.0002)
    interval = sys.getswitchinterval()
    sys.setswitchinterval(100)
    try:
        counter = threading.Thread(target=count)
        counter.start()
        before = ticks[0]
        prog(x=xv)
        during = ticks[0] - before
        done.set()
        counter.join()
    finally:
        sys.setswitchinterval(interval)
    assert during > 0


def test_building_optimizing_and_running_at_once():
    # Threads compile (the pool grows), optimize and run while the main
    # thread keeps building terms: the term table is shared and guarded.
    x = eqsat.input("x", "f64", (None,))
    prog = eqsat.compile(eqsat.Graph.build(eqsat.exp(x).sum()))
    graph = eqsat.Graph.build(eqsat.log(eqsat.exp(eqsat.input("z", "f64", (None, 3))).sum(axis=1)))
    errors, stop = [], threading.Event()
    def runner():
        xv = np.linspace(0, 1, 257)
        while not stop.is_set():
            if not np.isclose(prog(x=xv), np.exp(xv).sum()):
                errors.append("wrong value")
    def optimizer():
        for _ in range(5):
            if "logsumexp" not in str(eqsat.optimize(graph)):
                errors.append("not optimized")
    threads = [threading.Thread(target=runner) for _ in range(4)]
    threads.append(threading.Thread(target=optimizer))
    for t in threads:
        t.start()
    y = eqsat.input("y", "f64", (None,))
    for k in range(300):
        y = eqsat.tanh(y * (1.0 + k * 1e-3)) + float(k)
    threads[-1].join()
    stop.set()
    for t in threads[:-1]:
        t.join()
    assert errors == []
    assert y.shape == (None,)
