"""docs/python.md's tutorial: every ```python snippet of its Tutorial
section runs, in order, in one namespace (each asserts what it shows)."""
import os
import pathlib
import re

SOURCE = pathlib.Path(os.environ.get("EQSAT_SOURCE_DIR", pathlib.Path(__file__).parents[2]))


def tutorial_snippets():
    text = (SOURCE / "docs" / "python.md").read_text()
    section = text.split("## Tutorial", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```python\n(.*?)```", section, re.S)


def test_the_tutorial_runs():
    snippets = tutorial_snippets()
    assert len(snippets) >= 8
    namespace = {}
    for i, code in enumerate(snippets):
        exec(compile(code, f"docs/python.md snippet {i + 1}", "exec"), namespace)
