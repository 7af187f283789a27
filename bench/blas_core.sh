#!/bin/sh
# Prints the OpenBLAS kernels for this CPU's vector units, chosen as
# eqsat's executables choose them for their own OpenBLAS
# (backend/blas_start.cpp): SkylakeX with AVX-512, Zen or Haswell with
# AVX2 and FMA, nothing otherwise. The NumPy baselines run with the same
# kernels, so that a CPU model newer than Debian's OpenBLAS knows does not
# leave NumPy on its generic SSE3 kernels.
flags=$(grep -m1 '^flags' /proc/cpuinfo)
has() { case " ${flags#*:} " in *" $1 "*) return 0 ;; esac; return 1; }
if has avx512f && has avx512vl && has avx512bw && has avx512dq; then
  echo SkylakeX
elif has avx2 && has fma; then
  if grep -qm1 AuthenticAMD /proc/cpuinfo; then echo Zen; else echo Haswell; fi
fi
