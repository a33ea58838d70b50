"""Uniclass prediction (§6): oracle equality, the learned radius's monotonicity and bound,
convergence inside a fixed ball, bad input."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import tasks as ref

import olearn


def _ball(n, d, centre, radius, seed):
    rng = np.random.default_rng(seed)
    directions = rng.normal(size=(n, d))
    directions /= np.linalg.norm(directions, axis=1, keepdims=True)
    radii = radius * rng.random(n) ** (1.0 / d)  # uniform in the ball
    return np.asarray(centre) + directions * radii[:, None]


@pytest.mark.parametrize("variant", ["PA", "PA-I", "PA-II"])
@pytest.mark.parametrize("B", [None, 2.5])
def test_uniclass_equals_oracle(variant, B):
    Y = _ball(400, 3, [3.0, -1.0, 2.0], 1.5, seed=0)
    model = olearn.UniclassPA(variant=variant, C=0.3, epsilon=0.8, learn_epsilon=B is not None,
                              B=B)  # fmt: skip
    for lo in range(0, 400, 100):  # partial_fit continues the same stream
        model.partial_fit(Y[lo : lo + 100])
    centres, radii = ref.uniclass(Y, variant, C=0.3, epsilon=0.8, B=B)
    np.testing.assert_allclose(model.center_, centres[-1], atol=1e-9)
    np.testing.assert_allclose(model.predict(), centres[-1], atol=1e-9)
    assert model.epsilon_ == pytest.approx(radii[-1], abs=1e-9)
    assert model.n_updates_ > 0


@settings(max_examples=20, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    B=st.floats(0.1, 10.0),
    variant=st.sampled_from(["PA", "PA-I", "PA-II"]),
    C=st.floats(0.01, 10.0),
)
def test_learned_radius_never_decreases_and_never_exceeds_B(seed, B, variant, C):
    Y = _ball(60, 2, [2.0, 0.0], 3.0, seed) * np.random.default_rng(seed).uniform(0.1, 5)
    model = olearn.UniclassPA(variant=variant, C=C, learn_epsilon=True, B=B)
    radii = []
    for y in Y:
        model.partial_fit(y[None, :])
        radii.append(model.epsilon_)
    radii = np.array(radii)
    assert np.all(np.diff(radii) >= -1e-12)
    assert np.all(radii <= B + 1e-12)
    assert radii[-1] > 0


@pytest.mark.parametrize("variant", ["PA", "PA-I", "PA-II"])
def test_centre_converges_inside_a_fixed_ball(variant):
    centre, radius = np.array([4.0, -3.0, 1.0]), 1.0
    Y = _ball(3000, 3, centre, radius, seed=1)
    model = olearn.UniclassPA(variant=variant, C=1.0, epsilon=radius).fit(Y)
    assert np.linalg.norm(model.center_ - centre) <= radius
    # and it settles: most of the last 1,000 rounds fall inside the ε-ball
    model = olearn.UniclassPA(variant=variant, C=1.0, epsilon=radius).fit(Y[:2000])
    updates = model.n_updates_
    model.partial_fit(Y[2000:])
    assert model.n_updates_ - updates < 500


def test_score_samples_and_predict_shapes():
    Y = _ball(100, 2, [0.0, 0.0], 1.0, seed=2)
    model = olearn.UniclassPA(epsilon=1.0).fit(Y)
    assert model.predict(Y[:3]).shape == (3, 2)
    inside = model.score_samples(model.center_[None, :])
    assert inside[0] == pytest.approx(1.0)


def test_score_is_minus_the_mean_epsilon_insensitive_loss():
    # the docstring's stream: PA moves the centre 4 of the 5 toward (3, 4), to (2.4, 3.2)
    model = olearn.UniclassPA(variant="PA", epsilon=1.0).fit([[0.0, 0.0], [3.0, 4.0], [3.0, 4.0]])
    centre = np.array([2.4, 3.2])
    np.testing.assert_allclose(model.center_, centre)
    # at the centre, 5 away, 1.5 away, on the ball's edge: losses 0, 4, 0.5, 0
    Y = centre + np.array([[0.0, 0.0], [3.0, 4.0], [0.0, 1.5], [0.6, -0.8]])
    assert model.score(Y) == pytest.approx(-(0 + 4 + 0.5 + 0) / 4)
    assert model.score(Y, sample_weight=[1, 0, 2, 1]) == pytest.approx(-(2 * 0.5) / 4)
    assert model.score(Y[[0, 3]]) == 0.0  # every target within the ball: the best score
    with pytest.raises(ValueError, match="nothing to score"):
        model.score(Y, sample_weight=np.zeros(4))
    with pytest.raises(ValueError, match="features"):
        model.score(np.ones((2, 3)))


def test_score_is_higher_for_a_better_centre_and_uses_the_learned_radius():
    Y = _ball(500, 3, [4.0, -3.0, 1.0], 1.0, seed=4)
    early = olearn.UniclassPA(epsilon=0.5).fit(Y[:2])
    late = olearn.UniclassPA(epsilon=0.5).fit(Y[:400])
    assert late.score(Y[400:]) > early.score(Y[400:])
    learned = olearn.UniclassPA(learn_epsilon=True, B=3.0).fit(Y[:400])
    assert 0 < learned.epsilon_ < 3.0
    wider = _ball(100, 3, [4.0, -3.0, 1.0], 4.0, seed=5)  # some beyond the learned radius
    distances = np.linalg.norm(wider - learned.center_, axis=1)
    expected = -np.maximum(0.0, distances - learned.epsilon_).mean()
    assert expected < 0 and learned.score(wider) == pytest.approx(expected)


def test_bad_input():
    with pytest.raises(ValueError, match="B"):
        olearn.UniclassPA(learn_epsilon=True).fit(np.zeros((3, 2)))
    model = olearn.UniclassPA().fit(np.ones((3, 2)))
    before = model.weights_.copy()
    with pytest.raises(ValueError, match="NaN"):
        model.partial_fit(np.array([[1.0, np.nan]]))
    with pytest.raises(ValueError, match="features"):
        model.partial_fit(np.ones((2, 3)))
    np.testing.assert_array_equal(model.weights_, before)


def test_plain_rows_and_other_forms_are_read_alike():
    """A C-ordered float64 chunk skips ``validate_data`` (``_plain_rows``); other forms take
    it: the same centre and scores, and the same refusals (NaN, another width)."""
    Y = _ball(60, 3, [1.0, -2.0, 0.5], 1.0, seed=3)
    plain = olearn.UniclassPA(C=0.5, variant="PA-I").fit(Y[:10])
    other = olearn.UniclassPA(C=0.5, variant="PA-I").fit(Y[:10])
    for start in range(10, 60, 5):
        plain.partial_fit(Y[start : start + 5])
        other.partial_fit(np.asfortranarray(Y[start : start + 5]))
    np.testing.assert_array_equal(plain.weights_, other.weights_)
    np.testing.assert_array_equal(plain.score_samples(Y), other.score_samples(Y.tolist()))
    np.testing.assert_array_equal(plain.predict(Y[:4]), other.predict(Y[:4].tolist()))
    for bad, match in [
        (np.array([[1.0, np.inf, 0.0]]), "infinity"),
        (Y[:2, :2].copy(), "features"),
    ]:
        for call in (plain.partial_fit, plain.predict, plain.score_samples):
            with pytest.raises(ValueError, match=match):
                call(bad)
