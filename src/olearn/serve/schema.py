"""The OpenAPI description of the service's bodies and answers (pydantic models, used for the
schema only: :mod:`olearn.serve.examples` parses the bodies)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

Features = dict[str, float] | list[float]
_FEATURES = (
    "an object {column index or feature name: value} (feature names for models trained on "
    "VW-style input, an object value is a namespace), or a list of every column's value"
)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class PredictExample(_Strict):
    x: Features = Field(description=_FEATURES)


class LearnExample(_Strict):
    x: Features = Field(description=_FEATURES)
    y: float | str = Field(description="the label: a number, or a string for string classes")


class PredictBatch(_Strict):
    rows: list[PredictExample]


class LearnBatch(_Strict):
    rows: list[LearnExample]


class Acknowledgement(BaseModel):
    seq: int = Field(description="the sequence number of the request in the log")
    learned: int = Field(description="examples learned")
    duplicate: bool = Field(False, description="the Idempotency-Key was learned before")


class Prediction(BaseModel):
    seq: int = Field(description="the last request the model had learned")
    prediction: float | str | None = None
    score: float | list[float] | None = None
    proba: list[float] | None = None
    classes: list[float | str] | None = None
    ignored_features: int | None = Field(None, description="values beyond the model's width")


class Predictions(BaseModel):
    seq: int
    predictions: list[float | str] | None = None
    scores: list[float] | list[list[float]] | None = None
    proba: list[list[float]] | None = None
    classes: list[float | str] | None = None
    ignored_features: int | None = None


class Checkpoint(BaseModel):
    seq: int
    path: str


class Info(BaseModel):
    estimator: str
    params: dict
    n_features: int
    classes: list[float | str] | None
    input: dict
    predict_from: str
    model: str
    log: str
    uptime_seconds: float
    counters: dict[str, int]


class Health(BaseModel):
    status: str


class Error(BaseModel):
    detail: str


_REQUEST_MODELS = (PredictExample, LearnExample, PredictBatch, LearnBatch)

_ERRORS = {
    400: "malformed JSON",
    401: "a bearer token is needed",
    413: "the body or its number of examples is over the limit",
    415: "the body is neither JSON nor text",
    422: "the examples cannot be read or learned (the message names the field or line)",
    503: "the queue is full, or the service cannot learn: retry later",
}


def error_responses() -> dict:
    return {status: {"model": Error, "description": text} for status, text in _ERRORS.items()}


def request_body(name: str, *, batch: bool, max_rows: int | None = None) -> dict:
    """The ``requestBody`` of an endpoint: JSON (the model ``name``) or text lines."""
    lines = "lines" if batch else "one line"
    text = {"type": "string", "description": f"{lines} in the model's input format"}
    if batch and max_rows is not None:
        text["description"] += f" (at most {max_rows})"
    return {
        "requestBody": {
            "required": True,
            "content": {
                "application/json": {"schema": {"$ref": f"#/components/schemas/{name}"}},
                "text/plain": {"schema": text},
            },
        }
    }


def install(app, bearer: bool) -> None:
    """Add the request models (and the bearer scheme) to the app's generated schema."""
    from fastapi.openapi.utils import get_openapi

    def openapi():
        if app.openapi_schema:
            return app.openapi_schema
        document = get_openapi(
            title=app.title, version=app.version, description=app.description, routes=app.routes
        )
        schemas = document.setdefault("components", {}).setdefault("schemas", {})
        for model in _REQUEST_MODELS:
            found = model.model_json_schema(ref_template="#/components/schemas/{model}")
            schemas.update(found.pop("$defs", {}))
            schemas[model.__name__] = found
        if bearer:
            document["components"]["securitySchemes"] = {
                "bearer": {"type": "http", "scheme": "bearer"}
            }
            for path, operations in document["paths"].items():
                if path != "/health":
                    for operation in operations.values():
                        operation["security"] = [{"bearer": []}]
        app.openapi_schema = document
        return document

    app.openapi = openapi
