"""Evaluation harness: checkpoints, permutations vs a direct computation, noise, selection."""

import numpy as np
import pytest

from olearn import AROWClassifier, PassiveAggressiveClassifier, PerceptronClassifier
from olearn.datasets import make_arow_synthetic
from olearn.evaluation import (
    evaluate,
    flip_labels,
    libol_grid,
    make_checkpoints,
    make_estimator,
    select_parameters,
    train_side_by_side,
)


@pytest.fixture(scope="module")
def data():
    d = make_arow_synthetic(600, random_state=0)
    return d.X, d.y


def test_checkpoints():
    np.testing.assert_array_equal(make_checkpoints(100, 4), [25, 50, 75, 100])
    log = make_checkpoints(1000, 10, spacing="log")
    assert log[0] == 1 and log[-1] == 1000 and np.all(np.diff(log) > 0)
    assert make_checkpoints(3, 10).tolist() == [1, 2, 3]
    with pytest.raises(ValueError):
        make_checkpoints(0)


def test_side_by_side_counts_equal_one_fit_per_prefix(data):
    X, y = data
    checkpoints = [50, 200, 600]
    models = [PerceptronClassifier(), AROWClassifier(r=0.5)]
    curves = train_side_by_side(models, X, y, checkpoints=checkpoints)
    for i, model in enumerate(models):
        for j, n in enumerate(checkpoints):
            direct = type(model)(**model.get_params()).fit(X[:n], y[:n])
            assert curves.mistakes[i, j] == direct.n_mistakes_
            assert curves.updates[i, j] == direct.n_updates_
        np.testing.assert_allclose(curves.models[i].coef_, direct.coef_, rtol=1e-12)
    assert np.all(np.diff(curves.seconds, axis=1) >= 0)


def test_each_model_first_learns_the_first_and_longest_chunks_on_a_throwaway_clone_untimed(
    data,
):
    # a first call on a kind of input compiles the loops or loads them from the disk cache:
    # ``seconds`` must count learning only (an unfitted model's first call and a fitted
    # model's take different loops: twice; and a one-row chunk and a longer one do: before,
    # log-spaced checkpoints (chunks 1, 3, 17, …) warmed up one row only, and the first
    # order's time was 14× the others' on 2,000 rows with a warm disk cache)
    X, y = data
    calls = []

    class Spy(PerceptronClassifier):
        def partial_fit(self, X, y, classes=None, sample_weight=None):
            calls.append((self, X.shape[0]))
            return super().partial_fit(X, y, classes=classes, sample_weight=sample_weight)

    curves = train_side_by_side([Spy()], X, y, checkpoints=[50, 200, 600])
    (model,) = curves.models
    assert [(m is model, n) for m, n in calls] == [(False, 50), (False, 50), (False, 400),
                                                   (True, 50), (True, 150),
                                                   (True, 400)]  # fmt: skip
    calls.clear()
    train_side_by_side([Spy()], X, y, checkpoints=[1, 2, 600])
    assert [n for _, n in calls[:3]] == [1, 1, 598]
    direct = PerceptronClassifier().fit(X, y)
    np.testing.assert_array_equal(model.coef_, direct.coef_)
    assert model.n_mistakes_ == direct.n_mistakes_


def test_a_weighted_stream_warms_up_the_weighted_and_the_unweighted_loops(data):
    """Before: a weighted stream whose first chunk weighs all 1 warmed only the unweighted
    loop (such weights are no weights), and the first chunk with a weight ≠ 1 compiled or
    loaded the weighted one inside the timed call: the first order's time was 30× the
    others' (with a warm disk cache; seconds on a cold one)."""
    X, y = data
    calls = []

    def kind(sample_weight):
        plain = sample_weight is None or np.all(np.asarray(sample_weight) == 1.0)
        return "unweighted" if plain else "weighted"

    class Spy(PerceptronClassifier):
        def partial_fit(self, X, y, classes=None, sample_weight=None):
            calls.append((self, kind(sample_weight)))
            return super().partial_fit(X, y, classes=classes, sample_weight=sample_weight)

    weights = np.ones(len(y))
    weights[100] = 0.0  # in the second chunk only
    curves = train_side_by_side([Spy()], X, y, checkpoints=[50, 200, 600], sample_weight=weights)
    (model,) = curves.models
    warmed = {k for m, k in calls if m is not model}
    timed = {k for m, k in calls if m is model}
    assert timed == {"unweighted", "weighted"} and timed <= warmed


def test_a_regressors_curves_hold_its_online_squared_error():
    """The error of each prediction made before its update, over the rows learned (its
    mistake rate was 1.0 for a loss without an ε-tube: every round); none for a
    classifier."""
    from olearn import SGDRegressor

    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 4))
    y = X @ np.array([1.0, -2.0, 0.5, 0.0]) + 0.1 * rng.normal(size=120)
    checkpoints = [10, 60, 120]
    curves = train_side_by_side([SGDRegressor(), PerceptronClassifier()], X, y > 0,
                                checkpoints=checkpoints)  # fmt: skip
    assert np.isnan(curves.squared_error[1]).all()
    curves = train_side_by_side([SGDRegressor()], X, y, checkpoints=checkpoints)
    one_by_one, squared = SGDRegressor(), []
    for i in range(len(y)):
        if i:
            squared.append((y[i] - one_by_one.predict(X[i : i + 1])[0]) ** 2)
        else:
            squared.append(y[0] ** 2)  # an unfitted model predicts 0
        one_by_one.partial_fit(X[i : i + 1], y[i : i + 1])
    expected = [np.mean(squared[:n]) for n in checkpoints]
    np.testing.assert_allclose(curves.squared_error[0], expected, rtol=1e-12)
    assert curves.mistake_rate[0, -1] == 1.0
    result = evaluate({"sgd": SGDRegressor()}, X, y, n_permutations=2, random_state=0)
    assert result.results["sgd"].squared_error.shape == (2, 20)
    assert "| online squared error |" in result.to_markdown()
    assert "squared_error_mean" in result.records()[0]
    classified = evaluate({"p": PerceptronClassifier()}, X, y > 0, n_permutations=1)
    assert classified.results["p"].squared_error is None
    assert "squared error" not in classified.to_markdown()


def test_side_by_side_holdout_and_snapshots(data):
    X, y = data
    curves = train_side_by_side(
        [AROWClassifier()],
        X[:400],
        y[:400],
        checkpoints=[100, 400],
        X_test=X[400:],
        y_test=y[400:],
        snapshot=lambda m: m.coef_.copy(),
    )
    assert len(curves.models[0]) == 2
    direct = AROWClassifier().fit(X[:100], y[:100])
    assert curves.test_accuracy[0, 0] == direct.score(X[400:], y[400:])
    np.testing.assert_allclose(curves.models[0][0], direct.coef_)


def test_bad_checkpoints_rejected(data):
    X, y = data
    with pytest.raises(ValueError, match="checkpoints"):
        train_side_by_side([PerceptronClassifier()], X, y, checkpoints=[10, 10])
    with pytest.raises(ValueError, match="checkpoints"):
        train_side_by_side([PerceptronClassifier()], X, y, checkpoints=[10, 601])
    # a fraction of an example was learned as int() and divided as given
    with pytest.raises(ValueError, match="whole numbers"):
        train_side_by_side([PerceptronClassifier()], X, y, checkpoints=[10.5, 30.9, 600])
    with pytest.raises(ValueError, match="whole numbers"):
        evaluate({"p": PerceptronClassifier()}, X, y, checkpoints=[10.5, 600])
    with pytest.raises(ValueError, match="whole numbers"):
        evaluate({"p": PerceptronClassifier()}, X, y, checkpoints=["10", "600"])
    as_floats = evaluate(
        {"p": PerceptronClassifier()}, X, y, n_permutations=1, checkpoints=[10.0, 600.0]
    ).results["p"]
    assert as_floats.checkpoints.dtype == np.int64
    assert as_floats.checkpoints.tolist() == [10, 600]


def test_permutation_mean_std_match_a_direct_computation(data):
    X, y = data
    result = evaluate(
        {"pa": PassiveAggressiveClassifier(C=0.5)},
        X,
        y,
        n_permutations=4,
        checkpoints=[300, 600],
        label_noise=0.1,
        random_state=7,
    ).results["pa"]
    # Recompute: permutation p uses child p + 1 of the seed, then its noise from the same rng
    seeds = np.random.SeedSequence(7).spawn(5)
    rates = []
    for p in range(4):
        rng = np.random.default_rng(seeds[p + 1])
        order = rng.permutation(len(y))
        y_noisy = flip_labels(y[order], 0.1, random_state=rng)
        model = PassiveAggressiveClassifier(C=0.5).fit(X[order], y_noisy)
        rates.append(model.n_mistakes_ / len(y))
    assert result.mistake_rate.shape == (4, 2)
    np.testing.assert_allclose(result.mistake_rate[:, -1], rates)
    np.testing.assert_allclose(result.mean("mistake_rate")[-1], np.mean(rates))
    np.testing.assert_allclose(result.std("mistake_rate")[-1], np.std(rates))
    assert len(set(rates)) > 1  # the orders differ


def test_rows_of_weight_zero_are_not_seen(data):
    # weight 0 skips a row: the rate is mistakes / rows learned, as on the kept rows alone
    X, y = data
    weights = np.tile([1.0, 0.0], len(y) // 2)
    curves = train_side_by_side(
        [PassiveAggressiveClassifier()], X, y, checkpoints=[100, 300, 600], sample_weight=weights
    )
    kept = train_side_by_side(
        [PassiveAggressiveClassifier()], X[::2], y[::2], checkpoints=[50, 150, 300]
    )
    np.testing.assert_array_equal(curves.seen, [50, 150, 300])
    np.testing.assert_allclose(curves.mistake_rate, kept.mistake_rate)
    result = evaluate(
        {"pa": PassiveAggressiveClassifier()},
        X,
        y,
        n_permutations=2,
        checkpoints=[300, 600],
        random_state=7,
        sample_weight=weights,
    ).results["pa"]
    seeds = np.random.SeedSequence(7).spawn(3)
    for p in range(2):
        order = np.random.default_rng(seeds[p + 1]).permutation(len(y))
        for j, n in enumerate([300, 600]):
            rows = order[:n][weights[order[:n]] != 0]
            direct = PassiveAggressiveClassifier().fit(X[rows], y[rows])
            np.testing.assert_allclose(result.mistake_rate[p, j], direct.n_mistakes_ / len(rows))


def test_noise_is_applied_to_training_only_and_seeded():
    y = np.repeat([-1.0, 1.0], 50)
    a = flip_labels(y, 0.2, random_state=1)
    np.testing.assert_array_equal(a, flip_labels(y, 0.2, random_state=1))
    assert (a != y).sum() == 20
    multi = np.repeat([0, 1, 2], 30)
    b = flip_labels(multi, 0.5, random_state=0)
    assert (b != multi).sum() == 45 and set(np.unique(b)) <= {0, 1, 2}
    with pytest.raises(ValueError):
        flip_labels(y, 1.5)


def test_held_out_labels_stay_clean(data):
    X, y = data
    clean = evaluate(
        {"p": PerceptronClassifier()},
        X[:400],
        y[:400],
        n_permutations=1,
        label_noise=0.0,
        X_test=X[400:],
        y_test=y[400:],
        random_state=0,
    )
    noisy = evaluate(
        {"p": PerceptronClassifier()},
        X[:400],
        y[:400],
        n_permutations=1,
        label_noise=0.45,
        X_test=X[400:],
        y_test=y[400:],
        random_state=0,
    )
    # 45 % flipped training labels must cost held-out accuracy measured on clean labels
    assert (
        noisy.results["p"].final("test_accuracy")[0] < clean.results["p"].final("test_accuracy")[0]
    )
    # online mistakes are counted against the noisy stream: close to the noise rate or above
    assert noisy.results["p"].final("mistake_rate")[0] > 0.3


def test_selection_picks_the_best_on_the_selection_permutation(data):
    X, y = data
    grid = {"r": [0.01, 1.0, 100.0]}
    selection = select_parameters(AROWClassifier(), grid, X, y, random_state=3)
    rng = np.random.default_rng(3)
    order = rng.permutation(len(y))
    direct = [AROWClassifier(r=r).fit(X[order], y[order]).n_mistakes_ / len(y) for r in grid["r"]]
    np.testing.assert_allclose(selection.scores, direct)
    assert selection.best_params == {"r": grid["r"][int(np.argmin(direct))]}


def test_evaluate_with_libol_grid_uses_selected_values(data):
    X, y = data
    comparison = evaluate(
        {"pa1": make_estimator("pa1"), "perceptron": make_estimator("perceptron")},
        X,
        y,
        n_permutations=2,
        n_checkpoints=3,
        param_grids="libol",
        random_state=0,
    )
    assert "perceptron" not in comparison.selection
    chosen = comparison.selection["pa1"].best_params
    assert comparison.results["pa1"].params == chosen
    assert len(comparison.selection["pa1"].params) == 9
    assert "online mistake rate" in comparison.to_markdown()


def test_libol_grids():
    assert libol_grid(make_estimator("scw1")) == {
        "C": [2.0**k for k in range(-4, 5)],
        "eta": [0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95],
    }
    assert libol_grid(make_estimator("perceptron")) == {}
    assert libol_grid(make_estimator("pa")) == {}
    assert set(libol_grid(make_estimator("sop"))) == {"a"}
    with pytest.raises(ValueError, match="unknown algorithm"):
        make_estimator("nope")


def test_libol_grid_of_plain_kernel_pa_tunes_nothing():
    """Before: kernel-pa's name fixes no variant, so KernelPAClassifier(variant="PA") got
    the C grid, which plain PA ignores: 9 identical runs and a 'selected C=0.0625'."""
    from olearn import KernelPAClassifier, KernelPARegressor

    assert libol_grid(KernelPAClassifier(variant="PA")) == {}
    assert libol_grid(KernelPARegressor(variant="PA")) == {}
    assert set(libol_grid(KernelPAClassifier(variant="PA-II"))) == {"C"}
    assert set(libol_grid(make_estimator("kernel-pa"))) == {"C"}


def test_make_estimator_takes_a_names_estimator_for_the_task():
    from olearn import PassiveAggressiveRegressor, SCWClassifier, SGDRegressor

    regressor = make_estimator("pa1", "regression", C=0.5)
    assert type(regressor) is PassiveAggressiveRegressor
    assert (regressor.variant, regressor.C) == ("PA-I", 0.5)
    assert type(make_estimator("pa1", "binary")) is PassiveAggressiveClassifier
    assert type(make_estimator("scw1", "regression")) is SCWClassifier  # none: its classifier
    assert type(make_estimator("sgd")) is SGDRegressor  # its only estimator


def test_csv_and_json_outputs(tmp_path, data):
    import csv
    import json

    X, y = data
    comparison = evaluate(
        {"arow": AROWClassifier()}, X, y, n_permutations=2, n_checkpoints=3, random_state=0
    )
    comparison.to_csv(tmp_path / "c.csv")
    rows = list(csv.DictReader(open(tmp_path / "c.csv")))
    assert len(rows) == 3 and rows[-1]["examples"] == "600"
    payload = json.loads(comparison.to_json(tmp_path / "c.json"))
    assert payload["algorithms"]["arow"]["checkpoints"] == [200, 400, 600]


def test_sparse_input_gives_the_dense_curves(data):
    import scipy.sparse as sp

    X, y = data
    X = X.copy()
    X[np.abs(X) < 1.0] = 0.0  # make it worth storing sparsely
    kwargs = dict(n_permutations=2, checkpoints=[100, 600], label_noise=0.05, random_state=1)
    estimators = {"arow": AROWClassifier(), "pa": PassiveAggressiveClassifier()}
    dense = evaluate(estimators, X, y, **kwargs)
    sparse = evaluate(estimators, sp.csr_matrix(X), y, **kwargs)
    for name in estimators:
        np.testing.assert_array_equal(
            dense.results[name].mistake_rate, sparse.results[name].mistake_rate
        )
        np.testing.assert_array_equal(dense.results[name].updates, sparse.results[name].updates)


@pytest.mark.parametrize("form", ["dataframe", "wide dataframe", "list", "coo"])
def test_every_input_form_gives_the_array_curves(form):
    # a permutation takes rows: X[order] on a DataFrame would pick columns (a KeyError, or on
    # a frame at least as wide as long, silently the wrong data)
    import pandas as pd
    import scipy.sparse as sp

    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 80 if form == "wide dataframe" else 5))
    y = np.sign(X[:, 0] + 1e-9)
    given = {
        "dataframe": lambda: pd.DataFrame(X),
        "wide dataframe": lambda: pd.DataFrame(X),
        "list": lambda: X.tolist(),
        "coo": lambda: sp.coo_matrix(X),
    }[form]()
    kwargs = dict(n_permutations=2, checkpoints=[10, 40], random_state=0)
    expected = evaluate({"arow": AROWClassifier()}, X, y, **kwargs).results["arow"]
    result = evaluate({"arow": AROWClassifier()}, given, list(y), **kwargs).results["arow"]
    np.testing.assert_array_equal(result.mistake_rate, expected.mistake_rate)
    np.testing.assert_array_equal(result.updates, expected.updates)
    grid = {"r": [0.1, 1.0, 10.0]}
    expected = select_parameters(AROWClassifier(), grid, X, y, random_state=0)
    selection = select_parameters(AROWClassifier(), grid, given, list(y), random_state=0)
    np.testing.assert_array_equal(selection.scores, expected.scores)


def test_evaluate_rejects_bad_arguments(data):
    X, y = data
    with pytest.raises(ValueError, match="non-empty dict"):
        evaluate([PerceptronClassifier()], X, y)
    with pytest.raises(ValueError, match="n_permutations"):
        evaluate({"p": PerceptronClassifier()}, X, y, n_permutations=0)
    with pytest.raises(ValueError, match="X_test and y_test"):
        evaluate({"p": PerceptronClassifier()}, X, y, X_test=X)
    with pytest.raises(ValueError, match="rows"):
        evaluate({"p": PerceptronClassifier()}, X, y[:-1])


@pytest.mark.parametrize("sparse", [False, True])
def test_compiled_grid_equals_the_lockstep_grid(data, sparse):
    import scipy.sparse as sp

    X, y = data
    if sparse:
        X = sp.csr_matrix(np.where(np.abs(X) > 1.0, X, 0.0))
    grid = {"C": [0.1, 1.0], "eta": [0.7, 0.9]}
    estimator = make_estimator("scw1")
    compiled = select_parameters(estimator, grid, X, y, random_state=2, compiled=True)
    lockstep = select_parameters(estimator, grid, X, y, random_state=2, compiled=False)
    assert compiled.method == "compiled" and lockstep.method == "lockstep"
    np.testing.assert_array_equal(compiled.scores, lockstep.scores)
    assert compiled.best_params == lockstep.best_params


def test_compiled_grid_models_equal_sequential_fits(data):
    from sklearn.base import clone

    from olearn.evaluation._grid import compiled_grid_pass

    X, y = data
    configurations = [AROWClassifier(r=r, covariance="full") for r in (0.1, 1.0, 10.0)]
    models = [clone(m) for m in configurations]
    assert compiled_grid_pass(models, X, y, np.unique(y))
    for model, config in zip(models, configurations, strict=True):
        direct = clone(config).fit(X, y)
        np.testing.assert_allclose(model.coef_, direct.coef_, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(model.covariance_, direct.covariance_, rtol=1e-10, atol=1e-14)
        assert model.n_mistakes_ == direct.n_mistakes_ and model.n_updates_ == direct.n_updates_
    # mixed estimator classes cannot share a compiled loop
    assert not compiled_grid_pass([AROWClassifier(), PerceptronClassifier()], X, y, np.unique(y))


def test_held_out_labels_never_seen_in_training_are_warned_of():
    """A held-out set labelled ±1 against 0/1 training labels scores ~0 whatever the model
    learns: a warning names the labels; a held-out set of the training labels has none."""
    import warnings

    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 3))
    y = (X[:, 0] > 0).astype(int)
    models = {"pa": PassiveAggressiveClassifier()}
    with pytest.warns(UserWarning, match=r"held-out labels -1 \(\d+% of the held-out rows\)"):
        evaluate(models, X, y, X_test=X, y_test=np.where(y == 1, 1, -1), n_permutations=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        evaluate(models, X, y, X_test=X, y_test=y, n_permutations=1)


def multilabel_data(n=240, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 6))
    return X, (X[:, :3] + 0.3 * rng.normal(size=(n, 3)) > 0).astype(int)


def test_a_multilabel_stream_is_evaluated_as_its_models_count_it():
    """A label-indicator matrix: the curves are those of one fit per prefix (a round is a
    mistake when the ranking misorders it), the held-out score subset accuracy; parameter
    selection scores its grid on the same counts."""
    X, Y = multilabel_data()
    checkpoints = [60, 240]
    models = [PassiveAggressiveClassifier(), AROWClassifier(r=0.5)]
    curves = train_side_by_side(models, X, Y, checkpoints=checkpoints, X_test=X, y_test=Y)
    for i, model in enumerate(models):
        for j, n in enumerate(checkpoints):
            direct = type(model)(**model.get_params()).fit(X[:n], Y[:n])
            assert curves.mistakes[i, j] == direct.n_mistakes_ > 0
            assert curves.test_accuracy[i, j] == direct.score(X, Y)
    grid = {"C": [0.1, 1.0]}
    selection = select_parameters(PassiveAggressiveClassifier(), grid, X, Y, random_state=3)
    order = np.random.default_rng(3).permutation(len(Y))
    direct = [PassiveAggressiveClassifier(C=c).fit(X[order], Y[order]).n_mistakes_ / len(Y)
              for c in grid["C"]]  # fmt: skip
    np.testing.assert_allclose(selection.scores, direct)
    result = evaluate({"pa": PassiveAggressiveClassifier()}, X, Y, n_permutations=2)
    assert result.results["pa"].mistake_rate.shape == (2, 20)


def test_label_noise_on_a_multilabel_stream_is_refused_by_name():
    X, Y = multilabel_data()
    with pytest.raises(ValueError, match=r"label noise.*\(240, 3\).*multilabel"):
        evaluate({"pa": PassiveAggressiveClassifier()}, X, Y, label_noise=0.1)
