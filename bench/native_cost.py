#!/usr/bin/env python3
"""The cost of portable code: bench_executor_kernels built with
-DEQSAT_NATIVE=ON (-march=native) and with the default (any x86-64), run in
alternating rounds on the same inputs, each build's best time per workload.

    bench/native_cost.py --native BUILD_NATIVE/bench/bench_executor_kernels \\
                         --portable BUILD_PORTABLE/bench/bench_executor_kernels [--rounds 3]

Prints a Markdown table (bench/README.md, "executor: portable vs native")."""
import argparse
import subprocess
import tempfile


def times(program, data, reps):
    out = subprocess.run([program, "--data", data, "--reps", str(reps)], check=True,
                         capture_output=True, text=True).stdout
    return {name: float(t) for name, t in (line.split("\t") for line in out.splitlines())}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--native", required=True)
    ap.add_argument("--portable", required=True)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--reps", type=int, default=5)
    args = ap.parse_args()
    best = {"native": {}, "portable": {}}
    with tempfile.TemporaryDirectory() as data:
        for _ in range(args.rounds):
            for side in ("native", "portable"):
                for name, t in times(getattr(args, side), data, args.reps).items():
                    best[side][name] = min(t, best[side].get(name, t))
    print("| workload | native (s) | portable (s) | portable / native |")
    print("| --- | ---: | ---: | ---: |")
    for name, t in best["native"].items():
        p = best["portable"][name]
        print(f"| {name} | {t:.4g} | {p:.4g} | {p / t:.2f} |")


if __name__ == "__main__":
    main()
