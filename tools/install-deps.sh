#!/usr/bin/env bash
# Installs the Debian packages eqsat needs, only those that are missing.
# Idempotent; run as root on a Debian 12 machine.
set -euo pipefail
packages=(
  g++ cmake ninja-build pkg-config
  lld  # links the eqsat program with its start-up order (tools/startup_order.txt)
  libboost-dev libboost-graph-dev libeigen3-dev catch2
  nlohmann-json3-dev libcli11-dev libfmt-dev libabsl-dev coinor-libcbc-dev
  libsleef-dev libopenblas-dev libdnnl-dev
  graphviz
  chromium  # renders `eqsat html`'s page headless in tests/tools/test_cmd_html.cpp
  python3-numpy python3-numexpr python3-threadpoolctl python3-dev pybind11-dev python3-pytest
  clang libclang-rt-14-dev  # the sanitizer build and the libFuzzer targets (.ci/sanitize)
  libonnx-dev libprotobuf-dev protobuf-compiler  # onnx/: reading and writing ONNX models
  libonnx-testdata  # ONNX's backend node tests (tests/onnx/conformance)
  python3-onnx python3-torch  # onnx.checker on exports; examples/onnx/export_models.py
  python3-venv python3-pip python3-setuptools python3-wheel  # `pip install .` (tests/python/test_packaging.py)
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
