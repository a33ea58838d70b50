"""The `olearn` command: golden outputs, agreement with the library, errors and exit codes."""

import gzip
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from sklearn.datasets import load_svmlight_file

import olearn
from olearn.cli import main

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
    done = subprocess.run(
        [sys.executable, "-m", "olearn", "train", "arow", "-", "--r", "0.5", "-o", str(model)],
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


def test_index_beyond_the_model_width(capsys, tmp_path):
    model = tmp_path / "m.olm"
    assert run(capsys, "train", "arow", GOLDEN / "small.svm", "-o", model)[0] == 0
    wide = tmp_path / "wide.svm"
    wide.write_text("1 13:1\n")
    code, _, err = run(capsys, "predict", model, wide)
    assert code == 2
    assert "beyond the model's width (12 features): '13:1'" in err


def test_skip_bad_lines_reports_the_count(capsys, tmp_path):
    data = tmp_path / "bad.svm"
    data.write_text("1 1:1\nx 2:1\n-1 2:1\n1 3:1 2:1\n")
    model = tmp_path / "m.olm"
    code, out, err = run(capsys, "train", "arow", data, "-o", model, "--skip-bad-lines")
    assert code == 0, err
    assert "bad lines       2 skipped" in out
    assert f"first bad line  {data}:2: label is not a number: 'x'" in out
    assert olearn.load(model).n_rounds_ == 2


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
    assert "unrecognized arguments: --C 1" in capsys.readouterr().err
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


def test_chunks_and_passes_do_not_change_the_model(capsys, tmp_path):
    one, small, twice = tmp_path / "one.olm", tmp_path / "small.olm", tmp_path / "twice.olm"
    data = GOLDEN / "small.svm"
    assert run(capsys, "train", "pa1", data, "-o", one)[0] == 0
    assert run(capsys, "train", "pa1", data, "--chunk-bytes", "64", "-o", small)[0] == 0
    assert np.array_equal(olearn.load(one).weights_, olearn.load(small).weights_)
    assert run(capsys, "train", "pa1", data, "--passes", "2", "-o", twice)[0] == 0
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
