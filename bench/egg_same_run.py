#!/usr/bin/python3
"""egg against eqsat on egg's math workloads, alternating processes.

    egg_same_run.py --egg HARNESS [--build BUILD] [--rounds N] [--repeat R] [CASE...]

HARNESS is a program, not in this repository, that runs egg's own
tests/math.rs cases with their runner settings and prints, per case, a
line whose first field is the case's name and whose last is the best
process-CPU seconds of R runs, timed as bench/egg_harness.hpp does
(bench/README.md, "Speed round 24" says how it was built).
BUILD/bench/bench_egg_math is eqsat's side. Each round runs egg's process,
then eqsat's, per case, so that a change of machine load hits both alike;
one process's best of R varies by up to 1.5x from one process to the next
on a 2-vCPU virtual machine, mostly with the vCPU it runs on (one ran both
programs 1.45x slower than the other), so each round pins its two
processes to the same CPU, round i to CPU i mod the CPUs this script may
use. Prints a markdown table: each side's median over the rounds (default
16), and the median and range of the rounds' ratios egg / eqsat (each a
like-for-like pair; above 1: eqsat is faster), with the load.
"""
import argparse
import os
import statistics
import subprocess

CASES = ["math_associate_adds", "math_simplify_add", "math_simplify_root",
         "math_simplify_factor", "diff_power_simple", "diff_power_harder", "integ_part2"]


def seconds(cmd, case, eqsat, cpu):
    out = subprocess.run(cmd + [case], check=True, capture_output=True, text=True,
                         preexec_fn=lambda: os.sched_setaffinity(0, {cpu})).stdout
    for line in out.splitlines():
        f = line.split()
        if f and f[0] == case:
            # eqsat's row ends with seconds, e-nodes/s, MiB, RSS MiB.
            return float(f[-4] if eqsat else f[-1])
    raise SystemExit("no row for %s in the output of %s" % (case, " ".join(cmd)))


def load():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--egg", required=True, help="the egg harness program")
    ap.add_argument("--build", default="build")
    ap.add_argument("--rounds", type=int, default=16)
    ap.add_argument("--repeat", type=int, default=40)
    ap.add_argument("cases", nargs="*")
    args = ap.parse_args()
    egg = [args.egg, "--repeat", str(args.repeat)]
    ours = [args.build + "/bench/bench_egg_math", "--repeat", str(args.repeat)]
    print("load average before: %s" % load())
    print()
    print("| case | egg median (s) | eqsat median (s) | egg / eqsat, median | range |")
    print("| --- | ---: | ---: | ---: | --- |")
    cpus = sorted(os.sched_getaffinity(0))
    for case in args.cases or CASES:
        e, q = [], []
        for i in range(args.rounds):
            cpu = cpus[i % len(cpus)]
            e.append(seconds(egg, case, False, cpu))
            q.append(seconds(ours, case, True, cpu))
        ratios = [a / b for a, b in zip(e, q)]
        print("| %s | %.4g | %.4g | %.2f | %.2f-%.2f |" % (
            case, statistics.median(e), statistics.median(q),
            statistics.median(ratios), min(ratios), max(ratios)))
    print()
    print("load average after: %s" % load())


if __name__ == "__main__":
    main()
