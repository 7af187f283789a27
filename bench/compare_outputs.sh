#!/bin/sh
# Every example's outputs from one binary, for a byte-for-byte comparison
# of two (a start-up change must not change what a command prints):
# `run --random 0`, `optimize` (also with --fast-math, and with a bad
# user rule file), `explore`, `dot`, `dot --egraph`, `html` of
# examples/*.eg, `import` and `run` of examples/onnx/*.onnx and of the
# ONNX fuzz corpus, `check-rules` of one shipped file; each with its exit
# status.
#   bench/compare_outputs.sh BASE_EQSAT base_out && bench/compare_outputs.sh EQSAT new_out
#   diff -r base_out new_out
set -u
bin=$(realpath "$1")
out=$(realpath -m "$2")
cd "$(dirname "$0")/.."
mkdir -p "$out"
keep() {  # keep NAME COMMAND...: output and exit status of the command
  name=$1
  shift
  "$@" >"$out/$name" 2>&1
  echo "exit $?" >>"$out/$name"
}
for f in examples/*.eg; do
  n=$(basename "$f" .eg)
  keep "$n.run" "$bin" run "$f" --random 0
  keep "$n.optimize" "$bin" optimize "$f"
  keep "$n.fast-math" "$bin" optimize "$f" --fast-math
  keep "$n.bad-rules" "$bin" optimize "$f" --rules tests/rules/fail/duplicate_name.rules
  keep "$n.explore" "$bin" explore "$f"
  keep "$n.dot" "$bin" dot "$f"
  keep "$n.egraph-dot" "$bin" dot --egraph "$f"
  keep "$n.html-out" "$bin" html "$f" -o "$out/$n.html"
done
for f in examples/onnx/*.onnx tests/fuzz/corpus/onnx_import/*.onnx; do
  n=$(basename "$f" .onnx)
  keep "$n.import" "$bin" import "$f"
  keep "$n.onnx-run" "$bin" run "$f" --random 0
done
keep check-rules "$bin" check-rules rules/where.rules
