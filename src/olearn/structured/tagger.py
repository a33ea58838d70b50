"""``SequenceTagger``: online sequence labelling with structured Perceptron, PA and MIRA."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterable, Sequence

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.exceptions import NotFittedError

from olearn.estimators._validation import WritableOnLoad
from olearn.representations.linear import averaged
from olearn.structured import features as _features

# public rule name -> name of the rule in olearn.rules.RULES (structured.train.SEQUENCE_RULES)
_RULES = {
    "perceptron": "perceptron",
    "PA": "pa",
    "PA-I": "pa1",
    "PA-II": "pa2",
    "AROW": "arow",
}
_UPDATES = ("max_loss", "prediction")
_COSTS = {"hamming": 0, "sqrt_hamming": 1}


def _check_sentences(X, name: str = "X") -> list[list[str]]:
    if isinstance(X, str) or not isinstance(X, Iterable):
        raise ValueError(f"{name} must be a list of sentences (each a list of tokens)")
    sentences = []
    for q, tokens in enumerate(X):
        if isinstance(tokens, np.ndarray) and tokens.ndim == 1:
            tokens = tokens.tolist()  # (a NumPy array of str, as tag lists may be)
        if isinstance(tokens, str) or not isinstance(tokens, Sequence):
            raise ValueError(f"sentence {q} of {name} must be a list of tokens, got {tokens!r}")
        if len(tokens) == 0:
            raise ValueError(f"sentence {q} of {name} is empty")
        tokens = list(tokens)
        if not all(isinstance(token, str) for token in tokens):
            j, token = next((j, t) for j, t in enumerate(tokens) if not isinstance(t, str))
            raise ValueError(f"token {j} of sentence {q} of {name} must be a str, got {token!r}")
        sentences.append(tokens)
    return sentences


def _check_tags(y) -> list[list[str]]:
    """The tag sequences, one per sentence. A str where a sequence is expected is an error:
    ``list("NOUN")`` would silently be the four tags N, O, U, N."""
    if isinstance(y, str) or not isinstance(y, Iterable):
        raise ValueError("y must be a list of tag sequences (one list of tags per sentence)")
    out = []
    for q, tags in enumerate(y):
        if isinstance(tags, str) or not isinstance(tags, Iterable):
            raise ValueError(
                f"the tags of sentence {q} of y must be a list of tags, got {tags!r} (for "
                f"one tag, write [{tags!r}])"
            )
        tags = list(tags)
        if None in tags:  # (str(None) would make it the tag "None")
            raise ValueError(f"tag {tags.index(None)} of sentence {q} of y is None")
        if "" in tags:  # (a "token TAB" line: no file could give it back)
            raise ValueError(f"tag {tags.index('')} of sentence {q} of y is an empty string")
        out.append(tags)
    return out


class SequenceTagger(WritableOnLoad, BaseEstimator):
    """Sequence labelling by online large-margin learning over a first-order chain.

    ``Φ(x, y)`` has one emission feature per (hashed token feature, label), a label bias per
    label, and start / transition / end features per label (pair). Prediction is Viterbi.

    Parameters
    ----------
    rule : {"PA-I", "PA", "PA-II", "perceptron", "AROW"}, default="PA-I"
        Update rule (``olearn.rules``): the structured Perceptron (Collins 2002), structured
        PA / PA-I / PA-II (Crammer et al. 2006, §8–9), or diagonal AROW (Crammer, Kulesza,
        Dredze 2009) on the structured margin.
    C : float > 0, default=1.0
        Aggressiveness of PA-I (step cap) and PA-II (``1/(2C)`` added to ``‖Δ‖²``).
    r : float > 0, default=1.0
        AROW's regularisation.
    update : {"max_loss", "prediction"}, default="max_loss"
        Which wrong output the constraint is against: the prediction ``ŷ = argmax w·Φ(x, y')``
        or the max-loss output ``ỹ = argmax w·Φ(x, y') + ρ(y, y')`` found by loss-augmented
        Viterbi (seed 003 eq. 47 and 51). The Perceptron always uses the prediction.
    k_best : int ≥ 1, default=1
        Number of constraints: with k > 1, k-best MIRA (McDonald, Crammer, Pereira 2005) puts
        one margin constraint on each of the k best outputs (of the loss-augmented score when
        ``update="max_loss"``) and solves them jointly with Hildreth's method; PA-I becomes
        the box ``0 ≤ α_j ≤ C`` and PA-II a ridge ``1/(2C)`` on each constraint.
    cost : {"hamming", "sqrt_hamming"}, default="hamming"
        The cost ρ(y, y′) in the margin: the number of wrong labels, or its square root (the
        form of seed 003 eq. 46–51). Max-loss decoding needs the additive Hamming cost.
    average : bool, default=True
        Predict with the average of the weight vectors after every sentence (Collins 2002;
        the lazy trick of Daumé 2006).
    max_iter : int ≥ 1, default=10
        Passes over the training data in ``fit``.
    shuffle : bool, default=True
        Visit the sentences of each pass in a random order.
    random_state : int ≥ 0, Generator or None, default=None
        Seed of the shuffling.
    features : str or callable, default="word"
        Feature function ``f(tokens, i) -> list of str`` or the name of one in
        ``olearn.structured.features.FEATURE_FUNCTIONS`` (only named ones can be saved).
    n_bits : int in [1, 30], default=18
        Token features are hashed into ``2**n_bits`` emission rows (MurmurHash3).
    verbose : int, default=0
        Print one progress line per pass to standard error.

    Attributes
    ----------
    classes_ : ndarray of str
        The labels, in code order.
    weights_ : ndarray of float64
        The flat weight vector: emission rows ``(2**n_bits + 1) × L`` (the last row is the
        label bias), then start (L), transitions (L × L, from × to) and end (L).
    average_sums_ : ndarray
        The lazy-averaging sums (empty without averaging).
    variances_ : ndarray
        AROW's diagonal covariance (empty for other rules).
    label_counts_ : ndarray of int64
        Training tokens seen per label; labels never seen are never predicted.
    stats_ : ndarray of float64
        Sentences seen, sentence mistakes, updates, summed loss, tokens, token mistakes (the
        mistakes are those of the prediction made before each update: progressive validation).
    """

    def __init__(
        self,
        *,
        rule: str = "PA-I",
        C: float = 1.0,
        r: float = 1.0,
        update: str = "max_loss",
        k_best: int = 1,
        cost: str = "hamming",
        average: bool = True,
        max_iter: int = 10,
        shuffle: bool = True,
        random_state: int | None = None,
        features="word",
        n_bits: int = 18,
        verbose: int = 0,
    ):
        self.rule = rule
        self.C = C
        self.r = r
        self.update = update
        self.k_best = k_best
        self.cost = cost
        self.average = average
        self.max_iter = max_iter
        self.shuffle = shuffle
        self.random_state = random_state
        self.features = features
        self.n_bits = n_bits
        self.verbose = verbose

    # -- configuration ----------------------------------------------------------------------

    def _validate_params(self) -> None:
        if self.rule not in _RULES:
            raise ValueError(f"rule must be one of {sorted(_RULES)}, got {self.rule!r}")
        if self.update not in _UPDATES:
            raise ValueError(f"update must be one of {list(_UPDATES)}, got {self.update!r}")
        if self.cost not in _COSTS:
            raise ValueError(f"cost must be one of {sorted(_COSTS)}, got {self.cost!r}")
        for name in ("C", "r"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
                raise ValueError(f"{name} must be a positive number, got {value!r}")
        for name, low in (("k_best", 1), ("max_iter", 1), ("n_bits", 1)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
                raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")
        if self.n_bits > 30:
            raise ValueError(f"n_bits must be at most 30, got {self.n_bits}")
        for name in ("average", "shuffle"):
            if not isinstance(getattr(self, name), bool | np.bool_):
                raise ValueError(f"{name} must be True or False, got {getattr(self, name)!r}")
        seed = self.random_state
        if isinstance(seed, bool) or not (
            seed is None
            or isinstance(seed, np.random.Generator)
            or (isinstance(seed, int | np.integer) and seed >= 0)  # (default_rng refuses < 0)
        ):
            raise ValueError(f"random_state must be None, an int >= 0 or a Generator, got {seed!r}")
        if self.k_best > 1 and self.rule in ("perceptron", "AROW"):
            raise ValueError(f"k_best > 1 (k-best MIRA) needs a PA rule, not {self.rule!r}")
        if self.update == "max_loss" and self.cost != "hamming" and self.rule != "perceptron":
            raise ValueError(
                "update='max_loss' needs cost='hamming' (loss-augmented Viterbi adds the cost "
                "position by position; a square root does not decompose)"
            )
        _features.resolve(self.features)

    def _config(self, hildreth: bool | None = None) -> tuple[np.ndarray, ...]:
        """The loop's codes, the rule's hyper-parameters and the options (the variance floor
        of the unit prior, as the linear models keep it)."""
        from olearn._layout import options
        from olearn.estimators._state import VARIANCE_FLOOR
        from olearn.rules import rule_code
        from olearn.structured import train

        code = rule_code(_RULES[self.rule])
        max_loss = self.update == "max_loss" and self.rule != "perceptron"
        if hildreth is None:
            hildreth = self.k_best > 1
        cfg = np.zeros(train.N_CFG, dtype=np.int64)
        cfg[train.CFG_RULE] = code
        cfg[train.CFG_K] = self.k_best
        cfg[train.CFG_MAX_LOSS] = int(max_loss)
        cfg[train.CFG_COST] = _COSTS[self.cost]
        cfg[train.CFG_AVERAGE] = int(bool(self.average))
        cfg[train.CFG_HILDRETH] = int(hildreth)
        cfg[train.CFG_LABELS] = len(self.classes_)
        cfg[train.CFG_BIAS_ROW] = 1 << self.n_bits
        hp = np.array([self.r if self.rule == "AROW" else float(self.C)], dtype=np.float64)
        return cfg, hp, options(floor=VARIANCE_FLOOR)

    def _n_weights(self, n_labels: int) -> int:
        L = n_labels
        return ((1 << self.n_bits) + 1) * L + L + L * L + L

    def _initialise(self, classes) -> None:
        from olearn.structured import train

        classes = np.asarray(list(classes), dtype=str)
        if len(classes) == 0:
            raise ValueError("no labels: the training data has no tokens")
        if len(np.unique(classes)) != len(classes):
            raise ValueError("classes contains duplicates")
        self.classes_ = classes
        P = self._n_weights(len(classes))
        self.weights_ = np.zeros(P)
        self.average_sums_ = np.zeros(P) if self.average else np.zeros(0)
        self.variances_ = np.ones(P) if self.rule == "AROW" else np.zeros(0)
        self.label_counts_ = np.zeros(len(classes), dtype=np.int64)
        self.stats_ = np.zeros(train.N_STATS)

    # -- data encoding ----------------------------------------------------------------------

    def _encode_X(self, X) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        sentences = _check_sentences(X)
        function = _features.resolve(self.features)
        return _features.encode_sentences(sentences, function, self.n_bits)

    def _encode_y(self, X, y, sent_ptr, classes=None) -> np.ndarray:
        """The label codes of ``y`` among ``classes`` (default: ``classes_``): fit and a
        first partial_fit encode before they initialise, so refused tags change nothing."""
        y = _check_tags(y)
        if len(y) != len(sent_ptr) - 1:
            raise ValueError(f"X has {len(sent_ptr) - 1} sentences but y has {len(y)}")
        if classes is None:
            classes = self.classes_
        codes = {str(label): c for c, label in enumerate(classes)}
        out = np.empty(int(sent_ptr[-1]), dtype=np.int32)
        for q, tags in enumerate(y):
            lo, hi = int(sent_ptr[q]), int(sent_ptr[q + 1])
            if len(tags) != hi - lo:
                raise ValueError(f"sentence {q} has {hi - lo} tokens but {len(tags)} tags")
            for i, tag in enumerate(tags):
                code = codes.get(str(tag))
                if code is None:
                    raise ValueError(
                        f"label {tag!r} (sentence {q}) is not among the classes "
                        f"{[str(label) for label in classes]}"
                    )
                out[lo + i] = code
        return out

    # -- fitting ----------------------------------------------------------------------------

    def fit(self, X, y) -> SequenceTagger:
        """Learn from sentences ``X`` (lists of tokens) and tag sequences ``y``, in
        ``max_iter`` passes; features are extracted and hashed once for all passes."""
        self._validate_params()
        X = _check_sentences(X)
        y = _check_tags(y)
        labels = sorted({str(tag) for tags in y for tag in tags})
        encoded = self._encode_X(X)
        codes = self._encode_y(X, y, encoded[2], labels)
        self._initialise(labels)
        self._run(encoded, codes, self.max_iter, self.shuffle)
        return self

    def partial_fit(self, X, y, classes=None) -> SequenceTagger:
        """One pass over ``X`` in order. ``classes`` fixes the label set on the first call
        (default: the labels of ``y``); labels declared but not yet seen are never predicted.
        A later call's ``classes`` may only repeat labels of the set (the weights hold one
        column per label: none can be added)."""
        self._validate_params()
        X = _check_sentences(X)
        y = _check_tags(y)
        if isinstance(classes, str):  # list("DNV") would be the tags D, N, V
            raise ValueError(f"classes must be a list of tags, got {classes!r}")
        if classes is not None:
            classes = list(classes)  # (read more than once below)
        encoded = self._encode_X(X)
        if not hasattr(self, "classes_"):
            seen = {str(tag) for tags in y for tag in tags}
            classes = sorted(seen) if classes is None else classes
            unknown = seen - {str(c) for c in classes}
            if unknown:
                raise ValueError(f"labels {sorted(unknown)} are not among the classes {classes}")
            codes = self._encode_y(X, y, encoded[2], classes)
            self._initialise(classes)
        else:
            self._check_layout()
            added = {str(c) for c in classes or ()} - set(self.classes_.tolist())
            if added:  # (ignored, they were refused only once they occurred in y)
                raise ValueError(
                    f"classes {sorted(added)} are not among the classes "
                    f"{self.classes_.tolist()} fixed by the first partial_fit: labels cannot be "
                    "added to a fitted tagger (fit a new one on all of them)"
                )
            codes = self._encode_y(X, y, encoded[2])
        self._run(encoded, codes, 1, False)
        return self

    def _run(self, encoded, codes, passes: int, shuffle: bool, hildreth=None) -> None:
        from olearn.structured import train

        feats, tok_ptr, sent_ptr = encoded
        np.add.at(self.label_counts_, codes, 1)
        allowed = self.label_counts_ > 0
        config = self._config(hildreth)
        rng = np.random.default_rng(self.random_state)
        order = np.arange(len(sent_ptr) - 1, dtype=np.int64)
        self._pass_seconds = []  # not a fitted attribute (no trailing _): never saved
        for p in range(passes):
            if shuffle:
                rng.shuffle(order)
            before = self.stats_.copy()
            started = time.perf_counter()
            state = (self.weights_, self.average_sums_, self.variances_, self.stats_)
            train.train_pass(feats, tok_ptr, sent_ptr, codes, order, state, (*config, allowed))
            seconds = time.perf_counter() - started
            self._pass_seconds.append(seconds)
            if self.verbose:
                self._report(p + 1, passes, self.stats_ - before, seconds)

    def _report(self, p: int, passes: int, delta: np.ndarray, seconds: float) -> None:
        from olearn.structured import train

        tokens = delta[train.STAT_TOKENS]
        accuracy = 1.0 - delta[train.STAT_TOKEN_MISTAKES] / max(tokens, 1.0)
        print(
            f"pass {p}/{passes}: sentences={int(delta[train.STAT_ROUNDS])} "
            f"tokens={int(tokens)} online_token_accuracy={accuracy:.4f} "
            f"updates={int(delta[train.STAT_UPDATES])} time={seconds:.2f}s "
            f"({tokens / max(seconds, 1e-9):,.0f} tokens/s)",
            file=sys.stderr,
        )

    # -- prediction ---------------------------------------------------------------------------

    def _check_fitted(self) -> None:
        if not hasattr(self, "weights_"):  # scikit-learn's error (a ValueError), as elsewhere
            raise NotFittedError(
                "this SequenceTagger is not fitted yet: call fit or partial_fit first"
            )
        self._check_layout()

    def _check_layout(self) -> None:
        """Refuse parameters set since the fit that need state of another shape: ``n_bits``
        (the emission rows), ``average`` (the averaging sums) and a change of ``rule`` to or
        from AROW (the variances). The loops would read or write past the arrays, or
        predict from rows hashed with other bits."""
        P = self.weights_.shape[0]
        layout = {
            "n_bits": P == self._n_weights(len(self.classes_)),
            "average": self.average_sums_.shape[0] == (P if self.average else 0),
            "rule": self.variances_.shape[0] == (P if self.rule == "AROW" else 0),
        }
        changed = [name for name, same in layout.items() if not same]
        if changed:
            raise ValueError(
                f"{' and '.join(changed)} cannot change after fitting (the state has another "
                "shape); call fit to start over."
            )

    def decision_weights(self) -> np.ndarray:
        """The weights used for prediction: the average when ``average=True``."""
        from olearn.structured import train

        self._check_fitted()
        rounds = self.stats_[train.STAT_ROUNDS]
        if not (self.average and rounds > 0):
            return self.weights_
        # The average is a fresh (L·2^b)-vector: keep it until the next round of training.
        key = (rounds, id(self.weights_), id(self.average_sums_))
        cached = getattr(self, "_averaged_cache", None)
        if cached is None or cached[0] != key:
            cached = self._averaged_cache = (
                key,
                averaged(self.weights_, self.average_sums_, rounds),
            )
        return cached[1]

    def predict_codes(self, X) -> tuple[np.ndarray, np.ndarray]:
        """Label codes of every token of the sentences X (concatenated) and the sentence
        offsets."""
        from olearn.structured import train

        self._check_fitted()
        feats, tok_ptr, sent_ptr = self._encode_X(X)
        out = np.empty(int(sent_ptr[-1]), dtype=np.int32)
        train.predict_corpus(
            feats,
            tok_ptr,
            sent_ptr,
            self.decision_weights(),
            self.label_counts_ > 0,
            len(self.classes_),
            1 << self.n_bits,
            out,
        )
        return out, sent_ptr

    def predict(self, X) -> list[list[str]]:
        """The Viterbi tag sequence of every sentence in ``X``."""
        codes, sent_ptr = self.predict_codes(X)
        labels = self.classes_[codes].tolist()
        return [labels[sent_ptr[q] : sent_ptr[q + 1]] for q in range(len(sent_ptr) - 1)]

    def predict_kbest(self, tokens: Sequence[str], k: int) -> list[tuple[list[str], float]]:
        """The k best tag sequences of one sentence (``tokens``) with their scores, best
        first."""
        from olearn.structured import decode, train

        self._check_fitted()
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
            raise ValueError(f"k must be an integer >= 1, got {k!r}")
        feats, tok_ptr, _ = self._encode_X([tokens])
        w = self.decision_weights()
        L = len(self.classes_)
        n = len(tokens)
        k = min(k, L**n)  # no more sequences exist (the buffers below hold k of them)
        E = np.empty((n, L))
        decode.emission_scores(
            w, feats, tok_ptr, 0, n, L, 1 << self.n_bits, self.label_counts_ > 0, E
        )
        s_off, t_off, e_off = train.layout(w.shape[0], L)
        out = np.zeros((k, n), dtype=np.int32)
        scores = np.empty(k)
        found = decode.kbest_viterbi(
            E, w[s_off:t_off], w[t_off:e_off].reshape(L, L), w[e_off:], k, out, scores
        )
        return [(self.classes_[out[j]].tolist(), float(scores[j])) for j in range(found)]

    def score(self, X, y) -> float:
        """Token accuracy of ``predict(X)`` against ``y``, whose tags are compared as the
        strings that fit learned (``str(tag)``: integer tags 0, 1 are the labels "0", "1")."""
        from olearn.structured.metrics import token_accuracy

        gold = [[str(tag) for tag in tags] for tags in _check_tags(y)]
        return token_accuracy(gold, self.predict(X))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # X is a list of token lists (strings), not a numeric 2-D array; y is required
        tags.input_tags.two_d_array = False
        tags.input_tags.string = True
        tags.target_tags.required = True
        return tags
