"""``olearn serve``: the HTTP contract as a client meets it (status codes, headers, the
published OpenAPI schema against the answers), on the FastAPI application in this process."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

import olearn
from olearn import AROWClassifier
from olearn.serve.service import LearningService, Options

pytest.importorskip("httpx")  # the test extra installs it; a plain install skips
pytest.importorskip("fastapi")

TOKEN = "a-token-of-twenty-chars"


def _service(tmp_path, y):
    X = sp.random(60, 10, density=0.3, format="csr", random_state=0)
    path = tmp_path / "model.olm"
    olearn.save(
        AROWClassifier().fit(X, y),
        path,
        metadata={"input": {"format": "svmlight", "zero_based": True}},
    )
    service = LearningService(path, tmp_path / "log", Options(checkpoint_seconds=None))
    service.start()
    return service


@pytest.fixture
def boolean_client(tmp_path):
    """A client of a service running a model whose classes are False and True."""
    from fastapi.testclient import TestClient

    from olearn.serve.app import create_app

    y = np.random.default_rng(0).normal(size=60) > 0
    service = _service(tmp_path, y)
    try:
        with TestClient(create_app(service, token=TOKEN)) as client:
            client.headers["Authorization"] = f"Bearer {TOKEN}"
            yield client
    finally:
        service.stop()


@pytest.mark.parametrize(
    "method, path, allowed",
    [
        ("GET", "/predict", "POST"),
        ("PUT", "/learn/batch", "POST"),
        ("DELETE", "/info", "GET"),
        ("POST", "/health", "GET"),
        ("GET", "/checkpoint", "POST"),
    ],
)
def test_method_not_allowed_names_the_allowed_methods(boolean_client, method, path, allowed):
    """A 405 carries the Allow header HTTP requires (the error handler used to drop it)."""
    answer = boolean_client.request(method, path)
    assert answer.status_code == 405
    assert answer.headers["allow"] == allowed
    assert answer.json() == {"detail": "Method Not Allowed"}
