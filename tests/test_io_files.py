"""Atomic writes (``olearn.io._files``): errors name the file the user asked for."""

import errno
import os

import pytest

from olearn.cli import main
from olearn.io import _files


def _refuse_temporaries(monkeypatch):
    """A folder in which no file can be created, though ``os.access`` says it can (a root
    user on /proc, some network or FUSE file systems)."""
    real_open = os.open

    def refusing_open(path, flags, *args, **kwargs):
        if str(path).endswith(".tmp"):
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(_files.os, "open", refusing_open)


def test_an_uncreatable_temporary_names_the_target(tmp_path, monkeypatch):
    target = tmp_path / "predictions.txt"
    _refuse_temporaries(monkeypatch)
    with pytest.raises(PermissionError) as caught, _files.atomic_write(target, text=True):
        pass
    assert caught.value.filename == str(target)
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("command", ["train", "predict"])
def test_the_command_names_its_output_not_a_temporary(tmp_path, monkeypatch, capsys, command):
    """(Before: 'olearn: error: /data/.m.olm.3fa9c1d2e4b5.tmp: Permission denied'.)"""
    data, model = tmp_path / "d.svm", tmp_path / "m.olm"
    data.write_text("1 1:1\n-1 2:1\n")
    output = model
    if command == "predict":
        assert main(["train", "pa", str(data), "-o", str(model), "--quiet"]) == 0
        output = tmp_path / "predictions.txt"
    _refuse_temporaries(monkeypatch)
    argv = ["train", "pa", str(data)] if command == "train" else ["predict", str(model), str(data)]
    assert main([*argv, "-o", str(output), "--quiet"]) == 2
    assert capsys.readouterr().err == f"olearn: error: {output}: Permission denied\n"
    assert sorted(os.listdir(tmp_path)) == sorted(["d.svm"] + ["m.olm"] * (command == "predict"))
