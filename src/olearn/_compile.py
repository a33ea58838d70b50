"""The one compilation and caching policy of olearn.

Dispatch: the compiled loop selects the rule, representation and task by small integer
codes (``olearn.engine``). We measured the three mechanisms numba offers (ARCHITECTURE.md):

* jitted functions passed as arguments inline best but are never served from the disk
  cache in a second process, so every process would pay the full compile;
* first-class function types cache, but cost 5–23 % per example through an indirect call;
* an integer switch caches *and* inlines (the branch is perfectly predicted inside a loop),
  and it compiles the whole engine once per input type instead of once per rule.

The switch's one weakness is numba's cache key: an entry is invalidated only when the file
that *defines* the cached function changes, so editing ``rules/pa.py`` would leave the loop
in ``engine.py`` serving the old rule from cache. We close that hole here: every function of
this package is cached with a source stamp that hashes *all* the package's compiled source
files, so any edit to any of them invalidates every entry.
"""

from __future__ import annotations

import functools
import hashlib
import os
from pathlib import Path

import numba
from numba.core import caching

from olearn import _notice

PACKAGE_DIR = Path(__file__).resolve().parent
# Folders (and files) whose code runs inside compiled loops.
_COMPILED_SOURCES = ("rules", "representations", "tasks", "kernels", "structured", "io")
_COMPILED_FILES = ("engine.py", "_compile.py", "_layout.py", "evaluation/_grid.py")


@functools.cache
def source_stamp() -> str:
    """Hash of every source file that compiled code of olearn may depend on."""
    digest = hashlib.sha256(numba.__version__.encode())
    files = [PACKAGE_DIR / name for name in _COMPILED_FILES]
    for folder in _COMPILED_SOURCES:
        files.extend(sorted((PACKAGE_DIR / folder).glob("**/*.py")))
    for path in files:
        if path.is_file():
            digest.update(path.relative_to(PACKAGE_DIR).as_posix().encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def _is_ours(py_file: str) -> bool:
    try:
        return Path(py_file).resolve().is_relative_to(PACKAGE_DIR)
    except OSError:
        return False


class _PackageStampMixin:
    """Cache entries of olearn functions are keyed by the whole package's sources."""

    def get_source_stamp(self):
        return source_stamp()

    @classmethod
    def from_function(cls, py_func, py_file):
        if not _is_ours(py_file):
            return None
        return super().from_function(py_func, py_file)


class _UserProvidedLocator(_PackageStampMixin, caching.UserProvidedCacheLocator):
    pass


class _InTreeLocator(_PackageStampMixin, caching.InTreeCacheLocator):
    pass


class _UserWideLocator(_PackageStampMixin, caching.UserWideCacheLocator):
    pass


def _install_locators() -> None:
    classes = caching.CacheImpl._locator_classes
    if _InTreeLocator not in classes:
        # Same places as numba's own (NUMBA_CACHE_DIR, __pycache__, user cache), our stamp.
        classes[0:0] = [_UserProvidedLocator, _InTreeLocator, _UserWideLocator]


_install_locators()


def jit(func=None, **options):
    """``numba.njit`` with olearn's policy: cached on disk, no fastmath (results must match
    the papers' arithmetic to the last bits the tests check), errors as exceptions."""
    options.setdefault("cache", os.environ.get("OLEARN_NO_CACHE") is None)
    options.setdefault("nogil", True)
    if func is None:
        return functools.partial(jit, **options)
    return numba.njit(**options)(func)


# A one-line notice before a first compilation (olearn/_notice.py; costs nothing when cached).
_notice.install()
