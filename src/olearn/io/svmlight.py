"""svmlight / libsvm text: ``label [qid:N] index:value ... [# comment]``, one example a line.

>>> from olearn.io import load_svmlight, SvmlightReader
>>> X, y = load_svmlight("train.svm")                       # doctest: +SKIP
>>> for chunk in SvmlightReader("big.svm.gz", n_features=2**20):   # doctest: +SKIP
...     model.partial_fit(chunk.X, chunk.y)

Indices are one-based (svmlight, libsvm) or zero-based; ``zero_based="auto"`` decides from
the smallest index of the first block read that holds an index (of the whole file for
:func:`load_svmlight` and the command line, which scan first): an index 0 means
zero-based. Only well-formed lines count: a line skipped as malformed (``skip_bad_lines``)
decides nothing — neither the index base, nor the width, nor the label set. Values are
parsed by a compiled loop (``_svmlight_parse``), never by Python.
"""

from __future__ import annotations

import os
from typing import NamedTuple

import numpy as np

from olearn.io import _errors as E
from olearn.io.chunks import (
    DEFAULT_CHUNK_BYTES,
    DEFAULT_MAX_LINE_BYTES,
    DEFAULT_THREADS,
    Chunk,
    LineReader,
    LineTooLong,
    check_line_ends,
    line_error,
    open_source,
    parallel_blocks,
    read_errors,
    source_name,
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
        Width of X. Indices at or beyond it are an error (the model's width), or ignored
        with ``ignore_unseen``. Without it, each chunk is as wide as the largest index seen
        so far.
    ignore_unseen : bool, default=False
        With ``n_features``: drop features at or beyond it instead of raising — features a
        model never saw in training have no weight, so a prediction ignores them (as hashing
        and Vowpal Wabbit do). They are counted in ``n_unseen`` (values) and
        ``n_unseen_rows`` (examples that had any).
    zero_based : bool or "auto", default="auto"
        Whether the file's first feature index is 0. "auto": zero-based if the first block
        holding an index (in a well-formed line) has an index 0, otherwise one-based (an
        index 0 later is then an error).
    query_id : bool, default=False
        Return the ``qid:`` values as ``chunk.qid`` (otherwise they are checked and ignored).
    chunk_bytes : int, default=8 MiB
        Input bytes in flight: a chunk covers ``chunk_bytes / threads`` bytes of input, and
        memory is proportional to ``chunk_bytes``.
    skip_bad_lines : bool, default=False
        Skip malformed lines, counting them in ``n_bad_lines`` (the first is kept as
        ``first_bad_line``), instead of raising :class:`~olearn.io.BadLineError`. Where
        each fell among the examples is in the chunks' ``skipped_before`` and, for those
        after the last example, ``n_trailing_bad_lines``.
    threads : int, default=2
        Chunks parsed at once.
    max_line_bytes : int, default=256 MiB
        A line that outgrows its block (``chunk_bytes / threads``) and this is an error
        naming it: an input without newlines cannot exhaust memory.
    name : str, optional
        The source's name in error messages.
    """

    format_name = "svmlight"
    #: Said after the error of an index 0 in one-based input: the command line's remedy (a
    #: reader following a model's index base names the model instead).
    zero_index_hint = "(use --zero-based)"

    def __init__(
        self,
        source,
        *,
        n_features: int | None = None,
        zero_based: bool | str = "auto",
        query_id: bool = False,
        ignore_unseen: bool = False,
        chunk_bytes: int = DEFAULT_CHUNK_BYTES,
        skip_bad_lines: bool = False,
        threads: int = DEFAULT_THREADS,
        max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
        name: str | None = None,
    ):
        super().__init__(
            source,
            chunk_bytes=chunk_bytes,
            skip_bad_lines=skip_bad_lines,
            threads=threads,
            max_line_bytes=max_line_bytes,
            name=name,
        )
        if n_features is not None and not 0 < int(n_features) <= 2**31 - 1:
            raise ValueError(f"n_features must be in [1, 2**31 - 1], got {n_features}")
        self.n_features = None if n_features is None else int(n_features)
        self.zero_based = zero_based
        self._configured_base = _base_of(zero_based)
        self.query_id = bool(query_id)
        self.ignore_unseen = bool(ignore_unseen)
        self._limit = -1 if self.n_features is None else self.n_features
        self._reset_counts()

    def _reset_counts(self) -> None:
        super()._reset_counts()
        self.base = getattr(self, "_configured_base", None)
        self.width = getattr(self, "n_features", None) or 0
        # smallest and largest raw (file) index of the rows read so far, -1 before any
        self.min_index = -1
        self.max_index = -1
        self.n_unseen = 0
        self.n_unseen_rows = 0

    def _error_detail(self, code: int) -> str:
        if code == E.INDEX_OUT_OF_RANGE and self.n_features is not None:
            return f"({self.n_features} features)"
        if code == E.ZERO_INDEX:
            return self.zero_index_hint
        return ""

    @property
    def _first_block_alone(self) -> bool:
        return self._configured_base is None  # the first block decides the index base

    def _undecided(self) -> bool:
        # a block without any feature index (only bad lines, or lines without features)
        # cannot decide the base: the next block decides, and is parsed alone too
        return self.base is None

    def _parse(self, buf, end, final):
        from olearn.io import _svmlight_parse as P

        limit = self._limit
        work = self._work(P.work_arrays)
        base = self.base
        if base is None:
            # Decide zero/one-based from the well-formed lines of this first block (no other
            # block is being parsed meanwhile), then parse it for real. A block whose
            # well-formed lines have no feature index leaves it to the next block (its own
            # lines read the same either way): deciding one-based on it would refuse every
            # index 0 of a zero-based file, or skip every line with one as bad.
            *_, probe, work = P.parse_svmlight(buf, end, 0, -1, False, True, work)
            if probe[P.S_MAX] >= 0:
                self.base = base = 0 if probe[P.S_MIN] == 0 else 1
            else:
                base = 1
        *parsed, state, work = P.parse_svmlight(
            buf, end, base, limit, self.ignore_unseen, self.skip_bad_lines, work
        )
        self._keep(work)
        labels, qids, indptr, indices, values, skipped = parsed
        qids = qids if self.query_id else None
        chunk = Chunk(values, indices, indptr, 0, labels, None, qids, skipped_before=skipped)
        n_bad = int(state[P.S_BAD])
        bad = self._bad_token(buf, n_bad, *state[P.S_CODE : P.S_ERROR_END + 1])
        counts = tuple(int(state[k]) for k in (P.S_MIN, P.S_MAX, P.S_UNSEEN, P.S_UNSEEN_ROWS))
        return chunk, int(state[P.S_LINE]), n_bad, bad, counts

    def _in_order(self, chunk: Chunk, counts) -> None:
        lo, hi, unseen, unseen_rows = counts
        if hi >= 0:
            self.width = max(self.width, hi - self.base + 1)
            self.min_index = lo if self.max_index < 0 else min(self.min_index, lo)
            self.max_index = max(self.max_index, hi)
        self.n_unseen += unseen
        self.n_unseen_rows += unseen_rows
        chunk.n_features = self.width


def load_svmlight(
    source,
    *,
    n_features: int | None = None,
    zero_based: bool | str = "auto",
    query_id: bool = False,
    skip_bad_lines: bool = False,
    return_weights: bool = False,
    threads: int = DEFAULT_THREADS,
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
):
    """Read a whole svmlight/libsvm file: ``(X, y)``, then ``qid`` with ``query_id`` and
    ``sample_weight`` (ones: the format has no weights) with ``return_weights``. ``source``,
    ``n_features``, ``zero_based``, ``query_id``, ``skip_bad_lines``, ``threads`` and
    ``max_line_bytes`` are as for :class:`SvmlightReader`.

    X is a CSR matrix of float64 (sorted indices, width ``n_features`` or the largest index
    + 1), y a float64 array. ``zero_based="auto"`` decides on the whole file (as
    scikit-learn's ``load_svmlight_file``: zero-based if any index is 0; with
    ``skip_bad_lines``, any index of a well-formed line). Blocks are parsed on ``threads``
    threads. A last line without newline is a complete line.

    Raises
    ------
    BadLineError (a ValueError)
        On the first malformed line, naming file, line and token (unless ``skip_bad_lines``).
    ValueError
        If the file holds no examples.
    """
    base = _base_of(zero_based)
    options = {"query_id": query_id, "threads": threads, "max_line_bytes": max_line_bytes}
    if base is None and _rereadable(source):
        loaded = _load_deciding_base(source, n_features, skip_bad_lines, options)
        if isinstance(loaded, tuple):
            return _loaded(*loaded, query_id, return_weights)
        base = loaded
    if base is None and _rereadable(source):
        scan = scan_svmlight(source, threads=threads, skip_bad_lines=skip_bad_lines)
        base = 0 if scan.min_index == 0 else 1
    reader = SvmlightReader(
        source,
        n_features=n_features,
        zero_based={None: "auto", 0: True, 1: False}[base],
        chunk_bytes=_whole_file_chunk(source, base, threads),
        skip_bad_lines=skip_bad_lines,
        **options,
    )
    chunks = list(reader)
    if not chunks:
        raise ValueError(f"{reader.name}: no examples")
    return _loaded(*concatenate(chunks, reader.width), query_id, return_weights)


def _loaded(X, y, weights, qid, query_id: bool, return_weights: bool) -> tuple:
    return (X, y) + ((qid,) if query_id else ()) + ((weights,) if return_weights else ())


def _load_deciding_base(source, n_features, skip_bad_lines, options):
    """``load_svmlight`` with an undecided index base in one pass instead of scan + parse:
    read the raw indices (as zero-based, up to ``n_features`` + 1), then decide as the scan
    would — zero-based if an index of a stored (well-formed) line is 0 — and shift the
    indices of a one-based file. A line parses this way exactly when it parses under the
    decided base, except a line holding the index ``n_features`` in a zero-based file.

    Returns ``(X, y, sample_weight, qid)``; or the decided base (0) when such lines exist,
    or None when no line parsed or, without ``skip_bad_lines``, a line is malformed: the
    caller then parses with that base, or scans first and reports the error exactly as the
    parse with the scanned base does."""
    reader = SvmlightReader(
        source,
        zero_based=True,
        chunk_bytes=LOAD_CHUNK_BYTES,
        skip_bad_lines=skip_bad_lines,
        **options,
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
            return 0
        width = max(n_features or 0, reader.max_index + 1)
    else:  # one-based (or no feature at all)
        for chunk in chunks:
            np.subtract(chunk.indices, 1, out=chunk.indices)
        width = max(n_features or 0, reader.max_index)
    return concatenate(chunks, width)


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
    weights = np.concatenate([c.sample_weight for c in chunks])
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
    source,
    *,
    chunk_bytes: int = DEFAULT_CHUNK_BYTES,
    threads: int = DEFAULT_THREADS,
    skip_bad_lines: bool = False,
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
    name: str | None = None,
) -> Scan:
    """Scan a file for its index range and label set without building any matrix.

    By default a light pass (about twice as fast as a parse) that leaves malformed lines to
    the parse, which stops at the first one. With ``skip_bad_lines`` (the parse will skip
    them) only well-formed lines count: each block is parsed and its malformed lines left
    out, so a skipped line changes neither the width, nor the index base, nor the labels.
    Blocks of ``chunk_bytes / threads`` are scanned on ``threads`` threads. ``source``,
    ``max_line_bytes`` and ``name`` are as for :class:`SvmlightReader`."""
    from olearn.io import _svmlight_parse as P

    def scan_block(buf, end, final):
        labels = np.empty(P.N_LABELS_TRACKED)
        lo, hi, n_labels, n = P.scan_svmlight(buf, end, labels, 0)
        return int(lo), int(hi), labels[: max(n_labels, 0)] if n_labels >= 0 else None, int(n)

    def validated_block(buf, end, final):
        work = P.work_arrays(block_bytes)
        y, *_, state, _ = P.parse_svmlight(buf, end, 0, -1, False, True, work)
        labels = np.unique(y)
        return (
            int(state[P.S_MIN]),
            int(state[P.S_MAX]),
            labels if labels.shape[0] <= P.N_LABELS_TRACKED else None,
            int(state[P.S_ROWS]),
        )

    name = source_name(source) if name is None else name
    found: set | None = set()
    lo, hi, n, offset = 2**62, -1, 0, 0
    block_bytes = max(1, chunk_bytes // threads)
    with read_errors(name):
        handle, owned = open_source(source, name)
    blocks = None
    try:
        check_line_ends(handle, name)
        with read_errors(name):
            blocks = parallel_blocks(
                handle,
                block_bytes,
                validated_block if skip_bad_lines else scan_block,
                threads=threads,
                max_line_bytes=max_line_bytes,
            )
            for end, (block_lo, block_hi, block_labels, block_n) in blocks:
                lo, hi, n, offset = min(lo, block_lo), max(hi, block_hi), n + block_n, offset + end
                if found is not None:
                    if block_labels is None:
                        found = None
                    else:
                        found.update(block_labels.tolist())
                        if len(found) > P.N_LABELS_TRACKED:
                            found = None
    except LineTooLong as error:
        if not _rereadable(source):
            raise ValueError(f"{name}: {error} (after {offset} bytes)") from None
        raise line_error(name, _newlines(source, offset) + 1, error) from None
    finally:
        if blocks is not None:
            blocks.close()
        if owned:
            handle.close()
    labels = None if found is None else np.sort(np.array(sorted(found), dtype=np.float64))
    return Scan(lo if hi >= 0 else -1, hi, labels, n)


def _newlines(path, stop: int) -> int:
    """The newlines in the first ``stop`` bytes of ``path`` (decompressed): the line number
    of an error found by the scan, which does not count lines (an error path only)."""
    handle, _ = open_source(path)
    count = 0
    with handle:
        while stop > 0:
            data = handle.read(min(stop, 16 << 20))
            if not data:
                break
            count += data.count(b"\n")
            stop -= len(data)
    return count


def read_svmlight(source, **options) -> SvmlightReader:
    """Iterate over an svmlight/libsvm source in chunks: ``for chunk in read_svmlight(path,
    n_features=d): ...``. Options as :class:`SvmlightReader`."""
    return SvmlightReader(source, **options)
