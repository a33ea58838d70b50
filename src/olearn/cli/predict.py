"""``olearn predict MODEL DATA [-o FILE] [--scores | --proba]``: one line per example.

The data is read as the model was trained (format, hashing, index base, width: stored in the
model file), in chunks, so memory stays bounded. Lines hold the predicted labels (numbers:
``+1`` in the training data prints ``1``), or the decision scores / class probabilities
(space-separated, in the order of ``olearn info``'s classes); labelled data is scored in the
summary whichever is printed. Features the model never saw (an svmlight index beyond its
width: the usual case for a sparse train/test split) have no weight: they are ignored and
counted in the summary, as hashing and Vowpal Wabbit do.

Every example line of DATA — every line but blank lines and svmlight ``#`` comments — has
its output line, in order. A malformed line skipped with ``--skip-bad-lines`` is an example
that could not be read: its output line is a placeholder, ``nan`` in each column, so output
line k stays example line k (an empty line would do for ``paste``, but NumPy's ``loadtxt``
and pandas' ``read_csv`` skip empty lines, which would shift every later row; both read
``nan`` as a missing value).
"""

from __future__ import annotations

import os
import sys

from olearn.cli._data import (
    add_data_arguments,
    add_debug,
    check_inputs,
    check_output,
    counted,
    ignored_unseen,
)


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "predict",
        help="predict with a saved model",
        description="Predict the examples of DATA with MODEL: one output line per example, in "
        "order. Blank lines and svmlight comments are not examples; a malformed line skipped "
        "by --skip-bad-lines is one, and its output line reads nan.",
        allow_abbrev=False,
    )
    parser.add_argument("model", metavar="MODEL")
    parser.add_argument("data", metavar="DATA", help="input file ('-': standard input)")
    parser.add_argument(
        "-o", "--output", metavar="FILE", help="write here ('-' or by default: stdout)"
    )
    what = parser.add_mutually_exclusive_group()
    what.add_argument("--scores", action="store_true", help="decision scores instead of labels")
    what.add_argument(
        "--proba",
        action="store_true",
        help="class probabilities, in the order of `olearn info`'s classes (the CW, AROW and SCW "
        "classifiers)",
    )
    parser.add_argument("--quiet", action="store_true", help="no summary on stderr")
    add_data_arguments(parser, training=False)
    add_debug(parser)
    parser.set_defaults(run=run)


def run(args) -> int:
    from olearn.cli._data import terminate_cleanly

    with terminate_cleanly():
        return _predict(args)


def _check_model_file(model: str, data: str, usage: str = "olearn predict MODEL DATA") -> None:
    """A clear error, from the first bytes only, when MODEL is not a model file (and the
    hint ``usage`` when DATA is one: the arguments are swapped)."""
    from olearn.io.model_file import MAGIC

    def magic(path: str) -> bytes:
        if path == "-" or not os.path.isfile(path):
            return b""
        with open(path, "rb") as handle:
            return handle.read(len(MAGIC))

    if os.path.isdir(model):
        raise ValueError(f"{model}: is a directory, not a model file")
    if not os.path.isfile(model):
        raise ValueError(f"{model}: no such model file")
    if magic(model) != MAGIC:
        hint = f": MODEL comes first ({usage})" if magic(data) == MAGIC else ""
        raise ValueError(f"{model} is not an olearn model file{hint}")


def _predict(args) -> int:
    import contextlib

    import numpy as np

    import olearn
    from olearn.cli._data import make_reader, max_memory, model_input, resolve_chunk_bytes
    from olearn.io._files import atomic_write
    from olearn.io.model_file import plain_metadata, read_model_header

    check_inputs([args.data])
    _check_model_file(args.model, args.data)
    if args.output == "-":  # as for DATA: standard output, not a file named "-"
        args.output = None
    if args.output:
        check_output(args.output, [args.data, args.model])
    memory = max_memory(args)
    resolve_chunk_bytes(args, memory)
    model = olearn.load(args.model, max_memory=memory)  # bounded like every allocation
    metadata = plain_metadata(read_model_header(args.model).get("metadata", {})) or {}
    spec = model_input(args.model, metadata, args, width=int(model.n_features_in_))
    from sklearn.base import is_classifier, is_regressor

    if not (is_classifier(model) or is_regressor(model)):  # a tagger, a uniclass model
        tagger = type(model).__name__ == "SequenceTagger"
        hint = "; olearn tag predict tags sentences" if tagger else ""
        raise ValueError(
            f"{args.model} holds a {type(model).__name__}: olearn predict takes the models of "
            f"olearn train (classifiers and regressors){hint}"
        )
    if args.proba and not hasattr(model, "predict_proba"):
        raise ValueError(f"{type(model).__name__} has no probabilities (--proba)")
    classifier = is_classifier(model)
    width = int(model.n_features_in_)
    reader = make_reader(
        args.data,
        spec,
        n_features=width if spec["format"] == "svmlight" else None,
        chunk_bytes=args.chunk_bytes,
        skip_bad_lines=args.skip_bad_lines,
        memory=memory,
        require_label=False,
        ignore_unseen=True,
        model=args.model,
    )
    n = mistakes = 0
    labelled = 0
    placeholder = "nan"  # a skipped line's output: nan in each column of the others
    unseen = {"rows": 0, "labels": set()}  # labelled rows of labels never seen in training
    with contextlib.ExitStack() as stack:
        # a file: written whole or not at all, with the user's umask (or the mode of the
        # file it replaces), like every other file the user creates
        out = (
            stack.enter_context(atomic_write(args.output, text=True)) if args.output else sys.stdout
        )
        for chunk in reader:
            X = chunk.X
            text, predicted = _outputs(model, X, args)
            known = ~np.isnan(chunk.y)
            if known.any():  # scored whatever is printed: labels, scores or probabilities
                if predicted is None:
                    predicted = model.predict(X if known.all() else X[known])
                else:
                    predicted = predicted[known]
                if predicted.ndim == 1 and predicted.dtype.kind in "fiu":  # (not multilabel)
                    labelled += int(known.sum())
                    mistakes += _loss(predicted, chunk.y[known], classifier)
                    if classifier:
                        _count_unseen(chunk.y[known], model.classes_, unseen)
            placeholder = " ".join(["nan"] * (text[0].count(" ") + 1))
            if chunk.skipped_before.shape[0]:
                text = _in_place(text, chunk.skipped_before.tolist(), placeholder)
            out.write("\n".join(text))
            out.write("\n")
            n += X.shape[0]
        if n == 0:
            bad = reader.n_bad_lines
            skipped = f" (skipped {counted(bad, 'bad line')})" if bad else ""
            raise ValueError(f"{args.data}: no examples{skipped}")
        out.write(f"{placeholder}\n" * reader.n_trailing_bad_lines)
    if not args.quiet:
        message = f"olearn: predicted {counted(n, 'example')}"
        if labelled:
            measure = "error rate" if classifier else "mean squared error"
            message += f"; {measure} {mistakes / labelled:.6f} on {labelled} labelled"
        if reader.n_bad_lines:
            bad = counted(reader.n_bad_lines, "bad line")
            message += f"; skipped {bad} (a line of nan in place of each)"
        if getattr(reader, "n_unseen", 0):
            message += f"; {ignored_unseen(reader.n_unseen, width, reader.n_unseen_rows)}"
        print(message, file=sys.stderr)
        if unseen["rows"]:
            _warn_unseen(unseen, labelled, model.classes_)
    return 0


def _count_unseen(y, classes, unseen: dict) -> None:
    import numpy as np

    new = y[~np.isin(y, classes)]
    unseen["rows"] += len(new)
    if len(unseen["labels"]) <= 5:  # a few to show
        unseen["labels"].update(np.unique(new)[:6].tolist())


def _warn_unseen(unseen: dict, labelled: int, classes) -> None:
    """Labelled examples whose label the model never saw count as mistakes whatever it
    predicts (data of another task, or ±1 labels against a 0/1 model): say so."""
    from olearn.cli._data import format_labels

    def shown(values) -> str:
        values = sorted(values)
        return " ".join(format_labels(values[:5])) + (" ..." if len(values) > 5 else "")

    print(
        f"olearn: warning: {unseen['rows'] / labelled:.0%} of the labelled examples have "
        f"labels the model never saw in training ({shown(unseen['labels'])}; its classes: "
        f"{shown(classes.tolist())}): they count as mistakes",
        file=sys.stderr,
    )


def _outputs(model, X, args):
    """The lines of a chunk's predictions (labels, ``--scores`` or ``--proba``) and the
    predicted labels when they were computed for them (else None)."""
    import numpy as np

    from olearn.cli._data import format_labels

    if args.proba:
        return _rows(np.asarray(model.predict_proba(X))), None
    if args.scores and hasattr(model, "decision_function"):
        return _rows(np.asarray(model.decision_function(X))), None
    predicted = model.predict(X)
    if args.scores:  # a regressor: its prediction is its score
        return _rows(np.asarray(predicted, dtype=float)), predicted
    if predicted.ndim == 2:  # multilabel: a row of 0/1 per example
        return [" ".join(format_labels(row)) for row in predicted], predicted
    return format_labels(predicted), predicted


def _in_place(lines: list[str], places: list[int], placeholder: str) -> list[str]:
    """``lines`` with ``placeholder`` inserted before line ``p`` for each ``p`` of
    ``places`` (sorted; repeated for consecutive skipped lines; ``len(lines)``: at the
    end)."""
    merged: list[str] = []
    start = 0
    for place in places:
        merged.extend(lines[start:place])
        merged.append(placeholder)
        start = place
    merged.extend(lines[start:])
    return merged


def _loss(predicted, y, classifier: bool) -> float:
    """The chunk's mistakes (classifier), or its summed squared error (regressor)."""
    import numpy as np

    if classifier:
        return int(np.sum(predicted != y))
    return float(np.sum((predicted - y) ** 2))


def _rows(values) -> list[str]:
    if values.ndim == 1:
        return [f"{v:.10g}" for v in values.tolist()]
    return [" ".join(f"{v:.10g}" for v in row) for row in values.tolist()]
