"""Fuzzing the model-file loader: truncations, bit flips, crafted files with recomputed
checksums, header and array mutations, on a model of every family.

Every mutated file must either be refused with a ValueError that names the file, or load into
a model that predicts finite values and keeps training (compiled code included) without
error. A missed check could crash the process in compiled code, so the loop runs in a child
process with a small time budget; a crash is reported with the case that caused it.

Reproduce a case: ``python tests/test_model_file_fuzz.py SEED SECONDS`` prints each case
before trying it (``--verbose``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src"
SEED = 20241125
BUDGET_SECONDS = 4.0


def test_mutated_model_files_never_crash_and_are_refused_by_name():
    out = subprocess.run(
        [sys.executable, "-X", "faulthandler", __file__, str(SEED), str(BUDGET_SECONDS)],
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), str(HERE)])},
        capture_output=True,
        text=True,
        timeout=600,
    )
    lines = out.stdout.splitlines()
    assert out.returncode == 0, (
        f"the fuzzing child died ({out.returncode}) on: "
        f"{lines[-1] if lines else '?'}\n{out.stderr[-3000:]}"
    )
    summary = json.loads(lines[-1])
    assert summary["problems"] == [], summary["problems"][:5]
    # the loop did work of every kind: refusals, and mutations that still load
    assert summary["cases"] >= 200, summary
    assert summary["refused"] > 50 and summary["loaded"] > 10, summary
    assert set(summary["kinds"]) == set(MUTATIONS), summary


# -- the child ---------------------------------------------------------------------------


def _bases(folder: Path) -> dict[str, bytes]:
    """A small fitted model of each family, as file bytes (plus format 1 golden files)."""
    import scipy.sparse as sp

    import olearn

    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 4))
    y3 = np.argmax(X[:, :3], axis=1)
    yb = (X[:, 0] > 0).astype(int)
    Xs = sp.csr_matrix(np.where(np.abs(X) > 0.5, X, 0.0))
    indicator = np.eye(3, dtype=int)[y3]
    indicator[:, 2] |= yb
    indicator[indicator.sum(1) == 3, 0] = 0
    models = {
        "arow": olearn.AROWClassifier().fit(X, yb),
        "arow-full-multiclass": olearn.AROWClassifier(covariance="full").fit(X, y3),
        "perceptron-averaged": olearn.PerceptronClassifier(average=True).fit(X, y3),
        "pa-multilabel": olearn.PassiveAggressiveClassifier().fit(X, indicator),
        "sgd": olearn.SGDRegressor().fit(X, X[:, 0]),
        "uniclass": olearn.UniclassPA(learn_epsilon=True, B=2.0).fit(X),
        "kernel-sparse-merge": olearn.KernelPAClassifier(budget=5, maintenance="merge").fit(Xs, y3),
        "kernel-project": olearn.BudgetedSGDClassifier(budget=5, maintenance="project").fit(X, yb),
        "norma-regressor": olearn.NORMARegressor(truncation=6).fit(X, X[:, 1]),
        "joint": olearn.JointFeatureClassifier(rule="arow").fit(
            rng.normal(size=(30, 3, 4)), np.arange(30) % 3
        ),
        "tagger": olearn.SequenceTagger(rule="AROW", n_bits=3, max_iter=2).fit(*_sentences()),
    }
    bases = {}
    for name, model in models.items():
        olearn.save(model, folder / "base.olm")
        bases[name] = (folder / "base.olm").read_bytes()
    for path in sorted((HERE / "golden" / "model_format_1").glob("*.olm")):
        bases[f"v1-{path.stem}"] = path.read_bytes()
    return bases


def _sentences():
    X = [["the", "dog", "runs"], ["a", "cat", "sleeps"], ["dogs", "run"]]
    y = [["D", "N", "V"], ["D", "N", "V"], ["N", "V"]]
    return X, y


def _exercise(model) -> None:
    """Predict (finite) and train on a little data shaped as the model expects."""
    import scipy.sparse as sp

    name = type(model).__name__
    if name == "SequenceTagger":
        X, y = _sentences()
        model.predict(X)
        y = [[model.classes_[i % len(model.classes_)] for i in range(len(s))] for s in X]
        model.partial_fit(X, y)
        return
    if name == "UniclassPA":
        Y = np.ones((3, model.n_features_in_))
        assert np.isfinite(model.predict()).all()
        model.partial_fit(Y)
        assert np.isfinite(model.predict()).all()
        return
    if name == "JointFeatureClassifier":
        P = np.ones((4, len(model.classes_), model.n_joint_features_))
        assert np.isfinite(model.decision_function(P)).all()
        model.partial_fit(P, model.classes_[np.arange(4) % len(model.classes_)])
        return
    d = model.n_features_in_
    if d > 100_000:
        raise AssertionError(f"a model of {d} features loaded from a small file")
    X = np.linspace(-1, 1, 4 * d).reshape(4, d)
    if getattr(model, "_sparse_storage", False):
        X = sp.csr_matrix(X)
    scores = model.decision_function(X) if hasattr(model, "decision_function") else None
    predictions = model.predict(X)
    if scores is not None:
        assert np.isfinite(scores).all(), "non-finite scores"
    if predictions.dtype.kind == "f":
        assert np.isfinite(predictions).all(), "non-finite predictions"
    if not hasattr(model, "classes_"):
        model.partial_fit(X, np.arange(4.0))
    elif getattr(model, "task_", "") == "multilabel":
        model.partial_fit(X, np.eye(len(model.classes_), dtype=int)[np.arange(4) % 2])
    else:
        model.partial_fit(X, model.classes_[np.arange(4) % len(model.classes_)])
    if hasattr(model, "learn_one"):
        y = model.classes_[0] if hasattr(model, "classes_") else 0.5
        if getattr(model, "task_", "") != "multilabel":
            model.learn_one({0: 1.0, d - 1: 2.0}, y)
    if scores is not None:
        assert np.isfinite(model.decision_function(X)).all(), "non-finite scores after training"


def _truncate(rng, data, context):
    return data[: int(rng.integers(0, len(data)))], "truncated"


def _flip(rng, data, context):
    out = bytearray(data)
    for _ in range(int(rng.integers(1, 4))):
        out[int(rng.integers(0, len(out)))] ^= 1 << int(rng.integers(0, 8))
    return bytes(out), "bits flipped"


def _flip_resealed(rng, data, context):
    craft = context["craft"]
    version, header, payload = craft.split(data)
    raw = json.dumps(header).encode()
    body = bytearray(raw + payload)
    start = 0 if rng.random() < 0.3 else len(raw)  # the header, or the payload
    for _ in range(int(rng.integers(1, 4))):
        position = int(rng.integers(start, len(body)))
        body[position] ^= 1 << int(rng.integers(0, 8))
    return craft.pack(version, bytes(body[: len(raw)]), bytes(body[len(raw) :])), "resealed flips"


_ODD_VALUES = [
    None, True, False, 0, -1, 1, 2**31, 2**63, -(2**63), 10**30, 0.5, -0.0, 1e308, "",
    "binary", "x" * 40, [], [1, 2], {}, {"__float__": "nan"}, {"__array__": "weights_"},
    {"__sequence__": "list", "items": [1]}, {"__mapping__": [[1, 2]]},
]  # fmt: skip


def _paths(value, prefix=()):
    yield prefix
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _paths(item, (*prefix, index))


def _header_mutation(rng, data, context):
    craft = context["craft"]
    version, header, payload = craft.split(data)
    paths = [p for p in _paths(header) if p]
    path = paths[int(rng.integers(0, len(paths)))]
    parent = header
    for key in path[:-1]:
        parent = parent[key]
    action = rng.random()
    if action < 0.15 and isinstance(parent, dict):
        del parent[path[-1]]
        what = "deleted"
    elif action < 0.25 and isinstance(parent, dict):
        parent[f"extra{int(rng.integers(0, 9))}_"] = _ODD_VALUES[
            int(rng.integers(0, len(_ODD_VALUES)))
        ]
        what = "added a key beside"
    else:
        old = parent[path[-1]]
        if isinstance(old, int) and not isinstance(old, bool) and rng.random() < 0.5:
            new = old + int(rng.choice([-2, -1, 1, 2, 1000, 2**40]))
        else:
            new = _ODD_VALUES[int(rng.integers(0, len(_ODD_VALUES)))]
        parent[path[-1]] = new
        what = f"set to {new!r:.30}"
    return craft.pack(version, json.dumps(header).encode(), payload), f"header {path} {what}"


def _array_mutation(rng, data, context):
    craft = context["craft"]
    arrays = craft.arrays_of(data)
    name = sorted(arrays)[int(rng.integers(0, len(arrays)))]
    array = arrays[name]
    action = int(rng.integers(0, 6))
    if action == 0 and array.size and array.dtype.kind in "fiu":
        array = array.copy()
        index = int(rng.integers(0, array.size))
        odd = [-1, 0, 7, 10**6, 2**40] + (
            [np.nan, np.inf, -1e3, 1e3] if array.dtype.kind == "f" else []
        )
        value = odd[int(rng.integers(0, len(odd)))]
        array.reshape(-1)[index] = value
        what = f"[{index}] = {value}"
    elif action == 1 and array.ndim:
        axis = int(rng.integers(0, array.ndim))
        array = np.delete(array, -1, axis=axis) if array.shape[axis] else array
        what = f"one shorter on axis {axis}"
    elif action == 2 and array.ndim:
        axis = int(rng.integers(0, array.ndim))
        array = np.concatenate(
            [array, np.take(array, [0], axis=axis) if array.shape[axis] else array], axis=axis
        )
        what = f"one longer on axis {axis}"
    elif action == 3 and array.dtype.kind in "fiu":
        dtype = [np.float32, np.int32, np.int64, np.float64, np.uint8][int(rng.integers(0, 5))]
        array = array.astype(dtype)
        what = f"as {np.dtype(dtype)}"
    elif action == 4:
        array = np.zeros((0,) * max(array.ndim, 1), dtype=array.dtype)
        what = "emptied"
    else:
        array = None
        what = "deleted"
    return craft.craft(data, arrays={name: array}), f"array {name} {what}"


MUTATIONS = {
    "truncate": _truncate,
    "flip": _flip,
    "flip-resealed": _flip_resealed,
    "header": _header_mutation,
    "array": _array_mutation,
}


def _child(seed: int, seconds: float, verbose: bool) -> None:
    import warnings

    import model_file_craft as craft

    import olearn

    warnings.simplefilter("ignore")
    folder = Path(tempfile.mkdtemp(prefix="olearn-fuzz-"))
    bases = _bases(folder)
    for data in bases.values():  # every base loads and trains as it is
        path = folder / "case.olm"
        path.write_bytes(data)
        _exercise(olearn.load(path))
    context = {"craft": craft}
    counts = {"cases": 0, "refused": 0, "loaded": 0, "kinds": [], "problems": []}
    kinds, names = sorted(MUTATIONS), sorted(bases)
    started = time.perf_counter()
    i = 0
    while time.perf_counter() - started < seconds:
        rng = np.random.default_rng([seed, i])
        kind = kinds[i % len(kinds)]
        base = names[int(rng.integers(0, len(names)))]
        case = f"case {i} (seed {seed}): {base}, {kind}"
        i += 1
        try:
            data, what = MUTATIONS[kind](rng, bases[base], context)
        except Exception:  # a mutation that does not apply to this base
            continue
        case += f": {what}"
        print(case, flush=True)
        case_started = time.perf_counter()
        path = folder / "case.olm"
        path.write_bytes(data)
        counts["cases"] += 1
        if kind not in counts["kinds"]:
            counts["kinds"].append(kind)
        try:
            model = olearn.load(path)
        except ValueError as error:
            counts["refused"] += 1
            if str(path) not in str(error):
                counts["problems"].append(f"{case}: message without the file: {error}")
            continue
        except Exception as error:
            counts["problems"].append(f"{case}: {type(error).__name__}: {error}")
            continue
        counts["loaded"] += 1
        try:
            _exercise(model)
        except ValueError:
            pass  # e.g. labels of another kind than the mutated classes
        except Exception as error:
            detail = traceback.format_exc(limit=-2) if verbose else ""
            counts["problems"].append(f"{case}: then {type(error).__name__}: {error} {detail}")
        if verbose:
            print(f"  {time.perf_counter() - case_started:.3f} s", flush=True)
    counts["seconds"] = round(time.perf_counter() - started, 2)
    print(json.dumps(counts), flush=True)


if __name__ == "__main__":
    _child(int(sys.argv[1]), float(sys.argv[2]), "--verbose" in sys.argv)
