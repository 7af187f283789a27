#!/usr/bin/env python3
"""Checks that every test the README's bad-input table names exists.

Each cell of the table's last column names tests as `FILE: "TEST CASE"`
(further `"TEST CASE"`s in the same cell belong to the last FILE) or as
fixture globs such as `tests/ops/fail/huge_*.eg`. Exit status 1, with the
missing names, when one does not exist. Usage: check_readme_table.py ROOT
"""
import glob
import os
import re
import sys

root = sys.argv[1]
text = open(os.path.join(root, "README.md"), encoding="utf-8").read()
section = text.split("## When the input is bad", 1)[1].split("\n## ", 1)[0]
rows = [line for line in section.splitlines() if line.startswith("| ") and "---" not in line][1:]
missing = []
named = 0
for row in rows:
    cell = row.rstrip().rstrip("|").rsplit(" | ", 1)[1]
    current = None
    for match in re.finditer(r'`([^`]+)`|"([^"]+)"', cell):
        code, name = match.groups()
        if code:
            path = code.split(":")[0]
            if "*" in path or path.endswith((".eg", ".rules", ".cmake")):
                found = glob.glob(os.path.join(root, path))
                if not found:
                    missing.append(f"{path}: no such fixture")
                named += len(found) > 0
                if path.endswith(".cpp"):
                    current = path
            elif path.endswith(".cpp"):
                current = path
                if ': "' in code:
                    name = code.split(': "', 1)[1].rstrip('"')
            if not name:
                continue
        if current is None:
            missing.append(f'"{name}": no test file named before it')
            continue
        source = open(os.path.join(root, current), encoding="utf-8").read()
        if f'TEST_CASE("{name}"' not in source and f'TEST_CASE(\n    "{name}"' not in source:
            missing.append(f'{current}: no TEST_CASE("{name}")')
        named += 1
if len(rows) < 15 or missing:
    print(f"README bad-input table: {len(rows)} rows", *missing, sep="\n", file=sys.stderr)
    sys.exit(1)
print(f"README bad-input table: {len(rows)} rows, {named} tests and fixtures found")
