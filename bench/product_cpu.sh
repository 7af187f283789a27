#!/bin/sh
# CPU time of one matrix product as the executor dispatches it (all its
# threads, perf stat's task-clock; `eqsat profile --repeat 201` less
# `--repeat 1`, divided by 200), for each binary given, alternated twice.
# CPU time, unlike wall time, hardly moves with the machine's load: what
# it measures is the work a dispatch adds (packing operands again per part
# or chunk, spinning), not how the threads were scheduled.
#   bench/product_cpu.sh EQSAT... (e.g. main's build/tools/eqsat and this one)
# Shapes m x k x n; "(a transposed)": the left operand is stored k x m and
# read through a transpose (an MLP's weight gradient, x^T g).
# Prints: dtype, shape, binary, ms of CPU a product, GFLOP per CPU second.
# Needs linux-perf and /usr/bin/python3.
set -eu
cd "$(dirname "$0")/.."
data=$(mktemp -d)
trap 'rm -rf "$data"' EXIT
ms() {  # task-clock in ms of one process
  perf stat -e task-clock -x, "$@" 2>&1 >/dev/null | awk -F, '/task-clock/{print $1}'
}
for s in f64:256:512:512:n f64:512:256:512:t f32:256:512:512:n f64:3200:64:512:n \
  f32:3200:64:512:n; do
  t=$(echo "$s" | cut -d: -f1)
  m=$(echo "$s" | cut -d: -f2)
  k=$(echo "$s" | cut -d: -f3)
  n=$(echo "$s" | cut -d: -f4)
  g="$data/$t-$m-$k-$n.eg"
  if [ "$(echo "$s" | cut -d: -f5)" = t ]; then
    printf '(input a (%s %s %s))\n(input b (%s %s %s))\n(output (dot (transpose a) b))\n' \
      "$t" "$k" "$m" "$t" "$k" "$n" > "$g"
    name="${m}x${k}x${n} (a transposed)"
  else
    printf '(input a (%s %s %s))\n(input b (%s %s %s))\n(output (dot a b))\n' \
      "$t" "$m" "$k" "$t" "$k" "$n" > "$g"
    name="${m}x${k}x${n}"
  fi
  for round in 1 2; do
    for bin in "$@"; do
      one=$(ms "$bin" profile "$g" --random 1 --repeat 1)
      many=$(ms "$bin" profile "$g" --random 1 --repeat 201)
      /usr/bin/python3 -c "
ms = ($many - $one) / 200
print(f'$t $name  $bin  {ms:.3f} ms  {2 * $m * $k * $n / ms / 1e6:.1f} GFLOP/cpu-s')"
    done
  done
done
