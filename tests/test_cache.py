"""A second process reuses the compiled code from the disk cache (no recompilation).

Both processes get the same fresh NUMBA_CACHE_DIR, so the test does not depend on the state of
the tree's own cache: the first one compiles and writes, the second must only read. One entry
point (the loop over dense rows) keeps the cold compile of the first process short.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import olearn

SRC = Path(olearn.__file__).resolve().parents[1]

SCRIPT = """
import json
import numpy as np
from olearn import AROWClassifier, engine

X = np.random.default_rng(0).normal(size=(50, 3))
y = np.where(X[:, 0] > 0, 1, 0)
AROWClassifier(covariance="full").fit(X, y)
stats = engine.run.stats
print(json.dumps({"run": [sum(stats.cache_hits.values()), sum(stats.cache_misses.values())]}))
"""


def run_in_fresh_process(cache_dir: Path) -> dict:
    env = dict(os.environ)
    env["NUMBA_CACHE_DIR"] = str(cache_dir)
    env["PYTHONPATH"] = os.pathsep.join([str(SRC), env.get("PYTHONPATH", "")])
    env.pop("OLEARN_NO_CACHE", None)
    env.pop("NUMBA_DISABLE_JIT", None)
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_second_process_loads_from_the_disk_cache(tmp_path):
    first = run_in_fresh_process(tmp_path)
    assert first["run"][1] > 0  # the empty cache made the first process compile
    assert any(tmp_path.rglob("*.nbi")), "nothing was written to NUMBA_CACHE_DIR"
    second = run_in_fresh_process(tmp_path)
    for name, (hits, misses) in second.items():
        assert hits > 0, f"engine.{name} was not loaded from the cache"
        assert misses == 0, f"engine.{name} was recompiled in the second process"
