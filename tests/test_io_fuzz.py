"""Mutation fuzzing of the readers (issue 12): whatever the bytes, a reader returns finite,
well-formed arrays or raises ``ValueError`` naming the file — and the line, for a problem in a
line. It never crashes, never lets a NaN or an infinity through, and a streamed read equals a
whole-file read. A seeded mutation loop within a small time budget per format."""

import time

import numpy as np
import pytest
import scipy.sparse as sp

from olearn.io import BadLineError, SvmlightReader, VWReader, load_svmlight, load_vw, scan_svmlight
from olearn.structured.readers import read_conllu, read_tsv

BUDGET_SECONDS = 2.0
MIN_CASES = 20  # run whatever the budget (a first case may spend it compiling, on a busy CI)
MAX_CASES = 400

SEEDS = {
    "svmlight": b"# made by hand\n1 1:0.5 3:2 # c\n-1 qid:2 2:1e-3 7:-4\n\n2 4:7\n0 1:1e5 2:3\n",
    "vw": b"1 2 'tag |a x:2 y |b:0.5 z\n-1 |a y\n3 | w:1e5 q\n0.5 |b z:3 |a x\n",
    "conllu": (
        b"# sent_id = 1\n1\tDo\tdo\tAUX\tVBP\t_\t2\taux\t_\t_\n2\tstop\tstop\tVERB\tVB\t_\t0\t"
        b"root\t_\t_\n\n1-2\tDon't\t_\t_\t_\t_\t_\t_\t_\t_\n1\tYes\tyes\tINTJ\tUH\t_\t0\troot\t_\t_\n"
    ),
    "tsv": "The\tDET\ndog\tNOUN\n\nHi\tINTJ\ncafé\tNOUN\n".encode(),
}

TOKENS = [
    b"nan", b"inf", b"-inf", b"1e999", b"1e200", b"1e308", b"1e-400", b"-", b":", b"|", b"'",
    b"#", b"\n", b"\r\n", b"\t", b" ", b"\x00", b"\xff", b"\xef\xbb\xbf", b"0", b"0:1",
    b"99999999999", b"2147483647", b"qid:", b".", b"e5", b"1:", b"|a", b"|:2", b"3 |x",
]  # fmt: skip


def _mutate(data: bytes, rng: np.random.Generator) -> bytes:
    """One to four random edits: flip a byte, insert a token, delete or duplicate a span,
    truncate."""
    data = bytearray(data)
    for _ in range(int(rng.integers(1, 5))):
        kind = int(rng.integers(0, 5))
        at = int(rng.integers(0, len(data) + 1))
        if kind == 0 and data:
            data[min(at, len(data) - 1)] = int(rng.integers(0, 256))
        elif kind == 1:
            data[at:at] = TOKENS[int(rng.integers(0, len(TOKENS)))]
        elif kind == 2:
            del data[at : at + int(rng.integers(1, 8))]
        elif kind == 3:
            data[at:at] = data[at : at + int(rng.integers(1, 30))]
        else:
            del data[at:]
    return bytes(data)


def _cases(name: str, seed: int):
    """Mutated inputs of one format: at least ``MIN_CASES``, then until the budget is spent."""
    rng = np.random.default_rng(seed)
    deadline = time.monotonic() + BUDGET_SECONDS
    for case in range(MAX_CASES):
        if case >= MIN_CASES and time.monotonic() > deadline:
            return
        yield _mutate(SEEDS[name], rng)


def _located(error: ValueError, path) -> None:
    """An error names the file, and its line when it is a line's."""
    message = str(error)
    assert message.startswith(f"{path}:"), message
    assert "\n" not in message
    if isinstance(error, BadLineError):
        assert error.line >= 1 and message.startswith(f"{path}:{error.line}: ")


def _well_formed(X, y, *, labels_known: bool = True) -> None:
    X = sp.csr_matrix(X)
    assert np.isfinite(X.data).all()
    assert (np.diff(X.indptr) >= 0).all() and X.indptr[-1] == X.nnz
    assert X.nnz == 0 or (0 <= X.indices.min() and X.indices.max() < X.shape[1])
    for i in range(X.shape[0]):
        row = X.indices[X.indptr[i] : X.indptr[i + 1]]
        assert (np.diff(row) > 0).all()
    assert y.shape == (X.shape[0],)
    if labels_known:
        assert np.isfinite(y).all()


def _stacked(chunks, width):
    if not chunks:
        return None
    X = sp.vstack([sp.csr_matrix(c.X, shape=(c.n_rows, width)) for c in chunks])
    return X.tocsr(), np.concatenate([c.y for c in chunks])


def test_svmlight_reader_survives_mutations(tmp_path):
    path = tmp_path / "f.svm"
    n = 0
    for data in _cases("svmlight", 12):
        path.write_bytes(data)
        n += 1
        for options in ({}, {"skip_bad_lines": True}, {"zero_based": False, "n_features": 8}):
            try:
                X, y = load_svmlight(path, **options)
            except ValueError as error:
                _located(error, path)
                continue
            _well_formed(X, y)
            if options.get("skip_bad_lines"):
                # a streamed read in tiny blocks equals the whole-file read
                reader = SvmlightReader(
                    path,
                    zero_based=bool(scan_svmlight(path, skip_bad_lines=True).min_index == 0),
                    chunk_bytes=7,
                    skip_bad_lines=True,
                )
                Xs, ys = _stacked(list(reader), X.shape[1])
                assert (Xs != X).nnz == 0 and np.array_equal(ys, y)
        try:
            scan_svmlight(path, chunk_bytes=5)
        except ValueError as error:
            _located(error, path)
    assert n >= MIN_CASES


@pytest.mark.parametrize("options", [{}, {"quadratic": ["ab"], "ngrams": 2, "bits": 4}])
def test_vw_reader_survives_mutations(tmp_path, options):
    path = tmp_path / "f.vw"
    n = 0
    for data in _cases("vw", 13):
        path.write_bytes(data)
        n += 1
        for require_label in (True, False):
            try:
                X, y = load_vw(path, require_label=require_label, skip_bad_lines=True, **options)
            except ValueError as error:
                _located(error, path)
                continue
            _well_formed(X, y, labels_known=require_label)
            chunks = list(
                VWReader(path, require_label=require_label, skip_bad_lines=True,
                         chunk_bytes=9, **options)
            )  # fmt: skip
            Xs, ys = _stacked(chunks, X.shape[1])
            assert (Xs != X).nnz == 0 and np.array_equal(ys, y, equal_nan=True)
        try:
            load_vw(path, **options)
        except ValueError as error:
            _located(error, path)
    assert n >= MIN_CASES


@pytest.mark.parametrize("name", ["conllu", "tsv"])
def test_sentence_readers_survive_mutations(tmp_path, name):
    path = tmp_path / f"f.{name}"
    n = 0
    for data in _cases(name, 14):
        path.write_bytes(data)
        n += 1
        try:
            sentences = list(read_conllu(path) if name == "conllu" else read_tsv(path))
        except ValueError as error:
            _located(error, path)
            continue
        for tokens, tags in sentences:
            assert len(tokens) == len(tags) and all(tokens) and all(tags)
    assert n >= MIN_CASES
