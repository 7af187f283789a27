"""`pip install .` for the Python package eqsat: CMake builds the extension
(`_eqsat`) and the `eqsat` program with the interpreter pip runs; setuptools
installs them with the package's Python files and the shipped rule files.

Offline, with Debian's setuptools, wheel, CMake, pybind11 and NumPy:

    python3 -m pip install --no-build-isolation .

Environment: EQSAT_CMAKE_BUILD_DIR reuses (or creates) that CMake build
folder instead of a temporary one; EQSAT_CMAKE_ARGS adds configure options
(e.g. "-DEQSAT_NATIVE=ON" for a build tuned to this machine only).
"""
import glob
import os
import re
import shlex
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))
PACKAGE_SOURCES = os.path.join("tools", "python", "eqsat")


def project_version():
    """The version CMakeLists.txt declares (project(eqsat VERSION X.Y.Z))."""
    with open(os.path.join(ROOT, "CMakeLists.txt"), encoding="utf-8") as f:
        found = re.search(r"project\(eqsat VERSION ([0-9.]+)", f.read())
    if not found:
        raise RuntimeError("CMakeLists.txt declares no project(eqsat VERSION ...)")
    return found.group(1)


class CMakeBuild(build_ext):
    """Builds `_eqsat` and the `eqsat` program with CMake and puts them (and
    the shipped rules) into the package."""

    def build_extension(self, ext):
        build_dir = os.environ.get("EQSAT_CMAKE_BUILD_DIR") or os.path.join(
            os.path.abspath(self.build_temp), "cmake")
        os.makedirs(build_dir, exist_ok=True)
        if not os.path.exists(os.path.join(build_dir, "CMakeCache.txt")):
            configure = ["cmake", "-S", ROOT, "-B", build_dir, "-DCMAKE_BUILD_TYPE=Release",
                         "-DEQSAT_BUILD_TESTS=OFF", "-DEQSAT_BUILD_BENCH=OFF",
                         "-DEQSAT_BUILD_PYTHON=ON", f"-DPython3_EXECUTABLE={sys.executable}"]
            if shutil.which("ninja"):
                configure += ["-G", "Ninja"]
            if shutil.which("ccache"):
                configure.append("-DCMAKE_CXX_COMPILER_LAUNCHER=ccache")
            configure += shlex.split(os.environ.get("EQSAT_CMAKE_ARGS", ""))
            subprocess.run(configure, check=True)
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", str(os.cpu_count() or 1))
        subprocess.run(["cmake", "--build", build_dir, "--target", "eqsat_python", "eqsat",
                        "-j", jobs], check=True)
        built = os.path.join(build_dir, "tools", "python", "eqsat")
        modules = glob.glob(os.path.join(built, "_eqsat*.so"))
        if len(modules) != 1:
            raise RuntimeError(f"expected one _eqsat module in {built}, found {modules}")
        target = os.path.dirname(self.get_ext_fullpath(ext.name))
        os.makedirs(os.path.join(target, "rules"), exist_ok=True)
        os.makedirs(os.path.join(target, "bin"), exist_ok=True)
        shutil.copy2(modules[0], self.get_ext_fullpath(ext.name))
        for rules in glob.glob(os.path.join(ROOT, "rules", "*.rules")):
            shutil.copy2(rules, os.path.join(target, "rules"))
        # The program and, beside it, the ONNX module it opens on its first
        # ONNX file (tools/onnx_module.hpp).
        for program in ("eqsat", "eqsat_onnx.so"):
            shutil.copy2(os.path.join(build_dir, "tools", program), os.path.join(target, "bin"))


setup(
    name="eqsat",
    version=project_version(),
    description="Optimize and run array programs by equality saturation",
    long_description="See README.md and docs/python.md.",
    python_requires=">=3.9",
    install_requires=["numpy"],
    packages=["eqsat"],
    package_dir={"eqsat": PACKAGE_SOURCES},
    ext_modules=[Extension("eqsat._eqsat", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    entry_points={"console_scripts": ["eqsat = eqsat.program:main"]},
    zip_safe=False,
)
