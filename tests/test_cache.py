"""A second process reuses the compiled code from the disk cache (no recompilation).

Both processes get the same fresh NUMBA_CACHE_DIR, so the test does not depend on the state of
the tree's own cache: the first one compiles and writes, the second must only read. One entry
point (a binary model's pass over dense rows) keeps the cold compile of the first process
short.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import olearn
from olearn import _compile

SRC = Path(olearn.__file__).resolve().parents[1]

SCRIPT = """
import json
import sys
import numpy as np
from olearn import AROWClassifier, engine

X = np.random.default_rng(0).normal(size=(50, 3))
y = np.where(X[:, 0] > 0, 1, 0)
AROWClassifier(covariance="full").fit(X, y)
stats = engine.DENSE_PASSES[engine.FULL].stats  # (what the fit ran: engine.run_pass)
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
    assert hits > 0, "the dense pass was not loaded from the cache"
    assert misses == 0, "the dense pass was recompiled in the second process"
    # loading skipped numba's set-up for compiling (olearn._compile._FunctionCache)
    assert not second["refreshed"]


def test_a_damaged_runtime_module_is_compiled_again(tmp_path):
    run_in_fresh_process(tmp_path)
    for path in tmp_path.rglob("olearn-runtime-*.nbc"):
        path.write_bytes(path.read_bytes()[:-5])  # cut short
    second = run_in_fresh_process(tmp_path)
    assert second["run"][0] > 0 and second["run"][1] == 0
    kept = list(tmp_path.rglob("olearn-runtime-*.nbc"))
    assert kept and all(_compile._read_runtime(p.read_bytes()) for p in kept)


def test_the_runtime_module_file_round_trips_and_refuses_foreign_bytes():
    state = ("nrt", "object", (b"\x7fELF object", b"BC bitcode"))
    data = _compile._runtime_bytes(state)
    assert _compile._read_runtime(data) == state
    for bad in (b"not a runtime module", data[:-1], data + b"x", claims_too_much(data)):
        with pytest.raises(ValueError):
            _compile._read_runtime(bad)


def claims_too_much(data: bytes) -> bytes:
    """A file whose first length claims more bytes than there are."""
    tag = _compile._RUNTIME_TAG
    return tag + (10**9).to_bytes(8, "little") + data[len(tag) + 8 :]


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


def test_a_first_call_types_arrays_as_numba_does():
    """olearn._compile types an exact ndarray argument without numba's typeof (which
    imports numpy.ma): the same numba type for every kind of array, numba's answer for
    anything else."""
    import numpy as np
    import pytest
    from numba import typeof
    from numba.core.errors import NumbaTypeError

    from olearn._compile import jit

    @jit(cache=False)
    def identity(a):
        return a

    readonly = np.arange(4.0)
    readonly.flags.writeable = False
    arrays = [
        np.zeros(3),
        np.zeros(3, np.float32),
        np.arange(3),
        np.arange(3, dtype=np.int32),
        np.zeros(2, np.uint8),
        np.zeros(2, bool),
        np.zeros(2, complex),
        np.zeros(()),
        np.zeros((2, 3)),
        np.zeros((2, 3), order="F"),
        np.zeros((3, 4))[:, ::2],
        readonly,
        np.zeros(3, dtype=[("a", np.float64), ("b", np.int32)]),
    ]
    for array in arrays:
        assert identity.typeof_pyval(array) == typeof(array), array
    nested = (np.zeros(2), (np.zeros((2, 2), order="F"), 1.5, readonly), 3, np.int64(2))
    for other in (1.5, 3, True, np.float32(2), (np.zeros(2), 1), nested, (), "text"):
        assert identity.typeof_pyval(other) == typeof(other), other
    with pytest.raises(NumbaTypeError):  # numba refuses masked arrays, and so do we
        identity.typeof_pyval(np.ma.masked_array([1.0]))
    assert identity(np.zeros((2, 3), order="F")).flags.f_contiguous


UNWRITABLE = """
import json
import resource
import warnings
import numpy as np

resource.setrlimit(resource.RLIMIT_FSIZE, (20_000, 20_000))  # cache files cannot be written
from olearn import AROWClassifier

X = np.random.default_rng(0).normal(size=(50, 3))
y = np.where(X[:, 0] > 0, 1, 0)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    model = AROWClassifier(covariance="full").fit(X, y)
    model.predict(X)
print(json.dumps({"score": model.score(X, y),
                  "warnings": [str(w.message) for w in caught if w.category is RuntimeWarning]}))
"""


@pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_FSIZE as on Linux")
def test_a_cache_that_cannot_be_written_costs_the_cache_only(tmp_path):
    """Files the cache cannot write (here a file size limit: ``File too large``, as a full
    disk gives ``No space left``) leave the compiled code to this process: the model is fit,
    with one warning naming the folder, and nothing half-written is left to load."""
    done = run_in_fresh_process(tmp_path, UNWRITABLE)
    assert done["score"] > 0.8
    assert len(done["warnings"]) == 1
    assert str(tmp_path) in done["warnings"][0] and "File too large" in done["warnings"][0]
    assert not list(tmp_path.rglob("*.tmp.*"))
    again = run_in_fresh_process(tmp_path)  # without the limit: compiles, writes, works
    assert again["run"][1] > 0 and any(tmp_path.rglob("*.nbc"))
