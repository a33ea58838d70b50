"""``olearn evaluate ALGO DATA``: LIBOL's protocol from the command line.

Online mistake rate, update count and training time at checkpoints, mean ± std over K random
orders (optionally a held-out file for learning curves, label noise on the training stream,
parameter selection over LIBOL's grid on a separate permutation). Prints a table; ``--csv`` and
``--json`` write the curves for plotting.
"""

from __future__ import annotations

import os
import sys

from olearn.cli import DeprecatedAlias
from olearn.cli._data import add_data_arguments, check_output, ignored_unseen


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "evaluate",
        help="online mistake rate, updates and time over random orders (LIBOL protocol)",
        description="LIBOL's protocol: online mistake rate, update count and training time at "
        "checkpoints, mean ± std over K random orders (optionally a held-out file for learning "
        "curves, label noise on the training stream, parameter selection over LIBOL's grid on a "
        "separate permutation). Prints a table; --csv and --json write the curves for plotting.",
    )
    parser.add_argument(
        "algorithm",
        metavar="ALGO",
        help="algorithm name, or several separated by commas (see `olearn evaluate --list`)",
        nargs="?",
    )
    parser.add_argument(
        "data",
        metavar="DATA",
        nargs="?",
        help="svmlight/libsvm or VW-style file ('-': standard input), or a bundled data set "
        "name (e.g. breast-cancer, mnist-3v5, phishing, digits-3v5, arow-synthetic)",
    )
    parser.add_argument(
        "--permutations",
        "-k",
        type=int,
        default=10,
        metavar="K",
        help="random orders of the data, the mean ± std over them (10)",
    )
    parser.add_argument("--holdout", metavar="FILE", help="held-out set scored at checkpoints")
    parser.add_argument(
        "--checkpoints", type=int, default=10, metavar="N", help="points of each curve (10)"
    )
    parser.add_argument(
        "--noise", type=float, default=0.0, help="fraction of training labels flipped"
    )
    parser.add_argument(
        "--select",
        action="store_true",
        help="choose hyper-parameters on a separate permutation over LIBOL's grid "
        "(those given with --set stay fixed)",
    )
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="hyper-parameter for every algorithm (repeatable), e.g. --set C=0.5",
    )
    parser.add_argument(
        "--random-state", type=int, default=0, help="seed of the permutations and the noise (0)"
    )
    # the spelling of earlier versions
    parser.add_argument(
        "--seed", dest="random_state", type=int, action=DeprecatedAlias, new="--random-state"
    )
    parser.add_argument("--csv", metavar="FILE", help="write the curves as CSV")
    parser.add_argument("--json", metavar="FILE", help="write the curves as JSON")
    parser.add_argument("--list", action="store_true", help="list the algorithm names and exit")
    add_data_arguments(parser, training=True, streaming=False)
    parser.set_defaults(run=run)


def read_data(path: str, spec: dict, width: int | None = None):
    """(X csr, y, importance weights or None) of a whole svmlight or VW-style file as ``spec``
    describes it (``_data.input_spec``). A held-out file is read to the training ``width``:
    the values of features beyond it (unseen in training, which scoring ignores, as ``olearn
    predict`` does) are dropped and counted on standard error."""
    import numpy as np
    import scipy.sparse as sp

    if spec["format"] == "vw":
        from olearn.io import load_vw

        X, y, weights = load_vw(path, bits=spec["bits"], ngrams=spec["ngrams"],
                                quadratic=spec["quadratic"], return_weights=True)  # fmt: skip
    else:
        weights = None  # svmlight has none
        from olearn.io import load_svmlight

        zero_based = spec.get("zero_based")
        X, y = load_svmlight(
            path,
            n_features=spec.get("n_features") if width is None else None,
            zero_based="auto" if zero_based is None else zero_based,
        )
    X = sp.csr_matrix(X)
    if width is not None and X.shape[1] != width:
        if X.shape[1] > width:
            unseen = X[:, width:]
            rows = int(np.diff(unseen.indptr).astype(bool).sum())
            print(f"olearn: {path}: {ignored_unseen(unseen.nnz, width, rows)}", file=sys.stderr)
            X = X[:, :width].tocsr()
        else:
            X = sp.csr_matrix((X.data, X.indices, X.indptr), shape=(X.shape[0], width))
    return X, np.asarray(y), weights


def _refuse_real_labels(data: str, y, estimators: dict) -> None:
    """A classifier learns integer labels: real-valued ones (regression data) are an error
    naming the data, a label and the classifier, not scikit-learn's 'Unknown label type'."""
    import numpy as np
    from sklearn.base import is_classifier

    y = np.asarray(y)
    classifiers = [name for name, estimator in estimators.items() if is_classifier(estimator)]
    if classifiers and y.dtype.kind == "f":
        real = y[np.mod(y, 1) != 0]
        if real.shape[0]:
            raise ValueError(
                f"{data}: label {float(real[0]):g} is not a class label (an integer), and "
                f"{classifiers[0]} is a classifier"
            )


def _refuse_unknown_settings(names: list, settings: dict, taken: set) -> None:
    """A ``--set`` name that no algorithm takes (a typo, or a parameter of other
    algorithms) is an error, not silently dropped."""
    from olearn.cli import UsageError

    unknown = sorted(set(settings) - taken)
    if not unknown:
        return
    if len(names) == 1:
        raise UsageError(f"{names[0]} has none of the parameters {unknown}")
    raise UsageError(f"none of {', '.join(names)} has the parameter(s) {unknown}")


def _check_settings(names: list, settings: dict) -> None:
    """The ``--set`` names, checked before the data is read: each must be a parameter of
    some name's estimator for some task (the task is known only from the labels: pa1's
    ``epsilon`` is its regressor's)."""
    from olearn.evaluation import make_estimator
    from olearn.registry import lookup

    taken: set = set()
    for name in names:
        for task in lookup(name).classes:
            taken.update(make_estimator(name, task).get_params())
    _refuse_unknown_settings(names, settings, taken)


def _estimators(names: list, settings: dict, select: bool, task: str | None = None):
    """``(estimators, grids, fixed)``: each name's estimator for ``task`` with the ``--set``
    values it has, and with ``select`` its LIBOL grid less those values (``fixed``: the
    names whose grid ``--set`` fixes whole, with those values)."""
    from olearn.cli import UsageError
    from olearn.evaluation import libol_grid, make_estimator

    estimators, grids = {}, {}
    fixed = {}  # name -> the --set values of every parameter its grid would tune
    taken: set = set()
    for name in names:
        estimator = make_estimator(name, task)
        own = {k: v for k, v in settings.items() if k in estimator.get_params()}
        taken.update(own)
        estimators[name] = estimator.set_params(**own)
        if select:
            # a value given with --set stays fixed: --select tunes only the others
            full = libol_grid(estimator)
            grids[name] = {k: values for k, values in full.items() if k not in own}
            if full and not grids[name]:
                fixed[name] = {k: own[k] for k in sorted(full)}
    _refuse_unknown_settings(names, settings, taken)
    if fixed and not any(grids.values()):  # --select would tune nothing at all
        name, values = next(iter(fixed.items()))
        raise UsageError(
            f"--select has nothing left to tune for {name}: --set fixes {', '.join(values)}"
        )
    return estimators, grids, fixed


def _parse_value(text: str):
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    return text


def _load_data(data: str, holdout: str | None, args):
    """The training set (a file, or a bundled data set) with its importance weights (None if
    it has none) and the held-out file if any, both read as the data options and the first
    file's format say."""
    from olearn.cli._data import input_spec

    X_test = y_test = weights = None
    if data == "-" and holdout == "-":
        raise ValueError("standard input ('-') can be given once")
    test = _read_once(holdout) if holdout else None
    if data == "-" or os.path.exists(data):  # '-': standard input, as for olearn train
        source = _read_once(data)
        spec = input_spec(args, [data], lambda _: _format(source))
        if holdout and spec["format"] == "svmlight" and spec.get("zero_based") is None:
            # the held-out file counts its indices as the training file does: decided on
            # its own, one without an index 0 would read one-based and shift every feature
            spec["zero_based"] = _zero_based(source)
        X, y, weights = read_data(source, spec)
        name = os.path.basename(data)
    else:
        from olearn.datasets import load

        try:
            dataset = load(data)
        except ValueError as error:
            raise ValueError(
                f"{data!r} is neither a file nor a bundled data set. {error}"
            ) from None
        name, X, y = dataset.name, dataset.X, dataset.y
        spec = input_spec(args, [holdout], lambda _: _format(test)) if holdout else None
    if holdout:
        X_test, y_test, _ = read_data(test, spec, width=X.shape[1])  # scored unweighted
    return name, X, y, weights, X_test, y_test


def _zero_based(source) -> bool:
    """Whether an svmlight ``source`` (a path, or text read whole) is zero-based, decided as
    its reading with ``zero_based="auto"`` decides: if any index is 0."""
    import io

    from olearn.io.svmlight import scan_svmlight

    if isinstance(source, str):
        return scan_svmlight(source).min_index == 0
    return scan_svmlight(io.BytesIO(source.getvalue()), name=source.name).min_index == 0


def _format(source) -> str:
    """The format of a path, or of text read whole (``_read_once``)."""
    from olearn.cli._data import format_of, sniff_format

    if isinstance(source, str):
        return sniff_format(source)
    return format_of(source.getbuffer()[: 1 << 16].tobytes())


def _read_once(path: str):
    """``path``, or the whole of its text in memory, named as it is, when it can be read only
    once (a named pipe, ``<(zcat data.gz)``): the format is sniffed before it is read."""
    import io

    from olearn.cli._data import is_stream
    from olearn.io.chunks import open_source, read_errors

    if not is_stream(path):
        return path
    with read_errors(path):
        handle, _ = open_source(path)
        with handle:
            text = io.BytesIO(handle.read())  # evaluate holds the whole data set anyway
    text.name = path
    return text


def run(args) -> int:
    from olearn.cli import UsageError
    from olearn.registry import ALGORITHMS

    if args.list:
        for name, algorithm in ALGORITHMS.items():
            print(f"{name:22s} {algorithm.title} ({algorithm.paper})")
        return 0
    if not args.algorithm or not args.data:
        raise UsageError("usage: olearn evaluate ALGO DATA (see olearn evaluate --help)")
    if args.permutations < 1:
        raise UsageError(f"--permutations must be >= 1, got {args.permutations}")
    if args.checkpoints < 1:
        raise UsageError(f"--checkpoints must be >= 1, got {args.checkpoints}")
    if not 0.0 <= args.noise <= 1.0:  # (as olearn.evaluation: 1 flips every label)
        raise UsageError(f"--noise must be in [0, 1], got {args.noise}")
    names = [name.strip().lower() for name in args.algorithm.split(",") if name.strip()]
    unknown = [name for name in names if name not in ALGORITHMS]
    if unknown:
        raise UsageError(f"unknown algorithm(s) {unknown}; known: {', '.join(ALGORITHMS)}")
    settings = {}
    for item in args.set:
        if "=" not in item:
            raise UsageError(f"--set expects NAME=VALUE, got {item!r}")
        key, value = item.split("=", 1)
        settings[key.strip()] = _parse_value(value.strip())

    for flag, output in (("--csv", args.csv), ("--json", args.json)):  # before any work
        if output == "-":  # (standard output holds the table)
            raise UsageError(f"{flag} -: the table is printed on standard output; give a file")
        if output:
            check_output(output, [path for path in (args.data, args.holdout) if path])
    if args.csv and args.json and os.path.abspath(args.csv) == os.path.abspath(args.json):
        raise UsageError(f"--csv and --json name the same file {args.csv}")

    from olearn.cli.train import _task_of
    from olearn.evaluation import evaluate

    _check_settings(names, settings)  # the names' parameters, before reading
    dataset, X, y, weights, X_test, y_test = _load_data(args.data, args.holdout, args)
    # as olearn train: a name's regressor learns real-valued labels (pa, arow, kernel-pa, …)
    task = "regression" if _task_of(y) == "regression" else None
    estimators, grids, fixed = _estimators(names, settings, args.select, task)
    _refuse_real_labels(args.data, y, estimators)
    if weights is not None and args.select and not (weights == 1.0).all():
        raise UsageError(f"{args.data}: --select does not take importance weights yet")
    comparison = evaluate(
        estimators,
        X,
        y,
        n_permutations=args.permutations,
        n_checkpoints=args.checkpoints,
        label_noise=args.noise,
        X_test=X_test,
        y_test=y_test,
        param_grids=grids if args.select else None,
        dataset=dataset,
        random_state=args.random_state,
        sample_weight=weights,  # learned as `olearn train` learns them
    )
    # the files first: a reader of the table that goes away (`| head`) ends the printing
    if args.csv:
        comparison.to_csv(args.csv)
    if args.json:
        comparison.to_json(args.json)
    print(
        f"# {dataset}: {X.shape[0]} examples, {X.shape[1]} features, "
        f"{args.permutations} permutations, label noise {args.noise:g}"
    )
    for name, result in comparison.results.items():
        params = ", ".join(f"{k}={v:g}" for k, v in result.params.items())
        note = f" (selected {params})" if params else ""
        if name in fixed:  # evaluated as given: --set leaves its grid nothing to tune
            values = ", ".join(f"{k}={v}" for k, v in fixed[name].items())
            note = f" (not tuned: --set fixes {values})"
        print(f"\n## {name}{note}")
        # a regressor: its online squared error, its held-out R² (its "mistakes" are the
        # rounds outside its ε-tube: every round for a loss without one)
        regressor = result.squared_error is not None
        loss = result.squared_error if regressor else result.mistake_rate
        # (an error has no scale of its own: 4 significant digits, in a wider column)
        kind, width = ("g", 10) if regressor else ("f", 6)
        header = f"{'examples':>9} {'squared error' if regressor else 'mistake rate':>19} "
        header += f"{'updates':>17} {'seconds':>19}"
        if result.test_accuracy is not None:
            header += f" {'held-out R²' if regressor else 'held-out accuracy':>19}"
        print(header)
        for j, n in enumerate(result.checkpoints):
            line = (
                f"{n:>9d} {loss[:, j].mean():>10.4{kind}} ± {loss[:, j].std():<{width}.4{kind}} "
                f"{result.updates[:, j].mean():>8.1f} ± {result.updates[:, j].std():<6.1f} "
                f"{result.seconds[:, j].mean():>10.5f} ± {result.seconds[:, j].std():<6.5f}"
            )
            if result.test_accuracy is not None:
                line += (
                    f" {result.test_accuracy[:, j].mean():>10.4f} ± "
                    f"{result.test_accuracy[:, j].std():<6.4f}"
                )
            print(line)
    return 0
