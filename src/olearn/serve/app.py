"""The HTTP face of the service: a FastAPI application.

Endpoints (JSON answers; errors are ``{"detail": message}`` with a 4xx or 503 status)::

    POST /predict         one example  -> {"prediction": label, "seq": n}
    POST /predict/batch   examples     -> {"predictions": [...], "seq": n}
    POST /learn           one labelled example  -> {"seq": n, "learned": 1}
    POST /learn/batch     labelled examples     -> {"seq": n, "learned": k}
    POST /checkpoint      write a checkpoint    -> {"seq": n, "path": ...}
    GET  /info            the model, its parameters and counters
    GET  /health          {"status": "ok"}
    GET  /openapi.json    the OpenAPI schema

Bodies are JSON (``application/json``) or lines in the model's input format (``text/plain``),
as :mod:`olearn.serve.examples` describes. The bodies are parsed here rather than by
FastAPI's pydantic models, for the messages (a NaN, a feature beyond the model's width, a
label of the wrong type name the field) and the speed; the models below document them in
the schema.
"""

import hmac
import json
from typing import Annotated, Literal

from fastapi import FastAPI, Header, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from olearn import __version__
from olearn.serve import schema
from olearn.serve.examples import RequestError
from olearn.serve.service import LearningService

# (no ``from __future__ import annotations``: FastAPI reads the endpoints' annotations)
Output = Annotated[
    Literal["label", "scores", "proba"],
    Query(description="labels, decision scores, or class probabilities (Gaussian models)"),
]
Key = Annotated[
    str | None,
    Header(
        alias="Idempotency-Key",
        min_length=1,
        max_length=200,
        pattern=r"^[!-~]+$",
        description="a client's name for this request (printable ASCII): a retry with "
        "the same key is learned once; the answer repeats the first one's sequence number",
    ),
]

#: Default largest request body, bytes.
DEFAULT_MAX_BODY_BYTES = 8 << 20

_JSON = "application/json"
_TEXT = "text/plain"


def _dumps(answer: dict) -> bytes:
    return json.dumps(answer, separators=(",", ":"), allow_nan=False).encode()


def create_app(
    service: LearningService,
    *,
    token: str | None = None,
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
):
    """The FastAPI application serving ``service`` (started). With ``token``, every endpoint
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
    max_rows = service.options.max_rows

    def error(status: int, message: str) -> Response:
        headers = {}
        if status == 503:
            headers["Retry-After"] = "1"
        if status == 401:
            headers["WWW-Authenticate"] = "Bearer"
        return Response(_dumps({"detail": message}), status, headers, _JSON)

    @app.exception_handler(RequestError)
    async def _request_error(request, exc: RequestError):
        return error(exc.status, exc.message)

    @app.exception_handler(RequestValidationError)
    async def _validation_error(request, exc: RequestValidationError):
        problems = []
        for item in exc.errors():
            where = ".".join(str(p) for p in item.get("loc", ()))
            problems.append(f"{where}: {item.get('msg')}")
        return JSONResponse({"detail": "; ".join(problems) or "invalid request"}, 422)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request, exc: StarletteHTTPException):
        return error(exc.status_code, str(exc.detail))

    expected = None if token is None else f"Bearer {token}".encode()

    def authorize(request: Request) -> None:
        if expected is None:
            return
        given = request.headers.get("authorization", "").encode("latin-1", "replace")
        if not hmac.compare_digest(given, expected):
            raise RequestError(401, "a valid 'Authorization: Bearer <token>' header is needed")

    async def body_of(request: Request) -> tuple[bytes, bool]:
        """The body (at most ``max_body_bytes``) and whether it is JSON."""
        kind = request.headers.get("content-type", _JSON).split(";")[0].strip().lower()
        if kind not in (_JSON, _TEXT):
            raise RequestError(415, f"the body must be {_JSON} or {_TEXT}, not {kind!r}")
        length = request.headers.get("content-length")
        if length is not None and length.isdigit() and int(length) > max_body_bytes:
            raise RequestError(413, f"the body is larger than {max_body_bytes} bytes")
        parts = []
        size = 0
        async for part in request.stream():
            size += len(part)
            if size > max_body_bytes:
                raise RequestError(413, f"the body is larger than {max_body_bytes} bytes")
            parts.append(part)
        return b"".join(parts), kind == _JSON

    async def examples(request: Request, *, learn: bool, batch: bool):
        authorize(request)
        body, is_json = await body_of(request)
        parser = service.parser
        if is_json:
            return parser.from_json(body, learn=learn, batch=batch)
        return parser.from_text(body, learn=learn, batch=batch)

    def answer(result: dict) -> Response:
        return Response(_dumps(result), 200, media_type=_JSON)

    errors = schema.error_responses()

    @app.post(
        "/predict",
        summary="Predict one example",
        responses={200: {"model": schema.Prediction}, **errors},
        openapi_extra=schema.request_body("PredictExample", batch=False),
    )
    async def predict(request: Request, output: Output = "label") -> Response:
        batch = await examples(request, learn=False, batch=False)
        return answer(await service.predict(batch, output, single=True))

    @app.post(
        "/predict/batch",
        summary="Predict several examples",
        responses={200: {"model": schema.Predictions}, **errors},
        openapi_extra=schema.request_body("PredictBatch", batch=True, max_rows=max_rows),
    )
    async def predict_batch(request: Request, output: Output = "label") -> Response:
        batch = await examples(request, learn=False, batch=True)
        return answer(await service.predict(batch, output))

    @app.post(
        "/learn",
        summary="Learn from one labelled example",
        responses={200: {"model": schema.Acknowledgement}, **errors},
        openapi_extra=schema.request_body("LearnExample", batch=False),
    )
    async def learn(request: Request, idempotency_key: Key = None) -> Response:
        batch = await examples(request, learn=True, batch=False)
        return answer(await service.learn(batch, idempotency_key))

    @app.post(
        "/learn/batch",
        summary="Learn from several labelled examples",
        responses={200: {"model": schema.Acknowledgement}, **errors},
        openapi_extra=schema.request_body("LearnBatch", batch=True, max_rows=max_rows),
    )
    async def learn_batch(request: Request, idempotency_key: Key = None) -> Response:
        batch = await examples(request, learn=True, batch=True)
        return answer(await service.learn(batch, idempotency_key))

    @app.post(
        "/checkpoint",
        summary="Write a checkpoint now",
        responses={200: {"model": schema.Checkpoint}, **errors},
    )
    async def checkpoint(request: Request) -> Response:
        authorize(request)
        return answer(await service.checkpoint())

    @app.get(
        "/info",
        summary="The model, its parameters and the service's counters",
        responses={200: {"model": schema.Info}, **errors},
    )
    async def info(request: Request) -> Response:
        authorize(request)
        return answer(service.info())

    @app.get(
        "/health", summary="Whether the service is up", responses={200: {"model": schema.Health}}
    )
    async def health() -> Response:
        return answer({"status": "ok" if not service.failed else "cannot learn"})

    schema.install(app, token is not None)
    return app
