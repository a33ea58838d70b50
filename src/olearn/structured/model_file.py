"""Model files of :class:`~olearn.structured.tagger.SequenceTagger` (no pickle).

A file is a NumPy ``.npz`` archive: ``__header__`` holds JSON (format name and version,
library version, estimator, parameters, SHA-256 of the arrays), every other entry is a fitted
attribute (the attributes whose names end in ``_``). Only taggers whose ``features`` is a
name (``"word"``) can be saved: a user callable is code, and code is not written to model
files. Loading never executes anything from the file (``allow_pickle=False``).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np

FORMAT = "olearn-model"
FORMAT_VERSION = 1
ESTIMATOR = "SequenceTagger"


def _checksum(arrays: dict[str, np.ndarray]) -> str:
    digest = hashlib.sha256()
    for name in sorted(arrays):
        array = np.ascontiguousarray(arrays[name])
        digest.update(name.encode())
        digest.update(str(array.dtype).encode())
        digest.update(str(array.shape).encode())
        digest.update(array.tobytes())
    return digest.hexdigest()


def save_tagger(model, path) -> None:
    """Write a fitted tagger to ``path`` (an ``.npz`` archive, compressed)."""
    import olearn

    model._check_fitted()
    params = model.get_params()
    if not isinstance(params["features"], str):
        raise ValueError(
            "cannot save a tagger whose feature function is a callable: register it by name "
            "in olearn.structured.features.FEATURE_FUNCTIONS and pass the name"
        )
    arrays = {
        name: np.asarray(value)
        for name, value in vars(model).items()
        if name.endswith("_") and not name.startswith("_")
    }
    header = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "olearn_version": olearn.__version__,
        "estimator": ESTIMATOR,
        "params": params,
        "sha256": _checksum(arrays),
    }
    with open(Path(path), "wb") as stream:
        np.savez_compressed(stream, __header__=np.array(json.dumps(header)), **arrays)


def load_tagger(path):
    """Read a tagger written by :func:`save_tagger`."""
    from olearn.structured.tagger import SequenceTagger

    try:
        archive = np.load(Path(path), allow_pickle=False)
    except (ValueError, OSError) as error:
        if isinstance(error, FileNotFoundError):
            raise
        raise ValueError(f"{path}: not an olearn model file ({error})") from None
    with archive:
        if "__header__" not in archive.files:
            raise ValueError(f"{path}: not an olearn model file (no header)")
        header = json.loads(str(archive["__header__"]))
        if header.get("format") != FORMAT or header.get("estimator") != ESTIMATOR:
            raise ValueError(f"{path}: not a SequenceTagger model file")
        if header.get("format_version", 0) > FORMAT_VERSION:
            raise ValueError(
                f"{path}: model format version {header['format_version']} is newer than this "
                f"olearn understands ({FORMAT_VERSION})"
            )
        arrays = {name: archive[name] for name in archive.files if name != "__header__"}
    if _checksum(arrays) != header.get("sha256"):
        raise ValueError(f"{path}: checksum mismatch (the file is corrupt)")
    model = SequenceTagger(**header["params"])
    for name, value in arrays.items():
        setattr(model, name, value)
    return model
