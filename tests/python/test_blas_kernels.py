"""The module's OpenBLAS is a shared library (NumPy's too) that chooses its
kernels before eqsat can: importing eqsat warns when they are its generic
ones on a CPU with better vector units, and names the setting that fixes it."""
import os
import subprocess
import sys

import pytest


def cpu_flags():
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("flags"):
                return set(line.split(":", 1)[1].split())
    return set()


def import_eqsat(coretype):
    """stderr of a fresh interpreter importing eqsat with OPENBLAS_CORETYPE set."""
    env = dict(os.environ, OPENBLAS_CORETYPE=coretype)
    done = subprocess.run([sys.executable, "-c", "import eqsat"], env=env,
                          capture_output=True, text=True, check=True)
    return done.stderr


needs_avx2 = pytest.mark.skipif(not {"avx2", "fma"} <= cpu_flags(),
                                reason="the CPU has no kernels better than the generic ones")


@needs_avx2
def test_generic_kernels_warn_and_name_the_fix():
    err = import_eqsat("Prescott")
    assert "RuntimeWarning" in err
    assert "generic kernels (Prescott)" in err
    wanted = "SkylakeX" if {"avx512f", "avx512vl", "avx512bw", "avx512dq"} <= cpu_flags() \
        else ("Zen" if "AuthenticAMD" in open("/proc/cpuinfo").read() else "Haswell")
    assert f"OPENBLAS_CORETYPE={wanted}" in err


@needs_avx2
def test_the_named_kernels_import_quietly():
    assert "RuntimeWarning" not in import_eqsat("Haswell")
