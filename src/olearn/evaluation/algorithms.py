"""Named configurations for the experiments and LIBOL's parameter grids, from the one
registry of algorithm names (:mod:`olearn.registry`)."""

from __future__ import annotations

import importlib

from olearn.registry import ALGORITHMS, ESTIMATORS, GRID_VALUES, lookup, matching

__all__ = ["ALGORITHMS", "libol_grid", "make_estimator"]


def make_estimator(name: str, task: str | None = None, **params):
    """A fresh estimator for the algorithm ``name`` of :data:`olearn.registry.ALGORITHMS`
    (its estimator for ``task`` — "binary", "multiclass" or "regression" — when it has one,
    else its classifier, or its only estimator), with the parameters the name fixes and
    then ``params``."""
    algorithm = lookup(name)
    class_name = (
        algorithm.classes.get(task)
        or algorithm.classes.get("binary")
        or next(iter(algorithm.classes.values()))
    )
    cls = getattr(importlib.import_module(ESTIMATORS[class_name]), class_name)
    estimator = cls(**algorithm.fixed)
    unknown = set(params) - set(estimator.get_params())
    if unknown:
        raise ValueError(
            f"{name} has no parameter(s) {sorted(unknown)}; it has "
            f"{sorted(estimator.get_params())}."
        )
    return estimator.set_params(**params)


def libol_grid(estimator) -> dict[str, list[float]]:
    """The LIBOL grid for ``estimator``: the hyper-parameters that the registry's algorithms of
    its class and configuration tune (C of PA-I/PA-II and SCW, r of AROW, a of SOP over
    2^-4…2^4; η of CW and SCW over 0.55…0.95). The Perceptron and plain PA tune none."""
    params = estimator.get_params()
    names: list[str] = []
    for algorithm in matching(type(estimator).__name__, params):
        names.extend(p for p in algorithm.grid if p not in names)
    if params.get("variant") == "PA":  # plain PA ignores C (kernel-pa's name fixes no variant)
        names = [p for p in names if p != "C"]
    return {p: list(GRID_VALUES[p]) for p in names}
