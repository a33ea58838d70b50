"""Which of k independent Gaussian scores is the largest: the class probabilities of the
multiclass confidence-weighted models (``predict_proba`` of CW, AROW and SCW,
``olearn.estimators.base``), as a compiled loop over rows.

With s_r ~ N(m_r, d_r²) independent and U ~ N(0, 1),

    P(r) = P(s_r > s_q for every q ≠ r) = E Π_{q≠r} Φ((m_r + d_r U − m_q)/d_q)
         ≈ Σ_g w_g exp(S_g),   S_g = Σ_{q≠r} log Φ((m_r + d_r u_g − m_q)/d_q),

a 64-point Gauss–Hermite rule (nodes u_g, weights w_g: :func:`hermite_rule`), normalised so
that each row sums to 1. Summing logarithms keeps many small factors from underflowing.

Only what can change a class's sum Σ_g is computed; what is left out is at most 2⁻⁵⁸ of that
sum, far below its rounding (2⁻⁵³), so the probabilities are those of the full sum to their
last bits, tiny ones included (tests/test_gaussian_proba.py compares with the full NumPy
sum). Three facts make this cheap and provable:

* every term of S_g is ≤ 0, so a partial sum bounds S_g from above, and S_g rises with u_g
  (every Φ argument does), so it bounds the S of every lower node too. The nodes are visited
  from the top down; a node whose partial sum puts it and every node below it under 2⁻⁶⁰ of
  the sum so far (or under exp's underflow: an exact 0) ends the class, and one that puts
  it alone under 2⁻⁶⁰/64 of it is abandoned;
* a term with z = (t − m_q)/d_q beyond a cut-off (``_cutoff``: 9.5 for 100 classes)
  is below 2⁻⁶²/k, so all of them change exp(S_g) by less than 2⁻⁶² relative: they are not
  computed. Competitors are visited by decreasing ``m_q + cut·d_q`` (their reach), so at the
  first one out of reach of t the node is done;
* :func:`log_ndtr` is compiled (libm's erfc, no array temporaries).
"""

import functools
import math

import numpy as np

from olearn._compile import jit

#: Gauss–Hermite rule of :func:`max_probabilities`: exact for polynomials of degree below
#: 2·64; the integrand is smooth, and the rows are normalised after.
NODES = 64

_SQRT1_2 = 0.7071067811865476  # 1/√2 rounded, then 1/√2 − _SQRT1_2
_SQRT1_2_LO = -4.833646656726457e-17
# _SQRT1_2 split in two halves of 26 bits (Dekker), and the splitting factor 2²⁷ + 1
_SQRT1_2_HI = 0.7071067839860916
_SQRT1_2_TAIL = -2.7995440410322203e-09
_SPLIT = 134217729.0
_LOG_SQRT_2PI = 0.9189385332046728  # log √(2π)
_SMALL_Q = 2.0**-27
#: exp(x) rounds to exactly 0 below log(2⁻¹⁰⁷⁵) ≈ −745.13: a node whose (partial) log-sum
#: falls below this adds exactly nothing, and neither does any lower node
_UNDERFLOW = -745.2
#: the most a class's sum may lose to nodes left out, relative (its rounding is 2⁻⁵³)
_LEFT_OUT_BITS = 60
_LN2 = math.log(2.0)
#: the most the terms beyond the cut-off may change a node's log-sum
_CUT = 2.0**-62


@functools.cache
def hermite_rule(nodes: int = NODES) -> tuple[np.ndarray, ...]:
    """The ``nodes``-point Gauss–Hermite rule (``numpy.polynomial.hermite.hermgauss``, nodes
    x_g and weights h_g) for a standard normal U: ``(u, w, log_w, log_below)`` with
    u_g = √2·x_g ascending, w_g = h_g/√π (so Σ_g w_g f(u_g) ≈ E f(U)), log w_g, and
    log Σ_{g' ≤ g} w_g' (the weight of node g and of every node below it)."""
    x, h = np.polynomial.hermite.hermgauss(nodes)
    u = np.sqrt(2.0) * x
    w = h / np.sqrt(np.pi)
    rule = (u, w, np.log(w), np.log(np.cumsum(w)))
    for array in rule:
        array.flags.writeable = False
    return rule


@jit(inline="always")
def _rounding_of_t(x, t):
    """x/√2 − t for t = fl(x·fl(1/√2)): the product's rounding (Dekker's exact product,
    no FMA) plus x times the constant's own."""
    p = _SPLIT * x
    x_hi = p - (p - x)
    x_lo = x - x_hi
    e = (
        (x_hi * _SQRT1_2_HI - t) + x_hi * _SQRT1_2_TAIL + x_lo * _SQRT1_2_HI
    ) + x_lo * _SQRT1_2_TAIL
    return e + x * _SQRT1_2_LO


@jit(inline="always")
def _erfc_slope(t):
    """−d log erfc(t)/dt = 2e^(−t²)/(√π erfc t) for t ≥ 2, from erfc's asymptotic series
    (relative error below 3 %: enough for a correction that is itself below 10⁻¹³)."""
    r = 1.0 / (t * t)
    return 2.0 * t / (1.0 - r * (0.5 - r * (0.75 - 1.875 * r)))


@jit
def log_ndtr(x: float) -> float:
    """log Φ(x), the logarithm of the standard normal CDF, to a few ulps on the whole line
    (as ``scipy.special.log_ndtr``; -inf at -inf, NaN for NaN).

    * x ≥ 0: log1p(−Q), Q = Φ(−x) = erfc(x/√2)/2 (no cancellation when Φ(x) is near 1):
      −Q(1 + Q/2) while Q < 2⁻²⁷ (the next term is below 2⁻⁵⁵ of it), otherwise log1p by
      Kahan's ``log(1 − Q)·Q/(1 − (1 − Q))`` (a few ulps; libm's log1p costs as much as
      erfc). Rounding x/√2 would cost Q up to x²·2⁻⁵³ relative (10⁻¹³ at x = 30; scipy's
      has that error): from x/√2 ≥ 2 erfc's slope corrects it. Exactly −0 from x > 38.7,
      where erfc(x/√2) underflows;
    * −37 < x < 0: log(erfc(−x/√2)/2) (erfc is accurate to its last bits down to 10⁻³⁰⁰);
    * x ≤ −37: the asymptotic series (Abramowitz & Stegun 26.2.12)
      Φ(x) = φ(x)/(−x) · Σ_i (−1)^i (2i−1)!!/x^{2i}, summed in logarithms.
    """
    if x >= 0.0:
        if x > 38.7:
            return -0.0
        t = x * _SQRT1_2
        q = 0.5 * math.erfc(t)
        if t >= 2.0:
            q *= 1.0 - _erfc_slope(t) * _rounding_of_t(x, t)
        if q < _SMALL_Q:
            return -q * (1.0 + 0.5 * q)
        p = 1.0 - q
        return math.log(p) * q / (1.0 - p)
    if x > -37.0:
        return math.log(0.5 * math.erfc(-x * _SQRT1_2))
    if x != x:
        return x
    r = 1.0 / (x * x)
    series = 1.0
    term = 1.0
    for i in range(1, 20):  # each term is (2i−1)/x² < 1/35 of the last: done well before
        term *= -(2 * i - 1) * r
        following = series + term
        if following == series:
            break
        series = following
    return -0.5 * x * x - math.log(-x) - _LOG_SQRT_2PI + math.log(series)


@jit
def _cutoff(k):
    """A z past which k terms change a log-sum by at most 2⁻⁶²: k·Φ(−z) ≤ 2⁻⁶², and
    −log Φ(z) = −log1p(−Φ(−z)) ≈ Φ(−z) there: 9.25 for 10 classes, 10 for 10⁴."""
    z = 8.0
    while k * math.exp(log_ndtr(-z)) > _CUT:
        z += 0.125
    return z


@jit
def _class_sum(m, d, r, order, reach, cut, u, w, log_w, log_below):
    """Σ_g w_g exp(S_g) of class r, to 2⁻⁵⁸ relative (module docstring)."""
    k = m.shape[0]
    G = u.shape[0]
    log_nodes = math.log(G)
    total = 0.0
    for g in range(G - 1, -1, -1):
        t = m[r] + d[r] * u[g]
        # s only falls as terms come: at or below ``stop`` this node and every lower one add
        # at most 2⁻⁶⁰ of the sum (or exactly 0 below exp's underflow); at or below
        # ``floor`` this node alone adds at most 2⁻⁶⁰/G of it
        stop = _UNDERFLOW
        floor = _UNDERFLOW
        if total > 0.0:
            # a lower bound of log(sum), within log 2 of it (frexp: no log per node)
            log_total = (math.frexp(total)[1] - 1 - _LEFT_OUT_BITS) * _LN2
            stop = max(stop, log_total - log_below[g])
            floor = max(floor, log_total - log_nodes - log_w[g])
        limit = max(stop, floor)
        s = 0.0
        for j in range(k):
            q = order[j]
            if t > reach[q]:
                break  # this competitor and every later one are past the cut-off
            if q != r:
                z = (t - m[q]) / d[q]
                if z <= cut:
                    s += log_ndtr(z)
                    if s <= limit:
                        break
        if s <= stop:
            break
        if s == 0.0:
            total += w[g]
        elif s > floor:
            total += w[g] * math.exp(s)
    return total


@jit
def _full_class_sum(m, d, r, u, w):
    """Σ_g w_g exp(S_g) of class r with every node and every term (rows with a non-finite
    score or a standard deviation ≤ 0, whose NaNs and infinities it propagates)."""
    k = m.shape[0]
    total = 0.0
    for g in range(u.shape[0] - 1, -1, -1):
        t = m[r] + d[r] * u[g]
        s = 0.0
        for q in range(k):
            if q != r:
                s += log_ndtr((t - m[q]) / d[q])
        total += w[g] * math.exp(s)
    return total


@jit
def max_probabilities(means, sds, u, w, log_w, log_below, out):
    """P(s_r is the largest of the k scores) for independent s_r ~ N(means[i, r],
    sds[i, r]²), every row i, into ``out`` (n, k): rows summing to 1 (module docstring;
    the quadrature's error is below 1e-7). ``u``, ``w``, ``log_w``, ``log_below``:
    :func:`hermite_rule`."""
    n, k = means.shape
    cut = _cutoff(max(k, 1))
    reach = np.empty(k)
    for i in range(n):
        m = means[i]
        d = sds[i]
        plain = True
        for q in range(k):
            plain = plain and math.isfinite(m[q]) and math.isfinite(d[q]) and d[q] > 0.0
            # t > reach[q] puts competitor q past the cut-off: z > cut + 0.25 in exact
            # arithmetic, and reach's rounding is below 0.03 in z while |m| ≤ 10¹⁴·d
            reach[q] = m[q] + (cut + 0.25) * d[q] if abs(m[q]) <= 1e14 * d[q] else np.inf
        # competitors by decreasing reach: past the first one out of reach, all are
        order = np.argsort(-reach)
        total = 0.0
        for r in range(k):
            if plain:
                out[i, r] = _class_sum(m, d, r, order, reach, cut, u, w, log_w, log_below)
            else:
                out[i, r] = _full_class_sum(m, d, r, u, w)
            total += out[i, r]
        if total > 0.0:
            for r in range(k):
                out[i, r] /= total
