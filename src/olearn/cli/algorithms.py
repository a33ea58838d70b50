"""The registry of algorithm names for the command line: name → estimator class per task.

Classes are named by dotted path and imported only when asked for, so a class another part of
olearn does not provide yet (or an optional module) is simply left out of ``olearn list`` and
refused by ``olearn train`` with a clear message. Other modules (``olearn evaluate``, the
experiments) use :func:`resolve` and :func:`available`.

The command-line options of an algorithm are generated from its classes' ``__init__``
signatures, ``_parameter_constraints`` and numpydoc docstrings (:func:`parameters`); nothing
here is written per algorithm except its name, paper and classes.

``olearn train`` must not pay for importing the estimator classes (scikit-learn's import alone
is about a second), so what :func:`parameters` derives is kept in ``catalogue.json`` next to
this file: every class's constructor parameters with their defaults and declared
constraints. It is generated, never edited: ``python -m olearn.cli.algorithms`` rewrites it,
and a test fails when it differs from what the classes declare.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

TASKS = ("binary", "multiclass", "regression")


@dataclass(frozen=True)
class Algorithm:
    """One algorithm: its command-line name, full name, paper, and class per task."""

    name: str
    title: str
    paper: str
    classes: dict[str, str] = field(default_factory=dict)


_E = "olearn.estimators"


def _classifier(dotted: str) -> dict[str, str]:
    # The linear classifiers are multi-prototype multiclass models as well (issue 3).
    return {"binary": dotted, "multiclass": dotted}


ALGORITHMS: dict[str, Algorithm] = {
    a.name: a
    for a in (
        Algorithm(
            "perceptron",
            "Perceptron (averaged with --average)",
            "Rosenblatt, Psychological Review 1958; Freund & Schapire, Machine Learning 1999",
            _classifier(f"{_E}.perceptron.PerceptronClassifier"),
        ),
        Algorithm(
            "pa",
            "Passive-Aggressive (PA, PA-I, PA-II)",
            "Crammer, Dekel, Keshet, Shalev-Shwartz, Singer, JMLR 7, 2006",
            {
                **_classifier(f"{_E}.pa.PassiveAggressiveClassifier"),
                "regression": f"{_E}.regression.PassiveAggressiveRegressor",
            },
        ),
        Algorithm(
            "sop",
            "Second-Order Perceptron",
            "Cesa-Bianchi, Conconi, Gentile, SIAM J. Computing 34(3), 2005",
            _classifier(f"{_E}.sop.SecondOrderPerceptronClassifier"),
        ),
        Algorithm(
            "cw",
            "Confidence-Weighted learning",
            "Dredze, Crammer, Pereira, ICML 2008; Crammer, Dredze, Pereira, NIPS 2008",
            _classifier(f"{_E}.cw.CWClassifier"),
        ),
        Algorithm(
            "arow",
            "Adaptive Regularization of Weight Vectors",
            "Crammer, Kulesza, Dredze, NIPS 2009",
            {
                **_classifier(f"{_E}.arow.AROWClassifier"),
                "regression": f"{_E}.regression.AROWRegressor",
            },
        ),
        Algorithm(
            "scw",
            "Soft Confidence-Weighted learning (SCW-I, SCW-II)",
            "Wang, Zhao, Hoi, ICML 2012",
            _classifier(f"{_E}.scw.SCWClassifier"),
        ),
        Algorithm(
            "sgd",
            "Stochastic gradient descent (squared, ε-insensitive, Huber losses)",
            "Kivinen, Smola, Williamson, IEEE Trans. Signal Processing 52(8), 2004",
            {"regression": f"{_E}.regression.SGDRegressor"},
        ),
        Algorithm(
            "kernel-perceptron",
            "Kernel Perceptron",
            "Freund & Schapire, Machine Learning 1999",
            _classifier(f"{_E}.kernel.KernelPerceptronClassifier"),
        ),
        Algorithm(
            "kernel-pa",
            "Kernel Passive-Aggressive",
            "Crammer et al., JMLR 7, 2006, §3",
            {
                **_classifier(f"{_E}.kernel.KernelPAClassifier"),
                "regression": f"{_E}.kernel.KernelPARegressor",
            },
        ),
        Algorithm(
            "norma",
            "NORMA",
            "Kivinen, Smola, Williamson, IEEE Trans. Signal Processing 52(8), 2004",
            {
                **_classifier(f"{_E}.kernel.NORMAClassifier"),
                "regression": f"{_E}.kernel.NORMARegressor",
            },
        ),
        Algorithm(
            "pegasos",
            "Kernel Pegasos",
            "Shalev-Shwartz, Singer, Srebro, ICML 2007",
            _classifier(f"{_E}.kernel.KernelPegasosClassifier"),
        ),
        Algorithm(
            "bsgd",
            "Budgeted SGD (merge, project, remove)",
            "Wang, Crammer, Vucetic, JMLR 13, 2012",
            _classifier(f"{_E}.kernel.BudgetedSGDClassifier"),
        ),
    )
}


def load_class(dotted: str) -> type | None:
    """The class at a dotted path, or None if this olearn does not have it."""
    module_name, _, name = dotted.rpartition(".")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        if error.name and (module_name == error.name or module_name.startswith(error.name + ".")):
            return None
        raise
    return getattr(module, name, None)


def available() -> dict[str, dict[str, type]]:
    """``{algorithm name: {task: class}}`` for every class this olearn provides."""
    found: dict[str, dict[str, type]] = {}
    for algorithm in ALGORITHMS.values():
        classes = {task: load_class(dotted) for task, dotted in algorithm.classes.items()}
        classes = {task: cls for task, cls in classes.items() if cls is not None}
        if classes:
            found[algorithm.name] = classes
    return found


def lookup(name: str) -> Algorithm:
    key = name.lower()
    if key not in ALGORITHMS:
        raise ValueError(
            f"unknown algorithm {name!r}; choose from {', '.join(ALGORITHMS)} (see olearn list)"
        )
    return ALGORITHMS[key]


def resolve(name: str, task: str) -> type:
    """The estimator class of algorithm ``name`` for ``task`` (binary, multiclass,
    regression); ValueError if there is none."""
    algorithm = lookup(name)
    if task not in TASKS:
        raise ValueError(f"unknown task {task!r}; choose from {', '.join(TASKS)}")
    dotted = algorithm.classes.get(task)
    cls = load_class(dotted) if dotted else None
    if cls is None:
        tasks = [t for t, d in algorithm.classes.items() if load_class(d) is not None]
        raise ValueError(
            f"algorithm {algorithm.name!r} has no {task} estimator in this olearn"
            + (f" (it has: {', '.join(tasks)})" if tasks else "")
        )
    return cls


# -- parameters -------------------------------------------------------------------------------

#: Parameters the command line sets itself (passes, shuffling), not per algorithm.
MANAGED = ("max_iter", "shuffle", "random_state")


@dataclass
class Parameter:
    """One hyper-parameter as the command line sees it."""

    name: str
    default: object
    kind: str  # "bool", "int", "float", "choice", "str"
    choices: tuple = ()
    allows_none: bool = False
    help: str = ""
    low: float | None = None
    high: float | None = None
    closed: str | None = None  # which ends of [low, high] are allowed (scikit-learn's Interval)

    def check(self, value, owner: str) -> None:
        """ValueError unless ``value`` satisfies the declared constraints (worded as
        scikit-learn's parameter validation words it)."""
        where = f"The {self.name!r} parameter of {owner}"
        if value is None:
            if not self.allows_none:
                raise ValueError(f"{where} cannot be None.")
            return
        if self.kind == "choice" and value not in self.choices:
            raise ValueError(f"{where} must be one of {list(self.choices)}. Got {value!r} instead.")
        if self.kind in ("int", "float") and not _within(value, self.low, self.high, self.closed):
            raise ValueError(
                f"{where} must be a {self.kind} in the range {self.range_text}. "
                f"Got {value!r} instead."
            )

    @property
    def range_text(self) -> str:
        closed = self.closed or "both"
        left = "[" if closed in ("left", "both") else "("
        right = "]" if closed in ("right", "both") else ")"
        low = "-inf" if self.low is None else f"{self.low:g}"
        high = "inf" if self.high is None else f"{self.high:g}"
        return f"{left}{low}, {high}{right}"


def _within(value, low, high, closed: str | None) -> bool:
    closed = closed or "both"
    if low is not None and (value < low or (value == low and closed in ("right", "neither"))):
        return False
    if high is not None and (value > high or (value == high and closed in ("left", "neither"))):
        return False
    return True


def parameters(cls: type) -> list[Parameter]:
    """The hyper-parameters of an estimator class, from its signature, declared constraints
    and docstring."""
    signature = inspect.signature(cls.__init__)
    constraints = getattr(cls, "_parameter_constraints", {})
    docs = _docstring_parameters(cls)
    found = []
    for name, p in signature.parameters.items():
        if name == "self" or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) or name in MANAGED:
            continue
        default = None if p.default is inspect.Parameter.empty else p.default
        param = Parameter(name, default, "str", help=docs.get(name, ""))
        for constraint in constraints.get(name, []):
            _apply_constraint(param, constraint)
        if param.kind == "str" and isinstance(default, bool):
            param.kind = "bool"
        elif param.kind == "str" and isinstance(default, float):
            param.kind = "float"
        elif param.kind == "str" and isinstance(default, int):
            param.kind = "int"
        found.append(param)
    return found


def _apply_constraint(param: Parameter, constraint) -> None:
    from numbers import Integral, Real

    if constraint is None:
        param.allows_none = True
        return
    if constraint == "boolean":
        param.kind = "bool"
        return
    kind = type(constraint).__name__
    if kind == "StrOptions":
        param.kind = "choice" if param.kind in ("str", "choice") else param.kind
        param.choices = tuple(sorted(param.choices + tuple(constraint.options), key=str))
    elif kind == "Interval":
        if param.kind in ("str", "choice", "int", "float"):
            is_int = constraint.type is Integral
            if param.kind != "float":
                param.kind = "int" if is_int else "float"
            if constraint.type is Real or param.kind == "float":
                param.kind = "float"
            param.low, param.high = constraint.left, constraint.right
            param.closed = constraint.closed
    elif constraint in ("random_state",):
        param.kind = "int"
        param.allows_none = True


_PARAM_LINE = re.compile(r"^(\w+(?:\s*,\s*\w+)*)\s*:\s*(.*)$")


def _docstring_parameters(cls: type) -> dict[str, str]:
    """First sentence of each parameter's description in the numpydoc docstrings of the class
    and its bases (text before any section counts, as in the base classes' docstrings)."""
    found: dict[str, str] = {}
    for klass in cls.__mro__:
        lines = (inspect.getdoc(klass) or "").splitlines()
        section = None
        current: list[str] = []
        description: list[str] = []

        def flush(current=current, description=description):
            text = " ".join(d.strip() for d in description).strip()
            for name in current:
                if text and name not in found:
                    found[name] = re.split(r"\.\s+(?=[A-Z])", text)[0].rstrip(".")
            current.clear()
            description.clear()

        for k, line in enumerate(lines):
            if line.startswith("---"):
                continue
            if k + 1 < len(lines) and lines[k + 1].startswith("---"):
                flush()
                section = line.strip()
                continue
            if section not in (None, "Parameters"):
                continue
            if line.startswith(" "):
                description.append(line)
                continue
            flush()
            match = _PARAM_LINE.match(line)
            if match:
                current.extend(n.strip() for n in match.group(1).split(","))
        flush()
    return found


# -- the catalogue ----------------------------------------------------------------------------

CATALOGUE_PATH = Path(__file__).with_name("catalogue.json")


def build_catalogue() -> dict[str, dict]:
    """``{dotted class name: {"init": {name: default}, "parameters": [Parameter fields]}}``
    for every class of the registry that this olearn has (imports them all)."""
    found: dict[str, dict] = {}
    for algorithm in ALGORITHMS.values():
        for dotted in algorithm.classes.values():
            cls = load_class(dotted)
            if cls is None or dotted in found:
                continue
            init = {
                name: p.default
                for name, p in inspect.signature(cls.__init__).parameters.items()
                if name != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
            }
            found[dotted] = {
                "init": init,
                "parameters": [dataclasses.asdict(p) for p in parameters(cls)],
            }
    return found


def write_catalogue(path: Path = CATALOGUE_PATH) -> None:
    path.write_text(json.dumps(build_catalogue(), indent=1, sort_keys=True) + "\n")


def catalogue() -> dict[str, dict]:
    """The stored catalogue (see the module docstring)."""
    return json.loads(CATALOGUE_PATH.read_text())


def cataloged_parameters(dotted: str) -> list[Parameter]:
    """:func:`parameters` of the class at ``dotted``, read from the catalogue."""
    entry = catalogue().get(dotted)
    if entry is None:
        return []
    return [Parameter(**{**p, "choices": tuple(p["choices"])}) for p in entry["parameters"]]


if __name__ == "__main__":  # python -m olearn.cli.algorithms: regenerate the catalogue
    write_catalogue()
    print(f"wrote {CATALOGUE_PATH}")
