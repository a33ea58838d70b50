"""Multilabel ranking (Crammer et al., JMLR 2006, §8): one row per label; the label of an
example is its indicator row (1 = relevant).

Margin γ = min_{r relevant} w^r·x − max_{s irrelevant} w^s·x, the single constraint between
the lowest relevant and the highest irrelevant label, moved like a multiclass pair.

With a learned threshold the last row is a virtual label T that must rank below every
relevant label and above every irrelevant one; the round's constraint is the most violated
of (lowest relevant, highest irrelevant), (lowest relevant, T) and (T, highest irrelevant),
and prediction returns the labels scoring above T.
"""

import numba

from olearn._layout import OPT_LEARNED_THRESHOLD


@numba.njit(cache=True)
def multilabel(relevant, scores, learned_threshold):
    """Returns the task tuple; ``row_a = -1`` when no pair exists (no constraint)."""
    k = relevant.shape[0]
    r = -1
    s = -1
    for j in range(k):
        if relevant[j] != 0.0:
            if r < 0 or scores[j] < scores[r]:
                r = j
        elif s < 0 or scores[j] > scores[s]:
            s = j
    m = 0.0
    a = -1
    b = -1
    if r >= 0 and s >= 0:
        a, b, m = r, s, scores[r] - scores[s]
    if learned_threshold:
        t = k  # the threshold row follows the k labels
        if r >= 0 and (a < 0 or scores[r] - scores[t] < m):
            a, b, m = r, t, scores[r] - scores[t]
        if s >= 0 and (a < 0 or scores[t] - scores[s] < m):
            a, b, m = t, s, scores[t] - scores[s]
    if a < 0:
        return 1.0, -1, 1.0, -1, -1.0, False, 0.0
    return m, a, 1.0, b, -1.0, not m > 0.0, max(0.0, 1.0 - m)


@numba.njit(cache=True, inline="always")
def multilabel_task(y, aux_row, scores, opts):
    """:func:`multilabel` in the task signature (``olearn.tasks``): the indicator row is the
    auxiliary label, the learned-threshold flag an option; cost 1 per mistake."""
    m, ra, sa, rb, sb, mistake, loss = multilabel(
        aux_row, scores, opts[OPT_LEARNED_THRESHOLD] != 0.0
    )
    return m, ra, sa, rb, sb, mistake, loss, 1.0 if mistake else 0.0
