"""Binary classification, y ∈ {−1, +1}: one parameter row, margin m = y·s."""

import numba


@numba.njit(cache=True)
def binary(y, scores):
    """m = y·s; move row 0 with sign y. A mistake is m ≤ 0; the loss is the hinge max(0, 1 − m)."""
    m = y * scores[0]
    return m, 0, y, -1, 0.0, not m > 0.0, max(0.0, 1.0 - m)


@numba.njit(cache=True, inline="always")
def binary_task(y, aux_row, scores, opts):
    """:func:`binary` in the task signature (``olearn.tasks``): cost 1 per mistake."""
    m, ra, sa, rb, sb, mistake, loss = binary(y, scores)
    return m, ra, sa, rb, sb, mistake, loss, 1.0 if mistake else 0.0
