"""Literal NumPy oracles of the binary online linear classifiers (ALGORITHMS.md).

Each class follows its paper line by line and keeps the quantities the paper keeps:

* first-order rules keep ``w`` and, for averaging, *every* weight vector ``w_1 … w_T`` (their
  literal mean is the averaged model);
* the Second-Order Perceptron keeps the paper's ``A`` and ``b`` and predicts with
  ``sign(bᵀ(A + x xᵀ)⁻¹x)``;
* the Gaussian models keep ``μ`` and the full ``Σ``, updated literally as
  ``Σ ← Σ − β Σx xᵀΣ`` (the variance form of CW keeps ``Σ⁻¹`` and adds ``2αφ x xᵀ``, as its
  paper does), or the vector of variances for the diagonal variants.

They are deliberately slow and share nothing with the compiled code. Inputs are dense rows
that already contain the intercept feature when there is one (``reference.with_bias``).

Counters follow ALGORITHMS.md: a round is a *mistake* when the signed margin m ≤ 0 and an
*update* when the parameters change (never for x = 0).
"""

from __future__ import annotations

import numpy as np
from scipy.special import ndtri


def _phi(eta: float) -> float:
    """φ = Φ⁻¹(η) (scipy's ndtri: a different implementation from the library's)."""
    return float(ndtri(eta))


class _Counters:
    def __init__(self):
        self.rounds = 0
        self.mistakes = 0
        self.updates = 0
        self.loss = 0.0
        self.squared_loss = 0.0

    def count(self, m: float, changed: bool) -> None:
        hinge = max(0.0, 1.0 - m)
        self.rounds += 1
        self.mistakes += int(m <= 0.0)
        self.updates += int(changed)
        self.loss += hinge
        self.squared_loss += hinge * hinge

    def partial_fit(self, X, y):
        for x, label in zip(np.asarray(X, dtype=float), np.asarray(y, dtype=float), strict=True):
            self.learn(x, label)
        return self


# -- first order ------------------------------------------------------------------------------


def perceptron_step(m: float, sq_norm: float, C: float | None = None) -> float:
    """Rosenblatt 1958: α = 1 when m ≤ 0."""
    return 1.0 if m <= 0.0 else 0.0


def pa_step(m: float, sq_norm: float, C: float | None = None) -> float:
    """Crammer et al. 2006, eq. 7: τ = ℓ/‖x‖² with ℓ = max(0, 1 − m)."""
    loss = max(0.0, 1.0 - m)
    return loss / sq_norm


def pa1_step(m: float, sq_norm: float, C: float | None = None) -> float:
    """Eq. 9: τ = min(C, ℓ/‖x‖²)."""
    loss = max(0.0, 1.0 - m)
    return min(C, loss / sq_norm)


def pa2_step(m: float, sq_norm: float, C: float | None = None) -> float:
    """Eq. 11: τ = ℓ / (‖x‖² + 1/(2C))."""
    loss = max(0.0, 1.0 - m)
    return loss / (sq_norm + 1.0 / (2.0 * C))


FIRST_ORDER = {
    "perceptron": perceptron_step,
    "pa": pa_step,
    "pa1": pa1_step,
    "pa2": pa2_step,
}


class FirstOrder(_Counters):
    """w ← w + τ y x; the averaged model is the mean of the weight vector after each round."""

    def __init__(self, rule: str, d: int, C: float | None = None):
        super().__init__()
        self.step = FIRST_ORDER[rule]
        self.C = C
        self.w = np.zeros(d)
        self.snapshots: list[np.ndarray] = []

    def learn(self, x, y):
        m = y * (self.w @ x)
        sq_norm = x @ x
        changed = False
        if sq_norm > 0.0:  # a zero vector makes no update
            tau = self.step(m, sq_norm, self.C)
            if tau > 0.0:
                self.w = self.w + tau * y * x
                changed = True
        self.count(m, changed)
        self.snapshots.append(self.w.copy())

    @property
    def average(self):
        """(1/T) Σ_t w_t, the literal mean of the stored weight vectors."""
        return np.mean(self.snapshots, axis=0)


# -- Second-Order Perceptron ----------------------------------------------------------------


class SecondOrderPerceptron(_Counters):
    """Cesa-Bianchi, Conconi, Gentile 2005, Fig. 3.1, in the paper's own variables.

    A = aI + Σ_{mistakes} x xᵀ, b = Σ_{mistakes} y x; predict sign(bᵀ(A + x xᵀ)⁻¹x).
    """

    def __init__(self, d: int, a: float = 1.0):
        super().__init__()
        self.A = a * np.eye(d)
        self.b = np.zeros(d)

    def learn(self, x, y):
        score = self.b @ np.linalg.solve(self.A + np.outer(x, x), x)
        m = y * score
        changed = False
        if m <= 0.0 and x @ x > 0.0:
            self.b = self.b + y * x
            self.A = self.A + np.outer(x, x)
            changed = True
        self.count(m, changed)

    @property
    def mu(self):
        """A⁻¹b: the weight vector whose score has the prediction's sign (rules/sop.py)."""
        return np.linalg.solve(self.A, self.b)

    @property
    def sigma(self):
        return np.linalg.inv(self.A)


class DiagonalSecondOrderPerceptron(_Counters):
    """The diagonal variant as olearn defines it (rules/sop.py): the mean form of SOP,
    μ ← μ + (1 − m)/(1 + v) y Σx on a mistake, with Σ = diag(σ) and σ_j⁻¹ ← σ_j⁻¹ + x_j²
    (only the diagonal of A is kept). The paper has no diagonal variant."""

    def __init__(self, d: int, a: float = 1.0):
        super().__init__()
        self.mu = np.zeros(d)
        self.sigma = np.full(d, 1.0 / a)

    def learn(self, x, y):
        m = y * (self.mu @ x)
        v = np.sum(self.sigma * x * x)
        changed = False
        if m <= 0.0 and v > 0.0:
            self.mu = self.mu + (1.0 - m) / (1.0 + v) * y * self.sigma * x
            self.sigma = 1.0 / (1.0 / self.sigma + x * x)
            changed = True
        self.count(m, changed)


# -- Gaussian (confidence-weighted) models ------------------------------------------------------


def exact_cw_alpha(m: float, v: float, phi: float) -> float:
    """Exact CW, Crammer, Dredze, Pereira NIPS 2008: α = max(0, (−mψ + √(m²φ⁴/4 + vφ²ξ))/(vξ))."""
    psi = 1.0 + phi**2 / 2.0
    xi = 1.0 + phi**2
    return max(0.0, (-m * psi + np.sqrt(m**2 * phi**4 / 4.0 + v * phi**2 * xi)) / (v * xi))


def exact_cw_sqrt_u(alpha: float, v: float, phi: float) -> float:
    """√u = 2v / (αvφ + √((αvφ)² + 4v)), the cancellation-free ½(−αvφ + √(α²v²φ² + 4v))."""
    return 2.0 * v / (alpha * v * phi + np.sqrt((alpha * v * phi) ** 2 + 4.0 * v))


def _exact_cw_family(alpha: float, v: float, phi: float):
    """(α, β, diagonal precision increment) shared by exact CW, SCW-I and SCW-II."""
    sqrt_u = exact_cw_sqrt_u(alpha, v, phi)
    beta = alpha * phi / (sqrt_u + v * alpha * phi)
    return alpha, beta, alpha * phi / sqrt_u


def cw_exact_rule(m, v, *, eta, **_):
    """Update when φ√v − m > 0 (NIPS 2008 eq. 10); α of eq. 22; β = αφ/(√u + vαφ)."""
    phi = _phi(eta)
    if not phi * np.sqrt(v) - m > 0.0:
        return 0.0, 0.0, 0.0
    return _exact_cw_family(exact_cw_alpha(m, v, phi), v, phi)


def cw_variance_rule(m, v, *, eta, **_):
    """CW variance form, Dredze, Crammer, Pereira ICML 2008, Lemma 1: α = max(0, γ),
    γ = (−(1 + 2φm) + √((1 + 2φm)² − 8φ(m − φv))) / (4φv); Σ⁻¹ ← Σ⁻¹ + 2αφ x xᵀ."""
    phi = _phi(eta)
    disc = (1.0 + 2.0 * phi * m) ** 2 - 8.0 * phi * (m - phi * v)
    if disc < 0.0:  # only when m > φv: the constraint holds, α = 0
        return 0.0, None, 0.0
    gamma = (-(1.0 + 2.0 * phi * m) + np.sqrt(disc)) / (4.0 * phi * v)
    alpha = max(0.0, gamma)
    return alpha, None, 2.0 * alpha * phi


def arow_rule(m, v, *, r, **_):
    """AROW, Crammer, Kulesza, Dredze NIPS 2009, Fig. 1: when m < 1,
    β = 1/(v + r), α = max(0, 1 − m) β; diagonal σ_j⁻¹ ← σ_j⁻¹ + x_j²/r."""
    if not m < 1.0:
        return 0.0, 0.0, 0.0
    beta = 1.0 / (v + r)
    return max(0.0, 1.0 - m) * beta, beta, 1.0 / r


def scw1_rule(m, v, *, eta, C, **_):
    """SCW-I, Wang, Zhao, Hoi ICML 2012, Prop. 1: when ℓ = max(0, φ√v − m) > 0,
    α = min(C, exact-CW α); β as exact CW."""
    phi = _phi(eta)
    if not max(0.0, phi * np.sqrt(v) - m) > 0.0:
        return 0.0, 0.0, 0.0
    return _exact_cw_family(min(C, exact_cw_alpha(m, v, phi)), v, phi)


def scw2_rule(m, v, *, eta, C, **_):
    """SCW-II, Prop. 2: n = v + 1/(2C), γ = φ√(φ²m²v² + 4nv(n + vφ²)),
    α = max(0, (γ − (2mn + φ²mv)) / (2(n² + nvφ²))); β as exact CW."""
    phi = _phi(eta)
    if not max(0.0, phi * np.sqrt(v) - m) > 0.0:
        return 0.0, 0.0, 0.0
    n = v + 1.0 / (2.0 * C)
    gamma = phi * np.sqrt(phi**2 * m**2 * v**2 + 4.0 * n * v * (n + v * phi**2))
    alpha = max(0.0, (gamma - (2.0 * m * n + phi**2 * m * v)) / (2.0 * (n**2 + n * v * phi**2)))
    return _exact_cw_family(alpha, v, phi)


GAUSSIAN = {
    "cw_exact": cw_exact_rule,
    "cw_variance": cw_variance_rule,
    "arow": arow_rule,
    "scw1": scw1_rule,
    "scw2": scw2_rule,
}


class Gaussian(_Counters):
    """N(μ, Σ) over weights: μ ← μ + α y Σx, Σ ← Σ − β Σx xᵀΣ (full, literally), or the
    paper's diagonal σ_j⁻¹ ← σ_j⁻¹ + c x_j² (diagonal). Σ₀ = aI.

    ``history`` (when ``record=True``) keeps (m, v, α) of every round, for the bounds.
    """

    def __init__(self, rule: str, d: int, *, covariance: str, a: float = 1.0, **hp):
        super().__init__()
        self.name = rule
        self.rule = GAUSSIAN[rule]
        self.hp = hp
        self.covariance = covariance
        self.mu = np.zeros(d)
        if covariance == "full":
            self.sigma = a * np.eye(d)
            self.precision = np.eye(d) / a  # kept only by the variance form of CW
        else:
            self.sigma = np.full(d, float(a))

    def confidence(self, x):
        if self.covariance == "full":
            return x @ self.sigma @ x
        return np.sum(self.sigma * x * x)

    def learn(self, x, y):
        m = y * (self.mu @ x)
        v = self.confidence(x)
        changed = False
        if v > 0.0:  # x = 0: no update, never a division by zero
            alpha, beta, c = self.rule(m, v, **self.hp)
            if alpha > 0.0:
                changed = True
                if self.covariance == "diagonal":
                    self.mu = self.mu + alpha * y * self.sigma * x
                    self.sigma = 1.0 / (1.0 / self.sigma + c * x * x)
                elif beta is None:  # CW variance form: the precision update of its paper
                    self.mu = self.mu + alpha * y * (self.sigma @ x)
                    self.precision = self.precision + c * np.outer(x, x)
                    self.sigma = np.linalg.inv(self.precision)
                else:
                    sigma_x = self.sigma @ x
                    self.mu = self.mu + alpha * y * sigma_x
                    self.sigma = self.sigma - beta * np.outer(sigma_x, sigma_x)
        self.count(m, changed)


def make_oracle(rule: str, d: int, *, covariance: str | None = None, **hp):
    """The oracle for a rule name of ``olearn.rules.RULES`` and a representation."""
    if rule in FIRST_ORDER:
        return FirstOrder(rule, d, C=hp.get("C"))
    if rule == "sop":
        if covariance == "full":
            return SecondOrderPerceptron(d, a=hp.get("a", 1.0))
        return DiagonalSecondOrderPerceptron(d, a=hp.get("a", 1.0))
    return Gaussian(rule, d, covariance=covariance, **hp)
