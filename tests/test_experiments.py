"""The reproductions at reduced sizes: what the papers claim (where robust), and the outputs."""

import numpy as np
import pytest

pytest.importorskip("matplotlib")

from olearn import AROWClassifier, CWClassifier  # noqa: E402
from olearn.datasets import make_arow_synthetic  # noqa: E402
from olearn.evaluation import evaluate  # noqa: E402
from olearn.experiments import run  # noqa: E402


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_arow_makes_fewer_online_mistakes_than_cw_at_30_percent_noise(seed):
    """AROW paper §5: CW is fragile under label noise, AROW is not (synthetic data)."""
    d = make_arow_synthetic(1000, random_state=seed)
    comparison = evaluate(
        {"arow": AROWClassifier(covariance="full"), "cw": CWClassifier(covariance="full")},
        d.X,
        d.y,
        n_permutations=2,
        n_checkpoints=1,
        label_noise=0.3,
        random_state=seed,
    )
    arow = comparison.results["arow"].final("mistake_rate")[0]
    cw = comparison.results["cw"].final("mistake_rate")[0]
    assert arow < cw - 0.02


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_every_bound_holds(seed):
    result, _ = run("bounds", n=400, n_checkpoints=4, random_state=seed)
    assert len(result.rows) == 10  # 5 algorithms × 2 streams: no panel left empty
    for row in result.rows:
        assert row.holds, (row.algorithm, row.stream, row.observed, row.bound)
        assert np.all(row.observed >= 0) and np.all(np.isfinite(row.bound))
    assert "| yes |" in result.to_markdown()


def test_bounds_are_not_vacuous_where_they_should_bite():
    result, _ = run("bounds", n=400, n_checkpoints=4, random_state=0)
    perceptron = next(
        r for r in result.rows if r.algorithm == "Perceptron" and r.stream == "separable"
    )
    # Novikoff's bound is (R/γ)² ≈ 100 with γ = 0.1, R ≤ 1; the Perceptron needs some mistakes
    assert 0 < perceptron.observed[-1] <= perceptron.bound[-1] <= 101


def test_pa_theorem3_row_on_unit_norm_rows():
    """PA on the noisy stream: Σℓ² ≤ (‖u‖ + 2√Σℓ*²)² holds and is not vacuous (‖x‖ = 1)."""
    result, _ = run("bounds", n=400, n_checkpoints=4, random_state=0)
    row = next(r for r in result.rows if r.algorithm == "PA" and r.stream != "separable")
    assert "Thm 3" in row.theorem and row.quantity == "Σℓ²"
    assert row.holds and 0.05 < row.observed[-1] / row.bound[-1] < 1
    # the bound at u = 0 is 0 + 2²·T (every ℓ* = 1): the minimum over u is far below that
    assert row.bound[-1] < 4 * 400


def test_iris_scw_update_counts_figures_and_gif(tmp_path):
    from PIL import Image

    result, _ = run("iris-scw", n_draws=2000, n_snapshots=10, n_frames=7, random_state=0)
    runs = result.runs
    # separable pair: CW settles after few updates; AROW keeps updating (hinge loss at margin 1)
    assert runs[("separable", "CW")].n_updates < runs[("separable", "AROW")].n_updates
    assert runs[("separable", "CW")].accuracy == 1.0
    # non-separable pair: AROW updates most often, SCW-I least among the soft methods (blog)
    nonsep = {a: runs[("nonseparable", a)].n_updates for a in ("SCW-I", "SCW-II", "AROW")}
    assert nonsep["SCW-I"] < nonsep["SCW-II"] < nonsep["AROW"]
    assert "3,108" in result.to_markdown()
    paths = result.figures(tmp_path, weights=False)
    # two boundary figures, one animation per algorithm (the blog's four)
    assert len(paths) == 6
    for path in paths.values():
        assert (tmp_path / path.split("/")[-1]).stat().st_size > 1000
    for algorithm in ("cw", "scw-i", "scw-ii", "arow"):
        gif = Image.open(paths[f"iris_nonseparable_{algorithm}_animation"])
        assert gif.n_frames == 7


def test_iris_gif_frame_count_can_be_limited(tmp_path):
    from PIL import Image

    result, _ = run("iris-scw", n_draws=500, n_snapshots=5, n_frames=12, random_state=1)
    paths = result.figures(
        tmp_path, gif_frames=4, gifs=(("separable", "CW"),), boundaries=False, weights=False
    )
    assert Image.open(paths["iris_separable_cw_animation"]).n_frames == 4


def test_table1_reduced_arow_ranks_first_under_noise(tmp_path):
    result, paths = run(
        "table1",
        tmp_path,
        tasks=("digits-3v5", "arow-synthetic"),
        synthetic_size=400,
        noise_levels=(0.0, 0.3),
        n_permutations=1,
    )
    assert result.ranks["AROW"][1] == min(result.ranks[a][1] for a in result.algorithms)
    for j in range(2):  # mean ranks of 4 algorithms sum to 10
        assert sum(result.ranks[a][j] for a in result.algorithms) == pytest.approx(10.0)
    text = result.to_markdown()
    assert "(1.51)" in text and "(1.25)" in text  # the paper's numbers beside ours
    assert any("noise 0.3" in note for note in result.agreement())
    assert (tmp_path / "table1_ranks.png").stat().st_size > 1000


def test_fig2_reduced_learning_curves(tmp_path):
    result, paths = run(
        "fig2",
        tmp_path,
        n_runs=2,
        n_train=600,
        n_test=600,
        n_permutations=1,
        n_checkpoints=4,
        mnist_noise=(),
    )
    (panel,) = result.synthetic.values()
    arow = panel.results["AROW (full)"]
    assert arow.test_accuracy.shape == (2, len(arow.checkpoints))
    # AROW beats PA on the noisy synthetic data (Fig. 2a)
    assert arow.final("test_accuracy")[0] > panel.results["PA"].final("test_accuracy")[0]
    assert (tmp_path / "fig2_synthetic.png").stat().st_size > 1000


def test_libol_reduced_three_panels(tmp_path):
    """Curves over checkpoints, and each algorithm timed over whole passes (one per order)."""
    result, paths = run(
        "libol",
        tmp_path,
        tasks=("digits-3v5",),
        algorithms=("perceptron", "arow"),
        n_permutations=2,
        n_checkpoints=3,
    )
    comparison = result.comparisons["digits-3v5"]
    assert comparison.results["arow"].updates.shape == (2, 3)
    assert "arow" in comparison.selection and "perceptron" not in comparison.selection
    times = result.times["digits-3v5"]
    assert set(times) == {"perceptron", "arow"} and all(len(t) == 2 for t in times.values())
    assert all(np.all((t > 0) & (t < 1e-2)) for t in times.values())  # seconds per example
    assert "µs per example (median of 2)" in result.to_markdown()
    assert (tmp_path / "libol_digits-3v5.png").stat().st_size > 1000


def test_run_all_writes_a_report(tmp_path):
    from olearn.experiments import run_all

    path = run_all(str(tmp_path), quick=True, names=["bounds"], log=None)
    text = open(path).read()
    assert text.startswith("# olearn") and "![bounds](bounds.png)" in text
    assert "Crammer et al. 2006" in text


def test_experiment_cli(tmp_path, capsys):
    from olearn.cli import main

    assert main(["experiment", "bounds", "--quick", "--out", str(tmp_path)]) == 0
    assert "figure:" in capsys.readouterr().out
    assert (tmp_path / "bounds.png").exists()
    with pytest.raises(SystemExit) as error:
        main(["experiment", "nope"])
    assert error.value.code == 2


def test_unknown_experiment_is_a_value_error():
    with pytest.raises(ValueError, match="unknown experiment"):
        run("nope")


def test_libol_multiclass_task_runs_or_is_skipped_with_a_reason():
    pytest.importorskip("river", reason="ImageSegments ships with river (the data extra)")
    from olearn.evaluation import make_estimator
    from olearn.experiments.libol import supports_multiclass

    result, _ = run(
        "libol",
        tasks=("image-segments",),
        algorithms=("perceptron", "arow"),
        n_permutations=1,
        n_checkpoints=2,
    )
    capable = [n for n in ("perceptron", "arow") if supports_multiclass(make_estimator(n))]
    if capable:
        assert list(result.comparisons["image-segments"].results) == capable
    else:
        assert "multiclass" in result.skipped["image-segments"]


def test_libol_timing_warm_up_on_class_sorted_data_does_not_warn():
    """The untimed warm-up fit reads the data set in its own order (digit pairs are sorted by
    class): its model is discarded, so it must not print an OrderedStreamWarning per
    algorithm into the experiment's output."""
    import warnings

    from olearn import PerceptronClassifier
    from olearn.experiments.libol import time_passes

    X = np.random.default_rng(0).normal(size=(40, 3))
    y = np.repeat([0, 1], 20)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        seconds = time_passes({"perceptron": PerceptronClassifier()}, X, y, 2, 0, repeats=1)
    assert [w.category.__name__ for w in caught] == []
    assert seconds["perceptron"].shape == (2,)
