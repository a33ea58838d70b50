"""Streaming text input in bounded memory: sources, compression, blocks of whole lines.

A reader reads its source in blocks of ``chunk_bytes / threads`` bytes (``chunk_bytes``
defaults to 8 MiB, ``threads`` to 2) into a few reused buffers, cuts each block after its last
newline (the rest is carried to the next block), and hands the complete lines to a compiled
parse loop. ``threads`` blocks are parsed at once (the compiled loops release the GIL) while
another thread reads ahead; chunks still come out in file order, one a block, and at most
``threads + 1`` blocks are read but not yet consumed, so memory stays proportional to
``chunk_bytes`` whatever the size of the input or the number of threads. A line that outgrows
its block is read on, but not beyond ``max_line_bytes`` (default 256 MiB): then it is an error
naming it, so an input without newlines (``/dev/zero``) cannot exhaust memory. Compression
(gzip, bzip2, xz) is recognised by the first bytes, not the file name, so it also works on
standard input (``"-"``). A UTF-8 byte-order mark at the start of the text is skipped.

A plain file larger than a block is not read into buffers: it is mapped (copy-on-write, never
written) and its blocks are parsed where the page cache holds them, as it was when opened.

A pipe, terminal or socket is read as its data arrives: a block is cut as soon as it holds a
complete line and nothing more is ready, so ``producer | olearn train -`` learns from the
first lines at once instead of waiting for a full block.

Nothing here imports SciPy: a :class:`Chunk` holds the CSR arrays and builds the
``scipy.sparse`` matrix only when ``chunk.X`` is first read.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import mmap
import os
import queue
import select
import stat
import sys
import threading
import zlib
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import wait as wait_for
from contextlib import contextmanager
from typing import IO

import numpy as np

from olearn.io import _errors as E
from olearn.io._errors import BadLineError

#: Default block size of the readers, bytes.
DEFAULT_CHUNK_BYTES = 8 << 20

#: Blocks parsed at once (the parse loops release the GIL).
DEFAULT_THREADS = 2

#: Longest line the readers accept, bytes (a longer one is an error, not an allocation).
DEFAULT_MAX_LINE_BYTES = 256 << 20

_MAGIC = (
    (b"\x1f\x8b", gzip.GzipFile),
    (b"BZh", bz2.BZ2File),
    (b"\xfd7zXZ\x00", lzma.LZMAFile),
)

_FIELDS = ("X", "y", "sample_weight", "qid", "first_line")


class Chunk:
    """A block of examples in CSR form.

    Attributes
    ----------
    data, indices, indptr : ndarray
        The CSR arrays (float64 values, int32 column indices sorted within each row, int32
        row pointers of length ``n_rows + 1``), usable without SciPy.
    n_features : int
        The width of the rows.
    y : ndarray of float64
        The labels.
    sample_weight : ndarray of float64
        Importance weights, one per row (1.0 where the input gives none).
    qid : ndarray or None
        Query ids (svmlight with ``query_id=True``), else None.
    first_line : int
        The 1-based line number of the block's first line in its file.
    skipped_before : ndarray of int64
        Where the malformed lines skipped (``skip_bad_lines``) fell among the rows: for each,
        in file order, the index of the row it came before (``n_rows`` after the last row).
        ``np.insert(predictions, chunk.skipped_before, np.nan, axis=0)`` puts a row back per
        skipped line. Empty when nothing was skipped.
    X : scipy.sparse.csr_matrix
        ``(data, indices, indptr)`` of shape ``(n_rows, n_features)``, built (and SciPy
        imported) on first access.

    For code written against the former named tuple, a chunk still unpacks and indexes as
    ``(X, y, sample_weight, qid, first_line)``.
    """

    __slots__ = (
        "data",
        "indices",
        "indptr",
        "n_features",
        "y",
        "sample_weight",
        "qid",
        "first_line",
        "skipped_before",
        "_X",
    )

    def __init__(
        self,
        data: np.ndarray,
        indices: np.ndarray,
        indptr: np.ndarray,
        n_features: int,
        y: np.ndarray,
        sample_weight: np.ndarray | None = None,
        qid: np.ndarray | None = None,
        first_line: int = 1,
        skipped_before: np.ndarray | None = None,
    ):
        self.data = data
        self.indices = indices
        self.indptr = indptr
        self.n_features = int(n_features)
        self.y = y
        self.sample_weight = np.ones(y.shape[0]) if sample_weight is None else sample_weight
        self.qid = qid
        self.first_line = int(first_line)
        self.skipped_before = np.zeros(0, np.int64) if skipped_before is None else skipped_before
        self._X = None

    @property
    def n_rows(self) -> int:
        return int(self.y.shape[0])

    @property
    def X(self):
        if self._X is None or self._X.shape[1] != self.n_features:
            import scipy.sparse as sp

            self._X = sp.csr_matrix(
                (self.data, self.indices, self.indptr), shape=(self.n_rows, self.n_features)
            )
        return self._X

    def __iter__(self):
        return iter(tuple(getattr(self, name) for name in _FIELDS))

    def __len__(self) -> int:
        return len(_FIELDS)

    def __getitem__(self, index):
        return tuple(getattr(self, name) for name in _FIELDS)[index]

    def __repr__(self) -> str:
        return (
            f"Chunk(n_rows={self.n_rows}, n_features={self.n_features}, "
            f"nnz={self.data.shape[0]}, first_line={self.first_line})"
        )


def source_name(source) -> str:
    if isinstance(source, str | os.PathLike):
        return "<stdin>" if os.fspath(source) == "-" else os.fspath(source)
    name = getattr(source, "name", None)
    return name if isinstance(name, str) else "<stream>"


class LineTooLong(ValueError):
    """A line of more than ``limit`` bytes (raised by :func:`parallel_blocks` in file order,
    before the line is read whole); ``head`` holds its first bytes."""

    def __init__(self, limit: int, head: bytes):
        self.limit = limit
        self.head = head
        super().__init__(f"a line longer than {limit} bytes")


#: What a damaged input raises while it is read: a truncated stream (EOFError), a bad gzip
#: header or CRC (OSError), corrupt deflate data (zlib.error: not an OSError), xz/bz2 data.
READ_ERRORS = (EOFError, OSError, lzma.LZMAError, zlib.error)


@contextmanager
def read_errors(name: str):
    """Input that cannot be read (a truncated or corrupt compressed file, an I/O error) as
    ``ValueError("NAME: cannot read: ...")``; a missing or unreadable file stays an
    ``OSError`` naming it."""
    try:
        yield
    except READ_ERRORS as error:
        if isinstance(error, FileNotFoundError | PermissionError | IsADirectoryError):
            raise
        raise ValueError(f"{name}: cannot read: {error}") from error


def line_error(name: str, line: int, error: LineTooLong) -> BadLineError:
    """The error a reader raises for ``error`` at 1-based ``line`` of ``name``."""
    token = error.head.decode("utf-8", "replace")
    return BadLineError(name, line, E.LINE_TOO_LONG, token, f"({error.limit} bytes)")


#: Containers and compressions that are not read, by their first bytes: an error naming
#: them instead of their bytes parsed as a first label. (``ustar`` sits at offset 257.)
_NOT_READ = (
    (0, b"\x28\xb5\x2f\xfd", "zstd-compressed data", "zstd -dc"),
    (0, b"\x04\x22\x4d\x18", "lz4-compressed data", "lz4 -dc"),
    (0, b"\x1f\x9d", "compress (.Z) data", "gzip -dc"),
    (0, b"PK\x03\x04", "a zip archive", "unzip -p"),
    (0, b"7z\xbc\xaf\x27\x1c", "a 7z archive", "7z x -so"),
    (0, b"Rar!\x1a\x07", "a rar archive", "unrar p -inul"),
    (257, b"ustar", "a tar archive", "tar -xOf"),
    (0, b"\xff\xfe", "UTF-16 text", "iconv -f UTF-16 -t UTF-8"),  # Notepad's "Unicode"
    (0, b"\xfe\xff", "UTF-16 text", "iconv -f UTF-16 -t UTF-8"),
)


#: The first bytes of an olearn model file (``model_file.MAGIC`` without its version byte).
_MODEL_MAGIC = b"OLEARN\x00"


def _refuse_unread_formats(handle, name: str) -> None:
    head = handle.peek(512)[:512]
    if head.startswith(_MODEL_MAGIC):  # e.g. `olearn train pa model.olm data.svm -o ...`
        raise ValueError(f"{name}: an olearn model file, not data")
    for offset, magic, what, command in _NOT_READ:
        if head[offset : offset + len(magic)] == magic:
            raise ValueError(
                f"{name}: {what}, which olearn does not read (it reads UTF-8 text, plain or "
                f"compressed by gzip, bzip2 or xz): convert it first, e.g. "
                f"{command} FILE | olearn ... -"
            )


def open_source(source, name: str | None = None) -> tuple[IO[bytes], bool]:
    """Open a path, ``"-"`` (standard input) or a binary file object for reading, with
    transparent decompression. Returns ``(handle, we_opened_it)``. Another compression or
    an archive is a ValueError naming it and ``name`` (default: the source's)."""
    path = None
    if isinstance(source, str | os.PathLike) and os.fspath(source) != "-":
        raw = open(source, "rb")  # noqa: SIM115 - closed by the caller
        owned, path = True, source
    elif isinstance(source, str | os.PathLike):
        raw, owned = _standard_input()
    else:
        raw, owned = source, False
    if not hasattr(raw, "peek"):
        raw = io.BufferedReader(raw)
    head = raw.peek(6)[:6]
    kind = next((kind for magic, kind in _MAGIC if head.startswith(magic)), None)
    if kind is None:
        handle = raw
    elif path is not None and stat.S_ISREG(os.fstat(raw.fileno()).st_mode):
        # opened again by the decompressor, which then closes it (one given a file object
        # leaves it open: a descriptor leaked per input in a long-running olearn serve); a
        # pipe cannot be opened again
        raw.close()
        handle = raw = kind(path)
    else:
        handle = gzip.GzipFile(fileobj=raw) if kind is gzip.GzipFile else kind(raw)
    try:
        _refuse_unread_formats(handle, source_name(source) if name is None else name)
    except BaseException:  # (also a truncated stream's EOFError: close what was opened)
        if handle is not raw:
            handle.close()
        if owned:
            raw.close()
        raise
    return _skip_bom(handle), owned or handle is not raw


#: The UTF-8 byte-order mark that Excel ("CSV UTF-8") and Notepad write at the start of text.
UTF8_BOM = b"\xef\xbb\xbf"


def _skip_bom(handle):
    """``handle`` past a UTF-8 byte-order mark at its start (as Python's ``utf-8-sig`` and
    pandas read it): it is no part of the first label. Elsewhere it stays an error."""
    if handle.peek(len(UTF8_BOM))[: len(UTF8_BOM)] == UTF8_BOM:
        handle.read(len(UTF8_BOM))
    return handle


def check_line_ends(handle, name: str) -> None:
    """Refuse text whose lines end in a lone carriage return (classic Mac OS, Excel's
    "CSV (Macintosh)"): both formats read a CR as a space, so the whole input would be one
    line, silently one example of VW-style input. Judged on what ``handle`` holds buffered
    (its first bytes): carriage returns, one followed by something else than a newline,
    and no newline at all."""
    head = handle.peek(1 << 16)[: 1 << 16]
    lone = head.find(b"\r", 0, len(head) - 1)
    while lone >= 0 and head[lone + 1 : lone + 2] == b"\n":
        lone = head.find(b"\r", lone + 1, len(head) - 1)
    if lone >= 0 and b"\n" not in head:
        raise ValueError(
            f"{name}:1: lines end in a lone carriage return (classic Mac OS), not a line end "
            "here: convert them first (e.g. tr '\\r' '\\n')"
        )


def _standard_input() -> tuple[IO[bytes], bool]:
    """Standard input as a file object of our own over a duplicate of its descriptor: a
    reader thread still waiting on a pipe when the process ends then holds no lock that
    the interpreter needs to close ``sys.stdin`` (which would abort it)."""
    try:
        return open(os.dup(sys.stdin.fileno()), "rb"), True  # noqa: SIM115 - closed by the caller
    except (AttributeError, OSError, ValueError):  # no descriptor (e.g. replaced in tests)
        return sys.stdin.buffer, False


def _fill(handle, view: memoryview) -> int:
    """Read into ``view`` until it is full or the input ends; the number of bytes read."""
    readinto = getattr(handle, "readinto", None)
    filled = 0
    while filled < len(view):
        if readinto is not None:
            got = readinto(view[filled:])
        else:
            data = handle.read(len(view) - filled)
            got = len(data)
            view[filled : filled + got] = data
        if not got:
            break
        filled += got
    return filled


def stream_descriptor(handle) -> int | None:
    """The file descriptor behind ``handle`` if it is a pipe, terminal or socket (data
    arrives over time: read what is there), None for a regular file or an in-memory stream
    (read whole blocks)."""
    try:
        fd = handle.fileno()
        mode = os.fstat(fd).st_mode
    except (AttributeError, OSError, ValueError):
        return None
    return None if stat.S_ISREG(mode) else fd


#: Blocks of a mapped file parsed ahead beyond one a thread: while the consumer is busy
#: (the first chunk's model set-up takes ~60 ms), the threads go on parsing (5 % off a 424 MB
#: train). Only their chunks take memory (no buffers).
MAPPED_AHEAD = 4

#: How a mapped block's pages are let go once parsed (None where mmap cannot).
_DONTNEED = getattr(mmap, "MADV_DONTNEED", None) if hasattr(mmap.mmap, "madvise") else None


def _mapped(handle, chunk_bytes: int) -> tuple[mmap.mmap, int] | None:
    """``(map of the file, position)`` when ``handle`` is a plain regular file (no
    decompression) holding more than one block from its position on: its blocks are then
    parsed where the page cache holds them, without copying them into buffers (7 % of the
    CPU time of a train on a 424 MB file). The map is copy-on-write (the parse loops take
    writable arrays) and never written. The file is read as it was when opened."""
    if type(handle) is not io.BufferedReader or not isinstance(handle.raw, io.FileIO):
        return None
    try:
        fd = handle.fileno()
        size = os.fstat(fd).st_size
        position = handle.tell()
        if not stat.S_ISREG(os.fstat(fd).st_mode) or size - position <= chunk_bytes:
            return None
        return mmap.mmap(fd, 0, access=mmap.ACCESS_COPY), position
    except (OSError, ValueError):
        return None


def _ready(fd: int) -> bool:
    """Whether reading ``fd`` would return at once."""
    try:
        return bool(select.select([fd], [], [], 0)[0])
    except (OSError, ValueError):
        return True


def read_available(handle, view: memoryview) -> int:
    """Read into ``view`` what ``handle`` holds, waiting only when it holds nothing (then
    for one read of the underlying stream); 0 at the end of the input. Unlike ``readinto1``
    of a buffered reader, it never waits for more once it has something."""
    peek = getattr(handle, "peek", None)
    if peek is not None:
        ready = len(peek(1))  # what is buffered, or one read of the stream if nothing is
        return handle.readinto(view[: min(ready, len(view))]) if ready else 0
    read1 = getattr(handle, "readinto1", None)
    if read1 is not None:
        return read1(view)
    data = handle.read1(len(view))
    view[: len(data)] = data
    return len(data)


def _fill_arrived(handle, buffer: bytearray, start: int, stop: int, fd: int) -> int:
    """Read into ``buffer[start:stop]`` what a stream has to give: wait for the first data,
    then go on while more is ready at once, and stop early once a complete line is in (0:
    the input has ended)."""
    view = memoryview(buffer)
    filled = start
    while filled < stop:
        got = read_available(handle, view[filled:stop])
        if not got:
            break
        filled += got
        if buffer.find(b"\n", start, filled) >= 0 and not _ready(fd):
            break
    return filled - start


def parallel_blocks(
    handle: IO[bytes],
    chunk_bytes: int,
    work: Callable[[np.ndarray, int, bool], object],
    *,
    threads: int = DEFAULT_THREADS,
    first_alone: bool = False,
    undecided: Callable[[], bool] | None = None,
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
) -> Iterator[tuple[int, object]]:
    """``work(buffer, end, final)`` on each block of whole lines of ``handle``, on
    ``threads`` threads at once; yields ``(end, result)`` in file order.

    ``buffer[:end]`` is a run of complete lines, or (``final``) the input's remaining lines of
    which the last may lack its newline. ``buffer`` is reused once ``work`` returns, so
    ``work`` must copy anything it keeps. A thread reads ahead into at most ``threads + 1``
    buffers; at most ``threads + 1`` blocks are read but not yet yielded (a mapped file,
    ``_mapped``, has no buffers: ``threads + MAPPED_AHEAD`` blocks, parsed, may wait). With
    ``first_alone`` the first block's work finishes before any other block's starts (it may
    decide how the rest is parsed); so does each later block's while ``undecided()`` is true
    after the blocks before it (a first block that could not decide). A pipe or terminal
    gives blocks as lines arrive (``stream_descriptor``). Read errors, and
    :class:`LineTooLong` for a line beyond ``max_line_bytes``, are raised in file order,
    after the results of the blocks before them.
    """
    fd = stream_descriptor(handle)
    mapped = _mapped(handle, chunk_bytes) if fd is None else None
    depth = threads + (MAPPED_AHEAD if mapped is not None else 1)
    slots = threading.Semaphore(depth)
    free: queue.SimpleQueue = queue.SimpleQueue()
    for _ in range(depth):
        free.put(None)  # allocated on first use
    out: queue.SimpleQueue = queue.SimpleQueue()
    stop = threading.Event()

    def run(buffer: bytearray, end: int, final: bool):
        try:
            return work(np.frombuffer(buffer, np.uint8), end, final)
        finally:
            free.put(buffer)

    def take_slot() -> bool:
        """Room for one more block in flight; False once the consumer has left."""
        while not stop.is_set():
            if slots.acquire(timeout=0.1):
                return True
        return False

    def take_free() -> bytearray | None | bool:
        """A free buffer (None: not yet allocated), or False once the consumer has left."""
        if not take_slot():
            return False
        while not stop.is_set():
            try:
                return free.get(timeout=0.1)
            except queue.Empty:
                pass
        return False

    def read(buffer: bytearray, start: int) -> tuple[int, bool]:
        """Read up to ``chunk_bytes`` into ``buffer[start:]``: ``(bytes read, input ended)``."""
        stop = start + chunk_bytes
        if fd is None:
            got = _fill(handle, memoryview(buffer)[start:stop])
            return got, got < chunk_bytes
        got = _fill_arrived(handle, buffer, start, stop, fd)
        return got, got == 0

    def read_ahead(pool: ThreadPoolExecutor) -> None:
        carry = b""
        gate: Future | None = None
        first = True
        try:
            while True:
                buffer = take_free()
                if buffer is False:
                    return
                n = len(carry)
                if buffer is None or len(buffer) < n + chunk_bytes:
                    buffer = bytearray(n + chunk_bytes)
                view = memoryview(buffer)
                view[:n] = carry
                got, final = read(buffer, n)
                total = n + got
                end = total if final else buffer.rfind(b"\n", n, total) + 1
                while end == 0 and not final:  # a line longer than a block: read on
                    if total >= max_line_bytes:  # checked before the line grows further
                        raise LineTooLong(max_line_bytes, bytes(view[:24]))
                    if len(buffer) < total + chunk_bytes:
                        size = min(
                            max(2 * total, total + chunk_bytes), max_line_bytes + chunk_bytes
                        )
                        larger = bytearray(size)
                        larger[:total] = view[:total]
                        buffer, view = larger, memoryview(larger)
                    got, final = read(buffer, total)
                    end = total + got if final else buffer.rfind(b"\n", total, total + got) + 1
                    total += got
                if total == 0:  # the input ended on a block boundary
                    out.put(None)
                    return
                carry = bytes(view[end:total])
                if gate is not None:
                    wait_for([gate])  # the first block decides how the others are parsed
                    gate = None
                future = pool.submit(run, buffer, end, final)
                if first_alone and (first or (undecided is not None and undecided())):
                    gate = future
                first = False
                out.put((end, future))
                if final:
                    out.put(None)
                    return
        except BaseException as error:  # raised to the consumer in file order
            out.put(error)

    def parse_mapped(data: mmap.mmap, whole: np.ndarray, start: int, end: int, final: bool):
        try:
            return work(whole[start:end], end - start, final)
        finally:
            # Its pages are let go once parsed (the page cache keeps them): the process's
            # resident memory stays that of a few blocks, not of the file. A page shared
            # with the next block is let go by that block (if this one still reads it, it
            # is mapped again, the same bytes).
            first, last = start - start % mmap.PAGESIZE, end - end % mmap.PAGESIZE
            if last > first and _DONTNEED is not None:
                data.madvise(_DONTNEED, first, last - first)

    def cut_mapped(pool: ThreadPoolExecutor, data: mmap.mmap, start: int) -> None:
        """``read_ahead`` over a mapped file: blocks are views of the map, cut after their
        last newline; nothing is copied."""
        size = len(data)
        whole = np.frombuffer(data, np.uint8)
        gate: Future | None = None
        try:
            while start < size:
                if not take_slot():
                    return
                stop_at = min(start + chunk_bytes, size)
                end = size if stop_at == size else data.rfind(b"\n", start, stop_at) + 1
                if end == 0:  # a line longer than a block: to its newline, within the limit
                    limit = min(size, start + max_line_bytes)
                    end = data.find(b"\n", stop_at, limit) + 1
                    if end == 0:
                        if limit < size:
                            raise LineTooLong(max_line_bytes, bytes(data[start : start + 24]))
                        end = size
                if gate is not None:
                    wait_for([gate])  # the first block decides how the others are parsed
                    gate = None
                future = pool.submit(parse_mapped, data, whole, start, end, end == size)
                if first_alone and (start == mapped[1] or (undecided is not None and undecided())):
                    gate = future
                out.put((end - start, future))
                start = end
            out.put(None)
        except BaseException as error:  # raised to the consumer in file order
            out.put(error)

    if mapped is not None:
        target, arguments = cut_mapped, (mapped[0], mapped[1])
    else:
        target, arguments = read_ahead, ()
    with ThreadPoolExecutor(threads, thread_name_prefix="olearn-parse") as pool:
        reader = threading.Thread(
            target=target, args=(pool, *arguments), name="olearn-read", daemon=True
        )
        reader.start()
        try:
            while True:
                item = out.get()
                if item is None:
                    return
                if isinstance(item, BaseException):
                    raise item
                end, future = item
                result = future.result()
                slots.release()
                yield end, result
        finally:
            stop.set()
            # A reader blocked on a pipe (waiting for input that may never come) cannot be
            # interrupted: it is a daemon thread, left to end with its read.
            reader.join(timeout=None if fd is None else 1.0)
            pool.shutdown(wait=True, cancel_futures=True)
            if mapped is not None:
                handle.seek(len(mapped[0]))  # where reading it would have left it
                try:
                    mapped[0].close()
                except BufferError:  # a block still viewed (an error's traceback): unmapped
                    pass  # once that view is gone


class LineReader:
    """Base of the text readers: iteration over :class:`Chunk` s and bad-line accounting.

    After (or during) iteration: ``n_examples``, ``n_bad_lines``, ``first_bad_line`` (the
    :class:`~olearn.io.BadLineError` of the first skipped line, or None), ``n_bytes`` (input
    bytes after decompression). Every skipped line has its place in the chunks'
    ``skipped_before`` (those of blocks without any example go to the next chunk's start),
    except those after the last example: after iteration, ``n_trailing_bad_lines``.

    ``threads`` blocks of ``chunk_bytes / threads`` bytes are parsed at once (default 2); 1
    still reads ahead and parses the next block while the consumer works on the current one.
    A line that outgrows its block and ``max_line_bytes`` is an error naming it. ``name`` is
    the source's name in error messages (default: the path, ``<stdin>`` for ``"-"``, a file object's
    ``name``).
    """

    #: Whether the first block must be parsed before any other (it decides something).
    _first_block_alone = False
    #: With ``_first_block_alone``: whether a block read so far has not decided yet, so that
    #: the next one must be parsed alone too (None: the first block always decides).
    _undecided = None

    def __init__(
        self,
        source,
        *,
        chunk_bytes: int = DEFAULT_CHUNK_BYTES,
        skip_bad_lines: bool = False,
        threads: int = DEFAULT_THREADS,
        max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
        name: str | None = None,
    ):
        if chunk_bytes < 1:
            raise ValueError(f"chunk_bytes must be positive, got {chunk_bytes}")
        if int(threads) < 1:
            raise ValueError(f"threads must be positive, got {threads}")
        if int(max_line_bytes) < 1:
            raise ValueError(f"max_line_bytes must be positive, got {max_line_bytes}")
        self.source = source
        self.name = source_name(source) if name is None else str(name)
        self.chunk_bytes = int(chunk_bytes)
        self.skip_bad_lines = bool(skip_bad_lines)
        self.threads = int(threads)
        self.max_line_bytes = int(max_line_bytes)
        self._reset_counts()

    def _reset_counts(self) -> None:
        self.n_examples = 0
        self.n_bad_lines = 0
        self.n_trailing_bad_lines = 0
        self.first_bad_line: BadLineError | None = None
        self.n_bytes = 0

    def __iter__(self) -> Iterator[Chunk]:
        """Chunks in file order. Blocks are read and parsed in background threads while the
        consumer works on the current chunk (the compiled parse and the training loop both
        release the GIL), so parsing and learning overlap."""
        self._reset_counts()
        self._local = threading.local()  # each parse thread's work arrays
        blocks = None
        line0 = 0
        with read_errors(self.name):
            handle, owned = open_source(self.source, self.name)
        try:
            check_line_ends(handle, self.name)
            blocks = parallel_blocks(
                handle,
                self.block_bytes,
                self._parse,
                threads=self.threads,
                first_alone=self._first_block_alone,
                undecided=self._undecided,
                max_line_bytes=self.max_line_bytes,
            )
            for end, (chunk, lines, n_bad, bad, extra) in blocks:
                self.n_bytes += end
                if n_bad:
                    code, line, token = bad
                    error = BadLineError(
                        self.name, line0 + line + 1, code, token, self._error_detail(code)
                    )
                    if not self.skip_bad_lines:
                        raise error
                    if self.first_bad_line is None:
                        self.first_bad_line = error
                    self.n_bad_lines += n_bad
                if chunk is not None:
                    chunk.first_line = line0 + 1
                    self._in_order(chunk, extra)
                line0 += lines
                if chunk is not None and chunk.y.shape[0]:
                    if self.n_trailing_bad_lines:  # skipped in blocks without examples
                        ahead = np.zeros(self.n_trailing_bad_lines, np.int64)
                        chunk.skipped_before = np.concatenate([ahead, chunk.skipped_before])
                        self.n_trailing_bad_lines = 0
                    self.n_examples += chunk.y.shape[0]
                    yield chunk
                elif chunk is not None:
                    self.n_trailing_bad_lines += chunk.skipped_before.shape[0]
        except LineTooLong as error:
            raise line_error(self.name, line0 + 1, error) from None
        except READ_ERRORS as error:
            if isinstance(error, FileNotFoundError | PermissionError | IsADirectoryError):
                raise
            raise ValueError(f"{self.name}: cannot read: {error}") from error
        finally:
            if blocks is not None:
                blocks.close()  # stops the threads before the handle they read is closed
            if owned:
                handle.close()

    def parse_bytes(self, data: bytes | bytearray) -> Chunk:
        """Parse ``data`` (whole lines held in memory, such as an HTTP request body) as one
        chunk, in the calling thread: no read-ahead threads, so a small input costs only the
        compiled parse. Errors and ``n_examples`` as iteration gives them; the source ignored.
        Each calling thread keeps its work arrays (sized by ``chunk_bytes / threads``, grown
        as needed) from call to call."""
        self._reset_counts()
        if not hasattr(self, "_local"):
            self._local = threading.local()
        buf = np.frombuffer(bytearray(data), np.uint8)  # writable: the parse loops' type
        chunk, _, n_bad, bad, extra = self._parse(buf, buf.shape[0], True)
        if n_bad:
            code, line, token = bad
            error = BadLineError(self.name, line + 1, code, token, self._error_detail(code))
            if not self.skip_bad_lines:
                raise error
            self.first_bad_line, self.n_bad_lines = error, n_bad
        chunk.first_line = 1
        self._in_order(chunk, extra)
        self.n_bytes = buf.shape[0]
        self.n_examples = chunk.y.shape[0]
        return chunk

    @property
    def block_bytes(self) -> int:
        """Input bytes a block (a chunk) covers: ``chunk_bytes`` shared by the threads."""
        return max(1, self.chunk_bytes // self.threads)

    @staticmethod
    def _bad_token(buf, n_bad: int, code: int, line: int, start: int, stop: int):
        """``(code, line within the block, token)`` of a block's first bad line (copied out
        of the buffer, which is reused), or None."""
        if not n_bad:
            return None
        return int(code), int(line), bytes(buf[start:stop]).decode("utf-8", "replace")

    def _work(self, make):
        """This thread's work arrays for the parse loop (``make(block_bytes)`` the first
        time): reused from block to block, so a block's only new memory is its chunk."""
        work = getattr(self._local, "work", None)
        if work is None:
            work = make(self.block_bytes)
        return work

    def _keep(self, work) -> None:
        self._local.work = work

    def _in_order(self, chunk: Chunk, extra) -> None:
        """Called on each chunk in file order, before it is yielded."""

    def _error_detail(self, code: int) -> str:
        return ""

    def _parse(self, buf, end, final):  # pragma: no cover - abstract
        """Parse ``buf[:end]`` (in a worker thread). Return ``(chunk or None, lines consumed,
        n_bad, _bad_token(...), extra)``; ``extra`` is passed to :meth:`_in_order`."""
        raise NotImplementedError
