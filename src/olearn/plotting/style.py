"""The one style of olearn's figures: sizes, fonts, a fixed colour per algorithm, titles that
fit and legends outside the data.

Figures are drawn for the size they are shown at: a PNG is written at ``DPI`` (150) and is at
most ``MAX_WIDTH_IN`` inches wide, so a page that shows it ``DISPLAY_WIDTH`` pixels wide (a
README or docs column) scales it by at least 0.5 and 9-point text stays ≥ 9 px tall.
"""

from __future__ import annotations

import contextlib
import os
import textwrap

#: resolution of the PNG figures (dots per inch)
DPI = 150
#: width, in pixels, of a full-width image in a rendered Markdown page (GitHub's column)
DISPLAY_WIDTH = 880
#: the widest figure (inches): DPI × MAX_WIDTH_IN / DISPLAY_WIDTH ≤ 2
MAX_WIDTH_IN = 11.5


def _pyplot():
    from olearn._optional import require

    matplotlib = require("matplotlib", "plotting")
    if not os.environ.get("DISPLAY") and not os.environ.get("MPLBACKEND"):
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


RC = {
    "figure.dpi": 100,
    "savefig.dpi": DPI,
    "font.size": 10,
    "axes.titlesize": 10.5,
    "axes.labelsize": 10,
    "xtick.labelsize": 9,
    "ytick.labelsize": 9,
    "legend.fontsize": 9,
    "figure.titlesize": 11.5,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "lines.linewidth": 1.6,
    # constrained layout at draw time: titles, labels and outside legends get their room
    "figure.constrained_layout.use": True,
}

#: the two classes of a binary scatter: blue and red stay apart in colour and in grey
CLASS_COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd")
CLASS_MARKERS = ("o", "s", "^", "D", "v")

# Tableau-10, assigned by algorithm family so a name keeps its colour across figures.
_PALETTE = {
    "arow": "#d62728",
    "arow-full": "#d62728",
    "arow-diag": "#ff9896",
    "cw": "#1f77b4",
    "cw-full": "#1f77b4",
    "pa": "#bcbd22",
    "pa1": "#2ca02c",
    "pa-i": "#2ca02c",
    "pa2": "#98df8a",
    "pa-ii": "#98df8a",
    "sop": "#9467bd",
    "sop-diag": "#c5b0d5",
    "perceptron": "#7f7f7f",
    "averaged-perceptron": "#c7c7c7",
    "scw1": "#ff7f0e",
    "scw-i": "#ff7f0e",
    "scw1-full": "#ff7f0e",
    "scw2": "#8c564b",
    "scw-ii": "#8c564b",
    "scw2-full": "#8c564b",
}
_FALLBACK = ["#17becf", "#393b79", "#e377c2", "#637939", "#843c39", "#7b4173"]


def color_of(name: str, index: int = 0) -> str:
    """The colour of an algorithm (by its lower-case name, then its first word) or a fallback
    by index. "AROW (diag)" and "arow-diag" are the same algorithm, "SCW-I" and "scw1" too."""
    import re

    key = re.sub(r"[\s_()]+", "-", name.lower()).strip("-")
    for candidate in (key, key.replace("diagonal", "diag"), key.split("-")[0]):
        if candidate in _PALETTE:
            return _PALETTE[candidate]
    return _FALLBACK[index % len(_FALLBACK)]


def wrap(text: str, width_in: float, fontsize: float) -> str:
    """``text`` broken into lines that fit ``width_in`` inches at ``fontsize`` points (an
    average character of DejaVu Sans, matplotlib's default, is about 0.52 em wide)."""
    chars = max(12, int(width_in * 72 / (0.52 * fontsize)))
    return "\n".join(textwrap.fill(part, chars) for part in text.split("\n"))


def set_title(ax, text: str) -> None:
    """An axes title wrapped to the width of the axes' grid cell (never clipped at the
    figure's edges, never overlapping its neighbour's)."""
    import matplotlib as mpl

    spec = ax.get_subplotspec()
    if spec is not None:
        grid = spec.get_gridspec()
        columns = spec.colspan.stop - spec.colspan.start
        width = ax.figure.get_figwidth() * columns / grid.ncols * 0.85
    else:
        width = ax.get_position().width * ax.figure.get_figwidth()
    size = mpl.rcParams["axes.titlesize"]
    ax.set_title(wrap(text, width, size if isinstance(size, float | int) else RC["axes.titlesize"]))


def set_suptitle(fig, text: str) -> None:
    """A figure title wrapped to the figure's width."""
    fig.suptitle(wrap(text, fig.get_figwidth() * 0.92, RC["figure.titlesize"]))


def legend_below(fig, handles, labels=None, *, ncol: int | None = None):
    """One legend for the whole figure, centred under its axes (outside every panel, so it
    never covers data and stays in place from one figure or frame to the next)."""
    labels = [h.get_label() for h in handles] if labels is None else list(labels)
    ncol = ncol or min(len(handles), 5)
    return fig.legend(handles, labels, loc="outside lower center", ncol=ncol, frameon=False)


@contextlib.contextmanager
def style():
    """Context manager applying olearn's rcParams (and the Agg backend when headless)."""
    plt = _pyplot()
    with plt.rc_context(RC):
        yield plt


def save(fig, path, *, close: bool = True, dpi: int = DPI, colors: int | None = 256) -> str:
    """Write ``fig`` to ``path``, creating the directory; return the path.

    A ``.png`` is written at ``dpi`` (recorded in the file) with a palette of ``colors``
    colours (a plot has few; it keeps the file a third of its size); ``colors=None`` keeps
    full colour. Other extensions are written by matplotlib as they are. With ``close`` the
    figure is closed afterwards (its memory freed).
    """
    path = os.fspath(path)
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    if path.lower().endswith(".png") and colors:
        import io

        from PIL import Image

        buffer = io.BytesIO()
        fig.savefig(buffer, format="png", dpi=dpi)
        image = Image.open(buffer).convert("RGB")
        image = image.quantize(colors=colors, method=Image.Quantize.MEDIANCUT)
        image.save(path, dpi=(dpi, dpi), optimize=True)
    else:
        fig.savefig(path, dpi=dpi)
    if close:
        import matplotlib.pyplot as plt

        plt.close(fig)
    return path
