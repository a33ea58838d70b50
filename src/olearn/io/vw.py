"""Vowpal-Wabbit-style text: ``label [importance] ['tag] |namespace feature[:value] ...``.

Feature names are hashed into ``2**bits`` columns with MurmurHash3 (x86, 32-bit), seeded per
namespace; ``ngrams`` and ``quadratic`` add crossed features. The rules are in
``olearn.io._vw_parse`` and docs/cli.md; the hash values are fixed forever (tests pin them).

>>> from olearn.io import VWReader
>>> for chunk in VWReader("train.vw", bits=20, quadratic=["ab"]):   # doctest: +SKIP
...     model.partial_fit(chunk.X, chunk.y)
"""

from __future__ import annotations

import numpy as np

from olearn.io.chunks import (
    DEFAULT_CHUNK_BYTES,
    DEFAULT_MAX_LINE_BYTES,
    DEFAULT_THREADS,
    Chunk,
    LineReader,
)

DEFAULT_BITS = 18

#: Most features one example may have, crossings included (``max_row_features``): 2^25
#: features take about 1.7 GB of per-example scratch.
DEFAULT_MAX_ROW_FEATURES = 1 << 25


def _quadratic_pairs(quadratic) -> np.ndarray:
    pairs = []
    for pair in quadratic or ():
        if not isinstance(pair, str) or len(pair) != 2 or not pair.isascii():
            raise ValueError(
                f"quadratic pairs are two namespace letters such as 'ab', got {pair!r}"
            )
        pairs.append([ord(pair[0]), ord(pair[1])])
    return np.array(pairs, dtype=np.int64).reshape(-1, 2)


class VWReader(LineReader):
    """Stream Vowpal-Wabbit-style text as :class:`~olearn.io.Chunk` s of ``2**bits`` columns.

    Parameters
    ----------
    source : str, path-like or binary file
        A path (plain, gzip, bzip2 or xz), ``"-"`` for standard input, or a binary file.
    bits : int in [1, 31], default=18
        Hash into ``2**bits`` columns.
    ngrams : int, default=0
        With n ≥ 2, add every 2..n-gram of consecutive features of a namespace.
    quadratic : sequence of str, optional
        Namespace pairs to cross, by first letter (``["ab"]`` crosses every namespace
        starting with ``a`` with every one starting with ``b``).
    require_label : bool, default=True
        A line without a label (none, or only a tag: ``'tag |f a``) is an error; with
        False it gets the label NaN (prediction).
    max_row_features : int, default=2**25
        Most features an example may have, crossings and n-grams included: an example that
        would have more (``-q aa`` on a very wide line) is an error naming its line, before
        the memory is allocated.
    chunk_bytes, skip_bad_lines, threads, max_line_bytes, name
        As :class:`~olearn.io.SvmlightReader`.

    Notes
    -----
    ``chunk.sample_weight`` holds the importance weights (1.0 where a line gives none). A
    feature value that overflows to infinity once multiplied by its namespace weight,
    crossed or added to a colliding feature is an error naming its line, as a literal
    ``inf`` is.
    """

    format_name = "vw"

    def __init__(
        self,
        source,
        *,
        bits: int = DEFAULT_BITS,
        ngrams: int = 0,
        quadratic=(),
        require_label: bool = True,
        max_row_features: int = DEFAULT_MAX_ROW_FEATURES,
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
        if int(max_row_features) < 1:
            raise ValueError(f"max_row_features must be positive, got {max_row_features}")
        if not 1 <= int(bits) <= 31:
            raise ValueError(f"bits must be in [1, 31], got {bits}")
        if int(ngrams) < 0 or int(ngrams) == 1:
            raise ValueError(f"ngrams must be 0 (none) or at least 2, got {ngrams}")
        self.bits = int(bits)
        self.ngrams = int(ngrams)
        self.quadratic = [str(q) for q in quadratic or ()]
        self._pairs = _quadratic_pairs(self.quadratic)
        self.require_label = bool(require_label)
        self.max_row_features = int(max_row_features)
        self.n_features = 1 << self.bits
        self.width = self.n_features

    def _error_detail(self, code: int) -> str:
        from olearn.io import _errors as E

        if code == E.ROW_TOO_LARGE:
            return f"(more than {self.max_row_features}, crossings included)"
        return ""

    def _parse(self, buf, end, final):
        from olearn.io import _svmlight_parse as P
        from olearn.io._vw_parse import parse_vw, work_arrays

        *parsed, state, work = parse_vw(
            buf,
            end,
            self.bits,
            self.ngrams,
            self._pairs,
            self.require_label,
            self.max_row_features,
            self.skip_bad_lines,
            self._work(work_arrays),
        )
        self._keep(work)
        labels, weights, indptr, indices, values, skipped = parsed
        chunk = Chunk(
            values, indices, indptr, self.n_features, labels, weights, skipped_before=skipped
        )
        n_bad = int(state[P.S_BAD])
        bad = self._bad_token(buf, n_bad, *state[P.S_CODE : P.S_ERROR_END + 1])
        return chunk, int(state[P.S_LINE]), n_bad, bad, None


def read_vw(source, **options) -> VWReader:
    """Iterate over a VW-style source in chunks. Options as :class:`VWReader`."""
    return VWReader(source, **options)


def load_vw(
    source,
    *,
    bits: int = DEFAULT_BITS,
    ngrams: int = 0,
    quadratic=(),
    require_label: bool = True,
    skip_bad_lines: bool = False,
    return_weights: bool = False,
    threads: int = DEFAULT_THREADS,
    max_row_features: int = DEFAULT_MAX_ROW_FEATURES,
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
):
    """Read a whole VW-style file: ``(X, y)``, or ``(X, y, sample_weight)`` with
    ``return_weights`` (importance weights, 1.0 where a line gives none). Blocks are parsed
    on ``threads`` threads. ``source``, ``bits``, ``ngrams``, ``quadratic``,
    ``require_label``, ``skip_bad_lines``, ``max_row_features`` and ``max_line_bytes`` are
    as for :class:`VWReader`."""
    from olearn.io.svmlight import LOAD_CHUNK_BYTES, concatenate

    reader = VWReader(
        source,
        bits=bits,
        ngrams=ngrams,
        quadratic=quadratic,
        require_label=require_label,
        skip_bad_lines=skip_bad_lines,
        chunk_bytes=LOAD_CHUNK_BYTES,
        threads=threads,
        max_row_features=max_row_features,
        max_line_bytes=max_line_bytes,
    )
    chunks = list(reader)
    if not chunks:
        raise ValueError(f"{reader.name}: no examples")
    X, y, weights, _ = concatenate(chunks, reader.n_features)
    return (X, y, weights) if return_weights else (X, y)


def murmurhash3_32(key: str | bytes, seed: int = 0) -> int:
    """MurmurHash3 (x86, 32-bit, unsigned) of a string (UTF-8) or bytes: the hash the VW
    reader uses (equal to ``mmh3.hash(key, seed, signed=False)``)."""
    from olearn.io._vw_parse import hash_bytes

    data = key.encode() if isinstance(key, str) else bytes(key)
    return int(hash_bytes(np.frombuffer(bytearray(data), np.uint8), int(seed) & 0xFFFFFFFF))
