"""Optional dependencies: the extra that installs each, and a one-line error that says so.

A missing optional package is an :class:`ImportError` whose message names the feature, the
package and the install command (``pip install 'olearn[plot]'``); the command line prints that
line alone, without a traceback.
"""

from __future__ import annotations

import importlib
from types import ModuleType

#: top-level module -> (distribution to install, olearn extra that brings it)
OPTIONAL = {
    "matplotlib": ("matplotlib", "plot"),
    "PIL": ("pillow", "plot"),
    "tqdm": ("tqdm", "progress"),
    "river": ("river", "data"),
    "mlxtend": ("mlxtend", "data"),
    "pandas": ("pandas", "data"),
    "dask": ("dask", "distributed"),
    "distributed": ("dask", "distributed"),
}


class MissingDependencyError(ImportError):
    """An optional package is not installed; the message says which extra installs it."""


def install_hint(module: str | None) -> str | None:
    """``pip install 'olearn[extra]'`` for an optional module (dotted names allowed)."""
    entry = OPTIONAL.get((module or "").partition(".")[0])
    return None if entry is None else f"pip install 'olearn[{entry[1]}]'"


def require(module: str, purpose: str) -> ModuleType:
    """Import ``module``, or raise :class:`MissingDependencyError`: "``purpose`` needs
    ``package``: pip install 'olearn[extra]'"."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as error:
        top = module.partition(".")[0]
        if error.name is None or error.name.partition(".")[0] != top or top not in OPTIONAL:
            raise
        package, extra = OPTIONAL[top]
        raise MissingDependencyError(
            f"{purpose} needs {package}, which is not installed: pip install 'olearn[{extra}]'",
            name=error.name,
        ) from None


def message(error: ImportError) -> str:
    """One line for the command line: the error itself, with the install command when the
    missing module belongs to an extra."""
    if isinstance(error, MissingDependencyError) or "pip install" in str(error):
        return str(error)
    hint = install_hint(getattr(error, "name", None))
    if isinstance(error, ModuleNotFoundError) and hint:
        return f"{error.name} is not installed: {hint}"
    text = str(error).splitlines()[0] if str(error) else type(error).__name__
    return f"{text} (--debug shows the traceback)"
