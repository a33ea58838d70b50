"""Literal NumPy oracles for sequence labelling: slow, obviously correct, for tests only.

Everything here works on dense vectors and enumerates every label sequence, so it is only
usable on tiny problems (L^n sequences).
"""

from __future__ import annotations

import itertools

import numpy as np
from scipy.optimize import minimize


def sequence_score(E, start, trans, end, y) -> float:
    s = start[y[0]] + end[y[-1]]
    for i, label in enumerate(y):
        s += E[i, label]
        if i > 0:
            s += trans[y[i - 1], label]
    return float(s)


def all_sequences(n: int, L: int, allowed=None):
    labels = range(L) if allowed is None else [y for y in range(L) if allowed[y]]
    return [np.array(seq) for seq in itertools.product(labels, repeat=n)]


def brute_force_kbest(E, start, trans, end, k, cost=None):
    """The k best sequences by enumeration (``cost(y)`` is added to the score if given).

    Sorted by decreasing score; ties in lexicographic order of the *reversed* sequences (the
    last label first), which is the order Viterbi's first-maximum back-pointers produce.
    """
    n, L = E.shape
    scored = []
    for y in all_sequences(n, L):
        if not np.all(np.isfinite(E[np.arange(n), y])):
            continue
        s = sequence_score(E, start, trans, end, y)
        if cost is not None:
            s += cost(y)
        scored.append((s, tuple(y)))
    scored.sort(key=lambda item: (-item[0], item[1][::-1]))
    return [(np.array(y), s) for s, y in scored[:k]]


def viterbi_reference(E, start, trans, end):
    """Viterbi in plain NumPy (argmax ties go to the lowest label, like ``np.argmax``)."""
    n, L = E.shape
    delta = start + E[0]
    back = []
    for i in range(1, n):
        cand = delta[:, None] + trans
        back.append(np.argmax(cand, axis=0))
        delta = cand.max(axis=0) + E[i]
    last = int(np.argmax(delta + end))
    y = [last]
    for b in reversed(back):
        y.append(int(b[y[-1]]))
    return np.array(y[::-1]), float((delta + end)[last])


def hamming(gold):
    gold = np.asarray(gold)
    return lambda y: float(np.sum(np.asarray(y) != gold))


# -- feature map ---------------------------------------------------------------------------------


def phi(rows, y, L, n_rows):
    """Dense Φ(x, y): ``rows[i]`` are token i's emission rows (the bias row included).

    Layout as the tagger's flat weight vector: emissions ``n_rows × L``, start L,
    transitions ``L × L`` (from × to), end L.
    """
    P = n_rows * L + L + L * L + L
    out = np.zeros(P)
    s_off = n_rows * L
    t_off = s_off + L
    e_off = t_off + L * L
    for i, label in enumerate(y):
        for row in rows[i]:
            out[row * L + label] += 1.0
        if i > 0:
            out[t_off + y[i - 1] * L + label] += 1.0
    out[s_off + y[0]] += 1.0
    out[e_off + y[-1]] += 1.0
    return out


def emissions(w, rows, L):
    return np.array([[sum(w[r * L + c] for r in token) for c in range(L)] for token in rows])


def split(w, L, n_rows):
    s_off = n_rows * L
    t_off = s_off + L
    e_off = t_off + L * L
    return w[s_off:t_off], w[t_off:e_off].reshape(L, L), w[e_off:]


# -- QP --------------------------------------------------------------------------------------------


def qp_reference(deltas, b, box=np.inf, ridge=0.0):
    """Solve ``min ½‖Σ α_j Δ_j‖² + ½ ridge ‖α‖² − bᵀα`` over ``0 ≤ α ≤ box`` with a generic
    solver (scipy L-BFGS-B); returns α."""
    D = np.asarray(deltas, dtype=float)
    G = D @ D.T + ridge * np.eye(len(b))
    b = np.asarray(b, dtype=float)

    def objective(a):
        return 0.5 * a @ G @ a - b @ a, G @ a - b

    bounds = [(0.0, None if np.isinf(box) else box)] * len(b)
    result = minimize(
        objective,
        np.zeros(len(b)),
        jac=True,
        bounds=bounds,
        method="L-BFGS-B",
        options={"ftol": 1e-15, "gtol": 1e-12, "maxiter": 10000},
    )
    return result.x


# -- training -----------------------------------------------------------------------------------


def train_reference(
    sentences_rows,
    gold,
    L,
    n_rows,
    *,
    rule,
    C=1.0,
    r=1.0,
    update="prediction",
    k=1,
    cost="hamming",
    allowed=None,
    w0=None,
):
    """One pass of the structured learners, literally (seed 003 eq. 47–51; McDonald et al.
    2005; Collins 2002 averaging as the mean of the weights after every sentence).

    ``w0``: initial weights (default zeros). Returns (w, averaged w).
    """
    P = n_rows * L + L + L * L + L
    w = np.zeros(P) if w0 is None else np.array(w0, dtype=float)
    sigma = np.ones(P)
    history = []
    for rows, y in zip(sentences_rows, gold, strict=True):
        y = np.asarray(y)
        E = emissions(w, rows, L)
        if allowed is not None:
            E[:, ~np.asarray(allowed)] = -np.inf
        start, trans, end = split(w, L, n_rows)

        def rho(z, y=y):
            h = float(np.sum(np.asarray(z) != y))
            return np.sqrt(h) if cost == "sqrt_hamming" else h

        max_loss = update == "max_loss" and rule != "perceptron"
        augment = hamming(y) if max_loss else None
        candidates = brute_force_kbest(E, start, trans, end, k, augment)
        phi_y = phi(rows, y, L, n_rows)
        if k == 1:
            z = candidates[0][0]
            delta = phi_y - phi(rows, z, L, n_rows)
            v = delta @ (sigma * delta) if rule == "AROW" else delta @ delta
            wd = w @ delta
            loss = rho(z) - wd
            alpha = 0.0
            if v > 0:
                if rule == "perceptron":
                    alpha = 1.0 if wd <= 0 else 0.0
                elif loss > 0:
                    alpha = {
                        "PA": loss / v,
                        "PA-I": min(C, loss / v),
                        "PA-II": loss / (v + 1 / (2 * C)),
                        "AROW": loss / (v + r),
                    }[rule]
            if rule == "AROW":
                if alpha:
                    w = w + alpha * sigma * delta
                    sigma = 1.0 / (1.0 / sigma + delta**2 / r)
            else:
                w = w + alpha * delta
        else:
            deltas = [phi_y - phi(rows, z, L, n_rows) for z, _ in candidates]
            b = [rho(z) - w @ d for (z, _), d in zip(candidates, deltas, strict=True)]
            box = C if rule == "PA-I" else np.inf
            ridge = 1 / (2 * C) if rule == "PA-II" else 0.0
            alpha = qp_reference(deltas, b, box, ridge)
            w = w + sum(a * d for a, d in zip(alpha, deltas, strict=True))
        history.append(w.copy())
    return w, np.mean(history, axis=0)
