"""Figures (matplotlib, optional extra ``olearn[plot]``) in one consistent style.

Every function takes result objects (or fitted models), returns the ``Figure`` (so notebooks can
show or adjust it) and never calls ``plt.show()``. Every figure has a title, labelled axes with
units and one legend outside its panels, and is sized to be read where it is shown (see
``olearn.plotting.style``). ``save(fig, path)`` writes a 150-dpi PNG; ``animate_boundary``
writes a GIF with Pillow.
"""

from __future__ import annotations

from olearn._lazy import lazy_exports

_EXPORTS = {
    "style": "olearn.plotting.style",
    "save": "olearn.plotting.style",
    "color_of": "olearn.plotting.style",
    "GaussianSnapshot": "olearn.plotting.boundary",
    "gaussian_snapshot": "olearn.plotting.boundary",
    "plot_decision_boundary": "olearn.plotting.boundary",
    "plot_weights_over_time": "olearn.plotting.boundary",
    "animate_boundary": "olearn.plotting.boundary",
    "plot_comparison": "olearn.plotting.curves",
    "plot_learning_curves": "olearn.plotting.curves",
    "plot_mean_ranks": "olearn.plotting.curves",
    "plot_bounds": "olearn.plotting.curves",
}

__getattr__, __dir__, __all__ = lazy_exports(__name__, globals(), _EXPORTS)
