#!/bin/sh
# Per-process cost of `eqsat optimize`: CPU time (perf stat's task-clock,
# mean of 20 processes) of a small graph (examples/01_elementwise.eg) and of
# the merging workload of bench/optimize_merging.cpp written as a graph
# file (K = 1000 ... 8000), for each binary given, alternated three times.
#   bench/run_startup.sh EQSAT... (e.g. main's build/tools/eqsat and this one)
# Needs linux-perf and /usr/bin/python3.
set -eu
cd "$(dirname "$0")/.."
data=$(mktemp -d)
trap 'rm -rf "$data"' EXIT
/usr/bin/python3 - "$data" <<'PY'
import sys
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
    open(f"{sys.argv[1]}/merging{k}.eg", "w").write("\n".join(lines) + "\n")
PY
ms() {  # mean task-clock in ms of N runs of the command
  n=$1; shift
  perf stat -r "$n" -e task-clock -x, "$@" 2>&1 >/dev/null | awk -F, '/task-clock/{printf "%.1f", $1}'
}
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-8s %-50s %8s %8s %8s %8s %8s\n' round binary small K=1000 K=2000 K=4000 K=8000
for round in 1 2 3; do
  for bin in "$@"; do
    small=$(ms 20 "$bin" optimize examples/01_elementwise.eg)
    row=""
    for k in 1000 2000 4000 8000; do
      row="$row $(printf '%8s' "$(ms 3 "$bin" optimize "$data/merging$k.eg")")"
    done
    printf '%-8s %-50s %8s%s\n' "$round" "$bin" "$small" "$row"
  done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
