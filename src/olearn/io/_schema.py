"""What each estimator writes to a model file, and what a file must satisfy to be loaded.

A model file comes from outside the process, and the compiled loops trust the arrays they are
given: a weight matrix narrower than ``n_features_in_`` says, or a support-vector pool whose
pointers run past its end, is an out-of-bounds write in compiled code. So every class that
can be saved is listed here (:data:`ESTIMATORS`, the only classes a file may name: reading a
file never imports anything else), with its family's *schema*: its fitted scalars, and its
arrays with their dtype and shape in terms of a few named sizes (k weight rows, D columns,
``cap`` support-vector slots, …) that the family derives from the model's own declarations
(``_n_rows``, ``_averaged()``, ``_covariance_kind()``, ``_n_weights``, …). One generic
validator checks a file against it, in two phases:

* :func:`check_layout`, before any array is read: scalars, dtypes and shapes (from the
  headers), so a file claiming a terabyte array is refused without allocating it;
* :func:`check_values`, once the arrays are read: finite values, positive variances, indices
  within bounds, and the relations between arrays (a family's ``relations``).

The same schema says what :func:`olearn.save` writes: the declared state and nothing else (no
caches; attributes a model rebuilds from its parameters are ``transient``). An attribute that
is neither declared nor transient makes ``save`` fail loudly rather than be silently dropped.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np


class Invalid(ValueError):
    """A declared property the file's content does not have (the caller adds the file)."""


# -- declarations -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Scalar:
    """A fitted scalar: ``count`` (int ≥ 0), ``positive`` / ``nonnegative`` (finite float),
    ``flag`` (bool) or ``choice`` (one of ``choices``)."""

    kind: str
    choices: tuple = ()
    optional: bool = False


@dataclass(frozen=True)
class Array:
    """A fitted array. ``shape`` holds ints or size names; ``dtype`` is ``float64``, ``int64``,
    ``labels`` (numbers, booleans or strings) or ``strings``; ``values`` names a check of
    :data:`VALUE_CHECKS`. With ``when``, the array is used only if that flag of the family's
    sizes is on, and is empty (every dimension 0) otherwise. ``order`` is the memory order the
    model keeps it in ("F": feature-major rows), restored on load."""

    shape: tuple
    dtype: str = "float64"
    values: str = "finite"
    when: str | None = None
    optional: bool = False
    order: str = "C"


#: sizes(model, scalars, length) -> (sizes, flags); ``length(name)`` is the first dimension of
#: a declared array as the file states it.
Sizes = Callable[[object, dict, Callable[[str], int]], tuple[dict, dict]]


@dataclass(frozen=True)
class Family:
    name: str
    scalars: dict
    arrays: dict
    sizes: Sizes
    #: attributes rebuilt on load (``_configure``) or caches: never written, ignored if found
    transient: tuple = ()
    #: relations between array values (model, scalars, arrays) -> None, raising Invalid
    relations: Callable | None = None
    #: the model's method that validates its parameters
    check_params: str = "_validate_params"
    #: descriptions of the sizes, for messages
    meaning: dict = field(default_factory=dict)


# -- value checks -------------------------------------------------------------------------------


def _first(mask) -> str:
    index = np.unravel_index(int(np.argmax(mask)), mask.shape)
    return str(tuple(int(i) for i in index)) if len(index) > 1 else str(int(index[0]))


def _finite(a):
    if a.dtype.kind == "f":
        bad = ~np.isfinite(a)
        if bad.any():
            return f"a non-finite value ({a[bad].flat[0]}) at index {_first(bad)}"
    return None


def _positive(a):
    problem = _finite(a)
    if problem is None and (a <= 0).any():
        return f"a value ≤ 0 at index {_first(a <= 0)} (it must be positive)"
    return problem


def _nonnegative(a):
    problem = _finite(a)
    if problem is None and (a < 0).any():
        return f"a negative value at index {_first(a < 0)}"
    return problem


def _sorted_unique(a):
    problem = _finite(a)
    if problem is None and a.size > 1 and not (a[1:] > a[:-1]).all():
        return "labels that are not sorted and distinct"
    return problem


def _unique(a):
    if len(np.unique(a)) != len(a):
        return "repeated labels"
    return None


def _counters(a):
    """The loops' counters: the counts (rounds, mistakes, updates) finite and ≥ 0; the running
    loss sums after them may have overflowed (a huge margin's squared loss is infinite)."""
    return _nonnegative(a[:3])


def _cholesky(a):
    """Lower-triangular factors with a positive diagonal (the precision's Cholesky factors)."""
    problem = _finite(a)
    if problem is None and a.size:
        diagonal = np.diagonal(a, axis1=-2, axis2=-1)
        if (diagonal <= 0).any():
            return f"a diagonal entry ≤ 0 in block {_first(diagonal <= 0)}"
    return problem


VALUE_CHECKS = {
    "any": lambda a: None,
    "finite": _finite,
    "positive": _positive,
    "nonnegative": _nonnegative,
    "sorted-unique": _sorted_unique,
    "unique": _unique,
    "cholesky": _cholesky,
    "counters": _counters,
}

_DTYPES = {
    "float64": lambda d: d == np.float64,
    "int64": lambda d: d == np.int64,
    "labels": lambda d: d.kind in "biufUS",
    "strings": lambda d: d.kind == "U",
}


# -- the families -------------------------------------------------------------------------------

_COUNT = Scalar("count")
_FEATURE_NAMES = Array(("n",), dtype="strings", values="any", optional=True)


def _linear_flags(model) -> dict:
    kind = model._covariance_kind()
    return {
        "averaged": bool(model._averaged()),
        "diagonal": kind == "diagonal",
        "full": kind == "full",
    }


def _engine_stats() -> int:
    from olearn import engine

    return engine.N_STATS


def _linear_classifier_sizes(model, scalars, length):
    L = length("classes_")
    task = scalars["task_"]
    if L < 1 or (task == "binary" and L > 2) or (task != "binary" and L < 2):
        raise Invalid(f"task_ {task!r} does not go with {L} classes")
    n = scalars["n_features_in_"]
    k = model._n_rows(task, L)
    return {"k": k, "D": n + 1, "n": n, "L": L, "stats": _engine_stats()}, _linear_flags(model)


def _linear_regressor_sizes(model, scalars, length):
    n = scalars["n_features_in_"]
    return {"k": 1, "D": n + 1, "n": n, "stats": _engine_stats()}, _linear_flags(model)


def _joint_sizes(model, scalars, length):
    d = scalars["n_joint_features_"]
    if scalars.get("n_features_in_", d) != d:
        raise Invalid("n_features_in_ differs from n_joint_features_")
    L = length("classes_")
    if L < 2:
        raise Invalid(f"a joint-feature model has at least two classes, not {L}")
    sizes = {"k": 1, "D": d + 1, "n": d, "L": L, "stats": _engine_stats()}
    return sizes, _linear_flags(model)


_LINEAR_ARRAYS = {
    "weights_": Array(("k", "D"), order="F"),
    "average_sums_": Array(("k", "D"), when="averaged", order="F"),
    "variances_": Array(("k", "D"), values="positive", when="diagonal", order="F"),
    "precision_cholesky_": Array(("k", "D", "D"), values="cholesky", when="full"),
    "stats_": Array(("stats",), values="counters"),
    "feature_names_in_": _FEATURE_NAMES,
}
_LINEAR_MEANING = {
    "k": "weight rows",
    "D": "n_features_in_ + 1 columns",
    "L": "classes",
    "n": "n_features_in_",
}

LINEAR_CLASSIFIER = Family(
    name="linear classifier",
    scalars={
        "n_features_in_": _COUNT,
        "n_iter_": _COUNT,
        "task_": Scalar(
            "choice",
            ("binary", "multiclass", "ovr", "multilabel", "cost_prediction", "cost_max_loss"),
        ),
    },
    arrays={"classes_": Array(("L",), dtype="labels", values="sorted-unique"), **_LINEAR_ARRAYS},
    sizes=_linear_classifier_sizes,
    meaning=_LINEAR_MEANING,
)
LINEAR_REGRESSOR = Family(
    name="linear regressor",
    scalars={"n_features_in_": _COUNT, "n_iter_": _COUNT},
    arrays=_LINEAR_ARRAYS,
    sizes=_linear_regressor_sizes,
    meaning=_LINEAR_MEANING,
)
JOINT = Family(
    name="joint-feature classifier",
    scalars={
        "n_joint_features_": _COUNT,
        "n_features_in_": Scalar("count", optional=True),
        "n_iter_": _COUNT,
    },
    arrays={"classes_": Array(("L",), dtype="labels", values="sorted-unique"), **_LINEAR_ARRAYS},
    sizes=_joint_sizes,
    meaning={**_LINEAR_MEANING, "D": "n_joint_features_ + 1 columns"},
)


def _uniclass_sizes(model, scalars, length):
    n = scalars["n_features_in_"]
    sizes = {"n": n, "d": n + (1 if model.learn_epsilon else 0), "stats": _engine_stats()}
    return sizes, {}


UNICLASS = Family(
    name="uniclass model",
    scalars={"n_features_in_": _COUNT, "n_iter_": _COUNT},
    arrays={
        "weights_": Array(("d",)),
        "stats_": Array(("stats",), values="counters"),
        "feature_names_in_": _FEATURE_NAMES,
    },
    sizes=_uniclass_sizes,
    transient=("_rule", "_hp", "_radius"),
    check_params="_check_params",
    meaning={"d": "n_features_in_ (+ 1 with learn_epsilon)", "n": "n_features_in_"},
)


def _kernel_sizes(model, scalars, length, rows):
    from olearn.kernels import budget as bm
    from olearn.kernels import expansion, loop

    cap = length("_A")
    budget, maintenance = model._budget_and_maintenance()
    if cap < 1 or (budget and cap < budget + 1):
        raise Invalid(f"_A has {cap} support-vector slots; the model needs at least {budget + 1}")
    sparse = bool(scalars["_sparse_storage"])
    n = scalars["n_features_in_"]
    sizes = {
        "cap": cap,
        "r": rows,
        "n": n,
        "sv": 0 if sparse else cap,
        "pool": length("_pool_val"),
        "counts": expansion.N_COUNTS,
        "stats": loop.N_STATS,
    }
    flags = {"sparse": sparse, "gram": bool(budget) and maintenance in (bm.PROJECT, bm.MERGE)}
    return sizes, flags


def _kernel_classifier_sizes(model, scalars, length):
    L = length("classes_")
    if L < 1:
        raise Invalid("a classifier has at least one class")
    sizes, flags = _kernel_sizes(model, scalars, length, 1 if L <= 2 else L)
    return {**sizes, "L": L}, flags


def _kernel_regressor_sizes(model, scalars, length):
    return _kernel_sizes(model, scalars, length, 1)


def _kernel_relations(model, scalars, arrays) -> None:
    """The support-vector slots and the sparse pool: every stored vector inside the pool,
    no two overlapping, column indices within the width and increasing, and the counters
    (slots used, pool used, longest vector) as the compiled loop relies on them."""
    from olearn.kernels import expansion as ex

    counts = arrays["_counts"]
    n, used, longest = (int(counts[i]) for i in (ex.N_SV, ex.POOL_USED, ex.MAX_LENGTH))
    cap = arrays["_A"].shape[0]
    budget, _ = model._budget_and_maintenance()
    if not 0 <= n <= (budget or cap):
        raise Invalid(f"_counts says {n} support vectors, outside [0, {budget or cap}]")
    if not scalars["_sparse_storage"]:
        return
    pool_idx = arrays["_pool_idx"]
    width = scalars["n_features_in_"]
    if not 0 <= used <= pool_idx.shape[0]:
        raise Invalid(f"_counts says {used} pool entries used of {pool_idx.shape[0]}")
    if not 0 <= longest <= width:
        raise Invalid(f"_counts says the longest vector has {longest} entries, not in [0, {width}]")
    ptr, length = arrays["_ptr"][:n], arrays["_length"][:n]
    if ((ptr < 0) | (length < 0) | (ptr > used) | (length > used - ptr)).any():
        raise Invalid("a support vector (_ptr, _length) lies outside the used pool")
    if n and length.max() > longest:
        raise Invalid("a support vector is longer than _counts' longest")
    order = np.argsort(ptr, kind="stable")
    starts, ends = ptr[order], ptr[order] + length[order]
    if (starts[1:] < ends[:-1]).any():
        raise Invalid("two support vectors overlap in the pool")
    if pool_idx.size and (pool_idx.min() < 0 or pool_idx.max() >= max(width, 1)):
        raise Invalid(f"_pool_idx holds a column outside [0, {width})")
    # column indices increase within each vector: mark the positions q whose successor
    # q + 1 belongs to the same vector
    inner = np.zeros(used + 1, dtype=np.int64)
    long_enough = length > 1
    np.add.at(inner, ptr[long_enough], 1)
    np.add.at(inner, (ptr + length - 1)[long_enough], -1)
    same = np.cumsum(inner)[: max(used - 1, 0)] > 0
    if (np.diff(pool_idx[:used])[same] <= 0).any():
        raise Invalid("a support vector's column indices are not increasing")


_KERNEL_ARRAYS = {
    "_SV": Array(("sv", "n")),
    "_pool_val": Array(("pool",), when="sparse"),
    "_pool_idx": Array(("pool",), dtype="int64", values="any", when="sparse"),
    "_ptr": Array(("cap",), dtype="int64", values="any", when="sparse"),
    "_length": Array(("cap",), dtype="int64", values="any", when="sparse"),
    "_A": Array(("cap", "r")),
    "_b": Array(("r",)),
    "_sq": Array(("cap",), values="nonnegative"),
    "_selfk": Array(("cap",)),
    "_born": Array(("cap",)),
    "_G": Array(("cap", "cap"), when="gram"),
    "_counts": Array(("counts",), dtype="int64", values="any"),
    "stats_": Array(("stats",), values="counters"),
    "feature_names_in_": _FEATURE_NAMES,
}
_KERNEL_SCALARS = {
    "n_features_in_": _COUNT,
    "n_iter_": _COUNT,
    "gamma_": Scalar("positive"),
    "_sparse_storage": Scalar("flag"),
    "_jitter": Scalar("nonnegative"),
}
_KERNEL_MEANING = {
    "cap": "support-vector slots (rows of _A)",
    "r": "coefficient rows",
    "n": "n_features_in_",
    "sv": "slots (dense storage) or 0",
    "pool": "sparse pool entries",
}
_KERNEL_TRANSIENT = ("_cfg", "_hp", "_kp", "_opts", "_compiled_kernel")

KERNEL_CLASSIFIER = Family(
    name="kernel classifier",
    scalars=_KERNEL_SCALARS,
    arrays={"classes_": Array(("L",), dtype="labels", values="sorted-unique"), **_KERNEL_ARRAYS},
    sizes=_kernel_classifier_sizes,
    transient=_KERNEL_TRANSIENT,
    relations=_kernel_relations,
    check_params="_check_params",
    meaning=_KERNEL_MEANING,
)
KERNEL_REGRESSOR = Family(
    name="kernel regressor",
    scalars=_KERNEL_SCALARS,
    arrays=_KERNEL_ARRAYS,
    sizes=_kernel_regressor_sizes,
    transient=_KERNEL_TRANSIENT,
    relations=_kernel_relations,
    check_params="_check_params",
    meaning=_KERNEL_MEANING,
)


def _tagger_sizes(model, scalars, length):
    from olearn.structured import train

    L = length("classes_")
    if L < 1:
        raise Invalid("a tagger has at least one label")
    sizes = {"L": L, "P": model._n_weights(L), "stats": train.N_STATS}
    return sizes, {"averaged": bool(model.average), "arow": model.rule == "AROW"}


TAGGER = Family(
    name="sequence tagger",
    scalars={},
    arrays={
        "classes_": Array(("L",), dtype="strings", values="unique"),
        "weights_": Array(("P",)),
        "average_sums_": Array(("P",), when="averaged"),
        "variances_": Array(("P",), values="positive", when="arow"),
        "label_counts_": Array(("L",), dtype="int64", values="nonnegative"),
        "stats_": Array(("stats",), values="counters"),
    },
    sizes=_tagger_sizes,
    transient=("_pass_seconds", "_averaged_cache"),
    meaning={"L": "labels", "P": "weights for 2**n_bits feature rows and L labels"},
)

_E = "olearn.estimators"
#: The allow-list: every class a model file may name, and its family.
ESTIMATORS = {
    f"{_E}.perceptron.PerceptronClassifier": LINEAR_CLASSIFIER,
    f"{_E}.pa.PassiveAggressiveClassifier": LINEAR_CLASSIFIER,
    f"{_E}.sop.SecondOrderPerceptronClassifier": LINEAR_CLASSIFIER,
    f"{_E}.cw.CWClassifier": LINEAR_CLASSIFIER,
    f"{_E}.arow.AROWClassifier": LINEAR_CLASSIFIER,
    f"{_E}.scw.SCWClassifier": LINEAR_CLASSIFIER,
    f"{_E}.regression.PassiveAggressiveRegressor": LINEAR_REGRESSOR,
    f"{_E}.regression.AROWRegressor": LINEAR_REGRESSOR,
    f"{_E}.regression.SGDRegressor": LINEAR_REGRESSOR,
    f"{_E}.joint.JointFeatureClassifier": JOINT,
    f"{_E}.uniclass.UniclassPA": UNICLASS,
    f"{_E}.kernel.KernelPerceptronClassifier": KERNEL_CLASSIFIER,
    f"{_E}.kernel.KernelPAClassifier": KERNEL_CLASSIFIER,
    f"{_E}.kernel.NORMAClassifier": KERNEL_CLASSIFIER,
    f"{_E}.kernel.KernelPegasosClassifier": KERNEL_CLASSIFIER,
    f"{_E}.kernel.BudgetedSGDClassifier": KERNEL_CLASSIFIER,
    f"{_E}.kernel.KernelPARegressor": KERNEL_REGRESSOR,
    f"{_E}.kernel.NORMARegressor": KERNEL_REGRESSOR,
    "olearn.structured.tagger.SequenceTagger": TAGGER,
}


def class_name(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def family_of(model) -> Family | None:
    return ESTIMATORS.get(class_name(type(model)))


def transient(model, family: Family) -> set[str]:
    return {*family.transient, *getattr(model, "_derived_attributes", ())}


def import_estimator(dotted: str) -> type:
    """The allow-listed class ``dotted``; Invalid for any other name (nothing is imported)."""
    if dotted not in ESTIMATORS:
        raise Invalid(f"names {dotted!r}, which is not an olearn estimator")
    import importlib

    module, _, name = dotted.rpartition(".")
    cls = getattr(importlib.import_module(module), name, None)
    if not isinstance(cls, type) or class_name(cls) != dotted:  # pragma: no cover - a renamed class
        raise Invalid(f"names {dotted!r}, which this olearn does not have")
    return cls


# -- the validator ------------------------------------------------------------------------------


def _check_scalar(name: str, spec: Scalar, value) -> None:
    kind = spec.kind
    if kind == "count":
        ok = isinstance(value, int) and not isinstance(value, bool) and value >= 0
        wanted = "an integer ≥ 0"
    elif kind in ("positive", "nonnegative"):
        ok = (
            isinstance(value, int | float)
            and not isinstance(value, bool)
            and np.isfinite(value)
            and (value > 0 if kind == "positive" else value >= 0)
        )
        wanted = "a finite number " + ("> 0" if kind == "positive" else "≥ 0")
    elif kind == "flag":
        ok, wanted = isinstance(value, bool), "true or false"
    else:
        ok = isinstance(value, str) and value in spec.choices
        wanted = f"one of {list(spec.choices)}"
    if not ok:
        raise Invalid(f"{name} is {_show(value)}, expected {wanted}")


def _show(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def check_layout(model, family: Family, scalars: dict, layouts: dict) -> dict:
    """Check the scalars and every array's dtype and shape (``layouts``: name -> (dtype,
    shape) as the file states them) before any array is read. Returns the expected shapes.
    Raises Invalid."""
    for name, value in scalars.items():
        if name not in family.scalars:
            raise Invalid(f"unknown attribute {name!r}")
        _check_scalar(name, family.scalars[name], value)
    for name, spec in family.scalars.items():
        if name not in scalars and not spec.optional:
            raise Invalid(f"attribute {name} is missing")
    for name in layouts:
        if name not in family.arrays:
            raise Invalid(f"unknown array {name!r}")
    for name, spec in family.arrays.items():
        if name not in layouts and not spec.optional:
            raise Invalid(f"array {name} is missing")

    def length(name: str) -> int:
        shape = layouts[name][1]
        if len(shape) != len(family.arrays[name].shape):
            raise Invalid(
                f"array {name} has {len(shape)} dimensions, "
                f"expected {len(family.arrays[name].shape)}"
            )
        return shape[0]

    sizes, flags = family.sizes(model, scalars, length)
    expected_shapes = {}
    for name, spec in family.arrays.items():
        if name not in layouts:
            continue
        dtype, shape = layouts[name]
        if not _DTYPES[spec.dtype](dtype):
            raise Invalid(f"array {name} has dtype {dtype}, expected {spec.dtype}")
        used = spec.when is None or flags[spec.when]
        expected = tuple((d if isinstance(d, int) else sizes[d]) if used else 0 for d in spec.shape)
        if tuple(shape) != expected:
            names = ", ".join(str(d) for d in spec.shape)
            why = "; ".join(
                f"{d} = {sizes[d]}: {family.meaning[d]}"
                for d in dict.fromkeys(spec.shape)
                if isinstance(d, str) and d in family.meaning
            )
            state = f"({names}) = {expected}" if used else f"empty {expected} ({spec.when} off)"
            raise Invalid(
                f"array {name} has shape {tuple(shape)}, expected {state}"
                + (f" [{why}]" if why and used else "")
            )
        expected_shapes[name] = expected
    return expected_shapes


def check_values(model, family: Family, scalars: dict, arrays: dict) -> None:
    """Check the values of the arrays read (after :func:`check_layout`). Raises Invalid."""
    for name, array in arrays.items():
        spec = family.arrays[name]
        problem = VALUE_CHECKS[spec.values](array)
        if problem:
            raise Invalid(f"array {name} has {problem}")
    if family.relations is not None:
        family.relations(model, scalars, arrays)
