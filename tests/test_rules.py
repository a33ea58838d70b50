"""Hand-computed single steps of every rule: the compiled rule functions called directly, and
the same steps through the estimators.

The numbers below were worked out on paper from the formulas of ALGORITHMS.md (φ = 1, i.e.
η = Φ(1), keeps them exact: ψ = 3/2, ξ = 2). A rule returns (α, c): the mean step and the
precision increment Σ⁻¹ ← Σ⁻¹ + c x xᵀ, whose covariance form is β = c / (1 + c v).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import full_covariance

from olearn import (
    AROWClassifier,
    CWClassifier,
    PassiveAggressiveClassifier,
    PerceptronClassifier,
    SCWClassifier,
    SecondOrderPerceptronClassifier,
)
from olearn.rules import RULES, arow, cw, pa, perceptron, rule_function, scw, sop

MARGIN_RULES = sorted(name for name, rule in RULES.items() if rule.kind == "margin")

ETA_PHI_1 = 0.5 * (1.0 + math.erf(1.0 / math.sqrt(2.0)))  # Φ(1): φ = 1


def hp(*values):
    return np.array(values, dtype=np.float64)


def beta(c, v):
    return c / (1.0 + c * v)


# (rule function, m, v, hyper-parameters, expected α, expected c), each derived by hand.
HAND_STEPS = {
    # Perceptron: α = 1 iff m ≤ 0; a zero score counts.
    "perceptron-mistake": (perceptron.perceptron, -0.5, 2.0, hp(), 1.0, 0.0),
    "perceptron-zero-score": (perceptron.perceptron, 0.0, 2.0, hp(), 1.0, 0.0),
    "perceptron-correct": (perceptron.perceptron, 0.3, 2.0, hp(), 0.0, 0.0),
    # PA: ℓ = 1 − m = 0.5, ‖x‖² = 2 → τ = 0.25.
    "pa": (pa.pa, 0.5, 2.0, hp(), 0.25, 0.0),
    "pa-margin-met": (pa.pa, 1.0, 2.0, hp(), 0.0, 0.0),
    "pa-margin-exceeded": (pa.pa, 1.5, 2.0, hp(), 0.0, 0.0),
    # PA-I: min(C, 0.25).
    "pa1-uncapped": (pa.pa1, 0.5, 2.0, hp(1.0), 0.25, 0.0),
    "pa1-capped": (pa.pa1, 0.5, 2.0, hp(0.1), 0.1, 0.0),
    # PA-II: 0.5 / (2 + 1/(2·1)) = 0.2; with C = 0.25: 0.5 / (2 + 2) = 0.125.
    "pa2": (pa.pa2, 0.5, 2.0, hp(1.0), 0.2, 0.0),
    "pa2-small-C": (pa.pa2, 0.5, 2.0, hp(0.25), 0.125, 0.0),
    # SOP: on a mistake α = (1 − m)/(1 + v) = 2/2 = 1 for m = −1, v = 1; c = 1.
    "sop-mistake": (sop.sop, -1.0, 1.0, hp(), 1.0, 1.0),
    "sop-zero-score": (sop.sop, 0.0, 3.0, hp(), 0.25, 1.0),
    "sop-correct": (sop.sop, 0.5, 1.0, hp(), 0.0, 0.0),
    # AROW: r = 1, m = 0.5, v = 1 → β = 1/2, α = 0.5 · 1/2 = 0.25; c = 1/r = 1.
    "arow": (arow.arow, 0.5, 1.0, hp(1.0), 0.25, 1.0),
    # r = 2, m = 0, v = 2 → β = 1/4, α = 1/4, c = 1/2.
    "arow-r2": (arow.arow, 0.0, 2.0, hp(2.0), 0.25, 0.5),
    "arow-margin-met": (arow.arow, 1.0, 1.0, hp(1.0), 0.0, 0.0),
    # Least squares (AROW regression): r = 1, residual 1.5 gives m = 1 − 1.5 = −0.5, v = 2:
    # α = 1.5/(2 + 1) = 0.5, c = 1/r = 1; a zero residual (m = 1) still shrinks Σ.
    "rls": (arow.rls, -0.5, 2.0, hp(1.0), 0.5, 1.0),
    "rls-zero-residual": (arow.rls, 1.0, 3.0, hp(2.0), 0.0, 0.5),
    # CW variance: φ = 1, m = 0, v = 1: b = 1, disc = 1 + 8 = 9, γ = (−1 + 3)/4 = 0.5,
    # c = 2αφ = 1.
    "cw-variance": (cw.cw_variance, 0.0, 1.0, hp(1.0), 0.5, 1.0),
    # m = 2 > φv = 1: constraint met, no update.
    "cw-variance-met": (cw.cw_variance, 2.0, 1.0, hp(1.0), 0.0, 0.0),
    # Exact CW: φ = 1, m = 0, v = 2: α = √(vφ²ξ)/(vξ) = 2/4 = 0.5; αvφ = 1,
    # √u = 2v/(1 + √(1 + 8)) = 1, c = αφ/√u = 0.5 (β = 0.5/(1 + 1) = 1/4 = αφ/(√u + vαφ)).
    "cw-exact": (cw.cw_exact, 0.0, 2.0, hp(1.0), 0.5, 0.5),
    # m = 2, v = 12: φ√v − m > 0; α = (−3 + √(1 + 24))/24 = 1/12; αvφ = 1,
    # √u = 24/(1 + 7) = 3, c = (1/12)/3 = 1/36.
    "cw-exact-positive-margin": (cw.cw_exact, 2.0, 12.0, hp(1.0), 1.0 / 12.0, 1.0 / 36.0),
    # m = 2, v = 4: φ√v − m = 0, the constraint holds with equality: no update.
    "cw-exact-tight": (cw.cw_exact, 2.0, 4.0, hp(1.0), 0.0, 0.0),
    # SCW-I: φ = 1, m = −3, v = 4: α_CW = (4.5 + √(2.25 + 8))/8 ≈ 0.96 > C = 0.75 → α = 0.75;
    # αvφ = 3, √u = 8/(3 + 5) = 1, c = 0.75.
    "scw1-capped": (scw.scw1, -3.0, 4.0, hp(1.0, 0.75), 0.75, 0.75),
    # Uncapped (C = 10): the exact-CW step 0.5, 0.5 of "cw-exact".
    "scw1-uncapped": (scw.scw1, 0.0, 2.0, hp(1.0, 10.0), 0.5, 0.5),
    "scw1-met": (scw.scw1, 2.0, 4.0, hp(1.0, 1.0), 0.0, 0.0),
    # SCW-II: φ = 1, m = 0, v = 9, C = 1/14: n = 9 + 7 = 16, γ = √(4·16·9·25) = 120,
    # α = 120 / (2(256 + 144)) = 0.15; αvφ = 1.35, √u = 18/(1.35 + √(1.8225 + 36)) = 18/7.5
    # = 2.4, c = 0.15/2.4 = 1/16.
    "scw2": (scw.scw2, 0.0, 9.0, hp(1.0, 1.0 / 14.0), 0.15, 1.0 / 16.0),
    "scw2-met": (scw.scw2, 2.0, 4.0, hp(1.0, 1.0), 0.0, 0.0),
}


@pytest.mark.parametrize("case", HAND_STEPS, ids=list(HAND_STEPS))
def test_hand_computed_step(case):
    rule, m, v, params, alpha, c = HAND_STEPS[case]
    got_alpha, got_c = rule(m, v, params)
    assert got_alpha == pytest.approx(alpha, rel=1e-14, abs=0.0)
    assert got_c == pytest.approx(c, rel=1e-14, abs=0.0)


def test_the_papers_beta_is_the_precision_increment():
    """Exact CW (m = 0, v = 2, φ = 1): the paper's β = αφ/(√u + vαφ) = 0.5/(1 + 1) = 1/4."""
    _, c = cw.cw_exact(0.0, 2.0, hp(1.0))
    assert beta(c, 2.0) == pytest.approx(0.25, rel=1e-15)
    # AROW's β = 1/(v + r) = 1/(1 + 1).
    _, c = arow.arow(0.5, 1.0, hp(1.0))
    assert beta(c, 1.0) == pytest.approx(0.5, rel=1e-15)


# Hyper-parameters of each registered rule for the zero-vector test.
ZERO_HP = {
    "perceptron": hp(),
    "pa": hp(),
    "pa1": hp(1.0),
    "pa2": hp(1.0),
    "sop": hp(),
    "cw_variance": hp(1.0),
    "cw_exact": hp(1.0),
    "arow": hp(1.0),
    "rls": hp(1.0),
    "scw1": hp(1.0, 1.0),
    "scw2": hp(1.0, 1.0),
}


@pytest.mark.parametrize("name", MARGIN_RULES)
@pytest.mark.parametrize("m", [0.0, -1.0, 0.5])
def test_zero_vector_makes_no_update(name, m):
    """‖x‖ = 0 gives v = 0: no update and never a NaN (the formulas divide by v)."""
    rule = rule_function(name)
    alpha, c = rule(m, 0.0, ZERO_HP[name])
    assert (alpha, c) == (0.0, 0.0)


def test_every_registered_rule_is_covered():
    covered = {case[0] for case in HAND_STEPS.values()}
    assert {rule_function(name) for name in MARGIN_RULES} <= covered
    assert set(ZERO_HP) == set(MARGIN_RULES)


# -- the same steps through the estimators ------------------------------------------------------


def test_perceptron_steps():
    """w = 0: x = (2, 0), y = +1 is a mistake (m = 0): w = (2, 0, b = 1). Then x = (−1, 1),
    y = −1: s = −2 + 0 + 1 = −1, m = 1 > 0, no update. Then x = (1, 1), y = −1: s = 2 + 1 = 3,
    m = −3: w = (2, 0, 1) − (1, 1, 1) = (1, −1, 0)."""
    X = np.array([[2.0, 0.0], [-1.0, 1.0], [1.0, 1.0]])
    y = np.array([1, -1, -1])
    model = PerceptronClassifier().partial_fit(X[:1], y[:1], classes=[-1, 1])
    np.testing.assert_array_equal(model.coef_, [[2.0, 0.0]])
    np.testing.assert_array_equal(model.intercept_, [1.0])
    model.partial_fit(X[1:], y[1:])
    np.testing.assert_array_equal(model.coef_, [[1.0, -1.0]])
    np.testing.assert_array_equal(model.intercept_, [0.0])
    assert (model.n_mistakes_, model.n_updates_) == (2, 2)
    # Averaged: w_1 = (2, 0, 1), w_2 = (2, 0, 1), w_3 = (1, −1, 0) → mean (5/3, −1/3, 2/3).
    averaged = PerceptronClassifier(average=True).fit(X, y)
    np.testing.assert_allclose(averaged.coef_, [[5 / 3, -1 / 3]], rtol=1e-15)
    np.testing.assert_allclose(averaged.intercept_, [2 / 3], rtol=1e-15)


@pytest.mark.parametrize(
    ("variant", "C", "alpha"),
    # x = (1, 1) with the intercept: ‖x̃‖² = 3, m = 0, ℓ = 1.
    [("PA", 1.0, 1 / 3), ("PA-I", 0.2, 0.2), ("PA-I", 1.0, 1 / 3), ("PA-II", 1.0, 1 / 3.5)],
)
def test_pa_first_step(variant, C, alpha):
    model = PassiveAggressiveClassifier(variant=variant, C=C)
    model.partial_fit(np.array([[1.0, 1.0]]), [1], classes=[0, 1])
    np.testing.assert_allclose(model.coef_, [[alpha, alpha]], rtol=1e-15)
    np.testing.assert_allclose(model.intercept_, [alpha], rtol=1e-15)


def test_pa_second_step():
    """After w = (1/3, 1/3, 1/3): x = (2, 0), y = −1: s = 2/3 + 1/3 = 1, m = −1, ℓ = 2,
    ‖x̃‖² = 5 → τ = 2/5: w = (1/3 − 4/5, 1/3, 1/3 − 2/5)."""
    model = PassiveAggressiveClassifier(variant="PA").fit([[1.0, 1.0], [2.0, 0.0]], [1, 0])
    np.testing.assert_allclose(model.coef_, [[1 / 3 - 4 / 5, 1 / 3]], rtol=1e-14)
    np.testing.assert_allclose(model.intercept_, [1 / 3 - 2 / 5], rtol=1e-14)


@pytest.mark.parametrize("covariance", ["diagonal", "full"])
def test_arow_first_step(covariance):
    """x̃ = (1, 1, 1), v = 3, r = 1: α = 1/4, β = 1/4. μ = (1/4, 1/4, 1/4); diagonal σ_j =
    1/(1 + 1) = 1/2; full Σ = I − (1/4) 1 1ᵀ."""
    model = AROWClassifier(r=1.0, covariance=covariance).fit([[1.0, 1.0]], [1])
    np.testing.assert_allclose(model.weights_[0], [0.25, 0.25, 0.25], rtol=1e-15)
    if covariance == "diagonal":
        np.testing.assert_allclose(model.variances_[0], [0.5, 0.5, 0.5], rtol=1e-15)
    else:
        expected = np.eye(3) - 0.25 * np.ones((3, 3))
        np.testing.assert_allclose(full_covariance(model), expected, rtol=1e-14, atol=1e-15)


@pytest.mark.parametrize("covariance", ["diagonal", "full"])
def test_sop_first_step(covariance):
    """a = 1, x̃ = (1, 1, 1): m = 0 is a mistake; α = 1/(1 + 3), so μ = x̃/4 = A⁻¹b with
    A = I + x̃x̃ᵀ, b = x̃. Diagonal σ_j = 1/2; full Σ = A⁻¹ = I − (1/4) 1 1ᵀ."""
    model = SecondOrderPerceptronClassifier(covariance=covariance).fit([[1.0, 1.0]], [1])
    np.testing.assert_allclose(model.weights_[0], [0.25, 0.25, 0.25], rtol=1e-15)
    if covariance == "full":
        A = np.eye(3) + np.ones((3, 3))
        np.testing.assert_allclose(full_covariance(model), np.linalg.inv(A), atol=1e-15)
    else:
        np.testing.assert_allclose(model.variances_[0], [0.5, 0.5, 0.5], rtol=1e-15)
    assert (model.n_mistakes_, model.n_updates_) == (1, 1)


@pytest.mark.parametrize("covariance", ["diagonal", "full"])
def test_cw_variance_first_step(covariance):
    """φ = 1, x = (1, 0) without intercept: v = 1 → α = 0.5, c = 1: μ = (0.5, 0),
    σ = (1/2, 1); full Σ = I − (1/2) e₁e₁ᵀ."""
    model = CWClassifier(method="variance", eta=ETA_PHI_1, covariance=covariance)
    model.set_params(fit_intercept=False).fit([[1.0, 0.0]], [1])
    np.testing.assert_allclose(model.coef_, [[0.5, 0.0]], rtol=1e-14)
    expected = np.array([0.5, 1.0])
    covariance_ = model.covariance_
    if covariance == "full":
        np.testing.assert_allclose(covariance_, np.diag(expected), rtol=1e-14, atol=1e-15)
    else:
        np.testing.assert_allclose(covariance_, expected, rtol=1e-14)


# x, α, c (precision increment) and the first-step means and variances, φ = 1, no intercept.
GAUSSIAN_FIRST_STEPS = {
    # Exact CW: x = (1, 1), v = 2, m = 0 → α = 0.5, c = 0.5, β = 1/4.
    "cw-exact": (lambda cov: CWClassifier(eta=ETA_PHI_1, covariance=cov), [1.0, 1.0], 0.5, 0.5),
    # SCW-I, C = 1/6: x = (2, 1, 1), v = 6, α_CW = √12/12 > 1/6 → α = 1/6; αvφ = 1,
    # √u = 12/(1 + 5) = 2, c = 1/12.
    "scw1": (
        lambda cov: SCWClassifier(variant="I", eta=ETA_PHI_1, C=1 / 6, covariance=cov),
        [2.0, 1.0, 1.0],
        1 / 6,
        1 / 12,
    ),
    # SCW-II, C = 1/14: x = (2, 2, 1), v = 9 → α = 0.15, c = 1/16 (see HAND_STEPS).
    "scw2": (
        lambda cov: SCWClassifier(variant="II", eta=ETA_PHI_1, C=1 / 14, covariance=cov),
        [2.0, 2.0, 1.0],
        0.15,
        1 / 16,
    ),
}


@pytest.mark.parametrize("covariance", ["diagonal", "full"])
@pytest.mark.parametrize("case", GAUSSIAN_FIRST_STEPS, ids=list(GAUSSIAN_FIRST_STEPS))
def test_gaussian_first_step(case, covariance):
    factory, x, alpha, c = GAUSSIAN_FIRST_STEPS[case]
    x = np.array(x)
    model = factory(covariance).set_params(fit_intercept=False).fit(x[None, :], [1])
    np.testing.assert_allclose(model.coef_[0], alpha * x, rtol=1e-14)
    if covariance == "diagonal":
        np.testing.assert_allclose(model.covariance_, 1.0 / (1.0 + c * x * x), rtol=1e-14)
    else:
        b = beta(c, x @ x)  # Σ = I − β x xᵀ
        expected = np.eye(len(x)) - b * np.outer(x, x)
        np.testing.assert_allclose(model.covariance_, expected, rtol=1e-14, atol=1e-15)


MODELS = [
    PerceptronClassifier(),
    PerceptronClassifier(average=True),
    PassiveAggressiveClassifier(variant="PA"),
    PassiveAggressiveClassifier(variant="PA-I"),
    PassiveAggressiveClassifier(variant="PA-II"),
    SecondOrderPerceptronClassifier(covariance="full"),
    SecondOrderPerceptronClassifier(covariance="diagonal"),
    CWClassifier(method="variance", covariance="diagonal"),
    CWClassifier(method="variance", covariance="full"),
    CWClassifier(covariance="diagonal"),
    CWClassifier(covariance="full"),
    AROWClassifier(covariance="diagonal"),
    AROWClassifier(covariance="full"),
    SCWClassifier(variant="I", covariance="full"),
    SCWClassifier(variant="II", covariance="diagonal"),
]


@pytest.mark.parametrize("model", MODELS, ids=[repr(m) for m in MODELS])
def test_zero_rows_through_the_estimators(model):
    """Without an intercept a zero row has ‖x̃‖ = 0: it counts as a mistake (score 0) but
    makes no update and no NaN, in fit, partial_fit and learn_one."""
    X = np.array([[0.0, 0.0], [0.0, 0.0], [1.0, -1.0], [0.0, 0.0]])
    y = np.array([1, 0, 1, 0])
    model.set_params(fit_intercept=False).fit(X, y)
    assert model.n_rounds_ == 4
    assert model.n_updates_ == 1  # only the third row moves the model
    assert model.n_mistakes_ == 4  # every score is 0: zero rows, and μ = 0 before row 3
    state = [model.weights_.copy(), model.variances_.copy(), model.precision_cholesky_.copy()]
    model.learn_one({}, 1)
    model.learn_one({0: 0.0}, 0)
    model.partial_fit(np.zeros((2, 2)), [0, 1])
    for before, after in zip(
        state, [model.weights_, model.variances_, model.precision_cholesky_], strict=True
    ):
        np.testing.assert_array_equal(before, after)
    assert np.isfinite(model.decision_function(X)).all()
    assert model.n_updates_ == 1 and model.n_rounds_ == 8
    if hasattr(model, "predict_proba"):
        assert np.isfinite(model.predict_proba(X)).all()
