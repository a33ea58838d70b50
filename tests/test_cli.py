"""The `olearn` command: golden outputs, agreement with the library, errors and exit codes."""

import gzip
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from sklearn.datasets import load_svmlight_file

import olearn
from olearn.cli import main
from olearn.io import read_model_header

GOLDEN = Path(__file__).parent / "golden"
SRC = Path(__file__).resolve().parents[1] / "src"


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _normalised(text: str, model) -> str:
    lines = [line for line in text.splitlines() if not line.startswith("time ")]
    # a file's size follows every change of its header: tests/test_model_file_compact.py
    lines = ["size            SIZE" if line.startswith("size ") else line for line in lines]
    return "\n".join(lines).replace(str(model), "MODEL") + "\n"


@pytest.fixture
def golden_dir(monkeypatch):
    monkeypatch.chdir(GOLDEN)
    return GOLDEN


@pytest.mark.parametrize(
    "argv, golden",
    [
        (["arow", "small.svm", "--r", "0.5"], "train_arow_small_svm.txt"),
        (["pa1", "small.vw", "--bits", "10", "--quadratic", "wc"], "train_pa_small_vw.txt"),
        (["arow", "multiclass.svm"], "train_arow_multiclass_svm.txt"),
        (["pa1", "regression.svm", "--epsilon", "0.1"], "train_pa_regression_svm.txt"),
    ],
)
def test_train_progress_is_golden(capsys, golden_dir, tmp_path, argv, golden):
    model = tmp_path / "m.olm"
    code, out, err = run(capsys, "train", *argv, "-o", model)
    assert code == 0, err
    assert _normalised(out, model) == (golden_dir / golden).read_text()
    assert model.exists()


def test_predict_info_are_golden(capsys, golden_dir, tmp_path):
    arow = tmp_path / "arow.olm"
    pa = tmp_path / "pa.olm"
    assert run(capsys, "train", "arow", "small.svm", "--r", "0.5", "-o", arow)[0] == 0
    assert run(capsys, "train", "pa1", "small.vw", "--bits", "10", "-q", "wc", "-o", pa)[0] == 0
    code, out, err = run(capsys, "predict", arow, "small.svm")
    assert code == 0 and out == (golden_dir / "predict_arow_small_svm.txt").read_text()
    assert "error rate 0.100000 on 40 labelled" in err
    code, out, _ = run(capsys, "predict", arow, "small.svm", "--proba")
    assert out == (golden_dir / "proba_arow_small_svm.txt").read_text()
    code, out, _ = run(capsys, "predict", pa, "small.vw", "--scores")
    assert out == (golden_dir / "scores_pa_small_vw.txt").read_text()
    code, out, _ = run(capsys, "info", pa)
    assert _normalised(out, pa) == (golden_dir / "info_pa_small_vw.txt").read_text()


def test_cli_model_equals_the_library(capsys, tmp_path):
    model_path = tmp_path / "m.olm"
    argv = ["train", "pa", GOLDEN / "small.svm", "--variant", "PA-II", "--C", "0.3"]
    assert run(capsys, *argv, "--no-fit-intercept", "-o", model_path)[0] == 0
    X, y = load_svmlight_file(str(GOLDEN / "small.svm"), n_features=12)
    expected = olearn.PassiveAggressiveClassifier(variant="PA-II", C=0.3, fit_intercept=False)
    expected.fit(X, y)
    model = olearn.load(model_path)
    assert model.get_params() == expected.get_params()
    assert np.array_equal(model.weights_, expected.weights_)
    code, out, _ = run(capsys, "predict", model_path, GOLDEN / "small.svm", "--scores")
    scores = np.array(out.split(), dtype=float)
    assert np.allclose(scores, expected.decision_function(X), rtol=1e-9)


def test_resume_equals_uninterrupted(capsys, tmp_path):
    lines = (GOLDEN / "small.svm").read_text().splitlines(keepends=True)
    first, second = tmp_path / "a.svm", tmp_path / "b.svm"
    first.write_text("".join(lines[:20]))
    second.write_text("".join(lines[20:]))
    both, part = tmp_path / "both.olm", tmp_path / "part.olm"
    common = ["--n-features", "12", "--task", "binary"]
    assert run(capsys, "train", "cw", first, second, *common, "-o", both)[0] == 0
    assert run(capsys, "train", "cw", first, *common, "-o", part)[0] == 0
    code, _, err = run(capsys, "train", "cw", second, "--resume", part, "-o", part)
    assert code == 0, err
    a, b = olearn.load(both), olearn.load(part)
    for name in ("weights_", "variances_", "stats_", "classes_"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name


def test_gzip_input_equals_plain(capsys, tmp_path):
    packed = tmp_path / "small.svm.gz"
    packed.write_bytes(gzip.compress((GOLDEN / "small.svm").read_bytes()))
    plain_model, packed_model = tmp_path / "p.olm", tmp_path / "z.olm"
    assert run(capsys, "train", "arow", GOLDEN / "small.svm", "-o", plain_model)[0] == 0
    assert run(capsys, "train", "arow", packed, "-o", packed_model)[0] == 0
    assert np.array_equal(olearn.load(plain_model).weights_, olearn.load(packed_model).weights_)


def test_stdin_and_python_dash_m(tmp_path):
    model = tmp_path / "m.olm"
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    data = (GOLDEN / "small.svm").read_bytes()
    # standard input is read once, as it arrives: svmlight needs its width given
    argv = [sys.executable, "-m", "olearn", "train", "arow", "-", "--r", "0.5", "-o", str(model)]
    done = subprocess.run(argv, input=data, capture_output=True, env=env, timeout=300)
    assert done.returncode == 2 and b"give --n-features" in done.stderr
    done = subprocess.run(
        argv + ["--n-features", "12"],
        input=gzip.compress(data),
        capture_output=True,
        env=env,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    done = subprocess.run(
        [sys.executable, "-m", "olearn", "predict", str(model), "-"],
        input=data,
        capture_output=True,
        env=env,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.decode() == (GOLDEN / "predict_arow_small_svm.txt").read_text()


def test_bad_line_stops_with_one_line_and_no_model(capsys, tmp_path):
    data = tmp_path / "bad.svm"
    data.write_text("1 1:1\n-1 2:1\n1 3:abc\n-1 1:1\n")
    model = tmp_path / "m.olm"
    code, out, err = run(capsys, "train", "arow", data, "-o", model)
    assert code == 2
    assert err == f"olearn: error: {data}:3: feature value is not a number: '3:abc'\n"
    assert not model.exists()
    # an existing model is left untouched
    model.write_bytes(b"old")
    assert run(capsys, "train", "arow", data, "-o", model, "--n-features", "3")[0] == 2
    assert model.read_bytes() == b"old"


@pytest.mark.parametrize("data", ["1 1:1\n-1 2:1\n", "1 1:1\n1 3:abc\n"], ids=["ok", "bad"])
def test_train_collects_garbage_again_when_done(capsys, tmp_path, data):
    """train collects no garbage while its modules load, then freezes them: when the command
    is done, in this process, collection is back on and nothing is left frozen."""
    import gc

    path = tmp_path / "d.svm"
    path.write_text(data)
    code = run(capsys, "train", "pa", path, "-o", tmp_path / "m.olm")[0]
    assert code == (0 if data.endswith("2:1\n") else 2)
    assert gc.isenabled() and gc.get_freeze_count() == 0


def test_features_unseen_in_training_are_ignored_and_counted(capsys, tmp_path):
    # before: "feature index beyond the model's width", exit 2
    model = tmp_path / "m.olm"
    assert run(capsys, "train", "arow", GOLDEN / "small.svm", "-o", model)[0] == 0
    wide = tmp_path / "wide.svm"
    wide.write_text("1 2:1 13:5 40:1\n-1 3:1\n1 2:1\n")
    narrow = tmp_path / "narrow.svm"
    narrow.write_text("1 2:1\n-1 3:1\n1 2:1\n")
    code, out, err = run(capsys, "predict", model, wide, "--scores")
    assert code == 0, err
    assert "ignored 2 values of features unseen in training (beyond its 12 features) in 1 " in err
    assert "predicted 3 examples;" in err and err.endswith("in 1 example\n")  # (one: no plural)
    assert out == run(capsys, "predict", model, narrow, "--scores")[1]
    # training keeps its declared width: an index beyond it is still an error
    code, _, err = run(capsys, "train", "arow", wide, "--n-features", "12", "-o", model)
    assert code == 2 and "beyond the model's width (12 features): '13:5'" in err


def test_a_model_of_one_feature_is_said_to_have_1_feature(capsys, tmp_path):
    """Train's header and summary, and predict's and evaluate's count of values unseen in
    training, say "1 feature" (was "1 features"), as they say "1 example"."""
    train, wide = tmp_path / "one.svm", tmp_path / "wide.svm"
    train.write_text("1 1:1\n-1 1:-1\n1 1:2\n-1 1:-2\n")
    wide.write_text("1 1:1 3:2\n-1 1:-1\n")
    model = tmp_path / "m.olm"
    code, out, err = run(capsys, "train", "pa", train, "-o", model)
    assert code == 0, err
    assert "(binary) on 1 feature\n" in out and "(PassiveAggressiveClassifier, 1 feature)\n" in out
    unseen = "ignored 1 value of features unseen in training (beyond its 1 feature) in 1 example\n"
    code, _, err = run(capsys, "predict", model, wide)
    assert code == 0 and unseen in err
    code, _, err = run(capsys, "evaluate", "pa", train, "--holdout", wide, "-k", "1")
    assert code == 0 and unseen in err


def test_skip_bad_lines_reports_the_count(capsys, tmp_path):
    data = tmp_path / "bad.svm"
    data.write_text("1 1:1\nx 2:1\n-1 2:1\n1 3:1 2:1\n")
    model = tmp_path / "m.olm"
    code, out, err = run(capsys, "train", "arow", data, "-o", model, "--skip-bad-lines")
    assert code == 0, err
    assert "bad lines       2 skipped" in out
    assert f"first bad line  {data}:2: label is not a number: 'x'" in out
    assert olearn.load(model).n_rounds_ == 2


#: Malformed lines of each format, and lines that are no examples (blank, a comment).
_BAD = {
    "svmlight": ["1 3:abc", "x 1:1", "1 2:1 2:1", "-1 5:1 3:1"],
    "vw": ["1 |w apple:x", "1 x |w apple", "nobar", "1 |c red:inf"],
}
_NO_EXAMPLE = {"svmlight": ["", "   ", "# a comment"], "vw": ["", "  "]}


def _with_bad_lines(examples: list[str], fmt: str) -> tuple[str, list[bool]]:
    """``examples`` with malformed lines first, two in a row in the middle and two last (the
    last without a newline), and lines that are no examples between them; and, for each
    example line of the result, whether it is malformed."""
    bad, blank = _BAD[fmt], _NO_EXAMPLE[fmt]
    middle = len(examples) // 2
    lines = (
        [bad[0], *blank]
        + examples[:middle]
        + [bad[1], blank[0], bad[2]]
        + examples[middle:]
        + [blank[-1], bad[3], bad[0]]
    )
    is_bad = [line in bad for line in lines if line.strip() and not line.startswith("# ")]
    return "\n".join(lines), is_bad


@pytest.mark.parametrize(
    "data, model_data, output",
    [
        ("small.svm", "small.svm", []),
        ("small.svm", "small.svm", ["--scores"]),
        ("multiclass.svm", "multiclass.svm", ["--proba"]),
        ("small.vw", "small.vw", []),
        ("small.vw", "small.vw", ["--proba"]),
    ],
)
@pytest.mark.parametrize("chunk_bytes", ["8M", "64"])
def test_predict_keeps_a_line_per_example_when_skipping(
    capsys, golden_dir, tmp_path, data, model_data, output, chunk_bytes
):
    # before: a skipped line had no output line, so every later prediction moved up one
    # line and could no longer be paired with its example
    fmt = "vw" if data.endswith(".vw") else "svmlight"
    model = tmp_path / "m.olm"
    assert run(capsys, "train", "arow", model_data, "-o", model)[0] == 0
    examples = [line for line in Path(data).read_text().splitlines() if line[:1] != "#"]
    clean = tmp_path / f"clean.{fmt}"
    clean.write_text("\n".join(examples) + "\n")
    code, expected, _ = run(capsys, "predict", model, clean, *output)
    assert code == 0
    mixed = tmp_path / f"mixed.{fmt}"
    text, is_bad = _with_bad_lines(examples, fmt)
    mixed.write_text(text)
    argv = ["predict", model, mixed, *output, "--skip-bad-lines", "--chunk-bytes", chunk_bytes]
    code, out, err = run(capsys, *argv)
    assert code == 0, err
    lines = out.splitlines()
    assert sum(is_bad) == 5
    assert len(lines) == len(is_bad) == len(examples) + 5  # one per example line, in order
    width = len(expected.splitlines()[0].split())
    placeholder = " ".join(["nan"] * width)
    assert [line for line, bad in zip(lines, is_bad, strict=True) if bad] == [placeholder] * 5
    assert [line for line, bad in zip(lines, is_bad, strict=True) if not bad] == (
        expected.splitlines()
    )
    assert "skipped 5 bad lines (a line of nan in place of each)" in err
    written = tmp_path / "predictions.txt"  # -o FILE: the same lines
    assert run(capsys, *argv, "-o", written)[0] == 0
    assert written.read_text() == out
    if "--proba" in output or fmt == "svmlight":  # NumPy reads the placeholders as missing
        table = np.loadtxt(written, ndmin=2)
        assert table.shape == (len(is_bad), width)
        assert np.isnan(table[is_bad]).all() and not np.isnan(table[~np.array(is_bad)]).any()


def test_empty_input_is_an_error(capsys, tmp_path):
    data = tmp_path / "empty.svm"
    data.write_text("# nothing here\n")
    model = tmp_path / "m.olm"
    code, _, err = run(capsys, "train", "arow", data, "-o", model)
    assert code == 2 and "no examples" in err and not model.exists()
    code, _, err = run(
        capsys, "train", "arow", data, "--task", "binary", "--n-features", "3", "-o", model
    )
    assert code == 2 and "no examples" in err and not model.exists()


@pytest.mark.parametrize(
    "name, text, width",
    [
        ("bad.svm", "abc\nxyz 1:1\n", []),
        ("bad.svm", "abc\nxyz 1:1\n", ["--n-features", "3"]),
        ("bad.vw", "abc |f a\n|f b\n", []),
        ("big.svm", "abc\n" + "bad line\n" * (1 << 20), []),  # scanned, not parsed once
    ],
)
def test_an_input_of_bad_lines_only_says_what_it_skipped(capsys, tmp_path, name, text, width):
    """--skip-bad-lines on an input whose every line is malformed: 'no examples' says how
    many lines were skipped and the first one, as predict does (before: only 'no
    examples', as if the file were empty)."""
    data, model = tmp_path / name, tmp_path / "m.olm"
    data.write_text(text)
    code, _, err = run(capsys, "train", "arow", data, *width, "--skip-bad-lines", "-o", model)
    n_bad = text.count("\n")
    assert code == 2 and not model.exists()
    assert err == (f"olearn: error: {data}: no examples (skipped {n_bad} bad lines; the first: "
                   f"{data}:1: label is not a number: 'abc')\n")  # fmt: skip


def test_corrupted_model_is_exit_2_with_one_line(capsys, tmp_path):
    model = tmp_path / "m.olm"
    assert run(capsys, "train", "arow", GOLDEN / "small.svm", "-o", model)[0] == 0
    data = bytearray(model.read_bytes())
    data[len(data) // 2] ^= 1
    model.write_bytes(bytes(data))
    for command in (["info", model], ["predict", model, GOLDEN / "small.svm"]):
        code, out, err = run(capsys, *command)
        assert code == 2 and out == ""
        assert err.count("\n") == 1 and "corrupted" in err


def test_usage_errors(capsys, tmp_path):
    model = tmp_path / "m.olm"
    code, _, err = run(capsys, "train", "nosuch", GOLDEN / "small.svm", "-o", model)
    assert code == 2 and "unknown algorithm 'nosuch'" in err
    with pytest.raises(SystemExit) as exit_info:
        main(["train", "perceptron", str(GOLDEN / "small.svm"), "--C", "1", "-o", str(model)])
    assert exit_info.value.code == 2  # --C is not a Perceptron option
    err = capsys.readouterr().err
    assert "unrecognized arguments: --C 1 (see olearn train perceptron --help)" in err
    # the command's usage line (before: the top level's "usage: olearn [-h] ... COMMAND ...")
    assert err.startswith("usage: olearn train ") and "olearn train: error:" in err
    code, _, err = run(capsys, "train", "pa", GOLDEN / "small.svm", "--C", "-1", "-o", model)
    assert code == 2 and "'C' parameter" in err and err.count("\n") == 1
    code, _, err = run(capsys, "train", "arow", tmp_path / "missing.svm", "-o", model)
    assert code == 2 and "no such file" in err
    code, _, err = run(capsys, "train", "arow", GOLDEN / "small.svm", "-o", tmp_path / "no/m")
    assert code == 2 and "does not exist" in err
    assert run(capsys, "train", "arow", GOLDEN / "small.svm", "-o", model)[0] == 0
    code, _, err = run(
        capsys, "train", "arow", GOLDEN / "small.svm", "--resume", model, "--r", "2", "-o", model
    )
    assert code == 2 and "--resume" in err


@pytest.mark.parametrize(
    "argv, message",
    [
        (["train", "pa", "small.svm", "--bits", "-3"], "--bits must be in [1, 31], got -3"),
        (["train", "pa", "small.svm", "--bits", "40"], "--bits must be in [1, 31], got 40"),
        (["evaluate", "pa", "small.svm", "--bits", "0"], "--bits must be in [1, 31], got 0"),
        (["train", "pa", "small.vw", "--zero-based"], "--zero-based applies to svmlight input"),
        (["evaluate", "pa", "small.vw", "--one-based"], "--one-based applies to svmlight input"),
        (["predict", "VW_MODEL", "small.vw", "--one-based"], "--one-based applies to svmlight"),
        # (wrote a file named "-"; standard output holds the table)
        (["evaluate", "pa", "small.svm", "--csv", "-"], "--csv -: the table is printed on"),
        (["evaluate", "pa", "small.svm", "--json", "-"], "--json -: the table is printed on"),
    ],
)
def test_data_options_that_cannot_apply_are_errors(capsys, golden_dir, tmp_path, argv, message):
    # before: --bits -3 on svmlight said "negative shift count"; --zero-based/--one-based on
    # VW-style input (hashed: no indices) were silently ignored
    model = tmp_path / "vw.olm"
    if "VW_MODEL" in argv:
        assert run(capsys, "train", "pa", "small.vw", "--bits", "10", "-o", model)[0] == 0
    argv = [str(model) if a == "VW_MODEL" else a for a in argv]
    code, out, err = run(capsys, *argv, *(["-o", tmp_path / "m.olm"] if "train" in argv else []))
    assert code == 2 and err.startswith(f"olearn: error: {message}")
    assert err.count("\n") == 1 and not (tmp_path / "m.olm").exists()


def test_holdout_off_with_one_pass_warns(capsys, golden_dir, tmp_path):
    code, _, err = run(capsys, "train", "pa", "small.svm", "--holdout-off", "-o", tmp_path / "m")
    assert code == 0 and "warning: --holdout-off has no effect with one pass" in err


def test_dask_options_without_dask_warn(capsys, golden_dir, tmp_path):
    # before: --mixing and --partitions without --dask were dropped without a word
    argv = ["train", "pa", "small.svm", "-o", tmp_path / "m", "--mixing", "uniform"]
    code, _, err = run(capsys, *argv, "--partitions", "3")
    assert code == 0 and err.startswith(
        "olearn: warning: --mixing and --partitions apply to training on a Dask cluster (--dask)"
    )
    assert "warning" not in run(capsys, "train", "pa", "small.svm", "-o", tmp_path / "m")[2]


def test_an_output_folder_that_cannot_be_written_is_refused_first(capsys, tmp_path, monkeypatch):
    # before: the model was trained, then the save failed naming its temporary file (root
    # may write anywhere: the permission is simulated)
    folder = tmp_path / "ro"
    folder.mkdir()
    access = os.access
    monkeypatch.setattr(os, "access", lambda p, mode: access(p, mode) and Path(p) != folder)
    code, out, err = run(capsys, "train", "pa", GOLDEN / "small.svm", "-o", folder / "m.olm")
    assert (
        code == 2
        and out == ""
        and err == (f"olearn: error: {folder / 'm.olm'}: folder {folder} is not writable\n")
    )


def test_dash_as_output_is_standard_output(capsys, tmp_path, monkeypatch):
    # before: `-o -` wrote a file named "-" (predict) or a model named "-" (train)
    monkeypatch.chdir(tmp_path)
    model = tmp_path / "m.olm"
    assert run(capsys, "train", "pa", GOLDEN / "small.svm", "-o", model)[0] == 0
    code, out, _ = run(capsys, "predict", model, GOLDEN / "small.svm", "-o", "-")
    assert code == 0 and out == run(capsys, "predict", model, GOLDEN / "small.svm")[1]
    code, _, err = run(capsys, "train", "pa", GOLDEN / "small.svm", "-o", "-")
    assert code == 2 and "-o -: a model is written to a file" in err
    assert sorted(os.listdir(tmp_path)) == ["m.olm"]


def test_debug_shows_the_traceback(tmp_path):
    with pytest.raises(ValueError, match="unknown algorithm"):
        main(["--debug", "train", "nosuch", str(GOLDEN / "small.svm"), "-o", str(tmp_path / "m")])


def test_generated_hyperparameter_options(capsys, tmp_path):
    model = tmp_path / "m.olm"
    argv = ["train", "scw", GOLDEN / "small.svm", "--variant", "II", "--eta", "0.8"]
    assert run(capsys, *argv, "--covariance", "full", "--C", "0.5", "-o", model)[0] == 0
    params = olearn.load(model).get_params()
    assert (params["variant"], params["eta"], params["covariance"], params["C"]) == (
        "II",
        0.8,
        "full",
        0.5,
    )
    code, _, err = run(
        capsys, "train", "scw", GOLDEN / "small.svm", "--covariance", "huge", "-o", model
    )
    assert code == 2 and "'covariance' parameter of SCWClassifier" in err and "'huge'" in err
    with pytest.raises(SystemExit) as shown:
        main(["train", "arow", "--help"])
    assert shown.value.code == 0
    out = capsys.readouterr().out
    assert "--r FLOAT" in out and "Regularisation" in out and "--covariance" in out


def test_list_shows_algorithms_papers_parameters(capsys):
    code, out, _ = run(capsys, "list")
    assert code == 0
    for name, paper in [("arow", "Crammer, Kulesza, Dredze"), ("scw", "Wang, Zhao, Hoi")]:
        assert f"{name}: " in out and paper in out
    assert "--eta FLOAT" in out
    code, out, _ = run(capsys, "list", "pa")
    assert code == 0 and out.startswith("pa: Passive-Aggressive")


def test_help_does_not_import_heavy_modules():
    code = (
        "import sys\n"
        "from olearn.cli import build_parser\n"
        "build_parser(['--help'])\n"
        "heavy = [m for m in ('sklearn', 'numba', 'scipy', 'matplotlib') if m in sys.modules]\n"
        "print(heavy)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, env=env, timeout=120)
    assert done.stdout.decode().strip() == "[]", done.stderr


def test_a_warm_train_loads_only_what_it_runs(tmp_path):
    """Once compiled, a small ``olearn train`` imports neither scikit-learn, SciPy's sparse
    or linalg modules nor Numba's compiling machinery (numba.np.arraymath: the context
    refresh that olearn._compile skips when loading) nor numpy.ma (which ``np.unique``
    imports: ``olearn._sets.distinct``), and parses its small input once (no scan loop)."""
    code = (
        "import sys\n"
        "from olearn.cli import main\n"
        f"main(['train', 'arow', {str(GOLDEN / 'small.svm')!r}, '-o', sys.argv[1], '--quiet'])\n"
        "from olearn.io import _svmlight_parse as P\n"
        "heavy = ('sklearn', 'scipy.sparse', 'scipy.linalg', 'numba.np.arraymath', 'numpy.ma')\n"
        "loaded = [m for m in heavy if m in sys.modules]\n"
        "print(loaded + ['scan'] * bool(P.scan_svmlight.overloads))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    for _ in range(2):  # the first may compile (a cold cache)
        command = [sys.executable, "-c", code, str(tmp_path / "m.olm")]
        done = subprocess.run(command, capture_output=True, env=env, timeout=600)
    assert done.stdout.decode().strip() == "[]", done.stderr


def test_chunks_and_passes_do_not_change_the_model(capsys, tmp_path):
    one, small, twice = tmp_path / "one.olm", tmp_path / "small.olm", tmp_path / "twice.olm"
    data = GOLDEN / "small.svm"
    assert run(capsys, "train", "pa1", data, "-o", one)[0] == 0
    assert run(capsys, "train", "pa1", data, "--chunk-bytes", "64", "-o", small)[0] == 0
    assert np.array_equal(olearn.load(one).weights_, olearn.load(small).weights_)
    assert run(capsys, "train", "pa1", data, "--passes", "2", "--holdout-off", "-o", twice)[0] == 0
    X, y = load_svmlight_file(str(data), n_features=12)
    expected = olearn.PassiveAggressiveClassifier(max_iter=2).fit(X, y)
    assert np.array_equal(olearn.load(twice).weights_, expected.weights_)


def test_multiclass_and_regression_predictions_are_golden(capsys, golden_dir, tmp_path):
    multiclass, regression = tmp_path / "mc.olm", tmp_path / "rg.olm"
    assert run(capsys, "train", "arow", "multiclass.svm", "-o", multiclass)[0] == 0
    code, out, err = run(capsys, "predict", multiclass, "multiclass.svm")
    assert out == (golden_dir / "predict_arow_multiclass_svm.txt").read_text()
    assert "error rate 0.200000 on 30 labelled" in err
    assert (
        run(capsys, "train", "pa1", "regression.svm", "--epsilon", "0.1", "-o", regression)[0] == 0
    )
    code, out, err = run(capsys, "predict", regression, "regression.svm")
    assert out == (golden_dir / "predict_pa_regression_svm.txt").read_text()
    assert "mean squared error" in err
    X, y = load_svmlight_file("regression.svm", n_features=3)
    expected = olearn.PassiveAggressiveRegressor(epsilon=0.1).fit(X, y)
    assert np.array_equal(olearn.load(regression).weights_, expected.weights_)


def test_scores_and_proba_report_the_error_of_the_predictions(capsys, golden_dir, tmp_path):
    # before: --scores and --proba printed no error rate for labelled data, and --scores of
    # a regressor was a traceback (it has no decision_function)
    arow, regression = tmp_path / "arow.olm", tmp_path / "rg.olm"
    assert run(capsys, "train", "arow", "small.svm", "--r", "0.5", "-o", arow)[0] == 0
    assert run(capsys, "train", "pa1", "regression.svm", "-o", regression)[0] == 0
    for model, data in [(arow, "small.svm"), (regression, "regression.svm")]:
        code, labels, summary = run(capsys, "predict", model, data)
        assert code == 0 and " on " in summary
        options = [["--scores"], ["--proba"]] if model == arow else [["--scores"]]
        for option in options:
            code, out, err = run(capsys, "predict", model, data, *option)
            assert code == 0 and err == summary and out != labels
    _, labels, _ = run(capsys, "predict", regression, "regression.svm")
    _, scores, _ = run(capsys, "predict", regression, "regression.svm", "--scores")
    assert np.allclose(np.array(scores.split(), float), np.array(labels.split(), float))


def test_predict_with_a_model_of_another_kind(capsys, golden_dir, tmp_path):
    # before: a UniclassPA or a tagger was a traceback, a multilabel model "operands could
    # not be broadcast", and labels the model never saw were scored without a word
    X, y = load_svmlight_file("small.svm", n_features=12)
    uniclass, multilabel = tmp_path / "u.olm", tmp_path / "ml.olm"
    olearn.save(olearn.UniclassPA().fit(X.toarray()), uniclass)
    Y = np.stack([y > 0, X[:, 1].toarray().ravel() > 0], axis=1).astype(int)
    olearn.save(olearn.PerceptronClassifier().fit(X, Y), multilabel)
    code, _, err = run(capsys, "predict", uniclass, "small.svm")
    assert code == 2 and err.startswith(f"olearn: error: {uniclass} holds a UniclassPA: ")
    code, out, err = run(capsys, "predict", multilabel, "small.svm")
    assert code == 0 and out.splitlines()[0] in ("0 0", "0 1", "1 0", "1 1")
    assert len(out.splitlines()) == 40 and "labelled" not in err
    multiclass = tmp_path / "mc.olm"
    assert run(capsys, "train", "arow", "multiclass.svm", "-o", multiclass)[0] == 0
    code, _, err = run(capsys, "predict", multiclass, "small.svm")  # ±1 labels
    assert code == 0 and "of the labelled examples have labels the model never saw" in err
    assert "(-1; its classes: 1 2 3)" in err
    assert "never saw" not in run(capsys, "predict", multiclass, "multiclass.svm")[2]
    code, _, err = run(capsys, "train", "pa", multiclass, "-o", tmp_path / "m.olm")
    assert code == 2 and err == f"olearn: error: {multiclass}: an olearn model file, not data\n"


_SMALL_INPUTS = {
    "one-based": ["1 1:0.5 3:1\n-1 2:0.25 4:2\n1 1:1 4:-1\n-1 3:0.5\n"],
    "zero-based, the 0 late": ["1 1:0.5 3:1\n-1 2:0.25\n1 0:1 4:-1\n-1 3:0.5\n"],
    "a 0 only in the second file": ["1 1:0.5 3:1\n-1 2:0.25\n", "1 0:1 4:-1\n-1 3:0.5\n"],
    "skipped bad lines": ["0.5 0:3 2:x\n1 1:0.5 3:1\n7 0:1 99:1 3:1\n-1 2:0.25 4:2\n1 4:1\n"],
    "multiclass": ["1 1:0.5 3:1\n2 2:0.25 4:2\n3 1:1 4:-1\n2 3:0.5\n"],
    "regression": ["0.5 1:0.5 3:1\n-1.25 2:0.25 4:2\n2 1:1 4:-1\n"],
    "no features": ["1\n-1\n1\n"],
}


@pytest.mark.parametrize("options", [[], ["--one-based"], ["--zero-based"], ["--passes", "2"]])
@pytest.mark.parametrize("case", sorted(_SMALL_INPUTS))
def test_small_input_parsed_once_is_scanned_then_parsed(capsys, tmp_path, monkeypatch, case,
                                                        options):  # fmt: skip
    """A small input is parsed once (train._parse_small) instead of scanned, then parsed:
    the same model file byte for byte, the same output and errors."""
    from olearn.cli import train
    from olearn.io import svmlight

    paths = []
    for k, text in enumerate(_SMALL_INPUTS[case]):
        paths.append(tmp_path / f"{k}.svm")
        paths[-1].write_text(text)
    argv = ["train", "arow", *paths, *options, "--skip-bad-lines"]
    scan, scans = svmlight.scan_svmlight, []
    results = []
    for once in (True, False):
        model = tmp_path / f"{once}.olm"
        with monkeypatch.context() as patch:
            patch.setattr(
                svmlight, "scan_svmlight", lambda *a, **k: scans.append(1) or scan(*a, **k)
            )
            if not once:
                patch.setattr(train, "PARSE_ONCE_BYTES", 0)
            code, out, err = run(capsys, *argv, "-o", model)
        if once:  # the scan runs for one-based input (declared, or with skipped lines)
            one_based = case == "skipped bad lines" and "--zero-based" not in options
            assert bool(scans) == ("--one-based" in options or one_based)
        written = model.read_bytes() if model.exists() else None
        results.append((code, _normalised(out, model), err.replace(str(model), "M"), written))
    assert results[0] == results[1]


# -- issue 12: silent wrong results, clear errors; issue 13: VW conventions -----------------


def _env(**extra):
    return {**os.environ, "PYTHONPATH": str(SRC), **extra}


def test_skipped_bad_lines_have_no_effect_on_the_model(capsys, tmp_path):
    # before: a skipped "0.5 0:3 2:x" made the model a zero-based regressor
    clean, mixed = tmp_path / "clean.svm", tmp_path / "mixed.svm"
    lines = (GOLDEN / "small.svm").read_text().splitlines(keepends=True)
    clean.write_text("".join(lines))
    mixed.write_text(
        "0.5 0:3 2:x\n" + "".join(lines[:20]) + "7 0:1 99:1 3:1\n" + "".join(lines[20:])
    )
    a, b = tmp_path / "a.olm", tmp_path / "b.olm"
    assert run(capsys, "train", "arow", clean, "-o", a)[0] == 0
    code, out, err = run(capsys, "train", "arow", mixed, "--skip-bad-lines", "-o", b)
    assert code == 0, err
    assert "training AROWClassifier (binary) on 12 features" in out
    assert "bad lines       2 skipped" in out
    A, B = olearn.load(a), olearn.load(b)
    assert np.array_equal(A.weights_, B.weights_) and np.array_equal(A.classes_, B.classes_)


@pytest.mark.parametrize(
    "line, problem",
    [("'tag |w apple", "no label"), ("1 |w:1e200 apple:1e200", "a feature value overflows")],
)
def test_vw_lines_that_made_nan_models_stop_training(capsys, tmp_path, line, problem):
    # before: label NaN or value inf, exit 0, a model of NaN weights
    data = tmp_path / "d.vw"
    data.write_text((GOLDEN / "small.vw").read_text() + line + "\n")
    model = tmp_path / "m.olm"
    code, _, err = run(capsys, "train", "pa", data, "-o", model)
    n = (GOLDEN / "small.vw").read_text().count("\n") + 1
    assert code == 2 and err.startswith(f"olearn: error: {data}:{n}: {problem}")
    assert not model.exists()


def test_holdout_with_several_passes(capsys, tmp_path):
    # as Vowpal Wabbit: with --passes > 1 every 10th example of a pass is held out (never
    # learned from) and its loss reported after the first pass, marked h
    data, model = GOLDEN / "small.svm", tmp_path / "m.olm"
    code, out, err = run(capsys, "train", "pa1", data, "--passes", "3", "-o", model)
    assert code == 0, err
    X, y = load_svmlight_file(str(data), n_features=12)
    held = (np.arange(len(y)) + 1) % 10 == 0
    expected = olearn.PassiveAggressiveClassifier()
    for _ in range(3):
        expected.partial_fit(X[~held], y[~held], classes=[-1.0, 1.0])
    got = olearn.load(model)
    assert np.array_equal(got.weights_, expected.weights_)
    # the last pass is one block here: its held-out rows are scored by the final model
    rate = np.mean(expected.predict(X[held]) != y[held])
    assert f"held-out        {rate:.6f} (mistake rate, pass 3, every 10th example" in out
    progress = [line for line in out.splitlines() if line.strip()[:1].isdigit()]
    assert progress[-1].endswith(" h") and not progress[0].endswith(" h")
    assert read_model_header(model)["metadata"]["holdout_period"] == 10


def test_importance_weights_are_honoured(capsys, tmp_path):
    # before: refused (exit 2), since no model took them; now every model does
    # (tests/test_weights.py compares the model with the library's)
    data, model = tmp_path / "w.vw", tmp_path / "m.olm"
    data.write_text("1 |a x\n-1 1 |a y\n1 2.5 |a z\n")
    code, _, err = run(capsys, "train", "pa", data, "-o", model)
    assert code == 0 and model.exists()


def test_output_over_an_input_and_swapped_arguments(capsys, tmp_path):
    data = tmp_path / "d.svm"
    data.write_bytes((GOLDEN / "small.svm").read_bytes())
    model = tmp_path / "m.olm"
    code, _, err = run(capsys, "train", "pa", data, "-o", data)
    assert code == 2 and "would overwrite the input" in err
    assert data.read_bytes() == (GOLDEN / "small.svm").read_bytes()
    assert run(capsys, "train", "pa", data, "-o", model)[0] == 0
    for output in (data, model):
        code, _, err = run(capsys, "predict", model, data, "-o", output)
        assert code == 2 and "would overwrite the input" in err
    code, _, err = run(capsys, "predict", data, model)
    assert code == 2 and err.count("\n") == 1
    assert f"{data} is not an olearn model file: MODEL comes first" in err
    code, _, err = run(capsys, "predict", tmp_path, data)  # before: "no such model file"
    assert code == 2 and err == f"olearn: error: {tmp_path}: is a directory, not a model file\n"


def test_memory_limit_is_checked_before_allocating(capsys, tmp_path, monkeypatch):
    model = tmp_path / "m.olm"
    code, _, err = run(capsys, "train", "pa", GOLDEN / "small.vw", "--bits", "20",
                       "--max-memory", "4M", "-o", model)  # fmt: skip
    assert code == 2 and err.count("\n") == 1
    assert "a PassiveAggressiveClassifier of --bits 20 needs 8.0 MiB, more than the memory " in err
    monkeypatch.setenv("OLEARN_MAX_MEMORY", "4M")
    assert run(capsys, "train", "pa", GOLDEN / "small.vw", "--bits", "20", "-o", model)[0] == 2
    monkeypatch.setenv("OLEARN_MAX_MEMORY", "1G")
    assert run(capsys, "train", "pa", GOLDEN / "small.vw", "--bits", "20", "-o", model)[0] == 0
    err = run(capsys, "train", "arow", GOLDEN / "small.vw", "--bits", "20", "--max-memory", "4M",
              "-o", model)[2]  # fmt: skip
    assert "error: an AROWClassifier of --bits 20 needs" in err  # (it said "a AROWClassifier")
    # a huge index: the error names the line that makes the model so wide
    data = tmp_path / "huge.svm"
    data.write_text("1 1:1\n-1 2:1\n1 2147483647:1\n")
    code, _, err = run(capsys, "train", "arow", data, "-o", model)
    assert code == 2 and err.startswith(f"olearn: error: {data}:3: this feature index makes the")
    assert "need 32.0 GiB" in err and err.rstrip().endswith("'2147483647:1'")
    data.write_text("1 1:1\n-1 99999999999:1\n")
    code, _, err = run(capsys, "train", "arow", data, "-o", model)
    assert code == 2 and f"{data}:2: feature index too large" in err
    # a tagger's weights (--n-bits 30: hundreds of GiB)
    tsv = tmp_path / "t.tsv"
    tsv.write_text("The\tDET\ndog\tNOUN\n")
    code, _, err = run(capsys, "tag", "train", tsv, "--n-bits", "30", "-o", model)
    assert code == 2 and "a tagger with 2^30 rows and 2 tags needs 50.0 GiB" in err
    # k-best MIRA's buffers (before: a MemoryError traceback)
    code, _, err = run(capsys, "tag", "train", tsv, "--k-best", "100000000", "-o", model)
    assert code == 2 and "a tagger with 2^18 rows and 2 tags and --k-best 100000000 needs" in err
    assert run(capsys, "tag", "train", tsv, "--k-best", "5", "-o", model)[0] == 0
    # the blocks read (before: a MemoryError traceback; --chunk-bytes took no unit)
    for command in (["train", "pa", GOLDEN / "small.vw", "-o", model],
                    ["predict", model, GOLDEN / "small.svm"]):  # fmt: skip
        code, _, err = run(capsys, *command, "--chunk-bytes", "1T", "--max-memory", "1G")
        assert code == 2 and err == (
            "olearn: error: --chunk-bytes 1099511627776 needs 1.0 TiB, more than the memory "
            "limit 1.0 GiB (--max-memory or $OLEARN_MAX_MEMORY)\n"
        )


@pytest.mark.parametrize("width_given", [True, False])
def test_input_without_newline_is_bounded(capsys, tmp_path, width_given):
    # before: /dev/zero grew one line buffer until MemoryError (a traceback)
    if not os.path.exists("/dev/zero"):
        pytest.skip("no /dev/zero")
    width = ["--n-features", "10"] if width_given else []
    code, _, err = run(capsys, "train", "pa", "/dev/zero", *width, "--max-memory", "64M",
                       "-o", tmp_path / "m.olm")  # fmt: skip
    if not width_given:  # a device is read once, as standard input: it cannot be scanned
        assert code == 2 and "/dev/zero can be read only once" in err
        return
    assert code == 2 and err.startswith("olearn: error: /dev/zero:1: line longer than the limit")


def test_a_crossing_too_wide_for_the_memory_limit(capsys, tmp_path):
    data = tmp_path / "wide.vw"
    data.write_text("1 |a x\n-1 |a " + " ".join(f"f{j}" for j in range(300)) + "\n")
    code, _, err = run(capsys, "train", "pa", data, "-q", "aa", "--max-memory", "16M",
                       "-o", tmp_path / "m.olm")  # fmt: skip
    assert code == 2 and f"{data}:2: too many features in one example (more than 65536" in err


def test_parse_size():
    from olearn.cli._data import parse_size

    assert [parse_size(t) for t in ("123", "4k", "64M", "1.5G", "2GiB", "1T")] == [
        123, 4096, 64 << 20, 3 << 29, 2 << 30, 1 << 40
    ]  # fmt: skip
    for bad in ("", "x", "-1G", "0", "1Q", "nanG"):
        with pytest.raises(Exception, match="size"):
            parse_size(bad)


def _progress_lines(process, count, timeout=240):
    """Read ``count`` progress lines from a running command's stdout, without waiting for
    it to end (None on a timeout or the end of its output)."""
    import selectors

    fd = process.stdout.fileno()
    text = b""
    with selectors.DefaultSelector() as selector:
        selector.register(fd, selectors.EVENT_READ)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            lines = [line for line in text.split(b"\n")[:-1] if line.strip()[:1].isdigit()]
            if len(lines) >= count:
                return lines
            if selector.select(timeout=1):
                data = os.read(fd, 1 << 16)
                if not data:
                    return None
                text += data
    return None


def test_stdin_is_learned_as_it_arrives(tmp_path):
    # before: standard input was copied whole to a temporary file before learning began
    argv = [sys.executable, "-m", "olearn", "train", "pa", "-", "--bits", "10", "-o"]
    process = subprocess.Popen(
        argv + [str(tmp_path / "m.olm")],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env(),
    )  # fmt: skip
    try:
        process.stdin.write(b"1 |a x y\n-1 |a z\n")
        process.stdin.flush()
        assert _progress_lines(process, 2) is not None  # learned while stdin is still open
        process.stdin.write(b"1 |a x")  # a last line without newline is complete
        process.stdin.close()
        assert process.wait(timeout=120) == 0, process.stderr.read()
    finally:
        process.kill()
        process.wait()
    assert olearn.load(tmp_path / "m.olm").n_rounds_ == 3


def test_sigterm_leaves_no_copy_of_stdin(tmp_path):
    # before: SIGTERM left the olearn-stdin-* copy in the temporary folder
    spool = tmp_path / "tmp"
    spool.mkdir()
    argv = [sys.executable, "-m", "olearn", "train", "pa", "-", "--bits", "10", "--passes", "2"]
    process = subprocess.Popen(
        argv + ["-o", str(tmp_path / "m.olm")],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env=_env(TMPDIR=str(spool)),
    )  # fmt: skip
    try:
        process.stdin.write(b"1 |a x y\n-1 |a z\n" * 100)
        process.stdin.flush()
        assert _progress_lines(process, 3) is not None  # the first pass is running
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=120) == 128 + signal.SIGTERM
    finally:
        process.kill()
        process.wait()
    assert list(spool.iterdir()) == [] and not (tmp_path / "m.olm").exists()


@pytest.mark.parametrize("signum, message", [(signal.SIGINT, "interrupted"),
                                             (signal.SIGTERM, "terminated")])  # fmt: skip
def test_a_stopped_train_keeps_the_previous_model_and_says_so(tmp_path, signum, message):
    # before: SIGTERM ended with code 143 and not a word (Ctrl-C said "interrupted")
    model = tmp_path / "m.olm"
    model.write_bytes(b"the previous model")
    argv = [sys.executable, "-m", "olearn", "train", "pa", "-", "--bits", "10", "-o", str(model)]
    process = subprocess.Popen(
        argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env()
    )
    try:
        process.stdin.write(b"1 |a x y\n-1 |a z\n" * 100)
        process.stdin.flush()
        assert _progress_lines(process, 3) is not None  # training, stdin still open
        process.send_signal(signum)
        assert process.wait(timeout=120) == 128 + signum
        assert process.stderr.read().decode().splitlines()[-1] == f"olearn: {message}"
    finally:
        process.kill()
        process.wait()
    assert model.read_bytes() == b"the previous model" and os.listdir(tmp_path) == ["m.olm"]


def test_several_passes_over_stdin(tmp_path):
    data = (GOLDEN / "small.vw").read_bytes()
    argv = [sys.executable, "-m", "olearn", "train", "pa", "-", "--bits", "10", "-q", "wc"]
    for name, extra in (("a.olm", ["--passes", "2"]), ("b.olm", [])):
        done = subprocess.run(
            argv + extra + ["-o", str(tmp_path / name)], input=data if extra else data * 2,
            capture_output=True, env=_env(), timeout=300,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
    a, b = olearn.load(tmp_path / "a.olm"), olearn.load(tmp_path / "b.olm")
    assert a.n_rounds_ < b.n_rounds_  # the held-out examples are not learned
    path = tmp_path / "d.vw"
    path.write_bytes(data)
    assert run_ok(["train", "pa", path, "--bits", "10", "-q", "wc", "--passes", "2",
                   "-o", tmp_path / "c.olm"])  # fmt: skip
    assert np.array_equal(a.weights_, olearn.load(tmp_path / "c.olm").weights_)


@pytest.fixture
def pipe_path():
    """``pipe_path(data)``: a path such as ``<(cat data)`` gives (``/dev/fd/N``, a pipe),
    fed by a thread; closed after the test."""
    if not os.path.isdir("/dev/fd"):
        pytest.skip("no /dev/fd")
    import threading

    opened = []

    def make(data: bytes) -> str:
        read, write = os.pipe()
        opened.append(read)

        def feed():
            with open(write, "wb") as stream:
                stream.write(data)

        threading.Thread(target=feed, daemon=True).start()
        return f"/dev/fd/{read}"

    yield make
    for fd in opened:
        os.close(fd)


def test_pipes_and_named_pipes_are_read_once(capsys, tmp_path, pipe_path):
    # before: `olearn train pa <(zcat d.vw.gz)` sniffed the format from the pipe, then read
    # it again from its end: "no examples" (a named pipe: waited forever for a writer)
    data = (GOLDEN / "small.vw").read_bytes()
    plain = tmp_path / "d.vw"
    plain.write_bytes(data)
    options = ["--bits", "10", "--passes", "2"]
    assert run_ok(["train", "pa", plain, *options, "-o", tmp_path / "file.olm"])
    piped = pipe_path(gzip.compress(data))
    assert run_ok(["train", "pa", piped, *options, "-o", tmp_path / "pipe.olm"])
    a, b = olearn.load(tmp_path / "file.olm"), olearn.load(tmp_path / "pipe.olm")
    assert np.array_equal(a.weights_, b.weights_)
    code, out, _ = run(capsys, "evaluate", "pa", pipe_path(data), "-k", "1", "--bits", "10",
                       "--holdout", pipe_path(data))  # fmt: skip
    assert code == 0 and ": 30 examples, 1024 features" in out and "held-out accuracy" in out
    # svmlight has no declared width and cannot be scanned first: as for standard input
    code, _, err = run(capsys, "train", "pa", pipe_path(b"1 1:1\n"), "-o", tmp_path / "m.olm")
    assert code == 2 and "can be read only once" in err and "--n-features" in err


def run_ok(argv) -> bool:
    return main([str(a) for a in argv]) == 0


def test_a_truncated_gzip_names_the_file(capsys, tmp_path):
    data = tmp_path / "cut.svm.gz"
    whole = gzip.compress((GOLDEN / "small.svm").read_bytes() * 200)
    data.write_bytes(whole[: len(whole) // 2])
    for width in ([], ["--n-features", "12"]):  # the scan, then the training pass
        code, _, err = run(capsys, "train", "pa", data, *width, "-o", tmp_path / "m.olm")
        assert code == 2 and err.startswith(f"olearn: error: {data}: cannot read: Compressed")


# -- the model's input: data read as the model was trained, or an error ---------------------


def test_the_index_base_comes_from_the_model(capsys, tmp_path):
    # before: predict --zero-based on a one-based model shifted every feature (exit 0), and
    # --resume --zero-based learned with shifted columns and stored the new base
    model, data = tmp_path / "m.olm", GOLDEN / "small.svm"
    assert run(capsys, "train", "arow", data, "-o", model)[0] == 0
    zero = tmp_path / "zero.svm"
    zero.write_text("1 0:1 2:1\n")
    for command in (["predict", model], ["train", "arow", "--resume", model, "-o", model]):
        code, _, err = run(capsys, *command, data, "--zero-based")
        assert code == 2, err
        assert err == (f"olearn: error: {model} was trained on one-based input, not "
                       "--zero-based: the data is read with the model's index base\n")  # fmt: skip
        assert run(capsys, *command, data, "--one-based")[0] == 0  # the model's own: fine
        # an index 0 says the model was trained one-based, not "use --zero-based"
        code, _, err = run(capsys, *command, zero)
        assert code == 2 and err == (f"olearn: error: {zero}:1: feature index 0 in a one-based "
                                     f"file ({model} was trained one-based): '0:1'\n")  # fmt: skip
    assert read_model_header(model)["metadata"]["input"]["zero_based"] is False
    # a model saved by olearn.save records no base: --one-based is the user's, and the hint
    # is the reader's (it said the model was trained one-based)
    library = tmp_path / "lib.olm"
    olearn.save(olearn.load(model), library)
    code, _, err = run(capsys, "predict", library, zero, "--one-based")
    assert code == 2 and err == (f"olearn: error: {zero}:1: feature index 0 in a one-based "
                                 "file (use --zero-based): '0:1'\n")  # fmt: skip


def test_the_index_base_decided_by_the_first_block_is_the_models(capsys, tmp_path):
    """Without a scan (``--n-features``, standard input) the first block decides the index
    base: the model stores it, so predict and the later files read as training did. (Before:
    the model stored none, and a test file without an index 0 read one-based, every feature
    one column off: error rate 0.87 where the training base gave 0.)"""
    rng = np.random.default_rng(0)
    y = rng.choice([-1, 1], 200)
    train, test, model = tmp_path / "train.svm", tmp_path / "test.svm", tmp_path / "m.olm"
    train.write_text("".join(f"{t:d} 0:{t:d} 1:{-t:d} 2:{v:.3f}\n" for t, v in
                             zip(y, rng.normal(size=200), strict=True)))  # fmt: skip
    test.write_text("".join(f"{t:d} 1:{-t:d} 2:{v:.3f}\n" for t, v in  # no index 0
                            zip(y[:100], rng.normal(size=100), strict=True)))  # fmt: skip
    assert run(capsys, "train", "arow", train, "--n-features", "3", "-o", model)[0] == 0
    assert read_model_header(model)["metadata"]["input"]["zero_based"] is True
    code, out, err = run(capsys, "predict", model, test, "--scores")
    assert code == 0 and "error rate 0.000000 on 100 labelled" in err
    X, _ = load_svmlight_file(str(test), n_features=3, zero_based=True)
    expected = olearn.load(model).decision_function(X)
    np.testing.assert_allclose(np.loadtxt(out.splitlines()), expected, rtol=1e-9)
    # a later file follows the first one's base: an index 0 after a one-based file is an
    # error, not a second base
    code, _, err = run(capsys, "train", "arow", test, train, "--n-features", "3", "-o", model)
    assert code == 2 and f"{train}:1: feature index 0 in a one-based file" in err


def test_a_closed_standard_output_does_not_lose_the_model(tmp_path):
    # before: `olearn train ... -o m.olm | head -1` exited 0 without writing the model: the
    # progress line after the reader had gone raised BrokenPipeError, taken for success
    model, data = tmp_path / "m.olm", GOLDEN / "small.svm"
    argv = [sys.executable, "-m", "olearn", "train", "arow", str(data), "-o", str(model)]
    quiet = _env(OLEARN_COMPILE_NOTICE="0")
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=quiet)
    process.stdout.close()  # the reader is gone before the first line
    _, err = process.communicate(timeout=300)
    assert process.returncode == 0, err
    assert err == b""
    assert run_ok(["train", "arow", data, "-o", tmp_path / "expected.olm"])
    assert model.read_bytes() == (tmp_path / "expected.olm").read_bytes()
    # predictions to a closed pipe stop at once, as a Unix tool does under `head`
    argv = [sys.executable, "-m", "olearn", "predict", str(model), str(data)]
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=quiet)
    process.stdout.close()
    _, err = process.communicate(timeout=300)
    assert process.returncode == 0 and err == b"", err


def test_resume_refuses_other_data_options(capsys, tmp_path):
    # before: --bits, -q, --ngrams (VW) and --n-features (svmlight) were silently ignored:
    # the resumed model kept its own
    vw, svm = tmp_path / "v.olm", tmp_path / "s.olm"
    assert run(capsys, "train", "pa", GOLDEN / "small.vw", "--bits", "10", "-o", vw)[0] == 0
    assert run(capsys, "train", "pa", GOLDEN / "small.svm", "-o", svm)[0] == 0
    for model, data, options, flags in [
        (vw, "small.vw", ["--bits", "12", "-q", "wc", "--ngrams", "2"],
         "--bits, --ngrams, --quadratic"),
        (svm, "small.svm", ["--n-features", "50"], "--n-features"),
        (svm, "small.svm", ["--bits", "4"], "--bits"),
    ]:  # fmt: skip
        code, _, err = run(capsys, "train", "pa", GOLDEN / data, "--resume", model, *options,
                           "-o", tmp_path / "r.olm")  # fmt: skip
        assert code == 2 and "the data options come from the resumed model" in err
        assert err.endswith(f"do not give {flags} with --resume\n")
    assert not (tmp_path / "r.olm").exists()
    # the model's own values are fine
    for model, data, options in [(vw, "small.vw", ["--bits", "10"]),
                                 (svm, "small.svm", ["--n-features", "12"])]:  # fmt: skip
        assert run(capsys, "train", "pa", GOLDEN / data, "--resume", model, *options,
                   "-o", tmp_path / "r.olm")[0] == 0  # fmt: skip


def test_a_bar_in_a_comment_does_not_make_svmlight_vw(capsys, tmp_path):
    # before: "# source a|b" on the first line switched the format to VW (an error, exit 2)
    from olearn.cli._data import format_of

    data, model = tmp_path / "c.svm", tmp_path / "m.olm"
    data.write_text("1 1:1 2:0.5 # source a|b\n-1 2:1\n")
    code, _, err = run(capsys, "train", "pa1", data, "-o", model, "--quiet")
    assert code == 0, err
    assert read_model_header(model)["metadata"]["input"]["format"] == "svmlight"
    assert format_of(b"# a|b\n1 1:1 # x|y\n") == "svmlight"
    assert format_of(b"1 |f a#b # c\n") == format_of(b"1 'tag|f a\n") == "vw"


def _set_input(header, value):
    if value is _NO_INPUT:
        del header["metadata"]["input"]["bits"]
    else:
        header["metadata"]["input"] = value


_NO_INPUT = object()


@pytest.mark.parametrize(
    "value, field, shown",
    [
        (_NO_INPUT, "metadata.input.bits", "missing"),  # a vw model without its hashing
        ([1], "metadata.input", "[1]"),
        ({"format": "csv"}, "metadata.input.format", "'csv'"),
        ({"format": "svmlight", "zero_based": "no"}, "metadata.input.zero_based", "'no'"),
        ({"format": "svmlight", "n_features": -3}, "metadata.input.n_features", "-3"),
        ({"format": "vw", "bits": 18, "quadratic": "ab"}, "metadata.input.quadratic", "'ab'"),
    ],
)
def test_a_malformed_input_description_names_its_field(capsys, tmp_path, value, field, shown):
    # before: a KeyError or TypeError traceback from predict and --resume (exit 1), or a
    # format 'csv' read as svmlight
    import model_file_craft as craft

    model, data = tmp_path / "m.olm", GOLDEN / "small.vw"
    assert run(capsys, "train", "pa", data, "--bits", "10", "-o", model)[0] == 0
    bad = tmp_path / "bad.olm"
    bad.write_bytes(craft.craft(model.read_bytes(), edit=lambda h: _set_input(h, value)))
    expected = f"olearn: error: {bad} is corrupted (header field '{field}' is {shown})\n"
    for command in (["predict", bad, data], ["train", "pa", data, "--resume", bad, "-o", model]):
        code, _, err = run(capsys, *command)
        assert (code, err) == (2, expected)


def test_a_task_judged_binary_grows_into_multiclass(capsys, tmp_path, monkeypatch):
    """Without ``--task``, an input that is not scanned (standard input, ``--n-features``)
    is judged on its first chunk; a pipe gives chunks as lines arrive, so the first may hold
    two labels of three. The classifier then grows the third class, as the docs say, and the
    model is multiclass; so does a binary model resumed on data with a third label, as
    training on both at once would. (Before: 'labels are 1, 2, 3 (3 of them): use --task
    multiclass', naming a --task binary nobody gave, and refusing --resume with it too.)"""
    import io

    data = tmp_path / "three.svm"
    data.write_text("1 1:1\n2 2:1\n" * 10 + "3 1:1 2:1\n" * 10)
    model, resumed = tmp_path / "m.olm", tmp_path / "r.olm"
    stream = io.TextIOWrapper(io.BytesIO(data.read_bytes()))
    monkeypatch.setattr(sys, "stdin", stream)
    code, _, err = run(capsys, "train", "arow", "-", "--n-features", "2", "--chunk-bytes", "32",
                       "-o", model)  # fmt: skip
    assert code == 0, err
    assert read_model_header(model)["metadata"]["task"] == "multiclass"
    assert olearn.load(model).classes_.tolist() == [1, 2, 3]
    two = tmp_path / "two.svm"
    two.write_text("1 1:1\n2 2:1\n")
    assert run(capsys, "train", "arow", two, "-o", model)[0] == 0
    assert read_model_header(model)["metadata"]["task"] == "binary"
    code, _, err = run(capsys, "train", "arow", data, "--resume", model, "-o", resumed)
    assert code == 0, err
    assert read_model_header(resumed)["metadata"]["task"] == "multiclass"
    assert olearn.load(resumed).classes_.tolist() == [1, 2, 3]


@pytest.mark.parametrize(
    "options", [[], ["--passes", "2"], ["--shuffle"], ["--resume"]], ids=lambda o: " ".join(o)
)
def test_real_labels_for_a_classifier_name_the_input(capsys, tmp_path, options):
    """Real-valued labels for a classifier: the same one line naming the input whichever
    engine learns (before: the estimator's paths — --passes, --shuffle, --resume, kernel
    algorithms — printed scikit-learn's 'Unknown label type: continuous. Maybe you are
    trying to fit a classifier, ...'; --resume has no --task regression to offer)."""
    data, model = tmp_path / "reg.svm", tmp_path / "m.olm"
    data.write_text("1 1:1\n2.5 2:1\n-1 1:1 2:1\n")
    argv = ["train", "pa", data, "-o", model, "--task", "binary"]
    remedy = "use --task regression for real-valued targets"
    if options == ["--resume"]:
        binary = tmp_path / "binary.svm"
        binary.write_text("1 1:1\n-1 2:1\n")
        assert run(capsys, "train", "pa", binary, "-o", tmp_path / "b.olm")[0] == 0
        argv, remedy = argv[:-2] + ["--resume", tmp_path / "b.olm"], f"{tmp_path / 'b.olm'} is a"
    else:
        argv += options
    code, _, err = run(capsys, *argv)
    assert code == 2 and not model.exists()
    assert err.startswith(f"olearn: error: {data}: label 2.5 is not a class label (an integer); ")
    assert remedy in err and err.count("\n") == 1


def test_an_input_description_without_width_or_base_is_fine(capsys, tmp_path):
    model, data = tmp_path / "m.olm", GOLDEN / "small.svm"
    assert run(capsys, "train", "pa", data, "-o", model)[0] == 0
    olearn.save(olearn.load(model), model, metadata={"input": {"format": "svmlight"}})
    assert run(capsys, "predict", model, data)[0] == 0
    assert run(capsys, "train", "pa", data, "--resume", model, "-o", model)[0] == 0


def test_a_model_saved_by_the_library_predicts_vw_input(capsys, tmp_path):
    """A model saved by olearn.save (no input description) reads svmlight by default;
    --format vw reads VW-style input hashed into its width, 2^bits (before: 'was trained on
    svmlight input, not vw', which the file does not say). A width that is no power of two
    cannot be a hashed one."""
    from olearn.io import load_vw

    data, model = tmp_path / "d.vw", tmp_path / "lib.olm"
    data.write_text("1 |f a b:2\n-1 2 |f c |g a\n1 'x |f a\n-1 |g d\n")
    X, y = load_vw(data, bits=10)
    olearn.save(olearn.AROWClassifier().fit(X, y), model)
    code, out, err = run(capsys, "predict", model, data, "--format", "vw", "--scores")
    assert code == 0, err
    expected = olearn.load(model).decision_function(X)
    np.testing.assert_allclose(np.loadtxt(out.splitlines()), expected, rtol=1e-9)
    resumed = tmp_path / "resumed.olm"
    code, _, err = run(capsys, "train", "arow", data, "--resume", model, "--format", "vw",
                       "-o", resumed)  # fmt: skip
    assert code == 0, err
    assert read_model_header(resumed)["metadata"]["input"] == {
        "format": "vw", "bits": 10, "ngrams": 0, "quadratic": []
    }  # fmt: skip
    narrow = tmp_path / "narrow.olm"
    olearn.save(olearn.AROWClassifier().fit(X[:, :3], y), narrow)
    code, _, err = run(capsys, "predict", narrow, data, "--format", "vw")
    assert code == 2 and f"{narrow} has 3 features, not 2^bits" in err


def test_a_class_beyond_the_memory_limit_is_refused_before_it_is_learned(capsys, tmp_path):
    """A classifier grows a weight row per new class: a label met after the first chunk
    that would take the model beyond --max-memory is an error naming it, checked before
    the model grows (before: only the first chunk's classes were checked, and a model
    judged binary, or multiclass, grew past the limit)."""
    data, model = tmp_path / "d.vw", tmp_path / "m.olm"
    data.write_text("1 |f a\n2 |f b\n" * 8 + "3 |f c\n")  # the third label in a later chunk
    argv = ["train", "arow", data, "--bits", "20", "--chunk-bytes", "32", "-o", model, "--quiet"]
    code, _, err = run(capsys, *argv, "--max-memory", "40M")  # one row 16 MiB; three 48 MiB
    assert code == 2 and not model.exists()
    assert err == (f"olearn: error: {data}: label 3, one class more for the AROWClassifier (3 "
                   "classes of 1048576 features), needs 48.0 MiB, more than the memory limit "
                   "40.0 MiB (--max-memory or $OLEARN_MAX_MEMORY)\n")  # fmt: skip
    assert run(capsys, *argv, "--max-memory", "64M")[0] == 0
    assert olearn.load(model).classes_.tolist() == [1, 2, 3]


def test_task_binary_on_three_labels_is_an_error(capsys, tmp_path, monkeypatch):
    """``--task binary`` with a third label: an error naming the labels and the input, not a
    three-class model labelled binary; from a file (its scan sees the labels) and from
    standard input (the third label met while learning). No model is written."""
    import io

    data = tmp_path / "three.svm"
    data.write_text("1 1:1\n2 2:1\n3 1:1 2:1\n")
    model = tmp_path / "m.olm"
    code, _, err = run(capsys, "train", "arow", data, "--task", "binary", "-o", model)
    assert code == 2 and not model.exists()
    assert "--task binary, but the labels are 1, 2, 3 (3 of them)" in err and str(data) in err
    stream = io.TextIOWrapper(io.BytesIO(data.read_bytes()))
    monkeypatch.setattr(sys, "stdin", stream)
    code, _, err = run(capsys, "train", "arow", "-", "--task", "binary", "--n-features", "2",
                       "-o", model)  # fmt: skip
    assert code == 2 and not model.exists()
    assert "--task binary, but the labels are 1, 2, 3" in err
    data.write_text("1 1:1\n1.5 2:1\n")
    code, _, err = run(capsys, "train", "arow", data, "--task", "multiclass", "-o", model)
    assert code == 2 and "label 1.5 is not a class label" in err


@pytest.mark.parametrize("stdin", [False, True], ids=["file", "stdin"])
def test_a_kernel_models_gamma_scale_is_decided_on_the_first_chunk(tmp_path, capsys, stdin,
                                                                    monkeypatch):  # fmt: skip
    """``olearn train`` learns 1, 2, 4, … rows first (its progress lines): gamma "scale" came
    from the variance of one row (a row of one value: 1.0 where the data's gives 0.126),
    and the model differed from the library's ``partial_fit`` of the same rows."""
    import io

    import scipy.sparse as sp
    from sklearn.datasets import dump_svmlight_file

    X = sp.random(300, 200, density=0.05, random_state=0, format="lil")
    X[0, :] = 0
    X[0, 3] = 1.0
    X = sp.csr_matrix(X)
    y = np.where(X @ np.random.default_rng(0).standard_normal(200) > 0, 1, -1)
    path = tmp_path / "k.svm"
    dump_svmlight_file(X, y, str(path), zero_based=True)
    model = tmp_path / "k.olm"
    if stdin:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(path.read_bytes())))
        argv = ["-", "--n-features", 200, "--zero-based"]
    else:
        argv = [path]
    assert run(capsys, "train", "kernel-pa", *argv, "-o", model, "--quiet")[0] == 0
    trained = olearn.load(model)
    library = olearn.KernelPAClassifier().partial_fit(X, y, classes=[-1, 1])
    assert trained.gamma_ == library.gamma_ != 1.0
    np.testing.assert_allclose(
        trained.decision_function(X), library.decision_function(X), rtol=1e-12, atol=1e-12
    )


def test_info_prints_a_model_whose_class_or_name_is_not_text(tmp_path):
    """A string class "\\ud800" (an unpaired surrogate: olearn.save keeps it, and the service
    used to learn it from JSON) or a file name that is not UTF-8 stopped ``olearn info`` half
    way through its lines with "surrogates not allowed"; they are shown escaped."""
    import scipy.sparse as sp

    from olearn import AROWClassifier

    X = sp.random(10, 3, density=0.5, format="csr", random_state=0)
    name = os.fsdecode(b"model-\xff.olm")  # not UTF-8: a surrogate escape in Python
    path = tmp_path / name
    olearn.save(AROWClassifier().fit(X, np.array(["ham", "\ud800"] * 5)), path)
    env = {**os.environ, "PYTHONPATH": str(SRC), "PYTHONIOENCODING": "utf-8"}
    done = subprocess.run(
        [sys.executable, "-m", "olearn", "info", os.fsencode(path)],
        capture_output=True,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout.decode()
    assert "classes         \\ud800 ham" in out or "classes         ham \\ud800" in out
    assert "model-\\udcff.olm" in out and out.rstrip().splitlines()[-1].startswith("format")


def test_every_command_takes_debug_after_its_name(capsys):
    # before: `olearn warmup --debug` (and evaluate, experiment, tag) said "unrecognized
    # arguments: --debug", where `olearn train ... --debug` works
    from olearn.cli import SUBCOMMANDS, build_parser

    for name in SUBCOMMANDS:
        parser = build_parser([name])
        with pytest.raises(SystemExit) as shown:
            parser.parse_args([name, "--debug", "--help"])
        assert shown.value.code == 0
        assert "--debug" in capsys.readouterr().out, name
    assert main(["evaluate", "--list", "--debug"]) == 0
    capsys.readouterr()
    with pytest.raises(SystemExit) as shown:  # an action of tag too
        build_parser(["tag"]).parse_args(["tag", "train", "--debug", "--help"])
    assert shown.value.code == 0 and "--debug" in capsys.readouterr().out
