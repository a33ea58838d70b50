"""``olearn evaluate``: table, CSV/JSON, held-out file, exit codes."""

import json
import sys

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


def test_select_keeps_the_set_parameters_fixed(tmp_path, capsys):
    # before: --select silently replaced the value given with --set by the grid's choice
    argv = ["evaluate", "scw1", "digits-3v5", "-k", "1", "--checkpoints", "1", "--select"]
    assert main([*argv, "--set", "eta=0.9", "--json", str(tmp_path / "e.json")]) == 0
    assert "selected C=" in capsys.readouterr().out
    payload = json.loads((tmp_path / "e.json").read_text())
    assert list(payload["selection"]["scw1"]["best_params"]) == ["C"]
    assert main([*argv, "--set", "eta=0.9", "--set", "C=2"]) == 2
    assert "nothing left to tune for scw1: --set fixes C, eta" in capsys.readouterr().err


def test_select_evaluates_an_algorithm_fixed_by_set_as_given(tmp_path, capsys):
    # before: `arow,pa1 --select --set r=2` stopped with "nothing left to tune for arow",
    # though pa1 still had C to tune; now arow runs with r=2, unsearched, beside tuned pa1
    argv = ["evaluate", "digits-3v5", "-k", "1", "--checkpoints", "2", "--set", "r=2"]
    both, alone = tmp_path / "both.json", tmp_path / "alone.json"
    assert main([argv[0], "arow,pa1", *argv[1:], "--select", "--json", str(both)]) == 0
    out = capsys.readouterr().out
    assert "## arow (not tuned: --set fixes r=2)" in out and "## pa1 (selected C=" in out
    assert main([argv[0], "arow", *argv[1:], "--json", str(alone)]) == 0
    selected, unselected = json.loads(both.read_text()), json.loads(alone.read_text())
    assert list(selected["selection"]) == ["pa1"]
    arow = selected["algorithms"]["arow"]["mistake_rate_mean"]
    assert arow == unselected["algorithms"]["arow"]["mistake_rate_mean"]
    # nothing tuned anywhere (plain PA has no grid) is still the error
    assert main([argv[0], "arow,pa", *argv[1:], "--select"]) == 2
    assert "nothing left to tune for arow: --set fixes r" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv",
    [
        ["evaluate", "nope", "digits-3v5"],
        ["evaluate", "arow", "no-such-file-or-data"],
        ["evaluate", "arow", "digits-3v5", "--permutations", "0"],
        ["evaluate", "arow", "digits-3v5", "--set", "C"],
        ["evaluate", "arow"],
        ["evaluate", "arow", "digits-3v5", "--set", "r=-1"],  # invalid hyper-parameter
        ["evaluate", "arow", "digits-3v5", "--noise", "1.5"],
    ],
)
def test_evaluate_usage_errors_exit_2(argv, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("olearn: error:") and len(err.strip().splitlines()) == 1


def test_outputs_are_checked_before_any_work(files, tmp_path, capsys):
    # before: --csv over the training file replaced the data with the table, and a --json in
    # a missing folder failed only after the whole evaluation
    data = tmp_path / "d.svm"
    data.write_bytes((files / "train.svm").read_bytes())
    argv = ["evaluate", "pa", str(data), "-k", "1"]
    for extra, message in [
        (["--csv", str(data)], f"{data}: the output would overwrite the input {data}"),
        (["--json", str(tmp_path / "no" / "e.json")], "e.json: folder"),
        (["--csv", str(tmp_path / "e"), "--json", str(tmp_path / "e")], "name the same file"),
    ]:
        assert main([*argv, *extra]) == 2
        out, err = capsys.readouterr()
        assert out == "" and message in err and err.count("\n") == 1
    assert data.read_bytes() == (files / "train.svm").read_bytes()


def test_evaluate_multiclass_data(capsys):
    """Multiclass data (10 digits) runs through the multi-prototype update."""
    assert main(["evaluate", "arow", "digits", "-k", "1"]) == 0
    assert "arow" in capsys.readouterr().out


def test_evaluate_list(capsys):
    assert main(["evaluate", "--list"]) == 0
    assert "scw2-full" in capsys.readouterr().out


def _as_vw(svm_path, vw_path):
    """The svmlight file's examples as VW-style text (feature names are hashed there)."""
    lines = []
    for line in svm_path.read_text().splitlines():
        label, *features = line.split()
        lines.append(f"{label} | {' '.join(features)}")
    vw_path.write_text("\n".join(lines) + "\n")


def test_evaluate_reads_vw_files_as_train_does(files, capsys):
    """A VW-style file (sniffed, or named by --format) is read with train's options: hashed
    into 2^--bits features; its held-out file the same way."""
    _as_vw(files / "train.svm", files / "train.vw")
    _as_vw(files / "test.svm", files / "test.vw")
    argv = ["evaluate", "arow", str(files / "train.vw"), "-k", "2", "--holdout",
            str(files / "test.vw"), "--json", str(files / "vw.json")]  # fmt: skip
    assert main([*argv, "--bits", "12"]) == 0
    out = capsys.readouterr().out
    assert "200 examples, 4096 features" in out
    payload = json.loads((files / "vw.json").read_text())
    accuracy = payload["algorithms"]["arow"]["test_accuracy_mean"]
    assert min(accuracy) > 0.5 and accuracy[-1] > 0.65  # (features dropped: about 0.5)
    assert main([*argv, "--format", "vw"]) == 0
    assert "200 examples, 262144 features" in capsys.readouterr().out
    assert main([*argv, "--n-features", "10"]) == 2
    assert "--n-features is for svmlight input" in capsys.readouterr().err


def test_evaluate_ignores_and_counts_features_unseen_in_training(files, capsys):
    """A held-out file with features beyond the training width is scored without them, as
    olearn predict does, and says how many values it ignored."""
    text = (files / "test.svm").read_text().splitlines()
    text[0] += " 999:1.5"
    text[5] += " 998:2 999:1"
    (files / "wide.svm").write_text("\n".join(text) + "\n")
    argv = ["evaluate", "arow", str(files / "train.svm"), "-k", "1", "--holdout"]
    assert main([*argv, str(files / "wide.svm"), "--json", str(files / "wide.json")]) == 0
    captured = capsys.readouterr()
    assert "ignored 3 values of features unseen in training" in captured.err
    assert "in 2 examples" in captured.err
    assert main([*argv, str(files / "test.svm"), "--json", str(files / "narrow.json")]) == 0
    wide, narrow = (json.loads((files / name).read_text())["algorithms"]["arow"]
                    for name in ("wide.json", "narrow.json"))  # fmt: skip
    assert wide["test_accuracy_mean"] == narrow["test_accuracy_mean"]


def test_evaluate_learns_importance_weights_as_train_does(tmp_path, capsys):
    # before: the weights were read and dropped (every row learned with weight 1)
    data = tmp_path / "w.vw"
    data.write_text("1 |f a\n-1 0 |f b\n1 0 |f c\n-1 0 |f d\n")
    argv = ["evaluate", "arow", str(data), "-k", "3", "--checkpoints", "1"]
    assert main([*argv, "--json", str(tmp_path / "e.json")]) == 0
    payload = json.loads((tmp_path / "e.json").read_text())
    assert payload["algorithms"]["arow"]["updates_mean"] == [1.0]  # weight 0 skips a row
    # ... and is not seen: one mistake on the one row learned, not 1 of 4
    assert payload["algorithms"]["arow"]["mistake_rate_mean"] == [1.0]
    capsys.readouterr()
    assert main(["train", "arow", str(data), "-o", str(tmp_path / "m.olm")]) == 0
    assert "updates         1\n" in capsys.readouterr().out
    assert main([*argv, "--select"]) == 2
    assert "--select does not take importance weights yet" in capsys.readouterr().err


def test_noise_takes_the_library_range(capsys):
    """``--noise`` in [0, 1] as ``evaluate(label_noise=...)``: 1 flips every label."""
    assert main(["evaluate", "pa1", "digits-3v5", "-k", "1", "--noise", "1"]) == 0
    assert "label noise 1" in capsys.readouterr().out


@pytest.mark.parametrize("pipe", [False, True])
def test_evaluate_reads_the_holdout_file_with_the_training_index_base(tmp_path, capsys, pipe):
    """A zero-based training file (it has an index 0) and a held-out file without one: the
    held-out file counts from 0 too, as ``olearn predict`` reads it with the model trained
    on the training file. (Before: its base was auto-detected on its own, one-based, and
    every held-out feature moved one column: accuracy 0.11 where predict scored 1.)"""
    rng = np.random.default_rng(0)
    y = rng.choice([-1, 1], 200)
    train = "".join(f"{t:d} 0:{t:d} 1:{-t:d} 2:{v:.3f}\n" for t, v in
                    zip(y, rng.normal(size=200), strict=True))  # fmt: skip
    test = "".join(f"{t:d} 1:{-t:d} 2:{v:.3f}\n" for t, v in
                   zip(y[:100], rng.normal(size=100), strict=True))  # fmt: skip
    (tmp_path / "train.svm").write_text(train)
    (tmp_path / "test.svm").write_text(test)
    data = str(tmp_path / "train.svm")
    if pipe:  # read once, into memory: the base is decided on that copy
        data = _pipe_of(tmp_path, tmp_path / "train.svm")
    holdout, out = str(tmp_path / "test.svm"), str(tmp_path / "e.json")
    argv = ["evaluate", "arow", data, "-k", "1", "--checkpoints", "1", "--holdout", holdout,
            "--json", out]  # fmt: skip
    assert main(argv) == 0, capsys.readouterr().err
    payload = json.loads((tmp_path / "e.json").read_text())
    assert payload["algorithms"]["arow"]["test_accuracy_mean"] == [1.0]
    capsys.readouterr()
    assert main(["train", "arow", str(tmp_path / "train.svm"), "-o", str(tmp_path / "m.olm")]) == 0
    assert main(["predict", str(tmp_path / "m.olm"), str(tmp_path / "test.svm")]) == 0
    assert "error rate 0.000000" in capsys.readouterr().err


def _pipe_of(tmp_path, path) -> str:
    """A named pipe fed with the bytes of ``path`` by a thread (read once, as
    ``<(cat path)``)."""
    import os
    import threading

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)

    def feed():
        with open(fifo, "wb") as out:
            out.write(path.read_bytes())

    threading.Thread(target=feed, daemon=True).start()
    return str(fifo)


def test_regression_data_is_an_error_naming_the_file(tmp_path, capsys):
    """Real-valued labels for a classifier: one line naming the file, a label and the
    classifier (before: scikit-learn's 'Unknown label type: continuous. Maybe you are
    trying to fit a classifier, ...', which names none of them). A regressor takes them."""
    data = tmp_path / "reg.svm"
    data.write_text("1 1:1\n2.5 2:1\n-0.25 1:1 2:1\n")
    for names in ("scw", "sgd,scw"):
        assert main(["evaluate", names, str(data), "-k", "1"]) == 2
        err = capsys.readouterr().err
        assert err == (f"olearn: error: {data}: label 2.5 is not a class label (an integer), "
                       "and scw is a classifier\n")  # fmt: skip
    # a name with a regressor learns it, as olearn train does (pa was refused as a classifier)
    assert main(["evaluate", "sgd,pa,arow", str(data), "-k", "1"]) == 0
    # a regressor's table: its online squared error (its mistake rate was 1.0, every round)
    out = capsys.readouterr().out
    assert out.count("squared error") == 3 and "mistake rate" not in out


def test_set_names_no_algorithm_takes_are_errors(tmp_path, capsys):
    """Before: `--set c=3` beside `--set r=2`, or `--set C=0.5` for arow,cw, was dropped
    without a word (the table looked tuned); and pa1's regressor's epsilon on real-valued
    labels was refused as 'pa1 has none of the parameters ['epsilon']' (its classifier's)."""
    argv = ["evaluate", "arow", "digits-3v5", "-k", "1", "--checkpoints", "1", "--set", "r=2"]
    assert main([*argv, "--set", "c=3"]) == 2
    assert capsys.readouterr().err == "olearn: error: arow has none of the parameters ['c']\n"
    argv[1] = "arow,cw"
    assert main([*argv, "--set", "C=0.5"]) == 2
    err = capsys.readouterr().err
    assert err == "olearn: error: none of arow, cw has the parameter(s) ['C']\n"
    data = tmp_path / "reg.svm"
    data.write_text("1 1:1\n2.5 2:1\n-0.25 1:1 2:1\n")
    assert main(["evaluate", "pa1", str(data), "-k", "1", "--set", "epsilon=0.5"]) == 0
    assert "squared error" in capsys.readouterr().out
    # a classifier has no epsilon: named once the labels say which estimator runs
    assert main(["evaluate", "pa1", "digits-3v5", "-k", "1", "--set", "epsilon=0.5"]) == 2
    assert "pa1 has none of the parameters ['epsilon']" in capsys.readouterr().err


def test_evaluate_reads_standard_input(files, tmp_path, capsys, monkeypatch):
    """DATA '-' is standard input, as for olearn train and for --holdout (before: "'-' is
    neither a file nor a bundled data set")."""
    import io

    data = files / "train.svm"
    options = ["-k", "2", "--checkpoints", "2", "--json"]
    assert main(["evaluate", "arow", str(data), *options, str(tmp_path / "file.json")]) == 0
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data.read_bytes())))
    assert main(["evaluate", "arow", "-", *options, str(tmp_path / "stdin.json")]) == 0
    assert "# -: 200 examples" in capsys.readouterr().out
    curves = [json.loads((tmp_path / name).read_text())["algorithms"]["arow"]
              for name in ("file.json", "stdin.json")]  # fmt: skip
    assert curves[0]["mistake_rate_mean"] == curves[1]["mistake_rate_mean"]
    assert main(["evaluate", "arow", "-", "--holdout", "-"]) == 2
    assert "standard input ('-') can be given once" in capsys.readouterr().err


def test_options_between_algo_and_data(capsys):
    """As ``olearn train ALGO [options] DATA`` takes them (before: 'unrecognized arguments:
    breast-cancer')."""
    argv = ["evaluate", "arow", "--permutations", "2", "--checkpoints", "2", "breast-cancer"]
    assert main(argv) == 0
    assert "# breast-cancer: 569 examples" in capsys.readouterr().out
    with pytest.raises(SystemExit):  # one DATA only
        main([*argv, "digits-3v5"])
    assert "unrecognized arguments: digits-3v5" in capsys.readouterr().err


def test_a_closed_standard_output_does_not_lose_the_csv_and_json(tmp_path):
    # before: `olearn evaluate ... --csv c.csv | head -1` exited 0 without writing c.csv: the
    # files were written after the table, whose printing the closed pipe ended
    import os
    import subprocess

    csv, js = tmp_path / "c.csv", tmp_path / "c.json"
    argv = [sys.executable, "-m", "olearn", "evaluate", "arow", "breast-cancer", "-k", "1",
            "--csv", str(csv), "--json", str(js)]  # fmt: skip
    env = {**os.environ, "OLEARN_COMPILE_NOTICE": "0"}
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    process.stdout.close()  # the reader is gone before the first line
    _, err = process.communicate(timeout=300)
    assert process.returncode == 0, err
    assert csv.read_text().startswith("algorithm,dataset,examples")
    assert json.loads(js.read_text())["dataset"] == "breast-cancer"
