"""Parameter storage and its compiled primitives, one module per representation.

Every row ``x̃`` seen by a representation is the user's row with one implicit extra
coordinate, the intercept feature, whose value ``bias`` is 1.0 with ``fit_intercept=True`` and
0.0 otherwise (so it is inert). Parameter arrays therefore have ``D = n_features + 1``
columns; the last one is the intercept.

A row is ``(idx, val)``: CSR indices and values, or ``idx = None`` for a dense row (numba
compiles the two as separate specialisations; see ``rows.row``).

:data:`REPRESENTATIONS` is the one table of representations: the codes every loop dispatches
on (an unknown code is an error, never a default). Each module holds its primitives (score,
confidence, update) and its fast binary passes; ``_pass.py`` what the passes share.
"""

from typing import NamedTuple

from olearn import _compile  # noqa: F401  (installs the cache policy before any @njit runs)


class Representation(NamedTuple):
    """One row of :data:`REPRESENTATIONS`: its code, its module of this package, and the
    value of the estimators' ``covariance`` parameter that selects it (None: first-order)."""

    code: int
    module: str
    covariance: str | None


REPRESENTATIONS: dict[str, Representation] = {
    "linear": Representation(0, "linear", None),
    "diagonal": Representation(1, "diagonal", "diagonal"),
    "full": Representation(2, "full", "full"),
}

LINEAR = REPRESENTATIONS["linear"].code
DIAGONAL = REPRESENTATIONS["diagonal"].code
FULL = REPRESENTATIONS["full"].code

#: ``covariance`` parameter value -> representation code.
BY_COVARIANCE = {r.covariance: r.code for r in REPRESENTATIONS.values() if r.covariance}
