"""Parameter storage and its compiled primitives, one module per representation.

Every row ``x̃`` seen by a representation is the user's row with one implicit extra
coordinate, the intercept feature, whose value ``bias`` is 1.0 with ``fit_intercept=True`` and
0.0 otherwise (so it is inert). Parameter arrays therefore have ``D = n_features + 1``
columns; the last one is the intercept.

A row is ``(idx, val)``: CSR indices and values, or ``idx = None`` for a dense row (numba
compiles the two as separate specialisations; see ``rows.row``).
"""

from olearn import _compile  # noqa: F401  (installs the cache policy before any @njit runs)

LINEAR = 0
DIAGONAL = 1
FULL = 2
