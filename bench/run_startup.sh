#!/bin/sh
# Per-process cost of `eqsat optimize`: CPU time (user + system, from
# getrusage) of a small graph (examples/01_elementwise.eg) and of the
# merging workload of bench/optimize_merging.cpp written as a graph file
# (K = 1000 ... 8000), for each binary given. Rounds alternate the binaries;
# each case reports the least and the median process over all rounds (a
# mean follows the machine's worst moments).
#   bench/run_startup.sh [--rounds N] EQSAT... (e.g. main's build/tools/eqsat and this one)
# Needs /usr/bin/python3.
set -eu
cd "$(dirname "$0")/.."
rounds=15
if [ "${1:-}" = "--rounds" ]; then rounds=$2; shift 2; fi
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
/usr/bin/python3 - "$rounds" "$@" <<'PY'
import os, resource, statistics, subprocess, sys, tempfile
rounds, binaries = int(sys.argv[1]), sys.argv[2:]
data = tempfile.mkdtemp()
cases = {"small": "examples/01_elementwise.eg"}
for k in (1000, 2000, 4000, 8000):
    lines = ["(input x (f64 1000))"]
    for copy in range(2):
        for i in range(k):
            c = format(i / k, ".17g")
            c = c if ("." in c or "e" in c) else c + ".0"
            s = f"(add x {c})" if copy == 0 else f"(add {c} x)"
            prev = "" if i == 0 else f"s{copy}_{i - 1} "
            lines.append(f"(let s{copy}_{i} (exp {s}))" if i == 0 else
                         f"(let s{copy}_{i} (add {prev}(exp {s})))")
    lines.append(f"(output (add s0_{k - 1} s1_{k - 1}))")
    path = os.path.join(data, f"merging{k}.eg")
    open(path, "w").write("\n".join(lines) + "\n")
    cases[f"K={k}"] = path

def cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime

times = {(b, c): [] for b in binaries for c in cases}
for _ in range(rounds):
    for c, path in cases.items():
        per_round = 3 if c in ("small", "K=1000") else 1
        for b in binaries:
            for _ in range(per_round):
                t0 = cpu()
                subprocess.run([b, "optimize", path], stdout=subprocess.DEVNULL, check=True)
                times[(b, c)].append((cpu() - t0) * 1e3)
print(f"{'binary':50s} " + " ".join(f"{c:>15s}" for c in cases))
print(f"{'':50s} " + " ".join(f"{'least / median':>15s}" for c in cases))
for b in binaries:
    cells = []
    for c in cases:
        v = times[(b, c)]
        cells.append(f"{min(v):6.1f} / {statistics.median(v):6.1f}")
    print(f"{b:50s} " + " ".join(f"{x:>15s}" for x in cells))
PY
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
