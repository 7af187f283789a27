"""Single ops on large arrays, one thread and all, before and after a change.

Each case is one op (or a small group) on a 2000 x 2000 input filled by
`eqsat profile --random 1`, run as written (`--no-opt`). In rounds, each
binary (the one under test and, with --baseline, another) and each thread
count is timed in turn (`eqsat profile --repeat N`: best wall time of N
runs after a warm-up); each column keeps its best over the rounds.

  /usr/bin/python3 bench/op_speed.py --eqsat build/tools/eqsat \\
      [--baseline OTHER/eqsat] [--threads 1,2] [--rounds 3] [--reps 20] [--only gt,cast]

Prints a Markdown table: the case, then ms per binary and thread count.
"""

import argparse
import json
import os
import subprocess
import tempfile

# name -> (what, the output's expression over x: f64 2000 x 2000)
CASES = {
    "transpose": ("transpose", "(transpose x)"),
    "heads": ("heads (1 2 0) of 4000 x 4 x 250", "(transpose (reshape x :shape (4000 4 250)) :perm (1 2 0))"),
    "slice": ("every other column", "(slice x :axis 1 :step 2)"),
    "broadcast": ("a row to 4 x 2000 x 2000", "(broadcast_to (index x 0) :shape (4 2000 2000))"),
    "cast": ("cast to f32", "(cast x :dtype f32)"),
    "concat": ("concat along columns", "(concat x x :axis 1)"),
    "stack": ("stack along a new last axis", "(stack x x :axis 2)"),
    "sum0": ("sum over rows", "(sum x :axis (0))"),
    "sum0_tall": ("sum over rows of 20000 x 200", "(sum (reshape x :shape (20000 200)) :axis (0))"),
    "softmax0": ("softmax along the first axis", "(softmax x :axis 0)"),
    "gt": ("x > 0 (bool)", "(gt x 0.0)"),
    "where": ("where(x > 0, x, -x)", "(where (gt x 0.0) x (neg x))"),
    "and": ("0 < x < 0.5 (bool)", "(logical_and (gt x 0.0) (lt x 0.5))"),
    "inc_slice": ("inc_slice of every other column", "(inc_slice x (slice x :axis 1 :step 2) :axis 1 :step 2)"),
    "set_index": ("set_index of a row", "(set_index x 3 (index x 5))"),
}


def best_ms(binary, graph, threads, reps):
    with tempfile.NamedTemporaryFile(suffix=".json") as report:
        env = dict(os.environ, EQSAT_NUM_THREADS=str(threads))
        subprocess.run([binary, "profile", graph, "--random", "1", "--no-opt", "--repeat",
                        str(reps), "--json", report.name], check=True, env=env,
                       stdout=subprocess.DEVNULL)
        with open(report.name) as f:
            return json.load(f)["seconds"]["min"] * 1e3


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--eqsat", required=True)
    p.add_argument("--baseline")
    p.add_argument("--threads", default="1,2")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--reps", type=int, default=20)
    p.add_argument("--only", default=",".join(CASES))
    args = p.parse_args()
    binaries = [("base", args.baseline)] if args.baseline else []
    binaries.append(("new" if args.baseline else "eqsat", args.eqsat))
    threads = [int(t) for t in args.threads.split(",")]
    columns = [(b, t) for b in binaries for t in threads]
    names = args.only.split(",")
    best = {(n, b[0], t): float("inf") for n in names for b, t in columns}
    with tempfile.TemporaryDirectory() as tmp:
        graphs = {}
        for n in names:
            graphs[n] = os.path.join(tmp, n + ".eg")
            with open(graphs[n], "w") as f:
                f.write(f"(input x (f64 2000 2000))\n(output y {CASES[n][1]})\n")
        for _ in range(args.rounds):
            for n in names:
                for (label, binary), t in columns:
                    ms = best_ms(binary, graphs[n], t, args.reps)
                    best[(n, label, t)] = min(best[(n, label, t)], ms)
    head = " | ".join(f"{label} {t} thr. ms" for (label, _), t in columns)
    print(f"| case | {head} |")
    print("| --- |" + " ---: |" * len(columns))
    for n in names:
        cells = " | ".join(f"{best[(n, label, t)]:.3f}" for (label, _), t in columns)
        print(f"| {CASES[n][0]} | {cells} |")


if __name__ == "__main__":
    main()
