"""Single-prototype multiclass with a joint feature map Φ(x, y) (§7)."""

import numpy as np
import pytest
import scipy.sparse as sp
from reference import tasks as ref

import olearn

N, D, K = 400, 4, 3


def _block_phi(X, c, k=K):
    """Φ(x, c): x (and a constant 1) in block c — the multi-prototype map."""
    n, d = X.shape
    out = np.zeros((n, k * (d + 1)))
    out[:, c * (d + 1) : c * (d + 1) + d] = X
    out[:, c * (d + 1) + d] = 1.0
    return out


def _pair_phi(X, c):
    """A map that is not multi-prototype: x in block c, plus x ⊗ (c-th cosine) shared."""
    shared = X * np.cos(c + 1.0)
    return np.hstack([_block_phi(X, c), shared])


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize(
    "name, covariance",
    [("perceptron", None), ("pa1", None), ("arow", "diagonal"), ("cw_exact", "full")],
)
def test_joint_equals_oracle(name, covariance, sparse):
    X, _, y = ref.stream(N, D, K, seed=0)
    P = np.stack([_pair_phi(X, c) for c in range(K)], axis=1)
    if sparse:
        feature_map = lambda X, c: sp.csr_matrix(_pair_phi(X, c))  # noqa: E731
    else:
        feature_map = _pair_phi
    model = olearn.JointFeatureClassifier(rule=name, feature_map=feature_map, C=ref.HYPER["C"],
                                          r=ref.HYPER["r"], eta=ref.HYPER["eta"],
                                          covariance=covariance or "diagonal")  # fmt: skip
    model.fit(X, y)
    oracle = ref.joint(P, y, name, ref.HYPER, covariance)
    np.testing.assert_allclose(model.weights_[0, :-1], oracle.W[0], atol=1e-9)
    assert model.n_updates_ > 10
    # the precomputed (n, k, d) form is the same model
    pre = olearn.JointFeatureClassifier(rule=name, C=ref.HYPER["C"], r=ref.HYPER["r"],
                                        eta=ref.HYPER["eta"],
                                        covariance=covariance or "diagonal").fit(P, y)  # fmt: skip
    np.testing.assert_allclose(pre.weights_, model.weights_, atol=1e-12)
    np.testing.assert_array_equal(pre.predict(P), model.predict(X))


def test_block_feature_map_is_the_multi_prototype_model():
    X, _, y = ref.stream(N, D, K, seed=1)
    joint = olearn.JointFeatureClassifier(rule="pa", feature_map=_block_phi).fit(X, y)
    proto = olearn.PassiveAggressiveClassifier(variant="PA").fit(X, y)
    np.testing.assert_allclose(joint.decision_function(X), proto.decision_function(X),
                               atol=1e-9)  # fmt: skip
    assert joint.n_mistakes_ == proto.n_mistakes_


def test_callable_map_meets_new_labels():
    X, _, y = ref.stream(N, D, K, seed=2)
    model = olearn.JointFeatureClassifier(rule="pa1", feature_map=_block_phi)
    model.partial_fit(X[:100][y[:100] < 2], y[:100][y[:100] < 2])
    np.testing.assert_array_equal(model.classes_, [0, 1])
    model.partial_fit(X[100:], y[100:])
    np.testing.assert_array_equal(model.classes_, [0, 1, 2])
    assert model.score(X, y) > 0.5


def test_bad_input():
    X, _, y = ref.stream(20, D, K, seed=3)
    with pytest.raises(ValueError, match=r"\(n, k, d\)"):
        olearn.JointFeatureClassifier().fit(X, y)
    P = np.stack([_block_phi(X, c) for c in range(K)], axis=1)
    with pytest.raises(ValueError, match="outside"):
        olearn.JointFeatureClassifier().fit(P, y + 5)
    P[0, 0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        olearn.JointFeatureClassifier().fit(P, y)


def test_feature_map_may_return_lists_of_rows():
    """A feature_map returning Φ as a list of rows (array-like, as X may be) failed with
    AttributeError: 'list' object has no attribute 'shape'."""
    X, _, y = ref.stream(60, D, K, seed=4)
    listed = olearn.JointFeatureClassifier(feature_map=lambda X, c: _block_phi(X, c).tolist())
    arrays = olearn.JointFeatureClassifier(feature_map=_block_phi)
    np.testing.assert_array_equal(listed.fit(X, y).weights_, arrays.fit(X, y).weights_)
    np.testing.assert_array_equal(listed.predict(X), arrays.predict(X))
    with pytest.raises(ValueError, match="feature_map must return \\(n, d\\) rows"):
        olearn.JointFeatureClassifier(feature_map=lambda X, c: None).fit(X, y)


def test_classes_of_a_later_partial_fit_add_labels_and_a_precomputed_phi_checks_them():
    """A later call's classes were ignored (a label announced there was not among classes_,
    as it is for the other classifiers), and classes that a precomputed Φ cannot have (its
    labels are 0 … k − 1) were ignored too."""
    X, _, y = ref.stream(60, D, K, seed=5)
    model = olearn.JointFeatureClassifier(feature_map=_block_phi)
    model.partial_fit(X[y < 2], y[y < 2]).partial_fit(X[y < 2], y[y < 2], classes=[0, 1, 2])
    np.testing.assert_array_equal(model.classes_, [0, 1, 2])
    with pytest.raises(ValueError, match="leaves out labels the model has learned"):
        model.partial_fit(X, y, classes=[0, 1])
    P = np.stack([_block_phi(X, c) for c in range(K)], axis=1)
    for classes in (["a", "b", "c"], [0, 1, 2, 3]):
        with pytest.raises(ValueError, match="a precomputed Φ of 3 labels has the labels 0 … 2"):
            olearn.JointFeatureClassifier().partial_fit(P, y, classes=classes)
    fitted = olearn.JointFeatureClassifier().partial_fit(P, y, classes=[0, 1, 2])
    with pytest.raises(ValueError, match="has the labels 0 … 2"):
        fitted.partial_fit(P, y, classes=[0, 1, 2, 3])


def test_a_precomputed_phi_of_no_examples_is_refused_and_leaves_no_model():
    """scikit-learn refuses 0 samples; a Φ of shape (0, k, d) fitted an all-zero model."""
    model = olearn.JointFeatureClassifier()
    with pytest.raises(ValueError, match=r"Found 0 examples \(Φ of shape \(0, 3, 4\)\)"):
        model.fit(np.zeros((0, 3, 4)), np.zeros(0, dtype=int))
    assert not hasattr(model, "coef_") and not hasattr(model, "n_features_in_")
