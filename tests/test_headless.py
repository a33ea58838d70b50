"""`olearn train` without scikit-learn: the headless models write the estimators' model files
byte for byte, and the command's options come from a catalogue that matches the classes."""

import importlib
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import olearn
from olearn.cli import algorithms, main
from olearn.estimators import _headless

GOLDEN = Path(__file__).parent / "golden"
SRC = Path(__file__).resolve().parents[1] / "src"


def _train(tmp_path, name, argv, *, headless: bool, monkeypatch) -> bytes:
    if not headless:
        monkeypatch.setattr(_headless, "ENABLED", False)  # every class takes the estimator path
    path = tmp_path / f"{name}-{headless}.olm"
    assert main(["train", *map(str, argv), "-o", str(path), "--quiet"]) == 0
    monkeypatch.undo()
    return path.read_bytes()


CASES = {
    "perceptron": ["perceptron", GOLDEN / "small.svm"],
    "averaged-perceptron": ["perceptron", GOLDEN / "small.svm", "--average"],
    "pa-ii": ["pa", GOLDEN / "small.svm", "--variant", "PA-II", "--C", "0.3"],
    "pa-vw": ["pa1", GOLDEN / "small.vw", "--bits", "10", "-q", "wc"],
    "sop-full": ["sop", GOLDEN / "small.svm", "--covariance", "full", "--a", "2"],
    "cw-variance": ["cw", GOLDEN / "small.svm", "--method", "variance", "--eta", "0.8"],
    "arow-multiclass": ["arow", GOLDEN / "multiclass.svm"],
    "arow-ovr-full": [
        "arow",
        GOLDEN / "multiclass.svm",
        "--multiclass",
        "ovr",
        "--covariance",
        "full",
    ],  # fmt: skip
    "scw-ii": ["scw", GOLDEN / "small.svm", "--variant", "II", "--C", "0.5", "--passes", "2"],
    "pa-regression": ["pa1", GOLDEN / "regression.svm", "--epsilon", "0.1"],
    "arow-regression": ["arow", GOLDEN / "regression.svm", "--covariance", "full"],
    "sgd-huber": ["sgd", GOLDEN / "regression.svm", "--loss", "huber", "--schedule", "inverse"],
    # labels met one chunk at a time: the binary model grows into a multiclass one
    "grown-classes": [
        "pa1",
        GOLDEN / "multiclass.svm",
        "--n-features",
        "20",
        "--task",
        "multiclass",
        "--chunk-bytes",
        "64",
    ],  # fmt: skip
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_headless_writes_the_estimators_model_file(tmp_path, monkeypatch, name):
    fast = _train(tmp_path, name, CASES[name], headless=True, monkeypatch=monkeypatch)
    slow = _train(tmp_path, name, CASES[name], headless=False, monkeypatch=monkeypatch)
    assert fast == slow
    model = olearn.load(tmp_path / f"{name}-True.olm")
    assert type(model).__module__.startswith("olearn.estimators")
    assert hasattr(model, "predict")  # the estimator itself, not a headless stand-in


def _class(path):
    module, _, name = path.rpartition(".")
    return getattr(importlib.import_module(module), name)


def test_every_headless_model_is_made_of_its_estimators_own_parts():
    headless = {path: e["headless"] for path, e in algorithms.catalogue().items() if e["headless"]}
    # every linear estimator of the command line trains headless; kernel models do not
    assert {path.rpartition(".")[2] for path in headless} == {
        "PerceptronClassifier",
        "PassiveAggressiveClassifier",
        "SecondOrderPerceptronClassifier",
        "CWClassifier",
        "AROWClassifier",
        "SCWClassifier",
        "PassiveAggressiveRegressor",
        "AROWRegressor",
        "SGDRegressor",
    }
    for path, parts in headless.items():
        cls = _class(path)
        for part in parts.values():
            assert issubclass(cls, _class(part)), (path, part)


def test_the_catalogue_is_what_the_classes_declare():
    stored = algorithms.catalogue()
    current = json.loads(json.dumps(algorithms.build_catalogue()))
    assert stored == current, "regenerate it: python -m olearn.cli.algorithms"


def test_train_imports_neither_scikit_learn_nor_scipy_sparse(tmp_path):
    code = (
        "import sys; from olearn.cli import main; "
        f"code = main(['train', 'arow', {str(GOLDEN / 'small.svm')!r}, '--r', '0.5', "
        f"'-o', {str(tmp_path / 'm.olm')!r}, '--quiet']); "
        "assert code == 0; "
        "print(sorted(m for m in sys.modules if m.startswith(('sklearn', 'scipy.sparse'))))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        env={"PYTHONPATH": str(SRC), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert out.strip() == "[]"


@pytest.mark.parametrize(
    "argv",
    [
        ["pa", "--C", "-1"],
        ["cw", "--eta", "0.5"],
        ["scw", "--eta", "1.0"],  # φ = Φ⁻¹(1) is infinite: η must be below 1
        ["arow", "--a", "0"],
        ["sgd", "--schedule", "inverse", "--alpha", "0", "--task", "regression"],
    ],
)
def test_parameters_are_checked_as_the_estimator_checks_them(capsys, monkeypatch, tmp_path, argv):
    data = GOLDEN / ("regression.svm" if "sgd" in argv else "small.svm")
    model = tmp_path / "m.olm"
    errors = []
    for headless in (True, False):
        if not headless:
            monkeypatch.setattr(_headless, "ENABLED", False)
        code = main(["train", argv[0], str(data), *argv[1:], "-o", str(model), "--quiet"])
        errors.append(capsys.readouterr().err)
        assert code == 2 and not model.exists()
    assert errors[0] == errors[1]
    assert "parameter" in errors[0] or "schedule='inverse'" in errors[0]


def test_headless_rejects_real_valued_labels_for_classification(capsys, tmp_path):
    model = tmp_path / "m.olm"
    code = main(["train", "pa", str(GOLDEN / "regression.svm"), "--task", "binary",
                 "-o", str(model)])  # fmt: skip
    assert code == 2 and "is not a class label" in capsys.readouterr().err
    assert not model.exists()


def test_headless_model_predicts_like_the_estimator_it_names():
    from sklearn.datasets import load_svmlight_file

    X, y = load_svmlight_file(str(GOLDEN / "small.svm"))
    X.sort_indices()
    params = algorithms.catalogue()["olearn.estimators.arow.AROWClassifier"]["init"]
    model = _headless.headless_model("olearn.estimators.arow.AROWClassifier", params)
    model.learn_rows(X.data, X.indptr, X.indices, X.shape[1], y, 0, X.shape[0])
    estimator = olearn.AROWClassifier().partial_fit(X, y)
    np.testing.assert_array_equal(model.weights_, estimator.weights_)
    np.testing.assert_array_equal(model.variances_, estimator.variances_)
    assert model.get_params() == estimator.get_params()
