"""The online counters every olearn model keeps in ``stats_`` (progressive validation)."""

from __future__ import annotations

from sklearn.utils.validation import check_is_fitted

from olearn import engine


class OnlineCountersMixin:
    """``n_rounds_``, ``n_mistakes_`` and ``n_updates_`` read from ``stats_``, whose first three
    slots are the same in every compiled loop (``engine.STAT_*``; the kernel loop follows)."""

    @property
    def n_rounds_(self) -> int:
        """Examples processed (counting every pass)."""
        check_is_fitted(self)
        return int(self.stats_[engine.STAT_ROUNDS])

    @property
    def n_mistakes_(self) -> int:
        """Online mistakes: rounds whose prediction, made before the label was seen, was wrong
        (classification: margin ≤ 0; regression and uniclass: loss > 0; a NaN margin or loss
        always counts)."""
        check_is_fitted(self)
        return int(self.stats_[engine.STAT_MISTAKES])

    @property
    def n_updates_(self) -> int:
        """Rounds whose step changed the model: it moves the example's margin by more than
        10⁻¹² of the margin's size (``|α|·v > 10⁻¹²·max(|m|, |m + |α|·v|)``) or shrinks the
        variance along x by more than 10⁻¹² (``c·v > 10⁻¹²``). A step of rounding size — a
        rule meeting a margin that rounding alone left on its threshold — is applied but not
        counted (``olearn.representations._pass.UPDATE_TOLERANCE``)."""
        check_is_fitted(self)
        return int(self.stats_[engine.STAT_UPDATES])
