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


def _json_type(value) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    return {float: "number", str: "string", list: "array", dict: "object"}[type(value)]


def _problems(value, schema: dict, document: dict, at: str = "") -> list[str]:
    """Where ``value`` breaks ``schema`` (the types, items, properties and required fields of
    a JSON Schema: what the answer schemas use)."""
    if "$ref" in schema:
        schema = document["components"]["schemas"][schema["$ref"].rsplit("/", 1)[-1]]
    if "anyOf" in schema:
        found = [_problems(value, s, document, at) for s in schema["anyOf"]]
        return [] if any(not f for f in found) else [f"{at}: {value!r} matches no choice"]
    kind = _json_type(value)
    expected = schema.get("type")
    if expected and not (kind == expected or (kind == "integer" and expected == "number")):
        return [f"{at}: {value!r} is not {expected}"]
    out = []
    if kind == "array" and "items" in schema:
        for i, item in enumerate(value):
            out += _problems(item, schema["items"], document, f"{at}[{i}]")
    if kind == "object":
        out += [f"{at}: no {name}" for name in schema.get("required", []) if name not in value]
        for name, item in value.items():
            inner = schema.get("properties", {}).get(name)
            if inner is None:
                inner = schema.get("additionalProperties")
            if isinstance(inner, dict):
                out += _problems(item, inner, document, f"{at}.{name}")
    return out


def _answer_schema(document: dict, path: str, method: str = "post") -> dict:
    return document["paths"][path][method]["responses"]["200"]["content"]["application/json"][
        "schema"
    ]


@pytest.mark.parametrize(
    "path, body",
    [
        ("/predict", {"x": {"1": 1.0}}),
        ("/predict?output=proba", {"x": {"1": 1.0}}),
        ("/predict/batch", {"rows": [{"x": {"1": 1.0}}, {"x": {"2": 1.0}}]}),
        ("/predict/batch?output=proba", {"rows": [{"x": {"1": 1.0}}]}),
        ("/info", None),
    ],
)
def test_boolean_model_answers_match_the_published_schema(boolean_client, path, body):
    """A model with classes False and True predicts true/false: the OpenAPI schema of the
    answers (predictions, classes) said number or string, so a client generated from it
    could not read them."""
    document = boolean_client.get("/openapi.json").json()
    if body is None:
        answer = boolean_client.get(path)
        schema = _answer_schema(document, path, "get")
    else:
        answer = boolean_client.post(path, json=body)
        schema = _answer_schema(document, path.split("?")[0])
    assert answer.status_code == 200, answer.text
    assert _problems(answer.json(), schema, document) == []


@pytest.mark.parametrize(
    "given, status",
    [
        (None, 401),
        ("Bearer wrong-token-of-twenty", 401),
        (TOKEN, 401),
        (f"Basic {TOKEN}", 401),
        (f"Bearer {TOKEN}x", 401),
        (f"Bearer  {TOKEN}", 401),
        (f"Bearer {TOKEN}", 200),
        (f"bearer {TOKEN}", 200),
        (f"BEARER {TOKEN}", 200),
    ],
)
def test_token_scheme_is_case_insensitive(boolean_client, given, status):
    """HTTP's authentication scheme is case-insensitive: a client sending ``bearer <token>``
    (as some libraries write it) was refused with 401."""
    headers = {"Authorization": given} if given is not None else {}
    if given is None:
        del boolean_client.headers["Authorization"]
    for method, path, body in [("POST", "/predict", {"x": {"1": 1}}), ("GET", "/info", None)]:
        answer = boolean_client.request(method, path, json=body, headers=headers)
        assert answer.status_code == status, (path, answer.text)
        if status == 401:
            assert answer.headers["www-authenticate"] == "Bearer"


@pytest.mark.parametrize(
    "path, name", [("/learn/batch", "LearnBatch"), ("/predict/batch", "PredictBatch")]
)
def test_schema_of_a_batch_refuses_what_the_service_refuses(boolean_client, path, name):
    """``{"rows": []}`` is a 422 ("the body holds no example"): the schema said any list up
    to --max-rows, so a client checking its bodies against it sent one."""
    document = boolean_client.get("/openapi.json").json()
    rows = document["components"]["schemas"][name]["properties"]["rows"]
    assert rows["minItems"] == 1 and rows["maxItems"] == 10_000
    answer = boolean_client.post(path, json={"rows": []})
    assert answer.status_code == 422
    assert answer.json() == {"detail": "the body holds no example"}


def test_error_message_shown_in_the_documentation(boolean_client):
    """docs/serve.md shows an error message naming the field: it is the service's (the one
    shown, for a NaN, could not be: a NaN literal is malformed JSON, a 400)."""
    from pathlib import Path

    docs = Path(__file__).parents[1] / "docs" / "serve.md"
    shown = "rows[3].x['12']: a feature value must be a number, got '1.5'"
    assert f"(`{shown}`)" in docs.read_text()
    rows = [{"x": {"1": 1.0}}] * 3 + [{"x": {"12": "1.5"}}]
    answer = boolean_client.post("/predict/batch", json={"rows": rows})
    assert answer.status_code == 422 and answer.json() == {"detail": shown}
    nan = boolean_client.post("/predict", content=b'{"x": {"1": NaN}}')
    assert nan.status_code == 400


@pytest.fixture
def client_for(tmp_path):
    """``client_for(y, input)``: a client of a service running AROW fitted on labels ``y``
    with 1024 features and the input description ``input``."""
    from fastapi.testclient import TestClient

    from olearn.serve.app import create_app

    services = []

    def make(y, spec):
        X = sp.random(len(y), 1024, density=0.01, format="csr", random_state=0)
        folder = tmp_path / str(len(services))
        folder.mkdir()
        olearn.save(AROWClassifier().fit(X, y), folder / "m.olm", metadata={"input": spec})
        service = LearningService(
            folder / "m.olm", folder / "log", Options(checkpoint_seconds=None)
        )
        service.start()
        services.append(service)
        return TestClient(create_app(service))

    yield make
    for service in services:
        service.stop()


@pytest.mark.parametrize(
    "body",
    [
        rb'{"x": {"w": {"\ud800": 1}}, "y": 1}',  # a feature name
        rb'{"x": {"\udc00": 1}, "y": 1}',
        rb'{"x": {"\ud800": {"apple": 1}}, "y": 1}',  # a namespace
        b'{"x": {"w": {"\xed\xa0\x80": 1}}, "y": 1}',  # a surrogate written in UTF-8
    ],
)
def test_unpaired_surrogate_in_a_feature_name_is_a_400_not_a_500(client_for, body):
    """Python's json reads "\\ud800" into a string that cannot be encoded: hashing the name
    of a VW-style model's feature raised, and the client got a bare 500."""
    client = client_for(np.tile([-1.0, 1.0], 30), {"format": "vw", "bits": 10})
    for path in ("/learn", "/predict"):
        answer = client.post(path, content=body)
        assert answer.status_code == 400, answer.text
        assert "unpaired surrogate" in answer.json()["detail"]
    # a surrogate pair (an emoji, as JSON escapes it) and plain UTF-8 are text
    paired = rb'{"x": {"w": {"\ud83d\ude00": 1, "caf\u00e9": 1, "na' + "ïve".encode() + b'": 1}}}'
    assert client.post("/predict", content=paired).status_code == 200


def test_unpaired_surrogate_label_is_refused(client_for):
    """A string label "\\ud800" was learned as a new class: the checkpoint then held a class
    no output can print (``olearn info`` of it stopped half way)."""
    client = client_for(np.array(["ham", "spam"] * 30), {"format": "svmlight", "zero_based": True})
    answer = client.post("/learn", content=rb'{"x": {"1": 1}, "y": "\ud800"}')
    assert answer.status_code == 400
    assert client.get("/info").json()["classes"] == ["ham", "spam"]
    assert (
        client.post("/learn", content=rb'{"x": {"1": 1}, "y": "\ud83d\ude00"}').status_code == 200
    )
    assert client.get("/info").json()["classes"] == ["ham", "spam", "\U0001f600"]


def test_health_answers_head(boolean_client):
    """Uptime monitors check with HEAD by default: /health answered it 405, so the service
    looked down; HEAD needs no token, as GET, and the schema still lists GET only."""
    del boolean_client.headers["Authorization"]
    answer = boolean_client.head("/health")
    assert answer.status_code == 200 and answer.content == b""
    assert answer.headers["content-type"] == "application/json"
    assert boolean_client.get("/health").json() == {"status": "ok"}
    paths = boolean_client.get("/openapi.json").json()["paths"]
    assert list(paths["/health"]) == ["get"]
