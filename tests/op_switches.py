#!/usr/bin/env python3
"""Checks the switches over ops outside ops/ (STYLE.md: a fact about an op
is a column of the catalogue or a table every op has an entry in, never a
switch whose `default:` hands a new op another op's behaviour).

Usage: op_switches.py ROOT [--max-labels N] [FILE ...]

Reads every .cpp and .hpp of ROOT's support/ egraph/ backend/ onnx/ rules/
tools/ and tests/ (or only the FILEs given), with comments, string and
character literals blanked out. A switch is over ops when one of its own
case labels (those directly in its braces, not a nested switch's) names
`OpKind::`; such a switch must have no `default:` label of its own. Prints
each violation as FILE:LINE and the number of `case ...OpKind::` labels
read; with --max-labels, more labels than N is a failure too. Exit status
1 on a failure, 0 otherwise. The check is textual: a switch over an OpKind
written without `OpKind::` in its labels (`using enum`) is not seen.
"""
import os
import re
import sys

FOLDERS = ["support", "egraph", "backend", "onnx", "rules", "tools", "tests"]


def blank(text):
    """text with comments and literals replaced by spaces (newlines kept)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
        elif c == 'R' and text.startswith('R"', i) and (i == 0 or not text[i - 1].isalnum()):
            delim = text[i + 2:text.find("(", i + 2)]
            j = text.find(")" + delim + '"', i)
            j = n if j < 0 else j + len(delim) + 2
        elif c in "\"'" and not (c == "'" and i > 0 and text[i - 1].isalnum()):
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            j += 1
        else:
            out.append(c)
            i += 1
            continue
        out.append("".join(ch if ch == "\n" else " " for ch in text[i:j]))
        i = j
    return "".join(out)


def matching(text, i, open_c, close_c):
    """Index just past the bracket closing the one at i."""
    depth = 0
    for j in range(i, len(text)):
        if text[j] == open_c:
            depth += 1
        elif text[j] == close_c:
            depth -= 1
            if depth == 0:
                return j + 1
    return len(text)


LABEL = re.compile(r"\b(case)\b|\b(default)\s*:")


def check(path, text):
    """(violating lines, number of OpKind case labels) of one file."""
    code = blank(text)
    bad = []
    labels = len(re.findall(r"\bcase\s+(?:ops::)?OpKind::", code))
    for m in re.finditer(r"\bswitch\s*\(", code):
        body = code.find("{", matching(code, m.end() - 1, "(", ")"))
        if body < 0:
            continue
        end = matching(code, body, "{", "}")
        depth, over_ops, default_at = 0, False, None
        i = body
        while i < end:
            c = code[i]
            if c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
            elif depth == 1 and (c == "c" or c == "d"):
                lm = LABEL.match(code, i)
                if lm and (i == 0 or not (code[i - 1].isalnum() or code[i - 1] == "_")):
                    if lm.group(1):
                        colon = re.compile(r"(?<!:):(?!:)").search(code, lm.end())
                        stop = colon.start() if colon else end
                        over_ops |= "OpKind::" in code[lm.end():stop]
                        i = stop
                    else:
                        default_at = i
                        i = lm.end()
                    continue
            i += 1
        if over_ops and default_at is not None:
            bad.append(code.count("\n", 0, default_at) + 1)
    return bad, labels


def main(argv):
    root, rest = argv[1], argv[2:]
    max_labels = None
    if rest[:1] == ["--max-labels"]:
        max_labels, rest = int(rest[1]), rest[2:]
    files = rest
    if not files:
        for folder in FOLDERS:
            for dirpath, dirnames, names in os.walk(os.path.join(root, folder)):
                dirnames.sort()
                files += [os.path.join(dirpath, f) for f in sorted(names)
                          if f.endswith((".cpp", ".hpp"))]
    if not files:
        print(f"no sources found under {root}")
        return 1
    failed = False
    total = 0
    for path in files:
        with open(path, encoding="utf-8") as f:
            bad, labels = check(path, f.read())
        total += labels
        for line in bad:
            print(f"{path}:{line}: default: in a switch over OpKind (read a catalogue column, "
                  "or name every op: ops/README.md)")
            failed = True
    print(f"{len(files)} files: {total} `case OpKind::` labels"
          + (f" (at most {max_labels})" if max_labels is not None else ""))
    if max_labels is not None and total > max_labels:
        print(f"more than {max_labels} `case OpKind::` labels outside ops/")
        failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
