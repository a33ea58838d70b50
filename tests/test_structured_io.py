"""Sequence labelling: readers, metrics, model files and the ``olearn tag`` command."""

import gzip
import os

import numpy as np
import pytest

import olearn
from olearn.cli import main
from olearn.datasets.hmm import make_hmm_sequences
from olearn.structured.metrics import (
    bio_spans,
    is_bio,
    sentence_accuracy,
    span_f1,
    token_accuracy,
)
from olearn.structured.readers import read_conllu, read_tsv, write_tsv
from olearn.structured.tagger import SequenceTagger

CONLLU = """# sent_id = 1
# text = Don't stop.
1-2\tDon't\t_\t_\t_\t_\t_\t_\t_\t_
1\tDo\tdo\tAUX\tVBP\t_\t3\taux\t_\t_
2\tn't\tnot\tPART\tRB\t_\t3\tadvmod\t_\t_
3\tstop\tstop\tVERB\tVB\t_\t0\troot\t_\t_
3.1\tgo\tgo\tVERB\tVB\t_\t_\t_\t_\t_
4\t.\t.\tPUNCT\t.\t_\t3\tpunct\t_\t_

# sent_id = 2
1\tYes\tyes\tINTJ\tUH\t_\t0\troot\t_\t_
"""


def test_read_conllu_skips_ranges_empty_nodes_and_comments(tmp_path):
    path = tmp_path / "a.conllu.gz"
    with gzip.open(path, "wt", encoding="utf-8") as stream:
        stream.write(CONLLU)
    sentences = list(read_conllu(path))
    assert sentences == [
        (["Do", "n't", "stop", "."], ["AUX", "PART", "VERB", "PUNCT"]),
        (["Yes"], ["INTJ"]),
    ]
    assert list(read_conllu(path, "xpos"))[0][1] == ["VBP", "RB", "VB", "."]


@pytest.mark.parametrize("suffix", [".conllu.GZ", ".CONLLU.GZ", ".conllu.xz", ".conllu.bz2"])
def test_compressed_conllu_is_recognised_whatever_its_name(tmp_path, capsys, suffix):
    """Compression is told by the first bytes, as by the svmlight/VW readers: an upper-case
    suffix (or bzip2, xz) read the compressed bytes as text ("not UTF-8")."""
    import bz2
    import lzma

    pack = {".gz": gzip.compress, ".xz": lzma.compress, ".bz2": bz2.compress}
    path = tmp_path / f"a{suffix}"
    path.write_bytes(pack[path.suffix.lower()](CONLLU.encode()))
    assert list(read_conllu(path))[1] == (["Yes"], ["INTJ"])
    plain = tmp_path / "a.txt.gz"  # token TAB tag, gzip-compressed
    plain.write_bytes(gzip.compress(b"Yes\tINTJ\n\nNo\tINTJ\n"))
    assert list(read_tsv(plain)) == [(["Yes"], ["INTJ"]), (["No"], ["INTJ"])]
    model = tmp_path / "m.olm"
    assert main(["tag", "train", str(path), "-o", str(model), "--passes", "1", "--quiet"]) == 0
    assert main(["tag", "evaluate", str(model), str(path)]) == 0  # --format auto: CoNLL-U
    assert "sentences\t2" in capsys.readouterr().out


@pytest.mark.parametrize(
    "bad, line, message",
    [
        ("1\tDo\tdo\tAUX\n", 1, "10 tab-separated fields"),
        ("1\tDo\tdo\tAUX\tVBP\t_\t3\taux\t_\t_\n3\tx\tx\tX\tX\t_\t0\troot\t_\t_\n", 2, "order"),
        ("# c\nx\tDo\tdo\tAUX\tVBP\t_\t3\taux\t_\t_\n", 2, "bad token id"),
        # "²" passed str.isdigit() and failed in int() without file:line; "2-a" was skipped
        *(
            (
                f"1\tThe\t_\tDET\t_\t_\t0\troot\t_\t_\n{bad_id}\tcat\t_\tNOUN\t_\t_\t0\troot\t_\t_\n",
                2,
                f"bad token id '{bad_id}'",
            )
            for bad_id in ("²", "٣", "2-a", "a-3", "2-", "1.x", "1.2.3", "1-2.1", "")
        ),
    ],
)
def test_malformed_conllu_names_the_line(tmp_path, bad, line, message):
    path = tmp_path / "bad.conllu"
    path.write_text(bad, encoding="utf-8")
    with pytest.raises(ValueError, match=rf"bad.conllu:{line}: .*{message}"):
        list(read_conllu(path))


def test_read_and_write_tsv(tmp_path):
    path = tmp_path / "a.tsv"
    path.write_text("The\tDET\ndog\tNOUN\n\n\nHi\tINTJ\n", encoding="utf-8")
    assert list(read_tsv(path)) == [(["The", "dog"], ["DET", "NOUN"]), (["Hi"], ["INTJ"])]
    assert list(read_tsv(path, tagged=False))[0] == (["The", "dog"], None)
    out = tmp_path / "b.tsv"
    with open(out, "w") as stream:
        write_tsv(stream, [["The", "dog"], ["Hi"]], [["DET", "NOUN"], ["INTJ"]])
    assert out.read_text() == path.read_text().replace("\n\n\n", "\n\n") + "\n"
    (tmp_path / "bad.tsv").write_text("The\tDET\ndog\n")
    with pytest.raises(ValueError, match="bad.tsv:2: expected"):
        list(read_tsv(tmp_path / "bad.tsv"))


def test_untagged_tsv_refuses_lines_of_more_fields(tmp_path, capsys, monkeypatch):
    """CoNLL-U piped to ``tag predict -`` (or named .conll) was read as untagged
    token-per-line text: its comment lines and token ids were tagged, with exit code 0."""
    import io
    import sys

    X, y = data()
    write(tmp_path / "train.tsv", X, y)
    model = str(tmp_path / "m.olm")
    assert main(["tag", "train", str(tmp_path / "train.tsv"), "-o", model, "--bits", "8",
                 "--passes", "1", "--quiet"]) == 0  # fmt: skip
    path = tmp_path / "test.conll"
    path.write_text(CONLLU, encoding="utf-8")
    with pytest.raises(ValueError, match=r"test.conll:3: .* found 10 tab-separated fields"):
        list(read_tsv(path, tagged=False))
    capsys.readouterr()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(CONLLU.encode())))
    assert main(["tag", "predict", model, "-"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "--format conllu" in captured.err
    assert main(["tag", "predict", model, str(path), "--format", "conllu"]) == 0
    assert capsys.readouterr().out.startswith("Do\t")


def test_metrics_by_hand():
    gold = [["B-PER", "I-PER", "O", "B-LOC"], ["O", "B-ORG"]]
    pred = [["B-PER", "I-PER", "O", "I-LOC"], ["O", "B-PER"]]
    assert token_accuracy(gold, pred) == 4 / 6
    assert sentence_accuracy(gold, pred) == 0.0
    assert bio_spans(["B-PER", "I-PER", "O", "I-LOC", "I-ORG"]) == {
        (0, 2, "PER"),
        (3, 4, "LOC"),
        (4, 5, "ORG"),
    }
    # gold spans: PER(0,2) LOC(3,4) ORG(1,2); predicted: PER(0,2) LOC(3,4) PER(1,2)
    precision, recall, f1 = span_f1(gold, pred)
    assert (precision, recall) == (2 / 3, 2 / 3) and f1 == pytest.approx(2 / 3)
    assert is_bio(gold) and not is_bio([["NOUN", "VERB"]])
    with pytest.raises(ValueError, match="sentence 0"):
        token_accuracy([["A"]], [["A", "B"]])


def data(n=60, seed=0):
    return make_hmm_sequences(n, n_labels=3, n_words=12, concentration=0.2, random_state=seed)[:2]


def test_model_file_round_trip(tmp_path):
    X, y = data()
    model = SequenceTagger(rule="AROW", max_iter=2, n_bits=8, random_state=0).fit(X, y)
    olearn.save(model, tmp_path / "m.npz")
    loaded = olearn.load(tmp_path / "m.npz")
    assert loaded.get_params() == model.get_params()
    assert loaded.predict(X) == model.predict(X)
    for name in ("weights_", "average_sums_", "variances_", "label_counts_", "stats_"):
        np.testing.assert_array_equal(getattr(loaded, name), getattr(model, name))
    loaded.partial_fit(X, y)  # training continues from the loaded state
    with pytest.raises(TypeError, match="a callable is code"):
        olearn.save(SequenceTagger(features=lambda t, i: [t[i]]).fit(X, y), tmp_path / "c.npz")
    (tmp_path / "junk.npz").write_bytes(b"not a model")
    with pytest.raises(ValueError):
        olearn.load(tmp_path / "junk.npz")


def write(path, X, y):
    with open(path, "w") as stream:
        write_tsv(stream, X, y)


def test_dash_as_output_of_tag(tmp_path, capsys, monkeypatch):
    """``tag predict -o -`` is standard output; ``tag train -o -`` an error (a model is a
    file): neither writes a file named "-"."""
    monkeypatch.chdir(tmp_path)
    X, y = data()
    write(tmp_path / "train.tsv", X, y)
    assert main(["tag", "train", "train.tsv", "-o", "m.npz", "--n-bits", "8"]) == 0
    capsys.readouterr()
    assert main(["tag", "predict", "m.npz", "train.tsv", "-o", "-"]) == 0
    dashed = capsys.readouterr().out
    assert main(["tag", "predict", "m.npz", "train.tsv"]) == 0
    assert dashed == capsys.readouterr().out and dashed
    assert main(["tag", "train", "train.tsv", "-o", "-"]) == 2
    assert "-o -: a model is written to a file" in capsys.readouterr().err
    assert sorted(os.listdir(tmp_path)) == ["m.npz", "train.tsv"]


def test_dash_as_input_of_tag_is_standard_input(tmp_path, capsys, monkeypatch):
    """``tag train|predict|evaluate -`` read standard input, as ``olearn train -`` does
    (they said "-: no such file")."""
    import io
    import sys

    monkeypatch.chdir(tmp_path)
    X, y = data()
    write(tmp_path / "train.tsv", X, y)
    text = (tmp_path / "train.tsv").read_bytes()

    def stdin():
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text)))

    stdin()
    assert main(["tag", "train", "-", "-o", "piped.npz", "--bits", "8", "--quiet"]) == 0
    assert main(["tag", "train", "train.tsv", "-o", "file.npz", "--bits", "8", "--quiet"]) == 0
    np.testing.assert_array_equal(olearn.load("piped.npz").weights_,
                                  olearn.load("file.npz").weights_)  # fmt: skip
    capsys.readouterr()
    for command in (["predict", "file.npz"], ["evaluate", "file.npz"]):
        stdin()
        assert main(["tag", *command, "-"]) == 0
        piped = capsys.readouterr().out
        assert main(["tag", *command, "train.tsv"]) == 0
        assert piped == capsys.readouterr().out and piped


def test_cli_train_predict_evaluate(tmp_path, capsys):
    X, y = data()
    write(tmp_path / "train.tsv", X, y)
    model = tmp_path / "model.npz"
    code = main(["tag", "train", str(tmp_path / "train.tsv"), "-o", str(model), "--passes",
                 "2", "--n-bits", "8", "--rule", "perceptron"])  # fmt: skip
    assert code == 0
    err = capsys.readouterr().err
    assert "pass 1/2: sentences=60" in err and "pass 2/2" in err and "saved" in err
    # the progress lines are the command's: the model learns quietly in Python
    olearn.load(model).partial_fit(X, y)
    assert capsys.readouterr().err == ""
    assert main(["tag", "predict", str(model), str(tmp_path / "train.tsv")]) == 0
    out = capsys.readouterr().out
    predicted = [s[1] for s in read_tsv_text(out)]
    direct = olearn.load(model).predict(X)
    assert predicted == direct
    assert main(["tag", "evaluate", str(model), str(tmp_path / "train.tsv")]) == 0
    report = dict(line.split("\t") for line in capsys.readouterr().out.splitlines())
    assert float(report["token_accuracy"]) == pytest.approx(token_accuracy(y, direct), abs=1e-6)
    assert int(report["tokens"]) == sum(map(len, X))
    assert "span_f1" not in report


def read_tsv_text(text):
    sentences, tokens, tags = [], [], []
    for line in text.splitlines():
        if not line:
            sentences.append((tokens, tags))
            tokens, tags = [], []
        else:
            token, tag = line.split("\t")
            tokens.append(token)
            tags.append(tag)
    return sentences


def test_column_is_refused_for_token_tab_tag_input(tmp_path, capsys):
    """--column picks a CoNLL-U column; token TAB tag lines have one tag column, and the
    option was silently ignored there (trained on it whatever column was asked for)."""
    data = tmp_path / "train.tsv"
    data.write_text("Yes\tINTJ\n\nNo\tINTJ\n")
    model = tmp_path / "m.olm"
    for extra in (["--column", "xpos"], ["--column", "upos", "--format", "tsv"]):
        assert main(["tag", "train", str(data), "-o", str(model), *extra]) == 2
        err = capsys.readouterr().err
        assert "--column" in err and "token TAB tag" in err and "--format conllu" in err
        assert not model.exists()
    assert main(["tag", "train", str(data), "-o", str(model), "--quiet"]) == 0
    conllu = tmp_path / "train.conllu"
    conllu.write_text(CONLLU)
    assert main(["tag", "evaluate", str(model), str(conllu), "--column", "xpos"]) == 0


def test_cli_errors_exit_2_with_one_line(tmp_path, capsys):
    bad = tmp_path / "bad.conllu"
    bad.write_text("1\tDo\tdo\n")
    assert main(["tag", "train", str(bad), "-o", str(tmp_path / "m.npz")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("olearn: error: ") and "bad.conllu:1" in err and "\n" not in err
    assert main(["tag", "predict", str(tmp_path / "missing.npz"), str(bad)]) == 2
    assert "\n" not in capsys.readouterr().err.strip()
    assert main(["tag", "train", str(bad), "-o", "m", "--k-best", "3", "--rule",
                 "perceptron"]) == 2  # fmt: skip
    assert main(["tag"]) == 2


@pytest.mark.parametrize(
    "options, message",
    [
        (["--k-best", "3", "--rule", "AROW"], "k_best > 1"),
        (["--cost", "sqrt_hamming"], "update='max_loss' needs cost='hamming'"),
        (["--C", "0"], "C must be a positive number"),
        (["--random-state", "-1"], "random_state must be None, an int >= 0"),
    ],
    ids=["k-best", "cost", "C", "seed"],
)
def test_tag_train_refuses_bad_options_before_reading_the_data(tmp_path, capsys, options, message):
    """Options the tagger refuses were found only after the whole corpus was read (and
    after a line error in it): the message named the data, or came seconds later."""
    bad = tmp_path / "bad.conllu"
    bad.write_text("1\tDo\tdo\n")  # a malformed line: reading it would fail first
    assert main(["tag", "train", str(bad), "-o", str(tmp_path / "m.olm"), *options]) == 2
    err = capsys.readouterr().err
    assert message in err and "bad.conllu" not in err and "read " not in err


def test_encoding_problems_name_file_and_line(tmp_path):
    good = "1\tDo\tdo\tAUX\tVBP\t_\t3\taux\t_\t_\n"
    # a byte-order mark at the very start is skipped (editors on Windows write one); before,
    # the first token id read "\ufeff1"
    path = tmp_path / "bom.conllu"
    path.write_bytes(b"\xef\xbb\xbf" + good.encode())
    assert list(read_conllu(path)) == [(["Do"], ["AUX"])]
    # anywhere else it is an error naming the line (files joined together)
    path.write_bytes(good.encode() + b"\n\xef\xbb\xbf" + good.encode())
    with pytest.raises(ValueError, match=r"bom.conllu:3: a byte-order mark"):
        list(read_conllu(path))
    # before: "'utf-8' codec can't decode byte 0xff in position 31" (no file, no line)
    path = tmp_path / "latin.conllu"
    path.write_bytes(good.encode() + "2\tcafé\tx\tNOUN\tNN\t_\t1\tobj\t_\t_\n".encode("latin-1"))
    with pytest.raises(ValueError, match=r"latin.conllu:2: not UTF-8 text: byte 0xe9 at column 6"):
        list(read_conllu(path))
    tsv = tmp_path / "latin.tsv"
    tsv.write_bytes(b"The\tDET\ncaf\xe9\tNOUN\n")
    with pytest.raises(ValueError, match=r"latin.tsv:2: not UTF-8"):
        list(read_tsv(tsv))


def test_lone_carriage_returns_are_refused(tmp_path):
    """Classic Mac OS line ends made the whole file one line: untagged, one "token" holding
    every word and CR, tagged silently. Refused as by the svmlight/VW readers; CRLF reads."""
    lone = tmp_path / "mac.txt"
    lone.write_bytes(b"Yes\rNo\r\rOk\r")
    with pytest.raises(ValueError, match="mac.txt:1: lines end in a lone carriage return"):
        list(read_tsv(lone, tagged=False))
    conllu = tmp_path / "mac.conllu"
    conllu.write_bytes(CONLLU.replace("\n", "\r").encode())
    with pytest.raises(ValueError, match="lone carriage return"):
        list(read_conllu(conllu))
    crlf = tmp_path / "dos.conllu"
    crlf.write_bytes(CONLLU.replace("\n", "\r\n").encode())
    assert list(read_conllu(crlf))[1] == (["Yes"], ["INTJ"])


def test_truncated_gzip_and_last_line_without_newline(tmp_path):
    text = "".join(f"{i}\tw{i}\tw\tNOUN\tNN\t_\t0\troot\t_\t_\n\n" for i in [1] * 2000)
    packed = gzip.compress(text.encode())
    path = tmp_path / "cut.conllu.gz"
    path.write_bytes(packed[: len(packed) // 2])
    with pytest.raises(ValueError, match=r"cut.conllu.gz: cannot read after line \d+"):
        list(read_conllu(path))
    path = tmp_path / "a.tsv"
    path.write_text("The\tDET\ndog\tNOUN")  # no final newline: a complete line
    assert list(read_tsv(path)) == [(["The", "dog"], ["DET", "NOUN"])]
    path = tmp_path / "a.conllu"
    path.write_text("1\tDo\tdo\tAUX\tVBP\t_\t3\taux\t_\t_")
    assert list(read_conllu(path)) == [(["Do"], ["AUX"])]
