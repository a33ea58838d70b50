"""Lazy exports: a package names its public objects and the modules that define them, and a
module is imported only when one of its names is first used (``import olearn`` stays light).

A module that fails to import raises an :class:`ImportError` that names the export, the module
and the real error (Python would otherwise turn an AttributeError raised while importing into
"cannot import name"), plus any installed dependency older than olearn declares. Type checkers
read the exports from the package's ``__init__.pyi``.
"""

from __future__ import annotations

import importlib
import re
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
        value = getattr(_import(module, f"{package}.{name}"), name)
        namespace[name] = value
        return value

    def __dir__():
        return public

    return __getattr__, __dir__, public


def _import(module: str, export: str):
    from olearn._optional import MissingDependencyError, install_hint

    try:
        return importlib.import_module(module)
    except MissingDependencyError:
        raise
    except Exception as error:
        detail = f"{type(error).__name__}: {error}"
        hint = install_hint(getattr(error, "name", None))
        if isinstance(error, ModuleNotFoundError) and hint:
            detail += f" ({hint})"
        for problem in outdated_requirements():
            detail += f"; {problem}"
        raise ImportError(
            f"cannot import {export}: importing {module} failed with {detail}", name=module
        ) from error


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", text)[:3])


def outdated_requirements(distribution: str = "olearn") -> list[str]:
    """Installed dependencies older than the minimums ``distribution`` declares, e.g.
    ``["numba 0.61.2 is installed; olearn needs numba>=0.62"]`` (from its metadata)."""
    from importlib import metadata

    try:
        requirements = metadata.requires(distribution) or []
    except metadata.PackageNotFoundError:
        return []
    problems = []
    for requirement in requirements:
        match = re.fullmatch(r"([A-Za-z0-9_.-]+)\s*>=\s*([0-9.]+)", requirement.strip())
        if match is None:  # extras (``; extra == ...``) and other forms
            continue
        name, minimum = match.groups()
        try:
            installed = metadata.version(name)
        except metadata.PackageNotFoundError:
            problems.append(f"{name} is not installed; {distribution} needs {name}>={minimum}")
            continue
        if _version(installed) < _version(minimum):
            problems.append(
                f"{name} {installed} is installed; {distribution} needs {name}>={minimum}"
            )
    return problems
