"""The one style of olearn's figures: sizes, fonts, a fixed colour per algorithm."""

from __future__ import annotations

import contextlib
import os


def _pyplot():
    try:
        import matplotlib
    except ImportError as error:  # pragma: no cover - exercised only without the extra
        raise ImportError("plotting needs matplotlib: pip install 'olearn[plot]'.") from error
    if not os.environ.get("DISPLAY") and not os.environ.get("MPLBACKEND"):
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


RC = {
    "figure.dpi": 100,
    "savefig.dpi": 100,
    "font.size": 9,
    "axes.titlesize": 10,
    "axes.labelsize": 9,
    "legend.fontsize": 8,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "lines.linewidth": 1.5,
    # constrained layout at draw time: no extra "tight" pass when saving
    "figure.constrained_layout.use": True,
}

# Tableau-10, assigned by algorithm family so a name keeps its colour across figures.
_PALETTE = {
    "arow": "#d62728",
    "arow-full": "#d62728",
    "arow-diag": "#ff9896",
    "cw": "#1f77b4",
    "cw-full": "#1f77b4",
    "pa": "#bcbd22",
    "pa1": "#2ca02c",
    "pa2": "#98df8a",
    "sop": "#9467bd",
    "sop-diag": "#c5b0d5",
    "perceptron": "#7f7f7f",
    "averaged-perceptron": "#c7c7c7",
    "scw1": "#ff7f0e",
    "scw1-full": "#ff7f0e",
    "scw2": "#8c564b",
    "scw2-full": "#8c564b",
}
_FALLBACK = ["#17becf", "#393b79", "#e377c2", "#393b79", "#637939", "#843c39"]


def color_of(name: str, index: int = 0) -> str:
    """The colour of an algorithm (by its lower-case name prefix) or a fallback by index."""
    import re

    key = re.sub(r"[\s_()]+", "-", name.lower()).strip("-")
    for candidate in (key, key.split("-")[0]):
        if candidate in _PALETTE:
            return _PALETTE[candidate]
    return _FALLBACK[index % len(_FALLBACK)]


@contextlib.contextmanager
def style():
    """Context manager applying olearn's rcParams (and the Agg backend when headless)."""
    plt = _pyplot()
    with plt.rc_context(RC):
        yield plt


def save(fig, path, *, close: bool = True, dpi: int = 100) -> str:
    """Write ``fig`` to ``path`` (PNG by extension), creating the directory; return the path."""
    path = os.fspath(path)
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    fig.savefig(path, dpi=dpi)
    if close:
        import matplotlib.pyplot as plt

        plt.close(fig)
    return path
