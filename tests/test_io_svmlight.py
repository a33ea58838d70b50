"""The svmlight reader: agreement with scikit-learn, numbers, chunks, compression, errors."""

import bz2
import gzip
import io
import lzma
import os
import re
import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import dump_svmlight_file, load_svmlight_file

from olearn.io import BadLineError, SvmlightReader, load_svmlight, scan_svmlight
from olearn.io._errors import MESSAGES


def _write(tmp_path, text, name="data.svm"):
    path = tmp_path / name
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return path


def _random_problem(seed, n=60, d=30):
    rng = np.random.default_rng(seed)
    X = sp.random(n, d, density=0.2, random_state=seed, format="csr")
    X.data = np.round(rng.normal(size=X.nnz) * 10.0 ** rng.integers(-3, 4, size=X.nnz), 4)
    X.data[X.data == 0] = 1.0
    y = rng.integers(0, 3, size=n).astype(float) - 1
    return X, y


@pytest.mark.parametrize("zero_based", [True, False])
@pytest.mark.parametrize("seed", [0, 1])
def test_agrees_with_scikit_learn(tmp_path, seed, zero_based):
    X, y = _random_problem(seed)
    path = tmp_path / "d.svm"
    dump_svmlight_file(X, y, str(path), zero_based=zero_based, comment="made by a test")
    ours_X, ours_y = load_svmlight(path, zero_based=zero_based, n_features=X.shape[1])
    ref_X, ref_y = load_svmlight_file(path, zero_based=zero_based, n_features=X.shape[1])
    assert np.array_equal(ours_y, ref_y)
    assert (ours_X != ref_X).nnz == 0
    assert ours_X.has_sorted_indices


def test_auto_base_decides_like_scikit_learn(tmp_path):
    one = _write(tmp_path, "1 1:2 3:4\n-1 2:1\n", "one.svm")
    zero = _write(tmp_path, "1 1:2 3:4\n-1 0:1\n", "zero.svm")
    X1, _ = load_svmlight(one)
    X0, _ = load_svmlight(zero)
    assert X1.toarray().tolist() == [[2, 0, 4], [0, 1, 0]]
    assert X0.toarray().tolist() == [[0, 2, 0, 4], [1, 0, 0, 0]]
    for path, X in ((one, X1), (zero, X0)):
        assert (load_svmlight_file(path)[0] != X).nnz == 0


AUTO_CASES = [
    ("1 1:2 3:4\n-1 2:1\n", None),  # one-based
    ("1 1:2 3:4\n-1 0:1\n", None),  # zero-based, decided by the last line
    ("1 1:2 5:4\n-1 0:1\n", 5),  # index 5 = n_features in a zero-based file: an error
    ("1 1:2 5:4\n-1 2:1\n", 5),  # ... but the last column of a one-based file
    ("1 qid:1 2:2\n# 0:1\n-1\n", None),  # an index 0 in a comment does not count
    ("1\n-1\n", None),  # no features at all
    ("1 1:2\nx 0:1\n-1 2:1\n", None),  # a malformed line holding the only index 0
    ("1 1:2\n-1 3:1 2:1\n", None),  # unsorted
]


@pytest.mark.parametrize("text, n_features", AUTO_CASES)
@pytest.mark.parametrize("skip", [False, True])
def test_auto_base_in_one_pass_equals_scan_then_parse(tmp_path, text, n_features, skip):
    path = _write(tmp_path, text)
    # only well-formed lines decide the base when malformed ones are skipped
    base = scan_svmlight(path, skip_bad_lines=skip).min_index == 0
    options = {"n_features": n_features, "skip_bad_lines": skip, "query_id": True}
    try:
        expected = load_svmlight(path, zero_based=base, **options)
    except ValueError as error:
        with pytest.raises(type(error), match=re.escape(str(error))):
            load_svmlight(path, **options)
        return
    got = load_svmlight(path, **options)
    assert got[0].shape == expected[0].shape and (got[0] != expected[0]).nnz == 0
    assert np.array_equal(got[1], expected[1]) and np.array_equal(got[2], expected[2])


@pytest.mark.parametrize(
    "head", ["bad line\n" * 40, "1\n-1\n" * 20, "x\n1\n" * 20], ids=["bad", "labels", "both"]
)
@pytest.mark.parametrize("source", ["path", "stream"])
def test_a_first_block_without_any_index_leaves_the_base_to_the_next(tmp_path, head, source):
    """The streaming reader decides the index base on its first block; a first block whose
    (well-formed) lines hold no index — malformed lines skipped, lines with a label only —
    cannot decide it, and the next block does. (Before: such a block decided one-based, so
    every line of a zero-based file was refused, or skipped as bad: no examples at all.)"""
    rows = "".join(f"{k % 2} 0:{k} 3:1.5\n" for k in range(1, 30))
    path = _write(tmp_path, head + rows)
    skip = head.startswith(("bad", "x"))
    expected = load_svmlight(path, zero_based=True, skip_bad_lines=skip, n_features=4)
    for chunk_bytes in (16, 64, 1 << 20):
        data = path if source == "path" else io.BytesIO(path.read_bytes())
        reader = SvmlightReader(
            data, n_features=4, chunk_bytes=chunk_bytes, skip_bad_lines=skip, name="d.svm"
        )
        chunks = list(reader)
        assert reader.base == 0 and reader.n_examples == expected[1].shape[0]
        X = sp.vstack([chunk.X for chunk in chunks])
        assert (X != expected[0]).nnz == 0
        assert np.array_equal(np.concatenate([chunk.y for chunk in chunks]), expected[1])


def test_numbers_are_parsed_as_float_does(tmp_path):
    rng = np.random.default_rng(3)
    texts = ["0", "-0.0", "1e5", "1E-5", "+3.25", ".5", "5.", "-2.5e+3", "123456789012345"]
    texts += ["000123.4500", "0.000001234", "-00.0", "0e5", "0.", "00000000000000000000001.5"]
    texts += ["1" + "0" * 25, "0." + "0" * 30 + "17", "12345678901234567890.123", "100.001"]
    texts += ["0.0000000000000000000000000000000000000000000000000000001e-250", "-.0e-0"]
    # mantissas around 2^53, the limit of the exact fast path, with exponents up to ±22
    texts += [
        "9007199254740992e-22",
        "9007199254740993",
        "9007199254740991.5",
        "8999999999999999e5",
    ]
    texts += [
        "0.9007199254740993",
        "900719925474099.3e22",
        "1.000000000000001e-7",
        "9.999999999999999",
    ]
    texts += [f"{v:.6g}" for v in rng.normal(size=200) * 10.0 ** rng.integers(-15, 15, 200)]
    texts += [f"{v:.15g}" for v in rng.normal(size=200)]
    body = "".join(f"1 1:{t}\n" for t in texts)
    X, _ = load_svmlight(_write(tmp_path, body), zero_based=False, n_features=1)
    assert X.toarray()[:, 0].tolist() == [float(t) for t in texts]


def test_digit_runs_of_every_length_are_parsed_as_float_does(tmp_path):
    # runs of 8 digits are converted at once: every run length and position of the point,
    # signs, exponents, and a non-digit right after 1..8 digits
    rng = np.random.default_rng(11)
    texts = []
    for length in range(1, 28):
        for _ in range(12):
            digits = "".join(rng.choice(list("0123456789"), size=length))
            point = int(rng.integers(0, length + 1))
            text = digits[:point] + "." + digits[point:] if rng.random() < 0.7 else digits
            if rng.random() < 0.3:
                text += f"e{int(rng.integers(-30, 30))}"
            texts.append(("-" if rng.random() < 0.3 else "") + text)
    texts = [t for t in texts if t.strip("-.")] + ["12345678", "1234567.8", "00000000.1234567"]
    body = "".join(f"1 1:{t}\n" for t in texts) + "".join(f"1 1:{'7' * k}x\n" for k in range(1, 9))
    X, _ = load_svmlight(
        _write(tmp_path, body), zero_based=False, n_features=1, skip_bad_lines=True
    )
    assert X.toarray()[:, 0].tolist() == [float(t) for t in texts]


def test_indices_of_every_length_are_read_as_written(tmp_path):
    # indices are read 8 bytes at once when 8 bytes remain: every length from 1 to 10
    # digits, leading zeros, and the last bytes of the file (read one by one)
    rng = np.random.default_rng(12)
    rows = []
    for length in range(1, 11):
        for _ in range(5):
            top = min(10**length - 1, 2**31 - 3)
            index = int(rng.integers(10 ** (length - 1), top + 1))
            rows.append((index, str(index).zfill(length + int(rng.integers(0, 3)))))
    body = "".join(f"1 {text}:{k + 1}\n" for k, (_, text) in enumerate(rows))
    indices = [index for index, _ in rows]
    values = [float(k + 1) for k in range(len(rows))]
    for tail, last in (
        ("", []),
        ("1 7:9", [7]),
        ("1 12345678:9", [12345678]),
        ("1 1234:9", [1234]),
    ):
        X, _ = load_svmlight(_write(tmp_path, body + tail), zero_based=True)
        assert X.indices.tolist() == indices + last
        assert X.data.tolist() == values + [9.0] * len(last)


def test_long_numbers_are_correctly_rounded(tmp_path):
    # 17-digit repr output, 19-20 digit mantissas and exponents far beyond ±22 take the
    # Eisel-Lemire path; the result must still be float()'s.
    rng = np.random.default_rng(4)
    values = rng.normal(size=400) * 10.0 ** rng.integers(-300, 300, 400)
    texts = [repr(float(v)) for v in values] + [f"{v:.19e}" for v in values[:100]]
    texts += ["12345678901234567890123", "0.1000000000000000055511151231257827", "9e-300"]
    body = "".join(f"1 1:{t}\n" for t in texts)
    X, _ = load_svmlight(_write(tmp_path, body), zero_based=False, n_features=1)
    assert X.toarray()[:, 0].tolist() == [float(t) for t in texts]


def test_comments_blank_lines_crlf_and_qid(tmp_path):
    text = "# header\n\n1 qid:7 1:1 2:2 # trailing comment 9:9\r\n  \n-1 qid:8 3:0.5\n2 # none\n"
    X, y, qid = load_svmlight(_write(tmp_path, text), zero_based=False, query_id=True)
    assert y.tolist() == [1, -1, 2]
    assert qid.tolist() == [7, 8, 0]
    assert X.toarray().tolist() == [[1, 2, 0], [0, 0, 0.5], [0, 0, 0]]


def test_signed_qids_and_indices_are_read_as_scikit_learn_reads_them(tmp_path):
    """``qid:-1`` and an index written ``+3`` are read, as ``load_svmlight_file`` reads them
    (both were refused: "qid is not an integer", "feature index is not an integer"); the
    width scan counts a signed index too. A sign alone is still malformed."""
    text = "1 qid:-1 1:0.5 +3:1\n-1 qid:+2 +2:1.5\n2 qid:0 +9:2\n"
    path = _write(tmp_path, text)
    X, y, qid = load_svmlight(path, zero_based=False, query_id=True)
    ref_X, ref_y, ref_qid = load_svmlight_file(path, zero_based=False, query_id=True)
    assert (X != ref_X).nnz == 0 and X.shape == ref_X.shape
    assert y.tolist() == ref_y.tolist() and qid.tolist() == ref_qid.tolist() == [-1, 2, 0]
    scan = scan_svmlight(path)
    assert (scan.min_index, scan.max_index) == (1, 9)
    for line, problem in (("1 qid:- 1:1", "qid is not an integer"),
                          ("1 +:1", "feature index is not an integer"),
                          ("1 ++2:1", "feature index is not an integer")):  # fmt: skip
        with pytest.raises(BadLineError, match=problem):
            load_svmlight(_write(tmp_path, line + "\n", "bad.svm"), zero_based=False)


@pytest.mark.parametrize("chunk_bytes", [8, 1 << 20])  # mapped in blocks, read whole
@pytest.mark.parametrize("compress", [None, gzip.compress])
def test_a_byte_order_mark_at_the_start_is_skipped(tmp_path, chunk_bytes, compress):
    # before: Excel's "CSV UTF-8" or Notepad's BOM made the first label "\ufeff1": an error
    text = b"# written on Windows\r\n+1 1:0.5 3:1\r\n-1 2:2\r\n"
    path = tmp_path / "bom.svm"
    path.write_bytes((compress or bytes)(b"\xef\xbb\xbf" + text))
    X, y = load_svmlight(path, zero_based=False)
    reader = SvmlightReader(path, zero_based=False, n_features=3, chunk_bytes=chunk_bytes)
    assert [c.y.tolist() for c in reader] in ([[1, -1]], [[1], [-1]])
    assert y.tolist() == [1, -1] and X.toarray().tolist() == [[0.5, 0, 1], [0, 2, 0]]
    assert load_svmlight(io.BytesIO(b"\xef\xbb\xbf" + text))[1].tolist() == [1, -1]
    # anywhere else it is no label (files joined together): the error names its line
    path.write_bytes(b"\xef\xbb\xbf" + text + b"\xef\xbb\xbf" + text)
    with pytest.raises(BadLineError, match=r"bom.svm:4: label is not a number"):
        load_svmlight(path)


def test_lone_carriage_return_line_ends_are_an_error(tmp_path):
    # before: read as one line, "-1" of the second line reported as a negative feature index
    path = _write(tmp_path, b"1 1:0.5\r-1 2:1\r1 1:1 2:1\r")
    for read in (load_svmlight, scan_svmlight, lambda p: list(SvmlightReader(p))):
        with pytest.raises(ValueError, match=r"data.svm:1: lines end in a lone carriage return"):
            read(path)
    assert load_svmlight(_write(tmp_path, b"1 1:0.5\r"))[1].tolist() == [1]  # CR then the end


@pytest.mark.parametrize("chunk_bytes", [7, 64, 1000])
def test_chunks_equal_the_whole_file(tmp_path, chunk_bytes):
    X, y = _random_problem(5, n=80)
    path = tmp_path / "d.svm"
    dump_svmlight_file(X, y, str(path), zero_based=False)
    whole_X, whole_y = load_svmlight(path, zero_based=False, n_features=30)
    reader = SvmlightReader(path, zero_based=False, n_features=30, chunk_bytes=chunk_bytes)
    chunks = list(reader)
    assert len(chunks) > 1
    assert reader.n_examples == 80
    assert (sp.vstack([c.X for c in chunks]) != whole_X).nnz == 0
    assert np.array_equal(np.concatenate([c.y for c in chunks]), whole_y)
    # first_line counts the comment-free file's lines from 1
    assert chunks[0].first_line == 1
    assert chunks[1].first_line == 1 + len(chunks[0].y)


def test_rows_beyond_the_initial_capacities(tmp_path):
    # empty rows and 2-byte features: more rows and values than guessed from the block size
    lines = ["1"] * 300 + ["-1 " + " ".join(f"{j}:1" for j in range(1, 10))] * 300
    path = _write(tmp_path, "\n".join(lines) + "\n")
    X, y = load_svmlight(path, zero_based=False)
    ref_X, ref_y = load_svmlight_file(path, zero_based=False)
    assert np.array_equal(y, ref_y) and (X != ref_X).nnz == 0 and X.nnz == 2700


@pytest.mark.parametrize("opener", [gzip.open, bz2.open, lzma.open])
def test_compressed_files(tmp_path, opener):
    text = b"1 1:0.5 4:2\n-1 2:1\n"
    path = tmp_path / "d.svm.z"
    with opener(path, "wb") as handle:
        handle.write(text)
    X, y = load_svmlight(path)
    assert y.tolist() == [1, -1]
    assert X.toarray().tolist() == [[0.5, 0, 0, 2], [0, 1, 0, 0]]


def _archive(kind: str, text: bytes) -> bytes:
    import tarfile
    import zipfile

    stream = io.BytesIO()
    if kind == "zip":
        with zipfile.ZipFile(stream, "w") as archive:
            archive.writestr("d.svm", text)
    else:
        with tarfile.open(fileobj=stream, mode="w:gz") as archive:
            info = tarfile.TarInfo("d.svm")
            info.size = len(text)
            archive.addfile(info, io.BytesIO(text))
    return stream.getvalue()


@pytest.mark.parametrize(
    "kind, head, named",
    [
        ("zstd", b"\x28\xb5\x2f\xfd\x24\x0c\x61\x00", "zstd-compressed data"),
        ("lz4", b"\x04\x22\x4d\x18\x64\x40\xa7", "lz4-compressed data"),
        ("zip", None, "a zip archive"),
        ("tar.gz", None, "a tar archive"),
        ("utf16", "1 1:0.5\n".encode("utf-16"), "UTF-16 text"),
    ],
    ids=["zstd", "lz4", "zip", "tar.gz", "utf16"],
)
def test_compressions_and_archives_not_read_are_named(tmp_path, kind, head, named):
    # before: their bytes were parsed as a first label ("label is not a number: 'PK\x03...'")
    text = b"1 1:0.5 4:2\n-1 2:1\n"
    path = _write(tmp_path, head or _archive(kind, text), f"d.svm.{kind}")
    for read in (load_svmlight, scan_svmlight, lambda p: list(SvmlightReader(p))):
        with pytest.raises(ValueError, match=rf"^{re.escape(str(path))}: {named}, which olearn"):
            read(path)


def test_binary_file_object(tmp_path):
    stream = io.BytesIO(gzip.compress(b"1 1:3\n"))
    X, y = load_svmlight(stream, zero_based=False)
    assert X.toarray().tolist() == [[3.0]] and y.tolist() == [1.0]


CATALOGUE = [
    ("x 1:2\n", "label is not a number", "'x'"),
    ("1 3:abc\n", "feature value is not a number", "'3:abc'"),
    ("1 3\n", "feature has no ':'", "'3'"),
    ("1 1:nan\n", "NaN or infinite value", "'1:nan'"),
    ("1 1:inf\n", "NaN or infinite value", "'1:inf'"),
    ("1 2:1e999\n", "NaN or infinite value", "'2:1e999'"),
    ("nan 1:1\n", "NaN or infinite value", "'nan'"),
    ("-Infinity 1:1\n", "NaN or infinite value", "'-Infinity'"),
    # words starting like nan or inf are not numbers (before: "NaN or infinite value")
    ("neg 1:1\n", "label is not a number", "'neg'"),
    ("1 1:none\n", "feature value is not a number", "'1:none'"),
    ("1 1:information\n", "feature value is not a number", "'1:information'"),
    ("1 1:nan2\n", "feature value is not a number", "'1:nan2'"),
    ("1 0:1\n", "feature index 0 in a one-based file", "'0:1'"),
    ("1 -1:2\n", "negative feature index", "'-1:2'"),
    ("1 3:1 2:1\n", "not in increasing order", "'2:1'"),
    ("1 3:1 3:1\n", "duplicate feature index", "'3:1'"),
    ("1 a:1\n", "feature index is not an integer", "'a:1'"),
    ("1 9:1\n", "beyond the model's width (5 features)", "'9:1'"),
    ("1 qid:x 1:1\n", "qid is not an integer", "'qid:x'"),
]


@pytest.mark.parametrize("text, problem, token", CATALOGUE)
def test_error_catalogue(tmp_path, text, problem, token):
    path = _write(tmp_path, "1 1:1\n" + text)
    with pytest.raises(BadLineError) as caught:
        load_svmlight(path, zero_based=False, n_features=5)
    message = str(caught.value)
    line = 2
    assert message.startswith(f"{path}:{line}: ")
    assert problem in message and message.endswith(token)
    assert caught.value.line == line


def test_every_catalogued_error_has_a_message():
    assert all(isinstance(text, str) and text for text in MESSAGES.values())


def test_skip_bad_lines_counts_and_keeps_the_rest(tmp_path):
    text = "1 1:1\nbad 1:1\n-1 2:1\n1 2:1 1:1\n1 3:x\n-1 1:2\n"
    reader = SvmlightReader(_write(tmp_path, text), zero_based=False, skip_bad_lines=True)
    chunks = list(reader)
    assert reader.n_bad_lines == 3
    assert reader.first_bad_line.line == 2
    y = np.concatenate([c.y for c in chunks])
    assert y.tolist() == [1, -1, -1]
    X = sp.vstack([c.X for c in chunks]).toarray()
    assert X.tolist() == [[1, 0], [0, 1], [2, 0]]


def _places(reader) -> list[str]:
    """What a reader gives line by line: "row" for an example, "skip" for a skipped line
    put back in its place (``Chunk.skipped_before``, then ``n_trailing_bad_lines``)."""
    placed = []
    for chunk in reader:
        marks = ["row"] * chunk.n_rows
        for offset, place in enumerate(chunk.skipped_before.tolist()):
            marks.insert(place + offset, "skip")
        placed += marks
    return placed + ["skip"] * reader.n_trailing_bad_lines


@pytest.mark.parametrize("chunk_bytes", [1 << 20, 8, 20])
def test_skipped_lines_keep_their_place(tmp_path, chunk_bytes):
    # bad lines first, in a row in the middle, between comments and blank lines (which are
    # no examples: no place) and last, the last without a newline; small blocks hold no
    # example at all, so their skipped lines go to the next chunk's start or the end
    text = "x 1:1\n1 1:1\n# note\n1 3:x\n\n1 2:1 1:1\n-1 2:1\n-1 1:2\nbad\n\n1 1:"
    reader = SvmlightReader(
        _write(tmp_path, text), zero_based=False, skip_bad_lines=True, chunk_bytes=chunk_bytes
    )
    assert _places(reader) == ["skip", "row", "skip", "skip", "row", "row", "skip", "skip"]
    assert reader.n_bad_lines == 5
    whole = reader.parse_bytes(text.encode())  # one chunk: every place in it
    assert whole.skipped_before.tolist() == [0, 1, 1, 3, 3]
    assert reader.parse_bytes(b"1 1:1\n").skipped_before.size == 0


def test_many_skipped_lines_in_one_block_keep_their_place(tmp_path):
    # more skipped lines than the parse loop first has room to record (it grows)
    lines = [f"{i % 2} 1:{i}" if i % 3 else "1 1:x" for i in range(300)]
    reader = SvmlightReader(_write(tmp_path, "\n".join(lines)), skip_bad_lines=True)
    assert _places(reader) == ["row" if i % 3 else "skip" for i in range(300)]


def test_empty_file_is_an_error(tmp_path):
    with pytest.raises(ValueError, match="no examples"):
        load_svmlight(_write(tmp_path, "# nothing\n\n"))


def test_scan_finds_width_and_labels(tmp_path):
    path = _write(tmp_path, "3 2:1 7:1 # 99:1\n1 qid:2 4:1\n3 0:1\n")
    scan = scan_svmlight(path)
    assert (scan.min_index, scan.max_index, scan.n_examples) == (0, 7, 3)
    assert scan.labels.tolist() == [1.0, 3.0]


def test_bad_arguments():
    with pytest.raises(ValueError, match="zero_based"):
        SvmlightReader("x", zero_based="maybe")
    with pytest.raises(ValueError, match="n_features"):
        SvmlightReader("x", n_features=0)


def test_chunks_need_no_scipy(tmp_path):
    """A consumer of the CSR arrays never imports scipy.sparse (≈ 0.1 s of start-up)."""
    svm = _write(tmp_path, "1 1:2 3:4\n-1 2:1\n")
    vw = _write(tmp_path, "1 |f a b:2\n-1 |f c\n", "d.vw")
    code = (
        "import sys\n"
        "from olearn.io import SvmlightReader, VWReader, scan_svmlight\n"
        f"chunks = list(SvmlightReader({str(svm)!r})) + list(VWReader({str(vw)!r}, bits=4))\n"
        f"assert scan_svmlight({str(svm)!r}).max_index == 3\n"
        "c = chunks[0]\n"
        "assert c.indptr.tolist() == [0, 2, 3] and c.indices.tolist() == [0, 2, 1]\n"
        "assert c.data.tolist() == [2, 4, 1] and c.y.tolist() == [1, -1]\n"
        "assert c.n_features == 3 and chunks[1].n_features == 16\n"
        "assert chunks[1].data.sum() == 4 and chunks[1].indptr[-1] <= 3\n"
        "loaded = sorted(m for m in sys.modules if m.startswith(('scipy.sparse', 'sklearn')))\n"
        "assert not loaded, loaded\n"
        "assert chunks[0].X.toarray().tolist() == [[2, 0, 4], [0, 1, 0]]\n"
        "assert 'scipy.sparse' in sys.modules\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr


def test_chunk_keeps_the_named_tuple_interface(tmp_path):
    (chunk,) = SvmlightReader(_write(tmp_path, "1 qid:3 1:2\n"), query_id=True)
    X, y, sample_weight, qid, first_line = chunk
    assert X is chunk.X and chunk[1] is y and len(chunk) == 5
    assert sample_weight.tolist() == [1.0] and qid.tolist() == [3] and first_line == 1
    assert X.shape == (1, 1) and X.toarray().tolist() == [[2.0]]


def _numbered_lines(n, bad_at=None, bad="1 3:abc"):
    lines = [f"{1 if i % 2 else -1} {1 + i % 7}:{i}.5 {9 + i % 3}:0.25" for i in range(n)]
    if bad_at is not None:
        lines[bad_at - 1] = bad
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_parallel_blocks_keep_order_and_line_numbers(tmp_path, threads):
    path = _write(tmp_path, _numbered_lines(300))
    chunks = list(SvmlightReader(path, chunk_bytes=97, threads=threads))
    assert len(chunks) > 20
    assert [c.first_line for c in chunks] == list(np.cumsum([1] + [c.n_rows for c in chunks[:-1]]))
    whole = load_svmlight_file(path, zero_based=False)
    # each chunk is as wide as the largest index so far
    so_far = np.maximum.accumulate([c.indices.max() + 1 for c in chunks])
    assert [c.X.shape[1] for c in chunks] == [c.n_features for c in chunks] == so_far.tolist()
    assert chunks[-1].n_features == whole[0].shape[1] == 11
    stacked = sp.vstack([sp.csr_matrix(c.X, shape=(c.n_rows, 11)) for c in chunks])
    assert (stacked != whole[0]).nnz == 0
    assert np.array_equal(np.concatenate([c.y for c in chunks]), whole[1])


@pytest.mark.parametrize("threads", [1, 2])
def test_parallel_errors_name_the_right_line(tmp_path, threads):
    path = _write(tmp_path, _numbered_lines(300, bad_at=250))
    with pytest.raises(BadLineError, match=r":250: feature value is not a number: '3:abc'$"):
        list(SvmlightReader(path, chunk_bytes=64, threads=threads))
    # the first block decides the base (one-based): an index 0 far later is an error
    path = _write(tmp_path, _numbered_lines(300, bad_at=280, bad="1 0:1"))
    with pytest.raises(BadLineError, match=r":280: feature index 0 in a one-based file"):
        list(SvmlightReader(path, chunk_bytes=64, threads=threads))
    text = _numbered_lines(300, bad_at=120) + "x 1:1\n" + "1 1:1\n1 2:nan\n"
    reader = SvmlightReader(_write(tmp_path, text), chunk_bytes=64, threads=threads)
    reader.skip_bad_lines = True
    assert sum(c.n_rows for c in reader) == 300 - 1 + 1
    assert (reader.n_bad_lines, reader.first_bad_line.line, reader.n_examples) == (3, 120, 300)


def test_lines_longer_than_a_block(tmp_path):
    text = "1 " + " ".join(f"{j}:1" for j in range(1, 400)) + "\n-1 2:1\n1 3:1"
    for ending in ("\n", ""):  # a last line without newline is a complete line
        reader = SvmlightReader(_write(tmp_path, text + ending), chunk_bytes=10)
        X = sp.vstack([c.X for c in reader])
        assert X.shape == (3, 399) and X.nnz == 401


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("chunk_bytes", [10, 97, 5000])
def test_a_mapped_file_reads_as_a_stream_of_its_bytes(tmp_path, threads, chunk_bytes):
    """A plain file larger than a block is parsed where it is mapped (no copies); a stream
    (here in memory) is read into buffers: the same chunks, line numbers and errors."""
    from olearn.io import chunks as chunks_module

    long = "1 " + " ".join(f"{j}:1" for j in range(1, 400))
    text = _numbered_lines(200, bad_at=150) + long + "\n-1 2:1\n1 3:1"  # no last newline
    path = _write(tmp_path, text)
    with open(path, "rb") as handle:
        assert (chunks_module._mapped(handle, chunk_bytes) is not None) == (len(text) > chunk_bytes)

    def read(source):
        reader = SvmlightReader(source, chunk_bytes=chunk_bytes, threads=threads, name="d")
        reader.skip_bad_lines = True
        chunks = list(reader)  # cut elsewhere (a stream's blocks start with a carry)
        X = sp.vstack([sp.csr_matrix(c.X, shape=(c.n_rows, 399)) for c in chunks])
        return (
            np.concatenate([c.y for c in chunks]).tolist(),
            X.indptr.tolist(),
            X.indices.tolist(),
            reader.n_bad_lines,
            str(reader.first_bad_line),
            reader.n_bytes,
        )

    mapped = read(path)
    assert mapped == read(io.BytesIO(text.encode()))
    assert mapped[3] == 1 and ":150:" in mapped[4] and mapped[5] == len(text)
    # an open file from its position on, left where reading would leave it
    with open(path, "rb") as handle:
        first = handle.readline()
        reader = SvmlightReader(handle, chunk_bytes=chunk_bytes, skip_bad_lines=True)
        rows = sum(c.n_rows for c in reader)
        assert rows == 200 - 1 - 1 + 3 and handle.tell() == len(text)
    assert first.startswith(b"-1 1:")


def test_stopping_early_stops_the_threads(tmp_path):
    import threading

    path = _write(tmp_path, _numbered_lines(2000))
    bad = _write(tmp_path, _numbered_lines(2000, bad_at=5), "bad.svm")
    before = threading.active_count()
    for _ in range(3):
        for chunk in SvmlightReader(path, chunk_bytes=100):
            assert chunk.n_rows
            break
        with pytest.raises(BadLineError):
            list(SvmlightReader(bad, chunk_bytes=100))
    assert threading.active_count() == before


def test_truncated_gzip_is_a_read_error(tmp_path):
    whole = gzip.compress(_numbered_lines(3000).encode())
    path = _write(tmp_path, whole[: len(whole) // 2], "cut.svm.gz")
    with pytest.raises(ValueError, match="cannot read"):
        list(SvmlightReader(path, chunk_bytes=1000))


def test_scan_in_parallel_blocks_equals_one_block(tmp_path):
    labels = [f"{v:g}" for v in range(300)]  # more than 256 labels over the whole file
    text = "".join(f"{labels[i % 300]} {2 + i % 5}:1\n" for i in range(600))
    path = _write(tmp_path, text)
    few = _write(tmp_path, _numbered_lines(500), "few.svm")
    for threads in (1, 2):
        many = scan_svmlight(path, chunk_bytes=200, threads=threads)
        assert many.labels is None and (many.min_index, many.max_index) == (2, 6)
        assert many.n_examples == 600
        scan = scan_svmlight(few, chunk_bytes=64, threads=threads)
        assert scan.labels.tolist() == [-1.0, 1.0] and scan.n_examples == 500
        assert (scan.min_index, scan.max_index) == (1, 11)


def _lines_with_bad_ones(seed: int):
    """Well-formed one-based lines with integer labels, and malformed lines that would each
    change something if they counted: an index 0 (the base), a large index (the width), a
    label 0.5 (the task) or new labels (the label set)."""
    rng = np.random.default_rng(seed)
    good, mixed = [], []
    bad = ["0.5 0:3 2:x", "7 0:1 3:1 2:1", "9 40:1 nan:2", "0.25 qid:x 1:1", "3 1:1 1:2"]
    for i in range(60):
        k = int(rng.integers(1, 5))
        idx = np.sort(rng.choice(np.arange(1, 12), size=k, replace=False))
        line = f"{int(rng.choice([-1, 1]))} " + " ".join(f"{j}:{rng.normal():.4g}" for j in idx)
        good.append(line)
        if i % 7 == 0:  # malformed lines, some at the very start (the first block)
            mixed.append(bad[(i // 7) % len(bad)])
        mixed.append(line)
    return "\n".join(good) + "\n", "\n".join(mixed) + "\n"


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_skipped_line_has_no_effect(tmp_path, seed):
    # before: a skipped index 0 made the file zero-based (every column shifted by one) and a
    # skipped 0.5 label joined the label set (a classifier became a regressor)
    clean_text, mixed_text = _lines_with_bad_ones(seed)
    clean = _write(tmp_path, clean_text, "clean.svm")
    mixed = _write(tmp_path, mixed_text, "mixed.svm")
    X, y = load_svmlight(clean)
    got_X, got_y = load_svmlight(mixed, skip_bad_lines=True)
    assert got_X.shape == X.shape and (got_X != X).nnz == 0 and np.array_equal(got_y, y)
    for n_features in (X.shape[1], X.shape[1] + 3):  # the one-pass base decision, at a width
        got = load_svmlight(mixed, skip_bad_lines=True, n_features=n_features)[0]
        assert got.shape[1] == n_features and (got[:, : X.shape[1]] != X).nnz == 0
    expected = scan_svmlight(clean)
    for options in ({}, {"chunk_bytes": 300, "threads": 2}):
        scan = scan_svmlight(mixed, skip_bad_lines=True, **options)
        assert scan.labels.tolist() == expected.labels.tolist() == [-1.0, 1.0]
        assert scan[:2] + scan[3:] == expected[:2] + expected[3:] and scan.min_index >= 1
    # the streaming reader decides the base on the well-formed lines of its first block
    reader = SvmlightReader(mixed, skip_bad_lines=True, chunk_bytes=400)
    chunks = list(reader)
    assert reader.base == 1 and reader.n_bad_lines == mixed_text.count("\n") - 60
    assert np.array_equal(np.concatenate([c.y for c in chunks]), y)


@pytest.mark.parametrize("chunk_bytes", [5, 64, 1 << 20])
def test_a_last_line_without_newline_is_a_complete_line(tmp_path, chunk_bytes):
    # before: "line cut off at end of file"; scikit-learn and VW read it
    text = "1 1:0.5 3:2\n-1 2:1\n# comment\n1 3:1.25"
    path = _write(tmp_path, text)
    ref_X, ref_y = load_svmlight_file(path)
    X, y = load_svmlight(path)
    assert np.array_equal(y, ref_y) and (X != ref_X).nnz == 0
    chunks = list(SvmlightReader(path, chunk_bytes=chunk_bytes))
    assert np.concatenate([c.y for c in chunks]).tolist() == [1, -1, 1]
    assert scan_svmlight(path, chunk_bytes=chunk_bytes).n_examples == 3
    assert load_svmlight(path, skip_bad_lines=True)[1].tolist() == [1, -1, 1]


def test_unseen_features_are_ignored_and_counted(tmp_path):
    path = _write(tmp_path, "1 1:1 4:2 7:1\n-1 2:1\n1 3:5 9:1 10:1\nbad 5:1\n")
    reader = SvmlightReader(path, n_features=3, ignore_unseen=True, skip_bad_lines=True)
    X = sp.vstack([c.X for c in reader]).toarray()
    assert X.tolist() == [[1, 0, 0], [0, 1, 0], [0, 0, 5]]
    assert (reader.n_unseen, reader.n_unseen_rows, reader.n_bad_lines) == (4, 2, 1)
    with pytest.raises(BadLineError, match=r":1: feature index beyond the model's width"):
        list(SvmlightReader(path, n_features=3))


@pytest.mark.parametrize("index", ["2147483648", "99999999999", "9" * 40])
def test_an_index_beyond_int32_names_its_line(tmp_path, index):
    # before: "n_features must be in [1, 2**31 - 1], got 9999999999" (no file, no line)
    path = _write(tmp_path, f"1 1:1\n-1 {index}:1\n")
    with pytest.raises(BadLineError, match=rf"data.svm:2: feature index too large.*'{index}:1'"):
        load_svmlight(path)


def test_a_truncated_gzip_names_the_file_in_every_pass(tmp_path):
    whole = gzip.compress(_numbered_lines(3000).encode())
    path = _write(tmp_path, whole[: len(whole) // 2], "cut.svm.gz")
    # before: the scan raised EOFError("Compressed file ended ...") without the file's name
    for read in (
        lambda: scan_svmlight(path),
        lambda: scan_svmlight(path, skip_bad_lines=True),
        lambda: load_svmlight(path),
    ):
        with pytest.raises(ValueError, match=r"cut\.svm\.gz: cannot read: Compressed file"):
            read()


def test_a_line_longer_than_the_limit_is_an_error_not_an_allocation(tmp_path):
    text = "1 1:1\n-1 2:1\n1 " + " ".join(f"{j}:1" for j in range(1, 3000)) + "\n-1 3:1\n"
    path = _write(tmp_path, text)
    # (a line within one block is bounded by the block: the limit bounds a line's growth
    # beyond a block)
    for threads in (1, 2):
        with pytest.raises(BadLineError, match=r"data.svm:3: line longer than the limit \(1000"):
            list(SvmlightReader(path, max_line_bytes=1000, chunk_bytes=64, threads=threads))
        with pytest.raises(BadLineError, match=r"data.svm:3: line longer than the limit \(1000"):
            scan_svmlight(path, max_line_bytes=1000, chunk_bytes=64, threads=threads)
    assert load_svmlight(path, max_line_bytes=1000)[0].shape == (4, 2999)  # one block


def test_input_without_newline_is_bounded(tmp_path):
    # /dev/zero: no newline ever (before: the line buffer grew until memory ran out)
    zero = "/dev/zero"
    if not os.path.exists(zero):
        pytest.skip("no /dev/zero")
    with pytest.raises(BadLineError, match=r"/dev/zero:1: line longer than the limit"):
        list(SvmlightReader(zero, max_line_bytes=1 << 20))
    with pytest.raises(BadLineError, match=r"/dev/zero:1: line longer"):
        scan_svmlight(zero, max_line_bytes=1 << 20)


def test_weights_are_ones_for_svmlight(tmp_path):
    path = _write(tmp_path, "1 1:1\n-1 2:1\n")
    assert all(c.sample_weight.tolist() == [1.0, 1.0] for c in SvmlightReader(path))
    X, y, w = load_svmlight(path, return_weights=True)
    assert w.tolist() == [1.0, 1.0]
    X, y, qid, w = load_svmlight(path, return_weights=True, query_id=True)
    assert qid.tolist() == [0, 0] and w.tolist() == [1.0, 1.0]


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="counts /proc/self/fd")
@pytest.mark.parametrize("compress", [gzip.compress, bz2.compress, lzma.compress])
def test_reading_a_compressed_file_leaves_no_descriptor_open(tmp_path, compress):
    """The decompressors leave open a file object they are given: closing the reader now
    closes the file too (one descriptor leaked per compressed input before)."""
    from olearn.io.chunks import open_source

    path = tmp_path / "data.svm.z"
    path.write_bytes(compress(b"1 1:2\n-1 2:1\n"))
    before = len(os.listdir("/proc/self/fd"))
    for _ in range(20):
        handle, owned = open_source(path)
        assert handle.read() == b"1 1:2\n-1 2:1\n" and owned
        handle.close()
    assert len(os.listdir("/proc/self/fd")) == before
    X, y = load_svmlight(path)  # (the reader's own open and close)
    assert X.shape == (2, 2) and len(os.listdir("/proc/self/fd")) == before
