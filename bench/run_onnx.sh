#!/bin/sh
# eqsat against onnxruntime (bench/onnx_models.py): installs the npm package
# onnxruntime-node 1.30 into BUILD_DIR/bench/ort on first use (CPU binaries
# ship in the package; --ignore-scripts skips its optional GPU download),
# then runs the models with the same thread count on both sides.
#   bench/run_onnx.sh [BUILD_DIR] [onnx_models.py options...]   (default: build)
# Needs node/npm and python3-onnx; build eqsat first (target eqsat).
set -eu
cd "$(dirname "$0")/.."
build=${1:-build}
[ $# -gt 0 ] && shift
ort="$build/bench/ort"
if [ ! -d "$ort/node_modules/onnxruntime-node" ]; then
  mkdir -p "$ort"
  (cd "$ort" && npm install --ignore-scripts --no-audit --no-fund onnxruntime-node@1.30 >/dev/null)
fi
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
/usr/bin/python3 bench/onnx_models.py --eqsat "$build/tools/eqsat" \
  --ort "$ort/node_modules/onnxruntime-node" "$@"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
