#!/bin/sh
# Two eqsat programs on one graph, alternating: ROUNDS times each runs
# `eqsat profile GRAPH --random 1 --repeat 200` (200 runs after a warm-up,
# inputs drawn from seed 1). Prints per program the least of the runs, the
# median of the rounds' medians and the mean of the rounds' least: on a
# virtual machine whose speed drifts within minutes, alternating keeps
# the pair like for like.
#   bench/run_profile_pair.sh GRAPH ROUNDS EQSAT_A EQSAT_B
# e.g. bench/run_profile_pair.sh bench/mlp_gradient.eg 8 OLD/tools/eqsat build/tools/eqsat
set -eu
[ $# -eq 4 ] || { echo "usage: $0 GRAPH ROUNDS EQSAT_A EQSAT_B" >&2; exit 2; }
graph=$1 rounds=$2
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
i=0
while [ "$i" -lt "$rounds" ]; do
  for bin in "$3" "$4"; do
    "$bin" profile "$graph" --random 1 --repeat 200 | sed -n 1p |
      awk -v b="$bin" '{print b, $7, $10}'
  done
  i=$((i + 1))
done | /usr/bin/python3 -c '
import statistics as st, sys
runs = {}
for line in sys.stdin:
    b, least, median = line.split()
    runs.setdefault(b, []).append((float(least), float(median)))
for b, v in runs.items():
    print("%s: least %.3f ms, median of medians %.3f ms, mean of least %.3f ms" % (
        b, 1e3 * min(x[0] for x in v), 1e3 * st.median(x[1] for x in v),
        1e3 * st.mean(x[0] for x in v)))
'
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
