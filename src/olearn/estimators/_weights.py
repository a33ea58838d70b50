"""Importance weights of the examples: ``sample_weight`` and the classifiers' ``class_weight``.

A row of weight h is learned with its rule's importance-weighted form (each rule's docstring
in ``olearn.rules`` states it and why: PA-I's C scaled by h, AROW's r divided by h, a gradient
step scaled by h, no effect on the hard-constraint rules PA and CW); a row of weight 0 is
skipped — not learned and not counted in the online counters, exactly as if it were absent.
Weights that are all 1 are no weights: the unweighted loop runs (bit for bit the same).

``class_weight`` multiplies the weight of each row by the weight of its class, with
scikit-learn's semantics (``sklearn.utils.class_weight.compute_class_weight``): a dict
``{label: weight}`` (labels absent from it weigh 1) or ``"balanced"``,
``n_samples / (n_classes · count(label))`` over the labels of ``fit``. As in scikit-learn's
``SGDClassifier``, ``partial_fit`` refuses ``"balanced"`` (one chunk's frequencies are not the
stream's): compute the weights once and pass them as a dict.
"""

from __future__ import annotations

from numbers import Real

import numpy as np


def check_sample_weight(sample_weight, n_samples: int, *, fit: bool = False):
    """``sample_weight`` as the loops read it: None when absent or all 1, else a float64
    array of length ``n_samples``, every weight finite and ≥ 0 (a ValueError names the first
    bad entry). A scalar applies to every row. ``fit`` refuses weights that are all zero
    (nothing to learn from scratch; a ``partial_fit`` chunk of them is simply skipped)."""
    if sample_weight is None:
        return None
    if isinstance(sample_weight, Real) and not isinstance(sample_weight, bool):
        weights = np.full(n_samples, float(sample_weight))
    else:
        try:
            weights = np.asarray(sample_weight, dtype=np.float64)
        except (TypeError, ValueError) as error:
            raise ValueError(f"sample_weight must be numbers: {error}") from None
        if weights.ndim != 1:
            raise ValueError(
                f"sample_weight must be 1-D (one weight per row), got shape {weights.shape}"
            )
        if weights.shape[0] != n_samples:
            raise ValueError(
                f"sample_weight has {weights.shape[0]} weights but X has {n_samples} rows"
            )
    _check_values(weights, "sample_weight")
    if fit and n_samples and not weights.any():
        raise ValueError("sample_weight is zero for every row: fit has nothing to learn from")
    if (weights == 1.0).all():
        return None
    return np.ascontiguousarray(weights)


def _check_values(weights: np.ndarray, name: str) -> None:
    bad = ~np.isfinite(weights)
    if bad.any():
        i = int(np.argmax(bad))
        raise ValueError(f"{name} must be finite: weight {i} is {weights[i]}")
    negative = weights < 0
    if negative.any():
        i = int(np.argmax(negative))
        raise ValueError(f"{name} must be nonnegative: weight {i} is {weights[i]}")


def check_class_weight(class_weight) -> None:
    """Reject a dict whose weights are not finite nonnegative numbers (named)."""
    if isinstance(class_weight, dict):
        for label, weight in class_weight.items():
            if isinstance(weight, bool) or not isinstance(weight, Real):
                raise ValueError(f"class_weight[{label!r}] must be a number, got {weight!r}")
            if not np.isfinite(weight) or weight < 0:
                raise ValueError(
                    f"class_weight[{label!r}] must be finite and nonnegative, got {weight}"
                )


def class_weights(class_weight, classes, y, *, partial: bool) -> np.ndarray | None:
    """The weight of each class of ``classes`` (sorted), or None without ``class_weight``.

    ``fit`` (``partial`` False) follows ``compute_class_weight`` over its labels ``y``: a
    dict key that is not a class raises there, and "balanced" weighs by ``y``'s counts.
    ``partial_fit`` takes a dict only (the label set may still grow: keys not seen yet are
    fine) and refuses "balanced", as scikit-learn's ``SGDClassifier`` does."""
    if class_weight is None:
        return None
    if isinstance(class_weight, str):  # "balanced"
        if partial:
            raise ValueError(
                "class_weight='balanced' is not supported by partial_fit (one chunk's label "
                "frequencies are not the stream's): compute the weights once, e.g. "
                "sklearn.utils.class_weight.compute_class_weight('balanced', classes=classes, "
                "y=y) over a large enough sample, and pass them as a dict {label: weight}."
            )
        from sklearn.utils.class_weight import compute_class_weight

        return compute_class_weight(class_weight, classes=np.asarray(classes), y=y)
    check_class_weight(class_weight)
    if not partial:
        from sklearn.utils.class_weight import compute_class_weight

        return compute_class_weight(class_weight, classes=np.asarray(classes), y=y)
    return np.array([float(class_weight.get(_plain(c), 1.0)) for c in classes])


def _plain(label):
    """A NumPy scalar label as the Python value a dict is keyed by (np.int64(3) → 3)."""
    return label.item() if isinstance(label, np.generic) else label


def labelled_row_weights(sample_weight, class_weight, classes, y, *, partial: bool):
    """The rows' weights of a classifier: the checked ``sample_weight`` times
    ``class_weight``'s weight of each row's class (``classes`` sorted, holding every label
    of ``y``); None when every weight is 1. ``partial`` as in :func:`class_weights`; a
    ``fit`` (not ``partial``) refuses weights that are all zero."""
    n = len(y)
    if class_weight is None:
        return check_sample_weight(sample_weight, n, fit=not partial)
    per_class = class_weights(class_weight, classes, y, partial=partial)
    return row_weights(sample_weight, per_class, np.searchsorted(classes, y), n, fit=not partial)


def row_weights(sample_weight, per_class, class_index, n_samples: int, *, fit: bool = False):
    """The weight of each row: ``sample_weight`` (checked) times the weight of its class
    (``per_class[class_index]``); None when every weight is 1."""
    weights = check_sample_weight(sample_weight, n_samples, fit=fit)
    if per_class is None or (per_class == 1.0).all():
        return weights
    by_row = per_class[np.asarray(class_index, dtype=np.intp)]
    weights = by_row if weights is None else weights * by_row
    if (weights == 1.0).all():
        return None
    return np.ascontiguousarray(weights, dtype=np.float64)


def learned_labels(y, weights, known):
    """The labels a call adds to ``known`` (the model's labels and those announced; None
    for none) and y with its skipped rows relabelled: a row of weight 0 is as if absent, so
    its label alone grows no class. Returns ``(labels, y)``, or ``(None, y)`` when every
    row is learned, or none is on an unfitted model (the labels are then y's)."""
    if weights is None:
        return None, y
    kept = weights > 0
    if kept.all() or (known is None and not kept.any()):
        return None, y
    labels = np.unique(y[kept])
    if known is not None:
        labels = np.union1d(known, labels) if len(labels) else np.asarray(known)
    # the skipped rows are never read; a known label keeps their encoding in range
    return labels, np.where(kept, y, labels[0])
