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

import contextlib
import functools
import hashlib
import os
import struct
from pathlib import Path

import llvmlite
import numba
import numpy as np
from numba.core import caching
from numba.core.typing.typeof import Purpose
from numba.np import numpy_support

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


@functools.cache
def _is_ours(py_file: str) -> bool:
    try:
        return Path(py_file).resolve().is_relative_to(PACKAGE_DIR)
    except OSError:
        return False


#: Cache folders found writable in this process (numba checks each function's by creating a
#: file in it; olearn has a hundred functions in a dozen folders).
_writable: set[str] = set()


class _PackageStampMixin:
    """Cache entries of olearn functions are keyed by the whole package's sources."""

    def get_source_stamp(self):
        return source_stamp()

    def ensure_cache_path(self):
        path = self.get_cache_path()
        if path not in _writable or not os.path.isdir(path):
            super().ensure_cache_path()
            _writable.add(path)

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


def _install_save_guard() -> None:
    """A cache file numba cannot write for an olearn function (a full disk, a file size
    limit, a folder made read-only meanwhile) costs the cache only: numba's
    ``save_overload`` raises, which failed the ``fit`` that compiled, though the dispatcher
    holds the code already. For olearn's functions (those our locators place: the rules'
    plain ``numba.njit(cache=True)`` too), the error is one warning a process instead."""
    save = caching.FunctionCache.save_overload
    if getattr(save, "_olearn_guard", False):
        return

    @functools.wraps(save)
    def save_overload(self, sig, data):
        try:
            save(self, sig, data)
        except OSError as error:
            if not isinstance(getattr(self._impl, "locator", None), _PackageStampMixin):
                raise
            _warn_unwritable_cache(self._cache_path, error)

    save_overload._olearn_guard = True
    caching.FunctionCache.save_overload = save_overload


_warned_unwritable = False


def _warn_unwritable_cache(folder: str, error: OSError) -> None:
    global _warned_unwritable
    if _warned_unwritable:
        return
    _warned_unwritable = True
    import warnings

    reason = error.strerror or str(error)
    warnings.warn(
        f"could not write compiled code to olearn's cache in {folder} ({reason}): it is "
        "compiled again in each new process until the cache can be written "
        "(NUMBA_CACHE_DIR chooses the folder).",
        RuntimeWarning,
        stacklevel=2,
    )


_install_save_guard()


class _FunctionCache(caching.FunctionCache):
    """Numba's disk cache of a function, made cheap for a process that only loads.

    * Set up on first use: numba's finds the cache folder, checks it is writable (by creating
      a file) and reads the source stamp for every decorated function at import, most of which
      a given run never calls.
    * Loading skips the full refresh of numba's compilation contexts (importing and
      registering every implementation numba has, ≈ 0.1 s a process) that numba's
      ``load_overload`` runs first: linking machine code needs only the runtime (NRT) and the
      symbols the code refers to, which :func:`_prepare_link` provides. A compilation
      refreshes the contexts itself (numba's ``CompilerBase``), so a cache miss is unchanged.
    """

    def __init__(self, py_func):
        self._py_func = py_func
        self._name = repr(py_func)
        self._ready = False

    def __getattr__(self, name: str):
        if name.startswith("__") or self.__dict__.get("_ready", True):
            raise AttributeError(name)
        self._ready = True
        super().__init__(self._py_func)
        return getattr(self, name)

    def load_overload(self, sig, target_context):
        with self._guard_against_spurious_io_errors():
            return self._load_overload(sig, target_context)

    def _load_overload(self, sig, target_context):
        if not self._enabled:
            return None
        _initialize_runtime(target_context, self._cache_path)  # (before a compilation too)
        data = self._cache_file.load(self._index_key(sig, target_context.codegen()))
        if data is None:
            return None
        _prepare_link(target_context, data)
        return self._impl.rebuild(target_context, data)


def _prepare_link(target_context, payload) -> None:
    """What linking a cached compile result (numba's ``CompileResult._reduce`` payload) needs
    of this process besides the runtime: the hash secret when the code hashes. A payload of
    any other form gets numba's full refresh."""
    try:
        _, kind, (object_code, _) = payload[0]
        objectmode, reload_init = payload[4], payload[7]  # numba's parfors and object mode
        known = kind == "object" and isinstance(object_code, bytes)
        known = known and not objectmode and not reload_init
    except (TypeError, ValueError, IndexError):
        known = False
    if not known:
        target_context.refresh()
        return
    if b"_numba_hashsecret_" in object_code:
        import numba.cpython.hashing  # noqa: F401  (adds the hash secret's symbols)


#: The runtime module's file: this tag, then the library's name, its object code and its
#: bitcode for linking, each as a little-endian u64 length and its bytes (no pickle).
_RUNTIME_TAG = b"olearn-runtime-1\n"


def _runtime_bytes(state) -> bytes:
    """The file of numba's serialised library ``(name, "object", (object code, bitcode))``."""
    name, kind, (object_code, bitcode) = state
    if kind != "object":
        raise ValueError(f"cannot keep a library serialised as {kind!r}")
    parts = (name.encode(), bytes(object_code), bytes(bitcode))
    return _RUNTIME_TAG + b"".join(struct.pack("<Q", len(p)) + p for p in parts)


def _read_runtime(data: bytes):
    """``_runtime_bytes`` read back; ValueError when the file is not one, or is cut short."""
    if not data.startswith(_RUNTIME_TAG):
        raise ValueError("not an olearn runtime module")
    parts = []
    offset = len(_RUNTIME_TAG)
    for _ in range(3):
        (length,) = struct.unpack_from("<Q", data, offset)
        offset += 8
        if offset + length > len(data):
            raise ValueError("the runtime module is cut short")
        parts.append(data[offset : offset + length])
        offset += length
    if offset != len(data):
        raise ValueError("the runtime module has trailing bytes")
    return parts[0].decode(), "object", (parts[1], parts[2])


def _initialize_runtime(target_context, folder: str) -> None:
    """Numba's ``rtsys.initialize`` (the runtime's symbols and its small compiled module of
    reference counting and atomics), the module's machine code kept in ``folder`` beside the
    functions' cache: numba compiles it in every process, ≈ 20 ms of LLVM work."""
    from numba.core.compiler_lock import global_compiler_lock
    from numba.core.runtime import nrtdynmod, rtsys

    if rtsys._init:
        return
    compile_module = nrtdynmod.compile_nrt_functions

    def cached_module(context):
        codegen = context.codegen()
        key = hashlib.sha256(
            repr((numba.__version__, llvmlite.__version__, codegen.magic_tuple())).encode()
        ).hexdigest()[:16]
        path = Path(folder) / f"olearn-runtime-{key}.nbc"
        try:
            return codegen.unserialize_library(_read_runtime(path.read_bytes()))
        except (OSError, ValueError, TypeError, RuntimeError, struct.error):
            pass  # not there yet (or unreadable): compile and keep it
        module, library = nrtdynmod.create_nrt_module(context)  # as compile_nrt_functions
        library.enable_object_caching()
        library.add_ir_module(module)
        library.finalize()
        temporary = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            temporary.write_bytes(_runtime_bytes(library.serialize_using_object_code()))
            os.replace(temporary, path)
        except OSError:
            with contextlib.suppress(OSError):
                temporary.unlink()
        return library

    with global_compiler_lock:
        nrtdynmod.compile_nrt_functions = cached_module
        try:
            rtsys.initialize(target_context)
        finally:
            nrtdynmod.compile_nrt_functions = compile_module


def jit(func=None, **options):
    """``numba.njit`` with olearn's policy: cached on disk (:class:`_FunctionCache`), no
    fastmath (results must match the papers' arithmetic to the last bits the tests check),
    errors as exceptions."""
    options.setdefault("cache", os.environ.get("OLEARN_NO_CACHE") is None)
    options.setdefault("nogil", True)
    if func is None:
        return functools.partial(jit, **options)
    cache = options.pop("cache")
    dispatcher = numba.njit(**options)(func)
    if cache:
        dispatcher._cache = _FunctionCache(dispatcher.py_func)
    if isinstance(getattr(dispatcher, "_types_active_call", None), set):  # numba's bookkeeping
        dispatcher.typeof_pyval = _typeof_pyval(dispatcher)
    # Third-party numba extensions are initialised by every compilation (numba's target
    # context refresh): a call served from the cache need not scan the installed packages'
    # entry points (≈ 5-15 ms) before typing olearn's own arrays.
    dispatcher._compilation_chain_init_hook = _nothing
    return dispatcher


def _nothing() -> None:
    pass


def _typeof_pyval(dispatcher):
    """The dispatcher's ``typeof_pyval`` (the type of an argument at a first call, before
    looking for a compiled version): exact ``numpy.ndarray`` s, also inside plain tuples,
    typed as numba's own ``typeof`` does but without importing ``numpy.ma`` (for its
    MaskedArray check, which an exact ndarray passes; the import takes 20-40 ms). Anything
    else, and anything numba would refuse: numba's."""
    generic = dispatcher.typeof_pyval

    def typeof_pyval(value):
        if type(value) is not np.ndarray and type(value) is not tuple:
            return generic(value)
        try:
            numba_type = _numba_type(value)
        except Exception:  # noqa: BLE001 - numba's own typeof says what is unsupported
            return generic(value)
        dispatcher._types_active_call.add(numba_type)
        return numba_type

    return typeof_pyval


def _numba_type(value):
    if type(value) is np.ndarray:
        return numba.types.Array(
            numpy_support.from_dtype(value.dtype),
            value.ndim,
            numpy_support.map_layout(value),
            readonly=not value.flags.writeable,
        )
    if type(value) is tuple:
        return numba.types.BaseTuple.from_types([_numba_type(v) for v in value], tuple)
    numba_type = numba.typeof(value, Purpose.argument)
    if numba_type is None:
        raise ValueError(f"no numba type for {value!r}")
    return numba_type


# A one-line notice before a first compilation (olearn/_notice.py; costs nothing when cached).
_notice.install()
