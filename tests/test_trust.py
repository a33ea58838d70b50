"""Issue 12, the cases the end-to-end audit still found open: the sequence tagger's command
line writing over its input, prediction files created 0600, and rows not learned that went
unreported (the sparse rows of full-covariance exact CW, ``learn_one``'s general round, and a
command line that showed a repeated count only once). The "before" of each case is in its
comment."""

import os
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

import olearn
from olearn.cli import main

SENTENCES = "The\tDET\ndog\tNOUN\nruns\tVERB\n\nA\tDET\ncat\tNOUN\n"


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def tagged(tmp_path, capsys):
    data, model = tmp_path / "s.tsv", tmp_path / "t.olm"
    data.write_text(SENTENCES)
    assert run(capsys, "tag", "train", data, "--passes", "2", "--bits", "8", "--quiet",
               "-o", model)[0] == 0  # fmt: skip
    return data, model


def test_tag_output_over_an_input_is_refused(tmp_path, capsys, tagged):
    # before: `tag train D -o D` replaced the data with a model, `tag predict M D -o M` the
    # model with predictions (exit 0 both)
    data, model = tagged
    saved = data.read_bytes(), model.read_bytes()
    for argv in (
        ("tag", "train", data, "-o", data),
        ("tag", "predict", model, data, "-o", data),
        ("tag", "predict", model, data, "-o", model),
    ):
        code, _, err = run(capsys, *argv)
        assert code == 2 and err.count("\n") == 1 and "would overwrite the input" in err
    assert (data.read_bytes(), model.read_bytes()) == saved
    # the output's folder is checked before the passes (before: after them, naming the
    # temporary file)
    code, _, err = run(capsys, "tag", "train", data, "-o", tmp_path / "nowhere" / "m.olm")
    assert code == 2 and err == f"olearn: error: {tmp_path / 'nowhere' / 'm.olm'}: folder " \
        f"{tmp_path / 'nowhere'} does not exist\n"  # fmt: skip


@pytest.mark.parametrize("action", ["predict", "evaluate"])
def test_tag_with_swapped_arguments_says_so(capsys, tagged, action):
    data, model = tagged
    code, _, err = run(capsys, "tag", action, data, model)
    assert code == 2 and err == (
        f"olearn: error: {data} is not an olearn model file: MODEL comes first "
        f"(olearn tag {action} MODEL DATA)\n"
    )


def test_prediction_files_get_the_umask_and_keep_an_existing_mode(tmp_path, capsys, tagged):
    # before: `olearn predict -o` created its file 0600 (tempfile.mkstemp) whatever the umask
    data, tagger = tagged
    svm, model = tmp_path / "d.svm", tmp_path / "m.olm"
    svm.write_text("1 1:1\n-1 2:1\n" * 3)
    assert run(capsys, "train", "pa", svm, "--quiet", "-o", model)[0] == 0
    commands = {
        "predict": ("predict", model, svm, "--quiet", "-o"),
        "tag": ("tag", "predict", tagger, data, "-o"),
    }
    previous = os.umask(0o022)
    try:
        for name, argv in commands.items():
            output = tmp_path / f"{name}.out"
            assert run(capsys, *argv, output)[0] == 0
            assert output.stat().st_mode & 0o777 == 0o644, name
            os.umask(0o027)
            assert run(capsys, *argv, tmp_path / f"{name}.private")[0] == 0
            assert (tmp_path / f"{name}.private").stat().st_mode & 0o777 == 0o640, name
            output.chmod(0o604)
            assert run(capsys, *argv, output)[0] == 0  # replaced, with its mode
            assert output.stat().st_mode & 0o777 == 0o604, name
            os.umask(0o022)
    finally:
        os.umask(previous)
    assert (tmp_path / "predict.out").read_text() == "1\n-1\n" * 3
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith(".")]


def _not_learned(caught) -> int:
    return sum(w.message.count for w in caught if "not learned" in str(w.message))


HUGE = np.array([[1e200, 1e150], [1e300, 1.0], [0.5, -1.0], [0.0, 1e250], [-1.0, 0.2]])
LABELS = np.array([1, -1, 1, -1, -1])


@pytest.mark.parametrize(
    "make",
    [
        lambda: olearn.CWClassifier(covariance="full"),
        lambda: olearn.SCWClassifier(covariance="full"),
        lambda: olearn.AROWClassifier(covariance="full"),
        lambda: olearn.CWClassifier(),
        lambda: olearn.PassiveAggressiveClassifier(),
    ],
    ids=["cw-exact-full", "scw-full", "arow-full", "cw-diagonal", "pa"],
)
@pytest.mark.parametrize("form", ["dense", "csr", "learn_one", "multiclass"])
def test_every_path_reports_the_rows_it_could_not_learn(make, form):
    # before: exact CW and SCW with a full covariance turned the infinite xᵀΣx of a CSR row
    # into a zero step (inf/inf) and skipped the row silently, and learn_one's general round
    # (full covariance, multiclass, regression) never reported a row it could not learn
    y = LABELS if form != "multiclass" else np.array([0, 1, 2, 1, 0])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = make()
        if form == "dense":
            model.fit(HUGE, y)
        elif form in ("csr", "multiclass"):
            model.fit(sp.csr_matrix(HUGE), y)
        else:
            model.partial_fit(HUGE[2:3], y[2:3], classes=[-1, 1])
            for i in range(len(y)):
                model.learn_one(dict(enumerate(HUGE[i])), y[i])
    assert _not_learned(caught) == 3
    assert np.isfinite(model.weights_).all() and model.n_mistakes_ >= 3


def test_a_regressors_learn_one_reports_a_row_it_could_not_learn():
    model = olearn.PassiveAggressiveRegressor().fit(HUGE[2:3], [1.0])
    with pytest.warns(RuntimeWarning, match="1 row.* not learned"):
        model.learn_one({0: 1e300, 1: 1e300}, 1.0)
    assert np.isfinite(model.weights_).all()


def test_the_command_line_adds_the_counts_of_every_chunk_up(tmp_path, capsys):
    # before: "1 row(s) were not learned" once, however many chunks had one such row
    # (Python shows a repeated warning text once)
    data = tmp_path / "huge.svm"
    lines = [f"{1 if i % 2 else -1} 1:{(i % 5) - 2} 2:0.5" for i in range(60)]
    for i in (5, 25, 45):
        lines[i] = "1 1:1e200 2:1e200"
    data.write_text("\n".join(lines) + "\n")
    code, _, err = run(capsys, "train", "arow", data, "--chunk-bytes", "64", "--quiet",
                       "-o", tmp_path / "m.olm")  # fmt: skip
    assert code == 0
    assert err.splitlines() == [
        "olearn: warning: 1 row(s) were not learned: their confidence (‖x‖² or xᵀΣx) or "
        "their step overflows float64 (values too large: scale the features; or, for SGD, "
        "a diverging step size: lower eta0)",
        "olearn: warning: in all, 3 row(s) were not learned",
    ]


def test_corrupt_deflate_data_names_the_file(tmp_path, capsys):
    # before: a flipped bit in a .gz's deflate stream (zlib.error, not an OSError) was a
    # traceback from the scan and from the training pass alike
    import gzip
    import zlib

    packed = bytearray(gzip.compress(b"1 1:1 2:1\n-1 2:1\n" * 2000, mtime=0))
    packed[12] ^= 1  # the first byte of the deflate stream
    with pytest.raises(zlib.error):
        gzip.decompress(bytes(packed))
    data = tmp_path / "flipped.svm.gz"
    data.write_bytes(bytes(packed))
    for width in ([], ["--n-features", "3"]):  # the scan, then the training pass
        code, _, err = run(capsys, "train", "pa", data, *width, "-o", tmp_path / "m.olm")
        assert code == 2 and err == (
            f"olearn: error: {data}: cannot read: Error -3 while decompressing data: "
            "invalid code lengths set\n"
        )


def test_sentence_files_without_newlines_are_bounded(tmp_path, capsys, monkeypatch, tagged):
    # before: `olearn tag train /dev/zero` grew one line until MemoryError (a traceback)
    from olearn.structured.readers import read_conllu, read_tsv

    path = tmp_path / "long.tsv"
    path.write_bytes(b"x" * 300 + b"\tNOUN\nend\tX")
    for read in (read_tsv, read_conllu):
        with pytest.raises(ValueError, match=r"long.tsv:1: line longer than the limit \(100 b"):
            list(read(path, max_line_bytes=100))
    assert len(list(read_tsv(path, max_line_bytes=305))) == 1  # 300 + tab + NOUN (+ newline)
    with pytest.raises(ValueError, match=r"long.tsv:1: line longer than the limit \(304 b"):
        list(read_tsv(path, max_line_bytes=304))
    if not os.path.exists("/dev/zero"):
        return
    monkeypatch.setenv("OLEARN_MAX_MEMORY", "64M")  # lines of at most 2 MiB
    model = tagged[1]
    for argv in (
        ("train", "/dev/zero", "-o", tmp_path / "m.olm"),
        ("evaluate", model, "/dev/zero"),
    ):
        code, _, err = run(capsys, "tag", *argv)
        assert code == 2 and err.startswith(
            "olearn: error: /dev/zero:1: line longer than the limit (2097152 bytes): '\\x00"
        ), err


def test_the_memory_limit_bounds_the_model_a_command_loads(tmp_path, capsys):
    # before: `predict` and `train --resume` loaded a model under the machine's memory only,
    # whatever --max-memory said (a 3 kB file of 2^22 features: 32 MiB of weights)
    data, model = tmp_path / "s.vw", tmp_path / "big.olm"
    data.write_text("1 |a x\n-1 |a y\n")
    assert run(capsys, "train", "pa", data, "--bits", "22", "--quiet", "-o", model)[0] == 0
    for argv in (
        ("predict", model, data),
        ("train", "pa", data, "--resume", model, "-o", tmp_path / "again.olm"),
    ):
        code, _, err = run(capsys, *argv, "--max-memory", "8M")
        assert code == 2 and err.count("\n") == 1
        assert "its arrays need 32.0 MiB, more than the memory limit of 8.0 MiB" in err
        assert run(capsys, *argv, "--max-memory", "64M")[0] == 0
