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
        (classification: margin ≤ 0; regression and uniclass: loss > 0)."""
        check_is_fitted(self)
        return int(self.stats_[engine.STAT_MISTAKES])

    @property
    def n_updates_(self) -> int:
        """Rounds that changed the model."""
        check_is_fitted(self)
        return int(self.stats_[engine.STAT_UPDATES])
