"""``olearn serve`` as a process on the loopback address: killed (SIGKILL) while concurrent
clients stream learn requests, restarted, and compared bit for bit with a model trained
offline on exactly the acknowledged requests; the command's checks before it listens.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import os
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pytest
import scipy.sparse as sp

import olearn
from olearn import AROWClassifier
from olearn.cli import main
from olearn.serve.service import _key_id

httpx = pytest.importorskip("httpx")
pytest.importorskip("fastapi")

N_CLIENTS = 4


def _data(n=400, d=30, seed=1):
    rng = np.random.default_rng(seed)
    X = sp.random(n, d, density=0.2, format="csr", random_state=seed)
    y = np.where(X @ rng.normal(size=d) > 0, 1, -1)
    return X, y


def _model_file(tmp_path, X, y):
    path = tmp_path / "model.olm"
    model = AROWClassifier().fit(X[:20], y[:20])
    olearn.save(model, path, metadata={"input": {"format": "svmlight", "zero_based": True}})
    return path


def _state(model, path) -> bytes:
    olearn.save(model, path)
    return path.read_bytes()


def _body(X, y, rows: list[int], text: bool) -> tuple[str, bytes, str]:
    """A learn request for ``rows``: svmlight lines or JSON (path, body, content type)."""
    if text:
        lines = []
        for i in rows:
            pairs = zip(X[i].indices.tolist(), X[i].data.tolist(), strict=True)
            lines.append(f"{y[i]} " + " ".join(f"{j}:{v!r}" for j, v in pairs))
        return "/learn/batch", ("\n".join(lines) + "\n").encode(), "text/plain"
    row = X[rows[0]]
    x = {str(j): v for j, v in zip(row.indices.tolist(), row.data.tolist(), strict=True)}
    return "/learn", json.dumps({"x": x, "y": int(y[rows[0]])}).encode(), "application/json"


def _client(port, k, X, y, acked, pending, stop) -> None:
    """Client ``k``: learn requests until the service dies; each acknowledged one is noted
    with its rows and sequence number, the one in flight when the connection broke too."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    for j in range(10_000):
        if stop.is_set():
            return
        key = f"c{k}-{j}"
        first = (k * 97 + j * 7) % (X.shape[0] - 3)
        rows = [first] if j % 2 == 0 else [first, first + 1, first + 2]
        path, body, kind = _body(X, y, rows, text=j % 2 == 1)
        pending[key] = (rows, path, body, kind)
        try:
            connection.request("POST", path, body, {"Content-Type": kind, "Idempotency-Key": key})
            answer = connection.getresponse()
            data = json.loads(answer.read())
        except (OSError, http.client.HTTPException, ValueError):
            return  # killed: this request's fate is unknown
        if answer.status != 200:
            pending[key] = (answer.status, data)  # a failure the test reports
            return
        acked[key] = (data["seq"], rows)
        del pending[key]


def test_kill_9_during_concurrent_learning_loses_no_acknowledged_request(tmp_path):
    from olearn.serve.app import create_app
    from olearn.serve.service import LearningService, Options

    X, y = _data()
    model_path = _model_file(tmp_path, X, y)
    log = tmp_path / "log"
    command = [sys.executable, "-m", "olearn", "serve", str(model_path), "--port", "0"]
    command += ["--log", str(log), "--checkpoint-every", "25"]
    server = subprocess.Popen(command, stderr=subprocess.PIPE, text=True)
    try:
        port = None
        for line in server.stderr:
            if "listening on http://127.0.0.1:" in line:
                port = int(line.rsplit(":", 1)[1])
                break
        assert port, "olearn serve did not start"
        acked: dict = {}
        pendings = [{} for _ in range(N_CLIENTS)]
        stop = threading.Event()
        clients = [
            threading.Thread(target=_client, args=(port, k, X, y, acked, pendings[k], stop))
            for k in range(N_CLIENTS)
        ]
        for client in clients:
            client.start()
        end = time.monotonic() + 120
        while len(acked) < 80 and time.monotonic() < end and server.poll() is None:
            time.sleep(0.005)
        server.send_signal(signal.SIGKILL)
        server.wait(30)
        stop.set()
        for client in clients:
            client.join(60)
    finally:
        if server.poll() is None:
            server.kill()
        server.wait(30)
    failed = [v for pending in pendings for v in pending.values() if isinstance(v[0], int)]
    assert not failed
    assert len(acked) >= 80
    assert len({seq for seq, _ in acked.values()}) == len(acked)
    segments = sorted(p.name for p in log.glob("wal-*.log"))
    assert segments and segments[0] != "wal-00000000000000000001.log"  # checkpoints happened

    service = LearningService(model_path, log, Options())
    service.start()
    # Every acknowledged request is in the restarted model, with its sequence number; the
    # only others are requests in flight at the kill (logged, their answers never sent).
    in_flight = {key for pending in pendings for key in pending}
    ids = {_key_id(key): key for key in [*acked, *in_flight]}  # the service keeps digests
    assert set(service._keys) <= set(ids)  # noqa: SLF001
    logged = {ids[k]: v for k, v in service._keys.items()}  # noqa: SLF001 - (seq, rows, crc)
    for key, (seq, rows) in acked.items():
        assert logged[key][:2] == (seq, len(rows))

    async def retry(client):  # the clients retry their unanswered requests with their keys
        answers = {}
        for pending in pendings:
            for key, (rows, path, body, kind) in pending.items():
                headers = {"Content-Type": kind, "Idempotency-Key": key}
                answer = await client.post(path, content=body, headers=headers)
                assert answer.status_code == 200, answer.text
                answers[key] = (answer.json()["seq"], rows, answer.json().get("duplicate"))
        return answers

    async def run():
        transport = httpx.ASGITransport(app=create_app(service))
        async with httpx.AsyncClient(transport=transport, base_url="http://serve") as client:
            return await retry(client)

    for key, (seq, rows, duplicate) in asyncio.run(run()).items():
        assert bool(duplicate) == (key in logged)
        acked[key] = (seq, rows)
    # Offline: the model file, then exactly the acknowledged requests in sequence order.
    offline = olearn.load(model_path)
    for _, rows in sorted(acked.values()):
        offline.partial_fit(X[rows], y[rows])
    assert service.counters["seq"] == len(acked) == max(seq for seq, _ in acked.values())
    assert _state(service.model, tmp_path / "a.olm") == _state(offline, tmp_path / "b.olm")
    service.stop()


# -- the command's checks before it listens --------------------------------------------------


def test_binding_beyond_loopback_needs_a_token(tmp_path, capsys):
    X, y = _data(n=40)
    model_path = _model_file(tmp_path, X, y)
    assert main(["serve", str(model_path), "--host", "0.0.0.0"]) == 2
    assert "is not a loopback address: give --token-file" in capsys.readouterr().err
    token = tmp_path / "token"
    token.write_text("short\n")
    assert main(["serve", str(model_path), "--host", "0.0.0.0", "--token-file", str(token)]) == 2
    assert "the token is too short" in capsys.readouterr().err


def test_a_missing_extra_is_one_line(tmp_path, capsys, monkeypatch):
    X, y = _data(n=40)
    model_path = _model_file(tmp_path, X, y)
    monkeypatch.setitem(sys.modules, "fastapi", None)  # as if not installed
    assert main(["serve", str(model_path)]) == 1
    err = capsys.readouterr().err
    assert err == (
        "olearn: error: olearn serve needs fastapi, which is not installed: "
        "pip install 'olearn[serve]'\n"
    )
    assert not os.path.exists(f"{model_path}.serve")  # nothing was created
