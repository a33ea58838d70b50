"""Option names follow one convention across commands (that of ``olearn train``: estimator
parameter names as long options, ``--bits``, ``--random-state``, ``--quiet``, ``-o/--output``);
the spellings of earlier versions still work and say they are deprecated. ``olearn tag``
predicts untagged CoNLL-U."""

from __future__ import annotations

import re

import pytest

from olearn.cli import build_parser, main

SENTENCES = [
    (["The", "dog", "runs", "."], ["DET", "NOUN", "VERB", "PUNCT"]),
    (["A", "cat", "sleeps", "."], ["DET", "NOUN", "VERB", "PUNCT"]),
    (["Dogs", "run", "."], ["NOUN", "VERB", "PUNCT"]),
]


def _conllu(path, tagged: bool = True) -> None:
    lines = []
    for words, tags in SENTENCES:
        lines.append(f"# text = {' '.join(words)}")
        for i, (word, tag) in enumerate(zip(words, tags, strict=True), start=1):
            upos = tag if tagged else "_"
            lines.append(f"{i}\t{word}\t_\t{upos}\t_\t_\t{max(0, i - 1)}\tdep\t_\t_")
        lines.append("")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _parse(*argv):
    return build_parser(list(argv)).parse_args(list(argv))


def test_tag_train_options_follow_train(capsys):
    args = _parse("tag", "train", "d.tsv", "-o", "m", "--C", "0.5", "--r", "2", "--bits", "12",
                  "--random-state", "3", "--no-average", "--no-shuffle", "--quiet")  # fmt: skip
    assert (args.C, args.r, args.bits, args.random_state) == (0.5, 2.0, 12, 3)
    assert (args.average, args.shuffle, args.quiet) == (False, False, True)
    assert capsys.readouterr().err == ""
    defaults = _parse("tag", "train", "d.tsv", "-o", "m")
    assert (defaults.C, defaults.bits, defaults.random_state) == (1.0, 18, 0)
    assert (defaults.average, defaults.shuffle, defaults.quiet) == (True, True, False)


@pytest.mark.parametrize(
    "old, new, dest, value",
    [
        (["-C", "0.5"], "--C", "C", 0.5),
        (["-r", "2"], "--r", "r", 2.0),
        (["--n-bits", "12"], "--bits", "bits", 12),
        (["--seed", "3"], "--random-state", "random_state", 3),
        (["-q"], "--quiet", "quiet", True),
    ],
)
def test_tag_train_old_spellings_are_deprecated_aliases(capsys, old, new, dest, value):
    args = _parse("tag", "train", "d.tsv", "-o", "m", *old)
    assert getattr(args, dest) == value
    assert capsys.readouterr().err == f"olearn: warning: {old[0]} is deprecated; use {new}\n"


def test_old_spellings_are_hidden_from_help(capsys):
    with pytest.raises(SystemExit):
        main(["tag", "train", "--help"])
    text = capsys.readouterr().out
    for old in ("-C", "-r", "--n-bits", "--seed", "-q"):
        assert not re.search(rf"(^|[\s\[,]){old}\b", text), old
    for new in ("--C FLOAT", "--bits", "--random-state", "--quiet", "--no-average"):
        assert new in text


def test_predict_help_gives_the_models_data_options_as_defaults(capsys):
    # before: predict's --help described train's format sniffing and index auto-detection,
    # which predict never does (the model's format and index base are used)
    with pytest.raises(SystemExit):
        main(["predict", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "input format (default: the model's)" in text and "outside a comment" not in text
    assert "start at 0 (default: the model's, if it has one)" in text


def test_evaluate_spells_its_seed_as_train_does(capsys):
    assert _parse("evaluate", "pa1", "iris", "--random-state", "4").random_state == 4
    assert _parse("evaluate", "pa1", "iris").random_state == 0
    assert capsys.readouterr().err == ""
    assert _parse("evaluate", "pa1", "iris", "--seed", "5").random_state == 5
    assert "--seed is deprecated; use --random-state" in capsys.readouterr().err


def test_experiment_output_option(capsys):
    assert _parse("experiment", "bounds", "-o", "x").output == "x"
    assert _parse("experiment", "bounds", "--output", "x").output == "x"
    assert capsys.readouterr().err == ""
    assert _parse("experiment", "bounds", "--out", "y").output == "y"
    assert "--out is deprecated; use --output" in capsys.readouterr().err


def test_experiment_help_names_the_default_folder(capsys):
    # before: "-o DIR, --output DIR  where to write", and the figures went to a folder that
    # neither --help nor the docs named
    assert _parse("experiment", "bounds").output == "experiments-out"
    with pytest.raises(SystemExit):
        main(["experiment", "--help"])
    assert "(default experiments-out" in " ".join(capsys.readouterr().out.split())


def test_tag_predict_accepts_untagged_conllu(tmp_path, capsys):
    tagged, untagged = tmp_path / "train.conllu", tmp_path / "raw.conllu"
    _conllu(tagged)
    _conllu(untagged, tagged=False)
    model = tmp_path / "tagger.olm"
    assert main(["tag", "train", str(tagged), "-o", str(model), "--passes", "5",
                 "--bits", "10", "--quiet"]) == 0  # fmt: skip
    capsys.readouterr()
    assert main(["tag", "predict", str(model), str(untagged)]) == 0
    out = capsys.readouterr().out
    expected = "".join(
        "".join(f"{w}\t{t}\n" for w, t in zip(words, tags, strict=True)) + "\n"
        for words, tags in SENTENCES
    )
    assert out == expected  # learnt perfectly from the same sentences, tagged
    # evaluation and training still need the tags, and say which line lacks one
    assert main(["tag", "evaluate", str(model), str(untagged)]) == 2
    err = capsys.readouterr().err
    assert "raw.conllu:2: empty upos (untagged text?)" in err


@pytest.mark.parametrize("value", ["nan", "inf"])
def test_a_non_finite_hyper_parameter_writes_no_model(tmp_path, capsys, value):
    data, model = tmp_path / "d.svm", tmp_path / "m.olm"
    data.write_text("1 1:1\n-1 2:1\n")
    assert main(["train", "pa1", str(data), "-o", str(model), f"--C={value}"]) == 2
    err = capsys.readouterr().err
    assert err == (f"olearn: error: The 'C' parameter of PassiveAggressiveClassifier must be a "
                   f"float in the range (0.0, inf). Got {value} instead.\n")  # fmt: skip
    assert not model.exists()


@pytest.mark.parametrize(
    "option, value, said",
    [
        ("--passes", "0", "argument --passes: must be positive: 0"),
        ("--bits", "0", "argument --bits: must be positive: 0"),
        ("--bits", "31", "argument --bits: must be at most 30: 31"),
        ("--k-best", "0", "argument --k-best: must be positive: 0"),
        ("--n-bits", "0", "argument --n-bits: must be positive: 0"),
    ],
)
def test_tag_train_names_the_option_given(tmp_path, capsys, option, value, said):
    """An invalid --passes, --bits or --k-best is an error naming the option, before the data
    is read (before: 'max_iter must be an integer >= 1, got 0', the tagger's parameter, once
    the whole file had been read)."""
    model = tmp_path / "m.olm"
    with pytest.raises(SystemExit) as stop:
        main(["tag", "train", str(tmp_path / "never-read.tsv"), "-o", str(model), option, value])
    assert stop.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == f"olearn tag train: error: {said}"
    assert not model.exists()
