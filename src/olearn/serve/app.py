"""The HTTP face of the service: an ASGI application (FastAPI for the schema and the small
endpoints, the example endpoints answered directly).

Endpoints (JSON answers; errors are ``{"detail": message}`` with a 4xx or 503 status)::

    POST /predict         one example  -> {"prediction": label, "seq": n}
    POST /predict/batch   examples     -> {"predictions": [...], "seq": n}
    POST /learn           one labelled example  -> {"seq": n, "learned": 1}
    POST /learn/batch     labelled examples     -> {"seq": n, "learned": k}
    POST /checkpoint      write a checkpoint    -> {"seq": n, "path": ...}
    GET  /info            the model, its parameters and counters
    GET  /health          {"status": "ok"} (503 {"status": "cannot learn"} after the log failed)
    GET  /openapi.json    the OpenAPI schema (and /docs, its pages)

Bodies are JSON (``application/json``) or lines in the model's input format (``text/plain``),
as :mod:`olearn.serve.examples` describes. :class:`Endpoints` reads and answers a request from
its ASGI scope: the bodies are parsed there rather than by FastAPI's pydantic models, for the
messages (a NaN, a feature beyond the model's width, a label of the wrong type name the field)
and the speed. The FastAPI routes call it, and :class:`ServeApp` calls it directly for the four
example endpoints: FastAPI's routing and request objects cost more than a prediction (a
measured 2x in requests per second on loopback).
"""

import hmac
import json
from urllib.parse import parse_qs

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from olearn import __version__
from olearn.serve import schema
from olearn.serve.examples import RequestError
from olearn.serve.service import LearningService

# (no ``from __future__ import annotations``: FastAPI reads the endpoints' annotations)

#: Default largest request body, bytes.
DEFAULT_MAX_BODY_BYTES = 8 << 20
OUTPUTS = ("label", "scores", "proba")
#: The example endpoints: path -> (learn, batch).
EXAMPLE_ROUTES = {
    "/predict": (False, False),
    "/predict/batch": (False, True),
    "/learn": (True, False),
    "/learn/batch": (True, True),
}

_JSON = b"application/json"
_TEXT = b"text/plain"


def _dumps(answer: dict) -> bytes:
    return json.dumps(answer, separators=(",", ":"), allow_nan=False).encode()


def _error(status: int, message: str) -> tuple[int, bytes, list]:
    headers = []
    if status == 503:
        headers.append((b"retry-after", b"1"))
    if status == 401:
        headers.append((b"www-authenticate", b"Bearer"))
    return status, _dumps({"detail": message}), headers


def _idempotency_key(headers: dict) -> str | None:
    raw = headers.get(b"idempotency-key")
    if raw is None:
        return None
    if not 1 <= len(raw) <= 200 or not all(33 <= c <= 126 for c in raw):
        raise RequestError(
            422,
            "header Idempotency-Key: 1 to 200 printable ASCII characters, no spaces",
        )
    return raw.decode("ascii")


def _output(query: bytes) -> str:
    if not query:
        return "label"
    given = parse_qs(query.decode("latin-1"), keep_blank_values=True).get("output")
    if not given:
        return "label"
    if given[-1] not in OUTPUTS:
        raise RequestError(
            422, f"query output: one of {', '.join(OUTPUTS)}, got {given[-1]!r}"[:300]
        )
    return given[-1]


class Endpoints:
    """Answers requests to ``service`` from their ASGI scope and ``receive``: the status,
    the JSON body and extra headers. With ``token``, each request needs
    ``Authorization: Bearer <token>``."""

    def __init__(self, service: LearningService, token: str | None, max_body_bytes: int):
        self.service = service
        self.expected = None if token is None else token.encode()
        self.max_body_bytes = int(max_body_bytes)

    async def __call__(self, path: str, scope: dict, receive) -> tuple[int, bytes, list]:
        try:
            return 200, _dumps(await self._answer(path, scope, receive)), []
        except RequestError as error:
            return _error(error.status, error.message)

    async def _answer(self, path: str, scope: dict, receive) -> dict:
        headers = dict(scope["headers"])  # lower-case names (ASGI); a repeated one: the last
        if self.expected is not None:
            # the scheme is case-insensitive (RFC 9110 11.1): "bearer <token>" is as good
            scheme, _, given = headers.get(b"authorization", b"").partition(b" ")
            if not hmac.compare_digest(given, self.expected) or scheme.lower() != b"bearer":
                raise RequestError(401, "a valid 'Authorization: Bearer <token>' header is needed")
        service = self.service
        if path == "/info":
            return service.info()
        if path == "/checkpoint":
            return await service.checkpoint()
        learn, batch = EXAMPLE_ROUTES[path]
        key = _idempotency_key(headers) if learn else None
        output = "label" if learn else _output(scope.get("query_string", b""))
        body, is_json = await self._body(headers, receive)
        parser = service.parser
        read = parser.from_json if is_json else parser.from_text
        examples = read(body, learn=learn, batch=batch)
        if learn:
            return await service.learn(examples, key)
        return await service.predict(examples, output, single=not batch)

    async def _body(self, headers: dict, receive) -> tuple[bytes, bool]:
        """The body (at most ``max_body_bytes``) and whether it is JSON."""
        kind = headers.get(b"content-type", _JSON).split(b";")[0].strip().lower()
        if kind not in (_JSON, _TEXT):
            shown = kind.decode("latin-1")[:100]
            raise RequestError(
                415, f"the body must be application/json or text/plain, not {shown!r}"
            )
        limit = self.max_body_bytes
        length = headers.get(b"content-length", b"")
        if length.isdigit() and int(length) > limit:
            raise RequestError(413, f"the body is larger than {limit} bytes")
        parts = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                raise RequestError(400, "the client went away before sending the whole body")
            part = message.get("body", b"")
            size += len(part)
            if size > limit:
                raise RequestError(413, f"the body is larger than {limit} bytes")
            parts.append(part)
            if not message.get("more_body", False):
                return b"".join(parts), kind == _JSON


class ServeApp:
    """The ASGI application: ``POST`` to an example endpoint goes to ``endpoints`` directly,
    anything else to the FastAPI application ``app`` (which serves the same endpoints, the
    schema and the documentation)."""

    def __init__(self, app: FastAPI, endpoints: Endpoints):
        self.app = app
        self.endpoints = endpoints

    async def __call__(self, scope, receive, send) -> None:
        if (
            scope["type"] == "http"
            and scope["method"] == "POST"
            and scope["path"] in EXAMPLE_ROUTES
        ):
            status, body, headers = await self.endpoints(scope["path"], scope, receive)
            headers += [
                (b"content-type", _JSON),
                (b"content-length", b"%d" % len(body)),
            ]
            await send({"type": "http.response.start", "status": status, "headers": headers})
            await send({"type": "http.response.body", "body": body})
            return
        await self.app(scope, receive, send)

    def openapi(self) -> dict:
        return self.app.openapi()


def create_app(
    service: LearningService,
    *,
    token: str | None = None,
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
) -> ServeApp:
    """The ASGI application serving ``service`` (started). With ``token``, every endpoint
    but ``/health`` and the schema needs ``Authorization: Bearer <token>``."""
    app = FastAPI(
        title="olearn serve",
        version=__version__,
        description=(
            "A live online-learning service: predict, learn from labelled examples, "
            f"checkpoint. Model: {type(service.model).__name__}, "
            f"{service.parser.n_features} features."
        ),
        docs_url="/docs",
        redoc_url=None,
    )
    endpoints = Endpoints(service, token, max_body_bytes)
    max_rows = service.options.max_rows

    def response(status: int, body: bytes, headers: list) -> Response:
        extra = {name.decode(): value.decode() for name, value in headers}
        return Response(body, status, extra, "application/json")

    @app.exception_handler(RequestValidationError)
    async def _validation_error(request, exc: RequestValidationError):
        problems = []
        for item in exc.errors():
            where = ".".join(str(p) for p in item.get("loc", ()))
            problems.append(f"{where}: {item.get('msg')}")
        return response(*_error(422, "; ".join(problems) or "invalid request"))

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request, exc: StarletteHTTPException):
        status, body, headers = _error(exc.status_code, str(exc.detail))
        # Starlette's own headers (a 405's Allow, which HTTP requires) are kept
        headers += [(k.lower().encode(), v.encode()) for k, v in (exc.headers or {}).items()]
        return response(status, body, headers)

    def route(path: str):
        async def endpoint(request: Request) -> Response:
            return response(*await endpoints(path, request.scope, request.receive))

        return endpoint

    errors = schema.error_responses()
    described = {
        "/predict": ("Predict one example", "PredictExample", schema.Prediction),
        "/predict/batch": (
            "Predict several examples",
            "PredictBatch",
            schema.Predictions,
        ),
        "/learn": (
            "Learn from one labelled example",
            "LearnExample",
            schema.Acknowledgement,
        ),
        "/learn/batch": (
            "Learn from several labelled examples",
            "LearnBatch",
            schema.Acknowledgement,
        ),
    }
    for path, (summary, body, answer) in described.items():
        learn, batch = EXAMPLE_ROUTES[path]
        app.post(
            path,
            summary=summary,
            responses={200: {"model": answer}, **errors},
            openapi_extra=schema.operation(body, batch=batch, learn=learn, max_rows=max_rows),
        )(route(path))
    app.post(
        "/checkpoint",
        summary="Write a checkpoint now",
        responses={200: {"model": schema.Checkpoint}, **errors},
    )(route("/checkpoint"))
    app.get(
        "/info",
        summary="The model, its parameters and the service's counters",
        responses={200: {"model": schema.Info}, **errors},
    )(route("/info"))

    @app.get(
        "/health",
        summary="Whether the service is up",
        responses={
            200: {"model": schema.Health},
            503: {"model": schema.Health, "description": "it cannot learn until restarted"},
        },
    )
    async def health() -> Response:
        # A service that cannot learn (its log failed) needs a restart: 503 is what load
        # balancers and orchestrators act on (they do not read a 200's body)
        if service.failed:
            return response(503, _dumps({"status": "cannot learn"}), [])
        return response(200, _dumps({"status": "ok"}), [])

    # HEAD (what uptime monitors send by default): the answer without its body (the server
    # leaves it out); not in the schema, where it would repeat GET
    app.head("/health", include_in_schema=False)(health)

    requests = schema.request_schemas(service.parser, max_rows)
    schema.install(app, token is not None, requests)
    return ServeApp(app, endpoints)
