"""``olearn info MODEL``: what a model file holds, without importing its estimator.

Everything shown comes from the file, which may have been written by anyone: text is printed
with control characters escaped (no terminal escape sequence reaches the terminal), and the
file is read within the same bounds as ``olearn.load`` (a non-model file is a one-line error).
"""

from __future__ import annotations

import json
import re

from olearn.cli._data import add_debug

#: C0 and C1 controls, DEL, line/paragraph separators, bidirectional overrides and unpaired
#: surrogates (a string label "\ud800" can be saved, but no output encoding can print it).
_CONTROL = re.compile(
    "[\x00-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)


def printable(value) -> str:
    """``str(value)`` with control characters shown as escapes (``\\x1b``)."""

    def escape(match) -> str:
        code = ord(match[0])
        return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"

    return _CONTROL.sub(escape, str(value))


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "info", help="describe a saved model", description="Describe a saved model file."
    )
    parser.add_argument("model", metavar="MODEL")
    parser.add_argument("--json", action="store_true", help="the whole header as JSON")
    add_debug(parser)
    parser.set_defaults(run=run)


def _bytes(n: int) -> str:
    from olearn.io.model_file import _size_text

    return f"{n:,} bytes" if n < 1024 else f"{_size_text(n)} ({n:,} bytes)"


def run(args) -> int:
    from olearn.cli._data import format_labels
    from olearn.io._schema import Invalid
    from olearn.io.model_file import open_model_file, plain_metadata

    file = open_model_file(args.model)
    header = file.header
    if args.json:  # ensure_ascii: control characters come out as \u escapes
        print(json.dumps(header, indent=2, sort_keys=True))
        return 0

    def array(name):
        entry = file.entries.get(name)
        if entry is None:
            return None
        try:
            return file.read(entry)
        except Invalid as error:
            raise ValueError(f"{file.name} is corrupted ({error})") from None

    scalars = {
        k: v
        for k, v in header["attributes"].items()
        if not isinstance(v, dict | list) and not k.startswith("_")
    }
    metadata = plain_metadata(header["metadata"])
    metadata = metadata if isinstance(metadata, dict) else {}
    params = {k: plain_metadata(v) for k, v in header["params"].items()}
    lines = [("model", args.model)]
    estimator = header["estimator"]
    lines.append(("estimator", f"{estimator.rsplit('.', 1)[-1]} ({estimator})"))
    if metadata.get("algorithm"):
        lines.append(("algorithm", f"{metadata['algorithm']} ({metadata.get('task', '?')})"))
    shown = ", ".join(f"{k}={v!r}" for k, v in sorted(params.items()))
    lines.append(("parameters", shown))
    if "n_features_in_" in scalars:
        lines.append(("features", scalars["n_features_in_"]))
    classes = array("classes_")
    if classes is not None:
        lines.append(("classes", " ".join(format_labels(classes))))
    stats = array("stats_")
    if stats is not None and stats.size >= 3 and stats.dtype.kind == "f":
        for label, value in zip(("rounds", "mistakes", "updates"), stats[:3], strict=True):
            lines.append((label, int(value) if abs(value) < 2**63 else value))
    counts = array("_counts")
    if counts is not None and counts.size:
        lines.append(("support vectors", int(counts[0])))
    spec = metadata.get("input")
    if isinstance(spec, dict) and spec:
        text = ", ".join(f"{k}={v}" for k, v in spec.items() if k != "format")
        lines.append(("input", f"{spec.get('format', '?')}" + (f" ({text})" if text else "")))
    trained_on = metadata.get("trained_on")
    if isinstance(trained_on, list) and trained_on:
        lines.append(("trained on", " ".join(str(p) for p in trained_on)))
    public = {k: e for k, e in sorted(file.entries.items()) if not k.startswith("_")}
    shapes = ", ".join(f"{k} {e.shape}" for k, e in public.items() if int(e.nbytes))
    lines.append(("arrays", shapes))
    nonzero = []
    for name, entry in public.items():
        if entry.dtype.kind != "f" or not entry.nbytes or name in ("stats_", "classes_"):
            continue
        count = entry.nonzero
        if count is None:  # format 1 does not record it
            count = int((array(name) != 0).sum())
        nonzero.append(f"{name} {count:,} of {int(entry.nbytes) // entry.dtype.itemsize:,}")
    dual = file.entries.get("_A")
    if counts is not None and dual is not None and dual.nbytes:  # a kernel model's weights
        count = dual.nonzero if dual.nonzero is not None else int((array("_A") != 0).sum())
        size = int(dual.nbytes) // dual.dtype.itemsize
        nonzero.append(f"dual coefficients {count:,} of {size:,}")
    if nonzero:
        lines.append(("nonzero", ", ".join(nonzero)))
    in_memory = sum(int(e.nbytes) for e in file.entries.values())
    lines.append(("size", f"{_bytes(file.size)} on disk, {_bytes(in_memory)} in memory"))
    version = header["format"]
    lines.append(("format", f"{version} (written by olearn {header['olearn_version']})"))
    for label, value in lines:
        print(f"{label:<15} {printable(value)}")
    return 0
