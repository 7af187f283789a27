"""The `eqsat` command a `pip install .` puts on the PATH: runs the program
installed inside the package (eqsat/bin/eqsat) with the same arguments."""
import os
import sys


def main():
    program = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin", "eqsat")
    if not os.access(program, os.X_OK):
        sys.stderr.write(f"eqsat: the program is not installed with this package ({program}); "
                         "build it with CMake (docs/python.md)\n")
        return 2
    os.execv(program, [program] + sys.argv[1:])
    return 3  # not reached: execv replaces the process


if __name__ == "__main__":
    sys.exit(main())
