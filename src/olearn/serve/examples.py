"""Request bodies to examples: JSON objects and svmlight / VW-style lines, checked against
the model before anything is queued.

JSON (``application/json``)::

    {"x": {"3": 1.5, "17": 1}, "y": 1}                 one example (``y``: learning only)
    {"rows": [{"x": {...}, "y": 1}, {"x": [0.5, 1.2, ...], "y": -1}]}      a batch

``x`` is an object, as ``learn_one`` takes a dict: for a model trained on svmlight input (or
saved from Python) its keys are column indices written in decimal ("0" is the first column);
for a model trained on VW-style input they are feature names, hashed exactly as the VW reader
hashes them (a key whose value is an object is a namespace: ``{"w": {"apple": 1}}``). ``x``
may also be a list of every column's value (a dense row). Text (``text/plain``) is lines in
the model's input format, parsed by the readers of :mod:`olearn.io`.

Every problem is a :class:`RequestError` with an HTTP status and a message naming the field
(``rows[3].x["12"]: ...``) or line (``body:3: ...``).
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass

import numpy as np

from olearn.io._errors import BadLineError

#: Largest magnitude of a feature value or a number label: products and sums of squares of
#: such values stay finite, so a request cannot turn the model's state into infinities.
MAX_VALUE = 1e100
_WHY_BOUND = " (a larger value would overflow the model's arithmetic)"


class RequestError(Exception):
    """A request that is answered with ``status`` and ``message`` and changes nothing."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass
class Batch:
    """Examples in CSR form (rows sorted by column), with their labels when learning."""

    indptr: np.ndarray  # int64, n + 1
    indices: np.ndarray  # int32, nnz
    data: np.ndarray  # float64, nnz
    y: np.ndarray | None  # labels in the model's label type, or None (prediction)
    n_features: int
    n_unseen: int = 0  # feature values ignored: beyond the model's width (prediction only)

    @property
    def n_rows(self) -> int:
        return self.indptr.shape[0] - 1

    @property
    def X(self):
        from scipy.sparse import csr_matrix

        return csr_matrix(
            (self.data, self.indices, self.indptr), shape=(self.n_rows, self.n_features)
        )

    def row(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        """Row ``i`` as ``(int64 indices, float64 values)``: what ``predict_one`` takes."""
        lo, hi = self.indptr[i], self.indptr[i + 1]
        return self.indices[lo:hi].astype(np.int64), self.data[lo:hi]


def concatenate(batches: list[Batch]) -> Batch:
    """One batch holding the rows of ``batches`` in order."""
    if len(batches) == 1:
        return batches[0]
    offsets = np.cumsum([0] + [b.data.shape[0] for b in batches])
    indptr = np.concatenate(
        [batches[0].indptr[:1]] + [b.indptr[1:] + o for b, o in zip(batches, offsets, strict=False)]
    )
    labels = [b.y for b in batches]
    return Batch(
        indptr,
        np.concatenate([b.indices for b in batches]),
        np.concatenate([b.data for b in batches]),
        None if labels[0] is None else np.concatenate(labels),
        batches[0].n_features,
    )


def _reject_constant(name: str):
    raise ValueError(f"{name} is not a JSON number")


def _unique_keys(pairs: list) -> dict:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen = set()
        for key, _ in pairs:
            if key in seen:
                raise ValueError(f"duplicate key {key!r}")
            seen.add(key)
    return out


#: The escape of a UTF-16 surrogate (``\\ud800`` to ``\\udfff``): Python's json takes an
#: unpaired one into a string that is not text (it cannot be encoded, hashed or saved).
_SURROGATE = re.compile(rb"\\u[dD][89a-fA-F]")


def load_json(body: bytes):
    """Parse a JSON body; malformed JSON, NaN/Infinity literals, a repeated key or a string
    holding an unpaired surrogate are a 400."""
    try:
        document = json.loads(body, parse_constant=_reject_constant, object_pairs_hook=_unique_keys)
        # (json decodes bytes with surrogatepass: a raw surrogate is not ASCII either)
        if not body.isascii() or _SURROGATE.search(body) is not None:
            json.dumps(document, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        raise RequestError(
            400,
            "the body is not valid JSON: a string holds an unpaired surrogate (\\ud800-\\udfff)",
        ) from None
    except (ValueError, RecursionError) as error:
        raise RequestError(400, f"the body is not valid JSON: {error}") from None
    return document


class ExampleParser:
    """Turns request bodies into :class:`Batch` es for one model.

    Parameters
    ----------
    model : a fitted olearn classifier or regressor
    spec : dict
        The model's input description (``{"format": "svmlight", "zero_based": ...}`` or
        ``{"format": "vw", "bits": ..., "ngrams": ..., "quadratic": [...]}``).
    max_rows : int
        Most examples one request may hold (more: 413).
    """

    def __init__(self, model, spec: dict, *, max_rows: int):
        from sklearn.base import is_regressor

        self.n_features = int(model.n_features_in_)
        self.spec = spec
        self.hashed = spec.get("format") == "vw"
        self.max_rows = int(max_rows)
        if is_regressor(model):
            self.label_kind = "number"
        else:
            kind = np.asarray(model.classes_).dtype.kind
            self.label_kind = {
                "U": "string",
                "O": "string",
                "i": "integer",
                "u": "integer",
                "b": "boolean",
            }.get(kind, "number")
        self.label_dtype = np.asarray(model.classes_).dtype if self.label_kind == "string" else None
        self._readers: dict[bool, object] = {}

    # -- JSON ------------------------------------------------------------------------------

    def from_json(self, body: bytes, *, learn: bool, batch: bool) -> Batch:
        document = load_json(body)
        if not isinstance(document, dict):
            raise RequestError(422, "the body must be a JSON object")
        if batch:
            _only(document, {"rows"}, "")
            rows = document.get("rows")
            if not isinstance(rows, list):
                raise RequestError(422, 'the body must have "rows": a list of examples')
            if len(rows) > self.max_rows:
                raise RequestError(
                    413, f"{len(rows)} examples in one request; the limit is {self.max_rows}"
                )
            if not rows:  # as a text body without lines (not a seq and a void record)
                raise RequestError(422, "the body holds no example")
        else:
            rows = [document]
        labels: list = []
        xs: list = []
        for i, row in enumerate(rows):
            if type(row) is not dict or "x" not in row or len(row) > 1 + ("y" in row):
                self._bad_row(row, _at(i, batch))
            if learn:
                if "y" not in row:
                    self._bad_row(row, _at(i, batch))
                labels.append(self._label(row["y"], _at(i, batch, "y")))
            xs.append(row["x"])
        y = self._labels(labels) if learn else None
        if not self.hashed and all(type(x) is dict for x in xs):
            found = self._all_columns(xs)
            if found is not None:
                return Batch(*found, y, self.n_features)
        # Row by row (a dense list, names to hash, or a problem to find and word): Python
        # lists, made arrays once.
        indices: list = []
        values: list = []
        indptr = [0]
        n_unseen = 0
        for i, x in enumerate(xs):
            if type(x) is dict and not self.hashed:
                n_unseen += self._columns(x, i, batch, learn, indices, values)
            else:
                idx, val = self._other_features(x, _at(i, batch, "x"), learn)
                indices.extend(idx.tolist())
                values.extend(val.tolist())
            indptr.append(len(indices))
        return Batch(
            np.array(indptr, np.int64),
            np.array(indices, np.int32),
            np.array(values, np.float64),
            y,
            self.n_features,
            n_unseen,
        )

    def _all_columns(self, xs: list[dict]):
        """The rows ``xs`` ({column index: value}) as CSR arrays in a few NumPy calls, when
        every key is a column of the model given once and every value a finite number;
        else None (the row-by-row path then finds and words the problem)."""
        keys: list = []
        values: list = []
        for x in xs:
            keys.extend(x)
            values.extend(x.values())
        if not keys:
            return np.zeros(len(xs) + 1, np.int64), np.zeros(0, np.int32), np.zeros(0)
        if not set(map(type, values)) <= {float, int}:  # bool, str, None, lists...
            return None
        try:
            names = np.array(keys, dtype="S")  # raises for a non-ASCII key
            columns = names.astype(np.int64) if np.char.isdigit(names).all() else None
            data = np.array(values, np.float64)  # OverflowError for a huge integer
        except (UnicodeEncodeError, ValueError, OverflowError):
            return None
        if columns is None or names.itemsize > 18 or not (np.abs(data) <= MAX_VALUE).all():
            return None
        if columns.max() >= self.n_features:
            return None
        lengths = np.fromiter(map(len, xs), np.int64, len(xs))
        indptr = np.zeros(len(xs) + 1, np.int64)
        np.cumsum(lengths, out=indptr[1:])
        rows = np.repeat(np.arange(len(xs)), lengths)
        step = np.diff(columns)
        within = rows[1:] == rows[:-1]
        if (step[within] <= 0).any():  # keys out of order (or repeated) within a row
            order = np.lexsort((columns, rows))
            columns, data = columns[order], data[order]
            if ((np.diff(columns) == 0) & within).any():
                return None
        return indptr, columns.astype(np.int32), data

    def _bad_row(self, row, at: str):
        """Raise the error of a row that is not ``{"x": ..., "y": ...}`` (``y`` is ignored
        when predicting)."""
        where = at or "the body"
        if not isinstance(row, dict):
            raise RequestError(422, f"{where}: an example must be an object")
        _only(row, {"x", "y"}, at)
        if "x" not in row:
            raise RequestError(422, f'{where}: no "x" (the features)')
        raise RequestError(422, f'{where}: no "y" (the label)')

    def _columns(self, x: dict, i: int, batch: bool, learn: bool, indices, values) -> int:
        """Append the row ``x`` ({column index: value}) sorted by column to ``indices`` and
        ``values``; the number of values ignored (beyond the model's width, predicting)."""
        pairs = []
        width = self.n_features
        n_unseen = 0
        for key, value in x.items():
            if not (key.isascii() and key.isdigit()):
                raise RequestError(
                    422,
                    f"{_at(i, batch, 'x')}: feature keys are column indices "
                    f"(0 to {self.n_features - 1}) for this model, got {key!r}",
                )
            kind = type(value)
            if kind is not float or not -MAX_VALUE <= value <= MAX_VALUE:  # check it
                value = _number(value, f"{_at(i, batch, 'x')}[{key!r}]")
            digits = key.lstrip("0")  # "001" is column 1, however many zeros lead
            if len(digits) >= 19:  # beyond any width (int() of a long string is slow)
                if learn:
                    raise RequestError(
                        422,
                        f"{_at(i, batch, 'x')}: feature index {key} is beyond the "
                        f"model's {width} features",
                    )
                n_unseen += 1
                continue
            pairs.append((int(digits or "0"), value))
        pairs.sort()
        last = -1
        for column, value in pairs:
            if column == last:
                raise RequestError(422, f"{_at(i, batch, 'x')}: feature index {column} given twice")
            last = column
            if column >= width:
                if learn:
                    raise RequestError(
                        422,
                        f"{_at(i, batch, 'x')}: feature index {column} is beyond the "
                        f"model's {width} features",
                    )
                n_unseen += 1
                continue
            indices.append(column)
            values.append(value)
        return n_unseen

    def _other_features(self, x, at: str, learn: bool) -> tuple[np.ndarray, np.ndarray]:
        """A dense list, or named features of a hashed model, as (indices, values)."""
        if isinstance(x, list):
            if len(x) != self.n_features:
                raise RequestError(
                    422, f"{at}: a list holds every column's value: {self.n_features}, got {len(x)}"
                )
            val = np.array([_number(v, f"{at}[{j}]") for j, v in enumerate(x)], np.float64)
            idx = np.flatnonzero(val)
            return idx, val[idx]
        if not isinstance(x, dict):
            raise RequestError(422, f"{at}: the features must be an object or a list")
        return self._hashed(x, at, learn)

    def _hashed(self, x: dict, at: str, learn: bool):
        parts = []
        flat = []
        for key, value in x.items():
            if isinstance(value, dict):
                if not _is_name(key) or len(key) == 0:
                    raise RequestError(422, f"{at}: bad namespace name {key!r}")
                names = [
                    f"{_name(k, at)}:{_number(v, f'{at}[{key!r}][{k!r}]')!r}"
                    for k, v in value.items()
                ]
                parts.append(f"|{key} " + " ".join(names))
            else:
                flat.append(f"{_name(key, at)}:{_number(value, f'{at}[{key!r}]')!r}")
        line = ("| " + " ".join(flat) + " " if flat else "") + " ".join(parts)
        chunk, _ = self._text_chunk((line or "|").encode() + b"\n", learn=False)
        return chunk.indices, chunk.data

    def _label(self, y, at: str):
        kind = self.label_kind
        if kind == "string":
            if not isinstance(y, str):
                raise RequestError(422, f"{at}: this model's labels are strings, got {y!r}")
            return y
        if kind == "boolean":  # true and false, or 1 and 0 (as text lines write them)
            if not isinstance(y, bool | int | float) or y not in (0, 1):
                raise RequestError(422, f"{at}: this model's labels are true and false, got {y!r}")
            return bool(y)
        if isinstance(y, bool) or not isinstance(y, int | float):
            raise RequestError(422, f"{at}: the label must be a number, got {y!r}")
        if kind == "integer":
            if isinstance(y, float) and not y.is_integer() or abs(y) >= 2**63:
                raise RequestError(422, f"{at}: this model's labels are integers, got {y!r}")
            return int(y)
        try:
            value = float(y)
        except OverflowError:  # an integer beyond the floats
            value = math.inf
        if not math.isfinite(value):
            raise RequestError(422, f"{at}: the label is not finite: {y!r}")
        if abs(value) > MAX_VALUE:
            raise RequestError(422, f"{at}: the label {y!r} is beyond ±{MAX_VALUE:g}{_WHY_BOUND}")
        return value

    def _labels(self, labels: list) -> np.ndarray:
        if self.label_kind == "string":
            return np.array(labels, dtype=object if self.label_dtype.kind == "O" else str)
        if self.label_kind == "boolean":
            return np.array(labels, dtype=bool)
        return np.array(labels, np.int64 if self.label_kind == "integer" else np.float64)

    # -- text ------------------------------------------------------------------------------

    def _reader(self, learn: bool):
        reader = self._readers.get(learn)
        if reader is None:
            from olearn.io.svmlight import SvmlightReader
            from olearn.io.vw import VWReader

            common = {"name": "body", "threads": 1, "chunk_bytes": 1 << 16}
            if self.hashed:
                reader = VWReader(
                    "-",
                    bits=self.spec["bits"],
                    ngrams=self.spec.get("ngrams", 0),
                    quadratic=self.spec.get("quadratic") or (),
                    require_label=learn,
                    **common,
                )
            else:
                zero = self.spec.get("zero_based")
                reader = SvmlightReader(
                    "-",
                    n_features=self.n_features,
                    zero_based=bool(zero),  # unknown: one-based, as svmlight
                    ignore_unseen=not learn,
                    **common,
                )
                # (not the command line's "use --zero-based": no client has such an option)
                reader.zero_index_hint = "(the model reads its text lines one-based)"
            self._readers[learn] = reader
        return reader

    def _text_chunk(self, body: bytes, *, learn: bool):
        reader = self._reader(learn)
        try:
            chunk = reader.parse_bytes(body)
        except BadLineError as error:
            raise RequestError(422, str(error)) from None
        except ValueError as error:  # e.g. a line beyond the reader's limit
            raise RequestError(422, f"body: {error}") from None
        return chunk, getattr(reader, "n_unseen", 0)

    def from_text(self, body: bytes, *, learn: bool, batch: bool) -> Batch:
        if body.count(b"\n") > self.max_rows:  # bounds the work before parsing
            raise RequestError(413, f"more than {self.max_rows} lines in one request")
        chunk, n_unseen = self._text_chunk(body, learn=learn)
        n = chunk.y.shape[0]
        if n > self.max_rows:
            raise RequestError(413, f"{n} examples in one request; the limit is {self.max_rows}")
        if not batch and n != 1:
            raise RequestError(
                422, f"expected one example, got {n} (the /batch endpoints take several)"
            )
        if not n:
            raise RequestError(422, "the body holds no example")
        weights = chunk.sample_weight
        if weights is not None and (weights != 1).any():
            line = int(np.flatnonzero(weights != 1)[0]) + 1
            raise RequestError(422, f"body:{line}: importance weights are not supported")
        big = ~(np.abs(chunk.data) <= MAX_VALUE)
        if big.any():
            at = int(np.flatnonzero(big)[0])
            line = int(np.searchsorted(chunk.indptr, at, side="right"))
            raise RequestError(
                422, f"body:{line}: {float(chunk.data[at])!r} is beyond ±{MAX_VALUE:g}{_WHY_BOUND}"
            )
        y = None
        if learn:
            if self.label_kind == "string":
                raise RequestError(
                    422, "this model's labels are strings, which text lines cannot carry: send JSON"
                )
            y = chunk.y
            big = ~(np.abs(y) <= (2**63 - 1024 if self.label_kind == "integer" else MAX_VALUE))
            if big.any():
                line = int(np.flatnonzero(big)[0]) + 1
                raise RequestError(422, f"body:{line}: the label {float(y[big][0])!r} is too large")
            if self.label_kind == "integer":
                bad = y != np.round(y)
                if bad.any():
                    line = int(np.flatnonzero(bad)[0]) + 1
                    raise RequestError(
                        422,
                        f"body:{line}: this model's labels are integers, got {float(y[bad][0])!r}",
                    )
                y = y.astype(np.int64)
            if self.label_kind == "boolean":
                bad = (y != 0) & (y != 1)
                if bad.any():
                    line = int(np.flatnonzero(bad)[0]) + 1
                    raise RequestError(
                        422,
                        f"body:{line}: this model's labels are true and false (1 and 0), "
                        f"got {float(y[bad][0])!r}",
                    )
                y = y == 1
        indices = np.ascontiguousarray(chunk.indices, np.int32)
        return Batch(
            chunk.indptr.astype(np.int64), indices, chunk.data, y, self.n_features, n_unseen
        )


def _at(i: int, batch: bool, field: str = "") -> str:
    """Where in the body: ``rows[3].x``, ``x``, ``rows[3]`` or "" (the body)."""
    row = f"rows[{i}]" if batch else ""
    return f"{row}.{field}" if row and field else row or field


def _only(document: dict, allowed: set, at: str) -> None:
    extra = set(document) - allowed
    if extra:
        where = f"{at}: " if at else ""
        raise RequestError(422, f"{where}unknown field {sorted(extra)[0]!r}")


def _number(value, at: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise RequestError(422, f"{at}: a feature value must be a number, got {value!r}")
    try:
        out = float(value)
    except OverflowError:
        out = math.inf
    if not math.isfinite(out):
        raise RequestError(422, f"{at}: the feature value is not finite: {value!r}")
    if abs(out) > MAX_VALUE:
        raise RequestError(422, f"{at}: {value!r} is beyond ±{MAX_VALUE:g}{_WHY_BOUND}")
    return out


def _is_name(key: str) -> bool:
    return not any(c.isspace() or c in ":|" for c in key)


def _name(key: str, at: str) -> str:
    if not key or not _is_name(key):
        raise RequestError(
            422, f"{at}: feature names may not be empty or hold whitespace, ':' or '|': {key!r}"
        )
    return key
