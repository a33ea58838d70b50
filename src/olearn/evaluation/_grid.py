"""A grid of configurations trained in one compiled pass: each row is read once and learned by
every configuration before the next row.

The loop drives the engine's per-row entry point (``engine.run_one``) over stacked state
arrays, one slice per configuration, so it needs no change to the engine. It applies to
configurations of one binary estimator class that differ only in hyper-parameters (the
state arrays then have equal shapes); anything else falls back to the chunk-lockstep loop of
``train_side_by_side``.
"""

from __future__ import annotations

import inspect

import numpy as np

from olearn import engine
from olearn._compile import jit
from olearn.engine import learn_row, run_one
from olearn.representations.rows import row

# engine.run_one(idx, val, y_i, W, A, S, L, stats, cfg, hp, opts)
_RUN_ONE_PARAMETERS = ("idx", "val", "y_i", "W", "A", "S", "L", "stats", "cfg", "hp", "opts")
# engine.learn_row as of the core engine: the same plus preallocated work arrays
_LEARN_ROW_PARAMETERS = (
    *_RUN_ONE_PARAMETERS,
    *("scores", "xt", "z_a", "z_b", "g", "work"),
)


@jit
def run_grid(X, indptr, indices, y, start, stop, W, A, S, L, stats, cfg, hp, opts):
    """Rows ``start … stop-1`` of X, each read once and learned by every configuration c
    (state ``W[c], A[c], S[c], L[c], stats[c]``, settings ``cfg[c], hp[c], opts[c]``)."""
    for i in range(start, stop):
        idx, val = row(X, indptr, indices, i)
        for c in range(W.shape[0]):
            run_one(idx, val, y[i], W[c], A[c], S[c], L[c], stats[c], cfg[c], hp[c], opts[c])


@jit
def run_grid_workspace(X, indptr, indices, y, start, stop, W, A, S, L, stats, cfg, hp, opts):
    """``run_grid`` with the work arrays allocated once per configuration rather than per
    row (for the engine whose ``learn_row`` takes them)."""
    n_cfg = W.shape[0]
    k, D = W.shape[1], W.shape[2]
    n_work = D if L.shape[1] > 0 else 0
    scores = np.empty((n_cfg, k))
    work = np.empty((n_cfg, 5, n_work))
    for i in range(start, stop):
        idx, val = row(X, indptr, indices, i)
        for c in range(n_cfg):
            w = work[c]
            learn_row(
                idx, val, y[i], W[c], A[c], S[c], L[c], stats[c], cfg[c], hp[c], opts[c],
                scores[c], w[0], w[1], w[2], w[3], w[4],
            )  # fmt: skip


def _parameters(name: str) -> tuple:
    function = getattr(getattr(engine, name, None), "py_func", None)
    return () if function is None else tuple(inspect.signature(function).parameters)


def _grid_loop():
    """The grid loop matching the engine's entry points, or None."""
    if _parameters("learn_row") == _LEARN_ROW_PARAMETERS:
        return run_grid_workspace
    if _parameters("run_one") == _RUN_ONE_PARAMETERS:
        return run_grid
    return None


def _engine_supports_grid() -> bool:
    return _grid_loop() is not None


def eligible(models, classes) -> bool:
    """Whether ``models`` (unfitted clones) can share one compiled pass."""
    if len(models) < 2 or len(classes) != 2 or not _engine_supports_grid():
        return False
    kind = type(models[0])
    return all(
        type(m) is kind and hasattr(m, "_engine_state") and hasattr(m, "_encode") for m in models
    )


def compiled_grid_pass(models, X, y, classes) -> bool:
    """Train ``models`` in place over one pass of (X, y) with a single compiled loop.

    Every model first learns row 0 through ``partial_fit`` (validation, label encoding and
    state allocation stay the estimator's), then rows 1 … n-1 in one ``run_grid`` call, and the
    states are copied back. Returns False, touching nothing, when the models cannot share a
    pass (different classes, shapes or hyper-parameter counts); the caller then falls back.
    """
    from olearn.estimators._validation import check_X, engine_arrays

    if not eligible(models, classes):
        return False
    probe = models[0]
    states = []
    for model in models:
        model.partial_fit(X[:1], y[:1], classes=classes)
        states.append(model._engine_state())
    shapes = {tuple(np.shape(part) for part in state) for state in states}
    if len(shapes) != 1:
        # cannot stack: finish with ordinary partial_fit calls (one per model)
        for model in models:
            model.partial_fit(X[1:], y[1:])
        return True
    X = check_X(probe, X, reset=False)
    data, indptr, indices = engine_arrays(X)
    stacked = [np.ascontiguousarray(np.stack([state[j] for state in states])) for j in range(8)]
    y_signed = np.ascontiguousarray(probe._encode(np.asarray(y)), dtype=np.float64)
    _grid_loop()(data, indptr, indices, y_signed, 1, X.shape[0], *stacked)
    for c, state in enumerate(states):
        for j in range(5):  # W, A, S, L, stats: write the learned state back in place
            state[j][...] = stacked[j][c]
        if hasattr(models[c], "_fold_scale"):
            models[c]._fold_scale()
    return True
