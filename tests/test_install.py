"""A plain install: no optional package needed by the core, one-line errors naming the extra
when one is missing, the real error through the lazy loader, type information for the lazy
exports, the version, and the notice before a first compilation."""

from __future__ import annotations

import ast
import logging
import subprocess
import sys
import tomllib
from pathlib import Path

import numpy as np
import pytest

import olearn
from olearn import _lazy, _notice, _optional
from olearn.cli import main

SRC = Path(olearn.__file__).resolve().parent
ROOT = SRC.parents[1]


def _stub_names(path: Path) -> set[str]:
    names = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                assert alias.asname == alias.name, f"{path}: re-export {alias.name} as itself"
                names.add(alias.name)
        elif isinstance(node, ast.AnnAssign):
            names.add(node.target.id)
        elif isinstance(node, ast.FunctionDef):
            names.add(node.name)
    return names - {"__all__"}


@pytest.mark.parametrize("package", ["olearn", "olearn.plotting"])
def test_stub_lists_exactly_the_lazy_exports(package):
    module = __import__(package, fromlist=["_EXPORTS"])
    stub = Path(module.__file__).with_suffix(".pyi")
    assert _stub_names(stub) == set(module.__all__)
    # and each name comes from the module the loader imports it from
    for node in ast.parse(stub.read_text()).body:
        if isinstance(node, ast.ImportFrom) and node.module != package:
            for alias in node.names:
                assert module._EXPORTS[alias.name] == node.module, alias.name


def test_typed_package_and_version_are_shipped():
    assert (SRC / "py.typed").is_file()
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    data = config["tool"]["setuptools"]["package-data"]["olearn"]
    assert {"py.typed", "*.pyi"} <= set(data)
    assert config["tool"]["setuptools"]["dynamic"]["version"]["attr"] == "olearn.__version__"
    assert "hash" not in config["project"]["optional-dependencies"]  # no mmh3 extra
    assert not any(d.startswith("mmh3") for d in config["project"]["dependencies"])


def test_version_option(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0
    assert capsys.readouterr().out == f"olearn {olearn.__version__}\n"


def test_lazy_loader_shows_the_real_error(tmp_path, monkeypatch):
    """An AttributeError while importing the defining module (numba too old, say) is not
    turned into "cannot import name": the message names the module and the real error."""
    package = tmp_path / "brokenpkg"
    package.mkdir()
    (package / "__init__.py").write_text(
        "from olearn._lazy import lazy_exports\n"
        "__getattr__, __dir__, __all__ = lazy_exports(__name__, globals(), "
        "{'Thing': 'brokenpkg.impl'})\n"
    )
    (package / "impl.py").write_text(
        "import types\ntypes.SimpleNamespace().UserProvidedCacheLocator\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ImportError) as raised:
        from brokenpkg import Thing  # noqa: F401
    text = str(raised.value)
    assert "cannot import brokenpkg.Thing" in text
    assert "brokenpkg.impl" in text
    assert "AttributeError" in text and "UserProvidedCacheLocator" in text
    for name in [m for m in sys.modules if m.startswith("brokenpkg")]:
        monkeypatch.delitem(sys.modules, name)


def test_outdated_requirements_are_named(monkeypatch):
    from importlib import metadata

    monkeypatch.setattr(
        metadata, "requires", lambda name: ["numba>=0.62", "numpy>=1.26", 'tqdm; extra == "x"']
    )
    versions = {"numba": "0.61.2", "numpy": "2.3.0rc1"}
    monkeypatch.setattr(metadata, "version", lambda name: versions[name])
    assert _lazy.outdated_requirements() == ["numba 0.61.2 is installed; olearn needs numba>=0.62"]


def test_tagger_needs_no_mmh3(tmp_path, monkeypatch, capsys):
    """``pip install olearn`` without extras: the tagger hashes with the compiled
    MurmurHash3, from the library and from ``olearn tag train``."""
    monkeypatch.setitem(sys.modules, "mmh3", None)  # import mmh3 -> ImportError
    from olearn.structured.tagger import SequenceTagger

    X = [["the", "dog", "runs"], ["a", "cat", "sleeps"]]
    y = [["DET", "NOUN", "VERB"], ["DET", "NOUN", "VERB"]]
    assert SequenceTagger(max_iter=3, n_bits=8).fit(X, y).predict(X) == y
    data = tmp_path / "train.tsv"
    data.write_text(
        "\n\n".join(
            "\n".join(map("\t".join, zip(s, t, strict=True))) for s, t in zip(X, y, strict=True)
        )
    )
    model = tmp_path / "m.olm"
    assert main(["tag", "train", str(data), "-o", str(model), "--quiet"]) == 0
    assert model.stat().st_size > 0


def test_missing_matplotlib_is_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    out = tmp_path / "out"
    assert main(["experiment", "fig2", "--quick", "-o", str(out)]) == 1
    captured = capsys.readouterr()
    assert captured.err.splitlines() == [
        "olearn: error: writing the experiments' figures needs matplotlib, which is not "
        "installed: pip install 'olearn[plot]'"
    ]
    assert not out.exists()  # failed before any work
    from olearn.plotting.style import style

    with pytest.raises(_optional.MissingDependencyError, match=r"pip install 'olearn\[plot\]'"):
        with style():
            pass


def test_unknown_import_errors_keep_their_text():
    error = ModuleNotFoundError("No module named 'dask'", name="dask")
    assert _optional.message(error) == "dask is not installed: pip install 'olearn[distributed]'"
    error = ImportError("cannot import name 'x' from 'y'")
    assert _optional.message(error).startswith("cannot import name 'x' from 'y'")


# -- the compile notice ---------------------------------------------------------------------


@pytest.fixture
def fresh_notice(monkeypatch):
    monkeypatch.setattr(_notice, "state", _notice._State())
    monkeypatch.delenv("OLEARN_COMPILE_NOTICE", raising=False)
    return _notice.state


def _compile_in(module: str):
    """Compile a new function whose ``__module__`` is ``module`` (not cached: a fresh
    compilation each time, in milliseconds)."""
    import numba

    def add(a, b):
        return a + b

    add.__module__ = module
    return numba.njit(cache=False)(add)(np.int64(1), np.int64(2))


def test_first_compilation_of_a_group_is_announced_once(fresh_notice, caplog):
    import olearn._compile  # noqa: F401  (installs the listener)

    with caplog.at_level(logging.INFO, logger="olearn.compile"):
        assert _compile_in("olearn.io.fake") == 3
        _compile_in("olearn.io.other")  # same group: said once
        _compile_in("olearn.engine")
        _compile_in("somebody.else")  # not olearn's: silent
        _compile_in("olearn.metrics")  # olearn's, in no named group
    notices = [r.getMessage() for r in caplog.records if r.name == "olearn.compile"]
    notices = [n for n in notices if n.startswith("compiling")]
    assert len(notices) == 3
    assert notices[2].startswith("compiling olearn's compiled loops (first use")
    assert notices[0].startswith("compiling the data readers (first use of this input type")
    assert notices[1].startswith("compiling the linear models' loops")
    assert fresh_notice.depth == 0


def test_compile_notice_is_silenced_by_environment_or_logging(fresh_notice, caplog, monkeypatch):
    import olearn._compile  # noqa: F401

    monkeypatch.setenv("OLEARN_COMPILE_NOTICE", "0")
    with caplog.at_level(logging.INFO, logger="olearn.compile"):
        _compile_in("olearn.io.fake")
    monkeypatch.delenv("OLEARN_COMPILE_NOTICE")
    with caplog.at_level(logging.WARNING, logger="olearn.compile"):
        _compile_in("olearn.engine")
    assert not [r for r in caplog.records if r.getMessage().startswith("compiling")]


def test_warmup_reports_each_group(fresh_notice, monkeypatch, capsys):
    """One line per group with its time, "compiled" when something compiled, else "cached";
    no compile notice inside (the progress says it)."""
    from olearn import _warmup

    compiled = loaded = None

    def compiles():
        nonlocal compiled
        compiled = _compile_in("olearn.engine")

    def loads():
        nonlocal loaded
        loaded = True

    monkeypatch.setattr(_warmup, "GROUPS", (("group one", compiles), ("group two", loads)))
    seconds = olearn.warmup()
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("olearn: warming up (each group compiles once")
    assert err[1].startswith("  group one ... ") and err[1].endswith(" s (compiled)")
    assert err[2].startswith("  group two ... ") and err[2].endswith(" s (cached)")
    assert len(err) == 3 and compiled == 3 and loaded and seconds >= 0
    olearn.warmup(progress=False)
    assert capsys.readouterr().err == ""


#: A newcomer's first calls (README's ten lines, each linear estimator's calls on the input
#: forms they have, the one-event calls, the command line's predict --proba), written apart
#: from ``_warmup``'s own list so that a path it leaves out shows here.
_FIRST_HOUR = """
import os, tempfile
import numpy as np, scipy.sparse as sp
from sklearn.datasets import load_breast_cancer, load_iris, dump_svmlight_file
from sklearn.preprocessing import StandardScaler
import olearn
from olearn import *
from olearn.cli import main

X, y = load_breast_cancer(return_X_y=True)
X = StandardScaler().fit_transform(X)
model = AROWClassifier(r=1.0).fit(X, y)
model.partial_fit(X[:10], y[:10])
model.predict_proba(X[:3])
Xi, yi = load_iris(return_X_y=True)
sparse = sp.csr_matrix(np.where(np.abs(X) > 0.8, X, 0.0))
wide = sparse.copy()
wide.indices, wide.indptr = wide.indices.astype(np.int64), wide.indptr.astype(np.int64)
forms = [X, sparse, wide, X.astype(np.float32), np.asfortranarray(X), sparse.tocoo(),
         sparse.tocsc()]
for make in (PerceptronClassifier, PassiveAggressiveClassifier,
             SecondOrderPerceptronClassifier, CWClassifier, AROWClassifier, SCWClassifier):
    for data, target in [(form, y) for form in forms] + [(Xi, yi), (sp.csr_matrix(Xi), yi)]:
        m = make().fit(data, target)
        m.partial_fit(data, target)
        m.partial_fit(sp.csr_matrix(data)[:1] if sp.issparse(data) else data[:1], target[:1])
        m.predict(data)
        if hasattr(m, "predict_proba"):
            m.predict_proba(data)
            m.predict_proba_one({0: 1.0})
        m.learn_one({0: 1.0, 2: -0.5}, target[0])
        m.predict_one({0: 1.0})
    if make is not SecondOrderPerceptronClassifier:
        make().learn_one({"word": 1.0, "other": 0.5}, 1)
for make in (PassiveAggressiveRegressor, AROWRegressor, SGDRegressor):
    for data in (X, sparse):
        m = make().fit(data, X[:, 0])
        m.partial_fit(data[:1], X[:1, 0])
        m.predict(data)
        m.learn_one({0: 1.0}, 0.5)
UniclassPA().fit(X).predict(X)
folder = tempfile.mkdtemp()
for name, data, target in (("b.svm", X, y), ("m.svm", Xi, yi)):
    path, model_path = os.path.join(folder, name), os.path.join(folder, "m.olm")
    dump_svmlight_file(data, target, path)
    assert main(["train", "arow", path, "-o", model_path, "--quiet"]) == 0
    assert main(["predict", model_path, path, "--proba", "-o", path + ".p", "--quiet"]) == 0
"""


def test_warmup_compiles_what_a_first_hour_uses():
    """After ``olearn.warmup()``, a newcomer's first calls compile nothing (the README says
    it compiles everything ahead): no compiled function of olearn gains a signature. (It
    missed partial_fit's chunk paths, sparse probabilities, the regressors and UniclassPA.)"""
    code = f"""
import gc, warnings
warnings.simplefilter("ignore")
import olearn
from numba.core.dispatcher import Dispatcher

def signatures():
    return {{(d.py_func.__module__ + "." + d.py_func.__qualname__, str(s))
             for d in gc.get_objects() if isinstance(d, Dispatcher)
             and (d.py_func.__module__ or "").startswith("olearn") for s in d.signatures}}

olearn.warmup(progress=False)
before = signatures()
{_FIRST_HOUR}
print("\\n".join(sorted(f"{{name}} {{s}}" for name, s in signatures() - before)))
"""
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=1200
    ).stdout.strip()
    assert out == "", f"compiled after the warm-up:\n{out}"
