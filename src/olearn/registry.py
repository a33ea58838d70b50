"""The one registry of olearn's estimators and algorithm names.

Every public estimator class is listed once in :data:`ESTIMATORS`; every name that a command
(``olearn train``, ``evaluate``, ``list``) or :func:`olearn.evaluation.make_estimator` accepts
is one :class:`Algorithm` of :data:`ALGORITHMS`: its paper, its estimator class per task, the
parameters the name fixes (``pa1`` is the PA family with ``variant="PA-I"``) and the
hyper-parameters LIBOL's model selection tunes. From these two tables derive

* the exports of ``olearn`` and ``olearn.estimators`` (``__all__``),
* the command line's algorithm names, options and help (``olearn.cli.algorithms``),
* the evaluation's named configurations and grids (``olearn.evaluation.algorithms``),
* the scikit-learn-free training path of the command line (``olearn.estimators._headless``,
  through the generated ``cli/catalogue.json``).

Classes are named by dotted path so that reading this module imports nothing. Adding an
algorithm is one row here (plus its estimator class); ``tests/test_registry.py`` checks that
every row resolves.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

#: The tasks of the command line.
TASKS = ("binary", "multiclass", "regression")

_E = "olearn.estimators"

#: Every public estimator class: class name -> defining module.
ESTIMATORS: Mapping[str, str] = MappingProxyType(
    {
        "PerceptronClassifier": f"{_E}.perceptron",
        "PassiveAggressiveClassifier": f"{_E}.pa",
        "SecondOrderPerceptronClassifier": f"{_E}.sop",
        "CWClassifier": f"{_E}.cw",
        "AROWClassifier": f"{_E}.arow",
        "SCWClassifier": f"{_E}.scw",
        "PassiveAggressiveRegressor": f"{_E}.regression",
        "AROWRegressor": f"{_E}.regression",
        "SGDRegressor": f"{_E}.regression",
        "UniclassPA": f"{_E}.uniclass",
        "JointFeatureClassifier": f"{_E}.joint",
        "KernelPerceptronClassifier": f"{_E}.kernel",
        "KernelPAClassifier": f"{_E}.kernel",
        "KernelPARegressor": f"{_E}.kernel",
        "NORMAClassifier": f"{_E}.kernel",
        "NORMARegressor": f"{_E}.kernel",
        "KernelPegasosClassifier": f"{_E}.kernel",
        "BudgetedSGDClassifier": f"{_E}.kernel",
        "SequenceTagger": "olearn.structured.tagger",
    }
)


def dotted(class_name: str) -> str:
    """``module.Class`` of a class of :data:`ESTIMATORS`."""
    return f"{ESTIMATORS[class_name]}.{class_name}"


@dataclass(frozen=True)
class Algorithm:
    """One name of the algorithm name space.

    ``classes`` maps each task the name serves to an estimator class name of
    :data:`ESTIMATORS`; ``fixed`` are the constructor parameters the name sets (options given
    with the name override them); ``grid`` the hyper-parameters of LIBOL's model selection
    (their values: :data:`GRID_VALUES`).
    """

    name: str
    title: str
    paper: str
    classes: Mapping[str, str]
    fixed: Mapping[str, object] = field(default_factory=dict)
    grid: tuple[str, ...] = ()

    def dotted(self, task: str) -> str | None:
        """``module.Class`` of the estimator for ``task``, or None."""
        name = self.classes.get(task)
        return None if name is None else dotted(name)


def _classifier(name: str, regressor: str | None = None) -> dict[str, str]:
    # Linear and kernel classifiers are multi-prototype multiclass models as well.
    classes = {"binary": name, "multiclass": name}
    if regressor is not None:
        classes["regression"] = regressor
    return classes


_PERCEPTRON = "Rosenblatt, Psychological Review 1958"
_AVERAGED = "Freund & Schapire, Machine Learning 1999"
_PA = "Crammer, Dekel, Keshet, Shalev-Shwartz, Singer, JMLR 7, 2006"
_SOP = "Cesa-Bianchi, Conconi, Gentile, SIAM J. Computing 34(3), 2005"
_CW = "Dredze, Crammer, Pereira, ICML 2008; Crammer, Dredze, Pereira, NIPS 2008"
_AROW = "Crammer, Kulesza, Dredze, NIPS 2009"
_SCW = "Wang, Zhao, Hoi, ICML 2012"
_NORMA = "Kivinen, Smola, Williamson, IEEE Trans. Signal Processing 52(8), 2004"

_PA_CLASSES = _classifier("PassiveAggressiveClassifier", "PassiveAggressiveRegressor")
_AROW_CLASSES = _classifier("AROWClassifier", "AROWRegressor")

ALGORITHMS: Mapping[str, Algorithm] = MappingProxyType(
    {
        a.name: a
        for a in (
            Algorithm("perceptron", "Perceptron", _PERCEPTRON, _classifier("PerceptronClassifier")),
            Algorithm(
                "averaged-perceptron",
                "Averaged Perceptron",
                _AVERAGED,
                _classifier("PerceptronClassifier"),
                {"average": True},
            ),
            Algorithm("pa", "Passive-Aggressive (PA)", _PA, _PA_CLASSES, {"variant": "PA"}),
            Algorithm("pa1", "PA-I", _PA, _PA_CLASSES, {"variant": "PA-I"}, ("C",)),
            Algorithm("pa2", "PA-II", _PA, _PA_CLASSES, {"variant": "PA-II"}, ("C",)),
            Algorithm(
                "sop",
                "Second-Order Perceptron, full covariance",
                _SOP,
                _classifier("SecondOrderPerceptronClassifier"),
                {"covariance": "full"},
                ("a",),
            ),
            Algorithm(
                "sop-diag",
                "Second-Order Perceptron, diagonal",
                _SOP,
                _classifier("SecondOrderPerceptronClassifier"),
                {"covariance": "diagonal"},
                ("a",),
            ),
            Algorithm(
                "cw",
                "Confidence-Weighted learning (exact), diagonal",
                _CW,
                _classifier("CWClassifier"),
                {"covariance": "diagonal"},
                ("eta",),
            ),
            Algorithm(
                "cw-full",
                "Confidence-Weighted learning (exact), full covariance",
                _CW,
                _classifier("CWClassifier"),
                {"covariance": "full"},
                ("eta",),
            ),
            Algorithm(
                "arow",
                "Adaptive Regularization of Weight Vectors, diagonal",
                _AROW,
                _AROW_CLASSES,
                {"covariance": "diagonal"},
                ("r",),
            ),
            Algorithm(
                "arow-full",
                "Adaptive Regularization of Weight Vectors, full covariance",
                _AROW,
                _AROW_CLASSES,
                {"covariance": "full"},
                ("r",),
            ),
            Algorithm(
                "scw",
                "Soft Confidence-Weighted learning (SCW-I by default)",
                _SCW,
                _classifier("SCWClassifier"),
                {},
                ("C", "eta"),
            ),
            *(
                Algorithm(
                    f"scw{number}{suffix}",
                    f"SCW-{variant}, {'full covariance' if suffix else 'diagonal'}",
                    _SCW,
                    _classifier("SCWClassifier"),
                    {"variant": variant, "covariance": "full" if suffix else "diagonal"},
                    ("C", "eta"),
                )
                for number, variant in (("1", "I"), ("2", "II"))
                for suffix in ("", "-full")
            ),
            Algorithm(
                "sgd",
                "Stochastic gradient descent (squared, ε-insensitive, Huber losses)",
                _NORMA,
                {"regression": "SGDRegressor"},
            ),
            Algorithm(
                "kernel-perceptron",
                "Kernel Perceptron",
                _AVERAGED,
                _classifier("KernelPerceptronClassifier"),
            ),
            Algorithm(
                "kernel-pa",
                "Kernel Passive-Aggressive",
                f"{_PA}, §3",
                _classifier("KernelPAClassifier", "KernelPARegressor"),
                grid=("C",),
            ),
            Algorithm("norma", "NORMA", _NORMA, _classifier("NORMAClassifier", "NORMARegressor")),
            Algorithm(
                "pegasos",
                "Kernel Pegasos",
                "Shalev-Shwartz, Singer, Srebro, ICML 2007",
                _classifier("KernelPegasosClassifier"),
            ),
            Algorithm(
                "bsgd",
                "Budgeted SGD (merge, project, remove)",
                "Wang, Crammer, Vucetic, JMLR 13, 2012",
                _classifier("BudgetedSGDClassifier"),
            ),
        )
    }
)

#: LIBOL's grids (Hoi, Wang, Zhao, JMLR 2014): C, r and a over 2^-4 … 2^4; η over 0.55 … 0.95.
GRID_VALUES: Mapping[str, tuple[float, ...]] = MappingProxyType(
    {
        "C": tuple(2.0**k for k in range(-4, 5)),
        "r": tuple(2.0**k for k in range(-4, 5)),
        "a": tuple(2.0**k for k in range(-4, 5)),
        "eta": tuple(round(0.55 + 0.05 * k, 2) for k in range(9)),
    }
)


def lookup(name: str) -> Algorithm:
    """The algorithm called ``name`` (case-insensitive); ValueError naming the choices."""
    algorithm = ALGORITHMS.get(name.lower())
    if algorithm is None:
        raise ValueError(
            f"unknown algorithm {name!r}; choose from {', '.join(ALGORITHMS)} (see olearn list)"
        )
    return algorithm


def matching(class_name: str, params: Mapping[str, object]) -> list[Algorithm]:
    """The algorithms whose class (for some task) is ``class_name`` and whose fixed
    parameters ``params`` has."""
    return [
        a
        for a in ALGORITHMS.values()
        if class_name in a.classes.values()
        and all(params.get(k, _MISSING) == v for k, v in a.fixed.items())
    ]


_MISSING = object()
