"""The driver of a distributed fit: the pre-pass, the rounds, the mixing, the checkpoints."""

from __future__ import annotations

import os
import time
import uuid
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

from olearn import _layout
from olearn.distributed import _models, _sources
from olearn.estimators._state import warn_not_learned
from olearn.estimators._validation import attributes_restored_on_error
from olearn.io import BadLineError

#: Bytes of text input per block (``dask.bytes.read_bytes``' blocksize), by default.
DEFAULT_BLOCKSIZE = 32 << 20


@dataclass(frozen=True)
class RoundReport:
    """One round, as ``fit``'s ``progress`` callback receives it.

    ``round`` counts from 1 to ``n_rounds``, over ``n_partitions`` partitions. ``examples``,
    ``mistakes`` and ``updates`` are the round's online counts summed over the shards (each
    shard predicts before it learns: progressive validation), ``not_learned``
    its rows not learned (a confidence or step that overflows: ``fit`` warns of them, as
    sequential training does); ``seconds`` the round's wall-clock time and
    ``driver_seconds`` the part the driver spends on its own (broadcasting the state,
    mixing, checkpointing; the rest is the workers' passes and the transfer of their
    states): the sum of ``broadcast_seconds``, ``mix_seconds`` and ``checkpoint_seconds``.
    ``squared_loss`` sums the online squared errors of a regressor's round (0 for the
    sequence tagger)."""

    round: int
    n_rounds: int
    n_partitions: int
    examples: int
    mistakes: int
    updates: int
    squared_loss: float
    not_learned: int
    seconds: float
    driver_seconds: float
    mix_seconds: float
    broadcast_seconds: float
    checkpoint_seconds: float


def fit(
    estimator,
    data,
    y=None,
    *,
    client=None,
    n_rounds: int = 3,
    mixing: str = "auto",
    n_partitions: int | None = None,
    blocksize: int | str = DEFAULT_BLOCKSIZE,
    reader: dict | None = None,
    classes=None,
    checkpoint: str | os.PathLike | None = None,
    resume: bool = False,
    warm_start: bool = False,
    metadata: dict | None = None,
    retries: int = 2,
    progress=None,
):
    """Train ``estimator`` on a Dask cluster by iterative parameter mixing; returns it fitted.

    Each round, every partition of the data runs one online pass from the shared state; the
    driver gathers the partitions' states, mixes them in partition order (deterministic) and
    broadcasts the mixed state to every worker once for the next round (McDonald, Hall, Mann,
    "Distributed training strategies for the structured perceptron", NAACL 2010). A pre-pass
    over the data first fixes the width and the label set. The result is a plain fitted
    olearn estimator (``olearn.save`` writes the same model file as sequential training), and
    one partition is sequential training bit for bit (``max_iter=n_rounds`` passes).

    Parameters
    ----------
    estimator : olearn estimator
        An olearn linear classifier or regressor (its parameters are used; a previous state
        is replaced, unless the job fails: then it is left as it was). ``max_iter`` is
        ignored: a round is one pass.
    data : Dask array or DataFrame, Dask bag of str, or list of str
        The examples: a Dask array (dense or sparse chunks) or DataFrame with labels ``y``;
        a bag of svmlight or VW-style text lines; or paths or globs of such text files (local
        or any fsspec URL; plain or compressed), cut into newline-delimited blocks of
        ``blocksize`` bytes by ``dask.bytes.read_bytes`` and parsed by olearn's readers.
    y : Dask array or Series, array-like, or str, optional
        The labels of an array or DataFrame (for a DataFrame, also the name of its label
        column).
    client : dask.distributed.Client, optional
        Default: the current client (``distributed.get_client()``).
    n_rounds : int, default=3
        Rounds (passes over the data).
    mixing : str, default="auto"
        How the states are mixed: "auto", "seen", "changed", "uniform", "updates",
        "precision" or "summed" (``docs/distributed.md`` derives each rule). First-order
        models: "seen" (each weight averaged over the shards weighted by how much of its
        feature each saw, ``Σ x_j²`` over its rows; the default), "changed" (averaged over
        the shards that changed it), "uniform" or "updates" (weighted by each shard's
        updates in the round).
        Second-order models: "precision" (Σ⁻¹ = Σ λᵢΣᵢ⁻¹, μ = Σ(Σ λᵢΣᵢ⁻¹μᵢ); the default
        for classifiers), "summed" (every shard's information added once; the default for
        regressors, exact for full AROW regression), or "uniform"/"updates" (averaged means).
    n_partitions : int, optional
        Shards mixed each round; consecutive blocks form a partition, learned in order.
        Default: the cluster's worker threads (at most the number of blocks; text input is
        cut finer when needed). Give it to make the result independent of the cluster.
    blocksize : int or str, default=32 MiB
        Bytes of text per block: a task holds one block and its parsed rows.
    reader : dict, optional
        The text format: ``format`` ("svmlight" or "vw"; sniffed by default), and
        ``n_features``, ``zero_based`` (svmlight) or ``bits``, ``ngrams``, ``quadratic``
        (VW-style), as :class:`olearn.io.SvmlightReader` and :class:`olearn.io.VWReader`.
    classes : array-like, optional
        The label set (skips collecting it in the pre-pass; needed for text input with more
        than 256 distinct class labels).
    checkpoint : path, optional
        Written atomically with ``olearn.save`` after every round (its metadata records the
        rounds done).
    resume : bool, default=False
        Continue from ``checkpoint`` if it exists (same estimator class and parameters,
        same data and partitioning) up to ``n_rounds`` rounds in all: the model is the one
        the uninterrupted job gives.
    warm_start : bool, default=False
        Continue from the estimator's fitted state (``n_rounds`` more rounds, no pre-pass:
        the data must fit its width and labels) instead of starting afresh.
    metadata : dict, optional
        Extra JSON metadata for the checkpoint.
    retries : int, default=2
        Times a round is run again when the cluster loses its inputs (every worker holding
        the broadcast state died). A worker dying mid-round otherwise costs only a retry of
        its tasks, which Dask schedules elsewhere.
    progress : callable, optional
        Called with a :class:`RoundReport` after every round.

    Returns
    -------
    estimator
        ``estimator``, fitted.
    """
    from olearn._optional import require

    require("distributed", "olearn.distributed.fit")
    from dask.utils import parse_bytes

    family = _models.family_of(estimator)
    if isinstance(n_rounds, bool) or not isinstance(n_rounds, int | np.integer) or n_rounds < 1:
        raise ValueError(f"n_rounds must be a positive integer, got {n_rounds!r}")
    if n_partitions is not None and (
        isinstance(n_partitions, bool) or not isinstance(n_partitions, int | np.integer)
        or n_partitions < 1
    ):  # fmt: skip
        raise ValueError(f"n_partitions must be a positive integer, got {n_partitions!r}")
    if isinstance(retries, bool) or not isinstance(retries, int | np.integer) or retries < 0:
        raise ValueError(f"retries must be a nonnegative integer, got {retries!r}")
    family.check_mixing(mixing)
    blocksize = parse_bytes(blocksize) if isinstance(blocksize, str) else int(blocksize)
    if blocksize < 1:
        raise ValueError(f"blocksize must be positive, got {blocksize}")
    if resume and checkpoint is None:
        raise ValueError("resume=True needs the checkpoint to resume from")
    if checkpoint is not None:
        _check_checkpoint(checkpoint, metadata)
    client = _client(client)
    source = _sources.source_of(
        data, y, reader=reader, blocksize=blocksize, n_partitions=n_partitions,
        sentences=family.sentences,
    )  # fmt: skip
    n_parts = n_partitions or max(1, sum(client.nthreads().values()))
    n_parts = min(n_parts, len(source.blocks)) if n_partitions is None else n_parts
    if n_parts > len(source.blocks):
        raise ValueError(
            f"n_partitions={n_parts} but the data has {len(source.blocks)} blocks: rechunk "
            "it, or use a smaller blocksize"
        )
    partitions = [p.tolist() for p in np.array_split(np.arange(len(source.blocks)), n_parts)]

    # A failed job leaves the estimator as it was, as a failed sequential fit does (the
    # rounds replace its arrays, never write into them); a checkpoint stays to resume.
    with attributes_restored_on_error(estimator), in_file_lines(client, source):
        done = 0
        first = 0  # the rounds before this call (shuffling seeds follow the round's number)
        if resume and os.path.exists(checkpoint):
            done = _resume(family, checkpoint, n_parts, mixing)
            # the rounds before the job (a warm start's): the model's n_iter_ counts them too
            first = int(getattr(family.model, "n_iter_", done) or 0) - done
            _read_as_fitted(client, source, family.model)
            _feature_names(family.model, source, reset=False)
        elif warm_start and family.fitted:
            first = int(getattr(family.model, "n_iter_", 0) or 0)
            _read_as_fitted(client, source, family.model)
            _feature_names(family.model, source, reset=False)
        else:
            width, labels = _prepass(client, source, family, classes)
            sample = _first_rows(client, source) if family.needs_sample else None
            family.begin(width, labels, sample)
            _feature_names(family.model, source, reset=True)
        job = uuid.uuid4().hex[:12]
        seed = _shuffle_seed(family.model)
        total_not_learned = 0
        for r in range(done, n_rounds):
            started = time.perf_counter()
            template = family.template(mixing)  # "seen": the sums of squares in the first round
            start = family.state()
            states, broadcast_seconds = _round(
                client, source, partitions, template, start, (job, first + r), seed, retries
            )
            mixed_at = time.perf_counter()
            mixed = family.merge(states, start, mixing)
            not_learned = family.not_learned(states)
            total_not_learned += not_learned
            family.set_state(mixed, first + r + 1)
            mix_seconds = time.perf_counter() - mixed_at
            checkpoint_seconds = 0.0
            if checkpoint is not None:
                saved_at = time.perf_counter()
                _save_checkpoint(family, checkpoint, r + 1, n_rounds, n_parts, mixing, metadata)
                checkpoint_seconds = time.perf_counter() - saved_at
            if progress is not None:
                delta = (
                    family.state()[3 if family.sentences else -1]
                    - start[3 if family.sentences else -1]
                )
                seconds = time.perf_counter() - started
                progress(
                    RoundReport(
                        round=r + 1,
                        n_rounds=n_rounds,
                        n_partitions=n_parts,
                        examples=int(delta[_layout.STAT_ROUNDS]),
                        mistakes=int(delta[_layout.STAT_MISTAKES]),
                        updates=int(delta[_layout.STAT_UPDATES]),
                        squared_loss=0.0
                        if family.sentences
                        else float(delta[_layout.STAT_SQUARED_LOSS]),
                        not_learned=not_learned,
                        seconds=seconds,
                        driver_seconds=broadcast_seconds + mix_seconds + checkpoint_seconds,
                        mix_seconds=mix_seconds,
                        broadcast_seconds=broadcast_seconds,
                        checkpoint_seconds=checkpoint_seconds,
                    )
                )
    warn_not_learned(total_not_learned)
    return estimator


@dataclass(frozen=True)
class Scan:
    """What the pre-pass learns (``scan``): the examples (``n_examples``), the width
    (``n_features``), the sorted distinct ``labels`` (None for text input with more than 256),
    and the text format with its index base and width decided (``reader``, the reader's
    options)."""

    n_examples: int
    n_features: int
    labels: np.ndarray | None
    reader: dict


def scan(data, y=None, *, client=None, reader=None, blocksize=DEFAULT_BLOCKSIZE) -> Scan:
    """The pre-pass of :func:`fit` alone, one light task per block (for svmlight text, the
    readers' scan of indices and labels; labels of arrays are collected exactly).

    ``data``, ``y``, ``client``, ``reader`` and ``blocksize`` are as for :func:`fit`.
    """
    from olearn._optional import require

    require("distributed", "olearn.distributed.scan")
    from dask.utils import parse_bytes

    blocksize = parse_bytes(blocksize) if isinstance(blocksize, str) else int(blocksize)
    client = _client(client)
    source = _sources.source_of(data, y, reader=reader, blocksize=blocksize, n_partitions=None)
    n, width, labels = _summaries(client, source, True)
    return Scan(n, width, labels, dict(source.reader))


def _summaries(client, source, want_labels):
    import dask

    summary = dask.delayed(_sources.block_summary, pure=True)
    # an array's pre-pass reads its labels only
    blocks = [b[1] for b in source.blocks] if source.kind == "array" else source.blocks
    tasks = [
        summary(source.kind, block, source.reader, name, want_labels)
        for block, name in zip(blocks, source.names, strict=True)
    ]
    return _sources.combine_summaries(source, client.gather(client.compute(tasks)), want_labels)


def _feature_names(model, source, *, reset: bool) -> None:
    """``feature_names_in_`` as ``fit`` on a pandas DataFrame keeps it: recorded from a Dask
    DataFrame's columns on a fresh fit (and dropped for other data), checked against them
    when training goes on (scikit-learn's error for other names, its warning for none)."""
    from sklearn.utils.validation import _check_feature_names

    if not hasattr(model, "n_features_in_"):  # the tagger: features are hashed tokens
        return
    if source.columns is not None:
        _check_feature_names(model, source.columns, reset=reset)
    elif reset:
        model.__dict__.pop("feature_names_in_", None)
    elif "feature_names_in_" in model.__dict__ and source.kind == "array":
        _check_feature_names(model, np.empty((0, model.n_features_in_)), reset=False)


def _read_as_fitted(client, source, model) -> None:
    """Read the data of a fitted model (warm start, resume) at its width: svmlight text with
    the model's width and the index base decided as for the first fit (on the whole data; a
    block's own guess read a block without index 0 one-based, shifting its features), and
    any other width an error (the compiled loop would have written beyond the model's
    arrays)."""
    width = getattr(model, "n_features_in_", None)
    if width is None:  # the tagger: its width is its n_bits
        return
    if source.kind in ("text", "lines") and source.reader["format"] == "svmlight":
        given = source.reader.get("n_features")
        if source.reader.get("zero_based") is None:
            _summaries(client, source, False)  # (sets the data's width: the model's wins)
        source.reader["n_features"] = int(width if given is None else given)
    given = source.reader.get("n_features") if source.width is None else source.width
    if given is not None and int(given) != int(width):
        raise ValueError(
            f"the data has {given} features but the model has {width}: continue training "
            "on data of the model's width"
        )


@contextmanager
def in_file_lines(client, source):
    """A malformed line named as in its file. A task parses one block of a text file and
    numbers its lines from the block's start (``a.svm (block 3 of 4):97``); the lines of the
    file's blocks before it are counted then, on the workers (only on such an error, a read
    of those blocks), and the error is raised again at the file's line (``a.svm:2097``), as
    ``olearn train`` names it."""
    try:
        yield
    except BadLineError as error:
        if source.files is None or error.source not in source.names:
            raise
        import dask

        b = source.names.index(error.source)
        shown, first = source.files[b]
        count = dask.delayed(_sources.count_lines, pure=True)
        before = client.compute([count(block) for block in source.blocks[first:b]])
        line = error.line + sum(client.gather(before))
        raise BadLineError(shown, line, error.code, error.token, error.detail) from None


def _client(client):
    if client is not None:
        return client
    from distributed import get_client

    try:
        return get_client()
    except ValueError:
        raise ValueError(
            "olearn.distributed.fit needs a Dask client: pass client=Client(...) or create one "
            "first (e.g. Client(LocalCluster()))"
        ) from None


def _prepass(client, source, family, classes):
    """Width and label set (sorted) of the data, from one light task per block."""
    want_labels = family.classifies and classes is None
    undecided = (
        source.kind in ("text", "lines")
        and source.reader["format"] == "svmlight"
        and (source.reader.get("zero_based") is None)
    )
    if source.width is not None and not want_labels and not undecided:
        return source.width, _classes(classes)
    _, width, labels = _summaries(client, source, want_labels)
    if not family.classifies:
        return width, None
    if classes is not None:
        return width, _classes(classes)
    if labels is None:
        raise ValueError(
            f"the data has more than {_sources.MAX_LABELS} distinct labels: pass classes= "
            "(or train a regressor)"
        )
    return width, labels


def _first_rows(client, source):
    """The first part of the first block's rows (computed on a worker), skipping empty blocks
    (a filtered Dask array's first chunk can hold none)."""
    import dask

    first = dask.delayed(_sources.first_rows, pure=True)
    for b, (block, name) in enumerate(zip(source.blocks, source.names, strict=True)):
        rows = client.compute(
            first(source.kind, block, source.reader, name, _first_row(source, b))
        ).result()
        if rows is not None and rows[3].shape[0]:
            return rows
    raise ValueError("the data holds no examples")


def _classes(classes):
    return None if classes is None else np.unique(np.asarray(classes))


def _shuffle_seed(model):
    """The entropy of the shuffling (rounds and blocks add their indices), or None."""
    if not getattr(model, "shuffle", False):
        return None
    state = getattr(model, "random_state", None)
    if isinstance(state, int | np.integer):
        return (int(state),)
    rng = state if isinstance(state, np.random.RandomState) else np.random.RandomState(None)
    return (int(rng.randint(2**31 - 1)),)


def _round(client, source, partitions, template, start, tag, seed, retries):
    """Every partition's pass from ``start``: their states in partition order, and the
    seconds spent broadcasting ``start``."""
    import dask
    from distributed import CancelledError
    from distributed.client import FutureCancelledError

    job, r = tag
    learn = dask.delayed(_learn_block, pure=True)
    for attempt in range(retries + 1):
        sent_at = time.perf_counter()
        # once per worker; a list holds the one object (the tuple stays a tuple)
        [state] = client.scatter([start], broadcast=True, hash=False)
        broadcast_seconds = time.perf_counter() - sent_at
        finals = []
        for blocks in partitions:
            previous = None
            for b in blocks:
                block_seed = None if seed is None else (*seed, r, b)
                previous = learn(
                    template,
                    state,
                    previous,
                    source.kind,
                    source.blocks[b],
                    source.reader,
                    source.names[b],
                    _first_row(source, b),
                    block_seed,
                    dask_key_name=f"olearn-learn-{job}-{r}-{attempt}-{b}",
                )
            finals.append(previous)
        futures = client.compute(finals)
        try:
            return client.gather(futures), broadcast_seconds
        except (CancelledError, FutureCancelledError):
            # the broadcast state was lost with every worker that held it: send it again
            if attempt == retries:
                raise
        finally:
            client.cancel(futures)
            client.cancel([state])
    raise AssertionError("unreachable")


def _first_row(source, b: int) -> int | None:
    return None if source.offsets is None else source.offsets[b]


def _learn_block(template, start, previous, kind, block, reader, name, first_row, seed):
    """A task: one pass over a block from the round's ``start`` (the first of a partition)
    or from the ``previous`` block's result; that result for this block."""
    if isinstance(block, _sources._Read):
        block = block()
    if template["family"] == "tagger":
        try:
            return _models.learn_sentences(template, start, previous, block, seed)
        except ValueError as error:  # the sentence's number is within the partition
            raise ValueError(f"{name}: {error}") from None
    rows = _sources.block_rows(kind, block, reader, name, first_row)
    rows = _sources.within(rows, template["fitted"]["n_features_in_"], name)
    return _models.learn_rows(template, start if previous is None else previous, rows, seed)


# -- checkpoints ------------------------------------------------------------------------------


def _check_checkpoint(path, metadata) -> None:
    """Fail before any work where the first round's checkpoint could not be written (its
    folder, its metadata), not after the round."""
    import json

    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise ValueError(f"checkpoint {path}: folder {folder} does not exist")
    try:
        json.dumps(metadata or {}, allow_nan=False)
    except (TypeError, ValueError) as error:
        raise TypeError(f"model file metadata must be plain JSON: {error}") from None


def _save_checkpoint(family, path, rounds_done, n_rounds, n_parts, mixing, metadata):
    from olearn.io.model_file import save

    info = dict(metadata or {})
    info["distributed"] = {
        "rounds_done": rounds_done,
        "n_rounds": n_rounds,
        "n_partitions": n_parts,
        "mixing": mixing,
    }
    save(family.model, path, metadata=info)


def _resume(family, path, n_parts, mixing) -> int:
    """Put the checkpoint's state into the family's model; the rounds it has done."""
    from olearn.io.model_file import load, read_model_header

    info = read_model_header(path).get("metadata", {}).get("distributed")
    if not isinstance(info, dict) or "rounds_done" not in info:
        raise ValueError(f"{path}: not a checkpoint of olearn.distributed.fit")
    saved = load(path)
    model = family.model
    name = type(model).__name__
    if type(saved).__name__ != name:
        raise ValueError(f"{path} holds a {type(saved).__name__}, not a {name}")
    ours, theirs = model.get_params(deep=False), saved.get_params(deep=False)
    different = sorted(k for k in ours if k in theirs and ours[k] != theirs[k])
    seed = ours.get("random_state")
    if "random_state" in different and not (seed is None or isinstance(seed, int | np.integer)):
        raise ValueError(
            f"{path}: a checkpoint records random_state as an int or None, not as "
            f"{type(seed).__name__}: start the job with an int random_state to resume it"
        )
    if different:
        raise ValueError(
            f"{path} was trained with other parameters ({', '.join(different)}): resume with "
            "the same estimator"
        )
    if info.get("mixing", mixing) != mixing:  # (the rounds left would mix otherwise)
        raise ValueError(
            f"{path} was trained with mixing={info['mixing']!r}, not {mixing!r}: resume "
            "with the same mixing"
        )
    if info.get("n_partitions") != n_parts:
        raise ValueError(
            f"{path} was trained on {info.get('n_partitions')} partitions, not {n_parts}: "
            "resume with the same n_partitions"
        )
    # every attribute but the (equal) parameters: a kernel model's expansion is private
    params = saved.get_params(deep=False)
    for key, value in vars(saved).items():
        if key not in params:
            setattr(model, key, value)
    configure = getattr(model, "_configure", None)  # (the tagger derives nothing)
    if callable(configure):
        configure()
    return int(info["rounds_done"])
