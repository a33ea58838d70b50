"""``olearn tag``: sequence labelling (train, predict, evaluate) with SequenceTagger.

Data: CoNLL-U (``.conllu``, ``.conllu.gz``, ``.bz2``, ``.xz``, in any case; tags from the UPOS
column unless ``--column``) or ``token TAB tag`` lines with a blank line between sentences (any
other name; compressed input is recognised by its first bytes).
"""

from __future__ import annotations

import argparse
import sys

from olearn.cli import DeprecatedAlias
from olearn.cli._data import positive_int

RULES = ("PA-I", "PA", "PA-II", "perceptron", "AROW")


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "tag",
        help="sequence labelling (POS tagging, BIO chunks)",
        description="Sequence labelling with a SequenceTagger: train one on tagged sentences "
        "(CoNLL-U, or token TAB tag lines with a blank line between sentences), tag sentences "
        "with it, or score it on tagged ones. `olearn tag ACTION --help` gives each action's "
        "options.",
    )
    commands = parser.add_subparsers(dest="tag_command", metavar="ACTION")
    parser.set_defaults(run=_help(parser))

    train = commands.add_parser(
        "train",
        help="train a tagger and save it",
        description="Train a SequenceTagger on DATA and save it to MODEL. Options follow "
        "`olearn train`: hyper-parameters are the estimator's parameter names (--C, --r, "
        "--k-best, ...), --bits hashes into 2^BITS rows, --quiet prints only errors.",
    )
    _data_options(train)
    train.add_argument("-o", "--output", required=True, metavar="MODEL", help="model file")
    train.add_argument("--rule", choices=RULES, default="PA-I", help="update rule (PA-I)")
    train.add_argument(
        "--C", type=float, default=1.0, metavar="FLOAT", help="PA-I/II aggressiveness C (1)"
    )
    train.add_argument(
        "--r", type=float, default=1.0, metavar="FLOAT", help="AROW regularisation r (1)"
    )
    train.add_argument(
        "--update",
        choices=("max_loss", "prediction"),
        default="max_loss",
        help="constraint against the max-loss output or the prediction (max_loss)",
    )
    train.add_argument("--k-best", type=positive_int, default=1, help="k-best MIRA constraints (1)")
    train.add_argument(
        "--cost",
        choices=("hamming", "sqrt_hamming"),
        default="hamming",
        help="cost of a wrong output: its wrong labels, or their square root (with "
        "--update prediction only) (hamming)",
    )
    train.add_argument(
        "--average",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="average the weights (default: --average)",
    )
    # checked here, before the data is read, and named as the user spelled them (the
    # tagger's own check names max_iter and n_bits)
    train.add_argument("--passes", type=positive_int, default=10, help="passes over the data (10)")
    train.add_argument("--bits", type=_bits, default=18, help="hash into 2^BITS rows (18)")
    train.add_argument(
        "--shuffle",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="shuffle the sentences before each pass (default: --shuffle)",
    )
    train.add_argument("--random-state", type=int, default=0, help="shuffling seed (0)")
    train.add_argument("--quiet", action="store_true", help="print only errors")
    # the spellings of earlier versions
    for old, dest, new, kind in (
        ("-C", "C", "--C", float),
        ("-r", "r", "--r", float),
        ("--n-bits", "bits", "--bits", _bits),
        ("--seed", "random_state", "--random-state", int),
    ):
        train.add_argument(old, dest=dest, type=kind, action=DeprecatedAlias, new=new)
    train.add_argument(
        "-q", dest="quiet", action=DeprecatedAlias, nargs=0, const=True, new="--quiet"
    )
    train.set_defaults(run=run_train)

    predict = commands.add_parser(
        "predict",
        help="tag sentences (token TAB tag output)",
        description="Tag the sentences of DATA with MODEL: token TAB tag lines, a blank line "
        "between sentences. DATA may be untagged: CoNLL-U whose tag column is _, or one token "
        "per line.",
    )
    predict.add_argument("model", metavar="MODEL")
    _data_options(predict)
    predict.add_argument(
        "-o", "--output", metavar="FILE", help="write here ('-' or by default: stdout)"
    )
    predict.set_defaults(run=run_predict)

    evaluate = commands.add_parser(
        "evaluate",
        help="token/sentence accuracy, BIO span F1",
        description="Tag the sentences of DATA with MODEL and compare with DATA's tags: token "
        "and sentence accuracy, and span precision, recall and F1 when the tags are BIO.",
    )
    evaluate.add_argument("model", metavar="MODEL")
    _data_options(evaluate)
    evaluate.set_defaults(run=run_evaluate)


def _bits(text: str) -> int:
    """An argparse type: the tagger's hashing bits, 1 to 30."""
    value = positive_int(text)
    if value > 30:
        raise argparse.ArgumentTypeError(f"must be at most 30: {text}")
    return value


def _help(parser):
    def run(args) -> int:
        parser.print_help(sys.stderr)
        return 2

    return run


def _data_options(parser) -> None:
    parser.add_argument(
        "data", metavar="DATA", help="CoNLL-U or token TAB tag file ('-': standard input)"
    )
    parser.add_argument(
        "--format",
        choices=("auto", "conllu", "tsv"),
        default="auto",
        help="input format (auto: CoNLL-U for .conllu[.gz|.bz2|.xz], else token TAB tag)",
    )
    parser.add_argument(
        "--column",
        choices=("upos", "xpos", "deprel"),
        help="CoNLL-U tag column (upos); token TAB tag lines have one",
    )


#: The names read as CoNLL-U by ``--format auto`` (lower-cased; the readers recognise a
#: compression by its first bytes, whatever the name).
_CONLLU_NAMES = (".conllu", ".conllu.gz", ".conllu.bz2", ".conllu.xz")


def _read(args, tagged: bool = True):
    from olearn.cli._data import max_memory, reader_limits
    from olearn.structured.readers import read_conllu, read_tsv

    limits = reader_limits(max_memory())  # a file without newlines (/dev/zero) stops
    fmt = args.format
    if fmt == "auto":
        name = str(args.data).lower()
        fmt = "conllu" if name.endswith(_CONLLU_NAMES) else "tsv"
    if fmt == "tsv" and args.column is not None:
        # (ignored, it would train on the second field while the user asked for another)
        raise ValueError(
            f"--column {args.column} picks a CoNLL-U column, but "
            f"{'standard input' if args.data == '-' else args.data} is read as token TAB tag "
            "lines, which have one tag column: drop --column, or give --format conllu if the "
            "data is CoNLL-U"
        )
    data = sys.stdin.buffer if args.data == "-" else args.data  # as `olearn train -`
    if fmt == "conllu":
        pairs = list(read_conllu(data, args.column or "upos", tagged=tagged, **limits))
    else:
        pairs = list(read_tsv(data, tagged=tagged, **limits))
    if not pairs:
        raise ValueError(f"{args.data}: no sentences")
    return [p[0] for p in pairs], [p[1] for p in pairs]


def _load_tagger(args, usage: str):
    """The SequenceTagger of ``args.model`` (``olearn.load``), or a ValueError (with a hint
    when MODEL and DATA are swapped)."""
    import olearn
    from olearn.cli._data import check_inputs, max_memory
    from olearn.cli.predict import _check_model_file
    from olearn.structured.tagger import SequenceTagger

    path = args.model
    check_inputs([args.data])
    _check_model_file(path, args.data, usage)
    model = olearn.load(path, max_memory=max_memory())
    if not isinstance(model, SequenceTagger):
        raise ValueError(f"{path}: a {type(model).__name__} model, not a SequenceTagger")
    return model


def run_train(args) -> int:
    import time

    import olearn
    from olearn.cli._data import check_inputs, check_output, check_tagger_memory
    from olearn.structured.tagger import SequenceTagger

    check_inputs([args.data])
    if args.output == "-":
        raise ValueError("-o -: a model is written to a file (give its name), not to stdout")
    check_output(args.output, [args.data])  # before the passes, not after (issue 12)
    model = SequenceTagger(
        rule=args.rule, C=args.C, r=args.r, update=args.update, k_best=args.k_best,
        cost=args.cost, average=args.average, max_iter=args.passes,
        shuffle=args.shuffle, random_state=args.random_state, n_bits=args.bits,
        verbose=0 if args.quiet else 1,
    )  # fmt: skip
    model._validate_params()  # options that cannot go together: refused before the data is read
    X, y = _read(args)
    n_tokens = sum(map(len, X))
    if not args.quiet:
        print(f"read {len(X)} sentences, {n_tokens} tokens from {args.data}", file=sys.stderr)
    check_tagger_memory(model, X, y)  # refuse before allocating (issue 12)
    started = time.perf_counter()
    model.fit(X, y)
    seconds = time.perf_counter() - started
    # the progress lines are this command's: the saved model is quiet, as the library's
    olearn.save(model.set_params(verbose=0), args.output)
    if not args.quiet:
        print(
            f"trained {args.rule} on {n_tokens} tokens x {args.passes} passes in {seconds:.2f}s; "
            f"{len(model.classes_)} labels; saved {args.output}",
            file=sys.stderr,
        )
    return 0


def run_predict(args) -> int:
    from olearn.cli._data import check_output
    from olearn.io._files import atomic_write
    from olearn.structured.readers import write_tsv

    model = _load_tagger(args, "olearn tag predict MODEL DATA")
    if args.output == "-":  # as for DATA: standard output, not a file named "-"
        args.output = None
    if args.output:
        check_output(args.output, [args.data, args.model])
    X, _ = _read(args, tagged=False)
    tags = model.predict(X)
    if args.output:
        with atomic_write(args.output, text=True) as stream:
            write_tsv(stream, X, tags)
    else:
        try:
            write_tsv(sys.stdout, X, tags)
            sys.stdout.flush()
        except BrokenPipeError:
            # the reader went away (``| head``): not an error; silence the final flush
            import os

            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


def run_evaluate(args) -> int:
    from olearn.structured.metrics import is_bio, sentence_accuracy, span_f1, token_accuracy

    model = _load_tagger(args, "olearn tag evaluate MODEL DATA")
    X, y = _read(args)
    predicted = model.predict(X)
    print(f"sentences\t{len(X)}")
    print(f"tokens\t{sum(map(len, X))}")
    print(f"token_accuracy\t{token_accuracy(y, predicted):.6f}")
    print(f"sentence_accuracy\t{sentence_accuracy(y, predicted):.6f}")
    if is_bio(y):
        precision, recall, f1 = span_f1(y, predicted)
        print(f"span_precision\t{precision:.6f}")
        print(f"span_recall\t{recall:.6f}")
        print(f"span_f1\t{f1:.6f}")
    return 0
