"""The write-ahead log of ``olearn serve``: learn requests, framed and checksummed, on disk
before they are learned.

A log is a folder of segments ``wal-<first seq>.log``. A segment starts with the 8 bytes
``OLWAL\\0\\0\\1`` and holds records, each framed as::

    length (u32, little-endian) | CRC-32 of the payload (u32) | payload (length bytes)

A group of records is written with one ``write`` and made durable with one ``fdatasync``
before any of them is learned or acknowledged. A process killed in the middle of a write
leaves a torn record at the end of the last segment: it was never acknowledged, so opening
the log cuts it off. A bad record anywhere else is corruption, and opening the log fails
with a message naming the segment and the offset.

After a checkpoint at sequence number ``seq`` every record so far is in the model file:
:meth:`WriteAheadLog.restart_after` deletes the old segments and opens a new one.
"""

from __future__ import annotations

import os
import struct
import zlib
from collections.abc import Iterator
from pathlib import Path

MAGIC = b"OLWAL\0\0\1"
_FRAME = struct.Struct("<II")
#: Largest record accepted when reading (a length beyond it is damage, not a record).
MAX_RECORD_BYTES = 1 << 31


class LogError(ValueError):
    """A damaged or foreign log (not a torn tail): the service refuses to start."""


def frame(payload: bytes) -> bytes:
    """One record as it is written: length, CRC-32, payload."""
    return _FRAME.pack(len(payload), zlib.crc32(payload)) + payload


def _segment_name(first_seq: int) -> str:
    return f"wal-{first_seq:020d}.log"


def _first_seq(path: Path) -> int | None:
    stem = path.name
    if not (stem.startswith("wal-") and stem.endswith(".log")):
        return None
    digits = stem[4:-4]
    return int(digits) if digits.isdigit() else None


def _torn(data: bytes, at: int) -> bool:
    """Whether the bad record at ``at`` can be the unfinished last write: its frame reaches
    the end of the segment (a crash leaves a prefix of the write), or everything from it on
    is zeros (blocks allocated, never written). A complete record that fails its CRC with
    more records after it is damage to acknowledged requests, never a torn tail."""
    if len(data) - at < _FRAME.size:
        return True
    length, _ = _FRAME.unpack_from(data, at)
    return at + _FRAME.size + length >= len(data) or data.count(0, at) == len(data) - at


def _sync_folder(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class WriteAheadLog:
    """The segments of ``folder``; records are appended to the last one.

    Open it with :meth:`open`, read what it holds with :meth:`records`, then :meth:`append`.
    Not thread-safe: one writer thread owns it.
    """

    def __init__(self, folder: str | os.PathLike):
        self.folder = Path(folder)
        self._fd: int | None = None
        self.current: Path | None = None
        #: Bytes cut off a torn tail when the log was opened (0: none).
        self.torn_bytes = 0

    def segments(self) -> list[Path]:
        """The segment files, oldest first."""
        found = []
        for path in self.folder.iterdir():
            seq = _first_seq(path)
            if seq is not None:
                found.append((seq, path))
        return [path for _, path in sorted(found)]

    def records(self) -> Iterator[bytes]:
        """Every record's payload, oldest first, checking each frame. A torn or damaged
        record at the end of the last segment is cut off (``torn_bytes``); anywhere else it
        raises :class:`LogError`."""
        segments = self.segments()
        for number, path in enumerate(segments):
            last = number == len(segments) - 1
            data = path.read_bytes()
            if not data.startswith(MAGIC):
                if last and MAGIC.startswith(data):  # created, header torn
                    self._cut(path, 0, len(data))
                    continue
                raise LogError(f"{path}: not an olearn serve log segment")
            at = len(MAGIC)
            while at < len(data):
                problem = None
                if len(data) - at < _FRAME.size:
                    problem = "a record header is cut short"
                else:
                    length, crc = _FRAME.unpack_from(data, at)
                    end = at + _FRAME.size + length
                    if length > MAX_RECORD_BYTES or end > len(data):
                        problem = "a record is cut short"
                    elif length == 0:  # never written: every record has a header
                        problem = "an empty record"
                    else:
                        payload = data[at + _FRAME.size : end]
                        if zlib.crc32(payload) != crc:
                            problem = "a record fails its CRC-32 check"
                if problem:
                    if not (last and _torn(data, at)):
                        raise LogError(f"{path}: offset {at}: {problem} (the log is damaged)")
                    self._cut(path, at, len(data))
                    break
                yield payload
                at = end

    def _cut(self, path: Path, at: int, size: int) -> None:
        """Cut a torn tail: it was being written when the process stopped, before its
        fsync, so it was never acknowledged."""
        with open(path, "r+b") as handle:
            handle.truncate(at)
            os.fsync(handle.fileno())
        self.torn_bytes += size - at

    def open(self, next_seq: int) -> None:
        """Append to the last segment, or start one whose first record is ``next_seq``."""
        segments = self.segments()
        if segments and segments[-1].stat().st_size >= len(MAGIC):
            self.current = segments[-1]
            self._fd = os.open(self.current, os.O_WRONLY | os.O_APPEND)
        else:
            for path in segments:  # an empty segment whose header was torn
                path.unlink()
            self._start(next_seq)

    def _start(self, first_seq: int) -> None:
        path = self.folder / _segment_name(first_seq)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND, 0o644)
        os.write(fd, MAGIC)
        os.fsync(fd)
        _sync_folder(self.folder)
        self._fd, self.current = fd, path

    def append(self, payloads: list[bytes]) -> None:
        """Write the records with one ``write`` and make them durable with one
        ``fdatasync``: when this returns they survive a crash. When either fails (a full
        disk) the segment is cut back to its length before the write, so the records of the
        failed call (answered as not learned) are not learned by a later replay."""
        data = b"".join(frame(p) for p in payloads)
        view = memoryview(data)
        before = os.fstat(self._fd).st_size
        try:
            while view:
                written = os.write(self._fd, view)
                view = view[written:]
            os.fdatasync(self._fd)
        except OSError:
            try:
                os.ftruncate(self._fd, before)
                os.fdatasync(self._fd)
            except OSError:  # then a replay may find them: the caller stops learning
                pass
            raise

    def restart_after(self, seq: int) -> None:
        """After a durable checkpoint at ``seq``: a new segment for ``seq + 1`` on, and the
        old segments (all of whose records the checkpoint holds) deleted."""
        old = self.segments()
        self.close()
        self._start(seq + 1)
        for path in old:
            if path != self.current:
                path.unlink()
        _sync_folder(self.folder)

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
