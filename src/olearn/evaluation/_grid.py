"""A grid of configurations trained in one compiled pass: each row is read once and learned by
every configuration before the next row.

The loop drives the engine's round (``engine.learn_row``) over stacked state arrays, one slice
per configuration, with the work arrays allocated once per configuration. It applies to
configurations of one binary estimator class that differ only in hyper-parameters (the state
arrays then have equal shapes); anything else falls back to the chunk-lockstep loop of
``train_side_by_side``.
"""

from __future__ import annotations

import numpy as np

from olearn._compile import jit
from olearn.engine import learn_row
from olearn.representations.rows import row


@jit
def run_grid(X, indptr, indices, y, start, stop, W, A, S, L, stats, cfg, hp, opts):
    """Rows ``start … stop-1`` of X, each read once and learned by every configuration c
    (state ``W[c], A[c], S[c], L[c], stats[c]``, configuration ``cfg[c], hp[c], opts[c]``)."""
    n_cfg = W.shape[0]
    k, D = W.shape[1], W.shape[2]
    n_work = D if L.shape[1] > 0 else 0
    scores = np.empty((n_cfg, k))
    work = np.empty((n_cfg, 5, n_work))
    no_aux = np.empty(0)
    for i in range(start, stop):
        idx, val = row(X, indptr, indices, i)
        for c in range(n_cfg):
            w = work[c]
            ws = (scores[c], w[0], w[1], w[2], w[3], w[4])
            state = (W[c], A[c], S[c], L[c], stats[c])
            learn_row(idx, val, y[i], no_aux, state, (cfg[c], hp[c], opts[c]), ws, 1.0)


def eligible(models, classes) -> bool:
    """Whether ``models`` (unfitted clones) can share one compiled pass."""
    if len(models) < 2 or len(classes) != 2:
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
        state, config = model._engine_state()
        states.append((*state, *config))
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
    run_grid(data, indptr, indices, y_signed, 1, X.shape[0], *stacked)
    for c, state in enumerate(states):
        for j in range(5):  # W, A, S, L, stats: write the learned state back in place
            state[j][...] = stacked[j][c]
        if hasattr(models[c], "_fold_scale"):
            models[c]._fold_scale()
    return True
