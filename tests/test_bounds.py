"""The papers' loss and mistake bounds on generated data (hypothesis).

Every term of a bound is computed from the data and the run: R = max ‖x_t‖, the margin of the
generating vector, the comparison losses ℓ*_t of several reference vectors u, the learner's
cumulative (squared) hinge loss and mistake counts, and for AROW the sets of mistake and
update rounds and X_A. All without an intercept (the bounds are stated without one).
"""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from olearn import AROWClassifier, PassiveAggressiveClassifier, PerceptronClassifier, engine

SQUARED_LOSS = engine.STAT_SQUARED_LOSS  # the cumulative Σ ℓ_t² in stats_

seeds = st.integers(0, 2**32 - 1)
lengths = st.integers(30, 300)
dimensions = st.integers(1, 6)
scales = st.floats(0.05, 20.0)
flip_rates = st.sampled_from([0.0, 0.0, 0.01, 0.03, 0.1])
margins = st.floats(0.3, 1.0)
PASSES = 3  # the bounds hold for any sequence: three passes make them far from vacuous
# C relative to 1/scale²: the problems are scale-free, and so C·R² is what matters.
aggressiveness = st.floats(0.1, 10.0)


def separable(seed, n, d, margin, scale):
    """Rows at distance ≥ margin·scale from a random hyperplane through 0, labelled by it."""
    rng = np.random.default_rng(seed)
    u = rng.normal(size=d)
    u /= np.linalg.norm(u)
    X = np.empty((0, d))
    while X.shape[0] < n:
        block = rng.normal(size=(4 * n, d))
        X = np.vstack([X, block[np.abs(block @ u) >= margin]])
    X = X[:n] * scale
    y = np.where(X @ u > 0, 1.0, -1.0)
    return X, y, u


def nearly_separable(seed, n, d, margin, scale, flips):
    """``separable`` data with a fraction ``flips`` of the labels flipped: few rows carry a
    comparison loss, so the bounds are far from vacuous (well below the number of rounds)."""
    X, y, u = separable(seed, n, d, margin, scale)
    flip = np.random.default_rng(seed + 1).random(n) < flips
    y[flip] = -y[flip]
    return X, y, u


def reference_vectors(X, y, u_unit, learned):
    """Candidate comparison vectors u: the hidden direction scaled to margin 1 on the rows it
    classifies correctly (and twice that), the least-squares fit to the labels, and the
    learner's own final weights. Every bound holds for every u: each is a separate check."""
    margins = y * (X @ u_unit)
    gamma = margins[margins > 0].min() if (margins > 0).any() else 1.0
    candidates = [u_unit / gamma, 2.0 * u_unit / gamma]
    candidates.append(np.linalg.lstsq(X, y, rcond=None)[0])
    candidates.append(learned)
    return candidates


def hinge(u, X, y):
    return np.maximum(0.0, 1.0 - y * (X @ u))


def radius(X):
    return np.sqrt((X * X).sum(axis=1).max())


@given(seed=seeds, n=lengths, d=dimensions, margin=st.floats(0.05, 1.0), scale=scales)
def test_perceptron_mistakes_at_most_r_over_gamma_squared(seed, n, d, margin, scale):
    X, y, u = separable(seed, n, d, margin, scale)
    gamma = (y * (X @ u)).min()  # the margin of unit u, measured
    assert gamma > 0
    bound = (radius(X) / gamma) ** 2
    for passes in (1, 5):
        model = PerceptronClassifier(fit_intercept=False, max_iter=passes).fit(X, y)
        assert model.n_mistakes_ <= bound
        assert model.n_mistakes_ == model.n_updates_  # the Perceptron updates on mistakes


@given(seed=seeds, n=lengths, d=dimensions, margin=st.floats(0.05, 1.0), scale=scales)
def test_pa_theorem_2_squared_loss_on_separable_data(seed, n, d, margin, scale):
    """Σ ℓ_t² ≤ ‖u‖² R² for any u with ℓ*_t = 0 (Crammer et al. 2006, Theorem 2)."""
    X, y, u_unit = separable(seed, n, d, margin, scale)
    u = u_unit / (y * (X @ u_unit)).min()  # the shortest multiple with y u·x ≥ 1
    assert hinge(u, X, y).max() <= 1e-9
    R = radius(X)
    for passes in (1, 3):
        model = PassiveAggressiveClassifier(variant="PA", fit_intercept=False, max_iter=passes)
        model.fit(X, y)
        squared_loss = model.stats_[SQUARED_LOSS]
        assert squared_loss <= (u @ u) * R**2 * (1 + 1e-9)


@given(
    seed=seeds,
    n=lengths,
    d=dimensions,
    margin=margins,
    scale=scales,
    flips=flip_rates,
    C=aggressiveness,
)
def test_pa1_theorem_4_mistakes(seed, n, d, margin, scale, flips, C):
    """mistakes ≤ max(R², 1/C)(‖u‖² + 2C Σ ℓ*_t) for every u (Theorem 4)."""
    X, y, u_unit = nearly_separable(seed, n, d, margin, scale, flips)
    C = C / scale**2
    model = PassiveAggressiveClassifier(variant="PA-I", C=C, fit_intercept=False, max_iter=PASSES)
    model.fit(X, y)
    R = radius(X)
    for u in reference_vectors(X, y, u_unit, model.coef_[0]):
        bound = max(R**2, 1.0 / C) * (u @ u + 2.0 * C * PASSES * hinge(u, X, y).sum())
        assert model.n_mistakes_ <= bound * (1 + 1e-9)


@given(
    seed=seeds,
    n=lengths,
    d=dimensions,
    margin=margins,
    scale=scales,
    flips=flip_rates,
    C=aggressiveness,
)
def test_pa2_theorem_5_squared_loss(seed, n, d, margin, scale, flips, C):
    """Σ ℓ_t² ≤ (R² + 1/(2C))(‖u‖² + 2C Σ (ℓ*_t)²) for every u (Theorem 5)."""
    X, y, u_unit = nearly_separable(seed, n, d, margin, scale, flips)
    C = C / scale**2
    model = PassiveAggressiveClassifier(variant="PA-II", C=C, fit_intercept=False, max_iter=PASSES)
    model.fit(X, y)
    R = radius(X)
    for u in reference_vectors(X, y, u_unit, model.coef_[0]):
        bound = (R**2 + 0.5 / C) * (u @ u + 2.0 * C * PASSES * (hinge(u, X, y) ** 2).sum())
        assert model.stats_[SQUARED_LOSS] <= bound * (1 + 1e-9)


def arow_rounds(X, y, r):
    """Run full-covariance AROW (Σ₀ = I) one row at a time; return the model and, from its
    counters, the rounds that were mistakes and the rounds that updated without one."""
    model = AROWClassifier(r=r, covariance="full", fit_intercept=False)
    model.partial_fit(X[: 0 + 1], y[:1], classes=[-1.0, 1.0])
    mistakes, updates_only = [], []
    counts = (model.n_mistakes_, model.n_updates_)
    if counts[0]:
        mistakes.append(0)
    elif counts[1]:
        updates_only.append(0)
    for t in range(1, X.shape[0]):
        model.partial_fit(X[t : t + 1], y[t : t + 1])
        new = (model.n_mistakes_, model.n_updates_)
        if new[0] > counts[0]:
            mistakes.append(t)
        elif new[1] > counts[1]:
            updates_only.append(t)
        counts = new
    return model, np.array(mistakes, dtype=int), np.array(updates_only, dtype=int)


@given(
    seed=seeds,
    n=st.integers(10, 150),
    d=dimensions,
    margin=margins,
    scale=st.floats(0.1, 5.0),
    flips=flip_rates,
    r=st.floats(0.05, 10.0),
)
def test_arow_theorem_2_mistakes(seed, n, d, margin, scale, flips, r):
    """AROW (Crammer, Kulesza, Dredze 2009, Theorem 2), for every u:

    M ≤ √(r‖u‖² + uᵀX_A u) · √(log det(I + X_A/r) + U) + Σ_{t∈M∪U} g_t − U,

    M / U the mistake rounds / the rounds that updated without a mistake (U their number),
    X_A = Σ_{t∈M∪U} x_t x_tᵀ, g_t = max(0, 1 − y_t u·x_t). (ALGORITHMS.md prints "+ U"
    outside the second root, following the seed slides; the paper's proof — eq. 15 there —
    puts it inside, which is what is checked.)
    """
    X, y, u_unit = nearly_separable(seed, n, d, margin, scale, flips)
    model, M, U = arow_rounds(X, y, r)
    assert len(M) == model.n_mistakes_
    assert len(M) + len(U) == model.n_updates_
    A = np.concatenate([M, U])
    X_A = X[A].T @ X[A]
    _, log_det = np.linalg.slogdet(np.eye(d) + X_A / r)
    for u in reference_vectors(X, y, u_unit, model.coef_[0]):
        g = hinge(u, X[A], y[A])
        bound = np.sqrt(r * (u @ u) + u @ X_A @ u) * np.sqrt(log_det + len(U))
        bound += g.sum() - len(U)
        assert len(M) <= bound + 1e-9 * max(1.0, abs(bound))
