"""The command line's view of the algorithm registry (:mod:`olearn.registry`): classes by
task, and each class's hyper-parameters as command-line options.

Classes are named by dotted path and imported only when asked for, so a class this olearn does
not provide (or an optional module) is left out of ``olearn list`` and refused by ``olearn
train`` with a clear message.

The options of an algorithm are generated from its classes' ``__init__`` signatures,
``_parameter_constraints`` and numpydoc docstrings (:func:`parameters`); nothing here is
written per algorithm. ``olearn train`` must not pay for importing the estimator classes
(scikit-learn's import alone is about a second), so what :func:`parameters` derives is kept in
``catalogue.json`` next to this file: every class's constructor parameters with their defaults
and declared constraints, and the parts of the class the headless training path
(:mod:`olearn.estimators._headless`) assembles. It is generated, never edited: ``python -m
olearn.cli.algorithms`` rewrites it, and a test fails when it differs from the classes.

A value given on the command line is parsed and checked against the declared constraints
(:meth:`Parameter.parse`, :meth:`Parameter.accepts`, which mirror scikit-learn's
``_param_validation`` for the constraint kinds the estimators use; a test checks that both
agree on every parameter). A value they reject is reported by scikit-learn's own validation
(:func:`check_parameters`), word for word the estimator's message.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import json
import math
import re
from dataclasses import dataclass, field
from numbers import Integral, Real
from pathlib import Path

from olearn.registry import ALGORITHMS, TASKS, Algorithm, dotted, lookup

__all__ = [
    "ALGORITHMS",
    "TASKS",
    "Parameter",
    "available",
    "catalogue",
    "cataloged_parameters",
    "check_parameters",
    "load_class",
    "lookup",
    "parameters",
    "resolve",
]


def load_class(path: str) -> type | None:
    """The class at a dotted path, or None if this olearn does not have it."""
    module_name, _, name = path.rpartition(".")
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
        classes = {task: load_class(algorithm.dotted(task)) for task in algorithm.classes}
        classes = {task: cls for task, cls in classes.items() if cls is not None}
        if classes:
            found[algorithm.name] = classes
    return found


def resolve(name: str, task: str) -> type:
    """The estimator class of algorithm ``name`` for ``task`` (binary, multiclass,
    regression); ValueError if there is none."""
    algorithm = lookup(name)
    if task not in TASKS:
        raise ValueError(f"unknown task {task!r}; choose from {', '.join(TASKS)}")
    path = algorithm.dotted(task)
    cls = load_class(path) if path else None
    if cls is None:
        tasks = [t for t in algorithm.classes if load_class(algorithm.dotted(t)) is not None]
        raise ValueError(
            f"algorithm {algorithm.name!r} has no {task} estimator in this olearn"
            + (f" (it has: {', '.join(tasks)})" if tasks else "")
        )
    return cls


# -- parameters -------------------------------------------------------------------------------

#: Parameters the command line sets itself (passes, shuffling), not per algorithm; and
#: ``class_weight``, which a stream cannot take as an option: "balanced" needs the label counts
#: before learning, and a dict is no option value (VW importance weights weigh examples).
MANAGED = ("max_iter", "shuffle", "random_state", "class_weight")


@dataclass
class Parameter:
    """One hyper-parameter as the command line sees it: its default, and its declared
    scikit-learn constraints as data (``constraints``: a list of ``{"none": True}``,
    ``{"boolean": True}``, ``{"options": [...]}``, ``{"interval": "int"|"real", "left",
    "right", "closed"}``, ``{"random_state": True}`` or ``{"other": description}``; a value
    is valid when it satisfies one of them)."""

    name: str
    default: object
    constraints: list = field(default_factory=list)
    help: str = ""

    @property
    def is_flag(self) -> bool:
        """A boolean option (``--name`` / ``--no-name``)."""
        return any("boolean" in c for c in self.constraints) or (
            not self.constraints and isinstance(self.default, bool)
        )

    @property
    def metavar(self) -> str:
        """``{a,b}|FLOAT``: what the option takes."""
        parts = []
        for c in self.constraints:
            if "options" in c:
                parts.append("{" + ",".join(map(str, c["options"])) + "}")
            elif "interval" in c:
                parts.append("INT" if c["interval"] == "int" else "FLOAT")
            elif "random_state" in c:
                parts.append("INT")
            elif "none" in c:
                parts.append("none")
        if not parts:
            parts.append(type(self.default).__name__.upper() if self.default is not None else "STR")
        return "|".join(dict.fromkeys(parts))

    def parse(self, text: str):
        """The value a command-line string stands for: ``none``, one of the options, an
        integer or a float, tried in the order of the declared constraints. Text that fits
        none of them is returned as is (the check then reports it)."""
        if text.lower() == "none" and self._allows(None):
            return None
        for c in self.constraints:
            if "options" in c and text in c["options"]:
                return text
        for c in self.constraints:
            if c.get("interval") == "int" or "random_state" in c:
                try:
                    return int(text)
                except ValueError:
                    pass
        for c in self.constraints:
            if c.get("interval") == "real":
                try:
                    return float(text)
                except ValueError:
                    pass
        if not self.constraints and isinstance(self.default, int | float):
            try:
                return type(self.default)(text)
            except ValueError:
                pass
        return text

    def accepts(self, value) -> bool:
        """Whether ``value`` satisfies one of the declared constraints (as scikit-learn's
        parameter validation decides; undeclared parameters accept anything)."""
        return not self.constraints or self._allows(value)

    def _allows(self, value) -> bool:
        return any(_satisfies(c, value) for c in self.constraints)


def _satisfies(constraint: dict, value) -> bool:
    if "none" in constraint:
        return value is None
    if "boolean" in constraint:
        return isinstance(value, bool)
    if "options" in constraint:
        return isinstance(value, str) and value in constraint["options"]
    if "random_state" in constraint:  # scikit-learn: None or an int in [0, 2³² − 1]
        return value is None or (isinstance(value, Integral) and 0 <= value <= 2**32 - 1)
    if "interval" in constraint:
        kind = Integral if constraint["interval"] == "int" else Real
        if not isinstance(value, kind):  # as scikit-learn's Interval, bool is an int
            return False
        if not isinstance(value, Integral) and math.isnan(value):  # in no interval
            return False
        # an open side without a bound is at infinity: (0, inf) holds no inf, as in
        # scikit-learn's Interval
        left, right, closed = constraint["left"], constraint["right"], constraint["closed"]
        left = -math.inf if left is None else left
        right = math.inf if right is None else right
        if value < left or (value == left and closed in ("right", "neither")):
            return False
        if value > right or (value == right and closed in ("left", "neither")):
            return False
        return True
    return False  # a kind the command line cannot express (a callable, an array)


def parameters(cls: type) -> list[Parameter]:
    """The hyper-parameters of an estimator class, from its signature, declared constraints
    and docstring."""
    signature = inspect.signature(cls.__init__)
    declared = getattr(cls, "_parameter_constraints", {})
    docs = _docstring_parameters(cls)
    found = []
    for name, p in signature.parameters.items():
        if name == "self" or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) or name in MANAGED:
            continue
        default = None if p.default is inspect.Parameter.empty else p.default
        constraints = [_constraint(c) for c in declared.get(name, [])]
        found.append(Parameter(name, default, constraints, docs.get(name, "")))
    return found


def _constraint(constraint) -> dict:
    """One scikit-learn constraint as data."""
    if constraint is None:
        return {"none": True}
    if constraint == "boolean":
        return {"boolean": True}
    if constraint == "random_state":
        return {"random_state": True}
    kind = type(constraint).__name__
    if kind == "StrOptions":
        return {"options": sorted(constraint.options, key=str)}
    if kind == "Interval":
        return {
            "interval": "int" if constraint.type is Integral else "real",
            "left": constraint.left,
            "right": constraint.right,
            "closed": constraint.closed,
        }
    return {"other": getattr(constraint, "__name__", str(constraint))}


def check_parameters(class_path: str, params: dict) -> None:
    """ValueError, worded by scikit-learn's parameter validation as the estimator words it,
    unless every value of ``params`` satisfies the declared constraints of the class at
    ``class_path``. Valid values cost a few comparisons; scikit-learn (about a second to
    import) is imported only to word an error."""
    declared = {p.name: p for p in cataloged_parameters(class_path)}
    bad = {k: v for k, v in params.items() if k in declared and not declared[k].accepts(v)}
    if not bad:
        return
    from sklearn.utils._param_validation import validate_parameter_constraints

    cls = load_class(class_path)
    constraints = {k: cls._parameter_constraints[k] for k in bad}
    validate_parameter_constraints(constraints, bad, caller_name=cls.__name__)
    name, value = next(iter(bad.items()))  # scikit-learn accepted it: the mirror is wrong
    raise ValueError(f"The {name!r} parameter of {cls.__name__} cannot be {value!r}.")


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


def _headless_parts(cls: type) -> dict | None:
    """The declarations and state classes a headless model of ``cls`` is made of
    (:mod:`olearn.estimators._headless`), or None if ``cls`` has none (kernel models)."""

    def first(module: str) -> str | None:
        found = next((k for k in cls.__mro__ if k.__module__ == module), None)
        return None if found is None else f"{module}.{found.__qualname__}"

    declarations = first("olearn.estimators._declarations")
    state = first("olearn.estimators._state")
    if declarations is None or state is None:
        return None
    return {"declarations": declarations, "state": state}


def build_catalogue() -> dict[str, dict]:
    """``{dotted class name: {"init", "parameters", "headless"}}`` for every class of the
    registry that this olearn has (imports them all)."""
    found: dict[str, dict] = {}
    for algorithm in ALGORITHMS.values():
        for class_name in algorithm.classes.values():
            path = dotted(class_name)
            cls = load_class(path)
            if cls is None or path in found:
                continue
            init = {
                name: p.default
                for name, p in inspect.signature(cls.__init__).parameters.items()
                if name != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
            }
            found[path] = {
                "init": init,
                "parameters": [dataclasses.asdict(p) for p in parameters(cls)],
                "headless": _headless_parts(cls),
            }
    return found


def write_catalogue(path: Path = CATALOGUE_PATH) -> None:
    path.write_text(json.dumps(build_catalogue(), indent=1, sort_keys=True) + "\n")


_CATALOGUE: dict[str, dict] = {}


def catalogue() -> dict[str, dict]:
    """The stored catalogue (see the module docstring), read once."""
    if not _CATALOGUE:
        _CATALOGUE.update(json.loads(CATALOGUE_PATH.read_text()))
    return _CATALOGUE


def cataloged_parameters(class_path: str) -> list[Parameter]:
    """:func:`parameters` of the class at ``class_path``, read from the catalogue."""
    entry = catalogue().get(class_path)
    if entry is None:
        return []
    return [Parameter(**p) for p in entry["parameters"]]


def algorithm_parameters(algorithm: Algorithm) -> dict[str, Parameter]:
    """The hyper-parameters of every class of ``algorithm`` (the first class's declaration
    wins for a name several classes share), with the defaults the algorithm's name fixes."""
    seen: dict[str, Parameter] = {}
    for task in algorithm.classes:
        for p in cataloged_parameters(algorithm.dotted(task)):
            if p.name not in seen:
                if p.name in algorithm.fixed:
                    p = dataclasses.replace(p, default=algorithm.fixed[p.name])
                seen[p.name] = p
    return seen


if __name__ == "__main__":  # python -m olearn.cli.algorithms: regenerate the catalogue
    write_catalogue()
    print(f"wrote {CATALOGUE_PATH}")
