"""The VW-style reader: hashing pinned to fixed values, a literal Python oracle, errors."""

import numpy as np
import pytest
from test_io_svmlight import _places

from olearn.io import BadLineError, VWReader, load_vw, murmurhash3_32

mmh3 = pytest.importorskip("mmh3")

# MurmurHash3 x86_32 values that must never change (models depend on them).
PINNED = [
    ("", 0, 0),
    ("a", 0, 1009084850),
    ("hello", 0, 613153351),
    ("hello", 42, 3806057185),
    ("feature", 0, 396742752),
    ("w", 0, 4282621215),
    ("price", 2**32 - 1, 2389047546),
]


@pytest.mark.parametrize("key, seed, expected", PINNED)
def test_hash_values_are_pinned(key, seed, expected):
    assert murmurhash3_32(key, seed) == expected


@pytest.mark.parametrize("key", ["", "x", "ab", "abc", "abcd", "abcde", "ünïcödé", "k" * 41])
def test_hash_equals_mmh3(key):
    for seed in (0, 1, 0x9747B28C, 2**32 - 1):
        assert murmurhash3_32(key, seed) == mmh3.hash(key, seed, signed=False)


def test_column_of_a_feature_is_pinned(tmp_path):
    # "apple" in namespace "w": seed = h("w"), hash = h("apple", seed), column = hash mod 2^18
    path = tmp_path / "one.vw"
    path.write_text("1 |w apple\n")
    X, _ = load_vw(path)
    assert X.indices.tolist() == [207979]


def _reference_row(line: str, bits: int, ngrams: int = 0, quadratic=()):
    """Literal Python version of the documented hashing rules."""
    label_part, *namespaces = line.split("|")
    feats = []  # (hash, value, letter, group)
    for group, part in enumerate(namespaces):
        head, *tokens = part.split(" ")
        name, _, weight = head.partition(":")
        scale = float(weight) if weight else 1.0
        seed = mmh3.hash(name, 0, signed=False) if name else 0
        for token in tokens:
            if not token:
                continue
            fname, _, value = token.partition(":")
            v = float(value) if value else 1.0
            feats.append((mmh3.hash(fname, seed, signed=False), v * scale, name[:1], group))
    extra = []
    for n in range(2, ngrams + 1):
        for s in range(len(feats) - n + 1):
            window = feats[s : s + n]
            if len({f[3] for f in window}) != 1:
                continue
            h, v = window[0][0], window[0][1]
            for f in window[1:]:
                h = ((h * 16777619) & 0xFFFFFFFF) ^ f[0]
                v *= f[1]
            extra.append((h, v))
    for a, b in quadratic:
        for f in feats:
            for g in feats:
                if f[2] == a and g[2] == b:
                    extra.append((((f[0] * 16777619) & 0xFFFFFFFF) ^ g[0], f[1] * g[1]))
    row = {}
    for h, v in [(f[0], f[1]) for f in feats] + extra:
        row[h % (1 << bits)] = row.get(h % (1 << bits), 0.0) + v
    return float(label_part.split()[0]), row


LINES = [
    "1 |w apple banana:2 |c red",
    "-1 0.5 'tag|w cherry cherry |color:2 blue:1.5 green",
    "3 |a x y z |b u v",
    "0.25 | plain words here:3 |a x",
]


@pytest.mark.parametrize(
    "ngrams, quadratic", [(0, ()), (2, ()), (3, ()), (0, ("ab", "wc")), (2, ("aa",))]
)
def test_matches_the_literal_reference(tmp_path, ngrams, quadratic):
    path = tmp_path / "d.vw"
    path.write_text("\n".join(LINES) + "\n")
    X, y = load_vw(path, bits=12, ngrams=ngrams, quadratic=list(quadratic))
    for i, line in enumerate(LINES):
        label, row = _reference_row(line, 12, ngrams, quadratic)
        assert y[i] == label
        got = dict(zip(X[i].indices.tolist(), X[i].data.tolist(), strict=True))
        assert got == pytest.approx(row, rel=1e-15)
        assert X[i].has_sorted_indices


def test_a_byte_order_mark_at_the_start_is_skipped(tmp_path):
    # before: the first label read "\ufeff1", not a number
    path = tmp_path / "bom.vw"
    path.write_bytes(b"\xef\xbb\xbf1 |f a b:2\r\n-1 |f c\r\n")
    X, y = load_vw(path, bits=8)
    path.write_bytes(b"1 |f a b:2\n-1 |f c\n")
    plain_X, plain_y = load_vw(path, bits=8)
    assert y.tolist() == plain_y.tolist() == [1, -1] and (X != plain_X).nnz == 0


def test_lone_carriage_return_line_ends_are_an_error(tmp_path):
    # before: a CR was read as a space, so four examples became one, silently
    path = tmp_path / "mac.vw"
    path.write_bytes(b"1 |f a\r-1 |f b\r1 |f c\r-1 |f d\r")
    with pytest.raises(ValueError, match=r"mac.vw:1: lines end in a lone carriage return"):
        load_vw(path, bits=8)
    path.write_bytes(b"1 |f a\r\n-1 |f b\r\n")  # CRLF (Windows) is fine
    assert load_vw(path, bits=8)[1].tolist() == [1, -1]


def test_importance_weights(tmp_path):
    path = tmp_path / "w.vw"
    path.write_text("1 2.5 |a x\n-1 |a y\n")
    X, y, w = load_vw(path, return_weights=True)
    assert w.tolist() == [2.5, 1.0]
    assert load_vw(path, return_weights=False)[1].tolist() == [1, -1]


def test_unlabeled_lines_for_prediction(tmp_path):
    path = tmp_path / "u.vw"
    path.write_text("|a x\n")
    X, y = load_vw(path, require_label=False)
    assert np.isnan(y[0]) and X.nnz == 1
    with pytest.raises(BadLineError, match="no label"):
        load_vw(path)


CATALOGUE = [
    ("a |f x\n", "label is not a number", "'a'"),
    ("1 |f x:abc\n", "feature value is not a number", "'x:abc'"),
    ("1 |f x:nan\n", "NaN or infinite value", "'x:nan'"),
    ("inf |f x\n", "NaN or infinite value", "'inf'"),
    ("no |f x\n", "label is not a number", "'no'"),
    ("1 |f x:none\n", "feature value is not a number", "'x:none'"),
    ("1 f x\n", "expected '|' before the features", "'1 f x'"),
    ("1 -2 |f x\n", "importance weight", "'-2'"),
    # garbage in the label section (before: ignored, importance weight 1)
    ("1 0,5 |f x\n", "importance weight is not a non-negative number", "'0,5'"),
    ("1 2x |f x\n", "importance weight is not a non-negative number", "'2x'"),
    ("1 abc |f x\n", "importance weight is not a non-negative number", "'abc'"),
    ("1 2 junk more |f x\n", "base (initial prediction, after the importance", "'junk'"),
    ("1 2 3 4 |f x\n", "extra token before '|' (expected label [importance [base]]", "'4'"),
    ("1 'a 'b |f x\n", "extra token before '|'", '"\'b"'),
    ("1 f x", "expected '|' before the features", "'1 f x'"),  # before: ignored at the end
    ("1 |f:zz x\n", "namespace weight is not a number", "'f:zz'"),
    # a tag is not a label: a training line needs one (before: label NaN, a NaN model)
    ("'tag |f x\n", "no label", '"\'tag |f x"'),
    ("'tag 2 |f x\n", "no label", '"\'tag 2 |f x"'),
    # values that overflow once weighted (before: inf in X, a NaN model, exit 0)
    ("1 |f:1e200 x:1e200\n", "overflows to infinity", "'1 |f:1e200 x:1e200'"),
]


@pytest.mark.parametrize("text, problem, token", CATALOGUE)
def test_error_catalogue(tmp_path, text, problem, token):
    path = tmp_path / "bad.vw"
    path.write_text("1 |f ok\n" + text)
    with pytest.raises(BadLineError) as caught:
        load_vw(path)
    assert str(caught.value).startswith(f"{path}:2: ")
    assert problem in str(caught.value) and str(caught.value).endswith(token)


def test_skip_bad_lines(tmp_path):
    path = tmp_path / "bad.vw"
    path.write_text("1 |f a\nx |f b\n-1 |f c\n1 |f d:q\n")
    reader = VWReader(path, skip_bad_lines=True)
    y = np.concatenate([c.y for c in reader])
    assert y.tolist() == [1, -1]
    assert reader.n_bad_lines == 2 and reader.first_bad_line.line == 2


@pytest.mark.parametrize("chunk_bytes", [1 << 20, 8, 20])
def test_skipped_lines_keep_their_place(tmp_path, chunk_bytes):
    # as for svmlight; blank lines (spaces only) are no examples, and a line of '#' is one
    # (malformed: VW-style text has no comments)
    path = tmp_path / "bad.vw"
    path.write_text("1 x |f a\n1 |f a\n  \n1 |f d:q\n# note\n-1 |f c\n2 |f b\nnobar\n\n1 |f")
    reader = VWReader(path, skip_bad_lines=True, chunk_bytes=chunk_bytes)
    assert _places(reader) == ["skip", "row", "skip", "skip", "row", "row", "skip", "row"]
    assert reader.n_bad_lines == 4


def test_many_skipped_lines_in_one_block_keep_their_place(tmp_path):
    # more skipped lines than the parse loop first has room to record (it grows)
    path = tmp_path / "bad.vw"
    path.write_text("\n".join(f"{i % 2} |f a:{i}" if i % 3 else "1 |f a:x" for i in range(300)))
    reader = VWReader(path, skip_bad_lines=True)
    assert _places(reader) == ["row" if i % 3 else "skip" for i in range(300)]


def test_bad_options():
    with pytest.raises(ValueError, match="bits"):
        VWReader("x", bits=40)
    with pytest.raises(ValueError, match="ngrams"):
        VWReader("x", ngrams=1)
    with pytest.raises(ValueError, match="quadratic"):
        VWReader("x", quadratic=["abc"])


def test_rows_beyond_every_initial_capacity(tmp_path):
    # 300 features in a row (beyond the 256 of the per-row scratch, which the crossings then
    # overflow again), many one-feature rows (beyond the row and value capacities guessed
    # from the block size): the parse resumes with larger arrays and equals the reference.
    lines = ["1 |a " + " ".join(f"f{j}" for j in range(300)) + " |b x y"]
    lines += ["-1 |a x"] * 200 + ["2 |a " + " ".join(["x", "y", "z", "w"] * 50) + " |b q"]
    path = tmp_path / "wide.vw"
    path.write_text("\n".join(lines) + "\n")
    for ngrams, quadratic in ((0, ()), (3, ("ab",))):
        X, y = load_vw(path, bits=14, ngrams=ngrams, quadratic=list(quadratic))
        assert X.shape == (len(lines), 2**14)
        for i in (0, 1, 100, len(lines) - 1):
            label, row = _reference_row(lines[i], 14, ngrams, quadratic)
            assert y[i] == label
            got = dict(zip(X[i].indices.tolist(), X[i].data.tolist(), strict=True))
            assert got == pytest.approx(row, rel=1e-15)


@pytest.mark.parametrize(
    "text, options",
    [
        ("1 |f:1e200 x:1e200\n", {}),  # namespace weight × value
        ("1 |a x:1e200 |b y:1e200\n", {"quadratic": ["ab"]}),  # a crossing
        ("1 |a x:1e200 y:1e200\n", {"ngrams": 2}),  # an n-gram
        ("1 |a x:1e308 y:1e308 z:1e308\n", {"bits": 1}),  # colliding features add up
        ("1 |a x:1e308 y:0 |b z:1e308\n", {"quadratic": ["ab"]}),  # inf · 0 = NaN: same
    ],
)
def test_values_that_overflow_name_their_line(tmp_path, text, options):
    # before: inf (or NaN) in X, exit 0, a NaN model
    path = tmp_path / "o.vw"
    path.write_text("1 |a ok\n" + text + "-1 |a fine\n")
    with pytest.raises(BadLineError, match=r"o\.vw:2: a feature value overflows to infinity"):
        load_vw(path, **options)
    X, y = load_vw(path, skip_bad_lines=True, **options)
    assert np.isfinite(X.data).all() and y.tolist() == [1, -1]


def test_a_tag_is_not_a_label(tmp_path):
    path = tmp_path / "t.vw"
    path.write_text("1 'first |f a\n'second |f b\n-1 2 'third |f c\n")
    with pytest.raises(BadLineError, match="t.vw:2: no label"):
        load_vw(path)
    X, y, w = load_vw(path, skip_bad_lines=True, return_weights=True)
    assert y.tolist() == [1, -1] and w.tolist() == [1, 2]
    assert np.isnan(load_vw(path, require_label=False)[1][1])  # prediction: unlabelled


def test_the_label_section_as_vowpal_wabbit_reads_it(tmp_path):
    # label [importance [base]] ['tag]: the base (VW's initial prediction) is read and not
    # used; a tag is quoted or touches '|' (even a number: VW's reading of "1 2|f"), but the
    # first token is the label
    lines = ["1 2 0.5 |f a", "1 2 'tag|f a", "1 2 0.5 'tag |f a", "1 2 0.5 tag|f a",
             "1 3|f a", "1|f a", "1 'tag 2 |f a", "1\t2\t|f a"]  # fmt: skip
    path = tmp_path / "t.vw"
    path.write_text("\n".join(lines) + "\n")
    X, y, w = load_vw(path, return_weights=True)
    assert y.tolist() == [1] * 8 and w.tolist() == [2, 2, 2, 2, 1, 1, 1, 2]
    assert all((X[i] != X[0]).nnz == 0 for i in range(8))  # the same features
    path.write_text("1 |f a\n1 0,5 |f a\n1 2x |f a\n1 abc |f a\n1 2 junk more |f a\n-1 |f b\n")
    reader = VWReader(path, skip_bad_lines=True)
    assert np.concatenate([c.y for c in reader]).tolist() == [1, -1]
    assert reader.n_bad_lines == 4 and reader.first_bad_line.line == 2


def test_an_unquoted_tag_touches_the_bar(tmp_path):
    # before: a tag starting with i or n was read as a NaN importance weight (an error)
    path = tmp_path / "t.vw"
    path.write_text("1 id42|f a\n-1 nothing|f b\n1 mytag|f c\n")
    X, y, w = load_vw(path, return_weights=True)
    assert y.tolist() == [1, -1, 1] and w.tolist() == [1, 1, 1]


def test_an_example_beyond_the_feature_limit_names_its_line(tmp_path):
    # before: -q aa on a wide line grew the per-example scratch without bound
    path = tmp_path / "w.vw"
    wide = " ".join(f"f{j}" for j in range(30))
    path.write_text(f"1 |a x y\n-1 |a {wide}\n1 |b {wide} {wide}\n")
    with pytest.raises(BadLineError, match=r"w\.vw:2: too many features in one example"):
        load_vw(path, quadratic=["aa"], max_row_features=500)
    with pytest.raises(BadLineError, match=r"w\.vw:3: too many features .*more than 50,"):
        load_vw(path, max_row_features=50)
    X, y = load_vw(path, quadratic=["aa"], max_row_features=500, skip_bad_lines=True)
    assert y.tolist() == [1, 1] and X[1].nnz == 30
    assert load_vw(path, quadratic=["aa"], max_row_features=930)[0].shape[0] == 3


def test_weights_are_per_row_ones_when_absent(tmp_path):
    path = tmp_path / "w.vw"
    path.write_text("1 |a x\n-1 |a y")  # and a last line without newline is complete
    (chunk,) = VWReader(path)
    assert chunk.sample_weight.tolist() == [1.0, 1.0] and chunk.y.tolist() == [1, -1]
