"""Data options shared by ``olearn train``, ``predict`` (and ``evaluate``): formats, readers,
standard input, the memory limit.

Nothing heavy at import: the readers are imported when data is opened.
"""

from __future__ import annotations

import argparse
import io
import os
import signal
import stat
import tempfile
from contextlib import contextmanager

FORMATS = ("svmlight", "vw")

#: Environment variable giving the default of ``--max-memory``.
MAX_MEMORY_VARIABLE = "OLEARN_MAX_MEMORY"
_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def add_debug(parser: argparse.ArgumentParser) -> None:
    """Accept ``--debug`` after the subcommand too (it is read from the raw arguments)."""
    parser.add_argument(
        "--debug", action="store_true", default=argparse.SUPPRESS, help="show tracebacks"
    )


def add_data_arguments(
    parser: argparse.ArgumentParser, *, training: bool, streaming: bool = True
) -> None:
    """The input options of ``train`` (``training``), ``predict``, and ``evaluate`` (not
    ``streaming``: it reads whole files, so it has no block size, memory limit or skipping
    of bad lines)."""
    group = parser.add_argument_group("data")
    # predict reads the data as the model was trained: these may only repeat the model's
    sniffed = "vw if the first example line has a '|' outside a comment, else svmlight"
    group.add_argument(
        "--format",
        choices=FORMATS,
        help="input format (default: " + (sniffed if training else "the model's") + ")",
    )
    group.add_argument(
        "--zero-based",
        dest="zero_based",
        action="store_true",
        default=None,
        help="svmlight indices start at 0 (default: "
        + ("auto-detect: 0 if any index is 0)" if training else "the model's, if it has one)"),
    )
    group.add_argument(
        "--one-based", dest="zero_based", action="store_false", help="svmlight indices start at 1"
    )
    if training:
        group.add_argument(
            "--n-features",
            type=positive_int,
            help="svmlight model width (default: the largest index in the data)",
        )
        group.add_argument(
            "--bits",
            type=int,
            help="vw: hash into 2^BITS features (default 18); svmlight: a width of 2^BITS, as "
            "--n-features 2^BITS",
        )
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
    if not streaming:
        return
    skipped = (
        "skip malformed lines, count them and report the count"
        if training
        else "skip malformed lines, count them, report the count and write a line of nan in "
        "place of each one, so output line k is still example line k"
    )
    group.add_argument(
        "--skip-bad-lines", action="store_true", help=skipped + " (default: stop at the first)"
    )
    group.add_argument(
        "--chunk-bytes",
        type=parse_size,
        metavar="SIZE",
        help="read the input in blocks of this many bytes, e.g. 32M (memory is proportional; "
        "default 8M, or the memory limit if smaller)",
    )
    add_memory_argument(group)


def input_spec(args, paths: list[str], sniff) -> dict:
    """The input description of ``add_data_arguments(training=True)``'s options: the format
    (``--format``, else ``sniff(paths[0])``), and the VW hashing (``--bits``, default 18,
    ``--ngrams``, ``--quadratic``) or the svmlight width (``--n-features`` or ``--bits``) and
    index base (None: decided from the data)."""
    fmt = args.format or sniff(paths[0])
    if args.bits is not None and not 1 <= args.bits <= 31:
        raise ValueError(f"--bits must be in [1, 31], got {args.bits}")
    if fmt == "vw":
        if args.n_features is not None:
            raise ValueError("--n-features is for svmlight input; VW-style input uses --bits")
        _refuse_index_base(args, "VW-style input (its features are hashed)")
        bits = 18 if args.bits is None else args.bits
        return {"format": "vw", "bits": bits, "ngrams": args.ngrams, "quadratic": args.quadratic}
    if args.ngrams or args.quadratic:
        raise ValueError("--ngrams and --quadratic apply to VW-style input (--format vw)")
    n_features = args.n_features
    if args.bits is not None:
        if n_features is not None:
            raise ValueError("give --n-features or --bits, not both")
        n_features = 1 << args.bits
    spec = {"format": "svmlight", "zero_based": args.zero_based}
    if n_features is not None:
        spec["n_features"] = n_features
    return spec


def _refuse_index_base(args, what: str) -> None:
    """``--zero-based``/``--one-based`` say how svmlight indices count: for other input they
    would be silently ignored."""
    given = getattr(args, "zero_based", None)
    if given is not None:
        flag = "--zero-based" if given else "--one-based"
        raise ValueError(f"{flag} applies to svmlight input, not to {what}")


def model_input(model: str, metadata: dict, args, width: int | None = None) -> dict:
    """The input description ``model`` was trained on (its metadata's ``input``: format,
    hashing, index base, width), with which ``predict`` and ``train --resume`` read data.
    ``--format`` and ``--zero-based``/``--one-based`` may repeat the model's, not contradict
    it: svmlight read with another index base shifts every feature by one, silently. The
    index base of a model trained without one (auto-detected, ``--n-features``) is the
    option's. So do train's width and hashing options (``_check_data_options``).

    A model without a description (saved by ``olearn.save``) reads svmlight unless
    ``--format vw`` says otherwise: then its width (``width``, its ``n_features_in_``) must
    be 2^bits, the hashing of ``load_vw(path, bits=...)`` without n-grams or crossings."""
    spec = stored_input(model, metadata)
    described = isinstance(metadata, dict) and metadata.get("input") is not None
    if args.format == "vw" and not described:
        spec = {"format": "vw", "bits": _hashing_bits(model, width), "ngrams": 0,
                "quadratic": []}  # fmt: skip
    if args.format and args.format != spec["format"]:
        raise ValueError(f"{model} was trained on {spec['format']} input, not {args.format}")
    given = getattr(args, "zero_based", None)
    if spec["format"] == "vw":
        _refuse_index_base(args, f"the VW-style input of {model}")
    if given is not None and spec["format"] == "svmlight":
        trained = spec.get("zero_based")
        if trained is not None and bool(trained) != given:
            flag = "--zero-based" if given else "--one-based"
            raise ValueError(
                f"{model} was trained on {'zero' if trained else 'one'}-based input, not {flag}: "
                "the data is read with the model's index base"
            )
        spec["zero_based"] = given
    _check_data_options(model, spec, args)
    return spec


def _hashing_bits(model: str, width: int | None) -> int:
    """The ``bits`` of VW-style input a model ``width`` features wide was hashed into."""
    if width is None or width < 2 or width & (width - 1) or width > 1 << 31:
        raise ValueError(
            f"{model} has {width} features, not 2^bits: it was not trained on VW-style input "
            "(olearn.save stores no input description; --format vw needs a width 2^bits)"
        )
    return width.bit_length() - 1


def stored_input(model: str, metadata) -> dict:
    """A copy of ``metadata["input"]``, checked: a model file's checksum catches accidents,
    not edits, and a malformed description is an error naming the field, not a crash in
    the reader. Models without one (saved by the library) read svmlight, base auto."""

    def malformed(field: str, value) -> ValueError:
        shown = "missing" if value is _MISSING else repr(value)[:60]
        return ValueError(f"{model} is corrupted (header field 'metadata.{field}' is {shown})")

    def integer(value, lo: int, hi: int) -> bool:
        return isinstance(value, int) and not isinstance(value, bool) and lo <= value <= hi

    if not isinstance(metadata, dict):
        raise ValueError(f"{model} is corrupted (header field 'metadata' is not an object)")
    spec = metadata.get("input")
    if spec is None:
        return {"format": "svmlight", "zero_based": None}
    if not isinstance(spec, dict):
        raise malformed("input", spec)
    spec = dict(spec)
    fmt = spec.get("format", _MISSING)
    if fmt not in FORMATS:
        raise malformed("input.format", fmt)
    if fmt == "vw":
        checks = {
            "bits": lambda v: integer(v, 1, 31),
            "ngrams": lambda v: integer(v, 0, 0) or integer(v, 2, 2**31),
            "quadratic": lambda v: (
                isinstance(v, list) and all(isinstance(pair, str) and len(pair) == 2 for pair in v)
            ),
        }
        spec.setdefault("ngrams", 0)
        spec.setdefault("quadratic", [])
    else:
        checks = {
            "zero_based": lambda v: v is None or isinstance(v, bool),
            "n_features": lambda v: v is None or integer(v, 1, 2**31 - 1),
        }
        spec.setdefault("zero_based", None)
    for field, valid in checks.items():
        value = spec.get(field, _MISSING)
        if value is _MISSING and field == "n_features":
            continue  # undecided (given to the command, or the model's)
        if value is _MISSING or not valid(value):
            raise malformed(f"input.{field}", value)
    if spec.get("n_features", 0) is None:
        del spec["n_features"]
    return spec


_MISSING = object()


def _check_data_options(model: str, spec: dict, args) -> None:
    """``train --resume``: the width and hashing options are the model's; one given with
    another value would be silently ignored (the model keeps its own), so it is an error,
    as a hyper-parameter is."""
    bits = getattr(args, "bits", None)
    asked = {
        "--n-features": getattr(args, "n_features", None),
        "--bits": bits,
        "--ngrams": getattr(args, "ngrams", 0) or None,  # 0 and [] are the defaults: not given
        "--quadratic": list(getattr(args, "quadratic", None) or []) or None,
    }
    if spec["format"] == "vw":
        own = {"--n-features": None, "--bits": spec.get("bits"), "--ngrams": spec.get("ngrams", 0),
               "--quadratic": list(spec.get("quadratic") or [])}  # fmt: skip
        described = (f"vw, --bits {own['--bits']}, --ngrams {own['--ngrams']}, "
                     f"--quadratic {' '.join(own['--quadratic']) or 'none'}")  # fmt: skip
    else:
        width = spec.get("n_features")
        own = {"--n-features": width, "--bits": None, "--ngrams": 0, "--quadratic": []}
        if bits is not None and width == 1 << bits:
            asked["--bits"] = None  # the same width
        described = f"svmlight, --n-features {width}"
    differ = [flag for flag, value in asked.items() if value is not None and value != own[flag]]
    if differ:
        raise ValueError(
            f"the data options come from the resumed model {model} ({described}); do not give "
            f"{', '.join(differ)} with --resume"
        )


def add_memory_argument(parser) -> None:
    parser.add_argument(
        "--max-memory",
        type=parse_size,
        metavar="SIZE",
        help="largest single allocation the command may make (the model, one input line, one "
        "example's features), checked before allocating: e.g. 512M, 8G (default: "
        f"${MAX_MEMORY_VARIABLE}, else half the physical memory)",
    )


def parse_size(text: str) -> int:
    """A size in bytes from ``123``, ``512K``, ``64M``, ``8G``, ``1T`` (powers of 1024; an
    optional trailing ``B``/``iB``)."""
    value = text.strip().upper().removesuffix("IB").removesuffix("B")
    unit = value[-1:] if value[-1:] in _UNITS and value[-1:] else ""
    number = value[: len(value) - len(unit)]
    try:
        size = float(number) * _UNITS[unit]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a size: {text!r} (e.g. 512M, 8G)") from None
    if not size >= 1 or size != size or size == float("inf"):
        raise argparse.ArgumentTypeError(f"not a positive size: {text!r}")
    return int(size)


def format_size(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if n < 1024 or unit == "TiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    raise AssertionError  # pragma: no cover


def counted(n: int, noun: str) -> str:
    """``n`` and the noun in the number it takes: "1 example", "2 examples", "1 bad line"."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def ignored_unseen(values: int, width: int, rows: int) -> str:
    """What ``predict`` and ``evaluate`` say of the features a model never saw."""
    return (
        f"ignored {counted(values, 'value')} of features unseen in training (beyond its "
        f"{counted(width, 'feature')}) in {counted(rows, 'example')}"
    )


def max_memory(args=None) -> int:
    """The memory limit: ``--max-memory``, else ``$OLEARN_MAX_MEMORY``, else half the
    physical memory (at least 1 GiB)."""
    given = getattr(args, "max_memory", None)
    if given is not None:
        return int(given)
    text = os.environ.get(MAX_MEMORY_VARIABLE)
    if text:
        try:
            return parse_size(text)
        except argparse.ArgumentTypeError as error:
            raise ValueError(f"${MAX_MEMORY_VARIABLE}: {error}") from None
    try:
        physical = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, OSError, ValueError):
        physical = 8 << 30
    return max(1 << 30, physical // 2)


#: ``--chunk-bytes`` by default.
DEFAULT_CHUNK_BYTES = 8 << 20


def resolve_chunk_bytes(args, memory: int) -> None:
    """``args.chunk_bytes`` under the memory limit ``memory``: the read-ahead buffers and
    parse arrays are sized by it, so a given size beyond the limit is refused (it was a
    MemoryError), and the default shrinks to the limit."""
    if args.chunk_bytes is None:
        args.chunk_bytes = min(DEFAULT_CHUNK_BYTES, memory)
    check_memory(args.chunk_bytes, memory, f"--chunk-bytes {args.chunk_bytes}")


def check_memory(needed: int, limit: int, what: str) -> None:
    """Refuse, before allocating, what would take more than the memory limit."""
    if needed > limit:
        raise ValueError(
            f"{what} needs {format_size(needed)}, more than the memory limit "
            f"{format_size(limit)} (--max-memory or ${MAX_MEMORY_VARIABLE})"
        )


def reader_limits(limit: int) -> dict:
    """The readers' per-line and per-example limits under a memory limit: a line of L bytes
    and an example of F features take about 32·L (parse arrays) and 52·F bytes at most: both
    stay well under the limit."""
    return {"max_line_bytes": max(1 << 20, limit // 32)}


def check_tagger_memory(model, tokens, tags) -> None:
    """``olearn tag train``: refuse a tagger whose weights, or whose k-best buffers, exceed
    the memory limit, before they are allocated (``--n-bits 30`` with 17 tags would take
    hundreds of GiB, ``--k-best 100000`` a few GiB a sentence)."""
    from olearn.structured.features import resolve

    n_labels = len({tag for sentence in tags for tag in sentence})
    arrays = 1 + bool(getattr(model, "average", False)) + (getattr(model, "rule", "") == "AROW")
    # its arrays of weights, and the pass's scratch (a float64 and a mark byte per weight)
    needed = (8 * arrays + 9) * model._n_weights(max(n_labels, 1))
    what = f"a tagger with 2^{model.n_bits} rows and {n_labels} tags"
    k = int(model.k_best)
    if k > 1 and tokens:
        # the pass keeps k differences of feature vectors of the longest sentence (its rows,
        # a bias row a token, its transitions: ``train.train_pass``) and the k-best lattice
        # keeps k entries per token and label (``decode.kbest_viterbi``)
        longest = max(tokens, key=len)
        function = resolve(model.features)
        rows = sum(len(function(longest, i)) + 1 for i in range(len(longest)))
        width = 2 * (rows + 3 * len(longest) + 2)
        needed += k * (16 * width + 4 * len(longest) + 16 * len(longest) * max(n_labels, 1))
        what += f" and --k-best {k}"
    check_memory(needed, max_memory(), what)


def positive_int(text: str) -> int:
    """An argparse type: an integer ≥ 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be positive: {text}")
    return value


def sniff_format(path: str) -> str:
    """``vw`` if the first example line contains a '|', else ``svmlight``."""
    from olearn.io.chunks import open_source, read_errors

    with read_errors(path):
        handle, owned = open_source(path)
        try:
            head = handle.read(1 << 16)
        finally:
            if owned:
                handle.close()
    return format_of(head)


def format_of(head: bytes) -> str:
    """``vw`` if the first example line of ``head`` contains a '|' before any '#', else
    ``svmlight`` (whose comments may hold a '|': ``1 1:0.5 # source a|b``)."""
    for line in head.splitlines():
        text = line.strip()
        if text and not text.startswith(b"#"):
            return "vw" if b"|" in text.partition(b"#")[0] else "svmlight"
    return "svmlight"


def is_stream(path: str) -> bool:
    """Whether input ``path`` can be read only once: ``-`` (standard input), or anything but
    a regular file — a named pipe, a process substitution ``<(zcat data.gz)``, a device."""
    if path == "-":
        return True
    try:
        return not stat.S_ISREG(os.stat(path).st_mode)
    except OSError:  # missing: check_inputs says so
        return False


class StandardInput:
    """Standard input for ``olearn train -`` (or another input that can be read only once,
    ``path``: ``is_stream``), read once, as it arrives (a pipe gives the reader its lines as
    they come: learning starts at once, memory stays bounded).

    With ``keep`` (several passes), the first pass copies what it reads to an anonymous
    temporary file — created without a name (or unlinked at once where the system cannot
    do that), so no copy of the input is left behind however the process ends — and the
    later passes read that copy.
    """

    def __init__(self, keep: bool, path: str = "-"):
        from olearn.io.chunks import open_source, read_errors

        self.name = "<stdin>" if path == "-" else path
        with read_errors(self.name):
            self._handle, _ = open_source(path, self.name)  # decompressed if compressed
        self._copy = tempfile.TemporaryFile(prefix="olearn-stdin-") if keep else None
        self._head = b""
        self._passes = 0

    def head(self) -> bytes:
        """The input's first bytes, up to its first example line (read now, replayed)."""
        from olearn.io.chunks import read_available

        chunk = bytearray(1 << 16)
        while len(self._head) < 1 << 20:
            n = read_available(self._handle, memoryview(chunk))
            if not n:
                break
            self._head += chunk[:n]
            lines = self._head.split(b"\n")[:-1]
            if any(line.strip() and not line.strip().startswith(b"#") for line in lines):
                break
        return self._head

    def source(self):
        """A binary file object for the next pass: the input itself, then its copy."""
        self._passes += 1
        if self._passes == 1:
            return io.BufferedReader(_FirstPass(self._head, self._handle, self._copy), 1 << 16)
        if self._copy is None:
            raise ValueError(f"{self.name} can be read only once")
        self._copy.flush()
        self._copy.seek(0)
        return self._copy  # a file object: the reader leaves it open

    def close(self) -> None:
        if self._copy is not None:
            self._copy.close()
        if self.name != "<stdin>":  # standard input's is a duplicate: closed with the process
            self._handle.close()


class _FirstPass(io.RawIOBase):
    """The head already read, then the rest of the input, copied to ``copy`` if given."""

    def __init__(self, head: bytes, handle, copy):
        self._head = memoryview(head)
        self._handle = handle
        self._copy = copy
        if copy is not None and head:
            copy.write(head)

    def readable(self) -> bool:
        return True

    def fileno(self) -> int:  # lets the reader see a pipe and read lines as they arrive
        return self._handle.fileno()

    def readinto(self, buffer) -> int:
        if self._head:
            n = min(len(buffer), len(self._head))
            buffer[:n] = self._head[:n]
            self._head = self._head[n:]
            return n
        from olearn.io.chunks import read_available

        n = read_available(self._handle, memoryview(buffer))
        if n and self._copy is not None:
            self._copy.write(memoryview(buffer)[:n])
        return n

    def close(self) -> None:  # the handle is standard input's: leave it open
        super().close()


class Terminated(SystemExit):
    """SIGTERM, raised by :func:`terminate_cleanly`: exit code 143 (a ``SystemExit``, so no
    ``except Exception`` stops it); ``main`` says so, as it says "interrupted" for Ctrl-C."""


@contextmanager
def terminate_cleanly():
    """SIGTERM as ``Terminated(143)``: ``finally`` blocks run (temporary files are removed,
    threads stopped), as for Ctrl-C."""

    def stop(signum, frame):
        raise Terminated(128 + signum)

    try:
        previous = signal.signal(signal.SIGTERM, stop)
    except ValueError:  # not the main thread: leave signals alone
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def check_inputs(paths: list[str]) -> None:
    if paths.count("-") > 1:
        raise ValueError("standard input ('-') can be given once")
    for path in paths:
        if path != "-" and not os.path.exists(path):
            raise ValueError(f"{path}: no such file")
        if path != "-" and os.path.isdir(path):
            raise ValueError(f"{path}: is a directory")


def check_output(path: str, inputs: list[str] = ()) -> None:
    """Fail before any work if the output's folder does not exist or cannot be written, or
    the output is one of the inputs (it would be overwritten)."""
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise ValueError(f"{path}: folder {folder} does not exist")
    if os.path.isdir(path):
        raise ValueError(f"{path}: is a directory")
    # the file is written beside its target (a link's), then renamed: that folder must be
    # writable, or the work would be lost at the end
    target_folder = os.path.dirname(os.path.realpath(path))
    if not os.access(target_folder, os.W_OK) and not _writable_special(path):
        raise ValueError(f"{path}: folder {target_folder} is not writable")
    for other in inputs:
        if other != "-" and os.path.exists(path) and os.path.exists(other):
            if os.path.samefile(path, other):
                raise ValueError(f"{path}: the output would overwrite the input {other}")


def _writable_special(path: str) -> bool:
    """An existing device or pipe (``/dev/stdout``), written into, not beside."""
    try:
        return not stat.S_ISREG(os.stat(path).st_mode) and os.access(path, os.W_OK)
    except OSError:
        return False


def make_reader(
    path,
    spec: dict,
    *,
    n_features: int | None,
    chunk_bytes: int,
    skip_bad_lines: bool,
    memory: int,
    require_label: bool = True,
    ignore_unseen: bool = False,
    name: str | None = None,
    model: str | None = None,
):
    """A reader for one input (a path, or a file object named ``name``) following ``spec``
    (the model's input description), within the memory limit ``memory``. ``model``: the
    model file ``spec`` comes from (predict, ``--resume``), named in the error of an index 0
    in one-based input instead of the hint ``--zero-based``, which it would refuse."""
    limits = reader_limits(memory)
    if spec["format"] == "vw":
        from olearn.io.vw import VWReader

        return VWReader(
            path,
            bits=spec["bits"],
            ngrams=spec.get("ngrams", 0),
            quadratic=spec.get("quadratic", []),
            require_label=require_label,
            max_row_features=max(1 << 16, memory // 256),
            chunk_bytes=chunk_bytes,
            skip_bad_lines=skip_bad_lines,
            name=name,
            **limits,
        )
    from olearn.io.svmlight import SvmlightReader

    zero_based = spec.get("zero_based")
    reader = SvmlightReader(
        path,
        n_features=n_features,
        zero_based="auto" if zero_based is None else bool(zero_based),
        ignore_unseen=ignore_unseen,
        chunk_bytes=chunk_bytes,
        skip_bad_lines=skip_bad_lines,
        name=name,
        **limits,
    )
    if model is not None and zero_based is not None and _recorded_base(model) is not None:
        # (a base given by --one-based for a model that records none keeps the reader's hint)
        reader.zero_index_hint = f"({model} was trained one-based)"
    return reader


def _recorded_base(model: str) -> bool | None:
    """Whether the model file ``model`` records zero-based svmlight input (None: no base,
    e.g. a model saved by ``olearn.save``)."""
    from olearn.io.model_file import plain_metadata, read_model_header

    metadata = plain_metadata(read_model_header(model).get("metadata", {})) or {}
    return stored_input(model, metadata).get("zero_based")


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
