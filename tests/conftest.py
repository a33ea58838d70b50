"""Shared fixtures and helpers of the test suite.

The oracles and stream generators live in ``tests/reference`` (importable as ``reference``:
pytest puts ``tests/`` on ``sys.path``).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import settings

# Bounds tests draw a modest number of examples: numba is fast, but the suite has a budget.
settings.register_profile("olearn", max_examples=25, deadline=None)
settings.load_profile("olearn")


def full_covariance(model) -> np.ndarray:
    """Σ over all D = n_features + 1 coordinates (intercept last) of a full-covariance model,
    from the stored Cholesky factor of the precision (Σ⁻¹ = L Lᵀ)."""
    L = model.precision_cholesky_[0]
    identity = np.eye(L.shape[0])
    L_inv = np.linalg.solve(L, identity)
    return L_inv.T @ L_inv


#: The arrays a linear model learns (for bit-for-bit comparisons of two models).
LEARNED_STATE = ("weights_", "average_sums_", "variances_", "precision_cholesky_", "stats_")


def model_state(model) -> dict:
    """Every attribute of a model, arrays copied: for before/after comparisons."""
    state = {}
    for key, value in vars(model).items():
        state[key] = value.copy() if isinstance(value, np.ndarray) else value
    return state


def assert_same_state(before: dict, after: dict) -> None:
    """Deep equality of two ``model_state`` snapshots (arrays bit for bit, NaN-aware)."""
    assert before.keys() == after.keys()
    for key, value in before.items():
        other = after[key]
        if isinstance(value, np.ndarray):
            assert isinstance(other, np.ndarray), key
            assert value.dtype == other.dtype and value.shape == other.shape, key
            assert np.array_equal(value, other, equal_nan=value.dtype.kind == "f"), key
        elif isinstance(value, float) and np.isnan(value):
            assert isinstance(other, float) and np.isnan(other), key
        else:
            assert type(value) is type(other) and value == other, key


def returns_of(monkeypatch, owner, name: str) -> list:
    """What each call of the method ``owner.name`` returns, in order, as it goes on running
    (a spy: which of several paths a call took)."""
    returned = []
    method = getattr(owner, name)

    def spy(self, *args, **kwargs):
        returned.append(method(self, *args, **kwargs))
        return returned[-1]

    monkeypatch.setattr(owner, name, spy)
    return returned


@pytest.fixture
def rng():
    return np.random.default_rng(12345)
