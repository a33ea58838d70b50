"""The model file is a trust boundary: crafted files (checksums recomputed, as anyone can)
are refused with a ValueError naming the file and what is wrong, before compiled code or a
large allocation happens. One regression test per case of issue 12; the "before" of each case
(olearn at dccf3ef) is in its comment."""

import os
import subprocess
import sys
import tracemalloc
from pathlib import Path

import model_file_craft as craft
import numpy as np
import pytest
import scipy.sparse as sp

import olearn
from olearn.cli import main
from olearn.io import model_file
from olearn.io._files import atomic_write

SRC = Path(__file__).resolve().parents[1] / "src"
GOLDEN = Path(__file__).parent / "golden"


def _xy(n=100, d=6, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    return X, (X[:, 0] > 0).astype(int)


@pytest.fixture(scope="module")
def arow(tmp_path_factory) -> bytes:
    path = tmp_path_factory.mktemp("base") / "arow.olm"
    olearn.save(olearn.AROWClassifier().fit(*_xy()), path)
    return path.read_bytes()


@pytest.fixture(scope="module")
def kernel(tmp_path_factory) -> bytes:
    X, y = _xy(60, 5, seed=1)
    X = sp.csr_matrix(np.where(np.abs(X) > 0.6, X, 0.0))
    path = tmp_path_factory.mktemp("base") / "kernel.olm"
    olearn.save(olearn.KernelPAClassifier(budget=6, maintenance="merge").fit(X, y), path)
    return path.read_bytes()


@pytest.fixture(scope="module")
def tagger(tmp_path_factory) -> bytes:
    X = [["the", "dog", "runs"], ["a", "cat", "sleeps"]]
    y = [["D", "N", "V"], ["D", "N", "V"]]
    path = tmp_path_factory.mktemp("base") / "tagger.olm"
    olearn.save(olearn.SequenceTagger(rule="AROW", n_bits=4, max_iter=2).fit(X, y), path)
    return path.read_bytes()


def _refused(tmp_path, data: bytes, match: str, **load_options) -> str:
    path = tmp_path / "crafted.olm"
    path.write_bytes(data)
    with pytest.raises(ValueError, match=match) as error:
        olearn.load(path, **load_options)
    assert type(error.value) is ValueError and str(path) in str(error.value)
    return str(error.value)


def _set(field, **values):
    return lambda header: header[field].update(values)


# -- arrays that disagree with each other or with the class ---------------------------------------

# Before: each loaded; the next learn_one / partial_fit / predict / train --resume segfaulted
# (n_features_in_ 10^9: learn_one of feature 10^8 and --resume, SIGSEGV; empty stats_:
# partial_fit SIGSEGV), read past the arrays (short variances_: exit 0, wrong model) or
# silently went on (int weights, NaN weights: exit 0, NaN weights after learn_one).
ARRAY_CASES = {
    "n_features_in_ of 10^9 with 7 weights": (
        dict(edit=_set("attributes", n_features_in_=10**9)),
        r"weights_ has shape \(1, 7\), expected \(k, D\) = \(1, 1000000001\)",
    ),
    "empty stats_": (dict(arrays={"stats_": np.zeros(0)}), r"stats_ has shape \(0,\)"),
    "short variances_": (dict(arrays={"variances_": np.ones((1, 3))}), "variances_ has shape"),
    "int32 weights": (
        dict(arrays={"weights_": np.zeros((1, 7), np.int32)}),
        "weights_ has dtype int32, expected float64",
    ),
    "NaN weights": (
        dict(arrays={"weights_": np.full((1, 7), np.nan)}),
        r"weights_ has a non-finite value \(nan\) at index \(0, 0\)",
    ),
    "a zero variance": (
        dict(arrays={"variances_": np.r_[1.0, 0.0, np.ones(5)].reshape(1, 7)}),
        r"variances_ has a value ≤ 0 at index \(0, 1\)",
    ),
    "three classes for a binary task": (
        dict(arrays={"classes_": np.arange(3)}),
        "task_ 'binary' does not go with 3 classes",
    ),
    "unsorted classes": (dict(arrays={"classes_": np.array([1, 0])}), "not sorted"),
    "an unknown task": (dict(edit=_set("attributes", task_="nosuch")), "task_ is 'nosuch'"),
    "an attribute shadowing a method": (
        dict(edit=_set("attributes", predict=1)),
        "unknown attribute 'predict'",
    ),
    "a boolean count": (
        dict(edit=_set("attributes", n_iter_=True)),
        "n_iter_ is True, expected an integer",
    ),
    "a missing attribute": (
        dict(edit=lambda h: h["attributes"].pop("task_")),
        "attribute task_ is missing",
    ),
    "a missing array": (dict(arrays={"weights_": None}), "array weights_ is missing"),
    "an extra array": (dict(arrays={"evil_": np.zeros(3)}), "unknown array 'evil_'"),
    "a parameter of the wrong type": (
        dict(edit=_set("params", r="abc")),
        "parameters: The 'r' parameter",
    ),
    "an unknown parameter": (dict(edit=_set("params", nosuch=1)), "parameters: .*nosuch"),
    "a covariance that does not match the state": (
        dict(edit=_set("params", covariance="full")),
        r"variances_ has shape \(1, 7\), expected empty \(0, 0\) \(diagonal off\)",
    ),
    "an object dtype": (
        dict(edit=lambda h: h["arrays"]["weights_"].update(dtype="|O")),
        "unsupported dtype '|O'",
    ),
    "a header shape the payload does not have": (
        dict(edit=lambda h: h["arrays"]["stats_"].update(shape=[3])),
        "stats_ has shape",
    ),
    "a negative shape": (
        dict(edit=lambda h: h["arrays"]["stats_"].update(shape=[-7])),
        "malformed shape",
    ),
    "a sparse array with a fill of the wrong type": (
        dict(edit=lambda h: h["arrays"]["weights_"].update(encoding="sparse", fill="x", stored=0)),
        "fill value",
    ),
}


@pytest.mark.parametrize("case", sorted(ARRAY_CASES))
def test_inconsistent_arrays_are_refused(tmp_path, arow, case):
    options, match = ARRAY_CASES[case]
    _refused(tmp_path, craft.craft(arow, **options), match)


def test_a_format_1_file_goes_through_the_same_checks(tmp_path):
    data = (GOLDEN / "model_format_1" / "arow_full_multiclass.olm").read_bytes()
    crafted = craft.craft(data, edit=_set("attributes", n_features_in_=10**9))
    _refused(tmp_path, crafted, "weights_ has shape")
    # its own per-array checksums are still checked
    _, header, payload = craft.split(data)
    header["arrays"]["weights_"]["sha256"] = "0" * 64
    _refused(tmp_path, craft.pack(1, craft.json.dumps(header).encode(), payload), "checksum")


def test_resume_from_a_crafted_file_is_a_one_line_error(tmp_path, capsys, arow):
    # before: `olearn train --resume` on n_features_in_ 10^9 died of SIGSEGV
    model = tmp_path / "crafted.olm"
    model.write_bytes(craft.craft(arow, edit=_set("attributes", n_features_in_=10**9)))
    data = tmp_path / "six.svm"
    data.write_text("1 1:0.5 6:1\n0 2:1\n")
    argv = ["train", "arow", str(data), "--resume", str(model), "-o", str(tmp_path / "o.olm")]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "does not hold a valid AROWClassifier" in err


# -- kernel models and the tagger -----------------------------------------------------------------


def _kernel_edit(kernel: bytes, **changes) -> bytes:
    arrays = craft.arrays_of(kernel)
    new = {}
    for name, change in changes.items():
        array = arrays[name].copy()
        change(array)
        new[name] = array
    return craft.craft(kernel, arrays=new)


def _set_at(index, value):
    def change(array):
        array[index] = value

    return change


KERNEL_CASES = {
    "more support vectors than the budget": (dict(_counts=_set_at(0, 7)), "support vectors"),
    "a pointer past the pool": (dict(_ptr=_set_at(0, 10**12)), "outside the used pool"),
    "a negative length": (dict(_length=_set_at(0, -5)), "outside the used pool"),
    "a column beyond the width": (dict(_pool_idx=_set_at(0, 10**9)), "column outside"),
    "a longest vector longer than the width": (
        dict(_counts=_set_at(2, 2**62)),
        "longest vector",
    ),
    "overlapping vectors": (dict(_ptr=_set_at(1, 38)), "two support vectors overlap"),
    "used pool beyond the pool": (dict(_counts=_set_at(1, 10**9)), "pool entries used"),
}


@pytest.mark.parametrize("case", sorted(KERNEL_CASES))
def test_inconsistent_support_vectors_are_refused(tmp_path, kernel, case):
    changes, match = KERNEL_CASES[case]
    _refused(tmp_path, _kernel_edit(kernel, **changes), match)


def test_kernel_slots_must_hold_the_budget(tmp_path, kernel):
    arrays = craft.arrays_of(kernel)
    cut = {name: arrays[name][:3] for name in ("_A", "_sq", "_selfk", "_born", "_ptr", "_length")}
    cut["_G"] = arrays["_G"][:3, :3]
    _refused(tmp_path, craft.craft(kernel, arrays=cut), "slots; the model needs at least 7")


TAGGER_CASES = {
    "short weights": (lambda a: {"weights_": a["weights_"][:-1]}, "weights_ has shape"),
    "negative label counts": (
        lambda a: {"label_counts_": -a["label_counts_"] - 1},
        "label_counts_ has a negative value",
    ),
    "repeated labels": (lambda a: {"classes_": np.array(["D", "D", "V"])}, "repeated labels"),
    "averaging sums without averaging": (
        lambda a: {},
        r"average_sums_ has shape \(\d+,\), expected empty",
    ),
}


@pytest.mark.parametrize("case", sorted(TAGGER_CASES))
def test_inconsistent_tagger_state_is_refused(tmp_path, tagger, case):
    arrays, match = TAGGER_CASES[case]
    edit = _set("params", average=False) if "averaging" in case else None
    _refused(
        tmp_path, craft.craft(tagger, arrays=arrays(craft.arrays_of(tagger)), edit=edit), match
    )


# -- which classes a file may name ----------------------------------------------------------------


@pytest.mark.parametrize(
    "dotted",
    ["olearn.__main__.main", "olearn.io.model_file.load", "os.system", "olearn.cli.main"],
)
def test_a_file_names_only_allow_listed_estimators(tmp_path, arow, dotted):
    # before: "olearn.__main__.main" imported the CLI module, which ran `olearn` with the host
    # program's arguments and exited the host (exit 2 from argparse)
    path = tmp_path / "crafted.olm"
    path.write_bytes(craft.craft(arow, edit=lambda h: h.update(estimator=dotted)))
    code = (
        "import sys, olearn\n"
        f"try:\n    olearn.load({str(path)!r})\n"
        "except ValueError as e:\n    print('refused:', e)\n"
        "print('olearn.__main__' in sys.modules, 'olearn.cli' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, "train", "--help"],  # arguments a CLI would act on
        env={**os.environ, "PYTHONPATH": str(SRC)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert f"refused: {path} names {dotted!r}, which is not an olearn estimator" in out.stdout
    assert out.stdout.strip().endswith("False False")  # nothing imported


# -- malformed headers ----------------------------------------------------------------------------

# Before: AttributeError (a JSON list), KeyError (missing keys, unknown task), RecursionError
# (deep nesting), each with a traceback.
HEADER_CASES = {
    "a JSON list": (b"[1, 2, 3]", "the header is not a JSON object"),
    "deep nesting": (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
    "shallower deep nesting": (b'{"a":' * 200 + b"1" + b"}" * 200, "nested too deeply"),
    "NaN": (b'{"format": NaN}', "unreadable header"),
    "not UTF-8": (b'{"format": "\xff"}', "unreadable header"),
    "a huge integer": (b'{"format": ' + b"9" * 5000 + b"}", "unreadable header"),
}


@pytest.mark.parametrize("case", sorted(HEADER_CASES))
def test_malformed_headers_are_value_errors(tmp_path, arow, case):
    raw, match = HEADER_CASES[case]
    _refused(tmp_path, craft.craft(arow, raw_header=raw), match)


@pytest.mark.parametrize(
    "field", ["format", "estimator", "params", "attributes", "arrays", "metadata", "payload_bytes"]
)
def test_missing_or_mistyped_header_fields_are_named(tmp_path, arow, field):
    _refused(tmp_path, craft.craft(arow, edit=lambda h: h.pop(field)), f"'{field}' is missing")
    _refused(tmp_path, craft.craft(arow, edit=lambda h: h.update({field: [1]})), f"'{field}' is")


@pytest.mark.parametrize("dtype", ["<i3", "<u16", "<f3", "|b2"])
def test_a_dtype_numpy_lacks_is_named(tmp_path, arow, capsys, dtype):
    # before: TypeError "data type '<i3' not understood", a traceback from load and info
    crafted = craft.craft(arow, edit=lambda h: h["arrays"]["classes_"].update(dtype=dtype))
    _refused(tmp_path, crafted, f"corrupted \\(array 'classes_' has an unsupported dtype '{dtype}'")
    assert main(["info", str(tmp_path / "crafted.olm")]) == 2
    assert "unsupported dtype" in capsys.readouterr().err


def test_malformed_parameter_values_are_named(tmp_path, arow):
    deep = {"__sequence__": "list", "items": [1]}
    for _ in range(40):
        deep = {"__sequence__": "list", "items": [deep]}
    _refused(tmp_path, craft.craft(arow, edit=_set("params", r=deep)), "nested too deeply")
    bad = {"__float__": "1e999"}
    _refused(tmp_path, craft.craft(arow, edit=_set("params", r=bad)), "parameter r has an unknown")
    _refused(tmp_path, craft.craft(arow, edit=_set("params", r={"__array__": "x"})), "parameter r")


# -- memory bombs ---------------------------------------------------------------------------------


def _peak(function) -> int:
    """Peak bytes allocated (NumPy's arrays included) while ``function`` runs."""
    tracemalloc.start()
    try:
        function()
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return peak


def test_a_compressed_bomb_is_refused_before_it_is_allocated(tmp_path, arow):
    # before: a 2 MB file whose weights inflate to 2 GiB peaked at 2.1 GB of RSS
    bomb = craft.craft(arow, arrays={"weights_": np.zeros((1, 2**25))})  # 256 MiB of zeros
    assert len(bomb) < 400_000
    peak = _peak(lambda: _refused(tmp_path, bomb, r"weights_ has shape \(1, 33554432\)"))
    assert peak < 8 << 20
    # a consistent one: as large as its header says, and refused by the memory limit
    n = 2**23 - 1
    big = craft.craft(
        arow,
        arrays={"weights_": np.zeros((1, n + 1)), "variances_": np.ones((1, n + 1))},
        edit=_set("attributes", n_features_in_=n),
    )
    peak = _peak(lambda: _refused(tmp_path, big, "more than the memory limit", max_memory=32 << 20))
    assert peak < 8 << 20


def test_a_header_claiming_terabytes_is_refused_without_allocating(tmp_path, arow):
    # before: "Unable to allocate 8.00 TiB" (numpy's MemoryError, a traceback)
    n = 2**40

    def claim(header):
        header["attributes"]["n_features_in_"] = n - 1
        for name in ("weights_", "variances_"):
            header["arrays"][name]["shape"] = [1, n]

    peak = _peak(lambda: _refused(tmp_path, craft.craft(arow, edit=claim), "memory limit"))
    assert peak < 8 << 20
    # an .npy header claiming 2^40 values where the JSON header says 7
    _, header, payload = craft.split(arow)
    entries = craft.entries(payload)
    import io
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for key, array in entries.items():
            with archive.open(f"{key}.npy", "w") as handle:
                if key == "weights_":
                    description = {"descr": "<f8", "fortran_order": False, "shape": (1, n)}
                    np.lib.format.write_array_header_1_0(handle, description)
                    handle.write(bytes(64))
                else:
                    np.lib.format.write_array(handle, array)
    crafted = craft.craft(arow, payload=buffer.getvalue())
    peak = _peak(lambda: _refused(tmp_path, crafted, "weights_ does not have the size"))
    assert peak < 8 << 20


def _sparse_claim(arow: bytes, name: str, shape: list) -> bytes:
    """``arow`` with array ``name`` stored sparse: ``shape`` of zeros, no value stored."""
    parts = {f"{name}.positions": np.zeros(0, np.uint8), f"{name}.values": np.zeros(0, np.int64)}

    def claim(header):
        for part in parts:
            header["arrays"].pop(part)
        header["arrays"][name] = {
            "dtype": "<i8", "shape": shape, "order": "C", "kind": "array",
            "encoding": "sparse", "fill": 0, "stored": 0,
        }  # fmt: skip

    return craft.craft(arow, arrays={name: None, **parts}, edit=claim)


@pytest.mark.parametrize("size", [2**17, 2**40])
def test_info_reads_no_array_beyond_the_memory_limit(tmp_path, capsys, monkeypatch, arow, size):
    # before: a 2 KB file claiming 2^40 classes was a MemoryError traceback, and a claim
    # within the machine's memory was allocated and filled (one of 2^33: 64 GiB)
    monkeypatch.setattr(model_file, "default_max_memory", lambda: 1 << 20)
    path = tmp_path / "m.olm"
    path.write_bytes(_sparse_claim(arow, "classes_", [size]))
    assert main(["info", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert "array classes_ needs" in err and "more than the memory limit of 1.0 MiB" in err


def test_a_file_larger_than_the_limit_is_not_read(tmp_path, arow):
    _refused(tmp_path, arow + bytes(1 << 20), "larger than the memory limit", max_memory=1 << 20)


def test_format_1_payloads_are_never_compressed(tmp_path):
    # a format 1 writer stored its arrays: a deflated entry there is a crafted bomb
    data = (GOLDEN / "model_format_1" / "uniclass.olm").read_bytes()
    _, header, payload = craft.split(data)
    import io
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for key, array in craft.entries(payload).items():
            with archive.open(f"{key}.npy", "w") as handle:
                np.lib.format.write_array(handle, array)
    header["payload_bytes"] = len(buffer.getvalue())
    crafted = craft.pack(1, craft.json.dumps(header).encode(), buffer.getvalue())
    _refused(tmp_path, crafted, "stored in an unknown way")


# -- olearn info ----------------------------------------------------------------------------------


def test_info_escapes_control_characters(tmp_path, capsys, arow):
    # before: the metadata's escape sequences went to the terminal raw (clear screen, red,
    # window title)
    def edit(header):
        header["metadata"] = {
            "algorithm": "pa\x1b[2J\x1b[31mRED",
            "task": "binary\u202e",
            "trained_on": ["a\x1b]0;title\x07b", 3],
            "input": {"format": "svm\nlight", "bits": "\x9b1m"},
        }
        header["params"]["r"] = "\x1b[5m"

    path = tmp_path / "m.olm"
    path.write_bytes(craft.craft(arow, arrays={"classes_": np.array(["\x1b[1mA", "B"])}, edit=edit))
    assert main(["info", str(path)]) == 0
    out = capsys.readouterr().out
    assert not any(c in out for c in "\x1b\x07\x9b\u202e")
    assert "pa\\x1b[2J\\x1b[31mRED (binary\\u202e)" in out
    assert "trained on      a\\x1b]0;title\\x07b 3" in out
    assert "classes         \\x1b[1mA B" in out and "svm\\x0alight" in out
    assert len(out.splitlines()) == len([line for line in out.splitlines() if line[:1] != " "])
    assert main(["info", "--json", str(path)]) == 0
    assert "\x1b" not in capsys.readouterr().out


@pytest.mark.parametrize("target", ["/dev/zero", "text", "empty", "folder", "list-header"])
def test_info_on_a_non_model_is_one_line_exit_2(tmp_path, capsys, arow, target):
    # before: `olearn info /dev/zero` read until memory ran out (1.8 GB RSS after 5 s)
    paths = {"/dev/zero": "/dev/zero", "text": tmp_path / "t.svm", "empty": tmp_path / "e"}
    paths.update(folder=tmp_path, **{"list-header": tmp_path / "l.olm"})
    (tmp_path / "t.svm").write_text("1 1:2\n" * 100)
    (tmp_path / "e").write_bytes(b"")
    (tmp_path / "l.olm").write_bytes(craft.craft(arow, raw_header=b"[1]"))
    assert main(["info", str(paths[target])]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and err.startswith("olearn: error: ")


# -- file modes -----------------------------------------------------------------------------------


def test_model_files_get_the_umask_and_keep_an_existing_mode(tmp_path):
    # before: every model file was created 0600 (tempfile.mkstemp's mode)
    model = olearn.PerceptronClassifier().fit(*_xy())
    path = tmp_path / "m.olm"
    previous = os.umask(0o022)
    try:
        olearn.save(model, path)
        assert path.stat().st_mode & 0o777 == 0o644
        os.umask(0o077)
        olearn.save(model, tmp_path / "private.olm")
        assert (tmp_path / "private.olm").stat().st_mode & 0o777 == 0o600
        path.chmod(0o640)
        olearn.save(model, path)  # replaced, with its mode
        assert path.stat().st_mode & 0o777 == 0o640
    finally:
        os.umask(previous)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.olm", "private.olm"]


def test_atomic_write_leaves_nothing_on_failure(tmp_path):
    path = tmp_path / "out.txt"
    path.write_text("old\n")
    with pytest.raises(RuntimeError), atomic_write(path, text=True) as out:
        out.write("new\n")
        raise RuntimeError
    assert path.read_text() == "old\n" and os.listdir(tmp_path) == ["out.txt"]
    with atomic_write(path, text=True) as out:
        out.write("new\n")
    assert path.read_text() == "new\n" and os.listdir(tmp_path) == ["out.txt"]


def test_atomic_write_into_a_pipe_or_through_a_link_replaces_neither(tmp_path):
    # before: the temporary file was renamed over a named pipe or a device (as root,
    # `olearn predict -o /dev/null` replaced /dev/null with a regular file) and over a
    # symbolic link (the link gone, the file it named untouched)
    import threading

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_text()), daemon=True)
    reader.start()
    with atomic_write(fifo, text=True) as out:
        out.write("1\n")
    reader.join(timeout=60)
    assert received == ["1\n"] and fifo.is_fifo()
    target, link = tmp_path / "v1.olm", tmp_path / "latest.olm"
    target.write_text("old")
    link.symlink_to(target.name)
    with atomic_write(link, text=True) as out:
        out.write("new")
    assert link.is_symlink() and target.read_text() == "new"
    assert sorted(os.listdir(tmp_path)) == ["fifo", "latest.olm", "v1.olm"]


def test_a_full_disk_names_the_output_and_keeps_the_old_file(tmp_path, monkeypatch):
    import errno

    path = tmp_path / "m.olm"
    path.write_text("old")

    def full(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(OSError) as caught, atomic_write(path, text=True) as out:
        out.write("new")
    assert caught.value.filename == str(path) and caught.value.errno == errno.ENOSPC
    assert path.read_text() == "old" and os.listdir(tmp_path) == ["m.olm"]


def test_every_estimator_is_allow_listed():
    """The allow-list names exactly the estimator classes olearn exports."""
    from olearn import _EXPORTS
    from olearn.io import _schema

    exported = set()
    for name in _EXPORTS:
        value = getattr(olearn, name)
        if isinstance(value, type) and hasattr(value, "get_params"):
            exported.add(_schema.class_name(value))
    assert exported == set(_schema.ESTIMATORS)


def test_model_file_size_on_disk_matches_info_and_load_bounds(tmp_path, arow):
    path = tmp_path / "m.olm"
    path.write_bytes(arow)
    assert model_file.open_model_file(path).size == len(arow)
    with pytest.raises(ValueError, match="memory limit"):
        olearn.load(path, max_memory=len(arow) + 10)


@pytest.mark.parametrize("limit", ["1G", 1.5, True])
def test_a_memory_limit_that_is_not_a_number_of_bytes_is_named(tmp_path, arow, limit):
    """``int("1G")`` raised its bare "invalid literal for int()", naming neither the
    argument nor the unit it takes (and 1.5 or True passed as a limit of 1 byte)."""
    path = tmp_path / "m.olm"
    path.write_bytes(arow)
    with pytest.raises(ValueError, match="max_memory must be a number of bytes, got"):
        olearn.load(path, max_memory=limit)


@pytest.mark.parametrize("tool", ["gzip", "bz2", "lzma"])
def test_a_compressed_model_file_is_named_with_the_command_that_undoes_it(tmp_path, arow, tool):
    """``gzip model.olm`` hid the file: it was "not an olearn model file", no more said."""
    import importlib

    path = tmp_path / "m.olm.packed"
    path.write_bytes(importlib.import_module(tool).compress(arow))
    command = {"gzip": "gunzip", "bz2": "bunzip2", "lzma": "unxz"}[tool]
    with pytest.raises(ValueError, match=rf"-compressed, not an olearn model file \({command} it"):
        olearn.load(path)
