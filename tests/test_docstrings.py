"""The reference documentation is true: every docstring example runs and prints what it shows,
and every public callable documents the parameters it has — no more, no fewer — with the
defaults and the allowed values the code has.

The parameter check reads numpydoc sections with a small parser (no numpydoc dependency):
an entry is a line at the section's indentation, ``name : type, default=value``, or several
names ``a, b, c`` (wrapping onto the next line after a comma) that point elsewhere with
``see :class:`Base```; the base class's own Parameters section must then document them.
A callable without a Parameters section must at least name every parameter in its docstring.
"""

from __future__ import annotations

import ast
import doctest
import importlib
import inspect
import re
from pathlib import Path

import pytest

import olearn

SOURCE = Path(olearn.__file__).parent

#: The packages whose ``__all__`` is the public API.
PUBLIC_PACKAGES = (
    "olearn",
    "olearn.estimators",
    "olearn.io",
    "olearn.evaluation",
    "olearn.datasets",
    "olearn.plotting",
    "olearn.distributed",
)


def _module_name(path: Path) -> str:
    parts = path.relative_to(SOURCE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _prompt_count(text: str) -> int:
    return sum(1 for line in text.splitlines() if line.lstrip().startswith(">>>"))


#: Every module of olearn whose source shows an example (found without importing anything).
EXAMPLE_MODULES = sorted(
    _module_name(path)
    for path in SOURCE.rglob("*.py")
    if _prompt_count(path.read_text(encoding="utf-8"))
)


def test_examples_are_found():
    """The scan sees the examples (a guard against a parametrisation over nothing)."""
    assert len(EXAMPLE_MODULES) >= 5


@pytest.mark.parametrize("module_name", EXAMPLE_MODULES)
def test_docstring_examples(module_name):
    """Each example of the module runs and prints what it shows; ``+SKIP`` marks the few that
    need files or a cluster. Every ``>>>`` line of the source is an example doctest found
    (one in a compiled function's docstring, or in a comment, would silently never run)."""
    module = importlib.import_module(module_name)
    tests = [t for t in doctest.DocTestFinder().find(module, module_name) if t.examples]
    source = Path(module.__file__).read_text(encoding="utf-8")
    assert sum(len(t.examples) for t in tests) == _prompt_count(source), (
        f"{module_name}: some >>> lines are not in docstrings doctest finds"
    )
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for test in tests:
        runner.run(test, out=lambda text: pytest.fail(text, pytrace=False))
    assert runner.failures == 0


# -- parameters ------------------------------------------------------------------------------


def _public_names() -> list[str]:
    names = []
    for package in PUBLIC_PACKAGES:
        for name in importlib.import_module(package).__all__:
            names.append(f"{package}:{name}")
    return names


def _resolve(qualified: str):
    package, name = qualified.split(":")
    return getattr(importlib.import_module(package), name)


def _public_callables() -> list[str]:
    """One public path per distinct class or function (``olearn:AROWClassifier``, not also
    ``olearn.estimators:AROWClassifier``)."""
    seen, keep = set(), []
    for qualified in _public_names():
        obj = _resolve(qualified)
        if not (inspect.isclass(obj) or inspect.isfunction(obj)):
            continue
        key = (obj.__module__, obj.__qualname__)
        if key not in seen:
            seen.add(key)
            keep.append(qualified)
    return keep


def _doc(obj) -> str:
    """The object's own docstring, dedented (never a base class's: ``inspect.getdoc``
    inherits one)."""
    text = vars(obj).get("__doc__") if inspect.isclass(obj) else obj.__doc__
    return inspect.cleandoc(text) if text else ""


def _is_rule(line: str | None) -> bool:
    return bool(line) and set(line.strip()) == {"-"}


def section(doc: str, title: str) -> list[tuple[list[str], str, str]] | None:
    """The entries of a numpydoc section: ``(names, type, description)`` each, or None when
    the docstring has no such section."""
    lines = doc.splitlines()
    for i, line in enumerate(lines[:-1]):
        if line.strip() == title and _is_rule(lines[i + 1]):
            indent = len(line) - len(line.lstrip())
            break
    else:
        return None
    entries: list[list[str]] = []  # [head, description]
    j = i + 2
    continuing = False
    while j < len(lines):
        text = lines[j]
        if not text.strip():
            j += 1
            continue
        level = len(text) - len(text.lstrip())
        if level < indent or (level == indent and j + 1 < len(lines) and _is_rule(lines[j + 1])):
            break
        if level == indent:
            if continuing:
                entries[-1][0] += " " + text.strip()
            else:
                entries.append([text.strip(), ""])
            continuing = text.rstrip().endswith(",")
        else:
            entries[-1][1] += " " + text.strip()
            continuing = False
        j += 1
    parsed = []
    for head, description in entries:
        names, _, kind = head.partition(" : ")
        if not kind and head.endswith(":"):
            names = head[:-1]
        elif not kind and " :" in head:
            names, _, kind = head.partition(" :")
        parsed.append(([n.strip() for n in names.split(",")], kind.strip(), description.strip()))
    return parsed


def _referenced_class(obj, text: str):
    """The class a ``:class:`~a.b.C``` (or a name of the object's module) in ``text`` names."""
    match = re.search(r":class:`~?([\w.]+)`", text)
    if match is None:
        return None
    target = match.group(1)
    module = importlib.import_module(obj.__module__)
    if "." not in target:
        return getattr(module, target)
    path, _, name = target.rpartition(".")
    return getattr(importlib.import_module(path), name)


def documented_parameters(
    obj, title: str = "Parameters"
) -> dict[str, tuple[str, str, int, int]] | None:
    """name -> (type, description, position, count) of each parameter (or, with ``title``,
    attribute) the docstring of ``obj`` documents (following ``see :class:`Base``` to the
    base's own section): the entry's text, and the name's position among the ``count`` names
    of its entry (``a, b : float, default=1.0, 0.1``). None without such a section."""
    entries = section(_doc(obj), title)
    if entries is None:
        return None
    found = {}
    for names, kind, description in entries:
        target = _referenced_class(obj, f"{kind} {description}") if len(names) > 1 else None
        if target is not None:
            inherited = documented_parameters(target, title)
            assert inherited is not None, f"{target.__qualname__} has no {title} section"
            for name in names:
                assert name in inherited, (
                    f"{obj.__qualname__} sends {name!r} to {target.__qualname__}, which does "
                    "not document it"
                )
                found[name] = inherited[name]
        else:
            for position, name in enumerate(names):
                found[name] = (kind, description, position, len(names))
    return found


def _default_text(kind: str) -> str | None:
    match = re.search(r"\bdefault\s*=\s*(.+)$", kind)
    return match.group(1).strip() if match else None


_UNITS = {"KiB": 2**10, "MiB": 2**20, "GiB": 2**30}


def _literal(text: str):
    """The value a documented default shows: a literal, ``2**25`` or ``32 MiB``."""
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        pass
    match = re.fullmatch(r"(\d+) (KiB|MiB|GiB)", text)
    if match:
        return int(match.group(1)) * _UNITS[match.group(2)]
    if re.fullmatch(r"[\d.]+(\s*(\*\*|\*)\s*[\d.]+)+", text):
        return eval(text, {"__builtins__": {}})  # (digits and operators only)
    raise ValueError(text)


def _same_default(text: str, value, position: int = 0, count: int = 1) -> bool:
    try:
        documented = _literal(text)
    except ValueError:
        # "True (False for kernel Pegasos)": the value shown first, or named in the note
        first = text.split(" (")[0].strip()
        if first != text:
            return _same_default(first, value, position, count) or repr(value) in text
        return False
    if count > 1 and isinstance(documented, tuple) and len(documented) == count:
        documented = documented[position]
    if isinstance(documented, bool) or isinstance(value, bool):
        return documented is value
    return documented == value


def _signature_parameters(obj) -> dict[str, inspect.Parameter]:
    target = obj.__init__ if inspect.isclass(obj) else obj
    parameters = inspect.signature(target).parameters
    return {name: p for name, p in parameters.items() if name != "self"}


PUBLIC_CALLABLES = _public_callables()


def test_public_callables_are_found():
    assert len(PUBLIC_CALLABLES) >= 70


def _is_estimator(obj) -> bool:
    return inspect.isclass(obj) and hasattr(obj, "get_params")


@pytest.mark.parametrize("qualified", PUBLIC_CALLABLES)
def test_parameters_documented(qualified):
    """Every parameter of the signature is documented, by its name, with the signature's
    default; nothing else is. Estimators have a Parameters section."""
    obj = _resolve(qualified)
    signature = _signature_parameters(obj)
    documented = documented_parameters(obj)
    if documented is None:
        assert not _is_estimator(obj), f"{qualified}: an estimator needs a Parameters section"
        doc = _doc(obj) + (
            "\n" + _doc(obj.__init__) if inspect.isclass(obj) and "__init__" in vars(obj) else ""
        )
        unnamed = [
            name
            for name, parameter in signature.items()
            if parameter.kind not in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD)
            and not re.search(rf"\b{re.escape(name)}\b", doc)
        ]
        assert not unnamed, f"{qualified}: the docstring never names {unnamed}"
        return
    names = {name.lstrip("*") for name in documented}
    assert names == set(signature), (
        f"{qualified}: undocumented {sorted(set(signature) - names)}, documented but not "
        f"parameters {sorted(names - set(signature))}"
    )
    for name, (kind, _, position, count) in documented.items():
        parameter = signature[name.lstrip("*")]
        text = _default_text(kind)
        if text is not None and parameter.default is not inspect.Parameter.empty:
            assert _same_default(text, parameter.default, position, count), (
                f"{qualified}: {name} documented default={text}, the signature's is "
                f"{parameter.default!r}"
            )


def _string_options(constraints) -> set[str]:
    from sklearn.utils._param_validation import StrOptions

    options: set[str] = set()
    for constraint in constraints:
        if isinstance(constraint, StrOptions):
            options |= set(constraint.options) - set(constraint.deprecated or ())
    return options


ESTIMATORS = [q for q in PUBLIC_CALLABLES if _is_estimator(_resolve(q))]


@pytest.mark.parametrize("qualified", ESTIMATORS)
def test_estimator_allowed_values_documented(qualified):
    """A parameter documented as a set of strings ``{"a", "b"}`` accepts exactly those strings
    (its ``_parameter_constraints``), and one whose constraints accept strings shows them."""
    estimator = _resolve(qualified)
    documented = documented_parameters(estimator)
    constraints = getattr(estimator, "_parameter_constraints", None)
    if constraints is None:  # (validated by hand: nothing declared to compare with)
        return
    for name, (kind, description, _, _) in documented.items():
        options = _string_options(constraints.get(name, ()))
        shown = re.search(r"\{([^}]*)\}", kind)
        if shown is None:
            for option in options:
                assert f'"{option}"' in f"{kind} {description}", (
                    f'{qualified}: {name} accepts "{option}", not shown in {kind!r}'
                )
            continue
        documented_options = set(re.findall(r'"([^"]*)"', shown.group(1)))
        assert documented_options == options, (
            f"{qualified}: {name} documented {sorted(documented_options)}, accepted "
            f"{sorted(options)}"
        )


def _documented_range(kind: str):
    """``(type, left, right, left_closed, right_closed)`` of ``float > 0``, ``int ≥ 1`` or
    ``float in (0.5, 1)``; None when the entry shows no range."""
    number = r"(-?[\d.]+(?:e-?\d+)?)"
    match = re.search(rf"\b(float|int)\s*(>|≥)\s*{number}", kind)
    if match:
        return match.group(1), float(match.group(3)), None, match.group(2) == "≥", False
    match = re.search(rf"\b(float|int) in ([\[(])\s*{number},\s*{number}\s*([\])])", kind)
    if match:
        kind_, opening, left, right, closing = match.groups()
        return kind_, float(left), float(right), opening == "[", closing == "]"
    return None


@pytest.mark.parametrize("qualified", ESTIMATORS)
def test_estimator_ranges_documented(qualified):
    """A range shown in the documentation (``float > 0``, ``int ≥ 1``, ``float in (0.5,
    1)``) is the interval ``_parameter_constraints`` accepts, and a bounded interval is
    shown."""
    from numbers import Integral

    from sklearn.utils._param_validation import Interval

    estimator = _resolve(qualified)
    constraints = getattr(estimator, "_parameter_constraints", None)
    if constraints is None:
        return
    for name, (kind, _, _, _) in documented_parameters(estimator).items():
        shown = _documented_range(kind)
        intervals = [c for c in constraints.get(name, ()) if isinstance(c, Interval)]
        if shown is None:
            bounded = [c for c in intervals if c.left is not None or c.right is not None]
            assert not bounded, f"{qualified}: {name} accepts {bounded[0]}, shows {kind!r}"
            continue
        assert len(intervals) == 1, f"{qualified}: {name} shows {kind!r}, accepts {intervals}"
        interval = intervals[0]
        accepted = (
            "int" if interval.type is Integral else "float",
            None if interval.left is None else float(interval.left),
            None if interval.right is None else float(interval.right),
            interval.closed in ("left", "both"),
            interval.closed in ("right", "both"),
        )
        if shown[2] is None:  # a lower bound only: the right end is open at infinity
            accepted = (*accepted[:3], accepted[3], False)
        assert shown == accepted, f"{qualified}: {name} documented {kind!r}, accepts {interval}"


# -- fitted attributes -----------------------------------------------------------------------


def _training_data(estimator):
    """Small training data the estimator takes: a DataFrame (so that ``feature_names_in_``
    exists) with binary labels or numeric targets, or the input of its own kind."""
    import numpy as np
    import pandas as pd
    from sklearn.base import is_classifier, is_regressor

    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    kind = type(estimator).__name__
    if kind == "SequenceTagger":
        return [["a", "b"], ["c", "a"]], [["X", "Y"], ["Y", "X"]]
    if kind == "UniclassPA":
        return (X,)
    if kind == "JointFeatureClassifier":  # the precomputed Φ(x, c) of 3 classes
        return np.repeat(X[:, None, :], 3, axis=1), rng.integers(0, 3, 40)
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    if is_classifier(estimator):
        return frame, np.where(X[:, 0] > 0, "yes", "no")
    assert is_regressor(estimator), kind
    return frame, X[:, 0] + 0.5


def _public_fitted_attributes(model) -> set[str]:
    names = {name for name in vars(model) if name.endswith("_") and not name.startswith("_")}
    for cls in type(model).__mro__:
        for name, value in vars(cls).items():
            if isinstance(value, property) and name.endswith("_") and not name.startswith("_"):
                names.add(name)
    return names


@pytest.mark.parametrize("qualified", ESTIMATORS)
def test_estimator_attributes_documented(qualified):
    """The Attributes section names exactly the public fitted attributes (``name_``) a model
    has after ``fit``; one that exists only for some input says so ("DataFrame")."""
    import warnings

    estimator = _resolve(qualified)
    documented = documented_parameters(estimator, "Attributes")
    assert documented is not None, f"{qualified} has no Attributes section"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = estimator().fit(*_training_data(estimator()))
    present = {name for name in _public_fitted_attributes(model) if hasattr(model, name)}
    missing = sorted(present - set(documented))
    assert not missing, f"{qualified}: fitted attributes not documented: {missing}"
    for name in set(documented) - present:
        kind, description, _, _ = documented[name]
        assert "DataFrame" in f"{kind} {description}", (
            f"{qualified}: {name} is documented but a fitted model has no such attribute"
        )


# -- rules -----------------------------------------------------------------------------------


def _rule_names() -> list[str]:
    from olearn.rules import RULES

    return list(RULES)


#: A place in a paper: an equation, figure, proposition, lemma, theorem, section or
#: algorithm number, or a named section of a source document (seed 004 numbers nothing).
_CITATION = re.compile(
    r"(\b(eq|Fig|Proposition|Lemma|Theorem|Algorithm)\.?\s*\d|§\s*\d|\bseed \d{3}\s+\(\")"
)


@pytest.mark.parametrize("name", _rule_names())
def test_rule_docstrings_cite_their_paper_equation_and_weighted_form(name):
    """Each rule's docstring gives the paper's equation (figure, proposition...) and states
    its importance-weighted form (docs/tasks.md, "Importance weights", promises both); the
    paper itself (authors and year) is named there or in its module's docstring."""
    from olearn.rules import rule_function

    function = rule_function(name)
    doc = inspect.cleandoc(function.__doc__ or "")
    module = importlib.import_module(function.__module__)
    assert _CITATION.search(doc), f"rule {name}: no equation, figure or section cited"
    assert re.search(r"importance weight h", doc, re.IGNORECASE), (
        f"rule {name}: the importance-weighted form is not stated"
    )
    assert re.search(r"\b(19|20)\d\d\b", doc + (module.__doc__ or "")), (
        f"rule {name}: no paper (authors, year) named"
    )


def _public_methods() -> list[str]:
    """``package:Class.method`` of every public method an olearn class of the public API
    defines or inherits from another olearn class (scikit-learn's own are documented
    there)."""
    found = {}
    for qualified in PUBLIC_CALLABLES:
        cls = _resolve(qualified)
        if not inspect.isclass(cls):
            continue
        for base in cls.__mro__:
            if not base.__module__.startswith("olearn"):
                continue
            for name, value in vars(base).items():
                if not name.startswith("_") and inspect.isfunction(value):
                    found.setdefault((base.__module__, base.__qualname__, name), qualified)
    return [f"{found[key]}.{key[2]}@{key[1]}" for key in sorted(found)]


PUBLIC_METHODS = _public_methods()


def test_public_methods_are_found():
    assert len(PUBLIC_METHODS) >= 40


@pytest.mark.parametrize("method", PUBLIC_METHODS)
def test_public_method_documents_its_parameters(method):
    """Every public method has a docstring that names each of its parameters."""
    qualified, _, owner = method.rpartition("@")
    qualified, _, name = qualified.rpartition(".")
    cls = next(c for c in _resolve(qualified).__mro__ if c.__qualname__ == owner)
    function = vars(cls)[name]
    doc = inspect.cleandoc(function.__doc__ or "")
    assert doc, f"{owner}.{name} has no docstring"
    documented = documented_parameters(function)
    for parameter_name, parameter in inspect.signature(function).parameters.items():
        if parameter_name == "self" or parameter.kind in (
            parameter.VAR_POSITIONAL,
            parameter.VAR_KEYWORD,
        ):
            continue
        if documented is not None:
            assert parameter_name in documented, f"{owner}.{name}: {parameter_name} undocumented"
        else:
            assert re.search(rf"\b{re.escape(parameter_name)}\b", doc), (
                f"{owner}.{name}: the docstring never names {parameter_name}"
            )
