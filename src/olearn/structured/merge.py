"""Mixing sequence taggers (iterative parameter mixing, ``olearn.distributed``) with sparse
deltas.

A tagger's weights are one flat vector of ``(2^b + 1)·L + L + L² + L`` entries (143 MB a copy
at ``n_bits=20`` and 17 labels), of which a shard's pass over its sentences moves a small
part. So a shard returns a :class:`Delta` — the positions it changed and their new values,
plus its counters and label counts — and the driver mixes the deltas into its own copy of the
start, with the linear models' rules (``representations.linear`` and ``diagonal``) read on
those positions only:

* weights (Perceptron, PA): each averaged over the shards that changed it (``"changed"``) or
  over all shards with weights ``λ`` (``"uniform"``, ``"updates"``);
* AROW's diagonal Gaussian: precisions and precision-weighted means combined as
  ``diagonal.merge`` does (``"precision"``, the default, or ``"average"``), a shard that did
  not touch a position counting with the start's values;
* averaging sums: the mean of every weight vector the shards held (``linear.merge_average_sums``:
  the sums move everywhere, ``a = (T + 1)·w − σ``, but ``σ`` only where a shard changed);
* counters and label counts: the start's plus every shard's increments.

A position no shard changed keeps the start's mean and variance exactly; the result equals
the dense rules on full copies up to rounding (tests/test_distributed.py).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class Delta:
    """What a shard changed: ``positions`` (sorted int64) and the new weights, averaging
    sums and variances there (empty arrays for parts the model does not keep), the counters
    and the label counts after its pass."""

    positions: np.ndarray
    weights: np.ndarray
    sums: np.ndarray
    variances: np.ndarray
    stats: np.ndarray
    label_counts: np.ndarray


def delta(state, start) -> Delta:
    """The :class:`Delta` of ``state = (w, a, s, stats, label_counts)`` from ``start``."""
    w, a, s, stats, counts = state
    moved = w != start[0]
    if a.size:
        moved |= a != start[1]
    if s.size:
        moved |= s != start[2]
    positions = np.flatnonzero(moved)
    return Delta(
        positions,
        w[positions],
        a[positions] if a.size else a[:0].copy(),
        s[positions] if s.size else s[:0].copy(),
        stats.copy(),
        counts.copy(),
    )


def applied(start, change: Delta | None):
    """The state ``start`` with ``change`` applied (new arrays)."""
    w, a, s, stats, counts = (np.array(x, copy=True) for x in start)
    if change is None:
        return w, a, s, stats, counts
    p = change.positions
    w[p] = change.weights
    if a.size:
        a[p] = change.sums
    if s.size:
        s[p] = change.variances
    return w, a, s, change.stats.copy(), change.label_counts.copy()


def merge(deltas, weights, start, *, combine: str = "changed"):
    """The mixed state ``(w, a, s, stats, label_counts)`` of shards that started from
    ``start`` and changed it by ``deltas``. ``combine``: "changed", "uniform" (first-order
    weights), "precision" or "average" (AROW's diagonal Gaussian); one delta is applied as
    it is."""
    from olearn.representations.linear import mixing_weights

    if len(deltas) == 1:
        return applied(start, deltas[0])
    lam = mixing_weights(weights, len(deltas))
    w0, a0, s0, stats0, counts0 = start
    w = w0.copy()
    if combine in ("precision", "average"):
        s = s0.copy()
        p_acc = np.zeros(0)
        touched = np.unique(np.concatenate([d.positions for d in deltas]))
        p0 = 1.0 / s0[touched]
        p_acc = p0.copy()  # Σ λ_i p_i, the untouched shards counting with p⁰ (Σ λ = 1)
        b_acc = p0 * w0[touched] if combine == "precision" else w0[touched].copy()
        for d, l in zip(deltas, lam, strict=True):
            at = np.searchsorted(touched, d.positions)
            p_i = 1.0 / d.variances
            p_acc[at] += l * (p_i - p0[at])
            if combine == "precision":
                b_acc[at] += l * (p_i * d.weights - p0[at] * w0[d.positions])
            else:
                b_acc[at] += l * (d.weights - w0[d.positions])
        w[touched] = b_acc / p_acc if combine == "precision" else b_acc
        s[touched] = 1.0 / p_acc
    elif combine in ("changed", "uniform"):
        s = s0.copy()
        touched = np.unique(np.concatenate([d.positions for d in deltas]))
        num = np.zeros(touched.shape[0])
        den = np.zeros(touched.shape[0])
        for d, l in zip(deltas, lam, strict=True):
            at = np.searchsorted(touched, d.positions)
            moved = d.weights != w0[d.positions]
            if combine == "changed":
                num[at] += np.where(moved, l * d.weights, 0.0)
                den[at] += np.where(moved, l, 0.0)
            else:  # an untouched shard holds the start's weight
                num[at] += l * (d.weights - w0[d.positions])
        if combine == "changed":
            some = den > 0
            w[touched[some]] = num[some] / den[some]
        else:
            w[touched] += num
    else:
        raise ValueError(f"combine must be 'changed', 'uniform', 'precision' or 'average', "
                         f"got {combine!r}")  # fmt: skip
    a = _average_sums(w, deltas, start)
    stats = stats0 + sum(d.stats - stats0 for d in deltas)
    counts = counts0 + sum(d.label_counts - counts0 for d in deltas)
    return w, a, s, stats, counts


def _average_sums(w, deltas, start):
    """``linear.merge_average_sums`` on deltas: ``σ = (T + 1)·w − a`` summed over the shards'
    increments (zero where a shard changed nothing), then ``a = (T + 1)·w_mix − σ``."""
    w0, a0 = start[0], start[1]
    if not a0.size:
        return a0.copy()
    T0 = start[3][0]  # structured.train.STAT_ROUNDS
    sigma = (T0 + 1.0) * w0 - a0
    T = T0
    for d in deltas:
        T_i = d.stats[0]
        p = d.positions
        # σ_i − σ₀ = (T_i + 1)·w_i − a_i − (T₀ + 1)·w⁰ + a⁰: at an untouched position
        # (T_i − T₀)·w⁰; at a changed one from its values
        sigma += (T_i - T0) * w0
        sigma[p] += ((T_i + 1.0) * d.weights - d.sums) - ((T_i + 1.0) * w0[p] - a0[p])
        T += T_i - T0
    return (T + 1.0) * w - sigma
