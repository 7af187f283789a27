"""`pip install --no-build-isolation .` (setup.py, pyproject.toml) in a fresh
venv with the system's site packages: `import eqsat` works from another
folder, with its version, the shipped rules and the `eqsat` command. The
CMake build reuses this test's build tree (EQSAT_CMAKE_BUILD_DIR), so only
pip's own work is timed here."""
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

import eqsat

SOURCE = pathlib.Path(os.environ.get("EQSAT_SOURCE_DIR", pathlib.Path(__file__).parents[2]))
BUILD = os.environ.get("EQSAT_BUILD_DIR")


def copy_sources(to):
    """What setup.py reads when it reuses a build tree: itself, the project's
    version, the package's Python files and the shipped rules."""
    for name in ("setup.py", "pyproject.toml", "CMakeLists.txt"):
        (to / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(SOURCE / name, to / name)
    shutil.copytree(SOURCE / "tools" / "python" / "eqsat", to / "tools" / "python" / "eqsat",
                    ignore=shutil.ignore_patterns("__pycache__"))
    (to / "rules").mkdir()
    for rules in (SOURCE / "rules").glob("*.rules"):
        shutil.copy(rules, to / "rules")


@pytest.mark.skipif(not BUILD, reason="needs EQSAT_BUILD_DIR (run through ctest)")
def test_pip_install_into_a_fresh_venv(tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip",
                    str(venv)], check=True)
    python = venv / "bin" / "python"
    source = tmp_path / "src"
    copy_sources(source)
    env = dict(os.environ, EQSAT_CMAKE_BUILD_DIR=BUILD, PIP_NO_INDEX="1",
               PIP_DISABLE_PIP_VERSION_CHECK="1")
    env.pop("PYTHONPATH", None)
    done = subprocess.run([str(python), "-m", "pip", "install", "--no-build-isolation",
                           "--no-deps", "-q", str(source)], env=env, capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    check = ("import eqsat, os, numpy as np\n"
             "x = eqsat.input('x', 'float64', (3,))\n"
             "y = eqsat.compile(eqsat.Graph.build(x.sum()))(x=np.ones(3))\n"
             "print(eqsat.__version__, float(y), sorted(os.listdir(eqsat.RULES_DIR))[0],\n"
             "      eqsat.__file__)\n")
    out = subprocess.run([str(python), "-c", check], cwd=elsewhere, env=env,
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    version, total, first_rules, where = out.stdout.split()
    assert version == eqsat.__version__
    assert total == "3.0"
    assert first_rules.endswith(".rules")
    assert str(venv) in where
    program = subprocess.run([str(venv / "bin" / "eqsat"), "--version"], env=env,
                             capture_output=True, text=True)
    assert program.returncode == 0 and program.stdout.startswith("eqsat " + version)
    # The ONNX module sits beside the program: an ONNX file is written.
    (elsewhere / "g.eg").write_text("(input x (f64 3))\n(output (exp x))\n")
    exported = subprocess.run([str(venv / "bin" / "eqsat"), "optimize", "g.eg", "-o", "g.onnx"],
                              cwd=elsewhere, env=env, capture_output=True, text=True)
    assert exported.returncode == 0, exported.stderr
    assert (elsewhere / "g.onnx").read_bytes()[:1] == b"\x08"


def test_version_is_the_projects():
    text = (SOURCE / "CMakeLists.txt").read_text()
    assert f"project(eqsat VERSION {eqsat.__version__}" in text


def test_a_foreign_interpreter_gets_a_hint(tmp_path):
    # The extension cannot load (here: it is missing); the message says why
    # and what to do, instead of a bare ModuleNotFoundError.
    fake = tmp_path / "eqsat"
    fake.mkdir()
    shutil.copy(pathlib.Path(eqsat.__file__), fake / "__init__.py")
    out = subprocess.run([sys.executable, "-c", "import eqsat"], cwd=tmp_path,
                         capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=""))
    assert out.returncode != 0
    assert "eqsat is built for one interpreter" in out.stderr
    assert "--system-site-packages" in out.stderr


def test_an_interpreter_without_numpy_gets_a_hint(tmp_path):
    # NumPy hidden: the import says what is missing and what to do.
    (tmp_path / "numpy.py").write_text("raise ImportError('no numpy here')\n")
    package = pathlib.Path(eqsat.__file__).parent
    out = subprocess.run([sys.executable, "-c", "import eqsat"], cwd=tmp_path,
                         capture_output=True, text=True,
                         env=dict(os.environ, PYTHONPATH=f"{tmp_path}:{package.parent}"))
    assert out.returncode != 0
    assert "eqsat needs NumPy, which this interpreter" in out.stderr
