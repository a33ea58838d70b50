"""``olearn serve MODEL``: a live learning service over HTTP (FastAPI + uvicorn).

Predicts and learns from labelled examples as they arrive; every learn request is on disk
(a write-ahead log, fsynced) before it is learned and acknowledged, and a restart loads the
last checkpoint and learns the log after it again. docs/serve.md describes the endpoints.
Needs the ``serve`` extra: ``pip install 'olearn[serve]'``.
"""

from __future__ import annotations

import argparse
import ipaddress
import os
import sys

from olearn.cli._data import add_debug, parse_size, positive_int


def _port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"not a port number (0 to 65535): {text!r}")
    return value


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"not a positive number of seconds: {text!r}")
    return value


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "serve",
        help="a live learning service over HTTP (predict, learn, checkpoint)",
        description="Serve MODEL over HTTP: predict, learn from labelled examples as they "
        "arrive, checkpoint. Learn requests are logged (fsynced) before they are learned; a "
        "restart replays the log after the last checkpoint. Needs pip install 'olearn[serve]'.",
        allow_abbrev=False,
    )
    parser.add_argument("model", metavar="MODEL", help="a trained model file (olearn train)")
    parser.add_argument("--host", default="127.0.0.1", help="address (default 127.0.0.1)")
    parser.add_argument(
        "--port", type=_port, default=8000, help="port (default 8000; 0: any free port)"
    )
    parser.add_argument(
        "--log",
        metavar="DIR",
        help="folder of the write-ahead log and checkpoints (default: MODEL.serve)",
    )
    when = parser.add_mutually_exclusive_group()
    when.add_argument(
        "--checkpoint-every",
        type=positive_int,
        metavar="N",
        help="checkpoint after every N examples learned",
    )
    when.add_argument(
        "--checkpoint-seconds",
        type=_seconds,
        metavar="S",
        help="checkpoint every S seconds when something was learned (default 60)",
    )
    parser.add_argument(
        "--token-file",
        metavar="F",
        help="require 'Authorization: Bearer <token>' with the token in F (needed to bind "
        "beyond the loopback addresses)",
    )
    parser.add_argument(
        "--predict-from",
        choices=("writer", "snapshot"),
        default="writer",
        help="writer: predictions see every acknowledged request (default); snapshot: "
        "predictions run beside learning on a copy refreshed every --snapshot-seconds",
    )
    parser.add_argument(
        "--snapshot-seconds",
        type=_seconds,
        default=1.0,
        metavar="S",
        help="with --predict-from snapshot: how often the copy is refreshed (default 1)",
    )
    parser.add_argument(
        "--max-body-bytes",
        type=parse_size,
        default="8M",
        metavar="SIZE",
        help="largest request body (default 8M; more: 413)",
    )
    parser.add_argument(
        "--max-rows",
        type=positive_int,
        default=10_000,
        metavar="N",
        help="most examples in one request (default 10000; more: 413)",
    )
    parser.add_argument(
        "--queue-size",
        type=positive_int,
        default=1024,
        metavar="N",
        help="most requests waiting for the writer (default 1024; more: 503)",
    )
    parser.add_argument(
        "--idempotency-keys",
        type=positive_int,
        default=100_000,
        metavar="N",
        help="how many recent Idempotency-Key values are remembered (default 100000)",
    )
    parser.add_argument("--quiet", action="store_true", help="print only errors")
    add_debug(parser)
    parser.set_defaults(run=run)


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def read_token(path: str) -> str:
    with open(path, encoding="utf-8") as handle:
        token = handle.read().strip()
    if not token or any(c.isspace() for c in token) or not token.isprintable():
        raise ValueError(f"{path}: the token must be one word of printable characters")
    if len(token) < 16:
        raise ValueError(f"{path}: the token is too short (at least 16 characters)")
    if os.stat(path).st_mode & 0o077:
        print(
            f"olearn serve: warning: {path} can be read by other users (chmod 600 {path})",
            file=sys.stderr,
        )
    return token


def _serve(server, sock) -> None:
    """Run until SIGTERM or SIGINT (Ctrl-C). uvicorn handles them, then raises the signal
    again once it has closed its connections: here that is noted, not fatal, so the service
    stops cleanly (queued requests answered, a last checkpoint) and the exit code is 0."""
    import signal

    def noted(signum, frame) -> None:
        pass

    previous = {sig: signal.signal(sig, noted) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        server.run(sockets=[sock])
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def run(args) -> int:
    from olearn._optional import require

    require("fastapi", "olearn serve")
    uvicorn = require("uvicorn", "olearn serve")
    token = read_token(args.token_file) if args.token_file else None
    if token is None and not is_loopback(args.host):
        raise ValueError(
            f"--host {args.host} is not a loopback address: give --token-file to require a "
            "bearer token from clients beyond this machine"
        )
    import socket

    from olearn.serve.app import create_app
    from olearn.serve.service import LearningService, Options

    options = Options(
        checkpoint_every=args.checkpoint_every,
        checkpoint_seconds=args.checkpoint_seconds or (None if args.checkpoint_every else 60.0),
        predict_from=args.predict_from,
        snapshot_seconds=args.snapshot_seconds,
        queue_size=args.queue_size,
        max_rows=args.max_rows,
        idempotency_keys=args.idempotency_keys,
    )
    log = args.log or f"{args.model}.serve"
    family = socket.AF_INET6 if ":" in args.host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((args.host.strip("[]"), args.port))
        sock.listen(2048)  # connections wait in the backlog until uvicorn accepts them
    except OSError as error:
        sock.close()
        raise ValueError(f"cannot listen on {args.host}:{args.port}: {error.strerror}") from None
    from olearn.serve.service import ServiceError

    service = LearningService(args.model, log, options)
    try:
        service.start()
    except ServiceError as error:
        sock.close()
        raise ValueError(str(error)) from None
    try:
        app = create_app(service, token=token, max_body_bytes=args.max_body_bytes)
        host, port = sock.getsockname()[:2]
        if not args.quiet:
            counters = service.counters
            replayed = counters["requests_replayed"]
            print(
                f"olearn serve: {type(service.model).__name__}, {service.parser.n_features} "
                f"features; log {log} at request {counters['seq']}"
                + (f" ({replayed} replayed)" if replayed else ""),
                file=sys.stderr,
            )
            shown = f"[{host}]" if family == socket.AF_INET6 else host
            print(f"olearn serve: listening on http://{shown}:{port}", file=sys.stderr, flush=True)
        config = uvicorn.Config(
            app, log_level="warning", access_log=False, timeout_graceful_shutdown=5
        )
        _serve(uvicorn.Server(config), sock)
    finally:
        service.stop()
        sock.close()
    if not args.quiet:
        print(f"olearn serve: stopped at request {service.counters['seq']}", file=sys.stderr)
    return 0
