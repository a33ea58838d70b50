"""Model files as a tamperer writes them: any header and arrays, with recomputed checksums.

Used by the model-file tests (trust boundary, fuzzing) to build files that pass the checksum
and must still be refused by validation.
"""

from __future__ import annotations

import hashlib
import io
import json
import zipfile

import numpy as np

from olearn.io import model_file

PREFIX = model_file._PREFIX


def split(data: bytes) -> tuple[int, dict, bytes]:
    """(format version, header, payload) of a file's bytes (checksum not verified)."""
    _, version, length = PREFIX.unpack_from(data)
    start = PREFIX.size
    return version, json.loads(data[start : start + length]), data[start + length : -32]


def entries(payload: bytes) -> dict[str, np.ndarray]:
    """Every .npy entry of a payload, by key."""
    with zipfile.ZipFile(io.BytesIO(payload)) as archive:
        return {
            name[: -len(".npy")]: np.lib.format.read_array(archive.open(name))
            for name in archive.namelist()
        }


def arrays_of(data: bytes) -> dict[str, np.ndarray]:
    """The arrays of a file by attribute (format 2: sparse ones rebuilt) or payload key (1)."""
    version, header, payload = split(data)
    raw = entries(payload)
    if version == 1:
        return raw
    out = {}
    for name, info in header["arrays"].items():
        if info["encoding"] == "dense":
            array = raw[name]
        else:
            array = np.full(info["shape"], info["fill"], dtype=info["dtype"], order=info["order"])
            positions = np.cumsum(raw[f"{name}.positions"].astype(np.int64))
            array.ravel(order="K")[positions] = raw[f"{name}.values"]
        out[name] = array.astype(object) if info["kind"] == "object-strings" else array
    return out


def pack(version: int, header_bytes: bytes, payload: bytes) -> bytes:
    body = PREFIX.pack(model_file.MAGIC, version, len(header_bytes)) + header_bytes + payload
    return body + hashlib.sha256(body).digest()


def _payload_v2(arrays: dict, compress: bool) -> tuple[bytes, dict]:
    buffer = io.BytesIO()
    described = {}
    method = zipfile.ZIP_DEFLATED if compress else zipfile.ZIP_STORED
    with zipfile.ZipFile(buffer, "w", method) as archive:
        for name, array in arrays.items():
            kind = "array"
            if array.dtype == object:
                array, kind = array.astype(str), "object-strings"
            with archive.open(f"{name}.npy", "w", force_zip64=True) as handle:
                np.lib.format.write_array(handle, array)
            fortran = array.ndim > 1 and array.flags.f_contiguous and not array.flags.c_contiguous
            described[name] = {
                "dtype": array.dtype.str,
                "shape": list(array.shape),
                "order": "F" if fortran else "C",
                "kind": kind,
                "encoding": "dense",
            }
    return buffer.getvalue(), described


def craft(data: bytes, *, arrays=None, edit=None, raw_header=None, payload=None) -> bytes:
    """``data`` re-encoded with ``arrays`` replaced (None deletes one), the header changed by
    ``edit(header)``, or the raw header / payload given; checksums recomputed."""
    version, header, old_payload = split(data)
    if arrays is not None or payload is None:
        current = arrays_of(data)
        for name, value in (arrays or {}).items():
            if value is None:
                current.pop(name, None)
            else:
                current[name] = value
        if version == 1:
            buffer = io.BytesIO()
            np.savez(buffer, **current)
            new_payload = buffer.getvalue()
            header["arrays"] = {
                key: {
                    "sha256": model_file._sha256(a),
                    "dtype": a.dtype.str,
                    "shape": list(a.shape),
                }
                for key, a in current.items()
            }
        else:
            new_payload, header["arrays"] = _payload_v2(current, compress=True)
    else:
        new_payload = old_payload
    if payload is not None:
        new_payload = payload
    header["payload_bytes"] = len(new_payload)
    if edit is not None:
        edit(header)
    header_bytes = raw_header if raw_header is not None else json.dumps(header).encode()
    return pack(version, header_bytes, new_payload)
