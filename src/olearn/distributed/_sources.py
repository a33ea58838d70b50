"""The data of a distributed fit as an ordered list of blocks, and what workers do with one.

Three forms, each cut into blocks that a task reads in bounded memory:

* a Dask array (dense or sparse chunks, e.g. ``X.map_blocks(scipy.sparse.csr_matrix)``) or
  DataFrame with its labels: one block per row chunk (partition);
* text files (svmlight/libsvm or VW-style; paths or globs, local or any fsspec URL): byte
  blocks of whole lines cut by ``dask.bytes.read_bytes`` and parsed by olearn's readers
  (compressed files cannot be cut: one block each, held compressed in memory);
* a Dask bag of text lines: one block per bag partition.

Blocks are dask objects computed inside each task that needs them (the pre-pass, then once
per round): nothing is persisted, so a round streams the data again.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field

import numpy as np

#: Labels tracked by the pre-pass of text input beyond which a label set is "too many"
#: (regression for the command line), as ``olearn.io.scan_svmlight`` does.
MAX_LABELS = 256


@dataclass
class Source:
    """The data as blocks. ``kind`` is "array", "text" or "lines"; ``blocks`` the dask
    objects in data order (for arrays, ``(X_block, y_block)`` pairs); ``names`` one name per
    block for messages; ``reader`` the text format (``olearn train``'s input description:
    format, zero_based, bits, ngrams, quadratic); ``width`` the number of features when known
    before the pre-pass; ``sizes`` the bytes of text input; ``offsets`` the position in the
    data of each block's first row, when known (an array's chunk sizes, or its pre-pass),
    for messages that name a row as the user counts them; ``columns`` a DataFrame's feature
    columns (an empty pandas frame), for ``feature_names_in_``."""

    kind: str
    blocks: list
    names: list[str]
    reader: dict = field(default_factory=dict)
    width: int | None = None
    size: int = 0
    offsets: list[int] | None = None
    #: A DataFrame's feature columns, as an empty pandas frame (``feature_names_in_``).
    columns: object = None
    #: Text files cut into blocks: each block's file (as named to the user) and the index of
    #: that file's first block (``in_file_lines``).
    files: list[tuple[str, int]] | None = None


# -- the forms ------------------------------------------------------------------------------------


def source_of(data, y, *, reader: dict | None, blocksize: int, n_partitions: int | None,
              sentences: bool = False) -> Source:  # fmt: skip
    """The :class:`Source` of ``fit``'s ``data`` (and ``y``); ``sentences``: a tagger's
    data, a bag of ``(tokens, tags)`` pairs."""
    import dask.array as da
    import dask.bag as db

    if sentences:
        if not isinstance(data, db.Bag) or y is not None or reader:
            raise TypeError("a tagger trains on a Dask bag of (tokens, tags) pairs")
        blocks = data.to_delayed()
        names = [f"partition {i} of the bag" for i in range(len(blocks))]
        return Source("sentences", blocks, names)

    if isinstance(data, str) or (
        isinstance(data, list | tuple) and data and all(isinstance(p, str) for p in data)
    ):
        if y is not None:
            raise ValueError("text input holds its labels: y must be None")
        return _text_source([data] if isinstance(data, str) else list(data), reader, blocksize,
                            n_partitions)  # fmt: skip
    if isinstance(data, db.Bag):
        if y is not None:
            raise ValueError("a bag of text lines holds its labels: y must be None")
        return _bag_source(data, reader)
    if reader:
        raise ValueError("reader= describes text input; data is not text")
    if isinstance(data, da.Array):
        return _array_source(data, y)
    if _is_dask_dataframe(data):
        return _frame_source(data, y)
    raise TypeError(
        "data must be a Dask array or DataFrame (with y), a Dask bag of text lines, or a list "
        f"of text file paths or globs; got {type(data).__name__}"
    )


def _is_dask_dataframe(data) -> bool:
    try:
        import dask.dataframe as dd
    except ImportError:  # dask[dataframe] not installed: data cannot be one
        return False
    return isinstance(data, dd.DataFrame)


def _array_source(X, y) -> Source:
    import dask.array as da

    if X.ndim != 2:
        raise ValueError(f"X must be 2-D, got a Dask array of shape {X.shape}")
    if y is None:
        raise ValueError("a Dask array X needs its labels: fit(estimator, X, y)")
    if not isinstance(y, da.Array):
        y = np.asarray(y)
        if y.ndim == 1 and not np.isnan(X.shape[0]) and X.shape[0] != y.shape[0]:
            raise ValueError(f"X has {X.shape[0]} rows but y has {y.shape[0]}")
        y = da.from_array(y, chunks=(X.chunks[0],) if y.ndim == 1 else -1)
    if y.ndim != 1:
        raise ValueError(f"y must be 1-D, got shape {y.shape}")
    if not np.isnan(X.shape[0]) and not np.isnan(y.shape[0]) and X.shape[0] != y.shape[0]:
        raise ValueError(f"X has {X.shape[0]} rows but y has {y.shape[0]}")
    if np.isnan(X.shape[1]):
        raise ValueError("X has an unknown number of columns: compute its chunk sizes first")
    if X.numblocks[1] > 1:
        X = X.rechunk({1: -1})  # a task learns whole rows
    if y.chunks[0] != X.chunks[0]:
        y = y.rechunk({0: X.chunks[0]})
    xs = X.to_delayed().ravel().tolist()
    ys = y.to_delayed().ravel().tolist()
    names = [f"row block {i} of X" for i in range(len(xs))]
    sizes = X.chunks[0]
    offsets = None if np.isnan(sizes).any() else _offsets(sizes)
    return Source("array", list(zip(xs, ys, strict=True)), names, width=int(X.shape[1]),
                  offsets=offsets)  # fmt: skip


def _offsets(sizes) -> list[int]:
    """The position of each block's first row, from the blocks' sizes."""
    return np.concatenate([[0], np.cumsum(sizes, dtype=np.int64)[:-1]]).tolist()


def _frame_source(frame, y) -> Source:
    if isinstance(y, str):
        features = [c for c in frame.columns if c != y]
        if len(features) == len(frame.columns):
            raise ValueError(f"y={y!r} is not a column of the DataFrame")
        blocks = [(part[features], part[y]) for part in frame.to_delayed()]
        width = len(features)
        columns = frame._meta[features]
    else:
        if y is None:
            raise ValueError("a Dask DataFrame needs its labels: a Series or a column name as y")
        if getattr(y, "npartitions", None) != frame.npartitions:
            raise ValueError("y must be a Dask Series partitioned as the DataFrame")
        blocks = list(zip(frame.to_delayed(), y.to_delayed(), strict=True))
        width = len(frame.columns)
        columns = frame._meta
    names = [f"partition {i} of the DataFrame" for i in range(len(blocks))]
    return Source("array", blocks, names, width=width, columns=columns)


def _bag_source(bag, reader: dict | None) -> Source:
    spec = _format_of(dict(reader or {}), lambda: "\n".join(bag.take(16, npartitions=1)).encode())
    blocks = bag.to_delayed()
    names = [f"partition {i} of the bag" for i in range(len(blocks))]
    return Source("lines", blocks, names, reader=spec, width=_known_width(spec))


def _format_of(spec: dict, head) -> dict:
    """``spec`` with its format: given, or sniffed from ``head()`` (the first bytes)."""
    if "format" not in spec:
        spec["format"] = sniff(head())
    if spec["format"] not in ("svmlight", "vw"):
        raise ValueError(f"reader format must be 'svmlight' or 'vw', got {spec['format']!r}")
    return spec


def _known_width(spec: dict) -> int | None:
    if spec["format"] == "vw":
        return 1 << int(spec.get("bits", 18))
    return spec.get("n_features")


def _text_source(patterns: list[str], reader: dict | None, blocksize: int, n_partitions):
    import fsspec
    from dask.bytes import read_bytes

    paths = []
    for pattern in patterns:
        fs, path = fsspec.core.url_to_fs(pattern)
        if fs.exists(path) and not fs.isdir(path):
            found = [path]
        else:
            found = sorted(fs.glob(path)) if any(c in path for c in "*?[") else []
            found = [p for p in found if not fs.isdir(p)]
        if not found:
            raise FileNotFoundError(f"{pattern}: no such file")
        paths += [(fs, p, pattern if len(found) == 1 and p == path else p) for p in found]
    sizes = [fs.size(p) for fs, p, _ in paths]
    compressed = [_compressed(fs, p) for fs, p, _ in paths]
    total = sum(sizes)
    if n_partitions:
        blocksize = _fine_enough(sizes, compressed, blocksize, n_partitions)
    spec = _format_of(dict(reader or {}), lambda: _head(*paths[0][:2]))
    blocks, names, files = [], [], []
    for (fs, path, shown), size, packed in zip(paths, sizes, compressed, strict=True):
        if size == 0:
            continue
        url = fs.unstrip_protocol(path) if fs.protocol not in ("file", ("file", "local")) else path
        _, [file_blocks] = read_bytes(
            url, delimiter=b"\n", blocksize=None if packed else blocksize, sample=False
        )
        n = len(file_blocks)
        files += [(shown, len(blocks))] * n
        blocks += [_Read.of(block) for block in file_blocks]
        names += [shown if n == 1 else f"{shown} (block {i + 1} of {n})" for i in range(n)]
    if not blocks:
        raise ValueError(f"{', '.join(patterns)}: no examples (empty files)")
    return Source("text", blocks, names, reader=spec, width=_known_width(spec), size=total,
                  files=files)  # fmt: skip


class _Read:
    """The read of one ``read_bytes`` block, done inside the task that parses it: the block
    never travels between workers (a separate read task could run on another worker than
    the partition's chain, and its block or the chain's state would then cross the network).
    Holds the block's own task, a call of ``dask.bytes.core.read_block_from_file`` on an
    fsspec ``OpenFile``, offset and length."""

    __slots__ = ("func", "args")

    def __init__(self, func, args):
        self.func = func
        self.args = tuple(args)

    @classmethod
    def of(cls, block):
        """The read of a ``read_bytes`` Delayed (the block itself if its graph is not one
        task without dependencies)."""
        graph = dict(block.__dask_graph__())
        task = graph.get(block.key)
        if len(graph) != 1:
            return block
        if isinstance(task, tuple) and task and callable(task[0]):  # dask < 2024.12
            return cls(task[0], task[1:])
        func, args = getattr(task, "func", None), getattr(task, "args", None)
        if callable(func) and isinstance(args, tuple) and not getattr(task, "dependencies", ()):
            return cls(func, args)
        return block

    def __call__(self) -> bytes:
        return self.func(*self.args)


def _n_blocks(sizes, compressed, blocksize: int) -> int:
    """The blocks ``read_bytes`` cuts (it rounds each file's count down)."""
    return sum(1 if packed else max(1, size // blocksize)
               for size, packed in zip(sizes, compressed, strict=True) if size)  # fmt: skip


def _fine_enough(sizes, compressed, blocksize: int, n_partitions: int) -> int:
    """The largest block size up to ``blocksize`` that gives every partition a block, when
    the files allow it (compressed ones are one block each)."""
    blocksize = max(1, min(blocksize, sum(sizes) // n_partitions))
    while blocksize > 1 and _n_blocks(sizes, compressed, blocksize) < n_partitions:
        blocksize = max(1, blocksize * 9 // 10)
    return blocksize


def _compressed(fs, path) -> bool:
    from olearn.io.chunks import _MAGIC

    with fs.open(path, "rb") as handle:
        head = handle.read(6)
    return any(head.startswith(magic) for magic, _ in _MAGIC)


def _head(fs, path) -> bytes:
    """The first 64 KiB of a file, decompressed."""
    from olearn.io.chunks import open_source

    with fs.open(path, "rb") as raw:
        handle, _ = open_source(raw)
        return handle.read(1 << 16)


def sniff(head: bytes) -> str:
    """``vw`` if the first example line contains a '|', else ``svmlight`` (as the command
    line decides)."""
    for line in head.splitlines():
        text = line.strip()
        if text and not text.startswith(b"#"):
            return "vw" if b"|" in text else "svmlight"
    return "svmlight"


# -- on the workers: a block as rows --------------------------------------------------------------


def block_rows(kind: str, block, reader: dict, name: str, first_row: int | None = None):
    """The rows of one block as ``(data, indptr, indices, y)`` parts (CSR arrays, or a dense
    float64 ``data`` with ``indptr = indices = None``). ``first_row``: the block's position
    in the data, if known (an error then names a row by its position in the data too)."""
    if isinstance(block, _Read):
        block = block()
    if kind == "array":
        X, y = block
        yield _array_rows(X, y, name, first_row)
        return
    if kind == "lines":
        block = "".join(line if line.endswith("\n") else line + "\n" for line in block).encode()
    for chunk in _reader(block, reader, name):
        yield chunk.data, chunk.indptr, chunk.indices, chunk.y


def within(rows, width: int, name: str):
    """The ``(data, indptr, indices, y)`` parts of ``rows``, each checked to hold rows of
    ``width`` features: a Dask array's blocks can differ from its declared shape (a
    ``map_blocks`` that adds columns declares the input's), and the compiled loops would
    read and write beyond the model's arrays."""
    for data, indptr, indices, y in rows:
        if indptr is None:
            if data.shape[1] != width:
                raise ValueError(
                    f"{name}: a block of {data.shape[1]} columns, in data of {width} columns "
                    "(a Dask array whose blocks differ from its declared shape?)"
                )
        else:
            used = indices[indptr[0] : indptr[-1]]
            if used.size and int(used.max()) >= width:
                raise ValueError(
                    f"{name}: feature index {int(used.max())} in data of {width} columns (a "
                    "Dask array whose blocks differ from its declared shape?)"
                )
        yield data, indptr, indices, y


def first_rows(kind: str, block, reader: dict, name: str, first_row: int | None = None):
    """The first ``(data, indptr, indices, y)`` part of a block's rows (None if it has
    none)."""
    for rows in block_rows(kind, block, reader, name, first_row):
        return rows
    return None


def _array_rows(X, y, name: str, first_row: int | None):
    y = np.asarray(getattr(y, "to_numpy", lambda: y)()).reshape(-1)
    _check_finite_labels(y, name)
    if hasattr(X, "to_numpy") and not hasattr(X, "tocsr"):  # a pandas DataFrame
        X = X.sparse.to_coo() if _all_sparse_columns(X) else X.to_numpy(dtype=np.float64)
    if hasattr(X, "to_scipy_sparse"):  # a pydata/sparse array
        X = X.to_scipy_sparse()
    if hasattr(X, "tocsr"):
        X = X.tocsr()
        data = np.ascontiguousarray(X.data, dtype=np.float64)
        finite = np.isfinite(data)
        if not finite.all():
            at = int(np.argmax(~finite))
            row = int(np.searchsorted(X.indptr, at, side="right")) - 1
            raise _not_finite(name, row, first_row)
        if X.shape[0] != y.shape[0]:
            raise ValueError(f"{name}: X has {X.shape[0]} rows but y has {y.shape[0]}")
        return data, X.indptr, X.indices, y
    X = np.ascontiguousarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[0] != y.shape[0]:
        raise ValueError(f"{name}: X has shape {X.shape} but y has {y.shape[0]} labels")
    finite = np.isfinite(X).all(axis=1)
    if not finite.all():
        raise _not_finite(name, int(np.argmax(~finite)), first_row)
    return X, None, None, y


def _not_finite(name: str, row: int, first_row: int | None) -> ValueError:
    """The error of a block's ``row`` holding a NaN or infinite value, worded as sequential
    ``fit`` words it, naming the row by its position in the data when the block's is known
    (a block's own numbering alone sent the user counting blocks)."""
    where = f"the block's row {row}"
    if first_row is not None:
        where = f"row {first_row + row}, {where}"
    return ValueError(f"{name}: Input X contains NaN or infinity ({where}).")


def _check_finite_labels(y: np.ndarray, name: str) -> None:
    """As ``fit`` refuses them: a regressor's loop would skip a row with a NaN label without
    a word, and the pre-pass would take NaN for a class."""
    if y.dtype.kind == "f" and not np.isfinite(y).all():
        raise ValueError(f"{name}: y contains NaN or infinity")


def _all_sparse_columns(frame) -> bool:
    import pandas as pd

    return len(frame.columns) > 0 and all(
        isinstance(t, pd.SparseDtype) for t in frame.dtypes.tolist()
    )


def _reader(block: bytes, spec: dict, name: str):
    """An olearn reader over one block of text (one parse thread: a task is one thread of
    its worker)."""
    from olearn.io.svmlight import SvmlightReader
    from olearn.io.vw import VWReader

    source = io.BytesIO(block)
    source.name = name
    if spec["format"] == "vw":
        return VWReader(
            source,
            bits=int(spec.get("bits", 18)),
            ngrams=int(spec.get("ngrams", 0)),
            quadratic=spec.get("quadratic", ()),
            threads=1,
        )
    zero_based = spec.get("zero_based")
    return SvmlightReader(
        source,
        n_features=spec.get("n_features"),
        zero_based="auto" if zero_based is None else bool(zero_based),
        threads=1,
    )


def count_lines(block) -> int:
    """The lines a text block ends (a block of ``read_bytes`` ends at a newline but the
    file's last)."""
    if isinstance(block, _Read):
        block = block()
    return block.count(b"\n")


# -- the pre-pass ---------------------------------------------------------------------------------


def block_summary(kind: str, block, reader: dict, name: str, labels: bool):
    """What the pre-pass learns from one block: ``(n_rows, lo, hi, labels)`` — the smallest
    and largest raw feature index of svmlight text (-1 otherwise or without features) and the
    sorted distinct labels (None beyond :data:`MAX_LABELS` for text; not collected unless
    ``labels``)."""
    if isinstance(block, _Read):
        block = block()
    if kind == "sentences":
        from olearn.distributed._models import sentence_pairs

        try:
            _, y = sentence_pairs(list(block))
        except ValueError as error:
            raise ValueError(f"{name}: {error}") from None
        tags = {str(tag) for sentence in y for tag in sentence}
        return len(block), -1, -1, np.array(sorted(tags), dtype=str) if labels else None
    if kind == "array":  # the labels only
        y = block
        y = np.asarray(getattr(y, "to_numpy", lambda: y)()).reshape(-1)
        _check_finite_labels(y, name)
        return y.shape[0], -1, -1, np.unique(y) if labels else None
    if kind == "lines":
        block = "".join(line if line.endswith("\n") else line + "\n" for line in block).encode()
    if reader["format"] == "svmlight":
        from olearn.io.svmlight import scan_svmlight

        source = io.BytesIO(block)
        source.name = name
        scan = scan_svmlight(source, threads=1)
        return scan.n_examples, scan.min_index, scan.max_index, scan.labels
    found: set | None = set()
    n = 0
    for chunk in _reader(block, reader, name):
        n += chunk.n_rows
        if found is not None:
            found.update(np.unique(chunk.y).tolist())
            if len(found) > MAX_LABELS:
                found = None
    return n, -1, -1, None if found is None else np.array(sorted(found), dtype=np.float64)


def combine_summaries(source: Source, summaries: list, labels: bool):
    """``(n_rows, width, labels)`` of the whole data from the blocks' summaries; for
    svmlight text it also fixes the index base in ``source.reader`` (zero-based if an index
    0 occurs, as the command line decides) and the width."""
    n = sum(s[0] for s in summaries)
    if n == 0:
        raise ValueError(f"{source.names[0] if len(source.names) == 1 else 'the data'}: "
                         "no examples")  # fmt: skip
    found = None
    if labels:
        parts = [s[3] for s in summaries]
        if any(p is None for p in parts):
            found = None
        else:
            found = np.unique(np.concatenate([np.asarray(p) for p in parts if len(p)]))
            if source.kind in ("text", "lines") and len(found) > MAX_LABELS:
                found = None
    width = source.width
    if source.kind == "array" and source.offsets is None:  # (a Dask array of unknown chunks)
        source.offsets = _offsets([s[0] for s in summaries])
    if source.kind in ("text", "lines") and source.reader["format"] == "svmlight":
        his = [s[2] for s in summaries if s[2] >= 0]
        los = [s[1] for s in summaries if s[2] >= 0]
        lo, hi = (min(los), max(his)) if his else (0, -1)
        if source.reader.get("zero_based") is None:
            source.reader["zero_based"] = bool(his and lo == 0)
        base = 0 if source.reader["zero_based"] else 1
        if width is None:
            width = max(1, hi - base + 1)
            source.reader["n_features"] = width
    return n, width, found
