"""Lazy exports: a package names its public objects and the modules that define them, and a
module is imported only when one of its names is first used (``import olearn`` stays light)."""

from __future__ import annotations

import importlib
from collections.abc import Callable


def lazy_exports(
    package: str, namespace: dict, exports: dict[str, str], extra: tuple[str, ...] = ()
) -> tuple[Callable, Callable, list[str]]:
    """``(__getattr__, __dir__, __all__)`` for ``package`` whose ``exports`` map each public
    name to its defining module; the first access caches the object in ``namespace``."""
    public = sorted([*exports, *extra])

    def __getattr__(name: str):
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    def __dir__():
        return public

    return __getattr__, __dir__, public
