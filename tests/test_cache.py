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
import sys
import numpy as np
from olearn import AROWClassifier, engine

X = np.random.default_rng(0).normal(size=(50, 3))
y = np.where(X[:, 0] > 0, 1, 0)
AROWClassifier(covariance="full").fit(X, y)
stats = engine.run.stats
print(json.dumps({"run": [sum(stats.cache_hits.values()), sum(stats.cache_misses.values())],
                  "refreshed": "numba.np.arraymath" in sys.modules}))
"""


def run_in_fresh_process(cache_dir: Path, script: str = SCRIPT) -> dict:
    env = dict(os.environ)
    env["NUMBA_CACHE_DIR"] = str(cache_dir)
    env["PYTHONPATH"] = os.pathsep.join([str(SRC), env.get("PYTHONPATH", "")])
    env.pop("OLEARN_NO_CACHE", None)
    env.pop("NUMBA_DISABLE_JIT", None)
    done = subprocess.run(
        [sys.executable, "-c", script],
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
    assert list(tmp_path.rglob("olearn-runtime-*.nbc")), "the runtime module was not kept"
    second = run_in_fresh_process(tmp_path)
    hits, misses = second["run"]
    assert hits > 0, "engine.run was not loaded from the cache"
    assert misses == 0, "engine.run was recompiled in the second process"
    # loading skipped numba's set-up for compiling (olearn._compile._FunctionCache)
    assert not second["refreshed"]


def test_a_damaged_runtime_module_is_compiled_again(tmp_path):
    run_in_fresh_process(tmp_path)
    for path in tmp_path.rglob("olearn-runtime-*.nbc"):
        path.write_bytes(b"not a pickle")
    second = run_in_fresh_process(tmp_path)
    assert second["run"][0] > 0 and second["run"][1] == 0
    assert all(p.read_bytes() != b"not a pickle" for p in tmp_path.rglob("olearn-runtime-*"))


HASHING = """
import json
import sys
from olearn._compile import jit

@jit
def hashed(n):
    return hash("olearn" + str(n))

print(json.dumps({"value": hashed(12345), "python": hash("olearn12345"),
                  "hits": sum(hashed.stats.cache_hits.values())}))
"""


def test_cached_code_that_hashes_strings_links(tmp_path):
    """Code referring to Python's hash secret is linked after importing numba's hashing
    (olearn._compile._prepare_link); without it the process would abort."""
    script = tmp_path / "hashing.py"
    script.write_text(HASHING)
    os.environ.setdefault("PYTHONHASHSEED", "0")
    command = f"import runpy; runpy.run_path({str(script)!r}, run_name='hashing')"
    first = run_in_fresh_process(tmp_path / "cache", command)
    second = run_in_fresh_process(tmp_path / "cache", command)
    assert first["hits"] == 0 and second["hits"] == 1
    assert second["value"] == second["python"] == first["value"]
