"""The OpenAPI description of the service's bodies (JSON Schemas written for the served model)
and answers (pydantic models). Used for the schema only: :mod:`olearn.serve.examples` parses
the bodies."""

from __future__ import annotations

from pydantic import BaseModel, Field

from olearn.serve.examples import MAX_VALUE

_FEATURES = (
    "an object {column index or feature name: value} (feature names for models trained on "
    "VW-style input, an object value is a namespace), or a list of every column's value"
)
_NUMBER = {"type": "number", "minimum": -MAX_VALUE, "maximum": MAX_VALUE}
#: What a feature or namespace name may hold (the VW reader's separators excluded).
_NAME = {"type": "string", "pattern": r"^[^\s:|]+$"}


def request_schemas(parser, max_rows: int) -> dict:
    """The JSON Schemas of the four request bodies for the model ``parser`` reads for:
    column indices or feature names as keys, the dense list's length, the label's type."""
    if parser.hashed:
        namespace = {
            "type": "object",
            "additionalProperties": _NUMBER,
            "propertyNames": _NAME,
        }
        by_key = {
            "type": "object",
            "additionalProperties": {"anyOf": [_NUMBER, namespace]},
            "propertyNames": _NAME,
        }
    else:
        by_key = {
            "type": "object",
            "additionalProperties": _NUMBER,
            "propertyNames": {"type": "string", "pattern": "^[0-9]+$"},
        }
    n = parser.n_features
    dense = {"type": "array", "items": _NUMBER, "minItems": n, "maxItems": n}
    features = {"anyOf": [by_key, dense], "description": _FEATURES}
    label = {
        "string": {"type": "string"},
        "integer": {"type": "integer"},
        "boolean": {"type": "boolean"},
    }.get(parser.label_kind, _NUMBER)
    label = {**label, "description": "the label"}

    def example(learn: bool) -> dict:
        ignored = {**label, "description": "a label (ignored)"}
        properties = {"x": features, "y": label if learn else ignored}
        required = ["x", "y"] if learn else ["x"]
        return {
            "type": "object",
            "properties": properties,
            "required": required,
            "additionalProperties": False,
        }

    def batch(name: str) -> dict:
        rows = {
            "type": "array",
            "items": {"$ref": f"#/components/schemas/{name}"},
            "minItems": 1,  # no example is a 422
            "maxItems": max_rows,
        }
        return {
            "type": "object",
            "properties": {"rows": rows},
            "required": ["rows"],
            "additionalProperties": False,
        }

    return {
        "PredictExample": example(False),
        "LearnExample": example(True),
        "PredictBatch": batch("PredictExample"),
        "LearnBatch": batch("LearnExample"),
    }


#: A label as the answers write it: a number, a string, or true/false (a model whose classes
#: are booleans).
Label = float | str | bool


class Acknowledgement(BaseModel):
    seq: int = Field(description="the sequence number of the request in the log")
    learned: int = Field(description="examples learned")
    duplicate: bool = Field(False, description="the Idempotency-Key was learned before")


class Prediction(BaseModel):
    seq: int = Field(description="the last request the model had learned")
    prediction: Label | None = None
    score: float | list[float] | None = None
    proba: list[float] | None = None
    classes: list[Label] | None = None
    ignored_features: int | None = Field(None, description="values beyond the model's width")


class Predictions(BaseModel):
    seq: int
    predictions: list[Label] | None = None
    scores: list[float] | list[list[float]] | None = None
    proba: list[list[float]] | None = None
    classes: list[Label] | None = None
    ignored_features: int | None = None


class Checkpoint(BaseModel):
    seq: int
    path: str


class Info(BaseModel):
    estimator: str
    params: dict
    n_features: int
    classes: list[Label] | None
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


OUTPUT = {
    "name": "output",
    "in": "query",
    "required": False,
    "schema": {
        "type": "string",
        "enum": ["label", "scores", "proba"],
        "default": "label",
    },
    "description": "labels, decision scores, or class probabilities (Gaussian models)",
}
IDEMPOTENCY_KEY = {
    "name": "Idempotency-Key",
    "in": "header",
    "required": False,
    "schema": {
        "type": "string",
        "minLength": 1,
        "maxLength": 200,
        "pattern": "^[!-~]+$",
    },
    "description": "a client's name for this request (printable ASCII): a retry with the "
    "same key is learned once; the answer repeats the first one's sequence number",
}


def operation(name: str, *, batch: bool, learn: bool, max_rows: int | None = None) -> dict:
    """The ``requestBody`` and parameters of an endpoint: JSON (the schema ``name``) or
    text lines; the output choice (predictions) or the idempotency key (learning)."""
    lines = "lines" if batch else "one line"
    text = {"type": "string", "description": f"{lines} in the model's input format"}
    if batch and max_rows is not None:
        text["description"] += f" (at most {max_rows})"
    return {
        "parameters": [IDEMPOTENCY_KEY if learn else OUTPUT],
        "requestBody": {
            "required": True,
            "content": {
                "application/json": {"schema": {"$ref": f"#/components/schemas/{name}"}},
                "text/plain": {"schema": text},
            },
        },
    }


def install(app, bearer: bool, requests: dict) -> None:
    """Add the request models (and the bearer scheme) to the app's generated schema."""
    from fastapi.openapi.utils import get_openapi

    def openapi():
        if app.openapi_schema:
            return app.openapi_schema
        document = get_openapi(
            title=app.title,
            version=app.version,
            description=app.description,
            routes=app.routes,
        )
        schemas = document.setdefault("components", {}).setdefault("schemas", {})
        schemas.update(requests)
        if bearer:
            document["components"]["securitySchemes"] = {
                "bearer": {"type": "http", "scheme": "bearer"}
            }
            for path, operations in document["paths"].items():
                if path != "/health":
                    for op in operations.values():
                        op["security"] = [{"bearer": []}]
        app.openapi_schema = document
        return document

    app.openapi = openapi
