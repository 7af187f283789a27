#!/usr/bin/env python3
"""Writes docs/onnx.md's coverage table from the conformance driver's report.

    build/tests/onnx/eqsat_onnx_conformance /usr/include/onnx/backend/test/data/node \
        --report build/conformance.tsv
    tests/onnx/coverage_table.py build/conformance.tsv docs/onnx.md

The table has one row per ONNX op type found in the node tests' models: the
tests using it that pass (as written and optimized), and those refused with
the reason most of them give. The text between the markers
`<!-- coverage begin -->` and `<!-- coverage end -->` is replaced.
"""
import collections
import re
import sys


def main(report, doc):
    rows = [line.rstrip("\n").split("\t") for line in open(report, encoding="utf-8")]
    status = collections.Counter(r[1] for r in rows)
    per_op = collections.defaultdict(lambda: {"PASS": 0, "REFUSED": 0, "reasons": collections.Counter()})
    for name, st, ops, msg in rows:
        for op in filter(None, ops.split(",")):
            entry = per_op[op]
            entry[st if st in ("PASS", "REFUSED") else "REFUSED"] += 1
            if st != "PASS":
                reason = re.sub(r"^.*?: (node '[^']*' )?", "", msg, count=1)
                reason = re.sub(r"node '[^']*' ", "", reason)
                reason = re.sub(r"^(\([^)]*\)|input '[^']*'|initializer|error): (not supported: )?", "", reason)
                entry["reasons"][reason] += 1
    lines = [
        f"{len(rows)} node tests: **{status['PASS']} pass** as written and optimized, "
        f"{status['REFUSED']} refused, {status['WRONG']} wrong, {status['ERROR']} errors.",
        "",
        "| ONNX op | tests passing | tests refused | the most common refusal |",
        "| --- | ---: | ---: | --- |",
    ]
    for op in sorted(per_op):
        e = per_op[op]
        reason = e["reasons"].most_common(1)[0][0].replace("|", "\\|") if e["reasons"] else ""
        lines.append(f"| {op} | {e['PASS']} | {e['REFUSED']} | {reason} |")
    text = open(doc, encoding="utf-8").read()
    begin, end = "<!-- coverage begin -->", "<!-- coverage end -->"
    head, rest = text.split(begin)
    _, tail = rest.split(end)
    open(doc, "w", encoding="utf-8").write(head + begin + "\n" + "\n".join(lines) + "\n" + end + tail)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: coverage_table.py REPORT.tsv docs/onnx.md")
    main(sys.argv[1], sys.argv[2])
