"""svmlight / libsvm text: ``label [qid:N] index:value ... [# comment]``, one example a line.

>>> from olearn.io import load_svmlight, SvmlightReader
>>> X, y = load_svmlight("train.svm")                       # doctest: +SKIP
>>> for chunk in SvmlightReader("big.svm.gz", n_features=2**20):   # doctest: +SKIP
...     model.partial_fit(chunk.X, chunk.y)

Indices are one-based (svmlight, libsvm) or zero-based; ``zero_based="auto"`` decides from
the smallest index of the first block read (of the whole file for :func:`load_svmlight` and
the command line, which scan first): an index 0 means zero-based. Values are parsed by a
compiled loop (``_svmlight_parse``), never by Python.
"""

from __future__ import annotations

import os
from typing import NamedTuple

import numpy as np

from olearn.io import _errors as E
from olearn.io.chunks import (
    DEFAULT_CHUNK_BYTES,
    DEFAULT_THREADS,
    Chunk,
    LineReader,
    open_source,
    parallel_blocks,
)

#: ``chunk_bytes`` of the whole-file loaders (blocks are parsed on the threads, then stacked).
LOAD_CHUNK_BYTES = 16 << 20

_ZERO_BASED = {"auto": None, True: 0, False: 1}


def _base_of(zero_based) -> int | None:
    if zero_based not in _ZERO_BASED:
        raise ValueError(f"zero_based must be True, False or 'auto', got {zero_based!r}")
    return _ZERO_BASED[zero_based]


class SvmlightReader(LineReader):
    """Stream an svmlight/libsvm file as :class:`~olearn.io.Chunk` s of bounded size.

    Parameters
    ----------
    source : str, path-like or binary file
        A path (plain, gzip, bzip2 or xz), ``"-"`` for standard input, or an open binary file.
    n_features : int, optional
        Width of X. Indices at or beyond it are an error (the model's width). Without it,
        each chunk is as wide as the largest index seen so far.
    zero_based : bool or "auto", default="auto"
        Whether the file's first feature index is 0. "auto": zero-based if the first block
        has an index 0, otherwise one-based (an index 0 later is then an error).
    query_id : bool, default=False
        Return the ``qid:`` values as ``chunk.qid`` (otherwise they are checked and ignored).
    chunk_bytes : int, default=8 MiB
        Input bytes in flight: a chunk covers ``chunk_bytes / threads`` bytes of input, and
        memory is proportional to ``chunk_bytes``.
    skip_bad_lines : bool, default=False
        Skip malformed lines, counting them in ``n_bad_lines`` (the first is kept as
        ``first_bad_line``), instead of raising :class:`~olearn.io.BadLineError`.
    threads : int, default=2
        Chunks parsed at once.
    """

    format_name = "svmlight"

    def __init__(
        self,
        source,
        *,
        n_features: int | None = None,
        zero_based: bool | str = "auto",
        query_id: bool = False,
        chunk_bytes: int = DEFAULT_CHUNK_BYTES,
        skip_bad_lines: bool = False,
        threads: int = DEFAULT_THREADS,
    ):
        super().__init__(
            source, chunk_bytes=chunk_bytes, skip_bad_lines=skip_bad_lines, threads=threads
        )
        if n_features is not None and not 0 < int(n_features) <= 2**31 - 1:
            raise ValueError(f"n_features must be in [1, 2**31 - 1], got {n_features}")
        self.n_features = None if n_features is None else int(n_features)
        self.zero_based = zero_based
        self._configured_base = _base_of(zero_based)
        self.query_id = bool(query_id)
        self._limit = -1 if self.n_features is None else self.n_features
        self._reset_counts()

    def _reset_counts(self) -> None:
        super()._reset_counts()
        self.base = getattr(self, "_configured_base", None)
        self.width = getattr(self, "n_features", None) or 0
        # smallest and largest raw (file) index of the rows read so far, -1 before any
        self.min_index = -1
        self.max_index = -1

    def _error_detail(self, code: int) -> str:
        if code == E.INDEX_OUT_OF_RANGE and self.n_features is not None:
            return f"({self.n_features} features)"
        return ""

    @property
    def _first_block_alone(self) -> bool:
        return self._configured_base is None  # the first block decides the index base

    def _parse(self, buf, end, final):
        from olearn.io._svmlight_parse import parse_svmlight, work_arrays

        limit = self._limit
        work = self._work(work_arrays)
        if self.base is None:
            # Decide zero/one-based from this first block (no other block is being parsed
            # meanwhile), then parse it for real.
            *probe, work = parse_svmlight(buf, end, final, 0, -1, True, work)
            self.base = 0 if probe[12] >= 0 and probe[11] == 0 else 1
        *parsed, work = parse_svmlight(buf, end, final, self.base, limit, self.skip_bad_lines, work)
        self._keep(work)
        labels, qids, indptr, indices, values, lines, n_bad, code, line, start, stop, lo, hi = (
            parsed
        )
        chunk = Chunk(values, indices, indptr, 0, labels, None, qids if self.query_id else None)
        bad = self._bad_token(buf, n_bad, code, line, start, stop)
        return chunk, lines, n_bad, bad, (int(lo), int(hi))

    def _in_order(self, chunk: Chunk, extremes) -> None:
        lo, hi = extremes
        if hi >= 0:
            self.width = max(self.width, hi - self.base + 1)
            self.min_index = lo if self.max_index < 0 else min(self.min_index, lo)
            self.max_index = max(self.max_index, hi)
        chunk.n_features = self.width


def load_svmlight(
    source,
    *,
    n_features: int | None = None,
    zero_based: bool | str = "auto",
    query_id: bool = False,
    skip_bad_lines: bool = False,
    threads: int = DEFAULT_THREADS,
):
    """Read a whole svmlight/libsvm file: ``(X, y)``, or ``(X, y, qid)`` with ``query_id``.

    X is a CSR matrix of float64 (sorted indices, width ``n_features`` or the largest index
    + 1), y a float64 array. ``zero_based="auto"`` decides on the whole file (as
    scikit-learn's ``load_svmlight_file``: zero-based if any index is 0). Blocks are parsed
    on ``threads`` threads.

    Raises
    ------
    BadLineError (a ValueError)
        On the first malformed line, naming file, line and token (unless ``skip_bad_lines``).
    ValueError
        If the file holds no examples.
    """
    base = _base_of(zero_based)
    if base is None and _rereadable(source):
        loaded = _load_deciding_base(source, n_features, query_id, threads)
        if loaded is not None:
            X, y, qid = loaded
            return (X, y, qid) if query_id else (X, y)
        scan = scan_svmlight(source, threads=threads)
        base = 0 if scan.min_index == 0 else 1
    reader = SvmlightReader(
        source,
        n_features=n_features,
        zero_based={None: "auto", 0: True, 1: False}[base],
        query_id=query_id,
        chunk_bytes=_whole_file_chunk(source, base, threads),
        skip_bad_lines=skip_bad_lines,
        threads=threads,
    )
    chunks = list(reader)
    if not chunks:
        raise ValueError(f"{reader.name}: no examples")
    width = reader.width
    X, y, _, qid = concatenate(chunks, width)
    if query_id:
        return X, y, qid
    return X, y


def _load_deciding_base(source, n_features, query_id, threads):
    """``load_svmlight`` with an undecided index base in one pass instead of scan + parse:
    read the raw indices (as zero-based, up to ``n_features`` + 1), then decide as the scan
    would — zero-based if an index is 0 — and shift the indices of a one-based file. Every
    line that parses this way has the same meaning under either base, except an index equal
    to ``n_features`` in a zero-based file. Returns ``(X, y, qid)``, or None when the result
    could differ from scan + parse (a malformed line, that index, no examples): the caller
    then does exactly that."""
    reader = SvmlightReader(
        source, zero_based=True, query_id=query_id, chunk_bytes=LOAD_CHUNK_BYTES, threads=threads
    )
    reader._limit = -1 if n_features is None else n_features + 1
    try:
        chunks = list(reader)
    except E.BadLineError:
        return None
    if not chunks:
        return None
    if reader.min_index == 0:  # zero-based
        if n_features is not None and reader.max_index >= n_features:
            return None
        width = max(n_features or 0, reader.max_index + 1)
    else:  # one-based (or no feature at all)
        for chunk in chunks:
            np.subtract(chunk.indices, 1, out=chunk.indices)
        width = max(n_features or 0, reader.max_index)
    X, y, _, qid = concatenate(chunks, width)
    return X, y, qid


def _rereadable(source) -> bool:
    return isinstance(source, str | os.PathLike) and os.fspath(source) != "-"


def _whole_file_chunk(source, base: int | None, threads: int) -> int:
    """``chunk_bytes`` of a whole-file load, except that a stream whose index base is still
    to be decided (it cannot be scanned first) is decided on its first 64 MiB."""
    return DEFAULT_CHUNK_BYTES * 8 * threads if base is None else LOAD_CHUNK_BYTES


def concatenate(chunks: list[Chunk], width: int):
    """Stack chunks into ``(X, y, sample_weight, qid)`` of the given width."""
    import scipy.sparse as sp

    if len(chunks) == 1:
        c = chunks[0]
        X = sp.csr_matrix((c.data, c.indices, c.indptr), shape=(c.n_rows, width))
        return X, c.y, c.sample_weight, c.qid
    nnz = np.cumsum([0] + [c.data.shape[0] for c in chunks])
    index_type = np.int32 if nnz[-1] < 2**31 else np.int64
    indptr = np.concatenate(
        [np.zeros(1, index_type)]
        + [c.indptr[1:].astype(index_type) + o for c, o in zip(chunks, nnz[:-1], strict=True)]
    )
    X = sp.csr_matrix(
        (
            np.concatenate([c.data for c in chunks]),
            np.concatenate([c.indices for c in chunks]).astype(index_type, copy=False),
            indptr,
        ),
        shape=(int(sum(c.n_rows for c in chunks)), width),
    )
    y = np.concatenate([c.y for c in chunks])
    weights = None
    if any(c.sample_weight is not None for c in chunks):
        weights = np.concatenate(
            [c.sample_weight if c.sample_weight is not None else np.ones(len(c.y)) for c in chunks]
        )
    qid = None
    if all(c.qid is not None for c in chunks):
        qid = np.concatenate([c.qid for c in chunks])
    return X, y, weights, qid


class Scan(NamedTuple):
    """What a light first pass over a file learns: the smallest and largest raw feature
    index (-1 when there are no features), the sorted distinct labels (None when there are
    more than 256), and the number of examples."""

    min_index: int
    max_index: int
    labels: np.ndarray | None
    n_examples: int


def scan_svmlight(
    source, *, chunk_bytes: int = DEFAULT_CHUNK_BYTES, threads: int = DEFAULT_THREADS
) -> Scan:
    """Scan a file for its index range and label set without building any matrix (about
    twice as fast as a parse; blocks of ``chunk_bytes / threads`` scanned on ``threads``
    threads; malformed lines are left to the parse)."""
    from olearn.io._svmlight_parse import N_LABELS_TRACKED
    from olearn.io._svmlight_parse import scan_svmlight as kernel

    def scan_block(buf, end, final):
        labels = np.empty(N_LABELS_TRACKED)
        lo, hi, n_labels, n = kernel(buf, end, labels, 0)
        return int(lo), int(hi), labels[: max(n_labels, 0)] if n_labels >= 0 else None, int(n)

    found: set | None = set()
    lo, hi, n = 2**62, -1, 0
    handle, owned = open_source(source)
    block_bytes = max(1, chunk_bytes // threads)
    blocks = parallel_blocks(handle, block_bytes, scan_block, threads=threads)
    try:
        for _, (block_lo, block_hi, block_labels, block_n) in blocks:
            lo, hi, n = min(lo, block_lo), max(hi, block_hi), n + block_n
            if found is not None:
                if block_labels is None:
                    found = None
                else:
                    found.update(block_labels.tolist())
                    if len(found) > N_LABELS_TRACKED:
                        found = None
    finally:
        blocks.close()
        if owned:
            handle.close()
    labels = None if found is None else np.sort(np.array(sorted(found), dtype=np.float64))
    return Scan(lo if hi >= 0 else -1, hi, labels, n)


def read_svmlight(source, **options) -> SvmlightReader:
    """Iterate over an svmlight/libsvm source in chunks: ``for chunk in read_svmlight(path,
    n_features=d): ...``. Options as :class:`SvmlightReader`."""
    return SvmlightReader(source, **options)
