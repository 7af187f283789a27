#!/bin/sh
# Prints the OpenBLAS kernels eqsat's products run on, as `eqsat
# --version` names them (the executable chooses them by the CPU's features,
# backend/blas_start.cpp), or nothing without OpenBLAS. The NumPy baselines
# run with the same kernels, so that a CPU model newer than Debian's
# OpenBLAS knows does not leave NumPy alone on its generic SSE3 kernels.
#   bench/blas_core.sh [BUILD_DIR]      (default: build)
"${1:-build}/tools/eqsat" --version | sed -n 's/^OpenBLAS kernels: //p'
