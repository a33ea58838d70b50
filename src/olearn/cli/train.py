"""``olearn train ALGO DATA... -o MODEL``: stream text files through an online learner.

The algorithm's hyper-parameters become options (``--C``, ``--covariance``, ``--average`` /
``--no-average`` ...) generated from its estimator classes (``olearn.cli.algorithms``); they
are added only when the command line names the algorithm, so ``olearn --help`` stays fast.

Progress follows Vowpal Wabbit: a line at every doubling of the example count with the online
mistake rate (squared error for regression) since the previous line and overall, and the
number of updates; a progress bar on a terminal; a summary at the end. With several passes,
every 10th example of a pass is held out (never learned from) and, after the first pass, the
progress lines show the loss on those examples (marked ``h``), as Vowpal Wabbit does. A
malformed line stops training before anything is learned from it and no model is written.
"""

from __future__ import annotations

import argparse
import gc
import sys
import time

from olearn._sets import distinct
from olearn.cli._data import add_data_arguments, add_debug, check_inputs, check_output, counted
from olearn.registry import TASKS as _TASKS

#: Every HOLDOUT_PERIOD-th example of a pass is held out with ``--passes`` > 1 (VW's
#: ``--holdout_period`` default: the examples whose 1-based number in the pass is a multiple).
HOLDOUT_PERIOD = 10

# options of `train` that take a value (to find ALGO in the raw arguments)
_VALUE_OPTIONS = {
    "--task",
    "--passes",
    "--random-state",
    "-o",
    "--output",
    "--resume",
    "--format",
    "--n-features",
    "--bits",
    "--ngrams",
    "--quadratic",
    "-q",
    "--chunk-bytes",
    "--max-memory",
    "--dask",  # olearn.distributed.cli.VALUE_OPTIONS
    "--mixing",
    "--partitions",
}


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "train",
        help="train a model on text files (svmlight or VW-style)",
        description="Train ALGO online on DATA (svmlight/libsvm or VW-style text; plain, gzip, "
        "bzip2 or xz; '-' for standard input) and write the model to MODEL. "
        "`olearn train ALGO --help` lists ALGO's hyper-parameters; `olearn list` all algorithms.",
        allow_abbrev=False,
    )
    parser.add_argument("algorithm", metavar="ALGO", help="algorithm name (see `olearn list`)")
    parser.add_argument("data", nargs="+", metavar="DATA", help="input files ('-': stdin)")
    parser.add_argument("-o", "--output", required=True, metavar="MODEL", help="model file")
    parser.add_argument(
        "--task",
        choices=_TASKS,
        help="default: regression for non-integer labels (or more than 256 distinct ones), "
        "binary for at most two labels, else multiclass",
    )
    parser.add_argument("--passes", type=int, default=1, help="passes over the data (default 1)")
    parser.add_argument(
        "--holdout-off",
        action="store_true",
        help=f"with --passes > 1, learn from every example (default: every {HOLDOUT_PERIOD}th "
        "example of a pass is held out and its loss reported after the first pass)",
    )
    parser.add_argument(
        "--shuffle", action="store_true", help="shuffle the examples within each chunk"
    )
    parser.add_argument("--random-state", type=int, help="seed of the shuffling")
    parser.add_argument("--resume", metavar="MODEL", help="continue training a saved model")
    parser.add_argument("--quiet", action="store_true", help="print only errors")
    add_data_arguments(parser, training=True)
    from olearn.distributed.cli import add_arguments as add_distributed_arguments

    add_distributed_arguments(parser)
    add_debug(parser)
    from olearn import cli

    name = _algorithm_in_argv(cli.ARGV)
    if name is not None:
        _add_hyperparameters(parser, name)
    parser.set_defaults(run=run)


def _algorithm_in_argv(argv: list[str]) -> str | None:
    """The ALGO of ``olearn [--debug] train ... ALGO ...`` if it names a known algorithm."""
    from olearn.registry import ALGORITHMS

    tokens = list(argv)
    while tokens and tokens[0].startswith("-"):
        tokens.pop(0)
    if not tokens or tokens[0] != "train":
        return None
    skip = False
    for token in tokens[1:]:
        if skip:
            skip = False
            continue
        if token.startswith("-"):
            skip = token in _VALUE_OPTIONS
            continue
        return token.lower() if token.lower() in ALGORITHMS else None
    return None


def _add_hyperparameters(parser: argparse.ArgumentParser, name: str) -> None:
    # from the catalogue: importing the classes would import scikit-learn
    from olearn.cli.algorithms import algorithm_parameters, lookup

    algorithm = lookup(name)
    found = algorithm_parameters(algorithm)
    if not found:
        return
    group = parser.add_argument_group(
        f"{algorithm.name} hyper-parameters ({algorithm.title}; defaults of the estimator"
        + (" and of the name" if algorithm.fixed else "")
        + ")"
    )
    taken = {o for action in parser._actions for o in action.option_strings}
    for p in found.values():
        flag = "--" + p.name.replace("_", "-")
        if flag in taken:
            flag = f"--{algorithm.name}-{p.name.replace('_', '-')}"
        text = (p.help + " " if p.help else "") + f"(default: {p.default})"
        text = text.replace("%", "%%")
        dest = f"hp__{p.name}"
        if p.is_flag:
            group.add_argument(
                flag,
                dest=dest,
                action=argparse.BooleanOptionalAction,
                default=argparse.SUPPRESS,
                help=text,
            )
        else:
            group.add_argument(
                flag,
                dest=dest,
                type=p.parse,
                default=argparse.SUPPRESS,
                metavar=p.metavar,
                help=text,
            )


# -- running --------------------------------------------------------------------------------


def run(args) -> int:
    start = time.perf_counter()
    from olearn.cli._data import (
        StandardInput,
        is_stream,
        max_memory,
        resolve_chunk_bytes,
        terminate_cleanly,
    )
    from olearn.registry import lookup

    algorithm = lookup(args.algorithm)
    if args.passes < 1:
        raise ValueError(f"--passes must be at least 1, got {args.passes}")
    if args.holdout_off and args.passes == 1:  # accepted, as VW does; but it does nothing
        print("olearn: warning: --holdout-off has no effect with one pass (nothing is held "
              "out: every example is learned)", file=sys.stderr)  # fmt: skip
    given = [flag for flag, value in (("--mixing", args.mixing), ("--partitions", args.partitions))
             if value is not None]  # fmt: skip
    if given and not args.dask:  # (as --holdout-off with one pass: said, not silently dropped)
        print(f"olearn: warning: {' and '.join(given)} apply to training on a Dask cluster "
              "(--dask): ignored", file=sys.stderr)  # fmt: skip
    hyper = {k[4:]: v for k, v in vars(args).items() if k.startswith("hp__")}
    check_inputs(args.data)
    if args.output == "-":
        raise ValueError("-o -: a model is written to a file (give its name), not to stdout")
    check_output(args.output, list(args.data))
    if args.dask:  # on a Dask cluster: olearn.distributed.cli
        from olearn.distributed.cli import train as train_distributed

        return train_distributed(args, algorithm, hyper, start)
    memory = max_memory(args)
    resolve_chunk_bytes(args, memory)
    streams = {}  # the inputs read only once (standard input, pipes): path -> StandardInput
    gc.disable()  # until the first rows are learned: see _Learner.learn
    try:
        with terminate_cleanly():
            for path in dict.fromkeys(args.data):
                if is_stream(path):
                    streams[path] = StandardInput(keep=args.passes > 1, path=path)
            return _train(args, algorithm, hyper, streams, memory, start)
    finally:
        gc.enable()
        gc.unfreeze()  # for a caller in the same process (the olearn program ends here)
        for stream in streams.values():
            stream.close()


def _train(args, algorithm, hyper, streams, memory, start) -> int:
    import numpy as np

    import olearn
    from olearn.cli._data import format_of, input_spec, make_reader, sniff_format

    paths = list(args.data)
    out = _Printer(quiet=args.quiet)
    if args.resume:
        model, spec, task = _resumed(args, algorithm, hyper)
        width = int(model.n_features_in_)
        classes = parsed = None
    else:

        def sniff(path):
            return format_of(streams[path].head()) if path in streams else sniff_format(path)

        spec = input_spec(args, paths, sniff)
        width, classes, task, parsed = _scan(args, spec, paths, memory, streams)
        if task == "binary" and classes is not None and len(classes) > 2:
            _refuse_third_label(", ".join(paths), classes)
        model = None  # made once the task is known (from the first chunk if not given)
    if spec["format"] == "svmlight":
        spec["n_features"] = width
    holdout = args.passes > 1 and not args.holdout_off
    bar = _progress_bar(args, paths, streams)
    out.bar = bar
    readers = []
    counters = learner = None
    try:
        for epoch in range(args.passes):
            in_pass = 0  # examples of this pass so far (the held-out ones are every 10th)
            if counters is not None:
                counters.start_pass(epoch, holdout)
            for path in paths:
                stream = streams.get(path)
                source, name = (stream.source(), stream.name) if stream else (path, None)
                if epoch == 0 and parsed:  # a small input, parsed by the scan
                    reader = parsed.pop(0)
                else:
                    reader = make_reader(
                        source,
                        spec,
                        n_features=width if spec["format"] == "svmlight" else None,
                        chunk_bytes=args.chunk_bytes,
                        skip_bad_lines=args.skip_bad_lines,
                        memory=memory,
                        name=name,
                        model=args.resume,
                    )
                if epoch == 0:  # bad lines are counted once, not once per pass
                    readers.append(reader)
                done_bytes = 0
                for chunk in reader:
                    y = chunk.y
                    if spec["format"] == "svmlight" and spec.get("zero_based") is None:
                        # decided by the first block with an index (the input was not
                        # scanned): the later files and passes, the model file and so
                        # predict count as it does
                        if reader.base is not None:
                            spec["zero_based"] = reader.base == 0
                    if model is None:
                        task = task or _task_of(y)
                        if task == "regression":
                            classes = None
                        model = _new_model(algorithm, task, hyper, args, headless=not holdout)
                        _check_model_memory(model, task, width, classes, y, memory, args, spec)
                        _begin_kernel_model(model, task, classes, chunk)
                    if counters is None:
                        counters = _Counters(model, task)
                        counters.start_pass(epoch, holdout)
                        out.header(model, task, width, paths)
                        learner = _Learner(model, classes, counters)
                    if task != "regression":
                        _refuse_real_labels(reader.name, y, args.resume)
                        _check_new_classes(model, width, y, memory, reader.name)
                    n = y.shape[0]
                    held = None
                    if holdout:
                        number = in_pass + 1 + np.arange(n)  # 1-based, in the pass
                        held = number % HOLDOUT_PERIOD == 0
                    in_pass += n
                    lo = 0
                    while lo < n:
                        hi = min(n, lo + counters.until_next_report())
                        learner.learn(chunk, lo, hi, reader, held, score_held=epoch > 0)
                        if task == "binary" and len(getattr(model, "classes_", ())) > 2:
                            if args.task == "binary":  # given: a third label is an error
                                _refuse_third_label(reader.name, model.classes_)
                            # judged on the first chunk, or the resumed model's: the
                            # classifier grew a class, as one judged multiclass does
                            task = "multiclass"
                        counters.advance(hi - lo)
                        if counters.due():
                            out.progress(counters.report())
                        lo = hi
                    if bar is not None:
                        bar.update(reader.n_bytes - done_bytes)
                        done_bytes = reader.n_bytes
    finally:
        if bar is not None:
            bar.close()
    n_bad = sum(r.n_bad_lines for r in readers)
    if counters is None or counters.examples == 0:
        raise ValueError(f"{', '.join(args.data)}: no examples{_skipped(n_bad, readers)}")
    metadata = {
        "algorithm": algorithm.name,
        "task": task,
        "input": spec,
        "trained_on": [str(p) for p in args.data],
        "examples": counters.examples,
        "passes": args.passes,
        "bad_lines_skipped": n_bad,
    }
    if holdout:
        metadata["holdout_period"] = HOLDOUT_PERIOD
        if counters.holdout_n:
            metadata["holdout_loss"] = counters.holdout_sum / counters.holdout_n
    if counters.examples != counters.last_reported:
        out.progress(counters.report())
    olearn.save(model, args.output, metadata=metadata)
    first_bad = next((r.first_bad_line for r in readers if r.first_bad_line), None)
    out.summary(counters, args, n_bad, first_bad, model, width, time.perf_counter() - start)
    return 0


def _skipped(n_bad: int, readers) -> str:
    """What an input without examples skipped: its bad lines and the first one."""
    if not n_bad:
        return ""
    first = next(r.first_bad_line for r in readers if r.first_bad_line)
    return f" (skipped {counted(n_bad, 'bad line')}; the first: {first})"


def _begin_kernel_model(model, task: str, classes, chunk) -> None:
    """A kernel model's ``gamma`` "scale" and storage decided on the whole first chunk, as
    ``fit`` decides them on X: its first ``partial_fit`` learns 1 row (progress lines come
    at 1, 2, 4, … examples), whose variance said nothing of the data's."""
    if hasattr(model, "_begin"):
        import numpy as np

        if task != "regression" and classes is None:  # not scanned: the chunk's, then met
            classes = np.unique(chunk.y)
        model._begin(chunk.X, None if task == "regression" else classes)


class _Learner:
    """Rows ``lo:hi`` of a chunk to the model: a headless model's ``learn_rows`` on the CSR
    arrays (SciPy is never imported), else ``partial_fit``; held-out rows are left out, and
    scored once the first pass is done; importance weights go through ``_importance``."""

    def __init__(self, model, classes, counters):
        self.model = model
        self.counters = counters
        self.headless = hasattr(model, "learn_rows")
        self.classes = classes  # announced once, as partial_fit's classes=
        self.accepts_weights = self.headless or _accepts_sample_weight(model)
        self.fit_options = {} if self.headless else _fit_options(model, classes)

    def learn(self, chunk, lo: int, hi: int, reader, held, *, score_held: bool) -> None:
        model, y = self.model, chunk.y
        options = _importance(chunk, lo, hi, self.accepts_weights, model, reader)
        if self.headless:
            model.learn_rows(chunk.data, chunk.indptr, chunk.indices, chunk.n_features, y,
                             lo, hi, classes=self.classes,
                             sample_weight=chunk.sample_weight if options else None)  # fmt: skip
            self.classes = None
        else:
            self._partial_fit(chunk, lo, hi, held, options, score_held)
        if not gc.isenabled():
            # Start-up is over: the modules are loaded. No collection ran while they loaded
            # (each would walk Numba's hundreds of thousands of new objects, which hold no
            # garbage: 7 % of a train's time on a 424 MB file). Frozen, they stay out of the
            # collections from now on (`run` unfreezes them when the command is done).
            gc.freeze()
            gc.enable()

    def _partial_fit(self, chunk, lo: int, hi: int, held, options: dict, score_held: bool):
        import numpy as np

        model, y = self.model, chunk.y
        X = chunk.X
        options.update(self.fit_options)
        whole = held is None and lo == 0 and hi == chunk.n_rows  # no copy of the chunk
        rows = slice(lo, hi) if held is None else np.flatnonzero(~held[lo:hi]) + lo
        if "sample_weight" in options:
            options["sample_weight"] = chunk.sample_weight[rows]
        if len(y[rows]):
            model.partial_fit(X if whole else X[rows], y[rows], **options)
            self.fit_options.pop("classes", None)
        if held is not None and score_held:
            test = np.flatnonzero(held[lo:hi]) + lo
            self.counters.held_out(model, X[test], y[test])


def _importance(chunk, lo: int, hi: int, accepts: bool, model, reader) -> dict:
    """The one place importance weights reach the model: ``{"sample_weight": ...}`` for
    rows ``lo:hi`` when the model takes them, ``{}`` when every weight is 1. A model that
    does not take them refuses weighted input rather than silently ignoring weights (every
    olearn estimator takes them: each rule's importance-weighted form, ``olearn.rules``)."""
    weights = chunk.sample_weight[lo:hi]
    if (weights == 1.0).all():
        return {}
    if accepts:
        return {"sample_weight": weights}
    import numpy as np

    row = lo + int(np.flatnonzero(weights != 1.0)[0])
    raise ValueError(
        f"{reader.name}: example {reader.n_examples - chunk.n_rows + row + 1} has importance "
        f"weight {chunk.sample_weight[row]:g}, and {type(model).__name__} does not take "
        "importance weights yet: remove them (or set them to 1) to train without them"
    )


def _check_model_memory(model, task, width, classes, y, memory, args, spec) -> None:
    """Refuse, before it is allocated, a model larger than the memory limit; when the width
    comes from the data (an svmlight index), name the line that makes it so large."""

    from olearn.cli._data import check_memory, format_size, make_reader

    n_classes = 1
    if task == "multiclass":
        n_classes = len(classes) if classes is not None else len(distinct(y))
    needed = _model_bytes(model, width, n_classes)
    if needed <= memory:
        return
    name = type(model).__name__
    if spec["format"] == "svmlight" and args.n_features is None and args.bits is None:
        fits = _widest(model, n_classes, memory)
        try:
            for path in args.data:
                if path != "-":
                    for _ in make_reader(
                        path, dict(spec, n_features=fits), n_features=fits,
                        chunk_bytes=args.chunk_bytes, skip_bad_lines=args.skip_bad_lines,
                        memory=memory,
                    ):  # fmt: skip
                        pass
        except ValueError as error:
            if getattr(error, "line", None) is None:
                raise
            raise ValueError(
                f"{error.source}:{error.line}: this feature index makes the model "
                f"({name}, {width} features) need {format_size(needed)}, more than the memory "
                f"limit {format_size(memory)} (--max-memory or $OLEARN_MAX_MEMORY): "
                f"{error.token!r}"
            ) from None
    how = f"--bits {args.bits}" if args.bits is not None else f"{width} features"
    article = "an" if name[0] in "AEIOU" else "a"  # (an AROWClassifier)
    check_memory(needed, memory, f"{article} {name} of {how}")


def _check_new_classes(model, width: int, y, memory: int, source: str) -> None:
    """Refuse, before they are learned, labels that would grow a classifier beyond the memory
    limit: a class adds a weight row (a binary model of one row becomes one of three)."""
    import numpy as np

    from olearn.cli._data import check_memory, format_labels

    known = getattr(model, "classes_", None)
    if known is None:
        return  # not fitted yet: _check_model_memory judged the first chunk's classes
    unknown = y[~np.isin(y, known)]  # (every chunk: no sort of its labels)
    if unknown.shape[0] == 0:
        return
    new = distinct(unknown)
    n_classes = len(known) + new.shape[0]
    needed = _model_bytes(model, width, n_classes)
    label = format_labels(new[:1])[0]
    name = type(model).__name__
    check_memory(needed, memory, f"{source}: label {label}, one class more for the {name} "
                 f"({n_classes} classes of {width} features),")  # fmt: skip


def _model_bytes(model, width: int, n_classes: int) -> int:
    """Bytes of a linear model's state for ``width`` features and ``n_classes`` prototype
    rows: weights, averaging sums, variances (diagonal) or precision factors (full)."""
    covariance = model._covariance_kind() if hasattr(model, "_covariance_kind") else None
    averaged = bool(model._averaged()) if hasattr(model, "_averaged") else False
    D = width + 1
    per_row = D * (1 + averaged + (covariance == "diagonal"))
    if covariance == "full":
        per_row += D * D
    return 8 * n_classes * per_row


def _widest(model, n_classes: int, memory: int) -> int:
    """The largest width whose model fits in ``memory`` (at least 1)."""
    lo, hi = 1, 2**31 - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if _model_bytes(model, mid, n_classes) <= memory:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _resumed(args, algorithm, hyper):
    import olearn
    from olearn.cli.algorithms import resolve
    from olearn.io.model_file import plain_metadata, read_model_header

    if hyper:
        raise ValueError(
            "hyper-parameters come from the resumed model; do not give them with --resume"
        )
    from olearn.cli._data import max_memory, model_input

    model = olearn.load(args.resume, max_memory=max_memory(args))  # --max-memory bounds it too
    metadata = plain_metadata(read_model_header(args.resume).get("metadata", {}))
    # (checks the metadata first)
    spec = model_input(args.resume, metadata, args, width=int(model.n_features_in_))
    task = metadata.get("task") or args.task
    if args.task and task and args.task != task:
        raise ValueError(f"{args.resume} was trained for the {task} task, not {args.task}")
    if task is None:
        task = "regression" if not hasattr(model, "classes_") else "binary"
    try:
        expected = resolve(algorithm.name, task)
    except ValueError:
        expected = None
    if expected is not None and type(model) is not expected:
        raise ValueError(
            f"{args.resume} holds a {type(model).__name__}, not the {algorithm.name} algorithm"
        )
    return model, spec, task


def _scan(args, spec, paths, memory, streams):
    """Width, label set, task, and the parsed input when the scan parsed it (else None).
    svmlight input without ``--n-features`` is scanned first (a light pass for the largest
    index, the index base and the labels; with ``--skip-bad-lines`` only well-formed lines
    count), or parsed once if it is small (``_parse_small``); otherwise the task, if not
    given, is decided from the labels of the first chunk (``_task_of``)."""
    import numpy as np

    from olearn.cli._data import make_reader, reader_limits
    from olearn.io.svmlight import scan_svmlight

    width = 1 << spec["bits"] if spec["format"] == "vw" else spec.get("n_features")
    if width is not None:
        return width, None, args.task, None
    if streams:
        once = "standard input" if "-" in streams else next(iter(streams))
        raise ValueError(
            f"svmlight input does not declare its width, and {once} can be read only once (it "
            "cannot be scanned first): give --n-features (or --bits)"
        )
    small = _parse_small(args, spec, paths, memory)
    if small is not None:
        return small
    lo, hi, n, labels = 2**62, -1, 0, []
    many = False
    for path in paths:
        scan = scan_svmlight(path, skip_bad_lines=args.skip_bad_lines, **reader_limits(memory))
        n += scan.n_examples
        if scan.max_index >= 0:
            lo, hi = min(lo, scan.min_index), max(hi, scan.max_index)
        if scan.labels is None:
            many = True
        else:
            labels.append(scan.labels)
    if n == 0 and not args.skip_bad_lines:  # (skipped lines: the parse counts them)
        raise ValueError(f"{', '.join(args.data)}: no examples")
    if spec.get("zero_based") is None:
        spec["zero_based"] = bool(hi >= 0 and lo == 0)
    width = max(1, hi - (0 if spec["zero_based"] else 1) + 1)
    if width > 2**31 - 1:  # the parse names the line holding the index
        for path in paths:
            reader = make_reader(path, spec, n_features=None, chunk_bytes=args.chunk_bytes,
                                 skip_bad_lines=False, memory=memory)  # fmt: skip
            for _ in reader:
                pass
        raise ValueError(f"{', '.join(paths)}: a feature index beyond 2147483646")
    classes = None if many or not labels else distinct(np.concatenate(labels))
    task = args.task
    if task is None:
        task = "regression" if classes is None else _task_of(classes)
    return width, (None if task == "regression" else classes), task, None


#: Inputs up to this size (plain files, all together) are parsed once instead of scanned and
#: then parsed: a small job skips the scan's pass and its compiled loop.
PARSE_ONCE_BYTES = 4 << 20


def _parse_small(args, spec, paths, memory):
    """``_scan``'s answer for small plain svmlight files, from parsing them (the indices read
    as zero-based; an undecided index base decided as ``load_svmlight`` does in one pass:
    shifted if none is 0), with the parsed chunks for the first pass: one reader per path, as
    ``make_reader`` would give (same chunks, counts and bad lines). None when the input is
    not small, is declared one-based, or has a malformed line (unless skipped): the scan and
    the parse then go on, or report it, as they always do."""
    import numpy as np

    from olearn.cli._data import make_reader
    from olearn.io import BadLineError
    from olearn.io._svmlight_parse import N_LABELS_TRACKED

    base = spec.get("zero_based")
    if base is False:  # the scan counts lines with an index 0 that the parse rejects
        return None
    total = 0
    for path in paths:
        total += _plain_size(path)
        if total > min(PARSE_ONCE_BYTES, args.chunk_bytes):
            return None
    readers = []
    try:
        for path in paths:
            reader = make_reader(path, {**spec, "zero_based": True},
                                 n_features=None, chunk_bytes=args.chunk_bytes,
                                 skip_bad_lines=args.skip_bad_lines, memory=memory)  # fmt: skip
            readers.append(_Parsed(reader, list(reader)))
    except BadLineError:
        return None
    found = [r for r in readers if r.max_index >= 0]
    lo = min((r.min_index for r in found), default=2**62)
    hi = max((r.max_index for r in found), default=-1)
    zero_based = bool(hi >= 0 and lo == 0) if base is None else True
    width = max(1, hi - (0 if zero_based else 1) + 1)
    if width > 2**31 - 1 or sum(r.n_examples for r in readers) == 0:
        return None  # the scan and the parse say what is wrong
    if not zero_based and any(r.n_bad_lines for r in readers):
        return None  # a skipped line's reason may differ (e.g. an index 0, one-based)
    spec["zero_based"] = zero_based
    for reader in readers:
        for chunk in reader.chunks:
            if not zero_based:
                np.subtract(chunk.indices, 1, out=chunk.indices)
            chunk.n_features = width
    labels = distinct(np.concatenate([c.y for r in readers for c in r.chunks]))
    classes = None if labels.shape[0] > N_LABELS_TRACKED else labels
    task = args.task
    if task is None:
        task = "regression" if classes is None else _task_of(classes)
    return width, (None if task == "regression" else classes), task, readers


def _plain_size(path: str) -> float:
    """The size of a plain (uncompressed) regular file; infinite for anything else."""
    import os
    import stat

    try:
        status = os.stat(path)
        if not stat.S_ISREG(status.st_mode):
            return float("inf")
        with open(path, "rb") as handle:
            head = handle.read(6)
    except OSError:
        return float("inf")
    if head.startswith((b"\x1f\x8b", b"BZh", b"\xfd7zXZ")):
        return float("inf")
    return status.st_size


class _Parsed:
    """A reader that has already read its input: its chunks again, and its counts."""

    def __init__(self, reader, chunks):
        self.reader = reader
        self.chunks = chunks

    def __iter__(self):
        return iter(self.chunks)

    def __getattr__(self, name: str):
        return getattr(self.reader, name)


def _refuse_third_label(source: str, labels) -> None:
    """``--task binary`` on data with more than two labels: an error, not a multiclass
    model labelled binary. (Real-valued labels get the model's own error, which names
    ``--task regression``.)"""
    import numpy as np

    if not np.all(np.mod(labels, 1) == 0):
        return
    shown = ", ".join(f"{float(label):g}" for label in labels[:5])
    more = ", …" if len(labels) > 5 else ""
    raise ValueError(
        f"{source}: --task binary, but the labels are {shown}{more} ({len(labels)} of them): "
        "use --task multiclass"
    )


def _refuse_real_labels(source: str, y, resumed: str | None) -> None:
    """A classifier's labels are integers: a real-valued one is an error naming the input
    (the estimators, used by ``--resume``, ``--shuffle``, ``--passes`` and the kernel
    algorithms, would say scikit-learn's 'Unknown label type: continuous')."""
    import numpy as np

    real = y[np.mod(y, 1) != 0]
    if real.shape[0]:
        remedy = (
            f"{resumed} is a classifier"
            if resumed
            else "use --task regression for real-valued targets"
        )
        raise ValueError(
            f"{source}: label {float(real[0]):g} is not a class label (an integer); {remedy}"
        )


def _task_of(labels) -> str:
    """regression for non-integer labels (or more than 256 distinct ones), binary for at most
    two, multiclass otherwise."""
    import numpy as np

    values = distinct(labels)
    if len(values) > 256 or not np.all(np.mod(values, 1) == 0):
        return "regression"
    return "binary" if len(values) <= 2 else "multiclass"


def _new_model(algorithm, task: str, hyper: dict, args, *, headless: bool = True):
    """The model to train for ``task``: a headless model (``olearn.estimators._headless``:
    the estimator's state without scikit-learn, whose import would dominate a small job)
    when the estimator has one and ``headless`` allows it, else the estimator itself.
    Parameters: the estimator's defaults, then those the algorithm's name fixes, then the
    options given."""
    from olearn.cli.algorithms import catalogue, check_parameters, resolve

    path = algorithm.dotted(task)
    entry = catalogue().get(path) if path else None
    if entry is None:
        return _estimator(resolve(algorithm.name, task), {**algorithm.fixed, **hyper}, args)
    name = path.rpartition(".")[2]
    unknown = sorted(set(hyper) - set(entry["init"]))
    if unknown:
        raise ValueError(f"{name} has no parameter {', '.join('--' + u for u in unknown)}")
    given = {k: v for k, v in algorithm.fixed.items() if k in entry["init"]}
    given.update(hyper)
    check_parameters(path, given)
    if entry["headless"] is not None and not args.shuffle and headless:
        from olearn.estimators._headless import headless_model

        params = {**entry["init"], **given}
        if args.random_state is not None:
            params["random_state"] = args.random_state
        model = headless_model(path, params)
        if model is not None:
            return model
    return _estimator(resolve(algorithm.name, task), given, args)


def _estimator(cls, hyper, args):
    import inspect

    accepted = set(inspect.signature(cls.__init__).parameters)
    unknown = sorted(set(hyper) - accepted)
    if unknown:
        raise ValueError(f"{cls.__name__} has no parameter {', '.join('--' + u for u in unknown)}")
    params = dict(hyper)
    if "shuffle" in accepted:
        params["shuffle"] = bool(args.shuffle)
    elif args.shuffle:
        raise ValueError(f"{cls.__name__} cannot shuffle")
    if "random_state" in accepted and args.random_state is not None:
        params["random_state"] = args.random_state
    return cls(**params)


def _fit_options(model, classes) -> dict:
    from sklearn.base import is_classifier

    if classes is not None and is_classifier(model) and not hasattr(model, "classes_"):
        return {"classes": classes}
    return {}


def _accepts_sample_weight(model) -> bool:
    import inspect

    return "sample_weight" in inspect.signature(model.partial_fit).parameters


def _progress_bar(args, paths, streams):
    if args.quiet or not sys.stderr.isatty() or streams:
        return None
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    import os

    total = 0
    for path in paths:
        with open(path, "rb") as handle:
            head = handle.read(6)
        if head.startswith((b"\x1f\x8b", b"BZh", b"\xfd7zXZ")):
            total = None
            break
        total += os.path.getsize(path)
    total = total * args.passes if total is not None else None
    return tqdm(total=total, unit="B", unit_scale=True, file=sys.stderr, leave=False)


class _Counters:
    """Online statistics of this run, read from the model's counters (``stats_``)."""

    def __init__(self, model, task: str):
        self.model = model
        self.regression = task == "regression"
        self.examples = 0
        self.next_report = 1
        self.last_reported = 0
        self._start = self._read()
        self._last = self._start
        self.reporting_holdout = False
        self.holdout_sum = self.holdout_n = 0.0
        self._holdout_last = (0.0, 0.0)
        self.holdout_pass = 0

    def start_pass(self, epoch: int, holdout: bool) -> None:
        """From the second pass on, progress shows the loss on the held-out examples of
        the current pass."""
        self.reporting_holdout = holdout and epoch > 0
        if self.reporting_holdout:
            self.holdout_sum = self.holdout_n = 0.0
            self._holdout_last = (0.0, 0.0)
            self.holdout_pass = epoch + 1

    def held_out(self, model, X, y) -> None:
        """Add the loss of the held-out rows ``X, y`` (mistakes, or squared error for
        regression) under the current model."""
        if y.shape[0] == 0:
            return
        predicted = model.predict(X)
        if self.regression:
            loss = float(((predicted - y) ** 2).sum())
        else:
            loss = float((predicted != y).sum())
        self.holdout_sum += loss
        self.holdout_n += y.shape[0]

    def _read(self):
        stats = getattr(self.model, "stats_", None)
        if stats is None:
            return (0.0, 0.0, 0.0, 0.0)
        from olearn import engine

        return (
            float(stats[engine.STAT_ROUNDS]),
            float(stats[engine.STAT_MISTAKES]),
            float(stats[engine.STAT_UPDATES]),
            float(stats[engine.STAT_SQUARED_LOSS]),
        )

    def until_next_report(self) -> int:
        return self.next_report - self.examples

    def advance(self, n: int) -> None:
        self.examples += n

    def due(self) -> bool:
        return self.examples >= self.next_report

    def report(self) -> tuple:
        now = self._read()
        rounds = now[0] - self._last[0]
        total_rounds = now[0] - self._start[0]
        k = 3 if self.regression else 1
        since = (now[k] - self._last[k]) / rounds if rounds else 0.0
        overall = (now[k] - self._start[k]) / total_rounds if total_rounds else 0.0
        updates = int(now[2] - self._start[2])
        self._last = now
        held = self.reporting_holdout and self.holdout_n > 0
        if held:
            last_sum, last_n = self._holdout_last
            overall = self.holdout_sum / self.holdout_n
            new = self.holdout_n - last_n
            since = (self.holdout_sum - last_sum) / new if new else overall
            self._holdout_last = (self.holdout_sum, self.holdout_n)
        self.last_reported = self.examples
        while self.next_report <= self.examples:
            self.next_report *= 2
        return self.examples, since, overall, updates, held

    def totals(self):
        now = self._read()
        return tuple(now[k] - self._start[k] for k in range(4))


class _Printer:
    """Progress and summary on standard output. When its reader has gone (``olearn train
    ... | head -1``), training goes on silently: the model is what the command is for."""

    def __init__(self, quiet: bool):
        self.quiet = quiet
        self.bar = None

    def line(self, text: str) -> None:
        if self.quiet:
            return
        try:
            if self.bar is not None:
                self.bar.write(text, file=sys.stdout)
            else:
                print(text)
        except BrokenPipeError:
            self._reader_gone()

    def _reader_gone(self) -> None:
        import os

        # what is still buffered goes nowhere, rather than raising again at the next flush
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)
        self.quiet = True

    def header(self, model, task, width, paths) -> None:
        self.line(f"training {type(model).__name__} ({task}) on {counted(width, 'feature')}")
        measure = "squared error" if task == "regression" else "mistake rate"
        self.line(f"{'':>12} {measure:>25}")
        self.line(f"{'examples':>12} {'since last':>12} {'overall':>12} {'updates':>12}")

    def progress(self, row) -> None:
        examples, since, overall, updates, held = row
        mark = " h" if held else ""
        self.line(f"{examples:>12d} {since:>12.6f} {overall:>12.6f} {updates:>12d}{mark}")
        if not self.quiet and self.bar is None:
            try:
                sys.stdout.flush()  # a pipe reader sees progress as it happens
            except BrokenPipeError:
                self._reader_gone()

    def summary(self, counters, args, n_bad, first_bad, model, width, seconds) -> None:
        rounds, mistakes, updates, squared = counters.totals()
        self.line("")
        self.line(
            f"examples        {counters.examples} ({args.passes} pass)"
            if args.passes == 1
            else f"examples        {counters.examples} ({args.passes} passes)"
        )
        if counters.regression:
            mse = squared / rounds if rounds else 0.0
            self.line(f"squared error   {mse:.6f} (online, mean)")
        else:
            rate = mistakes / rounds if rounds else 0.0
            self.line(f"mistakes        {int(mistakes)} ({rate:.6f} online)")
        self.line(f"updates         {int(updates)}")
        if counters.holdout_n:
            measure = "squared error" if counters.regression else "mistake rate"
            self.line(
                f"held-out        {counters.holdout_sum / counters.holdout_n:.6f} ({measure}, "
                f"pass {counters.holdout_pass}, every {HOLDOUT_PERIOD}th example; h lines)"
            )
        if args.skip_bad_lines:
            self.line(f"bad lines       {n_bad} skipped")
            if first_bad is not None:
                self.line(f"first bad line  {first_bad}")
        features = counted(width, "feature")
        self.line(f"model           {args.output} ({type(model).__name__}, {features})")
        self.line(f"time            {seconds:.2f} s")
