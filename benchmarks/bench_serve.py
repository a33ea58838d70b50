"""How fast is ``olearn serve``? Requests per second and latency on the loopback address.

Trains a model on a generated sparse set (``--features`` columns, ``--nnz`` nonzeros a row),
starts ``olearn serve`` on it in a subprocess, and loads each endpoint with ``wrk`` (a Lua
script cycles through 64 different request bodies):

* predict, one example a request (JSON);
* predict, ``--rows`` examples a request (JSON);
* learn, one example a request (JSON);
* learn, ``--rows`` examples a request (svmlight lines, then JSON).

Each case runs ``--repeats`` times, the cases interleaved; the table gives the medians of
requests/s, examples/s, wrk's 50th and 99th percentile latencies, and the service's CPU time
per request (user + system, from /proc: what one core gives, whatever else runs), with the
load average (``uptime``) before each run: other processes on the machine lower the rates.

Usage::

    .venv/bin/python benchmarks/bench_serve.py [--seconds 10] [--repeats 3]
        [--connections 16] [--rows 100] [--predict-from writer|snapshot]

Needs ``wrk`` (Debian: ``apt-get install wrk``) and the ``serve`` extra.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
N_BODIES = 64


def _examples(rng, n: int, features: int, nnz: int, w: np.ndarray):
    """``n`` rows of ``nnz`` distinct columns, labels ±1 from the hidden weights ``w``."""
    rows = []
    for _ in range(n):
        columns = np.sort(rng.choice(features, nnz, replace=False))
        values = np.round(rng.normal(size=nnz), 4)
        rows.append((columns, values, 1 if values @ w[columns] > 0 else -1))
    return rows


def _json_row(row, learn: bool) -> dict:
    columns, values, label = row
    out = {"x": {str(c): float(v) for c, v in zip(columns, values, strict=True)}}
    if learn:
        out["y"] = label
    return out


def _text_row(row) -> str:
    columns, values, label = row
    return f"{label} " + " ".join(f"{c}:{v:g}" for c, v in zip(columns, values, strict=True))


def _bodies(case: str, rows: list, per_request: int) -> list[str]:
    bodies = []
    for b in range(N_BODIES):
        chunk = [rows[(b * per_request + i) % len(rows)] for i in range(per_request)]
        learn = case.startswith("learn")
        if case.endswith("text"):
            bodies.append("\n".join(_text_row(r) for r in chunk) + "\n")
        elif per_request == 1:
            bodies.append(json.dumps(_json_row(chunk[0], learn), separators=(",", ":")))
        else:
            body = {"rows": [_json_row(r, learn) for r in chunk]}
            bodies.append(json.dumps(body, separators=(",", ":")))
    return bodies


def _lua(path: str, content_type: str, bodies: list[str]) -> str:
    quoted = ",\n".join(f"[==[{b}]==]" for b in bodies)
    return f"""local bodies = {{
{quoted}
}}
local headers = {{["Content-Type"] = "{content_type}"}}
local i = 0
request = function()
  i = i % #bodies + 1
  return wrk.format("POST", "{path}", headers, bodies[i])
end
"""


def _seconds(text: str) -> float:
    value, unit = re.fullmatch(r"([\d.]+)(us|ms|s|m)", text).groups()
    return float(value) * {"us": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0}[unit]


def _wrk(url: str, script: Path, seconds: int, connections: int) -> dict:
    out = subprocess.run(
        ["wrk", "-t1", f"-c{connections}", f"-d{seconds}s", "--latency", "-s", str(script), url],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    found = {"rps": float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))}
    for pct in ("50", "99"):
        found[f"p{pct}"] = _seconds(re.search(rf"\s{pct}%\s+(\S+)", out).group(1))
    bad = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    errors = re.search(r"Socket errors: (.*)", out)
    found["non_2xx"] = int(bad.group(1)) if bad else 0
    found["socket_errors"] = errors.group(1) if errors else ""
    return found


def _cpu_seconds(pid: int) -> float:
    """User + system CPU time of process ``pid`` so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _load_average() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_up(url: str, process, timeout: float = 300.0) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if process.poll() is not None:
            sys.exit(f"olearn serve stopped: exit code {process.returncode}")
        try:
            with urllib.request.urlopen(url + "/health", timeout=2) as answer:
                if answer.status == 200:
                    return
        except OSError:
            time.sleep(0.2)
    sys.exit("olearn serve did not start")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=int, default=10, help="length of a wrk run")
    parser.add_argument("--repeats", type=int, default=3, help="runs of each case")
    parser.add_argument("--connections", type=int, default=16, help="wrk connections")
    parser.add_argument("--rows", type=int, default=100, help="examples in a batch request")
    parser.add_argument("--features", type=int, default=1000)
    parser.add_argument("--nnz", type=int, default=20, help="nonzeros a row")
    parser.add_argument("--predict-from", choices=("writer", "snapshot"), default="writer")
    parser.add_argument("--cases", help="comma-separated subset of the cases")
    args = parser.parse_args(argv)
    if shutil.which("wrk") is None:
        sys.exit("bench_serve needs wrk: apt-get install wrk")

    import olearn
    from olearn import AROWClassifier

    rng = np.random.default_rng(0)
    w = rng.normal(size=args.features)
    rows = _examples(rng, 4000, args.features, args.nnz, w)
    cases = {  # name -> (path, content type, examples a request)
        "predict": ("/predict", "application/json", 1),
        "predict batch": ("/predict/batch", "application/json", args.rows),
        "learn": ("/learn", "application/json", 1),
        "learn batch text": ("/learn/batch", "text/plain", args.rows),
        "learn batch": ("/learn/batch", "application/json", args.rows),
    }
    if args.cases:
        cases = {name: cases[name] for name in args.cases.split(",")}
    with tempfile.TemporaryDirectory(prefix="bench_serve_") as tmp:
        tmp = Path(tmp)
        from scipy.sparse import csr_matrix

        X = csr_matrix(
            (
                np.concatenate([r[1] for r in rows[:1000]]),
                np.concatenate([r[0] for r in rows[:1000]]),
                np.arange(0, 1001 * args.nnz, args.nnz),
            ),
            shape=(1000, args.features),
        )
        model = AROWClassifier().fit(X, [r[2] for r in rows[:1000]])
        model_path = tmp / "model.olm"
        spec = {"format": "svmlight", "zero_based": True}
        olearn.save(model, model_path, metadata={"input": spec})
        scripts = {}
        for name, (path, kind, per_request) in cases.items():
            scripts[name] = tmp / f"{name.replace(' ', '_')}.lua"
            scripts[name].write_text(_lua(path, kind, _bodies(name, rows, per_request)))
        port = _free_port()
        command = [sys.executable, "-m", "olearn", "serve", str(model_path), "--port", str(port)]
        command += ["--log", str(tmp / "log"), "--quiet", "--predict-from", args.predict_from]
        server = subprocess.Popen(command)
        url = f"http://127.0.0.1:{port}"
        try:
            _wait_up(url, server)
            for name in cases:  # warm-up: compiled code, caches
                _wrk(url + cases[name][0], scripts[name], 1, 2)
            results: dict[str, list] = {name: [] for name in cases}
            for _ in range(args.repeats):
                for name, (path, _, _) in cases.items():
                    load = _load_average()
                    cpu = _cpu_seconds(server.pid)
                    found = _wrk(url + path, scripts[name], args.seconds, args.connections)
                    found["cpu"] = _cpu_seconds(server.pid) - cpu
                    found["load"] = load
                    results[name].append(found)
                    print(f"{name}: {found}", file=sys.stderr, flush=True)
            with urllib.request.urlopen(url + "/info") as answer:
                counters = json.load(answer)["counters"]
        finally:
            server.terminate()
            server.wait(60)
    commit = subprocess.run(
        ["git", "-C", str(HERE), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    print(
        f"\nolearn serve, AROWClassifier, {args.features} features, {args.nnz} nonzeros a row, "
        f"predictions from the {args.predict_from}; wrk -t1 -c{args.connections} "
        f"-d{args.seconds}s, median of {args.repeats} (commit {commit}, {os.cpu_count()} CPUs)\n"
    )
    print(
        "| case | examples/request | requests/s | examples/s | p50 ms | p99 ms | non-2xx "
        "| service CPU µs/request | load average (1, 5, 15 min) before each run |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---|")
    for name, (_, _, per_request) in cases.items():
        runs = results[name]
        rps = statistics.median(r["rps"] for r in runs)
        p50 = statistics.median(r["p50"] for r in runs) * 1e3
        p99 = statistics.median(r["p99"] for r in runs) * 1e3
        bad = sum(r["non_2xx"] for r in runs)
        # CPU time of the service per request: what a core would give it, whatever the load.
        cpu = statistics.median(r["cpu"] / (r["rps"] * args.seconds) for r in runs) * 1e6
        loads = "; ".join(r["load"] for r in runs)
        print(
            f"| {name} | {per_request} | {rps:,.0f} | {rps * per_request:,.0f} | {p50:.2f} "
            f"| {p99:.2f} | {bad} | {cpu:,.0f} | {loads} |"
        )
    print(f"\nservice counters after the runs: {counters}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
