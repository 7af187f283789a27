#!/bin/sh
# Runs the executor benchmark (rounds of eqsat, then NumPy and numexpr on the same
# inputs; bench/executor_numpy.py drives both) and
# rewrites the "executor" section of bench/README.md with the table.
#   bench/run_executor.sh [BUILD_DIR]      (default: build)
# OPENBLAS_L2_SIZE, when set on this machine, slows NumPy down: it is unset
# for NumPy's side, and OPENBLAS_CORETYPE is bench/blas_core.sh's choice.
set -eu
cd "$(dirname "$0")/.."
build=${1:-build}
# NumPy's OpenBLAS runs the kernels eqsat's own runs (bench/blas_core.sh).
core=$(bench/blas_core.sh "$build")
data=$(mktemp -d)
trap 'rm -rf "$data"' EXIT
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
env -u OPENBLAS_L2_SIZE -u OPENBLAS_CORETYPE ${core:+OPENBLAS_CORETYPE=$core} /usr/bin/python3 bench/executor_numpy.py \
  --data "$data" --bench "$build/bench/bench_executor_kernels" --reps 5 --rounds 3 \
  > "$data/table.md"
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
/usr/bin/python3 - "$data/table.md" "$(nproc)" "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')" "$load_before" "$load_after" <<'PY'
import re, sys
table = open(sys.argv[1]).read()
body = ("## executor\n\n"
        "Command: `bench/run_executor.sh` (builds nothing: build first with\n"
        "`cmake --build build --target bench_executor_kernels`). Three rounds, each\n"
        "running eqsat's program then NumPy and numexpr; each side's best per workload\n"
        "over the rounds (a round: best of 5 runs after a warm-up, 3 for NumPy's Python\n"
        "loop). Every core for eqsat, NumPy's BLAS and\n"
        "numexpr, on %s (%s cores); load average (1, 5, 15 min) %s before the run,\n"
        "%s after. The graphs are in `bench/executor_kernels.cpp`; NumPy's code is in\n"
        "`bench/executor_numpy.py`.\n\n"
        % (sys.argv[3], sys.argv[2], sys.argv[4], sys.argv[5])) + table
text = open("bench/README.md").read()
text = re.sub(r"## executor\n.*?(?=\n## |\Z)", lambda m: body.rstrip() + "\n", text, flags=re.S)
open("bench/README.md", "w").write(text)
PY
cat "$data/table.md"
