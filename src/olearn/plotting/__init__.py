"""Figures (matplotlib, optional extra ``olearn[plot]``) in one consistent style.

Every function takes result objects (or fitted models), returns the ``Figure`` (so notebooks can
show or adjust it) and never calls ``plt.show()``. Every figure has a title, labelled axes with
units and a legend. ``save(fig, path)`` writes PNG; ``animate_boundary`` writes a GIF with
Pillow.
"""

from __future__ import annotations

import importlib

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

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'olearn.plotting' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__():
    return __all__
