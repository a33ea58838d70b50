"""Streaming text input in bounded memory: sources, compression, blocks of whole lines.

A reader reads its source in blocks of ``chunk_bytes`` (default 8 MiB), cuts each block after
its last newline (the rest is carried to the next block), and hands the complete lines to a
compiled parse loop. Memory therefore stays proportional to ``chunk_bytes`` whatever the size
of the input. Compression (gzip, bzip2, xz) is recognised by the first bytes, not the file
name, so it also works on standard input (``"-"``).
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import IO, NamedTuple

import numpy as np

from olearn.io._errors import BadLineError

#: Default block size of the readers, bytes.
DEFAULT_CHUNK_BYTES = 8 << 20

_MAGIC = (
    (b"\x1f\x8b", lambda raw: gzip.GzipFile(fileobj=raw)),
    (b"BZh", bz2.BZ2File),
    (b"\xfd7zXZ\x00", lzma.LZMAFile),
)


class Chunk(NamedTuple):
    """A block of examples: ``X`` (CSR float64), ``y`` (float64 labels), ``sample_weight``
    (None when every weight is 1), ``qid`` (query ids, or None), and ``first_line`` (the
    1-based line number of the block's first line in its file)."""

    X: object
    y: np.ndarray
    sample_weight: np.ndarray | None
    qid: np.ndarray | None
    first_line: int


def source_name(source) -> str:
    if isinstance(source, str | os.PathLike):
        return "<stdin>" if os.fspath(source) == "-" else os.fspath(source)
    return getattr(source, "name", "<stream>")


def open_source(source) -> tuple[IO[bytes], bool]:
    """Open a path, ``"-"`` (standard input) or a binary file object for reading, with
    transparent decompression. Returns ``(handle, we_opened_it)``."""
    if isinstance(source, str | os.PathLike) and os.fspath(source) != "-":
        raw = open(source, "rb")  # noqa: SIM115 - closed by the caller
        owned = True
    else:
        raw = sys.stdin.buffer if isinstance(source, str | os.PathLike) else source
        owned = False
    if not hasattr(raw, "peek"):
        raw = io.BufferedReader(raw)
    head = raw.peek(6)[:6]
    for magic, opener in _MAGIC:
        if head.startswith(magic):
            return opener(raw), True
    return raw, owned


def iter_blocks(handle: IO[bytes], chunk_bytes: int) -> Iterator[tuple[np.ndarray, int, bool]]:
    """Yield ``(buffer, end, final)``: ``buffer[:end]`` is a run of complete lines (or the
    input's last, unterminated line when ``final``)."""
    carry = bytearray()
    while True:
        block = handle.read(chunk_bytes)
        if not block:
            if carry:
                yield np.frombuffer(carry, np.uint8), len(carry), True
            return
        data = carry
        data += block
        cut = data.rfind(b"\n") + 1
        if cut == 0:  # a line longer than a block: keep reading
            carry = data
            continue
        yield np.frombuffer(data, np.uint8), cut, False
        carry = bytearray(data[cut:])


class LineReader:
    """Base of the text readers: iteration over :class:`Chunk` s and bad-line accounting.

    After (or during) iteration: ``n_examples``, ``n_bad_lines``, ``first_bad_line`` (the
    :class:`~olearn.io.BadLineError` of the first skipped line, or None), ``n_bytes`` (input
    bytes after decompression).
    """

    def __init__(
        self,
        source,
        *,
        chunk_bytes: int = DEFAULT_CHUNK_BYTES,
        skip_bad_lines: bool = False,
    ):
        if chunk_bytes < 1:
            raise ValueError(f"chunk_bytes must be positive, got {chunk_bytes}")
        self.source = source
        self.name = source_name(source)
        self.chunk_bytes = int(chunk_bytes)
        self.skip_bad_lines = bool(skip_bad_lines)
        self._reset_counts()

    def _reset_counts(self) -> None:
        self.n_examples = 0
        self.n_bad_lines = 0
        self.first_bad_line: BadLineError | None = None
        self.n_bytes = 0

    def __iter__(self) -> Iterator[Chunk]:
        """Chunks in file order. The next block is read and parsed in a background thread
        while the consumer works on the current one (the compiled parse and the training
        loop both release the GIL), so parsing and learning overlap on two cores."""
        self._reset_counts()
        handle, owned = open_source(self.source)
        blocks = iter_blocks(handle, self.chunk_bytes)

        def parse_next(line0: int):
            item = next(blocks, None)
            if item is None:
                return None
            buf, end, final = item
            return end, self._parse(buf, end, final, line0)

        try:
            with ThreadPoolExecutor(1, thread_name_prefix="olearn-read") as pool:
                pending = pool.submit(parse_next, 0)
                line0 = 0
                while True:
                    done = pending.result()
                    if done is None:
                        return
                    end, (chunk, lines, n_bad, error) = done
                    self.n_bytes += end
                    if n_bad:
                        if not self.skip_bad_lines:
                            raise error
                        if self.first_bad_line is None:
                            self.first_bad_line = error
                        self.n_bad_lines += n_bad
                    line0 += lines
                    pending = pool.submit(parse_next, line0)
                    if chunk is not None and chunk.y.shape[0]:
                        self.n_examples += chunk.y.shape[0]
                        yield chunk
        except (EOFError, OSError, lzma.LZMAError) as error:
            if isinstance(error, FileNotFoundError | PermissionError | IsADirectoryError):
                raise
            raise ValueError(f"{self.name}: cannot read: {error}") from error
        finally:
            if owned:
                handle.close()

    def _error(self, buf, line0: int, code: int, line: int, start: int, stop: int):
        token = bytes(buf[start:stop]).decode("utf-8", "replace")
        return BadLineError(self.name, line0 + line + 1, code, token, self._error_detail(code))

    def _error_detail(self, code: int) -> str:
        return ""

    def _parse(self, buf, end, final, line0):  # pragma: no cover - abstract
        """Return ``(chunk or None, lines consumed, n_bad, first error or None)``."""
        raise NotImplementedError
