"""Sequence labelling: decoders and the Hildreth solver against literal oracles, the training
pass against a dense brute-force reference, k-best MIRA with k = 1 against PA, bad input."""

import itertools
import os
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import structured as ref
from sklearn.exceptions import NotFittedError

from olearn.datasets.hmm import make_hmm_sequences
from olearn.io import murmurhash3_32
from olearn.structured import decode, train
from olearn.structured.features import (
    encode_sentences,
    feature_hash,
    hash_features,
    word_features,
)
from olearn.structured.readers import read_conllu
from olearn.structured.tagger import SequenceTagger


def random_chain(rng, n, L, mask=None):
    E = rng.normal(size=(n, L))
    if mask is not None:
        E[:, ~mask] = -np.inf
    return E, rng.normal(size=L), rng.normal(size=(L, L)), rng.normal(size=L)


@pytest.mark.parametrize("seed", range(12))
def test_viterbi_matches_brute_force_and_numpy(seed):
    rng = np.random.default_rng(seed)
    n, L = int(rng.integers(1, 6)), int(rng.integers(1, 5))
    E, start, trans, end = random_chain(rng, n, L)
    out = np.empty(n, dtype=np.int32)
    score = decode.viterbi(E, start, trans, end, out)
    (best, best_score), *_ = ref.brute_force_kbest(E, start, trans, end, 1)
    np.testing.assert_array_equal(out, best)
    assert score == pytest.approx(best_score, abs=1e-12)
    y_np, s_np = ref.viterbi_reference(E, start, trans, end)
    np.testing.assert_array_equal(out, y_np)
    assert decode.sequence_score(E, start, trans, end, out) == pytest.approx(score, abs=1e-12)


def test_viterbi_ties_go_to_lowest_labels():
    E = np.zeros((3, 3))
    out = np.empty(3, dtype=np.int32)
    decode.viterbi(E, np.zeros(3), np.zeros((3, 3)), np.zeros(3), out)
    np.testing.assert_array_equal(out, [0, 0, 0])


@pytest.mark.parametrize("seed", range(10))
def test_kbest_viterbi_matches_brute_force(seed):
    rng = np.random.default_rng(100 + seed)
    n, L = int(rng.integers(1, 5)), int(rng.integers(1, 4))
    mask = None
    if seed % 3 == 0 and L > 1:
        mask = np.ones(L, dtype=bool)
        mask[int(rng.integers(L))] = False
    E, start, trans, end = random_chain(rng, n, L, mask)
    k = int(rng.integers(1, L**n + 3))
    out = np.zeros((k, n), dtype=np.int32)
    scores = np.empty(k)
    found = decode.kbest_viterbi(E, start, trans, end, k, out, scores)
    expected = ref.brute_force_kbest(E, start, trans, end, k)
    assert found == len(expected)
    for j, (y, s) in enumerate(expected):
        np.testing.assert_array_equal(out[j], y)
        assert scores[j] == pytest.approx(s, abs=1e-12)
    if mask is not None:
        assert not np.isin(out[:found], np.flatnonzero(~mask)).any()


@pytest.mark.parametrize("seed", range(8))
def test_loss_augmented_decoding_matches_brute_force(seed):
    rng = np.random.default_rng(200 + seed)
    n, L = int(rng.integers(1, 6)), int(rng.integers(2, 4))
    E, start, trans, end = random_chain(rng, n, L)
    E *= 0.5  # comparable to the unit costs, so the augmentation changes the answer
    gold = rng.integers(L, size=n).astype(np.int32)
    E_aug = np.empty_like(E)
    decode.add_hamming(E, gold, E_aug)
    out = np.empty(n, dtype=np.int32)
    decode.viterbi(E_aug, start, trans, end, out)
    (best, _), *_ = ref.brute_force_kbest(E, start, trans, end, 1, ref.hamming(gold))
    np.testing.assert_array_equal(out, best)


@pytest.mark.parametrize("seed", range(12))
def test_hildreth_matches_generic_qp(seed):
    rng = np.random.default_rng(300 + seed)
    k, d = int(rng.integers(1, 6)), int(rng.integers(1, 8))
    deltas = rng.normal(size=(k, d))
    b = rng.normal(size=k) + 0.5
    box = [np.inf, 0.3][seed % 2]
    ridge = [0.0, 0.5][(seed // 2) % 2]
    alpha = np.empty(k)
    G = deltas @ deltas.T
    train.hildreth(G, b, box, ridge, alpha)
    expected = ref.qp_reference(deltas, b, box, ridge)
    # α is unique only when G + ridge·I is regular; the update Σ α_j Δ_j always is.
    np.testing.assert_allclose(alpha @ deltas, expected @ deltas, atol=1e-6)
    assert np.all(alpha >= 0) and np.all(alpha <= box)
    # KKT: no feasible coordinate can improve the dual
    grad = b - (G + ridge * np.eye(k)) @ alpha
    assert np.all((grad <= 1e-9) | (alpha >= box - 1e-12))
    assert np.all((grad >= -1e-9) | (alpha <= 1e-12))


def test_hildreth_one_constraint_is_pa_closed_form():
    G = np.array([[4.0]])
    alpha = np.empty(1)
    train.hildreth(G, np.array([3.0]), np.inf, 0.0, alpha)
    assert alpha[0] == 3.0 / 4.0
    train.hildreth(G, np.array([3.0]), 0.5, 0.0, alpha)
    assert alpha[0] == 0.5
    train.hildreth(G, np.array([3.0]), np.inf, 0.25, alpha)
    assert alpha[0] == pytest.approx(3.0 / 4.25, abs=1e-15)
    train.hildreth(G, np.array([-1.0]), np.inf, 0.0, alpha)
    assert alpha[0] == 0.0


# -- the training pass against the dense reference ----------------------------------------------

N_BITS = 3  # 8 hashed rows: collisions and repeated rows are part of the test


def tiny_features(tokens, i):
    return ["w=" + tokens[i], "prev=" + (tokens[i - 1] if i else "<s>"), "w=" + tokens[i]]


def tiny_corpus(n=25, seed=0):
    X, y, _ = make_hmm_sequences(
        n, n_labels=3, n_words=6, min_length=1, max_length=5, random_state=seed
    )
    return X, y


def reference_rows(X):
    feats, tok_ptr, sent_ptr = encode_sentences(X, tiny_features, N_BITS)
    bias = 1 << N_BITS
    rows = []
    for q in range(len(X)):
        rows.append(
            [
                list(feats[tok_ptr[t] : tok_ptr[t + 1]]) + [bias]
                for t in range(sent_ptr[q], sent_ptr[q + 1])
            ]
        )
    return rows


def fitted(X, y, hildreth=None, **params):
    model = SequenceTagger(features=tiny_features, n_bits=N_BITS, **params)
    model._validate_params()
    model._initialise(["T0", "T1", "T2"])
    encoded = model._encode_X(X)
    model._run(encoded, model._encode_y(X, y, encoded[2]), 1, False, hildreth=hildreth)
    return model


CASES = [
    dict(rule="perceptron"),
    dict(rule="PA", update="prediction"),
    dict(rule="PA", update="max_loss"),
    dict(rule="PA-I", C=0.1, update="prediction"),
    dict(rule="PA-I", C=0.1, update="max_loss"),
    dict(rule="PA-II", C=0.5, update="max_loss"),
    dict(rule="PA", update="prediction", cost="sqrt_hamming"),
    dict(rule="AROW", r=0.7, update="max_loss"),
]


@pytest.mark.parametrize("params", CASES, ids=lambda p: "-".join(map(str, p.values())))
def test_training_pass_matches_dense_reference(params):
    X, y = tiny_corpus()
    model = fitted(X, y, **params)
    gold = [[int(t[1]) for t in tags] for tags in y]
    w, w_avg = ref.train_reference(reference_rows(X), gold, 3, (1 << N_BITS) + 1, **params)
    np.testing.assert_allclose(model.weights_, w, atol=1e-9)
    np.testing.assert_allclose(model.decision_weights(), w_avg, atol=1e-9)
    assert model.stats_[train.STAT_ROUNDS] == len(X)
    assert model.stats_[train.STAT_TOKENS] == sum(map(len, X))


@pytest.mark.parametrize(
    "params",
    [
        dict(rule="PA", update="prediction"),
        dict(rule="PA", update="max_loss"),
        dict(rule="PA-I", C=0.05, update="max_loss"),
        dict(rule="PA-I", C=0.05, update="prediction"),
        dict(rule="PA-II", C=0.5, update="prediction"),
        dict(rule="PA-II", C=0.5, update="max_loss"),
    ],
    ids=lambda p: "-".join(map(str, p.values())),
)
def test_kbest_mira_with_one_constraint_equals_structured_pa(params):
    X, y = tiny_corpus(60, seed=3)
    pa = fitted(X, y, hildreth=False, **params)
    mira = fitted(X, y, hildreth=True, k_best=1, **params)
    assert np.abs(pa.weights_).sum() > 0
    np.testing.assert_allclose(mira.weights_, pa.weights_, rtol=0, atol=1e-9)
    np.testing.assert_allclose(mira.average_sums_, pa.average_sums_, rtol=0, atol=1e-9)


@pytest.mark.parametrize(
    "params",
    [
        dict(rule="PA", update="prediction", k_best=3),
        dict(rule="PA-I", C=0.1, update="max_loss", k_best=4),
        dict(rule="PA-II", C=0.5, update="max_loss", k_best=2),
    ],
    ids=lambda p: "-".join(map(str, p.values())),
)
def test_kbest_mira_matches_reference_qp(params):
    # Random initial weights: with zeros, symmetric labels tie exactly and Hildreth's
    # 1e-12 residuals would decide which of the tied outputs enter the k best.
    X, y = tiny_corpus(12, seed=5)
    model = SequenceTagger(features=tiny_features, n_bits=N_BITS, average=False, **params)
    model._validate_params()
    model._initialise(["T0", "T1", "T2"])
    feats, tok_ptr, sent_ptr = model._encode_X(X)
    codes = model._encode_y(X, y, sent_ptr)
    w0 = np.random.default_rng(0).normal(scale=0.3, size=model.weights_.shape)
    model.weights_[:] = w0
    config = model._config()
    order = np.arange(len(X), dtype=np.int64)
    allowed = np.ones(3, dtype=bool)
    state = (model.weights_, model.average_sums_, model.variances_, model.stats_)
    train.train_pass(feats, tok_ptr, sent_ptr, codes, order, state, (*config, allowed))
    gold = [[int(t[1]) for t in tags] for tags in y]
    k = params.pop("k_best")
    w, _ = ref.train_reference(reference_rows(X), gold, 3, (1 << N_BITS) + 1, k=k, w0=w0, **params)
    np.testing.assert_allclose(model.weights_, w, atol=1e-6)
    assert model.stats_[train.STAT_UPDATES] > 0


def test_difference_matches_dense_phi():
    X, y = tiny_corpus(10, seed=7)
    feats, tok_ptr, sent_ptr = encode_sentences(X, tiny_features, N_BITS)
    rows = reference_rows(X)
    L, n_rows = 3, (1 << N_BITS) + 1
    P = n_rows * L + L + L * L + L
    dense, mark = np.zeros(P), np.zeros(P, dtype=np.uint8)
    rng = np.random.default_rng(0)
    for q in range(len(X)):
        n = len(X[q])
        gold = np.array([int(t[1]) for t in y[q]], dtype=np.int32)
        other = rng.integers(3, size=n).astype(np.int32)
        width = 2 * (int(tok_ptr[sent_ptr[q + 1]] - tok_ptr[sent_ptr[q]]) + 3 * n + 2)
        idx, val = np.empty(width, dtype=np.int64), np.empty(width)
        touched = np.empty(width, dtype=np.int64)
        nnz = train.difference(
            feats,
            tok_ptr,
            sent_ptr[q],
            gold,
            other,
            L,
            n_rows - 1,
            P,
            dense,
            mark,
            touched,
            idx,
            val,
        )
        got = np.zeros(P)
        np.add.at(got, idx[:nnz], val[:nnz])
        expected = ref.phi(rows[q], gold, L, n_rows) - ref.phi(rows[q], other, L, n_rows)
        np.testing.assert_array_equal(got, expected)
        assert not dense.any() and not mark.any()


# -- the estimator -------------------------------------------------------------------------------


def test_learns_a_peaked_hmm_better_than_chance_and_kbest_agrees_with_predict():
    X, y, _ = make_hmm_sequences(300, concentration=0.1, random_state=1)
    Xt, yt, _ = make_hmm_sequences(100, concentration=0.1, random_state=1)
    model = SequenceTagger(rule="PA-I", max_iter=3, random_state=0, n_bits=10).fit(X, y)
    assert model.score(Xt, yt) > 0.8
    first = model.predict_kbest(Xt[0], 3)
    assert first[0][0] == model.predict([Xt[0]])[0]
    assert first[0][1] >= first[1][1] >= first[2][1]
    # k beyond the sequences that exist: all of them (buffers of k sequences were allocated)
    L = len(model.classes_)
    every = model.predict_kbest(Xt[0][:2], 10**15)
    assert len(every) == L**2 and len({tuple(tags) for tags, _ in every}) == L**2


def test_declared_but_unseen_label_is_never_predicted():
    X, y = tiny_corpus(40)
    model = SequenceTagger(rule="perceptron", features=tiny_features, n_bits=N_BITS)
    model.partial_fit(X, y, classes=["T0", "T1", "T2", "NEVER"])
    # make the unseen label the most attractive one: the decoder must still skip it
    L = 4
    model.weights_[(1 << N_BITS) * L + 3] = 1e6
    model.average_sums_[:] = 0.0
    predicted = {t for tags in model.predict(X) for t in tags}
    assert "NEVER" not in predicted
    for tags, _ in model.predict_kbest(X[0], 5):
        assert "NEVER" not in tags
    assert list(model.label_counts_)[-1] == 0


def test_a_later_partial_fit_cannot_declare_new_classes():
    """A later call's classes were silently ignored (a label declared there was refused
    only once it occurred in y); repeating labels of the set is fine."""
    X, y = tiny_corpus(10)
    model = SequenceTagger(features=tiny_features, n_bits=N_BITS).partial_fit(X, y)
    before = model.weights_.copy()
    with pytest.raises(ValueError, match=r"classes \['NEW'\] are not among the classes"):
        model.partial_fit(X, y, classes=["T0", "T1", "T2", "NEW"])
    np.testing.assert_array_equal(model.weights_, before)
    model.partial_fit(X, y, classes=(c for c in ["T0", "T1"]))
    assert model.classes_.tolist() == ["T0", "T1", "T2"]


def test_unseen_gold_label_at_evaluation_counts_as_an_error():
    X, y = tiny_corpus(40)
    model = SequenceTagger(rule="PA", features=tiny_features, n_bits=N_BITS, max_iter=2)
    model.fit(X, y)
    y_bad = [["UNSEEN"] * len(tags) for tags in y]
    assert model.score(X, y_bad) == 0.0
    with pytest.raises(ValueError, match="UNSEEN"):
        model.partial_fit(X, y_bad)
    fresh = SequenceTagger(features=tiny_features, n_bits=N_BITS)
    with pytest.raises(ValueError, match="UNSEEN"):
        fresh.partial_fit(X, y_bad, classes=["T0", "T1", "T2"])
    assert not hasattr(fresh, "classes_")


def test_bad_input_raises_before_any_change():
    X, y = tiny_corpus(10)
    model = SequenceTagger(features=tiny_features, n_bits=N_BITS, max_iter=1).fit(X, y)
    before = model.weights_.copy()
    with pytest.raises(ValueError, match="sentence 1 .*empty"):
        model.partial_fit([X[0], []], [y[0], []])
    with pytest.raises(ValueError, match="empty"):
        model.predict([[]])
    with pytest.raises(ValueError, match="tokens but"):
        model.partial_fit([X[0]], [y[0] + ["T0"]])
    with pytest.raises(ValueError) as unknown:
        model.partial_fit([["a", "b"]], [["T0", "NEW"]])
    # the classes as the user wrote them (they were shown as np.str_('T0'), ... with NumPy 2)
    assert str(unknown.value) == (
        f"label 'NEW' (sentence 0) is not among the classes {model.classes_.tolist()}"
    )
    np.testing.assert_array_equal(model.weights_, before)
    with pytest.raises(ValueError, match="rule"):
        SequenceTagger(rule="nope").fit(X, y)
    with pytest.raises(ValueError, match="k_best"):
        SequenceTagger(rule="perceptron", k_best=2).fit(X, y)
    with pytest.raises(ValueError, match="max_loss"):
        SequenceTagger(cost="sqrt_hamming", update="max_loss").fit(X, y)
    for method, args in (("predict", (X,)), ("predict_kbest", (X[0], 2)), ("score", (X, y))):
        with pytest.raises(NotFittedError, match="^this SequenceTagger is not fitted yet"):
            getattr(SequenceTagger(), method)(*args)
    with pytest.raises(ValueError, match="feature function"):
        SequenceTagger(features="nope").fit(X, y)


def test_score_compares_tags_as_the_labels_fit_learned():
    """fit learns str(tag) and predict returns those strings: integer tags scored 0.0 on a
    tagger that predicted every one of them right."""
    X = [["the", "cat", "sat"], ["a", "dog"]]
    y = [[0, 1, 2], [0, 1]]
    tagger = SequenceTagger(n_bits=8, max_iter=5, random_state=0).fit(X, y)
    assert tagger.predict(X) == [["0", "1", "2"], ["0", "1"]]
    assert tagger.score(X, y) == 1.0
    with pytest.raises(ValueError, match="tags of sentence 0 of y must be a list"):
        tagger.score(X, ["012", "01"])


def test_refused_tags_leave_fit_and_a_first_partial_fit_without_effect():
    """Tags that do not match their sentence are refused before the state is initialised:
    a refused fit kept its zeroed weights (a fitted tagger then predicted one label
    everywhere), and a refused first partial_fit fixed the label set to its tags."""
    X, y = tiny_corpus(10)
    model = SequenceTagger(features=tiny_features, n_bits=N_BITS, max_iter=2).fit(X, y)
    before, predicted = model.weights_.copy(), model.predict(X)
    with pytest.raises(ValueError, match="tokens but"):
        model.fit([X[0]], [y[0][:-1]])
    np.testing.assert_array_equal(model.weights_, before)
    assert model.predict(X) == predicted
    fresh = SequenceTagger(features=tiny_features, n_bits=N_BITS)
    with pytest.raises(ValueError, match="tokens but"):
        fresh.partial_fit([["a", "b"]], [["T0"]])
    assert not hasattr(fresh, "classes_")
    fresh.partial_fit([["a", "b"]], [["T0", "T1"]])  # the label set of the accepted call
    assert fresh.classes_.tolist() == ["T0", "T1"]
    fresh = SequenceTagger(features=tiny_features, n_bits=N_BITS)
    fresh.partial_fit([["a", "b"]], [["T0", "T1"]], classes=(c for c in ["T0", "T1"]))
    assert fresh.classes_.tolist() == ["T0", "T1"]


def test_a_negative_seed_is_refused_before_a_refit_changes_anything():
    """A negative random_state passed validation and failed in NumPy's default_rng after
    the state was reset ('expected non-negative integer'): the refused refit left the
    fitted tagger with zeroed weights."""
    X, y = tiny_corpus(10)
    model = SequenceTagger(features=tiny_features, n_bits=N_BITS, max_iter=2).fit(X, y)
    before = model.weights_.copy()
    with pytest.raises(ValueError, match="random_state must be None, an int >= 0 or a Gen"):
        model.set_params(random_state=-1).fit(X, y)
    np.testing.assert_array_equal(model.weights_, before)


@pytest.mark.parametrize(
    "changed", [{"n_bits": N_BITS + 1}, {"average": False}, {"rule": "AROW"}], ids=str
)
def test_parameters_of_another_state_shape_are_refused_after_fitting(changed):
    # the loops read and wrote past the averaging sums or the variances (a segfault), or
    # predicted from rows hashed with other bits (token accuracy 1.0 → 0.26)
    X, y = tiny_corpus(20)
    # (a fixed shuffling seed: some orders of 20 sentences score 0.35 without averaging)
    model = SequenceTagger(rule="PA-I", features=tiny_features, n_bits=N_BITS, random_state=0)
    model.fit(X, y)
    before = model.weights_.copy()
    model.set_params(**changed)
    name = next(iter(changed))
    for method, args in (("partial_fit", (X, y)), ("predict", (X,)), ("predict_kbest", (X[0], 2))):
        with pytest.raises(ValueError, match=f"^{name} cannot change after fitting"):
            getattr(model, method)(*args)
    np.testing.assert_array_equal(model.weights_, before)
    model.fit(X, y)  # fit starts over with the new parameters
    assert model.score(X, y) > 0.5
    # parameters of the same shape may change: another PA rule, C
    model.set_params(rule="PA" if name != "rule" else "AROW", C=0.5).partial_fit(X, y)


def test_feature_hash_is_stable_and_documented():
    # MurmurHash3 x86 32-bit, seed 0, unsigned, masked: fixed forever for saved models
    assert (feature_hash("w=the", 18), feature_hash("l=dog", 18)) == (14020, 89990)
    assert feature_hash("w=é", 31) == murmurhash3_32("w=é")  # the VW reader's hash


@given(st.lists(st.text(max_size=12), max_size=30), st.integers(1, 31))
@settings(max_examples=60, deadline=None)
def test_feature_hashes_equal_mmh3(features, bits):
    """The compiled hash (no mmh3 at run time) equals the reference package's, string by
    string, in one batch, whatever the lengths (every tail of MurmurHash3's 4-byte blocks)."""
    mmh3 = pytest.importorskip("mmh3")
    expected = [mmh3.hash(f, 0, signed=False) & ((1 << bits) - 1) for f in features]
    assert hash_features(features, bits).tolist() == expected


def test_word_features():
    f = word_features(["The", "U.S.-based", "co"], 1)
    for expected in (
        "w=U.S.-based",
        "l=u.s.-based",
        "p3=u.s",
        "s3=sed",
        "shape=X.X.-x",
        "has_hyphen",
        "init_cap",
        "w[-1]=the",
        "w[+1]=co",
        "w[+2]=</s>",
        "w[-2]=<s>",
    ):
        assert expected in f
    assert "has_digit" in word_features(["1,234"], 0)
    assert "all_caps" in word_features(["NASA"], 0)


def test_word_feature_fast_path_equals_the_generic_function():
    X = [["A"], ["The", "dog"], ["I", "saw", "U.S.-based", "co", "dog", "1,234", "."], ["x"] * 5]
    fast = encode_sentences(X, word_features, 12)
    generic = encode_sentences(X, lambda tokens, i: word_features(tokens, i), 12)
    for a, b in zip(fast, generic, strict=True):
        np.testing.assert_array_equal(a, b)


def test_a_feature_function_returning_one_str_or_other_types_is_named():
    """A feature function returning one str learned from its characters (``"w=the"`` was
    the features w, =, t, h, e), and one returning an int or bytes failed with
    AttributeError: 'int' object has no attribute 'encode'."""
    X, y = [["the", "dog"], ["a", "cat"]], [["D", "N"], ["D", "N"]]
    with pytest.raises(ValueError, match=r"returned the str 'w=the' for token 0 of sentence 0"):
        SequenceTagger(features=lambda tokens, i: "w=" + tokens[i]).fit(X, y)
    for wrong, kind in ((lambda tokens, i: [i], "int"), (lambda t, i: [t[i].encode()], "bytes")):
        with pytest.raises(ValueError, match=f"of type {kind}: features must be str"):
            SequenceTagger(features=wrong).fit(X, y)


REPOSITORY = Path(__file__).resolve().parents[1]


def shared_data(name: str, repository: Path = REPOSITORY) -> Path:
    """``shared/data/NAME`` in the nearest folder above the ``repository`` that holds it:
    the corpus sits in shared/ beside the main checkout (never copied into it), and a git
    worktree may lie deeper (``wt/BRANCH``). Beside the repository when none holds it."""
    candidates = [folder / "shared" / "data" / name for folder in repository.parents]
    return next((path for path in candidates if path.is_dir()), candidates[0])


def test_shared_data_is_found_above_a_worktree(tmp_path):
    corpus = tmp_path / "shared" / "data" / "corpus"
    corpus.mkdir(parents=True)
    assert shared_data("corpus", tmp_path / "main") == corpus
    assert shared_data("corpus", tmp_path / "wt" / "branch") == corpus
    assert shared_data("absent", tmp_path / "main") == tmp_path / "shared" / "data" / "absent"


# The corpus (docs/structured.md) in shared/data above the checkout; OLEARN_EWT overrides.
EWT = Path(os.environ.get("OLEARN_EWT") or shared_data("ud-english-ewt"))


@pytest.mark.skipif(not EWT.is_dir(), reason="UD English EWT is not on this machine")
def test_ewt_slice_upos():
    train_data = list(itertools.islice(read_conllu(EWT / "en_ewt-ud-train.conllu.gz"), 400))
    dev = list(itertools.islice(read_conllu(EWT / "en_ewt-ud-dev.conllu.gz"), 200))
    X, y = [s[0] for s in train_data], [s[1] for s in train_data]
    model = SequenceTagger(rule="perceptron", max_iter=3, random_state=0).fit(X, y)
    assert len(model.classes_) == 17 or set(model.classes_) <= {
        "ADJ", "ADP", "ADV", "AUX", "CCONJ", "DET", "INTJ", "NOUN", "NUM", "PART", "PRON",
        "PROPN", "PUNCT", "SCONJ", "SYM", "VERB", "X",
    }  # fmt: skip
    assert model.score([s[0] for s in dev], [s[1] for s in dev]) > 0.8


def test_structured_perceptron_mistake_bound_on_separable_data():
    # Collins 2002, Theorem 1: on data separable with margin δ by a unit vector u, with
    # R ≥ ‖Φ(x, y) − Φ(x, z)‖ for all z, the Perceptron makes at most R²/δ² mistakes in total.
    X, _ = tiny_corpus(15, seed=11)
    # tags determined by the word (and the start position): separable by emissions
    y = [[f"T{(int(w[1:]) + (i == 0)) % 3}" for i, w in enumerate(s)] for s in X]
    bits = 10
    params = dict(rule="perceptron", average=False, features=tiny_features, n_bits=bits)
    separator = SequenceTagger(**params)
    for _ in range(200):
        separator.partial_fit(X, y)
        if separator.score(X, y) == 1.0 and separator.stats_[train.STAT_UPDATES] > 0:
            break
    assert separator.score(X, y) == 1.0, "the corpus should be separable"
    u = separator.weights_ / np.linalg.norm(separator.weights_)
    feats, tok_ptr, sent_ptr = encode_sentences(X, tiny_features, bits)
    rows = [
        [list(feats[tok_ptr[t] : tok_ptr[t + 1]]) + [1 << bits] for t in range(lo, hi)]
        for lo, hi in zip(sent_ptr[:-1], sent_ptr[1:], strict=True)
    ]
    n_rows = (1 << bits) + 1
    delta, radius = np.inf, 0.0
    for q, tags in enumerate(y):
        gold = np.array([int(t[1]) for t in tags])
        phi_y = ref.phi(rows[q], gold, 3, n_rows)
        for z in ref.all_sequences(len(gold), 3):
            if np.array_equal(z, gold):
                continue
            diff = phi_y - ref.phi(rows[q], z, 3, n_rows)
            delta = min(delta, u @ diff)
            radius = max(radius, np.linalg.norm(diff))
    assert delta > 0
    fresh = SequenceTagger(**params)
    for _ in range(200):
        fresh.partial_fit(X, y)
    mistakes = fresh.stats_[train.STAT_SENTENCE_MISTAKES]
    assert fresh.stats_[train.STAT_UPDATES] == mistakes
    assert mistakes <= (radius / delta) ** 2
    assert fresh.score(X, y) == 1.0  # and it has converged


def test_tokens_tags_and_classes_of_the_wrong_kind_are_named():
    """A token that is not a str, a tag None (which would become the tag "None") or empty,
    and classes given as one str (list("DNV") would be three tags) are errors naming them."""
    X = [["the", "cat", "sat"], ["a", "dog"]]
    y = [["D", "N", "V"], ["D", "N"]]
    tagger = SequenceTagger(n_bits=8, max_iter=1).fit(X, y)
    with pytest.raises(ValueError, match="token 1 of sentence 0 of X must be a str, got 2"):
        tagger.predict([["the", 2]])
    with pytest.raises(ValueError, match="tag 0 of sentence 1 of y is None"):
        SequenceTagger(n_bits=8).fit(X, [["D", "N", "V"], [None, "N"]])
    # an empty tag: no tagged file could hold it ("token TAB" is refused when read back)
    with pytest.raises(ValueError, match="tag 1 of sentence 0 of y is an empty string"):
        SequenceTagger(n_bits=8).fit(X, [["D", "", "V"], ["D", "N"]])
    with pytest.raises(ValueError, match="classes must be a list of tags, got 'DNV'"):
        SequenceTagger(n_bits=8).partial_fit(X, y, classes="DNV")


def test_sentences_may_be_numpy_arrays_of_tokens_as_tag_lists_may():
    """A sentence given as a 1-D NumPy array of str (what a column of tokens often is) was
    refused, though tag lists given so were taken: the same model as from lists."""
    sentences = [["the", "dog", "runs"], ["a", "cat", "sleeps"], ["dogs", "run"]]
    tags = [["D", "N", "V"], ["D", "N", "V"], ["N", "V"]]
    as_arrays = [np.array(s) for s in sentences]
    lists = SequenceTagger(n_bits=8, random_state=0).fit(sentences, tags)
    arrays = SequenceTagger(n_bits=8, random_state=0).fit(as_arrays, [np.array(t) for t in tags])
    np.testing.assert_array_equal(lists.weights_, arrays.weights_)
    assert arrays.predict(as_arrays) == lists.predict(sentences)
    with pytest.raises(ValueError, match="sentence 0 of X must be a list of tokens"):
        arrays.predict([np.array([["the", "dog"]])])  # (2-D: not a sentence)
