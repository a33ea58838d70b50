"""Data options shared by ``olearn train``, ``predict`` (and ``evaluate``): formats, readers.

Nothing heavy at import: the readers are imported when data is opened.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile

FORMATS = ("svmlight", "vw")


def add_debug(parser: argparse.ArgumentParser) -> None:
    """Accept ``--debug`` after the subcommand too (it is read from the raw arguments)."""
    parser.add_argument(
        "--debug", action="store_true", default=argparse.SUPPRESS, help="show tracebacks"
    )


def add_data_arguments(parser: argparse.ArgumentParser, *, training: bool) -> None:
    group = parser.add_argument_group("data")
    group.add_argument(
        "--format",
        choices=FORMATS,
        help="input format (default: vw if the first example line has a '|', else svmlight"
        + ("; predict: as in training)" if not training else ")"),
    )
    group.add_argument(
        "--zero-based",
        dest="zero_based",
        action="store_true",
        default=None,
        help="svmlight indices start at 0 (default: auto-detect: 0 if any index is 0)",
    )
    group.add_argument(
        "--one-based", dest="zero_based", action="store_false", help="svmlight indices start at 1"
    )
    if training:
        group.add_argument(
            "--n-features",
            type=_positive_int,
            help="svmlight model width (default: the largest index in the data)",
        )
        group.add_argument("--bits", type=int, help="vw: hash into 2^BITS features (default 18)")
        group.add_argument(
            "--ngrams", type=int, default=0, help="vw: add 2..N-grams within each namespace"
        )
        group.add_argument(
            "--quadratic",
            "-q",
            action="append",
            default=[],
            metavar="AB",
            help="vw: cross namespaces starting with letters A and B (repeatable)",
        )
    group.add_argument(
        "--skip-bad-lines",
        action="store_true",
        help="skip malformed lines, count them and report the count (default: stop at the first)",
    )
    group.add_argument(
        "--chunk-bytes",
        type=_positive_int,
        default=8 << 20,
        help="read the input in blocks of this many bytes (memory is proportional; default 8 MiB)",
    )


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be positive: {text}")
    return value


def sniff_format(path: str) -> str:
    """``vw`` if the first example line contains a '|', else ``svmlight``."""
    from olearn.io.chunks import open_source

    handle, owned = open_source(path)
    try:
        head = handle.read(1 << 16)
    finally:
        if owned:
            handle.close()
    for line in head.splitlines():
        text = line.strip()
        if text and not text.startswith(b"#"):
            return "vw" if b"|" in text else "svmlight"
    return "svmlight"


class Spool:
    """Copies standard input to a temporary file when it must be read twice (scan + train,
    or several passes); removes the file on close."""

    def __init__(self) -> None:
        self.path: str | None = None

    def materialize(self, paths: list[str]) -> list[str]:
        if "-" not in paths:
            return paths
        if paths.count("-") > 1:
            raise ValueError("standard input ('-') can be given once")
        fd, self.path = tempfile.mkstemp(prefix="olearn-stdin-")
        with os.fdopen(fd, "wb") as out:
            shutil.copyfileobj(sys.stdin.buffer, out, 1 << 20)
        return [self.path if p == "-" else p for p in paths]

    def close(self) -> None:
        if self.path:
            try:
                os.unlink(self.path)
            except OSError:
                pass
            self.path = None


def check_inputs(paths: list[str]) -> None:
    for path in paths:
        if path != "-" and not os.path.exists(path):
            raise ValueError(f"{path}: no such file")
        if path != "-" and os.path.isdir(path):
            raise ValueError(f"{path}: is a directory")


def check_output(path: str) -> None:
    """Fail before any work if the output's folder does not exist."""
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise ValueError(f"{path}: folder {folder} does not exist")
    if os.path.isdir(path):
        raise ValueError(f"{path}: is a directory")


def make_reader(
    path: str,
    spec: dict,
    *,
    n_features: int | None,
    chunk_bytes: int,
    skip_bad_lines: bool,
    require_label: bool = True,
):
    """A reader for one input following ``spec`` (the model's input description)."""
    if spec["format"] == "vw":
        from olearn.io.vw import VWReader

        return VWReader(
            path,
            bits=spec["bits"],
            ngrams=spec.get("ngrams", 0),
            quadratic=spec.get("quadratic", []),
            require_label=require_label,
            chunk_bytes=chunk_bytes,
            skip_bad_lines=skip_bad_lines,
        )
    from olearn.io.svmlight import SvmlightReader

    zero_based = spec.get("zero_based")
    return SvmlightReader(
        path,
        n_features=n_features,
        zero_based="auto" if zero_based is None else bool(zero_based),
        chunk_bytes=chunk_bytes,
        skip_bad_lines=skip_bad_lines,
    )


def format_labels(values) -> list[str]:
    """Labels as text: integral floats without a decimal point, others in shortest form."""
    import numpy as np

    values = np.asarray(values)
    if values.dtype.kind == "f":
        out = []
        for v in values.tolist():
            out.append(str(int(v)) if float(v).is_integer() and abs(v) < 2**53 else repr(v))
        return out
    return [str(v) for v in values.tolist()]
