"""Multilabel ranking (§8): oracle equality with a learned and a given threshold, the metrics
by hand, river's Yeast, bad input."""

import numpy as np
import pytest
import scipy.sparse as sp
from reference import tasks as ref

import olearn
from olearn.metrics import one_error, ranking_loss

N, D, K = 400, 6, 5


def _multilabel(n, d, k, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    S = X @ rng.normal(size=(d, k)) + 0.5 * rng.normal(size=(n, k))
    Y = (S > 0.3).astype(int)
    Y[np.arange(n), np.argmax(S, axis=1)] = 1  # every example has a relevant label
    return X, Y


@pytest.mark.parametrize("threshold", [None, 0.0], ids=["learned", "given"])
@pytest.mark.parametrize("name, covariance", [("perceptron", None), ("pa1", None),
                                              ("arow", "diagonal"), ("scw1", "full")])  # fmt: skip
def test_multilabel_equals_oracle(name, covariance, threshold):
    X, Y = _multilabel(N, D, K, seed=0)
    model = ref.estimator(name, covariance or "diagonal", label_threshold=threshold).fit(X, Y)
    oracle = ref.multilabel(X, Y, name, ref.HYPER, covariance,
                            learned_threshold=threshold is None)  # fmt: skip
    assert model.task_ == "multilabel"
    np.testing.assert_allclose(model.weights_, oracle.W, atol=1e-9)
    assert model.n_mistakes_ == oracle.mistakes
    assert model.n_updates_ == oracle.updates > 10


def test_margin_moves_lowest_relevant_and_highest_irrelevant():
    """Hand step: PA, scores (1, 0.5, 2, −1) on x = e₀, relevant {0, 1}, fixed threshold:
    r = 1 (lowest relevant, 0.5), s = 2 (highest irrelevant, 2), m = −1.5, τ = 2.5/2."""
    model = olearn.PassiveAggressiveClassifier(variant="PA", label_threshold=0.0,
                                               fit_intercept=False)  # fmt: skip
    model.fit(np.array([[1.0, 0.0]]), np.array([[1, 1, 0, 0]]))
    model.weights_[:, :] = 0.0
    model.weights_[:, 0] = [1.0, 0.5, 2.0, -1.0]
    model.partial_fit(np.array([[1.0, 0.0]]), np.array([[1, 1, 0, 0]]))
    np.testing.assert_allclose(model.weights_[:, 0], [1.0, 0.5 + 1.25, 2.0 - 1.25, -1.0])


def test_predict_is_scores_above_threshold():
    X, Y = _multilabel(N, D, K, seed=1)
    for threshold in (None, 0.2):
        model = olearn.AROWClassifier(label_threshold=threshold).fit(sp.csr_matrix(X), Y)
        scores = model.decision_function(X)
        assert scores.shape == (N, K) and model.coef_.shape == (K, D)
        np.testing.assert_array_equal(model.predict(X), (scores > 0).astype(int))
        assert model.predict_one({0: 1.0}).shape == (K,)
    assert (model.predict(X) == Y).mean() > 0.75


def test_ranking_metrics_by_hand():
    Y = np.array([[1, 0, 1], [0, 1, 0]])
    S = np.array([[0.9, 0.5, 0.1], [0.2, 0.3, 0.4]])
    # example 0: pairs (0,1) ok, (2,1) wrong -> 1/2; example 1: (1,0) ok, (1,2) wrong -> 1/2
    assert ranking_loss(Y, S) == pytest.approx(0.5)
    # top labels: 0 (relevant), 2 (irrelevant)
    assert one_error(Y, S) == pytest.approx(0.5)
    assert ranking_loss(Y, Y.astype(float)) == 0.0
    with pytest.raises(ValueError, match="shape"):
        ranking_loss(Y, S[:, :2])


def _yeast():
    datasets = pytest.importorskip("river.datasets")
    X, Y = [], []
    for x, y in datasets.Yeast():  # ships with river: no download
        X.append(list(x.values()))
        Y.append([int(v) for v in y.values()])
    return np.array(X), np.array(Y)


def test_yeast_ranks_far_better_than_chance():
    X, Y = _yeast()
    assert Y.shape == (2417, 14)
    model = olearn.AROWClassifier().fit(X[:1500], Y[:1500])
    scores = model.decision_function(X[1500:])
    chance = ranking_loss(Y[1500:], np.random.default_rng(0).random(scores.shape))
    assert chance > 0.45
    assert ranking_loss(Y[1500:], scores) < 0.3
    assert one_error(Y[1500:], scores) < 0.45
    assert (model.predict(X[1500:]) == Y[1500:]).mean() > 0.65


def test_bad_indicator_rows_leave_the_model_untouched():
    X, Y = _multilabel(50, D, K, seed=2)
    model = olearn.AROWClassifier().fit(X, Y)
    state = {k: v.copy() for k, v in vars(model).items() if isinstance(v, np.ndarray)}
    with pytest.raises(ValueError, match="only 0 and 1"):
        model.partial_fit(X[:3], Y[:3] * 2)
    with pytest.raises(ValueError, match="labels"):
        model.partial_fit(X[:3], Y[:3, :3])
    with pytest.raises(ValueError, match="indicator"):
        model.partial_fit(X[:3], [0, 1, 0])
    for key, value in state.items():
        np.testing.assert_array_equal(getattr(model, key), value)


@pytest.mark.parametrize("threshold", [None, 0.0], ids=["learned", "given"])
@pytest.mark.parametrize("name, covariance", [("pa1", None), ("arow", "diagonal")])
def test_rows_with_no_or_every_label_relevant_equal_the_oracle(name, covariance, threshold):
    """scikit-learn's generator makes rows with no relevant label (and we add rows with every
    label relevant): ordinary data, learned through the threshold, as the oracle does."""
    from sklearn.datasets import make_multilabel_classification

    X, Y = make_multilabel_classification(200, n_features=D, n_classes=K, random_state=0)
    Y[::17] = 1
    assert (Y.sum(axis=1) == 0).any() and (Y.sum(axis=1) == K).any()
    model = ref.estimator(name, covariance or "diagonal", label_threshold=threshold).fit(X, Y)
    oracle = ref.multilabel(X, Y, name, ref.HYPER, covariance,
                            learned_threshold=threshold is None)  # fmt: skip
    np.testing.assert_allclose(model.weights_, oracle.W, atol=1e-9)
    assert model.n_mistakes_ == oracle.mistakes
    assert model.n_updates_ == oracle.updates


@pytest.mark.parametrize("relevant", [0, 1], ids=["none", "all"])
def test_the_learned_threshold_learns_an_empty_or_full_row(relevant):
    """The threshold acts as a virtual label: repeated, a row with no relevant label comes to
    predict no label, and a row with every label relevant every label."""
    X, Y = _multilabel(50, D, K, seed=3)
    model = olearn.PassiveAggressiveClassifier().fit(X, Y)
    x = X[:1]
    target = np.full((1, K), relevant)
    assert (model.predict(x) != target).any()
    for _ in range(20):
        model.partial_fit(x, target)
    np.testing.assert_array_equal(model.predict(x), target)
