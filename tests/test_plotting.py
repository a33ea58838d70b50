"""Figures: titles, labelled axes, legends; sampled boundaries; GIF frames."""

import numpy as np
import pytest

pytest.importorskip("matplotlib")

from olearn import AROWClassifier, PerceptronClassifier  # noqa: E402
from olearn.datasets import load_iris_pair  # noqa: E402
from olearn.plotting import (  # noqa: E402
    animate_boundary,
    gaussian_snapshot,
    plot_comparison,
    plot_decision_boundary,
    plot_weights_over_time,
    save,
)


@pytest.fixture(scope="module")
def iris():
    return load_iris_pair(separable=False)


def _check_labelled(fig):
    axes = [ax for ax in fig.axes if ax.get_visible() and ax.axison]
    assert axes
    for ax in axes:
        assert ax.get_title() or fig._suptitle is not None
        assert ax.get_xlabel() and ax.get_ylabel()
    # one legend for the figure (outside the panels) or one per axes
    assert fig.legends or any(a.get_legend() for a in fig.axes)


def test_boundary_with_samples_from_the_gaussian(iris):
    model = AROWClassifier(covariance="full").fit(iris.X, iris.y)
    fig = plot_decision_boundary(model, iris.X, iris.y, samples=30)
    _check_labelled(fig)
    lines = fig.axes[0].get_lines()
    assert len(lines) == 31  # 30 samples + the mean
    # the mean's line is the model's boundary: its end points score 0
    xs, ys = lines[-1].get_data()
    np.testing.assert_allclose(model.decision_function(np.column_stack([xs, ys])), 0, atol=1e-9)
    fig = plot_decision_boundary(model, iris.X, iris.y, samples=0)
    assert len(fig.axes[0].get_lines()) == 1


def test_boundary_of_first_order_and_nonlinear_models(iris):
    from matplotlib.contour import ContourSet
    from sklearn.svm import SVC

    fig = plot_decision_boundary(PerceptronClassifier().fit(iris.X, iris.y), iris.X, iris.y)
    _check_labelled(fig)
    assert len(fig.axes[0].get_lines()) == 1  # no covariance: only the boundary itself
    fig = plot_decision_boundary(SVC().fit(iris.X, iris.y), iris.X, iris.y, samples=30)
    _check_labelled(fig)
    assert len([c for c in fig.axes[0].collections if isinstance(c, ContourSet)]) == 1


def test_a_class_keeps_its_colour_in_any_subset():
    """Colours follow the position in ``model.classes_``, not the labels of the plotted y:
    a subset without the first class must not repaint the others; ``class_names`` follow
    ``classes_`` too."""
    from matplotlib.collections import PathCollection
    from matplotlib.colors import to_hex

    from olearn.plotting.style import CLASS_COLORS

    rng = np.random.default_rng(0)
    X = rng.normal(size=(90, 2)) + np.repeat([[0, 0], [4, 0], [0, 4]], 30, axis=0)
    y = np.repeat(["a", "b", "c"], 30)
    model = PerceptronClassifier().fit(X, y)
    subset = y != "a"
    fig = plot_decision_boundary(model, X[subset], y[subset], class_names=["A", "B", "C"])
    ax = fig.axes[0]
    drawn = {to_hex(c.get_facecolor()[0]) for c in ax.collections if type(c) is PathCollection}
    assert drawn == {to_hex(CLASS_COLORS[1]), to_hex(CLASS_COLORS[2])}
    texts = [t.get_text() for t in fig.legends[0].get_texts()]
    assert texts[:3] == ["class A", "class B", "class C"]


def test_a_snapshot_keeps_its_models_classes_for_their_colours():
    """A ``GaussianSnapshot`` (what animations plot) keeps the model's classes: a plotted
    subset holding only the second class draws it in the second colour, as the model
    itself would be drawn (it took the sorted labels of y: the first colour)."""
    from matplotlib.collections import PathCollection
    from matplotlib.colors import to_hex

    from olearn.plotting.style import CLASS_COLORS

    rng = np.random.default_rng(1)
    X = rng.normal(size=(60, 2)) + np.repeat([[0, 0], [4, 0]], 30, axis=0)
    y = np.repeat(["no", "yes"], 30)
    snapshot = gaussian_snapshot(AROWClassifier().fit(X, y))
    assert snapshot.classes == ("no", "yes")
    fig = plot_decision_boundary(snapshot, X[y == "yes"], y[y == "yes"])
    drawn = {to_hex(c.get_facecolor()[0]) for c in fig.axes[0].collections
             if type(c) is PathCollection}  # fmt: skip
    assert drawn == {to_hex(CLASS_COLORS[1])}


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda X, y: (X, y[:10]), "one label per point: X has 100 rows, y has shape"),
        (lambda X, y: (X, y[:, None]), "one label per point"),
        (lambda X, y: (X[:0], y[:0]), "no points to plot"),
        (lambda X, y: (np.where(X > 1, np.nan, X), y), "NaN or infinity"),
    ],
)
def test_boundary_names_bad_points(iris, change, message):
    """Mismatched, empty or non-finite points were an IndexError, NumPy's "zero-size array
    to reduction operation" or the model's complaint about a grid row; now a ValueError
    naming the problem, from both the figure and the animation."""
    model = PerceptronClassifier().fit(iris.X, iris.y)
    X, y = change(iris.X, iris.y)
    with pytest.raises(ValueError, match=message):
        plot_decision_boundary(model, X, y)
    with pytest.raises(ValueError, match=message):
        animate_boundary([gaussian_snapshot(model)], X, y, "never-written.gif")
    with pytest.raises(ValueError, match="samples must be ≥ 0"):
        plot_decision_boundary(model, iris.X, iris.y, samples=-1)


def test_boundary_rejects_non_2d(iris):
    with pytest.raises(ValueError, match="2-D"):
        plot_decision_boundary(PerceptronClassifier(), np.zeros((3, 3)), np.zeros(3))


def test_boundary_of_a_model_without_one_is_refused_by_name(iris):
    from olearn import PassiveAggressiveRegressor

    model = PassiveAggressiveRegressor().fit(iris.X, iris.y)
    with pytest.raises(TypeError, match="PassiveAggressiveRegressor has no decision_function"):
        plot_decision_boundary(model, iris.X, iris.y)


def test_snapshot_covariance_matches_the_model(iris):
    full = AROWClassifier(covariance="full").fit(iris.X, iris.y)
    snap = gaussian_snapshot(full)
    np.testing.assert_allclose(snap.covariance[:-1, :-1], full.covariance_, atol=1e-12)
    np.testing.assert_allclose(snap.decision_function(iris.X), full.decision_function(iris.X))
    diag = AROWClassifier(covariance="diagonal").fit(iris.X, iris.y)
    np.testing.assert_allclose(np.diag(gaussian_snapshot(diag).covariance)[:-1], diag.covariance_)
    assert gaussian_snapshot(PerceptronClassifier().fit(iris.X, iris.y)).covariance is None


def test_weights_over_time_and_gif(tmp_path, iris):
    from PIL import Image

    from olearn.evaluation import train_side_by_side

    curves = train_side_by_side(
        [AROWClassifier(covariance="full")],
        iris.X,
        iris.y,
        checkpoints=[10, 20, 50, 100],
        snapshot=gaussian_snapshot,
    )
    snapshots = curves.models[0]
    fig = plot_weights_over_time(snapshots, feature_names=iris.feature_names)
    _check_labelled(fig)
    assert len(fig.legends[0].get_texts()) == 3  # two features and the bias
    path = save(fig, tmp_path / "w.png")
    assert (tmp_path / "w.png").stat().st_size > 1000 and path.endswith("w.png")
    gif = animate_boundary(snapshots, iris.X, iris.y, tmp_path / "a.gif", samples=5)
    assert Image.open(gif).n_frames == 4
    assert Image.open(gif).size == (520, 440)  # 5.2 × 4.4 in at 100 dpi


def test_png_is_saved_at_150_dpi_with_a_palette(tmp_path, iris):
    from PIL import Image

    model = PerceptronClassifier().fit(iris.X, iris.y)
    image = Image.open(save(plot_decision_boundary(model, iris.X, iris.y), tmp_path / "b.png"))
    assert image.mode == "P" and round(image.info["dpi"][0]) == 150
    assert image.size == (round(5.6 * 150), round(4.8 * 150))
    fig = plot_decision_boundary(model, iris.X, iris.y)
    assert Image.open(save(fig, tmp_path / "c.png", colors=None)).mode in ("RGB", "RGBA")


def test_sampled_boundaries_follow_the_covariance(iris):
    """The sampled weights are μ + A z with A Aᵀ = Σ: draws z whose mean is 0 and second
    moment I exactly (±√3 eᵢ) give weights whose mean is μ and covariance Σ exactly."""
    from olearn.plotting.boundary import _sample_weights

    model = AROWClassifier(covariance="full").fit(iris.X[:20], iris.y[:20])
    snap = gaussian_snapshot(model)
    noise = np.sqrt(3) * np.vstack([np.eye(3), -np.eye(3)])
    w = _sample_weights(snap, noise)
    np.testing.assert_allclose(w.mean(axis=0), snap.mean, atol=1e-12)
    np.testing.assert_allclose(np.cov(w.T, bias=True), snap.covariance, atol=1e-12)


def test_comparison_panels():
    from olearn.datasets import make_arow_synthetic
    from olearn.evaluation import evaluate

    d = make_arow_synthetic(300, random_state=0)
    comparison = evaluate(
        {"arow": AROWClassifier(), "perceptron": PerceptronClassifier()},
        d.X,
        d.y,
        n_permutations=2,
        n_checkpoints=4,
        random_state=0,
    )
    fig = plot_comparison(comparison)
    assert len(fig.axes) == 3
    _check_labelled(fig)
    assert [ax.get_ylabel() for ax in fig.axes] == [
        "online mistake rate (fraction)",
        "cumulative updates (count)",
        "training time (ms)",
    ]
    # with separately timed passes the third panel is one bar per algorithm, at the median
    times = {"arow": np.array([2e-6, 3e-6, 9e-6]), "perceptron": np.array([1e-6, 1e-6, 1e-6])}
    fig = plot_comparison(comparison, times=times)
    bars = fig.axes[2].patches
    assert [round(b.get_width(), 6) for b in bars] == [3.0, 1.0]  # µs per example
    assert fig.axes[2].get_xlabel() == "training time per example (µs)"


def test_comparison_of_regressors_plots_their_online_squared_error():
    from olearn import PassiveAggressiveRegressor, SGDRegressor
    from olearn.evaluation import evaluate

    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    y = X @ np.array([1.0, -1.0, 0.5])
    regressors = {"pa": PassiveAggressiveRegressor(), "sgd": SGDRegressor()}
    comparison = evaluate(regressors, X, y, n_permutations=2, n_checkpoints=4, random_state=0)
    fig = plot_comparison(comparison)
    _check_labelled(fig)
    assert fig.axes[0].get_ylabel() == "online squared error"
    plotted = fig.axes[0].lines[0].get_ydata()
    np.testing.assert_allclose(plotted, comparison.results["pa"].mean("squared_error"))


def test_learning_curves_of_regressors_label_their_r2():
    """Before: a regressor's held-out R² (negative below the mean's) was drawn on an axis
    labelled 'held-out accuracy (fraction)'."""
    from olearn import PassiveAggressiveRegressor
    from olearn.evaluation import evaluate
    from olearn.plotting import plot_learning_curves

    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 3))
    y = X @ np.array([1.0, -1.0, 0.5])
    comparison = evaluate({"pa": PassiveAggressiveRegressor()}, X[:80], y[:80],
                          n_permutations=1, n_checkpoints=2, X_test=X[80:], y_test=y[80:],
                          random_state=0)  # fmt: skip
    fig = plot_learning_curves(comparison)
    _check_labelled(fig)
    assert fig.axes[0].get_ylabel() == "held-out R²"
