"""Data in, models out: streaming text readers, feature hashing and model files.

* :func:`load_svmlight` / :class:`SvmlightReader`: svmlight/libsvm text, whole or in chunks.
* :func:`load_vw` / :class:`VWReader`: Vowpal-Wabbit-style text, hashed into 2^bits features.
* :func:`save` / :func:`load`: versioned, checksummed model files (never pickle).

Names are imported lazily: ``import olearn.io`` loads neither numba nor scikit-learn.
"""

from __future__ import annotations

from olearn._lazy import lazy_exports

_EXPORTS = {
    "save": "olearn.io.model_file",
    "load": "olearn.io.model_file",
    "read_model_header": "olearn.io.model_file",
    "SvmlightReader": "olearn.io.svmlight",
    "load_svmlight": "olearn.io.svmlight",
    "read_svmlight": "olearn.io.svmlight",
    "scan_svmlight": "olearn.io.svmlight",
    "VWReader": "olearn.io.vw",
    "load_vw": "olearn.io.vw",
    "murmurhash3_32": "olearn.io.vw",
    "read_vw": "olearn.io.vw",
    "Chunk": "olearn.io.chunks",
    "BadLineError": "olearn.io._errors",
}

# the shared lazy loader: a failing import shows its real error (olearn/_lazy.py)
__getattr__, __dir__, __all__ = lazy_exports(__name__, globals(), _EXPORTS)


def warmup() -> None:
    """Compile (or load from the disk cache) the readers' parse loops."""
    import numpy as np

    from olearn.io import _svmlight_parse, _vw_parse

    buf = np.frombuffer(bytearray(b"1 1:2\n"), np.uint8)
    work = _svmlight_parse.work_arrays(64)
    _svmlight_parse.parse_svmlight(buf, buf.shape[0], 0, -1, False, False, work)
    labels = np.empty(_svmlight_parse.N_LABELS_TRACKED)
    _svmlight_parse.scan_svmlight(buf, buf.shape[0], labels, 0)
    no_pairs = np.zeros((0, 2), np.int64)
    work = _vw_parse.work_arrays(64)
    _vw_parse.parse_vw(buf, buf.shape[0], 18, 0, no_pairs, True, 1 << 25, False, work)
    _vw_parse.hash_bytes(buf, 0)
