#!/bin/sh
# Runs the gradient benchmark (eqsat, then NumPy's hand-written backward
# passes on the same inputs) and rewrites the "gradients" section of
# bench/README.md with the table.
#   bench/run_gradients.sh [BUILD_DIR]      (default: build)
set -eu
cd "$(dirname "$0")/.."
build=${1:-build}
# NumPy's OpenBLAS runs the kernels eqsat's own runs (bench/blas_core.sh).
core=$(bench/blas_core.sh "$build")
data=$(mktemp -d)
trap 'rm -rf "$data"' EXIT
"$build/bench/bench_gradients" --data "$data" --reps 5 > "$data/eqsat.tsv"
env -u OPENBLAS_L2_SIZE -u OPENBLAS_CORETYPE ${core:+OPENBLAS_CORETYPE=$core} /usr/bin/python3 bench/gradients_numpy.py \
  --data "$data" --eqsat "$data/eqsat.tsv" --reps 5 > "$data/table.md"
{
  printf '\nMemory: the gradient of a 10^5-step loop over a state of 1000 f64 (tape: 800 MB),\n'
  printf 'one run each, peak resident memory of the whole process (`--memory K`):\n\n'
  printf '| checkpoint K | seconds | peak MB | gradient[0] |\n| ---: | ---: | ---: | ---: |\n'
  for k in 0 250; do
    "$build/bench/bench_gradients" --memory $k | awk -F'\t' '{sub("memory_", "", $1); printf "| %s | %s | %s | %s |\n", $1, $2, $3, $4}'
  done
} >> "$data/table.md"
/usr/bin/python3 - "$data/table.md" "$(nproc)" "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')" "$(cut -d' ' -f1-3 /proc/loadavg)" <<'PY'
import re, sys
table = open(sys.argv[1]).read()
body = ("## gradients\n\n"
        "Command: `bench/run_gradients.sh` (build first with\n"
        "`cmake --build build --target bench_gradients`). eqsat optimizes each graph\n"
        "with the default rules (gradients expanded, then optimized), compiles once,\n"
        "and keeps the best of 5 runs after a warm-up; NumPy runs a hand-written\n"
        "backward pass (`bench/gradients_numpy.py`; best of 5 for the MLP, one run of\n"
        "each Python loop) on the same inputs, and the outputs are checked equal.\n"
        "On %s (%s cores), both in one run; load average at the end: %s (a busy\n"
        "machine makes absolute times noisy; the ratios come from one run).\n\n"
        % (sys.argv[3], sys.argv[2], sys.argv[4])) + table
text = open("bench/README.md").read()
if "## gradients\n" in text:
    text = re.sub(r"## gradients\n.*?(?=\n## |\Z)", lambda m: body.rstrip() + "\n", text, flags=re.S)
else:
    text = text.rstrip() + "\n\n" + body
open("bench/README.md", "w").write(text)
PY
cat "$data/table.md"
