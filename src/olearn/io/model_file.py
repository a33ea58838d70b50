"""Model files: ``olearn.save(model, path)`` and ``olearn.load(path)``. Never pickle.

Layout of a file (all integers little-endian)::

    b"OLEARN\\x00\\x01"            8 bytes   magic
    format version                 uint32
    header length H                uint64
    header                         H bytes   UTF-8 JSON (below)
    payload                        P bytes   an .npz archive of the arrays (no pickled objects)
    SHA-256 of everything above    32 bytes

The header holds the format version, the olearn version, the estimator's class (dotted name),
its ``get_params()`` and its state (every other instance attribute, as pickle would keep) as JSON
descriptors — scalars inline; arrays, sparse matrices, lists and fitted sub-estimators by
reference into the payload — the SHA-256, dtype and shape of every array, the payload length,
and free JSON ``metadata`` (the command line stores how it read the data there, so ``olearn
predict`` reads new data the same way).

The trailing checksum catches a truncated file and any flipped byte; the version field is read
before it so a file from a newer olearn gets its own message. Arrays are loaded with
``allow_pickle=False``; only classes from the ``olearn`` package are ever instantiated.

Writes are atomic: the bytes go to a temporary file in the same folder, which is flushed,
``fsync``-ed and renamed over the target, so an interrupted save leaves the old file intact.
"""

from __future__ import annotations

import hashlib
import importlib
import io
import json
import os
import struct
import tempfile
import warnings
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

MAGIC = b"OLEARN\x00\x01"
#: Version of the layout above; bump it when the layout or the header's meaning changes.
FORMAT_VERSION = 1
_PREFIX = struct.Struct("<8sIQ")  # magic, format version, header length
_DIGEST = 32


def _olearn_version() -> str:
    from olearn import __version__

    return __version__


# -- encoding ---------------------------------------------------------------------------------
#
# Every value (parameter or fitted attribute) becomes a JSON descriptor; arrays go to the npz
# payload under a path-like key and are referenced by it. Descriptors:
#   plain JSON (None, bool, int, float, str)
#   {"__float__": "inf"}                                   non-finite floats
#   {"__array__": key, "kind": "array"|"object-strings"}   a NumPy array
#   {"__sparse__": format, "shape": [...], "data"/"indices"/"indptr": array descriptors}
#   {"__sequence__": "list"|"tuple", "items": [...]}       {"__dict__": {str: ...}}
#   {"__estimator__": class, "params": {...}}              an unfitted estimator (a parameter)
#   {"__fitted__": class, "params": {...}, "attributes": {...}}   a fitted sub-estimator


def _class_name(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def _import_class(dotted: str) -> type:
    module_name, _, name = dotted.rpartition(".")
    # Only olearn's own classes: a model file never names arbitrary code to import.
    if not (module_name == "olearn" or module_name.startswith("olearn.")):
        raise ValueError(f"model file names a class outside olearn: {dotted!r}")
    try:
        cls = getattr(importlib.import_module(module_name), name)
    except (ImportError, AttributeError) as error:
        raise ValueError(
            f"model file names the estimator {dotted!r}, which this olearn does not have"
        ) from error
    if not isinstance(cls, type) or not hasattr(cls, "get_params"):
        raise ValueError(f"model file names {dotted!r}, which is not an estimator class")
    return cls


def _fitted_attributes(model) -> dict[str, Any]:
    """Every public instance attribute ending in ``_`` (scikit-learn's fitted state)."""
    return {
        name: value
        for name, value in vars(model).items()
        if name.endswith("_") and not name.startswith("_")
    }


def _state_attributes(model, params) -> dict[str, Any]:
    """What pickle would keep besides the parameters: every instance attribute, public
    fitted ones (``coef_``) and private state alike (kernel models keep their support
    vectors in private arrays). Attributes a model derives from its parameters
    (``_derived_attributes``) are not stored: ``_configure()`` rebuilds them on load."""
    derived = set(getattr(model, "_derived_attributes", ()))
    return {
        name: value
        for name, value in vars(model).items()
        if name not in params and name not in derived and not name.startswith("__")
    }


def _sha256(array: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(array).view(np.uint8).reshape(-1)).hexdigest()


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


class _Encoder:
    def __init__(self) -> None:
        self.arrays: dict[str, np.ndarray] = {}

    def array(self, value: np.ndarray, key: str, where: str) -> dict:
        stored, kind = value, "array"
        if value.dtype == object:
            if not all(isinstance(v, str) for v in value.ravel()):
                raise TypeError(f"cannot save {where}: an object array of non-strings")
            stored, kind = value.astype(str), "object-strings"
        if stored.dtype.hasobject:
            raise TypeError(f"cannot save {where} of dtype {value.dtype}")
        self.arrays[key] = np.ascontiguousarray(stored)
        return {"__array__": key, "kind": kind}

    def value(self, value: Any, key: str, where: str):
        if value is None or isinstance(value, bool | str):
            return value
        if isinstance(value, np.ndarray):
            return self.array(value, key, where)
        if isinstance(value, np.generic):
            return self.value(value.item(), key, where)
        if isinstance(value, int | float):
            if isinstance(value, float) and not np.isfinite(value):
                return {"__float__": repr(value)}
            return value
        if _is_sparse(value):
            fmt = value.format if value.format in ("csr", "csc") else "csr"
            matrix = value.asformat(fmt)
            return {
                "__sparse__": fmt,
                "shape": list(matrix.shape),
                **{
                    part: self.array(getattr(matrix, part), f"{key}/{part}", where)
                    for part in ("data", "indices", "indptr")
                },
            }
        if isinstance(value, list | tuple):
            return {
                "__sequence__": type(value).__name__,
                "items": [self.value(v, f"{key}/{i}", where) for i, v in enumerate(value)],
            }
        if isinstance(value, dict) and all(isinstance(k, str) for k in value):
            return {"__dict__": {k: self.value(v, f"{key}/{k}", where) for k, v in value.items()}}
        if hasattr(value, "get_params") and not isinstance(value, type):
            return self.estimator(value, key, where)
        hint = (
            " (a callable is code, and code is not written to model files)"
            if callable(value)
            else ""
        )
        raise TypeError(f"cannot save {where} of type {type(value).__name__} in a model file{hint}")

    def estimator(self, model, key: str, where: str) -> dict:
        raw_params = _params(model, where)
        params = {
            k: self.value(v, f"{key}params/{k}", f"{where} parameter {k}")
            for k, v in raw_params.items()
        }
        attributes = _state_attributes(model, raw_params) if _fitted_attributes(model) else {}
        if not attributes:
            return {"__estimator__": _class_name(type(model)), "params": params}
        return {
            "__fitted__": _class_name(type(model)),
            "params": params,
            "attributes": {
                name: self.value(v, f"{key}{name}", f"{where} attribute {name}")
                for name, v in attributes.items()
            },
        }


def _is_sparse(value) -> bool:
    # scipy is imported only if the value comes from it
    return type(value).__module__.startswith("scipy.sparse")


def _encode(model, metadata: dict | None) -> bytes:
    if not hasattr(model, "get_params") or isinstance(model, type):
        raise TypeError(f"cannot save a {type(model).__name__}: not an estimator")
    if not _fitted_attributes(model):
        raise ValueError(f"{type(model).__name__} is not fitted: nothing to save")
    encoder = _Encoder()
    described = encoder.estimator(model, "", type(model).__name__)
    buffer = io.BytesIO()
    np.savez(buffer, **encoder.arrays)
    payload = buffer.getvalue()
    header = {
        "format": FORMAT_VERSION,
        "olearn_version": _olearn_version(),
        "estimator": described["__fitted__"],
        "params": described["params"],
        "attributes": described["attributes"],
        "arrays": {
            key: {"sha256": _sha256(a), "dtype": a.dtype.str, "shape": list(a.shape)}
            for key, a in encoder.arrays.items()
        },
        "payload_bytes": len(payload),
        "metadata": metadata or {},
    }
    try:
        header_bytes = json.dumps(header, sort_keys=True, allow_nan=False).encode()
    except (TypeError, ValueError) as error:
        raise TypeError(f"model file metadata must be plain JSON: {error}") from None
    body = _PREFIX.pack(MAGIC, FORMAT_VERSION, len(header_bytes)) + header_bytes + payload
    return body + hashlib.sha256(body).digest()


class _Decoder:
    def __init__(self, archive, name: str) -> None:
        self.archive = archive
        self.name = name

    def value(self, value: Any):
        if isinstance(value, list):
            return [self.value(v) for v in value]
        if not isinstance(value, dict):
            return value
        if "__float__" in value:
            return float(value["__float__"])
        if "__array__" in value:
            array = self.archive[value["__array__"]]
            return array.astype(object) if value["kind"] == "object-strings" else array
        if "__sparse__" in value:
            import scipy.sparse as sp

            parts = tuple(self.value(value[p]) for p in ("data", "indices", "indptr"))
            cls = sp.csc_matrix if value["__sparse__"] == "csc" else sp.csr_matrix
            return cls(parts, shape=tuple(value["shape"]))
        if "__sequence__" in value:
            items = [self.value(v) for v in value["items"]]
            return tuple(items) if value["__sequence__"] == "tuple" else items
        if "__dict__" in value:
            return {k: self.value(v) for k, v in value["__dict__"].items()}
        if "__estimator__" in value or "__fitted__" in value:
            return self.estimator(value)
        raise ValueError(f"{self.name} is corrupted (unknown value tag {sorted(value)})")

    def estimator(self, value: dict):
        dotted = value.get("__fitted__") or value["__estimator__"]
        cls = _import_class(dotted)
        params = {k: self.value(v) for k, v in value["params"].items()}
        try:
            model = cls(**params)
        except TypeError as error:
            raise ValueError(f"{self.name}: parameters do not fit {dotted}: {error}") from None
        for attr, v in value.get("attributes", {}).items():
            if not attr.isidentifier() or attr.startswith("__"):
                raise ValueError(f"{self.name} is corrupted (attribute name {attr!r})")
            setattr(model, attr, self.value(v))
        configure = getattr(model, "_configure", None)
        if "attributes" in value and callable(configure):
            configure()
        return model


# -- public API -----------------------------------------------------------------------------


def save(model, path: str | os.PathLike, *, metadata: dict | None = None) -> None:
    """Write a fitted estimator to ``path`` (atomically; an existing file is replaced).

    Parameters
    ----------
    model : estimator
        A fitted olearn estimator. Its ``get_params()`` and every attribute ending in ``_``
        (arrays, or JSON-able scalars) are stored.
    path : str or path-like
        Destination file. The write goes to a temporary file in the same folder that is
        renamed over ``path`` only once complete.
    metadata : dict, optional
        JSON-able information kept with the model (``read_model_header(path)["metadata"]``).
    """
    data = _encode(model, metadata)
    path = Path(path)
    folder = path.parent if str(path.parent) else Path(".")
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    try:  # make the rename itself durable
        dir_fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dir_fd)
    except OSError:
        pass
    finally:
        os.close(dir_fd)


def _read_verified(path: str | os.PathLike) -> tuple[dict, bytes]:
    """Check magic, version and checksum; return (header, payload)."""
    name = os.fspath(path)
    with open(path, "rb") as handle:
        data = handle.read()
    if len(data) < _PREFIX.size or data[:6] != MAGIC[:6]:
        raise ValueError(f"{name} is not an olearn model file")
    magic, version, header_len = _PREFIX.unpack_from(data)
    if magic != MAGIC:
        raise ValueError(f"{name} is not an olearn model file (or it is corrupted)")
    if len(data) < _PREFIX.size + _DIGEST or header_len > len(data):
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
    start = _PREFIX.size
    try:
        header = json.loads(body[start : start + header_len].decode())
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ValueError(f"{name} is corrupted (unreadable header)") from error
    payload = body[start + header_len :]
    if header.get("payload_bytes") != len(payload):
        raise ValueError(f"{name} is truncated or corrupted (payload length)")
    return header, payload


def read_model_header(path: str | os.PathLike) -> dict:
    """The verified JSON header of a model file (class, parameters, metadata, versions)."""
    return _read_verified(path)[0]


def load(path: str | os.PathLike):
    """Read a model written by :func:`save`.

    Raises
    ------
    ValueError
        If the file is not an olearn model file, is truncated or corrupted (checksum), was
        written by a newer model format, or names an estimator this olearn does not have.
    """
    name = os.fspath(path)
    header, payload = _read_verified(path)
    try:
        with np.load(io.BytesIO(payload), allow_pickle=False) as archive:
            arrays = {key: archive[key] for key in archive.files}
    except (zipfile.BadZipFile, KeyError, OSError, EOFError, ValueError) as error:
        raise ValueError(f"{name} is corrupted (arrays: {error})") from None
    if sorted(arrays) != sorted(header["arrays"]):
        raise ValueError(f"{name} is corrupted (the arrays do not match the header)")
    for key, info in header["arrays"].items():
        if _sha256(arrays[key]) != info["sha256"]:
            raise ValueError(f"{name} is corrupted (array {key} checksum)")
    decoder = _Decoder(arrays, name)
    return decoder.estimator(
        {
            "__fitted__": header["estimator"],
            "params": header["params"],
            "attributes": header["attributes"],
        }
    )
