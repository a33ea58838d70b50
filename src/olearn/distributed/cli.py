"""``olearn train ... --dask CLUSTER``: the command line's distributed training.

``--dask local[:N]`` starts a ``LocalCluster`` of N single-threaded worker processes on this
machine (default: one per core; loopback only), ``--dask tcp://host:8786`` connects to a
running scheduler (whose workers must see the same files). ``--passes`` rounds of iterative
parameter mixing train the model, which is written to MODEL after every round (atomically, a
checkpoint: its metadata records the rounds done). ``--resume MODEL`` then finishes an
interrupted job (the remaining rounds of the ``--passes`` it was started with), or trains a
finished model ``--passes`` more rounds. The model file is the one sequential training writes.
Every example is learned from: the hold-out of multi-pass training (``--holdout-off``) does
not apply to ``--dask``.
"""

from __future__ import annotations

import argparse
import os
import time

from olearn.distributed import MIXING

#: The options this module adds to ``olearn train`` that take a value.
VALUE_OPTIONS = ("--dask", "--mixing", "--partitions")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group(
        "distributed training (Dask: pip install 'olearn[distributed]')"
    )
    group.add_argument(
        "--dask",
        metavar="CLUSTER",
        help="train on a Dask cluster by iterative parameter mixing, --passes rounds: local[:N] "
        "(N worker processes here; default one per core) or a scheduler address "
        "(tcp://host:8786)",
    )
    group.add_argument(
        "--mixing",
        choices=MIXING,
        help="with --dask: how the partitions' models mix (default auto: seen for "
        "first-order models, precision for second-order classifiers, summed for regressors; "
        "an interrupted job resumes with its own)",
    )
    group.add_argument(
        "--partitions",
        type=int,
        metavar="N",
        help="with --dask: models mixed each round (default: the workers' threads)",
    )


def train(args, algorithm, hyper: dict, started: float) -> int:
    """``olearn train`` with ``--dask`` (arguments checked by ``olearn.cli.train.run``)."""
    from olearn._optional import require

    require("distributed", "olearn train --dask")
    if args.skip_bad_lines:
        raise ValueError("--skip-bad-lines is not supported with --dask")
    if "-" in args.data:
        raise ValueError("--dask reads files (its workers cannot read standard input)")
    if args.partitions is not None and args.partitions < 1:
        raise ValueError(f"--partitions must be at least 1, got {args.partitions}")
    client = cluster = None
    try:
        client, cluster = connect(args.dask)
        return _train(args, algorithm, hyper, list(args.data), client, started)
    finally:
        if client is not None:
            client.close()
        if cluster is not None:
            cluster.close()


def connect(address: str):
    """``(client, cluster)`` for ``--dask``: a new LocalCluster for ``local[:N]`` (closed by
    the caller), else a client of the scheduler at ``address`` (cluster None)."""
    from distributed import Client, LocalCluster

    if address == "local" or address.startswith("local:"):
        count = address.partition(":")[2]
        if count and not (count.isdigit() and int(count) >= 1):
            raise ValueError(f"--dask local:N needs a positive number of workers, got {count!r}")
        n = int(count) if count else os.cpu_count() or 1
        cluster = LocalCluster(
            n_workers=n,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address="127.0.0.1:0",
            worker_dashboard_address="127.0.0.1:0",
        )
        return Client(cluster), cluster
    try:
        return Client(address, timeout="30s"), None
    except OSError as error:
        raise ValueError(f"--dask {address}: cannot reach the scheduler: {error}") from None


def _train(args, algorithm, hyper, paths, client, started) -> int:
    import olearn
    from olearn.cli import train as cli_train
    from olearn.cli._data import counted, input_spec, sniff_format
    from olearn.distributed import _fit

    say = (lambda text: None) if args.quiet else print
    rounds = args.passes
    resume_job = False
    n_parts = args.partitions
    mixing = args.mixing
    if args.resume:
        model, spec, task = cli_train._resumed(args, algorithm, hyper)
        info = olearn.io.read_model_header(args.resume).get("metadata", {}).get("distributed")
        if isinstance(info, dict) and info.get("rounds_done", 0) < info.get("n_rounds", 0):
            resume_job = True
            rounds = int(info["n_rounds"])
            if n_parts is None:  # the job's, whatever the cluster it resumes on
                n_parts = info.get("n_partitions")
            if mixing is None:
                mixing = info.get("mixing")
            if os.path.abspath(args.output) != os.path.abspath(args.resume):
                raise ValueError(
                    f"{args.resume} is an interrupted --dask job: finish it with -o {args.resume}"
                )
        reader = dict(spec)
        if reader["format"] == "svmlight":
            reader["n_features"] = int(model.n_features_in_)
        classes = None
    else:
        spec = input_spec(args, paths, sniff_format)
        reader = dict(spec)
        found = _fit.scan(paths, client=client, reader=reader, blocksize=_fit.DEFAULT_BLOCKSIZE)
        reader = dict(found.reader)
        labels = found.labels
        task = args.task or ("regression" if labels is None else cli_train._task_of(labels))
        classes = None if task == "regression" else labels
        if classes is None and task != "regression":
            raise ValueError("more than 256 distinct labels: use --task regression")
        model = cli_train._new_model(algorithm, task, hyper, args)
    width = int(reader.get("n_features") or (1 << reader["bits"]))
    workers = client.nthreads()
    n_parts = n_parts or max(1, sum(workers.values()))
    say(f"training {type(model).__name__} ({task}) on {counted(width, 'feature')}: "
        f"{counted(rounds, 'round')}, {counted(n_parts, 'partition')}, "
        f"{counted(len(workers), 'Dask worker')}")  # fmt: skip
    measure = "squared error" if task == "regression" else "mistake rate"
    say(f"{'round':>6} {'examples':>12} {measure:>14} {'updates':>10} {'seconds':>9}")
    totals = {"examples": 0, "mistakes": 0, "updates": 0, "squared": 0.0}

    def progress(report):
        totals["examples"] += report.examples
        totals["mistakes"] += report.mistakes
        totals["updates"] += report.updates
        totals["squared"] += report.squared_loss
        rate = (report.squared_loss if task == "regression" else report.mistakes) / max(
            1, report.examples
        )
        say(f"{report.round:>6d} {report.examples:>12d} {rate:>14.6f} {report.updates:>10d} "
            f"{report.seconds:>9.2f}")  # fmt: skip

    metadata = {
        "algorithm": algorithm.name,
        "task": task,
        "input": reader,
        "trained_on": [str(p) for p in args.data],
        "passes": rounds,
        "bad_lines_skipped": 0,
    }
    _fit.fit(
        model,
        paths,
        client=client,
        n_rounds=rounds,
        mixing=mixing or "auto",
        n_partitions=n_parts,
        reader=reader,
        classes=classes,
        checkpoint=args.output,
        resume=resume_job,
        warm_start=args.resume is not None and not resume_job,
        metadata=metadata,
        progress=progress,
    )
    say("")
    say(f"examples        {totals['examples']} ({counted(rounds, 'round')})")
    if task == "regression":
        say(f"squared error   {totals['squared'] / max(1, totals['examples']):.6f} (online, mean)")
    else:
        rate = totals["mistakes"] / max(1, totals["examples"])
        say(f"mistakes        {totals['mistakes']} ({rate:.6f} online)")
    say(f"updates         {totals['updates']}")
    say(f"model           {args.output} ({type(model).__name__}, {width} features)")
    say(f"time            {time.perf_counter() - started:.2f} s")
    return 0
