"""Literal NumPy oracles of the kernel learners (slow and obviously correct).

One class, ``KernelOracle``, runs every kernel algorithm of olearn round by round exactly as the
papers write it: the support vectors are a Python list, kernels are computed from their
definitions (never from cached inner products), projection solves the small linear system
from scratch, merging forms z and evaluates k(x_m, z), k(x_n, z) directly.

Conventions shared with the compiled loop (so the two can be compared to 1e-9):
removal moves the last support vector into the freed slot; a merged vector takes the slot of
the smaller one; ties go to the first index; partners are ranked by the merge at
h₀ = (‖α_m‖² + α_m·α_n)/‖α_m + α_n‖², golden-section search (``GOLDEN`` steps) finds h for the
chosen pair, and values within ``TIE`` (relative) count as equal.
"""

from __future__ import annotations

import math

import numpy as np

GOLDEN = 20
TIE = 1e-12  # relative differences below this count as ties (see olearn.kernels.budget)


def kernel_value(kind, x, z, gamma, degree, coef0):
    if callable(kind):
        return float(kind(x, z))
    if kind == "linear":
        return float(x @ z)
    if kind == "poly":
        return float((gamma * (x @ z) + coef0) ** degree)
    return math.exp(-gamma * float(np.sum((x - z) ** 2)))


# -- rules, as the papers state them --------------------------------------------------------


def step(rule, m, v, t, hp):
    """(alpha, decay)."""
    if rule == "perceptron":
        return (1.0 if m <= 0 and v > 0 else 0.0), 1.0
    loss = max(0.0, 1.0 - m)
    if rule == "pa":
        return (loss / v if loss > 0 and v > 0 else 0.0), 1.0
    if rule == "pa1":
        return (min(hp[0], loss / v) if loss > 0 and v > 0 else 0.0), 1.0
    if rule == "pa2":
        return (loss / (v + 1.0 / (2.0 * hp[0])) if loss > 0 and v > 0 else 0.0), 1.0
    if rule == "norma_hinge":
        eta, lam, rho = hp
        eta_t = eta / math.sqrt(t)
        return (eta_t if m < rho else 0.0), 1.0 - eta_t * lam
    if rule == "norma_epsilon":
        eta, lam = hp
        eta_t = eta / math.sqrt(t)
        return (eta_t if m < 1.0 else 0.0), 1.0 - eta_t * lam
    if rule == "pegasos":
        (lam,) = hp
        return (1.0 / (lam * t) if m < 1.0 else 0.0), 1.0 - 1.0 / t
    raise ValueError(rule)


class KernelOracle:
    def __init__(
        self,
        *,
        rule,
        hp=(),
        kernel="rbf",
        gamma=1.0,
        degree=3,
        coef0=0.0,
        bias=1.0,
        task="binary",
        n_rows=1,
        budget=0,
        maintenance="remove",
        epsilon=0.0,
        jitter=0.0,
    ):
        self.rule, self.hp = rule, tuple(hp)
        self.kernel, self.gamma, self.degree, self.coef0 = kernel, gamma, degree, coef0
        self.bias, self.task, self.budget, self.maintenance = bias, task, budget, maintenance
        self.epsilon, self.jitter = epsilon, jitter
        self.SV, self.A, self.born = [], [], []
        self.b = np.zeros(n_rows)
        self.t = 0
        self.mistakes = 0
        self.updates = 0

    def k(self, x, z):
        return kernel_value(self.kernel, x, z, self.gamma, self.degree, self.coef0)

    def scores(self, x):
        s = self.b * self.bias
        for sv, a in zip(self.SV, self.A, strict=True):
            s = s + a * self.k(sv, x)
        return s

    def learn(self, x, y):
        x = np.asarray(x, dtype=float)
        s = self.scores(x)
        if self.task == "binary":
            m, moves = y * s[0], [(0, y)]
        elif self.task == "multiclass":
            target = int(y)
            wrong = max((r for r in range(len(s)) if r != target), key=lambda r: s[r])
            m, moves = s[target] - s[wrong], [(target, 1.0), (wrong, -1.0)]
        else:  # regression, ε-insensitive; the margin rules see 1 − ℓ_ε
            e = y - s[0]
            loss = max(0.0, abs(e) - self.epsilon)
            m, moves = 1.0 - loss, [(0, 1.0 if e >= 0 else -1.0)]
        self.t += 1
        if self.task == "regression":
            self.mistakes += m < 1.0
        else:
            self.mistakes += m <= 0
        v = (self.k(x, x) + self.bias**2) * len(moves)
        alpha, decay = step(self.rule, m, v, self.t, self.hp)
        self.A = [a * decay for a in self.A]
        if alpha == 0.0:
            return
        self.updates += 1
        a = np.zeros(len(self.b))
        for r, sign in moves:
            a[r] += sign * alpha
            self.b[r] += sign * alpha * self.bias
        self.SV.append(x.copy())
        self.A.append(a)
        self.born.append(self.t)
        if self.budget and len(self.SV) > self.budget:
            self.maintain()

    # -- budget maintenance (Wang, Crammer, Vucetic 2012, §4) -------------------------------

    def drop(self, r):
        for lst in (self.SV, self.A, self.born):
            lst[r] = lst[-1]
            lst.pop()

    def maintain(self):
        norms = [float(a @ a) for a in self.A]
        r = int(np.argmin(norms))
        if self.maintenance == "remove":
            self.drop(r)
        elif self.maintenance == "oldest":
            self.drop(int(np.argmin(self.born)))
        elif self.maintenance == "project":
            others = [j for j in range(len(self.SV)) if j != r]
            K = np.array([[self.k(self.SV[i], self.SV[j]) for j in others] for i in others])
            kr = np.array([self.k(self.SV[j], self.SV[r]) for j in others])
            coef = np.linalg.solve(K + self.jitter * np.eye(len(others)), kr)
            for c, j in zip(coef, others, strict=True):
                self.A[j] = self.A[j] + c * self.A[r]
            self.drop(r)
        else:
            self.merge(r)

    def merge(self, m):
        am = self.A[m]
        best, best_loss, best_gain = -1, math.inf, None
        for j in range(len(self.SV)):
            if j == m or am @ self.A[j] <= 0:
                continue
            an = self.A[j]
            kmn = self.k(self.SV[m], self.SV[j])
            d2 = float(np.sum((self.SV[m] - self.SV[j]) ** 2))

            def gain(h, am=am, an=an, d2=d2):
                az = am * math.exp(-self.gamma * d2 * (1 - h) ** 2) + an * math.exp(
                    -self.gamma * d2 * h**2
                )
                return float(az @ az)

            h0 = float(am @ am + am @ an) / float((am + an) @ (am + an))
            z0 = h0 * self.SV[m] + (1 - h0) * self.SV[j]
            az0 = am * self.k(self.SV[m], z0) + an * self.k(self.SV[j], z0)
            loss = float(am @ am + an @ an + 2 * (am @ an) * kmn) - float(az0 @ az0)
            if loss < best_loss - TIE * float(am @ am + an @ an):
                best, best_loss, best_gain = j, loss, gain
        if best < 0:
            self.drop(m)
            return
        j = best
        h = golden_max(best_gain, 0.0, 1.0, GOLDEN)
        z = h * self.SV[m] + (1 - h) * self.SV[j]
        self.A[m] = self.A[m] * self.k(self.SV[m], z) + self.A[j] * self.k(self.SV[j], z)
        self.SV[m] = z
        self.born[m] = max(self.born[m], self.born[j])
        self.drop(j)

    # -- views comparable to a fitted estimator ----------------------------------------------

    def dual_coef(self):
        return np.array(self.A).T if self.A else np.zeros((len(self.b), 0))

    def decision(self, X):
        return np.array([self.scores(np.asarray(x, dtype=float)) for x in X])


def golden_max(f, lo, hi, iterations):
    """Golden-section search for the maximum of a unimodal f on [lo, hi]."""
    inv_phi = (math.sqrt(5) - 1) / 2
    c, d = hi - inv_phi * (hi - lo), lo + inv_phi * (hi - lo)
    fc, fd = f(c), f(d)
    for _ in range(iterations):
        if fc > fd + TIE * abs(fd):
            hi, d, fd = d, c, fc
            c = hi - inv_phi * (hi - lo)
            fc = f(c)
        else:
            lo, c, fc = c, d, fd
            d = lo + inv_phi * (hi - lo)
            fd = f(d)
    return (lo + hi) / 2
