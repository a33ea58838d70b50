"""The Python examples of README.md and docs/*.md run as shown.

Each ```python block of a page runs, in order, in one namespace per page (as doctest runs a
docstring), in a fresh working directory (examples may write files). A block that cannot
run by itself says so in an HTML comment on the line before its fence,
``<!-- not run: why -->`` (a fragment of the reader's data, a file or a cluster it needs).
docs/cli.md is the command line's page, its examples need data files; it is left to the
command line's own tests.

Every page, docs/cli.md included, links only to files that exist, and names only options that
a command's ``--help`` shows (or an earlier spelling the pages call deprecated).
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


def all_pages() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


LINK = re.compile(r"\]\(([^)\s]+)\)")


@pytest.mark.parametrize("page", all_pages(), ids=lambda p: p.name)
def test_relative_links_resolve(page):
    targets = LINK.findall(page.read_text(encoding="utf-8"))
    local = [t for t in targets if not re.match(r"[a-z]+:", t) and t.split("#")[0]]
    assert [t for t in local if not (page.parent / t.split("#")[0]).exists()] == []


OPTION = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")
#: Earlier spellings that docs/cli.md ("Option names") calls deprecated, hidden from --help,
#: and curl's option in docs/serve.md.
NOT_IN_HELP = {"--n-bits", "--out", "--seed", "--data-binary"}


def test_options_the_pages_name_exist(capsys):
    from olearn.cli import SUBCOMMANDS, main
    from olearn.registry import ALGORITHMS

    commands = [[], *([name] for name in SUBCOMMANDS if name != "tag")]
    commands += [["tag", action] for action in ("train", "predict", "evaluate")]
    commands += [["train", name] for name in ALGORITHMS]
    for argv in commands:
        with pytest.raises(SystemExit):
            main([*argv, "--help"])
    shown = set(OPTION.findall(capsys.readouterr().out))
    named = {
        option
        for page in all_pages()
        for option in OPTION.findall(page.read_text(encoding="utf-8"))
    }
    assert sorted(named - shown - NOT_IN_HELP) == []
