#!/usr/bin/env python3
"""Compile time of `eqsat optimize` for two binaries, alternated.

    bench/optimize_time.py BEFORE AFTER GRAPH... [--rounds N] [--flags "..."]

Runs `BIN optimize GRAPH --quiet` for each graph, alternating BEFORE and
AFTER in each round (so both see the same machine load), and prints per
graph the median CPU seconds (user + system, of the whole process: loading
the rules, saturating, extracting, printing) of each and their ratio, then
the ratio of the summed medians. CPU time, not wall time: on a shared
machine the wall time is mostly waiting for a core. With --phase total,
the optimizer's own seconds from `--report` (saturation and extraction,
without starting the process and parsing the rules), the minimum over the
rounds, instead. Output goes
to /dev/null; a run that fails is an error.
"""
import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile


def cpu_of_children():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run(binary, graph, flags, phase):
    report = os.path.join(tempfile.gettempdir(), f"optimize_time_{os.getpid()}.json")
    extra = ["--report", report] if phase else []
    start = cpu_of_children()
    subprocess.run([binary, "optimize", graph, "--quiet", *flags, *extra], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    cpu = cpu_of_children() - start
    if not phase:
        return cpu
    with open(report) as f:
        return json.load(f)["seconds"][phase]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("before")
    p.add_argument("after")
    p.add_argument("graphs", nargs="+")
    p.add_argument("--rounds", type=int, default=15)
    p.add_argument("--flags", default="", help="extra flags for both binaries")
    p.add_argument("--phase", default="", help="a phase of the report's seconds (total, "
                   "rewrite, extract) instead of the process's CPU time")
    a = p.parse_args()
    flags = a.flags.split()
    print(f"load average at start: {os.getloadavg()[0]:.1f}")
    what = f"report seconds.{a.phase}" if a.phase else "process CPU seconds"
    print(f"{'graph':40} {'before s':>9} {'after s':>9} {'ratio':>6}  ({what})")
    total_before = total_after = 0.0
    for g in a.graphs:
        times = {a.before: [], a.after: []}
        for r in range(a.rounds):
            order = (a.before, a.after) if r % 2 == 0 else (a.after, a.before)
            for b in order:
                times[b].append(run(b, g, flags, a.phase))
        # The optimizer's own seconds are wall time, and a run descheduled
        # on the shared machine takes tens of ms more: the minimum is its time.
        pick = min if a.phase else statistics.median
        mb, ma = pick(times[a.before]), pick(times[a.after])
        total_before += mb
        total_after += ma
        print(f"{os.path.basename(g):40} {mb:9.4f} {ma:9.4f} {ma / mb:6.2f}")
    print(f"{'total':40} {total_before:9.4f} {total_after:9.4f} "
          f"{total_after / total_before:6.2f}")
    print(f"load average at end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    sys.exit(main())
