"""Importance weights: ``sample_weight`` for every estimator, ``class_weight`` for the
classifiers, and each rule's weighted form.

Which property holds for which rule (the rules' docstrings give the reasons):

* every rule, every estimator: weight 0 is the row removed, and weights all 1 are no weights —
  bit for bit, counters included;
* linear in h (Perceptron, SGD, NORMA, Pegasos, Budgeted SGD): the step of weight h is h times
  the step of weight 1 — exact for h a power of two; the Perceptron's weight k equals k copies
  of an example that stays a mistake over the copies (exact);
* PA-I and full-covariance AROW / RLS: weight k equals k copies of the example, up to
  rounding (PA-I's steps telescope to min(kC, ℓ/‖x‖²); AROW's step is a Kalman update, and k
  identical observations of noise r are one of noise r/k);
* PA and CW (hard constraints): the weight has no effect besides 0 (bit for bit), as k copies
  of the example have none beyond the first (tested up to rounding);
* PA-II, SCW-I/II, AROW: C scaled by h or r divided by h, exactly as their formulas say;
  Second-Order Perceptron: the example added h times to the paper's sums (NumPy oracle).
"""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone, is_regressor
from sklearn.utils.class_weight import compute_class_weight, compute_sample_weight

import olearn
from olearn.rules import arow, cw, norma, pa, pegasos, perceptron, scw, sgd, sop

rng = np.random.default_rng(7)
N, D = 40, 4
X = rng.normal(size=(N, D))
Y_BIN = np.where(X[:, 0] - 0.5 * X[:, 1] + 0.3 * rng.normal(size=N) > 0, 1, 0)
Y_MULTI = np.argmax(X[:, :3] + 0.3 * rng.normal(size=(N, 3)), axis=1)
Y_REG = X @ np.array([1.0, -2.0, 0.5, 0.0]) + 0.1 * rng.normal(size=N)
WEIGHTS = rng.integers(0, 4, size=N).astype(float)
WEIGHTS[:3] = [0.0, 2.0, 3.0]


def _state(model):
    """Everything a model learned: its arrays (parameters and counters); for a kernel model
    the used part of its slots."""
    if hasattr(model, "dual_coef_"):
        names = ("support_vectors_", "dual_coef_", "intercept_", "stats_")
        return {name: np.asarray(getattr(model, name)) for name in names}
    return {k: v for k, v in vars(model).items() if isinstance(v, np.ndarray)}


def _assert_same(a, b):
    sa, sb = _state(a), _state(b)
    assert sa.keys() == sb.keys()
    for key in sa:
        assert np.array_equal(sa[key], sb[key]), key


CLASSIFIERS = [
    olearn.PerceptronClassifier(),
    olearn.PerceptronClassifier(average=True),
    olearn.PassiveAggressiveClassifier(C=0.1),
    olearn.PassiveAggressiveClassifier(variant="PA-II"),
    olearn.SecondOrderPerceptronClassifier(),
    olearn.CWClassifier(),
    olearn.AROWClassifier(),
    olearn.AROWClassifier(covariance="full"),
    olearn.SCWClassifier(variant="I"),
]
REGRESSORS = [
    olearn.PassiveAggressiveRegressor(),
    olearn.AROWRegressor(covariance="full"),
    olearn.SGDRegressor(eta0=0.05),
]
# (a fixed gamma: "scale" is computed from the X given, weights or not, as in SVC)
KERNELS = [
    olearn.KernelPerceptronClassifier(gamma=1.0),
    olearn.KernelPAClassifier(gamma=1.0),
    olearn.NORMAClassifier(gamma=1.0),
    olearn.KernelPegasosClassifier(gamma=1.0),
    olearn.BudgetedSGDClassifier(gamma=1.0, budget=8),
    olearn.KernelPARegressor(gamma=1.0),
    olearn.NORMARegressor(gamma=1.0),
]


def _target(model, multi=False):
    if is_regressor(model):
        return Y_REG
    return Y_MULTI if multi else Y_BIN


def _fit(model, X, y, **kw):
    return clone(model).fit(X, y, **kw)


@pytest.mark.parametrize("model", CLASSIFIERS + REGRESSORS + KERNELS, ids=repr)
def test_zero_weight_is_the_row_removed_and_ones_are_no_weights(model):
    y = _target(model)
    keep = WEIGHTS > 0
    plain = _fit(model, X, y)
    _assert_same(_fit(model, X, y, sample_weight=np.ones(N)), plain)
    # weight 0 against the row removed (the other weights 1)
    mask = np.where(keep, 1.0, 0.0)
    _assert_same(_fit(model, X, y, sample_weight=mask), _fit(model, X[keep], y[keep]))


class Blocks:
    """Φ(x, c): x (and a constant) in block c of three."""

    def __call__(self, X, label):
        X = X.toarray() if sp.issparse(X) else np.asarray(X, dtype=float)
        out = np.zeros((X.shape[0], 3 * (D + 1)))
        out[:, label * (D + 1) : label * (D + 1) + D] = X
        out[:, label * (D + 1) + D] = 1.0
        return out

    def __repr__(self):
        return "Blocks()"


@pytest.mark.parametrize(
    "model",
    [olearn.PassiveAggressiveClassifier(multiclass="ovr"), olearn.AROWClassifier(),
     olearn.JointFeatureClassifier(feature_map=Blocks())],
    ids=repr,
)  # fmt: skip
def test_zero_weight_multiclass_and_sparse(model):
    Xs = sp.csr_matrix(np.where(np.abs(X) > 0.5, X, 0.0))
    keep = WEIGHTS > 0
    for data in (X, Xs):
        weighted = _fit(model, data, Y_MULTI, sample_weight=np.where(keep, 1.0, 0.0))
        _assert_same(weighted, _fit(model, data[keep], Y_MULTI[keep]))


def test_zero_weight_multilabel_cost_and_uniclass():
    keep = WEIGHTS > 0
    mask = np.where(keep, 1.0, 0.0)
    Y = np.stack([Y_BIN, 1 - Y_BIN, (X[:, 2] > 0).astype(int)], axis=1)
    model = olearn.PassiveAggressiveClassifier()
    _assert_same(_fit(model, X, Y, sample_weight=mask), _fit(model, X[keep], Y[keep]))
    cost = np.abs(rng.normal(size=(N, 3)))
    cost[np.arange(N), Y_MULTI] = 0.0
    _assert_same(
        _fit(model, X, Y_MULTI, cost=cost, sample_weight=mask),
        _fit(model, X[keep], Y_MULTI[keep], cost=cost[keep]),
    )
    a = olearn.UniclassPA(variant="PA-I").fit(X, sample_weight=mask)
    _assert_same(a, olearn.UniclassPA(variant="PA-I").fit(X[keep]))


def test_partial_fit_and_learn_one_take_weights():
    model = olearn.PassiveAggressiveClassifier(C=0.1)
    chunks = _fit(model, X[:20], Y_BIN[:20], sample_weight=WEIGHTS[:20])
    chunks.partial_fit(X[20:], Y_BIN[20:], sample_weight=WEIGHTS[20:])
    _assert_same(chunks, _fit(model, X, Y_BIN, sample_weight=WEIGHTS))
    events = _fit(model, X[:20], Y_BIN[:20], sample_weight=WEIGHTS[:20])
    for i in range(20, N):
        events.learn_one(dict(enumerate(X[i])), Y_BIN[i], sample_weight=WEIGHTS[i])
    np.testing.assert_array_equal(events.coef_, chunks.coef_)
    a = olearn.PassiveAggressiveRegressor(C=0.1).fit(X, Y_REG, sample_weight=WEIGHTS)
    b = olearn.PassiveAggressiveRegressor(C=0.1)
    for i in range(N):
        b.learn_one(dict(enumerate(X[i])), Y_REG[i], n_features=D, sample_weight=WEIGHTS[i])
    np.testing.assert_array_equal(a.coef_, b.coef_)


def test_learn_one_weights_for_any_task_and_bad_weights():
    model = olearn.AROWClassifier()
    a = _fit(model, X, Y_MULTI, sample_weight=WEIGHTS)
    b = clone(model).partial_fit(X[:1], Y_MULTI[:1], classes=[0, 1, 2], sample_weight=WEIGHTS[:1])
    for i in range(1, N):
        b.learn_one(dict(enumerate(X[i])), Y_MULTI[i], sample_weight=WEIGHTS[i])
    np.testing.assert_allclose(b.coef_, a.coef_, rtol=1e-12)
    binary = _fit(olearn.PassiveAggressiveClassifier(), X, Y_BIN)
    before = binary.coef_.copy()
    for bad, message in [(-1.0, "nonnegative"), (np.nan, "finite"), ([1.0, 2.0], "2 weights")]:
        with pytest.raises(ValueError, match=message):
            binary.learn_one(dict(enumerate(X[0])), Y_BIN[0], sample_weight=bad)
    np.testing.assert_array_equal(binary.coef_, before)


# -- each rule's weighted form -------------------------------------------------------------


@pytest.mark.parametrize("h", [0.5, 2.0, 3.0])
def test_rules_state_their_weighted_form(h):
    for m, v in [(-0.7, 1.3), (0.4, 0.2), (0.95, 3.0)]:
        C, r, phi = 0.3, 0.8, 1.2
        # slack rules: C scaled by h
        assert pa.pa1(m, v, np.array([C]), h) == pa.pa1(m, v, np.array([h * C]))
        assert pa.pa2(m, v, np.array([C]), h) == pa.pa2(m, v, np.array([h * C]))
        assert scw.scw1(m, v, np.array([phi, C]), h) == scw.scw1(m, v, np.array([phi, h * C]))
        assert scw.scw2(m, v, np.array([phi, C]), h) == scw.scw2(m, v, np.array([phi, h * C]))
        # AROW / RLS: r divided by h
        for rule in (arow.arow, arow.rls):
            np.testing.assert_allclose(rule(m, v, np.array([r]), h), rule(m, v, np.array([r / h])),
                                       rtol=1e-15)  # fmt: skip
        # hard constraints: no effect
        assert pa.pa(m, v, (), h) == pa.pa(m, v, ())
        assert cw.cw_variance(m, v, np.array([phi]), h) == cw.cw_variance(m, v, np.array([phi]))
        assert cw.cw_exact(m, v, np.array([phi]), h) == cw.cw_exact(m, v, np.array([phi]))
        # step scaled by h, the decay not
        alpha, _ = perceptron.perceptron(m, v, (), h)
        assert alpha == h * perceptron.perceptron(m, v, ())[0]
        hp_sgd = np.array([0.1, 0.01, 0.1, 1.0, 0.0])
        for rule in (sgd.sgd_squared, sgd.sgd_epsilon_insensitive, sgd.sgd_huber):
            a1, d1 = rule(m, 3.0, hp_sgd)
            ah, dh = rule(m, 3.0, hp_sgd, h)
            assert ah == pytest.approx(h * a1, rel=1e-15) and dh == d1
        for rule, hp in [(norma.norma_hinge, np.array([0.2, 0.1, 1.0])),
                         (norma.norma_epsilon, np.array([0.2, 0.1])),
                         (pegasos.pegasos, np.array([0.1]))]:  # fmt: skip
            a1, d1 = rule(m, 3.0, hp)
            ah, dh = rule(m, 3.0, hp, h)
            assert ah == pytest.approx(h * a1, rel=1e-15) and dh == d1
        # Second-Order Perceptron: the mistake counted h times in A and b
        alpha, c = sop.sop(-abs(m), v, (), h)
        assert c == h and alpha == h * (1 + abs(m)) / (1 + h * v)


def test_perceptron_weight_k_is_k_copies_of_a_lasting_mistake():
    # the second example stays a mistake over 3 copies (m = −11, −9, −7): exact
    Xp = np.array([[10.0, 0.0], [1.0, 0.0]])
    yp = np.array([0, 1])
    weighted = olearn.PerceptronClassifier().fit(Xp, yp, sample_weight=[1.0, 3.0])
    copies = olearn.PerceptronClassifier().fit(Xp[[0, 1, 1, 1]], yp[[0, 1, 1, 1]])
    np.testing.assert_array_equal(weighted.coef_, copies.coef_)
    np.testing.assert_array_equal(weighted.intercept_, copies.intercept_)


@pytest.mark.parametrize(
    "model",
    [olearn.PerceptronClassifier(), olearn.SGDRegressor(eta0=0.05, alpha=0.0),
     olearn.KernelPerceptronClassifier(), olearn.NORMAClassifier(lam=0.0)],
    ids=repr,
)  # fmt: skip
def test_linear_rules_step_scales_by_h(model):
    # the first step (from w = 0: the model is the step) of weight 4 is 4 times that of 1
    y = _target(model)
    steps = {h: _coefficients(_fit(model, X[:1], y[:1], sample_weight=[h])) for h in (1.0, 4.0)}
    assert np.any(steps[1.0] != 0)
    np.testing.assert_array_equal(steps[4.0], 4.0 * steps[1.0])


def _coefficients(model):
    if hasattr(model, "dual_coef_"):
        return np.hstack([model.dual_coef_.ravel(), np.ravel(model.intercept_)])
    return np.hstack([model.coef_.ravel(), np.ravel(model.intercept_)])


@pytest.mark.parametrize(
    "model, rtol",
    [(olearn.PassiveAggressiveClassifier(C=0.05), 1e-12),
     (olearn.PassiveAggressiveRegressor(variant="PA-I", C=0.05), 1e-12),
     (olearn.AROWClassifier(covariance="full"), 1e-10),
     (olearn.AROWRegressor(covariance="full"), 1e-10),
     (olearn.PassiveAggressiveClassifier(variant="PA"), 1e-12),
     (olearn.CWClassifier(covariance="full"), 1e-9)],
    ids=repr,
)  # fmt: skip
def test_integer_weight_is_repetition(model, rtol):
    y = _target(model)
    weighted = _fit(model, X, y, sample_weight=WEIGHTS)
    repeated = _fit(model, np.repeat(X, WEIGHTS.astype(int), axis=0),
                    np.repeat(y, WEIGHTS.astype(int)))  # fmt: skip
    np.testing.assert_allclose(_coefficients(weighted), _coefficients(repeated), rtol=rtol,
                               atol=1e-12)  # fmt: skip


@pytest.mark.parametrize("model", [olearn.PassiveAggressiveClassifier(variant="PA"),
                                   olearn.CWClassifier(), olearn.CWClassifier(method="variance")],
                         ids=repr)  # fmt: skip
def test_hard_constraint_rules_ignore_positive_weights(model):
    positive = np.where(WEIGHTS > 0, WEIGHTS, 0.5)
    a = _fit(model, X, Y_BIN, sample_weight=positive)
    b = _fit(model, X, Y_BIN)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    np.testing.assert_array_equal(a.intercept_, b.intercept_)


def test_second_order_perceptron_weighted_against_the_papers_sums():
    # one mistake of weight h from the prior a = 1: A = I + h x̃x̃ᵀ, b = h y x̃, μ = A⁻¹ b
    x = np.array([[0.5, -1.0, 2.0]])
    h = 2.5
    model = olearn.SecondOrderPerceptronClassifier(covariance="full").fit(
        np.vstack([x, x]), [1, 0], sample_weight=[h, 0.0]
    )
    xt = np.append(x[0], 1.0)
    mu = np.linalg.solve(np.eye(4) + h * np.outer(xt, xt), h * 1.0 * xt)
    # the one-class model learned its label as +1
    np.testing.assert_allclose(np.append(model.coef_[0], model.intercept_), mu, rtol=1e-12)


# -- class_weight ----------------------------------------------------------------------------


@pytest.mark.parametrize("y", [Y_BIN, Y_MULTI], ids=["binary", "multiclass"])
def test_class_weight_balanced_is_scikit_learns(y):
    classes = np.unique(y)
    per_class = compute_class_weight("balanced", classes=classes, y=y)
    model = olearn.AROWClassifier(class_weight="balanced").fit(X, y, sample_weight=WEIGHTS)
    expected = olearn.AROWClassifier().fit(
        X, y, sample_weight=WEIGHTS * per_class[np.searchsorted(classes, y)]
    )
    _assert_same_fit(model, expected)
    as_dict = dict(zip(classes.tolist(), per_class, strict=True))
    _assert_same_fit(olearn.AROWClassifier(class_weight=as_dict).fit(X, y, sample_weight=WEIGHTS),
                     expected)  # fmt: skip


def _assert_same_fit(a, b):
    np.testing.assert_array_equal(a.coef_, b.coef_)
    np.testing.assert_array_equal(a.intercept_, b.intercept_)


def test_class_weight_dict_in_partial_fit_and_balanced_refused():
    weights = {0: 3.0}  # class 1 absent: weight 1
    a = olearn.PerceptronClassifier(class_weight=weights)
    a.partial_fit(X[:20], Y_BIN[:20], classes=[0, 1])
    a.partial_fit(X[20:], Y_BIN[20:])
    b = olearn.PerceptronClassifier().fit(X, Y_BIN, sample_weight=np.where(Y_BIN == 0, 3.0, 1.0))
    _assert_same_fit(a, b)
    c = olearn.PerceptronClassifier(class_weight=weights)
    for i in range(N):
        c.learn_one(dict(enumerate(X[i])), Y_BIN[i], n_features=D)
    _assert_same_fit(c, b)
    with pytest.raises(ValueError, match="'balanced' is not supported by partial_fit"):
        olearn.PerceptronClassifier(class_weight="balanced").partial_fit(X, Y_BIN)
    with pytest.raises(ValueError, match="not in class_weight|classes"):
        olearn.PerceptronClassifier(class_weight={5: 2.0}).fit(X, Y_BIN)
    with pytest.raises(ValueError, match=r"class_weight\[0\] must be finite"):
        olearn.PerceptronClassifier(class_weight={0: -1.0}).partial_fit(X, Y_BIN)


KERNEL_CLASSIFIERS = [m for m in KERNELS if not is_regressor(m)]
JOINT = olearn.JointFeatureClassifier(feature_map=Blocks())


def _with(model, class_weight):
    return clone(model).set_params(class_weight=class_weight)


@pytest.mark.parametrize("model", [*KERNEL_CLASSIFIERS, JOINT], ids=repr)
@pytest.mark.parametrize("y", [Y_BIN, Y_MULTI], ids=["binary", "multiclass"])
def test_class_weight_of_kernel_and_joint_classifiers_is_a_sample_weight(model, y):
    # {c: k} is sample_weight k on the rows of class c, bit for bit, in fit and in chunks
    plain = _fit(model, X, y)
    changed = False
    for label, k in [(0, 3.0), (1, 0.25)]:
        by_class = np.where(y == label, k, 1.0)
        weighted = _with(model, {label: k}).fit(X, y)
        expected = _fit(model, X, y, sample_weight=by_class)
        _assert_same(weighted, expected)
        changed |= not _same_state(weighted, plain)
        chunks = _with(model, {label: k})
        chunks.partial_fit(X[:25], y[:25], classes=np.unique(y))
        chunks.partial_fit(X[25:], y[25:])
        _assert_same(chunks, expected)
    assert changed  # (PA-I's weight > 1 changes nothing while no step reaches C)
    # times sample_weight
    both = _with(model, {0: 2.0}).fit(X, y, sample_weight=WEIGHTS)
    expected = _fit(model, X, y, sample_weight=WEIGHTS * np.where(y == 0, 2.0, 1.0))
    _assert_same(both, expected)


def _same_state(a, b):
    sa, sb = _state(a), _state(b)
    return sa.keys() == sb.keys() and all(np.array_equal(sa[k], sb[k]) for k in sa)


@pytest.mark.parametrize("model", [*KERNEL_CLASSIFIERS, JOINT], ids=repr)
def test_balanced_class_weight_of_kernel_and_joint_classifiers(model):
    y = Y_MULTI[:31]  # unequal class counts
    balanced = _with(model, "balanced").fit(X[:31], y)
    expected = _fit(model, X[:31], y, sample_weight=compute_sample_weight("balanced", y))
    _assert_same(balanced, expected)
    assert len(set(compute_sample_weight("balanced", y))) == 3
    with pytest.raises(ValueError, match="'balanced' is not supported by partial_fit"):
        _with(model, "balanced").partial_fit(X, Y_MULTI, classes=[0, 1, 2])
    with pytest.raises(ValueError, match="not in class_weight"):
        _with(model, {7: 2.0}).fit(X, Y_MULTI)
    with pytest.raises(ValueError, match=r"class_weight\[1\] must be finite"):
        _with(model, {1: np.inf}).partial_fit(X, Y_MULTI, classes=[0, 1, 2])


def test_joint_balanced_counts_the_labels_y_takes():
    # a precomputed Φ of 3 labels, y taking two of them: "balanced" over the two
    P = np.stack([Blocks()(X, c) for c in range(3)], axis=1)
    y = np.where(Y_BIN[:31] == 1, 2, 0)
    model = olearn.JointFeatureClassifier(class_weight="balanced")
    expected = olearn.JointFeatureClassifier().fit(
        P[:31], y, sample_weight=compute_sample_weight("balanced", y)
    )
    _assert_same(model.fit(P[:31], y), expected)


# -- bad weights -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "weights, message",
    [(-np.ones(N), "nonnegative: weight 0 is -1"),
     (np.r_[np.ones(N - 1), np.nan], f"finite: weight {N - 1} is nan"),
     (np.r_[np.ones(3), np.inf, np.ones(N - 4)], "finite: weight 3 is inf"),
     (np.ones(N - 1), f"{N - 1} weights but X has {N} rows"),
     (np.ones((N, 1)), "must be 1-D"),
     (np.zeros(N), "zero for every row"),
     (["a"] * N, "must be numbers")],
    ids=["negative", "nan", "inf", "length", "2-D", "all zero", "text"],
)  # fmt: skip
def test_bad_weights_raise_and_change_nothing(weights, message):
    for model in (olearn.PassiveAggressiveClassifier(), olearn.PassiveAggressiveRegressor(),
                  olearn.KernelPAClassifier()):  # fmt: skip
        y = _target(model)
        with pytest.raises(ValueError, match=message):
            _fit(model, X, y, sample_weight=weights)
        if message == "zero for every row":
            continue  # a partial_fit chunk of zero weights is skipped
        fitted = _fit(model, X, y)
        before = _coefficients(fitted).copy()
        with pytest.raises(ValueError, match=message):
            fitted.partial_fit(X, y, sample_weight=weights)
        np.testing.assert_array_equal(_coefficients(fitted), before)


# -- the command line: VW importance weights ----------------------------------------------------


@pytest.mark.parametrize("extra", [[], ["--passes", "2"]], ids=["headless", "passes"])
def test_olearn_train_honours_vw_importance_weights(capsys, tmp_path, extra):
    from olearn.cli import main
    from olearn.io import load_vw

    data, path = tmp_path / "w.vw", tmp_path / "m.olm"
    lines = []
    for i in range(N):
        features = " ".join(f"f{j}:{X[i, j]:.6f}" for j in range(D))
        weight = "" if WEIGHTS[i] == 1.0 else f" {WEIGHTS[i] * 1.25:g}"  # incl. 0 and 2.5
        lines.append(f"{2 * Y_BIN[i] - 1}{weight} 'r{i} |a {features}\n")
    data.write_text("".join(lines))
    argv = ["train", "pa", str(data), "--variant", "PA-I", "--C", "0.1", "-o", str(path)]
    assert main([*argv, *extra]) == 0
    capsys.readouterr()
    Xv, yv, wv = load_vw(data, return_weights=True)
    assert sorted(set(wv.tolist())) == [0.0, 1.0, 2.5, 3.75]
    got = olearn.load(path)
    if extra:  # every 10th example is held out (never learned), two passes
        learned = np.arange(N) % 10 != 9
        expected = olearn.PassiveAggressiveClassifier(C=0.1)
        for _ in range(2):
            expected.partial_fit(Xv[learned], yv[learned], sample_weight=wv[learned])
    else:
        expected = olearn.PassiveAggressiveClassifier(C=0.1).fit(Xv, yv, sample_weight=wv)
    np.testing.assert_array_equal(got.weights_, expected.weights_)
    unweighted = olearn.PassiveAggressiveClassifier(C=0.1).fit(Xv, yv)
    assert not np.array_equal(got.weights_, unweighted.weights_)
