"""The Markdown report written by ``olearn experiment all``."""

from __future__ import annotations

import os
import platform
import sys


def header(names, seconds: float, quick: bool) -> str:
    import olearn

    size = "quick (reduced) sizes" if quick else "full sizes"
    return (
        "# olearn: reproductions of the papers' experiments\n\n"
        f"olearn {olearn.__version__}, Python {platform.python_version()}, "
        f"{os.cpu_count()} CPU(s); {size}; experiments: {', '.join(names)}; "
        f"total {seconds:.1f} s.\n\n"
    )


def section(name, title, result, paths, out, seconds) -> str:
    lines = [f"## {title} (`olearn experiment {name}`, {seconds:.1f} s)", ""]
    # the protocol paragraph: the second paragraph of the experiment module's docstring
    doc = (sys.modules[type(result).__module__].__doc__ or "").strip()
    paragraphs = doc.split("\n\n")
    if len(paragraphs) > 1:
        lines += [paragraphs[1], ""]
    lines += [result.to_markdown(), ""]
    if hasattr(result, "agreement"):
        lines += ["Where ours agree and differ with the paper:", ""]
        lines += [f"- {note}" for note in result.agreement()]
        lines.append("")
    if hasattr(result, "accuracy_markdown"):
        lines += ["<details><summary>Test accuracy per task</summary>", ""]
        lines += [result.accuracy_markdown(), "", "</details>", ""]
    skipped = getattr(result, "skipped", None)
    if skipped:
        lines += [f"Skipped: {', '.join(f'{k} ({v})' for k, v in skipped.items())}", ""]
    for key, path in paths.items():
        rel = os.path.relpath(path, out)
        lines.append(f"![{key}]({rel})")
    return "\n".join(lines)
