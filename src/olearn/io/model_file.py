"""Model files: ``olearn.save(model, path)`` and ``olearn.load(path)``. Never pickle.

Layout of a file (all integers little-endian)::

    b"OLEARN\\x00\\x01"            8 bytes   magic
    format version                 uint32
    header length H                uint64
    header                         H bytes   UTF-8 JSON (below)
    payload                        P bytes   an .npz archive of the arrays (no pickled objects)
    SHA-256 of everything above    32 bytes

The header holds the format version, the olearn version, the estimator's class (dotted name)
and its ``get_params()`` as JSON, the fitted attributes (JSON scalars inline; arrays by name
with their SHA-256), the payload length, and free ``metadata`` (the command line stores how it
read the data there, so ``olearn predict`` reads new data the same way).

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


# -- encoding -------------------------------------------------------------------------------


def _json_value(value: Any, where: str):
    """A parameter or scalar attribute as JSON (nested estimators as tagged objects)."""
    if value is None or isinstance(value, bool | str):
        return value
    if isinstance(value, np.generic):
        return _json_value(value.item(), where)
    if isinstance(value, int | float):
        if isinstance(value, float) and not np.isfinite(value):
            return {"__float__": repr(value)}
        return value
    if isinstance(value, list | tuple):
        return {
            "__sequence__": type(value).__name__,
            "items": [_json_value(v, where) for v in value],
        }
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return {"__dict__": {k: _json_value(v, where) for k, v in value.items()}}
    if hasattr(value, "get_params") and not isinstance(value, type):
        return {
            "__estimator__": _class_name(type(value)),
            "params": {
                k: _json_value(v, f"{where}.{k}") for k, v in value.get_params(deep=False).items()
            },
        }
    raise TypeError(f"cannot save {where} of type {type(value).__name__} in a model file")


def _from_json(value: Any):
    if isinstance(value, dict):
        if "__float__" in value:
            return float(value["__float__"])
        if "__sequence__" in value:
            items = [_from_json(v) for v in value["items"]]
            return tuple(items) if value["__sequence__"] == "tuple" else items
        if "__dict__" in value:
            return {k: _from_json(v) for k, v in value["__dict__"].items()}
        if "__estimator__" in value:
            cls = _import_class(value["__estimator__"])
            return cls(**{k: _from_json(v) for k, v in value["params"].items()})
        raise ValueError(f"unknown tagged value in model header: {sorted(value)}")
    return value


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


def _sha256(array: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(array).view(np.uint8).reshape(-1)).hexdigest()


def _encode(model, metadata: dict | None) -> bytes:
    try:
        params = model.get_params(deep=False)
    except AttributeError:
        raise TypeError(f"cannot save a {type(model).__name__}: not an estimator") from None
    if params.get("random_state") is not None and not isinstance(
        params["random_state"], int | np.integer
    ):
        warnings.warn(
            "random_state is a random generator, which a model file cannot hold; "
            "it is saved as None",
            stacklevel=3,
        )
        params = {**params, "random_state": None}
    attributes = _fitted_attributes(model)
    if not attributes:
        raise ValueError(f"{type(model).__name__} is not fitted: nothing to save")
    scalars: dict[str, Any] = {}
    arrays: dict[str, dict[str, Any]] = {}
    payload_arrays: dict[str, np.ndarray] = {}
    for name, value in attributes.items():
        if isinstance(value, np.ndarray):
            stored, kind = value, "array"
            if value.dtype == object:
                if not all(isinstance(v, str) for v in value.ravel()):
                    raise TypeError(f"cannot save attribute {name}: an object array of non-strings")
                stored, kind = value.astype(str), "object-strings"
            if stored.dtype.hasobject:
                raise TypeError(f"cannot save attribute {name} of dtype {value.dtype}")
            stored = np.ascontiguousarray(stored)
            payload_arrays[name] = stored
            arrays[name] = {"kind": kind, "sha256": _sha256(stored)}
        else:
            scalars[name] = _json_value(value, f"attribute {name}")
    buffer = io.BytesIO()
    np.savez(buffer, **payload_arrays)
    payload = buffer.getvalue()
    header = {
        "format": FORMAT_VERSION,
        "olearn_version": _olearn_version(),
        "estimator": _class_name(type(model)),
        "params": {k: _json_value(v, f"parameter {k}") for k, v in params.items()},
        "scalars": scalars,
        "arrays": arrays,
        "payload_bytes": len(payload),
        "metadata": _json_value(metadata or {}, "metadata"),
    }
    header_bytes = json.dumps(header, sort_keys=True, allow_nan=False).encode()
    body = _PREFIX.pack(MAGIC, FORMAT_VERSION, len(header_bytes)) + header_bytes + payload
    return body + hashlib.sha256(body).digest()


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
    cls = _import_class(header["estimator"])
    try:
        params = {k: _from_json(v) for k, v in header["params"].items()}
        model = cls(**params)
    except TypeError as error:
        raise ValueError(f"{name}: parameters do not fit {header['estimator']}: {error}") from None
    for attr, value in header["scalars"].items():
        setattr(model, attr, _from_json(value))
    try:
        with np.load(io.BytesIO(payload), allow_pickle=False) as archive:
            for attr, info in header["arrays"].items():
                array = archive[attr]
                if _sha256(array) != info["sha256"]:
                    raise ValueError(f"{name} is corrupted (array {attr} checksum)")
                if info["kind"] == "object-strings":
                    array = array.astype(object)
                setattr(model, attr, array)
    except (zipfile.BadZipFile, KeyError, OSError, EOFError) as error:
        raise ValueError(f"{name} is corrupted (arrays: {error})") from None
    configure = getattr(model, "_configure", None)
    if callable(configure):
        configure()
    return model
