"""``olearn serve``: a live learning service (FastAPI + uvicorn, the ``serve`` extra).

* :class:`~olearn.serve.service.LearningService`: one writer thread owns the model, a
  write-ahead log (:mod:`olearn.serve.wal`) and checkpoints.
* :func:`~olearn.serve.app.create_app`: the HTTP endpoints and their OpenAPI schema.
* :mod:`olearn.serve.examples`: request bodies (JSON, svmlight / VW-style lines) to examples.

Importing this package imports neither FastAPI nor the model.
"""
