"""The learning service: one writer thread owns the model, the log and the checkpoints.

Requests are queued (a bounded queue: full means 503) and taken by the writer in arrival
order. A run of learn requests is a *group*: each gets the next sequence number, all are
written to the log with one ``fdatasync``, then learned with one ``partial_fit`` over their
rows, then acknowledged. Predictions run on the writer between groups, so they see every
request acknowledged before them; with ``predict_from="snapshot"`` they run in the caller's
thread on a copy of the model that the writer refreshes every ``snapshot_seconds``.

A log folder holds ``checkpoint.olm`` (a model file written atomically by :func:`olearn.save`;
its metadata says which sequence number it includes and which idempotency keys it has seen)
and the log segments of the requests after it. Starting on a folder loads the checkpoint and
learns the logged requests again, grouped as they were learned, so the model is the one that
the stopped service had, bit for bit.
"""

from __future__ import annotations

import asyncio
import copy
import fcntl
import hashlib
import json
import math
import os
import queue
import sys
import threading
import time
import warnings
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from olearn.cli._data import stored_input
from olearn.exceptions import NotLearnedWarning
from olearn.serve import records
from olearn.serve.examples import Batch, ExampleParser, RequestError, concatenate
from olearn.serve.wal import LogError, WriteAheadLog

CHECKPOINT = "checkpoint.olm"
#: Jobs the writer takes from the queue at once (one group at most this many requests).
MAX_GROUP_REQUESTS = 1024


class ServiceError(ValueError):
    """The service cannot start: a clear one-line message."""


@dataclass
class Options:
    """How the service runs (the command's options).

    checkpoint_every : checkpoint after this many examples learned (None: not by count).
    checkpoint_seconds : checkpoint this often when something was learned (None: not by time).
    predict_from : "writer" (predictions see every acknowledged request) or "snapshot".
    snapshot_seconds : how often the writer refreshes the snapshot.
    queue_size : requests waiting for the writer at most (more: 503).
    max_rows : examples in one request at most (more: 413).
    idempotency_keys : how many recent idempotency keys are remembered.
    """

    checkpoint_every: int | None = None
    checkpoint_seconds: float | None = None
    predict_from: str = "writer"
    snapshot_seconds: float = 1.0
    queue_size: int = 1024
    max_rows: int = 10_000
    idempotency_keys: int = 100_000


class _Job:
    __slots__ = ("kind", "batch", "key", "digest", "output", "single", "loop", "future")

    def __init__(self, kind, batch=None, key=None, digest=0, output="label", single=False):
        self.kind = kind
        self.batch = batch
        self.key = key
        self.digest = digest
        self.output = output
        self.single = single
        self.loop = None
        self.future = None


def _key_id(key: str) -> str:
    """What the service keeps of an Idempotency-Key: 32 hex digits, whatever the key (up to
    200 characters, which JSON may escape twice in a checkpoint's header: 100,000 of them
    made a header larger than a model file holds, and the service could not restart)."""
    return hashlib.blake2b(key.encode(), digest_size=16).hexdigest()


def _file_digest(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _json_value(value):
    """A label or number as JSON: integral floats as integers (as the command prints them)."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return int(value)
    return value


def check_model(model) -> None:
    """The models the service can run: fitted classifiers and regressors of feature vectors."""
    from sklearn.base import is_classifier, is_regressor

    name = type(model).__name__
    if not (is_classifier(model) or is_regressor(model)) or not hasattr(model, "partial_fit"):
        raise ServiceError(f"olearn serve runs classifiers and regressors; {name} is neither")
    if name in ("JointFeatureClassifier", "SequenceTagger", "UniclassPA"):
        raise ServiceError(
            f"olearn serve runs classifiers and regressors of feature vectors, not {name}"
        )
    if getattr(model, "_task", None) in ("multilabel",) or getattr(model, "_task", "").startswith(
        "cost"
    ):
        raise ServiceError(f"olearn serve does not run {model._task} models")


class LearningService:
    """A model, its log folder and the writer thread.

    ``LearningService(model_path, log_dir, options)``, then :meth:`start` (loads the model or
    the folder's checkpoint and replays the log), then the async methods :meth:`learn`,
    :meth:`predict`, :meth:`checkpoint` from an event loop, and :meth:`stop`.
    """

    def __init__(self, model_path, log_dir, options: Options | None = None):
        self.model_path = Path(model_path)
        self.log_dir = Path(log_dir)
        self.options = options or Options()
        self.model = None
        self.parser: ExampleParser | None = None
        self.spec: dict = {}
        self._metadata: dict = {}
        self._origin = ""
        self._keys: OrderedDict[str, tuple[int, int, int]] = OrderedDict()
        # SimpleQueue (C) costs a fraction of Queue per request; its bound is checked here.
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._wal = WriteAheadLog(self.log_dir)
        self._lock_fd: int | None = None
        self.snapshot = None
        self.snapshot_seq = 0
        self.failed: str | None = None
        self.counters = {
            "seq": 0,  # last sequence number learned
            "checkpoint_seq": 0,
            "examples_learned": 0,  # by this service (since it started, replay included)
            "requests_learned": 0,
            "requests_replayed": 0,
            "duplicates": 0,
            "predictions": 0,
            "checkpoints": 0,
            "rejected_queue_full": 0,
            "failed_checkpoints": 0,
        }
        self._since_checkpoint = 0
        self._last_checkpoint = time.monotonic()
        self._last_snapshot = 0.0
        self.started = time.time()

    # -- start and stop ----------------------------------------------------------------------

    def start(self) -> None:
        from olearn.io.model_file import read_model_header

        if not self.model_path.is_file():  # (before the log folder is made for it)
            raise ServiceError(f"{self.model_path}: no such model file")
        try:  # a file that is not a model file, too
            read_model_header(self.model_path)
        except ValueError as error:
            raise ServiceError(str(error)) from None
        self.log_dir.mkdir(parents=True, exist_ok=True)
        self._lock()
        try:
            self._start()
        except BaseException:  # the folder is free again (for a start with another model)
            self._wal.close()
            os.close(self._lock_fd)
            self._lock_fd = None
            raise

    def _start(self) -> None:
        import olearn

        checkpoint = self.log_dir / CHECKPOINT
        self._origin = _file_digest(self.model_path)
        if checkpoint.exists():
            metadata = _metadata_of(checkpoint)
            state = metadata.get("serve") or {}
            if state.get("origin") != self._origin:
                raise ServiceError(
                    f"{self.log_dir} continues the model started from "
                    f"{state.get('model', 'another file')}, not {self.model_path}: give that "
                    "model, or another --log folder"
                )
            self.model = olearn.load(checkpoint)
            seq = int(state.get("seq", 0))
            for key, key_seq, rows, crc in json.loads(state.get("keys") or "[]"):  # (0.1)
                self._keys[_key_id(key)] = (key_seq, rows, crc)
            for key_id, key_seq, rows, crc in json.loads(state.get("key_ids") or "[]"):
                self._keys[key_id] = (key_seq, rows, crc)
            self._metadata = {k: v for k, v in metadata.items() if k != "serve"}
        else:
            if self._wal.segments():
                raise ServiceError(f"{self.log_dir} holds a log but no {CHECKPOINT}")
            self.model = olearn.load(self.model_path)
            self._metadata = _metadata_of(self.model_path)
            seq = 0
        check_model(self.model)
        try:  # the model's input description, checked as predict checks it
            self.spec = stored_input(str(self.model_path), self._metadata)
        except ValueError as error:
            raise ServiceError(str(error)) from None
        self.parser = ExampleParser(self.model, self.spec, max_rows=self.options.max_rows)
        self.counters["seq"] = self.counters["checkpoint_seq"] = seq
        try:
            self._relearn(seq)
        except LogError as error:
            raise ServiceError(str(error)) from None
        self._wal.open(self.counters["seq"] + 1)
        if not checkpoint.exists() or self.counters["requests_replayed"]:
            self._checkpoint()
        self._refresh_snapshot()
        self._warm_up()
        self._thread = threading.Thread(target=self._run, name="olearn-writer", daemon=True)
        self._thread.start()

    def _warm_up(self) -> None:
        """Compile (or load from Numba's cache) what the requests run, before the first one:
        prediction on the model, learning on a copy, the text parser."""
        empty = Batch(
            np.zeros(2, np.int64), np.zeros(0, np.int32), np.zeros(0), None, self.parser.n_features
        )
        self.model.predict_one(empty.row(0))
        self.model.predict(empty.X)
        classes = getattr(self.model, "classes_", None)
        empty.y = np.zeros(1) if classes is None else np.asarray(classes)[:1]
        copy.deepcopy(self.model).partial_fit(empty.X, empty.y)
        line = b"| a\n" if self.parser.hashed else b"1 1:1\n"
        for learn in (False, True):
            try:
                self.parser.from_text(line, learn=learn, batch=True)
            except RequestError:  # text cannot carry this model's labels (strings)
                pass

    def _lock(self) -> None:
        fd = os.open(self.log_dir / "lock", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise ServiceError(
                f"{self.log_dir} is in use by another olearn serve (one service per log folder)"
            ) from None
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self._lock_fd = fd

    def _relearn(self, after: int, upto: int | None = None, replay: bool = True) -> None:
        """Learn the logged requests after ``after`` (up to ``upto``), grouped as they were
        learned: the restart's replay (``replay``: counted and their keys remembered), or
        the model put back before a group (``_take_back``)."""
        logged = []
        voided = set()
        for payload in self._wal.records():
            try:
                record = records.decode(payload, self.parser.n_features)
            except ValueError as error:
                raise ServiceError(f"{self.log_dir}: a log record is malformed: {error}") from None
            if isinstance(record, records.VoidRecord):
                voided.add(record.seq)
            elif record.seq > after and (upto is None or record.seq <= upto):
                logged.append(record)
        i = 0
        while i < len(logged):
            j = i + 1
            while j < len(logged) and logged[j].group == logged[i].group:
                j += 1
            group = logged[i:j]
            kept = [r for r in group if r.seq not in voided]
            whole = len(kept) == len(group)
            if whole:
                try:
                    self._fit([r.batch for r in kept])
                except Exception as error:  # noqa: BLE001 - its void records were lost
                    if isinstance(error, NotLearnedWarning):
                        self._take_back(group[0].seq - 1)
                    whole = False
            if not whole:  # learned one by one, as the live service did after a failure
                for record in kept:
                    if self._fit_alone(record.batch) is not None:
                        voided.add(record.seq)
            for record in group:
                if record.seq in voided or not replay:
                    continue
                if record.key:
                    self._remember(record.key, record.seq, record.batch.n_rows, record.digest)
                self.counters["requests_replayed"] += 1
                self.counters["examples_learned"] += record.batch.n_rows
            if replay:
                self.counters["seq"] = max(self.counters["seq"], group[-1].seq)
            i = j

    def _fit(self, batches: list[Batch]) -> None:
        """One ``partial_fit`` of the batches' rows. A row that the loop could not learn (its
        confidence or step overflows float64: ``partial_fit`` warns and learns the others)
        raises NotLearnedWarning, the other rows learned: the caller takes the call back."""
        batch = concatenate(batches)
        with warnings.catch_warnings():  # (only the writer thread learns)
            warnings.simplefilter("error", NotLearnedWarning)
            self.model.partial_fit(batch.X, batch.y)

    def _fit_alone(self, batch: Batch) -> str | None:
        """Learn one request's rows, or none of them: None, or why not."""
        before = copy.deepcopy(self.model)  # (after a group failed only: rare)
        try:
            self._fit([batch])
        except NotLearnedWarning as error:
            self.model = before
            return (
                f"{error.count} row(s) cannot be learned: their confidence (‖x‖² or xᵀΣx) or "
                "their step overflows float64 (feature values too large for this model); "
                "nothing of the request was learned"
            )
        except Exception as error:  # noqa: BLE001 - partial_fit checks before any change
            return str(error)
        return None

    def _take_back(self, upto: int) -> None:
        """Put the model back as it was after request ``upto``: the checkpoint, then the log
        after it learned again, as a restart does. (A copy of the model before every group
        would cost more than learning a small request, milliseconds for a hashed model;
        this runs only when a group cannot be learned whole.)"""
        import olearn

        live, self.model = self.model, olearn.load(self.log_dir / CHECKPOINT)
        try:
            self._relearn(self.counters["checkpoint_seq"], upto, replay=False)
        except BaseException:
            self.model = live
            raise

    def stop(self, checkpoint: bool = True) -> None:
        """Finish the queued requests, checkpoint (if anything changed) and close the log."""
        if self._thread is not None and self._thread.is_alive():
            self._queue.put(_Job("stop", output=checkpoint))
            self._thread.join()
        self._wal.close()
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None

    # -- the async face ----------------------------------------------------------------------

    async def _submit(self, job: _Job):
        # Only learning needs the log: predictions and checkpoints (which hold exactly the
        # acknowledged requests) go on after it failed.
        if self.failed and job.kind == "learn":
            raise RequestError(503, f"the service cannot learn: {self.failed}")
        loop = asyncio.get_running_loop()
        job.loop = loop
        job.future = loop.create_future()
        if self._queue.qsize() >= self.options.queue_size:
            self.counters["rejected_queue_full"] += 1
            raise RequestError(
                503, f"the queue is full ({self.options.queue_size} requests waiting): retry"
            )
        self._queue.put(job)
        status, answer = await job.future
        if status != 200:
            raise RequestError(status, answer)
        return answer

    async def learn(self, batch: Batch, key: str | None = None) -> dict:
        """Log, learn and acknowledge ``batch``: ``{"seq", "learned"}`` (and ``"duplicate":
        true`` when ``key`` was already learned)."""
        return await self._submit(_Job("learn", batch, key, records.digest(batch)))

    async def predict(self, batch: Batch, output: str = "label", single: bool = False) -> dict:
        if output == "proba" and not hasattr(self.model, "predict_proba"):
            raise RequestError(422, f"{type(self.model).__name__} has no probabilities")
        if output == "scores" and not hasattr(self.model, "decision_function"):
            raise RequestError(422, f"{type(self.model).__name__} has no decision scores")
        if self.options.predict_from == "snapshot":
            return self._predict(self.snapshot, self.snapshot_seq, batch, output, single)
        return await self._submit(_Job("predict", batch, output=output, single=single))

    async def checkpoint(self) -> dict:
        return await self._submit(_Job("checkpoint"))

    def info(self) -> dict:
        model = self.model
        classes = getattr(model, "classes_", None)
        counters = dict(self.counters)
        counters["queued"] = self._queue.qsize()
        for name in ("n_updates_", "n_mistakes_"):
            if hasattr(model, name):
                counters[name.rstrip("_")] = int(getattr(model, name))
        return {
            "estimator": type(model).__name__,
            "params": {k: _json_safe(v) for k, v in model.get_params(deep=False).items()},
            "n_features": int(model.n_features_in_),
            "classes": None if classes is None else [_json_value(c) for c in classes.tolist()],
            "input": self.spec,
            "predict_from": self.options.predict_from,
            "model": str(self.model_path),
            "log": str(self.log_dir),
            "uptime_seconds": round(time.time() - self.started, 3),
            "counters": counters,
        }

    # -- the writer --------------------------------------------------------------------------

    def _run(self) -> None:
        while True:
            try:
                first = self._queue.get(timeout=self._wait())
            except queue.Empty:
                self._periodic()
                continue
            jobs = [first]
            while len(jobs) < MAX_GROUP_REQUESTS:
                try:
                    jobs.append(self._queue.get_nowait())
                except queue.Empty:
                    break
            try:
                answers, stop = self._take(jobs)
            except Exception as error:  # noqa: BLE001 - a defect: answer, keep the writer up
                self.failed = f"an internal error: {type(error).__name__}: {error}"
                answers, stop = [(job, (503, self.failed)) for job in jobs], None
            _deliver(answers)
            self._periodic()
            if stop is not None:
                if stop.output and self._since_checkpoint:
                    self._safe_checkpoint()
                self._drain_after_stop()
                return

    def _take(self, jobs: list[_Job]) -> tuple[list, _Job | None]:
        """Carry out ``jobs`` in order (each run of learn requests as one group): their
        answers, and the stop request among them."""
        answers = []
        stop = None
        i = 0
        while i < len(jobs):
            job = jobs[i]
            if job.kind == "learn":
                j = i
                while j < len(jobs) and jobs[j].kind == "learn":
                    j += 1
                answers += self._learn_group(jobs[i:j])
                i = j
                continue
            if job.kind == "predict":
                answers.append((job, self._answer_predict(job)))
            elif job.kind == "checkpoint":
                answers.append((job, self._answer_checkpoint()))
            elif job.kind == "stop":
                stop = job
            i += 1
        return answers, stop

    def _drain_after_stop(self) -> None:
        answers = []
        while True:
            try:
                job = self._queue.get_nowait()
            except queue.Empty:
                break
            answers.append((job, (503, "the service is stopping")))
        _deliver(answers)

    def _wait(self) -> float | None:
        waits = []
        if self.options.checkpoint_seconds:
            waits.append(self.options.checkpoint_seconds)
        if self.options.predict_from == "snapshot":
            waits.append(self.options.snapshot_seconds)
        return min(waits) / 4 if waits else None

    def _periodic(self) -> None:
        now = time.monotonic()
        opts = self.options
        if self._since_checkpoint and (
            (opts.checkpoint_every and self._since_checkpoint >= opts.checkpoint_every)
            or (opts.checkpoint_seconds and now - self._last_checkpoint >= opts.checkpoint_seconds)
        ):
            self._safe_checkpoint()
        if (
            opts.predict_from == "snapshot"
            and self.snapshot_seq != self.counters["seq"]
            and now - self._last_snapshot >= opts.snapshot_seconds
        ):
            self._refresh_snapshot()

    def _refresh_snapshot(self) -> None:
        if self.options.predict_from == "snapshot":
            self.snapshot, self.snapshot_seq = copy.deepcopy(self.model), self.counters["seq"]
            self._last_snapshot = time.monotonic()

    def _remember(self, key: str, seq: int, rows: int, crc: int) -> None:
        key = _key_id(key)
        self._keys[key] = (seq, rows, crc)
        self._keys.move_to_end(key)
        while len(self._keys) > self.options.idempotency_keys:
            self._keys.popitem(last=False)

    def _learn_group(self, jobs: list[_Job]) -> list:
        answers = []
        fresh = []  # (job, seq)
        in_group: dict[str, tuple[int, int, int]] = {}
        seq = self.counters["seq"]
        repeats = []  # a request of this group sent again: answered as that one is
        for job in jobs:
            known = None
            if job.key is not None:
                known = self._keys.get(_key_id(job.key))
                if known is None and job.key in in_group:
                    known = in_group[job.key]
                    if known[2] == job.digest:
                        repeats.append(job)
                        continue
            if known is not None:
                if known[2] != job.digest:
                    answers.append(
                        (
                            job,
                            (
                                422,
                                f"Idempotency-Key {job.key!r} was used for "
                                f"other examples (request {known[0]})",
                            ),
                        )
                    )
                else:
                    self.counters["duplicates"] += 1
                    answers.append(
                        (job, (200, {"seq": known[0], "learned": known[1], "duplicate": True}))
                    )
                continue
            if self.failed:
                answers.append((job, (503, f"the service cannot learn: {self.failed}")))
                continue
            seq += 1
            fresh.append((job, seq))
            if job.key is not None:
                in_group[job.key] = (seq, job.batch.n_rows, job.digest)
        if not fresh:
            return answers
        answers = self._log_and_learn(fresh, seq, answers)
        # A repeat is a duplicate of a request only once that one is logged and learned (it
        # was answered "duplicate" before the log was written, even when the write failed).
        first = {job.key: answer for job, answer in answers[-len(fresh) :]}
        for job in repeats:
            status, body = first[job.key]
            if status == 200:
                self.counters["duplicates"] += 1
                body = {**body, "duplicate": True}
            answers.append((job, (status, body)))
        return answers

    def _log_and_learn(self, fresh: list, seq: int, answers: list) -> list:
        """Log the requests ``fresh`` ((job, seq) pairs, the last ``seq``) as one group,
        learn them and append their answers (in their order) to ``answers``."""
        group = fresh[0][1]
        payloads = [
            records.encode_learn(s, group, job.key, job.digest, job.batch) for job, s in fresh
        ]
        try:
            self._wal.append(payloads)
        except OSError as error:
            self._log_failed(error)
            return answers + [(job, (503, f"cannot write the log: {error}")) for job, _ in fresh]
        learned = fresh
        try:
            self._fit([job.batch for job, _ in fresh])
        except Exception as error:  # noqa: BLE001 - learn one by one
            if isinstance(error, NotLearnedWarning):  # (else checked before any change)
                self._take_back(group - 1)  # the group's other rows were learned
            learned, voids = [], []
            for job, s in fresh:
                problem = self._fit_alone(job.batch)
                if problem is None:
                    learned.append((job, s))
                else:
                    voids.append(records.encode_void(s, problem))
                    answers.append((job, (422, f"cannot learn these examples: {problem}")))
            try:
                self._wal.append(voids)
            except OSError as error:
                self._log_failed(error)
        for job, s in learned:
            n = job.batch.n_rows
            if job.key is not None:
                self._remember(job.key, s, n, job.digest)
            self.counters["examples_learned"] += n
            self.counters["requests_learned"] += 1
            self._since_checkpoint += n
            answers.append((job, (200, {"seq": s, "learned": n})))
        self.counters["seq"] = seq
        return answers

    def _log_failed(self, error: OSError) -> None:
        """A write to the log failed (a full disk): the log cut back what was written of it
        (``WriteAheadLog.append``), so a restart does not learn the requests answered 503;
        the service stops learning (predictions and checkpoints go on) until restarted."""
        self.failed = f"writing the log failed ({error}); restart the service"

    def _answer_predict(self, job: _Job):
        try:
            return 200, self._predict(
                self.model, self.counters["seq"], job.batch, job.output, job.single
            )
        except RequestError as error:
            return error.status, error.message
        except ValueError as error:
            return 422, str(error)

    def _predict(self, model, seq: int, batch: Batch, output: str, single: bool) -> dict:
        self.counters["predictions"] += batch.n_rows
        answer: dict = {"seq": seq}
        if output == "label":
            if single:
                answer["prediction"] = _json_value(model.predict_one(batch.row(0)))
            else:
                answer["predictions"] = [_json_value(v) for v in model.predict(batch.X).tolist()]
        elif output == "scores":
            scores = np.asarray(model.decision_function(batch.X)).tolist()
            answer["score" if single else "scores"] = scores[0] if single else scores
        else:
            proba = np.asarray(model.predict_proba(batch.X)).tolist()
            answer["proba"] = proba[0] if single else proba
            answer["classes"] = [_json_value(c) for c in model.classes_.tolist()]
        if batch.n_unseen:
            answer["ignored_features"] = batch.n_unseen
        if not _finite(answer):
            raise RequestError(
                422, "the prediction is not finite: feature values too large for this model"
            )
        return answer

    def _safe_checkpoint(self) -> None:
        """A checkpoint the writer takes on its own: one that fails (a full disk) is
        reported and tried again later; the log still holds every request."""
        try:
            self._checkpoint()
        except (OSError, ValueError) as error:  # (ValueError: a header too large to load)
            self.counters["failed_checkpoints"] += 1
            self._last_checkpoint = time.monotonic()
            print(f"olearn serve: warning: cannot write a checkpoint: {error}", file=sys.stderr)

    def _answer_checkpoint(self):
        try:
            return 200, self._checkpoint()
        except (OSError, ValueError) as error:
            return 503, f"cannot write the checkpoint: {error}"

    def _checkpoint(self) -> dict:
        import olearn

        seq = self.counters["seq"]
        keys = [[k, s, n, c] for k, (s, n, c) in self._keys.items()]
        metadata = dict(self._metadata)
        metadata["serve"] = {
            "seq": seq,
            "origin": self._origin,
            "model": str(self.model_path),
            "key_ids": json.dumps(keys),
        }
        path = self.log_dir / CHECKPOINT
        olearn.save(self.model, path, metadata=metadata)
        self._wal.restart_after(seq)
        self.counters["checkpoint_seq"] = seq
        self.counters["checkpoints"] += 1
        self._since_checkpoint = 0
        self._last_checkpoint = time.monotonic()
        return {"seq": seq, "path": str(path)}


def _metadata_of(path: Path) -> dict:
    """A model file's metadata, as plain JSON values."""
    from olearn.io.model_file import plain_metadata, read_model_header

    return plain_metadata(read_model_header(path).get("metadata", {})) or {}


def _finite(answer: dict) -> bool:
    """Whether every number of ``answer`` is finite (JSON has no infinity or NaN)."""
    for value in answer.values():
        if isinstance(value, float) and not math.isfinite(value):
            return False
        if (
            isinstance(value, list)
            and not np.isfinite(
                np.asarray(value if not value or not isinstance(value[0], str) else [], float)
            ).all()
        ):
            return False
    return True


def _json_safe(value):
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return repr(value)


def _deliver(answers: list) -> None:
    """Hand the answers to their event loops (one wake-up per loop)."""
    by_loop: dict = {}
    for job, answer in answers:
        by_loop.setdefault(job.loop, []).append((job.future, answer))
    for loop, items in by_loop.items():
        if loop is None:
            continue
        try:
            loop.call_soon_threadsafe(_resolve, items)
        except RuntimeError:  # the loop has closed
            pass


def _resolve(items) -> None:
    for future, answer in items:
        if not future.done():
            future.set_result(answer)
