"""Fuzzing what ``test_io_fuzz.py`` (the readers on plain text) and ``test_model_file_fuzz.py``
(the model-file loader) leave out (issue 12):

* ``skip_bad_lines`` as a property: on a mutated file, skipping equals reading the file with
  its malformed lines deleted, where "malformed" is decided line by line on its own. So a
  skipped line has no effect at all: not on the width, the index base, the labels or the rows.
  And each skipped line keeps its place among the examples (``Chunk.skipped_before``), which
  ``olearn predict --skip-bad-lines`` needs to write its placeholder line there.
* the compressed layer: a damaged ``.gz`` (cut short, bits flipped) gives the rows of its good
  part or a ``ValueError`` naming the file, in every reader and in the svmlight scan, never a
  zlib/EOF/Unicode traceback; bzip2 and xz likewise.

Seeded loops with a small time budget each.
"""

import bz2
import gzip
import io
import lzma
import time

import numpy as np
import pytest
import scipy.sparse as sp
from test_io_fuzz import SEEDS, _mutate
from test_io_svmlight import _places

from olearn.io import (
    BadLineError,
    SvmlightReader,
    VWReader,
    load_svmlight,
    load_vw,
    scan_svmlight,
)
from olearn.structured.readers import read_conllu

BUDGET_SECONDS = 1.5
MIN_CASES, MAX_CASES = 30, 150


def _cases(name: str, seed: int, mutate=_mutate):
    """Mutated inputs of one format: at least MIN_CASES (the first ones also compile), then
    more until the budget is spent."""
    rng = np.random.default_rng(seed)
    deadline = time.monotonic() + BUDGET_SECONDS
    for i in range(MAX_CASES):
        if i >= MIN_CASES and time.monotonic() > deadline:
            return
        yield mutate(SEEDS[name], rng)


def _lines(data: bytes) -> list[bytes]:
    """The lines as the readers split them (a last line without newline is a line)."""
    lines = data.split(b"\n")
    return [line + b"\n" for line in lines[:-1]] + ([lines[-1]] if lines[-1] else [])


def _read(load, data: bytes, **options):
    """``load`` on ``data``: ``(X, y)``, or the ValueError's class and problem (its text
    after the line number, which differs between a file and its cleaned copy)."""
    try:
        X, y = load(io.BytesIO(data), **options)
    except BadLineError as error:
        return type(error), error.code, error.token
    except ValueError as error:
        return ValueError, str(error).split(": ", 1)[-1]
    return sp.csr_matrix(X), y


def _same(a, b) -> bool:
    if isinstance(a, tuple) and isinstance(a[0], type):
        return a == b
    if isinstance(b, tuple) and isinstance(b[0], type):
        return False
    (Xa, ya), (Xb, yb) = a, b
    return Xa.shape == Xb.shape and (Xa != Xb).nnz == 0 and np.array_equal(ya, yb)


def _without_bad_lines(data: bytes, is_bad) -> tuple[bytes, int]:
    kept, bad = [], 0
    for line in _lines(data):
        if is_bad(line):
            bad += 1
        else:
            kept.append(line)
    return b"".join(kept), bad


def _svmlight_line_is_bad(line: bytes) -> bool:
    # on its own: zero-based (an index 0 is no error by itself), no width
    try:
        load_svmlight(io.BytesIO(line), zero_based=True)
    except BadLineError:
        return True
    except ValueError:  # no example on the line: blank or a comment
        return False
    return False


def test_skipping_equals_deleting_the_bad_lines_svmlight():
    n = with_bad = 0
    for data in _cases("svmlight", 21):
        clean, bad = _without_bad_lines(data, _svmlight_line_is_bad)
        n += 1
        with_bad += bad > 0
        skipped = _read(load_svmlight, data, skip_bad_lines=True)
        assert _same(skipped, _read(load_svmlight, clean)), (data, clean)
        if not isinstance(skipped[0], type):  # the scan agrees on width, base and labels
            scan = scan_svmlight(io.BytesIO(data), skip_bad_lines=True, chunk_bytes=5)
            X, y = skipped
            assert np.array_equal(scan.labels, np.unique(y))
            base = 0 if scan.min_index == 0 else 1
            assert X.shape[1] == max(scan.max_index + 1 - base, 0)
    assert n >= MIN_CASES and with_bad >= 5


@pytest.mark.parametrize("options", [{}, {"quadratic": ["ab"], "ngrams": 2}])
def test_skipping_equals_deleting_the_bad_lines_vw(options):
    options = {"bits": 6, **options}

    def is_bad(line: bytes) -> bool:
        try:
            load_vw(io.BytesIO(line), **options)
        except BadLineError:
            return True
        except ValueError:
            return False
        return False

    n = with_bad = 0
    for data in _cases("vw", 22):
        clean, bad = _without_bad_lines(data, is_bad)
        n += 1
        with_bad += bad > 0
        skipped = _read(load_vw, data, skip_bad_lines=True, **options)
        assert _same(skipped, _read(load_vw, clean, **options)), (data, clean)
    assert n >= MIN_CASES and with_bad >= 5


def _line_places(data: bytes, load, **options) -> list[str]:
    """Each line judged on its own: "row" (an example), "skip" (malformed), nothing (blank,
    a comment). A line after the first is judged after a blank line, so that a byte-order
    mark starting it is not taken for the file's; a last line without newline is complete."""
    places = []
    for number, line in enumerate(_lines(data)):
        alone = (b"\n" if number else b"") + line + (b"" if line.endswith(b"\n") else b"\n")
        try:
            load(io.BytesIO(alone), **options)
        except BadLineError:
            places.append("skip")
        except ValueError:  # no example on the line
            pass
        else:
            places.append("row")
    return places


@pytest.mark.parametrize("fmt", ["svmlight", "vw"])
def test_skipped_lines_keep_their_place(fmt):
    # blocks of 8 bytes: most hold no whole example, so skipped lines are carried over
    load, make, options, seed = {
        "svmlight": (load_svmlight, SvmlightReader, {"zero_based": True}, 21),
        "vw": (load_vw, VWReader, {"bits": 6}, 22),
    }[fmt]
    n = with_bad = 0
    for data in _cases(fmt, seed):
        reader = make(io.BytesIO(data), skip_bad_lines=True, chunk_bytes=16, **options)
        try:
            placed = _places(reader)
        except ValueError:  # refused whole (tested above)
            continue
        n += 1
        with_bad += "skip" in placed
        assert placed == _line_places(data, load, **options), data
    assert n >= MIN_CASES // 2 and with_bad >= 5


def _damage(data: bytes, rng: np.random.Generator, compress=None) -> bytes:
    """``data`` compressed (gzip by default), cut short or with bits flipped (in the stream
    or its trailer)."""
    compress = compress or (lambda raw: gzip.compress(raw, mtime=0))
    packed = bytearray(compress(data * int(rng.integers(1, 40))))
    if rng.random() < 0.5:
        return bytes(packed[: int(rng.integers(0, len(packed)))])
    for _ in range(int(rng.integers(1, 4))):
        packed[int(rng.integers(0, len(packed)))] ^= 1 << int(rng.integers(0, 8))
    return bytes(packed)


READERS = {
    "svmlight": lambda path: load_svmlight(path),
    "svmlight-skip": lambda path: load_svmlight(path, skip_bad_lines=True, n_features=50),
    "scan": lambda path: scan_svmlight(path, chunk_bytes=64),
    "vw": lambda path: load_vw(path, bits=6, skip_bad_lines=True),
    "conllu": lambda path: list(read_conllu(path)),
}


@pytest.mark.parametrize("reader", sorted(READERS))
def test_a_damaged_gzip_is_read_or_refused_by_name(tmp_path, reader):
    name = {"scan": "svmlight", "svmlight-skip": "svmlight"}.get(reader, reader)
    path = tmp_path / f"f.{name}.gz"
    n = refused = 0
    for data in _cases(name, 23, mutate=_damage):
        path.write_bytes(data)
        n += 1
        try:
            result = READERS[reader](path)
        except ValueError as error:  # anything else (zlib.error, EOFError, ...) fails
            refused += 1
            message = str(error)
            assert message.startswith(f"{path}:") and "\n" not in message, message
            continue
        if reader in ("svmlight", "svmlight-skip", "vw"):
            X, y = result
            assert np.isfinite(X.data).all() and np.isfinite(y).all()
    assert n >= MIN_CASES and refused >= 5


@pytest.mark.parametrize("kind", ["bz2", "xz"])
def test_a_damaged_bz2_or_xz_is_read_or_refused_by_name(tmp_path, kind):
    compress = {"bz2": bz2.compress, "xz": lzma.compress}[kind]
    path = tmp_path / f"f.svm.{kind}"
    n = refused = 0
    for data in _cases("svmlight", 24, mutate=lambda d, rng: _damage(d, rng, compress)):
        path.write_bytes(data)
        n += 1
        for read in (READERS["svmlight"], READERS["scan"]):
            try:
                read(path)
            except ValueError as error:
                refused += 1
                assert str(error).startswith(f"{path}:") and "\n" not in str(error), error
    assert n >= MIN_CASES and refused >= 5
