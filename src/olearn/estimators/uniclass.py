"""Uniclass prediction (Crammer et al., JMLR 2006, §6): track the centre of a stream of
target vectors with no inputs."""

from __future__ import annotations

from numbers import Integral

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from olearn import engine
from olearn.estimators._counters import OnlineCountersMixin
from olearn.estimators._declarations import PA_VARIANTS
from olearn.estimators._validation import (
    TracksParameters,
    WritableOnLoad,
    all_finite,
    input_attributes_restored_on_error,
)
from olearn.estimators._weights import check_sample_weight
from olearn.estimators.base import positive
from olearn.rules import rule_code


class UniclassPA(WritableOnLoad, TracksParameters, OnlineCountersMixin, BaseEstimator):
    """Uniclass Passive-Aggressive: predict the centre w, suffer
    ℓ = max(0, ‖w − y‖ − ε), and move w toward y by τ: ℓ (PA), min(C, ℓ) (PA-I) or
    ℓ / (1 + 1/(2C)) (PA-II).

    Parameters
    ----------
    variant : {"PA", "PA-I", "PA-II"}, default="PA-I"
    C : float > 0, default=1.0
        Aggressiveness (ignored by "PA").
    epsilon : float ≥ 0, default=1.0
        The radius of the ball around the centre within which no loss is suffered
        (ignored when ``learn_epsilon=True``).
    learn_epsilon : bool, default=False
        Learn the radius by the paper's (n+1)-th coordinate construction: it starts at 0,
        never decreases and never exceeds ``B``.
    B : float > 0 or None, default=None
        Upper bound of the learned radius (required with ``learn_epsilon=True``).
    max_iter : int ≥ 1, default=1
        Passes over the stream in ``fit``.
    shuffle : bool, default=False
    random_state : int, RandomState instance or None, default=None

    Attributes
    ----------
    center_ : ndarray of shape (n_features,)
        The current centre w_t.
    epsilon_ : float
        The current radius (``epsilon`` or the learned ε_t).
    n_features_in_ : int
        Dimension of the targets.
    n_iter_ : int
        Passes over the stream of the last ``fit`` (1 after ``partial_fit``).
    n_rounds_, n_mistakes_, n_updates_ : int
        Targets processed over every pass, rounds with a loss ℓ > 0 among them, and rounds
        that moved the centre.
    weights_ : ndarray of shape (n_features,) or (n_features + 1,)
        The stored centre; with ``learn_epsilon`` the last coordinate is the paper's
        (n+1)-th one, from which ``epsilon_`` is computed.
    stats_ : ndarray of float64
        The compiled loop's counters.

    Examples
    --------
    >>> import numpy as np
    >>> from olearn import UniclassPA
    >>> Y = np.array([[0.0, 0.0], [3.0, 4.0], [3.0, 4.0]])
    >>> model = UniclassPA(variant="PA", epsilon=1.0).fit(Y)
    >>> model.center_  # moved 4 of the 5 toward (3, 4): onto the ball's edge
    array([2.4, 3.2])
    >>> model.n_updates_
    1
    """

    _parameter_constraints: dict = {
        "variant": [StrOptions(set(PA_VARIANTS))],
        "C": positive(),
        "epsilon": positive("left"),
        "learn_epsilon": ["boolean"],
        "B": [*positive(), None],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "shuffle": ["boolean"],
        "random_state": ["random_state"],
    }
    #: Rebuilt by ``_configure`` on load, never saved.
    _derived_attributes = ("_configured_parameters",)

    def __init__(
        self,
        variant="PA-I",
        C=1.0,
        epsilon=1.0,
        learn_epsilon=False,
        B=None,
        *,
        max_iter=1,
        shuffle=False,
        random_state=None,
    ):
        self.variant = variant
        self.C = C
        self.epsilon = epsilon
        self.learn_epsilon = learn_epsilon
        self.B = B
        self.max_iter = max_iter
        self.shuffle = shuffle
        self.random_state = random_state

    def _check_params(self) -> None:
        self._validate_params()
        if self.learn_epsilon and self.B is None:
            raise ValueError("learn_epsilon=True needs the upper bound B of the radius.")

    def _configure(self) -> None:
        self._rule = rule_code(PA_VARIANTS[self.variant])
        self._hp = np.array([] if self.variant == "PA" else [float(self.C)])
        self._radius = float(self.B) if self.learn_epsilon else float(self.epsilon)
        self._configured_parameters = True

    def _check_ready(self) -> None:
        """Fitted, and every parameter assigned since the last packing validated and
        repacked (``set_params`` between calls is followed, as in scikit-learn)."""
        check_is_fitted(self)
        if "_configured_parameters" in self.__dict__:
            return
        self._check_params()
        learns_radius = self.weights_.shape[0] > self.n_features_in_
        if bool(self.learn_epsilon) != learns_radius:
            raise ValueError(
                "learn_epsilon cannot change after fitting (the centre has another shape); "
                "call fit to start over."
            )
        self._configure()

    def _plain_rows(self, Y):
        """Y itself when it is what ``validate_data`` would return for a fitted model — a
        C-ordered float64 array of finite values and the fitted width, no column names —
        found without its generic checks (~100 µs a call); None otherwise."""
        if (
            type(Y) is np.ndarray
            and Y.ndim == 2
            and Y.dtype == np.float64
            and Y.flags.c_contiguous
            and Y.shape[0]
            and Y.shape[1] == self.n_features_in_
            and "feature_names_in_" not in self.__dict__
            and all_finite(Y)
        ):
            return Y
        return None

    def fit(self, Y, y=None, sample_weight=None):
        """Learn the centre from the stream of target vectors Y (n, d) from scratch (``y`` is
        ignored: there are no inputs, Y is the stream; the argument keeps scikit-learn's
        signature).

        ``sample_weight`` (array-like of shape (n,) or a float, optional): importance weights
        ≥ 0 of the targets — the rule's weighted form (PA-I's C scaled by h, PA-II's 1/(2hC);
        none for PA: ``olearn.rules.pa``); a weight 0 skips the target."""
        self._check_params()
        with input_attributes_restored_on_error(self):  # the reset precedes the weights' check
            Y = validate_data(self, Y, reset=True, dtype=np.float64, order="C")
            weights = check_sample_weight(sample_weight, Y.shape[0], fit=True)
        self._allocate(Y.shape[1])
        rng = check_random_state(self.random_state)
        for _ in range(self.max_iter):
            self._run(Y, rng, weights)
        self.n_iter_ = self.max_iter
        return self

    def partial_fit(self, Y, y=None, sample_weight=None):
        """One pass over the target vectors Y (n, d), continuing from the current centre
        (``y`` ignored and ``sample_weight`` as in :meth:`fit`)."""
        first = not hasattr(self, "weights_")
        if first:
            self._check_params()
        else:
            self._check_ready()
        with input_attributes_restored_on_error(self):
            plain = None if first else self._plain_rows(Y)
            Y = (
                plain
                if plain is not None
                else validate_data(self, Y, reset=first, dtype=np.float64, order="C")
            )
            weights = check_sample_weight(sample_weight, Y.shape[0])
        if first:
            self._allocate(Y.shape[1])
        self._run(Y, check_random_state(self.random_state), weights)
        self.n_iter_ = 1
        return self

    def _allocate(self, n_features: int) -> None:
        # w_1 = 0, with the radius coordinate w_{n+1} = B when the radius is learned
        self.weights_ = np.zeros(n_features + (1 if self.learn_epsilon else 0))
        if self.learn_epsilon:
            self.weights_[-1] = float(self.B)
        self.stats_ = engine.new_stats()
        self._configure()

    def _run(self, Y, rng, sample_weight=None) -> None:
        order = rng.permutation(len(Y)) if self.shuffle else np.arange(len(Y))
        engine.run_uniclass(Y, order, self.weights_, self.stats_, self._rule, self._hp,
                            self._radius, sample_weight)  # fmt: skip

    def __setstate__(self, state):
        super().__setstate__(state)
        if "weights_" in state:
            self._configure()

    @property
    def center_(self) -> np.ndarray:
        check_is_fitted(self)
        return self.weights_[: self.n_features_in_].copy()

    @property
    def epsilon_(self) -> float:
        """ε_t = √(B² − w_{n+1}²) when learned (§6), else ``epsilon``."""
        self._check_ready()
        if not self.learn_epsilon:
            return float(self.epsilon)
        B = float(self.B)
        return float(np.sqrt(max(0.0, B * B - self.weights_[-1] ** 2)))

    def predict(self, X=None) -> np.ndarray:
        """The current centre; with X (n, d), the centre repeated for each of its n rows."""
        self._check_ready()
        if X is None:
            return self.center_
        plain = self._plain_rows(X)
        X = plain if plain is not None else validate_data(self, X, reset=False, dtype=np.float64)
        return np.tile(self.center_, (X.shape[0], 1))

    def score_samples(self, Y) -> np.ndarray:
        """ε_t − ‖y − w_t‖ per row y of Y: positive inside the current ball."""
        self._check_ready()
        plain = self._plain_rows(Y)
        Y = plain if plain is not None else validate_data(self, Y, reset=False, dtype=np.float64)
        return self.epsilon_ - np.linalg.norm(Y - self.center_, axis=1)

    def score(self, Y, y=None, sample_weight=None) -> float:
        """Minus the mean loss of the current centre on the target vectors Y (n, d): the
        ε-insensitive loss the rule suffers (§6),

            score = −(1/n) Σ_i max(0, ‖y_i − w_t‖ − ε_t),

        with ``epsilon_`` as ε_t (the weighted mean with ``sample_weight``, array-like of
        shape (n,), optional). Higher is better, as for every scikit-learn ``score`` (and
        the scorer ``"neg_mean_absolute_error"``): 0 when every target lies within the
        ball, otherwise minus the mean distance by which the targets fall outside it. The
        loss shrinks as the radius grows, so the score favours wide balls: select ``C`` or
        ``variant`` with it, not ``epsilon``. ``y`` is ignored (Y is the stream, as in
        :meth:`fit`).

        Returns
        -------
        score : float
        """
        outside = np.maximum(0.0, -self.score_samples(Y))  # validates Y
        weights = check_sample_weight(sample_weight, outside.shape[0])
        if weights is not None and not weights.any():
            raise ValueError("sample_weight is zero for every row: there is nothing to score")
        loss = float(np.average(outside, weights=weights))
        return -loss if loss else 0.0  # not -0.0

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = False
        return tags
