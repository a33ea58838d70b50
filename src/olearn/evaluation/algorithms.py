"""Algorithm names for the command line and the experiments, and LIBOL's parameter grids."""

from __future__ import annotations

import numpy as np

#: name -> (estimator class name exported by ``olearn``, fixed parameters, description)
ALGORITHMS: dict[str, tuple[str, dict, str]] = {
    "perceptron": ("PerceptronClassifier", {}, "Perceptron (Rosenblatt 1958)"),
    "averaged-perceptron": (
        "PerceptronClassifier",
        {"average": True},
        "Averaged Perceptron (Freund & Schapire 1999)",
    ),
    "pa": ("PassiveAggressiveClassifier", {"variant": "PA"}, "PA (Crammer et al. 2006)"),
    "pa1": ("PassiveAggressiveClassifier", {"variant": "PA-I"}, "PA-I (Crammer et al. 2006)"),
    "pa2": ("PassiveAggressiveClassifier", {"variant": "PA-II"}, "PA-II (Crammer et al. 2006)"),
    "sop": (
        "SecondOrderPerceptronClassifier",
        {"covariance": "full"},
        "Second-Order Perceptron, full (Cesa-Bianchi et al. 2005)",
    ),
    "sop-diag": (
        "SecondOrderPerceptronClassifier",
        {"covariance": "diagonal"},
        "Second-Order Perceptron, diagonal",
    ),
    "cw": ("CWClassifier", {"covariance": "diagonal"}, "exact CW, diagonal (Crammer et al. 2008)"),
    "cw-full": ("CWClassifier", {"covariance": "full"}, "exact CW, full"),
    "arow": ("AROWClassifier", {"covariance": "diagonal"}, "AROW, diagonal (Crammer et al. 2009)"),
    "arow-full": ("AROWClassifier", {"covariance": "full"}, "AROW, full"),
    "scw1": (
        "SCWClassifier",
        {"variant": "I", "covariance": "diagonal"},
        "SCW-I, diagonal (Wang et al. 2012)",
    ),
    "scw1-full": ("SCWClassifier", {"variant": "I", "covariance": "full"}, "SCW-I, full"),
    "scw2": (
        "SCWClassifier",
        {"variant": "II", "covariance": "diagonal"},
        "SCW-II, diagonal (Wang et al. 2012)",
    ),
    "scw2-full": ("SCWClassifier", {"variant": "II", "covariance": "full"}, "SCW-II, full"),
}

#: LIBOL's grids (Hoi, Wang, Zhao, JMLR 2014): C, r and a over 2^-4 … 2^4; η over 0.55 … 0.95.
POWERS_OF_TWO = [float(2.0**k) for k in range(-4, 5)]
ETAS = [round(float(e), 2) for e in np.arange(0.55, 0.951, 0.05)]


def make_estimator(name: str, **params):
    """A fresh estimator for an algorithm name of ``ALGORITHMS`` with extra parameters."""
    if name not in ALGORITHMS:
        raise ValueError(f"unknown algorithm {name!r}; known: {', '.join(ALGORITHMS)}.")
    import olearn

    class_name, fixed, _ = ALGORITHMS[name]
    estimator = getattr(olearn, class_name)(**fixed)
    unknown = set(params) - set(estimator.get_params())
    if unknown:
        raise ValueError(
            f"{name} has no parameter(s) {sorted(unknown)}; it has "
            f"{sorted(estimator.get_params())}."
        )
    return estimator.set_params(**params)


def libol_grid(estimator) -> dict[str, list[float]]:
    """The LIBOL grid for the hyper-parameters ``estimator`` has.

    C (PA-I/PA-II, SCW) and r (AROW) over 2^-4…2^4, η (CW, SCW) over 0.55…0.95 and a (SOP) over
    2^-4…2^4. The Perceptron and plain PA have no hyper-parameter: an empty grid.
    """
    params = estimator.get_params()
    grid: dict[str, list[float]] = {}
    name = type(estimator).__name__
    if "C" in params and params.get("variant") != "PA":
        grid["C"] = POWERS_OF_TWO
    if "eta" in params:
        grid["eta"] = ETAS
    if "r" in params:
        grid["r"] = POWERS_OF_TWO
    if name == "SecondOrderPerceptronClassifier" and "a" in params:
        grid["a"] = POWERS_OF_TWO
    return grid
