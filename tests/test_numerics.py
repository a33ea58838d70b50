"""What counts as an update, what is never applied, and what counts as a mistake: the same in
every loop (``olearn.representations._pass``)."""

import warnings

import numpy as np
import pytest

from olearn import (
    AROWClassifier,
    CWClassifier,
    PassiveAggressiveClassifier,
    PerceptronClassifier,
    SCWClassifier,
    SecondOrderPerceptronClassifier,
    SGDRegressor,
)
from olearn.cli import main
from olearn.estimators._state import NotLearnedWarning
from olearn.representations._pass import UPDATE_TOLERANCE, applicable, significant
from olearn.tasks import binary, multiclass, regression


@pytest.mark.parametrize(
    "alpha, c, v, m, counted",
    [
        (1e-16, 0.0, 1.0, 1.0 - 1e-16, False),  # a margin on the threshold, stepped by rounding
        (0.25, 0.0, 2.0, 0.5, True),  # PA's step of test_rules: the margin moves 0.5 → 1
        (1.0, 0.0, 1e-16, 0.0, True),  # a Perceptron step on a tiny row still counts
        (0.0, 1e-3, 1.0, 2.0, True),  # a covariance-only step (SOP, AROW regression)
        (0.0, 1e-14, 1.0, 2.0, False),
        (1e-8, 0.0, 1.0, 1e3, True),  # relative to the margin: 1e-11 of 1000 counts
        (1e-10, 0.0, 1.0, 1e3, False),  # 1e-13 of it does not
    ],
)
def test_an_update_counts_when_it_moves_the_margin_beyond_the_tolerance(alpha, c, v, m, counted):
    assert significant(alpha, c, v, m) == counted
    assert UPDATE_TOLERANCE == 1e-12  # the value documented with n_updates_


def test_repeated_rows_count_only_the_steps_that_move_the_margin():
    """On one row repeated, CW and SCW keep stepping by rounding errors once the margin sits
    on the threshold: n_updates_ counts the rounds whose margin or variance along x moved
    beyond the tolerance, measured here from the model's own scores and covariance."""
    from scipy.linalg import solve_triangular

    X = np.vstack([[[-1.0, 0.2, 0.5]], np.tile([[0.3, 0.7, 0.1]], (80, 1))])
    y = np.concatenate([[-1.0], np.ones(80)])

    def margin_and_confidence(model, i):
        """m and v = x̃ᵀΣx̃ = ‖L⁻¹x̃‖² (x̃: the row and the intercept feature)."""
        x = np.append(X[i], 1.0)
        z = solve_triangular(model.precision_cholesky_[0], x, lower=True)
        return y[i] * model.decision_function(X[i : i + 1])[0], z @ z

    # Full covariance: a precision step c shrinks v exactly to v / (1 + c·v).
    for model in (CWClassifier(), SCWClassifier(), SCWClassifier(variant="II")):
        model.set_params(covariance="full")
        moved = 0
        model.partial_fit(X[:1], y[:1], classes=[-1.0, 1.0])
        before_updates = model.n_updates_
        for i in range(1, len(X)):
            m, v = margin_and_confidence(model, i)
            model.partial_fit(X[i : i + 1], y[i : i + 1])
            m_after, v_after = margin_and_confidence(model, i)
            change = max(abs(m_after - m) / max(abs(m), abs(m_after)), (v - v_after) / v)
            assert abs(change - UPDATE_TOLERANCE) > 1e-14  # clear of rounding either way
            moved += change > UPDATE_TOLERANCE
        assert model.n_updates_ - before_updates == moved, type(model).__name__
        assert moved < len(X) - 1  # the stream does have rounding-size steps


def test_a_nan_margin_counts_as_a_mistake():
    nan = np.array([np.nan])
    assert binary.binary(1.0, nan)[5]
    assert multiclass.multiclass(0.0, np.array([np.nan, 0.0]))[5]
    assert regression.regression(1.0, nan, 0.1)[5]
    assert not applicable(np.nan, 0.0, 1.0) and not applicable(1.0, 0.0, np.inf)


HUGE_MODELS = {
    "cw-variance": lambda: CWClassifier(method="variance"),
    "cw-variance-full": lambda: CWClassifier(method="variance", covariance="full"),
    "scw2-full": lambda: SCWClassifier(variant="II", covariance="full"),
    "arow-full": lambda: AROWClassifier(covariance="full"),
    "sop": lambda: SecondOrderPerceptronClassifier(),
    "pa1": lambda: PassiveAggressiveClassifier(),
    "perceptron": lambda: PerceptronClassifier(),
}


@pytest.mark.parametrize("scale", [1e150, 1e200, 1e308])
@pytest.mark.parametrize("name", sorted(HUGE_MODELS))
def test_huge_finite_features_never_make_the_model_nan(name, scale):
    """A row whose ‖x‖² or xᵀΣx overflows (or whose step does) is not learned, with a
    warning; the model stays finite and learns the other rows."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 4))
    y = np.where(X[:, 0] > 0, 1, -1)
    X[10] *= scale
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = HUGE_MODELS[name]().fit(X, y)
    state = [model.weights_, model.variances_, model.precision_cholesky_]
    assert all(np.isfinite(a).all() for a in state), name
    assert model.score(np.delete(X, 10, axis=0), np.delete(y, 10)) > 0.8
    refused = [w for w in caught if "not learned" in str(w.message)]
    if name.startswith("cw-variance") and scale >= 1e200:
        assert refused and issubclass(refused[0].category, RuntimeWarning)


SGD_MODELS = {
    "squared": lambda: SGDRegressor(),
    "squared-no-decay": lambda: SGDRegressor(alpha=0.0),
    "huber": lambda: SGDRegressor(loss="huber", eta0=0.1),
    "epsilon-insensitive-inverse": lambda: SGDRegressor(loss="epsilon_insensitive",
                                                        schedule="inverse", alpha=0.1),
}  # fmt: skip


def _not_learned(call):
    """The counts of the NotLearnedWarnings that ``call`` raises."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    return [w.message.count for w in caught if w.category is NotLearnedWarning]


@pytest.mark.parametrize("name", sorted(SGD_MODELS))
def test_an_sgd_step_that_overflows_is_not_applied(name):
    """A finite row whose gradient step overflows (a value of 1e200: ‖x‖² and α·x are
    infinite) is not learned, nor decayed, and counted as a margin rule's; before, its step
    made the weights infinite and every later row unlearnable. As the last row, it leaves the
    model fitted without it, bit for bit; in the middle, a finite model that learns the rows
    after it."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 5))
    y = 2.0 * X[:, 0] + 0.5
    huge = X.copy()
    huge[-1, 3] = huge[25, 3] = 1e200
    make = SGD_MODELS[name]
    model, without = make(), make().fit(X[:-1], y[:-1])
    assert _not_learned(lambda: model.fit(np.vstack([X[:-1], huge[-1:]]), y)) == [1]
    np.testing.assert_array_equal(model.weights_, without.weights_)
    model, without = make().fit(X[:30], y[:30]), make().fit(X[:30], y[:30])
    without.partial_fit(X[30:-1], y[30:-1])
    assert _not_learned(lambda: model.partial_fit(huge[30:], y[30:])) == [1]
    np.testing.assert_array_equal(model.weights_, without.weights_)
    before = model.weights_.copy()
    assert _not_learned(lambda: model.learn_one({3: 1e200}, 1.0)) == [1]
    np.testing.assert_array_equal(model.weights_, before)
    model = make()
    assert _not_learned(lambda: model.fit(huge[:-1], y[:-1])) == [1]
    updates = model.n_updates_
    assert np.isfinite(model.weights_).all() and np.isfinite(model.predict(X)).all()
    model.partial_fit(X[26:], y[26:])
    assert np.isfinite(model.weights_).all() and model.n_updates_ > updates


def test_the_command_line_reports_rows_it_could_not_learn(tmp_path, capsys):
    data = tmp_path / "huge.svm"
    lines = [f"{1 if i % 2 else -1} 1:{(i % 5) - 2} 2:0.5" for i in range(30)]
    lines[7] = "1 1:1e200 2:1e200"
    data.write_text("\n".join(lines) + "\n")
    model = tmp_path / "m.olm"
    code = main(["train", "cw", str(data), "--method", "variance", "-o", str(model), "--quiet"])
    assert code == 0
    assert "1 row(s) were not learned" in capsys.readouterr().err
    import olearn

    assert np.isfinite(olearn.load(model).weights_).all()
