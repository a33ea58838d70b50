"""``olearn serve``: the write-ahead log, request bodies, the service's durability (restart
replays the log bit for bit; idempotency keys), the HTTP endpoints and their errors, and
schemathesis against the published OpenAPI schema.

The HTTP tests drive the FastAPI application in this process (httpx's ASGI transport: no
socket); tests/test_serve_process.py runs the command on the loopback address (kill -9,
tokens).
"""

from __future__ import annotations

import asyncio
import copy
import json
import os
import pickle
import time

import numpy as np
import pytest
import scipy.sparse as sp

import olearn
from olearn import (
    AROWClassifier,
    AROWRegressor,
    CWClassifier,
    KernelPAClassifier,
    PassiveAggressiveClassifier,
    PassiveAggressiveRegressor,
    PerceptronClassifier,
    SCWClassifier,
    SecondOrderPerceptronClassifier,
    SGDRegressor,
)
from olearn.serve import records
from olearn.serve.examples import Batch, ExampleParser, RequestError
from olearn.serve.service import LearningService, Options, ServiceError
from olearn.serve.wal import MAGIC, LogError, WriteAheadLog

httpx = pytest.importorskip("httpx")  # the test extra installs it; a plain install skips
TEXT = {"Content-Type": "text/plain"}


def _data(n=300, d=40, seed=0):
    rng = np.random.default_rng(seed)
    X = sp.random(n, d, density=0.15, format="csr", random_state=seed)
    w = rng.normal(size=d)
    y = np.where(X @ w > 0, 1.0, -1.0)
    return X, y, rng


def _state_bytes(model, tmp_path, name="state.olm") -> bytes:
    """The model's learned state as bytes (its model file, without metadata)."""
    path = tmp_path / name
    olearn.save(model, path)
    return path.read_bytes()


# -- batched partial_fit equals row by row ---------------------------------------------------

_BATCHED = [
    (PerceptronClassifier, "binary"),
    (lambda: PerceptronClassifier(average=True), "binary"),
    (PassiveAggressiveClassifier, "multiclass"),
    (SecondOrderPerceptronClassifier, "binary"),
    (CWClassifier, "multiclass"),
    (AROWClassifier, "binary"),
    (lambda: AROWClassifier(covariance="full"), "multiclass"),
    (SCWClassifier, "strings"),
    (PassiveAggressiveRegressor, "regression"),
    (AROWRegressor, "regression"),
]


def _labels(kind, rng, n, y):
    if kind == "multiclass":
        return rng.integers(0, 4, n).astype(float)
    if kind == "strings":
        return np.array(["ham", "spam", "eggs"])[rng.integers(0, 3, n)]
    if kind == "regression":
        return rng.normal(size=n)
    return y


@pytest.mark.parametrize("make, kind", _BATCHED)
def test_batched_partial_fit_equals_row_by_row(make, kind, tmp_path):
    """The writer learns a group of requests in one partial_fit: for these models that is
    bit for bit the model learned row by row (new classes met mid-batch included)."""
    X, y, rng = _data()
    y = _labels(kind, rng, X.shape[0], y)
    start = make().fit(X[:10], y[:10])
    batched, rows = pickle.loads(pickle.dumps(start)), pickle.loads(pickle.dumps(start))
    batched.partial_fit(X[10:], y[10:])
    for i in range(10, X.shape[0]):
        rows.partial_fit(X[i : i + 1], y[i : i + 1])
    assert _state_bytes(batched, tmp_path, "a") == _state_bytes(rows, tmp_path, "b")


def test_batched_partial_fit_kernel_model_learns_the_same(tmp_path):
    """A kernel model learns the same support vectors batched or row by row; only its call
    counter n_iter_ differs (the replay repeats the live groups, so restarts are exact)."""
    X, y, _ = _data(n=120)
    start = KernelPAClassifier().fit(X[:10], y[:10])
    batched, rows = copy.deepcopy(start), copy.deepcopy(start)
    batched.partial_fit(X[10:], y[10:])
    for i in range(10, X.shape[0]):
        rows.partial_fit(X[i : i + 1], y[i : i + 1])
    rows.n_iter_ = batched.n_iter_
    assert _state_bytes(batched, tmp_path, "a") == _state_bytes(rows, tmp_path, "b")


# -- the write-ahead log ---------------------------------------------------------------------


def test_log_round_trip_and_torn_tail(tmp_path):
    log = WriteAheadLog(tmp_path)
    log.open(1)
    log.append([b"first", b"second"])
    log.append([b"third"])
    segment = log.current
    log.close()
    with open(segment, "ab") as handle:  # a record torn by a crash: header and half a payload
        handle.write(records_frame(b"fourth, never acknowledged")[:12])
    size = segment.stat().st_size
    log = WriteAheadLog(tmp_path)
    assert list(log.records()) == [b"first", b"second", b"third"]
    assert log.torn_bytes == 12 and segment.stat().st_size == size - 12
    log.open(4)
    log.append([b"fifth"])
    log.close()
    assert list(WriteAheadLog(tmp_path).records())[-1] == b"fifth"


def records_frame(payload: bytes) -> bytes:
    from olearn.serve.wal import frame

    return frame(payload)


def test_log_damage_before_the_end_is_an_error(tmp_path):
    log = WriteAheadLog(tmp_path)
    log.open(1)
    log.append([b"one", b"two"])
    log.restart_after(0)  # a second segment: the first is no longer the last
    log.close()
    first = tmp_path / "wal-00000000000000000001.log"
    log.folder.joinpath(first.name).write_bytes(MAGIC + records_frame(b"one")[:-1] + b"X")
    (tmp_path / "wal-00000000000000000002.log").write_bytes(MAGIC + records_frame(b"three"))
    with pytest.raises(LogError, match=r"wal-0+1\.log: offset 8: .*CRC-32.*damaged"):
        list(WriteAheadLog(tmp_path).records())


def test_damage_inside_the_last_segment_is_an_error_not_a_torn_tail(tmp_path):
    """A record of the last segment that fails its CRC with acknowledged records after it is
    damage: opening the log names the file and offset and cuts nothing (it used to cut the
    segment there, silently dropping every acknowledged request after the damage)."""
    log = WriteAheadLog(tmp_path)
    log.open(1)
    log.append([b"one"])
    log.append([b"two"])
    log.append([b"three"])
    segment = log.current
    log.close()
    data = bytearray(segment.read_bytes())
    data[len(MAGIC) + 8] ^= 1  # the payload of "one"
    segment.write_bytes(bytes(data))
    with pytest.raises(LogError, match=r"wal-0+1\.log: offset 8: .*CRC-32.*damaged"):
        list(WriteAheadLog(tmp_path).records())
    assert segment.read_bytes() == bytes(data)
    # a tail of zeros (blocks allocated, never written) and a bad last record are torn
    segment.write_bytes(MAGIC + records_frame(b"one") + bytes(40))
    assert list(WriteAheadLog(tmp_path).records()) == [b"one"]
    bad_last = records_frame(b"two")[:-1] + b"X"
    segment.write_bytes(MAGIC + records_frame(b"one") + bad_last)
    assert list(WriteAheadLog(tmp_path).records()) == [b"one"]


def test_learn_record_round_trip():
    batch = Batch(
        np.array([0, 2, 3]),
        np.array([1, 5, 0], np.int32),
        np.array([0.1, -2.5, 1e-300]),
        np.array(["a", "b"]),
        8,
    )
    crc = records.digest(batch)
    decoded = records.decode(records.encode_learn(7, 6, "key-1", crc, batch), 8)
    assert (decoded.seq, decoded.group, decoded.key, decoded.digest) == (7, 6, "key-1", crc)
    for name in ("indptr", "indices", "data", "y"):
        assert np.array_equal(getattr(decoded.batch, name), getattr(batch, name))
    assert records.digest(decoded.batch) == crc


# -- request bodies --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def binary_model():
    X, y, _ = _data()
    return AROWClassifier().fit(X, y)


def test_json_and_text_give_the_same_examples(binary_model):
    parser = ExampleParser(binary_model, {"format": "svmlight", "zero_based": False}, max_rows=9)
    from_json = parser.from_json(
        b'{"rows": [{"x": {"4": 2.5, "0": 1}, "y": 1}, {"x": {}, "y": -1}]}',
        learn=True,
        batch=True,
    )
    from_text = parser.from_text(b"1 1:1 5:2.5\n-1\n", learn=True, batch=True)
    for name in ("indptr", "indices", "data", "y"):
        assert np.array_equal(getattr(from_json, name), getattr(from_text, name))
    dense = [0.0] * 40
    dense[3] = 7.0
    row = parser.from_json(json.dumps({"x": dense}).encode(), learn=False, batch=False)
    assert row.indices.tolist() == [3] and row.data.tolist() == [7.0]
    # an index 0 in the text of a one-based model: no command-line remedy for a client
    with pytest.raises(RequestError) as zero:
        parser.from_text(b"1 0:1\n", learn=True, batch=True)
    assert "(the model reads its text lines one-based)" in str(zero.value)
    assert "--zero-based" not in str(zero.value)


@pytest.mark.parametrize(
    "body, status, message",
    [
        (b'{"x": {"1": 1}', 400, "not valid JSON"),
        (b'{"x": {"1": NaN}, "y": 1}', 400, "NaN is not a JSON number"),
        (b'{"x": {"1": 1, "1": 2}, "y": 1}', 400, "duplicate key '1'"),
        (b'{"x": {"1": 1e999}, "y": 1}', 422, "x['1']: the feature value is not finite"),
        (b'{"x": {"40": 1}, "y": 1}', 422, "feature index 40 is beyond the model's 40"),
        (b'{"x": {"01": 1, "1": 2}, "y": 1}', 422, "feature index 1 given twice"),
        (b'{"x": {"0000000000000000000001": 1, "1": 2}, "y": 1}', 422, "index 1 given twice"),
        (
            b'{"x": {"1": 1, "12345678901234567890123": 2}, "y": 1}',
            422,
            "x: feature index 12345678901234567890123 is beyond the model's 40",
        ),
        (b'{"x": {"a": 1}, "y": 1}', 422, "feature keys are column indices"),
        (b'{"x": {"1": "2"}, "y": 1}', 422, "a feature value must be a number"),
        (b'{"x": {"1": true}, "y": 1}', 422, "a feature value must be a number"),
        (b'{"x": {"1": 1}, "y": "spam"}', 422, "the label must be a number"),
        (b'{"x": {"1": 1}}', 422, 'no "y"'),
        (b'{"x": {"1": 1}, "y": 1, "z": 0}', 422, "unknown field 'z'"),
        (b'{"x": [1, 2], "y": 1}', 422, "a list holds every column's value: 40, got 2"),
        (b"[1]", 422, "must be a JSON object"),
    ],
)
def test_bad_json_is_a_clear_error(binary_model, body, status, message):
    parser = ExampleParser(binary_model, {"format": "svmlight"}, max_rows=9)
    with pytest.raises(RequestError) as caught:
        parser.from_json(body, learn=True, batch=False)
    assert caught.value.status == status
    assert message in caught.value.message


def test_rows_and_lines_beyond_the_limit_are_413(binary_model):
    parser = ExampleParser(binary_model, {"format": "svmlight"}, max_rows=2)
    rows = json.dumps({"rows": [{"x": {}}] * 3}).encode()
    with pytest.raises(RequestError, match="3 examples in one request; the limit is 2") as c:
        parser.from_json(rows, learn=False, batch=True)
    assert c.value.status == 413
    with pytest.raises(RequestError, match="more than 2 lines") as c:
        parser.from_text(b"1 1:1\n" * 3, learn=True, batch=True)
    assert c.value.status == 413


def test_prediction_ignores_and_counts_features_beyond_the_width(binary_model):
    parser = ExampleParser(binary_model, {"format": "svmlight", "zero_based": True}, max_rows=9)
    batch = parser.from_json(b'{"x": {"2": 1, "45": 3, "99": 1}}', learn=False, batch=False)
    assert batch.indices.tolist() == [2] and batch.n_unseen == 2
    batch = parser.from_text(b"0 2:1 45:3\n", learn=False, batch=False)
    assert batch.indices.tolist() == [2] and batch.n_unseen == 1
    with pytest.raises(RequestError, match=r"body:1: feature index beyond the model's width"):
        parser.from_text(b"0 2:1 45:3\n", learn=True, batch=False)
    # a column is read by its value however many zeros lead ("001" as "1"); a huge one is
    # ignored as any other beyond the width
    body = b'{"x": {"0000000000000000000002": 1, "00000000000000000000000000099": 1}, "y": 1}'
    for learn in (False, True):
        batch = parser.from_json(body.replace(b"099", b"39"), learn=learn, batch=False)
        assert batch.indices.tolist() == [2, 39] and batch.n_unseen == 0
    batch = parser.from_json(body.replace(b"099", b"1" * 25), learn=False, batch=False)
    assert batch.indices.tolist() == [2] and batch.n_unseen == 1


def test_hashed_json_features_equal_the_vw_line():
    from olearn.io import VWReader

    X, y, _ = _data(d=2**8)
    model = PassiveAggressiveClassifier().fit(X, y)
    spec = {"format": "vw", "bits": 8, "ngrams": 0, "quadratic": ["ab"]}
    parser = ExampleParser(model, spec, max_rows=9)
    batch = parser.from_json(
        b'{"x": {"a": {"red": 2, "big": 1}, "b": {"x1": 0.5}, "plain": 3}, "y": 1}',
        learn=True,
        batch=False,
    )
    reader = VWReader("-", bits=8, quadratic=["ab"])
    chunk = reader.parse_bytes(b"1 | plain:3.0 |a red:2.0 big:1.0 |b x1:0.5\n")
    assert np.array_equal(batch.indices, chunk.indices)
    assert np.array_equal(batch.data, chunk.data)
    with pytest.raises(RequestError, match="feature names may not"):
        parser.from_json(b'{"x": {"a b": 1}, "y": 1}', learn=True, batch=False)


def test_string_labels_need_json(tmp_path):
    X, _, rng = _data()
    y = np.array(["ham", "spam"])[rng.integers(0, 2, X.shape[0])]
    parser = ExampleParser(CWClassifier().fit(X, y), {"format": "svmlight"}, max_rows=9)
    assert parser.from_json(b'{"x": {}, "y": "eggs"}', learn=True, batch=False).y.tolist() == [
        "eggs"
    ]
    with pytest.raises(RequestError, match="this model's labels are strings, got 1"):
        parser.from_json(b'{"x": {}, "y": 1}', learn=True, batch=False)
    with pytest.raises(RequestError, match="text lines cannot carry"):
        parser.from_text(b"1 1:1\n", learn=True, batch=False)


# -- the service -----------------------------------------------------------------------------


def _model_file(tmp_path, model=None, name="model.olm"):
    if model is None:
        X, y, _ = _data()
        model = AROWClassifier().fit(X[:50], y[:50])
    path = tmp_path / name
    olearn.save(model, path, metadata={"input": {"format": "svmlight", "zero_based": True}})
    return path


def _rows(X, y, lo, hi):
    out = []
    for i in range(lo, hi):
        row = X[i]
        x = {str(j): float(v) for j, v in zip(row.indices, row.data, strict=True)}
        label = y[i].item() if hasattr(y[i], "item") else y[i]
        out.append({"x": x, "y": label})
    return out


async def _client(service, **options):
    from olearn.serve.app import create_app

    app = create_app(service, **options)
    transport = httpx.ASGITransport(app=app)
    return httpx.AsyncClient(transport=transport, base_url="http://serve")


def _run(service, scenario, **options):
    """Run ``scenario(client)`` against the service's app in an event loop."""

    async def main():
        async with await _client(service, **options) as client:
            return await scenario(client)

    return asyncio.run(main())


def test_learn_predict_restart_replays_the_log_bit_for_bit(tmp_path):
    X, y, _ = _data()
    model_path = _model_file(tmp_path)
    log = tmp_path / "log"
    service = LearningService(model_path, log, Options(checkpoint_seconds=None))
    service.start()

    async def scenario(client):
        acks = []
        for lo in range(50, 250, 25):  # batches, concurrently: the writer groups them
            body = {"rows": _rows(X, y, lo, lo + 25)}
            acks.append(
                client.post("/learn/batch", json=body, headers={"Idempotency-Key": f"b{lo}"})
            )
        acks = [r.json() for r in await asyncio.gather(*acks)]
        single = await client.post("/learn", json=_rows(X, y, 250, 251)[0])
        text = await client.post(
            "/learn/batch",
            content="".join(
                f"{y[i]:g} "
                + " ".join(
                    f"{j}:{v!r}"
                    for j, v in zip(X[i].indices.tolist(), X[i].data.tolist(), strict=True)
                )
                + "\n"
                for i in range(251, 260)
            ),
            headers={"Content-Type": "text/plain"},
        )
        predicted = await client.post("/predict", json={"x": _rows(X, y, 0, 1)[0]["x"]})
        return acks, single.json(), text.json(), predicted.json()

    acks, single, text, predicted = _run(service, scenario)
    assert sorted(a["seq"] for a in acks) == list(range(1, 9))
    assert single == {"seq": 9, "learned": 1} and text == {"seq": 10, "learned": 9}
    assert predicted["seq"] == 10 and predicted["prediction"] in (-1, 1)
    live = _state_bytes(service.model, tmp_path, "live")
    # The process "dies": no checkpoint since the first one; a new service replays the log.
    service._wal.close()  # noqa: SLF001
    os.close(service._lock_fd)  # noqa: SLF001
    again = LearningService(model_path, log, Options(checkpoint_seconds=None))
    again.start()
    assert again.counters["requests_replayed"] == 10 and again.counters["seq"] == 10
    assert _state_bytes(again.model, tmp_path, "again") == live
    # The offline replay: the saved model learning the acknowledged requests in order.
    offline = olearn.load(model_path)
    order = sorted(acks, key=lambda a: a["seq"])
    by_seq = {a["seq"]: lo for a, lo in zip(acks, range(50, 250, 25), strict=True)}
    for ack in order:
        lo = by_seq[ack["seq"]]
        offline.partial_fit(X[lo : lo + 25], y[lo : lo + 25])
    offline.partial_fit(X[250:260], y[250:260])
    assert _state_bytes(offline, tmp_path, "offline") == live
    again.stop()


def test_a_kernel_model_is_served_and_predicts_what_it_has_learned(tmp_path):
    """A kernel model starts a service (its warm-up calls ``predict_one``, which kernel
    models lacked), learns a batch and predicts a row as the model file's model does after
    ``partial_fit`` of the same rows."""
    X, y, _ = _data()
    start = KernelPAClassifier(kernel="linear", budget=120).fit(X[:150], y[:150])
    service = LearningService(_model_file(tmp_path, start), tmp_path / "log",
                              Options(checkpoint_seconds=None))  # fmt: skip
    service.start()

    async def scenario(client):
        learned = await client.post("/learn/batch", json={"rows": _rows(X, y, 150, 190)})
        scores = []
        for i in range(190, 230):
            answer = await client.post("/predict", json={"x": _rows(X, y, i, i + 1)[0]["x"]})
            scores.append(answer.json()["prediction"])
        return learned.json(), scores

    learned, predictions = _run(service, scenario)
    expected = copy.deepcopy(start).partial_fit(X[150:190], y[150:190]).predict(X[190:230])
    assert learned == {"seq": 1, "learned": 40}
    assert predictions == expected.tolist() and len(set(predictions)) == 2


def test_idempotency_keys_survive_a_checkpoint_and_a_restart(tmp_path):
    X, y, _ = _data()
    model_path = _model_file(tmp_path)
    log = tmp_path / "log"
    service = LearningService(model_path, log, Options(checkpoint_every=1))
    service.start()
    body = {"rows": _rows(X, y, 60, 70)}

    async def learn_twice(client):
        first = await client.post("/learn/batch", json=body, headers={"Idempotency-Key": "k"})
        again = await client.post("/learn/batch", json=body, headers={"Idempotency-Key": "k"})
        return first.json(), again.json()

    first, again = _run(service, learn_twice)
    assert first == {"seq": 1, "learned": 10}
    assert again == {"seq": 1, "learned": 10, "duplicate": True}
    service.stop()
    assert service.counters["checkpoint_seq"] == 1
    restarted = LearningService(model_path, log, Options())
    restarted.start()

    async def retry(client):
        same = await client.post("/learn/batch", json=body, headers={"Idempotency-Key": "k"})
        other = await client.post(
            "/learn/batch", json={"rows": _rows(X, y, 70, 71)}, headers={"Idempotency-Key": "k"}
        )
        return same, other

    same, other = _run(restarted, retry)
    assert same.json() == {"seq": 1, "learned": 10, "duplicate": True}
    assert other.status_code == 422 and "was used for other examples" in other.json()["detail"]
    assert restarted.counters["seq"] == 1
    restarted.stop()


def test_a_checkpoint_of_many_long_idempotency_keys_restarts(tmp_path):
    """The default 100,000 remembered keys of the longest allowed form (200 characters,
    here backslashes, which JSON escapes twice in a checkpoint's header) made a checkpoint
    that ``olearn.load`` refused ("corrupted (a header of 79090182 bytes)"): the service
    could not restart on its folder. The service now keeps a fixed-size digest per key."""
    model_path = _model_file(tmp_path)
    log = tmp_path / "log"
    service = LearningService(model_path, log, Options(checkpoint_seconds=None))
    service.start()
    X, y, _ = _data()
    body = {"rows": _rows(X, y, 0, 3)}
    last = "\\" * 194 + "last"

    async def learn(client):
        answer = await client.post("/learn/batch", json=body, headers={"Idempotency-Key": last})
        return answer.json()

    assert _run(service, learn) == {"seq": 1, "learned": 3}
    for i in range(service.options.idempotency_keys - 1):  # as the requests would
        service._remember("\\" * 190 + f"{i:010d}", 1, 1, 0)  # noqa: SLF001
    service._remember(last, *service._keys.popitem(last=False)[1])  # noqa: SLF001
    service.stop()
    assert service.counters["checkpoint_seq"] == 1 and not service.counters["failed_checkpoints"]
    assert len(service._keys) == 100_000  # noqa: SLF001
    again = LearningService(model_path, log, Options(checkpoint_seconds=None))
    again.start()

    async def retry(client):
        answer = await client.post("/learn/batch", json=body, headers={"Idempotency-Key": last})
        return answer.json()

    assert _run(again, retry) == {"seq": 1, "learned": 3, "duplicate": True}
    again.stop()


def test_bad_requests_change_nothing(tmp_path):
    model_path = _model_file(tmp_path)
    service = LearningService(model_path, tmp_path / "log", Options(max_rows=5, queue_size=4))
    service.start()
    before = _state_bytes(service.model, tmp_path, "before")

    async def scenario(client):
        answers = []
        for body, kind in [
            (b'{"x": {"1": 1}, "y": 1', "application/json"),
            (b'{"x": {"1": NaN}, "y": 1}', "application/json"),
            (b'{"x": {"400": 1}, "y": 1}', "application/json"),
            (b'{"x": {"1": 1}, "y": "spam"}', "application/json"),
            (b"1 1:1\n" * 6, "text/plain"),
            (b"x" * 2000, "text/plain"),
            (b"1 1:1", "text/csv"),
        ]:
            answers.append(
                await client.post("/learn/batch", content=body, headers={"Content-Type": kind})
            )
        answers.append(await client.post("/learn", json={"x": {}, "y": 1}, params={"x": 1}))
        answers.append(await client.post("/predict", json={"x": {}}, params={"output": "bad"}))
        return [(a.status_code, a.json().get("detail")) for a in answers]

    answers = _run(service, scenario, max_body_bytes=1000)
    statuses = [status for status, _ in answers]
    assert statuses[:7] == [400, 400, 422, 422, 413, 413, 415]
    assert "the body is larger than 1000 bytes" in answers[5][1]
    assert statuses[7] == 200  # an unknown query parameter is ignored; the example is good
    assert statuses[8] == 422 and "output" in answers[8][1]
    assert service.counters["seq"] == 1  # only the good one
    service.stop()
    restarted = LearningService(model_path, tmp_path / "log", Options())
    restarted.start()
    one = olearn.load(model_path)
    one.partial_fit(sp.csr_matrix((1, one.n_features_in_)), [1.0])
    assert _state_bytes(restarted.model, tmp_path, "after") == _state_bytes(one, tmp_path, "one")
    assert before != _state_bytes(one, tmp_path, "one")
    restarted.stop()


def test_a_json_batch_without_rows_is_refused_before_the_log(tmp_path):
    """``{"rows": []}`` is a 422 from the parser, as a text body without lines: it used to
    reach the writer, take a sequence number and two log records (the request and its void)
    and answer with scikit-learn's message about 0 samples."""
    service = LearningService(_model_file(tmp_path), tmp_path / "log", Options())
    service.start()

    async def scenario(client):
        answers = [
            await client.post(url, json={"rows": []}) for url in ("/learn/batch", "/predict/batch")
        ]
        answers.append(await client.post("/learn", json={"x": {"1": 1.0}, "y": 1}))
        return [(a.status_code, a.json()) for a in answers]

    learn, predict, good = _run(service, scenario)
    assert learn == predict == (422, {"detail": "the body holds no example"})
    assert good == (200, {"seq": 1, "learned": 1})
    assert len(list(service._wal.records())) == 1  # noqa: SLF001
    service.stop()


def test_a_full_queue_is_503(tmp_path):
    import threading

    service = LearningService(_model_file(tmp_path), tmp_path / "log", Options(queue_size=2))
    service.start()
    entered, gate = threading.Event(), threading.Event()
    fit = service._fit  # noqa: SLF001

    def held_fit(batches):  # holds the writer on its first group
        entered.set()
        gate.wait(10)
        fit(batches)

    service._fit = held_fit  # noqa: SLF001

    async def scenario(client):
        def post():
            return asyncio.ensure_future(client.post("/learn", json={"x": {}, "y": 1}))

        first = post()
        for _ in range(1000):
            if entered.is_set():
                break
            await asyncio.sleep(0.01)
        waiting = [post(), post()]
        while service._queue.qsize() < 2:  # noqa: SLF001
            await asyncio.sleep(0.01)
        full = await client.post("/learn", json={"x": {}, "y": 1})
        gate.set()
        return full, await asyncio.gather(first, *waiting)

    full, done = _run(service, scenario)
    assert full.status_code == 503
    assert "the queue is full (2 requests waiting)" in full.json()["detail"]
    assert full.headers["retry-after"] == "1"
    assert sorted(d.json()["seq"] for d in done) == [1, 2, 3]
    service.stop()


def test_sgd_regressor_restarts_exactly_although_batches_round_differently(tmp_path):
    """SGDRegressor's batched partial_fit is not bit for bit its row-by-row one; the replay
    learns the groups the live service learned, so a restart is still exact."""
    X, _, rng = _data()
    y = rng.normal(size=X.shape[0])
    model_path = _model_file(tmp_path, SGDRegressor().fit(X[:20], y[:20]))
    service = LearningService(model_path, tmp_path / "log", Options(checkpoint_seconds=None))
    service.start()

    async def scenario(client):
        posts = [
            client.post("/learn/batch", json={"rows": _rows(X, y, lo, lo + 20)})
            for lo in range(20, 220, 20)
        ]
        return await asyncio.gather(*posts)

    _run(service, scenario)
    live = _state_bytes(service.model, tmp_path, "live")
    service._wal.close()  # noqa: SLF001 - "killed": no last checkpoint
    os.close(service._lock_fd)  # noqa: SLF001
    again = LearningService(model_path, tmp_path / "log", Options())
    again.start()
    assert again.counters["requests_replayed"] == 10
    assert _state_bytes(again.model, tmp_path, "again") == live
    again.stop()


def test_a_log_folder_belongs_to_its_model(tmp_path):
    model_path = _model_file(tmp_path)
    service = LearningService(model_path, tmp_path / "log", Options())
    service.start()
    with pytest.raises(ServiceError, match="in use by another olearn serve"):
        LearningService(model_path, tmp_path / "log", Options()).start()
    service.stop()
    X, y, _ = _data(seed=3)
    other = _model_file(tmp_path, PerceptronClassifier().fit(X, y), "other.olm")
    with pytest.raises(ServiceError, match="continues the model started from .*model.olm"):
        LearningService(other, tmp_path / "log", Options()).start()


def test_a_model_with_boolean_classes_learns_true_and_false(tmp_path):
    """A model fitted on boolean labels answers ``"prediction": true`` but refused
    ``"y": true`` ("the label must be a number"), and took any number, a 2 growing a float
    class beside True and False. It now takes true/false (and 1/0, also in text lines),
    refuses other labels, and a restart replays the booleans bit for bit."""
    X, y, _ = _data()
    model_path = _model_file(tmp_path, PerceptronClassifier().fit(X[:50], y[:50] > 0))
    log = tmp_path / "log"
    service = LearningService(model_path, log, Options(checkpoint_seconds=None))
    service.start()

    async def scenario(client):
        answers = [
            await client.post("/learn", json={"x": {"1": 1.0}, "y": True}),
            await client.post("/learn", json={"x": {"2": 1.0}, "y": 0}),
            await client.post("/learn/batch", content=b"1 1:1\n0 3:1\n", headers=TEXT),
            await client.post("/learn", json={"x": {"1": 1.0}, "y": 2}),
            await client.post("/learn/batch", content=b"2 1:1\n", headers=TEXT),
            await client.post("/predict", json={"x": {"1": 1.0}}),
        ]
        return [(a.status_code, a.json()) for a in answers]

    true, zero, text, two, text_two, predicted = _run(service, scenario)
    assert (true, zero, text) == ((200, {"seq": 1, "learned": 1}), (200, {"seq": 2, "learned": 1}),
                                  (200, {"seq": 3, "learned": 2}))  # fmt: skip
    assert two == (422, {"detail": "y: this model's labels are true and false, got 2"})
    assert text_two[0] == 422 and "true and false" in text_two[1]["detail"]
    assert predicted[0] == 200 and isinstance(predicted[1]["prediction"], bool)
    assert service.model.classes_.tolist() == [False, True]
    live = _state_bytes(service.model, tmp_path, "live")
    service._wal.close()  # noqa: SLF001 - the process dies: no checkpoint
    os.close(service._lock_fd)  # noqa: SLF001
    again = LearningService(model_path, log, Options(checkpoint_seconds=None))
    again.start()
    assert again.counters["requests_replayed"] == 3
    assert _state_bytes(again.model, tmp_path, "again") == live
    again.stop()


def test_a_missing_model_file_leaves_no_log_folder(tmp_path):
    """``olearn serve typo.olm`` made ``typo.olm.serve/lock`` before it found no model."""
    with pytest.raises(ServiceError, match=r"typo\.olm: no such model file"):
        LearningService(tmp_path / "typo.olm", tmp_path / "typo.olm.serve", Options()).start()
    assert not (tmp_path / "typo.olm.serve").exists()


def test_info_health_checkpoint_and_snapshot_predictions(tmp_path):
    model_path = _model_file(tmp_path)
    service = LearningService(
        model_path, tmp_path / "log", Options(predict_from="snapshot", snapshot_seconds=0.05)
    )
    service.start()

    async def scenario(client):
        health = (await client.get("/health")).json()
        await client.post("/learn", json={"x": {"1": 1.0}, "y": 1})
        for _ in range(200):
            predicted = (await client.post("/predict", json={"x": {"1": 1.0}})).json()
            if predicted["seq"] == 1:
                break
            await asyncio.sleep(0.02)
        proba = (
            await client.post(
                "/predict/batch", json={"rows": [{"x": {"1": 1}}]}, params={"output": "proba"}
            )
        ).json()
        checkpoint = (await client.post("/checkpoint")).json()
        info = (await client.get("/info")).json()
        return health, predicted, proba, checkpoint, info

    health, predicted, proba, checkpoint, info = _run(service, scenario)
    assert health == {"status": "ok"}
    assert predicted["seq"] == 1  # the snapshot caught up with the learned request
    assert proba["classes"] == [-1, 1] and abs(sum(proba["proba"][0]) - 1) < 1e-12
    assert checkpoint == {"seq": 1, "path": str(tmp_path / "log" / "checkpoint.olm")}
    assert info["estimator"] == "AROWClassifier" and info["n_features"] == 40
    assert info["counters"]["seq"] == 1 and info["counters"]["examples_learned"] == 1
    assert olearn.load(checkpoint["path"]).n_updates_ == service.model.n_updates_
    service.stop()


def test_bearer_token(tmp_path):
    service = LearningService(_model_file(tmp_path), tmp_path / "log", Options())
    service.start()

    async def scenario(client):
        none = await client.get("/info")
        wrong = await client.get("/info", headers={"Authorization": "Bearer nope"})
        right = await client.get("/info", headers={"Authorization": "Bearer s3cret-token-value"})
        health = await client.get("/health")
        schema = (await client.get("/openapi.json")).json()
        return none, wrong, right, health, schema

    none, wrong, right, health, schema = _run(service, scenario, token="s3cret-token-value")
    assert none.status_code == wrong.status_code == 401
    assert none.headers["www-authenticate"] == "Bearer"
    assert right.status_code == 200 and health.status_code == 200
    assert schema["components"]["securitySchemes"]["bearer"]["scheme"] == "bearer"
    assert schema["paths"]["/learn"]["post"]["security"] == [{"bearer": []}]
    service.stop()


def test_models_the_service_cannot_run(tmp_path):
    from olearn import UniclassPA

    X, _, _ = _data()
    path = tmp_path / "u.olm"
    olearn.save(UniclassPA().fit(X.toarray()), path)
    with pytest.raises(ServiceError, match="not UniclassPA|UniclassPA is neither"):
        LearningService(path, tmp_path / "log", Options()).start()


# -- JSON rows: the whole-batch path equals the row-by-row path -------------------------------


def test_json_batch_paths_agree(binary_model):
    """Rows read in a few NumPy calls (every key a column in range, every value finite) equal
    the rows read one by one; what the fast path declines, the row-by-row path words."""
    parser = ExampleParser(binary_model, {"format": "svmlight"}, max_rows=99)
    rows = [
        {"x": {"7": 1, "3": -2.5, "39": 1e-300}, "y": 1},
        {"x": {}, "y": -1},
        {"x": {"0": 0.25, "12": 3}, "y": 1},
        {"x": {"5": 2.0, "1": 1.0}, "y": -1},
    ]
    body = json.dumps({"rows": rows}).encode()
    fast = parser.from_json(body, learn=True, batch=True)
    assert parser._all_columns([r["x"] for r in rows]) is not None  # noqa: SLF001
    one_by_one = [parser.from_json(json.dumps(r).encode(), learn=True, batch=False) for r in rows]
    assert fast.indptr.tolist() == [0, 3, 3, 5, 7]
    assert fast.indices.tolist() == [3, 7, 39, 0, 12, 1, 5]
    assert np.array_equal(fast.data, np.concatenate([b.data for b in one_by_one]))
    assert np.array_equal(fast.indices, np.concatenate([b.indices for b in one_by_one]))
    assert fast.y.tolist() == [1, -1, 1, -1]
    declined = [
        ({"3": 1, "03": 2}, r"rows\[1\]\.x: feature index 3 given twice"),
        ({"40": 1}, r"rows\[1\]\.x: feature index 40 is beyond the model's 40 features"),
        ({"1": True}, r"rows\[1\]\.x\['1'\]: a feature value must be a number, got True"),
        ({"1": "2"}, r"rows\[1\]\.x\['1'\]: a feature value must be a number, got '2'"),
        ({"1": 10**400}, r"rows\[1\]\.x\['1'\]: the feature value is not finite"),
        ({"-1": 1}, r"rows\[1\]\.x: feature keys are column indices \(0 to 39\).*'-1'"),
        ({"١": 1}, r"rows\[1\]\.x: feature keys are column indices"),  # an Arabic-Indic 1
    ]
    for x, message in declined:
        bad = json.dumps({"rows": [rows[0], {"x": x, "y": 1}]}).encode()
        with pytest.raises(RequestError, match=message):
            parser.from_json(bad, learn=True, batch=True)
    # Predicting, a column beyond the width is ignored and counted, on either path.
    batch = parser.from_json(b'{"rows": [{"x": {"2": 1, "40": 5}}, {"x": {"2": 1}}]}',
                             learn=False, batch=True)  # fmt: skip
    assert batch.indices.tolist() == [2, 2] and batch.n_unseen == 1


# -- the HTTP face ------------------------------------------------------------------------------


def test_fastapi_routes_answer_as_the_direct_path(tmp_path):
    """POST to the example endpoints skips FastAPI's routing; its routes (which document
    them) answer the same."""
    service = LearningService(_model_file(tmp_path), tmp_path / "log", Options())
    service.start()
    requests = [
        ("/predict", b'{"x": {"3": 1.5}}', "application/json", {}),
        ("/predict", b'{"x": {"3": 1.5}}', "application/json", {"output": "scores"}),
        ("/predict/batch", b"1 3:1.5\n0 2:1\n", "text/plain", {"output": "proba"}),
        ("/predict", b'{"x": {"3": NaN}}', "application/json", {}),
        ("/predict", b'{"x": {}}', "application/json", {"output": "nope"}),
        ("/learn", b'{"x": {"3": 1.5}, "y": "spam"}', "application/json", {}),
        ("/learn/batch", b"1 3:1.5\n", "text/csv", {}),
    ]

    async def ask(client):
        answers = []
        for path, body, kind, params in requests:
            answer = await client.post(
                path, content=body, params=params, headers={"Content-Type": kind}
            )
            answers.append((answer.status_code, answer.json()))
        return answers

    async def learn(client):
        answer = await client.post("/learn/batch", content=b"1 3:1.5\n", headers=TEXT)
        return answer.status_code, answer.json()

    async def both():
        from olearn.serve.app import create_app

        app = create_app(service)
        clients = [  # ServeApp, then its FastAPI application alone
            httpx.AsyncClient(transport=httpx.ASGITransport(app=target), base_url="http://s")
            for target in (app, app.app)
        ]
        answers = [await ask(client) for client in clients]
        answers += [await learn(client) for client in clients]
        for client in clients:
            await client.aclose()
        return answers

    direct, routed, learned, learned_routed = asyncio.run(both())
    assert [s for s, _ in direct] == [200, 200, 200, 400, 422, 422, 415]
    assert direct == routed
    assert learned == (200, {"seq": 1, "learned": 1})
    assert learned_routed == (200, {"seq": 2, "learned": 1})
    service.stop()


def test_a_failed_checkpoint_keeps_the_service_up(tmp_path, monkeypatch, capsys):
    service = LearningService(_model_file(tmp_path), tmp_path / "log", Options(checkpoint_every=1))
    service.start()

    def full_disk(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(olearn, "save", full_disk)

    async def scenario(client):
        first = await client.post("/learn", json={"x": {"1": 1.0}, "y": 1})
        second = await client.post("/learn", json={"x": {"2": 1.0}, "y": -1})
        return first.json(), second.json()

    assert _run(service, scenario) == ({"seq": 1, "learned": 1}, {"seq": 2, "learned": 1})
    # the writer answers a round before it checkpoints: let it finish the second round
    deadline = time.monotonic() + 30
    while service.counters["failed_checkpoints"] < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert service.counters["failed_checkpoints"] == 2 and not service.failed
    assert "cannot write a checkpoint: [Errno 28] No space left" in capsys.readouterr().err
    service.stop()


def test_after_the_log_fails_predictions_and_checkpoints_go_on(tmp_path, monkeypatch):
    """A full disk under the log stops learning only (docs/serve.md, Errors)."""
    service = LearningService(_model_file(tmp_path), tmp_path / "log", Options())
    service.start()

    async def scenario(client):
        learned = await client.post("/learn", json={"x": {"1": 1.0}, "y": 1})

        def full_disk(payloads):
            raise OSError(28, "No space left on device")

        monkeypatch.setattr(service._wal, "append", full_disk)
        answers = [learned]
        answers.append(await client.post("/learn", json={"x": {"2": 1.0}, "y": -1}))
        answers.append(await client.post("/predict", json={"x": {"1": 1.0}}))
        answers.append(await client.post("/checkpoint"))
        answers.append(await client.post("/learn", json={"x": {"2": 1.0}, "y": -1}))
        answers.append(await client.get("/health"))
        head = await client.head("/health")
        return [(r.status_code, r.json()) for r in answers] + [head.status_code]

    first, failed, predicted, checkpoint, refused, health, head = _run(service, scenario)
    # a service that cannot learn until restarted is not healthy: 503, what load balancers
    # and orchestrators act on (it answered 200 with a body they do not read)
    assert health == (503, {"status": "cannot learn"}) and head == 503
    assert first == (200, {"seq": 1, "learned": 1})
    assert failed[0] == 503 and "cannot write the log: [Errno 28]" in failed[1]["detail"]
    assert predicted[0] == 200 and predicted[1]["seq"] == 1
    assert checkpoint == (200, {"seq": 1, "path": str(tmp_path / "log" / "checkpoint.olm")})
    assert refused[0] == 503 and refused[1]["detail"].startswith("the service cannot learn")
    service.stop()


def test_a_log_write_that_fails_is_not_learned_after_a_restart(tmp_path, monkeypatch):
    """The disk fills up under a learn request's log write: its record is written, but the
    ``fdatasync`` fails (where a full disk shows on filesystems that allocate late). The
    request is answered 503; a restart (the process killed, no checkpoint) must not learn it,
    since the client was told it failed (and may send it again): the log takes it back."""
    from olearn.serve import wal

    model_path = _model_file(tmp_path)
    service = LearningService(model_path, tmp_path / "log", Options(checkpoint_seconds=None))
    service.start()
    fdatasync = os.fdatasync

    def full_disk(fd):
        if fd == service._wal._fd and os.fstat(fd).st_size > 100:  # noqa: SLF001
            raise OSError(28, "No space left on device")
        return fdatasync(fd)

    async def scenario(client):
        ok = await client.post("/learn", json={"x": {"1": 1.0}, "y": 1})
        monkeypatch.setattr(wal.os, "fdatasync", full_disk)
        rows = {"rows": [{"x": {"2": 1.0, "3": -1.0}, "y": -1}] * 3}
        failed = await client.post("/learn/batch", json=rows)
        monkeypatch.setattr(wal.os, "fdatasync", fdatasync)
        return ok.json(), failed.status_code

    ok, failed = _run(service, scenario)
    assert ok == {"seq": 1, "learned": 1} and failed == 503
    service._wal.close()  # noqa: SLF001 - the process dies: no checkpoint
    os.close(service._lock_fd)  # noqa: SLF001
    again = LearningService(model_path, tmp_path / "log", Options(checkpoint_seconds=None))
    again.start()
    assert again.counters["seq"] == 1 and again.counters["requests_replayed"] == 1
    one = olearn.load(model_path)
    one.partial_fit(sp.csr_matrix(([1.0], ([0], [1])), shape=(1, one.n_features_in_)), [1.0])
    assert _state_bytes(again.model, tmp_path, "again") == _state_bytes(one, tmp_path, "one")
    again.stop()


def test_a_retry_in_the_same_group_is_answered_as_its_request(tmp_path, monkeypatch):
    """A request and its retry (same Idempotency-Key, same examples) taken in one group:
    the retry was answered "duplicate" (200) before the group was logged, so when the log
    write then failed the client was told its examples were learned while they were not.
    The retry now gets its request's answer, 503 or a duplicate's 200."""
    from olearn.serve.service import _Job

    service = LearningService(_model_file(tmp_path), tmp_path / "log", Options())
    service.start()
    batch = Batch(np.array([0, 1]), np.array([2], np.int32), np.array([1.0]), np.array([1.0]), 40)

    def group():
        jobs = [_Job("learn", batch, "k", records.digest(batch)) for _ in range(2)]
        return [answer for _, answer in service._learn_group(jobs)]  # noqa: SLF001

    def full_disk(payloads):
        raise OSError(28, "No space left on device")

    with monkeypatch.context() as patch:
        patch.setattr(service._wal, "append", full_disk)  # noqa: SLF001
        failed = group()
    assert [status for status, _ in failed] == [503, 503]
    service.failed = None  # (the service stops learning after a failed write; a restart)
    assert group() == [
        (200, {"seq": 1, "learned": 1}),
        (200, {"seq": 1, "learned": 1, "duplicate": True}),
    ]
    assert service.counters["duplicates"] == 1
    service.stop()


def test_schemathesis_finds_no_server_error(tmp_path):
    """Requests generated from the published OpenAPI schema (fitting it, then not fitting
    it) get no 5xx answer; a bounded number of examples per endpoint keeps this fast."""
    schemathesis = pytest.importorskip("schemathesis")
    from schemathesis.generation.modes import GenerationMode

    from olearn.serve.app import create_app

    service = LearningService(_model_file(tmp_path), tmp_path / "log", Options(max_rows=50))
    service.start()
    app = create_app(service, max_body_bytes=1 << 16)
    schema = schemathesis.openapi.from_asgi("/openapi.json", app)
    statuses = {}
    for found in schema.get_all_operations():
        operation = found.ok()
        _no_server_error(operation, GenerationMode.POSITIVE, statuses)
        if operation.body:  # the example endpoints: requests that do not fit too
            _no_server_error(operation, GenerationMode.NEGATIVE, statuses)
    service.stop()
    # The schema describes bodies the service takes: some generated examples were answered.
    examples = ("POST /predict", "POST /predict/batch", "POST /learn", "POST /learn/batch")
    assert 200 in set().union(*(statuses[label] for label in examples))


def _no_server_error(operation, mode, statuses: dict) -> None:
    """Call ``operation`` with 15 generated requests (``mode``: fitting the schema or not);
    note each answer's status in ``statuses``, and fail on a 5xx."""
    from hypothesis import HealthCheck, given, settings

    @given(case=operation.as_strategy(generation_mode=mode))
    @settings(
        max_examples=15,
        deadline=None,
        database=None,
        derandomize=True,
        suppress_health_check=list(HealthCheck),
    )
    def check(case):
        answer = case.call()
        statuses.setdefault(operation.label, set()).add(answer.status_code)
        assert answer.status_code < 500, (case.body, answer.text)

    check()


def test_values_that_would_overflow_the_model_are_refused(binary_model):
    """A request cannot fill the model with infinities: feature values and number labels
    beyond ±1e100 are a 422 naming the field or line, on every path."""
    parser = ExampleParser(binary_model, {"format": "svmlight"}, max_rows=9)
    with pytest.raises(RequestError, match=r"x\['1'\]: 1e\+101 is beyond ±1e\+100"):
        parser.from_json(b'{"x": {"1": 1e101}, "y": 1}', learn=True, batch=False)
    with pytest.raises(RequestError, match=r"rows\[0\]\.x\[3\]: 1e\+300 is beyond"):
        parser.from_json(b'{"rows": [{"x": [0, 0, 0, 1e300' + b", 0" * 36 + b"]}]}",
                         learn=False, batch=True)  # fmt: skip
    with pytest.raises(RequestError, match=r"body:2: -1e\+200 is beyond ±1e\+100"):
        parser.from_text(b"1 1:1\n-1 2:-1e200\n", learn=True, batch=True)
    with pytest.raises(RequestError, match=r"body:1: the label 1e\+300 is too large"):
        parser.from_text(b"1e300 1:1\n", learn=True, batch=True)
    regression = ExampleParser(
        PassiveAggressiveRegressor().fit(sp.eye(3, 40, format="csr"), [1.0, 2.0, 3.0]),
        {"format": "svmlight"},
        max_rows=9,
    )
    with pytest.raises(RequestError, match=r"y: the label 1e\+150 is beyond"):
        regression.from_json(b'{"x": {}, "y": 1e150}', learn=True, batch=False)
    with pytest.raises(RequestError, match=r"y: the label is not finite: 1000"):
        regression.from_json(b'{"x": {}, "y": 1' + b"0" * 400 + b"}", learn=True, batch=False)


def test_a_model_whose_input_description_is_malformed_is_refused_by_name(tmp_path):
    """The service reads data as the model was trained (metadata.input), checked as
    ``olearn predict`` checks it: a malformed description names its field, no crash later
    in the reader."""
    import model_file_craft as craft

    X, y, _ = _data()
    good, bad = tmp_path / "m.olm", tmp_path / "bad.olm"
    olearn.save(olearn.PassiveAggressiveClassifier().fit(X, y), good,
                metadata={"input": {"format": "svmlight"}})  # fmt: skip

    def edit(header):
        header["metadata"]["input"] = {"format": "csv"}

    bad.write_bytes(craft.craft(good.read_bytes(), edit=edit))
    with pytest.raises(ServiceError, match=r"header field 'metadata.input.format' is 'csv'"):
        LearningService(bad, tmp_path / "log", Options()).start()
    service = LearningService(good, tmp_path / "log2", Options())
    service.start()
    service.stop()


def _batch(rows: list[dict], y, width: int = 40) -> Batch:
    indptr = np.cumsum([0] + [len(r) for r in rows]).astype(np.int64)
    indices = np.array([j for r in rows for j in sorted(r)], np.int32)
    data = np.array([r[j] for r in rows for j in sorted(r)], np.float64)
    return Batch(indptr, indices, data, np.asarray(y, np.float64), width)


def test_a_request_whose_step_overflows_is_refused_and_changes_nothing(tmp_path):
    """SGD learns a first row of values near the bound 1e100 (its weights grow to ~1e198),
    and the next row's step overflows: ``partial_fit`` does not apply it (NotLearnedWarning)
    but learns the other rows. The service acknowledged such a request as learned. Now it
    is a 422 naming the overflow, nothing of it is learned (its first row neither), the
    requests of its group are learned as alone, and a restart replays the same model."""
    from olearn.serve.service import _Job

    model_path = _model_file(tmp_path, SGDRegressor().fit(sp.eye(4, 40, format="csr"),
                                                          [1.0, 2.0, 3.0, 4.0]))  # fmt: skip
    log = tmp_path / "log"
    service = LearningService(model_path, log, Options(checkpoint_seconds=None))
    service.start()
    good = [_batch([{5: 1.0, 7: -0.5}], [2.0]), _batch([{6: 2.0}], [-1.0]),
            _batch([{8: 1.0}, {9: 1.0}], [0.5, 3.0])]  # fmt: skip
    huge = {1: 1e100, 2: 1e100, 3: 1e100}
    bad = _batch([huge, huge], [1.0, 1.0])

    def group(*batches):
        jobs = [_Job("learn", b, None, records.digest(b)) for b in batches]
        answers = dict(service._learn_group(jobs))  # noqa: SLF001
        return [answers[job] for job in jobs]

    assert group(good[0]) == [(200, {"seq": 1, "learned": 1})]
    # the group's one partial_fit learns good[1] and bad's first row: taken back (the
    # checkpoint and request 1 learned again), then each request alone
    answers = group(good[1], bad, good[2])
    assert answers[0] == (200, {"seq": 2, "learned": 1})
    assert answers[2] == (200, {"seq": 4, "learned": 2})
    status, message = answers[1]
    assert status == 422 and "1 row(s) cannot be learned" in message
    assert "overflows float64" in message and "nothing of the request was learned" in message
    expected = olearn.load(model_path)
    for batch in good:
        expected.partial_fit(batch.X, batch.y)
    assert _state_bytes(service.model, tmp_path, "live") == _state_bytes(expected, tmp_path, "e")
    assert service.counters["requests_learned"] == 3 and service.counters["seq"] == 4

    async def scenario(client):  # alone, over HTTP: refused, the model unchanged
        rows = {"rows": [{"x": {str(j): v for j, v in huge.items()}, "y": 1}] * 2}
        return await client.post("/learn/batch", json=rows, headers={"Idempotency-Key": "b"})

    answer = _run(service, scenario)
    assert answer.status_code == 422 and "overflows float64" in answer.json()["detail"]
    assert _state_bytes(service.model, tmp_path, "live") == _state_bytes(expected, tmp_path, "e")
    service._wal.close()  # noqa: SLF001 - the process dies: no checkpoint
    os.close(service._lock_fd)  # noqa: SLF001
    again = LearningService(model_path, log, Options(checkpoint_seconds=None))
    again.start()
    assert again.counters["requests_replayed"] == 3
    assert _state_bytes(again.model, tmp_path, "again") == _state_bytes(expected, tmp_path, "e")
    again.stop()


def test_a_model_the_service_cannot_run_leaves_the_log_folder_free(tmp_path):
    """A file that is not a model file made the log folder (and its lock file) before it
    failed, as a missing file no longer does; and a model of a kind the service cannot run
    kept the folder locked: a second start in the same process, with a model it runs, was
    refused as "in use by another olearn serve"."""
    from olearn import UniclassPA

    junk = tmp_path / "junk.olm"
    junk.write_bytes(b"\0" * 100)
    with pytest.raises(ServiceError, match=r"junk\.olm is not an olearn model file"):
        LearningService(junk, tmp_path / "junk.olm.serve", Options()).start()
    assert not (tmp_path / "junk.olm.serve").exists()
    X, _, _ = _data()
    olearn.save(UniclassPA().fit(X.toarray()), tmp_path / "u.olm")
    with pytest.raises(ServiceError, match="UniclassPA is neither"):
        LearningService(tmp_path / "u.olm", tmp_path / "log", Options()).start()
    service = LearningService(_model_file(tmp_path), tmp_path / "log", Options())
    service.start()
    service.stop()
