"""Atomic file writes that respect the user's umask.

``tempfile.mkstemp`` creates files readable by their owner only (0600), and renaming one over
the target gives the result that mode: a model or prediction file nobody else can read, unlike
every other file the user creates. Here the temporary file is created with mode 0666, which the
kernel masks with the umask exactly as ``open(path, "w")`` would (0644 for the usual 022); a
file being replaced keeps its own mode instead.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import IO


def _create_temporary(path: Path) -> tuple[int, Path]:
    """A new, empty file beside ``path`` (same folder, so the final rename is atomic). An
    error names ``path``: the temporary name means nothing to the user."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    while True:
        tmp = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
        try:
            return os.open(tmp, flags, 0o666), tmp
        except FileExistsError:  # pragma: no cover - 48 random bits collided
            continue
        except OSError as error:  # a folder that cannot be written into, after all
            raise OSError(error.errno, error.strerror, os.fspath(path)) from error


@contextlib.contextmanager
def atomic_write(
    path: str | os.PathLike, *, text: bool = False, encoding: str = "utf-8"
) -> Iterator[IO]:
    """Write ``path`` all at once or not at all.

    The block writes to a temporary file in the same folder, created with the user's umask
    (or, when ``path`` exists, with that file's mode); on success it is flushed, ``fsync``-ed
    and renamed over ``path``; if the block raises, the temporary file is removed and ``path``
    is untouched. A symbolic link is followed (the file it names is replaced, the link
    stays); a device or pipe (``/dev/null``, ``/dev/stdout``) is written into directly.

    Parameters
    ----------
    path : str or path-like
        The file to (re)place.
    text : bool, default=False
        Yield a text stream (``encoding``) instead of a binary one.

    Examples
    --------
    >>> with atomic_write("predictions.txt", text=True) as out:  # doctest: +SKIP
    ...     out.write("1\\n")
    """
    try:
        with _writing(Path(path), text, encoding) as handle:
            yield handle
    except OSError as error:  # a full disk names no file: name the output
        if error.filename is None and error.errno in _FULL:
            raise OSError(error.errno, error.strerror, os.fspath(path)) from error
        raise


#: The errors of a write to a full disk, quota or file size limit.
_FULL = {errno.ENOSPC, errno.EFBIG, getattr(errno, "EDQUOT", errno.ENOSPC)}


@contextlib.contextmanager
def _writing(path: Path, text: bool, encoding: str) -> Iterator[IO]:
    if _special(path):  # /dev/null, /dev/stdout, a named pipe: written into, never replaced
        with open(path, "w" if text else "wb", encoding=encoding if text else None) as handle:
            yield handle
        return
    path = Path(os.path.realpath(path))  # through a symbolic link, as `>` writes: the link stays
    fd, tmp = _create_temporary(path)
    try:
        try:
            os.fchmod(fd, stat.S_IMODE(os.stat(path).st_mode))
        except FileNotFoundError:
            pass  # a new file: the umask applied at creation
        mode = "w" if text else "wb"
        with open(fd, mode, encoding=encoding if text else None, closefd=True) as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _sync_folder(path.parent)


def _special(path: Path) -> bool:
    """Whether ``path`` exists and is not a regular file (a device, a pipe, a socket): renaming
    a file over it would replace it (as root, /dev/null itself)."""
    try:
        return not stat.S_ISREG(os.stat(path).st_mode)
    except FileNotFoundError:
        return False


def _sync_folder(folder: Path) -> None:
    """Make a rename in ``folder`` durable (not every platform lets a folder be opened)."""
    try:
        fd = os.open(folder if str(folder) else ".", os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
