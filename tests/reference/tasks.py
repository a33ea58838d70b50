"""Slow, literal NumPy oracles of every task reduction (Crammer et al., JMLR 2006, §5–§8;
Crammer, Dredze, Kulesza, EMNLP 2009; seed 004 for SGD), written from ALGORITHMS.md.

The oracles import nothing from olearn (only ``estimator`` at the end, which names the olearn
classifier under test, does, lazily). Parameters are plain NumPy arrays: the intercept is
an explicit last column of value ``bias``; covariances are literal matrices Σ_r (one per
class), updated in covariance form. Rules return ``(α, c)`` with c the precision increment;
a block's covariance step is the Sherman–Morrison form ``Σ ← Σ − β Σx xᵀΣ``, ``β = c / (1 + c v)``.

For multiclass second-order rules the joint feature difference z = Φ(x, r) − Φ(x, s) has x in
block r and −x in block s; the model keeps one covariance block per class, i.e. the diagonal
blocks of ``Σ⁻¹ + c z zᵀ``: each of the two blocks gains ``c x xᵀ`` (the cross blocks are
dropped, as in the EMNLP 2009 paper's diagonal update).
"""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np

# -- rules, from the ALGORITHMS.md formulas ---------------------------------------------------


def rule(name, m, v, hp):
    """(α, c) of one binary rule at margin m and confidence v."""
    if v <= 0:
        return 0.0, 0.0
    if name == "perceptron":
        return (1.0, 0.0) if m <= 0 else (0.0, 0.0)
    if name in ("pa", "pa1", "pa2"):
        loss = max(0.0, 1.0 - m)
        if loss == 0:
            return 0.0, 0.0
        if name == "pa":
            return loss / v, 0.0
        if name == "pa1":
            return min(hp["C"], loss / v), 0.0
        return loss / (v + 1.0 / (2.0 * hp["C"])), 0.0
    if name == "sop":
        return ((1.0 - m) / (1.0 + v), 1.0) if m <= 0 else (0.0, 0.0)
    if name == "arow":
        if m >= 1:
            return 0.0, 0.0
        beta = 1.0 / (v + hp["r"])
        return max(0.0, 1.0 - m) * beta, 1.0 / hp["r"]
    if name == "rls":
        return (1.0 - m) / (v + hp["r"]), 1.0 / hp["r"]
    if name in ("cw_exact", "scw1"):
        phi = NormalDist().inv_cdf(hp["eta"])
        if phi * math.sqrt(v) - m <= 0:
            return 0.0, 0.0
        psi = 1 + phi**2 / 2
        xi = 1 + phi**2
        alpha = max(0.0, (-m * psi + math.sqrt(m**2 * phi**4 / 4 + v * phi**2 * xi)) / (v * xi))
        if name == "scw1":
            alpha = min(hp["C"], alpha)
        if alpha <= 0:
            return 0.0, 0.0
        # √u = ½(−αvφ + √(α²v²φ² + 4v)) in ALGORITHMS.md's cancellation-free form; the
        # covariance step β = αφ/(√u + vαφ) is the precision increment c = αφ/√u
        sqrt_u = 2 * v / (alpha * v * phi + math.sqrt(alpha**2 * v**2 * phi**2 + 4 * v))
        return alpha, alpha * phi / sqrt_u
    raise ValueError(name)


SECOND_ORDER = ("sop", "arow", "rls", "cw_exact", "scw1")


# -- a literal multi-prototype model ---------------------------------------------------------


class Prototypes:
    """k rows w_r (intercept last) and, for second-order rules, k covariance blocks Σ_r."""

    def __init__(self, k, d, name, hp, covariance=None, a=1.0, bias=1.0):
        self.name, self.hp, self.bias = name, hp, bias
        self.covariance = covariance if name in SECOND_ORDER else None
        self.W = np.zeros((k, d + 1))
        if name == "sop":
            a = 1.0 / a
        if self.covariance == "full":
            self.Sigma = [a * np.eye(d + 1) for _ in range(k)]
        elif self.covariance == "diagonal":
            self.Sigma = [np.full(d + 1, a) for _ in range(k)]
        self.rounds = self.mistakes = self.updates = 0
        self.sums = np.zeros_like(self.W)  # Σ_t w_t for the averaged model

    def x_tilde(self, x):
        return np.append(np.asarray(x, dtype=float), self.bias)

    def scores(self, x):
        return self.W @ self.x_tilde(x)

    def v(self, r, x):
        if self.covariance is None:
            return float(x @ x)
        if self.covariance == "full":
            return float(x @ self.Sigma[r] @ x)
        return float(np.sum(self.Sigma[r] * x * x))

    def move(self, r, x, step, c):
        """w_r ← w_r + step·Σ_r x;  Σ_r ← Σ_r − β Σ_r x xᵀ Σ_r, β = c/(1 + c v_r)."""
        if self.covariance is None:
            self.W[r] += step * x
        elif self.covariance == "full":
            S = self.Sigma[r]
            Sx = S @ x
            self.W[r] += step * Sx
            beta = c / (1.0 + c * float(x @ Sx))
            self.Sigma[r] = S - beta * np.outer(Sx, Sx)
        else:
            S = self.Sigma[r]
            self.W[r] += step * S * x
            self.Sigma[r] = 1.0 / (1.0 / S + c * x * x)

    def pair_step(self, x, m, r, s):
        """The single constraint between row r (up) and row s (down); v = v_r + v_s."""
        v = self.v(r, x) + self.v(s, x)
        alpha, c = rule(self.name, m, v, self.hp)
        if alpha != 0 or c != 0:
            self.updates += 1
            self.move(r, x, alpha, c)
            self.move(s, x, -alpha, c)

    def end_round(self):
        self.rounds += 1
        self.sums += self.W

    def averaged(self):
        return self.sums / max(self.rounds, 1)


def _best_other(s, r):
    others = [j for j in range(len(s)) if j != r]
    return others[int(np.argmax(s[others]))]


def multiclass(X, y, k, name, hp, covariance=None, a=1.0, bias=1.0):
    """Multi-prototype multiclass (§7): r = y, s = best wrong label, m = s_r − s_s."""
    model = Prototypes(k, X.shape[1], name, hp, covariance, a, bias)
    for x, r in zip(X, y, strict=True):
        xt = model.x_tilde(x)
        s_all = model.W @ xt
        s = _best_other(s_all, r)
        m = s_all[r] - s_all[s]
        model.mistakes += m <= 0
        model.pair_step(xt, m, r, s)
        model.end_round()
    return model


def one_vs_rest(X, y, k, name, hp, covariance=None, a=1.0, bias=1.0):
    """k binary models on every example: row r learns +1 for class r, −1 otherwise."""
    model = Prototypes(k, X.shape[1], name, hp, covariance, a, bias)
    for x, label in zip(X, y, strict=True):
        xt = model.x_tilde(x)
        s_all = model.W @ xt
        for r in range(k):
            y_r = 1.0 if r == label else -1.0
            alpha, c = rule(name, y_r * s_all[r], model.v(r, xt), hp)
            if alpha != 0 or c != 0:
                model.move(r, xt, y_r * alpha, c)
        model.end_round()
    return model


def multilabel(X, Y, name, hp, covariance=None, a=1.0, bias=1.0, learned_threshold=True):
    """Multilabel ranking (§8): m = min relevant − max irrelevant. With a learned threshold,
    row k is a virtual label between the two sets and the most violated of the three
    constraints (relevant/irrelevant, relevant/T, T/irrelevant) is taken."""
    k = Y.shape[1]
    model = Prototypes(k + int(learned_threshold), X.shape[1], name, hp, covariance, a, bias)
    for x, labels in zip(X, Y, strict=True):
        xt = model.x_tilde(x)
        s_all = model.W @ xt
        rel = [j for j in range(k) if labels[j]]
        irr = [j for j in range(k) if not labels[j]]
        pairs = []
        r = rel[int(np.argmin(s_all[rel]))] if rel else None
        s = irr[int(np.argmax(s_all[irr]))] if irr else None
        if r is not None and s is not None:
            pairs.append((s_all[r] - s_all[s], r, s))
        if learned_threshold:
            if r is not None:
                pairs.append((s_all[r] - s_all[k], r, k))
            if s is not None:
                pairs.append((s_all[k] - s_all[s], k, s))
        if pairs:
            m, up, down = min(pairs, key=lambda p: p[0])  # first minimum on ties
            model.mistakes += m <= 0
            model.pair_step(xt, m, up, down)
        model.end_round()
    return model


def cost_sensitive(X, y, cost_rows, k, name, hp, mode, covariance=None, a=1.0, bias=1.0):
    """Cost-sensitive multiclass (§8) with ℓ = s_ŷ − s_y + √ρ(y, ŷ), i.e. the rule's margin
    m = 1 − ℓ. mode "prediction": ŷ = argmax (no update when ŷ = y); "max_loss":
    ỹ = argmax_{r≠y} s_r − s_y + √ρ(y, r). Returns the model and the online cost."""
    model = Prototypes(k, X.shape[1], name, hp, covariance, a, bias)
    total = 0.0
    for x, label, rho in zip(X, y, cost_rows, strict=True):
        xt = model.x_tilde(x)
        s_all = model.W @ xt
        predicted = int(np.argmax(s_all))
        total += rho[predicted]
        if mode == "prediction":
            target = predicted
            if target == label:
                model.end_round()
                continue
        else:
            others = [j for j in range(k) if j != label]
            target = others[int(np.argmax(s_all[others] - s_all[label] + np.sqrt(rho[others])))]
        loss = s_all[target] - s_all[label] + math.sqrt(rho[target])
        model.pair_step(xt, 1.0 - loss, label, target)
        model.end_round()
    return model, total


def joint(P, y, name, hp, covariance=None, a=1.0):
    """Single prototype (§7): P[i, c] = Φ(x_i, c); s = best wrong label; a binary step on
    z = Φ(x, y) − Φ(x, s) with m = w·z and v = zᵀΣz."""
    n, k, d = P.shape
    model = Prototypes(1, d - 1, name, hp, covariance, a)  # d parameters, no intercept
    for i in range(n):
        s_all = P[i] @ model.W[0]
        s = _best_other(s_all, y[i])
        z = P[i, y[i]] - P[i, s]
        m = float(model.W[0] @ z)
        alpha, c = rule(name, m, model.v(0, z), hp)
        if alpha != 0 or c != 0:
            model.move(0, z, alpha, c)
        model.end_round()
    return model


# -- regression (§5), RLS, SGD (seed 004) -----------------------------------------------------


def pa_regression(X, y, variant, C=1.0, epsilon=0.1, bias=1.0):
    """ε-insensitive PA, PA-I, PA-II (§5): w ← w + sign(y − ŷ) τ x."""
    Xt = np.hstack([X, np.full((len(X), 1), bias)])
    w = np.zeros(Xt.shape[1])
    losses = []
    for x, target in zip(Xt, y, strict=True):
        y_hat = w @ x
        loss = max(0.0, abs(y_hat - target) - epsilon)
        losses.append(loss)
        norm2 = x @ x
        if loss == 0 or norm2 == 0:
            continue
        if variant == "PA":
            tau = loss / norm2
        elif variant == "PA-I":
            tau = min(C, loss / norm2)
        else:
            tau = loss / (norm2 + 1 / (2 * C))
        w = w + np.sign(target - y_hat) * tau * x
    return w, np.array(losses)


def recursive_least_squares(X, y, r=1.0, a=1.0, covariance="full", bias=1.0):
    """AROW regression: Σ as in AROW, μ ← μ + (y − ŷ)/(v + r)·Σx on every round."""
    Xt = np.hstack([X, np.full((len(X), 1), bias)])
    D = Xt.shape[1]
    mu = np.zeros(D)
    if covariance == "full":
        S = a * np.eye(D)
    else:
        s = np.full(D, a)
    for x, target in zip(Xt, y, strict=True):
        residual = target - mu @ x
        if covariance == "full":
            Sx = S @ x
            v = x @ Sx
            mu = mu + residual / (v + r) * Sx
            S = S - np.outer(Sx, Sx) / (v + r)
        else:
            v = np.sum(s * x * x)
            mu = mu + residual / (v + r) * s * x
            s = 1.0 / (1.0 / s + x * x / r)
    return mu


def sgd_regression(X, y, loss, alpha, eta0, schedule, epsilon=0.1, delta=1.0, bias=1.0):
    """w ← (1 − η_t λ) w − η_t ℓ'(f) x, b ← b − η_t ℓ'(f) (seed 004)."""
    w = np.zeros(X.shape[1])
    b = 0.0
    for t, (x, target) in enumerate(zip(X, y, strict=True), start=1):
        eta = eta0 / math.sqrt(t) if schedule == "invsqrt" else 1.0 / (alpha * t)
        f = w @ x + b * bias
        r = f - target
        if loss == "squared":
            grad = r
        elif loss == "epsilon_insensitive":
            grad = np.sign(r) if abs(r) > epsilon else 0.0
        else:
            grad = r if abs(r) <= delta else delta * np.sign(r)
        w = (1 - eta * alpha) * w - eta * grad * x
        b = b - eta * grad * bias
    return w, b


# -- uniclass (§6) ---------------------------------------------------------------------------


def uniclass(Y, variant, C=1.0, epsilon=1.0, B=None):
    """w ← w + τ (y − w)/‖y − w‖; with B the radius is learned by the (n+1)-th coordinate
    (w_{n+1} = B at the start, y_{n+1} = 0, radius B). Returns the centres and radii."""
    n, d = Y.shape
    learned = B is not None
    w = np.zeros(d + 1 if learned else d)
    if learned:
        w[-1] = B
    radius = B if learned else epsilon
    centres, radii = [], []
    for y in Y:
        target = np.append(y, 0.0) if learned else y
        dist = np.linalg.norm(w - target)
        loss = max(0.0, dist - radius)
        if loss > 0:
            if variant == "PA":
                tau = loss
            elif variant == "PA-I":
                tau = min(C, loss)
            else:
                tau = loss / (1 + 1 / (2 * C))
            w = w + tau * (target - w) / dist
        centres.append(w[:d].copy())
        radii.append(math.sqrt(max(0.0, B * B - w[-1] ** 2)) if learned else epsilon)
    return np.array(centres), np.array(radii)


# -- the olearn estimator running each rule (used by the tests, imported lazily) --------------

HYPER = {"C": 0.5, "r": 2.0, "eta": 0.7}  # η = 0.9 collapses Σ on noisy streams
RULES = ("perceptron", "pa", "pa1", "pa2", "sop", "arow", "cw_exact", "scw1")


def estimator(name, covariance="diagonal", **params):
    """The olearn classifier that runs rule ``name`` with the hyper-parameters ``HYPER``."""
    import olearn

    C, r, eta = HYPER["C"], HYPER["r"], HYPER["eta"]
    if name == "perceptron":
        return olearn.PerceptronClassifier(**params)
    if name in ("pa", "pa1", "pa2"):
        variant = {"pa": "PA", "pa1": "PA-I", "pa2": "PA-II"}[name]
        return olearn.PassiveAggressiveClassifier(variant=variant, C=C, **params)
    if name == "sop":
        return olearn.SecondOrderPerceptronClassifier(covariance=covariance, **params)
    if name == "arow":
        return olearn.AROWClassifier(r=r, covariance=covariance, **params)
    if name == "cw_exact":
        return olearn.CWClassifier(eta=eta, covariance=covariance, **params)
    if name == "scw1":
        return olearn.SCWClassifier(variant="I", eta=eta, C=C, covariance=covariance, **params)
    raise ValueError(name)


def stream(n, d, k, seed, sparse=False, noise=0.2):
    """A non-separable k-class stream: hidden prototypes, some labels replaced at random."""
    import scipy.sparse as sp

    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    if sparse:
        X[rng.random((n, d)) < 0.5] = 0.0
    y = np.argmax(X @ rng.normal(size=(d, k)), axis=1)
    flip = rng.random(n) < noise
    y[flip] = rng.integers(0, k, flip.sum())
    return (sp.csr_matrix(X) if sparse else X), X, y
