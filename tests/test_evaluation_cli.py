"""``olearn evaluate``: table, CSV/JSON, held-out file, exit codes."""

import json

import numpy as np
import pytest

from olearn.cli import main


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    from sklearn.datasets import dump_svmlight_file

    from olearn.datasets import make_arow_synthetic

    root = tmp_path_factory.mktemp("svm")
    d = make_arow_synthetic(300, random_state=0)
    dump_svmlight_file(d.X[:200], d.y[:200], str(root / "train.svm"))
    dump_svmlight_file(d.X[200:], d.y[200:], str(root / "test.svm"))
    return root


def test_evaluate_file_with_holdout_writes_csv_and_json(files, capsys):
    code = main(
        [
            "evaluate",
            "arow,pa1",
            str(files / "train.svm"),
            "--permutations",
            "3",
            "--holdout",
            str(files / "test.svm"),
            "--checkpoints",
            "4",
            "--csv",
            str(files / "out.csv"),
            "--json",
            str(files / "out.json"),
        ]
    )
    assert code == 0
    out = capsys.readouterr().out
    assert "## arow" in out and "held-out accuracy" in out and "3 permutations" in out
    payload = json.loads((files / "out.json").read_text())
    assert payload["algorithms"]["pa1"]["checkpoints"] == [50, 100, 150, 200]
    assert np.all(np.array(payload["algorithms"]["arow"]["test_accuracy_mean"]) > 0.5)
    assert (files / "out.csv").read_text().startswith("algorithm,dataset,examples")


def test_evaluate_bundled_data_with_selection(capsys):
    assert main(["evaluate", "pa1", "digits-3v5", "-k", "2", "--select"]) == 0
    assert "selected C=" in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv",
    [
        ["evaluate", "nope", "digits-3v5"],
        ["evaluate", "arow", "no-such-file-or-data"],
        ["evaluate", "arow", "digits-3v5", "--permutations", "0"],
        ["evaluate", "arow", "digits-3v5", "--set", "C"],
        ["evaluate", "arow"],
        ["evaluate", "arow", "digits-3v5", "--set", "r=-1"],  # invalid hyper-parameter
    ],
)
def test_evaluate_usage_errors_exit_2(argv, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("olearn: error:") and len(err.strip().splitlines()) == 1


def test_evaluate_multiclass_data(capsys):
    """Multiclass data (10 digits) runs through the multi-prototype update."""
    assert main(["evaluate", "arow", "digits", "-k", "1"]) == 0
    assert "arow" in capsys.readouterr().out


def test_evaluate_list(capsys):
    assert main(["evaluate", "--list"]) == 0
    assert "scw2-full" in capsys.readouterr().out
