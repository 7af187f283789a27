#!/bin/sh
# Peak memory of a loop read at its end (issue 9): a STEPS-step recurrence
# over a 512-wide state, `(index (get 0 s) -1)`, run by `eqsat run` with the
# optimizer (which sets :keep (1)) and with --no-opt (every step stored).
# Prints one markdown row per step count: peak RSS of the whole process
# (getrusage of the child) and wall seconds.
#   bench/scan_memory.sh [BUILD_DIR] [STEPS...]   (default: build 2000 20000 200000)
set -eu
cd "$(dirname "$0")/.."
build=${1:-build}
[ $# -gt 0 ] && shift
steps=${*:-2000 20000 200000}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
echo "| steps | history MB | peak RSS MiB, optimized | peak RSS MiB, --no-opt | seconds, optimized | seconds, --no-opt |"
echo "| ---: | ---: | ---: | ---: | ---: | ---: |"
for n in $steps; do
  cat > "$dir/loop.eg" <<G
(input x0 (f64 512))
(input a (f64 512))
(let s (scan :n-steps $n :sit-sot (x0) :non-sequences (a)
  (fn (h w) (tanh (add (mul h 0.5) w)))))
(output (index (get 0 s) -1))
G
  measure() {
    /usr/bin/python3 - "$build/tools/eqsat" "$dir" "$@" <<'PY'
import resource, subprocess, sys, time
eqsat, d, *flags = sys.argv[1:]
t = time.perf_counter()
subprocess.run([eqsat, "run", d + "/loop.eg", "--random", "1", "--out", d + "/out", *flags],
               check=True, stdout=subprocess.DEVNULL)
t = time.perf_counter() - t
print("%.1f %.2f" % (resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, t))
PY
  }
  set -- $(measure) $(measure --no-opt)
  echo "| $n | $(echo "$n" | awk '{printf "%.1f", $1 * 512 * 8 / 1e6}') | $1 | $3 | $2 | $4 |"
done
