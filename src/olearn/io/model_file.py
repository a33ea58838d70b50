"""Model files: ``olearn.save(model, path)`` and ``olearn.load(path)``. Never pickle.

Layout of a file (all integers little-endian)::

    b"OLEARN\\x00\\x01"            8 bytes   magic
    format version                 uint32
    header length H                uint64
    header                         H bytes   UTF-8 JSON (below)
    payload                        P bytes   a zip archive of .npy arrays (no pickled objects)
    SHA-256 of everything above    32 bytes

The header (format 2) holds the format version, the olearn version, the estimator's class
(dotted name, one of the allow-list of ``olearn.io._schema``), its ``get_params()``, its fitted
scalars, one entry per fitted array (dtype, shape, memory order, encoding, nonzero count), the
payload length, and free JSON ``metadata`` (the command line stores how it read the data
there, so ``olearn predict`` reads new data the same way).

What is stored is what the estimator's schema declares (``olearn.io._schema``): its state and
nothing derived (no caches), compressed: the payload's entries are deflated (at the fastest
level; an entry that does not shrink is stored as it is), and an array that mostly holds one
value (the zeros of a hashed weight vector, the prior of untouched variances) is stored as
that fill value plus the positions and values of the others. Loading restores every array
bit for bit, in its memory order.

Reading a file trusts nothing in it: the trailing checksum catches accidents (a truncated file,
a flipped byte); the version field is read before it so a file from a newer olearn gets its
own message; and since a checksum can be recomputed, everything is then validated against the
estimator's schema before any compiled code sees it, within a bounded allocation: sizes are
checked against the archive and ``max_memory`` before an array is allocated. Format 1 files
(olearn 0.1, uncompressed, every instance attribute) are still read, through the same checks.

Writes are atomic (``olearn.io._files.atomic_write``): an interrupted save leaves the old file
intact, and a new file gets the user's umask (an overwritten one keeps its mode).
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import stat
import struct
import warnings
import zipfile
import zlib
from dataclasses import dataclass
from typing import Any

import numpy as np

from olearn.io import _schema
from olearn.io._files import atomic_write

MAGIC = b"OLEARN\x00\x01"
#: Version of the layout above; bump it when the layout or the header's meaning changes.
FORMAT_VERSION = 2
_PREFIX = struct.Struct("<8sIQ")  # magic, format version, header length
_DIGEST = 32
#: A header is a few kilobytes; anything near this is not one.
_MAX_HEADER_BYTES = 16 << 20
_MAX_DEPTH = 32
#: Zip entries carry a fixed date, so one model always gives the same bytes.
_ZIP_DATE = (1980, 1, 1, 0, 0, 0)
_CHUNK = 1 << 22
#: Arrays smaller than this are stored as they are.
_SPARSE_MIN_SIZE = 64


def _olearn_version() -> str:
    from olearn import __version__

    return __version__


def default_max_memory() -> int:
    """The default of ``load(max_memory=)``: the machine's physical memory (16 GiB if the
    platform does not say)."""
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):  # pragma: no cover - not POSIX
        return 16 << 30


def _size_text(n: int) -> str:
    value = float(n)
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB"):
        if value < 1024 or unit == "TiB":
            return f"{int(value)} bytes" if unit == "bytes" else f"{value:.1f} {unit}"
        value /= 1024
    raise AssertionError  # pragma: no cover


# -- JSON values ----------------------------------------------------------------------------------
#
# Parameters (and format 1's attributes) are JSON descriptors:
#   plain JSON (None, bool, int, float, str)
#   {"__float__": "inf"}                                    non-finite floats
#   {"__sequence__": "list"|"tuple", "items": [...]}        {"__dict__": {str: ...}}
#   {"__mapping__": [[key, value], ...]}                    a dict with non-string keys
# Format 1 also has {"__array__": key, "kind": "array"|"object-strings"} for its arrays.


def _encode_value(value: Any, where: str):
    if value is None or isinstance(value, bool | str):
        return value
    if isinstance(value, np.generic) and not isinstance(value, np.void):
        return _encode_value(value.item(), where)
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return value if np.isfinite(value) else {"__float__": repr(value)}
    if isinstance(value, list | tuple):
        items = [_encode_value(v, where) for v in value]
        return {"__sequence__": type(value).__name__, "items": items}
    if isinstance(value, dict):
        if all(isinstance(k, str) for k in value):
            return {"__dict__": {k: _encode_value(v, where) for k, v in value.items()}}
        return {"__mapping__": [[_encode_value(k, where), _encode_value(v, where)]
                                for k, v in value.items()]}  # fmt: skip
    hint = (
        " (a callable is code, and code is not written to model files)" if callable(value) else ""
    )
    raise TypeError(f"cannot save {where} of type {type(value).__name__} in a model file{hint}")


def _decode_value(value: Any, where: str, depth: int = 0):
    if depth > _MAX_DEPTH:
        raise _schema.Invalid(f"{where} is nested too deeply")
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        if not np.isfinite(value):
            raise _schema.Invalid(f"{where} is not a JSON number")
        return value
    if isinstance(value, dict) and len(value) == 1 and "__float__" in value:
        if value["__float__"] not in ("inf", "-inf", "nan"):
            raise _schema.Invalid(f"{where} has an unknown float {_schema._show(value)}")
        return float(value["__float__"])
    if isinstance(value, dict) and set(value) == {"__sequence__", "items"}:
        kind, items = value["__sequence__"], value["items"]
        if kind not in ("list", "tuple") or not isinstance(items, list):
            raise _schema.Invalid(f"{where} is a malformed sequence")
        decoded = [_decode_value(v, where, depth + 1) for v in items]
        return tuple(decoded) if kind == "tuple" else decoded
    if (
        isinstance(value, dict)
        and set(value) == {"__dict__"}
        and isinstance(value["__dict__"], dict)
    ):
        return {k: _decode_value(v, where, depth + 1) for k, v in value["__dict__"].items()}
    if isinstance(value, dict) and set(value) == {"__mapping__"}:
        pairs = value["__mapping__"]
        if not isinstance(pairs, list) or not all(
            isinstance(p, list) and len(p) == 2 for p in pairs
        ):
            raise _schema.Invalid(f"{where} is a malformed mapping")
        out = {}
        for key, item in pairs:
            key = _decode_value(key, where, depth + 1)
            if isinstance(key, list | dict):
                raise _schema.Invalid(f"{where} has an unhashable key")
            out[key] = _decode_value(item, where, depth + 1)
        return out
    raise _schema.Invalid(f"{where} is not a value a model file holds: {_schema._show(value)}")


def plain_metadata(value: Any) -> Any:
    """A header value with the tagging above undone, as plain dicts and lists (for reading
    metadata and parameters; ``_decode_value`` also checks and rebuilds tuples)."""
    if isinstance(value, dict):
        if "__dict__" in value:
            return {k: plain_metadata(v) for k, v in value["__dict__"].items()}
        if "__sequence__" in value:
            return [plain_metadata(v) for v in value["items"]]
        return {k: plain_metadata(v) for k, v in value.items()}
    return value


def _params(model, where: str) -> dict[str, Any]:
    params = model.get_params(deep=False)
    state = params.get("random_state")
    if state is not None and not isinstance(state, int | np.integer):
        warnings.warn(
            f"{where}: random_state is a random generator, which a model file cannot hold; "
            "it is saved as None",
            stacklevel=4,
        )
        params = {**params, "random_state": None}
    return params


# -- arrays in the payload ------------------------------------------------------------------------

_DTYPE_TEXT = re.compile(r"[<>|=]?[biufUS]\d{1,6}")


def _dtype(text, where: str) -> np.dtype:
    """A plain numeric, boolean or string dtype (never object, structured or void)."""
    if not isinstance(text, str) or not _DTYPE_TEXT.fullmatch(text):
        raise _schema.Invalid(f"{where} has an unsupported dtype {_schema._show(text)}")
    try:
        dtype = np.dtype(text)
    except TypeError:  # sizes numpy lacks: "<i3", "<u16"
        raise _schema.Invalid(f"{where} has an unsupported dtype {_schema._show(text)}") from None
    if dtype.itemsize == 0:
        raise _schema.Invalid(f"{where} has an empty dtype {text}")
    return dtype


def _shape(value, where: str) -> tuple[int, ...]:
    if (
        not isinstance(value, list | tuple)
        or len(value) > 8
        or not all(isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in value)
    ):
        raise _schema.Invalid(f"{where} has a malformed shape {_schema._show(value)}")
    return tuple(value)


def _nbytes(dtype: np.dtype, shape) -> int:
    return int(np.prod(shape, dtype=object)) * dtype.itemsize


class _Archive:
    """The payload: a zip of .npy entries, read with every size checked before allocating."""

    def __init__(self, payload: bytes, methods: tuple[int, ...]):
        self.zip = zipfile.ZipFile(io.BytesIO(payload))
        infos = self.zip.infolist()
        self.entries = {info.filename: info for info in infos}
        if len(self.entries) != len(infos):
            raise _schema.Invalid("the payload names an entry twice")
        for info in infos:
            if info.compress_type not in methods or info.flag_bits & 0x1:
                raise _schema.Invalid(
                    f"payload entry {info.filename!r} is stored in an unknown way"
                )
            if info.compress_size > len(payload):
                raise _schema.Invalid(f"payload entry {info.filename!r} is longer than the file")

    def _open(self, key: str):
        """The entry of array ``key``, positioned after its .npy header; its layout."""
        info = self.entries.get(f"{key}.npy")
        if info is None:
            raise _schema.Invalid(f"the payload has no array {key}")
        handle = self.zip.open(info)
        version = np.lib.format.read_magic(handle)
        if version not in ((1, 0), (2, 0)):
            raise _schema.Invalid(f"array {key} has .npy version {version}")
        reader = (
            np.lib.format.read_array_header_1_0
            if version == (1, 0)
            else np.lib.format.read_array_header_2_0
        )
        shape, fortran, dtype = reader(handle, max_header_size=4096)
        _dtype(dtype.str, f"array {key}")
        data_bytes = _nbytes(dtype, shape)
        if info.file_size != handle.tell() + data_bytes:
            raise _schema.Invalid(f"array {key} does not have the size its header states")
        return handle, dtype, tuple(shape), bool(fortran)

    def layout(self, key: str) -> tuple[np.dtype, tuple, bool]:
        handle, dtype, shape, fortran = self._open(key)
        handle.close()
        return dtype, shape, fortran

    def read(self, key: str, dtype: np.dtype, shape: tuple, order: str) -> np.ndarray:
        """Array ``key``, which must have this dtype, shape and order (checked before the
        array is allocated; then exactly its bytes are decompressed into it)."""
        handle, found_dtype, found_shape, fortran = self._open(key)
        with handle:
            if (found_dtype, found_shape) != (dtype, shape) or (
                fortran != (order == "F") and len(shape) > 1
            ):
                raise _schema.Invalid(
                    f"array {key} is stored as {found_dtype} {found_shape}, "
                    f"not {dtype} {shape} as the header states"
                )
            out = np.empty(shape, dtype=dtype, order="F" if fortran else "C")
            flat = out.ravel(order="K").view(np.uint8)
            done = 0
            while done < flat.size:
                chunk = handle.read(min(flat.size - done, _CHUNK))
                if not chunk:
                    raise _schema.Invalid(f"array {key} is truncated")
                flat[done : done + len(chunk)] = np.frombuffer(chunk, dtype=np.uint8)
                done += len(chunk)
            if handle.read(1):
                raise _schema.Invalid(f"array {key} is longer than its header states")
        return out


#: What can go wrong while parsing an untrusted archive, besides our own Invalid.
_ARCHIVE_ERRORS = (
    zipfile.BadZipFile,
    zipfile.LargeZipFile,
    zlib.error,
    struct.error,
    ValueError,
    TypeError,
    SyntaxError,
    KeyError,
    IndexError,
    EOFError,
    OSError,
    OverflowError,
    RuntimeError,
    NotImplementedError,
    UnicodeDecodeError,
)


def _sparse_form(array: np.ndarray) -> tuple | None:
    """(fill, deltas of the positions of the other values, those values) when those take
    fewer bytes than the array; the positions count in memory order, bit patterns compared
    (so -0.0 stays -0.0). A weight vector that is half zeros is stored sparse: its values
    rarely deflate (varied doubles), so the sparse form also spares deflating them."""
    if array.dtype.kind not in "biuf" or array.size < _SPARSE_MIN_SIZE:
        return None
    flat = array.ravel(order="K")
    bits = flat.view(f"u{array.dtype.itemsize}")
    sample = bits[:: max(1, bits.size // 257)]
    values, counts = np.unique(sample, return_counts=True)
    best, best_count = None, bits.size + 1
    for candidate in {values[np.argmax(counts)], bits.dtype.type(0)}:
        count = int(np.count_nonzero(bits != candidate))
        if count < best_count:
            best, best_count = candidate, count
    if best_count * (array.dtype.itemsize + 1) >= array.nbytes:  # 1: the narrowest delta
        return None
    positions = np.flatnonzero(bits != best)
    deltas = np.diff(positions, prepend=0)
    top = int(deltas.max()) if deltas.size else 0
    width = next(w for w in (np.uint8, np.uint16, np.uint32, np.uint64) if top <= np.iinfo(w).max)
    if best_count * (array.dtype.itemsize + np.dtype(width).itemsize) >= array.nbytes:
        return None
    fill = np.array([best], dtype=bits.dtype).view(array.dtype)[0].item()
    return fill, deltas.astype(width), flat[positions]


def _compresses(array: np.ndarray) -> bool:
    """Whether deflating pays: a large array of varied doubles shrinks by a few percent at
    tens of MB/s, so one whose first 256 KiB do not shrink by 10 % is stored as it is."""
    if array.nbytes < 1 << 20:
        return True
    sample = array.ravel(order="K")[: (256 << 10) // array.dtype.itemsize].tobytes()
    return len(zlib.compress(sample, 1)) < 0.9 * len(sample)


def _write_entry(archive: zipfile.ZipFile, key: str, array: np.ndarray) -> None:
    info = zipfile.ZipInfo(f"{key}.npy", date_time=_ZIP_DATE)
    info.compress_type = zipfile.ZIP_DEFLATED if _compresses(array) else zipfile.ZIP_STORED
    # deflate's fastest level: on a hashed model's positions it writes 20 % more bytes than
    # the default level 6 in a seventh of the time (11 against 81 ms for 2^20 weights).
    # (`_compresslevel` is ZipInfo's only spelling before Python 3.13, an alias after.)
    info._compresslevel = 1
    info.external_attr = 0o644 << 16
    with archive.open(info, "w", force_zip64=True) as handle:
        np.lib.format.write_array(handle, array, allow_pickle=False)


def _encode_array(archive: zipfile.ZipFile, name: str, value: np.ndarray, where: str) -> dict:
    kind = "array"
    if value.dtype == object:
        if not all(isinstance(v, str) for v in value.ravel()):
            raise TypeError(f"cannot save {where}: an object array of non-strings")
        value, kind = value.astype(str), "object-strings"
    if value.dtype.kind not in "biufUS":
        raise TypeError(f"cannot save {where} of dtype {value.dtype}")
    fortran = value.ndim > 1 and value.flags.f_contiguous and not value.flags.c_contiguous
    value = np.asfortranarray(value) if fortran else np.ascontiguousarray(value)
    entry = {
        "dtype": value.dtype.str,
        "shape": list(value.shape),
        "order": "F" if fortran else "C",
        "kind": kind,
    }
    if value.dtype.kind in "biuf":
        entry["nonzero"] = int(np.count_nonzero(value))
    sparse = _sparse_form(value)
    if sparse is None:
        entry["encoding"] = "dense"
        _write_entry(archive, name, value)
    else:
        fill, deltas, values = sparse
        entry.update(encoding="sparse", fill=fill, stored=int(values.size))
        _write_entry(archive, f"{name}.positions", deltas)
        _write_entry(archive, f"{name}.values", values)
    return entry


# -- writing --------------------------------------------------------------------------------------


def _encode(model, metadata: dict | None) -> bytes:
    if not hasattr(model, "get_params") or isinstance(model, type):
        raise TypeError(f"cannot save a {type(model).__name__}: not an estimator")
    cls = type(model).__name__
    family = _schema.family_of(model)
    if family is None:
        raise TypeError(
            f"cannot save a {cls}: model files hold olearn's own estimators only "
            f"({_schema.class_name(type(model))} is not one)"
        )
    if not any(n.endswith("_") and not n.startswith("_") for n in vars(model)):
        raise ValueError(f"{cls} is not fitted: nothing to save")
    raw_params = _params(model, cls)
    params = {k: _encode_value(v, f"{cls} parameter {k}") for k, v in raw_params.items()}
    skip = _schema.transient(model, family) | set(raw_params)
    scalars, arrays = {}, {}
    for name, value in vars(model).items():
        if name in skip:
            continue
        if name in family.arrays and isinstance(value, np.ndarray):
            arrays[name] = value
        elif name in family.scalars:
            scalars[name] = value.item() if isinstance(value, np.generic) else value
        else:
            kind = type(value).__name__
            raise TypeError(
                f"cannot save {cls}: its attribute {name} of type {kind} is not declared in "
                f"the {family.name} schema (olearn.io._schema), so a model file cannot hold "
                "it; state is declared there, and what the model rebuilds or caches belongs "
                "in the class's _derived_attributes"
            )
    # what a file must pass to load, checked now: a model is never saved unloadable
    stored = _as_stored(arrays)
    try:
        _schema.check_layout(
            model, family, scalars, {k: (a.dtype, a.shape) for k, a in stored.items()}
        )
        _schema.check_values(model, family, scalars, stored)
    except _schema.Invalid as error:
        raise ValueError(f"cannot save {cls}: its state is inconsistent: {error}") from None
    buffer = io.BytesIO()
    entries = {}
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name in sorted(arrays):
            entries[name] = _encode_array(archive, name, arrays[name], f"{cls} attribute {name}")
    payload = buffer.getvalue()
    header = {
        "format": FORMAT_VERSION,
        "olearn_version": _olearn_version(),
        "estimator": _schema.class_name(type(model)),
        "params": params,
        "attributes": scalars,
        "arrays": entries,
        "payload_bytes": len(payload),
        "metadata": metadata or {},
    }
    try:
        header_bytes = json.dumps(header, sort_keys=True, allow_nan=False).encode()
    except (TypeError, ValueError) as error:
        raise TypeError(f"model file metadata must be plain JSON: {error}") from None
    if len(header_bytes) > _MAX_HEADER_BYTES:  # load refuses it as corrupted
        raise ValueError(
            f"cannot save {cls}: its header (parameters and metadata) takes "
            f"{_size_text(len(header_bytes))}, more than a model file holds "
            f"({_size_text(_MAX_HEADER_BYTES)}): store large data beside the model"
        )
    body = _PREFIX.pack(MAGIC, FORMAT_VERSION, len(header_bytes)) + header_bytes + payload
    return body + hashlib.sha256(body).digest()


def _as_stored(arrays: dict) -> dict:
    """Object arrays of strings as the file stores them (for the checks)."""
    out = {}
    for name, array in arrays.items():
        if array.dtype == object:
            if not all(isinstance(v, str) for v in array.ravel()):
                raise TypeError(f"cannot save attribute {name}: an object array of non-strings")
            array = array.astype(str)
        out[name] = array
    return out


def save(model, path: str | os.PathLike, *, metadata: dict | None = None) -> None:
    """Write a fitted estimator to ``path`` (atomically; an existing file is replaced).

    Parameters
    ----------
    model : estimator
        A fitted olearn estimator. Its ``get_params()`` and its fitted state, as its schema
        declares it (``olearn.io._schema``), are stored.
    path : str or path-like
        Destination file. The write goes to a temporary file in the same folder that is
        renamed over ``path`` only once complete; a new file gets the user's umask, an
        overwritten one keeps its mode.
    metadata : dict, optional
        JSON-able information kept with the model (``read_model_header(path)["metadata"]``).

    Raises
    ------
    TypeError
        For an object that is not one of olearn's estimators, or state a file cannot hold
        (a callable parameter, an undeclared attribute).
    ValueError
        For an unfitted model, or metadata too large for a model file (16 MiB of header).

    Examples
    --------
    >>> import os, tempfile
    >>> import olearn
    >>> model = olearn.PerceptronClassifier().fit([[1.0], [-1.0]], [1, -1])
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     olearn.save(model, os.path.join(folder, "model.olm"))
    ...     olearn.load(os.path.join(folder, "model.olm")).predict([[2.0]]).tolist()
    [1]
    """
    data = _encode(model, metadata)
    with atomic_write(path) as handle:
        handle.write(data)


# -- reading --------------------------------------------------------------------------------------


@dataclass
class ArrayEntry:
    """One array of a model file, as its header states it (nothing read yet)."""

    name: str
    dtype: np.dtype
    shape: tuple
    order: str = "C"
    kind: str = "array"
    encoding: str = "dense"
    fill: Any = 0
    stored: int = 0
    nonzero: int | None = None
    sha256: str | None = None  # format 1
    key: str = ""  # the payload key (format 1: may differ from the attribute name)

    @property
    def nbytes(self) -> int:
        return _nbytes(self.dtype, self.shape)


class ModelFile:
    """A verified model file: its header, its arrays' entries, and bounded reads of them.

    Built by :func:`open_model_file`; nothing in it is trusted beyond the checks of the
    outer layout, the checksum and the header's structure. ``limit`` is its ``max_memory``.
    """

    def __init__(
        self, name: str, version: int, header: dict, payload: bytes, size: int, limit: int
    ):
        self.name = name
        self.version = version
        self.header = header
        self.size = size
        self.limit = limit
        self.entries = self._entries()
        methods = (zipfile.ZIP_STORED,) if version == 1 else (zipfile.ZIP_DEFLATED,)
        try:
            self._archive = _Archive(payload, methods + (zipfile.ZIP_STORED,))
        except _schema.Invalid as error:
            raise ValueError(f"{name} is corrupted ({error})") from None
        except _ARCHIVE_ERRORS as error:
            raise ValueError(f"{name} is corrupted (payload: {_message(error)})") from None

    def _entries(self) -> dict[str, ArrayEntry]:
        entries = {}
        for key, info in self.header["arrays"].items():
            where = f"array {_schema._show(key)}"
            if not isinstance(info, dict):
                raise _schema.Invalid(f"{where} is described by {_schema._show(info)}")
            entry = ArrayEntry(
                key, _dtype(info.get("dtype"), where), _shape(info.get("shape"), where), key=key
            )
            if self.version == 1:
                entry.sha256 = info.get("sha256")
                if not isinstance(entry.sha256, str):
                    raise _schema.Invalid(f"{where} has no checksum")
            else:
                _fields(info, where, {"dtype", "shape", "order", "kind", "encoding"},
                        {"nonzero", "fill", "stored"})  # fmt: skip
                entry.order, entry.kind = info["order"], info["kind"]
                entry.encoding, entry.nonzero = info["encoding"], info.get("nonzero")
                if entry.order not in ("C", "F") or entry.kind not in ("array", "object-strings"):
                    raise _schema.Invalid(f"{where} has an unknown order or kind")
                if entry.nonzero is not None and not _is_count(entry.nonzero):
                    raise _schema.Invalid(f"{where} has a malformed nonzero count")
                if entry.encoding == "sparse":
                    entry.fill, entry.stored = info.get("fill"), info.get("stored")
                    size = int(np.prod(entry.shape, dtype=object))
                    if not _is_count(entry.stored) or entry.stored > size:
                        raise _schema.Invalid(f"{where} has a malformed count of stored values")
                    if not _fill_fits(entry.fill, entry.dtype):
                        raise _schema.Invalid(f"{where} has a fill value unfit for its dtype")
                elif entry.encoding != "dense":
                    raise _schema.Invalid(f"{where} has an unknown encoding")
            entries[key] = entry
        return entries

    def layout(self, entry: ArrayEntry) -> None:
        """Check that the payload stores ``entry`` as the header says (reads .npy headers)."""
        try:
            if entry.encoding == "dense":
                dtype, shape, fortran = self._archive.layout(entry.key)
                expected = (entry.dtype, entry.shape)
                if (dtype, shape) != expected or (fortran and entry.order != "F"):
                    raise _schema.Invalid(
                        f"array {entry.name} is stored as {dtype} {shape}, not {expected[0]} "
                        f"{expected[1]} as the header states"
                    )
            else:
                for part, dtype in (("positions", None), ("values", entry.dtype)):
                    found, shape, _ = self._archive.layout(f"{entry.key}.{part}")
                    if shape != (entry.stored,) or (dtype is not None and found != dtype):
                        raise _schema.Invalid(f"array {entry.name}'s {part} do not fit its header")
                    if dtype is None and found.kind != "u":
                        raise _schema.Invalid(f"array {entry.name}'s positions are not unsigned")
        except _schema.Invalid:
            raise
        except _ARCHIVE_ERRORS as error:
            raise _schema.Invalid(f"array {entry.name}: {_message(error)}") from None

    def read(self, entry: ArrayEntry) -> np.ndarray:
        """The array of ``entry`` (its layout checked first; at most its bytes allocated,
        plus its positions for a sparse one), within the memory limit: ``load`` checks all
        arrays together, but a reader of a few (``olearn info``) must not allocate what a
        header claims either."""
        needed = entry.nbytes + 8 * entry.stored + self.size
        if needed > self.limit:
            raise _schema.Invalid(
                f"array {entry.name} needs {_size_text(needed)}, more than the memory limit of "
                f"{_size_text(self.limit)} (max_memory)"
            )
        self.layout(entry)
        try:
            if entry.encoding == "dense":
                array = self._archive.read(entry.key, entry.dtype, entry.shape, entry.order)
                if self.version == 1 and _sha256(array) != entry.sha256:
                    raise _schema.Invalid(f"array {entry.name} checksum")
            else:
                array = self._read_sparse(entry)
        except _schema.Invalid:
            raise
        except _ARCHIVE_ERRORS as error:
            raise _schema.Invalid(f"array {entry.name}: {_message(error)}") from None
        return array.astype(object) if entry.kind == "object-strings" else array

    def _read_sparse(self, entry: ArrayEntry) -> np.ndarray:
        key = entry.key
        dtype, _, _ = self._archive.layout(f"{key}.positions")
        deltas = self._archive.read(f"{key}.positions", dtype, (entry.stored,), "C")
        values = self._archive.read(f"{key}.values", entry.dtype, (entry.stored,), "C")
        positions = np.cumsum(deltas, dtype=np.uint64)
        size = int(np.prod(entry.shape, dtype=object))
        # strictly increasing (a wrap-around of the sum decreases) and inside the array
        if positions.size and (
            (positions[1:] <= positions[:-1]).any() or int(positions[-1]) >= size
        ):
            raise _schema.Invalid(f"array {entry.name}'s positions are not increasing within it")
        out = np.full(entry.shape, entry.fill, dtype=entry.dtype, order=entry.order)
        out.ravel(order="K")[positions.astype(np.intp)] = values
        return out


def _fields(info: dict, where: str, required: set, optional: set) -> None:
    missing = required - set(info)
    unknown = set(info) - required - optional
    if missing or unknown:
        problem = f"lacks {sorted(missing)}" if missing else f"has unknown {sorted(unknown)}"
        raise _schema.Invalid(f"{where} {problem}")


def _is_count(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _fill_fits(fill, dtype: np.dtype) -> bool:
    if isinstance(fill, bool) and dtype.kind != "b":
        return False
    if dtype.kind == "f":
        return isinstance(fill, int | float) and np.isfinite(fill)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return isinstance(fill, int) and not isinstance(fill, bool) and info.min <= fill <= info.max
    return isinstance(fill, bool)


def _sha256(array: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(array).view(np.uint8).reshape(-1)).hexdigest()


def _message(error: BaseException) -> str:
    text = str(error).splitlines()[0] if str(error) else type(error).__name__
    return text if len(text) <= 120 else text[:117] + "..."


def _memory_limit(max_memory) -> int:
    """``max_memory`` as bytes (default: the physical memory), or an error naming it."""
    if max_memory is None:
        return default_max_memory()
    if isinstance(max_memory, bool) or not isinstance(max_memory, int | np.integer):
        raise ValueError(f"max_memory must be a number of bytes, got {max_memory!r}")
    return int(max_memory)


#: How a model file compressed by a tool starts, the tool, and the command that undoes it
#: (a model file is compressed already: a user's ``gzip model.olm`` only hides it).
_COMPRESSED = (
    (b"\x1f\x8b", "gzip", "gunzip"),
    (b"BZh", "bzip2", "bunzip2"),
    (b"\xfd7zXZ\x00", "xz", "unxz"),
    (b"\x28\xb5\x2f\xfd", "zstd", "unzstd"),
)


def _not_a_model_file(name: str, prefix: bytes) -> ValueError:
    for magic, tool, command in _COMPRESSED:
        if prefix.startswith(magic):
            return ValueError(
                f"{name} is {tool}-compressed, not an olearn model file ({command} it first: "
                "model files are compressed already)"
            )
    return ValueError(f"{name} is not an olearn model file")


def _read_bytes(path, name: str, limit: int) -> tuple[bytes, int]:
    """The file's bytes (at most ``limit``: a model file larger than the memory it may use
    is refused before it is read; /dev/zero stops at the magic)."""
    with open(path, "rb") as handle:
        prefix = handle.read(_PREFIX.size)
        if not prefix:
            raise ValueError(f"{name} is empty, not an olearn model file")
        if len(prefix) < len(MAGIC) and MAGIC.startswith(prefix[:6]):  # cut within the magic
            raise ValueError(f"{name} is truncated ({len(prefix)} bytes)")
        if len(prefix) < len(MAGIC) or prefix[:6] != MAGIC[:6]:
            raise _not_a_model_file(name, prefix)
        status = os.fstat(handle.fileno())
        known = status.st_size if stat.S_ISREG(status.st_mode) else 0
        if known > limit:
            raise ValueError(
                f"{name} is larger than the memory limit of {_size_text(limit)} (max_memory)"
            )
        parts, size = [prefix], len(prefix)
        while size <= limit:  # read(n) allocates n bytes up front: the file's size, or 1 MiB
            chunk = handle.read(
                min(max(known - size, 0) + 1 if known else 1 << 20, limit + 1 - size)
            )
            if not chunk:
                break
            parts.append(chunk)
            size += len(chunk)
    if size > limit:
        raise ValueError(
            f"{name} is larger than the memory limit of {_size_text(limit)} (max_memory)"
        )
    return b"".join(parts), size


def _json_depth_ok(value) -> bool:
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if depth > _MAX_DEPTH:
            return False
        if isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item)
    return True


def _reject_constant(text: str):
    raise ValueError(f"{text} is not JSON")


_HEADER_FIELDS = {
    "format": int,
    "olearn_version": str,
    "estimator": str,
    "params": dict,
    "attributes": dict,
    "arrays": dict,
    "payload_bytes": int,
    "metadata": dict,
}


def open_model_file(path: str | os.PathLike, *, max_memory: int | None = None) -> ModelFile:
    """Read and verify a model file's outer layout, checksum, version and header structure.

    Raises
    ------
    ValueError
        If the file is not an olearn model file, is truncated or corrupted, is larger than
        ``max_memory``, or was written by a newer model format.
    """
    name = os.fspath(path)
    limit = _memory_limit(max_memory)
    data, size = _read_bytes(path, name, limit)
    if len(data) < _PREFIX.size:
        raise ValueError(f"{name} is truncated or corrupted")
    magic, version, header_len = _PREFIX.unpack_from(data)
    if magic != MAGIC:
        raise ValueError(f"{name} is not an olearn model file (or it is corrupted)")
    if len(data) < _PREFIX.size + _DIGEST or header_len > len(data) - _PREFIX.size - _DIGEST:
        raise ValueError(f"{name} is truncated or corrupted")
    body, digest = data[:-_DIGEST], data[-_DIGEST:]
    # Every format version keeps magic, version and the trailing SHA-256, so a newer file is
    # told apart from a corrupted version field.
    if hashlib.sha256(body).digest() != digest:
        raise ValueError(f"{name} is truncated or corrupted (checksum mismatch)")
    if version > FORMAT_VERSION:
        raise ValueError(
            f"{name} has model format {version}, newer than this olearn "
            f"({_olearn_version()}) reads (format {FORMAT_VERSION}): upgrade olearn"
        )
    if version < 1:
        raise ValueError(f"{name} is corrupted (model format {version})")
    if header_len > _MAX_HEADER_BYTES:
        raise ValueError(f"{name} is corrupted (a header of {header_len} bytes)")
    start = _PREFIX.size
    try:
        header = json.loads(body[start : start + header_len], parse_constant=_reject_constant)
    except RecursionError:
        raise ValueError(f"{name} is corrupted (the header is nested too deeply)") from None
    except (UnicodeDecodeError, ValueError) as error:
        raise ValueError(f"{name} is corrupted (unreadable header: {_message(error)})") from None
    if not _json_depth_ok(header):
        raise ValueError(f"{name} is corrupted (the header is nested too deeply)")
    if not isinstance(header, dict):
        raise ValueError(f"{name} is corrupted (the header is not a JSON object)")
    for field, kind in _HEADER_FIELDS.items():
        value = header.get(field)
        if not isinstance(value, kind) or isinstance(value, bool):
            raise ValueError(
                f"{name} is corrupted (header field {field!r} is "
                f"{'missing' if field not in header else _schema._show(value)})"
            )
    if header["format"] != version:
        raise ValueError(
            f"{name} is corrupted (format {header['format']} in a version {version} file)"
        )
    payload = body[start + header_len :]
    if header["payload_bytes"] != len(payload):
        raise ValueError(f"{name} is truncated or corrupted (payload length)")
    try:
        return ModelFile(name, version, header, payload, size, limit)
    except _schema.Invalid as error:
        raise ValueError(f"{name} is corrupted ({error})") from None


def read_model_header(path: str | os.PathLike) -> dict:
    """The verified JSON header of the model file at ``path`` (class, parameters, metadata,
    versions)."""
    return open_model_file(path).header


def _state(file: ModelFile, family: _schema.Family, model) -> tuple[dict, dict]:
    """(scalars, array entries by attribute name) of a file, as its version stores them."""
    attributes = file.header["attributes"]
    if file.version >= 2:
        scalars = {k: _decode_value(v, f"attribute {k}") for k, v in attributes.items()}
        return scalars, dict(file.entries)
    # format 1: every instance attribute, arrays by reference; caches and rebuilt ones skipped
    skip = _schema.transient(model, family)
    scalars, entries = {}, {}
    for attr, value in attributes.items():
        if attr in skip:
            continue
        if attr in family.arrays:
            if not (
                isinstance(value, dict)
                and set(value) == {"__array__", "kind"}
                and value["kind"] in ("array", "object-strings")
                and isinstance(value["__array__"], str)
                and value["__array__"] in file.entries
            ):
                raise _schema.Invalid(f"attribute {attr} is not an array of the file")
            entry = file.entries[value["__array__"]]
            entries[attr] = ArrayEntry(**{**vars(entry), "name": attr, "kind": value["kind"]})
        else:
            scalars[attr] = _decode_value(value, f"attribute {attr}")
    return scalars, entries


def load(path: str | os.PathLike, *, max_memory: int | None = None):
    """Read a model written by :func:`save` (format 2, or format 1 of olearn 0.1).

    Parameters
    ----------
    path : str or path-like
    max_memory : int, optional
        The most bytes the file and its arrays may take once loaded (checked before anything
        is allocated); default: the machine's physical memory (:func:`default_max_memory`).

    Raises
    ------
    ValueError
        If the file is not an olearn model file, is truncated or corrupted, was written by a
        newer model format, names a class that is not an olearn estimator, or holds
        parameters or state that do not make a valid model of that class (shapes, dtypes,
        non-finite values, indices out of bounds): the message names the file and the
        offending parameter, attribute or array.
    OSError
        If the file cannot be read (``FileNotFoundError``, ``IsADirectoryError``,
        ``PermissionError``), as ``open`` raises it, naming the file.
    """
    file = open_model_file(path, max_memory=max_memory)
    name = file.name
    header = file.header
    try:
        cls = _schema.import_estimator(header["estimator"])
    except _schema.Invalid as error:
        raise ValueError(f"{name} {error}") from None
    family = _schema.ESTIMATORS[header["estimator"]]
    where = f"{name} does not hold a valid {cls.__name__}"
    try:
        params = {k: _decode_value(v, f"parameter {k}") for k, v in header["params"].items()}
    except _schema.Invalid as error:
        raise ValueError(f"{where}: {error}") from None
    try:
        model = cls(**params)
        getattr(model, family.check_params)()
    except (TypeError, ValueError) as error:
        raise ValueError(f"{where}: parameters: {_message(error)}") from None
    try:
        scalars, entries = _state(file, family, model)
        _schema.check_layout(
            model, family, scalars, {k: (e.dtype, e.shape) for k, e in entries.items()}
        )
        needed = sum(e.nbytes + 8 * e.stored for e in entries.values()) + file.size
        limit = _memory_limit(max_memory)
        if needed > limit:
            raise _schema.Invalid(
                f"its arrays need {_size_text(needed)}, more than the memory limit of "
                f"{_size_text(limit)} (max_memory)"
            )
        for entry in entries.values():
            file.layout(entry)
        arrays = {attr: file.read(entry) for attr, entry in entries.items()}
        _schema.check_values(model, family, scalars, _as_stored(arrays))
    except _schema.Invalid as error:
        raise ValueError(f"{where}: {error}") from None
    for attr, value in {**scalars, **arrays}.items():
        if attr in arrays and family.arrays[attr].order == "F":
            value = np.asfortranarray(value)  # format 1 stored every array C-ordered
        setattr(model, attr, value)
    configure = getattr(model, "_configure", None)
    if callable(configure):
        configure()
    return model
