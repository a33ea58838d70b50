"""What a log record holds: a learn request's examples, exactly as they were learned, or the
note that a logged request could not be learned.

Learn record: a header (kind, sequence number, the sequence number of its group's first
record, rows, nonzeros, label type, key length, digest), the idempotency key (UTF-8), then
the CSR arrays (int64 indptr, int32 indices, float64 values) and the labels (float64, int64,
uint8 for booleans, or a JSON list of strings). The arrays are the parsed values, bit for
bit, so a replay learns exactly what the live service learned, whatever text or JSON they
came from. The digest
(CRC-32 of the arrays) tells a retried request (same key, same examples) from a key reused
for other examples.
"""

from __future__ import annotations

import json
import struct
import zlib
from dataclasses import dataclass

import numpy as np

from olearn.serve.examples import Batch

LEARN = 1
VOID = 2
_LEARN = struct.Struct("<BQQIQBHI")
_VOID = struct.Struct("<BQ")
_FLOAT, _INT, _STRING, _BOOL = 0, 1, 2, 3


@dataclass
class LearnRecord:
    seq: int
    group: int
    key: str | None
    digest: int
    batch: Batch


@dataclass
class VoidRecord:
    seq: int
    reason: str


def _label_bytes(y: np.ndarray) -> tuple[int, bytes]:
    if y.dtype.kind == "b":
        return _BOOL, np.ascontiguousarray(y, "u1").tobytes()
    if y.dtype.kind == "f":
        return _FLOAT, np.ascontiguousarray(y, "<f8").tobytes()
    if y.dtype.kind in "iu":
        return _INT, np.ascontiguousarray(y, "<i8").tobytes()
    return _STRING, json.dumps([str(v) for v in y.tolist()]).encode()


def digest(batch: Batch) -> int:
    """CRC-32 of the examples and labels: equal for a retried request."""
    crc = zlib.crc32(np.ascontiguousarray(batch.indptr, "<i8").tobytes())
    crc = zlib.crc32(np.ascontiguousarray(batch.indices, "<i4").tobytes(), crc)
    crc = zlib.crc32(np.ascontiguousarray(batch.data, "<f8").tobytes(), crc)
    return zlib.crc32(_label_bytes(batch.y)[1], crc)


def encode_learn(seq: int, group: int, key: str | None, crc: int, batch: Batch) -> bytes:
    kind, labels = _label_bytes(batch.y)
    key_bytes = (key or "").encode()
    head = _LEARN.pack(
        LEARN, seq, group, batch.n_rows, batch.data.shape[0], kind, len(key_bytes), crc
    )
    return b"".join(
        (
            head,
            key_bytes,
            np.ascontiguousarray(batch.indptr, "<i8").tobytes(),
            np.ascontiguousarray(batch.indices, "<i4").tobytes(),
            np.ascontiguousarray(batch.data, "<f8").tobytes(),
            labels,
        )
    )


def encode_void(seq: int, reason: str) -> bytes:
    return _VOID.pack(VOID, seq) + reason.encode()


def decode(payload: bytes, n_features: int) -> LearnRecord | VoidRecord:
    """A record from its payload (which passed its CRC check); ValueError if malformed."""
    kind = payload[0] if payload else None
    if kind == VOID and len(payload) >= _VOID.size:
        _, seq = _VOID.unpack_from(payload)
        return VoidRecord(seq, payload[_VOID.size :].decode("utf-8", "replace"))
    if kind != LEARN or len(payload) < _LEARN.size:
        raise ValueError("not a record of olearn serve")
    _, seq, group, n, nnz, label_kind, key_length, crc = _LEARN.unpack_from(payload)
    at = _LEARN.size
    key = payload[at : at + key_length].decode() if key_length else None
    at += key_length
    sizes = (8 * (n + 1), 4 * nnz, 8 * nnz)
    if at + sum(sizes) > len(payload):
        raise ValueError(f"record {seq} is shorter than its arrays")
    indptr = np.frombuffer(payload, "<i8", n + 1, at).astype(np.int64)
    at += sizes[0]
    indices = np.frombuffer(payload, "<i4", nnz, at).astype(np.int32)
    at += sizes[1]
    data = np.frombuffer(payload, "<f8", nnz, at).astype(np.float64)
    at += sizes[2]
    rest = payload[at:]
    if label_kind == _STRING:
        y = np.array(json.loads(rest), dtype=str)
    elif label_kind == _BOOL:
        y = np.frombuffer(rest, "u1", n).astype(bool)
    else:
        y = np.frombuffer(rest, "<f8" if label_kind == _FLOAT else "<i8", n).copy()
        y = y.astype(np.float64 if label_kind == _FLOAT else np.int64)
    if y.shape[0] != n:
        raise ValueError(f"record {seq} has {y.shape[0]} labels for {n} rows")
    return LearnRecord(seq, group, key, crc, Batch(indptr, indices, data, y, n_features))
