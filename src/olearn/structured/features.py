"""Token features and their hashing.

A feature function maps a sentence and a position to string features of that token:
``f(tokens: Sequence[str], i: int) -> Iterable[str]`` (the whole sentence is passed so that
features may look at neighbouring words; one str instead of a list of them is an error).
Strings are hashed into ``2**n_bits`` emission rows with MurmurHash3 (x86, 32-bit, seed 0,
unsigned, of the UTF-8 bytes; the compiled hash of the VW reader,
``olearn.io.murmurhash3_32``, equal to ``mmh3.hash(feature, 0, signed=False)``): row =
``murmurhash3_32(feature) & (2**n_bits − 1)``. The hash is stable across processes, platforms
and Python versions (unlike ``hash()``), so a saved model keeps meaning the same thing. Each
distinct string of a call is hashed once, all of them in one compiled loop. A label-bias row
is added by the tagger, not by feature functions.

Feature functions are selected by name in :data:`FEATURE_FUNCTIONS` so a model that uses one
can be saved and loaded; any other callable works for training and prediction but cannot be
written to a model file.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

import numpy as np

from olearn._compile import jit
from olearn.io._vw_parse import murmur3_32

FeatureFunction = Callable[[Sequence[str], int], Iterable[str]]


def _shape(word: str) -> str:
    """Word shape with runs collapsed: ``"Mr."`` → ``"Xx."``, ``"1,234"`` → ``"d,d"``."""
    out = []
    for ch in word:
        if ch.isupper():
            c = "X"
        elif ch.islower():
            c = "x"
        elif ch.isdigit():
            c = "d"
        else:
            c = ch
        if not out or out[-1] != c:
            out.append(c)
    return "".join(out)


def _intrinsic(word: str) -> list[str]:
    lower = word.lower()
    feats = [
        "w=" + word,
        "l=" + lower,
        "shape=" + _shape(word),
    ]
    for j in range(1, 4):
        if len(lower) >= j:
            feats.append(f"p{j}=" + lower[:j])
            feats.append(f"s{j}=" + lower[-j:])
    if any(ch.isdigit() for ch in word):
        feats.append("has_digit")
    if "-" in word:
        feats.append("has_hyphen")
    if word[:1].isupper():
        feats.append("init_cap")
    if word.isupper():
        feats.append("all_caps")
    return feats


_OFFSETS = (-2, -1, 1, 2)


def _context(word: str) -> list[str]:
    """Features a word contributes to its neighbours: as w[-2], w[-1], w[+1], w[+2], then
    its 3-suffix as s3[-1] and s3[+1] (``word`` is lower-cased or a boundary marker)."""
    feats = [f"w[{offset:+d}]=" + word for offset in _OFFSETS]
    feats.append("s3[-1]=" + word[-3:])
    feats.append("s3[+1]=" + word[-3:])
    return feats


def word_features(tokens: Sequence[str], i: int) -> list[str]:
    """The default features of token i: the word, its lower case, prefixes and suffixes of
    length 1–3 (lower-cased), its shape, digit / hyphen / capitalisation flags, the
    lower-cased previous and next two words (``<s>`` / ``</s>`` beyond the ends) and the
    3-suffixes of the previous and next words."""
    feats = _intrinsic(tokens[i])
    n = len(tokens)
    for offset in _OFFSETS:
        j = i + offset
        if j < 0:
            word = "<s>"
        elif j >= n:
            word = "</s>"
        else:
            word = tokens[j].lower()
        feats.append(f"w[{offset:+d}]=" + word)
    if i > 0:
        feats.append("s3[-1]=" + tokens[i - 1].lower()[-3:])
    if i + 1 < n:
        feats.append("s3[+1]=" + tokens[i + 1].lower()[-3:])
    return feats


def _ragged(lists: list[list]) -> np.ndarray:
    """Row pointers (int64, len(lists)+1) of the concatenation of ``lists``."""
    lengths = np.fromiter(map(len, lists), dtype=np.int64, count=len(lists))
    ptr = np.zeros(len(lists) + 1, dtype=np.int64)
    np.cumsum(lengths, out=ptr[1:])
    return ptr


def _word_rows(sentences: Iterable[Sequence[str]], n_bits: int):
    """Fast path of :func:`word_features` + hashing with identical output.

    The features of a word type, and those it lends to its neighbours, are built and hashed
    once per type; tokens are then assembled with vectorised gathers.
    """
    types: dict[str, int] = {}
    lowers: dict[str, int] = {"<s>": 0, "</s>": 1}
    token_type: list[int] = []
    token_lower: list[int] = []
    lengths: list[int] = []
    for tokens in sentences:
        for token in tokens:
            token_type.append(types.setdefault(token, len(types)))
            token_lower.append(lowers.setdefault(token.lower(), len(lowers)))
        lengths.append(len(tokens))
    intrinsic = [_intrinsic(w) for w in types]
    type_ptr = _ragged(intrinsic)
    type_rows = hash_features([f for feats in intrinsic for f in feats], n_bits)
    lent = hash_features([f for w in lowers for f in _context(w)], n_bits).reshape(-1, 6)
    t_type = np.asarray(token_type, dtype=np.int64)
    t_lower = np.asarray(token_lower, dtype=np.int64)
    sent_ptr = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=sent_ptr[1:])
    n_tokens = int(sent_ptr[-1])
    # position of each token in its sentence and its sentence's length
    length = np.repeat(np.asarray(lengths, dtype=np.int64), lengths)
    pos = np.arange(n_tokens) - np.repeat(sent_ptr[:-1], lengths)

    def neighbour(offset: int) -> np.ndarray:
        j = pos + offset
        inside = (j >= 0) & (j < length)
        lower = np.where(offset < 0, 0, 1) * np.ones(n_tokens, dtype=np.int64)
        shifted = np.clip(np.arange(n_tokens) + offset, 0, max(n_tokens - 1, 0))
        return np.where(inside, t_lower[shifted] if n_tokens else lower, lower), inside

    n_intr = type_ptr[t_type + 1] - type_ptr[t_type]
    has_prev = pos > 0
    has_next = pos + 1 < length
    counts = n_intr + 4 + has_prev + has_next
    tok_ptr = np.zeros(n_tokens + 1, dtype=np.int64)
    np.cumsum(counts, out=tok_ptr[1:])
    feats = np.empty(int(tok_ptr[-1]), dtype=np.int32)
    # intrinsic rows: a ragged gather
    first = np.repeat(tok_ptr[:-1], n_intr)
    within = np.arange(int(n_intr.sum())) - np.repeat(np.cumsum(n_intr) - n_intr, n_intr)
    feats[first + within] = type_rows[np.repeat(type_ptr[t_type], n_intr) + within]
    base = tok_ptr[:-1] + n_intr
    for slot, offset in enumerate(_OFFSETS):
        lower, _ = neighbour(offset)
        feats[base + slot] = lent[lower, slot]
    base = base + 4
    prev, _ = neighbour(-1)
    feats[base[has_prev]] = lent[prev[has_prev], 4]
    nxt, _ = neighbour(1)
    feats[(base + has_prev)[has_next]] = lent[nxt[has_next], 5]
    return feats, tok_ptr, sent_ptr


#: Feature functions selectable by name (saved models refer to them by this name).
FEATURE_FUNCTIONS: dict[str, FeatureFunction] = {"word": word_features}


def resolve(features: str | FeatureFunction) -> FeatureFunction:
    """The feature function named ``features``, or ``features`` itself if callable."""
    if callable(features):
        return features
    try:
        return FEATURE_FUNCTIONS[features]
    except (KeyError, TypeError):
        raise ValueError(
            f"unknown feature function {features!r}; choose one of "
            f"{sorted(FEATURE_FUNCTIONS)} or pass a callable (tokens, i) -> list of str"
        ) from None


@jit
def _hash_rows(buf, ends, mask, rows):
    start = 0
    for i in range(ends.shape[0]):
        rows[i] = murmur3_32(buf, start, ends[i], 0) & mask
        start = ends[i]


def hash_features(features: Sequence[str], n_bits: int) -> np.ndarray:
    """The emission rows (int64) of many feature strings, hashed in one compiled loop."""
    encoded = [feature.encode() for feature in features]
    ends = np.cumsum(np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded)))
    buf = np.frombuffer(b"".join(encoded), dtype=np.uint8)
    rows = np.empty(len(encoded), dtype=np.int64)
    _hash_rows(buf, ends, np.int64((1 << n_bits) - 1), rows)
    return rows


def feature_hash(feature: str, n_bits: int) -> int:
    """The emission row of one feature string (the documented, stable hash)."""
    return int(hash_features([feature], n_bits)[0])


def encode_sentences(
    sentences: Iterable[Sequence[str]], function: FeatureFunction, n_bits: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Hash the features of every token once.

    Returns ``feats`` (int32 rows, all tokens concatenated), ``tok_ptr`` (int64, n_tokens+1)
    and ``sent_ptr`` (int64, n_sentences+1).
    """
    if function is word_features:
        return _word_rows(sentences, n_bits)
    distinct: dict[str, int] = {}  # feature string -> its index among the distinct ones
    ids: list[int] = []
    tok_ptr = [0]
    sent_ptr = [0]
    n_tokens = 0
    for q, tokens in enumerate(sentences):
        for i in range(len(tokens)):
            feats = function(tokens, i)
            if isinstance(feats, str):  # its characters would silently be the features
                raise ValueError(
                    f"the feature function returned the str {feats!r} for token {i} of "
                    f"sentence {q}: it must return a list of str (for one feature, "
                    f"[{feats!r}])"
                )
            ids.extend(distinct.setdefault(f, len(distinct)) for f in feats)
            tok_ptr.append(len(ids))
        n_tokens += len(tokens)
        sent_ptr.append(n_tokens)
    wrong = [f for f in distinct if not isinstance(f, str)]  # (each distinct one once)
    if wrong:
        raise ValueError(
            f"the feature function returned the feature {wrong[0]!r} of type "
            f"{type(wrong[0]).__name__}: features must be str"
        )
    rows = hash_features(list(distinct), n_bits).astype(np.int32)
    return (
        rows[np.asarray(ids, dtype=np.int64)],
        np.asarray(tok_ptr, dtype=np.int64),
        np.asarray(sent_ptr, dtype=np.int64),
    )
