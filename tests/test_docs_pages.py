"""The Python examples of README.md and docs/*.md run as shown.

Each ```python block of a page runs, in order, in one namespace per page (as doctest runs a
docstring), in a fresh working directory (examples may write files). A block that cannot
run by itself says so in an HTML comment on the line before its fence,
``<!-- not run: why -->`` (a fragment of the reader's data, a file or a cluster it needs).
docs/cli.md is the command line's page, its examples need data files; it is left to the
command line's own tests.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NOT_RUN = re.compile(r"<!--\s*not run:[^>]*-->\s*$")


def pages() -> list[Path]:
    return [
        ROOT / "README.md",
        *sorted(p for p in (ROOT / "docs").glob("*.md") if p.name != "cli.md"),
    ]


def python_blocks(text: str) -> list[tuple[int, str, bool]]:
    """``(line, code, runs)`` of every ```python block of a markdown text."""
    lines = text.splitlines()
    blocks = []
    i = 0
    while i < len(lines):
        if lines[i].strip() == "```python":
            start = i + 1
            end = start
            while lines[end].strip() != "```":
                end += 1
            runs = not (i > 0 and NOT_RUN.match(lines[i - 1].strip()))
            blocks.append((start + 1, "\n".join(lines[start:end]), runs))
            i = end
        i += 1
    return blocks


def test_pages_have_examples_that_run():
    runnable = [b for page in pages() for b in python_blocks(page.read_text()) if b[2]]
    assert len(runnable) >= 5


@pytest.mark.parametrize("page", pages(), ids=lambda p: p.name)
def test_page_examples_run(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    namespace: dict = {"__name__": f"docs_{page.stem}"}
    for line, code, runs in python_blocks(page.read_text(encoding="utf-8")):
        compiled = compile(code, f"{page.name}:{line}", "exec")  # every block is valid Python
        if runs:
            exec(compiled, namespace)
